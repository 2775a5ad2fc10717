/*
 * Placement (see placement.h): slots, then a slot per rank, then a slot per progress thread, then
 * the VPs (the distinct slots in use, in order of first use).
 *
 * Slots are the allowed cores (or hardware threads when smt) in hwloc logical order: those of
 * the topology's allowed set (the cgroup's) that the process is bound to, when the topology is
 * this machine's (`taskset -c 0-3 mpcrun`, a batch system's binding), as with mpirun. With
 * progress = comm the last comm_cores slots are set apart: the ranks are placed as if the
 * machine had only the others, and the progress threads go to the reserved ones by the idle rule.
 *
 * Ranks: compact fills slots in order; scatter deals them out over a hierarchical round-robin
 * order (package, then NUMA node, then core, then hardware thread: first slot of every package,
 * then the second...); numa first decides how many ranks each NUMA node gets (each rank goes to
 * the node least loaded for its size) and then gives nodes consecutive ranks, compact inside;
 * list takes the cores as written. More ranks than slots share them evenly: rank r of n on s
 * slots takes slot floor(r * s / n), so consecutive ranks share and counts differ by one at most.
 *
 * Progress threads, idle: rank after rank, the least loaded slot that hosts no rank, the
 * closest to the rank's among those (deepest common ancestor in the tree, then same NUMA node,
 * then nearest logical index, then lowest). In hwloc 2 NUMA nodes are memory children, not
 * ancestors, so a slot's NUMA node is the first whose cpuset meets the slot's.
 */
#include "config.h"

#include "runtime/placement.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct slot {
    hwloc_obj_t obj; /* the core, or the hardware thread (smt, or no cores in the topology) */
    int index;       /* obj's logical index: what list: names */
    int core;        /* logical index of the core (of obj, or its parent core) */
    int pu;          /* logical index of the hardware thread when smt, else -1 */
    int numa;        /* logical index of the first NUMA node meeting obj's cpuset */
    int package;     /* logical index of the package above obj, -1 for none */
} slot_t;

/* The state of one tm_rt_placement_compute(). */
typedef struct plan {
    hwloc_topology_t topo;
    hwloc_bitmap_t allowed; /* the PUs the job may use */
    const tm_rt_settings_t *s;
    hwloc_obj_type_t type; /* of the slots' objects */
    const char *unit;      /* "core" or "hardware thread", for messages */
    slot_t *slots;
    int nslots;
    int nrank_slots; /* slots 0..nrank_slots-1 may host ranks; the others are comm's */
    int nranks;
    int *rank_slot;     /* nranks */
    int *progress_slot; /* nranks, -1 for none */
    char *err;
    size_t errlen;
} plan_t;

static void plan_error(plan_t *pl, const char *key, const char *fmt, ...)
{
    if (pl->err == NULL || pl->errlen == 0)
        return;
    const char *origin = tm_rt_settings_origin(pl->s, key);
    int n = snprintf(pl->err, pl->errlen, "%s: %s: ", origin ? origin : "default", key);
    if (n < 0 || (size_t)n >= pl->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pl->err + n, pl->errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

static int plan_nomem(plan_t *pl)
{
    if (pl->err != NULL && pl->errlen > 0)
        snprintf(pl->err, pl->errlen, "placement: out of memory");
    return -ENOMEM;
}

/* The slot (of s) of rank r (of n): slot r, or with more ranks than slots floor(r * s / n), so
 * that consecutive ranks share and no slot has two ranks more than another. */
static int spread(int r, int n, int s)
{
    return n > s ? (int)((long long)r * s / n) : r;
}

/* ---- slots ---------------------------------------------------------------------------------- */

static int numa_of(hwloc_topology_t topo, hwloc_obj_t obj)
{
    hwloc_obj_t node = NULL;
    while ((node = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, node)) != NULL)
        if (node->cpuset != NULL && hwloc_bitmap_intersects(node->cpuset, obj->cpuset))
            return (int)node->logical_index;
    return 0;
}

/* The topology's allowed PUs, less those outside the process's CPU binding when the topology
 * is this machine's and the binding leaves some of them (a synthetic or XML topology, or a
 * binding to none of them, leaves the allowed set as it is). */
static int allowed_build(plan_t *pl)
{
    pl->allowed = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(pl->topo));
    hwloc_bitmap_t bound = hwloc_bitmap_alloc();
    if (pl->allowed == NULL || bound == NULL) {
        hwloc_bitmap_free(bound);
        return plan_nomem(pl);
    }
    if (hwloc_topology_is_thissystem(pl->topo) &&
        hwloc_get_cpubind(pl->topo, bound, HWLOC_CPUBIND_PROCESS) == 0 &&
        hwloc_bitmap_intersects(bound, pl->allowed))
        hwloc_bitmap_and(pl->allowed, pl->allowed, bound);
    hwloc_bitmap_free(bound);
    return 0;
}

