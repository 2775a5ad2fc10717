/* What the tests that make a rank late share: a busy wait that calls no MPI (the rank holds its
 * core meanwhile, as a computation would). */
#ifndef TM_TEST_PAUSE_H
#define TM_TEST_PAUSE_H

#include <time.h>

static void pause_ms(long ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000L + (t.tv_nsec - t0.tv_nsec) / 1000000L < ms);
}

#endif
