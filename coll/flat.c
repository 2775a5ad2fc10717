/*
 * Flat collectives: the small blocking barrier, broadcast, reduce, allreduce, allgather(v),
 * alltoall, gather, scatter and reduce_scatter(_block), scan and exscan, and the small
 * non-blocking barrier, broadcast, reduce and allreduce ("non-blocking barriers" and
 * "non-blocking broadcasts and reductions" below), through a block of memory the members of a
 * communicator share (the ranks are threads of one process).
 *
 * Each member copies its data into its slot of the block and arrives on its group's counter (the
 * members on its VP, that is its core) with one fetch-and-add, which also adds its call's key
 * (coll/check.h), so that the last to arrive knows whether their calls agree without reading the
 * others' slots. The last to arrive leads its group through the round: it publishes the round to
 * the other groups' leaders (with its group's partial result: for a reduction whose operation
 * commutes, it first folds its group's slots into it) and waits until each of them has published it
 * too. Then every leader does the whole collective's work for its own group: it folds the slots in
 * rank order, or the partials, into its group's result (reduce, allreduce), or copies the root's
 * slot there (broadcast); then it opens the round for its group (a release store of the number of
 * rounds done) and pokes the members that sleep. They wait for that like any blocking call
 * (progressing, yielding to the ranks of their core, then sleeping), then copy their group's result
 * out; for allgather, alltoall, gather and scatter, each member (the root, for gather) copies its
 * blocks straight from the slots.
 *
 *   member k:  slot[k] := data; group.arrived += (key, 1) ------------------+
 *              the last of its group (the leader):                        |
 *                pub.partial := its group's slots; pub.round := t          | every member
 *                wait until every other group's pub.round = t              | of the group
 *                group.result := slot[0] op ... op slot[size-1]            |
 *                  (or the partials); group.done := t; poke the group      |
 *              the others: wait until group.done = t                       |
 *              recvbuf := group.result (or blocks of the slots)  <--------+
 *
 * The leaders compute the result each for its core rather than one for all: the only lines
 * that cross between cores are the leaders' publications (and the slots that the results are
 * made of, or that the members copy), each once per round, where with one counter for all, a
 * result and its round number would cross one after the other (docs/performance.md has the
 * figures).
 *
 * Reuse without a second synchronisation: the slots come in two sets, for odd and even rounds.
 * A member writes its slot for round t + 2 after round t + 1 opened for its group, which needed
 * every group's leader to publish t + 1, so every member to arrive at t + 1 and be done reading
 * round t's slots. The publications come in two sets likewise (flat_pub_t), and a group's
 * result of round t + 1 is written only when its every member arrived at t + 1, so had copied
 * round t's out.
 *
 * Cost, p members on c cores and n bytes: p slot writes, p arrivals on lines of their core, c
 * publications each read by c - 1 leaders, folds of n bytes (p - 1 per leader, or the slots of
 * its group and then c - 1 partials, for commutative reductions; allgather, alltoall: each
 * member reads p slots), and a wake-up of each member that slept: no message, no matching, and
 * one switch of each rank's core instead of lg p. The message algorithms' rounds each cost a
 * message and, with several ranks per core, a switch to each receiver: on 16 ranks on 2 cores
 * an 8-byte allreduce took 20 us by recursive doubling. Only the leaders compute, and each wakes
 * its members one by one: used up to TM_COLL_FLAT_RANKS members and TM_COLL_FLAT_BYTES
 * of data (coll.h).
 *
 * Scans (MPI_Scan, MPI_Exscan) are a chain instead: member k waits for member k - 1's prefix
 * of the round, folds its own data in (prefix op data, in rank order), publishes the result as
 * its own prefix and returns without waiting for the members after it; member 0 does not wait
 * at all. Each member's prefixes have FLAT_SCAN_DEPTH buffers, used round after round: before
 * writing round t's, member k waits until member k + 1 has finished round t - FLAT_SCAN_DEPTH,
 * after reading k's buffer of that round. So back-to-back scans pipeline along the chain, as the
 * linear algorithm's messages do, with no arrival counter and no wake-ups but the next and
 * previous members'; the depth lets a member run that many rounds ahead of the next one, which
 * hides the time a published round takes to reach the next member's core. A member publishes
 * its rounds finished every FLAT_SCAN_REPORT rounds only: member k - 1 reads that count only
 * when it is about to lap, and each publication's poke fences while the count's line comes
 * back from k - 1's core. Member k + 1 runs rounds t - REPORT to t - 1 before it waits for
 * round t's prefix, so it publishes a count of at least t - REPORT >= t - DEPTH: the wait below
 * always ends.
 *
 *   member k, round t:  wait link[k-1].prefix[t % DEPTH].round >= t
 *                       wait link[k+1].finished >= t - DEPTH
 *                       link[k].prefix[t % DEPTH] := link[k-1].prefix[t % DEPTH] op data, round t
 *                       poke k + 1
 *                       if t % REPORT == 0: link[k].finished := t; poke k - 1
 *
 * Waiting and waking: a member that does not lead its group can only wait for it, so when
 * another rank of its core (VP) is ready to run it sleeps at once instead of yielding and
 * polling again (as every wait does, tm_p2p_wait_noted): each rank then runs once per
 * round. A leader pokes the leaders that published before it (they may sleep waiting for its
 * publication; those that publish after it see it before they wait), and each leader its own
 * members: a wake-up across cores costs several cache-line transfers one after the other (the
 * sleeper word, the ULT's state, the VP's run queue), within a core none, and the leader is the
 * member likeliest to be awake still, polling because no other rank of its core had work, so
 * that a poke across costs only a look at its sleeper word.
 *
 * The block of a communicator is found through a registry keyed by its context id and the world
 * rank of its rank 0 (MPI_Comm_split gives disjoint groups one context id), made by the first
 * member that needs it, and freed when the last member's view of the communicator goes.
 */
#include "config.h"

#include <pthread.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "coll/check.h"
#include "coll/coll.h"
#include "obj/group.h"
#include "coll/blocks.h"
#include "p2p/p2p.h"

typedef struct tm_coll_flat tm_coll_flat_t;

struct tm_coll_flat {
    int context_id, leader, size; /* the key: context id, world rank of rank 0; members */
    int refs;                     /* views that use it; under registry.lock */
    int ngroups;                  /* VPs the members run on */
    struct tm_coll_flat *next;
    _Atomic int ring_stalled; /* writers waiting for an entry of the ring to be read */
    /* Two sets of size slots, for odd and even rounds: a line that holds the slot's length,
     * then TM_COLL_FLAT_BYTES of data. */
    alignas(TM_SHM_CACHE_LINE) unsigned char slots[];
};

#define FLAT_SLOT_STRIDE (TM_SHM_CACHE_LINE + TM_COLL_FLAT_BYTES)

/* A member's link of the scan chain, after the slots: its prefixes, each with the round it is
 * of and the member's call, which share the first line with the data (32 bytes of data come
 * over with the number);
 * and how many rounds the member has finished as of its last report (every FLAT_SCAN_REPORT
 * rounds), for the member before it. */
#define FLAT_SCAN_DEPTH  8
#define FLAT_SCAN_REPORT 4
_Static_assert(FLAT_SCAN_REPORT <= FLAT_SCAN_DEPTH, "a member's waits end (see Scans above)");
typedef struct flat_prefix {
    alignas(TM_SHM_CACHE_LINE) _Atomic uint64_t round;
    tm_coll_sig_t sig; /* the member's call, which the next member compares with its own */
    bool broken;       /* the calls disagreed before it: no prefix, and `mismatch` says where */
    alignas(16) unsigned char data[TM_COLL_FLAT_BYTES];
    tm_coll_mismatch_t mismatch;
} flat_prefix_t;

typedef struct flat_link {
    flat_prefix_t prefix[FLAT_SCAN_DEPTH];
    alignas(TM_SHM_CACHE_LINE) _Atomic uint64_t finished; /* rounds done with the previous link */
} flat_link_t;
_Static_assert(TM_COLL_FLAT_BYTES % TM_SHM_CACHE_LINE == 0, "slots fill whole lines");

static struct {
    pthread_mutex_t lock;
    tm_coll_flat_t *head;
} registry = {PTHREAD_MUTEX_INITIALIZER, NULL};

/* Member k's link of the scan chain. */
static flat_link_t *flat_link(tm_coll_flat_t *f, int k)
{
    return (flat_link_t *)(void *)(f->slots + 2 * (size_t)f->size * FLAT_SLOT_STRIDE) + k;
}

/* Where the members run, after the links: member k's VP and its group (the members on that
 * VP). */
