/*
 * Graph and distributed graph topologies: MPI_Graph_create, MPI_Graph_map, MPI_Graphdims_get,
 * MPI_Graph_get, MPI_Graph_neighbors_count, MPI_Graph_neighbors, MPI_Dist_graph_create,
 * MPI_Dist_graph_create_adjacent, MPI_Dist_graph_neighbors_count, MPI_Dist_graph_neighbors.
 * Ranks are never reordered.
 *
 * MPI_Dist_graph_create lets any rank name any edge, so the edges travel to the ranks they
 * concern: an edge s -> d named by rank x becomes a record "d is an out-neighbour" for s and "s
 * is an in-neighbour" for d. The new communicator is made first (a split of comm_old) and the
 * records cross it in two all-to-all exchanges of the collective engine, on its collective
 * context: the number of records for each rank (with whether the sender's edges are weighted),
 * then the records. Each rank lists its neighbours in the order the records come in: by the
 * rank that named the edge, then in that rank's order. Both ends of an edge thus see the edges
 * between them in the same order, which the neighbourhood collectives match by.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "coll/blocks.h"
#include "topo.h"

/* Resolves comm and checks that its topology is of `kind` (MPI_ERR_TOPOLOGY otherwise). */
static int tm_mpi_graph_get_comm(tm_mpi_rank_t *r, MPI_Comm comm, const char *call, int kind,
                                 tm_mpi_comm_t **comm_p)
{
    int err = tm_mpi_comm_get(r, comm, call, comm_p);

    if (err != MPI_SUCCESS)
        return err;
    if ((*comm_p)->topo == NULL || (*comm_p)->topo->kind != kind)
        return tm_mpi_error_raise(r->rt, *comm_p, call, MPI_ERR_TOPOLOGY, "%s has no %s topology",
                                  (*comm_p)->name,
                                  kind == MPI_GRAPH ? "graph" : "distributed graph");
    return MPI_SUCCESS;
}

/* A copy of n ints, or NULL when out of memory (never NULL for n = 0). */
static int *tm_mpi_graph_ints(const int *src, int n)
{
    int *dst = malloc((size_t)(n > 0 ? n : 1) * sizeof(*dst));

    if (dst != NULL && n > 0)
        memcpy(dst, src, (size_t)n * sizeof(*dst));
    return dst;
}

/* Attaches t to the communicator of *newcomm; on failure frees both and reports. */
static int tm_mpi_graph_attach(tm_mpi_rank_t *r, tm_mpi_comm_t *parent, const char *call,
                               MPI_Comm *newcomm, tm_mpi_topo_t *t, int ok)
{
    tm_mpi_comm_t *nc;

    if (!ok) {
        tm_mpi_topo_free(t);
        PMPI_Comm_free(newcomm);
        return tm_mpi_error_raise(r->rt, parent, call, MPI_ERR_NO_MEM, "out of memory");
    }
    tm_mpi_comm_get(r, *newcomm, call, &nc);
    nc->topo = t;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ graphs */

/* The graph checks of MPI_Graph_create and MPI_Graph_map. */
static int tm_mpi_graph_check(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, int nnodes,
                              const int index[], const int edges[])
{
    int nedges;

    if (nnodes < 0 || nnodes > c->size)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                  "nnodes %d is out of [0, %d] (the size of %s)", nnodes, c->size,
                                  c->name);
    if (nnodes > 0 && (index == NULL || edges == NULL))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "index or edges is NULL");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                      "index[%d] = %d is less than the one before", i, index[i]);
    nedges = nnodes ? index[nnodes - 1] : 0;
    for (int e = 0; e < nedges; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                      "edges[%d] = %d is not a node of [0, %d)", e, edges[e],
                                      nnodes);
    return MPI_SUCCESS;
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    static const char call[] = "MPI_Graph_create";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_topo_t *t;
    int nedges, err = tm_mpi_comm_get_intra(r, comm_old, call, &c);

    (void)reorder;
    if (err != MPI_SUCCESS)
        return err;
    if ((err = tm_mpi_graph_check(r, c, call, nnodes, index, edges)) != MPI_SUCCESS)
        return err;
    if (comm_graph == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "comm_graph is NULL");
    nedges = nnodes ? index[nnodes - 1] : 0;
    err = tm_mpi_comm_split_call(call, comm_old, c->rank < nnodes ? 0 : MPI_UNDEFINED, c->rank,
                                 comm_graph);
    if (err != MPI_SUCCESS || *comm_graph == MPI_COMM_NULL)
        return err;
    t = calloc(1, sizeof(*t));
    if (t != NULL) {
        t->kind = MPI_GRAPH;
        t->nnodes = nnodes;
        t->nedges = nedges;
        t->index = tm_mpi_graph_ints(index, nnodes);
        t->edges = tm_mpi_graph_ints(edges, nedges);
    }
    return tm_mpi_graph_attach(r, c, call, comm_graph, t,
                               t != NULL && t->index != NULL && t->edges != NULL);
}
#pragma weak MPI_Graph_create = PMPI_Graph_create

