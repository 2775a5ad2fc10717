/* How a rank ends, chosen by the arguments: status MODE RANK VALUE.
 *   return        rank RANK returns VALUE from main after MPI_Finalize
 *   exit          rank RANK calls exit(VALUE) after MPI_Finalize (from a nested function)
 *   exit-early    rank RANK calls exit(VALUE) between MPI_Init and MPI_Finalize
 *   return-early  rank RANK returns VALUE from main without calling MPI_Finalize
 *   abort         rank RANK calls MPI_Abort(MPI_COMM_WORLD, VALUE)
 *   no-mpi        every rank returns VALUE without calling MPI at all
 * The other ranks return 0 after MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void leave(int value)
{
    exit(value);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: status MODE RANK VALUE\n");
        return 99;
    }
    const char *mode = argv[1];
    int who = atoi(argv[2]), value = atoi(argv[3]), rank;
    if (strcmp(mode, "no-mpi") == 0)
        return value;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == who) {
        if (strcmp(mode, "exit-early") == 0)
            leave(value);
        if (strcmp(mode, "return-early") == 0)
            return value;
        if (strcmp(mode, "abort") == 0)
            MPI_Abort(MPI_COMM_WORLD, value);
    }
    MPI_Finalize();
    if (rank == who && strcmp(mode, "exit") == 0)
        leave(value);
    return rank == who && strcmp(mode, "return") == 0 ? value : 0;
}
