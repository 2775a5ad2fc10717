/* Dynamic broadcasts (MPIX_Ibcast_dynamic) and send aggregation (MPIX_Deferred_send_*), checked
 * by their receivers, which use ordinary receives:
 * - sweep: every destination count from 1 to min(64, size - 1) (a selection above 17 ranks) from
 *   roots 0, the last and the middle rank, destination lists in random order with MPI_PROC_NULL
 *   entries among them, payloads of 0 B, 1 B, around the eager limit (1 KiB, 4 KiB, 4 KiB + 1),
 *   64 KiB, 1 MiB and 4 MiB, received in turn by MPI_Recv from the root, from MPI_ANY_SOURCE,
 *   with MPI_ANY_TAG, by MPI_Irecv, after MPI_Probe, MPI_Mprobe, an MPI_Iprobe or MPI_Improbe
 *   loop; every status, count and byte is checked, and the bytes after the message must stay
 *   untouched. The root overwrites and frees its buffer as soon as its request completes: a
 *   request completed while the buffer is still read shows as bad data (or under ASan);
 * - datatypes: a strided vector at the root against contiguous ints at the receivers, contiguous
 *   ints against an indexed type with holes, and structs of different layouts on the two sides,
 *   with MPI_Get_count and MPI_Get_elements; the root frees its datatype before the broadcast
 *   completes;
 * - a communicator whose ranks are not those of MPI_COMM_WORLD: destinations, statuses and
 *   matching are in its ranks;
 * - adverse: destinations that receive late and in the worst order (see adverse());
 * - order: plain sends and dynamic broadcasts of one root with one tag match in the order the
 *   root started them, whatever the depth of the destination in each tree;
 * - concurrent: every rank the root of several broadcasts at once, to overlapping lists, the
 *   receives posted before or after, in reverse tag order, completed by one MPI_Waitall;
 * - deferred: MPIX_Deferred_send_* with 0, 1 and several destinations, duplicates, MPI_PROC_NULL,
 *   the data put in the buffer only just before ready, destinations added after ready (which
 *   receive late: MPIX_Deferred_send_free must wait for them before the root scribbles), a
 *   handle freed before ready.
 * Every list and size is drawn from one seeded generator that all ranks run in step, so each
 * rank knows what it must receive; a receiver uses that only to decide whether to post a receive
 * and to check what it got. After each case and at the end, MPI_Iprobe finds nothing on any rank
 * once a barrier has followed the completion of everything: no rank got a message it was not
 * sent, nor one twice.
 * Usage: bcast_dynamic [sweep]   (sweep: the sweep alone, for the NUMA staging of
 *                                  bcast_dynamic_numa.sh) */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, errors;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "bcast_dynamic: rank %d, line %d: ", rank, __LINE__);                  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* Tags of each part, apart so that no message of one part can match a receive of another. */
enum {
    TAG_SWEEP = 1000,
    TAG_TYPES = 8000,
    TAG_COMM = 9000,
    TAG_ADVERSE = 10000,
    TAG_TOKEN = 11000,
    TAG_ORDER = 12000,
    TAG_GO = 12500,
    TAG_CONCURRENT = 13000,
    TAG_DEFERRED = 20000,
    TAG_NEVER = 30000, /* no message has it */
};

/* The bytes after a received message, which must stay as they were. */
enum { SLACK = 16, FILL = 0xa5 };
/* What a root writes over its buffer once its request has completed. */
enum { SCRIBBLE = 0x5a };
/* Never a value: ints and doubles not written by any message. */
#define SENTINEL (-0x2b2b2b2b)

/* The generator every rank runs in step (xorshift64*): a draw made by some ranks only would
 * put the others out of step, so draws are only made where all ranks pass. */
static uint64_t prng = 0x9e3779b97f4a7c15u;
static int draw(int n)
{
    prng ^= prng >> 12;
    prng ^= prng << 25;
    prng ^= prng >> 27;
    return (int)((prng * 0x2545f4914f6cdd1du) >> 33) % n;
}

/* Byte i of the payload numbered salt: not periodic, so a shifted or stale block shows. */
static unsigned char byte_of(unsigned salt, size_t i)
{
    uint32_t x = salt * 0x9e3779b1u + (uint32_t)i + (uint32_t)(i >> 32);
    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    x ^= x >> 12;
    return (unsigned char)x;
}

/* Element i of an int payload: never SENTINEL (always non-negative). */
static int int_of(unsigned salt, size_t i)
{
    return (int)((salt * 100003u + (uint32_t)i * 7919u) & 0x3fffffff);
}

static void fill(unsigned char *buf, size_t n, unsigned salt)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = byte_of(salt, i);
}

/* The first byte of buf that is not byte i of payload salt, or n. */
static size_t first_bad(const unsigned char *buf, size_t n, unsigned salt)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != byte_of(salt, i))
            return i;
    return n;
}

/* Draws k distinct ranks of a communicator of np ranks other than root, in random order, into
 * dests, and puts nnull MPI_PROC_NULL entries at random places; returns the list's length. */
static int draw_dests(int np, int root, int k, int nnull, int *dests)
{
    int *pool = malloc((size_t)np * sizeof *pool), n = 0;
    for (int r = 0; r < np; r++)
        if (r != root)
            pool[n++] = r;
    for (int i = 0; i < k; i++) {
        int j = i + draw(n - i), t = pool[i];
        pool[i] = pool[j];
        pool[j] = t;
        dests[i] = pool[i];
    }
    free(pool);
    for (int j = 0; j < nnull; j++) {
        int at = draw(k + j + 1);
        memmove(&dests[at + 1], &dests[at], (size_t)(k + j - at) * sizeof *dests);
        dests[at] = MPI_PROC_NULL;
    }
    return k + nnull;
}

static int listed(const int *dests, int n, int r)
{
    for (int i = 0; i < n; i++)
        if (dests[i] == r)
            return 1;
    return 0;
}

/* After a barrier that follows the completion of everything sent, no rank has a message left
 * with tag on comm: none was sent to a rank outside a list, or twice. With MPI_ANY_TAG, a second
 * barrier keeps the next case's messages out of the probe. */
