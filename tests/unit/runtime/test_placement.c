/* Unit tests of runtime/placement.c on synthetic hwloc topologies: each rank and progress policy
 * against hand-written reports, more ranks than slots, one rank per slot (nranks = 0), the
 * allowed set of a restricted job, and the messages of errors. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/placement.h"
#include "runtime/settings.h"

#define TOPO_1X2  "core:2 pu:1"
#define TOPO_1X8  "core:8 pu:1"
#define TOPO_2X32 "package:2 core:32 pu:1"
#define TOPO_4X16 "package:1 numa:4 core:16 pu:1"
#define TOPO_KNL  "package:1 numa:4 core:16 pu:4"

/* The topology of `desc`; with `allowed` (a list of PUs such as "1-3,6"), restricted to it the
 * way a cgroup restricts a job: the other PUs stay in the tree but are not allowed. */
static hwloc_topology_t topo_load(const char *desc, const char *allowed)
{
    hwloc_topology_t topo;
    ck_assert_int_eq(hwloc_topology_init(&topo), 0);
    if (allowed != NULL)
        ck_assert_int_eq(hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED), 0);
    ck_assert_int_eq(hwloc_topology_set_synthetic(topo, desc), 0);
    ck_assert_int_eq(hwloc_topology_load(topo), 0);
    if (allowed != NULL) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        ck_assert_int_eq(hwloc_bitmap_list_sscanf(set, allowed), 0);
        ck_assert_int_eq(hwloc_topology_allow(topo, set, NULL, HWLOC_ALLOW_FLAG_CUSTOM), 0);
        ck_assert(hwloc_bitmap_isequal(hwloc_topology_get_allowed_cpuset(topo), set));
        hwloc_bitmap_free(set);
    }
    return topo;
}

static tm_rt_settings_t settings(tm_rt_rank_policy_t ranks, int smt,
                                 tm_rt_progress_policy_t progress)
{
    tm_rt_settings_t s;
    tm_rt_settings_defaults(&s);
    s.placement_ranks = ranks;
    s.placement_smt = smt;
    s.placement_progress = progress;
    return s;
}

/* Settings from a configuration file named threadmpi.conf holding `text`. */
static tm_rt_settings_t settings_file(const char *text)
{
    tm_rt_settings_t s;
    char err[512];
    tm_rt_settings_defaults(&s);
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_msg(tm_rt_settings_apply_stream(&s, f, "threadmpi.conf", err, sizeof err) == 0, "%s",
                  err);
    fclose(f);
    return s;
}

/* Checks the report of `p` line by line against `expected`. */
static void report_is(const tm_rt_placement_t *p, const char *expected)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    tm_rt_placement_report(p, f, NULL, 0);
    fclose(f);

    const char *got = text, *want = expected;
    for (int line = 1; *got != '\0' || *want != '\0'; line++) {
        size_t ng = strcspn(got, "\n"), nw = strcspn(want, "\n");
        ck_assert_msg(ng == nw && strncmp(got, want, ng) == 0,
                      "report line %d: got \"%.*s\", expected \"%.*s\"", line, (int)ng, got,
                      (int)nw, want);
        got += ng + (got[ng] == '\n');
        want += nw + (want[nw] == '\n');
    }
    free(text);
}

/* Places and checks the report; the placement stays in *p for more checks. */
static void place(tm_rt_placement_t *p, const char *desc, const tm_rt_settings_t *s, int nranks,
                  const char *expected)
{
    char err[512];
    hwloc_topology_t topo = topo_load(desc, NULL);
    ck_assert_msg(tm_rt_placement_compute(p, topo, s, nranks, err, sizeof err) == 0, "%s", err);
    hwloc_topology_destroy(topo);
    if (expected != NULL)
        report_is(p, expected);
}

/* Checks that the placement fails with -EINVAL and the message `expected`. */
static void place_fails(const char *desc, const char *allowed, const tm_rt_settings_t *s,
                        int nranks, const char *expected)
{
    tm_rt_placement_t p;
    char err[512];
    hwloc_topology_t topo = topo_load(desc, allowed);
    ck_assert_int_eq(tm_rt_placement_compute(&p, topo, s, nranks, err, sizeof err), -EINVAL);
    ck_assert_str_eq(err, expected);
    ck_assert_int_eq(p.nvps, 0);
    ck_assert_ptr_null(p.vps);
    tm_rt_placement_free(&p);
    hwloc_topology_destroy(topo);
}

