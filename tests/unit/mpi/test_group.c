/* Unit tests of mpi/: groups (group algebra against hand-computed results, argument checks),
 * communicator comparisons and names, MPI_Dims_create. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "obj/group.h"
#include "tests/unit/fake_rt.h"

/* Rank 3 of 8, initialized. */
static void setup_rank3(void)
{
    fake_rt_setup(3, 8);
    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
}

static void errors_return(void)
{
    tm_mpi_rank_t *r = fake_rt_rank.mpi;

    r->world.errhandler = MPI_ERRORS_RETURN;
    r->self.errhandler = MPI_ERRORS_RETURN;
}

/* Checks that group g has exactly the world ranks of `expected` (n of them), in order. */
static void check_members(MPI_Group g, int n, const int *expected)
{
    MPI_Group world;
    int size = -1, in[64], out[64];

    ck_assert_int_le(n, 64);
    ck_assert_int_eq(MPI_Group_size(g, &size), MPI_SUCCESS);
    ck_assert_int_eq(size, n);
    ck_assert_int_eq(MPI_Comm_group(MPI_COMM_WORLD, &world), MPI_SUCCESS);
    for (int i = 0; i < n; i++)
        in[i] = i;
    ck_assert_int_eq(MPI_Group_translate_ranks(g, n, in, world, out), MPI_SUCCESS);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(out[i], expected[i]);
    ck_assert_int_eq(MPI_Group_free(&world), MPI_SUCCESS);
}

START_TEST(test_group_world_self)
{
    MPI_Group world, self;
    int size = -1, rank = -1;

    ck_assert_int_eq(MPI_Comm_group(MPI_COMM_WORLD, &world), MPI_SUCCESS);
    ck_assert_int_eq(tm_mpi_handle_kind(world), TM_MPI_KIND_GROUP);
    ck_assert_int_ne(world, MPI_GROUP_EMPTY);
    ck_assert_int_eq(MPI_Group_size(world, &size), MPI_SUCCESS);
    ck_assert_int_eq(size, 8);
    ck_assert_int_eq(MPI_Group_rank(world, &rank), MPI_SUCCESS);
    ck_assert_int_eq(rank, 3);
    check_members(world, 8, (const int[]){0, 1, 2, 3, 4, 5, 6, 7});
    ck_assert_int_eq(MPI_Comm_group(MPI_COMM_SELF, &self), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_size(self, &size), MPI_SUCCESS);
    ck_assert_int_eq(size, 1);
    ck_assert_int_eq(MPI_Group_rank(self, &rank), MPI_SUCCESS);
    ck_assert_int_eq(rank, 0);
    check_members(self, 1, (const int[]){3});
    ck_assert_int_eq(MPI_Group_free(&world), MPI_SUCCESS);
    ck_assert_int_eq(world, MPI_GROUP_NULL);
    ck_assert_int_eq(MPI_Group_free(&self), MPI_SUCCESS);
    ck_assert_int_eq(self, MPI_GROUP_NULL);
}
END_TEST

START_TEST(test_group_empty)
{
    MPI_Group g = MPI_GROUP_EMPTY;
    int size = -1, rank = -1;

    ck_assert_int_eq(MPI_Group_size(MPI_GROUP_EMPTY, &size), MPI_SUCCESS);
    ck_assert_int_eq(size, 0);
    ck_assert_int_eq(MPI_Group_rank(MPI_GROUP_EMPTY, &rank), MPI_SUCCESS);
    ck_assert_int_eq(rank, MPI_UNDEFINED);
    ck_assert_int_eq(MPI_Group_free(&g), MPI_SUCCESS);
    ck_assert_int_eq(g, MPI_GROUP_NULL);
    /* Still usable: the empty group is predefined. */
    ck_assert_int_eq(MPI_Group_size(MPI_GROUP_EMPTY, &size), MPI_SUCCESS);
}
END_TEST

