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
    snprintf(expect, sizeof expect,
             "%s:2: placment.ranks: unknown section (did you mean placement.ranks?)",
             src.config_file);
    ck_assert_str_eq(err, expect);

    src.config_file = write_file("x.conf", "[sched]\nstack_size = 1M\n[nothing]\nat_all = 1\n");
    ck_assert_int_lt(apply(&s, &src, err), 0);
    snprintf(expect, sizeof expect, "%s:4: nothing.at_all: unknown section", src.config_file);
    ck_assert_str_eq(err, expect);

    src.config_file = write_file("y.conf", "[placement]\nranks = sideways\n");
    ck_assert_int_lt(apply(&s, &src, err), 0);
    snprintf(expect, sizeof expect,
             "%s:2: placement.ranks: \"sideways\" is not one of compact, scatter, numa, list",
             src.config_file);
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
    ck_assert_ptr_nonnull(strstr(err, "environment THREADMPI_SCHED_STACK_SIZE: sched.stack_size"));

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

/* Every key of [placement] and [memory]: values accepted, and what is refused says why. */
START_TEST(placement_keys)
{
    tm_rt_settings_t s;
    char err[512];
    tm_rt_settings_sources_t src = {0};
    ck_assert_int_eq(apply(&s, &src, err), 0);
    ck_assert_int_eq(s.placement_ranks, TM_RT_RANKS_COMPACT);
    ck_assert_int_eq(s.placement_smt, 0);
    ck_assert_int_eq(s.placement_progress, TM_RT_PROGRESS_IDLE);
    ck_assert_int_eq(s.placement_comm_cores, 1);
    ck_assert_int_eq(s.memory_policy, TM_RT_MEMORY_LOCAL);

    src.flags = "placement.ranks=list:0,2,4-7\nplacement.smt=yes\nplacement.progress=comm\n"
                "placement.comm_cores=3\nmemory.policy=interleave\n";
    ck_assert_msg(apply(&s, &src, err) == 0, "%s", err);
    ck_assert_int_eq(s.placement_ranks, TM_RT_RANKS_LIST);
    ck_assert_str_eq(s.placement_list, "0,2,4-7");
    ck_assert_int_eq(s.placement_smt, 1);
    ck_assert_int_eq(s.placement_progress, TM_RT_PROGRESS_COMM);
    ck_assert_int_eq(s.placement_comm_cores, 3);
    ck_assert_int_eq(s.memory_policy, TM_RT_MEMORY_INTERLEAVE);

    /* A later policy drops the list. */
    src.flags = "placement.ranks=list:1\nplacement.ranks=scatter\n";
    ck_assert_int_eq(apply(&s, &src, err), 0);
    ck_assert_int_eq(s.placement_ranks, TM_RT_RANKS_SCATTER);
    ck_assert_str_eq(s.placement_list, "");

    static const struct {
        const char *flag, *why;
    } bad[] = {
        {"placement.ranks=list:", "no core listed"},
        {"placement.ranks=list:1,,2", "not a list of cores such as 0,2,4-7"},
        {"placement.ranks=list:5-3", "the range 5-3 goes down"},
        {"placement.ranks=list:1,0-2", "core 1 is listed twice"},
        {"placement.ranks=list:70000", "cores are numbered from 0 to 65535"},
        {"placement.smt=maybe", "\"maybe\" is not true or false"},
        {"placement.progress=far", "\"far\" is not one of idle, same, next, comm, none"},
        {"placement.comm_cores=0", "\"0\" is not a number of cores from 1 to 65535"},
        {"memory.policy=remote", "\"remote\" is not one of local, interleave"},
        {"placement.rank=compact", "unknown key (did you mean placement.ranks?)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        src.flags = bad[i].flag;
        ck_assert_msg(apply(&s, &src, err) < 0, "%s accepted", bad[i].flag);
        ck_assert_msg(strstr(err, bad[i].why) && strncmp(err, "mpcrun option: ", 15) == 0, "%s: %s",
                      bad[i].flag, err);
    }
}
END_TEST

/* [profile] mode: off by default; table; csv:FILE keeps the file as written, and shows again as
 * it was given; a later off forgets the file; what is refused says why. */
START_TEST(profile_mode)
{
    tm_rt_settings_t s;
    char err[512];
    tm_rt_settings_sources_t src = {0};
    ck_assert_int_eq(apply(&s, &src, err), 0);
    ck_assert_int_eq(s.profile_mode, TM_RT_PROFILE_MODE_OFF);

    char *env[] = {"THREADMPI_PROFILE_MODE=table", NULL};
    src.environ = env;
    ck_assert_msg(apply(&s, &src, err) == 0, "%s", err);
    ck_assert_int_eq(s.profile_mode, TM_RT_PROFILE_MODE_TABLE);
    ck_assert_str_eq(tm_rt_settings_origin(&s, "profile.mode"),
                     "environment THREADMPI_PROFILE_MODE");

    /* The option wins over the environment; the file name may hold ':' and spaces. */
    src.flags = "profile.mode=csv:out dir/p:1.csv\n";
    ck_assert_msg(apply(&s, &src, err) == 0, "%s", err);
    ck_assert_int_eq(s.profile_mode, TM_RT_PROFILE_MODE_CSV);
    ck_assert_str_eq(s.profile_file, "out dir/p:1.csv");
    char *shown;
    size_t len;
    FILE *out = open_memstream(&shown, &len);
    tm_rt_settings_show(&s, out);
    fclose(out);
    ck_assert_msg(strstr(shown, "profile.mode           = csv:out dir/p:1.csv # mpcrun option"),
                  "%s", shown);
    free(shown);

    src.flags = "profile.mode=csv:a.csv\nprofile.mode=off\n";
    ck_assert_int_eq(apply(&s, &src, err), 0);
    ck_assert_int_eq(s.profile_mode, TM_RT_PROFILE_MODE_OFF);
    ck_assert_str_eq(s.profile_file, "");

    static const struct {
        const char *flag, *why;
    } bad[] = {
        {"profile.mode=on", "\"on\" is not one of off, table, csv:FILE"},
        {"profile.mode=csv", "\"csv\" is not one of off, table, csv:FILE"},
        {"profile.mode=csv:", "\"csv:\": csv: needs a file name"},
        {"profile.mode=Table", "\"Table\" is not one of off, table, csv:FILE"},
        {"profile.mod=table", "unknown key (did you mean profile.mode?)"},
    };
    src.environ = NULL;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        src.flags = bad[i].flag;
        ck_assert_msg(apply(&s, &src, err) < 0, "%s accepted", bad[i].flag);
        ck_assert_msg(strstr(err, bad[i].why) && strncmp(err, "mpcrun option: ", 15) == 0, "%s: %s",
                      bad[i].flag, err);
    }
    /* A file name longer than the setting holds is refused, not cut. */
    char flag[TM_RT_SETTINGS_LIST_LEN + 64];
    snprintf(flag, sizeof flag, "profile.mode=csv:%0*d", TM_RT_SETTINGS_LIST_LEN, 0);
    src.flags = flag;
    ck_assert_int_lt(apply(&s, &src, err), 0);
    ck_assert_msg(strstr(err, "the file name of csv: is longer than 1023 characters"), "%s", err);
}
END_TEST

