/* The large-count forms of MPI-4.0's one-sided calls: each of MPI_Put_c, _Get_c, _Accumulate_c,
 * _Get_accumulate_c and the request forms _Rput_c, _Rget_c, _Raccumulate_c, _Rget_accumulate_c
 * moves its data between neighbours of a ring (a fence epoch, then a lock_all one); the windows
 * come from MPI_Win_allocate_c, _create_c and _allocate_shared_c. A displacement unit above
 * INT_MAX: MPI_Win_shared_query_c gives it, the int form and MPI_WIN_DISP_UNIT say
 * MPI_UNDEFINED, displacement 0 is the base and 1 is out of range. 3e9 elements of an empty
 * type go through; a count whose bytes overflow and a negative count are MPI_ERR_COUNT. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int rank, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rma_large_count: rank %d, line %d: %s\n", rank, __LINE__, #cond);     \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

enum { N = 1000 };

static int error_class(int code)
{
    int class;
    MPI_Error_class(code, &class);
    return class;
}

/* Whether the n ints at p are seed * 10000 + i, as fill(p, n, seed) writes them. */
static int holds(const int *p, int n, int seed)
{
    for (int i = 0; i < n; i++)
        if (p[i] != seed * 10000 + i)
            return 0;
    return 1;
}

static void fill(int *p, int n, int seed)
{
    for (int i = 0; i < n; i++)
        p[i] = seed * 10000 + i;
}

/* The eight calls with counts, in a fence epoch (the blocking ones) and a lock_all epoch (the
 * request forms), on a window of 3 * N ints per rank: [0, N) put, [N, 2N) accumulated,
 * [2N, 3N) read by gets. */
