/* Unit tests of io/: the file bytes a view gives each stream byte, accesses through views to a
 * real file (contiguous and packed buffers, the end of the file), the I/O threads, and atomic
 * mode under real threads. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/io.h"
#include "tests/unit/fake_rt.h"

static void setup(void)
{
    fake_rt_setup(0, 1);
    ck_assert_int_eq(MPI_Init(NULL, NULL), MPI_SUCCESS);
}

static tm_mpi_type_t *lookup(MPI_Datatype h)
{
    tm_mpi_type_t *t = NULL;

    ck_assert_int_eq(tm_mpi_type_lookup(h, &t), 0);
    return t;
}

/* A committed type: blocks of 4-byte ints at the given int displacements, tiled every
 * `extent` bytes. */
static MPI_Datatype ints_at(int n, const int *lens, const int *disps, MPI_Aint extent)
{
    MPI_Datatype t, r;

    ck_assert_int_eq(MPI_Type_indexed(n, lens, disps, MPI_INT, &t), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_create_resized(t, 0, extent, &r), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&r), MPI_SUCCESS);
    MPI_Type_free(&t);
    return r;
}

/* A file of its own, holding `n` bytes of `fill`, opened read-write for `members` members. */
static tm_io_shared_t *temp_file_of(char *path, int members, size_t n, int fill)
{
    tm_io_shared_t *sh = NULL;
    char *bytes = malloc(n ? n : 1);

    memset(bytes, fill, n);
    strcpy(path, "/tmp/tm_test_io.XXXXXX"); /* mkstemp's template */
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, bytes, n, 0), (ssize_t)n);
    close(fd);
    free(bytes);
    ck_assert_int_eq(
        tm_io_shared_open(path, MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, members, &sh), 0);
    return sh;
}

/* An empty file of its own, for one member. */
static tm_io_shared_t *temp_file(char *path)
{
    return temp_file_of(path, 1, 0, 0);
}

/* Blocks [0, 12) and [20, 32) of every 40 bytes, from byte 100 on. */
START_TEST(test_view_map_holes)
{
    MPI_Datatype ft = ints_at(2, (int[]){3, 3}, (int[]){0, 5}, 40);
    tm_io_view_t v = {0};
    MPI_Offset run;

    tm_io_view_set(&v, 100, lookup(MPI_INT), lookup(ft), lookup(MPI_INT), lookup(ft), "native");
    ck_assert_int_eq(tm_io_view_map(&v, 0, &run), 100);
    ck_assert_int_eq(run, 12);
    ck_assert_int_eq(tm_io_view_map(&v, 5, &run), 105);
    ck_assert_int_eq(run, 7);
    ck_assert_int_eq(tm_io_view_map(&v, 12, &run), 120);
    ck_assert_int_eq(run, 12);
    ck_assert_int_eq(tm_io_view_map(&v, 24, &run), 140); /* the second tile */
    ck_assert_int_eq(run, 12);
    ck_assert_int_eq(tm_io_view_map(&v, 47, &run), 171);
    ck_assert_int_eq(run, 1);

    ck_assert_int_eq(tm_io_view_bytes_before(&v, 50), 0);
    ck_assert_int_eq(tm_io_view_bytes_before(&v, 100), 0);
    ck_assert_int_eq(tm_io_view_bytes_before(&v, 112), 12);
    ck_assert_int_eq(tm_io_view_bytes_before(&v, 115), 12); /* in the hole */
    ck_assert_int_eq(tm_io_view_bytes_before(&v, 124), 16);
    ck_assert_int_eq(tm_io_view_bytes_before(&v, 140), 24);
    ck_assert_int_eq(tm_io_view_bytes_before(&v, 150), 34);
    tm_io_view_clear(&v);
    MPI_Type_free(&ft);
}
END_TEST

