/*
 * Reduce-scatter (MPI_Reduce_scatter, MPI_Reduce_scatter_block) by direct exchange: every rank
 * sends block j of its data straight to rank j, all in one round, and receives block `me` of
 * every other rank into scratch memory; rank j then reduces its p contributions in rank order,
 *
 *   result = d_0 op (d_1 op ( ... op (d_{p-2} op d_{p-1})))
 *
 * folding from the highest rank down, since an operation computes inout = in op inout with `in`
 * the lower ranks' data: exact for non-commutative operations too (MPI operations are
 * associative). Cost: (p - 1) · α + n · β · (p - 1)/p + n · γ · (p - 1)/p for n elements in all,
 * (p - 2) · n/p of scratch. Chosen for every size and operation: inside one node each block
 * moves once, by one copy straight from the sender's buffer, and no rank forwards another's
 * data (recursive halving would move the data lg p times to save latency that shared memory
 * does not have).
 *
 * In place (sendbuf == recvbuf: the input is the whole receive buffer, the result goes to its
 * start), the result overlaps blocks other ranks are reading: this rank's own block and the
 * highest rank's are then staged in scratch, and the receive buffer is only written once every
 * send is complete.
 *
 * Split-tree: the exchange is one level; it runs on the rank unless S = 0.
 */
#include "config.h"

#include <stdlib.h>

#include "sched.h"

/* Bytes spanned by count elements of type, and where the buffer of such data starting at `mem`
 * is (elements may run downwards: negative extents). */
static size_t span_bytes(size_t count, const tm_mpi_type_t *type)
{
    MPI_Aint step = type->extent < 0 ? -type->extent : type->extent;
    return (size_t)((MPI_Aint)(count - 1) * step + type->true_extent);
}

static void *span_base(char *mem, size_t count, const tm_mpi_type_t *type)
{
    MPI_Aint low = type->true_lb + (type->extent < 0 ? (MPI_Aint)(count - 1) * type->extent : 0);
    return mem - low;
}

tm_nbc_sched_t *tm_nbc_reduce_scatter_pairwise(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                               const void *sendbuf, void *recvbuf,
                                               const int *counts, size_t block, tm_mpi_type_t *type,
                                               tm_mpi_op_t *op, int rank_levels)
{
    int size = comm->size, me = comm->rank;
    bool in_place = sendbuf == recvbuf;
    size_t mine = counts ? (size_t)counts[me] : block;
    if (type->size == 0)
        mine = 0; /* nothing to reduce; the (empty) messages still go */
    /* Staged in scratch: every other rank's block but the highest's (received into recvbuf),
     * and in place also this rank's own and the highest's. */
    size_t slot = mine ? (span_bytes(mine, type) + 63) & ~(size_t)63 : 0;
    int nslots = !mine || size == 1 ? 0 : size - 1 + in_place - (!in_place && me != size - 1);
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, comm, (size_t)nslots * slot);
    if (!s)
        return NULL;
    MPI_Aint my_displ = 0; /* of this rank's block in sendbuf, in elements */
    for (int i = 0; i < me; i++)
        my_displ += counts ? counts[i] : (MPI_Aint)block;
    const char *own = (const char *)sendbuf + my_displ * type->extent;
    if (size == 1) {
        if (!in_place && mine)
            tm_nbc_sched_copy(s, own, mine, type, recvbuf, mine, type);
        return s;
    }
    const void **src = malloc((size_t)size * sizeof *src); /* where d_i is for the fold */
    if (!src) {
        tm_nbc_sched_free(s);
        return NULL;
    }
    char *scratch = tm_nbc_sched_scratch(s);
    int next_slot = 0;
    tm_nbc_where_t where = rank_levels > 0 ? TM_NBC_RANK : TM_NBC_ANY;
    tm_nbc_sched_where(s, where);
    src[me] = own;
    if (in_place && mine) { /* before the sends start: copies run first in a round */
        src[me] = span_base(scratch + (size_t)next_slot++ * slot, mine, type);
        tm_nbc_sched_copy(s, own, mine, type, (void *)src[me], mine, type);
    }
    MPI_Aint displ = 0;
    for (int i = 0; i < size; i++) {
        size_t n = counts ? (size_t)counts[i] : block;
        if (i != me && n)
            tm_nbc_sched_send(s, (const char *)sendbuf + displ * type->extent, n, type, i);
        displ += (MPI_Aint)n;
    }
    if (mine) {
        for (int i = 0; i < size; i++) {
            if (i == me)
                continue;
            if (i == size - 1 && !in_place)
                src[i] = recvbuf;
            else
                src[i] = span_base(scratch + (size_t)next_slot++ * slot, mine, type);
            tm_nbc_sched_recv(s, (void *)src[i], mine, type, i);
        }
        /* The fold, once every block is in and every send is done. */
        tm_nbc_sched_barrier(s, where);
        if (src[size - 1] != recvbuf)
            tm_nbc_sched_copy(s, src[size - 1], mine, type, recvbuf, mine, type);
        for (int i = size - 2; i >= 0; i--)
            tm_nbc_sched_op(s, src[i], recvbuf, mine, type, op);
    }
    free(src);
    return s;
}