START_TEST(list_expand)
{
    int *cores, n;
    char why[128];
    ck_assert_int_eq(tm_rt_settings_list_expand("7,0,2-4", &cores, &n, why, sizeof why), 0);
    ck_assert_int_eq(n, 5);
    static const int expect[] = {7, 0, 2, 3, 4};
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(cores[i], expect[i]);
    free(cores);
    ck_assert_int_eq(tm_rt_settings_list_expand("0-65535", &cores, &n, why, sizeof why), 0);
    ck_assert_int_eq(n, 65536);
    ck_assert_int_eq(cores[65535], 65535);
    free(cores);
    static const char *bad[] = {"", ",", "1,", "-1", "1-", "a", "1 2", "2-1", "3,3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(tm_rt_settings_list_expand(bad[i], &cores, &n, why, sizeof why) < 0,
                      "\"%s\" accepted", bad[i]);
}
END_TEST

/* Each key remembers the layer that set it last; show prints it beside the value. */
START_TEST(origins_and_show)
{
    tm_rt_settings_t s;
    char err[512];
    char *env[] = {"THREADMPI_PLACEMENT_PROGRESS=same", NULL};
    tm_rt_settings_sources_t src = {
        .config_file = write_file("o.conf", "[placement]\nranks = scatter\n\nprogress = next\n"),
        .environ = env,
        .flags = "job.timeout=9\n",
    };
    ck_assert_int_eq(apply(&s, &src, err), 0);
    char expect[512];
    snprintf(expect, sizeof expect, "%s:2", src.config_file);
    ck_assert_str_eq(tm_rt_settings_origin(&s, "placement.ranks"), expect);
    ck_assert_str_eq(tm_rt_settings_origin(&s, "placement.progress"),
                     "environment THREADMPI_PLACEMENT_PROGRESS");
    ck_assert_str_eq(tm_rt_settings_origin(&s, "job.timeout"), "mpcrun option");
    ck_assert_str_eq(tm_rt_settings_origin(&s, "memory.policy"), "default");
    ck_assert_ptr_null(tm_rt_settings_origin(&s, "memory.nothing"));
    ck_assert_ptr_null(tm_rt_settings_origin(&s, "memory"));

    char *text;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    tm_rt_settings_show(&s, out);
    fclose(out);
    ck_assert_ptr_nonnull(strstr(text, "placement.progress     = same       # environment "
                                       "THREADMPI_PLACEMENT_PROGRESS\n"));
    ck_assert_ptr_nonnull(strstr(text, "job.timeout            = 9          # mpcrun option\n"));
    ck_assert_ptr_nonnull(strstr(text, "sched.stack_size       = 8M         # default\n"));
    int lines = 0;
    for (char *p = text; *p; p++)
        lines += *p == '\n';
    ck_assert_int_eq(lines, TM_RT_SETTINGS_COUNT);
    free(text);
}
END_TEST

