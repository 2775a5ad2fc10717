/* Privatization: every rank has its own globals (initialized, zeroed, arrays, pointers to them),
 * function statics and __thread variables. Each rank adds rank+1 to each of them, in steps, and
 * checks that it sees only its own additions: a variable shared between two ranks would show the
 * other's too (ranks of one VP run one after the other, so a shared variable is always caught). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int initialized = 1000;
long zeroed;
double array[64];
char name[32] = "unset";
int *pointer = &initialized;
__thread int per_thread;

static int bump_static(void)
{
    static int calls;
    return ++calls;
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (initialized != 1000 || zeroed != 0 || array[7] != 0.0 || strcmp(name, "unset") != 0 ||
        per_thread != 0 || pointer != &initialized) {
        fprintf(stderr, "rank %d: globals were already modified at start\n", rank);
        errors++;
    }
    snprintf(name, sizeof name, "rank %d", rank);
    int calls = 0;
    for (int i = 0; i <= rank; i++) {
        initialized++;
        zeroed += 2;
        array[7] += 1.0;
        (*pointer)++;
        per_thread++;
        calls = bump_static();
        MPI_Wtime(); /* an MPI call between the steps */
    }
    char expect_name[32];
    snprintf(expect_name, sizeof expect_name, "rank %d", rank);
    if (initialized != 1000 + 2 * (rank + 1) || zeroed != 2 * (rank + 1) || array[7] != rank + 1 ||
        per_thread != rank + 1 || calls != rank + 1 || strcmp(name, expect_name) != 0) {
        fprintf(stderr,
                "rank %d: shared globals: initialized=%d zeroed=%ld array=%g thread=%d "
                "static=%d name=%s\n",
                rank, initialized, zeroed, array[7], per_thread, calls, name);
        errors++;
    }
    MPI_Finalize();
    return errors ? 1 : 0;
}
