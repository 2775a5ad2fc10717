/*
 * Flat collectives: the small blocking barrier, broadcast, reduce and allreduce through a block
 * of memory the members of a communicator share (the ranks are threads of one process).
 *
 * Each member copies its data into its slot of the block and arrives: one fetch-and-add on the
 * block's arrival counter. The member that arrives last does the whole collective's work at
 * once: it folds the slots together in rank order into the block's result (reduce, allreduce),
 * or copies the root's slot there (broadcast); then it opens the round (a release store of the
 * number of rounds done) and pokes the members that sleep. The others wait for the round like
 * any blocking call (progressing, yielding to the ranks of their core, then sleeping), then copy
 * the result out.
 *
 *   member k:  slot[k] := data; arrived += 1 ------------------------+
 *              the last (arrived = size * rounds):                  | every member
 *                result := slot[0] op ... op slot[size-1]; done := rounds; poke
 *              the others: wait until done = rounds                 |
 *              recvbuf := result  <--------------------------------+
 *
 * Reuse without a second synchronisation: a member writes its slot for round t + 1 only after
 * round t is open, and the last member read every slot before opening it. The result of round
 * t + 1 is written only when every member arrived at t + 1, so each has copied round t's out.
 *
 * Cost, p members and n bytes: p slot writes and p arrivals (one contended cache line), p - 1
 * folds of n bytes by one member, and a wake-up of each member that slept: no message, no
 * matching, and one switch of each rank's core instead of lg p. The message algorithms' rounds
 * each cost a message and, with several ranks per core, a switch to each receiver: on 16 ranks
 * on 2 cores an 8-byte allreduce took 20 us by recursive doubling. Only the last member computes,
 * and it wakes the others one by one: used up to TM_MPI_COLL_FLAT_RANKS members and
 * TM_MPI_COLL_FLAT_BYTES of data (coll.h).
 *
 * The block of a communicator is found through a registry keyed by its context id and the world
 * rank of its rank 0 (MPI_Comm_split gives disjoint groups one context id), made by the first
 * member that needs it, and freed when the last member's view of the communicator goes.
 */
#include "config.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "group.h"
#include "p2p.h"

typedef struct tm_mpi_coll_flat tm_mpi_coll_flat_t;

struct tm_mpi_coll_flat {
    int context_id, leader, size; /* the key: context id, world rank of rank 0; members */
    int refs;                     /* views that use it; under registry.lock */
    struct tm_mpi_coll_flat *next;
    alignas(TM_SHM_CACHE_LINE) _Atomic uint64_t arrived; /* arrivals, every round together */
    alignas(TM_SHM_CACHE_LINE) _Atomic uint64_t done;    /* rounds open */
    alignas(TM_SHM_CACHE_LINE) unsigned char result[TM_MPI_COLL_FLAT_BYTES];
    /* size slots of TM_MPI_COLL_FLAT_BYTES, each on lines of its own */
    alignas(TM_SHM_CACHE_LINE) unsigned char slots[];
};

_Static_assert(TM_MPI_COLL_FLAT_BYTES % TM_SHM_CACHE_LINE == 0, "slots fill whole lines");

static struct {
    pthread_mutex_t lock;
    tm_mpi_coll_flat_t *head;
} registry = {PTHREAD_MUTEX_INITIALIZER, NULL};

/* c's block, made by its first member that needs it. Out of memory ends the job: the members
 * must all take the flat path once they chose it. */
static tm_mpi_coll_flat_t *flat_get(tm_mpi_rank_t *r, tm_mpi_comm_t *c)
{
    if (c->flat)
        return c->flat;
    int leader = c->group->world_ranks[0];
    pthread_mutex_lock(&registry.lock);
    tm_mpi_coll_flat_t *f = registry.head;
    while (f && (f->context_id != c->context_id || f->leader != leader))
        f = f->next;
    if (!f) {
        size_t bytes = sizeof *f + (size_t)c->size * TM_MPI_COLL_FLAT_BYTES;
        if (!(f = aligned_alloc(TM_SHM_CACHE_LINE, bytes))) {
            pthread_mutex_unlock(&registry.lock);
            tm_rt_job_abort(r->rt->world_rank, MPI_ERR_NO_MEM,
                            "out of memory making the shared block of a communicator's "
                            "collectives");
        }
        memset(f, 0, sizeof *f);
        f->context_id = c->context_id;
        f->leader = leader;
        f->size = c->size;
        atomic_init(&f->arrived, 0);
        atomic_init(&f->done, 0);
        f->next = registry.head;
        registry.head = f;
    }
    f->refs++;
    pthread_mutex_unlock(&registry.lock);
    c->flat = f;
    return f;
}

void tm_mpi_coll_flat_release(tm_mpi_comm_t *c)
{
    tm_mpi_coll_flat_t *f = c->flat;
    if (!f)
        return;
    c->flat = NULL;
    pthread_mutex_lock(&registry.lock);
    bool last = --f->refs == 0;
    if (last) {
        tm_mpi_coll_flat_t **link = &registry.head;
        while (*link != f)
            link = &(*link)->next;
        *link = f->next;
    }
    pthread_mutex_unlock(&registry.lock);
    if (last)
        free(f);
}

