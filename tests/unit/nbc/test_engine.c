/*
 * Unit tests of the schedule engine (nbc/engine.c, nbc/sched.c) on one thread: pseudo ranks of
 * one communicator, each with its point-to-point state and its engine (without a progress
 * thread: the fake runtime gives none), build schedules with the builder's verbs, and the test
 * runs every rank's engine by hand, as their MPI calls would:
 *   - rounds run in order: a round starts only once every action of the one before is done,
 *     a poll included;
 *   - data flows through the rounds: receive, reduce, send, copy, along a chain of ranks;
 *   - requests complete, with their status, also for a schedule with nothing to do;
 *   - many schedules outstanding at once, their requests waited for in reverse order;
 *   - rounds marked TM_NBC_RANK run only in the rank's own passes, never a progress thread's;
 *   - the rank's point-to-point progress runs its engine through p2p's hook.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "nbc/nbc.h"
#include "obj/group.h"
#include "obj/op.h"
#include "p2p/p2p.h"
#include "tests/unit/fake_rt.h"

#define N      4   /* ranks */
#define CTX    20  /* the communicator's context id */
#define PASSES 200 /* passes over the engines that any schedule here needs, and more */
#define MANY   200 /* schedules outstanding at once on each rank */

static tm_rt_rank_t rts[N];
static tm_mpi_rank_t ranks[N];
static tm_mpi_comm_t comms[N];
static tm_mpi_group_t *group;
static tm_mpi_type_t *int_type;
static tm_mpi_op_t *sum;

static void setup(void)
{
    fake_rt_setup(0, N);
    ck_assert_int_eq(tm_mpi_type_lookup(MPI_INT, &int_type), 0);
    ck_assert_int_eq(tm_mpi_op_lookup(MPI_SUM, &sum), 0);
    group = tm_mpi_group_create(N);
    ck_assert_ptr_nonnull(group);
    for (int i = 0; i < N; i++) {
        group->world_ranks[i] = i;
        memset(&rts[i], 0, sizeof rts[i]);
        memset(&ranks[i], 0, sizeof ranks[i]);
        rts[i].world_rank = i;
        ranks[i].rt = &rts[i];
        ck_assert_int_eq(tm_p2p_init(&ranks[i]), 0);
        ck_assert_int_eq(tm_nbc_engine_create(&ranks[i]), 0);
        ck_assert(!tm_nbc_has_progress_thread(ranks[i].nbc));
        comms[i] = (tm_mpi_comm_t){.owner = &ranks[i],
                                   .name = "test",
                                   .rank = i,
                                   .size = N,
                                   .context_id = CTX,
                                   .group = group};
    }
}

static void teardown(void)
{
    for (int i = 0; i < N; i++) {
        ck_assert(!tm_nbc_has_work(ranks[i].nbc)); /* every schedule ran to its end */
        tm_nbc_engine_destroy(&ranks[i]);
        tm_p2p_finalize(&ranks[i]);
    }
    tm_mpi_group_release(group);
}

static tm_nbc_sched_t *sched_new(int i)
{
    tm_nbc_sched_t *s = tm_nbc_sched_create(&ranks[i], &comms[i], 0);
    ck_assert_ptr_nonnull(s);
    return s;
}

static tm_p2p_request_t *start(int i, tm_nbc_sched_t *s)
{
    tm_p2p_request_t *req = tm_p2p_request_new(&ranks[i], TM_P2P_REQ_COLL);
    ck_assert_ptr_nonnull(req);
    ck_assert_int_eq(tm_nbc_sched_start(&ranks[i], s, req), 0);
    return req;
}

/* One pass of every rank's engine, as the ranks' MPI calls make. */
static void pass_all(void)
{
    for (int i = 0; i < N; i++)
        tm_nbc_progress(ranks[i].nbc, true);
}

/* Passes until req completes; false if it never does. */
static bool complete(tm_p2p_request_t *req)
{
    for (int k = 0; k < PASSES && !tm_p2p_request_is_complete(req); k++)
        pass_all();
    return tm_p2p_request_is_complete(req);
}

/* A poll's test: *flag has reached target; counts its calls in the cursor it is given. */
static int poll_calls;
static bool flag_reached(void *obj, uint64_t target, int *cursor)
{
    (*cursor)++;
    poll_calls = *cursor;
    return (uint64_t) * (int *)obj >= target;
}

START_TEST(test_rounds_in_order)
{
    int flag = 0, value = 42, got = 0;
    tm_nbc_sched_t *s1 = sched_new(1);
    tm_nbc_sched_poll(s1, flag_reached, &flag, 1); /* round 0: wait for the flag */
    tm_nbc_sched_barrier(s1, TM_NBC_ANY);
    tm_nbc_sched_send(s1, &value, 1, int_type, 0); /* round 1: only then send */
    tm_nbc_sched_t *s0 = sched_new(0);
    tm_nbc_sched_recv(s0, &got, 1, int_type, 1);
    tm_p2p_request_t *r1 = start(1, s1), *r0 = start(0, s0);
    for (int k = 0; k < PASSES; k++)
        pass_all();
    ck_assert(!tm_p2p_request_is_complete(r0)); /* the send waits for its round */
    ck_assert(!tm_p2p_request_is_complete(r1));
    ck_assert_int_eq(got, 0);
    ck_assert_int_ge(poll_calls, PASSES); /* asked at every pass, its cursor kept between */
    flag = 1;
    ck_assert(complete(r0));
    ck_assert(complete(r1));
    ck_assert_int_eq(got, 42);
    ck_assert_int_eq(r0->status.MPI_ERROR, MPI_SUCCESS);
    tm_p2p_request_release(&ranks[0], r0);
    tm_p2p_request_release(&ranks[1], r1);
}
END_TEST

