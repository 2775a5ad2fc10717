/*
 * ThreadMPI coll/: the collective algorithms, for mpi/: the entry point of each collective
 * (coll.c), which picks its algorithm, and the algorithms: flat (flat.c) and shared-address
 * (shared.c) ones, and one schedule algorithm per file, which nbc/'s engine runs. Also the
 * dynamic broadcasts (bcast_dynamic.c).
 */
#ifndef TM_COLL_H
#define TM_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/check.h"
#include "nbc/nbc.h"
#include "obj/datatype.h"
#include "obj/obj.h"
#include "obj/op.h"

/* An array of counts or displacements as the program passed it: ints (the MPI-3.1 forms), or
 * MPI_Count / MPI_Aint (MPI-4.0's _c forms; MPI_Neighbor_alltoallw's byte displacements). The
 * array is read where it is, never widened into a copy, so that the int forms cost what they did;
 * `at` NULL is no array, with the meaning a NULL array has where it is taken. */
enum { TM_COLL_VEC_INT, TM_COLL_VEC_COUNT, TM_COLL_VEC_AINT };
typedef struct tm_coll_vec {
    const void *at;
    uint8_t width; /* TM_COLL_VEC_INT, _COUNT or _AINT: what `at` points to */
} tm_coll_vec_t;

_Static_assert(sizeof(MPI_Aint) <= sizeof(MPI_Count), "an MPI_Aint reads as an MPI_Count");

/* No array. */
#define TM_COLL_VEC_NONE ((tm_coll_vec_t){.at = NULL})

static inline tm_coll_vec_t tm_coll_vec_int(const int *at)
{
    return (tm_coll_vec_t){.at = at, .width = TM_COLL_VEC_INT};
}

static inline tm_coll_vec_t tm_coll_vec_count(const MPI_Count *at)
{
    return (tm_coll_vec_t){.at = at, .width = TM_COLL_VEC_COUNT};
}

static inline tm_coll_vec_t tm_coll_vec_aint(const MPI_Aint *at)
{
    return (tm_coll_vec_t){.at = at, .width = TM_COLL_VEC_AINT};
}

/* Entry j of v, which has an array. */
static inline MPI_Count tm_coll_vec_get(tm_coll_vec_t v, int j)
{
    switch (v.width) {
    case TM_COLL_VEC_INT:
        return ((const int *)v.at)[j];
    case TM_COLL_VEC_COUNT:
        return ((const MPI_Count *)v.at)[j];
    default:
        return ((const MPI_Aint *)v.at)[j];
    }
}

/* Once for the process, at the first MPI_Init: registers the handlers of the collectives'
 * active messages (the dynamic broadcasts'). */
void tm_coll_init(void);

/* ---- entry points (coll.c) ----
 *
 * mpi/'s calls hand over here with their arguments checked and resolved. With `request` NULL
 * the collective is blocking (it returns when done); else it is started and the request's handle
 * goes to *request. Each returns the error class (reported through c's handler). A rank's data
 * `data` is its sendbuf, or recvbuf in place (data == recvbuf). */

int tm_coll_barrier(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, MPI_Request *request);
int tm_coll_bcast(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, void *buf, size_t count,
                  tm_mpi_type_t *type, int root, MPI_Request *request);
/* recvbuf: the root's only. */
int tm_coll_reduce(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                   void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op, int root,
                   MPI_Request *request);
int tm_coll_allreduce(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                      void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                      MPI_Request *request);
/* Scan, or exscan when `exclusive`. */
int tm_coll_scan(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                 void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op, bool exclusive,
                 MPI_Request *request);
/* Reduce_scatter with counts[j] elements for rank j, or reduce_scatter_block (no counts) with
 * `block` each. */
int tm_coll_reduce_scatter(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                           void *recvbuf, tm_coll_vec_t counts, size_t block, tm_mpi_type_t *type,
                           tm_mpi_op_t *op, MPI_Request *request);