static void nothing_left(MPI_Comm comm, int tag, const char *what)
{
    int flag = 0;
    MPI_Status st;
    MPI_Barrier(comm);
    MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &flag, &st);
    CHECK(!flag, "%s: a message from %d with tag %d is left (sent to a rank not listed, or twice)",
          what, flag ? st.MPI_SOURCE : -1, flag ? st.MPI_TAG : -1);
    if (tag == MPI_ANY_TAG)
        MPI_Barrier(comm);
}

/* Ways to receive. Those with MPI_ANY_TAG, or MPI_ANY_SOURCE with it, only where no other
 * message can be on its way to the rank. */
enum recv_mode {
    RECV_ROOT,
    RECV_ANY_SOURCE,
    RECV_IRECV_ANY_TAG,
    RECV_PROBE,
    RECV_IPROBE,
    RECV_ANY_ANY,
    RECV_MPROBE_ANY_ANY,
    RECV_IMPROBE,
    RECV_MODES,
};
static const char *const mode_name[] = {
    "recv from root",    "recv from any source", "irecv with any tag", "probe, recv",
    "iprobe loop, recv", "recv any/any",         "mprobe any/any",     "improbe loop, imrecv",
};

static void check_status(const MPI_Status *st, int root, int tag, size_t n, const char *what,
                         const char *call)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(st->MPI_SOURCE == root && st->MPI_TAG == tag && count == (int)n,
          "%s: %s: source %d tag %d count %d, expected %d, %d, %zu", what, call, st->MPI_SOURCE,
          st->MPI_TAG, count, root, tag, n);
}

/* Receives the payload salt of n bytes from root with tag on comm by mode, and checks it. */
static void recv_bytes(MPI_Comm comm, int root, int tag, size_t n, unsigned salt,
                       enum recv_mode mode, const char *what)
{
    unsigned char *in = malloc(n + SLACK);
    int cap = (int)(n + SLACK), flag = 0;
    MPI_Status st, pst;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Request req;
    char how[160];

    snprintf(how, sizeof how, "%s (%s)", what, mode_name[mode]);
    memset(in, FILL, n + SLACK);
    switch (mode) {
    case RECV_ROOT:
        MPI_Recv(in, cap, MPI_BYTE, root, tag, comm, &st);
        break;
    case RECV_ANY_SOURCE:
        MPI_Recv(in, cap, MPI_BYTE, MPI_ANY_SOURCE, tag, comm, &st);
        break;
    case RECV_IRECV_ANY_TAG:
        MPI_Irecv(in, cap, MPI_BYTE, root, MPI_ANY_TAG, comm, &req);
        MPI_Wait(&req, &st);
        break;
    case RECV_PROBE:
        MPI_Probe(MPI_ANY_SOURCE, tag, comm, &pst);
        check_status(&pst, root, tag, n, how, "probe");
        MPI_Recv(in, cap, MPI_BYTE, pst.MPI_SOURCE, pst.MPI_TAG, comm, &st);
        break;
    case RECV_IPROBE:
        while (!flag)
            MPI_Iprobe(root, tag, comm, &flag, &pst);
        check_status(&pst, root, tag, n, how, "iprobe");
        MPI_Recv(in, cap, MPI_BYTE, root, tag, comm, &st);
        break;
    case RECV_ANY_ANY:
        MPI_Recv(in, cap, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
        break;
    case RECV_MPROBE_ANY_ANY:
        MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &msg, &pst);
        check_status(&pst, root, tag, n, how, "mprobe");
        MPI_Mrecv(in, cap, MPI_BYTE, &msg, &st);
        break;
    case RECV_IMPROBE:
        while (!flag)
            MPI_Improbe(MPI_ANY_SOURCE, tag, comm, &flag, &msg, &pst);
        check_status(&pst, root, tag, n, how, "improbe");
        MPI_Imrecv(in, cap, MPI_BYTE, &msg, &req);
        MPI_Wait(&req, &st);
        break;
    default:
        abort();
    }
    check_status(&st, root, tag, n, how, "receive");
    size_t bad = first_bad(in, n, salt);
    CHECK(bad == n, "%s: byte %zu of %zu is %u, expected %u", how, bad, n, in[bad],
          byte_of(salt, bad));
    for (size_t i = n; i < n + SLACK; i++)
        if (in[i] != FILL) {
            CHECK(0, "%s: byte %zu after the %zu of the message was written", how, i - n, n);
            break;
        }
    free(in);
}

/* The root's side of one broadcast of payload salt: starts it, completes it in one of three
 * ways, checks its buffer unchanged, then scribbles over it and frees it. */
static void root_bcast(MPI_Comm comm, const int *dests, int len, size_t n, unsigned salt, int tag,
                       int how, const char *what)
{
    /* No buffer at all for 0 bytes: MPI allows NULL when nothing is read. */
    unsigned char *buf = n ? malloc(n) : NULL;
    MPI_Request req = MPI_REQUEST_NULL, two[2];
    int flag = 0;

    fill(buf, n, salt);
    int err = MPIX_Ibcast_dynamic(buf, (int)n, MPI_BYTE, dests, len, tag, comm, &req);
    CHECK(err == MPI_SUCCESS, "%s: MPIX_Ibcast_dynamic returned %d", what, err);
    switch (how % 3) {
    case 0:
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        break;
    case 1:
        while (!flag)
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        break;
    default:
        two[0] = MPI_REQUEST_NULL;
        two[1] = req;
        MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
        req = two[1];
    }
    CHECK(req == MPI_REQUEST_NULL, "%s: the completed request is not MPI_REQUEST_NULL", what);
    size_t bad = first_bad(buf, n, salt);
    CHECK(bad == n, "%s: the root's buffer changed at byte %zu", what, bad);
    if (n)
        memset(buf, SCRIBBLE, n);
    free(buf);
}

