/*
 * MPI_Barrier and MPI_Ibarrier (the algorithms: coll/coll.c).
 */
#include "config.h"

#include "coll.h"

static int barrier(const char *call, MPI_Comm handle, MPI_Request *request, bool nonblocking)
{
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, handle, call, &c);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, nonblocking);
    if (err != MPI_SUCCESS)
        return err;
    return tm_coll_barrier(r, c, call, nonblocking ? request : NULL);
}

int PMPI_Barrier(MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(BARRIER);
    return barrier("MPI_Barrier", comm, NULL, false);
}
#pragma weak MPI_Barrier = PMPI_Barrier

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IBARRIER);
    return barrier("MPI_Ibarrier", comm, request, true);
}
#pragma weak MPI_Ibarrier = PMPI_Ibarrier
