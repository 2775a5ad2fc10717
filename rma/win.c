/*
 * Windows: the members' shared part and each member's own (rma.h), their barrier, the memory of
 * MPI_Win_allocate_shared and the regions of dynamic windows.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/group.h"
#include "p2p/p2p.h"
#include "rma.h"

tm_rma_shared_t *tm_rma_shared_new(const tm_mpi_group_t *group, int flavor)
{
    size_t bytes = sizeof(tm_rma_shared_t) + (size_t)group->size * sizeof(tm_rma_target_t);
    tm_rma_shared_t *sh = aligned_alloc(64, (bytes + 63) & ~(size_t)63);

    if (sh == NULL)
        return NULL;
    memset(sh, 0, bytes);
    atomic_init(&sh->refs, group->size);
    sh->size = group->size;
    sh->flavor = flavor;
    for (int i = 0; i < group->size; i++) {
        tm_rma_target_t *t = &sh->targets[i];

        t->world_rank = tm_mpi_group_world_rank(group, i);
        atomic_flag_clear(&t->acc_lock);
        atomic_flag_clear(&t->regions_lock);
    }
    return sh;
}

void tm_rma_shared_release(tm_rma_shared_t *sh)
{
    if (atomic_fetch_sub_explicit(&sh->refs, 1, memory_order_acq_rel) == 1) {
        free(sh->memory);
        free(sh);
    }
}

tm_rma_win_t *tm_rma_win_new(tm_mpi_rank_t *r, tm_mpi_group_t *group, int rank)
{
    tm_rma_win_t *w = calloc(1, sizeof(*w));

    if (w == NULL || (w->access = calloc((size_t)group->size, 1)) == NULL ||
        (w->posts_seen = calloc((size_t)group->size, sizeof(unsigned))) == NULL ||
        (w->posts = calloc((size_t)group->size, sizeof(_Atomic unsigned))) == NULL) {
        if (w != NULL) {
            free(w->access);
            free(w->posts_seen);
        }
        free(w);
        return NULL;
    }
    w->owner = r;
    tm_mpi_group_retain(group);
    w->group = group;
    w->rank = rank;
    w->size = group->size;
    w->errhandler = MPI_ERRORS_ARE_FATAL;
    w->attr_model = MPI_WIN_UNIFIED;
    snprintf(w->info.accumulate_ordering, sizeof(w->info.accumulate_ordering), "rar,raw,war,waw");
    snprintf(w->info.accumulate_ops, sizeof(w->info.accumulate_ops), "same_op_no_op");
    return w;
}

void tm_rma_win_join(tm_rma_win_t *w, tm_rma_shared_t *sh, void *base, MPI_Aint size,
                     MPI_Aint disp_unit)
{
    tm_rma_target_t *me = &sh->targets[w->rank];

    w->shared = sh;
    w->flavor = w->attr_flavor = sh->flavor;
    w->attr_base = base;
    w->attr_size = size;
    /* the attribute is an int: MPI_UNDEFINED for a unit that does not fit (MPI-4.0's `_c`
     * creation calls) */
    w->attr_disp_unit = disp_unit <= INT_MAX ? (int)disp_unit : MPI_UNDEFINED;
    me->base = base;
    me->size = size;
    me->disp_unit = disp_unit;
    me->posts = w->posts;
}

void tm_rma_win_free(tm_rma_win_t *w)
{
    if (w->shared != NULL) {
        tm_rma_target_t *me = &w->shared->targets[w->rank];

        if (w->flavor == MPI_WIN_FLAVOR_ALLOCATE)
            free(me->base);
        free(me->regions);
        me->regions = NULL;
    }
    tm_mpi_group_release(w->group);
    free(w->start_ranks);
    free(w->post_ranks);
    free(w->access);
    free((void *)w->posts);
    free(w->posts_seen);
    free(w);
}

/* ------------------------------------------------------------------ the barrier */

typedef struct barrier_wait {
    tm_rma_shared_t *sh;
    unsigned gen;
    const char *call;
} barrier_wait_t;

static bool barrier_over(void *arg)
{
    barrier_wait_t *b = arg;

    return atomic_load_explicit(&b->sh->barrier_gen, memory_order_acquire) != b->gen;
}

static void barrier_note(void *arg, tm_p2p_blocked_note_t *out)
{
    barrier_wait_t *b = arg;

    out->call = b->call;
    out->count = out->pending = 0;
    snprintf(out->text, sizeof(out->text),
             "%s: waiting for the other members of the window (%u of %d arrived)", b->call,
             atomic_load_explicit(&b->sh->barrier_arrived, memory_order_relaxed), b->sh->size);
}

void tm_rma_barrier(tm_rma_win_t *w, const char *call)
{
    tm_rma_shared_barrier(w->shared, w->owner, w->rank, call);
}

