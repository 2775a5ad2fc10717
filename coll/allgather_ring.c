/*
 * Allgather(v) around a ring: at step k = 0 .. p-2 rank r passes block (r - k) mod p, which it
 * has, to r + 1 and receives block (r - k - 1) mod p from r - 1, straight into its place in the
 * receive buffer, whatever the per-rank counts, types and displacements.
 * Cost: (p - 1) · α + (p - 1) · n · β for n bytes per rank: the same bandwidth term as recursive
 * doubling or Bruck's algorithm, but every transfer is one block between neighbours (no growing
 * messages that leave the cache, no scratch, no unpacking). Chosen for large blocks (and large
 * MPI_Allgatherv), where the p - 1 latencies are small beside the transfers.
 *
 * Split-tree: the steps carry equal shares of the data; the rank runs the same share of them
 * as the last S levels of a binomial tree hold of its transfers: all but the first
 * floor((p - 1) / 2^S), so S = H puts every step on the rank and S = 0 none (steps.h).
 */
#include "config.h"

#include "coll/coll.h"
#include "coll/blocks.h"
#include "coll/steps.h"

tm_nbc_sched_t *tm_coll_allgather_ring(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                       size_t scount, tm_mpi_type_t *stype,
                                       const tm_coll_blocks_t *recv, int rank_levels)
{
    int size = comm->size, me = comm->rank;
    int steps = size - 1;
    int rank_steps = tm_coll_linear_steps(steps, rank_levels);
    int right = (me + 1) % size, left = (me - 1 + size) % size;
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, comm, 0);
    if (!s)
        return NULL;
    tm_nbc_sched_where(s, tm_coll_step_where(0, steps, rank_steps));
    if (stype) /* not in place: the rank's own block first, before it is sent */
        tm_nbc_sched_copy(s, sendbuf, scount, stype, tm_coll_blocks_at(recv, me),
                          tm_coll_blocks_count(recv, me), tm_coll_blocks_type(recv, me));
    for (int k = 0; k < steps; k++) {
        int out = (me - k + size) % size, in = (me - k - 1 + size) % size;
        if (k > 0)
            tm_nbc_sched_barrier(s, tm_coll_step_where(k, steps, rank_steps));
        if (k == 0 && stype) /* the rank's own block, from where the program left it */
            tm_nbc_sched_send(s, sendbuf, scount, stype, right);
        else
            tm_nbc_sched_send(s, tm_coll_blocks_at(recv, out), tm_coll_blocks_count(recv, out),
                              tm_coll_blocks_type(recv, out), right);
        tm_nbc_sched_recv(s, tm_coll_blocks_at(recv, in), tm_coll_blocks_count(recv, in),
                          tm_coll_blocks_type(recv, in), left);
    }
    return s;
}
