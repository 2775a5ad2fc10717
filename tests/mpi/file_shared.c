/* The shared file pointer (MPI-3.1 13.4.4), on files under a fresh directory of $TMPDIR that
 * rank 0 names and broadcasts:
 *   - MPI_File_write_shared from every rank, R records each, of different lengths, each one
 *     call: the file then holds exactly every record, each intact, none overlapping another,
 *     each rank's in its call order (the order between ranks is free), as every rank checks
 *     with POSIX pread; MPI_File_get_position_shared is the total on every rank;
 *   - MPI_File_seek_shared (collective) from MPI_SEEK_SET, _CUR and _END, and
 *     MPI_File_get_position_shared after each;
 *   - MPI_File_read_shared of fixed-size numbered chunks by every rank until the end of the
 *     file (count 0): each chunk read by exactly one rank, intact, each rank's in increasing
 *     order;
 *   - MPI_File_write_ordered then MPI_File_write_ordered_begin / _end: records in rank order,
 *     checked byte for byte; MPI_File_read_ordered_begin / _end and MPI_File_read_ordered read
 *     the ranks' pieces in rank order, the shared pointer at the end of them after.
 * Usage: file_shared (any number of ranks). */
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

#define FILE_TEST "file_shared"
#include "file_test.h"

/* Every rank reads the shared pointer, then waits for the others before anyone moves it
 * again. */
