/*
 * Dynamic broadcasts (docs/architecture.md, "Dynamic broadcasts"; the COMPAS 2020 paper,
 * section 3.3): only the root knows the destinations; each destination gets the data as a
 * point-to-point message from the root, forwarded down a tree by the runtimes of the
 * destinations above it.
 *
 * The tree. Over the list L = [root, dests...] of n nodes, node 0 (the root) sends to its
 * children one after the other; each child heads a sublist of L that follows the previous one's,
 * in which it is node 0 again. An active message to a child carries that sublist: its
 * destinations and, for each, its number among the root's dynamic broadcasts to it (p2p/p2p.h,
 * "Order with dynamic broadcasts"). The largest subtree is sent first, as in the paper's figure
 * 1. The paper's tree is binomial (children at offsets 1, 2, 4, ...), which suits a hop that
 * costs what a send does; here a hop through a runtime costs about 8 sends, and the tree is the
 * one that is fastest then (tree_children): up to 8 destinations the root sends to each itself,
 * and with more, each subtree is as wide as its head's time allows. 32 destinations:
 *
 *   L = root d1 .. d32    root -> d1 [d1..d7], d8 [d8..d13], d14 [d14..d18], d19 [d19..d22],
 *                         d23 [d23..d25], d26 [d26 d27], then d28, d29, .. d32 (leaves)
 *                         d1 -> d2, d3, .. d7 (leaves); d8 -> d9 .. d13; ...
 *
 * A child heading a sublist of one (a leaf) has nothing to forward: it gets no active message
 * but the data itself, straight into its program's mailbox, as the message from the root that
 * its own runtime would have made (from the root itself, eager data goes through the fastbox of
 * the pair, as the root's sends do). That spares most destinations a hop through their runtime,
 * which, with the program asleep in its receive, is a wake-up of the progress thread and then
 * one of the program.
 *
 * Cost: the last destination has its message about log_1.17 n sends after the root started
 * (the binomial tree: log2 n hops of 9 sends each); no node sends more than that many messages;
 * the root's only O(ndests) work is numbering the destinations.
 *
 * The data. Small data (up to [p2p] eager_limit, with the header, in a cell) rides in the active
 * messages: each node copies it into its children's messages and into a message to its own
 * program. Larger data is copied once per destination, by its program's receive, straight from
 * the root's buffer, as a point-to-point message is: in one address space every destination can
 * read it, and each copy more would only cost time and memory. The exception is distance: a node
 * heading a subtree on another NUMA node than the data ([placement], tm_rt_numa_node) first
 * copies it into a buffer of its own on its node (staging), before forwarding, and its subtree
 * reads that copy instead, so that the data crosses to each NUMA node once per subtree rather
 * than once per destination. A leaf never stages: its one copy is its receive.
 * Each reader holds a reference to the data it reads, taken by the node that forwards it the
 * message; the root's request completes when the last reference to its buffer goes (every
 * destination reading it has received, every stager has copied), a staging buffer goes back to
 * its rank with its last.
 *
 * Who runs it: the engine's holder at each destination, its progress thread or the rank itself
 * in any MPI call (nbc/engine.c). A message is forwarded, and handed to the program, as soon as
 * it comes: never after the program's receive, which may come much later.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "obj/group.h"
#include "runtime/profile.h"
#include "runtime/rank.h"
#include "coll/coll.h"
#include "p2p/p2p.h"

/* Eager active messages keep room for this many destinations in the cell after the data; longer
 * lists go in a block of memory of their own. */
#define EAGER_ENTRIES_ROOM 16

/* A destination in an active message: its world rank, and the number of this broadcast among
 * the root's dynamic broadcasts to it. */
typedef struct dyn_entry {
    int world;
    uint32_t seq;
} dyn_entry_t;

/* The data of a broadcast as one node holds it for the nodes below: the root's buffer, or a
 * forwarder's staging copy. */
typedef struct dyn_data {
    _Atomic int refs;
    const void *buf;
    size_t count;
    tm_mpi_type_t *type; /* the root's (retained), or MPI_BYTE */
    size_t bytes;
    tm_p2p_request_t *req;       /* the root's request, completed at the last reference */
    tm_p2p_mailbox_t *req_owner; /* the root's mailbox, to poke then */
    struct staging *staging;     /* a forwarder's copy, given back at the last reference */
    int staging_owner;           /* the forwarder's world rank */
    int home;                    /* the NUMA node the data is on (tm_rt_numa_node), < 0: any */
} dyn_data_t;

