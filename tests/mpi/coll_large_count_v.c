/* The large-count forms (MPI-4.0) of the v and w collectives: MPI_Gatherv_c, MPI_Scatterv_c,
 * MPI_Allgatherv_c, MPI_Alltoallv_c, MPI_Alltoallw_c (a datatype per peer), MPI_Reduce_scatter_c
 * and MPI_Neighbor_allgatherv_c, _alltoallv_c, _alltoallw_c (on a periodic Cartesian ring), each
 * blocking, non-blocking and persistent. The even ranks call the _c forms, with MPI_Count counts
 * and MPI_Aint displacements, and the odd ones the int forms, which must match them. The counts
 * differ from block to block (some are zero), the blocks lie backwards in the buffers with a hole
 * before each, and every element received, and every hole, is checked. Then the _c forms of the
 * first six on an intercommunicator (MPI_COMM_WORLD split in two), and the error classes under
 * MPI_ERRORS_RETURN: a negative count (MPI_ERR_COUNT), a NULL array (MPI_ERR_ARG), a count whose
 * bytes and a displacement whose byte offset overflow. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int rank, size, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "coll_large_count_v: rank %d, line %d: %s\n", rank, __LINE__, #cond);  \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

enum { MAX_PEERS = 64, SLOTS = 512 }; /* blocks of at most 3 elements and a hole: 4 x 64 */
enum mode { BLOCKING, NONBLOCKING, PERSISTENT };
static const char *const mode_names[] = {"blocking", "non-blocking", "persistent"};
static const long HOLE = -7;

/* The arguments of a form: parenthesised, so that a macro can pass them on. */
#define ARGS(...) __VA_ARGS__

/* Collective NAME (INAME: its non-blocking form) in mode m, the _c form with arguments CARGS on
 * a rank that calls them (`large`), else the int form with IARGS: the call's return value; req
 * gets the request of the non-blocking and persistent forms. */
#define FORMS(NAME, INAME, IARGS, CARGS)                                                           \
    (m == BLOCKING ? (large ? MPI_##NAME##_c(ARGS CARGS) : MPI_##NAME(ARGS IARGS))                 \
     : m == NONBLOCKING                                                                            \
         ? (large ? MPI_##INAME##_c(ARGS CARGS, &req) : MPI_##INAME(ARGS IARGS, &req))             \
         : (large ? MPI_##NAME##_init_c(ARGS CARGS, MPI_INFO_NULL, &req)                           \
                  : MPI_##NAME##_init(ARGS IARGS, MPI_INFO_NULL, &req)))

/* Completes the request of a non-blocking call, or starts and completes a persistent one (then
 * frees it). */
static void complete(enum mode m, MPI_Request *req)
{
    if (m == BLOCKING)
        return;
    if (m == PERSISTENT)
        CHECK(MPI_Start(req) == MPI_SUCCESS);
    CHECK(MPI_Wait(req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    if (m == PERSISTENT)
        CHECK(MPI_Request_free(req) == MPI_SUCCESS);
}

static int error_class(int code)
{
    int class;
    MPI_Error_class(code, &class);
    return class;
}

/* The counts and displacements of n blocks, as the int forms take them and as the _c forms do.
 * The blocks lie backwards (block n - 1 first), each after a hole of one element. */
typedef struct layout {
    int counts[MAX_PEERS], displs[MAX_PEERS];
    MPI_Count ccounts[MAX_PEERS];
    MPI_Aint cdispls[MAX_PEERS];
    int span; /* elements from the start of the first hole to the end of the last block */
} layout_t;

static void lay_out(layout_t *l, int n, const int *counts)
{
    int at = 0;
    for (int j = n - 1; j >= 0; j--) {
        at++; /* the hole */
        l->counts[j] = counts[j];
        l->ccounts[j] = counts[j];
        l->displs[j] = at;
        l->cdispls[j] = at;
        at += counts[j];
    }
    l->span = at;
}

/* The same displacements in bytes, for blocks of elements of `unit` bytes at most (the w forms):
 * as ints, and as MPI_Aints. */
static void in_bytes(const layout_t *l, int n, int unit, int *bytes, MPI_Aint *cbytes)
{
    for (int j = 0; j < n; j++) {
        bytes[j] = l->displs[j] * unit;
        cbytes[j] = (MPI_Aint)l->displs[j] * unit;
    }
}

/* Reports the first element in which got differs from want. */
static void expect(const char *what, enum mode m, const long *got, const long *want, int n)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "coll_large_count_v: rank %d, %s (%s): element %d is %ld, not %ld\n",
                    rank, what, mode_names[m], i, got[i], want[i]);
            errors++;
            return;
        }
}

static void expect_bytes(const char *what, enum mode m, const unsigned char *got,
                         const unsigned char *want, int n)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "coll_large_count_v: rank %d, %s (%s): byte %d is %d, not %d\n", rank,
                    what, mode_names[m], i, got[i], want[i]);
            errors++;
            return;
        }
}

