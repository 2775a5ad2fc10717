/*
 * Collective consistency (check.h): comparing and describing members' signatures, and the
 * ledger that compares them where the members never meet.
 *
 * Where the members meet, they compare there: the flat block's leaders (flat.c), and the
 * schedules' messages, whose tags carry the signature (a hash of it beside the schedule's
 * number), so that a message of another call never matches a receive and no rank computes with
 * another call's data. Then the ranks of the mismatched calls wait for messages that do not
 * come, or for members that never arrive in the flat block; and some ranks of a mismatch meet
 * nobody (a broadcast's root sends and is done). So every member also writes the signature of
 * each of its collective calls on a communicator into its line of the communicator's ledger,
 * numbered by the call's rank among the communicator's collective calls; a call of the flat
 * rounds only when it sleeps (one that does not met all the others, which compared it), a flat
 * scan when it starts (the chain's first member waits for nobody). Between two calls on
 * messages the ledger compares the calls alone: their amounts of data meet in the messages,
 * which fail a receive too long or too short and leave the communicator usable. A thread of the
 * process compares the ledgers every CHECK_PERIOD_MS: each member's calls with the next
 * member's (if every neighbouring pair agrees, all agree). A mismatch breaks the communicator:
 * the ledger keeps it, every member is woken, and every collective under way on it, and any
 * later one, fails with it, the flat ones and the schedules (nbc/'s abort flag) alike, leaving
 * their messages unreceived. A member that let its view go (MPI_Comm_free, MPI_Finalize)
 * compares its latest calls with its neighbours' first, and hears of a mismatch it was not told
 * of (a broadcast's root, say). The ledger keeps the CHECK_DEPTH latest calls of each member:
 * a mismatch between members further apart than that in their calls (non-blocking collectives
 * under way) may go unseen.
 *
 * Cost: per schedule collective or flat scan, an entry written in a line of the rank's own (and
 * for a schedule, its hold on the ledger counted there); per flat call that sleeps, the same; a
 * mismatch is found within CHECK_PERIOD_MS or two, by a thread that reads two lines per member
 * and new call.
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll/check.h"
#include "obj/group.h"
#include "p2p/p2p.h"

bool tm_coll_check_types = true;

/* The length of a call's name less its "_c": a large-count form (MPI_Bcast_c) is the same
 * collective as its int form, which other members may call (MPI 4.0, section 2.5.8). */
static size_t kind_len(const char *name)
{
    size_t n = strlen(name);
    return n > 2 && name[n - 2] == '_' && name[n - 1] == 'c' ? n - 2 : n;
}

bool tm_coll_sig_names_equal(const char *a, const char *b)
{
    size_t n = kind_len(a);
    return n == kind_len(b) && memcmp(a, b, n) == 0;
}

/* The operation of a signature, in words. */
static const char *op_name(int kind)
{
    tm_mpi_op_t *op = NULL;
    if (kind == TM_MPI_OP_USER)
        return "a user-defined operation";
    for (MPI_Op h = MPI_MAX; h <= MPI_NO_OP; h++) /* the predefined handles, by kind */
        if (tm_mpi_op_lookup(h, &op) == 0 && (int)op->kind == kind)
            return op->name;
    return "an operation";
}

static const tm_mpi_group_t *ledger_first_group(const tm_mpi_comm_t *c);

/* On an intercommunicator, where the ledger holds both groups: the mismatch of members a and b
 * of the ledger, which compares the calls and their operations only (each group passes its own
 * roots, and pieces of data of its own size). */
static int inter_mismatch_raise(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, int a,
                                const tm_coll_sig_t *sa, int b, const tm_coll_sig_t *sb)
{
    char who[2][64];
    int first = ledger_first_group(c)->size;
    for (int i = 0; i < 2; i++) {
        int k = i ? b : a;
        bool in_first = k < first;
        snprintf(who[i], sizeof who[i], "rank %d of the %s group", in_first ? k : k - first,
                 in_first == (ledger_first_group(c) == c->group) ? "local" : "remote");
    }
    if (sa->call != sb->call && !tm_coll_sig_names_equal(sa->call, sb->call))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_OTHER,
                                  "collective mismatch on %s: %s called %s, %s %s", c->name, who[0],
                                  sa->call, who[1], sb->call);
    return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_OP,
                              "collective mismatch on %s: %s called %s with %s, %s with %s",
                              c->name, who[0], sa->call, op_name(sa->op), who[1], op_name(sb->op));
}

