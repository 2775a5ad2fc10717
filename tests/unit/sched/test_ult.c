/*
 * Unit tests of ULTs on one or two VPs: switch order and yield fairness, self and per-ULT data,
 * park/unpark on one VP and the permit, exit, many ULTs, ULTs created during the run, and the
 * floating-point controls that the context switch keeps per ULT.
 */
#include "config.h"

#include <check.h>
#include <fenv.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sched/sched.h"

#ifdef TM_WITH_TSAN
/* Every ULT is a ThreadSanitizer fiber, which costs far more than a ULT. */
#define MANY_ULTS 2000
#else
#define MANY_ULTS 10000
#endif

static void sched_setup(int nvps, size_t stack_size)
{
    tm_sched_config_t cfg = {.nvps = nvps, .stack_size = stack_size, .idle_spin_us = 50};

    ck_assert_int_eq(tm_sched_init(&cfg), 0);
}

/* A trace of events written by ULTs of one VP (no concurrency) and checked after the run. */
static char trace[256];
static int ntrace;

static void trace_add(char c)
{
    if (ntrace < (int)sizeof(trace) - 1)
        trace[ntrace++] = c;
    trace[ntrace] = '\0';
}

static void trace_reset(void)
{
    ntrace = 0;
    trace[0] = '\0';
}

/* ---- switch order and yield fairness */

static void rr_body(void *arg)
{
    for (int i = 0; i < 5; i++) {
        trace_add((char)(intptr_t)arg);
        tm_sched_yield();
    }
}

START_TEST(test_yield_round_robin)
{
    trace_reset();
    sched_setup(1, TM_SCHED_STACK_SIZE_MIN);
    for (char c = 'a'; c <= 'c'; c++)
        ck_assert_int_eq(tm_sched_ult_create(0, rr_body, (void *)(intptr_t)c, 0, NULL), 0);
    ck_assert_int_eq(tm_sched_run(), 0);
    ck_assert_str_eq(trace, "abcabcabcabcabc");
    tm_sched_finalize();
}
END_TEST

static int alone_yields;

static void alone_body(void *arg)
{
    for (int i = 0; i < 1000; i++) {
        tm_sched_yield();
        alone_yields++;
    }
    trace_add('x');
}

/* A ULT alone on its VP keeps running through its yields. */
START_TEST(test_yield_alone)
{
    trace_reset();
    ck_assert(!tm_sched_yield()); /* not a ULT: returns at once */
    sched_setup(2, TM_SCHED_STACK_SIZE_MIN);
    ck_assert_int_eq(tm_sched_ult_create(1, alone_body, NULL, 0, NULL), 0);
    ck_assert_int_eq(tm_sched_run(), 0);
    ck_assert_int_eq(alone_yields, 1000);
    ck_assert_str_eq(trace, "x");
    tm_sched_finalize();
}
END_TEST

/* ---- self, VP and per-ULT data */

#define SELF_ULTS 6

static tm_sched_ult_t *self_handles[SELF_ULTS];
static _Atomic int self_errors;

static void self_body(void *arg)
{
    int id = (int)(intptr_t)arg;
    tm_sched_ult_t *self = tm_sched_self();

    for (int round = 0; round < 3; round++) {
        if (self != self_handles[id] || tm_sched_self() != self)
            atomic_fetch_add(&self_errors, 1);
        if (tm_sched_ult_get_data(self) != (void *)(intptr_t)(100 + id))
            atomic_fetch_add(&self_errors, 1);
        if (tm_sched_self_vp() != id % 2 || tm_sched_ult_vp(self) != id % 2)
            atomic_fetch_add(&self_errors, 1);
        if (tm_sched_nvps() != 2)
            atomic_fetch_add(&self_errors, 1);
        tm_sched_yield();
    }
}

START_TEST(test_self_vp_data)
{
    ck_assert_ptr_null(tm_sched_self());
    ck_assert_int_eq(tm_sched_self_vp(), -1);
    sched_setup(2, 0);
    ck_assert_int_eq(tm_sched_nvps(), 2);
    for (int i = 0; i < SELF_ULTS; i++) {
        size_t stack = i == 0 ? 0 : TM_SCHED_STACK_SIZE_MIN + 1;

        ck_assert_int_eq(
            tm_sched_ult_create(i % 2, self_body, (void *)(intptr_t)i, stack, &self_handles[i]), 0);
        tm_sched_ult_set_data(self_handles[i], (void *)(intptr_t)(100 + i));
        ck_assert_int_eq(tm_sched_ult_vp(self_handles[i]), i % 2);
    }
    ck_assert_uint_eq(tm_sched_ult_stack_size(self_handles[0]), TM_SCHED_STACK_SIZE_DEFAULT);
    /* Rounded up to whole pages. */
    ck_assert_uint_gt(tm_sched_ult_stack_size(self_handles[1]), TM_SCHED_STACK_SIZE_MIN);
    ck_assert_uint_eq(tm_sched_ult_stack_size(self_handles[1]) % (size_t)sysconf(_SC_PAGESIZE), 0);
    ck_assert_int_eq(tm_sched_run(), 0);
    ck_assert_int_eq(atomic_load(&self_errors), 0);
    /* Not a ULT, and no longer a VP once the run is over. */
    ck_assert_ptr_null(tm_sched_self());
    ck_assert_int_eq(tm_sched_self_vp(), -1);
    /* Handles outlive their ULTs until finalize. */
    ck_assert_ptr_eq(tm_sched_ult_get_data(self_handles[3]), (void *)(intptr_t)103);
    tm_sched_unpark(self_handles[3]);
    tm_sched_finalize();
}
END_TEST