/* The ranks share one world group; each has its own self group. */
START_TEST(test_group_world_shared)
{
    tm_rt_rank_t mine = fake_rt_rank, other;
    tm_mpi_rank_t *r3 = mine.mpi, *r5;

    fake_rt_setup(5, 8);
    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    other = fake_rt_rank;
    r5 = other.mpi;
    ck_assert_ptr_eq(r3->world.group, r5->world.group);
    ck_assert_ptr_ne(r3->self.group, r5->self.group);
    ck_assert_int_eq(tm_mpi_group_world_rank(r5->self.group, 0), 5);
    ck_assert_int_eq(tm_mpi_group_world_rank(r3->self.group, 0), 3);
    ck_assert_int_eq(tm_mpi_group_world_rank(r3->world.group, 6), 6);
    ck_assert_int_eq(tm_mpi_group_rank_of(r3->world.group, 6), 6);
    ck_assert_int_eq(tm_mpi_group_rank_of(r5->self.group, 3), MPI_UNDEFINED);
    ck_assert_int_eq(MPI_Finalize(), MPI_SUCCESS);
    fake_rt_rank = mine;
    ck_assert_int_eq(MPI_Finalize(), MPI_SUCCESS);
}
END_TEST

START_TEST(test_group_incl_excl)
{
    MPI_Group world, a, b;
    int rank = -1;

    ck_assert_int_eq(MPI_Comm_group(MPI_COMM_WORLD, &world), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_incl(world, 3, (const int[]){5, 1, 3}, &a), MPI_SUCCESS);
    check_members(a, 3, (const int[]){5, 1, 3});
    ck_assert_int_eq(MPI_Group_rank(a, &rank), MPI_SUCCESS);
    ck_assert_int_eq(rank, 2);
    /* Ranks of a, not of the world. */
    ck_assert_int_eq(MPI_Group_incl(a, 2, (const int[]){2, 0}, &b), MPI_SUCCESS);
    check_members(b, 2, (const int[]){3, 5});
    ck_assert_int_eq(MPI_Group_free(&b), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_excl(world, 2, (const int[]){2, 0}, &b), MPI_SUCCESS);
    check_members(b, 6, (const int[]){1, 3, 4, 5, 6, 7});
    ck_assert_int_eq(MPI_Group_free(&b), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_excl(a, 1, (const int[]){2}, &b), MPI_SUCCESS);
    check_members(b, 2, (const int[]){5, 1});
    ck_assert_int_eq(MPI_Group_rank(b, &rank), MPI_SUCCESS);
    ck_assert_int_eq(rank, MPI_UNDEFINED);
    ck_assert_int_eq(MPI_Group_free(&b), MPI_SUCCESS);
    /* Empty results are MPI_GROUP_EMPTY. */
    ck_assert_int_eq(MPI_Group_incl(world, 0, NULL, &b), MPI_SUCCESS);
    ck_assert_int_eq(b, MPI_GROUP_EMPTY);
    ck_assert_int_eq(MPI_Group_excl(a, 3, (const int[]){0, 1, 2}, &b), MPI_SUCCESS);
    ck_assert_int_eq(b, MPI_GROUP_EMPTY);
    /* Excluding nothing is the same group. */
    ck_assert_int_eq(MPI_Group_excl(a, 0, NULL, &b), MPI_SUCCESS);
    check_members(b, 3, (const int[]){5, 1, 3});
    ck_assert_int_eq(MPI_Group_free(&b), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_free(&a), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_free(&world), MPI_SUCCESS);
}
END_TEST

