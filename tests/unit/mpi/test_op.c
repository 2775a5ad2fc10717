/* Unit tests of mpi/: reduction operations. Every predefined operation on every type it takes,
 * against values computed by hand (negative numbers, wrap-around, long double precision, complex
 * products, MINLOC/MAXLOC ties); the combinations it does not take; derived types; the order of
 * the operands of user-defined operations; handles, references and argument checks. */
#include "config.h"

#include <check.h>
#include <complex.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/op.h"
#include "tests/unit/fake_rt.h"

static void setup_rank1(void)
{
    fake_rt_setup(1, 4);
    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
}

static void errors_return(void)
{
    tm_mpi_rank_t *r = fake_rt_rank.mpi;

    r->world.errhandler = MPI_ERRORS_RETURN;
}

static tm_mpi_op_t *op_of(MPI_Op h)
{
    tm_mpi_op_t *op = NULL;

    ck_assert_int_eq(tm_mpi_op_lookup(h, &op), 0);
    return op;
}

static tm_mpi_type_t *type_of(MPI_Datatype h)
{
    tm_mpi_type_t *t = NULL;

    ck_assert_int_eq(tm_mpi_type_lookup(h, &t), 0);
    return t;
}

/* MPI_Reduce_local on 4 elements: io = in op io must give want (compared with ==). Arguments
 * are compound literals in parentheses: ((int[]){1, 2, 3, 4}). */
