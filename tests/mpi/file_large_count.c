/* The large-count forms (MPI-4.0) of the MPI-IO data-access calls, on files under a fresh
 * directory of $TMPDIR that rank 0 names and broadcasts:
 *   - every _c access moves the right bytes: for each kind of access (explicit offset, the
 *     individual pointer, the shared pointer, ordered; blocking, collective, non-blocking,
 *     split collective) each rank writes a block of N ints with its _c write, another rank
 *     checks the block with POSIX pread, and its _c read reads a block back; every status gives
 *     N through MPI_Get_count_c and MPI_Get_elements_c, and the individual pointer has moved
 *     past the block;
 *   - 3e9 elements of an empty type (a contiguous type of 0 ints) go through every _c call:
 *     MPI_SUCCESS, a count of 0, nothing read or written, no pointer moved;
 *   - a negative count is MPI_ERR_COUNT, and so is a count whose bytes overflow (INT64_MAX / 2
 *     ints, INT64_MAX doubles; in the int forms, 2^24 elements of a type of 2^40 bytes);
 *   - MPI_File_get_type_extent_c gives what MPI_File_get_type_extent gives, in a "native" view
 *     and in an "external32" one, where a long is 4 bytes: there MPI_File_write_at_c and
 *     MPI_File_read_at_c convert longs.
 * Usage: file_large_count (any number of ranks). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FILE_TEST "file_large_count"
#include "file_test.h"

enum { N = 40 };
static const MPI_Offset BLOCK = N * sizeof(int);
static const MPI_Count EMPTY_COUNT = INT64_C(3000000000); /* beyond an int */

/* The kinds of access: each a _c write and its _c read. */
typedef enum kind {
    AT,
    AT_ALL,
    IAT,
    IAT_ALL,
    AT_SPLIT,
    IND,
    IND_ALL,
    IIND,
    IIND_ALL,
    IND_SPLIT,
    SHARED,
    ISHARED,
    ORDERED,
    ORDERED_SPLIT,
    KINDS
} kind_t;

static const char *const kind_name[KINDS] = {
    "MPI_File_write_at_c, read_at_c",
    "MPI_File_write_at_all_c, read_at_all_c",
    "MPI_File_iwrite_at_c, iread_at_c",
    "MPI_File_iwrite_at_all_c, iread_at_all_c",
    "MPI_File_write_at_all_begin_c, read_at_all_begin_c",
    "MPI_File_write_c, read_c",
    "MPI_File_write_all_c, read_all_c",
    "MPI_File_iwrite_c, iread_c",
    "MPI_File_iwrite_all_c, iread_all_c",
    "MPI_File_write_all_begin_c, read_all_begin_c",
    "MPI_File_write_shared_c, read_shared_c",
    "MPI_File_iwrite_shared_c, iread_shared_c",
    "MPI_File_write_ordered_c, read_ordered_c",
    "MPI_File_write_ordered_begin_c, read_ordered_begin_c",
};

static int individual(kind_t k)
{
    return k >= IND && k <= IND_SPLIT;
}

/* The checks of one kind: its name in the message. */
#define CHECK_K(k, cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, FILE_TEST ": rank %d, line %d, %s: %s\n", rank, __LINE__,              \
                    kind_name[k], #cond);                                                          \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

static int class_of(int code)
{
    int class = -1;
    MPI_Error_class(code, &class);
    return class;
}

/* Kind k's _c write (write 1) or read of (buf, count, type), completed: at byte `at` for an
 * explicit offset or the individual pointer (set there first), at the shared pointer otherwise.
 * The access call's code; its MPI_Wait or _end is called only when it succeeded. *st is given
 * a count of 7 bytes first, which the access must replace. */
