/*
 * Synchronization: fence, general active target (post, start, complete, wait) and passive
 * target (lock, unlock, lock_all). How each works is at the top of rma.h; the checks that the
 * calls come in a valid order are mpi/'s.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "p2p/p2p.h"
#include "rma.h"

static void poke_member(tm_rma_win_t *w, int m)
{
    tm_p2p_mailbox_poke(tm_p2p_mailbox_get(w->shared->targets[m].world_rank, false));
}

void tm_rma_fence(tm_rma_win_t *w, int assert, const char *call)
{
    tm_rma_barrier(w, call);
    w->fence = !(assert &MPI_MODE_NOSUCCEED);
    w->fence_access = false;
}

/* ------------------------------------------------------------------ PSCW */

/* A wait in MPI_Win_start for the post of each target of ranks[0..n-1], or in MPI_Win_wait
 * for n completes. */
typedef struct epoch_wait {
    tm_rma_win_t *w;
    const int *ranks;
    int n;
    const char *call;
} epoch_wait_t;

static bool posts_in(void *arg)
{
    epoch_wait_t *e = arg;

    for (int i = 0; i < e->n; i++) {
        int t = e->ranks[i];

        if (atomic_load_explicit(&e->w->posts[t], memory_order_acquire) == e->w->posts_seen[t])
            return false;
    }
    return true;
}

static bool completes_in(void *arg)
{
    epoch_wait_t *e = arg;
    tm_rma_win_t *w = e->w;

    return atomic_load_explicit(&w->shared->targets[w->rank].completes, memory_order_acquire) -
               w->completes_seen >=
           (unsigned)e->n;
}

static void epoch_note(void *arg, tm_p2p_blocked_note_t *out)
{
    epoch_wait_t *e = arg;
    tm_rma_win_t *w = e->w;
    int left = 0, first = -1;

    if (e->ranks != NULL) {
        for (int i = 0; i < e->n; i++) {
            int t = e->ranks[i];

            if (atomic_load_explicit(&w->posts[t], memory_order_relaxed) == w->posts_seen[t]) {
                left++;
                if (first < 0)
                    first = t;
            }
        }
    } else {
        left = e->n - (int)(atomic_load_explicit(&w->shared->targets[w->rank].completes,
                                                 memory_order_relaxed) -
                            w->completes_seen);
    }
    out->call = e->call;
    out->count = out->pending = 0;
    if (first >= 0)
        snprintf(out->text, sizeof(out->text),
                 "%s: waiting for the MPI_Win_post of %d of the %d targets (rank %d of the "
                 "window first)",
                 e->call, left, e->n, first);
    else
        snprintf(out->text, sizeof(out->text),
                 "%s: waiting for the MPI_Win_complete of %d of the %d origins", e->call, left,
                 e->n);
}

void tm_rma_post(tm_rma_win_t *w, int *ranks, int n, int assert)
{
    w->posted = true;
    atomic_store_explicit(&w->shared->targets[w->rank].exposed, true, memory_order_relaxed);
    w->post_nocheck = (assert &MPI_MODE_NOCHECK) != 0;
    w->post_ranks = ranks;
    w->npost = n;
    if (w->post_nocheck)
        return;
    /* release: what the caller stored before posting, its origins see after their start */
    for (int i = 0; i < n; i++) {
        atomic_fetch_add_explicit(&w->shared->targets[ranks[i]].posts[w->rank], 1,
                                  memory_order_release);
        poke_member(w, ranks[i]);
    }
}

void tm_rma_start(tm_rma_win_t *w, int *ranks, int n, int assert, const char *call)
{
    epoch_wait_t e = {w, ranks, n, call};

    w->started = true;
    w->start_ranks = ranks;
    w->nstart = n;
    for (int i = 0; i < n; i++)
        w->access[ranks[i]] |= TM_RMA_ACCESS_START;
    if (assert & MPI_MODE_NOCHECK)
        return;
    if (!posts_in(&e))
        tm_p2p_wait_noted(w->owner, posts_in, &e, epoch_note, &e);
    for (int i = 0; i < n; i++)
        w->posts_seen[ranks[i]]++;
}

void tm_rma_complete(tm_rma_win_t *w)
{
    /* release: the accesses of the epoch, the targets see after their wait */
    for (int i = 0; i < w->nstart; i++) {
        int t = w->start_ranks[i];

        w->access[t] &= (uint8_t)~TM_RMA_ACCESS_START;
        atomic_fetch_add_explicit(&w->shared->targets[t].completes, 1, memory_order_release);
        poke_member(w, t);
    }
    free(w->start_ranks);
    w->start_ranks = NULL;
    w->nstart = 0;
    w->started = false;
}

