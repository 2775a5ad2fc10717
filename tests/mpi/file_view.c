/* File views (MPI-3.1 13.3): MPI_File_set_view / _get_view, with each rank owning interleaved
 * parts of one file, under a fresh directory of $TMPDIR that rank 0 names and broadcasts:
 *   (a) a vector filetype: every size-th block of B ints (disp = rank's first block), written
 *       with MPI_File_write_all then MPI_File_write, two tiles of the filetype;
 *   (b) an indexed filetype of irregular blocks, and a hole nobody owns, written with
 *       MPI_File_write_at_all then MPI_File_write_at;
 *   (c) a subarray filetype: each rank's tile of a 2-D global array of doubles (MPI_ORDER_C);
 *   (d) a resized struct filetype of a derived etype (3 contiguous doubles), disp > 0 past a
 *       header rank 0 writes first; MPI_File_seek (MPI_SEEK_SET, _CUR, _END),
 *       MPI_File_get_position and MPI_File_get_byte_offset count etypes of the view.
 * Each time every rank checks the whole file byte for byte with POSIX pread against the
 * expected global layout (so each part is checked by other ranks than its writer), then reads
 * rank (r+1)%size's part through a view of it. MPI_File_get_view returns the disp, the etype
 * and filetype (predefined: the same handle; derived: an equivalent type the caller frees) and
 * "native"; MPI_File_set_view resets the file pointers to 0. Also: the "internal" data
 * representation accepted (data round-trips), and a filetype not made
 * of etypes refused. Usage: file_view (any number of ranks). */
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

#define FILE_TEST "file_view"
#include "file_test.h"

/* Every rank reads the whole file with POSIX: exactly n bytes, those of `want` where `care`
 * (if not NULL) is nonzero: the bytes of holes nobody wrote are undefined (MPICH's data sieving
 * fills them with its buffer's garbage). */
static void check_file(const char *p, const void *want, const char *care, size_t n, int line)
{
    unsigned char *got = malloc(n + 16);
    memset(got, 0xee, n + 16);
    int fd = open(p, O_RDONLY);
    CHECK_AT(line, fd >= 0);
    size_t have = 0;
    if (fd >= 0) {
        ssize_t k;
        while (have < n + 16 && (k = pread(fd, got + have, n + 16 - have, (off_t)have)) > 0)
            have += (size_t)k;
        close(fd);
    }
    CHECK_AT(line, have == n);
    if (care)
        for (size_t i = 0; i < n; i++)
            if (!care[i])
                got[i] = ((const unsigned char *)want)[i];
    same(got, want, n, "the file", line);
    free(got);
    MPI_Barrier(MPI_COMM_WORLD); /* before anyone changes the file again */
}

/* Whether a datatype is a predefined one. */
static int named(MPI_Datatype t)
{
    int ni, na, nd, combiner;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
    return combiner == MPI_COMBINER_NAMED;
}

/* `got` is the same type as `want`: the same handle if predefined, else an equivalent derived
 * type (same size, bounds, and the same bytes packed from one buffer). */
static void same_type(MPI_Datatype got, MPI_Datatype want, int line)
{
    if (named(want)) {
        CHECK_AT(line, got == want);
        return;
    }
    CHECK_AT(line, !named(got));
    int gs = -1, ws = -2;
    MPI_Aint glb, gext, wlb, wext, gtlb, gtext, wtlb, wtext;
    MPI_Type_size(got, &gs);
    MPI_Type_size(want, &ws);
    MPI_Type_get_extent(got, &glb, &gext);
    MPI_Type_get_extent(want, &wlb, &wext);
    MPI_Type_get_true_extent(got, &gtlb, &gtext);
    MPI_Type_get_true_extent(want, &wtlb, &wtext);
    CHECK_AT(line, gs == ws && glb == wlb && gext == wext && gtlb == wtlb && gtext == wtext);
    if (gs != ws || gtlb != wtlb || gtext != wtext || wtlb < 0)
        return;
    size_t span = (size_t)(wtlb + wtext);
    unsigned char *src = malloc(span), *pg = malloc((size_t)ws), *pw = malloc((size_t)ws);
    for (size_t i = 0; i < span; i++)
        src[i] = (unsigned char)(i * 13 + 5);
    int posg = 0, posw = 0;
    MUST(MPI_Pack(src, 1, got, pg, ws, &posg, MPI_COMM_SELF));
    MUST(MPI_Pack(src, 1, want, pw, ws, &posw, MPI_COMM_SELF));
    CHECK_AT(line, posg == ws && posw == ws);
    same(pg, pw, (size_t)ws, "the type map of the view's filetype", line);
    free(src);
    free(pg);
    free(pw);
}