/* A run goes on into the next tile when the last block of one meets the first of the next. */
START_TEST(test_view_map_runs_merge)
{
    MPI_Datatype ft = ints_at(2, (int[]){1, 1}, (int[]){0, 3}, 16);
    tm_io_view_t v = {0};
    MPI_Offset run;

    tm_io_view_set(&v, 0, lookup(MPI_INT), lookup(ft), lookup(MPI_INT), lookup(ft), "native");
    ck_assert_int_eq(tm_io_view_map(&v, 0, &run), 0);
    ck_assert_int_eq(run, 4);
    ck_assert_int_eq(tm_io_view_map(&v, 4, &run), 12); /* [12, 16) then [16, 20) */
    ck_assert_int_eq(run, 8);
    tm_io_view_clear(&v);
    MPI_Type_free(&ft);

    /* Without holes the stream is the file from disp on: one run to the end. */
    tm_io_view_set(&v, 7, lookup(MPI_INT), lookup(MPI_INT), lookup(MPI_INT), lookup(MPI_INT),
                   "native");
    ck_assert_int_eq(tm_io_view_map(&v, 1000, &run), 1007);
    ck_assert_int_ge(run, (MPI_Offset)1 << 40);
    ck_assert_int_eq(tm_io_view_bytes_before(&v, 1007), 1000);
    tm_io_view_clear(&v);
}
END_TEST

/* Writes through a view with holes, checks the file byte by byte, reads back into a buffer with
 * holes of its own, and stops short at the end of the file. */
START_TEST(test_access_view)
{
    char path[64];
    tm_io_file_t f = {.shared = temp_file(path)};
    MPI_Datatype ft = ints_at(2, (int[]){1, 2}, (int[]){1, 4}, 32); /* [4,8) [16,24) of 32 */
    int data[9], back[18];
    size_t bytes;

    for (int i = 0; i < 9; i++)
        data[i] = 1000 + i;
    tm_io_view_set(&f.view, 8, lookup(MPI_INT), lookup(ft), lookup(MPI_INT), lookup(ft), "native");
    ck_assert_int_eq(tm_io_access(&f, 0, data, 9, lookup(MPI_INT), true, &bytes), 0);
    ck_assert_int_eq(bytes, 36);

    /* Tiles at 8, 40, 72: data 0 at tile+4, data 1-2 at tile+16; the holes never written. */
    unsigned char file[8 + 96];
    ck_assert_int_eq(pread(f.shared->fd, file, sizeof(file), 0), 8 + 64 + 24);
    for (int t = 0; t < 3; t++) {
        int v;
        memcpy(&v, file + 8 + 32 * t + 4, 4);
        ck_assert_int_eq(v, 1000 + 3 * t);
        memcpy(&v, file + 8 + 32 * t + 16, 4);
        ck_assert_int_eq(v, 1000 + 3 * t + 1);
        memcpy(&v, file + 8 + 32 * t + 20, 4);
        ck_assert_int_eq(v, 1000 + 3 * t + 2);
        for (int b = 0; b < 4; b++)
            ck_assert_int_eq(file[8 + 32 * t + b], 0);
        for (int b = 8; b < 16; b++)
            ck_assert_int_eq(file[8 + 32 * t + b], 0);
    }

    /* Back from etype 2 on, into every other int of `back` (a packed buffer). */
    MPI_Datatype every_other;
    ck_assert_int_eq(MPI_Type_vector(9, 1, 2, MPI_INT, &every_other), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&every_other), MPI_SUCCESS);
    memset(back, 0xff, sizeof(back));
    ck_assert_int_eq(tm_io_access(&f, 2 * 4, back, 1, lookup(every_other), false, &bytes), 0);
    ck_assert_int_eq(bytes, 7 * 4); /* the file ends after etype 8 */
    for (int i = 0; i < 7; i++) {
        ck_assert_int_eq(back[2 * i], 1002 + i);
        ck_assert_int_eq(back[2 * i + 1], -1);
    }
    ck_assert_int_eq(back[14], -1);

    MPI_Type_free(&every_other);
    MPI_Type_free(&ft);
    tm_io_view_clear(&f.view);
    ck_assert_int_eq(tm_io_shared_release(f.shared), 0);
    ck_assert_int_ne(access(path, F_OK), 0); /* MPI_MODE_DELETE_ON_CLOSE */
}
END_TEST

