/* Every rank sleeps for up to a minute; rank 0 first prints "ready". For tests that end jobs
 * from outside. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        printf("ready\n");
        fflush(stdout);
    }
    for (int i = 0; i < 600; i++)
        usleep(100000);
    MPI_Finalize();
    return 0;
}