static int access_c(MPI_File fh, kind_t k, int write, MPI_Offset at, void *buf, MPI_Count count,
                    MPI_Datatype type, MPI_Status *st)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_ERR_OTHER, pending = 0, split = 0;

    MPI_Status_set_elements_c(st, MPI_BYTE, 7);
    if (individual(k))
        MUST(MPI_File_seek(fh, at, MPI_SEEK_SET));
    switch (k) {
    case AT:
        rc = write ? MPI_File_write_at_c(fh, at, buf, count, type, st)
                   : MPI_File_read_at_c(fh, at, buf, count, type, st);
        break;
    case AT_ALL:
        rc = write ? MPI_File_write_at_all_c(fh, at, buf, count, type, st)
                   : MPI_File_read_at_all_c(fh, at, buf, count, type, st);
        break;
    case IAT:
        rc = write ? MPI_File_iwrite_at_c(fh, at, buf, count, type, &req)
                   : MPI_File_iread_at_c(fh, at, buf, count, type, &req);
        pending = 1;
        break;
    case IAT_ALL:
        rc = write ? MPI_File_iwrite_at_all_c(fh, at, buf, count, type, &req)
                   : MPI_File_iread_at_all_c(fh, at, buf, count, type, &req);
        pending = 1;
        break;
    case AT_SPLIT:
        rc = write ? MPI_File_write_at_all_begin_c(fh, at, buf, count, type)
                   : MPI_File_read_at_all_begin_c(fh, at, buf, count, type);
        split = 1;
        break;
    case IND:
        rc = write ? MPI_File_write_c(fh, buf, count, type, st)
                   : MPI_File_read_c(fh, buf, count, type, st);
        break;
    case IND_ALL:
        rc = write ? MPI_File_write_all_c(fh, buf, count, type, st)
                   : MPI_File_read_all_c(fh, buf, count, type, st);
        break;
    case IIND:
        rc = write ? MPI_File_iwrite_c(fh, buf, count, type, &req)
                   : MPI_File_iread_c(fh, buf, count, type, &req);
        pending = 1;
        break;
    case IIND_ALL:
        rc = write ? MPI_File_iwrite_all_c(fh, buf, count, type, &req)
                   : MPI_File_iread_all_c(fh, buf, count, type, &req);
        pending = 1;
        break;
    case IND_SPLIT:
        rc = write ? MPI_File_write_all_begin_c(fh, buf, count, type)
                   : MPI_File_read_all_begin_c(fh, buf, count, type);
        split = 1;
        break;
    case SHARED:
        rc = write ? MPI_File_write_shared_c(fh, buf, count, type, st)
                   : MPI_File_read_shared_c(fh, buf, count, type, st);
        break;
    case ISHARED:
        rc = write ? MPI_File_iwrite_shared_c(fh, buf, count, type, &req)
                   : MPI_File_iread_shared_c(fh, buf, count, type, &req);
        pending = 1;
        break;
    case ORDERED:
        rc = write ? MPI_File_write_ordered_c(fh, buf, count, type, st)
                   : MPI_File_read_ordered_c(fh, buf, count, type, st);
        break;
    case ORDERED_SPLIT:
        rc = write ? MPI_File_write_ordered_begin_c(fh, buf, count, type)
                   : MPI_File_read_ordered_begin_c(fh, buf, count, type);
        split = 1;
        break;
    case KINDS:
        break;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    if (pending)
        MUST(MPI_Wait(&req, st));
    if (split && k == AT_SPLIT)
        MUST(write ? MPI_File_write_at_all_end(fh, buf, st)
                   : MPI_File_read_at_all_end(fh, buf, st));
    else if (split && k == IND_SPLIT)
        MUST(write ? MPI_File_write_all_end(fh, buf, st) : MPI_File_read_all_end(fh, buf, st));
    else if (split)
        MUST(write ? MPI_File_write_ordered_end(fh, buf, st)
                   : MPI_File_read_ordered_end(fh, buf, st));
    return rc;
}

static int value(kind_t k, int r, int i)
{
    return (int)k * 1000000 + r * 1000 + i + 1;
}

static void fill(int *buf, kind_t k, int r)
{
    for (int i = 0; i < N; i++)
        buf[i] = value(k, r, i);
}

/* The writer of block `got` of kind k (every value its own), or -1. */
static int writer_of(const int *got, kind_t k)
{
    int r = (got[0] - (int)k * 1000000 - 1) / 1000;
    if (r < 0 || r >= size)
        return -1;
    for (int i = 0; i < N; i++)
        if (got[i] != value(k, r, i))
            return -1;
    return r;
}

