/*
 * Reduce over a binomial tree, split between the ranks and the progress threads.
 *
 * At step k = 0 .. H-1 (H = ceil(lg p)), every tree node v with bit k set sends its partial
 * result to v - 2^k and leaves; v with bits 0 .. k clear receives from v + 2^k the reduction of
 * [v + 2^k, v + 2^(k+1)) and combines it into its own. Cost: lg p · (α + n·β + n·γ) on the
 * critical path (γ: the operation per byte), p - 1 messages. Chosen for every size and count:
 * inside one node a message is one copy, and the tree combines each partial result while it is
 * still in the receiver's cache.
 *
 * The tree. A commutative operation may combine in any order: the tree is over the ranks
 * renumbered from the root (v = (rank - root) mod p), whose result lands at the root directly.
 * A non-commutative one must give 0 op 1 op ... op (p-1): the tree is over the ranks themselves,
 * rooted at 0, where v's partial result covers [v, v + 2^k) and is always the left operand of
 * what it receives; then, when the root is not 0, rank 0 sends the result to the root (one more
 * step, H).
 *
 * Buffers. The engine's operation computes inout = in op inout, so a node combines with
 * in = its partial result and inout = the buffer just received into, which then holds the new
 * partial result; the next receive goes to the other of two buffers, alternated at build time.
 * A node's first partial result is its sendbuf itself: nothing is copied. At the root one of the
 * two buffers is recvbuf, picked so that the last combination lands there (no final copy), and
 * with a commutative operation in place (sendbuf == recvbuf) the root receives into one scratch
 * buffer and combines into recvbuf. Only a non-commutative in-place reduction at rank 0 with an
 * odd number of children ends with one copy.
 *
 * Split-tree (Euro-Par 2018): data flows toward the root, so step k is level k + 1 from the
 * leaves. The first S levels are RANK rounds at the start of the schedule, which run inside the
 * call that starts it (the widest levels, on all ranks at once); the others are ANY rounds, which
 * the progress thread runs while the rank computes. A combination runs at the start of the round
 * after its receive, as part of the level of that round.
 */
#include "config.h"

#include "coll/coll.h"

/* The buffers a node receives into. */
enum { BUF_SCRATCH0, BUF_SCRATCH1, BUF_RECV };

#define MAX_CHILDREN 32 /* one per step: p < 2^31 */

/* The calling rank's part of the reduction. */
typedef struct reduce_plan {
    int height;
    int nchildren;
    int child[MAX_CHILDREN], child_step[MAX_CHILDREN];
    int into[MAX_CHILDREN]; /* BUF_x: where receive i lands */
    int parent;             /* -1 at the tree's root */
    int parent_step;
    bool accumulate; /* commutative, in place at the root: receive to scratch 0, op into recvbuf */
    bool to_root;    /* rank 0 sends the result to the root (non-commutative, root != 0) */
    bool from_zero;  /* the root receives it from rank 0 */
    int nscratch;    /* scratch buffers used */
} reduce_plan_t;

static void plan_make(reduce_plan_t *p, const tm_mpi_comm_t *comm, const void *sendbuf,
                      const void *recvbuf, const tm_mpi_op_t *op, int root)
{
    int size = comm->size, rank = comm->rank;
    bool commute = tm_mpi_op_is_commutative(op);
    int top = commute ? root : 0; /* the tree's root */
    int v = (rank - top + size) % size;
    bool at_root = rank == root;
    bool in_place = at_root && sendbuf == recvbuf;

    p->height = tm_nbc_tree_height(size);
    p->nchildren = 0;
    p->parent = -1;
    p->parent_step = 0;
    for (int k = 0; k < p->height; k++) {
        if (v & (1 << k)) {
            p->parent = (v - (1 << k) + top) % size;
            p->parent_step = k;
            break;
        }
        if (v + (1 << k) < size) {
            p->child[p->nchildren] = (v + (1 << k) + top) % size;
            p->child_step[p->nchildren] = k;
            p->nchildren++;
        }
    }
    p->to_root = !commute && root != 0 && rank == 0;
    p->from_zero = !commute && root != 0 && at_root;
    p->accumulate = commute && in_place;

    int m = p->nchildren;
    int last, other; /* the buffers of the last receive and of the one before it */
    if (!at_root) {
        last = BUF_SCRATCH0;
        other = BUF_SCRATCH1;
    } else if (in_place && m % 2 == 1) {
        /* The first receive must not overwrite the root's data in recvbuf. */
        last = BUF_SCRATCH0;
        other = BUF_RECV;
    } else {
        last = BUF_RECV;
        other = BUF_SCRATCH0;
    }
    p->nscratch = 0;
    for (int i = 0; i < m; i++) {
        int b = p->accumulate ? BUF_SCRATCH0 : (m - 1 - i) % 2 == 0 ? last : other;
        p->into[i] = b;
        if (b != BUF_RECV && b + 1 > p->nscratch)
            p->nscratch = b + 1;
    }
}

