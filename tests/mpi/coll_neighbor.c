/* Neighborhood collectives (MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v,w)) on a periodic
 * and a non-periodic 2-D Cartesian topology, a 3-D one with mixed periods, a graph topology with
 * repeated edges (MPI_Graph_create) and an irregular directed graph with self edges and ranks
 * sending to nobody (MPI_Dist_graph_create_adjacent), and the same graph named edge by edge by
 * other ranks than the sources, with weights (MPI_Dist_graph_create). The neighbours are those that
 * MPI_Cart_shift, MPI_Graph_neighbors and MPI_Dist_graph_neighbors report, in that order; blocks
 * of an MPI_PROC_NULL neighbour must stay untouched.
 * Which block of the sender lands in which block of the receiver: on a Cartesian topology the
 * block a rank sends in the positive direction of dimension d arrives in the receiver's block for
 * the negative direction and vice versa (MPI 3.1 as corrected by MPI 4.0's errata, which matters
 * when a periodic dimension has 1 or 2 ranks and both neighbours are the same rank); on graphs the
 * k-th edge from a rank to another matches the k-th edge to it from that rank.
 * Each value depends on the operation, the sender, the sender's block and the index.
 * Usage: coll_neighbor [nb]
 *   nb: MPI_Ineighbor_*, all five outstanding at once on a topology, completed in turn by
 *   MPI_Wait (last started first), MPI_Test, MPI_Waitall, MPI_Waitany, MPI_Testsome, MPI_Testall
 *   and MPI_Waitsome. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nb, errors;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "coll_neighbor: rank %d, line %d: ", rank, __LINE__);                  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* No value() is negative: a cell still holding SENTINEL was never written. */
#define SENTINEL (-0x5a5a5a5b)

static int value(int salt, int from, int block, int i)
{
    unsigned v = (unsigned)salt * 1000003u + (unsigned)from * 7919u +
                 (unsigned)(block + 1) * 104729u + (unsigned)i * 31u;
    return (int)(v & 0x3fffffff);
}

/* Counts with zeros: of the sender's block `block`, and of everything a sender sends in
 * allgatherv. */
static int ecount(int n, int from, int block)
{
    return (from + block) % 4 == 3 ? 0 : n + (2 * from + block) % 3;
}

static int gcount(int n, int from)
{
    return from % 4 == 2 ? 0 : n + from % 3;
}

