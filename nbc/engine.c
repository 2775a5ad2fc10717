/*
 * The engine of a rank: its collective mailbox's matching, the schedules under way, and the
 * progress thread that runs their background rounds (see nbc.h).
 *
 * Ownership. Everything here but the flags belongs to the holder of `lock`: the rank (inside its
 * MPI calls) or its progress thread. The lock is only ever tried: a rank that finds it taken
 * knows the other side is progressing and goes on waiting (it yields, then sleeps); the holder
 * never yields while holding it, so a progress thread sharing its rank's core can never hold it
 * while the rank runs. A schedule of one round of polls that only the rank runs (a non-blocking
 * barrier waiting for the members' entries, coll/flat.c) is the rank's alone from its start: it
 * stays on a list of the rank's, outside the lock, and the rank's progress looks at its polls
 * without a pass over the engine (on 2 ranks, an ibarrier's wait is then a scan of two lines).
 *
 * Wake-ups. The progress thread sleeps as `helper` of the collective mailbox while some schedule
 * is at a round it may run (`background`): a message, a rendezvous send completed or a schedule
 * handed over (tm_sched_unpark) wakes it. With none, it sleeps as `am_helper`, which only active
 * messages wake: every other message is for a round the rank runs itself, and waking the thread
 * for it put the thread in the rank's way (on the rank's core, a switch to it and back at each
 * of the rank's yields; from another core, the waker's transfers of the thread's lines: on 2
 * ranks pinned, 8 bytes, an ibcast takes 0.60 us instead of 0.40, an ibarrier 0.69 instead of
 * 0.51). A rank whose pass leaves a schedule at such a round, when there was none, wakes a
 * thread asleep as `am_helper` (Dekker on `background` and `am_helper`). The rank
 * sleeps in tm_p2p_wait_until as `sleeper` of both its mailboxes; the progress thread pokes
 * it when it completes a schedule or leaves one at a round only the rank may run. Each side
 * publishes itself, fences, then looks for work once more: no wake-up is lost.
 *
 * Alone on a core (progress = idle or comm), the thread first polls, for [nbc] progress_spin_us,
 * the hints that there is work for it (`background`, and the mailbox's `am_posted` for active
 * messages), on lines that change only when those do, and leaves the rounds to its rank while
 * the rank runs them (progress_may_run), except the large ones, which the rank hands off as it
 * starts them ([nbc] handoff_bytes). Sharing the rank's core, it runs only when the rank yields.
 * Either way it runs a pass only for a round it may run or an active message: the rank's own rounds
 * are the rank's, in its MPI calls (a thread on the rank's core that passed whenever it ran did the
 * rank's matching between the rank's yields, for nothing).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/group.h"
#include "runtime/profile.h"
#include "runtime/rank.h"
#include "sched.h"

/* A progress thread with nothing to do polls a while before it sleeps, as a waiting rank does
 * (p2p/wait.c): a few rounds when it shares its core with ranks. */
#define IDLE_YIELDS_BEFORE_SLEEP 2
#define IDLE_POLLS_BEFORE_SLEEP  2000
/* Alone on a core, it runs a pass only once the rank has left the engine alone (its count of
 * passes has not moved) for GRACE_SECONDS: a collective started and at once waited for is the
 * rank's (two sides on one schedule would pass its lines to and fro), while a computation the
 * thread overlaps, or a rank that sleeps or waits for its turn on a busy core, lasts longer. */
#define GRACE_SECONDS 2e-6
/* Alone on a core, it looks for work this often. */
#define POLL_INTERVAL_SECONDS 0.5e-6
/* Who runs a pass over the engine, and which rounds it may run. */
typedef enum pass_mode {
    PASS_THREAD,      /* the progress thread: the background (ANY) rounds */
    PASS_RANK,        /* the rank, in its MPI calls: every round */
    PASS_RANK_ROUNDS, /* the rank handing a schedule off as it starts it: the RANK rounds */
} pass_mode_t;