/* Gather(v) and scatter(v): the root's own block in place is passed as its sendbuf (gather) or
 * recvbuf (scatter), with the same count and type; the receive (gather) and send (scatter)
 * arguments are the root's only. */
int tm_coll_gather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *sendbuf,
                   size_t sendcount, tm_mpi_type_t *stype, void *recvbuf, size_t recvcount,
                   tm_mpi_type_t *rtype, int root, MPI_Request *request);
int tm_coll_gatherv(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *sendbuf,
                    size_t sendcount, tm_mpi_type_t *stype, void *recvbuf, tm_coll_vec_t recvcounts,
                    tm_coll_vec_t displs, tm_mpi_type_t *rtype, int root, MPI_Request *request);
int tm_coll_scatter(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *sendbuf,
                    size_t sendcount, tm_mpi_type_t *stype, void *recvbuf, size_t recvcount,
                    tm_mpi_type_t *rtype, int root, MPI_Request *request);
int tm_coll_scatterv(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *sendbuf,
                     tm_coll_vec_t sendcounts, tm_coll_vec_t displs, tm_mpi_type_t *stype,
                     void *recvbuf, size_t recvcount, tm_mpi_type_t *rtype, int root,
                     MPI_Request *request);

typedef struct tm_coll_blocks tm_coll_blocks_t; /* blocks.h */

/* Allgather(v): sendbuf and stype NULL in place; recv's blocks (no counts: MPI_Allgather's). */
int tm_coll_allgather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *sendbuf,
                      size_t sendcount, tm_mpi_type_t *stype, const tm_coll_blocks_t *recv,
                      MPI_Request *request);
/* Alltoall(v,w): send NULL in place; no counts: MPI_Alltoall's. */
int tm_coll_alltoall(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                     const tm_coll_blocks_t *send, const tm_coll_blocks_t *recv,
                     MPI_Request *request);

/* One transfer of a neighbourhood collective: count elements of type at buf, to or from peer. */
typedef struct tm_coll_xfer {
    void *buf;
    size_t count;
    tm_mpi_type_t *type;
    int peer;
} tm_coll_xfer_t;

/* The collectives on intercommunicators (inter.c): rooted ones take root = MPI_ROOT at the root,
 * MPI_PROC_NULL at the other members of its group (nothing to do), the root's rank in the other
 * group; buffers of a side that takes no part may be NULL. */
int tm_coll_inter_barrier(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                          MPI_Request *request);
int tm_coll_inter_bcast(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, void *buf,
                        size_t count, tm_mpi_type_t *type, int root, MPI_Request *request);
int tm_coll_inter_gather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *sendbuf,
                         size_t sendcount, tm_mpi_type_t *stype, const tm_coll_blocks_t *recv,
                         int root, MPI_Request *request);
int tm_coll_inter_scatter(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                          const tm_coll_blocks_t *send, void *recvbuf, size_t recvcount,
                          tm_mpi_type_t *rtype, int root, MPI_Request *request);
int tm_coll_inter_allgather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                            const void *sendbuf, size_t sendcount, tm_mpi_type_t *stype,
                            const tm_coll_blocks_t *recv, MPI_Request *request);
int tm_coll_inter_alltoall(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                           const tm_coll_blocks_t *send, const tm_coll_blocks_t *recv,
                           MPI_Request *request);
int tm_coll_inter_reduce(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                         void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                         int root, MPI_Request *request);
int tm_coll_inter_allreduce(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                            void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                            MPI_Request *request);

int tm_coll_inter_reduce_scatter(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                                 const void *data, void *recvbuf, size_t total, size_t mine_off,
                                 size_t mine_count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                                 MPI_Request *request);

/* A neighbourhood collective: the receives, then the sends, each posted in the order given (the
 * order in which messages between the same two ranks are matched). */
int tm_coll_neighbor(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                     const tm_coll_xfer_t *recvs, int nrecvs, const tm_coll_xfer_t *sends,
                     int nsends, MPI_Request *request);

/* ---- what the entry points share (coll.c) ---- */

/* The levels of a binomial tree the calling rank runs itself: all of them in a blocking call, the
 * split-tree's S in a non-blocking one. */
