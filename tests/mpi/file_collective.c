/* Collective file accesses through aggregators (two-phase I/O) and the hints that shape them
 * (MPI-3.1 13.2.8: cb_nodes, cb_buffer_size, romio_cb_read, romio_cb_write), in a fresh directory
 * of $TMPDIR that rank 0 names and broadcasts.
 *
 * Each rank owns every size-th record of REC bytes, of which it writes the first DATA and leaves
 * the last REC - DATA (a hole nobody writes, which must keep the bytes the file held before);
 * its memory holds its data every other DATA-byte block (a vector type), so both sides are
 * non-contiguous. For each combination of hints (aggregation forced on, forced off, automatic;
 * 1, 2, 3 and 64 aggregators; buffers of 64 KiB, which cut each domain into many pieces, and
 * 1 MiB) the file is first filled with a background by rank 0, then written with
 * MPI_File_write_all (MPI_File_write_at_all for half the combinations) and checked byte for byte
 * by every rank with POSIX reads; then read back with MPI_File_read_all into a cleared buffer
 * whose gaps must stay untouched, and, past the end of the file, with a count the file only half
 * holds (the status says how much came). MPI_File_get_info reports the hints in use. Usage:
 * file_collective (any number of ranks). */
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

#define FILE_TEST "file_collective"
#include "file_test.h"

enum {
    REC = 40,      /* bytes of a record */
    DATA = 32,     /* of which the owner writes the first DATA */
    RECORDS = 3000 /* per rank: 120 KB of file per rank, more than a 64 KiB buffer */
};

/* The byte of rank r's record k at offset j; the background of file byte i. */
static unsigned char data_byte(int r, long k, int j)
{
    return (unsigned char)(r * 29 + k * 7 + j * 3 + 1);
}

static unsigned char background(long i)
{
    return (unsigned char)(0xa5 ^ (i * 11));
}

