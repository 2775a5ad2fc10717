/*
 * Inclusive and exclusive prefix reductions (MPI_Scan, MPI_Exscan) by recursive doubling.
 *
 * Each rank holds `result`, the reduction of the ranks from the start of its current block up to
 * itself (exclusive scan: up to the rank before it), and `partial`, the reduction of its whole
 * block. Blocks start as single ranks; at step k = 0 .. H-1 (H = ceil(lg p)) a rank exchanges
 * `partial` with partner r XOR 2^k, the same position in the neighbouring block of 2^k ranks,
 * and the two blocks merge:
 *
 *   partner below:  result = recvd op result     partial = recvd op partial
 *   partner above:                                partial = partial op recvd
 *
 * so every operand stays in rank order (non-commutative operations are exact). A partner at or
 * beyond p is skipped. Cost: lg p · (α + n·β + n·γ) on every rank, p·lg p messages in all, two
 * scratch buffers of n. Chosen for every size and operation: every rank is busy at every step,
 * with the shortest critical path of the prefix algorithms.
 *
 * Split-tree: step k is a level, as in the broadcast (bcast_binomial.c): the first H - S steps
 * are ANY rounds the progress thread runs as soon as the collective starts, the last S run on
 * the rank inside its MPI calls. The operations that fold step k's data run at the start of
 * step k + 1's round, before its send; those of the last step form a round of their own.
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

/* Where step k runs, with the last rank_levels of the height steps on the rank. */
static tm_nbc_where_t step_where(int k, int height, int rank_levels)
{
    return k >= height - rank_levels ? TM_NBC_RANK : TM_NBC_ANY;
}

tm_nbc_sched_t *tm_coll_scan_recdoubling(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                         void *recvbuf, size_t count, tm_mpi_type_t *type,
                                         tm_mpi_op_t *op, bool exclusive, int rank_levels)
{
    int size = comm->size, me = comm->rank;
    int height = tm_nbc_tree_height(size);
    bool no_data = count == 0 || type->size == 0;
    size_t span = no_data ? 0 : span_bytes(count, type);
    size_t slot = (span + 63) & ~(size_t)63;
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, comm, no_data || size == 1 ? 0 : 2 * slot);
    if (!s || no_data)
        return s;
    const void *own = sendbuf; /* sendbuf == recvbuf: in place, the data is in recvbuf */
    if (size == 1) {
        if (!exclusive && sendbuf != recvbuf)
            tm_nbc_sched_copy(s, sendbuf, count, type, recvbuf, count, type);
        return s;
    }
    char *scratch = tm_nbc_sched_scratch(s);
    void *spare = span_base(scratch, count, type);
    void *tmp = span_base(scratch + slot, count, type);
    const void *partial = own; /* read-only until the first merge writes a scratch copy */
    bool have_result = !exclusive;
    int last = -1; /* the last step with a partner */
    for (int k = 0; k < height; k++)
        if ((me ^ (1 << k)) < size)
            last = k;
    tm_nbc_where_t where = TM_NBC_ANY;
    int pending = 0; /* the partner of the exchange to fold: -1 below, +1 above, 0 none */
    bool started = false;
    for (int k = 0; k <= last; k++) {
        int partner = me ^ (1 << k);
        if (partner >= size)
            continue;
        where = step_where(k, height, rank_levels);
        if (started) {
            tm_nbc_sched_barrier(s, where);
        } else {
            tm_nbc_sched_where(s, where);
            if (!exclusive && sendbuf != recvbuf)
                tm_nbc_sched_copy(s, sendbuf, count, type, recvbuf, count, type);
            started = true;
        }
        /* Fold the previous exchange (partial is sent again below: it must be updated). */
        if (pending < 0) {
            if (partial == own) { /* first write: own may be recvbuf, which result changes */
                tm_nbc_sched_copy(s, own, count, type, spare, count, type);
                partial = spare;
            }
            tm_nbc_sched_op(s, tmp, (void *)partial, count, type, op);
            if (have_result) {
                tm_nbc_sched_op(s, tmp, recvbuf, count, type, op);
            } else {
                tm_nbc_sched_copy(s, tmp, count, type, recvbuf, count, type);
                have_result = true;
            }
        } else if (pending > 0) {
            tm_nbc_sched_op(s, partial, tmp, count, type, op);
            void *next_tmp = partial == own ? spare : (void *)partial;
            partial = tmp;
            tmp = next_tmp;
        }
        tm_nbc_sched_send(s, partial, count, type, partner);
        tm_nbc_sched_recv(s, tmp, count, type, partner);
        pending = partner < me ? -1 : 1;
    }
    /* The last exchange only changes the result, and only from a partner below. */
    if (pending < 0) {
        tm_nbc_sched_barrier(s, where);
        if (have_result)
            tm_nbc_sched_op(s, tmp, recvbuf, count, type, op);
        else
            tm_nbc_sched_copy(s, tmp, count, type, recvbuf, count, type);
    }
    return s;
}