START_TEST(test_group_ranges)
{
    MPI_Group world, g;
    int r1[][3] = {{0, 6, 3}, {7, 5, -2}};
    int r2[][3] = {{1, 7, 2}};
    int r3[][3] = {{6, 6, 1}, {2, 0, -1}};
    int r4[][3] = {{7, 0, -3}};

    ck_assert_int_eq(MPI_Comm_group(MPI_COMM_WORLD, &world), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_range_incl(world, 2, r1, &g), MPI_SUCCESS);
    check_members(g, 5, (const int[]){0, 3, 6, 7, 5});
    ck_assert_int_eq(MPI_Group_free(&g), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_range_incl(world, 2, r3, &g), MPI_SUCCESS);
    check_members(g, 4, (const int[]){6, 2, 1, 0});
    ck_assert_int_eq(MPI_Group_free(&g), MPI_SUCCESS);
    /* The stride need not land on last. */
    ck_assert_int_eq(MPI_Group_range_incl(world, 1, r4, &g), MPI_SUCCESS);
    check_members(g, 3, (const int[]){7, 4, 1});
    ck_assert_int_eq(MPI_Group_free(&g), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_range_excl(world, 1, r2, &g), MPI_SUCCESS);
    check_members(g, 4, (const int[]){0, 2, 4, 6});
    ck_assert_int_eq(MPI_Group_free(&g), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_range_excl(world, 2, r1, &g), MPI_SUCCESS);
    check_members(g, 3, (const int[]){1, 2, 4});
    ck_assert_int_eq(MPI_Group_free(&g), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_range_incl(world, 0, NULL, &g), MPI_SUCCESS);
    ck_assert_int_eq(g, MPI_GROUP_EMPTY);
    ck_assert_int_eq(MPI_Group_free(&world), MPI_SUCCESS);
}
END_TEST

START_TEST(test_group_set_ops)
{
    MPI_Group world, a, b, g;

    ck_assert_int_eq(MPI_Comm_group(MPI_COMM_WORLD, &world), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_incl(world, 3, (const int[]){5, 1, 3}, &a), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_incl(world, 4, (const int[]){3, 0, 5, 7}, &b), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_union(a, b, &g), MPI_SUCCESS);
    check_members(g, 5, (const int[]){5, 1, 3, 0, 7});
    ck_assert_int_eq(MPI_Group_free(&g), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_union(b, a, &g), MPI_SUCCESS);
    check_members(g, 5, (const int[]){3, 0, 5, 7, 1});
    ck_assert_int_eq(MPI_Group_free(&g), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_intersection(a, b, &g), MPI_SUCCESS);
    check_members(g, 2, (const int[]){5, 3});
    ck_assert_int_eq(MPI_Group_free(&g), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_intersection(b, a, &g), MPI_SUCCESS);
    check_members(g, 2, (const int[]){3, 5});
    ck_assert_int_eq(MPI_Group_free(&g), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_difference(a, b, &g), MPI_SUCCESS);
    check_members(g, 1, (const int[]){1});
    ck_assert_int_eq(MPI_Group_free(&g), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_difference(b, a, &g), MPI_SUCCESS);
    check_members(g, 2, (const int[]){0, 7});
    ck_assert_int_eq(MPI_Group_free(&g), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_difference(a, world, &g), MPI_SUCCESS);
    ck_assert_int_eq(g, MPI_GROUP_EMPTY);
    ck_assert_int_eq(MPI_Group_intersection(a, MPI_GROUP_EMPTY, &g), MPI_SUCCESS);
    ck_assert_int_eq(g, MPI_GROUP_EMPTY);
    ck_assert_int_eq(MPI_Group_union(MPI_GROUP_EMPTY, a, &g), MPI_SUCCESS);
    check_members(g, 3, (const int[]){5, 1, 3});
    ck_assert_int_eq(MPI_Group_free(&g), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_union(a, world, &g), MPI_SUCCESS);
    check_members(g, 8, (const int[]){5, 1, 3, 0, 2, 4, 6, 7});
    ck_assert_int_eq(MPI_Group_free(&g), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_free(&a), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_free(&b), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_free(&world), MPI_SUCCESS);
}
END_TEST

