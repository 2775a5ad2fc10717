/* A large non-blocking collective goes to a progress thread with a core of its own as it starts
 * ([nbc] handoff_bytes): the rank's call makes none of its copies or reductions, which the
 * thread makes while the rank computes. Run by coll_progress.sh on 2 ranks that share one core,
 * their progress threads on the other ([placement] progress = comm), with the whole schedule
 * theirs ([nbc] split_levels = 0). Rank 1 starts first and hands the core to rank 0, which waits
 * long enough for rank 1's part to have been sent, then starts its own: rank 0's data are there
 * when it starts, and its call could combine them. The operation notes the thread that runs it:
 * it must not be rank 0's. MPI_Iallreduce and MPI_Ireduce to rank 0 of 1 MiB; the results are
 * checked. */
#include <pthread.h>
#include <stdio.h>

#include "coll_progress.h"

#define BIG (1 << 17) /* longs: 1 MiB */

/* The thread of the operation's last call (rank 0's heap word, as op_calls). */
static pthread_t *_Atomic op_thread;

static void noted_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    *atomic_load(&op_thread) = pthread_self(); /* before the count's release */
    count_sum(in, inout, len, type);
}

int main(int argc, char **argv)
{
    int rank = init_two_ranks(&argc, &argv, "coll_handoff"), errors = 0;
    MPI_Op counted = count_sum_create(), op;
    MPI_Op_create(noted_sum, 1, &op);
    pthread_t *noted = NULL;
    if (rank == 0 && !(noted = malloc(sizeof *noted)))
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Bcast(&noted, sizeof noted, MPI_BYTE, 0, MPI_COMM_WORLD);
    atomic_store(&op_thread, noted);
    long *in = malloc(BIG * sizeof *in), *out = malloc(BIG * sizeof *out);
    if (!in || !out)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int all = 0; all < 2; all++) {
        const char *name = all ? "MPI_Iallreduce" : "MPI_Ireduce";
        for (int i = 0; i < BIG; i++) {
            in[i] = (long)rank * 1000 + i;
            out[i] = -1;
        }
        int before = atomic_load_explicit(op_calls, memory_order_acquire);
        MPI_Request req;
        int token = all;
        if (rank == 1) {
            if (all)
                MPI_Iallreduce(in, out, BIG, MPI_LONG, op, MPI_COMM_WORLD, &req);
            else
                MPI_Ireduce(in, out, BIG, MPI_LONG, op, 0, MPI_COMM_WORLD, &req);
            MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            compute_for(50); /* rank 1's progress thread sends its part meanwhile */
            if (all)
                MPI_Iallreduce(in, out, BIG, MPI_LONG, op, MPI_COMM_WORLD, &req);
            else
                MPI_Ireduce(in, out, BIG, MPI_LONG, op, 0, MPI_COMM_WORLD, &req);
            compute_for(200);
            int calls = atomic_load_explicit(op_calls, memory_order_acquire) - before;
            if (calls == 0) {
                fprintf(stderr, "coll_handoff: %s of 1 MiB not combined after 200 ms\n", name);
                errors++;
            } else if (pthread_equal(*noted, pthread_self())) {
                fprintf(stderr,
                        "coll_handoff: %s of 1 MiB combined by rank 0 itself, in its call, not "
                        "by its progress thread\n",
                        name);
                errors++;
            }
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (all || rank == 0)
            for (int i = 0; i < BIG; i++)
                if (out[i] != 2L * i + 1000) {
                    fprintf(stderr, "coll_handoff: rank %d: %s: element %d is %ld, not %ld\n", rank,
                            name, i, out[i], 2L * i + 1000);
                    errors++;
                    break;
                }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Op_free(&op);
    count_sum_free(&counted);
    if (rank == 0)
        free(noted);
    free(in);
    free(out);
    MPI_Finalize();
    return errors ? 1 : 0;
}
