/*
 * Unit test of the matching of p2p/match.c under races. Producers are real threads, each with its
 * own mailbox and cell pool as a rank has (tm_p2p_init on its thread); they send to one
 * receiver through the transport (tm_p2p_matcher_send), eager and rendezvous, with tags drawn
 * from a fixed sequence; the receiver, on the test's thread, posts a mix of MPI_ANY_SOURCE /
 * specific-source and MPI_ANY_TAG / specific-tag receives while the messages arrive.
 *
 * Checked: nothing is lost or received twice, statuses and data are the message's, and MPI's
 * non-overtaking rule (MPI 3.1 3.5): for two receives R1 posted before R2 that got messages m1
 * and m2 of one source and both match both messages, m1 was sent before m2 (otherwise R1 took
 * m2 while m1 was pending, or R2 took m1 while R1 was pending). For receives of one (source,
 * tag) this is send order. A second test races a posted MPI_ANY_SOURCE receive with the
 * arrivals of one message from each producer. Both are short under ThreadSanitizer
 * (--enable-tsan) too.
 */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/unit/fake_rt.h"
#include "p2p/p2p.h"

#ifdef TM_WITH_TSAN
#define ORDER_PER_PRODUCER 1000
#define RACE_ROUNDS        500
#else
#define ORDER_PER_PRODUCER 3000
#define RACE_ROUNDS        2000
#endif
#define PRODUCERS 4
#define TAGS      3
#define CONTEXT   8  /* the communicator's: any even id */
#define WINDOW    32 /* messages in flight per producer (flow control, as a real sender waits) */
#define RECVS     12 /* receives posted at a time */
/* A message: its header, and for one in LARGE_EVERY a body that makes it go by rendezvous. */
#define HEADER_INTS 4
#define LARGE_INTS  1500 /* 6000 bytes, above the fake runtime's 4096-byte eager limit */
#define LARGE_EVERY 7
/* A matcher that breaks the order can leave a receive waiting for ever: the test then stops after
 * this long without a delivery and reports what it saw, well before Check's timeout. */
#define STALL_SECONDS 10

typedef struct pseudo_rank {
    tm_rt_rank_t rt;
    tm_mpi_rank_t mpi;
} pseudo_rank_t;

static pseudo_rank_t receiver;
static tm_mpi_type_t *int_type;

/* Producer p is rank p of the communicator, world rank p + 1; the receiver is world rank 0. */
typedef struct producer {
    pthread_t thread;
    int index;
    pseudo_rank_t rank;
    int init_err, send_err;
    int (*bufs)[LARGE_INTS];
    tm_p2p_request_t reqs[WINDOW];
} producer_t;

static producer_t producers[PRODUCERS];
static _Atomic long consumed[PRODUCERS]; /* messages of each producer the receiver checked */
static _Atomic int race_round;           /* the round the producers may send in (race test) */

static void setup(void)
{
    fake_rt_setup(0, PRODUCERS + 1);
    receiver.rt.world_rank = 0;
    receiver.mpi.rt = &receiver.rt;
    ck_assert_int_eq(tm_p2p_init(&receiver.mpi), 0);
    ck_assert_int_eq(tm_mpi_type_lookup(MPI_INT, &int_type), 0);
    memset(producers, 0, sizeof(producers));
    for (int p = 0; p < PRODUCERS; p++)
        atomic_store(&consumed[p], 0);
    atomic_store(&race_round, -1);
}

static void teardown(void)
{
    tm_p2p_finalize(&receiver.mpi);
}

/* The tag of producer p's k-th message in the order test: a fixed irregular sequence. */
static int order_tag(int p, int k)
{
    unsigned x = (unsigned)(p * 7919 + k) * 2654435761u;

    return (int)((x >> 13) % TAGS);
}

static bool order_large(int k)
{
    return k % LARGE_EVERY == LARGE_EVERY - 1;
}

static int body_int(int p, int k, int i)
{
    return p * 1000003 + k * 31 + i;
}

