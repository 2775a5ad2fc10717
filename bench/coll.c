/* Latency of the blocking collectives on MPI_COMM_WORLD and of their non-blocking forms (started
 * and waited for at once), built by bench/coll.sh and bench/run.sh with each MPI's mpicc so that
 * ThreadMPI, Open MPI and MPICH run the same code:
 *   bcast        SIZE bytes from the root
 *   reduce       MPI_SUM on SIZE/8 doubles (at least one) to the root
 *   allreduce    MPI_SUM on SIZE/8 doubles (at least one)
 *   allgather    SIZE bytes contributed by each rank (each receives SIZE * ranks)
 *   alltoall     SIZE bytes from each rank to each rank (each sends SIZE * ranks)
 *   barrier      measured once, printed with size 0
 *   ibcast, ireduce, iallreduce, iallgather, ialltoall, ibarrier: the same, MPI_I* then MPI_Wait
 * The root of bcast and reduce moves to the next rank at each call (as IMB does): with a fixed
 * root, back-to-back calls pipeline and the figure is a throughput rather than a latency.
 * Method: the calls run back to back on buffers allocated and touched beforehand. A warm-up of
 * 2 calls (first calls may set things up), then a calibration that doubles the iteration count
 * until a batch takes 1/8 of the target time, then a barrier and the timed batch sized to last
 * about the target time; a timed batch shorter than half the target (the calibration was slowed
 * down, by preemption for instance) is run again, longer, up to 3 more times. The figure is the
 * largest over the ranks of (elapsed / iterations), in microseconds. Every result buffer is
 * checked afterwards: a wrong result is reported and makes the program exit with status 1.
 *
 *   coll [-T SECONDS] [-c NAME,...] [BYTES...]
 *
 * Defaults: 0.3 s per measurement; every collective above; 8 65536 2097152 bytes.
 *
 * Output: comment lines starting with '#', then one line per measurement,
 * "name bytes B microseconds us iterations it", on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The non-blocking form of each blocking collective c is c + NBLOCKING. */
enum coll {
    BCAST,
    REDUCE,
    ALLREDUCE,
    ALLGATHER,
    ALLTOALL,
    BARRIER,
    NBLOCKING,
    IBCAST = NBLOCKING,
    IREDUCE,
    IALLREDUCE,
    IALLGATHER,
    IALLTOALL,
    IBARRIER,
    NCOLL
};
static const char *const names[NCOLL] = {"bcast",      "reduce",     "allreduce", "allgather",
                                         "alltoall",   "barrier",    "ibcast",    "ireduce",
                                         "iallreduce", "iallgather", "ialltoall", "ibarrier"};

struct bufs {
    char *send, *recv;     /* bytes: SIZE * ranks each */
    char *ramp;            /* SIZE + 256 bytes: ramp[k] = k mod 256 */
    double *dsend, *drecv; /* doubles for the reductions */
    size_t bytes, count;   /* per-rank size in bytes; number of doubles */
    int rank, size;
};

/* The block that rank src gives to rank dst: bytes counting up from a start that differs between
 * neighbouring blocks (13 is odd: distinct for 256 ranks), so that a misplaced block shows. */
static const char *pattern(const struct bufs *b, int src, int dst)
{
    return b->ramp + (unsigned)(src * 13 + dst * 5) % 256;
}

/* The sources never change; results are cleared before each collective (fill_results). */
static void fill_sources(struct bufs *b)
{
    for (size_t k = 0; k < b->bytes + 256; k++)
        b->ramp[k] = (char)k;
    for (int dst = 0; dst < b->size; dst++)
        memcpy(b->send + (size_t)dst * b->bytes, pattern(b, b->rank, dst), b->bytes);
    for (size_t i = 0; i < b->count; i++)
        b->dsend[i] = b->rank + 1 + (double)(i % 7);
}

