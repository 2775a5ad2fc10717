/* Unit tests of mpi/: communicator attributes (keyvals, callbacks and their arguments and
 * errors, predefined attributes, tm_mpi_attr_copy_all/delete_all for MPI_Comm_dup/free). */
#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "mpi/attr.h"
#include "tests/unit/fake_rt.h"

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

/* The calls the callbacks received, in order. */
typedef struct call_log {
    char what; /* 'c' copy, 'd' delete */
    MPI_Comm comm;
    int keyval;
    void *value;
    void *extra;
} call_log_t;

static call_log_t log_[32];
static int nlog;
static int delete_result = MPI_SUCCESS;
static int copy_result = MPI_SUCCESS;
static int copy_flag = 1;

static int copy_cb(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    log_[nlog++] = (call_log_t){'c', oldcomm, keyval, in, extra};
    /* The copy is the value + 1000. */
    *(void **)out = (char *)in + 1000;
    *flag = copy_flag;
    return copy_result;
}

static int delete_cb(MPI_Comm comm, int keyval, void *value, void *extra)
{
    log_[nlog++] = (call_log_t){'d', comm, keyval, value, extra};
    return delete_result;
}

static void *v(long x)
{
    return (void *)x;
}

static void check_log(int i, char what, MPI_Comm comm, int keyval, long value, void *extra)
{
    ck_assert_int_gt(nlog, i);
    ck_assert_int_eq(log_[i].what, what);
    ck_assert_int_eq(log_[i].comm, comm);
    ck_assert_int_eq(log_[i].keyval, keyval);
    ck_assert_ptr_eq(log_[i].value, v(value));
    ck_assert_ptr_eq(log_[i].extra, extra);
}

START_TEST(test_attr_set_get_delete)
{
    int key = MPI_KEYVAL_INVALID, flag = -1, extra;
    void *val = NULL;

    ck_assert_int_eq(MPI_Comm_create_keyval(copy_cb, delete_cb, &key, &extra), MPI_SUCCESS);
    ck_assert_int_eq(tm_mpi_handle_kind(key), TM_MPI_KIND_KEYVAL);
    ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &val, &flag), MPI_SUCCESS);
    ck_assert_int_eq(flag, 0);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_WORLD, key, v(11)), MPI_SUCCESS);
    ck_assert_int_eq(nlog, 0);
    ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &val, &flag), MPI_SUCCESS);
    ck_assert_int_eq(flag, 1);
    ck_assert_ptr_eq(val, v(11));
    /* Per communicator. */
    ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_SELF, key, &val, &flag), MPI_SUCCESS);
    ck_assert_int_eq(flag, 0);
    /* Replacing deletes the old value. */
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_WORLD, key, v(22)), MPI_SUCCESS);
    ck_assert_int_eq(nlog, 1);
    check_log(0, 'd', MPI_COMM_WORLD, key, 11, &extra);
    ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &val, &flag), MPI_SUCCESS);
    ck_assert_ptr_eq(val, v(22));
    ck_assert_int_eq(MPI_Comm_delete_attr(MPI_COMM_WORLD, key), MPI_SUCCESS);
    ck_assert_int_eq(nlog, 2);
    check_log(1, 'd', MPI_COMM_WORLD, key, 22, &extra);
    ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &val, &flag), MPI_SUCCESS);
    ck_assert_int_eq(flag, 0);
    /* Deleting what is not there does nothing. */
    ck_assert_int_eq(MPI_Comm_delete_attr(MPI_COMM_WORLD, key), MPI_SUCCESS);
    ck_assert_int_eq(nlog, 2);
    ck_assert_int_eq(MPI_Comm_free_keyval(&key), MPI_SUCCESS);
    ck_assert_int_eq(key, MPI_KEYVAL_INVALID);
}
END_TEST