static int *ints(size_t n, int fill)
{
    int *p = malloc((n ? n : 1) * sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = fill;
    return p;
}

/* Places nblocks blocks of counts[j] elements (every stride[j]-th cell if stride) with a gap of
 * one or two cells before each, in order or reversed; returns the cells needed. */
static size_t layout(int nblocks, const int *counts, const int *stride, int reverse, int *displs)
{
    size_t pos = 0;
    for (int k = 0; k < nblocks; k++) {
        int j = reverse ? nblocks - 1 - k : k;
        pos += 1 + (size_t)(j % 2);
        displs[j] = (int)pos;
        pos += (size_t)counts[j] * (stride ? (size_t)stride[j] : 1);
    }
    return pos + 1;
}

/* Fills count cells from displ on, every stride-th, with what `from` sends in its block `block`. */
static void fill_block(int *buf, int displ, int count, int stride, int salt, int from, int block)
{
    for (int i = 0; i < count; i++)
        buf[displ + (size_t)i * stride] = value(salt, from, block, i);
}

/* A topology as the queries describe it, and for each in-neighbour the sender's block that the
 * standard says lands in that block. */
struct topo {
    const char *name;
    MPI_Comm comm;
    int me, indeg, outdeg;
    int *src, *dst, *src_block;
    /* Shapes that some libraries get wrong, the same on every rank: a periodic dimension of 1
     * or 2 ranks (both neighbours are the same rank), a rank listed twice as a neighbour, a rank
     * whose in- and out-degree differ. */
    int loops, repeats, uneven;
};

/* The k-th in-edge from s gets the block of the k-th out-edge of s to me. */
static void match_graph_edges(struct topo *t, int (*out_edges)(MPI_Comm, int, int **))
{
    for (int k = 0; k < t->indeg; k++) {
        int s = t->src[k], nth = 0, *out, nout = out_edges(t->comm, s, &out);
        for (int j = 0; j < k; j++)
            nth += t->src[j] == s;
        t->src_block[k] = -1;
        for (int j = 0; j < nout; j++)
            if (out[j] == t->me && nth-- == 0) {
                t->src_block[k] = j;
                break;
            }
        CHECK(t->src_block[k] >= 0, "%s: in-edge %d from %d has no matching out-edge", t->name, k,
              s);
        free(out);
    }
}

static int graph_out_edges(MPI_Comm comm, int r, int **out_p)
{
    int n;
    MPI_Graph_neighbors_count(comm, r, &n);
    *out_p = ints((size_t)n, -1);
    MPI_Graph_neighbors(comm, r, n, *out_p);
    return n;
}

static void topo_alloc(struct topo *t)
{
    t->src = ints((size_t)t->indeg, -1);
    t->dst = ints((size_t)t->outdeg, -1);
    t->src_block = ints((size_t)t->indeg, -1);
}

static void topo_shape(struct topo *t)
{
    int local[2] = {0, t->indeg != t->outdeg}, global[2];
    for (int k = 0; k < t->indeg; k++)
        for (int j = 0; j < k; j++)
            local[0] |= t->src[j] == t->src[k] && t->src[k] != MPI_PROC_NULL;
    MPI_Allreduce(local, global, 2, MPI_INT, MPI_MAX, t->comm);
    t->repeats = global[0];
    t->uneven = global[1];
}

static void topo_free(struct topo *t)
{
    free(t->src);
    free(t->dst);
    free(t->src_block);
    MPI_Comm_free(&t->comm);
}

/* Cartesian: per dimension the neighbour in the negative direction, then the positive one, as
 * sources and as destinations alike. */
static void cart(struct topo *t, const char *name, int ndims, const int *periods)
{
    int np, dims[3] = {0, 0, 0}, got, type;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Dims_create(np, ndims, dims);
    MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &t->comm);
    MPI_Topo_test(t->comm, &type);
    MPI_Cartdim_get(t->comm, &got);
    CHECK(type == MPI_CART && got == ndims, "%s: topology %d with %d dimensions", name, type, got);
    t->name = name;
    MPI_Comm_rank(t->comm, &t->me);
    t->indeg = t->outdeg = 2 * ndims;
    t->loops = 0;
    for (int d = 0; d < ndims; d++)
        t->loops |= periods[d] && dims[d] <= 2;
    topo_alloc(t);
    for (int d = 0; d < ndims; d++) {
        MPI_Cart_shift(t->comm, d, 1, &t->src[2 * d], &t->src[2 * d + 1]);
        t->dst[2 * d] = t->src[2 * d];
        t->dst[2 * d + 1] = t->src[2 * d + 1];
        t->src_block[2 * d] = 2 * d + 1;
        t->src_block[2 * d + 1] = 2 * d;
    }
    topo_shape(t);
}

/* An undirected multigraph: a ring (doubled on 2 ranks, a double self loop on 1) and chords
 * from every even rank to the rank 3 further on. */
static void graph(struct topo *t)
{
    int np, nedges = 0, type;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int(*pairs)[2] = malloc((size_t)2 * np * sizeof *pairs);
    for (int i = 0; i < np; i++) {
        pairs[nedges][0] = i;
        pairs[nedges++][1] = (i + 1) % np;
        if (i % 2 == 0) {
            pairs[nedges][0] = i;
            pairs[nedges++][1] = (i + 3) % np;
        }
    }
    /* Every end of every pair lists the other end, in the order of the pairs. */
    int *index = ints((size_t)np, 0), *edges = ints((size_t)4 * np, 0), m = 0;
    for (int i = 0; i < np; i++) {
        for (int e = 0; e < nedges; e++) {
            if (pairs[e][0] == i)
                edges[m++] = pairs[e][1];
            if (pairs[e][1] == i)
                edges[m++] = pairs[e][0];
        }
        index[i] = m;
    }
    MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &t->comm);
    MPI_Topo_test(t->comm, &type);
    CHECK(type == MPI_GRAPH, "graph: topology %d", type);
    t->name = "graph";
    MPI_Comm_rank(t->comm, &t->me);
    MPI_Graph_neighbors_count(t->comm, t->me, &t->indeg);
    int first = t->me ? index[t->me - 1] : 0;
    CHECK(t->indeg == index[t->me] - first, "graph: %d neighbours, expected %d", t->indeg,
          index[t->me] - first);
    t->outdeg = t->indeg;
    t->loops = 0;
    topo_alloc(t);
    MPI_Graph_neighbors(t->comm, t->me, t->indeg, t->src);
    for (int k = 0; k < t->indeg; k++) {
        CHECK(t->src[k] == edges[first + k], "graph: neighbour %d is %d, expected %d", k, t->src[k],
              edges[first + k]);
        t->dst[k] = t->src[k];
    }
    match_graph_edges(t, graph_out_edges);
    topo_shape(t);
    free(pairs);
    free(index);
    free(edges);
}

