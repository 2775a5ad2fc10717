/* The MPI-1 functions that MPI-3.0 removed and old programs still call: MPI_Address;
 * MPI_Type_struct with MPI_LB and MPI_UB markers, MPI_Type_extent, _lb and _ub, then a message
 * of that type; MPI_Type_hvector and _hindexed (their envelope, and a column sent with them);
 * MPI_Errhandler_create, _set and _get (the handler runs on an error and the call returns);
 * MPI_Keyval_create with MPI_DUP_FN and a delete callback, MPI_Attr_put, _get (copied by
 * MPI_Comm_dup), _delete (the callback runs), MPI_Keyval_free; MPI_Attr_get of MPI_TAG_UB. */
#include <mpi.h>
#include <stdio.h>

static int rank, errors, handled, deleted;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "mpi_removed: rank %d, line %d: %s\n", rank, __LINE__, #cond);         \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

static void on_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    int class;
    MPI_Error_class(*code, &class);
    if (class == MPI_ERR_RANK)
        handled++;
}

static int on_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)value;
    (void)extra;
    deleted++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    /* a struct of an int and a double, padded to 32 bytes with markers */
    struct item {
        int i;
        double d;
    } items[4];
    MPI_Aint a0, ai, ad, a1;
    CHECK(MPI_Address(&items[0], &a0) == MPI_SUCCESS);
    MPI_Address(&items[0].i, &ai);
    MPI_Address(&items[0].d, &ad);
    MPI_Address(&items[1], &a1);
    CHECK(a1 - a0 == (MPI_Aint)sizeof(struct item));
    int lens[4] = {1, 1, 1, 1};
    MPI_Aint disps[4] = {-8, ai - a0, ad - a0, 24};
    MPI_Datatype types[4] = {MPI_LB, MPI_INT, MPI_DOUBLE, MPI_UB}, item;
    CHECK(MPI_Type_struct(4, lens, disps, types, &item) == MPI_SUCCESS);
    MPI_Type_commit(&item);
    MPI_Aint extent = 0, lb = 1, ub = 0;
    CHECK(MPI_Type_extent(item, &extent) == MPI_SUCCESS && extent == 32);
    CHECK(MPI_Type_lb(item, &lb) == MPI_SUCCESS && lb == -8);
    CHECK(MPI_Type_ub(item, &ub) == MPI_SUCCESS && ub == 24);
    int ni, na, nd, combiner;
    MPI_Type_get_envelope(item, &ni, &na, &nd, &combiner);
    CHECK(combiner == MPI_COMBINER_STRUCT && ni == 5 && na == 4 && nd == 4);

    /* items sent with the struct type: the stride is its extent, 32 bytes, so a buffer of
     * struct item (16 bytes) holds every second one */
    struct item out[6], in[6];
    for (int k = 0; k < 6; k++) {
        out[k] = (struct item){rank * 10 + k, rank + k / 8.0};
        in[k] = (struct item){-1, -1.0};
    }
    MPI_Sendrecv(out, 3, item, next, 1, in, 3, item, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int k = 0; k < 6; k++) {
        int sent = k % 2 == 0;
        CHECK(in[k].i == (sent ? prev * 10 + k : -1));
        CHECK(in[k].d == (sent ? prev + k / 8.0 : -1.0));
    }
    MPI_Type_free(&item);

    /* the second column of a 4 x 3 matrix, as an hvector and as an hindexed type */
    double m[4][3], col[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            m[i][j] = rank * 100 + i * 3 + j;
    MPI_Datatype hv, hi;
    CHECK(MPI_Type_hvector(4, 1, 3 * sizeof(double), MPI_DOUBLE, &hv) == MPI_SUCCESS);
    int hlens[4] = {1, 1, 1, 1};
    MPI_Aint hdisps[4] = {0, 24, 48, 72};
    CHECK(MPI_Type_hindexed(4, hlens, hdisps, MPI_DOUBLE, &hi) == MPI_SUCCESS);
    MPI_Type_commit(&hv);
    MPI_Type_commit(&hi);
    MPI_Type_get_envelope(hv, &ni, &na, &nd, &combiner);
    CHECK(combiner == MPI_COMBINER_HVECTOR && ni == 2 && na == 1 && nd == 1);
    MPI_Type_get_envelope(hi, &ni, &na, &nd, &combiner);
    CHECK(combiner == MPI_COMBINER_HINDEXED && ni == 5 && na == 4 && nd == 1);
    MPI_Datatype kinds[2] = {hv, hi};
    for (int t = 0; t < 2; t++) {
        MPI_Sendrecv(&m[0][1], 1, kinds[t], next, 2, col, 4, MPI_DOUBLE, prev, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int i = 0; i < 4; i++)
            CHECK(col[i] == prev * 100 + i * 3 + 1);
    }
    MPI_Type_free(&hv);
    MPI_Type_free(&hi);

    /* error handlers */
    MPI_Errhandler eh, got;
    CHECK(MPI_Errhandler_create(on_error, &eh) == MPI_SUCCESS);
    CHECK(MPI_Errhandler_set(MPI_COMM_WORLD, eh) == MPI_SUCCESS);
    CHECK(MPI_Errhandler_get(MPI_COMM_WORLD, &got) == MPI_SUCCESS && got == eh);
    MPI_Errhandler_free(&got);
    int x = 0;
    CHECK(MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD) == MPI_ERR_RANK);
    CHECK(handled == 1);
    MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);

    /* attributes */
    int keyval, value = 7 + rank, *p = NULL, flag = 0;
    CHECK(MPI_Keyval_create(MPI_DUP_FN, on_delete, &keyval, NULL) == MPI_SUCCESS);
    CHECK(MPI_Attr_put(MPI_COMM_WORLD, keyval, &value) == MPI_SUCCESS);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK(MPI_Attr_get(dup, keyval, &p, &flag) == MPI_SUCCESS && flag && p == &value);
    CHECK(MPI_Attr_delete(dup, keyval) == MPI_SUCCESS && deleted == 1);
    flag = 1;
    CHECK(MPI_Attr_get(dup, keyval, &p, &flag) == MPI_SUCCESS && !flag);
    MPI_Comm_free(&dup);
    CHECK(deleted == 1);
    CHECK(MPI_Attr_delete(MPI_COMM_WORLD, keyval) == MPI_SUCCESS && deleted == 2);
    CHECK(MPI_Keyval_free(&keyval) == MPI_SUCCESS && keyval == MPI_KEYVAL_INVALID);
    CHECK(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag) == MPI_SUCCESS && flag &&
          *p >= 32767);
    CHECK(MPI_Attr_put(MPI_COMM_WORLD, MPI_TAG_UB, &value) == MPI_ERR_KEYVAL);
    CHECK(MPI_Type_extent(MPI_DATATYPE_NULL, &extent) == MPI_ERR_TYPE);

    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_removed: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