int tm_coll_mismatch_raise(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                           const tm_coll_mismatch_t *m)
{
    const tm_coll_sig_t *a = &m->sig_a, *b = &m->sig_b;
    /* In rank order: the message reads the same on every member. */
    int ra = m->a, rb = m->b;
    if (rb < ra) {
        const tm_coll_sig_t *t = a;
        a = b;
        b = t;
        ra = m->b;
        rb = m->a;
    }
    if (c->remote)
        return inter_mismatch_raise(r, c, call, ra, a, rb, b);
    if (a->call != b->call && !tm_coll_sig_names_equal(a->call, b->call))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_OTHER,
                                  "collective mismatch on %s: rank %d called %s, rank %d %s",
                                  c->name, ra, a->call, rb, b->call);
    if (a->root != b->root)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ROOT,
                                  "collective mismatch on %s: rank %d called %s with root %d, "
                                  "rank %d with root %d",
                                  c->name, ra, a->call, a->root, rb, b->root);
    if (a->op != b->op)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_OP,
                                  "collective mismatch on %s: rank %d called %s with %s, rank %d "
                                  "with %s",
                                  c->name, ra, a->call, op_name(a->op), rb, op_name(b->op));
    if (a->bytes != b->bytes)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_TRUNCATE,
                                  "collective mismatch on %s: rank %d called %s with %llu bytes "
                                  "of data, rank %d with %llu",
                                  c->name, ra, a->call, (unsigned long long)a->bytes, rb,
                                  (unsigned long long)b->bytes);
    return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_TYPE,
                              "collective mismatch on %s: rank %d called %s with %llu bytes of "
                              "other types than rank %d's (integers, floating-point and complex "
                              "numbers of each size compared; [coll] check_types = false turns "
                              "this off)",
                              c->name, ra, a->call, (unsigned long long)a->bytes, rb);
}

/* ---- the ledger ---- */

#define CHECK_DEPTH     4   /* the latest calls of each member that the ledger keeps */
#define CHECK_PERIOD_MS 100 /* between two comparisons of the ledgers */

/* One call of a member: a seqlock of one writer, the member, whose fields are atomics so that the
 * comparing thread may read them while they change (it then sees the number change and ignores
 * them). */
typedef struct ledger_entry {
    _Atomic uint64_t seq; /* the call's number on the communicator; 0: none, or being written */
    const char *_Atomic call;
    _Atomic int root, op;
    _Atomic uint64_t bytes, types, key;
    _Atomic int meet; /* tm_coll_meet_t: two flat calls that meet in one place compared there */
} ledger_entry_t;

typedef struct ledger_member {
    alignas(TM_SHM_CACHE_LINE) ledger_entry_t entries[CHECK_DEPTH]; /* by seq % CHECK_DEPTH */
    uint64_t compared; /* the comparing thread's: its calls compared with the next member's */
    /* The member's hold on its reference (`refs`): 1 for its view, and 1 for each of its
     * schedules that reads `broken`; the last to go puts the reference. Counted here, in the
     * member's own line, not in `refs`, which every member's schedules would pass from core to
     * core, two atomic operations each. */
    _Atomic int holds;
    struct tm_coll_ledger *ledger;
} ledger_member_t;

struct tm_coll_ledger {
    /* The key: context id, world rank of rank 0 (of an intercommunicator's groups, the lower);
     * the members, both groups' for an intercommunicator (ledger_index). */
    int context_id, leader, size;
    /* Members whose view, or a schedule that reads `broken`, has not gone yet (their `holds`).
     * It starts at the size, not at the views that took it: a member may make its calls and let
     * its view go before a slower one even looks for the ledger, whose entries must outlive it. */
    _Atomic int refs;
    int *world;                         /* the members' world ranks, to wake them when it breaks */
    struct tm_coll_ledger *next, *prev; /* in the registry's list, which the comparer walks */
    struct tm_coll_ledger *hnext;       /* in the registry's bucket of its key */
    /* 0, or 1 once a mismatch broke the communicator: written once, by who found it, with the
     * call's number and what differed before (release). */
    alignas(TM_SHM_CACHE_LINE) _Atomic int broken;
    uint64_t broken_seq;
    tm_coll_mismatch_t mismatch;
    ledger_member_t members[];
};

