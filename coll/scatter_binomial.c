/*
 * Scatter over a binomial tree, split between the progress threads and the ranks.
 *
 * With ranks renumbered from the root (v = (rank - root) mod p), at step t = 0 .. H-1, with
 * d = 2^(H-1-t), every v that is a multiple of 2d sends to v + d the blocks of its subtree
 * [v + d, v + 2d): the data halves at each step away from the root (gather's tree, run
 * backwards). Cost: lg p · α + (p - 1) · n · β at the root (n: one block), p - 1 messages in
 * all, against (p - 1) · (α + n·β) for the root sending to everyone; chosen for every size, as
 * with MPI_Scatter every block has the same signature.
 *
 * Buffers. An inner node receives its subtree's blocks into scratch, back to back in
 * relative-rank order, as bytes; it sends each child its part from there and copies its own
 * block to recvbuf; a leaf receives straight into its recvbuf. The root sends each child's
 * blocks straight from sendbuf when they do not wrap past rank p - 1; for the one child whose
 * range wraps, two copies put its blocks in order in scratch first. With root 0 nothing is
 * copied but the root's own block (and not even that in place).
 *
 * Split-tree (Euro-Par 2018): as for the broadcast, step t is level t + 1 from the root. The top
 * H - S levels are ANY rounds, which the progress thread runs as soon as the collective starts;
 * the last S levels, the widest, are RANK rounds that the rank runs inside MPI_Test/MPI_Wait.
 * A node posts all its sends of one placement in one round (they read disjoint places).
 */
#include "config.h"

#include "coll/coll.h"

/* The lowest set bit of v > 0: it receives when d = 2^(that bit). */
static int lowest_bit(int v)
{
    int j = 0;
    while (!(v & (1 << j)))
        j++;
    return j;
}

/* Blocks of the subtree [v + d, v + 2d) ∩ [0, size) of v's child v + d. */
static size_t child_blocks(int v, int d, int size)
{
    return (size_t)(d < size - v - d ? d : size - v - d);
}

size_t tm_coll_scatter_binomial_scratch(const tm_mpi_comm_t *comm, size_t sendcount,
                                        const tm_mpi_type_t *sendtype, size_t recvcount,
                                        const tm_mpi_type_t *recvtype, int root)
{
    int size = comm->size;
    int v = (comm->rank - root + size) % size;
    size_t bytes = 0;
    if (v != 0) {
        if (v + 1 < size && !(v & 1)) { /* has a child */
            int n = 1 << lowest_bit(v);
            bytes = (size_t)(n < size - v ? n : size - v) * recvcount * recvtype->size;
        }
    } else {
        /* The child whose range wraps past rank p - 1, if any. */
        size_t block = sendcount * sendtype->size;
        for (int d = 1; d < size; d <<= 1) {
            int first = (d + root) % size;
            size_t n = child_blocks(0, d, size);
            if ((size_t)first + n > (size_t)size)
                bytes = n * block;
        }
    }
    return (bytes + 63) & ~(size_t)63;
}

/* One-to-all: step t is level t + 1 from the root; the last rank_levels run on the rank. */
static tm_nbc_where_t level_where(int step, int height, int rank_levels)
{
    return step >= height - rank_levels ? TM_NBC_RANK : TM_NBC_ANY;
}