#define REDUCE4(ctype, dt, op, in, io, want)                                                       \
    do {                                                                                           \
        const ctype *in_ = (in), *want_ = (want);                                                  \
        ctype io_[4];                                                                              \
                                                                                                   \
        memcpy(io_, (io), sizeof(io_));                                                            \
        ck_assert_int_eq(MPI_Reduce_local(in_, io_, 4, dt, op), MPI_SUCCESS);                      \
        for (int k_ = 0; k_ < 4; k_++)                                                             \
            ck_assert_msg(io_[k_] == want_[k_], "%s on %s: element %d is wrong", #op, #dt, k_);    \
    } while (0)

/* ------------------------------------------------------------------ integers */

/* Values that fit every signed width, including 8 bits. */
#define CHECK_SIGNED(ctype, dt)                                                                    \
    do {                                                                                           \
        REDUCE4(ctype, dt, MPI_MAX, ((ctype[]){-5, 7, 0, 100}), ((ctype[]){3, -9, 0, -100}),       \
                ((ctype[]){3, 7, 0, 100}));                                                        \
        REDUCE4(ctype, dt, MPI_MIN, ((ctype[]){-5, 7, 0, 100}), ((ctype[]){3, -9, 0, -100}),       \
                ((ctype[]){-5, -9, 0, -100}));                                                     \
        REDUCE4(ctype, dt, MPI_SUM, ((ctype[]){-5, 7, 100, -3}), ((ctype[]){3, -9, 27, -4}),       \
                ((ctype[]){-2, -2, 127, -7}));                                                     \
        REDUCE4(ctype, dt, MPI_PROD, ((ctype[]){-5, 7, 10, -3}), ((ctype[]){3, -9, 12, -4}),       \
                ((ctype[]){-15, -63, 120, 12}));                                                   \
        REDUCE4(ctype, dt, MPI_BAND, ((ctype[]){0x0f, 0x3c, -1, 0}),                               \
                ((ctype[]){0x35, 0x0f, 0x55, 0x7f}), ((ctype[]){0x05, 0x0c, 0x55, 0}));            \
        REDUCE4(ctype, dt, MPI_BOR, ((ctype[]){0x0f, 0x3c, -1, 0}),                                \
                ((ctype[]){0x35, 0x0f, 0x55, 0x7f}), ((ctype[]){0x3f, 0x3f, -1, 0x7f}));           \
        REDUCE4(ctype, dt, MPI_BXOR, ((ctype[]){0x0f, 0x3c, -1, 0}),                               \
                ((ctype[]){0x35, 0x0f, 0x55, 0x7f}), ((ctype[]){0x3a, 0x33, ~0x55, 0x7f}));        \
    } while (0)

/* 200 and 255 are negative if read as signed 8-bit integers: the comparisons must be unsigned. */
#define CHECK_UNSIGNED(ctype, dt)                                                                  \
    do {                                                                                           \
        REDUCE4(ctype, dt, MPI_MAX, ((ctype[]){5, 200, 0, 255}), ((ctype[]){7, 100, 0, 1}),        \
                ((ctype[]){7, 200, 0, 255}));                                                      \
        REDUCE4(ctype, dt, MPI_MIN, ((ctype[]){5, 200, 0, 255}), ((ctype[]){7, 100, 0, 1}),        \
                ((ctype[]){5, 100, 0, 1}));                                                        \
        REDUCE4(ctype, dt, MPI_SUM, ((ctype[]){5, 20, 0, 3}), ((ctype[]){7, 10, 9, 4}),            \
                ((ctype[]){12, 30, 9, 7}));                                                        \
        REDUCE4(ctype, dt, MPI_PROD, ((ctype[]){5, 20, 0, 3}), ((ctype[]){7, 10, 9, 4}),           \
                ((ctype[]){35, 200, 0, 12}));                                                      \
        REDUCE4(ctype, dt, MPI_BAND, ((ctype[]){0x0f, 0x3c, 0xff, 0}),                             \
                ((ctype[]){0x35, 0x0f, 0x55, 0x7f}), ((ctype[]){0x05, 0x0c, 0x55, 0}));            \
        REDUCE4(ctype, dt, MPI_BOR, ((ctype[]){0x0f, 0x3c, 0xff, 0}),                              \
                ((ctype[]){0x35, 0x0f, 0x55, 0x7f}), ((ctype[]){0x3f, 0x3f, 0xff, 0x7f}));         \
        REDUCE4(ctype, dt, MPI_BXOR, ((ctype[]){0x0f, 0x3c, 0xff, 0}),                             \
                ((ctype[]){0x35, 0x0f, 0x55, 0x7f}), ((ctype[]){0x3a, 0x33, 0xaa, 0x7f}));         \
    } while (0)

/* Logical operations test truth, not bits: 0x40 and 0x20 share no bit but are both true. */
#define CHECK_LOGICAL(ctype, dt)                                                                   \
    do {                                                                                           \
        REDUCE4(ctype, dt, MPI_LAND, ((ctype[]){0, 0, 0x40, 0x40}), ((ctype[]){0, 0x20, 0, 0x20}), \
                ((ctype[]){0, 0, 0, 1}));                                                          \
        REDUCE4(ctype, dt, MPI_LOR, ((ctype[]){0, 0, 0x40, 0x40}), ((ctype[]){0, 0x20, 0, 0x20}),  \
                ((ctype[]){0, 1, 1, 1}));                                                          \
        REDUCE4(ctype, dt, MPI_LXOR, ((ctype[]){0, 0, 0x40, 0x40}), ((ctype[]){0, 0x20, 0, 0x20}), \
                ((ctype[]){0, 1, 1, 0}));                                                          \
    } while (0)

START_TEST(test_signed_integers)
{
    CHECK_SIGNED(signed char, MPI_SIGNED_CHAR);
    CHECK_SIGNED(short, MPI_SHORT);
    CHECK_SIGNED(int, MPI_INT);
    CHECK_SIGNED(long, MPI_LONG);
    CHECK_SIGNED(long long, MPI_LONG_LONG_INT);
    CHECK_SIGNED(long long, MPI_LONG_LONG);
    CHECK_SIGNED(int8_t, MPI_INT8_T);
    CHECK_SIGNED(int16_t, MPI_INT16_T);
    CHECK_SIGNED(int32_t, MPI_INT32_T);
    CHECK_SIGNED(int64_t, MPI_INT64_T);
    CHECK_SIGNED(MPI_Aint, MPI_AINT);
    CHECK_SIGNED(MPI_Offset, MPI_OFFSET);
    CHECK_SIGNED(MPI_Count, MPI_COUNT);
    CHECK_LOGICAL(signed char, MPI_SIGNED_CHAR);
    CHECK_LOGICAL(short, MPI_SHORT);
    CHECK_LOGICAL(int, MPI_INT);
    CHECK_LOGICAL(long, MPI_LONG);
    CHECK_LOGICAL(long long, MPI_LONG_LONG_INT);
    CHECK_LOGICAL(int8_t, MPI_INT8_T);
    CHECK_LOGICAL(int16_t, MPI_INT16_T);
    CHECK_LOGICAL(int32_t, MPI_INT32_T);
    CHECK_LOGICAL(int64_t, MPI_INT64_T);
}
END_TEST

START_TEST(test_unsigned_integers)
{
    CHECK_UNSIGNED(unsigned char, MPI_UNSIGNED_CHAR);
    CHECK_UNSIGNED(unsigned short, MPI_UNSIGNED_SHORT);
    CHECK_UNSIGNED(unsigned, MPI_UNSIGNED);
    CHECK_UNSIGNED(unsigned long, MPI_UNSIGNED_LONG);
    CHECK_UNSIGNED(unsigned long long, MPI_UNSIGNED_LONG_LONG);
    CHECK_UNSIGNED(uint8_t, MPI_UINT8_T);
    CHECK_UNSIGNED(uint16_t, MPI_UINT16_T);
    CHECK_UNSIGNED(uint32_t, MPI_UINT32_T);
    CHECK_UNSIGNED(uint64_t, MPI_UINT64_T);
    CHECK_LOGICAL(unsigned char, MPI_UNSIGNED_CHAR);
    CHECK_LOGICAL(unsigned short, MPI_UNSIGNED_SHORT);
    CHECK_LOGICAL(unsigned, MPI_UNSIGNED);
    CHECK_LOGICAL(unsigned long, MPI_UNSIGNED_LONG);
    CHECK_LOGICAL(unsigned long long, MPI_UNSIGNED_LONG_LONG);
    CHECK_LOGICAL(uint8_t, MPI_UINT8_T);
    CHECK_LOGICAL(uint16_t, MPI_UINT16_T);
    CHECK_LOGICAL(uint32_t, MPI_UINT32_T);
    CHECK_LOGICAL(uint64_t, MPI_UINT64_T);
    /* bitwise on bytes */
    REDUCE4(unsigned char, MPI_BYTE, MPI_BAND, ((unsigned char[]){0x0f, 0x3c, 0xff, 0}),
            ((unsigned char[]){0x35, 0x0f, 0x55, 0x7f}), ((unsigned char[]){0x05, 0x0c, 0x55, 0}));
    REDUCE4(unsigned char, MPI_BYTE, MPI_BOR, ((unsigned char[]){0x0f, 0x3c, 0xff, 0}),
            ((unsigned char[]){0x35, 0x0f, 0x55, 0x7f}),
            ((unsigned char[]){0x3f, 0x3f, 0xff, 0x7f}));
    REDUCE4(unsigned char, MPI_BYTE, MPI_BXOR, ((unsigned char[]){0x0f, 0x3c, 0xff, 0}),
            ((unsigned char[]){0x35, 0x0f, 0x55, 0x7f}),
            ((unsigned char[]){0x3a, 0x33, 0xaa, 0x7f}));
}
END_TEST

/* The extremes of each width: the comparisons use the sign of the type, sums and products wrap
 * around modulo 2^bits. */
START_TEST(test_integer_extremes)
{
    REDUCE4(int64_t, MPI_INT64_T, MPI_MAX, ((int64_t[]){INT64_MIN, INT64_MAX, -1, 0}),
            ((int64_t[]){0, -1, INT64_MIN, 1}), ((int64_t[]){0, INT64_MAX, -1, 1}));
    REDUCE4(long, MPI_LONG, MPI_MIN, ((long[]){LONG_MIN, LONG_MAX, -1, 0}),
            ((long[]){0, -1, LONG_MIN, 1}), ((long[]){LONG_MIN, -1, LONG_MIN, 0}));
    REDUCE4(uint64_t, MPI_UINT64_T, MPI_MAX, ((uint64_t[]){UINT64_MAX, 0, 1ull << 63, 5}),
            ((uint64_t[]){1, 2, (1ull << 63) - 1, 5}),
            ((uint64_t[]){UINT64_MAX, 2, 1ull << 63, 5}));
    REDUCE4(unsigned long, MPI_UNSIGNED_LONG, MPI_MIN, ((unsigned long[]){ULONG_MAX, 0, 7, 9}),
            ((unsigned long[]){1, ULONG_MAX, 1ul << 63, 9}), ((unsigned long[]){1, 0, 7, 9}));
    /* signed wrap-around */
    REDUCE4(int8_t, MPI_INT8_T, MPI_SUM, ((int8_t[]){100, -100, 127, -128}),
            ((int8_t[]){100, -100, 1, -1}), ((int8_t[]){-56, 56, -128, 127}));
    REDUCE4(signed char, MPI_SIGNED_CHAR, MPI_PROD, ((signed char[]){16, -128, 64, 11}),
            ((signed char[]){16, -1, 4, 12}), ((signed char[]){0, -128, 0, (signed char)-124}));
    REDUCE4(short, MPI_SHORT, MPI_SUM, ((short[]){SHRT_MAX, SHRT_MIN, 1000, -1}),
            ((short[]){1, -1, 2000, 1}), ((short[]){SHRT_MIN, SHRT_MAX, 3000, 0}));
    REDUCE4(int, MPI_INT, MPI_SUM, ((int[]){INT_MAX, INT_MIN, 5, -5}), ((int[]){1, -1, 6, 5}),
            ((int[]){INT_MIN, INT_MAX, 11, 0}));
    REDUCE4(int, MPI_INT, MPI_PROD, ((int[]){65536, INT_MIN, 3, -7}), ((int[]){65536, -1, -3, -7}),
            ((int[]){0, INT_MIN, -9, 49}));
    REDUCE4(int64_t, MPI_INT64_T, MPI_SUM, ((int64_t[]){INT64_MAX, INT64_MIN, 1, 2}),
            ((int64_t[]){1, -1, 2, 3}), ((int64_t[]){INT64_MIN, INT64_MAX, 3, 5}));
    REDUCE4(MPI_Count, MPI_COUNT, MPI_PROD, ((MPI_Count[]){1ll << 32, -1, 3, 4}),
            ((MPI_Count[]){1ll << 32, LLONG_MIN, 5, -6}), ((MPI_Count[]){0, LLONG_MIN, 15, -24}));
    /* MPI_CHAR as the C integer it is; logical operations on the multi-language types */
    REDUCE4(char, MPI_CHAR, MPI_MAX, ((char[]){'a', 'z', 0, 100}), ((char[]){'b', 'y', 1, 99}),
            ((char[]){'b', 'z', 1, 100}));
    REDUCE4(char, MPI_CHAR, MPI_SUM, ((char[]){1, 2, 3, 4}), ((char[]){10, 20, 30, 40}),
            ((char[]){11, 22, 33, 44}));
    REDUCE4(MPI_Aint, MPI_AINT, MPI_LAND, ((MPI_Aint[]){0, 0, 1ll << 40, 5}),
            ((MPI_Aint[]){0, -1, 0, 1ll << 40}), ((MPI_Aint[]){0, 0, 0, 1}));
    REDUCE4(MPI_Offset, MPI_OFFSET, MPI_LOR, ((MPI_Offset[]){0, 0, 1ll << 40, 5}),
            ((MPI_Offset[]){0, -1, 0, 1ll << 40}), ((MPI_Offset[]){0, 1, 1, 1}));
    REDUCE4(MPI_Count, MPI_COUNT, MPI_LXOR, ((MPI_Count[]){0, 0, 1ll << 40, 5}),
            ((MPI_Count[]){0, -1, 0, 1ll << 40}), ((MPI_Count[]){0, 1, 1, 0}));
    /* unsigned wrap-around */
    REDUCE4(unsigned char, MPI_UNSIGNED_CHAR, MPI_SUM, ((unsigned char[]){200, 255, 1, 0}),
            ((unsigned char[]){100, 1, 2, 0}), ((unsigned char[]){44, 0, 3, 0}));
    REDUCE4(uint16_t, MPI_UINT16_T, MPI_PROD, ((uint16_t[]){65535, 256, 3, 0}),
            ((uint16_t[]){65535, 256, 5, 9}), ((uint16_t[]){1, 0, 15, 0}));
    REDUCE4(unsigned, MPI_UNSIGNED, MPI_SUM, ((unsigned[]){UINT_MAX, UINT_MAX, 1, 2}),
            ((unsigned[]){2, UINT_MAX, 1, 2}), ((unsigned[]){1, UINT_MAX - 1, 2, 4}));
    REDUCE4(uint64_t, MPI_UINT64_T, MPI_PROD, ((uint64_t[]){UINT64_MAX, 1ull << 32, 3, 7}),
            ((uint64_t[]){2, 1ull << 32, 3, 1}), ((uint64_t[]){UINT64_MAX - 1, 0, 9, 7}));
}
END_TEST

/* ------------------------------------------------------------------ logical, floating, complex */

START_TEST(test_bool)
{
    REDUCE4(_Bool, MPI_C_BOOL, MPI_LAND, ((_Bool[]){0, 0, 1, 1}), ((_Bool[]){0, 1, 0, 1}),
            ((_Bool[]){0, 0, 0, 1}));
    REDUCE4(_Bool, MPI_C_BOOL, MPI_LOR, ((_Bool[]){0, 0, 1, 1}), ((_Bool[]){0, 1, 0, 1}),
            ((_Bool[]){0, 1, 1, 1}));
    REDUCE4(_Bool, MPI_C_BOOL, MPI_LXOR, ((_Bool[]){0, 0, 1, 1}), ((_Bool[]){0, 1, 0, 1}),
            ((_Bool[]){0, 1, 1, 0}));
    REDUCE4(_Bool, MPI_CXX_BOOL, MPI_LAND, ((_Bool[]){0, 0, 1, 1}), ((_Bool[]){0, 1, 0, 1}),
            ((_Bool[]){0, 0, 0, 1}));
    REDUCE4(_Bool, MPI_CXX_BOOL, MPI_LOR, ((_Bool[]){0, 0, 1, 1}), ((_Bool[]){0, 1, 0, 1}),
            ((_Bool[]){0, 1, 1, 1}));
    REDUCE4(_Bool, MPI_CXX_BOOL, MPI_LXOR, ((_Bool[]){0, 0, 1, 1}), ((_Bool[]){0, 1, 0, 1}),
            ((_Bool[]){0, 1, 1, 0}));
}
END_TEST

/* Values whose sums and products are exact in float. */
#define CHECK_FLOATING(ctype, dt)                                                                  \
    do {                                                                                           \
        REDUCE4(ctype, dt, MPI_MAX, ((ctype[]){1.5, -2.25, 3.0, -1024.0}),                         \
                ((ctype[]){2.0, -4.0, -0.5, 0.125}), ((ctype[]){2.0, -2.25, 3.0, 0.125}));         \
        REDUCE4(ctype, dt, MPI_MIN, ((ctype[]){1.5, -2.25, 3.0, -1024.0}),                         \
                ((ctype[]){2.0, -4.0, -0.5, 0.125}), ((ctype[]){1.5, -4.0, -0.5, -1024.0}));       \
        REDUCE4(ctype, dt, MPI_SUM, ((ctype[]){1.5, -2.25, 3.0, -1024.0}),                         \
                ((ctype[]){2.0, -4.0, -0.5, 0.125}), ((ctype[]){3.5, -6.25, 2.5, -1023.875}));     \
        REDUCE4(ctype, dt, MPI_PROD, ((ctype[]){1.5, -2.25, 3.0, -1024.0}),                        \
                ((ctype[]){2.0, -4.0, -0.5, 0.125}), ((ctype[]){3.0, 9.0, -1.5, -128.0}));         \
    } while (0)

START_TEST(test_floating)
{
    long double one_eps = 1.0L + 0x1p-63L; /* not a double */

    CHECK_FLOATING(float, MPI_FLOAT);
    CHECK_FLOATING(double, MPI_DOUBLE);
    CHECK_FLOATING(long double, MPI_LONG_DOUBLE);
    /* long double keeps its 64-bit mantissa: a loop through double would round these */
    ck_assert(one_eps != 1.0L);
    REDUCE4(long double, MPI_LONG_DOUBLE, MPI_SUM, ((long double[]){1.0L, 0x1p-63L, 0, 0}),
            ((long double[]){0x1p-63L, 1.0L, 0, 1}), ((long double[]){one_eps, one_eps, 0, 1}));
    REDUCE4(long double, MPI_LONG_DOUBLE, MPI_MAX, ((long double[]){one_eps, 1.0L, 0, 0}),
            ((long double[]){1.0L, one_eps, 0, 0}), ((long double[]){one_eps, one_eps, 0, 0}));
    REDUCE4(long double, MPI_LONG_DOUBLE, MPI_MIN, ((long double[]){one_eps, 1.0L, 0, 0}),
            ((long double[]){1.0L, one_eps, 0, 0}), ((long double[]){1.0L, 1.0L, 0, 0}));
}
END_TEST

/* (1+2i)(3-i) = 5+5i, (-3+0.5i)(2+2i) = -7-5i, i*i = -1, 2*0.5 = 1 */
#define CHECK_COMPLEX(ctype, dt)                                                                   \
    do {                                                                                           \
        REDUCE4(ctype, dt, MPI_SUM, ((ctype[]){1 + 2 * I, -3 + 0.5 * I, I, 2}),                    \
                ((ctype[]){3 - I, 2 + 2 * I, I, 0.5}),                                             \
                ((ctype[]){4 + 1 * I, -1 + 2.5 * I, 2 * I, 2.5}));                                 \
        REDUCE4(ctype, dt, MPI_PROD, ((ctype[]){1 + 2 * I, -3 + 0.5 * I, I, 2}),                   \
                ((ctype[]){3 - I, 2 + 2 * I, I, 0.5}), ((ctype[]){5 + 5 * I, -7 - 5 * I, -1, 1})); \
    } while (0)

START_TEST(test_complex)
{
    CHECK_COMPLEX(float _Complex, MPI_C_FLOAT_COMPLEX);
    CHECK_COMPLEX(float _Complex, MPI_C_COMPLEX);
    CHECK_COMPLEX(double _Complex, MPI_C_DOUBLE_COMPLEX);
    CHECK_COMPLEX(long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX);
    CHECK_COMPLEX(float _Complex, MPI_CXX_FLOAT_COMPLEX);
    CHECK_COMPLEX(double _Complex, MPI_CXX_DOUBLE_COMPLEX);
    CHECK_COMPLEX(long double _Complex, MPI_CXX_LONG_DOUBLE_COMPLEX);
}
END_TEST

/* ------------------------------------------------------------------ MAXLOC, MINLOC */

/* Element 0 ties with the smaller index in inout, element 3 with the smaller index in in. */
#define CHECK_LOC(vtype, dt)                                                                       \
    do {                                                                                           \
        struct {                                                                                   \
            vtype v;                                                                               \
            int i;                                                                                 \
        } in[4] = {{3, 4}, {5, 1}, {2, 2}, {-1, 3}}, io[4] = {{3, 2}, {1, 5}, {7, 6}, {-1, 7}},    \
          mx[4], mn[4];                                                                            \
        const vtype want_max_v[4] = {3, 5, 7, -1}, want_min_v[4] = {3, 1, 2, -1};                  \
        const int want_max_i[4] = {2, 1, 6, 3}, want_min_i[4] = {2, 5, 2, 3};                      \
                                                                                                   \
        memcpy(mx, io, sizeof(io));                                                                \
        memcpy(mn, io, sizeof(io));                                                                \
        ck_assert_int_eq(MPI_Reduce_local(in, mx, 4, dt, MPI_MAXLOC), MPI_SUCCESS);                \
        ck_assert_int_eq(MPI_Reduce_local(in, mn, 4, dt, MPI_MINLOC), MPI_SUCCESS);                \
        for (int k = 0; k < 4; k++) {                                                              \
            ck_assert_msg(mx[k].v == want_max_v[k] && mx[k].i == want_max_i[k],                    \
                          "MPI_MAXLOC on %s: element %d is (%d, %d)", #dt, k, (int)mx[k].v,        \
                          mx[k].i);                                                                \
            ck_assert_msg(mn[k].v == want_min_v[k] && mn[k].i == want_min_i[k],                    \
                          "MPI_MINLOC on %s: element %d is (%d, %d)", #dt, k, (int)mn[k].v,        \
                          mn[k].i);                                                                \
        }                                                                                          \
    } while (0)

START_TEST(test_loc)
{
    CHECK_LOC(float, MPI_FLOAT_INT);
    CHECK_LOC(double, MPI_DOUBLE_INT);
    CHECK_LOC(long, MPI_LONG_INT);
    CHECK_LOC(int, MPI_2INT);
    CHECK_LOC(short, MPI_SHORT_INT);
    CHECK_LOC(long double, MPI_LONG_DOUBLE_INT);
}
END_TEST

/* Derived types made of whole pairs work with MAXLOC/MINLOC; other typemaps do not. */
START_TEST(test_loc_derived)
{
    MPI_Datatype fi2, ii3, di_vec, spaced, dbl2;
    struct {
        float v;
        int i;
    } fin[2] = {{1.5f, 2}, {8.0f, 1}}, fio[2] = {{1.5f, 3}, {4.0f, 0}};
    int iin[6] = {7, 0, 7, 1, -3, 2}, iio[6] = {6, 5, 7, 8, 4, 0};
    struct {
        double v;
        int i;
    } din[3] = {{2.0, 1}, {99.0, 99}, {5.0, 1}}, dio[3] = {{1.0, 0}, {-99.0, 98}, {5.0, 2}};

    ck_assert_int_eq(MPI_Type_contiguous(2, MPI_FLOAT_INT, &fi2), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_contiguous(3, MPI_2INT, &ii3), MPI_SUCCESS);
    /* pairs 0 and 2 of 3: the middle one is a gap */
    ck_assert_int_eq(MPI_Type_vector(2, 1, 2, MPI_DOUBLE_INT, &di_vec), MPI_SUCCESS);
    /* ints 12 bytes apart: no index where MPI_2INT has it */
    ck_assert_int_eq(MPI_Type_vector(2, 1, 3, MPI_INT, &spaced), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_contiguous(2, MPI_DOUBLE, &dbl2), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&fi2), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&ii3), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&di_vec), MPI_SUCCESS);

    ck_assert_int_eq(MPI_Reduce_local(fin, fio, 1, fi2, MPI_MAXLOC), MPI_SUCCESS);
    ck_assert(fio[0].v == 1.5f && fio[0].i == 2 && fio[1].v == 8.0f && fio[1].i == 1);
    ck_assert_int_eq(MPI_Reduce_local(iin, iio, 1, ii3, MPI_MINLOC), MPI_SUCCESS);
    ck_assert_int_eq(iio[0], 6);
    ck_assert_int_eq(iio[1], 5);
    ck_assert_int_eq(iio[2], 7);
    ck_assert_int_eq(iio[3], 1);
    ck_assert_int_eq(iio[4], -3);
    ck_assert_int_eq(iio[5], 2);
    ck_assert_int_eq(MPI_Reduce_local(din, dio, 1, di_vec, MPI_MAXLOC), MPI_SUCCESS);
    ck_assert(dio[0].v == 2.0 && dio[0].i == 1);
    ck_assert(dio[1].v == -99.0 && dio[1].i == 98); /* the gap */
    ck_assert(dio[2].v == 5.0 && dio[2].i == 1);

    ck_assert_int_eq(tm_mpi_op_check_type(op_of(MPI_MAXLOC), type_of(spaced)), -EINVAL);
    /* a float and an int 8 bytes apart are no MPI_FLOAT_INT; a double and an int are an
     * MPI_DOUBLE_INT, whatever constructor made them */
    {
        int bl[2] = {1, 1};
        MPI_Aint disp[2] = {0, 8};
        MPI_Datatype fi_types[2] = {MPI_FLOAT, MPI_INT}, di_types[2] = {MPI_DOUBLE, MPI_INT};
        MPI_Datatype fi_far, di;

        ck_assert_int_eq(MPI_Type_create_struct(2, bl, disp, fi_types, &fi_far), MPI_SUCCESS);
        ck_assert_int_eq(MPI_Type_create_struct(2, bl, disp, di_types, &di), MPI_SUCCESS);
        ck_assert_int_eq(tm_mpi_op_check_type(op_of(MPI_MAXLOC), type_of(fi_far)), -EINVAL);
        ck_assert_int_eq(tm_mpi_op_check_type(op_of(MPI_MINLOC), type_of(di)), 0);
        ck_assert_int_eq(MPI_Type_free(&fi_far), MPI_SUCCESS);
        ck_assert_int_eq(MPI_Type_free(&di), MPI_SUCCESS);
    }
    ck_assert_int_eq(tm_mpi_op_check_type(op_of(MPI_MINLOC), type_of(dbl2)), -EINVAL);
    ck_assert_int_eq(tm_mpi_op_check_type(op_of(MPI_SUM), type_of(fi2)), -EINVAL);
    ck_assert_int_eq(MPI_Type_free(&fi2), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&ii3), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&di_vec), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&spaced), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&dbl2), MPI_SUCCESS);
}
END_TEST

