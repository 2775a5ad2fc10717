/* The synchronizations of one-sided communication (MPI-3.1 chapter 11) other than the fence:
 * general active target (post, start, complete, wait) between ring neighbours, with groups of
 * MPI_Group_incl, ended by MPI_Win_wait or by an MPI_Win_test loop, and from every rank to rank
 * 0; passive target: a counter on rank 0 that each rank increments M times with a get and a put
 * under MPI_LOCK_EXCLUSIVE, exact at the end; shared locks held by all ranks at once (across a
 * barrier); MPI_Win_lock_all with MPI_Win_flush (a get after it sees the put), _flush_local
 * (the origin buffer is free after it), _flush_all and _flush_local_all; a target that does not
 * call MPI during the epoch: rank 0 waits for a flag in its own window memory (MPI_Win_allocate)
 * with MPI_Win_sync while rank 1 puts data and then sets the flag under a lock; MPI_Win_lock
 * with MPI_MODE_NOCHECK; and a rank locking its own window, with loads and stores. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rma_sync: rank %d, line %d: %s\n", rank, __LINE__, #cond);            \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

enum { ITER = 10, M = 50 };

static void test_pscw(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static int buf[ITER + 1 + 64];
    for (int i = 0; i < ITER; i++)
        buf[i] = -1;
    buf[ITER] = rank; /* read by the left neighbour */
    for (int r = 0; r < 64; r++)
        buf[ITER + 1 + r] = -1;
    MPI_Win win;
    CHECK(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
          MPI_SUCCESS);
    MPI_Group world, from_left, to_right;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &from_left);
    MPI_Group_incl(world, 1, &right, &to_right);

    /* The ring: expose to the left neighbour, access the right one. */
    for (int it = 0; it < ITER; it++) {
        int v = rank * 100 + it, got = -1;
        /* No local store to the window since the previous epoch, after the first. */
        CHECK(MPI_Win_post(from_left, it ? MPI_MODE_NOSTORE : 0, win) == MPI_SUCCESS);
        CHECK(MPI_Win_start(to_right, 0, win) == MPI_SUCCESS);
        CHECK(MPI_Put(&v, 1, MPI_INT, right, it, 1, MPI_INT, win) == MPI_SUCCESS);
        CHECK(MPI_Get(&got, 1, MPI_INT, right, ITER, 1, MPI_INT, win) == MPI_SUCCESS);
        CHECK(MPI_Win_complete(win) == MPI_SUCCESS);
        CHECK(got == right);
        if (it % 2 == 0) {
            CHECK(MPI_Win_wait(win) == MPI_SUCCESS);
        } else {
            int flag = 0;
            do
                CHECK(MPI_Win_test(win, &flag) == MPI_SUCCESS);
            while (!flag);
        }
        for (int i = 0; i < ITER; i++)
            CHECK(buf[i] == (i <= it ? left * 100 + i : -1));
    }

    /* Every rank to rank 0: rank 0 exposes to the group of all ranks, each accesses {0}. */
    MPI_Group zero;
    int zero_rank = 0;
    MPI_Group_incl(world, 1, &zero_rank, &zero);
    if (rank == 0) {
        int *all = malloc(size * sizeof(int));
        for (int r = 0; r < size; r++)
            all[r] = r;
        MPI_Group everyone;
        MPI_Group_incl(world, size, all, &everyone);
        CHECK(MPI_Win_post(everyone, 0, win) == MPI_SUCCESS);
        MPI_Group_free(&everyone);
        free(all);
    }
    int v = 1000 + rank;
    CHECK(MPI_Win_start(zero, 0, win) == MPI_SUCCESS);
    CHECK(MPI_Put(&v, 1, MPI_INT, 0, ITER + 1 + rank % 64, 1, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_complete(win) == MPI_SUCCESS);
    if (rank == 0) {
        CHECK(MPI_Win_wait(win) == MPI_SUCCESS);
        for (int r = 0; r < size && size <= 64; r++)
            CHECK(buf[ITER + 1 + r] == 1000 + r);
    }
    MPI_Group_free(&zero);
    MPI_Group_free(&from_left);
    MPI_Group_free(&to_right);
    MPI_Group_free(&world);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
}

