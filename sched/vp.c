/*
 * Virtual processors: the kernel threads that run ULTs, their scheduler loop, idling and
 * wake-ups, pinning, alternate signal stacks, and the life of a run (init, run, finalize).
 *
 * A VP's scheduler context runs on the kernel thread's own stack (VP 0: the caller of
 * tm_sched_run; others: their pthread stack). It pops the next ready ULT, switches to it, and,
 * when the ULT switches back, does what the ULT asked for (requeue, park, reap) from a stack
 * that is not the ULT's.
 *
 * Idle VPs: poll the inbound list for idle_spin_us (offering the core now and then), then sleep
 * on the `sleeping` futex word.
 *
 *   VP (owner)                              waker (any thread), after an inbound push (seq_cst)
 *   sleeping := 1 (seq_cst)                 sleeping == 1 (seq_cst load) ?
 *   inbound empty and not stopping           exchange(sleeping, 0) == 1 ? FUTEX_WAKE
 *     (seq_cst loads) ? FUTEX_WAIT(1)
 *   sleeping := 0
 *
 * Dekker again: either the VP sees the push and does not sleep, or the waker sees `sleeping`
 * and wakes it; FUTEX_WAIT only sleeps while the word is still 1, so a wake that comes before
 * the wait is not lost either. Wakers skip the system call whenever the VP is awake.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef TM_WITH_TSAN
#include <sanitizer/tsan_interface.h>
#endif
#ifdef TM_WITH_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

#include "sched/ult.h"
#include "sched/vp.h"

_Static_assert(sizeof(tm_sched_vp_t) % TM_SCHED_CACHE_LINE == 0,
               "VPs are allocated as an array of whole cache lines");

tm_sched_state_t tm_sched_state;

__thread tm_sched_vp_t *tm_sched_vp_current __attribute__((tls_model("initial-exec")));
__thread void *tm_sched_current_data __attribute__((tls_model("initial-exec")));

/* Start-up handshake of tm_sched_run: every VP thread pins itself and installs its signal stack
 * before any ULT runs, so that a failure can still stop the run cleanly. Not a hot path. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int started; /* VP threads that reported */
    int error;   /* first failure, 0 if none */
    int go;      /* 0: wait; 1: run; -1: stop at once */
} tm_sched_vp_start = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};

