/*
 * Unit tests of shm/pool.c: arguments, cell layout, growth by chunks, reuse of cells freed by the
 * owner and by other threads, giving chunks back after a burst, NUMA placement, and that destroy
 * gives the memory back. They look
 * inside the pool (shm/pool.h) to count chunks.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shm/pool.h"

static tm_shm_pool_t *pool_new(size_t cell_size, int numa_node)
{
    tm_shm_pool_t *pool = NULL;

    ck_assert_int_eq(tm_shm_pool_create(cell_size, numa_node, &pool), 0);
    ck_assert_ptr_nonnull(pool);
    return pool;
}

static int compare_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;

    return (x > y) - (x < y);
}

/* Sorts and tells whether the n cells are pairwise distinct. */
static bool all_distinct(tm_shm_cell_t **cells, size_t n)
{
    qsort(cells, n, sizeof(*cells), compare_ptr);
    for (size_t i = 1; i < n; i++)
        if (cells[i] == cells[i - 1])
            return false;
    return true;
}

START_TEST(test_pool_create_args)
{
    tm_shm_pool_t *pool = (tm_shm_pool_t *)&pool; /* must stay untouched on failure */

    ck_assert_int_eq(tm_shm_pool_create(0, -1, &pool), -EINVAL);
    ck_assert_int_eq(tm_shm_pool_create(64, -3, &pool), -EINVAL);
    ck_assert_int_eq(tm_shm_pool_create(SIZE_MAX / 2, -1, &pool), -ENOMEM);
    if (numa_available() >= 0)
        ck_assert_int_eq(tm_shm_pool_create(64, numa_max_node() + 1, &pool), -EINVAL);
    ck_assert_ptr_eq(pool, (tm_shm_pool_t *)&pool);
    /* Node 0 exists on every machine (or is ignored without NUMA). */
    ck_assert_int_eq(tm_shm_pool_create(64, 0, &pool), 0);
    tm_shm_pool_destroy(pool);
    tm_shm_pool_destroy(NULL);
}
END_TEST

/* For sizes around cache lines and pages: the size is reported, data is aligned, every byte of
 * every cell is usable without touching another cell or its header. */
START_TEST(test_pool_cell_layout)
{
    static const size_t sizes[] = {1, 8, 63, 64, 65, 100, 4096, 5000, 65536};

    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        tm_shm_pool_t *pool = pool_new(sizes[s], -1);
        size_t n = 2 * pool->chunk_cells + 3;
        tm_shm_cell_t **cells = malloc(n * sizeof(*cells));

        ck_assert_ptr_nonnull(cells);
        ck_assert_uint_eq(tm_shm_pool_cell_size(pool), sizes[s]);
        ck_assert_uint_ge(pool->chunk_cells, TM_SHM_CHUNK_MIN_CELLS);
        for (size_t i = 0; i < n; i++) {
            cells[i] = tm_shm_cell_alloc(pool);
            ck_assert_ptr_nonnull(cells[i]);
            ck_assert_uint_eq((uintptr_t)cells[i] % TM_SHM_CACHE_LINE, 0);
            ck_assert_ptr_eq(cells[i]->pool, pool);
            memset(cells[i]->data, (int)(i & 0xff), sizes[s]);
        }
        for (size_t i = 0; i < n; i++) {
            ck_assert_ptr_eq(cells[i]->pool, pool);
            ck_assert_uint_eq(cells[i]->data[0], i & 0xff);
            ck_assert_uint_eq(cells[i]->data[sizes[s] - 1], i & 0xff);
        }
        for (size_t i = 0; i < n; i++)
            tm_shm_cell_free(cells[i]);
        ck_assert(all_distinct(cells, n));
        free(cells);
        tm_shm_pool_destroy(pool);
    }
}
END_TEST

/* Allocating beyond a chunk adds chunks one at a time, only when every cell is in use; once
 * freed, the same number of cells comes back without growing. */
START_TEST(test_pool_growth)
{
    tm_shm_pool_t *pool = pool_new(200, -1);
    size_t per_chunk = pool->chunk_cells, n = 3 * per_chunk + 1;
    tm_shm_cell_t **cells = malloc(n * sizeof(*cells));

    ck_assert_ptr_nonnull(cells);
    ck_assert_uint_eq(pool->nchunks, 1);
    for (size_t i = 0; i < n; i++) {
        cells[i] = tm_shm_cell_alloc(pool);
        ck_assert_ptr_nonnull(cells[i]);
        ck_assert_uint_eq(pool->nchunks, i / per_chunk + 1);
    }
    for (size_t i = 0; i < n; i++)
        tm_shm_cell_free(cells[i]);
    for (size_t i = 0; i < n; i++)
        ck_assert_ptr_nonnull(cells[i] = tm_shm_cell_alloc(pool));
    ck_assert_uint_eq(pool->nchunks, 4);
    ck_assert(all_distinct(cells, n));
    for (size_t i = 0; i < n; i++)
        tm_shm_cell_free(cells[i]);
    free(cells);
    tm_shm_pool_destroy(pool);
}
END_TEST

