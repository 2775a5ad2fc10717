/* The "external32" data representation of file views (MPI-3.1 13.5.2): big-endian integers and
 * IEEE floating point in the file, whatever the host, in a fresh directory of $TMPDIR that rank 0
 * names and broadcasts. Each rank owns every size-th record of (int, short, double) through an
 * "external32" view (etype MPI_BYTE, a resized struct filetype), writes its records with
 * MPI_File_write_all (two-phase forced on with romio_cb_write, so an aggregator moves the
 * converted data) and with MPI_File_write_at; every rank checks the whole file byte for byte with
 * POSIX reads against the big-endian encoding it computes itself; then each reads its records
 * back independently, collectively and with MPI_File_iread_at into memory of another shape.
 * MPI_File_get_view says "external32", MPI_File_get_type_extent gives the extents. Then a
 * view of MPI_LONG, 4 bytes in external32 and 8 here: the vector filetype is laid out with the
 * file's sizes, and the longs are 4 big-endian bytes each. Usage: file_external32 (any number
 * of ranks). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FILE_TEST "file_external32"
#include "file_test.h"

enum { RECORDS = 100, ENC = 4 + 2 + 8 }; /* a record's bytes in the file */

typedef struct record {
    int i;
    short s;
    double d;
} record_t;

static record_t value(int r, int k)
{
    return (record_t){r * 100000 - k * 7 - 1, (short)(k * 3 - r), r + k / 8.0 - 1e6 * (k % 3)};
}

/* Big-endian bytes of n bytes of host value v. */
static void big_endian(unsigned char *out, const void *v, int n)
{
    const unsigned char *b = v;
    for (int i = 0; i < n; i++)
        out[i] = b[n - 1 - i]; /* the hosts ThreadMPI runs on are little-endian */
}

static void encode(const record_t *v, unsigned char *out)
{
    big_endian(out, &v->i, 4);
    big_endian(out + 4, &v->s, 2);
    big_endian(out + 6, &v->d, 8);
}

static int same_record(record_t a, record_t b)
{
    return a.i == b.i && a.s == b.s && a.d == b.d;
}

