/*
 * ThreadMPI p2p/: the point-to-point engine, for the layers above (nbc/, coll/, mpi/): requests,
 * sending and receiving, matching, progress and waiting, active messages, hang notes.
 *
 *   sender rank S                                   receiver rank R (owns the matching)
 *   cell = tm_shm_cell_alloc(S's pool)
 *   envelope {ctx, src, tag, bytes, protocol}
 *   EAGER:  data packed in the cell                 progress: pop cells of R's mailbox,
 *   SOURCE: the cell points at S's buffer ------>   match each against R's posted receives,
 *           and at S's request (rendezvous)         else keep it as unexpected (arrival order)
 *   push to R's mailbox, poke R                     EAGER:  unpack into the receive buffer
 *                                                   SOURCE: one copy from S's buffer straight
 *   S's request completes <------------------------         into the receive buffer, then
 *   (S is poked if it sleeps)                               complete S's request and poke S
 *   (S, waiting, copies chunks of a large message too: copy.c)
 *
 * Matching keeps MPI's order: cells of one sender leave the mailbox in the order sent, the
 * unexpected list keeps arrival order and the posted list posting order. Both lists are per rank,
 * keyed by the communicator's context id: a message may arrive for a communicator before this
 * rank has made its own view of it, so one list per rank is needed anyway.
 *
 * Each rank has two receiving sides (tm_p2p_matcher_t, each with its mailbox): one for the
 * program's point-to-point traffic and one for its collectives (nbc/), so that the rank's
 * progress thread can match collective messages without touching the program's lists.
 *
 * Mailboxes exist for every world rank from the first MPI_Init of any rank on, so that a message
 * to a rank that has not called MPI_Init yet waits in its mailbox. They live until the process
 * ends, with the cell pools: cells may still sit in mailboxes when their sender finalizes.
 *
 * Active messages. A cell of protocol AM is not matched: the receiving side hands it to the
 * handler registered for its kind (tm_p2p_am_register), which owns it from then on. Only the
 * collective side receives them: that is how a dynamic broadcast (coll/bcast_dynamic.c) reaches
 * a rank's runtime without the program.
 *
 * Order with dynamic broadcasts. A dynamic broadcast reaches a destination through other ranks,
 * so a plain send of its root issued later could overtake it. Each rank therefore counts, per
 * destination, the dynamic broadcasts it sent there (dyn_sent); every message it sends carries
 * that count (dyn_seq), and each dynamic broadcast its own number. A receiving side counts the
 * ones it has taken in from each root (dyn_delivered) and holds back, in arrival order, any cell
 * whose number is not that count yet: a plain send waits for the broadcasts sent before it, a
 * broadcast for the earlier ones. Ranks that never root a dynamic broadcast send 0 and pay one
 * comparison per message.
 *
 * Cancelling a send: see message.h. How a message reaches a peer, and where another transport
 * would plug in: transport.h.
 *
 * Upward calls. A rank's waits have more to do than its point-to-point traffic: its collective
 * schedules and their mailbox (nbc/). p2p/ never calls nbc/: nbc/ hands each rank's progress a
 * hook (tm_p2p_hook_set) when it makes the rank's engine, and a request of a collective carries
 * what frees its schedule.
 */
#ifndef TM_P2P_H
#define TM_P2P_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "obj/datatype.h"
#include "obj/obj.h"
#include "obj/op.h"
#include "sched/sched.h"
#include "shm/shm.h"

/* Cells carry the envelope and, for eager messages, the data: up to [p2p] eager_limit bytes of
 * it (4 KiB by default, as Open MPI's shared-memory transport). Larger messages and synchronous
 * sends go by rendezvous. Active messages get at least TM_P2P_AM_MIN_PAYLOAD bytes after the
 * envelope, whatever the eager limit. */
#define TM_P2P_AM_MIN_PAYLOAD 1024

/* Cell classes: a side sends from TM_P2P_CELL_CLASSES pools, of cells of 128 bytes, 256, ...
 * (each twice the last) and, the last, full cells (the eager limit, or an active message's
 * capacity). A message takes the smallest cell it fits, so that one kept as unexpected holds
 * memory in proportion to its size: 128 bytes for up to 72 of data. Classes as large as the full
 * cell or larger are not made (tm_p2p_job.cell_classes). */
#define TM_P2P_CELL_CLASSES    8
#define TM_P2P_CELL_CLASS_FULL (TM_P2P_CELL_CLASSES - 1)
#define TM_P2P_CELL_CLASS_MIN  128 /* bytes of a class-0 cell, links and envelope included */

typedef struct tm_p2p_request tm_p2p_request_t;

/* Fastboxes (fastbox.h): at most TM_P2P_FASTBOX_MAX into one receiving side, each a ring of
 * TM_P2P_FASTBOX_CELLS cells of two cache lines (eager messages of up to 72 bytes). */
#define TM_P2P_FASTBOX_MAX   8
#define TM_P2P_FASTBOX_CELLS 64
#define TM_P2P_FASTBOX_LINES 2
typedef struct tm_p2p_fastbox tm_p2p_fastbox_t;

