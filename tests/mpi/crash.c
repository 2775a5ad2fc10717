/* crash KIND RANK: rank RANK dies of KIND (segv, fpe, abort, ill) after MPI_Init. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int *volatile nowhere;
volatile int zero, seven = 7; /* volatile: the division must happen */

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc == 3 && rank == atoi(argv[2])) {
        if (strcmp(argv[1], "segv") == 0)
            *nowhere = 1;
        else if (strcmp(argv[1], "fpe") == 0)
            printf("%d\n", seven / zero);
        else if (strcmp(argv[1], "abort") == 0)
            abort();
        else if (strcmp(argv[1], "ill") == 0)
            __builtin_trap();
    }
    MPI_Finalize();
    return 0;
}
