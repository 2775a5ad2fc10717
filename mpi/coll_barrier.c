/*
 * MPI_Barrier and MPI_Ibarrier: dissemination (nbc/); on up to 64 ranks, the flat algorithm
 * (coll_flat.c): blocking, a round of the block; non-blocking, the members' lines of barriers.
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
    if (tm_mpi_coll_use_flat(c, 0)) {
        if (nonblocking)
            return tm_mpi_coll_flat_ibarrier(r, c, call, request);
        tm_mpi_coll_flat_barrier(r, c, call);
        return MPI_SUCCESS;
    }
    int levels = tm_mpi_coll_levels(c, nonblocking, false);
    return tm_mpi_coll_run(r, c, call, tm_nbc_barrier_dissemination(r, c, levels), request);
}

int PMPI_Barrier(MPI_Comm comm)
{
    TM_RT_PROFILE_CALL(BARRIER);
    return barrier("MPI_Barrier", comm, NULL, false);
}
#pragma weak MPI_Barrier = PMPI_Barrier

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    TM_RT_PROFILE_CALL(IBARRIER);
    return barrier("MPI_Ibarrier", comm, request, true);
}
#pragma weak MPI_Ibarrier = PMPI_Ibarrier
