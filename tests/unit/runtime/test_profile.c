/* Unit tests of runtime/profile.c: the accounting of a stream (driven with timestamps of the
 * test's own), the points on a ULT, the timer and its calibration, the table and the CSV. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/profile.h"
#include "sched/sched.h"

/* Kinds of calls of the test's own, named as mpi/ names the MPI calls (before the report). */
enum { SEND = TM_RT_PROFILE_FIRST_CALL, RECV, WAIT };
static const char *const kind_names[] = {"MPI_Send", "MPI_Recv", "MPI_Wait"};
enum { POST = TM_RT_PROFILE_POST, PROGRESS = TM_RT_PROFILE_PROGRESS, COPY = TM_RT_PROFILE_COPY };
enum { SCHED = TM_RT_PROFILE_SCHED };

static tm_rt_profile_stream_t *stream_new(void)
{
    tm_rt_profile_stream_t *s = aligned_alloc(64, sizeof *s);
    ck_assert_ptr_nonnull(s);
    memset(s, 0, sizeof *s);
    return s;
}

/* A call's intervals go to the component current in each, less the overhead of one read each;
 * its components add up to its total. */
START_TEST(stream_intervals)
{
    tm_rt_profile_stream_t *s = stream_new();
    const uint64_t o = 10;
    tm_rt_profile_stream_call_begin(s, RECV, POST, 1000);      /* post from 1000 */
    int a = tm_rt_profile_stream_switch(s, PROGRESS, 1100, o); /* post: 100 - 10 */
    ck_assert_int_eq(a, POST);
    int b = tm_rt_profile_stream_switch(s, COPY, 1400, o); /* progress: 300 - 10 */
    ck_assert_int_eq(b, PROGRESS);
    tm_rt_profile_stream_restore(s, b, 1450, o); /* copy: 50 - 10 */
    tm_rt_profile_stream_restore(s, a, 1500, o); /* progress: 50 - 10 */
    tm_rt_profile_stream_call_end(s, 1600, o);   /* post: 100 - 10 */
    ck_assert_uint_eq(s->calls[RECV], 1);
    ck_assert_uint_eq(s->ticks[RECV][POST], 180);
    ck_assert_uint_eq(s->ticks[RECV][PROGRESS], 330);
    ck_assert_uint_eq(s->ticks[RECV][COPY], 40);
    ck_assert_uint_eq(s->ticks[RECV][SCHED], 0);
    ck_assert_int_eq(s->depth, 0);

    /* A completion call starts in progress. */
    tm_rt_profile_stream_call_begin(s, WAIT, PROGRESS, 2000);
    tm_rt_profile_stream_call_end(s, 2500, o);
    ck_assert_uint_eq(s->ticks[WAIT][PROGRESS], 490);
    ck_assert_uint_eq(s->ticks[WAIT][POST], 0);
    free(s);
}
END_TEST

/* Nested calls count to the outermost; entering the current component again changes nothing;
 * outside a call nothing is counted; an interval shorter than a read counts 0. */
START_TEST(stream_nesting)
{
    tm_rt_profile_stream_t *s = stream_new();
    const uint64_t o = 10;
    ck_assert_int_eq(tm_rt_profile_stream_switch(s, COPY, 50, o), -1); /* no call open */
    tm_rt_profile_stream_restore(s, -1, 60, o);
    tm_rt_profile_stream_call_begin(s, SEND, POST, 100);
    tm_rt_profile_stream_call_begin(s, RECV, POST, 150); /* a PMPI_Recv inside MPI_Send */
    ck_assert_int_eq(tm_rt_profile_stream_switch(s, POST, 160, o), -1); /* already post */
    int prev = tm_rt_profile_stream_switch(s, SCHED, 200, o);
    tm_rt_profile_stream_restore(s, prev, 205, o); /* 5 ticks: less than a read */
    tm_rt_profile_stream_call_end(s, 300, o);      /* the inner call: nothing yet */
    ck_assert_int_eq(s->depth, 1);
    tm_rt_profile_stream_call_end(s, 400, o);
    ck_assert_uint_eq(s->calls[SEND], 1);
    ck_assert_uint_eq(s->calls[RECV], 0);
    ck_assert_uint_eq(s->ticks[RECV][POST], 0);
    ck_assert_uint_eq(s->ticks[SEND][SCHED], 0);
    /* post: 100-200 (90), 205-400 (185) */
    ck_assert_uint_eq(s->ticks[SEND][POST], 275);
    for (int op = 0; op < TM_RT_PROFILE_MAX_KINDS; op++)
        for (int c = 0; c < TM_RT_PROFILE_NCOMPS; c++)
            if (op != SEND || c != POST)
                ck_assert_uint_eq(s->ticks[op][c], 0);
    tm_rt_profile_stream_call_end(s, 500, o); /* unbalanced: ignored */
    ck_assert_int_eq(s->depth, 0);
    ck_assert_uint_eq(s->ticks[SEND][POST], 275);
    free(s);
}
END_TEST