/* ------------------------------------------------------------------ which types each op takes */

static void add_ints(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype)
{
    for (int k = 0; k < *len; k++)
        ((int *)inoutvec)[k] += ((int *)invec)[k];
}

enum {
    G_CINT = 1,
    G_MULTI = 2,
    G_FLOAT = 4,
    G_LOGICAL = 8,
    G_COMPLEX = 16,
    G_BYTE = 32,
    G_PAIR = 64,
    G_OTHER = 128
};

static const struct {
    MPI_Datatype type;
    int group;
} all_types[] = {
    {MPI_CHAR, G_CINT}, /* as MPICH and Open MPI take it */
    {MPI_SIGNED_CHAR, G_CINT},
    {MPI_UNSIGNED_CHAR, G_CINT},
    {MPI_BYTE, G_BYTE},
    {MPI_WCHAR, G_OTHER},
    {MPI_SHORT, G_CINT},
    {MPI_UNSIGNED_SHORT, G_CINT},
    {MPI_INT, G_CINT},
    {MPI_UNSIGNED, G_CINT},
    {MPI_LONG, G_CINT},
    {MPI_UNSIGNED_LONG, G_CINT},
    {MPI_LONG_LONG_INT, G_CINT},
    {MPI_UNSIGNED_LONG_LONG, G_CINT},
    {MPI_FLOAT, G_FLOAT},
    {MPI_DOUBLE, G_FLOAT},
    {MPI_LONG_DOUBLE, G_FLOAT},
    {MPI_C_BOOL, G_LOGICAL},
    {MPI_INT8_T, G_CINT},
    {MPI_INT16_T, G_CINT},
    {MPI_INT32_T, G_CINT},
    {MPI_INT64_T, G_CINT},
    {MPI_UINT8_T, G_CINT},
    {MPI_UINT16_T, G_CINT},
    {MPI_UINT32_T, G_CINT},
    {MPI_UINT64_T, G_CINT},
    {MPI_AINT, G_MULTI},
    {MPI_OFFSET, G_MULTI},
    {MPI_COUNT, G_MULTI},
    {MPI_C_FLOAT_COMPLEX, G_COMPLEX},
    {MPI_C_DOUBLE_COMPLEX, G_COMPLEX},
    {MPI_C_LONG_DOUBLE_COMPLEX, G_COMPLEX},
    {MPI_PACKED, G_OTHER},
    {MPI_FLOAT_INT, G_PAIR},
    {MPI_DOUBLE_INT, G_PAIR},
    {MPI_LONG_INT, G_PAIR},
    {MPI_2INT, G_PAIR},
    {MPI_SHORT_INT, G_PAIR},
    {MPI_LONG_DOUBLE_INT, G_PAIR},
    {MPI_LB, G_OTHER},
    {MPI_UB, G_OTHER},
    {MPI_CXX_BOOL, G_LOGICAL},
    {MPI_CXX_FLOAT_COMPLEX, G_COMPLEX},
    {MPI_CXX_DOUBLE_COMPLEX, G_COMPLEX},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, G_COMPLEX},
};

