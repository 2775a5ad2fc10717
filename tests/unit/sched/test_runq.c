/*
 * Unit tests of sched/runq.h: the local FIFO, the inbound multi-producer list, and a stress test
 * of the inbound list with concurrent producers (run under ThreadSanitizer with --enable-tsan).
 */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdlib.h>

#include "sched/runq.h"

typedef struct item {
    tm_sched_runq_node_t node; /* first: a node pointer is an item pointer */
    int producer;
    int seq;
} item_t;

START_TEST(test_runq_local_fifo)
{
    tm_sched_runq_t q;
    item_t items[4];

    tm_sched_runq_init(&q);
    ck_assert(tm_sched_runq_empty(&q));
    ck_assert_ptr_null(tm_sched_runq_pop(&q));
    for (int i = 0; i < 4; i++) {
        items[i].seq = i;
        tm_sched_runq_push(&q, &items[i].node);
    }
    ck_assert(!tm_sched_runq_empty(&q));
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(((item_t *)tm_sched_runq_pop(&q))->seq, i);
    ck_assert(tm_sched_runq_empty(&q));
    /* Reuse after the FIFO emptied: the tail must not point at a popped node. */
    tm_sched_runq_push(&q, &items[2].node);
    tm_sched_runq_push(&q, &items[0].node);
    ck_assert_int_eq(((item_t *)tm_sched_runq_pop(&q))->seq, 2);
    ck_assert_int_eq(((item_t *)tm_sched_runq_pop(&q))->seq, 0);
    ck_assert_ptr_null(tm_sched_runq_pop(&q));
}
END_TEST

START_TEST(test_runq_inbound_order)
{
    tm_sched_runq_t q;
    item_t items[6];

    tm_sched_runq_init(&q);
    for (int i = 0; i < 6; i++)
        items[i].seq = i;
    tm_sched_runq_push(&q, &items[0].node);
    tm_sched_runq_push(&q, &items[1].node);
    ck_assert(!tm_sched_runq_inbound_pending(&q));
    tm_sched_runq_push_inbound(&q, &items[2].node);
    tm_sched_runq_push_inbound(&q, &items[3].node);
    tm_sched_runq_push_inbound(&q, &items[4].node);
    ck_assert(tm_sched_runq_inbound_pending(&q));
    /* The first pop takes the inbound list in, behind the local FIFO, oldest first. */
    ck_assert_int_eq(((item_t *)tm_sched_runq_pop(&q))->seq, 0);
    ck_assert(!tm_sched_runq_inbound_pending(&q));
    tm_sched_runq_push(&q, &items[5].node);
    for (int i = 1; i <= 5; i++)
        ck_assert_int_eq(((item_t *)tm_sched_runq_pop(&q))->seq, i);
    ck_assert(tm_sched_runq_empty(&q));
}
END_TEST

#ifdef TM_WITH_TSAN
#define STRESS_PER_PRODUCER 20000
#else
#define STRESS_PER_PRODUCER 200000
#endif
#define STRESS_PRODUCERS 4

static tm_sched_runq_t stress_q;
static item_t *stress_items;

static void *stress_producer(void *arg)
{
    int p = (int)(intptr_t)arg;

    for (int i = 0; i < STRESS_PER_PRODUCER; i++) {
        item_t *it = &stress_items[p * STRESS_PER_PRODUCER + i];

        it->producer = p;
        it->seq = i;
        tm_sched_runq_push_inbound(&stress_q, &it->node);
    }
    return NULL;
}

/* Producers race on the inbound head while the owner drains it: every item arrives exactly once
 * and each producer's items arrive in the order it pushed them. */
START_TEST(test_runq_inbound_stress)
{
    pthread_t threads[STRESS_PRODUCERS];
    int next[STRESS_PRODUCERS] = {0};
    long received = 0, out_of_order = 0, total = (long)STRESS_PRODUCERS * STRESS_PER_PRODUCER;

    stress_items = calloc((size_t)total, sizeof(*stress_items));
    ck_assert_ptr_nonnull(stress_items);
    tm_sched_runq_init(&stress_q);
    for (int p = 0; p < STRESS_PRODUCERS; p++)
        ck_assert_int_eq(pthread_create(&threads[p], NULL, stress_producer, (void *)(intptr_t)p),
                         0);
    while (received < total) {
        item_t *it = (item_t *)tm_sched_runq_pop(&stress_q);

        if (it == NULL)
            continue;
        /* Counted rather than asserted here: Check asserts are slow in a hot loop. */
        if (it->seq != next[it->producer])
            out_of_order++;
        next[it->producer] = it->seq + 1;
        received++;
    }
    ck_assert_int_eq(out_of_order, 0);
    for (int p = 0; p < STRESS_PRODUCERS; p++) {
        pthread_join(threads[p], NULL);
        ck_assert_int_eq(next[p], STRESS_PER_PRODUCER);
    }
    ck_assert_ptr_null(tm_sched_runq_pop(&stress_q));
    free(stress_items);
}
END_TEST

static Suite *runq_suite(void)
{
    Suite *s = suite_create("sched_runq");
    TCase *tc = tcase_create("runq");

    tcase_add_test(tc, test_runq_local_fifo);
    tcase_add_test(tc, test_runq_inbound_order);
    tcase_add_test(tc, test_runq_inbound_stress);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(runq_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