/* A failing delete callback: its error is the call's, and the attribute stays. */
START_TEST(test_attr_delete_error)
{
    int key, flag;
    void *val;

    errors_return();
    ck_assert_int_eq(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cb, &key, NULL),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_SELF, key, v(5)), MPI_SUCCESS);
    delete_result = MPI_ERR_OTHER;
    ck_assert_int_eq(MPI_Comm_delete_attr(MPI_COMM_SELF, key), MPI_ERR_OTHER);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_SELF, key, v(6)), MPI_ERR_OTHER);
    ck_assert_int_eq(nlog, 2);
    check_log(1, 'd', MPI_COMM_SELF, key, 5, NULL);
    ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_SELF, key, &val, &flag), MPI_SUCCESS);
    ck_assert_int_eq(flag, 1);
    ck_assert_ptr_eq(val, v(5));
    delete_result = MPI_SUCCESS;
    ck_assert_int_eq(MPI_Comm_delete_attr(MPI_COMM_SELF, key), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_SELF, key, &val, &flag), MPI_SUCCESS);
    ck_assert_int_eq(flag, 0);
}
END_TEST

/* A freed keyval sets nothing and cannot be freed again, but its attributes live on until
 * deleted, readable through it (as in MPICH and Open MPI), and their callback still gets the
 * keyval's value. */
START_TEST(test_attr_free_keyval_in_use)
{
    tm_mpi_rank_t *r = fake_rt_rank.mpi;
    int key, old, other, flag = -1;
    void *val;

    errors_return();
    ck_assert_int_eq(MPI_Comm_create_keyval(copy_cb, delete_cb, &key, v(77)), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_WORLD, key, v(1)), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_SELF, key, v(2)), MPI_SUCCESS);
    old = key;
    ck_assert_int_eq(MPI_Comm_free_keyval(&key), MPI_SUCCESS);
    ck_assert_int_eq(key, MPI_KEYVAL_INVALID);
    ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_WORLD, old, &val, &flag), MPI_SUCCESS);
    ck_assert_int_eq(flag, 1);
    ck_assert_ptr_eq(val, v(1));
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_WORLD, old, v(3)), MPI_ERR_KEYVAL);
    ck_assert_int_eq(MPI_Comm_free_keyval(&old), MPI_ERR_KEYVAL);
    /* A new keyval does not reuse the handle while attributes hold it. */
    ck_assert_int_eq(MPI_Comm_create_keyval(copy_cb, delete_cb, &other, NULL), MPI_SUCCESS);
    ck_assert_int_ne(other, old);
    ck_assert_int_eq(tm_mpi_attr_delete_all(&r->world), MPI_SUCCESS);
    ck_assert_int_eq(nlog, 1);
    check_log(0, 'd', MPI_COMM_WORLD, old, 1, v(77));
    ck_assert_ptr_null(r->world.attrs);
    /* MPI_Finalize deletes the last one. */
    ck_assert_int_eq(MPI_Finalize(), MPI_SUCCESS);
    ck_assert_int_eq(nlog, 2);
    check_log(1, 'd', MPI_COMM_SELF, old, 2, v(77));
}
END_TEST

/* MPI_Finalize deletes MPI_COMM_SELF's attributes in the reverse order they were set. */
START_TEST(test_attr_finalize_order)
{
    int k1, k2, k3;

    ck_assert_int_eq(MPI_Comm_create_keyval(copy_cb, delete_cb, &k1, NULL), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_create_keyval(copy_cb, delete_cb, &k2, NULL), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_create_keyval(copy_cb, MPI_COMM_NULL_DELETE_FN, &k3, NULL),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_SELF, k2, v(2)), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_SELF, k3, v(3)), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_SELF, k1, v(1)), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_free_keyval(&k1), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Finalize(), MPI_SUCCESS);
    ck_assert_int_eq(nlog, 2);
    ck_assert_ptr_eq(log_[0].value, v(1));
    ck_assert_ptr_eq(log_[1].value, v(2));
}
END_TEST