static void fill(long *buf, int n, long value)
{
    for (int i = 0; i < n; i++)
        buf[i] = value;
}

/* Element e of the block that member `from` sends (to `to`, where blocks differ per receiver). */
static long value(int from, int to, int e, int salt)
{
    return 100000L * salt + 1000L * from + 10L * to + e;
}

/* ---- datatypes per peer (the w forms) ---- */

static MPI_Datatype pair_type(int a, int b)
{
    static const MPI_Datatype types[] = {MPI_LONG, MPI_INT, MPI_SHORT};
    return types[(a + b) % 3];
}

/* Stores (or, `load`, reads) element e of a block of `type` at p as a long. */
static void store(MPI_Datatype type, unsigned char *p, int e, long v)
{
    if (type == MPI_LONG)
        memcpy(p + e * sizeof(long), &v, sizeof(long));
    else if (type == MPI_INT) {
        int x = (int)v;
        memcpy(p + e * sizeof x, &x, sizeof x);
    } else {
        short x = (short)v;
        memcpy(p + e * sizeof x, &x, sizeof x);
    }
}

/* ---- the collectives on an intracommunicator ---- */

static void test_gatherv(MPI_Comm comm, enum mode m, int large, int salt)
{
    int root = (salt + 1) % size, counts[MAX_PEERS];
    for (int j = 0; j < size; j++)
        counts[j] = (j + salt) % 3;
    layout_t l;
    lay_out(&l, size, counts);
    long send[3], recv[SLOTS], want[SLOTS];
    for (int e = 0; e < counts[rank]; e++)
        send[e] = value(rank, 0, e, salt);
    fill(recv, l.span, HOLE);
    fill(want, l.span, HOLE);
    for (int j = 0; j < size; j++)
        for (int e = 0; e < counts[j]; e++)
            want[l.displs[j] + e] = value(j, 0, e, salt);
    MPI_Request req = MPI_REQUEST_NULL;
    int err = FORMS(Gatherv, Igatherv,
                    (send, counts[rank], MPI_LONG, recv, l.counts, l.displs, MPI_LONG, root, comm),
                    (send, (MPI_Count)counts[rank], MPI_LONG, recv, l.ccounts, l.cdispls, MPI_LONG,
                     root, comm));
    CHECK(err == MPI_SUCCESS);
    complete(m, &req);
    if (rank == root)
        expect("gatherv", m, recv, want, l.span);
}

static void test_scatterv(MPI_Comm comm, enum mode m, int large, int salt)
{
    int root = (salt + 2) % size, counts[MAX_PEERS];
    for (int j = 0; j < size; j++)
        counts[j] = (j + salt + 1) % 3;
    layout_t l;
    lay_out(&l, size, counts);
    long send[SLOTS], recv[4], want[4];
    fill(send, l.span, HOLE);
    for (int j = 0; j < size; j++)
        for (int e = 0; e < counts[j]; e++)
            send[l.displs[j] + e] = value(root, j, e, salt);
    fill(recv, 4, HOLE);
    fill(want, 4, HOLE);
    for (int e = 0; e < counts[rank]; e++)
        want[e] = value(root, rank, e, salt);
    MPI_Request req = MPI_REQUEST_NULL;
    int err = FORMS(Scatterv, Iscatterv,
                    (send, l.counts, l.displs, MPI_LONG, recv, counts[rank], MPI_LONG, root, comm),
                    (send, l.ccounts, l.cdispls, MPI_LONG, recv, (MPI_Count)counts[rank], MPI_LONG,
                     root, comm));
    CHECK(err == MPI_SUCCESS);
    complete(m, &req);
    expect("scatterv", m, recv, want, 4);
}

