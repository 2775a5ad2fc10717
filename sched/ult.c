/*
 * User-level threads: creation, yield, park/unpark, exit, and what the scheduler context does
 * for a ULT right after it switched back (park commit, reaping).
 *
 * Every switch goes through the VP's scheduler context: ULT -> scheduler -> next ULT. The
 * scheduler context is what makes park race-free (a ULT is published as PARKED only once its
 * context is saved, so an unparker on another thread can never resume a half-saved context),
 * and it frees a finished ULT's stack from a stack that is not that one.
 *
 * Park/unpark: a one-token permit per ULT, kept with the parked state in one atomic word (see
 * ult.h), so that Dekker's two flags ("I park" / "here is a token") need no store-load fence:
 * each side's "write mine, read theirs" is a single read-modify-write of the word.
 *
 *   ULT: park                               unparker (any thread)
 *   fetch_and ~PERMIT: had it? return       old = fetch_or PERMIT
 *   switch to the scheduler context         old == PARKED (no token before, parked)?
 *   scheduler: CAS 0 -> PARKED                fetch_and ~PARKED, enqueue
 *     fails (a token came): requeue         else: nothing (not parked yet, or a token was
 *   resumed: fetch_and ~PERMIT                 already pending and its setter handles it)
 *
 * The word goes 0 -> PARKED only from the scheduler context, after the ULT's context is saved:
 * an unparker on another thread can never enqueue a half-saved context. Whichever of the CAS and
 * the fetch_or comes first in the word's modification order, the other sees it: either the
 * scheduler sees the token and requeues the ULT, or the unparker sees PARKED and wakes it. A
 * wake-up is never lost, and a ULT is never enqueued twice (only the unparker that turned PARKED
 * into PARKED|PERMIT clears PARKED).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#ifdef TM_WITH_TSAN
#include <sanitizer/tsan_interface.h>
#endif
#ifdef TM_WITH_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

#include "sched/ult.h"
#include "sched/vp.h"

_Static_assert(offsetof(struct tm_sched_ult, node) == 0, "a run queue node is its ULT");

static inline tm_sched_ult_t *tm_sched_ult_current(tm_sched_vp_t **vp_p)
{
    tm_sched_vp_t *vp = tm_sched_vp_current;

    *vp_p = vp;
    return vp != NULL ? vp->current : NULL;
}

/* Switches from the running ULT back to its VP's scheduler context, telling it why. Returns when
 * the scheduler resumes the ULT (never for TM_SCHED_SWITCH_EXIT). */
static inline void tm_sched_ult_switch_out(tm_sched_vp_t *vp, tm_sched_ult_t *ult, int reason)
{
    vp->reason = reason;
#ifdef TM_WITH_TSAN
    __tsan_switch_to_fiber(vp->tsan_fiber, 0);
#endif
#ifdef TM_WITH_ASAN
    /* A ULT that exits never comes back: NULL lets ASan drop its fake stack. */
    __sanitizer_start_switch_fiber(reason == TM_SCHED_SWITCH_EXIT ? NULL : &ult->asan_fake_stack,
                                   vp->asan_stack_bottom, vp->asan_stack_size);
#endif
    tm_sched_context_switch(&ult->ctx, &vp->sched_ctx);
#ifdef TM_WITH_ASAN
    __sanitizer_finish_switch_fiber(ult->asan_fake_stack, NULL, NULL);
#endif
}

/* First code run on a new ULT's stack. */
static void tm_sched_ult_start(void *arg)
{
    tm_sched_ult_t *ult = arg;

#ifdef TM_WITH_ASAN
    /* ASan tells us here where the scheduler context's stack is: the ULT needs it to switch
     * back. */
    __sanitizer_finish_switch_fiber(NULL, &ult->vp->asan_stack_bottom, &ult->vp->asan_stack_size);
#endif
    ult->fn(ult->arg);
    tm_sched_ult_exit();
}

/*
 * Registry of the run's ULTs: a lock-free list that is only pushed to during the run (Treiber's
 * push, IBM RJ 5118, 1986) and only walked by tm_sched_finalize once every VP has stopped.
 * Progress: push is lock-free. ABA: there is no concurrent pop, so a successful CAS always links
 * the new ULT in front of the current head.
 * Handles stay valid until finalize, so an unpark or a get_data on a finished ULT is harmless.
 */
