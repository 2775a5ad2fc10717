/* Unit tests of mpi/: datatypes (constructors, inquiries, flattening), the copy engine, pack and
 * unpack, external32, argument checks. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "obj/datatype.h"
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
    r->self.errhandler = MPI_ERRORS_RETURN;
}

static tm_mpi_type_t *lookup(MPI_Datatype h)
{
    tm_mpi_type_t *t = NULL;

    ck_assert_int_eq(tm_mpi_type_lookup(h, &t), 0);
    return t;
}

/* size, lb, extent, true lb, true extent */
static void check_shape(MPI_Datatype h, int size, MPI_Aint lb, MPI_Aint extent, MPI_Aint tlb,
                        MPI_Aint textent)
{
    int s = -1;
    MPI_Aint l = -1, e = -1;
    MPI_Count cs = -1, cl = -1, ce = -1;

    ck_assert_int_eq(MPI_Type_size(h, &s), MPI_SUCCESS);
    ck_assert_int_eq(s, size);
    ck_assert_int_eq(MPI_Type_size_x(h, &cs), MPI_SUCCESS);
    ck_assert_int_eq(cs, size);
    ck_assert_int_eq(MPI_Type_get_extent(h, &l, &e), MPI_SUCCESS);
    ck_assert_int_eq(l, lb);
    ck_assert_int_eq(e, extent);
    ck_assert_int_eq(MPI_Type_get_extent_x(h, &cl, &ce), MPI_SUCCESS);
    ck_assert_int_eq(cl, lb);
    ck_assert_int_eq(ce, extent);
    ck_assert_int_eq(MPI_Type_get_true_extent(h, &l, &e), MPI_SUCCESS);
    ck_assert_int_eq(l, tlb);
    ck_assert_int_eq(e, textent);
    ck_assert_int_eq(MPI_Type_get_true_extent_x(h, &cl, &ce), MPI_SUCCESS);
    ck_assert_int_eq(cl, tlb);
    ck_assert_int_eq(ce, textent);
}

static void check_envelope(MPI_Datatype h, int ni, int na, int nd, int combiner)
{
    int i = -1, a = -1, d = -1, c = -1;

    ck_assert_int_eq(MPI_Type_get_envelope(h, &i, &a, &d, &c), MPI_SUCCESS);
    ck_assert_int_eq(i, ni);
    ck_assert_int_eq(a, na);
    ck_assert_int_eq(d, nd);
    ck_assert_int_eq(c, combiner);
}

static void check_blocks(MPI_Datatype h, size_t n, const MPI_Aint *disps, const size_t *lens)
{
    tm_mpi_type_t *t = lookup(h);

    ck_assert_uint_eq(t->nblocks, n);
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(t->blocks[i].disp, disps[i]);
        ck_assert_uint_eq(t->blocks[i].len, lens[i]);
    }
}

/* Packs count elements with MPI_Pack, unpacks into a zeroed buffer with MPI_Unpack, and checks
 * that exactly the typemap's bytes came back (the others stay zero). */
static void check_pack_round_trip(MPI_Datatype h, int count)
{
    tm_mpi_type_t *t = lookup(h);
    unsigned char src[4096], dst[4096], ref[4096], packed[4096];
    MPI_Aint base = 2048;
    int size = -1, pos = 0, pos2 = 0;

    ck_assert_int_eq(MPI_Type_commit(&h), MPI_SUCCESS);
    for (size_t i = 0; i < sizeof(src); i++)
        src[i] = (unsigned char)(i * 7 + 1);
    memset(dst, 0, sizeof(dst));
    memset(ref, 0, sizeof(ref));
    /* ref: the typemap's bytes of src, the rest zero */
    for (int e = 0; e < count; e++)
        for (size_t b = 0; b < t->nblocks; b++) {
            MPI_Aint d = base + e * t->extent + t->blocks[b].disp;

            memcpy(ref + d, src + d, t->blocks[b].len);
        }
    ck_assert_int_eq(MPI_Pack_size(count, h, MPI_COMM_WORLD, &size), MPI_SUCCESS);
    ck_assert_int_eq(size, count * (int)t->size);
    ck_assert_int_eq(MPI_Pack(src + base, count, h, packed, sizeof(packed), &pos, MPI_COMM_WORLD),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, size);
    ck_assert_int_eq(MPI_Unpack(packed, pos, &pos2, dst + base, count, h, MPI_COMM_WORLD),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos2, pos);
    ck_assert_mem_eq(dst, ref, sizeof(dst));
}

/* ------------------------------------------------------------------ predefined */

START_TEST(test_predefined)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;

    check_shape(MPI_INT, 4, 0, 4, 0, 4);
    check_shape(MPI_LONG_DOUBLE, sizeof(long double), 0, sizeof(long double), 0,
                sizeof(long double));
    check_shape(MPI_C_DOUBLE_COMPLEX, 16, 0, 16, 0, 16);
    check_shape(MPI_C_BOOL, 1, 0, 1, 0, 1);
    check_shape(MPI_UINT64_T, 8, 0, 8, 0, 8);
    check_shape(MPI_PACKED, 1, 0, 1, 0, 1);
    check_shape(MPI_BYTE, 1, 0, 1, 0, 1);
    check_shape(MPI_DOUBLE_INT, 12, 0, 16, 0, 12);
    check_shape(MPI_FLOAT_INT, 8, 0, 8, 0, 8);
    check_shape(MPI_SHORT_INT, 6, 0, 8, 0, 8);
    check_shape(MPI_2INT, 8, 0, 8, 0, 8);
    check_shape(MPI_LONG_DOUBLE_INT, 20, 0, 32, 0, 20);
    check_shape(MPI_LB, 0, 0, 0, 0, 0);
    check_envelope(MPI_DOUBLE, 0, 0, 0, MPI_COMBINER_NAMED);
    ck_assert_int_eq(MPI_Type_get_name(MPI_UNSIGNED_LONG, name, &len), MPI_SUCCESS);
    ck_assert_str_eq(name, "MPI_UNSIGNED_LONG");
    ck_assert_int_eq(len, 17);
    ck_assert(lookup(MPI_INT)->contiguous);
    ck_assert(!lookup(MPI_DOUBLE_INT)->contiguous);
    ck_assert(lookup(MPI_2INT)->contiguous);
}
END_TEST

/* ------------------------------------------------------------------ constructors */

