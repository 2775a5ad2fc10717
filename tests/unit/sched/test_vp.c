/*
 * Unit tests of VPs and runs: configuration errors, several runs in one process, park/unpark
 * across VPs and from foreign threads (ping-pong, no lost wake-up under stress), idle VPs that
 * sleep instead of spinning, pinning and the alternate signal stack.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "sched/sched.h"

/* Rounds of ping-pong with spinning VPs, and with VPs that sleep at once (about 30 us each on a
 * virtual machine). */
#ifdef TM_WITH_TSAN
#define PINGPONG_ROUNDS       20000
#define PINGPONG_SLEEP_ROUNDS 2000
#define STRESS_WAKES          2000
#else
#define PINGPONG_ROUNDS       200000
#define PINGPONG_SLEEP_ROUNDS 20000
#define STRESS_WAKES          20000
#endif

static uint64_t now_ns(clockid_t clock)
{
    struct timespec ts;

    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sched_setup(int nvps, unsigned idle_spin_us)
{
    tm_sched_config_t cfg = {
        .nvps = nvps, .stack_size = TM_SCHED_STACK_SIZE_MIN, .idle_spin_us = idle_spin_us};

    ck_assert_int_eq(tm_sched_init(&cfg), 0);
}

static void nop_body(void *arg)
{
}

/* ---- configuration and life cycle */

START_TEST(test_init_errors)
{
    tm_sched_config_t cfg = {.nvps = 0};
    hwloc_const_cpuset_t sets[1] = {NULL};

    ck_assert_int_eq(tm_sched_init(NULL), -EINVAL);
    ck_assert_int_eq(tm_sched_init(&cfg), -EINVAL);
    cfg.nvps = 1;
    cfg.stack_size = TM_SCHED_STACK_SIZE_MIN - 1;
    ck_assert_int_eq(tm_sched_init(&cfg), -EINVAL);
    cfg.stack_size = 0;
    cfg.vp_cpusets = sets; /* cpusets without a topology */
    ck_assert_int_eq(tm_sched_init(&cfg), -EINVAL);
    cfg.vp_cpusets = NULL;
    ck_assert_int_eq(tm_sched_run(), -EINVAL);
    ck_assert_int_eq(tm_sched_ult_create(0, nop_body, NULL, 0, NULL), -EINVAL);

    ck_assert_int_eq(tm_sched_init(&cfg), 0);
    ck_assert_int_eq(tm_sched_init(&cfg), -EBUSY);
    ck_assert_int_eq(tm_sched_ult_create(1, nop_body, NULL, 0, NULL), -EINVAL);
    ck_assert_int_eq(tm_sched_ult_create(-1, nop_body, NULL, 0, NULL), -EINVAL);
    ck_assert_int_eq(tm_sched_ult_create(0, NULL, NULL, 0, NULL), -EINVAL);
    ck_assert_int_eq(tm_sched_ult_create(0, nop_body, NULL, TM_SCHED_STACK_SIZE_MIN - 1, NULL),
                     -EINVAL);
    /* A run without ULTs ends at once. */
    ck_assert_int_eq(tm_sched_run(), 0);
    tm_sched_finalize();
}
END_TEST

static _Atomic int twice_count;

static void twice_body(void *arg)
{
    atomic_fetch_add(&twice_count, (int)(intptr_t)arg);
    tm_sched_yield();
    atomic_fetch_add(&twice_count, (int)(intptr_t)arg);
}

/* init, run, finalize twice in one process, with a different number of VPs each time. */
START_TEST(test_init_run_finalize_twice)
{
    for (int run = 1; run <= 2; run++) {
        sched_setup(run == 1 ? 2 : 3, 10);
        ck_assert_int_eq(tm_sched_nvps(), run == 1 ? 2 : 3);
        for (int i = 0; i < 6; i++)
            ck_assert_int_eq(tm_sched_ult_create(i % tm_sched_nvps(), twice_body,
                                                 (void *)(intptr_t)run, 0, NULL),
                             0);
        ck_assert_int_eq(tm_sched_run(), 0);
        ck_assert_int_eq(atomic_load(&twice_count), run == 1 ? 12 : 36);
        tm_sched_finalize();
        ck_assert_int_eq(tm_sched_nvps(), 0);
    }
}
END_TEST

/* ---- ping-pong between two VPs */

static tm_sched_ult_t *pp_ults[2];
static _Atomic long pp_turn; /* even: ULT 0 plays, odd: ULT 1 plays */
static _Atomic int pp_errors;
static long pp_rounds;

static void pp_body(void *arg)
{
    int me = (int)(intptr_t)arg;

    if (tm_sched_self_vp() != me)
        atomic_fetch_add(&pp_errors, 1);
    for (long i = 0; i < pp_rounds; i++) {
        long mine = 2 * i + me;

        while (atomic_load_explicit(&pp_turn, memory_order_acquire) != mine)
            tm_sched_park();
        atomic_store_explicit(&pp_turn, mine + 1, memory_order_release);
        tm_sched_unpark(pp_ults[1 - me]);
    }
}

static void pingpong(unsigned idle_spin_us, long rounds)
{
    pp_rounds = rounds;
    sched_setup(2, idle_spin_us);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(tm_sched_ult_create(i, pp_body, (void *)(intptr_t)i, 0, &pp_ults[i]), 0);
    ck_assert_int_eq(tm_sched_run(), 0);
    ck_assert_int_eq(atomic_load(&pp_errors), 0);
    ck_assert_int_eq(atomic_load(&pp_turn), 2 * rounds);
    tm_sched_finalize();
}

START_TEST(test_pingpong_spin)
{
    pingpong(1000, PINGPONG_ROUNDS);
}
END_TEST

/* Without spinning every wait goes through the futex. */
START_TEST(test_pingpong_sleep)
{
    pingpong(0, PINGPONG_SLEEP_ROUNDS);
}
END_TEST

/* Both VPs on one core, each spinning for up to a second when idle: the VP that waits must give
 * the core to the one that will wake it, or every hand-over costs a time slice (several ms) and
 * the rounds take minutes. */
START_TEST(test_pingpong_spin_one_core)
{
    cpu_set_t prev, one;

    ck_assert_int_eq(sched_getaffinity(0, sizeof(prev), &prev), 0);
    CPU_ZERO(&one);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &prev)) {
            CPU_SET(cpu, &one);
            break;
        }
    /* The VP threads inherit the mask of the thread that starts the run. */
    ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
    pingpong(1000000, PINGPONG_SLEEP_ROUNDS);
    ck_assert_int_eq(sched_setaffinity(0, sizeof(prev), &prev), 0);
}
END_TEST