typedef struct flat_member {
    int vp, group;
    int next; /* the next member of its group, in rank order; -1 after the last */
} flat_member_t;

static flat_member_t *flat_members(tm_coll_flat_t *f)
{
    return (flat_member_t *)(void *)flat_link(f, f->size);
}

/* What the leader of a group (its last member to arrive in the round) publishes for the other
 * groups' leaders: the round, and with it the group's partial result (commutative reductions).
 * Two sets, for odd and even rounds: a leader publishes round t + 2 once its group arrived at
 * t + 2, so after its round t + 1 opened, which needed every other leader's round t + 1, each
 * published after that leader had read what round t left here. */
typedef struct flat_pub {
    alignas(TM_SHM_CACHE_LINE) _Atomic uint64_t round; /* the last round published here */
    int leader;                                        /* its leader, whom the others poke */
    tm_coll_sig_t sig;           /* its leader's call, which the other leaders compare */
    tm_coll_mismatch_t mismatch; /* one its leader found in its group, if any */
    alignas(max_align_t) unsigned char partial[TM_COLL_FLAT_BYTES];
} flat_pub_t;

/* The members of one VP arrive on a line of their own; the last of them leads the group through
 * the round. Its members wait on the group's own `done` and copy its own result: every line they
 * touch stays on their core, and only the leaders' publications cross. The result of round t is
 * written once every member of the group arrived at t, so had copied round t - 1's. */
typedef struct flat_group {
    /* Arrivals, every round together: the count in the low FLAT_COUNT_BITS bits, and above them
     * the sum of the arriving calls' keys (flat_key), so that the leader finds out with its own
     * arrival whether its group's calls agree (flat_round). */
    alignas(TM_SHM_CACHE_LINE) _Atomic uint64_t arrived;
    uint64_t arrived_before; /* the word after the last round, for its next leader */
    int members;
    int first; /* its first member (then flat_member_t.next) */
    alignas(TM_SHM_CACHE_LINE) _Atomic uint64_t done; /* rounds open to the group's members */
    size_t result_len;                                /* broadcasts: bytes of the result */
    /* The round's, if the members' calls disagreed (no result); a = FLAT_TELL when the leader
     * asks the members for their calls (flat_tell). */
    tm_coll_mismatch_t mismatch;
    /* Only when the keys of a round's calls disagree (flat_tell): the members that wrote their
     * call into their slot, the leader who asked, and the round whose mismatch is known. */
    _Atomic uint64_t tellers;
    int asker;
    _Atomic uint64_t told;
    alignas(max_align_t) unsigned char result[TM_COLL_FLAT_BYTES];
    flat_pub_t pub[2];
} flat_group_t;

/* A group's arrival word: the count of arrivals modulo 2^FLAT_COUNT_BITS (more than the
 * members of a group, so that the last arrival of a round is known), and the sum of the calls'
 * keys in the bits above, with the count's carries. */
#define FLAT_COUNT_BITS 16
_Static_assert(TM_COLL_FLAT_RANKS < (1 << FLAT_COUNT_BITS), "a round's arrivals fit the count");
#define FLAT_COUNT_MASK ((UINT64_C(1) << FLAT_COUNT_BITS) - 1)

/* What a call adds to its group's arrival word: one arrival and its key. */
static inline uint64_t flat_arrival_add(const tm_coll_sig_t *sig)
{
    return (sig->key << FLAT_COUNT_BITS) | 1;
}

/* The groups, after the members: f->size of them at most. */
static flat_group_t *flat_groups(tm_coll_flat_t *f)
{
    uintptr_t end = (uintptr_t)(flat_members(f) + f->size);
    return (flat_group_t *)((end + TM_SHM_CACHE_LINE - 1) & ~(uintptr_t)(TM_SHM_CACHE_LINE - 1));
}

/* A member's line of non-blocking barriers: how many it has entered (MPI_Ibarrier). Barrier t
 * is over once every member's count is t or more; only the member writes its line. */
typedef struct flat_arrival {
    alignas(TM_SHM_CACHE_LINE) _Atomic uint64_t ibarriers;
} flat_arrival_t;

/* The members' lines, after the groups. */
static flat_arrival_t *flat_arrivals(tm_coll_flat_t *f)
{
    return (flat_arrival_t *)(void *)(flat_groups(f) + f->size);
}

/* Each member's ring of non-blocking broadcasts and reductions (see below). */
#define FLAT_RING_DEPTH 8

/* An entry: the round, the key of its member's call and the first 48 bytes of data share the
 * first line, which is all that a reader of a few bytes whose call agrees moves; the whole
 * signature, which it reads only when the keys differ, comes after the data. The data's length
 * is the signature's `bytes`. */
typedef struct flat_entry {
    alignas(TM_SHM_CACHE_LINE) _Atomic uint64_t round; /* the round written here last */
    uint64_t key;                                      /* sig.key */
    alignas(16) unsigned char data[TM_COLL_FLAT_BYTES];
    tm_coll_sig_t sig; /* its member's call */
} flat_entry_t;

typedef struct flat_ring {
    flat_entry_t entries[FLAT_RING_DEPTH];
    /* Rounds up to this one, every entry its member needed of them read. */
    alignas(TM_SHM_CACHE_LINE) _Atomic uint64_t read;
    /* The member's own: done[t % FLAT_RING_DEPTH] = t once its round t is read, by whichever
     * side read it (the rank or its progress thread); `read` advances over them in order. */
    alignas(TM_SHM_CACHE_LINE) _Atomic uint64_t done[FLAT_RING_DEPTH];
} flat_ring_t;

/* The members' rings, after their lines of non-blocking barriers. */
static flat_ring_t *flat_rings(tm_coll_flat_t *f)
{
    return (flat_ring_t *)(void *)(flat_arrivals(f) + f->size);
}

/* The data of `rank`'s slot for round `round`. */
static unsigned char *flat_slot(tm_coll_flat_t *f, uint64_t round, int rank)
{
    return f->slots + ((round & 1) * (size_t)f->size + (size_t)rank) * FLAT_SLOT_STRIDE +
           TM_SHM_CACHE_LINE;
}

/* The first line of a slot: the length of its data (alltoall, scatter: of one block), for the
 * members that read it, and the signature of the member's call, for its group's leader. */
typedef struct flat_slot_head {
    size_t len;
    tm_coll_sig_t sig; /* written only when the leader asks for it (flat_tell) */
} flat_slot_head_t;
_Static_assert(sizeof(flat_slot_head_t) <= TM_SHM_CACHE_LINE, "a slot's head is its first line");

static flat_slot_head_t *flat_slot_head(tm_coll_flat_t *f, uint64_t round, int rank)
{
    return (flat_slot_head_t *)(void *)(flat_slot(f, round, rank) - TM_SHM_CACHE_LINE);
}

static size_t *flat_slot_len(tm_coll_flat_t *f, uint64_t round, int rank)
{
    return &flat_slot_head(f, round, rank)->len;
}

/* c's block, made by its first member that needs it. Out of memory ends the job: the members
 * must all take the flat path once they chose it. */
static tm_coll_flat_t *flat_get(tm_mpi_rank_t *r, tm_mpi_comm_t *c)
{
    if (c->flat)
        return c->flat;
    int leader = c->group->world_ranks[0];
    pthread_mutex_lock(&registry.lock);
    tm_coll_flat_t *f = registry.head;
    while (f && (f->context_id != c->context_id || f->leader != leader))
        f = f->next;
    if (!f) {
        size_t bytes =
            sizeof *f + 2 * (size_t)c->size * FLAT_SLOT_STRIDE +
            (size_t)c->size * (sizeof(flat_link_t) + sizeof(flat_member_t)) + TM_SHM_CACHE_LINE +
            (size_t)c->size * (sizeof(flat_group_t) + sizeof(flat_arrival_t) + sizeof(flat_ring_t));
        /* aligned_alloc wants a multiple of the alignment */
        bytes = (bytes + TM_SHM_CACHE_LINE - 1) / TM_SHM_CACHE_LINE * TM_SHM_CACHE_LINE;
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
        flat_member_t *members = flat_members(f);
        flat_group_t *groups = flat_groups(f);
        f->ngroups = 0;
        for (int k = 0; k < c->size; k++) {
            atomic_init(&flat_link(f, k)->finished, 0);
            for (int d = 0; d < FLAT_SCAN_DEPTH; d++)
                atomic_init(&flat_link(f, k)->prefix[d].round, 0);
            members[k].vp = tm_rt_rank_vp(c->group->world_ranks[k]);
            members[k].group = f->ngroups;
            for (int j = 0; j < k; j++)
                if (members[j].vp == members[k].vp) {
                    members[k].group = members[j].group;
                    break;
                }
            if (members[k].group == f->ngroups) {
                flat_group_t *group = &groups[f->ngroups];
                atomic_init(&group->arrived, 0);
                group->arrived_before = 0;
                atomic_init(&group->tellers, 0);
                atomic_init(&group->told, 0);
                atomic_init(&group->done, 0);
                atomic_init(&group->pub[0].round, 0);
                atomic_init(&group->pub[1].round, 0);
                group->members = 0;
                group->first = -1;
                f->ngroups++;
            }
            groups[members[k].group].members++;
        }
        for (int k = c->size - 1; k >= 0; k--) {
            members[k].next = groups[members[k].group].first;
            groups[members[k].group].first = k;
        }
        atomic_init(&f->ring_stalled, 0);
        for (int k = 0; k < c->size; k++) {
            atomic_init(&flat_arrivals(f)[k].ibarriers, 0);
            flat_ring_t *ring = &flat_rings(f)[k];
            atomic_init(&ring->read, 0);
            for (int d = 0; d < FLAT_RING_DEPTH; d++) {
                atomic_init(&ring->entries[d].round, 0);
                atomic_init(&ring->done[d], 0);
            }
        }
        f->next = registry.head;
        registry.head = f;
    }
    f->refs++;
    pthread_mutex_unlock(&registry.lock);
    c->flat = f;
    return f;
}

