/*
 * Neighbourhood collectives (MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v,w)) in one
 * round: every receive from an in-neighbour and every send to an out-neighbour start together,
 * straight between the user's buffers. Cost: one step of max(indegree, outdegree) · α + n · β
 * for n bytes in each direction. Chosen always: a neighbourhood is not a tree, nothing is
 * forwarded, and in shared memory each block moves by one copy.
 *
 * The caller (mpi/coll_neighbor.c) lists the transfers in the order the standard matches them:
 * when one peer appears several times (a duplicate graph edge, a periodic Cartesian dimension of
 * size 1 or 2), its messages are matched in the order they were posted, per sender, so the
 * receives are posted in the order given and the sends likewise. Receives go first, so that
 * messages to self find them posted.
 *
 * Split-tree: the exchange is one level; it runs on the rank unless S = 0.
 */
#include "config.h"

#include "coll/coll.h"

tm_nbc_sched_t *tm_coll_neighbor_linear(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                        const tm_coll_xfer_t *recvs, int nrecvs,
                                        const tm_coll_xfer_t *sends, int nsends, int rank_levels)
{
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, comm, 0);
    if (!s)
        return NULL;
    tm_nbc_sched_where(s, rank_levels > 0 ? TM_NBC_RANK : TM_NBC_ANY);
    for (int k = 0; k < nrecvs; k++)
        tm_nbc_sched_recv(s, recvs[k].buf, recvs[k].count, recvs[k].type, recvs[k].peer);
    for (int k = 0; k < nsends; k++)
        tm_nbc_sched_send(s, sends[k].buf, sends[k].count, sends[k].type, sends[k].peer);
    return s;
}
