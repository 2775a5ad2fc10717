/*
 * Unit tests of ULT stacks: sizes, the guard page, the per-VP cache, and stack-overflow
 * detection through tm_sched_fault_overflowed_ult() from a SIGSEGV handler on the VP's
 * alternate signal stack.
 *
 * Faulting tests end the forked test process with _exit() from their own SIGSEGV handler and
 * are checked with tcase_add_exit_test: that works the same under AddressSanitizer, which would
 * otherwise turn the signal into a report and exit code 1.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <numa.h>
#include <numaif.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sched/sched.h"
#include "sched/stack.h"

#define EXIT_DETECTED 42

static size_t page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

static void install_segv_handler(void (*handler)(int, siginfo_t *, void *))
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGSEGV, &sa, NULL), 0);
    ck_assert_int_eq(sigaction(SIGBUS, &sa, NULL), 0);
}

START_TEST(test_stack_round_and_alloc)
{
    size_t page = page_size();
    tm_sched_stack_t st;

    ck_assert_uint_eq(tm_sched_stack_round(1), page);
    ck_assert_uint_eq(tm_sched_stack_round(page), page);
    ck_assert_uint_eq(tm_sched_stack_round(page + 1), 2 * page);
    ck_assert_int_eq(tm_sched_stack_alloc(page + 1, &st), -EINVAL);
    ck_assert_int_eq(tm_sched_stack_alloc(0, &st), -EINVAL);

    ck_assert_int_eq(tm_sched_stack_alloc(16 * page, &st), 0);
    ck_assert_uint_eq(st.size, 16 * page);
    ck_assert_ptr_eq((char *)st.base + page, st.lo);
    /* The whole usable part is writable. */
    memset(st.lo, 0xa5, st.size);
    ck_assert_int_eq(((unsigned char *)st.lo)[st.size - 1], 0xa5);
    tm_sched_stack_free(&st);
}
END_TEST

START_TEST(test_stack_overflowed_bounds)
{
    size_t page = page_size();
    tm_sched_stack_t st;
    char *lo;

    ck_assert_int_eq(tm_sched_stack_alloc(4 * page, &st), 0);
    lo = st.lo;
    ck_assert(tm_sched_stack_overflowed(&st, lo - 1));
    ck_assert(tm_sched_stack_overflowed(&st, st.base));
    ck_assert(tm_sched_stack_overflowed(&st, (char *)st.base - page));
    ck_assert(!tm_sched_stack_overflowed(&st, (char *)st.base - page - 1));
    ck_assert(!tm_sched_stack_overflowed(&st, lo));
    ck_assert(!tm_sched_stack_overflowed(&st, lo + st.size - 1));
    ck_assert(!tm_sched_stack_overflowed(&st, lo + st.size));
    tm_sched_stack_free(&st);
}
END_TEST

static void guard_handler(int sig, siginfo_t *si, void *uctx)
{
    _exit(EXIT_DETECTED);
}

/* Writing just below the usable part hits the guard page. */
START_TEST(test_stack_guard_page_faults)
{
    tm_sched_stack_t st;

    ck_assert_int_eq(tm_sched_stack_alloc(4 * page_size(), &st), 0);
    install_segv_handler(guard_handler);
    ((volatile char *)st.lo)[-1] = 1;
    _exit(0);
}
END_TEST

/* Placing a stack sets the NUMA policy of its pages: preferred node 0 (which every machine
 * has), or interleaved; pages touched before move with it. Bad nodes are refused. Only where
 * the kernel lets libnuma work (numa_available). */
START_TEST(test_stack_place)
{
    tm_sched_stack_t stack;
    int mode = -1, node = -1;

    ck_assert_int_eq(tm_sched_stack_alloc(tm_sched_stack_round(1 << 20), &stack), 0);
    ck_assert_int_eq(tm_sched_stack_place(&stack, -3), -EINVAL);
    if (numa_available() >= 0) {
        memset(stack.lo, 1, stack.size);
        ck_assert_int_eq(tm_sched_stack_place(&stack, 0), 0);
        ck_assert_int_eq(get_mempolicy(&mode, NULL, 0, stack.lo, MPOL_F_ADDR), 0);
        ck_assert_int_eq(mode, MPOL_PREFERRED);
        ck_assert_int_eq(get_mempolicy(&node, NULL, 0, stack.lo, MPOL_F_NODE | MPOL_F_ADDR), 0);
        ck_assert_int_eq(node, 0);
        ck_assert_int_eq(tm_sched_stack_place(&stack, TM_SCHED_MEM_INTERLEAVE), 0);
        ck_assert_int_eq(
            get_mempolicy(&mode, NULL, 0, (char *)stack.lo + stack.size / 2, MPOL_F_ADDR), 0);
        ck_assert_int_eq(mode, MPOL_INTERLEAVE);
        ck_assert_int_eq(tm_sched_stack_place(&stack, numa_max_node() + 1), -EINVAL);
    }
    tm_sched_stack_free(&stack);
}
END_TEST

