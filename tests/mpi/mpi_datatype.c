/* Datatypes in a real job: every rank builds, commits, packs, unpacks and frees derived types at
 * the same time (the table of derived types is shared by the ranks, which are threads). A
 * column of a matrix is packed and unpacked into a contiguous row; a struct matches its C
 * layout; distributed arrays (MPI_Type_create_darray) of every process of several grids pack
 * the elements a process owns, found element by element, and together cover the array once. A
 * name given to a predefined type is the rank's own.
 * Usage: mpi_datatype */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 8

struct particle {
    char tag;
    double pos[3];
    int id;
};

static int errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "mpi_datatype: rank %d: %s:%d: %s\n", rank, __FILE__, __LINE__,        \
                    #cond);                                                                        \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* One case of darray: a global array of gsizes ints holding their global index. */
struct darray_case {
    int ndims, gsizes[3], distribs[3], dargs[3], psizes[3];
};

/* The grid coordinate that owns index i of a dimension, from the definition (MPI 3.1 section
 * 4.1.4), one element at a time. */
static int darray_owner(int i, int gsize, int distrib, int darg, int psize)
{
    if (distrib == MPI_DISTRIBUTE_NONE)
        return 0;
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
        return i / b;
    }
    return (i / (darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg)) % psize;
}

/* Packs the darray of every process of the grid over the array, compares with the elements the
 * process owns in the array's order, and counts how often each element was packed. */
