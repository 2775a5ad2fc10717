/* Info objects on every rank: each rank's objects are its own (same handles, different
 * contents), keys in order, MPI_INFO_ENV; MPI_Info_get_string's lengths. Usage: mpi_info */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors, rank;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "mpi_info: rank %d: line %d: %s\n", rank, __LINE__, #cond);            \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    char value[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 1], mine[32];
    MPI_Info info, dup;
    int flag, n, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(mine, sizeof(mine), "%d", rank);
    CHECK(MPI_Info_create(&info) == MPI_SUCCESS);
    CHECK(MPI_Info_set(info, "rank", mine) == MPI_SUCCESS);
    CHECK(MPI_Info_set(info, "b", "2") == MPI_SUCCESS);
    CHECK(MPI_Info_set(info, "a", "1") == MPI_SUCCESS);
    CHECK(MPI_Info_dup(info, &dup) == MPI_SUCCESS);
    CHECK(MPI_Info_free(&info) == MPI_SUCCESS && info == MPI_INFO_NULL);
    CHECK(MPI_Info_get_nkeys(dup, &n) == MPI_SUCCESS && n == 3);
    CHECK(MPI_Info_get_nthkey(dup, 0, key) == MPI_SUCCESS && strcmp(key, "rank") == 0);
    CHECK(MPI_Info_get_nthkey(dup, 2, key) == MPI_SUCCESS && strcmp(key, "a") == 0);
    CHECK(MPI_Info_get(dup, "rank", MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS && flag &&
          strcmp(value, mine) == 0);
    CHECK(MPI_Info_delete(dup, "b") == MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Info_delete(dup, "b") == MPI_ERR_INFO_NOKEY);
    CHECK(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS &&
          flag && atoi(value) == size);
    CHECK(MPI_Info_set(MPI_INFO_ENV, "maxprocs", "1") == MPI_ERR_INFO);
    /* MPI_Info_get_string: the bytes the value needs, and as much of it as fits */
    int buflen = 0;
    CHECK(MPI_Info_set(dup, "long", "0123456789") == MPI_SUCCESS);
    value[0] = 'x';
    CHECK(MPI_Info_get_string(dup, "long", &buflen, value, &flag) == MPI_SUCCESS && flag &&
          buflen == 11 && value[0] == 'x');
    buflen = 5;
    CHECK(MPI_Info_get_string(dup, "long", &buflen, value, &flag) == MPI_SUCCESS && flag &&
          buflen == 11 && strcmp(value, "0123") == 0);
    buflen = 11;
    CHECK(MPI_Info_get_string(dup, "long", &buflen, value, &flag) == MPI_SUCCESS && flag &&
          buflen == 11 && strcmp(value, "0123456789") == 0);
    buflen = 7;
    CHECK(MPI_Info_get_string(dup, "none", &buflen, value, &flag) == MPI_SUCCESS && !flag &&
          buflen == 7);
    CHECK(MPI_Info_free(&dup) == MPI_SUCCESS);
    MPI_Finalize();
    return errors ? 1 : 0;
}
