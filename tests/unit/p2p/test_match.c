/*
 * Unit tests of matching (p2p/match.c) through the engine's seams, on one thread: pseudo ranks,
 * each with its point-to-point state, send through their sides (tm_p2p_matcher_send) and receive
 * through posted receives (tm_p2p_matcher_recv), taking messages in by hand
 * (tm_p2p_matcher_progress), so that every interleaving is the test's choice:
 *   - a receive posted before its message, and messages that arrive before their receive;
 *   - MPI's order: two messages of one source in the order sent; from MPI_ANY_SOURCE, the
 *     earliest arrival among every source's (sources of one bin and of different bins);
 *   - communicators apart (context ids), truncation, cancelled sends;
 *   - the transport seam (transport.h): a message built by another transport, whose data comes
 *     through its source's ops, is matched like any other, its copy and done called once each,
 *     also when nobody receives it;
 *   - a rank of another process (a job on several hosts): what is sent to it waits in its
 *     mailbox, the network transport's queue, in the order sent, never in a fastbox;
 *   - the hook through which a rank's progress runs its collectives.
 * The races of matching are in test_match_races.c.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "p2p/fastbox.h"
#include "p2p/p2p.h"
#include "p2p/transport.h"
#include "tests/unit/fake_rt.h"

#define NRANKS 70 /* sources in several bins of the unexpected list (64 bins) */
#define CTX    10 /* a communicator's context id: any even number */

static tm_rt_rank_t rts[NRANKS];
static tm_mpi_rank_t ranks[NRANKS];
static bool made[NRANKS];
static tm_mpi_type_t *int_type;

/* World rank w, with its point-to-point state made the first time. */
static tm_mpi_rank_t *rank_of(int w)
{
    if (!made[w]) {
        rts[w].world_rank = w;
        ranks[w].rt = &rts[w];
        ck_assert_int_eq(tm_p2p_init(&ranks[w]), 0);
        made[w] = true;
    }
    return &ranks[w];
}

static void setup(void)
{
    fake_rt_setup(0, NRANKS);
    memset(made, 0, sizeof made);
    ck_assert_int_eq(tm_mpi_type_lookup(MPI_INT, &int_type), 0);
}

static void teardown(void)
{
    for (int w = 0; w < NRANKS; w++)
        if (made[w])
            tm_p2p_finalize(&ranks[w]);
}

/* Sends n ints of buf from world rank `from` (its rank in the communicator too) to `to`. */
static void send_ints(int from, int to, int ctx, int tag, const int *buf, int n,
                      tm_p2p_request_t *req)
{
    memset(req, 0, sizeof *req);
    req->kind = TM_P2P_REQ_SEND;
    req->owner = rank_of(from);
    ck_assert_int_eq(tm_p2p_matcher_send(&rank_of(from)->p2p->match, req, buf, (size_t)n, int_type,
                                         (size_t)n * sizeof(int), tm_p2p_mailbox_get(to, false),
                                         ctx, from, tag, false, MPI_SUCCESS),
                     0);
}

/* Posts a receive of up to n ints into buf at world rank `at`. */
static void post(int at, tm_p2p_request_t *req, int *buf, int n, int ctx, int source, int tag)
{
    memset(req, 0, sizeof *req);
    req->kind = TM_P2P_REQ_RECV;
    req->owner = rank_of(at);
    req->buf = buf;
    req->count = (size_t)n;
    req->type = int_type;
    tm_p2p_matcher_recv(&rank_of(at)->p2p->match, req, ctx, source, tag);
}

/* Takes in everything in `at`'s mailbox. */
static void take_in(int at)
{
    while (tm_p2p_matcher_progress(&rank_of(at)->p2p->match))
        ;
}

START_TEST(test_posted_before_arrival)
{
    int out[4] = {1, 2, 3, 4}, in[4] = {0};
    tm_p2p_request_t s, r;
    post(0, &r, in, 4, CTX, 1, 5);
    take_in(0);
    ck_assert(!tm_p2p_request_is_complete(&r));
    send_ints(1, 0, CTX, 5, out, 4, &s);
    take_in(0);
    ck_assert(tm_p2p_request_is_complete(&r));
    ck_assert_int_eq(r.status.MPI_SOURCE, 1);
    ck_assert_int_eq(r.status.MPI_TAG, 5);
    ck_assert_int_eq(r.status.MPI_ERROR, MPI_SUCCESS);
    ck_assert_int_eq((int)r.status.tm_count, (int)sizeof out);
    ck_assert_mem_eq(in, out, sizeof out);
}
END_TEST

