/* Many non-blocking collectives outstanding at once: 64 of mixed kinds (MPI_Ibarrier, MPI_Ibcast,
 * MPI_Ireduce, MPI_Iallreduce, MPI_Iallgather, MPI_Ialltoall, MPI_Iscatter, MPI_Igather, MPI_Iscan)
 * with varying roots and counts, on MPI_COMM_WORLD and on a duplicate of it, started in the same
 * order on every rank. Between two starts each rank sends a message to the next rank and posts a
 * receive for one from the previous rank on the same communicator, with an ordinary tag (some
 * receives take any source or any tag: a collective's own traffic must never match them).
 * Everything is completed in three ways: MPI_Wait from the last request to the first, MPI_Waitany,
 * and MPI_Testall polling; then every result is checked, and every message must have arrived
 * intact and in the order sent.
 * Usage: coll_nbc_many */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, errors;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "coll_nbc_many: rank %d, line %d: ", rank, __LINE__);                  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* No value() is negative: a cell still holding SENTINEL was never written. */
#define SENTINEL (-0x5a5a5a5b)

static int value(int salt, int from, int to, int i)
{
    unsigned v = (unsigned)salt * 1000003u + (unsigned)from * 7919u + (unsigned)(to + 1) * 104729u +
                 (unsigned)i * 31u;
    return (int)(v & 0x3fffffff);
}

/* Reduction inputs, small enough that no sum overflows. */
static int red(int salt, int from, int i)
{
    return (salt * 7 + from * 13 + i * 3) % 2001 - 1000;
}

