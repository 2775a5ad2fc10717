/*
 * Graph and distributed graph topologies: MPI_Graph_create, MPI_Graphdims_get, MPI_Graph_get,
 * MPI_Graph_neighbors_count, MPI_Graph_neighbors, MPI_Dist_graph_create_adjacent,
 * MPI_Dist_graph_neighbors_count, MPI_Dist_graph_neighbors. Ranks are never reordered.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

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

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    static const char call[] = "MPI_Graph_create";
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
    tm_mpi_comm_t *c;
    tm_mpi_topo_t *t;
    int nedges, err = tm_mpi_comm_get(r, comm_old, call, &c);

    (void)reorder;
    if (err != MPI_SUCCESS)
        return err;
    if (nnodes < 0 || nnodes > c->size)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                  "nnodes %d is out of [0, %d] (the size of %s)", nnodes, c->size,
                                  c->name);
    if (nnodes > 0 && (index == NULL || edges == NULL))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "index or edges is NULL");
    if (comm_graph == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "comm_graph is NULL");
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

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    static const char call[] = "MPI_Graphdims_get";
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
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
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
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
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
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
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
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
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
    tm_mpi_comm_t *c;
    tm_mpi_topo_t *t;
    int ok, err = tm_mpi_comm_get(r, comm_old, call, &c);

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

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    static const char call[] = "MPI_Dist_graph_neighbors_count";
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
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
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
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