/* ---- unpark from a foreign pthread */

#define FOREIGN_ROUNDS 2000

static tm_sched_ult_t *foreign_ult;
static _Atomic int foreign_posted, foreign_seen;

static void foreign_body(void *arg)
{
    for (int i = 1; i <= FOREIGN_ROUNDS; i++) {
        while (atomic_load_explicit(&foreign_posted, memory_order_acquire) < i)
            tm_sched_park();
        atomic_store_explicit(&foreign_seen, i, memory_order_release);
    }
}

static void *foreign_thread(void *arg)
{
    for (int i = 1; i <= FOREIGN_ROUNDS; i++) {
        atomic_store_explicit(&foreign_posted, i, memory_order_release);
        tm_sched_unpark(foreign_ult);
        while (atomic_load_explicit(&foreign_seen, memory_order_acquire) < i)
            sched_yield();
    }
    return NULL;
}

START_TEST(test_unpark_foreign_thread)
{
    pthread_t th;

    sched_setup(2, 0);
    ck_assert_int_eq(tm_sched_ult_create(1, foreign_body, NULL, 0, &foreign_ult), 0);
    ck_assert_int_eq(pthread_create(&th, NULL, foreign_thread, NULL), 0);
    ck_assert_int_eq(tm_sched_run(), 0);
    pthread_join(th, NULL);
    ck_assert_int_eq(atomic_load(&foreign_seen), FOREIGN_ROUNDS);
    tm_sched_finalize();
}
END_TEST

/* ---- no lost wake-up: unparks racing parks
 *
 * Each consumer ULT is fed by one producer in lockstep: the producer posts round i, unparks the
 * consumer and waits for its acknowledgement before posting round i + 1, which it does at once,
 * while the consumer is on its way back into park. Every wake-up matters (no later one can make
 * up for a lost one), so a lost wake-up shows as a producer waiting past its deadline. Producers
 * are foreign threads (inbound wake, futex), a ULT of the other VP, and a ULT of the same VP
 * (local wake). */