/* Makes the producer's rank on its own thread: it owns the cell pool. */
static bool producer_init(producer_t *pr)
{
    pr->rank.rt.world_rank = pr->index + 1;
    pr->rank.mpi.rt = &pr->rank.rt;
    pr->init_err = tm_p2p_init(&pr->rank.mpi);
    if (pr->init_err != 0)
        return false;
    for (int w = 0; w < WINDOW; w++)
        atomic_store(&pr->reqs[w].complete, 1);
    return true;
}

static double seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void wait_complete(tm_p2p_request_t *req)
{
    while (!tm_p2p_request_is_complete(req))
        sched_yield();
}

/* Sends message k (header {p, tag, k, seq_tag}) with tag `tag` from slot k % WINDOW. */
static void producer_send(producer_t *pr, int k, int tag, int seq_tag, bool large, bool sync)
{
    int p = pr->index, w = k % WINDOW;
    int *buf = pr->bufs[w];
    tm_p2p_request_t *req = &pr->reqs[w];
    size_t n = large ? LARGE_INTS : HEADER_INTS;

    wait_complete(req); /* the slot's previous message was copied out of its buffer */
    buf[0] = p;
    buf[1] = tag;
    buf[2] = k;
    buf[3] = seq_tag;
    for (size_t i = HEADER_INTS; i < n; i++)
        buf[i] = body_int(p, k, (int)i);
    memset(req, 0, sizeof(*req));
    req->kind = TM_P2P_REQ_SEND;
    req->owner = &pr->rank.mpi;
    if (tm_p2p_matcher_send(&pr->rank.mpi.p2p->match, req, buf, n, int_type, n * sizeof(int),
                            tm_p2p_mailbox_get(0, false), CONTEXT, p, tag, sync, MPI_SUCCESS) < 0)
        pr->send_err++;
}

static void producer_fini(producer_t *pr)
{
    for (int w = 0; w < WINDOW; w++)
        wait_complete(&pr->reqs[w]);
    tm_p2p_finalize(&pr->rank.mpi);
}

static void *order_producer(void *arg)
{
    producer_t *pr = arg;
    int seq_tag[TAGS] = {0};

    if (!producer_init(pr))
        return NULL;
    for (int k = 0; k < ORDER_PER_PRODUCER; k++) {
        /* acquire: the receiver is done with the messages it counted */
        while (k - atomic_load_explicit(&consumed[pr->index], memory_order_acquire) >= WINDOW)
            sched_yield();
        int tag = order_tag(pr->index, k);
        producer_send(pr, k, tag, seq_tag[tag]++, order_large(k), k % 11 == 5);
    }
    producer_fini(pr);
    return NULL;
}

static void producers_start(void *(*main)(void *))
{
    for (int p = 0; p < PRODUCERS; p++) {
        producers[p].index = p;
        producers[p].bufs = malloc(WINDOW * sizeof(*producers[p].bufs));
        ck_assert_ptr_nonnull(producers[p].bufs);
        ck_assert_int_eq(pthread_create(&producers[p].thread, NULL, main, &producers[p]), 0);
    }
}

static void producers_join(void)
{
    for (int p = 0; p < PRODUCERS; p++) {
        ck_assert_int_eq(pthread_join(producers[p].thread, NULL), 0);
        ck_assert_int_eq(producers[p].init_err, 0);
        ck_assert_int_eq(producers[p].send_err, 0);
        free(producers[p].bufs);
    }
}

/* ---- the receiver's side ---- */

typedef struct recv_slot {
    tm_p2p_request_t req;
    int buf[LARGE_INTS];
    bool active;
    long posted; /* posting order */
} recv_slot_t;

/* A completed receive: what it asked for and what it got. */
typedef struct record {
    long posted;
    int want_source, want_tag;
    int source, tag, k, seq_tag;
} record_t;

static void post(recv_slot_t *slot, int source, int tag, long posted)
{
    memset(&slot->req, 0, sizeof(slot->req));
    slot->req.kind = TM_P2P_REQ_RECV;
    slot->req.owner = &receiver.mpi;
    slot->req.buf = slot->buf;
    slot->req.count = LARGE_INTS;
    slot->req.type = int_type;
    slot->active = true;
    slot->posted = posted;
    tm_p2p_matcher_recv(&receiver.mpi.p2p->match, &slot->req, CONTEXT, source, tag);
}

