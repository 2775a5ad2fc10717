/*
 * Creating and freeing communicators: MPI_Comm_dup(_with_info) (which copies the topology; its
 * local part serves MPI_Comm_idup too, comm_idup.c), MPI_Comm_split(_type),
 * MPI_Comm_create, MPI_Comm_create_group, MPI_Comm_free, MPI_Comm_set_info/get_info.
 *
 * Context ids come from one process-wide counter (ranks share the address space): each new
 * communicator gets the next even id, and id + 1 is its collective context. In a job on several
 * hosts, the processes' ids interleave (process p of P takes the k-th id 2 (k P + p) after the
 * predefined ones), so that an id is unique job-wide without agreement. The member that
 * allocates the id (rank 0 of the parent, or of the group for MPI_Comm_create_group) tells the
 * others over point-to-point messages on the parent's collective context, with the negative
 * tags of mpi_impl.h, so the traffic never mixes with the program's messages. The algorithms
 * are linear (the leader talks to each member in turn): lg p collectives come with the
 * collectives themselves.
 *
 * Each member has its own view (tm_mpi_comm_t, heap-allocated, in its `comms` table); the views
 * of one communicator share its group, which MPI_Comm_split builds once on the leader and hands
 * to the members as a pointer, with one reference per member.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "coll.h"
#include "obj/group.h"
#include "p2p/p2p.h"
#include "topo.h"

_Static_assert(TM_MPI_COMM_FIRST_PAYLOAD > (MPI_COMM_SELF & TM_MPI_HANDLE_PAYLOAD_MASK) &&
                   TM_MPI_COMM_FIRST_PAYLOAD > (MPI_COMM_WORLD & TM_MPI_HANDLE_PAYLOAD_MASK),
               "the program's communicators would take the predefined handles");

/* A view with room for a name that error messages can print ("MPI_Comm 0x44000003"). */
typedef struct tm_mpi_comm_view {
    tm_mpi_comm_t comm; /* first: the table holds &view->comm, free() takes it back */
    char label[32];
} tm_mpi_comm_view_t;

/* ------------------------------------------------------------------ context ids */

/* The ids this process made so far. */
static _Atomic unsigned tm_mpi_context_count;

/* Ids are never reused: 2^30 of them (shared by the hosts) outlast any program. Only uniqueness
 * matters (the id reaches the other members through messages, or comm_idup.c's locked table,
 * which order the rest): relaxed. */
int tm_mpi_comm_context_alloc(void)
{
    int index, nprocs = tm_p2p_net_procs(&index);
    unsigned k = atomic_fetch_add_explicit(&tm_mpi_context_count, 1, memory_order_relaxed);
    /* The first id after WORLD's (0, 1) and SELF's (2, 3). */
    uint64_t id = TM_MPI_CONTEXT_SELF + 2 + 2 * ((uint64_t)k * (uint64_t)nprocs + (uint64_t)index);

    return id > INT_MAX - 1 ? -1 : (int)id;
}

/* ------------------------------------------------------------------ internal messages */

/* What the leader tells a member: the context id (-1: the member gets MPI_COMM_NULL, or the
 * ids ran out) and, for MPI_Comm_split, the group of the new communicator, with a reference
 * for the member. A member on another host gets the group's `size` instead, and its world ranks
 * in a second message (TM_MPI_TAG_COMM_SPLIT_LIST), from which it makes its own. */
typedef struct tm_mpi_comm_msg {
    int context_id;
    int size;
    tm_mpi_group_t *group;
} tm_mpi_comm_msg_t;

/* The view of `parent` that carries creation traffic: the same members on its collective
 * context. Internal errors are fatal: the program has no handler for them. */
void tm_mpi_comm_coll_view(tm_mpi_comm_t *view, const tm_mpi_comm_t *parent)
{
    memset(view, 0, sizeof(*view));
    view->owner = parent->owner;
    view->handle = parent->handle;
    view->name = parent->name;
    view->rank = parent->rank;
    view->size = parent->size;
    view->context_id = parent->context_id + 1;
    view->errhandler = MPI_ERRORS_ARE_FATAL;
    view->group = parent->group;
    view->remote = parent->remote;
}

static bool tm_mpi_comm_request_done(void *arg)
{
    return tm_p2p_request_is_complete(arg);
}

