/* Unit tests of mpi/: MPI_COMM_WORLD and MPI_COMM_SELF, communicator checks, MPI_Abort. */
#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "mpi/mpi_impl.h"
#include "tests/unit/fake_rt.h"

/* Rank 3 of 8, initialized. */
static void setup_rank3(void)
{
    fake_rt_setup(3, 8);
    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
}

START_TEST(test_comm_world)
{
    int rank = -1, size = -1;

    ck_assert_int_eq(MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_size(MPI_COMM_WORLD, &size), MPI_SUCCESS);
    ck_assert_int_eq(rank, 3);
    ck_assert_int_eq(size, 8);
}
END_TEST

START_TEST(test_comm_self)
{
    int rank = -1, size = -1;

    ck_assert_int_eq(MPI_Comm_rank(MPI_COMM_SELF, &rank), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_size(MPI_COMM_SELF, &size), MPI_SUCCESS);
    ck_assert_int_eq(rank, 0);
    ck_assert_int_eq(size, 1);
}
END_TEST

/* Each rank sees its own rank: the state follows the calling rank. */
START_TEST(test_comm_world_per_rank)
{
    tm_rt_rank_t other;
    tm_rt_rank_t mine = fake_rt_rank;
    int rank = -1;

    fake_rt_setup(5, 8);
    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    other = fake_rt_rank;
    ck_assert_int_eq(MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_SUCCESS);
    ck_assert_int_eq(rank, 5);
    fake_rt_rank = mine;
    ck_assert_int_eq(MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_SUCCESS);
    ck_assert_int_eq(rank, 3);
    ck_assert_ptr_ne(mine.mpi, other.mpi);
    ck_assert_int_eq(MPI_Finalize(), MPI_SUCCESS);
    fake_rt_rank = other;
    ck_assert_int_eq(MPI_Finalize(), MPI_SUCCESS);
}
END_TEST

START_TEST(test_comm_get)
{
    tm_mpi_rank_t *r = fake_rt_rank.mpi;
    tm_mpi_comm_t *c = NULL;

    ck_assert_int_eq(tm_mpi_comm_get(r, MPI_COMM_WORLD, "MPI_X", &c), MPI_SUCCESS);
    ck_assert_ptr_eq(c, &r->world);
    ck_assert_str_eq(c->name, "MPI_COMM_WORLD");
    ck_assert_int_eq(c->errhandler, MPI_ERRORS_ARE_FATAL);
    ck_assert_ptr_eq(c->owner, r);
    ck_assert_int_eq(tm_mpi_comm_get(r, MPI_COMM_SELF, "MPI_X", &c), MPI_SUCCESS);
    ck_assert_ptr_eq(c, &r->self);
    ck_assert_str_eq(c->name, "MPI_COMM_SELF");
    ck_assert_int_eq(c->errhandler, MPI_ERRORS_ARE_FATAL);
}
END_TEST

START_TEST(test_comm_null)
{
    int rank;

    fake_rt_expect_abort(
        3, "MPI_Comm_rank (rank 3): invalid communicator MPI_COMM_NULL (MPI_ERR_COMM)\n");
    MPI_Comm_rank(MPI_COMM_NULL, &rank);
}
END_TEST

START_TEST(test_comm_datatype)
{
    int rank;

    fake_rt_expect_abort(3, "MPI_Comm_rank (rank 3): invalid communicator 0x4c000408: the handle "
                            "of a datatype (MPI_ERR_COMM)\n");
    MPI_Comm_rank(MPI_INT, &rank);
}
END_TEST

START_TEST(test_comm_unknown)
{
    int size;

    fake_rt_expect_abort(3, "MPI_Comm_size (rank 3): invalid communicator 0x44000007: no such "
                            "communicator (MPI_ERR_COMM)\n");
    MPI_Comm_size(0x44000007, &size);
}
END_TEST

START_TEST(test_comm_not_a_handle)
{
    int size;

    fake_rt_expect_abort(3, "MPI_Comm_size (rank 3): invalid communicator 0x0000002a: not an MPI "
                            "handle (MPI_ERR_COMM)\n");
    MPI_Comm_size(42, &size);
}
END_TEST

START_TEST(test_comm_rank_null)
{
    fake_rt_expect_abort(3, "MPI_Comm_rank (rank 3): rank is NULL (MPI_ERR_ARG)\n");
    MPI_Comm_rank(MPI_COMM_WORLD, NULL);
}
END_TEST

START_TEST(test_comm_size_null)
{
    fake_rt_expect_abort(3, "MPI_Comm_size (rank 3): size is NULL (MPI_ERR_ARG)\n");
    MPI_Comm_size(MPI_COMM_SELF, NULL);
}
END_TEST

