/*
 * Point-to-point engine: mailboxes, the two protocols, matching and progress (see p2p.h).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/group.h"
#include "nbc/nbc.h"
#include "p2p.h"

/* A waiting rank polls its messages. When another rank (or the progress thread) of its core is
 * ready to run, it sleeps at once: that one has work, and each more round of polling would delay
 * it, while waking this rank again costs a run-queue push. Alone on its core it polls longer
 * (WAIT_POLLS_BEFORE_SLEEP, a few tens of microseconds): nobody needs the core, and a message
 * found by polling is found sooner than one that must wake a sleeper. Measured on a token ring on
 * 2 cores: yielding once before sleeping, rather than sleeping at once, made each hop 5% slower at
 * 16 ranks and 9% at 64 (2.73 against 2.60 ms for 500 rounds at 16 ranks, 4.27 against 3.88 ms
 * for 200 at 64, medians of 5 runs side by side); 64 yields instead of 2 had made it 3 times
 * slower at 64 ranks. */
#define WAIT_POLLS_BEFORE_SLEEP 2000

/* Two mailboxes per world rank: [0, n) the program's point-to-point, [n, 2n) the collectives. */
static tm_mpi_mailbox_t *mailboxes;
static int nmailboxes;
static size_t eager_limit; /* fixed for the job when the mailboxes are made */
static bool notes_read;    /* the job diagnoses hangs: blocked ranks note what they wait for */
static pthread_once_t mailboxes_once = PTHREAD_ONCE_INIT;

static void mailboxes_create(void)
{
    int n = tm_rt_world_size();
    eager_limit = tm_rt_eager_limit();
    notes_read = tm_rt_hangs_diagnosed();
    mailboxes = aligned_alloc(TM_SHM_CACHE_LINE, 2 * (size_t)n * sizeof *mailboxes);
    if (!mailboxes)
        return;
    nmailboxes = n;
    for (int i = 0; i < 2 * n; i++) {
        tm_shm_queue_init(&mailboxes[i].inbound);
        atomic_init(&mailboxes[i].sleeper, NULL);
        atomic_init(&mailboxes[i].helper, NULL);
        atomic_init(&mailboxes[i].am_helper, NULL);
        atomic_init(&mailboxes[i].copy_offer, NULL);
        mailboxes[i].pool = NULL;
        for (int f = 0; f < TM_MPI_FASTBOX_MAX; f++)
            atomic_init(&mailboxes[i].fastboxes[f], NULL);
        atomic_init(&mailboxes[i].nfastboxes, 0);
        atomic_init(&mailboxes[i].fastboxes_taken, 0);
    }
}

tm_mpi_mailbox_t *tm_mpi_mailbox_get(int world_rank, bool coll)
{
    return &mailboxes[coll ? nmailboxes + world_rank : world_rank];
}

static inline tm_mpi_envelope_t *cell_envelope(tm_shm_cell_t *cell)
{
    return (tm_mpi_envelope_t *)cell->data;
}

_Static_assert(sizeof(tm_mpi_envelope_t) + 8 <= TM_SHM_CELL_LINE_DATA,
               "an envelope and 8 bytes of data fit a cell's first line");

static inline unsigned char *cell_payload(tm_shm_cell_t *cell)
{
    return cell->data + sizeof(tm_mpi_envelope_t);
}

/* Where a RNDV or SHARED message's receiver copies from (in place of the data). */
static inline tm_mpi_source_data_t *cell_source(tm_shm_cell_t *cell)
{
    return (tm_mpi_source_data_t *)cell_payload(cell);
}

/* The bytes of data of the message of `cell`. */
static inline size_t cell_bytes(tm_shm_cell_t *cell)
{
    const tm_mpi_envelope_t *env = cell_envelope(cell);
    return env->protocol == TM_MPI_PROTO_RNDV || env->protocol == TM_MPI_PROTO_SHARED
               ? cell_source(cell)->bytes
               : env->bytes;
}

/* Gives mailbox `mb` its cell pool (a rank that initializes again after a failed start keeps
 * its pools). */
static int mailbox_pool(tm_mpi_mailbox_t *mb, int world_rank)
{
    if (mb->pool)
        return 0;
    int node = tm_rt_memory_node(world_rank);
    if (node == TM_RT_MEMORY_NODE_INTERLEAVE)
        node = TM_SHM_NUMA_INTERLEAVE;
    else if (node < 0)
        node = -1;
    size_t payload = eager_limit > TM_MPI_AM_MIN_PAYLOAD ? eager_limit : TM_MPI_AM_MIN_PAYLOAD;
    if (payload < sizeof(tm_mpi_source_data_t))
        payload = sizeof(tm_mpi_source_data_t);
    return tm_shm_pool_create(sizeof(tm_mpi_envelope_t) + payload, node, &mb->pool);
}

/* The world rank whose mailbox `mb` is (either side). */
static inline int mailbox_world_rank(const tm_mpi_mailbox_t *mb)
{
    int index = (int)(mb - mailboxes);
    return index < nmailboxes ? index : index - nmailboxes;
}

int tm_mpi_p2p_init(tm_mpi_rank_t *r)
{
    pthread_once(&mailboxes_once, mailboxes_create);
    if (!mailboxes)
        return -ENOMEM;
    tm_mpi_p2p_t *p = calloc(1, sizeof *p);
    if (!p)
        return -ENOMEM;
    tm_mpi_mailbox_t *mb = tm_mpi_mailbox_get(r->rt->world_rank, false);
    int rc = mailbox_pool(mb, r->rt->world_rank);
    if (rc == 0)
        rc = mailbox_pool(tm_mpi_mailbox_get(r->rt->world_rank, true), r->rt->world_rank);
    if (rc < 0) {
        free(p);
        return rc;
    }
    p->match.mailbox = mb;
    p->match.world_rank = r->rt->world_rank;
    r->p2p = p;
    return 0;
}

static void zombies_sweep(tm_mpi_rank_t *r);
static bool zombies_done(void *arg);
static void unexpected_return(tm_mpi_unexpected_t *u, tm_shm_cell_t *cell);
static void fastboxes_close(tm_mpi_matcher_t *m);

/* The receiving side takes the message of `cell` (see "Cancelling a send" in p2p.h): false when
 * its sender cancelled it first; the caller then drops the cell without touching the send's
 * request or buffer, which may be reused already. */
static inline bool cell_claim(tm_shm_cell_t *cell)
{
    _Atomic uint64_t *claim = &cell_envelope(cell)->claim;
    /* Cells that were never cancellable need no read-modify-write: TAKEN never changes. */
    if (atomic_load_explicit(claim, memory_order_relaxed) == TM_MPI_CLAIM_TAKEN)
        return true;
    /* acq_rel: the sender's cancel and this exchange are ordered by the word alone; the orders
     * keep the receiver's reads of the envelope before a sender that lost sees TAKEN. */
    return atomic_exchange_explicit(claim, TM_MPI_CLAIM_TAKEN, memory_order_acq_rel) !=
           TM_MPI_CLAIM_CANCELLED;
}

/* true when the sender of `cell` cancelled it: the cell is garbage to drop. */
static inline bool cell_cancelled(tm_shm_cell_t *cell)
{
    return atomic_load_explicit(&cell_envelope(cell)->claim, memory_order_acquire) ==
           TM_MPI_CLAIM_CANCELLED;
}

/* Gives back the cells of list `head` (linked through cell->next), letting their senders go. */
static void cells_drop(tm_shm_cell_t *head)
{
    while (head) {
        tm_shm_cell_t *cell = head;
        head = atomic_load_explicit(&cell->next, memory_order_relaxed);
        tm_mpi_envelope_t *env = cell_envelope(cell);
        tm_mpi_source_data_t *from = cell_source(cell);
        if (env->protocol == TM_MPI_PROTO_RNDV && cell_claim(cell))
            tm_mpi_request_complete(from->send_request, from->sender_mailbox);
        else if (env->protocol == TM_MPI_PROTO_SHARED)
            from->done(from->done_arg);
        tm_shm_cell_free(cell);
    }
}

void tm_mpi_matcher_fini(tm_mpi_matcher_t *m)
{
    /* Unexpected messages nobody received, and those held back for a dynamic broadcast that
     * never came: give their cells back, completing rendezvous senders so that none of them
     * waits for ever. */
    for (int b = 0; b < TM_MPI_UNEXPECTED_BINS; b++)
        cells_drop(m->unexpected.head[b]);
    memset(&m->unexpected, 0, sizeof m->unexpected);
    cells_drop(m->held_head);
    m->held_head = m->held_tail = NULL;
    fastboxes_close(m);
    free(m->dyn_sent);
    free(m->dyn_delivered);
    m->dyn_sent = m->dyn_delivered = NULL;
}