/* Waits for req and releases it. */
static void tm_mpi_comm_wait(tm_mpi_rank_t *r, tm_p2p_request_t *req, const char *call,
                             const tm_mpi_comm_t *view, int peer)
{
    if (!tm_p2p_request_is_complete(req)) {
        tm_p2p_note_blocked(r, "%s(comm=%s): %s rank %d", call, view->name,
                            req->kind == TM_P2P_REQ_SEND ? "sending to" : "waiting for", peer);
        tm_p2p_wait_until(r, tm_mpi_comm_request_done, req);
    }
    tm_p2p_request_release(r, req);
}

static tm_mpi_type_t *tm_mpi_comm_byte_type(void)
{
    tm_mpi_type_t *t = NULL;

    tm_mpi_type_lookup(MPI_BYTE, &t);
    return t;
}

/* Sends `bytes` of buf to `dest` of view and waits until the buffer is free. 0 or -ENOMEM. */
int tm_mpi_comm_send(tm_mpi_rank_t *r, tm_mpi_comm_t *view, const char *call, const void *buf,
                     size_t bytes, int dest, int tag)
{
    tm_p2p_request_t *req;
    int err =
        tm_p2p_isend(r, buf, bytes, tm_mpi_comm_byte_type(), bytes, dest, tag, view, false, &req);

    if (err < 0)
        return err;
    req->call = call;
    tm_mpi_comm_wait(r, req, call, view, dest);
    return 0;
}

/* Receives exactly `bytes` into buf from `source` of view. 0 or -ENOMEM. */
int tm_mpi_comm_recv(tm_mpi_rank_t *r, tm_mpi_comm_t *view, const char *call, void *buf,
                     size_t bytes, int source, int tag)
{
    tm_p2p_request_t *req;
    int err = tm_p2p_irecv(r, buf, bytes, tm_mpi_comm_byte_type(), source, tag, view, &req);

    if (err < 0)
        return err;
    req->call = call;
    tm_mpi_comm_wait(r, req, call, view, source);
    return 0;
}

int tm_mpi_comm_refuse_hosts(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call)
{
    if (c->local && (!c->remote || tm_mpi_group_local(c->remote)))
        return MPI_SUCCESS;
    return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_UNSUPPORTED_OPERATION,
                              "%s has members on other hosts, and this call does not work across "
                              "hosts in this release",
                              c->name);
}

/* ------------------------------------------------------------------ views */

/* A new view for r of the communicator (context_id, group), where r is `rank`, inheriting
 * parent's error handler; it takes over the caller's reference to group. On success publishes
 * it in r's table, sets *comm_p and returns 0; -ENOMEM (group released). */
int tm_mpi_comm_view_new(tm_mpi_rank_t *r, const tm_mpi_comm_t *parent, int context_id,
                         tm_mpi_group_t *group, int rank, tm_mpi_comm_t **comm_p)
{
    tm_mpi_comm_view_t *v = calloc(1, sizeof(*v));
    tm_mpi_comm_t *c;
    int index;

    if (v == NULL) {
        tm_mpi_group_release(group);
        return -ENOMEM;
    }
    index = tm_mpi_table_add(&r->comms, &v->comm);
    if (index < 0) {
        free(v);
        tm_mpi_group_release(group);
        return -ENOMEM;
    }
    c = &v->comm;
    c->owner = r;
    c->handle = TM_MPI_HANDLE(TM_MPI_KIND_COMM, index + TM_MPI_COMM_FIRST_PAYLOAD);
    snprintf(v->label, sizeof(v->label), "MPI_Comm 0x%08x", (unsigned)c->handle);
    c->name = v->label;
    c->rank = rank;
    c->size = group->size;
    c->context_id = context_id;
    c->local = tm_mpi_group_local(group);
    c->errhandler = MPI_ERRORS_ARE_FATAL;
    c->group = group;
    tm_mpi_comm_errhandler_inherit(c, parent);
    *comm_p = c;
    return 0;
}