/* ---- park/unpark on one VP */

static tm_sched_ult_t *park_a;

static void park_a_body(void *arg)
{
    trace_add('1');
    tm_sched_park();
    trace_add('4');
}

static void park_b_body(void *arg)
{
    trace_add('2');
    tm_sched_unpark(park_a);
    trace_add('3');
    tm_sched_yield();
    trace_add('5');
}

/* A parks, B (same VP) runs and unparks it; A resumes only when B yields. */
START_TEST(test_park_unpark_same_vp)
{
    trace_reset();
    sched_setup(1, TM_SCHED_STACK_SIZE_MIN);
    ck_assert_int_eq(tm_sched_ult_create(0, park_a_body, NULL, 0, &park_a), 0);
    ck_assert_int_eq(tm_sched_ult_create(0, park_b_body, NULL, 0, NULL), 0);
    ck_assert_int_eq(tm_sched_run(), 0);
    ck_assert_str_eq(trace, "12345");
    tm_sched_finalize();
}
END_TEST

static tm_sched_ult_t *permit_a;

static void permit_a_body(void *arg)
{
    /* Two unparks make one token: the first park consumes it without switching, the second
     * one blocks until B unparks. */
    tm_sched_unpark(tm_sched_self());
    tm_sched_unpark(tm_sched_self());
    tm_sched_park();
    trace_add('a');
    tm_sched_park();
    trace_add('c');
}

static void permit_b_body(void *arg)
{
    trace_add('b');
    tm_sched_unpark(permit_a);
}

START_TEST(test_park_permit)
{
    trace_reset();
    tm_sched_park(); /* not a ULT: returns at once */
    sched_setup(1, TM_SCHED_STACK_SIZE_MIN);
    ck_assert_int_eq(tm_sched_ult_create(0, permit_a_body, NULL, 0, &permit_a), 0);
    ck_assert_int_eq(tm_sched_ult_create(0, permit_b_body, NULL, 0, NULL), 0);
    ck_assert_int_eq(tm_sched_run(), 0);
    ck_assert_str_eq(trace, "abc");
    tm_sched_finalize();
}
END_TEST

/* ---- exit */

/* Exits from a few calls deep: the frames below are simply abandoned. */
static __attribute__((noinline)) void exit_inner(void)
{
    tm_sched_ult_exit();
}

static __attribute__((noinline)) void exit_outer(void)
{
    exit_inner();
    trace_add('!');
}

static void exit_body(void *arg)
{
    trace_add('e');
    exit_outer();
    trace_add('!');
}

static void after_exit_body(void *arg)
{
    trace_add('f');
}

START_TEST(test_ult_exit)
{
    trace_reset();
    sched_setup(1, TM_SCHED_STACK_SIZE_MIN);
    ck_assert_int_eq(tm_sched_ult_create(0, exit_body, NULL, 0, NULL), 0);
    ck_assert_int_eq(tm_sched_ult_create(0, after_exit_body, NULL, 0, NULL), 0);
    ck_assert_int_eq(tm_sched_run(), 0);
    ck_assert_str_eq(trace, "ef");
    tm_sched_finalize();
}
END_TEST

/* ---- many ULTs */

static _Atomic long many_done;

static void many_body(void *arg)
{
    volatile char touch[1024];

    touch[0] = 1;
    tm_sched_yield();
    touch[1023] = touch[0];
    atomic_fetch_add_explicit(&many_done, 1, memory_order_relaxed);
}

/* Every ULT exists at once, each with its own small stack, over two VPs. */
START_TEST(test_many_ults)
{
    sched_setup(2, TM_SCHED_STACK_SIZE_MIN);
    for (int i = 0; i < MANY_ULTS; i++)
        ck_assert_int_eq(tm_sched_ult_create(i % 2, many_body, NULL, 0, NULL), 0);
    ck_assert_int_eq(tm_sched_run(), 0);
    ck_assert_int_eq(atomic_load(&many_done), MANY_ULTS);
    tm_sched_finalize();
}
END_TEST

#define SPAWN_ULTS 10000

static _Atomic long spawn_done;
static _Atomic int spawn_errors;

static void spawn_child(void *arg)
{
    if (tm_sched_self_vp() != (int)(intptr_t)arg)
        atomic_fetch_add(&spawn_errors, 1);
    atomic_fetch_add_explicit(&spawn_done, 1, memory_order_relaxed);
}

