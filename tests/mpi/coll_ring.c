/* MPI_Ibcast, MPI_Ireduce and MPI_Iallreduce of a few bytes, which on up to 64 ranks go through
 * each member's ring in the communicator's shared block (coll/flat.c, "non-blocking broadcasts
 * and reductions"):
 *   - 3 x 40 outstanding at once, roots rotating, far more than a ring holds, the last rank
 *     starting 20 ms after the others: the writers that find their entry still unread write it
 *     later, from their requests, woken by the readers; completed from the last request to the
 *     first (MPI_Wait), then again with MPI_Testall polling; every result checked;
 *   - rank order kept by a reduction whose operation does not commute (2x2 integer matrices
 *     multiplied modulo 1009, in a contiguous type of 4 ints);
 *   - no member's broadcast completes before the root started it: rank 0, the root, starts 20 ms
 *     late, after sending each rank a message that MPI_Iprobe must find once the broadcast is
 *     over;
 *   - MPI_Comm_free of a duplicate with a broadcast under way, completed after the free.
 * Usage: coll_ring (any number of ranks). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "pause.h"

static int rank, size, errors;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "coll_ring: rank %d, line %d: ", rank, __LINE__);                      \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

#define ROUNDS 40
#define MOD    1009

/* 2x2 matrices, row by row: inout := in x inout (the standard's order: in comes first). */
static void mat_mul(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        int c[4] = {(a[0] * b[0] + a[1] * b[2]) % MOD, (a[0] * b[1] + a[1] * b[3]) % MOD,
                    (a[2] * b[0] + a[3] * b[2]) % MOD, (a[2] * b[1] + a[3] * b[3]) % MOD};
        for (int j = 0; j < 4; j++)
            b[j] = c[j];
    }
}

/* Rank k's matrix of round i. */
static void matrix(int k, int i, int *m)
{
    m[0] = 1 + k + i;
    m[1] = 2 * k + 1;
    m[2] = (i * 7 + k) % 5;
    m[3] = 3;
}

/* The product of every rank's matrix of round i, in rank order. */
static void product(int i, int *p)
{
    MPI_Datatype none = MPI_DATATYPE_NULL;
    int one = 1;
    matrix(size - 1, i, p);
    for (int k = size - 2; k >= 0; k--) {
        int m[4];
        matrix(k, i, m);
        mat_mul(m, p, &one, &none);
    }
}

static long value(int i, int root)
{
    return 1000L * i + root;
}

/* 3 x ROUNDS collectives at once: a broadcast, a reduce to a rotating root and an allreduce of
 * matrices per round. `poll`: completed with MPI_Testall, else MPI_Wait from the last. */
static void many(MPI_Comm comm, MPI_Datatype mat, MPI_Op op, int poll)
{
    static MPI_Request q[3 * ROUNDS];
    static long b[ROUNDS];
    static int mine[ROUNDS][4], red[ROUNDS][4], all[ROUNDS][4];
    if (rank == size - 1)
        pause_ms(20);
    for (int i = 0; i < ROUNDS; i++) {
        int root = i % size;
        b[i] = rank == root ? value(i, root) : -1;
        matrix(rank, i, mine[i]);
        red[i][0] = all[i][0] = -1;
        MPI_Ibcast(&b[i], 1, MPI_LONG, root, comm, &q[3 * i]);
        MPI_Ireduce(mine[i], red[i], 1, mat, op, (root + 1) % size, comm, &q[3 * i + 1]);
        MPI_Iallreduce(mine[i], all[i], 1, mat, op, comm, &q[3 * i + 2]);
    }
    if (poll) {
        int done = 0;
        while (!done)
            MPI_Testall(3 * ROUNDS, q, &done, MPI_STATUSES_IGNORE);
    } else {
        for (int j = 3 * ROUNDS - 1; j >= 0; j--)
            MPI_Wait(&q[j], MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < ROUNDS; i++) {
        int root = i % size, want[4];
        product(i, want);
        CHECK(b[i] == value(i, root), "ibcast %d from %d: %ld, expected %ld", i, root, b[i],
              value(i, root));
        for (int j = 0; j < 4; j++) {
            CHECK(all[i][j] == want[j], "iallreduce %d: element %d is %d, expected %d", i, j,
                  all[i][j], want[j]);
            if (rank == (root + 1) % size)
                CHECK(red[i][j] == want[j], "ireduce %d: element %d is %d, expected %d", i, j,
                      red[i][j], want[j]);
        }
    }
}

/* No member's broadcast is over before the root started it. */
static void nobody_completes_early(MPI_Comm comm)
{
    long x = rank == 0 ? 77 : -1;
    MPI_Request q;
    if (rank == 0) {
        pause_ms(20);
        for (int k = 1; k < size; k++)
            MPI_Send(&k, 1, MPI_INT, k, 5, comm);
    }
    MPI_Ibcast(&x, 1, MPI_LONG, 0, comm, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    CHECK(x == 77, "ibcast after the pause: %ld", x);
    if (rank != 0) {
        int flag = 0, got;
        MPI_Iprobe(0, 5, comm, &flag, MPI_STATUS_IGNORE);
        CHECK(flag, "the broadcast completed before rank 0's message, sent before it started");
        MPI_Recv(&got, 1, MPI_INT, 0, 5, comm, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    MPI_Op op;
    MPI_Op_create(mat_mul, 0, &op);

    many(MPI_COMM_WORLD, mat, op, 0);
    many(MPI_COMM_WORLD, mat, op, 1);
    nobody_completes_early(MPI_COMM_WORLD);

    /* freed with a broadcast under way: the last rank starts it 20 ms late */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    long y = rank == 0 ? 5 : -1;
    MPI_Request q;
    if (rank == size - 1)
        pause_ms(20);
    MPI_Ibcast(&y, 1, MPI_LONG, 0, dup, &q);
    MPI_Comm_free(&dup);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    CHECK(y == 5, "ibcast on a freed duplicate: %ld", y);

    MPI_Op_free(&op);
    MPI_Type_free(&mat);
    int all_errors;
    MPI_Allreduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_ring: %s\n", all_errors ? "FAILED" : "ok");
    MPI_Finalize();
    return all_errors ? 1 : 0;
}
