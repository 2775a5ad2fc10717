/* Point-to-point between ranks: every protocol (eager up to 4 KiB, rendezvous above), blocking
 * and non-blocking calls, MPI_ANY_SOURCE / MPI_ANY_TAG, MPI's non-overtaking order, matching by
 * tag, probes, synchronous sends, the wait/test family, MPI_PROC_NULL and messages to oneself,
 * and blocking receives that take their message without a request.
 * Every received byte is checked. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, errors;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d, line %d: ", rank, __LINE__);                                 \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

static unsigned char pattern(int from, int to, size_t i)
{
    return (unsigned char)(from * 31 + to * 7 + i * 13);
}

/* A ring exchange of n bytes with each kind of call. */
static void ring(size_t n)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    unsigned char *out = malloc(n + 1), *in = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        out[i] = pattern(rank, next, i);
    MPI_Status st;

    /* Sendrecv */
    memset(in, 0, n + 1);
    MPI_Sendrecv(out, (int)n, MPI_BYTE, next, 5, in, (int)n, MPI_BYTE, prev, 5, MPI_COMM_WORLD,
                 &st);
    int count;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 5 && count == (int)n,
          "sendrecv %zu: source %d tag %d count %d", n, st.MPI_SOURCE, st.MPI_TAG, count);
    for (size_t i = 0; i < n; i++)
        if (in[i] != pattern(prev, rank, i)) {
            CHECK(0, "sendrecv %zu: byte %zu is %u", n, i, in[i]);
            break;
        }

    /* Isend / Irecv / Waitall */
    MPI_Request reqs[2];
    memset(in, 0, n + 1);
    MPI_Irecv(in, (int)n, MPI_BYTE, prev, 6, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(out, (int)n, MPI_BYTE, next, 6, MPI_COMM_WORLD, &reqs[1]);
    MPI_Status sts[2];
    MPI_Waitall(2, reqs, sts);
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL, "waitall left requests");
    CHECK(sts[0].MPI_SOURCE == prev && sts[0].MPI_TAG == 6, "irecv status");
    CHECK(n == 0 || (in[0] == pattern(prev, rank, 0) && in[n - 1] == pattern(prev, rank, n - 1)),
          "isend/irecv %zu bytes", n);

    /* Blocking Send / Recv, even ranks first (an odd ring size has two evens in a row). Alone,
     * a rank would send to itself before receiving: unsafe above the eager limit. */
    memset(in, 0, n + 1);
    if (size == 1) {
        MPI_Sendrecv(out, (int)n, MPI_BYTE, next, 7, in, (int)n, MPI_BYTE, prev, 7, MPI_COMM_WORLD,
                     &st);
    } else if (rank % 2 == 0) {
        MPI_Send(out, (int)n, MPI_BYTE, next, 7, MPI_COMM_WORLD);
        MPI_Recv(in, (int)n, MPI_BYTE, prev, 7, MPI_COMM_WORLD, &st);
    } else {
        MPI_Recv(in, (int)n, MPI_BYTE, prev, 7, MPI_COMM_WORLD, &st);
        MPI_Send(out, (int)n, MPI_BYTE, next, 7, MPI_COMM_WORLD);
    }
    CHECK(n == 0 || in[n / 2] == pattern(prev, rank, n / 2), "send/recv %zu bytes", n);
    free(out);
    free(in);
}

/* Every rank sends its rank to 0, which receives with MPI_ANY_SOURCE. (Not MPI_ANY_TAG: the
 * other ranks run ahead into the next phases and send more to rank 0.) */
static void any_source(void)
{
    if (rank != 0) {
        MPI_Send(&rank, 1, MPI_INT, 0, 100, MPI_COMM_WORLD);
        return;
    }
    int seen = 0;
    for (int i = 1; i < size; i++) {
        int v;
        MPI_Status st;
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 100, MPI_COMM_WORLD, &st);
        CHECK(v == st.MPI_SOURCE && st.MPI_TAG == 100, "any source: %d from %d tag %d", v,
              st.MPI_SOURCE, st.MPI_TAG);
        seen += v;
    }
    CHECK(seen == size * (size - 1) / 2, "any source: sum %d", seen);
}