/* A rendezvous copy that the receiving side shares with the sender (copy.c). */
typedef struct tm_p2p_copy_job tm_p2p_copy_job_t;

/* ---- receiving sides ---- */

/* A mailbox: where messages to one of a world rank's two receiving sides arrive. */
typedef struct tm_p2p_mailbox {
    tm_shm_queue_t inbound;
    /* A rank of another process: the network thread drains this mailbox (transport.h). */
    bool remote;
    /* Who sleeps waiting for this mailbox, else NULL: whoever gives it something to do (a
     * message, a completion) pokes both. `sleeper` is the rank's ULT; `helper` its progress
     * thread (collective mailboxes only) when it has rounds of schedules to run. A progress
     * thread with none sleeps as `am_helper` only, which active messages alone wake
     * (tm_p2p_am_send): the rank runs its own rounds, and waking the thread for their messages
     * only puts it in the rank's way (nbc/engine.c). */
    alignas(TM_SHM_CACHE_LINE) tm_sched_ult_t *_Atomic sleeper;
    tm_sched_ult_t *_Atomic helper;
    tm_sched_ult_t *_Atomic am_helper;
    /* A copy of a rendezvous message sent from this side that its receiver offers to share:
     * whoever waits on this side takes it (copy.c). */
    tm_p2p_copy_job_t *_Atomic copy_offer;
    /* The cells sent from this side, by class (tm_p2p_cell_alloc), made at the rank's MPI_Init;
     * classes the job does not use are NULL. */
    tm_shm_pool_t *pools[TM_P2P_CELL_CLASSES];
    /* A pool grew (a burst of messages not received yet): the side's sender gives the chunks
     * back once the cells are all free (tm_p2p_matcher_trim). Written by that sender only. */
    bool pools_grown;
    /* The fastboxes into this side, which its consumer polls after the queue: added by the
     * consumer (others read them as hints, for idleness); `fastboxes_taken` counts those the
     * senders reserved, up to TM_P2P_FASTBOX_MAX. */
    alignas(TM_SHM_CACHE_LINE) tm_p2p_fastbox_t *_Atomic fastboxes[TM_P2P_FASTBOX_MAX];
    _Atomic int nfastboxes;
    _Atomic int fastboxes_taken;
    /* An active message came since the progress thread last looked (collective mailboxes): the
     * thread polls this line alone, where the queue's and the fastboxes' lines move with every
     * message to the rank (nbc/engine.c). */
    alignas(TM_SHM_CACHE_LINE) _Atomic bool am_posted;
} tm_p2p_mailbox_t;

/* Rendezvous copies of this many bytes or more are shared with a sender that waits (copy.c). */
#define TM_P2P_COPY_SHARED_BYTES ((size_t)512 * 1024)

/* The sending side's share of the copies offered to `mailbox` (copy.c): takes the one offered,
 * if any, and copies chunks of it until none is left; true when it copied. Whoever waits on
 * that side asks: the rank in its waits, and a progress thread alone on its core whose schedule
 * waits for its sends (nbc/engine.c). Inline: every progress pass asks. */
bool tm_p2p_copy_help_offered(tm_p2p_mailbox_t *mailbox);
static inline bool tm_p2p_copy_help(tm_p2p_mailbox_t *mailbox)
{
    return atomic_load_explicit(&mailbox->copy_offer, memory_order_relaxed) &&
           tm_p2p_copy_help_offered(mailbox);
}

/* The messages that arrived before their receive, in bins by source (the sender's rank in its
 * communicator, modulo TM_P2P_UNEXPECTED_BINS), each in arrival order, linked through
 * cell->next. A receive from one source searches its bin only: a sender that runs ahead (a leaf
 * of a tree of reductions, round after round) then no longer lengthens every other sender's
 * search. One from MPI_ANY_SOURCE takes the earliest arrival among the bins' first matches. */
#define TM_P2P_UNEXPECTED_BINS 64
typedef struct tm_p2p_unexpected {
    tm_shm_cell_t *head[TM_P2P_UNEXPECTED_BINS], *tail[TM_P2P_UNEXPECTED_BINS];
    uint64_t nonempty; /* bit b: bin b holds a message */
    uint32_t arrivals; /* messages kept so far: the next one's number (it wraps) */
} tm_p2p_unexpected_t;

/* A receiving side's matching state: its mailbox, the receives posted and the messages that
 * arrived before their receive. Owned by one thread at a time: the rank's for point-to-point,
 * the holder of the collective engine's lock for collectives. */
typedef struct tm_p2p_matcher {
    tm_p2p_mailbox_t *mailbox;
    int world_rank;       /* whose side this is */
    uint64_t last_ticket; /* of the sends from this side (message.h, "Cancelling a send") */
    tm_p2p_request_t *posted_head, *posted_tail;
    tm_p2p_unexpected_t unexpected;
    /* Order with dynamic broadcasts (the program's side; NULL until needed): per world rank,
     * the dynamic broadcasts this rank sent it as root, and those of it taken in here; the
     * cells held back meanwhile, in arrival order. */
    uint32_t *dyn_sent;
    uint32_t *dyn_delivered;
    tm_shm_cell_t *held_head, *held_tail;
    /* Fastboxes (NULL until needed): per world rank, this side's fastbox to its side of the same
     * kind (sending) and its fastbox into this side (receiving). */
    tm_p2p_fastbox_t **fastbox_to;
    tm_p2p_fastbox_t **fastbox_from;
} tm_p2p_matcher_t;