/* The number of ranks on each VP differs by one at most, and every VP hosts one. */
static void ranks_even(const tm_rt_placement_t *p, int nvps)
{
    int *count = calloc((size_t)p->nvps, sizeof *count);
    ck_assert_int_eq(p->nvps, nvps);
    for (int r = 0; r < p->nranks; r++)
        count[p->rank_vp[r]]++;
    int lo = p->nranks / nvps, hi = (p->nranks + nvps - 1) / nvps;
    for (int v = 0; v < p->nvps; v++)
        ck_assert_msg(count[v] == lo || count[v] == hi, "VP %d hosts %d ranks (%d ranks, %d VPs)",
                      v, count[v], p->nranks, nvps);
    free(count);
}

/* ---- ranks ---------------------------------------------------------------------------------- */

START_TEST(compact_two_cores)
{
    tm_rt_placement_t p;
    tm_rt_settings_t s = settings(TM_RT_RANKS_COMPACT, 0, TM_RT_PROGRESS_IDLE);
    place(&p, TOPO_1X2, &s, 1,
          "rank 0: core 0 (numa 0)\n"
          "progress 0: core 1 (numa 0)\n");
    ck_assert_int_eq(p.nvps, 2);
    ck_assert_int_eq(p.idle_cores, 1);
    ck_assert(!p.idle_fallback);
    ck_assert(!p.ranks_share_cores);
    ck_assert_int_eq(p.rank_vp[0], 0);
    ck_assert_int_eq(p.progress_vp[0], 1);
    ck_assert_int_eq(p.vps[0].pu, -1);
    ck_assert_int_eq(hwloc_bitmap_first(p.vps[1].cpuset), 1);
    ck_assert_int_eq(hwloc_bitmap_weight(p.vps[1].cpuset), 1);
    tm_rt_placement_free(&p);
    tm_rt_placement_free(&p); /* a freed placement is zeroed: freeing again is harmless */
}
END_TEST

START_TEST(compact_two_packages)
{
    tm_rt_placement_t p;
    tm_rt_settings_t s = settings(TM_RT_RANKS_COMPACT, 0, TM_RT_PROGRESS_IDLE);
    /* Each progress thread on the nearest idle core of the rank's package, none shared. */
    place(&p, TOPO_2X32, &s, 4,
          "rank 0: core 0 (numa 0)\n"
          "rank 1: core 1 (numa 0)\n"
          "rank 2: core 2 (numa 0)\n"
          "rank 3: core 3 (numa 0)\n"
          "progress 0: core 4 (numa 0)\n"
          "progress 1: core 5 (numa 0)\n"
          "progress 2: core 6 (numa 0)\n"
          "progress 3: core 7 (numa 0)\n");
    ck_assert_int_eq(p.nvps, 8);
    ck_assert_int_eq(p.idle_cores, 4);
    tm_rt_placement_free(&p);
}
END_TEST

START_TEST(scatter_two_packages)
{
    tm_rt_placement_t p;
    tm_rt_settings_t s = settings(TM_RT_RANKS_SCATTER, 0, TM_RT_PROGRESS_IDLE);
    place(&p, TOPO_2X32, &s, 4,
          "rank 0: core 0 (numa 0)\n"
          "rank 1: core 32 (numa 0)\n"
          "rank 2: core 1 (numa 0)\n"
          "rank 3: core 33 (numa 0)\n"
          "progress 0: core 2 (numa 0)\n"
          "progress 1: core 34 (numa 0)\n"
          "progress 2: core 3 (numa 0)\n"
          "progress 3: core 35 (numa 0)\n");
    /* VPs in order of first use: the ranks', then the progress threads'. */
    static const int core[] = {0, 32, 1, 33, 2, 34, 3, 35};
    ck_assert_int_eq(p.nvps, 8);
    for (int v = 0; v < 8; v++)
        ck_assert_int_eq(p.vps[v].core, core[v]);
    ck_assert_int_eq(p.idle_cores, 4);
    tm_rt_placement_free(&p);
}
END_TEST

START_TEST(scatter_numa_nodes)
{
    tm_rt_placement_t p;
    tm_rt_settings_t s = settings(TM_RT_RANKS_SCATTER, 0, TM_RT_PROGRESS_NONE);
    place(&p, TOPO_4X16, &s, 6,
          "rank 0: core 0 (numa 0)\n"
          "rank 1: core 16 (numa 1)\n"
          "rank 2: core 32 (numa 2)\n"
          "rank 3: core 48 (numa 3)\n"
          "rank 4: core 1 (numa 0)\n"
          "rank 5: core 17 (numa 1)\n");
    tm_rt_placement_free(&p);
}
END_TEST

