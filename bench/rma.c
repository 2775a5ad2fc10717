/*
 * One-sided communication, the patterns of the OSU one-sided benchmarks written anew: the ranks
 * form pairs (0 with 1, 2 with 3, ...); in each pair the even rank is the origin and the odd
 * one the target, every pair at once. Per operation, in microseconds (and MB/s for the puts and
 * gets), the time of one iteration of the origin:
 *
 *   put_lock, get_lock   MPI_Put / MPI_Get then MPI_Win_flush, inside one MPI_Win_lock_all
 *   put_fence, get_fence MPI_Put / MPI_Get then MPI_Win_fence on both sides
 *   put_pscw, get_pscw   target: MPI_Win_post, MPI_Win_wait; origin: MPI_Win_start, MPI_Put /
 *                        MPI_Get, MPI_Win_complete
 *   acc_lock             MPI_Accumulate (MPI_SUM, doubles) then MPI_Win_flush
 *   fop_lock             MPI_Fetch_and_op (MPI_SUM, one long) then MPI_Win_flush
 *   cas_lock             MPI_Compare_and_swap (one long) then MPI_Win_flush
 *   shm_pingpong         half the round trip of a flag through an MPI_Win_allocate_shared
 *                        window, by plain loads and stores: what a cache line costs to move
 *                        between the pair's cores, the floor of any put
 *
 * Output: one line per figure, "NAME BYTES B US MB/s" (MB/s: - where it means nothing). Each
 * figure runs for about -T seconds (default 0.2), the iteration count found by the first
 * pair's origin and used by all.
 *
 *   rma [-T SECONDS] [-c NAME,NAME...] [BYTES...]       (default sizes: 8 and 4194304)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, peer, origin, paired;
static MPI_Comm pairs; /* the members of complete pairs */
static double seconds = 0.2;

typedef enum { PUT_LOCK, GET_LOCK, PUT_FENCE, GET_FENCE, PUT_PSCW, GET_PSCW, ACC, FOP, CAS } op_t;
static const char *names[] = {"put_lock", "get_lock", "put_fence", "get_fence", "put_pscw",
                              "get_pscw", "acc_lock", "fop_lock",  "cas_lock"};

/* n iterations of op on win (the target's memory at displacement 0, `bytes` bytes). */
static void run(op_t op, MPI_Win win, MPI_Group peer_group, char *buf, int bytes, long n)
{
    long one = 1, result;
    long compare = 0;
    int count = op == ACC ? bytes / 8 : bytes;
    MPI_Datatype type = op == ACC ? MPI_DOUBLE : MPI_BYTE;

    switch (op) {
    case PUT_LOCK:
    case GET_LOCK:
    case ACC:
    case FOP:
    case CAS:
        if (!origin)
            return;
        MPI_Win_lock_all(0, win);
        for (long i = 0; i < n; i++) {
            if (op == PUT_LOCK)
                MPI_Put(buf, count, type, peer, 0, count, type, win);
            else if (op == GET_LOCK)
                MPI_Get(buf, count, type, peer, 0, count, type, win);
            else if (op == ACC)
                MPI_Accumulate(buf, count, type, peer, 0, count, type, MPI_SUM, win);
            else if (op == FOP)
                MPI_Fetch_and_op(&one, &result, MPI_LONG, peer, 0, MPI_SUM, win);
            else
                MPI_Compare_and_swap(&one, &compare, &result, MPI_LONG, peer, 0, win);
            MPI_Win_flush(peer, win);
        }
        MPI_Win_unlock_all(win);
        return;
    case PUT_FENCE:
    case GET_FENCE:
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
        for (long i = 0; i < n; i++) {
            if (origin && op == PUT_FENCE)
                MPI_Put(buf, bytes, MPI_BYTE, peer, 0, bytes, MPI_BYTE, win);
            else if (origin)
                MPI_Get(buf, bytes, MPI_BYTE, peer, 0, bytes, MPI_BYTE, win);
            MPI_Win_fence(0, win);
        }
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        return;
    case PUT_PSCW:
    case GET_PSCW:
        for (long i = 0; i < n; i++) {
            if (!origin) {
                MPI_Win_post(peer_group, 0, win);
                MPI_Win_wait(win);
                continue;
            }
            MPI_Win_start(peer_group, 0, win);
            if (op == PUT_PSCW)
                MPI_Put(buf, bytes, MPI_BYTE, peer, 0, bytes, MPI_BYTE, win);
            else
                MPI_Get(buf, bytes, MPI_BYTE, peer, 0, bytes, MPI_BYTE, win);
            MPI_Win_complete(win);
        }
        return;
    }
}

/* Seconds per iteration of op, measured on every pair at once; the first origin's iteration
 * count (found so that the run lasts about `seconds`) is everyone's. */