START_TEST(test_contiguous)
{
    MPI_Datatype t, inner;
    int ints[1];
    MPI_Datatype types[1];

    ck_assert_int_eq(MPI_Type_contiguous(3, MPI_INT, &t), MPI_SUCCESS);
    check_shape(t, 12, 0, 12, 0, 12);
    ck_assert(lookup(t)->contiguous);
    check_envelope(t, 1, 0, 1, MPI_COMBINER_CONTIGUOUS);
    ck_assert_int_eq(MPI_Type_get_contents(t, 1, 0, 1, ints, NULL, types), MPI_SUCCESS);
    ck_assert_int_eq(ints[0], 3);
    ck_assert_int_eq(types[0], MPI_INT);
    check_pack_round_trip(t, 5);
    /* a derived child comes back as a new handle of the same object */
    ck_assert_int_eq(MPI_Type_contiguous(2, t, &inner), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_get_contents(inner, 1, 0, 1, ints, NULL, types), MPI_SUCCESS);
    ck_assert_int_ne(types[0], t);
    ck_assert_ptr_eq(lookup(types[0]), lookup(t));
    ck_assert_int_eq(MPI_Type_free(&types[0]), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
    ck_assert_int_eq(t, MPI_DATATYPE_NULL);
    check_shape(inner, 24, 0, 24, 0, 24);
    check_pack_round_trip(inner, 3);
    ck_assert_int_eq(MPI_Type_free(&inner), MPI_SUCCESS);
}
END_TEST

START_TEST(test_vector)
{
    MPI_Datatype t;
    int ints[3];
    MPI_Datatype types[1];
    const MPI_Aint disps[] = {0, 16, 32};
    const size_t lens[] = {8, 8, 8};

    ck_assert_int_eq(MPI_Type_vector(3, 2, 4, MPI_INT, &t), MPI_SUCCESS);
    check_shape(t, 24, 0, 40, 0, 40);
    check_blocks(t, 3, disps, lens);
    ck_assert(!lookup(t)->contiguous);
    check_envelope(t, 3, 0, 1, MPI_COMBINER_VECTOR);
    ck_assert_int_eq(MPI_Type_get_contents(t, 3, 0, 1, ints, NULL, types), MPI_SUCCESS);
    ck_assert_int_eq(ints[0], 3);
    ck_assert_int_eq(ints[1], 2);
    ck_assert_int_eq(ints[2], 4);
    ck_assert_int_eq(types[0], MPI_INT);
    check_pack_round_trip(t, 4);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
    /* stride == blocklength: contiguous */
    ck_assert_int_eq(MPI_Type_vector(4, 2, 2, MPI_DOUBLE, &t), MPI_SUCCESS);
    check_shape(t, 64, 0, 64, 0, 64);
    ck_assert(lookup(t)->contiguous);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
}
END_TEST

START_TEST(test_hvector)
{
    MPI_Datatype t;
    int ints[2];
    MPI_Aint aints[1];
    MPI_Datatype types[1];

    ck_assert_int_eq(MPI_Type_create_hvector(2, 1, -24, MPI_DOUBLE, &t), MPI_SUCCESS);
    check_shape(t, 16, -24, 32, -24, 32);
    check_envelope(t, 2, 1, 1, MPI_COMBINER_HVECTOR);
    ck_assert_int_eq(MPI_Type_get_contents(t, 2, 1, 1, ints, aints, types), MPI_SUCCESS);
    ck_assert_int_eq(ints[0], 2);
    ck_assert_int_eq(ints[1], 1);
    ck_assert_int_eq(aints[0], -24);
    check_pack_round_trip(t, 3);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
}
END_TEST

START_TEST(test_indexed)
{
    MPI_Datatype t;
    const int bl[] = {2, 1, 0};
    const int di[] = {3, 0, 9};
    const MPI_Aint disps[] = {12, 0};
    const size_t lens[] = {8, 4};
    int ints[7];
    MPI_Datatype types[1];

    ck_assert_int_eq(MPI_Type_indexed(3, bl, di, MPI_INT, &t), MPI_SUCCESS);
    check_shape(t, 12, 0, 20, 0, 20);
    check_blocks(t, 2, disps, lens); /* typemap order, not address order */
    check_envelope(t, 7, 0, 1, MPI_COMBINER_INDEXED);
    ck_assert_int_eq(MPI_Type_get_contents(t, 7, 0, 1, ints, NULL, types), MPI_SUCCESS);
    ck_assert_int_eq(ints[0], 3);
    ck_assert_int_eq(ints[1], 2);
    ck_assert_int_eq(ints[3], 0);
    ck_assert_int_eq(ints[4], 3);
    ck_assert_int_eq(ints[6], 9);
    check_pack_round_trip(t, 3);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
}
END_TEST

START_TEST(test_hindexed)
{
    MPI_Datatype t;
    const int bl[] = {1, 2};
    const MPI_Aint di[] = {40, 2};
    int ints[3];
    MPI_Aint aints[2];
    MPI_Datatype types[1];

    ck_assert_int_eq(MPI_Type_create_hindexed(2, bl, di, MPI_SHORT, &t), MPI_SUCCESS);
    check_shape(t, 6, 2, 40, 2, 40);
    check_envelope(t, 3, 2, 1, MPI_COMBINER_HINDEXED);
    ck_assert_int_eq(MPI_Type_get_contents(t, 3, 2, 1, ints, aints, types), MPI_SUCCESS);
    ck_assert_int_eq(ints[2], 2);
    ck_assert_int_eq(aints[0], 40);
    ck_assert_int_eq(types[0], MPI_SHORT);
    check_pack_round_trip(t, 2);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
}
END_TEST

START_TEST(test_indexed_block)
{
    MPI_Datatype t, h;
    const int di[] = {4, 0, 2};
    const MPI_Aint hdi[] = {16, 0};
    int ints[5];
    MPI_Aint aints[2];
    MPI_Datatype types[1];
    const MPI_Aint disps[] = {16, 0};
    const size_t lens[] = {8, 16};

    ck_assert_int_eq(MPI_Type_create_indexed_block(3, 2, di, MPI_FLOAT, &t), MPI_SUCCESS);
    check_shape(t, 24, 0, 24, 0, 24);
    /* block 4..5 (at 16), then 0..1 and 2..3, which merge (at 0, 16 bytes) */
    check_blocks(t, 2, disps, lens);
    check_envelope(t, 5, 0, 1, MPI_COMBINER_INDEXED_BLOCK);
    ck_assert_int_eq(MPI_Type_get_contents(t, 5, 0, 1, ints, NULL, types), MPI_SUCCESS);
    ck_assert_int_eq(ints[0], 3);
    ck_assert_int_eq(ints[1], 2);
    ck_assert_int_eq(ints[2], 4);
    check_pack_round_trip(t, 2);
    ck_assert_int_eq(MPI_Type_create_hindexed_block(2, 3, hdi, MPI_CHAR, &h), MPI_SUCCESS);
    check_shape(h, 6, 0, 19, 0, 19);
    check_envelope(h, 2, 2, 1, MPI_COMBINER_HINDEXED_BLOCK);
    ck_assert_int_eq(MPI_Type_get_contents(h, 2, 2, 1, ints, aints, types), MPI_SUCCESS);
    ck_assert_int_eq(ints[1], 3);
    ck_assert_int_eq(aints[0], 16);
    check_pack_round_trip(h, 3);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&h), MPI_SUCCESS);
}
END_TEST