START_TEST(test_group_translate_compare)
{
    MPI_Group world, a, b, c, self;
    int out[5] = {-7, -7, -7, -7, -7}, result = -1;

    ck_assert_int_eq(MPI_Comm_group(MPI_COMM_WORLD, &world), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_incl(world, 3, (const int[]){5, 1, 3}, &a), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_incl(world, 4, (const int[]){3, 0, 5, 7}, &b), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_incl(world, 3, (const int[]){1, 3, 5}, &c), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_translate_ranks(a, 4, (const int[]){0, 1, 2, MPI_PROC_NULL}, b, out),
                     MPI_SUCCESS);
    ck_assert_int_eq(out[0], 2);
    ck_assert_int_eq(out[1], MPI_UNDEFINED);
    ck_assert_int_eq(out[2], 0);
    ck_assert_int_eq(out[3], MPI_PROC_NULL);
    ck_assert_int_eq(out[4], -7);
    ck_assert_int_eq(MPI_Group_translate_ranks(a, 0, NULL, b, NULL), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_translate_ranks(world, 2, (const int[]){3, 4}, MPI_GROUP_EMPTY, out),
                     MPI_SUCCESS);
    ck_assert_int_eq(out[0], MPI_UNDEFINED);
    ck_assert_int_eq(out[1], MPI_UNDEFINED);

    ck_assert_int_eq(MPI_Group_compare(a, a, &result), MPI_SUCCESS);
    ck_assert_int_eq(result, MPI_IDENT);
    ck_assert_int_eq(MPI_Group_compare(a, c, &result), MPI_SUCCESS);
    ck_assert_int_eq(result, MPI_SIMILAR);
    ck_assert_int_eq(MPI_Group_compare(a, b, &result), MPI_SUCCESS);
    ck_assert_int_eq(result, MPI_UNEQUAL);
    ck_assert_int_eq(MPI_Group_compare(a, MPI_GROUP_EMPTY, &result), MPI_SUCCESS);
    ck_assert_int_eq(result, MPI_UNEQUAL);
    /* Two handles, one membership. */
    ck_assert_int_eq(MPI_Comm_group(MPI_COMM_SELF, &self), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_free(&c), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_incl(world, 1, (const int[]){3}, &c), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_compare(self, c, &result), MPI_SUCCESS);
    ck_assert_int_eq(result, MPI_IDENT);
    ck_assert_int_eq(MPI_Group_free(&c), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_range_incl(world, 1, (int[][3]){{7, 0, -1}}, &c), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_compare(world, c, &result), MPI_SUCCESS);
    ck_assert_int_eq(result, MPI_SIMILAR);
    ck_assert_int_eq(MPI_Group_free(&c), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_free(&self), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_free(&a), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_free(&b), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_free(&world), MPI_SUCCESS);
}
END_TEST

/* Handles are reused once freed; a freed handle is invalid; the group outlives the handle. */
START_TEST(test_group_handles)
{
    tm_mpi_rank_t *r = fake_rt_rank.mpi;
    MPI_Group g[100], h, old;
    int size;

    errors_return();
    int world_refs = atomic_load(&r->world.group->refs);
    for (int i = 0; i < 100; i++) {
        ck_assert_int_eq(MPI_Comm_group(i % 2 ? MPI_COMM_WORLD : MPI_COMM_SELF, &g[i]),
                         MPI_SUCCESS);
        for (int j = 0; j < i; j++)
            ck_assert_int_ne(g[i], g[j]);
    }
    /* 50 handles and the communicator hold the rank's self group; the world group, kept for
     * the life of the process, is not counted (every collective would write its line). */
    ck_assert_int_ge(atomic_load(&r->self.group->refs), 51);
    ck_assert(r->world.group->immortal);
    ck_assert_int_eq(atomic_load(&r->world.group->refs), world_refs);
    old = g[50];
    ck_assert_int_eq(MPI_Group_free(&g[50]), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Group_size(old, &size), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_free(&old), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Comm_group(MPI_COMM_SELF, &h), MPI_SUCCESS);
    ck_assert_int_eq(h, old);
    ck_assert_int_eq(MPI_Group_size(h, &size), MPI_SUCCESS);
    ck_assert_int_eq(size, 1);
    for (int i = 0; i < 100; i++)
        if (i != 50)
            ck_assert_int_eq(MPI_Group_free(&g[i]), MPI_SUCCESS);
    /* Left for MPI_Finalize to release (the sanitizers check it does). */
    (void)h;
}
END_TEST

