/*
 * ULT switch costs, printed as a table (`make bench`, then bench/ult_switch [iterations]).
 *
 * - yield: N ULTs on one VP yield in turn; ns per yield, i.e. per hand-over from one ULT to the
 *   next (two context switches: ULT -> scheduler context -> ULT).
 * - park/unpark ping-pong: two ULTs wake each other in turn, on one VP or on two VPs (pinned to
 *   two cores when the machine has them); ns per one-way hand-over. With two VPs, "spin" keeps
 *   the idle VP polling, "futex" makes it sleep at once (idle_spin_us = 0).
 *
 * Each figure is the median of 5 runs; the timing is taken inside the ULTs, so thread and stack
 * creation are not counted.
 */
#include "config.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sched/sched.h"

#define BENCH_REPEAT 5

static long iterations = 2000000;

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static hwloc_topology_t topology;
static hwloc_const_cpuset_t cpusets[2];

static void bench_init(int nvps, unsigned idle_spin_us)
{
    tm_sched_config_t cfg = {.nvps = nvps,
                             .stack_size = TM_SCHED_STACK_SIZE_MIN,
                             .idle_spin_us = idle_spin_us,
                             .topology = cpusets[0] != NULL ? topology : NULL,
                             .vp_cpusets = cpusets[0] != NULL ? cpusets : NULL};

    if (tm_sched_init(&cfg) != 0) {
        fprintf(stderr, "ult_switch: tm_sched_init failed\n");
        exit(EXIT_FAILURE);
    }
}

static void bench_run(void)
{
    if (tm_sched_run() != 0) {
        fprintf(stderr, "ult_switch: tm_sched_run failed\n");
        exit(EXIT_FAILURE);
    }
    tm_sched_finalize();
}

static void bench_create(int vp, tm_sched_ult_fn_t fn, void *arg, tm_sched_ult_t **ult_p)
{
    if (tm_sched_ult_create(vp, fn, arg, 0, ult_p) != 0) {
        fprintf(stderr, "ult_switch: tm_sched_ult_create failed\n");
        exit(EXIT_FAILURE);
    }
}

/* ---- yield */

static uint64_t yield_start, yield_end;

static void yield_body(void *arg)
{
    int first = arg != NULL;

    /* One round so that every ULT has started (and touched its stack) before timing. */
    tm_sched_yield();
    if (first)
        yield_start = now_ns();
    for (long i = 0; i < iterations; i++)
        tm_sched_yield();
    if (first)
        yield_end = now_ns();
}

static double bench_yield(int nults)
{
    bench_init(1, 0);
    for (int i = 0; i < nults; i++)
        bench_create(0, yield_body, i == 0 ? (void *)1 : NULL, NULL);
    bench_run();
    /* The first ULT's loop spans iterations rounds of nults yields each. */
    return (double)(yield_end - yield_start) / ((double)iterations * nults);
}

/* ---- park/unpark ping-pong */

static tm_sched_ult_t *pp_ults[2];
static _Atomic long pp_turn;
static uint64_t pp_start, pp_end;
static long pp_rounds;

static void pp_body(void *arg)
{
    int me = (int)(intptr_t)arg;

    if (me == 0)
        pp_start = now_ns();
    for (long i = 0; i < pp_rounds; i++) {
        long mine = 2 * i + me;

        while (atomic_load_explicit(&pp_turn, memory_order_acquire) != mine)
            tm_sched_park();
        atomic_store_explicit(&pp_turn, mine + 1, memory_order_release);
        tm_sched_unpark(pp_ults[1 - me]);
    }
    if (me == 0)
        pp_end = now_ns();
}

static double bench_pingpong(int nvps, unsigned idle_spin_us, long rounds)
{
    pp_rounds = rounds;
    atomic_store(&pp_turn, 0);
    bench_init(nvps, idle_spin_us);
    for (int i = 0; i < 2; i++)
        bench_create(i % nvps, pp_body, (void *)(intptr_t)i, &pp_ults[i]);
    bench_run();
    return (double)(pp_end - pp_start) / (2.0 * (double)rounds);
}

/* ---- table */

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double median(double samples[BENCH_REPEAT])
{
    qsort(samples, BENCH_REPEAT, sizeof(double), compare_double);
    return samples[BENCH_REPEAT / 2];
}

static void row(const char *name, int nults, int nvps, long iters, double samples[BENCH_REPEAT])
{
    printf("%-36s %5d %4d %11ld %9.1f\n", name, nults, nvps, iters, median(samples));
}

static void setup_pinning(void)
{
    int npus;

    if (hwloc_topology_init(&topology) != 0 || hwloc_topology_load(topology) != 0)
        return;
    npus = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU);
    if (npus < 2)
        return;
    for (int i = 0; i < 2; i++)
        cpusets[i] = hwloc_get_obj_by_type(topology, HWLOC_OBJ_PU, (unsigned)i)->cpuset;
}

int main(int argc, char **argv)
{
    double samples[BENCH_REPEAT];
    long wake_rounds, sleep_rounds;

    if (argc > 1)
        iterations = atol(argv[1]);
    if (iterations <= 0) {
        fprintf(stderr, "usage: %s [iterations]\n", argv[0]);
        return EXIT_FAILURE;
    }
    wake_rounds = iterations / 4 > 0 ? iterations / 4 : 1;
    sleep_rounds = iterations / 100 > 0 ? iterations / 100 : 1;
    setup_pinning();

    printf("ThreadMPI ULT switch benchmark (median of %d runs; VPs %s)\n", BENCH_REPEAT,
           cpusets[0] != NULL ? "pinned to PU 0 and PU 1" : "not pinned");
    printf("%-36s %5s %4s %11s %9s\n", "benchmark", "ULTs", "VPs", "iterations", "ns/op");
    for (int n = 2; n <= 8; n *= 4) {
        for (int r = 0; r < BENCH_REPEAT; r++)
            samples[r] = bench_yield(n);
        row("yield", n, 1, iterations, samples);
    }
    for (int r = 0; r < BENCH_REPEAT; r++)
        samples[r] = bench_pingpong(1, 0, wake_rounds);
    row("park/unpark ping-pong, same VP", 2, 1, wake_rounds, samples);
    for (int r = 0; r < BENCH_REPEAT; r++)
        samples[r] = bench_pingpong(2, 1000000, wake_rounds);
    row("park/unpark ping-pong, spin", 2, 2, wake_rounds, samples);
    for (int r = 0; r < BENCH_REPEAT; r++)
        samples[r] = bench_pingpong(2, 0, sleep_rounds);
    row("park/unpark ping-pong, futex", 2, 2, sleep_rounds, samples);

    if (topology != NULL)
        hwloc_topology_destroy(topology);
    return EXIT_SUCCESS;
}
