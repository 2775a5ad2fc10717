/*
 * MPI_Bcast and MPI_Ibcast (the algorithms: coll/coll.c).
 */
#include "config.h"

#include "coll.h"

static int bcast(const char *call, void *buf, int count, MPI_Datatype datatype, int root,
                 MPI_Comm handle, MPI_Request *request, bool nonblocking)
{
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *type;
    int err = tm_mpi_comm_get(r, handle, call, &c);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_buffer(r, c, call, buf, count, datatype, &type);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_root(r, c, call, root);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, nonblocking);
    if (err != MPI_SUCCESS)
        return err;
    return tm_coll_bcast(r, c, call, buf, (size_t)count, type, root, nonblocking ? request : NULL);
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(BCAST);
    return bcast("MPI_Bcast", buffer, count, datatype, root, comm, NULL, false);
}
#pragma weak MPI_Bcast = PMPI_Bcast

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IBCAST);
    return bcast("MPI_Ibcast", buffer, count, datatype, root, comm, request, true);
}
#pragma weak MPI_Ibcast = PMPI_Ibcast