/* Checks a completed receive's status and data against the message's header. */
static void check_delivery(const recv_slot_t *slot, int want_source, int want_tag)
{
    const MPI_Status *st = &slot->req.status;
    const int *buf = slot->buf;
    int p = buf[0], k = buf[2];

    ck_assert_int_eq(st->MPI_ERROR, MPI_SUCCESS);
    ck_assert_int_eq(st->MPI_SOURCE, p);
    ck_assert_int_eq(st->MPI_TAG, buf[1]);
    ck_assert(want_source == MPI_ANY_SOURCE || want_source == p);
    ck_assert(want_tag == MPI_ANY_TAG || want_tag == buf[1]);
    ck_assert(p >= 0 && p < PRODUCERS);
    if (st->tm_count > (MPI_Count)(HEADER_INTS * sizeof(int))) {
        int bad = -1; /* one assertion per message: each passing one costs Check a write */

        ck_assert_int_eq(st->tm_count, LARGE_INTS * sizeof(int));
        for (int i = HEADER_INTS; i < LARGE_INTS && bad < 0; i++)
            if (buf[i] != body_int(p, k, i))
                bad = i;
        ck_assert_msg(bad < 0, "message %d of %d: int %d is wrong", k, p, bad);
    }
}

static bool pattern_matches(const record_t *r, int source, int tag)
{
    return (r->want_source == MPI_ANY_SOURCE || r->want_source == source) &&
           (r->want_tag == MPI_ANY_TAG || r->want_tag == tag);
}

static int by_posting(const void *a, const void *b)
{
    const record_t *x = a, *y = b;

    return (x->posted > y->posted) - (x->posted < y->posted);
}

/* Non-overtaking over the receives that got messages of one source (see the opening comment);
 * in particular, in posting order, the messages of each tag come in send order. */
static void check_non_overtaking(record_t *recs, int n)
{
    int next_seq_tag[TAGS] = {0};

    qsort(recs, (size_t)n, sizeof(*recs), by_posting);
    for (int i = 0; i < n; i++)
        if (recs[i].seq_tag != next_seq_tag[recs[i].tag]++)
            ck_abort_msg("source %d, tag %d: receive %ld got message %d of the tag, not %d",
                         recs[i].source, recs[i].tag, recs[i].posted, recs[i].seq_tag,
                         next_seq_tag[recs[i].tag] - 1);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const record_t *a = &recs[i], *b = &recs[j];

            if (pattern_matches(a, b->source, b->tag) && pattern_matches(b, a->source, a->tag) &&
                a->k > b->k)
                ck_abort_msg("source %d: receive %ld (source %d, tag %d) got message %d "
                             "(tag %d), receive %ld (source %d, tag %d) posted after it got "
                             "the earlier message %d (tag %d)",
                             a->source, a->posted, a->want_source, a->want_tag, a->k, a->tag,
                             b->posted, b->want_source, b->want_tag, b->k, b->tag);
        }
}

/* A receive pattern from rng: a producer or MPI_ANY_SOURCE, a tag or MPI_ANY_TAG. */
static void pattern_draw(unsigned *rng, int *source, int *tag)
{
    *rng = *rng * 1103515245u + 12345u;
    int s = (int)((*rng >> 8) % (PRODUCERS + 1)), t = (int)((*rng >> 20) % (TAGS + 1));

    *source = s == PRODUCERS ? MPI_ANY_SOURCE : s;
    *tag = t == TAGS ? MPI_ANY_TAG : t;
}

/* Messages of (source, tag) pattern not yet delivered. */
static long pattern_left(long left[PRODUCERS][TAGS], int source, int tag)
{
    long n = 0;

    for (int p = 0; p < PRODUCERS; p++)
        for (int t = 0; t < TAGS; t++)
            if ((source == MPI_ANY_SOURCE || source == p) && (tag == MPI_ANY_TAG || tag == t))
                n += left[p][t];
    return n;
}