/* Ranks are not reordered: the caller is node `rank` when there is one. */
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    static const char call[] = "MPI_Graph_map";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if ((err = tm_mpi_graph_check(r, c, call, nnodes, index, edges)) != MPI_SUCCESS)
        return err;
    if (newrank == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "newrank is NULL");
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
#pragma weak MPI_Graph_map = PMPI_Graph_map

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    static const char call[] = "MPI_Graphdims_get";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_graph_get_comm(r, comm, call, MPI_GRAPH, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (nnodes == NULL || nedges == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "nnodes or nedges is NULL");
    *nnodes = c->topo->nnodes;
    *nedges = c->topo->nedges;
    return MPI_SUCCESS;
}
#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get

/* Copies the first maxindex entries of index and maxedges of edges. */
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    static const char call[] = "MPI_Graph_get";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_graph_get_comm(r, comm, call, MPI_GRAPH, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (maxindex < 0 || maxedges < 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "negative maxindex or maxedges");
    if ((maxindex > 0 && index == NULL) || (maxedges > 0 && edges == NULL))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "index or edges is NULL");
    for (int i = 0; i < maxindex && i < c->topo->nnodes; i++)
        index[i] = c->topo->index[i];
    for (int i = 0; i < maxedges && i < c->topo->nedges; i++)
        edges[i] = c->topo->edges[i];
    return MPI_SUCCESS;
}
#pragma weak MPI_Graph_get = PMPI_Graph_get

/* The neighbours of `rank` in t: edges[*first .. *first + *count - 1]. */
static void tm_mpi_graph_range(const tm_mpi_topo_t *t, int rank, int *first, int *count)
{
    *first = rank ? t->index[rank - 1] : 0;
    *count = t->index[rank] - *first;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    static const char call[] = "MPI_Graph_neighbors_count";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int first, err = tm_mpi_graph_get_comm(r, comm, call, MPI_GRAPH, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (rank < 0 || rank >= c->topo->nnodes)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_RANK, "invalid rank %d in a graph of %d",
                                  rank, c->topo->nnodes);
    if (nneighbors == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "nneighbors is NULL");
    tm_mpi_graph_range(c->topo, rank, &first, nneighbors);
    return MPI_SUCCESS;
}
#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    static const char call[] = "MPI_Graph_neighbors";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int first, count, err = tm_mpi_graph_get_comm(r, comm, call, MPI_GRAPH, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (rank < 0 || rank >= c->topo->nnodes)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_RANK, "invalid rank %d in a graph of %d",
                                  rank, c->topo->nnodes);
    if (maxneighbors < 0 || (maxneighbors > 0 && neighbors == NULL))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                  "negative maxneighbors or NULL neighbors");
    tm_mpi_graph_range(c->topo, rank, &first, &count);
    for (int i = 0; i < count && i < maxneighbors; i++)
        neighbors[i] = c->topo->edges[first + i];
    return MPI_SUCCESS;
}
#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors

/* ------------------------------------------------------------------ distributed graphs */

