/* Reduction operations in a real job: every rank creates, queries, uses and frees user-defined
 * operations at the same time (their table is shared by the ranks, which are threads); rank 0
 * folds the ranks' values in rank order with a non-commutative operation; argument errors come
 * back as their classes under MPI_ERRORS_RETURN. Usage: mpi_op */
#include <mpi.h>
#include <stdio.h>

static int rank, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "mpi_op: rank %d: %s:%d: %s\n", rank, __FILE__, __LINE__, #cond);      \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* Digits written one after the other: a op b = a * 10^(digits of b) + b. Associative, not
 * commutative: 1 op (2 op 3) = 123, 3 op (2 op 1) = 321. */
static void concat(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype)
{
    const int *a = invec;
    int *b = inoutvec;

    for (int i = 0; i < *len; i++) {
        int scale = 10;

        while (scale <= b[i])
            scale *= 10;
        b[i] = a[i] * scale + b[i];
    }
}

static void add_ints(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype)
{
    for (int i = 0; i < *len; i++)
        ((int *)inoutvec)[i] += ((int *)invec)[i];
}

/* Creates, uses and frees operations, many times over (the other ranks do the same). */
static void check_user_ops(void)
{
    for (int round = 0; round < 200; round++) {
        MPI_Op cat, add;
        int commute = -1, in[2] = {1, 2}, io[2] = {3, 45}, sum[2] = {rank, round};

        CHECK(MPI_Op_create(concat, 0, &cat) == MPI_SUCCESS);
        CHECK(MPI_Op_create(add_ints, 1, &add) == MPI_SUCCESS);
        CHECK(cat != add && cat != MPI_OP_NULL && add != MPI_OP_NULL);
        CHECK(MPI_Op_commutative(cat, &commute) == MPI_SUCCESS && commute == 0);
        CHECK(MPI_Op_commutative(add, &commute) == MPI_SUCCESS && commute == 1);
        CHECK(MPI_Reduce_local(in, io, 2, MPI_INT, cat) == MPI_SUCCESS);
        CHECK(io[0] == 13 && io[1] == 245);
        CHECK(MPI_Reduce_local(in, sum, 2, MPI_INT, add) == MPI_SUCCESS);
        CHECK(sum[0] == rank + 1 && sum[1] == round + 2);
        CHECK(MPI_Op_free(&cat) == MPI_SUCCESS && cat == MPI_OP_NULL);
        CHECK(MPI_Op_free(&add) == MPI_SUCCESS && add == MPI_OP_NULL);
    }
}

static void check_predefined(void)
{
    double d[3] = {1.5, -2.0, 4.0}, dio[3] = {0.5, 3.0, -4.0};
    struct {
        double v;
        int i;
    } in[2] = {{1.0, rank}, {7.0, 1}}, io[2] = {{1.0, rank + 1}, {2.0, 0}};
    unsigned char b[2] = {0xf0, 0x0f}, bio[2] = {0x3c, 0x3c};
    int commute = -1;

    CHECK(MPI_Reduce_local(d, dio, 3, MPI_DOUBLE, MPI_SUM) == MPI_SUCCESS);
    CHECK(dio[0] == 2.0 && dio[1] == 1.0 && dio[2] == 0.0);
    CHECK(MPI_Reduce_local(in, io, 2, MPI_DOUBLE_INT, MPI_MAXLOC) == MPI_SUCCESS);
    CHECK(io[0].v == 1.0 && io[0].i == rank && io[1].v == 7.0 && io[1].i == 1);
    CHECK(MPI_Reduce_local(b, bio, 2, MPI_BYTE, MPI_BXOR) == MPI_SUCCESS);
    CHECK(bio[0] == 0xcc && bio[1] == 0x33);
    CHECK(MPI_Op_commutative(MPI_PROD, &commute) == MPI_SUCCESS && commute == 1);
}

static void check_errors(void)
{
    MPI_Op op = MPI_SUM, user;
    MPI_Datatype pair;
    double d[2] = {1, 2}, dio[2] = {3, 4};
    int in[2] = {1, 2}, io[2] = {3, 4};

    CHECK(MPI_Op_free(&op) == MPI_ERR_OP && op == MPI_SUM);
    CHECK(MPI_Reduce_local(d, dio, 2, MPI_DOUBLE, MPI_LAND) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(in, io, 1, MPI_2INT, MPI_SUM) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(d, dio, 2, MPI_FLOAT, MPI_BAND) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(in, io, 2, MPI_INT, MPI_OP_NULL) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(in, io, -1, MPI_INT, MPI_SUM) == MPI_ERR_COUNT);
    CHECK(MPI_Type_contiguous(2, MPI_INT, &pair) == MPI_SUCCESS);
    CHECK(MPI_Reduce_local(in, io, 1, pair, MPI_SUM) == MPI_ERR_TYPE); /* not committed */
    CHECK(MPI_Type_commit(&pair) == MPI_SUCCESS);
    CHECK(MPI_Reduce_local(in, io, 1, pair, MPI_SUM) == MPI_SUCCESS);
    CHECK(io[0] == 4 && io[1] == 6);
    CHECK(MPI_Type_free(&pair) == MPI_SUCCESS);
    CHECK(MPI_Reduce_local(MPI_IN_PLACE, io, 2, MPI_INT, MPI_SUM) == MPI_ERR_BUFFER);
    CHECK(dio[0] == 3 && dio[1] == 4 && io[0] == 4 && io[1] == 6);
    CHECK(MPI_Op_create(add_ints, 1, &user) == MPI_SUCCESS);
    op = user;
    CHECK(MPI_Op_free(&user) == MPI_SUCCESS);
    CHECK(MPI_Op_free(&op) == MPI_ERR_OP); /* already freed */
    CHECK(MPI_Op_commutative(op, &in[0]) == MPI_ERR_OP);
}

/* Rank 0 gets every rank's value, then folds them as a reduction must: value[r] is the left
 * operand of what the ranks above r reduced to. */
static void check_rank_order(int size)
{
    MPI_Op cat;
    int mine = rank + 1, acc, want = 0;

    CHECK(MPI_Op_create(concat, 0, &cat) == MPI_SUCCESS);
    if (rank != 0) {
        CHECK(MPI_Send(&mine, 1, MPI_INT, 0, 7, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else {
        int vals[9];

        vals[0] = mine;
        for (int r = 1; r < size; r++)
            CHECK(MPI_Recv(&vals[r], 1, MPI_INT, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                  MPI_SUCCESS);
        acc = vals[size - 1];
        for (int r = size - 2; r >= 0; r--)
            CHECK(MPI_Reduce_local(&vals[r], &acc, 1, MPI_INT, cat) == MPI_SUCCESS);
        for (int r = 0; r < size; r++)
            want = want * 10 + r + 1;
        CHECK(acc == want); /* 123 with 3 ranks */
    }
    CHECK(MPI_Op_free(&cat) == MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    int size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 9) {
        fprintf(stderr, "mpi_op: at most 9 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check_user_ops();
    check_predefined();
    check_errors();
    check_rank_order(size);
    MPI_Finalize();
    return errors ? 1 : 0;
}
