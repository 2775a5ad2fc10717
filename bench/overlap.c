/* How much of a non-blocking collective proceeds while the ranks compute, by the method of IMB-NBC
 * and the OSU non-blocking benchmarks, for MPI_Ibcast, MPI_Ireduce and MPI_Iallreduce (MPI_SUM on
 * doubles). Built by bench/coll.sh and bench/run.sh with each MPI's mpicc.
 *   t_pure  start + wait, nothing in between
 *   t_cpu   a floating-point loop alone, calibrated on each rank to last about its own t_pure
 *           (with -w, to last SECONDS on each rank, for a computation fixed beforehand)
 *   t_ovrl  start + the same loop + wait; by default nothing calls MPI during the loop, with
 *           -t K the loop is cut in K pieces and MPI_Test follows each piece
 *   overlap 100 * (t_pure + t_cpu - t_ovrl) / min(t_pure, t_cpu): 100 when the collective hides
 *           entirely behind the computation, 0 when they run one after the other
 * Each time is per call, the largest over the ranks, measured over a batch that lasts about
 * SECONDS after a warm-up, a calibration and a barrier (see bench/coll.c); the overlap is computed
 * from these largest times. The root of ibcast and ireduce moves to the next rank at each call, as
 * in bench/coll.c. The results of the overlapped calls are checked: a wrong one is reported and
 * makes the program exit with status 1.
 *
 *   overlap [-t K] [-T SECONDS] [-w SECONDS] [-c NAME] [BYTES]
 *
 * Defaults: no MPI_Test, 0.3 s per measurement, the loop as long as t_pure, the three collectives,
 * 2097152 bytes. -c measures the one collective NAME only.
 *
 * Output on rank 0: comment lines starting with '#', then one line per collective,
 * "name bytes B t_pure t_cpu t_ovrl overlap raw" (times in us, overlap clamped to [0, 100] for
 * display, raw as computed). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum coll { IBCAST, IREDUCE, IALLREDUCE, NCOLL };
static const char *const names[NCOLL] = {"ibcast", "ireduce", "iallreduce"};

/* Keeps the computation alive: its result is stored here, and it starts from here. */
static volatile double sink = 1.0;

/* A chain of dependent multiply-adds: neither removable nor vectorisable without -ffast-math. */
static void compute(long n)
{
    double x = sink;
    for (long i = 0; i < n; i++)
        x = x * 0.9999999 + 1e-7;
    sink = x;
}

struct bench {
    char *bytes;           /* ibcast buffer */
    double *dsend, *drecv; /* reductions */
    size_t size;           /* bytes */
    int count;             /* doubles */
    int rank, ranks;
    int tests;         /* MPI_Test calls during the computation, 0 for none */
    long work;         /* loop iterations of one computation */
    double loop_speed; /* loop iterations per second on this rank */
    long bad;          /* wrong results seen on this rank */
};

/* The root of call i of ibcast stamps i at both ends of the buffer; every rank checks it after
 * the wait. The bytes in between never change (checked at the end). */
static void stamp(char *buf, size_t size, long i)
{
    if (size >= 2 * sizeof i) {
        memcpy(buf, &i, sizeof i);
        memcpy(buf + size - sizeof i, &i, sizeof i);
    } else {
        buf[0] = (char)i;
    }
}

static int stamped(const char *buf, size_t size, long i)
{
    long head, tail;
    if (size < 2 * sizeof i)
        return buf[0] == (char)i;
    memcpy(&head, buf, sizeof i);
    memcpy(&tail, buf + size - sizeof i, sizeof i);
    return head == i && tail == i;
}

static void start(enum coll c, struct bench *b, long i, MPI_Request *req)
{
    int root = (int)(i % b->ranks);
    switch (c) {
    case IBCAST:
        if (b->rank == root)
            stamp(b->bytes, b->size, i);
        MPI_Ibcast(b->bytes, (int)b->size, MPI_BYTE, root, MPI_COMM_WORLD, req);
        break;
    case IREDUCE:
        MPI_Ireduce(b->dsend, b->drecv, b->count, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD, req);
        break;
    case IALLREDUCE:
    case NCOLL:
        MPI_Iallreduce(b->dsend, b->drecv, b->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, req);
        break;
    }
}