struct tm_nbc_engine {
    /* The holder's, behind the lock. */
    _Atomic int lock; /* 0: free, 1: held */
    tm_p2p_matcher_t match;
    tm_nbc_sched_t *head, *tail; /* under way, in start order */
    _Atomic int nscheds;         /* their number, read without the lock as a hint */
    /* The rank's own: the schedules of one round of polls that only the rank runs (a
     * non-blocking barrier's wait for the members' entries): looked at in the rank's progress,
     * without the lock or a pass (rank_polls_run). */
    tm_nbc_sched_t *polls;
    tm_mpi_rank_t *rank;
    tm_p2p_mailbox_t *p2p_mailbox; /* the rank's, to poke it */
    tm_sched_ult_t *progress;      /* the progress thread, NULL with progress = none */
    tm_nbc_sched_t *spare;         /* the rank's (tm_nbc_engine_spare_take) */
    /* What the progress thread polls, on a line of its own that changes only with news for it
     * (a line it shares with the holder's would come and go with every lock). */
    /* Some schedule is at a round the progress thread may run: written by the passes that
     * change it. */
    alignas(TM_SHM_CACHE_LINE) _Atomic bool background;
    /* The rank handed off a schedule ([nbc] handoff_bytes): the thread passes at once, without the
     * grace; it lowers this as it does. */
    _Atomic bool handoff;
    /* Schedules under way whose background rounds send TM_P2P_COPY_SHARED_BYTES or more at once:
     * while there are some, the thread looks for the copies their receivers offer to share (on
     * the mailbox's line, which the rank writes whenever it sleeps). */
    _Atomic int sharing;
    _Atomic int stop;        /* MPI_Finalize: the progress thread ends */
    _Atomic int exited;      /* the progress thread no longer touches the engine */
    _Atomic bool *am_posted; /* its mailbox's (p2p.h), fixed */
    bool alone;              /* its core is its own (tm_rt_progress_alone): it polls longer */
    /* The rank's passes over the engine, counted: while the count moves, the rank is at the
     * engine itself, and a progress thread alone on its core keeps off (progress_may_run). On
     * a line of its own, which the thread reads once per GRACE_SECONDS at most. */
    alignas(TM_SHM_CACHE_LINE) _Atomic unsigned rank_passes;
};

static void progress_main(void *arg);

static bool rank_polls_run(tm_nbc_engine_t *e);

/* The engine's share of its rank's progress and waits (tm_p2p_hook_t). */
static bool hook_progress(void *ctx)
{
    tm_nbc_engine_t *e = ctx;
    bool did = e->polls && rank_polls_run(e);
    if (atomic_load_explicit(&e->nscheds, memory_order_relaxed) != 0 ||
        !tm_p2p_mailbox_idle(e->match.mailbox))
        did |= tm_nbc_progress(e, true);
    return did;
}

static bool hook_pending(const void *ctx)
{
    return tm_nbc_has_work(ctx);
}

static bool hook_needs_rank(const void *ctx)
{
    return tm_nbc_has_schedules(ctx) || !tm_nbc_has_progress_thread(ctx);
}

static const tm_p2p_hook_t engine_hook = {
    .progress = hook_progress,
    .pending = hook_pending,
    .needs_rank = hook_needs_rank,
};

int tm_nbc_engine_create(tm_mpi_rank_t *r)
{
    /* aligned: the hints' line is a line of its own */
    size_t bytes =
        (sizeof(tm_nbc_engine_t) + TM_SHM_CACHE_LINE - 1) & ~(size_t)(TM_SHM_CACHE_LINE - 1);
    tm_nbc_engine_t *e = aligned_alloc(TM_SHM_CACHE_LINE, bytes);
    if (!e)
        return -ENOMEM;
    memset(e, 0, sizeof *e);
    e->rank = r;
    e->match.mailbox = tm_p2p_mailbox_get(r->rt->world_rank, true);
    e->match.world_rank = r->rt->world_rank;
    e->p2p_mailbox = tm_p2p_mailbox_get(r->rt->world_rank, false);
    /* The progress thread exists from the start: a dynamic broadcast may come to this rank at
     * any time, and must go on down its tree while the rank computes. */
    int vp = tm_rt_progress_vp(r->rt->world_rank);
    if (vp >= 0) { /* else [placement] progress = none: the rank runs everything in its calls */
        e->alone = tm_rt_progress_alone(r->rt->world_rank);
        e->am_posted = &e->match.mailbox->am_posted;
        int rc = tm_sched_ult_create(vp, progress_main, e, 0, &e->progress);
        if (rc < 0) {
            free(e);
            return rc;
        }
    }
    r->nbc = e;
    tm_p2p_hook_set(r, &engine_hook, e);
    return 0;
}