static void fill_results(struct bufs *b)
{
    memset(b->recv, 0xff, b->bytes * b->size);
    for (size_t i = 0; i < b->count; i++)
        b->drecv[i] = -1;
}

static void run(enum coll c, struct bufs *b, long iters)
{
    int n = (int)b->bytes, count = (int)b->count;
    MPI_Request req;
    for (long i = 0; i < iters; i++) {
        int root = (int)(i % b->size);
        /* The root sends its first block; the others receive at the start of recv. */
        void *bcast_buf = b->rank == root ? b->send : b->recv;
        switch (c) {
        case BCAST:
            MPI_Bcast(bcast_buf, n, MPI_BYTE, root, MPI_COMM_WORLD);
            break;
        case REDUCE:
            MPI_Reduce(b->dsend, b->drecv, count, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
            break;
        case ALLREDUCE:
            MPI_Allreduce(b->dsend, b->drecv, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            break;
        case ALLGATHER:
            /* Each rank contributes the block it would send to rank 0. */
            MPI_Allgather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, MPI_COMM_WORLD);
            break;
        case ALLTOALL:
            MPI_Alltoall(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, MPI_COMM_WORLD);
            break;
        case BARRIER:
            MPI_Barrier(MPI_COMM_WORLD);
            break;
        case IBCAST:
            MPI_Ibcast(bcast_buf, n, MPI_BYTE, root, MPI_COMM_WORLD, &req);
            break;
        case IREDUCE:
            MPI_Ireduce(b->dsend, b->drecv, count, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD, &req);
            break;
        case IALLREDUCE:
            MPI_Iallreduce(b->dsend, b->drecv, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
            break;
        case IALLGATHER:
            MPI_Iallgather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, MPI_COMM_WORLD, &req);
            break;
        case IALLTOALL:
            MPI_Ialltoall(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, MPI_COMM_WORLD, &req);
            break;
        case IBARRIER:
        case NCOLL:
            MPI_Ibarrier(MPI_COMM_WORLD, &req);
            break;
        }
        if (c >= NBLOCKING)
            MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
}

/* Returns the number of wrong blocks (or doubles) in this rank's result of collective c after a
 * run of `iters` (at least 2) calls. */
static long check(enum coll c, const struct bufs *b, long iters)
{
    long bad = 0, last = iters - 1;
    int p = b->size;
    c = (enum coll)(c % NBLOCKING); /* a non-blocking form leaves what its blocking one does */
    switch (c) {
    case BCAST:
        /* recv holds what came from the root of the last call in which this rank was not root. */
        if (last % p == b->rank)
            last--;
        if (p > 1)
            bad += memcmp(b->recv, pattern(b, (int)(last % p), 0), b->bytes) != 0;
        break;
    case REDUCE:
    case ALLREDUCE:
        if (c == ALLREDUCE || b->rank < iters) /* the ranks that were root at least once */
            for (size_t i = 0; i < b->count; i++)
                bad += b->drecv[i] != (double)p * (p + 1) / 2 + (double)p * (double)(i % 7);
        break;
    case ALLGATHER:
    case ALLTOALL:
        for (int src = 0; src < p; src++)
            bad += memcmp(b->recv + (size_t)src * b->bytes,
                          pattern(b, src, c == ALLGATHER ? 0 : b->rank), b->bytes) != 0;
        break;
    default:
        break;
    }
    return bad;
}

/* Seconds that `iters` calls take on the slowest rank; the same value on every rank. */
static double batch(enum coll c, struct bufs *b, long iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    run(c, b, iters);
    double t = MPI_Wtime() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

/* Whether collective c moves data: the barriers are measured once, printed with size 0. */
static int sized(enum coll c)
{
    return c != BARRIER && c != IBARRIER;
}

/* Sets chosen[c] for each name in the comma-separated list; returns 0, or -1 on an unknown name. */
static int choose(const char *list, int chosen[NCOLL])
{
    memset(chosen, 0, NCOLL * sizeof *chosen);
    while (*list) {
        size_t len = strcspn(list, ",");
        enum coll c = BCAST;
        while (c < NCOLL && (strlen(names[c]) != len || strncmp(names[c], list, len) != 0))
            c++;
        if (c == NCOLL)
            return -1;
        chosen[c] = 1;
        list += len + (list[len] == ',');
    }
    return 0;
}

/* Measures collective c at b->bytes; returns 0 if every rank's result was right. */
static int measure(enum coll c, struct bufs *b, double target)
{
    fill_results(b);
    batch(c, b, 2);
    long iters = 1;
    double t;
    /* Every decision is taken on the same value everywhere: batch() returns the largest time. */
    while ((t = batch(c, b, iters)) < target / 8 && iters < (1L << 30))
        iters *= 2;
    for (int tries = 0; tries < 4; tries++) {
        iters = t > 0 ? (long)(target / (t / iters)) : 2 * iters;
        if (iters < 2)
            iters = 2;
        if ((t = batch(c, b, iters)) >= target / 2)
            break;
    }
    double slowest = t / iters; /* the largest over the ranks of elapsed / iters */
    long bad = check(c, b, iters), allbad = 0;
    MPI_Reduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (b->rank == 0) {
        if (allbad)
            printf("# %s %zu B: WRONG RESULT (%ld wrong blocks or doubles over all ranks)\n",
                   names[c], sized(c) ? b->bytes : 0, allbad);
        printf("%s %zu B %.3f us %ld it\n", names[c], sized(c) ? b->bytes : 0, slowest * 1e6,
               iters);
        fflush(stdout);
    }
    int ok = allbad == 0;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double target = 0.3;
    size_t sizes[64] = {8, 64 << 10, 2 << 20};
    int nsizes = 3, given = 0, chosen[NCOLL];
    for (enum coll c = BCAST; c < NCOLL; c++)
        chosen[c] = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-T") == 0 && i + 1 < argc) {
            target = atof(argv[++i]);
        } else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc && choose(argv[i + 1], chosen) == 0) {
            i++;
        } else if (argv[i][0] != '-' && nsizes < 64 && atol(argv[i]) > 0) {
            if (!given)
                nsizes = 0;
            given = 1;
            sizes[nsizes++] = (size_t)atol(argv[i]);
        } else {
            if (rank == 0)
                fprintf(stderr, "usage: coll [-T SECONDS] [-c NAME,...] [BYTES...]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (rank == 0) {
        printf("# %d ranks, about %.2f s per measurement; time per call: max over ranks, in us\n",
               size, target);
        printf("# bcast: bytes from the root; reduce, allreduce: MPI_SUM on bytes/8 doubles; "
               "the root of bcast and reduce rotates\n");
        printf("# allgather: bytes contributed per rank; alltoall: bytes per pair of ranks\n");
    }
    int ok = 1;
    for (int s = 0; s < nsizes; s++) {
        struct bufs b = {.bytes = sizes[s], .rank = rank, .size = size};
        b.count = b.bytes / sizeof(double) ? b.bytes / sizeof(double) : 1;
        b.send = malloc(b.bytes * size);
        b.recv = malloc(b.bytes * size);
        b.dsend = malloc(b.count * sizeof(double));
        b.drecv = malloc(b.count * sizeof(double));
        b.ramp = malloc(b.bytes + 256);
        if (!b.send || !b.recv || !b.dsend || !b.drecv || !b.ramp) {
            fprintf(stderr, "coll: rank %d: out of memory for %zu-byte buffers\n", rank,
                    b.bytes * size);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        fill_sources(&b);
        for (enum coll c = BCAST; c < NCOLL; c++)
            if (chosen[c] && (sized(c) || s == 0))
                ok &= measure(c, &b, target);
        free(b.send);
        free(b.recv);
        free(b.dsend);
        free(b.drecv);
        free(b.ramp);
    }
    MPI_Finalize();
    return ok ? 0 : 1;
}
