/*
 * mpi/: what the collective calls share (coll.c): their argument checks, and running the
 * schedule an algorithm of nbc/ built, blocking or not.
 *
 * A blocking collective is its non-blocking schedule with every round on the rank, waited for
 * at once: one engine, one set of algorithms. A non-blocking one returns a request whose
 * schedule the rank (in its MPI calls) and its progress thread run.
 */
#ifndef TM_MPI_COLL_H
#define TM_MPI_COLL_H

#include "obj/datatype.h"
#include "mpi_impl.h"
#include "nbc/nbc.h"
#include "obj/op.h"

/* count >= 0, a committed datatype, a buffer unless there is no data; sets *type_p. */
int tm_mpi_coll_check_buffer(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                             const void *buf, int count, MPI_Datatype type, tm_mpi_type_t **type_p);

/* One side of a rooted collective that may be MPI_IN_PLACE at the root only (gather's sendbuf,
 * scatter's recvbuf, named by `name`): MPI_SUCCESS with *type_p NULL when in place, else a
 * buffer of (count, type). */
int tm_mpi_coll_check_root_side(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                                const char *name, const void *buf, int count, MPI_Datatype type,
                                bool at_root, tm_mpi_type_t **type_p);

/* The calling rank's own block, from sendbuf to recvbuf (not in place): it must fit, and the
 * buffers must differ when there is data (one address is allowed as MPI_BOTTOM, from which
 * derived types reach different places). */
int tm_mpi_coll_check_own_block(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                                const void *sendbuf, size_t sendbytes, const void *recvbuf,
                                size_t recvbytes, bool any_data);

/* A root in [0, size). */
int tm_mpi_coll_check_root(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call, int root);

/* A non-blocking call's request pointer (request_p may be NULL for a blocking call: no check). */
int tm_mpi_coll_check_request(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                              const MPI_Request *request, bool nonblocking);

/* The levels of a binomial tree the calling rank runs itself: all of them in a blocking call, the
 * split-tree's S in a non-blocking one. */
int tm_mpi_coll_levels(const tm_mpi_comm_t *comm, bool nonblocking, bool doubling);

/* Runs schedule s of collective `call` on comm (NULL: the algorithm ran out of memory). With
 * `request` NULL, waits for it (a blocking call); else returns at once with the request in
 * *request. Returns the error class (reported through comm's handler). */
int tm_mpi_coll_run(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call, tm_nbc_sched_t *s,
                    MPI_Request *request);

/* Shared-address-space reduce and allreduce (coll_shared.c): the ranks read each other's
 * buffers directly, each combining one chunk of the elements. Blocking only, for commutative
 * operations; data is the rank's data (== recvbuf: in place), recvbuf significant at the root
 * only for reduce. Chosen from TM_MPI_COLL_SHARED_BYTES of data per rank on, on 2 ranks as well:
 * there the binomial tree's root copies the peer's data into scratch and then folds it in, while
 * here each rank folds half of it, reading the other's data in place (2 ranks on 2 cores, 2 MiB
 * of doubles: reduce 118 against 280 us, allreduce 204 against 380 us; 256 KiB: reduce 7.8 against
 * 15 us, allreduce 20 against 19). */
#define TM_MPI_COLL_SHARED_BYTES (256 * 1024)
int tm_mpi_coll_reduce_shared(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                              const void *data, void *recvbuf, size_t count, tm_mpi_type_t *type,
                              tm_mpi_op_t *op, int root);
int tm_mpi_coll_allreduce_shared(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                                 const void *data, void *recvbuf, size_t count, tm_mpi_type_t *type,
                                 tm_mpi_op_t *op);

/* Whether a blocking reduction of count elements of type with op on c takes the
 * shared-address-space algorithm (every rank decides the same). */
static inline bool tm_mpi_coll_use_shared(const tm_mpi_comm_t *c, size_t count,
                                          const tm_mpi_type_t *type, const tm_mpi_op_t *op)
{
    return c->size >= 2 && count * type->size >= TM_MPI_COLL_SHARED_BYTES &&
           tm_mpi_op_is_commutative(op);
}