/* The help is the installed threadmpi.conf: it parses, changes nothing, and uncommenting its
 * "# key = default" lines gives the defaults again. */
START_TEST(help_is_a_config_file)
{
    char *text;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    tm_rt_settings_help(out);
    fclose(out);

    tm_rt_settings_t s, d;
    char err[512];
    tm_rt_settings_defaults(&d);
    tm_rt_settings_defaults(&s);
    FILE *in = fmemopen(text, len, "r");
    ck_assert_msg(tm_rt_settings_apply_stream(&s, in, "help", err, sizeof err) == 0, "%s", err);
    fclose(in);
    ck_assert_mem_eq(&s, &d, sizeof s);

    /* Uncomment every "# key = value" line (a key has no space in it). */
    int keys = 0;
    char *uncommented;
    size_t ulen;
    out = open_memstream(&uncommented, &ulen);
    for (char *line = text; *line;) {
        size_t n = strcspn(line, "\n");
        char *eq = strstr(line, " = ");
        if (strncmp(line, "# ", 2) == 0 && eq && eq < line + n &&
            !memchr(line + 2, ' ', (size_t)(eq - line - 2))) {
            line += 2, n -= 2;
            keys++;
        }
        fprintf(out, "%.*s\n", (int)n, line);
        line += n + (line[n] == '\n');
    }
    fclose(out);
    free(text);
    text = uncommented;
    ck_assert_int_eq(keys, TM_RT_SETTINGS_COUNT);
    tm_rt_settings_defaults(&s);
    in = fmemopen(text, strlen(text), "r");
    ck_assert_msg(tm_rt_settings_apply_stream(&s, in, "help", err, sizeof err) == 0, "%s", err);
    fclose(in);
    ck_assert_int_eq(s.sched_stack_size, d.sched_stack_size);
    ck_assert_int_eq(s.p2p_eager_limit, d.p2p_eager_limit);
    ck_assert_int_eq(s.nbc_split_levels, d.nbc_split_levels);
    ck_assert_int_eq(s.nbc_handoff_bytes, d.nbc_handoff_bytes);
    ck_assert_int_eq(s.nbc_progress_spin_us, d.nbc_progress_spin_us);
    ck_assert_int_eq(s.placement_ranks, d.placement_ranks);
    ck_assert_int_eq(s.placement_progress, d.placement_progress);
    ck_assert_int_eq(strncmp(s.origin[0], "help:", 5), 0);
    free(text);
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
    tcase_add_test(tc, placement_keys);
    tcase_add_test(tc, profile_mode);
    tcase_add_test(tc, list_expand);
    tcase_add_test(tc, origins_and_show);
    tcase_add_test(tc, help_is_a_config_file);
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
