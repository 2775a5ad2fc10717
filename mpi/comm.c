/*
 * Communicators: MPI_COMM_WORLD, MPI_COMM_SELF and those the program created (comm_create.c),
 * resolved for the calling rank, and MPI_Abort.
 */
#include "config.h"

#include <stdio.h>

#include "mpi_impl.h"

int tm_mpi_comm_get_slow(tm_mpi_rank_t *r, MPI_Comm handle, const char *call,
                         tm_mpi_comm_t **comm_p)
{
    tm_mpi_kind_t kind = tm_mpi_handle_kind(handle);

    *comm_p = NULL;
    if (handle == MPI_COMM_WORLD) {
        *comm_p = &r->world;
        return MPI_SUCCESS;
    }
    if (handle == MPI_COMM_SELF) {
        *comm_p = &r->self;
        return MPI_SUCCESS;
    }
    if (handle == MPI_COMM_NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_COMM,
                                  "invalid communicator MPI_COMM_NULL");
    if (kind == TM_MPI_KIND_COMM) {
        *comm_p = tm_mpi_table_get(&r->comms,
                                   (long)tm_mpi_handle_payload(handle) - TM_MPI_COMM_FIRST_PAYLOAD);
        if (*comm_p != NULL)
            return MPI_SUCCESS;
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_COMM,
                                  "invalid communicator 0x%08x: no such communicator",
                                  (unsigned)handle);
    }
    if (kind == TM_MPI_KIND_NONE)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_COMM,
                                  "invalid communicator 0x%08x: not an MPI handle",
                                  (unsigned)handle);
    return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_COMM,
                              "invalid communicator 0x%08x: the handle of %s", (unsigned)handle,
                              tm_mpi_handle_kind_name(kind));
}

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    static const char call[] = "MPI_Comm_rank";
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
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
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
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
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
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
