/* Unit tests of mpi/: error classes and strings, error reporting, handle encoding. */
#include "config.h"

#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"
#include "tests/unit/fake_rt.h"

static void setup_initialized(void)
{
    int provided;

    fake_rt_setup(2, 4);
    ck_assert_int_eq(MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
}

START_TEST(test_error_string_every_class)
{
    static char seen[MPI_ERR_LASTCODE + 1][MPI_MAX_ERROR_STRING];
    char s[MPI_MAX_ERROR_STRING];
    const char *name;
    size_t nl;
    int len;

    for (int c = 0; c <= MPI_ERR_LASTCODE; c++) {
        memset(s, 'x', sizeof(s));
        len = -1;
        ck_assert_int_eq(MPI_Error_string(c, s, &len), MPI_SUCCESS);
        ck_assert_int_eq(len, (int)strlen(s));
        ck_assert_int_lt(len, MPI_MAX_ERROR_STRING);
        name = tm_mpi_error_class_name(c);
        ck_assert_ptr_nonnull(name);
        ck_assert_int_eq(strncmp(name, "MPI_", 4), 0);
        /* "NAME: description" */
        nl = strlen(name);
        ck_assert_int_eq(strncmp(s, name, nl), 0);
        ck_assert_int_eq(s[nl], ':');
        ck_assert_int_eq(s[nl + 1], ' ');
        ck_assert_int_gt(len, (int)nl + 2);
        strcpy(seen[c], s);
        for (int d = 0; d < c; d++)
            ck_assert_str_ne(seen[d], seen[c]);
    }
}
END_TEST

START_TEST(test_error_class_names)
{
    ck_assert_str_eq(tm_mpi_error_class_name(MPI_SUCCESS), "MPI_SUCCESS");
    ck_assert_str_eq(tm_mpi_error_class_name(MPI_ERR_COMM), "MPI_ERR_COMM");
    ck_assert_str_eq(tm_mpi_error_class_name(MPI_ERR_ARG), "MPI_ERR_ARG");
    ck_assert_str_eq(tm_mpi_error_class_name(MPI_ERR_OTHER), "MPI_ERR_OTHER");
    ck_assert_str_eq(tm_mpi_error_class_name(MPI_ERR_IO), "MPI_ERR_IO");
    ck_assert_str_eq(tm_mpi_error_class_name(MPI_ERR_LASTCODE), "MPI_ERR_LASTCODE");
    ck_assert_ptr_null(tm_mpi_error_class_name(-1));
    ck_assert_ptr_null(tm_mpi_error_class_name(MPI_ERR_LASTCODE + 1));
}
END_TEST

START_TEST(test_error_string_comm)
{
    char s[MPI_MAX_ERROR_STRING];
    int len;

    ck_assert_int_eq(MPI_Error_string(MPI_ERR_COMM, s, &len), MPI_SUCCESS);
    ck_assert_str_eq(s, "MPI_ERR_COMM: invalid communicator");
    ck_assert_int_eq(len, 34);
}
END_TEST

START_TEST(test_error_class_identity)
{
    int cls;

    for (int c = 0; c <= MPI_ERR_LASTCODE; c++) {
        cls = -1;
        ck_assert_int_eq(MPI_Error_class(c, &cls), MPI_SUCCESS);
        ck_assert_int_eq(cls, c);
    }
}
END_TEST

START_TEST(test_error_string_negative_code)
{
    char s[MPI_MAX_ERROR_STRING];
    int len;

    fake_rt_expect_abort(2, "MPI_Error_string (rank 2): invalid error code -1 (MPI_ERR_ARG)\n");
    MPI_Error_string(-1, s, &len);
}
END_TEST

START_TEST(test_error_string_code_too_large)
{
    char s[MPI_MAX_ERROR_STRING];
    int len;

    fake_rt_expect_abort(2, "MPI_Error_string (rank 2): invalid error code 59 (MPI_ERR_ARG)\n");
    MPI_Error_string(MPI_ERR_LASTCODE + 1, s, &len);
}
END_TEST

START_TEST(test_error_string_null_string)
{
    int len;

    fake_rt_expect_abort(2, "MPI_Error_string (rank 2): string is NULL (MPI_ERR_ARG)\n");
    MPI_Error_string(MPI_ERR_COMM, NULL, &len);
}
END_TEST

START_TEST(test_error_string_null_resultlen)
{
    char s[MPI_MAX_ERROR_STRING];

    fake_rt_expect_abort(2, "MPI_Error_string (rank 2): resultlen is NULL (MPI_ERR_ARG)\n");
    MPI_Error_string(MPI_ERR_COMM, s, NULL);
}
END_TEST

START_TEST(test_error_class_invalid_code)
{
    int cls;

    fake_rt_expect_abort(2, "MPI_Error_class (rank 2): invalid error code 1000 (MPI_ERR_ARG)\n");
    MPI_Error_class(1000, &cls);
}
END_TEST

START_TEST(test_error_class_null)
{
    fake_rt_expect_abort(2, "MPI_Error_class (rank 2): errorclass is NULL (MPI_ERR_ARG)\n");
    MPI_Error_class(MPI_ERR_ARG, NULL);
}
END_TEST

START_TEST(test_error_string_before_init)
{
    char s[MPI_MAX_ERROR_STRING];
    int len;

    fake_rt_setup(1, 4);
    fake_rt_expect_abort(1, "MPI_Error_string (rank 1): called before MPI_Init (MPI_ERR_OTHER)\n");
    MPI_Error_string(MPI_ERR_COMM, s, &len);
}
END_TEST

/* The handler of MPI_COMM_WORLD decides: with MPI_ERRORS_RETURN the class comes back, silently. */
START_TEST(test_error_raise_return_handler)
{
    tm_mpi_rank_t *r = fake_rt_rank.mpi;
    char s[MPI_MAX_ERROR_STRING] = "untouched";
    int len = -1;

    r->world.errhandler = MPI_ERRORS_RETURN;
    fake_rt_capture_stderr();
    ck_assert_int_eq(MPI_Error_string(-5, s, &len), MPI_ERR_ARG);
    ck_assert_int_eq(MPI_Error_class(-5, &len), MPI_ERR_ARG);
    ck_assert_int_eq(tm_mpi_error_raise(&fake_rt_rank, NULL, "MPI_Test", MPI_ERR_TAG, "bad tag"),
                     MPI_ERR_TAG);
    ck_assert_str_eq(fake_rt_captured_stderr(), "");
    ck_assert_str_eq(s, "untouched");
}
END_TEST

/* A communicator's own handler applies to errors on it, not MPI_COMM_WORLD's. */
START_TEST(test_error_raise_comm_handler)
{
    tm_mpi_rank_t *r = fake_rt_rank.mpi;

    r->self.errhandler = MPI_ERRORS_RETURN;
    ck_assert_int_eq(tm_mpi_error_raise(&fake_rt_rank, &r->self, "MPI_Send", MPI_ERR_RANK, "x"),
                     MPI_ERR_RANK);
    fake_rt_expect_abort(2, "MPI_Send (rank 2): rank 7 is not in [0, 4) (MPI_ERR_RANK)\n");
    tm_mpi_error_raise(&fake_rt_rank, &r->world, "MPI_Send", MPI_ERR_RANK,
                       "rank %d is not in [0, %d)", 7, 4);
}
END_TEST

START_TEST(test_error_raise_not_a_rank)
{
    fake_rt_expect_abort(-1, "MPI_Recv (rank ?): oops (MPI_ERR_OTHER)\n");
    tm_mpi_error_raise(NULL, NULL, "MPI_Recv", MPI_ERR_OTHER, "oops");
}
END_TEST

/* A message longer than the line buffer is cut, and still ends its line. */
START_TEST(test_error_fatal_long_message)
{
    static char expected[1024];
    char *arg = malloc(4000);
    const char *prefix = "MPI_Send (rank 2): ";

    memset(arg, 'a', 3999);
    arg[3999] = '\0';
    strcpy(expected, prefix);
    memset(expected + strlen(prefix), 'a', 1022 - strlen(prefix));
    expected[1022] = '\n';
    expected[1023] = '\0';
    fake_rt_expect_abort(2, expected);
    tm_mpi_error_fatal(&fake_rt_rank, "MPI_Send", MPI_ERR_OTHER, "%s", arg);
}
END_TEST

/* Every predefined handle is of its kind, and no two of a kind are equal (but the synonyms). */
START_TEST(test_handle_kinds)
{
    static const struct {
        int handle;
        tm_mpi_kind_t kind;
    } handles[] = {
        {MPI_COMM_NULL, TM_MPI_KIND_COMM},
        {MPI_COMM_WORLD, TM_MPI_KIND_COMM},
        {MPI_COMM_SELF, TM_MPI_KIND_COMM},
        {MPI_GROUP_NULL, TM_MPI_KIND_GROUP},
        {MPI_GROUP_EMPTY, TM_MPI_KIND_GROUP},
        {MPI_DATATYPE_NULL, TM_MPI_KIND_DATATYPE},
        {MPI_INT, TM_MPI_KIND_DATATYPE},
        {MPI_UB, TM_MPI_KIND_DATATYPE},
        {MPI_OP_NULL, TM_MPI_KIND_OP},
        {MPI_SUM, TM_MPI_KIND_OP},
        {MPI_NO_OP, TM_MPI_KIND_OP},
        {MPI_ERRHANDLER_NULL, TM_MPI_KIND_ERRHANDLER},
        {MPI_ERRORS_ARE_FATAL, TM_MPI_KIND_ERRHANDLER},
        {MPI_ERRORS_RETURN, TM_MPI_KIND_ERRHANDLER},
        {MPI_REQUEST_NULL, TM_MPI_KIND_REQUEST},
        {MPI_INFO_NULL, TM_MPI_KIND_INFO},
        {MPI_INFO_ENV, TM_MPI_KIND_INFO},
        {MPI_WIN_NULL, TM_MPI_KIND_WIN},
        {MPI_FILE_NULL, TM_MPI_KIND_FILE},
        {MPI_MESSAGE_NULL, TM_MPI_KIND_MESSAGE},
        {MPI_MESSAGE_NO_PROC, TM_MPI_KIND_MESSAGE},
        {MPI_KEYVAL_INVALID, TM_MPI_KIND_KEYVAL},
        {MPI_TAG_UB, TM_MPI_KIND_KEYVAL},
        {MPI_WTIME_IS_GLOBAL, TM_MPI_KIND_KEYVAL},
        {MPI_WIN_MODEL, TM_MPI_KIND_KEYVAL},
        {MPIX_DEFERRED_SEND_NULL, TM_MPI_KIND_DEFERRED},
    };

    for (size_t i = 0; i < sizeof(handles) / sizeof(handles[0]); i++)
        ck_assert_int_eq(tm_mpi_handle_kind(handles[i].handle), handles[i].kind);
    ck_assert_uint_eq(tm_mpi_handle_payload(MPI_COMM_NULL), 0);
    ck_assert_uint_eq(tm_mpi_handle_payload(MPI_DATATYPE_NULL), 0);
    ck_assert_uint_eq(tm_mpi_handle_payload(MPI_REQUEST_NULL), 0);
    ck_assert_uint_ne(tm_mpi_handle_payload(MPI_COMM_WORLD), 0);
    ck_assert_int_eq(MPI_LONG_LONG, MPI_LONG_LONG_INT);
    ck_assert_int_eq(MPI_C_COMPLEX, MPI_C_FLOAT_COMPLEX);
    ck_assert_int_eq(MPI_INTEGER, MPI_DATATYPE_NULL);
}
END_TEST

START_TEST(test_handle_kind_of_non_handles)
{
    ck_assert_int_eq(tm_mpi_handle_kind(0), TM_MPI_KIND_NONE);
    ck_assert_int_eq(tm_mpi_handle_kind(1), TM_MPI_KIND_NONE);
    ck_assert_int_eq(tm_mpi_handle_kind(-1), TM_MPI_KIND_NONE);
    ck_assert_int_eq(tm_mpi_handle_kind(MPI_ANY_SOURCE), TM_MPI_KIND_NONE);
    ck_assert_int_eq(tm_mpi_handle_kind(MPI_UNDEFINED), TM_MPI_KIND_NONE);
    ck_assert_int_eq(tm_mpi_handle_kind(0x04000001), TM_MPI_KIND_NONE);
    ck_assert_int_eq(tm_mpi_handle_kind((int)0xc4000001u), TM_MPI_KIND_NONE);
    /* kinds 13 to 15 do not exist */
    ck_assert_int_eq(tm_mpi_handle_kind(0x74000001), TM_MPI_KIND_NONE);
    ck_assert_int_eq(tm_mpi_handle_kind(0x7c000001), TM_MPI_KIND_NONE);
    ck_assert_int_eq(tm_mpi_handle_kind(TM_MPI_HANDLE(TM_MPI_KIND_WIN, 5)), TM_MPI_KIND_WIN);
    ck_assert_str_eq(tm_mpi_handle_kind_name(TM_MPI_KIND_DATATYPE), "a datatype");
    ck_assert_str_eq(tm_mpi_handle_kind_name(TM_MPI_KIND_NONE), "not an MPI handle");
    ck_assert_str_eq(tm_mpi_handle_kind_name(TM_MPI_KIND_DEFERRED), "a deferred send");
}
END_TEST

START_TEST(test_handle_datatypes)
{
    static const struct {
        MPI_Datatype type;
        size_t size;
    } types[] = {
        {MPI_CHAR, sizeof(char)},
        {MPI_SIGNED_CHAR, sizeof(signed char)},
        {MPI_UNSIGNED_CHAR, sizeof(unsigned char)},
        {MPI_BYTE, 1},
        {MPI_WCHAR, sizeof(wchar_t)},
        {MPI_SHORT, sizeof(short)},
        {MPI_UNSIGNED_SHORT, sizeof(unsigned short)},
        {MPI_INT, sizeof(int)},
        {MPI_UNSIGNED, sizeof(unsigned)},
        {MPI_LONG, sizeof(long)},
        {MPI_UNSIGNED_LONG, sizeof(unsigned long)},
        {MPI_LONG_LONG_INT, sizeof(long long)},
        {MPI_UNSIGNED_LONG_LONG, sizeof(unsigned long long)},
        {MPI_FLOAT, sizeof(float)},
        {MPI_DOUBLE, sizeof(double)},
        {MPI_LONG_DOUBLE, sizeof(long double)},
        {MPI_C_BOOL, sizeof(_Bool)},
        {MPI_INT8_T, 1},
        {MPI_INT16_T, 2},
        {MPI_INT32_T, 4},
        {MPI_INT64_T, 8},
        {MPI_UINT8_T, 1},
        {MPI_UINT16_T, 2},
        {MPI_UINT32_T, 4},
        {MPI_UINT64_T, 8},
        {MPI_AINT, sizeof(MPI_Aint)},
        {MPI_OFFSET, sizeof(MPI_Offset)},
        {MPI_COUNT, sizeof(MPI_Count)},
        {MPI_C_FLOAT_COMPLEX, sizeof(float _Complex)},
        {MPI_C_DOUBLE_COMPLEX, sizeof(double _Complex)},
        {MPI_C_LONG_DOUBLE_COMPLEX, sizeof(long double _Complex)},
        {MPI_PACKED, 1},
        {MPI_FLOAT_INT, 0},
        {MPI_DOUBLE_INT, 0},
        {MPI_LONG_INT, 0},
        {MPI_2INT, 0},
        {MPI_SHORT_INT, 0},
        {MPI_LONG_DOUBLE_INT, 0},
        {MPI_LB, 0},
        {MPI_UB, 0},
        {MPI_CXX_BOOL, sizeof(_Bool)},
        {MPI_CXX_FLOAT_COMPLEX, sizeof(float _Complex)},
        {MPI_CXX_DOUBLE_COMPLEX, sizeof(double _Complex)},
        {MPI_CXX_LONG_DOUBLE_COMPLEX, sizeof(long double _Complex)},
    };
    size_t n = sizeof(types) / sizeof(types[0]);

    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(tm_mpi_handle_kind(types[i].type), TM_MPI_KIND_DATATYPE);
        ck_assert_uint_eq(TM_MPI_DATATYPE_BUILTIN_SIZE(types[i].type), types[i].size);
        ck_assert_int_ne(types[i].type, MPI_DATATYPE_NULL);
        for (size_t j = 0; j < i; j++)
            ck_assert_int_ne(types[i].type, types[j].type);
    }
}
END_TEST

