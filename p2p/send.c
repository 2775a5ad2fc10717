/*
 * The sending side: messages built for a peer side (the envelope, and the data or a rendezvous
 * source) and handed to the transport (transport.h); sends and their cancellation, the
 * deliveries of dynamic broadcasts, active messages.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "obj/group.h"
#include "p2p/fastbox.h"
#include "p2p/transport.h"

/* Eager up to [p2p] eager_limit; synchronous sends complete once matched: rendezvous. */
static inline tm_p2p_protocol_t send_protocol(size_t bytes, bool synchronous)
{
    return bytes <= tm_p2p_job.eager_limit && !synchronous ? TM_P2P_PROTO_EAGER
                                                           : TM_P2P_PROTO_SOURCE;
}

/* Sets the matching and ordering fields of the envelope of `cell` (the protocol's are the
 * caller's; pair_seq is 0). */
static void envelope_fill(tm_shm_cell_t *cell, int context_id, int source, int tag, size_t bytes,
                          int origin, uint32_t dyn_seq, bool dyn)
{
    tm_p2p_envelope_t *env = tm_p2p_cell_envelope(cell);
    env->context_id = context_id;
    env->source = source;
    env->tag = tag;
    env->bytes = bytes <= UINT32_MAX ? (uint32_t)bytes : UINT32_MAX; /* else the source data's */
    env->origin = origin;
    env->dyn_seq = dyn_seq;
    env->pair_seq = 0;
    env->dyn = dyn;
    env->synchronous = false;
    env->failed = MPI_SUCCESS;
    /* Not cancellable unless tm_p2p_matcher_send gives it a ticket. Relaxed: the push that
     * hands the cell over publishes it. */
    atomic_store_explicit(&env->claim, TM_P2P_CLAIM_TAKEN, memory_order_relaxed);
}

/* A cell of m's pools for `payload` bytes after the envelope, with the envelope filled
 * (envelope_fill); NULL when out of memory. */
static tm_shm_cell_t *envelope_new(tm_p2p_matcher_t *m, size_t payload, int context_id, int source,
                                   int tag, size_t bytes, int origin, uint32_t dyn_seq, bool dyn)
{
    tm_shm_cell_t *cell = tm_p2p_cell_alloc(m->mailbox, payload);
    if (cell)
        envelope_fill(cell, context_id, source, tag, bytes, origin, dyn_seq, dyn);
    return cell;
}

/* Eager: the data into the cell. */
static inline void envelope_pack(tm_shm_cell_t *cell, const void *buf, size_t count,
                                 const tm_mpi_type_t *type, size_t bytes)
{
    tm_p2p_cell_envelope(cell)->protocol = TM_P2P_PROTO_EAGER;
    tm_rt_profile_mark_t copy = tm_rt_profile_begin(TM_RT_PROFILE_COPY);
    tm_mpi_type_pack(buf, count, type, 0, bytes, tm_p2p_cell_payload(cell));
    tm_rt_profile_end(copy);
}

/* SOURCE: where the receiver copies from, in place of the data, and how (the caller sets the
 * fields of its ops). */
static tm_p2p_source_t *envelope_source(tm_shm_cell_t *cell, const tm_p2p_source_ops_t *ops,
                                        const void *buf, size_t count, const tm_mpi_type_t *type,
                                        size_t bytes)
{
    tm_p2p_source_t *from = tm_p2p_cell_source(cell);
    tm_p2p_cell_envelope(cell)->protocol = TM_P2P_PROTO_SOURCE;
    from->ops = ops;
    from->buf = buf;
    from->count = count;
    from->type = type;
    from->bytes = bytes;
    return from;
}

/* tm_p2p_matcher_send, inlined into the program's sends. req NULL: a blocking eager send, which
 * needs no request (done when this returns, and not cancellable). */
