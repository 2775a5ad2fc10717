/* Unit tests of mpi/: info objects (order of keys, lengths, MPI_INFO_ENV, argument checks). */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"
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
}

static void check_keys(MPI_Info info, int n, const char *const *keys)
{
    char key[MPI_MAX_INFO_KEY + 1];
    int nkeys = -1;

    ck_assert_int_eq(MPI_Info_get_nkeys(info, &nkeys), MPI_SUCCESS);
    ck_assert_int_eq(nkeys, n);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(MPI_Info_get_nthkey(info, i, key), MPI_SUCCESS);
        ck_assert_str_eq(key, keys[i]);
    }
}

START_TEST(test_info_order)
{
    MPI_Info info = MPI_INFO_NULL, dup;
    char value[64];
    int flag = -1, len = -1;

    ck_assert_int_eq(MPI_Info_create(&info), MPI_SUCCESS);
    ck_assert_int_eq(tm_mpi_handle_kind(info), TM_MPI_KIND_INFO);
    ck_assert_int_ne(info, MPI_INFO_ENV);
    check_keys(info, 0, NULL);
    ck_assert_int_eq(MPI_Info_set(info, "zeta", "1"), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Info_set(info, "alpha", "two"), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Info_set(info, "mid", "3"), MPI_SUCCESS);
    check_keys(info, 3, (const char *[]){"zeta", "alpha", "mid"});
    /* A new value keeps the key's place. */
    ck_assert_int_eq(MPI_Info_set(info, "zeta", "one"), MPI_SUCCESS);
    check_keys(info, 3, (const char *[]){"zeta", "alpha", "mid"});
    ck_assert_int_eq(MPI_Info_get(info, "zeta", 63, value, &flag), MPI_SUCCESS);
    ck_assert_int_eq(flag, 1);
    ck_assert_str_eq(value, "one");
    ck_assert_int_eq(MPI_Info_get_valuelen(info, "alpha", &len, &flag), MPI_SUCCESS);
    ck_assert_int_eq(flag, 1);
    ck_assert_int_eq(len, 3);
    /* Keys are case-sensitive. */
    ck_assert_int_eq(MPI_Info_get(info, "ZETA", 63, value, &flag), MPI_SUCCESS);
    ck_assert_int_eq(flag, 0);
    ck_assert_int_eq(MPI_Info_get_valuelen(info, "none", &len, &flag), MPI_SUCCESS);
    ck_assert_int_eq(flag, 0);
    ck_assert_int_eq(len, 3);
    ck_assert_int_eq(MPI_Info_delete(info, "alpha"), MPI_SUCCESS);
    check_keys(info, 2, (const char *[]){"zeta", "mid"});
    ck_assert_int_eq(MPI_Info_set(info, "alpha", "back"), MPI_SUCCESS);
    check_keys(info, 3, (const char *[]){"zeta", "mid", "alpha"});
    /* A duplicate is a separate object with the same keys in the same order. */
    ck_assert_int_eq(MPI_Info_dup(info, &dup), MPI_SUCCESS);
    ck_assert_int_ne(dup, info);
    check_keys(dup, 3, (const char *[]){"zeta", "mid", "alpha"});
    ck_assert_int_eq(MPI_Info_delete(dup, "zeta"), MPI_SUCCESS);
    check_keys(info, 3, (const char *[]){"zeta", "mid", "alpha"});
    check_keys(dup, 2, (const char *[]){"mid", "alpha"});
    ck_assert_int_eq(MPI_Info_get(dup, "alpha", 63, value, &flag), MPI_SUCCESS);
    ck_assert_str_eq(value, "back");
    ck_assert_int_eq(MPI_Info_free(&info), MPI_SUCCESS);
    ck_assert_int_eq(info, MPI_INFO_NULL);
    check_keys(dup, 2, (const char *[]){"mid", "alpha"});
    /* dup is left for MPI_Finalize. */
}
END_TEST