int tm_coll_levels(const tm_mpi_comm_t *comm, bool nonblocking, bool doubling);

/* Runs schedule s of collective `call` on comm (NULL: the algorithm ran out of memory). With
 * `request` NULL, waits for it (a blocking call); else returns at once with the request in
 * *request. Returns the error class (reported through comm's handler). */
int tm_coll_run(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call, tm_nbc_sched_t *s,
                MPI_Request *request);

/* A non-blocking collective `call` on comm that was over at its start (the flat ones): its
 * request, complete with MPI error class `err`, in *request. Takes the collective's number among
 * comm's schedules, as a schedule would (tm_nbc_sched_create). */
int tm_coll_done(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call, int err,
                 MPI_Request *request);

/* Shared-address-space reduce and allreduce (shared.c): the ranks read each other's
 * buffers directly, each combining one chunk of the elements. Blocking only, for commutative
 * operations; data is the rank's data (== recvbuf: in place), recvbuf significant at the root
 * only for reduce. Chosen from TM_COLL_SHARED_BYTES of data per rank on, on 2 ranks as well:
 * there the binomial tree's root copies the peer's data into scratch and then folds it in, while
 * here each rank folds half of it, reading the other's data in place (2 ranks on 2 cores, 2 MiB
 * of doubles: reduce 118 against 280 us, allreduce 204 against 380 us; 256 KiB: reduce 7.8 against
 * 15 us, allreduce 20 against 19). */
#define TM_COLL_SHARED_BYTES (256 * 1024)
int tm_coll_reduce_shared(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                          void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                          int root);
int tm_coll_allreduce_shared(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                             void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op);

/* Whether a blocking reduction of count elements of type with op on c takes the
 * shared-address-space algorithm (every rank decides the same). */
static inline bool tm_coll_use_shared(const tm_mpi_comm_t *c, size_t count,
                                      const tm_mpi_type_t *type, const tm_mpi_op_t *op)
{
    return c->size >= 2 && count * type->size >= TM_COLL_SHARED_BYTES &&
           tm_mpi_op_is_commutative(op) && c->local;
}

/* Flat collectives (flat.c): small blocking barrier, broadcast, reduce, allreduce,
 * allgather(v), alltoall, gather, scatter, reduce_scatter(_block), scan and exscan through a block
 * of memory the members share, where the member that arrives last does the work. Up to
 * TM_COLL_FLAT_RANKS members and TM_COLL_FLAT_BYTES of data per member. Measured on 2
 * cores, 8 bytes, flat against the message algorithms: 2 ranks pinned, allreduce 0.35 against 0.86
 * us, barrier 0.20 against 0.60, bcast 0.29 against 0.38; 16 ranks, allreduce 3.0 against 21.6 us,
 * bcast 2.6 against 5.3; 64 ranks, allreduce 11 against 122 us, bcast 9.2 against 8.4 (the last
 * member's wake-ups, one by one, catch up with the tree). */
#define TM_COLL_FLAT_RANKS 64
#define TM_COLL_FLAT_BYTES 256

/* Whether a blocking barrier (bytes 0) or broadcast of `bytes` on c takes the flat path: every
 * member decides the same, from what they share. */
bool tm_coll_use_flat(const tm_mpi_comm_t *c, size_t bytes);
/* The same for a reduction: also needs a dense type (no gaps, from offset 0). */
bool tm_coll_use_flat_reduce(const tm_mpi_comm_t *c, size_t count, const tm_mpi_type_t *type);
int tm_coll_flat_barrier(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                         const tm_coll_sig_t *sig);
int tm_coll_flat_bcast(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                       const tm_coll_sig_t *sig, void *buf, size_t count, tm_mpi_type_t *type,
                       int root);
/* Reduce to `root`, or allreduce with root -1; data == recvbuf in place. */
int tm_coll_flat_reduce(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                        const tm_coll_sig_t *sig, const void *data, void *recvbuf, size_t count,
                        tm_mpi_type_t *type, tm_mpi_op_t *op, int root);
