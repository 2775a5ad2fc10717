/*
 * Unit tests of host lists and host files (launcher/hosts.c): parsing, the errors, and how the
 * ranks are spread over the hosts.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/hosts.h"

static char err[1024];

/* The ranks of each host, as "first+count first+count ...". */
static const char *spread(const tm_launch_hosts_t *h)
{
    static char buf[256];
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < h->n; i++)
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%ld+%ld", i ? " " : "",
                                 h->v[i].first_rank, h->v[i].nranks);
    return buf;
}

START_TEST(test_list)
{
    tm_launch_hosts_t h = {0};
    ck_assert_int_eq(tm_launch_hosts_parse_list(&h, "a,node-2.example,user@c", err, sizeof err), 0);
    ck_assert_int_eq(h.n, 3);
    ck_assert_str_eq(h.v[1].name, "node-2.example");
    ck_assert_str_eq(h.v[2].name, "user@c");
    ck_assert_int_eq(tm_launch_hosts_distribute(&h, 8, err, sizeof err), 0);
    ck_assert_str_eq(spread(&h), "0+3 3+3 6+2");
    ck_assert_int_eq(tm_launch_hosts_used(&h), 3);
    ck_assert_int_eq(tm_launch_hosts_distribute(&h, 2, err, sizeof err), 0);
    ck_assert_str_eq(spread(&h), "0+1 1+1 2+0");
    ck_assert_int_eq(tm_launch_hosts_used(&h), 2);
    tm_launch_hosts_free(&h);
}
END_TEST

START_TEST(test_list_slots)
{
    tm_launch_hosts_t h = {0};
    ck_assert_int_eq(tm_launch_hosts_parse_list(&h, "a:2,b:3", err, sizeof err), 0);
    ck_assert_int_eq(tm_launch_hosts_distribute(&h, 0, err, sizeof err), 0);
    ck_assert_str_eq(spread(&h), "0+2 2+3");
    ck_assert_int_eq(tm_launch_hosts_distribute(&h, 2, err, sizeof err), 0);
    ck_assert_str_eq(spread(&h), "0+2 2+0");
    ck_assert_int_eq(tm_launch_hosts_distribute(&h, 6, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "6 ranks do not fit in the hosts' 5 slots"));
    tm_launch_hosts_free(&h);
}
END_TEST

START_TEST(test_list_errors)
{
    static const struct {
        const char *list, *why;
    } cases[] = {
        {"", "an empty host name"},     {"a,,b", "an empty host name"},
        {"a,", "an empty host name"},   {"a b", "is not a host name"},
        {"a;rm", "is not a host name"}, {"a,b,a", "host a is listed twice"},
        {"a:0", "not a number from 1"}, {"a:x", "not a number from 1"},
        {"a:", "not a number from 1"},  {"a:99999999", "not a number from 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tm_launch_hosts_t h = {0};
        ck_assert_msg(tm_launch_hosts_parse_list(&h, cases[i].list, err, sizeof err) == -1,
                      "\"%s\" accepted", cases[i].list);
        ck_assert_msg(strstr(err, cases[i].why), "\"%s\": %s", cases[i].list, err);
        tm_launch_hosts_free(&h);
    }
    tm_launch_hosts_t h = {0};
    ck_assert_int_eq(tm_launch_hosts_parse_list(&h, "a:1,b", err, sizeof err), 0);
    ck_assert_int_eq(tm_launch_hosts_distribute(&h, 2, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "give them for every host or for none"));
    tm_launch_hosts_free(&h);
    ck_assert_int_eq(tm_launch_hosts_parse_list(&h, "a,b", err, sizeof err), 0);
    ck_assert_int_eq(tm_launch_hosts_distribute(&h, 0, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "-n is needed"));
    tm_launch_hosts_free(&h);
}
END_TEST

/* A host file with `text`; its name (static). */
static const char *hostfile(const char *text)
{
    static char name[] = "/tmp/test_hosts.XXXXXX";
    strcpy(name, "/tmp/test_hosts.XXXXXX");
    int fd = mkstemp(name);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return name;
}

START_TEST(test_file)
{
    tm_launch_hosts_t h = {0};
    const char *f = hostfile("# the cluster\n\n  a slots=2\t# first\nb:1\r\nc   slots=4\n");
    ck_assert_int_eq(tm_launch_hosts_parse_file(&h, f, err, sizeof err), 0);
    unlink(f);
    ck_assert_int_eq(h.n, 3);
    ck_assert_int_eq(tm_launch_hosts_distribute(&h, 0, err, sizeof err), 0);
    ck_assert_str_eq(spread(&h), "0+2 2+1 3+4");
    tm_launch_hosts_free(&h);
}
END_TEST

START_TEST(test_file_errors)
{
    static const struct {
        const char *text, *why;
    } cases[] = {
        {"# nothing\n\n", "no host in the file"},
        {"a\nb slots=0\n", ":2: \"slots=0\" is not slots=N"},
        {"a slot=2\n", ":1: \"slot=2\" is not slots=N"},
        {"a slots=2 b\n", ":1: more than a host and slots=N"},
        {"a:2 slots=3\n", ":1: the slots are given twice"},
        {"a\na\n", ":2: host a is listed twice"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tm_launch_hosts_t h = {0};
        const char *f = hostfile(cases[i].text);
        ck_assert_msg(tm_launch_hosts_parse_file(&h, f, err, sizeof err) == -1, "\"%s\" accepted",
                      cases[i].text);
        unlink(f);
        ck_assert_msg(strstr(err, cases[i].why), "\"%s\": %s", cases[i].text, err);
        tm_launch_hosts_free(&h);
    }
    tm_launch_hosts_t h = {0};
    ck_assert_int_eq(tm_launch_hosts_parse_file(&h, "/nonexistent/hosts", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "No such file"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("launcher_hosts");
    TCase *tc = tcase_create("hosts");
    tcase_add_test(tc, test_list);
    tcase_add_test(tc, test_list_slots);
    tcase_add_test(tc, test_list_errors);
    tcase_add_test(tc, test_file);
    tcase_add_test(tc, test_file_errors);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