START_TEST(test_stack_cache_reuse)
{
    size_t page = page_size();
    tm_sched_stack_cache_t cache = {0};
    tm_sched_stack_t a, b, c, extra[TM_SCHED_STACK_CACHE_LEN + 2];

    ck_assert_int_eq(tm_sched_stack_cache_get(&cache, 16 * page, &a), 0);
    tm_sched_stack_cache_put(&cache, &a);
    ck_assert_uint_eq(cache.count, 1);
    /* Same size: the very same mapping comes back. */
    ck_assert_int_eq(tm_sched_stack_cache_get(&cache, 16 * page, &b), 0);
    ck_assert_ptr_eq(b.base, a.base);
    ck_assert_uint_eq(cache.count, 0);
    /* Another size is not served from the cache. */
    tm_sched_stack_cache_put(&cache, &b);
    ck_assert_int_eq(tm_sched_stack_cache_get(&cache, 32 * page, &c), 0);
    ck_assert_ptr_ne(c.base, b.base);
    ck_assert_uint_eq(c.size, 32 * page);
    ck_assert_uint_eq(cache.count, 1);
    tm_sched_stack_cache_put(&cache, &c);
    ck_assert_uint_eq(cache.count, 2);
    /* The cache is bounded: surplus stacks are unmapped. */
    for (int i = 0; i < TM_SCHED_STACK_CACHE_LEN + 2; i++)
        ck_assert_int_eq(tm_sched_stack_alloc(page, &extra[i]), 0);
    for (int i = 0; i < TM_SCHED_STACK_CACHE_LEN + 2; i++)
        tm_sched_stack_cache_put(&cache, &extra[i]);
    ck_assert_uint_eq(cache.count, TM_SCHED_STACK_CACHE_LEN);
    /* Without a cache (a caller that is not a VP), a fresh stack is mapped. */
    ck_assert_int_eq(tm_sched_stack_cache_get(NULL, page, &a), 0);
    tm_sched_stack_free(&a);
    tm_sched_stack_cache_drain(&cache);
    ck_assert_uint_eq(cache.count, 0);
}
END_TEST

/* ---- overflow of a running ULT */

static tm_sched_ult_t *overflow_ult;

static void overflow_handler(int sig, siginfo_t *si, void *uctx)
{
    stack_t ss;

    /* The handler must be on the VP's alternate stack: the ULT stack is exhausted. */
    if (sigaltstack(NULL, &ss) != 0 || !(ss.ss_flags & SS_ONSTACK))
        _exit(2);
    if (tm_sched_self_vp() != 1)
        _exit(3);
    _exit(tm_sched_fault_overflowed_ult(si->si_addr) == overflow_ult ? EXIT_DETECTED : 4);
}

/* Far deeper than any stack: only there so that the recursion is not provably infinite. */
static volatile int recurse_limit = INT_MAX;

static int recurse(volatile char *prev, int depth)
{
    volatile char frame[256];

    if (depth >= recurse_limit)
        return 0;
    frame[0] = (char)depth;
    frame[255] = prev != NULL ? prev[0] : 0;
    /* Work after the call keeps the compiler from turning the recursion into a loop. */
    return recurse(frame, depth + 1) + frame[255];
}

static void overflow_body(void *arg)
{
    /* Not an overflow: an address inside the stack and one far from any stack. */
    if (tm_sched_fault_overflowed_ult(&arg) != NULL ||
        tm_sched_fault_overflowed_ult((void *)&overflow_ult) != NULL)
        _exit(5);
    recurse(NULL, 0);
}

static void idle_body(void *arg)
{
}

START_TEST(test_stack_overflow_detected)
{
    tm_sched_config_t cfg = {.nvps = 2, .stack_size = TM_SCHED_STACK_SIZE_MIN};

    install_segv_handler(overflow_handler);
    ck_assert_int_eq(tm_sched_init(&cfg), 0);
    ck_assert_int_eq(tm_sched_ult_create(0, idle_body, NULL, 0, NULL), 0);
    ck_assert_int_eq(tm_sched_ult_create(1, overflow_body, NULL, 0, &overflow_ult), 0);
    ck_assert_ptr_null(tm_sched_fault_overflowed_ult(NULL));
    tm_sched_run();
    _exit(0);
}
END_TEST

static Suite *stack_suite(void)
{
    Suite *s = suite_create("sched_stack");
    TCase *tc = tcase_create("stack");

    tcase_add_test(tc, test_stack_round_and_alloc);
    tcase_add_test(tc, test_stack_overflowed_bounds);
    tcase_add_exit_test(tc, test_stack_guard_page_faults, EXIT_DETECTED);
    tcase_add_test(tc, test_stack_cache_reuse);
    tcase_add_test(tc, test_stack_place);
    tcase_add_exit_test(tc, test_stack_overflow_detected, EXIT_DETECTED);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(stack_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