/* The status of an access of n ints. */
static void counted(MPI_Status *st, kind_t k, MPI_Count n, int line)
{
    MPI_Count c = -1, e = -1;
    MUST(MPI_Get_count_c(st, MPI_INT, &c));
    MUST(MPI_Get_elements_c(st, MPI_INT, &e));
    if (c != n || e != n) {
        fprintf(stderr, FILE_TEST ": rank %d, line %d, %s: count %lld, elements %lld, not %lld\n",
                rank, line, kind_name[k], (long long)c, (long long)e, (long long)n);
        errors++;
    }
}

static void check_position(MPI_File fh, kind_t k, MPI_Offset want, int line)
{
    MPI_Offset pos = -1;
    MUST(MPI_File_get_position(fh, &pos));
    if (pos != want) {
        fprintf(stderr, FILE_TEST ": rank %d, line %d, %s: the pointer is at %lld, not %lld\n",
                rank, line, kind_name[k], (long long)pos, (long long)want);
        errors++;
    }
}

/* Every rank once among the writers of the blocks `w` (one per rank). */
static int each_once(const int *w)
{
    int seen[size];
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < size; i++) {
        if (w[i] < 0 || w[i] >= size || seen[w[i]])
            return 0;
        seen[w[i]] = 1;
    }
    return 1;
}

/* Kind k's write and read of blocks in region k of the file: the region holds one block per
 * rank, at the rank's place (the shared kinds: at whatever place the shared pointer gave). */
static void test_data(MPI_File fh, const char *p, kind_t k)
{
    MPI_Offset region = (MPI_Offset)k * size * BLOCK, mine = region + rank * BLOCK;
    int next = (rank + 1) % size, shared = k == SHARED || k == ISHARED;
    int out[N], in[N], w[size];
    MPI_Status st;

    fill(out, k, rank);
    if (k >= SHARED)
        MUST(MPI_File_seek_shared(fh, region, MPI_SEEK_SET));
    CHECK_K(k, access_c(fh, k, 1, mine, out, N, MPI_INT, &st) == MPI_SUCCESS);
    counted(&st, k, N, __LINE__);
    if (individual(k))
        check_position(fh, k, mine + BLOCK, __LINE__);
    settle(fh);

    /* The file as POSIX sees it: the next rank's block, or every rank's once. */
    if (shared) {
        int *all = malloc((size_t)size * BLOCK);
        CHECK_K(k, posix_read(p, region, all, (size_t)size * BLOCK) == size * BLOCK);
        for (int i = 0; i < size; i++)
            w[i] = writer_of(all + i * N, k);
        CHECK_K(k, each_once(w));
        free(all);
    } else {
        memset(in, 0, sizeof in);
        CHECK_K(k, posix_read(p, region + next * BLOCK, in, BLOCK) == BLOCK);
        CHECK_K(k, writer_of(in, k) == next);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Read back: the next rank's block; ordered, the rank's own; shared, one block each. */
    if (k >= SHARED)
        MUST(MPI_File_seek_shared(fh, region, MPI_SEEK_SET));
    memset(in, 0, sizeof in);
    MPI_Offset theirs = region + next * BLOCK;
    CHECK_K(k, access_c(fh, k, 0, theirs, in, N, MPI_INT, &st) == MPI_SUCCESS);
    counted(&st, k, N, __LINE__);
    if (individual(k))
        check_position(fh, k, theirs + BLOCK, __LINE__);
    int got = writer_of(in, k);
    if (shared) {
        MPI_Allgather(&got, 1, MPI_INT, w, 1, MPI_INT, MPI_COMM_WORLD);
        CHECK_K(k, each_once(w));
    } else {
        CHECK_K(k, got == (k >= ORDERED ? rank : next));
    }
    MPI_Barrier(MPI_COMM_WORLD); /* done with the shared pointer before the next kind sets it */
}

/* EMPTY_COUNT elements of an empty type through every _c call: nothing moves. */
static void test_empty(MPI_File fh)
{
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    MPI_Offset before = -1, after = -1, shared_at = 3 * BLOCK, pos = -1;
    MUST(MPI_File_get_size(fh, &before));
    MUST(MPI_File_seek_shared(fh, shared_at, MPI_SEEK_SET));
    int buf[4] = {-7, -7, -7, -7};

    for (kind_t k = 0; k < KINDS; k++)
        for (int write = 1; write >= 0; write--) {
            MPI_Status st;
            MPI_Count c = -1;
            CHECK_K(k,
                    access_c(fh, k, write, 5 * BLOCK, buf, EMPTY_COUNT, empty, &st) == MPI_SUCCESS);
            CHECK_K(k, MPI_Get_count_c(&st, MPI_BYTE, &c) == MPI_SUCCESS && c == 0);
            CHECK_K(k, MPI_Get_count_c(&st, empty, &c) == MPI_SUCCESS && c == 0);
            if (individual(k))
                check_position(fh, k, 5 * BLOCK, __LINE__);
            CHECK_K(k, buf[0] == -7 && buf[3] == -7);
        }
    MUST(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == shared_at);
    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_get_size(fh, &after));
    CHECK(after == before);
    MPI_Type_free(&empty);
}

