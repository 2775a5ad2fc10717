/* One-sided MPI_Put and MPI_Get under MPI_Win_fence, on the three flavors of windows that hold
 * memory of the program or of MPI: MPI_Win_create (disp_unit 4, and 1, 8 and the size of a
 * struct), MPI_Win_allocate (a disp_unit of 4 or 8 that differs between ranks, so that the
 * target's scales target_disp, and sizes that differ) and MPI_Win_create_dynamic (two regions
 * attached on each rank, addressed by MPI_Get_address, then detached). Each rank writes to the
 * next rank and reads from the one before it, itself when alone. Datatypes: predefined ones,
 * and derived ones on either side: a vector origin into a contiguous target, an indexed target,
 * a struct (the padding of the target's records is left alone), a resized type, and origin and
 * target types that differ but have the same signature. A target of MPI_PROC_NULL and a count
 * of 0 change nothing. The fences use the assertions MPI_MODE_NOPRECEDE, _NOSUCCEED, _NOSTORE
 * and _NOPUT where they hold. The windows' attributes (MPI_WIN_BASE, _SIZE, _DISP_UNIT,
 * _CREATE_FLAVOR, _MODEL == MPI_WIN_UNIFIED), MPI_Win_get_group (MPI_IDENT to the
 * communicator's group), MPI_Win_set_name/_get_name and MPI_Win_get_info. Then a window over
 * each half of MPI_COMM_WORLD (MPI_Comm_split): its ranks are those of the half. Last, puts and
 * gets of megabytes, contiguous and strided, which the target, waiting in the fence, helps to
 * copy. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rma_put_get: rank %d, line %d: %s\n", rank, __LINE__, #cond);         \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* The value rank r writes for element i, and the one its window holds before a get. */
static int val(int r, int i)
{
    return r * 1000 + i;
}
static int wval(int r, int i)
{
    return r * 1000 + 500 + i;
}

/* Checks the predefined attributes of win, and its group against comm's, its name and info. */
static void check_win(MPI_Win win, MPI_Comm comm, void *base, MPI_Aint bytes, int disp_unit,
                      int flavor)
{
    void *b = (void *)&b;
    MPI_Aint *sz = NULL;
    int *du = NULL, *fl = NULL, *model = NULL, flag = 0;
    CHECK(MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &flag) == MPI_SUCCESS && flag);
    CHECK(b == base);
    flag = 0;
    CHECK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag) == MPI_SUCCESS && flag);
    CHECK(sz && *sz == bytes);
    flag = 0;
    CHECK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag) == MPI_SUCCESS && flag);
    CHECK(du && *du == disp_unit);
    flag = 0;
    CHECK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag) == MPI_SUCCESS && flag);
    CHECK(fl && *fl == flavor);
    flag = 0;
    CHECK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag) == MPI_SUCCESS && flag);
    CHECK(model && *model == MPI_WIN_UNIFIED);

    MPI_Group wg = MPI_GROUP_NULL, cg = MPI_GROUP_NULL;
    int result = -1;
    CHECK(MPI_Win_get_group(win, &wg) == MPI_SUCCESS && wg != MPI_GROUP_NULL);
    MPI_Comm_group(comm, &cg);
    MPI_Group_compare(wg, cg, &result);
    CHECK(result == MPI_IDENT);
    MPI_Group_free(&wg);
    MPI_Group_free(&cg);

    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK(MPI_Win_get_name(win, name, &len) == MPI_SUCCESS && len == 0 && name[0] == '\0');
    CHECK(MPI_Win_set_name(win, "rma_put_get window") == MPI_SUCCESS);
    CHECK(MPI_Win_get_name(win, name, &len) == MPI_SUCCESS);
    CHECK(len == (int)strlen("rma_put_get window") && strcmp(name, "rma_put_get window") == 0);

    MPI_Info info = MPI_INFO_NULL;
    CHECK(MPI_Win_get_info(win, &info) == MPI_SUCCESS && info != MPI_INFO_NULL);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
}

enum { W = 64 }; /* ints in the window of MPI_Win_create */
static int wbuf[W], src[W], dst[W];

