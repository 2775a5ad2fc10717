/*
 * The breakdown profiler (mpcrun --profile, [profile] mode): where the time of each rank's MPI
 * calls goes, split as the ICPP 2019 breakdown of MPI's overheads splits a message's (post,
 * progress, the rest), with a cycle-accurate timer whose own cost is subtracted.
 *
 * Streams. Each thread of execution that does MPI work has a stream of counters, written by it
 * alone (no lock, no atomic): a rank's ULT, and the rank's progress thread. A stream is inside
 * at most one profiled call at a time; a call made inside another (a PMPI_ call of an MPI call,
 * a user callback) counts to the outer one. While a call is open, its time goes to one component
 * at a time; the points below move it from one to another:
 *
 *   MPI_Recv  |post  |progress      |copy |progress |sched         |progress |post|
 *             t0     t1             t2    t3        t4             t5        t6   t7
 *
 * Each boundary reads the timer once; the interval since the previous one, less the cost of a
 * timer read (measured at start: the median of back-to-back reads), goes to the kind of the call
 * and the component that was current. A call's components thus add up to its total.
 *
 * Components:
 *   post      the call's own path: argument checks, requests, matching a receive against the
 *             messages already there, enqueueing a message, building a collective's schedule
 *   progress  polling the mailboxes and matching what arrived, completing requests (the
 *             completion calls MPI_Wait* and MPI_Test* are progress from their start)
 *   copy      copying message data: packing into a cell, unpacking, the rendezvous copy
 *   engine    running collective schedules (nbc/): their rounds, reductions, active messages
 *   sched     the scheduler: yields (with the time the other ranks of the core run meanwhile),
 *             sleeps (park) and wake-ups (unpark) - the wall time of a call, not its CPU time
 *
 * Cost when off: each point is one well-predicted branch on tm_rt_profile_enabled (set before
 * any rank runs, read-only after): no call, no timer read.
 */
#ifndef TM_RT_PROFILE_H
#define TM_RT_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/profile_clock.h"
#include "sched/sched.h"

#define TM_RT_PROFILE_HIDDEN __attribute__((visibility("hidden")))

typedef enum tm_rt_profile_comp {
    TM_RT_PROFILE_POST,
    TM_RT_PROFILE_PROGRESS,
    TM_RT_PROFILE_COPY,
    TM_RT_PROFILE_ENGINE,
    TM_RT_PROFILE_SCHED,
    TM_RT_PROFILE_NCOMPS
} tm_rt_profile_comp_t;

/* The kinds of calls profiled, up to TM_RT_PROFILE_MAX_KINDS. The runtime knows one, the passes
 * of the progress threads over their engines, the last; the layer whose calls are profiled (mpi/,
 * the MPI calls: mpi/profile_calls.h) numbers the others from TM_RT_PROFILE_FIRST_CALL and names
 * them for the report (tm_rt_profile_name_kinds). */
#define TM_RT_PROFILE_MAX_KINDS     96
#define TM_RT_PROFILE_FIRST_CALL    0
#define TM_RT_PROFILE_PROGRESS_PASS (TM_RT_PROFILE_MAX_KINDS - 1)

/* Names kinds [first, first + n) "names[i]" in the report; before the report, at any time. */
void tm_rt_profile_name_kinds(int first, const char *const *names, int n);

/* The counters of one stream, in timer ticks. Its own cache lines: the rank's and its progress
 * thread's run on different cores. */
typedef struct tm_rt_profile_stream {
    int depth;     /* calls open; nested ones count to the outermost */
    int kind;      /* the outermost call's */
    int comp;      /* where the time goes now */
    uint64_t last; /* the timer at the last boundary */
    uint64_t ticks[TM_RT_PROFILE_MAX_KINDS][TM_RT_PROFILE_NCOMPS];
    uint64_t calls[TM_RT_PROFILE_MAX_KINDS];
} __attribute__((aligned(64))) tm_rt_profile_stream_t;

/* A rank's two streams. */
typedef struct tm_rt_profile_rank {
    tm_rt_profile_stream_t rank;   /* the rank's ULT */
    tm_rt_profile_stream_t helper; /* its progress thread */
} tm_rt_profile_rank_t;

/* ---- the timer (profile_clock.h) ---- */

/* The clock of the job (read by the points; set up before any rank runs). */
extern tm_rt_profile_clock_t tm_rt_profile_clock TM_RT_PROFILE_HIDDEN;

/* ---- the counters, one stream at a time (what the points do; the tests drive them with
 * timestamps of their own). `overhead` is subtracted from each interval (none below 0). ---- */

/* A call of `kind` starts, its time going to component comp. */
void tm_rt_profile_stream_call_begin(tm_rt_profile_stream_t *s, int kind, int comp, uint64_t now);
void tm_rt_profile_stream_call_end(tm_rt_profile_stream_t *s, uint64_t now, uint64_t overhead);
/* Moves the time to component comp; returns the component to go back to. Outside a call, or
 * into the component that is already current, it changes nothing (and the return says so:
 * -1). */
int tm_rt_profile_stream_switch(tm_rt_profile_stream_t *s, int comp, uint64_t now,
                                uint64_t overhead);
void tm_rt_profile_stream_restore(tm_rt_profile_stream_t *s, int prev, uint64_t now,
                                  uint64_t overhead);

/* ---- the points ---- */

/* Non-zero when the job profiles. */
extern int tm_rt_profile_enabled TM_RT_PROFILE_HIDDEN;

/* The slow paths, on the calling ULT's stream (none outside a ULT, or on a ULT without one). */
tm_rt_profile_stream_t *tm_rt_profile_call_begin_slow(int kind, int comp);
void tm_rt_profile_call_end_slow(tm_rt_profile_stream_t *s);

