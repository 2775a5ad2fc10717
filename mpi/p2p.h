/*
 * Point-to-point messaging inside mpi/: mailboxes, envelopes, requests, matching, progress.
 *
 *   sender rank S                                   receiver rank R (owns the matching)
 *   cell = tm_shm_cell_alloc(S's pool)
 *   envelope {ctx, src, tag, bytes, protocol}
 *   EAGER: data packed in the cell                  progress: pop cells of R's mailbox,
 *   RNDV:  the cell points at S's buffer  ------>   match each against R's posted receives,
 *          and at S's request                       else keep it as unexpected (arrival order)
 *   push to R's mailbox, poke R                     EAGER: unpack into the receive buffer
 *                                                   RNDV:  one copy from S's buffer straight into
 *   S's request completes <------------------------        the receive buffer, then complete S's
 *   (S is poked if it sleeps)                              request and poke S
 *   (S, waiting, copies chunks of a large message too: p2p.c, "Shared copies")
 *
 * Matching keeps MPI's order: cells of one sender leave the mailbox in the order sent, the
 * unexpected list keeps arrival order and the posted list posting order. Both lists are per rank,
 * keyed by the communicator's context id: a message may arrive for a communicator before this
 * rank has made its own view of it, so one list per rank is needed anyway.
 *
 * Mailboxes exist for every world rank from the first MPI_Init of any rank on, so that a message
 * to a rank that has not called MPI_Init yet waits in its mailbox. They live until the process
 * ends, with the cell pools: cells may still sit in mailboxes when their sender finalizes.
 *
 * Active messages. A cell of protocol AM is not matched: the receiving side hands it to its
 * handler, which owns it from then on. Only the collective side has one (nbc/ runs it): that is
 * how a dynamic broadcast (nbc/bcast_dynamic.c) reaches a rank's runtime without the program.
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
 * Cancelling a send (MPI_Cancel). Until a receiving side matches a message, its cell may sit in
 * the mailbox (the lock-free queue), in the unexpected list or among the held-back cells, all
 * of them the receiver's. The sender never takes it out of there: ownership of the message is
 * decided by one atomic word of the envelope, `claim`, and the cell stays where it is.
 *
 *   claim = ticket (>= 2): sent, nobody owns it yet  (the sender's number for this send)
 *   sender, MPI_Cancel:  CAS ticket -> CANCELLED     wins: the send is cancelled; the sender
 *                                                    completes its own request and never looks
 *                                                    at the cell again
 *   receiver, matching:  exchange -> TAKEN           got the ticket: the message is the
 *                                                    receiver's (a cancel now fails); got
 *                                                    CANCELLED: it drops the cell unread
 *
 * Whichever RMW comes first in the word's modification order wins, so a message is either
 * received or cancelled, never both. The receiver claims a message only when it delivers it
 * (to a posted receive, to a receive that finds it unexpected, to MPI_Mprobe); kept as
 * unexpected, it stays cancellable, and any walk of the lists drops the cancelled cells it
 * passes. The cell goes back to its pool from the receiver only; the sender's pool hands it
 * out again only to the sender, with a new ticket. That is why the ticket is per send and not
 * a flag: a sender cancelling late, after its cell was received and reused for a later message,
 * finds another ticket there and fails as it should (no ABA). Cells that are not cancellable
 * (collectives, dynamic broadcasts, active messages) are TAKEN from the start.
 */
#ifndef TM_MPI_P2P_H
#define TM_MPI_P2P_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "obj/datatype.h"
#include "mpi_impl.h"
#include "sched/sched.h"
#include "shm/shm.h"

/* Cells carry the envelope and, for eager messages, the data: up to [p2p] eager_limit bytes of
 * it (4 KiB by default, as Open MPI's shared-memory transport). Larger messages and synchronous
 * sends go by rendezvous. Active messages get at least TM_MPI_AM_MIN_PAYLOAD bytes after the
 * envelope, whatever the eager limit. */
#define TM_MPI_AM_MIN_PAYLOAD 1024

/* Context ids of the predefined communicators; collectives will use context_id + 1. */
#define TM_MPI_CONTEXT_WORLD 0
#define TM_MPI_CONTEXT_SELF  2

typedef struct tm_mpi_request tm_mpi_request_t;

/* Fastboxes (see "Fastboxes" in p2p.c): at most TM_MPI_FASTBOX_MAX into one receiving side, each
 * a ring of TM_MPI_FASTBOX_CELLS cells of two cache lines (eager messages of up to 72 bytes). */