static void flat_ibarriers_wait(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call);
static void flat_nb_wait(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call);

void tm_coll_flat_release(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call)
{
    tm_coll_flat_t *f = c->flat;
    if (!f)
        return;
    /* Our non-blocking barriers' requests read the block until they find them over: the block
     * may go with this view only after (MPI_Comm_free may synchronize). */
    flat_ibarriers_wait(r, c, call);
    flat_nb_wait(r, c, call);
    c->flat = NULL;
    pthread_mutex_lock(&registry.lock);
    bool last = --f->refs == 0;
    if (last) {
        tm_coll_flat_t **link = &registry.head;
        while (*link != f)
            link = &(*link)->next;
        *link = f->next;
    }
    pthread_mutex_unlock(&registry.lock);
    if (last)
        free(f);
}

/* What a leader computes for its group in the round: the result from the slots. */
typedef enum flat_kind { FLAT_BARRIER, FLAT_BCAST, FLAT_REDUCE } flat_kind_t;

/* What a member waits for: a round counter (of the block: a group's rounds open, a leader's
 * publication, a link's prefixes or its rounds finished; of its view: the non-blocking barriers
 * its requests found over) to reach `round`; noted as `call` on `comm` for hang diagnosis. */
typedef struct flat_wait {
    _Atomic uint64_t *count;
    uint64_t round;
    const char *call;
    tm_mpi_comm_t *comm;
    const _Atomic int *broken; /* the communicator's (check.h), or never_broken */
    /* The waiting call, for the ledger should it sleep (NULL sig: none to compare). */
    const tm_coll_sig_t *sig;
    uint64_t seq;
    tm_coll_meet_t meet;
} flat_wait_t;

static bool flat_reached(void *arg)
{
    const flat_wait_t *w = arg;
    /* acquire: pairs with the release of whoever advanced the counter: what it wrote (a result,
     * a prefix) or read (a prefix of ours) comes first */
    return atomic_load_explicit(w->count, memory_order_acquire) >= w->round;
}

/* flat_reached, or the communicator broke (check.h): some member made another call and will
 * never arrive. */
static bool flat_reached_or_broken(void *arg)
{
    const flat_wait_t *w = arg;
    return flat_reached(arg) || atomic_load_explicit(w->broken, memory_order_acquire);
}

/* The broken word of a communicator without a check (out of memory when it made one). */
static const _Atomic int never_broken;

/* The wait's call goes into the ledger before it sleeps. */
static void flat_sleeps(void *arg)
{
    const flat_wait_t *w = arg;
    tm_coll_check_sleeps(w->comm, w->seq, w->sig, w->meet);
}

static void flat_note(void *arg, tm_p2p_blocked_note_t *out)
{
    const flat_wait_t *w = arg;
    tm_p2p_request_t described = {.kind = TM_P2P_REQ_COLL, .call = w->call, .comm = w->comm};
    tm_p2p_request_blocked_note(&described, out);
}

/* Waits until *count >= round: true; false when the communicator broke meanwhile. The call
 * waiting, of signature sig (NULL: none to compare), meets the others at `meet`. */
static __attribute__((noinline)) bool flat_wait_slow(tm_mpi_rank_t *r, tm_mpi_comm_t *c,
                                                     const char *call, _Atomic uint64_t *count,
                                                     uint64_t round, const tm_coll_sig_t *sig,
                                                     tm_coll_meet_t meet)
{
    flat_wait_t w = {count, round, call, c, NULL, sig, c->coll_calls, meet};
    w.broken = tm_coll_check_abort_flag(c);
    if (!w.broken)
        w.broken = &never_broken;
    tm_p2p_wait_sleeping(r, flat_reached_or_broken, &w, flat_note, &w, sig ? flat_sleeps : NULL);
    return flat_reached(&w);
}
static inline bool flat_wait(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                             _Atomic uint64_t *count, uint64_t round, const tm_coll_sig_t *sig,
                             tm_coll_meet_t meet)
{
    /* acquire: as flat_reached */
    if (atomic_load_explicit(count, memory_order_acquire) >= round)
        return true;
    return flat_wait_slow(r, c, call, count, round, sig, meet);
}

/* What flat_round returns when the communicator broke while it waited: the ledger's mismatch
 * (flat_checked reports it). */
static const tm_coll_mismatch_t flat_broken = {.a = -2};

/* Wakes member k if it sleeps. */
static void flat_poke(tm_mpi_comm_t *c, int k)
{
    tm_p2p_mailbox_poke_rank(tm_p2p_mailbox_get(c->group->world_ranks[k], false));
}

/* Folds into `dst` the data of the members of `group` (-1: every member) of the round, from the
 * last to the first (in rank order, for operations that do not commute: slot[k] op (the rest)),
 * or the groups' partials when `partials`. */
static void flat_fold(tm_coll_flat_t *f, uint64_t round, int group, bool partials,
                      unsigned char *dst, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op)
{
    const flat_member_t *members = flat_members(f);
    flat_group_t *groups = flat_groups(f);
    int n = partials ? f->ngroups : f->size;
    bool first = true;
    for (int k = n - 1; k >= 0; k--) {
        if (!partials && group >= 0 && members[k].group != group)
            continue;
        const unsigned char *src =
            partials ? groups[k].pub[round & 1].partial : flat_slot(f, round, k);
        if (first)
            memcpy(dst, src, count * type->size);
        else
            tm_mpi_op_apply(op, src, dst, count, type);
        first = false;
    }
}

static __attribute__((noinline)) void
flat_record(tm_coll_mismatch_t *m, int ka, const tm_coll_sig_t *a, int kb, const tm_coll_sig_t *b)
{
    *m = (tm_coll_mismatch_t){ka, kb, *a, *b};
}

/* Records in *m (unless it holds one already) that member ka's call `a` and member kb's `b`
 * differ, if they do. */
static inline void flat_compare(tm_coll_mismatch_t *m, int ka, const tm_coll_sig_t *a, int kb,
                                const tm_coll_sig_t *b)
{
    if (__builtin_expect(m->a < 0 && !tm_coll_sig_equal(a, b), 0))
        flat_record(m, ka, a, kb, b);
}

/* What a call returns after its round: the mismatch of the members' calls if there was one. */
static __attribute__((noinline)) int flat_checked(tm_mpi_rank_t *r, tm_mpi_comm_t *c,
                                                  const char *call,
                                                  const tm_coll_mismatch_t *mismatch)
{
    if (!mismatch)
        return MPI_SUCCESS;
    if (mismatch == &flat_broken)
        return tm_coll_check_broken_raise(r, c, call);
    return tm_coll_mismatch_raise(r, c, call, mismatch);
}

/* A leader's look at another group's publication: takes its mismatch if we have none, else
 * compares its leader's call with ours. Out of line: the calls nearly always agree. */
static __attribute__((noinline)) void
flat_compare_pub(tm_coll_mismatch_t *m, const flat_pub_t *theirs, int me, const tm_coll_sig_t *sig)
{
    if (m->a < 0 && theirs->mismatch.a >= 0)
        *m = theirs->mismatch;
    flat_compare(m, theirs->leader, &theirs->sig, me, sig);
}

