/*
 * Gatherv, linear: the root receives every other rank's block at once.
 *
 * Every rank sends its block to the root; the root posts all p - 1 receives in one round, each
 * straight to its place in recvbuf, and copies its own block (not in place). Cost at the root:
 * (p - 1) · α + (the sum of the blocks) · β, one message per rank. Chosen for MPI_Gatherv (and
 * what is built on it): the blocks differ in size, so a tree would need every inner rank to learn
 * its subtree's counts, and would move the large blocks several times; inside one node each
 * receive is one copy from the sender's buffer, and all of them proceed at once.
 *
 * Split-tree: the tree is one level high, the leaves' level; with S >= 1 it runs on the ranks
 * (a RANK round, inside the call that starts it), with S = 0 on the progress threads.
 */
#include "config.h"

#include "coll/coll.h"

void tm_coll_gatherv_linear_add(tm_nbc_sched_t *s, const tm_mpi_comm_t *comm, const void *sendbuf,
                                size_t sendcount, tm_mpi_type_t *sendtype, void *recvbuf,
                                tm_coll_vec_t recvcounts, tm_coll_vec_t displs,
                                tm_mpi_type_t *recvtype, int root, int rank_levels)
{
    tm_nbc_sched_barrier(s, rank_levels > 0 ? TM_NBC_RANK : TM_NBC_ANY);
    if (comm->rank != root) {
        tm_nbc_sched_send(s, sendbuf, sendcount, sendtype, root);
        return;
    }
    char *out = recvbuf;
    for (int i = 1; i < comm->size; i++) {
        int peer = (root + i) % comm->size;
        tm_nbc_sched_recv(s, out + (MPI_Aint)tm_coll_vec_get(displs, peer) * recvtype->extent,
                          (size_t)tm_coll_vec_get(recvcounts, peer), recvtype, peer);
    }
    char *mine = out + (MPI_Aint)tm_coll_vec_get(displs, root) * recvtype->extent;
    size_t own = (size_t)tm_coll_vec_get(recvcounts, root);
    if (sendbuf != mine || sendtype != recvtype || sendcount != own)
        tm_nbc_sched_copy(s, sendbuf, sendcount, sendtype, mine, own, recvtype);
}

tm_nbc_sched_t *tm_coll_gatherv_linear(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                       size_t sendcount, tm_mpi_type_t *sendtype, void *recvbuf,
                                       tm_coll_vec_t recvcounts, tm_coll_vec_t displs,
                                       tm_mpi_type_t *recvtype, int root, int rank_levels)
{
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, comm, 0);
    if (!s)
        return NULL;
    tm_coll_gatherv_linear_add(s, comm, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvtype, root, rank_levels);
    return s;
}
