/*
 * The breakdown profiler (profile.h): the counters of each stream, the points' slow paths, and
 * the report. The timer is profile_clock.h's, calibrated over the whole job (at least 10 ms).
 */
#include "config.h"

#include "runtime/profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched.h"

int tm_rt_profile_enabled;
tm_rt_profile_clock_t tm_rt_profile_clock;

static tm_rt_profile_rank_t *profile_ranks;
static int profile_nranks;
static int profile_first; /* the world rank of profile_ranks[0] */

static const char *kind_names[TM_RT_PROFILE_MAX_KINDS] = {
    [TM_RT_PROFILE_PROGRESS_PASS] = "(progress threads)",
};

static const char *const comp_names[TM_RT_PROFILE_NCOMPS] = {"post", "progress", "copy", "engine",
                                                             "sched"};

void tm_rt_profile_name_kinds(int first, const char *const *names, int n)
{
    for (int i = 0; i < n && first + i < TM_RT_PROFILE_MAX_KINDS; i++)
        kind_names[first + i] = names[i];
}

const char *tm_rt_profile_kind_name(int kind)
{
    static char unnamed[TM_RT_PROFILE_MAX_KINDS][16];
    if (kind < 0 || kind >= TM_RT_PROFILE_MAX_KINDS)
        return "?";
    if (kind_names[kind])
        return kind_names[kind];
    snprintf(unnamed[kind], sizeof unnamed[kind], "kind %d", kind);
    return unnamed[kind];
}

const char *tm_rt_profile_comp_name(int comp)
{
    return comp >= 0 && comp < TM_RT_PROFILE_NCOMPS ? comp_names[comp] : "?";
}

/* ---- the counters of a stream ---------------------------------------------------------------- */

/* The time since the last boundary, less a timer read, to the current call and component. */
static inline void charge(tm_rt_profile_stream_t *s, uint64_t now, uint64_t overhead)
{
    int64_t d = (int64_t)(now - s->last) - (int64_t)overhead;
    if (d > 0)
        s->ticks[s->kind][s->comp] += (uint64_t)d;
    s->last = now;
}

void tm_rt_profile_stream_call_begin(tm_rt_profile_stream_t *s, int kind, int comp, uint64_t now)
{
    if (s->depth++ > 0)
        return;
    s->kind = kind;
    s->comp = comp;
    s->last = now;
    s->calls[kind]++;
}

void tm_rt_profile_stream_call_end(tm_rt_profile_stream_t *s, uint64_t now, uint64_t overhead)
{
    if (s->depth == 0 || --s->depth > 0)
        return;
    charge(s, now, overhead);
}

int tm_rt_profile_stream_switch(tm_rt_profile_stream_t *s, int comp, uint64_t now,
                                uint64_t overhead)
{
    if (s->depth == 0 || s->comp == comp)
        return -1;
    charge(s, now, overhead);
    int prev = s->comp;
    s->comp = comp;
    return prev;
}

void tm_rt_profile_stream_restore(tm_rt_profile_stream_t *s, int prev, uint64_t now,
                                  uint64_t overhead)
{
    if (prev < 0)
        return;
    if (s->depth > 0)
        charge(s, now, overhead);
    s->comp = prev;
}

/* ---- the points' slow paths ------------------------------------------------------------------ */

static inline tm_rt_profile_stream_t *self_stream(void)
{
    tm_sched_ult_t *ult = tm_sched_self();
    return ult ? tm_sched_ult_get_profile(ult) : NULL;
}

tm_rt_profile_stream_t *tm_rt_profile_call_begin_slow(int kind, int comp)
{
    tm_rt_profile_stream_t *s = self_stream();
    if (s)
        tm_rt_profile_stream_call_begin(s, kind, comp,
                                        tm_rt_profile_clock_read(&tm_rt_profile_clock));
    return s;
}

void tm_rt_profile_call_end_slow(tm_rt_profile_stream_t *s)
{
    tm_rt_profile_stream_call_end(s, tm_rt_profile_clock_read(&tm_rt_profile_clock),
                                  tm_rt_profile_clock.overhead);
}

tm_rt_profile_mark_t tm_rt_profile_begin_slow(int comp)
{
    tm_rt_profile_mark_t m = {NULL, -1};
    tm_rt_profile_stream_t *s = self_stream();
    if (!s || s->depth == 0 || s->comp == comp)
        return m;
    m.prev = tm_rt_profile_stream_switch(s, comp, tm_rt_profile_clock_read(&tm_rt_profile_clock),
                                         tm_rt_profile_clock.overhead);
    m.stream = s;
    return m;
}

