/* One rank's data to a subset of the others, five ways, built by bench/bcast_dynamic.sh with each
 * MPI's mpicc:
 *   linear   the root calls MPI_Send to each destination in turn
 *   isend    the root calls MPI_Isend to each destination, then MPI_Waitall
 *   bcast    MPI_Bcast on a communicator of the root and the destinations, built beforehand
 *            (MPI_Comm_create_group, outside the timing)
 *   create   that communicator built (MPI_Comm_create_group), MPI_Bcast, MPI_Comm_free, each time
 *   dynamic  the root calls MPIX_Ibcast_dynamic (a ThreadMPI extension; left out elsewhere)
 * In all of them the destinations receive with MPI_Recv from the root (bcast, create: MPI_Bcast).
 * The root is rank 0; n destinations are spread over the other ranks (rank 1 + floor(j (size - 1)
 * / n) for j = 0 .. n-1), the same for every method. Default n: 2, 4, 8, 16, 32, 64 while they fit
 * in the job (run 65 ranks for 64).
 *
 * Method: what is timed is one broadcast, from the moment the root starts it to the moment the
 * last destination's receive completes. Each iteration starts with MPI_Barrier on
 * MPI_COMM_WORLD, outside the measured region; the root then reads the clock, calls the method,
 * each destination reads the clock when its receive returns. The ranks run on one machine and
 * read CLOCK_MONOTONIC, one clock for all of them (threads or processes), so that (the latest
 * destination's time - the root's time) needs no acknowledgement message, whose cost would be
 * counted. The figure is the median of that over the iterations, in microseconds. Five
 * iterations first (not counted) estimate the time of one, barrier included (their median); the
 * count is then chosen to last about the target time (at least 5, at most 2000 iterations).
 * The root writes the iteration number into the first 8 bytes before each iteration: each
 * destination checks those at each iteration and the whole buffer after the last one; a wrong
 * byte is reported and makes the program exit with status 1.
 *
 *   bcast_dynamic [-T SECONDS] [-n NDESTS]... [BYTES...]
 *       (default: 0.3 s per measurement; 8 1024 65536 1048576 4194304 bytes)
 *
 * Output: comment lines starting with '#' (among them the bandwidth of memcpy on one rank, as a
 * bound: "# memcpy BYTES B MB/s"), then one line per measurement, on rank 0:
 * "method ndests bytes B microseconds us iterations it". */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef THREADMPI_BCAST_DYNAMIC
#define HAVE_DYNAMIC 1
#else
#define HAVE_DYNAMIC 0
#endif

enum method { LINEAR, ISEND, BCAST, CREATE, DYNAMIC, NMETHODS };
static const char *const names[NMETHODS] = {"linear", "isend", "bcast", "create", "dynamic"};

enum { MAX_ITERS = 2000, MIN_ITERS = 5, WARMUP = 5, TAG = 7 };

