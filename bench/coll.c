/* Latency of every MPI 3.1 collective on an intracommunicator and of its non-blocking form
 * (started and waited for at once), built by bench/coll.sh and bench/run.sh with each MPI's
 * mpicc so that ThreadMPI, Open MPI and MPICH run the same code. SIZE is a number of bytes:
 *   bcast        SIZE bytes from the root
 *   reduce       MPI_SUM on SIZE/8 doubles (at least one) to the root
 *   allreduce    MPI_SUM on SIZE/8 doubles (at least one)
 *   allgather    SIZE bytes contributed by each rank (each receives SIZE * ranks)
 *   alltoall     SIZE bytes from each rank to each rank (each sends SIZE * ranks)
 *   barrier      measured once, printed with size 0
 *   gather, gatherv      SIZE bytes from each rank to the root
 *   scatter, scatterv    SIZE bytes from the root to each rank
 *   allgatherv           SIZE bytes contributed by each rank
 *   alltoallv, alltoallw SIZE bytes from each rank to each rank (alltoallw: MPI_BYTE everywhere)
 *   reduce_scatter, reduce_scatter_block
 *                MPI_SUM; each rank's block of the result is SIZE/8 doubles (at least one)
 *   scan, exscan MPI_SUM on SIZE/8 doubles (at least one)
 *   neighbor_allgather, neighbor_allgatherv, neighbor_alltoall, neighbor_alltoallv,
 *   neighbor_alltoallw   SIZE bytes to and from each of the 2 neighbours on a 1-D periodic
 *                Cartesian communicator over every rank (made once, not reordered)
 *   ibcast, ireduce, ..., ineighbor_alltoallw: the same, MPI_I* then MPI_Wait
 * The v and w forms give every rank the same count and put block k at position (k + 1) mod n of
 * both buffers (n: the ranks, or the 2 neighbours), so that a displacement ignored shows; the v
 * forms cost what the plain ones do. The root of bcast, reduce, gather(v) and scatter(v) moves
 * to the next rank at each call (as IMB does): with a fixed root, back-to-back calls pipeline
 * and the figure is a throughput rather than a latency.
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
#include <limits.h>
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
    GATHER,
    GATHERV,
    SCATTER,
    SCATTERV,
    ALLGATHERV,
    ALLTOALLV,
    ALLTOALLW,
    REDUCE_SCATTER,
    REDUCE_SCATTER_BLOCK,
    SCAN,
    EXSCAN,
    NEIGHBOR_ALLGATHER,
    NEIGHBOR_ALLGATHERV,
    NEIGHBOR_ALLTOALL,
    NEIGHBOR_ALLTOALLV,
    NEIGHBOR_ALLTOALLW,
    NBLOCKING,
    IBCAST = NBLOCKING,
    IREDUCE,
    IALLREDUCE,
    IALLGATHER,
    IALLTOALL,
    IBARRIER,
    IGATHER,
    IGATHERV,
    ISCATTER,
    ISCATTERV,
    IALLGATHERV,
    IALLTOALLV,
    IALLTOALLW,
    IREDUCE_SCATTER,
    IREDUCE_SCATTER_BLOCK,
    ISCAN,
    IEXSCAN,
    INEIGHBOR_ALLGATHER,
    INEIGHBOR_ALLGATHERV,
    INEIGHBOR_ALLTOALL,
    INEIGHBOR_ALLTOALLV,
    INEIGHBOR_ALLTOALLW,
    NCOLL
};
static const char *const names[NCOLL] = {
    [BCAST] = "bcast",
    [REDUCE] = "reduce",
    [ALLREDUCE] = "allreduce",
    [ALLGATHER] = "allgather",
    [ALLTOALL] = "alltoall",
    [BARRIER] = "barrier",
    [GATHER] = "gather",
    [GATHERV] = "gatherv",
    [SCATTER] = "scatter",
    [SCATTERV] = "scatterv",
    [ALLGATHERV] = "allgatherv",
    [ALLTOALLV] = "alltoallv",
    [ALLTOALLW] = "alltoallw",
    [REDUCE_SCATTER] = "reduce_scatter",
    [REDUCE_SCATTER_BLOCK] = "reduce_scatter_block",
    [SCAN] = "scan",
    [EXSCAN] = "exscan",
    [NEIGHBOR_ALLGATHER] = "neighbor_allgather",
    [NEIGHBOR_ALLGATHERV] = "neighbor_allgatherv",
    [NEIGHBOR_ALLTOALL] = "neighbor_alltoall",
    [NEIGHBOR_ALLTOALLV] = "neighbor_alltoallv",
    [NEIGHBOR_ALLTOALLW] = "neighbor_alltoallw",
    [IBCAST] = "ibcast",
    [IREDUCE] = "ireduce",
    [IALLREDUCE] = "iallreduce",
    [IALLGATHER] = "iallgather",
    [IALLTOALL] = "ialltoall",
    [IBARRIER] = "ibarrier",
    [IGATHER] = "igather",
    [IGATHERV] = "igatherv",
    [ISCATTER] = "iscatter",
    [ISCATTERV] = "iscatterv",
    [IALLGATHERV] = "iallgatherv",
    [IALLTOALLV] = "ialltoallv",
    [IALLTOALLW] = "ialltoallw",
    [IREDUCE_SCATTER] = "ireduce_scatter",
    [IREDUCE_SCATTER_BLOCK] = "ireduce_scatter_block",
    [ISCAN] = "iscan",
    [IEXSCAN] = "iexscan",
    [INEIGHBOR_ALLGATHER] = "ineighbor_allgather",
    [INEIGHBOR_ALLGATHERV] = "ineighbor_allgatherv",
    [INEIGHBOR_ALLTOALL] = "ineighbor_alltoall",
    [INEIGHBOR_ALLTOALLV] = "ineighbor_alltoallv",
    [INEIGHBOR_ALLTOALLW] = "ineighbor_alltoallw",
};

struct bufs {
    char *send, *recv;     /* bytes: SIZE * blocks each */
    char *ramp;            /* SIZE + 256 bytes: ramp[k] = k mod 256 */
    double *dsend, *drecv; /* doubles: count * ranks to reduce (reduce_scatter's input); count */
    int *counts;           /* blocks entries: SIZE each */
    int *displs;           /* ranks entries: block k at ((k + 1) mod ranks) * SIZE */
    int *dcounts;          /* ranks entries: count each (reduce_scatter) */
    MPI_Datatype *types;   /* blocks entries: MPI_BYTE each (the w forms) */
    int ndispls[2];        /* the neighbours' blocks swapped: SIZE, 0 */
    MPI_Aint nbdispls[2];  /* the same for neighbor_alltoallw, in bytes */
    MPI_Comm ring;         /* 1-D periodic Cartesian communicator over every rank */
    int left, right;       /* its neighbours 0 (towards -1) and 1 (towards +1) */
    size_t bytes, count;   /* per-rank size in bytes; number of doubles */
    int rank, size;
    int blocks; /* ranks, and at least the 2 neighbours */
};

