/*
 * ThreadMPI nbc/: the schedule engine of the collectives, for coll/ (their algorithms build the
 * schedules) and mpi/ (which makes and ends each rank's engine).
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
 * Messages of collectives travel through the rank's collective mailbox (p2p/p2p.h), matched by
 * (communicator context, source, tag = the collective's sequence number on the communicator),
 * never mixed with the program's point-to-point traffic: any number of collectives may be
 * outstanding on a communicator, beside point-to-point messages on the same one.
 *
 * The engine of a rank (its mailbox's matching, its schedules) belongs to whoever holds its
 * lock: the rank or its progress thread. The lock is only tried, never waited for with a yield,
 * and never held across a yield.
 *
 * The collective mailbox also carries active messages, which the engine's holder runs as they
 * come (p2p/ hands each to the handler registered for its kind): a dynamic broadcast
 * (coll/bcast_dynamic.c) travels as active messages that the runtime of each destination
 * forwards down its tree, then hands to the program as a point-to-point message.
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

/* ---- building a schedule ---- */

/* The test of a TM_NBC_POLL action (tm_nbc_sched_poll). */
typedef bool (*tm_nbc_ready_fn_t)(void *obj, uint64_t target, int *cursor);

/* A new empty schedule of rank r for a collective on comm, with `scratch` bytes of temporary
 * memory (tm_nbc_sched_scratch). The collective's tag is taken from the communicator now: every
 * member must create its schedules in the same order. Its low 16 bits number the schedule among
 * the communicator's; the next 15 are comm->coll_tag_sig, the signature of the collective call
 * (coll/check.h), so that a message of another call never matches. NULL when out of memory. */
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
/* tm_nbc_sched_poll for a ready function that reads or writes buffers of `type` and combines
 * them with `op` (either NULL): the schedule holds a reference to each until it is freed, so that
 * the program may free its handles while the collective is under way. */
void tm_nbc_sched_poll_data(tm_nbc_sched_t *s, tm_nbc_ready_fn_t ready, void *obj, uint64_t target,
                            tm_mpi_type_t *type, tm_mpi_op_t *op);

/* Makes s's request complete with MPI error class `err` (a ready function that found the
 * members' data of different sizes: MPI_ERR_TRUNCATE), unless it has an error already. */
void tm_nbc_sched_fail(tm_nbc_sched_t *s, int err);

/* Ends the current round (if it has actions); the next actions go to a new round that runs
 * `where`. */
void tm_nbc_sched_barrier(tm_nbc_sched_t *s, tm_nbc_where_t where);

/* Sets where the current round runs (the first round: TM_NBC_ANY unless set). */
void tm_nbc_sched_where(tm_nbc_sched_t *s, tm_nbc_where_t where);

/* Makes s stop as soon as *flag is nonzero (the communicator broke: coll/check.h): its receives
 * under way are withdrawn, its later rounds skipped, and its request completes with
 * MPI_ERR_OTHER. A send still under way (one whose receiver never takes it) keeps the
 * schedule's memory for good. release(arg) runs once s no longer reads *flag (it is freed). */
void tm_nbc_sched_abort_on(tm_nbc_sched_t *s, const _Atomic int *flag, void (*release)(void *arg),
                           void *arg);

/* Frees a schedule that was not started, or that the engine has finished. */
void tm_nbc_sched_free(tm_nbc_sched_t *s);

/* Starts schedule s for request req (of kind TM_P2P_REQ_COLL, which then owns it): hands it to
 * the engine (and its ANY rounds to the progress thread) and runs what can run without waiting. req
 * completes when the schedule ends. 0, or -ENOMEM (the schedule's sticky error: s is freed, nothing
 * was sent). */
int tm_nbc_sched_start(tm_mpi_rank_t *r, tm_nbc_sched_t *s, tm_p2p_request_t *req);

/* ---- the split-tree ----
 *
 * A collective's algorithm runs the last `rank_levels` levels of its tree (S, counted from the
 * leaves) on the rank (TM_NBC_RANK rounds) and the others on the progress threads too. A
 * blocking collective runs them all on the rank: TM_NBC_ALL_LEVELS. */
#define TM_NBC_ALL_LEVELS 64

/* ceil(log2 size): the height of a binomial tree over size ranks. */
int tm_nbc_tree_height(int size);

/* S, the levels of a binomial tree over `size` ranks that run on the application ranks, from
 * [nbc] split_levels: a number (capped to the height), or the model's choice (model.h) with
 * the job's idle cores hosting the progress threads. `doubling`: the data doubles per level
 * toward the root (scatter, gather). */
int tm_nbc_split_levels(int size, bool doubling);

#endif /* TM_NBC_H */