static void accesses(MPI_Win win, int *mine, int size)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    static int out[N], in[N], result[N];
    MPI_Request reqs[4];

    fill(mine, 3 * N, rank);
    fill(out, N, rank);
    memset(in, 0xff, sizeof in);
    MPI_Win_fence(0, win);
    CHECK(MPI_Put_c(out, N, MPI_INT, to, 0, N, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Accumulate_c(out, N, MPI_INT, to, N, N, MPI_INT, MPI_SUM, win) == MPI_SUCCESS);
    CHECK(MPI_Get_c(in, N, MPI_INT, to, 2 * N, N, MPI_INT, win) == MPI_SUCCESS);
    MPI_Win_fence(0, win);
    CHECK(holds(mine, N, from)); /* from's put */
    for (int i = 0; i < N; i++)        /* from's values added to rank's */
        if (mine[N + i] != rank * 10000 + N + i + from * 10000 + i) {
            CHECK(mine[N + i] == rank * 10000 + N + i + from * 10000 + i);
            break;
        }
    for (int i = 0; i < N; i++)
        if (in[i] != to * 10000 + 2 * N + i) {
            CHECK(in[i] == to * 10000 + 2 * N + i);
            break;
        }
    /* the accumulated part, fetched and accumulated once more (after every rank's checks) */
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Get_accumulate_c(out, N, MPI_INT, result, N, MPI_INT, to, N, N, MPI_INT, MPI_SUM,
                               win) == MPI_SUCCESS);
    MPI_Win_fence(0, win);
    for (int i = 0; i < N; i++)
        if (result[i] != to * 10000 + N + i + rank * 10000 + i) {
            CHECK(result[i] == to * 10000 + N + i + rank * 10000 + i);
            break;
        }
    for (int i = 0; i < N; i++)
        if (mine[N + i] != rank * 10000 + N + i + 2 * (from * 10000 + i)) {
            CHECK(mine[N + i] == rank * 10000 + N + i + 2 * (from * 10000 + i));
            break;
        }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);

    memset(in, 0xff, sizeof in);
    memset(result, 0xff, sizeof result);
    MPI_Win_lock_all(0, win);
    CHECK(MPI_Rput_c(out, N, MPI_INT, to, 0, N, MPI_INT, win, &reqs[0]) == MPI_SUCCESS);
    CHECK(MPI_Raccumulate_c(out, N, MPI_INT, to, 2 * N, N, MPI_INT, MPI_REPLACE, win,
                            &reqs[1]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    MPI_Win_flush_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Rget_c(in, N, MPI_INT, to, 0, N, MPI_INT, win, &reqs[2]) == MPI_SUCCESS);
    CHECK(MPI_Rget_accumulate_c(NULL, 0, MPI_INT, result, N, MPI_INT, to, 2 * N, N, MPI_INT,
                                MPI_NO_OP, win, &reqs[3]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, reqs + 2, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    MPI_Win_unlock_all(win);
    CHECK(holds(in, N, rank));     /* what rank put at `to` */
    CHECK(holds(result, N, rank)); /* what rank's MPI_REPLACE stored there */
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Counts beyond an int, and wrong ones. */
static void counts(MPI_Win win, int *mine, int size)
{
    int to = (rank + 1) % size;
    MPI_Datatype empty;
    int one = 7;

    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    fill(mine, 3 * N, rank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win);
    CHECK(MPI_Put_c(&one, INT64_C(3000000000), empty, to, 0, INT64_C(3000000000), empty, win) ==
          MPI_SUCCESS);
    CHECK(error_class(MPI_Put_c(&one, INT64_MAX / 2, MPI_INT, to, 0, INT64_MAX / 2, MPI_INT,
                                win)) == MPI_ERR_COUNT);
    CHECK(error_class(MPI_Get_c(&one, 1, MPI_INT, to, 0, INT64_MAX / 2, MPI_INT, win)) ==
          MPI_ERR_COUNT);
    CHECK(error_class(MPI_Accumulate_c(&one, -1, MPI_INT, to, 0, 1, MPI_INT, MPI_SUM, win)) ==
          MPI_ERR_COUNT);
    CHECK(error_class(MPI_Get_accumulate_c(&one, 1, MPI_INT, &one, INT64_MAX / 2, MPI_INT, to, 0,
                                           1, MPI_INT, MPI_SUM, win)) == MPI_ERR_COUNT);
    /* more elements than the window holds, counted beyond an int */
    CHECK(error_class(MPI_Put_c(&one, INT64_C(3000000000), MPI_BYTE, to, 0, INT64_C(3000000000),
                                MPI_BYTE, win)) == MPI_ERR_RMA_RANGE);
    MPI_Win_unlock(to, win);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(holds(mine, 3 * N, rank)); /* nothing above wrote */
    MPI_Type_free(&empty);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size, *mine, *shared, flag, *attr;
    static int created[3 * N];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Win win;

    CHECK(MPI_Win_allocate_c(3 * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                             &mine, &win) == MPI_SUCCESS);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    accesses(win, mine, size);
    counts(win, mine, size);
    MPI_Win_free(&win);

    CHECK(MPI_Win_create_c(created, sizeof created, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &win) == MPI_SUCCESS);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    accesses(win, created, size);
    MPI_Win_free(&win);
    CHECK(error_class(MPI_Win_create_c(created, sizeof created, 0, MPI_INFO_NULL, MPI_COMM_WORLD,
                                       &win)) == MPI_ERR_DISP);

    /* a unit of 2^32 bytes: displacement 0 is the base, 1 is beyond any window */
    MPI_Aint big = (MPI_Aint)1 << 32, qsize, qunit;
    int iunit, value = 100 + rank, got = -1;
    CHECK(MPI_Win_allocate_shared_c(sizeof(int), big, MPI_INFO_NULL, MPI_COMM_WORLD, &shared,
                                    &win) == MPI_SUCCESS);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int *theirs = NULL;
    CHECK(MPI_Win_shared_query_c(win, (rank + 1) % size, &qsize, &qunit, &theirs) ==
          MPI_SUCCESS);
    CHECK(qsize == sizeof(int) && qunit == big);
    CHECK(MPI_Win_shared_query(win, (rank + 1) % size, &qsize, &iunit, &theirs) == MPI_SUCCESS);
    CHECK(iunit == MPI_UNDEFINED);
    CHECK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &attr, &flag) == MPI_SUCCESS && flag &&
          *attr == MPI_UNDEFINED);
    MPI_Win_fence(0, win);
    CHECK(MPI_Put_c(&value, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win) == MPI_SUCCESS);
    CHECK(error_class(MPI_Put_c(&value, 1, MPI_INT, (rank + 1) % size, 1, 1, MPI_INT, win)) ==
          MPI_ERR_RMA_RANGE);
    MPI_Win_fence(0, win);
    CHECK(*shared == 100 + (rank + size - 1) % size);
    CHECK(MPI_Get_c(&got, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win) == MPI_SUCCESS);
    MPI_Win_fence(0, win);
    CHECK(got == 100 + rank && theirs != NULL && *theirs == got);
    MPI_Win_free(&win);

    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all == 0 ? "rma_large_count: ok\n" : "rma_large_count: %d errors\n", all);
    MPI_Finalize();
    return all != 0;
}