/* The computation, in b->tests pieces (one if none); MPI_Test after each piece if req. */
static void compute_pieces(struct bench *b, MPI_Request *req)
{
    int pieces = b->tests > 0 ? b->tests : 1, done = 0;
    for (int k = 0; k < pieces; k++) {
        compute(b->work / pieces);
        if (req && b->tests > 0 && !done)
            MPI_Test(req, &done, MPI_STATUS_IGNORE);
    }
}

enum phase { PURE, CPU, OVRL };

/* Runs `iters` calls of phase ph after a barrier; returns this rank's seconds per call. */
static double batch(enum coll c, enum phase ph, struct bench *b, long iters)
{
    MPI_Request req;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        if (ph != CPU)
            start(c, b, i, &req);
        if (ph != PURE)
            compute_pieces(b, ph == OVRL ? &req : NULL);
        if (ph != CPU) {
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            if (c == IBCAST)
                b->bad += !stamped(b->bytes, b->size, i);
        }
    }
    return (MPI_Wtime() - t0) / iters;
}

static double max_over_ranks(double t)
{
    double m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* Loop iterations per second of compute() on this rank: the best of 5 runs of at least 20 ms,
 * since being preempted only ever makes a run slower. */
static double loop_speed(void)
{
    long n = 1 << 16;
    double best = 0;
    for (int tries = 0; tries < 5;) {
        double t0 = MPI_Wtime();
        compute(n);
        double t = MPI_Wtime() - t0;
        if (t < 0.02) {
            n *= 2;
        } else {
            best = n / t > best ? n / t : best;
            tries++;
        }
    }
    return best;
}

/* The number of wrong bytes or doubles in the result of the last of `iters` calls on this rank;
 * ibcast's stamps were checked at each call. */
static long check(enum coll c, const struct bench *b, long iters)
{
    long bad = 0;
    int p = b->ranks;
    size_t skip = b->size >= 2 * sizeof(long) ? sizeof(long) : 1;
    switch (c) {
    case IBCAST:
        for (size_t j = skip; j + skip < b->size; j++)
            bad += b->bytes[j] != (char)(j * 7);
        break;
    case IREDUCE:
    case IALLREDUCE:
    case NCOLL:
        if (c == IALLREDUCE || b->rank < iters) /* the ranks that were root at least once */
            for (int i = 0; i < b->count; i++)
                bad += b->drecv[i] != (double)p * (p + 1) / 2 + (double)p * (i % 5);
        break;
    }
    return bad;
}

int main(int argc, char **argv)
{
    int rank, ranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    double target = 0.3;
    struct bench b = {.size = 2 << 20, .rank = rank, .ranks = ranks};
    double fixed = 0; /* -w: seconds of computation per call, 0 for t_pure */
    int only = -1;    /* -c: the one collective measured */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-t") == 0 && i + 1 < argc && atoi(argv[i + 1]) >= 0) {
            b.tests = atoi(argv[++i]);
        } else if (strcmp(argv[i], "-T") == 0 && i + 1 < argc && atof(argv[i + 1]) > 0) {
            target = atof(argv[++i]);
        } else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc && atof(argv[i + 1]) > 0) {
            fixed = atof(argv[++i]);
        } else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc && only < 0) {
            i++;
            for (enum coll c = IBCAST; c < NCOLL; c++)
                if (strcmp(argv[i], names[c]) == 0)
                    only = (int)c;
            if (only < 0)
                goto usage;
        } else if (argv[i][0] != '-' && atol(argv[i]) > 0) {
            b.size = (size_t)atol(argv[i]);
        } else {
        usage:
            if (rank == 0)
                fprintf(stderr, "usage: overlap [-t K] [-T SECONDS] [-w SECONDS] "
                                "[-c ibcast|ireduce|iallreduce] [BYTES]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    b.count = b.size / sizeof(double) ? (int)(b.size / sizeof(double)) : 1;
    b.bytes = malloc(b.size);
    b.dsend = malloc(b.count * sizeof(double));
    b.drecv = malloc(b.count * sizeof(double));
    if (!b.bytes || !b.dsend || !b.drecv) {
        fprintf(stderr, "overlap: rank %d: out of memory for %zu bytes\n", rank, b.size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t j = 0; j < b.size; j++)
        b.bytes[j] = (char)(j * 7);
    for (int i = 0; i < b.count; i++) {
        b.dsend[i] = rank + 1 + (double)(i % 5);
        b.drecv[i] = -1;
    }
    b.loop_speed = loop_speed();

    if (rank == 0) {
        printf("# %d ranks, %zu bytes (ireduce, iallreduce: %d doubles), MPI_Test calls during "
               "the computation: %d\n",
               ranks, b.size, b.count, b.tests);
        printf("# times per call in us, largest over the ranks; overlap %% = 100 (t_pure + t_cpu "
               "- t_ovrl) / min(t_pure, t_cpu), clamped to [0, 100], then unclamped\n");
        printf("# %-11s %10s   %10s %10s %10s %8s %8s\n", "collective", "bytes", "t_pure", "t_cpu",
               "t_ovrl", "overlap", "raw");
    }
    int ok = 1;
    for (enum coll c = IBCAST; c < NCOLL; c++) {
        if (only >= 0 && c != (enum coll)only)
            continue;
        for (int i = 0; i < b.count; i++)
            b.drecv[i] = -1;
        b.bad = 0;
        /* A warm-up, then the iteration count: doubled until a batch lasts an eighth of the
         * target, then checked on the measured batch, as in bench/coll.c. */
        batch(c, PURE, &b, 2);
        long iters = 1;
        double t, pure = 0;
        while ((t = max_over_ranks(batch(c, PURE, &b, iters) * iters)) < target / 8 &&
               iters < (1L << 30))
            iters *= 2;
        for (int tries = 0; tries < 4; tries++) {
            iters = t > 0 ? (long)(target / (t / iters)) : 2 * iters;
            if (iters < 2)
                iters = 2;
            pure = batch(c, PURE, &b, iters);
            if ((t = max_over_ranks(pure * iters)) >= target / 2)
                break;
        }
        double want = fixed > 0 ? fixed : pure;
        b.work = (long)(want * b.loop_speed);
        /* One correction against the loop's speed now, which differs from the first estimate
         * when the machine's load has changed: the fastest of at least 3 calls (20 ms in all
         * when calls are short), as a preempted call only ever looks slower. */
        long n = (long)(0.02 / want) + 3;
        double fastest = 0;
        for (long k = 0; k < n; k++) {
            double t0 = MPI_Wtime();
            compute_pieces(&b, NULL);
            double t1 = MPI_Wtime() - t0;
            if (k == 0 || t1 < fastest)
                fastest = t1;
        }
        if (fastest > 0)
            b.work = (long)(b.work * (want / fastest));
        double cpu = batch(c, CPU, &b, iters);
        double ovrl = batch(c, OVRL, &b, iters);
        long bad = b.bad + check(c, &b, iters), allbad = 0;
        MPI_Reduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        pure = max_over_ranks(pure);
        cpu = max_over_ranks(cpu);
        ovrl = max_over_ranks(ovrl);
        if (rank == 0) {
            double raw = 100 * (pure + cpu - ovrl) / (pure < cpu ? pure : cpu);
            double shown = raw < 0 ? 0 : raw > 100 ? 100 : raw;
            if (allbad)
                printf("# %s %zu B: WRONG RESULT (%ld wrong bytes or doubles over all ranks)\n",
                       names[c], b.size, allbad);
            printf("%-13s %10zu B %10.2f %10.2f %10.2f %8.1f %8.1f\n", names[c], b.size, pure * 1e6,
                   cpu * 1e6, ovrl * 1e6, shown, raw);
            fflush(stdout);
            ok &= allbad == 0;
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(b.bytes);
    free(b.dsend);
    free(b.drecv);
    MPI_Finalize();
    return ok ? 0 : 1;
}