static void test_allgatherv(MPI_Comm comm, enum mode m, int large, int salt)
{
    int counts[MAX_PEERS];
    for (int j = 0; j < size; j++)
        counts[j] = (j + salt + 2) % 3;
    layout_t l;
    lay_out(&l, size, counts);
    long send[3], recv[SLOTS], want[SLOTS];
    for (int e = 0; e < counts[rank]; e++)
        send[e] = value(rank, 1, e, salt);
    fill(recv, l.span, HOLE);
    fill(want, l.span, HOLE);
    for (int j = 0; j < size; j++)
        for (int e = 0; e < counts[j]; e++)
            want[l.displs[j] + e] = value(j, 1, e, salt);
    MPI_Request req = MPI_REQUEST_NULL;
    int err = FORMS(
        Allgatherv, Iallgatherv,
        (send, counts[rank], MPI_LONG, recv, l.counts, l.displs, MPI_LONG, comm),
        (send, (MPI_Count)counts[rank], MPI_LONG, recv, l.ccounts, l.cdispls, MPI_LONG, comm));
    CHECK(err == MPI_SUCCESS);
    complete(m, &req);
    expect("allgatherv", m, recv, want, l.span);
}

/* Elements that member a sends member b in alltoallv and alltoallw. */
static int pair_count(int a, int b, int salt)
{
    return (a + 2 * b + salt) % 4;
}

static void test_alltoallv(MPI_Comm comm, enum mode m, int large, int salt)
{
    int scounts[MAX_PEERS], rcounts[MAX_PEERS];
    for (int j = 0; j < size; j++) {
        scounts[j] = pair_count(rank, j, salt);
        rcounts[j] = pair_count(j, rank, salt);
    }
    layout_t s, r;
    lay_out(&s, size, scounts);
    lay_out(&r, size, rcounts);
    long send[SLOTS], recv[SLOTS], want[SLOTS];
    fill(send, s.span, HOLE);
    fill(recv, r.span, HOLE);
    fill(want, r.span, HOLE);
    for (int j = 0; j < size; j++) {
        for (int e = 0; e < scounts[j]; e++)
            send[s.displs[j] + e] = value(rank, j, e, salt);
        for (int e = 0; e < rcounts[j]; e++)
            want[r.displs[j] + e] = value(j, rank, e, salt);
    }
    MPI_Request req = MPI_REQUEST_NULL;
    int err =
        FORMS(Alltoallv, Ialltoallv,
              (send, s.counts, s.displs, MPI_LONG, recv, r.counts, r.displs, MPI_LONG, comm),
              (send, s.ccounts, s.cdispls, MPI_LONG, recv, r.ccounts, r.cdispls, MPI_LONG, comm));
    CHECK(err == MPI_SUCCESS);
    complete(m, &req);
    expect("alltoallv", m, recv, want, r.span);
}

static void test_alltoallw(MPI_Comm comm, enum mode m, int large, int salt)
{
    int scounts[MAX_PEERS], rcounts[MAX_PEERS], sbytes[MAX_PEERS], rbytes[MAX_PEERS];
    MPI_Aint csbytes[MAX_PEERS], crbytes[MAX_PEERS];
    MPI_Datatype stypes[MAX_PEERS], rtypes[MAX_PEERS];
    for (int j = 0; j < size; j++) {
        scounts[j] = pair_count(rank, j, salt + 1);
        rcounts[j] = pair_count(j, rank, salt + 1);
        stypes[j] = rtypes[j] = pair_type(rank, j);
    }
    layout_t s, r;
    lay_out(&s, size, scounts);
    lay_out(&r, size, rcounts);
    in_bytes(&s, size, sizeof(long), sbytes, csbytes);
    in_bytes(&r, size, sizeof(long), rbytes, crbytes);
    static unsigned char send[SLOTS * sizeof(long)], recv[SLOTS * sizeof(long)],
        want[SLOTS * sizeof(long)];
    size_t span = (size_t)r.span * sizeof(long);
    memset(send, 0xa5, sizeof send);
    memset(recv, 0xee, span);
    memset(want, 0xee, span);
    for (int j = 0; j < size; j++) {
        for (int e = 0; e < scounts[j]; e++)
            store(stypes[j], send + sbytes[j], e, value(rank, j, e, salt));
        for (int e = 0; e < rcounts[j]; e++)
            store(rtypes[j], want + rbytes[j], e, value(j, rank, e, salt));
    }
    MPI_Request req = MPI_REQUEST_NULL;
    int err = FORMS(Alltoallw, Ialltoallw,
                    (send, s.counts, sbytes, stypes, recv, r.counts, rbytes, rtypes, comm),
                    (send, s.ccounts, csbytes, stypes, recv, r.ccounts, crbytes, rtypes, comm));
    CHECK(err == MPI_SUCCESS);
    complete(m, &req);
    expect_bytes("alltoallw", m, recv, want, (int)span);
}