/* One combination of hints: write, check, read back. */
static void run(const char *p, const char *cb, int nodes, long buffer, int at)
{
    long file_size = (long)size * RECORDS * REC;
    MPI_Info info;
    MPI_File fh;
    MPI_Status st;
    char value[32];
    int flag, count;

    /* The background, before anyone opens the file for the test */
    if (rank == 0) {
        unsigned char *bg = malloc((size_t)file_size);
        for (long i = 0; i < file_size; i++)
            bg[i] = background(i);
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        CHECK(fd >= 0 && pwrite(fd, bg, (size_t)file_size, 0) == file_size);
        if (fd >= 0)
            close(fd);
        free(bg);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", cb);
    MPI_Info_set(info, "romio_cb_read", cb);
    snprintf(value, sizeof(value), "%d", nodes);
    MPI_Info_set(info, "cb_nodes", value);
    snprintf(value, sizeof(value), "%ld", buffer);
    MPI_Info_set(info, "cb_buffer_size", value);
    MUST(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);

    /* The hints in use */
    MPI_Info used;
    MUST(MPI_File_get_info(fh, &used));
    MPI_Info_get(used, "romio_cb_write", sizeof(value) - 1, value, &flag);
    CHECK(flag && strcmp(value, cb) == 0);
    MPI_Info_get(used, "cb_buffer_size", sizeof(value) - 1, value, &flag);
    CHECK(flag && atol(value) == buffer);
    MPI_Info_get(used, "cb_nodes", sizeof(value) - 1, value, &flag);
    CHECK(flag && atoi(value) == (nodes < size ? nodes : size)); /* at most one per member */
    MPI_Info_free(&used);

    /* The view: DATA bytes of every size-th record, from this rank's first */
    MPI_Datatype rec, ftype, mtype;
    MPI_Type_contiguous(DATA, MPI_BYTE, &rec);
    MPI_Type_commit(&rec);
    MPI_Type_create_resized(rec, 0, (MPI_Aint)REC * size, &ftype);
    MPI_Type_commit(&ftype);
    MPI_Type_vector(RECORDS, DATA, 2 * DATA, MPI_BYTE, &mtype);
    MPI_Type_commit(&mtype);
    MUST(MPI_File_set_view(fh, (MPI_Offset)rank * REC, MPI_BYTE, ftype, "native", MPI_INFO_NULL));

    size_t mem = (size_t)2 * DATA * RECORDS;
    unsigned char *buf = malloc(mem), *back = malloc(mem);
    for (long k = 0; k < RECORDS; k++)
        for (int j = 0; j < DATA; j++) {
            buf[2 * DATA * k + j] = data_byte(rank, k, j);
            buf[2 * DATA * k + DATA + j] = 0xee; /* the gaps of memory: never written */
        }
    if (at)
        MUST(MPI_File_write_at_all(fh, 0, buf, 1, mtype, &st));
    else
        MUST(MPI_File_write_all(fh, buf, 1, mtype, &st));
    MPI_Get_count(&st, mtype, &count);
    CHECK(count == 1);
    MUST(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_sync(fh));

    /* Every rank checks the whole file: the data of all, the holes' background */
    long n;
    unsigned char *file = posix_whole(p, &n);
    CHECK(n == file_size);
    for (long i = 0; file && i < n && i < file_size; i++) {
        long r_rec = i / REC, k = r_rec / size;
        int r = (int)(r_rec % size), j = (int)(i % REC);
        unsigned char want = j < DATA ? data_byte(r, k, j) : background(i);
        if (file[i] != want) {
            fprintf(stderr,
                    "file_collective: rank %d (%s, %d aggregators, %ld B, %s): file byte %ld is "
                    "0x%02x, expected 0x%02x\n",
                    rank, cb, nodes, buffer, at ? "write_at_all" : "write_all", i, file[i], want);
            errors++;
            break;
        }
    }
    free(file);

    /* Back through the view, into a buffer whose gaps must keep their bytes */
    memset(back, 0x5a, mem);
    MUST(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    MUST(MPI_File_read_all(fh, back, 1, mtype, &st));
    MPI_Get_count(&st, mtype, &count);
    CHECK(count == 1);
    for (long k = 0; k < RECORDS; k++)
        for (int j = 0; j < DATA; j++)
            if (back[2 * DATA * k + j] != data_byte(rank, k, j) ||
                back[2 * DATA * k + DATA + j] != 0x5a) {
                fprintf(stderr, "file_collective: rank %d (%s, %d, %ld): read back record %ld\n",
                        rank, cb, nodes, buffer, k);
                errors++;
                k = RECORDS;
                break;
            }

    /* Past the end: from the rank's half-way record on, RECORDS of them; half are there */
    memset(back, 0x5a, mem);
    MUST(MPI_File_read_at_all(fh, (MPI_Offset)RECORDS / 2 * DATA, back, RECORDS, rec, &st));
    MPI_Get_count(&st, rec, &count);
    CHECK(count == RECORDS - RECORDS / 2); /* (ROMIO's collective reads say RECORDS) */
    CHECK(back[0] == data_byte(rank, RECORDS / 2, 0));
    CHECK(back[(size_t)count * DATA] == 0x5a);

    MPI_Type_free(&rec);
    MPI_Type_free(&ftype);
    MPI_Type_free(&mtype);
    free(buf);
    free(back);
    MUST(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_dir();

    char p[PATHLEN + 32];
    path(p, "records");
    static const char *modes[] = {"enable", "disable", "automatic"};
    static const int nodes[] = {1, 2, 3, 64};
    static const long buffers[] = {65536, 1 << 20};
    int combination = 0;
    for (int m = 0; m < 3; m++)
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 2; b++)
                run(p, modes[m], nodes[a], buffers[b], combination++ % 2);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MUST(MPI_File_delete(p, MPI_INFO_NULL));
        if (rmdir(dir) != 0) {
            fprintf(stderr, "file_collective: rmdir %s: %s\n", dir, strerror(errno));
            errors++;
        }
    }
    int all_errors;
    MPI_Allreduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("file_collective: %s\n", all_errors ? "FAILED" : "ok");
    MPI_Finalize();
    return all_errors ? 1 : 0;
}
