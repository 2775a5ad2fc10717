/* The basics of MPI-IO (MPI-3.1 chapter 13), every file under a fresh directory of $TMPDIR that
 * rank 0 names and broadcasts, and removes at the end:
 *   - the handle: MPI_File_open (MPI_MODE_CREATE | MPI_MODE_RDWR on MPI_COMM_WORLD),
 *     MPI_File_get_amode, MPI_File_get_group (MPI_IDENT to the world's group), MPI_File_set_size
 *     growing and shrinking (MPI_File_get_size and POSIX stat agree, the bytes kept by a shrink
 *     intact), MPI_File_preallocate (the size grows to at least the request, never shrinks, the
 *     data kept), MPI_File_sync, MPI_File_set_info / _get_info (a valid info, freed);
 *   - explicit offsets: each rank writes its block of ints with MPI_File_write_at, then reads
 *     the next rank's with MPI_File_read_at after sync + barrier + sync (values and
 *     MPI_Get_count), and checks the previous rank's with POSIX pread;
 *   - the individual file pointer: MPI_File_seek from MPI_SEEK_SET, _CUR and _END,
 *     MPI_File_get_position, MPI_File_get_byte_offset, MPI_File_read / _write moving it, a read
 *     at the end of the file (count 0) and one cut short by it (a partial count);
 *   - the collectives MPI_File_write_at_all / _read_at_all / _write_all / _read_all (a rank may
 *     read nothing);
 *   - MPI_MODE_APPEND: both file pointers start at the end; MPI_MODE_DELETE_ON_CLOSE: the file
 *     is gone after the close (POSIX access); MPI_MODE_EXCL on an existing file fails;
 *   - a derived memory type (a strided vector of doubles) written to and read from a contiguous
 *     file region, gaps of the memory buffer untouched.
 * Usage: file_basic (any number of ranks). */
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

#define FILE_TEST "file_basic"
#include "file_test.h"

/* What every rank's data and the other ranks' checks agree on. */
enum { N = 64, M = 32, K = 16 };

static int value(int r, int i)
{
    return r * 1000 + i + 1;
}

static void fill(int *buf, int r, int n, int sign)
{
    for (int i = 0; i < n; i++)
        buf[i] = sign * value(r, i);
}

