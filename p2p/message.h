/*
 * ThreadMPI p2p/, inside the layer: what a message is. A message travels as a cell (shm/): the
 * envelope, then the data (eager) or where the data is (tm_p2p_source_t).
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
#ifndef TM_P2P_MESSAGE_H
#define TM_P2P_MESSAGE_H

#include "p2p/p2p.h"

typedef enum tm_p2p_protocol {
    TM_P2P_PROTO_EAGER,   /* data in the cell */
    TM_P2P_PROTO_SOURCE,  /* the data is elsewhere: the cell holds its tm_p2p_source_t */
    TM_P2P_PROTO_AM,      /* an active message: for the receiving side's handler, not matched */
    TM_P2P_PROTO_FASTBOX, /* a fastbox opens: the receiving side polls it from now on */
} tm_p2p_protocol_t;

/* What a cell carries before its data: what matching and ordering read, 40 bytes, so that with
 * the cell's links an envelope and 8 bytes of eager data are one cache line. */
typedef struct tm_p2p_envelope {
    int context_id;
    int source; /* sender's rank in the communicator */
    int tag;
    uint8_t protocol; /* tm_p2p_protocol_t */
    bool dyn;         /* a dynamic broadcast's delivery */
    bool synchronous; /* SOURCE: the send completes once matched (MPI_Ssend), not before */
    /* A collective's message from a member whose collective had failed already: its error
     * class, which the receive takes (tm_p2p_matcher_send); else MPI_SUCCESS. */
    uint8_t failed;
    /* Order with dynamic broadcasts (see p2p.h): the world rank of the sending
     * rank (of the root, for a broadcast), and the count of its dynamic broadcasts to this
     * destination before this message (for a broadcast: its own number) */
    int origin;
    uint32_t dyn_seq;
    union {
        /* Order with fastboxes (fastbox.h): the message's number among those the sending side
         * sent to this side since it opened a fastbox to it; 0 before, and for dynamic
         * broadcasts. Used until the message is taken in. */
        uint32_t pair_seq;
        /* Then, kept as unexpected: its number among the arrivals (tm_p2p_unexpected_t). */
        uint32_t arrival;
    };
    uint32_t bytes; /* of data (EAGER, AM); SOURCE: in tm_p2p_source_t */
    /* Who owns the message (see "Cancelling a send" above): TM_P2P_CLAIM_TAKEN, _CANCELLED, or
     * the sender's ticket while nobody does. */
    _Atomic uint64_t claim;
} tm_p2p_envelope_t;

/* What a SOURCE cell carries in place of data: where the data is, and how the receiving side
 * takes it in. This is the transport seam for data (transport.h): a rendezvous from a rank of
 * this process is a copy from the sender's buffer (copy.c, tm_p2p_rndv_ops); data held for
 * several receivers, a dynamic broadcast's, a copy too and then its holder's callback (send.c). */
typedef struct tm_p2p_source tm_p2p_source_t;
typedef struct tm_p2p_source_ops {
    /* Copies the first n bytes of the message's data (n <= bytes) into (buf, count, type). */
    void (*copy)(const tm_p2p_envelope_t *env, tm_p2p_source_t *src, void *buf, size_t count,
                 const tm_mpi_type_t *type, size_t n);
    /* The message is taken (copied, or dropped unread at the end): its sender may go. */
    void (*done)(tm_p2p_source_t *src);
} tm_p2p_source_ops_t;

struct tm_p2p_source {
    const tm_p2p_source_ops_t *ops;
    size_t bytes; /* of data */
    /* the data and its layout (held by the send request, or by the runtime) */
    const void *buf;
    size_t count;
    const tm_mpi_type_t *type;
    union {
        /* a rendezvous: the request to complete once copied, and the mailbox to poke then */
        struct {
            tm_p2p_request_t *send_request;
            tm_p2p_mailbox_t *sender_mailbox;
        };
        /* shared data: called once the data is copied (or the message dropped) */
        struct {
            void (*done_fn)(void *arg);
            void *done_arg;
        };
    };
};

#define TM_P2P_CLAIM_TAKEN     0
#define TM_P2P_CLAIM_CANCELLED 1

static inline tm_p2p_envelope_t *tm_p2p_cell_envelope(tm_shm_cell_t *cell)
{
    return (tm_p2p_envelope_t *)cell->data;
}

_Static_assert(sizeof(tm_p2p_envelope_t) + 8 <= TM_SHM_CELL_LINE_DATA,
               "an envelope and 8 bytes of data fit a cell's first line");

static inline unsigned char *tm_p2p_cell_payload(tm_shm_cell_t *cell)
{
    return cell->data + sizeof(tm_p2p_envelope_t);
}

/* Where a SOURCE message's receiver copies from (in place of the data). */
static inline tm_p2p_source_t *tm_p2p_cell_source(tm_shm_cell_t *cell)
{
    return (tm_p2p_source_t *)tm_p2p_cell_payload(cell);
}

/* The bytes of data of the message of `cell`. */
static inline size_t tm_p2p_cell_bytes(tm_shm_cell_t *cell)
{
    const tm_p2p_envelope_t *env = tm_p2p_cell_envelope(cell);
    return env->protocol == TM_P2P_PROTO_SOURCE ? tm_p2p_cell_source(cell)->bytes : env->bytes;
}

/* The receiving side takes the message of `cell` (see "Cancelling a send" above): false when
 * its sender cancelled it first; the caller then drops the cell without touching the send's
 * request or buffer, which may be reused already. */
static inline bool tm_p2p_cell_claim(tm_shm_cell_t *cell)
{
    _Atomic uint64_t *claim = &tm_p2p_cell_envelope(cell)->claim;
    /* Cells that were never cancellable need no read-modify-write: TAKEN never changes. */
    if (atomic_load_explicit(claim, memory_order_relaxed) == TM_P2P_CLAIM_TAKEN)
        return true;
    /* acq_rel: the sender's cancel and this exchange are ordered by the word alone; the orders
     * keep the receiver's reads of the envelope before a sender that lost sees TAKEN. */
    return atomic_exchange_explicit(claim, TM_P2P_CLAIM_TAKEN, memory_order_acq_rel) !=
           TM_P2P_CLAIM_CANCELLED;
}

/* true when the sender of `cell` cancelled it: the cell is garbage to drop. */
static inline bool tm_p2p_cell_cancelled(tm_shm_cell_t *cell)
{
    return atomic_load_explicit(&tm_p2p_cell_envelope(cell)->claim, memory_order_acquire) ==
           TM_P2P_CLAIM_CANCELLED;
}

#endif /* TM_P2P_MESSAGE_H */