/* Allgather(v) into the blocks of `recv`, and alltoall (sendbuf NULL: in place): every member
 * reads every slot after the round. Flat when one rank's blocks (allgather(v): the largest block,
 * which every member computes alike from the counts; alltoall: all size of them) fit
 * TM_COLL_FLAT_BYTES. */
int tm_coll_flat_allgather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                           const tm_coll_sig_t *sig, const void *sendbuf, size_t sendcount,
                           tm_mpi_type_t *stype, const tm_coll_blocks_t *recv);
int tm_coll_flat_alltoall(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                          const tm_coll_sig_t *sig, const void *sendbuf, size_t sendcount,
                          tm_mpi_type_t *stype, void *recvbuf, size_t recvcount,
                          tm_mpi_type_t *rtype);
/* Reduce_scatter and reduce_scatter_block: the reduction of all `total` elements of data
 * (== recvbuf in place), as a flat allreduce's, then the member's `count` elements from element
 * `first` of the result into recvbuf. Flat under a reduction's condition for `total`. */
int tm_coll_flat_reduce_scatter(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                                const tm_coll_sig_t *sig, const void *data, void *recvbuf,
                                size_t total, size_t first, size_t count, tm_mpi_type_t *type,
                                tm_mpi_op_t *op);
/* Gather and scatter, whose in-place root passes its own block as sendbuf (gather) or recvbuf
 * (scatter). Flat when the root's blocks (gather: one per slot; scatter: all size of them, in
 * its slot) fit TM_COLL_FLAT_BYTES. */
int tm_coll_flat_gather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                        const tm_coll_sig_t *sig, const void *sendbuf, size_t sendcount,
                        tm_mpi_type_t *stype, void *recvbuf, size_t recvcount, tm_mpi_type_t *rtype,
                        int root);
int tm_coll_flat_scatter(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                         const tm_coll_sig_t *sig, const void *sendbuf, size_t sendcount,
                         tm_mpi_type_t *stype, void *recvbuf, size_t recvcount,
                         tm_mpi_type_t *rtype, int root);
/* Scan, or exscan when `exclusive` (data == recvbuf in place): a chain along the ranks, flat
 * under the same condition as a reduction. */
int tm_coll_flat_scan(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                      const tm_coll_sig_t *sig, const void *data, void *recvbuf, size_t count,
                      tm_mpi_type_t *type, tm_mpi_op_t *op, bool exclusive);
/* `sig` is the call's signature (check.h), which the members compare. Each returns
 * MPI_SUCCESS, or reports through c's handler and returns what it returns: a
 * mismatch of the members' calls (check.h: another call, root or operation), seen by every
 * member of the round (the scan: by the members from the first that differs on), which then
 * leaves the buffers as they were; or MPI_ERR_TRUNCATE (a rank passed more data than another's
 * buffer holds). */
/* MPI_Ibarrier on a communicator that tm_coll_use_flat(c, 0) accepts: enters the next
 * barrier through the block's lines and starts the request that waits for the others. */
int tm_coll_flat_ibarrier(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                          MPI_Request *request);
/* MPI_Ibcast (op NULL: buf from root), MPI_Ireduce (root >= 0) and MPI_Iallreduce (root -1) of
 * data that tm_coll_use_flat, or tm_coll_use_flat_reduce, accepts: writes this member's part
 * into its ring of the block and starts the request that reads the others' (`sig`: the call's
 * signature, which the readers compare). `data`: a reduction's contribution (not MPI_IN_PLACE). */
int tm_coll_flat_nb(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const tm_coll_sig_t *sig,
                    const void *data, void *buf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                    int root, MPI_Request *request);
/* Drops c's reference to its block (its view goes, in `call`), once the non-blocking barriers,
 * broadcasts and reductions its rank started on it are over. */
void tm_coll_flat_release(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call);

/* ---- dynamic broadcasts (bcast_dynamic.c) ---- */