#define STRESS_PAIRS       4
#define STRESS_DEADLINE_NS 5000000000u

typedef struct stress_pair {
    tm_sched_ult_t *consumer;
    tm_sched_ult_t *producer; /* NULL: a foreign thread */
    _Atomic long posted, acked;
} stress_pair_t;

static stress_pair_t stress_pairs[STRESS_PAIRS];
static _Atomic int stress_lost;

static void stress_consumer(void *arg)
{
    stress_pair_t *p = arg;

    for (long i = 1; i <= STRESS_WAKES; i++) {
        while (atomic_load_explicit(&p->posted, memory_order_acquire) < i)
            tm_sched_park();
        atomic_store_explicit(&p->acked, i, memory_order_release);
    }
}

/* Producer side of round i: post, wake, and wait for the acknowledgement. A ULT producer yields
 * while it waits (the consumer may be on its VP); a foreign one gives its core away. */
static void stress_produce(stress_pair_t *p, long i, bool is_ult)
{
    uint64_t deadline = now_ns(CLOCK_MONOTONIC) + STRESS_DEADLINE_NS;

    atomic_store_explicit(&p->posted, i, memory_order_release);
    tm_sched_unpark(p->consumer);
    for (unsigned spin = 1; atomic_load_explicit(&p->acked, memory_order_acquire) < i; spin++) {
        if (is_ult)
            tm_sched_yield();
        else
            sched_yield();
        if (spin % 256 == 0 && now_ns(CLOCK_MONOTONIC) > deadline) {
            /* Lost: count it, then wake the consumer again so that the test ends. */
            atomic_fetch_add(&stress_lost, 1);
            tm_sched_unpark(p->consumer);
            deadline = now_ns(CLOCK_MONOTONIC) + STRESS_DEADLINE_NS;
        }
    }
}

static void stress_ult_producer(void *arg)
{
    for (long i = 1; i <= STRESS_WAKES; i++)
        stress_produce(arg, i, true);
}

static void *stress_foreign_producer(void *arg)
{
    for (long i = 1; i <= STRESS_WAKES; i++)
        stress_produce(arg, i, false);
    return NULL;
}

static void stress(unsigned idle_spin_us)
{
    pthread_t th[2];

    sched_setup(2, idle_spin_us);
    for (int c = 0; c < STRESS_PAIRS; c++)
        ck_assert_int_eq(tm_sched_ult_create(c % 2, stress_consumer, &stress_pairs[c], 0,
                                             &stress_pairs[c].consumer),
                         0);
    /* Pairs 0 and 1: foreign producers. Pair 2 (consumer on VP 0): producer on VP 1. Pair 3
     * (consumer on VP 1): producer on VP 1 too. */
    ck_assert_int_eq(
        tm_sched_ult_create(1, stress_ult_producer, &stress_pairs[2], 0, &stress_pairs[2].producer),
        0);
    ck_assert_int_eq(
        tm_sched_ult_create(1, stress_ult_producer, &stress_pairs[3], 0, &stress_pairs[3].producer),
        0);
    for (int p = 0; p < 2; p++)
        ck_assert_int_eq(pthread_create(&th[p], NULL, stress_foreign_producer, &stress_pairs[p]),
                         0);
    ck_assert_int_eq(tm_sched_run(), 0);
    for (int p = 0; p < 2; p++)
        pthread_join(th[p], NULL);
    ck_assert_msg(atomic_load(&stress_lost) == 0, "%d wake-ups lost", atomic_load(&stress_lost));
    for (int c = 0; c < STRESS_PAIRS; c++)
        ck_assert_int_eq(atomic_load(&stress_pairs[c].acked), STRESS_WAKES);
    tm_sched_finalize();
}

START_TEST(test_no_lost_wakeup_spin)
{
    stress(20);
}
END_TEST

START_TEST(test_no_lost_wakeup_sleep)
{
    stress(0);
}
END_TEST

/* ---- idle VPs sleep */

#define IDLE_WAIT_NS 200000000u

