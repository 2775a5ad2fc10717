/* Rooted collectives against a serial reference: MPI_Bcast, MPI_Gather, MPI_Gatherv, MPI_Scatter,
 * MPI_Scatterv and MPI_Reduce (MPI_SUM) from every root, with 1, 7 and 1024 ints (4 KiB: around the
 * eager limit) and a large count of doubles. The v-variants use irregular counts, zero counts
 * among them, and displacements in reverse rank order with gaps that must stay untouched.
 * MPI_IN_PLACE at the root wherever MPI allows it. Derived datatypes of different shapes on the
 * two sides of one collective (a strided vector against contiguous elements): only the type
 * signatures have to match. Every value depends on its sender, its index and the root, so a
 * misplaced, missing or stale block shows; the elements after each received block are checked
 * untouched, and send buffers unchanged. The small cases run again on the two halves of
 * MPI_COMM_WORLD split with reversed keys, where ranks differ from world ranks and two
 * collectives run at the same time.
 * Usage: coll_rooted [nb]: with nb, the non-blocking variants (MPI_Ibcast...), completed in turn
 * by MPI_Wait, by an MPI_Test loop, or all of a group at once by MPI_Waitall. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, errors, nb;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "coll_rooted: rank %d, line %d: ", wrank, __LINE__);                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* Never a value: what receive buffers hold before the call. */
#define SENTINEL (-1.0)
/* Never a value either: what the gaps of send buffers hold, which must not be sent. */
#define JUNK (-7.0)

enum kind {
    BCAST,
    GATHER,
    GATHERV,
    SCATTER,
    SCATTERV,
    REDUCE,
    BCAST_VEC,
    GATHER_VEC,
    SCATTER_VEC,
};
static const char *const kind_name[] = {
    "bcast",
    "gather",
    "gatherv",
    "scatter",
    "scatterv",
    "reduce",
    "bcast (vector root, vector on odd ranks)",
    "gather (vector senders)",
    "scatter (contiguous-type root, vector receivers)",
};

/* One collective call: its arguments, the buffers it owns, its request in nb mode. */
struct job {
    enum kind kind;
    int inplace, isdbl, count, root;
    MPI_Comm comm;
    const char *cname;
    int rank, size;
    void *send, *recv;
    int *counts, *displs;
    size_t span; /* elements of the v-variants' root buffer */
    MPI_Datatype type1, type2;
    MPI_Request req;
};

/* A value that no other (sender, index) pair shares within one collective: indices stay below
 * 2^17. Exact as int and as double, and so are their sums over a few hundred ranks (ints are
 * never more than 1024 per rank). */
static double val(int r, size_t i, int root)
{
    return (double)((long)(r + 1) * 131072 + (long)i + 7L * root);
}

static MPI_Datatype etype(const struct job *j)
{
    return j->isdbl ? MPI_DOUBLE : MPI_INT;
}

static void put(const struct job *j, void *buf, size_t i, double v)
{
    if (j->isdbl)
        ((double *)buf)[i] = v;
    else
        ((int *)buf)[i] = (int)v;
}

static double get(const struct job *j, const void *buf, size_t i)
{
    return j->isdbl ? ((const double *)buf)[i] : ((const int *)buf)[i];
}

