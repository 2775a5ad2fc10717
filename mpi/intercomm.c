/*
 * Intercommunicators (MPI 3.1, 6.6): MPI_Intercomm_create, MPI_Intercomm_merge,
 * MPI_Comm_remote_size (MPI_Comm_remote_group: group.c), and MPI_Comm_create and MPI_Comm_split
 * of one.
 *
 * A member's view of an intercommunicator has its own group as members (rank, size,
 * MPI_Comm_group) and the other group as the peers that point-to-point calls name
 * (tm_mpi_comm_peers, obj.h). Both groups share one context id: a message on it goes from one
 * group to the other only, and its source is the sender's rank in its own group, which is the
 * receiver's remote group. Collectives, topologies and the constructors other than
 * MPI_Comm_dup, MPI_Comm_idup and MPI_Intercomm_merge refuse intercommunicators (MPI_ERR_COMM,
 * tm_mpi_comm_get_intra).
 *
 * MPI_Intercomm_create: the two leaders swap their groups (as world ranks) over peer_comm with
 * the program's tag; the leader of the lower world rank allocates the context id. Each leader
 * then hands the remote group and the id to its members over local_comm's collective context.
 * MPI_Intercomm_merge: each member tells the other group's first member its `high`, which
 * answers with its own group's; the group with high false (on a tie, the one whose first member
 * has the lower world rank) comes first. The new context id is agreed through memory
 * (tm_mpi_comm_agree_context), as MPI_Comm_dup of an intercommunicator does.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"
#include "obj/group.h"
#include "p2p/p2p.h"

static int out_of_memory(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call)
{
    return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
}

static bool request_done(void *arg)
{
    return tm_p2p_request_is_complete(arg);
}

/* Waits for the n requests of reqs (NULL ones skipped) and releases them. */
static void wait_all(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, tm_p2p_request_t **reqs,
                     int n)
{
    for (int i = 0; i < n; i++) {
        if (!reqs[i])
            continue;
        if (!tm_p2p_request_is_complete(reqs[i])) {
            tm_p2p_note_blocked(r, "%s(comm=%s): waiting for the remote group", call, c->name);
            tm_p2p_wait_until(r, request_done, reqs[i]);
        }
        tm_p2p_request_release(r, reqs[i]);
    }
}

/* The leaders' swap over peer comm p with the program's tag: sends `bytes` of out to `peer` and
 * receives `bytes_in` into in, both at once (two leaders sending large groups first would
 * otherwise wait for each other). 0 or -ENOMEM. */
static int leaders_swap(tm_mpi_rank_t *r, tm_mpi_comm_t *p, const char *call, const void *out,
                        size_t bytes, void *in, size_t bytes_in, int peer, int tag)
{
    tm_mpi_type_t *byte;
    tm_mpi_type_lookup(MPI_BYTE, &byte);
    tm_p2p_request_t *sreq, *rreq;
    if (tm_p2p_irecv(r, in, bytes_in, byte, peer, tag, p, &rreq) < 0)
        return -1;
    if (tm_p2p_isend(r, out, bytes, byte, bytes, peer, tag, p, false, &sreq) < 0) {
        tm_p2p_cancel_recv(r, rreq);
        tm_p2p_request_release(r, rreq);
        return -1;
    }
    sreq->call = rreq->call = call;
    tm_p2p_request_t *reqs[2] = {rreq, sreq};
    for (int i = 0; i < 2; i++) {
        if (!tm_p2p_request_is_complete(reqs[i])) {
            tm_p2p_note_blocked(r, "%s(peer_comm=%s): exchanging the groups with rank %d", call,
                                p->name, peer);
            tm_p2p_wait_until(r, request_done, reqs[i]);
        }
        tm_p2p_request_release(r, reqs[i]);
    }
    return 0;
}