/* The members' calls are not in their slots: each adds its key to the arrival word only, and the
 * leader, finding that the keys of the round disagree, asks them for their calls. It stores
 * FLAT_TELL as the group's mismatch and opens the round (done); each member then writes its call
 * into its slot, counts itself among the tellers and waits for `told`, while the leader, once
 * every member told, compares their calls (and the other groups' leaders' as usual), and stores
 * the mismatch it found (or none: names that differ by a "_c") and `told`. A store into a line
 * of each member's own every round cost a tenth of an 8-byte collective with 8 ranks to a core;
 * calls that disagree are an error, made once. */
#define FLAT_TELL (-3)

/* The leader's side: into *m, the mismatch of the group's calls with ours (rank me, sig). False
 * when the communicator broke meanwhile. */
static __attribute__((noinline)) bool flat_ask(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                                               uint64_t round, flat_group_t *group,
                                               tm_coll_mismatch_t *m, const tm_coll_sig_t *sig)
{
    tm_coll_flat_t *f = c->flat;
    const flat_member_t *members = flat_members(f);
    atomic_store_explicit(&group->tellers, 0, memory_order_relaxed);
    group->asker = c->rank;
    group->mismatch.a = FLAT_TELL;
    /* release: the question before the round opens */
    atomic_store_explicit(&group->done, round, memory_order_release);
    atomic_thread_fence(memory_order_seq_cst); /* Dekker with each sleeper, as flat_round's */
    for (int k = group->first; k >= 0; k = members[k].next)
        if (k != c->rank)
            tm_p2p_mailbox_wake_rank(tm_p2p_mailbox_get(c->group->world_ranks[k], false));
    if (!flat_wait(r, c, call, &group->tellers, (uint64_t)group->members - 1, NULL,
                   TM_COLL_MEET_ROUND))
        return false;
    for (int k = group->first; k >= 0; k = members[k].next)
        if (k != c->rank)
            flat_compare(m, k, &flat_slot_head(f, round, k)->sig, c->rank, sig);
    return true;
}

/* A member's side, once the round opened with FLAT_TELL: tells its call and waits for the
 * mismatch. False when the communicator broke meanwhile. */
static __attribute__((noinline)) bool flat_tell(tm_mpi_rank_t *r, tm_mpi_comm_t *c,
                                                const char *call, uint64_t round,
                                                flat_group_t *group, const tm_coll_sig_t *sig)
{
    flat_slot_head(c->flat, round, c->rank)->sig = *sig;
    /* release: the call before the count, for the leader's acquire (flat_reached) */
    atomic_fetch_add_explicit(&group->tellers, 1, memory_order_release);
    flat_poke(c, group->asker);
    return flat_wait(r, c, call, &group->told, round, NULL, TM_COLL_MEET_ROUND);
}

/* Arrives at the round after the member's slot is written: the last member of each group leads
 * it through the round, which opens for the group once every group's leader has published it;
 * each leader then computes `kind`'s result for its group from the slots or the partials and
 * wakes its members, who wait for that. Each member's call, `sig`, goes with its slot: the
 * leader compares its group's with its own and publishes its own (and a mismatch it found) with
 * the round, which the other leaders compare in turn; when some member's call differs, no
 * result is made and every member returns the error of the mismatch (flat_checked), else
 * MPI_SUCCESS. */
static int flat_round(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, uint64_t round,
                      flat_kind_t kind, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                      int root, const tm_coll_sig_t *sig)
{
    tm_coll_flat_t *f = c->flat;
    const flat_member_t *members = flat_members(f);
    flat_group_t *groups = flat_groups(f);
    int g = members[c->rank].group;
    flat_group_t *group = &groups[g];
    tm_coll_mismatch_t mismatch; /* written whole only when found (flat_compare) */
    mismatch.a = -1;
    bool asked = false; /* the round is open already: the members wait for `told` */
    if (group->members > 1) {
        /* acq_rel: each member's slot before its arrival; the leader sees its group's slots
         * (the arrivals are one release sequence), and publishes them with its own release. */
        uint64_t add = flat_arrival_add(sig);
        uint64_t now = atomic_fetch_add_explicit(&group->arrived, add, memory_order_acq_rel) + add;
        if ((now & FLAT_COUNT_MASK) != ((round * (uint64_t)group->members) & FLAT_COUNT_MASK)) {
            if (!flat_wait(r, c, call, &group->done, round, sig, TM_COLL_MEET_ROUND))
                return flat_checked(r, c, call, &flat_broken);
            if (__builtin_expect(group->mismatch.a != -1, 0)) {
                if (group->mismatch.a == FLAT_TELL && !flat_tell(r, c, call, round, group, sig))
                    return flat_checked(r, c, call, &flat_broken);
                if (group->mismatch.a >= 0)
                    return flat_checked(r, c, call, &group->mismatch);
            }
            return MPI_SUCCESS;
        }
        /* The round's keys: what the word gained since the last round, less the carry of the
         * count if it wrapped (it gains `members` < 2^FLAT_COUNT_BITS a round). Members times
         * ours when every call has our key, as is nearly always the case; else ask for the
         * calls themselves. */
        uint64_t before = group->arrived_before;
        uint64_t carry = (now & FLAT_COUNT_MASK) < (before & FLAT_COUNT_MASK);
        uint64_t keys = (now >> FLAT_COUNT_BITS) - (before >> FLAT_COUNT_BITS) - carry;
        group->arrived_before = now;
        if (__builtin_expect(((keys ^ (uint64_t)group->members * sig->key) &
                              (UINT64_MAX >> FLAT_COUNT_BITS)) != 0,
                             0)) {
            asked = true;
            if (!flat_ask(r, c, call, round, group, &mismatch, sig))
                return flat_checked(r, c, call, &flat_broken);
        }
    }
    /* by group when some group has several members and another is on another core */
    bool by_groups =
        kind == FLAT_REDUCE && count > 0 && f->ngroups > 1 && f->ngroups < f->size && op->commute;
    if (f->ngroups > 1) {
        flat_pub_t *mine = &group->pub[round & 1];
        if (by_groups && mismatch.a < 0)
            flat_fold(f, round, g, false, mine->partial, count, type, op);
        mine->leader = c->rank;
        mine->sig = *sig;
        mine->mismatch.a = mismatch.a;
        if (mismatch.a >= 0)
            mine->mismatch = mismatch;
        /* release: our group's slots and partial before the round */
        atomic_store_explicit(&mine->round, round, memory_order_release);
        /* A leader that published before us may be asleep waiting for us: poke it. One that
         * publishes after us sees our round before it waits. Dekker with its wait (the fence
         * there and here): one of the two sees the other's round. */
        atomic_thread_fence(memory_order_seq_cst);
        for (int h = 0; h < f->ngroups; h++) {
            flat_pub_t *theirs = &groups[h].pub[round & 1];
            /* acquire: its leader, written before */
            if (h != g && atomic_load_explicit(&theirs->round, memory_order_acquire) >= round)
                flat_poke(c, theirs->leader);
        }
        for (int h = 0; h < f->ngroups; h++) {
            if (h == g)
                continue;
            flat_pub_t *theirs = &groups[h].pub[round & 1];
            if (!flat_wait(r, c, call, &theirs->round, round, sig, TM_COLL_MEET_ROUND))
                return flat_checked(r, c, call, &flat_broken);
            if (__builtin_expect(theirs->sig.key != sig->key || theirs->mismatch.a >= 0, 0))
                flat_compare_pub(&mismatch, theirs, c->rank, sig);
        }
    }
    group->mismatch.a = mismatch.a;
    if (mismatch.a >= 0) {
        group->mismatch = mismatch; /* and no result: the buffers stay as they were */
    } else if (kind == FLAT_BCAST) {
        group->result_len = *flat_slot_len(f, round, root);
        memcpy(group->result, flat_slot(f, round, root), group->result_len);
    } else if (kind == FLAT_REDUCE && count > 0) {
        flat_fold(f, round, -1, by_groups, group->result, count, type, op);
    }
    if (group->members > 1) {
        /* release: the result before the round opens (or the mismatch before it is told) */
        atomic_store_explicit(asked ? &group->told : &group->done, round, memory_order_release);
        /* One fence for the whole group (tm_p2p_mailbox_poke's Dekker with each sleeper). */
        atomic_thread_fence(memory_order_seq_cst);
        for (int k = group->first; k >= 0; k = members[k].next)
            if (k != c->rank)
                tm_p2p_mailbox_wake_rank(tm_p2p_mailbox_get(c->group->world_ranks[k], false));
    }
    if (__builtin_expect(mismatch.a >= 0, 0))
        return flat_checked(r, c, call, &group->mismatch);
    return MPI_SUCCESS;
}