/* Two messages of one source, both matching a receive of any tag: the one sent first. */
START_TEST(test_unexpected_in_order)
{
    int a = 7, b = 8, got = 0;
    tm_p2p_request_t sa, sb, r;
    send_ints(1, 0, CTX, 7, &a, 1, &sa);
    send_ints(1, 0, CTX, 8, &b, 1, &sb);
    take_in(0); /* both unexpected now */
    post(0, &r, &got, 1, CTX, 1, MPI_ANY_TAG);
    ck_assert(tm_p2p_request_is_complete(&r)); /* found among the unexpected, at once */
    ck_assert_int_eq(got, 7);
    ck_assert_int_eq(r.status.MPI_TAG, 7);
    post(0, &r, &got, 1, CTX, 1, MPI_ANY_TAG);
    ck_assert(tm_p2p_request_is_complete(&r));
    ck_assert_int_eq(got, 8);
    /* A receive of a tag the source did not send stays posted. */
    post(0, &r, &got, 1, CTX, 1, 9);
    take_in(0);
    ck_assert(!tm_p2p_request_is_complete(&r));
    ck_assert(tm_p2p_cancel_recv(rank_of(0), &r));
    ck_assert(r.status.tm_cancelled);
}
END_TEST

/* From MPI_ANY_SOURCE, the earliest arrival: 69 and 5 share a bin of the unexpected list (69 mod
 * 64), 65 and 1 another, 3 is alone in its own. */
START_TEST(test_any_source_arrival_order)
{
    static const int order[] = {69, 5, 65, 1, 3};
    int n = (int)(sizeof order / sizeof order[0]);
    tm_p2p_request_t s[5], r;
    for (int i = 0; i < n; i++) {
        send_ints(order[i], 0, CTX, 4, &order[i], 1, &s[i]);
        take_in(0); /* each arrives before the next is sent */
    }
    for (int i = 0; i < n; i++) {
        int got = -1;
        post(0, &r, &got, 1, CTX, MPI_ANY_SOURCE, 4);
        ck_assert(tm_p2p_request_is_complete(&r));
        ck_assert_int_eq(r.status.MPI_SOURCE, order[i]);
        ck_assert_int_eq(got, order[i]);
    }
    /* A receive from one source takes that source's only, whatever arrived before. */
    send_ints(65, 0, CTX, 4, &order[2], 1, &s[0]);
    send_ints(1, 0, CTX, 4, &order[3], 1, &s[1]);
    take_in(0);
    int got = -1;
    post(0, &r, &got, 1, CTX, 1, 4);
    ck_assert(tm_p2p_request_is_complete(&r));
    ck_assert_int_eq(got, 1);
}
END_TEST

START_TEST(test_contexts_apart)
{
    int a = 10, b = 12, got = 0;
    tm_p2p_request_t sa, sb, r;
    send_ints(1, 0, 10, 0, &a, 1, &sa);
    send_ints(1, 0, 12, 0, &b, 1, &sb);
    take_in(0);
    post(0, &r, &got, 1, 12, MPI_ANY_SOURCE, MPI_ANY_TAG);
    ck_assert(tm_p2p_request_is_complete(&r));
    ck_assert_int_eq(got, 12);
    post(0, &r, &got, 1, 14, MPI_ANY_SOURCE, MPI_ANY_TAG);
    ck_assert(!tm_p2p_request_is_complete(&r));
    ck_assert(tm_p2p_cancel_recv(rank_of(0), &r));
    post(0, &r, &got, 1, 10, 1, 0);
    ck_assert(tm_p2p_request_is_complete(&r));
    ck_assert_int_eq(got, 10);
}
END_TEST

/* A message longer than the receive: what fits, and MPI_ERR_TRUNCATE; also by rendezvous. */
START_TEST(test_truncation)
{
    static int big[2000];
    int out[4] = {5, 6, 7, 8}, in[2] = {0};
    tm_p2p_request_t s, r;
    post(0, &r, in, 2, CTX, 1, 3);
    send_ints(1, 0, CTX, 3, out, 4, &s);
    take_in(0);
    ck_assert(tm_p2p_request_is_complete(&r));
    ck_assert_int_eq(r.status.MPI_ERROR, MPI_ERR_TRUNCATE);
    ck_assert_int_eq((int)r.status.tm_count, (int)sizeof in);
    ck_assert_int_eq(in[0], 5);
    ck_assert_int_eq(in[1], 6);
    for (int i = 0; i < 2000; i++)
        big[i] = i;
    int small[10];
    send_ints(1, 0, CTX, 3, big, 2000, &s); /* 8000 bytes: rendezvous */
    ck_assert(!tm_p2p_request_is_complete(&s));
    post(0, &r, small, 10, CTX, 1, 3);
    take_in(0);
    ck_assert(tm_p2p_request_is_complete(&r));
    ck_assert(tm_p2p_request_is_complete(&s)); /* the sender is let go */
    ck_assert_int_eq(r.status.MPI_ERROR, MPI_ERR_TRUNCATE);
    ck_assert_int_eq(small[9], 9);
}
END_TEST