/* The handle's properties, the size, preallocation, sync and info. */
static void test_handle(void)
{
    char p[PATHLEN + 32];
    path(p, "handle");
    MPI_File fh = MPI_FILE_NULL;
    MUST(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK(fh != MPI_FILE_NULL);
    int amode = -1;
    MUST(MPI_File_get_amode(fh, &amode));
    CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR));

    /* The file's group is the world's: same members, same order. */
    MPI_Group fg = MPI_GROUP_NULL, wg;
    int cmp = -1;
    MUST(MPI_File_get_group(fh, &fg));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MUST(MPI_Group_compare(fg, wg, &cmp));
    CHECK(cmp == MPI_IDENT);
    MPI_Group_free(&fg);
    MPI_Group_free(&wg);

    /* A new file is empty. (Each check of the file's state is followed by a barrier, before
     * any rank changes it again.) */
    MPI_Offset sz = -1;
    MUST(MPI_File_get_size(fh, &sz));
    CHECK(sz == 0);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Grown to 1000 bytes, then rank 0 fills them with known bytes. */
    static unsigned char pat[1000], got[1000];
    for (int i = 0; i < 1000; i++)
        pat[i] = (unsigned char)(i * 7 + 3);
    MUST(MPI_File_set_size(fh, 1000));
    MUST(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_get_size(fh, &sz));
    CHECK(sz == 1000);
    CHECK(posix_size(p) == 1000);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Status st;
    if (rank == 0) {
        MUST(MPI_File_write_at(fh, 0, pat, 1000, MPI_BYTE, &st));
        CHECK(count_of(&st, MPI_BYTE) == 1000);
    }
    MUST(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_sync(fh));

    /* Shrunk to 300: the first 300 bytes kept, as the last rank sees with POSIX. */
    MUST(MPI_File_set_size(fh, 300));
    MUST(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_get_size(fh, &sz));
    CHECK(sz == 300);
    CHECK(posix_size(p) == 300);
    if (rank == size - 1) {
        memset(got, 0, sizeof got);
        CHECK(posix_read(p, 0, got, 1000) == 300);
        SAME(got, pat, 300);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Preallocation grows the file to (at least) the request and keeps the data... */
    MUST(MPI_File_preallocate(fh, 800));
    MUST(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_get_size(fh, &sz));
    CHECK(sz >= 800);
    MPI_Offset grown = sz;
    CHECK(posix_size(p) == (long)grown);
    memset(got, 0, sizeof got);
    CHECK(posix_read(p, 0, got, 300) == 300);
    SAME(got, pat, 300);
    MPI_Barrier(MPI_COMM_WORLD);
    /* ... and never shrinks it. */
    MUST(MPI_File_preallocate(fh, 100));
    MUST(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_get_size(fh, &sz));
    CHECK(sz == grown);
    CHECK(posix_size(p) == (long)grown);

    /* Hints: get_info returns a valid info (which keys it holds is the implementation's). */
    MPI_Info info = MPI_INFO_NULL, used = MPI_INFO_NULL;
    int nkeys = -1;
    MUST(MPI_File_get_info(fh, &used));
    CHECK(used != MPI_INFO_NULL);
    MUST(MPI_Info_get_nkeys(used, &nkeys));
    CHECK(nkeys >= 0);
    MUST(MPI_Info_free(&used));
    CHECK(used == MPI_INFO_NULL);
    MPI_Info_create(&info);
    MPI_Info_set(info, "access_style", "write_once,random");
    MUST(MPI_File_set_info(fh, info));
    MPI_Info_free(&info);
    used = MPI_INFO_NULL;
    MUST(MPI_File_get_info(fh, &used));
    CHECK(used != MPI_INFO_NULL);
    nkeys = -1;
    MUST(MPI_Info_get_nkeys(used, &nkeys));
    CHECK(nkeys >= 0);
    MUST(MPI_Info_free(&used));

    MUST(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL);
    delete_file(p);
}

