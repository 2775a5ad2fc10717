/*
 * Scatterv, linear: the root sends every other rank its block at once.
 *
 * The root posts all p - 1 sends in one round, each straight from its place in sendbuf, and
 * copies its own block (not in place); every other rank receives its block from the root. Cost
 * at the root: (p - 1) · α + (the sum of the blocks) · β, one message per rank. Chosen for
 * MPI_Scatterv (and what is built on it): the blocks differ in size, so a tree would need every
 * inner rank to learn its subtree's counts, and would move the large blocks several times; inside
 * one node each transfer is one copy, and all of them proceed at once.
 *
 * Split-tree: the tree is one level high, the leaves' level; with S >= 1 it runs on the ranks
 * (a RANK round, which at the start of the schedule runs inside the call that starts it), with
 * S = 0 on the progress threads.
 */
#include "config.h"

#include "coll/coll.h"

void tm_coll_scatterv_linear_add(tm_nbc_sched_t *s, const tm_mpi_comm_t *comm, const void *sendbuf,
                                 tm_coll_vec_t sendcounts, tm_coll_vec_t displs,
                                 tm_mpi_type_t *sendtype, void *recvbuf, size_t recvcount,
                                 tm_mpi_type_t *recvtype, int root, int rank_levels)
{
    tm_nbc_sched_barrier(s, rank_levels > 0 ? TM_NBC_RANK : TM_NBC_ANY);
    if (comm->rank != root) {
        tm_nbc_sched_recv(s, recvbuf, recvcount, recvtype, root);
        return;
    }
    const char *in = sendbuf;
    for (int i = 1; i < comm->size; i++) {
        int peer = (root + i) % comm->size;
        tm_nbc_sched_send(s, in + (MPI_Aint)tm_coll_vec_get(displs, peer) * sendtype->extent,
                          (size_t)tm_coll_vec_get(sendcounts, peer), sendtype, peer);
    }
    const char *mine = in + (MPI_Aint)tm_coll_vec_get(displs, root) * sendtype->extent;
    size_t own = (size_t)tm_coll_vec_get(sendcounts, root);
    if (recvbuf != mine || recvtype != sendtype || recvcount != own)
        tm_nbc_sched_copy(s, mine, own, sendtype, recvbuf, recvcount, recvtype);
}

tm_nbc_sched_t *tm_coll_scatterv_linear(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                        tm_coll_vec_t sendcounts, tm_coll_vec_t displs,
                                        tm_mpi_type_t *sendtype, void *recvbuf, size_t recvcount,
                                        tm_mpi_type_t *recvtype, int root, int rank_levels)
{
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, comm, 0);
    if (!s)
        return NULL;
    tm_coll_scatterv_linear_add(s, comm, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                recvtype, root, rank_levels);
    return s;
}