static void test_reduce_scatter(MPI_Comm comm, enum mode m, int large, int salt)
{
    int counts[MAX_PEERS], total = 0, first = 0;
    MPI_Count ccounts[MAX_PEERS];
    for (int j = 0; j < size; j++) {
        counts[j] = (2 * j + salt) % 3;
        ccounts[j] = counts[j];
        if (j < rank)
            first += counts[j];
        total += counts[j];
    }
    long send[SLOTS], recv[4], want[4];
    for (int i = 0; i < total; i++)
        send[i] = rank + i + salt;
    fill(recv, 4, HOLE);
    fill(want, 4, HOLE);
    for (int e = 0; e < counts[rank]; e++)
        want[e] = (long)size * (size - 1) / 2 + (long)size * (first + e + salt);
    MPI_Request req = MPI_REQUEST_NULL;
    int err = FORMS(Reduce_scatter, Ireduce_scatter, (send, recv, counts, MPI_LONG, MPI_SUM, comm),
                    (send, recv, ccounts, MPI_LONG, MPI_SUM, comm));
    CHECK(err == MPI_SUCCESS);
    complete(m, &req);
    expect("reduce_scatter", m, recv, want, 4);
}

/* ---- the neighbourhood collectives on a periodic ring: neighbour 0 is the left one (-1),
 * neighbour 1 the right one (+1); what a rank sends to its right arrives from its left ---- */

static void test_neighbor_allgatherv(MPI_Comm ring, enum mode m, int large, int salt)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int mine = (rank + salt) % 3, counts[2] = {(left + salt) % 3, (right + salt) % 3};
    layout_t l;
    lay_out(&l, 2, counts);
    long send[3], recv[8], want[8];
    for (int e = 0; e < mine; e++)
        send[e] = value(rank, 0, e, salt);
    fill(recv, l.span, HOLE);
    fill(want, l.span, HOLE);
    for (int e = 0; e < counts[0]; e++)
        want[l.displs[0] + e] = value(left, 0, e, salt);
    for (int e = 0; e < counts[1]; e++)
        want[l.displs[1] + e] = value(right, 0, e, salt);
    MPI_Request req = MPI_REQUEST_NULL;
    int err = FORMS(Neighbor_allgatherv, Ineighbor_allgatherv,
                    (send, mine, MPI_LONG, recv, l.counts, l.displs, MPI_LONG, ring),
                    (send, (MPI_Count)mine, MPI_LONG, recv, l.ccounts, l.cdispls, MPI_LONG, ring));
    CHECK(err == MPI_SUCCESS);
    complete(m, &req);
    expect("neighbor_allgatherv", m, recv, want, l.span);
}

/* Elements that member a sends to its neighbour d (0: left, 1: right). */
static int ring_count(int a, int d, int salt)
{
    return (a + 2 * d + salt) % 4;
}

