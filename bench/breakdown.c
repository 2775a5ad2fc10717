/*
 * Where the time of an 8-byte message goes, after the ICPP 2019 breakdown of MPI's overheads
 * (sections 4-7), for two of ThreadMPI's ranks on two cores of one machine (mpcrun -n 2
 * bench/breakdown [SCALE]; bench/breakdown.sh builds and runs it; SCALE, default 1, multiplies
 * the iterations).
 *
 * Injection overhead, the time between two messages of a sender that sends without pause
 * (section 4.2, equation 2):   inj = post + progress + misc
 *   post         an MPI_Isend (a window's 64, timed as one burst, per message)
 *   progress     the MPI_Waitall that completes a window of 64 sends, per message
 *   misc         the rest of the window: waiting for the receiver's acknowledgement, per message
 *                (the benchmark's own synchronisation, as the paper's busy posts and measurement
 *                updates are; it holds the receiver's pace when that is the slower)
 *   observed     the time of a window per message, with no timer read inside it
 * Latency of a message (sections 4.3 and 6):   lat = post + transfer + rx progress
 *   post         an MPI_Send up to its return, while the receiver is not polling: the sender's
 *                work until the message is out. (While the receiver polls, MPI_Send's end
 *                waits for its line at the wake-up check's fence, which overlaps the transfer.)
 *   transfer     the message's cache lines coming over to the receiver's core, the "wire" of
 *                shared memory: an MPI_Recv of a message that came from the other rank less the
 *                same for a message the rank sent itself (whose lines are in its cache)
 *   rx progress  that MPI_Recv of a message in cache: the receive's own work once the data is
 *                there (section 5's "successful MPI_Wait"; what a waiting MPI_Recv does before
 *                the data comes overlaps the transfer)
 *   observed     half a round trip of an MPI_Send/MPI_Recv ping-pong, one timer read each
 * For scale, it also prints a single cache line's one-way time between the two cores (half a
 * round trip of a line both ranks write in turn). Then the what-if of section 7: the speed-up
 * of each whole if one component took half as long.
 *
 * Every part is timed on one rank with the profiler's timer (runtime/profile_clock.h: rdtscp
 * calibrated against CLOCK_MONOTONIC, a read's cost measured and subtracted from each interval),
 * the peer running untimed. The measurements run in turn, ROUNDS times, and each figure is the
 * median of its samples: a busy machine slows the observed loops and the parts alike, and its
 * outliers do not move a median. The two ranks share one address space: rank 1 reaches an int of
 * rank 0 through its address, to know without calling MPI when a message is in its mailbox, and
 * for the cache-line ping-pong.
 */
#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/profile_clock.h"

#define ROUNDS  5
#define WINDOW  64
#define SPIN_NS (2ull * 1000 * 1000 * 1000) /* a peer silent this long shares our core */

static tm_rt_profile_clock_t clk;
static int rank;
static _Atomic unsigned shared_word; /* rank 0's is the one both use */
static _Atomic unsigned *word;

static int double_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, double_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline uint64_t now(void)
{
    return tm_rt_profile_clock_read(&clk);
}

/* The ticks from t0 to t1, a read's cost taken off. */
static inline uint64_t span(uint64_t t0, uint64_t t1)
{
    return t1 - t0 > clk.overhead ? t1 - t0 - clk.overhead : 0;
}

static inline double ns(uint64_t ticks)
{
    return (double)ticks / clk.ticks_per_ns;
}

/* Waits until the shared word holds `value`. */
static void await(unsigned value)
{
    uint64_t t0 = tm_rt_profile_monotonic_ns();
    while (atomic_load_explicit(word, memory_order_acquire) != value)
        if (tm_rt_profile_monotonic_ns() - t0 > SPIN_NS) {
            fprintf(stderr,
                    "breakdown: rank %d waits for its peer in vain: run 2 ranks on 2 "
                    "cores (mpcrun -n 2 on a machine of 2 cores or more)\n",
                    rank);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
}

static void post_word(unsigned value)
{
    atomic_store_explicit(word, value, memory_order_release);
}

/* ---- the measurements: each appends one sample per iteration (or window) to its array, in
 * ns; the figures are the medians ---- */

typedef struct samples {
    double *v;
    int n, cap;
} samples_t;

static void add(samples_t *s, double x)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4096;
        s->v = realloc(s->v, (size_t)s->cap * sizeof *s->v);
        if (!s->v)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    s->v[s->n++] = x;
}

