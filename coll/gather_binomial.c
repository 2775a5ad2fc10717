/*
 * Gather over a binomial tree, split between the ranks and the progress threads.
 *
 * With ranks renumbered from the root (v = (rank - root) mod p), at step k = 0 .. H-1 every v
 * with bit k set (and bits below clear) sends to v - 2^k the blocks of its subtree
 * [v, v + 2^k), and v with bits 0 .. k clear receives them from v + 2^k: the data doubles at
 * each step toward the root. Cost: lg p · α + (p - 1) · n · β at the root (n: one block), p - 1
 * messages in all, against (p - 1) · (α + n·β) for the root receiving from everyone; chosen for
 * every size, as with MPI_Gather every block has the same signature.
 *
 * Buffers. A node holds its subtree's blocks back to back in scratch, in relative-rank order,
 * as bytes: its own block copied in, each child's subtree received after it, then sent up in one
 * message; a leaf sends straight from its sendbuf. At the root, a child's blocks go straight to
 * their place in recvbuf (absolute rank order) when they do not wrap past rank p - 1; the one
 * child whose range wraps receives into scratch, and two copies rotate its blocks into place.
 * With root 0 nothing is copied but the root's own block (and not even that in place).
 *
 * Split-tree (Euro-Par 2018): data flows toward the root, so step k is level k + 1 from the
 * leaves. The first S levels are RANK rounds at the start of the schedule, run inside the call
 * that starts it; the others are ANY rounds for the progress thread. A node posts all its
 * receives of one placement in one round (they land in disjoint places), then sends.
 */
#include "config.h"

#include "coll/coll.h"

/* All-to-one: step k is level k + 1 from the leaves; the first rank_levels run on the rank. */
static tm_nbc_where_t level_where(int step, int rank_levels)
{
    return step < rank_levels ? TM_NBC_RANK : TM_NBC_ANY;
}

/* The lowest set bit of v > 0: v's step toward its parent. */
static int lowest_bit(int v)
{
    int j = 0;
    while (!(v & (1 << j)))
        j++;
    return j;
}

/* Blocks of the subtree of relative rank v (v > 0). */
static size_t subtree_blocks(int v, int size)
{
    int n = 1 << lowest_bit(v);
    return (size_t)(n < size - v ? n : size - v);
}

/* Blocks of the child v + 2^k's subtree, for a node v with bits 0 .. k clear. */
static size_t child_blocks(int v, int k, int size)
{
    int n = 1 << k;
    return (size_t)(n < size - v - n ? n : size - v - n);
}

size_t tm_coll_gather_binomial_scratch(const tm_mpi_comm_t *comm, size_t sendcount,
                                       const tm_mpi_type_t *sendtype, size_t recvcount,
                                       const tm_mpi_type_t *recvtype, int root)
{
    int size = comm->size;
    int v = (comm->rank - root + size) % size;
    size_t bytes = 0;
    if (v != 0) {
        if (v + 1 < size && !(v & 1)) /* has a child */
            bytes = subtree_blocks(v, size) * sendcount * sendtype->size;
    } else {
        /* The child whose range wraps past rank p - 1, if any. */
        size_t block = recvcount * recvtype->size;
        for (int k = 0; (1 << k) < size; k++) {
            int first = ((1 << k) + root) % size;
            size_t n = child_blocks(0, k, size);
            if ((size_t)first + n > (size_t)size)
                bytes = n * block;
        }
    }
    return (bytes + 63) & ~(size_t)63;
}

void tm_coll_gather_binomial_add(tm_nbc_sched_t *s, const tm_mpi_comm_t *comm, const void *sendbuf,
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
        size_t block = sendcount * sendtype->size;
        int j = lowest_bit(v);
        int parent = (v - (1 << j) + root) % size;
        bool leaf = true;
        tm_nbc_where_t where = TM_NBC_ANY;
        for (int k = 0; k < j && v + (1 << k) < size; k++) {
            tm_nbc_where_t w = level_where(k, rank_levels);
            if (leaf || w != where) {
                tm_nbc_sched_barrier(s, w);
                where = w;
            }
            if (leaf) /* the node's own block first in its subtree's */
                tm_nbc_sched_copy(s, sendbuf, sendcount, sendtype, tmp, block, byte);
            leaf = false;
            tm_nbc_sched_recv(s, tmp + ((size_t)1 << k) * block, child_blocks(v, k, size) * block,
                              byte, (v + (1 << k) + root) % size);
        }
        tm_nbc_sched_barrier(s, level_where(j, rank_levels));
        if (leaf)
            tm_nbc_sched_send(s, sendbuf, sendcount, sendtype, parent);
        else
            tm_nbc_sched_send(s, tmp, subtree_blocks(v, size) * block, byte, parent);
        return;
    }

    /* The root. */
    size_t block = recvcount * recvtype->size;
    MPI_Aint stride = (MPI_Aint)recvcount * recvtype->extent;
    char *out = recvbuf;
    tm_nbc_where_t where = level_where(0, rank_levels);
    tm_nbc_sched_barrier(s, where);
    char *mine = out + (MPI_Aint)root * stride;
    if (sendbuf != mine || sendtype != recvtype || sendcount != recvcount)
        tm_nbc_sched_copy(s, sendbuf, sendcount, sendtype, mine, recvcount, recvtype);
    int wrap_first = -1; /* the wrapping child's first block (absolute) and its blocks */
    size_t wrap_n = 0;
    for (int k = 0; k < height; k++) {
        tm_nbc_where_t w = level_where(k, rank_levels);
        if (w != where) {
            tm_nbc_sched_barrier(s, w);
            where = w;
        }
        int child = ((1 << k) + root) % size;
        size_t n = child_blocks(0, k, size);
        if ((size_t)child + n <= (size_t)size) {
            tm_nbc_sched_recv(s, out + (MPI_Aint)child * stride, n * recvcount, recvtype, child);
        } else {
            tm_nbc_sched_recv(s, tmp, n * block, byte, child);
            wrap_first = child;
            wrap_n = n;
        }
    }
    if (wrap_first >= 0) {
        size_t head = (size_t)(size - wrap_first); /* blocks up to rank p - 1; the rest from 0 */
        tm_nbc_sched_barrier(s, level_where(height - 1, rank_levels));
        tm_nbc_sched_copy(s, tmp, head * block, byte, out + (MPI_Aint)wrap_first * stride,
                          head * recvcount, recvtype);
        tm_nbc_sched_copy(s, tmp + head * block, (wrap_n - head) * block, byte, out,
                          (wrap_n - head) * recvcount, recvtype);
    }
}

tm_nbc_sched_t *tm_coll_gather_binomial(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                        size_t sendcount, tm_mpi_type_t *sendtype, void *recvbuf,
                                        size_t recvcount, tm_mpi_type_t *recvtype, int root,
                                        int rank_levels)
{
    size_t scratch =
        tm_coll_gather_binomial_scratch(comm, sendcount, sendtype, recvcount, recvtype, root);
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, comm, scratch);
    if (!s)
        return NULL;
    tm_coll_gather_binomial_add(s, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                root, rank_levels, tm_nbc_sched_scratch(s));
    return s;
}
