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
 * (p - 2) · n/p of scratch (n in place). Chosen for every size and operation: each block moves
 * once, by one copy straight from the sender's buffer, and one algorithm serves commutative and
 * non-commutative operations alike. Recursive halving would send lg p messages instead of p - 1,
 * but stages the data of every step in scratch and needs a commutative operation, while inside
 * one node a message costs little more than its copy.
 *
 * In place (sendbuf == recvbuf: the input is the whole receive buffer, the result goes to its
 * start), the result overlaps blocks other ranks are reading: this rank's own block and the
 * highest rank's are then staged in scratch, and the receive buffer is only written once every
 * send is complete.
 *
 * Split-tree: the exchange is one level; it runs on the rank unless S = 0.
 */
#include "config.h"

#include "coll/coll.h"

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

/* Where the contributions to this rank's block are during the fold. */
typedef struct staging {
    char *scratch;
    size_t slot; /* bytes per staged block */
    size_t count;
    const tm_mpi_type_t *type;
    int me, size;
    bool in_place;
    const void *own; /* this rank's block in its send buffer */
    void *recvbuf;
} staging_t;

/* Slot 0 holds this rank's own block in place; the next slots the other ranks' blocks in rank
 * order, except that the highest rank's goes straight to recvbuf unless in place. */
static void *contribution(const staging_t *g, int i)
{
    int k;
    if (i == g->me) {
        if (!g->in_place)
            return (void *)g->own;
        k = 0;
    } else {
        if (i == g->size - 1 && !g->in_place)
            return g->recvbuf;
        k = g->in_place + (i < g->me ? i : i - 1);
    }
    return span_base(g->scratch + (size_t)k * g->slot, g->count, g->type);
}

tm_nbc_sched_t *tm_coll_reduce_scatter_pairwise(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                                const void *sendbuf, void *recvbuf,
                                                tm_coll_vec_t counts, size_t block,
                                                tm_mpi_type_t *type, tm_mpi_op_t *op,
                                                int rank_levels)
{
    int size = comm->size, me = comm->rank;
    bool in_place = sendbuf == recvbuf;
    size_t mine = counts.at ? (size_t)tm_coll_vec_get(counts, me) : block;
    if (type->size == 0)
        mine = 0; /* no data anywhere (the type signatures match): an empty schedule */
    size_t slot = mine ? (span_bytes(mine, type) + 63) & ~(size_t)63 : 0;
    int nslots = !mine || size == 1 ? 0 : size - 1 + in_place - (!in_place && me != size - 1);
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, comm, (size_t)nslots * slot);
    if (!s || type->size == 0)
        return s;
    MPI_Aint my_displ = 0; /* of this rank's block in sendbuf, in elements */
    for (int i = 0; i < me; i++)
        my_displ += counts.at ? (MPI_Aint)tm_coll_vec_get(counts, i) : (MPI_Aint)block;
    staging_t g = {.scratch = tm_nbc_sched_scratch(s),
                   .slot = slot,
                   .count = mine,
                   .type = type,
                   .me = me,
                   .size = size,
                   .in_place = in_place,
                   .own = (const char *)sendbuf + my_displ * type->extent,
                   .recvbuf = recvbuf};
    if (size == 1) {
        if (!in_place && mine)
            tm_nbc_sched_copy(s, g.own, mine, type, recvbuf, mine, type);
        return s;
    }
    tm_nbc_where_t where = rank_levels > 0 ? TM_NBC_RANK : TM_NBC_ANY;
    tm_nbc_sched_where(s, where);
    if (in_place && mine) /* copies run first in a round: before any send starts */
        tm_nbc_sched_copy(s, g.own, mine, type, contribution(&g, me), mine, type);
    MPI_Aint displ = 0;
    for (int i = 0; i < size; i++) {
        size_t n = counts.at ? (size_t)tm_coll_vec_get(counts, i) : block;
        if (i != me && n)
            tm_nbc_sched_send(s, (const char *)sendbuf + displ * type->extent, n, type, i);
        displ += (MPI_Aint)n;
    }
    if (!mine)
        return s;
    for (int i = 0; i < size; i++)
        if (i != me)
            tm_nbc_sched_recv(s, contribution(&g, i), mine, type, i);
    /* The fold, once every block is in and every send is done. */
    tm_nbc_sched_barrier(s, where);
    if (contribution(&g, size - 1) != recvbuf)
        tm_nbc_sched_copy(s, contribution(&g, size - 1), mine, type, recvbuf, mine, type);
    for (int i = size - 2; i >= 0; i--)
        tm_nbc_sched_op(s, contribution(&g, i), recvbuf, mine, type, op);
    return s;
}