/* MPI 3.1 section 5.9.2 */
static const struct {
    MPI_Op op;
    int groups;
} all_ops[] = {
    {MPI_MAX, G_CINT | G_MULTI | G_FLOAT},
    {MPI_MIN, G_CINT | G_MULTI | G_FLOAT},
    {MPI_SUM, G_CINT | G_MULTI | G_FLOAT | G_COMPLEX},
    {MPI_PROD, G_CINT | G_MULTI | G_FLOAT | G_COMPLEX},
    {MPI_LAND, G_CINT | G_LOGICAL | G_MULTI}, /* G_MULTI: as MPICH and Open MPI */
    {MPI_LOR, G_CINT | G_LOGICAL | G_MULTI},
    {MPI_LXOR, G_CINT | G_LOGICAL | G_MULTI},
    {MPI_BAND, G_CINT | G_BYTE | G_MULTI},
    {MPI_BOR, G_CINT | G_BYTE | G_MULTI},
    {MPI_BXOR, G_CINT | G_BYTE | G_MULTI},
    {MPI_MAXLOC, G_PAIR},
    {MPI_MINLOC, G_PAIR},
    {MPI_REPLACE, ~0},
    {MPI_NO_OP, ~0},
};

START_TEST(test_allowed_types)
{
    MPI_Op user;
    int accepted = 0;

    for (size_t o = 0; o < sizeof(all_ops) / sizeof(all_ops[0]); o++)
        for (size_t t = 0; t < sizeof(all_types) / sizeof(all_types[0]); t++) {
            int want = (all_ops[o].groups & all_types[t].group) != 0;
            int got = tm_mpi_op_check_type(op_of(all_ops[o].op), type_of(all_types[t].type));

            ck_assert_msg(got == (want ? 0 : -EINVAL), "op 0x%08x on type 0x%08x: %d",
                          (unsigned)all_ops[o].op, (unsigned)all_types[t].type, got);
            accepted += want;
        }
    ck_assert_int_eq(accepted, 2 * 25 + 2 * 31 + 3 * 24 + 3 * 23 + 2 * 6 + 2 * 44);
    ck_assert_int_eq(MPI_Op_create(add_ints, 0, &user), MPI_SUCCESS);
    for (size_t t = 0; t < sizeof(all_types) / sizeof(all_types[0]); t++)
        ck_assert_int_eq(tm_mpi_op_check_type(op_of(user), type_of(all_types[t].type)), 0);
    ck_assert_int_eq(MPI_Op_free(&user), MPI_SUCCESS);
}
END_TEST