/* The sender of m's side, at a moment without sends: when a pool of the side grew, gives its
 * chunks back if all its cells are free again (tm_shm_pool_trim). A test otherwise. */
void tm_p2p_mailbox_pools_trim(tm_p2p_mailbox_t *mb);
static inline void tm_p2p_matcher_trim(tm_p2p_matcher_t *m)
{
    if (__builtin_expect(m->mailbox->pools_grown, 0))
        tm_p2p_mailbox_pools_trim(m->mailbox);
}

/* ---- requests ---- */

typedef enum tm_p2p_request_kind {
    TM_P2P_REQ_SEND,
    TM_P2P_REQ_RECV,
    TM_P2P_REQ_MESSAGE,    /* a message taken by MPI_Mprobe/MPI_Improbe (MPI_Message handle) */
    TM_P2P_REQ_PERSISTENT, /* MPI_*_init: the arguments, and the operation of its activation */
    TM_P2P_REQ_COLL,       /* a non-blocking collective: its schedule (nbc/) */
    TM_P2P_REQ_GREQ,       /* a generalized request (MPI_Grequest_start, mpi/greq.c) */
    TM_P2P_REQ_CHECKED,    /* completed by its owner's check, `settle`: MPI_Isendrecv (a send and
                            * a receive, complete when both are), MPI_Buffer_iflush */
} tm_p2p_request_kind_t;

/* The bits of a generalized request's `complete` word (mpi/greq.c). */
#define TM_P2P_GREQ_DONE       1u /* MPI_Grequest_complete was called */
#define TM_P2P_GREQ_FREED      2u /* MPI_Request_free was called before that */
#define TM_P2P_GREQ_RELEASABLE 4u /* FREED, and the free function has returned */

/* What a persistent request does when started. */
typedef enum tm_p2p_persistent_op {
    TM_P2P_PERSIST_SEND,
    TM_P2P_PERSIST_SSEND,
    TM_P2P_PERSIST_RSEND,
    TM_P2P_PERSIST_BSEND,
    TM_P2P_PERSIST_RECV,
    TM_P2P_PERSIST_COLL, /* a collective (mpi/coll_persistent.c): its arguments in `coll` */
} tm_p2p_persistent_op_t;

struct tm_p2p_request {
    tm_p2p_request_kind_t kind;
    _Atomic int complete; /* set with release by whoever completes it */
    MPI_Status status;
    tm_mpi_rank_t *owner;
    tm_mpi_comm_t *comm;
    /* the user's buffer; the type is held (retained) until the request is released */
    void *buf;
    size_t count;
    tm_mpi_type_t *type;
    /* RECV: what to match; SEND: the destination (in source) and the tag */
    int context_id, source, tag;
    const char *call;       /* the MPI call that started it, for hang diagnosis */
    tm_p2p_request_t *next; /* posted list, free list */
    /* MESSAGE: the message, out of the matching lists. SEND: the cell sent and its ticket,
     * for MPI_Cancel (the cell may have been received and reused since: the ticket says); an
     * MPI_Ibsend's request, whose message went from the attached buffer (no cell): the number
     * of that buffered send plus one (mpi/bsend.c). */
    tm_shm_cell_t *cell;
    uint64_t ticket;
    /* PERSISTENT: what to start (buf, count, type, comm, source = peer, tag above), and the
     * operation of the current activation (NULL: inactive). Such an operation points back. */
    tm_p2p_persistent_op_t op;
    tm_p2p_request_t *active;
    tm_p2p_request_t *persistent;
    /* What the layer that made the request frees with it, and how: a COLL's schedule (nbc/), a
     * PAIR's copy of the data it sends (MPI_Isendrecv_replace) */
    void *coll;
    void (*coll_free)(void *coll);
    /* CHECKED: true once its operation is done, which completes it (its owner calls it, through
     * tm_p2p_request_is_complete). MPI_Isendrecv's: its send and its receive, each until seen
     * complete (NULL with MPI_PROC_NULL); the pair's status is the receive's. MPI_Buffer_iflush's:
     * the buffered sends numbered below `ticket`. */
    bool (*settle)(tm_p2p_request_t *req);
    tm_p2p_request_t *parts[2];
    /* CHECKED: what reports its error in the call that completes it, with its argument, instead
     * of its communicator's handler (a file access: its file's, mpi/file_access.c); else NULL */
    int (*raise)(void *ctx, const char *call, int errclass);
    void *raise_ctx;
    int ndests; /* MPIX_Ibcast_dynamic's destinations (SEND), for diagnosis */
    /* GREQ: the program's callbacks and their argument, and the request's index in the
     * process-wide table of generalized requests (its handle works from any thread) */
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
    int greq_index;
    int handle_index; /* in the owner's request table */
    bool freed;       /* MPI_Request_free'd while pending: drop it when it completes */
};