bool tm_nbc_has_work(const tm_nbc_engine_t *e)
{
    return e->polls || atomic_load_explicit(&e->nscheds, memory_order_relaxed) != 0 ||
           !tm_p2p_mailbox_idle(e->match.mailbox);
}

bool tm_nbc_has_schedules(const tm_nbc_engine_t *e)
{
    return e->polls || atomic_load_explicit(&e->nscheds, memory_order_relaxed) != 0;
}

bool tm_nbc_has_progress_thread(const tm_nbc_engine_t *e)
{
    return e->progress != NULL;
}

static bool engine_trylock(tm_nbc_engine_t *e)
{
    int expected = 0;
    /* A plain load first: a taken lock is not written to, so its cache line is not bounced. */
    if (atomic_load_explicit(&e->lock, memory_order_relaxed))
        return false;
    /* acquire: the previous holder's writes to the engine are seen */
    return atomic_compare_exchange_strong_explicit(&e->lock, &expected, 1, memory_order_acquire,
                                                   memory_order_relaxed);
}

static void engine_unlock(tm_nbc_engine_t *e)
{
    atomic_store_explicit(&e->lock, 0, memory_order_release);
}

/* Takes the lock for a short update; the holder (on another core) never yields holding it. */
static void engine_lock(tm_nbc_engine_t *e)
{
    while (!engine_trylock(e))
        tm_sched_cpu_relax();
}

/* ---- running schedules ---- */

_Noreturn static void out_of_memory(tm_nbc_sched_t *s)
{
    char why[160];
    snprintf(why, sizeof why, "rank %d: out of memory in a collective operation",
             s->owner->rt->world_rank);
    tm_rt_job_abort(s->owner->rt->world_rank, MPI_ERR_NO_MEM, why);
}

static void round_start(tm_nbc_engine_t *e, tm_nbc_sched_t *s)
{
    int round = atomic_load_explicit(&s->round, memory_order_relaxed);
    int first = round > 0 ? s->rounds[round - 1].end : 0;
    for (int i = first; i < s->rounds[round].end; i++) {
        tm_nbc_action_t *a = &s->actions[i];
        switch (a->kind) {
        case TM_NBC_SEND: {
            tm_p2p_request_t *req = &a->req;
            memset(req, 0, sizeof *req);
            req->kind = TM_P2P_REQ_SEND;
            req->owner = s->owner;
            int world = tm_mpi_group_world_rank(s->group, a->send.peer);
            if (tm_p2p_matcher_send(&e->match, req, a->send.buf, a->send.count, a->send.type,
                                    a->send.count * a->send.type->size,
                                    tm_p2p_mailbox_get(world, true), s->context_id, s->rank, s->tag,
                                    false, s->status_error) < 0)
                out_of_memory(s);
            break;
        }
        case TM_NBC_RECV: {
            tm_p2p_request_t *req = &a->req;
            memset(req, 0, sizeof *req);
            req->kind = TM_P2P_REQ_RECV;
            req->owner = s->owner;
            req->buf = a->recv.buf;
            req->count = a->recv.count;
            req->type = a->recv.type;
            tm_p2p_matcher_recv(&e->match, req, s->context_id, a->recv.peer, s->tag);
            break;
        }
        case TM_NBC_OP:
            tm_mpi_op_apply(a->op.op, a->op.in, a->op.inout, a->op.count, a->op.type);
            break;
        case TM_NBC_COPY: {
            size_t sbytes = a->copy.scount * a->copy.stype->size;
            size_t dbytes = a->copy.dcount * a->copy.dtype->size;
            tm_rt_profile_mark_t copy = tm_rt_profile_begin(TM_RT_PROFILE_COPY);
            tm_mpi_type_copy(a->copy.dst, a->copy.dcount, a->copy.dtype, a->copy.src,
                             a->copy.scount, a->copy.stype, 0, sbytes < dbytes ? sbytes : dbytes);
            tm_rt_profile_end(copy);
            break;
        }
        case TM_NBC_POLL: /* round_done asks */
            break;
        }
    }
    s->round_started = true;
}