/* A packed buffer larger than TM_IO_CHUNK goes through in chunks. */
START_TEST(test_access_chunks)
{
    char path[64];
    tm_io_file_t f = {.shared = temp_file(path)};
    size_t n = TM_IO_CHUNK / 4 + 1000; /* ints of data, every other int of the buffer */
    int *buf = malloc(2 * n * sizeof(int)), *file = malloc(n * sizeof(int));
    MPI_Datatype every_other;
    size_t bytes;

    for (size_t i = 0; i < 2 * n; i++)
        buf[i] = i % 2 ? -1 : (int)(i / 2);
    ck_assert_int_eq(MPI_Type_vector((int)n, 1, 2, MPI_INT, &every_other), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&every_other), MPI_SUCCESS);
    tm_io_view_set(&f.view, 0, lookup(MPI_BYTE), lookup(MPI_BYTE), lookup(MPI_BYTE),
                   lookup(MPI_BYTE), "native");
    ck_assert_int_eq(tm_io_access(&f, 0, buf, 1, lookup(every_other), true, &bytes), 0);
    ck_assert_int_eq(bytes, n * 4);
    ck_assert_int_eq(pread(f.shared->fd, file, n * 4, 0), (ssize_t)(n * 4));
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(file[i], (int)i);
    MPI_Type_free(&every_other);
    tm_io_view_clear(&f.view);
    tm_io_shared_release(f.shared);
    free(buf);
    free(file);
}
END_TEST

typedef struct done_flag {
    tm_io_job_t job;
    _Atomic int done;
    size_t bytes;
    int err;
} done_flag_t;

static void job_done(tm_io_job_t *job, size_t bytes, int err)
{
    done_flag_t *d = (done_flag_t *)job;

    d->bytes = bytes;
    d->err = err;
    atomic_store_explicit(&d->done, 1, memory_order_release);
}

/* Jobs run in the I/O threads, each calling its `done` once with what it moved. */
START_TEST(test_worker_jobs)
{
    char path[64];
    tm_io_file_t f = {.shared = temp_file(path)};
    enum { JOBS = 16, INTS = 1024 };
    static int data[JOBS][INTS], back[JOBS][INTS];
    done_flag_t w[JOBS], r[JOBS];

    tm_io_view_set(&f.view, 0, lookup(MPI_INT), lookup(MPI_INT), lookup(MPI_INT), lookup(MPI_INT),
                   "native");
    for (int j = 0; j < JOBS; j++) {
        for (int i = 0; i < INTS; i++)
            data[j][i] = j * INTS + i;
        w[j] = (done_flag_t){.job = {.file = &f,
                                     .off = (MPI_Offset)j * INTS * 4,
                                     .buf = data[j],
                                     .count = INTS,
                                     .type = lookup(MPI_INT),
                                     .write = true,
                                     .done = job_done}};
        ck_assert_int_eq(tm_io_job_post(&w[j].job), 0);
    }
    for (int j = 0; j < JOBS; j++) {
        while (!atomic_load_explicit(&w[j].done, memory_order_acquire))
            sched_yield();
        ck_assert_int_eq(w[j].err, 0);
        ck_assert_int_eq(w[j].bytes, INTS * 4);
    }
    for (int j = 0; j < JOBS; j++) {
        r[j] = (done_flag_t){.job = {.file = &f,
                                     .off = (MPI_Offset)(JOBS - 1 - j) * INTS * 4,
                                     .buf = back[j],
                                     .count = INTS,
                                     .type = lookup(MPI_INT),
                                     .done = job_done}};
        ck_assert_int_eq(tm_io_job_post(&r[j].job), 0);
    }
    for (int j = 0; j < JOBS; j++) {
        while (!atomic_load_explicit(&r[j].done, memory_order_acquire))
            sched_yield();
        ck_assert_int_eq(r[j].bytes, INTS * 4);
        ck_assert_int_eq(memcmp(back[j], data[JOBS - 1 - j], sizeof(back[j])), 0);
    }
    tm_io_jobs_wait(&f); /* before f goes */
    ck_assert_int_eq(atomic_load(&f.jobs), 0);
    tm_io_view_clear(&f.view);
    tm_io_shared_release(f.shared);
}
END_TEST

/* Atomic mode: writers of whole patterns, each access many runs, and a reader that must see one
 * pattern whole, never a mix. */