/* The block that rank src gives to rank dst: bytes counting up from a start that differs between
 * neighbouring blocks (13 is odd: distinct for 256 ranks), so that a misplaced block shows. */
static const char *pattern(const struct bufs *b, int src, int dst)
{
    return b->ramp + (unsigned)(src * 13 + dst * 5) % 256;
}

/* Where the v and w forms over every rank put block k: ((k + 1) mod ranks) blocks in. */
static size_t place(const struct bufs *b, int k)
{
    return (size_t)((k + 1) % b->size) * b->bytes;
}

/* The sources never change; results are cleared before each collective (fill_results). */
static void fill_sources(struct bufs *b)
{
    for (size_t k = 0; k < b->bytes + 256; k++)
        b->ramp[k] = (char)k;
    for (int dst = 0; dst < b->blocks; dst++)
        memcpy(b->send + (size_t)dst * b->bytes, pattern(b, b->rank, dst), b->bytes);
    for (size_t i = 0; i < b->count * b->size; i++)
        b->dsend[i] = b->rank + 1 + (double)(i % 7);
    for (int k = 0; k < b->blocks; k++) {
        b->counts[k] = (int)b->bytes;
        b->types[k] = MPI_BYTE;
    }
    for (int k = 0; k < b->size; k++) {
        b->displs[k] = (int)place(b, k);
        b->dcounts[k] = (int)b->count;
    }
    b->ndispls[0] = (int)b->bytes;
    b->ndispls[1] = 0;
    b->nbdispls[0] = (MPI_Aint)b->bytes;
    b->nbdispls[1] = 0;
}