/* Messages of one sender with one tag arrive in order, eager and rendezvous mixed; receives by
 * tag pick the right message whatever the order of arrival. */
static void order_and_tags(void)
{
    enum { N = 40, BIG = 10000 };
    if (size < 2 || rank > 1)
        return;
    static int buf[N][BIG];
    if (rank == 1) {
        for (int m = 0; m < N; m++) {
            int len = m % 3 == 0 ? BIG : 1 + m;
            for (int i = 0; i < len; i++)
                buf[m][i] = m * 1000 + i;
            MPI_Send(buf[m], len, MPI_INT, 0, 9, MPI_COMM_WORLD);
        }
        /* Non-blocking: rank 0 receives them in the other order, which blocking sends would
         * deadlock unless buffered (they are not, by rendezvous: eager_limit = 0). */
        int a = 1, b = 2;
        MPI_Request two[2];
        MPI_Isend(&a, 1, MPI_INT, 0, 21, MPI_COMM_WORLD, &two[0]);
        MPI_Isend(&b, 1, MPI_INT, 0, 22, MPI_COMM_WORLD, &two[1]);
        MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
        return;
    }
    for (int m = 0; m < N; m++) {
        MPI_Status st;
        MPI_Recv(buf[m], BIG, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        int count, len = m % 3 == 0 ? BIG : 1 + m;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == len && buf[m][0] == m * 1000 && buf[m][len - 1] == m * 1000 + len - 1,
              "order: message %d has %d ints starting %d", m, count, buf[m][0]);
    }
    int b = 0, a = 0;
    MPI_Recv(&b, 1, MPI_INT, 1, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&a, 1, MPI_INT, 1, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(a == 1 && b == 2, "tags: a=%d b=%d", a, b);
}

/* Non-overtaking when a sender's small messages go through its fastbox and the others, or those
 * that find it full, through the queue: every rank but 0 sends rank 0 many messages at once,
 * mostly small, every 7th too big for a fastbox cell, and rank 0 receives them from
 * MPI_ANY_SOURCE while they still come (fastboxes full and freed again on the way). */
static void order_fastbox(void)
{
    enum { N = 600, BIG = 40 };
    /* Its own communicator: a sender done early goes on to the next test, whose messages to
     * rank 0 must not match here. */
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (rank != 0) {
        static int out[N][BIG];
        static MPI_Request reqs[N];
        for (int m = 0; m < N; m++) {
            int len = m % 7 == 3 ? BIG : 1 + m % 4;
            for (int i = 0; i < len; i++)
                out[m][i] = rank * 100000 + m;
            MPI_Isend(out[m], len, MPI_INT, 0, m % 5, comm, &reqs[m]);
        }
        MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE);
        MPI_Comm_free(&comm);
        return;
    }
    int *next = calloc((size_t)size, sizeof *next);
    int in[BIG];
    for (int k = 0; k < N * (size - 1); k++) {
        MPI_Status st;
        MPI_Recv(in, BIG, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
        int s = st.MPI_SOURCE, m = next[s]++, count;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == (m % 7 == 3 ? BIG : 1 + m % 4) && in[0] == s * 100000 + m &&
                  in[count - 1] == s * 100000 + m && st.MPI_TAG == m % 5,
              "fastbox order: from %d expected message %d, got %d ints starting %d tag %d", s, m,
              count, in[0], st.MPI_TAG);
    }
    free(next);
    MPI_Comm_free(&comm);
}

/* A blocking receive takes a message at once, without a request, when it finds it among the
 * unexpected ones or at the head of its sender's fastbox (p2p/match.c, "Receiving at once"); it must
 * still leave a message to a receive posted before it, skip a cancelled send and match by tag.
 * Rank 1 sends while rank 0 already waits in MPI_Recv (after the barrier), so that each message
 * meets the receive at the head of the fastbox. */