static double measure(op_t op, int bytes)
{
    MPI_Win win;
    MPI_Group all, peer_group;
    char *mem, *buf = malloc((size_t)bytes);
    long n = 8;
    double t = 0;

    memset(buf, 1, (size_t)bytes);
    /* A multiple of 64 bytes: MPICH 4.0's MPI_Win_allocate misplaces the memory of other sizes
     * (the base it returns is not where the puts land) */
    MPI_Win_allocate((bytes + 63) / 64 * 64, 1, MPI_INFO_NULL, pairs, &mem, &win);
    memset(mem, 0, (size_t)bytes);
    MPI_Comm_group(pairs, &all);
    MPI_Group_incl(all, 1, &peer, &peer_group);
    for (;;) { /* grow n until one run lasts a tenth of the time */
        MPI_Barrier(pairs);
        t = MPI_Wtime();
        run(op, win, peer_group, buf, bytes, n);
        t = MPI_Wtime() - t;
        int more = t < seconds / 10 && n < (1L << 30);
        MPI_Bcast(&more, 1, MPI_INT, 0, pairs);
        if (!more)
            break;
        n *= 4;
    }
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, pairs);
    long total = (long)(n * (seconds / (t > 0 ? t : 1e-9)));
    if (total < n)
        total = n;
    MPI_Barrier(pairs);
    t = MPI_Wtime();
    run(op, win, peer_group, buf, bytes, total);
    t = (MPI_Wtime() - t) / (double)total;
    /* The data arrived: the target's memory holds the origin's ones after a put, the origin's
     * buffer the target's zeros after a get. */
    MPI_Barrier(pairs);
    int wrong = 0;
    if (!origin && (op == PUT_LOCK || op == PUT_FENCE || op == PUT_PSCW))
        wrong = mem[0] != 1 || mem[bytes - 1] != 1;
    if (origin && (op == GET_LOCK || op == GET_FENCE || op == GET_PSCW))
        wrong = buf[0] != 0 || buf[bytes - 1] != 0;
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_MAX, pairs);
    if (wrong && rank == 0)
        printf("# WRONG: %s %d B: the data did not arrive\n", names[op], bytes);
    MPI_Group_free(&peer_group);
    MPI_Group_free(&all);
    MPI_Win_free(&win);
    free(buf);
    return t;
}

/* Half the round trip of a flag between the pair through shared memory: each stores the
 * round's number into the other's flag and waits for its own (atomic stores and loads, as C asks
 * of memory that another thread writes meanwhile: a plain store and load on x86-64). */
static double shm_pingpong(void)
{
    MPI_Win win;
    long *mine, *theirs;
    MPI_Aint sz;
    int du;
    long n = (long)(seconds * 1e6);

    /* 256 bytes each: the two flags lie apart by more than the pair of lines that a core's
     * adjacent-line prefetcher fetches together */
    MPI_Win_allocate_shared(256, 8, MPI_INFO_NULL, pairs, &mine, &win);
    MPI_Win_shared_query(win, peer, &sz, &du, &theirs);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    __atomic_store_n(mine, 0, __ATOMIC_RELAXED);
    MPI_Win_sync(win);
    MPI_Barrier(pairs);
    double t = MPI_Wtime();
    /* MPI_Win_sync in the wait: where the pair shares a core (more ranks than cores, in
     * ThreadMPI), it lets the other rank run */
    for (long i = 1; i <= n; i++) {
        if (origin) {
            __atomic_store_n(theirs, i, __ATOMIC_RELEASE);
            while (__atomic_load_n(mine, __ATOMIC_ACQUIRE) != i)
                MPI_Win_sync(win);
        } else {
            while (__atomic_load_n(mine, __ATOMIC_ACQUIRE) != i)
                MPI_Win_sync(win);
            __atomic_store_n(theirs, i, __ATOMIC_RELEASE);
        }
    }
    t = (MPI_Wtime() - t) / (2.0 * (double)n);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    return t;
}

/* Prints the first origin's figure (the pairs' median would hide nothing here: they are alike). */
static void report(const char *name, int bytes, double t, int bandwidth)
{
    if (rank != 0)
        return;
    if (bandwidth)
        printf("%s %d B %.3f %.1f\n", name, bytes, t * 1e6, bytes / t / 1e6);
    else
        printf("%s %d B %.3f -\n", name, bytes, t * 1e6);
    fflush(stdout);
}

static int wanted(const char *list, const char *name)
{
    if (list == NULL)
        return 1;
    size_t len = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += len)
        if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *list = NULL;
    int sizes[16], nsizes = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-T") == 0 && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
            list = argv[++i];
        else if (nsizes < 16)
            sizes[nsizes++] = atoi(argv[i]);
    }
    if (nsizes == 0) {
        sizes[nsizes++] = 8;
        sizes[nsizes++] = 4194304;
    }
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "rma: needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    paired = rank < size - size % 2;
    MPI_Comm_split(MPI_COMM_WORLD, paired ? 0 : MPI_UNDEFINED, rank, &pairs);
    if (paired) {
        origin = rank % 2 == 0;
        peer = origin ? rank + 1 : rank - 1;
        for (int s = 0; s < nsizes; s++)
            for (op_t op = PUT_LOCK; op <= CAS; op++) {
                int bytes = op == FOP || op == CAS ? 8 : sizes[s];
                if (!wanted(list, names[op]) || ((op == FOP || op == CAS) && s > 0) ||
                    (op == ACC && bytes % 8))
                    continue;
                report(names[op], bytes, measure(op, bytes), op <= GET_PSCW);
            }
        if (wanted(list, "shm_pingpong"))
            report("shm_pingpong", 8, shm_pingpong(), 0);
        MPI_Comm_free(&pairs);
    }
    MPI_Finalize();
    return 0;
}