/* The live ledgers: a list, and buckets by key, since a member that never waits (a rank 0
 * duplicating and freeing communicators) may leave thousands alive for the others to release. */
#define LEDGER_BUCKETS 4096

static struct {
    pthread_mutex_t lock;
    struct tm_coll_ledger *head;
    struct tm_coll_ledger *buckets[LEDGER_BUCKETS];
} registry = {PTHREAD_MUTEX_INITIALIZER, NULL, {NULL}};

static struct tm_coll_ledger **ledger_bucket(int context_id, int leader)
{
    unsigned h = (unsigned)context_id * 0x9e3779b1u ^ (unsigned)leader * 0x85ebca6bu;
    return &registry.buckets[(h >> 12) % LEDGER_BUCKETS];
}

static void *comparer_main(void *arg);

/* The comparing thread: started with the first ledger, for the life of the process. */
static void comparer_start(void)
{
    pthread_t t;
    pthread_attr_t attr;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* signals are the ranks' threads' */
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    pthread_create(&t, &attr, comparer_main, NULL); /* without it, the waits compare nothing */
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* An intercommunicator's ledger holds both groups, the one whose rank 0 has the lower world rank
 * first, so that the comparing thread compares calls across them as within each. */
static const tm_mpi_group_t *ledger_first_group(const tm_mpi_comm_t *c)
{
    return !c->remote || c->group->world_ranks[0] < c->remote->world_ranks[0] ? c->group
                                                                              : c->remote;
}

static int ledger_size(const tm_mpi_comm_t *c)
{
    return c->size + (c->remote ? c->remote->size : 0);
}

/* Member `rank` of c's group, in c's ledger. */
static int ledger_index(const tm_mpi_comm_t *c, int rank)
{
    return ledger_first_group(c) == c->group ? rank : c->remote->size + rank;
}

/* c's ledger, made by its first member that needs it (or lets its view go); NULL when out of
 * memory (the check then does nothing for c). */
static struct tm_coll_ledger *ledger_get(tm_mpi_comm_t *c)
{
    static pthread_once_t comparer_once = PTHREAD_ONCE_INIT;
    const tm_mpi_group_t *first = ledger_first_group(c);
    const tm_mpi_group_t *second = first == c->group ? c->remote : c->group;
    int leader = first->world_ranks[0], size = ledger_size(c);
    pthread_mutex_lock(&registry.lock);
    struct tm_coll_ledger **bucket = ledger_bucket(c->context_id, leader), *l = *bucket;
    while (l && (l->context_id != c->context_id || l->leader != leader))
        l = l->hnext;
    if (!l) {
        size_t bytes = sizeof *l + (size_t)size * sizeof(ledger_member_t);
        bytes = (bytes + TM_SHM_CACHE_LINE - 1) / TM_SHM_CACHE_LINE * TM_SHM_CACHE_LINE;
        int *world = malloc((size_t)size * sizeof *world);
        if (!world || !(l = aligned_alloc(TM_SHM_CACHE_LINE, bytes))) {
            pthread_mutex_unlock(&registry.lock);
            free(world);
            return NULL;
        }
        memset(l, 0, bytes);
        l->context_id = c->context_id;
        l->leader = leader;
        l->size = size;
        atomic_init(&l->refs, size);
        for (int k = 0; k < size; k++) {
            atomic_init(&l->members[k].holds, 1);
            l->members[k].ledger = l;
        }
        memcpy(world, first->world_ranks, (size_t)first->size * sizeof *world);
        if (second)
            memcpy(world + first->size, second->world_ranks, (size_t)second->size * sizeof *world);
        l->world = world;
        atomic_init(&l->broken, 0);
        l->next = registry.head;
        l->prev = NULL;
        if (registry.head)
            registry.head->prev = l;
        registry.head = l;
        l->hnext = *bucket;
        *bucket = l;
    }
    pthread_mutex_unlock(&registry.lock);
    if (size > 1)
        pthread_once(&comparer_once, comparer_start);
    return l;
}

static void ledger_put(struct tm_coll_ledger *l)
{
    if (!l || atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) != 1)
        return;
    pthread_mutex_lock(&registry.lock);
    if (l->prev)
        l->prev->next = l->next;
    else
        registry.head = l->next;
    if (l->next)
        l->next->prev = l->prev;
    struct tm_coll_ledger **link = ledger_bucket(l->context_id, l->leader);
    while (*link != l)
        link = &(*link)->hnext;
    *link = l->hnext;
    pthread_mutex_unlock(&registry.lock);
    free(l->world);
    free(l);
}

