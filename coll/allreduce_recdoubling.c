/*
 * Allreduce by recursive doubling. With p' the largest power of two <= p and q = p - p', the
 * first 2q ranks pair up first: each even one sends its data to the odd one above it, which
 * combines them and stands for both. The p' remaining ranks then, at step k = 0 .. lg p' - 1,
 * exchange their whole partial result with the rank whose new number differs in bit k, and
 * combine; at the end the odd ranks of the first pairs send the result back to their even
 * partner. A rank's partial result always covers a contiguous range of ranks, so a
 * non-commutative operation keeps the rank order: the data of the lower range is `in`.
 * Cost: (lg p' + 2·[q > 0]) · (α + n·β) + lg p' · n·γ for n bytes. Chosen for small counts
 * (below 16 KiB), and for every count on fewer than 4 ranks, with a non-commutative operation or
 * with fewer elements than ranks (where Rabenseifner's algorithm has nothing to scatter).
 *
 * Split-tree: the steps (the pairing, the lg p' exchanges, the return) stand for the levels of
 * a tree; the last S run on the rank (steps.h).
 */
#include "config.h"

#include "coll/coll.h"
#include "coll/blocks.h"
#include "coll/steps.h"

/* The rank in the communicator of new number n. */
static int real_rank(int n, int extra)
{
    return n < extra ? 2 * n + 1 : n + extra;
}

tm_nbc_sched_t *tm_coll_allreduce_recdoubling(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                              const void *sendbuf, void *recvbuf, size_t count,
                                              tm_mpi_type_t *type, tm_mpi_op_t *op, int rank_levels)
{
    int size = comm->size, me = comm->rank;
    bool in_place = sendbuf == recvbuf;
    bool commutative = tm_mpi_op_is_commutative(op);
    int pof2 = 1, lg = 0;
    while (2 * pof2 <= size) {
        pof2 *= 2;
        lg++;
    }
    int extra = size - pof2;
    int steps = lg + (extra ? 2 : 0); /* the pairing, the exchanges, the return */
    bool empty = count * type->size == 0;
    tm_nbc_sched_t *s =
        tm_nbc_sched_create(r, comm, size > 1 && !empty ? tm_coll_typed_bytes(count, type) : 0);
    if (!s || empty)
        return s;                        /* empty: nothing to combine */
    if (me < 2 * extra && me % 2 == 0) { /* stood for by me + 1 */
        tm_nbc_sched_where(s, tm_coll_step_where(0, steps, rank_levels));
        tm_nbc_sched_send(s, sendbuf, count, type, me + 1);
        tm_nbc_sched_barrier(s, tm_coll_step_where(steps - 1, steps, rank_levels));
        tm_nbc_sched_recv(s, recvbuf, count, type, me + 1);
        return s;
    }
    int step = me < 2 * extra || extra == 0 ? 0 : 1; /* the others skip the pairing */
    tm_nbc_sched_where(s, tm_coll_step_where(step, steps, rank_levels));
    char *acc = recvbuf, *other = tm_coll_typed_base(tm_nbc_sched_scratch(s), count, type);
    if (!in_place)
        tm_nbc_sched_copy(s, sendbuf, count, type, recvbuf, count, type);
    /* The combination of the data received last, done at the start of the next round. */
    bool pending = false;
    const char *in = NULL;
    char *inout = NULL;
    int newrank = me - extra;
    if (me < 2 * extra) {
        tm_nbc_sched_recv(s, other, count, type, me - 1);
        pending = true; /* the lower rank's data is `in` */
        in = other;
        inout = acc;
        newrank = me / 2;
        tm_nbc_sched_barrier(s, tm_coll_step_where(++step, steps, rank_levels));
    }
    for (int mask = 1; mask < pof2; mask <<= 1) {
        int partner = real_rank(newrank ^ mask, extra);
        if (mask > 1)
            tm_nbc_sched_barrier(s, tm_coll_step_where(++step, steps, rank_levels));
        if (pending)
            tm_nbc_sched_op(s, in, inout, count, type, op);
        /* Nothing combined yet: the data is sent from where the program left it. */
        tm_nbc_sched_send(s, pending || in_place ? acc : sendbuf, count, type, partner);
        tm_nbc_sched_recv(s, other, count, type, partner);
        pending = true;
        if (commutative || partner < me) {
            in = other;
            inout = acc;
        } else { /* acc op other: the result lands in other, which becomes acc */
            in = acc;
            inout = other;
            other = acc;
            acc = inout;
        }
    }
    tm_nbc_sched_barrier(s, tm_coll_step_where(++step, steps, rank_levels));
    if (pending)
        tm_nbc_sched_op(s, in, inout, count, type, op);
    if (acc != (char *)recvbuf)
        tm_nbc_sched_copy(s, acc, count, type, recvbuf, count, type);
    if (me < 2 * extra)
        tm_nbc_sched_send(s, recvbuf, count, type, me - 1);
    return s;
}