/* One broadcast on MPI_COMM_WORLD and its receives; then nothing is left anywhere. */
static void one_bcast(int root, const int *dests, int len, size_t n, unsigned salt, int tag,
                      enum recv_mode mode, const char *what)
{
    if (rank == root)
        root_bcast(MPI_COMM_WORLD, dests, len, n, salt, tag, (int)salt, what);
    else if (listed(dests, len, rank))
        recv_bytes(MPI_COMM_WORLD, root, tag, n, salt, mode, what);
    nothing_left(MPI_COMM_WORLD, tag, what);
}

/* Whether a payload of n bytes to k destinations is in the sweep: everything up to 17 ranks;
 * above, 1 MiB and 4 MiB to a few counts only, to keep the run short on a small machine. */
static int sweep_keeps(size_t n, int k)
{
    if (n <= 65536 || size <= 17)
        return 1;
    if (n <= (1 << 20))
        return k == 1 || k == 8 || k == 31 || k == size - 1;
    return k == 1 || (k == size - 1 && size <= 33);
}

static void sweep(void)
{
    static const size_t payloads[] = {0, 1, 1024, 4096, 4097, 65536, 1 << 20, 4 << 20};
    static const int selected[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63, 64};
    int roots[3] = {0, size - 1, size / 2}, nroots = size == 1 ? 1 : size == 2 ? 2 : 3;
    int counts[80], ncounts = 0, kmax = size - 1 < 64 ? size - 1 : 64;
    int *dests = malloc(((size_t)size + 8) * sizeof *dests);
    unsigned iter = 0;
    char what[128];

    if (size <= 17) {
        for (int k = 1; k <= kmax; k++)
            counts[ncounts++] = k;
    } else {
        for (size_t i = 0; i < sizeof selected / sizeof selected[0]; i++)
            if (selected[i] < kmax)
                counts[ncounts++] = selected[i];
        counts[ncounts++] = kmax;
    }

    /* No destination at all, or only MPI_PROC_NULL: nothing is sent, the request completes. */
    for (int r = 0; r < nroots; r++) {
        int nulls[2] = {MPI_PROC_NULL, MPI_PROC_NULL};
        snprintf(what, sizeof what, "empty list from %d", roots[r]);
        one_bcast(roots[r], NULL, 0, 8, 1, TAG_SWEEP, RECV_ROOT, what);
        snprintf(what, sizeof what, "list of MPI_PROC_NULL from %d", roots[r]);
        one_bcast(roots[r], nulls, 2, 8, 2, TAG_SWEEP, RECV_ROOT, what);
    }

    for (int r = 0; r < nroots; r++)
        for (int c = 0; c < ncounts; c++)
            for (size_t p = 0; p < sizeof payloads / sizeof payloads[0]; p++) {
                int k = counts[c];
                size_t n = payloads[p];
                if (!sweep_keeps(n, k))
                    continue;
                iter++;
                int nnull = iter % 5 == 0 ? 1 + (int)(iter / 5) % 3 : 0;
                int len = draw_dests(size, roots[r], k, nnull, dests);
                int tag = TAG_SWEEP + 1 + (int)iter;
                snprintf(what, sizeof what, "sweep %u: root %d, %d dests (+%d null), %zu bytes",
                         iter, roots[r], k, nnull, n);
                one_bcast(roots[r], dests, len, n, iter, tag, (enum recv_mode)(iter % RECV_MODES),
                          what);
            }
    free(dests);
}

/* Derived datatypes: the type signatures match, the layouts differ. Each receiver's buffer has
 * room for more than is sent, and MPI_Get_count must say what was. */
struct root_rec {
    double junk1;
    int a;
    int junk2;
    double d;
};
struct recv_rec {
    int a;
    double d;
};

static MPI_Datatype rec_type(MPI_Aint off_a, MPI_Aint off_d, MPI_Aint extent)
{
    int lens[2] = {1, 1};
    MPI_Aint disps[2] = {off_a, off_d};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, t, resized;
    MPI_Type_create_struct(2, lens, disps, types, &t);
    MPI_Type_create_resized(t, 0, extent, &resized);
    MPI_Type_free(&t);
    MPI_Type_commit(&resized);
    return resized;
}

enum type_case { VECTOR_TO_INTS, INTS_TO_INDEXED, STRUCT_TO_STRUCT, TYPE_CASES };

static void types_root(enum type_case tc, int m, const int *dests, int len, int tag, unsigned salt)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    void *buf;
    int count;
    MPI_Request req;

    if (tc == VECTOR_TO_INTS) {
        /* m ints, every third of the buffer; the others are SENTINEL, which must not be sent. */
        int *v = malloc((size_t)m * 3 * sizeof *v);
        for (int i = 0; i < 3 * m; i++)
            v[i] = i % 3 ? SENTINEL : int_of(salt, (size_t)i / 3);
        MPI_Type_vector(m, 1, 3, MPI_INT, &t);
        MPI_Type_commit(&t);
        buf = v;
        count = 1;
    } else if (tc == INTS_TO_INDEXED) {
        int *v = malloc((size_t)m * 3 * sizeof *v);
        for (int i = 0; i < 3 * m; i++)
            v[i] = int_of(salt, (size_t)i);
        buf = v;
        count = 3 * m;
    } else {
        struct root_rec *v = malloc((size_t)m * sizeof *v);
        for (int i = 0; i < m; i++) {
            v[i].junk1 = SENTINEL;
            v[i].a = int_of(salt, (size_t)i);
            v[i].junk2 = SENTINEL;
            v[i].d = int_of(salt + 1, (size_t)i) * 0.5;
        }
        t = rec_type(offsetof(struct root_rec, a), offsetof(struct root_rec, d), sizeof *v);
        buf = v;
        count = m;
    }
    int err = MPIX_Ibcast_dynamic(buf, count, t == MPI_DATATYPE_NULL ? MPI_INT : t, dests, len, tag,
                                  MPI_COMM_WORLD, &req);
    CHECK(err == MPI_SUCCESS, "types case %d: MPIX_Ibcast_dynamic returned %d", tc, err);
    /* Freed while the broadcast may still use it: MPI says it must go on as if not freed. */
    if (t != MPI_DATATYPE_NULL)
        MPI_Type_free(&t);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    free(buf);
}

