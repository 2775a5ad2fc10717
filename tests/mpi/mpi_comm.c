/* MPI_Comm_rank and MPI_Comm_size on MPI_COMM_WORLD (as many ranks as mpcrun started, each rank
 * in [0, size)) and MPI_COMM_SELF (rank 0 of 1). Usage: mpi_comm NRANKS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank = -1, size = -1, self_rank = -1, self_size = -1, again = -1, errors = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: mpi_comm NRANKS\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    if (MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS || size != atoi(argv[1])) {
        fprintf(stderr, "mpi_comm: MPI_COMM_WORLD has %d ranks, not %s\n", size, argv[1]);
        errors++;
    }
    if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS || rank < 0 || rank >= size) {
        fprintf(stderr, "mpi_comm: rank %d is not in [0, %d)\n", rank, size);
        errors++;
    }
    if (MPI_Comm_rank(MPI_COMM_SELF, &self_rank) != MPI_SUCCESS || self_rank != 0 ||
        MPI_Comm_size(MPI_COMM_SELF, &self_size) != MPI_SUCCESS || self_size != 1) {
        fprintf(stderr, "mpi_comm: rank %d of %d in MPI_COMM_SELF\n", self_rank, self_size);
        errors++;
    }
    if (MPI_Comm_rank(MPI_COMM_WORLD, &again) != MPI_SUCCESS || again != rank) {
        fprintf(stderr, "mpi_comm: rank %d became %d\n", rank, again);
        errors++;
    }
    MPI_Finalize();
    return errors ? 1 : 0;
}
