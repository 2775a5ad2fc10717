/*
 * The sleeps of a rank's program, linked into each rank's private copy (see rank_getopt.c): a
 * rank that sleeps lets the other ranks of its core run instead of holding the core
 * (runtime/sleep.c). nanosleep, like Linux's, measures on CLOCK_MONOTONIC.
 */
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "runtime/job.h"

int clock_nanosleep(clockid_t clock, int flags, const struct timespec *t, struct timespec *rem)
{
    return tm_rt_sleep(clock, flags, t, rem);
}

int nanosleep(const struct timespec *t, struct timespec *rem)
{
    int err = tm_rt_sleep(CLOCK_MONOTONIC, 0, t, rem);
    if (err == 0)
        return 0;
    errno = err;
    return -1;
}

int usleep(useconds_t usec)
{
    struct timespec t = {(time_t)(usec / 1000000), (long)(usec % 1000000) * 1000};
    return nanosleep(&t, NULL);
}

unsigned int sleep(unsigned int seconds)
{
    struct timespec t = {(time_t)seconds, 0}, rem = {0, 0};
    if (tm_rt_sleep(CLOCK_MONOTONIC, 0, &t, &rem) == EINTR)
        return (unsigned int)rem.tv_sec + (rem.tv_nsec > 0);
    return 0;
}

/* Weak: a program that defines one of these itself keeps its own (and links). */
#pragma weak clock_nanosleep
#pragma weak nanosleep
#pragma weak usleep
#pragma weak sleep