/* Every rank's records, as the file must hold them. */
static void check_file(const char *p, int line)
{
    long n = (long)size * RECORDS * ENC;
    unsigned char *file = malloc((size_t)n), want[ENC];
    int fd = open(p, O_RDONLY);
    CHECK(fd >= 0 && pread(fd, file, (size_t)n, 0) == n);
    if (fd >= 0)
        close(fd);
    for (int k = 0; k < RECORDS; k++)
        for (int r = 0; r < size; r++) {
            record_t v = value(r, k);
            encode(&v, want);
            if (memcmp(file + ((long)k * size + r) * ENC, want, ENC) != 0) {
                fprintf(stderr, "file_external32: rank %d, line %d: record %d of rank %d\n", rank,
                        line, k, r);
                errors++;
                k = RECORDS;
                break;
            }
        }
    free(file);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_dir();
    char p[PATHLEN + 32];
    path(p, "records");

    /* Memory: the C struct (with its padding); the file: the same three values packed, every
     * size-th record of ENC bytes */
    MPI_Datatype mem, packed, ftype;
    int lens[3] = {1, 1, 1};
    MPI_Aint mdisp[3] = {offsetof(record_t, i), offsetof(record_t, s), offsetof(record_t, d)};
    MPI_Aint fdisp[3] = {0, 4, 6};
    MPI_Datatype types[3] = {MPI_INT, MPI_SHORT, MPI_DOUBLE};
    MPI_Type_create_struct(3, lens, mdisp, types, &mem);
    MPI_Type_commit(&mem);
    MPI_Type_create_struct(3, lens, fdisp, types, &packed);
    MPI_Type_create_resized(packed, 0, (MPI_Aint)ENC * size, &ftype);
    MPI_Type_commit(&ftype);

    MPI_Info info;
    MPI_File fh;
    MPI_Status st;
    int count;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MUST(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    MUST(MPI_File_set_view(fh, (MPI_Offset)rank * ENC, MPI_BYTE, ftype, "external32",
                           MPI_INFO_NULL));

    MPI_Offset disp;
    MPI_Datatype e, f;
    char rep[MPI_MAX_DATAREP_STRING];
    MUST(MPI_File_get_view(fh, &disp, &e, &f, rep));
    CHECK(disp == (MPI_Offset)rank * ENC && e == MPI_BYTE && strcmp(rep, "external32") == 0);
    MPI_Type_free(&f);
    MPI_Aint extent;
    MUST(MPI_File_get_type_extent(fh, MPI_INT, &extent));
    CHECK(extent == 4);
    MUST(MPI_File_get_type_extent(fh, MPI_DOUBLE, &extent));
    CHECK(extent == 8);

    record_t out[RECORDS], back[RECORDS];
    for (int k = 0; k < RECORDS; k++)
        out[k] = value(rank, k);

    /* Collectively, through an aggregator */
    MUST(MPI_File_write_all(fh, out, RECORDS, mem, &st));
    MPI_Get_count(&st, mem, &count);
    CHECK(count == RECORDS);
    MUST(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_sync(fh));
    check_file(p, __LINE__);

    /* Back: independently, collectively, and non-blocking */
    memset(back, 0, sizeof(back));
    MUST(MPI_File_read_at(fh, 0, back, RECORDS, mem, &st));
    MPI_Get_count(&st, mem, &count);
    CHECK(count == RECORDS);
    for (int k = 0; k < RECORDS; k++)
        CHECK(same_record(back[k], out[k]));
    memset(back, 0, sizeof(back));
    MUST(MPI_File_read_at_all(fh, 0, back, RECORDS, mem, &st));
    MPI_Get_count(&st, mem, &count);
    CHECK(count == RECORDS);
    for (int k = 0; k < RECORDS; k++)
        CHECK(same_record(back[k], out[k]));
    /* Into plain ints, shorts and doubles in turn: MPI_INT, MPI_SHORT, MPI_DOUBLE triples */
    struct {
        int i;
        short s;
        double d;
    } half[RECORDS / 2];
    MPI_Request req;
    memset(half, 0, sizeof(half));
    MUST(MPI_File_iread_at(fh, (MPI_Offset)(RECORDS / 2) * ENC, half, RECORDS / 2, mem, &req));
    MUST(MPI_Wait(&req, &st));
    MPI_Get_count(&st, mem, &count);
    CHECK(count == RECORDS / 2);
    for (int k = 0; k < RECORDS / 2; k++)
        CHECK(half[k].i == out[RECORDS / 2 + k].i && half[k].s == out[RECORDS / 2 + k].s &&
              half[k].d == out[RECORDS / 2 + k].d);

    /* Independently, at an offset: the second half again, changed */
    for (int k = RECORDS / 2; k < RECORDS; k++)
        out[k].i = -out[k].i;
    MUST(MPI_File_write_at(fh, (MPI_Offset)(RECORDS / 2) * ENC, out + RECORDS / 2,
                           RECORDS - RECORDS / 2, mem, &st));
    MUST(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_sync(fh));
    long n = (long)size * RECORDS * ENC;
    unsigned char *file = malloc((size_t)n), want[ENC];
    int fd = open(p, O_RDONLY);
    CHECK(fd >= 0 && pread(fd, file, (size_t)n, 0) == n);
    if (fd >= 0)
        close(fd);
    int next = (rank + 1) % size;
    for (int k = 0; k < RECORDS; k++) {
        record_t v = value(next, k);
        if (k >= RECORDS / 2)
            v.i = -v.i;
        encode(&v, want);
        CHECK(memcmp(file + ((long)k * size + next) * ENC, want, ENC) == 0);
    }
    free(file);

    /* MPI_LONG: 4 bytes in external32, 8 here. A view of longs is scaled to the file's sizes:
     * each rank's LONGS longs, every size-th block of 2 (a vector: a portable type), at 4 bytes
     * each, after the records */
    enum { LONGS = 64 };
    MPI_Datatype lvec, lfile;
    MPI_Type_vector(1, 2, 2 * size, MPI_LONG, &lvec);
    MPI_Type_create_resized(lvec, 0, (MPI_Aint)8 * size, &lfile); /* in the file's bytes */
    MPI_Type_commit(&lfile);
    MUST(MPI_File_get_type_extent(fh, MPI_LONG, &extent));
    CHECK(extent == 4);
    MUST(MPI_File_get_type_extent(fh, lvec, &extent));
    CHECK(extent == 8); /* one block of 2 longs of 4 bytes (8 here: 16) */
    MPI_Offset base = (MPI_Offset)size * RECORDS * ENC;
    MUST(MPI_File_set_view(fh, base + (MPI_Offset)rank * 8, MPI_LONG, lfile, "external32",
                           MPI_INFO_NULL));
    long longs[LONGS], lback[LONGS];
    for (int k = 0; k < LONGS; k++)
        longs[k] = (long)rank * 1000000 - k * 12345 - 7;
    MUST(MPI_File_write_all(fh, longs, LONGS, MPI_LONG, &st));
    MPI_Get_count(&st, MPI_LONG, &count);
    CHECK(count == LONGS);
    MPI_Offset pos;
    MUST(MPI_File_get_position(fh, &pos));
    CHECK(pos == LONGS);
    MUST(MPI_File_get_byte_offset(fh, 3, &disp));
    CHECK(disp == base + (MPI_Offset)rank * 8 + (MPI_Offset)8 * size + 4);
    MUST(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MUST(MPI_File_sync(fh));
    fd = open(p, O_RDONLY);
    unsigned char lfile_bytes[4 * LONGS], lwant[4];
    for (int k = 0; k < LONGS; k++) {
        int32_t v = (int32_t)((long)next * 1000000 - k * 12345 - 7);
        big_endian(lwant, &v, 4);
        CHECK(fd >= 0 &&
              pread(fd, lfile_bytes, 4,
                    base + ((MPI_Offset)(k / 2) * size + next) * 8 + (k % 2) * 4) == 4 &&
              memcmp(lfile_bytes, lwant, 4) == 0);
    }
    if (fd >= 0)
        close(fd);
    memset(lback, 0, sizeof(lback));
    MUST(MPI_File_read_at(fh, 0, lback, LONGS, MPI_LONG, &st));
    MPI_Get_count(&st, MPI_LONG, &count);
    CHECK(count == LONGS);
    CHECK(memcmp(lback, longs, sizeof(longs)) == 0);
    MPI_Type_free(&lvec);
    MPI_Type_free(&lfile);

    MUST(MPI_File_close(&fh));
    MPI_Type_free(&mem);
    MPI_Type_free(&packed);
    MPI_Type_free(&ftype);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MUST(MPI_File_delete(p, MPI_INFO_NULL));
        if (rmdir(dir) != 0) {
            fprintf(stderr, "file_external32: rmdir %s: %s\n", dir, strerror(errno));
            errors++;
        }
    }
    int all_errors;
    MPI_Allreduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("file_external32: %s\n", all_errors ? "FAILED" : "ok");
    MPI_Finalize();
    return all_errors ? 1 : 0;
}
