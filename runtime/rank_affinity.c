/*
 * The CPU affinity calls of a rank's program, linked into each rank's private copy (see
 * rank_getopt.c): the runtime gives the rank's own thread an affinity of its own instead of
 * moving the kernel thread that the ranks of its core share (runtime/affinity.c).
 */
#include <pthread.h>
#include <sched.h>

#include "runtime/job.h"

int pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t *mask)
{
    return tm_rt_affinity_thread(thread, 1, size, (cpu_set_t *)mask);
}

int pthread_getaffinity_np(pthread_t thread, size_t size, cpu_set_t *mask)
{
    return tm_rt_affinity_thread(thread, 0, size, mask);
}

int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *mask)
{
    return tm_rt_affinity_task(pid, 1, size, (cpu_set_t *)mask);
}

int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *mask)
{
    return tm_rt_affinity_task(pid, 0, size, mask);
}

int sched_getcpu(void)
{
    return tm_rt_affinity_cpu();
}

/* Weak: a program that defines one of these itself keeps its own (and links). */
#pragma weak pthread_setaffinity_np
#pragma weak pthread_getaffinity_np
#pragma weak sched_setaffinity
#pragma weak sched_getaffinity
#pragma weak sched_getcpu
