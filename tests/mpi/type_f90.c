/* MPI_Type_create_f90_integer, _real and _complex: the size each kind asks for gets, the same
 * handle for the same arguments, the envelope and contents that say how it was asked for, the
 * errors (no such kind: MPI_ERR_ARG; MPI_Type_free: MPI_ERR_TYPE), and the types at work: a
 * message of 8-byte integers from f90_integer(18) to every rank, and an MPI_SUM over
 * f90_real(15, 300) numbers. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

static int rank, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "type_f90: rank %d, line %d: %s\n", rank, __LINE__, #cond);            \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

static int size_of(MPI_Datatype t)
{
    int size = -1;
    MPI_Type_size(t, &size);
    return size;
}

/* The envelope of t: its combiner, and its integers when they are `ni` (the arguments). */
static void check_envelope(MPI_Datatype t, int combiner, int ni, int i0, int i1)
{
    int nints, naddrs, ntypes, comb, ints[2] = {-1, -1};
    MPI_Type_get_envelope(t, &nints, &naddrs, &ntypes, &comb);
    CHECK(comb == combiner);
    CHECK(nints == ni && naddrs == 0 && ntypes == 0);
    if (nints == ni && ni <= 2) {
        MPI_Type_get_contents(t, ni, 0, 0, ints, NULL, NULL);
        CHECK(ints[0] == i0);
        CHECK(ni < 2 || ints[1] == i1);
    }
}

static int error_class(int code)
{
    int class;
    MPI_Error_class(code, &class);
    return class;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    static const int ranges[] = {0, 2, 3, 4, 5, 9, 10, 18};
    static const int sizes[] = {1, 1, 2, 2, 4, 4, 8, 8};
    for (int i = 0; i < 8; i++) {
        MPI_Datatype t, again;
        CHECK(MPI_Type_create_f90_integer(ranges[i], &t) == MPI_SUCCESS);
        CHECK(size_of(t) == sizes[i]);
        check_envelope(t, MPI_COMBINER_F90_INTEGER, 1, ranges[i], 0);
        CHECK(MPI_Type_create_f90_integer(ranges[i], &again) == MPI_SUCCESS && again == t);
    }
    MPI_Datatype t2, t3, t;
    MPI_Type_create_f90_integer(2, &t2);
    MPI_Type_create_f90_integer(1, &t3);
    CHECK(t2 != t3); /* one kind, asked for differently */
    CHECK(error_class(MPI_Type_create_f90_integer(19, &t)) == MPI_ERR_ARG);
    CHECK(error_class(MPI_Type_create_f90_integer(MPI_UNDEFINED, &t)) == MPI_ERR_ARG);
    CHECK(error_class(MPI_Type_create_f90_integer(4, NULL)) == MPI_ERR_ARG);
    CHECK(error_class(MPI_Type_free(&t2)) == MPI_ERR_TYPE);
    CHECK(t2 != MPI_DATATYPE_NULL && size_of(t2) == 1); /* still there */

    static const int precisions[] = {1, 6, 6, 7, 15, 15, MPI_UNDEFINED, 16, 18};
    static const int exponents[] = {MPI_UNDEFINED, 37, 38, 10, 307, MPI_UNDEFINED, 300, 10, 4931};
    static const int real_sizes[] = {4, 4, 8, 8, 8, 8, 8, sizeof(long double), sizeof(long double)};
    for (int i = 0; i < 9; i++) {
        MPI_Datatype re, cx, again;
        CHECK(MPI_Type_create_f90_real(precisions[i], exponents[i], &re) == MPI_SUCCESS);
        CHECK(size_of(re) == real_sizes[i]);
        check_envelope(re, MPI_COMBINER_F90_REAL, 2, precisions[i], exponents[i]);
        CHECK(MPI_Type_create_f90_real(precisions[i], exponents[i], &again) == MPI_SUCCESS &&
              again == re);
        CHECK(MPI_Type_create_f90_complex(precisions[i], exponents[i], &cx) == MPI_SUCCESS);
        CHECK(size_of(cx) == 2 * real_sizes[i]);
        check_envelope(cx, MPI_COMBINER_F90_COMPLEX, 2, precisions[i], exponents[i]);
        CHECK(cx != re);
    }
    CHECK(error_class(MPI_Type_create_f90_real(19, MPI_UNDEFINED, &t)) == MPI_ERR_ARG);
    CHECK(error_class(MPI_Type_create_f90_real(MPI_UNDEFINED, 4932, &t)) == MPI_ERR_ARG);
    CHECK(error_class(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t)) == MPI_ERR_ARG);
    CHECK(error_class(MPI_Type_create_f90_complex(40, 2, &t)) == MPI_ERR_ARG);

    /* At work: rank 0's 8-byte integers to everyone, then a sum of doubles. */
    MPI_Datatype i8, r8;
    MPI_Type_create_f90_integer(18, &i8);
    MPI_Type_create_f90_real(15, 300, &r8);
    int64_t big[4] = {0};
    if (rank == 0)
        for (int i = 0; i < 4; i++)
            big[i] = INT64_C(1) << (40 + i);
    CHECK(MPI_Bcast(big, 4, i8, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int i = 0; i < 4; i++)
        CHECK(big[i] == INT64_C(1) << (40 + i));
    double mine[3] = {rank + 0.5, 2.0 * rank, 1.0}, sum[3] = {0};
    CHECK(MPI_Allreduce(mine, sum, 3, r8, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(sum[0] == size * (size - 1) / 2.0 + 0.5 * size);
    CHECK(sum[1] == (double)size * (size - 1));
    CHECK(sum[2] == size);
    if (size > 1) {
        int64_t one = 0;
        if (rank == 0)
            MPI_Send(&big[3], 1, i8, 1, 0, MPI_COMM_WORLD);
        else if (rank == 1) {
            MPI_Status st;
            int count = -1;
            MPI_Recv(&one, 1, i8, 0, 0, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, i8, &count);
            CHECK(one == big[3] && count == 1);
        }
    }

    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("type_f90: ok\n");
    MPI_Finalize();
    return all ? 1 : 0;
}
