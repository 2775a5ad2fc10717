/* MPI_Init and MPI_Finalize: the flags before, between and after; MPI_Init leaves argc and argv
 * alone; the thread level of MPI_Init is MPI_THREAD_SINGLE; MPI_COMM_WORLD has as many ranks as
 * mpcrun started. Usage: mpi_init NRANKS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors;

static void expect(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "mpi_init: %s\n", what);
        errors++;
    }
}

static int initialized(void)
{
    int flag = -1;

    expect(MPI_Initialized(&flag) == MPI_SUCCESS, "MPI_Initialized failed");
    return flag;
}

static int finalized(void)
{
    int flag = -1;

    expect(MPI_Finalized(&flag) == MPI_SUCCESS, "MPI_Finalized failed");
    return flag;
}

int main(int argc, char **argv)
{
    char **argv_before = argv, *arg1_before = argc > 1 ? argv[1] : NULL;
    int argc_before = argc, provided = -1, is_main = -1, size = -1, rank = -1;

    if (argc != 2) {
        fprintf(stderr, "usage: mpi_init NRANKS\n");
        return 2;
    }
    expect(initialized() == 0, "MPI_Initialized is true before MPI_Init");
    expect(finalized() == 0, "MPI_Finalized is true before MPI_Init");

    expect(MPI_Init(&argc, &argv) == MPI_SUCCESS, "MPI_Init failed");
    expect(argc == argc_before && argv == argv_before && argv[1] == arg1_before &&
               strcmp(argv[1], arg1_before) == 0 && argv[2] == NULL,
           "MPI_Init changed argc or argv");
    expect(initialized() == 1, "MPI_Initialized is false after MPI_Init");
    expect(finalized() == 0, "MPI_Finalized is true before MPI_Finalize");
    expect(MPI_Query_thread(&provided) == MPI_SUCCESS && provided == MPI_THREAD_SINGLE,
           "MPI_Init did not give MPI_THREAD_SINGLE");
    expect(MPI_Is_thread_main(&is_main) == MPI_SUCCESS && is_main == 1,
           "MPI_Is_thread_main is false in the rank's thread");
    expect(MPI_Comm_size(MPI_COMM_WORLD, &size) == MPI_SUCCESS && size == atoi(argv[1]),
           "MPI_COMM_WORLD does not have NRANKS ranks");
    expect(MPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS && rank >= 0 && rank < size,
           "the rank is not in [0, size)");

    expect(MPI_Finalize() == MPI_SUCCESS, "MPI_Finalize failed");
    expect(initialized() == 1, "MPI_Initialized is false after MPI_Finalize");
    expect(finalized() == 1, "MPI_Finalized is false after MPI_Finalize");
    if (errors)
        fprintf(stderr, "mpi_init: rank %d of %d: %d errors\n", rank, size, errors);
    return errors ? 1 : 0;
}