/*
 * The receiver posts up to RECVS receives of random patterns while the producers send. A
 * receive is posted only when the messages left that it matches outnumber the receives already
 * posted (each takes at most one of them, and no later receive takes one before it): every
 * receive completes, and the test ends. Otherwise it falls back to (MPI_ANY_SOURCE,
 * MPI_ANY_TAG), or waits.
 */
START_TEST(test_p2p_order_any_source)
{
    static recv_slot_t slots[RECVS];
    record_t *recs[PRODUCERS];
    int nrecs[PRODUCERS] = {0};
    long left[PRODUCERS][TAGS] = {{0}};
    unsigned char *seen = calloc(PRODUCERS * ORDER_PER_PRODUCER, 1);
    long total = (long)PRODUCERS * ORDER_PER_PRODUCER, delivered = 0, posted = 0;
    int outstanding = 0;
    unsigned rng = 12345;

    ck_assert_ptr_nonnull(seen);
    for (int p = 0; p < PRODUCERS; p++) {
        recs[p] = malloc(ORDER_PER_PRODUCER * sizeof(*recs[p]));
        ck_assert_ptr_nonnull(recs[p]);
        for (int k = 0; k < ORDER_PER_PRODUCER; k++)
            left[p][order_tag(p, k)]++;
    }
    producers_start(order_producer);
    for (double last = seconds(); delivered < total;) {
        bool did = tm_p2p_matcher_progress(&receiver.mpi.p2p->match);

        for (int i = 0; i < RECVS; i++) {
            recv_slot_t *slot = &slots[i];

            if (!slot->active || !tm_p2p_request_is_complete(&slot->req))
                continue;
            int want_source = slot->req.source, want_tag = slot->req.tag;
            int p = slot->buf[0], tag = slot->buf[1], k = slot->buf[2];

            check_delivery(slot, want_source, want_tag);
            ck_assert_msg(!seen[p * ORDER_PER_PRODUCER + k], "message %d of %d received twice", k,
                          p);
            seen[p * ORDER_PER_PRODUCER + k] = 1;
            ck_assert_int_eq(tag, order_tag(p, k));
            recs[p][nrecs[p]++] =
                (record_t){slot->posted, want_source, want_tag, p, tag, k, slot->buf[3]};
            left[p][tag]--;
            slot->active = false;
            outstanding--;
            delivered++;
            /* release: the producer may reuse the slot of this message */
            atomic_fetch_add_explicit(&consumed[p], 1, memory_order_release);
            did = true;
        }
        for (int i = 0; i < RECVS; i++) {
            int source, tag;

            if (slots[i].active)
                continue;
            pattern_draw(&rng, &source, &tag);
            if (pattern_left(left, source, tag) <= outstanding) {
                source = MPI_ANY_SOURCE;
                tag = MPI_ANY_TAG;
                if (pattern_left(left, source, tag) <= outstanding)
                    break;
            }
            post(&slots[i], source, tag, posted++);
            outstanding++;
            did = true;
        }
        if (did) {
            last = seconds();
            continue;
        }
        if (seconds() - last > STALL_SECONDS)
            break;
        sched_yield();
    }
    if (delivered < total) { /* stalled: an order broken explains it best (the process ends) */
        for (int p = 0; p < PRODUCERS; p++)
            check_non_overtaking(recs[p], nrecs[p]);
        ck_abort_msg("no receive completed for %d s: %ld of %ld messages delivered, %d receives "
                     "posted",
                     STALL_SECONDS, delivered, total, outstanding);
    }
    producers_join();
    ck_assert_int_eq(outstanding, 0);
    for (int p = 0; p < PRODUCERS; p++) {
        ck_assert_int_eq(nrecs[p], ORDER_PER_PRODUCER);
        for (int t = 0; t < TAGS; t++)
            ck_assert_int_eq(left[p][t], 0);
        check_non_overtaking(recs[p], nrecs[p]);
        free(recs[p]);
    }
    for (long i = 0; i < total; i++)
        ck_assert(seen[i]);
    ck_assert_uint_eq(receiver.mpi.p2p->match.unexpected.nonempty, 0);
    ck_assert(tm_p2p_mailbox_idle(receiver.mpi.p2p->match.mailbox));
    free(seen);
}
END_TEST