/* A directed graph: ranks 0 mod 3 send to the next two ranks, ranks 1 mod 3 to the previous one
 * and to themselves, ranks 2 mod 3 to nobody but rank 2, which sends to every rank twice (from 7
 * ranks on, more neighbours than a call keeps on the stack). Every rank lists its sources in rank
 * order. */
static int dist_out_edges(MPI_Comm comm, int r, int **out_p)
{
    int np;
    MPI_Comm_size(comm, &np);
    int *out = *out_p = ints(2 * (size_t)np, -1);
    switch (r % 3) {
    case 0:
        out[0] = (r + 1) % np;
        out[1] = (r + 2) % np;
        return 2;
    case 1:
        out[0] = (r + np - 1) % np;
        out[1] = r;
        return 2;
    default:
        if (r != 2)
            return 0;
        for (int k = 0; k < 2 * np; k++)
            out[k] = k % np;
        return 2 * np;
    }
}

static void dist_graph(struct topo *t)
{
    int np, type, *out, nout, *in, nin = 0, weighted;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    nout = dist_out_edges(MPI_COMM_WORLD, rank, &out);
    in = ints((size_t)2 * np + 2, -1);
    for (int s = 0; s < np; s++) {
        int *o, no = dist_out_edges(MPI_COMM_WORLD, s, &o);
        for (int j = 0; j < no; j++)
            if (o[j] == rank)
                in[nin++] = s;
        free(o);
    }
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, MPI_UNWEIGHTED, nout, out,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &t->comm);
    MPI_Topo_test(t->comm, &type);
    CHECK(type == MPI_DIST_GRAPH, "dist graph: topology %d", type);
    t->name = "dist graph";
    t->loops = 0;
    MPI_Comm_rank(t->comm, &t->me);
    MPI_Dist_graph_neighbors_count(t->comm, &t->indeg, &t->outdeg, &weighted);
    CHECK(t->indeg == nin && t->outdeg == nout && !weighted,
          "dist graph: in %d out %d weighted %d, expected %d %d 0", t->indeg, t->outdeg, weighted,
          nin, nout);
    topo_alloc(t);
    MPI_Dist_graph_neighbors(t->comm, t->indeg, t->src, MPI_UNWEIGHTED, t->outdeg, t->dst,
                             MPI_UNWEIGHTED);
    for (int k = 0; k < t->indeg && k < nin; k++)
        CHECK(t->src[k] == in[k], "dist graph: source %d is %d, expected %d", k, t->src[k], in[k]);
    for (int k = 0; k < t->outdeg && k < nout; k++)
        CHECK(t->dst[k] == out[k], "dist graph: destination %d is %d, expected %d", k, t->dst[k],
              out[k]);
    match_graph_edges(t, dist_out_edges);
    topo_shape(t);
    free(in);
    free(out);
}

/* The graph of dist_graph, but each rank names the out-edges of the next rank, weighted 100 x
 * source + position in the source's list, and a source with no edges; the in-edges then come in
 * no order the test can know but the one MPI_Dist_graph_neighbors reports, which
 * match_graph_edges follows. The weights say which edge each is. */
