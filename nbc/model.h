/*
 * The split-tree performance model: how many levels S of a collective's binomial tree the
 * application ranks should run themselves, the other levels being folded onto the cores left
 * free for progress threads.
 *
 * Source: A. Denis, J. Jaeger, E. Jeannot, M. Pérache, H. Taboada, "Dynamic Placement of
 * Progress Thread for Overlapping MPI Non-Blocking Collectives on Manycore Processor",
 * Euro-Par 2018, section 4. A machine has Nproc cores, the job N ranks (one per core), which
 * leaves P = Nproc - N cores to the progress threads. The unit of time is one point-to-point
 * transfer of the collective's buffer; latency and cache effects are neglected.
 *
 *   H(N)   = ceil(log2 N)                      height of the binomial tree (levels 1..H, root = 1)
 *   F(N,i) = communications at level i         1, 2, 4, ... for N a power of two (see model.c)
 *   T_nb(S,N)  = min(S,H) + sum_{i=1..max(0,H-S)} ceil(F(N,i)/P)
 *   C(N)       = (Nproc / N) * T_blocking(Nproc)
 *   T_overlapped(S,N) = min(S,H) + max(C(N), sum_{i=1..max(0,H-S)} ceil(F(N,i)/P))
 *
 * The lowest S levels (those next to the leaves, the widest) run on the N application cores,
 * one step each, and cannot overlap computation; the upper H - S levels run on the P
 * communication cores, each level folded into ceil(F/P) steps, in the background. C(N) is the
 * computation the ranks overlap with the collective: sized, as in the paper's experiments, to last
 * as long on all Nproc cores as the blocking collective there (T_blocking(Nproc) = H(Nproc) for
 * the constant kind), and spread over N ranks. The paper's equation (2) prints the ratio as
 * N / Nproc; its figures and the switch points it reports (S = 1 from N = 52, S = 2 from 58,
 * S = 3 from 62 on 64 cores) need Nproc / N, which is what this model uses.
 *
 * The choice ("auto") is the S in 0..H with the smallest T_overlapped, the smaller S on a tie.
 * With P <= 0 no core is left for progress threads: they would share the application cores, so
 * the collective runs as the blocking one does, all on the ranks: the choice is S = H, and the
 * predicted times of any S < H are +infinity (levels folded onto no core never end).
 *
 * Two kinds of collectives:
 * - TM_NBC_MODEL_CONSTANT (bcast, reduce, allreduce): every transfer carries the whole buffer,
 *   so each level's step costs 1, as above.
 * - TM_NBC_MODEL_DOUBLING (scatter, gather): the data doubles per level toward the root: the
 *   transfer at level i carries a subtree's worth, 2^(H-i) units (one unit being one rank's
 *   block). Each folded level costs 2^(H-i) * ceil(F(N,i)/P), and the S levels on the ranks
 *   (i = H-S+1..H) cost the sum of their weights, 2^(S') - 1 with S' = min(S,H), instead of
 *   min(S,H). The blocking collective on all cores costs T_blocking(Nproc) = 2^H(Nproc) - 1,
 *   and C(N) is sized from that, by the same rule as above.
 *
 * All functions are pure: no state, no allocation, no dependency on the rest of ThreadMPI.
 */
#ifndef TM_NBC_MODEL_H
#define TM_NBC_MODEL_H

#include <stdio.h>

typedef enum {
    TM_NBC_MODEL_CONSTANT, /* bcast, reduce, allreduce: the whole buffer at every level */
    TM_NBC_MODEL_DOUBLING  /* scatter, gather: 2^(H-i) blocks at level i */
} tm_nbc_model_kind_t;

/* H(n) = ceil(log2 n): the number of levels of the binomial tree over n ranks; 0 for n <= 1. */
int tm_nbc_model_height(int n);

/* F(n, level): the number of point-to-point transfers at `level` (1 = the root's, H(n) = the
 * leaves') of the binomial tree over n ranks; 0 when level is not in 1..H(n). The counts of all
 * levels add up to n - 1. */
int tm_nbc_model_level_comms(int n, int level);

/* T_nb(s, n): predicted time of the collective alone with s levels on the n ranks and the others
 * folded onto p communication cores. s > H(n) counts as H(n). +infinity when p <= 0 and some
 * level is left to fold; NaN when s < 0 or n < 1. */
double tm_nbc_model_t_nonblocking(tm_nbc_model_kind_t kind, int s, int n, int p);

/* T_overlapped(s, n): predicted time of the collective overlapped with the computation C(n), n
 * ranks on a machine of nproc cores (p = nproc - n). s > H(n) counts as H(n). +infinity when
 * p <= 0 and s < H(n); NaN when s < 0, n < 1 or nproc < 1. */
double tm_nbc_model_t_overlapped(tm_nbc_model_kind_t kind, int s, int n, int nproc);

/* The S in 0..H(n) with the smallest T_overlapped (the smaller S on a tie); H(n) when
 * nproc <= n. -EINVAL when n < 1 or nproc < 1. */
int tm_nbc_model_choose(tm_nbc_model_kind_t kind, int n, int nproc);

/* Prints the model's table for a machine of `cores` cores: comment lines saying what the
 * columns are, then "# bcast, reduce, allreduce" and, for every n from 2 to cores - 1, one line
 *   N=<n> P=<cores-n> S=<chosen>  T(S=0)=<t> T(S=1)=<t> ... T(S=H)=<t>
 * with T_overlapped of the constant kind to two decimals; then "# scatter, gather" and the same
 * lines for the doubling kind. Lines starting with '#' are comments. */
void tm_nbc_model_print(FILE *out, int cores);

#endif
