/* MPI_Error_string and MPI_Error_class on every error class: each has its own non-empty string,
 * "MPI_ERR_...: description", that fits MPI_MAX_ERROR_STRING, and is its own class.
 * Usage: mpi_errors */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static char strings[MPI_ERR_LASTCODE + 1][MPI_MAX_ERROR_STRING];

int main(int argc, char **argv)
{
    int errors = 0, len, cls;

    MPI_Init(&argc, &argv);
    for (int code = MPI_SUCCESS; code <= MPI_ERR_LASTCODE; code++) {
        char *s = strings[code];

        len = -1;
        memset(s, 'x', MPI_MAX_ERROR_STRING);
        if (MPI_Error_string(code, s, &len) != MPI_SUCCESS || len <= 0 ||
            len >= MPI_MAX_ERROR_STRING || (size_t)len != strlen(s) || strncmp(s, "MPI_", 4) != 0 ||
            strstr(s, ": ") == NULL) {
            fprintf(stderr, "mpi_errors: string of %d: %d \"%.80s\"\n", code, len, s);
            errors++;
        }
        for (int other = 0; other < code; other++)
            if (strcmp(strings[other], s) == 0) {
                fprintf(stderr, "mpi_errors: %d and %d are both \"%s\"\n", other, code, s);
                errors++;
            }
        cls = -1;
        if (MPI_Error_class(code, &cls) != MPI_SUCCESS || cls != code) {
            fprintf(stderr, "mpi_errors: class of %d is %d\n", code, cls);
            errors++;
        }
    }
    if (strcmp(strings[MPI_SUCCESS], "MPI_SUCCESS: no error") != 0 ||
        strncmp(strings[MPI_ERR_COMM], "MPI_ERR_COMM: ", 14) != 0 ||
        strncmp(strings[MPI_ERR_ARG], "MPI_ERR_ARG: ", 13) != 0) {
        fprintf(stderr, "mpi_errors: strings do not name their classes\n");
        errors++;
    }
    MPI_Finalize();
    return errors ? 1 : 0;
}
