/*
 * Unit tests of shm/ring.c: FIFO order over many laps, a full ring, cells freed out of order
 * (through tm_shm_cell_free), and a producer thread against a consumer that keeps some cells
 * a while and frees them out of order (run under ThreadSanitizer with --enable-tsan).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shm/ring.h"
#include "shm/shm.h"

static void put(tm_shm_ring_t *ring, tm_shm_cell_t *cell, long value)
{
    memcpy(cell->data, &value, sizeof value);
    tm_shm_ring_push(ring, cell);
}

static long value_of(const tm_shm_cell_t *cell)
{
    long value;
    memcpy(&value, cell->data, sizeof value);
    return value;
}

/* One cell in flight at a time, over many laps: FIFO, the same cell until pushed, layout. */
START_TEST(test_ring_laps)
{
    tm_shm_ring_t *ring;
    ck_assert_int_eq(tm_shm_ring_create(100, 4, &ring), 0);
    ck_assert_uint_eq(tm_shm_ring_cell_size(ring), 100);
    ck_assert(tm_shm_ring_is_empty(ring));
    ck_assert_ptr_null(tm_shm_ring_peek(ring));
    for (long i = 0; i < 1000; i++) {
        tm_shm_cell_t *cell = tm_shm_ring_alloc(ring);
        ck_assert_ptr_nonnull(cell);
        ck_assert_ptr_eq(tm_shm_ring_alloc(ring), cell);
        ck_assert_uint_eq((uintptr_t)cell % TM_SHM_CACHE_LINE, 0);
        put(ring, cell, i);
        ck_assert(!tm_shm_ring_is_empty(ring));
        tm_shm_cell_t *got = tm_shm_ring_peek(ring);
        ck_assert_ptr_eq(got, cell);
        ck_assert_ptr_eq(tm_shm_ring_peek(ring), cell); /* peeking takes nothing */
        tm_shm_ring_pop(ring);
        ck_assert(tm_shm_ring_is_empty(ring));
        ck_assert_int_eq(value_of(got), i);
        tm_shm_cell_free(got);
    }
    tm_shm_ring_destroy(ring);
}
END_TEST

/* A full ring refuses; a cell kept by the consumer keeps every later one from being reused,
 * and freeing it frees them all at once. */
START_TEST(test_ring_full_and_out_of_order_free)
{
    enum { N = 8 };
    tm_shm_ring_t *ring;
    tm_shm_cell_t *cells[N];
    ck_assert_int_eq(tm_shm_ring_create(8, 6, &ring), -EINVAL); /* not a power of two */
    ck_assert_int_eq(tm_shm_ring_create(8, N, &ring), 0);
    for (long i = 0; i < N; i++)
        put(ring, tm_shm_ring_alloc(ring), i);
    ck_assert_ptr_null(tm_shm_ring_alloc(ring));
    for (long i = 0; i < N; i++) {
        cells[i] = tm_shm_ring_peek(ring);
        ck_assert_ptr_nonnull(cells[i]);
        ck_assert_int_eq(value_of(cells[i]), i);
        tm_shm_ring_pop(ring);
    }
    ck_assert_ptr_null(tm_shm_ring_peek(ring));
    /* Free all but the first, last first: nothing is reusable yet. */
    for (int i = N - 1; i >= 1; i--)
        tm_shm_cell_free(cells[i]);
    ck_assert_ptr_null(tm_shm_ring_alloc(ring));
    tm_shm_cell_free(cells[0]);
    for (long i = 0; i < N; i++) {
        tm_shm_cell_t *cell = tm_shm_ring_alloc(ring);
        ck_assert_ptr_eq(cell, cells[i]);
        put(ring, cell, 100 + i);
    }
    ck_assert_ptr_null(tm_shm_ring_alloc(ring));
    for (long i = 0; i < N; i++) {
        tm_shm_cell_t *cell = tm_shm_ring_peek(ring);
        ck_assert_int_eq(value_of(cell), 100 + i);
        tm_shm_ring_pop(ring);
        tm_shm_cell_free(cell);
    }
    ck_assert(tm_shm_ring_is_empty(ring));
    tm_shm_ring_destroy(ring);
}
END_TEST

/* A producer thread fills the ring as fast as it frees; the consumer keeps every 5th cell for
 * a while (up to KEEP of them, until the ring runs dry) and frees the kept ones newest first
 * (cells freed behind a kept one are reused only after it). Every value arrives once,
 * in order, and the producer never overwrites a cell still kept (its value is checked when
 * freed). */
#define STRESS_VALUES 400000L
#define KEEP          6

static tm_shm_ring_t *stress_ring;

static void *stress_producer(void *arg)
{
    (void)arg;
    for (long i = 0; i < STRESS_VALUES; i++) {
        tm_shm_cell_t *cell;
        while ((cell = tm_shm_ring_alloc(stress_ring)) == NULL)
            sched_yield();
        put(stress_ring, cell, i);
    }
    return NULL;
}

/* Frees the kept cells, newest first; returns how many no longer hold their value. */
static long free_kept(tm_shm_cell_t **kept, const long *values, int *nkept)
{
    long overwritten = 0;
    while (*nkept > 0) {
        (*nkept)--;
        if (value_of(kept[*nkept]) != values[*nkept])
            overwritten++;
        tm_shm_cell_free(kept[*nkept]);
    }
    return overwritten;
}

START_TEST(test_ring_spsc_stress)
{
    pthread_t producer;
    tm_shm_cell_t *kept[KEEP];
    long kept_values[KEEP];
    int nkept = 0;
    long next = 0, out_of_order = 0, overwritten = 0;

    ck_assert_int_eq(tm_shm_ring_create(48, 16, &stress_ring), 0);
    ck_assert_int_eq(pthread_create(&producer, NULL, stress_producer, NULL), 0);
    while (next < STRESS_VALUES) {
        tm_shm_cell_t *cell = tm_shm_ring_peek(stress_ring);
        if (!cell) {
            /* Nothing new: perhaps the kept cells keep the producer waiting. */
            overwritten += free_kept(kept, kept_values, &nkept);
            sched_yield();
            continue;
        }
        tm_shm_ring_pop(stress_ring);
        long v = value_of(cell);
        if (v != next)
            out_of_order++;
        next = v + 1;
        if (v % 5 == 0 && nkept < KEEP) {
            kept[nkept] = cell;
            kept_values[nkept++] = v;
            continue;
        }
        tm_shm_cell_free(cell);
        if (nkept == KEEP || v % 97 == 0)
            overwritten += free_kept(kept, kept_values, &nkept);
    }
    overwritten += free_kept(kept, kept_values, &nkept);
    pthread_join(producer, NULL);
    ck_assert_int_eq(out_of_order, 0);
    ck_assert_int_eq(overwritten, 0);
    ck_assert_int_eq(next, STRESS_VALUES);
    ck_assert(tm_shm_ring_is_empty(stress_ring));
    tm_shm_ring_destroy(stress_ring);
}
END_TEST

static Suite *ring_suite(void)
{
    Suite *s = suite_create("shm_ring");
    TCase *tc = tcase_create("ring");

    tcase_add_test(tc, test_ring_laps);
    tcase_add_test(tc, test_ring_full_and_out_of_order_free);
    tcase_add_test(tc, test_ring_spsc_stress);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(ring_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
