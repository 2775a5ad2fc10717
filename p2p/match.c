/*
 * The receiving side: matching (posted receives, unexpected messages, MPI's order), taking
 * messages in from the mailbox, delivering them, and the calls that receive, probe and cancel
 * receives.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/group.h"
#include "p2p/fastbox.h"
#include "p2p/p2p_impl.h"
#include "p2p/transport.h"

/* The handlers of active messages, by kind: set once before any is sent (at MPI_Init, under
 * pthread_once, which orders them before any rank's use). */
static tm_p2p_am_handler_fn_t am_handlers[TM_P2P_AM_KINDS];

void tm_p2p_am_register(int kind, tm_p2p_am_handler_fn_t handler)
{
    am_handlers[kind] = handler;
}

static inline bool envelope_matches(const tm_p2p_envelope_t *env, int context_id, int source,
                                    int tag)
{
    return env->context_id == context_id && (source == MPI_ANY_SOURCE || source == env->source) &&
           (tag == MPI_ANY_TAG || tag == env->tag);
}

/* Delivers the message of `cell` into (buf, count, type): copies the data, fills *status (the
 * count received, MPI_ERR_TRUNCATE when the message was longer), frees the cell and completes
 * the sender's side. */
static void deliver_into(void *buf, size_t count, const tm_mpi_type_t *type, tm_shm_cell_t *cell,
                         MPI_Status *status)
{
    tm_p2p_envelope_t *env = tm_p2p_cell_envelope(cell);
    size_t capacity = count * type->size;
    size_t n = tm_p2p_cell_bytes(cell);
    status->MPI_ERROR = MPI_SUCCESS;
    if (n > capacity) {
        n = capacity;
        status->MPI_ERROR = MPI_ERR_TRUNCATE;
    }
    tm_rt_profile_mark_t copy = tm_rt_profile_begin(TM_RT_PROFILE_COPY);
    if (env->protocol == TM_P2P_PROTO_EAGER) {
        tm_mpi_type_unpack(tm_p2p_cell_payload(cell), n, buf, count, type, 0);
        tm_rt_profile_end(copy);
    } else {
        /* The one copy, through the transport that holds the data (transport.h, point 3). */
        tm_p2p_source_t *from = tm_p2p_cell_source(cell);
        from->ops->copy(env, from, buf, count, type, n);
        tm_rt_profile_end(copy);
        from->ops->done(from);
    }
    if (env->failed != MPI_SUCCESS && status->MPI_ERROR == MPI_SUCCESS)
        status->MPI_ERROR = env->failed;
    status->MPI_SOURCE = env->source;
    status->MPI_TAG = env->tag;
    status->tm_count = (MPI_Count)n;
    status->tm_cancelled = 0;
    tm_shm_cell_free(cell);
}

/* Delivers the message of `cell` to receive `req` (deliver_into) and completes it. */
static void deliver(tm_p2p_request_t *req, tm_shm_cell_t *cell)
{
    deliver_into(req->buf, req->count, req->type, cell, &req->status);
    /* Our own request: only this thread waits on it, but a progress thread may one day. */
    atomic_store_explicit(&req->complete, 1, memory_order_release);
}

/* Finds the first posted receive matching `env`; *prev_p = the one before it. */
static tm_p2p_request_t *posted_find(tm_p2p_matcher_t *p, const tm_p2p_envelope_t *env,
                                     tm_p2p_request_t **prev_p)
{
    tm_p2p_request_t *prev = NULL;
    for (tm_p2p_request_t *req = p->posted_head; req; prev = req, req = req->next) {
        if (req->context_id != env->context_id ||
            (req->source != MPI_ANY_SOURCE && req->source != env->source) ||
            (req->tag != MPI_ANY_TAG && req->tag != env->tag))
            continue;
        *prev_p = prev;
        return req;
    }
    return NULL;
}

