/* MPI_Ibarrier, which on up to 64 ranks enters the barrier through each member's line of the
 * communicator's shared block (coll/flat.c, "non-blocking barriers"), else disseminates
 * messages:
 *   - no rank leaves a barrier before every rank has entered it: before entering, rank 0 sends
 *     each rank a message (eager, so it is in the mailbox when MPI_Send returns), and once the
 *     barrier is over an MPI_Iprobe must find it; rank 0 enters 20 ms after the others;
 *   - 200 barriers outstanding at once, completed from the last to the first, with point-to-point
 *     messages between the starts; then 200 more, each rank completing them at its own pace
 *     (MPI_Test polling on even ranks, MPI_Waitall at once on odd ones);
 *   - on the world split in two (odd, even), where each half's barriers are its own;
 *   - MPI_Comm_free of a communicator while another rank has not entered its barrier yet (it
 *     enters 20 ms later), the request completed after the free; a new duplicate's barriers
 *     then start afresh (a block left over would end them at once);
 *   - MPI_COMM_SELF.
 * Usage: coll_ibarrier (any number of ranks). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "pause.h"

static int rank, size, errors;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "coll_ibarrier: rank %d, line %d: ", rank, __LINE__);                  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* A message sent by rank 0 before it enters is there once the barrier is over. */
static void nobody_leaves_early(MPI_Comm comm, int tag)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    MPI_Request req;
    if (me == 0) {
        pause_ms(20);
        for (int k = 1; k < n; k++)
            MPI_Send(&k, 1, MPI_INT, k, tag, comm);
    }
    MPI_Ibarrier(comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (me != 0) {
        int flag = 0, got = -1;
        MPI_Iprobe(0, tag, comm, &flag, MPI_STATUS_IGNORE);
        CHECK(flag, "left the barrier (tag %d) before rank 0's message, sent before it entered",
              tag);
        MPI_Recv(&got, 1, MPI_INT, 0, tag, comm, MPI_STATUS_IGNORE);
        CHECK(got == me, "rank 0's message holds %d", got);
    }
}

#define MANY 200

static void many(MPI_Comm comm)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    MPI_Request reqs[MANY], sends[MANY], recvs[MANY];
    int out[MANY], in[MANY];
    for (int i = 0; i < MANY; i++) {
        MPI_Ibarrier(comm, &reqs[i]);
        out[i] = me * 1000 + i;
        MPI_Isend(&out[i], 1, MPI_INT, (me + 1) % n, 5, comm, &sends[i]);
        MPI_Irecv(&in[i], 1, MPI_INT, (me + n - 1) % n, 5, comm, &recvs[i]);
    }
    for (int i = MANY - 1; i >= 0; i--)
        MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
    MPI_Waitall(MANY, sends, MPI_STATUSES_IGNORE);
    MPI_Waitall(MANY, recvs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < MANY; i++)
        CHECK(in[i] == ((me + n - 1) % n) * 1000 + i, "message %d holds %d", i, in[i]);

    /* Each at its own pace */
    for (int i = 0; i < MANY; i++)
        MPI_Ibarrier(comm, &reqs[i]);
    if (me % 2 == 0) {
        for (int i = 0; i < MANY; i++) {
            int flag = 0;
            while (!flag)
                MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE);
        }
    } else {
        MPI_Waitall(MANY, reqs, MPI_STATUSES_IGNORE);
    }
    for (int i = 0; i < MANY; i++)
        CHECK(reqs[i] == MPI_REQUEST_NULL, "request %d not freed", i);
}

/* A communicator freed before rank 0 entered its barrier (MPI_Comm_free may wait for it), the
 * barrier's request completed after; then a new duplicate's barriers start afresh. */
static void freed_while_pending(void)
{
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Request req;
    if (rank == 0)
        pause_ms(20);
    MPI_Ibarrier(dup, &req);
    MPI_Comm_free(&dup);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(req == MPI_REQUEST_NULL, "MPI_Wait left the request");
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    nobody_leaves_early(dup, 9);
    MPI_Comm_free(&dup);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int t = 0; t < 3; t++)
        nobody_leaves_early(MPI_COMM_WORLD, t);
    many(MPI_COMM_WORLD);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    nobody_leaves_early(half, 7);
    many(half);
    MPI_Comm_free(&half);
    freed_while_pending();
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_SELF, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_ibarrier: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