START_TEST(numa_balanced)
{
    tm_rt_placement_t p;
    tm_rt_settings_t s = settings(TM_RT_RANKS_NUMA, 0, TM_RT_PROGRESS_IDLE);
    /* 6 ranks on 4 nodes: 2, 2, 1, 1, consecutive ranks together. */
    place(&p, TOPO_4X16, &s, 6,
          "rank 0: core 0 (numa 0)\n"
          "rank 1: core 1 (numa 0)\n"
          "rank 2: core 16 (numa 1)\n"
          "rank 3: core 17 (numa 1)\n"
          "rank 4: core 32 (numa 2)\n"
          "rank 5: core 48 (numa 3)\n"
          "progress 0: core 2 (numa 0)\n"
          "progress 1: core 3 (numa 0)\n"
          "progress 2: core 18 (numa 1)\n"
          "progress 3: core 19 (numa 1)\n"
          "progress 4: core 33 (numa 2)\n"
          "progress 5: core 49 (numa 3)\n");
    tm_rt_placement_free(&p);
}
END_TEST

START_TEST(numa_oversubscribed)
{
    tm_rt_placement_t p;
    tm_rt_settings_t s = settings(TM_RT_RANKS_NUMA, 0, TM_RT_PROGRESS_NONE);
    /* 130 ranks on 64 cores: nodes get 33, 33, 32, 32; cores 2 or 3, in blocks. */
    place(&p, TOPO_4X16, &s, 130, NULL);
    ranks_even(&p, 64);
    int per_node[4] = {0};
    for (int r = 0; r < p.nranks; r++) {
        per_node[p.vps[p.rank_vp[r]].numa]++;
        if (r > 0)
            ck_assert_int_ge(p.vps[p.rank_vp[r]].core, p.vps[p.rank_vp[r - 1]].core);
        ck_assert_int_eq(p.progress_vp[r], -1);
    }
    ck_assert_int_eq(per_node[0], 33);
    ck_assert_int_eq(per_node[1], 33);
    ck_assert_int_eq(per_node[2], 32);
    ck_assert_int_eq(per_node[3], 32);
    /* Node 0: 33 ranks on 16 cores, the first core takes 3 (floor(r * 16 / 33)). */
    ck_assert_int_eq(p.vps[p.rank_vp[2]].core, 0);
    ck_assert_int_eq(p.vps[p.rank_vp[3]].core, 1);
    ck_assert_int_eq(p.vps[p.rank_vp[33]].core, 16);
    tm_rt_placement_free(&p);
}
END_TEST

START_TEST(more_ranks_than_cores)
{
    tm_rt_placement_t p;
    tm_rt_settings_t s = settings(TM_RT_RANKS_COMPACT, 0, TM_RT_PROGRESS_IDLE);
    /* Consecutive ranks share; no idle core: the progress threads go with their ranks. */
    place(&p, TOPO_1X2, &s, 3,
          "rank 0: core 0 (numa 0)\n"
          "rank 1: core 0 (numa 0)\n"
          "rank 2: core 1 (numa 0)\n"
          "progress 0: core 0 (numa 0)\n"
          "progress 1: core 0 (numa 0)\n"
          "progress 2: core 1 (numa 0)\n");
    ck_assert(p.idle_fallback);
    ck_assert_int_eq(p.idle_cores, 0);
    ck_assert(p.ranks_share_cores);
    tm_rt_placement_free(&p);

    static const tm_rt_rank_policy_t policies[] = {TM_RT_RANKS_COMPACT, TM_RT_RANKS_SCATTER,
                                                   TM_RT_RANKS_NUMA};
    for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++) {
        for (int nranks = 65; nranks <= 200; nranks += 45) {
            s = settings(policies[i], 0, TM_RT_PROGRESS_SAME);
            place(&p, TOPO_2X32, &s, nranks, NULL);
            ranks_even(&p, 64);
            ck_assert(!p.idle_fallback);
            for (int r = 0; r < nranks; r++)
                ck_assert_int_eq(p.progress_vp[r], p.rank_vp[r]);
            tm_rt_placement_free(&p);
        }
    }
}
END_TEST

START_TEST(list)
{
    tm_rt_placement_t p;
    tm_rt_settings_t s = settings(TM_RT_RANKS_LIST, 0, TM_RT_PROGRESS_IDLE);
    strcpy(s.placement_list, "0,2,4-7");
    /* Two idle cores for six progress threads: three each, each the nearer in turn. */
    place(&p, TOPO_1X8, &s, 0,
          "rank 0: core 0 (numa 0)\n"
          "rank 1: core 2 (numa 0)\n"
          "rank 2: core 4 (numa 0)\n"
          "rank 3: core 5 (numa 0)\n"
          "rank 4: core 6 (numa 0)\n"
          "rank 5: core 7 (numa 0)\n"
          "progress 0: core 1 (numa 0)\n"
          "progress 1: core 3 (numa 0)\n"
          "progress 2: core 3 (numa 0)\n"
          "progress 3: core 1 (numa 0)\n"
          "progress 4: core 3 (numa 0)\n"
          "progress 5: core 1 (numa 0)\n");
    ck_assert_int_eq(p.nranks, 6);
    ck_assert_int_eq(p.idle_cores, 2);
    tm_rt_placement_free(&p);

    /* In the order written; more ranks than cores share them, consecutive ranks together. */
    strcpy(s.placement_list, "3,1");
    s.placement_progress = TM_RT_PROGRESS_NONE;
    place(&p, TOPO_1X8, &s, 5,
          "rank 0: core 3 (numa 0)\n"
          "rank 1: core 3 (numa 0)\n"
          "rank 2: core 3 (numa 0)\n"
          "rank 3: core 1 (numa 0)\n"
          "rank 4: core 1 (numa 0)\n");
    tm_rt_placement_free(&p);
}
END_TEST

