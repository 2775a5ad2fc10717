/* Groups on every rank at once (the world group is shared by all ranks): MPI_Comm_group,
 * rank/size, incl/excl/range, set operations, translate_ranks and compare, against what each
 * rank computes by hand; also MPI_Comm_compare, the names and MPI_Dims_create.
 * Usage: mpi_group */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "mpi_group: rank %d: line %d: %s\n", rank, __LINE__, #cond);           \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Group world, self, even, odd, u, i, d, g;
    int rank, size, n, r, res, in[1024], out[1024], dims[3] = {0, 0, 0};
    char name[MPI_MAX_OBJECT_NAME];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS);
    CHECK(MPI_Comm_group(MPI_COMM_SELF, &self) == MPI_SUCCESS);
    CHECK(MPI_Group_size(world, &n) == MPI_SUCCESS && n == size);
    CHECK(MPI_Group_rank(world, &r) == MPI_SUCCESS && r == rank);
    CHECK(MPI_Group_rank(self, &r) == MPI_SUCCESS && r == 0);
    /* self -> world */
    in[0] = 0;
    CHECK(MPI_Group_translate_ranks(self, 1, in, world, out) == MPI_SUCCESS && out[0] == rank);

    /* even = {0, 2, 4, ...}, odd = the rest. */
    int ranges[1][3] = {{0, size - 1, 2}};
    CHECK(MPI_Group_range_incl(world, 1, ranges, &even) == MPI_SUCCESS);
    CHECK(MPI_Group_range_excl(world, 1, ranges, &odd) == MPI_SUCCESS);
    CHECK(MPI_Group_size(even, &n) == MPI_SUCCESS && n == (size + 1) / 2);
    CHECK(MPI_Group_rank(even, &r) == MPI_SUCCESS &&
          r == (rank % 2 == 0 ? rank / 2 : MPI_UNDEFINED));
    CHECK(MPI_Group_rank(odd, &r) == MPI_SUCCESS && r == (rank % 2 ? rank / 2 : MPI_UNDEFINED));
    CHECK(MPI_Group_union(odd, even, &u) == MPI_SUCCESS);
    CHECK(MPI_Group_intersection(odd, even, &i) == MPI_SUCCESS && i == MPI_GROUP_EMPTY);
    CHECK(MPI_Group_difference(world, odd, &d) == MPI_SUCCESS);
    CHECK(MPI_Group_compare(d, even, &res) == MPI_SUCCESS && res == MPI_IDENT);
    CHECK(MPI_Group_compare(u, world, &res) == MPI_SUCCESS && res == (size > 2    ? MPI_SIMILAR
                                                                      : size == 1 ? MPI_IDENT
                                                                                  : MPI_SIMILAR));
    /* u = odd ranks then even ranks */
    for (int k = 0; k < size; k++)
        in[k] = k;
    CHECK(MPI_Group_translate_ranks(u, size, in, world, out) == MPI_SUCCESS);
    for (int k = 0; k < size; k++) {
        int expect = k < size / 2 ? 2 * k + 1 : 2 * (k - size / 2);

        CHECK(out[k] == expect);
    }
    /* Reverse the world with incl, then compare. */
    for (int k = 0; k < size; k++)
        in[k] = size - 1 - k;
    CHECK(MPI_Group_incl(world, size, in, &g) == MPI_SUCCESS);
    CHECK(MPI_Group_rank(g, &r) == MPI_SUCCESS && r == size - 1 - rank);
    CHECK(MPI_Group_compare(g, world, &res) == MPI_SUCCESS &&
          res == (size == 1 ? MPI_IDENT : MPI_SIMILAR));
    CHECK(MPI_Group_free(&g) == MPI_SUCCESS && g == MPI_GROUP_NULL);
    in[0] = rank;
    CHECK(MPI_Group_excl(world, 1, in, &g) == MPI_SUCCESS);
    CHECK(MPI_Group_rank(g, &r) == MPI_SUCCESS && r == MPI_UNDEFINED);
    CHECK(MPI_Group_size(g, &n) == MPI_SUCCESS && n == size - 1);
    if (size == 1)
        CHECK(g == MPI_GROUP_EMPTY);
    MPI_Group_free(&g);

    CHECK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &res) == MPI_SUCCESS &&
          res == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL));
    CHECK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res) == MPI_SUCCESS &&
          res == MPI_IDENT);
    CHECK(MPI_Comm_test_inter(MPI_COMM_WORLD, &res) == MPI_SUCCESS && res == 0);
    CHECK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &n) == MPI_SUCCESS &&
          strcmp(name, "MPI_COMM_WORLD") == 0 && n == 14);
    /* Names are per rank. */
    snprintf(name, sizeof(name), "world seen by %d", rank);
    CHECK(MPI_Comm_set_name(MPI_COMM_WORLD, name) == MPI_SUCCESS);
    name[0] = '\0';
    CHECK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &n) == MPI_SUCCESS);
    {
        char expect[MPI_MAX_OBJECT_NAME];

        snprintf(expect, sizeof(expect), "world seen by %d", rank);
        CHECK(strcmp(name, expect) == 0);
    }
    CHECK(MPI_Dims_create(size, 3, dims) == MPI_SUCCESS && dims[0] * dims[1] * dims[2] == size &&
          dims[0] >= dims[1] && dims[1] >= dims[2]);

    MPI_Group_free(&even);
    MPI_Group_free(&odd);
    MPI_Group_free(&u);
    MPI_Group_free(&d);
    MPI_Group_free(&self);
    MPI_Group_free(&world);
    MPI_Finalize();
    return errors ? 1 : 0;
}