/* Frees view c (attributes already deleted). */
static void tm_mpi_comm_view_free(tm_mpi_rank_t *r, tm_mpi_comm_t *c)
{
    tm_mpi_table_remove(&r->comms,
                        (int)tm_mpi_handle_payload(c->handle) - TM_MPI_COMM_FIRST_PAYLOAD);
    tm_mpi_comm_errhandler_clear(c);
    tm_coll_flat_release(r, c, "MPI_Comm_free");
    tm_coll_check_release(r, c);
    tm_p2p_request_forget_comm(r, c);
    tm_mpi_group_release(c->group);
    tm_mpi_group_release(c->remote);
    tm_mpi_topo_free(c->topo);
    free(c); /* the view: c is its first member */
}

void tm_mpi_comm_rank_fini(tm_mpi_rank_t *r)
{
    for (int i = 0; i < r->comms.len; i++) {
        tm_mpi_comm_t *c = r->comms.slots[i];

        if (c == NULL)
            continue;
        tm_mpi_attr_comm_fini(c);
        tm_mpi_comm_view_free(r, c);
    }
    tm_mpi_table_destroy(&r->comms);
}

/* ------------------------------------------------------------------ argument checks */

static int tm_mpi_comm_out_of_memory(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call)
{
    return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_NO_MEM, "out of memory");
}

static int tm_mpi_comm_check_newcomm(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                                     const MPI_Comm *newcomm)
{
    if (newcomm != NULL)
        return MPI_SUCCESS;
    return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_ARG, "newcomm is NULL");
}

/* Checks that every member of g belongs to comm; fills parent_rank[i] with the rank in comm of
 * member i of g. */
static int tm_mpi_comm_check_subgroup(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                                      const tm_mpi_group_t *g, int *parent_rank)
{
    int world_size = tm_rt_world_size();
    int *index_of = malloc((size_t)world_size * sizeof(*index_of)); /* world rank -> comm rank */

    if (index_of == NULL)
        return tm_mpi_comm_out_of_memory(r, comm, call);
    for (int w = 0; w < world_size; w++)
        index_of[w] = -1;
    for (int i = 0; i < comm->size; i++)
        index_of[tm_mpi_group_world_rank(comm->group, i)] = i;
    for (int i = 0; i < g->size; i++) {
        int w = tm_mpi_group_world_rank(g, i);

        parent_rank[i] = index_of[w];
        if (parent_rank[i] < 0) {
            free(index_of);
            return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_GROUP,
                                      "member %d of the group (rank %d of MPI_COMM_WORLD) is "
                                      "not in %s",
                                      i, w, comm->name);
        }
    }
    free(index_of);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ dup */

int tm_mpi_comm_dup_finish(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, int context_id,
                           MPI_Comm *newcomm)
{
    tm_mpi_comm_t *nc;
    int failed = 0, err;

    *newcomm = MPI_COMM_NULL; /* what a failed duplication gives, as in MPICH */
    if (context_id < 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_INTERN, "out of context ids");
    tm_mpi_group_retain(c->group);
    if (tm_mpi_comm_view_new(r, c, context_id, c->group, c->rank, &nc) < 0)
        return tm_mpi_comm_out_of_memory(r, c, call);
    if (c->remote) {
        tm_mpi_group_retain(c->remote);
        nc->remote = c->remote;
    }
    nc->topo = tm_mpi_topo_dup(c->topo, &failed);
    if (failed) {
        tm_mpi_comm_view_free(r, nc);
        return tm_mpi_comm_out_of_memory(r, c, call);
    }
    err = tm_mpi_attr_copy_all(c, nc);
    if (err != MPI_SUCCESS) {
        tm_mpi_attr_comm_fini(nc);
        tm_mpi_comm_view_free(r, nc);
        return tm_mpi_error_raise(r->rt, c, call,
                                  err > 0 && tm_mpi_error_class_name(err) ? err : MPI_ERR_OTHER,
                                  "an attribute copy callback returned %d", err);
    }
    *newcomm = nc->handle;
    return MPI_SUCCESS;
}

