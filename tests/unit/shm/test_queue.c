/*
 * Unit tests of shm/queue.c: FIFO order, emptiness, the transient "pushed but not linked" state,
 * and a multi-producer stress test (run under ThreadSanitizer with --enable-tsan).
 */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>

#include "shm/shm.h"

/* A cell with room for a test payload, the way a pool lays it out: links, then data. */
typedef struct item {
    tm_shm_cell_t cell;
    struct {
        int producer;
        long seq;
    } payload;
} item_t;

static item_t *item_of(tm_shm_cell_t *cell)
{
    return (item_t *)cell;
}

START_TEST(test_queue_fifo_single)
{
    tm_shm_queue_t q;
    item_t items[8];

    tm_shm_queue_init(&q);
    ck_assert_ptr_null(tm_shm_queue_pop(&q));
    for (int i = 0; i < 8; i++) {
        items[i].payload.seq = i;
        tm_shm_queue_push(&q, &items[i].cell);
    }
    for (int i = 0; i < 8; i++) {
        tm_shm_cell_t *cell = tm_shm_queue_pop(&q);

        ck_assert_ptr_nonnull(cell);
        ck_assert_int_eq(item_of(cell)->payload.seq, i);
    }
    ck_assert_ptr_null(tm_shm_queue_pop(&q));

    /* Popped cells are pushed again at once, in another order: the stub went back in behind
     * the last one, and no stale link may survive. */
    for (int i = 7; i >= 0; i--)
        tm_shm_queue_push(&q, &items[i].cell);
    for (int i = 7; i >= 0; i--)
        ck_assert_ptr_eq(tm_shm_queue_pop(&q), &items[i].cell);
    ck_assert_ptr_null(tm_shm_queue_pop(&q));
}
END_TEST

/* One cell at a time: each pop takes the last cell, which exercises the stub's re-insertion
 * on every round; interleaved with rounds of two. */
START_TEST(test_queue_alternate)
{
    tm_shm_queue_t q;
    item_t items[3];

    tm_shm_queue_init(&q);
    for (int round = 0; round < 100; round++) {
        tm_shm_queue_push(&q, &items[round % 3].cell);
        ck_assert_ptr_eq(tm_shm_queue_pop(&q), &items[round % 3].cell);
        ck_assert_ptr_null(tm_shm_queue_pop(&q));
        tm_shm_queue_push(&q, &items[0].cell);
        tm_shm_queue_push(&q, &items[1].cell);
        ck_assert_ptr_eq(tm_shm_queue_pop(&q), &items[0].cell);
        tm_shm_queue_push(&q, &items[2].cell);
        ck_assert_ptr_eq(tm_shm_queue_pop(&q), &items[1].cell);
        ck_assert_ptr_eq(tm_shm_queue_pop(&q), &items[2].cell);
        ck_assert_ptr_null(tm_shm_queue_pop(&q));
    }
}
END_TEST

START_TEST(test_queue_empty)
{
    tm_shm_queue_t q;
    item_t a, b;

    tm_shm_queue_init(&q);
    ck_assert(tm_shm_queue_is_empty(&q));
    tm_shm_queue_push(&q, &a.cell);
    ck_assert(!tm_shm_queue_is_empty(&q));
    tm_shm_queue_push(&q, &b.cell);
    ck_assert_ptr_eq(tm_shm_queue_pop(&q), &a.cell);
    ck_assert(!tm_shm_queue_is_empty(&q));
    ck_assert_ptr_eq(tm_shm_queue_pop(&q), &b.cell);
    ck_assert(tm_shm_queue_is_empty(&q));
    ck_assert_ptr_null(tm_shm_queue_pop(&q));
    ck_assert(tm_shm_queue_is_empty(&q));
    /* Non-empty again after draining, also with the head on a cell (not the stub). */
    tm_shm_queue_push(&q, &a.cell);
    tm_shm_queue_push(&q, &b.cell);
    ck_assert_ptr_eq(tm_shm_queue_pop(&q), &a.cell);
    ck_assert(!tm_shm_queue_is_empty(&q));
    tm_shm_queue_push(&q, &a.cell);
    ck_assert_ptr_eq(tm_shm_queue_pop(&q), &b.cell);
    ck_assert_ptr_eq(tm_shm_queue_pop(&q), &a.cell);
    ck_assert(tm_shm_queue_is_empty(&q));
}
END_TEST

/* A producer stopped between its exchange and its link, replayed by hand with the algorithm's
 * two steps (queue.c): the consumer must get NULL, not lose or reorder anything, and is_empty
 * must say that something is coming. */