static void *filled(const struct job *j, size_t n, double v)
{
    void *buf = malloc((n ? n : 1) * (j->isdbl ? sizeof(double) : sizeof(int)));
    if (!buf) {
        fprintf(stderr, "coll_rooted: rank %d: out of memory\n", wrank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (size_t i = 0; i < n; i++)
        put(j, buf, i, v);
    return buf;
}

/* Compares buf[i] with want; reports the first difference of a job only. */
static int same(const struct job *j, const char *what, const void *buf, size_t i, double want)
{
    double got = get(j, buf, i);
    if (got == want)
        return 1;
    CHECK(0, "%s on %s, root %d, %d %s%s: %s[%zu] is %.0f, expected %.0f", kind_name[j->kind],
          j->cname, j->root, j->count, j->isdbl ? "doubles" : "ints",
          j->inplace ? ", in place" : "", what, i, got, want);
    return 0;
}

/* Irregular counts for the v-variants: zero for a quarter of the ranks (which ones depends on
 * the root), otherwise count - 1, count or count + 1. */
static int vcount(const struct job *j, int r)
{
    if ((r + j->root) % 4 == 1)
        return 0;
    int c = j->count + r % 3 - 1;
    return c < 0 ? 0 : c;
}

/* The v-variants' layout at the root: blocks in reverse rank order, with gaps of 0 to 2. */
static void vlayout(struct job *j)
{
    j->counts = malloc((size_t)j->size * sizeof(int));
    j->displs = malloc((size_t)j->size * sizeof(int));
    size_t pos = 0;
    for (int r = j->size - 1; r >= 0; r--) {
        pos += (size_t)(r % 3);
        j->counts[r] = vcount(j, r);
        j->displs[r] = (int)pos;
        pos += (size_t)j->counts[r];
    }
    j->span = pos;
}

static void start(struct job *j)
{
    MPI_Datatype t = etype(j);
    int me = j->rank, n = j->size, c = j->count, root = j->root, rc = MPI_SUCCESS;
    int at_root = me == root, ip = j->inplace && at_root;
    MPI_Comm comm = j->comm;
    MPI_Request *rq = &j->req;
    size_t nc = (size_t)n * (size_t)c;

    j->req = MPI_REQUEST_NULL;
    j->send = j->recv = NULL;
    j->counts = j->displs = NULL;
    j->type1 = j->type2 = MPI_DATATYPE_NULL;
    switch (j->kind) {
    case BCAST:
        j->recv = filled(j, (size_t)c + 1, SENTINEL);
        if (at_root)
            for (int i = 0; i < c; i++)
                put(j, j->recv, i, val(root, i, root));
        rc = nb ? MPI_Ibcast(j->recv, c, t, root, comm, rq) : MPI_Bcast(j->recv, c, t, root, comm);
        break;
    case GATHER:
        j->send = filled(j, c, 0);
        for (int i = 0; i < c; i++)
            put(j, j->send, i, val(me, i, root));
        if (at_root) {
            j->recv = filled(j, nc + 1, SENTINEL);
            if (ip)
                for (int i = 0; i < c; i++)
                    put(j, j->recv, (size_t)root * c + i, val(root, i, root));
        }
        /* recvcount is significant at the root only: 0 elsewhere. */
        rc = nb ? MPI_Igather(ip ? MPI_IN_PLACE : j->send, c, t, j->recv, at_root ? c : 0, t, root,
                              comm, rq)
                : MPI_Gather(ip ? MPI_IN_PLACE : j->send, c, t, j->recv, at_root ? c : 0, t, root,
                             comm);
        break;
    case GATHERV: {
        vlayout(j);
        int mine = j->counts[me];
        j->send = filled(j, mine, 0);
        for (int i = 0; i < mine; i++)
            put(j, j->send, i, val(me, i, root));
        if (at_root) {
            j->recv = filled(j, j->span + 1, SENTINEL);
            if (ip)
                for (int i = 0; i < mine; i++)
                    put(j, j->recv, (size_t)j->displs[root] + i, val(root, i, root));
        }
        /* Counts and displacements are significant at the root only: NULL elsewhere. */
        int *counts = at_root ? j->counts : NULL, *displs = at_root ? j->displs : NULL;
        rc = nb ? MPI_Igatherv(ip ? MPI_IN_PLACE : j->send, mine, t, j->recv, counts, displs, t,
                               root, comm, rq)
                : MPI_Gatherv(ip ? MPI_IN_PLACE : j->send, mine, t, j->recv, counts, displs, t,
                              root, comm);
        break;
    }
    case SCATTER:
        if (at_root) {
            j->send = filled(j, nc, 0);
            for (int r = 0; r < n; r++)
                for (int i = 0; i < c; i++)
                    put(j, j->send, (size_t)r * c + i, val(r, i, root));
        }
        if (!ip)
            j->recv = filled(j, (size_t)c + 1, SENTINEL);
        rc = nb ? MPI_Iscatter(j->send, at_root ? c : 0, t, ip ? MPI_IN_PLACE : j->recv, c, t, root,
                               comm, rq)
                : MPI_Scatter(j->send, at_root ? c : 0, t, ip ? MPI_IN_PLACE : j->recv, c, t, root,
                              comm);
        break;
    case SCATTERV: {
        vlayout(j);
        int mine = j->counts[me];
        if (at_root) {
            j->send = filled(j, j->span + 1, JUNK);
            for (int r = 0; r < n; r++)
                for (int i = 0; i < j->counts[r]; i++)
                    put(j, j->send, (size_t)j->displs[r] + i, val(r, i, root));
        }
        if (!ip)
            j->recv = filled(j, (size_t)mine + 1, SENTINEL);
        int *counts = at_root ? j->counts : NULL, *displs = at_root ? j->displs : NULL;
        rc = nb ? MPI_Iscatterv(j->send, counts, displs, t, ip ? MPI_IN_PLACE : j->recv, mine, t,
                                root, comm, rq)
                : MPI_Scatterv(j->send, counts, displs, t, ip ? MPI_IN_PLACE : j->recv, mine, t,
                               root, comm);
        break;
    }
    case REDUCE:
        j->send = filled(j, c, 0);
        for (int i = 0; i < c; i++)
            put(j, j->send, i, val(me, i, root));
        if (at_root) {
            j->recv = filled(j, (size_t)c + 1, SENTINEL);
            if (ip)
                memcpy(j->recv, j->send, (size_t)c * (j->isdbl ? sizeof(double) : sizeof(int)));
        }
        rc = nb ? MPI_Ireduce(ip ? MPI_IN_PLACE : j->send, j->recv, c, t, MPI_SUM, root, comm, rq)
                : MPI_Reduce(ip ? MPI_IN_PLACE : j->send, j->recv, c, t, MPI_SUM, root, comm);
        break;
    case BCAST_VEC:
        /* The root and the odd ranks: every other element; the even ranks: contiguous. */
        if (at_root || me % 2) {
            MPI_Type_vector(c, 1, 2, t, &j->type1);
            MPI_Type_commit(&j->type1);
            j->recv = filled(j, 2 * (size_t)c, at_root ? JUNK : SENTINEL);
            if (at_root)
                for (int i = 0; i < c; i++)
                    put(j, j->recv, 2 * (size_t)i, val(root, i, root));
            rc = nb ? MPI_Ibcast(j->recv, 1, j->type1, root, comm, rq)
                    : MPI_Bcast(j->recv, 1, j->type1, root, comm);
        } else {
            j->recv = filled(j, (size_t)c + 1, SENTINEL);
            rc = nb ? MPI_Ibcast(j->recv, c, t, root, comm, rq)
                    : MPI_Bcast(j->recv, c, t, root, comm);
        }
        break;
    case GATHER_VEC:
        /* Each sender: every third element; the root receives contiguous elements. */
        MPI_Type_vector(c, 1, 3, t, &j->type1);
        MPI_Type_commit(&j->type1);
        j->send = filled(j, 3 * (size_t)c, JUNK);
        for (int i = 0; i < c; i++)
            put(j, j->send, 3 * (size_t)i, val(me, i, root));
        if (at_root)
            j->recv = filled(j, nc + 1, SENTINEL);
        rc = nb ? MPI_Igather(j->send, 1, j->type1, j->recv, c, t, root, comm, rq)
                : MPI_Gather(j->send, 1, j->type1, j->recv, c, t, root, comm);
        break;
    case SCATTER_VEC:
        /* The root sends one contiguous type per rank; each rank receives every other element. */
        MPI_Type_vector(c, 1, 2, t, &j->type1);
        MPI_Type_commit(&j->type1);
        if (at_root) {
            MPI_Type_contiguous(c, t, &j->type2);
            MPI_Type_commit(&j->type2);
            j->send = filled(j, nc, 0);
            for (int r = 0; r < n; r++)
                for (int i = 0; i < c; i++)
                    put(j, j->send, (size_t)r * c + i, val(r, i, root));
        }
        j->recv = filled(j, 2 * (size_t)c, SENTINEL);
        rc = nb ? MPI_Iscatter(j->send, 1, at_root ? j->type2 : t, j->recv, 1, j->type1, root, comm,
                               rq)
                : MPI_Scatter(j->send, 1, at_root ? j->type2 : t, j->recv, 1, j->type1, root, comm);
        break;
    }
    CHECK(rc == MPI_SUCCESS, "%s on %s, root %d, count %d: returned %d", kind_name[j->kind],
          j->cname, root, c, rc);
    if (nb)
        CHECK(j->req != MPI_REQUEST_NULL, "%s on %s: no request", kind_name[j->kind], j->cname);
}

/* Checks the outcome of a completed job against the reference, then frees what it holds. */
static void check(struct job *j)
{
    int me = j->rank, n = j->size, c = j->count, root = j->root, at_root = me == root;
    int ip = j->inplace && at_root;

    switch (j->kind) {
    case BCAST:
        for (int i = 0; i < c; i++)
            if (!same(j, "buffer", j->recv, i, val(root, i, root)))
                break;
        same(j, "buffer", j->recv, c, SENTINEL);
        break;
    case GATHER:
    case GATHER_VEC:
        if (j->kind == GATHER_VEC)
            for (int i = 0; i < 3 * c; i++)
                if (!same(j, "sendbuf", j->send, i, i % 3 ? JUNK : val(me, i / 3, root)))
                    break;
        if (j->kind == GATHER && !ip)
            for (int i = 0; i < c; i++)
                if (!same(j, "sendbuf", j->send, i, val(me, i, root)))
                    break;
        if (!at_root)
            break;
        for (size_t k = 0; k < (size_t)n * c; k++)
            if (!same(j, "recvbuf", j->recv, k, val((int)(k / c), k % c, root)))
                break;
        same(j, "recvbuf", j->recv, (size_t)n * c, SENTINEL);
        break;
    case GATHERV:
        if (!ip)
            for (int i = 0; i < j->counts[me]; i++)
                if (!same(j, "sendbuf", j->send, i, val(me, i, root)))
                    break;
        if (!at_root)
            break;
        {
            /* Expected content of the whole root buffer: blocks, and sentinels elsewhere. */
            double *want = malloc((j->span + 1) * sizeof *want);
            for (size_t k = 0; k <= j->span; k++)
                want[k] = SENTINEL;
            for (int r = 0; r < n; r++)
                for (int i = 0; i < j->counts[r]; i++)
                    want[j->displs[r] + i] = val(r, i, root);
            for (size_t k = 0; k <= j->span; k++)
                if (!same(j, "recvbuf", j->recv, k, want[k]))
                    break;
            free(want);
        }
        break;
    case SCATTER:
        if (at_root)
            for (size_t k = 0; k < (size_t)n * c; k++)
                if (!same(j, "sendbuf", j->send, k, val((int)(k / c), k % c, root)))
                    break;
        if (ip)
            break;
        for (int i = 0; i < c; i++)
            if (!same(j, "recvbuf", j->recv, i, val(me, i, root)))
                break;
        same(j, "recvbuf", j->recv, c, SENTINEL);
        break;
    case SCATTERV: {
        int mine = j->counts[me];
        if (at_root) {
            double *want = malloc((j->span + 1) * sizeof *want);
            for (size_t k = 0; k <= j->span; k++)
                want[k] = JUNK;
            for (int r = 0; r < n; r++)
                for (int i = 0; i < j->counts[r]; i++)
                    want[j->displs[r] + i] = val(r, i, root);
            for (size_t k = 0; k <= j->span; k++)
                if (!same(j, "sendbuf", j->send, k, want[k]))
                    break;
            free(want);
        }
        if (ip)
            break;
        for (int i = 0; i < mine; i++)
            if (!same(j, "recvbuf", j->recv, i, val(me, i, root)))
                break;
        same(j, "recvbuf", j->recv, mine, SENTINEL);
        break;
    }
    case REDUCE:
        if (!ip)
            for (int i = 0; i < c; i++)
                if (!same(j, "sendbuf", j->send, i, val(me, i, root)))
                    break;
        if (!at_root)
            break;
        for (int i = 0; i < c; i++) {
            double sum = 0;
            for (int r = 0; r < n; r++)
                sum += val(r, i, root);
            if (!same(j, "recvbuf", j->recv, i, sum))
                break;
        }
        same(j, "recvbuf", j->recv, c, SENTINEL);
        break;
    case BCAST_VEC:
        if (at_root || me % 2) {
            for (int i = 0; i < 2 * c; i++)
                if (!same(j, "buffer", j->recv, i,
                          i % 2 ? (at_root ? JUNK : SENTINEL) : val(root, i / 2, root)))
                    break;
        } else {
            for (int i = 0; i < c; i++)
                if (!same(j, "buffer", j->recv, i, val(root, i, root)))
                    break;
            same(j, "buffer", j->recv, c, SENTINEL);
        }
        break;
    case SCATTER_VEC:
        for (int i = 0; i < 2 * c; i++)
            if (!same(j, "recvbuf", j->recv, i, i % 2 ? SENTINEL : val(me, i / 2, root)))
                break;
        break;
    }
    free(j->send);
    free(j->recv);
    free(j->counts);
    free(j->displs);
    if (j->type1 != MPI_DATATYPE_NULL)
        MPI_Type_free(&j->type1);
    if (j->type2 != MPI_DATATYPE_NULL)
        MPI_Type_free(&j->type2);
}

/* Runs a group of jobs. Blocking: one after the other. nb: in turn, each job waited for at once,
 * each completed by an MPI_Test loop, or all of them started, then completed by one MPI_Waitall. */
static void run(struct job *jobs, int njobs)
{
    static unsigned turn;
    MPI_Request reqs[32];

    if (!nb) {
        for (int k = 0; k < njobs; k++) {
            start(&jobs[k]);
            check(&jobs[k]);
        }
        return;
    }
    switch (turn++ % 3) {
    case 0:
        for (int k = 0; k < njobs; k++) {
            start(&jobs[k]);
            CHECK(MPI_Wait(&jobs[k].req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "MPI_Wait failed");
            CHECK(jobs[k].req == MPI_REQUEST_NULL, "MPI_Wait left the request");
            check(&jobs[k]);
        }
        break;
    case 1:
        for (int k = 0; k < njobs; k++) {
            int flag = 0;
            start(&jobs[k]);
            while (!flag)
                CHECK(MPI_Test(&jobs[k].req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS,
                      "MPI_Test failed");
            CHECK(jobs[k].req == MPI_REQUEST_NULL, "MPI_Test left the request");
            check(&jobs[k]);
        }
        break;
    default:
        for (int k = 0; k < njobs; k++) {
            start(&jobs[k]);
            reqs[k] = jobs[k].req;
        }
        CHECK(MPI_Waitall(njobs, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "MPI_Waitall failed");
        for (int k = 0; k < njobs; k++) {
            CHECK(reqs[k] == MPI_REQUEST_NULL, "MPI_Waitall left request %d", k);
            check(&jobs[k]);
        }
        break;
    }
}

/* Every rooted collective, from every root of comm, with count elements. */
static void all_roots(MPI_Comm comm, const char *cname, int count, int isdbl)
{
    static const struct {
        enum kind kind;
        int inplace;
    } what[] = {
        {BCAST, 0},   {GATHER, 0},    {GATHER, 1},     {GATHERV, 0},     {GATHERV, 1},
        {SCATTER, 0}, {SCATTER, 1},   {SCATTERV, 0},   {SCATTERV, 1},    {REDUCE, 0},
        {REDUCE, 1},  {BCAST_VEC, 0}, {GATHER_VEC, 0}, {SCATTER_VEC, 0},
    };
    enum { N = sizeof what / sizeof what[0] };
    struct job jobs[N];
    int me, n;

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    for (int root = 0; root < n; root++) {
        for (int k = 0; k < N; k++)
            jobs[k] = (struct job){.kind = what[k].kind,
                                   .inplace = what[k].inplace,
                                   .isdbl = isdbl,
                                   .count = count,
                                   .root = root,
                                   .comm = comm,
                                   .cname = cname,
                                   .rank = me,
                                   .size = n};
        run(jobs, N);
    }
}

int main(int argc, char **argv)
{
    int size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 2 || (argc == 2 && strcmp(argv[1], "nb") != 0)) {
        if (wrank == 0)
            fprintf(stderr, "usage: coll_rooted [nb]\n");
        MPI_Finalize();
        return 2;
    }
    nb = argc == 2;

    /* The large count: 100003 doubles (800 KB) per rank up to 8 ranks; above, 1.6 MB in all at
     * the root (48 KB per rank at 33 ranks), still far above the eager limit, so that every root
     * of a large communicator stays quick. */
    int large = size <= 8 ? 100003 : (200000 / size) | 1;
    all_roots(MPI_COMM_WORLD, "MPI_COMM_WORLD", 1, 0);
    all_roots(MPI_COMM_WORLD, "MPI_COMM_WORLD", 7, 0);
    all_roots(MPI_COMM_WORLD, "MPI_COMM_WORLD", 1024, 0);
    all_roots(MPI_COMM_WORLD, "MPI_COMM_WORLD", large, 1);

    /* Halves in reverse order: even and odd world ranks, highest first. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, size - wrank, &half);
    const char *hname = wrank % 2 ? "the odd half" : "the even half";
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    CHECK(hrank == (size - 1 - wrank) / 2 && hsize == (wrank % 2 ? size / 2 : (size + 1) / 2),
          "split: rank %d of %d", hrank, hsize);
    all_roots(half, hname, 1, 0);
    all_roots(half, hname, 7, 1);
    all_roots(half, hname, 1024, 0);
    MPI_Comm_free(&half);

    MPI_Finalize();
    if (errors)
        fprintf(stderr, "coll_rooted: rank %d: %d errors\n", wrank, errors);
    return errors ? 1 : 0;
}