static int tm_mpi_comm_dup(const char *call, MPI_Comm comm, MPI_Info info, int check_info,
                           MPI_Comm *newcomm)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c, view;
    int err = tm_mpi_comm_get(r, comm, call, &c);
    int id = -1;

    if (err != MPI_SUCCESS)
        return err;
    if (check_info && info != MPI_INFO_NULL &&
        (err = tm_mpi_info_check(r, info, call)) != MPI_SUCCESS)
        return err;
    if ((err = tm_mpi_comm_check_newcomm(r, c, call, newcomm)) != MPI_SUCCESS)
        return err;
    /* An intercommunicator's two groups agree through memory, as MPI_Comm_idup's members. */
    if (tm_mpi_comm_is_inter(c)) {
        if ((err = tm_mpi_comm_refuse_hosts(r, c, call)) != MPI_SUCCESS)
            return err;
        if (tm_mpi_comm_agree_context(c, &id) < 0)
            return tm_mpi_comm_out_of_memory(r, c, call);
        return tm_mpi_comm_dup_finish(r, c, call, id, newcomm);
    }
    tm_mpi_comm_coll_view(&view, c);
    if (c->rank == 0) {
        id = tm_mpi_comm_context_alloc();
        for (int i = 1; i < c->size; i++)
            if (tm_mpi_comm_send(r, &view, call, &id, sizeof(id), i, TM_MPI_TAG_COMM_DUP) < 0)
                return tm_mpi_comm_out_of_memory(r, c, call);
    } else if (tm_mpi_comm_recv(r, &view, call, &id, sizeof(id), 0, TM_MPI_TAG_COMM_DUP) < 0) {
        return tm_mpi_comm_out_of_memory(r, c, call);
    }
    return tm_mpi_comm_dup_finish(r, c, call, id, newcomm);
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return tm_mpi_comm_dup("MPI_Comm_dup", comm, MPI_INFO_NULL, 0, newcomm);
}
#pragma weak MPI_Comm_dup = PMPI_Comm_dup

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return tm_mpi_comm_dup("MPI_Comm_dup_with_info", comm, info, 1, newcomm);
}
#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info

/* ------------------------------------------------------------------ split */

typedef struct tm_mpi_comm_split_entry {
    int color, key, rank; /* rank: in the parent */
} tm_mpi_comm_split_entry_t;