/* The collectives' share of a rank's progress (see "Upward calls" above): what nbc/ registers
 * for each rank, with its engine as `ctx`. */
typedef struct tm_p2p_hook {
    /* Runs the work, as the rank; true when it did something. */
    bool (*progress)(void *ctx);
    /* It has work: under way, or arrived (a hint, read without a lock). */
    bool (*pending)(const void *ctx);
    /* The rank must keep running it, even for a moment: work under way, or nobody else (no
     * progress thread) to take in what arrives (a hint). */
    bool (*needs_rank)(const void *ctx);
} tm_p2p_hook_t;

/* Per-rank point-to-point state (in tm_mpi_rank_t). Only the rank's own thread touches it. */
typedef struct tm_p2p {
    tm_p2p_matcher_t match;
    /* Handle table: handle payload = index + 1; NULL: free. Each request object owns one index
     * from its allocation on and keeps it on the free list, so taking a request is one pop. */
    tm_p2p_request_t **requests;
    int nrequests, requests_cap;
    tm_p2p_request_t *free_requests; /* released requests, linked through next */
    tm_p2p_request_t *zombies;       /* freed by the user while pending, linked through next */
    const tm_p2p_hook_t *hook;       /* the collectives' share of progress, else NULL */
    void *hook_ctx;
} tm_p2p_t;

/* The job's processes (one per host, p2p/net_transport.c), and this one's index among them:
 * 1 and 0 for a job of one process. Fixed from the first MPI_Init of the process on. */
int tm_p2p_net_procs(int *index);

/* Sets up the calling rank's point-to-point state (and every mailbox, the first time). */
int tm_p2p_init(tm_mpi_rank_t *r);
void tm_p2p_finalize(tm_mpi_rank_t *r);

/* Gives r's progress and waits the collectives' share of the work (hook NULL: none again). */
void tm_p2p_hook_set(tm_mpi_rank_t *r, const tm_p2p_hook_t *hook, void *ctx);

/* ---- one receiving side (the program's or the collectives'), for nbc/ ---- */

/* The job's mailboxes, and what is fixed for the job when they are made (mailbox.c, at the
 * first MPI_Init of any rank; read-only from then on). */
typedef struct tm_p2p_job {
    /* Two per world rank: [0, n) the program's point-to-point, [n, 2n) the collectives'. */
    tm_p2p_mailbox_t *mailboxes;
    int nranks;         /* n: the world's size */
    size_t eager_limit; /* [p2p] eager_limit */
    int cell_classes;   /* classes made below the full one: 128 << (cell_classes - 1) is the
                         * largest smaller than a full cell */
    bool notes_read;    /* the job diagnoses hangs: blocked ranks note what they wait for */
    bool net_poll;      /* ranks on other hosts, and no other host's ranks on this process's
                         * cores: waiting ranks poll the network (net_transport.c) */
} tm_p2p_job_t;

extern tm_p2p_job_t tm_p2p_job;

/* Mailbox of world rank `world_rank`: its collective one when `coll`. Inline: every send asks. */
static inline tm_p2p_mailbox_t *tm_p2p_mailbox_get(int world_rank, bool coll)
{
    return &tm_p2p_job.mailboxes[coll ? tm_p2p_job.nranks + world_rank : world_rank];
}

/* Sends (buf, count, type) (`bytes` of data) from the side of matcher m to mailbox `to`, with
 * the envelope (context_id, source, tag); req (the caller's, zeroed or reused) completes when the
 * buffer may be reused. The type must stay alive until then. `failed`: the error class of the
 * sending collective when it has failed already (a truncation on the way), else MPI_SUCCESS;
 * the receive that takes the message then fails with it too, so that an error reaches the
 * members after on the collective's paths. 0 or -ENOMEM. */
int tm_p2p_matcher_send(tm_p2p_matcher_t *m, tm_p2p_request_t *req, const void *buf, size_t count,
                        const tm_mpi_type_t *type, size_t bytes, tm_p2p_mailbox_t *to,
                        int context_id, int source, int tag, bool synchronous, int failed);

/* Posts receive req (whose buf, count and type are set) for (context_id, source, tag) on m;
 * it completes at once when a message taken in already matches. It does not take in the
 * mailbox: messages still there find it posted when they are (tm_p2p_matcher_progress). */
void tm_p2p_matcher_recv(tm_p2p_matcher_t *m, tm_p2p_request_t *req, int context_id, int source,
                         int tag);

/* true when nothing waits in mailbox mb, queue or fastboxes. Exact from its consumer after a
 * seq_cst fence (the sleeper's check); a hint from other threads. */
bool tm_p2p_mailbox_idle(const tm_p2p_mailbox_t *mb);

/* Moves the messages of m's mailbox to their receives or to the unexpected list. Returns true
 * when it did something. */