static void types_recv(enum type_case tc, int m, int root, int tag, unsigned salt)
{
    MPI_Status st;
    int count = -1, elements = -1, ints = -1;

    if (tc == VECTOR_TO_INTS) {
        int *v = malloc(((size_t)m + 4) * sizeof *v);
        for (int i = 0; i < m + 4; i++)
            v[i] = SENTINEL;
        MPI_Recv(v, m + 4, MPI_INT, root, tag, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == m && st.MPI_SOURCE == root && st.MPI_TAG == tag,
              "vector to ints (%d): count %d source %d tag %d", m, count, st.MPI_SOURCE,
              st.MPI_TAG);
        for (int i = 0; i < m + 4; i++)
            if (v[i] != (i < m ? int_of(salt, (size_t)i) : SENTINEL)) {
                CHECK(0, "vector to ints (%d): int %d is %d", m, i, v[i]);
                break;
            }
        free(v);
    } else if (tc == INTS_TO_INDEXED) {
        /* Three ints out of each five: at 0, 3 and 4; 1 and 2 are holes. */
        int lens[2] = {1, 2}, disps[2] = {0, 3};
        MPI_Datatype t;
        MPI_Type_indexed(2, lens, disps, MPI_INT, &t);
        MPI_Type_commit(&t);
        int *v = malloc(((size_t)m + 1) * 5 * sizeof *v);
        for (int i = 0; i < (m + 1) * 5; i++)
            v[i] = SENTINEL;
        MPI_Recv(v, m + 1, t, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, t, &count);
        MPI_Get_elements(&st, t, &elements);
        MPI_Get_count(&st, MPI_INT, &ints);
        CHECK(count == m && elements == 3 * m && ints == 3 * m && st.MPI_SOURCE == root,
              "ints to indexed (%d): count %d elements %d ints %d source %d", m, count, elements,
              ints, st.MPI_SOURCE);
        for (int e = 0; e <= m; e++) {
            const int *b = &v[5 * e];
            int ok = e < m ? b[0] == int_of(salt, 3 * (size_t)e) &&
                                 b[3] == int_of(salt, 3 * (size_t)e + 1) &&
                                 b[4] == int_of(salt, 3 * (size_t)e + 2)
                           : b[0] == SENTINEL && b[3] == SENTINEL && b[4] == SENTINEL;
            if (!ok || b[1] != SENTINEL || b[2] != SENTINEL) {
                CHECK(0, "ints to indexed (%d): element %d is %d %d %d %d %d", m, e, b[0], b[1],
                      b[2], b[3], b[4]);
                break;
            }
        }
        MPI_Type_free(&t);
        free(v);
    } else {
        MPI_Datatype t = rec_type(offsetof(struct recv_rec, a), offsetof(struct recv_rec, d),
                                  sizeof(struct recv_rec));
        struct recv_rec *v = malloc(((size_t)m + 1) * sizeof *v);
        for (int i = 0; i <= m; i++) {
            v[i].a = SENTINEL;
            v[i].d = SENTINEL;
        }
        MPI_Recv(v, m + 1, t, root, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, t, &count);
        MPI_Get_elements(&st, t, &elements);
        CHECK(count == m && elements == 2 * m && st.MPI_TAG == tag,
              "struct to struct (%d): count %d elements %d tag %d", m, count, elements, st.MPI_TAG);
        for (int i = 0; i <= m; i++) {
            int ok = i < m ? v[i].a == int_of(salt, (size_t)i) &&
                                 v[i].d == int_of(salt + 1, (size_t)i) * 0.5
                           : v[i].a == SENTINEL && v[i].d == SENTINEL;
            if (!ok) {
                CHECK(0, "struct to struct (%d): record %d is %d %g", m, i, v[i].a, v[i].d);
                break;
            }
        }
        MPI_Type_free(&t);
        free(v);
    }
}

static void datatypes(void)
{
    if (size < 2)
        return;
    int *dests = malloc((size_t)size * sizeof *dests);
    int ks[3] = {1, size - 1 < 3 ? size - 1 : 3, size - 1 < 64 ? size - 1 : 64};
    int roots[2] = {0, size - 1};
    /* 1000 ints: eager or about; 300000: 1.2 MB, pipelined (to few destinations above 17
     * ranks). */
    int ms[2] = {1000, 300000};
    unsigned iter = 0;

    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 3; c++)
            for (int s = 0; s < 2; s++)
                for (int tc = 0; tc < TYPE_CASES; tc++) {
                    if (s == 1 && size > 17 && ks[c] > 3)
                        continue;
                    iter++;
                    int len = draw_dests(size, roots[r], ks[c], 0, dests);
                    int tag = TAG_TYPES + (int)iter;
                    unsigned salt = 7000 + iter;
                    if (rank == roots[r])
                        types_root((enum type_case)tc, ms[s], dests, len, tag, salt);
                    else if (listed(dests, len, rank))
                        types_recv((enum type_case)tc, ms[s], roots[r], tag, salt);
                    nothing_left(MPI_COMM_WORLD, tag, "datatypes");
                }
    free(dests);
}

/* On a communicator with the ranks of MPI_COMM_WORLD reversed, and split in two halves when
 * there are enough ranks: dests are ranks of that communicator, the status names the root's rank
 * there, and a message with the same tag on MPI_COMM_WORLD does not match. */
