/*
 * MPI-IO bandwidth in the spirit of IOR: every rank writes its blocks of one shared file, then
 * reads them back and checks them, in two layouts and two modes:
 *
 *   segmented   rank r's blocks are one segment, at r * blocks * BLOCK: each rank writes its
 *               whole segment with one call at its offset (MPI_File_write_at / _at_all)
 *   strided     block k of rank r is at (k * size + r) * BLOCK: each rank sets a view (a vector
 *               filetype: one block of every `size`) and writes all its blocks with one call
 *               (MPI_File_write / _all)
 *   indep       the independent calls; coll: their collective (_all) forms
 *
 * The file lives in the directory -d (default: $TMPDIR or /tmp) and is removed at the end.
 * Each figure is the whole job's: from a barrier before every rank's call to a barrier after
 * the last, -r times over (default 3), the data of all ranks over that time. Output: one line
 * per figure, "NAME BYTES B MB/s" (BYTES: the block size), and "# WRONG ..." when a rank read
 * back other bytes than it wrote.
 *
 *   io [-b BLOCK] [-n BLOCKS] [-r REPS] [-d DIR] [-c NAME,NAME...]
 *        NAME: write_segmented_indep, read_segmented_indep, ..._coll, ..._strided_...
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

/* The byte at position i of rank r's data. */
static unsigned char data_byte(int r, long i)
{
    return (unsigned char)(r * 37 + i * 13 + (i >> 12));
}

/* Seconds for reps accesses of the whole data (every rank's), barrier to barrier. */
static double timed(MPI_File fh, int write, int strided, int coll, char *buf, long block,
                    int blocks, int reps, int *short_p)
{
    MPI_Offset seg = (MPI_Offset)block * blocks;
    int count = (int)(seg > 1 << 30 ? 0 : seg), got;
    MPI_Status st;

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int k = 0; k < reps; k++) {
        if (strided) {
            MPI_File_seek(fh, 0, MPI_SEEK_SET);
            if (write)
                (coll ? MPI_File_write_all : MPI_File_write)(fh, buf, count, MPI_BYTE, &st);
            else
                (coll ? MPI_File_read_all : MPI_File_read)(fh, buf, count, MPI_BYTE, &st);
        } else {
            MPI_Offset at = (MPI_Offset)rank * seg;
            if (write)
                (coll ? MPI_File_write_at_all : MPI_File_write_at)(fh, at, buf, count, MPI_BYTE,
                                                                   &st);
            else
                (coll ? MPI_File_read_at_all : MPI_File_read_at)(fh, at, buf, count, MPI_BYTE, &st);
        }
        MPI_Get_count(&st, MPI_BYTE, &got);
        if (got != count)
            *short_p = 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime() - t0;
}

/* Whether -c lets `name` run (NULL: every figure). */
static int selected(const char *only, const char *name)
{
    if (only == NULL)
        return 1;
    size_t n = strlen(name);
    for (const char *p = only; (p = strstr(p, name)) != NULL; p += n)
        if ((p == only || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    long block = 1 << 20;
    int blocks = 16, reps = 3, opt;
    const char *dir = getenv("TMPDIR"), *only = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((opt = getopt(argc, argv, "b:n:r:d:c:")) != -1) {
        switch (opt) {
        case 'b':
            block = atol(optarg);
            break;
        case 'n':
            blocks = atoi(optarg);
            break;
        case 'r':
            reps = atoi(optarg);
            break;
        case 'd':
            dir = optarg;
            break;
        case 'c':
            only = optarg;
            break;
        default:
            if (rank == 0)
                fprintf(stderr, "usage: io [-b BLOCK] [-n BLOCKS] [-r REPS] [-d DIR] [-c NAMES]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (block <= 0 || blocks <= 0 || reps <= 0 || block * blocks > 1 << 30) {
        if (rank == 0)
            fprintf(stderr, "io: BLOCK and BLOCKS must be positive, BLOCK * BLOCKS <= 1 GiB\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path[4096];
    if (rank == 0)
        snprintf(path, sizeof(path), "%s/tm_bench_io.%ld.%d", dir ? dir : "/tmp", (long)getpid(),
                 size);
    MPI_Bcast(path, sizeof(path), MPI_CHAR, 0, MPI_COMM_WORLD);

    long seg = block * blocks;
    char *buf = malloc((size_t)seg), *back = malloc((size_t)seg);
    for (long i = 0; i < seg; i++)
        buf[i] = (char)data_byte(rank, i);
    MPI_Datatype strided;
    MPI_Type_vector(blocks, (int)block, (int)(block * size), MPI_BYTE, &strided);
    MPI_Type_commit(&strided);
    double total = (double)seg * size * reps;

    for (int s = 0; s < 2; s++)
        for (int coll = 0; coll < 2; coll++) {
            char wname[64], rname[64];
            const char *layout = s ? "strided" : "segmented", *mode = coll ? "coll" : "indep";
            snprintf(wname, sizeof(wname), "write_%s_%s", layout, mode);
            snprintf(rname, sizeof(rname), "read_%s_%s", layout, mode);
            if (!selected(only, wname) && !selected(only, rname))
                continue;
            MPI_File fh;
            if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                              &fh) != MPI_SUCCESS) {
                if (rank == 0)
                    fprintf(stderr, "io: cannot open %s\n", path);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            if (s)
                MPI_File_set_view(fh, (MPI_Offset)rank * block, MPI_BYTE, strided, "native",
                                  MPI_INFO_NULL);
            int short_w = 0, short_r = 0;
            double tw = timed(fh, 1, s, coll, buf, block, blocks, reps, &short_w);
            MPI_File_sync(fh);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_File_sync(fh);
            memset(back, 0, (size_t)seg);
            double tr = timed(fh, 0, s, coll, back, block, blocks, reps, &short_r);
            if (short_w || short_r)
                printf("# WRONG: rank %d moved fewer bytes than asked (%s)\n", rank,
                       short_w ? wname : rname);
            if (memcmp(back, buf, (size_t)seg) != 0)
                printf("# WRONG: rank %d read back other bytes (%s)\n", rank, rname);
            MPI_File_close(&fh);
            if (rank == 0) {
                if (selected(only, wname))
                    printf("%s %ld B %.1f\n", wname, block, total / tw / 1e6);
                if (selected(only, rname))
                    printf("%s %ld B %.1f\n", rname, block, total / tr / 1e6);
                fflush(stdout);
                MPI_File_delete(path, MPI_INFO_NULL);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
    MPI_Type_free(&strided);
    free(buf);
    free(back);
    MPI_Finalize();
    return 0;
}
