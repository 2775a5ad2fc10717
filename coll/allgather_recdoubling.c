/*
 * Allgather by recursive doubling, for a power-of-two number of ranks p and blocks that follow
 * each other in the receive buffer (MPI_Allgather). At step k = 0 .. lg p - 1 rank r exchanges
 * with r xor 2^k everything it has: the 2^k blocks of its aligned group, [r & ~(2^k - 1),
 * + 2^k), which lie side by side in the receive buffer, for the partner's group next to it.
 * The data doubles at each step and is received in place: no scratch, no final copy.
 * Cost: lg p · α + (p - 1) · n · β for n bytes per rank. Chosen on power-of-two communicators
 * below 64 KiB received per rank (Bruck's algorithm has the same cost but a rotation in scratch
 * memory); the ring wins above, where its neighbour-only traffic keeps each copy short.
 *
 * Split-tree: the lg p steps stand for the levels of a tree; the last S run on the rank (steps.h).
 */
#include "config.h"

#include "coll/coll.h"
#include "coll/blocks.h"
#include "coll/steps.h"

tm_nbc_sched_t *tm_coll_allgather_recdoubling(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                              const void *sendbuf, size_t scount,
                                              tm_mpi_type_t *stype, const tm_coll_blocks_t *recv,
                                              int rank_levels)
{
    int size = comm->size, me = comm->rank;
    int height = tm_nbc_tree_height(size);
    size_t count = recv->count;
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, comm, 0);
    if (!s)
        return NULL;
    tm_nbc_sched_where(s, tm_coll_step_where(0, height, rank_levels));
    if (stype) /* not in place: the rank's own block first, before it is sent */
        tm_nbc_sched_copy(s, sendbuf, scount, stype, tm_coll_blocks_at(recv, me), count,
                          recv->type);
    for (int k = 0; k < height; k++) {
        int partner = me ^ (1 << k);
        int mine = me & ~((1 << k) - 1), theirs = partner & ~((1 << k) - 1);
        if (k > 0)
            tm_nbc_sched_barrier(s, tm_coll_step_where(k, height, rank_levels));
        if (k == 0 && stype) /* the rank's own block, from where the program left it */
            tm_nbc_sched_send(s, sendbuf, scount, stype, partner);
        else
            tm_nbc_sched_send(s, tm_coll_blocks_at(recv, mine), count << k, recv->type, partner);
        tm_nbc_sched_recv(s, tm_coll_blocks_at(recv, theirs), count << k, recv->type, partner);
    }
    return s;
}