void tm_rma_shared_barrier(tm_rma_shared_t *sh, tm_mpi_rank_t *r, int rank, const char *call)
{
    barrier_wait_t b = {sh, atomic_load_explicit(&sh->barrier_gen, memory_order_acquire), call};

    if (sh->size == 1) {
        atomic_thread_fence(memory_order_seq_cst);
        return;
    }
    /* acq_rel: the last to arrive sees what every member stored before arriving, and gives it
     * to all with its release of the next generation. */
    if (atomic_fetch_add_explicit(&sh->barrier_arrived, 1, memory_order_acq_rel) ==
        (unsigned)sh->size - 1) {
        atomic_store_explicit(&sh->barrier_arrived, 0, memory_order_relaxed);
        atomic_store_explicit(&sh->barrier_gen, b.gen + 1, memory_order_release);
        for (int i = 0; i < sh->size; i++)
            if (i != rank)
                tm_p2p_mailbox_poke(tm_p2p_mailbox_get(sh->targets[i].world_rank, false));
        return;
    }
    tm_p2p_wait_noted(r, barrier_over, &b, barrier_note, &b);
}

/* ------------------------------------------------------------------ shared memory */

int tm_rma_shared_allocate(tm_rma_win_t *w, bool noncontig, const char *call)
{
    tm_rma_shared_t *sh = w->shared;
    /* Non-contiguous: each piece on lines of its own, 128 bytes apart, as the adjacent-line
     * prefetcher of x86-64 cores moves lines in pairs: one member's stores do not slow the
     * next one's */
    size_t align = noncontig ? 128 : 1;
    size_t total = 0;

    tm_rma_barrier(w, call); /* every member's size is in */
    for (int i = 0; i < sh->size; i++)
        total += ((size_t)sh->targets[i].size + align - 1) & ~(align - 1);
    if (w->rank == 0) {
        /* A block of its own even for 0 bytes, aligned for any type; one more line so that the
         * last piece's cache line is the block's. */
        sh->memory = aligned_alloc(128, ((total + 127) & ~(size_t)127) + 128);
        if (sh->memory == NULL)
            atomic_store_explicit(&sh->failed, true, memory_order_relaxed);
        else {
            size_t off = 0;

            for (int i = 0; i < sh->size; i++) {
                sh->targets[i].base = sh->memory + off;
                off += ((size_t)sh->targets[i].size + align - 1) & ~(align - 1);
            }
        }
    }
    tm_rma_barrier(w, call); /* the block is there, or not */
    if (atomic_load_explicit(&sh->failed, memory_order_relaxed))
        return -ENOMEM;
    w->attr_base = sh->targets[w->rank].base;
    return 0;
}

/* ------------------------------------------------------------------ dynamic windows */

static void regions_lock(tm_rma_target_t *t)
{
    tm_rma_spin_lock(&t->regions_lock);
}

static void regions_unlock(tm_rma_target_t *t)
{
    tm_rma_spin_unlock(&t->regions_lock);
}

/* The index of the first region of t that ends after address a. */
static int regions_find(const tm_rma_target_t *t, uintptr_t a)
{
    int lo = 0, hi = t->nregions;

    while (lo < hi) {
        int mid = (lo + hi) / 2;

        if (t->regions[mid].hi <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int tm_rma_attach(tm_rma_win_t *w, void *base, MPI_Aint size)
{
    tm_rma_target_t *t = &w->shared->targets[w->rank];
    /* An empty region still occupies its address, so that MPI_Win_detach finds it. */
    tm_rma_region_t reg = {(uintptr_t)base, (uintptr_t)base + (size ? (uintptr_t)size : 1)};
    int err = 0;

    regions_lock(t);
    int i = regions_find(t, reg.lo);
    if (i < t->nregions && t->regions[i].lo < reg.hi) {
        err = -EEXIST;
    } else if (t->nregions == t->regions_cap) {
        int cap = t->regions_cap ? 2 * t->regions_cap : 4;
        tm_rma_region_t *grown = realloc(t->regions, (size_t)cap * sizeof(*grown));

        if (grown == NULL)
            err = -ENOMEM;
        else {
            t->regions = grown;
            t->regions_cap = cap;
        }
    }
    if (err == 0) {
        memmove(&t->regions[i + 1], &t->regions[i],
                (size_t)(t->nregions - i) * sizeof(t->regions[0]));
        t->regions[i] = reg;
        t->nregions++;
    }
    regions_unlock(t);
    return err;
}

int tm_rma_detach(tm_rma_win_t *w, const void *base)
{
    tm_rma_target_t *t = &w->shared->targets[w->rank];
    int err = -ENOENT;

    regions_lock(t);
    int i = regions_find(t, (uintptr_t)base);
    if (i < t->nregions && t->regions[i].lo == (uintptr_t)base) {
        memmove(&t->regions[i], &t->regions[i + 1],
                (size_t)(t->nregions - i - 1) * sizeof(t->regions[0]));
        t->nregions--;
        err = 0;
    }
    regions_unlock(t);
    return err;
}

/* For access.c: whether [lo, hi) lies in one region attached to t. */
bool tm_rma_regions_hold(tm_rma_target_t *t, uintptr_t lo, uintptr_t hi)
{
    regions_lock(t);
    int i = regions_find(t, lo);
    bool in = i < t->nregions && t->regions[i].lo <= lo && hi <= t->regions[i].hi;
    regions_unlock(t);
    return in;
}