static void dist_graph_general(struct topo *t)
{
    int np, type, weighted, srcs[2], degs[2], *dsts, *ws, nout, *out, nin = 0, *sw, *dw;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    srcs[0] = (rank + 1) % np;
    degs[0] = dist_out_edges(MPI_COMM_WORLD, srcs[0], &dsts);
    srcs[1] = rank;
    degs[1] = 0;
    ws = ints((size_t)degs[0], 0);
    for (int j = 0; j < degs[0]; j++)
        ws[j] = 100 * srcs[0] + j;
    MPI_Dist_graph_create(MPI_COMM_WORLD, 2, srcs, degs, dsts, ws, MPI_INFO_NULL, 0, &t->comm);
    MPI_Topo_test(t->comm, &type);
    CHECK(type == MPI_DIST_GRAPH, "general dist graph: topology %d", type);
    t->name = "general dist graph";
    t->loops = 0;
    MPI_Comm_rank(t->comm, &t->me);
    nout = dist_out_edges(MPI_COMM_WORLD, rank, &out);
    for (int s = 0; s < np; s++) {
        int *o, no = dist_out_edges(MPI_COMM_WORLD, s, &o);
        for (int j = 0; j < no; j++)
            nin += o[j] == rank;
        free(o);
    }
    MPI_Dist_graph_neighbors_count(t->comm, &t->indeg, &t->outdeg, &weighted);
    CHECK(t->indeg == nin && t->outdeg == nout && weighted,
          "general dist graph: in %d out %d weighted %d, expected %d %d 1", t->indeg, t->outdeg,
          weighted, nin, nout);
    topo_alloc(t);
    sw = ints((size_t)t->indeg, -1);
    dw = ints((size_t)t->outdeg, -1);
    MPI_Dist_graph_neighbors(t->comm, t->indeg, t->src, sw, t->outdeg, t->dst, dw);
    for (int k = 0; k < t->outdeg && k < nout; k++)
        CHECK(t->dst[k] == out[k] && dw[k] == 100 * rank + k,
              "general dist graph: destination %d is %d weighing %d, expected %d weighing %d", k,
              t->dst[k], dw[k], out[k], 100 * rank + k);
    match_graph_edges(t, dist_out_edges);
    for (int k = 0; k < t->indeg; k++)
        CHECK(sw[k] == 100 * t->src[k] + t->src_block[k],
              "general dist graph: source %d (%d) weighs %d, expected %d", k, t->src[k], sw[k],
              100 * t->src[k] + t->src_block[k]);
    topo_shape(t);
    free(dsts);
    free(ws);
    free(out);
    free(sw);
    free(dw);
}

enum kind { ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, ALLTOALLW, NKINDS };
static const char *const kind_name[NKINDS] = {"neighbor_allgather", "neighbor_allgatherv",
                                              "neighbor_alltoall", "neighbor_alltoallv",
                                              "neighbor_alltoallw"};

struct op {
    enum kind kind;
    struct topo *t;
    int n, salt;
    int *sbuf, *rbuf;
    size_t rlen;
    int *scounts, *sdispls, *rcounts, *rdispls, *sstride, *rstride;
    MPI_Aint *sbytes, *rbytes;
    MPI_Datatype *stypes, *rtypes;
};

/* The datatype of one alltoallw block: count ints, contiguous or every stride-th. */
static void block_type(int count, int stride, MPI_Datatype *type_p, int *count_p)
{
    if (stride == 1) {
        *type_p = MPI_INT;
        *count_p = count;
        return;
    }
    MPI_Type_vector(count, 1, stride, MPI_INT, type_p);
    MPI_Type_commit(type_p);
    *count_p = 1;
}

