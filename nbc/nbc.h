/*
 * ThreadMPI nbc/: the schedule engine of the collectives, for mpi/.
 *
 * A collective is a schedule: an array of rounds, a round a list of actions (send, recv, op,
 * copy, and poll: wait for a condition on shared memory) that start together; the next round
 * starts when every action of the current one is done. A rank builds the schedule of its part of
 * the collective with the verbs below, then starts it; the engine runs it to its end.
 *
 *   schedule   round 0          round 1                 round 2
 *              recv(parent)  |  send(child 4)          | send(child 1)
 *                            |  send(child 2)          |
 *   where      ANY           |  ANY                    | RANK          <- split-tree, S = 1
 *
 * Who runs a round: every round may run in the rank itself, inside its MPI calls (MPI_Test,
 * MPI_Wait and any call that waits); a round marked ANY may also run on the rank's progress
 * thread, a ULT that works while the rank computes. The call that starts a schedule runs what
 * can run at once without waiting for anybody (a non-blocking call is local, MPI 3.1 5.12):
 * the leaf levels of a reduction that the split-tree leaves to the rank (RANK rounds at the
 * start) thus begin in the call and end in the rank's later MPI calls, as the leaf levels of a
 * broadcast (RANK rounds at the end) do.
 *
 * Messages of collectives travel through the rank's collective mailbox (mpi/p2p.h), matched by
 * (communicator context, source, tag = the collective's sequence number on the communicator),
 * never mixed with the program's point-to-point traffic: any number of collectives may be
 * outstanding on a communicator, beside point-to-point messages on the same one.
 *
 * The engine of a rank (its mailbox's matching, its schedules) belongs to whoever holds its
 * lock: the rank or its progress thread. The lock is only tried, never waited for with a yield,
 * and never held across a yield.
 *
 * The collective mailbox also carries active messages, which the engine's holder runs as they
 * come: a dynamic broadcast (bcast_dynamic.c) travels as active messages that the runtime of
 * each destination forwards down its tree, then hands to the program as a point-to-point
 * message.
 */
#ifndef TM_NBC_H
#define TM_NBC_H

#include <stdbool.h>
#include <stddef.h>

#include "obj/datatype.h"
#include "obj/obj.h"
#include "obj/op.h"

typedef struct tm_p2p_request tm_p2p_request_t; /* p2p/p2p.h */
typedef struct tm_nbc_engine tm_nbc_engine_t;
typedef struct tm_nbc_sched tm_nbc_sched_t;

/* Where a round may run. */
typedef enum tm_nbc_where {
    TM_NBC_ANY,  /* the rank or its progress thread */
    TM_NBC_RANK, /* the rank only */
} tm_nbc_where_t;

/* ---- the engine of a rank ---- */

/* Creates r->nbc and its progress thread (at MPI_Init). 0 or -ENOMEM. */
int tm_nbc_engine_create(tm_mpi_rank_t *r);

/* Ends r's progress thread and frees r->nbc (at MPI_Finalize), once the rank has forwarded the
 * dynamic broadcasts that came to it. Schedules still under way (an erroneous program) are
 * abandoned. */
void tm_nbc_engine_destroy(tm_mpi_rank_t *r);

/* true while the engine has work: schedules under way, dynamic broadcasts to forward, messages
 * in its mailbox (a hint: no lock). */
bool tm_nbc_has_work(const tm_nbc_engine_t *e);

/* true while schedules are under way (a hint: no lock). */
bool tm_nbc_has_schedules(const tm_nbc_engine_t *e);

/* false when the rank has no progress thread ([placement] progress = none): its own MPI calls
 * then do all of the engine's work. */
bool tm_nbc_has_progress_thread(const tm_nbc_engine_t *e);

/* Progresses the schedules of engine e: the rank's (`by_rank`) or its progress thread's. Returns
 * true when it did something, or when another holds the engine (it is progressing). */
bool tm_nbc_progress(tm_nbc_engine_t *e, bool by_rank);

/* ---- dynamic broadcasts (bcast_dynamic.c) ---- */