/* What MPI_Comm_dup and MPI_Comm_free will do, on a communicator view made up here. */
START_TEST(test_attr_copy_delete_all)
{
    tm_mpi_rank_t *r = fake_rt_rank.mpi;
    tm_mpi_comm_t dup = {.owner = r, .handle = 0x44000005};
    int kcopy, knull, kdup, knoflag, flag;
    void *val;

    ck_assert_int_eq(MPI_Comm_create_keyval(copy_cb, delete_cb, &kcopy, v(9)), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cb, &knull, NULL),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, delete_cb, &kdup, NULL), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_create_keyval(copy_cb, delete_cb, &knoflag, NULL), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_WORLD, kcopy, v(1)), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_WORLD, knull, v(2)), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_WORLD, kdup, v(3)), MPI_SUCCESS);
    ck_assert_int_eq(tm_mpi_attr_copy_all(&r->world, &dup), MPI_SUCCESS);
    /* Only the copy callback of kcopy ran (kdup's is the library's). */
    ck_assert_int_eq(nlog, 1);
    check_log(0, 'c', MPI_COMM_WORLD, kcopy, 1, v(9));
    /* Copied: kcopy (value + 1000) and kdup (the same value); not knull. */
    ck_assert_ptr_nonnull(dup.attrs);
    /* The keyval of a copied attribute may be freed: the copy keeps it. */
    ck_assert_int_eq(MPI_Comm_free_keyval(&kdup), MPI_SUCCESS);
    ck_assert_int_eq(tm_mpi_attr_delete_all(&dup), MPI_SUCCESS);
    /* Exactly the two copies, the most recent first. */
    ck_assert_int_eq(nlog, 3);
    ck_assert_int_eq(log_[1].what, 'd');
    ck_assert_int_eq(log_[1].comm, 0x44000005);
    ck_assert_ptr_eq(log_[1].value, v(3));
    check_log(2, 'd', 0x44000005, kcopy, 1001, v(9));
    ck_assert_ptr_null(dup.attrs);
    /* A copy callback that leaves the flag clear copies nothing. */
    copy_flag = 0;
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_SELF, knoflag, v(4)), MPI_SUCCESS);
    ck_assert_int_eq(tm_mpi_attr_copy_all(&r->self, &dup), MPI_SUCCESS);
    ck_assert_ptr_null(dup.attrs);
    /* A failing copy callback: its code comes back. */
    copy_flag = 1;
    copy_result = MPI_ERR_NO_MEM;
    ck_assert_int_eq(tm_mpi_attr_copy_all(&r->self, &dup), MPI_ERR_NO_MEM);
    ck_assert_ptr_null(dup.attrs);
    copy_result = MPI_SUCCESS;
    /* A failing delete callback stops delete_all. */
    ck_assert_int_eq(tm_mpi_attr_copy_all(&r->world, &dup), MPI_SUCCESS);
    ck_assert_ptr_nonnull(dup.attrs);
    nlog = 0;
    delete_result = MPI_ERR_OTHER;
    ck_assert_int_eq(tm_mpi_attr_delete_all(&dup), MPI_ERR_OTHER);
    ck_assert_int_eq(nlog, 1);
    ck_assert_ptr_nonnull(dup.attrs);
    delete_result = MPI_SUCCESS;
    ck_assert_int_eq(tm_mpi_attr_delete_all(&dup), MPI_SUCCESS);
    ck_assert_ptr_null(dup.attrs);
    ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_WORLD, kcopy, &val, &flag), MPI_SUCCESS);
    ck_assert_ptr_eq(val, v(1));
}
END_TEST

START_TEST(test_attr_predefined)
{
    static const int keys[] = {MPI_TAG_UB, MPI_HOST,          MPI_IO,          MPI_WTIME_IS_GLOBAL,
                               MPI_APPNUM, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE};
    const int expected[] = {TM_MPI_TAG_UB,   MPI_PROC_NULL, MPI_ANY_SOURCE, 1, 0, 8,
                            MPI_ERR_LASTCODE};
    int *val, flag, key;

    ck_assert_int_ge(TM_MPI_TAG_UB, 32767);
    for (int i = 0; i < 7; i++) {
        val = NULL;
        flag = 0;
        ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_WORLD, keys[i], &val, &flag), MPI_SUCCESS);
        ck_assert_int_eq(flag, 1);
        ck_assert_int_eq(*val, expected[i]);
        ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_SELF, keys[i], &val, &flag), MPI_SUCCESS);
        ck_assert_int_eq(*val, expected[i]);
    }
    errors_return();
    for (int i = 0; i < 7; i++) {
        ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_WORLD, keys[i], v(1)), MPI_ERR_KEYVAL);
        ck_assert_int_eq(MPI_Comm_delete_attr(MPI_COMM_WORLD, keys[i]), MPI_ERR_KEYVAL);
        key = keys[i];
        ck_assert_int_eq(MPI_Comm_free_keyval(&key), MPI_ERR_KEYVAL);
        ck_assert_int_eq(key, keys[i]);
    }
    ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag), MPI_SUCCESS);
    ck_assert_int_eq(*val, TM_MPI_TAG_UB);
    /* A window's key is no communicator's. */
    ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WIN_BASE, &val, &flag), MPI_ERR_KEYVAL);
}
END_TEST

