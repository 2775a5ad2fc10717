/*
 * ThreadMPI mpi/: process topologies (Cartesian, graph, distributed graph), for the files of the
 * MPI layer that create, copy and free communicators.
 *
 * A topology hangs off the calling rank's view of its communicator (tm_mpi_comm_t.topo). It is
 * the rank's own copy: a Cartesian or graph topology is the same on every member, a
 * distributed graph one holds this rank's neighbours only. Ranks are never reordered.
 */
#ifndef TM_MPI_TOPO_H
#define TM_MPI_TOPO_H

#include "mpi_impl.h"

typedef struct tm_mpi_topo {
    int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* MPI_CART: ndims dimensions; periods[i] is 0 or 1 */
    int ndims;
    int *dims, *periods;
    /* MPI_GRAPH: nnodes nodes; the neighbours of node i are edges[index[i - 1] .. index[i] - 1]
     * (index[-1] = 0) */
    int nnodes, nedges;
    int *index, *edges;
    /* MPI_DIST_GRAPH: this rank's neighbours; weights NULL when unweighted */
    int indegree, outdegree, weighted;
    int *sources, *sourceweights, *destinations, *destweights;
} tm_mpi_topo_t;

/* A copy of t (for MPI_Comm_dup); NULL when t is NULL or out of memory (*failed_p is then set). */
tm_mpi_topo_t *tm_mpi_topo_dup(const tm_mpi_topo_t *t, int *failed_p);

/* Frees t (NULL allowed). */
void tm_mpi_topo_free(tm_mpi_topo_t *t);

/* The neighbours of `rank` in t, in the order of the neighbourhood collectives (MPI 3.1 section
 * 7.6): Cartesian, for each dimension the rank at -1 then the one at +1 (MPI_PROC_NULL off a
 * non-periodic edge), as sources and as destinations; graph, the node's neighbours, both ways;
 * distributed graph, the caller's own sources and destinations (rank is then the caller). First
 * the degrees, then the lists (NULL: not wanted), which must hold that many. */
void tm_mpi_topo_degrees(const tm_mpi_topo_t *t, int rank, int *indegree_p, int *outdegree_p);
void tm_mpi_topo_neighbors(const tm_mpi_topo_t *t, int rank, int *sources, int *destinations);

/* For the constructors: the MPI_Comm_split of comm_create.c, reporting for `call`. */
int tm_mpi_comm_split_call(const char *call, MPI_Comm comm, int color, int key, MPI_Comm *newcomm);

#endif /* TM_MPI_TOPO_H */