static void other_comm(void)
{
    MPI_Comm comm;
    int me, np;
    char what[96];

    MPI_Comm_split(MPI_COMM_WORLD, size >= 6 ? rank % 2 : 0, size - rank, &comm);
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    int *dests = malloc(((size_t)np + 4) * sizeof *dests);
    MPI_Group wg, cg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_group(comm, &cg);
    /* The two halves have different sizes: they draw apart, each half with its own
     * generator, seeded the same on its ranks. */
    uint64_t saved = prng;
    prng = 0x1234567u + (uint64_t)np;
    for (int i = 0; i < 4 && np >= 2; i++) {
        int root = i % 2 ? 0 : np - 1, k = i < 2 ? np - 1 : 1 + draw(np - 1);
        int len = draw_dests(np, root, k, i, dests);
        int tag = TAG_COMM + i;
        size_t n = i == 3 ? 100000 : 100;
        unsigned salt = 9000 + (unsigned)i;
        snprintf(what, sizeof what, "split communicator %d: root %d, %d dests", i, root, k);
        /* A decoy on MPI_COMM_WORLD from the same rank with the same tag, to the same ranks. */
        MPI_Request decoys[64];
        int ndecoys = 0, decoy = -1;
        if (me == root) {
            for (int j = 0; j < len && ndecoys < 64; j++)
                if (dests[j] != MPI_PROC_NULL) {
                    int wr;
                    MPI_Group_translate_ranks(cg, 1, &dests[j], wg, &wr);
                    MPI_Isend(&decoy, 1, MPI_INT, wr, tag, MPI_COMM_WORLD, &decoys[ndecoys++]);
                }
            root_bcast(comm, dests, len, n, salt, tag, i, what);
        } else if (listed(dests, len, me)) {
            recv_bytes(comm, root, tag, n, salt, i % 2 ? RECV_ANY_SOURCE : RECV_ROOT, what);
        }
        MPI_Barrier(comm);
        /* The decoy, from the world rank of the root. */
        if (me != root && listed(dests, len, me)) {
            int got = 0;
            MPI_Status st;
            MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
            CHECK(got == -1, "%s: the decoy on MPI_COMM_WORLD is %d", what, got);
        }
        MPI_Waitall(ndecoys, decoys, MPI_STATUSES_IGNORE);
        nothing_left(comm, MPI_ANY_TAG, what);
        nothing_left(MPI_COMM_WORLD, tag, what);
    }
    prng = saved;
    MPI_Group_free(&wg);
    MPI_Group_free(&cg);
    free(dests);
    MPI_Comm_free(&comm);
}

/* Destinations that receive late and in the worst order. A token runs from the root to the
 * last destination of the list, then from each destination to the one before it, and back to
 * the root from the first; each destination posts its receive of the broadcast only once its
 * token has come, and passes the token on only once it has the data. In a binomial tree over the
 * list (the runtime's: over [root, dests...], the parent of entry i is entry i & (i - 1)) the
 * descendants of a destination come after it in the list, so every forwarder receives after all
 * of its subtree: the broadcast completes only if the runtime forwards without waiting for the
 * forwarders' receives. The root sends the token before it waits for its request, as MPI asks of
 * a program that sends with MPI_Isend to ranks that receive after a message of its own; it waits
 * before or after the token has come back. */
static void adverse(void)
{
    if (size < 2)
        return;
    size_t sizes[4] = {1, 4097, 1 << 20, 4 << 20};
    int nsizes = size <= 8 ? 4 : 3;
    int ks[3] = {size - 1 < 2 ? size - 1 : 2, size - 1 < 7 ? size - 1 : 7,
                 size - 1 < 64 ? size - 1 : 64};
    int roots[2] = {0, size / 2};
    int *dests = malloc((size_t)size * sizeof *dests);
    unsigned iter = 0;
    char what[128];

    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 3; c++)
            for (int s = 0; s < nsizes; s++) {
                int root = roots[r], k = ks[c];
                size_t n = sizes[s];
                iter++;
                int len = draw_dests(size, root, k, 0, dests);
                int tag = TAG_ADVERSE + (int)iter, ttag = TAG_TOKEN + (int)iter, token = 0;
                snprintf(what, sizeof what, "adverse %u: root %d, %d dests, %zu bytes", iter, root,
                         k, n);
                if (rank == root) {
                    unsigned char *buf = malloc(n);
                    MPI_Request req;
                    fill(buf, n, iter);
                    MPIX_Ibcast_dynamic(buf, (int)n, MPI_BYTE, dests, len, tag, MPI_COMM_WORLD,
                                        &req);
                    token = (int)iter;
                    MPI_Send(&token, 1, MPI_INT, dests[k - 1], ttag, MPI_COMM_WORLD);
                    if (iter % 2)
                        MPI_Wait(&req, MPI_STATUS_IGNORE);
                    token = 0;
                    MPI_Recv(&token, 1, MPI_INT, dests[0], ttag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    CHECK(token == (int)iter + k, "%s: the token came back as %d", what, token);
                    if (iter % 2 == 0)
                        MPI_Wait(&req, MPI_STATUS_IGNORE);
                    memset(buf, SCRIBBLE, n);
                    free(buf);
                } else {
                    for (int p = 0; p < k; p++)
                        if (dests[p] == rank) {
                            int from = p == k - 1 ? root : dests[p + 1];
                            int to = p == 0 ? root : dests[p - 1];
                            MPI_Recv(&token, 1, MPI_INT, from, ttag, MPI_COMM_WORLD,
                                     MPI_STATUS_IGNORE);
                            CHECK(token == (int)iter + (k - 1 - p), "%s: token %d at position %d",
                                  what, token, p);
                            recv_bytes(MPI_COMM_WORLD, root, tag, n, iter,
                                       (enum recv_mode)(iter % RECV_MODES), what);
                            token++;
                            MPI_Send(&token, 1, MPI_INT, to, ttag, MPI_COMM_WORLD);
                        }
                }
                nothing_left(MPI_COMM_WORLD, MPI_ANY_TAG, what);
            }
    free(dests);
}

/* An int message of order(): its first int is its number in the sequence, the others depend on
 * the salt. */
static int *seq_msg(int nints, int seq, unsigned salt)
{
    int *v = malloc((size_t)nints * sizeof *v);
    v[0] = seq;
    for (int i = 1; i < nints; i++)
        v[i] = int_of(salt, (size_t)i);
    return v;
}

/* Receives the next message of the sequence: it must be number seq, of nints; the buffer holds
 * cap ints, the largest message of the sequence, so one out of order shows here. */
