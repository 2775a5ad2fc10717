/* Every rank has its own copy of the program's global and static variables, as if each were a
 * process of its own: here each rank counts to its rank number in a global and a static. */
#include <mpi.h>
#include <stdio.h>

int counter; /* one per rank */

static int count_calls(void)
{
    static int calls; /* one per rank too */
    return ++calls;
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < rank; i++) {
        counter++;
        count_calls();
    }
    printf("rank %d: counter = %d, calls = %d\n", rank, counter, count_calls() - 1);
    MPI_Finalize();
    return counter == rank ? 0 : 1;
}
