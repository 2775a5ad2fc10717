/*
 * Allgather(v) by Bruck's algorithm (Bruck et al., IEEE TPDS 1997), for any number of ranks p.
 * Rank r keeps the blocks in scratch memory, packed, rotated so that its own comes first:
 * position i holds the block of rank (r + i) mod p. At step k = 0 .. H-1 (H = ceil(lg p)) it
 * sends its first min(2^k, p - 2^k) positions to (r - 2^k) mod p and receives the same number
 * from (r + 2^k) mod p into positions 2^k onward: those are the partner's first positions, so
 * both ends are one contiguous run of bytes whatever the per-rank counts. A last round unpacks
 * position i into block (r + i) mod p of the receive buffer.
 * Cost: H · α + (p - 1) · n · β for n bytes per rank, plus two local copies of the data.
 * Chosen when p is not a power of two (recursive doubling, which needs no scratch, takes the
 * others) and for MPI_Allgatherv, below 8 KiB received per rank: above, the two extra copies make
 * it slower than the ring.
 *
 * Split-tree: the H steps stand for the levels of a tree; the last S run on the rank (steps.h).
 */
#include "config.h"

#include <stdlib.h>

#include "coll/coll.h"
#include "coll/blocks.h"
#include "coll/steps.h"

/* Copies positions [from, to) of the packed rotation into their blocks of recv. */
static void unpack(tm_nbc_sched_t *s, const char *packed, const size_t *off, int me, int size,
                   int from, int to, const tm_coll_blocks_t *recv, tm_mpi_type_t *byte)
{
    if (from >= to)
        return;
    if (!recv->counts.at && !recv->displs.at &&
        !recv->types) { /* one run of blocks, side by side */
        int first = (me + from) % size;
        tm_nbc_sched_copy(s, packed + off[from], off[to] - off[from], byte,
                          tm_coll_blocks_at(recv, first), (size_t)(to - from) * recv->count,
                          recv->type);
        return;
    }
    for (int i = from; i < to; i++) {
        int j = (me + i) % size;
        tm_nbc_sched_copy(s, packed + off[i], off[i + 1] - off[i], byte, tm_coll_blocks_at(recv, j),
                          tm_coll_blocks_count(recv, j), tm_coll_blocks_type(recv, j));
    }
}

tm_nbc_sched_t *tm_coll_allgather_bruck(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                        size_t scount, tm_mpi_type_t *stype,
                                        const tm_coll_blocks_t *recv, int rank_levels)
{
    int size = comm->size, me = comm->rank;
    int height = tm_nbc_tree_height(size);
    tm_mpi_type_t *byte = tm_coll_byte_type();

    /* off[i]: where position i starts in the packed rotation; off[size]: its length. */
    size_t *off = malloc(((size_t)size + 1) * sizeof *off);
    if (!off)
        return NULL;
    off[0] = 0;
    for (int i = 0; i < size; i++)
        off[i + 1] = off[i] + tm_coll_blocks_bytes(recv, (me + i) % size);
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, comm, size > 1 ? off[size] : 0);
    if (!s) {
        free(off);
        return NULL;
    }
    char *packed = tm_nbc_sched_scratch(s);
    tm_nbc_sched_where(s, tm_coll_step_where(0, height, rank_levels));
    if (stype) /* not in place: the rank's own block, straight to its place */
        tm_nbc_sched_copy(s, sendbuf, scount, stype, tm_coll_blocks_at(recv, me),
                          tm_coll_blocks_count(recv, me), tm_coll_blocks_type(recv, me));
    if (size > 1)
        tm_nbc_sched_copy(s, stype ? sendbuf : tm_coll_blocks_at(recv, me),
                          stype ? scount : tm_coll_blocks_count(recv, me),
                          stype ? stype : tm_coll_blocks_type(recv, me), packed, off[1], byte);
    for (int k = 0; k < height; k++) {
        int dist = 1 << k;
        int n = dist < size - dist ? dist : size - dist;
        if (k > 0)
            tm_nbc_sched_barrier(s, tm_coll_step_where(k, height, rank_levels));
        if (k == 0 && stype) /* the rank's own block, from where the program left it */
            tm_nbc_sched_send(s, sendbuf, scount, stype, (me - dist + size) % size);
        else
            tm_nbc_sched_send(s, packed, off[n], byte, (me - dist + size) % size);
        tm_nbc_sched_recv(s, packed + off[dist], off[dist + n] - off[dist], byte,
                          (me + dist) % size);
    }
    if (size > 1) {
        tm_nbc_sched_barrier(s, tm_coll_step_where(height, height, rank_levels));
        /* Positions 1 .. size-me-1 are blocks me+1 .. size-1, the others wrap around to 0. */
        unpack(s, packed, off, me, size, 1, size - me, recv, byte);
        unpack(s, packed, off, me, size, size - me, size, recv, byte);
    }
    free(off);
    return s;
}