static inline uint64_t tm_sched_vp_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void tm_sched_vp_futex_wait(_Atomic uint32_t *word, uint32_t val)
{
    /* EAGAIN (the word changed) and EINTR both just send the VP back to its loop. */
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void tm_sched_vp_futex_wake(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Wakes vp if it sleeps or is about to. Call after making work visible with a seq_cst write. */
static void tm_sched_vp_wake(tm_sched_vp_t *vp)
{
    /* seq_cst: the waker's side of the Dekker pattern (top of this file). The exchange only
     * elects one waker among several; relaxed is enough for that. */
    if (atomic_load_explicit(&vp->sleeping, memory_order_seq_cst) != 0 &&
        atomic_exchange_explicit(&vp->sleeping, 0, memory_order_relaxed) != 0)
        tm_sched_vp_futex_wake(&vp->sleeping);
}

void tm_sched_vp_ready(tm_sched_vp_t *vp, tm_sched_ult_t *ult)
{
    if (tm_sched_vp_current == vp) {
        /* We are vp's kernel thread: its local FIFO is ours. */
        tm_sched_runq_push(&vp->runq, &ult->node);
        return;
    }
    tm_sched_runq_push_inbound(&vp->runq, &ult->node);
    tm_sched_vp_wake(vp);
}

void tm_sched_vp_stop_all(void)
{
    /* seq_cst: Dekker with the idle VPs' `sleeping` store and `stopping` load. */
    atomic_store_explicit(&tm_sched_state.stopping, 1, memory_order_seq_cst);
    for (int i = 0; i < tm_sched_state.nvps; i++)
        tm_sched_vp_wake(&tm_sched_state.vps[i]);
}

/* Polls between two looks at the clock (and two offers of the core) while idle. */
#define TM_SCHED_VP_SPIN_CHUNK 64

/* Nothing to run: poll for a while, then sleep until a push or the end of the run. Returns when
 * there may be work (spurious returns are fine: the caller loops). */
static void tm_sched_vp_idle(tm_sched_vp_t *vp)
{
    unsigned spin_us = tm_sched_state.idle_spin_us;

    if (spin_us > 0) {
        uint64_t deadline = tm_sched_vp_now_ns() + (uint64_t)spin_us * 1000u;

        /* relaxed polling: a stale read only delays the VP until the next iteration. Every
         * TM_SCHED_VP_SPIN_CHUNK polls the VP also offers its core: the thread that would wake
         * it may be waiting for this very core (more VPs than free cores, or a loaded machine),
         * and then spinning out the whole time slice would cost each wake-up a time slice. On
         * a core of its own the offer is one cheap system call. */
        for (unsigned i = 1;; i++) {
            if (atomic_load_explicit(&vp->runq.inbound, memory_order_relaxed) != NULL ||
                atomic_load_explicit(&tm_sched_state.stopping, memory_order_relaxed) != 0)
                return;
            tm_sched_cpu_relax();
            if (i % TM_SCHED_VP_SPIN_CHUNK == 0) {
                if (tm_sched_vp_now_ns() >= deadline)
                    break;
                sched_yield();
            }
        }
    }
    /* seq_cst store and loads: the VP's side of the Dekker pattern (top of this file). */
    atomic_store_explicit(&vp->sleeping, 1, memory_order_seq_cst);
    if (!tm_sched_runq_inbound_pending(&vp->runq) &&
        atomic_load_explicit(&tm_sched_state.stopping, memory_order_seq_cst) == 0)
        tm_sched_vp_futex_wait(&vp->sleeping, 1);
    /* relaxed: only this thread sets it to 1; wakers may already have cleared it. */
    atomic_store_explicit(&vp->sleeping, 0, memory_order_relaxed);
}

/* Scheduler context -> ult, until ult switches back. */
static inline void tm_sched_vp_switch_in(tm_sched_vp_t *vp, tm_sched_ult_t *ult)
{
    vp->current = ult;
    tm_sched_current_data = ult->data;
    atomic_store_explicit(&vp->running_data, ult->data, memory_order_relaxed);
#ifdef TM_WITH_TSAN
    __tsan_switch_to_fiber(ult->tsan_fiber, 0);
#endif
#ifdef TM_WITH_ASAN
    __sanitizer_start_switch_fiber(&vp->asan_fake_stack, ult->stack.lo, ult->stack.size);
#endif
    tm_sched_context_switch(&vp->sched_ctx, &ult->ctx);
#ifdef TM_WITH_ASAN
    __sanitizer_finish_switch_fiber(vp->asan_fake_stack, NULL, NULL);
#endif
    vp->current = NULL;
    tm_sched_current_data = NULL;
    atomic_store_explicit(&vp->running_data, NULL, memory_order_relaxed);
}

/* The scheduler loop of one VP; returns when the run ends. */
static void tm_sched_vp_schedule(tm_sched_vp_t *vp)
{
#ifdef TM_WITH_TSAN
    vp->tsan_fiber = __tsan_get_current_fiber();
#endif
    for (;;) {
        tm_sched_ult_t *ult = (tm_sched_ult_t *)tm_sched_runq_pop(&vp->runq);

        if (ult == NULL) {
            /* relaxed: stopping is only set once no ULT is left, so nothing hangs on it;
             * tm_sched_vp_idle re-reads it with seq_cst before sleeping. */
            if (atomic_load_explicit(&tm_sched_state.stopping, memory_order_relaxed) != 0)
                return;
            tm_sched_vp_idle(vp);
            continue;
        }
        assert(ult->vp == vp);
        tm_sched_vp_switch_in(vp, ult);
        switch (vp->reason) {
        case TM_SCHED_SWITCH_YIELD:
            tm_sched_runq_push(&vp->runq, &ult->node);
            break;
        case TM_SCHED_SWITCH_PARK:
            tm_sched_ult_park_commit(vp, ult);
            break;
        default:
            tm_sched_ult_reap(vp, ult);
            break;
        }
    }
}

/* Size of each VP's alternate signal stack: room for a fault handler that formats a report,
 * and never less than what the C library asks for. */
static size_t tm_sched_vp_altstack_size(void)
{
    size_t size = TM_SCHED_ALTSTACK_SIZE;
#ifdef _SC_SIGSTKSZ
    long min = sysconf(_SC_SIGSTKSZ);

    if (min > 0 && (size_t)min > size)
        size = (size_t)min;
#endif
    return tm_sched_stack_round(size);
}

/* Runs on vp's kernel thread before its first ULT: pins it and gives it a signal stack. */
static int tm_sched_vp_enter(tm_sched_vp_t *vp)
{
    stack_t ss;
    int err;

    tm_sched_vp_current = vp;
    if (vp->cpuset != NULL &&
        hwloc_set_cpubind(tm_sched_state.topology, vp->cpuset, HWLOC_CPUBIND_THREAD) != 0) {
        err = errno != 0 ? -errno : -EINVAL;
        goto undo_current;
    }
    /* Its own guard page below catches a handler that overflows the signal stack too. */
    err = tm_sched_stack_alloc(tm_sched_vp_altstack_size(), &vp->altstack);
    if (err != 0)
        goto undo_current;
    ss.ss_sp = vp->altstack.lo;
    ss.ss_size = vp->altstack.size;
    ss.ss_flags = 0;
    if (sigaltstack(&ss, &vp->altstack_prev) != 0) {
        err = -errno;
        goto undo_altstack;
    }
    return 0;

undo_altstack:
    tm_sched_stack_free(&vp->altstack);
undo_current:
    tm_sched_vp_current = NULL;
    return err;
}

/* Undoes tm_sched_vp_enter on vp's kernel thread, putting back the signal stack it had (the C
 * library's or a sanitizer's, which may unmap it itself when the thread exits). */
static void tm_sched_vp_leave(tm_sched_vp_t *vp)
{
    sigaltstack(&vp->altstack_prev, NULL);
    tm_sched_stack_free(&vp->altstack);
    tm_sched_vp_current = NULL;
}

static void *tm_sched_vp_main(void *arg)
{
    tm_sched_vp_t *vp = arg;
    int err = tm_sched_vp_enter(vp);
    int go;

    pthread_mutex_lock(&tm_sched_vp_start.lock);
    if (err != 0 && tm_sched_vp_start.error == 0)
        tm_sched_vp_start.error = err;
    tm_sched_vp_start.started++;
    pthread_cond_broadcast(&tm_sched_vp_start.cond);
    while (tm_sched_vp_start.go == 0)
        pthread_cond_wait(&tm_sched_vp_start.cond, &tm_sched_vp_start.lock);
    go = tm_sched_vp_start.go;
    pthread_mutex_unlock(&tm_sched_vp_start.lock);

    if (err != 0)
        return NULL;
    if (go > 0)
        tm_sched_vp_schedule(vp);
    tm_sched_vp_leave(vp);
    return NULL;
}

/* Starts VPs 1..nvps-1 and waits until each has pinned itself; returns how many were started
 * in *started_p and the first error. They run ULTs only once tm_sched_vp_release_all says so. */
static int tm_sched_vp_start_all(int *started_p)
{
    int started = 0, err = 0;

    tm_sched_vp_start.started = 0;
    tm_sched_vp_start.error = 0;
    tm_sched_vp_start.go = 0;
    for (int i = 1; i < tm_sched_state.nvps; i++) {
        tm_sched_vp_t *vp = &tm_sched_state.vps[i];
        int rc = pthread_create(&vp->thread, NULL, tm_sched_vp_main, vp);

        if (rc != 0) {
            err = -rc;
            break;
        }
        started++;
    }
    pthread_mutex_lock(&tm_sched_vp_start.lock);
    while (tm_sched_vp_start.started < started)
        pthread_cond_wait(&tm_sched_vp_start.cond, &tm_sched_vp_start.lock);
    if (err == 0)
        err = tm_sched_vp_start.error;
    pthread_mutex_unlock(&tm_sched_vp_start.lock);
    *started_p = started;
    return err;
}

static void tm_sched_vp_release_all(int go)
{
    pthread_mutex_lock(&tm_sched_vp_start.lock);
    tm_sched_vp_start.go = go;
    pthread_cond_broadcast(&tm_sched_vp_start.cond);
    pthread_mutex_unlock(&tm_sched_vp_start.lock);
}

int tm_sched_init(const tm_sched_config_t *config)
{
    tm_sched_vp_t *vps;
    size_t stack_size;
    int nvps;

    if (tm_sched_state.initialized)
        return -EBUSY;
    if (config == NULL || config->nvps < 1 ||
        (config->vp_cpusets != NULL && config->topology == NULL))
        return -EINVAL;
    stack_size = config->stack_size != 0 ? config->stack_size : TM_SCHED_STACK_SIZE_DEFAULT;
    if (stack_size < TM_SCHED_STACK_SIZE_MIN)
        return -EINVAL;
    nvps = config->nvps;

    vps = aligned_alloc(TM_SCHED_CACHE_LINE, (size_t)nvps * sizeof(*vps));
    if (vps == NULL)
        return -ENOMEM;
    memset(vps, 0, (size_t)nvps * sizeof(*vps));
    for (int i = 0; i < nvps; i++) {
        tm_sched_vp_t *vp = &vps[i];

        vp->index = i;
        tm_sched_runq_init(&vp->runq);
        atomic_init(&vp->sleeping, 0);
        vp->mem_node = config->vp_mem_nodes ? config->vp_mem_nodes[i] : TM_SCHED_MEM_DEFAULT;
        if (config->vp_cpusets != NULL && config->vp_cpusets[i] != NULL) {
            vp->cpuset = hwloc_bitmap_dup(config->vp_cpusets[i]);
            if (vp->cpuset == NULL) {
                while (i-- > 0)
                    hwloc_bitmap_free(vps[i].cpuset);
                free(vps);
                return -ENOMEM;
            }
        }
    }

    tm_sched_state.nvps = nvps;
    tm_sched_state.stack_size = stack_size;
    tm_sched_state.idle_spin_us = config->idle_spin_us;
    tm_sched_state.topology = config->topology;
    tm_sched_state.vps = vps;
    atomic_init(&tm_sched_state.ults, NULL);
    atomic_init(&tm_sched_state.live, 0);
    atomic_init(&tm_sched_state.stopping, 0);
    tm_sched_state.running = false;
    tm_sched_state.initialized = true;
    return 0;
}

int tm_sched_run(void)
{
    tm_sched_vp_t *vp0;
    hwloc_cpuset_t prev_binding = NULL;
    int started = 0, err;

    if (!tm_sched_state.initialized || tm_sched_state.running || tm_sched_vp_current != NULL)
        return -EINVAL;
    tm_sched_state.running = true;
    vp0 = &tm_sched_state.vps[0];
    /* relaxed: ULTs were created on this thread. */
    atomic_store_explicit(&tm_sched_state.stopping,
                          atomic_load_explicit(&tm_sched_state.live, memory_order_relaxed) == 0,
                          memory_order_relaxed);

    /* The calling thread gets its binding back after the run. */
    if (vp0->cpuset != NULL) {
        prev_binding = hwloc_bitmap_alloc();
        if (prev_binding != NULL &&
            hwloc_get_cpubind(tm_sched_state.topology, prev_binding, HWLOC_CPUBIND_THREAD) != 0) {
            hwloc_bitmap_free(prev_binding);
            prev_binding = NULL;
        }
    }
    err = tm_sched_vp_enter(vp0);
    if (err != 0)
        goto undo_binding;
    err = tm_sched_vp_start_all(&started);
    tm_sched_vp_release_all(err == 0 ? 1 : -1);
    if (err == 0)
        tm_sched_vp_schedule(vp0);
    for (int i = 1; i <= started; i++)
        pthread_join(tm_sched_state.vps[i].thread, NULL);
    tm_sched_vp_leave(vp0);

undo_binding:
    if (prev_binding != NULL) {
        hwloc_set_cpubind(tm_sched_state.topology, prev_binding, HWLOC_CPUBIND_THREAD);
        hwloc_bitmap_free(prev_binding);
    }
    tm_sched_state.running = false;
    return err;
}

void tm_sched_finalize(void)
{
    if (!tm_sched_state.initialized || tm_sched_state.running)
        return;
    tm_sched_ult_free_all();
    for (int i = 0; i < tm_sched_state.nvps; i++) {
        tm_sched_stack_cache_drain(&tm_sched_state.vps[i].stacks);
        hwloc_bitmap_free(tm_sched_state.vps[i].cpuset);
    }
    free(tm_sched_state.vps);
    tm_sched_state.vps = NULL;
    tm_sched_state.nvps = 0;
    tm_sched_state.initialized = false;
}

int tm_sched_self_vp(void)
{
    tm_sched_vp_t *vp = tm_sched_vp_current;

    return vp != NULL ? vp->index : -1;
}

int tm_sched_nvps(void)
{
    return tm_sched_state.nvps;
}

void *tm_sched_vp_running_data(int vp)
{
    if (vp < 0 || vp >= tm_sched_state.nvps)
        return NULL;
    return atomic_load_explicit(&tm_sched_state.vps[vp].running_data, memory_order_relaxed);
}