static void test_neighbor_alltoallv(MPI_Comm ring, enum mode m, int large, int salt)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int scounts[2] = {ring_count(rank, 0, salt), ring_count(rank, 1, salt)};
    int rcounts[2] = {ring_count(left, 1, salt), ring_count(right, 0, salt)};
    layout_t s, r;
    lay_out(&s, 2, scounts);
    lay_out(&r, 2, rcounts);
    long send[10], recv[10], want[10];
    fill(send, s.span, HOLE);
    fill(recv, r.span, HOLE);
    fill(want, r.span, HOLE);
    for (int d = 0; d < 2; d++)
        for (int e = 0; e < scounts[d]; e++)
            send[s.displs[d] + e] = value(rank, d, e, salt);
    for (int e = 0; e < rcounts[0]; e++)
        want[r.displs[0] + e] = value(left, 1, e, salt);
    for (int e = 0; e < rcounts[1]; e++)
        want[r.displs[1] + e] = value(right, 0, e, salt);
    MPI_Request req = MPI_REQUEST_NULL;
    int err =
        FORMS(Neighbor_alltoallv, Ineighbor_alltoallv,
              (send, s.counts, s.displs, MPI_LONG, recv, r.counts, r.displs, MPI_LONG, ring),
              (send, s.ccounts, s.cdispls, MPI_LONG, recv, r.ccounts, r.cdispls, MPI_LONG, ring));
    CHECK(err == MPI_SUCCESS);
    complete(m, &req);
    expect("neighbor_alltoallv", m, recv, want, r.span);
}

static void test_neighbor_alltoallw(MPI_Comm ring, enum mode m, int large, int salt)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int scounts[2] = {ring_count(rank, 0, salt + 1), ring_count(rank, 1, salt + 1)};
    int rcounts[2] = {ring_count(left, 1, salt + 1), ring_count(right, 0, salt + 1)};
    /* The block sent towards d is of type d; the one received from d was sent towards 1 - d. */
    MPI_Datatype stypes[2] = {MPI_INT, MPI_SHORT}, rtypes[2] = {MPI_SHORT, MPI_INT};
    layout_t s, r;
    lay_out(&s, 2, scounts);
    lay_out(&r, 2, rcounts);
    int unused[2];
    MPI_Aint sbytes[2], rbytes[2];
    in_bytes(&s, 2, sizeof(int), unused, sbytes);
    in_bytes(&r, 2, sizeof(int), unused, rbytes);
    unsigned char send[10 * sizeof(int)], recv[10 * sizeof(int)], want[10 * sizeof(int)];
    int span = r.span * (int)sizeof(int);
    memset(send, 0xa5, sizeof send);
    memset(recv, 0xee, (size_t)span);
    memset(want, 0xee, (size_t)span);
    for (int d = 0; d < 2; d++)
        for (int e = 0; e < scounts[d]; e++)
            store(stypes[d], send + sbytes[d], e, value(rank, d, e, salt));
    for (int e = 0; e < rcounts[0]; e++)
        store(rtypes[0], want + rbytes[0], e, value(left, 1, e, salt));
    for (int e = 0; e < rcounts[1]; e++)
        store(rtypes[1], want + rbytes[1], e, value(right, 0, e, salt));
    MPI_Request req = MPI_REQUEST_NULL;
    int err = FORMS(Neighbor_alltoallw, Ineighbor_alltoallw,
                    (send, s.counts, sbytes, stypes, recv, r.counts, rbytes, rtypes, ring),
                    (send, s.ccounts, sbytes, stypes, recv, r.ccounts, rbytes, rtypes, ring));
    CHECK(err == MPI_SUCCESS);
    complete(m, &req);
    expect_bytes("neighbor_alltoallw", m, recv, want, span);
}

/* ---- on an intercommunicator: group 0, the lower half of MPI_COMM_WORLD, and group 1 ---- */

