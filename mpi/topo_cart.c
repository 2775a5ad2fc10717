/*
 * Cartesian topologies: MPI_Cart_create, MPI_Cart_map, MPI_Cartdim_get, MPI_Cart_get,
 * MPI_Cart_rank, MPI_Cart_coords, MPI_Cart_shift, MPI_Cart_sub, MPI_Topo_test, the copy and free of
 * topologies for MPI_Comm_dup and MPI_Comm_free, and the neighbour lists of every kind of
 * topology for the neighbourhood collectives (mpi/coll_neighbor.c).
 *
 * Ranks are laid out in row-major order (the last dimension varies fastest) and never
 * reordered: rank i of the new communicator is rank i of the old one.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "topo.h"

/* ------------------------------------------------------------------ copy, free */

static int *tm_mpi_topo_ints(const int *src, int n, int *failed_p)
{
    int *dst;

    if (src == NULL)
        return NULL;
    dst = malloc((size_t)(n > 0 ? n : 1) * sizeof(*dst));
    if (dst == NULL)
        *failed_p = 1;
    else if (n > 0)
        memcpy(dst, src, (size_t)n * sizeof(*dst));
    return dst;
}

tm_mpi_topo_t *tm_mpi_topo_dup(const tm_mpi_topo_t *t, int *failed_p)
{
    tm_mpi_topo_t *d;
    int failed = 0;

    if (t == NULL)
        return NULL;
    d = malloc(sizeof(*d));
    if (d == NULL) {
        *failed_p = 1;
        return NULL;
    }
    *d = *t;
    d->dims = tm_mpi_topo_ints(t->dims, t->ndims, &failed);
    d->periods = tm_mpi_topo_ints(t->periods, t->ndims, &failed);
    d->index = tm_mpi_topo_ints(t->index, t->nnodes, &failed);
    d->edges = tm_mpi_topo_ints(t->edges, t->nedges, &failed);
    d->sources = tm_mpi_topo_ints(t->sources, t->indegree, &failed);
    d->sourceweights = tm_mpi_topo_ints(t->sourceweights, t->indegree, &failed);
    d->destinations = tm_mpi_topo_ints(t->destinations, t->outdegree, &failed);
    d->destweights = tm_mpi_topo_ints(t->destweights, t->outdegree, &failed);
    if (failed) {
        tm_mpi_topo_free(d);
        *failed_p = 1;
        return NULL;
    }
    return d;
}

void tm_mpi_topo_free(tm_mpi_topo_t *t)
{
    if (t == NULL)
        return;
    free(t->dims);
    free(t->periods);
    free(t->index);
    free(t->edges);
    free(t->sources);
    free(t->sourceweights);
    free(t->destinations);
    free(t->destweights);
    free(t);
}

/* ------------------------------------------------------------------ helpers */

/* Resolves comm and checks that it has a Cartesian topology (MPI_ERR_TOPOLOGY otherwise). */
static int tm_mpi_cart_get_comm(tm_mpi_rank_t *r, MPI_Comm comm, const char *call,
                                tm_mpi_comm_t **comm_p)
{
    int err = tm_mpi_comm_get(r, comm, call, comm_p);

    if (err != MPI_SUCCESS)
        return err;
    if ((*comm_p)->topo == NULL || (*comm_p)->topo->kind != MPI_CART)
        return tm_mpi_error_raise(r->rt, *comm_p, call, MPI_ERR_TOPOLOGY,
                                  "%s has no Cartesian topology", (*comm_p)->name);
    return MPI_SUCCESS;
}

