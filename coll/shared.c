/*
 * Shared-address-space algorithms of the blocking reductions: the ranks are threads of one
 * process, so each can read the others' buffers directly instead of receiving messages.
 *
 * The ranks first learn each other's buffers: an allgather of two addresses per rank, which is
 * also the first synchronisation (when it returns, every rank is in the call, its buffers
 * ready). The count elements are then cut into size chunks, chunk j of elements
 * [count j / size, count (j+1) / size), and rank j combines chunk j of every rank's data:
 *
 *   reduce     into chunk j of the root's recvbuf (the root's own data first, then every other
 *              rank's folded in); a barrier, after which no buffer is read any more.
 *   allreduce  into chunk j of its own recvbuf; a barrier; then each rank copies every other
 *              chunk k from rank k's recvbuf into its own; a barrier, after which no rank reads
 *              another's recvbuf any more.
 *
 * Only rank j writes chunk j of a result and only after every reader of that chunk of its data
 * (itself) is done with it, so MPI_IN_PLACE needs no extra copy. The order in which chunk j
 * folds the ranks in is not rank order: the operation must be commutative.
 *
 * Cost, with p ranks and n bytes: each rank reads n (its chunk of every rank's data), and for
 * allreduce copies n (p - 1) / p more; against the message algorithms it saves every message's
 * copy into a receive buffer and every step's wait for a peer, and keeps 2 or 3 synchronisations
 * of the whole communicator (lg p messages each). Worth it for large data only (coll.h:
 * TM_COLL_SHARED_BYTES).
 */
#include "config.h"

#include <stdlib.h>

#include "coll/coll.h"
#include "coll/blocks.h"

/* The buffers a rank publishes: where its data is, where its result goes. */
typedef struct shared_bufs {
    const void *data;
    void *result;
} shared_bufs_t;

/* Every rank's buffers into all[0, size): the first synchronisation. */
static int shared_publish(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                          void *result, shared_bufs_t *all)
{
    all[c->rank] = (shared_bufs_t){data, result};
    tm_coll_blocks_t blocks = {.buf = all, .count = sizeof *all, .type = tm_coll_byte_type()};
    return tm_coll_run(
        r, c, call, tm_coll_allgather_bruck(r, c, NULL, 0, NULL, &blocks, TM_NBC_ALL_LEVELS), NULL);
}

static int shared_barrier(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call)
{
    return tm_coll_run(r, c, call, tm_coll_barrier_dissemination(r, c, TM_NBC_ALL_LEVELS), NULL);
}

/* The first element of chunk j of count elements cut into p chunks. */
static size_t chunk_start(size_t count, int p, int j)
{
    return count * (size_t)j / (size_t)p;
}

static const char *element(const void *buf, const tm_mpi_type_t *type, size_t i)
{
    return (const char *)buf + (MPI_Aint)i * type->extent;
}

/* Chunk `j` (elements [lo, hi)) of the op over every rank's data into `dest`, where `own` (a
 * rank's data, taken first) is copied unless it is dest already. */
static void shared_combine(const tm_mpi_comm_t *c, const shared_bufs_t *all, int own, void *dest,
                           size_t lo, size_t hi, tm_mpi_type_t *type, tm_mpi_op_t *op)
{
    size_t n = hi - lo;
    if (n == 0)
        return;
    char *acc = (char *)element(dest, type, lo);
    if (all[own].data != dest)
        tm_mpi_type_copy(acc, n, type, element(all[own].data, type, lo), n, type, 0,
                         n * type->size);
    for (int k = 0; k < c->size; k++)
        if (k != own)
            tm_mpi_op_apply(op, element(all[k].data, type, lo), acc, n, type);
}

static int shared_start(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, shared_bufs_t **all)
{
    *all = malloc((size_t)c->size * sizeof **all);
    if (!*all)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}

int tm_coll_reduce_shared(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                          void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                          int root)
{
    shared_bufs_t *all;
    int err = shared_start(r, c, call, &all);
    if (err == MPI_SUCCESS)
        err = shared_publish(r, c, call, data, c->rank == root ? recvbuf : NULL, all);
    if (err == MPI_SUCCESS) {
        size_t lo = chunk_start(count, c->size, c->rank);
        size_t hi = chunk_start(count, c->size, c->rank + 1);
        shared_combine(c, all, root, all[root].result, lo, hi, type, op);
        err = shared_barrier(r, c, call);
    }
    free(all);
    return err;
}

int tm_coll_allreduce_shared(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                             void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op)
{
    shared_bufs_t *all;
    int err = shared_start(r, c, call, &all);
    if (err == MPI_SUCCESS)
        err = shared_publish(r, c, call, data, recvbuf, all);
    if (err == MPI_SUCCESS) {
        int me = c->rank;
        shared_combine(c, all, me, recvbuf, chunk_start(count, c->size, me),
                       chunk_start(count, c->size, me + 1), type, op);
        err = shared_barrier(r, c, call);
    }
    if (err == MPI_SUCCESS) {
        for (int k = 0; k < c->size; k++) {
            size_t lo = chunk_start(count, c->size, k), n = chunk_start(count, c->size, k + 1) - lo;
            if (k != c->rank && n > 0)
                tm_mpi_type_copy((char *)element(recvbuf, type, lo), n, type,
                                 element(all[k].result, type, lo), n, type, 0, n * type->size);
        }
        err = shared_barrier(r, c, call);
    }
    free(all);
    return err;
}