static void check_shared_position(MPI_File fh, MPI_Offset want, int line)
{
    MPI_Offset pos = -1;
    MUST(MPI_File_get_position_shared(fh, &pos));
    if (pos != want) {
        fprintf(stderr,
                "file_shared: rank %d, line %d: the shared pointer is at %lld, expected "
                "%lld\n",
                rank, line, (long long)pos, (long long)want);
        errors++;
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Records of write_shared: a header {MAGIC, rank, index} of ints, then len(r, k) bytes. */
enum { R = 5, MAGIC = 0x5eca1ed, HDRB = 3 * sizeof(int), MAXREC = HDRB + 32 };

static int rec_len(int r, int k)
{
    return 1 + (r * 7 + k * 5) % 17;
}

static unsigned char rec_byte(int r, int k, int j)
{
    return (unsigned char)(r * 31 + k * 7 + j * 3 + 1);
}

static int make_record(int r, int k, unsigned char *out)
{
    int h[3] = {MAGIC, r, k}, len = rec_len(r, k);
    memcpy(out, h, HDRB);
    for (int j = 0; j < len; j++)
        out[HDRB + j] = rec_byte(r, k, j);
    return HDRB + len;
}

static void test_write_shared(void)
{
    char p[PATHLEN + 32];
    path(p, "records");
    MPI_File fh = create(p);
    check_shared_position(fh, 0, __LINE__);
    MPI_Status st;
    unsigned char rec[MAXREC];
    for (int k = 0; k < R; k++) {
        int n = make_record(rank, k, rec);
        MUST(MPI_File_write_shared(fh, rec, n, MPI_BYTE, &st));
        CHECK(count_of(&st, MPI_BYTE) == n);
    }
    settle(fh);
    long total = 0;
    for (int r = 0; r < size; r++)
        for (int k = 0; k < R; k++)
            total += HDRB + rec_len(r, k);
    check_shared_position(fh, total, __LINE__);

    /* Walk the file record by record: each must be whole, known, and new. */
    long n;
    unsigned char *file = posix_whole(p, &n), want[MAXREC];
    CHECK(n == total);
    int *next_k = calloc((size_t)size, sizeof(int)), found = 0;
    for (long off = 0; off + HDRB <= n;) {
        int h[3];
        memcpy(h, file + off, HDRB);
        if (h[0] != MAGIC || h[1] < 0 || h[1] >= size || h[2] != next_k[h[1]] ||
            off + HDRB + rec_len(h[1], h[2]) > n) {
            fprintf(stderr,
                    "file_shared: rank %d: at byte %ld of the file: no record expected "
                    "there (header %#x %d %d)\n",
                    rank, off, h[0], h[1], h[2]);
            errors++;
            break;
        }
        int len = make_record(h[1], h[2], want);
        SAME(file + off, want, (size_t)len);
        next_k[h[1]]++;
        found++;
        off += len;
    }
    CHECK(found == size * R);
    for (int r = 0; r < size; r++)
        CHECK(next_k[r] == R);
    free(next_k);
    free(file);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Seeks of the shared pointer, collective, from each origin. */
    MUST(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    check_shared_position(fh, total, __LINE__);
    MUST(MPI_File_seek_shared(fh, -7, MPI_SEEK_CUR));
    check_shared_position(fh, total - 7, __LINE__);
    MUST(MPI_File_seek_shared(fh, 12, MPI_SEEK_SET));
    check_shared_position(fh, 12, __LINE__);
    MUST(MPI_File_seek_shared(fh, 5, MPI_SEEK_CUR));
    check_shared_position(fh, 17, __LINE__);
    /* The individual pointer did not move. */
    MPI_Offset pos = -1;
    MUST(MPI_File_get_position(fh, &pos));
    CHECK(pos == 0);

    MUST(MPI_File_close(&fh));
    delete_file(p);
}

/* Chunks for read_shared: chunk i is the int i, then C - 4 bytes of its own. */
enum { C = 24 };

static void make_chunk(int i, unsigned char *out)
{
    memcpy(out, &i, sizeof i);
    for (int j = 4; j < C; j++)
        out[j] = (unsigned char)(i * 11 + j * 5 + 3);
}

static void test_read_shared(void)
{
    char p[PATHLEN + 32];
    path(p, "chunks");
    MPI_File fh = create(p);
    int nch = 3 * size + 2;
    MPI_Status st;
    unsigned char chunk[C], want[C];
    for (int i = rank; i < nch; i += size) {
        make_chunk(i, chunk);
        MUST(MPI_File_write_at(fh, (MPI_Offset)i * C, chunk, C, MPI_BYTE, &st));
    }
    settle(fh);

    /* Until the end: each read gets a whole chunk, or nothing at the end. */
    int *seen = calloc((size_t)nch, sizeof(int)), *all = calloc((size_t)nch, sizeof(int));
    int last = -1;
    for (int reads = 0; reads <= nch; reads++) {
        memset(chunk, 0xff, sizeof chunk);
        MUST(MPI_File_read_shared(fh, chunk, C, MPI_BYTE, &st));
        int n = count_of(&st, MPI_BYTE);
        if (n == 0)
            break;
        CHECK(n == C);
        int id;
        memcpy(&id, chunk, sizeof id);
        if (id < 0 || id >= nch) {
            fprintf(stderr, "file_shared: rank %d: read_shared got chunk %d\n", rank, id);
            errors++;
            break;
        }
        CHECK(id > last); /* one rank's reads go forward */
        last = id;
        seen[id]++;
        make_chunk(id, want);
        SAME(chunk, want, C);
    }
    MPI_Allreduce(seen, all, nch, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < nch; i++)
        if (all[i] != 1) {
            fprintf(stderr, "file_shared: rank %d: chunk %d read %d times\n", rank, i, all[i]);
            errors++;
        }
    free(seen);
    free(all);
    MUST(MPI_File_close(&fh));
    delete_file(p);
}

/* Ordered records: round 1 of len1(r) bytes, round 2 of len2(r) bytes. */
static int len1(int r)
{
    return 3 + r * 5 % 11 + r;
}

static int len2(int r)
{
    return 2 + r * 3 % 7;
}

static unsigned char byte1(int r, int j)
{
    return (unsigned char)(r * 17 + j + 0x40);
}

static unsigned char byte2(int r, int j)
{
    return (unsigned char)(r * 29 + j * 7 + 0x80);
}

static void test_ordered(void)
{
    char p[PATHLEN + 32];
    path(p, "ordered");
    MPI_File fh = create(p);
    MPI_Status st;
    long s1 = 0, s2 = 0;
    for (int r = 0; r < size; r++) {
        s1 += len1(r);
        s2 += len2(r);
    }
    /* What the file must hold: round 1 in rank order, then round 2 in rank order. */
    unsigned char *image = malloc((size_t)(s1 + s2)), *q = image;
    for (int r = 0; r < size; r++)
        for (int j = 0; j < len1(r); j++)
            *q++ = byte1(r, j);
    for (int r = 0; r < size; r++)
        for (int j = 0; j < len2(r); j++)
            *q++ = byte2(r, j);

    unsigned char buf[256], got[256]; /* len1(r) < 256 up to 180 ranks */
    int n = len1(rank);
    for (int j = 0; j < n; j++)
        buf[j] = byte1(rank, j);
    MUST(MPI_File_write_ordered(fh, buf, n, MPI_BYTE, &st));
    CHECK(count_of(&st, MPI_BYTE) == n);
    check_shared_position(fh, s1, __LINE__);
    n = len2(rank);
    for (int j = 0; j < n; j++)
        buf[j] = byte2(rank, j);
    MUST(MPI_File_write_ordered_begin(fh, buf, n, MPI_BYTE));
    MUST(MPI_File_write_ordered_end(fh, buf, &st));
    CHECK(count_of(&st, MPI_BYTE) == n);
    check_shared_position(fh, s1 + s2, __LINE__);
    settle(fh);

    long fsize;
    unsigned char *file = posix_whole(p, &fsize);
    CHECK(fsize == s1 + s2);
    if (fsize == s1 + s2)
        SAME(file, image, (size_t)fsize);
    free(file);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Read in rank order with other lengths: rank r reads len1(r + 1) bytes of round 1 (the
     * lengths permuted, they sum to s1) with MPI_File_read_ordered_begin / _end, then
     * len2(size - 1 - r) of round 2 with MPI_File_read_ordered, up to the end of the file.
     * (No collective read past the end: Open MPI 4.1 reports the count asked, not the count
     * read, and hangs in MPI_File_read_ordered_end.) */
    MUST(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    check_shared_position(fh, 0, __LINE__);
    long off = 0;
    for (int r = 0; r < rank; r++)
        off += len1((r + 1) % size);
    n = len1((rank + 1) % size);
    memset(got, 0xff, sizeof got);
    MUST(MPI_File_read_ordered_begin(fh, got, n, MPI_BYTE));
    MUST(MPI_File_read_ordered_end(fh, got, &st));
    CHECK(count_of(&st, MPI_BYTE) == n);
    SAME(got, image + off, (size_t)n);
    CHECK(got[n] == 0xff);
    check_shared_position(fh, s1, __LINE__);

    off = s1;
    for (int r = 0; r < rank; r++)
        off += len2(size - 1 - r);
    n = len2(size - 1 - rank);
    memset(got, 0xff, sizeof got);
    MUST(MPI_File_read_ordered(fh, got, n, MPI_BYTE, &st));
    CHECK(count_of(&st, MPI_BYTE) == n);
    SAME(got, image + off, (size_t)n);
    CHECK(got[n] == 0xff);
    check_shared_position(fh, s1 + s2, __LINE__);

    free(image);
    MUST(MPI_File_close(&fh));
    delete_file(p);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_dir();

    test_write_shared();
    test_read_shared();
    test_ordered();

    /* Every file deleted (and whatever the shared pointers needed): the directory is empty. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && rmdir(dir) != 0) {
        fprintf(stderr, "file_shared: rmdir %s: %s\n", dir, strerror(errno));
        errors++;
    }
    int all_errors;
    MPI_Allreduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("file_shared: %s\n", all_errors ? "FAILED" : "ok");
    MPI_Finalize();
    return all_errors ? 1 : 0;
}
