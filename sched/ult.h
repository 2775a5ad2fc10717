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

/* Life of a ULT, in tm_sched_ult.state:
 *
 *   READY --park (from the scheduler context)--> PARKED --unpark (CAS)--> READY
 *   READY --exit--> DONE
 *
 * READY covers both "in a run queue" and "running". Only the CAS from PARKED to READY enqueues a
 * parked ULT, so exactly one thread does it. */
enum {
    TM_SCHED_ULT_READY,
    TM_SCHED_ULT_PARKED,
    TM_SCHED_ULT_DONE,
};

struct tm_sched_ult {
    tm_sched_runq_node_t node; /* first: a node pointer is a ULT pointer */
    tm_sched_context_t ctx;     /* saved while the ULT does not run */
    struct tm_sched_vp *vp;     /* bound for life */
    tm_sched_stack_t stack;
    tm_sched_ult_fn_t fn;
    void *arg;
    void *data;
    struct tm_sched_ult *all_next; /* registry of every ULT of the run, freed at finalize */
#ifdef TM_WITH_TSAN
    void *tsan_fiber;
#endif
#ifdef TM_WITH_ASAN
    void *asan_fake_stack;
#endif
    _Atomic int state;  /* TM_SCHED_ULT_*; read by unparkers of any thread */
    _Atomic int permit; /* the park/unpark token, 0 or 1 */
};

/* Called by the VP's scheduler context right after `ult` switched back to it to park: publishes
 * it as PARKED, or puts it back in the run queue when an unpark raced with the park. */
void tm_sched_ult_park_commit(struct tm_sched_vp *vp, tm_sched_ult_t *ult);

/* Called by the VP's scheduler context right after `ult` switched back to it for the last time:
 * reclaims its stack and counts it out of the run. */
void tm_sched_ult_reap(struct tm_sched_vp *vp, tm_sched_ult_t *ult);

/* Frees every ULT of the run (tm_sched_finalize), finished or not. No VP may be running. */
void tm_sched_ult_free_all(void);

#endif /* TM_SCHED_ULT_H */