/* What a leader tells its members: the remote group's size and the context id, then the group. */
typedef struct header {
    int size;
    int context_id;
} header_t;

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    static const char call[] = "MPI_Intercomm_create";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c, *p = NULL, view;
    int err = tm_mpi_comm_get_intra(r, local_comm, call, &c);
    if (err != MPI_SUCCESS)
        return err;
    if (newintercomm == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "newintercomm is NULL");
    if (local_leader < 0 || local_leader >= c->size)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_RANK,
                                  "invalid local_leader %d in %s of size %d", local_leader, c->name,
                                  c->size);
    if (tag < 0 || tag > TM_MPI_TAG_UB)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_TAG,
                                  "invalid tag %d (tags go from 0 to MPI_TAG_UB = %d)", tag,
                                  TM_MPI_TAG_UB);
    bool leader = c->rank == local_leader;
    /* peer_comm and remote_leader matter at the leaders only (MPI 3.1, 6.6.2). */
    if (leader) {
        if ((err = tm_mpi_comm_get_intra(r, peer_comm, call, &p)) != MPI_SUCCESS)
            return err;
        if (remote_leader < 0 || remote_leader >= p->size || remote_leader == p->rank)
            return tm_mpi_error_raise(r->rt, p, call, MPI_ERR_RANK,
                                      "invalid remote_leader %d in peer_comm %s of size %d, "
                                      "where the local leader is rank %d",
                                      remote_leader, p->name, p->size, p->rank);
    }
    header_t h = {0, -1};
    int *remote_ranks = NULL;
    tm_mpi_comm_coll_view(&view, c);
    if (leader) {
        int peer_world = tm_mpi_group_world_rank(p->group, remote_leader);
        header_t mine = {c->size,
                         r->rt->world_rank < peer_world ? tm_mpi_comm_context_alloc() : -1};
        if (leaders_swap(r, p, call, &mine, sizeof mine, &h, sizeof h, remote_leader, tag) < 0)
            return out_of_memory(r, c, call);
        if (mine.context_id >= 0 || h.context_id < 0)
            h.context_id = mine.context_id;
        remote_ranks = malloc((size_t)h.size * sizeof *remote_ranks);
        if (!remote_ranks ||
            leaders_swap(r, p, call, c->group->world_ranks, (size_t)c->size * sizeof(int),
                         remote_ranks, (size_t)h.size * sizeof(int), remote_leader, tag) < 0) {
            free(remote_ranks);
            return out_of_memory(r, c, call);
        }
        for (int i = 0; i < c->size; i++)
            if (i != c->rank &&
                (tm_mpi_comm_send(r, &view, call, &h, sizeof h, i, TM_MPI_TAG_INTERCOMM) < 0 ||
                 tm_mpi_comm_send(r, &view, call, remote_ranks, (size_t)h.size * sizeof(int), i,
                                  TM_MPI_TAG_INTERCOMM) < 0)) {
                free(remote_ranks);
                return out_of_memory(r, c, call);
            }
    } else {
        if (tm_mpi_comm_recv(r, &view, call, &h, sizeof h, local_leader, TM_MPI_TAG_INTERCOMM) <
                0 ||
            !(remote_ranks = malloc((size_t)h.size * sizeof *remote_ranks)) ||
            tm_mpi_comm_recv(r, &view, call, remote_ranks, (size_t)h.size * sizeof(int),
                             local_leader, TM_MPI_TAG_INTERCOMM) < 0) {
            free(remote_ranks);
            return out_of_memory(r, c, call);
        }
    }
    for (int i = 0; i < h.size; i++)
        if (tm_mpi_group_rank_of(c->group, remote_ranks[i]) != MPI_UNDEFINED) {
            free(remote_ranks);
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COMM,
                                      "the groups overlap: rank %d of MPI_COMM_WORLD is in both",
                                      remote_ranks[i]);
        }
    if (h.context_id < 0) {
        free(remote_ranks);
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_INTERN, "out of context ids");
    }
    tm_mpi_group_t *remote = tm_mpi_group_create(h.size);
    if (remote)
        memcpy(remote->world_ranks, remote_ranks, (size_t)h.size * sizeof(int));
    free(remote_ranks);
    tm_mpi_comm_t *nc;
    if (!remote)
        return out_of_memory(r, c, call);
    tm_mpi_group_retain(c->group);
    if (tm_mpi_comm_view_new(r, c, h.context_id, c->group, c->rank, &nc) < 0) {
        tm_mpi_group_release(remote);
        return out_of_memory(r, c, call);
    }
    nc->remote = remote;
    *newintercomm = nc->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create

