/* Unit tests of mpi/: error handlers (user-defined ones called with the right communicator and
 * code, MPI_ERRORS_RETURN, the handle calls and their argument checks). */
#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "mpi/mpi_impl.h"
#include "tests/unit/fake_rt.h"

static void setup_rank3(void)
{
    fake_rt_setup(3, 8);
    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
}

/* What the handlers saw. */
static int calls;
static MPI_Comm seen_comm;
static int seen_code;
static int seen_world_rank;

static void record(MPI_Comm *comm, int *code, ...)
{
    int rank = -1;

    calls++;
    seen_comm = *comm;
    seen_code = *code;
    /* A handler may call MPI. */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    seen_world_rank = rank;
}

static MPI_Errhandler self_freeing;

static void free_self(MPI_Comm *comm, int *code, ...)
{
    record(comm, code);
    ck_assert_int_eq(MPI_Comm_set_errhandler(*comm, MPI_ERRORS_RETURN), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Errhandler_free(&self_freeing), MPI_SUCCESS);
}

START_TEST(test_errhandler_user_world)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int size = -1;

    ck_assert_int_eq(MPI_Comm_create_errhandler(record, &eh), MPI_SUCCESS);
    ck_assert_int_eq(tm_mpi_handle_kind(eh), TM_MPI_KIND_ERRHANDLER);
    ck_assert_int_ne(eh, MPI_ERRORS_RETURN);
    ck_assert_int_ne(eh, MPI_ERRORS_ARE_FATAL);
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_size(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(calls, 1);
    ck_assert_int_eq(seen_comm, MPI_COMM_WORLD);
    ck_assert_int_eq(seen_code, MPI_ERR_ARG);
    ck_assert_int_eq(seen_world_rank, 3);
    /* Errors that concern no communicator go to MPI_COMM_WORLD's handler. */
    ck_assert_int_eq(MPI_Comm_size(MPI_COMM_NULL, &size), MPI_ERR_COMM);
    ck_assert_int_eq(calls, 2);
    ck_assert_int_eq(seen_comm, MPI_COMM_WORLD);
    ck_assert_int_eq(seen_code, MPI_ERR_COMM);
    ck_assert_int_eq(MPI_Error_class(-5, &size), MPI_ERR_ARG);
    ck_assert_int_eq(calls, 3);
    ck_assert_int_eq(size, -1);
    ck_assert_int_eq(MPI_Errhandler_free(&eh), MPI_SUCCESS);
    ck_assert_int_eq(eh, MPI_ERRHANDLER_NULL);
    /* The communicator keeps the handler. */
    ck_assert_int_eq(MPI_Group_size(MPI_GROUP_NULL, &size), MPI_ERR_GROUP);
    ck_assert_int_eq(calls, 4);
    ck_assert_int_eq(seen_code, MPI_ERR_GROUP);
}
END_TEST

START_TEST(test_errhandler_user_self)
{
    MPI_Errhandler eh;

    ck_assert_int_eq(MPI_Comm_create_errhandler(record, &eh), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_rank(MPI_COMM_SELF, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(calls, 1);
    ck_assert_int_eq(seen_comm, MPI_COMM_SELF);
    ck_assert_int_eq(seen_code, MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_SELF, MPI_KEYVAL_INVALID, &eh, &calls),
                     MPI_ERR_KEYVAL);
    ck_assert_int_eq(seen_comm, MPI_COMM_SELF);
    ck_assert_int_eq(seen_code, MPI_ERR_KEYVAL);
    ck_assert_int_eq(MPI_Errhandler_free(&eh), MPI_SUCCESS);
}
END_TEST

START_TEST(test_errhandler_get)
{
    MPI_Errhandler eh, got = MPI_ERRHANDLER_NULL, got2;
    tm_mpi_rank_t *r = fake_rt_rank.mpi;

    ck_assert_int_eq(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got), MPI_SUCCESS);
    ck_assert_int_eq(got, MPI_ERRORS_ARE_FATAL);
    ck_assert_int_eq(MPI_Errhandler_free(&got), MPI_SUCCESS);
    ck_assert_int_eq(got, MPI_ERRHANDLER_NULL);
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_get_errhandler(MPI_COMM_SELF, &got), MPI_SUCCESS);
    ck_assert_int_eq(got, MPI_ERRORS_RETURN);
    ck_assert_int_eq(MPI_Comm_create_errhandler(record, &eh), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got), MPI_SUCCESS);
    ck_assert_int_eq(got, eh);
    ck_assert_int_eq(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got2), MPI_SUCCESS);
    ck_assert_int_eq(got2, eh);
    ck_assert_ptr_nonnull(r->world.errhandler_user);
    /* Three handles out and the communicator: four references. */
    ck_assert_int_eq(MPI_Errhandler_free(&eh), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Errhandler_free(&got), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Errhandler_free(&got2), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_rank(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(calls, 1);
    /* Setting another handler drops the last reference: the handle is gone. */
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);
    ck_assert_ptr_null(r->world.errhandler_user);
    ck_assert_int_eq(r->errhandlers.len, 0);
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_WORLD, got), MPI_ERR_ARG);
    ck_assert_int_eq(calls, 1);
}
END_TEST

