/* Unit tests of mpi/: MPI_Init, MPI_Init_thread, MPI_Finalize and the state they leave. */
#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "mpi/mpi_impl.h"
#include "tests/unit/fake_rt.h"

static void setup_rank1(void)
{
    fake_rt_setup(1, 4);
}

static int flag_initialized(void)
{
    int flag = -1;

    ck_assert_int_eq(MPI_Initialized(&flag), MPI_SUCCESS);
    return flag;
}

static int flag_finalized(void)
{
    int flag = -1;

    ck_assert_int_eq(MPI_Finalized(&flag), MPI_SUCCESS);
    return flag;
}

START_TEST(test_init_finalize_states)
{
    ck_assert_int_eq(flag_initialized(), 0);
    ck_assert_int_eq(flag_finalized(), 0);
    ck_assert_ptr_null(fake_rt_rank.mpi);

    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    ck_assert_int_eq(atomic_load(&fake_rt_rank.mpi_state), TM_RT_MPI_INITIALIZED);
    ck_assert_ptr_nonnull(fake_rt_rank.mpi);
    ck_assert_int_eq(flag_initialized(), 1);
    ck_assert_int_eq(flag_finalized(), 0);

    ck_assert_int_eq(MPI_Finalize(), MPI_SUCCESS);
    ck_assert_int_eq(atomic_load(&fake_rt_rank.mpi_state), TM_RT_MPI_FINALIZED);
    ck_assert_ptr_null(fake_rt_rank.mpi);
    ck_assert_int_eq(flag_initialized(), 1);
    ck_assert_int_eq(flag_finalized(), 1);
}
END_TEST

START_TEST(test_init_leaves_argv_alone)
{
    char a0[] = "prog", a1[] = "-x", a2[] = "3";
    char *args[] = {a0, a1, a2, NULL};
    char **argv = args;
    int argc = 3;

    ck_assert_int_eq(MPI_Init(&argc, &argv), MPI_SUCCESS);
    ck_assert_int_eq(argc, 3);
    ck_assert_ptr_eq(argv, args);
    ck_assert_str_eq(argv[0], "prog");
    ck_assert_str_eq(argv[1], "-x");
    ck_assert_str_eq(argv[2], "3");
    ck_assert_ptr_null(argv[3]);
}
END_TEST

START_TEST(test_init_is_thread_single)
{
    int provided = -1;

    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Query_thread(&provided), MPI_SUCCESS);
    ck_assert_int_eq(provided, MPI_THREAD_SINGLE);
    ck_assert_int_eq(fake_rt_rank.thread_level, MPI_THREAD_SINGLE);
}
END_TEST

/* _i is the required level: the level given is min(required, MPI_THREAD_FUNNELED). */
START_TEST(test_init_thread_levels)
{
    static const int expected[] = {
        [MPI_THREAD_SINGLE] = MPI_THREAD_SINGLE,
        [MPI_THREAD_FUNNELED] = MPI_THREAD_FUNNELED,
        [MPI_THREAD_SERIALIZED] = MPI_THREAD_SERIALIZED,
        [MPI_THREAD_MULTIPLE] = MPI_THREAD_MULTIPLE,
    };
    int provided = -1, queried = -1, is_main = -1;

    ck_assert_int_eq(MPI_Init_thread(NULL, NULL, _i, &provided), MPI_SUCCESS);
    ck_assert_int_eq(provided, expected[_i]);
    ck_assert_int_eq(MPI_Query_thread(&queried), MPI_SUCCESS);
    ck_assert_int_eq(queried, expected[_i]);
    ck_assert_int_eq(fake_rt_rank.thread_level, expected[_i]);
    ck_assert_int_eq(MPI_Is_thread_main(&is_main), MPI_SUCCESS);
    ck_assert_int_eq(is_main, 1);
}
END_TEST

START_TEST(test_init_thread_level_too_low)
{
    int provided;

    fake_rt_expect_abort(1, "MPI_Init_thread (rank 1): invalid thread level -1 "
                            "(MPI_THREAD_SINGLE..MPI_THREAD_MULTIPLE are 0..3) (MPI_ERR_ARG)\n");
    MPI_Init_thread(NULL, NULL, -1, &provided);
}
END_TEST