bool tm_p2p_matcher_progress(tm_p2p_matcher_t *m);

/* Gives back the cells of messages nobody received, completing their rendezvous senders. */
void tm_p2p_matcher_fini(tm_p2p_matcher_t *m);

/* ---- dynamic broadcasts and active messages (coll/bcast_dynamic.c) ---- */

/* A message carrying a dynamic broadcast's data to a destination's program, made from m's pool,
 * not sent: a message of (context_id, source, tag) sent by world rank `origin`, its dyn_seq-th
 * dynamic broadcast to that destination. With `done` NULL the bytes are copied into the cell now
 * (bytes <= tm_p2p_eager_limit()); else the receiver copies from (buf, count, type) and then
 * calls done(done_arg). NULL when out of memory (tm_shm_cell_free gives back one not sent). */
tm_shm_cell_t *tm_p2p_matcher_dyn_make(tm_p2p_matcher_t *m, int context_id, int source, int tag,
                                       int origin, uint32_t dyn_seq, const void *buf, size_t count,
                                       const tm_mpi_type_t *type, size_t bytes,
                                       void (*done)(void *arg), void *done_arg);

/* Sends such a message to the program's side of world rank `to` and wakes it. */
void tm_p2p_dyn_post(tm_shm_cell_t *cell, int to);

/* The root's message of a dynamic broadcast to the program of world rank `to`, through the
 * fastbox of the pair as the root's own sends to it go (m: the root's program side, whose order
 * the pair keeps): a cell of that fastbox, filled as tm_p2p_matcher_dyn_make fills an eager one,
 * not sent. NULL when the data does not fit a fastbox cell or the pair has no fastbox or no room
 * in it: the message then goes by the queue (tm_p2p_matcher_dyn_make). A cell not sent needs no
 * freeing: its fastbox hands it out again. */
tm_shm_cell_t *tm_p2p_matcher_dyn_make_boxed(tm_p2p_matcher_t *m, int to, int context_id,
                                             int source, int tag, uint32_t dyn_seq, const void *buf,
                                             size_t count, const tm_mpi_type_t *type, size_t bytes);

/* Sends such a cell, in its turn in the pair, and wakes the destination. */
void tm_p2p_dyn_post_boxed(tm_p2p_matcher_t *m, tm_shm_cell_t *cell, int to);

/* Makes the counts of the dynamic broadcasts the rank of matcher m (its program's side) sends,
 * the first time. 0 or -ENOMEM. */
int tm_p2p_matcher_dyn_init(tm_p2p_matcher_t *m);

/* The number of this dynamic broadcast among those of m's rank to world rank `dest`: counts it
 * (after tm_p2p_matcher_dyn_init). tm_p2p_matcher_dyn_undo takes back the last one, when nothing
 * was sent to `dest` since. */
uint32_t tm_p2p_matcher_dyn_next(tm_p2p_matcher_t *m, int dest);
void tm_p2p_matcher_dyn_undo(tm_p2p_matcher_t *m, int dest);

/* [p2p] eager_limit: the bytes of data an eager cell carries. */
size_t tm_p2p_eager_limit(void);

/* An active message's cell from m's pool, of kind `kind` (for the receiving side's handler),
 * with tm_p2p_am_capacity() bytes of payload at tm_p2p_am_payload(cell). NULL when out of
 * memory. */
tm_shm_cell_t *tm_p2p_am_alloc(tm_p2p_matcher_t *m, int kind);
size_t tm_p2p_am_capacity(void);
void *tm_p2p_am_payload(tm_shm_cell_t *cell);
int tm_p2p_am_kind(tm_shm_cell_t *cell);

/* Sends active message `cell` to the collective side of world rank `to` and wakes it. */
void tm_p2p_am_send(tm_shm_cell_t *cell, int to);

/* Kinds of active messages, each with one handler for the process. */
enum {
    TM_P2P_AM_BCAST_DYNAMIC, /* a dynamic broadcast's subtree (coll/bcast_dynamic.c) */
    TM_P2P_AM_KINDS
};

/* Runs an active message that came to side m (the collective side, taken in by the holder of
 * its engine's lock): the handler owns `cell`. */
typedef void (*tm_p2p_am_handler_fn_t)(tm_p2p_matcher_t *m, tm_shm_cell_t *cell);

/* Registers the handler of active messages of `kind`, once for the process, before any is sent
 * (at MPI_Init). */
void tm_p2p_am_register(int kind, tm_p2p_am_handler_fn_t handler);

/* ---- the program's point-to-point ---- */

/* Starts a send; the request completes when the buffer may be reused (eager: at once;
 * rendezvous and synchronous: when the receiver has copied the data). */
int tm_p2p_isend(tm_mpi_rank_t *r, const void *buf, size_t count, tm_mpi_type_t *type, size_t bytes,
                 int dest, int tag, tm_mpi_comm_t *comm, bool synchronous,
                 tm_p2p_request_t **req_p);

/* MPI_Send of an eager message (bytes <= tm_p2p_eager_limit()), without a request: the data is
 * in the receiver's mailbox when this returns, and the send cannot be cancelled (nothing names
 * it). 0 or -ENOMEM. */