/* Unlinks posted receive req, which follows prev. */
static void posted_unlink(tm_p2p_matcher_t *p, tm_p2p_request_t *req, tm_p2p_request_t *prev)
{
    if (prev)
        prev->next = req->next;
    else
        p->posted_head = req->next;
    if (p->posted_tail == req)
        p->posted_tail = prev;
    req->next = NULL;
}

/* Appends `cell` to the list (head, tail) linked through cell->next. */
static void cells_append(tm_shm_cell_t **head, tm_shm_cell_t **tail, tm_shm_cell_t *cell)
{
    atomic_store_explicit(&cell->next, NULL, memory_order_relaxed);
    if (*tail)
        atomic_store_explicit(&(*tail)->next, cell, memory_order_relaxed);
    else
        *head = cell;
    *tail = cell;
}

static inline unsigned unexpected_bin(int source)
{
    return (unsigned)source % TM_P2P_UNEXPECTED_BINS;
}

/* Keeps `cell` (taken in, matching no posted receive) after the others of its bin. */
static void unexpected_add(tm_p2p_unexpected_t *u, tm_shm_cell_t *cell)
{
    tm_p2p_envelope_t *env = tm_p2p_cell_envelope(cell);
    unsigned b = unexpected_bin(env->source);
    env->arrival = u->arrivals++;
    cells_append(&u->head[b], &u->tail[b], cell);
    u->nonempty |= UINT64_C(1) << b;
}

void tm_p2p_unexpected_return(tm_p2p_unexpected_t *u, tm_shm_cell_t *cell)
{
    unsigned b = unexpected_bin(tm_p2p_cell_envelope(cell)->source);
    atomic_store_explicit(&cell->next, u->head[b], memory_order_relaxed);
    u->head[b] = cell;
    if (!u->tail[b])
        u->tail[b] = cell;
    u->nonempty |= UINT64_C(1) << b;
}

/* Unlinks `cell` of bin b, which follows prev; returns the one after it. */
static tm_shm_cell_t *unexpected_unlink(tm_p2p_unexpected_t *u, unsigned b, tm_shm_cell_t *cell,
                                        tm_shm_cell_t *prev)
{
    tm_shm_cell_t *next = atomic_load_explicit(&cell->next, memory_order_relaxed);
    if (prev)
        atomic_store_explicit(&prev->next, next, memory_order_relaxed);
    else
        u->head[b] = next;
    if (u->tail[b] == cell)
        u->tail[b] = prev;
    if (!u->head[b])
        u->nonempty &= ~(UINT64_C(1) << b);
    return next;
}

/* The first message of bin b that matches; *prev_p = the one before it. Drops the cancelled
 * messages it passes. */
static tm_shm_cell_t *unexpected_bin_find(tm_p2p_unexpected_t *u, unsigned b, int context_id,
                                          int source, int tag, tm_shm_cell_t **prev_p)
{
    tm_shm_cell_t *prev = NULL, *cell = u->head[b];
    while (cell) {
        if (tm_p2p_cell_cancelled(cell)) {
            tm_shm_cell_t *next = unexpected_unlink(u, b, cell, prev);
            tm_shm_cell_free(cell);
            cell = next;
            continue;
        }
        if (envelope_matches(tm_p2p_cell_envelope(cell), context_id, source, tag)) {
            *prev_p = prev;
            return cell;
        }
        prev = cell;
        cell = atomic_load_explicit(&cell->next, memory_order_relaxed);
    }
    return NULL;
}

/* Finds the first unexpected message matching (from MPI_ANY_SOURCE: the earliest arrival among
 * the bins' first matches); unlinks it and claims it when `take`. Drops the cancelled messages
 * it passes. */
