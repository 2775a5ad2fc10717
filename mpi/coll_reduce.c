/*
 * MPI_Reduce and MPI_Ireduce (the algorithms: coll/coll.c).
 */
#include "config.h"

#include "coll.h"

static int reduce(const char *call, const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op_handle, int root, MPI_Comm handle,
                  MPI_Request *request, bool nonblocking)
{
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *type;
    tm_mpi_op_t *op;
    bool in_place = sendbuf == MPI_IN_PLACE;
    int err = tm_mpi_comm_get(r, handle, call, &c);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_buffer(r, c, call, in_place ? NULL : sendbuf, in_place ? 0 : count,
                                       datatype, &type);
    if (err == MPI_SUCCESS)
        err = tm_mpi_op_get_for_type(r, c, op_handle, type, call, &op);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_root(r, c, call, root);
    if (err != MPI_SUCCESS)
        return err;
    bool at_root = c->rank == root;
    if (at_root) {
        /* The result's buffer: significant at the root only. */
        if ((err = tm_mpi_coll_check_buffer(r, c, call, recvbuf, count, datatype, &type)) !=
            MPI_SUCCESS)
            return err;
        if (recvbuf == MPI_IN_PLACE)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                      "recvbuf is MPI_IN_PLACE (only sendbuf may be)");
        if (sendbuf == recvbuf && count > 0 && type->size > 0)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                      "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
    } else if (in_place) {
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                  "sendbuf is MPI_IN_PLACE at rank %d, which is not the root %d",
                                  c->rank, root);
    }
    if ((err = tm_mpi_coll_check_request(r, c, call, request, nonblocking)) != MPI_SUCCESS)
        return err;
    return tm_coll_reduce(r, c, call, in_place ? recvbuf : sendbuf, recvbuf, (size_t)count, type,
                          op, root, nonblocking ? request : NULL);
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(REDUCE);
    return reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm, NULL, false);
}
#pragma weak MPI_Reduce = PMPI_Reduce

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IREDUCE);
    return reduce("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm, request, true);
}
#pragma weak MPI_Ireduce = PMPI_Ireduce
