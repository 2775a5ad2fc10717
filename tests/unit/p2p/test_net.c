/*
 * Unit tests of the network between processes (p2p/net_ucx.c): two networks of this process
 * connected to each other, as two hosts' processes would be; messages of every size both ways,
 * eager and rendezvous, their data and headers intact and in the order sent; over whatever UCX
 * picks here, and over TCP on the loopback interface alone; connections made up front from two
 * threads at once (tm_p2p_net_wire).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "p2p/net.h"

#define MAX_MESSAGES 64

typedef struct header {
    uint32_t seq;
    uint32_t len;
    uint64_t check;
} header_t;

/* One side: its network and what arrived on it. */
typedef struct side {
    tm_p2p_net_t *net;
    int arrived;
    int fetched;
    int sent_done;
    uint32_t seqs[MAX_MESSAGES];
    char *bufs[MAX_MESSAGES];
} side_t;

static void fill(char *buf, size_t len, uint32_t seq)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (char)(seq * 131 + i * 7);
}

static void on_fetched(void *arg, int err)
{
    side_t *s = arg;
    ck_assert_int_eq(err, 0);
    s->fetched++;
}

static void on_arrive(void *arg, const tm_p2p_net_arrival_t *m)
{
    side_t *s = arg;
    header_t h;
    ck_assert_uint_eq(m->header_len, sizeof h);
    memcpy(&h, m->header, sizeof h);
    ck_assert_uint_eq(h.check, ~(uint64_t)h.seq);
    ck_assert_uint_eq(m->data_len, h.len);
    ck_assert_int_lt(s->arrived, MAX_MESSAGES);
    int i = s->arrived++;
    s->seqs[i] = h.seq;
    s->bufs[i] = malloc(h.len + 1);
    ck_assert_ptr_nonnull(s->bufs[i]);
    if (!m->desc) { /* eager: the data is here, if any */
        ck_assert(h.len == 0 || m->data != NULL);
        memcpy(s->bufs[i], m->data ? m->data : "", h.len);
        s->fetched++;
    } else {
        ck_assert_ptr_null(m->data);
        int rc = tm_p2p_net_fetch(s->net, m->desc, s->bufs[i], h.len, on_fetched, s);
        ck_assert_int_ge(rc, 0);
        if (rc == 0)
            s->fetched++;
    }
}

static void on_sent(void *arg, int err)
{
    side_t *s = arg;
    ck_assert_int_eq(err, 0);
    s->sent_done++;
}

static void progress_both(side_t *a, side_t *b)
{
    tm_p2p_net_progress(a->net);
    tm_p2p_net_progress(b->net);
}

/* Opens and connects two sides (peer 1 of a is b, peer 0 of b is a). */
static void open_pair(side_t *a, side_t *b)
{
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    ck_assert_int_eq(tm_p2p_net_open(&a->net, on_arrive, a), 0);
    ck_assert_int_eq(tm_p2p_net_open(&b->net, on_arrive, b), 0);
    const void *addr_a, *addr_b;
    size_t len;
    tm_p2p_net_address(a->net, &addr_a, &len);
    ck_assert_uint_gt(len, 0);
    tm_p2p_net_address(b->net, &addr_b, &len);
    const void *peers_of_a[2] = {NULL, addr_b}, *peers_of_b[2] = {addr_a, NULL};
    ck_assert_int_eq(tm_p2p_net_connect(a->net, 2, peers_of_a), 0);
    ck_assert_int_eq(tm_p2p_net_connect(b->net, 2, peers_of_b), 0);
    ck_assert_uint_ge(tm_p2p_net_max_header(a->net), sizeof(header_t));
}

static void close_pair(side_t *a, side_t *b)
{
    for (int i = 0; i < MAX_MESSAGES; i++) {
        free(a->bufs[i]);
        free(b->bufs[i]);
    }
    tm_p2p_net_close(a->net);
    tm_p2p_net_close(b->net);
}

/* Sends `n` messages of the sizes given from `from` to its peer `peer` (the side `to`) and
 * checks what arrives there. */