START_TEST(list_errors)
{
    tm_rt_settings_t s = settings_file("[placement]\n"
                                       "ranks = list:0,9\n");
    place_fails(TOPO_1X8, NULL, &s, 0,
                "threadmpi.conf:2: placement.ranks: core 9 does not exist "
                "(this machine's allowed cores are 0-7)");

    s = settings_file("[placement]\n"
                      "progress = comm\n"
                      "comm_cores = 2\n"
                      "ranks = list:0,7\n");
    place_fails(TOPO_1X8, NULL, &s, 0,
                "threadmpi.conf:4: placement.ranks: core 7 is reserved for the progress threads "
                "(progress = comm, comm_cores = 2: cores 6-7)");

    s = settings_file("[placement]\n"
                      "smt = true\n"
                      "ranks = list:255,256\n");
    place_fails(TOPO_KNL, NULL, &s, 0,
                "threadmpi.conf:3: placement.ranks: hardware thread 256 does not exist "
                "(this machine's allowed hardware threads are 0-255)");
}
END_TEST

/* ---- smt ------------------------------------------------------------------------------------ */

START_TEST(smt_off_one_rank_per_core)
{
    tm_rt_placement_t p;
    tm_rt_settings_t s = settings(TM_RT_RANKS_COMPACT, 0, TM_RT_PROGRESS_IDLE);
    place(&p, TOPO_KNL, &s, 2,
          "rank 0: core 0 (numa 0)\n"
          "rank 1: core 1 (numa 0)\n"
          "progress 0: core 2 (numa 0)\n"
          "progress 1: core 3 (numa 0)\n");
    /* A VP is pinned to its whole core: its four hardware threads. */
    ck_assert_int_eq(p.vps[0].pu, -1);
    ck_assert_int_eq(hwloc_bitmap_weight(p.vps[1].cpuset), 4);
    ck_assert_int_eq(hwloc_bitmap_first(p.vps[1].cpuset), 4);
    tm_rt_placement_free(&p);

    place(&p, TOPO_KNL, &s, 0, NULL);
    ck_assert_int_eq(p.nranks, 64);
    ck_assert(p.idle_fallback);
    tm_rt_placement_free(&p);
}
END_TEST

START_TEST(smt_on_one_rank_per_thread)
{
    tm_rt_placement_t p;
    tm_rt_settings_t s = settings(TM_RT_RANKS_COMPACT, 1, TM_RT_PROGRESS_IDLE);
    /* Ranks on the threads of core 0, then 1; progress threads on the nearest free ones (rank
     * 4 shares its core with three progress threads already: the least loaded come first). */
    place(&p, TOPO_KNL, &s, 5,
          "rank 0: core 0 (numa 0)\n"
          "rank 1: core 0 (numa 0)\n"
          "rank 2: core 0 (numa 0)\n"
          "rank 3: core 0 (numa 0)\n"
          "rank 4: core 1 (numa 0)\n"
          "progress 0: core 1 (numa 0)\n"
          "progress 1: core 1 (numa 0)\n"
          "progress 2: core 1 (numa 0)\n"
          "progress 3: core 2 (numa 0)\n"
          "progress 4: core 2 (numa 0)\n");
    ck_assert_int_eq(p.nvps, 10);
    for (int v = 0; v < p.nvps; v++) {
        ck_assert_int_eq(p.vps[v].pu, v);
        ck_assert_int_eq(hwloc_bitmap_weight(p.vps[v].cpuset), 1);
        ck_assert_int_eq(hwloc_bitmap_first(p.vps[v].cpuset), p.vps[v].pu);
    }
    tm_rt_placement_free(&p);

    place(&p, TOPO_KNL, &s, 0, NULL);
    ck_assert_int_eq(p.nranks, 256);
    ck_assert_int_eq(p.nvps, 256);
    tm_rt_placement_free(&p);
}
END_TEST