static void op_setup(struct op *o)
{
    struct topo *t = o->t;
    int n = o->n, salt = o->salt, me = t->me, in = t->indeg, out = t->outdeg;
    size_t slen = 0;

    o->scounts = ints((size_t)out, 0);
    o->sdispls = ints((size_t)out, 0);
    o->sstride = ints((size_t)out, 1);
    o->rcounts = ints((size_t)in, 0);
    o->rdispls = ints((size_t)in, 0);
    o->rstride = ints((size_t)in, 1);
    o->sbytes = o->rbytes = NULL;
    o->stypes = o->rtypes = NULL;
    switch (o->kind) {
    case ALLGATHER:
    case ALLGATHERV:
        slen = (size_t)(o->kind == ALLGATHER ? n : gcount(n, me));
        o->sbuf = ints(slen, SENTINEL);
        fill_block(o->sbuf, 0, (int)slen, 1, salt, me, -1);
        for (int k = 0; k < in; k++)
            o->rcounts[k] = o->kind == ALLGATHER         ? n
                            : t->src[k] == MPI_PROC_NULL ? n + 2
                                                         : gcount(n, t->src[k]);
        if (o->kind == ALLGATHER) {
            for (int k = 0; k < in; k++)
                o->rdispls[k] = k * n;
            o->rlen = (size_t)in * n;
        } else {
            o->rlen = layout(in, o->rcounts, NULL, 1, o->rdispls);
        }
        break;
    case ALLTOALL:
    case ALLTOALLV:
    case ALLTOALLW:
        for (int k = 0; k < out; k++) {
            o->scounts[k] = o->kind == ALLTOALL ? n : ecount(n, me, k);
            o->sstride[k] = o->kind == ALLTOALLW && k % 2 == 1 ? 2 : 1;
        }
        for (int k = 0; k < in; k++) {
            o->rcounts[k] = o->kind == ALLTOALL          ? n
                            : t->src[k] == MPI_PROC_NULL ? n + 1
                                                         : ecount(n, t->src[k], t->src_block[k]);
            o->rstride[k] = o->kind == ALLTOALLW && k % 3 == 0 ? 3 : 1;
        }
        if (o->kind == ALLTOALL) {
            for (int k = 0; k < out; k++)
                o->sdispls[k] = k * n;
            for (int k = 0; k < in; k++)
                o->rdispls[k] = k * n;
            slen = (size_t)out * n;
            o->rlen = (size_t)in * n;
        } else {
            slen = layout(out, o->scounts, o->sstride, 0, o->sdispls);
            o->rlen = layout(in, o->rcounts, o->rstride, 1, o->rdispls);
        }
        o->sbuf = ints(slen, SENTINEL);
        for (int k = 0; k < out; k++)
            fill_block(o->sbuf, o->sdispls[k], o->scounts[k], o->sstride[k], salt, me, k);
        if (o->kind == ALLTOALLW) {
            o->stypes = malloc((size_t)(out ? out : 1) * sizeof *o->stypes);
            o->rtypes = malloc((size_t)(in ? in : 1) * sizeof *o->rtypes);
            o->sbytes = malloc((size_t)(out ? out : 1) * sizeof *o->sbytes);
            o->rbytes = malloc((size_t)(in ? in : 1) * sizeof *o->rbytes);
            for (int k = 0; k < out; k++) {
                block_type(o->scounts[k], o->sstride[k], &o->stypes[k], &o->scounts[k]);
                o->sbytes[k] = (MPI_Aint)o->sdispls[k] * (MPI_Aint)sizeof(int);
            }
            for (int k = 0; k < in; k++) {
                block_type(o->rcounts[k], o->rstride[k], &o->rtypes[k], &o->rcounts[k]);
                o->rbytes[k] = (MPI_Aint)o->rdispls[k] * (MPI_Aint)sizeof(int);
            }
        }
        break;
    default:
        abort();
    }
    o->rbuf = ints(o->rlen, SENTINEL);
}

static int op_start(struct op *o, MPI_Request *req)
{
    MPI_Comm c = o->t->comm;
    int n = o->n, *sb = o->sbuf, *rb = o->rbuf;
    switch (o->kind) {
    case ALLGATHER:
        return req ? MPI_Ineighbor_allgather(sb, n, MPI_INT, rb, n, MPI_INT, c, req)
                   : MPI_Neighbor_allgather(sb, n, MPI_INT, rb, n, MPI_INT, c);
    case ALLGATHERV: {
        int sc = gcount(n, o->t->me);
        return req ? MPI_Ineighbor_allgatherv(sb, sc, MPI_INT, rb, o->rcounts, o->rdispls, MPI_INT,
                                              c, req)
                   : MPI_Neighbor_allgatherv(sb, sc, MPI_INT, rb, o->rcounts, o->rdispls, MPI_INT,
                                             c);
    }
    case ALLTOALL:
        return req ? MPI_Ineighbor_alltoall(sb, n, MPI_INT, rb, n, MPI_INT, c, req)
                   : MPI_Neighbor_alltoall(sb, n, MPI_INT, rb, n, MPI_INT, c);
    case ALLTOALLV:
        return req ? MPI_Ineighbor_alltoallv(sb, o->scounts, o->sdispls, MPI_INT, rb, o->rcounts,
                                             o->rdispls, MPI_INT, c, req)
                   : MPI_Neighbor_alltoallv(sb, o->scounts, o->sdispls, MPI_INT, rb, o->rcounts,
                                            o->rdispls, MPI_INT, c);
    case ALLTOALLW:
        return req ? MPI_Ineighbor_alltoallw(sb, o->scounts, o->sbytes, o->stypes, rb, o->rcounts,
                                             o->rbytes, o->rtypes, c, req)
                   : MPI_Neighbor_alltoallw(sb, o->scounts, o->sbytes, o->stypes, rb, o->rcounts,
                                            o->rbytes, o->rtypes, c);
    default:
        abort();
    }
}