/* ---- the points, on a ULT ---- */

static tm_rt_profile_stream_t *ult_stream;

static void spin_ns(uint64_t ns)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((uint64_t)((t.tv_sec - t0.tv_sec) * 1000000000 + (t.tv_nsec - t0.tv_nsec)) < ns);
}

static void profiled_send(void)
{
    TM_RT_PROFILE_CALL(SEND, POST);
    spin_ns(200000);
    {
        TM_RT_PROFILE_SCOPE(COPY);
        spin_ns(1000000);
    }
}

static void ult_main(void *arg)
{
    (void)arg;
    /* Before the stream is attached, the points count nothing. */
    profiled_send();
    tm_sched_ult_set_profile(tm_sched_self(), ult_stream);
    for (int i = 0; i < 3; i++)
        profiled_send();
    tm_rt_profile_stream_t *wait = tm_rt_profile_call_begin(WAIT, PROGRESS);
    tm_rt_profile_yield(); /* nobody else: returns at once, counted as sched */
    tm_rt_profile_call_end(wait);
    /* Outside a call, a component point counts nothing. */
    tm_rt_profile_mark_t m = tm_rt_profile_begin(TM_RT_PROFILE_COPY);
    ck_assert_ptr_null(m.stream);
    tm_rt_profile_end(m);
}

START_TEST(points_on_a_ult)
{
    ult_stream = stream_new();
    tm_rt_profile_clock_init(&tm_rt_profile_clock);
    tm_rt_profile_enabled = 1;
    tm_sched_config_t cfg = {.nvps = 1, .idle_spin_us = 50};
    ck_assert_int_eq(tm_sched_init(&cfg), 0);
    ck_assert_int_eq(tm_sched_ult_create(0, ult_main, NULL, 0, NULL), 0);
    ck_assert_int_eq(tm_sched_run(), 0);
    tm_sched_finalize();
    tm_rt_profile_clock_calibrate(&tm_rt_profile_clock, 20 * 1000 * 1000);
    tm_rt_profile_enabled = 0;
    /* Counts are exact; times only bounded below (the machine may be busy). */
    ck_assert_uint_eq(ult_stream->calls[SEND], 3);
    ck_assert_uint_eq(ult_stream->calls[WAIT], 1);
    double copy_ns = (double)ult_stream->ticks[SEND][COPY] / tm_rt_profile_clock.ticks_per_ns;
    double post_ns = (double)ult_stream->ticks[SEND][POST] / tm_rt_profile_clock.ticks_per_ns;
    ck_assert_msg(copy_ns >= 0.95 * 3e6, "copy %.0f ns", copy_ns);
    ck_assert_msg(post_ns >= 0.95 * 3 * 2e5, "post %.0f ns", post_ns);
    ck_assert_uint_eq(ult_stream->ticks[WAIT][POST], 0);
    ck_assert_int_eq(ult_stream->depth, 0);
    /* Off: the points do nothing, whatever the ULT. */
    ck_assert_ptr_null(tm_rt_profile_call_begin(SEND, POST));
    ck_assert_ptr_null(tm_rt_profile_begin(TM_RT_PROFILE_COPY).stream);
    free(ult_stream);
}
END_TEST

/* ---- the timer ---- */

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* A read costs something, and less than the slowest plausible clock (a trapped rdtsc in a
 * virtual machine costs a few microseconds). */
START_TEST(clock_overhead)
{
    tm_rt_profile_clock_t c;
    tm_rt_profile_clock_init(&c);
    tm_rt_profile_clock_calibrate(&c, 10 * 1000 * 1000);
    double ns = (double)c.overhead / c.ticks_per_ns;
    ck_assert_msg(ns > 0 && ns < 10000, "a read costs %.1f ns", ns);
    ck_assert_msg(c.ticks_per_ns > 0.001 && c.ticks_per_ns < 100, "%.4f ticks per ns",
                  c.ticks_per_ns);
}
END_TEST

/* Once calibrated, the timer measures an interval that CLOCK_MONOTONIC timed within 2%: both are
 * wall clocks, so a busy machine delays the loop but not the agreement. */
START_TEST(clock_calibration)
{
    tm_rt_profile_clock_t c;
    tm_rt_profile_clock_init(&c);
    tm_rt_profile_clock_calibrate(&c, 50 * 1000 * 1000);
    for (int i = 0; i < 3; i++) {
        uint64_t ns0 = now_ns(), t0 = tm_rt_profile_clock_read(&c);
        spin_ns(20 * 1000 * 1000);
        uint64_t t1 = tm_rt_profile_clock_read(&c), ns1 = now_ns();
        double measured = (double)(t1 - t0) / c.ticks_per_ns, real = (double)(ns1 - ns0);
        ck_assert_msg(measured > 0.98 * real && measured < 1.02 * real,
                      "%s: %.0f ns measured for %.0f ns", tm_rt_profile_clock_name(&c), measured,
                      real);
    }
}
END_TEST

