/*
 * Unit test of shm/ as p2p will use it: producers allocate cells from their own pools, fill
 * them and push them to one consumer's queue; the consumer checks and frees them back from its
 * thread, so every cell goes round owner -> queue -> consumer -> return list -> owner. Run under
 * ThreadSanitizer with --enable-tsan, under AddressSanitizer with --enable-asan.
 */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>

#include "shm/pool.h"

#ifdef TM_WITH_TSAN
#define TRANSPORT_PER_PRODUCER 20000
#else
#define TRANSPORT_PER_PRODUCER 250000
#endif
#define TRANSPORT_PRODUCERS 4
#define TRANSPORT_CELL_SIZE 256
/* A producer has at most this many messages in flight (flow control, as p2p will have). */
#define TRANSPORT_WINDOW 256

typedef struct message {
    int producer;
    long seq;
    unsigned char payload[TRANSPORT_CELL_SIZE - 16];
} message_t;
_Static_assert(sizeof(message_t) <= TRANSPORT_CELL_SIZE, "a message fits a cell");

static tm_shm_queue_t transport_q;
/* Per producer: messages the consumer has checked and freed. */
static _Atomic long transport_consumed[TRANSPORT_PRODUCERS];

typedef struct producer_result {
    int create_err;
    size_t nchunks, chunk_cells;
    long alloc_failures;
} producer_result_t;

static producer_result_t transport_results[TRANSPORT_PRODUCERS];

static unsigned char pattern(int producer, long seq, size_t k)
{
    return (unsigned char)((size_t)seq * 31 + (size_t)producer * 7 + k);
}

static void *transport_producer(void *arg)
{
    int p = (int)(intptr_t)arg;
    producer_result_t *res = &transport_results[p];
    tm_shm_pool_t *pool;

    /* The producer's thread creates its pool: it is the owner. */
    res->create_err = tm_shm_pool_create(TRANSPORT_CELL_SIZE, -1, &pool);
    if (res->create_err != 0)
        return NULL;
    for (long i = 0; i < TRANSPORT_PER_PRODUCER; i++) {
        tm_shm_cell_t *cell;
        message_t *m;

        /* Acquire: pairs with the consumer's release after it freed the cells counted. */
        while (i - atomic_load_explicit(&transport_consumed[p], memory_order_acquire) >=
               TRANSPORT_WINDOW)
            sched_yield();
        cell = tm_shm_cell_alloc(pool);
        if (cell == NULL) {
            res->alloc_failures++;
            break;
        }
        m = (message_t *)cell->data;
        m->producer = p;
        m->seq = i;
        for (size_t k = 0; k < sizeof(m->payload); k++)
            m->payload[k] = pattern(p, i, k);
        tm_shm_queue_push(&transport_q, cell);
    }
    /* Every cell must be back before destroy. */
    while (atomic_load_explicit(&transport_consumed[p], memory_order_acquire) <
               TRANSPORT_PER_PRODUCER &&
           res->alloc_failures == 0)
        sched_yield();
    res->nchunks = pool->nchunks;
    res->chunk_cells = pool->chunk_cells;
    tm_shm_pool_destroy(pool);
    return NULL;
}

START_TEST(test_transport_stress)
{
    pthread_t threads[TRANSPORT_PRODUCERS];
    long next[TRANSPORT_PRODUCERS] = {0};
    tm_shm_pool_t *seen_pool[TRANSPORT_PRODUCERS] = {NULL};
    long received = 0, out_of_order = 0, corrupt = 0, wrong_pool = 0;
    const long total = (long)TRANSPORT_PRODUCERS * TRANSPORT_PER_PRODUCER;

    tm_shm_queue_init(&transport_q);
    for (int p = 0; p < TRANSPORT_PRODUCERS; p++) {
        atomic_init(&transport_consumed[p], 0);
        ck_assert_int_eq(pthread_create(&threads[p], NULL, transport_producer, (void *)(intptr_t)p),
                         0);
    }
    while (received < total) {
        tm_shm_cell_t *cell = tm_shm_queue_pop(&transport_q);
        message_t *m;
        int p;

        if (cell == NULL) {
            /* Nothing now; the realistic consumer would do other work or yield. */
            if (tm_shm_queue_is_empty(&transport_q))
                sched_yield();
            continue;
        }
        m = (message_t *)cell->data;
        p = m->producer;
        if (p < 0 || p >= TRANSPORT_PRODUCERS) {
            corrupt++;
            break;
        }
        if (m->seq != next[p])
            out_of_order++;
        next[p] = m->seq + 1;
        for (size_t k = 0; k < sizeof(m->payload); k++)
            if (m->payload[k] != pattern(p, m->seq, k)) {
                corrupt++;
                break;
            }
        if (seen_pool[p] == NULL)
            seen_pool[p] = cell->pool;
        else if (cell->pool != seen_pool[p])
            wrong_pool++;
        received++;
        tm_shm_cell_free(cell);
        /* Release: the free above comes before the producer's next allocation decision. */
        atomic_fetch_add_explicit(&transport_consumed[p], 1, memory_order_release);
    }
    ck_assert_int_eq(corrupt, 0);
    for (int p = 0; p < TRANSPORT_PRODUCERS; p++)
        pthread_join(threads[p], NULL);
    ck_assert_int_eq(out_of_order, 0);
    ck_assert_int_eq(wrong_pool, 0);
    ck_assert_int_eq(received, total);
    ck_assert_ptr_null(tm_shm_queue_pop(&transport_q));
    ck_assert(tm_shm_queue_is_empty(&transport_q));
    for (int p = 0; p < TRANSPORT_PRODUCERS; p++) {
        producer_result_t *res = &transport_results[p];

        ck_assert_int_eq(res->create_err, 0);
        ck_assert_int_eq(res->alloc_failures, 0);
        ck_assert_int_eq(next[p], TRANSPORT_PER_PRODUCER);
        /* A pool grows only when all its cells are in flight, and at most TRANSPORT_WINDOW - 1
         * are then: freed cells must have come back, or it would have grown without end. */
        ck_assert_uint_le(res->nchunks, (TRANSPORT_WINDOW - 1) / res->chunk_cells + 1);
    }
}
END_TEST

static Suite *transport_suite(void)
{
    Suite *s = suite_create("shm_transport");
    TCase *tc = tcase_create("transport");

    tcase_add_test(tc, test_transport_stress);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(transport_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
