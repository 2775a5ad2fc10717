/*
 * The MPI_Group_* calls on per-rank handles, and MPI_Comm_group (the group objects: obj/group.c).
 *
 * A group handle's payload is its index in the rank's table plus 2 (1 is MPI_GROUP_EMPTY). Each
 * handle holds one reference to its group; an operation whose result has no members returns
 * MPI_GROUP_EMPTY.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"
#include "obj/group.h"

int tm_mpi_group_return(tm_mpi_rank_t *r, const char *call, tm_mpi_group_t *g, MPI_Group *newgroup)
{
    int index;

    if (g == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    if (g->size == 0) {
        tm_mpi_group_release(g);
        *newgroup = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    index = tm_mpi_table_add(&r->groups, g);
    if (index < 0) {
        tm_mpi_group_release(g);
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM,
                                  "out of memory for group handles");
    }
    *newgroup = TM_MPI_HANDLE(TM_MPI_KIND_GROUP, index + TM_MPI_GROUP_FIRST_PAYLOAD);
    return MPI_SUCCESS;
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    static const char call[] = "MPI_Comm_group";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (group == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "group is NULL");
    tm_mpi_group_retain(c->group);
    return tm_mpi_group_return(r, call, c->group, group);
}
#pragma weak MPI_Comm_group = PMPI_Comm_group

/* An intercommunicator's other group (intercomm.c). */
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    static const char call[] = "MPI_Comm_remote_group";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (!tm_mpi_comm_is_inter(c))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COMM, "%s is not an intercommunicator",
                                  c->name);
    if (group == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "group is NULL");
    tm_mpi_group_retain(c->remote);
    return tm_mpi_group_return(r, call, c->remote, group);
}
#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group

int PMPI_Group_size(MPI_Group group, int *size)
{
    static const char call[] = "MPI_Group_size";
    TM_MPI_RANK(r, call);
    tm_mpi_group_t *g;
    int err = tm_mpi_group_get(r, group, call, &g);

    if (err != MPI_SUCCESS)
        return err;
    if (size == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "size is NULL");
    *size = g->size;
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_size = PMPI_Group_size

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    static const char call[] = "MPI_Group_rank";
    TM_MPI_RANK(r, call);
    tm_mpi_group_t *g;
    int err = tm_mpi_group_get(r, group, call, &g);

    if (err != MPI_SUCCESS)
        return err;
    if (rank == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "rank is NULL");
    *rank = tm_mpi_group_rank_of(g, r->rt->world_rank);
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_rank = PMPI_Group_rank

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    static const char call[] = "MPI_Group_translate_ranks";
    TM_MPI_RANK(r, call);
    tm_mpi_group_t *g1, *g2;
    int err = tm_mpi_group_get(r, group1, call, &g1);
    int *index;

    if (err != MPI_SUCCESS)
        return err;
    err = tm_mpi_group_get(r, group2, call, &g2);
    if (err != MPI_SUCCESS)
        return err;
    if (n < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "n is negative (%d)", n);
    if (n > 0 && ranks1 == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "ranks1 is NULL");
    if (n > 0 && ranks2 == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "ranks2 is NULL");
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= g1->size))
            return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_RANK,
                                      "ranks1[%d] = %d is not a rank of group1 (size %d)", i,
                                      ranks1[i], g1->size);
    index = tm_mpi_group_index(g2);
    if (index == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < n; i++) {
        int to = MPI_PROC_NULL;

        if (ranks1[i] != MPI_PROC_NULL) {
            to = index[g1->world_ranks[ranks1[i]]];
            if (to < 0)
                to = MPI_UNDEFINED;
        }
        ranks2[i] = to;
    }
    free(index);
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    static const char call[] = "MPI_Group_compare";
    TM_MPI_RANK(r, call);
    tm_mpi_group_t *g1, *g2;
    int err = tm_mpi_group_get(r, group1, call, &g1);

    if (err != MPI_SUCCESS)
        return err;
    err = tm_mpi_group_get(r, group2, call, &g2);
    if (err != MPI_SUCCESS)
        return err;
    if (result == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "result is NULL");
    *result = tm_mpi_group_compare(g1, g2);
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_compare = PMPI_Group_compare

