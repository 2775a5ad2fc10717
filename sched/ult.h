/*
 * The ULT object as sched/ sees it inside. The layers above only hold tm_sched_ult_t pointers.
 */
#ifndef TM_SCHED_ULT_H
#define TM_SCHED_ULT_H

#include <stdatomic.h>

#include "sched/context.h"
#include "sched/runq.h"
#include "sched/sched.h"
#include "sched/stack.h"

struct tm_sched_vp;

/* Bits of tm_sched_ult.sync, the one word that park, unpark and exit agree through:
 *
 *   running or queued: 0 or PERMIT
 *   parked:            PARKED            (context saved, in no queue; set by its scheduler)
 *   being woken:       PARKED | PERMIT   (the unparker that set PERMIT owns the wake-up)
 *   finished:          DONE (| PERMIT)
 *
 * Whoever clears PARKED enqueues the ULT, so exactly one thread does it. Every change of the
 * word is an atomic read-modify-write, never a plain store: RMWs extend release sequences, so a
 * ULT that consumes the token synchronises with every unparker that contributed to it. */
enum {
    TM_SCHED_ULT_PERMIT = 1u,
    TM_SCHED_ULT_PARKED = 2u,
    TM_SCHED_ULT_DONE = 4u,
};

struct tm_sched_ult {
    /* First line: what an unparker on another thread writes (sync, then the run queue link),
     * and what the owner VP reads to resume the ULT (ctx, one pointer with the assembly
     * switch): one cache line moves per wake-up. */
    tm_sched_runq_node_t node; /* first: a node pointer is a ULT pointer */
    _Atomic unsigned sync;     /* TM_SCHED_ULT_* bits */
    tm_sched_context_t ctx;    /* saved while the ULT does not run */
    struct tm_sched_vp *vp;    /* bound for life */
    tm_sched_stack_t stack;
    tm_sched_ult_fn_t fn;
    void *arg;
    void *data;
    void *profile;
    struct tm_sched_ult *all_next; /* registry of every ULT of the run, freed at finalize */
#ifdef TM_WITH_TSAN
    void *tsan_fiber;
#endif
#ifdef TM_WITH_ASAN
    void *asan_fake_stack;
#endif
};

/* Called by the VP's scheduler context right after `ult` switched back to it to park: publishes
 * it as PARKED, or puts it back in the run queue when a token arrived in the meantime. */
void tm_sched_ult_park_commit(struct tm_sched_vp *vp, tm_sched_ult_t *ult);

/* Called by the VP's scheduler context right after `ult` switched back to it for the last time:
 * reclaims its stack and counts it out of the run. */
void tm_sched_ult_reap(struct tm_sched_vp *vp, tm_sched_ult_t *ult);

/* Frees every ULT of the run (tm_sched_finalize), finished or not. No VP may be running. */
void tm_sched_ult_free_all(void);

#endif /* TM_SCHED_ULT_H */