/* Registers the handler of dynamic broadcasts' active messages (once, at MPI_Init). */
void tm_nbc_bcast_dynamic_init(void);

/* Starts the dynamic broadcast of (buf, count, type) from rank r (the root) to the ndests ranks
 * `dests` of comm, already checked (in comm, distinct, not r), with `tag`: each receives it as a
 * point-to-point message from r, in order with r's other messages to it. req (a send request of
 * r) completes when buf may be reused. 0, or -ENOMEM with nothing sent. */
int tm_nbc_bcast_dynamic(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *buf, size_t count,
                         tm_mpi_type_t *type, const int *dests, int ndests, int tag,
                         tm_p2p_request_t *req);

/* ---- building a schedule ---- */

/* The test of a TM_NBC_POLL action (tm_nbc_sched_poll). */
typedef bool (*tm_nbc_ready_fn_t)(void *obj, uint64_t target, int *cursor);

/* A new empty schedule of rank r for a collective on comm, with `scratch` bytes of temporary
 * memory (tm_nbc_sched_scratch). The collective's tag is taken from the communicator now: every
 * member must create its schedules in the same order. NULL when out of memory. */
tm_nbc_sched_t *tm_nbc_sched_create(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, size_t scratch);

/* The schedule's temporary memory (aligned for any type), freed with it. */
void *tm_nbc_sched_scratch(tm_nbc_sched_t *s);

/* Actions, appended to the current round. Buffers must stay valid until the schedule ends;
 * types and ops are retained by the schedule. Peers are ranks in the communicator. Errors
 * (out of memory) stick to the schedule and are reported by tm_nbc_sched_start. */
void tm_nbc_sched_send(tm_nbc_sched_t *s, const void *buf, size_t count, tm_mpi_type_t *type,
                       int peer);
void tm_nbc_sched_recv(tm_nbc_sched_t *s, void *buf, size_t count, tm_mpi_type_t *type, int peer);
/* inout = in op inout, count elements of type. */
void tm_nbc_sched_op(tm_nbc_sched_t *s, const void *in, void *inout, size_t count,
                     tm_mpi_type_t *type, tm_mpi_op_t *op);
/* Copies the data of (src, scount, stype) into (dst, dcount, dtype), type to type. */
void tm_nbc_sched_copy(tm_nbc_sched_t *s, const void *src, size_t scount, tm_mpi_type_t *stype,
                       void *dst, size_t dcount, tm_mpi_type_t *dtype);

/* Waits, as an action of the current round, until ready(obj, target, &cursor) returns true:
 * asked by whoever runs the round (the lock holder), at every pass until then, with a cursor
 * (0 at first) it may keep its place in. For a condition that other ranks make true by writing
 * shared memory; they poke the ranks that may sleep on it. */
void tm_nbc_sched_poll(tm_nbc_sched_t *s, tm_nbc_ready_fn_t ready, void *obj, uint64_t target);

/* Ends the current round (if it has actions); the next actions go to a new round that runs
 * `where`. */
void tm_nbc_sched_barrier(tm_nbc_sched_t *s, tm_nbc_where_t where);

/* Sets where the current round runs (the first round: TM_NBC_ANY unless set). */
void tm_nbc_sched_where(tm_nbc_sched_t *s, tm_nbc_where_t where);

/* Frees a schedule that was not started, or that the engine has finished. */
void tm_nbc_sched_free(tm_nbc_sched_t *s);

/* Starts schedule s for request req (of kind TM_P2P_REQ_COLL, which then owns it): hands it to
 * the engine (and its ANY rounds to the progress thread) and runs what can run without waiting. req
 * completes when the schedule ends. 0, or -ENOMEM (the schedule's sticky error: s is freed, nothing
 * was sent). */
int tm_nbc_sched_start(tm_mpi_rank_t *r, tm_nbc_sched_t *s, tm_p2p_request_t *req);