START_TEST(smt_scatter)
{
    tm_rt_placement_t p;
    tm_rt_settings_t s = settings(TM_RT_RANKS_SCATTER, 1, TM_RT_PROGRESS_NONE);
    /* Nodes first, then cores, then the threads of a core. */
    place(&p, TOPO_KNL, &s, 66, NULL);
    ck_assert_int_eq(p.vps[p.rank_vp[0]].pu, 0);
    ck_assert_int_eq(p.vps[p.rank_vp[1]].pu, 64);
    ck_assert_int_eq(p.vps[p.rank_vp[2]].pu, 128);
    ck_assert_int_eq(p.vps[p.rank_vp[3]].pu, 192);
    ck_assert_int_eq(p.vps[p.rank_vp[4]].pu, 4);
    ck_assert_int_eq(p.vps[p.rank_vp[63]].pu, 252);
    ck_assert_int_eq(p.vps[p.rank_vp[64]].pu, 1);
    ck_assert_int_eq(p.vps[p.rank_vp[65]].pu, 65);
    ck_assert_int_eq(p.vps[p.rank_vp[64]].core, 0);
    ck_assert_int_eq(p.vps[p.rank_vp[65]].core, 16);
    /* Until every core has a rank, no two ranks share a core. */
    char seen[64] = {0};
    for (int r = 0; r < 64; r++) {
        int core = p.vps[p.rank_vp[r]].core;
        ck_assert_msg(!seen[core], "rank %d: core %d taken twice", r, core);
        seen[core] = 1;
    }
    tm_rt_placement_free(&p);
}
END_TEST

START_TEST(smt_list)
{
    tm_rt_placement_t p;
    tm_rt_settings_t s = settings(TM_RT_RANKS_LIST, 1, TM_RT_PROGRESS_SAME);
    strcpy(s.placement_list, "0,1,4,64");
    place(&p, TOPO_KNL, &s, 0,
          "rank 0: core 0 (numa 0)\n"
          "rank 1: core 0 (numa 0)\n"
          "rank 2: core 1 (numa 0)\n"
          "rank 3: core 16 (numa 1)\n"
          "progress 0: core 0 (numa 0)\n"
          "progress 1: core 0 (numa 0)\n"
          "progress 2: core 1 (numa 0)\n"
          "progress 3: core 16 (numa 1)\n");
    ck_assert_int_eq(p.vps[p.rank_vp[3]].pu, 64);
    tm_rt_placement_free(&p);
}
END_TEST

/* ---- progress threads ----------------------------------------------------------------------- */

START_TEST(progress_same_next_none)
{
    tm_rt_placement_t p;
    tm_rt_settings_t s = settings(TM_RT_RANKS_COMPACT, 0, TM_RT_PROGRESS_SAME);
    place(&p, TOPO_2X32, &s, 2,
          "rank 0: core 0 (numa 0)\n"
          "rank 1: core 1 (numa 0)\n"
          "progress 0: core 0 (numa 0)\n"
          "progress 1: core 1 (numa 0)\n");
    ck_assert_int_eq(p.nvps, 2);
    ck_assert_int_eq(p.idle_cores, 0);
    tm_rt_placement_free(&p);

    /* next: the core after the rank's, which may host a rank; the last wraps to core 0. */
    s.placement_progress = TM_RT_PROGRESS_NEXT;
    place(&p, TOPO_2X32, &s, 3,
          "rank 0: core 0 (numa 0)\n"
          "rank 1: core 1 (numa 0)\n"
          "rank 2: core 2 (numa 0)\n"
          "progress 0: core 1 (numa 0)\n"
          "progress 1: core 2 (numa 0)\n"
          "progress 2: core 3 (numa 0)\n");
    ck_assert_int_eq(p.nvps, 4);
    ck_assert_int_eq(p.idle_cores, 1);
    tm_rt_placement_free(&p);
    place(&p, TOPO_1X2, &s, 2,
          "rank 0: core 0 (numa 0)\n"
          "rank 1: core 1 (numa 0)\n"
          "progress 0: core 1 (numa 0)\n"
          "progress 1: core 0 (numa 0)\n");
    tm_rt_placement_free(&p);

    s.placement_progress = TM_RT_PROGRESS_NONE;
    place(&p, TOPO_2X32, &s, 2,
          "rank 0: core 0 (numa 0)\n"
          "rank 1: core 1 (numa 0)\n");
    ck_assert_int_eq(p.progress_vp[0], -1);
    ck_assert_int_eq(p.progress_vp[1], -1);
    ck_assert_int_eq(p.nvps, 2);
    tm_rt_placement_free(&p);
}
END_TEST