START_TEST(test_struct)
{
    struct s {
        char c;
        double d;
        int i[2];
    };
    MPI_Datatype t;
    const int bl[] = {1, 1, 2};
    const MPI_Aint di[] = {offsetof(struct s, c), offsetof(struct s, d), offsetof(struct s, i)};
    const MPI_Datatype ty[] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    int ints[4];
    MPI_Aint aints[3];
    MPI_Datatype types[3];

    ck_assert_int_eq(MPI_Type_create_struct(3, bl, di, ty, &t), MPI_SUCCESS);
    /* padded to the alignment of double, as the C struct */
    check_shape(t, 17, 0, sizeof(struct s), 0, offsetof(struct s, i) + 8);
    check_envelope(t, 4, 3, 3, MPI_COMBINER_STRUCT);
    ck_assert_int_eq(MPI_Type_get_contents(t, 4, 3, 3, ints, aints, types), MPI_SUCCESS);
    ck_assert_int_eq(ints[0], 3);
    ck_assert_int_eq(ints[3], 2);
    ck_assert_int_eq(aints[1], 8);
    ck_assert_int_eq(types[2], MPI_INT);
    check_pack_round_trip(t, 4);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
}
END_TEST

/* MPI_LB and MPI_UB set the bounds; the true extent ignores them. */
START_TEST(test_struct_markers)
{
    MPI_Datatype t, c;
    const int bl[] = {1, 1, 1};
    const MPI_Aint di[] = {-4, 0, 20};
    const MPI_Datatype ty[] = {MPI_LB, MPI_INT, MPI_UB};

    ck_assert_int_eq(MPI_Type_create_struct(3, bl, di, ty, &t), MPI_SUCCESS);
    check_shape(t, 4, -4, 24, 0, 4);
    /* markers are sticky: a contiguous of it keeps them */
    ck_assert_int_eq(MPI_Type_contiguous(2, t, &c), MPI_SUCCESS);
    check_shape(c, 8, -4, 48, 0, 28);
    check_pack_round_trip(c, 2);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&c), MPI_SUCCESS);
}
END_TEST

START_TEST(test_resized_dup)
{
    MPI_Datatype t, d, v;
    MPI_Aint aints[2];
    MPI_Datatype types[1];

    ck_assert_int_eq(MPI_Type_create_resized(MPI_INT, -2, 10, &t), MPI_SUCCESS);
    check_shape(t, 4, -2, 10, 0, 4);
    ck_assert(!lookup(t)->contiguous);
    check_envelope(t, 0, 2, 1, MPI_COMBINER_RESIZED);
    ck_assert_int_eq(MPI_Type_get_contents(t, 0, 2, 1, NULL, aints, types), MPI_SUCCESS);
    ck_assert_int_eq(aints[0], -2);
    ck_assert_int_eq(aints[1], 10);
    check_pack_round_trip(t, 7);
    /* a vector of it strides by the new extent */
    ck_assert_int_eq(MPI_Type_vector(2, 2, 3, t, &v), MPI_SUCCESS);
    check_shape(v, 16, -2, 50, 0, 44);
    check_pack_round_trip(v, 2);
    ck_assert_int_eq(MPI_Type_commit(&v), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_dup(v, &d), MPI_SUCCESS);
    check_shape(d, 16, -2, 50, 0, 44);
    check_envelope(d, 0, 0, 1, MPI_COMBINER_DUP);
    ck_assert(lookup(d)->committed);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&v), MPI_SUCCESS);
    check_pack_round_trip(d, 3);
    ck_assert_int_eq(MPI_Type_free(&d), MPI_SUCCESS);
    /* resizing to the size makes a type contiguous again */
    ck_assert_int_eq(MPI_Type_create_resized(MPI_DOUBLE_INT, 0, 12, &t), MPI_SUCCESS);
    ck_assert(lookup(t)->contiguous); /* double and int abut: one block of 12 bytes */
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
}
END_TEST

/* A 2x3 block at (1, 2) of a 4x6 int array, in C and Fortran order. */
START_TEST(test_subarray)
{
    MPI_Datatype c, f;
    const int sizes[] = {4, 6}, subsizes[] = {2, 3}, starts[] = {1, 2};
    int ints[8], m[24], out[6];
    MPI_Datatype types[1];

    ck_assert_int_eq(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &c),
                     MPI_SUCCESS);
    check_shape(c, 24, 0, 96, 32, 36);
    check_envelope(c, 8, 0, 1, MPI_COMBINER_SUBARRAY);
    ck_assert_int_eq(MPI_Type_get_contents(c, 8, 0, 1, ints, NULL, types), MPI_SUCCESS);
    ck_assert_int_eq(ints[0], 2);
    ck_assert_int_eq(ints[4], 3);
    ck_assert_int_eq(ints[6], 2);
    ck_assert_int_eq(ints[7], MPI_ORDER_C);
    for (int i = 0; i < 24; i++)
        m[i] = i;
    ck_assert_uint_eq(tm_mpi_type_pack(m, 1, lookup(c), 0, 24, out), 24);
    ck_assert_int_eq(out[0], 8);
    ck_assert_int_eq(out[2], 10);
    ck_assert_int_eq(out[3], 14);
    ck_assert_int_eq(out[5], 16);
    check_pack_round_trip(c, 2);
    /* Fortran order: dimension 0 varies fastest, rows of 4 */
    ck_assert_int_eq(
        MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &f),
        MPI_SUCCESS);
    ck_assert_uint_eq(tm_mpi_type_pack(m, 1, lookup(f), 0, 24, out), 24);
    ck_assert_int_eq(out[0], 9);
    ck_assert_int_eq(out[1], 10);
    ck_assert_int_eq(out[2], 13);
    ck_assert_int_eq(out[5], 18);
    check_shape(f, 24, 0, 96, 36, 40);
    ck_assert_int_eq(MPI_Type_free(&c), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&f), MPI_SUCCESS);
}
END_TEST

/* A 4x6 int array over a 2x2 grid, rows in blocks, columns cyclic(2): process 1 (grid
 * coordinates (0, 1)) owns rows 0-1 and columns 2-3, in C and in Fortran order. */
START_TEST(test_darray)
{
    const int gsizes[] = {4, 6}, distribs[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
              dargs[] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[] = {2, 2};
    int ints[12], m[24], out[4];
    MPI_Datatype c, f, types[1];

    ck_assert_int_eq(
        MPI_Type_create_darray(4, 1, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &c),
        MPI_SUCCESS);
    check_shape(c, 16, 0, 96, 8, 32);
    check_envelope(c, 12, 0, 1, MPI_COMBINER_DARRAY);
    ck_assert_int_eq(MPI_Type_get_contents(c, 12, 0, 1, ints, NULL, types), MPI_SUCCESS);
    ck_assert_int_eq(ints[0], 4);
    ck_assert_int_eq(ints[1], 1);
    ck_assert_int_eq(ints[2], 2);
    ck_assert_int_eq(ints[4], 6);
    ck_assert_int_eq(ints[6], MPI_DISTRIBUTE_CYCLIC);
    ck_assert_int_eq(ints[7], MPI_DISTRIBUTE_DFLT_DARG);
    ck_assert_int_eq(ints[8], 2);
    ck_assert_int_eq(ints[10], 2);
    ck_assert_int_eq(ints[11], MPI_ORDER_C);
    ck_assert_int_eq(types[0], MPI_INT);
    for (int i = 0; i < 24; i++)
        m[i] = i;
    ck_assert_uint_eq(tm_mpi_type_pack(m, 1, lookup(c), 0, 16, out), 16);
    ck_assert_int_eq(out[0], 2);
    ck_assert_int_eq(out[1], 3);
    ck_assert_int_eq(out[2], 8);
    ck_assert_int_eq(out[3], 9);
    check_pack_round_trip(c, 2);
    /* Fortran order: element (i, j) at i + 4 j, the first index fastest */
    ck_assert_int_eq(MPI_Type_create_darray(4, 1, 2, gsizes, distribs, dargs, psizes,
                                            MPI_ORDER_FORTRAN, MPI_INT, &f),
                     MPI_SUCCESS);
    check_shape(f, 16, 0, 96, 32, 24);
    ck_assert_uint_eq(tm_mpi_type_pack(m, 1, lookup(f), 0, 16, out), 16);
    ck_assert_int_eq(out[0], 8);
    ck_assert_int_eq(out[1], 9);
    ck_assert_int_eq(out[2], 12);
    ck_assert_int_eq(out[3], 13);
    ck_assert_int_eq(MPI_Type_free(&c), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&f), MPI_SUCCESS);
}
END_TEST