/* Sets the window's memory (plain stores, no epoch being open where others access it): -1 for
 * a put, wval(rank, i) for a get. */
static void fill_window(int for_get)
{
    for (int i = 0; i < W; i++)
        wbuf[i] = for_get ? wval(rank, i) : -1;
}

/* Checks that the window holds val(from, map[j]) at at[j] for j < n, and -1 elsewhere. */
static void check_window(int from, int n, const int *at, const int *map, int line)
{
    int expect[W];
    for (int i = 0; i < W; i++)
        expect[i] = -1;
    for (int j = 0; j < n; j++)
        expect[at[j]] = val(from, map ? map[j] : j);
    for (int i = 0; i < W; i++)
        if (wbuf[i] != expect[i]) {
            fprintf(stderr, "rma_put_get: rank %d, line %d: window[%d] = %d, not %d\n", rank, line,
                    i, wbuf[i], expect[i]);
            errors++;
            return;
        }
}

struct rec {
    int a;
    double b;
    char c;
};

static void test_create(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int left2 = (left + size - 1) % size;
    MPI_Win win;
    fill_window(0);
    CHECK(MPI_Win_create(wbuf, sizeof wbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
          MPI_SUCCESS);
    check_win(win, MPI_COMM_WORLD, wbuf, sizeof wbuf, sizeof(int), MPI_WIN_FLAVOR_CREATE);

    /* Predefined types; MPI_PROC_NULL and zero counts change nothing. */
    for (int i = 0; i < W; i++) {
        src[i] = val(rank, i);
        dst[i] = -7;
    }
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS);
    CHECK(MPI_Put(src, 8, MPI_INT, right, 2, 8, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Put(src, 8, MPI_INT, MPI_PROC_NULL, 20, 8, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Get(dst, 8, MPI_INT, MPI_PROC_NULL, 20, 8, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Put(src, 0, MPI_INT, right, 30, 0, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Get(dst, 0, MPI_INT, right, 30, 0, MPI_INT, win) == MPI_SUCCESS);
    /* No store to the window in this epoch; only gets in the next one. */
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win) == MPI_SUCCESS);
    {
        static const int at[] = {2, 3, 4, 5, 6, 7, 8, 9};
        check_window(left, 8, at, NULL, __LINE__);
    }
    for (int i = 0; i < W; i++)
        CHECK(dst[i] == -7);
    /* Get what the left neighbour received from its own left neighbour. */
    CHECK(MPI_Get(dst + 1, 8, MPI_INT, left, 2, 8, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE, win) == MPI_SUCCESS);
    CHECK(dst[0] == -7 && dst[9] == -7);
    for (int i = 0; i < 8; i++)
        CHECK(dst[1 + i] == val(left2, i));

    /* A vector origin (4 blocks of 2, stride 3) into 8 contiguous ints. */
    MPI_Datatype vec;
    MPI_Type_vector(4, 2, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    fill_window(0);
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS);
    CHECK(MPI_Put(src, 1, vec, right, 5, 8, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE, win) == MPI_SUCCESS);
    {
        static const int at[] = {5, 6, 7, 8, 9, 10, 11, 12}, map[] = {0, 1, 3, 4, 6, 7, 9, 10};
        check_window(left, 8, at, map, __LINE__);
    }

    /* 6 contiguous ints into an indexed target: blocks {2, 1, 3} at {0, 5, 9}, from disp 3. */
    MPI_Datatype idx;
    static const int blens[] = {2, 1, 3}, displs[] = {0, 5, 9};
    MPI_Type_indexed(3, blens, displs, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    fill_window(0);
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS);
    CHECK(MPI_Put(src, 6, MPI_INT, right, 3, 1, idx, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE, win) == MPI_SUCCESS);
    {
        static const int at[] = {3, 4, 8, 12, 13, 14};
        check_window(left, 6, at, NULL, __LINE__);
    }

    /* A resized int of extent 3 ints: 4 of them at target 1, 4, 7, 10; and, as the origin of a
     * put, every third int of src into 4 contiguous ones. */
    MPI_Datatype every3;
    MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &every3);
    MPI_Type_commit(&every3);
    fill_window(0);
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS);
    CHECK(MPI_Put(src, 4, MPI_INT, right, 1, 4, every3, win) == MPI_SUCCESS);
    CHECK(MPI_Put(src + 1, 4, every3, right, 40, 4, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE, win) == MPI_SUCCESS);
    {
        static const int at[] = {1, 4, 7, 10, 40, 41, 42, 43}, map[] = {0, 1, 2, 3, 1, 4, 7, 10};
        check_window(left, 8, at, map, __LINE__);
    }

    /* Same signature, different types: 2 x contiguous(3) into 3 x contiguous(2) at 20, and
     * contiguous(6) into 6 ints at 50. */
    MPI_Datatype c3, c2, c6;
    MPI_Type_contiguous(3, MPI_INT, &c3);
    MPI_Type_contiguous(2, MPI_INT, &c2);
    MPI_Type_contiguous(6, MPI_INT, &c6);
    MPI_Type_commit(&c3);
    MPI_Type_commit(&c2);
    MPI_Type_commit(&c6);
    fill_window(0);
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS);
    CHECK(MPI_Put(src, 2, c3, right, 20, 3, c2, win) == MPI_SUCCESS);
    CHECK(MPI_Put(src + 10, 1, c6, right, 50, 6, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE, win) == MPI_SUCCESS);
    {
        static const int at[] = {20, 21, 22, 23, 24, 25, 50, 51, 52, 53, 54, 55};
        static const int map[] = {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15};
        check_window(left, 12, at, map, __LINE__);
    }

    /* Gets with derived types on both sides, from windows that hold wval(owner, i): an indexed
     * target into a vector origin; a contiguous target into a resized origin; 3 x c2 into
     * 2 x c3. The window is only read: NOPUT. */
    fill_window(1);
    for (int i = 0; i < W; i++)
        dst[i] = -7;
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOPUT, win) == MPI_SUCCESS);
    /* 3 blocks of 2, stride 3 (dst 0, 1, 3, 4, 6, 7) from idx at 3 (window 3, 4, 8, 12, 13, 14). */
    MPI_Datatype vec3;
    MPI_Type_vector(3, 2, 3, MPI_INT, &vec3);
    MPI_Type_commit(&vec3);
    CHECK(MPI_Get(dst, 1, vec3, left, 3, 1, idx, win) == MPI_SUCCESS);
    CHECK(MPI_Get(dst + 20, 4, every3, left, 30, 4, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Get(dst + 40, 2, c3, left, 44, 3, c2, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE, win) == MPI_SUCCESS);
    {
        /* What each int of dst must hold: -7 where no get wrote. */
        int expect[W];
        for (int i = 0; i < W; i++)
            expect[i] = -7;
        static const int dat[] = {0, 1, 3, 4, 6, 7}, wat[] = {3, 4, 8, 12, 13, 14};
        for (int j = 0; j < 6; j++)
            expect[dat[j]] = wval(left, wat[j]);
        for (int j = 0; j < 4; j++)
            expect[20 + 3 * j] = wval(left, 30 + j);
        for (int j = 0; j < 6; j++)
            expect[40 + j] = wval(left, 44 + j);
        for (int i = 0; i < W; i++)
            if (dst[i] != expect[i]) {
                CHECK(dst[i] == expect[i]);
                fprintf(stderr, "rma_put_get: rank %d: dst[%d] = %d, not %d\n", rank, i, dst[i],
                        expect[i]);
                break;
            }
    }
    CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS && win == MPI_WIN_NULL);
    MPI_Type_free(&vec);
    MPI_Type_free(&vec3);
    MPI_Type_free(&idx);
    MPI_Type_free(&every3);
    MPI_Type_free(&c3);
    MPI_Type_free(&c2);
    MPI_Type_free(&c6);
}