#define TM_MPI_FASTBOX_MAX   8
#define TM_MPI_FASTBOX_CELLS 64
#define TM_MPI_FASTBOX_LINES 2
typedef struct tm_mpi_fastbox tm_mpi_fastbox_t;

/* A mailbox: one of a world rank's two receiving sides. Each rank has one for the program's
 * point-to-point traffic and one for its collectives (nbc/), so that the rank's progress thread
 * can match collective messages without touching the program's matching lists. */
/* A rendezvous copy that the receiving side shares with the sender (p2p.c, "Shared copies"):
 * the two layouts, and the chunks, which each side claims one at a time. On the receiving
 * side's stack for as long as the copy lasts. */
typedef struct tm_mpi_copy_job {
    void *dst;
    size_t dst_count;
    const tm_mpi_type_t *dst_type;
    const void *src;
    size_t src_count;
    const tm_mpi_type_t *src_type;
    size_t bytes;
    /* the chunks not claimed yet: [low 32 bits, high 32 bits) */
    alignas(TM_SHM_CACHE_LINE) _Atomic uint64_t left;
    _Atomic bool helper_done; /* the sender took the job and has copied its last chunk */
} tm_mpi_copy_job_t;

typedef struct tm_mpi_mailbox {
    tm_shm_queue_t inbound;
    /* Who sleeps waiting for this mailbox, else NULL: whoever gives it something to do (a
     * message, a completion) pokes both. `sleeper` is the rank's ULT; `helper` its progress
     * thread (collective mailboxes only) when it has rounds of schedules to run. A progress
     * thread with none sleeps as `am_helper` only, which active messages alone wake
     * (tm_mpi_am_send): the rank runs its own rounds, and waking the thread for their messages
     * only puts it in the rank's way (nbc/engine.c). */
    alignas(TM_SHM_CACHE_LINE) tm_sched_ult_t *_Atomic sleeper;
    tm_sched_ult_t *_Atomic helper;
    tm_sched_ult_t *_Atomic am_helper;
    /* A copy of a rendezvous message sent from this side that its receiver offers to share:
     * whoever waits on this side takes it (p2p.c, "Shared copies"). */
    tm_mpi_copy_job_t *_Atomic copy_offer;
    tm_shm_pool_t *pool; /* the cells sent from this side, made at the rank's MPI_Init */
    /* The fastboxes into this side, which its consumer polls after the queue: added by the
     * consumer (others read them as hints, for idleness); `fastboxes_taken` counts those the
     * senders reserved, up to TM_MPI_FASTBOX_MAX. */
    alignas(TM_SHM_CACHE_LINE) tm_mpi_fastbox_t *_Atomic fastboxes[TM_MPI_FASTBOX_MAX];
    _Atomic int nfastboxes;
    _Atomic int fastboxes_taken;
} tm_mpi_mailbox_t;

/* The messages that arrived before their receive, in bins by source (the sender's rank in its
 * communicator, modulo TM_MPI_UNEXPECTED_BINS), each in arrival order, linked through
 * cell->next. A receive from one source searches its bin only: a sender that runs ahead (a leaf
 * of a tree of reductions, round after round) then no longer lengthens every other sender's
 * search. One from MPI_ANY_SOURCE takes the earliest arrival among the bins' first matches. */
#define TM_MPI_UNEXPECTED_BINS 64
typedef struct tm_mpi_unexpected {
    tm_shm_cell_t *head[TM_MPI_UNEXPECTED_BINS], *tail[TM_MPI_UNEXPECTED_BINS];
    uint64_t nonempty; /* bit b: bin b holds a message */
    uint32_t arrivals; /* messages kept so far: the next one's number (it wraps) */
} tm_mpi_unexpected_t;

/* A receiving side's matching state: its mailbox, the receives posted and the messages that
 * arrived before their receive. Owned by one thread at a time: the rank's for point-to-point,
 * the holder of the collective engine's lock for collectives. */