void tm_rt_profile_end_slow(tm_rt_profile_mark_t m)
{
    tm_rt_profile_stream_restore(m.stream, m.prev, tm_rt_profile_clock_read(&tm_rt_profile_clock),
                                 tm_rt_profile_clock.overhead);
}

/* ---- the job's side -------------------------------------------------------------------------- */

int tm_rt_profile_start(int first_rank, int nranks)
{
    size_t bytes = (size_t)nranks * sizeof *profile_ranks;
    profile_ranks = aligned_alloc(64, bytes);
    if (!profile_ranks)
        return -ENOMEM;
    memset(profile_ranks, 0, bytes);
    profile_nranks = nranks;
    profile_first = first_rank;
    tm_rt_profile_clock_init(&tm_rt_profile_clock);
    tm_rt_profile_enabled = 1;
    return 0;
}

void tm_rt_profile_attach_self(int rank, int helper)
{
    tm_sched_ult_t *ult = tm_sched_self();
    rank -= profile_first;
    if (!tm_rt_profile_enabled || !ult || rank < 0 || rank >= profile_nranks)
        return;
    tm_sched_ult_set_profile(ult, helper ? &profile_ranks[rank].helper : &profile_ranks[rank].rank);
}

tm_rt_profile_stream_t *tm_rt_profile_rank_stream(int rank)
{
    rank -= profile_first;
    if (!tm_rt_profile_enabled || rank < 0 || rank >= profile_nranks)
        return NULL;
    return &profile_ranks[rank].rank;
}

void tm_rt_profile_finish(FILE *out, int csv)
{
    if (!tm_rt_profile_enabled)
        return;
    tm_rt_profile_enabled = 0;
    tm_rt_profile_clock_calibrate(&tm_rt_profile_clock, 10 * 1000 * 1000);
    if (csv)
        tm_rt_profile_write_csv(out, profile_ranks, profile_nranks, &tm_rt_profile_clock);
    else
        tm_rt_profile_write_table(out, profile_ranks, profile_nranks, &tm_rt_profile_clock);
    free(profile_ranks);
    profile_ranks = NULL;
    profile_nranks = 0;
}

/* ---- the report ------------------------------------------------------------------------------ */

/* The time of a kind of call (or of all, kind -1), in ns, per component and in total. */
typedef struct row {
    int kind;
    uint64_t calls;
    double ns[TM_RT_PROFILE_NCOMPS];
    double total;
} row_t;

/* Adds the counters of ranks [first, last) to rows[kind] (both streams of each) and to *all. */
static void rows_sum(row_t *rows, row_t *all, const tm_rt_profile_rank_t *ranks, int first,
                     int last, const tm_rt_profile_clock_t *c)
{
    for (int kind = 0; kind < TM_RT_PROFILE_MAX_KINDS; kind++)
        rows[kind] = (row_t){.kind = kind};
    *all = (row_t){.kind = -1};
    for (int r = first; r < last; r++) {
        const tm_rt_profile_stream_t *streams[2] = {&ranks[r].rank, &ranks[r].helper};
        for (int k = 0; k < 2; k++) {
            for (int kind = 0; kind < TM_RT_PROFILE_MAX_KINDS; kind++) {
                rows[kind].calls += streams[k]->calls[kind];
                all->calls += streams[k]->calls[kind];
                for (int comp = 0; comp < TM_RT_PROFILE_NCOMPS; comp++) {
                    double ns = (double)streams[k]->ticks[kind][comp] / c->ticks_per_ns;
                    rows[kind].ns[comp] += ns;
                    rows[kind].total += ns;
                    all->ns[comp] += ns;
                    all->total += ns;
                }
            }
        }
    }
}

static int row_busier(const void *a, const void *b)
{
    const row_t *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return x->kind - y->kind;
}

