/*
 * Allreduce by Rabenseifner's algorithm (ICCS 2004) for commutative operations: a reduce-scatter
 * by recursive halving, then an allgather by recursive doubling. With p' the largest power of two
 * <= p, the first 2(p - p') ranks pair up first as in recursive doubling (the even ones hand
 * their data to the odd ones and get the result back at the end). The vector is cut into p'
 * pieces. At the halving step of distance d = p'/2, p'/4 .. 1, a rank and its partner (new
 * numbers differing in bit d) split the range of pieces they both hold: each sends the half the
 * other keeps and combines the half it keeps with what it receives, until each holds the full
 * reduction of piece number (its new number). The doubling steps d = 1, 2 .. p'/2 then exchange
 * the reduced ranges, which double, straight into the receive buffer.
 * Cost: 2 lg p' · α + 2 (p'-1)/p' · n·β + (p'-1)/p' · n·γ (plus 2 (α + n·β) when p is not a power
 * of two), against lg p' · (α + n·β + n·γ) for recursive doubling: chosen for large counts (from
 * 16 KiB) with a commutative operation, p' >= 4 and at least p' elements; the caller falls back
 * to recursive doubling otherwise.
 *
 * Split-tree: the steps (the pairing, 2 lg p' halvings and doublings, the return) stand for the
 * levels of a tree; the last S run on the rank (steps.h).
 */
#include "config.h"

#include "coll/coll.h"
#include "coll/blocks.h"
#include "coll/steps.h"

static int real_rank(int n, int extra)
{
    return n < extra ? 2 * n + 1 : n + extra;
}

/* The first element of piece i, of `pieces` (count / pieces each, the first count % pieces
 * one more). */
static size_t piece_start(size_t count, int pieces, int i)
{
    size_t base = count / (size_t)pieces, more = count % (size_t)pieces;
    return (size_t)i * base + ((size_t)i < more ? (size_t)i : more);
}

tm_nbc_sched_t *tm_coll_allreduce_rabenseifner(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                               const void *sendbuf, void *recvbuf, size_t count,
                                               tm_mpi_type_t *type, tm_mpi_op_t *op,
                                               int rank_levels)
{
    int size = comm->size, me = comm->rank;
    bool in_place = sendbuf == recvbuf;
    int pof2 = 1, lg = 0;
    while (2 * pof2 <= size) {
        pof2 *= 2;
        lg++;
    }
    int extra = size - pof2;
    int steps = 2 * lg + (extra ? 2 : 0);
    bool empty = count * type->size == 0;
    tm_nbc_sched_t *s =
        tm_nbc_sched_create(r, comm, size > 1 && !empty ? tm_coll_typed_bytes(count, type) : 0);
    if (!s || empty)
        return s;
    if (me < 2 * extra && me % 2 == 0) { /* stood for by me + 1 */
        tm_nbc_sched_where(s, tm_coll_step_where(0, steps, rank_levels));
        tm_nbc_sched_send(s, sendbuf, count, type, me + 1);
        tm_nbc_sched_barrier(s, tm_coll_step_where(steps - 1, steps, rank_levels));
        tm_nbc_sched_recv(s, recvbuf, count, type, me + 1);
        return s;
    }
    char *acc = recvbuf, *tmp = tm_coll_typed_base(tm_nbc_sched_scratch(s), count, type);
    MPI_Aint extent = type->extent;
    int step = me < 2 * extra || extra == 0 ? 0 : 1;
    tm_nbc_sched_where(s, tm_coll_step_where(step, steps, rank_levels));
    if (!in_place)
        tm_nbc_sched_copy(s, sendbuf, count, type, recvbuf, count, type);
    /* The combination of the data received last (elements [at, at + n) of tmp into acc), done
     * at the start of the next round. */
    bool pending = false;
    size_t at = 0, n = 0;
    int newrank = me - extra;
    if (me < 2 * extra) {
        tm_nbc_sched_recv(s, tmp, count, type, me - 1);
        pending = true;
        n = count;
        newrank = me / 2;
        tm_nbc_sched_barrier(s, tm_coll_step_where(++step, steps, rank_levels));
    }
    /* Halving: [lo, hi) are the pieces the rank and its partners of the coming steps share. */
    int lo = 0, hi = pof2;
    for (int d = pof2 / 2; d >= 1; d /= 2) {
        int partner = real_rank(newrank ^ d, extra);
        int mid = lo + d;
        int keep_lo = newrank & d ? mid : lo, give_lo = newrank & d ? lo : mid;
        size_t keep = piece_start(count, pof2, keep_lo), give = piece_start(count, pof2, give_lo);
        size_t nkeep = piece_start(count, pof2, keep_lo + d) - keep;
        size_t ngive = piece_start(count, pof2, give_lo + d) - give;
        if (d < pof2 / 2)
            tm_nbc_sched_barrier(s, tm_coll_step_where(++step, steps, rank_levels));
        if (pending) /* before the send: it may be part of what goes */
            tm_nbc_sched_op(s, tmp + (MPI_Aint)at * extent, acc + (MPI_Aint)at * extent, n, type,
                            op);
        /* Nothing combined yet: the data is sent from where the program left it. */
        const char *from = pending || in_place ? acc : sendbuf;
        tm_nbc_sched_send(s, from + (MPI_Aint)give * extent, ngive, type, partner);
        tm_nbc_sched_recv(s, tmp + (MPI_Aint)keep * extent, nkeep, type, partner);
        pending = true;
        at = keep;
        n = nkeep;
        lo = keep_lo;
        hi = keep_lo + d;
    }
    /* Doubling: [lo, hi) are the reduced pieces the rank holds. */
    for (int d = 1; d < pof2; d *= 2) {
        int partner = real_rank(newrank ^ d, extra);
        int other_lo = newrank & d ? lo - d : hi;
        size_t mine = piece_start(count, pof2, lo), theirs = piece_start(count, pof2, other_lo);
        tm_nbc_sched_barrier(s, tm_coll_step_where(++step, steps, rank_levels));
        if (pending)
            tm_nbc_sched_op(s, tmp + (MPI_Aint)at * extent, acc + (MPI_Aint)at * extent, n, type,
                            op);
        pending = false;
        tm_nbc_sched_send(s, acc + (MPI_Aint)mine * extent, piece_start(count, pof2, hi) - mine,
                          type, partner);
        tm_nbc_sched_recv(s, acc + (MPI_Aint)theirs * extent,
                          piece_start(count, pof2, other_lo + d) - theirs, type, partner);
        if (newrank & d)
            lo = other_lo;
        else
            hi += d;
    }
    if (me < 2 * extra) {
        tm_nbc_sched_barrier(s, tm_coll_step_where(++step, steps, rank_levels));
        tm_nbc_sched_send(s, recvbuf, count, type, me - 1);
    }
    return s;
}