/* Every bad argument, with MPI_ERRORS_RETURN: the class, and nothing written. */
START_TEST(test_group_error_classes)
{
    MPI_Group world, g = MPI_GROUP_NULL;
    int out[2] = {-7, -7}, x = -7;

    errors_return();
    ck_assert_int_eq(MPI_Comm_group(MPI_COMM_WORLD, &world), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_group(MPI_COMM_NULL, &g), MPI_ERR_COMM);
    ck_assert_int_eq(MPI_Comm_group(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_size(MPI_GROUP_NULL, &x), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_size(MPI_INT, &x), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_size(42, &x), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_size(0x48000077, &x), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_size(world, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_rank(MPI_COMM_WORLD, &x), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_rank(world, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_compare(world, MPI_GROUP_NULL, &x), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_compare(world, world, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_translate_ranks(world, 1, (const int[]){8}, world, out),
                     MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_translate_ranks(world, 1, (const int[]){-3}, world, out),
                     MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_translate_ranks(world, -1, out, world, out), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_translate_ranks(world, 1, NULL, world, out), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_translate_ranks(world, 1, (const int[]){0}, world, NULL),
                     MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_translate_ranks(MPI_GROUP_NULL, 0, NULL, world, NULL),
                     MPI_ERR_GROUP);
    ck_assert_int_eq(out[0], -7);
    ck_assert_int_eq(MPI_Group_union(world, MPI_OP_NULL, &g), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_intersection(MPI_GROUP_NULL, world, &g), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_difference(world, world, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_incl(world, 2, (const int[]){1, 1}, &g), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_incl(world, 1, (const int[]){8}, &g), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_incl(world, 1, (const int[]){-1}, &g), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_incl(world, -1, NULL, &g), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_incl(world, 9, (const int[9]){0}, &g), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_incl(world, 1, NULL, &g), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_incl(world, 1, (const int[]){1}, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_excl(world, 2, (const int[]){3, 3}, &g), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_excl(world, 1, (const int[]){9}, &g), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_excl(MPI_GROUP_NULL, 0, NULL, &g), MPI_ERR_GROUP);
    ck_assert_int_eq(MPI_Group_range_incl(world, 1, (int[][3]){{0, 3, 0}}, &g), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_range_incl(world, 1, (int[][3]){{3, 0, 1}}, &g), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_range_incl(world, 1, (int[][3]){{0, 3, -1}}, &g), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_range_incl(world, 1, (int[][3]){{0, 8, 1}}, &g), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_range_incl(world, 1, (int[][3]){{-1, 2, 1}}, &g), MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_range_incl(world, 2, (int[][3]){{0, 4, 2}, {4, 7, 1}}, &g),
                     MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_range_incl(world, -2, (int[][3]){{0, 1, 1}}, &g), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_range_incl(world, 1, NULL, &g), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_range_excl(world, 1, (int[][3]){{0, 7, 0}}, &g), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Group_range_excl(world, 2, (int[][3]){{7, 0, -7}, {0, 0, 1}}, &g),
                     MPI_ERR_RANK);
    ck_assert_int_eq(MPI_Group_free(NULL), MPI_ERR_ARG);
    g = MPI_GROUP_NULL;
    ck_assert_int_eq(MPI_Group_free(&g), MPI_ERR_GROUP);
    ck_assert_int_eq(g, MPI_GROUP_NULL);
    ck_assert_int_eq(x, -7);
    ck_assert_int_eq(MPI_Group_free(&world), MPI_SUCCESS);
}
END_TEST

START_TEST(test_group_null_fatal)
{
    int size;

    fake_rt_expect_abort(3,
                         "MPI_Group_size (rank 3): invalid group MPI_GROUP_NULL (MPI_ERR_GROUP)\n");
    MPI_Group_size(MPI_GROUP_NULL, &size);
}
END_TEST

START_TEST(test_group_kind_fatal)
{
    int size;

    fake_rt_expect_abort(3, "MPI_Group_size (rank 3): invalid group 0x44000001: the handle of a "
                            "communicator (MPI_ERR_GROUP)\n");
    MPI_Group_size(MPI_COMM_WORLD, &size);
}
END_TEST

START_TEST(test_group_dup_rank_fatal)
{
    MPI_Group g;

    fake_rt_expect_abort(3, "MPI_Group_incl (rank 3): rank 2 is selected twice (by ranks[2]) "
                            "(MPI_ERR_RANK)\n");
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    MPI_Group_incl(g, 3, (const int[]){2, 4, 2}, &g);
}
END_TEST

START_TEST(test_group_stride_fatal)
{
    MPI_Group g;

    fake_rt_expect_abort(3, "MPI_Group_range_excl (rank 3): ranges[0] = {1, 5, 0} has a zero "
                            "stride (MPI_ERR_ARG)\n");
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    MPI_Group_range_excl(g, 1, (int[][3]){{1, 5, 0}}, &g);
}
END_TEST

/* ------------------------------------------------------------------ communicator queries */

START_TEST(test_comm_compare)
{
    int result = -1, flag = -1;

    ck_assert_int_eq(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result), MPI_SUCCESS);
    ck_assert_int_eq(result, MPI_IDENT);
    ck_assert_int_eq(MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_SELF, &result), MPI_SUCCESS);
    ck_assert_int_eq(result, MPI_IDENT);
    ck_assert_int_eq(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &result), MPI_SUCCESS);
    ck_assert_int_eq(result, MPI_UNEQUAL);
    ck_assert_int_eq(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag), MPI_SUCCESS);
    ck_assert_int_eq(flag, 0);
    errors_return();
    ck_assert_int_eq(MPI_Comm_compare(MPI_COMM_NULL, MPI_COMM_SELF, &result), MPI_ERR_COMM);
    ck_assert_int_eq(MPI_Comm_compare(MPI_COMM_SELF, MPI_GROUP_EMPTY, &result), MPI_ERR_COMM);
    ck_assert_int_eq(MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_SELF, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Comm_test_inter(MPI_COMM_NULL, &flag), MPI_ERR_COMM);
    ck_assert_int_eq(MPI_Comm_test_inter(MPI_COMM_SELF, NULL), MPI_ERR_ARG);
}
END_TEST

/* In a job of one rank, MPI_COMM_WORLD and MPI_COMM_SELF have the same members. */
START_TEST(test_comm_compare_one_rank)
{
    int result = -1;

    fake_rt_setup(0, 1);
    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &result), MPI_SUCCESS);
    ck_assert_int_eq(result, MPI_CONGRUENT);
    ck_assert_int_eq(MPI_Finalize(), MPI_SUCCESS);
}
END_TEST