/* The coordinates of `rank` in t. */
static void tm_mpi_cart_coords_of(const tm_mpi_topo_t *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

/* The rank at coords (already in range) in t. */
static int tm_mpi_cart_rank_of(const tm_mpi_topo_t *t, const int *coords)
{
    int rank = 0;

    for (int i = 0; i < t->ndims; i++)
        rank = rank * t->dims[i] + coords[i];
    return rank;
}

/* Attaches a Cartesian topology (ndims, dims, periods) to the communicator of handle *newcomm. */
static int tm_mpi_cart_attach(tm_mpi_rank_t *r, tm_mpi_comm_t *parent, const char *call,
                              MPI_Comm *newcomm, int ndims, const int *dims, const int *periods)
{
    tm_mpi_comm_t *nc;
    tm_mpi_topo_t *t = calloc(1, sizeof(*t));

    tm_mpi_comm_get(r, *newcomm, call, &nc);
    if (t != NULL) {
        t->kind = MPI_CART;
        t->ndims = ndims;
        t->dims = malloc((size_t)(ndims > 0 ? ndims : 1) * sizeof(int));
        t->periods = malloc((size_t)(ndims > 0 ? ndims : 1) * sizeof(int));
    }
    if (t == NULL || t->dims == NULL || t->periods == NULL) {
        tm_mpi_topo_free(t);
        PMPI_Comm_free(newcomm);
        return tm_mpi_error_raise(r->rt, parent, call, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0; i < ndims; i++) {
        t->dims[i] = dims[i];
        t->periods[i] = periods[i] != 0;
    }
    nc->topo = t;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ neighbourhoods */

void tm_mpi_topo_degrees(const tm_mpi_topo_t *t, int rank, int *indegree_p, int *outdegree_p)
{
    switch (t->kind) {
    case MPI_CART:
        *indegree_p = *outdegree_p = 2 * t->ndims;
        break;
    case MPI_GRAPH:
        *indegree_p = *outdegree_p = t->index[rank] - (rank ? t->index[rank - 1] : 0);
        break;
    default: /* MPI_DIST_GRAPH */
        *indegree_p = t->indegree;
        *outdegree_p = t->outdegree;
        break;
    }
}

/* The Cartesian neighbours of rank: per dimension, at -1 then at +1. In row-major order a step
 * along dimension d moves the rank by the product of the later dimensions. */
static void tm_mpi_cart_neighbors(const tm_mpi_topo_t *t, int rank, int *out)
{
    int stride = 1;

    for (int d = t->ndims - 1; d >= 0; stride *= t->dims[d--]) {
        int n = t->dims[d], x = rank / stride % n;

        if (x > 0)
            out[2 * d] = rank - stride;
        else
            out[2 * d] = t->periods[d] ? rank + (n - 1) * stride : MPI_PROC_NULL;
        if (x < n - 1)
            out[2 * d + 1] = rank + stride;
        else
            out[2 * d + 1] = t->periods[d] ? rank - (n - 1) * stride : MPI_PROC_NULL;
    }
}

void tm_mpi_topo_neighbors(const tm_mpi_topo_t *t, int rank, int *sources, int *destinations)
{
    int indegree, outdegree, first;

    tm_mpi_topo_degrees(t, rank, &indegree, &outdegree);
    switch (t->kind) {
    case MPI_CART:
        if (sources != NULL)
            tm_mpi_cart_neighbors(t, rank, sources);
        if (destinations != NULL)
            tm_mpi_cart_neighbors(t, rank, destinations);
        break;
    case MPI_GRAPH:
        first = rank ? t->index[rank - 1] : 0;
        for (int i = 0; i < indegree; i++) {
            if (sources != NULL)
                sources[i] = t->edges[first + i];
            if (destinations != NULL)
                destinations[i] = t->edges[first + i];
        }
        break;
    default: /* MPI_DIST_GRAPH */
        for (int i = 0; sources != NULL && i < indegree; i++)
            sources[i] = t->sources[i];
        for (int i = 0; destinations != NULL && i < outdegree; i++)
            destinations[i] = t->destinations[i];
        break;
    }
}

/* ------------------------------------------------------------------ the API */

/* The grid checks of MPI_Cart_create and MPI_Cart_map: *nnodes_p = the grid's processes. */
static int tm_mpi_cart_check_grid(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, int ndims,
                                  const int dims[], const int periods[], int *nnodes_p)
{
    long long nnodes = 1;

    if (ndims < 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_DIMS, "negative ndims %d", ndims);
    if (ndims > 0 && (dims == NULL || periods == NULL))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "dims or periods is NULL");
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_DIMS, "dims[%d] = %d is not positive",
                                      i, dims[i]);
        nnodes *= dims[i];
        if (nnodes > c->size)
            break;
    }
    if (nnodes > c->size)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_TOPOLOGY,
                                  "the grid has more than the %d ranks of %s", c->size, c->name);
    *nnodes_p = (int)nnodes;
    return MPI_SUCCESS;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    static const char call[] = "MPI_Cart_create";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int nnodes, err = tm_mpi_comm_get_intra(r, comm_old, call, &c);

    (void)reorder;
    if (err != MPI_SUCCESS)
        return err;
    if ((err = tm_mpi_cart_check_grid(r, c, call, ndims, dims, periods, &nnodes)) != MPI_SUCCESS)
        return err;
    if (comm_cart == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "comm_cart is NULL");
    err = tm_mpi_comm_split_call(call, comm_old, c->rank < nnodes ? 0 : MPI_UNDEFINED, c->rank,
                                 comm_cart);
    if (err != MPI_SUCCESS || *comm_cart == MPI_COMM_NULL)
        return err;
    return tm_mpi_cart_attach(r, c, call, comm_cart, ndims, dims, periods);
}
#pragma weak MPI_Cart_create = PMPI_Cart_create