/* A staging buffer. Each rank keeps the last one it used for the next broadcast it forwards
 * (spares[rank]): a buffer taken fresh from the system costs a page fault per page, as much as
 * the copy into it. */
typedef struct staging {
    size_t capacity;
    alignas(64) unsigned char bytes[];
} staging_t;

static staging_t *_Atomic *spares; /* per world rank */
static pthread_once_t spares_once = PTHREAD_ONCE_INIT;

static void spares_create(void)
{
    spares = calloc((size_t)tm_rt_world_size(), sizeof *spares);
}

/* A staging buffer of `bytes` for rank `me`: its spare if big enough. NULL when out of memory. */
static staging_t *staging_get(int me, size_t bytes)
{
    pthread_once(&spares_once, spares_create);
    staging_t *s =
        spares ? atomic_exchange_explicit(&spares[me], NULL, memory_order_acquire) : NULL;
    if (s && s->capacity >= bytes)
        return s;
    free(s);
    s = malloc(sizeof *s + bytes);
    if (s)
        s->capacity = bytes;
    return s;
}

/* Gives staging buffer s back to rank `owner` as its spare (any thread). */
static void staging_put(int owner, staging_t *s)
{
    if (!spares) {
        free(s);
        return;
    }
    /* acq_rel: the next user sees the buffer as this thread leaves it, and this thread the one
     * it frees */
    free(atomic_exchange_explicit(&spares[owner], s, memory_order_acq_rel));
}

/* The header of an active message, first in the cell's payload. */
typedef struct dyn_header {
    int context_id; /* the communicator's (the program's point-to-point context) */
    int root;       /* the root's rank in it: the source the destinations see */
    int root_world;
    int tag;
    size_t bytes;
    dyn_data_t *data; /* NULL: eager, the data follows this header */
    bool stage;       /* the receiver heads a subtree far from the data: it stages it first */
    int nentries;     /* the receiver's subtree: entries[0] is the receiver */
    dyn_entry_t *heap_entries; /* NULL: the entries follow (the data and) this header */
} dyn_header_t;

/* MPI_BYTE's type, looked up once (predefined: always there). */
static tm_mpi_type_t *mpi_byte;

static tm_mpi_type_t *byte_type(void)
{
    return mpi_byte;
}

_Noreturn static void out_of_memory(int world_rank)
{
    tm_rt_job_abort(world_rank, MPI_ERR_NO_MEM, "out of memory forwarding a dynamic broadcast");
}

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static unsigned char *header_data(dyn_header_t *h)
{
    return (unsigned char *)h + align8(sizeof *h);
}

static dyn_entry_t *header_entries(dyn_header_t *h)
{
    if (h->heap_entries)
        return h->heap_entries;
    return (dyn_entry_t *)(header_data(h) + (h->data ? 0 : align8(h->bytes)));
}

/* true when a broadcast of `bytes` travels in its active messages. */
static bool eager(size_t bytes)
{
    return bytes <= tm_p2p_eager_limit() && align8(sizeof(dyn_header_t)) + align8(bytes) +
                                                    EAGER_ENTRIES_ROOM * sizeof(dyn_entry_t) <=
                                                tm_p2p_am_capacity();
}

/* Drops a reference to d: the last one frees it (completing the root's request). */
static void data_release(void *arg)
{
    dyn_data_t *d = arg;
    /* acq_rel: the last one sees every copy from the data done */
    if (atomic_fetch_sub_explicit(&d->refs, 1, memory_order_acq_rel) != 1)
        return;
    tm_p2p_request_t *req = d->req;
    tm_p2p_mailbox_t *owner = d->req_owner;
    if (req)
        tm_mpi_type_release(d->type);
    if (d->staging)
        staging_put(d->staging_owner, d->staging);
    free(d);
    if (req)
        tm_p2p_request_complete(req, owner);
}

/* ---- sending active messages ---- */

/* An active message's cell for the subtree sub[0, nsub), from m's pool, with the header h (its
 * entries set here) and, when eager, the data `payload`: filled, not sent. NULL when out of
 * memory. */
