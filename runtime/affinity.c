/*
 * A rank's CPU affinity as its program sees it. A rank is a user-level thread of its core's
 * kernel thread, which the other ranks of that core share: pinning "its thread", as programs
 * written for processes do (pthread_setaffinity_np(pthread_self(), ...), sched_setaffinity(0,
 * ...)), would move every rank of the core. So the rank's own thread gets an affinity of its
 * own, which it sets and reads back as a process would (and sched_getcpu answers within it),
 * while the kernel thread stays where the placement put it; the first such call of the job says
 * so on stderr, once. Any other thread (one the program made) is pinned as the program asks.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/job.h"
#include "runtime/rank.h"

/* Per world rank: the affinity its thread set, or NULL while it set none (it then has its
 * kernel thread's). Only the rank writes its own. */
static cpu_set_t **masks;
static pthread_once_t masks_once = PTHREAD_ONCE_INIT;
static atomic_flag told = ATOMIC_FLAG_INIT;

static void masks_make(void)
{
    masks = calloc((size_t)tm_rt_world_size(), sizeof *masks);
}

/* The calling rank when `self` names its own thread; else -1. */
static int own_rank(bool self)
{
    tm_rt_rank_t *rt = tm_rt_rank_self();
    return rt && self ? rt->world_rank : -1;
}

/* Sets rank's affinity to `mask` (size bytes): 0, or an errno value. */
static int virtual_set(int rank, size_t size, const cpu_set_t *mask)
{
    pthread_once(&masks_once, masks_make);
    if (!masks)
        return ENOMEM;
    cpu_set_t set;
    CPU_ZERO(&set);
    memcpy(&set, mask, size < sizeof set ? size : sizeof set);
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    int usable = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set) && c < cpus)
            usable = 1;
    if (!usable)
        return EINVAL; /* as the kernel: no CPU the thread could run on */
    if (!masks[rank] && !(masks[rank] = malloc(sizeof *masks[rank])))
        return ENOMEM;
    *masks[rank] = set;
    if (!atomic_flag_test_and_set(&told))
        fprintf(stderr,
                "threadmpi: rank %d set the CPU affinity of its own thread: a rank shares its "
                "core's kernel thread, which stays where the placement put it (mpcrun "
                "--report-bindings); the rank sees the affinity it set (said once)\n",
                rank);
    return 0;
}

/* Copies rank's affinity (its own, or its kernel thread's) into mask (size bytes): 0, or an
 * errno value. */
static int virtual_get(int rank, size_t size, cpu_set_t *mask)
{
    pthread_once(&masks_once, masks_make); /* the table is made once, by whoever comes first */
    if (masks && masks[rank]) {
        memset(mask, 0, size);
        memcpy(mask, masks[rank], size < sizeof *masks[rank] ? size : sizeof *masks[rank]);
        return 0;
    }
    return pthread_getaffinity_np(pthread_self(), size, mask);
}

int tm_rt_affinity_thread(pthread_t thread, int set, size_t size, cpu_set_t *mask)
{
    int rank = own_rank(pthread_equal(thread, pthread_self()));
    if (rank < 0)
        return set ? pthread_setaffinity_np(thread, size, mask)
                   : pthread_getaffinity_np(thread, size, mask);
    return set ? virtual_set(rank, size, mask) : virtual_get(rank, size, mask);
}

int tm_rt_affinity_task(pid_t pid, int set, size_t size, cpu_set_t *mask)
{
    /* The process is the rank's as much as its thread is. */
    int rank = own_rank(pid == 0 || pid == getpid() || pid == (pid_t)syscall(SYS_gettid));
    if (rank < 0)
        return set ? sched_setaffinity(pid, size, mask) : sched_getaffinity(pid, size, mask);
    int rc = set ? virtual_set(rank, size, mask) : virtual_get(rank, size, mask);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return 0;
}

int tm_rt_affinity_cpu(void)
{
    int cpu = sched_getcpu();
    int rank = own_rank(true);
    pthread_once(&masks_once, masks_make);
    if (rank < 0 || !masks || !masks[rank] || (cpu >= 0 && CPU_ISSET(cpu, masks[rank])))
        return cpu;
    for (int c = 0; c < CPU_SETSIZE; c++) /* where it asked to be, as a process would see */
        if (CPU_ISSET(c, masks[rank]))
            return c;
    return cpu;
}