START_TEST(test_info_lengths)
{
    char key[MPI_MAX_INFO_KEY + 2], value[MPI_MAX_INFO_VAL + 2], out[MPI_MAX_INFO_VAL + 1];
    MPI_Info info;
    int flag, len;

    errors_return();
    ck_assert_int_eq(MPI_Info_create(&info), MPI_SUCCESS);
    memset(key, 'k', MPI_MAX_INFO_KEY);
    key[MPI_MAX_INFO_KEY] = '\0';
    memset(value, 'v', MPI_MAX_INFO_VAL);
    value[MPI_MAX_INFO_VAL] = '\0';
    ck_assert_int_eq(MPI_Info_set(info, key, value), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Info_get_valuelen(info, key, &len, &flag), MPI_SUCCESS);
    ck_assert_int_eq(len, MPI_MAX_INFO_VAL);
    ck_assert_int_eq(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, out, &flag), MPI_SUCCESS);
    ck_assert_int_eq((int)strlen(out), MPI_MAX_INFO_VAL);
    /* Truncated to valuelen characters. */
    memset(out, 'x', sizeof(out));
    ck_assert_int_eq(MPI_Info_get(info, key, 5, out, &flag), MPI_SUCCESS);
    ck_assert_int_eq(flag, 1);
    ck_assert_str_eq(out, "vvvvv");
    ck_assert_int_eq(MPI_Info_get(info, key, 0, out, &flag), MPI_SUCCESS);
    ck_assert_str_eq(out, "");
    ck_assert_int_eq(MPI_Info_get_nthkey(info, 0, out), MPI_SUCCESS);
    ck_assert_int_eq((int)strlen(out), MPI_MAX_INFO_KEY);
    key[MPI_MAX_INFO_KEY] = 'k';
    key[MPI_MAX_INFO_KEY + 1] = '\0';
    ck_assert_int_eq(MPI_Info_set(info, key, "v"), MPI_ERR_INFO_KEY);
    ck_assert_int_eq(MPI_Info_get(info, key, 5, out, &flag), MPI_ERR_INFO_KEY);
    ck_assert_int_eq(MPI_Info_get_valuelen(info, key, &len, &flag), MPI_ERR_INFO_KEY);
    ck_assert_int_eq(MPI_Info_delete(info, key), MPI_ERR_INFO_KEY);
    value[MPI_MAX_INFO_VAL] = 'v';
    value[MPI_MAX_INFO_VAL + 1] = '\0';
    ck_assert_int_eq(MPI_Info_set(info, "k", value), MPI_ERR_INFO_VALUE);
    ck_assert_int_eq(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY);
    ck_assert_int_eq(MPI_Info_set(info, NULL, "v"), MPI_ERR_INFO_KEY);
    ck_assert_int_eq(MPI_Info_set(info, "k", NULL), MPI_ERR_INFO_VALUE);
    /* An empty value is a value. */
    ck_assert_int_eq(MPI_Info_set(info, "empty", ""), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Info_get_valuelen(info, "empty", &len, &flag), MPI_SUCCESS);
    ck_assert_int_eq(flag, 1);
    ck_assert_int_eq(len, 0);
    check_keys(info, 2, (const char *[]){key + 1, "empty"});
    ck_assert_int_eq(MPI_Info_free(&info), MPI_SUCCESS);
}
END_TEST

START_TEST(test_info_env)
{
    char value[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 1];
    MPI_Info dup, env = MPI_INFO_ENV;
    int flag = 0, nkeys = -1;

    ck_assert_int_eq(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, value, &flag),
                     MPI_SUCCESS);
    ck_assert_int_eq(flag, 1);
    ck_assert_str_eq(value, "8");
    ck_assert_int_eq(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys), MPI_SUCCESS);
    ck_assert_int_ge(nkeys, 1);
    ck_assert_int_eq(MPI_Info_get_nthkey(MPI_INFO_ENV, 0, key), MPI_SUCCESS);
    ck_assert_str_eq(key, "maxprocs");
    ck_assert_int_eq(MPI_Info_dup(MPI_INFO_ENV, &dup), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Info_set(dup, "maxprocs", "9"), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Info_get_nthkey(dup, 0, key), MPI_SUCCESS);
    ck_assert_str_eq(key, "maxprocs");
    ck_assert_int_eq(MPI_Info_get_nkeys(dup, &flag), MPI_SUCCESS);
    ck_assert_int_eq(flag, nkeys);
    ck_assert_int_eq(MPI_Info_free(&dup), MPI_SUCCESS);
    errors_return();
    ck_assert_int_eq(MPI_Info_set(MPI_INFO_ENV, "maxprocs", "9"), MPI_ERR_INFO);
    ck_assert_int_eq(MPI_Info_delete(MPI_INFO_ENV, "maxprocs"), MPI_ERR_INFO);
    ck_assert_int_eq(MPI_Info_free(&env), MPI_ERR_INFO);
    ck_assert_int_eq(env, MPI_INFO_ENV);
    ck_assert_int_eq(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, value, &flag),
                     MPI_SUCCESS);
    ck_assert_str_eq(value, "8");
}
END_TEST