/* Registers the handler of the dynamic broadcasts' active messages (tm_coll_init). */
void tm_coll_bcast_dynamic_init(void);

/* Starts the dynamic broadcast of (buf, count, type) from rank r (the root) to the ndests ranks
 * `dests` of comm, already checked (in comm, distinct, not r), with `tag`: each receives it as a
 * point-to-point message from r, in order with r's other messages to it. req (a send request of
 * r) completes when buf may be reused. 0, or -ENOMEM with nothing sent. */
int tm_coll_bcast_dynamic(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *buf, size_t count,
                          tm_mpi_type_t *type, const int *dests, int ndests, int tag,
                          tm_p2p_request_t *req);

/* ---- schedule algorithms: each builds the calling rank's schedule of one collective (one
 * file each, named after the algorithm, with its cost and when it is chosen in its opening
 * comment) ----
 *
 * `rank_levels` is the split-tree's S (nbc.h): how many levels of the tree, counted from the
 * leaves, run on the ranks; a blocking collective passes TM_NBC_ALL_LEVELS. Buffers are the
 * caller's, already resolved (no MPI_IN_PLACE: the caller passes the right buffer). Each
 * returns NULL when out of memory. */

tm_nbc_sched_t *tm_coll_bcast_binomial(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, void *buf,
                                       size_t count, tm_mpi_type_t *type, int root,
                                       int rank_levels);

/* The rooted all-to-one and one-to-all algorithms come in three forms, so that other collectives
 * can be built of them (allreduce: reduce then broadcast; reduce_scatter: reduce then scatterv):
 *   tm_coll_X(r, comm, ...)            a new schedule holding the collective;
 *   tm_coll_X_add(s, comm, ..., tmp)  the same rounds appended to schedule s, after its current
 *                                      round (whose actions complete first);
 *   tm_coll_X_scratch(comm, ...)       the bytes of temporary memory tmp must have (a multiple
 *                                      of 64; tmp 64-byte aligned, alive until s ends), for the
 *                                      same arguments as _add; 0 when it needs none.
 * Arguments marked "root only" are not used elsewhere (may be NULL). */

/* Reduce (reduce_binomial.c): recvbuf of the root gets op over every rank's (sendbuf, count,
 * type), in rank order when op is not commutative. At the root, sendbuf == recvbuf is in place
 * (its data is in recvbuf); recvbuf: root only. */
tm_nbc_sched_t *tm_coll_reduce_binomial(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                        void *recvbuf, size_t count, tm_mpi_type_t *type,
                                        tm_mpi_op_t *op, int root, int rank_levels);
void tm_coll_reduce_binomial_add(tm_nbc_sched_t *s, const tm_mpi_comm_t *comm, const void *sendbuf,
                                 void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                                 int root, int rank_levels, void *scratch);
size_t tm_coll_reduce_binomial_scratch(const tm_mpi_comm_t *comm, const void *sendbuf,
                                       const void *recvbuf, size_t count, const tm_mpi_type_t *type,
                                       const tm_mpi_op_t *op, int root);

/* Gather (gather_binomial.c): every rank's (sendbuf, sendcount, sendtype) to the root's recvbuf,
 * as block `rank` of recvcount recvtype elements. Every block has the same size in bytes. At the
 * root, sendbuf == its own block in recvbuf with the same count and type is in place; recvbuf,
 * recvcount, recvtype: root only. */
tm_nbc_sched_t *tm_coll_gather_binomial(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                        size_t sendcount, tm_mpi_type_t *sendtype, void *recvbuf,
                                        size_t recvcount, tm_mpi_type_t *recvtype, int root,
                                        int rank_levels);
void tm_coll_gather_binomial_add(tm_nbc_sched_t *s, const tm_mpi_comm_t *comm, const void *sendbuf,
                                 size_t sendcount, tm_mpi_type_t *sendtype, void *recvbuf,
                                 size_t recvcount, tm_mpi_type_t *recvtype, int root,
                                 int rank_levels, void *scratch);