/* disp_unit 1 (bytes), 8 (doubles) and sizeof(struct rec) (records of a struct type). */
static void test_disp_units(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win win;

    /* disp_unit 1: 4 chars at byte 5, an int at byte 12, a double at byte 24. */
    static unsigned char bytes[64];
    memset(bytes, 0xEE, sizeof bytes);
    CHECK(MPI_Win_create(bytes, sizeof bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
          MPI_SUCCESS);
    char chars[4] = {(char)('a' + rank % 26), 'b', 'c', 'd'};
    int one = val(rank, 1);
    double d = rank + 0.25;
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS);
    CHECK(MPI_Put(chars, 4, MPI_CHAR, right, 5, 4, MPI_CHAR, win) == MPI_SUCCESS);
    CHECK(MPI_Put(&one, 1, MPI_INT, right, 12, 1, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Put(&d, 1, MPI_DOUBLE, right, 24, 1, MPI_DOUBLE, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS);
    CHECK(bytes[4] == 0xEE && bytes[9] == 0xEE && bytes[11] == 0xEE && bytes[16] == 0xEE);
    CHECK(bytes[23] == 0xEE && bytes[32] == 0xEE);
    CHECK(bytes[5] == 'a' + left % 26 && bytes[6] == 'b' && bytes[7] == 'c' && bytes[8] == 'd');
    int i12;
    double d24;
    memcpy(&i12, bytes + 12, sizeof i12);
    memcpy(&d24, bytes + 24, sizeof d24);
    CHECK(i12 == val(left, 1) && d24 == left + 0.25);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);

    /* disp_unit 8 over doubles: 2 doubles at disp 3 (bytes 24..39), an int at disp 1 (bytes
     * 8..11), and a get of disp 3 back. */
    static double dbl[16];
    for (int i = 0; i < 16; i++)
        dbl[i] = -1;
    CHECK(MPI_Win_create(dbl, sizeof dbl, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
    double two[2] = {rank + 0.5, rank + 0.75}, back[2] = {0, 0};
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS);
    CHECK(MPI_Put(two, 2, MPI_DOUBLE, right, 3, 2, MPI_DOUBLE, win) == MPI_SUCCESS);
    CHECK(MPI_Put(&one, 1, MPI_INT, right, 1, 1, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win) == MPI_SUCCESS);
    CHECK(dbl[2] == -1 && dbl[3] == left + 0.5 && dbl[4] == left + 0.75 && dbl[5] == -1);
    CHECK(dbl[0] == -1);
    memcpy(&i12, (char *)dbl + 8, sizeof i12);
    CHECK(i12 == val(left, 1));
    CHECK(MPI_Get(back, 2, MPI_DOUBLE, right, 3, 2, MPI_DOUBLE, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS);
    CHECK(back[0] == rank + 0.5 && back[1] == rank + 0.75);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);

    /* A struct type (int, double, char, resized to the record) over records: 2 at disp 1. The
     * padding of the target's records is not in the type: it stays as it was. */
    static struct rec recs[4];
    memset(recs, 0xEE, sizeof recs);
    MPI_Datatype st, rect;
    int bl[3] = {1, 1, 1};
    MPI_Aint dis[3] = {offsetof(struct rec, a), offsetof(struct rec, b), offsetof(struct rec, c)};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(3, bl, dis, types, &st);
    MPI_Type_create_resized(st, 0, sizeof(struct rec), &rect);
    MPI_Type_commit(&rect);
    CHECK(MPI_Win_create(recs, sizeof recs, sizeof(struct rec), MPI_INFO_NULL, MPI_COMM_WORLD,
                         &win) == MPI_SUCCESS);
    struct rec mine[2];
    memset(mine, 0, sizeof mine);
    for (int i = 0; i < 2; i++) {
        mine[i].a = val(rank, i);
        mine[i].b = rank + i * 0.5;
        mine[i].c = (char)('A' + i);
    }
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS);
    CHECK(MPI_Put(mine, 2, rect, right, 1, 2, rect, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS);
    for (int i = 0; i < 2; i++) {
        struct rec *r = &recs[1 + i];
        CHECK(r->a == val(left, i) && r->b == left + i * 0.5 && r->c == 'A' + i);
        const unsigned char *p = (const unsigned char *)r;
        for (size_t k = offsetof(struct rec, a) + sizeof(int); k < offsetof(struct rec, b); k++)
            CHECK(p[k] == 0xEE);
        for (size_t k = offsetof(struct rec, c) + 1; k < sizeof(struct rec); k++)
            CHECK(p[k] == 0xEE);
    }
    const unsigned char *p0 = (const unsigned char *)&recs[0],
                        *p3 = (const unsigned char *)&recs[3];
    for (size_t k = 0; k < sizeof(struct rec); k++)
        CHECK(p0[k] == 0xEE && p3[k] == 0xEE);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
    MPI_Type_free(&st);
    MPI_Type_free(&rect);
}

/* MPI_Win_allocate: each rank's size and disp_unit differ (4 on even ranks, 8 on odd ones); a
 * put at target_disp 3 lands 3 target units into the target. And a large put and get. */
static void test_allocate(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    enum { BIG = 1 << 14 }; /* ints */
    int du = rank % 2 ? 8 : 4, rdu = right % 2 ? 8 : 4;
    /* Sizes are multiples of 64 bytes: MPICH 4.0's MPI_Win_allocate misplaces other sizes. */
    MPI_Aint bytes = (MPI_Aint)BIG * sizeof(int) + 64 + rank * 64;
    char *base = NULL;
    MPI_Win win;
    CHECK(MPI_Win_allocate(bytes, du, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) == MPI_SUCCESS);
    CHECK(base != NULL);
    check_win(win, MPI_COMM_WORLD, base, bytes, du, MPI_WIN_FLAVOR_ALLOCATE);
    memset(base, 0xEE, bytes);
    int *big = malloc(BIG * sizeof(int)), *got = malloc(BIG * sizeof(int));
    for (int i = 0; i < BIG; i++) {
        big[i] = val(rank, i);
        got[i] = -1;
    }
    int pair[2] = {val(rank, 0), val(rank, 1)};
    /* Bytes 64.. of the target hold the big array: at disp 64 / rdu. */
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS);
    CHECK(MPI_Put(pair, 2, MPI_INT, right, 3, 2, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Put(big, BIG, MPI_INT, right, 64 / rdu, BIG, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win) == MPI_SUCCESS);
    int at[2];
    memcpy(at, base + 3 * du, sizeof at);
    CHECK(at[0] == val(left, 0) && at[1] == val(left, 1));
    CHECK((unsigned char)base[3 * du - 1] == 0xEE && (unsigned char)base[3 * du + 8] == 0xEE);
    const int *wbig = (const int *)(base + 64);
    for (int i = 0; i < BIG; i++)
        if (wbig[i] != val(left, i)) {
            CHECK(wbig[i] == val(left, i));
            break;
        }
    for (MPI_Aint k = 64 + (MPI_Aint)BIG * sizeof(int); k < bytes; k++)
        CHECK((unsigned char)base[k] == 0xEE);
    /* Get back from the right neighbour what it received: ours. */
    CHECK(MPI_Get(got, BIG, MPI_INT, right, 64 / rdu, BIG, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS);
    for (int i = 0; i < BIG; i++)
        if (got[i] != val(rank, i)) {
            CHECK(got[i] == val(rank, i));
            break;
        }
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS && win == MPI_WIN_NULL);
    free(big);
    free(got);
}

/* MPI_Win_create_dynamic: two regions attached per rank, their addresses exchanged. */
static void test_dynamic(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win win;
    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
    check_win(win, MPI_COMM_WORLD, MPI_BOTTOM, 0, 1, MPI_WIN_FLAVOR_DYNAMIC);
    int *r1 = malloc(16 * sizeof(int)), *r2 = malloc(32 * sizeof(int));
    for (int i = 0; i < 16; i++)
        r1[i] = -1;
    for (int i = 0; i < 32; i++)
        r2[i] = wval(rank, i);
    CHECK(MPI_Win_attach(win, r1, 16 * sizeof(int)) == MPI_SUCCESS);
    CHECK(MPI_Win_attach(win, r2, 32 * sizeof(int)) == MPI_SUCCESS);
    MPI_Aint mine[2], *all = malloc(2 * size * sizeof(MPI_Aint));
    MPI_Get_address(r1, &mine[0]);
    MPI_Get_address(r2 + 4, &mine[1]);
    MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD);
    for (int i = 0; i < W; i++) {
        src[i] = val(rank, i);
        dst[i] = -7;
    }
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS);
    CHECK(MPI_Put(src, 16, MPI_INT, right, all[2 * right], 16, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Get(dst, 8, MPI_INT, left, MPI_Aint_add(all[2 * left + 1], 2 * sizeof(int)), 8,
                  MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS);
    for (int i = 0; i < 16; i++)
        CHECK(r1[i] == val(left, i));
    for (int i = 0; i < 8; i++)
        CHECK(dst[i] == wval(left, 6 + i));
    CHECK(dst[8] == -7);
    CHECK(MPI_Win_detach(win, r1) == MPI_SUCCESS);
    CHECK(MPI_Win_detach(win, r2) == MPI_SUCCESS);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS && win == MPI_WIN_NULL);
    free(r1);
    free(r2);
    free(all);
}

/* A window over each half of MPI_COMM_WORLD: its ranks are the half's. */
static void test_split(void)
{
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    int right = (hrank + 1) % hsize, left = (hrank + hsize - 1) % hsize;
    int *base = NULL;
    MPI_Win win;
    CHECK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, half, &base, &win) ==
          MPI_SUCCESS);
    check_win(win, half, base, 4 * sizeof(int), sizeof(int), MPI_WIN_FLAVOR_ALLOCATE);
    MPI_Group wg, world;
    int result = -1;
    MPI_Win_get_group(win, &wg);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_compare(wg, world, &result);
    CHECK(result == (hsize == size ? MPI_IDENT : MPI_UNEQUAL));
    MPI_Group_free(&wg);
    MPI_Group_free(&world);
    for (int i = 0; i < 4; i++)
        base[i] = -1;
    int ids[2] = {rank, hrank}, got[2] = {-1, -1};
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS);
    CHECK(MPI_Put(ids, 2, MPI_INT, right, 1, 2, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win) == MPI_SUCCESS);
    /* The world rank of the half's left neighbour. */
    int wleft = rank < size / 2 ? left : size / 2 + left;
    CHECK(base[0] == -1 && base[1] == wleft && base[2] == left && base[3] == -1);
    CHECK(MPI_Get(got, 2, MPI_INT, left, 1, 2, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS);
    int hleft2 = (left + hsize - 1) % hsize;
    CHECK(got[0] == (rank < size / 2 ? hleft2 : size / 2 + hleft2) && got[1] == hleft2);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
    MPI_Comm_free(&half);
}

