/* Shared-memory windows (MPI-3.1 section 11.2.3): MPI_Win_allocate_shared on MPI_COMM_WORLD,
 * with sizes that differ between ranks (some 0) and disp_units that differ (1 or 4), then on
 * the communicator of MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): equal sizes, equal sizes with
 * the info alloc_shared_noncontig=true, and sizes that differ with that info. A query
 * (MPI_Win_shared_query) of each rank gives its size, disp_unit and address (the caller's own
 * is the one allocated); without the info the segments are contiguous in rank order (each
 * starts where the previous non-empty one ends); a query of MPI_PROC_NULL gives the first rank
 * with a non-empty segment. Every rank stores to its own segment with plain stores and, after
 * MPI_Win_sync, a barrier and MPI_Win_sync (inside MPI_Win_lock_all), loads every other rank's
 * segment through the addresses queried; a put into a neighbour's segment is then loaded there.
 * The predefined attributes of the window. Last, MPI_Win_shared_query on windows of
 * MPI_Win_allocate and MPI_Win_create fails with MPI_ERR_RMA_FLAVOR under MPI_ERRORS_RETURN. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rma_shared: rank %d, line %d: %s\n", rank, __LINE__, #cond);          \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

static int error_class(int code)
{
    int class;
    MPI_Error_class(code, &class);
    return class;
}

/* The size in bytes and the disp_unit of rank r's segment, of n ranks. With vary, every third
 * rank's segment is empty (rank 0's too, unless it is alone). */
static MPI_Aint seg_size(int r, int n, int vary)
{
    if (!vary)
        return 256;
    if (r % 3 == 0 && n > 1)
        return 0;
    return (r + 1) * 24;
}
static int seg_unit(int r)
{
    return r % 2 ? 1 : (int)sizeof(int);
}

/* The byte stored at i of rank r's segment. */
static unsigned char byte(int r, MPI_Aint i)
{
    return (unsigned char)(r * 37 + i * 11 + 1);
}

