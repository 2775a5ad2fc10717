/* One-sided accumulates (MPI-3.1 chapter 11), which are atomic per element: every rank adds 1
 * N times with MPI_Accumulate(MPI_SUM) to an int, a long long and a double of rank 0 inside
 * MPI_Win_lock_all, and the sums are exact (size * N); MPI_Get_accumulate(MPI_SUM) of 1 as a
 * ticket counter under a shared lock: the tickets of all ranks are distinct, cover 0 to
 * size * N - 1, and increase on each rank (same-origin accumulates to one location are ordered);
 * MPI_Fetch_and_op with MPI_SUM, MPI_REPLACE (the values fetched and the one left form a chain)
 * and MPI_NO_OP; MPI_Compare_and_swap electing one leader, and as a spin lock guarding a
 * counter updated with a get and a put; under MPI_Win_fence, MPI_MAX, MPI_BOR and MPI_REPLACE
 * into a vector target datatype on every rank, and MPI_MAXLOC on MPI_2INT; and, inside
 * MPI_Win_lock_all, MPI_Rput, MPI_Rget, MPI_Raccumulate and MPI_Rget_accumulate completed with
 * MPI_Wait and MPI_Waitall, the data checked after. Last, every rank adds 2 MiB of doubles to
 * rank 0's window at once under MPI_Win_fence (a sum that rank 0, waiting in the fence, helps
 * to fold): each element is exact. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rma_accumulate: rank %d, line %d: %s\n", rank, __LINE__, #cond);      \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

enum { N = 1000, M = 20 };

/* Rank 0's counters, in a window of disp_unit 1 addressed with offsetof. */
struct counters {
    int i;
    long long ll;
    double d;
    int ticket;
    long long sum, repl;
    int leader, lock, guarded;
};

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Reads bytes of rank 0's window at disp into buf, under a shared lock. */
static void read0(void *buf, int bytes, MPI_Aint disp, MPI_Win win)
{
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win) == MPI_SUCCESS);
    CHECK(MPI_Get(buf, bytes, MPI_BYTE, 0, disp, bytes, MPI_BYTE, win) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
}