static int slots_build(plan_t *pl)
{
    hwloc_topology_t topo = pl->topo;
    hwloc_const_cpuset_t allowed = pl->allowed;
    bool have_cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0;
    pl->type = pl->s->placement_smt || !have_cores ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE;
    pl->unit = pl->s->placement_smt ? "hardware thread" : "core";

    int n = hwloc_get_nbobjs_by_type(topo, pl->type);
    pl->slots = calloc(n > 0 ? (size_t)n : 1, sizeof *pl->slots);
    if (pl->slots == NULL)
        return plan_nomem(pl);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t obj = hwloc_get_obj_by_type(topo, pl->type, (unsigned)i);
        if (obj == NULL || obj->cpuset == NULL || !hwloc_bitmap_intersects(obj->cpuset, allowed))
            continue;
        slot_t *sl = &pl->slots[pl->nslots++];
        hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, obj);
        hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, obj);
        sl->obj = obj;
        sl->index = (int)obj->logical_index;
        if (obj->type == HWLOC_OBJ_CORE)
            sl->core = sl->index;
        else
            sl->core = core != NULL ? (int)core->logical_index : sl->index;
        sl->pu = pl->s->placement_smt ? sl->index : -1;
        sl->numa = numa_of(topo, obj);
        sl->package = package != NULL ? (int)package->logical_index : -1;
    }
    return 0;
}