/* An intercommunicator for `call`, else MPI_ERR_COMM. */
static int inter_get(tm_mpi_rank_t *r, MPI_Comm comm, const char *call, tm_mpi_comm_t **c_p)
{
    int err = tm_mpi_comm_get(r, comm, call, c_p);
    if (err == MPI_SUCCESS && !tm_mpi_comm_is_inter(*c_p))
        err = tm_mpi_error_raise(r->rt, *c_p, call, MPI_ERR_COMM, "%s is not an intercommunicator",
                                 (*c_p)->name);
    return err;
}

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    static const char call[] = "MPI_Intercomm_merge";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c, view;
    int err = inter_get(r, intercomm, call, &c);
    if (err != MPI_SUCCESS)
        return err;
    if (newintracomm == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "newintracomm is NULL");
    if ((err = tm_mpi_comm_refuse_hosts(r, c, call)) != MPI_SUCCESS)
        return err;
    /* Over the collective context: the remote group's rank 0 hears each member's high and answers
     * each with two: its own group's high and the one this group's rank 0 passed, which every
     * member then takes as its group's (as MPICH does): a group whose members disagree, an
     * erroneous program, still gets one order on all its members. */
    int mine = high != 0, answer[2] = {0, 0};
    tm_mpi_comm_coll_view(&view, c);
    tm_mpi_type_t *byte;
    tm_mpi_type_lookup(MPI_BYTE, &byte);
    /* Each receive is posted before the sends it could hold up (rendezvous: a send waits for its
     * receive); the leader's answer comes after the remote leader's own high, so it is posted
     * after those are in. */
    tm_p2p_request_t *reqs[2] = {NULL, NULL};
    bool failed = tm_p2p_isend(r, &mine, sizeof mine, byte, sizeof mine, 0, TM_MPI_TAG_INTERCOMM,
                               &view, false, &reqs[0]) < 0;
    int told[2] = {mine, 0}; /* what the leader answers: its high, the remote rank 0's */
    for (int i = 0; !failed && c->rank == 0 && i < c->remote->size; i++) {
        int heard = 0;
        failed =
            tm_mpi_comm_recv(r, &view, call, &heard, sizeof heard, i, TM_MPI_TAG_INTERCOMM) < 0;
        if (i == 0)
            told[1] = heard;
    }
    if (!failed)
        failed = tm_p2p_irecv(r, answer, sizeof answer, byte, 0, TM_MPI_TAG_INTERCOMM, &view,
                              &reqs[1]) < 0;
    for (int i = 0; !failed && c->rank == 0 && i < c->remote->size; i++)
        failed = tm_mpi_comm_send(r, &view, call, told, sizeof told, i, TM_MPI_TAG_INTERCOMM) < 0;
    wait_all(r, c, call, reqs, 2);
    if (failed)
        return out_of_memory(r, c, call);
    int theirs = answer[0];
    mine = answer[1];
    bool first = mine != theirs
                     ? !mine
                     : tm_mpi_group_world_rank(c->group, 0) < tm_mpi_group_world_rank(c->remote, 0);
    const tm_mpi_group_t *a = first ? c->group : c->remote, *b = first ? c->remote : c->group;
    tm_mpi_group_t *g = tm_mpi_group_create(a->size + b->size);
    int id;
    if (!g || tm_mpi_comm_agree_context(c, &id) < 0) {
        tm_mpi_group_release(g);
        return out_of_memory(r, c, call);
    }
    memcpy(g->world_ranks, a->world_ranks, (size_t)a->size * sizeof(int));
    memcpy(g->world_ranks + a->size, b->world_ranks, (size_t)b->size * sizeof(int));
    if (id < 0) {
        tm_mpi_group_release(g);
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_INTERN, "out of context ids");
    }
    tm_mpi_comm_t *nc;
    if (tm_mpi_comm_view_new(r, c, id, g, (first ? 0 : a->size) + c->rank, &nc) < 0)
        return out_of_memory(r, c, call);
    *newintracomm = nc->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    static const char call[] = "MPI_Comm_remote_size";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = inter_get(r, comm, call, &c);
    if (err != MPI_SUCCESS)
        return err;
    if (size == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "size is NULL");
    *size = c->remote->size;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size

