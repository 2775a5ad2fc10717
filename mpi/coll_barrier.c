/*
 * MPI_Barrier, MPI_Ibarrier, MPI_Barrier_init (the algorithms: coll/coll.c).
 */
#include "config.h"

#include "coll.h"

static int barrier(const char *call, MPI_Comm handle, MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, handle, call, &c);
    if (err == MPI_SUCCESS && tm_mpi_comm_is_inter(c))
        return tm_mpi_coll_inter_barrier(r, c, call, request, mode);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err != MPI_SUCCESS)
        return err;
    if (mode == TM_MPI_COLL_INIT)
        return MPI_SUCCESS;
    return tm_coll_barrier(r, c, call, mode == TM_MPI_COLL_NONBLOCKING ? request : NULL);
}

int PMPI_Barrier(MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(BARRIER);
    return barrier("MPI_Barrier", comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Barrier = PMPI_Barrier

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IBARRIER);
    return barrier("MPI_Ibarrier", comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ibarrier = PMPI_Ibarrier

int tm_mpi_coll_barrier(const char *call, MPI_Comm comm)
{
    return barrier(call, comm, NULL, TM_MPI_COLL_BLOCKING);
}

/* ---- the persistent forms (MPI-4.0; coll_persistent.c) ---- */

static int barrier_run(const char *call, const tm_mpi_coll_args_t *a, MPI_Request *request,
                       tm_mpi_coll_mode_t mode)
{
    return barrier(call, a->comm, request, mode);
}

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.comm = comm};
    return tm_mpi_coll_init("MPI_Barrier_init", barrier_run, &a, info, request);
}
#pragma weak MPI_Barrier_init = PMPI_Barrier_init