/* Color, then key, then rank in the parent: the order of the new communicators' members. */
static int tm_mpi_comm_split_cmp(const void *a, const void *b)
{
    const tm_mpi_comm_split_entry_t *x = a, *y = b;

    if (x->color != y->color)
        return x->color < y->color ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The leader's part: gathers (color, key) from every rank, builds the group of each color and
 * sends each rank its message; *mine = its own. 0 or -ENOMEM. */
static int tm_mpi_comm_split_lead(tm_mpi_rank_t *r, tm_mpi_comm_t *view, const char *call,
                                  int color, int key, tm_mpi_comm_msg_t *mine)
{
    int n = view->size, err = 0;
    tm_mpi_comm_split_entry_t *e = malloc((size_t)n * sizeof(*e));
    tm_mpi_comm_msg_t *out = calloc((size_t)n, sizeof(*out));

    if (e == NULL || out == NULL) {
        err = -ENOMEM;
        goto free_arrays;
    }
    e[0] = (tm_mpi_comm_split_entry_t){color, key, 0};
    for (int i = 1; i < n && err == 0; i++) {
        int ck[2];

        err = tm_mpi_comm_recv(r, view, call, ck, sizeof(ck), i, TM_MPI_TAG_COMM_SPLIT_IN);
        e[i] = (tm_mpi_comm_split_entry_t){ck[0], ck[1], i};
    }
    if (err < 0)
        goto free_arrays;
    qsort(e, (size_t)n, sizeof(*e), tm_mpi_comm_split_cmp);
    for (int first = 0, last; first < n; first = last) {
        for (last = first + 1; last < n && e[last].color == e[first].color; last++)
            ;
        if (e[first].color == MPI_UNDEFINED) {
            for (int i = first; i < last; i++)
                out[e[i].rank].context_id = -1;
            continue;
        }
        tm_mpi_group_t *g = tm_mpi_group_create(last - first);
        int id = tm_mpi_comm_context_alloc();

        if (g == NULL) {
            err = -ENOMEM; /* the members of this color and the next get MPI_COMM_NULL */
            break;
        }
        for (int i = first; i < last; i++) {
            g->world_ranks[i - first] = tm_mpi_group_world_rank(view->group, e[i].rank);
            out[e[i].rank].context_id = id;
            out[e[i].rank].group = g;
            if (i > first)
                tm_mpi_group_retain(g);
        }
    }
    /* Every rank gets its message, even on failure, so that none waits forever. */
    for (int i = 0; i < n; i++) {
        if (out[i].group == NULL)
            out[i].context_id = -1;
        if (i == 0)
            continue;
        tm_mpi_group_t *g = out[i].group;
        bool remote = g && !tm_rt_rank_is_local(tm_mpi_group_world_rank(view->group, i));
        if (remote) {
            out[i].size = g->size;
            out[i].group = NULL;
        }
        if (tm_mpi_comm_send(r, view, call, &out[i], sizeof(out[i]), i, TM_MPI_TAG_COMM_SPLIT_OUT) <
                0 ||
            (remote &&
             tm_mpi_comm_send(r, view, call, g->world_ranks, (size_t)g->size * sizeof(int), i,
                              TM_MPI_TAG_COMM_SPLIT_LIST) < 0)) {
            if (!remote)
                tm_mpi_group_release(g);
            err = -ENOMEM;
        }
        if (remote)
            tm_mpi_group_release(g);
    }
    *mine = out[0];
free_arrays:
    free(out);
    free(e);
    return err;
}

static int tm_mpi_comm_split(const char *call, MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c, *nc, view;
    tm_mpi_comm_msg_t msg = {-1, 0, NULL};
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (color < 0 && color != MPI_UNDEFINED)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                  "invalid color %d (colors are non-negative or MPI_UNDEFINED)",
                                  color);
    if ((err = tm_mpi_comm_check_newcomm(r, c, call, newcomm)) != MPI_SUCCESS)
        return err;
    if (tm_mpi_comm_is_inter(c))
        return tm_mpi_intercomm_split(r, c, call, color, key, newcomm);
    tm_mpi_comm_coll_view(&view, c);
    if (c->rank == 0) {
        err = tm_mpi_comm_split_lead(r, &view, call, color, key, &msg);
    } else {
        int ck[2] = {color, key};

        err = tm_mpi_comm_send(r, &view, call, ck, sizeof(ck), 0, TM_MPI_TAG_COMM_SPLIT_IN);
        if (err == 0)
            err = tm_mpi_comm_recv(r, &view, call, &msg, sizeof(msg), 0, TM_MPI_TAG_COMM_SPLIT_OUT);
        /* From a leader on another host: the members' list. */
        if (err == 0 && msg.size > 0) {
            msg.group = tm_mpi_group_create(msg.size);
            int *list = malloc((size_t)msg.size * sizeof(int));
            err = list ? tm_mpi_comm_recv(r, &view, call, list, (size_t)msg.size * sizeof(int), 0,
                                          TM_MPI_TAG_COMM_SPLIT_LIST)
                       : -ENOMEM;
            if (err == 0 && msg.group)
                memcpy(msg.group->world_ranks, list, (size_t)msg.size * sizeof(int));
            free(list);
        }
    }
    if (err < 0 || (msg.group == NULL && color != MPI_UNDEFINED)) {
        tm_mpi_group_release(msg.group);
        return tm_mpi_comm_out_of_memory(r, c, call);
    }
    if (msg.group == NULL) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if (msg.context_id < 0) {
        tm_mpi_group_release(msg.group);
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_INTERN, "out of context ids");
    }
    if (tm_mpi_comm_view_new(r, c, msg.context_id, msg.group,
                             tm_mpi_group_rank_of(msg.group, r->rt->world_rank), &nc) < 0)
        return tm_mpi_comm_out_of_memory(r, c, call);
    *newcomm = nc->handle;
    return MPI_SUCCESS;
}

int tm_mpi_comm_split_call(const char *call, MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    return tm_mpi_comm_split(call, comm, color, key, newcomm);
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    return tm_mpi_comm_split("MPI_Comm_split", comm, color, key, newcomm);
}
#pragma weak MPI_Comm_split = PMPI_Comm_split

/* The ranks of a host are threads of its one process and share its memory: MPI_COMM_TYPE_SHARED
 * is one color per host. */
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_split_type";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get_intra(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                  "invalid split_type %d (MPI_COMM_TYPE_SHARED or MPI_UNDEFINED)",
                                  split_type);
    if (info != MPI_INFO_NULL && (err = tm_mpi_info_check(r, info, call)) != MPI_SUCCESS)
        return err;
    int host;
    tm_p2p_net_procs(&host);
    return tm_mpi_comm_split(call, comm, split_type == MPI_UNDEFINED ? MPI_UNDEFINED : host, key,
                             newcomm);
}
#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type