static inline __attribute__((always_inline)) int
matcher_send(tm_p2p_matcher_t *m, tm_p2p_request_t *req, const void *buf, size_t count,
             const tm_mpi_type_t *type, size_t bytes, tm_p2p_mailbox_t *to, int dest,
             int context_id, int source, int tag, bool synchronous, int failed)
{
    bool eager = send_protocol(bytes, synchronous) == TM_P2P_PROTO_EAGER;
    bool small = eager && bytes <= TM_P2P_FASTBOX_PAYLOAD;
    tm_p2p_fastbox_t *fb = tm_p2p_fastbox_to(m, to, dest, small);
    tm_shm_cell_t *cell = small && fb ? tm_shm_ring_alloc(fb->ring) : NULL;
    bool boxed = cell != NULL;
    if (!boxed && !(cell = tm_p2p_cell_alloc(m->mailbox, eager ? bytes : sizeof(tm_p2p_source_t))))
        return -ENOMEM;
    /* In order after this rank's dynamic broadcasts to the destination (see p2p.h), and after
     * its messages through the other way when it has a fastbox there. */
    envelope_fill(cell, context_id, source, tag, bytes, m->world_rank,
                  m->dyn_sent ? m->dyn_sent[dest] : 0, false);
    tm_p2p_cell_envelope(cell)->failed = (uint8_t)failed;
    tm_p2p_cell_envelope(cell)->synchronous = synchronous;
    if (fb) {
        tm_p2p_cell_envelope(cell)->pair_seq = fb->next_seq;
        fb->next_seq = tm_p2p_pair_seq_next(fb->next_seq);
    }
    /* The program's sends are cancellable until received: the cell and its ticket, for
     * MPI_Cancel. The collectives' are not (their receivers then skip the exchange). */
    if (req && tm_p2p_mailbox_is_program(m->mailbox)) {
        if (m->last_ticket < TM_P2P_CLAIM_CANCELLED)
            m->last_ticket = TM_P2P_CLAIM_CANCELLED;
        req->cell = cell;
        req->ticket = ++m->last_ticket;
        atomic_store_explicit(&tm_p2p_cell_envelope(cell)->claim, req->ticket,
                              memory_order_relaxed);
    }
    if (eager) {
        envelope_pack(cell, buf, count, type, bytes);
        /* The data is in the cell: the buffer is free again. Nobody else sees this request
         * yet, so a plain store would do; the atomic keeps the one way of completing. */
        if (req)
            atomic_store_explicit(&req->complete, 1, memory_order_relaxed);
    } else {
        tm_p2p_source_t *from = envelope_source(cell, &tm_p2p_rndv_ops, buf, count, type, bytes);
        from->send_request = req;
        from->sender_mailbox = m->mailbox;
    }
    if (boxed) {
        tm_shm_ring_push(fb->ring, cell);
        tm_p2p_fastbox_poke(fb, to);
    } else {
        tm_p2p_mailbox_post(cell, to);
    }
    return 0;
}

int tm_p2p_matcher_send(tm_p2p_matcher_t *m, tm_p2p_request_t *req, const void *buf, size_t count,
                        const tm_mpi_type_t *type, size_t bytes, tm_p2p_mailbox_t *to,
                        int context_id, int source, int tag, bool synchronous, int failed)
{
    return matcher_send(m, req, buf, count, type, bytes, to, tm_p2p_mailbox_world_rank(to),
                        context_id, source, tag, synchronous, failed);
}

/* Data held for several receivers (a dynamic broadcast's): a copy, then the holder's callback. */
static void shared_copy(const tm_p2p_envelope_t *env, tm_p2p_source_t *src, void *buf, size_t count,
                        const tm_mpi_type_t *type, size_t n)
{
    tm_mpi_type_copy(buf, count, type, src->buf, src->count, src->type, 0, n);
}

static void shared_done(tm_p2p_source_t *src)
{
    src->done_fn(src->done_arg);
}

static const tm_p2p_source_ops_t shared_ops = {.copy = shared_copy, .done = shared_done};