static void tm_sched_ult_register(tm_sched_ult_t *ult)
{
    tm_sched_ult_t *head = atomic_load_explicit(&tm_sched_state.ults, memory_order_relaxed);

    /* relaxed: nothing reads the registry until finalize, after the VP threads are joined. */
    do
        ult->all_next = head;
    while (!atomic_compare_exchange_weak_explicit(&tm_sched_state.ults, &head, ult,
                                                  memory_order_relaxed, memory_order_relaxed));
}

int tm_sched_ult_create(int vp, tm_sched_ult_fn_t fn, void *arg, size_t stack_size,
                        tm_sched_ult_t **ult_p)
{
    const size_t alloc_size =
        (sizeof(tm_sched_ult_t) + TM_SCHED_CACHE_LINE - 1) & ~(size_t)(TM_SCHED_CACHE_LINE - 1);
    tm_sched_vp_t *self = tm_sched_vp_current;
    tm_sched_ult_t *ult;
    int err;

    if (!tm_sched_state.initialized || vp < 0 || vp >= tm_sched_state.nvps || fn == NULL)
        return -EINVAL;
    if (stack_size == 0)
        stack_size = tm_sched_state.stack_size;
    else if (stack_size < TM_SCHED_STACK_SIZE_MIN)
        return -EINVAL;

    /* Whole cache lines: no other object shares the line that unparkers write. */
    ult = aligned_alloc(TM_SCHED_CACHE_LINE, alloc_size);
    if (ult == NULL)
        return -ENOMEM;
    /* The creator's own VP cache: only its kernel thread touches it. */
    err = tm_sched_stack_cache_get(self != NULL ? &self->stacks : NULL,
                                   tm_sched_stack_round(stack_size), &ult->stack);
    if (err != 0)
        goto undo_alloc;
    /* Best effort: a stack whose pages stay where they are first touched still works. */
    if (tm_sched_state.vps[vp].mem_node != TM_SCHED_MEM_DEFAULT)
        (void)tm_sched_stack_place(&ult->stack, tm_sched_state.vps[vp].mem_node);

    ult->vp = &tm_sched_state.vps[vp];
    ult->fn = fn;
    ult->arg = arg;
    ult->data = NULL;
    ult->profile = NULL;
    atomic_init(&ult->sync, 0);
    tm_sched_context_make(&ult->ctx, ult->stack.lo, ult->stack.size, tm_sched_ult_start, ult);
#ifdef TM_WITH_TSAN
    ult->tsan_fiber = __tsan_create_fiber(0);
#endif
#ifdef TM_WITH_ASAN
    ult->asan_fake_stack = NULL;
#endif
    tm_sched_ult_register(ult);
    /* relaxed: the count only needs to reach 0 after the last exit. A ULT creating another is
     * itself counted until it exits, later on the same thread, so the count cannot touch 0 in
     * between; before the run, tm_sched_run reads it on this very thread. */
    atomic_fetch_add_explicit(&tm_sched_state.live, 1, memory_order_relaxed);
    if (ult_p != NULL)
        *ult_p = ult;
    tm_sched_vp_ready(ult->vp, ult);
    return 0;

undo_alloc:
    free(ult);
    return err;
}

tm_sched_ult_t *tm_sched_self(void)
{
    tm_sched_vp_t *vp;

    return tm_sched_ult_current(&vp);
}

bool tm_sched_yield(void)
{
    tm_sched_vp_t *vp;
    tm_sched_ult_t *ult = tm_sched_ult_current(&vp);

    if (ult == NULL || tm_sched_runq_empty(&vp->runq))
        return false;
    tm_sched_ult_switch_out(vp, ult, TM_SCHED_SWITCH_YIELD);
    return true;
}

bool tm_sched_others_ready(void)
{
    tm_sched_vp_t *vp;
    tm_sched_ult_t *ult = tm_sched_ult_current(&vp);

    return ult != NULL && !tm_sched_runq_empty(&vp->runq);
}

void tm_sched_park(void)
{
    tm_sched_vp_t *vp;
    tm_sched_ult_t *ult = tm_sched_ult_current(&vp);

    if (ult == NULL)
        return;
    /* acquire: synchronises with every unparker whose fetch_or made the token, so what they
     * wrote before unparking is visible once park returns. */
    if (atomic_fetch_and_explicit(&ult->sync, ~TM_SCHED_ULT_PERMIT, memory_order_acquire) &
        TM_SCHED_ULT_PERMIT)
        return;
    tm_sched_ult_switch_out(vp, ult, TM_SCHED_SWITCH_PARK);
    /* Resumed because a token arrived: consume it, with the same acquire as above. */
    atomic_fetch_and_explicit(&ult->sync, ~TM_SCHED_ULT_PERMIT, memory_order_acquire);
}