/* The set operations: which members of g1 and g2 form the result, in the standard's order. */
typedef enum tm_mpi_group_setop {
    TM_MPI_GROUP_UNION,        /* g1's members, then g2's not in g1 */
    TM_MPI_GROUP_INTERSECTION, /* g1's members also in g2, in g1's order */
    TM_MPI_GROUP_DIFFERENCE    /* g1's members not in g2, in g1's order */
} tm_mpi_group_setop_t;

static int tm_mpi_group_setop(const char *call, MPI_Group group1, MPI_Group group2,
                              MPI_Group *newgroup, tm_mpi_group_setop_t op)
{
    TM_MPI_RANK(r, call);
    tm_mpi_group_t *g1, *g2, *g;
    int err = tm_mpi_group_get(r, group1, call, &g1);
    int *in2, n = 0, max;

    if (err != MPI_SUCCESS)
        return err;
    err = tm_mpi_group_get(r, group2, call, &g2);
    if (err != MPI_SUCCESS)
        return err;
    if (newgroup == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "newgroup is NULL");
    in2 = tm_mpi_group_index(g2);
    max = op == TM_MPI_GROUP_UNION ? g1->size + g2->size : g1->size;
    g = in2 ? tm_mpi_group_create(max) : NULL;
    if (g == NULL) {
        free(in2);
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0; i < g1->size; i++) {
        int w = g1->world_ranks[i];

        if (op == TM_MPI_GROUP_UNION || (op == TM_MPI_GROUP_INTERSECTION) == (in2[w] >= 0))
            g->world_ranks[n++] = w;
        /* Marks g1's members so that the union skips them in g2. */
        in2[w] = -2;
    }
    if (op == TM_MPI_GROUP_UNION)
        for (int i = 0; i < g2->size; i++)
            if (in2[g2->world_ranks[i]] != -2)
                g->world_ranks[n++] = g2->world_ranks[i];
    free(in2);
    g->size = n;
    return tm_mpi_group_return(r, call, g, newgroup);
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return tm_mpi_group_setop("MPI_Group_union", group1, group2, newgroup, TM_MPI_GROUP_UNION);
}
#pragma weak MPI_Group_union = PMPI_Group_union

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return tm_mpi_group_setop("MPI_Group_intersection", group1, group2, newgroup,
                              TM_MPI_GROUP_INTERSECTION);
}
#pragma weak MPI_Group_intersection = PMPI_Group_intersection

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return tm_mpi_group_setop("MPI_Group_difference", group1, group2, newgroup,
                              TM_MPI_GROUP_DIFFERENCE);
}
#pragma weak MPI_Group_difference = PMPI_Group_difference

/*
 * The ranks of g that incl/excl (n ranks) or range_incl/range_excl (n triplets, when ranges is
 * not NULL) select: marks
 * picked[i] = 1 + the position of rank i in the selection, after checking that every rank is
 * valid and selected once. Returns the number selected, or the error class raised (negated).
 */
static int tm_mpi_group_pick(tm_mpi_rank_t *r, const char *call, const tm_mpi_group_t *g, int n,
                             const int *ranks, int (*ranges)[3], int *picked)
{
    int count = 0;

    for (int i = 0; i < n; i++) {
        int first, last, stride;

        if (ranges == NULL) {
            first = last = ranks[i];
            stride = 1;
            if (first < 0 || first >= g->size)
                return -tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_RANK,
                                           "ranks[%d] = %d is not a rank of the group (size %d)", i,
                                           first, g->size);
        } else {
            first = ranges[i][0];
            last = ranges[i][1];
            stride = ranges[i][2];
            if (first < 0 || first >= g->size || last < 0 || last >= g->size)
                return -tm_mpi_error_raise(
                    r->rt, NULL, call, MPI_ERR_RANK,
                    "ranges[%d] = {%d, %d, %d} goes out of the group (size %d)", i, first, last,
                    stride, g->size);
            if (stride == 0)
                return -tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                           "ranges[%d] = {%d, %d, %d} has a zero stride", i, first,
                                           last, stride);
            if ((stride > 0 && first > last) || (stride < 0 && first < last))
                return -tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                           "ranges[%d] = {%d, %d, %d}: the stride goes away "
                                           "from the last rank",
                                           i, first, last, stride);
        }
        for (int k = first; stride > 0 ? k <= last : k >= last; k += stride) {
            if (picked[k])
                return -tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_RANK,
                                           "rank %d is selected twice (by %s[%d])", k,
                                           ranges ? "ranges" : "ranks", i);
            picked[k] = ++count;
        }
    }
    return count;
}