/* The owner frees a cell while its private list is empty: the next allocation returns that
 * cell rather than growing. */
START_TEST(test_pool_owner_free_reuse)
{
    tm_shm_pool_t *pool = pool_new(64, -1);
    size_t n = pool->chunk_cells;
    tm_shm_cell_t **cells = malloc(n * sizeof(*cells));

    ck_assert_ptr_nonnull(cells);
    for (size_t i = 0; i < n; i++)
        ck_assert_ptr_nonnull(cells[i] = tm_shm_cell_alloc(pool));
    tm_shm_cell_free(cells[n / 2]);
    ck_assert_ptr_eq(tm_shm_cell_alloc(pool), cells[n / 2]);
    ck_assert_uint_eq(pool->nchunks, 1);
    for (size_t i = 0; i < n; i++)
        tm_shm_cell_free(cells[i]);
    free(cells);
    tm_shm_pool_destroy(pool);
}
END_TEST

typedef struct remote_free_arg {
    tm_shm_cell_t **cells;
    size_t first, count;
} remote_free_arg_t;

static void *remote_free(void *arg)
{
    remote_free_arg_t *a = arg;

    for (size_t i = a->first; i < a->first + a->count; i++)
        tm_shm_cell_free(a->cells[i]);
    return NULL;
}

/* Two other threads free every cell, concurrently: the owner then gets exactly those cells back
 * (no growth, no cell twice, none foreign), and grows only after that. */
START_TEST(test_pool_remote_frees)
{
    tm_shm_pool_t *pool = pool_new(128, -1);
    size_t n = 2 * pool->chunk_cells;
    tm_shm_cell_t **cells = malloc(n * sizeof(*cells)), **again = malloc(n * sizeof(*cells));
    remote_free_arg_t args[2] = {{cells, 0, n / 2}, {cells, n / 2, n - n / 2}};
    pthread_t threads[2];

    ck_assert_ptr_nonnull(cells);
    ck_assert_ptr_nonnull(again);
    for (size_t i = 0; i < n; i++)
        ck_assert_ptr_nonnull(cells[i] = tm_shm_cell_alloc(pool));
    ck_assert_uint_eq(pool->nchunks, 2);
    ck_assert_ptr_null(pool->free_list);
    for (int t = 0; t < 2; t++)
        ck_assert_int_eq(pthread_create(&threads[t], NULL, remote_free, &args[t]), 0);
    for (int t = 0; t < 2; t++)
        pthread_join(threads[t], NULL);

    for (size_t i = 0; i < n; i++)
        ck_assert_ptr_nonnull(again[i] = tm_shm_cell_alloc(pool));
    ck_assert_uint_eq(pool->nchunks, 2);
    ck_assert(all_distinct(cells, n));
    ck_assert(all_distinct(again, n));
    for (size_t i = 0; i < n; i++)
        ck_assert_ptr_eq(again[i], cells[i]); /* both sorted: the same set */

    /* Both lists are empty now: the next allocation is a new chunk's. */
    tm_shm_cell_t *extra = tm_shm_cell_alloc(pool);
    ck_assert_ptr_nonnull(extra);
    ck_assert_uint_eq(pool->nchunks, 3);
    ck_assert_ptr_null(bsearch(&extra, cells, n, sizeof(*cells), compare_ptr));
    tm_shm_cell_free(extra);
    for (size_t i = 0; i < n; i++)
        tm_shm_cell_free(again[i]);
    free(again);
    free(cells);
    tm_shm_pool_destroy(pool);
}
END_TEST

static long vm_size_pages(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = -1;

    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fscanf(f, "%ld", &pages), 1);
    fclose(f);
    return pages;
}

/* A burst: many chunks' worth of cells out at once, then freed by another thread. The next
 * allocation finds every cell back and gives the chunks back but the first and a spare: the
 * process's address space shrinks by the others, the cell comes from the first chunk, and the
 * next growth reuses the spare before mapping anything. */