/* MPI_Type_create_darray's argument errors under MPI_ERRORS_RETURN. */
START_TEST(test_darray_errors)
{
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, O = MPI_DISTRIBUTE_NONE,
              D = MPI_DISTRIBUTE_DFLT_DARG;
    const int g[] = {8, 8}, p[] = {2, 2}, p1[] = {1, 4}, bc[] = {B, C}, oc[] = {O, C},
              bad[] = {B, 99}, d[] = {D, D}, d2[] = {3, 1}, dneg[] = {D, -2}, dzero[] = {2, 0};
    MPI_Datatype t = MPI_DATATYPE_NULL;

    errors_return();
    ck_assert_int_eq(MPI_Type_create_darray(0, 0, 2, g, bc, d, p, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_darray(4, 4, 2, g, bc, d, p, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_darray(4, -1, 2, g, bc, d, p, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_darray(4, 0, 0, g, bc, d, p, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    /* the grid must have size processes */
    ck_assert_int_eq(MPI_Type_create_darray(5, 0, 2, g, bc, d, p, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, bad, d, p, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    /* MPI_DISTRIBUTE_NONE over more than one process */
    ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, oc, d, p, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, oc, d, p1, MPI_ORDER_C, MPI_INT, &t),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
    /* blocks of 3 on 2 processes cannot hold 8 elements */
    ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, bc, d2, p, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, bc, dneg, p, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, bc, dzero, p, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, bc, d, p, 99, MPI_INT, &t), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, NULL, bc, d, p, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_darray(4, 0, 2, g, bc, d, p, MPI_ORDER_C, MPI_INT, NULL),
                     MPI_ERR_ARG);
    ck_assert_int_eq(
        MPI_Type_create_darray(4, 0, 2, g, bc, d, p, MPI_ORDER_C, MPI_DATATYPE_NULL, &t),
        MPI_ERR_TYPE);
    ck_assert_int_eq(t, MPI_DATATYPE_NULL);
}
END_TEST

/* contiguous(2, vector(2, 1, 2, INT)): blocks 0, 8, 12, 20 of 4 bytes; 8 and 12 merge. */
START_TEST(test_nested_flattening)
{
    MPI_Datatype v, c, s;
    const MPI_Aint disps[] = {0, 8, 20};
    const size_t lens[] = {4, 8, 4};
    const int bl[] = {1, 1};
    const MPI_Aint di[] = {0, 100};
    MPI_Datatype ty[2];

    ck_assert_int_eq(MPI_Type_vector(2, 1, 2, MPI_INT, &v), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_contiguous(2, v, &c), MPI_SUCCESS);
    check_shape(c, 16, 0, 24, 0, 24);
    check_blocks(c, 3, disps, lens);
    ck_assert_uint_eq(lookup(c)->elements, 4);
    /* a struct of the two: segments shifted by 100 */
    ty[0] = c;
    ty[1] = v;
    ck_assert_int_eq(MPI_Type_create_struct(2, bl, di, ty, &s), MPI_SUCCESS);
    check_shape(s, 24, 0, 112, 0, 112);
    ck_assert_uint_eq(lookup(s)->nblocks, 5);
    ck_assert_int_eq(lookup(s)->blocks[3].disp, 100);
    ck_assert_int_eq(lookup(s)->blocks[4].disp, 108);
    check_pack_round_trip(s, 2);
    ck_assert_int_eq(MPI_Type_free(&v), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&c), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&s), MPI_SUCCESS);
}
END_TEST

/* A huge count of a contiguous type stays one segment (no expansion). */
START_TEST(test_huge_contiguous)
{
    MPI_Datatype c, cc;

    ck_assert_int_eq(MPI_Type_contiguous(1 << 30, MPI_INT, &c), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_contiguous(1 << 30, c, &cc), MPI_SUCCESS);
    ck_assert_uint_eq(lookup(cc)->nsegs, 1);
    ck_assert_uint_eq(lookup(cc)->size, (size_t)4 << 60);
    ck_assert(lookup(cc)->contiguous);
    ck_assert_int_eq(MPI_Type_free(&c), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&cc), MPI_SUCCESS);
}
END_TEST

/* Long regular types keep one period and levels: a vector of INT_MAX / 2 ints is one segment
 * repeated; a contiguous run of it one level more; five nested repetitions flatten the innermost
 * into the period; a short vector and a dense one stay flat. */
START_TEST(test_repeat_levels)
{
    MPI_Datatype v, c, h[5], s, d;

    ck_assert_int_eq(MPI_Type_vector(INT_MAX / 2, 1, 2, MPI_INT, &v), MPI_SUCCESS);
    ck_assert_uint_eq(lookup(v)->nsegs, 1);
    ck_assert_uint_eq(lookup(v)->nlevels, 1);
    ck_assert_uint_eq(lookup(v)->levels[0].n, INT_MAX / 2);
    ck_assert_int_eq(lookup(v)->levels[0].stride, 8);
    ck_assert_uint_eq(lookup(v)->size, (size_t)(INT_MAX / 2) * 4);
    ck_assert_uint_eq(lookup(v)->elements, INT_MAX / 2);
    ck_assert_int_eq(lookup(v)->extent, (MPI_Aint)(INT_MAX / 2 - 1) * 8 + 4);
    ck_assert_int_eq(lookup(v)->true_ub, (MPI_Aint)(INT_MAX / 2 - 1) * 8 + 4);
    ck_assert(!lookup(v)->contiguous);
    ck_assert_int_eq(MPI_Type_contiguous(3, v, &c), MPI_SUCCESS);
    ck_assert_uint_eq(lookup(c)->nlevels, 2);
    ck_assert_int_eq(lookup(c)->levels[1].stride, lookup(v)->extent);
    ck_assert_uint_eq(lookup(c)->periods, (size_t)(INT_MAX / 2) * 3);
    ck_assert_uint_eq(lookup(c)->size, (size_t)(INT_MAX / 2) * 12);
    ck_assert_int_eq(MPI_Type_vector(5000, 1, 2, MPI_DOUBLE, &h[0]), MPI_SUCCESS);
    for (int i = 1; i < 5; i++)
        ck_assert_int_eq(
            MPI_Type_create_hvector(2, 1, lookup(h[i - 1])->extent + 8, h[i - 1], &h[i]),
            MPI_SUCCESS);
    ck_assert_uint_eq(lookup(h[3])->nlevels, 4);
    ck_assert_uint_eq(lookup(h[4])->nlevels, 4);
    ck_assert_uint_eq(lookup(h[4])->nsegs, 5000);
    ck_assert_uint_eq(lookup(h[4])->periods, 16);
    ck_assert_uint_eq(lookup(h[4])->size, 16 * 5000 * 8);
    ck_assert_int_eq(MPI_Type_vector(TM_MPI_TYPE_FLAT_SEGS, 1, 2, MPI_INT, &s), MPI_SUCCESS);
    ck_assert_uint_eq(lookup(s)->nlevels, 0);
    ck_assert_uint_eq(lookup(s)->nsegs, TM_MPI_TYPE_FLAT_SEGS);
    ck_assert_int_eq(MPI_Type_vector(1 << 20, 2, 2, MPI_INT, &d), MPI_SUCCESS);
    ck_assert_uint_eq(lookup(d)->nlevels, 0);
    ck_assert(lookup(d)->contiguous);
    ck_assert_int_eq(MPI_Type_free(&v), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&c), MPI_SUCCESS);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(MPI_Type_free(&h[i]), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&s), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&d), MPI_SUCCESS);
}
END_TEST