static void exchange(side_t *from, int peer, side_t *to, side_t *other, const size_t *sizes, int n)
{
    char *bufs[MAX_MESSAGES];
    int pending = 0, first = to->arrived;
    for (int i = 0; i < n; i++) {
        header_t h = {.seq = (uint32_t)(first + i), .len = (uint32_t)sizes[i]};
        h.check = ~(uint64_t)h.seq;
        bufs[i] = malloc(sizes[i] + 1);
        fill(bufs[i], sizes[i], h.seq);
        int rc = tm_p2p_net_send(from->net, peer, &h, sizeof h, bufs[i], sizes[i], on_sent, from);
        ck_assert_int_ge(rc, 0);
        pending += rc;
    }
    /* Everything arrives, every fetch ends, every send ends (bounded: a hang fails the test
     * through Check's timeout). */
    while (to->arrived < first + n || to->fetched < first + n || from->sent_done < pending)
        progress_both(from, other == from ? to : other);
    for (int i = 0; i < n; i++) {
        ck_assert_uint_eq(to->seqs[first + i], (uint32_t)(first + i));
        char *want = malloc(sizes[i] + 1);
        fill(want, sizes[i], (uint32_t)(first + i));
        ck_assert_msg(memcmp(to->bufs[first + i], want, sizes[i]) == 0,
                      "message %d (%zu bytes) differs", first + i, sizes[i]);
        free(want);
        free(bufs[i]);
    }
    from->sent_done = 0;
}

static const size_t sizes[] = {0, 8, 1000, 4096, 8192, 65536, 1 << 20, 5, 4 << 20, 16};
#define NSIZES ((int)(sizeof sizes / sizeof *sizes))

static void both_ways(void)
{
    side_t a, b;
    open_pair(&a, &b);
    exchange(&a, 1, &b, &b, sizes, NSIZES);
    exchange(&b, 0, &a, &a, sizes, NSIZES);
    exchange(&a, 1, &b, &b, sizes, NSIZES);
    ck_assert_int_eq(tm_p2p_net_send(a.net, 0, NULL, 0, NULL, 0, on_sent, &a), -EINVAL);
    ck_assert_int_eq(tm_p2p_net_send(a.net, 2, NULL, 0, NULL, 0, on_sent, &a), -EINVAL);
    close_pair(&a, &b);
}

static void *wire_main(void *arg)
{
    return (void *)(intptr_t)tm_p2p_net_wire(((side_t *)arg)->net);
}

/* Both sides make their connections at once, each progressing its own network, as two hosts'
 * processes do at wire-up; then messages both ways. */
static void wired_both_ways(void)
{
    side_t a, b;
    open_pair(&a, &b);
    pthread_t ta, tb;
    void *ra, *rb;
    ck_assert_int_eq(pthread_create(&ta, NULL, wire_main, &a), 0);
    ck_assert_int_eq(pthread_create(&tb, NULL, wire_main, &b), 0);
    ck_assert_int_eq(pthread_join(ta, &ra), 0);
    ck_assert_int_eq(pthread_join(tb, &rb), 0);
    ck_assert_int_eq((int)(intptr_t)ra, 0);
    ck_assert_int_eq((int)(intptr_t)rb, 0);
    exchange(&a, 1, &b, &b, sizes, NSIZES);
    exchange(&b, 0, &a, &a, sizes, NSIZES);
    close_pair(&a, &b);
}

START_TEST(test_default_transports)
{
    both_ways();
}
END_TEST

/* The path between hosts: TCP only, here over the loopback interface. */
static void over_tcp(void (*run)(void))
{
    setenv("UCX_TLS", "tcp,self", 1);
    setenv("UCX_NET_DEVICES", "lo", 1);
    run();
    unsetenv("UCX_TLS");
    unsetenv("UCX_NET_DEVICES");
}

START_TEST(test_tcp)
{
    over_tcp(both_ways);
}
END_TEST

START_TEST(test_wire)
{
    over_tcp(wired_both_ways);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("p2p_net");
    TCase *tc = tcase_create("net");
    tcase_add_test(tc, test_default_transports);
    tcase_add_test(tc, test_tcp);
    tcase_add_test(tc, test_wire);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
