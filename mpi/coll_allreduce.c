/*
 * MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init (the algorithms: coll/coll.c).
 *
 * MPI_IN_PLACE (sendbuf): the data is taken from recvbuf.
 */
#include "config.h"

#include "coll.h"

static int allreduce(const char *call, const void *sendbuf, void *recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op_handle, MPI_Comm handle, MPI_Request *request,
                     tm_mpi_coll_mode_t mode)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *type;
    tm_mpi_op_t *op;
    bool in_place = sendbuf == MPI_IN_PLACE;
    int err = tm_mpi_comm_get(r, handle, call, &c);
    if (err == MPI_SUCCESS && tm_mpi_comm_is_inter(c))
        return tm_mpi_coll_inter_allreduce(r, c, call, sendbuf, recvbuf, count, datatype, op_handle,
                                           request, mode);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_buffer(r, c, call, recvbuf, count, datatype, &type);
    if (err == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        err = tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                 "recvbuf is MPI_IN_PLACE (only sendbuf may be)");
    if (err == MPI_SUCCESS && !in_place)
        err = tm_mpi_coll_check_buffer(r, c, call, sendbuf, count, datatype, &type);
    if (err == MPI_SUCCESS && sendbuf == recvbuf && count > 0 && type->size > 0)
        err = tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                 "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
    if (err == MPI_SUCCESS)
        err = tm_mpi_op_get_for_type(r, c, op_handle, type, call, &op);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err != MPI_SUCCESS)
        return err;
    const void *data = in_place ? recvbuf : sendbuf; /* == recvbuf: in place */
    if (mode == TM_MPI_COLL_INIT)
        return MPI_SUCCESS;
    return tm_coll_allreduce(r, c, call, data, recvbuf, (size_t)count, type, op,
                             mode == TM_MPI_COLL_NONBLOCKING ? request : NULL);
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(ALLREDUCE);
    return allreduce("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, comm, NULL,
                     TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Allreduce = PMPI_Allreduce

int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(ALLREDUCE);
    return allreduce("MPI_Allreduce_c", sendbuf, recvbuf, count, datatype, op, comm, NULL,
                     TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Allreduce_c = PMPI_Allreduce_c

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IALLREDUCE);
    return allreduce("MPI_Iallreduce", sendbuf, recvbuf, count, datatype, op, comm, request,
                     TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Iallreduce = PMPI_Iallreduce

int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IALLREDUCE);
    return allreduce("MPI_Iallreduce_c", sendbuf, recvbuf, count, datatype, op, comm, request,
                     TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Iallreduce_c = PMPI_Iallreduce_c

int tm_mpi_coll_allreduce(const char *call, const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return allreduce(call, sendbuf, recvbuf, count, type, op, comm, NULL, TM_MPI_COLL_BLOCKING);
}

/* ---- the persistent forms (MPI-4.0; coll_persistent.c) ---- */

static int allreduce_run(const char *call, const tm_mpi_coll_args_t *a, MPI_Request *request,
                         tm_mpi_coll_mode_t mode)
{
    return allreduce(call, a->sendbuf, a->recvbuf, a->count, a->datatype, a->op, a->comm, request,
                     mode);
}

int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .recvbuf = recvbuf,
                            .count = count,
                            .datatype = datatype,
                            .op = op,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Allreduce_init", allreduce_run, &a, info, request);
}
#pragma weak MPI_Allreduce_init = PMPI_Allreduce_init

int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .recvbuf = recvbuf,
                            .count = count,
                            .datatype = datatype,
                            .op = op,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Allreduce_init_c", allreduce_run, &a, info, request);
}
#pragma weak MPI_Allreduce_init_c = PMPI_Allreduce_init_c