static void fill_results(struct bufs *b)
{
    memset(b->recv, 0xff, b->bytes * b->blocks);
    for (size_t i = 0; i < b->count; i++)
        b->drecv[i] = -1;
}

/* The blocking collectives that run on the ring rather than MPI_COMM_WORLD. */
static void run_neighbor(enum coll c, struct bufs *b)
{
    int n = (int)b->bytes;
    switch (c) {
    case NEIGHBOR_ALLGATHER:
        MPI_Neighbor_allgather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, b->ring);
        break;
    case NEIGHBOR_ALLGATHERV:
        MPI_Neighbor_allgatherv(b->send, n, MPI_BYTE, b->recv, b->counts, b->ndispls, MPI_BYTE,
                                b->ring);
        break;
    case NEIGHBOR_ALLTOALL:
        MPI_Neighbor_alltoall(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, b->ring);
        break;
    case NEIGHBOR_ALLTOALLV:
        MPI_Neighbor_alltoallv(b->send, b->counts, b->ndispls, MPI_BYTE, b->recv, b->counts,
                               b->ndispls, MPI_BYTE, b->ring);
        break;
    default:
        MPI_Neighbor_alltoallw(b->send, b->counts, b->nbdispls, b->types, b->recv, b->counts,
                               b->nbdispls, b->types, b->ring);
        break;
    }
}

/* The non-blocking ones. */
static void start_neighbor(enum coll c, struct bufs *b, MPI_Request *req)
{
    int n = (int)b->bytes;
    switch (c) {
    case INEIGHBOR_ALLGATHER:
        MPI_Ineighbor_allgather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, b->ring, req);
        break;
    case INEIGHBOR_ALLGATHERV:
        MPI_Ineighbor_allgatherv(b->send, n, MPI_BYTE, b->recv, b->counts, b->ndispls, MPI_BYTE,
                                 b->ring, req);
        break;
    case INEIGHBOR_ALLTOALL:
        MPI_Ineighbor_alltoall(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, b->ring, req);
        break;
    case INEIGHBOR_ALLTOALLV:
        MPI_Ineighbor_alltoallv(b->send, b->counts, b->ndispls, MPI_BYTE, b->recv, b->counts,
                                b->ndispls, MPI_BYTE, b->ring, req);
        break;
    default:
        MPI_Ineighbor_alltoallw(b->send, b->counts, b->nbdispls, b->types, b->recv, b->counts,
                                b->nbdispls, b->types, b->ring, req);
        break;
    }
}