typedef struct tm_mpi_matcher {
    tm_mpi_mailbox_t *mailbox;
    int world_rank;       /* whose side this is */
    uint64_t last_ticket; /* of the sends from this side (see "Cancelling a send") */
    tm_mpi_request_t *posted_head, *posted_tail;
    tm_mpi_unexpected_t unexpected;
    /* Active messages (the collective side): the handler that takes their cells. */
    void (*am_handler)(void *arg, tm_shm_cell_t *cell);
    void *am_arg;
    /* Order with dynamic broadcasts (the program's side; NULL until needed): per world rank,
     * the dynamic broadcasts this rank sent it as root, and those of it taken in here; the
     * cells held back meanwhile, in arrival order. */
    uint32_t *dyn_sent;
    uint32_t *dyn_delivered;
    tm_shm_cell_t *held_head, *held_tail;
    /* Fastboxes (NULL until needed): per world rank, this side's fastbox to its side of the same
     * kind (sending) and its fastbox into this side (receiving). */
    tm_mpi_fastbox_t **fastbox_to;
    tm_mpi_fastbox_t **fastbox_from;
} tm_mpi_matcher_t;

typedef enum tm_mpi_protocol {
    TM_MPI_PROTO_EAGER,   /* data in the cell */
    TM_MPI_PROTO_RNDV,    /* the receiver copies from the sender's buffer */
    TM_MPI_PROTO_SHARED,  /* the receiver copies from data the runtime holds for several
                           * receivers (a dynamic broadcast's), then calls done(done_arg) */
    TM_MPI_PROTO_AM,      /* an active message: for the receiving side's handler, not matched */
    TM_MPI_PROTO_FASTBOX, /* a fastbox opens: the receiving side polls it from now on */
} tm_mpi_protocol_t;

/* What a cell carries before its data: what matching and ordering read, 40 bytes, so that with
 * the cell's links an envelope and 8 bytes of eager data are one cache line. */
typedef struct tm_mpi_envelope {
    int context_id;
    int source; /* sender's rank in the communicator */
    int tag;
    uint8_t protocol; /* tm_mpi_protocol_t */
    bool dyn;         /* a dynamic broadcast's delivery */
    /* Order with dynamic broadcasts (see the opening comment): the world rank of the sending
     * rank (of the root, for a broadcast), and the count of its dynamic broadcasts to this
     * destination before this message (for a broadcast: its own number) */
    int origin;
    uint32_t dyn_seq;
    union {
        /* Order with fastboxes (see p2p.c): the message's number among those the sending side
         * sent to this side since it opened a fastbox to it; 0 before, and for dynamic
         * broadcasts. Used until the message is taken in. */
        uint32_t pair_seq;
        /* Then, kept as unexpected: its number among the arrivals (tm_mpi_unexpected_t). */
        uint32_t arrival;
    };
    uint32_t bytes; /* of data (EAGER, AM); RNDV and SHARED: in tm_mpi_source_data_t */
    /* Who owns the message (see "Cancelling a send" above): TM_MPI_CLAIM_TAKEN, _CANCELLED, or
     * the sender's ticket while nobody does. */
    _Atomic uint64_t claim;
} tm_mpi_envelope_t;

/* What a RNDV or SHARED cell carries in place of data: where the receiver copies from. */
typedef struct tm_mpi_source_data {
    size_t bytes; /* of data */
    /* the sender's buffer and its layout (held by the send request, or by the runtime) */
    const void *buf;
    size_t count;
    const tm_mpi_type_t *type;
    /* RNDV: the request to complete once copied, and the mailbox to poke then */
    tm_mpi_request_t *send_request;
    tm_mpi_mailbox_t *sender_mailbox;
    /* SHARED: called once the data is copied (or the message dropped at MPI_Finalize) */
    void (*done)(void *arg);
    void *done_arg;
} tm_mpi_source_data_t;

#define TM_MPI_CLAIM_TAKEN     0
#define TM_MPI_CLAIM_CANCELLED 1

typedef enum tm_mpi_request_kind {
    TM_MPI_REQ_SEND,
    TM_MPI_REQ_RECV,
    TM_MPI_REQ_MESSAGE,    /* a message taken by MPI_Mprobe/MPI_Improbe (MPI_Message handle) */
    TM_MPI_REQ_PERSISTENT, /* MPI_*_init: the arguments, and the operation of its activation */
    TM_MPI_REQ_COLL,       /* a non-blocking collective: its schedule (nbc/) */
    TM_MPI_REQ_GREQ,       /* a generalized request (MPI_Grequest_start, greq.c) */
} tm_mpi_request_kind_t;