START_TEST(test_comm_names)
{
    char name[MPI_MAX_OBJECT_NAME], longname[300];
    int len = -1;

    ck_assert_int_eq(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len), MPI_SUCCESS);
    ck_assert_str_eq(name, "MPI_COMM_WORLD");
    ck_assert_int_eq(len, 14);
    ck_assert_int_eq(MPI_Comm_get_name(MPI_COMM_SELF, name, &len), MPI_SUCCESS);
    ck_assert_str_eq(name, "MPI_COMM_SELF");
    ck_assert_int_eq(len, 13);
    ck_assert_int_eq(MPI_Comm_set_name(MPI_COMM_WORLD, "everyone"), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len), MPI_SUCCESS);
    ck_assert_str_eq(name, "everyone");
    ck_assert_int_eq(len, 8);
    ck_assert_int_eq(MPI_Comm_get_name(MPI_COMM_SELF, name, &len), MPI_SUCCESS);
    ck_assert_str_eq(name, "MPI_COMM_SELF");
    memset(longname, 'n', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    ck_assert_int_eq(MPI_Comm_set_name(MPI_COMM_SELF, longname), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_get_name(MPI_COMM_SELF, name, &len), MPI_SUCCESS);
    ck_assert_int_eq(len, MPI_MAX_OBJECT_NAME - 1);
    ck_assert_int_eq((int)strlen(name), MPI_MAX_OBJECT_NAME - 1);
    ck_assert_int_eq(MPI_Comm_set_name(MPI_COMM_SELF, ""), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_get_name(MPI_COMM_SELF, name, &len), MPI_SUCCESS);
    ck_assert_int_eq(len, 0);
    errors_return();
    ck_assert_int_eq(MPI_Comm_set_name(MPI_COMM_NULL, "x"), MPI_ERR_COMM);
    ck_assert_int_eq(MPI_Comm_set_name(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Comm_get_name(MPI_COMM_WORLD, NULL, &len), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Comm_get_name(MPI_COMM_WORLD, name, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Comm_get_name(MPI_INFO_NULL, name, &len), MPI_ERR_COMM);
}
END_TEST

/* ------------------------------------------------------------------ MPI_Dims_create */

static void check_dims(int nnodes, int ndims, const int *given, const int *expected)
{
    int dims[16];

    memcpy(dims, given, (size_t)ndims * sizeof(int));
    ck_assert_int_eq(MPI_Dims_create(nnodes, ndims, dims), MPI_SUCCESS);
    for (int i = 0; i < ndims; i++)
        ck_assert_msg(dims[i] == expected[i], "Dims_create(%d, %d): dims[%d] = %d, not %d", nnodes,
                      ndims, i, dims[i], expected[i]);
}

START_TEST(test_dims_create)
{
    check_dims(6, 2, (const int[]){0, 0}, (const int[]){3, 2});
    check_dims(7, 2, (const int[]){0, 0}, (const int[]){7, 1});
    check_dims(12, 3, (const int[]){0, 0, 0}, (const int[]){3, 2, 2});
    check_dims(16, 3, (const int[]){0, 0, 0}, (const int[]){4, 2, 2});
    check_dims(36, 3, (const int[]){0, 0, 0}, (const int[]){4, 3, 3});
    check_dims(72, 2, (const int[]){0, 0}, (const int[]){9, 8});
    check_dims(30, 3, (const int[]){0, 0, 0}, (const int[]){5, 3, 2});
    check_dims(64, 3, (const int[]){0, 0, 0}, (const int[]){4, 4, 4});
    check_dims(1, 3, (const int[]){0, 0, 0}, (const int[]){1, 1, 1});
    check_dims(8, 1, (const int[]){0}, (const int[]){8});
    check_dims(1000, 3, (const int[]){0, 0, 0}, (const int[]){10, 10, 10});
    check_dims(1024, 4, (const int[]){0, 0, 0, 0}, (const int[]){8, 8, 4, 4});
    check_dims(97, 2, (const int[]){0, 0}, (const int[]){97, 1});
    check_dims(2, 4, (const int[]){0, 0, 0, 0}, (const int[]){2, 1, 1, 1});
    /* Fixed entries stay; the others share what is left, non-increasing. */
    check_dims(24, 3, (const int[]){0, 3, 0}, (const int[]){4, 3, 2});
    check_dims(24, 3, (const int[]){2, 0, 0}, (const int[]){2, 4, 3});
    check_dims(12, 3, (const int[]){0, 0, 6}, (const int[]){2, 1, 6});
    check_dims(6, 2, (const int[]){2, 3}, (const int[]){2, 3});
    check_dims(1, 0, NULL, NULL);
}
END_TEST

START_TEST(test_dims_create_errors)
{
    int dims[3] = {0, 0, 0};

    errors_return();
    ck_assert_int_eq(MPI_Dims_create(7, 2, (int[]){2, 0}), MPI_ERR_DIMS);
    ck_assert_int_eq(MPI_Dims_create(6, 2, (int[]){2, 2}), MPI_ERR_DIMS);
    ck_assert_int_eq(MPI_Dims_create(8, 2, (int[]){4, 4}), MPI_ERR_DIMS);
    ck_assert_int_eq(MPI_Dims_create(4, 2, (int[]){-1, 0}), MPI_ERR_DIMS);
    ck_assert_int_eq(MPI_Dims_create(4, -1, dims), MPI_ERR_DIMS);
    ck_assert_int_eq(MPI_Dims_create(2, 0, NULL), MPI_ERR_DIMS);
    ck_assert_int_eq(MPI_Dims_create(0, 3, dims), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Dims_create(-4, 3, dims), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Dims_create(4, 3, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(dims[0] + dims[1] + dims[2], 0);
}
END_TEST

START_TEST(test_dims_create_fatal)
{
    fake_rt_expect_abort(3, "MPI_Dims_create (rank 3): the fixed dimensions do not divide nnodes "
                            "= 7 (MPI_ERR_DIMS)\n");
    MPI_Dims_create(7, 2, (int[]){0, 3});
}
END_TEST

static Suite *group_suite(void)
{
    Suite *s = suite_create("mpi_group");
    TCase *tc = tcase_create("group");
    TCase *tc_err = tcase_create("errors");
    TCase *tc_comm = tcase_create("comm");
    TCase *tc_dims = tcase_create("dims");
    TCase *tc_one = tcase_create("one rank");

    tcase_add_checked_fixture(tc, setup_rank3, NULL);
    tcase_add_test(tc, test_group_world_self);
    tcase_add_test(tc, test_group_empty);
    tcase_add_test(tc, test_group_world_shared);
    tcase_add_test(tc, test_group_incl_excl);
    tcase_add_test(tc, test_group_ranges);
    tcase_add_test(tc, test_group_set_ops);
    tcase_add_test(tc, test_group_translate_compare);
    tcase_add_test(tc, test_group_handles);
    suite_add_tcase(s, tc);

    tcase_add_checked_fixture(tc_err, setup_rank3, NULL);
    tcase_add_test(tc_err, test_group_error_classes);
    tcase_add_exit_test(tc_err, test_group_null_fatal, MPI_ERR_GROUP);
    tcase_add_exit_test(tc_err, test_group_kind_fatal, MPI_ERR_GROUP);
    tcase_add_exit_test(tc_err, test_group_dup_rank_fatal, MPI_ERR_RANK);
    tcase_add_exit_test(tc_err, test_group_stride_fatal, MPI_ERR_ARG);
    suite_add_tcase(s, tc_err);

    tcase_add_checked_fixture(tc_comm, setup_rank3, NULL);
    tcase_add_test(tc_comm, test_comm_compare);
    tcase_add_test(tc_comm, test_comm_names);
    suite_add_tcase(s, tc_comm);
    /* Without the fixture: the world group is created once per process, of the first size. */
    tcase_add_test(tc_one, test_comm_compare_one_rank);
    suite_add_tcase(s, tc_one);

    tcase_add_checked_fixture(tc_dims, setup_rank3, NULL);
    tcase_add_test(tc_dims, test_dims_create);
    tcase_add_test(tc_dims, test_dims_create_errors);
    tcase_add_exit_test(tc_dims, test_dims_create_fatal, MPI_ERR_DIMS);
    suite_add_tcase(s, tc_dims);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(group_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