int tm_p2p_send_eager(tm_mpi_rank_t *r, const void *buf, size_t count, const tm_mpi_type_t *type,
                      size_t bytes, int dest, int tag, tm_mpi_comm_t *comm);

/* MPI_Recv without a request, when it can take the message at once (see "Receiving at once" in
 * match.c). Returns -1 when it did not: the caller is to post a receive and wait. Else the status
 * is filled (unless MPI_STATUS_IGNORE) and the result is its MPI_ERROR: MPI_SUCCESS, or
 * MPI_ERR_TRUNCATE when the message was longer than the buffer. */
int tm_p2p_recv_now(tm_mpi_rank_t *r, void *buf, size_t count, const tm_mpi_type_t *type,
                    int source, int tag, tm_mpi_comm_t *comm, MPI_Status *status);

/* Posts a receive. source and tag may be MPI_ANY_SOURCE / MPI_ANY_TAG. */
int tm_p2p_irecv(tm_mpi_rank_t *r, void *buf, size_t count, tm_mpi_type_t *type, int source,
                 int tag, tm_mpi_comm_t *comm, tm_p2p_request_t **req_p);

/* Looks for a message matching (source, tag) on comm without receiving it; with `block`, waits
 * for one. Returns true and fills status when found. */
bool tm_p2p_probe(tm_mpi_rank_t *r, int source, int tag, tm_mpi_comm_t *comm, bool block,
                  MPI_Status *status);

/* MPI_Mprobe/MPI_Improbe: takes the first message matching (source, tag) out of matching, into
 * a request of kind MESSAGE; with `block`, waits for one. NULL when none (non-blocking). */
tm_p2p_request_t *tm_p2p_mprobe(tm_mpi_rank_t *r, int source, int tag, tm_mpi_comm_t *comm,
                                bool block, MPI_Status *status);

/* MPI_Mrecv/MPI_Imrecv: receives the message of `msg` (which is released) into a new receive
 * request, complete at once. */
tm_p2p_request_t *tm_p2p_mrecv(tm_mpi_rank_t *r, tm_p2p_request_t *msg, void *buf, size_t count,
                               tm_mpi_type_t *type);

/* MPI_Cancel of a receive: true when it was still posted (it is then complete and cancelled). */
bool tm_p2p_cancel_recv(tm_mpi_rank_t *r, tm_p2p_request_t *req);
/* The same for a receive posted on matcher m (the collectives' side: nbc/). */
bool tm_p2p_matcher_cancel_recv(tm_p2p_matcher_t *m, tm_p2p_request_t *req);

/* MPI_Cancel of a send: true when no receiver had matched its message (the request is then
 * complete and cancelled, and no receiver will see the message); false when one had (the send
 * completes normally). */
bool tm_p2p_cancel_send(tm_p2p_request_t *req);

/* Copies n bytes of (src, scount, stype) into (dst, dcount, dtype), type to type, in chunks
 * (copy.c): one memcpy of megabytes would take non-temporal stores, which send the data to
 * memory rather than leave it in cache for its reader. From 512 KiB on (TM_P2P_COPY_SHARED_BYTES),
 * and when world rank `helper` runs on another VP, part of the work is offered to it: if it waits
 * in an MPI call meanwhile, its progress copies chunks from the back while the caller copies from
 * the front (a one-sided access's target, as a rendezvous's sender). */
void tm_p2p_copy(void *dst, size_t dcount, const tm_mpi_type_t *dtype, const void *src,
                 size_t scount, const tm_mpi_type_t *stype, size_t n, int helper);

/* inout = in op inout for count elements of type (tm_mpi_op_apply), shared with world rank
 * `helper` as tm_p2p_copy shares a copy, from 512 KiB of data on (a one-sided
 * accumulate's target). */
void tm_p2p_reduce(const tm_mpi_op_t *op, const void *in, void *inout, size_t count,
                   const tm_mpi_type_t *type, int helper);

/* Moves messages from the rank's mailbox to their receives (or the unexpected list), and
 * progresses its collectives under way. Returns true when it did something. */
bool tm_p2p_progress(tm_mpi_rank_t *r);

/* One round of a non-blocking test (MPI_Test*, MPI_Iprobe): progress; when done(arg) is still
 * false, let the other ranks of this core run once and progress again. A rank polling in a loop
 * thus never starves the ranks of its core that it waits for. */
void tm_p2p_poll(tm_mpi_rank_t *r, bool (*done)(void *arg), void *arg);

/* ---- hang diagnosis (mpcrun --timeout) ----
 * A rank about to sleep in a wait records what it waits for, as values in the runtime's note
 * (runtime/rank.h); they become words only if the diagnosis runs. Ranks sharing a core sleep at
 * nearly every message they wait for: formatting text there (vsnprintf, a thousand
 * instructions each) made a token ring of 16 ranks on 2 cores 40% slower. Even as values, a note
 * (a copy of its communicator's name, 200 bytes handed over) was 8% of the time of the ring
 * exchange with an allreduce (perf, 8 ranks on a core): ranks note only in a job that diagnoses
 * hangs (tm_rt_hangs_diagnosed), the only reader of notes. */

