/*
 * Building schedules: the verbs a collective algorithm uses to write down its rank's part
 * (send, recv, op, copy, poll, barrier), and starting them (see nbc.h).
 *
 * The builder never fails midway for its caller: an allocation failure sticks to the schedule
 * and tm_nbc_sched_start reports it before anything is sent, so algorithms are written without
 * an error check per action.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "obj/group.h"
#include "sched.h"

/* What a rank's spare schedule keeps for its next collective: its arrays grown up to these
 * capacities, and its scratch up to this size; then a collective that runs again and again
 * allocates nothing (an 8-byte ibarrier took about 290 instructions of malloc and free). */
#define SPARE_CAP_MAX       64
#define SPARE_SCRATCH_BYTES ((size_t)4 << 20)

tm_nbc_sched_t *tm_nbc_sched_create(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, size_t scratch)
{
    tm_nbc_sched_t *s = r->nbc ? tm_nbc_engine_spare_take(r->nbc) : NULL;
    if (!s) {
        if (!(s = malloc(sizeof *s)))
            return NULL;
        s->actions = s->actions_inline;
        s->actions_cap = TM_NBC_SCHED_INLINE;
        s->rounds = s->rounds_inline;
        s->rounds_cap = TM_NBC_SCHED_INLINE;
        s->scratch = NULL;
        s->scratch_bytes = 0;
    }
    /* 64-byte alignment: any type, and whole cache lines for the copies. */
    size_t bytes = (scratch + 63) & ~(size_t)63;
    if (bytes > s->scratch_bytes) {
        free(s->scratch);
        s->scratch_bytes = 0;
        if (!(s->scratch = aligned_alloc(64, bytes))) {
            tm_nbc_sched_free_memory(s);
            return NULL;
        }
        s->scratch_bytes = bytes;
    }
    /* The memory stays; the inline rooms are written before they are read. */
    memset(&s->owner, 0, offsetof(tm_nbc_sched_t, rounds_inline) - offsetof(tm_nbc_sched_t, owner));
    s->owner = r;
    s->group = tm_mpi_comm_peers(comm); /* an intercommunicator's: the remote group */
    tm_mpi_group_retain(s->group);
    s->context_id = comm->context_id;
    s->rank = comm->rank;
    s->tag = (int)((comm->coll_seq++ & 0xffffu) | ((unsigned)comm->coll_tag_sig & 0x7fffu) << 16);
    atomic_init(&s->round, -1);
    return s;
}

void tm_nbc_sched_abort_on(tm_nbc_sched_t *s, const _Atomic int *flag, void (*release)(void *arg),
                           void *arg)
{
    s->abort = flag;
    s->abort_release = release;
    s->abort_arg = arg;
}

void *tm_nbc_sched_scratch(tm_nbc_sched_t *s)
{
    return s->scratch;
}

/* Doubles the capacity *cap of array *items of `size`-byte elements, which starts in the
 * schedule (`inline_items`) and moves to the heap the first time. false when out of memory (the
 * array is then unchanged). */
static bool array_grow(void **items, void *inline_items, int *cap, size_t size)
{
    size_t bytes = 2 * (size_t)*cap * size;
    void *grown;
    if (*items == inline_items) {
        grown = malloc(bytes);
        if (grown)
            memcpy(grown, inline_items, (size_t)*cap * size);
    } else {
        grown = realloc(*items, bytes);
    }
    if (!grown)
        return false;
    *items = grown;
    *cap *= 2;
    return true;
}

/* The current round, made when needed. */
static tm_nbc_round_t *round_current(tm_nbc_sched_t *s)
{
    if (s->nrounds == 0) {
        s->rounds[0] = (tm_nbc_round_t){.end = 0, .where = TM_NBC_ANY};
        s->nrounds = 1;
    }
    return &s->rounds[s->nrounds - 1];
}

/* A new action at the end of the current round, or NULL (the error sticks). */
static tm_nbc_action_t *action_add(tm_nbc_sched_t *s, tm_nbc_action_kind_t kind)
{
    if (s->err)
        return NULL;
    tm_nbc_round_t *round = round_current(s);
    if (!round)
        return NULL;
    if (s->nactions == s->actions_cap &&
        !array_grow((void **)&s->actions, s->actions_inline, &s->actions_cap, sizeof *s->actions)) {
        s->err = -ENOMEM;
        return NULL;
    }
    tm_nbc_action_t *a = &s->actions[s->nactions++];
    memset(a, 0, offsetof(tm_nbc_action_t, req)); /* the request is set when its round starts */
    a->kind = kind;
    round->end = s->nactions;
    return a;
}