/* Drops one of member m's holds on its reference. */
static void member_put(ledger_member_t *m)
{
    if (atomic_fetch_sub_explicit(&m->holds, 1, memory_order_acq_rel) == 1)
        ledger_put(m->ledger);
}

/* A schedule no longer reads its ledger's `broken` (tm_nbc_sched_abort_on's release). */
static void ledger_put_schedule(void *member)
{
    member_put(member);
}

static void entry_write(ledger_entry_t *e, uint64_t seq, const tm_coll_sig_t *sig, int meet)
{
    atomic_store_explicit(&e->seq, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release); /* the 0 before the fields */
    atomic_store_explicit(&e->call, sig->call, memory_order_relaxed);
    atomic_store_explicit(&e->root, sig->root, memory_order_relaxed);
    atomic_store_explicit(&e->op, sig->op, memory_order_relaxed);
    atomic_store_explicit(&e->bytes, sig->bytes, memory_order_relaxed);
    atomic_store_explicit(&e->types, sig->types, memory_order_relaxed);
    atomic_store_explicit(&e->key, sig->key, memory_order_relaxed);
    atomic_store_explicit(&e->meet, meet, memory_order_relaxed);
    atomic_store_explicit(&e->seq, seq, memory_order_release);
}

/* Member k's call number `seq`, into *sig and *meet: 1; 0 when k has not made it yet (or is
 * writing it); -1 when k is past it (its entry was reused). */
static int entry_read(struct tm_coll_ledger *l, int k, uint64_t seq, tm_coll_sig_t *sig, int *meet)
{
    ledger_entry_t *e = &l->members[k].entries[seq % CHECK_DEPTH];
    uint64_t first = atomic_load_explicit(&e->seq, memory_order_acquire);
    if (first != seq)
        return first > seq ? -1 : 0;
    sig->call = atomic_load_explicit(&e->call, memory_order_relaxed);
    sig->root = atomic_load_explicit(&e->root, memory_order_relaxed);
    sig->op = atomic_load_explicit(&e->op, memory_order_relaxed);
    sig->bytes = atomic_load_explicit(&e->bytes, memory_order_relaxed);
    sig->types = atomic_load_explicit(&e->types, memory_order_relaxed);
    sig->key = atomic_load_explicit(&e->key, memory_order_relaxed);
    *meet = atomic_load_explicit(&e->meet, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire); /* the fields before the second look */
    uint64_t again = atomic_load_explicit(&e->seq, memory_order_relaxed);
    return again == seq ? 1 : again > seq ? -1 : 0;
}

/* The latest call of member k in the ledger, 0 for none. */
static uint64_t entry_latest(struct tm_coll_ledger *l, int k)
{
    uint64_t latest = 0;
    for (int d = 0; d < CHECK_DEPTH; d++) {
        uint64_t seq = atomic_load_explicit(&l->members[k].entries[d].seq, memory_order_acquire);
        if (seq > latest)
            latest = seq;
    }
    return latest;
}

/* Breaks l at call `seq` with mismatch m (unless it broke already) and wakes every member. */
static void ledger_break(struct tm_coll_ledger *l, uint64_t seq, const tm_coll_mismatch_t *m)
{
    static pthread_mutex_t breaking = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&breaking);
    bool first = atomic_load_explicit(&l->broken, memory_order_relaxed) == 0;
    if (first) {
        l->broken_seq = seq;
        l->mismatch = *m;
        atomic_store_explicit(&l->broken, 1, memory_order_release);
    }
    pthread_mutex_unlock(&breaking);
    if (!first)
        return;
    for (int k = 0; k < l->size; k++) {
        int world = l->world[k];
        tm_p2p_mailbox_poke(tm_p2p_mailbox_get(world, false));
        tm_p2p_mailbox_poke(tm_p2p_mailbox_get(world, true));
    }
}