/* Negative counts, and counts whose bytes overflow, in every _c call; overflowing counts in
 * some int forms. Every rank fails alike, so the collective calls fail before any exchange. */
static void test_errors(MPI_File fh)
{
    int buf[N] = {0};
    MPI_Offset before = -1, after = -1;
    MUST(MPI_File_get_size(fh, &before));

    for (kind_t k = 0; k < KINDS; k++)
        for (int write = 1; write >= 0; write--) {
            MPI_Status st;
            CHECK_K(k, class_of(access_c(fh, k, write, 0, buf, -1, MPI_INT, &st)) == MPI_ERR_COUNT);
            CHECK_K(k, class_of(access_c(fh, k, write, 0, buf, INT64_MAX / 2, MPI_INT, &st)) ==
                           MPI_ERR_COUNT);
            CHECK_K(k, class_of(access_c(fh, k, write, 0, buf, INT64_MAX, MPI_DOUBLE, &st)) ==
                           MPI_ERR_COUNT);
            if (individual(k))
                check_position(fh, k, 0, __LINE__);
        }

    /* 2^24 elements of 2^40 bytes: 2^64 bytes, through an int count */
    MPI_Datatype huge;
    MUST(MPI_Type_contiguous_c(INT64_C(1) << 40, MPI_BYTE, &huge));
    MUST(MPI_Type_commit(&huge));
    MPI_Status st;
    MPI_Request req = MPI_REQUEST_NULL;
    CHECK(class_of(MPI_File_write_at(fh, 0, buf, 1 << 24, huge, &st)) == MPI_ERR_COUNT);
    CHECK(class_of(MPI_File_read(fh, buf, 1 << 24, huge, &st)) == MPI_ERR_COUNT);
    CHECK(class_of(MPI_File_iwrite_shared(fh, buf, 1 << 24, huge, &req)) == MPI_ERR_COUNT);
    CHECK(class_of(MPI_File_read_ordered(fh, buf, 1 << 24, huge, &st)) == MPI_ERR_COUNT);
    CHECK(class_of(MPI_File_write_at_c(fh, 0, buf, INT64_C(1) << 23, huge, &st)) == MPI_ERR_COUNT);
    CHECK(req == MPI_REQUEST_NULL);
    MPI_Type_free(&huge);

    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_get_size(fh, &after));
    CHECK(after == before);
}

/* MPI_File_get_type_extent_c against MPI_File_get_type_extent in fh's view: the same, and
 * `want`. */
static void same_extent(MPI_File fh, MPI_Datatype t, MPI_Count want, int line)
{
    MPI_Aint a = -1;
    MPI_Count c = -1;
    MUST(MPI_File_get_type_extent(fh, t, &a));
    MUST(MPI_File_get_type_extent_c(fh, t, &c));
    if (a != c || c != want) {
        fprintf(stderr, FILE_TEST ": rank %d, line %d: extents %ld and %lld, not %lld\n", rank,
                line, (long)a, (long long)c, (long long)want);
        errors++;
    }
}