/* A duration with a unit that keeps it short: "812.0 ns", "12.345 us", "1.234 s". */
static void format_time(double ns, char *buf, size_t len)
{
    if (ns < 1e3)
        snprintf(buf, len, "%.1f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, len, "%.3f us", ns * 1e-3);
    else if (ns < 1e9)
        snprintf(buf, len, "%.3f ms", ns * 1e-6);
    else
        snprintf(buf, len, "%.3f s", ns * 1e-9);
}

static double percent(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

void tm_rt_profile_write_table(FILE *out, const tm_rt_profile_rank_t *ranks, int nranks,
                               const tm_rt_profile_clock_t *c)
{
    row_t rows[TM_RT_PROFILE_MAX_KINDS], all;
    char total[32], mean[32];
    rows_sum(rows, &all, ranks, 0, nranks, c);
    format_time(all.total, total, sizeof total);
    fprintf(out, "threadmpi profile: %d rank%s, %s in profiled calls (summed over the ranks)\n",
            nranks, nranks == 1 ? "" : "s", total);
    fprintf(out, "timer: %s at %.3f GHz, %.1f ns a read, subtracted from each interval\n",
            tm_rt_profile_clock_name(c), c->ticks_per_ns, (double)c->overhead / c->ticks_per_ns);
    if (all.calls == 0) {
        fprintf(out, "no MPI call was profiled\n");
        return;
    }
    fprintf(out, "%-26s %10s %11s %11s %7s |", "call", "count", "total", "mean", "share");
    for (int comp = 0; comp < TM_RT_PROFILE_NCOMPS; comp++)
        fprintf(out, " %8s", comp_names[comp]);
    fputc('\n', out);
    qsort(rows, TM_RT_PROFILE_MAX_KINDS, sizeof rows[0], row_busier);
    for (int i = 0; i < TM_RT_PROFILE_MAX_KINDS; i++) {
        const row_t *row = &rows[i];
        if (row->calls == 0)
            continue;
        format_time(row->total, total, sizeof total);
        format_time(row->total / (double)row->calls, mean, sizeof mean);
        fprintf(out, "%-26s %10llu %11s %11s %6.1f%% |", tm_rt_profile_kind_name(row->kind),
                (unsigned long long)row->calls, total, mean, percent(row->total, all.total));
        for (int comp = 0; comp < TM_RT_PROFILE_NCOMPS; comp++)
            fprintf(out, " %7.1f%%", percent(row->ns[comp], row->total));
        fputc('\n', out);
    }
    fprintf(out, "%-26s %11s %7s\n", "component (whole job)", "total", "share");
    for (int comp = 0; comp < TM_RT_PROFILE_NCOMPS; comp++) {
        format_time(all.ns[comp], total, sizeof total);
        fprintf(out, "%-26s %11s %6.1f%%\n", comp_names[comp], total,
                percent(all.ns[comp], all.total));
    }
}

static void csv_row(FILE *out, const char *rank, const char *call, const row_t *row, double whole)
{
    fprintf(out, "%s,%s,%llu,%.0f,%.1f,%.4f", rank, call, (unsigned long long)row->calls,
            row->total, row->calls ? row->total / (double)row->calls : 0.0,
            whole > 0 ? row->total / whole : 0.0);
    for (int comp = 0; comp < TM_RT_PROFILE_NCOMPS; comp++)
        fprintf(out, ",%.0f", row->ns[comp]);
    fputc('\n', out);
}

/* The lines of one scope: ranks [first, last), named `rank` in the first column. */
static void csv_scope(FILE *out, const char *rank, const tm_rt_profile_rank_t *ranks, int first,
                      int last, const tm_rt_profile_clock_t *c)
{
    row_t rows[TM_RT_PROFILE_MAX_KINDS], all;
    rows_sum(rows, &all, ranks, first, last, c);
    for (int kind = 0; kind < TM_RT_PROFILE_MAX_KINDS; kind++)
        if (rows[kind].calls > 0)
            csv_row(out, rank, tm_rt_profile_kind_name(kind), &rows[kind], all.total);
    csv_row(out, rank, "all", &all, all.total);
}

void tm_rt_profile_write_csv(FILE *out, const tm_rt_profile_rank_t *ranks, int nranks,
                             const tm_rt_profile_clock_t *c)
{
    fprintf(out, "rank,call,count,total_ns,mean_ns,share");
    for (int comp = 0; comp < TM_RT_PROFILE_NCOMPS; comp++)
        fprintf(out, ",%s_ns", comp_names[comp]);
    fputc('\n', out);
    for (int r = 0; r < nranks; r++) {
        char name[16];
        snprintf(name, sizeof name, "%d", r);
        csv_scope(out, name, ranks, r, r + 1, c);
    }
    csv_scope(out, "all", ranks, 0, nranks, c);
}