/* ---- algorithms: each builds the calling rank's schedule of one collective (one file each,
 * named after the algorithm, with its cost and when it is chosen in its opening comment) ----
 *
 * `rank_levels` is the split-tree's S: how many levels of the tree, counted from the leaves, run
 * on the ranks (TM_NBC_RANK rounds); the others run on the progress threads too. A blocking
 * collective passes TM_NBC_ALL_LEVELS. Buffers are the caller's, already resolved (no
 * MPI_IN_PLACE: the caller passes the right buffer). Each returns NULL when out of memory. */
#define TM_NBC_ALL_LEVELS 64

/* ceil(log2 size): the height of a binomial tree over size ranks. */
int tm_nbc_tree_height(int size);

tm_nbc_sched_t *tm_nbc_bcast_binomial(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, void *buf,
                                      size_t count, tm_mpi_type_t *type, int root, int rank_levels);

/* The rooted all-to-one and one-to-all algorithms come in three forms, so that other collectives
 * can be built of them (allreduce: reduce then broadcast; reduce_scatter: reduce then scatterv):
 *   tm_nbc_X(r, comm, ...)             a new schedule holding the collective;
 *   tm_nbc_X_add(s, comm, ..., tmp)   the same rounds appended to schedule s, after its current
 *                                      round (whose actions complete first);
 *   tm_nbc_X_scratch(comm, ...)        the bytes of temporary memory tmp must have (a multiple
 *                                      of 64; tmp 64-byte aligned, alive until s ends), for the
 *                                      same arguments as _add; 0 when it needs none.
 * Arguments marked "root only" are not used elsewhere (may be NULL). */

/* Reduce (reduce_binomial.c): recvbuf of the root gets op over every rank's (sendbuf, count,
 * type), in rank order when op is not commutative. At the root, sendbuf == recvbuf is in place
 * (its data is in recvbuf); recvbuf: root only. */
tm_nbc_sched_t *tm_nbc_reduce_binomial(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                       void *recvbuf, size_t count, tm_mpi_type_t *type,
                                       tm_mpi_op_t *op, int root, int rank_levels);
void tm_nbc_reduce_binomial_add(tm_nbc_sched_t *s, const tm_mpi_comm_t *comm, const void *sendbuf,
                                void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                                int root, int rank_levels, void *scratch);
size_t tm_nbc_reduce_binomial_scratch(const tm_mpi_comm_t *comm, const void *sendbuf,
                                      const void *recvbuf, size_t count, const tm_mpi_type_t *type,
                                      const tm_mpi_op_t *op, int root);

/* Gather (gather_binomial.c): every rank's (sendbuf, sendcount, sendtype) to the root's recvbuf,
 * as block `rank` of recvcount recvtype elements. Every block has the same size in bytes. At the
 * root, sendbuf == its own block in recvbuf with the same count and type is in place; recvbuf,
 * recvcount, recvtype: root only. */
tm_nbc_sched_t *tm_nbc_gather_binomial(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                       size_t sendcount, tm_mpi_type_t *sendtype, void *recvbuf,
                                       size_t recvcount, tm_mpi_type_t *recvtype, int root,
                                       int rank_levels);
void tm_nbc_gather_binomial_add(tm_nbc_sched_t *s, const tm_mpi_comm_t *comm, const void *sendbuf,
                                size_t sendcount, tm_mpi_type_t *sendtype, void *recvbuf,
                                size_t recvcount, tm_mpi_type_t *recvtype, int root,
                                int rank_levels, void *scratch);
size_t tm_nbc_gather_binomial_scratch(const tm_mpi_comm_t *comm, size_t sendcount,
                                      const tm_mpi_type_t *sendtype, size_t recvcount,
                                      const tm_mpi_type_t *recvtype, int root);

/* Scatter (scatter_binomial.c): block `rank` of the root's sendbuf (sendcount sendtype elements
 * per block) to every rank's (recvbuf, recvcount, recvtype). Every block has the same size in
 * bytes. At the root, recvbuf == its own block in sendbuf with the same count and type is in
 * place; sendbuf, sendcount, sendtype: root only. */