static void spawner_body(void *arg)
{
    for (int i = 0; i < SPAWN_ULTS; i++) {
        int vp = i % 2;

        if (tm_sched_ult_create(vp, spawn_child, (void *)(intptr_t)vp, 0, NULL) != 0)
            atomic_fetch_add(&spawn_errors, 1);
        if (i % 64 == 63)
            tm_sched_yield();
    }
}

/* ULTs created from a ULT during the run, on its own VP and on the other one, with stacks
 * recycled through the VPs' caches. */
START_TEST(test_create_during_run)
{
    sched_setup(2, TM_SCHED_STACK_SIZE_MIN);
    ck_assert_int_eq(tm_sched_ult_create(0, spawner_body, NULL, 0, NULL), 0);
    ck_assert_int_eq(tm_sched_run(), 0);
    ck_assert_int_eq(atomic_load(&spawn_errors), 0);
    ck_assert_int_eq(atomic_load(&spawn_done), SPAWN_ULTS);
    tm_sched_finalize();
}
END_TEST

/* ---- floating-point controls are per ULT (x86-64: MXCSR and the x87 control word are switched;
 * aarch64 leaves FPCR to the VP) */

#if defined(__x86_64__)
static int fenv_errors;

static void fenv_up_body(void *arg)
{
    fesetround(FE_UPWARD);
    for (int i = 0; i < 3; i++) {
        tm_sched_yield();
        if (fegetround() != FE_UPWARD)
            fenv_errors++;
    }
}

static void fenv_default_body(void *arg)
{
    for (int i = 0; i < 3; i++) {
        if (fegetround() != FE_TONEAREST)
            fenv_errors++;
        tm_sched_yield();
    }
}

START_TEST(test_fenv_per_ult)
{
    sched_setup(1, TM_SCHED_STACK_SIZE_MIN);
    ck_assert_int_eq(tm_sched_ult_create(0, fenv_up_body, NULL, 0, NULL), 0);
    ck_assert_int_eq(tm_sched_ult_create(0, fenv_default_body, NULL, 0, NULL), 0);
    ck_assert_int_eq(tm_sched_run(), 0);
    ck_assert_int_eq(fenv_errors, 0);
    ck_assert_int_eq(fegetround(), FE_TONEAREST);
    tm_sched_finalize();
}
END_TEST
#endif

/* ---- callee-saved registers survive a switch (regs_<arch>.S) */

#if !defined(TM_SCHED_CONTEXT_UCONTEXT) && (defined(__x86_64__) || defined(__aarch64__))
#define TEST_REGS 1

int tm_test_regs_call(void (*fn)(void));
void tm_test_regs_trash(void (*fn)(void));

static int regs_errors = -1;
static tm_sched_ult_t *regs_checker;

static void regs_unpark_checker(void)
{
    tm_sched_unpark(regs_checker);
    tm_sched_yield();
}

/* tm_sched_yield as the assembly helpers take it (no result). */
static void regs_yield(void)
{
    tm_sched_yield();
}

static void regs_check_body(void *arg)
{
    regs_errors = tm_test_regs_call(regs_yield);
    regs_errors += tm_test_regs_call(tm_sched_park);
    trace_add('c');
}

static void regs_trash_body(void *arg)
{
    tm_test_regs_trash(regs_yield);
    tm_test_regs_trash(regs_unpark_checker);
    trace_add('t');
}

/* The checker holds known values in every callee-saved register across a yield and a park,
 * while the other ULT runs with other values in them. */
START_TEST(test_callee_saved_registers)
{
    trace_reset();
    sched_setup(1, TM_SCHED_STACK_SIZE_MIN);
    ck_assert_int_eq(tm_sched_ult_create(0, regs_check_body, NULL, 0, &regs_checker), 0);
    ck_assert_int_eq(tm_sched_ult_create(0, regs_trash_body, NULL, 0, NULL), 0);
    ck_assert_int_eq(tm_sched_run(), 0);
    ck_assert_str_eq(trace, "ct");
    ck_assert_int_eq(regs_errors, 0);
    tm_sched_finalize();
}
END_TEST
#endif

static Suite *ult_suite(void)
{
    Suite *s = suite_create("sched_ult");
    TCase *tc = tcase_create("ult");

    tcase_add_test(tc, test_yield_round_robin);
    tcase_add_test(tc, test_yield_alone);
    tcase_add_test(tc, test_self_vp_data);
    tcase_add_test(tc, test_park_unpark_same_vp);
    tcase_add_test(tc, test_park_permit);
    tcase_add_test(tc, test_ult_exit);
    tcase_add_test(tc, test_many_ults);
    tcase_add_test(tc, test_create_during_run);
#if defined(__x86_64__)
    tcase_add_test(tc, test_fenv_per_ult);
#endif
#ifdef TEST_REGS
    tcase_add_test(tc, test_callee_saved_registers);
#endif
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(ult_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
