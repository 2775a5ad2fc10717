/*
 * ThreadMPI user-level scheduler: the public interface of sched/ for the layers above.
 *
 * A virtual processor (VP) is a kernel thread, optionally pinned to a set of cores with hwloc.
 * A user-level thread (ULT) is bound to one VP for its whole life and only switches inside
 * calls of this interface (yield, park, exit), never preemptively.
 *
 *   VP 0 (the thread that calls tm_sched_run)   VP 1 (pthread)       ...
 *   +-------------------------------+           +----------------+
 *   | scheduler context (own stack) |           | scheduler ctx  |
 *   | local run queue (owner only)  |           | local queue    |
 *   | inbound list (any thread)     |  <-- tm_sched_unpark() from anywhere
 *   +-------------------------------+           +----------------+
 *        | switch / switch back
 *   ULT a, ULT b, ... (each on an mmap'ed stack with a guard page below it)
 *
 * A VP with nothing runnable spins briefly, then sleeps on a futex until a ULT bound to it is
 * unparked or the run ends. tm_sched_run() returns once every ULT created has finished.
 *
 * Functions return 0 on success and a negative errno value on failure, unless said otherwise.
 */
#ifndef TM_SCHED_H
#define TM_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <hwloc.h>

typedef struct tm_sched_ult tm_sched_ult_t;
typedef void (*tm_sched_ult_fn_t)(void *arg);

/* Default ULT stack: 8 MiB of address space, committed lazily by the kernel. */
#define TM_SCHED_STACK_SIZE_DEFAULT (8u << 20)
/* Smallest accepted stack (the signal handlers run on a separate alternate stack). */
#define TM_SCHED_STACK_SIZE_MIN (64u << 10)
/* Alternate signal stack of each VP thread while it runs (more if the C library's SIGSTKSZ is
 * larger), with a guard page below it: the room a fault handler has. */
#define TM_SCHED_ALTSTACK_SIZE (64u << 10)

typedef struct tm_sched_config {
    int nvps;                         /* number of VPs, >= 1 */
    size_t stack_size;                /* default ULT stack size in bytes (0: the default) */
    unsigned idle_spin_us;            /* how long an idle VP polls before it sleeps on its futex */
    hwloc_topology_t topology;        /* used for pinning; NULL: VPs are not pinned */
    hwloc_const_cpuset_t *vp_cpusets; /* nvps cpusets, one per VP; NULL: not pinned */
    const int *vp_mem_nodes;          /* nvps entries (TM_SCHED_MEM_*); NULL: all DEFAULT */
} tm_sched_config_t;

/* Where the stacks of a VP's ULTs get their pages (vp_mem_nodes): a NUMA node (the OS index
 * libnuma uses, >= 0), the kernel's default (the node of the core that first touches a page), or
 * every node in turn. */
#define TM_SCHED_MEM_DEFAULT    (-1)
#define TM_SCHED_MEM_INTERLEAVE (-2)

/* Sets the scheduler up for a run (no thread is started yet). Called once per run: -EBUSY
 * until tm_sched_finalize(). The cpusets are copied (a NULL entry leaves that VP unpinned);
 * the topology must stay loaded until tm_sched_run() returns. */
int tm_sched_init(const tm_sched_config_t *config);

/* Creates a ULT bound to VP `vp` that will run fn(arg). stack_size 0 means the configured
 * default; other sizes below TM_SCHED_STACK_SIZE_MIN are refused (-EINVAL), and sizes are
 * rounded up to whole pages. May be called before tm_sched_run() or from any ULT during the run.
 * The new ULT may start before this returns when it is created during the run for another VP.
 * The handle stays valid until tm_sched_finalize(), also after the ULT has finished. */
int tm_sched_ult_create(int vp, tm_sched_ult_fn_t fn, void *arg, size_t stack_size,
                        tm_sched_ult_t **ult_p);

/* Starts VPs 1..nvps-1 on new kernel threads, runs VP 0 on the calling thread, and returns
 * when every ULT has finished and every VP thread has been joined. Each VP thread pins itself
 * to its cpuset and installs its alternate signal stack before any ULT runs; VP 0's previous
 * binding and signal stack are restored when the run ends. If a VP cannot start, no ULT runs
 * and the error is returned. */
