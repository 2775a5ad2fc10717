/* Nonblocking and split collective data access (MPI-3.1 13.4.2-13.4.5), on files under a fresh
 * directory of $TMPDIR that rank 0 names and broadcasts:
 *   - MPI_File_iwrite_at completed by MPI_Wait (the request freed, the status's count), then
 *     MPI_File_iread_at of the next rank's block completed by an MPI_Test loop;
 *   - MPI_File_iwrite / _iread: the individual pointer has moved when the call returns, before
 *     the wait;
 *   - MPI_Waitall over file requests mixed with MPI_Isend / MPI_Irecv (each status checked);
 *   - MPI_File_iwrite_shared / _iread_shared: every rank's chunk once in the file, every chunk
 *     read back by exactly one rank;
 *   - the MPI-3.1 nonblocking collectives MPI_File_iwrite_at_all / _iwrite_all (both
 *     outstanding at once) / _iread_at_all / _iread_all;
 *   - the split collectives MPI_File_write_at_all_begin / _end, _write_all_begin / _end,
 *     _read_at_all_begin / _end, _read_all_begin / _end (the status of the _end).
 * What is written is checked with POSIX pread by another rank than its writer, and what is read
 * against the values its writer wrote. Usage: file_nonblocking (any number of ranks). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FILE_TEST "file_nonblocking"
#include "file_test.h"

static void check_position(MPI_File fh, MPI_Offset want, int line)
{
    MPI_Offset pos = -1;
    MUST(MPI_File_get_position(fh, &pos));
    if (pos != want) {
        fprintf(stderr,
                "file_nonblocking: rank %d, line %d: the pointer is at %lld, expected "
                "%lld\n",
                rank, line, (long long)pos, (long long)want);
        errors++;
    }
}

/* Each rank's blocks of N ints; section s's values. */
enum { N = 48 };
static const MPI_Offset BLOCK = N * sizeof(int);

static void fill(int *buf, int s, int r)
{
    for (int i = 0; i < N; i++)
        buf[i] = s * 1000000 + r * 1000 + i + 1;
}

static void wait_for(MPI_Request *req, MPI_Status *st, int line)
{
    MUST(MPI_Wait(req, st));
    if (*req != MPI_REQUEST_NULL) {
        fprintf(stderr,
                "file_nonblocking: rank %d, line %d: the request is not freed by the "
                "wait\n",
                rank, line);
        errors++;
    }
}

static void test_loop(MPI_Request *req, MPI_Status *st, int line)
{
    int flag = 0;
    long tries = 0;
    while (!flag) {
        MUST(MPI_Test(req, &flag, st));
        tries++;
    }
    if (*req != MPI_REQUEST_NULL) {
        fprintf(stderr,
                "file_nonblocking: rank %d, line %d: the request is not freed by the "
                "test (after %ld)\n",
                rank, line, tries);
        errors++;
    }
}

/* The previous rank's block at `off` holds its values of section s: POSIX says so. */
static void check_prev_block(const char *p, long off, int s, int line)
{
    int prev = (rank + size - 1) % size, got[N], want[N];
    memset(got, 0, sizeof got);
    fill(want, s, prev);
    long n = posix_read(p, off, got, sizeof got);
    if (n != (long)sizeof got) {
        fprintf(stderr, "file_nonblocking: rank %d, line %d: POSIX read %ld bytes at %ld\n", rank,
                line, n, off);
        errors++;
    }
    same(got, want, sizeof got, "the previous rank's block", line);
}

