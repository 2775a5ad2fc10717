/*
 * Barrier by dissemination: at round k = 0 .. H-1 (H = ceil(lg p)) every rank r sends an empty
 * message to (r + 2^k) mod p and receives one from (r - 2^k) mod p. After round k a rank has
 * heard, directly or through others, from the 2^(k+1) - 1 ranks before it; after H rounds from
 * all of them, so no rank leaves before the last one has entered. Cost: lg p · α, p · lg p
 * messages in all; every round is as busy as the others, with no root to wait for and no
 * second phase, which a tree barrier (gather then release) would take: chosen for every size.
 *
 * Split-tree: the H rounds stand for the H levels of a tree; the last S run on the rank, the
 * first H - S on the progress thread too (steps.h).
 */
#include "config.h"

#include "coll/coll.h"
#include "coll/blocks.h"
#include "coll/steps.h"

tm_nbc_sched_t *tm_coll_barrier_dissemination(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                              int rank_levels)
{
    int size = comm->size, me = comm->rank;
    int height = tm_nbc_tree_height(size);
    tm_mpi_type_t *byte = tm_coll_byte_type();
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, comm, 0);
    if (!s)
        return NULL;
    for (int k = 0; k < height; k++) {
        tm_nbc_sched_barrier(s, tm_coll_step_where(k, height, rank_levels));
        tm_nbc_sched_send(s, NULL, 0, byte, (me + (1 << k)) % size);
        tm_nbc_sched_recv(s, NULL, 0, byte, (me - (1 << k) + size) % size);
    }
    return s;
}