void tm_mpi_p2p_finalize(tm_mpi_rank_t *r)
{
    tm_mpi_p2p_t *p = r->p2p;
    if (!p)
        return;
    /* MPI_Finalize completes the sends the program freed with MPI_Request_free or buffered with
     * MPI_Bsend: by rendezvous, their receivers still read them. */
    tm_mpi_bsend_drain(r);
    if (p->zombies && !zombies_done(r)) {
        tm_mpi_p2p_note_blocked(r, "MPI_Finalize(waiting for sends freed with MPI_Request_free "
                                   "to be received)");
        tm_mpi_p2p_wait_until(r, zombies_done, r);
    }
    zombies_sweep(r);
    /* A send still pending here (an erroneous program) may be completed later by its receiver:
     * its memory stays. A message taken by MPI_Mprobe and never received goes back to its
     * sender like an unexpected one. */
    for (int i = 0; i < p->nrequests; i++)
        if (p->requests[i] && p->requests[i]->kind == TM_MPI_REQ_MESSAGE && p->requests[i]->cell) {
            unexpected_return(&p->match.unexpected, p->requests[i]->cell);
            p->requests[i]->cell = NULL;
        }
    for (int i = 0; i < p->nrequests; i++) {
        tm_mpi_request_t *req = p->requests[i];
        if (req && req->kind == TM_MPI_REQ_GREQ)
            tm_mpi_greq_unregister(req); /* never completed: an erroneous program */
        if (!req || tm_mpi_request_is_complete(req) || req->kind != TM_MPI_REQ_SEND)
            free(req);
    }
    while (p->free_requests) {
        tm_mpi_request_t *req = p->free_requests;
        p->free_requests = req->next;
        free(req);
    }
    free(p->requests);
    tm_mpi_matcher_fini(&p->match);
    free(p);
    r->p2p = NULL;
}

/* The world rank of `rank` of communicator `comm`. */
static inline int comm_world_rank(const tm_mpi_comm_t *comm, int rank)
{
    return tm_mpi_group_world_rank(comm->group, rank);
}

void tm_mpi_mailbox_wake(tm_mpi_mailbox_t *mailbox)
{
    /* Loaded again: a sleeper gone since tm_mpi_mailbox_poke looked has seen the work. */
    tm_sched_ult_t *ult = atomic_load_explicit(&mailbox->sleeper, memory_order_relaxed);
    if (ult)
        tm_rt_profile_unpark(ult);
    /* acquire: pairs with the progress thread's release; it was made on another core */
    ult = atomic_load_explicit(&mailbox->helper, memory_order_acquire);
    if (ult)
        tm_rt_profile_unpark(ult);
}

void tm_mpi_mailbox_wake_rank(tm_mpi_mailbox_t *mailbox)
{
    tm_sched_ult_t *ult = atomic_load_explicit(&mailbox->sleeper, memory_order_relaxed);
    if (ult)
        tm_rt_profile_unpark(ult);
}

void tm_mpi_mailbox_poke_rank(tm_mpi_mailbox_t *mailbox)
{
    atomic_thread_fence(memory_order_seq_cst); /* as in tm_mpi_mailbox_poke */
    tm_mpi_mailbox_wake_rank(mailbox);
}

/* ---- fastboxes ---------------------------------------------------------------------------------
 *
 * A fastbox is a ring of cells (shm/ring.c) from one sending side to one receiving side of the
 * same kind (program or collectives), for the eager messages that fit its cells: the sender
 * writes the message in place and the receiver reads it there. Through the queue, a message also
 * costs the cache lines of the queue's links and of the pool's free lists, each a transfer
 * between cores on the way.
 *
 * Opening: the first small eager message from a side to another opens a fastbox, unless the
 * receiving side has TM_MPI_FASTBOX_MAX already (a side receiving from many polls only the first
 * few; the others use the queue, and a refused sender never asks again). The sender makes it and
 * sends a FASTBOX cell through the queue; from that cell on, the receiver polls it after the
 * queue.
 *
 * Order: from the opening on, the sender numbers every message it sends to that side (pair_seq,
 * from 1), through the fastbox or the queue: messages that do not fit a fastbox cell, or find it
 * full, take the queue. The receiver takes each sender's messages in that order: a queue cell
 * ahead of its turn waits among the held-back cells (as for dynamic broadcasts), and a fastbox
 * whose oldest cell is not its turn is left alone until it is. Messages sent before the opening
 * went through the queue ahead of the FASTBOX cell, so they come first anyway.
 * Dynamic broadcasts reach a destination through the queue, from other ranks, while the root's
 * messages sent before one may sit in the root's fastbox: a delivery is taken in only when no
 * message of its root numbered for it waits at the head of that fastbox or among the held-back
 * cells (dyn_preceded). With the queue alone, the queue's order did that.
 *
 * Cells: the receiver frees them in any order, like pool cells; one kept as unexpected keeps the
 * cells after it from being written again (the sender then uses the queue until it is
 * received). They are cancellable as other cells (see p2p.h): the claim word is in the cell.
 *
 * Lifetime: two references, the sender's and the receiver's, each dropped when that side
 * finalizes; the last frees the fastbox.
 */
struct tm_mpi_fastbox {
    tm_shm_ring_t *ring;
    int from;                                     /* the sending side's world rank */
    _Atomic int refs;                             /* its sender's and its receiver's */
    alignas(TM_SHM_CACHE_LINE) uint32_t next_seq; /* sender only: the next message's pair_seq */
    bool same_vp; /* between two programs' sides whose ranks share a VP (fastbox_poke) */
    alignas(TM_SHM_CACHE_LINE) uint32_t expected; /* receiver only: pair_seq of the next to take */
};

/* The data bytes a fastbox cell carries after its envelope. */
#define FASTBOX_PAYLOAD                                                                            \
    (TM_MPI_FASTBOX_LINES * TM_SHM_CACHE_LINE - sizeof(tm_shm_cell_t) - sizeof(tm_mpi_envelope_t))

/* A fastbox_to entry for a side that refused one. */
#define FASTBOX_REFUSED ((tm_mpi_fastbox_t *)(uintptr_t)1)

static inline uint32_t pair_seq_next(uint32_t seq)
{
    return seq == UINT32_MAX ? 1 : seq + 1; /* 0 means "not numbered" */
}

static void fastbox_unref(tm_mpi_fastbox_t *fb)
{
    /* acq_rel: the other side's last uses of the ring come before the free */
    if (atomic_fetch_sub_explicit(&fb->refs, 1, memory_order_acq_rel) == 1) {
        tm_shm_ring_destroy(fb->ring);
        free(fb);
    }
}

/* Opens a fastbox from m's side to mailbox `to` (world rank `dest`); NULL when `to` has its
 * share or memory is short (the queue then carries everything, as before). */
static tm_mpi_fastbox_t *fastbox_open(tm_mpi_matcher_t *m, tm_mpi_mailbox_t *to, int dest)
{
    m->fastbox_to[dest] = FASTBOX_REFUSED; /* unless opened below */
    /* Relaxed: a counter of reservations, nothing is published through it. */
    if (atomic_fetch_add_explicit(&to->fastboxes_taken, 1, memory_order_relaxed) >=
        TM_MPI_FASTBOX_MAX)
        return NULL;
    tm_mpi_fastbox_t *fb = aligned_alloc(TM_SHM_CACHE_LINE, sizeof *fb);
    tm_shm_cell_t *cell = tm_shm_cell_alloc(m->mailbox->pool);
    if (!fb || !cell ||
        tm_shm_ring_create(TM_MPI_FASTBOX_LINES * TM_SHM_CACHE_LINE - sizeof(tm_shm_cell_t),
                           TM_MPI_FASTBOX_CELLS, &fb->ring) < 0) {
        free(fb);
        if (cell)
            tm_shm_cell_free(cell);
        atomic_fetch_sub_explicit(&to->fastboxes_taken, 1, memory_order_relaxed);
        return NULL;
    }
    fb->from = m->world_rank;
    atomic_init(&fb->refs, 2);
    fb->next_seq = 1;
    /* Ranks never leave their VP; a collective side's sender may be its progress thread. */
    fb->same_vp =
        m->mailbox < mailboxes + nmailboxes && tm_rt_rank_vp(dest) == tm_rt_rank_vp(m->world_rank);
    fb->expected = 1;
    tm_mpi_envelope_t *env = cell_envelope(cell);
    memset(env, 0, sizeof *env);
    env->protocol = TM_MPI_PROTO_FASTBOX;
    env->origin = fb->from;
    atomic_store_explicit(&env->claim, TM_MPI_CLAIM_TAKEN, memory_order_relaxed);
    memcpy(cell_payload(cell), &fb, sizeof fb);
    /* No poke: the message that opens it follows at once, and pokes. */
    tm_shm_queue_push(&to->inbound, cell);
    m->fastbox_to[dest] = fb;
    return fb;
}