static tm_sched_ult_t *idle_ults[2];
static _Atomic int idle_parked;
static _Atomic int idle_woken;
static uint64_t idle_wall_ns[2], idle_cpu_ns[2];

static void idle_body(void *arg)
{
    int me = (int)(intptr_t)arg;
    uint64_t wall = now_ns(CLOCK_MONOTONIC);
    /* The ULT runs on its VP's kernel thread: this is the VP's CPU time. */
    uint64_t cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);

    atomic_fetch_add(&idle_parked, 1);
    while (atomic_load_explicit(&idle_woken, memory_order_acquire) == 0)
        tm_sched_park();
    idle_wall_ns[me] = now_ns(CLOCK_MONOTONIC) - wall;
    idle_cpu_ns[me] = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
}

static void *idle_waker(void *arg)
{
    struct timespec ts = {0, IDLE_WAIT_NS};

    while (atomic_load(&idle_parked) < 2)
        sched_yield();
    nanosleep(&ts, NULL);
    atomic_store_explicit(&idle_woken, 1, memory_order_release);
    tm_sched_unpark(idle_ults[0]);
    tm_sched_unpark(idle_ults[1]);
    return NULL;
}

/* Both VPs have nothing to run for 200 ms: after a 100 us spin they must sleep, so each VP thread
 * uses a small fraction of that time. */
START_TEST(test_idle_vps_sleep)
{
    pthread_t th;

    sched_setup(2, 100);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(tm_sched_ult_create(i, idle_body, (void *)(intptr_t)i, 0, &idle_ults[i]),
                         0);
    ck_assert_int_eq(pthread_create(&th, NULL, idle_waker, NULL), 0);
    ck_assert_int_eq(tm_sched_run(), 0);
    pthread_join(th, NULL);
    for (int i = 0; i < 2; i++) {
        ck_assert_uint_ge(idle_wall_ns[i], IDLE_WAIT_NS);
        ck_assert_msg(idle_cpu_ns[i] < idle_wall_ns[i] / 10,
                      "VP %d used %llu ns of CPU over %llu ns of idle wait", i,
                      (unsigned long long)idle_cpu_ns[i], (unsigned long long)idle_wall_ns[i]);
    }
    tm_sched_finalize();
}
END_TEST

/* ---- pinning and the alternate signal stack */

static int pin_cpu[2] = {-1, -1};
static int pin_errors;
static hwloc_topology_t pin_topo;
static hwloc_bitmap_t pin_sets[2];

static void pin_body(void *arg)
{
    int me = (int)(intptr_t)arg;
    hwloc_bitmap_t bound = hwloc_bitmap_alloc();
    stack_t ss;

    if (hwloc_get_cpubind(pin_topo, bound, HWLOC_CPUBIND_THREAD) != 0 ||
        !hwloc_bitmap_isequal(bound, pin_sets[me]))
        pin_errors++;
    hwloc_bitmap_free(bound);
    pin_cpu[me] = sched_getcpu();
    if (sigaltstack(NULL, &ss) != 0 || (ss.ss_flags & SS_DISABLE) ||
        ss.ss_size < TM_SCHED_ALTSTACK_SIZE)
        pin_errors++;
}