/* Explicit offsets and the individual pointer, with Wait, Test and a mixed Waitall. */
static void test_independent(void)
{
    char p[PATHLEN + 32];
    path(p, "independent");
    MPI_File fh = create(p);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int buf[N], got[N], want[N];
    MPI_Request req;
    MPI_Status st;
    const MPI_Offset region = size * BLOCK; /* 3 regions of a block per rank */

    /* Region 0: iwrite_at + MPI_Wait, then the next rank's block by iread_at + MPI_Test. */
    fill(buf, 1, rank);
    MUST(MPI_File_iwrite_at(fh, rank * BLOCK, buf, N, MPI_INT, &req));
    wait_for(&req, &st, __LINE__);
    CHECK(count_of(&st, MPI_INT) == N);
    settle(fh);
    memset(got, 0xff, sizeof got);
    MUST(MPI_File_iread_at(fh, next * BLOCK, got, N, MPI_INT, &req));
    test_loop(&req, &st, __LINE__);
    CHECK(count_of(&st, MPI_INT) == N);
    fill(want, 1, next);
    SAME(got, want, sizeof got);
    check_position(fh, 0, __LINE__); /* explicit offsets leave the pointer */

    /* Region 1: iwrite moves the pointer at the call, as does iread. */
    fill(buf, 2, rank);
    MUST(MPI_File_seek(fh, region + rank * BLOCK, MPI_SEEK_SET));
    MUST(MPI_File_iwrite(fh, buf, N, MPI_INT, &req));
    check_position(fh, region + (rank + 1) * BLOCK, __LINE__);
    wait_for(&req, &st, __LINE__);
    CHECK(count_of(&st, MPI_INT) == N);
    check_position(fh, region + (rank + 1) * BLOCK, __LINE__);
    settle(fh);
    memset(got, 0xff, sizeof got);
    MUST(MPI_File_seek(fh, region + next * BLOCK, MPI_SEEK_SET));
    MUST(MPI_File_iread(fh, got, N / 2, MPI_INT, &req));
    check_position(fh, region + next * BLOCK + BLOCK / 2, __LINE__);
    test_loop(&req, &st, __LINE__);
    CHECK(count_of(&st, MPI_INT) == N / 2);
    /* Two reads outstanding at once, each at its own place: the pointer moved by both. */
    MPI_Request two[2];
    MUST(MPI_File_iread(fh, got + N / 2, N / 4, MPI_INT, &two[0]));
    MUST(MPI_File_iread(fh, got + N / 2 + N / 4, N - N / 2 - N / 4, MPI_INT, &two[1]));
    check_position(fh, region + (next + 1) * BLOCK, __LINE__);
    MPI_Status sts[2];
    MUST(MPI_Waitall(2, two, sts));
    CHECK(count_of(&sts[0], MPI_INT) == N / 4);
    CHECK(count_of(&sts[1], MPI_INT) == N - N / 2 - N / 4);
    fill(want, 2, next);
    SAME(got, want, sizeof got);

    /* Region 2: a file write, a send to the next rank and a receive from the previous one. */
    MPI_Request q[3];
    MPI_Status qs[3];
    int msg = 7000 + rank, in = -1;
    fill(buf, 3, rank);
    MUST(MPI_File_iwrite_at(fh, 2 * region + rank * BLOCK, buf, N, MPI_INT, &q[0]));
    MUST(MPI_Irecv(&in, 1, MPI_INT, prev, 11, MPI_COMM_WORLD, &q[1]));
    MUST(MPI_Isend(&msg, 1, MPI_INT, next, 11, MPI_COMM_WORLD, &q[2]));
    MUST(MPI_Waitall(3, q, qs));
    CHECK(q[0] == MPI_REQUEST_NULL && q[1] == MPI_REQUEST_NULL && q[2] == MPI_REQUEST_NULL);
    CHECK(count_of(&qs[0], MPI_INT) == N);
    CHECK(count_of(&qs[1], MPI_INT) == 1);
    CHECK(qs[1].MPI_SOURCE == prev && qs[1].MPI_TAG == 11);
    CHECK(in == 7000 + prev);
    settle(fh);
    /* ... and back: a file read of the next rank's block with the messages the other way. */
    memset(got, 0xff, sizeof got);
    in = -1;
    MUST(MPI_Isend(&msg, 1, MPI_INT, prev, 12, MPI_COMM_WORLD, &q[0]));
    MUST(MPI_File_iread_at(fh, 2 * region + next * BLOCK, got, N, MPI_INT, &q[1]));
    MUST(MPI_Irecv(&in, 1, MPI_INT, next, 12, MPI_COMM_WORLD, &q[2]));
    MUST(MPI_Waitall(3, q, qs));
    CHECK(count_of(&qs[1], MPI_INT) == N);
    CHECK(count_of(&qs[2], MPI_INT) == 1);
    CHECK(qs[2].MPI_SOURCE == next && qs[2].MPI_TAG == 12);
    CHECK(in == 7000 + next);
    fill(want, 3, next);
    SAME(got, want, sizeof got);

    /* The previous rank's three blocks, through POSIX. */
    CHECK(posix_size(p) == 3 * (long)region);
    for (int s = 0; s < 3; s++)
        check_prev_block(p, (long)(s * region + prev * BLOCK), s + 1, __LINE__);
    MUST(MPI_File_close(&fh));
    delete_file(p);
}