/* The combinations the standard rules out are MPI_ERR_OP, and leave inoutbuf alone. */
START_TEST(test_rejected)
{
    double d[2] = {1, 2}, dio[2] = {3, 4};
    int pair[2] = {1, 2}, pio[2] = {3, 4};
    float f[2] = {1, 2}, fio[2] = {3, 4};
    char c[2] = {1, 2}, cio[2] = {3, 4};

    errors_return();
    ck_assert_int_eq(MPI_Reduce_local(d, dio, 2, MPI_DOUBLE, MPI_LAND), MPI_ERR_OP);
    ck_assert_int_eq(MPI_Reduce_local(pair, pio, 1, MPI_2INT, MPI_SUM), MPI_ERR_OP);
    ck_assert_int_eq(MPI_Reduce_local(f, fio, 2, MPI_FLOAT, MPI_BAND), MPI_ERR_OP);
    ck_assert_int_eq(MPI_Reduce_local(c, cio, 2, MPI_PACKED, MPI_MAX), MPI_ERR_OP);
    ck_assert_int_eq(MPI_Reduce_local(d, dio, 1, MPI_DOUBLE, MPI_MAXLOC), MPI_ERR_OP);
    ck_assert(dio[0] == 3 && dio[1] == 4 && pio[0] == 3 && pio[1] == 4);
    ck_assert(fio[0] == 3 && fio[1] == 4 && cio[0] == 3 && cio[1] == 4);
}
END_TEST