size_t tm_coll_gather_binomial_scratch(const tm_mpi_comm_t *comm, size_t sendcount,
                                       const tm_mpi_type_t *sendtype, size_t recvcount,
                                       const tm_mpi_type_t *recvtype, int root);

/* Scatter (scatter_binomial.c): block `rank` of the root's sendbuf (sendcount sendtype elements
 * per block) to every rank's (recvbuf, recvcount, recvtype). Every block has the same size in
 * bytes. At the root, recvbuf == its own block in sendbuf with the same count and type is in
 * place; sendbuf, sendcount, sendtype: root only. */
tm_nbc_sched_t *tm_coll_scatter_binomial(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                         size_t sendcount, tm_mpi_type_t *sendtype, void *recvbuf,
                                         size_t recvcount, tm_mpi_type_t *recvtype, int root,
                                         int rank_levels);
void tm_coll_scatter_binomial_add(tm_nbc_sched_t *s, const tm_mpi_comm_t *comm, const void *sendbuf,
                                  size_t sendcount, tm_mpi_type_t *sendtype, void *recvbuf,
                                  size_t recvcount, tm_mpi_type_t *recvtype, int root,
                                  int rank_levels, void *scratch);
size_t tm_coll_scatter_binomial_scratch(const tm_mpi_comm_t *comm, size_t sendcount,
                                        const tm_mpi_type_t *sendtype, size_t recvcount,
                                        const tm_mpi_type_t *recvtype, int root);

/* Gatherv (gatherv_linear.c): every rank's (sendbuf, sendcount, sendtype) to the root's
 * (recvbuf + displs[rank] extents, recvcounts[rank], recvtype). At the root, sendbuf == its own
 * block with the same count and type is in place; recvbuf, recvcounts, displs, recvtype: root
 * only (read while building: they need not outlive the call). Needs no scratch. */
tm_nbc_sched_t *tm_coll_gatherv_linear(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                       size_t sendcount, tm_mpi_type_t *sendtype, void *recvbuf,
                                       tm_coll_vec_t recvcounts, tm_coll_vec_t displs,
                                       tm_mpi_type_t *recvtype, int root, int rank_levels);
void tm_coll_gatherv_linear_add(tm_nbc_sched_t *s, const tm_mpi_comm_t *comm, const void *sendbuf,
                                size_t sendcount, tm_mpi_type_t *sendtype, void *recvbuf,
                                tm_coll_vec_t recvcounts, tm_coll_vec_t displs,
                                tm_mpi_type_t *recvtype, int root, int rank_levels);

/* Scatterv (scatterv_linear.c): the root's (sendbuf + displs[i] extents, sendcounts[i], sendtype)
 * to rank i's (recvbuf, recvcount, recvtype). At the root, recvbuf == its own block with the same
 * count and type is in place; sendbuf, sendcounts, displs, sendtype: root only (read while
 * building). Needs no scratch. */
tm_nbc_sched_t *tm_coll_scatterv_linear(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                        tm_coll_vec_t sendcounts, tm_coll_vec_t displs,
                                        tm_mpi_type_t *sendtype, void *recvbuf, size_t recvcount,
                                        tm_mpi_type_t *recvtype, int root, int rank_levels);
void tm_coll_scatterv_linear_add(tm_nbc_sched_t *s, const tm_mpi_comm_t *comm, const void *sendbuf,
                                 tm_coll_vec_t sendcounts, tm_coll_vec_t displs,
                                 tm_mpi_type_t *sendtype, void *recvbuf, size_t recvcount,
                                 tm_mpi_type_t *recvtype, int root, int rank_levels);

/* Prefix reduction: recvbuf of rank r gets the data of ranks 0 .. r (`exclusive`: 0 .. r - 1)
 * reduced in rank order; exclusive, rank 0's recvbuf is not touched. sendbuf == recvbuf: in
 * place (the data is taken from recvbuf). */
tm_nbc_sched_t *tm_coll_scan_recdoubling(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                         void *recvbuf, size_t count, tm_mpi_type_t *type,
                                         tm_mpi_op_t *op, bool exclusive, int rank_levels);