static void recv_at_once(void)
{
    if (size < 2 || rank > 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    }
    int a = 0, b = 0, c = 0, cancelled = 0;
    MPI_Status st;
    if (rank == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        /* a receive posted earlier gets the first of two matching messages */
        int v1 = 11, v2 = 12;
        MPI_Send(&v1, 1, MPI_INT, 0, 70, MPI_COMM_WORLD);
        MPI_Send(&v2, 1, MPI_INT, 0, 70, MPI_COMM_WORLD);
        /* by tag: 71 first, then 72, received in the other order (not blocking sends: they
         * may go by rendezvous, [p2p] eager_limit = 0) */
        int v3 = 13, v4 = 14;
        MPI_Request by_tag[2];
        MPI_Isend(&v3, 1, MPI_INT, 0, 71, MPI_COMM_WORLD, &by_tag[0]);
        MPI_Isend(&v4, 1, MPI_INT, 0, 72, MPI_COMM_WORLD, &by_tag[1]);
        MPI_Waitall(2, by_tag, MPI_STATUSES_IGNORE);
        /* a cancelled send, then the message meant */
        int x = 15, y = 16;
        MPI_Request req;
        MPI_Isend(&x, 1, MPI_INT, 0, 73, MPI_COMM_WORLD, &req);
        MPI_Cancel(&req);
        MPI_Wait(&req, &st);
        MPI_Test_cancelled(&st, &cancelled);
        MPI_Send(&y, 1, MPI_INT, 0, 73, MPI_COMM_WORLD);
        MPI_Send(&cancelled, 1, MPI_INT, 0, 74, MPI_COMM_WORLD);
        /* longer than the receive's buffer */
        int two[2] = {21, 22};
        MPI_Send(two, 2, MPI_INT, 0, 75, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    }
    MPI_Request early;
    MPI_Irecv(&a, 1, MPI_INT, 1, 70, MPI_COMM_WORLD, &early);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Recv(&b, 1, MPI_INT, 1, 70, MPI_COMM_WORLD, &st);
    MPI_Wait(&early, MPI_STATUS_IGNORE);
    CHECK(a == 11 && b == 12 && st.MPI_SOURCE == 1 && st.MPI_TAG == 70,
          "posted receive first: it got %d, MPI_Recv %d", a, b);
    MPI_Recv(&b, 1, MPI_INT, 1, 72, MPI_COMM_WORLD, &st);
    MPI_Recv(&a, 1, MPI_INT, 1, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(a == 13 && b == 14 && st.MPI_TAG == 72, "by tag: 71 got %d, 72 got %d", a, b);
    MPI_Recv(&c, 1, MPI_INT, 1, 73, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&cancelled, 1, MPI_INT, 1, 74, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (cancelled) {
        CHECK(c == 16, "after a cancelled send, received %d", c);
    } else {
        CHECK(c == 15, "the send not cancelled came second: %d", c);
        MPI_Recv(&c, 1, MPI_INT, 1, 73, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(c == 16, "then %d", c);
    }
    /* Truncation, at once: the message is longer than the buffer. */
    int one = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int err = MPI_Recv(&one, 1, MPI_INT, 1, 75, MPI_COMM_WORLD, &st), cls = MPI_SUCCESS;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE && one == 21, "truncated receive: class %d, got %d", cls, one);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Probe for the size, then receive; Iprobe finds nothing where nothing was sent. */
static void probes(void)
{
    if (size < 2 || rank > 1)
        return;
    if (rank == 1) {
        double d[123];
        for (int i = 0; i < 123; i++)
            d[i] = i * 0.5;
        MPI_Send(d, 123, MPI_DOUBLE, 0, 31, MPI_COMM_WORLD);
        return;
    }
    int flag = 1;
    MPI_Iprobe(1, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "iprobe found a message never sent");
    MPI_Status st;
    MPI_Probe(MPI_ANY_SOURCE, 31, MPI_COMM_WORLD, &st);
    int count;
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(st.MPI_SOURCE == 1 && count == 123, "probe: source %d count %d", st.MPI_SOURCE, count);
    MPI_Iprobe(1, 31, MPI_COMM_WORLD, &flag, &st);
    CHECK(flag, "iprobe misses the probed message");
    double *d = malloc((size_t)count * sizeof *d);
    MPI_Recv(d, count, MPI_DOUBLE, st.MPI_SOURCE, 31, MPI_COMM_WORLD, &st);
    CHECK(d[122] == 61.0, "probe then recv: %g", d[122]);
    free(d);
}

/* A synchronous send is not complete before the receiver has started receiving it. */
static void synchronous(void)
{
    if (size < 2 || rank > 1)
        return;
    int v = 42, go = 1;
    if (rank == 0) {
        MPI_Request req;
        int flag = 1;
        MPI_Issend(&v, 1, MPI_INT, 1, 41, MPI_COMM_WORLD, &req);
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "issend complete before the receive was posted");
        MPI_Send(&go, 1, MPI_INT, 1, 40, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Ssend(&v, 1, MPI_INT, 1, 42, MPI_COMM_WORLD);
    } else {
        int got = 0;
        MPI_Recv(&go, 1, MPI_INT, 0, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&got, 1, MPI_INT, 0, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(got == 42, "issend data %d", got);
        got = 0;
        MPI_Recv(&got, 1, MPI_INT, 0, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(got == 42, "ssend data %d", got);
    }
}

/* Waitany, Testsome, Testany over receives from every rank; Request_free on a send. */
static void completions(void)
{
    /* Static: after MPI_Request_free the send may still read it (by rendezvous, until the
     * receiver has copied it), so it must outlive this function. */
    static int v;
    v = rank;
    MPI_Request sreq;
    MPI_Isend(&v, 1, MPI_INT, 0, 50, MPI_COMM_WORLD, &sreq);
    MPI_Request_free(&sreq);
    CHECK(sreq == MPI_REQUEST_NULL, "request_free leaves the handle");
    if (rank == 0) {
        int *got = calloc((size_t)size, sizeof *got);
        MPI_Request *reqs = malloc((size_t)size * sizeof *reqs);
        for (int i = 0; i < size; i++)
            MPI_Irecv(&got[i], 1, MPI_INT, i, 50, MPI_COMM_WORLD, &reqs[i]);
        int done = 0, *idx = malloc((size_t)size * sizeof *idx);
        while (done < size) {
            int index, outcount;
            if (done % 2 == 0) {
                MPI_Waitany(size, reqs, &index, MPI_STATUS_IGNORE);
                CHECK(index >= 0 && index < size && got[index] == index, "waitany %d", index);
                done++;
            } else {
                MPI_Testsome(size, reqs, &outcount, idx, MPI_STATUSES_IGNORE);
                for (int k = 0; k < outcount; k++)
                    CHECK(got[idx[k]] == idx[k], "testsome %d", idx[k]);
                done += outcount > 0 ? outcount : 0;
            }
        }
        int index, flag;
        MPI_Testany(size, reqs, &index, &flag, MPI_STATUS_IGNORE);
        CHECK(flag && index == MPI_UNDEFINED, "testany on null requests: flag %d index %d", flag,
              index);
        free(idx);
        free(reqs);
        free(got);
    }
}

/* MPI_PROC_NULL and messages to oneself, on MPI_COMM_WORLD and MPI_COMM_SELF. */
static void null_and_self(void)
{
    MPI_Status st;
    int v = 7, w = 0;
    MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
    MPI_Recv(&w, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && w == 0, "proc null");
    MPI_Request req;
    MPI_Isend(&v, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &req);
    MPI_Recv(&w, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(w == 7 && st.MPI_SOURCE == rank, "self on world: %d", w);
    w = 0;
    MPI_Sendrecv(&v, 1, MPI_INT, 0, 4, &w, 1, MPI_INT, 0, 4, MPI_COMM_SELF, &st);
    CHECK(w == 7 && st.MPI_SOURCE == 0, "self on MPI_COMM_SELF: %d", w);
    /* Same tag and source, other communicator: WORLD's message must not match SELF's receive. */
    int x = 0;
    MPI_Isend(&v, 1, MPI_INT, rank, 8, MPI_COMM_WORLD, &req);
    MPI_Iprobe(0, 8, MPI_COMM_SELF, &x, MPI_STATUS_IGNORE);
    CHECK(!x || rank != 0, "a message of MPI_COMM_WORLD matched on MPI_COMM_SELF");
    MPI_Recv(&w, 1, MPI_INT, rank, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int buf[4] = {1, 2, 3, 4};
    MPI_Sendrecv_replace(buf, 4, MPI_INT, (rank + 1) % size, 9, (rank + size - 1) % size, 9,
                         MPI_COMM_WORLD, &st);
    CHECK(buf[3] == 4 && st.MPI_SOURCE == (rank + size - 1) % size, "sendrecv_replace");
}

/* Matched probes take messages out of matching: two messages taken in order and received in the
 * other order; cancelled receives say so. */
static void matched_probes_and_cancel(void)
{
    MPI_Status st;
    MPI_Message m1, m2;
    int flag = 0, a = 0, b = 0;
    if (size >= 2 && rank == 1) {
        /* Rank 0 takes both before receiving either: blocking sends could deadlock. */
        int v1 = 1, v2 = 2;
        MPI_Request two[2];
        MPI_Isend(&v1, 1, MPI_INT, 0, 60, MPI_COMM_WORLD, &two[0]);
        MPI_Isend(&v2, 1, MPI_INT, 0, 60, MPI_COMM_WORLD, &two[1]);
        MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
    } else if (size >= 2 && rank == 0) {
        MPI_Mprobe(1, 60, MPI_COMM_WORLD, &m1, &st);
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 60, "mprobe status");
        while (!flag)
            MPI_Improbe(MPI_ANY_SOURCE, 60, MPI_COMM_WORLD, &flag, &m2, MPI_STATUS_IGNORE);
        MPI_Mrecv(&b, 1, MPI_INT, &m2, MPI_STATUS_IGNORE);
        MPI_Mrecv(&a, 1, MPI_INT, &m1, &st);
        CHECK(a == 1 && b == 2 && m1 == MPI_MESSAGE_NULL && m2 == MPI_MESSAGE_NULL,
              "matched probes: a=%d b=%d", a, b);
        MPI_Improbe(1, 60, MPI_COMM_WORLD, &flag, &m1, MPI_STATUS_IGNORE);
        CHECK(!flag, "a message taken by mprobe is still matchable");
    }
    MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m1, &st);
    CHECK(m1 == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL, "mprobe proc null");
    MPI_Mrecv(&a, 1, MPI_INT, &m1, &st);
    CHECK(m1 == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL, "mrecv no proc");

    MPI_Request req;
    MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag && req == MPI_REQUEST_NULL, "cancelled receive: flag %d", flag);
    /* A send nobody received yet is cancelled: the receive gets the next message. */
    int v = 5, w = 6;
    MPI_Isend(&v, 1, MPI_INT, rank, 61, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag, "an unmatched send was not cancelled");
    MPI_Sendrecv(&w, 1, MPI_INT, rank, 61, &a, 1, MPI_INT, rank, 61, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    CHECK(a == 6, "received %d, not the message after the cancelled one", a);
    /* A send already received is not. */
    MPI_Isend(&v, 1, MPI_INT, rank, 62, MPI_COMM_WORLD, &req);
    MPI_Recv(&a, 1, MPI_INT, rank, 62, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(!flag && a == 5, "a received send was cancelled");
}

/* Under MPI_ERRORS_RETURN a Sendrecv with a bad destination returns MPI_ERR_RANK at once (its
 * receive, already posted, is taken back) and the rank goes on. */
static void sendrecv_error(void)
{
    int v = 0, w = 0, cls = MPI_SUCCESS;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int err = MPI_Sendrecv(&v, 1, MPI_INT, size + 5, 1, &w, 1, MPI_INT, MPI_ANY_SOURCE, 1,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Error_class(err, &cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK(cls == MPI_ERR_RANK, "sendrecv to a bad rank returned class %d", cls);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t sizes[] = {0, 1, 4095, 4096, 4097, 65536, 1 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (size <= 16 || sizes[i] <= 65536)
            ring(sizes[i]);
    any_source();
    order_and_tags();
    order_fastbox();
    recv_at_once();
    probes();
    synchronous();
    completions();
    null_and_self();
    matched_probes_and_cancel();
    sendrecv_error();
    MPI_Finalize();
    if (errors)
        fprintf(stderr, "rank %d: %d errors\n", rank, errors);
    return errors ? 1 : 0;
}