enum { ATOMIC_INTS = 256, ATOMIC_ROUNDS = 300 };

typedef struct atomic_arg {
    tm_io_file_t *f;
    int pattern; /* 0: the reader */
    int mixed;
} atomic_arg_t;

static void *atomic_main(void *p)
{
    atomic_arg_t *a = p;
    int buf[ATOMIC_INTS];
    size_t bytes;

    for (int k = 0; k < ATOMIC_ROUNDS; k++) {
        if (a->pattern) {
            for (int i = 0; i < ATOMIC_INTS; i++)
                buf[i] = a->pattern;
            tm_io_access(a->f, 0, buf, ATOMIC_INTS, lookup(MPI_INT), true, &bytes);
        } else {
            tm_io_access(a->f, 0, buf, ATOMIC_INTS, lookup(MPI_INT), false, &bytes);
            for (int i = 1; i < (int)(bytes / 4); i++)
                if (buf[i] != buf[0])
                    a->mixed++;
        }
    }
    return NULL;
}

START_TEST(test_atomic_mode)
{
    char path[64];
    tm_io_shared_t *sh = temp_file(path);
    /* One int of every two: ATOMIC_INTS runs per access. */
    MPI_Datatype ft = ints_at(1, (int[]){1}, (int[]){0}, 8);
    tm_io_file_t f[3] = {{.shared = sh}, {.shared = sh}, {.shared = sh}};
    atomic_arg_t args[3];
    pthread_t t[3];

    atomic_store(&sh->atomic, true);
    for (int i = 0; i < 3; i++) {
        tm_io_view_set(&f[i].view, 0, lookup(MPI_INT), lookup(ft), lookup(MPI_INT), lookup(ft),
                       "native");
        args[i] = (atomic_arg_t){&f[i], i, 0};
    }
    int first[ATOMIC_INTS];
    size_t bytes;
    for (int i = 0; i < ATOMIC_INTS; i++)
        first[i] = 1;
    ck_assert_int_eq(tm_io_access(&f[0], 0, first, ATOMIC_INTS, lookup(MPI_INT), true, &bytes), 0);
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, atomic_main, &args[i]);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    ck_assert_int_eq(args[0].mixed, 0);
    for (int i = 0; i < 3; i++)
        tm_io_view_clear(&f[i].view);
    MPI_Type_free(&ft);
    tm_io_shared_release(sh);
}
END_TEST

/* A part of a collective access: len stream bytes of buf from stream byte off of view v. */
static tm_io_part_t part_of(tm_io_view_t *v, MPI_Offset off, void *buf, size_t len, int mode)
{
    MPI_Offset run;
    tm_io_part_t p = {.view = v,
                      .off = off,
                      .len = len,
                      .buf = buf,
                      .count = len,
                      .type = lookup(MPI_BYTE),
                      .aggregators = 2,
                      .buffer_size = 64 << 10,
                      .mode = mode};

    if (len > 0) {
        p.lo = tm_io_view_map(v, off, &run);
        p.hi = tm_io_view_map(v, off + (MPI_Offset)len - 1, &run) + 1;
    }
    return p;
}

/* Aggregation is wanted when the members' file ranges interleave, or when a hint says so. */
START_TEST(test_collective_wanted)
{
    char path[64];
    tm_io_shared_t *sh = temp_file_of(path, 3, 0, 0);
    tm_io_view_t v = {0};
    char buf[64];

    tm_io_view_set(&v, 0, lookup(MPI_BYTE), lookup(MPI_BYTE), lookup(MPI_BYTE), lookup(MPI_BYTE),
                   "native");
    tm_io_part_t *p = sh->parts[0];
    p[0] = part_of(&v, 20, buf, 10, TM_IO_COLLECTIVE_AUTO); /* [20, 30) */
    p[1] = part_of(&v, 0, buf, 10, TM_IO_COLLECTIVE_AUTO);  /* [0, 10) */
    p[2] = part_of(&v, 10, buf, 10, TM_IO_COLLECTIVE_AUTO); /* [10, 20) */
    ck_assert(!tm_io_collective_wanted(sh, 0));
    p[0].mode = TM_IO_COLLECTIVE_ENABLE; /* the first member's hint decides */
    ck_assert(tm_io_collective_wanted(sh, 0));
    p[0] = part_of(&v, 5, buf, 10, TM_IO_COLLECTIVE_AUTO); /* [5, 15): overlaps [0, 10) */
    ck_assert(tm_io_collective_wanted(sh, 0));
    p[0].mode = TM_IO_COLLECTIVE_DISABLE;
    ck_assert(!tm_io_collective_wanted(sh, 0));
    p[0] = part_of(&v, 5, buf, 0, TM_IO_COLLECTIVE_AUTO); /* no data: never overlaps */
    ck_assert(!tm_io_collective_wanted(sh, 0));
    ck_assert_int_eq(tm_io_collective_aggregator(0, 2, 7), 0);
    ck_assert_int_eq(tm_io_collective_aggregator(1, 2, 7), 3);
    tm_io_view_clear(&v);
    for (int i = 0; i < 3; i++)
        tm_io_shared_release(sh);
}
END_TEST

