/*
 * The threads a rank starts. pthread_create is interposed for the whole process (the library is
 * in the global scope, ahead of the C library): a thread started by a rank, or by a thread that
 * a rank started, remembers that rank, so that under MPI_THREAD_MULTIPLE it may call MPI for it
 * (mpi/). This covers the program's own threads and those of the libraries it uses, OpenMP's
 * included: a parallel region's threads belong to the rank whose thread started them.
 *
 * The new thread's first code is this file's, before a sanitizer's own start routine (which the
 * real pthread_create runs after it) has set the thread up: that code is left uninstrumented,
 * touches no heap, and reads what the creator passes on the creator's stack, which the creator
 * keeps until the thread has taken it.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "runtime/rank.h"

/* The rank that started the calling thread; NULL for the ranks' own ULTs (tm_rt_rank_self) and
 * for threads no rank started. */
static __thread tm_rt_rank_t *thread_rank __attribute__((tls_model("initial-exec")));
static __thread bool thread_rank_uncertain __attribute__((tls_model("initial-exec")));

tm_rt_rank_t *tm_rt_thread_rank(void)
{
    return thread_rank;
}

bool tm_rt_thread_rank_uncertain(void)
{
    return thread_rank_uncertain;
}

/* Whether the code at `caller` is an OpenMP runtime's (GCC's, LLVM's or Intel's). */
static bool openmp_runtime(const void *caller)
{
    Dl_info info;
    if (!dladdr(caller, &info) || !info.dli_fname)
        return false;
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    return strncmp(base, "libgomp", 7) == 0 || strncmp(base, "libomp", 6) == 0 ||
           strncmp(base, "libiomp", 7) == 0;
}

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* What the creator passes to the new thread, on its stack. */
typedef struct thread_start {
    void *(*fn)(void *);
    void *arg;
    tm_rt_rank_t *rank;
    bool uncertain;
    _Atomic bool taken; /* the thread has read the above: the creator may return */
} thread_start_t;

__attribute__((no_sanitize("address", "thread"))) static void *thread_main(void *p)
{
    thread_start_t *s = p;
    void *(*fn)(void *) = s->fn;
    void *arg = s->arg;
    thread_rank = s->rank;
    thread_rank_uncertain = s->uncertain;
    atomic_store_explicit(&s->taken, true, memory_order_release);
    return fn(arg);
}

static pthread_create_fn real_pthread_create(void)
{
    static _Atomic(pthread_create_fn) real;
    pthread_create_fn fn = atomic_load_explicit(&real, memory_order_acquire);
    if (!fn) {
        fn = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
        atomic_store_explicit(&real, fn, memory_order_release);
    }
    return fn;
}

__attribute__((visibility("default"))) int pthread_create(pthread_t *restrict thread,
                                                          const pthread_attr_t *restrict attr,
                                                          void *(*fn)(void *), void *restrict arg)
{
    pthread_create_fn real = real_pthread_create();
    tm_rt_rank_t *rank = tm_rt_rank_self();
    if (!rank)
        rank = thread_rank;
    if (!rank || !real)
        return real ? real(thread, attr, fn, arg) : EAGAIN;
    bool uncertain =
        openmp_runtime(__builtin_return_address(0)) && tm_rt_rank_shares_vp(rank->world_rank);
    thread_start_t start = {fn, arg, rank, uncertain, false};
    int rc = real(thread, attr, thread_main, &start);
    if (rc != 0)
        return rc;
    /* Not a yield to the other ranks of the core: the caller may be inside a critical section
     * (a pthread_once) that they would block on, with the core. The thread may share the CPU
     * (it inherits the caller's affinity): the kernel gets it to run. */
    while (!atomic_load_explicit(&start.taken, memory_order_acquire))
        sched_yield();
    return 0;
}
