/* Run by profile.sh under mpcrun --profile: a fixed number of each kind of call, so that the
 * profile's counts can be checked exactly. Per rank (ring neighbours left and right):
 *   MPI_Send 11, MPI_Recv 12, MPI_Probe 1, MPI_Isend 6, MPI_Irecv 5, MPI_Waitall 1, MPI_Test 1,
 *   MPI_Barrier 3, MPI_Allreduce 2, MPI_Ibcast 1, MPI_Wait 1, MPI_Finalize 1.
 * Checks the data it receives, and exits 1 when something is wrong. */
#include <mpi.h>
#include <stdio.h>

#define RING   10
#define WINDOW 5

static int failed;

static void check(int ok, const char *what, int rank)
{
    if (!ok) {
        fprintf(stderr, "rank %d: %s\n", rank, what);
        failed = 1;
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* Eager messages: every send completes at once, so all may send first. */
    for (int i = 0; i < RING; i++) {
        int v = rank * 100 + i, got = -1;
        MPI_Send(&v, 1, MPI_INT, right, i, MPI_COMM_WORLD);
        MPI_Recv(&got, 1, MPI_INT, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        check(got == left * 100 + i, "ring message", rank);
    }

    /* One message probed before it is received. */
    int v = rank, got = -1, count = 0;
    MPI_Status st;
    MPI_Send(&v, 1, MPI_INT, right, 99, MPI_COMM_WORLD);
    MPI_Probe(left, 99, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    check(count == 1 && st.MPI_SOURCE == left, "probe", rank);
    MPI_Recv(&got, 1, MPI_INT, left, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(got == left, "probed message", rank);

    /* A window of non-blocking messages. */
    int out[WINDOW], in[WINDOW];
    MPI_Request reqs[2 * WINDOW];
    for (int i = 0; i < WINDOW; i++) {
        out[i] = rank + i;
        MPI_Irecv(&in[i], 1, MPI_INT, left, 200 + i, MPI_COMM_WORLD, &reqs[i]);
    }
    for (int i = 0; i < WINDOW; i++)
        MPI_Isend(&out[i], 1, MPI_INT, right, 200 + i, MPI_COMM_WORLD, &reqs[WINDOW + i]);
    MPI_Waitall(2 * WINDOW, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < WINDOW; i++)
        check(in[i] == left + i, "window message", rank);

    /* An eager send to itself is complete at once: one MPI_Test finds it so. */
    MPI_Request self;
    int flag = 0;
    MPI_Isend(&v, 1, MPI_INT, rank, 300, MPI_COMM_WORLD, &self);
    MPI_Test(&self, &flag, MPI_STATUS_IGNORE);
    check(flag, "MPI_Test of an eager send", rank);
    MPI_Recv(&got, 1, MPI_INT, rank, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    /* Collectives. */
    for (int i = 0; i < 3; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    int sum = 0;
    for (int i = 0; i < 2; i++) {
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check(sum == size * (size - 1) / 2, "allreduce", rank);
    }
    int b = rank == 0 ? 42 : 0;
    MPI_Request breq;
    MPI_Ibcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD, &breq);
    MPI_Wait(&breq, MPI_STATUS_IGNORE);
    check(b == 42, "ibcast", rank);

    MPI_Finalize();
    return failed;
}