/* The group of c's member, which holds the result of its last round. */
static flat_group_t *flat_result(const tm_mpi_comm_t *c)
{
    return &flat_groups(c->flat)[flat_members(c->flat)[c->rank].group];
}

/* ---- non-blocking barriers ----
 *
 * MPI_Ibarrier on a communicator of the flat collectives' sizes: the member enters barrier t
 * (its t-th) by storing t into its own line of the block, and the barrier is over for everyone
 * once every member's line holds t or more, which the lines only ever grow towards. There is
 * no counter to share and no round to open: any number of barriers may be under way, and a
 * member may enter the next one before the others have seen this one over. Its request is a
 * schedule of one TM_NBC_POLL action that scans the lines (from where the last scan stopped)
 * whenever the rank progresses; the member whose entry ends the barrier needs none (its request
 * is complete from the start), and pokes the others' collective mailboxes:
 *
 *   entering:  line[me] := t (release); fence; every line >= t? poke every other member
 *   waiting:   sleeper := self; fence; every line >= t? else sleep      (Dekker: one of the two
 *              sides sees the other)
 *
 * A request that finds its barrier over counts it in its view (flat_ibarriers_seen) and never
 * reads the block again; a view lets go of the block (MPI_Comm_free, MPI_Finalize) only once
 * every barrier it entered is counted there, so the last view frees a block nobody reads.
 * Cost: one store and a scan of p lines (those of other cores missing in cache once each) per
 * member, against lg p rounds of messages by dissemination. */

/* Whether every member of `f` has entered barrier t, scanning from *cursor. */
static bool flat_entered(tm_coll_flat_t *f, uint64_t t, int *cursor)
{
    const flat_arrival_t *lines = flat_arrivals(f);
    for (int k = *cursor; k < f->size; k++)
        /* acquire: what member k did before entering */
        if (atomic_load_explicit(&lines[k].ibarriers, memory_order_acquire) < t) {
            *cursor = k;
            return false;
        }
    *cursor = f->size;
    return true;
}

/* The TM_NBC_POLL test of barrier t on view `obj`. */
static bool flat_ibarrier_over(void *obj, uint64_t t, int *cursor)
{
    tm_mpi_comm_t *c = obj;
    if (!flat_entered(c->flat, t, cursor))
        return false;
    /* release: our last look at the block comes before the view lets it go */
    atomic_fetch_add_explicit(&c->flat_ibarriers_seen, 1, memory_order_release);
    return true;
}

int tm_coll_flat_ibarrier(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                          MPI_Request *request)
{
    tm_coll_flat_t *f = flat_get(r, c);
    uint64_t t = ++c->flat_ibarriers;
    /* release: what we did before the barrier, for the members' acquire */
    atomic_store_explicit(&flat_arrivals(f)[c->rank].ibarriers, t, memory_order_release);
    atomic_thread_fence(memory_order_seq_cst); /* the entering side of the Dekker pattern */
    int cursor = 0;
    if (flat_entered(f, t, &cursor)) {
        /* tm_p2p_mailbox_poke's look at each member's sleepers, after the fence above */
        for (int k = 0; k < c->size; k++) {
            tm_p2p_mailbox_t *mb = tm_p2p_mailbox_get(c->group->world_ranks[k], true);
            if (k != c->rank && (atomic_load_explicit(&mb->sleeper, memory_order_relaxed) ||
                                 atomic_load_explicit(&mb->helper, memory_order_relaxed)))
                tm_p2p_mailbox_wake(mb);
        }
        /* over at once: a request complete from the start, without a schedule */
        atomic_fetch_add_explicit(&c->flat_ibarriers_seen, 1, memory_order_relaxed);
        return tm_coll_done(r, c, call, MPI_SUCCESS, request);
    }
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, c, 0);
    if (!s) {
        /* no request will look: counted as seen */
        atomic_fetch_add_explicit(&c->flat_ibarriers_seen, 1, memory_order_relaxed);
        return tm_coll_run(r, c, call, NULL, request); /* reports the lack of memory */
    }
    tm_nbc_sched_where(s, TM_NBC_RANK);
    tm_nbc_sched_poll(s, flat_ibarrier_over, c, t);
    return tm_coll_run(r, c, call, s, request);
}

/* Waits until the requests of the non-blocking barriers c's member entered have found them
 * over (progressing them meanwhile): until they have counted every one in the view (the acquire
 * of flat_reached pairs with flat_ibarrier_over's release). */
static void flat_ibarriers_wait(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call)
{
    /* or until the communicator broke */
    (void)flat_wait(r, c, call, &c->flat_ibarriers_seen, c->flat_ibarriers, NULL, 0);
}

/* ---- non-blocking broadcasts and reductions ----
 *
 * MPI_Ibcast, MPI_Ireduce and MPI_Iallreduce of the flat collectives' sizes, through a ring of
 * FLAT_RING_DEPTH entries per member: the member writes its round t (its t-th such call on the
 * communicator) into its entry t % FLAT_RING_DEPTH, with the signature of its call, and the
 * members that need it read it there: a broadcast's members the root's entry, a reduction's
 * (every member for an allreduce, the root for a reduce) every member's, folded in rank order.
 * As with the non-blocking barriers, nothing is shared but what each member writes itself: any
 * number of rounds may be under way, a member that writes nothing more (a broadcast's root, a
 * reduction's non-root) is done at once, and one that waits only scans lines.
 *
 *   start:  entry[me][t % D] := data, sig; entry.round := t (release); fence;
 *           poke whom the entry completes (the broadcast's members; a reduction's readers,
 *           by the member that sees every entry written)
 *   poll:   every entry it reads holds round t? then copy or fold them into the buffer;
 *           read := t (in order, release); done
 *
 * An entry is written again, for round t + D, only once every member has read every round up to
 * t (its `read` line, which grows in order; the writer keeps the least it saw, so that it scans
 * the lines about once per D rounds). A writer that finds the entry still in use does its write
 * from its request's poll instead, and says so in the block's `ring_stalled`, which every reader
 * looks at after it advanced its line, poking the members when someone is stalled (Dekker: the
 * writer counts itself, fences and scans; the reader stores, fences and looks).
 *
 * Calls that differ: a reader compares the signature of each entry it reads with its own call's.
 * If only the amounts of data differ, its request fails with MPI_ERR_TRUNCATE, as a message
 * longer or shorter than its receive would; if the calls differ, it never reads the entry, and
 * the ledger (check.c), which holds these calls as it holds the schedules', breaks the
 * communicator, which ends the request with the mismatch. Requests run on the rank, in its
 * calls; one whose write stalled or whose operation is the user's, on its progress thread when
 * that has a core of its own (the rank may compute meanwhile).
 *
 * Cost, p members and n bytes: a broadcast's root writes one entry (one line up to 48 bytes) and
 * looks at the members' sleepers; each member reads the entry once it is there. A reduction's
 * members each write one entry; each reader reads p entries and folds them (p - 1 operations of
 * n bytes: the data is small). Every D rounds or so a writer scans the p `read` lines. No
 * message, no matching, and a request that is over at its start costs no schedule: 8-byte
 * iallreduce on 2 ranks of a 16-core Xeon took 0.61 us against 1.32 by messages (manycore.md). */

/* A request's own state, in its schedule's scratch. */
typedef struct flat_nb {
    tm_mpi_comm_t *c;
    tm_nbc_sched_t *s; /* its schedule; NULL while it has none */
    int err;           /* MPI_ERR_TRUNCATE when the members' data differed in size */
    int root;          /* -1: an allreduce */
    bool bcast;        /* a broadcast, else a reduction */
    bool written;      /* its entry is written (or it writes none) */
    bool stalled;      /* counted in the block's ring_stalled */
    const void *data;  /* what it contributes (the root's buffer, for a broadcast) */
    void *buf;         /* where the result goes; NULL: it reads nothing */
    size_t count;
    tm_mpi_type_t *type;
    tm_mpi_op_t *op;
    tm_coll_sig_t sig;
} flat_nb_t;

/* Wakes the members of c but its own rank (only member `only`, if >= 0) that may sleep waiting
 * for the ring, after one fence (the waker's side of the Dekker pattern with each sleeper): the
 * rank, which sleeps as `sleeper` of its point-to-point mailbox whatever it waits for, and its
 * progress thread, which sleeps as `helper` of its collective mailbox while it has requests. */
