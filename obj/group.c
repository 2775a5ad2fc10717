/*
 * Groups: the shared group objects (group.h) and the resolution of per-rank group handles (the
 * MPI_Group_* calls are in mpi/group.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "obj/group.h"

/* Never freed: immortal. */
static tm_mpi_group_t tm_mpi_group_empty_obj = {.refs = 1, .size = 0, .immortal = true};

/* Created by the first rank that needs it, then kept for the life of the process. */
static _Atomic(tm_mpi_group_t *) tm_mpi_group_world_obj;

tm_mpi_group_t *tm_mpi_group_create(int size)
{
    tm_mpi_group_t *g = malloc(sizeof(*g) + (size_t)size * sizeof(g->world_ranks[0]));

    if (g == NULL)
        return NULL;
    atomic_init(&g->refs, 1);
    g->size = size;
    g->immortal = false;
    return g;
}

tm_mpi_group_t *tm_mpi_group_world(void)
{
    /* Acquire: pairs with the release of the CAS below, so the members are seen filled in. */
    tm_mpi_group_t *g = atomic_load_explicit(&tm_mpi_group_world_obj, memory_order_acquire);
    tm_mpi_group_t *expected = NULL;
    int size;

    if (g == NULL) {
        size = tm_rt_world_size();
        g = tm_mpi_group_create(size);
        if (g == NULL)
            return NULL;
        for (int i = 0; i < size; i++)
            g->world_ranks[i] = i;
        g->immortal = true; /* see tm_mpi_group_t */
        /* The process keeps it. Another rank may have won the race: use its group and drop
         * ours. */
        if (!atomic_compare_exchange_strong_explicit(&tm_mpi_group_world_obj, &expected, g,
                                                     memory_order_acq_rel, memory_order_acquire)) {
            free(g);
            g = expected;
        }
    }
    return g;
}

tm_mpi_group_t *tm_mpi_group_empty(void)
{
    tm_mpi_group_retain(&tm_mpi_group_empty_obj);
    return &tm_mpi_group_empty_obj;
}

void tm_mpi_group_retain(tm_mpi_group_t *g)
{
    if (g->immortal)
        return;
    /* Relaxed: a reference is only ever taken from another one, which keeps g alive. */
    atomic_fetch_add_explicit(&g->refs, 1, memory_order_relaxed);
}

void tm_mpi_group_release(tm_mpi_group_t *g)
{
    /* Acq_rel: whoever frees must see every other holder done with the group. */
    if (g != NULL && !g->immortal &&
        atomic_fetch_sub_explicit(&g->refs, 1, memory_order_acq_rel) == 1)
        free(g);
}

int tm_mpi_group_rank_of(const tm_mpi_group_t *g, int world_rank)
{
    for (int i = 0; i < g->size; i++)
        if (g->world_ranks[i] == world_rank)
            return i;
    return MPI_UNDEFINED;
}

int *tm_mpi_group_index(const tm_mpi_group_t *g)
{
    int world = tm_rt_world_size();
    int *index = malloc((size_t)(world > 0 ? world : 1) * sizeof(*index));

    if (index == NULL)
        return NULL;
    for (int i = 0; i < world; i++)
        index[i] = -1;
    for (int i = 0; i < g->size; i++)
        index[g->world_ranks[i]] = i;
    return index;
}

int tm_mpi_group_compare(const tm_mpi_group_t *g1, const tm_mpi_group_t *g2)
{
    int same_order = 1;

    if (g1 == g2)
        return MPI_IDENT;
    if (g1->size != g2->size)
        return MPI_UNEQUAL;
    for (int i = 0; i < g1->size; i++)
        if (g1->world_ranks[i] != g2->world_ranks[i]) {
            same_order = 0;
            break;
        }
    if (same_order)
        return MPI_IDENT;
    /* Same size and distinct members: similar if every member of g1 is in g2. */
    for (int i = 0; i < g1->size; i++)
        if (tm_mpi_group_rank_of(g2, g1->world_ranks[i]) == MPI_UNDEFINED)
            return MPI_UNEQUAL;
    return MPI_SIMILAR;
}

int tm_mpi_group_get(tm_mpi_rank_t *r, MPI_Group handle, const char *call, tm_mpi_group_t **group_p)
{
    tm_mpi_kind_t kind = tm_mpi_handle_kind(handle);

    *group_p = NULL;
    if (handle == MPI_GROUP_EMPTY) {
        *group_p = &tm_mpi_group_empty_obj;
        return MPI_SUCCESS;
    }
    if (handle == MPI_GROUP_NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_GROUP, "invalid group MPI_GROUP_NULL");
    if (kind == TM_MPI_KIND_GROUP) {
        *group_p = tm_mpi_table_get(&r->groups, (long)tm_mpi_handle_payload(handle) -
                                                    TM_MPI_GROUP_FIRST_PAYLOAD);
        if (*group_p != NULL)
            return MPI_SUCCESS;
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_GROUP,
                                  "invalid group 0x%08x: no such group", (unsigned)handle);
    }
    if (kind == TM_MPI_KIND_NONE)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_GROUP,
                                  "invalid group 0x%08x: not an MPI handle", (unsigned)handle);
    return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_GROUP,
                              "invalid group 0x%08x: the handle of %s", (unsigned)handle,
                              tm_mpi_handle_kind_name(kind));
}

void tm_mpi_group_rank_fini(tm_mpi_rank_t *r)
{
    for (int i = 0; i < r->groups.len; i++)
        tm_mpi_group_release(r->groups.slots[i]);
    tm_mpi_table_destroy(&r->groups);
}

bool tm_mpi_group_local(const tm_mpi_group_t *g)
{
    for (int i = 0; i < g->size; i++)
        if (!tm_rt_rank_is_local(g->world_ranks[i]))
            return false;
    return true;
}
