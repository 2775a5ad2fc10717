/*
 * Costs of shm/'s inbound queue and pools, printed as a table (`make bench`, then
 * bench/shm_queue [iterations]).
 *
 * - push+pop, one thread: one cell pushed and popped in turn (the stub goes back in on every
 *   pop), and 64 cells pushed then 64 popped; ns per push+pop.
 * - alloc+free, one thread: the owner allocates and frees one cell in turn; ns per pair (the
 *   cell goes through the return list, as it would coming back from a receiver).
 * - streaming, two threads pinned to two PUs: a producer allocates from its pool and pushes, a
 *   consumer pops and frees back; ns per message (the inverse of the throughput). The producer
 *   keeps at most 4096 messages in flight, as flow control would.
 * - ping-pong, two pinned threads: a cell goes back and forth between two queues; ns per
 *   one-way trip (the latency of a hand-over through the queue).
 *
 * Each figure is the median of 5 runs.
 */
#include "config.h"

#include <hwloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "shm/shm.h"

#define BENCH_REPEAT    5
#define BENCH_BATCH     64
#define BENCH_WINDOW    4096
#define BENCH_CELL_SIZE 64

static long iterations = 10000000;

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
    fprintf(stderr, "shm_queue: %s failed\n", what);
    exit(EXIT_FAILURE);
}

static tm_shm_pool_t *pool_new(void)
{
    tm_shm_pool_t *pool;

    if (tm_shm_pool_create(BENCH_CELL_SIZE, -1, &pool) != 0)
        die("tm_shm_pool_create");
    return pool;
}

static tm_shm_cell_t *cell_alloc(tm_shm_pool_t *pool)
{
    tm_shm_cell_t *cell = tm_shm_cell_alloc(pool);

    if (cell == NULL)
        die("tm_shm_cell_alloc");
    return cell;
}

/* ---- one thread */

static tm_shm_queue_t q_single;

static double bench_push_pop(int batch)
{
    tm_shm_pool_t *pool = pool_new();
    tm_shm_cell_t *cells[BENCH_BATCH];
    long rounds = iterations / batch;
    uint64_t start, end;

    tm_shm_queue_init(&q_single);
    for (int i = 0; i < batch; i++)
        cells[i] = cell_alloc(pool);
    start = now_ns();
    for (long r = 0; r < rounds; r++) {
        for (int i = 0; i < batch; i++)
            tm_shm_queue_push(&q_single, cells[i]);
        for (int i = 0; i < batch; i++)
            cells[i] = tm_shm_queue_pop(&q_single);
    }
    end = now_ns();
    for (int i = 0; i < batch; i++) {
        if (cells[i] == NULL)
            die("tm_shm_queue_pop");
        tm_shm_cell_free(cells[i]);
    }
    tm_shm_pool_destroy(pool);
    return (double)(end - start) / ((double)rounds * batch);
}

static double bench_alloc_free(void)
{
    tm_shm_pool_t *pool = pool_new();
    uint64_t start, end;

    start = now_ns();
    for (long i = 0; i < iterations; i++)
        tm_shm_cell_free(cell_alloc(pool));
    end = now_ns();
    tm_shm_pool_destroy(pool);
    return (double)(end - start) / (double)iterations;
}

/* ---- two pinned threads */

static hwloc_topology_t topology;
static hwloc_const_cpuset_t cpusets[2];

static void pin(int which)
{
    if (cpusets[which] != NULL &&
        hwloc_set_cpubind(topology, cpusets[which], HWLOC_CPUBIND_THREAD) != 0)
        die("hwloc_set_cpubind");
}

static tm_shm_queue_t q_in[2];
static _Atomic long stream_consumed;
static _Atomic int ready;
static long stream_messages, pp_rounds;

/* Both threads start timing together, once both are pinned and have their pools. */
static void rendezvous(void)
{
    atomic_fetch_add_explicit(&ready, 1, memory_order_acq_rel);
    while (atomic_load_explicit(&ready, memory_order_acquire) < 2)
        ;
}

static void *stream_producer(void *arg)
{
    tm_shm_pool_t *pool;
    long consumed = 0;

    pin(0);
    pool = pool_new();
    rendezvous();
    for (long i = 0; i < stream_messages; i++) {
        /* The shared counter is read only when the window seems full. */
        while (i - consumed >= BENCH_WINDOW)
            consumed = atomic_load_explicit(&stream_consumed, memory_order_acquire);
        tm_shm_queue_push(&q_in[1], cell_alloc(pool));
    }
    while (atomic_load_explicit(&stream_consumed, memory_order_acquire) < stream_messages)
        ;
    tm_shm_pool_destroy(pool);
    return NULL;
}

static void *stream_consumer(void *arg)
{
    uint64_t *elapsed = arg, start;

    pin(1);
    rendezvous();
    start = now_ns();
    for (long n = 0; n < stream_messages;) {
        tm_shm_cell_t *cell = tm_shm_queue_pop(&q_in[1]);

        if (cell == NULL)
            continue;
        tm_shm_cell_free(cell);
        /* Release, after the free: the producer may count on the cell being back. Published
         * every 64 messages only, so as not to bounce the counter's line at every message. */
        if (++n % BENCH_BATCH == 0 || n == stream_messages)
            atomic_store_explicit(&stream_consumed, n, memory_order_release);
    }
    *elapsed = now_ns() - start;
    return NULL;
}

static void *pp_side(void *arg)
{
    int me = (int)(intptr_t)arg;
    tm_shm_pool_t *pool = NULL;
    tm_shm_cell_t *cell = NULL;

    pin(me);
    if (me == 0) {
        pool = pool_new();
        cell = cell_alloc(pool);
    }
    rendezvous();
    for (long r = 0; r < pp_rounds; r++) {
        if (me == 0) {
            tm_shm_queue_push(&q_in[1], cell);
            while ((cell = tm_shm_queue_pop(&q_in[0])) == NULL)
                ;
        } else {
            while ((cell = tm_shm_queue_pop(&q_in[1])) == NULL)
                ;
            tm_shm_queue_push(&q_in[0], cell);
        }
    }
    if (me == 0) {
        tm_shm_cell_free(cell);
        tm_shm_pool_destroy(pool);
    }
    return NULL;
}

static void run_pair(void *(*fn0)(void *), void *arg0, void *(*fn1)(void *), void *arg1)
{
    pthread_t threads[2];

    atomic_store(&ready, 0);
    tm_shm_queue_init(&q_in[0]);
    tm_shm_queue_init(&q_in[1]);
    if (pthread_create(&threads[0], NULL, fn0, arg0) != 0 ||
        pthread_create(&threads[1], NULL, fn1, arg1) != 0)
        die("pthread_create");
    pthread_join(threads[0], NULL);
    pthread_join(threads[1], NULL);
}

static double bench_stream(void)
{
    uint64_t elapsed;

    stream_messages = iterations;
    atomic_store(&stream_consumed, 0);
    run_pair(stream_producer, NULL, stream_consumer, &elapsed);
    return (double)elapsed / (double)stream_messages;
}

static double bench_pingpong(void)
{
    uint64_t start = now_ns();

    pp_rounds = iterations / 10 > 0 ? iterations / 10 : 1;
    run_pair(pp_side, (void *)0, pp_side, (void *)1);
    /* Thread creation and pinning are in the time; at a million rounds they do not show. */
    return (double)(now_ns() - start) / (2.0 * (double)pp_rounds);
}

/* ---- table */

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static void row(const char *name, int threads, long iters, double (*fn)(void))
{
    double samples[BENCH_REPEAT];

    for (int r = 0; r < BENCH_REPEAT; r++)
        samples[r] = fn();
    qsort(samples, BENCH_REPEAT, sizeof(double), compare_double);
    printf("%-40s %7d %11ld %9.1f %10.1f\n", name, threads, iters, samples[BENCH_REPEAT / 2],
           1000.0 / samples[BENCH_REPEAT / 2]);
}

static double bench_push_pop_1(void)
{
    return bench_push_pop(1);
}

static double bench_push_pop_batch(void)
{
    return bench_push_pop(BENCH_BATCH);
}

static void setup_pinning(void)
{
    if (hwloc_topology_init(&topology) != 0 || hwloc_topology_load(topology) != 0)
        return;
    if (hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU) < 2)
        return;
    for (int i = 0; i < 2; i++)
        cpusets[i] = hwloc_get_obj_by_type(topology, HWLOC_OBJ_PU, (unsigned)i)->cpuset;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        iterations = atol(argv[1]);
    if (iterations < BENCH_BATCH) {
        fprintf(stderr, "usage: %s [iterations >= %d]\n", argv[0], BENCH_BATCH);
        return EXIT_FAILURE;
    }
    setup_pinning();

    printf("ThreadMPI shm queue and pool benchmark (median of %d runs; %d-byte cells; "
           "threads %s)\n",
           BENCH_REPEAT, BENCH_CELL_SIZE,
           cpusets[0] != NULL ? "pinned to PU 0 and PU 1" : "not pinned");
    printf("%-40s %7s %11s %9s %10s\n", "benchmark", "threads", "iterations", "ns/op", "Mop/s");
    row("push+pop, 1 cell at a time", 1, iterations, bench_push_pop_1);
    row("push+pop, 64 cells at a time", 1, iterations, bench_push_pop_batch);
    row("alloc+free, owner", 1, iterations, bench_alloc_free);
    row("stream: alloc+push -> pop+free", 2, iterations, bench_stream);
    row("ping-pong through two queues, one-way", 2, iterations / 10 > 0 ? iterations / 10 : 1,
        bench_pingpong);

    if (topology != NULL)
        hwloc_topology_destroy(topology);
    return EXIT_SUCCESS;
}