/* The fallback clock counts nanoseconds. */
START_TEST(clock_fallback)
{
    tm_rt_profile_clock_t c = {.source = TM_RT_PROFILE_CLOCK_MONOTONIC};
    uint64_t a = tm_rt_profile_clock_read(&c);
    spin_ns(1000000);
    uint64_t b = tm_rt_profile_clock_read(&c);
    ck_assert_uint_ge(b - a, 1000000);
    tm_rt_profile_clock_calibrate(&c, 0);
    ck_assert(c.ticks_per_ns == 1.0);
    ck_assert_str_eq(tm_rt_profile_clock_name(&c), "clock_gettime");
}
END_TEST

/* ---- the report ---- */

/* Two ranks at 2 ticks per ns: rank 0 sends 4 times (post 800 ns, copy 200 ns), rank 1
 * receives 4 times (post 100, progress 1000, sched 900 ns); rank 1's progress thread made 10
 * passes (engine 1000 ns). Total: 4000 ns. */
static tm_rt_profile_rank_t *sample(tm_rt_profile_clock_t *c)
{
    tm_rt_profile_name_kinds(SEND, kind_names, 3);
    tm_rt_profile_rank_t *r = aligned_alloc(64, 2 * sizeof *r);
    ck_assert_ptr_nonnull(r);
    memset(r, 0, 2 * sizeof *r);
    r[0].rank.calls[SEND] = 4;
    r[0].rank.ticks[SEND][POST] = 1600;
    r[0].rank.ticks[SEND][COPY] = 400;
    r[1].rank.calls[RECV] = 4;
    r[1].rank.ticks[RECV][POST] = 200;
    r[1].rank.ticks[RECV][PROGRESS] = 2000;
    r[1].rank.ticks[RECV][SCHED] = 1800;
    r[1].helper.calls[TM_RT_PROFILE_PROGRESS_PASS] = 10;
    r[1].helper.ticks[TM_RT_PROFILE_PROGRESS_PASS][TM_RT_PROFILE_ENGINE] = 2000;
    *c = (tm_rt_profile_clock_t){
        .source = TM_RT_PROFILE_CLOCK_TSC, .overhead = 30, .ticks_per_ns = 2.0};
    return r;
}

static char *report(int csv)
{
    tm_rt_profile_clock_t c;
    tm_rt_profile_rank_t *r = sample(&c);
    char *text;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    if (csv)
        tm_rt_profile_write_csv(out, r, 2, &c);
    else
        tm_rt_profile_write_table(out, r, 2, &c);
    fclose(out);
    free(r);
    return text;
}