static tm_shm_cell_t *unexpected_search(tm_p2p_matcher_t *m, int context_id, int source, int tag,
                                        bool take)
{
    tm_p2p_unexpected_t *u = &m->unexpected;
    for (;;) {
        tm_shm_cell_t *found = NULL, *found_prev = NULL;
        unsigned found_bin = 0;
        if (source != MPI_ANY_SOURCE) {
            found_bin = unexpected_bin(source);
            found = unexpected_bin_find(u, found_bin, context_id, source, tag, &found_prev);
        } else {
            for (uint64_t bins = u->nonempty; bins; bins &= bins - 1) {
                unsigned b = (unsigned)__builtin_ctzll(bins);
                tm_shm_cell_t *prev,
                    *cell = unexpected_bin_find(u, b, context_id, source, tag, &prev);
                /* Arrival numbers wrap: compare their difference. */
                if (cell && (!found || (int32_t)(tm_p2p_cell_envelope(cell)->arrival -
                                                 tm_p2p_cell_envelope(found)->arrival) < 0)) {
                    found = cell;
                    found_prev = prev;
                    found_bin = b;
                }
            }
        }
        if (!found || !take)
            return found;
        unexpected_unlink(u, found_bin, found, found_prev);
        if (tm_p2p_cell_claim(found))
            return found;
        tm_shm_cell_free(found); /* cancelled since the check above: look again */
    }
}

/* unexpected_search, after the common case of a receive posted ahead: no message waits. */
static inline tm_shm_cell_t *unexpected_find(tm_p2p_matcher_t *m, int context_id, int source,
                                             int tag, bool take)
{
    if (!m->unexpected.nonempty)
        return NULL;
    return unexpected_search(m, context_id, source, tag, take);
}

/* Matches a message that is in order: to the first posted receive it fits, else to the end of
 * the unexpected list. */
static void match(tm_p2p_matcher_t *m, tm_shm_cell_t *cell)
{
    tm_p2p_request_t *prev;
    tm_p2p_request_t *req = posted_find(m, tm_p2p_cell_envelope(cell), &prev);
    /* Kept as unexpected, it stays cancellable: only a delivery claims it. */
    if (!req && !tm_p2p_cell_cancelled(cell)) {
        unexpected_add(&m->unexpected, cell);
        return;
    }
    if (!req || !tm_p2p_cell_claim(cell)) {
        tm_shm_cell_free(cell); /* cancelled: as if it never came */
        return;
    }
    posted_unlink(m, req, prev);
    deliver(req, cell);
    if (req->freed)
        tm_p2p_request_release(req->owner, req);
}

/* true when a message of the root of dynamic broadcast `env` (number env->dyn_seq) that was
 * sent before it waits here: at the head of the root's fastbox, or held back. Such messages
 * carry the broadcast's number as their dyn_seq; the root sent them before it started the
 * broadcast, so they are in the fastbox or the queue ahead of any of its deliveries, and the
 * broadcast must wait for them (non-overtaking). */
static bool dyn_preceded(const tm_p2p_matcher_t *m, const tm_p2p_envelope_t *env)
{
    tm_p2p_fastbox_t *fb = m->fastbox_from ? m->fastbox_from[env->origin] : NULL;
    tm_shm_cell_t *head = fb ? tm_shm_ring_peek(fb->ring) : NULL;
    if (head && tm_p2p_cell_envelope(head)->dyn_seq == env->dyn_seq)
        return true;
    for (tm_shm_cell_t *cell = m->held_head; cell;
         cell = atomic_load_explicit(&cell->next, memory_order_relaxed)) {
        const tm_p2p_envelope_t *e = tm_p2p_cell_envelope(cell);
        if (!e->dyn && e->origin == env->origin && e->dyn_seq == env->dyn_seq)
            return true;
    }
    return false;
}

/* true when every dynamic broadcast of the message's origin that comes before it here has been
 * taken in (see "Order with dynamic broadcasts" in p2p.h), and every message its sender sent
 * here before it when it has a fastbox here (see "Fastboxes"). */
static inline bool in_order(const tm_p2p_matcher_t *m, const tm_p2p_envelope_t *env)
{
    if (env->dyn_seq != (m->dyn_delivered ? m->dyn_delivered[env->origin] : 0))
        return false;
    if (env->pair_seq != 0)
        return env->pair_seq == m->fastbox_from[env->origin]->expected;
    return !env->dyn || !dyn_preceded(m, env);
}