/* ------------------------------------------------------------------ the copy engine */

START_TEST(test_copy_vector_contiguous)
{
    MPI_Datatype v;
    int src[40], dst[16], back[40];
    tm_mpi_type_t *tv, *ti = lookup(MPI_INT);

    for (int i = 0; i < 40; i++)
        src[i] = i;
    ck_assert_int_eq(MPI_Type_vector(4, 2, 3, MPI_INT, &v), MPI_SUCCESS);
    tv = lookup(v); /* extent 44 bytes: 11 ints */
    memset(dst, 0xff, sizeof(dst));
    ck_assert_uint_eq(tm_mpi_type_copy(dst, 16, ti, src, 2, tv, 0, SIZE_MAX), 64);
    for (int e = 0, k = 0; e < 2; e++)
        for (int b = 0; b < 4; b++)
            for (int j = 0; j < 2; j++)
                ck_assert_int_eq(dst[k++], e * 11 + b * 3 + j);
    memset(back, 0, sizeof(back));
    ck_assert_uint_eq(tm_mpi_type_copy(back, 2, tv, dst, 16, ti, 0, SIZE_MAX), 64);
    for (int i = 0; i < 40; i++)
        ck_assert_int_eq(back[i], i >= 22 || i % 11 % 3 == 2 ? 0 : i);
    /* the shorter stream bounds the copy */
    ck_assert_uint_eq(tm_mpi_type_copy(dst, 3, ti, src, 2, tv, 0, SIZE_MAX), 12);
    ck_assert_uint_eq(tm_mpi_type_copy(dst, 3, ti, src, 2, tv, 12, SIZE_MAX), 0);
    ck_assert_int_eq(MPI_Type_free(&v), MPI_SUCCESS);
}
END_TEST

/* struct {int a; int pad; int b[2]} <-> indexed {1 at 4, 2 at 0}: same signature, 3 ints. */
START_TEST(test_copy_struct_indexed)
{
    MPI_Datatype s, x;
    const int sbl[] = {1, 2};
    const MPI_Aint sdi[] = {0, 8};
    const MPI_Datatype sty[] = {MPI_INT, MPI_INT};
    const int xbl[] = {1, 2};
    const int xdi[] = {4, 0};
    int src[8] = {10, -1, 11, 12, 20, -1, 21, 22}, dst[12];
    const int want[12] = {11, 12, 0, 0, 10, 0, 21, 22, 0, 0, 20, 0};

    ck_assert_int_eq(MPI_Type_create_struct(2, sbl, sdi, sty, &s), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_indexed(2, xbl, xdi, MPI_INT, &x), MPI_SUCCESS);
    check_shape(x, 12, 0, 20, 0, 20);
    /* x has extent 5 ints; element e at dst + 6 e needs a resize to 6 ints */
    {
        MPI_Datatype xr;

        ck_assert_int_eq(MPI_Type_create_resized(x, 0, 24, &xr), MPI_SUCCESS);
        memset(dst, 0, sizeof(dst));
        ck_assert_uint_eq(tm_mpi_type_copy(dst, 2, lookup(xr), src, 2, lookup(s), 0, SIZE_MAX), 24);
        ck_assert_mem_eq(dst, want, sizeof(want));
        ck_assert_int_eq(MPI_Type_free(&xr), MPI_SUCCESS);
    }
    ck_assert_int_eq(MPI_Type_free(&s), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&x), MPI_SUCCESS);
}
END_TEST

/* Copying in chunks of any size, from any split point, gives the whole copy. */
START_TEST(test_copy_split)
{
    MPI_Datatype a, b;
    const int bl[] = {3, 1, 2};
    const int di[] = {5, 0, 9};
    unsigned char src[1024], whole[1024], parts[1024];
    tm_mpi_type_t *ta, *tb;
    size_t total;

    ck_assert_int_eq(MPI_Type_indexed(3, bl, di, MPI_SHORT, &a), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_vector(3, 4, 5, MPI_CHAR, &b), MPI_SUCCESS);
    ta = lookup(a); /* 12 bytes per element, extent 22 */
    tb = lookup(b); /* 12 bytes per element, extent 14 */
    for (size_t i = 0; i < sizeof(src); i++)
        src[i] = (unsigned char)(i * 13 + 5);
    memset(whole, 0, sizeof(whole));
    total = tm_mpi_type_copy(whole, 7, tb, src, 7, ta, 0, SIZE_MAX);
    ck_assert_uint_eq(total, 84);
    for (size_t chunk = 1; chunk <= 30; chunk++) {
        size_t done = 0;

        memset(parts, 0, sizeof(parts));
        while (done < total)
            done += tm_mpi_type_copy(parts, 7, tb, src, 7, ta, done, chunk);
        ck_assert_uint_eq(done, total);
        ck_assert_mem_eq(parts, whole, sizeof(whole));
    }
    /* pack and unpack of byte ranges agree with the whole copy */
    {
        unsigned char packed[84];

        for (size_t off = 0; off < 84; off += 11)
            ck_assert_uint_eq(tm_mpi_type_pack(src, 7, ta, off, 11, packed + off),
                              off + 11 <= 84 ? 11 : 84 - off);
        memset(parts, 0, sizeof(parts));
        for (size_t off = 0; off < 84; off += 5)
            tm_mpi_type_unpack(packed + off, 5, parts, 7, tb, off);
        ck_assert_mem_eq(parts, whole, sizeof(whole));
    }
    ck_assert_int_eq(MPI_Type_free(&a), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&b), MPI_SUCCESS);
}
END_TEST