START_TEST(test_init_thread_level_too_high)
{
    int provided;

    fake_rt_expect_abort(1, "MPI_Init_thread (rank 1): invalid thread level 4 "
                            "(MPI_THREAD_SINGLE..MPI_THREAD_MULTIPLE are 0..3) (MPI_ERR_ARG)\n");
    MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE + 1, &provided);
}
END_TEST

START_TEST(test_init_thread_null_provided)
{
    fake_rt_expect_abort(1, "MPI_Init_thread (rank 1): provided is NULL (MPI_ERR_ARG)\n");
    MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, NULL);
}
END_TEST

START_TEST(test_init_twice)
{
    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    fake_rt_expect_abort(1, "MPI_Init (rank 1): MPI is already initialized (MPI_ERR_OTHER)\n");
    MPI_Init(NULL, NULL);
}
END_TEST

/* Once initialized, the handler of MPI_COMM_WORLD decides, and a failed call changes nothing. */
START_TEST(test_init_twice_errors_return)
{
    tm_mpi_rank_t *r;
    int provided = -1;

    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    r = fake_rt_rank.mpi;
    r->world.errhandler = MPI_ERRORS_RETURN;
    ck_assert_int_eq(MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided), MPI_ERR_OTHER);
    ck_assert_int_eq(provided, -1);
    ck_assert_ptr_eq(fake_rt_rank.mpi, r);
    ck_assert_int_eq(fake_rt_rank.thread_level, MPI_THREAD_SINGLE);
}
END_TEST

START_TEST(test_init_after_finalize)
{
    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Finalize(), MPI_SUCCESS);
    fake_rt_expect_abort(1, "MPI_Init (rank 1): called after MPI_Finalize: MPI cannot be "
                            "initialized again (MPI_ERR_OTHER)\n");
    MPI_Init(NULL, NULL);
}
END_TEST

START_TEST(test_finalize_before_init)
{
    fake_rt_expect_abort(1, "MPI_Finalize (rank 1): called before MPI_Init (MPI_ERR_OTHER)\n");
    MPI_Finalize();
}
END_TEST

START_TEST(test_finalize_twice)
{
    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Finalize(), MPI_SUCCESS);
    fake_rt_expect_abort(1, "MPI_Finalize (rank 1): MPI is already finalized (MPI_ERR_OTHER)\n");
    MPI_Finalize();
}
END_TEST

START_TEST(test_query_thread_before_init)
{
    int provided;

    fake_rt_expect_abort(1, "MPI_Query_thread (rank 1): called before MPI_Init (MPI_ERR_OTHER)\n");
    MPI_Query_thread(&provided);
}
END_TEST

START_TEST(test_query_thread_after_finalize)
{
    int provided;

    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Finalize(), MPI_SUCCESS);
    fake_rt_expect_abort(1,
                         "MPI_Query_thread (rank 1): called after MPI_Finalize (MPI_ERR_OTHER)\n");
    MPI_Query_thread(&provided);
}
END_TEST

START_TEST(test_query_thread_null)
{
    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    fake_rt_expect_abort(1, "MPI_Query_thread (rank 1): provided is NULL (MPI_ERR_ARG)\n");
    MPI_Query_thread(NULL);
}
END_TEST

START_TEST(test_initialized_null)
{
    fake_rt_expect_abort(1, "MPI_Initialized (rank 1): flag is NULL (MPI_ERR_ARG)\n");
    MPI_Initialized(NULL);
}
END_TEST

START_TEST(test_finalized_null_after_init)
{
    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    fake_rt_expect_abort(1, "MPI_Finalized (rank 1): flag is NULL (MPI_ERR_ARG)\n");
    MPI_Finalized(NULL);
}
END_TEST

/* A thread that is not a rank may ask whether it is the main thread, at any time: it is not. */
START_TEST(test_is_thread_main_other_thread)
{
    int flag = -1;

    fake_rt_set_caller(0);
    ck_assert_int_eq(MPI_Is_thread_main(&flag), MPI_SUCCESS);
    ck_assert_int_eq(flag, 0);
    fake_rt_set_caller(1);
    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    fake_rt_set_caller(0);
    flag = -1;
    ck_assert_int_eq(MPI_Is_thread_main(&flag), MPI_SUCCESS);
    ck_assert_int_eq(flag, 0);
}
END_TEST