/* Counts a message that is in order as taken in, for the order of those after it (its turn in
 * its fastbox's pair, its dynamic broadcast's number); returns true when it was a dynamic
 * broadcast. */
static bool take_in_count(tm_p2p_matcher_t *m, const tm_p2p_envelope_t *env)
{
    bool dyn = env->dyn;
    if (env->pair_seq != 0) {
        tm_p2p_fastbox_t *fb = m->fastbox_from[env->origin];
        fb->expected = tm_p2p_pair_seq_next(fb->expected);
    }
    if (dyn) {
        if (!m->dyn_delivered &&
            !(m->dyn_delivered = calloc((size_t)tm_p2p_job.nranks, sizeof *m->dyn_delivered)))
            tm_rt_job_abort(m->world_rank, MPI_ERR_NO_MEM,
                            "out of memory receiving a dynamic broadcast");
        m->dyn_delivered[env->origin]++;
    }
    return dyn;
}

/* Takes in a message that is in order; returns true when it was a dynamic broadcast (the
 * messages held back for it may now be in order). */
static bool take_in(tm_p2p_matcher_t *m, tm_shm_cell_t *cell)
{
    bool dyn = take_in_count(m, tm_p2p_cell_envelope(cell));
    match(m, cell);
    return dyn;
}

/* Takes in the held-back messages that are in order now, oldest first, until none is. */
static void held_release(tm_p2p_matcher_t *m)
{
    tm_shm_cell_t *prev = NULL, *cell = m->held_head;
    while (cell) {
        tm_shm_cell_t *next = atomic_load_explicit(&cell->next, memory_order_relaxed);
        if (!in_order(m, tm_p2p_cell_envelope(cell))) {
            prev = cell;
            cell = next;
            continue;
        }
        if (prev)
            atomic_store_explicit(&prev->next, next, memory_order_relaxed);
        else
            m->held_head = next;
        if (m->held_tail == cell)
            m->held_tail = prev;
        if (take_in(m, cell)) {
            /* From the oldest again: a message held before this broadcast may follow it. */
            prev = NULL;
            cell = m->held_head;
        } else {
            cell = next;
        }
    }
}

bool tm_p2p_matcher_progress(tm_p2p_matcher_t *m)
{
    tm_p2p_mailbox_t *mb = m->mailbox;
    bool did = false, moved, stalled;
    tm_shm_cell_t *cell;
    do {
        moved = stalled = false;
        while ((cell = tm_shm_queue_pop(&mb->inbound)) != NULL) {
            moved = true;
            tm_p2p_envelope_t *env = tm_p2p_cell_envelope(cell);
            if (env->protocol == TM_P2P_PROTO_AM)
                am_handlers[tm_p2p_am_kind(cell)](m, cell);
            else if (env->protocol == TM_P2P_PROTO_FASTBOX)
                tm_p2p_fastbox_accept(m, cell);
            else if (!in_order(m, env))
                cells_append(&m->held_head, &m->held_tail, cell);
            else if (take_in(m, cell) && m->held_head)
                held_release(m);
        }
        /* Relaxed: this thread adds the fastboxes. */
        int n = atomic_load_explicit(&mb->nfastboxes, memory_order_relaxed);
        for (int i = 0; i < n; i++) {
            tm_shm_ring_t *ring =
                atomic_load_explicit(&mb->fastboxes[i], memory_order_relaxed)->ring;
            while ((cell = tm_shm_ring_peek(ring)) != NULL) {
                if (!in_order(m, tm_p2p_cell_envelope(cell))) {
                    stalled = true; /* until its turn comes, through the queue */
                    break;
                }
                tm_shm_ring_pop(ring);
                moved = true;
                take_in(m, cell); /* a dynamic broadcast's root's: held_release below */
            }
        }
        if (moved && m->held_head)
            held_release(m);
        did |= moved;
        /* A fastbox waiting for its turn may have it now. */
    } while (moved && stalled);
    return did;
}

