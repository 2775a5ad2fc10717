/* Datatypes in a real job: every rank builds, commits, packs, unpacks and frees derived types at
 * the same time (the table of derived types is shared by the ranks, which are threads). A
 * column of a matrix is packed and unpacked into a contiguous row; a struct matches its C
 * layout. Usage: mpi_datatype */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
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
    MPI_Finalize();
    return errors ? 1 : 0;
}
