/*
 * The split-tree performance model (model.h has the model, its source and its two kinds): the
 * level counts of the binomial tree, the predicted times, the choice of S and the table that
 * `mpcrun --split-model` prints.
 *
 * Level counts. The paper's equation (3) gives, with L = floor(log2 N) and R = N - 2^L,
 *   F(N,i) = 2^(L - (H-i+1)) + floor((R + 2^(H-i)) / 2^(H-i+1)).
 * It is exact when N is a power of two (F = 2^(i-1)), but not otherwise: there H = L + 1, so at
 * the root level the first term is 2^-1 (one half of a transfer), and at the level
 * i = H - k, k being the lowest set bit of R, the second term counts one transfer too many
 * (for N = 57: 1/2, 2, 4, 7, 14, 29 instead of 1, 2, 4, 7, 14, 28). The printed counts then add
 * up to N - 1/2 instead of N - 1 for every N that is not a power of two. This file uses the
 * exact counts of the binomial tree instead. Numbering the ranks from the root (0) and calling
 * m = 2^(H-i), rank r receives at level i when r is an odd multiple of m: at that level every
 * rank that is a multiple of 2m and has a rank r + m below N sends to it. So
 *   F(N,i) = #{ r < N : r = m (mod 2m) } = floor((N - 1 + m) / 2m),
 * which equals the printed formula wherever that one is right, and whose levels add up to N - 1
 * (every rank but the root receives once). The switch points of the choice on 64 cores are
 * the same with both (only the rounding of a few folded levels differs).
 *
 * Arithmetic: the counts and the folded steps are exact integers (64 bits, so that every n of
 * an int works); only C(N), a fraction, makes the times doubles.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "nbc/model.h"

int tm_nbc_model_height(int n)
{
    int h = 0;

    while ((INT64_C(1) << h) < n)
        h++;
    return h;
}

int tm_nbc_model_level_comms(int n, int level)
{
    int h = tm_nbc_model_height(n);

    if (level < 1 || level > h)
        return 0;
    int64_t m = INT64_C(1) << (h - level);
    return (int)(((int64_t)n - 1 + m) / (2 * m));
}

/* What a transfer at `level` of a tree of height h costs: 1, or 2^(h-level) blocks. */
static double level_weight(tm_nbc_model_kind_t kind, int h, int level)
{
    return kind == TM_NBC_MODEL_DOUBLING ? (double)(INT64_C(1) << (h - level)) : 1.0;
}

/* The time of the lowest min(s,h) levels, run by the ranks themselves, one step per level:
 * min(s,h), or for the doubling kind the sum of their weights 1 + 2 + ... = 2^min(s,h) - 1. */
static double ranks_time(tm_nbc_model_kind_t kind, int s, int h)
{
    int levels = s < h ? s : h;

    return kind == TM_NBC_MODEL_DOUBLING ? (double)((INT64_C(1) << levels) - 1) : (double)levels;
}

/* The time of the upper h - s levels folded onto p cores: level by level (each waits for the one
 * above), ceil(F/p) steps each. +infinity when there is something to fold and p <= 0. */
static double folded_time(tm_nbc_model_kind_t kind, int s, int n, int p)
{
    int h = tm_nbc_model_height(n);
    double t = 0.0;

    for (int i = 1; i <= h - s; i++) {
        if (p <= 0)
            return INFINITY;
        int64_t steps = ((int64_t)tm_nbc_model_level_comms(n, i) + p - 1) / p;
        t += level_weight(kind, h, i) * (double)steps;
    }
    return t;
}

/* T_blocking on all cores: every level on the ranks. */
static double blocking_time(tm_nbc_model_kind_t kind, int nproc)
{
    int h = tm_nbc_model_height(nproc);

    return ranks_time(kind, h, h);
}

double tm_nbc_model_t_nonblocking(tm_nbc_model_kind_t kind, int s, int n, int p)
{
    if (s < 0 || n < 1)
        return NAN;
    return ranks_time(kind, s, tm_nbc_model_height(n)) + folded_time(kind, s, n, p);
}

double tm_nbc_model_t_overlapped(tm_nbc_model_kind_t kind, int s, int n, int nproc)
{
    if (s < 0 || n < 1 || nproc < 1)
        return NAN;
    double computation = (double)nproc / n * blocking_time(kind, nproc);
    double background = folded_time(kind, s, n, nproc - n);

    return ranks_time(kind, s, tm_nbc_model_height(n)) +
           (background > computation ? background : computation);
}

int tm_nbc_model_choose(tm_nbc_model_kind_t kind, int n, int nproc)
{
    if (n < 1 || nproc < 1)
        return -EINVAL;
    int h = tm_nbc_model_height(n);
    if (nproc <= n)
        return h;
    int best = 0;
    double best_t = tm_nbc_model_t_overlapped(kind, 0, n, nproc);
    for (int s = 1; s <= h; s++) {
        double t = tm_nbc_model_t_overlapped(kind, s, n, nproc);
        if (t < best_t) {
            best = s;
            best_t = t;
        }
    }
    return best;
}

static void print_block(FILE *out, tm_nbc_model_kind_t kind, int cores)
{
    for (int n = 2; n < cores; n++) {
        fprintf(out, "N=%d P=%d S=%d ", n, cores - n, tm_nbc_model_choose(kind, n, cores));
        for (int s = 0, h = tm_nbc_model_height(n); s <= h; s++)
            fprintf(out, " T(S=%d)=%.2f", s, tm_nbc_model_t_overlapped(kind, s, n, cores));
        fputc('\n', out);
    }
}

void tm_nbc_model_print(FILE *out, int cores)
{
    fprintf(out,
            "# split-tree model for %d cores: N ranks, P = %d - N cores for progress threads,\n"
            "# S = levels of the tree run by the ranks (the model's choice), T(S=s) = predicted\n"
            "# time of the collective overlapped with computation, in transfers of the buffer\n",
            cores, cores);
    fputs("# bcast, reduce, allreduce\n", out);
    print_block(out, TM_NBC_MODEL_CONSTANT, cores);
    fputs("# scatter, gather\n", out);
    print_block(out, TM_NBC_MODEL_DOUBLING, cores);
}