/* One request, for "MPI_Irecv(source=5, tag=7, comm=MPI_COMM_WORLD)". */
typedef struct tm_p2p_request_note {
    const char *call; /* the call that started it (a string constant), or NULL */
    tm_p2p_request_kind_t kind;
    int peer, tag, ndests;
    char comm[48]; /* its communicator's name, cut short */
} tm_p2p_request_note_t;

/* What a blocked rank waits for. */
typedef struct tm_p2p_blocked_note {
    const char *call;   /* the waiting call ("MPI_Waitall"); NULL: the request's own call */
    int count, pending; /* requests waited for, and those not complete; 0 requests: `text` */
    union {
        tm_p2p_request_note_t first; /* the first request not complete */
        char text[192];
    };
} tm_p2p_blocked_note_t;

/* The values of req that its description shows. */
void tm_p2p_request_note(const tm_p2p_request_t *req, tm_p2p_request_note_t *note);

/* "MPI_Irecv(source=5, tag=7, comm=MPI_COMM_WORLD)": a request's note in words. */
void tm_p2p_request_note_words(const tm_p2p_request_note_t *note, char *buf, size_t len);

/* Both: what a request is, in words. */
void tm_p2p_request_describe(const tm_p2p_request_t *req, char *buf, size_t len);

/* Records, for hang diagnosis, what the rank is about to block in, as text: for the rare waits
 * that are not on requests. The wait that follows (tm_p2p_wait_until) clears it when it
 * ends. printf-like. */