int tm_mpi_intercomm_create_sub(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                                tm_mpi_group_t *g, MPI_Comm *newcomm)
{
    /* The leader of the lower world rank allocates the context id and tells the other one; each
     * leader sends every remote member its group's part, which every member receives into room
     * for the whole remote group, all receives posted first: no send waits for another. */
    int remote = c->remote->size, nreqs = 0;
    bool leader = c->rank == 0;
    bool allocates = tm_mpi_group_world_rank(c->group, 0) < tm_mpi_group_world_rank(c->remote, 0);
    header_t mine = {g->size, -1}, theirs = {0, -1};
    int id = -1, *ranks = malloc(((size_t)remote + 1) * sizeof *ranks);
    tm_p2p_request_t **reqs = malloc(((size_t)remote * 2 + 4) * sizeof *reqs);
    tm_mpi_comm_t view;
    tm_mpi_type_t *byte;
    tm_mpi_type_lookup(MPI_BYTE, &byte);
    tm_mpi_comm_coll_view(&view, c);
    bool failed = !ranks || !reqs;
    if (!failed && leader && !allocates)
        failed |= tm_p2p_irecv(r, &id, sizeof id, byte, 0, TM_MPI_TAG_INTERCOMM, &view,
                               &reqs[nreqs++]) < 0;
    if (!failed)
        failed |= tm_p2p_irecv(r, &theirs, sizeof theirs, byte, 0, TM_MPI_TAG_INTERCOMM, &view,
                               &reqs[nreqs++]) < 0 ||
                  tm_p2p_irecv(r, ranks, (size_t)remote * sizeof(int), byte, 0,
                               TM_MPI_TAG_INTERCOMM, &view, &reqs[nreqs++]) < 0;
    if (!failed && leader) {
        if (allocates) {
            id = tm_mpi_comm_context_alloc();
            failed |= tm_p2p_isend(r, &id, sizeof id, byte, sizeof id, 0, TM_MPI_TAG_INTERCOMM,
                                   &view, false, &reqs[nreqs++]) < 0;
        } else {
            /* the id must be there before it goes on */
            wait_all(r, c, call, reqs, 1);
            reqs[0] = NULL;
        }
        mine.context_id = id;
        for (int j = 0; !failed && j < remote; j++)
            failed |= tm_p2p_isend(r, &mine, sizeof mine, byte, sizeof mine, j,
                                   TM_MPI_TAG_INTERCOMM, &view, false, &reqs[nreqs++]) < 0 ||
                      tm_p2p_isend(r, g->world_ranks, (size_t)g->size * sizeof(int), byte,
                                   (size_t)g->size * sizeof(int), j, TM_MPI_TAG_INTERCOMM, &view,
                                   false, &reqs[nreqs++]) < 0;
    }
    if (reqs)
        wait_all(r, c, call, reqs, nreqs); /* what was posted, even after a failure */
    free(reqs);
    *newcomm = MPI_COMM_NULL;
    int rank = tm_mpi_group_rank_of(g, r->rt->world_rank);
    tm_mpi_group_t *rg = NULL;
    if (failed || (rank != MPI_UNDEFINED && theirs.size > 0 && g->size > 0 &&
                   !(rg = tm_mpi_group_create(theirs.size)))) {
        free(ranks);
        return out_of_memory(r, c, call);
    }
    if (!rg) { /* not a member, or an empty side */
        free(ranks);
        return MPI_SUCCESS;
    }
    memcpy(rg->world_ranks, ranks, (size_t)theirs.size * sizeof(int));
    free(ranks);
    if (theirs.context_id < 0) {
        tm_mpi_group_release(rg);
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_INTERN, "out of context ids");
    }
    tm_mpi_comm_t *nc;
    tm_mpi_group_retain(g);
    if (tm_mpi_comm_view_new(r, c, theirs.context_id, g, rank, &nc) < 0) {
        tm_mpi_group_release(rg);
        return out_of_memory(r, c, call);
    }
    nc->remote = rg;
    *newcomm = nc->handle;
    return MPI_SUCCESS;
}