static int tm_mpi_group_select(const char *call, MPI_Group group, int n, const int *ranks,
                               int (*ranges)[3], int exclude, MPI_Group *newgroup)
{
    TM_MPI_RANK(r, call);
    tm_mpi_group_t *g, *ng;
    int err = tm_mpi_group_get(r, group, call, &g);
    int *picked, count;

    if (err != MPI_SUCCESS)
        return err;
    if (n < 0 || (ranges == NULL && n > g->size))
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "n = %d is not in [0, %d] (the group's size)", n, g->size);
    if (newgroup == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "newgroup is NULL");
    picked = calloc((size_t)g->size + 1, sizeof(*picked));
    if (picked == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    count = tm_mpi_group_pick(r, call, g, n, ranks, ranges, picked);
    if (count < 0) {
        free(picked);
        return -count;
    }
    ng = tm_mpi_group_create(exclude ? g->size - count : count);
    if (ng != NULL) {
        int k = 0;

        for (int i = 0; i < g->size; i++) {
            if (exclude && !picked[i])
                ng->world_ranks[k++] = g->world_ranks[i];
            else if (!exclude && picked[i])
                ng->world_ranks[picked[i] - 1] = g->world_ranks[i];
        }
    }
    free(picked);
    return tm_mpi_group_return(r, call, ng, newgroup);
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    static const char call[] = "MPI_Group_incl";

    if (n > 0 && ranks == NULL)
        return tm_mpi_error_raise(tm_mpi_rank_get(call)->rt, NULL, call, MPI_ERR_ARG,
                                  "ranks is NULL");
    return tm_mpi_group_select(call, group, n, ranks, NULL, 0, newgroup);
}
#pragma weak MPI_Group_incl = PMPI_Group_incl

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    static const char call[] = "MPI_Group_excl";

    if (n > 0 && ranks == NULL)
        return tm_mpi_error_raise(tm_mpi_rank_get(call)->rt, NULL, call, MPI_ERR_ARG,
                                  "ranks is NULL");
    return tm_mpi_group_select(call, group, n, ranks, NULL, 1, newgroup);
}
#pragma weak MPI_Group_excl = PMPI_Group_excl

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    static const char call[] = "MPI_Group_range_incl";

    if (n > 0 && ranges == NULL)
        return tm_mpi_error_raise(tm_mpi_rank_get(call)->rt, NULL, call, MPI_ERR_ARG,
                                  "ranges is NULL");
    return tm_mpi_group_select(call, group, n, NULL, ranges, 0, newgroup);
}
#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    static const char call[] = "MPI_Group_range_excl";

    if (n > 0 && ranges == NULL)
        return tm_mpi_error_raise(tm_mpi_rank_get(call)->rt, NULL, call, MPI_ERR_ARG,
                                  "ranges is NULL");
    return tm_mpi_group_select(call, group, n, NULL, ranges, 1, newgroup);
}
#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl

int PMPI_Group_free(MPI_Group *group)
{
    static const char call[] = "MPI_Group_free";
    TM_MPI_RANK(r, call);
    tm_mpi_group_t *g;
    int err;

    if (group == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "group is NULL");
    err = tm_mpi_group_get(r, *group, call, &g);
    if (err != MPI_SUCCESS)
        return err;
    /* Freeing MPI_GROUP_EMPTY is allowed: the set operations may return it. */
    if (*group != MPI_GROUP_EMPTY) {
        tm_mpi_table_remove(&r->groups,
                            (int)tm_mpi_handle_payload(*group) - TM_MPI_GROUP_FIRST_PAYLOAD);
        tm_mpi_group_release(g);
    }
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_free = PMPI_Group_free