/* Runs `iters` calls of collective c. The root rotates: root = call number mod ranks. */
static void run(enum coll c, struct bufs *b, long iters)
{
    int n = (int)b->bytes, count = (int)b->count;
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request req;
    for (long i = 0; i < iters; i++) {
        int root = (int)(i % b->size);
        /* The root sends its first block; the others receive at the start of recv. */
        void *bcast_buf = b->rank == root ? b->send : b->recv;
        /* What each rank gives the root of a gather: the block it would send to that rank. */
        void *to_root = b->send + (size_t)root * b->bytes;
        switch (c) {
        case BCAST:
            MPI_Bcast(bcast_buf, n, MPI_BYTE, root, w);
            break;
        case REDUCE:
            MPI_Reduce(b->dsend, b->drecv, count, MPI_DOUBLE, MPI_SUM, root, w);
            break;
        case ALLREDUCE:
            MPI_Allreduce(b->dsend, b->drecv, count, MPI_DOUBLE, MPI_SUM, w);
            break;
        case ALLGATHER:
            /* Each rank contributes the block it would send to rank 0. */
            MPI_Allgather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, w);
            break;
        case ALLTOALL:
            MPI_Alltoall(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, w);
            break;
        case BARRIER:
            MPI_Barrier(w);
            break;
        case GATHER:
            MPI_Gather(to_root, n, MPI_BYTE, b->recv, n, MPI_BYTE, root, w);
            break;
        case GATHERV:
            MPI_Gatherv(to_root, n, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, root, w);
            break;
        case SCATTER:
            MPI_Scatter(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, root, w);
            break;
        case SCATTERV:
            MPI_Scatterv(b->send, b->counts, b->displs, MPI_BYTE, b->recv, n, MPI_BYTE, root, w);
            break;
        case ALLGATHERV:
            MPI_Allgatherv(b->send, n, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, w);
            break;
        case ALLTOALLV:
            MPI_Alltoallv(b->send, b->counts, b->displs, MPI_BYTE, b->recv, b->counts, b->displs,
                          MPI_BYTE, w);
            break;
        case ALLTOALLW:
            MPI_Alltoallw(b->send, b->counts, b->displs, b->types, b->recv, b->counts, b->displs,
                          b->types, w);
            break;
        case REDUCE_SCATTER:
            MPI_Reduce_scatter(b->dsend, b->drecv, b->dcounts, MPI_DOUBLE, MPI_SUM, w);
            break;
        case REDUCE_SCATTER_BLOCK:
            MPI_Reduce_scatter_block(b->dsend, b->drecv, count, MPI_DOUBLE, MPI_SUM, w);
            break;
        case SCAN:
            MPI_Scan(b->dsend, b->drecv, count, MPI_DOUBLE, MPI_SUM, w);
            break;
        case EXSCAN:
            MPI_Exscan(b->dsend, b->drecv, count, MPI_DOUBLE, MPI_SUM, w);
            break;
        case NEIGHBOR_ALLGATHER:
        case NEIGHBOR_ALLGATHERV:
        case NEIGHBOR_ALLTOALL:
        case NEIGHBOR_ALLTOALLV:
        case NEIGHBOR_ALLTOALLW:
            run_neighbor(c, b);
            break;
        case IBCAST:
            MPI_Ibcast(bcast_buf, n, MPI_BYTE, root, w, &req);
            break;
        case IREDUCE:
            MPI_Ireduce(b->dsend, b->drecv, count, MPI_DOUBLE, MPI_SUM, root, w, &req);
            break;
        case IALLREDUCE:
            MPI_Iallreduce(b->dsend, b->drecv, count, MPI_DOUBLE, MPI_SUM, w, &req);
            break;
        case IALLGATHER:
            MPI_Iallgather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, w, &req);
            break;
        case IALLTOALL:
            MPI_Ialltoall(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, w, &req);
            break;
        case IBARRIER:
            MPI_Ibarrier(w, &req);
            break;
        case IGATHER:
            MPI_Igather(to_root, n, MPI_BYTE, b->recv, n, MPI_BYTE, root, w, &req);
            break;
        case IGATHERV:
            MPI_Igatherv(to_root, n, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, root, w,
                         &req);
            break;
        case ISCATTER:
            MPI_Iscatter(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, root, w, &req);
            break;
        case ISCATTERV:
            MPI_Iscatterv(b->send, b->counts, b->displs, MPI_BYTE, b->recv, n, MPI_BYTE, root, w,
                          &req);
            break;
        case IALLGATHERV:
            MPI_Iallgatherv(b->send, n, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, w, &req);
            break;
        case IALLTOALLV:
            MPI_Ialltoallv(b->send, b->counts, b->displs, MPI_BYTE, b->recv, b->counts, b->displs,
                           MPI_BYTE, w, &req);
            break;
        case IALLTOALLW:
            MPI_Ialltoallw(b->send, b->counts, b->displs, b->types, b->recv, b->counts, b->displs,
                           b->types, w, &req);
            break;
        case IREDUCE_SCATTER:
            MPI_Ireduce_scatter(b->dsend, b->drecv, b->dcounts, MPI_DOUBLE, MPI_SUM, w, &req);
            break;
        case IREDUCE_SCATTER_BLOCK:
            MPI_Ireduce_scatter_block(b->dsend, b->drecv, count, MPI_DOUBLE, MPI_SUM, w, &req);
            break;
        case ISCAN:
            MPI_Iscan(b->dsend, b->drecv, count, MPI_DOUBLE, MPI_SUM, w, &req);
            break;
        case IEXSCAN:
            MPI_Iexscan(b->dsend, b->drecv, count, MPI_DOUBLE, MPI_SUM, w, &req);
            break;
        case INEIGHBOR_ALLGATHER:
        case INEIGHBOR_ALLGATHERV:
        case INEIGHBOR_ALLTOALL:
        case INEIGHBOR_ALLTOALLV:
        case INEIGHBOR_ALLTOALLW:
        case NCOLL:
            start_neighbor(c, b, &req);
            break;
        }
        if (c >= NBLOCKING)
            MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
}