static void test_passive(void)
{
    int right = (rank + 1) % size;
    /* The window's ints: the counter (rank 0's); 4 read under shared locks; those put to
     * with the flushes, with NOCHECK and to self; one per rank, put to by every rank. */
    int *w = malloc((32 + size) * sizeof(int));
    enum { COUNTER = 0, RO = 1, FL0 = 5, FL1 = 6, NOCHECK = 7, SELF = 16, SELF2 = 17, ALL = 32 };
    w[COUNTER] = 0;
    for (int i = 0; i < 4; i++)
        w[RO + i] = rank * 10 + i;
    w[FL0] = w[FL1] = w[NOCHECK] = w[SELF] = w[SELF2] = -1;
    for (int r = 0; r < size; r++)
        w[ALL + r] = -1;
    MPI_Win win;
    CHECK(MPI_Win_create(w, (32 + size) * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                         &win) == MPI_SUCCESS);

    /* The counter under an exclusive lock. */
    for (int k = 0; k < M; k++) {
        int v = -5;
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win) == MPI_SUCCESS);
        CHECK(MPI_Get(&v, 1, MPI_INT, 0, COUNTER, 1, MPI_INT, win) == MPI_SUCCESS);
        CHECK(MPI_Win_flush(0, win) == MPI_SUCCESS);
        CHECK(v >= 0 && v < size * M);
        v++;
        CHECK(MPI_Put(&v, 1, MPI_INT, 0, COUNTER, 1, MPI_INT, win) == MPI_SUCCESS);
        CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int total = -5;
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win) == MPI_SUCCESS);
    CHECK(MPI_Get(&total, 1, MPI_INT, 0, COUNTER, 1, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
    CHECK(total == size * M);

    /* Shared locks: all ranks hold one on rank 0 at once (a barrier inside), and on each rank
     * in turn. */
    int ro[4] = {-1, -1, -1, -1};
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Get(ro, 4, MPI_INT, 0, RO, 4, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
    for (int i = 0; i < 4; i++)
        CHECK(ro[i] == i);
    for (int t = 0; t < size; t++) {
        int t2 = (rank + t) % size;
        CHECK(MPI_Win_lock(MPI_LOCK_SHARED, t2, 0, win) == MPI_SUCCESS);
        CHECK(MPI_Get(ro, 4, MPI_INT, t2, RO, 4, MPI_INT, win) == MPI_SUCCESS);
        CHECK(MPI_Win_unlock(t2, win) == MPI_SUCCESS);
        for (int i = 0; i < 4; i++)
            CHECK(ro[i] == t2 * 10 + i);
    }

    /* lock_all with the flushes. */
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
    int x = rank * 10 + 1, y = -5;
    CHECK(MPI_Put(&x, 1, MPI_INT, right, FL0, 1, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(right, win) == MPI_SUCCESS);
    CHECK(MPI_Get(&y, 1, MPI_INT, right, FL0, 1, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(right, win) == MPI_SUCCESS);
    CHECK(y == x);
    int x2 = rank * 10 + 2;
    CHECK(MPI_Put(&x2, 1, MPI_INT, right, FL1, 1, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush_local(right, win) == MPI_SUCCESS);
    x2 = -100; /* the origin buffer is free: the target keeps the value put */
    CHECK(MPI_Win_flush(right, win) == MPI_SUCCESS);
    y = -5;
    CHECK(MPI_Get(&y, 1, MPI_INT, right, FL1, 1, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush_local(right, win) == MPI_SUCCESS);
    CHECK(y == rank * 10 + 2);
    for (int t = 0; t < size; t++)
        CHECK(MPI_Put(&rank, 1, MPI_INT, t, ALL + rank, 1, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush_all(win) == MPI_SUCCESS);
    int *back = malloc(size * sizeof(int));
    for (int t = 0; t < size; t++) {
        back[t] = -5;
        CHECK(MPI_Get(&back[t], 1, MPI_INT, t, ALL + rank, 1, MPI_INT, win) == MPI_SUCCESS);
    }
    CHECK(MPI_Win_flush_local_all(win) == MPI_SUCCESS);
    for (int t = 0; t < size; t++)
        CHECK(back[t] == rank);
    free(back);
    /* Everyone's puts are complete at their targets: see them here. */
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Win_sync(win) == MPI_SUCCESS);
    int left = (rank + size - 1) % size;
    CHECK(w[FL0] == left * 10 + 1 && w[FL1] == left * 10 + 2);
    for (int r = 0; r < size; r++)
        CHECK(w[ALL + r] == r);
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);

    /* MPI_MODE_NOCHECK: each rank is the only one to lock its right neighbour. */
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, MPI_MODE_NOCHECK, win) == MPI_SUCCESS);
    CHECK(MPI_Put(&rank, 1, MPI_INT, right, NOCHECK, 1, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock(right, win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Locking self: stores, then a get of them; a put, then loads of it. */
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win) == MPI_SUCCESS);
    CHECK(MPI_Win_sync(win) == MPI_SUCCESS);
    CHECK(w[NOCHECK] == left);
    w[SELF] = rank + 500;
    CHECK(MPI_Win_sync(win) == MPI_SUCCESS);
    int s = -5, p = rank + 700;
    CHECK(MPI_Get(&s, 1, MPI_INT, rank, SELF, 1, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Put(&p, 1, MPI_INT, rank, SELF2, 1, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(rank, win) == MPI_SUCCESS);
    CHECK(MPI_Win_sync(win) == MPI_SUCCESS);
    CHECK(s == rank + 500 && w[SELF2] == rank + 700);
    CHECK(MPI_Win_unlock(rank, win) == MPI_SUCCESS);

    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
    free(w);
}

/* Passive target notification: rank 0 computes, polling a flag in its own window memory with
 * MPI_Win_sync; rank 1 puts the data and then sets the flag (an atomic replace); the other
 * ranks go on to MPI_Win_free. The flag is read with an atomic load, as the C memory model asks
 * of a location another thread writes meanwhile (a volatile load works too, but
 * ThreadSanitizer would see a race). */
enum { K = 256 };
static void test_notify(void)
{
    int *w = NULL;
    MPI_Win win;
    CHECK(MPI_Win_allocate((K + 16) * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w,
                           &win) == MPI_SUCCESS);
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win) == MPI_SUCCESS);
    for (int i = 0; i < K + 16; i++)
        w[i] = -1;
    w[K] = 0;
    CHECK(MPI_Win_unlock(rank, win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int *flag = &w[K];
        unsigned long work = 0;
        CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
        while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0) {
            work = work * 31 + 7; /* computing */
            CHECK(MPI_Win_sync(win) == MPI_SUCCESS);
        }
        CHECK(MPI_Win_sync(win) == MPI_SUCCESS);
        CHECK(*flag == 1);
        for (int i = 0; i < K; i++)
            if (w[i] != 1000 + i) {
                CHECK(w[i] == 1000 + i);
                break;
            }
        CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
        (void)work;
    } else if (rank == 1) {
        int data[K], one = 1;
        for (int i = 0; i < K; i++)
            data[i] = 1000 + i;
        CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win) == MPI_SUCCESS);
        CHECK(MPI_Put(data, K, MPI_INT, 0, 0, K, MPI_INT, win) == MPI_SUCCESS);
        CHECK(MPI_Win_flush(0, win) == MPI_SUCCESS);
        CHECK(MPI_Accumulate(&one, 1, MPI_INT, 0, K, 1, MPI_INT, MPI_REPLACE, win) == MPI_SUCCESS);
        CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
    }
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    test_pscw();
    test_passive();
    if (size > 1)
        test_notify();

    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("rma_sync: ok\n");
    MPI_Finalize();
    return all ? 1 : 0;
}
