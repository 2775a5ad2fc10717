/*
 * The sleeps of a rank's program (sleep, usleep, nanosleep, clock_nanosleep; rank_sleep.c
 * links them into each rank's copy). The ranks of a core share its kernel thread: a real sleep
 * would hold the core, and with it every other rank of the core, for its whole length. A rank
 * that sleeps instead lets the others run until its deadline, and sleeps in the kernel only when
 * none is ready, a millisecond at a time at most, so that a rank the others wake soon runs.
 *
 * When the ranks ready to run are sleepers too, they hand the core round to each other; a
 * sleeper that gets it back within TM_RT_SLEEP_ROUND_NS of giving it up sleeps a short slice
 * in the kernel, so that a core whose ranks all sleep does not spin at full speed.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "runtime/job.h"
#include "sched/sched.h"

#define TM_RT_SLEEP_SLICE_NS 1000000 /* the longest kernel sleep while the core is idle */
#define TM_RT_SLEEP_ROUND_NS 20000   /* a round of sleepers shorter than this: they all sleep */
#define TM_RT_SLEEP_SHORT_NS 50000   /* and each then sleeps this long in the kernel */

static int64_t ns_of(const struct timespec *t)
{
    return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static struct timespec timespec_of(int64_t ns)
{
    return (struct timespec){(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
}

static int64_t now_ns(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return ns_of(&t);
}

/* A kernel sleep of `ns` on `clock`: 0, EINTR, or clock_nanosleep's error for that clock. */
static int kernel_sleep(clockid_t clock, int64_t ns)
{
    struct timespec slice = timespec_of(ns);
    return clock_nanosleep(clock, 0, &slice, NULL);
}

int tm_rt_sleep(clockid_t clock, int flags, const struct timespec *t, struct timespec *rem)
{
    if (t->tv_sec < 0 || t->tv_nsec < 0 || t->tv_nsec >= 1000000000)
        return EINVAL;
    if (tm_sched_self() == NULL) /* a thread the program made has its own kernel thread */
        return clock_nanosleep(clock, flags, t, rem);
    struct timespec probe;
    if (clock_gettime(clock, &probe) != 0)
        return EINVAL; /* not a clock this sleep can read */
    int64_t deadline = flags & TIMER_ABSTIME ? ns_of(t) : ns_of(&probe) + ns_of(t);
    for (;;) {
        int64_t now = now_ns(clock), left = deadline - now;
        if (left <= 0)
            return 0;
        int64_t slice = left < TM_RT_SLEEP_SLICE_NS ? left : TM_RT_SLEEP_SLICE_NS;
        if (tm_sched_yield()) {
            int64_t back = now_ns(clock);
            if (back - now >= TM_RT_SLEEP_ROUND_NS)
                continue; /* the others worked meanwhile: look at the deadline again */
            slice = left < TM_RT_SLEEP_SHORT_NS ? left : TM_RT_SLEEP_SHORT_NS;
        }
        int err = kernel_sleep(clock, slice);
        if (err == EINTR && rem && !(flags & TIMER_ABSTIME)) {
            int64_t after = deadline - now_ns(clock);
            *rem = timespec_of(after > 0 ? after : 0);
        }
        if (err != 0)
            return err; /* EINTR, or a clock the kernel cannot sleep on (a CPU-time clock) */
    }
}