void tm_p2p_note_blocked(tm_mpi_rank_t *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Waits until done(arg) is true, progressing, and sleeping until something is given to this
 * rank when another rank of the VP is ready to run, or after polling a while alone. */
void tm_p2p_wait_until(tm_mpi_rank_t *r, bool (*done)(void *arg), void *arg);

/* tm_p2p_wait_until, with the note for hang diagnosis made by note(note_arg, out) only when
 * the rank is about to sleep: most waits end before. A rank that hangs sleeps, so it is noted. */
void tm_p2p_wait_noted(tm_mpi_rank_t *r, bool (*done)(void *arg), void *arg,
                       void (*note)(void *note_arg, tm_p2p_blocked_note_t *out), void *note_arg);

/* tm_p2p_wait_noted, calling sleeps(arg) once before the rank first sleeps in it (NULL: none):
 * what the waiter must leave for others to see should the wait never end (coll/check.h). */
void tm_p2p_wait_sleeping(tm_mpi_rank_t *r, bool (*done)(void *arg), void *arg,
                          void (*note)(void *note_arg, tm_p2p_blocked_note_t *out), void *note_arg,
                          void (*sleeps)(void *arg));

/* A note of tm_p2p_wait_noted for waiting on one request (a tm_p2p_request_t *) in the
 * call that started it (MPI_Recv). */
void tm_p2p_request_blocked_note(void *req, tm_p2p_blocked_note_t *out);

/* tm_p2p_mailbox_poke's wake-ups, when it finds someone asleep. */
void tm_p2p_mailbox_wake(tm_p2p_mailbox_t *mailbox);

/* Wakes whoever sleeps waiting for `mailbox` (tm_p2p_wait_until, a progress thread). Any
 * thread. Inline: every message pokes its receiver, which mostly is awake. */
static inline void tm_p2p_mailbox_poke(tm_p2p_mailbox_t *mailbox)
{
    /* Dekker with the sleeper (see tm_p2p_wait_until): we published work (a cell pushed, a
     * request completed), then look for a sleeper; it publishes itself, then looks for work.
     * The fence keeps our work's store before these loads (a store buffer would let a load pass
     * it), so one side always sees the other and no wake-up is lost. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&mailbox->sleeper, memory_order_relaxed) ||
        atomic_load_explicit(&mailbox->helper, memory_order_relaxed))
        tm_p2p_mailbox_wake(mailbox);
}

/* Wakes the rank only (not the progress thread) if it sleeps waiting for `mailbox`. */
void tm_p2p_mailbox_poke_rank(tm_p2p_mailbox_t *mailbox);

/* tm_p2p_mailbox_poke_rank after the caller's own seq_cst fence, which made its work visible
 * (one fence for several mailboxes). */
void tm_p2p_mailbox_wake_rank(tm_p2p_mailbox_t *mailbox);

/* ---- requests and their handles ---- */

/* Payload bit of the handles of generalized requests: their index in the process-wide table
 * rather than in the owner's. */
#define TM_P2P_GREQ_HANDLE_BIT 0x02000000u

/* Allocates a request object (with its own table index) when the free list is empty. */
tm_p2p_request_t *tm_p2p_request_new_slow(tm_mpi_rank_t *r, tm_p2p_request_kind_t kind);

/* A request of `kind`, cleared, with its handle's table entry; NULL when out of memory. */
static inline tm_p2p_request_t *tm_p2p_request_new(tm_mpi_rank_t *r, tm_p2p_request_kind_t kind)
{
    tm_p2p_t *p = r->p2p;
    tm_p2p_request_t *req = p->free_requests;
    if (__builtin_expect(req == NULL, 0))
        return tm_p2p_request_new_slow(r, kind);
    p->free_requests = req->next;
    int index = req->handle_index;
    memset(req, 0, sizeof *req);
    req->kind = kind;
    req->owner = r;
    req->handle_index = index;
    p->requests[index] = req;
    return req;
}
/* A request of an operation done at once (with MPI_PROC_NULL, or a buffered send): complete,
 * with the status of a receive from MPI_PROC_NULL. NULL when out of memory. */
tm_p2p_request_t *tm_p2p_request_new_done(tm_mpi_rank_t *r, tm_p2p_request_kind_t kind,
                                          tm_mpi_comm_t *comm);
/* A collective's request (TM_P2P_REQ_COLL) of `call` on comm that is over from the start:
 * complete, with an empty status whose error is `err`. NULL when out of memory. */
tm_p2p_request_t *tm_p2p_request_new_coll_done(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                               const char *call, int err);
#define TM_P2P_REQUEST_INVALID ((tm_p2p_request_t *)-1)

/* The request of handle h; NULL for MPI_REQUEST_NULL; TM_P2P_REQUEST_INVALID for a handle that
 * is not one of this rank's live requests. */
tm_p2p_request_t *tm_p2p_request_lookup(tm_mpi_rank_t *r, MPI_Request h);
static inline MPI_Request tm_p2p_request_handle(const tm_p2p_request_t *req)
{
    if (req->kind == TM_P2P_REQ_GREQ)
        return TM_MPI_HANDLE(TM_MPI_KIND_REQUEST,
                             TM_P2P_GREQ_HANDLE_BIT | ((unsigned)req->greq_index + 1));
    return TM_MPI_HANDLE(TM_MPI_KIND_REQUEST, (unsigned)req->handle_index + 1);
}
/* The message (MPI_Mprobe) of handle h, or NULL when h is not one of this rank's messages. */
tm_p2p_request_t *tm_p2p_message_lookup(tm_mpi_rank_t *r, MPI_Message h);
MPI_Message tm_p2p_message_handle(const tm_p2p_request_t *msg);
void tm_p2p_request_release(tm_mpi_rank_t *r, tm_p2p_request_t *req);
/* The view c goes (MPI_Comm_free) while r's requests on it may still be pending, as MPI allows:
 * they forget it (comm NULL: their hang notes name no communicator, their errors go to
 * MPI_COMM_WORLD's handler). */
void tm_p2p_request_forget_comm(tm_mpi_rank_t *r, const tm_mpi_comm_t *c);
/* Waits (progressing) until every request of r's on view c that the program freed while pending
 * (a send, or a receive still posted) is complete (MPI_Comm_disconnect). */
void tm_p2p_request_zombies_wait_comm(tm_mpi_rank_t *r, const tm_mpi_comm_t *c);

/* ---- generalized requests (the calls: mpi/greq.c) ---- */

/* Puts generalized request req in the process-wide table, whose index its handle names (so that
 * any thread may complete it). 0 or -ENOMEM. */
int tm_p2p_greq_register(tm_p2p_request_t *req);
/* The generalized request of handle h (any thread), NULL when there is none. */
tm_p2p_request_t *tm_p2p_greq_lookup(MPI_Request h);
/* Takes generalized request req out of the process-wide table (its release). */
void tm_p2p_greq_unregister(tm_p2p_request_t *req);

/* MPI_Request_free of pending request req: it goes once complete (a generalized one: once its
 * free function has returned), swept by the rank's progress, or at the latest by MPI_Finalize,
 * which waits for it. */
void tm_p2p_request_zombie_add(tm_mpi_rank_t *r, tm_p2p_request_t *req);

/* The `settle` of MPI_Isendrecv's request (its owner only): releases its parts that are complete,
 * and completes it when both are. true when complete. */
bool tm_p2p_pair_settle(tm_p2p_request_t *req);

static inline bool tm_p2p_request_is_complete(tm_p2p_request_t *req)
{
    /* acquire: pairs with the completer's release, so the received data and status are seen.
     * (A generalized request's word has other bits than DONE only once its handle is freed.) */
    if (atomic_load_explicit(&req->complete, memory_order_acquire) != 0)
        return true;
    return __builtin_expect(req->kind == TM_P2P_REQ_CHECKED, 0) && req->settle(req);
}

/* Completes a request of rank `owner_mailbox` and pokes it. */
void tm_p2p_request_complete(tm_p2p_request_t *req, tm_p2p_mailbox_t *owner_mailbox);

/* Copies a completed request's status out (MPI_STATUS_IGNORE allowed). */
void tm_p2p_request_status(const tm_p2p_request_t *req, MPI_Status *status);

/* The status of an operation with MPI_PROC_NULL: source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0. */
void tm_p2p_status_proc_null(MPI_Status *status);

#endif /* TM_P2P_H */