static void test_inter(MPI_Comm inter, int group, int large)
{
    int me, lsize, rsize;
    MPI_Comm_rank(inter, &me);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    const enum mode m = BLOCKING;
    const int other = 1 - group;
    layout_t l;
    int counts[MAX_PEERS];
    long send[SLOTS], recv[SLOTS], want[SLOTS];

    /* gatherv to member 0 of group 0: member q of group 1 sends q % 3 elements */
    for (int q = 0; q < rsize; q++)
        counts[q] = q % 3;
    lay_out(&l, rsize, counts);
    int root = group == 0 ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int mine = group == 1 ? me % 3 : 0;
    for (int e = 0; e < mine; e++)
        send[e] = value(me, 9, e, 1);
    fill(recv, SLOTS, HOLE);
    fill(want, SLOTS, HOLE);
    for (int q = 0; q < rsize; q++)
        for (int e = 0; e < counts[q]; e++)
            want[l.displs[q] + e] = value(q, 9, e, 1);
    CHECK((large ? MPI_Gatherv_c(send, mine, MPI_LONG, recv, l.ccounts, l.cdispls, MPI_LONG, root,
                                 inter)
                 : MPI_Gatherv(send, mine, MPI_LONG, recv, l.counts, l.displs, MPI_LONG, root,
                               inter)) == MPI_SUCCESS);
    if (root == MPI_ROOT)
        expect("intercomm gatherv", m, recv, want, l.span);

    /* scatterv from member 0 of group 1: member q of group 0 gets (q + 1) % 3 elements */
    for (int q = 0; q < rsize; q++)
        counts[q] = (q + 1) % 3;
    lay_out(&l, rsize, counts);
    root = group == 1 ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    mine = group == 0 ? (me + 1) % 3 : 0;
    fill(send, SLOTS, HOLE);
    for (int q = 0; q < rsize; q++)
        for (int e = 0; e < counts[q]; e++)
            send[l.displs[q] + e] = value(q, 8, e, 1);
    fill(recv, 4, HOLE);
    fill(want, 4, HOLE);
    for (int e = 0; e < mine; e++)
        want[e] = value(me, 8, e, 1);
    CHECK((large ? MPI_Scatterv_c(send, l.ccounts, l.cdispls, MPI_LONG, recv, mine, MPI_LONG, root,
                                  inter)
                 : MPI_Scatterv(send, l.counts, l.displs, MPI_LONG, recv, mine, MPI_LONG, root,
                                inter)) == MPI_SUCCESS);
    expect("intercomm scatterv", m, recv, want, 4);

    /* allgatherv: member q of group g sends (q + g) % 3 elements to every remote member */
    for (int q = 0; q < rsize; q++)
        counts[q] = (q + other) % 3;
    lay_out(&l, rsize, counts);
    mine = (me + group) % 3;
    for (int e = 0; e < mine; e++)
        send[e] = value(100 * group + me, 7, e, 1);
    fill(recv, SLOTS, HOLE);
    fill(want, SLOTS, HOLE);
    for (int q = 0; q < rsize; q++)
        for (int e = 0; e < counts[q]; e++)
            want[l.displs[q] + e] = value(100 * other + q, 7, e, 1);
    CHECK((large
               ? MPI_Allgatherv_c(send, mine, MPI_LONG, recv, l.ccounts, l.cdispls, MPI_LONG, inter)
               : MPI_Allgatherv(send, mine, MPI_LONG, recv, l.counts, l.displs, MPI_LONG, inter)) ==
          MPI_SUCCESS);
    expect("intercomm allgatherv", m, recv, want, l.span);

    /* alltoallv: member i of group g sends pair_count(i, j, g) elements to remote member j */
    int scounts[MAX_PEERS], rcounts[MAX_PEERS];
    for (int j = 0; j < rsize; j++) {
        scounts[j] = pair_count(me, j, group);
        rcounts[j] = pair_count(j, me, other);
    }
    layout_t s, r;
    lay_out(&s, rsize, scounts);
    lay_out(&r, rsize, rcounts);
    fill(send, SLOTS, HOLE);
    fill(recv, SLOTS, HOLE);
    fill(want, SLOTS, HOLE);
    for (int j = 0; j < rsize; j++) {
        for (int e = 0; e < scounts[j]; e++)
            send[s.displs[j] + e] = value(100 * group + me, j, e, 2);
        for (int e = 0; e < rcounts[j]; e++)
            want[r.displs[j] + e] = value(100 * other + j, me, e, 2);
    }
    CHECK((large ? MPI_Alltoallv_c(send, s.ccounts, s.cdispls, MPI_LONG, recv, r.ccounts, r.cdispls,
                                   MPI_LONG, inter)
                 : MPI_Alltoallv(send, s.counts, s.displs, MPI_LONG, recv, r.counts, r.displs,
                                 MPI_LONG, inter)) == MPI_SUCCESS);
    expect("intercomm alltoallv", m, recv, want, r.span);

    /* alltoallw: the same counts, a datatype per pair of members, displacements in bytes */
    int sbytes[MAX_PEERS], rbytes[MAX_PEERS];
    MPI_Aint csbytes[MAX_PEERS], crbytes[MAX_PEERS];
    MPI_Datatype stypes[MAX_PEERS], rtypes[MAX_PEERS];
    in_bytes(&s, rsize, sizeof(long), sbytes, csbytes);
    in_bytes(&r, rsize, sizeof(long), rbytes, crbytes);
    static unsigned char wsend[SLOTS * sizeof(long)], wrecv[SLOTS * sizeof(long)],
        wwant[SLOTS * sizeof(long)];
    memset(wsend, 0xa5, sizeof wsend);
    memset(wrecv, 0xee, sizeof wrecv);
    memset(wwant, 0xee, sizeof wwant);
    for (int j = 0; j < rsize; j++) {
        stypes[j] = group == 0 ? pair_type(me, j) : pair_type(j, me);
        rtypes[j] = stypes[j];
        for (int e = 0; e < scounts[j]; e++)
            store(stypes[j], wsend + sbytes[j], e, value(100 * group + me, j, e, 3));
        for (int e = 0; e < rcounts[j]; e++)
            store(rtypes[j], wwant + rbytes[j], e, value(100 * other + j, me, e, 3));
    }
    CHECK((large ? MPI_Alltoallw_c(wsend, s.ccounts, csbytes, stypes, wrecv, r.ccounts, crbytes,
                                   rtypes, inter)
                 : MPI_Alltoallw(wsend, s.counts, sbytes, stypes, wrecv, r.counts, rbytes, rtypes,
                                 inter)) == MPI_SUCCESS);
    expect_bytes("intercomm alltoallw", m, wrecv, wwant, r.span * (int)sizeof(long));

    /* reduce_scatter: each group reduces 6 elements of the other group's members and scatters
     * them among its own: member 0 gets none (unless alone), the others share them */
    enum { ELEMENTS = 6 };
    int first = 0, total = 0;
    MPI_Count ccounts[MAX_PEERS];
    for (int q = 0; q < lsize; q++) {
        counts[q] = lsize == 1 ? ELEMENTS
                    : q == 0   ? 0
                               : ELEMENTS / (lsize - 1) + (q - 1 < ELEMENTS % (lsize - 1));
        ccounts[q] = counts[q];
        if (q < me)
            first += counts[q];
        total += counts[q];
    }
    CHECK(total == ELEMENTS);
    for (int i = 0; i < ELEMENTS; i++)
        send[i] = 10L * me + i;
    fill(recv, 8, HOLE);
    fill(want, 8, HOLE);
    for (int e = 0; e < counts[me]; e++)
        want[e] = 10L * rsize * (rsize - 1) / 2 + (long)rsize * (first + e);
    CHECK((large
               ? MPI_Reduce_scatter_c(send, recv, ccounts, MPI_LONG, MPI_SUM, inter)
               : MPI_Reduce_scatter(send, recv, counts, MPI_LONG, MPI_SUM, inter)) == MPI_SUCCESS);
    expect("intercomm reduce_scatter", m, recv, want, 8);
}