static int tm_mpi_dist_check(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const char *what,
                             int degree, const int *ranks, const int *weights)
{
    if (degree < 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "negative %sdegree %d", what,
                                  degree);
    if (degree > 0 && (ranks == NULL || weights == NULL || weights == MPI_WEIGHTS_EMPTY))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                  "the %s ranks or weights are missing", what);
    for (int i = 0; i < degree; i++) {
        if (ranks[i] < 0 || ranks[i] >= c->size)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_RANK,
                                      "invalid %s rank %d in %s of size %d", what, ranks[i],
                                      c->name, c->size);
        if (weights != MPI_UNWEIGHTED && weights[i] < 0)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "negative %s weight %d", what,
                                      weights[i]);
    }
    return MPI_SUCCESS;
}

/* Collective over comm_old (a dup: every rank keeps its own neighbours). */
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int *sourceweights, int outdegree,
                                    const int destinations[], const int *destweights, MPI_Info info,
                                    int reorder, MPI_Comm *comm_dist_graph)
{
    static const char call[] = "MPI_Dist_graph_create_adjacent";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_topo_t *t;
    int ok, err = tm_mpi_comm_get_intra(r, comm_old, call, &c);

    (void)reorder;
    if (err != MPI_SUCCESS)
        return err;
    if ((err = tm_mpi_dist_check(r, c, call, "in", indegree, sources, sourceweights)) !=
            MPI_SUCCESS ||
        (err = tm_mpi_dist_check(r, c, call, "out", outdegree, destinations, destweights)) !=
            MPI_SUCCESS)
        return err;
    if ((sourceweights == MPI_UNWEIGHTED) != (destweights == MPI_UNWEIGHTED) && indegree > 0 &&
        outdegree > 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                  "only one of sourceweights and destweights is MPI_UNWEIGHTED");
    if (info != MPI_INFO_NULL && (err = tm_mpi_info_check(r, info, call)) != MPI_SUCCESS)
        return err;
    if (comm_dist_graph == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "comm_dist_graph is NULL");
    err = tm_mpi_comm_split_call(call, comm_old, 0, c->rank, comm_dist_graph);
    if (err != MPI_SUCCESS)
        return err;
    t = calloc(1, sizeof(*t));
    ok = t != NULL;
    if (ok) {
        t->kind = MPI_DIST_GRAPH;
        t->indegree = indegree;
        t->outdegree = outdegree;
        t->weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
        t->sources = tm_mpi_graph_ints(sources, indegree);
        t->destinations = tm_mpi_graph_ints(destinations, outdegree);
        ok = t->sources != NULL && t->destinations != NULL;
        if (ok && t->weighted) {
            t->sourceweights = tm_mpi_graph_ints(sourceweights, indegree);
            t->destweights = tm_mpi_graph_ints(destweights, outdegree);
            ok = t->sourceweights != NULL && t->destweights != NULL;
        }
    }
    return tm_mpi_graph_attach(r, c, call, comm_dist_graph, t, ok);
}
#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent

/* What a rank says of the weights of the edges it names. One that names no edge and does not
 * pass MPI_UNWEIGHTED says nothing: it fits a weighted graph and an unweighted one. */
enum { TM_MPI_DIST_UNWEIGHTED, TM_MPI_DIST_WEIGHTED, TM_MPI_DIST_NO_EDGES };

/* One record of MPI_Dist_graph_create's exchange, as ints: the neighbour, the weight and
 * whether the neighbour is a destination (1) or a source (0) of the receiver. */
#define TM_MPI_DIST_RECORD 3

