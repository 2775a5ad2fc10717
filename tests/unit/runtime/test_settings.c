/* Unit tests of runtime/settings.c: defaults, layers and their order, value parsing, and the
 * messages of errors (origin, key, what is allowed, suggestions). */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/settings.h"

static char dir[] = "/tmp/tm_settings_XXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[4][256];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, 256, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return p;
}

static void setup(void)
{
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static int apply(tm_rt_settings_t *s, tm_rt_settings_sources_t *src, char *err)
{
    return tm_rt_settings_apply(s, src, err, 512);
}

START_TEST(defaults)
{
    tm_rt_settings_t s;
    tm_rt_settings_sources_t src = {0};
    char err[512];
    ck_assert_int_eq(apply(&s, &src, err), 0);
    ck_assert_uint_eq(s.sched_stack_size, 8u << 20);
    ck_assert_uint_eq(s.sched_idle_spin_us, 50);
}
END_TEST

START_TEST(sizes)
{
    static const struct {
        const char *text;
        size_t value;
    } ok[] = {{"65536", 65536}, {"64K", 64 << 10},   {"3M", 3 << 20},
              {"1G", 1u << 30}, {"16MiB", 16 << 20}, {"128kB", 128 << 10}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        tm_rt_settings_t s;
        char flags[64], err[512];
        snprintf(flags, sizeof flags, "sched.stack_size=%s", ok[i].text);
        tm_rt_settings_sources_t src = {.flags = flags};
        ck_assert_msg(apply(&s, &src, err) == 0, "%s: %s", ok[i].text, err);
        ck_assert_uint_eq(s.sched_stack_size, ok[i].value);
    }
    static const char *bad[] = {"", "huge", "-1M", "1T", "2G", "1K", "12Mx", "0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tm_rt_settings_t s;
        char flags[64], err[512];
        snprintf(flags, sizeof flags, "sched.stack_size=%s", bad[i]);
        tm_rt_settings_sources_t src = {.flags = flags};
        ck_assert_msg(apply(&s, &src, err) < 0, "\"%s\" accepted", bad[i]);
        ck_assert_ptr_nonnull(strstr(err, "is not a size from 64K to 1G"));
    }
}
END_TEST

START_TEST(file_layers_in_order)
{
    tm_rt_settings_t s;
    char err[512];
    tm_rt_settings_sources_t src = {
        .system_file = write_file("sys.conf", "[sched]\nstack_size = 1M\nidle_spin_us = 1\n"),
        .user_file = write_file("user.conf", "[sched]\nstack_size = 2M\n"),
        .config_file = write_file("cli.conf", "# comment\n[sched]\nidle_spin_us = 3 # why\n"),
    };
    ck_assert_int_eq(apply(&s, &src, err), 0);
    ck_assert_uint_eq(s.sched_stack_size, 2u << 20);
    ck_assert_uint_eq(s.sched_idle_spin_us, 3);

    char *env[] = {"PATH=/bin", "THREADMPI_SCHED_STACK_SIZE=4M", NULL};
    src.environ = env;
    ck_assert_int_eq(apply(&s, &src, err), 0);
    ck_assert_uint_eq(s.sched_stack_size, 4u << 20);

    src.flags = "sched.stack_size=5M\nsched.idle_spin_us=7\n";
    ck_assert_int_eq(apply(&s, &src, err), 0);
    ck_assert_uint_eq(s.sched_stack_size, 5u << 20);
    ck_assert_uint_eq(s.sched_idle_spin_us, 7);
}
END_TEST

START_TEST(missing_files)
{
    tm_rt_settings_t s;
    char err[512];
    tm_rt_settings_sources_t src = {.system_file = "/nonexistent/a.conf",
                                    .user_file = "/nonexistent/b.conf"};
    ck_assert_int_eq(apply(&s, &src, err), 0);
    src.config_file = "/nonexistent/c.conf";
    ck_assert_int_lt(apply(&s, &src, err), 0);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/c.conf: cannot read"));
}
END_TEST

START_TEST(file_errors_name_file_and_line)
{
    tm_rt_settings_t s;
    char err[512], expect[512];
    tm_rt_settings_sources_t src = {.config_file =
                                        write_file("t.conf", "[sched]\n\n# c\nstak_size = 1M\n")};
    ck_assert_int_lt(apply(&s, &src, err), 0);
    snprintf(expect, sizeof expect,
             "%s:4: sched.stak_size: unknown key (did you mean sched.stack_size?)",
             src.config_file);
    ck_assert_str_eq(err, expect);

    src.config_file = write_file("u.conf", "[placment]\nranks = compact\n");
    ck_assert_int_lt(apply(&s, &src, err), 0);
    snprintf(expect, sizeof expect, "%s:2: placment.ranks: unknown section", src.config_file);
    ck_assert_str_eq(err, expect);

    src.config_file = write_file("v.conf", "[sched]\nidle_spin_us = 2000000\n");
    ck_assert_int_lt(apply(&s, &src, err), 0);
    ck_assert_ptr_nonnull(
        strstr(err, "v.conf:2: sched.idle_spin_us: \"2000000\" is not an integer"));

    src.config_file = write_file("w.conf", "[sched\n");
    ck_assert_int_lt(apply(&s, &src, err), 0);
    ck_assert_ptr_nonnull(strstr(err, "w.conf:1: not a line of the form"));
}
END_TEST

START_TEST(environment_errors)
{
    tm_rt_settings_t s;
    char err[512];
    char *env1[] = {"THREADMPI_SCHED_STACK_SIZE=tiny", NULL};
    tm_rt_settings_sources_t src = {.environ = env1};
    ck_assert_int_lt(apply(&s, &src, err), 0);
    ck_assert_ptr_nonnull(strstr(err, "environment: THREADMPI_SCHED_STACK_SIZE: sched.stack_size"));

    char *env2[] = {"THREADMPI_SCHED=1", NULL};
    src.environ = env2;
    ck_assert_int_lt(apply(&s, &src, err), 0);
    ck_assert_ptr_nonnull(strstr(err, "not of the form THREADMPI_<SECTION>_<KEY>"));

    /* mpcrun's own variables are not settings. */
    char *env3[] = {"THREADMPI_MPCRUN_NP=4", "THREADMPI_MPCRUN_CONFIG=/x", NULL};
    src.environ = env3;
    ck_assert_int_eq(apply(&s, &src, err), 0);
}
END_TEST

static Suite *settings_suite(void)
{
    Suite *s = suite_create("settings");
    TCase *tc = tcase_create("settings");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, defaults);
    tcase_add_test(tc, sizes);
    tcase_add_test(tc, file_layers_in_order);
    tcase_add_test(tc, missing_files);
    tcase_add_test(tc, file_errors_name_file_and_line);
    tcase_add_test(tc, environment_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(settings_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