static void recv_seq(int root, int any, int tag, int seq, int nints, int cap, unsigned salt,
                     const char *what)
{
    int *v = malloc(((size_t)cap + 4) * sizeof *v), count = -1;
    MPI_Status st;
    for (int i = 0; i < cap + 4; i++)
        v[i] = SENTINEL;
    MPI_Recv(v, cap + 4, MPI_INT, any ? MPI_ANY_SOURCE : root, tag, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(v[0] == seq && count == nints && st.MPI_SOURCE == root,
          "%s: expected message %d of %d ints from %d, got message %d of %d ints from %d", what,
          seq, nints, root, v[0], count, st.MPI_SOURCE);
    if (v[0] == seq)
        for (int i = 1; i < nints + 4; i++)
            if (v[i] != (i < nints ? int_of(salt, (size_t)i) : SENTINEL)) {
                CHECK(0, "%s: message %d: int %d is %d", what, seq, i, v[i]);
                break;
            }
    free(v);
}

/* MPI's order from one root to one destination d: a plain send, a dynamic broadcast, a plain
 * send, a dynamic broadcast to another list, all with one tag, received by four receives in
 * order. d is the last of the first list (deep in its tree) and the first of the second (a
 * child of the root), then the other way round, so that the plain send after a broadcast could
 * overtake it by its shorter path. Small and large messages alternate; d receives only after
 * everything was started. The other destinations receive their one or two messages in order
 * too. Then a train of ten broadcasts with one tag to different lists, with a plain send in the
 * middle, all started before any rank receives. */
static void order(void)
{
    if (size < 2)
        return;
    int big = size <= 17 ? (1 << 20) / 4 : 65536 / 4, small = 10;
    int *l1 = malloc((size_t)size * sizeof *l1), *l2 = malloc((size_t)size * sizeof *l2);
    char what[128];

    for (int round = 0; round < 4; round++) {
        int root = round % 2 ? size - 1 : 0, tag = TAG_ORDER + round;
        int n1 = size - 1 < 7 ? size - 1 : 7, n2 = size - 1 < 12 ? size - 1 : 12;
        draw_dests(size, root, n1, 0, l1);
        int d = l1[n1 - 1];
        draw_dests(size, root, n2, 0, l2);
        /* d first in l2 (round 0, 1) or last (2, 3); l1 the other way round in rounds 2, 3. */
        int at = round < 2 ? 0 : n2 - 1;
        if (!listed(l2, n2, d))
            l2[at] = d;
        for (int i = 0; i < n2; i++)
            if (l2[i] == d) {
                l2[i] = l2[at];
                l2[at] = d;
            }
        if (round >= 2) {
            l1[n1 - 1] = l1[0];
            l1[0] = d;
        }
        int nints[4];
        for (int m = 0; m < 4; m++)
            nints[m] = (m + round) % 2 ? big : small;
        unsigned salt = 12000 + 4 * (unsigned)round;
        snprintf(what, sizeof what, "order round %d: root %d, destination %d", round, root, d);
        if (rank == root) {
            int *msg[4], go = 1;
            MPI_Request reqs[4];
            for (int m = 0; m < 4; m++)
                msg[m] = seq_msg(nints[m], m, salt + (unsigned)m);
            MPI_Isend(msg[0], nints[0], MPI_INT, d, tag, MPI_COMM_WORLD, &reqs[0]);
            MPIX_Ibcast_dynamic(msg[1], nints[1], MPI_INT, l1, n1, tag, MPI_COMM_WORLD, &reqs[1]);
            MPI_Isend(msg[2], nints[2], MPI_INT, d, tag, MPI_COMM_WORLD, &reqs[2]);
            MPIX_Ibcast_dynamic(msg[3], nints[3], MPI_INT, l2, n2, tag, MPI_COMM_WORLD, &reqs[3]);
            MPI_Send(&go, 1, MPI_INT, d, TAG_GO, MPI_COMM_WORLD);
            MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
            for (int m = 0; m < 4; m++)
                free(msg[m]);
        } else if (rank == d) {
            int go = 0;
            MPI_Recv(&go, 1, MPI_INT, root, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int m = 0; m < 4; m++)
                recv_seq(root, round % 2, tag, m, nints[m], big, salt + (unsigned)m, what);
        } else {
            if (listed(l1, n1, rank))
                recv_seq(root, round % 2, tag, 1, nints[1], big, salt + 1, what);
            if (listed(l2, n2, rank))
                recv_seq(root, round % 2, tag, 3, nints[3], big, salt + 3, what);
        }
        nothing_left(MPI_COMM_WORLD, MPI_ANY_TAG, what);
    }

    enum { TRAIN = 10, PLAIN = 5 };
    int root = size / 2, tag = TAG_ORDER + 10, lens[TRAIN], nints[TRAIN], plain_to = -1;
    int *lists = malloc((size_t)TRAIN * (size_t)size * sizeof *lists);
    unsigned salt = 12100;
    for (int m = 0; m < TRAIN; m++) {
        int kmax = size - 1 < 20 ? size - 1 : 20;
        if (m == PLAIN) {
            plain_to = (root + 1 + draw(size - 1)) % size;
            lens[m] = 1;
            lists[m * size] = plain_to;
        } else {
            lens[m] = draw_dests(size, root, 1 + draw(kmax), 0, &lists[m * size]);
        }
        nints[m] = m % 3 == 1 ? big / 4 : 25;
    }
    snprintf(what, sizeof what, "train of broadcasts from %d", root);
    if (rank == root) {
        int *msg[TRAIN];
        MPI_Request reqs[TRAIN];
        for (int m = 0; m < TRAIN; m++) {
            msg[m] = seq_msg(nints[m], m, salt + (unsigned)m);
            if (m == PLAIN)
                MPI_Isend(msg[m], nints[m], MPI_INT, plain_to, tag, MPI_COMM_WORLD, &reqs[m]);
            else
                MPIX_Ibcast_dynamic(msg[m], nints[m], MPI_INT, &lists[m * size], lens[m], tag,
                                    MPI_COMM_WORLD, &reqs[m]);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Waitall(TRAIN, reqs, MPI_STATUSES_IGNORE);
        for (int m = 0; m < TRAIN; m++)
            free(msg[m]);
    } else {
        /* Every receive posted before any completes: they match in the order posted. */
        int *in[TRAIN], seqs[TRAIN], nrecv = 0;
        MPI_Request reqs[TRAIN];
        MPI_Status sts[TRAIN];
        MPI_Barrier(MPI_COMM_WORLD);
        for (int m = 0; m < TRAIN; m++)
            if (listed(&lists[m * size], lens[m], rank)) {
                in[nrecv] = malloc((size_t)big * sizeof(int));
                in[nrecv][0] = SENTINEL;
                seqs[nrecv] = m;
                MPI_Irecv(in[nrecv], big, MPI_INT, m % 2 ? MPI_ANY_SOURCE : root, tag,
                          MPI_COMM_WORLD, &reqs[nrecv]);
                nrecv++;
            }
        MPI_Waitall(nrecv, reqs, sts);
        for (int j = 0; j < nrecv; j++) {
            int m = seqs[j], count = -1;
            MPI_Get_count(&sts[j], MPI_INT, &count);
            CHECK(in[j][0] == m && count == nints[m] && sts[j].MPI_SOURCE == root,
                  "%s: receive %d expected message %d (%d ints), got %d (%d ints) from %d", what, j,
                  m, nints[m], in[j][0], count, sts[j].MPI_SOURCE);
            if (in[j][0] == m && count == nints[m])
                for (int i = 1; i < count; i++)
                    if (in[j][i] != int_of(salt + (unsigned)m, (size_t)i)) {
                        CHECK(0, "%s: message %d: int %d is %d", what, m, i, in[j][i]);
                        break;
                    }
            free(in[j]);
        }
    }
    nothing_left(MPI_COMM_WORLD, MPI_ANY_TAG, "train");
    free(lists);
    free(l1);
    free(l2);
}

/* Every rank the root of R broadcasts at once, each with its own tag, to lists that overlap;
 * in the first round each rank starts its broadcasts then posts its receives, in the second it
 * posts its receives first; receives are posted in reverse tag order, half from MPI_ANY_SOURCE,
 * and one MPI_Waitall completes sends and receives. */
static void concurrent(void)
{
    enum { R = 3 };
    static const size_t sizes[] = {0, 1, 1000, 4097, 65536};
    int kmax = size - 1 < 12 ? size - 1 : 12, nb = size * R;

    if (size < 2)
        return;
    /* At most R sends and nb receives per rank. */
    size_t nmax = (size_t)nb + R;
    int *lists = malloc((size_t)nb * (size_t)kmax * sizeof *lists);
    int *lens = malloc((size_t)nb * sizeof *lens);
    size_t *ns = malloc((size_t)nb * sizeof *ns);
    unsigned char **bufs = malloc(nmax * sizeof *bufs);
    MPI_Request *reqs = malloc(nmax * sizeof *reqs);
    MPI_Status *sts = malloc(nmax * sizeof *sts);
    int *which = malloc(nmax * sizeof *which);
    char what[96];

    for (int round = 0; round < 2; round++) {
        /* Broadcast b = root * R + j has tag TAG_CONCURRENT + 1000 * round + b. */
        for (int b = 0; b < nb; b++) {
            lens[b] = draw_dests(size, b / R, 1 + draw(kmax), 0, &lists[b * kmax]);
            ns[b] = sizes[draw(sizeof sizes / sizeof sizes[0])];
        }
        int nreq = 0;
        unsigned salt = 13000 + 1000 * (unsigned)round;
        snprintf(what, sizeof what, "concurrent round %d", round);
        for (int pass = 0; pass < 2; pass++) {
            if ((pass == 0) == (round == 0)) {
                for (int j = 0; j < R; j++) {
                    int b = rank * R + j;
                    bufs[nreq] = malloc(ns[b] + 1);
                    fill(bufs[nreq], ns[b], salt + (unsigned)b);
                    which[nreq] = -1;
                    MPIX_Ibcast_dynamic(bufs[nreq], (int)ns[b], MPI_BYTE, &lists[b * kmax], lens[b],
                                        TAG_CONCURRENT + 1000 * round + b, MPI_COMM_WORLD,
                                        &reqs[nreq]);
                    nreq++;
                }
            } else {
                for (int b = nb - 1; b >= 0; b--)
                    if (listed(&lists[b * kmax], lens[b], rank)) {
                        bufs[nreq] = malloc(ns[b] + SLACK);
                        memset(bufs[nreq], FILL, ns[b] + SLACK);
                        which[nreq] = b;
                        MPI_Irecv(bufs[nreq], (int)ns[b] + SLACK, MPI_BYTE,
                                  b % 2 ? MPI_ANY_SOURCE : b / R, TAG_CONCURRENT + 1000 * round + b,
                                  MPI_COMM_WORLD, &reqs[nreq]);
                        nreq++;
                    }
            }
        }
        MPI_Waitall(nreq, reqs, sts);
        for (int q = 0; q < nreq; q++) {
            int b = which[q];
            if (b >= 0) {
                char one[128];
                snprintf(one, sizeof one, "%s: broadcast %d of %d", what, b % R, b / R);
                check_status(&sts[q], b / R, TAG_CONCURRENT + 1000 * round + b, ns[b], one,
                             "waitall");
                size_t bad = first_bad(bufs[q], ns[b], salt + (unsigned)b);
                CHECK(bad == ns[b], "%s: byte %zu of %zu is wrong", one, bad, ns[b]);
                for (size_t i = ns[b]; i < ns[b] + SLACK; i++)
                    if (bufs[q][i] != FILL) {
                        CHECK(0, "%s: byte %zu after the message was written", one, i - ns[b]);
                        break;
                    }
            } else {
                CHECK(reqs[q] == MPI_REQUEST_NULL, "%s: a root's request is left", what);
            }
            free(bufs[q]);
        }
        nothing_left(MPI_COMM_WORLD, MPI_ANY_TAG, what);
    }
    free(which);
    free(sts);
    free(reqs);
    free(bufs);
    free(ns);
    free(lens);
    free(lists);
}

/* Send aggregation. Each case's root is another rank; the receivers receive with ordinary
 * receives, exactly what was sent to them and only once. */
static void deferred_case(int c, int root, const int *before, int nbefore, const int *after,
                          int nafter, size_t n, int free_first)
{
    int tag = TAG_DEFERRED + c;
    unsigned salt = 20000 + (unsigned)c;
    char what[96];

    snprintf(what, sizeof what, "deferred case %d (root %d, %d + %d adds)", c, root, nbefore,
             nafter);
    if (rank == root) {
        unsigned char *buf = malloc(n + 1);
        MPIX_Deferred_send h = MPIX_DEFERRED_SEND_NULL;
        MPI_Request req = MPI_REQUEST_NULL;
        int err;
        /* The buffer holds junk until ready: what is sent must be what it holds then. */
        memset(buf, SCRIBBLE, n + 1);
        err = MPIX_Deferred_send_init(buf, (int)n, MPI_BYTE, tag, MPI_COMM_WORLD, &h);
        CHECK(err == MPI_SUCCESS && h != MPIX_DEFERRED_SEND_NULL, "%s: init returned %d", what,
              err);
        for (int i = 0; i < nbefore; i++) {
            err = MPIX_Deferred_send_add(h, before[i]);
            CHECK(err == MPI_SUCCESS, "%s: add of %d returned %d", what, before[i], err);
        }
        if (free_first) {
            err = MPIX_Deferred_send_free(&h);
            CHECK(err == MPI_SUCCESS && h == MPIX_DEFERRED_SEND_NULL, "%s: free returned %d", what,
                  err);
            free(buf);
            nothing_left(MPI_COMM_WORLD, tag, what);
            return;
        }
        fill(buf, n, salt);
        err = MPIX_Deferred_send_ready(h, &req);
        CHECK(err == MPI_SUCCESS, "%s: ready returned %d", what, err);
        if (nbefore == 0 || (nbefore == 1 && before[0] == MPI_PROC_NULL)) {
            int flag = 0;
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            CHECK(flag, "%s: ready with no destination gave a request not complete", what);
        }
        for (int i = 0; i < nafter; i++) {
            err = MPIX_Deferred_send_add(h, after[i]);
            CHECK(err == MPI_SUCCESS, "%s: late add of %d returned %d", what, after[i], err);
        }
        /* free waits for the late sends, the request for the others: then buf is ours. */
        err = MPIX_Deferred_send_free(&h);
        CHECK(err == MPI_SUCCESS && h == MPIX_DEFERRED_SEND_NULL, "%s: free returned %d", what,
              err);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        memset(buf, SCRIBBLE, n);
        free(buf);
    } else if (!free_first && (listed(before, nbefore, rank) || listed(after, nafter, rank))) {
        /* The late ones receive 20 ms late: if free did not wait for their sends, the root has
         * scribbled over its buffer by then. */
        if (!listed(before, nbefore, rank)) {
            int flag;
            double t0 = MPI_Wtime();
            while (MPI_Wtime() - t0 < 0.02)
                MPI_Iprobe(MPI_ANY_SOURCE, TAG_NEVER, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        }
        recv_bytes(MPI_COMM_WORLD, root, tag, n, salt, c % 2 ? RECV_ANY_SOURCE : RECV_ROOT, what);
    }
    nothing_left(MPI_COMM_WORLD, tag, what);
}

static void deferred(void)
{
    int *a = malloc(((size_t)size * 2 + 4) * sizeof *a),
        *b = malloc(((size_t)size + 4) * sizeof *b);
    int c = 0, root, k;

    /* 0 destinations, then only MPI_PROC_NULL: nothing is sent, the request is complete. */
    deferred_case(c++, 0, NULL, 0, NULL, 0, 100, 0);
    a[0] = MPI_PROC_NULL;
    deferred_case(c++, size - 1, a, 1, NULL, 0, 100, 0);
    if (size < 2)
        goto done;
    /* One destination: a plain send. */
    root = size / 2;
    a[0] = (root + 1) % size;
    deferred_case(c++, root, a, 1, NULL, 0, 5000, 0);
    /* Several, each added twice or more, MPI_PROC_NULL among them. */
    for (int s = 0; s < 2; s++) {
        root = s ? size - 1 : 0;
        k = size - 1 < 64 ? size - 1 : 64;
        int len = draw_dests(size, root, k, 2, a);
        for (int i = 0; i < len; i++)
            a[len + i] = a[draw(len)];
        deferred_case(c++, root, a, 2 * len, NULL, 0, s ? (1 << 20) / (size > 17 ? 8 : 1) : 1, 0);
    }
    /* Added after ready: plain sends, which free waits for; one already there is not sent
     * again. */
    root = 0;
    k = size - 1 < 6 ? size - 1 : 6;
    draw_dests(size, root, k, 0, b);
    int split = (k + 1) / 2;
    b[k] = b[0];
    b[k + 1] = MPI_PROC_NULL;
    deferred_case(c++, root, b, split, &b[split], k - split + 2, 1 << 20, 0);
    /* Nothing before ready, then two late ones. */
    root = size - 1;
    k = size - 1 < 2 ? size - 1 : 2;
    draw_dests(size, root, k, 0, b);
    deferred_case(c++, root, NULL, 0, b, k, 4097, 0);
    /* Freed before ready: nothing is sent. */
    root = size / 2;
    draw_dests(size, root, size - 1, 0, b);
    deferred_case(c++, root, b, size - 1, NULL, 0, 64, 1);
done:
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sweep();
    if (argc < 2 || strcmp(argv[1], "sweep") != 0) {
        datatypes();
        other_comm();
        adverse();
        order();
        concurrent();
        deferred();
    }
    nothing_left(MPI_COMM_WORLD, MPI_ANY_TAG, "the end");
    MPI_Finalize();
    if (errors)
        fprintf(stderr, "bcast_dynamic: rank %d: %d errors\n", rank, errors);
    return errors ? 1 : 0;
}