/* Wakes the receiving side of fastbox fb, which has a message more (tm_mpi_mailbox_poke). Between
 * two ranks of one VP, without the fence: the receiving rank is parked or waits its turn on
 * this kernel thread, and it publishes itself as sleeper and looks for work without yielding in
 * between (tm_mpi_p2p_wait_noted), so program order alone lets one of us see the other. A
 * program's mailbox has no helper to look for. The fence costs a send 20 to 30 cycles while
 * nothing else is pending; more when its store waits for a line that another core polls. */
static inline void fastbox_poke(const tm_mpi_fastbox_t *fb, tm_mpi_mailbox_t *to)
{
    if (!fb->same_vp)
        tm_mpi_mailbox_poke(to);
    else if (atomic_load_explicit(&to->sleeper, memory_order_relaxed))
        tm_mpi_mailbox_wake_rank(to);
}

/* The fastbox from m's side to mailbox `to` (world rank `dest`), else NULL; with `open`, opened
 * now if there is none yet. */
static inline tm_mpi_fastbox_t *fastbox_to(tm_mpi_matcher_t *m, tm_mpi_mailbox_t *to, int dest,
                                           bool open)
{
    if (!m->fastbox_to) {
        if (!open || !(m->fastbox_to = calloc((size_t)nmailboxes, sizeof *m->fastbox_to)))
            return NULL;
    }
    tm_mpi_fastbox_t *fb = m->fastbox_to[dest];
    if (fb == FASTBOX_REFUSED)
        return NULL;
    if (!fb && open)
        fb = fastbox_open(m, to, dest);
    return fb;
}

/* The receiving side of m takes in the FASTBOX cell that opens a fastbox: it polls it from now
 * on. */
static void fastbox_accept(tm_mpi_matcher_t *m, tm_shm_cell_t *cell)
{
    tm_mpi_fastbox_t *fb;
    memcpy(&fb, cell_payload(cell), sizeof fb);
    tm_shm_cell_free(cell);
    if (!m->fastbox_from &&
        !(m->fastbox_from = calloc((size_t)nmailboxes, sizeof *m->fastbox_from)))
        tm_rt_job_abort(m->world_rank, MPI_ERR_NO_MEM, "out of memory opening a fastbox");
    m->fastbox_from[fb->from] = fb;
    tm_mpi_mailbox_t *mb = m->mailbox;
    int n = atomic_load_explicit(&mb->nfastboxes, memory_order_relaxed);
    atomic_store_explicit(&mb->fastboxes[n], fb, memory_order_relaxed);
    /* release: a thread reading the count as a hint then sees the pointer */
    atomic_store_explicit(&mb->nfastboxes, n + 1, memory_order_release);
}

/* Drops m's ends of its fastboxes (its side finalizes). */
static void fastboxes_close(tm_mpi_matcher_t *m)
{
    if (m->fastbox_from) {
        for (int i = 0; i < nmailboxes; i++)
            if (m->fastbox_from[i])
                fastbox_unref(m->fastbox_from[i]);
        free(m->fastbox_from);
        m->fastbox_from = NULL;
        atomic_store_explicit(&m->mailbox->nfastboxes, 0, memory_order_relaxed);
        atomic_store_explicit(&m->mailbox->fastboxes_taken, 0, memory_order_relaxed);
    }
    if (m->fastbox_to) {
        for (int i = 0; i < nmailboxes; i++)
            if (m->fastbox_to[i] && m->fastbox_to[i] != FASTBOX_REFUSED)
                fastbox_unref(m->fastbox_to[i]);
        free(m->fastbox_to);
        m->fastbox_to = NULL;
    }
}

