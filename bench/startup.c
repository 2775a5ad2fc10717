/* Start-up and shutdown of a whole job: MPI_Init, the rank and size, MPI_Finalize. The same
 * source is built with each MPI's mpicc by bench/startup.sh, which times whole jobs. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Finalize();
    return rank < size ? 0 : 1;
}