tm_nbc_sched_t *tm_nbc_scatter_binomial(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                        size_t sendcount, tm_mpi_type_t *sendtype, void *recvbuf,
                                        size_t recvcount, tm_mpi_type_t *recvtype, int root,
                                        int rank_levels);
void tm_nbc_scatter_binomial_add(tm_nbc_sched_t *s, const tm_mpi_comm_t *comm, const void *sendbuf,
                                 size_t sendcount, tm_mpi_type_t *sendtype, void *recvbuf,
                                 size_t recvcount, tm_mpi_type_t *recvtype, int root,
                                 int rank_levels, void *scratch);
size_t tm_nbc_scatter_binomial_scratch(const tm_mpi_comm_t *comm, size_t sendcount,
                                       const tm_mpi_type_t *sendtype, size_t recvcount,
                                       const tm_mpi_type_t *recvtype, int root);

/* Gatherv (gatherv_linear.c): every rank's (sendbuf, sendcount, sendtype) to the root's
 * (recvbuf + displs[rank] extents, recvcounts[rank], recvtype). At the root, sendbuf == its own
 * block with the same count and type is in place; recvbuf, recvcounts, displs, recvtype: root
 * only (read while building: they need not outlive the call). Needs no scratch. */
tm_nbc_sched_t *tm_nbc_gatherv_linear(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                      size_t sendcount, tm_mpi_type_t *sendtype, void *recvbuf,
                                      const int *recvcounts, const int *displs,
                                      tm_mpi_type_t *recvtype, int root, int rank_levels);
void tm_nbc_gatherv_linear_add(tm_nbc_sched_t *s, const tm_mpi_comm_t *comm, const void *sendbuf,
                               size_t sendcount, tm_mpi_type_t *sendtype, void *recvbuf,
                               const int *recvcounts, const int *displs, tm_mpi_type_t *recvtype,
                               int root, int rank_levels);

/* Scatterv (scatterv_linear.c): the root's (sendbuf + displs[i] extents, sendcounts[i], sendtype)
 * to rank i's (recvbuf, recvcount, recvtype). At the root, recvbuf == its own block with the same
 * count and type is in place; sendbuf, sendcounts, displs, sendtype: root only (read while
 * building). Needs no scratch. */
tm_nbc_sched_t *tm_nbc_scatterv_linear(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                       const int *sendcounts, const int *displs,
                                       tm_mpi_type_t *sendtype, void *recvbuf, size_t recvcount,
                                       tm_mpi_type_t *recvtype, int root, int rank_levels);
void tm_nbc_scatterv_linear_add(tm_nbc_sched_t *s, const tm_mpi_comm_t *comm, const void *sendbuf,
                                const int *sendcounts, const int *displs, tm_mpi_type_t *sendtype,
                                void *recvbuf, size_t recvcount, tm_mpi_type_t *recvtype, int root,
                                int rank_levels);

/* Prefix reduction: recvbuf of rank r gets the data of ranks 0 .. r (`exclusive`: 0 .. r - 1)
 * reduced in rank order; exclusive, rank 0's recvbuf is not touched. sendbuf == recvbuf: in
 * place (the data is taken from recvbuf). */
tm_nbc_sched_t *tm_nbc_scan_recdoubling(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                        void *recvbuf, size_t count, tm_mpi_type_t *type,
                                        tm_mpi_op_t *op, bool exclusive, int rank_levels);

/* Reduce-scatter: block j of every rank's sendbuf (counts[j] elements, the blocks back to back;
 * counts NULL: `block` elements each) reduced in rank order into rank j's recvbuf. The counts
 * are the same on every rank. sendbuf == recvbuf: in place (the blocks are in recvbuf, the
 * result goes to its start). */
tm_nbc_sched_t *tm_nbc_reduce_scatter_pairwise(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                               const void *sendbuf, void *recvbuf,
                                               const int *counts, size_t block, tm_mpi_type_t *type,
                                               tm_mpi_op_t *op, int rank_levels);

/* One transfer of a neighbourhood collective: count elements of type at buf, to or from peer. */
typedef struct tm_nbc_xfer {
    void *buf;
    size_t count;
    tm_mpi_type_t *type;
    int peer;
} tm_nbc_xfer_t;