/* true when every transfer of the running round is complete. */
static bool round_done(tm_nbc_sched_t *s)
{
    int round = atomic_load_explicit(&s->round, memory_order_relaxed);
    int first = round > 0 ? s->rounds[round - 1].end : 0;
    for (int i = first; i < s->rounds[round].end; i++) {
        tm_nbc_action_t *a = &s->actions[i];
        if ((a->kind == TM_NBC_SEND || a->kind == TM_NBC_RECV) &&
            !tm_p2p_request_is_complete(&a->req))
            return false;
        if (a->kind == TM_NBC_POLL && !a->poll.ready(a->poll.obj, a->poll.target, &a->poll.cursor))
            return false;
    }
    /* A collective's receives expect exactly what the members' arguments say: a message longer
     * (truncated) or shorter than its receive means the members passed different amounts. */
    for (int i = first; i < s->rounds[round].end && s->status_error == MPI_SUCCESS; i++) {
        tm_nbc_action_t *a = &s->actions[i];
        if (a->kind != TM_NBC_RECV)
            continue;
        if (a->req.status.MPI_ERROR != MPI_SUCCESS)
            s->status_error = a->req.status.MPI_ERROR;
        else if ((size_t)a->req.status.tm_count < a->recv.count * a->recv.type->size)
            s->status_error = MPI_ERR_TRUNCATE;
    }
    return true;
}

/* s's communicator broke (tm_nbc_sched_abort_on): withdraws its receives under way, skips its
 * later rounds, and fails its request. A send under way keeps s for good: its receiver may never
 * take it, and the copy's end would write into the action's request. */
static void sched_abort(tm_nbc_engine_t *e, tm_nbc_sched_t *s)
{
    int round = atomic_load_explicit(&s->round, memory_order_relaxed);
    if (s->round_started) {
        int first = round > 0 ? s->rounds[round - 1].end : 0;
        for (int i = first; i < s->rounds[round].end; i++) {
            tm_nbc_action_t *a = &s->actions[i];
            if (a->kind == TM_NBC_RECV && !tm_p2p_request_is_complete(&a->req))
                tm_p2p_matcher_cancel_recv(&e->match, &a->req);
            else if (a->kind == TM_NBC_SEND && !tm_p2p_request_is_complete(&a->req))
                s->kept = true;
        }
    }
    s->round_started = false;
    s->status_error = MPI_ERR_OTHER;
    atomic_store_explicit(&s->round, s->nrounds, memory_order_relaxed);
}

/* Runs s as far as it can go now, in the rounds that `mode` may run. Returns true when it did
 * something. */
static bool sched_advance(tm_nbc_engine_t *e, tm_nbc_sched_t *s, pass_mode_t mode)
{
    bool did = false;
    for (;;) {
        int round = atomic_load_explicit(&s->round, memory_order_relaxed);
        if (s->round_started) {
            if (!round_done(s))
                return did;
            s->round_started = false;
            did = true;
            atomic_store_explicit(&s->round, ++round, memory_order_relaxed);
            if (round == s->nrounds)
                return true;
        }
        tm_nbc_where_t where = s->rounds[round].where;
        if ((mode == PASS_THREAD && where == TM_NBC_RANK) ||
            (mode == PASS_RANK_ROUNDS && where == TM_NBC_ANY))
            return did;
        round_start(e, s);
        did = true;
    }
}