START_TEST(test_info_error_classes)
{
    MPI_Info info, freed;
    char value[16] = "untouched", key[MPI_MAX_INFO_KEY + 1];
    int flag = -1, n = -1;

    errors_return();
    ck_assert_int_eq(MPI_Info_create(NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Info_create(&info), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Info_set(info, "a", "1"), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Info_set(MPI_INFO_NULL, "a", "1"), MPI_ERR_INFO);
    ck_assert_int_eq(MPI_Info_set(MPI_COMM_WORLD, "a", "1"), MPI_ERR_INFO);
    ck_assert_int_eq(MPI_Info_set(0x5c000077, "a", "1"), MPI_ERR_INFO);
    ck_assert_int_eq(MPI_Info_get(info, "a", -1, value, &flag), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Info_get(info, "a", 5, NULL, &flag), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Info_get(info, "a", 5, value, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Info_get_valuelen(info, "a", NULL, &flag), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Info_get_valuelen(info, "a", &n, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Info_get_nkeys(info, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Info_get_nkeys(MPI_INFO_NULL, &n), MPI_ERR_INFO);
    ck_assert_int_eq(MPI_Info_get_nthkey(info, 1, key), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Info_get_nthkey(info, -1, key), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Info_get_nthkey(info, 0, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Info_delete(info, "b"), MPI_ERR_INFO_NOKEY);
    ck_assert_int_eq(MPI_Info_dup(info, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Info_dup(MPI_INFO_NULL, &freed), MPI_ERR_INFO);
    ck_assert_int_eq(MPI_Info_free(NULL), MPI_ERR_ARG);
    freed = info;
    ck_assert_int_eq(MPI_Info_free(&info), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Info_free(&freed), MPI_ERR_INFO);
    ck_assert_int_eq(MPI_Info_get_nkeys(freed, &n), MPI_ERR_INFO);
    ck_assert_int_eq(MPI_Info_free(&info), MPI_ERR_INFO);
    ck_assert_int_eq(flag, -1);
    ck_assert_int_eq(n, -1);
    ck_assert_str_eq(value, "untouched");
}
END_TEST

START_TEST(test_info_nokey_fatal)
{
    MPI_Info info;

    MPI_Info_create(&info);
    fake_rt_expect_abort(3, "MPI_Info_delete (rank 3): no key \"nope\" (MPI_ERR_INFO_NOKEY)\n");
    MPI_Info_delete(info, "nope");
}
END_TEST

START_TEST(test_info_env_fatal)
{
    fake_rt_expect_abort(3, "MPI_Info_set (rank 3): MPI_INFO_ENV is read-only (MPI_ERR_INFO)\n");
    MPI_Info_set(MPI_INFO_ENV, "a", "b");
}
END_TEST

static Suite *info_suite(void)
{
    Suite *s = suite_create("mpi_info");
    TCase *tc = tcase_create("info");
    TCase *tc_err = tcase_create("errors");

    tcase_add_checked_fixture(tc, setup_rank3, NULL);
    tcase_add_test(tc, test_info_order);
    tcase_add_test(tc, test_info_lengths);
    tcase_add_test(tc, test_info_env);
    suite_add_tcase(s, tc);

    tcase_add_checked_fixture(tc_err, setup_rank3, NULL);
    tcase_add_test(tc_err, test_info_error_classes);
    tcase_add_exit_test(tc_err, test_info_nokey_fatal, MPI_ERR_INFO_NOKEY);
    tcase_add_exit_test(tc_err, test_info_env_fatal, MPI_ERR_INFO);
    suite_add_tcase(s, tc_err);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(info_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