START_TEST(test_attr_error_classes)
{
    int key, flag = -1;
    void *val = NULL;

    errors_return();
    ck_assert_int_eq(MPI_Comm_create_keyval(copy_cb, delete_cb, NULL, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Comm_create_keyval(copy_cb, delete_cb, &key, NULL), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_NULL, key, v(1)), MPI_ERR_COMM);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, v(1)), MPI_ERR_KEYVAL);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_INT, v(1)), MPI_ERR_KEYVAL);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_WORLD, 5, v(1)), MPI_ERR_KEYVAL);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_WORLD, 0x6c00000f, v(1)), MPI_ERR_KEYVAL);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_WORLD, 0x6c000077, v(1)), MPI_ERR_KEYVAL);
    ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_WORLD, key, NULL, &flag), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &val, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Comm_get_attr(MPI_GROUP_EMPTY, key, &val, &flag), MPI_ERR_COMM);
    ck_assert_int_eq(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID), MPI_ERR_KEYVAL);
    ck_assert_int_eq(MPI_Comm_delete_attr(MPI_COMM_NULL, key), MPI_ERR_COMM);
    ck_assert_int_eq(MPI_Comm_free_keyval(NULL), MPI_ERR_ARG);
    ck_assert_int_eq(flag, -1);
    ck_assert_ptr_null(val);
    ck_assert_int_eq(nlog, 0);
}
END_TEST

START_TEST(test_attr_readonly_fatal)
{
    fake_rt_expect_abort(3, "MPI_Comm_set_attr (rank 3): attribute key 0x6c000001 is predefined "
                            "and read-only (MPI_ERR_KEYVAL)\n");
    MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, v(1));
}
END_TEST

START_TEST(test_attr_delete_fatal)
{
    int key;

    ck_assert_int_eq(MPI_Comm_create_keyval(copy_cb, delete_cb, &key, NULL), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_attr(MPI_COMM_WORLD, key, v(1)), MPI_SUCCESS);
    delete_result = MPI_ERR_BUFFER;
    fake_rt_expect_abort(3, "MPI_Comm_delete_attr (rank 3): the delete callback of attribute key "
                            "0x6c000010 returned 1 (MPI_ERR_BUFFER)\n");
    MPI_Comm_delete_attr(MPI_COMM_WORLD, key);
}
END_TEST

static Suite *attr_suite(void)
{
    Suite *s = suite_create("mpi_attr");
    TCase *tc = tcase_create("attr");
    TCase *tc_err = tcase_create("errors");

    tcase_add_checked_fixture(tc, setup_rank3, NULL);
    tcase_add_test(tc, test_attr_set_get_delete);
    tcase_add_test(tc, test_attr_delete_error);
    tcase_add_test(tc, test_attr_free_keyval_in_use);
    tcase_add_test(tc, test_attr_finalize_order);
    tcase_add_test(tc, test_attr_copy_delete_all);
    tcase_add_test(tc, test_attr_predefined);
    suite_add_tcase(s, tc);

    tcase_add_checked_fixture(tc_err, setup_rank3, NULL);
    tcase_add_test(tc_err, test_attr_error_classes);
    tcase_add_exit_test(tc_err, test_attr_readonly_fatal, MPI_ERR_KEYVAL);
    tcase_add_exit_test(tc_err, test_attr_delete_fatal, MPI_ERR_BUFFER);
    suite_add_tcase(s, tc_err);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(attr_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