static tm_shm_cell_t *message_make(tm_p2p_matcher_t *m, const dyn_header_t *h, const void *payload,
                                   const dyn_entry_t *sub, int nsub)
{
    tm_shm_cell_t *cell = tm_p2p_am_alloc(m, TM_P2P_AM_BCAST_DYNAMIC);
    if (!cell)
        return NULL;
    dyn_header_t *hdr = tm_p2p_am_payload(cell);
    *hdr = *h;
    hdr->nentries = nsub;
    hdr->heap_entries = NULL;
    if (!h->data && h->bytes > 0) {
        tm_rt_profile_mark_t copy = tm_rt_profile_begin(TM_RT_PROFILE_COPY);
        memcpy(header_data(hdr), payload, h->bytes);
        tm_rt_profile_end(copy);
    }
    size_t need = (size_t)nsub * sizeof *sub;
    size_t at = (size_t)((unsigned char *)header_entries(hdr) - (unsigned char *)hdr);
    if (at + need > tm_p2p_am_capacity()) {
        hdr->heap_entries = malloc(need);
        if (!hdr->heap_entries) {
            tm_shm_cell_free(cell);
            return NULL;
        }
    }
    memcpy(header_entries(hdr), sub, need);
    return cell;
}

static void message_free(tm_shm_cell_t *cell)
{
    dyn_header_t *hdr = tm_p2p_am_payload(cell);
    free(hdr->heap_entries);
    tm_shm_cell_free(cell);
}

/* The tree's shape (LogP's optimal broadcast tree, Karp et al. 1993): a node sends to its children
 * one after the other, each send taking it one unit of time, and a child that heads a subtree
 * starts forwarding HOP_SENDS units after its message left (a leaf's message is the data itself,
 * straight to its program). reach[k], the most nodes that a node informed at time 0 has informed
 * by time k, is 1 until HOP_SENDS, then reach[k - 1] (its later sends) + reach[k - HOP_SENDS]
 * (its first child's subtree). A node heading n nodes takes the least k with reach[k] >= n, and
 * its children, in the order sent, head subtrees of reach[k - HOP_SENDS], reach[k - 1 -
 * HOP_SENDS], ... nodes (the last one cut to what is left): the largest first, and every
 * subtree as wide as its head's time allows. With HOP_SENDS = 1 it is the binomial tree.
 *
 * A hop through a runtime (the active message found by the rank or its progress thread at its
 * next look, then its own sends) costs about 8 sends from a node that is sending already: on a
 * 16-core Xeon, 33 ranks, 8 bytes, a destination took about 1.3 us more per hop of the binomial
 * tree, where the root's MPI_Send to 32 destinations in turn took 0.16-0.24 us each
 * (docs/manycore.md). */
#define HOP_SENDS    8
#define MAX_BUDGET   192 /* reach[MAX_BUDGET - 1] > INT_MAX */
#define MAX_CHILDREN (MAX_BUDGET - HOP_SENDS + 1)
static int64_t reach[MAX_BUDGET];

static void reach_init(void)
{
    for (int k = 0; k < MAX_BUDGET; k++)
        reach[k] = k < HOP_SENDS ? 1 : reach[k - 1] + reach[k - HOP_SENDS];
}

/* The children of node 0 of a list of n nodes, in the order it sends to them: the offsets and
 * lengths of their sublists in off[], len[]. Returns their number. */
static int tree_children(int n, int off[MAX_CHILDREN], int len[MAX_CHILDREN])
{
    int budget = 0;
    while (reach[budget] < n)
        budget++;
    int k = 0;
    for (int at = 1; at < n; k++) {
        int b = budget - k - HOP_SENDS;
        int64_t size = reach[b > 0 ? b : 0];
        off[k] = at;
        len[k] = size < n - at ? (int)size : n - at;
        at += len[k];
    }
    return k;
}

/* true when world rank `world`, heading a subtree, copies data that is on NUMA node `home`. */
static bool stages(int home, int world)
{
    int node = tm_rt_numa_node(world);
    return home >= 0 && node >= 0 && node != home;
}

/* The message carrying h's data to the program of destination `e`, from m's pool, not sent:
 * from d's data (its reference goes along with the message) or, with d NULL, from the eager
 * bytes `payload`. NULL when out of memory. */
static tm_shm_cell_t *delivery_make(tm_p2p_matcher_t *m, const dyn_header_t *h, dyn_entry_t e,
                                    const void *payload, dyn_data_t *d)
{
    if (d)
        return tm_p2p_matcher_dyn_make(m, h->context_id, h->root, h->tag, h->root_world, e.seq,
                                       d->buf, d->count, d->type, h->bytes, data_release, d);
    return tm_p2p_matcher_dyn_make(m, h->context_id, h->root, h->tag, h->root_world, e.seq, payload,
                                   h->bytes, byte_type(), h->bytes, NULL, NULL);
}