bool tm_rma_wait(tm_rma_win_t *w, bool block, const char *call)
{
    epoch_wait_t e = {w, NULL, w->npost, call};

    if (!completes_in(&e)) {
        if (!block)
            return false;
        tm_p2p_wait_noted(w->owner, completes_in, &e, epoch_note, &e);
    }
    w->completes_seen += (unsigned)w->npost;
    free(w->post_ranks);
    w->post_ranks = NULL;
    w->npost = 0;
    w->posted = false;
    atomic_store_explicit(&w->shared->targets[w->rank].exposed, false, memory_order_relaxed);
    return true;
}

/* ------------------------------------------------------------------ locks */

typedef struct lock_wait {
    tm_rma_win_t *w;
    int t;
    bool exclusive, taken;
    const char *call;
} lock_wait_t;

/* Tries to take the lock; true once taken (and from then on: a wait calls it again). */
static bool lock_try(void *arg)
{
    lock_wait_t *l = arg;
    _Atomic int *word = &l->w->shared->targets[l->t].lock;
    int v = atomic_load_explicit(word, memory_order_relaxed);

    if (l->taken)
        return true;
    if (l->exclusive)
        l->taken = v == 0 &&
                   atomic_compare_exchange_strong_explicit(
                       word, &v, TM_RMA_LOCK_EXCLUSIVE, memory_order_acquire, memory_order_relaxed);
    else
        while (!(v & TM_RMA_LOCK_EXCLUSIVE) && !l->taken)
            l->taken = atomic_compare_exchange_weak_explicit(word, &v, v + 1, memory_order_acquire,
                                                             memory_order_relaxed);
    return l->taken;
}

static void lock_note(void *arg, tm_p2p_blocked_note_t *out)
{
    lock_wait_t *l = arg;
    tm_rma_target_t *t = &l->w->shared->targets[l->t];
    int v = atomic_load_explicit(&t->lock, memory_order_relaxed);

    out->call = l->call;
    out->count = out->pending = 0;
    snprintf(out->text, sizeof(out->text),
             "%s: waiting for the %s lock of rank %d of window \"%.64s\", held %s", l->call,
             l->exclusive ? "exclusive" : "shared", l->t, l->w->name,
             v & TM_RMA_LOCK_EXCLUSIVE ? "exclusively" : "shared");
}

static void lock_take(tm_rma_win_t *w, int t, bool exclusive, const char *call)
{
    lock_wait_t l = {w, t, exclusive, false, call};
    tm_rma_target_t *tg = &w->shared->targets[t];

    if (lock_try(&l))
        return;
    /* seq_cst: count ourselves before trying again, so that an unlock either sees us or is
     * seen by the try (tm_rma_unlock's half). */
    atomic_fetch_add_explicit(&tg->lock_waiters, 1, memory_order_seq_cst);
    tm_p2p_wait_noted(w->owner, lock_try, &l, lock_note, &l);
    atomic_fetch_sub_explicit(&tg->lock_waiters, 1, memory_order_relaxed);
}

static void lock_give(tm_rma_win_t *w, int t, bool exclusive)
{
    tm_rma_target_t *tg = &w->shared->targets[t];

    atomic_fetch_sub_explicit(&tg->lock, exclusive ? TM_RMA_LOCK_EXCLUSIVE : 1,
                              memory_order_release);
    /* Whoever waits for it sleeps, not knowing when: wake them all, rarely (contention). */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&tg->lock_waiters, memory_order_relaxed) > 0)
        for (int m = 0; m < w->size; m++)
            if (m != w->rank)
                poke_member(w, m);
}

void tm_rma_lock(tm_rma_win_t *w, int t, bool exclusive, int assert, const char *call)
{
    w->access[t] |= exclusive ? TM_RMA_ACCESS_EXCLUSIVE : TM_RMA_ACCESS_SHARED;
    w->nlocked++;
    if (assert & MPI_MODE_NOCHECK)
        w->access[t] |= TM_RMA_ACCESS_NOCHECK;
    else
        lock_take(w, t, exclusive, call);
}

void tm_rma_unlock(tm_rma_win_t *w, int t)
{
    uint8_t a = w->access[t];

    if (!(a & TM_RMA_ACCESS_NOCHECK))
        lock_give(w, t, (a & TM_RMA_ACCESS_EXCLUSIVE) != 0);
    else
        atomic_thread_fence(memory_order_seq_cst);
    w->access[t] = 0;
    w->nlocked--;
}

void tm_rma_lock_all(tm_rma_win_t *w, int assert, const char *call)
{
    w->lock_all = true;
    w->lock_all_nocheck = (assert &MPI_MODE_NOCHECK) != 0;
    if (!w->lock_all_nocheck)
        for (int t = 0; t < w->size; t++)
            lock_take(w, t, false, call);
}

void tm_rma_unlock_all(tm_rma_win_t *w)
{
    if (!w->lock_all_nocheck)
        for (int t = 0; t < w->size; t++)
            lock_give(w, t, false);
    else
        atomic_thread_fence(memory_order_seq_cst);
    w->lock_all = false;
}
