/*
 * MPI_Reduce, MPI_Ireduce, MPI_Reduce_init (the algorithms: coll/coll.c).
 */
#include "config.h"

#include "coll.h"

static int reduce(const char *call, const void *sendbuf, void *recvbuf, MPI_Count count,
                  MPI_Datatype datatype, MPI_Op op_handle, int root, MPI_Comm handle,
                  MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *type;
    tm_mpi_op_t *op;
    bool in_place = sendbuf == MPI_IN_PLACE;
    int err = tm_mpi_comm_get(r, handle, call, &c);
    if (err == MPI_SUCCESS && tm_mpi_comm_is_inter(c))
        return tm_mpi_coll_inter_reduce(r, c, call, sendbuf, recvbuf, count, datatype, op_handle,
                                        root, request, mode);
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
    if ((err = tm_mpi_coll_check_request(r, c, call, request, mode)) != MPI_SUCCESS)
        return err;
    if (mode == TM_MPI_COLL_INIT)
        return MPI_SUCCESS;
    return tm_coll_reduce(r, c, call, in_place ? recvbuf : sendbuf, recvbuf, (size_t)count, type,
                          op, root, mode == TM_MPI_COLL_NONBLOCKING ? request : NULL);
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(REDUCE);
    return reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm, NULL,
                  TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Reduce = PMPI_Reduce

int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(REDUCE);
    return reduce("MPI_Reduce_c", sendbuf, recvbuf, count, datatype, op, root, comm, NULL,
                  TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Reduce_c = PMPI_Reduce_c

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IREDUCE);
    return reduce("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm, request,
                  TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ireduce = PMPI_Ireduce

int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IREDUCE);
    return reduce("MPI_Ireduce_c", sendbuf, recvbuf, count, datatype, op, root, comm, request,
                  TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ireduce_c = PMPI_Ireduce_c

/* ---- the persistent forms (MPI-4.0; coll_persistent.c) ---- */

static int reduce_run(const char *call, const tm_mpi_coll_args_t *a, MPI_Request *request,
                      tm_mpi_coll_mode_t mode)
{
    return reduce(call, a->sendbuf, a->recvbuf, a->count, a->datatype, a->op, a->root, a->comm,
                  request, mode);
}

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .recvbuf = recvbuf,
                            .count = count,
                            .datatype = datatype,
                            .op = op,
                            .root = root,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Reduce_init", reduce_run, &a, info, request);
}
#pragma weak MPI_Reduce_init = PMPI_Reduce_init

int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .recvbuf = recvbuf,
                            .count = count,
                            .datatype = datatype,
                            .op = op,
                            .root = root,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Reduce_init_c", reduce_run, &a, info, request);
}
#pragma weak MPI_Reduce_init_c = PMPI_Reduce_init_c
