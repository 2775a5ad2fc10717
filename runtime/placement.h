/*
 * Placement: which core each rank and each rank's progress thread runs on, from the topology
 * hwloc gives (the machine, or HWLOC_SYNTHETIC / HWLOC_XMLFILE) and the [placement] settings.
 *
 * A slot is what one VP is pinned to: a core (smt = false), or a hardware thread (smt = true).
 * Only slots in hwloc's allowed set count (the job's cgroup/cpuset). Slots are numbered in
 * hwloc logical order; "core" below is always a hwloc logical core index.
 *
 * Ranks (settings.h, tm_rt_rank_policy_t): compact, scatter, numa, list. More ranks than slots
 * share the slots evenly (counts differ by one at most).
 * Progress threads (tm_rt_progress_policy_t): idle, same, next, comm, none. `idle` takes, rank
 * after rank, the least loaded idle slot, the closest in the topology to the rank's among equals
 * (so no idle slot gets two before every idle slot has one); with no idle slot it falls back to
 * `same` and says so in `idle_fallback`.
 *
 * The result is plain data: the VPs to start (the distinct slots in use, VP 0 first hosting
 * rank 0), and for each rank its VP and its progress thread's VP.
 */
#ifndef TM_RT_PLACEMENT_H
#define TM_RT_PLACEMENT_H

#include <hwloc.h>
#include <stdbool.h>
#include <stdio.h>

#include "runtime/settings.h"

typedef struct tm_rt_placement_vp {
    int core;              /* hwloc logical index of the core */
    int pu;                /* hwloc logical index of the hardware thread when smt, else -1 */
    int numa;              /* hwloc logical index of its NUMA node (the first, if several) */
    hwloc_cpuset_t cpuset; /* what the VP is pinned to (the slot's allowed PUs) */
} tm_rt_placement_vp_t;

typedef struct tm_rt_placement {
    int nranks;
    int nvps;
    tm_rt_placement_vp_t *vps; /* nvps */
    int *rank_vp;              /* nranks: the VP of each rank */
    int *progress_vp;          /* nranks: the VP of each progress thread, -1 for none */
    int idle_cores;            /* VPs that host progress threads and no rank (the model's P) */
    bool ranks_share_cores;    /* some VP runs two ranks or more */
    bool idle_fallback;        /* progress = idle found no idle slot and used the ranks' own */
} tm_rt_placement_t;

/* Places `nranks` ranks (0: one per slot the rank policy may use) on `topo`. On error returns a
 * negative errno value and writes one line to err naming the setting's origin, e.g.
 * "threadmpi.conf:3: placement.ranks: core 9 does not exist (this machine's allowed cores are
 * 0-7)". The errors: a listed core that does not exist or is not allowed, a listed core
 * reserved for progress threads by comm, comm_cores leaving no core for the ranks, -ENOMEM. */
int tm_rt_placement_compute(tm_rt_placement_t *p, hwloc_topology_t topo, const tm_rt_settings_t *s,
                            int nranks, char *err, size_t errlen);

/* Prints, one line each, "rank <r>: core <c> (numa <m>)" for every rank, then
 * "progress <r>: core <c> (numa <m>)" for every rank that has a progress thread; the ranks
 * numbered from first_rank, and "host <host>, " before the core when host is not NULL (one
 * host's part of a job on several). */
void tm_rt_placement_report(const tm_rt_placement_t *p, FILE *out, const char *host,
                            long first_rank);

/* Frees what tm_rt_placement_compute() allocated (safe on a zeroed or freed placement). */
void tm_rt_placement_free(tm_rt_placement_t *p);

#endif /* TM_RT_PLACEMENT_H */