/* The bits of a generalized request's `complete` word (greq.c). */
#define TM_MPI_GREQ_DONE       1u /* MPI_Grequest_complete was called */
#define TM_MPI_GREQ_FREED      2u /* MPI_Request_free was called before that */
#define TM_MPI_GREQ_RELEASABLE 4u /* FREED, and the free function has returned */

/* What a persistent request does when started. */
typedef enum tm_mpi_persistent_op {
    TM_MPI_PERSIST_SEND,
    TM_MPI_PERSIST_SSEND,
    TM_MPI_PERSIST_RSEND,
    TM_MPI_PERSIST_BSEND,
    TM_MPI_PERSIST_RECV,
} tm_mpi_persistent_op_t;

struct tm_mpi_request {
    tm_mpi_request_kind_t kind;
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
    tm_mpi_request_t *next; /* posted list, free list */
    /* MESSAGE: the message, out of the matching lists. SEND: the cell sent and its ticket,
     * for MPI_Cancel (the cell may have been received and reused since: the ticket says). */
    tm_shm_cell_t *cell;
    uint64_t ticket;
    /* PERSISTENT: what to start (buf, count, type, comm, source = peer, tag above), and the
     * operation of the current activation (NULL: inactive). Such an operation points back. */
    tm_mpi_persistent_op_t op;
    tm_mpi_request_t *active;
    tm_mpi_request_t *persistent;
    struct tm_nbc_sched *sched; /* COLL: the schedule, freed with the request */
    int ndests;                 /* MPIX_Ibcast_dynamic's destinations (SEND), for diagnosis */
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

/* A message of MPI_Bsend, packed in the attached buffer until its send completes. */
typedef struct tm_mpi_bsend_region {
    size_t off, len; /* in the attached buffer; len counts MPI_BSEND_OVERHEAD */
    tm_mpi_request_t *send;
    struct tm_mpi_bsend_region *next; /* by offset */
} tm_mpi_bsend_region_t;

/* Per-rank point-to-point state (in tm_mpi_rank_t). Only the rank's own thread touches it. */
typedef struct tm_p2p {
    tm_mpi_matcher_t match;
    /* Handle table: handle payload = index + 1; NULL: free. Each request object owns one index
     * from its allocation on and keeps it on the free list, so taking a request is one pop. */
    tm_mpi_request_t **requests;
    int nrequests, requests_cap;
    tm_mpi_request_t *free_requests; /* released requests, linked through next */
    tm_mpi_request_t *zombies;       /* freed by the user while pending, linked through next */
} tm_mpi_p2p_t;

/* MPI_Bsend's work: packs the message into the attached buffer and sends it from there; the send
 * request returned is internal (the caller's operation is complete). Returns the error class. */
int tm_mpi_bsend_start(tm_mpi_rank_t *r, const char *call, const void *buf, size_t count,
                       tm_mpi_type_t *type, size_t bytes, int dest, int tag, tm_mpi_comm_t *comm);

/* Waits for every buffered send to complete and forgets the attached buffer (MPI_Finalize). */
void tm_mpi_bsend_drain(tm_mpi_rank_t *r);

/* The argument checks of send and receive calls, in the order of their arguments; each reports
 * what it finds (through comm's handler) and returns the error class, or MPI_SUCCESS with the
 * communicator, the type and (sends) the bytes of data resolved. */
int tm_mpi_p2p_check_send(tm_mpi_rank_t *r, const char *call, const void *buf, int count,
                          MPI_Datatype type, int dest, int tag, MPI_Comm handle,
                          tm_mpi_comm_t **comm_p, tm_mpi_type_t **type_p, size_t *bytes_p);
/* A tag to send with (`any` false) or to receive with (`any` true: MPI_ANY_TAG allowed). */
int tm_mpi_p2p_check_tag(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call, int tag,
                         bool any);
int tm_mpi_p2p_check_recv(tm_mpi_rank_t *r, const char *call, void *buf, int count,
                          MPI_Datatype type, int source, int tag, MPI_Comm handle,
                          tm_mpi_comm_t **comm_p, tm_mpi_type_t **type_p);

/* ---- the transport, over one receiving side (the program's or the collectives') ---- */

/* Mailbox of world rank `world_rank`: its collective one when `coll`. */
tm_mpi_mailbox_t *tm_mpi_mailbox_get(int world_rank, bool coll);

/* Sends (buf, count, type) (`bytes` of data) from the side of matcher m to mailbox `to`, with
 * the envelope (context_id, source, tag); req (the caller's, zeroed or reused) completes when the
 * buffer may be reused. The type must stay alive until then. 0 or -ENOMEM. */
int tm_mpi_matcher_send(tm_mpi_matcher_t *m, tm_mpi_request_t *req, const void *buf, size_t count,
                        const tm_mpi_type_t *type, size_t bytes, tm_mpi_mailbox_t *to,
                        int context_id, int source, int tag, bool synchronous);

/* Posts receive req (whose buf, count and type are set) for (context_id, source, tag) on m;
 * it completes at once when a message taken in already matches. It does not take in the
 * mailbox: messages still there find it posted when they are (tm_mpi_matcher_progress). */
void tm_mpi_matcher_recv(tm_mpi_matcher_t *m, tm_mpi_request_t *req, int context_id, int source,
                         int tag);

/* true when nothing waits in mailbox mb, queue or fastboxes. Exact from its consumer after a
 * seq_cst fence (the sleeper's check); a hint from other threads. */
bool tm_mpi_mailbox_idle(const tm_mpi_mailbox_t *mb);

/* Moves the messages of m's mailbox to their receives or to the unexpected list. Returns true
 * when it did something. */
bool tm_mpi_matcher_progress(tm_mpi_matcher_t *m);

/* Gives back the cells of messages nobody received, completing their rendezvous senders. */
void tm_mpi_matcher_fini(tm_mpi_matcher_t *m);

/* ---- dynamic broadcasts and active messages (nbc/bcast_dynamic.c) ---- */

/* A message carrying a dynamic broadcast's data to a destination's program, made from m's pool,
 * not sent: a message of (context_id, source, tag) sent by world rank `origin`, its dyn_seq-th
 * dynamic broadcast to that destination. With `done` NULL the bytes are copied into the cell now
 * (bytes <= tm_mpi_eager_limit()); else the receiver copies from (buf, count, type) and then
 * calls done(done_arg). NULL when out of memory (tm_shm_cell_free gives back one not sent). */
tm_shm_cell_t *tm_mpi_matcher_dyn_make(tm_mpi_matcher_t *m, int context_id, int source, int tag,
                                       int origin, uint32_t dyn_seq, const void *buf, size_t count,
                                       const tm_mpi_type_t *type, size_t bytes,
                                       void (*done)(void *arg), void *done_arg);

/* Sends such a message to the program's side of world rank `to` and wakes it. */
void tm_mpi_dyn_post(tm_shm_cell_t *cell, int to);

/* Makes the counts of the dynamic broadcasts the rank of matcher m (its program's side) sends,
 * the first time. 0 or -ENOMEM. */
int tm_mpi_matcher_dyn_init(tm_mpi_matcher_t *m);

/* The number of this dynamic broadcast among those of m's rank to world rank `dest`: counts it
 * (after tm_mpi_matcher_dyn_init). tm_mpi_matcher_dyn_undo takes back the last one, when nothing
 * was sent to `dest` since. */
uint32_t tm_mpi_matcher_dyn_next(tm_mpi_matcher_t *m, int dest);
void tm_mpi_matcher_dyn_undo(tm_mpi_matcher_t *m, int dest);

/* [p2p] eager_limit: the bytes of data an eager cell carries. */
size_t tm_mpi_eager_limit(void);

/* An active message's cell from m's pool, of kind `kind` (for the receiving side's handler),
 * with tm_mpi_am_capacity() bytes of payload at tm_mpi_am_payload(cell). NULL when out of
 * memory. */
tm_shm_cell_t *tm_mpi_am_alloc(tm_mpi_matcher_t *m, int kind);
size_t tm_mpi_am_capacity(void);
void *tm_mpi_am_payload(tm_shm_cell_t *cell);
int tm_mpi_am_kind(tm_shm_cell_t *cell);

/* Sends active message `cell` to the collective side of world rank `to` and wakes it. */
void tm_mpi_am_send(tm_shm_cell_t *cell, int to);

/* Sets up the calling rank's point-to-point state (and every mailbox, the first time). */
int tm_mpi_p2p_init(tm_mpi_rank_t *r);
void tm_mpi_p2p_finalize(tm_mpi_rank_t *r);

/* Starts a send; the request completes when the buffer may be reused (eager: at once;
 * rendezvous and synchronous: when the receiver has copied the data). */
int tm_mpi_p2p_isend(tm_mpi_rank_t *r, const void *buf, size_t count, tm_mpi_type_t *type,
                     size_t bytes, int dest, int tag, tm_mpi_comm_t *comm, bool synchronous,
                     tm_mpi_request_t **req_p);

/* MPI_Send of an eager message (bytes <= tm_mpi_eager_limit()), without a request: the data is
 * in the receiver's mailbox when this returns, and the send cannot be cancelled (nothing names
 * it). 0 or -ENOMEM. */
int tm_mpi_p2p_send_eager(tm_mpi_rank_t *r, const void *buf, size_t count,
                          const tm_mpi_type_t *type, size_t bytes, int dest, int tag,
                          tm_mpi_comm_t *comm);

/* MPI_Recv without a request, when it can take the message at once (see "Receiving at once" in
 * p2p.c). Returns -1 when it did not: the caller is to post a receive and wait. Else the status
 * is filled (unless MPI_STATUS_IGNORE) and the result is its MPI_ERROR: MPI_SUCCESS, or
 * MPI_ERR_TRUNCATE when the message was longer than the buffer. */
int tm_mpi_p2p_recv_now(tm_mpi_rank_t *r, void *buf, size_t count, const tm_mpi_type_t *type,
                        int source, int tag, tm_mpi_comm_t *comm, MPI_Status *status);

/* Posts a receive. source and tag may be MPI_ANY_SOURCE / MPI_ANY_TAG. */
int tm_mpi_p2p_irecv(tm_mpi_rank_t *r, void *buf, size_t count, tm_mpi_type_t *type, int source,
                     int tag, tm_mpi_comm_t *comm, tm_mpi_request_t **req_p);

/* Looks for a message matching (source, tag) on comm without receiving it; with `block`, waits
 * for one. Returns true and fills status when found. */
bool tm_mpi_p2p_probe(tm_mpi_rank_t *r, int source, int tag, tm_mpi_comm_t *comm, bool block,
                      MPI_Status *status);

/* MPI_Mprobe/MPI_Improbe: takes the first message matching (source, tag) out of matching, into
 * a request of kind MESSAGE; with `block`, waits for one. NULL when none (non-blocking). */
tm_mpi_request_t *tm_mpi_p2p_mprobe(tm_mpi_rank_t *r, int source, int tag, tm_mpi_comm_t *comm,
                                    bool block, MPI_Status *status);

/* MPI_Mrecv/MPI_Imrecv: receives the message of `msg` (which is released) into a new receive
 * request, complete at once. */
tm_mpi_request_t *tm_mpi_p2p_mrecv(tm_mpi_rank_t *r, tm_mpi_request_t *msg, void *buf, size_t count,
                                   tm_mpi_type_t *type);

/* MPI_Cancel of a receive: true when it was still posted (it is then complete and cancelled). */
bool tm_mpi_p2p_cancel_recv(tm_mpi_rank_t *r, tm_mpi_request_t *req);

/* MPI_Cancel of a send: true when no receiver had matched its message (the request is then
 * complete and cancelled, and no receiver will see the message); false when one had (the send
 * completes normally). */
bool tm_mpi_p2p_cancel_send(tm_mpi_request_t *req);

/* Moves messages from the rank's mailbox to their receives (or the unexpected list), and
 * progresses its collectives under way. Returns true when it did something. */
bool tm_mpi_p2p_progress(tm_mpi_rank_t *r);

/* One round of a non-blocking test (MPI_Test*, MPI_Iprobe): progress; when done(arg) is still
 * false, let the other ranks of this core run once and progress again. A rank polling in a loop
 * thus never starves the ranks of its core that it waits for. */
void tm_mpi_p2p_poll(tm_mpi_rank_t *r, bool (*done)(void *arg), void *arg);

/* ---- hang diagnosis (mpcrun --timeout) ----
 * A rank about to sleep in a wait records what it waits for, as values in the runtime's note
 * (runtime/rank.h); they become words only if the diagnosis runs. Ranks sharing a core sleep at
 * nearly every message they wait for: formatting text there (vsnprintf, a thousand
 * instructions each) made a token ring of 16 ranks on 2 cores 40% slower. Even as values, a note
 * (a copy of its communicator's name, 200 bytes handed over) was 8% of the time of the ring
 * exchange with an allreduce (perf, 8 ranks on a core): ranks note only in a job that diagnoses
 * hangs (tm_rt_hangs_diagnosed), the only reader of notes. */

/* One request, for "MPI_Irecv(source=5, tag=7, comm=MPI_COMM_WORLD)". */
typedef struct tm_mpi_request_note {
    const char *call; /* the call that started it (a string constant), or NULL */
    tm_mpi_request_kind_t kind;
    int peer, tag, ndests;
    char comm[48]; /* its communicator's name, cut short */
} tm_mpi_request_note_t;

/* What a blocked rank waits for. */
typedef struct tm_mpi_blocked_note {
    const char *call;   /* the waiting call ("MPI_Waitall"); NULL: the request's own call */
    int count, pending; /* requests waited for, and those not complete; 0 requests: `text` */
    union {
        tm_mpi_request_note_t first; /* the first request not complete */
        char text[192];
    };
} tm_mpi_blocked_note_t;

/* The values of req that its description shows. */
void tm_mpi_request_note(const tm_mpi_request_t *req, tm_mpi_request_note_t *note);

/* "MPI_Irecv(source=5, tag=7, comm=MPI_COMM_WORLD)": a request's note in words. */
void tm_mpi_request_note_words(const tm_mpi_request_note_t *note, char *buf, size_t len);

/* Both: what a request is, in words. */
void tm_mpi_request_describe(const tm_mpi_request_t *req, char *buf, size_t len);

/* Records, for hang diagnosis, what the rank is about to block in, as text: for the rare waits
 * that are not on requests. The wait that follows (tm_mpi_p2p_wait_until) clears it when it
 * ends. printf-like. */
void tm_mpi_p2p_note_blocked(tm_mpi_rank_t *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Waits until done(arg) is true, progressing, and sleeping until something is given to this
 * rank when another rank of the VP is ready to run, or after polling a while alone. */
void tm_mpi_p2p_wait_until(tm_mpi_rank_t *r, bool (*done)(void *arg), void *arg);

/* tm_mpi_p2p_wait_until, with the note for hang diagnosis made by note(note_arg, out) only when
 * the rank is about to sleep: most waits end before. A rank that hangs sleeps, so it is noted. */
void tm_mpi_p2p_wait_noted(tm_mpi_rank_t *r, bool (*done)(void *arg), void *arg,
                           void (*note)(void *note_arg, tm_mpi_blocked_note_t *out),
                           void *note_arg);

/* A note of tm_mpi_p2p_wait_noted for waiting on one request (a tm_mpi_request_t *) in the
 * call that started it (MPI_Recv). */
void tm_mpi_request_blocked_note(void *req, tm_mpi_blocked_note_t *out);

/* tm_mpi_mailbox_poke's wake-ups, when it finds someone asleep. */
void tm_mpi_mailbox_wake(tm_mpi_mailbox_t *mailbox);

/* Wakes whoever sleeps waiting for `mailbox` (tm_mpi_p2p_wait_until, a progress thread). Any
 * thread. Inline: every message pokes its receiver, which mostly is awake. */
static inline void tm_mpi_mailbox_poke(tm_mpi_mailbox_t *mailbox)
{
    /* Dekker with the sleeper (see tm_mpi_p2p_wait_until): we published work (a cell pushed, a
     * request completed), then look for a sleeper; it publishes itself, then looks for work.
     * The fence keeps our work's store before these loads (a store buffer would let a load pass
     * it), so one side always sees the other and no wake-up is lost. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&mailbox->sleeper, memory_order_relaxed) ||
        atomic_load_explicit(&mailbox->helper, memory_order_relaxed))
        tm_mpi_mailbox_wake(mailbox);
}

/* Wakes the rank only (not the progress thread) if it sleeps waiting for `mailbox`. */
void tm_mpi_mailbox_poke_rank(tm_mpi_mailbox_t *mailbox);

/* tm_mpi_mailbox_poke_rank after the caller's own seq_cst fence, which made its work visible
 * (one fence for several mailboxes). */
void tm_mpi_mailbox_wake_rank(tm_mpi_mailbox_t *mailbox);

/* ---- requests and their handles ---- */

/* Payload bit of the handles of generalized requests: their index in the process-wide table
 * rather than in the owner's. */
#define TM_MPI_GREQ_HANDLE_BIT 0x02000000u

/* Allocates a request object (with its own table index) when the free list is empty. */
tm_mpi_request_t *tm_mpi_request_new_slow(tm_mpi_rank_t *r, tm_mpi_request_kind_t kind);

/* A request of `kind`, cleared, with its handle's table entry; NULL when out of memory. */
static inline tm_mpi_request_t *tm_mpi_request_new(tm_mpi_rank_t *r, tm_mpi_request_kind_t kind)
{
    tm_mpi_p2p_t *p = r->p2p;
    tm_mpi_request_t *req = p->free_requests;
    if (__builtin_expect(req == NULL, 0))
        return tm_mpi_request_new_slow(r, kind);
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
tm_mpi_request_t *tm_mpi_request_new_done(tm_mpi_rank_t *r, tm_mpi_request_kind_t kind,
                                          tm_mpi_comm_t *comm);
#define TM_MPI_REQUEST_INVALID ((tm_mpi_request_t *)-1)

/* The request of handle h; NULL for MPI_REQUEST_NULL; TM_MPI_REQUEST_INVALID for a handle that
 * is not one of this rank's live requests. */
tm_mpi_request_t *tm_mpi_request_lookup(tm_mpi_rank_t *r, MPI_Request h);
static inline MPI_Request tm_mpi_request_handle(const tm_mpi_request_t *req)
{
    if (req->kind == TM_MPI_REQ_GREQ)
        return TM_MPI_HANDLE(TM_MPI_KIND_REQUEST,
                             TM_MPI_GREQ_HANDLE_BIT | ((unsigned)req->greq_index + 1));
    return TM_MPI_HANDLE(TM_MPI_KIND_REQUEST, (unsigned)req->handle_index + 1);
}
/* The message (MPI_Mprobe) of handle h, or NULL when h is not one of this rank's messages. */
tm_mpi_request_t *tm_mpi_message_lookup(tm_mpi_rank_t *r, MPI_Message h);
MPI_Message tm_mpi_message_handle(const tm_mpi_request_t *msg);
void tm_mpi_request_release(tm_mpi_rank_t *r, tm_mpi_request_t *req);
/* The view c goes (MPI_Comm_free) while r's requests on it may still be pending, as MPI allows:
 * they forget it (comm NULL: their hang notes name no communicator, their errors go to
 * MPI_COMM_WORLD's handler). */
void tm_mpi_request_forget_comm(tm_mpi_rank_t *r, const tm_mpi_comm_t *c);

/* ---- generalized requests (greq.c) ---- */

/* The generalized request of handle h (any thread), NULL when there is none. */
tm_mpi_request_t *tm_mpi_greq_lookup(MPI_Request h);
/* Takes generalized request req out of the process-wide table (its release). */
void tm_mpi_greq_unregister(tm_mpi_request_t *req);
/* Completes generalized request req (complete) for a wait or test: its query function fills
 * *status (which may be MPI_STATUS_IGNORE), then its free function runs and req is released.
 * Returns the first error of the two callbacks. */
int tm_mpi_greq_retire(tm_mpi_rank_t *r, tm_mpi_request_t *req, MPI_Status *status);
/* MPI_Request_get_status on complete generalized request req: its query function's status and
 * error. */
int tm_mpi_greq_query(tm_mpi_request_t *req, MPI_Status *status);
/* MPI_Request_free of generalized request req: releases it now when complete (after its free
 * function), else once MPI_Grequest_complete has run the free function. Returns the free
 * function's error, or MPI_SUCCESS when it runs later. */
int tm_mpi_greq_free(tm_mpi_rank_t *r, tm_mpi_request_t *req);
/* MPI_Cancel of generalized request req: its cancel function's error. */
int tm_mpi_greq_cancel(tm_mpi_request_t *req);
/* true when freed request req may go (a generalized one: once its free function returned). */
bool tm_mpi_request_zombie_done(const tm_mpi_request_t *req);

static inline bool tm_mpi_request_is_complete(const tm_mpi_request_t *req)
{
    /* acquire: pairs with the completer's release, so the received data and status are seen.
     * (A generalized request's word has other bits than DONE only once its handle is freed.) */
    return atomic_load_explicit(&req->complete, memory_order_acquire) != 0;
}

/* Completes a request of rank `owner_mailbox` and pokes it. */
void tm_mpi_request_complete(tm_mpi_request_t *req, tm_mpi_mailbox_t *owner_mailbox);

/* Copies a completed request's status out (MPI_STATUS_IGNORE allowed). */
void tm_mpi_request_status(const tm_mpi_request_t *req, MPI_Status *status);

/* The status of an operation with MPI_PROC_NULL: source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0. */
void tm_mpi_status_proc_null(MPI_Status *status);

#endif /* TM_MPI_P2P_H */