static int *ints(size_t n, int fill)
{
    int *p = malloc((n ? n : 1) * sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = fill;
    return p;
}

enum kind {
    IBARRIER,
    IBCAST,
    IREDUCE,
    IALLREDUCE,
    IALLGATHER,
    IALLTOALL,
    ISCATTER,
    IGATHER,
    ISCAN,
    NKINDS
};
static const char *const kind_name[NKINDS] = {"ibarrier",   "ibcast",     "ireduce",
                                              "iallreduce", "iallgather", "ialltoall",
                                              "iscatter",   "igather",    "iscan"};

struct coll {
    enum kind kind;
    MPI_Comm comm;
    const char *comm_name;
    int me, np, root, n, salt, in_place;
    int *sbuf, *rbuf;
    size_t rlen;
};

static void coll_start(struct coll *c, MPI_Request *req)
{
    int me = c->me, np = c->np, n = c->n, salt = c->salt, root = c->root;
    size_t slen = 0;

    c->rlen = 0;
    switch (c->kind) {
    case IBARRIER:
        break;
    case IBCAST:
        c->rlen = (size_t)n;
        break;
    case IREDUCE:
    case IALLREDUCE:
    case ISCAN:
        slen = c->rlen = (size_t)n;
        break;
    case IALLGATHER:
    case IGATHER:
        slen = (size_t)n;
        c->rlen = (size_t)np * n;
        break;
    case IALLTOALL:
        slen = c->rlen = (size_t)np * n;
        break;
    case ISCATTER:
        slen = (size_t)np * n;
        c->rlen = (size_t)n;
        break;
    default:
        abort();
    }
    c->sbuf = ints(slen, SENTINEL);
    c->rbuf = ints(c->rlen, SENTINEL);
    int *s = c->sbuf, *r = c->rbuf;
    switch (c->kind) {
    case IBARRIER:
        MPI_Ibarrier(c->comm, req);
        break;
    case IBCAST:
        for (int i = 0; me == root && i < n; i++)
            r[i] = value(salt, root, -1, i);
        MPI_Ibcast(r, n, MPI_INT, root, c->comm, req);
        break;
    case IREDUCE:
        for (int i = 0; i < n; i++)
            s[i] = red(salt, me, i);
        MPI_Ireduce(s, r, n, MPI_INT, MPI_SUM, root, c->comm, req);
        break;
    case IALLREDUCE:
        for (int i = 0; i < n; i++)
            (c->in_place ? r : s)[i] = red(salt, me, i);
        MPI_Iallreduce(c->in_place ? MPI_IN_PLACE : s, r, n, MPI_INT, MPI_SUM, c->comm, req);
        break;
    case ISCAN:
        for (int i = 0; i < n; i++)
            s[i] = red(salt, me, i);
        MPI_Iscan(s, r, n, MPI_INT, MPI_SUM, c->comm, req);
        break;
    case IALLGATHER:
    case IGATHER:
        for (int i = 0; i < n; i++)
            s[i] = value(salt, me, -1, i);
        if (c->kind == IALLGATHER)
            MPI_Iallgather(s, n, MPI_INT, r, n, MPI_INT, c->comm, req);
        else
            MPI_Igather(s, n, MPI_INT, r, n, MPI_INT, root, c->comm, req);
        break;
    case IALLTOALL:
    case ISCATTER:
        for (int j = 0; j < np && (c->kind == IALLTOALL || me == root); j++)
            for (int i = 0; i < n; i++)
                s[(size_t)j * n + i] = value(salt, me, j, i);
        if (c->kind == IALLTOALL)
            MPI_Ialltoall(s, n, MPI_INT, r, n, MPI_INT, c->comm, req);
        else
            MPI_Iscatter(s, n, MPI_INT, r, n, MPI_INT, root, c->comm, req);
        break;
    default:
        abort();
    }
}

/* The reference result; receive buffers that are not significant (non-roots of Ireduce and
 * Igather) are not checked. */
static void coll_check(struct coll *c)
{
    int me = c->me, np = c->np, n = c->n, salt = c->salt, root = c->root;
    int *want = ints(c->rlen, SENTINEL);
    if ((c->kind == IREDUCE || c->kind == IGATHER) && me != root) {
        free(want);
        free(c->sbuf);
        free(c->rbuf);
        return;
    }
    for (int i = 0; i < n; i++)
        switch (c->kind) {
        case IBCAST:
            want[i] = value(salt, root, -1, i);
            break;
        case IREDUCE:
        case IALLREDUCE:
        case ISCAN:
            want[i] = 0;
            for (int j = 0; j < (c->kind == ISCAN ? me + 1 : np); j++)
                want[i] += red(salt, j, i);
            break;
        case IALLGATHER:
        case IGATHER:
            for (int j = 0; j < np; j++)
                want[(size_t)j * n + i] = value(salt, j, -1, i);
            break;
        case IALLTOALL:
            for (int j = 0; j < np; j++)
                want[(size_t)j * n + i] = value(salt, j, me, i);
            break;
        case ISCATTER:
            want[i] = value(salt, root, me, i);
            break;
        default:
            break;
        }
    for (size_t i = 0; i < c->rlen; i++)
        if (c->rbuf[i] != want[i]) {
            size_t bad = 0;
            for (size_t j = i; j < c->rlen; j++)
                bad += c->rbuf[j] != want[j];
            CHECK(0, "%s of %d (root %d) on %s: cell %zu of %zu is %d, expected %d (%zu wrong)",
                  kind_name[c->kind], n, root, c->comm_name, i, c->rlen, c->rbuf[i], want[i], bad);
            break;
        }
    free(want);
    free(c->sbuf);
    free(c->rbuf);
}

/* One message from the previous rank, the seq-th on its communicator. */
struct msg {
    MPI_Comm comm;
    const char *comm_name;
    int seq, len, from, to;
    int *sbuf, *rbuf;
};

static int msg_len(int seq)
{
    static const int lens[] = {1, 10, 2000, 0, 37, 40000, 1024, 5};
    return lens[seq % 8];
}

static void msg_start(struct msg *m, int salt, MPI_Request *recv_req, MPI_Request *send_req)
{
    int me, np;
    MPI_Comm_rank(m->comm, &me);
    MPI_Comm_size(m->comm, &np);
    m->from = (me + np - 1) % np;
    m->to = (me + 1) % np;
    m->len = msg_len(m->seq);
    m->sbuf = ints((size_t)m->len, 0);
    m->rbuf = ints((size_t)m->len + 1, SENTINEL);
    for (int i = 0; i < m->len; i++)
        m->sbuf[i] = value(salt, me, m->seq, i);
    /* Room for one more: a message that overtook a shorter one shows by its length. */
    MPI_Irecv(m->rbuf, m->len + 1, MPI_INT, m->seq % 3 == 1 ? MPI_ANY_SOURCE : m->from,
              m->seq % 3 == 2 ? MPI_ANY_TAG : 0, m->comm, recv_req);
    MPI_Isend(m->sbuf, m->len, MPI_INT, m->to, 0, m->comm, send_req);
}

static void msg_check(struct msg *m, int salt, const MPI_Status *st)
{
    int count = -1;
    MPI_Get_count(st, MPI_INT, &count);
    CHECK(st->MPI_SOURCE == m->from && st->MPI_TAG == 0 && count == m->len,
          "message %d on %s: source %d tag %d count %d, expected %d 0 %d", m->seq, m->comm_name,
          st->MPI_SOURCE, st->MPI_TAG, count, m->from, m->len);
    for (int i = 0; i < m->len + 1; i++) {
        int want = i < m->len ? value(salt, m->from, m->seq, i) : SENTINEL;
        if (m->rbuf[i] != want) {
            CHECK(0, "message %d on %s: [%d] is %d, expected %d", m->seq, m->comm_name, i,
                  m->rbuf[i], want);
            break;
        }
    }
    free(m->sbuf);
    free(m->rbuf);
}

enum { NCOLL = 64, NREQ = 3 * NCOLL };

/* Starts NCOLL collectives, each followed by a message exchange on its communicator, then
 * completes all requests per `phase` and checks everything. Requests are, per k: the collective,
 * the receive, the send. */
static void phase(int ph, MPI_Comm world, MPI_Comm dup)
{
    static const int counts[] = {1, 3, 50, 700, 3000};
    static struct coll colls[NCOLL];
    static struct msg msgs[NCOLL];
    static MPI_Request reqs[NREQ];
    static MPI_Status sts[NREQ];
    static int seen[NREQ];
    int seq[2] = {0, 0}, salt = 1000 * ph;

    for (int k = 0; k < NCOLL; k++) {
        struct coll *c = &colls[k];
        int on_dup = (k * 7) % 3 == 0;
        c->comm = on_dup ? dup : world;
        c->comm_name = on_dup ? "a duplicate of MPI_COMM_WORLD" : "MPI_COMM_WORLD";
        MPI_Comm_rank(c->comm, &c->me);
        MPI_Comm_size(c->comm, &c->np);
        c->kind = (enum kind)((k * 5 + ph) % NKINDS);
        c->root = (k * 3 + ph) % c->np;
        c->n = counts[(k + ph) % 5];
        /* The kinds whose buffers grow with the ranks: at most 32 KiB. */
        if ((c->kind == IALLGATHER || c->kind == IALLTOALL || c->kind == ISCATTER ||
             c->kind == IGATHER) &&
            c->n * c->np > 8192)
            c->n = 8192 / c->np;
        c->in_place = k % 4 == 1;
        c->salt = salt + k;
        coll_start(c, &reqs[3 * k]);

        struct msg *m = &msgs[k];
        m->comm = c->comm;
        m->comm_name = c->comm_name;
        m->seq = seq[on_dup]++;
        msg_start(m, salt + 500 + on_dup, &reqs[3 * k + 1], &reqs[3 * k + 2]);
    }

    memset(seen, 0, sizeof seen);
    switch (ph) {
    case 0:
        for (int i = NREQ - 1; i >= 0; i--)
            MPI_Wait(&reqs[i], &sts[i]);
        break;
    case 1:
        for (int k = 0; k < NREQ; k++) {
            int index = -1;
            MPI_Status st;
            MPI_Waitany(NREQ, reqs, &index, &st);
            CHECK(index >= 0 && index < NREQ && !seen[index], "waitany returned index %d", index);
            if (index < 0 || index >= NREQ)
                break;
            seen[index] = 1;
            sts[index] = st;
        }
        break;
    case 2:
        for (int flag = 0; !flag;)
            MPI_Testall(NREQ, reqs, &flag, sts);
        break;
    }
    for (int i = 0; i < NREQ; i++)
        CHECK(reqs[i] == MPI_REQUEST_NULL, "phase %d left request %d active", ph, i);

    for (int k = 0; k < NCOLL; k++) {
        coll_check(&colls[k]);
        int on_dup = msgs[k].comm == dup;
        msg_check(&msgs[k], salt + 500 + on_dup, &sts[3 * k + 1]);
    }
}

int main(int argc, char **argv)
{
    MPI_Comm dup;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int ph = 0; ph < 3; ph++)
        phase(ph, MPI_COMM_WORLD, dup);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    if (errors)
        fprintf(stderr, "coll_nbc_many: rank %d: %d errors\n", rank, errors);
    return errors ? 1 : 0;
}