/* ------------------------------------------------------------------ derived types */

/* 3 blocks of 2 ints, 4 ints apart: 10 ints per element; the gaps keep their values. */
START_TEST(test_derived_vector_sum)
{
    static const int in_map[] = {0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19};
    MPI_Datatype vec;
    int in[24], io[24], want[24];

    for (int i = 0; i < 24; i++) {
        in[i] = i + 1;
        io[i] = 1000 * (i + 1);
        want[i] = io[i];
    }
    for (size_t k = 0; k < sizeof(in_map) / sizeof(in_map[0]); k++)
        want[in_map[k]] = 1001 * (in_map[k] + 1);
    ck_assert_int_eq(MPI_Type_vector(3, 2, 4, MPI_INT, &vec), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&vec), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Reduce_local(in, io, 2, vec, MPI_SUM), MPI_SUCCESS);
    ck_assert_mem_eq(io, want, sizeof(io));
    /* MPI_MAX picks in's elements (smaller) nowhere, MPI_MIN everywhere in the typemap */
    ck_assert_int_eq(MPI_Reduce_local(in, io, 2, vec, MPI_MAX), MPI_SUCCESS);
    ck_assert_mem_eq(io, want, sizeof(io));
    ck_assert_int_eq(MPI_Reduce_local(in, io, 2, vec, MPI_MIN), MPI_SUCCESS);
    for (size_t k = 0; k < sizeof(in_map) / sizeof(in_map[0]); k++)
        want[in_map[k]] = in_map[k] + 1;
    ck_assert_mem_eq(io, want, sizeof(io));
    ck_assert_int_eq(MPI_Type_free(&vec), MPI_SUCCESS);
}
END_TEST

/* Contiguous derived types run as one array; resized ones with gaps at their ends do not. */
START_TEST(test_derived_contiguous_resized)
{
    MPI_Datatype c3, r;
    double in[12], io[12];

    for (int i = 0; i < 12; i++) {
        in[i] = i;
        io[i] = 0.5;
    }
    ck_assert_int_eq(MPI_Type_contiguous(3, MPI_DOUBLE, &c3), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&c3), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Reduce_local(in, io, 2, c3, MPI_PROD), MPI_SUCCESS);
    for (int i = 0; i < 12; i++)
        ck_assert(io[i] == (i < 6 ? i * 0.5 : 0.5));
    /* three doubles, then a gap of one: element e at 4 * e doubles */
    ck_assert_int_eq(MPI_Type_create_resized(c3, 0, 4 * sizeof(double), &r), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&r), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Reduce_local(in, io, 3, r, MPI_SUM), MPI_SUCCESS);
    for (int i = 0; i < 12; i++) {
        double before = i < 6 ? i * 0.5 : 0.5;

        ck_assert(io[i] == (i % 4 == 3 ? before : before + i));
    }
    ck_assert_int_eq(MPI_Type_free(&c3), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&r), MPI_SUCCESS);
}
END_TEST

START_TEST(test_derived_mixed_rejected)
{
    MPI_Datatype st, ints;
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, itypes[2] = {MPI_INT, MPI_UNSIGNED};
    char buf[32] = {0}, io[32] = {0};

    errors_return();
    ck_assert_int_eq(MPI_Type_create_struct(2, bl, disp, types, &st), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&st), MPI_SUCCESS);
    for (size_t o = 0; o < sizeof(all_ops) / sizeof(all_ops[0]); o++)
        ck_assert_int_eq(tm_mpi_op_check_type(op_of(all_ops[o].op), type_of(st)),
                         all_ops[o].groups == ~0 ? 0 : -EINVAL);
    ck_assert_int_eq(MPI_Reduce_local(buf, io, 1, st, MPI_SUM), MPI_ERR_OP);
    /* int and unsigned are two basic types, even of one size */
    ck_assert_int_eq(MPI_Type_create_struct(2, bl, disp, itypes, &ints), MPI_SUCCESS);
    ck_assert_int_eq(tm_mpi_op_check_type(op_of(MPI_BOR), type_of(ints)), -EINVAL);
    ck_assert_int_eq(MPI_Type_free(&st), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&ints), MPI_SUCCESS);
}
END_TEST

/* MPI_REPLACE copies in's typemap over inout's; MPI_NO_OP changes nothing. */
START_TEST(test_replace_no_op)
{
    MPI_Datatype vec;
    short in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, io[8] = {-1, -2, -3, -4, -5, -6, -7, -8};
    const short want[8] = {1, -2, 3, -4, 5, -6, 7, -8};

    ck_assert_int_eq(MPI_Type_vector(4, 1, 2, MPI_SHORT, &vec), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&vec), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Reduce_local(in, io, 1, vec, MPI_NO_OP), MPI_SUCCESS);
    ck_assert_int_eq(io[0], -1);
    ck_assert_int_eq(io[7], -8);
    ck_assert_int_eq(MPI_Reduce_local(in, io, 1, vec, MPI_REPLACE), MPI_SUCCESS);
    ck_assert_mem_eq(io, want, sizeof(io));
    /* the same buffer on both sides: nothing to copy */
    tm_mpi_op_apply(op_of(MPI_REPLACE), io, io, 1, type_of(vec));
    ck_assert_mem_eq(io, want, sizeof(io));
    ck_assert_int_eq(MPI_Type_free(&vec), MPI_SUCCESS);
}
END_TEST

/* Zero elements, and types without data, change nothing. */
START_TEST(test_empty)
{
    MPI_Datatype none;
    int in[2] = {1, 2}, io[2] = {3, 4};

    ck_assert_int_eq(MPI_Reduce_local(in, io, 0, MPI_INT, MPI_SUM), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Reduce_local(NULL, NULL, 0, MPI_INT, MPI_SUM), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_contiguous(0, MPI_INT, &none), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&none), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Reduce_local(in, io, 2, none, MPI_PROD), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Reduce_local(in, io, 2, none, MPI_MAXLOC), MPI_SUCCESS);
    ck_assert_int_eq(io[0], 3);
    ck_assert_int_eq(io[1], 4);
    ck_assert_int_eq(MPI_Type_free(&none), MPI_SUCCESS);
}
END_TEST

/* ------------------------------------------------------------------ user-defined operations */

static int matmul_calls;
static MPI_Datatype matmul_type;