/* A message to a child: an active message to its runtime when it heads a subtree; a leaf has
 * nothing to forward, so its message is the data itself, straight to its program: at the root,
 * with eager data, through the fastbox of the pair when there is room in it, as a send of the
 * root's would go (a pool cell through the destination's queue costs the root the transfers of
 * the cell's lines and the queue's from the cores that used them last: 8 leaves of 8 bytes took
 * it 2.9 us where 8 sends took 1.0). */
typedef struct child {
    tm_shm_cell_t *cell;
    int world;
    bool leaf;
    bool boxed; /* in the root's fastbox to the leaf */
} child_t;

static void children_free(child_t *kids, int k)
{
    for (int i = 0; i < k; i++) {
        if (kids[i].boxed)
            continue; /* the fastbox hands the cell out again */
        if (kids[i].leaf)
            tm_shm_cell_free(kids[i].cell);
        else
            message_free(kids[i].cell);
    }
}

/* Makes the messages to the children of node 0 of list[0, n), with header h: kids[]. Returns
 * their number, or -1 when out of memory (nothing made then). */
static int children_make(tm_p2p_matcher_t *m, const dyn_header_t *h, const void *payload,
                         const dyn_entry_t *list, int n, child_t kids[MAX_CHILDREN])
{
    int off[MAX_CHILDREN], len[MAX_CHILDREN];
    int k = tree_children(n, off, len);
    for (int i = 0; i < k; i++) {
        const dyn_entry_t *sub = list + off[i];
        kids[i].world = sub[0].world;
        kids[i].leaf = len[i] == 1;
        kids[i].cell = NULL;
        if (kids[i].leaf && !h->data && h->root_world == m->world_rank)
            kids[i].cell =
                tm_p2p_matcher_dyn_make_boxed(m, sub[0].world, h->context_id, h->root, h->tag,
                                              sub[0].seq, payload, h->bytes, byte_type(), h->bytes);
        kids[i].boxed = kids[i].cell != NULL;
        if (kids[i].boxed)
            continue;
        if (kids[i].leaf) {
            kids[i].cell = delivery_make(m, h, sub[0], payload, h->data);
        } else {
            dyn_header_t ch = *h;
            ch.stage = h->data && stages(h->data->home, sub[0].world);
            kids[i].cell = message_make(m, &ch, payload, sub, len[i]);
        }
        if (!kids[i].cell) {
            children_free(kids, i);
            return -1;
        }
    }
    return k;
}

static void children_send(tm_p2p_matcher_t *m, const child_t *kids, int k)
{
    for (int i = 0; i < k; i++) {
        if (kids[i].boxed)
            tm_p2p_dyn_post_boxed(m, kids[i].cell, kids[i].world);
        else if (kids[i].leaf)
            tm_p2p_dyn_post(kids[i].cell, kids[i].world);
        else
            tm_p2p_am_send(kids[i].cell, kids[i].world);
    }
}

/* ---- at a destination ---- */

/* Hands the data of the message to this node's program, from d (NULL: from the eager bytes). */
static void deliver_local(tm_p2p_matcher_t *m, const dyn_header_t *h, dyn_entry_t self,
                          const void *eager_bytes, dyn_data_t *d)
{
    tm_shm_cell_t *cell = delivery_make(m, h, self, eager_bytes, d);
    if (!cell)
        out_of_memory(self.world);
    tm_p2p_dyn_post(cell, self.world);
}

/* The staging copy of `from` made by rank `me`, with one reference: its own program's. */
static dyn_data_t *data_stage(int me, const dyn_data_t *from)
{
    dyn_data_t *s = calloc(1, sizeof *s);
    staging_t *staging = staging_get(me, from->bytes);
    if (!s || !staging)
        out_of_memory(me);
    tm_rt_profile_mark_t copy = tm_rt_profile_begin(TM_RT_PROFILE_COPY);
    tm_mpi_type_pack(from->buf, from->count, from->type, 0, from->bytes, staging->bytes);
    tm_rt_profile_end(copy);
    s->staging = staging;
    s->staging_owner = me;
    s->buf = staging->bytes;
    s->count = from->bytes;
    s->type = byte_type();
    s->bytes = from->bytes;
    s->home = tm_rt_numa_node(me);
    atomic_init(&s->refs, 1);
    return s;
}