START_TEST(test_pool_gives_back)
{
    tm_shm_pool_t *pool = pool_new(4000, -1);
    size_t chunks = 10, n = chunks * pool->chunk_cells;
    long chunk_pages = (long)(pool->chunk_bytes / (size_t)sysconf(_SC_PAGESIZE));
    tm_shm_cell_t **cells = malloc(n * sizeof(*cells));
    remote_free_arg_t arg = {cells, 0, n};
    pthread_t thread;

    ck_assert_ptr_nonnull(cells);
    tm_shm_cell_t *first = tm_shm_cell_alloc(pool);
    tm_shm_cell_free(first);
    ck_assert_ptr_eq(cells[0] = tm_shm_cell_alloc(pool), first);
    for (size_t i = 1; i < n; i++)
        ck_assert_ptr_nonnull(cells[i] = tm_shm_cell_alloc(pool));
    ck_assert_uint_eq(pool->nchunks, chunks);
    ck_assert_int_eq(pthread_create(&thread, NULL, remote_free, &arg), 0);
    pthread_join(thread, NULL);
    long grown = vm_size_pages(); /* after the thread: glibc keeps its stack mapped */

    tm_shm_cell_t *cell = tm_shm_cell_alloc(pool);
    ck_assert_ptr_eq(cell, first);
    ck_assert_uint_eq(pool->nchunks, 1);
    ck_assert_ptr_nonnull(pool->spare);
    ck_assert_int_le(vm_size_pages(), grown - (long)(chunks - 2) * chunk_pages);

    /* The first chunk's cells again, then the spare's, then a new chunk. */
    cells[0] = cell;
    for (size_t i = 1; i < 2 * pool->chunk_cells + 1; i++)
        ck_assert_ptr_nonnull(cells[i] = tm_shm_cell_alloc(pool));
    ck_assert_uint_eq(pool->nchunks, 3);
    ck_assert_ptr_null(pool->spare);
    for (size_t i = 0; i < 2 * pool->chunk_cells + 1; i++)
        tm_shm_cell_free(cells[i]);
    free(cells);
    tm_shm_pool_destroy(pool);
}
END_TEST

/* Cells out while the pool takes some back: it gives nothing back until the last is free. */
START_TEST(test_pool_keeps_while_out)
{
    tm_shm_pool_t *pool = pool_new(4000, -1);
    size_t n = 3 * pool->chunk_cells;
    tm_shm_cell_t **cells = malloc(n * sizeof(*cells));

    ck_assert_ptr_nonnull(cells);
    for (size_t i = 0; i < n; i++)
        ck_assert_ptr_nonnull(cells[i] = tm_shm_cell_alloc(pool));
    for (size_t i = 1; i < n; i++)
        tm_shm_cell_free(cells[i]);
    /* All but cells[0] are back: reused, none given back. */
    for (size_t i = 1; i < n; i++) {
        ck_assert_ptr_nonnull(cells[i] = tm_shm_cell_alloc(pool));
        ck_assert_uint_eq(pool->nchunks, 3);
    }
    for (size_t i = 0; i < n; i++) {
        memset(cells[i]->data, 0x5a, 4000); /* still the caller's, all of them */
        tm_shm_cell_free(cells[i]);
    }
    tm_shm_cell_free(tm_shm_cell_alloc(pool));
    ck_assert_uint_eq(pool->nchunks, 1);
    free(cells);
    tm_shm_pool_destroy(pool);
}
END_TEST

/* A pool asked for node 0 has its cells' pages on node 0 (the only node checked: it exists on
 * every machine). Without NUMA, only that allocation works. */
START_TEST(test_pool_numa_node)
{
    tm_shm_pool_t *pool = pool_new(1000, 0);
    tm_shm_cell_t *cell = tm_shm_cell_alloc(pool);

    ck_assert_ptr_nonnull(cell);
    memset(cell->data, 1, 1000);
    if (numa_available() >= 0) {
        int node = -1;

        ck_assert(pool->numa);
        ck_assert_int_eq(get_mempolicy(&node, NULL, 0, cell->data, MPOL_F_NODE | MPOL_F_ADDR), 0);
        ck_assert_int_eq(node, 0);
    }
    tm_shm_cell_free(cell);
    tm_shm_pool_destroy(pool);
}
END_TEST

/* An interleaved pool's chunks have the interleave policy (over every node). */
START_TEST(test_pool_numa_interleave)
{
    tm_shm_pool_t *pool = pool_new(1000, TM_SHM_NUMA_INTERLEAVE);
    tm_shm_cell_t *cell = tm_shm_cell_alloc(pool);

    ck_assert_ptr_nonnull(cell);
    memset(cell->data, 1, 1000);
    if (numa_available() >= 0) {
        int mode = -1;

        ck_assert_int_eq(get_mempolicy(&mode, NULL, 0, cell->data, MPOL_F_ADDR), 0);
        ck_assert_int_eq(mode, MPOL_INTERLEAVE);
    }
    tm_shm_cell_free(cell);
    tm_shm_pool_destroy(pool);
    ck_assert_int_eq(tm_shm_pool_create(64, -3, &pool), -EINVAL);
}
END_TEST