/* The local checks of MPI_Dist_graph_create; *nedges_p = the edges named. */
static int tm_mpi_dist_create_check(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, int n,
                                    const int sources[], const int degrees[],
                                    const int destinations[], const int *weights, MPI_Info info,
                                    const MPI_Comm *newcomm, int *nedges_p)
{
    long long nedges = 0;
    int err;

    if (n < 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "negative n %d", n);
    if (n > 0 && (sources == NULL || degrees == NULL))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "sources or degrees is NULL");
    for (int i = 0; i < n; i++) {
        if (sources[i] < 0 || sources[i] >= c->size)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_RANK,
                                      "invalid source rank %d in %s of size %d", sources[i],
                                      c->name, c->size);
        if (degrees[i] < 0)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "degrees[%d] = %d is negative",
                                      i, degrees[i]);
        nedges += degrees[i];
        if (nedges > INT_MAX / TM_MPI_DIST_RECORD / 2)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "too many edges");
    }
    if (nedges > 0 && destinations == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "destinations is NULL");
    if (nedges > 0 && (weights == NULL || weights == MPI_WEIGHTS_EMPTY))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                  "weights is %s for %lld edges (MPI_UNWEIGHTED or %lld weights)",
                                  weights == NULL ? "NULL" : "MPI_WEIGHTS_EMPTY", nedges, nedges);
    for (long long e = 0; e < nedges; e++) {
        if (destinations[e] < 0 || destinations[e] >= c->size)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_RANK,
                                      "invalid destination rank %d in %s of size %d",
                                      destinations[e], c->name, c->size);
        if (weights != MPI_UNWEIGHTED && weights[e] < 0)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "weights[%lld] = %d is negative",
                                      e, weights[e]);
    }
    if (info != MPI_INFO_NULL && (err = tm_mpi_info_check(r, info, call)) != MPI_SUCCESS)
        return err;
    if (newcomm == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "comm_dist_graph is NULL");
    *nedges_p = (int)nedges;
    return MPI_SUCCESS;
}

/* All-to-all of ints on c (blocking, on its collective context): counts and displacements in
 * ints per peer. Returns the MPI error class (reported). */
static int tm_mpi_dist_exchange(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                                const int *sendbuf, const int *sendcounts, const int *sdispls,
                                int *recvbuf, const int *recvcounts, const int *rdispls)
{
    tm_mpi_type_t *type;

    tm_mpi_type_lookup(MPI_INT, &type);
    tm_coll_blocks_t send = {.buf = (void *)sendbuf,
                             .counts = tm_coll_vec_int(sendcounts),
                             .displs = tm_coll_vec_int(sdispls),
                             .displ_unit = sizeof(int),
                             .type = type};
    tm_coll_blocks_t recv = {.buf = recvbuf,
                             .counts = tm_coll_vec_int(recvcounts),
                             .displs = tm_coll_vec_int(rdispls),
                             .displ_unit = sizeof(int),
                             .type = type};
    return tm_coll_alltoall(r, c, call, &send, &recv, NULL);
}

/* The buffers of the exchange: per peer, two ints (records, weights) then the records. */
typedef struct tm_mpi_dist_bufs {
    int *head_out, *head_in; /* 2 per peer: ints of records, TM_MPI_DIST_* */
    int *twos, *two_displs;  /* 2 and 2 * peer */
    int *out_counts, *out_displs, *in_counts, *in_displs; /* in ints */
    int *out, *in;                                        /* the records */
} tm_mpi_dist_bufs_t;

static void tm_mpi_dist_bufs_free(tm_mpi_dist_bufs_t *b)
{
    free(b->head_out);
    free(b->head_in);
    free(b->twos);
    free(b->two_displs);
    free(b->out_counts);
    free(b->out_displs);
    free(b->in_counts);
    free(b->in_displs);
    free(b->out);
    free(b->in);
}

/* The records this rank sends: out_counts, out_displs and out from the edges it names. 0 or
 * -1 when out of memory. */
static int tm_mpi_dist_records(tm_mpi_dist_bufs_t *b, int size, int n, const int sources[],
                               const int degrees[], const int destinations[], const int *weights,
                               int nedges)
{
    int *at = calloc((size_t)size, sizeof(int)), e = 0;

    b->out = malloc((size_t)(2 * nedges * TM_MPI_DIST_RECORD + 1) * sizeof(int));
    if (at == NULL || b->out == NULL) {
        free(at);
        return -1;
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) {
            b->out_counts[sources[i]] += TM_MPI_DIST_RECORD;
            b->out_counts[destinations[e]] += TM_MPI_DIST_RECORD;
        }
    for (int p = 0, sum = 0; p < size; p++) {
        b->out_displs[p] = sum;
        at[p] = sum;
        sum += b->out_counts[p];
    }
    e = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) {
            int w = weights == MPI_UNWEIGHTED ? 1 : weights[e], s = sources[i], d = destinations[e];

            memcpy(b->out + at[s], (int[TM_MPI_DIST_RECORD]){d, w, 1},
                   sizeof(int[TM_MPI_DIST_RECORD]));
            at[s] += TM_MPI_DIST_RECORD;
            memcpy(b->out + at[d], (int[TM_MPI_DIST_RECORD]){s, w, 0},
                   sizeof(int[TM_MPI_DIST_RECORD]));
            at[d] += TM_MPI_DIST_RECORD;
        }
    free(at);
    return 0;
}