/* Extents in "native" and "external32" views; longs through an "external32" view. */
static void test_external32(const char *p)
{
    MPI_File fh = create(p);
    MPI_Datatype dvec, lvec;
    MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &dvec); /* 12 doubles from first to last */
    MPI_Type_vector(1, 2, 2, MPI_LONG, &lvec);
    MPI_Type_commit(&dvec);
    MPI_Type_commit(&lvec);

    same_extent(fh, MPI_INT, sizeof(int), __LINE__);
    same_extent(fh, MPI_LONG, sizeof(long), __LINE__);
    same_extent(fh, dvec, 12 * sizeof(double), __LINE__);
    same_extent(fh, lvec, 2 * sizeof(long), __LINE__);
    CHECK(class_of(MPI_File_get_type_extent_c(fh, MPI_INT, NULL)) == MPI_ERR_ARG);
    CHECK(class_of(MPI_File_get_type_extent_c(fh, MPI_DATATYPE_NULL, &(MPI_Count){0})) ==
          MPI_ERR_TYPE);

    MUST(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
    same_extent(fh, MPI_INT, 4, __LINE__);
    same_extent(fh, MPI_LONG, 4, __LINE__);
    same_extent(fh, dvec, 12 * 8, __LINE__);
    same_extent(fh, lvec, 8, __LINE__);

    /* Each rank's 2 longs, as 4 big-endian bytes each at 8 * rank */
    long two[2] = {(long)rank * 1000 + 5, -((long)rank * 1000 + 6)}, back[2] = {0, 0};
    MPI_Status st;
    MPI_Count c = -1;
    int next = (rank + 1) % size;
    MUST(MPI_File_write_at_c(fh, (MPI_Offset)rank * 8, two, 2, MPI_LONG, &st));
    CHECK(MPI_Get_count_c(&st, MPI_LONG, &c) == MPI_SUCCESS && c == 2);
    settle(fh);
    unsigned char got[8] = {0};
    CHECK(posix_read(p, (long)next * 8, got, 8) == 8);
    for (int j = 0; j < 2; j++) {
        int32_t v = (int32_t)(j == 0 ? next * 1000 + 5 : -(next * 1000 + 6));
        uint32_t u = (uint32_t)v;
        unsigned char be[4] = {(unsigned char)(u >> 24), (unsigned char)(u >> 16),
                               (unsigned char)(u >> 8), (unsigned char)u};
        SAME(got + 4 * j, be, 4);
    }
    MUST(MPI_File_read_at_c(fh, (MPI_Offset)next * 8, back, 2, MPI_LONG, &st));
    CHECK(back[0] == (long)next * 1000 + 5 && back[1] == -((long)next * 1000 + 6));
    CHECK(MPI_Get_count_c(&st, MPI_LONG, &c) == MPI_SUCCESS && c == 2);
    CHECK(MPI_Get_elements_c(&st, MPI_LONG, &c) == MPI_SUCCESS && c == 2);

    MPI_Type_free(&dvec);
    MPI_Type_free(&lvec);
    MUST(MPI_File_close(&fh));
    delete_file(p);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_dir();

    char p[PATHLEN + 32];
    path(p, "data");
    MPI_File fh = create(p);
    for (kind_t k = 0; k < KINDS; k++)
        test_data(fh, p, k);
    CHECK(posix_size(p) == (long)KINDS * size * BLOCK);
    test_empty(fh);
    test_errors(fh);
    MUST(MPI_File_close(&fh));
    delete_file(p);

    path(p, "external32");
    test_external32(p);

    /* Every file deleted: the directory is empty. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && rmdir(dir) != 0) {
        fprintf(stderr, FILE_TEST ": rmdir %s: %s\n", dir, strerror(errno));
        errors++;
    }
    int all_errors;
    MPI_Allreduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(FILE_TEST ": %s\n", all_errors ? "FAILED" : "ok");
    MPI_Finalize();
    return all_errors ? 1 : 0;
}