/* Ranks are not reordered: the caller keeps its rank when the grid has room for it. */
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    static const char call[] = "MPI_Cart_map";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int nnodes, err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if ((err = tm_mpi_cart_check_grid(r, c, call, ndims, dims, periods, &nnodes)) != MPI_SUCCESS)
        return err;
    if (newrank == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "newrank is NULL");
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_map = PMPI_Cart_map

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    static const char call[] = "MPI_Cartdim_get";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_cart_get_comm(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (ndims == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "ndims is NULL");
    *ndims = c->topo->ndims;
    return MPI_SUCCESS;
}
#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get

/* Fills the first maxdims entries of each array. */
int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    static const char call[] = "MPI_Cart_get";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_cart_get_comm(r, comm, call, &c);
    int mine[64], *all;

    if (err != MPI_SUCCESS)
        return err;
    if (maxdims < 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "negative maxdims %d", maxdims);
    if (maxdims > 0 && (dims == NULL || periods == NULL || coords == NULL))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "dims, periods or coords is NULL");
    all = c->topo->ndims <= 64 ? mine : malloc((size_t)c->topo->ndims * sizeof(int));
    if (all == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
    tm_mpi_cart_coords_of(c->topo, c->rank, all);
    for (int i = 0; i < maxdims && i < c->topo->ndims; i++) {
        dims[i] = c->topo->dims[i];
        periods[i] = c->topo->periods[i];
        coords[i] = all[i];
    }
    if (all != mine)
        free(all);
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_get = PMPI_Cart_get

/* Coordinates out of range wrap in periodic dimensions and are MPI_ERR_ARG in the others. */
int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    static const char call[] = "MPI_Cart_rank";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_cart_get_comm(r, comm, call, &c);
    const tm_mpi_topo_t *t;
    int result = 0;

    if (err != MPI_SUCCESS)
        return err;
    t = c->topo;
    if ((coords == NULL && t->ndims > 0) || rank == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "coords or rank is NULL");
    for (int i = 0; i < t->ndims; i++) {
        int x = coords[i];

        if (x < 0 || x >= t->dims[i]) {
            if (!t->periods[i])
                return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                          "coords[%d] = %d is out of [0, %d) in a dimension "
                                          "that is not periodic",
                                          i, x, t->dims[i]);
            x %= t->dims[i];
            if (x < 0)
                x += t->dims[i];
        }
        result = result * t->dims[i] + x;
    }
    *rank = result;
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_rank = PMPI_Cart_rank

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    static const char call[] = "MPI_Cart_coords";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_cart_get_comm(r, comm, call, &c);
    const tm_mpi_topo_t *t;

    if (err != MPI_SUCCESS)
        return err;
    t = c->topo;
    if (rank < 0 || rank >= c->size)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_RANK, "invalid rank %d in %s of size %d",
                                  rank, c->name, c->size);
    if (maxdims < t->ndims)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                  "maxdims %d is less than the %d dimensions", maxdims, t->ndims);
    if (coords == NULL && t->ndims > 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "coords is NULL");
    tm_mpi_cart_coords_of(t, rank, coords);
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_coords = PMPI_Cart_coords