/* Compares the receive buffer with the reference, reporting the first wrong cell. */
static void op_check(struct op *o)
{
    struct topo *t = o->t;
    int n = o->n, *want = ints(o->rlen, SENTINEL);
    for (int k = 0; k < t->indeg; k++) {
        int s = t->src[k];
        if (s == MPI_PROC_NULL)
            continue;
        switch (o->kind) {
        case ALLGATHER:
        case ALLGATHERV:
            fill_block(want, o->rdispls[k], o->kind == ALLGATHER ? n : gcount(n, s), 1, o->salt, s,
                       -1);
            break;
        case ALLTOALL:
            fill_block(want, o->rdispls[k], n, 1, o->salt, s, t->src_block[k]);
            break;
        case ALLTOALLV:
        case ALLTOALLW:
            fill_block(want, o->rdispls[k], ecount(n, s, t->src_block[k]), o->rstride[k], o->salt,
                       s, t->src_block[k]);
            break;
        default:
            abort();
        }
    }
    for (size_t i = 0; i < o->rlen; i++)
        if (o->rbuf[i] != want[i]) {
            size_t bad = 0;
            for (size_t j = i; j < o->rlen; j++)
                bad += o->rbuf[j] != want[j];
            CHECK(0, "%s of %d on %s: cell %zu of %zu is %d, expected %d (%zu wrong)",
                  kind_name[o->kind], n, t->name, i, o->rlen, o->rbuf[i], want[i], bad);
            break;
        }
    free(want);
}

static void op_free(struct op *o)
{
    for (int k = 0; o->kind == ALLTOALLW && k < o->t->outdeg; k++)
        if (o->stypes[k] != MPI_INT)
            MPI_Type_free(&o->stypes[k]);
    for (int k = 0; o->kind == ALLTOALLW && k < o->t->indeg; k++)
        if (o->rtypes[k] != MPI_INT)
            MPI_Type_free(&o->rtypes[k]);
    free(o->stypes);
    free(o->rtypes);
    free(o->sbytes);
    free(o->rbytes);
    free(o->scounts);
    free(o->sdispls);
    free(o->sstride);
    free(o->rcounts);
    free(o->rdispls);
    free(o->rstride);
    free(o->sbuf);
    free(o->rbuf);
}

/* Completes n outstanding requests, each time by another family of calls; every request must be
 * MPI_REQUEST_NULL afterwards, and the -any/-some calls must report each index once. */
static void complete(int n, MPI_Request *reqs)
{
    static int method;
    int *seen = ints((size_t)n, 0), *idx = ints((size_t)n, 0), left = n, flag, index, outcount;
    int m = method++ % 7;

    switch (m) {
    case 0: /* MPI_Wait, last started first */
        for (int i = n - 1; i >= 0; i--)
            MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
        break;
    case 1: /* MPI_Test on each in turn */
        while (left > 0)
            for (int i = 0; i < n; i++)
                if (reqs[i] != MPI_REQUEST_NULL) {
                    MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE);
                    left -= flag != 0;
                }
        break;
    case 2:
        MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
        break;
    case 3:
        for (int k = 0; k < n; k++) {
            MPI_Waitany(n, reqs, &index, MPI_STATUS_IGNORE);
            CHECK(index >= 0 && index < n && !seen[index], "waitany returned index %d of %d", index,
                  n);
            if (index >= 0 && index < n)
                seen[index]++;
        }
        MPI_Waitany(n, reqs, &index, MPI_STATUS_IGNORE);
        CHECK(index == MPI_UNDEFINED, "waitany with nothing left: index %d", index);
        break;
    case 4:
    case 6: /* MPI_Testsome polling, MPI_Waitsome */
        while (left > 0) {
            if (m == 4)
                MPI_Testsome(n, reqs, &outcount, idx, MPI_STATUSES_IGNORE);
            else
                MPI_Waitsome(n, reqs, &outcount, idx, MPI_STATUSES_IGNORE);
            CHECK(outcount != MPI_UNDEFINED && (m == 4 || outcount > 0),
                  "%s: outcount %d with %d left", m == 4 ? "testsome" : "waitsome", outcount, left);
            if (outcount == MPI_UNDEFINED)
                break;
            for (int k = 0; k < outcount; k++) {
                CHECK(idx[k] >= 0 && idx[k] < n && !seen[idx[k]], "-some returned index %d",
                      idx[k]);
                if (idx[k] >= 0 && idx[k] < n)
                    seen[idx[k]]++;
            }
            left -= outcount;
        }
        break;
    case 5:
        for (flag = 0; !flag;)
            MPI_Testall(n, reqs, &flag, MPI_STATUSES_IGNORE);
        break;
    }
    for (int i = 0; i < n; i++)
        CHECK(reqs[i] == MPI_REQUEST_NULL, "completion method %d left request %d of %d active", m,
              i, n);
    free(seen);
    free(idx);
}