tm_shm_cell_t *tm_p2p_matcher_dyn_make(tm_p2p_matcher_t *m, int context_id, int source, int tag,
                                       int origin, uint32_t dyn_seq, const void *buf, size_t count,
                                       const tm_mpi_type_t *type, size_t bytes,
                                       void (*done)(void *arg), void *done_arg)
{
    tm_shm_cell_t *cell = envelope_new(m, done ? sizeof(tm_p2p_source_t) : bytes, context_id,
                                       source, tag, bytes, origin, dyn_seq, true);
    if (!cell)
        return NULL;
    if (!done) {
        envelope_pack(cell, buf, count, type, bytes);
    } else {
        tm_p2p_source_t *from = envelope_source(cell, &shared_ops, buf, count, type, bytes);
        from->done_fn = done;
        from->done_arg = done_arg;
    }
    return cell;
}

void tm_p2p_dyn_post(tm_shm_cell_t *cell, int to)
{
    tm_p2p_mailbox_post(cell, tm_p2p_mailbox_get(to, false));
}

tm_shm_cell_t *tm_p2p_matcher_dyn_make_boxed(tm_p2p_matcher_t *m, int to, int context_id,
                                             int source, int tag, uint32_t dyn_seq, const void *buf,
                                             size_t count, const tm_mpi_type_t *type, size_t bytes)
{
    if (bytes > TM_P2P_FASTBOX_PAYLOAD || bytes > tm_p2p_job.eager_limit ||
        !tm_p2p_mailbox_is_program(m->mailbox))
        return NULL;
    tm_p2p_fastbox_t *fb = tm_p2p_fastbox_to(m, tm_p2p_mailbox_get(to, false), to, true);
    tm_shm_cell_t *cell = fb ? tm_shm_ring_alloc(fb->ring) : NULL;
    if (!cell)
        return NULL;
    envelope_fill(cell, context_id, source, tag, bytes, m->world_rank, dyn_seq, true);
    envelope_pack(cell, buf, count, type, bytes);
    return cell;
}

void tm_p2p_dyn_post_boxed(tm_p2p_matcher_t *m, tm_shm_cell_t *cell, int to)
{
    /* Numbered now, not when made: a cell made and not sent must leave no gap in the pair. */
    tm_p2p_fastbox_t *fb = m->fastbox_to[to];
    tm_p2p_cell_envelope(cell)->pair_seq = fb->next_seq;
    fb->next_seq = tm_p2p_pair_seq_next(fb->next_seq);
    tm_shm_ring_push(fb->ring, cell);
    tm_p2p_fastbox_poke(fb, tm_p2p_mailbox_get(to, false));
}

int tm_p2p_matcher_dyn_init(tm_p2p_matcher_t *m)
{
    if (!m->dyn_sent && !(m->dyn_sent = calloc((size_t)tm_p2p_job.nranks, sizeof *m->dyn_sent)))
        return -ENOMEM;
    return 0;
}

uint32_t tm_p2p_matcher_dyn_next(tm_p2p_matcher_t *m, int dest)
{
    return m->dyn_sent[dest]++;
}

void tm_p2p_matcher_dyn_undo(tm_p2p_matcher_t *m, int dest)
{
    m->dyn_sent[dest]--;
}

size_t tm_p2p_eager_limit(void)
{
    return tm_p2p_job.eager_limit;
}

/* ---- active messages ---- */

tm_shm_cell_t *tm_p2p_am_alloc(tm_p2p_matcher_t *m, int kind)
{
    /* Full: its handler's sender fills it after. */
    tm_shm_cell_t *cell = tm_shm_cell_alloc(m->mailbox->pools[TM_P2P_CELL_CLASS_FULL]);
    if (!cell)
        return NULL;
    tm_p2p_envelope_t *env = tm_p2p_cell_envelope(cell);
    memset(env, 0, sizeof *env);
    atomic_store_explicit(&env->claim, TM_P2P_CLAIM_TAKEN, memory_order_relaxed);
    env->protocol = TM_P2P_PROTO_AM;
    env->tag = kind;
    env->origin = m->world_rank;
    return cell;
}

size_t tm_p2p_am_capacity(void)
{
    size_t limit = tm_p2p_job.eager_limit;
    return limit > TM_P2P_AM_MIN_PAYLOAD ? limit : TM_P2P_AM_MIN_PAYLOAD;
}