/* 2 MiB of ints put to the next rank (contiguous origin, every other int of the target: a
 * vector) and got back from the previous one (a vector origin from a contiguous target). */
static void test_large(void)
{
    enum { N = 1 << 19 }; /* ints: 2 MiB of data */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *mem, *out = malloc(N * sizeof(int)), *in = malloc(2 * N * sizeof(int));
    MPI_Win win;
    MPI_Datatype every_other;
    MPI_Type_vector(N, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    CHECK(MPI_Win_allocate(2 * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                           &win) == MPI_SUCCESS);
    for (int i = 0; i < 2 * N; i++)
        mem[i] = -1;
    for (int i = 0; i < N; i++)
        out[i] = rank * N + i;
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win) == MPI_SUCCESS);
    CHECK(MPI_Put(out, N, MPI_INT, right, 0, 1, every_other, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
    int bad = 0;
    for (int i = 0; i < 2 * N && !bad; i++)
        bad = mem[i] != (i % 2 ? -1 : left * N + i / 2);
    CHECK(!bad);
    for (int i = 0; i < 2 * N; i++)
        in[i] = -2;
    CHECK(MPI_Get(in, 1, every_other, left, 0, N, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win) == MPI_SUCCESS);
    /* left's memory holds, at even places, what left's own left put there */
    int from = (left + size - 1) % size;
    bad = 0;
    for (int i = 0; i < 2 * N && !bad; i++)
        bad = in[i] != (i % 2 ? -2 : (i / 2 % 2 ? -1 : from * N + i / 4));
    CHECK(!bad);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
    MPI_Type_free(&every_other);
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    test_create();
    test_disp_units();
    test_allocate();
    test_dynamic();
    test_split();
    test_large();

    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("rma_put_get: ok\n");
    MPI_Finalize();
    return all ? 1 : 0;
}