START_TEST(progress_idle_spreads)
{
    tm_rt_placement_t p;
    tm_rt_settings_t s = settings(TM_RT_RANKS_COMPACT, 0, TM_RT_PROGRESS_IDLE);
    /* 5 ranks, 3 idle cores (5, 6, 7): no idle core gets two before each has one. */
    place(&p, TOPO_1X8, &s, 5,
          "rank 0: core 0 (numa 0)\n"
          "rank 1: core 1 (numa 0)\n"
          "rank 2: core 2 (numa 0)\n"
          "rank 3: core 3 (numa 0)\n"
          "rank 4: core 4 (numa 0)\n"
          "progress 0: core 5 (numa 0)\n"
          "progress 1: core 6 (numa 0)\n"
          "progress 2: core 7 (numa 0)\n"
          "progress 3: core 5 (numa 0)\n"
          "progress 4: core 6 (numa 0)\n");
    ck_assert_int_eq(p.idle_cores, 3);
    ck_assert(!p.idle_fallback);
    tm_rt_placement_free(&p);

    /* The deepest common ancestor before the nearest index: rank 0 (core 15) takes core 1 of
     * its own node, not core 16 of the next; rank 1 (core 2) the last idle core of node 0;
     * then the nearest cores of node 1. */
    s = settings(TM_RT_RANKS_LIST, 0, TM_RT_PROGRESS_IDLE);
    strcpy(s.placement_list, "15,2-14");
    place(&p, TOPO_4X16, &s, 0, NULL);
    ck_assert_int_eq(p.vps[p.progress_vp[0]].core, 1);
    ck_assert_int_eq(p.vps[p.progress_vp[1]].core, 0);
    ck_assert_int_eq(p.vps[p.progress_vp[2]].core, 16);
    ck_assert_int_eq(p.vps[p.progress_vp[2]].numa, 1);
    tm_rt_placement_free(&p);

    /* Cores 2 and 4 are as near to core 3: the lower index. */
    strcpy(s.placement_list, "3");
    place(&p, TOPO_1X8, &s, 0,
          "rank 0: core 3 (numa 0)\n"
          "progress 0: core 2 (numa 0)\n");
    tm_rt_placement_free(&p);
}
END_TEST

START_TEST(progress_idle_fallback)
{
    tm_rt_placement_t p;
    tm_rt_settings_t s = settings(TM_RT_RANKS_COMPACT, 0, TM_RT_PROGRESS_IDLE);
    place(&p, TOPO_1X2, &s, 0,
          "rank 0: core 0 (numa 0)\n"
          "rank 1: core 1 (numa 0)\n"
          "progress 0: core 0 (numa 0)\n"
          "progress 1: core 1 (numa 0)\n");
    ck_assert_int_eq(p.nranks, 2);
    ck_assert(p.idle_fallback);
    ck_assert_int_eq(p.idle_cores, 0);
    ck_assert_int_eq(p.nvps, 2);
    tm_rt_placement_free(&p);
}
END_TEST

START_TEST(progress_comm)
{
    tm_rt_placement_t p;
    tm_rt_settings_t s = settings(TM_RT_RANKS_COMPACT, 0, TM_RT_PROGRESS_COMM);
    s.placement_comm_cores = 2;
    place(&p, TOPO_2X32, &s, 4,
          "rank 0: core 0 (numa 0)\n"
          "rank 1: core 1 (numa 0)\n"
          "rank 2: core 2 (numa 0)\n"
          "rank 3: core 3 (numa 0)\n"
          "progress 0: core 62 (numa 0)\n"
          "progress 1: core 63 (numa 0)\n"
          "progress 2: core 62 (numa 0)\n"
          "progress 3: core 63 (numa 0)\n");
    ck_assert_int_eq(p.nvps, 6);
    ck_assert_int_eq(p.idle_cores, 2);
    tm_rt_placement_free(&p);

    /* One rank per core that is not reserved; ranks never on the reserved cores. */
    place(&p, TOPO_2X32, &s, 0, NULL);
    ck_assert_int_eq(p.nranks, 62);
    ck_assert_int_eq(p.nvps, 64);
    ck_assert_int_eq(p.idle_cores, 2);
    ck_assert(!p.idle_fallback);
    tm_rt_placement_free(&p);

    /* Scatter as if the machine ended at core 61 (package 1 has 30 cores for the ranks, so
     * the last two of the round go to package 0); more ranks share the 62 cores. */
    s.placement_ranks = TM_RT_RANKS_SCATTER;
    place(&p, TOPO_2X32, &s, 100, NULL);
    for (int r = 0; r < p.nranks; r++) {
        ck_assert_int_lt(p.vps[p.rank_vp[r]].core, 62);
        ck_assert_int_ge(p.vps[p.progress_vp[r]].core, 62);
    }
    ck_assert_int_eq(p.vps[p.rank_vp[1]].core, 32);
    ck_assert_int_eq(p.vps[p.rank_vp[59]].core, 61);
    ck_assert_int_eq(p.vps[p.rank_vp[60]].core, 30);
    ck_assert_int_eq(p.vps[p.rank_vp[61]].core, 31);
    ck_assert_int_eq(p.vps[p.rank_vp[62]].core, 0);
    tm_rt_placement_free(&p);
}
END_TEST