/* With MPI_ERRORS_RETURN the calls return the class and leave the outputs alone. */
START_TEST(test_comm_errors_return)
{
    tm_mpi_rank_t *r = fake_rt_rank.mpi;
    int rank = -1;

    r->world.errhandler = MPI_ERRORS_RETURN;
    r->self.errhandler = MPI_ERRORS_RETURN;
    ck_assert_int_eq(MPI_Comm_rank(MPI_OP_NULL, &rank), MPI_ERR_COMM);
    ck_assert_int_eq(MPI_Comm_size(MPI_COMM_NULL, &rank), MPI_ERR_COMM);
    ck_assert_int_eq(MPI_Comm_rank(MPI_COMM_SELF, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Abort(MPI_FILE_NULL, 3), MPI_ERR_COMM);
    ck_assert_int_eq(rank, -1);
}
END_TEST

/* An invalid communicator is reported through MPI_COMM_WORLD's handler, a NULL argument through
 * the handler of the communicator. */
START_TEST(test_comm_handler_choice)
{
    tm_mpi_rank_t *r = fake_rt_rank.mpi;
    int rank;

    r->self.errhandler = MPI_ERRORS_RETURN;
    ck_assert_int_eq(MPI_Comm_rank(MPI_COMM_SELF, NULL), MPI_ERR_ARG);
    fake_rt_expect_abort(3, "MPI_Comm_rank (rank 3): invalid communicator 0x58000000: the handle "
                            "of a request (MPI_ERR_COMM)\n");
    MPI_Comm_rank(MPI_REQUEST_NULL, &rank);
}
END_TEST

START_TEST(test_comm_before_init)
{
    int rank;

    fake_rt_setup(6, 8);
    fake_rt_expect_abort(6, "MPI_Comm_rank (rank 6): called before MPI_Init (MPI_ERR_OTHER)\n");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
}
END_TEST

START_TEST(test_comm_after_finalize)
{
    int size;

    ck_assert_int_eq(MPI_Finalize(), MPI_SUCCESS);
    fake_rt_expect_abort(3, "MPI_Comm_size (rank 3): called after MPI_Finalize (MPI_ERR_OTHER)\n");
    MPI_Comm_size(MPI_COMM_WORLD, &size);
}
END_TEST

START_TEST(test_comm_not_a_rank)
{
    int size;

    fake_rt_set_caller(0);
    fake_rt_expect_abort(-1,
                         "MPI_Comm_size (rank ?): called by a thread that is not an MPI rank and "
                         "that no rank started (a rank's own thread may call MPI, and "
                         "under MPI_THREAD_MULTIPLE the threads it started) "
                         "(MPI_ERR_OTHER)\n");
    MPI_Comm_size(MPI_COMM_WORLD, &size);
}
END_TEST

START_TEST(test_abort_world)
{
    fake_rt_expect_abort(3, "MPI_Abort: rank 3 of MPI_COMM_WORLD aborted the job with error code "
                            "5\n");
    MPI_Abort(MPI_COMM_WORLD, 5);
}
END_TEST

START_TEST(test_abort_self)
{
    fake_rt_expect_abort(3, "MPI_Abort: rank 0 of MPI_COMM_SELF (rank 3 of MPI_COMM_WORLD) "
                            "aborted the job with error code 42\n");
    MPI_Abort(MPI_COMM_SELF, 42);
}
END_TEST

START_TEST(test_abort_bad_comm)
{
    fake_rt_expect_abort(3, "MPI_Abort (rank 3): invalid communicator MPI_COMM_NULL "
                            "(MPI_ERR_COMM)\n");
    MPI_Abort(MPI_COMM_NULL, 42);
}
END_TEST

START_TEST(test_abort_before_init)
{
    fake_rt_setup(0, 8);
    fake_rt_expect_abort(0, "MPI_Abort (rank 0): called before MPI_Init (MPI_ERR_OTHER)\n");
    MPI_Abort(MPI_COMM_WORLD, 42);
}
END_TEST

static Suite *comm_suite(void)
{
    Suite *s = suite_create("mpi_comm");
    TCase *tc = tcase_create("comm");
    TCase *tc_err = tcase_create("errors");
    TCase *tc_abort = tcase_create("abort");

    tcase_add_checked_fixture(tc, setup_rank3, NULL);
    tcase_add_test(tc, test_comm_world);
    tcase_add_test(tc, test_comm_self);
    tcase_add_test(tc, test_comm_world_per_rank);
    tcase_add_test(tc, test_comm_get);
    tcase_add_test(tc, test_comm_errors_return);
    suite_add_tcase(s, tc);

    tcase_add_checked_fixture(tc_err, setup_rank3, NULL);
    tcase_add_exit_test(tc_err, test_comm_null, MPI_ERR_COMM);
    tcase_add_exit_test(tc_err, test_comm_datatype, MPI_ERR_COMM);
    tcase_add_exit_test(tc_err, test_comm_unknown, MPI_ERR_COMM);
    tcase_add_exit_test(tc_err, test_comm_not_a_handle, MPI_ERR_COMM);
    tcase_add_exit_test(tc_err, test_comm_rank_null, MPI_ERR_ARG);
    tcase_add_exit_test(tc_err, test_comm_size_null, MPI_ERR_ARG);
    tcase_add_exit_test(tc_err, test_comm_handler_choice, MPI_ERR_COMM);
    tcase_add_exit_test(tc_err, test_comm_before_init, MPI_ERR_OTHER);
    tcase_add_exit_test(tc_err, test_comm_after_finalize, MPI_ERR_OTHER);
    tcase_add_exit_test(tc_err, test_comm_not_a_rank, MPI_ERR_OTHER);
    suite_add_tcase(s, tc_err);

    tcase_add_checked_fixture(tc_abort, setup_rank3, NULL);
    tcase_add_exit_test(tc_abort, test_abort_world, 5);
    tcase_add_exit_test(tc_abort, test_abort_self, 42);
    tcase_add_exit_test(tc_abort, test_abort_bad_comm, MPI_ERR_COMM);
    tcase_add_exit_test(tc_abort, test_abort_before_init, MPI_ERR_OTHER);
    suite_add_tcase(s, tc_abort);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(comm_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