/* The topology from the records received (nints ints of them). NULL when out of memory. */
static tm_mpi_topo_t *tm_mpi_dist_topo(const int *in, int nints, int weighted)
{
    tm_mpi_topo_t *t = calloc(1, sizeof(*t));
    int nin = 0, nout = 0;

    if (t == NULL)
        return NULL;
    t->kind = MPI_DIST_GRAPH;
    t->weighted = weighted;
    for (int k = 0; k < nints; k += TM_MPI_DIST_RECORD)
        *(in[k + 2] ? &t->outdegree : &t->indegree) += 1;
    t->sources = malloc((size_t)(t->indegree ? t->indegree : 1) * sizeof(int));
    t->destinations = malloc((size_t)(t->outdegree ? t->outdegree : 1) * sizeof(int));
    if (weighted) {
        t->sourceweights = malloc((size_t)(t->indegree ? t->indegree : 1) * sizeof(int));
        t->destweights = malloc((size_t)(t->outdegree ? t->outdegree : 1) * sizeof(int));
    }
    if (t->sources == NULL || t->destinations == NULL ||
        (weighted && (t->sourceweights == NULL || t->destweights == NULL))) {
        tm_mpi_topo_free(t);
        return NULL;
    }
    for (int k = 0; k < nints; k += TM_MPI_DIST_RECORD) {
        if (in[k + 2]) {
            if (weighted)
                t->destweights[nout] = in[k + 1];
            t->destinations[nout++] = in[k];
        } else {
            if (weighted)
                t->sourceweights[nin] = in[k + 1];
            t->sources[nin++] = in[k];
        }
    }
    return t;
}