START_TEST(test_is_thread_main_before_init)
{
    int flag;

    fake_rt_expect_abort(1,
                         "MPI_Is_thread_main (rank 1): called before MPI_Init (MPI_ERR_OTHER)\n");
    MPI_Is_thread_main(&flag);
}
END_TEST

START_TEST(test_is_thread_main_null)
{
    fake_rt_set_caller(0);
    fake_rt_expect_abort(-1, "MPI_Is_thread_main (rank ?): flag is NULL (MPI_ERR_ARG)\n");
    MPI_Is_thread_main(NULL);
}
END_TEST

START_TEST(test_init_not_a_rank)
{
    fake_rt_set_caller(0);
    fake_rt_expect_abort(-1, "MPI_Init (rank ?): called by a thread that is not an MPI rank and "
                             "that no rank started (a rank's own thread may call MPI, and "
                             "under MPI_THREAD_MULTIPLE the threads it started) "
                             "(MPI_ERR_OTHER)\n");
    MPI_Init(NULL, NULL);
}
END_TEST

START_TEST(test_initialized_not_a_rank)
{
    int flag;

    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    fake_rt_set_caller(0);
    fake_rt_expect_abort(-1, "MPI_Initialized (rank ?): called by a thread that is not an MPI "
                             "rank and that no rank started (a rank's own thread may call MPI, "
                             "and under MPI_THREAD_MULTIPLE the threads it started) "
                             "(MPI_ERR_OTHER)\n");
    MPI_Initialized(&flag);
}
END_TEST

static Suite *init_suite(void)
{
    Suite *s = suite_create("mpi_init");
    TCase *tc = tcase_create("init");
    TCase *tc_err = tcase_create("errors");

    tcase_add_checked_fixture(tc, setup_rank1, NULL);
    tcase_add_test(tc, test_init_finalize_states);
    tcase_add_test(tc, test_init_leaves_argv_alone);
    tcase_add_test(tc, test_init_is_thread_single);
    tcase_add_loop_test(tc, test_init_thread_levels, MPI_THREAD_SINGLE, MPI_THREAD_MULTIPLE + 1);
    tcase_add_test(tc, test_init_twice_errors_return);
    tcase_add_test(tc, test_is_thread_main_other_thread);
    suite_add_tcase(s, tc);

    tcase_add_checked_fixture(tc_err, setup_rank1, NULL);
    tcase_add_exit_test(tc_err, test_init_thread_level_too_low, MPI_ERR_ARG);
    tcase_add_exit_test(tc_err, test_init_thread_level_too_high, MPI_ERR_ARG);
    tcase_add_exit_test(tc_err, test_init_thread_null_provided, MPI_ERR_ARG);
    tcase_add_exit_test(tc_err, test_init_twice, MPI_ERR_OTHER);
    tcase_add_exit_test(tc_err, test_init_after_finalize, MPI_ERR_OTHER);
    tcase_add_exit_test(tc_err, test_finalize_before_init, MPI_ERR_OTHER);
    tcase_add_exit_test(tc_err, test_finalize_twice, MPI_ERR_OTHER);
    tcase_add_exit_test(tc_err, test_query_thread_before_init, MPI_ERR_OTHER);
    tcase_add_exit_test(tc_err, test_query_thread_after_finalize, MPI_ERR_OTHER);
    tcase_add_exit_test(tc_err, test_query_thread_null, MPI_ERR_ARG);
    tcase_add_exit_test(tc_err, test_initialized_null, MPI_ERR_ARG);
    tcase_add_exit_test(tc_err, test_finalized_null_after_init, MPI_ERR_ARG);
    tcase_add_exit_test(tc_err, test_is_thread_main_before_init, MPI_ERR_OTHER);
    tcase_add_exit_test(tc_err, test_is_thread_main_null, MPI_ERR_ARG);
    tcase_add_exit_test(tc_err, test_init_not_a_rank, MPI_ERR_OTHER);
    tcase_add_exit_test(tc_err, test_initialized_not_a_rank, MPI_ERR_OTHER);
    suite_add_tcase(s, tc_err);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(init_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
