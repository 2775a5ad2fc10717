/*
 * MPI_Reduce_scatter, MPI_Reduce_scatter_block and their non-blocking and persistent forms: an
 * element-wise reduction in rank order whose result is scattered in blocks, block j to rank j (the
 * algorithms: coll/coll.c).
 */
#include "config.h"

#include "coll.h"

/* Reduce_scatter_block (`equal`): every block has `block` elements; else counts[j]. */
static int reduce_scatter(const char *call, const void *sendbuf, void *recvbuf, bool equal,
                          tm_coll_vec_t counts, MPI_Count block, MPI_Datatype datatype,
                          MPI_Op op_handle, MPI_Comm handle, MPI_Request *request,
                          tm_mpi_coll_mode_t mode)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *type;
    tm_mpi_op_t *op;
    bool in_place = sendbuf == MPI_IN_PLACE;
    MPI_Count total = 0;
    int err = tm_mpi_comm_get(r, handle, call, &c);
    if (err != MPI_SUCCESS)
        return err;
    /* On an intercommunicator, counts are of the local group, whose members get the blocks of
     * the reduction of the other group's vectors, which have as many elements. */
    bool inter = tm_mpi_comm_is_inter(c);
    if (inter && in_place)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                  "sendbuf is MPI_IN_PLACE, which intercommunicators do not take");
    MPI_Count some;
    if (!equal) {
        err = tm_mpi_coll_check_counts(r, c, call, "recvcounts", counts, c->size, &some, &total);
        if (err != MPI_SUCCESS)
            return err;
    } else if (block < 0) {
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COUNT, "negative recvcount %lld",
                                  (long long)block);
    } else if (__builtin_mul_overflow(block, (MPI_Count)c->size, &total)) {
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COUNT,
                                  "recvcount %lld for %d ranks is more than memory can hold",
                                  (long long)block, c->size);
    }
    MPI_Count mine = equal ? block : tm_coll_vec_get(counts, c->rank), all = total;
    if (recvbuf == MPI_IN_PLACE)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER, "recvbuf is MPI_IN_PLACE");
    if (in_place) {
        err = tm_mpi_coll_check_buffer(r, c, call, recvbuf, all, datatype, &type);
    } else {
        err = tm_mpi_coll_check_buffer(r, c, call, sendbuf, all, datatype, &type);
        if (err == MPI_SUCCESS)
            err = tm_mpi_coll_check_buffer(r, c, call, recvbuf, mine, datatype, &type);
        if (err == MPI_SUCCESS && sendbuf == recvbuf && mine > 0 && type->size > 0)
            err = tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                     "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
    }
    if (err == MPI_SUCCESS)
        err = tm_mpi_op_get_for_type(r, c, op_handle, type, call, &op);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err != MPI_SUCCESS)
        return err;
    if (mode == TM_MPI_COLL_INIT)
        return MPI_SUCCESS;
    if (inter) {
        size_t off = 0;
        for (int j = 0; j < c->rank; j++)
            off += equal ? (size_t)block : (size_t)tm_coll_vec_get(counts, j);
        return tm_coll_inter_reduce_scatter(r, c, call, sendbuf, recvbuf, (size_t)total, off,
                                            (size_t)mine, type, op,
                                            mode == TM_MPI_COLL_NONBLOCKING ? request : NULL);
    }
    return tm_coll_reduce_scatter(r, c, call, in_place ? recvbuf : sendbuf, recvbuf,
                                  equal ? TM_COLL_VEC_NONE : counts, (size_t)block, type, op,
                                  mode == TM_MPI_COLL_NONBLOCKING ? request : NULL);
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(REDUCE_SCATTER);
    return reduce_scatter("MPI_Reduce_scatter", sendbuf, recvbuf, false,
                          tm_coll_vec_int(recvcounts), 0, datatype, op, comm, NULL,
                          TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter

int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(REDUCE_SCATTER);
    return reduce_scatter("MPI_Reduce_scatter_c", sendbuf, recvbuf, false,
                          tm_coll_vec_count(recvcounts), 0, datatype, op, comm, NULL,
                          TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Reduce_scatter_c = PMPI_Reduce_scatter_c

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IREDUCE_SCATTER);
    return reduce_scatter("MPI_Ireduce_scatter", sendbuf, recvbuf, false,
                          tm_coll_vec_int(recvcounts), 0, datatype, op, comm, request,
                          TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter

int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IREDUCE_SCATTER);
    return reduce_scatter("MPI_Ireduce_scatter_c", sendbuf, recvbuf, false,
                          tm_coll_vec_count(recvcounts), 0, datatype, op, comm, request,
                          TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ireduce_scatter_c = PMPI_Ireduce_scatter_c

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(REDUCE_SCATTER_BLOCK);
    return reduce_scatter("MPI_Reduce_scatter_block", sendbuf, recvbuf, true, TM_COLL_VEC_NONE,
                          recvcount, datatype, op, comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block

int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(REDUCE_SCATTER_BLOCK);
    return reduce_scatter("MPI_Reduce_scatter_block_c", sendbuf, recvbuf, true, TM_COLL_VEC_NONE,
                          recvcount, datatype, op, comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Reduce_scatter_block_c = PMPI_Reduce_scatter_block_c

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IREDUCE_SCATTER_BLOCK);
    return reduce_scatter("MPI_Ireduce_scatter_block", sendbuf, recvbuf, true, TM_COLL_VEC_NONE,
                          recvcount, datatype, op, comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block

int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IREDUCE_SCATTER_BLOCK);
    return reduce_scatter("MPI_Ireduce_scatter_block_c", sendbuf, recvbuf, true, TM_COLL_VEC_NONE,
                          recvcount, datatype, op, comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ireduce_scatter_block_c = PMPI_Ireduce_scatter_block_c

/* ---- the persistent forms (MPI-4.0; coll_persistent.c) ---- */

static int reduce_scatter_run(const char *call, const tm_mpi_coll_args_t *a, MPI_Request *request,
                              tm_mpi_coll_mode_t mode)
{
    return reduce_scatter(call, a->sendbuf, a->recvbuf, false, a->recvcounts, 0, a->datatype, a->op,
                          a->comm, request, mode);
}

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .recvbuf = recvbuf,
                            .recvcounts = tm_coll_vec_int(recvcounts),
                            .datatype = datatype,
                            .op = op,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Reduce_scatter_init", reduce_scatter_run, &a, info, request);
}
#pragma weak MPI_Reduce_scatter_init = PMPI_Reduce_scatter_init

int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .recvbuf = recvbuf,
                            .recvcounts = tm_coll_vec_count(recvcounts),
                            .datatype = datatype,
                            .op = op,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Reduce_scatter_init_c", reduce_scatter_run, &a, info, request);
}
#pragma weak MPI_Reduce_scatter_init_c = PMPI_Reduce_scatter_init_c

static int reduce_scatter_block_run(const char *call, const tm_mpi_coll_args_t *a,
                                    MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    return reduce_scatter(call, a->sendbuf, a->recvbuf, true, TM_COLL_VEC_NONE, a->recvcount,
                          a->datatype, a->op, a->comm, request, mode);
}

int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .recvbuf = recvbuf,
                            .recvcount = recvcount,
                            .datatype = datatype,
                            .op = op,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Reduce_scatter_block_init", reduce_scatter_block_run, &a, info,
                            request);
}
#pragma weak MPI_Reduce_scatter_block_init = PMPI_Reduce_scatter_block_init

int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                     MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .recvbuf = recvbuf,
                            .recvcount = recvcount,
                            .datatype = datatype,
                            .op = op,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Reduce_scatter_block_init_c", reduce_scatter_block_run, &a, info,
                            request);
}
#pragma weak MPI_Reduce_scatter_block_init_c = PMPI_Reduce_scatter_block_init_c