START_TEST(test_pinning_and_altstack)
{
    hwloc_bitmap_t before = hwloc_bitmap_alloc(), after = hwloc_bitmap_alloc();
    hwloc_const_cpuset_t sets[2];
    stack_t ss_before, ss_after;
    int npus;

    ck_assert_int_eq(hwloc_topology_init(&pin_topo), 0);
    ck_assert_int_eq(hwloc_topology_load(pin_topo), 0);
    npus = hwloc_get_nbobjs_by_type(pin_topo, HWLOC_OBJ_PU);
    ck_assert_int_ge(npus, 1);
    for (int i = 0; i < 2; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(pin_topo, HWLOC_OBJ_PU, (unsigned)(i % npus));

        pin_sets[i] = hwloc_bitmap_dup(pu->cpuset);
        sets[i] = pin_sets[i];
    }
    ck_assert_int_eq(hwloc_get_cpubind(pin_topo, before, HWLOC_CPUBIND_THREAD), 0);
    ck_assert_int_eq(sigaltstack(NULL, &ss_before), 0);

    tm_sched_config_t cfg = {.nvps = 2,
                             .stack_size = TM_SCHED_STACK_SIZE_MIN,
                             .idle_spin_us = 10,
                             .topology = pin_topo,
                             .vp_cpusets = sets};
    ck_assert_int_eq(tm_sched_init(&cfg), 0);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(tm_sched_ult_create(i, pin_body, (void *)(intptr_t)i, 0, NULL), 0);
    ck_assert_int_eq(tm_sched_run(), 0);
    ck_assert_int_eq(pin_errors, 0);
    for (int i = 0; i < 2; i++)
        ck_assert(hwloc_bitmap_isset(pin_sets[i], (unsigned)pin_cpu[i]));
    tm_sched_finalize();

    /* The caller of tm_sched_run gets its binding and signal stack back. */
    ck_assert_int_eq(hwloc_get_cpubind(pin_topo, after, HWLOC_CPUBIND_THREAD), 0);
    ck_assert(hwloc_bitmap_isequal(before, after));
    ck_assert_int_eq(sigaltstack(NULL, &ss_after), 0);
    ck_assert_ptr_eq(ss_after.ss_sp, ss_before.ss_sp);
    ck_assert_uint_eq(ss_after.ss_size, ss_before.ss_size);
    ck_assert_int_eq(ss_after.ss_flags, ss_before.ss_flags);
    hwloc_bitmap_free(before);
    hwloc_bitmap_free(after);
    for (int i = 0; i < 2; i++)
        hwloc_bitmap_free(pin_sets[i]);
    hwloc_topology_destroy(pin_topo);
}
END_TEST

static _Atomic int fail_ran;

static void fail_body(void *arg)
{
    atomic_store(&fail_ran, 1);
}

/* A cpuset the VP cannot be bound to: the run fails before any ULT runs. */
START_TEST(test_pinning_failure)
{
    hwloc_topology_t topo;
    hwloc_bitmap_t bad = hwloc_bitmap_alloc();
    hwloc_const_cpuset_t sets[2];

    ck_assert_int_eq(hwloc_topology_init(&topo), 0);
    ck_assert_int_eq(hwloc_topology_load(topo), 0);
    /* A processor far beyond any this machine has. */
    hwloc_bitmap_only(bad, 4000);
    sets[0] = hwloc_topology_get_topology_cpuset(topo);
    sets[1] = bad;

    tm_sched_config_t cfg = {.nvps = 2, .topology = topo, .vp_cpusets = sets};
    ck_assert_int_eq(tm_sched_init(&cfg), 0);
    ck_assert_int_eq(tm_sched_ult_create(0, fail_body, NULL, 0, NULL), 0);
    ck_assert_int_eq(tm_sched_ult_create(1, fail_body, NULL, 0, NULL), 0);
    ck_assert_int_lt(tm_sched_run(), 0);
    ck_assert_int_eq(atomic_load(&fail_ran), 0);
    ck_assert_int_eq(tm_sched_self_vp(), -1);
    tm_sched_finalize();
    hwloc_bitmap_free(bad);
    hwloc_topology_destroy(topo);
}
END_TEST

static void add_case(Suite *s, const char *name, const TTest *const *tests, int ntests)
{
    TCase *tc = tcase_create(name);

    for (int i = 0; i < ntests; i++)
        tcase_add_test(tc, tests[i]);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
}

static Suite *vp_suite(void)
{
    Suite *s = suite_create("sched_vp");
    const TTest *life[] = {test_init_errors, test_init_run_finalize_twice};
    const TTest *wake[] = {test_pingpong_spin, test_pingpong_sleep, test_pingpong_spin_one_core,
                           test_unpark_foreign_thread};
    const TTest *stress[] = {test_no_lost_wakeup_spin, test_no_lost_wakeup_sleep};
    const TTest *idle[] = {test_idle_vps_sleep};
    const TTest *pin[] = {test_pinning_and_altstack, test_pinning_failure};

    add_case(s, "life", life, 2);
    add_case(s, "wake", wake, 4);
    add_case(s, "stress", stress, 2);
    add_case(s, "idle", idle, 1);
    add_case(s, "pin", pin, 2);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(vp_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