/* Whether the `bytes` at got differ from block dst of rank src: 1 or 0. */
static long wrong(const struct bufs *b, const char *got, int src, int dst)
{
    return memcmp(got, pattern(b, src, dst), b->bytes) != 0;
}

/* Wrong doubles among the count results: element i should be base + step * ((i + skip) mod 7). */
static long wrong_sums(const struct bufs *b, double base, double step, size_t skip)
{
    long bad = 0;
    for (size_t i = 0; i < b->count; i++)
        bad += b->drecv[i] != base + step * (double)((i + skip) % 7);
    return bad;
}

/* Wrong blocks of a neighbour alltoall whose block k lies at position pos(k) of both buffers
 * (pos(k) = k, or 1 - k for the v and w forms): what the left neighbour sent towards +1, its
 * block 1, arrives as the data from -1 (block 0), and the other way round. With 1 or 2 ranks
 * both neighbours are the same rank; MPI 3.1 leaves unsaid which of its two messages lands in
 * which block (the MPI 4.0 errata settled it as above) and the MPIs differ: either order passes. */
static long wrong_neighbor_alltoall(const struct bufs *b, int swapped)
{
    size_t pos0 = swapped ? b->bytes : 0, pos1 = swapped ? 0 : b->bytes;
    const char *from_left = b->recv + pos0, *from_right = b->recv + pos1;
    int first = swapped ? 0 : 1, second = 1 - first; /* blocks 1 and 0 at pos(1) and pos(0) */
    long bad = wrong(b, from_left, b->left, first) + wrong(b, from_right, b->right, second);
    if (bad && b->size <= 2) {
        long other = wrong(b, from_left, b->left, second) + wrong(b, from_right, b->right, first);
        if (other < bad)
            bad = other;
    }
    return bad;
}

/* Returns the number of wrong blocks (or doubles) in this rank's result of collective c after a
 * run of `iters` (at least 2) calls. */