/* A send cancelled before any receiver matched it is never received; one received cannot be
 * cancelled any more. */
START_TEST(test_cancelled_send)
{
    int a = 1, b = 2, got = 0;
    tm_p2p_request_t sa, sb, r;
    send_ints(1, 0, CTX, 0, &a, 1, &sa);
    ck_assert(tm_p2p_cancel_send(&sa));
    ck_assert(sa.status.tm_cancelled);
    send_ints(1, 0, CTX, 0, &b, 1, &sb);
    take_in(0);
    post(0, &r, &got, 1, CTX, 1, 0);
    ck_assert(tm_p2p_request_is_complete(&r));
    ck_assert_int_eq(got, 2);
    ck_assert(!tm_p2p_cancel_send(&sb));
}
END_TEST

/* ---- the transport seam: a message another transport built ---- */

static int seam_copies, seam_dones;

static void seam_copy(const tm_p2p_envelope_t *env, tm_p2p_source_t *src, void *buf, size_t count,
                      const tm_mpi_type_t *type, size_t n)
{
    seam_copies++;
    tm_mpi_type_copy(buf, count, type, src->buf, src->count, src->type, 0, n);
}

static void seam_done(tm_p2p_source_t *src)
{
    seam_dones++;
}

static const tm_p2p_source_ops_t seam_ops = {.copy = seam_copy, .done = seam_done};

/* Posts to world rank `to` a message from `from` whose data is `data` (n ints), as a transport
 * other than the one between ranks of this process would: a cell of its own in the receiver's
 * mailbox, with the envelope and a source whose ops the receiver calls. */
static void seam_post(int from, int to, int tag, const int *data, int n)
{
    tm_shm_cell_t *cell =
        tm_shm_cell_alloc(rank_of(from)->p2p->match.mailbox->pools[TM_P2P_CELL_CLASS_FULL]);
    ck_assert_ptr_nonnull(cell);
    tm_p2p_envelope_t *env = tm_p2p_cell_envelope(cell);
    memset(env, 0, sizeof *env);
    env->context_id = CTX;
    env->source = from;
    env->tag = tag;
    env->origin = from;
    env->protocol = TM_P2P_PROTO_SOURCE;
    atomic_store(&env->claim, TM_P2P_CLAIM_TAKEN);
    tm_p2p_source_t *src = tm_p2p_cell_source(cell);
    src->ops = &seam_ops;
    src->bytes = (size_t)n * sizeof(int);
    src->buf = data;
    src->count = (size_t)n;
    src->type = int_type;
    tm_p2p_mailbox_post(cell, tm_p2p_mailbox_get(to, false));
}

START_TEST(test_transport_seam)
{
    static const int data[3] = {31, 32, 33};
    int got[3] = {0};
    tm_p2p_request_t r;
    seam_copies = seam_dones = 0;
    /* Arrived before its receive. */
    seam_post(2, 0, 6, data, 3);
    take_in(0);
    ck_assert_int_eq(seam_copies, 0);
    post(0, &r, got, 3, CTX, MPI_ANY_SOURCE, MPI_ANY_TAG);
    ck_assert(tm_p2p_request_is_complete(&r));
    ck_assert_int_eq(r.status.MPI_SOURCE, 2);
    ck_assert_int_eq(seam_copies, 1);
    ck_assert_int_eq(seam_dones, 1);
    ck_assert_int_eq((int)r.status.tm_count, (int)sizeof data);
    ck_assert_mem_eq(got, data, sizeof data);
    /* Posted before, and longer than the receive: what fits. */
    memset(got, 0, sizeof got);
    post(0, &r, got, 2, CTX, 2, 6);
    seam_post(2, 0, 6, data, 3);
    take_in(0);
    ck_assert(tm_p2p_request_is_complete(&r));
    ck_assert_int_eq(r.status.MPI_ERROR, MPI_ERR_TRUNCATE);
    ck_assert_int_eq((int)r.status.tm_count, 2 * (int)sizeof(int));
    ck_assert_int_eq(got[1], 32);
    ck_assert_int_eq(got[2], 0);
    ck_assert_int_eq(seam_copies, 2);
    ck_assert_int_eq(seam_dones, 2);
    /* Never received: its sender is let go when the receiving side finalizes. */
    seam_post(2, 0, 6, data, 3);
    take_in(0);
    tm_p2p_finalize(rank_of(0));
    made[0] = false;
    ck_assert_int_eq(seam_copies, 2);
    ck_assert_int_eq(seam_dones, 3);
}
END_TEST