bool tm_p2p_matcher_has_work(const tm_p2p_matcher_t *m)
{
    const tm_p2p_mailbox_t *mb = m->mailbox;
    if (!tm_shm_queue_is_empty(&mb->inbound))
        return true;
    int n = atomic_load_explicit(&mb->nfastboxes, memory_order_relaxed);
    for (int i = 0; i < n; i++) {
        tm_shm_cell_t *cell =
            tm_shm_ring_peek(atomic_load_explicit(&mb->fastboxes[i], memory_order_relaxed)->ring);
        if (cell && in_order(m, tm_p2p_cell_envelope(cell)))
            return true;
    }
    return false;
}

/* The status a receive of the message of `cell` gets (the count before any truncation). */
static void envelope_status(tm_shm_cell_t *cell, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    const tm_p2p_envelope_t *env = tm_p2p_cell_envelope(cell);
    status->MPI_SOURCE = env->source;
    status->MPI_TAG = env->tag;
    status->MPI_ERROR = MPI_SUCCESS;
    status->tm_count = (MPI_Count)tm_p2p_cell_bytes(cell);
    status->tm_cancelled = 0;
}

/* ---- receiving ---- */

void tm_p2p_matcher_recv(tm_p2p_matcher_t *m, tm_p2p_request_t *req, int context_id, int source,
                         int tag)
{
    req->context_id = context_id;
    req->source = source;
    req->tag = tag;
    /* Messages taken in already wait among the unexpected ones; those still in the mailbox find
     * this receive posted when they are taken in, in their order. Taking them in here first
     * would cost each message a trip through the unexpected list when the receives are posted
     * ahead of a wait, as a window of them is. */
    tm_shm_cell_t *cell = unexpected_find(m, context_id, source, tag, true);
    if (cell) {
        deliver(req, cell);
        return;
    }
    req->next = NULL;
    if (m->posted_tail)
        m->posted_tail->next = req;
    else
        m->posted_head = req;
    m->posted_tail = req;
}

int tm_p2p_irecv(tm_mpi_rank_t *r, void *buf, size_t count, tm_mpi_type_t *type, int source,
                 int tag, tm_mpi_comm_t *comm, tm_p2p_request_t **req_p)
{
    tm_p2p_request_t *req = tm_p2p_request_new(r, TM_P2P_REQ_RECV);
    if (!req)
        return -ENOMEM;
    req->comm = comm;
    req->buf = buf;
    req->count = count;
    tm_mpi_type_retain(type);
    req->type = type;
    tm_p2p_matcher_recv(&r->p2p->match, req, comm->context_id, source, tag);
    *req_p = req;
    return 0;
}

/* ---- receiving at once ----
 *
 * A blocking receive of a message that is there already, or comes soon through its sender's
 * fastbox, needs no request: making one, posting it, matching the message against the posted
 * list and completing it was most of the time of a small message's receive. tm_p2p_recv_now
 * takes the message itself:
 *   - the first match among the unexpected messages, as a posted receive would. None of them
 *     matches a receive posted earlier (that receive would have taken it), so none is owed one;
 *   - else, from a given source, the message at the head of that source's fastbox when it is
 *     that source's next one here (in_order: its turn in the pair, after the source's dynamic
 *     broadcasts) and no receive posted earlier matches it. It polls that fastbox until another
 *     ULT of the VP is ready, the queue holds a message (perhaps this one, which only progress
 *     takes in, in order) or FASTBOX_POLLS polls pass.
 * Otherwise the caller posts a receive and waits as every other call does, running the rest of
 * the rank's progress: collective schedules, shared copies, requests freed while pending. The
 * rank leaves those aside only while it polls here, and polls only when it has no collective
 * under way and a progress thread (which active messages wake, to forward dynamic broadcasts):
 * a few microseconds at most.
 */
