/*
 * MPI_Allreduce and MPI_Iallreduce.
 *
 * MPI_IN_PLACE (sendbuf): the data is taken from recvbuf. Blocking: the flat algorithm for small
 * data on up to 64 ranks (coll_flat.c: the last member to arrive folds everyone's data); else
 * recursive doubling below
 * ALLREDUCE_SMALL bytes, on fewer than 4 ranks, for non-commutative operations and for fewer
 * elements than ranks; else Rabenseifner's reduce-scatter + allgather, which moves 2n instead of
 * n lg p bytes; for large data and commutative operations, the shared-address-space algorithm
 * (coll_shared.c), in which each rank combines one chunk straight from the others' buffers.
 * Non-blocking: the split-tree's reduce to rank 0 then broadcast (nbc/allreduce_split.c), whose
 * levels divide between the rank and its progress thread.
 */
#include "config.h"

#include "coll.h"

/* Bytes below which the blocking allreduce uses recursive doubling. Measured (2 cores): on 4, 8
 * and 16 ranks Rabenseifner's algorithm is 30-45% slower at 4 KiB, even at 8 KiB, and ahead from
 * 16 KiB (by 30-50% at 64 KiB); on 2 and 3 ranks (p' = 2) its two half exchanges never beat
 * recursive doubling's one (up to 256 KiB). */
#define ALLREDUCE_SMALL (16 * 1024)

static int allreduce(const char *call, const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op_handle, MPI_Comm handle, MPI_Request *request,
                     bool nonblocking)
{
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *type;
    tm_mpi_op_t *op;
    bool in_place = sendbuf == MPI_IN_PLACE;
    int err = tm_mpi_comm_get(r, handle, call, &c);
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
        err = tm_mpi_coll_check_request(r, c, call, request, nonblocking);
    if (err != MPI_SUCCESS)
        return err;
    const void *data = in_place ? recvbuf : sendbuf; /* == recvbuf: in place, for nbc/ */
    size_t n = (size_t)count;
    tm_nbc_sched_t *s;
    if (nonblocking) {
        s = tm_nbc_allreduce_split(r, c, data, recvbuf, n, type, op,
                                   tm_mpi_coll_levels(c, true, false));
    } else if (tm_mpi_coll_use_flat_reduce(c, n, type)) {
        tm_mpi_coll_flat_reduce(r, c, call, data, recvbuf, n, type, op, -1);
        return MPI_SUCCESS;
    } else if (tm_mpi_coll_use_shared(c, n, type, op)) {
        return tm_mpi_coll_allreduce_shared(r, c, call, data, recvbuf, n, type, op);
    } else {
        int pof2 = 1;
        while (2 * pof2 <= c->size)
            pof2 *= 2;
        if (n * type->size < ALLREDUCE_SMALL || !tm_mpi_op_is_commutative(op) || pof2 < 4 ||
            n < (size_t)pof2)
            s = tm_nbc_allreduce_recdoubling(r, c, data, recvbuf, n, type, op, TM_NBC_ALL_LEVELS);
        else
            s = tm_nbc_allreduce_rabenseifner(r, c, data, recvbuf, n, type, op, TM_NBC_ALL_LEVELS);
    }
    return tm_mpi_coll_run(r, c, call, s, request);
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    TM_RT_PROFILE_CALL(ALLREDUCE);
    return allreduce("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, comm, NULL, false);
}
#pragma weak MPI_Allreduce = PMPI_Allreduce

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    TM_RT_PROFILE_CALL(IALLREDUCE);
    return allreduce("MPI_Iallreduce", sendbuf, recvbuf, count, datatype, op, comm, request, true);
}
#pragma weak MPI_Iallreduce = PMPI_Iallreduce