static void darray_check(int rank, const struct darray_case *dc, int order)
{
    int nprocs = 1, total = 1, *global, *packed, *expect, *seen;

    for (int d = 0; d < dc->ndims; d++) {
        nprocs *= dc->psizes[d];
        total *= dc->gsizes[d];
    }
    global = malloc((size_t)total * sizeof(int));
    packed = malloc((size_t)total * sizeof(int));
    expect = malloc((size_t)total * sizeof(int));
    seen = calloc((size_t)total, sizeof(int));
    for (int i = 0; i < total; i++)
        global[i] = i;
    for (int p = 0; p < nprocs; p++) {
        MPI_Datatype t;
        MPI_Aint lb, extent;
        int coords[3], left = p, n = 0, size, pos = 0;

        for (int d = dc->ndims - 1; d >= 0; d--) {
            coords[d] = left % dc->psizes[d];
            left /= dc->psizes[d];
        }
        /* Walk the global indices in the array's order (the first dimension slowest in C, the
         * last in Fortran): the owned ones come in the order of the process's local array. */
        for (int lin = 0; lin < total; lin++) {
            int rest = lin, idx[3], g = 0, mine = 1;

            for (int k = dc->ndims - 1; k >= 0; k--) {
                int d = order == MPI_ORDER_C ? k : dc->ndims - 1 - k;
                idx[d] = rest % dc->gsizes[d];
                rest /= dc->gsizes[d];
            }
            for (int k = 0; k < dc->ndims; k++) {
                int d = order == MPI_ORDER_C ? k : dc->ndims - 1 - k;
                g = g * dc->gsizes[d] + idx[d];
                mine &= darray_owner(idx[d], dc->gsizes[d], dc->distribs[d], dc->dargs[d],
                                     dc->psizes[d]) == coords[d];
            }
            if (mine)
                expect[n++] = g;
        }
        CHECK(MPI_Type_create_darray(nprocs, p, dc->ndims, dc->gsizes, dc->distribs, dc->dargs,
                                     dc->psizes, order, MPI_INT, &t) == MPI_SUCCESS);
        CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
        CHECK(MPI_Type_size(t, &size) == MPI_SUCCESS && size == n * 4);
        CHECK(MPI_Type_get_extent(t, &lb, &extent) == MPI_SUCCESS && lb == 0 &&
              extent == total * 4);
        CHECK(MPI_Pack(global, 1, t, packed, total * 4, &pos, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(pos == n * 4);
        for (int i = 0; i < n && i * 4 < pos; i++) {
            CHECK(packed[i] == expect[i]);
            if (packed[i] != expect[i]) {
                fprintf(stderr,
                        "mpi_datatype: darray of process %d (order %d): element %d is %d, "
                        "not %d\n",
                        p, order, i, packed[i], expect[i]);
                break;
            }
            if (packed[i] >= 0 && packed[i] < total)
                seen[packed[i]]++;
        }
        CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
    }
    for (int i = 0; i < total; i++)
        CHECK(seen[i] == 1);
    free(global);
    free(packed);
    free(expect);
    free(seen);
}

static void darrays(int rank)
{
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, O = MPI_DISTRIBUTE_NONE,
              D = MPI_DISTRIBUTE_DFLT_DARG;
    static const struct darray_case cases[] = {
        {1, {10}, {MPI_DISTRIBUTE_BLOCK}, {MPI_DISTRIBUTE_DFLT_DARG}, {3}},
        {1, {10}, {MPI_DISTRIBUTE_CYCLIC}, {2}, {3}},
        {1, {7}, {MPI_DISTRIBUTE_NONE}, {MPI_DISTRIBUTE_DFLT_DARG}, {1}},
    };
    const struct darray_case more[] = {
        {2, {5, 7}, {B, C}, {D, D}, {2, 3}},
        {2, {6, 9}, {C, B}, {2, 4}, {3, 3}},
        {2, {4, 6}, {B, C}, {D, 2}, {2, 2}},
        {2, {5, 4}, {O, C}, {D, D}, {1, 4}},
        {3, {4, 5, 3}, {C, O, B}, {2, 0, D}, {2, 1, 3}},
        {3, {3, 4, 5}, {B, C, C}, {2, 3, 1}, {2, 2, 2}},
        {2, {1, 8}, {B, B}, {D, 3}, {1, 3}},
        {1, {5}, {B}, {D}, {4}}, /* the last process owns nothing */
    };

    for (int order = 0; order < 2; order++) {
        int o = order ? MPI_ORDER_FORTRAN : MPI_ORDER_C;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
            darray_check(rank, &cases[i], o);
        for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++)
            darray_check(rank, &more[i], o);
    }
}

int main(int argc, char **argv)
{
    int rank, size, pos, psize;
    double m[N][N], col[N];
    char packed[1024];
    MPI_Datatype column, ptype, ptypes[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    int bl[3] = {1, 3, 1};
    MPI_Aint disps[3], lb, extent;
    struct particle p[2], q[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int round = 0; round < 200; round++) {
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                m[i][j] = rank * 1000 + i * N + j;
        CHECK(MPI_Type_vector(N, 1, N, MPI_DOUBLE, &column) == MPI_SUCCESS);
        CHECK(MPI_Type_commit(&column) == MPI_SUCCESS);
        CHECK(MPI_Type_size(column, &size) == MPI_SUCCESS && size == N * 8);
        CHECK(MPI_Type_get_extent(column, &lb, &extent) == MPI_SUCCESS && lb == 0 &&
              extent == ((N - 1) * N + 1) * 8);
        pos = 0;
        CHECK(MPI_Pack(&m[0][round % N], 1, column, packed, sizeof(packed), &pos, MPI_COMM_WORLD) ==
              MPI_SUCCESS);
        CHECK(pos == N * 8);
        pos = 0;
        CHECK(MPI_Unpack(packed, sizeof(packed), &pos, col, N, MPI_DOUBLE, MPI_COMM_WORLD) ==
              MPI_SUCCESS);
        for (int i = 0; i < N; i++)
            CHECK(col[i] == rank * 1000 + i * N + round % N);
        CHECK(MPI_Type_free(&column) == MPI_SUCCESS && column == MPI_DATATYPE_NULL);
    }

    disps[0] = offsetof(struct particle, tag);
    disps[1] = offsetof(struct particle, pos);
    disps[2] = offsetof(struct particle, id);
    CHECK(MPI_Type_create_struct(3, bl, disps, ptypes, &ptype) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&ptype) == MPI_SUCCESS);
    CHECK(MPI_Type_get_extent(ptype, &lb, &extent) == MPI_SUCCESS &&
          extent == sizeof(struct particle));
    CHECK(MPI_Pack_size(2, ptype, MPI_COMM_WORLD, &psize) == MPI_SUCCESS && psize == 2 * 29);
    for (int k = 0; k < 2; k++)
        p[k] = (struct particle){(char)('a' + k), {k + 0.5, k + 1.5, rank + 2.5}, rank * 10 + k};
    memset(q, 0, sizeof(q));
    pos = 0;
    CHECK(MPI_Pack(p, 2, ptype, packed, sizeof(packed), &pos, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(pos == psize);
    pos = 0;
    CHECK(MPI_Unpack(packed, psize, &pos, q, 2, ptype, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int k = 0; k < 2; k++)
        CHECK(q[k].tag == p[k].tag && q[k].pos[2] == p[k].pos[2] && q[k].id == p[k].id);
    CHECK(MPI_Type_free(&ptype) == MPI_SUCCESS);
    darrays(rank);

    /* A predefined type's name is each rank's own, as each process's elsewhere. */
    char mine[MPI_MAX_OBJECT_NAME], got[MPI_MAX_OBJECT_NAME];
    int len = 0;
    snprintf(mine, sizeof mine, "the int of rank %d", rank);
    CHECK(MPI_Type_set_name(MPI_INT, mine) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has named it */
    CHECK(MPI_Type_get_name(MPI_INT, got, &len) == MPI_SUCCESS && strcmp(got, mine) == 0 &&
          len == (int)strlen(mine));
    CHECK(MPI_Type_get_name(MPI_DOUBLE, got, &len) == MPI_SUCCESS &&
          strcmp(got, "MPI_DOUBLE") == 0);
    MPI_Finalize();
    return errors ? 1 : 0;
}