/* Explicit offsets, then the individual file pointer, on one file. */
static void test_offsets_and_pointer(void)
{
    char p[PATHLEN + 32];
    path(p, "basic");
    MPI_File fh;
    MUST(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int buf[N], got[N], want[N];
    MPI_Status st;
    const MPI_Offset block = N * (MPI_Offset)sizeof(int), total = size * block;

    /* Each rank its block at rank * N ints. */
    fill(buf, rank, N, 1);
    MUST(MPI_File_write_at(fh, rank * block, buf, N, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == N);
    MUST(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_sync(fh));

    /* The next rank's block through MPI, the previous rank's through POSIX. */
    memset(got, 0xff, sizeof got);
    MUST(MPI_File_read_at(fh, next * block, got, N, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == N);
    fill(want, next, N, 1);
    SAME(got, want, sizeof want);
    MPI_Offset sz = -1;
    MUST(MPI_File_get_size(fh, &sz));
    CHECK(sz == total);
    CHECK(posix_size(p) == (long)total);
    memset(got, 0xff, sizeof got);
    CHECK(posix_read(p, prev * block, got, sizeof got) == (long)sizeof got);
    fill(want, prev, N, 1);
    SAME(got, want, sizeof want);

    /* The individual pointer, in bytes under the default view: at 0 since the open. */
    MPI_Offset pos = -1, byte = -1;
    MUST(MPI_File_get_position(fh, &pos));
    CHECK(pos == 0);
    MUST(MPI_File_seek(fh, next * block, MPI_SEEK_SET));
    MUST(MPI_File_get_position(fh, &pos));
    CHECK(pos == next * block);
    memset(got, 0xff, sizeof got);
    MUST(MPI_File_read(fh, got, 10, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 10);
    fill(want, next, N, 1);
    SAME(got, want, 10 * sizeof(int));
    MUST(MPI_File_get_position(fh, &pos));
    CHECK(pos == next * block + 40);
    /* Two ints skipped from the current position: the 13th int of the next rank's block. */
    MUST(MPI_File_seek(fh, 8, MPI_SEEK_CUR));
    MUST(MPI_File_get_position(fh, &pos));
    CHECK(pos == next * block + 48);
    got[0] = -1;
    MUST(MPI_File_read(fh, got, 1, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 1);
    CHECK(got[0] == value(next, 12));
    /* From the end: the last int of the file is the last rank's last. */
    MUST(MPI_File_seek(fh, -4, MPI_SEEK_END));
    MUST(MPI_File_get_position(fh, &pos));
    CHECK(pos == total - 4);
    got[0] = -1;
    MUST(MPI_File_read(fh, got, 1, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 1);
    CHECK(got[0] == value(size - 1, N - 1));
    MUST(MPI_File_get_position(fh, &pos));
    CHECK(pos == total);
    /* At the end of the file a read reads nothing. (Where a read cut short by the end leaves
     * the pointer is not checked: Open MPI moves it by the count asked, MPICH by the count
     * read; the standard moves it "after the last etype that will be accessed".) */
    got[0] = -1;
    MUST(MPI_File_read(fh, got, 5, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 0);
    CHECK(got[0] == -1);
    /* Back 8 bytes from a known position, then 5 ints asked: 2 read. */
    MUST(MPI_File_seek(fh, total, MPI_SEEK_SET));
    MUST(MPI_File_seek(fh, -8, MPI_SEEK_CUR));
    MUST(MPI_File_get_position(fh, &pos));
    CHECK(pos == total - 8);
    memset(got, 0xff, sizeof got);
    MUST(MPI_File_read(fh, got, 5, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 2);
    CHECK(got[0] == value(size - 1, N - 2) && got[1] == value(size - 1, N - 1));
    CHECK(got[2] == -1);
    /* The same short read at an explicit offset. */
    memset(got, 0xff, sizeof got);
    MUST(MPI_File_read_at(fh, total - 12, got, 8, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 3);
    CHECK(got[2] == value(size - 1, N - 1) && got[3] == -1);
    /* The default view counts bytes from 0. */
    MUST(MPI_File_get_byte_offset(fh, 12, &byte));
    CHECK(byte == 12);
    MUST(MPI_File_get_byte_offset(fh, total + 5, &byte));
    CHECK(byte == total + 5);

    /* Writes move the pointer: each rank M ints past the blocks, in two writes, once every
     * rank has seen the file end at the blocks. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset base = total + rank * M * (MPI_Offset)sizeof(int);
    fill(buf, rank, M, -1);
    MUST(MPI_File_seek(fh, base, MPI_SEEK_SET));
    MUST(MPI_File_write(fh, buf, 20, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 20);
    MUST(MPI_File_get_position(fh, &pos));
    CHECK(pos == base + 80);
    MUST(MPI_File_write(fh, buf + 20, M - 20, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == M - 20);
    MUST(MPI_File_get_position(fh, &pos));
    CHECK(pos == base + M * 4);
    MUST(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_sync(fh));
    MUST(MPI_File_get_size(fh, &sz));
    CHECK(sz == total + size * M * 4);
    memset(got, 0, sizeof got);
    CHECK(posix_read(p, (long)(total + prev * M * 4), got, M * sizeof(int)) == M * 4);
    fill(want, prev, M, -1);
    SAME(got, want, M * sizeof(int));

    MUST(MPI_File_close(&fh));
    delete_file(p);
}

/* The four blocking collectives of data access. */
static void test_collective(void)
{
    char p[PATHLEN + 32];
    path(p, "coll");
    MPI_File fh;
    MUST(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int buf[N], got[N], want[N];
    MPI_Status st;
    const MPI_Offset block = N * (MPI_Offset)sizeof(int), half = size * block;

    /* First half of the file by explicit offsets. */
    fill(buf, rank, N, 1);
    MUST(MPI_File_write_at_all(fh, rank * block, buf, N, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == N);
    MUST(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_sync(fh));
    memset(got, 0xff, sizeof got);
    MUST(MPI_File_read_at_all(fh, next * block, got, N, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == N);
    fill(want, next, N, 1);
    SAME(got, want, sizeof want);

    /* Second half by the individual pointers, negated values. */
    MPI_Offset pos = -1;
    fill(buf, rank, N, -1);
    MUST(MPI_File_seek(fh, half + rank * block, MPI_SEEK_SET));
    MUST(MPI_File_write_all(fh, buf, N, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == N);
    MUST(MPI_File_get_position(fh, &pos));
    CHECK(pos == half + (rank + 1) * block);
    MUST(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_sync(fh));
    MUST(MPI_File_seek(fh, half + next * block, MPI_SEEK_SET));
    memset(got, 0xff, sizeof got);
    MUST(MPI_File_read_all(fh, got, N, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == N);
    fill(want, next, N, -1);
    SAME(got, want, sizeof want);
    MUST(MPI_File_get_position(fh, &pos));
    CHECK(pos == half + (next + 1) * block);

    /* A collective read where the odd ranks read nothing: their pointers stay. */
    MUST(MPI_File_seek(fh, prev * block, MPI_SEEK_SET));
    memset(got, 0xff, sizeof got);
    int n = rank % 2 ? 0 : N;
    MUST(MPI_File_read_all(fh, got, n, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == n);
    fill(want, prev, N, 1);
    if (n)
        SAME(got, want, sizeof want);
    else
        CHECK(got[0] == -1);
    MUST(MPI_File_get_position(fh, &pos));
    CHECK(pos == prev * block + n * 4);

    /* The previous rank's two blocks through POSIX. */
    MUST(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(posix_size(p) == (long)(2 * half));
    CHECK(posix_read(p, (long)(prev * block), got, sizeof got) == (long)sizeof got);
    SAME(got, want, sizeof want);
    CHECK(posix_read(p, (long)(half + prev * block), got, sizeof got) == (long)sizeof got);
    fill(want, prev, N, -1);
    SAME(got, want, sizeof want);
    MPI_Barrier(MPI_COMM_WORLD);

    /* MPI_MODE_APPEND: both pointers start at the end of the file. */
    MUST(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR | MPI_MODE_APPEND, MPI_INFO_NULL, &fh));
    int amode = -1;
    MUST(MPI_File_get_amode(fh, &amode));
    CHECK(amode == (MPI_MODE_RDWR | MPI_MODE_APPEND));
    MUST(MPI_File_get_position(fh, &pos));
    CHECK(pos == 2 * half);
    MPI_Offset shared = -1;
    MUST(MPI_File_get_position_shared(fh, &shared));
    CHECK(shared == 2 * half);
    int tail = 4242;
    if (rank == 0) {
        MUST(MPI_File_write(fh, &tail, 1, MPI_INT, &st));
        CHECK(count_of(&st, MPI_INT) == 1);
        MUST(MPI_File_get_position(fh, &pos));
        CHECK(pos == 2 * half + 4);
    }
    MUST(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(posix_size(p) == (long)(2 * half + 4));
    got[0] = -1;
    CHECK(posix_read(p, (long)(2 * half), got, 4) == 4);
    CHECK(got[0] == tail);

    /* MPI_MODE_EXCL on a file that exists fails (its class: file_errors). */
    fh = MPI_FILE_NULL;
    CHECK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                        MPI_INFO_NULL, &fh) != MPI_SUCCESS);
    if (fh != MPI_FILE_NULL) /* (not expected: no file is open) */
        MPI_File_close(&fh);
    CHECK(posix_size(p) == (long)(2 * half + 4));
    delete_file(p);
}

/* MPI_MODE_DELETE_ON_CLOSE: the file exists while open, is gone after the close. */
static void test_delete_on_close(void)
{
    char p[PATHLEN + 32];
    path(p, "doc");
    MPI_File fh;
    MUST(MPI_File_open(MPI_COMM_WORLD, p,
                       MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                       &fh));
    int v = value(rank, 0);
    MPI_Status st;
    MUST(MPI_File_write_at(fh, rank * 4, &v, 1, MPI_INT, &st));
    MUST(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(access(p, F_OK) == 0);
    CHECK(posix_size(p) == 4L * size);
    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    errno = 0;
    CHECK(access(p, F_OK) == -1 && errno == ENOENT);
}

/* A strided memory type (every third double) to and from a contiguous file region. */
static void test_memory_type(void)
{
    char p[PATHLEN + 32];
    path(p, "vec");
    MPI_File fh;
    MUST(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Datatype every3, every2;
    MPI_Type_vector(K, 1, 3, MPI_DOUBLE, &every3);
    MPI_Type_commit(&every3);
    MPI_Type_vector(K, 1, 2, MPI_DOUBLE, &every2);
    MPI_Type_commit(&every2);
    double mem[3 * K], file[K], got[2 * K], want[2 * K];
    for (int i = 0; i < 3 * K; i++)
        mem[i] = i % 3 ? -7.0 : rank * 100 + i / 3 + 0.25;
    MPI_Status st;
    MPI_Offset pos = -1;
    const MPI_Offset block = K * (MPI_Offset)sizeof(double);

    /* One vector written at the rank's block: K contiguous doubles in the file. */
    MUST(MPI_File_seek(fh, rank * block, MPI_SEEK_SET));
    MUST(MPI_File_write(fh, mem, 1, every3, &st));
    CHECK(count_of(&st, every3) == 1);
    int elements = -1;
    MUST(MPI_Get_elements(&st, MPI_DOUBLE, &elements));
    CHECK(elements == K);
    MUST(MPI_File_get_position(fh, &pos));
    CHECK(pos == (rank + 1) * block);
    MUST(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_sync(fh));

    /* The previous rank's doubles, contiguous, through POSIX. */
    for (int i = 0; i < K; i++)
        want[i] = prev * 100 + i + 0.25;
    memset(file, 0, sizeof file);
    CHECK(posix_read(p, (long)(prev * block), file, sizeof file) == (long)sizeof file);
    SAME(file, want, sizeof file);

    /* The next rank's doubles read into every other double: the gaps keep their -1. */
    for (int i = 0; i < 2 * K; i++) {
        got[i] = -1.0;
        want[i] = i % 2 ? -1.0 : next * 100 + i / 2 + 0.25;
    }
    MUST(MPI_File_seek(fh, next * block, MPI_SEEK_SET));
    MUST(MPI_File_read(fh, got, 1, every2, &st));
    CHECK(count_of(&st, every2) == 1);
    SAME(got, want, sizeof got);

    MPI_Type_free(&every3);
    MPI_Type_free(&every2);
    MUST(MPI_File_close(&fh));
    delete_file(p);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_dir();

    test_handle();
    test_offsets_and_pointer();
    test_collective();
    test_delete_on_close();
    test_memory_type();

    /* Every file deleted: the directory is empty. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && rmdir(dir) != 0) {
        fprintf(stderr, "file_basic: rmdir %s: %s\n", dir, strerror(errno));
        errors++;
    }
    int all_errors;
    MPI_Allreduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("file_basic: %s\n", all_errors ? "FAILED" : "ok");
    MPI_Finalize();
    return all_errors ? 1 : 0;
}
