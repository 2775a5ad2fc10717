/*
 * The profiler's timer (profile.h), in one header of static inline functions with no other
 * dependency, so that a benchmark (bench/breakdown.c) measures with the same clock.
 *
 * x86-64: rdtscp when the CPU says its TSC is invariant (a constant rate whatever the frequency
 * and sleep states, as Linux's own clock source needs); aarch64: the virtual counter cntvct_el0
 * after an isb, at the frequency cntfrq_el0 gives; elsewhere, or with a TSC that is not invariant,
 * clock_gettime(CLOCK_MONOTONIC). The TSC's rate is calibrated once against CLOCK_MONOTONIC over
 * a span the caller chooses (the profiler: the whole job): both clocks are read at init and at
 * calibration. The cost of a read is the median of back-to-back reads, measured at init: every
 * interval between two reads holds one read's worth of the timer, which the caller subtracts.
 */
#ifndef TM_RT_PROFILE_CLOCK_H
#define TM_RT_PROFILE_CLOCK_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

typedef enum tm_rt_profile_source {
    TM_RT_PROFILE_CLOCK_MONOTONIC, /* clock_gettime(CLOCK_MONOTONIC), in ns */
    TM_RT_PROFILE_CLOCK_TSC,       /* x86-64 rdtscp, with an invariant TSC */
    TM_RT_PROFILE_CLOCK_CNTVCT,    /* aarch64 virtual counter, at cntfrq_el0 */
} tm_rt_profile_source_t;

typedef struct tm_rt_profile_clock {
    tm_rt_profile_source_t source;
    uint64_t overhead;   /* ticks of one read: the median of back-to-back reads */
    double ticks_per_ns; /* set by tm_rt_profile_clock_calibrate */
    uint64_t ticks0;     /* the calibration's start, on both clocks */
    uint64_t ns0;
} tm_rt_profile_clock_t;

static inline uint64_t tm_rt_profile_monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Reads clock c. */
static inline uint64_t tm_rt_profile_clock_read(const tm_rt_profile_clock_t *c)
{
    switch (c->source) {
#if defined(__x86_64__)
    case TM_RT_PROFILE_CLOCK_TSC: {
        unsigned aux; /* rdtscp: waits for the instructions before it to complete */
        return __rdtscp(&aux);
    }
#elif defined(__aarch64__)
    case TM_RT_PROFILE_CLOCK_CNTVCT: {
        uint64_t v;
        __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
        return v;
    }
#endif
    default:
        return tm_rt_profile_monotonic_ns();
    }
}

static inline tm_rt_profile_source_t tm_rt_profile_clock_source(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    /* CPUID 0x80000007, EDX bit 8: invariant TSC */
    if (__get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8)))
        return TM_RT_PROFILE_CLOCK_TSC;
#elif defined(__aarch64__)
    return TM_RT_PROFILE_CLOCK_CNTVCT;
#endif
    return TM_RT_PROFILE_CLOCK_MONOTONIC;
}

static inline int tm_rt_profile_u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

#define TM_RT_PROFILE_OVERHEAD_SAMPLES 1001

/* Chooses the source, measures the cost of a read and starts the calibration. */
static inline void tm_rt_profile_clock_init(tm_rt_profile_clock_t *c)
{
    uint64_t d[TM_RT_PROFILE_OVERHEAD_SAMPLES];
    c->source = tm_rt_profile_clock_source();
    for (int i = 0; i < TM_RT_PROFILE_OVERHEAD_SAMPLES; i++) {
        uint64_t a = tm_rt_profile_clock_read(c);
        uint64_t b = tm_rt_profile_clock_read(c);
        d[i] = b - a;
    }
    qsort(d, TM_RT_PROFILE_OVERHEAD_SAMPLES, sizeof d[0], tm_rt_profile_u64_cmp);
    c->overhead = d[TM_RT_PROFILE_OVERHEAD_SAMPLES / 2];
    c->ticks_per_ns = 1.0;
    c->ns0 = tm_rt_profile_monotonic_ns();
    c->ticks0 = tm_rt_profile_clock_read(c);
}

/* Ends the calibration: the ticks per ns from the ticks and the CLOCK_MONOTONIC time since
 * tm_rt_profile_clock_init, waiting first until at least min_ns have passed (a longer span gives
 * a finer figure). The counter of aarch64 has its frequency in cntfrq_el0. */
static inline void tm_rt_profile_clock_calibrate(tm_rt_profile_clock_t *c, uint64_t min_ns)
{
#if defined(__aarch64__)
    if (c->source == TM_RT_PROFILE_CLOCK_CNTVCT) {
        uint64_t freq;
        __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(freq));
        c->ticks_per_ns = (double)freq * 1e-9;
        return;
    }
#endif
    if (c->source == TM_RT_PROFILE_CLOCK_MONOTONIC) {
        c->ticks_per_ns = 1.0;
        return;
    }
    uint64_t ns, ticks;
    do {
        ns = tm_rt_profile_monotonic_ns();
        ticks = tm_rt_profile_clock_read(c);
    } while (ns - c->ns0 < min_ns);
    c->ticks_per_ns = (double)(ticks - c->ticks0) / (double)(ns - c->ns0);
}

/* The ns of an interval of `ticks` between two reads, the cost of a read taken off. */
static inline double tm_rt_profile_clock_interval_ns(const tm_rt_profile_clock_t *c, uint64_t ticks)
{
    return ticks > c->overhead ? (double)(ticks - c->overhead) / c->ticks_per_ns : 0.0;
}

/* "TSC (rdtscp)", "cntvct_el0" or "clock_gettime". */
static inline const char *tm_rt_profile_clock_name(const tm_rt_profile_clock_t *c)
{
    switch (c->source) {
    case TM_RT_PROFILE_CLOCK_TSC:
        return "TSC (rdtscp)";
    case TM_RT_PROFILE_CLOCK_CNTVCT:
        return "cntvct_el0";
    default:
        return "clock_gettime";
    }
}

#endif /* TM_RT_PROFILE_CLOCK_H */
