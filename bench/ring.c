/* Many ranks on few cores: ROUNDS rounds of 8-byte messages around a ring, one of three
 * workloads (the second argument, default token):
 *   token     a token passed around the ring, each rank adding its rank: one rank at a time
 *             works, so a round is as long as SIZE hops one after the other;
 *   exchange  every rank sends its value to the next rank and receives the previous one's
 *             (MPI_Sendrecv), then an 8-byte MPI_Allreduce of the values: the ring exchange
 *             plus a small allreduce of an iterative solver's step, every rank at work at once;
 *   halo      as exchange, but with both neighbours (two MPI_Irecv, two MPI_Isend, one
 *             MPI_Waitall), as a 1-D stencil's halo exchange does.
 * Prints the wall time of the rounds on rank 0 as "<workload>_<size>_ranks_<rounds>_rounds
 * <seconds> s", from the end of a barrier that follows WARMUP untimed rounds (every rank has
 * started, and made whatever each MPI makes at a first message between two ranks), and checks
 * the result. Built by bench/p2p.sh and bench/run.sh with each MPI's mpicc. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARMUP 2

/* The token's value after `rounds` rounds; on rank 0 only. */
static int token_ring(int rank, int size, int rounds, double *t)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long token = 0;
    double t0 = 0;
    for (int r = -WARMUP; r < rounds; r++) {
        if (r == 0) {
            token = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_LONG, next, r + WARMUP, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_LONG, prev, r + WARMUP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_LONG, prev, r + WARMUP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank;
            MPI_Send(&token, 1, MPI_LONG, next, r + WARMUP, MPI_COMM_WORLD);
        }
    }
    *t = MPI_Wtime() - t0;
    long expect = (long)rounds * size * (size - 1) / 2;
    if (rank == 0 && token != expect) {
        fprintf(stderr, "ring: token %ld, expected %ld\n", token, expect);
        return 1;
    }
    return 0;
}

/* exchange and halo: in round r, rank k's value is k + r; what it receives and the allreduce's
 * sum are checked against that. */
static int exchange_ring(int rank, int size, int rounds, int halo, double *t)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long all = (long)size * (size - 1) / 2; /* sum of the ranks */
    int bad = 0;
    double t0 = 0;
    for (int r = -WARMUP; r < rounds; r++) {
        if (r == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        long mine = rank + r, left = -1, right = -1, got, sum = 0;
        if (halo) {
            MPI_Request req[4];
            MPI_Irecv(&left, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, &req[0]);
            MPI_Irecv(&right, 1, MPI_LONG, next, 1, MPI_COMM_WORLD, &req[1]);
            MPI_Isend(&mine, 1, MPI_LONG, next, 0, MPI_COMM_WORLD, &req[2]);
            MPI_Isend(&mine, 1, MPI_LONG, prev, 1, MPI_COMM_WORLD, &req[3]);
            MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
            bad |= right != next + r;
            got = left + right;
        } else {
            MPI_Sendrecv(&mine, 1, MPI_LONG, next, 0, &left, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            got = left;
        }
        bad |= left != prev + r;
        MPI_Allreduce(&got, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        bad |= sum != (halo ? 2 : 1) * (all + (long)size * r);
    }
    *t = MPI_Wtime() - t0;
    if (bad)
        fprintf(stderr, "ring: rank %d received or summed a wrong value\n", rank);
    return bad;
}

int main(int argc, char **argv)
{
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 100;
    const char *workload = argc > 2 ? argv[2] : "token";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int token = strcmp(workload, "token") == 0, halo = strcmp(workload, "halo") == 0;
    if (rounds < 1 || (!token && !halo && strcmp(workload, "exchange") != 0)) {
        if (rank == 0)
            fprintf(stderr, "usage: ring [ROUNDS [token|exchange|halo]]\n");
        MPI_Finalize();
        return 2;
    }
    double t;
    int bad =
        token ? token_ring(rank, size, rounds, &t) : exchange_ring(rank, size, rounds, halo, &t);
    if (rank == 0)
        printf("%s_%d_ranks_%d_rounds %.6f s\n", token ? "ring" : workload, size, rounds, t);
    MPI_Finalize();
    return bad;
}