static samples_t inj_obs, inj_post, inj_prog, inj_misc, lat_obs, lat_post, xfer, rx, rx_hot;

/* The sender's loop: windows of WINDOW MPI_Isend and an MPI_Waitall, each acknowledged by the
 * receiver. Observed: one read per window on the sender. With `parts`, the sender also reads the
 * clock after the window's sends and after its MPI_Waitall: the posts (timed as one burst, so
 * that the timer does not come between two sends), the progress and the wait for the
 * acknowledgement. The receiver runs the same loop either way: a timer there would slow the pace
 * the sender waits for. Samples per message. */
static void injection(int windows, bool parts)
{
    char buf[8 * WINDOW];
    int ack = 0;
    MPI_Request reqs[WINDOW];
    MPI_Barrier(MPI_COMM_WORLD);
    for (int w = 0; w < windows; w++) {
        uint64_t t0 = now();
        for (int i = 0; i < WINDOW; i++) {
            if (rank == 0)
                MPI_Isend(buf + 8 * i, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &reqs[i]);
            else
                MPI_Irecv(buf + 8 * i, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &reqs[i]);
        }
        uint64_t t1 = parts ? now() : 0;
        MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
        uint64_t t2 = parts ? now() : 0;
        if (rank == 0)
            MPI_Recv(&ack, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(&ack, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        uint64_t t3 = now();
        if (rank != 0)
            continue;
        if (!parts) {
            add(&inj_obs, ns(span(t0, t3)) / WINDOW);
            continue;
        }
        add(&inj_post, ns(span(t0, t1)) / WINDOW);
        add(&inj_prog, ns(span(t1, t2)) / WINDOW);
        add(&inj_misc, ns(span(t2, t3)) / WINDOW);
    }
}

/* An 8-byte ping-pong: half of each round trip, read on rank 0. */
static void ping_pong(int iters)
{
    char buf[8] = {0};
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            uint64_t t0 = now();
            MPI_Send(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            add(&lat_obs, ns(span(t0, now())) / 2);
        } else {
            MPI_Recv(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
}

/* Half of each round trip of a cache line between the two ranks' cores (rank 0's samples). */
static void transfer(int iters)
{
    post_word(0);
    MPI_Barrier(MPI_COMM_WORLD);
    for (unsigned i = 0; i < (unsigned)iters; i++) {
        if (rank == 0) {
            uint64_t t0 = now();
            post_word(2 * i + 1);
            await(2 * i + 2);
            add(&xfer, ns(span(t0, now())) / 2);
        } else {
            await(2 * i + 1);
            post_word(2 * i + 2);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 1 waits on the shared word while rank 0 times an MPI_Send (rank 0's samples: the post),
 * then rank 1 times an MPI_Recv of that message, which is in its mailbox by then (rank 1's
 * samples). */
static void rx_progress(int iters)
{
    char buf[8] = {0};
    post_word(0);
    MPI_Barrier(MPI_COMM_WORLD);
    for (unsigned i = 0; i < (unsigned)iters; i++) {
        if (rank == 0) {
            await(2 * i + 1);
            uint64_t t0 = now();
            MPI_Send(buf, 8, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
            add(&lat_post, ns(span(t0, now())));
            post_word(2 * i + 2); /* the cell is in rank 1's mailbox */
        } else {
            post_word(2 * i + 1);
            await(2 * i + 2);
            uint64_t t0 = now();
            MPI_Recv(buf, 8, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            add(&rx, ns(span(t0, now())));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The same MPI_Recv, of a message rank 1 sent itself: its cell is in rank 1's cache, so this is
 * the receive's own work; what the message from rank 0 costs more is its cache lines coming over
 * (rank 1's samples). */
static void rx_local(int iters)
{
    char buf[8] = {0};
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; rank == 1 && i < iters; i++) {
        MPI_Send(buf, 8, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
        uint64_t t0 = now();
        MPI_Recv(buf, 8, MPI_BYTE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        add(&rx_hot, ns(span(t0, now())));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static double median_of(samples_t *s)
{
    return s->n ? median(s->v, s->n) : 0;
}

/* ---- the report ---- */

static void line(const char *name, const char *what, double value, double whole)
{
    printf("  %-12s %-46s %9.1f ns", name, what, value);
    if (whole > 0)
        printf(" %6.1f%%", 100 * value / whole);
    printf("\n");
}

static void verdict(double model, const char *how, double observed, const char *how_observed)
{
    double error = 100 * (model - observed) / observed;
    line("model", how, model, 0);
    line("observed", how_observed, observed, 0);
    printf("  %-12s %-46s %+9.1f %%  %s\n", "error", "(model - observed) / observed", error,
           error > -10 && error < 10 ? "(within 10%)" : "(more than 10%)");
}

/* The speed-up of a whole of `total` ns if `part` took half as long. */
static void what_if(const char *name, double part, double total)
{
    printf("  %-12s %5.3fx", name, total / (total - part / 2));
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "breakdown: run 2 ranks (mpcrun -n 2), not %d\n", size);
        MPI_Finalize();
        return 2;
    }
    int scale = argc > 1 ? atoi(argv[1]) : 1; /* more iterations for steadier figures */
    if (scale < 1)
        scale = 1;
    /* Rank 1 learns where rank 0's word is. */
    word = &shared_word;
    MPI_Bcast(&word, sizeof word, MPI_BYTE, 0, MPI_COMM_WORLD);
    tm_rt_profile_clock_init(&clk);
    tm_rt_profile_clock_calibrate(&clk, 100 * 1000 * 1000);

    /* Warm-up, then ROUNDS rounds of every measurement in turn: a busy machine slows the
     * observed loops and the parts alike. */
    injection(100, false);
    ping_pong(2000);
    for (int round = 0; round < ROUNDS; round++) {
        injection(100 * scale, false);
        injection(100 * scale, true);
        ping_pong(2000 * scale);
        transfer(4000 * scale);
        rx_progress(2000 * scale);
        rx_local(2000 * scale);
    }
    /* Rank 1 measured the receive's progress: rank 0 reports. */
    double mine[2] = {median_of(&rx), median_of(&rx_hot)}, theirs[2] = {0, 0};
    MPI_Sendrecv(mine, 2, MPI_DOUBLE, 1 - rank, 9, theirs, 2, MPI_DOUBLE, 1 - rank, 9,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 0) {
        double ip = median_of(&inj_post), ig = median_of(&inj_prog), im = median_of(&inj_misc);
        double io = median_of(&inj_obs), inj = ip + ig + im;
        double lp = median_of(&lat_post), line1 = median_of(&xfer), lr = theirs[1];
        double lt = theirs[0] - theirs[1], lo = median_of(&lat_obs), lat = lp + lt + lr;
        printf("breakdown of an 8-byte message between 2 ranks; timer %s at %.3f GHz, %.1f ns a "
               "read, subtracted from each interval; medians of %d rounds' samples\n",
               tm_rt_profile_clock_name(&clk), clk.ticks_per_ns,
               (double)clk.overhead / clk.ticks_per_ns, ROUNDS);
        printf("injection overhead (windows of %d MPI_Isend + MPI_Waitall, acknowledged)\n",
               WINDOW);
        line("post", "MPI_Isend", ip, inj);
        line("progress", "MPI_Waitall of the window, per message", ig, inj);
        line("misc", "waiting for the window's acknowledgement", im, inj);
        verdict(inj, "post + progress + misc", io, "a window's time per message, untimed inside");
        printf("  %-12s %-46s %9.3f Mmsg/s\n", "rate", "observed", 1e3 / io);
        printf("latency (ping-pong, half a round trip)\n");
        line("post", "MPI_Send, the receiver not polling", lp, lat);
        line("transfer", "the message's cache lines coming over", lt, lat);
        line("rx progress", "MPI_Recv of a message there, in cache", lr, lat);
        verdict(lat, "post + transfer + rx progress", lo, "half a round trip, untimed inside");
        printf("  %-12s %-46s %9.1f ns: the message moves about %.1f lines\n", "(a line)",
               "one cache line between the cores, one way", line1, lt / line1);
        printf("what if one component took half as long (the model's speed-up of the whole)\n");
        printf("  injection:");
        what_if("post", ip, inj);
        what_if("progress", ig, inj);
        what_if("misc", im, inj);
        printf("\n  latency:  ");
        what_if("post", lp, lat);
        what_if("transfer", lt, lat);
        what_if("rx progress", lr, lat);
        printf("\n  the next optimisation: %s for the message rate, %s for the latency\n",
               ip >= ig && ip >= im ? "MPI_Isend's post"
               : ig >= im           ? "MPI_Waitall's progress"
                                    : "the window's synchronisation",
               lp >= lt && lp >= lr ? "MPI_Send's post"
               : lt >= lr           ? "the message's cache lines (fewer, or pushed ahead)"
                                    : "the receive's progress");
    }
    MPI_Finalize();
    return 0;
}