void tm_coll_scatter_binomial_add(tm_nbc_sched_t *s, const tm_mpi_comm_t *comm, const void *sendbuf,
                                  size_t sendcount, tm_mpi_type_t *sendtype, void *recvbuf,
                                  size_t recvcount, tm_mpi_type_t *recvtype, int root,
                                  int rank_levels, void *scratch)
{
    int size = comm->size;
    int v = (comm->rank - root + size) % size;
    int height = tm_nbc_tree_height(size);
    tm_mpi_type_t *byte;
    tm_mpi_type_lookup(MPI_BYTE, &byte);
    char *tmp = scratch;

    if (v != 0) {
        size_t block = recvcount * recvtype->size;
        int j = lowest_bit(v);
        int parent = (v - (1 << j) + root) % size;
        int step = height - 1 - j; /* of the receive */
        tm_nbc_sched_barrier(s, level_where(step, height, rank_levels));
        if (!(v + 1 < size && !(v & 1))) { /* a leaf: straight into recvbuf */
            tm_nbc_sched_recv(s, recvbuf, recvcount, recvtype, parent);
            return;
        }
        size_t n = child_blocks(v - (1 << j), 1 << j, size);
        tm_nbc_sched_recv(s, tmp, n * block, byte, parent);
        /* The children, the largest subtree first; the own block after the first round's
         * sends, so that they start first. */
        tm_nbc_where_t where = TM_NBC_ANY;
        bool sending = false, copied = false;
        for (int d = 1 << (j - 1); d >= 1; d >>= 1, step++) {
            if (v + d >= size)
                continue;
            tm_nbc_where_t w = level_where(step + 1, height, rank_levels);
            if (!sending || w != where) {
                if (sending && !copied) {
                    tm_nbc_sched_copy(s, tmp, block, byte, recvbuf, recvcount, recvtype);
                    copied = true;
                }
                tm_nbc_sched_barrier(s, w);
                where = w;
                sending = true;
            }
            tm_nbc_sched_send(s, tmp + (size_t)d * block, child_blocks(v, d, size) * block, byte,
                              (v + d + root) % size);
        }
        if (!copied)
            tm_nbc_sched_copy(s, tmp, block, byte, recvbuf, recvcount, recvtype);
        return;
    }

    /* The root. */
    size_t block = sendcount * sendtype->size;
    MPI_Aint stride = (MPI_Aint)sendcount * sendtype->extent;
    const char *in = sendbuf;
    const char *mine = in + (MPI_Aint)root * stride;
    bool copy_mine = recvbuf != mine || recvtype != sendtype || recvcount != sendcount;
    tm_nbc_where_t where = TM_NBC_ANY;
    bool sending = false;
    int step = 0;
    for (int d = height ? 1 << (height - 1) : 0; d >= 1; d >>= 1, step++) {
        tm_nbc_where_t w = level_where(step, height, rank_levels);
        if (!sending || w != where) {
            if (sending && copy_mine) {
                tm_nbc_sched_copy(s, mine, sendcount, sendtype, recvbuf, recvcount, recvtype);
                copy_mine = false;
            }
            tm_nbc_sched_barrier(s, w);
            where = w;
            sending = true;
        }
        int child = (d + root) % size;
        size_t n = child_blocks(0, d, size);
        if ((size_t)child + n <= (size_t)size) {
            tm_nbc_sched_send(s, in + (MPI_Aint)child * stride, n * sendcount, sendtype, child);
            continue;
        }
        /* Wraps: blocks up to rank p - 1, then the rest from rank 0, in order in scratch; the
         * copies run before the send, which comes after them in the round. */
        size_t head = (size_t)(size - child);
        tm_nbc_sched_copy(s, in + (MPI_Aint)child * stride, head * sendcount, sendtype, tmp,
                          head * block, byte);
        tm_nbc_sched_copy(s, in, (n - head) * sendcount, sendtype, tmp + head * block,
                          (n - head) * block, byte);
        tm_nbc_sched_send(s, tmp, n * block, byte, child);
    }
    if (copy_mine) {
        if (!sending) /* a communicator of one */
            tm_nbc_sched_barrier(s, level_where(0, height, rank_levels));
        tm_nbc_sched_copy(s, mine, sendcount, sendtype, recvbuf, recvcount, recvtype);
    }
}

tm_nbc_sched_t *tm_coll_scatter_binomial(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                         size_t sendcount, tm_mpi_type_t *sendtype, void *recvbuf,
                                         size_t recvcount, tm_mpi_type_t *recvtype, int root,
                                         int rank_levels)
{
    size_t scratch =
        tm_coll_scatter_binomial_scratch(comm, sendcount, sendtype, recvcount, recvtype, root);
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, comm, scratch);
    if (!s)
        return NULL;
    tm_coll_scatter_binomial_add(s, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype, root, rank_levels, tm_nbc_sched_scratch(s));
    return s;
}
