/* Each rank gets the program's arguments in its own copy of argv: a rank that changes its copy
 * changes no other rank's. MPI_Init(NULL, NULL) works. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, errors = 0;

    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 4 || strcmp(argv[1], "first") != 0 || strcmp(argv[2], "second") != 0 ||
        strcmp(argv[3], "third") != 0 || argv[4] != NULL || strstr(argv[0], "argv") == NULL) {
        fprintf(stderr, "rank %d: argc=%d argv[1]=%s: not the arguments given\n", rank, argc,
                argc > 1 ? argv[1] : "(none)");
        errors++;
    }
    if (argc > 1)
        argv[1][0] = 'X'; /* must not be seen by any other rank */
    argv[0] = "changed";
    MPI_Finalize();
    return errors ? 1 : 0;
}