static void flat_nb_poke(tm_mpi_comm_t *c, int only)
{
    atomic_thread_fence(memory_order_seq_cst);
    for (int k = only >= 0 ? only : 0; k < (only >= 0 ? only + 1 : c->size); k++) {
        if (k == c->rank)
            continue;
        int world = c->group->world_ranks[k];
        tm_p2p_mailbox_wake_rank(tm_p2p_mailbox_get(world, false));
        tm_p2p_mailbox_t *coll = tm_p2p_mailbox_get(world, true);
        if (atomic_load_explicit(&coll->helper, memory_order_relaxed))
            tm_p2p_mailbox_wake(coll);
    }
}

/* The least round that every member has read up to. */
static uint64_t flat_nb_read_by_all(tm_coll_flat_t *f)
{
    uint64_t least = UINT64_MAX;
    for (int k = 0; k < f->size; k++) {
        /* acquire: its reads of our entry come before we write it again */
        uint64_t read = atomic_load_explicit(&flat_rings(f)[k].read, memory_order_acquire);
        if (read < least)
            least = read;
    }
    return least;
}

/* Whether every entry of round t that `n` reads is written, scanning from *cursor. */
static bool flat_nb_arrived(const flat_nb_t *n, uint64_t t, int *cursor)
{
    tm_coll_flat_t *f = n->c->flat;
    int last = n->bcast ? n->root : f->size - 1;
    for (int k = n->bcast ? n->root : *cursor; k <= last; k++)
        /* acquire: the entry's data before its round */
        if (atomic_load_explicit(&flat_rings(f)[k].entries[t % FLAT_RING_DEPTH].round,
                                 memory_order_acquire) != t) {
            *cursor = k;
            return false;
        }
    *cursor = last + 1;
    return true;
}

/* Writes n's entry of round t if every member has read what it held: true once written. */
static bool flat_nb_write(flat_nb_t *n, uint64_t t)
{
    tm_mpi_comm_t *c = n->c;
    tm_coll_flat_t *f = c->flat;
    uint64_t needed = t > FLAT_RING_DEPTH ? t - FLAT_RING_DEPTH : 0;
    if (atomic_load_explicit(&c->flat_ring_free, memory_order_relaxed) < needed) {
        uint64_t least = flat_nb_read_by_all(f);
        if (least < needed && !n->stalled) {
            /* Counted, then looked again: a reader that advances after this sees the count. */
            atomic_fetch_add_explicit(&f->ring_stalled, 1, memory_order_seq_cst);
            n->stalled = true;
            least = flat_nb_read_by_all(f);
        }
        if (least < needed)
            return false;
        atomic_store_explicit(&c->flat_ring_free, least, memory_order_relaxed);
    }
    if (n->stalled) {
        atomic_fetch_sub_explicit(&f->ring_stalled, 1, memory_order_relaxed);
        n->stalled = false;
    }
    flat_entry_t *e = &flat_rings(f)[c->rank].entries[t % FLAT_RING_DEPTH];
    e->key = n->sig.key;
    e->sig = n->sig;
    tm_mpi_type_pack(n->data, n->count, n->type, 0, n->count * n->type->size, e->data);
    /* release: the data before the round */
    atomic_store_explicit(&e->round, t, memory_order_release);
    n->written = true;
    if (n->bcast) {
        flat_nb_poke(c, -1);
    } else {
        /* The member that sees every entry written wakes the readers (Dekker with each writer:
         * one of two that write at once sees the other's entry). */
        atomic_thread_fence(memory_order_seq_cst);
        int cursor = 0;
        flat_nb_t all = *n;
        all.bcast = false;
        if (flat_nb_arrived(&all, t, &cursor))
            flat_nb_poke(c, n->root);
    }
    return true;
}

/* Round t is read: advances c's member's `read` line over the rounds read in order, and wakes
 * the members if a writer waits for that. The rank and its progress thread may both be here
 * (a round done at its start, an earlier one by its request): the line only grows. */
static void flat_nb_read(tm_mpi_comm_t *c, uint64_t t)
{
    tm_coll_flat_t *f = c->flat;
    flat_ring_t *ring = &flat_rings(f)[c->rank];
    /* release: our reads of the entries before whoever advances `read` over t */
    atomic_store_explicit(&ring->done[t % FLAT_RING_DEPTH], t, memory_order_release);
    uint64_t read = atomic_load_explicit(&ring->read, memory_order_relaxed);
    bool advanced = false;
    /* acquire: the reads of the round's reader, which we publish with ours */
    while (atomic_load_explicit(&ring->done[(read + 1) % FLAT_RING_DEPTH], memory_order_acquire) ==
           read + 1)
        /* seq_cst: the store before the look at ring_stalled (Dekker with flat_nb_write); a
         * failure reloads `read` */
        if (atomic_compare_exchange_weak_explicit(&ring->read, &read, read + 1,
                                                  memory_order_seq_cst, memory_order_relaxed)) {
            read++;
            advanced = true;
        }
    if (advanced &&
        __builtin_expect(atomic_load_explicit(&f->ring_stalled, memory_order_seq_cst) > 0, 0))
        flat_nb_poke(c, -1);
}

/* The TM_NBC_POLL test of round t of request `obj` (flat_nb_t). */
static bool flat_nb_ready(void *obj, uint64_t t, int *cursor)
{
    flat_nb_t *n = obj;
    tm_mpi_comm_t *c = n->c;
    tm_coll_flat_t *f = c->flat;
    if (!n->written && !flat_nb_write(n, t))
        return false;
    if (n->buf) {
        if (!flat_nb_arrived(n, t, cursor))
            return false;
        int first = n->bcast ? n->root : 0, last = n->bcast ? n->root : f->size - 1;
        bool sized = true;
        for (int k = first; k <= last; k++) {
            const flat_entry_t *e = &flat_rings(f)[k].entries[t % FLAT_RING_DEPTH];
            const tm_coll_sig_t *theirs = &e->sig;
            if (__builtin_expect(e->key != n->sig.key && !tm_coll_sig_equal(theirs, &n->sig), 0)) {
                if (!tm_coll_sig_calls_equal(theirs, &n->sig))
                    return false; /* another call: the ledger breaks the communicator */
                if (theirs->bytes != n->sig.bytes)
                    sized = false;
            }
        }
        if (!sized) {
            n->err = MPI_ERR_TRUNCATE;
            if (n->s)
                tm_nbc_sched_fail(n->s, n->err);
        } else if (n->bcast) {
            const flat_entry_t *e = &flat_rings(f)[n->root].entries[t % FLAT_RING_DEPTH];
            tm_mpi_type_unpack(e->data, n->sig.bytes, n->buf, n->count, n->type, 0);
        } else if (n->count > 0) {
            /* In rank order, as flat_fold: entry[k] op (the entries after it). */
            size_t bytes = n->count * n->type->size;
            memcpy(n->buf, flat_rings(f)[last].entries[t % FLAT_RING_DEPTH].data, bytes);
            for (int k = last - 1; k >= 0; k--)
                tm_mpi_op_apply(n->op, flat_rings(f)[k].entries[t % FLAT_RING_DEPTH].data, n->buf,
                                n->count, n->type);
        }
    }
    flat_nb_read(c, t);
    /* release: our last look at the block comes before the view lets it go */
    atomic_fetch_add_explicit(&c->flat_ring_seen, 1, memory_order_release);
    return true;
}

int tm_coll_flat_nb(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const tm_coll_sig_t *sig,
                    const void *data, void *buf, size_t count, tm_mpi_type_t *type, tm_mpi_op_t *op,
                    int root, MPI_Request *request)
{
    flat_get(r, c);
    uint64_t t = ++c->flat_ring_rounds;
    bool bcast = op == NULL;
    flat_nb_t n = {
        .c = c,
        .err = MPI_SUCCESS,
        .root = root,
        .bcast = bcast,
        .data = bcast ? buf : data,
        .buf = bcast ? (c->rank == root ? NULL : buf) : (root < 0 || c->rank == root ? buf : NULL),
        .count = count,
        .type = type,
        .op = op,
        .sig = *sig,
        .written = bcast && c->rank != root, /* a broadcast's members write nothing */
    };
    /* Done at once (a broadcast's root, a reduction's non-root, the last member to come): a
     * request complete from the start, without a schedule. */
    int cursor = 0;
    if (flat_nb_ready(&n, t, &cursor))
        return tm_coll_done(r, c, call, n.err, request);
    tm_nbc_sched_t *s = tm_nbc_sched_create(r, c, sizeof(flat_nb_t));
    if (!s) {
        /* No request will look: the round counts as read, so that the ring goes on, and the
         * lack of memory is reported. */
        if (n.stalled)
            atomic_fetch_sub_explicit(&c->flat->ring_stalled, 1, memory_order_relaxed);
        flat_nb_read(c, t);
        atomic_fetch_add_explicit(&c->flat_ring_seen, 1, memory_order_relaxed);
        return tm_coll_run(r, c, call, NULL, request);
    }
    flat_nb_t *kept = tm_nbc_sched_scratch(s);
    *kept = n;
    kept->s = s;
    /* What is left once its entry is written is to read at most 256 bytes and fold them with a
     * predefined operation, which only this member waits for: the rank does it in its calls, as
     * its own poll (no lock, no pass over the engine, no thread woken). A write the ring stalled
     * (the others wait for it) and a user's operation (which may take any time) go to its
     * progress thread if that has a core of its own, while the rank may compute. */
    bool background =
        (!n.written || (op && !op->predefined)) && tm_rt_progress_alone(r->rt->world_rank);
    tm_nbc_sched_where(s, background ? TM_NBC_ANY : TM_NBC_RANK);
    tm_nbc_sched_poll_data(s, flat_nb_ready, kept, t, type, op);
    return tm_coll_run(r, c, call, s, request);
}

