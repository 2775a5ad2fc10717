/* The profiling interface: a program's own MPI_Comm_rank and MPI_Wtime replace the library's, and
 * reach it through PMPI_Comm_rank and PMPI_Wtime; a tool's MPI_Pcontrol sees the program's level
 * and the library's PMPI_Pcontrol returns MPI_SUCCESS. Usage: mpi_pmpi NRANKS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank_calls, wtime_calls;

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    rank_calls++;
    return PMPI_Comm_rank(comm, rank);
}

double MPI_Wtime(void)
{
    wtime_calls++;
    return PMPI_Wtime();
}

static int pcontrol_level = -1;

int MPI_Pcontrol(const int level, ...)
{
    pcontrol_level = level;
    return PMPI_Pcontrol(level);
}

int main(int argc, char **argv)
{
    int rank = -1, size = -1, errors = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: mpi_pmpi NRANKS\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank_calls != 1 || rank < 0 || rank >= size || size != atoi(argv[1])) {
        fprintf(stderr, "mpi_pmpi: %d calls of the program's MPI_Comm_rank, rank %d of %d\n",
                rank_calls, rank, size);
        errors++;
    }
    if (MPI_Pcontrol(2) != MPI_SUCCESS || pcontrol_level != 2) {
        fprintf(stderr, "mpi_pmpi: MPI_Pcontrol(2) reached the tool with level %d\n",
                pcontrol_level);
        errors++;
    }
    if (MPI_Wtime() < 0.0 || wtime_calls != 1) {
        fprintf(stderr, "mpi_pmpi: %d calls of the program's MPI_Wtime\n", wtime_calls);
        errors++;
    }
    MPI_Finalize();
    return errors ? 1 : 0;
}
