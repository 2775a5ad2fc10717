/* Non-blocking collectives go on while every rank computes: run by coll_progress.sh with
 * [nbc] split_levels = 0 (the whole schedule may run on the progress threads) and cores to spare
 * for the progress threads. Both ranks start an MPI_Iallreduce whose user operation counts its
 * calls on a counter they share (heap memory: the ranks are threads of one process), then
 * compute without calling MPI until the count says the operation ran. It can only run once both
 * ranks' data is there, and one rank starts a while after the other. When the rank that applies
 * the operation (2 ranks: one of them, the algorithm's choice) is the early one, its progress
 * thread has gone to sleep by then and must be woken by the late rank's message, its rank being
 * busy; the ranks take turns being late, over eager and rendezvous sizes, and the result is
 * checked after MPI_Wait. If nothing runs the operation, the ranks spin: each gives up after 20
 * s and the test fails, naming the round. */
#include <stdio.h>

#include "coll_progress.h"

#define ROUNDS    20
#define LATE_MS   20   /* how long the late rank computes before it starts */
#define GIVE_UP_S 20.0 /* how long a rank computes waiting for its operation */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, errors = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Op op = count_sum_create();
    static const int counts[] = {1, 16384}; /* 8 bytes (eager), 128 KiB (rendezvous) */
    long *in = malloc(16384 * sizeof *in), *out = malloc(16384 * sizeof *out);
    if (!in || !out)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int round = 0; round < ROUNDS; round++) {
        int count = counts[round % 2];
        for (int i = 0; i < count; i++)
            in[i] = (long)rank * 1000 + i + round;
        int before = atomic_load_explicit(op_calls, memory_order_acquire);
        if (rank == (round / 2) % size)
            compute_for(LATE_MS);
        MPI_Request req;
        MPI_Iallreduce(in, out, count, MPI_LONG, op, MPI_COMM_WORLD, &req);
        double give_up = now() + GIVE_UP_S;
        while (atomic_load_explicit(op_calls, memory_order_acquire) == before && now() < give_up)
            ;
        if (atomic_load_explicit(op_calls, memory_order_acquire) == before) {
            fprintf(stderr,
                    "coll_progress: rank %d, round %d (%d elements): the reduction did not "
                    "run in %.0f s while the rank computed\n",
                    rank, round, count, GIVE_UP_S);
            errors++;
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int i = 0; i < count; i++) {
            long want = (long)size * (i + round) + 1000L * size * (size - 1) / 2;
            if (out[i] != want) {
                fprintf(stderr, "coll_progress: rank %d, round %d: element %d is %ld, not %ld\n",
                        rank, round, i, out[i], want);
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
