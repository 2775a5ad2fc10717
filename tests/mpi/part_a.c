/* Compiled and linked separately from part_b.c (mpicc -c; mpicc a.o b.o -o app -lm). */
#include <mpi.h>
#include <stdio.h>

extern int hits;
double norm(double x, double y);

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i <= rank; i++)
        hits++;
    int ok = hits == rank + 1 && norm(3.0, 4.0) == 5.0;
    printf("rank %d: %s\n", rank, ok ? "ok" : "wrong");
    MPI_Finalize();
    return ok ? 0 : 1;
}