int tm_sched_run(void);

/* Releases what tm_sched_init() and the ULTs allocated. After it, tm_sched_init() may be
 * called again. */
void tm_sched_finalize(void);

/* The calling ULT, or NULL when the caller is not a ULT (e.g. a scheduler context or a foreign
 * thread). */
tm_sched_ult_t *tm_sched_self(void);

/* Index of the VP the calling kernel thread runs, or -1 for a thread that is not a VP. */
int tm_sched_self_vp(void);

/* Number of VPs of the current run. */
int tm_sched_nvps(void);

/* Lets the other runnable ULTs of this VP run; returns at once when there is none, or when the
 * caller is not a ULT. */
bool tm_sched_yield(void);

/* Whether another ULT of the caller's VP is ready to run (tm_sched_yield would switch). */
bool tm_sched_others_ready(void);

/* Park/unpark, with the semantics of a one-token permit:
 * - tm_sched_park() consumes the permit if it is available and returns at once; otherwise the
 *   ULT sleeps until some thread calls tm_sched_unpark() on it.
 * - tm_sched_unpark() makes the permit available (it does not accumulate) and wakes the ULT if
 *   it is parked. It may be called from any thread, ULT or not, on any VP.
 * Spurious returns from park are possible: callers re-check their condition in a loop. What
 * the unparker wrote before tm_sched_unpark() is visible to the ULT when its park returns.
 * tm_sched_park() outside a ULT returns at once. tm_sched_unpark() on a finished ULT does
 * nothing. Neither is async-signal-safe. */
void tm_sched_park(void);
void tm_sched_unpark(tm_sched_ult_t *ult);

/* Tells the core that the caller spins (a short wait for another core's store). */
static inline void tm_sched_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* Ends the calling ULT; its stack is reclaimed by the scheduler. Aborts if the caller is not a
 * ULT. Returning from the ULT's function has the same effect. */
_Noreturn void tm_sched_ult_exit(void);

/* One pointer of per-ULT data for the layers above (the runtime stores the rank there). A plain
 * field: set it before the ULT can run, or from the ULT itself. */
void tm_sched_ult_set_data(tm_sched_ult_t *ult, void *data);
void *tm_sched_ult_get_data(const tm_sched_ult_t *ult);

/* The data of the ULT running on the calling thread, NULL when none runs there: a thread-local
 * word the VP sets as it switches a ULT in (ULTs never change VPs), so that the layers above
 * find their per-ULT object in one load, as they do on every MPI call. */
extern __thread void *tm_sched_current_data __attribute__((tls_model("initial-exec")));
static inline void *tm_sched_self_data(void)
{
    return tm_sched_current_data;
}

/* A second pointer, for the profiler (runtime/profile.h): the counters the ULT's time goes to.
 * Set like the data above. */
void tm_sched_ult_set_profile(tm_sched_ult_t *ult, void *profile);
void *tm_sched_ult_get_profile(const tm_sched_ult_t *ult);

/* The data of the ULT that VP `vp` runs now, NULL when it runs none: a hint for diagnoses from
 * any thread (it may change as soon as it is read). */
void *tm_sched_vp_running_data(int vp);

/* The VP a ULT is bound to. */
int tm_sched_ult_vp(const tm_sched_ult_t *ult);

/* Usable stack size of a ULT in bytes (without the guard page). */
size_t tm_sched_ult_stack_size(const tm_sched_ult_t *ult);

/* Async-signal-safe: if addr lies in the guard page (or below the stack, within one page of the
 * guard, i.e. a stack overflow) of the ULT currently running on the calling VP, returns that
 * ULT; otherwise NULL. Used by fault handlers to report stack overflows. Every VP thread runs
 * with an alternate signal stack so that a handler can run after a ULT overflowed its stack. */
tm_sched_ult_t *tm_sched_fault_overflowed_ult(const void *addr);

#endif /* TM_SCHED_H */