typedef struct tm_rt_profile_mark {
    tm_rt_profile_stream_t *stream; /* NULL: nothing to undo */
    int prev;
} tm_rt_profile_mark_t;
tm_rt_profile_mark_t tm_rt_profile_begin_slow(int comp);
void tm_rt_profile_end_slow(tm_rt_profile_mark_t m);

/* A profiled call of `kind` starts (counted), in component comp; returns what
 * tm_rt_profile_call_end needs. */
static inline tm_rt_profile_stream_t *tm_rt_profile_call_begin(int kind, int comp)
{
    if (__builtin_expect(tm_rt_profile_enabled, 0))
        return tm_rt_profile_call_begin_slow(kind, comp);
    return NULL;
}

static inline void tm_rt_profile_call_end(tm_rt_profile_stream_t *s)
{
    if (__builtin_expect(s != NULL, 0))
        tm_rt_profile_call_end_slow(s);
}

/* From here the time goes to component comp, until tm_rt_profile_end(the mark returned). */
static inline tm_rt_profile_mark_t tm_rt_profile_begin(int comp)
{
    if (__builtin_expect(tm_rt_profile_enabled, 0))
        return tm_rt_profile_begin_slow(comp);
    return (tm_rt_profile_mark_t){NULL, 0};
}

static inline void tm_rt_profile_end(tm_rt_profile_mark_t m)
{
    if (__builtin_expect(m.stream != NULL, 0))
        tm_rt_profile_end_slow(m);
}

static inline void tm_rt_profile_call_end_at_scope(tm_rt_profile_stream_t **s)
{
    tm_rt_profile_call_end(*s);
}

static inline void tm_rt_profile_end_at_scope(tm_rt_profile_mark_t *m)
{
    tm_rt_profile_end(*m);
}

#define TM_RT_PROFILE_CAT_(a, b) a##b
#define TM_RT_PROFILE_CAT(a, b)  TM_RT_PROFILE_CAT_(a, b)

/* The rest of the enclosing block (a function body: every return) is one call of `kind`,
 * starting in component `comp`. */
#define TM_RT_PROFILE_CALL(kind, comp)                                                             \
    __attribute__((cleanup(tm_rt_profile_call_end_at_scope), unused))                              \
    tm_rt_profile_stream_t *tm_rt_profile_call_ = tm_rt_profile_call_begin(kind, comp)

/* The rest of the enclosing block goes to component COMP (TM_RT_PROFILE_COMP). */
#define TM_RT_PROFILE_SCOPE(COMP)                                                                  \
    __attribute__((cleanup(tm_rt_profile_end_at_scope), unused)) tm_rt_profile_mark_t              \
    TM_RT_PROFILE_CAT(tm_rt_profile_mark_, __LINE__) = tm_rt_profile_begin(TM_RT_PROFILE_##COMP)

/* The scheduler's calls, timed as sched: a wait's yields and sleeps, a poke's wake-up. */
static inline bool tm_rt_profile_yield(void)
{
    tm_rt_profile_mark_t m = tm_rt_profile_begin(TM_RT_PROFILE_SCHED);
    bool yielded = tm_sched_yield();
    tm_rt_profile_end(m);
    return yielded;
}

static inline void tm_rt_profile_park(void)
{
    tm_rt_profile_mark_t m = tm_rt_profile_begin(TM_RT_PROFILE_SCHED);
    tm_sched_park();
    tm_rt_profile_end(m);
}

static inline void tm_rt_profile_unpark(tm_sched_ult_t *ult)
{
    tm_rt_profile_mark_t m = tm_rt_profile_begin(TM_RT_PROFILE_SCHED);
    tm_sched_unpark(ult);
    tm_rt_profile_end(m);
}

/* ---- the job's side ---- */

/* The profile of this process's nranks ranks, world ranks first_rank on: allocates the counters,
 * starts the clock and turns the points on. 0 or -ENOMEM. Before any rank runs. */
int tm_rt_profile_start(int first_rank, int nranks);

/* Where the time of the calling ULT goes: the rank's ULT (helper false) or its progress thread
 * (true) of world rank `rank`. Nothing when the job does not profile. */
void tm_rt_profile_attach_self(int rank, int helper);

/* The stream of world rank `rank` (NULL when the job does not profile), for the runtime to hand
 * to the rank's ULT before it runs. */
tm_rt_profile_stream_t *tm_rt_profile_rank_stream(int rank);

/* After every rank and progress thread has ended: calibrates the clock, writes the table (csv 0)
 * or the CSV rows (csv 1) to out, and frees the counters. */
void tm_rt_profile_finish(FILE *out, int csv);

/* ---- the report, from counters (tm_rt_profile_finish; the tests) ---- */

/* The name of a kind of call ("kind N" when it has none), of a component ("post", ...
 * "sched"). */
const char *tm_rt_profile_kind_name(int kind);
const char *tm_rt_profile_comp_name(int comp);

/* The table: a header, one line per kind of call used (count, total, mean, share of all the
 * profiled time, and the share of each component in the line's total), the busiest first, then
 * the whole job's time by component. Times are summed over the ranks. */
void tm_rt_profile_write_table(FILE *out, const tm_rt_profile_rank_t *ranks, int nranks,
                               const tm_rt_profile_clock_t *c);

/* The same as CSV: a header line, then for each rank the lines of the kinds it used and an "all"
 * line, then the same for the job (rank "all"). Times in ns; share: of the rank's (the job's)
 * total. */
void tm_rt_profile_write_csv(FILE *out, const tm_rt_profile_rank_t *ranks, int nranks,
                             const tm_rt_profile_clock_t *c);

#endif /* TM_RT_PROFILE_H */