/* Completes the request of s, which is over; after that the rank may free s. */
static void sched_complete(tm_nbc_engine_t *e, tm_nbc_sched_t *s)
{
    if (s->sharing)
        atomic_fetch_sub_explicit(&e->sharing, 1, memory_order_relaxed);
    tm_p2p_request_t *req = s->req;
    req->status.MPI_ERROR = s->status_error;
    if (s->kept)
        req->coll = NULL; /* its release does not free s (sched_abort) */
    /* release: the rank's acquire load of `complete` sees the results */
    atomic_store_explicit(&req->complete, 1, memory_order_release);
}

/* Whether s is one round of polls that only the rank runs: the rank keeps it (e->polls). */
static bool sched_is_rank_poll(const tm_nbc_sched_t *s)
{
    if (s->nrounds != 1 || s->rounds[0].where != TM_NBC_RANK)
        return false;
    for (int i = 0; i < s->nactions; i++)
        if (s->actions[i].kind != TM_NBC_POLL)
            return false;
    return true;
}

/* The rank's look at its polls (e->polls): completes those that are over, or whose
 * communicator broke. Returns true when it completed one. */
static bool rank_polls_run(tm_nbc_engine_t *e)
{
    bool did = false;
    for (tm_nbc_sched_t **link = &e->polls, *s; (s = *link);) {
        if (__builtin_expect(s->abort && atomic_load_explicit(s->abort, memory_order_acquire), 0))
            sched_abort(e, s);
        else if (!round_done(s)) {
            link = &s->next;
            continue;
        }
        *link = s->next;
        atomic_store_explicit(&s->round, s->nrounds, memory_order_relaxed);
        sched_complete(e, s);
        did = true;
    }
    return did;
}

/* One pass over the engine, lock held. *rank_work_p: a schedule waits for a round only the rank
 * may run, or one was completed. *background_rose_p: `background` is true now and was not. */
static bool engine_pass(tm_nbc_engine_t *e, pass_mode_t mode, bool *rank_work_p,
                        bool *background_rose_p)
{
    bool by_rank = mode != PASS_THREAD;
    bool did = tm_p2p_matcher_progress(&e->match);
    bool background = false;
    tm_nbc_sched_t *prev = NULL, *next;
    for (tm_nbc_sched_t *s = e->head; s; s = next) {
        next = s->next;
        if (__builtin_expect(s->abort && atomic_load_explicit(s->abort, memory_order_acquire), 0) &&
            atomic_load_explicit(&s->round, memory_order_relaxed) < s->nrounds) {
            sched_abort(e, s);
            did = true;
        } else if (sched_advance(e, s, mode)) {
            did = true;
        }
        int round = atomic_load_explicit(&s->round, memory_order_relaxed);
        if (round < s->nrounds) {
            if (s->rounds[round].where == TM_NBC_RANK)
                *rank_work_p = true;
            else
                background = true;
            prev = s;
            continue;
        }
        /* Done: out of the list, then complete the request; after that the rank may free s. */
        if (prev)
            prev->next = next;
        else
            e->head = next;
        if (e->tail == s)
            e->tail = prev;
        sched_complete(e, s);
        atomic_fetch_sub_explicit(&e->nscheds, 1, memory_order_relaxed);
        *rank_work_p = true;
    }
    if (!e->head) /* nothing under way: a moment without sends from the collectives' side */
        tm_p2p_matcher_trim(&e->match);
    /* Stored only when it changes: the progress thread polls its line. A rank whose thread is
     * alone on a core leaves it raised when its schedules are done: the thread lowers it in its
     * next pass, which it runs only once the rank has rested (progress_may_run), so that a rank
     * starting collective after collective does not move the line twice each. */
    bool was = atomic_load_explicit(&e->background, memory_order_relaxed);
    *background_rose_p = background && !was;
    if (background != was && (background || !by_rank || !e->alone))
        atomic_store_explicit(&e->background, background, memory_order_relaxed);
    return did;
}