void *tm_p2p_am_payload(tm_shm_cell_t *cell)
{
    return tm_p2p_cell_payload(cell);
}

int tm_p2p_am_kind(tm_shm_cell_t *cell)
{
    return tm_p2p_cell_envelope(cell)->tag;
}

void tm_p2p_am_send(tm_shm_cell_t *cell, int to)
{
    tm_p2p_mailbox_t *mailbox = tm_p2p_mailbox_get(to, true);
    /* Flagged before the post, for a progress thread going to sleep (the post fences before it
     * looks for sleepers), and after, for one that polls (release: it then sees the message). */
    atomic_store_explicit(&mailbox->am_posted, true, memory_order_relaxed);
    tm_p2p_mailbox_post(cell, mailbox);
    atomic_store_explicit(&mailbox->am_posted, true, memory_order_release);
    /* Also the progress thread asleep with no rounds to run: it runs the handlers, whatever the
     * rank is doing. The post's poke fenced after the push. */
    tm_sched_ult_t *ult = atomic_load_explicit(&mailbox->am_helper, memory_order_acquire);
    if (ult)
        tm_rt_profile_unpark(ult);
}

int tm_p2p_isend(tm_mpi_rank_t *r, const void *buf, size_t count, tm_mpi_type_t *type, size_t bytes,
                 int dest, int tag, tm_mpi_comm_t *comm, bool synchronous, tm_p2p_request_t **req_p)
{
    tm_p2p_request_t *req = tm_p2p_request_new(r, TM_P2P_REQ_SEND);
    if (!req)
        return -ENOMEM;
    req->comm = comm;
    req->source = dest;
    req->tag = tag;
    /* A rendezvous receiver reads the layout until it completes the send: keep it alive. An
     * eager send is done with it before this returns. */
    if (send_protocol(bytes, synchronous) == TM_P2P_PROTO_SOURCE) {
        tm_mpi_type_retain(type);
        req->type = type;
    }
    int to = tm_mpi_group_world_rank(tm_mpi_comm_peers(comm), dest);
    int rc =
        matcher_send(&r->p2p->match, req, buf, count, type, bytes, tm_p2p_mailbox_get(to, false),
                     to, comm->context_id, comm->rank, tag, synchronous, MPI_SUCCESS);
    if (rc < 0) {
        tm_p2p_request_release(r, req);
        return rc;
    }
    *req_p = req;
    return 0;
}

int tm_p2p_send_eager(tm_mpi_rank_t *r, const void *buf, size_t count, const tm_mpi_type_t *type,
                      size_t bytes, int dest, int tag, tm_mpi_comm_t *comm)
{
    int to = tm_mpi_group_world_rank(tm_mpi_comm_peers(comm), dest);
    return matcher_send(&r->p2p->match, NULL, buf, count, type, bytes,
                        tm_p2p_mailbox_get(to, false), to, comm->context_id, comm->rank, tag, false,
                        MPI_SUCCESS);
}

bool tm_p2p_cancel_send(tm_p2p_request_t *req)
{
    if (!req->cell)
        return false; /* nothing in flight: to MPI_PROC_NULL, buffered, or cancelled already */
    uint64_t ticket = req->ticket;
    /* acq_rel: pairs with the receiver's exchange in cell_claim (see p2p.h). The cell may have
     * been received and reused for a later send of ours since: its ticket is then another. */
    bool won = atomic_compare_exchange_strong_explicit(&tm_p2p_cell_envelope(req->cell)->claim,
                                                       &ticket, TM_P2P_CLAIM_CANCELLED,
                                                       memory_order_acq_rel, memory_order_acquire);
    req->cell = NULL;
    if (!won)
        return false;
    req->status.MPI_SOURCE = MPI_ANY_SOURCE;
    req->status.MPI_TAG = MPI_ANY_TAG;
    req->status.MPI_ERROR = MPI_SUCCESS;
    req->status.tm_count = 0;
    req->status.tm_cancelled = 1;
    /* No receiver will complete it now (an eager send is complete already). */
    atomic_store_explicit(&req->complete, 1, memory_order_release);
    return true;
}