/* Flat collectives (coll_flat.c): small blocking barrier, broadcast, reduce, allreduce,
 * allgather(v), alltoall, gather, scatter, reduce_scatter(_block), scan and exscan through a block
 * of memory the members share, where the member that arrives last does the work. Up to
 * TM_MPI_COLL_FLAT_RANKS members and TM_MPI_COLL_FLAT_BYTES of data per member. Measured on 2
 * cores, 8 bytes, flat against the message algorithms: 2 ranks pinned, allreduce 0.35 against 0.86
 * us, barrier 0.20 against 0.60, bcast 0.29 against 0.38; 16 ranks, allreduce 3.0 against 21.6 us,
 * bcast 2.6 against 5.3; 64 ranks, allreduce 11 against 122 us, bcast 9.2 against 8.4 (the last
 * member's wake-ups, one by one, catch up with the tree). */
#define TM_MPI_COLL_FLAT_RANKS 64
#define TM_MPI_COLL_FLAT_BYTES 256

/* Whether a blocking barrier (bytes 0) or broadcast of `bytes` on c takes the flat path: every
 * member decides the same, from what they share. */
bool tm_mpi_coll_use_flat(const tm_mpi_comm_t *c, size_t bytes);
/* The same for a reduction: also needs a dense type (no gaps, from offset 0). */
bool tm_mpi_coll_use_flat_reduce(const tm_mpi_comm_t *c, size_t count, const tm_mpi_type_t *type);
void tm_mpi_coll_flat_barrier(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call);
int tm_mpi_coll_flat_bcast(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, void *buf,
                           size_t count, tm_mpi_type_t *type, int root);
/* Reduce to `root`, or allreduce with root -1; data == recvbuf in place. */
void tm_mpi_coll_flat_reduce(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                             void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                             int root);
/* Allgather(v) into the blocks of `recv`, and alltoall (sendbuf NULL: in place): every member
 * reads every slot after the round. Flat when one rank's blocks (allgather(v): the largest block,
 * which every member computes alike from the counts; alltoall: all size of them) fit
 * TM_MPI_COLL_FLAT_BYTES. */
int tm_mpi_coll_flat_allgather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                               const void *sendbuf, size_t sendcount, tm_mpi_type_t *stype,
                               const tm_nbc_blocks_t *recv);
int tm_mpi_coll_flat_alltoall(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                              const void *sendbuf, size_t sendcount, tm_mpi_type_t *stype,
                              void *recvbuf, size_t recvcount, tm_mpi_type_t *rtype);
/* Reduce_scatter and reduce_scatter_block: the reduction of all `total` elements of data
 * (== recvbuf in place), as a flat allreduce's, then the member's `count` elements from element
 * `first` of the result into recvbuf. Flat under a reduction's condition for `total`. */
void tm_mpi_coll_flat_reduce_scatter(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                                     const void *data, void *recvbuf, size_t total, size_t first,
                                     size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op);
/* Gather and scatter, whose in-place root passes its own block as sendbuf (gather) or recvbuf
 * (scatter). Flat when the root's blocks (gather: one per slot; scatter: all size of them, in
 * its slot) fit TM_MPI_COLL_FLAT_BYTES. */
int tm_mpi_coll_flat_gather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                            const void *sendbuf, size_t sendcount, tm_mpi_type_t *stype,
                            void *recvbuf, size_t recvcount, tm_mpi_type_t *rtype, int root);
int tm_mpi_coll_flat_scatter(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                             const void *sendbuf, size_t sendcount, tm_mpi_type_t *stype,
                             void *recvbuf, size_t recvcount, tm_mpi_type_t *rtype, int root);
/* Scan, or exscan when `exclusive` (data == recvbuf in place): a chain along the ranks, flat
 * under the same condition as a reduction. */
void tm_mpi_coll_flat_scan(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                           void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                           bool exclusive);
/* The calls that return int return MPI_SUCCESS, or report MPI_ERR_TRUNCATE (a rank passed more
 * data than another's buffer holds) through c's handler and return what it returns. */
/* MPI_Ibarrier on a communicator that tm_mpi_coll_use_flat(c, 0) accepts: enters the next
 * barrier through the block's lines and starts the request that waits for the others. */
int tm_mpi_coll_flat_ibarrier(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                              MPI_Request *request);
/* Drops c's reference to its block (its view goes, in `call`), once the non-blocking barriers
 * its rank entered on it are over. */
void tm_mpi_coll_flat_release(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call);

#endif /* TM_MPI_COLL_H */