static bool engine_progress(tm_nbc_engine_t *e, pass_mode_t mode)
{
    TM_RT_PROFILE_SCOPE(ENGINE);
    bool by_rank = mode != PASS_THREAD;
    if (!engine_trylock(e))
        return true; /* the other side is at it */
    if (by_rank)
        atomic_store_explicit(&e->rank_passes,
                              atomic_load_explicit(&e->rank_passes, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    bool rank_work = false, background_rose = false;
    bool did = engine_pass(e, mode, &rank_work, &background_rose);
    engine_unlock(e);
    if (!by_rank && did && rank_work) {
        tm_p2p_mailbox_poke_rank(e->p2p_mailbox);
        tm_p2p_mailbox_poke_rank(e->match.mailbox);
    }
    if (by_rank && background_rose && e->progress) {
        /* The other half of the thread's sleep: `background` stored, then am_helper loaded. */
        atomic_thread_fence(memory_order_seq_cst);
        if (atomic_load_explicit(&e->match.mailbox->am_helper, memory_order_relaxed))
            tm_rt_profile_unpark(e->progress);
    }
    return did;
}

bool tm_nbc_progress(tm_nbc_engine_t *e, bool by_rank)
{
    return engine_progress(e, by_rank ? PASS_RANK : PASS_THREAD);
}

/* ---- the progress thread ---- */

/* Whether the progress thread may have something to do: rounds it may run, or an active
 * message. Loads of its own line and of am_posted's only: polling moves no line while nothing
 * changes. Messages for the rank's own rounds are the rank's business. */
static bool progress_has_work(const tm_nbc_engine_t *e)
{
    return atomic_load_explicit(&e->background, memory_order_relaxed) ||
           atomic_load_explicit(e->am_posted, memory_order_relaxed);
}

/* Whether the progress thread, which has seen rounds for it or an active message, may run a
 * pass now. Sharing its rank's core, it runs only when the rank yields: always. Alone on a core,
 * only once the rank has left the engine alone for GRACE_SECONDS: a collective started and at
 * once waited for is the rank's (two sides on one schedule would pass its lines to and fro),
 * while a rank that computes, or that sleeps, or whose core runs other ranks, lets its count of
 * passes rest. *since: when the thread last saw the count move (-1: not looked yet); *seen: the
 * count then. */
static bool progress_may_run(tm_nbc_engine_t *e, double *since, unsigned *seen)
{
    if (!e->alone)
        return true;
    if (atomic_load_explicit(&e->handoff, memory_order_relaxed)) {
        atomic_store_explicit(&e->handoff, false, memory_order_relaxed);
        *since = -1;
        return true;
    }
    double now = tm_rt_wtime();
    if (*since >= 0 && now - *since < GRACE_SECONDS)
        return false;
    unsigned passes = atomic_load_explicit(&e->rank_passes, memory_order_relaxed);
    if (*since < 0 || passes != *seen) {
        *since = now;
        *seen = passes;
        return false;
    }
    return true;
}

/* The thread has had nothing to do for a while: it sleeps until poked, as `helper` of the
 * collective mailbox while some schedule is at a round it may run (any message wakes it), else as
 * `am_helper`, which only active messages and the rank's pass that leaves rounds for it wake. */
static void progress_sleep(tm_nbc_engine_t *e, tm_sched_ult_t *self)
{
    /* Publish, fence, look once more (the other half of tm_p2p_mailbox_poke's, of
     * tm_p2p_am_send's and of tm_nbc_progress's). A schedule handed over meanwhile unparks us:
     * the permit makes park return at once. */
    bool background = atomic_load_explicit(&e->background, memory_order_relaxed);
    tm_p2p_mailbox_t *mb = e->match.mailbox;
    tm_sched_ult_t *_Atomic *as = background ? &mb->helper : &mb->am_helper;
    /* release: a poker on another core reads the ULT through this pointer */
    atomic_store_explicit(as, self, memory_order_release);
    atomic_thread_fence(memory_order_seq_cst);
    bool news = !tm_p2p_mailbox_idle(mb) ||
                (!background && (atomic_load_explicit(e->am_posted, memory_order_relaxed) ||
                                 atomic_load_explicit(&e->background, memory_order_relaxed)));
    /* A round may also wait for shared memory (a TM_NBC_POLL action: coll/flat.c's rings), which
     * its writer pokes after it wrote: one pass more looks at it (a pass that finds the lock
     * taken says so too: the other side is at work). */
    if (!news && background)
        news = tm_nbc_progress(e, false);
    if (!news && !atomic_load_explicit(&e->stop, memory_order_relaxed))
        tm_sched_park();
    atomic_store_explicit(as, NULL, memory_order_relaxed);
}

static void progress_main(void *arg)
{
    tm_nbc_engine_t *e = arg;
    tm_sched_ult_t *self = tm_sched_self();
    int yields = 0, polls = 0;
    double idle_since = -1; /* alone: since when it has had nothing to do */
    double rank_since = -1; /* progress_may_run's */
    unsigned rank_seen = 0;
    tm_rt_profile_attach_self(e->rank->rt->world_rank, true);
    tm_rt_progress_attach_self(e->rank->rt->world_rank);
    while (!atomic_load_explicit(&e->stop, memory_order_acquire)) {
        bool did = false;
        /* Alone on its core, it takes its share of the copy of a large message that its rank's
         * schedule sent, which the receiving side offers to whoever waits on the sender's side
         * (p2p/copy.c): the copy ends sooner with two cores at it, and the rank, computing,
         * would not come to take it. */
        if (e->alone && atomic_load_explicit(&e->sharing, memory_order_relaxed) &&
            tm_p2p_copy_help(e->match.mailbox)) {
            did = true;
        } else if (!progress_has_work(e)) {
            rank_since = -1;
        } else if (progress_may_run(e, &rank_since, &rank_seen)) {
            /* acquire: the active messages posted before the flag (tm_p2p_am_send) */
            if (atomic_load_explicit(e->am_posted, memory_order_relaxed))
                atomic_exchange_explicit(e->am_posted, false, memory_order_acquire);
            /* Profiled as passes, each counted: the time between them is not the rank's. */
            tm_rt_profile_stream_t *pass =
                tm_rt_profile_call_begin(TM_RT_PROFILE_PROGRESS_PASS, TM_RT_PROFILE_ENGINE);
            did = tm_nbc_progress(e, false);
            tm_rt_profile_call_end(pass);
        }
        if (did) {
            yields = polls = 0;
            idle_since = -1;
            tm_sched_yield(); /* ranks of this core, if any, run between passes */
            continue;
        }
        if (e->alone) {
            /* Polls at intervals (each look at lines that the rank writes costs it their
             * transfer back at its next write; other progress threads of this core run in
             * between), for [nbc] progress_spin_us (1 ms) after its last work: that core is the
             * job's, and a thread that polls takes a schedule handed over at the cost of the
             * line that says so, where waking a sleeping one costs the rank a system call and
             * the thread its core's wake-up, several microseconds. Past that, a job that
             * computes without collectives gets the core back. */
            double now = tm_rt_wtime();
            if (idle_since < 0)
                idle_since = now;
            if (now - idle_since < tm_rt_progress_spin()) {
                tm_sched_yield();
                while (tm_rt_wtime() - now < POLL_INTERVAL_SECONDS)
                    tm_sched_cpu_relax();
                continue;
            }
        } else if (yields < IDLE_YIELDS_BEFORE_SLEEP && ++polls < IDLE_POLLS_BEFORE_SLEEP) {
            yields += tm_sched_yield();
            continue;
        }
        yields = polls = 0;
        idle_since = -1;
        progress_sleep(e, self);
    }
    /* release: the rank frees the engine once it sees this */
    atomic_store_explicit(&e->exited, 1, memory_order_release);
}

/* A schedule whose background rounds move or combine [nbc] handoff_bytes at once (a transfer, a
 * reduction or a copy; 256 KiB by default) is handed to a progress thread alone on its core as it
 * starts: the rank runs only its own rounds in the call, and the thread takes the others at once,
 * without the grace. Run by the rank, the call would make the copies and reductions that the
 * thread is there to overlap with the rank's computation (a receive whose message came first is
 * copied as it is posted); beside such work, the thread's taking over costs nothing. */
void tm_nbc_engine_start(tm_mpi_rank_t *r, tm_nbc_sched_t *s, bool background, size_t largest)
{
    tm_nbc_engine_t *e = r->nbc;
    if (sched_is_rank_poll(s)) { /* its caller looked once already */
        s->round_started = true; /* a poll has nothing to start */
        s->next = e->polls;
        e->polls = s;
        return;
    }
    bool handoff = background && e->progress && e->alone && largest >= tm_rt_handoff_bytes();
    s->sharing = background && e->progress && e->alone && largest >= TM_P2P_COPY_SHARED_BYTES;
    if (s->sharing)
        atomic_fetch_add_explicit(&e->sharing, 1, memory_order_relaxed);
    engine_lock(e);
    s->next = NULL;
    if (e->tail)
        e->tail->next = s;
    else
        e->head = s;
    e->tail = s;
    atomic_fetch_add_explicit(&e->nscheds, 1, memory_order_relaxed);
    engine_unlock(e);
    /* A thread that shares a core with ranks gets the schedule now, for when its rank yields; one
     * alone on its core sees `background` rise, or is woken by the pass below, or, handed the
     * schedule off, is woken now (it may sleep as the helper of another schedule's round). */
    if (handoff)
        atomic_store_explicit(&e->handoff, true, memory_order_relaxed);
    /* Start what can start now (the first sends, a reduction's leaf levels as far as their data
     * is there) without waiting for anybody: a non-blocking collective call is local. */
    engine_progress(e, handoff ? PASS_RANK_ROUNDS : PASS_RANK);
    if (background && e->progress && (!e->alone || handoff))
        tm_rt_profile_unpark(e->progress);
}

tm_nbc_sched_t *tm_nbc_engine_spare_take(tm_nbc_engine_t *e)
{
    tm_nbc_sched_t *s = e->spare;
    e->spare = NULL;
    return s;
}

bool tm_nbc_engine_spare_keep(tm_nbc_engine_t *e, tm_nbc_sched_t *s)
{
    if (e->spare)
        return false;
    e->spare = s;
    return true;
}

static bool engine_quiet(void *arg)
{
    tm_nbc_engine_t *e = arg;
    return tm_p2p_mailbox_idle(e->match.mailbox);
}

void tm_nbc_engine_destroy(tm_mpi_rank_t *r)
{
    tm_nbc_engine_t *e = r->nbc;
    if (!e)
        return;
    /* Other ranks' dynamic broadcasts that came here go on down their trees first: the
     * destinations below this rank wait for it. */
    tm_nbc_progress(e, true);
    if (!engine_quiet(e)) {
        tm_p2p_note_blocked(r, "MPI_Finalize(forwarding dynamic broadcasts to other ranks)");
        tm_p2p_wait_until(r, engine_quiet, e);
    }
    if (e->progress) {
        atomic_store_explicit(&e->stop, 1, memory_order_release);
        tm_sched_unpark(e->progress);
        while (!atomic_load_explicit(&e->exited, memory_order_acquire))
            if (!tm_sched_yield())
                tm_sched_cpu_relax();
    }
    /* Schedules still under way belong to requests the program never completed: they stay
     * with them. Messages nobody received go back. */
    tm_p2p_matcher_fini(&e->match);
    tm_p2p_hook_set(r, NULL, NULL);
    r->nbc = NULL; /* schedules freed from now on go back to the heap */
    tm_nbc_sched_free_memory(e->spare);
    free(e);
}