/* Bytes of one scratch buffer for count elements of type (whole cache lines), and in *lo_p the
 * offset of the lowest byte they touch from the buffer pointer (true_lb, or lower with a
 * negative extent). */
static size_t typed_span(size_t count, const tm_mpi_type_t *type, MPI_Aint *lo_p)
{
    *lo_p = 0;
    if (count == 0)
        return 0;
    MPI_Aint reach = (MPI_Aint)(count - 1) * type->extent;
    MPI_Aint lo = type->true_lb + (reach < 0 ? reach : 0);
    MPI_Aint hi = type->true_lb + type->true_extent + (reach > 0 ? reach : 0);
    *lo_p = lo;
    return ((size_t)(hi - lo) + 63) & ~(size_t)63;
}

/* All-to-one: step k is level k + 1 from the leaves; the first rank_levels run on the rank. */
static tm_nbc_where_t level_where(int step, int rank_levels)
{
    return step < rank_levels ? TM_NBC_RANK : TM_NBC_ANY;
}

size_t tm_coll_reduce_binomial_scratch(const tm_mpi_comm_t *comm, const void *sendbuf,
                                       const void *recvbuf, size_t count, const tm_mpi_type_t *type,
                                       const tm_mpi_op_t *op, int root)
{
    reduce_plan_t p;
    MPI_Aint lo;
    plan_make(&p, comm, sendbuf, recvbuf, op, root);
    return (size_t)p.nscratch * typed_span(count, type, &lo);
}

void tm_coll_reduce_binomial_add(tm_nbc_sched_t *s, const tm_mpi_comm_t *comm, const void *sendbuf,
                                 void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                                 int root, int rank_levels, void *scratch)
{
    reduce_plan_t p;
    MPI_Aint lo;
    plan_make(&p, comm, sendbuf, recvbuf, op, root);
    size_t span = typed_span(count, type, &lo);
    void *bufs[3] = {NULL, NULL, recvbuf};
    if (scratch) {
        bufs[BUF_SCRATCH0] = (char *)scratch - lo;
        bufs[BUF_SCRATCH1] = (char *)scratch + span - lo;
    }

    const void *acc = sendbuf; /* the partial result so far */
    const void *op_in = NULL;  /* the combination waiting for its receive */
    void *op_inout = NULL;
    for (int i = 0; i < p.nchildren; i++) {
        tm_nbc_sched_barrier(s, level_where(p.child_step[i], rank_levels));
        if (op_inout)
            tm_nbc_sched_op(s, op_in, op_inout, count, type, op);
        void *into = bufs[p.into[i]];
        tm_nbc_sched_recv(s, into, count, type, p.child[i]);
        if (p.accumulate) {
            op_in = into;
            op_inout = recvbuf;
        } else {
            op_in = acc;
            op_inout = into;
            acc = into;
        }
    }
    if (p.accumulate)
        acc = recvbuf;

    if (p.parent >= 0) {
        tm_nbc_sched_barrier(s, level_where(p.parent_step, rank_levels));
        if (op_inout)
            tm_nbc_sched_op(s, op_in, op_inout, count, type, op);
        tm_nbc_sched_send(s, acc, count, type, p.parent);
        if (p.from_zero) {
            tm_nbc_sched_barrier(s, level_where(p.height, rank_levels));
            tm_nbc_sched_recv(s, recvbuf, count, type, 0);
        }
        return;
    }
    /* The tree's root: the last combination, then the result to where it belongs. */
    int step = p.to_root ? p.height : p.nchildren ? p.child_step[p.nchildren - 1] : 0;
    tm_nbc_sched_barrier(s, level_where(step, rank_levels));
    if (op_inout)
        tm_nbc_sched_op(s, op_in, op_inout, count, type, op);
    if (p.to_root)
        tm_nbc_sched_send(s, acc, count, type, root);
    else if (acc != recvbuf)
        tm_nbc_sched_copy(s, acc, count, type, recvbuf, count, type);
}

tm_nbc_sched_t *tm_coll_reduce_binomial(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                        void *recvbuf, size_t count, tm_mpi_type_t *type,
                                        tm_mpi_op_t *op, int root, int rank_levels)
{
    size_t scratch = tm_coll_reduce_binomial_scratch(comm, sendbuf, recvbuf, count, type, op, root);
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, comm, scratch);
    if (!s)
        return NULL;
    tm_coll_reduce_binomial_add(s, comm, sendbuf, recvbuf, count, type, op, root, rank_levels,
                                tm_nbc_sched_scratch(s));
    return s;
}