/* ---- ranks of another process ---- */

/* The protocol and tag of the next cell in world rank w's mailbox, taken out as the network
 * transport would (the cell freed); -1 and -1 when it is empty. */
static void outbound_next(int w, int *protocol, int *tag)
{
    tm_shm_cell_t *cell = tm_shm_queue_pop(&tm_p2p_mailbox_get(w, false)->inbound);
    *protocol = *tag = -1;
    if (cell) {
        *protocol = tm_p2p_cell_envelope(cell)->protocol;
        *tag = tm_p2p_cell_envelope(cell)->tag;
        tm_shm_cell_free(cell);
    }
}

START_TEST(test_remote_rank_outbound)
{
    /* This process holds world ranks 0 to NRANKS - 2; the last is another host's (narrowed
     * once the senders are made: made now, they would wire up with the other hosts). */
    rank_of(0);
    rank_of(1);
    fake_rt_local_size = NRANKS - 1;
    int remote = NRANKS - 1, protocol, tag;
    static const int data[2] = {5, 6};
    tm_p2p_request_t reqs[3];
    /* Small messages to a rank of this process go through a fastbox, which opens first. */
    int got[2] = {0, 0};
    tm_p2p_request_t r;
    send_ints(0, 1, CTX, 1, data, 2, &reqs[0]);
    ck_assert(rank_of(0)->p2p->match.fastbox_to[1] != NULL &&
              rank_of(0)->p2p->match.fastbox_to[1] != TM_P2P_FASTBOX_REFUSED);
    post(1, &r, got, 2, CTX, 0, 1);
    take_in(1);
    ck_assert(tm_p2p_request_is_complete(&r));
    ck_assert_int_eq(got[1], 6);
    /* To the other process's rank: each in its mailbox, in order, the data in the cell. */
    for (int i = 0; i < 3; i++)
        send_ints(0, remote, CTX, 10 + i, data, 2, &reqs[i]);
    for (int i = 0; i < 3; i++) {
        outbound_next(remote, &protocol, &tag);
        ck_assert_int_eq(protocol, TM_P2P_PROTO_EAGER);
        ck_assert_int_eq(tag, 10 + i);
        ck_assert(tm_p2p_request_is_complete(&reqs[i]));
    }
    outbound_next(remote, &protocol, &tag);
    ck_assert_int_eq(protocol, -1);
    ck_assert(rank_of(0)->p2p->match.fastbox_to[remote] == TM_P2P_FASTBOX_REFUSED);
}
END_TEST

/* ---- the hook of the collectives ---- */

typedef struct hook_ctx {
    bool pending, needs_rank;
    int runs;
} hook_ctx_t;

static bool hook_progress(void *ctx)
{
    ((hook_ctx_t *)ctx)->runs++;
    return true;
}

static bool hook_pending(const void *ctx)
{
    return ((const hook_ctx_t *)ctx)->pending;
}

static bool hook_needs_rank(const void *ctx)
{
    return ((const hook_ctx_t *)ctx)->needs_rank;
}

static const tm_p2p_hook_t test_hook = {
    .progress = hook_progress, .pending = hook_pending, .needs_rank = hook_needs_rank};

START_TEST(test_progress_hook)
{
    hook_ctx_t ctx = {0};
    tm_mpi_rank_t *r = rank_of(0);
    ck_assert(!tm_p2p_progress(r)); /* nothing to do, no hook */
    tm_p2p_hook_set(r, &test_hook, &ctx);
    ck_assert(!tm_p2p_progress(r));
    ck_assert_int_eq(ctx.runs, 0); /* not run while it has nothing pending */
    ctx.pending = true;
    ck_assert(tm_p2p_progress(r));
    ck_assert_int_eq(ctx.runs, 1);
    tm_p2p_hook_set(r, NULL, NULL);
    ck_assert(!tm_p2p_progress(r));
    ck_assert_int_eq(ctx.runs, 1);
}
END_TEST

static Suite *match_suite(void)
{
    Suite *s = suite_create("p2p_match");
    TCase *tc = tcase_create("matching");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_posted_before_arrival);
    tcase_add_test(tc, test_unexpected_in_order);
    tcase_add_test(tc, test_any_source_arrival_order);
    tcase_add_test(tc, test_contexts_apart);
    tcase_add_test(tc, test_truncation);
    tcase_add_test(tc, test_cancelled_send);
    tcase_add_test(tc, test_transport_seam);
    tcase_add_test(tc, test_remote_rank_outbound);
    tcase_add_test(tc, test_progress_hook);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(match_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