/* The handler of the active messages of dynamic broadcasts (TM_P2P_AM_BCAST_DYNAMIC), run by
 * the holder of the destination's collective side: owns `cell`. */
static void arrive(tm_p2p_matcher_t *m, tm_shm_cell_t *cell)
{
    int me = m->world_rank;
    dyn_header_t *h = tm_p2p_am_payload(cell);
    dyn_entry_t *list = header_entries(h);
    int n = h->nentries;
    dyn_data_t *d = h->data;
    if (d && h->stage) {
        dyn_data_t *from = d;
        d = data_stage(me, from);
        data_release(from);
    }
    /* Forward first: the children's runtimes go on while this one hands the data over. */
    dyn_header_t ch = *h;
    ch.data = d;
    child_t kids[MAX_CHILDREN];
    int k = children_make(m, &ch, header_data(h), list, n, kids);
    if (k < 0)
        out_of_memory(me);
    /* A reference for each child, taken while this node's own keeps the data alive (relaxed:
     * the pushes below publish it before any child can drop one). */
    if (d)
        atomic_fetch_add_explicit(&d->refs, k, memory_order_relaxed);
    children_send(m, kids, k);
    deliver_local(m, h, list[0], header_data(h), d); /* with d: its reference goes along */
    message_free(cell);
}

/* ---- at the root ---- */

int tm_coll_bcast_dynamic(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const void *buf, size_t count,
                          tm_mpi_type_t *type, const int *dests, int ndests, int tag,
                          tm_p2p_request_t *req)
{
    tm_p2p_matcher_t *m = &r->p2p->match;
    int me = r->rt->world_rank;
    if (ndests == 0) {
        atomic_store_explicit(&req->complete, 1, memory_order_release);
        return 0;
    }
    size_t bytes = count * type->size;
    int n = ndests + 1;
    dyn_entry_t *list = malloc((size_t)n * sizeof *list);
    dyn_data_t *d = NULL;
    unsigned char *packed = NULL;
    if (!list || tm_p2p_matcher_dyn_init(m) < 0)
        goto nomem;
    list[0].world = me;
    list[0].seq = 0;
    for (int i = 0; i < ndests; i++)
        list[i + 1].world = tm_mpi_group_world_rank(comm->group, dests[i]);

    dyn_header_t h = {.context_id = comm->context_id,
                      .root = comm->rank,
                      .root_world = me,
                      .tag = tag,
                      .bytes = bytes};
    if (eager(bytes)) {
        packed = malloc(bytes ? bytes : 1);
        if (!packed)
            goto nomem;
        tm_rt_profile_mark_t copy = tm_rt_profile_begin(TM_RT_PROFILE_COPY);
        tm_mpi_type_pack(buf, count, type, 0, bytes, packed);
        tm_rt_profile_end(copy);
    } else {
        d = calloc(1, sizeof *d);
        if (!d)
            goto nomem;
        d->buf = buf;
        d->count = count;
        d->type = type;
        d->bytes = bytes;
        d->req = req;
        d->req_owner = tm_p2p_mailbox_get(me, false);
        d->home = tm_rt_numa_node(me);
        h.data = d;
    }
    /* Number the destinations only once nothing can fail: a number taken and not sent would
     * hold back every later message of this rank to that destination. */
    for (int i = 1; i < n; i++)
        list[i].seq = tm_p2p_matcher_dyn_next(m, list[i].world);
    child_t kids[MAX_CHILDREN];
    int k = children_make(m, &h, packed, list, n, kids);
    if (k < 0) {
        for (int i = 1; i < n; i++)
            tm_p2p_matcher_dyn_undo(m, list[i].world);
        goto nomem;
    }
    if (d) {
        tm_mpi_type_retain(type);
        atomic_init(&d->refs, k);
    }
    children_send(m, kids, k);
    if (!d) /* the data is in the messages */
        atomic_store_explicit(&req->complete, 1, memory_order_release);
    free(packed);
    free(list);
    return 0;

nomem:
    free(d);
    free(packed);
    free(list);
    return -ENOMEM;
}

void tm_coll_bcast_dynamic_init(void)
{
    reach_init();
    tm_mpi_type_lookup(MPI_BYTE, &mpi_byte);
    tm_p2p_am_register(TM_P2P_AM_BCAST_DYNAMIC, arrive);
}