static long check(enum coll c, const struct bufs *b, long iters)
{
    long bad = 0, last = iters - 1;
    int p = b->size, r = b->rank;
    int last_root = (int)(last % p);
    const char *recv = b->recv;
    size_t n = b->bytes;
    c = (enum coll)(c % NBLOCKING); /* a non-blocking form leaves what its blocking one does */
    switch (c) {
    case BCAST:
        /* recv holds what came from the root of the last call in which this rank was not root. */
        if (last % p == r)
            last--;
        if (p > 1)
            bad += wrong(b, recv, (int)(last % p), 0);
        break;
    case REDUCE:
    case ALLREDUCE:
        if (c == ALLREDUCE || r < iters) /* the ranks that were root at least once */
            bad += wrong_sums(b, (double)p * (p + 1) / 2, p, 0);
        break;
    case ALLGATHER:
    case ALLTOALL:
        for (int src = 0; src < p; src++)
            bad += wrong(b, recv + (size_t)src * n, src, c == ALLGATHER ? 0 : r);
        break;
    case GATHER:
    case GATHERV:
        /* A root receives from each rank the block that rank gives it, whichever call it was. */
        if (r < iters)
            for (int src = 0; src < p; src++)
                bad += wrong(b, recv + (c == GATHER ? (size_t)src * n : place(b, src)), src, r);
        break;
    case SCATTER:
        bad += wrong(b, recv, last_root, r);
        break;
    case SCATTERV:
        /* The last root sent this rank the block at place(rank): its block (rank + 1) mod p. */
        bad += wrong(b, recv, last_root, (r + 1) % p);
        break;
    case ALLGATHERV:
        for (int src = 0; src < p; src++)
            bad += wrong(b, recv + place(b, src), src, 0);
        break;
    case ALLTOALLV:
    case ALLTOALLW:
        for (int src = 0; src < p; src++)
            bad += wrong(b, recv + place(b, src), src, (r + 1) % p);
        break;
    case REDUCE_SCATTER:
    case REDUCE_SCATTER_BLOCK:
        /* This rank's block r of the sum: elements r * count and on of every rank's input. */
        bad += wrong_sums(b, (double)p * (p + 1) / 2, p, (size_t)r * b->count);
        break;
    case SCAN:
        bad += wrong_sums(b, (double)(r + 1) * (r + 2) / 2, r + 1, 0);
        break;
    case EXSCAN:
        if (r > 0) /* rank 0's result is undefined */
            bad += wrong_sums(b, (double)r * (r + 1) / 2, r, 0);
        break;
    case NEIGHBOR_ALLGATHER:
        bad += wrong(b, recv, b->left, 0) + wrong(b, recv + n, b->right, 0);
        break;
    case NEIGHBOR_ALLGATHERV:
        bad += wrong(b, recv + n, b->left, 0) + wrong(b, recv, b->right, 0);
        break;
    case NEIGHBOR_ALLTOALL:
        bad += wrong_neighbor_alltoall(b, 0);
        break;
    case NEIGHBOR_ALLTOALLV:
    case NEIGHBOR_ALLTOALLW:
        bad += wrong_neighbor_alltoall(b, 1);
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

/* Frees b's buffers (free(NULL) is fine: after a failed allocation too). */
static void free_bufs(struct bufs *b)
{
    free(b->send);
    free(b->recv);
    free(b->ramp);
    free(b->dsend);
    free(b->drecv);
    free(b->counts);
    free(b->displs);
    free(b->dcounts);
    free(b->types);
}

/* Allocates b's buffers for b->bytes; returns 0, or -1 when memory runs out (nothing left). */
static int alloc_bufs(struct bufs *b)
{
    b->count = b->bytes / sizeof(double) ? b->bytes / sizeof(double) : 1;
    b->send = malloc(b->bytes * b->blocks);
    b->recv = malloc(b->bytes * b->blocks);
    b->ramp = malloc(b->bytes + 256);
    b->dsend = malloc(b->count * b->size * sizeof(double));
    b->drecv = malloc(b->count * sizeof(double));
    b->counts = malloc(b->blocks * sizeof(int));
    b->displs = malloc(b->size * sizeof(int));
    b->dcounts = malloc(b->size * sizeof(int));
    b->types = malloc(b->blocks * sizeof(MPI_Datatype));
    if (b->send && b->recv && b->ramp && b->dsend && b->drecv && b->counts && b->displs &&
        b->dcounts && b->types)
        return 0;
    free_bufs(b);
    return -1;
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
    int blocks = size < 2 ? 2 : size;
    for (int s = 0; s < nsizes; s++)
        if (sizes[s] > INT_MAX / (size_t)blocks) {
            /* The v and w forms give displacements in bytes, as ints. */
            if (rank == 0)
                fprintf(stderr, "coll: %zu bytes x %d blocks do not fit in an int\n", sizes[s],
                        blocks);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    if (rank == 0) {
        printf("# %d ranks, about %.2f s per measurement; time per call: max over ranks, in us\n",
               size, target);
        printf("# bcast: bytes from the root; reduce, allreduce, scan, exscan: MPI_SUM on bytes/8 "
               "doubles; the root of bcast, reduce, gather(v) and scatter(v) rotates\n");
        printf("# allgather(v), gather(v), scatter(v): bytes per rank; alltoall(v,w): bytes per "
               "pair of ranks; reduce_scatter(_block): bytes/8 doubles of result per rank\n");
        printf("# neighbor_*: bytes to and from each of the 2 neighbours on a periodic ring\n");
    }
    struct bufs b = {.rank = rank, .size = size, .blocks = blocks};
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &b.ring);
    MPI_Cart_shift(b.ring, 0, 1, &b.left, &b.right);
    int ok = 1;
    for (int s = 0; s < nsizes; s++) {
        b.bytes = sizes[s];
        if (alloc_bufs(&b) != 0) {
            fprintf(stderr, "coll: rank %d: out of memory for %zu-byte buffers\n", rank,
                    b.bytes * blocks);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        fill_sources(&b);
        for (enum coll c = BCAST; c < NCOLL; c++)
            if (chosen[c] && (sized(c) || s == 0))
                ok &= measure(c, &b, target);
        free_bufs(&b);
    }
    MPI_Comm_free(&b.ring);
    MPI_Finalize();
    return ok ? 0 : 1;
}