/* 2x2 int matrices, row-major: inout = in x inout. */
static void matmul(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype)
{
    const int *a = invec;
    int *b = inoutvec;

    matmul_calls++;
    ck_assert(*datatype == matmul_type);
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                    a[2] * b[1] + a[3] * b[3]};

        memcpy(b, c, sizeof(c));
    }
}

/* in is the left operand: A x B, which is not B x A. */
START_TEST(test_user_order)
{
    MPI_Op op;
    int commute = -1;
    int in[8] = {1, 2, 3, 4, 0, 1, 1, 0}, io[8] = {5, 6, 7, 8, 2, 0, 0, 3};
    const int want[8] = {19, 22, 43, 50, 0, 3, 2, 0};

    ck_assert_int_eq(MPI_Type_contiguous(4, MPI_INT, &matmul_type), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&matmul_type), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Op_create(matmul, 0, &op), MPI_SUCCESS);
    ck_assert_int_eq(tm_mpi_handle_kind(op), TM_MPI_KIND_OP);
    ck_assert_int_eq(MPI_Op_commutative(op, &commute), MPI_SUCCESS);
    ck_assert_int_eq(commute, 0);
    ck_assert(!tm_mpi_op_is_commutative(op_of(op)));
    ck_assert_int_eq(MPI_Reduce_local(in, io, 2, matmul_type, op), MPI_SUCCESS);
    ck_assert_int_eq(matmul_calls, 1);
    ck_assert_mem_eq(io, want, sizeof(want));
    ck_assert_int_eq(MPI_Op_free(&op), MPI_SUCCESS);
    ck_assert_int_eq(op, MPI_OP_NULL);
    ck_assert_int_eq(MPI_Type_free(&matmul_type), MPI_SUCCESS);
}
END_TEST

static size_t split_total;
static int split_calls, split_lens[4];
static uintptr_t split_offsets[4];
static uintptr_t split_base;

static void count_len(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype)
{
    if (split_calls < 4) {
        split_lens[split_calls] = *len;
        split_offsets[split_calls] = (uintptr_t)inoutvec - split_base;
    }
    ck_assert((uintptr_t)invec - split_base == split_offsets[split_calls] + 64);
    ck_assert(*datatype == MPI_BYTE);
    split_calls++;
    split_total += (size_t)*len;
    *len = -1; /* the function may write its arguments: the library must not trust them */
}

/* Counts above INT_MAX reach a user function in pieces of at most INT_MAX elements, each at the
 * address of its first element. The function touches no memory. */
START_TEST(test_user_split)
{
    MPI_Op op;
    char buf[128];
    size_t count = (size_t)INT_MAX * 2 + 5;

    split_base = (uintptr_t)buf;
    ck_assert_int_eq(MPI_Op_create(count_len, 1, &op), MPI_SUCCESS);
    ck_assert(tm_mpi_op_is_commutative(op_of(op)));
    tm_mpi_op_apply(op_of(op), buf + 64, buf, count, type_of(MPI_BYTE));
    ck_assert_int_eq(split_calls, 3);
    ck_assert_uint_eq(split_total, count);
    ck_assert_int_eq(split_lens[0], INT_MAX);
    ck_assert_int_eq(split_lens[1], INT_MAX);
    ck_assert_int_eq(split_lens[2], 5);
    ck_assert_uint_eq(split_offsets[0], 0);
    ck_assert_uint_eq(split_offsets[1], (uintptr_t)INT_MAX);
    ck_assert_uint_eq(split_offsets[2], 2 * (uintptr_t)INT_MAX);
    ck_assert_int_eq(MPI_Op_free(&op), MPI_SUCCESS);
}
END_TEST

/* A pending collective's reference keeps the operation after MPI_Op_free. */
START_TEST(test_retain_release)
{
    MPI_Op h, freed;
    tm_mpi_op_t *op, *other;
    int in[2] = {1, 2}, io[2] = {10, 20};

    ck_assert_int_eq(MPI_Op_create(add_ints, 1, &h), MPI_SUCCESS);
    op = op_of(h);
    tm_mpi_op_retain(op);
    freed = h;
    ck_assert_int_eq(MPI_Op_free(&h), MPI_SUCCESS);
    ck_assert_int_eq(h, MPI_OP_NULL);
    ck_assert_int_eq(tm_mpi_op_lookup(freed, &other), -EINVAL);
    ck_assert_ptr_null(other);
    tm_mpi_op_apply(op, in, io, 2, type_of(MPI_INT));
    ck_assert_int_eq(io[0], 11);
    ck_assert_int_eq(io[1], 22);
    tm_mpi_op_release(op);
    /* predefined operations are not counted */
    tm_mpi_op_retain(op_of(MPI_SUM));
    tm_mpi_op_release(op_of(MPI_SUM));
    tm_mpi_op_release(NULL);
    ck_assert_int_eq(op_of(MPI_SUM)->kind, TM_MPI_OP_SUM);
}
END_TEST

START_TEST(test_predefined_objects)
{
    static const MPI_Op ops[] = {MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
                                 MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
                                 MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
    tm_mpi_op_t *op;
    int commute;

    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        op = op_of(ops[k]);
        ck_assert(op->predefined);
        ck_assert_int_eq(op->handle, ops[k]);
        ck_assert_int_eq(op->kind, (int)k + 1);
        ck_assert_int_eq(MPI_Op_commutative(ops[k], &commute), MPI_SUCCESS);
        ck_assert_int_eq(commute, ops[k] != MPI_REPLACE && ops[k] != MPI_NO_OP);
    }
    ck_assert_str_eq(op_of(MPI_BXOR)->name, "MPI_BXOR");
    ck_assert_int_eq(tm_mpi_op_lookup(MPI_OP_NULL, &op), -EINVAL);
    ck_assert_int_eq(tm_mpi_op_lookup(MPI_NO_OP + 1, &op), -EINVAL);
    ck_assert_int_eq(tm_mpi_op_lookup(MPI_INT, &op), -EINVAL);
    ck_assert_int_eq(tm_mpi_op_lookup(3, &op), -EINVAL);
}
END_TEST

/* Ranks are threads: the table of user-defined operations is shared and locked. Each thread
 * creates operations of its own kind (function, commute flag), checks that every handle resolves
 * to one of them, and frees them. Each thread tells the fake runtime that it is rank 1. */
#define THREAD_ROUNDS 300
#define THREAD_OPS    16

static void *create_free_thread(void *arg)
{
    long t = (long)arg;
    MPI_User_function *fn = t % 2 ? add_ints : matmul;
    MPI_Op mine[THREAD_OPS];

    fake_rt_set_caller(1);
    for (int round = 0; round < THREAD_ROUNDS; round++) {
        for (int k = 0; k < THREAD_OPS; k++)
            if (MPI_Op_create(fn, t / 2, &mine[k]) != MPI_SUCCESS)
                return (void *)1;
        for (int k = 0; k < THREAD_OPS; k++) {
            tm_mpi_op_t *op;

            if (tm_mpi_op_lookup(mine[k], &op) != 0 || op->fn != fn || op->commute != (t / 2) ||
                op->handle != mine[k])
                return (void *)2;
            for (int j = 0; j < k; j++)
                if (mine[j] == mine[k])
                    return (void *)3;
        }
        for (int k = 0; k < THREAD_OPS; k++)
            if (MPI_Op_free(&mine[k]) != MPI_SUCCESS || mine[k] != MPI_OP_NULL)
                return (void *)4;
    }
    return NULL;
}