/* Compares call `seq` of members k and n: true when it broke l. */
static bool compare_call(struct tm_coll_ledger *l, int k, int n, uint64_t seq, bool *pending)
{
    tm_coll_sig_t a, b;
    int meet_a, meet_b;
    int got_a = entry_read(l, k, seq, &a, &meet_a), got_b = entry_read(l, n, seq, &b, &meet_b);
    if (got_a == 0 || got_b == 0) {
        *pending = true; /* a member not there yet (or a flat call that met everyone) */
        return false;
    }
    if (got_a < 0 || got_b < 0)
        return false;
    /* Two flat calls that met in one place were compared there (and a mismatch reported to
     * every member, the communicator left usable). */
    if (meet_a == meet_b && meet_a != TM_COLL_MEET_MESSAGES)
        return false;
    /* Two calls on messages: their amounts of data meet in the messages, which report a
     * difference as a truncation and leave the communicator usable; the calls themselves
     * compare here. A call that met in the flat block and one on messages differ in their
     * pieces, if not in their calls (the members choose alike from alike pieces). */
    if (meet_a == TM_COLL_MEET_MESSAGES && meet_b == TM_COLL_MEET_MESSAGES
            ? tm_coll_sig_calls_equal(&a, &b)
            : tm_coll_sig_equal(&a, &b))
        return false;
    tm_coll_mismatch_t m = {k, n, a, b};
    ledger_break(l, seq, &m);
    return true;
}

/* Compares, in l, the calls of each member with the next member's that it has not compared yet.
 * A pair where a member is not there yet is compared again next time. */
static void ledger_compare(struct tm_coll_ledger *l)
{
    for (int k = 0; k + 1 < l->size; k++) {
        if (atomic_load_explicit(&l->broken, memory_order_relaxed))
            return;
        ledger_member_t *m = &l->members[k];
        uint64_t latest = entry_latest(l, k), next = entry_latest(l, k + 1);
        if (latest > next)
            latest = next; /* only calls that both have made */
        if (m->compared + CHECK_DEPTH < latest)
            m->compared = latest - CHECK_DEPTH;
        while (m->compared < latest) {
            bool pending = false;
            if (compare_call(l, k, k + 1, m->compared + 1, &pending))
                return;
            if (pending)
                break;
            m->compared++;
        }
    }
}

static void *comparer_main(void *arg)
{
    (void)arg;
    for (;;) {
        struct timespec period = {0, CHECK_PERIOD_MS * 1000000L};
        nanosleep(&period, NULL);
        pthread_mutex_lock(&registry.lock);
        for (struct tm_coll_ledger *l = registry.head; l; l = l->next)
            if (!atomic_load_explicit(&l->broken, memory_order_acquire))
                ledger_compare(l);
        pthread_mutex_unlock(&registry.lock);
    }
    return NULL;
}

static struct tm_coll_check *check_of(tm_mpi_comm_t *c)
{
    if (c->check)
        return c->check;
    struct tm_coll_check *k = aligned_alloc(alignof(struct tm_coll_check), sizeof *k);
    if (!k)
        return NULL;
    memset(k, 0, sizeof *k);
    k->index = ledger_index(c, c->rank);
    k->ledger = ledger_get(c);
    if (!k->ledger) {
        free(k);
        return NULL;
    }
    k->broken = &k->ledger->broken;
    c->check = k;
    return k;
}

int tm_coll_check_begin_slow(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                             const tm_coll_sig_t *sig, tm_coll_meet_t meet, uint64_t seq)
{
    struct tm_coll_check *k = check_of(c);
    if (!k)
        return MPI_SUCCESS;
    struct tm_coll_ledger *l = k->ledger;
    if (__builtin_expect(atomic_load_explicit(&l->broken, memory_order_acquire) != 0, 0))
        return tm_coll_check_broken_raise(r, c, call);
    /* A round's members all meet there: its call goes into the ledger only if it sleeps
     * (tm_coll_check_sleeps). The chain's first member waits for nobody, and messages meet
     * only in their tags: theirs go in now. */
    if (meet == TM_COLL_MEET_ROUND)
        return MPI_SUCCESS;
    entry_write(&l->members[k->index].entries[seq % CHECK_DEPTH], seq, sig, meet);
    /* The tag's signature bits: a hash of the name, root and operation (not of the name's
     * address, which may differ for equal names). */
    if (k->hashed_call != sig->call) {
        uint32_t h = 2166136261u; /* FNV-1a, of the name less its "_c" */
        for (size_t i = 0, n = kind_len(sig->call); i < n; i++)
            h = (h ^ (unsigned char)sig->call[i]) * 16777619u;
        k->hashed_call = sig->call;
        k->call_hash = h;
    }
    uint32_t h = k->call_hash ^ ((uint32_t)sig->root * 2654435761u) ^ ((uint32_t)sig->op << 24);
    c->coll_tag_sig = (int)((h ^ (h >> 15)) & 0x7fff);
    return MPI_SUCCESS;
}