static const char *line_starting(const char *text, const char *start)
{
    size_t n = strlen(start);
    const char *line = text;
    while (line && strncmp(line, start, n) != 0) {
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return line;
}

START_TEST(table)
{
    char *t = report(0);
    static const char first[] = "threadmpi profile: 2 ranks, 4.000 us in profiled calls";
    ck_assert_msg(strncmp(t, first, strlen(first)) == 0, "%s", t);
    ck_assert_msg(strstr(t, "timer: TSC (rdtscp) at 2.000 GHz, 15.0 ns a read"), "%s", t);
    const char *head = line_starting(t, "call ");
    ck_assert_ptr_nonnull(head);
    ck_assert_msg(strstr(head, "count") && strstr(head, "total") && strstr(head, "mean") &&
                      strstr(head, "share") && strstr(head, "post") && strstr(head, "progress") &&
                      strstr(head, "copy") && strstr(head, "engine") && strstr(head, "sched"),
                  "%s", head);
    /* The busiest first: MPI_Recv (2000 ns), then MPI_Send and the progress threads (1000 ns
     * each, in the order of the kinds). */
    const char *recv = line_starting(t, "MPI_Recv "), *send = line_starting(t, "MPI_Send ");
    const char *pt = line_starting(t, "(progress threads) ");
    ck_assert_ptr_nonnull(recv);
    ck_assert_ptr_nonnull(send);
    ck_assert_ptr_nonnull(pt);
    ck_assert(head < recv && recv < send && send < pt);
    char name[32], total[16], tunit[8], mean[16], munit[8];
    unsigned long count;
    double share, comp[5];
    ck_assert_int_eq(sscanf(recv,
                            "%31s %lu %15s %7s %15s %7s %lf%% | %lf%% %lf%% %lf%% %lf%% %lf%%",
                            name, &count, total, tunit, mean, munit, &share, &comp[0], &comp[1],
                            &comp[2], &comp[3], &comp[4]),
                     12);
    ck_assert_uint_eq(count, 4);
    ck_assert_str_eq(total, "2.000");
    ck_assert_str_eq(tunit, "us");
    ck_assert_str_eq(mean, "500.0");
    ck_assert_str_eq(munit, "ns");
    ck_assert_double_eq_tol(share, 50.0, 0.05);
    ck_assert_double_eq_tol(comp[0], 5.0, 0.05);
    ck_assert_double_eq_tol(comp[1], 50.0, 0.05);
    ck_assert_double_eq_tol(comp[4], 45.0, 0.05);
    ck_assert_ptr_null(line_starting(t, "MPI_Wait ")); /* unused kinds are not listed */
    /* The whole job by component. */
    const char *post = line_starting(t, "post "), *engine = line_starting(t, "engine ");
    ck_assert_ptr_nonnull(post);
    ck_assert_ptr_nonnull(engine);
    ck_assert_msg(strstr(post, "900.0 ns") && strstr(post, "22.5%"), "%s", post);
    ck_assert_msg(strstr(engine, "1.000 us") && strstr(engine, "25.0%"), "%s", engine);
    free(t);
}
END_TEST

START_TEST(table_empty)
{
    tm_rt_profile_rank_t *r = aligned_alloc(64, sizeof *r);
    memset(r, 0, sizeof *r);
    tm_rt_profile_clock_t c = {.ticks_per_ns = 1.0};
    char *text;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    tm_rt_profile_write_table(out, r, 1, &c);
    fclose(out);
    ck_assert_msg(strstr(text, "1 rank, 0.0 ns") && strstr(text, "no MPI call was profiled"), "%s",
                  text);
    free(text);
    free(r);
}
END_TEST

/* The kinds the caller named, the progress threads' passes, and a kind nobody named. */
START_TEST(kind_names_given)
{
    tm_rt_profile_name_kinds(SEND, kind_names, 3);
    ck_assert_str_eq(tm_rt_profile_kind_name(RECV), "MPI_Recv");
    ck_assert_str_eq(tm_rt_profile_kind_name(TM_RT_PROFILE_PROGRESS_PASS), "(progress threads)");
    ck_assert_str_eq(tm_rt_profile_kind_name(TM_RT_PROFILE_MAX_KINDS - 2), "kind 94");
    ck_assert_str_eq(tm_rt_profile_kind_name(TM_RT_PROFILE_MAX_KINDS), "?");
}
END_TEST

START_TEST(csv)
{
    char *t = report(1);
    static const char header[] = "rank,call,count,total_ns,mean_ns,share,post_ns,progress_ns,"
                                 "copy_ns,engine_ns,sched_ns\n";
    ck_assert_msg(strncmp(t, header, strlen(header)) == 0, "%s", t);
    static const char *const lines[] = {
        "0,MPI_Send,4,1000,250.0,1.0000,800,0,200,0,0\n",
        "0,all,4,1000,250.0,1.0000,800,0,200,0,0\n",
        "1,MPI_Recv,4,2000,500.0,0.6667,100,1000,0,0,900\n",
        "1,(progress threads),10,1000,100.0,0.3333,0,0,0,1000,0\n",
        "1,all,14,3000,214.3,1.0000,100,1000,0,1000,900\n",
        "all,MPI_Send,4,1000,250.0,0.2500,800,0,200,0,0\n",
        "all,MPI_Recv,4,2000,500.0,0.5000,100,1000,0,0,900\n",
        "all,(progress threads),10,1000,100.0,0.2500,0,0,0,1000,0\n",
        "all,all,18,4000,222.2,1.0000,900,1000,200,1000,900\n",
    };
    const char *at = t;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        const char *found = strstr(at, lines[i]);
        ck_assert_msg(found, "no (or misplaced) line %s in\n%s", lines[i], t);
        at = found + strlen(lines[i]);
    }
    int n = 0;
    for (const char *p = t; *p; p++)
        n += *p == '\n';
    ck_assert_int_eq(n, 10); /* the header and the lines above, no other */
    free(t);
}
END_TEST

static Suite *profile_suite(void)
{
    Suite *s = suite_create("profile");
    TCase *tc = tcase_create("profile");
    tcase_add_test(tc, stream_intervals);
    tcase_add_test(tc, stream_nesting);
    tcase_add_test(tc, points_on_a_ult);
    tcase_add_test(tc, clock_overhead);
    tcase_add_test(tc, clock_calibration);
    tcase_add_test(tc, clock_fallback);
    tcase_add_test(tc, table);
    tcase_add_test(tc, table_empty);
    tcase_add_test(tc, csv);
    tcase_add_test(tc, kind_names_given);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(profile_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