/* What a member that lets go of its view waits for: every member has read up to `round`. */
typedef struct flat_nb_release {
    tm_coll_flat_t *f;
    uint64_t round;
    const _Atomic int *broken; /* the communicator's (check.h), or never_broken */
} flat_nb_release_t;

static bool flat_nb_all_read(void *arg)
{
    const flat_nb_release_t *w = arg;
    return flat_nb_read_by_all(w->f) >= w->round ||
           atomic_load_explicit(w->broken, memory_order_acquire);
}

/* Waits (progressing) until the requests of c's member's rounds in the ring are complete, then
 * until every member has read them: a member may get to a round after the others have all
 * finished it (a broadcast's root is done at once) and let go of their views, and the block
 * must still hold what it reads. The wait counts itself in ring_stalled, so that the readers
 * poke it. Either ends if the communicator broke (as flat_ibarriers_wait). */
static void flat_nb_wait(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call)
{
    if (c->flat_ring_rounds == 0 ||
        !flat_wait(r, c, call, &c->flat_ring_seen, c->flat_ring_rounds, NULL, 0))
        return;
    tm_coll_flat_t *f = c->flat;
    flat_nb_release_t w = {f, c->flat_ring_rounds, tm_coll_check_abort_flag(c)};
    if (!w.broken)
        w.broken = &never_broken;
    if (flat_nb_read_by_all(f) >= w.round)
        return;
    /* Counted, then looked again (Dekker with flat_nb_read). */
    atomic_fetch_add_explicit(&f->ring_stalled, 1, memory_order_seq_cst);
    flat_wait_t described = {.call = call, .comm = c};
    tm_p2p_wait_noted(r, flat_nb_all_read, &w, flat_note, &described);
    atomic_fetch_sub_explicit(&f->ring_stalled, 1, memory_order_relaxed);
}

bool tm_coll_use_flat(const tm_mpi_comm_t *c, size_t bytes)
{
    return c->size >= 2 && c->size <= TM_COLL_FLAT_RANKS && bytes <= TM_COLL_FLAT_BYTES && c->local;
}

bool tm_coll_use_flat_reduce(const tm_mpi_comm_t *c, size_t count, const tm_mpi_type_t *type)
{
    /* Dense: the op folds the slots as they are (a property of the type map, which the members
     * share for reductions). */
    bool dense = type->size == (size_t)type->extent && type->true_lb == 0 &&
                 type->true_extent == type->extent;
    return dense && tm_coll_use_flat(c, count * type->size);
}

/* The number of c's next round, its block made if needed. */
static uint64_t flat_next(tm_mpi_rank_t *r, tm_mpi_comm_t *c)
{
    /* A moment without sends from the rank's side: memory that a burst of its messages took
     * goes back once they are all received (a test unless a pool grew). */
    tm_p2p_matcher_trim(&r->p2p->match);
    flat_get(r, c);
    return ++c->flat_rounds;
}

int tm_coll_flat_barrier(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                         const tm_coll_sig_t *sig)
{
    return flat_round(r, c, call, flat_next(r, c), FLAT_BARRIER, 0, NULL, NULL, 0, sig);
}

/* Unpacks `len` bytes of a slot into (buf, count, type); true when they did not all fit: the
 * ranks passed different amounts of data. */
static bool flat_unpack(const unsigned char *in, size_t len, void *buf, size_t count,
                        const tm_mpi_type_t *type)
{
    tm_mpi_type_unpack(in, len, buf, count, type, 0);
    return len > count * type->size;
}

/* What a call returns: MPI_SUCCESS, or the truncation reported as the message algorithms do. */
static int flat_status(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, bool truncated)
{
    if (!truncated)
        return MPI_SUCCESS;
    return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_TRUNCATE,
                              "message truncated on receive: the ranks passed different amounts "
                              "of data");
}

int tm_coll_flat_bcast(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                       const tm_coll_sig_t *sig, void *buf, size_t count, tm_mpi_type_t *type,
                       int root)
{
    uint64_t round = flat_next(r, c);
    tm_coll_flat_t *f = c->flat;
    if (c->rank == root)
        *flat_slot_len(f, round, root) =
            tm_mpi_type_pack(buf, count, type, 0, count * type->size, flat_slot(f, round, root));
    int err = flat_round(r, c, call, round, FLAT_BCAST, 0, NULL, NULL, root, sig);
    if (err != MPI_SUCCESS)
        return err;
    bool truncated = false;
    if (c->rank != root)
        truncated =
            flat_unpack(flat_result(c)->result, flat_result(c)->result_len, buf, count, type);
    return flat_status(r, c, call, truncated);
}

int tm_coll_flat_reduce(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                        const tm_coll_sig_t *sig, const void *data, void *recvbuf, size_t count,
                        tm_mpi_type_t *type, tm_mpi_op_t *op, int root)
{
    uint64_t round = flat_next(r, c);
    size_t bytes = count * type->size;
    if (bytes > 0)
        memcpy(flat_slot(c->flat, round, c->rank), data, bytes);
    int err = flat_round(r, c, call, round, FLAT_REDUCE, count, type, op, root, sig);
    if (err != MPI_SUCCESS)
        return err;
    if ((root < 0 || c->rank == root) && bytes > 0) /* root -1: allreduce */
        memcpy(recvbuf, flat_result(c)->result, bytes);
    return MPI_SUCCESS;
}

/* Packs the size blocks of (count, type) of buf, one after the other, into `rank`'s slot, whose
 * length is then one block's (alltoall, scatter). */
static void flat_put_blocks(tm_coll_flat_t *f, uint64_t round, int rank, const void *buf,
                            size_t count, const tm_mpi_type_t *type)
{
    size_t block = count * type->size;
    tm_mpi_type_pack(buf, count * (size_t)f->size, type, 0, block * (size_t)f->size,
                     flat_slot(f, round, rank));
    *flat_slot_len(f, round, rank) = block;
}

/* Unpacks every member k's slot into block k of `recv`, but member `skip`'s (-1: none)
 * (allgather(v), gather); true when one did not fit. */
static bool flat_get_blocks(tm_coll_flat_t *f, uint64_t round, int skip,
                            const tm_coll_blocks_t *recv)
{
    bool truncated = false;
    for (int k = 0; k < f->size; k++)
        if (k != skip)
            truncated |= flat_unpack(flat_slot(f, round, k), *flat_slot_len(f, round, k),
                                     tm_coll_blocks_at(recv, k), tm_coll_blocks_count(recv, k),
                                     tm_coll_blocks_type(recv, k));
    return truncated;
}

/* Unpacks block `rank` of member k's slot, whose blocks are `len` bytes each, into (buf, count,
 * type) (alltoall, scatter); true when it did not fit. */
static bool flat_get_block(tm_coll_flat_t *f, uint64_t round, int k, int rank, size_t len,
                           void *buf, size_t count, const tm_mpi_type_t *type)
{
    return flat_unpack(flat_slot(f, round, k) + (size_t)rank * len, len, buf, count, type);
}