/* Reduce-scatter: block j of every rank's sendbuf (counts[j] elements, the blocks back to back;
 * no counts: `block` elements each) reduced in rank order into rank j's recvbuf. The counts
 * are the same on every rank. sendbuf == recvbuf: in place (the blocks are in recvbuf, the
 * result goes to its start). */
tm_nbc_sched_t *tm_coll_reduce_scatter_pairwise(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                                const void *sendbuf, void *recvbuf,
                                                tm_coll_vec_t counts, size_t block,
                                                tm_mpi_type_t *type, tm_mpi_op_t *op,
                                                int rank_levels);

/* A neighbourhood collective in one round (tm_coll_neighbor's transfers). */
tm_nbc_sched_t *tm_coll_neighbor_linear(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                        const tm_coll_xfer_t *recvs, int nrecvs,
                                        const tm_coll_xfer_t *sends, int nsends, int rank_levels);

/* Barrier (barrier_dissemination.c). */
tm_nbc_sched_t *tm_coll_barrier_dissemination(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                              int rank_levels);

/* Blocks of data (tm_coll_blocks_t, blocks.h): allgather(v)'s receive buffer, alltoall(v,w)'s
 * buffers. Read while building: need not outlive the call. */

/* Allgather(v): every rank's (sendbuf, sendcount, sendtype) to block `rank` of every rank's recv.
 * sendtype NULL: in place (each rank's block is in its recv already). Recursive doubling needs a
 * power-of-two size and blocks that follow each other with no counts, displs or types arrays
 * (MPI_Allgather's); Bruck's algorithm and the ring take any (MPI_Allgatherv's). */
tm_nbc_sched_t *tm_coll_allgather_recdoubling(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                              const void *sendbuf, size_t sendcount,
                                              tm_mpi_type_t *sendtype, const tm_coll_blocks_t *recv,
                                              int rank_levels);
tm_nbc_sched_t *tm_coll_allgather_bruck(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                        size_t sendcount, tm_mpi_type_t *sendtype,
                                        const tm_coll_blocks_t *recv, int rank_levels);
tm_nbc_sched_t *tm_coll_allgather_ring(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                       size_t sendcount, tm_mpi_type_t *sendtype,
                                       const tm_coll_blocks_t *recv, int rank_levels);

/* Alltoall(v,w): block j of every rank's send to block `rank` of rank j's recv. send NULL: in
 * place (the data is taken from recv, whose blocks then serve both ways). Bruck's algorithm
 * needs equal blocks that follow each other (MPI_Alltoall's); the pairwise exchange takes any. */
tm_nbc_sched_t *tm_coll_alltoall_bruck(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                       const tm_coll_blocks_t *send, const tm_coll_blocks_t *recv,
                                       int rank_levels);
tm_nbc_sched_t *tm_coll_alltoall_pairwise(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                          const tm_coll_blocks_t *send,
                                          const tm_coll_blocks_t *recv, int rank_levels);

/* Allreduce: every rank's recvbuf gets op over every rank's (sendbuf, count, type), in rank
 * order when op is not commutative; sendbuf == recvbuf: in place. Rabenseifner's algorithm
 * needs a commutative op and count >= the largest power of two <= size. The split form
 * (reduce to 0, then broadcast) is the non-blocking one. */
tm_nbc_sched_t *tm_coll_allreduce_recdoubling(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                              const void *sendbuf, void *recvbuf, size_t count,
                                              tm_mpi_type_t *type, tm_mpi_op_t *op,
                                              int rank_levels);
tm_nbc_sched_t *tm_coll_allreduce_rabenseifner(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                               const void *sendbuf, void *recvbuf, size_t count,
                                               tm_mpi_type_t *type, tm_mpi_op_t *op,
                                               int rank_levels);
tm_nbc_sched_t *tm_coll_allreduce_split(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                        void *recvbuf, size_t count, tm_mpi_type_t *type,
                                        tm_mpi_op_t *op, int rank_levels);

#endif /* TM_COLL_H */
