/* Many ranks on few cores: ROUNDS rounds of an 8-byte token passed around a ring, each rank
 * adding its rank; prints the wall time of the rounds on rank 0, from the end of a barrier that
 * follows WARMUP untimed rounds (every rank has started, and made whatever each MPI makes at a
 * first message between two ranks). Built by bench/p2p.sh and bench/run.sh with each MPI's
 * mpicc. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define WARMUP 2

int main(int argc, char **argv)
{
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 100;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long token = 0;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
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
    double t = MPI_Wtime() - t0;
    if (rank == 0)
        printf("ring_%d_ranks_%d_rounds %.6f s\n", size, rounds, t);
    long expect = (long)rounds * size * (size - 1) / 2;
    int ok = rank != 0 || token == expect;
    if (!ok)
        fprintf(stderr, "ring: token %ld, expected %ld\n", token, expect);
    MPI_Finalize();
    return ok ? 0 : 1;
}
