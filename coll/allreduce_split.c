/*
 * Non-blocking allreduce as the split-tree composes it (Euro-Par 2018): a binomial reduce to
 * rank 0 (reduce_binomial.c, appended to this schedule; rooted at 0 it keeps the rank order of
 * a non-commutative operation), then a binomial broadcast of the result from rank 0 over the
 * same tree: at step k = 0 .. H-1 every rank v < 2^k sends to v + 2^k.
 * Cost: 2 lg p · (α + n·β) + lg p · n·γ, twice the latency of recursive doubling, but every
 * level of both trees maps on the split: the ranks run the S leaf levels of the reduce at call
 * time (RANK rounds first), the progress thread the H - S upper levels of the reduce and of the
 * broadcast (ANY rounds), and the ranks the S leaf levels of the broadcast again, in
 * MPI_Test/MPI_Wait (RANK rounds last). Chosen for MPI_Iallreduce from TM_COLL_SHARED_BYTES
 * on, and for every size where ranks share cores, where its 2 (p - 1) messages, fewer than the
 * exchanges' p lg p, make less work for the cores (16 ranks on 2 cores, 64 KiB, started and
 * waited for at once: 270-285 against 390-485 us). Smaller ones where each rank has a core of
 * its own take the blocking allreduce's algorithms, whose lg p steps finish sooner (2 ranks on
 * 2 cores: 9.0-12.5 against 8.2-17.8 us, 3 runs each; the 16-core figures are in
 * docs/manycore.md).
 */
#include "config.h"

#include "coll/coll.h"
#include "coll/blocks.h"

tm_nbc_sched_t *tm_coll_allreduce_split(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                        void *recvbuf, size_t count, tm_mpi_type_t *type,
                                        tm_mpi_op_t *op, int rank_levels)
{
    int size = comm->size, me = comm->rank;
    int height = tm_nbc_tree_height(size);
    int first_rank_step = height - rank_levels; /* broadcast steps from here on run on the rank */
    tm_nbc_sched_t *s = tm_nbc_sched_create(
        r, comm, tm_coll_reduce_binomial_scratch(comm, sendbuf, recvbuf, count, type, op, 0));
    if (!s)
        return NULL;
    tm_coll_reduce_binomial_add(s, comm, sendbuf, recvbuf, count, type, op, 0, rank_levels,
                                tm_nbc_sched_scratch(s));
    int step = 0;
    if (me != 0) {
        while ((2 << step) <= me) /* me receives at the step of its highest bit */
            step++;
        tm_nbc_sched_barrier(s, step >= first_rank_step ? TM_NBC_RANK : TM_NBC_ANY);
        tm_nbc_sched_recv(s, recvbuf, count, type, me - (1 << step));
        step++;
    }
    tm_nbc_where_t where = -1;
    for (; step < height && me + (1 << step) < size; step++) {
        tm_nbc_where_t w = step >= first_rank_step ? TM_NBC_RANK : TM_NBC_ANY;
        if (w != where) {
            tm_nbc_sched_barrier(s, w);
            where = w;
        }
        tm_nbc_sched_send(s, recvbuf, count, type, me + (1 << step));
    }
    return s;
}
