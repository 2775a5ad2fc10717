/*
 * The VP object and the scheduler-wide state, as sched/ sees them inside.
 */
#ifndef TM_SCHED_VP_H
#define TM_SCHED_VP_H

#include <pthread.h>
#include <signal.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "sched/context.h"
#include "sched/runq.h"
#include "sched/sched.h"
#include "sched/stack.h"

/* Why the current ULT switched back to its VP's scheduler context (tm_sched_vp.reason). */
enum {
    TM_SCHED_SWITCH_YIELD,
    TM_SCHED_SWITCH_PARK,
    TM_SCHED_SWITCH_EXIT,
};

typedef struct tm_sched_vp {
    /* Touched only by the VP's own kernel thread (and, before and after the run, by the thread
     * that calls init, run and finalize). */
    int index;
    int reason;              /* TM_SCHED_SWITCH_* of the last switch back */
    tm_sched_ult_t *current; /* the running ULT; NULL in the scheduler context */
    /* The running ULT's data, for any thread that asks which one holds the VP (a diagnosis):
     * written with `current`, read as a hint (tm_sched_vp_running_data). */
    void *_Atomic running_data;
    tm_sched_context_t sched_ctx;
    tm_sched_stack_cache_t stacks;
    hwloc_cpuset_t cpuset; /* NULL: not pinned */
    int mem_node;          /* TM_SCHED_MEM_* or a NUMA node: where its ULTs' stacks go */
    pthread_t thread;
    tm_sched_stack_t altstack;
    stack_t altstack_prev; /* restored when the VP stops */
#ifdef TM_WITH_TSAN
    void *tsan_fiber; /* of the scheduler context */
#endif
#ifdef TM_WITH_ASAN
    void *asan_fake_stack; /* of the scheduler context */
    const void *asan_stack_bottom;
    size_t asan_stack_size;
#endif
    tm_sched_runq_t runq; /* its inbound list has its own cache line */
    /* Futex word, written by wakers of any thread: 1 while the VP sleeps or is about to. */
    alignas(TM_SCHED_CACHE_LINE) _Atomic uint32_t sleeping;
} tm_sched_vp_t;

/* Scheduler-wide state of the current run. The plain fields are written by tm_sched_init and
 * tm_sched_finalize only, while no VP runs. */
typedef struct tm_sched_state {
    bool initialized;
    bool running;
    int nvps;
    size_t stack_size;
    unsigned idle_spin_us;
    hwloc_topology_t topology;
    tm_sched_vp_t *vps;
    /* Registry of every ULT created in the run (see ult.c). */
    _Atomic(tm_sched_ult_t *) ults;
    /* ULTs created and not finished; the run ends when it drops to 0. */
    alignas(TM_SCHED_CACHE_LINE) _Atomic long live;
    _Atomic int stopping;
} tm_sched_state_t;

extern tm_sched_state_t tm_sched_state;

/* The VP the calling kernel thread runs, NULL if none. initial-exec: no lazy TLS allocation, so
 * fault handlers can read it (async-signal-safe). */
extern __thread tm_sched_vp_t *tm_sched_vp_current __attribute__((tls_model("initial-exec")));

/* Makes ult, which must be READY and in no queue, runnable on vp. Any thread. */
void tm_sched_vp_ready(tm_sched_vp_t *vp, tm_sched_ult_t *ult);

/* Ends the run: every VP returns from its scheduler loop once it has nothing to run. */
void tm_sched_vp_stop_all(void);

#endif /* TM_SCHED_VP_H */