static Suite *error_suite(void)
{
    Suite *s = suite_create("mpi_error");
    TCase *tc = tcase_create("classes");
    TCase *tc_raise = tcase_create("raise");
    TCase *tc_handle = tcase_create("handles");

    tcase_add_checked_fixture(tc, setup_initialized, NULL);
    tcase_add_test(tc, test_error_string_every_class);
    tcase_add_test(tc, test_error_class_names);
    tcase_add_test(tc, test_error_string_comm);
    tcase_add_test(tc, test_error_class_identity);
    tcase_add_exit_test(tc, test_error_string_negative_code, MPI_ERR_ARG);
    tcase_add_exit_test(tc, test_error_string_code_too_large, MPI_ERR_ARG);
    tcase_add_exit_test(tc, test_error_string_null_string, MPI_ERR_ARG);
    tcase_add_exit_test(tc, test_error_string_null_resultlen, MPI_ERR_ARG);
    tcase_add_exit_test(tc, test_error_class_invalid_code, MPI_ERR_ARG);
    tcase_add_exit_test(tc, test_error_class_null, MPI_ERR_ARG);
    tcase_add_exit_test(tc, test_error_string_before_init, MPI_ERR_OTHER);
    suite_add_tcase(s, tc);

    tcase_add_checked_fixture(tc_raise, setup_initialized, NULL);
    tcase_add_test(tc_raise, test_error_raise_return_handler);
    tcase_add_exit_test(tc_raise, test_error_raise_comm_handler, MPI_ERR_RANK);
    tcase_add_exit_test(tc_raise, test_error_raise_not_a_rank, MPI_ERR_OTHER);
    tcase_add_exit_test(tc_raise, test_error_fatal_long_message, MPI_ERR_OTHER);
    suite_add_tcase(s, tc_raise);

    tcase_add_test(tc_handle, test_handle_kinds);
    tcase_add_test(tc_handle, test_handle_kind_of_non_handles);
    tcase_add_test(tc_handle, test_handle_datatypes);
    suite_add_tcase(s, tc_handle);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(error_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
