/* Standard input goes to rank 0 only: rank 0 must read the line given to the job with each of
 * fgets(stdin), scanf and getchar; every other rank must see end of file at once. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, errors = 0;
    char line[64] = "", word[64] = "";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *got = fgets(line, sizeof line, stdin);
    int words = scanf("%63s", word);
    int c = getchar();
    if (rank == 0) {
        if (!got || strcmp(line, "first line\n") != 0 || words != 1 ||
            strcmp(word, "second") != 0 || c != '\n') {
            fprintf(stderr, "rank 0: read \"%s\", \"%s\" (%d), %d\n", line, word, words, c);
            errors++;
        }
    } else if (got || words != EOF || c != EOF) {
        fprintf(stderr, "rank %d: read standard input\n", rank);
        errors++;
    }
    MPI_Finalize();
    return errors;
}