START_TEST(test_count_elements)
{
    MPI_Datatype s;
    const int bl[] = {1, 2};
    const MPI_Aint di[] = {0, 8};
    const MPI_Datatype ty[] = {MPI_DOUBLE, MPI_SHORT};
    size_t n = 99;

    ck_assert_int_eq(MPI_Type_create_struct(2, bl, di, ty, &s), MPI_SUCCESS);
    /* 12 bytes: double, short, short */
    ck_assert_int_eq(tm_mpi_type_count_elements(lookup(s), 0, &n), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(tm_mpi_type_count_elements(lookup(s), 8, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(tm_mpi_type_count_elements(lookup(s), 10, &n), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(tm_mpi_type_count_elements(lookup(s), 36, &n), 0);
    ck_assert_uint_eq(n, 9);
    ck_assert_int_eq(tm_mpi_type_count_elements(lookup(s), 46, &n), 0);
    ck_assert_uint_eq(n, 11);
    ck_assert_int_eq(tm_mpi_type_count_elements(lookup(s), 5, &n), -ERANGE);
    ck_assert_int_eq(tm_mpi_type_count_elements(lookup(MPI_DOUBLE_INT), 24, &n), 0);
    ck_assert_uint_eq(n, 4);
    ck_assert_int_eq(MPI_Type_free(&s), MPI_SUCCESS);
}
END_TEST

/* A type freed while an operation holds it stays usable until released. */
START_TEST(test_retain_release)
{
    MPI_Datatype v, h;
    tm_mpi_type_t *t, *found;

    ck_assert_int_eq(MPI_Type_vector(4, 1, 2, MPI_INT, &v), MPI_SUCCESS);
    h = v;
    t = lookup(v);
    tm_mpi_type_retain(t);
    ck_assert_int_eq(MPI_Type_free(&v), MPI_SUCCESS);
    ck_assert_int_eq(tm_mpi_type_lookup(h, &found), -EINVAL);
    ck_assert_ptr_null(found);
    /* a new type reusing the slot does not answer to the old handle */
    ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &v), MPI_SUCCESS);
    ck_assert_int_ne(v, h);
    ck_assert_int_eq(tm_mpi_type_lookup(h, &found), -EINVAL);
    ck_assert_int_eq(MPI_Type_free(&v), MPI_SUCCESS);
    tm_mpi_type_release(t);
}
END_TEST

START_TEST(test_retain_keeps_alive)
{
    MPI_Datatype v;
    tm_mpi_type_t *t;
    int src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dst[4];

    ck_assert_int_eq(MPI_Type_vector(4, 1, 2, MPI_INT, &v), MPI_SUCCESS);
    t = lookup(v);
    tm_mpi_type_retain(t);
    ck_assert_int_eq(MPI_Type_free(&v), MPI_SUCCESS);
    ck_assert_uint_eq(tm_mpi_type_pack(src, 1, t, 0, 16, dst), 16);
    ck_assert_int_eq(dst[0], 1);
    ck_assert_int_eq(dst[3], 7);
    tm_mpi_type_release(t);
}
END_TEST

/* Ranks are threads: types made and freed from several threads at once. */
static void *churn(void *arg)
{
    tm_mpi_type_t *c = arg;

    for (int i = 0; i < 2000; i++) {
        tm_mpi_type_t *t = tm_mpi_type_alloc(MPI_COMBINER_CONTIGUOUS), *found;
        tm_mpi_type_piece_t p = {c, (size_t)i % 7, 0, 1, 0};
        MPI_Datatype h;

        if (t == NULL || tm_mpi_type_build(t, &p, 1, 0) != 0 || tm_mpi_type_publish(t, &h) != 0)
            return (void *)1;
        if (tm_mpi_type_lookup(h, &found) != 0 || found != t || found->size != (size_t)i % 7 * 4)
            return (void *)1;
        if (tm_mpi_type_unpublish(h) != 0)
            return (void *)1;
    }
    return NULL;
}

START_TEST(test_threads)
{
    pthread_t th[4];
    void *ret;

    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, churn, lookup(MPI_INT)), 0);
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(pthread_join(th[i], &ret), 0);
        ck_assert_ptr_null(ret);
    }
}
END_TEST

/* ------------------------------------------------------------------ external32 */

START_TEST(test_external32)
{
    unsigned char buf[64];
    MPI_Aint pos = 0, size = -1;
    int i = 0x01020304;
    double d = 1.0;
    long l = -2;
    unsigned long ul = 0x89abcdefUL;
    long double ld = 1.0L, ld2 = 0;
    short sh = 0x0102;
    long l2 = 0;
    const unsigned char want_i[] = {1, 2, 3, 4};
    const unsigned char want_d[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0};
    const unsigned char want_l[] = {0xff, 0xff, 0xff, 0xfe};
    const unsigned char want_ul[] = {0x89, 0xab, 0xcd, 0xef};
    const unsigned char want_ld[16] = {0x3f, 0xff};
    const unsigned char want_sh[] = {1, 2};

    ck_assert_int_eq(MPI_Pack_external("external32", &i, 1, MPI_INT, buf, 64, &pos), MPI_SUCCESS);
    ck_assert_int_eq(pos, 4);
    ck_assert_mem_eq(buf, want_i, 4);
    pos = 0;
    ck_assert_int_eq(MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, buf, 64, &pos),
                     MPI_SUCCESS);
    ck_assert_mem_eq(buf, want_d, 8);
    pos = 0;
    ck_assert_int_eq(MPI_Pack_external("external32", &l, 1, MPI_LONG, buf, 64, &pos), MPI_SUCCESS);
    ck_assert_int_eq(pos, 4);
    ck_assert_mem_eq(buf, want_l, 4);
    pos = 0;
    ck_assert_int_eq(MPI_Unpack_external("external32", buf, 4, &pos, &l2, 1, MPI_LONG),
                     MPI_SUCCESS);
    ck_assert_int_eq(l2, -2);
    pos = 0;
    ck_assert_int_eq(MPI_Pack_external("external32", &ul, 1, MPI_UNSIGNED_LONG, buf, 64, &pos),
                     MPI_SUCCESS);
    ck_assert_mem_eq(buf, want_ul, 4);
    pos = 0;
    ck_assert_int_eq(MPI_Pack_external("external32", &ld, 1, MPI_LONG_DOUBLE, buf, 64, &pos),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, 16);
    ck_assert_mem_eq(buf, want_ld, 16);
    pos = 0;
    ck_assert_int_eq(MPI_Unpack_external("external32", buf, 16, &pos, &ld2, 1, MPI_LONG_DOUBLE),
                     MPI_SUCCESS);
    ck_assert(ld2 == 1.0L);
    pos = 0;
    ck_assert_int_eq(MPI_Pack_external("external32", &sh, 1, MPI_SHORT, buf, 64, &pos),
                     MPI_SUCCESS);
    ck_assert_mem_eq(buf, want_sh, 2);
    ck_assert_int_eq(MPI_Pack_external_size("external32", 3, MPI_LONG_INT, &size), MPI_SUCCESS);
    ck_assert_int_eq(size, 24);
    ck_assert_int_eq(MPI_Pack_external_size("external32", 2, MPI_C_LONG_DOUBLE_COMPLEX, &size),
                     MPI_SUCCESS);
    ck_assert_int_eq(size, 64);
}
END_TEST