/* MPI_File_get_view returns this view (and data representation `rep` unless NULL); the caller
 * frees what is derived. */
static void check_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype ftype,
                       const char *rep, int line)
{
    MPI_Offset d = -1;
    MPI_Datatype e = MPI_DATATYPE_NULL, f = MPI_DATATYPE_NULL;
    char r[MPI_MAX_DATAREP_STRING + 1] = "?";
    MUST(MPI_File_get_view(fh, &d, &e, &f, r));
    CHECK_AT(line, d == disp);
    CHECK_AT(line, !rep || strcmp(r, rep) == 0);
    same_type(e, etype, line);
    same_type(f, ftype, line);
    if (!named(e))
        MPI_Type_free(&e);
    if (!named(f))
        MPI_Type_free(&f);
}

static void check_position(MPI_File fh, MPI_Offset want, int line)
{
    MPI_Offset pos = -1;
    MUST(MPI_File_get_position(fh, &pos));
    CHECK_AT(line, pos == want);
}

/* The value of element i of rank r's part in section s. */
static int ival(int s, int r, int i)
{
    return s * 1000000 + r * 1000 + i + 1;
}

static double dval(int s, int r, int i)
{
    return s * 1000000.0 + r * 1000.0 + i + 0.125;
}

/* (a) Blocks of B ints dealt round robin: a tile of the filetype holds R of a rank's blocks. */
enum { B = 4, R = 3 };