bool tm_mpi_mailbox_idle(const tm_mpi_mailbox_t *mb)
{
    if (!tm_shm_queue_is_empty(&mb->inbound))
        return false;
    int n = atomic_load_explicit(&mb->nfastboxes, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (!tm_shm_ring_is_empty(
                atomic_load_explicit(&mb->fastboxes[i], memory_order_relaxed)->ring))
            return false;
    return true;
}

/* ---- sending ----------------------------------------------------------------------------------
 */

/* Eager up to [p2p] eager_limit; synchronous sends complete once matched: rendezvous. */
static inline tm_mpi_protocol_t send_protocol(size_t bytes, bool synchronous)
{
    return bytes <= eager_limit && !synchronous ? TM_MPI_PROTO_EAGER : TM_MPI_PROTO_RNDV;
}

/* Sets the matching and ordering fields of the envelope of `cell` (the protocol's are the
 * caller's; pair_seq is 0). */
static void envelope_fill(tm_shm_cell_t *cell, int context_id, int source, int tag, size_t bytes,
                          int origin, uint32_t dyn_seq, bool dyn)
{
    tm_mpi_envelope_t *env = cell_envelope(cell);
    env->context_id = context_id;
    env->source = source;
    env->tag = tag;
    env->bytes = bytes <= UINT32_MAX ? (uint32_t)bytes : UINT32_MAX; /* else the source data's */
    env->origin = origin;
    env->dyn_seq = dyn_seq;
    env->pair_seq = 0;
    env->dyn = dyn;
    /* Not cancellable unless tm_mpi_matcher_send gives it a ticket. Relaxed: the push that
     * hands the cell over publishes it. */
    atomic_store_explicit(&env->claim, TM_MPI_CLAIM_TAKEN, memory_order_relaxed);
}

/* A cell of m's pool with its envelope filled (envelope_fill); NULL when out of memory. */
static tm_shm_cell_t *envelope_new(tm_mpi_matcher_t *m, int context_id, int source, int tag,
                                   size_t bytes, int origin, uint32_t dyn_seq, bool dyn)
{
    tm_shm_cell_t *cell = tm_shm_cell_alloc(m->mailbox->pool);
    if (cell)
        envelope_fill(cell, context_id, source, tag, bytes, origin, dyn_seq, dyn);
    return cell;
}

/* Eager: the data into the cell. */
static inline void envelope_pack(tm_shm_cell_t *cell, const void *buf, size_t count,
                                 const tm_mpi_type_t *type, size_t bytes)
{
    cell_envelope(cell)->protocol = TM_MPI_PROTO_EAGER;
    tm_rt_profile_mark_t copy = tm_rt_profile_begin(TM_RT_PROFILE_COPY);
    tm_mpi_type_pack(buf, count, type, 0, bytes, cell_payload(cell));
    tm_rt_profile_end(copy);
}

/* RNDV or SHARED: where the receiver copies from, in place of the data (the caller sets the
 * protocol's own fields of tm_mpi_source_data_t). */
static tm_mpi_source_data_t *envelope_source(tm_shm_cell_t *cell, tm_mpi_protocol_t protocol,
                                             const void *buf, size_t count,
                                             const tm_mpi_type_t *type, size_t bytes)
{
    tm_mpi_source_data_t *from = cell_source(cell);
    cell_envelope(cell)->protocol = (uint8_t)protocol;
    from->buf = buf;
    from->count = count;
    from->type = type;
    from->bytes = bytes;
    return from;
}

/* Hands the cell to mailbox `to` and wakes whoever sleeps on it. */
static void cell_post(tm_shm_cell_t *cell, tm_mpi_mailbox_t *to)
{
    tm_shm_queue_push(&to->inbound, cell);
    tm_mpi_mailbox_poke(to);
}

/* tm_mpi_matcher_send, inlined into the program's sends. req NULL: a blocking eager send, which
 * needs no request (done when this returns, and not cancellable). */
static inline __attribute__((always_inline)) int
matcher_send(tm_mpi_matcher_t *m, tm_mpi_request_t *req, const void *buf, size_t count,
             const tm_mpi_type_t *type, size_t bytes, tm_mpi_mailbox_t *to, int dest,
             int context_id, int source, int tag, bool synchronous)
{
    bool eager = send_protocol(bytes, synchronous) == TM_MPI_PROTO_EAGER;
    bool small = eager && bytes <= FASTBOX_PAYLOAD;
    tm_mpi_fastbox_t *fb = fastbox_to(m, to, dest, small);
    tm_shm_cell_t *cell = small && fb ? tm_shm_ring_alloc(fb->ring) : NULL;
    bool boxed = cell != NULL;
    if (!boxed && !(cell = tm_shm_cell_alloc(m->mailbox->pool)))
        return -ENOMEM;
    /* In order after this rank's dynamic broadcasts to the destination (see p2p.h), and after
     * its messages through the other way when it has a fastbox there. */
    envelope_fill(cell, context_id, source, tag, bytes, m->world_rank,
                  m->dyn_sent ? m->dyn_sent[dest] : 0, false);
    if (fb) {
        cell_envelope(cell)->pair_seq = fb->next_seq;
        fb->next_seq = pair_seq_next(fb->next_seq);
    }
    /* The program's sends are cancellable until received: the cell and its ticket, for
     * MPI_Cancel. The collectives' are not (their receivers then skip the exchange). */
    if (req && m->mailbox < mailboxes + nmailboxes) {
        if (m->last_ticket < TM_MPI_CLAIM_CANCELLED)
            m->last_ticket = TM_MPI_CLAIM_CANCELLED;
        req->cell = cell;
        req->ticket = ++m->last_ticket;
        atomic_store_explicit(&cell_envelope(cell)->claim, req->ticket, memory_order_relaxed);
    }
    if (eager) {
        envelope_pack(cell, buf, count, type, bytes);
        /* The data is in the cell: the buffer is free again. Nobody else sees this request
         * yet, so a plain store would do; the atomic keeps the one way of completing. */
        if (req)
            atomic_store_explicit(&req->complete, 1, memory_order_relaxed);
    } else {
        tm_mpi_source_data_t *from =
            envelope_source(cell, TM_MPI_PROTO_RNDV, buf, count, type, bytes);
        from->send_request = req;
        from->sender_mailbox = m->mailbox;
    }
    if (boxed) {
        tm_shm_ring_push(fb->ring, cell);
        fastbox_poke(fb, to);
    } else {
        cell_post(cell, to);
    }
    return 0;
}

int tm_mpi_matcher_send(tm_mpi_matcher_t *m, tm_mpi_request_t *req, const void *buf, size_t count,
                        const tm_mpi_type_t *type, size_t bytes, tm_mpi_mailbox_t *to,
                        int context_id, int source, int tag, bool synchronous)
{
    return matcher_send(m, req, buf, count, type, bytes, to, mailbox_world_rank(to), context_id,
                        source, tag, synchronous);
}

tm_shm_cell_t *tm_mpi_matcher_dyn_make(tm_mpi_matcher_t *m, int context_id, int source, int tag,
                                       int origin, uint32_t dyn_seq, const void *buf, size_t count,
                                       const tm_mpi_type_t *type, size_t bytes,
                                       void (*done)(void *arg), void *done_arg)
{
    tm_shm_cell_t *cell = envelope_new(m, context_id, source, tag, bytes, origin, dyn_seq, true);
    if (!cell)
        return NULL;
    if (!done) {
        envelope_pack(cell, buf, count, type, bytes);
    } else {
        tm_mpi_source_data_t *from =
            envelope_source(cell, TM_MPI_PROTO_SHARED, buf, count, type, bytes);
        from->done = done;
        from->done_arg = done_arg;
    }
    return cell;
}

void tm_mpi_dyn_post(tm_shm_cell_t *cell, int to)
{
    cell_post(cell, tm_mpi_mailbox_get(to, false));
}

int tm_mpi_matcher_dyn_init(tm_mpi_matcher_t *m)
{
    if (!m->dyn_sent && !(m->dyn_sent = calloc((size_t)nmailboxes, sizeof *m->dyn_sent)))
        return -ENOMEM;
    return 0;
}

uint32_t tm_mpi_matcher_dyn_next(tm_mpi_matcher_t *m, int dest)
{
    return m->dyn_sent[dest]++;
}

void tm_mpi_matcher_dyn_undo(tm_mpi_matcher_t *m, int dest)
{
    m->dyn_sent[dest]--;
}

size_t tm_mpi_eager_limit(void)
{
    return eager_limit;
}

/* ---- active messages ----------------------------------------------------------------------------
 */

tm_shm_cell_t *tm_mpi_am_alloc(tm_mpi_matcher_t *m, int kind)
{
    tm_shm_cell_t *cell = tm_shm_cell_alloc(m->mailbox->pool);
    if (!cell)
        return NULL;
    tm_mpi_envelope_t *env = cell_envelope(cell);
    memset(env, 0, sizeof *env);
    atomic_store_explicit(&env->claim, TM_MPI_CLAIM_TAKEN, memory_order_relaxed);
    env->protocol = TM_MPI_PROTO_AM;
    env->tag = kind;
    env->origin = m->world_rank;
    return cell;
}

size_t tm_mpi_am_capacity(void)
{
    return eager_limit > TM_MPI_AM_MIN_PAYLOAD ? eager_limit : TM_MPI_AM_MIN_PAYLOAD;
}

void *tm_mpi_am_payload(tm_shm_cell_t *cell)
{
    return cell_payload(cell);
}

int tm_mpi_am_kind(tm_shm_cell_t *cell)
{
    return cell_envelope(cell)->tag;
}

void tm_mpi_am_send(tm_shm_cell_t *cell, int to)
{
    tm_mpi_mailbox_t *mailbox = tm_mpi_mailbox_get(to, true);
    cell_post(cell, mailbox);
    /* Also the progress thread asleep with no rounds to run: it runs the handlers, whatever the
     * rank is doing. cell_post's poke fenced after the push. */
    tm_sched_ult_t *ult = atomic_load_explicit(&mailbox->am_helper, memory_order_acquire);
    if (ult)
        tm_rt_profile_unpark(ult);
}

int tm_mpi_p2p_isend(tm_mpi_rank_t *r, const void *buf, size_t count, tm_mpi_type_t *type,
                     size_t bytes, int dest, int tag, tm_mpi_comm_t *comm, bool synchronous,
                     tm_mpi_request_t **req_p)
{
    tm_mpi_request_t *req = tm_mpi_request_new(r, TM_MPI_REQ_SEND);
    if (!req)
        return -ENOMEM;
    req->comm = comm;
    req->source = dest;
    req->tag = tag;
    /* A rendezvous receiver reads the layout until it completes the send: keep it alive. An
     * eager send is done with it before this returns. */
    if (send_protocol(bytes, synchronous) == TM_MPI_PROTO_RNDV) {
        tm_mpi_type_retain(type);
        req->type = type;
    }
    int to = comm_world_rank(comm, dest);
    int rc =
        matcher_send(&r->p2p->match, req, buf, count, type, bytes, tm_mpi_mailbox_get(to, false),
                     to, comm->context_id, comm->rank, tag, synchronous);
    if (rc < 0) {
        tm_mpi_request_release(r, req);
        return rc;
    }
    *req_p = req;
    return 0;
}

int tm_mpi_p2p_send_eager(tm_mpi_rank_t *r, const void *buf, size_t count,
                          const tm_mpi_type_t *type, size_t bytes, int dest, int tag,
                          tm_mpi_comm_t *comm)
{
    int to = comm_world_rank(comm, dest);
    return matcher_send(&r->p2p->match, NULL, buf, count, type, bytes,
                        tm_mpi_mailbox_get(to, false), to, comm->context_id, comm->rank, tag,
                        false);
}

/* ---- matching ---------------------------------------------------------------------------------
 */

static inline bool envelope_matches(const tm_mpi_envelope_t *env, int context_id, int source,
                                    int tag)
{
    return env->context_id == context_id && (source == MPI_ANY_SOURCE || source == env->source) &&
           (tag == MPI_ANY_TAG || tag == env->tag);
}

/* ---- shared copies -----------------------------------------------------------------------------
 *
 * A rendezvous message is one copy, from the sender's buffer into the receiver's, which the
 * receiving side makes when it matches. A sender that waits meanwhile (in MPI_Send, MPI_Wait, a
 * blocking collective) has nothing else to do: for messages of COPY_SHARED_BYTES or more from a
 * rank of another core, the receiving side offers it part of the work. The copy is cut into
 * chunks of COPY_CHUNK_BYTES, which both sides claim one at a time, the receiver from the front
 * and the sender from the back, each copying type to type from the chunk's offset: both cores
 * copy at once, each through its own cache, and each writes the same part of a buffer that is
 * used again, whose lines then stay in its cache. Measured on 2 ranks: 4 MiB bandwidth from
 * 0.9 to 2.0 times a single-thread memcpy, 2 MiB broadcast 181 to 71 us, and round trips in
 * which both sides read and write the data they received 20% to 25% faster from 512 KiB on.
 * Below 512 KiB, benchmarks that send the same untouched buffer again and again lost up to 30%
 * (a scatter of 256 KiB): there the receiver finds the sender's lines in its own cache, and
 * reads from it nothing that the sender's help would save.
 *
 *   receiving side (in deliver)                  sending side (its progress, while it waits)
 *   job on the stack; CAS offer NULL -> &job     job = exchange(offer, NULL)
 *   poke the sender                              claim and copy chunks from the back until
 *   claim and copy chunks from the front until     none is left
 *     none is left                               helper_done := true (release)
 *   CAS offer &job -> NULL: it succeeds if the sender never took the job; else wait for
 *   helper_done (the sender is at most one chunk from the end), then complete the send
 *
 * The receiving side never waits for the sender to come: it copies whatever is left itself,
 * and waits only for a chunk that the sender has already claimed. A sender that does not wait,
 * or runs on the receiver's core (it could not run before the receiver is done), is not asked.
 * Only a CAS takes an offer back, so a receiver never takes another receiver's offer. */
#define COPY_SHARED_BYTES ((size_t)512 * 1024)
#define COPY_CHUNK_BYTES  ((size_t)64 * 1024)

/* Claims and copies chunks until none is left: the receiving side from the front, the sender
 * from the back, so that each side copies the same part of the message from one message to the
 * next, and the lines it writes stay in its core's cache. `left` holds the first chunk not
 * claimed from the front (low 32 bits) and one past the last not claimed from the back. */
static void copy_chunks(tm_mpi_copy_job_t *job, bool from_back)
{
    uint64_t left = atomic_load_explicit(&job->left, memory_order_relaxed);
    for (;;) {
        uint64_t front = left & 0xffffffffu, back = left >> 32;
        if (front >= back)
            return;
        uint64_t k = from_back ? back - 1 : front;
        uint64_t claimed = from_back ? (back - 1) << 32 | front : back << 32 | (front + 1);
        /* relaxed: each chunk only needs to go to one side */
        if (!atomic_compare_exchange_weak_explicit(&job->left, &left, claimed, memory_order_relaxed,
                                                   memory_order_relaxed))
            continue;
        left = claimed;
        size_t offset = (size_t)k * COPY_CHUNK_BYTES;
        size_t len =
            job->bytes - offset < COPY_CHUNK_BYTES ? job->bytes - offset : COPY_CHUNK_BYTES;
        tm_mpi_type_copy(job->dst, job->dst_count, job->dst_type, job->src, job->src_count,
                         job->src_type, offset, len);
    }
}

/* The receiving side's copy of `n` bytes of a rendezvous message into (buf, count, type),
 * shared with its sender. */
static void copy_shared(void *buf, size_t count, const tm_mpi_type_t *type,
                        const tm_mpi_source_data_t *from, size_t n)
{
    tm_mpi_copy_job_t job = {
        .dst = buf,
        .dst_count = count,
        .dst_type = type,
        .src = from->buf,
        .src_count = from->count,
        .src_type = from->type,
        .bytes = n,
    };
    atomic_init(&job.left, (uint64_t)((n + COPY_CHUNK_BYTES - 1) / COPY_CHUNK_BYTES) << 32);
    atomic_init(&job.helper_done, false);
    tm_mpi_mailbox_t *sender = from->sender_mailbox;
    tm_mpi_copy_job_t *none = NULL;
    /* release: the job's fields before the sender's acquire of the offer */
    bool offered = atomic_compare_exchange_strong_explicit(
        &sender->copy_offer, &none, &job, memory_order_release, memory_order_relaxed);
    if (offered)
        tm_mpi_mailbox_poke_rank(sender);
    copy_chunks(&job, false);
    tm_mpi_copy_job_t *mine = &job;
    if (offered &&
        !atomic_compare_exchange_strong_explicit(&sender->copy_offer, &mine, NULL,
                                                 memory_order_relaxed, memory_order_relaxed)) {
        /* acquire: the sender's copies before we complete the request */
        while (!atomic_load_explicit(&job.helper_done, memory_order_acquire))
            tm_sched_cpu_relax();
    }
}

/* The sending side's part: takes the copy offered to `mailbox`, if any, and copies chunks of it
 * until none is left. */
static void copy_help(tm_mpi_mailbox_t *mailbox)
{
    if (!atomic_load_explicit(&mailbox->copy_offer, memory_order_relaxed))
        return;
    /* acquire: pairs with the offer's release (the job's fields) */
    tm_mpi_copy_job_t *job =
        atomic_exchange_explicit(&mailbox->copy_offer, NULL, memory_order_acquire);
    if (!job)
        return; /* taken back meanwhile */
    tm_rt_profile_mark_t copy = tm_rt_profile_begin(TM_RT_PROFILE_COPY);
    copy_chunks(job, true);
    tm_rt_profile_end(copy);
    /* release: our copies before the receiver completes the message */
    atomic_store_explicit(&job->helper_done, true, memory_order_release);
}

/* Whether a rendezvous copy of n bytes from world rank `origin` is worth sharing with it. */
static bool copy_worth_sharing(const tm_mpi_envelope_t *env, size_t n)
{
    return n >= COPY_SHARED_BYTES && env->protocol == TM_MPI_PROTO_RNDV &&
           tm_rt_rank_vp(env->origin) != tm_sched_self_vp();
}

/* Delivers the message of `cell` into (buf, count, type): copies the data, fills *status (the
 * count received, MPI_ERR_TRUNCATE when the message was longer), frees the cell and completes
 * the sender's side. */
static void deliver_into(void *buf, size_t count, const tm_mpi_type_t *type, tm_shm_cell_t *cell,
                         MPI_Status *status)
{
    tm_mpi_envelope_t *env = cell_envelope(cell);
    size_t capacity = count * type->size;
    size_t n = cell_bytes(cell);
    status->MPI_ERROR = MPI_SUCCESS;
    if (n > capacity) {
        n = capacity;
        status->MPI_ERROR = MPI_ERR_TRUNCATE;
    }
    tm_rt_profile_mark_t copy = tm_rt_profile_begin(TM_RT_PROFILE_COPY);
    if (env->protocol == TM_MPI_PROTO_EAGER) {
        tm_mpi_type_unpack(cell_payload(cell), n, buf, count, type, 0);
        tm_rt_profile_end(copy);
    } else {
        /* The one copy: from the sender's buffer straight into the receiver's, type to type. */
        tm_mpi_source_data_t *from = cell_source(cell);
        if (copy_worth_sharing(env, n))
            copy_shared(buf, count, type, from, n);
        else
            tm_mpi_type_copy(buf, count, type, from->buf, from->count, from->type, 0, n);
        tm_rt_profile_end(copy);
        if (env->protocol == TM_MPI_PROTO_RNDV)
            tm_mpi_request_complete(from->send_request, from->sender_mailbox);
        else
            from->done(from->done_arg);
    }
    status->MPI_SOURCE = env->source;
    status->MPI_TAG = env->tag;
    status->tm_count = (MPI_Count)n;
    status->tm_cancelled = 0;
    tm_shm_cell_free(cell);
}

/* Delivers the message of `cell` to receive `req` (deliver_into) and completes it. */
static void deliver(tm_mpi_request_t *req, tm_shm_cell_t *cell)
{
    deliver_into(req->buf, req->count, req->type, cell, &req->status);
    /* Our own request: only this thread waits on it, but a progress thread may one day. */
    atomic_store_explicit(&req->complete, 1, memory_order_release);
}

/* Finds the first posted receive matching `env`; *prev_p = the one before it. */
static tm_mpi_request_t *posted_find(tm_mpi_matcher_t *p, const tm_mpi_envelope_t *env,
                                     tm_mpi_request_t **prev_p)
{
    tm_mpi_request_t *prev = NULL;
    for (tm_mpi_request_t *req = p->posted_head; req; prev = req, req = req->next) {
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
static void posted_unlink(tm_mpi_matcher_t *p, tm_mpi_request_t *req, tm_mpi_request_t *prev)
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
    return (unsigned)source % TM_MPI_UNEXPECTED_BINS;
}

/* Keeps `cell` (taken in, matching no posted receive) after the others of its bin. */
static void unexpected_add(tm_mpi_unexpected_t *u, tm_shm_cell_t *cell)
{
    tm_mpi_envelope_t *env = cell_envelope(cell);
    unsigned b = unexpected_bin(env->source);
    env->arrival = u->arrivals++;
    cells_append(&u->head[b], &u->tail[b], cell);
    u->nonempty |= UINT64_C(1) << b;
}

/* Puts back `cell`, taken from the unexpected messages, first in its bin: it was the first
 * match (its arrival number is kept). */
static void unexpected_return(tm_mpi_unexpected_t *u, tm_shm_cell_t *cell)
{
    unsigned b = unexpected_bin(cell_envelope(cell)->source);
    atomic_store_explicit(&cell->next, u->head[b], memory_order_relaxed);
    u->head[b] = cell;
    if (!u->tail[b])
        u->tail[b] = cell;
    u->nonempty |= UINT64_C(1) << b;
}

/* Unlinks `cell` of bin b, which follows prev; returns the one after it. */
static tm_shm_cell_t *unexpected_unlink(tm_mpi_unexpected_t *u, unsigned b, tm_shm_cell_t *cell,
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
static tm_shm_cell_t *unexpected_bin_find(tm_mpi_unexpected_t *u, unsigned b, int context_id,
                                          int source, int tag, tm_shm_cell_t **prev_p)
{
    tm_shm_cell_t *prev = NULL, *cell = u->head[b];
    while (cell) {
        if (cell_cancelled(cell)) {
            tm_shm_cell_t *next = unexpected_unlink(u, b, cell, prev);
            tm_shm_cell_free(cell);
            cell = next;
            continue;
        }
        if (envelope_matches(cell_envelope(cell), context_id, source, tag)) {
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
static tm_shm_cell_t *unexpected_search(tm_mpi_matcher_t *m, int context_id, int source, int tag,
                                        bool take)
{
    tm_mpi_unexpected_t *u = &m->unexpected;
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
                if (cell && (!found || (int32_t)(cell_envelope(cell)->arrival -
                                                 cell_envelope(found)->arrival) < 0)) {
                    found = cell;
                    found_prev = prev;
                    found_bin = b;
                }
            }
        }
        if (!found || !take)
            return found;
        unexpected_unlink(u, found_bin, found, found_prev);
        if (cell_claim(found))
            return found;
        tm_shm_cell_free(found); /* cancelled since the check above: look again */
    }
}

/* unexpected_search, after the common case of a receive posted ahead: no message waits. */
static inline tm_shm_cell_t *unexpected_find(tm_mpi_matcher_t *m, int context_id, int source,
                                             int tag, bool take)
{
    if (!m->unexpected.nonempty)
        return NULL;
    return unexpected_search(m, context_id, source, tag, take);
}

/* Requests freed by MPI_Request_free while pending go when they complete. */
static void zombies_sweep(tm_mpi_rank_t *r)
{
    tm_mpi_request_t **link = &r->p2p->zombies;
    while (*link) {
        tm_mpi_request_t *req = *link;
        if (tm_mpi_request_zombie_done(req)) {
            *link = req->next;
            tm_mpi_request_release(r, req);
        } else {
            link = &req->next;
        }
    }
}

static bool zombies_done(void *arg)
{
    tm_mpi_rank_t *r = arg;
    for (tm_mpi_request_t *req = r->p2p->zombies; req; req = req->next)
        if (!tm_mpi_request_zombie_done(req))
            return false;
    return true;
}

/* Matches a message that is in order: to the first posted receive it fits, else to the end of
 * the unexpected list. */
static void match(tm_mpi_matcher_t *m, tm_shm_cell_t *cell)
{
    tm_mpi_request_t *prev;
    tm_mpi_request_t *req = posted_find(m, cell_envelope(cell), &prev);
    /* Kept as unexpected, it stays cancellable: only a delivery claims it. */
    if (!req && !cell_cancelled(cell)) {
        unexpected_add(&m->unexpected, cell);
        return;
    }
    if (!req || !cell_claim(cell)) {
        tm_shm_cell_free(cell); /* cancelled: as if it never came */
        return;
    }
    posted_unlink(m, req, prev);
    deliver(req, cell);
    if (req->freed)
        tm_mpi_request_release(req->owner, req);
}

/* true when a message of the root of dynamic broadcast `env` (number env->dyn_seq) that was
 * sent before it waits here: at the head of the root's fastbox, or held back. Such messages
 * carry the broadcast's number as their dyn_seq; the root sent them before it started the
 * broadcast, so they are in the fastbox or the queue ahead of any of its deliveries, and the
 * broadcast must wait for them (non-overtaking). */
static bool dyn_preceded(const tm_mpi_matcher_t *m, const tm_mpi_envelope_t *env)
{
    tm_mpi_fastbox_t *fb = m->fastbox_from ? m->fastbox_from[env->origin] : NULL;
    tm_shm_cell_t *head = fb ? tm_shm_ring_peek(fb->ring) : NULL;
    if (head && cell_envelope(head)->dyn_seq == env->dyn_seq)
        return true;
    for (tm_shm_cell_t *cell = m->held_head; cell;
         cell = atomic_load_explicit(&cell->next, memory_order_relaxed)) {
        const tm_mpi_envelope_t *e = cell_envelope(cell);
        if (!e->dyn && e->origin == env->origin && e->dyn_seq == env->dyn_seq)
            return true;
    }
    return false;
}

/* true when every dynamic broadcast of the message's origin that comes before it here has been
 * taken in (see "Order with dynamic broadcasts" in p2p.h), and every message its sender sent
 * here before it when it has a fastbox here (see "Fastboxes"). */
static inline bool in_order(const tm_mpi_matcher_t *m, const tm_mpi_envelope_t *env)
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
static bool take_in_count(tm_mpi_matcher_t *m, const tm_mpi_envelope_t *env)
{
    bool dyn = env->dyn;
    if (env->pair_seq != 0) {
        tm_mpi_fastbox_t *fb = m->fastbox_from[env->origin];
        fb->expected = pair_seq_next(fb->expected);
    }
    if (dyn) {
        if (!m->dyn_delivered &&
            !(m->dyn_delivered = calloc((size_t)nmailboxes, sizeof *m->dyn_delivered)))
            tm_rt_job_abort(m->world_rank, MPI_ERR_NO_MEM,
                            "out of memory receiving a dynamic broadcast");
        m->dyn_delivered[env->origin]++;
    }
    return dyn;
}

/* Takes in a message that is in order; returns true when it was a dynamic broadcast (the
 * messages held back for it may now be in order). */
static bool take_in(tm_mpi_matcher_t *m, tm_shm_cell_t *cell)
{
    bool dyn = take_in_count(m, cell_envelope(cell));
    match(m, cell);
    return dyn;
}

/* Takes in the held-back messages that are in order now, oldest first, until none is. */
static void held_release(tm_mpi_matcher_t *m)
{
    tm_shm_cell_t *prev = NULL, *cell = m->held_head;
    while (cell) {
        tm_shm_cell_t *next = atomic_load_explicit(&cell->next, memory_order_relaxed);
        if (!in_order(m, cell_envelope(cell))) {
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

bool tm_mpi_matcher_progress(tm_mpi_matcher_t *m)
{
    tm_mpi_mailbox_t *mb = m->mailbox;
    bool did = false, moved, stalled;
    tm_shm_cell_t *cell;
    do {
        moved = stalled = false;
        while ((cell = tm_shm_queue_pop(&mb->inbound)) != NULL) {
            moved = true;
            tm_mpi_envelope_t *env = cell_envelope(cell);
            if (env->protocol == TM_MPI_PROTO_AM)
                m->am_handler(m->am_arg, cell);
            else if (env->protocol == TM_MPI_PROTO_FASTBOX)
                fastbox_accept(m, cell);
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
                if (!in_order(m, cell_envelope(cell))) {
                    stalled = true; /* until its turn comes, through the queue */
                    break;
                }
                tm_shm_ring_pop(ring);
                moved = true;
                take_in(m, cell); /* never a dynamic broadcast */
            }
        }
        if (moved && m->held_head)
            held_release(m);
        did |= moved;
        /* A fastbox waiting for its turn may have it now. */
    } while (moved && stalled);
    return did;
}

/* true when m's mailbox has a message m can take in now: the exact test of its consumer, after
 * a seq_cst fence. A fastbox whose oldest cell waits for its turn has none: the message it
 * waits for comes through the queue, which pokes. */
static bool matcher_has_work(const tm_mpi_matcher_t *m)
{
    const tm_mpi_mailbox_t *mb = m->mailbox;
    if (!tm_shm_queue_is_empty(&mb->inbound))
        return true;
    int n = atomic_load_explicit(&mb->nfastboxes, memory_order_relaxed);
    for (int i = 0; i < n; i++) {
        tm_shm_cell_t *cell =
            tm_shm_ring_peek(atomic_load_explicit(&mb->fastboxes[i], memory_order_relaxed)->ring);
        if (cell && in_order(m, cell_envelope(cell)))
            return true;
    }
    return false;
}

bool tm_mpi_p2p_progress(tm_mpi_rank_t *r)
{
    TM_RT_PROFILE_SCOPE(PROGRESS);
    tm_mpi_p2p_t *p = r->p2p;
    if (p->zombies)
        zombies_sweep(r);
    /* A receiver's offer to share the copy of a large message from this rank (the program's, or
     * a collective's) */
    copy_help(p->match.mailbox);
    copy_help(tm_mpi_mailbox_get(r->rt->world_rank, true));
    bool did = tm_mpi_matcher_progress(&p->match);
    if (r->nbc && tm_nbc_has_work(r->nbc))
        did |= tm_nbc_progress(r->nbc, true);
    return did;
}

static void peer_name(int rank, char *buf, size_t len)
{
    if (rank == MPI_ANY_SOURCE)
        snprintf(buf, len, "MPI_ANY_SOURCE");
    else
        snprintf(buf, len, "%d", rank);
}

/* The status a receive of the message of `cell` gets (the count before any truncation). */
static void envelope_status(tm_shm_cell_t *cell, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    const tm_mpi_envelope_t *env = cell_envelope(cell);
    status->MPI_SOURCE = env->source;
    status->MPI_TAG = env->tag;
    status->MPI_ERROR = MPI_SUCCESS;
    status->tm_count = (MPI_Count)cell_bytes(cell);
    status->tm_cancelled = 0;
}

/* ---- receiving --------------------------------------------------------------------------------
 */

void tm_mpi_matcher_recv(tm_mpi_matcher_t *m, tm_mpi_request_t *req, int context_id, int source,
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

int tm_mpi_p2p_irecv(tm_mpi_rank_t *r, void *buf, size_t count, tm_mpi_type_t *type, int source,
                     int tag, tm_mpi_comm_t *comm, tm_mpi_request_t **req_p)
{
    tm_mpi_request_t *req = tm_mpi_request_new(r, TM_MPI_REQ_RECV);
    if (!req)
        return -ENOMEM;
    req->comm = comm;
    req->buf = buf;
    req->count = count;
    tm_mpi_type_retain(type);
    req->type = type;
    tm_mpi_matcher_recv(&r->p2p->match, req, comm->context_id, source, tag);
    *req_p = req;
    return 0;
}

/* ---- receiving at once ------------------------------------------------------------------------
 *
 * A blocking receive of a message that is there already, or comes soon through its sender's
 * fastbox, needs no request: making one, posting it, matching the message against the posted
 * list and completing it was most of the time of a small message's receive. tm_mpi_p2p_recv_now
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
static tm_shm_cell_t *fastbox_take(tm_mpi_rank_t *r, tm_mpi_matcher_t *m, int context_id,
                                   int source, int world_source, int tag)
{
    tm_mpi_fastbox_t *fb = m->fastbox_from ? m->fastbox_from[world_source] : NULL;
    if (!fb)
        return NULL;
    int polls = 0; /* decided when the fastbox is first found empty */
    tm_mpi_request_t *prev;
    for (int i = 0;; i++) {
        tm_shm_cell_t *cell = tm_shm_ring_peek(fb->ring);
        if (!cell) {
            if (i == 0 &&
                (!r->nbc || (tm_nbc_has_progress_thread(r->nbc) && !tm_nbc_has_schedules(r->nbc))))
                polls = FASTBOX_POLLS;
            if (i + 1 >= polls || !tm_shm_queue_is_empty(&m->mailbox->inbound) ||
                tm_sched_others_ready())
                return NULL;
            continue;
        }
        const tm_mpi_envelope_t *env = cell_envelope(cell);
        if (!in_order(m, env) || !envelope_matches(env, context_id, source, tag) ||
            (m->posted_head && posted_find(m, env, &prev)))
            return NULL;
        tm_shm_ring_pop(fb->ring);
        take_in_count(m, env);
        /* Held-back messages may be in order now: as after any message taken in. */
        if (m->held_head)
            held_release(m);
        if (cell_claim(cell))
            return cell;
        tm_shm_cell_free(cell); /* cancelled: as if it never came */
    }
}

int tm_mpi_p2p_recv_now(tm_mpi_rank_t *r, void *buf, size_t count, const tm_mpi_type_t *type,
                        int source, int tag, tm_mpi_comm_t *comm, MPI_Status *status)
{
    TM_RT_PROFILE_SCOPE(PROGRESS);
    tm_mpi_matcher_t *m = &r->p2p->match;
    tm_shm_cell_t *cell = unexpected_find(m, comm->context_id, source, tag, true);
    if (!cell && source != MPI_ANY_SOURCE)
        cell = fastbox_take(r, m, comm->context_id, source, comm_world_rank(comm, source), tag);
    if (!cell)
        return -1;
    MPI_Status ignored;
    if (status == MPI_STATUS_IGNORE)
        status = &ignored;
    deliver_into(buf, count, type, cell, status);
    return status->MPI_ERROR;
}

bool tm_mpi_p2p_probe(tm_mpi_rank_t *r, int source, int tag, tm_mpi_comm_t *comm, bool block,
                      MPI_Status *status)
{
    tm_mpi_p2p_progress(r);
    tm_shm_cell_t *found = unexpected_find(&r->p2p->match, comm->context_id, source, tag, false);
    if (!found && !block) {
        tm_rt_profile_yield();
        tm_mpi_p2p_progress(r);
        found = unexpected_find(&r->p2p->match, comm->context_id, source, tag, false);
    }
    if (!found && block) {
        char peer[24];
        peer_name(source, peer, sizeof peer);
        tm_mpi_p2p_note_blocked(r, "MPI_Probe(source=%s, tag=%d, comm=%s)", peer, tag, comm->name);
    }
    while (!found && block) {
        tm_mpi_p2p_wait_until(r, NULL, NULL); /* until something arrives */
        found = unexpected_find(&r->p2p->match, comm->context_id, source, tag, false);
    }
    if (!found)
        return false;
    envelope_status(found, status);
    return true;
}

tm_mpi_request_t *tm_mpi_p2p_mprobe(tm_mpi_rank_t *r, int source, int tag, tm_mpi_comm_t *comm,
                                    bool block, MPI_Status *status)
{
    /* Probe (it waits or polls as MPI_Probe/MPI_Iprobe do), then take what it found. Only this
     * thread touches the lists, but the sender may cancel the message in between: then take
     * the next one, probing again. */
    tm_shm_cell_t *cell = NULL;
    while (!cell) {
        if (!tm_mpi_p2p_probe(r, source, tag, comm, block, MPI_STATUS_IGNORE))
            return NULL;
        cell = unexpected_find(&r->p2p->match, comm->context_id, source, tag, true);
    }
    tm_mpi_request_t *msg = tm_mpi_request_new(r, TM_MPI_REQ_MESSAGE);
    if (!msg) {
        /* Back first among the unexpected: it was the first match. */
        unexpected_return(&r->p2p->match.unexpected, cell);
        return NULL;
    }
    envelope_status(cell, status);
    msg->comm = comm;
    msg->cell = cell;
    return msg;
}

tm_mpi_request_t *tm_mpi_p2p_mrecv(tm_mpi_rank_t *r, tm_mpi_request_t *msg, void *buf, size_t count,
                                   tm_mpi_type_t *type)
{
    tm_mpi_request_t *req = tm_mpi_request_new(r, TM_MPI_REQ_RECV);
    if (!req)
        return NULL;
    req->comm = msg->comm;
    req->buf = buf;
    req->count = count;
    tm_mpi_type_retain(type);
    req->type = type;
    deliver(req, msg->cell);
    msg->cell = NULL;
    tm_mpi_request_release(r, msg);
    return req;
}

bool tm_mpi_p2p_cancel_recv(tm_mpi_rank_t *r, tm_mpi_request_t *req)
{
    tm_mpi_matcher_t *p = &r->p2p->match;
    tm_mpi_request_t *prev = NULL;
    for (tm_mpi_request_t *q = p->posted_head; q; prev = q, q = q->next) {
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

bool tm_mpi_p2p_cancel_send(tm_mpi_request_t *req)
{
    if (!req->cell)
        return false; /* nothing in flight: to MPI_PROC_NULL, buffered, or cancelled already */
    uint64_t ticket = req->ticket;
    /* acq_rel: pairs with the receiver's exchange in cell_claim (see p2p.h). The cell may have
     * been received and reused for a later send of ours since: its ticket is then another. */
    bool won = atomic_compare_exchange_strong_explicit(&cell_envelope(req->cell)->claim, &ticket,
                                                       TM_MPI_CLAIM_CANCELLED, memory_order_acq_rel,
                                                       memory_order_acquire);
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

/* ---- waiting ------------------------------------------------------------------------------------
 */

void tm_mpi_p2p_poll(tm_mpi_rank_t *r, bool (*done)(void *arg), void *arg)
{
    TM_RT_PROFILE_SCOPE(PROGRESS);
    tm_mpi_p2p_progress(r);
    if (done(arg))
        return;
    tm_rt_profile_yield();
    tm_mpi_p2p_progress(r);
}

/* The runtime's diagnosis: a note recorded by blocked_record, in words. */
static void blocked_describe(const void *bytes, char *buf, size_t len)
{
    tm_mpi_blocked_note_t note;
    memcpy(&note, bytes, sizeof note);
    if (note.count == 0) {
        snprintf(buf, len, "%s", note.text);
        return;
    }
    char what[160] = "";
    if (note.pending > 0)
        tm_mpi_request_note_words(&note.first, what, sizeof what);
    if (!note.call)
        snprintf(buf, len, "%s", what);
    else if (note.count == 1)
        snprintf(buf, len, "%s(%s)", note.call, what);
    else
        snprintf(buf, len, "%s(%d requests, %d pending, the first: %s)", note.call, note.count,
                 note.pending, what);
}

_Static_assert(sizeof(tm_mpi_blocked_note_t) <= TM_RT_BLOCKED_NOTE_SIZE,
               "a blocked note fits the runtime's");

/* Hands `note` to the runtime's diagnosis: the rank blocks from now until its wait ends. */
static void blocked_record(tm_mpi_rank_t *r, const tm_mpi_blocked_note_t *note)
{
    memcpy(r->rt->blocked_note, note, sizeof *note);
    r->rt->blocked_describe = blocked_describe;
    /* release: the diagnosis reads the note after seeing the flag */
    atomic_store_explicit(&r->rt->blocked, 1, memory_order_release);
}

void tm_mpi_p2p_note_blocked(tm_mpi_rank_t *r, const char *fmt, ...)
{
    if (!notes_read)
        return;
    tm_mpi_blocked_note_t note = {.count = 0};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note.text, sizeof note.text, fmt, ap);
    va_end(ap);
    blocked_record(r, &note);
}

void tm_mpi_request_note(const tm_mpi_request_t *req, tm_mpi_request_note_t *note)
{
    note->call = req->call;
    note->kind = req->kind;
    note->peer = req->source;
    note->tag = req->tag;
    note->ndests = req->ndests;
    const char *comm = req->comm ? req->comm->name : "?";
    size_t n = strnlen(comm, sizeof note->comm - 1);
    memcpy(note->comm, comm, n);
    note->comm[n] = '\0';
}

void tm_mpi_request_note_words(const tm_mpi_request_note_t *note, char *buf, size_t len)
{
    char peer[24], tag[24];
    const char *call = note->call ? note->call : "?";
    if (note->kind == TM_MPI_REQ_COLL) {
        snprintf(buf, len, "%s(comm=%s)", call, note->comm);
        return;
    }
    if (note->kind == TM_MPI_REQ_GREQ) {
        snprintf(buf, len, "MPI_Grequest_start(a generalized request not completed yet)");
        return;
    }
    if (note->ndests > 0) {
        snprintf(buf, len, "%s(ndests=%d, tag=%d, comm=%s)", call, note->ndests, note->tag,
                 note->comm);
        return;
    }
    peer_name(note->peer, peer, sizeof peer);
    if (note->tag == MPI_ANY_TAG)
        snprintf(tag, sizeof tag, "MPI_ANY_TAG");
    else
        snprintf(tag, sizeof tag, "%d", note->tag);
    snprintf(buf, len, "%s(%s=%s, tag=%s, comm=%s)", call,
             note->kind == TM_MPI_REQ_SEND ? "dest" : "source", peer, tag, note->comm);
}

void tm_mpi_request_describe(const tm_mpi_request_t *req, char *buf, size_t len)
{
    tm_mpi_request_note_t note;
    tm_mpi_request_note(req, &note);
    tm_mpi_request_note_words(&note, buf, len);
}

void tm_mpi_request_blocked_note(void *req, tm_mpi_blocked_note_t *out)
{
    out->call = NULL;
    out->count = out->pending = 1;
    tm_mpi_request_note(req, &out->first);
}

void tm_mpi_p2p_wait_until(tm_mpi_rank_t *r, bool (*done)(void *arg), void *arg)
{
    tm_mpi_p2p_wait_noted(r, done, arg, NULL, NULL);
}

void tm_mpi_p2p_wait_noted(tm_mpi_rank_t *r, bool (*done)(void *arg), void *arg,
                           void (*note)(void *note_arg, tm_mpi_blocked_note_t *out), void *note_arg)
{
    TM_RT_PROFILE_SCOPE(PROGRESS);
    tm_mpi_mailbox_t *mb = r->p2p->match.mailbox;
    tm_mpi_mailbox_t *coll = tm_mpi_mailbox_get(r->rt->world_rank, true);
    tm_sched_ult_t *self = tm_sched_self();
    if (!notes_read)
        note = NULL;
    for (;;) {
        for (int polls = 0; polls < WAIT_POLLS_BEFORE_SLEEP; polls++) {
            bool did = tm_mpi_p2p_progress(r);
            if (done ? done(arg) : did) {
                atomic_store_explicit(&r->rt->blocked, 0, memory_order_relaxed);
                return;
            }
            if (tm_sched_others_ready())
                break;
        }
        /* Sleep until poked: publish the sleeper, then look for work once more (the other half
         * of tm_mpi_mailbox_poke's Dekker handshake, hence the fence). With collectives under
         * way, their mailbox and their engine may also have work for this rank: a message,
         * a send completed, a round its progress thread finished (nbc/ pokes then); without a
         * progress thread, the rank forwards the dynamic broadcasts that come to it. */
        bool colls = r->nbc && (tm_nbc_has_work(r->nbc) || !tm_nbc_has_progress_thread(r->nbc));
        atomic_store_explicit(&mb->sleeper, self, memory_order_relaxed);
        if (colls)
            atomic_store_explicit(&coll->sleeper, self, memory_order_relaxed);
        atomic_thread_fence(memory_order_seq_cst);
        bool work = matcher_has_work(&r->p2p->match) || (done && done(arg)) ||
                    atomic_load_explicit(&mb->copy_offer, memory_order_relaxed) ||
                    atomic_load_explicit(&coll->copy_offer, memory_order_relaxed) ||
                    (colls && (!tm_mpi_mailbox_idle(coll) || tm_nbc_progress(r->nbc, true)));
        if (!work && note) { /* about to sleep: now the note is worth making */
            tm_mpi_blocked_note_t record;
            note(note_arg, &record);
            blocked_record(r, &record);
            note = NULL;
        }
        if (!work)
            tm_rt_profile_park();
        atomic_store_explicit(&mb->sleeper, NULL, memory_order_relaxed);
        if (colls)
            atomic_store_explicit(&coll->sleeper, NULL, memory_order_relaxed);
    }
}