/* Of n (color, key) pairs, the members of `color` in new-rank order (by key, then rank): their
 * ranks into order[], their number returned. */
static int color_members(const int *pairs, int n, int color, int *order)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (pairs[2 * i] != color)
            continue;
        int at = m++;
        while (at > 0 && pairs[2 * order[at - 1] + 1] > pairs[2 * i + 1]) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = i;
    }
    return m;
}

/* The colors (not MPI_UNDEFINED) that both sides have, ascending, into common[]; their number. */
static int common_colors(const int *a, int na, const int *b, int nb, int *common)
{
    int k = 0;
    for (int i = 0; i < na; i++) {
        int color = a[2 * i], dup = 0, there = 0;
        if (color == MPI_UNDEFINED)
            continue;
        for (int j = 0; j < k && !dup; j++)
            dup = common[j] == color;
        for (int j = 0; j < nb && !there; j++)
            there = b[2 * j] == color;
        if (dup || !there)
            continue;
        int at = k++;
        while (at > 0 && common[at - 1] > color) {
            common[at] = common[at - 1];
            at--;
        }
        common[at] = color;
    }
    return k;
}

int tm_mpi_intercomm_split(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, int color, int key,
                           MPI_Comm *newcomm)
{
    /* Every member tells the remote rank 0 its (color, key); the leaders swap what they heard,
     * so that each knows both sides; the leader of the lower world rank allocates a context id
     * per color both sides have and tells the other; each leader then sends every remote member
     * both sides' pairs and the ids, and every member makes its part. Receives are posted before
     * the sends they could hold up. */
    int local = c->size, remote = c->remote->size, most = local < remote ? local : remote;
    bool leader = c->rank == 0;
    bool allocates = tm_mpi_group_world_rank(c->group, 0) < tm_mpi_group_world_rank(c->remote, 0);
    size_t msg_ints = 2 * (size_t)(local + remote) + 1 + (size_t)most;
    int mine[2] = {color, key}, *msg = malloc(msg_ints * sizeof(int));
    /* the leader's: the remote pairs it heard, its own side's from the other leader, the ids */
    int *heard = malloc((2 * (size_t)remote + 1) * sizeof(int));
    int *own = malloc((2 * (size_t)local + 1) * sizeof(int));
    int *ids = malloc(((size_t)most + 1) * sizeof(int)), *out = malloc(msg_ints * sizeof(int));
    tm_p2p_request_t **reqs = malloc(((size_t)remote + 6) * sizeof *reqs);
    int nreqs = 0, nids = 0;
    tm_mpi_comm_t view;
    tm_mpi_type_t *byte;
    tm_mpi_type_lookup(MPI_BYTE, &byte);
    tm_mpi_comm_coll_view(&view, c);
    bool failed = !msg || !heard || !own || !ids || !out || !reqs;
    failed = failed || tm_p2p_isend(r, mine, sizeof mine, byte, sizeof mine, 0,
                                    TM_MPI_TAG_INTERCOMM, &view, false, &reqs[nreqs++]) < 0;
    if (!failed && leader) {
        for (int j = 0; !failed && j < remote; j++)
            failed = tm_mpi_comm_recv(r, &view, call, heard + 2 * j, 2 * sizeof(int), j,
                                      TM_MPI_TAG_INTERCOMM) < 0;
        tm_p2p_request_t *swap[2] = {NULL, NULL};
        failed = failed ||
                 tm_p2p_irecv(r, own, 2 * (size_t)local * sizeof(int), byte, 0,
                              TM_MPI_TAG_INTERCOMM, &view, &swap[0]) < 0 ||
                 tm_p2p_isend(r, heard, 2 * (size_t)remote * sizeof(int), byte,
                              2 * (size_t)remote * sizeof(int), 0, TM_MPI_TAG_INTERCOMM, &view,
                              false, &swap[1]) < 0;
        wait_all(r, c, call, swap, 2);
        if (!failed) {
            nids = common_colors(own, local, heard, remote, ids);
            if (allocates) {
                for (int k = 0; k < nids; k++)
                    ids[k] = tm_mpi_comm_context_alloc();
                failed =
                    nids > 0 && tm_mpi_comm_send(r, &view, call, ids, (size_t)nids * sizeof(int), 0,
                                                 TM_MPI_TAG_INTERCOMM) < 0;
            } else if (nids > 0) {
                failed = tm_mpi_comm_recv(r, &view, call, ids, (size_t)nids * sizeof(int), 0,
                                          TM_MPI_TAG_INTERCOMM) < 0;
            }
        }
    }
    /* what the remote leader sends each member: its side's pairs, this side's, the ids */
    failed = failed || tm_p2p_irecv(r, msg, msg_ints * sizeof(int), byte, 0, TM_MPI_TAG_INTERCOMM,
                                    &view, &reqs[nreqs++]) < 0;
    if (!failed && leader) {
        memcpy(out, own, 2 * (size_t)local * sizeof(int));
        memcpy(out + 2 * local, heard, 2 * (size_t)remote * sizeof(int));
        out[2 * (local + remote)] = nids;
        memcpy(out + 2 * (local + remote) + 1, ids, (size_t)nids * sizeof(int));
        for (int j = 0; !failed && j < remote; j++)
            failed = tm_p2p_isend(r, out, msg_ints * sizeof(int), byte, msg_ints * sizeof(int), j,
                                  TM_MPI_TAG_INTERCOMM, &view, false, &reqs[nreqs++]) < 0;
    }
    if (reqs)
        wait_all(r, c, call, reqs, nreqs);
    free(reqs);
    free(heard);
    free(own);
    free(ids);
    free(out);
    *newcomm = MPI_COMM_NULL;
    if (failed) {
        free(msg);
        return out_of_memory(r, c, call);
    }
    /* msg: the remote side's pairs (remote of them), this side's (local), the ids */
    const int *theirs = msg, *ours = msg + 2 * remote, *idlist = msg + 2 * (local + remote) + 1;
    int ncommon = msg[2 * (local + remote)], common[most + 1], slot = -1;
    common_colors(ours, local, theirs, remote, common);
    for (int k = 0; k < ncommon && color != MPI_UNDEFINED; k++)
        if (common[k] == color)
            slot = k;
    if (slot < 0) {
        free(msg);
        return MPI_SUCCESS;
    }
    int *order = malloc(((size_t)(local > remote ? local : remote) + 1) * sizeof *order);
    tm_mpi_group_t *lg = NULL, *rg = NULL;
    int nl = 0, nr = 0, me = -1;
    if (order) {
        nl = color_members(ours, local, color, order);
        if ((lg = tm_mpi_group_create(nl)))
            for (int i = 0; i < nl; i++) {
                lg->world_ranks[i] = tm_mpi_group_world_rank(c->group, order[i]);
                if (order[i] == c->rank)
                    me = i;
            }
        nr = color_members(theirs, remote, color, order);
        if ((rg = tm_mpi_group_create(nr)))
            for (int i = 0; i < nr; i++)
                rg->world_ranks[i] = tm_mpi_group_world_rank(c->remote, order[i]);
    }
    int id = idlist[slot];
    free(order);
    free(msg);
    if (!lg || !rg) {
        tm_mpi_group_release(lg);
        tm_mpi_group_release(rg);
        return out_of_memory(r, c, call);
    }
    if (id < 0) {
        tm_mpi_group_release(lg);
        tm_mpi_group_release(rg);
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_INTERN, "out of context ids");
    }
    tm_mpi_comm_t *nc;
    if (tm_mpi_comm_view_new(r, c, id, lg, me, &nc) < 0) {
        tm_mpi_group_release(rg);
        return out_of_memory(r, c, call);
    }
    nc->remote = rg;
    *newcomm = nc->handle;
    return MPI_SUCCESS;
}