/* Collective over comm_old: every rank gets the new communicator (a dup of comm_old). */
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int *weights, MPI_Info info, int reorder,
                           MPI_Comm *comm_dist_graph)
{
    static const char call[] = "MPI_Dist_graph_create";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c, *nc;
    tm_mpi_topo_t *t;
    tm_mpi_dist_bufs_t b = {0};
    int nedges = 0, size, said[3] = {0}, nin = 0,
        err = tm_mpi_comm_get_intra(r, comm_old, call, &c);

    (void)reorder;
    if (err != MPI_SUCCESS)
        return err;
    if ((err = tm_mpi_dist_create_check(r, c, call, n, sources, degrees, destinations, weights,
                                        info, comm_dist_graph, &nedges)) != MPI_SUCCESS)
        return err;
    if ((err = tm_mpi_comm_split_call(call, comm_old, 0, c->rank, comm_dist_graph)) != MPI_SUCCESS)
        return err;
    tm_mpi_comm_get(r, *comm_dist_graph, call, &nc);
    size = nc->size;
    b.head_out = malloc((size_t)size * 2 * sizeof(int));
    b.head_in = malloc((size_t)size * 2 * sizeof(int));
    b.twos = malloc((size_t)size * sizeof(int));
    b.two_displs = malloc((size_t)size * sizeof(int));
    b.out_counts = calloc((size_t)size, sizeof(int));
    b.out_displs = malloc((size_t)size * sizeof(int));
    b.in_counts = malloc((size_t)size * sizeof(int));
    b.in_displs = malloc((size_t)size * sizeof(int));
    if (b.head_out == NULL || b.head_in == NULL || b.twos == NULL || b.two_displs == NULL ||
        b.out_counts == NULL || b.out_displs == NULL || b.in_counts == NULL ||
        b.in_displs == NULL ||
        tm_mpi_dist_records(&b, size, n, sources, degrees, destinations, weights, nedges) != 0)
        goto fail_nomem;
    for (int p = 0; p < size; p++) {
        b.twos[p] = 2;
        b.two_displs[p] = 2 * p;
        b.head_out[2 * p] = b.out_counts[p];
        b.head_out[2 * p + 1] = weights == MPI_UNWEIGHTED ? TM_MPI_DIST_UNWEIGHTED
                                : nedges > 0              ? TM_MPI_DIST_WEIGHTED
                                                          : TM_MPI_DIST_NO_EDGES;
    }
    if ((err = tm_mpi_dist_exchange(r, nc, call, b.head_out, b.twos, b.two_displs, b.head_in,
                                    b.twos, b.two_displs)) != MPI_SUCCESS)
        goto fail;
    for (int p = 0; p < size; p++) {
        b.in_counts[p] = b.head_in[2 * p];
        b.in_displs[p] = nin;
        nin += b.in_counts[p];
        said[b.head_in[2 * p + 1]] = 1;
    }
    /* every rank saw what every rank said: all fail here, or none */
    if (said[TM_MPI_DIST_UNWEIGHTED] && said[TM_MPI_DIST_WEIGHTED]) {
        tm_mpi_dist_bufs_free(&b);
        PMPI_Comm_free(comm_dist_graph);
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                  "some ranks pass MPI_UNWEIGHTED, others weights");
    }
    if ((b.in = malloc((size_t)(nin ? nin : 1) * sizeof(int))) == NULL)
        goto fail_nomem;
    if ((err = tm_mpi_dist_exchange(r, nc, call, b.out, b.out_counts, b.out_displs, b.in,
                                    b.in_counts, b.in_displs)) != MPI_SUCCESS)
        goto fail;
    t = tm_mpi_dist_topo(b.in, nin, !said[TM_MPI_DIST_UNWEIGHTED]);
    tm_mpi_dist_bufs_free(&b);
    return tm_mpi_graph_attach(r, c, call, comm_dist_graph, t, t != NULL);
fail_nomem:
    /* Out of memory on one rank leaves the others waiting in the exchange: there is no way
     * back from that but the error handler, which is fatal by default. */
    err = tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
fail:
    tm_mpi_dist_bufs_free(&b);
    PMPI_Comm_free(comm_dist_graph);
    return err;
}
#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    static const char call[] = "MPI_Dist_graph_neighbors_count";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_graph_get_comm(r, comm, call, MPI_DIST_GRAPH, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (indegree == NULL || outdegree == NULL || weighted == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                  "indegree, outdegree or weighted is NULL");
    *indegree = c->topo->indegree;
    *outdegree = c->topo->outdegree;
    *weighted = c->topo->weighted;
    return MPI_SUCCESS;
}
#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count

/* Copies the first maxindegree sources and maxoutdegree destinations (and their weights, unless
 * MPI_UNWEIGHTED is passed or the graph has none). */
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int *sourceweights,
                              int maxoutdegree, int destinations[], int *destweights)
{
    static const char call[] = "MPI_Dist_graph_neighbors";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    const tm_mpi_topo_t *t;
    int err = tm_mpi_graph_get_comm(r, comm, call, MPI_DIST_GRAPH, &c);

    if (err != MPI_SUCCESS)
        return err;
    t = c->topo;
    if (maxindegree < 0 || maxoutdegree < 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                  "negative maxindegree or maxoutdegree");
    if ((maxindegree > 0 && sources == NULL) || (maxoutdegree > 0 && destinations == NULL))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "sources or destinations is NULL");
    for (int i = 0; i < maxindegree && i < t->indegree; i++) {
        sources[i] = t->sources[i];
        if (t->weighted && sourceweights != NULL && sourceweights != MPI_UNWEIGHTED)
            sourceweights[i] = t->sourceweights[i];
    }
    for (int i = 0; i < maxoutdegree && i < t->outdegree; i++) {
        destinations[i] = t->destinations[i];
        if (t->weighted && destweights != NULL && destweights != MPI_UNWEIGHTED)
            destweights[i] = t->destweights[i];
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors
