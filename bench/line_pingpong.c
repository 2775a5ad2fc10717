/*
 * The hardware's share of a small message's latency: two threads pinned to two cores pass 8
 * bytes back and forth with nothing of MPI around them, in two layouts, and print half a round
 * trip (bench/line_pingpong [ITERATIONS [WORK_NS...]]; `make bench/line_pingpong` builds it).
 *
 *   rings   each direction its own ring of 16 slots of a cache line (a sequence word, 48 bytes
 *           of envelope and 8 of data), as ThreadMPI's fastboxes are laid out
 *   shared  both directions in one cache line, 32 bytes each way
 *
 * WORK_NS (default "0 40 80"): busy time each side spends between finding a message and
 * answering it, standing for the receive's and the send's software. Each figure is the median
 * of 5 repeats; the machine's noise moves single runs a lot.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOTS   16
#define REPEATS 5

typedef struct {
    _Atomic uint64_t seq;
    char envelope[48];
    uint64_t data;
} __attribute__((aligned(64))) ring_slot_t;

typedef struct {
    _Atomic uint32_t seq;
    uint32_t envelope[5];
    uint64_t data;
} half_t;

static ring_slot_t rings[2][SLOTS];
static struct {
    half_t half[2];
} __attribute__((aligned(64))) line;

static int shared_layout, cpus[2];
static long iterations;
static uint64_t work_ns;

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void busy(void)
{
    if (work_ns == 0)
        return;
    uint64_t t0 = now_ns();
    while (now_ns() - t0 < work_ns)
        ;
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void send_message(int me, uint64_t n)
{
    if (shared_layout) {
        half_t *h = &line.half[me];
        for (int k = 0; k < 5; k++)
            h->envelope[k] = (uint32_t)n;
        h->data = n;
        atomic_store_explicit(&h->seq, (uint32_t)n + 1, memory_order_release);
    } else {
        ring_slot_t *slot = &rings[me][n % SLOTS];
        memset(slot->envelope, (int)n, sizeof slot->envelope);
        slot->data = n;
        atomic_store_explicit(&slot->seq, n + 1, memory_order_release);
    }
}

static uint64_t receive_message(int me, uint64_t n)
{
    if (shared_layout) {
        half_t *h = &line.half[1 - me];
        while (atomic_load_explicit(&h->seq, memory_order_acquire) != (uint32_t)n + 1)
            ;
        return h->data + h->envelope[2];
    }
    ring_slot_t *slot = &rings[1 - me][n % SLOTS];
    while (atomic_load_explicit(&slot->seq, memory_order_acquire) != n + 1)
        ;
    return slot->data + (uint64_t)slot->envelope[3];
}

/* Side 0 sends first; each side answers every message after its work. */
static void play(int me)
{
    uint64_t sink = 0;
    for (long i = 0; i < iterations; i++) {
        if (me == 0) {
            send_message(0, (uint64_t)i);
            sink += receive_message(0, (uint64_t)i);
            busy();
        } else {
            sink += receive_message(1, (uint64_t)i);
            busy();
            send_message(1, (uint64_t)i);
        }
    }
    if (sink == 42) /* keeps the reads */
        fputc('\n', stderr);
}

static void *side_1(void *arg)
{
    (void)arg;
    pin(cpus[1]);
    play(1);
    return NULL;
}

static int double_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Half a round trip in ns, less the work, median of REPEATS runs. */
static double measure(void)
{
    double runs[REPEATS];
    for (int r = 0; r < REPEATS; r++) {
        memset(rings, 0, sizeof rings);
        memset(&line, 0, sizeof line);
        pthread_t t;
        uint64_t t0 = now_ns();
        if (pthread_create(&t, NULL, side_1, NULL) != 0) {
            perror("pthread_create");
            exit(1);
        }
        play(0);
        pthread_join(t, NULL);
        runs[r] = (double)(now_ns() - t0) / (double)iterations / 2 - (double)work_ns;
    }
    qsort(runs, REPEATS, sizeof *runs, double_cmp);
    return runs[REPEATS / 2];
}

int main(int argc, char **argv)
{
    iterations = argc > 1 ? atol(argv[1]) : 500000;
    cpu_set_t allowed;
    sched_getaffinity(0, sizeof allowed, &allowed);
    int found = 0;
    for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
        if (CPU_ISSET(c, &allowed))
            cpus[found++] = c;
    if (iterations < 1 || found < 2) {
        fprintf(stderr, "line_pingpong: needs 2 cores and ITERATIONS >= 1\n");
        return 2;
    }
    pin(cpus[0]);
    static const char *const default_work[] = {"0", "40", "80"};
    int nwork = argc > 2 ? argc - 2 : 3;
    printf("8 bytes between cores %d and %d, half a round trip less the work, medians of %d\n",
           cpus[0], cpus[1], REPEATS);
    printf("| work (ns) | rings (ns) | shared line (ns) |\n|---|---|---|\n");
    for (int w = 0; w < nwork; w++) {
        work_ns = (uint64_t)atol(argc > 2 ? argv[2 + w] : default_work[w]);
        shared_layout = 0;
        double rings_ns = measure();
        shared_layout = 1;
        double shared_ns = measure();
        printf("| %llu | %.1f | %.1f |\n", (unsigned long long)work_ns, rings_ns, shared_ns);
    }
    return 0;
}