/* Two members whose records interleave, written then read by the two aggregators in turn: the
 * file holds both members' bytes and, in the holes nobody writes, what it held before. */
START_TEST(test_collective_run)
{
    char path[64];
    enum { N = 50000 }; /* records of 4 bytes of data and 4 of hole, per member */
    MPI_Datatype ft = ints_at(1, (int[]){1}, (int[]){0}, 16);
    tm_io_view_t v[2] = {{0}, {0}};
    tm_io_buffer_t b = {0};
    static int data[2][N], back[2][N];
    static unsigned char file[16 * N];

    tm_io_shared_t *sh = temp_file_of(path, 2, sizeof(file), 0xab);
    for (int m = 0; m < 2; m++) {
        tm_io_view_set(&v[m], 8 * m, lookup(MPI_INT), lookup(ft), lookup(MPI_INT), lookup(ft),
                       "native");
        for (int i = 0; i < N; i++)
            data[m][i] = m * 1000000 + i;
        sh->parts[1][m] = part_of(&v[m], 0, data[m], 4 * N, TM_IO_COLLECTIVE_ENABLE);
    }
    ck_assert(tm_io_collective_wanted(sh, 1));
    for (int a = 0; a < 2; a++)
        tm_io_collective_run(sh, 1, a, true, &b);
    ck_assert_int_eq(atomic_load(&sh->parts[1][0].err), 0);
    ck_assert_int_eq(pread(sh->fd, file, sizeof(file), 0), (ssize_t)sizeof(file));
    for (int i = 0; i < N; i++)
        for (int m = 0; m < 2; m++) {
            int got;
            memcpy(&got, file + 16 * i + 8 * m, 4);
            ck_assert_int_eq(got, m * 1000000 + i);
            for (int h = 4; h < 8; h++)
                ck_assert_int_eq(file[16 * i + 8 * m + h], 0xab);
        }
    for (int m = 0; m < 2; m++)
        sh->parts[0][m] = part_of(&v[m], 0, back[m], 4 * N, TM_IO_COLLECTIVE_ENABLE);
    for (int a = 0; a < 2; a++)
        tm_io_collective_run(sh, 0, a, false, &b);
    ck_assert_int_eq(memcmp(back, data, sizeof(back)), 0);
    ck_assert_int_eq(tm_io_collective_read_bytes(&sh->parts[0][1], 16 * N - 8), 4 * N - 4);
    free(b.data);
    for (int m = 0; m < 2; m++)
        tm_io_view_clear(&v[m]);
    MPI_Type_free(&ft);
    tm_io_shared_release(sh);
    tm_io_shared_release(sh);
}
END_TEST

static Suite *io_suite(void)
{
    Suite *s = suite_create("io");
    TCase *tc = tcase_create("io");

    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_view_map_holes);
    tcase_add_test(tc, test_view_map_runs_merge);
    tcase_add_test(tc, test_access_view);
    tcase_add_test(tc, test_access_chunks);
    tcase_add_test(tc, test_worker_jobs);
    tcase_add_test(tc, test_atomic_mode);
    tcase_add_test(tc, test_collective_wanted);
    tcase_add_test(tc, test_collective_run);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(io_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