/* ---- error classes: every member makes the same mistake, found before any message ---- */

static void test_errors(MPI_Comm comm, MPI_Comm ring)
{
    MPI_Count ccounts[MAX_PEERS];
    MPI_Aint cdispls[MAX_PEERS];
    int counts[MAX_PEERS], displs[MAX_PEERS];
    static long buf[MAX_PEERS], out[MAX_PEERS];
    for (int j = 0; j < size; j++) {
        ccounts[j] = counts[j] = 1;
        cdispls[j] = displs[j] = j;
    }
    MPI_Request req;
    ccounts[size - 1] = -1;
    CHECK(error_class(MPI_Alltoallv_c(buf, ccounts, cdispls, MPI_LONG, out, ccounts, cdispls,
                                      MPI_LONG, comm)) == MPI_ERR_COUNT);
    CHECK(error_class(MPI_Alltoallv_init_c(buf, ccounts, cdispls, MPI_LONG, out, ccounts, cdispls,
                                           MPI_LONG, comm, MPI_INFO_NULL, &req)) == MPI_ERR_COUNT);
    CHECK(error_class(MPI_Allgatherv_c(buf, 1, MPI_LONG, out, ccounts, cdispls, MPI_LONG, comm)) ==
          MPI_ERR_COUNT);
    CHECK(error_class(MPI_Reduce_scatter_c(buf, out, ccounts, MPI_LONG, MPI_SUM, comm)) ==
          MPI_ERR_COUNT);
    ccounts[size - 1] = 1;
    counts[0] = -2;
    CHECK(error_class(MPI_Alltoallv(buf, counts, displs, MPI_LONG, out, counts, displs, MPI_LONG,
                                    comm)) == MPI_ERR_COUNT);
    counts[0] = 1;

    CHECK(error_class(MPI_Allgatherv_c(buf, 1, MPI_LONG, out, NULL, cdispls, MPI_LONG, comm)) ==
          MPI_ERR_ARG);
    CHECK(error_class(MPI_Alltoallv_c(buf, ccounts, cdispls, MPI_LONG, out, ccounts, NULL, MPI_LONG,
                                      comm)) == MPI_ERR_ARG);
    CHECK(error_class(MPI_Reduce_scatter_c(buf, out, NULL, MPI_LONG, MPI_SUM, comm)) ==
          MPI_ERR_ARG);
    CHECK(error_class(MPI_Neighbor_alltoallv_c(buf, ccounts, cdispls, MPI_LONG, out, NULL, cdispls,
                                               MPI_LONG, ring)) == MPI_ERR_ARG);

    /* Bytes beyond memory: MPI_ERR_COUNT; a byte offset beyond MPI_Aint: MPI_ERR_ARG. */
    ccounts[0] = INT64_MAX / 4;
    CHECK(error_class(MPI_Alltoallv_c(buf, ccounts, cdispls, MPI_LONG, out, ccounts, cdispls,
                                      MPI_LONG, comm)) == MPI_ERR_COUNT);
    ccounts[0] = 1;
    cdispls[0] = INT64_MAX / 4;
    CHECK(error_class(MPI_Alltoallv_c(buf, ccounts, cdispls, MPI_LONG, out, ccounts, cdispls,
                                      MPI_LONG, comm)) == MPI_ERR_ARG);
    CHECK(error_class(MPI_Neighbor_alltoallv_c(buf, ccounts, cdispls, MPI_LONG, out, ccounts,
                                               cdispls, MPI_LONG, ring)) == MPI_ERR_ARG);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAX_PEERS) {
        if (rank == 0)
            fprintf(stderr, "coll_large_count_v: at most %d ranks\n", MAX_PEERS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm comm = MPI_COMM_WORLD, ring;
    int large = rank % 2 == 0; /* this rank calls the _c forms */
    int periodic = 1;
    MPI_Cart_create(comm, 1, &size, &periodic, 0, &ring);

    for (int salt = 0; salt < 2; salt++)
        for (enum mode m = BLOCKING; m <= PERSISTENT; m++) {
            test_gatherv(comm, m, large, salt);
            test_scatterv(comm, m, large, salt);
            test_allgatherv(comm, m, large, salt);
            test_alltoallv(comm, m, large, salt);
            test_alltoallw(comm, m, large, salt);
            test_reduce_scatter(comm, m, large, salt);
            test_neighbor_allgatherv(ring, m, large, salt);
            test_neighbor_alltoallv(ring, m, large, salt);
            test_neighbor_alltoallw(ring, m, large, salt);
        }

    if (size >= 2) {
        int half = (size + 1) / 2, group = rank < half ? 0 : 1;
        MPI_Comm local, inter;
        MPI_Comm_split(comm, group, rank, &local);
        MPI_Intercomm_create(local, 0, comm, group == 0 ? half : 0, 17, &inter);
        test_inter(inter, group, large);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&local);
    }

    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
    test_errors(comm, ring);
    MPI_Comm_free(&ring);

    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0 && all == 0)
        printf("coll_large_count_v: ok\n");
    MPI_Finalize();
    return all ? 1 : 0;
}
