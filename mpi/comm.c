/*
 * MPI_Comm_rank, MPI_Comm_size and MPI_Abort (communicators are resolved in obj/comm.c).
 */
#include "config.h"

#include <stdio.h>

#include "mpi_impl.h"

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    static const char call[] = "MPI_Comm_rank";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (rank == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "rank is NULL");
    *rank = c->rank;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_rank = PMPI_Comm_rank

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    static const char call[] = "MPI_Comm_size";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (size == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "size is NULL");
    *size = c->size;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_size = PMPI_Comm_size

/* ThreadMPI ends the whole job, which the standard allows for any communicator. A user
 * operation may call it from a reduction that the rank's progress thread runs: the job ends in
 * that rank's name, without looking at `comm` (the rank's tables are its own thread's). */
int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    static const char call[] = "MPI_Abort";
    tm_rt_rank_t *owner = tm_rt_rank_self() ? NULL : tm_rt_progress_owner();
    if (owner) {
        fprintf(stderr,
                "MPI_Abort: rank %d of MPI_COMM_WORLD aborted the job with error code %d "
                "(from a user operation run by its progress thread)\n",
                owner->world_rank, errorcode);
        fflush(stderr);
        tm_rt_job_abort(owner->world_rank, errorcode, NULL);
    }
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (c == &r->world)
        fprintf(stderr, "MPI_Abort: rank %d of %s aborted the job with error code %d\n", c->rank,
                c->name, errorcode);
    else
        fprintf(stderr,
                "MPI_Abort: rank %d of %s (rank %d of MPI_COMM_WORLD) aborted the job "
                "with error code %d\n",
                c->rank, c->name, r->rt->world_rank, errorcode);
    fflush(stderr);
    tm_rt_job_abort(r->rt->world_rank, errorcode, NULL);
}
#pragma weak MPI_Abort = PMPI_Abort
