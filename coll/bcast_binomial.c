/*
 * Broadcast over a binomial tree, split between the progress threads and the ranks.
 *
 * With ranks renumbered from the root (v = (rank - root) mod p), at step k = 0 .. H-1 every v
 * below 2^k that has the data sends it to v + 2^k: after H = ceil(lg p) steps all p ranks have
 * it. Cost: lg p · (α + n·β) on the critical path, p - 1 messages in all. Chosen for every size:
 * inside one node a message is one copy, and the tree keeps each copy's source in cache.
 *
 * Split-tree (Euro-Par 2018): step k is level k + 1 of the tree from the root. The top H - S
 * levels are ANY rounds, which the progress thread runs as soon as the collective starts; the
 * last S levels, the widest, are RANK rounds that the rank runs inside MPI_Test/MPI_Wait.
 */
#include "config.h"

#include "coll/coll.h"

tm_nbc_sched_t *tm_coll_bcast_binomial(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, void *buf,
                                       size_t count, tm_mpi_type_t *type, int root, int rank_levels)
{
    int size = comm->size;
    int v = (comm->rank - root + size) % size;
    int height = tm_nbc_tree_height(size);
    int first_rank_step = height - rank_levels; /* steps from here on run on the rank */
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, comm, 0);
    if (!s)
        return NULL;
    int step = 0;
    if (v != 0) {
        while ((2 << step) <= v) /* v receives at the step of its highest bit */
            step++;
        tm_nbc_sched_where(s, step >= first_rank_step ? TM_NBC_RANK : TM_NBC_ANY);
        tm_nbc_sched_recv(s, buf, count, type, ((v - (1 << step)) + root) % size);
        step++;
    }
    /* The children, the largest subtree first; one round per placement. */
    tm_nbc_where_t where = -1;
    for (; step < height; step++) {
        if (v + (1 << step) >= size)
            break;
        tm_nbc_where_t w = step >= first_rank_step ? TM_NBC_RANK : TM_NBC_ANY;
        if (w != where) {
            tm_nbc_sched_barrier(s, w);
            where = w;
        }
        tm_nbc_sched_send(s, buf, count, type, (v + (1 << step) + root) % size);
    }
    return s;
}