void tm_nbc_sched_send(tm_nbc_sched_t *s, const void *buf, size_t count, tm_mpi_type_t *type,
                       int peer)
{
    tm_nbc_action_t *a = action_add(s, TM_NBC_SEND);
    if (!a)
        return;
    tm_mpi_type_retain(type);
    a->send.buf = buf;
    a->send.count = count;
    a->send.type = type;
    a->send.peer = peer;
}

void tm_nbc_sched_recv(tm_nbc_sched_t *s, void *buf, size_t count, tm_mpi_type_t *type, int peer)
{
    tm_nbc_action_t *a = action_add(s, TM_NBC_RECV);
    if (!a)
        return;
    tm_mpi_type_retain(type);
    a->recv.buf = buf;
    a->recv.count = count;
    a->recv.type = type;
    a->recv.peer = peer;
}

void tm_nbc_sched_poll(tm_nbc_sched_t *s, tm_nbc_ready_fn_t ready, void *obj, uint64_t target)
{
    tm_nbc_action_t *a = action_add(s, TM_NBC_POLL);
    if (!a)
        return;
    a->poll.ready = ready;
    a->poll.obj = obj;
    a->poll.target = target;
    a->poll.cursor = 0;
}

void tm_nbc_sched_poll_data(tm_nbc_sched_t *s, tm_nbc_ready_fn_t ready, void *obj, uint64_t target,
                            tm_mpi_type_t *type, tm_mpi_op_t *op)
{
    tm_nbc_sched_poll(s, ready, obj, target);
    if (s->err)
        return;
    tm_nbc_action_t *a = &s->actions[s->nactions - 1];
    if (type)
        tm_mpi_type_retain(type);
    if (op)
        tm_mpi_op_retain(op);
    a->poll.type = type;
    a->poll.op = op;
}

void tm_nbc_sched_fail(tm_nbc_sched_t *s, int err)
{
    if (s->status_error == MPI_SUCCESS)
        s->status_error = err;
}

void tm_nbc_sched_op(tm_nbc_sched_t *s, const void *in, void *inout, size_t count,
                     tm_mpi_type_t *type, tm_mpi_op_t *op)
{
    tm_nbc_action_t *a = action_add(s, TM_NBC_OP);
    if (!a)
        return;
    tm_mpi_type_retain(type);
    tm_mpi_op_retain(op);
    a->op.in = in;
    a->op.inout = inout;
    a->op.count = count;
    a->op.type = type;
    a->op.op = op;
}

void tm_nbc_sched_copy(tm_nbc_sched_t *s, const void *src, size_t scount, tm_mpi_type_t *stype,
                       void *dst, size_t dcount, tm_mpi_type_t *dtype)
{
    tm_nbc_action_t *a = action_add(s, TM_NBC_COPY);
    if (!a)
        return;
    tm_mpi_type_retain(stype);
    tm_mpi_type_retain(dtype);
    a->copy.src = src;
    a->copy.scount = scount;
    a->copy.stype = stype;
    a->copy.dst = dst;
    a->copy.dcount = dcount;
    a->copy.dtype = dtype;
}

void tm_nbc_sched_barrier(tm_nbc_sched_t *s, tm_nbc_where_t where)
{
    if (s->err)
        return;
    tm_nbc_round_t *round = round_current(s);
    if (!round)
        return;
    int start = s->nrounds > 1 ? s->rounds[s->nrounds - 2].end : 0;
    if (round->end == start) { /* empty: reuse it */
        round->where = where;
        return;
    }
    if (s->nrounds == s->rounds_cap &&
        !array_grow((void **)&s->rounds, s->rounds_inline, &s->rounds_cap, sizeof *s->rounds)) {
        s->err = -ENOMEM;
        return;
    }
    s->rounds[s->nrounds++] = (tm_nbc_round_t){.end = s->nactions, .where = where};
}

void tm_nbc_sched_where(tm_nbc_sched_t *s, tm_nbc_where_t where)
{
    tm_nbc_round_t *round = round_current(s);
    if (round)
        round->where = where;
}