/* A neighbour off a non-periodic edge is MPI_PROC_NULL. */
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    static const char call[] = "MPI_Cart_shift";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_cart_get_comm(r, comm, call, &c);
    const tm_mpi_topo_t *t;
    int mine[64], *coords, x, n, results[2];

    if (err != MPI_SUCCESS)
        return err;
    t = c->topo;
    if (direction < 0 || direction >= t->ndims)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "direction %d is out of [0, %d)",
                                  direction, t->ndims);
    if (rank_source == NULL || rank_dest == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "rank_source or rank_dest is NULL");
    coords = t->ndims <= 64 ? mine : malloc((size_t)t->ndims * sizeof(int));
    if (coords == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
    tm_mpi_cart_coords_of(t, c->rank, coords);
    x = coords[direction];
    n = t->dims[direction];
    for (int k = 0; k < 2; k++) {
        /* k = 0: the source, at -disp; k = 1: the destination, at +disp */
        long long y = (long long)x + (k ? disp : -(long long)disp);

        if (y < 0 || y >= n) {
            if (!t->periods[direction]) {
                results[k] = MPI_PROC_NULL;
                continue;
            }
            y %= n;
            if (y < 0)
                y += n;
        }
        coords[direction] = (int)y;
        results[k] = tm_mpi_cart_rank_of(t, coords);
    }
    *rank_source = results[0];
    *rank_dest = results[1];
    if (coords != mine)
        free(coords);
    return MPI_SUCCESS;
}
#pragma weak MPI_Cart_shift = PMPI_Cart_shift

/* The ranks that share the coordinates of the dimensions not kept form one new communicator,
 * with the kept dimensions as its grid. */
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Cart_sub";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_cart_get_comm(r, comm, call, &c);
    const tm_mpi_topo_t *t;
    int *coords, *dims, *periods, color = 0, key = 0, kept = 0;

    if (err != MPI_SUCCESS)
        return err;
    t = c->topo;
    if (remain_dims == NULL && t->ndims > 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "remain_dims is NULL");
    if (newcomm == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "newcomm is NULL");
    coords = malloc((size_t)(3 * t->ndims + 1) * sizeof(int));
    if (coords == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
    dims = coords + t->ndims;
    periods = dims + t->ndims;
    tm_mpi_cart_coords_of(t, c->rank, coords);
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            key = key * t->dims[i] + coords[i];
            dims[kept] = t->dims[i];
            periods[kept++] = t->periods[i];
        } else {
            color = color * t->dims[i] + coords[i];
        }
    }
    err = tm_mpi_comm_split_call(call, comm, color, key, newcomm);
    if (err == MPI_SUCCESS)
        err = tm_mpi_cart_attach(r, c, call, newcomm, kept, dims, periods);
    free(coords);
    return err;
}
#pragma weak MPI_Cart_sub = PMPI_Cart_sub

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    static const char call[] = "MPI_Topo_test";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (status == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "status is NULL");
    *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
#pragma weak MPI_Topo_test = PMPI_Topo_test