static unsigned char *flat_slot(tm_mpi_coll_flat_t *f, int rank)
{
    return f->slots + (size_t)rank * TM_MPI_COLL_FLAT_BYTES;
}

/* What the last member does for the round: the result from the slots. */
typedef enum flat_kind { FLAT_BARRIER, FLAT_BCAST, FLAT_REDUCE } flat_kind_t;

typedef struct flat_round {
    tm_mpi_coll_flat_t *f;
    uint64_t round; /* its number, from 1 */
    const char *call;
    tm_mpi_comm_t *comm;
} flat_round_t;

static bool flat_open(void *arg)
{
    const flat_round_t *w = arg;
    /* acquire: pairs with the last member's release; its result is visible */
    return atomic_load_explicit(&w->f->done, memory_order_acquire) >= w->round;
}

static void flat_note(void *arg, tm_mpi_blocked_note_t *out)
{
    const flat_round_t *w = arg;
    tm_mpi_request_t described = {.kind = TM_MPI_REQ_COLL, .call = w->call, .comm = w->comm};
    tm_mpi_request_blocked_note(&described, out);
}

/* Arrives at the round after the member's slot is written; the last member computes `kind`'s
 * result, opens the round and wakes the others, who wait for it. */
static void flat_round(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, flat_kind_t kind,
                       size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op, int root)
{
    tm_mpi_coll_flat_t *f = c->flat;
    uint64_t round = ++c->flat_rounds;
    /* acq_rel: each member's slot before its arrival; the last sees every slot (the arrivals
     * are one release sequence on the counter). */
    uint64_t before = atomic_fetch_add_explicit(&f->arrived, 1, memory_order_acq_rel);
    if (before + 1 == round * (uint64_t)c->size) {
        size_t bytes = type ? count * type->size : count; /* a broadcast's count is bytes */
        if (kind == FLAT_BCAST) {
            memcpy(f->result, flat_slot(f, root), bytes);
        } else if (kind == FLAT_REDUCE && bytes > 0) {
            /* In rank order, for operations that do not commute: slot[k] op (the rest). */
            memcpy(f->result, flat_slot(f, c->size - 1), bytes);
            for (int k = c->size - 2; k >= 0; k--)
                tm_mpi_op_apply(op, flat_slot(f, k), f->result, count, type);
        }
        /* release: the result before the round opens */
        atomic_store_explicit(&f->done, round, memory_order_release);
        for (int k = 0; k < c->size; k++)
            if (k != c->rank)
                tm_mpi_mailbox_poke_rank(tm_mpi_mailbox_get(c->group->world_ranks[k], false));
        return;
    }
    flat_round_t w = {f, round, call, c};
    if (!flat_open(&w))
        tm_mpi_p2p_wait_noted(r, flat_open, &w, flat_note, &w);
}

bool tm_mpi_coll_use_flat(const tm_mpi_comm_t *c, size_t bytes)
{
    return c->size >= 2 && c->size <= TM_MPI_COLL_FLAT_RANKS && bytes <= TM_MPI_COLL_FLAT_BYTES;
}

bool tm_mpi_coll_use_flat_reduce(const tm_mpi_comm_t *c, size_t count, const tm_mpi_type_t *type)
{
    /* Dense: the op folds the slots as they are (a property of the type map, which the members
     * share for reductions). */
    bool dense = type->size == (size_t)type->extent && type->true_lb == 0 &&
                 type->true_extent == type->extent;
    return dense && tm_mpi_coll_use_flat(c, count * type->size);
}

void tm_mpi_coll_flat_barrier(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call)
{
    flat_get(r, c);
    flat_round(r, c, call, FLAT_BARRIER, 0, NULL, NULL, 0);
}

void tm_mpi_coll_flat_bcast(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, void *buf,
                            size_t count, tm_mpi_type_t *type, int root)
{
    tm_mpi_coll_flat_t *f = flat_get(r, c);
    size_t bytes = count * type->size;
    if (c->rank == root && bytes > 0)
        tm_mpi_type_pack(buf, count, type, 0, bytes, flat_slot(f, root));
    flat_round(r, c, call, FLAT_BCAST, bytes, NULL, NULL, root);
    if (c->rank != root && bytes > 0)
        tm_mpi_type_unpack(f->result, bytes, buf, count, type, 0);
}

void tm_mpi_coll_flat_reduce(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *data,
                             void *recvbuf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                             int root)
{
    tm_mpi_coll_flat_t *f = flat_get(r, c);
    size_t bytes = count * type->size;
    if (bytes > 0)
        memcpy(flat_slot(f, c->rank), data, bytes);
    flat_round(r, c, call, FLAT_REDUCE, count, type, op, root);
    if ((root < 0 || c->rank == root) && bytes > 0) /* root -1: allreduce */
        memcpy(recvbuf, f->result, bytes);
}