/* A derived type round trip: vector of (double, long) structs. */
START_TEST(test_external32_derived)
{
    struct s {
        double d;
        long l;
    } in[6], out[6];
    MPI_Datatype st, v;
    const int bl[] = {1, 1};
    const MPI_Aint di[] = {offsetof(struct s, d), offsetof(struct s, l)};
    const MPI_Datatype ty[] = {MPI_DOUBLE, MPI_LONG};
    unsigned char buf[128];
    MPI_Aint pos = 0, size;
    const unsigned char want[12] = {0x40, 0x00, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xf9};

    for (int k = 0; k < 6; k++)
        in[k] = (struct s){2.0 + k, -7 + k};
    memset(out, 0, sizeof(out));
    ck_assert_int_eq(MPI_Type_create_struct(2, bl, di, ty, &st), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_vector(3, 1, 2, st, &v), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&v), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Pack_external_size("external32", 1, v, &size), MPI_SUCCESS);
    ck_assert_int_eq(size, 36);
    ck_assert_int_eq(MPI_Pack_external("external32", in, 1, v, buf, sizeof(buf), &pos),
                     MPI_SUCCESS);
    ck_assert_int_eq(pos, 36);
    ck_assert_mem_eq(buf, want, 12);
    pos = 0;
    ck_assert_int_eq(MPI_Unpack_external("external32", buf, 36, &pos, out, 1, v), MPI_SUCCESS);
    for (int k = 0; k < 6; k++) {
        ck_assert(out[k].d == (k % 2 ? 0.0 : 2.0 + k));
        ck_assert_int_eq(out[k].l, k % 2 ? 0 : -7 + k);
    }
    ck_assert_int_eq(MPI_Type_free(&st), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&v), MPI_SUCCESS);
}
END_TEST

/* ------------------------------------------------------------------ inquiries */

START_TEST(test_names_addresses)
{
    MPI_Datatype t;
    char name[MPI_MAX_OBJECT_NAME];
    char longname[300];
    int len = -1;
    MPI_Aint a1, a2;
    int arr[4];

    ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &t), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
    ck_assert_int_eq(len, 0);
    ck_assert_int_eq(MPI_Type_set_name(t, "pair"), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
    ck_assert_str_eq(name, "pair");
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    ck_assert_int_eq(MPI_Type_set_name(t, longname), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_get_name(t, name, &len), MPI_SUCCESS);
    ck_assert_int_eq(len, MPI_MAX_OBJECT_NAME - 1);
    ck_assert_int_eq(MPI_Type_free(&t), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Get_address(&arr[1], &a1), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Get_address(&arr[3], &a2), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Aint_diff(a2, a1), 8);
    ck_assert_int_eq(MPI_Aint_add(a1, 8), a2);
    ck_assert_int_eq(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t), MPI_SUCCESS);
    ck_assert_int_eq(t, MPI_DOUBLE);
    ck_assert_int_eq(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 2, &t), MPI_SUCCESS);
    ck_assert_int_eq(t, MPI_SHORT);
    ck_assert_int_eq(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t), MPI_SUCCESS);
    ck_assert_int_eq(t, MPI_C_DOUBLE_COMPLEX);
}
END_TEST

/* ------------------------------------------------------------------ errors */