static void test_counters(void)
{
    struct counters *c = NULL;
    MPI_Aint bytes = rank == 0 ? sizeof *c : 0;
    MPI_Win win;
    CHECK(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c, &win) == MPI_SUCCESS);
    if (rank == 0) { /* local stores to the window: under a lock of it */
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win) == MPI_SUCCESS);
        c->i = 0;
        c->ll = 0;
        c->d = 0;
        c->ticket = 0;
        c->sum = 0;
        c->repl = -1;
        c->leader = -1;
        c->lock = 0;
        c->guarded = 0;
        CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* MPI_Accumulate(SUM) of 1, N times, into three types. */
    const int one = 1;
    const long long one_ll = 1;
    const double one_d = 1.0;
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
    for (int k = 0; k < N; k++) {
        CHECK(MPI_Accumulate(&one, 1, MPI_INT, 0, offsetof(struct counters, i), 1, MPI_INT, MPI_SUM,
                             win) == MPI_SUCCESS);
        CHECK(MPI_Accumulate(&one_ll, 1, MPI_LONG_LONG, 0, offsetof(struct counters, ll), 1,
                             MPI_LONG_LONG, MPI_SUM, win) == MPI_SUCCESS);
        CHECK(MPI_Accumulate(&one_d, 1, MPI_DOUBLE, 0, offsetof(struct counters, d), 1, MPI_DOUBLE,
                             MPI_SUM, win) == MPI_SUCCESS);
    }
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    struct counters got;
    read0(&got, sizeof got, 0, win);
    CHECK(got.i == size * N && got.ll == (long long)size * N && got.d == (double)size * N);
    /* The read covers the ticket counter, which the next phase updates: a get and an
     * accumulate at once on a location conflict (MPI 3.1, 11.7.1). */
    MPI_Barrier(MPI_COMM_WORLD);

    /* Tickets: MPI_Get_accumulate(SUM) of 1 returns the value before. */
    int *tickets = malloc(N * sizeof(int)), *all = NULL;
    for (int k = 0; k < N; k++)
        tickets[k] = -1;
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win) == MPI_SUCCESS);
    for (int k = 0; k < N; k++)
        CHECK(MPI_Get_accumulate(&one, 1, MPI_INT, &tickets[k], 1, MPI_INT, 0,
                                 offsetof(struct counters, ticket), 1, MPI_INT, MPI_SUM,
                                 win) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
    for (int k = 1; k < N; k++)
        if (tickets[k] <= tickets[k - 1]) {
            CHECK(tickets[k] > tickets[k - 1]);
            break;
        }
    if (rank == 0)
        all = malloc((size_t)size * N * sizeof(int));
    MPI_Gather(tickets, N, MPI_INT, all, N, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        qsort(all, (size_t)size * N, sizeof(int), cmp_int);
        for (int k = 0; k < size * N; k++)
            if (all[k] != k) {
                CHECK(all[k] == k);
                break;
            }
        free(all);
    }
    free(tickets);
    MPI_Barrier(MPI_COMM_WORLD);

    /* MPI_Fetch_and_op: SUM of rank + 1; REPLACE with the rank; NO_OP reads. */
    long long mine = rank + 1, old_sum = -5, me = rank, old_repl = -5;
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
    CHECK(MPI_Fetch_and_op(&mine, &old_sum, MPI_LONG_LONG, 0, offsetof(struct counters, sum),
                           MPI_SUM, win) == MPI_SUCCESS);
    CHECK(MPI_Fetch_and_op(&me, &old_repl, MPI_LONG_LONG, 0, offsetof(struct counters, repl),
                           MPI_REPLACE, win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(0, win) == MPI_SUCCESS);
    long long total = (long long)size * (size + 1) / 2;
    CHECK(old_sum >= 0 && old_sum <= total - mine);
    CHECK(old_repl >= -1 && old_repl < size && old_repl != rank);
    MPI_Barrier(MPI_COMM_WORLD);
    long long now_sum = -5, now_repl = -5;
    CHECK(MPI_Fetch_and_op(NULL, &now_sum, MPI_LONG_LONG, 0, offsetof(struct counters, sum),
                           MPI_NO_OP, win) == MPI_SUCCESS);
    CHECK(MPI_Fetch_and_op(NULL, &now_repl, MPI_LONG_LONG, 0, offsetof(struct counters, repl),
                           MPI_NO_OP, win) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    CHECK(now_sum == total);
    CHECK(now_repl >= 0 && now_repl < size);
    /* The old values of REPLACE, with the final value, are -1 and every rank once: a chain. */
    long long *olds = rank == 0 ? malloc(size * sizeof(long long)) : NULL;
    MPI_Gather(&old_repl, 1, MPI_LONG_LONG, olds, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int *seen = calloc(size + 1, sizeof(int));
        for (int r = 0; r < size; r++)
            if (olds[r] >= -1 && olds[r] < size)
                seen[olds[r] + 1]++;
        if (now_repl >= 0 && now_repl < size)
            seen[now_repl + 1]++;
        for (int r = 0; r <= size; r++)
            CHECK(seen[r] == 1);
        free(seen);
        free(olds);
    }

    /* MPI_Compare_and_swap: the first to swap -1 for its rank is the leader, the only one. */
    int cand = rank, minus1 = -1, was = -5;
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
    CHECK(MPI_Compare_and_swap(&cand, &minus1, &was, MPI_INT, 0, offsetof(struct counters, leader),
                               win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(0, win) == MPI_SUCCESS);
    CHECK(was == -1 || (was >= 0 && was < size && was != rank));
    int won = was == -1, winners = 0, leader = -1;
    MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(winners == 1);
    int maybe = won ? rank : -1;
    MPI_Allreduce(&maybe, &leader, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(won || was == leader);
    int now = -5;
    CHECK(MPI_Fetch_and_op(NULL, &now, MPI_INT, 0, offsetof(struct counters, leader), MPI_NO_OP,
                           win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(0, win) == MPI_SUCCESS);
    CHECK(now == leader);

    /* A spin lock: swap 0 for 1, flush, until the value fetched is 0; then increment the guarded
     * counter with a get and a put, and release the lock with an atomic replace. */
    const int zero = 0, locked = 1;
    for (int k = 0; k < M; k++) {
        int prev;
        do {
            prev = -5;
            CHECK(MPI_Compare_and_swap(&locked, &zero, &prev, MPI_INT, 0,
                                       offsetof(struct counters, lock), win) == MPI_SUCCESS);
            CHECK(MPI_Win_flush(0, win) == MPI_SUCCESS);
            CHECK(prev == 0 || prev == 1);
        } while (prev == 1);
        int v = -5;
        CHECK(MPI_Get(&v, 1, MPI_INT, 0, offsetof(struct counters, guarded), 1, MPI_INT, win) ==
              MPI_SUCCESS);
        CHECK(MPI_Win_flush(0, win) == MPI_SUCCESS);
        v++;
        CHECK(MPI_Put(&v, 1, MPI_INT, 0, offsetof(struct counters, guarded), 1, MPI_INT, win) ==
              MPI_SUCCESS);
        CHECK(MPI_Win_flush(0, win) == MPI_SUCCESS);
        CHECK(MPI_Accumulate(&zero, 1, MPI_INT, 0, offsetof(struct counters, lock), 1, MPI_INT,
                             MPI_REPLACE, win) == MPI_SUCCESS);
        CHECK(MPI_Win_flush(0, win) == MPI_SUCCESS);
    }
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    read0(&got, sizeof got, 0, win);
    CHECK(got.guarded == size * M && got.lock == 0);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
}

/* Under fence, every rank accumulates into every rank's window of 3 * K ints through a vector
 * target type (K blocks of 1, stride 3): MPI_MAX at disp 0, MPI_BOR at 1, MPI_REPLACE at 2;
 * and MPI_MAXLOC of (value, rank) into a pair of ints after them. */
enum { K = 8 };
static int vals[3 * K + 2];

static int maxval(int r, int k)
{
    return (r * 7 + k * 13) % 101;
}

static void test_fence(void)
{
    MPI_Win win;
    for (int i = 0; i < K; i++) {
        vals[3 * i] = 50;
        vals[3 * i + 1] = 0;
        vals[3 * i + 2] = -1;
    }
    vals[3 * K] = -1;
    vals[3 * K + 1] = -1;
    CHECK(MPI_Win_create(vals, sizeof vals, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
          MPI_SUCCESS);
    MPI_Datatype every3;
    MPI_Type_vector(K, 1, 3, MPI_INT, &every3);
    MPI_Type_commit(&every3);
    int mx[K], bits[K], repl[K], pair[2] = {(rank * 5) % 7, rank};
    for (int k = 0; k < K; k++) {
        mx[k] = maxval(rank, k);
        bits[k] = 1 << ((rank + k) % 31);
        repl[k] = rank * 1000 + k;
    }
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS);
    for (int t = 0; t < size; t++) {
        CHECK(MPI_Accumulate(mx, K, MPI_INT, t, 0, 1, every3, MPI_MAX, win) == MPI_SUCCESS);
        CHECK(MPI_Accumulate(bits, K, MPI_INT, t, 1, 1, every3, MPI_BOR, win) == MPI_SUCCESS);
        CHECK(MPI_Accumulate(repl, K, MPI_INT, t, 2, 1, every3, MPI_REPLACE, win) == MPI_SUCCESS);
        CHECK(MPI_Accumulate(pair, 1, MPI_2INT, t, 3 * K, 1, MPI_2INT, MPI_MAXLOC, win) ==
              MPI_SUCCESS);
    }
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS);
    for (int k = 0; k < K; k++) {
        int m = 50, b = 0;
        for (int r = 0; r < size; r++) {
            if (maxval(r, k) > m)
                m = maxval(r, k);
            b |= 1 << ((r + k) % 31);
        }
        CHECK(vals[3 * k] == m);
        CHECK(vals[3 * k + 1] == b);
        /* One of the ranks' values, element by element. */
        int v = vals[3 * k + 2];
        CHECK(v >= 0 && v % 1000 == k && v / 1000 < size);
    }
    int best = -1, at = -1;
    for (int r = 0; r < size; r++)
        if ((r * 5) % 7 > best) {
            best = (r * 5) % 7;
            at = r;
        }
    CHECK(vals[3 * K] == best && vals[3 * K + 1] == at);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
    MPI_Type_free(&every3);
}

/* The request forms inside MPI_Win_lock_all: each rank puts into its right neighbour's window,
 * gets from its left neighbour's, and adds into rank 0's counter, fetching it. */
static void test_requests(void)
{
    enum { R = 16 };
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *w = NULL;
    MPI_Win win;
    /* [0, R): put by the left neighbour; [R, 2R): read by the right one; 2R: a sum; 2R + 1: a
     * ticket. (A multiple of 64 bytes: MPICH 4.0's MPI_Win_allocate misplaces other sizes.) */
    CHECK(MPI_Win_allocate(4 * R * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w,
                           &win) == MPI_SUCCESS);
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win) == MPI_SUCCESS);
    for (int i = 0; i < R; i++) {
        w[i] = -1;
        w[R + i] = rank * 100 + i;
    }
    w[2 * R] = 0;
    w[2 * R + 1] = 0;
    CHECK(MPI_Win_unlock(rank, win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);

    int out[R], in[R], add[R], one = 1, ticket = -1;
    for (int i = 0; i < R; i++) {
        out[i] = rank * 1000 + i;
        in[i] = -1;
        add[i] = i;
    }
    MPI_Request reqs[4];
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
    CHECK(MPI_Rput(out, R, MPI_INT, right, 0, R, MPI_INT, win, &reqs[0]) == MPI_SUCCESS);
    CHECK(MPI_Rget(in, R, MPI_INT, left, R, R, MPI_INT, win, &reqs[1]) == MPI_SUCCESS);
    CHECK(MPI_Raccumulate(&add[rank % R], 1, MPI_INT, 0, 2 * R, 1, MPI_INT, MPI_SUM, win,
                          &reqs[2]) == MPI_SUCCESS);
    CHECK(MPI_Rget_accumulate(&one, 1, MPI_INT, &ticket, 1, MPI_INT, 0, 2 * R + 1, 1, MPI_INT,
                              MPI_SUM, win, &reqs[3]) == MPI_SUCCESS);
    CHECK(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE) == MPI_SUCCESS && reqs[1] == MPI_REQUEST_NULL);
    for (int i = 0; i < R; i++)
        CHECK(in[i] == left * 100 + i);
    CHECK(MPI_Wait(&reqs[3], MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(ticket >= 0 && ticket < size);
    MPI_Status st[4];
    CHECK(MPI_Waitall(4, reqs, st) == MPI_SUCCESS);
    for (int i = 0; i < 4; i++)
        CHECK(reqs[i] == MPI_REQUEST_NULL);
    /* Complete the puts at their targets, then see the neighbour's put here. */
    CHECK(MPI_Win_flush_all(win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Win_sync(win) == MPI_SUCCESS);
    for (int i = 0; i < R; i++)
        CHECK(w[i] == left * 1000 + i);
    if (rank == 0) {
        int sum = 0;
        for (int r = 0; r < size; r++)
            sum += r % R;
        CHECK(w[2 * R] == sum && w[2 * R + 1] == size);
    }
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    int *tickets = rank == 0 ? malloc(size * sizeof(int)) : NULL;
    MPI_Gather(&ticket, 1, MPI_INT, tickets, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        qsort(tickets, size, sizeof(int), cmp_int);
        for (int r = 0; r < size; r++)
            CHECK(tickets[r] == r);
        free(tickets);
    }
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
}

static void test_large(void)
{
    enum { N = 1 << 18 }; /* doubles: 2 MiB */
    double *mem, *mine = malloc(N * sizeof(double));
    MPI_Win win;
    CHECK(MPI_Win_allocate(rank == 0 ? N * sizeof(double) : 0, sizeof(double), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &mem, &win) == MPI_SUCCESS);
    if (rank == 0)
        for (int i = 0; i < N; i++)
            mem[i] = 0;
    for (int i = 0; i < N; i++)
        mine[i] = rank + 1 + i % 7;
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
    CHECK(MPI_Accumulate(mine, N, MPI_DOUBLE, 0, 0, N, MPI_DOUBLE, MPI_SUM, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS);
    if (rank == 0) {
        int bad = -1;
        for (int i = 0; i < N && bad < 0; i++)
            if (mem[i] != (double)size * (size + 1) / 2 + (double)size * (i % 7))
                bad = i;
        CHECK(bad < 0);
    }
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
    free(mine);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    test_counters();
    test_fence();
    test_requests();
    test_large();

    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("rma_accumulate: ok\n");
    MPI_Finalize();
    return all ? 1 : 0;
}