START_TEST(test_queue_unlinked_producer)
{
    tm_shm_queue_t q;
    item_t a, b, c;
    tm_shm_cell_t *prev;

    tm_shm_queue_init(&q);
    tm_shm_queue_push(&q, &a.cell);
    /* Half a push of b. */
    atomic_store(&b.cell.next, NULL);
    prev = atomic_exchange(&q.tail, &b.cell);
    ck_assert_ptr_eq(prev, &a.cell);
    /* c is pushed completely, behind b. */
    tm_shm_queue_push(&q, &c.cell);
    /* a cannot go yet: its successor is unknown and the tail is not a, so the consumer waits. */
    ck_assert_ptr_null(tm_shm_queue_pop(&q));
    ck_assert(!tm_shm_queue_is_empty(&q));
    ck_assert_ptr_null(tm_shm_queue_pop(&q));
    /* The producer finishes its push. */
    atomic_store(&prev->next, &b.cell);
    ck_assert_ptr_eq(tm_shm_queue_pop(&q), &a.cell);
    ck_assert_ptr_eq(tm_shm_queue_pop(&q), &b.cell);
    ck_assert_ptr_eq(tm_shm_queue_pop(&q), &c.cell);
    ck_assert_ptr_null(tm_shm_queue_pop(&q));
    ck_assert(tm_shm_queue_is_empty(&q));

    /* Same on a drained queue, where the half-pushed cell follows the stub: the head stays on
     * the stub, yet is_empty must not say empty. */
    tm_shm_queue_push(&q, &a.cell);
    ck_assert_ptr_eq(tm_shm_queue_pop(&q), &a.cell); /* head back on the stub */
    atomic_store(&b.cell.next, NULL);
    prev = atomic_exchange(&q.tail, &b.cell);
    ck_assert_ptr_eq(prev, &q.stub);
    ck_assert_ptr_null(tm_shm_queue_pop(&q));
    ck_assert(!tm_shm_queue_is_empty(&q));
    atomic_store(&prev->next, &b.cell);
    ck_assert_ptr_eq(tm_shm_queue_pop(&q), &b.cell);
    ck_assert(tm_shm_queue_is_empty(&q));
}
END_TEST

#ifdef TM_WITH_TSAN
#define STRESS_PER_PRODUCER 50000
#else
#define STRESS_PER_PRODUCER 1000000
#endif
#define STRESS_PRODUCERS 4
/* Cells per producer: seq i travels in cell i % STRESS_WINDOW, once seq i - STRESS_WINDOW has
 * been consumed. Cells are thus pushed again soon after they are popped. */
#define STRESS_WINDOW 1024

static tm_shm_queue_t stress_q;
static item_t (*stress_items)[STRESS_WINDOW];
/* Per producer, how many of its cells the consumer has popped (and is done with). */
static _Atomic long stress_consumed[STRESS_PRODUCERS];

static void *stress_producer(void *arg)
{
    int p = (int)(intptr_t)arg;

    for (long i = 0; i < STRESS_PER_PRODUCER; i++) {
        item_t *it = &stress_items[p][i % STRESS_WINDOW];

        /* Acquire: pairs with the consumer's release, which ends its reads of the cell. */
        while (atomic_load_explicit(&stress_consumed[p], memory_order_acquire) <= i - STRESS_WINDOW)
            sched_yield();
        /* Plain writes: the push publishes them. */
        it->payload.producer = p;
        it->payload.seq = i;
        tm_shm_queue_push(&stress_q, &it->cell);
    }
    return NULL;
}

/* Producers race on the tail while the consumer pops: every cell arrives exactly once and each
 * producer's cells arrive in the order it pushed them. */
START_TEST(test_queue_mpsc_stress)
{
    pthread_t threads[STRESS_PRODUCERS];
    long next[STRESS_PRODUCERS] = {0};
    long received = 0, out_of_order = 0, bad_producer = 0;
    const long total = (long)STRESS_PRODUCERS * STRESS_PER_PRODUCER;

    stress_items = aligned_alloc(TM_SHM_CACHE_LINE, STRESS_PRODUCERS * sizeof(*stress_items));
    ck_assert_ptr_nonnull(stress_items);
    tm_shm_queue_init(&stress_q);
    for (int p = 0; p < STRESS_PRODUCERS; p++) {
        atomic_init(&stress_consumed[p], 0);
        ck_assert_int_eq(pthread_create(&threads[p], NULL, stress_producer, (void *)(intptr_t)p),
                         0);
    }
    while (received < total && bad_producer == 0) {
        tm_shm_cell_t *cell = tm_shm_queue_pop(&stress_q);
        item_t *it;
        int p;

        if (cell == NULL)
            continue;
        it = item_of(cell);
        p = it->payload.producer;
        /* Counted rather than asserted here: Check asserts are slow in a hot loop. */
        if (p < 0 || p >= STRESS_PRODUCERS ||
            cell != &stress_items[p][it->payload.seq % STRESS_WINDOW].cell) {
            bad_producer++;
            break;
        }
        if (it->payload.seq != next[p])
            out_of_order++;
        next[p] = it->payload.seq + 1;
        received++;
        /* Release: the producer may now overwrite the cell. */
        atomic_fetch_add_explicit(&stress_consumed[p], 1, memory_order_release);
    }
    ck_assert_int_eq(bad_producer, 0);
    for (int p = 0; p < STRESS_PRODUCERS; p++)
        pthread_join(threads[p], NULL);
    ck_assert_int_eq(out_of_order, 0);
    ck_assert_int_eq(received, total);
    for (int p = 0; p < STRESS_PRODUCERS; p++)
        ck_assert_int_eq(next[p], STRESS_PER_PRODUCER);
    ck_assert_ptr_null(tm_shm_queue_pop(&stress_q));
    ck_assert(tm_shm_queue_is_empty(&stress_q));
    free(stress_items);
}
END_TEST

