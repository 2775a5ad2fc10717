/* Unit tests of mpi/: the clock, the versions, the processor name. */
#include "config.h"

#include <check.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi/mpi_impl.h"
#include "tests/unit/fake_rt.h"

static void setup_rank0(void)
{
    fake_rt_setup(0, 2);
}

/* MPI_Wtime is the runtime's clock, at any time and from any thread. */
START_TEST(test_wtime)
{
    fake_rt_now = 12.5;
    ck_assert_double_eq(MPI_Wtime(), 12.5);
    fake_rt_set_caller(0);
    fake_rt_now = 13.25;
    ck_assert_double_eq(MPI_Wtime(), 13.25);
    fake_rt_set_caller(1);
    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    ck_assert_double_eq(MPI_Wtime(), 13.25);
    ck_assert_int_eq(MPI_Finalize(), MPI_SUCCESS);
    fake_rt_now = 14.0;
    ck_assert_double_eq(MPI_Wtime(), 14.0);
}
END_TEST

START_TEST(test_wtick)
{
    double tick = MPI_Wtick();

    ck_assert_double_gt(tick, 0.0);
    ck_assert_double_le(tick, 1e-3);
    fake_rt_set_caller(0);
    ck_assert_double_eq(MPI_Wtick(), tick);
}
END_TEST

START_TEST(test_get_version)
{
    int version = -1, subversion = -1;

    ck_assert_int_eq(MPI_Get_version(&version, &subversion), MPI_SUCCESS);
    ck_assert_int_eq(version, 3);
    ck_assert_int_eq(subversion, 1);
    ck_assert_int_eq(MPI_VERSION, 3);
    ck_assert_int_eq(MPI_SUBVERSION, 1);
    version = subversion = -1;
    fake_rt_set_caller(0);
    ck_assert_int_eq(MPI_Get_version(&version, &subversion), MPI_SUCCESS);
    ck_assert_int_eq(version, 3);
    ck_assert_int_eq(subversion, 1);
}
END_TEST

START_TEST(test_get_version_null)
{
    int version;

    fake_rt_expect_abort(0, "MPI_Get_version (rank 0): subversion is NULL (MPI_ERR_ARG)\n");
    MPI_Get_version(&version, NULL);
}
END_TEST

START_TEST(test_get_version_null_not_a_rank)
{
    int subversion;

    fake_rt_set_caller(0);
    fake_rt_expect_abort(-1, "MPI_Get_version (rank ?): version is NULL (MPI_ERR_ARG)\n");
    MPI_Get_version(NULL, &subversion);
}
END_TEST

START_TEST(test_get_library_version)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = -1;

    ck_assert_int_eq(MPI_Get_library_version(v, &len), MPI_SUCCESS);
    ck_assert_int_eq(len, (int)strlen(v));
    ck_assert_int_eq(strncmp(v, "ThreadMPI " PACKAGE_VERSION " ", strlen(PACKAGE_VERSION) + 11), 0);
    ck_assert_ptr_nonnull(strstr(v, "MPI 3.1"));
    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Finalize(), MPI_SUCCESS);
    len = -1;
    ck_assert_int_eq(MPI_Get_library_version(v, &len), MPI_SUCCESS);
    ck_assert_int_eq(len, (int)strlen(v));
}
END_TEST

START_TEST(test_get_library_version_null)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];

    fake_rt_expect_abort(0, "MPI_Get_library_version (rank 0): resultlen is NULL (MPI_ERR_ARG)\n");
    MPI_Get_library_version(v, NULL);
}
END_TEST

START_TEST(test_get_processor_name)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    char host[HOST_NAME_MAX + 1] = "";
    int len = -1;

    ck_assert_int_eq(gethostname(host, sizeof(host)), 0);
    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    memset(name, 'x', sizeof(name));
    ck_assert_int_eq(MPI_Get_processor_name(name, &len), MPI_SUCCESS);
    ck_assert_str_eq(name, host);
    ck_assert_int_eq(len, (int)strlen(host));
    ck_assert_int_gt(len, 0);
}
END_TEST

START_TEST(test_get_processor_name_null)
{
    int len;

    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
    fake_rt_expect_abort(0, "MPI_Get_processor_name (rank 0): name is NULL (MPI_ERR_ARG)\n");
    MPI_Get_processor_name(NULL, &len);
}
END_TEST

START_TEST(test_get_processor_name_before_init)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    int len;

    fake_rt_expect_abort(
        0, "MPI_Get_processor_name (rank 0): called before MPI_Init (MPI_ERR_OTHER)\n");
    MPI_Get_processor_name(name, &len);
}
END_TEST

static Suite *env_suite(void)
{
    Suite *s = suite_create("mpi_env");
    TCase *tc = tcase_create("env");

    tcase_add_checked_fixture(tc, setup_rank0, NULL);
    tcase_add_test(tc, test_wtime);
    tcase_add_test(tc, test_wtick);
    tcase_add_test(tc, test_get_version);
    tcase_add_exit_test(tc, test_get_version_null, MPI_ERR_ARG);
    tcase_add_exit_test(tc, test_get_version_null_not_a_rank, MPI_ERR_ARG);
    tcase_add_test(tc, test_get_library_version);
    tcase_add_exit_test(tc, test_get_library_version_null, MPI_ERR_ARG);
    tcase_add_test(tc, test_get_processor_name);
    tcase_add_exit_test(tc, test_get_processor_name_null, MPI_ERR_ARG);
    tcase_add_exit_test(tc, test_get_processor_name_before_init, MPI_ERR_OTHER);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(env_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
