/*
 * Progress and waiting: a rank's progress (its mailbox, the copies it helps with, the requests it
 * freed, and its collectives through their hook), the polls of the non-blocking tests, and the
 * waits that sleep until poked.
 */
#include "config.h"

#include <sched.h>
#include <time.h>

#include "p2p/p2p_impl.h"
#include "p2p/transport.h"

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

/* Of those, the first polls also move the network's messages (ranks on other hosts), and those
 * while transfers are under way: each costs UCX's progress, a system call or more, so that 2000
 * of them would hold the core for milliseconds; past these, the network thread delivers, and
 * pokes the rank. */
#define WAIT_NET_POLLS 64

bool tm_p2p_progress(tm_mpi_rank_t *r)
{
    TM_RT_PROFILE_SCOPE(PROGRESS);
    tm_p2p_t *p = r->p2p;
    if (p->zombies)
        tm_p2p_request_zombies_sweep(r);
    /* A receiver's offer to share the copy of a large message from this rank (the program's, or
     * a collective's) */
    tm_p2p_copy_help(p->match.mailbox);
    tm_p2p_copy_help(tm_p2p_mailbox_get(r->rt->world_rank, true));
    bool did = tm_p2p_matcher_progress(&p->match);
    if (p->hook && p->hook->pending(p->hook_ctx))
        did |= p->hook->progress(p->hook_ctx);
    return did;
}

void tm_p2p_poll(tm_mpi_rank_t *r, bool (*done)(void *arg), void *arg)
{
    TM_RT_PROFILE_SCOPE(PROGRESS);
    tm_p2p_progress(r);
    if (done(arg))
        return;
    tm_rt_profile_yield();
    tm_p2p_progress(r);
}

void tm_p2p_wait_until(tm_mpi_rank_t *r, bool (*done)(void *arg), void *arg)
{
    tm_p2p_wait_noted(r, done, arg, NULL, NULL);
}

void tm_p2p_wait_noted(tm_mpi_rank_t *r, bool (*done)(void *arg), void *arg,
                       void (*note)(void *note_arg, tm_p2p_blocked_note_t *out), void *note_arg)
{
    tm_p2p_wait_sleeping(r, done, arg, note, note_arg, NULL);
}

/* A thread the rank started (MPI_THREAD_SERIALIZED, _MULTIPLE) waits by polling: it cannot sleep
 * as a ULT does, and nothing pokes it. Between polls it gives up the rank's turn, so that the
 * rank and its other threads go on, and lets its CPU go, then sleeps a little once it has
 * polled a while (what it waits for may take long). */
#define THREAD_WAIT_YIELDS   200
#define THREAD_WAIT_SLEEP_NS 20000

static void wait_thread(tm_mpi_rank_t *r, bool (*done)(void *arg), void *arg)
{
    for (unsigned polls = 0;; polls++) {
        bool did = tm_p2p_progress(r);
        if (done ? done(arg) : did)
            return;
        unsigned depth = tm_mpi_turn_give_all(r);
        if (polls < THREAD_WAIT_YIELDS)
            sched_yield();
        else
            nanosleep(&(struct timespec){0, THREAD_WAIT_SLEEP_NS}, NULL);
        tm_mpi_turn_take_back(r, depth);
    }
}

void tm_p2p_wait_sleeping(tm_mpi_rank_t *r, bool (*done)(void *arg), void *arg,
                          void (*note)(void *note_arg, tm_p2p_blocked_note_t *out), void *note_arg,
                          void (*sleeps)(void *arg))
{
    TM_RT_PROFILE_SCOPE(PROGRESS);
    if (r->threads && tm_rt_rank_self() != r->rt) {
        wait_thread(r, done, arg);
        return;
    }
    tm_p2p_mailbox_t *mb = r->p2p->match.mailbox;
    tm_p2p_mailbox_t *coll = tm_p2p_mailbox_get(r->rt->world_rank, true);
    tm_sched_ult_t *self = tm_sched_self();
    if (!tm_p2p_job.notes_read)
        note = NULL;
    /* A moment without sends: memory a burst took is given back once its cells are. */
    tm_p2p_matcher_trim(&r->p2p->match);
    for (;;) {
        int net_polls = WAIT_NET_POLLS;
        for (int polls = 0; polls < WAIT_POLLS_BEFORE_SLEEP; polls++) {
            /* Ranks on other hosts: the network too, for a while, unless someone else is moving
             * its messages; for longer while transfers are under way */
            bool did = false;
            if (__builtin_expect(tm_p2p_job.net_poll, 0) && net_polls > 0) {
                bool transfers;
                did = tm_p2p_net_poll(&transfers);
                net_polls = transfers ? WAIT_NET_POLLS : net_polls - 1;
            }
            did |= tm_p2p_progress(r);
            if (done ? done(arg) : did) {
                atomic_store_explicit(&r->rt->blocked, 0, memory_order_relaxed);
                return;
            }
            if (tm_sched_others_ready())
                break;
        }
        /* Sleep until poked: publish the sleeper, then look for work once more (the other half
         * of tm_p2p_mailbox_poke's Dekker handshake, hence the fence). With collectives under
         * way, their mailbox and their engine may also have work for this rank: a message,
         * a send completed, a round its progress thread finished (nbc/ pokes then); without a
         * progress thread, the rank forwards the dynamic broadcasts that come to it. */
        tm_p2p_t *p = r->p2p;
        bool colls = p->hook && (p->hook->pending(p->hook_ctx) || p->hook->needs_rank(p->hook_ctx));
        atomic_store_explicit(&mb->sleeper, self, memory_order_relaxed);
        if (colls)
            atomic_store_explicit(&coll->sleeper, self, memory_order_relaxed);
        atomic_thread_fence(memory_order_seq_cst);
        bool work = tm_p2p_matcher_has_work(&p->match) || (done && done(arg)) ||
                    atomic_load_explicit(&mb->copy_offer, memory_order_relaxed) ||
                    atomic_load_explicit(&coll->copy_offer, memory_order_relaxed) ||
                    (colls && (!tm_p2p_mailbox_idle(coll) || p->hook->progress(p->hook_ctx)));
        if (!work && sleeps) {
            sleeps(arg);
            sleeps = NULL;
        }
        if (!work && note) { /* about to sleep: now the note is worth making */
            tm_p2p_blocked_note_t record;
            note(note_arg, &record);
            tm_p2p_blocked_record(r, &record);
            note = NULL;
        }
        if (!work && r->threads) {
            /* Our turn goes while we sleep; a thread that takes it wakes us when it gives it
             * back (tm_mpi_turn_give), since what it did may be what we wait for. */
            atomic_store_explicit(&r->turn_sleeper, self, memory_order_relaxed);
            unsigned depth = tm_mpi_turn_give_all(r);
            tm_rt_profile_park();
            tm_mpi_turn_take_back(r, depth);
            atomic_store_explicit(&r->turn_sleeper, NULL, memory_order_relaxed);
        } else if (!work) {
            tm_rt_profile_park();
        }
        atomic_store_explicit(&mb->sleeper, NULL, memory_order_relaxed);
        if (colls)
            atomic_store_explicit(&coll->sleeper, NULL, memory_order_relaxed);
    }
}