START_TEST(test_errors_return)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, v, freed;
    const int bl[] = {1, -1};
    const int di[] = {0, 1};
    const MPI_Aint adi[] = {0, 1};
    const MPI_Datatype ty[] = {MPI_INT, MPI_COMM_WORLD};
    int buf[16], pos = 0, size, ints[4];
    MPI_Aint apos = 0;

    errors_return();
    ck_assert_int_eq(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    ck_assert_int_eq(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_contiguous(1, MPI_COMM_WORLD, &t), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_contiguous(1, 12345, &t), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_contiguous(1, MPI_INT, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_vector(1, -2, 1, MPI_INT, &t), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_vector(-1, 2, 1, MPI_INT, &t), MPI_ERR_COUNT);
    ck_assert_int_eq(MPI_Type_create_hvector(1, 1, 8, MPI_REQUEST_NULL, &t), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_indexed(2, bl, di, MPI_INT, &t), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_indexed(2, NULL, di, MPI_INT, &t), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_hindexed(2, bl, adi, MPI_INT, &t), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_indexed_block(2, -1, di, MPI_INT, &t), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_hindexed_block(-3, 1, adi, MPI_INT, &t), MPI_ERR_COUNT);
    ck_assert_int_eq(MPI_Type_create_struct(2, di, adi, ty, &t), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_create_struct(2, bl, adi, ty, &t), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 4, &t), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_dup(MPI_INT, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_subarray(1, di + 1, di + 1, di, 99, MPI_INT, &t), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_subarray(1, di, di + 1, di, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_create_subarray(0, di, di, di, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    ck_assert_int_eq(t, MPI_DATATYPE_NULL);
    /* predefined types cannot be freed; freed ones are gone */
    t = MPI_INT;
    ck_assert_int_eq(MPI_Type_free(&t), MPI_ERR_TYPE);
    ck_assert_int_eq(t, MPI_INT);
    ck_assert_int_eq(MPI_Type_commit(NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &v), MPI_SUCCESS);
    freed = v;
    ck_assert_int_eq(MPI_Type_free(&v), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_free(&freed), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_size(freed, &size), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_commit(&freed), MPI_ERR_TYPE);
    /* uncommitted types cannot carry data */
    ck_assert_int_eq(MPI_Type_contiguous(2, MPI_INT, &v), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Pack(buf, 1, v, buf + 8, 32, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Pack_size(1, v, MPI_COMM_WORLD, &size), MPI_ERR_TYPE);
    ck_assert_int_eq(MPI_Type_commit(&v), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Pack(buf, 1, v, buf + 8, 32, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    ck_assert_int_eq(pos, 8);
    /* overflow and underflow of the packed buffer */
    ck_assert_int_eq(MPI_Pack(buf, 4, v, buf + 8, 32, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    ck_assert_int_eq(pos, 8);
    pos = 0;
    ck_assert_int_eq(MPI_Unpack(buf + 8, 12, &pos, buf, 2, v, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    ck_assert_int_eq(MPI_Pack(buf, -1, v, buf + 8, 32, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
    ck_assert_int_eq(MPI_Pack(buf, 1, v, buf + 8, 32, NULL, MPI_COMM_WORLD), MPI_ERR_ARG);
    pos = 40;
    ck_assert_int_eq(MPI_Pack(buf, 1, v, buf + 8, 32, &pos, MPI_COMM_WORLD), MPI_ERR_ARG);
    pos = 0;
    ck_assert_int_eq(MPI_Pack(buf, 1, v, buf + 8, 32, &pos, MPI_COMM_NULL), MPI_ERR_COMM);
    ck_assert_int_eq(MPI_Pack_external("native", buf, 1, v, buf + 8, 32, &apos), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Pack_external("external32", buf, 3, MPI_DOUBLE, buf + 8, 16, &apos),
                     MPI_ERR_TRUNCATE);
    ck_assert_int_eq(MPI_Unpack_external("external32", buf, 4, &apos, buf + 8, 2, MPI_INT),
                     MPI_ERR_TRUNCATE);
    /* contents of a predefined type, too small arrays */
    ck_assert_int_eq(MPI_Type_get_contents(MPI_INT, 4, 4, 4, ints, NULL, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_get_contents(v, 0, 0, 1, ints, NULL, &t), MPI_ERR_ARG);
    /* a predefined type takes the rank's own name */
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    ck_assert_int_eq(MPI_Type_set_name(MPI_INT, "x"), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_get_name(MPI_INT, name, &len), MPI_SUCCESS);
    ck_assert_str_eq(name, "x");
    ck_assert_int_eq(len, 1);
    ck_assert_int_eq(MPI_Type_get_name(MPI_FLOAT, name, &len), MPI_SUCCESS);
    ck_assert_str_eq(name, "MPI_FLOAT");
    ck_assert_int_eq(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_match_size(99, 4, &t), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_get_extent(MPI_INT, NULL, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Type_free(&v), MPI_SUCCESS);
}
END_TEST

/* Pack errors go to the communicator's handler, type calls' to MPI_COMM_WORLD's. */
START_TEST(test_errors_handler_choice)
{
    tm_mpi_rank_t *r = fake_rt_rank.mpi;
    int buf[4], pos = 0;

    r->self.errhandler = MPI_ERRORS_RETURN;
    ck_assert_int_eq(MPI_Pack(buf, 4, MPI_INT, buf, 8, &pos, MPI_COMM_SELF), MPI_ERR_TRUNCATE);
    fake_rt_expect_abort(1, "MPI_Pack (rank 1): 16 bytes to pack at position 0 do not fit in 8 "
                            "bytes (MPI_ERR_TRUNCATE)\n");
    MPI_Pack(buf, 4, MPI_INT, buf, 8, &pos, MPI_COMM_WORLD);
}
END_TEST

START_TEST(test_error_free_predefined)
{
    MPI_Datatype t = MPI_DOUBLE;

    fake_rt_expect_abort(1, "MPI_Type_free (rank 1): MPI_DOUBLE is predefined and cannot be freed "
                            "(MPI_ERR_TYPE)\n");
    MPI_Type_free(&t);
}
END_TEST

START_TEST(test_error_bad_type)
{
    MPI_Datatype t;

    fake_rt_expect_abort(1, "MPI_Type_vector (rank 1): invalid datatype 0x44000001: the handle of "
                            "a communicator (MPI_ERR_TYPE)\n");
    MPI_Type_vector(1, 1, 1, MPI_COMM_WORLD, &t);
}
END_TEST

START_TEST(test_error_uncommitted)
{
    MPI_Datatype t;
    int buf[4], pos = 0;
    char want[200];

    ck_assert_int_eq(MPI_Type_contiguous(1, MPI_INT, &t), MPI_SUCCESS);
    snprintf(want, sizeof(want),
             "MPI_Unpack (rank 1): datatype 0x%08x is not committed (MPI_ERR_TYPE)\n", (unsigned)t);
    fake_rt_expect_abort(1, want);
    MPI_Unpack(buf, 16, &pos, buf, 1, t, MPI_COMM_WORLD);
}
END_TEST

START_TEST(test_error_count)
{
    MPI_Datatype t;

    fake_rt_expect_abort(1, "MPI_Type_contiguous (rank 1): count -5 is negative "
                            "(MPI_ERR_COUNT)\n");
    MPI_Type_contiguous(-5, MPI_INT, &t);
}
END_TEST

START_TEST(test_error_darray)
{
    const int g[] = {8}, dist[] = {MPI_DISTRIBUTE_BLOCK}, darg[] = {3}, p[] = {2};
    MPI_Datatype t;

    fake_rt_expect_abort(1, "MPI_Type_create_darray (rank 1): dimension 0: 2 blocks of 3 cannot "
                            "hold 8 elements (MPI_ERR_ARG)\n");
    MPI_Type_create_darray(2, 0, 1, g, dist, darg, p, MPI_ORDER_C, MPI_INT, &t);
}
END_TEST

static Suite *datatype_suite(void)
{
    Suite *s = suite_create("mpi_datatype");
    TCase *tc = tcase_create("types");
    TCase *tc_engine = tcase_create("engine");
    TCase *tc_err = tcase_create("errors");

    tcase_add_checked_fixture(tc, setup_rank1, NULL);
    tcase_add_test(tc, test_predefined);
    tcase_add_test(tc, test_contiguous);
    tcase_add_test(tc, test_vector);
    tcase_add_test(tc, test_hvector);
    tcase_add_test(tc, test_indexed);
    tcase_add_test(tc, test_hindexed);
    tcase_add_test(tc, test_indexed_block);
    tcase_add_test(tc, test_struct);
    tcase_add_test(tc, test_struct_markers);
    tcase_add_test(tc, test_resized_dup);
    tcase_add_test(tc, test_subarray);
    tcase_add_test(tc, test_darray);
    tcase_add_test(tc, test_darray_errors);
    tcase_add_test(tc, test_nested_flattening);
    tcase_add_test(tc, test_huge_contiguous);
    tcase_add_test(tc, test_repeat_levels);
    tcase_add_test(tc, test_external32);
    tcase_add_test(tc, test_external32_derived);
    tcase_add_test(tc, test_names_addresses);
    suite_add_tcase(s, tc);

    tcase_add_checked_fixture(tc_engine, setup_rank1, NULL);
    tcase_add_test(tc_engine, test_copy_vector_contiguous);
    tcase_add_test(tc_engine, test_copy_struct_indexed);
    tcase_add_test(tc_engine, test_copy_split);
    tcase_add_test(tc_engine, test_count_elements);
    tcase_add_test(tc_engine, test_retain_release);
    tcase_add_test(tc_engine, test_retain_keeps_alive);
    tcase_add_test(tc_engine, test_threads);
    suite_add_tcase(s, tc_engine);

    tcase_add_checked_fixture(tc_err, setup_rank1, NULL);
    tcase_add_test(tc_err, test_errors_return);
    tcase_add_exit_test(tc_err, test_errors_handler_choice, MPI_ERR_TRUNCATE);
    tcase_add_exit_test(tc_err, test_error_free_predefined, MPI_ERR_TYPE);
    tcase_add_exit_test(tc_err, test_error_bad_type, MPI_ERR_TYPE);
    tcase_add_exit_test(tc_err, test_error_uncommitted, MPI_ERR_TYPE);
    tcase_add_exit_test(tc_err, test_error_count, MPI_ERR_COUNT);
    tcase_add_exit_test(tc_err, test_error_darray, MPI_ERR_ARG);
    suite_add_tcase(s, tc_err);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(datatype_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