void tm_nbc_sched_free(tm_nbc_sched_t *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nactions; i++) {
        tm_nbc_action_t *a = &s->actions[i];
        switch (a->kind) {
        case TM_NBC_SEND:
            tm_mpi_type_release(a->send.type);
            break;
        case TM_NBC_RECV:
            tm_mpi_type_release(a->recv.type);
            break;
        case TM_NBC_OP:
            tm_mpi_type_release(a->op.type);
            tm_mpi_op_release(a->op.op);
            break;
        case TM_NBC_COPY:
            tm_mpi_type_release(a->copy.stype);
            tm_mpi_type_release(a->copy.dtype);
            break;
        case TM_NBC_POLL:
            if (a->poll.type)
                tm_mpi_type_release(a->poll.type);
            if (a->poll.op)
                tm_mpi_op_release(a->poll.op);
            break;
        }
    }
    tm_mpi_group_release(s->group);
    if (s->abort_release)
        s->abort_release(s->abort_arg);
    /* Freed by its rank (a request released, a start failed): it may become the spare. */
    tm_nbc_engine_t *e = s->owner->nbc;
    if (e && s->actions_cap <= SPARE_CAP_MAX && s->rounds_cap <= SPARE_CAP_MAX &&
        s->scratch_bytes <= SPARE_SCRATCH_BYTES && tm_nbc_engine_spare_keep(e, s))
        return;
    tm_nbc_sched_free_memory(s);
}

void tm_nbc_sched_free_memory(tm_nbc_sched_t *s)
{
    if (!s)
        return;
    if (s->actions != s->actions_inline)
        free(s->actions);
    if (s->rounds != s->rounds_inline)
        free(s->rounds);
    free(s->scratch);
    free(s);
}

/* A collective request's release frees its schedule (tm_p2p_request_t's coll_free). */
static void sched_free_with_request(void *s)
{
    tm_nbc_sched_free(s);
}

/* The bytes an action moves or combines. */
static size_t action_bytes(const tm_nbc_action_t *a)
{
    switch (a->kind) {
    case TM_NBC_SEND:
        return a->send.count * a->send.type->size;
    case TM_NBC_RECV:
        return a->recv.count * a->recv.type->size;
    case TM_NBC_OP:
        return a->op.count * a->op.type->size;
    case TM_NBC_COPY:
        return a->copy.scount * a->copy.stype->size;
    case TM_NBC_POLL:
        break;
    }
    return 0;
}

int tm_nbc_sched_start(tm_mpi_rank_t *r, tm_nbc_sched_t *s, tm_p2p_request_t *req)
{
    if (s->err) {
        int err = s->err;
        tm_nbc_sched_free(s);
        return err;
    }
    /* A trailing empty round (a barrier at the end) has nothing to run. */
    if (s->nrounds > 0) {
        int start = s->nrounds > 1 ? s->rounds[s->nrounds - 2].end : 0;
        if (s->rounds[s->nrounds - 1].end == start)
            s->nrounds--;
    }
    req->coll = s;
    req->coll_free = sched_free_with_request;
    req->status.MPI_SOURCE = MPI_ANY_SOURCE;
    req->status.MPI_TAG = MPI_ANY_TAG;
    req->status.MPI_ERROR = MPI_SUCCESS;
    req->status.tm_count = 0;
    req->status.tm_cancelled = 0;
    s->req = req;
    atomic_store_explicit(&s->round, 0, memory_order_relaxed);
    if (s->nrounds == 0) { /* nothing to do (a collective over one rank) */
        atomic_store_explicit(&req->complete, 1, memory_order_relaxed);
        return 0;
    }
    bool background = false;
    size_t largest = 0; /* bytes of the largest action of a background round */
    for (int k = 0; k < s->nrounds; k++) {
        if (s->rounds[k].where != TM_NBC_ANY)
            continue;
        background = true;
        for (int i = k > 0 ? s->rounds[k - 1].end : 0; i < s->rounds[k].end; i++) {
            size_t bytes = action_bytes(&s->actions[i]);
            largest = bytes > largest ? bytes : largest;
        }
    }
    /* The rest of its RANK rounds runs in the rank's later MPI calls. */
    tm_nbc_engine_start(r, s, background, largest);
    return 0;
}