/* The consumer's is_empty is exact: once a push has completed, and until its cell is popped,
 * is_empty says false. Checked on the consumer's every empty pop while producers keep the queue
 * short, so that pushes often land while the consumer is taking the last cell (and puts the
 * stub back): the state where the head is a cell and the tail is the stub. */
#define EMPTY_PRODUCERS 2
#define EMPTY_WINDOW    8

/* Per producer: cells pushed (counted once the push has completed), cells popped. */
static _Atomic long empty_pushed[EMPTY_PRODUCERS], empty_popped[EMPTY_PRODUCERS];
static item_t (*empty_items)[EMPTY_WINDOW];

static void *empty_producer(void *arg)
{
    int p = (int)(intptr_t)arg;

    for (long i = 0; i < STRESS_PER_PRODUCER; i++) {
        item_t *it = &empty_items[p][i % EMPTY_WINDOW];

        /* Acquire: pairs with the consumer's release, after which the cell is free again. */
        while (i - atomic_load_explicit(&empty_popped[p], memory_order_acquire) >= EMPTY_WINDOW)
            sched_yield();
        it->payload.producer = p;
        tm_shm_queue_push(&stress_q, &it->cell);
        /* Release: the consumer reads the count, then looks at the queue. */
        atomic_store_explicit(&empty_pushed[p], i + 1, memory_order_release);
    }
    return NULL;
}

START_TEST(test_queue_is_empty_stress)
{
    pthread_t threads[EMPTY_PRODUCERS];
    long popped[EMPTY_PRODUCERS] = {0}, total_popped = 0, wrong_empty = 0, empty_pops = 0;
    const long total = (long)EMPTY_PRODUCERS * STRESS_PER_PRODUCER;

    empty_items = aligned_alloc(TM_SHM_CACHE_LINE, EMPTY_PRODUCERS * sizeof(*empty_items));
    ck_assert_ptr_nonnull(empty_items);
    tm_shm_queue_init(&stress_q);
    for (int p = 0; p < EMPTY_PRODUCERS; p++) {
        atomic_init(&empty_pushed[p], 0);
        atomic_init(&empty_popped[p], 0);
        ck_assert_int_eq(pthread_create(&threads[p], NULL, empty_producer, (void *)(intptr_t)p), 0);
    }
    while (total_popped < total) {
        long pushed = 0;
        tm_shm_cell_t *cell;

        for (int p = 0; p < EMPTY_PRODUCERS; p++)
            pushed += atomic_load_explicit(&empty_pushed[p], memory_order_acquire);
        cell = tm_shm_queue_pop(&stress_q);
        if (cell != NULL) {
            int p = item_of(cell)->payload.producer;

            total_popped++;
            /* Release: the producer may push the cell again. */
            atomic_store_explicit(&empty_popped[p], ++popped[p], memory_order_release);
            continue;
        }
        empty_pops++;
        /* Pushes completed before the counts were read, not all popped: not empty. */
        if (pushed > total_popped && tm_shm_queue_is_empty(&stress_q))
            wrong_empty++;
    }
    for (int p = 0; p < EMPTY_PRODUCERS; p++)
        pthread_join(threads[p], NULL);
    ck_assert_int_eq(wrong_empty, 0);
    ck_assert(tm_shm_queue_is_empty(&stress_q));
    /* The check above ran: the consumer did catch up with the producers. */
    ck_assert_int_gt(empty_pops, 0);
    free(empty_items);
}
END_TEST

static Suite *queue_suite(void)
{
    Suite *s = suite_create("shm_queue");
    TCase *tc = tcase_create("queue");

    tcase_add_test(tc, test_queue_fifo_single);
    tcase_add_test(tc, test_queue_alternate);
    tcase_add_test(tc, test_queue_empty);
    tcase_add_test(tc, test_queue_unlinked_producer);
    tcase_add_test(tc, test_queue_mpsc_stress);
    tcase_add_test(tc, test_queue_is_empty_stress);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(queue_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