/* ---- a posted MPI_ANY_SOURCE receive racing with arrivals ---- */

#define RACE_TAG  7
#define OTHER_TAG 8 /* nobody sends it */

static void *race_producer(void *arg)
{
    producer_t *pr = arg;

    if (!producer_init(pr))
        return NULL;
    for (int round = 0; round < RACE_ROUNDS; round++) {
        /* acquire: the receiver's previous round is over */
        while (atomic_load_explicit(&race_round, memory_order_acquire) < round)
            sched_yield();
        /* Eager and rendezvous by turns, shifted per producer. */
        producer_send(pr, round, RACE_TAG, round, (round + pr->index) % 3 == 0, false);
    }
    producer_fini(pr);
    return NULL;
}

static void wait_recv(recv_slot_t *slot)
{
    double start = seconds();

    while (!tm_p2p_request_is_complete(&slot->req)) {
        if (tm_p2p_matcher_progress(&receiver.mpi.p2p->match))
            continue;
        if (seconds() - start > STALL_SECONDS)
            ck_abort_msg("the receive (source %d, tag %d) not satisfied after %d s",
                         slot->req.source, slot->req.tag, STALL_SECONDS);
        sched_yield();
    }
}

/*
 * Each round the producers send one message each, tag RACE_TAG, while the receiver posts an
 * MPI_ANY_SOURCE receive of RACE_TAG (before it lets them go, or just after) and one of
 * OTHER_TAG: the first gets exactly one of the round's messages, whichever comes first; the
 * others are then received by source; the OTHER_TAG receive is never satisfied and is cancelled.
 */
START_TEST(test_p2p_any_source_race)
{
    static recv_slot_t any, other, by_source[PRODUCERS];
    long firsts[PRODUCERS] = {0};

    producers_start(race_producer);
    for (int round = 0; round < RACE_ROUNDS; round++) {
        bool got[PRODUCERS] = {false};
        bool post_first = round % 2 == 0;

        if (post_first)
            post(&any, MPI_ANY_SOURCE, RACE_TAG, 0);
        post(&other, MPI_ANY_SOURCE, OTHER_TAG, 1);
        /* release: the receives are posted before the producers send (post_first) */
        atomic_store_explicit(&race_round, round, memory_order_release);
        if (!post_first)
            post(&any, MPI_ANY_SOURCE, RACE_TAG, 0);
        wait_recv(&any);
        check_delivery(&any, MPI_ANY_SOURCE, RACE_TAG);
        ck_assert_int_eq(any.buf[2], round);
        got[any.buf[0]] = true;
        firsts[any.buf[0]]++;
        for (int p = 0; p < PRODUCERS; p++)
            if (!got[p])
                post(&by_source[p], p, RACE_TAG, 2 + p);
        for (int p = 0; p < PRODUCERS; p++) {
            if (got[p])
                continue;
            wait_recv(&by_source[p]);
            check_delivery(&by_source[p], p, RACE_TAG);
            ck_assert_int_eq(by_source[p].buf[2], round);
        }
        ck_assert(!tm_p2p_request_is_complete(&other.req));
        ck_assert(tm_p2p_cancel_recv(&receiver.mpi, &other.req));
        ck_assert_uint_eq(receiver.mpi.p2p->match.unexpected.nonempty, 0);
        ck_assert_ptr_null(receiver.mpi.p2p->match.posted_head);
    }
    producers_join();
    long sum = 0;
    for (int p = 0; p < PRODUCERS; p++)
        sum += firsts[p];
    ck_assert_int_eq(sum, RACE_ROUNDS);
    ck_assert(tm_p2p_mailbox_idle(receiver.mpi.p2p->match.mailbox));
}
END_TEST

static Suite *p2p_suite(void)
{
    Suite *s = suite_create("p2p_match_races");
    TCase *tc = tcase_create("matching");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_p2p_order_any_source);
    tcase_add_test(tc, test_p2p_any_source_race);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(p2p_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