START_TEST(comm_errors)
{
    tm_rt_settings_t s = settings_file("[placement]\n"
                                       "progress = comm\n"
                                       "comm_cores = 2\n");
    place_fails(TOPO_1X2, NULL, &s, 0,
                "threadmpi.conf:3: placement.comm_cores: 2 leaves no core for the ranks "
                "(this job has 2 allowed cores)");
    /* The allowed cores count, not the machine's. */
    place_fails(TOPO_1X8, "3,5", &s, 1,
                "threadmpi.conf:3: placement.comm_cores: 2 leaves no core for the ranks "
                "(this job has 2 allowed cores)");

    /* comm_cores matters only to progress = comm. */
    tm_rt_placement_t p;
    s.placement_progress = TM_RT_PROGRESS_IDLE;
    place(&p, TOPO_1X2, &s, 0, NULL);
    ck_assert_int_eq(p.nranks, 2);
    tm_rt_placement_free(&p);
}
END_TEST

/* ---- the allowed set ------------------------------------------------------------------------ */

START_TEST(allowed_set)
{
    tm_rt_placement_t p;
    char err[512];
    tm_rt_settings_t s = settings(TM_RT_RANKS_COMPACT, 0, TM_RT_PROGRESS_IDLE);
    hwloc_topology_t topo = topo_load(TOPO_1X8, "1-3,6");

    /* One rank per allowed core, logical indices unchanged. */
    ck_assert_int_eq(tm_rt_placement_compute(&p, topo, &s, 0, err, sizeof err), 0);
    report_is(&p, "rank 0: core 1 (numa 0)\n"
                  "rank 1: core 2 (numa 0)\n"
                  "rank 2: core 3 (numa 0)\n"
                  "rank 3: core 6 (numa 0)\n"
                  "progress 0: core 1 (numa 0)\n"
                  "progress 1: core 2 (numa 0)\n"
                  "progress 2: core 3 (numa 0)\n"
                  "progress 3: core 6 (numa 0)\n");
    ck_assert(p.idle_fallback);
    tm_rt_placement_free(&p);

    /* Idle cores are allowed ones only. */
    ck_assert_int_eq(tm_rt_placement_compute(&p, topo, &s, 2, err, sizeof err), 0);
    report_is(&p, "rank 0: core 1 (numa 0)\n"
                  "rank 1: core 2 (numa 0)\n"
                  "progress 0: core 3 (numa 0)\n"
                  "progress 1: core 6 (numa 0)\n");
    tm_rt_placement_free(&p);

    /* next skips the cores the job may not use, and wraps to the first allowed one. */
    s.placement_progress = TM_RT_PROGRESS_NEXT;
    ck_assert_int_eq(tm_rt_placement_compute(&p, topo, &s, 0, err, sizeof err), 0);
    ck_assert_int_eq(p.vps[p.progress_vp[2]].core, 6);
    ck_assert_int_eq(p.vps[p.progress_vp[3]].core, 1);
    tm_rt_placement_free(&p);
    hwloc_topology_destroy(topo);

    s = settings(TM_RT_RANKS_LIST, 0, TM_RT_PROGRESS_NONE);
    strcpy(s.placement_list, "1,4");
    place_fails(TOPO_1X8, "1-3,6", &s, 0,
                "default: placement.ranks: core 4 is not in this job's allowed set "
                "(its allowed cores are 1-3,6)");
    strcpy(s.placement_list, "8");
    place_fails(TOPO_1X8, "1-3,6", &s, 0,
                "default: placement.ranks: core 8 does not exist "
                "(this machine's allowed cores are 1-3,6)");
}
END_TEST