void tm_sched_ult_park_commit(tm_sched_vp_t *vp, tm_sched_ult_t *ult)
{
    unsigned expected = 0;

    /* release: an unparker that sees PARKED goes on to write the ULT's run queue link, which
     * this VP used last; its acquire pairs with this. relaxed on failure: the ULT is requeued
     * and resumed by this very thread, and consumes the token with its own acquire. */
    if (!atomic_compare_exchange_strong_explicit(&ult->sync, &expected, TM_SCHED_ULT_PARKED,
                                                 memory_order_release, memory_order_relaxed))
        tm_sched_runq_push(&vp->runq, &ult->node);
}

void tm_sched_unpark(tm_sched_ult_t *ult)
{
    /* acq_rel: release for the parked ULT's acquire when it consumes the token; acquire for the
     * scheduler's release of PARKED, before we write the ULT's run queue link. */
    unsigned old = atomic_fetch_or_explicit(&ult->sync, TM_SCHED_ULT_PERMIT, memory_order_acq_rel);

    if (old != TM_SCHED_ULT_PARKED)
        return;
    /* We own the wake-up. An RMW rather than a store keeps the word's release sequences
     * unbroken (see ult.h); relaxed, since the enqueue below publishes the ULT. */
    atomic_fetch_and_explicit(&ult->sync, ~TM_SCHED_ULT_PARKED, memory_order_relaxed);
    tm_sched_vp_ready(ult->vp, ult);
}

_Noreturn void tm_sched_ult_exit(void)
{
    tm_sched_vp_t *vp;
    tm_sched_ult_t *ult = tm_sched_ult_current(&vp);

    if (ult == NULL)
        abort();
    tm_sched_ult_switch_out(vp, ult, TM_SCHED_SWITCH_EXIT);
    abort();
}

void tm_sched_ult_reap(tm_sched_vp_t *vp, tm_sched_ult_t *ult)
{
    /* relaxed: DONE only tells later unparks that there is nothing to wake (they find no
     * PARKED anyway); nothing is published with it. */
    atomic_fetch_or_explicit(&ult->sync, TM_SCHED_ULT_DONE, memory_order_relaxed);
#ifdef TM_WITH_TSAN
    __tsan_destroy_fiber(ult->tsan_fiber);
    ult->tsan_fiber = NULL;
#endif
    tm_sched_stack_cache_put(&vp->stacks, &ult->stack);
    ult->stack.base = NULL;
    /* relaxed: whoever ends the run joins the VP threads, which orders everything after. */
    if (atomic_fetch_sub_explicit(&tm_sched_state.live, 1, memory_order_relaxed) == 1)
        tm_sched_vp_stop_all();
}

void tm_sched_ult_free_all(void)
{
    tm_sched_ult_t *ult =
        atomic_exchange_explicit(&tm_sched_state.ults, NULL, memory_order_relaxed);

    while (ult != NULL) {
        tm_sched_ult_t *next = ult->all_next;

        /* A ULT that never finished (the run failed to start) still owns its stack. */
        if (ult->stack.base != NULL)
            tm_sched_stack_free(&ult->stack);
#ifdef TM_WITH_TSAN
        if (ult->tsan_fiber != NULL)
            __tsan_destroy_fiber(ult->tsan_fiber);
#endif
        free(ult);
        ult = next;
    }
}

void tm_sched_ult_set_data(tm_sched_ult_t *ult, void *data)
{
    ult->data = data;
    if (tm_sched_vp_current && tm_sched_vp_current->current == ult) /* set by the ULT itself */
        tm_sched_current_data = data;
}

void *tm_sched_ult_get_data(const tm_sched_ult_t *ult)
{
    return ult->data;
}

void tm_sched_ult_set_profile(tm_sched_ult_t *ult, void *profile)
{
    ult->profile = profile;
}

void *tm_sched_ult_get_profile(const tm_sched_ult_t *ult)
{
    return ult->profile;
}

int tm_sched_ult_vp(const tm_sched_ult_t *ult)
{
    return ult->vp->index;
}

size_t tm_sched_ult_stack_size(const tm_sched_ult_t *ult)
{
    return ult->stack.size;
}

tm_sched_ult_t *tm_sched_fault_overflowed_ult(const void *addr)
{
    tm_sched_vp_t *vp;
    tm_sched_ult_t *ult = tm_sched_ult_current(&vp);

    if (ult == NULL || !tm_sched_stack_overflowed(&ult->stack, addr))
        return NULL;
    return ult;
}