/* Pools that grew to several chunks, created and destroyed over and over: the address space
 * stays flat. Leaked chunks (numa_alloc_* maps each one) would add DESTROY_ROUNDS * 4 of them. */
#define DESTROY_ROUNDS 200
/* A pool whose first chunk is the caller's: its first cells come from there, in order, the next
 * from a chunk of its own; destroy leaves the caller's memory alone (a free() of it would be
 * caught by the sanitizers, and the memory is written after). */
START_TEST(test_pool_create_in)
{
    size_t bytes = tm_shm_pool_chunk_bytes(100);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    ck_assert_uint_eq(bytes % page, 0);
    unsigned char *mem = aligned_alloc(page, 2 * bytes);
    ck_assert_ptr_nonnull(mem);
    tm_shm_pool_t *pool = NULL;
    ck_assert_int_eq(tm_shm_pool_create_in(100, -1, mem + 1, &pool), -EINVAL); /* not a page */
    ck_assert_int_eq(tm_shm_pool_create_in(0, -1, mem, &pool), -EINVAL);
    ck_assert_ptr_null(pool);
    ck_assert_int_eq(tm_shm_pool_create_in(100, 0, mem + bytes, &pool), 0);
    ck_assert_uint_eq(pool->chunk_bytes, bytes);
    size_t n = pool->chunk_cells + 1;
    tm_shm_cell_t **cells = malloc(n * sizeof *cells);
    for (size_t i = 0; i < n; i++) {
        cells[i] = tm_shm_cell_alloc(pool);
        ck_assert_ptr_nonnull(cells[i]);
        bool inside = (unsigned char *)cells[i] >= mem + bytes &&
                      (unsigned char *)cells[i] + pool->stride <= mem + 2 * bytes;
        ck_assert_msg(inside == (i < n - 1), "cell %zu %s the caller's chunk", i,
                      inside ? "inside" : "outside");
        memset(cells[i]->data, 0xa5, 100);
    }
    ck_assert_uint_eq(pool->nchunks, 2);
    for (size_t i = 0; i < n; i++)
        tm_shm_cell_free(cells[i]);
    tm_shm_pool_destroy(pool);
    memset(mem, 0, 2 * bytes);
    free(mem);
    free(cells);
}
END_TEST

START_TEST(test_pool_destroy_releases)
{
    long before = 0, after, chunk_pages = 0;

    for (int round = -1; round < DESTROY_ROUNDS; round++) {
        tm_shm_pool_t *pool = pool_new(4000, -1);
        size_t n = 3 * pool->chunk_cells + 1;
        tm_shm_cell_t **cells = malloc(n * sizeof(*cells));

        ck_assert_ptr_nonnull(cells);
        for (size_t i = 0; i < n; i++)
            ck_assert_ptr_nonnull(cells[i] = tm_shm_cell_alloc(pool));
        for (size_t i = 0; i < n; i++)
            tm_shm_cell_free(cells[i]);
        free(cells);
        chunk_pages = (long)(pool->chunk_bytes / (size_t)sysconf(_SC_PAGESIZE));
        tm_shm_pool_destroy(pool);
        /* Round -1 warms up whatever the allocators keep for themselves. */
        if (round == -1)
            before = vm_size_pages();
    }
    after = vm_size_pages();
    ck_assert_int_lt(after - before, DESTROY_ROUNDS * 4 * chunk_pages / 4);
}
END_TEST

static Suite *pool_suite(void)
{
    Suite *s = suite_create("shm_pool");
    TCase *tc = tcase_create("pool");

    tcase_add_test(tc, test_pool_create_args);
    tcase_add_test(tc, test_pool_cell_layout);
    tcase_add_test(tc, test_pool_growth);
    tcase_add_test(tc, test_pool_owner_free_reuse);
    tcase_add_test(tc, test_pool_remote_frees);
    tcase_add_test(tc, test_pool_gives_back);
    tcase_add_test(tc, test_pool_keeps_while_out);
    tcase_add_test(tc, test_pool_numa_node);
    tcase_add_test(tc, test_pool_numa_interleave);
    tcase_add_test(tc, test_pool_create_in);
    tcase_add_test(tc, test_pool_destroy_releases);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(pool_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