/* A neighbourhood collective: the receives, then the sends, each posted in the order given (the
 * order in which messages between the same two ranks are matched). */
tm_nbc_sched_t *tm_nbc_neighbor_linear(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                       const tm_nbc_xfer_t *recvs, int nrecvs,
                                       const tm_nbc_xfer_t *sends, int nsends, int rank_levels);

/* Barrier (barrier_dissemination.c). */
tm_nbc_sched_t *tm_nbc_barrier_dissemination(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                             int rank_levels);

/* Blocks of data, one per member, in a buffer (blocks.h): allgather(v)'s receive buffer,
 * alltoall(v,w)'s buffers. Read while building: need not outlive the call. */
typedef struct tm_nbc_blocks tm_nbc_blocks_t;

/* Allgather(v): every rank's (sendbuf, sendcount, sendtype) to block `rank` of every rank's recv.
 * sendtype NULL: in place (each rank's block is in its recv already). Recursive doubling needs a
 * power-of-two size and blocks that follow each other with no counts, displs or types arrays
 * (MPI_Allgather's); Bruck's algorithm and the ring take any (MPI_Allgatherv's). */
tm_nbc_sched_t *tm_nbc_allgather_recdoubling(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                             const void *sendbuf, size_t sendcount,
                                             tm_mpi_type_t *sendtype, const tm_nbc_blocks_t *recv,
                                             int rank_levels);
tm_nbc_sched_t *tm_nbc_allgather_bruck(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                       size_t sendcount, tm_mpi_type_t *sendtype,
                                       const tm_nbc_blocks_t *recv, int rank_levels);
tm_nbc_sched_t *tm_nbc_allgather_ring(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                      size_t sendcount, tm_mpi_type_t *sendtype,
                                      const tm_nbc_blocks_t *recv, int rank_levels);

/* Alltoall(v,w): block j of every rank's send to block `rank` of rank j's recv. send NULL: in
 * place (the data is taken from recv, whose blocks then serve both ways). Bruck's algorithm
 * needs equal blocks that follow each other (MPI_Alltoall's); the pairwise exchange takes any. */
tm_nbc_sched_t *tm_nbc_alltoall_bruck(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                      const tm_nbc_blocks_t *send, const tm_nbc_blocks_t *recv,
                                      int rank_levels);
tm_nbc_sched_t *tm_nbc_alltoall_pairwise(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                         const tm_nbc_blocks_t *send, const tm_nbc_blocks_t *recv,
                                         int rank_levels);

/* Allreduce: every rank's recvbuf gets op over every rank's (sendbuf, count, type), in rank
 * order when op is not commutative; sendbuf == recvbuf: in place. Rabenseifner's algorithm
 * needs a commutative op and count >= the largest power of two <= size. The split form
 * (reduce to 0, then broadcast) is the non-blocking one. */
tm_nbc_sched_t *tm_nbc_allreduce_recdoubling(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                             const void *sendbuf, void *recvbuf, size_t count,
                                             tm_mpi_type_t *type, tm_mpi_op_t *op, int rank_levels);
tm_nbc_sched_t *tm_nbc_allreduce_rabenseifner(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                              const void *sendbuf, void *recvbuf, size_t count,
                                              tm_mpi_type_t *type, tm_mpi_op_t *op,
                                              int rank_levels);
tm_nbc_sched_t *tm_nbc_allreduce_split(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *sendbuf,
                                       void *recvbuf, size_t count, tm_mpi_type_t *type,
                                       tm_mpi_op_t *op, int rank_levels);

/* ---- the split-tree ---- */

/* S, the levels of a binomial tree over `size` ranks that run on the application ranks, from
 * [nbc] split_levels: a number (capped to the height), or the model's choice (model.h) with
 * the job's idle cores hosting the progress threads. `doubling`: the data doubles per level
 * toward the root (scatter, gather). */
int tm_nbc_split_levels(int size, bool doubling);

#endif /* TM_NBC_H */