/* iwrite_shared / iread_shared: chunks of C bytes, chunk of rank r: the int r, then its bytes. */
enum { C = 20 };

static void make_chunk(int r, unsigned char *out)
{
    memcpy(out, &r, sizeof r);
    for (int j = 4; j < C; j++)
        out[j] = (unsigned char)(r * 13 + j * 3 + 1);
}

static void test_shared(void)
{
    char p[PATHLEN + 32];
    path(p, "shared");
    MPI_File fh = create(p);
    unsigned char chunk[C], want[C];
    MPI_Request req;
    MPI_Status st;
    make_chunk(rank, chunk);
    MUST(MPI_File_iwrite_shared(fh, chunk, C, MPI_BYTE, &req));
    wait_for(&req, &st, __LINE__);
    CHECK(count_of(&st, MPI_BYTE) == C);
    settle(fh);

    /* Slot k of the file holds some rank's chunk, each rank's once. */
    CHECK(posix_size(p) == (long)size * C);
    int *seen = calloc((size_t)size, sizeof(int)), *all = calloc((size_t)size, sizeof(int));
    for (int k = 0; k < size; k++) {
        int r = -1;
        memset(chunk, 0, sizeof chunk);
        CHECK(posix_read(p, (long)k * C, chunk, C) == C);
        memcpy(&r, chunk, sizeof r);
        if (r < 0 || r >= size || seen[r]++) {
            fprintf(stderr, "file_nonblocking: rank %d: slot %d holds chunk %d\n", rank, k, r);
            errors++;
            continue;
        }
        make_chunk(r, want);
        SAME(chunk, want, C);
    }
    memset(seen, 0, (size_t)size * sizeof(int));
    MPI_Barrier(MPI_COMM_WORLD);

    /* Back to 0 (the barrier: every rank's pointer moved before anyone reads), one chunk each:
     * every chunk read once. */
    MUST(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    MPI_Barrier(MPI_COMM_WORLD);
    memset(chunk, 0xff, sizeof chunk);
    MUST(MPI_File_iread_shared(fh, chunk, C, MPI_BYTE, &req));
    test_loop(&req, &st, __LINE__);
    CHECK(count_of(&st, MPI_BYTE) == C);
    int r = -1;
    memcpy(&r, chunk, sizeof r);
    if (r >= 0 && r < size) {
        seen[r] = 1;
        make_chunk(r, want);
        SAME(chunk, want, C);
    } else {
        fprintf(stderr, "file_nonblocking: rank %d: iread_shared got chunk %d\n", rank, r);
        errors++;
    }
    MPI_Allreduce(seen, all, size, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; k < size; k++)
        CHECK(all[k] == 1);
    free(seen);
    free(all);
    MUST(MPI_File_close(&fh));
    delete_file(p);
}

/* MPI-3.1's nonblocking collectives: the first half of the file by explicit offsets, the second
 * by the individual pointers. */
static void test_icollective(void)
{
    char p[PATHLEN + 32];
    path(p, "icoll");
    MPI_File fh = create(p);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int a[N], b[N], got[N], want[N];
    MPI_Request q[2];
    MPI_Status qs[2], st;
    const MPI_Offset half = size * BLOCK;

    fill(a, 4, rank);
    fill(b, 5, rank);
    MUST(MPI_File_seek(fh, half + rank * BLOCK, MPI_SEEK_SET));
    MUST(MPI_File_iwrite_at_all(fh, rank * BLOCK, a, N, MPI_INT, &q[0]));
    MUST(MPI_File_iwrite_all(fh, b, N, MPI_INT, &q[1]));
    check_position(fh, half + (rank + 1) * BLOCK, __LINE__);
    MUST(MPI_Waitall(2, q, qs));
    CHECK(count_of(&qs[0], MPI_INT) == N);
    CHECK(count_of(&qs[1], MPI_INT) == N);
    settle(fh);

    memset(got, 0xff, sizeof got);
    MUST(MPI_File_iread_at_all(fh, next * BLOCK, got, N, MPI_INT, &q[0]));
    test_loop(&q[0], &st, __LINE__);
    CHECK(count_of(&st, MPI_INT) == N);
    fill(want, 4, next);
    SAME(got, want, sizeof got);
    memset(got, 0xff, sizeof got);
    MUST(MPI_File_seek(fh, half + next * BLOCK, MPI_SEEK_SET));
    MUST(MPI_File_iread_all(fh, got, N, MPI_INT, &q[1]));
    check_position(fh, half + (next + 1) * BLOCK, __LINE__);
    wait_for(&q[1], &st, __LINE__);
    CHECK(count_of(&st, MPI_INT) == N);
    fill(want, 5, next);
    SAME(got, want, sizeof got);

    CHECK(posix_size(p) == 2 * (long)half);
    check_prev_block(p, (long)(prev * BLOCK), 4, __LINE__);
    check_prev_block(p, (long)(half + prev * BLOCK), 5, __LINE__);
    MUST(MPI_File_close(&fh));
    delete_file(p);
}

/* Split collectives, the same layout. */
static void test_split(void)
{
    char p[PATHLEN + 32];
    path(p, "split");
    MPI_File fh = create(p);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int a[N], b[N], got[N], want[N];
    MPI_Status st;
    const MPI_Offset half = size * BLOCK;

    fill(a, 6, rank);
    MUST(MPI_File_write_at_all_begin(fh, rank * BLOCK, a, N, MPI_INT));
    MUST(MPI_File_write_at_all_end(fh, a, &st));
    CHECK(count_of(&st, MPI_INT) == N);
    fill(b, 7, rank);
    MUST(MPI_File_seek(fh, half + rank * BLOCK, MPI_SEEK_SET));
    MUST(MPI_File_write_all_begin(fh, b, N, MPI_INT));
    MUST(MPI_File_write_all_end(fh, b, &st));
    CHECK(count_of(&st, MPI_INT) == N);
    check_position(fh, half + (rank + 1) * BLOCK, __LINE__);
    settle(fh);

    memset(got, 0xff, sizeof got);
    MUST(MPI_File_read_at_all_begin(fh, next * BLOCK, got, N, MPI_INT));
    MUST(MPI_File_read_at_all_end(fh, got, &st));
    CHECK(count_of(&st, MPI_INT) == N);
    fill(want, 6, next);
    SAME(got, want, sizeof got);
    memset(got, 0xff, sizeof got);
    MUST(MPI_File_seek(fh, half + next * BLOCK, MPI_SEEK_SET));
    MUST(MPI_File_read_all_begin(fh, got, N, MPI_INT));
    MUST(MPI_File_read_all_end(fh, got, &st));
    CHECK(count_of(&st, MPI_INT) == N);
    fill(want, 7, next);
    SAME(got, want, sizeof got);
    check_position(fh, half + (next + 1) * BLOCK, __LINE__);

    CHECK(posix_size(p) == 2 * (long)half);
    check_prev_block(p, (long)(prev * BLOCK), 6, __LINE__);
    check_prev_block(p, (long)(half + prev * BLOCK), 7, __LINE__);
    MUST(MPI_File_close(&fh));
    delete_file(p);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_dir();

    test_independent();
    test_shared();
    test_icollective();
    test_split();

    /* Every file deleted: the directory is empty. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && rmdir(dir) != 0) {
        fprintf(stderr, "file_nonblocking: rmdir %s: %s\n", dir, strerror(errno));
        errors++;
    }
    int all_errors;
    MPI_Allreduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("file_nonblocking: %s\n", all_errors ? "FAILED" : "ok");
    MPI_Finalize();
    return all_errors ? 1 : 0;
}