#define FASTBOX_POLLS 1000

/* The message from `source` (world rank `world_source`) at the head of its fastbox, taken in and
 * claimed, when it is in order and matches (context_id, source, tag); else NULL. */
static tm_shm_cell_t *fastbox_take(tm_mpi_rank_t *r, tm_p2p_matcher_t *m, int context_id,
                                   int source, int world_source, int tag)
{
    tm_p2p_fastbox_t *fb = m->fastbox_from ? m->fastbox_from[world_source] : NULL;
    if (!fb)
        return NULL;
    int polls = 0; /* decided when the fastbox is first found empty */
    tm_p2p_request_t *prev;
    for (int i = 0;; i++) {
        tm_shm_cell_t *cell = tm_shm_ring_peek(fb->ring);
        if (!cell) {
            if (i == 0 && !tm_p2p_hook_needs_rank(r->p2p))
                polls = FASTBOX_POLLS;
            if (i + 1 >= polls || !tm_shm_queue_is_empty(&m->mailbox->inbound) ||
                tm_sched_others_ready())
                return NULL;
            continue;
        }
        const tm_p2p_envelope_t *env = tm_p2p_cell_envelope(cell);
        if (!in_order(m, env) || !envelope_matches(env, context_id, source, tag) ||
            (m->posted_head && posted_find(m, env, &prev)))
            return NULL;
        tm_shm_ring_pop(fb->ring);
        take_in_count(m, env);
        /* Held-back messages may be in order now: as after any message taken in. */
        if (m->held_head)
            held_release(m);
        if (tm_p2p_cell_claim(cell))
            return cell;
        tm_shm_cell_free(cell); /* cancelled: as if it never came */
    }
}

int tm_p2p_recv_now(tm_mpi_rank_t *r, void *buf, size_t count, const tm_mpi_type_t *type,
                    int source, int tag, tm_mpi_comm_t *comm, MPI_Status *status)
{
    TM_RT_PROFILE_SCOPE(PROGRESS);
    tm_p2p_matcher_t *m = &r->p2p->match;
    tm_shm_cell_t *cell = unexpected_find(m, comm->context_id, source, tag, true);
    if (!cell && source != MPI_ANY_SOURCE)
        cell = fastbox_take(r, m, comm->context_id, source,
                            tm_mpi_group_world_rank(tm_mpi_comm_peers(comm), source), tag);
    if (!cell)
        return -1;
    MPI_Status ignored;
    if (status == MPI_STATUS_IGNORE)
        status = &ignored;
    deliver_into(buf, count, type, cell, status);
    return status->MPI_ERROR;
}

bool tm_p2p_probe(tm_mpi_rank_t *r, int source, int tag, tm_mpi_comm_t *comm, bool block,
                  MPI_Status *status)
{
    tm_p2p_progress(r);
    tm_shm_cell_t *found = unexpected_find(&r->p2p->match, comm->context_id, source, tag, false);
    if (!found && !block) {
        tm_rt_profile_yield();
        tm_p2p_progress(r);
        found = unexpected_find(&r->p2p->match, comm->context_id, source, tag, false);
    }
    if (!found && block) {
        char peer[24];
        tm_p2p_peer_name(source, peer, sizeof peer);
        tm_p2p_note_blocked(r, "MPI_Probe(source=%s, tag=%d, comm=%s)", peer, tag, comm->name);
    }
    while (!found && block) {
        tm_p2p_wait_until(r, NULL, NULL); /* until something arrives */
        found = unexpected_find(&r->p2p->match, comm->context_id, source, tag, false);
    }
    if (!found)
        return false;
    envelope_status(found, status);
    return true;
}