/* A chain: rank 0 sends 1; rank k receives v, adds k, and sends the sum on; the last rank
 * copies it out. The result is right only if each round ran after the one before it. */
START_TEST(test_data_through_rounds)
{
    static int v[N], ks[N], out;
    tm_p2p_request_t *req[N];
    v[0] = 1;
    out = 0;
    for (int k = 0; k < N; k++) {
        tm_nbc_sched_t *s = sched_new(k);
        ks[k] = k;
        if (k > 0) {
            tm_nbc_sched_recv(s, &v[k], 1, int_type, k - 1);
            tm_nbc_sched_barrier(s, TM_NBC_ANY);
            tm_nbc_sched_op(s, &ks[k], &v[k], 1, int_type, sum);
            tm_nbc_sched_barrier(s, TM_NBC_ANY);
        }
        if (k < N - 1)
            tm_nbc_sched_send(s, &v[k], 1, int_type, k + 1);
        else
            tm_nbc_sched_copy(s, &v[k], 1, int_type, &out, 1, int_type);
        req[k] = start(k, s);
    }
    for (int k = N - 1; k >= 0; k--) {
        ck_assert(complete(req[k]));
        tm_p2p_request_release(&ranks[k], req[k]);
    }
    ck_assert_int_eq(out, 1 + (N - 1) * N / 2);
}
END_TEST

START_TEST(test_empty_schedule)
{
    tm_p2p_request_t *req = start(2, sched_new(2));
    ck_assert(tm_p2p_request_is_complete(req)); /* done when started */
    ck_assert_int_eq(req->status.MPI_ERROR, MPI_SUCCESS);
    tm_p2p_request_release(&ranks[2], req);
}
END_TEST

/* Every rank starts MANY ring exchanges at once, each with its own tag; the requests are waited
 * for from the last started to the first. */
START_TEST(test_many_outstanding)
{
    static int sent[N][MANY], got[N][MANY];
    static tm_p2p_request_t *req[N][MANY];
    for (int j = 0; j < MANY; j++)
        for (int i = 0; i < N; i++) {
            tm_nbc_sched_t *s = sched_new(i);
            sent[i][j] = i * 1000 + j;
            got[i][j] = -1;
            tm_nbc_sched_send(s, &sent[i][j], 1, int_type, (i + 1) % N);
            tm_nbc_sched_recv(s, &got[i][j], 1, int_type, (i + N - 1) % N);
            req[i][j] = start(i, s);
        }
    for (int j = MANY - 1; j >= 0; j--)
        for (int i = 0; i < N; i++) {
            ck_assert_msg(complete(req[i][j]), "schedule %d of rank %d never completed", j, i);
            ck_assert_int_eq(got[i][j], ((i + N - 1) % N) * 1000 + j);
            tm_p2p_request_release(&ranks[i], req[i][j]);
        }
}
END_TEST

/* A round marked TM_NBC_RANK waits for the rank's own pass, whatever a progress thread does. */
START_TEST(test_rank_rounds)
{
    int flag = 0, a = 5, b = 0, c = 0;
    tm_nbc_sched_t *s = sched_new(3);
    tm_nbc_sched_poll(s, flag_reached, &flag, 1);
    tm_nbc_sched_copy(s, &a, 1, int_type, &b, 1, int_type);
    tm_nbc_sched_barrier(s, TM_NBC_RANK);
    tm_nbc_sched_copy(s, &b, 1, int_type, &c, 1, int_type);
    tm_p2p_request_t *req = start(3, s);
    ck_assert(tm_nbc_has_schedules(ranks[3].nbc));
    flag = 1;
    for (int k = 0; k < PASSES; k++)
        tm_nbc_progress(ranks[3].nbc, false); /* as the progress thread */
    ck_assert_int_eq(b, 5);
    ck_assert_int_eq(c, 0);
    ck_assert(!tm_p2p_request_is_complete(req));
    tm_nbc_progress(ranks[3].nbc, true); /* as the rank */
    ck_assert_int_eq(c, 5);
    ck_assert(tm_p2p_request_is_complete(req));
    tm_p2p_request_release(&ranks[3], req);
    ck_assert(!tm_nbc_has_schedules(ranks[3].nbc));
}
END_TEST

/* The rank's point-to-point progress (tm_p2p_progress, which every MPI call that waits runs)
 * runs its engine through the hook the engine gave it. */
START_TEST(test_progress_through_p2p)
{
    int value = 7, got = 0;
    tm_nbc_sched_t *s0 = sched_new(0), *s1 = sched_new(1);
    tm_nbc_sched_recv(s0, &got, 1, int_type, 1);
    tm_nbc_sched_send(s1, &value, 1, int_type, 0);
    tm_p2p_request_t *r0 = start(0, s0), *r1 = start(1, s1);
    for (int k = 0; k < PASSES && !tm_p2p_request_is_complete(r0); k++) {
        tm_p2p_progress(&ranks[0]);
        tm_p2p_progress(&ranks[1]);
    }
    ck_assert(tm_p2p_request_is_complete(r0));
    ck_assert(tm_p2p_request_is_complete(r1));
    ck_assert_int_eq(got, 7);
    tm_p2p_request_release(&ranks[0], r0);
    tm_p2p_request_release(&ranks[1], r1);
}
END_TEST

static Suite *engine_suite(void)
{
    Suite *s = suite_create("nbc_engine");
    TCase *tc = tcase_create("engine");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_rounds_in_order);
    tcase_add_test(tc, test_data_through_rounds);
    tcase_add_test(tc, test_empty_schedule);
    tcase_add_test(tc, test_many_outstanding);
    tcase_add_test(tc, test_rank_rounds);
    tcase_add_test(tc, test_progress_through_p2p);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(engine_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
