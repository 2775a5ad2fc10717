/* A progress thread on a communication core runs its rank's part of a non-blocking collective
 * while the rank cannot run: run by coll_progress.sh on 2 ranks that share one core, their
 * progress threads on the other ([placement] progress = comm), with the whole schedule theirs
 * ([nbc] split_levels = 0). In each round the first rank starts the collective and hands the core
 * to the second with a synchronous send; the second receives, starts its part and computes
 * without calling MPI, so that the first rank, ready to run again, cannot: its core is busy.
 * The second rank's data reached the first rank after its last MPI call, so only the first rank's
 * progress thread can combine it meanwhile: the reduction's user operation counts its calls on a
 * counter the ranks share (heap memory: the ranks are threads of one process), and by the end of
 * the computation the count must be what it is once the collective is over, whichever rank the
 * algorithm has combine. Then each rank must find its request complete at its first MPI_Test.
 * MPI_Ireduce to the first rank and MPI_Iallreduce, 8 bytes (eager) and 1 MiB (rendezvous), each
 * rank in turn the first; the results are checked. */
#include <stdio.h>

#include "coll_progress.h"

#define COMPUTE_MS 200       /* how long the second rank computes */
#define BIG        (1 << 17) /* longs: 1 MiB */

int main(int argc, char **argv)
{
    int rank = init_two_ranks(&argc, &argv, "coll_progress_comm"), errors = 0;
    MPI_Op op = count_sum_create();
    long *in = malloc(BIG * sizeof *in), *out = malloc(BIG * sizeof *out);
    if (!in || !out)
        MPI_Abort(MPI_COMM_WORLD, 2);
    static const int counts[] = {1, BIG}; /* 8 bytes (eager), 1 MiB (rendezvous) */
    int round = 0;
    for (int all = 0; all < 2; all++)
        for (int k = 0; k < 2; k++)
            for (int first = 0; first < 2; first++, round++) {
                const char *name = all ? "MPI_Iallreduce" : "MPI_Ireduce";
                int count = counts[k];
                for (int i = 0; i < count; i++) {
                    in[i] = (long)rank * 1000 + i + round;
                    out[i] = -1;
                }
                MPI_Request req;
                int token = round, flag = 0, computed = 0;
                if (rank == first) {
                    if (all)
                        MPI_Iallreduce(in, out, count, MPI_LONG, op, MPI_COMM_WORLD, &req);
                    else
                        MPI_Ireduce(in, out, count, MPI_LONG, op, first, MPI_COMM_WORLD, &req);
                    MPI_Ssend(&token, 1, MPI_INT, 1 - first, 0, MPI_COMM_WORLD);
                } else {
                    MPI_Recv(&token, 1, MPI_INT, first, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    if (all)
                        MPI_Iallreduce(in, out, count, MPI_LONG, op, MPI_COMM_WORLD, &req);
                    else
                        MPI_Ireduce(in, out, count, MPI_LONG, op, first, MPI_COMM_WORLD, &req);
                    compute_for(COMPUTE_MS);
                    computed = atomic_load_explicit(op_calls, memory_order_acquire);
                }
                MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
                if (!flag) {
                    fprintf(stderr,
                            "coll_progress_comm: rank %d: %s of %zu bytes (rank %d first) was "
                            "not complete at its first test\n",
                            rank, name, count * sizeof(long), first);
                    errors++;
                    MPI_Wait(&req, MPI_STATUS_IGNORE);
                }
                MPI_Barrier(MPI_COMM_WORLD); /* the collective is over on both ranks */
                int over = atomic_load_explicit(op_calls, memory_order_acquire);
                if (rank != first && computed != over) {
                    fprintf(stderr,
                            "coll_progress_comm: %s of %zu bytes: %d of its reductions ran "
                            "after rank %d computed for %d ms, not while (rank %d first)\n",
                            name, count * sizeof(long), over - computed, rank, COMPUTE_MS, first);
                    errors++;
                }
                if (!all && rank != first)
                    continue;
                for (int i = 0; i < count; i++) {
                    long want = 2L * (i + round) + 1000;
                    if (out[i] != want) {
                        fprintf(stderr,
                                "coll_progress_comm: rank %d: %s of %zu bytes: element %d is "
                                "%ld, not %ld\n",
                                rank, name, count * sizeof(long), i, out[i], want);
                        errors++;
                        break;
                    }
                }
            }
    count_sum_free(&op);
    free(in);
    free(out);
    MPI_Finalize();
    return errors ? 1 : 0;
}