START_TEST(allowed_part_of_a_core)
{
    tm_rt_placement_t p;
    char err[512];
    tm_rt_settings_t s = settings(TM_RT_RANKS_SCATTER, 0, TM_RT_PROGRESS_IDLE);
    /* Core 0 has PU 1 alone allowed, core 1 none: not a slot. */
    hwloc_topology_t topo = topo_load("core:4 pu:2", "1,4-7");
    ck_assert_int_eq(tm_rt_placement_compute(&p, topo, &s, 0, err, sizeof err), 0);
    report_is(&p, "rank 0: core 0 (numa 0)\n"
                  "rank 1: core 2 (numa 0)\n"
                  "rank 2: core 3 (numa 0)\n"
                  "progress 0: core 0 (numa 0)\n"
                  "progress 1: core 2 (numa 0)\n"
                  "progress 2: core 3 (numa 0)\n");
    char *set;
    hwloc_bitmap_list_asprintf(&set, p.vps[0].cpuset);
    ck_assert_str_eq(set, "1");
    free(set);
    hwloc_bitmap_list_asprintf(&set, p.vps[1].cpuset);
    ck_assert_str_eq(set, "4-5");
    free(set);
    tm_rt_placement_free(&p);

    s.placement_smt = 1;
    ck_assert_int_eq(tm_rt_placement_compute(&p, topo, &s, 0, err, sizeof err), 0);
    ck_assert_int_eq(p.nranks, 5);
    ck_assert_int_eq(p.vps[p.rank_vp[0]].pu, 1);
    ck_assert_int_eq(p.vps[p.rank_vp[1]].pu, 4);
    tm_rt_placement_free(&p);
    hwloc_topology_destroy(topo);
}
END_TEST

START_TEST(bad_arguments)
{
    tm_rt_placement_t p;
    char err[512];
    tm_rt_settings_t s = settings(TM_RT_RANKS_COMPACT, 0, TM_RT_PROGRESS_IDLE);
    hwloc_topology_t topo = topo_load(TOPO_1X2, NULL);
    ck_assert_int_eq(tm_rt_placement_compute(&p, topo, &s, -1, err, sizeof err), -EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "-1 ranks"));
    tm_rt_placement_free(&p);

    /* What the list's parser finds wrong, with the key and its origin. */
    s = settings(TM_RT_RANKS_LIST, 0, TM_RT_PROGRESS_IDLE);
    strcpy(s.placement_list, "1,x");
    ck_assert_int_eq(tm_rt_placement_compute(&p, topo, &s, 0, err, sizeof err), -EINVAL);
    ck_assert_msg(strncmp(err, "default: placement.ranks: ", 26) == 0 && strlen(err) > 26, "%s",
                  err);
    ck_assert_ptr_null(p.vps);

    s = settings(TM_RT_RANKS_COMPACT, 0, TM_RT_PROGRESS_COMM);
    s.placement_comm_cores = 0;
    ck_assert_int_eq(tm_rt_placement_compute(&p, topo, &s, 0, err, sizeof err), -EINVAL);
    ck_assert_str_eq(err, "default: placement.comm_cores: 0 reserves no core for the progress "
                          "threads");
    hwloc_topology_destroy(topo);
}
END_TEST

START_TEST(no_cores)
{
    tm_rt_placement_t p;
    tm_rt_settings_t s = settings(TM_RT_RANKS_NUMA, 0, TM_RT_PROGRESS_IDLE);
    /* hwloc reports no cores: the hardware threads are the slots, and named as cores. */
    place(&p, "numa:2 pu:2", &s, 2,
          "rank 0: core 0 (numa 0)\n"
          "rank 1: core 2 (numa 1)\n"
          "progress 0: core 1 (numa 0)\n"
          "progress 1: core 3 (numa 1)\n");
    ck_assert_int_eq(p.vps[0].pu, -1);
    tm_rt_placement_free(&p);
}
END_TEST

static Suite *placement_suite(void)
{
    Suite *s = suite_create("placement");
    TCase *ranks = tcase_create("ranks");
    tcase_add_test(ranks, compact_two_cores);
    tcase_add_test(ranks, compact_two_packages);
    tcase_add_test(ranks, scatter_two_packages);
    tcase_add_test(ranks, scatter_numa_nodes);
    tcase_add_test(ranks, numa_balanced);
    tcase_add_test(ranks, numa_oversubscribed);
    tcase_add_test(ranks, more_ranks_than_cores);
    tcase_add_test(ranks, list);
    tcase_add_test(ranks, list_errors);
    suite_add_tcase(s, ranks);

    TCase *smt = tcase_create("smt");
    tcase_add_test(smt, smt_off_one_rank_per_core);
    tcase_add_test(smt, smt_on_one_rank_per_thread);
    tcase_add_test(smt, smt_scatter);
    tcase_add_test(smt, smt_list);
    suite_add_tcase(s, smt);

    TCase *progress = tcase_create("progress");
    tcase_add_test(progress, progress_same_next_none);
    tcase_add_test(progress, progress_idle_spreads);
    tcase_add_test(progress, progress_idle_fallback);
    tcase_add_test(progress, progress_comm);
    tcase_add_test(progress, comm_errors);
    suite_add_tcase(s, progress);

    TCase *allowed = tcase_create("allowed");
    tcase_add_test(allowed, allowed_set);
    tcase_add_test(allowed, allowed_part_of_a_core);
    tcase_add_test(allowed, bad_arguments);
    tcase_add_test(allowed, no_cores);
    suite_add_tcase(s, allowed);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(placement_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