START_TEST(test_errhandler_call)
{
    MPI_Errhandler eh;

    ck_assert_int_eq(MPI_Comm_create_errhandler(record, &eh), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_OTHER), MPI_SUCCESS);
    ck_assert_int_eq(calls, 1);
    ck_assert_int_eq(seen_comm, MPI_COMM_SELF);
    ck_assert_int_eq(seen_code, MPI_ERR_OTHER);
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_TAG), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_call_errhandler(MPI_COMM_SELF, 12345), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_SUCCESS), MPI_ERR_ARG);
    ck_assert_int_eq(calls, 1);
    ck_assert_int_eq(MPI_Errhandler_free(&eh), MPI_SUCCESS);
}
END_TEST

/* A handler that frees its own handle and replaces itself while it runs. */
START_TEST(test_errhandler_free_in_handler)
{
    tm_mpi_rank_t *r = fake_rt_rank.mpi;

    ck_assert_int_eq(MPI_Comm_create_errhandler(free_self, &self_freeing), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_WORLD, self_freeing), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_rank(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(calls, 1);
    ck_assert_int_eq(self_freeing, MPI_ERRHANDLER_NULL);
    ck_assert_int_eq(r->world.errhandler, MPI_ERRORS_RETURN);
    ck_assert_int_eq(r->errhandlers.len, 0);
}
END_TEST

/* MPI_Finalize releases the handlers still set or not freed. */
START_TEST(test_errhandler_finalize)
{
    MPI_Errhandler a, b;

    ck_assert_int_eq(MPI_Comm_create_errhandler(record, &a), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_create_errhandler(record, &b), MPI_SUCCESS);
    ck_assert_int_ne(a, b);
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_SELF, a), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_WORLD, a), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Finalize(), MPI_SUCCESS);
    ck_assert_int_eq(calls, 0);
}
END_TEST

START_TEST(test_errhandler_error_classes)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;

    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_create_errhandler(NULL, &eh), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Comm_create_errhandler(record, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_NULL, MPI_ERRORS_RETURN), MPI_ERR_COMM);
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_INT), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_WORLD, 0x54000077), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_WORLD, 7), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Comm_get_errhandler(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Comm_get_errhandler(MPI_GROUP_NULL, &eh), MPI_ERR_COMM);
    ck_assert_int_eq(MPI_Comm_call_errhandler(MPI_COMM_NULL, MPI_ERR_OTHER), MPI_ERR_COMM);
    ck_assert_int_eq(MPI_Errhandler_free(NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Errhandler_free(&eh), MPI_ERR_ARG);
    ck_assert_int_eq(eh, MPI_ERRHANDLER_NULL);
    /* Still the handler set. */
    ck_assert_int_eq(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh), MPI_SUCCESS);
    ck_assert_int_eq(eh, MPI_ERRORS_RETURN);
}
END_TEST

START_TEST(test_errhandler_call_fatal)
{
    fake_rt_expect_abort(3, "MPI_Comm_call_errhandler (rank 3): error code 16 raised by the "
                            "program (MPI_ERR_OTHER)\n");
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
}
END_TEST

START_TEST(test_errhandler_null_fatal)
{
    fake_rt_expect_abort(3, "MPI_Comm_set_errhandler (rank 3): invalid error handler "
                            "MPI_ERRHANDLER_NULL (MPI_ERR_ARG)\n");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRHANDLER_NULL);
}
END_TEST

/* Back to MPI_ERRORS_ARE_FATAL after a user handler. */
START_TEST(test_errhandler_back_to_fatal)
{
    MPI_Errhandler eh;

    ck_assert_int_eq(MPI_Comm_create_errhandler(record, &eh), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL), MPI_SUCCESS);
    fake_rt_expect_abort(3, "MPI_Comm_rank (rank 3): rank is NULL (MPI_ERR_ARG)\n");
    MPI_Comm_rank(MPI_COMM_WORLD, NULL);
}
END_TEST

static Suite *errhandler_suite(void)
{
    Suite *s = suite_create("mpi_errhandler");
    TCase *tc = tcase_create("errhandler");
    TCase *tc_err = tcase_create("errors");

    tcase_add_checked_fixture(tc, setup_rank3, NULL);
    tcase_add_test(tc, test_errhandler_user_world);
    tcase_add_test(tc, test_errhandler_user_self);
    tcase_add_test(tc, test_errhandler_get);
    tcase_add_test(tc, test_errhandler_call);
    tcase_add_test(tc, test_errhandler_free_in_handler);
    tcase_add_test(tc, test_errhandler_finalize);
    suite_add_tcase(s, tc);

    tcase_add_checked_fixture(tc_err, setup_rank3, NULL);
    tcase_add_test(tc_err, test_errhandler_error_classes);
    tcase_add_exit_test(tc_err, test_errhandler_call_fatal, MPI_ERR_OTHER);
    tcase_add_exit_test(tc_err, test_errhandler_null_fatal, MPI_ERR_ARG);
    tcase_add_exit_test(tc_err, test_errhandler_back_to_fatal, MPI_ERR_ARG);
    suite_add_tcase(s, tc_err);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(errhandler_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