/* ------------------------------------------------------------------ create, create_group */

/*
 * MPI_Comm_create_group: `leader` (a rank in comm) allocates the context id and sends it to the
 * other members of g (parent_rank: their ranks in comm) with `tag`; each member makes its view.
 */
static int tm_mpi_comm_create_from_leader(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                                          tm_mpi_group_t *g, const int *parent_rank, int leader,
                                          int tag, MPI_Comm *newcomm)
{
    tm_mpi_comm_t *nc, view;
    int rank = tm_mpi_group_rank_of(g, r->rt->world_rank);
    int id = -1;

    *newcomm = MPI_COMM_NULL;
    tm_mpi_comm_coll_view(&view, c);
    if (c->rank == leader) {
        id = tm_mpi_comm_context_alloc();
        for (int i = 0; i < g->size; i++)
            if (parent_rank[i] != leader &&
                tm_mpi_comm_send(r, &view, call, &id, sizeof(id), parent_rank[i], tag) < 0)
                return tm_mpi_comm_out_of_memory(r, c, call);
    } else if (tm_mpi_comm_recv(r, &view, call, &id, sizeof(id), leader, tag) < 0) {
        return tm_mpi_comm_out_of_memory(r, c, call);
    }
    if (id < 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_INTERN, "out of context ids");
    tm_mpi_group_retain(g);
    if (tm_mpi_comm_view_new(r, c, id, g, rank, &nc) < 0)
        return tm_mpi_comm_out_of_memory(r, c, call);
    *newcomm = nc->handle;
    return MPI_SUCCESS;
}

/* Collective over comm. Each member passes a group, the same as the other members of that group
 * pass, and disjoint from the others' (MPI 3.1, 6.4.2): each group becomes a communicator (on an
 * intercommunicator: a subgroup of each side, the intercommunicator between them, intercomm.c).
 * That is a split whose color is the parent rank of the group's first member and whose key is the
 * rank in the group. A rank outside its group gets MPI_COMM_NULL. */
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_create";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_group_t *g;
    int *parent_rank;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if ((err = tm_mpi_group_get(r, group, call, &g)) != MPI_SUCCESS)
        return err;
    if ((err = tm_mpi_comm_check_newcomm(r, c, call, newcomm)) != MPI_SUCCESS)
        return err;
    parent_rank = malloc((size_t)(g->size + 1) * sizeof(*parent_rank));
    if (parent_rank == NULL)
        return tm_mpi_comm_out_of_memory(r, c, call);
    err = tm_mpi_comm_check_subgroup(r, c, call, g, parent_rank);
    if (err == MPI_SUCCESS && tm_mpi_comm_is_inter(c)) {
        free(parent_rank);
        return tm_mpi_intercomm_create_sub(r, c, call, g, newcomm);
    }
    int key = tm_mpi_group_rank_of(g, r->rt->world_rank);
    int color = key == MPI_UNDEFINED ? MPI_UNDEFINED : parent_rank[0];
    free(parent_rank);
    if (err != MPI_SUCCESS)
        return err;
    if ((err = tm_mpi_comm_split(call, comm, color, key, newcomm)) != MPI_SUCCESS ||
        *newcomm == MPI_COMM_NULL)
        return err;
    /* Groups that overlap without being the same (an erroneous program) make communicators
     * that are not the caller's group: say so. */
    tm_mpi_comm_t *nc;
    if (tm_mpi_comm_get(r, *newcomm, call, &nc) == MPI_SUCCESS &&
        tm_mpi_group_compare(nc->group, g) != MPI_IDENT) {
        tm_mpi_comm_view_free(r, nc);
        *newcomm = MPI_COMM_NULL;
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_GROUP,
                                  "the group overlaps another member's group without being "
                                  "the same");
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_create = PMPI_Comm_create

