/* Derived datatypes across point-to-point: a column of a matrix (vector) sent to a contiguous
 * receive and back, a struct sent as bytes, a receive into an indexed layout, each rank's part
 * of a distributed array (darray) sent to a contiguous receive and back; eager and rendezvous
 * sizes. One copy, type to type: every element is checked. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, errors;

static void columns(int n)
{
    /* rank 0 sends column 1 of an n x n matrix; rank 1 receives n contiguous doubles, then sends
     * them back into column 2 of rank 0's matrix. */
    double *m = calloc((size_t)n * n, sizeof *m), *col = calloc((size_t)n, sizeof *col);
    MPI_Datatype column;
    MPI_Type_vector(n, 1, n, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    if (rank == 0) {
        for (int i = 0; i < n * n; i++)
            m[i] = i;
        MPI_Send(&m[1], 1, column, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(&m[2], 1, column, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++)
            if (m[i * n + 2] != 2.0 * (i * n + 1)) {
                fprintf(stderr, "columns %d: row %d holds %g\n", n, i, m[i * n + 2]);
                errors++;
                break;
            }
    } else if (rank == 1) {
        MPI_Status st;
        MPI_Recv(col, n, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &st);
        int count, elements;
        MPI_Get_count(&st, column, &count);
        MPI_Get_elements(&st, column, &elements);
        if (count != 1 || elements != n) {
            fprintf(stderr, "columns %d: count %d elements %d\n", n, count, elements);
            errors++;
        }
        for (int i = 0; i < n; i++)
            col[i] *= 2;
        MPI_Send(col, n, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
    }
    MPI_Type_free(&column);
    free(m);
    free(col);
}

struct particle {
    char kind;
    double pos[3];
    int id;
};

static void structs(int n)
{
    int lens[3] = {1, 3, 1};
    MPI_Aint disps[3] = {offsetof(struct particle, kind), offsetof(struct particle, pos),
                         offsetof(struct particle, id)};
    MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, ptype;
    MPI_Type_create_struct(3, lens, disps, types, &ptype);
    MPI_Type_commit(&ptype);
    struct particle *p = calloc((size_t)n, sizeof *p);
    if (rank == 0) {
        for (int i = 0; i < n; i++)
            p[i] = (struct particle){(char)('a' + i % 26), {i, i + 0.5, -i}, i * 7};
        MPI_Send(p, n, ptype, 1, 3, MPI_COMM_WORLD);
    } else if (rank == 1) {
        /* Received into an indexed layout of the same signature: every other particle slot. */
        struct particle *q = calloc((size_t)2 * n, sizeof *q);
        int *blens = malloc((size_t)n * sizeof *blens), *idx = malloc((size_t)n * sizeof *idx);
        for (int i = 0; i < n; i++) {
            blens[i] = 1;
            idx[i] = 2 * i;
        }
        MPI_Datatype spread;
        MPI_Type_indexed(n, blens, idx, ptype, &spread);
        MPI_Type_commit(&spread);
        MPI_Recv(q, 1, spread, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++) {
            struct particle *x = &q[2 * i];
            if (x->kind != 'a' + i % 26 || x->pos[1] != i + 0.5 || x->id != i * 7 ||
                q[2 * i + 1].id != 0) {
                fprintf(stderr, "structs %d: particle %d is %c %g %d\n", n, i, x->kind, x->pos[1],
                        x->id);
                errors++;
                break;
            }
        }
        MPI_Type_free(&spread);
        free(blens);
        free(idx);
        free(q);
    }
    MPI_Type_free(&ptype);
    free(p);
}

/* Whether grid coordinate c owns index i of a dimension of n split in blocks (k 0: the default
 * size) or cyclic(k). */
static int owns(int i, int n, int cyclic, int k, int p, int c)
{
    if (cyclic)
        return (i / k) % p == c;
    return i / (k ? k : (n + p - 1) / p) == c;
}

/* An rows x cols array of doubles holding their index, rows in blocks and columns cyclic(2) over
 * a grid of all ranks, in C order: every rank sends its part to rank 0, which receives it as
 * contiguous doubles, checks it and sends it back doubled into the rank's darray. */
static void darrays(int rows, int cols)
{
    int size, dims[2] = {0, 0}, coords[2], n = 0;
    const int gsizes[2] = {rows, cols}, distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
              dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2};
    double *a = malloc((size_t)rows * cols * sizeof *a);
    double *part = malloc((size_t)rows * cols * sizeof *part);
    double *back = malloc((size_t)rows * cols * sizeof *back);
    MPI_Datatype dt;

    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    for (int i = 0; i < rows * cols; i++) {
        a[i] = i;
        back[i] = -1;
    }
    MPI_Type_create_darray(size, rank, 2, gsizes, distribs, dargs, dims, MPI_ORDER_C, MPI_DOUBLE,
                           &dt);
    MPI_Type_commit(&dt);
    /* posted first: rank 0 answers itself with a blocking send */
    MPI_Request req[2];
    MPI_Irecv(back, 1, dt, 0, 5, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(a, 1, dt, 0, 4, MPI_COMM_WORLD, &req[1]);
    if (rank == 0) {
        for (int src = 0; src < size; src++) {
            MPI_Status st;
            int got;
            coords[0] = src / dims[1];
            coords[1] = src % dims[1];
            MPI_Recv(part, rows * cols, MPI_DOUBLE, src, 4, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_DOUBLE, &got);
            n = 0;
            for (int i = 0; i < rows; i++)
                for (int j = 0; j < cols; j++)
                    if (owns(i, rows, 0, 0, dims[0], coords[0]) &&
                        owns(j, cols, 1, 2, dims[1], coords[1]) && n < got &&
                        part[n++] != i * cols + j) {
                        fprintf(stderr, "darrays %dx%d: from %d, element %d is %g, not %d\n", rows,
                                cols, src, n - 1, part[n - 1], i * cols + j);
                        errors++;
                    }
            if (n != got) {
                fprintf(stderr, "darrays %dx%d: %d elements from %d, not %d\n", rows, cols, got,
                        src, n);
                errors++;
            }
            for (int k = 0; k < got; k++)
                part[k] *= 2;
            MPI_Send(part, got, MPI_DOUBLE, src, 5, MPI_COMM_WORLD);
        }
    }
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    coords[0] = rank / dims[1];
    coords[1] = rank % dims[1];
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            int mine =
                owns(i, rows, 0, 0, dims[0], coords[0]) && owns(j, cols, 1, 2, dims[1], coords[1]);
            if (back[i * cols + j] != (mine ? 2.0 * (i * cols + j) : -1)) {
                fprintf(stderr, "darrays %dx%d: back at rank %d, (%d, %d) holds %g\n", rows, cols,
                        rank, i, j, back[i * cols + j]);
                errors++;
                i = rows;
                break;
            }
        }
    MPI_Type_free(&dt);
    free(a);
    free(part);
    free(back);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    darrays(7, 10);
    darrays(90, 70);
    int sizes[] = {3, 100, 1000};
    for (int i = 0; i < 3; i++) {
        columns(sizes[i]);
        structs(sizes[i]);
    }
    MPI_Finalize();
    return errors ? 1 : 0;
}