static void test_vector(void)
{
    char p[PATHLEN + 32];
    path(p, "vector");
    MPI_File fh = create(p);
    int next = (rank + 1) % size, per = R * B, n = 2 * per; /* two tiles each */
    MPI_Datatype vec, ftype;
    MPI_Type_vector(R, B, size * B, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)R * size * B * sizeof(int), &ftype);
    MPI_Type_commit(&ftype);
    MPI_Type_free(&vec);

    /* The default view first: bytes from 0. */
    check_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", __LINE__);
    MPI_Offset disp = rank * B * (MPI_Offset)sizeof(int);
    MUST(MPI_File_seek(fh, 40, MPI_SEEK_SET));
    MUST(MPI_File_set_view(fh, disp, MPI_INT, ftype, "native", MPI_INFO_NULL));
    check_view(fh, disp, MPI_INT, ftype, "native", __LINE__);
    check_position(fh, 0, __LINE__); /* reset by the new view */

    int *buf = malloc(n * sizeof(int)), *want = calloc((size_t)size * n, sizeof(int));
    for (int i = 0; i < n; i++)
        buf[i] = ival(1, rank, i);
    MPI_Status st;
    MUST(MPI_File_write_all(fh, buf, per, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == per);
    check_position(fh, per, __LINE__);
    MUST(MPI_File_write(fh, buf + per, per, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == per);
    check_position(fh, n, __LINE__);
    settle(fh);

    /* Global int g: block g / B, owned by rank (g / B) % size, its element
     * (g / B / size) * B + g % B. */
    for (int g = 0; g < size * n; g++)
        want[g] = ival(1, g / B % size, g / B / size * B + g % B);
    check_file(p, want, NULL, (size_t)size * n * sizeof(int), __LINE__);

    /* The next rank's part through a view of it. */
    MPI_Offset ndisp = next * B * (MPI_Offset)sizeof(int);
    MUST(MPI_File_set_view(fh, ndisp, MPI_INT, ftype, "native", MPI_INFO_NULL));
    check_view(fh, ndisp, MPI_INT, ftype, "native", __LINE__);
    memset(buf, 0xff, n * sizeof(int));
    MUST(MPI_File_read_all(fh, buf, n, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == n);
    for (int i = 0; i < n; i++)
        want[i] = ival(1, next, i);
    SAME(buf, want, n * sizeof(int));

    free(buf);
    free(want);
    MPI_Type_free(&ftype);
    MUST(MPI_File_close(&fh));
    delete_file(p);
}

/* (b) A tile: the first blocks of all ranks in rank order (rank k: 1 + k % 3 ints), a hole of
 * HOLE ints nobody writes, the second blocks in reverse rank order (2 + 5k % 4 ints). */
enum { HOLE = 2 };

static int len_a(int r)
{
    return 1 + r % 3;
}

static int len_b(int r)
{
    return 2 + r * 5 % 4;
}

static int tile_ints(void)
{
    int t = HOLE;
    for (int k = 0; k < size; k++)
        t += len_a(k) + len_b(k);
    return t;
}

/* Rank r's two blocks in the tile, in ints. */
static void blocks(int r, int *off)
{
    int sa = 0, after = 0;
    for (int k = 0; k < size; k++)
        sa += len_a(k);
    for (int k = r + 1; k < size; k++)
        after += len_b(k);
    off[0] = 0;
    for (int k = 0; k < r; k++)
        off[0] += len_a(k);
    off[1] = sa + HOLE + after;
}

static MPI_Datatype indexed_type(int r)
{
    int off[2], len[2] = {len_a(r), len_b(r)};
    blocks(r, off);
    MPI_Datatype idx, ftype;
    MPI_Type_indexed(2, len, off, MPI_INT, &idx);
    MPI_Type_create_resized(idx, 0, (MPI_Aint)tile_ints() * sizeof(int), &ftype);
    MPI_Type_commit(&ftype);
    MPI_Type_free(&idx);
    return ftype;
}

/* Where rank r's element i lands, in ints from the start of the file. */
static int indexed_place(int r, int i)
{
    int off[2], per = len_a(r) + len_b(r), j = i % per;
    blocks(r, off);
    return i / per * tile_ints() + (j < len_a(r) ? off[0] + j : off[1] + j - len_a(r));
}

static void test_indexed(void)
{
    char p[PATHLEN + 32];
    path(p, "indexed");
    MPI_File fh = create(p);
    int next = (rank + 1) % size, T = tile_ints();
    int per = len_a(rank) + len_b(rank), n = 2 * per;
    MPI_Datatype ftype = indexed_type(rank);
    MUST(MPI_File_set_view(fh, 0, MPI_INT, ftype, "native", MPI_INFO_NULL));
    check_view(fh, 0, MPI_INT, ftype, "native", __LINE__);

    /* Tile 0 collectively, tile 1 independently, both at explicit offsets (in etypes). */
    int buf[32], *want = calloc(2 * (size_t)T, sizeof(int));
    for (int i = 0; i < n; i++)
        buf[i] = ival(2, rank, i);
    MPI_Status st;
    MUST(MPI_File_write_at_all(fh, 0, buf, per, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == per);
    MUST(MPI_File_write_at(fh, per, buf + per, per, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == per);
    check_position(fh, 0, __LINE__); /* explicit offsets leave the pointer */
    settle(fh);

    /* Every rank's ints in place, the holes not compared; the file ends with rank 0's second
     * block of tile 1. */
    char *care = calloc(2 * (size_t)T, sizeof(int));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < 2 * (len_a(r) + len_b(r)); i++) {
            want[indexed_place(r, i)] = ival(2, r, i);
            memset(care + indexed_place(r, i) * sizeof(int), 1, sizeof(int));
        }
    check_file(p, want, care, 2 * (size_t)T * sizeof(int), __LINE__);
    free(care);

    /* The next rank's part through its view. */
    MPI_Datatype nftype = indexed_type(next);
    int nn = 2 * (len_a(next) + len_b(next));
    MUST(MPI_File_set_view(fh, 0, MPI_INT, nftype, "native", MPI_INFO_NULL));
    check_view(fh, 0, MPI_INT, nftype, "native", __LINE__);
    memset(buf, 0xff, sizeof buf);
    MUST(MPI_File_read_at_all(fh, 0, buf, nn, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == nn);
    for (int i = 0; i < nn; i++)
        want[i] = ival(2, next, i);
    want[nn] = -1;
    SAME(buf, want, (nn + 1) * sizeof(int));

    free(want);
    MPI_Type_free(&ftype);
    MPI_Type_free(&nftype);
    MUST(MPI_File_close(&fh));
    delete_file(p);
}

/* (c) A global GR x GC array of doubles, row-major, in tiles of TR x TC on a process grid. */
enum { TR = 3, TC = 4 };

static int dims[2];

static MPI_Datatype tile_type(int r)
{
    int gsizes[2] = {dims[0] * TR, dims[1] * TC}, subs[2] = {TR, TC};
    int starts[2] = {r / dims[1] * TR, r % dims[1] * TC};
    MPI_Datatype t;
    MPI_Type_create_subarray(2, gsizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

static double cell(int i, int j)
{
    return 3000000.0 + i * 1000.0 + j + 0.5;
}

static void test_subarray(void)
{
    char p[PATHLEN + 32];
    path(p, "subarray");
    MPI_File fh = create(p);
    int next = (rank + 1) % size;
    MPI_Dims_create(size, 2, dims);
    int GR = dims[0] * TR, GC = dims[1] * TC;
    MPI_Datatype ftype = tile_type(rank);
    MUST(MPI_File_set_view(fh, 0, MPI_DOUBLE, ftype, "native", MPI_INFO_NULL));
    check_view(fh, 0, MPI_DOUBLE, ftype, "native", __LINE__);

    double mine[TR * TC], got[TR * TC + 1], want_tile[TR * TC + 1];
    double *want = malloc((size_t)GR * GC * sizeof(double));
    int r0 = rank / dims[1] * TR, c0 = rank % dims[1] * TC;
    for (int i = 0; i < TR; i++)
        for (int j = 0; j < TC; j++)
            mine[i * TC + j] = cell(r0 + i, c0 + j);
    MPI_Status st;
    MUST(MPI_File_write_all(fh, mine, TR * TC, MPI_DOUBLE, &st));
    CHECK(count_of(&st, MPI_DOUBLE) == TR * TC);
    check_position(fh, TR * TC, __LINE__);
    settle(fh);
    for (int i = 0; i < GR; i++)
        for (int j = 0; j < GC; j++)
            want[i * GC + j] = cell(i, j);
    check_file(p, want, NULL, (size_t)GR * GC * sizeof(double), __LINE__);

    /* The next rank's tile, and nothing past it in memory touched. */
    MPI_Datatype nftype = tile_type(next);
    MUST(MPI_File_set_view(fh, 0, MPI_DOUBLE, nftype, "native", MPI_INFO_NULL));
    check_view(fh, 0, MPI_DOUBLE, nftype, "native", __LINE__);
    for (int i = 0; i <= TR * TC; i++)
        got[i] = want_tile[i] = -1.0;
    r0 = next / dims[1] * TR;
    c0 = next % dims[1] * TC;
    for (int i = 0; i < TR; i++)
        for (int j = 0; j < TC; j++)
            want_tile[i * TC + j] = cell(r0 + i, c0 + j);
    MUST(MPI_File_read_all(fh, got, TR * TC, MPI_DOUBLE, &st));
    CHECK(count_of(&st, MPI_DOUBLE) == TR * TC);
    SAME(got, want_tile, sizeof got);

    free(want);
    MPI_Type_free(&ftype);
    MPI_Type_free(&nftype);
    MUST(MPI_File_close(&fh));
    delete_file(p);
}

/* (d) etype: 3 doubles. A tile: one etype of each rank in rank order, then two of each rank in
 * rank order; the view starts past a header of HDR bytes. */
enum { HDR = 100, V3 = 3 * sizeof(double) };

static MPI_Datatype struct_type(int r, MPI_Datatype vec3)
{
    int len[2] = {1, 2};
    MPI_Aint off[2] = {(MPI_Aint)r * V3, (MPI_Aint)size * V3 + (MPI_Aint)r * 2 * V3};
    MPI_Datatype types[2] = {vec3, vec3}, st, ftype;
    MPI_Type_create_struct(2, len, off, types, &st);
    MPI_Type_create_resized(st, 0, (MPI_Aint)size * 3 * V3, &ftype);
    MPI_Type_commit(&ftype);
    MPI_Type_free(&st);
    return ftype;
}

/* The byte offset of rank r's etype e. */
static long struct_place(int r, int e)
{
    long tile = HDR + (long)e / 3 * size * 3 * V3;
    int j = e % 3;
    return j == 0 ? tile + (long)r * V3 : tile + (long)size * V3 + (long)r * 2 * V3 + (j - 1) * V3;
}

static void test_struct(void)
{
    char p[PATHLEN + 32];
    path(p, "struct");
    MPI_File fh = create(p);
    int next = (rank + 1) % size;
    enum { E = 6 }; /* etypes per rank: two tiles */
    MPI_Datatype vec3;
    MPI_Type_contiguous(3, MPI_DOUBLE, &vec3);
    MPI_Type_commit(&vec3);
    MPI_Datatype ftype = struct_type(rank, vec3);
    MPI_Status st;

    /* The header through the default view. */
    char hdr[HDR];
    for (int i = 0; i < HDR; i++)
        hdr[i] = (char)('A' + i % 26);
    if (rank == 0) {
        MUST(MPI_File_write_at(fh, 0, hdr, HDR, MPI_CHAR, &st));
        CHECK(count_of(&st, MPI_CHAR) == HDR);
    }
    settle(fh);

    MUST(MPI_File_set_view(fh, HDR, vec3, ftype, "native", MPI_INFO_NULL));
    check_view(fh, HDR, vec3, ftype, "native", __LINE__);
    double buf[3 * E + 1];
    for (int i = 0; i < 3 * E; i++)
        buf[i] = dval(4, rank, i);
    /* Independent, in doubles: 3 * E doubles are E etypes. */
    MUST(MPI_File_write(fh, buf, 3 * E, MPI_DOUBLE, &st));
    CHECK(count_of(&st, MPI_DOUBLE) == 3 * E);
    CHECK(count_of(&st, vec3) == E);
    check_position(fh, E, __LINE__);

    /* Byte offsets of etype offsets in the view. */
    for (int e = 0; e <= E; e++) {
        MPI_Offset byte = -1;
        MUST(MPI_File_get_byte_offset(fh, e, &byte));
        CHECK(byte == struct_place(rank, e));
    }
    settle(fh);

    long fsize = HDR + 2L * size * 3 * V3;
    unsigned char *want = malloc((size_t)fsize);
    memcpy(want, hdr, HDR);
    for (int r = 0; r < size; r++)
        for (int e = 0; e < E; e++) {
            double v[3] = {dval(4, r, 3 * e), dval(4, r, 3 * e + 1), dval(4, r, 3 * e + 2)};
            memcpy(want + struct_place(r, e), v, V3);
        }
    check_file(p, want, NULL, (size_t)fsize, __LINE__);

    /* Seeking counts etypes of the view: 2, then 1 more, reads the rank's etype 3. */
    double got[3 * E + 1], exp[3 * E + 1];
    MUST(MPI_File_seek(fh, 2, MPI_SEEK_SET));
    check_position(fh, 2, __LINE__);
    MUST(MPI_File_seek(fh, 1, MPI_SEEK_CUR));
    check_position(fh, 3, __LINE__);
    MUST(MPI_File_read(fh, got, 1, vec3, &st));
    CHECK(count_of(&st, vec3) == 1);
    for (int i = 0; i < 3; i++)
        exp[i] = dval(4, rank, 9 + i);
    SAME(got, exp, V3);
    check_position(fh, 4, __LINE__);
    /* The end of the file, in the view, is past every rank's last etype: at E. (Open MPI 4.1
     * gets this wrong: open-mpi/ompi#12952, fixed in 2024.) */
    MUST(MPI_File_seek(fh, 0, MPI_SEEK_END));
    check_position(fh, E, __LINE__);
    MUST(MPI_File_seek(fh, -2, MPI_SEEK_END));
    check_position(fh, E - 2, __LINE__);
    MUST(MPI_File_seek(fh, E - 2, MPI_SEEK_SET)); /* (the read checks no seek from the end) */
    MUST(MPI_File_read(fh, got, 6, MPI_DOUBLE, &st));
    CHECK(count_of(&st, MPI_DOUBLE) == 6);
    for (int i = 0; i < 6; i++)
        exp[i] = dval(4, rank, 3 * (E - 2) + i);
    SAME(got, exp, 6 * sizeof(double));
    check_position(fh, E, __LINE__);

    /* The next rank's etypes through its view, collectively. */
    MPI_Datatype nftype = struct_type(next, vec3);
    MUST(MPI_File_set_view(fh, HDR, vec3, nftype, "native", MPI_INFO_NULL));
    check_view(fh, HDR, vec3, nftype, "native", __LINE__);
    for (int i = 0; i <= 3 * E; i++) {
        got[i] = -1.0;
        exp[i] = i < 3 * E ? dval(4, next, i) : -1.0;
    }
    MUST(MPI_File_read_all(fh, got, E, vec3, &st));
    CHECK(count_of(&st, vec3) == E);
    SAME(got, exp, sizeof got);

    free(want);
    MPI_Type_free(&ftype);
    MPI_Type_free(&nftype);
    MPI_Type_free(&vec3);
    MUST(MPI_File_close(&fh));
    delete_file(p);
}

/* "internal" is a data representation every implementation supports (MPI-3.1 13.5.2): data
 * round-trips. Which name get_view returns is not checked (MPICH says "native"). (Open MPI 4.1
 * refuses "internal": open-mpi/ompi#6558.) */
static void test_internal(void)
{
    char p[PATHLEN + 32];
    path(p, "internal");
    MPI_File fh = create(p);
    int next = (rank + 1) % size, buf[8], got[8], want[8];
    MPI_Status st;
    MUST(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "internal", MPI_INFO_NULL));
    check_view(fh, 0, MPI_INT, MPI_INT, NULL, __LINE__);
    for (int i = 0; i < 8; i++) {
        buf[i] = ival(5, rank, i);
        want[i] = ival(5, next, i);
    }
    MUST(MPI_File_write_at_all(fh, rank * 8, buf, 8, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 8);
    settle(fh);
    memset(got, 0xff, sizeof got);
    MUST(MPI_File_read_at_all(fh, next * 8, got, 8, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 8);
    SAME(got, want, sizeof got);
    MUST(MPI_File_close(&fh));
    delete_file(p);
}

/* A filetype whose type map is not made of etypes (3 bytes, etype int) is refused; the file's
 * error handler is MPI_ERRORS_RETURN by default. The view in place still works after. */
static void test_bad_view(void)
{
    char p[PATHLEN + 32];
    path(p, "bad");
    MPI_File fh = create(p);
    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_BYTE, &three);
    MPI_Type_commit(&three);
    CHECK(MPI_File_set_view(fh, 0, MPI_INT, three, "native", MPI_INFO_NULL) != MPI_SUCCESS);
    MPI_Type_free(&three);
    int v = ival(6, rank, 0), got = -1;
    MPI_Status st;
    MUST(MPI_File_write_at(fh, rank * 4, &v, 1, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 1);
    MUST(MPI_File_read_at(fh, rank * 4, &got, 1, MPI_INT, &st));
    CHECK(got == v);
    MUST(MPI_File_close(&fh));
    delete_file(p);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_dir();

    test_vector();
    test_indexed();
    test_subarray();
    test_struct();
    test_internal();
    test_bad_view();

    /* Every file deleted: the directory is empty. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && rmdir(dir) != 0) {
        fprintf(stderr, "file_view: rmdir %s: %s\n", dir, strerror(errno));
        errors++;
    }
    int all_errors;
    MPI_Allreduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("file_view: %s\n", all_errors ? "FAILED" : "ok");
    MPI_Finalize();
    return all_errors ? 1 : 0;
}