/* Collective over the members of group only; the leader is the group's rank 0. */
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Comm_create_group";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_group_t *g;
    int *parent_rank;
    int err = tm_mpi_comm_get_intra(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if ((err = tm_mpi_group_get(r, group, call, &g)) != MPI_SUCCESS)
        return err;
    if (tag < 0 || tag > TM_MPI_TAG_UB)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_TAG,
                                  "invalid tag %d (tags go from 0 to MPI_TAG_UB = %d)", tag,
                                  TM_MPI_TAG_UB);
    if ((err = tm_mpi_comm_check_newcomm(r, c, call, newcomm)) != MPI_SUCCESS)
        return err;
    if (tm_mpi_group_rank_of(g, r->rt->world_rank) == MPI_UNDEFINED)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_GROUP,
                                  "the calling rank is not a member of the group");
    parent_rank = malloc((size_t)g->size * sizeof(*parent_rank));
    if (parent_rank == NULL)
        return tm_mpi_comm_out_of_memory(r, c, call);
    err = tm_mpi_comm_check_subgroup(r, c, call, g, parent_rank);
    if (err == MPI_SUCCESS)
        err = tm_mpi_comm_create_from_leader(r, c, call, g, parent_rank, parent_rank[0], tag,
                                             newcomm);
    free(parent_rank);
    return err;
}
#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group

/* ------------------------------------------------------------------ free, info */

/* Local: the other members keep their views. Requests still pending on the communicator must
 * be completed before it is freed (ThreadMPI does not defer the free). */
/* The view *comm of MPI_Comm_free and MPI_Comm_disconnect, checked: MPI_SUCCESS and *c_p, or
 * the error reported. */
static int comm_to_free(tm_mpi_rank_t *r, MPI_Comm *comm, const char *call, tm_mpi_comm_t **c_p)
{
    if (comm == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "comm is NULL");
    int err = tm_mpi_comm_get(r, *comm, call, c_p);
    if (err == MPI_SUCCESS && (*c_p == &r->world || *c_p == &r->self))
        return tm_mpi_error_raise(r->rt, *c_p, call, MPI_ERR_COMM, "%s cannot be freed",
                                  (*c_p)->name);
    return err;
}

/* Frees view c of *comm: its attributes' delete callbacks, then the view. */
static int comm_free(tm_mpi_rank_t *r, tm_mpi_comm_t *c, MPI_Comm *comm, const char *call)
{
    int err = tm_mpi_attr_delete_all(c);
    if (err != MPI_SUCCESS)
        return tm_mpi_error_raise(r->rt, c, call,
                                  err > 0 && tm_mpi_error_class_name(err) ? err : MPI_ERR_OTHER,
                                  "an attribute delete callback returned %d", err);
    err = tm_coll_check_final(r, c, call); /* a collective mismatch not reported yet */
    tm_mpi_comm_view_free(r, c);
    *comm = MPI_COMM_NULL;
    return err;
}

int PMPI_Comm_free(MPI_Comm *comm)
{
    static const char call[] = "MPI_Comm_free";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = comm_to_free(r, comm, call, &c);
    return err == MPI_SUCCESS ? comm_free(r, c, comm, call) : err;
}
#pragma weak MPI_Comm_free = PMPI_Comm_free

/* Without processes to disconnect from (every rank is in the job from the start), what remains
 * of MPI_Comm_disconnect (MPI 3.1 section 10.5.4) is MPI_Comm_free once the communication on the
 * communicator is over: the requests on it that this rank freed while pending complete, then
 * the members meet in a barrier (so no view goes while a member still sends to it). */
int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    static const char call[] = "MPI_Comm_disconnect";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = comm_to_free(r, comm, call, &c);
    if (err != MPI_SUCCESS)
        return err;
    tm_p2p_request_zombies_wait_comm(r, c);
    err = tm_mpi_comm_is_inter(c)
              ? tm_mpi_coll_inter_barrier(r, c, call, NULL, TM_MPI_COLL_BLOCKING)
              : tm_coll_barrier(r, c, call, NULL);
    if (err != MPI_SUCCESS)
        return err;
    return comm_free(r, c, comm, call);
}
#pragma weak MPI_Comm_disconnect = PMPI_Comm_disconnect

/* ThreadMPI takes no hints: the info is checked and ignored. */
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    static const char call[] = "MPI_Comm_set_info";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    return tm_mpi_info_check(r, info, call);
}
#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info

/* No hint is in use: a new, empty info object. */
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    static const char call[] = "MPI_Comm_get_info";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (info_used == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "info_used is NULL");
    return PMPI_Info_create(info_used);
}
#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info