/* Writes the logical indices of the slots from..to-1 as ranges: "0-3,6,8-9". */
static void slots_format(const plan_t *pl, int from, int to, char *text, size_t len)
{
    size_t used = 0;
    text[0] = '\0';
    for (int i = from; i < to && used < len; i++) {
        int first = pl->slots[i].index, last = first;
        while (i + 1 < to && pl->slots[i + 1].index == last + 1)
            last = pl->slots[++i].index;
        int n = last > first
                    ? snprintf(text + used, len - used, "%s%d-%d", used ? "," : "", first, last)
                    : snprintf(text + used, len - used, "%s%d", used ? "," : "", first);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* ---- ranks ---------------------------------------------------------------------------------- */

static void ranks_compact(plan_t *pl)
{
    for (int r = 0; r < pl->nranks; r++)
        pl->rank_slot[r] = spread(r, pl->nranks, pl->nrank_slots);
}

static int slot_key(const slot_t *sl, int level)
{
    switch (level) {
    case 0:
        return sl->package;
    case 1:
        return sl->numa;
    case 2:
        return sl->core;
    default:
        return sl->pu;
    }
}

/* Reorders idx[0..n-1] (slots in logical order) for scatter: groups by the key of `level`
 * (in order of first appearance), orders each group by the next levels, then takes the first
 * of every group, then the second of every group, and so on. */
static int scatter_order(const slot_t *slots, int *idx, int n, int level, int nlevels)
{
    if (level == nlevels || n <= 1)
        return 0;
    int *members = malloc(2 * (size_t)n * sizeof *members + (size_t)n);
    if (members == NULL)
        return -ENOMEM;
    int *start = members + n; /* start[g]: where group g begins in members */
    char *taken = (char *)(start + n);
    memset(taken, 0, (size_t)n);

    int ngroups = 0, m = 0, longest = 0;
    for (int i = 0; i < n; i++) {
        if (taken[i])
            continue;
        int key = slot_key(&slots[idx[i]], level);
        start[ngroups++] = m;
        for (int j = i; j < n; j++) {
            if (!taken[j] && slot_key(&slots[idx[j]], level) == key) {
                taken[j] = 1;
                members[m++] = idx[j];
            }
        }
    }
    int rc = 0;
    for (int g = 0; g < ngroups && rc == 0; g++) {
        int len = (g + 1 < ngroups ? start[g + 1] : n) - start[g];
        longest = len > longest ? len : longest;
        rc = scatter_order(slots, members + start[g], len, level + 1, nlevels);
    }
    int k = 0;
    for (int turn = 0; turn < longest && rc == 0; turn++) {
        for (int g = 0; g < ngroups; g++) {
            int len = (g + 1 < ngroups ? start[g + 1] : n) - start[g];
            if (turn < len)
                idx[k++] = members[start[g] + turn];
        }
    }
    free(members);
    return rc;
}

static int ranks_scatter(plan_t *pl)
{
    int *order = malloc((size_t)pl->nrank_slots * sizeof *order);
    if (order == NULL)
        return plan_nomem(pl);
    for (int i = 0; i < pl->nrank_slots; i++)
        order[i] = i;
    if (scatter_order(pl->slots, order, pl->nrank_slots, 0, pl->s->placement_smt ? 4 : 3) < 0) {
        free(order);
        return plan_nomem(pl);
    }
    for (int r = 0; r < pl->nranks; r++)
        pl->rank_slot[r] = order[r % pl->nrank_slots];
    free(order);
    return 0;
}

static int ranks_numa(plan_t *pl)
{
    int nnodes = 1;
    for (int i = 0; i < pl->nrank_slots; i++)
        nnodes = pl->slots[i].numa >= nnodes ? pl->slots[i].numa + 1 : nnodes;
    /* capacity[m]: the node's slots; count[m]: its ranks; its slots are bynode[first[m]...] */
    int *capacity = calloc(3 * (size_t)nnodes + (size_t)pl->nrank_slots, sizeof *capacity);
    if (capacity == NULL)
        return plan_nomem(pl);
    int *count = capacity + nnodes, *first = count + nnodes, *bynode = first + nnodes;
    for (int i = 0; i < pl->nrank_slots; i++)
        capacity[pl->slots[i].numa]++;
    for (int m = 1; m < nnodes; m++)
        first[m] = first[m - 1] + capacity[m - 1];
    for (int i = 0; i < pl->nrank_slots; i++)
        bynode[first[pl->slots[i].numa] + count[pl->slots[i].numa]++] = i;
    memset(count, 0, (size_t)nnodes * sizeof *count);

    /* Each rank to the node whose count / capacity is lowest (cross-multiplied: exact). */
    for (int r = 0; r < pl->nranks; r++) {
        int best = -1;
        for (int m = 0; m < nnodes; m++) {
            if (capacity[m] == 0)
                continue;
            if (best < 0 ||
                (long long)count[m] * capacity[best] < (long long)count[best] * capacity[m])
                best = m;
        }
        count[best]++;
    }
    /* Node m takes the next count[m] ranks, spread over its slots (in logical order). */
    int r = 0;
    for (int m = 0; m < nnodes; m++)
        for (int j = 0; j < count[m]; j++)
            pl->rank_slot[r++] = bynode[first[m] + spread(j, count[m], capacity[m])];
    free(capacity);
    return 0;
}

static int slot_find(const plan_t *pl, int index)
{
    for (int i = 0; i < pl->nslots; i++)
        if (pl->slots[i].index == index)
            return i;
    return -1;
}

/* The listed cores, checked: each exists, is allowed and does not belong to comm. Turns
 * listed[] into slot numbers. */
static int ranks_list(plan_t *pl, int *listed, int n)
{
    static const char key[] = "placement.ranks";
    char allowed[256];
    int total = hwloc_get_nbobjs_by_type(pl->topo, pl->type);
    for (int k = 0; k < n; k++) {
        int i = slot_find(pl, listed[k]);
        if (i >= 0 && i < pl->nrank_slots) {
            listed[k] = i;
            continue;
        }
        if (i >= 0) {
            slots_format(pl, pl->nrank_slots, pl->nslots, allowed, sizeof allowed);
            plan_error(pl, key,
                       "%s %d is reserved for the progress threads (progress = comm, "
                       "comm_cores = %d: %ss %s)",
                       pl->unit, listed[k], pl->s->placement_comm_cores, pl->unit, allowed);
            return -EINVAL;
        }
        slots_format(pl, 0, pl->nslots, allowed, sizeof allowed);
        if (listed[k] >= total)
            plan_error(pl, key, "%s %d does not exist (this machine's allowed %ss are %s)",
                       pl->unit, listed[k], pl->unit, allowed);
        else
            plan_error(pl, key, "%s %d is not in this job's allowed set (its allowed %ss are %s)",
                       pl->unit, listed[k], pl->unit, allowed);
        return -EINVAL;
    }
    for (int r = 0; r < pl->nranks; r++)
        pl->rank_slot[r] = listed[spread(r, pl->nranks, n)];
    return 0;
}

/* ---- progress threads ----------------------------------------------------------------------- */

/* Whether candidate slot a is closer than candidate b to slot home (b < 0: no candidate yet). */
static bool closer(const plan_t *pl, int home, int a, int b)
{
    if (b < 0)
        return true;
    const slot_t *h = &pl->slots[home], *sa = &pl->slots[a], *sb = &pl->slots[b];
    int da = hwloc_get_common_ancestor_obj(pl->topo, h->obj, sa->obj)->depth;
    int db = hwloc_get_common_ancestor_obj(pl->topo, h->obj, sb->obj)->depth;
    if (da != db)
        return da > db;
    if ((sa->numa == h->numa) != (sb->numa == h->numa))
        return sa->numa == h->numa;
    int ga = abs(sa->index - h->index), gb = abs(sb->index - h->index);
    if (ga != gb)
        return ga < gb;
    return sa->index < sb->index;
}

/* Progress threads on the candidate slots (candidate[i] true), rank after rank: the least
 * loaded, the closest among equals. Returns false when there is no candidate. */
static bool progress_spread(plan_t *pl, const bool *candidate, int *load)
{
    bool any = false;
    for (int i = 0; i < pl->nslots; i++)
        any = any || candidate[i];
    if (!any)
        return false;
    for (int r = 0; r < pl->nranks; r++) {
        int best = -1;
        for (int i = 0; i < pl->nslots; i++) {
            if (!candidate[i])
                continue;
            if (best < 0 || load[i] < load[best] ||
                (load[i] == load[best] && closer(pl, pl->rank_slot[r], i, best)))
                best = i;
        }
        load[best]++;
        pl->progress_slot[r] = best;
    }
    return true;
}

static int progress_place(plan_t *pl, bool *fallback_p)
{
    tm_rt_progress_policy_t policy = pl->s->placement_progress;
    *fallback_p = false;
    for (int r = 0; r < pl->nranks; r++) {
        switch (policy) {
        case TM_RT_PROGRESS_NONE:
            pl->progress_slot[r] = -1;
            break;
        case TM_RT_PROGRESS_NEXT:
            pl->progress_slot[r] = (pl->rank_slot[r] + 1) % pl->nslots;
            break;
        default:
            pl->progress_slot[r] = pl->rank_slot[r];
            break;
        }
    }
    if (policy != TM_RT_PROGRESS_IDLE && policy != TM_RT_PROGRESS_COMM)
        return 0;

    int *load = calloc((size_t)pl->nslots, sizeof *load);
    bool *candidate = calloc((size_t)pl->nslots, sizeof *candidate);
    if (load == NULL || candidate == NULL) {
        free(load);
        free(candidate);
        return plan_nomem(pl);
    }
    if (policy == TM_RT_PROGRESS_COMM) {
        for (int i = pl->nrank_slots; i < pl->nslots; i++)
            candidate[i] = true;
    } else {
        for (int i = 0; i < pl->nslots; i++)
            candidate[i] = true;
        for (int r = 0; r < pl->nranks; r++)
            candidate[pl->rank_slot[r]] = false;
    }
    if (!progress_spread(pl, candidate, load))
        *fallback_p = true; /* progress_slot already holds the ranks' own slots */
    free(load);
    free(candidate);
    return 0;
}

/* ---- VPs ------------------------------------------------------------------------------------ */

/* The VP of slot i, made when it is first used. */
static int vp_use(tm_rt_placement_t *p, const plan_t *pl, int *vp_of, int i)
{
    if (vp_of[i] >= 0)
        return vp_of[i];
    const slot_t *sl = &pl->slots[i];
    tm_rt_placement_vp_t *vp = &p->vps[p->nvps];
    vp->cpuset = hwloc_bitmap_dup(sl->obj->cpuset);
    if (vp->cpuset == NULL)
        return -ENOMEM;
    hwloc_bitmap_and(vp->cpuset, vp->cpuset, pl->allowed);
    vp->core = sl->core;
    vp->pu = sl->pu;
    vp->numa = sl->numa;
    return vp_of[i] = p->nvps++;
}

static int vps_build(tm_rt_placement_t *p, plan_t *pl)
{
    int *vp_of = malloc((size_t)pl->nslots * sizeof *vp_of), rc = -ENOMEM;
    p->vps = calloc((size_t)pl->nslots, sizeof *p->vps);
    p->rank_vp = malloc((size_t)pl->nranks * sizeof *p->rank_vp);
    p->progress_vp = malloc((size_t)pl->nranks * sizeof *p->progress_vp);
    if (vp_of == NULL || p->vps == NULL || p->rank_vp == NULL || p->progress_vp == NULL)
        goto free_vp_of;
    for (int i = 0; i < pl->nslots; i++)
        vp_of[i] = -1;
    p->nranks = pl->nranks;
    for (int r = 0; r < pl->nranks; r++)
        if ((p->rank_vp[r] = vp_use(p, pl, vp_of, pl->rank_slot[r])) < 0)
            goto free_vp_of;
    int rank_vps = p->nvps;
    p->ranks_share_cores = rank_vps < p->nranks;
    for (int r = 0; r < pl->nranks; r++) {
        p->progress_vp[r] = -1;
        if (pl->progress_slot[r] >= 0 &&
            (p->progress_vp[r] = vp_use(p, pl, vp_of, pl->progress_slot[r])) < 0)
            goto free_vp_of;
    }
    /* The VPs made after the ranks' were made for progress threads alone. */
    p->idle_cores = p->nvps - rank_vps;
    rc = 0;

free_vp_of:
    free(vp_of);
    return rc < 0 ? plan_nomem(pl) : 0;
}

/* ---- the interface -------------------------------------------------------------------------- */

/* Slots 0..nrank_slots-1 for the ranks: all, or all but comm's. */
static int plan_reserve(plan_t *pl)
{
    static const char key[] = "placement.comm_cores";
    int k = pl->s->placement_comm_cores;
    pl->nrank_slots = pl->nslots;
    if (pl->s->placement_progress != TM_RT_PROGRESS_COMM)
        return 0;
    if (k < 1) {
        plan_error(pl, key, "%d reserves no %s for the progress threads", k, pl->unit);
        return -EINVAL;
    }
    if (k >= pl->nslots) {
        plan_error(pl, key, "%d leaves no %s for the ranks (this job has %d allowed %s%s)", k,
                   pl->unit, pl->nslots, pl->unit, pl->nslots == 1 ? "" : "s");
        return -EINVAL;
    }
    pl->nrank_slots -= k;
    return 0;
}

int tm_rt_placement_compute(tm_rt_placement_t *p, hwloc_topology_t topo, const tm_rt_settings_t *s,
                            int nranks, char *err, size_t errlen)
{
    plan_t pl = {.topo = topo, .s = s, .err = err, .errlen = errlen};
    int *listed = NULL, nlisted = 0, rc;

    memset(p, 0, sizeof *p);
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (nranks < 0) {
        snprintf(err, errlen, "placement: %d ranks", nranks);
        return -EINVAL;
    }
    if ((rc = allowed_build(&pl)) < 0 || (rc = slots_build(&pl)) < 0)
        goto free_plan;
    if (pl.nslots == 0) {
        snprintf(err, errlen, "placement: this job has no allowed %s", pl.unit);
        rc = -EINVAL;
        goto free_plan;
    }
    if ((rc = plan_reserve(&pl)) < 0)
        goto free_plan;
    if (s->placement_ranks == TM_RT_RANKS_LIST) {
        char why[256];
        rc = tm_rt_settings_list_expand(s->placement_list, &listed, &nlisted, why, sizeof why);
        if (rc == 0 && nlisted == 0) {
            snprintf(why, sizeof why, "the list names no %s", pl.unit);
            rc = -EINVAL;
        }
        if (rc < 0) {
            plan_error(&pl, "placement.ranks", "%s", why);
            goto free_plan;
        }
    }

    pl.nranks = nranks > 0 ? nranks : listed != NULL ? nlisted : pl.nrank_slots;
    pl.rank_slot = malloc((size_t)pl.nranks * sizeof *pl.rank_slot);
    pl.progress_slot = malloc((size_t)pl.nranks * sizeof *pl.progress_slot);
    if (pl.rank_slot == NULL || pl.progress_slot == NULL) {
        rc = plan_nomem(&pl);
        goto free_plan;
    }
    switch (s->placement_ranks) {
    case TM_RT_RANKS_SCATTER:
        rc = ranks_scatter(&pl);
        break;
    case TM_RT_RANKS_NUMA:
        rc = ranks_numa(&pl);
        break;
    case TM_RT_RANKS_LIST:
        rc = ranks_list(&pl, listed, nlisted);
        break;
    default:
        ranks_compact(&pl);
        break;
    }
    if (rc < 0 || (rc = progress_place(&pl, &p->idle_fallback)) < 0)
        goto free_plan;
    rc = vps_build(p, &pl);

free_plan:
    hwloc_bitmap_free(pl.allowed);
    free(listed);
    free(pl.slots);
    free(pl.rank_slot);
    free(pl.progress_slot);
    if (rc < 0)
        tm_rt_placement_free(p);
    return rc;
}

void tm_rt_placement_report(const tm_rt_placement_t *p, FILE *out, const char *host,
                            long first_rank)
{
    for (int r = 0; r < p->nranks; r++) {
        const tm_rt_placement_vp_t *vp = &p->vps[p->rank_vp[r]];
        fprintf(out, "rank %ld: %s%s%score %d (numa %d)\n", first_rank + r, host ? "host " : "",
                host ? host : "", host ? ", " : "", vp->core, vp->numa);
    }
    for (int r = 0; r < p->nranks; r++) {
        if (p->progress_vp[r] < 0)
            continue;
        const tm_rt_placement_vp_t *vp = &p->vps[p->progress_vp[r]];
        fprintf(out, "progress %ld: %s%s%score %d (numa %d)\n", first_rank + r, host ? "host " : "",
                host ? host : "", host ? ", " : "", vp->core, vp->numa);
    }
}

void tm_rt_placement_free(tm_rt_placement_t *p)
{
    if (p->vps != NULL)
        for (int i = 0; i < p->nvps; i++)
            hwloc_bitmap_free(p->vps[i].cpuset);
    free(p->vps);
    free(p->rank_vp);
    free(p->progress_vp);
    memset(p, 0, sizeof *p);
}
