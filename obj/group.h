/*
 * ThreadMPI obj/: groups: the members of communicators, as world ranks.
 *
 * A group (tm_mpi_group_t, in obj.h) lists its members in group order as world ranks. It
 * never changes once created and is shared by reference: between a rank's handles and its
 * communicators, and between ranks (all ranks share the world group, and a communicator's group
 * may be shared by the views of all its members), so retain and release are atomic.
 *
 *   tm_mpi_group_t
 *   +------+------+-----------------------------+
 *   | refs | size | world_ranks[0 .. size - 1]  |   group rank i is world rank world_ranks[i]
 *   +------+------+-----------------------------+
 */
#ifndef TM_OBJ_GROUP_H
#define TM_OBJ_GROUP_H

#include "obj/obj.h"

/* The world rank of member `rank` (0 <= rank < g->size) of g. */
static inline int tm_mpi_group_world_rank(const tm_mpi_group_t *g, int rank)
{
    return g->world_ranks[rank];
}

/* A new group of `size` members (world_ranks left for the caller to fill), with one reference;
 * NULL when out of memory. */
tm_mpi_group_t *tm_mpi_group_create(int size);

/* A reference to the group of all ranks (one object for the process); NULL when out of memory. */
tm_mpi_group_t *tm_mpi_group_world(void);

/* A reference to the group without members (static: never freed). */
tm_mpi_group_t *tm_mpi_group_empty(void);

/* Takes one more reference to g. Any rank may call it. */
void tm_mpi_group_retain(tm_mpi_group_t *g);

/* Drops one reference to g (NULL allowed), freeing it with the last. Any rank may call it. */
void tm_mpi_group_release(tm_mpi_group_t *g);

/* Whether every member of g is a rank of this process (runtime/rank.h, tm_rt_rank_is_local). */
bool tm_mpi_group_local(const tm_mpi_group_t *g);

/* The rank in g of world rank `world_rank`, or MPI_UNDEFINED when it is not a member. */
int tm_mpi_group_rank_of(const tm_mpi_group_t *g, int world_rank);

/* MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL (MPI_Group_compare's result). */
int tm_mpi_group_compare(const tm_mpi_group_t *g1, const tm_mpi_group_t *g2);

/* Resolves group handle `handle` for rank r (MPI_GROUP_EMPTY included). On success sets *group_p
 * (no new reference) and returns MPI_SUCCESS; otherwise reports MPI_ERR_GROUP for `call`
 * through MPI_COMM_WORLD's handler and returns what it returns. */
int tm_mpi_group_get(tm_mpi_rank_t *r, MPI_Group handle, const char *call,
                     tm_mpi_group_t **group_p);

/* An array of the world size: index in g of each world rank, -1 for non-members. NULL when out
 * of memory. */
int *tm_mpi_group_index(const tm_mpi_group_t *g);

/* Group handles: MPI_GROUP_NULL (payload 0), MPI_GROUP_EMPTY (1), then index in the rank's
 * table + TM_MPI_GROUP_FIRST_PAYLOAD. */
#define TM_MPI_GROUP_FIRST_PAYLOAD 2

/* Releases the groups of r's handles and the table (at MPI_Finalize). */
void tm_mpi_group_rank_fini(tm_mpi_rank_t *r);

#endif /* TM_OBJ_GROUP_H */