START_TEST(test_threads)
{
    pthread_t th[4];
    void *ret;

    for (long t = 0; t < 4; t++)
        ck_assert_int_eq(pthread_create(&th[t], NULL, create_free_thread, (void *)t), 0);
    for (int t = 0; t < 4; t++) {
        ck_assert_int_eq(pthread_join(th[t], &ret), 0);
        ck_assert_ptr_null(ret);
    }
}
END_TEST

/* ------------------------------------------------------------------ argument checks */

START_TEST(test_errors_return)
{
    MPI_Datatype unc;
    MPI_Op op = MPI_SUM, user;
    int in[2] = {1, 2}, io[2] = {3, 4}, commute;

    errors_return();
    ck_assert_int_eq(MPI_Reduce_local(in, io, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT);
    ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &unc), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Reduce_local(in, io, 1, unc, MPI_SUM), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Reduce_local(in, io, 1, MPI_DATATYPE_NULL, MPI_SUM), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Reduce_local(in, io, 1, MPI_INT, MPI_OP_NULL), MPI_ERR_OP);
    ck_assert_int_eq(MPI_Reduce_local(in, io, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_OP);
    ck_assert_int_eq(MPI_Reduce_local(in, io, 1, MPI_INT, 12345), MPI_ERR_OP);
    ck_assert_int_eq(MPI_Reduce_local(MPI_IN_PLACE, io, 1, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    ck_assert_int_eq(MPI_Reduce_local(in, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    ck_assert_int_eq(MPI_Reduce_local(NULL, io, 1, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    ck_assert_int_eq(MPI_Reduce_local(in, NULL, 1, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    ck_assert_int_eq(io[0], 3);
    ck_assert_int_eq(MPI_Op_free(&op), MPI_ERR_OP);
    ck_assert_int_eq(op, MPI_SUM);
    ck_assert_int_eq(MPI_Op_free(NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Op_create(NULL, 1, &user), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Op_create(add_ints, 1, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Op_commutative(MPI_SUM, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Op_commutative(MPI_OP_NULL, &commute), MPI_ERR_OP);
    ck_assert_int_eq(MPI_Op_create(add_ints, 1, &user), MPI_SUCCESS);
    op = user;
    ck_assert_int_eq(MPI_Op_free(&user), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Op_free(&op), MPI_ERR_OP); /* freed already */
    ck_assert_int_eq(MPI_Reduce_local(in, io, 1, MPI_INT, op), MPI_ERR_OP);
    ck_assert_int_eq(MPI_Type_free(&unc), MPI_SUCCESS);
}
END_TEST

START_TEST(test_error_free_predefined)
{
    MPI_Op op = MPI_SUM;

    fake_rt_expect_abort(1, "MPI_Op_free (rank 1): MPI_SUM is predefined and cannot be freed "
                            "(MPI_ERR_OP)\n");
    MPI_Op_free(&op);
}
END_TEST

START_TEST(test_error_mismatch)
{
    int pair[2] = {1, 2}, io[2];

    fake_rt_expect_abort(1, "MPI_Reduce_local (rank 1): MPI_SUM is not defined on MPI_2INT "
                            "(MPI_ERR_OP)\n");
    MPI_Reduce_local(pair, io, 1, MPI_2INT, MPI_SUM);
}
END_TEST

START_TEST(test_error_mismatch_derived)
{
    MPI_Datatype t;
    double in[2], io[2];
    char want[200];

    ck_assert_int_eq(MPI_Type_contiguous(2, MPI_DOUBLE, &t), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
    snprintf(want, sizeof(want),
             "MPI_Reduce_local (rank 1): MPI_BXOR is not defined on datatype 0x%08x "
             "(MPI_ERR_OP)\n",
             (unsigned)t);
    fake_rt_expect_abort(1, want);
    MPI_Reduce_local(in, io, 1, t, MPI_BXOR);
}
END_TEST

START_TEST(test_error_op_null)
{
    int in[1], io[1];

    fake_rt_expect_abort(1, "MPI_Reduce_local (rank 1): invalid operation MPI_OP_NULL "
                            "(MPI_ERR_OP)\n");
    MPI_Reduce_local(in, io, 1, MPI_INT, MPI_OP_NULL);
}
END_TEST

START_TEST(test_error_op_kind)
{
    int commute;

    fake_rt_expect_abort(1, "MPI_Op_commutative (rank 1): invalid operation 0x44000001: the "
                            "handle of a communicator (MPI_ERR_OP)\n");
    MPI_Op_commutative(MPI_COMM_WORLD, &commute);
}
END_TEST

static Suite *op_suite(void)
{
    Suite *s = suite_create("mpi_op");
    TCase *tc = tcase_create("predefined");
    TCase *tc_derived = tcase_create("derived");
    TCase *tc_user = tcase_create("user");
    TCase *tc_err = tcase_create("errors");

    tcase_add_checked_fixture(tc, setup_rank1, NULL);
    tcase_add_test(tc, test_signed_integers);
    tcase_add_test(tc, test_unsigned_integers);
    tcase_add_test(tc, test_integer_extremes);
    tcase_add_test(tc, test_bool);
    tcase_add_test(tc, test_floating);
    tcase_add_test(tc, test_complex);
    tcase_add_test(tc, test_loc);
    tcase_add_test(tc, test_allowed_types);
    tcase_add_test(tc, test_rejected);
    tcase_add_test(tc, test_replace_no_op);
    tcase_add_test(tc, test_empty);
    tcase_add_test(tc, test_predefined_objects);
    suite_add_tcase(s, tc);

    tcase_add_checked_fixture(tc_derived, setup_rank1, NULL);
    tcase_add_test(tc_derived, test_derived_vector_sum);
    tcase_add_test(tc_derived, test_derived_contiguous_resized);
    tcase_add_test(tc_derived, test_derived_mixed_rejected);
    tcase_add_test(tc_derived, test_loc_derived);
    suite_add_tcase(s, tc_derived);

    tcase_add_checked_fixture(tc_user, setup_rank1, NULL);
    tcase_add_test(tc_user, test_user_order);
    tcase_add_test(tc_user, test_user_split);
    tcase_add_test(tc_user, test_retain_release);
    tcase_add_test(tc_user, test_threads);
    suite_add_tcase(s, tc_user);

    tcase_add_checked_fixture(tc_err, setup_rank1, NULL);
    tcase_add_test(tc_err, test_errors_return);
    tcase_add_exit_test(tc_err, test_error_free_predefined, MPI_ERR_OP);
    tcase_add_exit_test(tc_err, test_error_mismatch, MPI_ERR_OP);
    tcase_add_exit_test(tc_err, test_error_mismatch_derived, MPI_ERR_OP);
    tcase_add_exit_test(tc_err, test_error_op_null, MPI_ERR_OP);
    tcase_add_exit_test(tc_err, test_error_op_kind, MPI_ERR_OP);
    suite_add_tcase(s, tc_err);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(op_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
