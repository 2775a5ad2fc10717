/* Info objects outside MPI_Init .. MPI_Finalize (MPI 4.0, 11.4.1): each rank makes some before
 * MPI_Init, uses them in between (also as the argument of a call that takes one), and reads,
 * changes and frees them after MPI_Finalize; handles freed there are made again. A rank's
 * objects are its own throughout: each sets its own number as a value. Usage: info_lifetime */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NINFOS 40

static int errors, rank = -1; /* the rank is known only between MPI_Init and MPI_Finalize */
static char mine[32];

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "info_lifetime: rank %s: line %d: %s\n", mine, __LINE__, #cond);       \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* Whether info holds key with the value `want`. */
static int holds(MPI_Info info, const char *key, const char *want)
{
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    if (MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag) != MPI_SUCCESS)
        return 0;
    return flag && strcmp(value, want) == 0;
}

int main(int argc, char **argv)
{
    MPI_Info infos[NINFOS], dup;
    int flag, n, initialized = 1, finalized = 1;
    char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];

    /* Before MPI_Init: the rank is not known yet; an address of this rank's stack tells the
     * ranks' objects apart (each rank is a thread of its own). */
    snprintf(mine, sizeof mine, "%p", (void *)&flag);
    CHECK(MPI_Initialized(&initialized) == MPI_SUCCESS && !initialized);
    for (int i = 0; i < NINFOS; i++) {
        CHECK(MPI_Info_create(&infos[i]) == MPI_SUCCESS);
        CHECK(MPI_Info_set(infos[i], "who", mine) == MPI_SUCCESS);
    }
    CHECK(MPI_Info_set(infos[0], "phase", "before") == MPI_SUCCESS);
    CHECK(MPI_Info_dup(infos[0], &dup) == MPI_SUCCESS);
    CHECK(MPI_Info_get_nkeys(dup, &n) == MPI_SUCCESS && n == 2);
    CHECK(MPI_Info_get_nthkey(dup, 1, key) == MPI_SUCCESS && strcmp(key, "phase") == 0);
    CHECK(MPI_Info_free(&infos[NINFOS - 1]) == MPI_SUCCESS && infos[NINFOS - 1] == MPI_INFO_NULL);
    CHECK(MPI_Info_get_valuelen(MPI_INFO_ENV, "maxprocs", &n, &flag) == MPI_SUCCESS && flag);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < NINFOS - 1; i++)
        CHECK(holds(infos[i], "who", mine));
    CHECK(holds(dup, "phase", "before"));
    CHECK(MPI_Info_set(infos[0], "phase", "between") == MPI_SUCCESS);
    /* A call that takes an info object takes one made before MPI_Init. */
    MPI_Comm comm;
    CHECK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, dup, &comm) == MPI_SUCCESS);
    CHECK(MPI_Barrier(comm) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&comm) == MPI_SUCCESS);
    MPI_Finalize();

    CHECK(MPI_Finalized(&finalized) == MPI_SUCCESS && finalized);
    CHECK(holds(infos[0], "phase", "between"));
    CHECK(holds(dup, "phase", "before"));
    CHECK(MPI_Info_delete(infos[0], "phase") == MPI_SUCCESS);
    CHECK(MPI_Info_get(infos[0], "phase", MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS && !flag);
    int len = sizeof value;
    CHECK(MPI_Info_get_string(infos[1], "who", &len, value, &flag) == MPI_SUCCESS && flag &&
          strcmp(value, mine) == 0);
    for (int i = 0; i < NINFOS - 1; i++)
        CHECK(MPI_Info_free(&infos[i]) == MPI_SUCCESS);
    CHECK(MPI_Info_free(&dup) == MPI_SUCCESS);
    /* Handles freed after MPI_Finalize are made again. */
    for (int i = 0; i < NINFOS; i++) {
        CHECK(MPI_Info_create(&infos[i]) == MPI_SUCCESS);
        CHECK(MPI_Info_get_nkeys(infos[i], &n) == MPI_SUCCESS && n == 0);
    }
    for (int i = 0; i < NINFOS; i++)
        CHECK(MPI_Info_free(&infos[i]) == MPI_SUCCESS);
    if (errors)
        fprintf(stderr, "info_lifetime: rank %d: %d errors\n", rank, errors);
    return errors ? 1 : 0;
}