struct bench {
    int rank, size, ndests, *dests, *members; /* members: the root then the destinations */
    int role;                                 /* 0 root, 1 destination, 2 neither */
    MPI_Group world_group, group;             /* group: of members */
    MPI_Comm comm;                            /* of members (MPI_COMM_NULL elsewhere) */
    MPI_Request *reqs;
    unsigned char *buf; /* the root's data, or a destination's receive buffer */
    size_t bytes;
    long bad; /* wrong receives seen by this rank */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static unsigned char pattern(size_t k, int seed)
{
    return (unsigned char)(k * 131 + (size_t)seed * 17 + 5);
}

/* The first min(8, bytes) bytes of a payload hold the iteration number. */
static void stamp(unsigned char *buf, size_t bytes, long it)
{
    uint64_t v = (uint64_t)it * 0x9e3779b97f4a7c15u;
    memcpy(buf, &v, bytes < 8 ? bytes : 8);
}

static int stamped(const unsigned char *buf, size_t bytes, long it)
{
    unsigned char ref[8];
    stamp(ref, 8, it);
    return memcmp(buf, ref, bytes < 8 ? bytes : 8) == 0;
}

/* The group of the root and the destinations, and (with_comm) its communicator. */
static void group_make(struct bench *b, int with_comm)
{
    b->comm = MPI_COMM_NULL;
    MPI_Group_incl(b->world_group, b->ndests + 1, b->members, &b->group);
    if (with_comm && b->role != 2)
        MPI_Comm_create_group(MPI_COMM_WORLD, b->group, TAG, &b->comm);
}

static void group_free(struct bench *b)
{
    if (b->comm != MPI_COMM_NULL)
        MPI_Comm_free(&b->comm);
    MPI_Group_free(&b->group);
}

/* One broadcast by method m; returns the time the root started or a destination's receive
 * completed (others: 0). */
static double broadcast(struct bench *b, enum method m)
{
    int n = (int)b->bytes;
    double t = 0;
    MPI_Comm c;
    if (b->role == 2)
        return 0;
    if (b->role == 0)
        t = now();
    switch (m) {
    case LINEAR:
    case ISEND:
    case DYNAMIC:
        if (b->role == 1) {
            MPI_Recv(b->buf, n, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (m == LINEAR) {
            for (int d = 0; d < b->ndests; d++)
                MPI_Send(b->buf, n, MPI_BYTE, b->dests[d], TAG, MPI_COMM_WORLD);
        } else if (m == ISEND) {
            for (int d = 0; d < b->ndests; d++)
                MPI_Isend(b->buf, n, MPI_BYTE, b->dests[d], TAG, MPI_COMM_WORLD, &b->reqs[d]);
            MPI_Waitall(b->ndests, b->reqs, MPI_STATUSES_IGNORE);
        } else {
#if HAVE_DYNAMIC
            MPIX_Ibcast_dynamic(b->buf, n, MPI_BYTE, b->dests, b->ndests, TAG, MPI_COMM_WORLD,
                                &b->reqs[0]);
            MPI_Wait(&b->reqs[0], MPI_STATUS_IGNORE);
#endif
        }
        break;
    case BCAST:
        MPI_Bcast(b->buf, n, MPI_BYTE, 0, b->comm);
        break;
    case CREATE:
        MPI_Comm_create_group(MPI_COMM_WORLD, b->group, TAG, &c);
        MPI_Bcast(b->buf, n, MPI_BYTE, 0, c);
        if (b->role == 1)
            t = now();
        MPI_Comm_free(&c);
        return t;
    case NMETHODS:
        break;
    }
    return b->role == 1 ? now() : t;
}

/* One iteration: the barrier, the broadcast, the destination's check. */
static double iteration(struct bench *b, enum method m, long it)
{
    if (b->role == 0)
        stamp(b->buf, b->bytes, it);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = broadcast(b, m);
    if (b->role == 1 && !stamped(b->buf, b->bytes, it))
        b->bad++;
    return t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Measures method m for the current destinations and size; returns 0 if every receive was
 * right. */
static int measure(struct bench *b, enum method m, double target, int seed)
{
    static double start[MAX_ITERS], done[MAX_ITERS], last[MAX_ITERS];
    if (b->role == 0)
        for (size_t k = 0; k < b->bytes; k++)
            b->buf[k] = pattern(k, seed);
    else if (b->role == 1)
        memset(b->buf, 0xff, b->bytes);
    b->bad = 0;

    /* The warm-up estimates an iteration's cost, barrier included (the median of WARMUP, at the
     * root, which decides). */
    double each[WARMUP];
    for (long it = 0; it < WARMUP; it++) {
        double t0 = now();
        iteration(b, m, it);
        each[it] = now() - t0;
    }
    qsort(each, WARMUP, sizeof *each, cmp_double);
    long iters = each[WARMUP / 2] > 0 ? (long)(target / each[WARMUP / 2]) : MAX_ITERS;
    iters = iters < MIN_ITERS ? MIN_ITERS : iters > MAX_ITERS ? MAX_ITERS : iters;
    MPI_Bcast(&iters, 1, MPI_LONG, 0, MPI_COMM_WORLD);

    for (long it = 0; it < iters; it++) {
        double t = iteration(b, m, WARMUP + it);
        start[it] = b->role == 0 ? t : 0;
        done[it] = b->role == 1 ? t : 0;
    }
    MPI_Reduce(done, last, (int)iters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    /* The last payload, whole (the stamp of the last iteration, the pattern after it). */
    if (b->role == 1)
        for (size_t k = 8; k < b->bytes; k++)
            if (b->buf[k] != pattern(k, seed)) {
                b->bad++;
                break;
            }
    long allbad = 0;
    MPI_Reduce(&b->bad, &allbad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (b->rank == 0) {
        for (long it = 0; it < iters; it++)
            last[it] -= start[it];
        qsort(last, iters, sizeof *last, cmp_double);
        if (allbad)
            printf("# %s %d %zu B: WRONG DATA (%ld wrong receives over the destinations)\n",
                   names[m], b->ndests, b->bytes, allbad);
        printf("%s %d %zu B %.2f us %ld it\n", names[m], b->ndests, b->bytes,
               last[(iters - 1) / 2] * 1e6, iters);
        fflush(stdout);
    }
    int ok = allbad == 0;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok;
}

/* memcpy between two buffers of `bytes` on this rank alone, in MB/s. */
static double memcpy_rate(size_t bytes)
{
    char *a = malloc(bytes), *c = malloc(bytes);
    if (!a || !c) {
        free(a);
        free(c);
        return 0;
    }
    memset(a, 1, bytes);
    memset(c, 2, bytes);
    long reps = 1;
    double t;
    for (;;) {
        double t0 = now();
        for (long r = 0; r < reps; r++)
            memcpy(r % 2 ? a : c, r % 2 ? c : a, bytes);
        t = now() - t0;
        if (t > 0.05)
            break;
        reps *= 2;
    }
    free(a);
    free(c);
    return (double)bytes * reps / t / 1e6;
}

static void usage(int rank)
{
    if (rank == 0)
        fprintf(stderr, "usage: bcast_dynamic [-T SECONDS] [-n NDESTS]... [BYTES...]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv)
{
    struct bench b = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.size);
    double target = 0.3;
    size_t sizes[64] = {8, 1024, 64 << 10, 1 << 20, 4 << 20};
    int nsizes = 5, ndlist[64] = {2, 4, 8, 16, 32, 64}, nnd = 6, sgiven = 0, dgiven = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-T") == 0 && i + 1 < argc) {
            target = atof(argv[++i]);
        } else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0) {
            if (!dgiven)
                nnd = 0;
            dgiven = 1;
            if (nnd < 64)
                ndlist[nnd++] = atoi(argv[++i]);
        } else if (argv[i][0] != '-' && nsizes < 64 && atol(argv[i]) > 0) {
            if (!sgiven)
                nsizes = 0;
            sgiven = 1;
            sizes[nsizes++] = (size_t)atol(argv[i]);
        } else {
            usage(b.rank);
        }
    }
    if (b.size < 3) {
        if (b.rank == 0)
            fprintf(stderr, "bcast_dynamic: needs at least 3 ranks (a root, 2 destinations)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t maxbytes = 8;
    for (int s = 0; s < nsizes; s++)
        maxbytes = sizes[s] > maxbytes ? sizes[s] : maxbytes;
    b.buf = malloc(maxbytes);
    b.dests = malloc(b.size * sizeof *b.dests);
    b.members = malloc(b.size * sizeof *b.members);
    b.reqs = malloc(b.size * sizeof *b.reqs);
    if (!b.buf || !b.dests || !b.members || !b.reqs) {
        fprintf(stderr, "bcast_dynamic: rank %d: out of memory\n", b.rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_group(MPI_COMM_WORLD, &b.world_group);
    if (b.rank == 0) {
        printf("# %d ranks, root 0, about %.2f s per measurement; time of one broadcast: from the "
               "root's start to the last destination's receive, median over the iterations, in "
               "us\n",
               b.size, target);
        printf("# methods:");
        for (int m = 0; m < NMETHODS; m++)
            if (m != DYNAMIC || HAVE_DYNAMIC)
                printf(" %s", names[m]);
        printf("%s\n", HAVE_DYNAMIC ? "" : " (no MPIX_Ibcast_dynamic in this MPI)");
        for (int s = 0; s < nsizes; s++)
            if (sizes[s] >= (1 << 20))
                printf("# memcpy %zu B %.0f MB/s\n", sizes[s], memcpy_rate(sizes[s]));
        fflush(stdout);
    }

    int ok = 1, seed = 0;
    for (int x = 0; x < nnd; x++) {
        int n = ndlist[x];
        if (n > b.size - 1) {
            if (b.rank == 0)
                printf("# %d destinations left out: the job has %d ranks\n", n, b.size);
            continue;
        }
        b.ndests = n;
        b.role = b.rank == 0 ? 0 : 2;
        b.members[0] = 0;
        for (int j = 0; j < n; j++) {
            b.dests[j] = b.members[j + 1] = 1 + (int)((long)j * (b.size - 1) / n);
            if (b.dests[j] == b.rank)
                b.role = 1;
        }
        group_make(&b, 1);
        for (int s = 0; s < nsizes; s++) {
            b.bytes = sizes[s];
            for (int m = 0; m < NMETHODS; m++)
                if (m != DYNAMIC || HAVE_DYNAMIC)
                    ok &= measure(&b, m, target, ++seed);
        }
        group_free(&b);
    }
    MPI_Group_free(&b.world_group);
    free(b.buf);
    free(b.dests);
    free(b.members);
    free(b.reqs);
    MPI_Finalize();
    return ok ? 0 : 1;
}