/* Open MPI 4.1 and MPICH 4.0, against which this program was checked, get some cases wrong. Those
 * are skipped with these libraries, and only with them. */
static enum { OTHER_MPI, OPEN_MPI_4, MPICH_4_0 } library;
static int skipped;

static int known_bug(const struct op *o)
{
    const struct topo *t = o->t;
    int a2a = o->kind == ALLTOALL || o->kind == ALLTOALLV || o->kind == ALLTOALLW;
    switch (library) {
    case OPEN_MPI_4:
        /* The non-blocking alltoalls predate the erratum on periodic dimensions of 1 or 2 ranks:
         * they match such blocks in list order (wrong data or MPI_ERR_TRUNCATE). */
        return nb && a2a && t->loops;
    case MPICH_4_0:
        /* Likewise its alltoall (1 rank) and alltoallv/w (2 ranks) in both forms; its alltoall
         * also swaps the blocks of a rank listed twice in a graph; its alltoallw loses blocks
         * (or crashes) when a rank's in- and out-degree differ. */
        return (a2a && t->loops) || (o->kind == ALLTOALL && t->repeats) ||
               (o->kind == ALLTOALLW && t->uneven);
    default:
        return 0;
    }
}

/* Every kind at count n on t: one after the other, or all five outstanding. */
static void round_of(struct topo *t, int n)
{
    static int salt;
    struct op ops[NKINDS];
    MPI_Request reqs[NKINDS];
    int nreq = 0, run[NKINDS];
    for (int k = 0; k < NKINDS; k++) {
        struct op *o = &ops[k];
        o->kind = (enum kind)k;
        o->t = t;
        o->n = n;
        o->salt = ++salt;
        run[k] = !known_bug(o);
        if (!run[k]) {
            skipped++;
            continue;
        }
        op_setup(o);
        int err = op_start(o, nb ? &reqs[nreq++] : NULL);
        CHECK(err == MPI_SUCCESS, "%s of %d on %s returned %d", kind_name[k], n, t->name, err);
        if (!nb) {
            op_check(o);
            op_free(o);
        }
    }
    if (!nb)
        return;
    complete(nreq, reqs);
    for (int k = 0; k < NKINDS; k++)
        if (run[k]) {
            op_check(&ops[k]);
            op_free(&ops[k]);
        }
}

int main(int argc, char **argv)
{
    static const int periodic[2] = {1, 1}, bounded[2] = {0, 0}, mixed[3] = {1, 0, 1};
    struct topo topos[6];
    int counts[] = {1, 7, 1021, 20000};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    nb = argc > 1 && strcmp(argv[1], "nb") == 0;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    if (strncmp(lib, "Open MPI v4.", 12) == 0)
        library = OPEN_MPI_4;
    else if (strncmp(lib, "MPICH Version:\t4.0.", 19) == 0)
        library = MPICH_4_0;

    cart(&topos[0], "periodic 2-D grid", 2, periodic);
    cart(&topos[1], "open 2-D grid", 2, bounded);
    cart(&topos[2], "3-D grid periodic in x and z", 3, mixed);
    graph(&topos[3]);
    dist_graph(&topos[4]);
    dist_graph_general(&topos[5]);
    for (int t = 0; t < 6; t++) {
        for (int c = 0; c < 4; c++)
            round_of(&topos[t], counts[c]);
        topo_free(&topos[t]);
    }

    if (skipped > 0 && rank == 0)
        printf("coll_neighbor: %d cases skipped, known to fail with %s\n", skipped,
               library == OPEN_MPI_4 ? "Open MPI 4" : "MPICH 4.0");
    MPI_Finalize();
    if (errors)
        fprintf(stderr, "coll_neighbor: rank %d: %d errors\n", rank, errors);
    return errors ? 1 : 0;
}