static void test_shared(MPI_Comm comm, int vary, int noncontig)
{
    int srank, n;
    MPI_Comm_rank(comm, &srank);
    MPI_Comm_size(comm, &n);
    MPI_Info info = MPI_INFO_NULL;
    if (noncontig) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
    }
    MPI_Aint mysize = seg_size(srank, n, vary);
    int myunit = seg_unit(srank);
    unsigned char *mine = NULL;
    MPI_Win win;
    CHECK(MPI_Win_allocate_shared(mysize, myunit, info, comm, &mine, &win) == MPI_SUCCESS);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);

    void *b = NULL;
    MPI_Aint *sz = NULL;
    int *du = NULL, *fl = NULL, *model = NULL, flag = 0;
    CHECK(MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &flag) == MPI_SUCCESS && flag);
    CHECK(mysize == 0 || b == mine);
    CHECK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag) == MPI_SUCCESS && flag);
    CHECK(sz && *sz == mysize);
    CHECK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag) == MPI_SUCCESS && flag);
    CHECK(du && *du == myunit);
    CHECK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag) == MPI_SUCCESS && flag);
    CHECK(fl && *fl == MPI_WIN_FLAVOR_SHARED);
    CHECK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag) == MPI_SUCCESS && flag);
    CHECK(model && *model == MPI_WIN_UNIFIED);

    /* Every rank's segment. */
    unsigned char **base = malloc(n * sizeof *base);
    int first = -1;
    for (int r = 0; r < n; r++) {
        MPI_Aint qsize = -1;
        int qunit = -1;
        base[r] = NULL;
        CHECK(MPI_Win_shared_query(win, r, &qsize, &qunit, &base[r]) == MPI_SUCCESS);
        CHECK(qsize == seg_size(r, n, vary) && qunit == seg_unit(r));
        if (qsize > 0) {
            CHECK(base[r] != NULL);
            if (first < 0)
                first = r;
        }
    }
    CHECK(mysize == 0 || base[srank] == mine);
    if (!noncontig) {
        /* Each non-empty segment starts where the previous non-empty one ends. */
        int prev = -1;
        for (int r = 0; r < n; r++) {
            if (seg_size(r, n, vary) == 0)
                continue;
            if (prev >= 0)
                CHECK(base[r] == base[prev] + seg_size(prev, n, vary));
            prev = r;
        }
    }
    if (first >= 0) {
        MPI_Aint qsize = -1;
        int qunit = -1;
        unsigned char *qbase = NULL;
        CHECK(MPI_Win_shared_query(win, MPI_PROC_NULL, &qsize, &qunit, &qbase) == MPI_SUCCESS);
        CHECK(qsize == seg_size(first, n, vary) && qunit == seg_unit(first));
        CHECK(qbase == base[first]);
    }

    /* Stores into the own segment, loads from the others'. */
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
    for (MPI_Aint i = 0; i < mysize; i++)
        mine[i] = byte(srank, i);
    CHECK(MPI_Win_sync(win) == MPI_SUCCESS);
    MPI_Barrier(comm);
    CHECK(MPI_Win_sync(win) == MPI_SUCCESS);
    for (int r = 0; r < n; r++)
        for (MPI_Aint i = 0; i < seg_size(r, n, vary); i++)
            if (base[r][i] != byte(r, i)) {
                CHECK(base[r][i] == byte(r, i));
                break;
            }
    MPI_Barrier(comm);

    /* A put of 4 bytes to the start of the next non-empty segment after the own one (from the
     * ranks whose segment is not empty), then loads there. */
    int next = -1, prev = -1;
    if (mysize > 0) {
        for (int k = 1; k <= n; k++)
            if (seg_size((srank + k) % n, n, vary) > 0) {
                next = (srank + k) % n;
                break;
            }
        for (int k = 1; k <= n; k++)
            if (seg_size((srank + n - k) % n, n, vary) > 0) {
                prev = (srank + n - k) % n;
                break;
            }
        unsigned char four[4] = {(unsigned char)srank, 0xAB, 0xCD, (unsigned char)(srank + 1)};
        CHECK(MPI_Put(four, 4, MPI_BYTE, next, 0, 4, MPI_BYTE, win) == MPI_SUCCESS);
        CHECK(MPI_Win_flush(next, win) == MPI_SUCCESS);
    }
    MPI_Barrier(comm);
    CHECK(MPI_Win_sync(win) == MPI_SUCCESS);
    if (mysize > 0) {
        CHECK(mine[0] == (unsigned char)prev && mine[1] == 0xAB && mine[2] == 0xCD);
        CHECK(mine[3] == (unsigned char)(prev + 1));
        for (MPI_Aint i = 4; i < mysize; i++)
            CHECK(mine[i] == byte(srank, i));
    }
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS && win == MPI_WIN_NULL);
    free(base);
}

/* MPI_Win_shared_query on a window that is not shared. */
static void test_flavor(void)
{
    int *mem = NULL;
    static int created[4];
    MPI_Win win[2];
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win[0]);
    MPI_Win_create(created, sizeof created, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win[1]);
    for (int k = 0; k < 2; k++) {
        CHECK(MPI_Win_set_errhandler(win[k], MPI_ERRORS_RETURN) == MPI_SUCCESS);
        MPI_Aint qsize;
        int qunit;
        void *qbase;
        int rc = MPI_Win_shared_query(win[k], 0, &qsize, &qunit, &qbase);
        CHECK(error_class(rc) == MPI_ERR_RMA_FLAVOR);
        CHECK(MPI_Win_free(&win[k]) == MPI_SUCCESS);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    test_shared(MPI_COMM_WORLD, 1, 0);
    MPI_Comm node;
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
          MPI_SUCCESS);
    test_shared(node, 0, 0);
    test_shared(node, 0, 1);
    test_shared(node, 1, 1);
    MPI_Comm_free(&node);
    test_flavor();

    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("rma_shared: ok\n");
    MPI_Finalize();
    return all ? 1 : 0;
}