void tm_coll_check_sleeps(tm_mpi_comm_t *c, uint64_t seq, const tm_coll_sig_t *sig,
                          tm_coll_meet_t meet)
{
    if (c->check) /* none: out of memory when it was made */
        entry_write(&c->check->ledger->members[c->check->index].entries[seq % CHECK_DEPTH], seq,
                    sig, meet);
}

void tm_coll_check_abort_on(tm_mpi_comm_t *c, tm_nbc_sched_t *s)
{
    if (!c->check)
        return;
    struct tm_coll_ledger *l = c->check->ledger;
    ledger_member_t *m = &l->members[c->check->index];
    /* Relaxed: taken from the view's hold, which keeps the ledger alive. */
    atomic_fetch_add_explicit(&m->holds, 1, memory_order_relaxed); /* the schedule's */
    tm_nbc_sched_abort_on(s, &l->broken, ledger_put_schedule, m);
}

bool tm_coll_check_is_broken(const tm_mpi_comm_t *c)
{
    return c->check && atomic_load_explicit(&c->check->ledger->broken, memory_order_acquire);
}

int tm_coll_check_broken_raise(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call)
{
    struct tm_coll_ledger *l = c->check->ledger;
    c->check->told = true;
    if (c->coll_calls > l->broken_seq)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_OTHER,
                                  "the collectives on %s are out of step since a mismatch at its "
                                  "collective call %llu",
                                  c->name, (unsigned long long)l->broken_seq);
    return tm_coll_mismatch_raise(r, c, call, &l->mismatch);
}

int tm_coll_check_final(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call)
{
    struct tm_coll_check *k = c->check;
    if (!k)
        return MPI_SUCCESS;
    /* Its latest calls against its neighbours': the calls of a member that waited for nobody
     * (a broadcast's root, say) may be all a slower neighbour waits on. */
    struct tm_coll_ledger *l = k->ledger;
    atomic_thread_fence(memory_order_seq_cst);
    uint64_t latest = entry_latest(l, k->index);
    for (uint64_t seq = latest > CHECK_DEPTH ? latest - CHECK_DEPTH + 1 : 1; seq <= latest; seq++)
        for (int n = k->index - 1; n <= k->index + 1; n += 2) {
            bool pending;
            if (n >= 0 && n < l->size && !atomic_load_explicit(&l->broken, memory_order_acquire))
                compare_call(l, k->index, n, seq, &pending);
        }
    if (!tm_coll_check_is_broken(c) || k->told)
        return MPI_SUCCESS;
    k->told = true;
    const tm_coll_mismatch_t *m = &l->mismatch;
    if (c->remote)
        return tm_coll_mismatch_raise(r, c, call, m);
    int ra = m->a < m->b ? m->a : m->b, rb = m->a < m->b ? m->b : m->a;
    const tm_coll_sig_t *a = m->a < m->b ? &m->sig_a : &m->sig_b;
    const tm_coll_sig_t *b = m->a < m->b ? &m->sig_b : &m->sig_a;
    return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_OTHER,
                              "collective mismatch on %s at its collective call %llu, which "
                              "returned on this rank before the mismatch was seen: rank %d called "
                              "%s (root %d), rank %d %s (root %d)",
                              c->name, (unsigned long long)l->broken_seq, ra, a->call, a->root, rb,
                              b->call, b->root);
}

void tm_coll_check_release(tm_mpi_rank_t *r, tm_mpi_comm_t *c)
{
    struct tm_coll_check *k = c->check;
    if (!k) {
        if (ledger_size(c) > 1)
            ledger_put(ledger_get(c)); /* one member less, which never made a collective call */
        return;
    }
    member_put(&k->ledger->members[k->index]);
    free(k);
    c->check = NULL;
}