tm_p2p_request_t *tm_p2p_mprobe(tm_mpi_rank_t *r, int source, int tag, tm_mpi_comm_t *comm,
                                bool block, MPI_Status *status)
{
    /* Probe (it waits or polls as MPI_Probe/MPI_Iprobe do), then take what it found. Only this
     * thread touches the lists, but the sender may cancel the message in between: then take
     * the next one, probing again. */
    tm_shm_cell_t *cell = NULL;
    while (!cell) {
        if (!tm_p2p_probe(r, source, tag, comm, block, MPI_STATUS_IGNORE))
            return NULL;
        cell = unexpected_find(&r->p2p->match, comm->context_id, source, tag, true);
    }
    tm_p2p_request_t *msg = tm_p2p_request_new(r, TM_P2P_REQ_MESSAGE);
    if (!msg) {
        /* Back first among the unexpected: it was the first match. */
        tm_p2p_unexpected_return(&r->p2p->match.unexpected, cell);
        return NULL;
    }
    envelope_status(cell, status);
    msg->comm = comm;
    msg->cell = cell;
    return msg;
}

tm_p2p_request_t *tm_p2p_mrecv(tm_mpi_rank_t *r, tm_p2p_request_t *msg, void *buf, size_t count,
                               tm_mpi_type_t *type)
{
    tm_p2p_request_t *req = tm_p2p_request_new(r, TM_P2P_REQ_RECV);
    if (!req)
        return NULL;
    req->comm = msg->comm;
    req->buf = buf;
    req->count = count;
    tm_mpi_type_retain(type);
    req->type = type;
    deliver(req, msg->cell);
    msg->cell = NULL;
    tm_p2p_request_release(r, msg);
    return req;
}

bool tm_p2p_cancel_recv(tm_mpi_rank_t *r, tm_p2p_request_t *req)
{
    return tm_p2p_matcher_cancel_recv(&r->p2p->match, req);
}

bool tm_p2p_matcher_cancel_recv(tm_p2p_matcher_t *p, tm_p2p_request_t *req)
{
    tm_p2p_request_t *prev = NULL;
    for (tm_p2p_request_t *q = p->posted_head; q; prev = q, q = q->next) {
        if (q != req)
            continue;
        if (prev)
            prev->next = q->next;
        else
            p->posted_head = q->next;
        if (p->posted_tail == q)
            p->posted_tail = prev;
        q->next = NULL;
        q->status.MPI_SOURCE = MPI_ANY_SOURCE;
        q->status.MPI_TAG = MPI_ANY_TAG;
        q->status.MPI_ERROR = MPI_SUCCESS;
        q->status.tm_count = 0;
        q->status.tm_cancelled = 1;
        atomic_store_explicit(&q->complete, 1, memory_order_release);
        return true;
    }
    return false;
}

/* Gives back the cells of list `head` (linked through cell->next), letting their senders go. */
static void cells_drop(tm_shm_cell_t *head)
{
    while (head) {
        tm_shm_cell_t *cell = head;
        head = atomic_load_explicit(&cell->next, memory_order_relaxed);
        /* A message nobody can cancel any more (shared data) is always claimed. */
        if (tm_p2p_cell_envelope(cell)->protocol == TM_P2P_PROTO_SOURCE && tm_p2p_cell_claim(cell))
            tm_p2p_cell_source(cell)->ops->done(tm_p2p_cell_source(cell));
        tm_shm_cell_free(cell);
    }
}

void tm_p2p_matcher_fini(tm_p2p_matcher_t *m)
{
    /* Unexpected messages nobody received, and those held back for a dynamic broadcast that
     * never came: give their cells back, completing rendezvous senders so that none of them
     * waits for ever. */
    for (int b = 0; b < TM_P2P_UNEXPECTED_BINS; b++)
        cells_drop(m->unexpected.head[b]);
    memset(&m->unexpected, 0, sizeof m->unexpected);
    cells_drop(m->held_head);
    m->held_head = m->held_tail = NULL;
    tm_p2p_fastboxes_close(m);
    free(m->dyn_sent);
    free(m->dyn_delivered);
    m->dyn_sent = m->dyn_delivered = NULL;
}