int tm_coll_flat_allgather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                           const tm_coll_sig_t *sig, const void *sendbuf, size_t sendcount,
                           tm_mpi_type_t *stype, const tm_coll_blocks_t *recv)
{
    uint64_t round = flat_next(r, c);
    tm_coll_flat_t *f = c->flat;
    bool in_place = !sendbuf;
    if (in_place) { /* the rank's block is in recvbuf already */
        sendbuf = tm_coll_blocks_at(recv, c->rank);
        sendcount = tm_coll_blocks_count(recv, c->rank);
        stype = tm_coll_blocks_type(recv, c->rank);
    }
    *flat_slot_len(f, round, c->rank) = tm_mpi_type_pack(
        sendbuf, sendcount, stype, 0, sendcount * stype->size, flat_slot(f, round, c->rank));
    /* Every member reads every slot after the round: the other set of slots takes the next
     * round, and the one after waits for this round's readers (they arrive at the next one). */
    int err = flat_round(r, c, call, round, FLAT_BARRIER, 0, NULL, NULL, 0, sig);
    if (err != MPI_SUCCESS)
        return err;
    return flat_status(r, c, call, flat_get_blocks(f, round, in_place ? c->rank : -1, recv));
}

int tm_coll_flat_reduce_scatter(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                                const tm_coll_sig_t *sig, const void *data, void *recvbuf,
                                size_t total, size_t first, size_t count, tm_mpi_type_t *type,
                                tm_mpi_op_t *op)
{
    uint64_t round = flat_next(r, c);
    if (total > 0)
        memcpy(flat_slot(c->flat, round, c->rank), data, total * type->size);
    int err = flat_round(r, c, call, round, FLAT_REDUCE, total, type, op, -1, sig);
    if (err != MPI_SUCCESS)
        return err;
    if (count > 0) /* in place, recvbuf held the data: it is in the slot */
        memcpy(recvbuf, flat_result(c)->result + first * type->size, count * type->size);
    return MPI_SUCCESS;
}

int tm_coll_flat_alltoall(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                          const tm_coll_sig_t *sig, const void *sendbuf, size_t sendcount,
                          tm_mpi_type_t *stype, void *recvbuf, size_t recvcount,
                          tm_mpi_type_t *rtype)
{
    uint64_t round = flat_next(r, c);
    tm_coll_flat_t *f = c->flat;
    if (!sendbuf) { /* in place: the blocks to send are in recvbuf, as the receive's */
        sendbuf = recvbuf;
        sendcount = recvcount;
        stype = rtype;
    }
    flat_put_blocks(f, round, c->rank, sendbuf, sendcount, stype);
    int err = flat_round(r, c, call, round, FLAT_BARRIER, 0, NULL, NULL, 0, sig);
    if (err != MPI_SUCCESS)
        return err;
    bool truncated = false;
    tm_coll_blocks_t recv = {.buf = recvbuf, .count = recvcount, .type = rtype};
    for (int k = 0; k < c->size; k++)
        truncated |= flat_get_block(f, round, k, c->rank, *flat_slot_len(f, round, k),
                                    tm_coll_blocks_at(&recv, k), recvcount, rtype);
    return flat_status(r, c, call, truncated);
}

int tm_coll_flat_gather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                        const tm_coll_sig_t *sig, const void *sendbuf, size_t sendcount,
                        tm_mpi_type_t *stype, void *recvbuf, size_t recvcount, tm_mpi_type_t *rtype,
                        int root)
{
    uint64_t round = flat_next(r, c);
    tm_coll_flat_t *f = c->flat;
    *flat_slot_len(f, round, c->rank) = tm_mpi_type_pack(
        sendbuf, sendcount, stype, 0, sendcount * stype->size, flat_slot(f, round, c->rank));
    /* Everyone waits for the round: the root reads the slots after it. */
    int err = flat_round(r, c, call, round, FLAT_BARRIER, 0, NULL, NULL, 0, sig);
    if (err != MPI_SUCCESS)
        return err;
    if (c->rank != root)
        return MPI_SUCCESS;
    /* The root's own block, in place, is there already. */
    tm_coll_blocks_t recv = {.buf = recvbuf, .count = recvcount, .type = rtype};
    int skip = tm_coll_blocks_at(&recv, root) == sendbuf ? root : -1;
    return flat_status(r, c, call, flat_get_blocks(f, round, skip, &recv));
}

int tm_coll_flat_scatter(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                         const tm_coll_sig_t *sig, const void *sendbuf, size_t sendcount,
                         tm_mpi_type_t *stype, void *recvbuf, size_t recvcount,
                         tm_mpi_type_t *rtype, int root)
{
    uint64_t round = flat_next(r, c);
    tm_coll_flat_t *f = c->flat;
    if (c->rank == root)
        flat_put_blocks(f, round, root, sendbuf, sendcount, stype);
    int err = flat_round(r, c, call, round, FLAT_BARRIER, 0, NULL, NULL, 0, sig);
    if (err != MPI_SUCCESS)
        return err;
    /* The root's own block, in place, is in sendbuf already (which may be read-only). */
    tm_coll_blocks_t send = {.buf = (void *)sendbuf, .count = sendcount, .type = stype};
    if (c->rank == root && recvbuf == tm_coll_blocks_at(&send, root))
        return MPI_SUCCESS;
    return flat_status(r, c, call,
                       flat_get_block(f, round, root, c->rank, *flat_slot_len(f, round, root),
                                      recvbuf, recvcount, rtype));
}

int tm_coll_flat_scan(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                      const tm_coll_sig_t *sig, const void *data, void *recvbuf, size_t count,
                      tm_mpi_type_t *type, tm_mpi_op_t *op, bool exclusive)
{
    tm_coll_flat_t *f = flat_get(r, c);
    uint64_t round = ++c->flat_scans;
    int k = c->rank, last = c->size - 1;
    size_t bytes = count * type->size;
    tm_coll_mismatch_t mismatch = {.a = -1}; /* on the chain up to this member */
    const unsigned char *before = NULL;      /* member k - 1's prefix */
    if (k > 0) {
        flat_prefix_t *in = &flat_link(f, k - 1)->prefix[round % FLAT_SCAN_DEPTH];
        if (!flat_wait(r, c, call, &in->round, round, NULL, 0)) /* in the ledger already */
            return tm_coll_check_broken_raise(r, c, call);
        if (in->broken)
            mismatch = in->mismatch;
        flat_compare(&mismatch, k - 1, &in->sig, k, sig);
        before = in->data;
    }
    /* Our prefix: into our link for member k + 1, into recvbuf for the last member's scan. */
    flat_prefix_t *out = NULL;
    unsigned char *prefix = NULL;
    if (k < last) {
        /* Member k + 1's count, read again only when what we saw last is not enough: the line
         * comes from its core. One acquire that saw count n covers our writes up to n + DEPTH. */
        if (round > FLAT_SCAN_DEPTH && c->flat_scans_next < round - FLAT_SCAN_DEPTH) {
            _Atomic uint64_t *next = &flat_link(f, k + 1)->finished;
            if (!flat_wait(r, c, call, next, round - FLAT_SCAN_DEPTH, NULL, 0))
                return tm_coll_check_broken_raise(r, c, call);
            c->flat_scans_next = atomic_load_explicit(next, memory_order_acquire);
        }
        out = &flat_link(f, k)->prefix[round % FLAT_SCAN_DEPTH];
        prefix = out->data;
        out->sig = *sig;
        out->broken = mismatch.a >= 0;
        if (out->broken)
            out->mismatch = mismatch;
    } else if (!exclusive) {
        prefix = recvbuf;
    }
    if (mismatch.a >= 0) {
        /* no prefix: the buffers stay as they were; the members after learn it from ours */
    } else if (prefix && bytes > 0) {
        if (prefix != data)
            memcpy(prefix, data, bytes);
        if (before)
            tm_mpi_op_apply(op, before, prefix, count, type); /* before op data */
    }
    /* recvbuf last: in place, it held the data. Exscan: member 0's is not significant. */
    if (bytes > 0 && mismatch.a < 0) {
        if (exclusive && before)
            memcpy(recvbuf, before, bytes);
        else if (!exclusive && prefix != recvbuf)
            memcpy(recvbuf, prefix, bytes);
    }
    if (out) { /* release: the prefix before its round number */
        atomic_store_explicit(&out->round, round, memory_order_release);
        tm_p2p_mailbox_poke_rank(tm_p2p_mailbox_get(c->group->world_ranks[k + 1], false));
    }
    if (k > 0 && round % FLAT_SCAN_REPORT == 0) {
        /* release: our reads of member k - 1's prefixes, this round's and those before, come
         * before it may write them again */
        atomic_store_explicit(&flat_link(f, k)->finished, round, memory_order_release);
        tm_p2p_mailbox_poke_rank(tm_p2p_mailbox_get(c->group->world_ranks[k - 1], false));
    }
    return mismatch.a >= 0 ? tm_coll_mismatch_raise(r, c, call, &mismatch) : MPI_SUCCESS;
}
