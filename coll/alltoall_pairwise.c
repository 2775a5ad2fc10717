/*
 * Alltoall(v,w) by pairwise exchange: rank r copies its own block, then at step k = 1 .. p-1
 * sends its block for (r + k) mod p there and receives the block of (r - k) mod p, each straight
 * between the user's buffers with the per-peer counts, displacements and types. Every rank
 * sends to and receives from one peer per step, and no two senders target the same receiver:
 * no receiver is a hot spot.
 * Cost: (p - 1) · α + (p - 1) · n · β for n bytes per pair. Chosen for large blocks, where
 * Bruck's lg p steps would move each block lg p / 2 times, and always for MPI_Alltoallv and
 * MPI_Alltoallw (whose blocks may differ per peer).
 *
 * In place (MPI_IN_PLACE: the data to send is in the receive buffer, with the same counts and
 * types): the block for (r + k) mod p is received back at step p - k. Blocks sent first
 * (2k < p) go from the buffer itself; the others are packed into scratch memory before anything
 * is received.
 *
 * Split-tree: the steps carry equal shares of the data; the rank runs the same share of them
 * as the last S levels of a binomial tree hold of its transfers: all but the first
 * floor((p - 1) / 2^S) (steps.h).
 */
#include "config.h"

#include <stdlib.h>

#include "coll/coll.h"
#include "coll/blocks.h"
#include "coll/steps.h"

tm_nbc_sched_t *tm_coll_alltoall_pairwise(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                          const tm_coll_blocks_t *send,
                                          const tm_coll_blocks_t *recv, int rank_levels)
{
    int size = comm->size, me = comm->rank;
    int steps = size - 1;
    int rank_steps = tm_coll_linear_steps(steps, rank_levels);
    tm_mpi_type_t *byte = tm_coll_byte_type();

    /* In place: staged[k] is where the block for (me + k) mod p sits in scratch (2k >= p). */
    size_t *staged = NULL, scratch = 0;
    if (!send) {
        staged = malloc((size_t)size * sizeof *staged);
        if (!staged)
            return NULL;
        for (int k = 1; k < size; k++) {
            staged[k] = scratch;
            if (2 * k >= size)
                scratch += tm_coll_blocks_bytes(recv, (me + k) % size);
        }
    }
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, comm, scratch);
    if (!s) {
        free(staged);
        return NULL;
    }
    char *stage = tm_nbc_sched_scratch(s);
    tm_nbc_sched_where(s, tm_coll_step_where(0, steps, rank_steps));
    if (send)
        tm_nbc_sched_copy(s, tm_coll_blocks_at(send, me), tm_coll_blocks_count(send, me),
                          tm_coll_blocks_type(send, me), tm_coll_blocks_at(recv, me),
                          tm_coll_blocks_count(recv, me), tm_coll_blocks_type(recv, me));
    else
        for (int k = (size + 1) / 2; k < size; k++) {
            int j = (me + k) % size;
            tm_nbc_sched_copy(s, tm_coll_blocks_at(recv, j), tm_coll_blocks_count(recv, j),
                              tm_coll_blocks_type(recv, j), stage + staged[k],
                              tm_coll_blocks_bytes(recv, j), byte);
        }
    for (int k = 1; k < size; k++) {
        int to = (me + k) % size, from = (me - k + size) % size;
        if (k > 1)
            tm_nbc_sched_barrier(s, tm_coll_step_where(k - 1, steps, rank_steps));
        if (send)
            tm_nbc_sched_send(s, tm_coll_blocks_at(send, to), tm_coll_blocks_count(send, to),
                              tm_coll_blocks_type(send, to), to);
        else if (2 * k < size)
            tm_nbc_sched_send(s, tm_coll_blocks_at(recv, to), tm_coll_blocks_count(recv, to),
                              tm_coll_blocks_type(recv, to), to);
        else
            tm_nbc_sched_send(s, stage + staged[k], tm_coll_blocks_bytes(recv, to), byte, to);
        tm_nbc_sched_recv(s, tm_coll_blocks_at(recv, from), tm_coll_blocks_count(recv, from),
                          tm_coll_blocks_type(recv, from), from);
    }
    free(staged);
    return s;
}
