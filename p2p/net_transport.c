/*
 * The network transport (transport.h): point-to-point traffic with the ranks of the job's other
 * processes, one per host, through the module threadmpi-net.so (net.h: UCX for the data, PMIx
 * for the wire-up), which the first MPI_Init of a job on several hosts loads.
 *
 * A remote rank's two mailboxes are this transport's outbound queues for it: ranks send to it
 * as to any rank (send.c), and whoever moves the network's messages (below) ships what they push.
 * Each message is one active message: the header (wire_t) carries the envelope as it was built,
 * the destination and the data's size; the data follows, the cell's (EAGER) or the sender's
 * buffer itself (SOURCE, packed first when its type is not contiguous).
 *
 *   sending process                                  receiving process
 *   rank: cell -> the remote rank's mailbox
 *   the mover: claim it (a cancelled one is           the mover: a cell of the network's pools
 *   dropped), send header + data                      with the envelope; the data into it
 *   EAGER: the cell is freed once UCX is done         (EAGER) or into a bounce buffer (SOURCE)
 *   SOURCE: its ops' done completes the send once     pushed into the rank's mailbox, in the
 *     UCX is done with the data; synchronous          order the messages came from that process
 *     (MPI_Ssend): once the ACK comes  <-------      -- the receiver's done (matched, copied)
 *                                                      queues a synchronous send's ACK, shipped
 *                                                      as a message is
 *
 * So a standard send completes once its data has left its buffer, as an eager one does (MPI lets
 * a standard send complete before its receive is posted), which spares it the ACK's trip; a
 * synchronous send only once its receive has matched, as between ranks of one process. The
 * bounce buffer costs a second copy of large messages; fetching straight into the receive buffer
 * needs a fetch that completes after matching (docs/architecture.md, "Beyond one node").
 *
 * Who moves the messages: whoever holds the lock, for one pass (net_pass: UCX's progress, the
 * remote ranks' mailboxes, the ACKs, the deliveries; UCX's worker is serialized, the arrivals'
 * lists are the holder's). A rank that posts to a remote rank ships its message itself when the
 * lock is free (tm_p2p_net_posted), and a waiting rank polls through it for a while
 * (tm_p2p_net_poll, p2p/wait.c), so that a ping-pong needs no hand-off between threads; but not
 * where another host's ranks are pinned to this one's cores (hosts as namespaces of one
 * machine), where its polls would take the core its peer needs. The network thread does the
 * rest. When its pass finds nothing it sleeps on UCX's event descriptor, which a rank that
 * leaves it work signals: polling instead, even for a millisecond and offering the core
 * meanwhile, made jobs whose hosts share cores 1.4 times slower unloaded and 3 times slower
 * beside other work (docs/performance.md, "Between hosts"). The network's pools hold the cells
 * that arrive; the thread gives their memory back when a burst is over, as a rank does.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2p/net.h"
#include "p2p/p2p_impl.h"
#include "p2p/transport.h"
#include "runtime/settings.h"

enum { WIRE_MSG, WIRE_ACK };

/* The header of every message between processes. */
typedef struct wire {
    uint32_t kind; /* WIRE_MSG, WIRE_ACK */
    int32_t from;  /* the sending process */
    int32_t dest;  /* MSG: the destination world rank */
    uint32_t coll; /* MSG: to its collectives' side */
    uint32_t seq;  /* MSG: its number among the sending process's messages to this one (UCX may
                    * carry a rendezvous and an eager message on different lanes) */
    uint64_t bytes;
    uint64_t token;        /* synchronous SOURCE MSG, and its ACK: the sender's cell; else 0 */
    tm_p2p_envelope_t env; /* MSG: as the sender built it */
} wire_t;

/* A message that arrived before its data, or behind one that did, until it is pushed into its
 * mailbox in its process's order. */
typedef struct arrival {
    struct arrival *next;
    uint32_t seq; /* wire_t.seq */
    tm_shm_cell_t *cell;
    tm_p2p_mailbox_t *to;
    _Atomic bool ready; /* its data is in */
} arrival_t;

/* What a SOURCE message's receiver gives back once done: the ACK to send (a synchronous send's
 * only: token not 0), and the bounce buffer to free. */
typedef struct ack {
    struct ack *next;
    int peer;
    uint64_t token;
    void *bounce;
} ack_t;

/* A send under way: what to free once UCX is done with it. */
typedef struct sending {
    tm_shm_cell_t *cell; /* EAGER: the cell; NULL for a synchronous SOURCE (it waits for the ACK) */
    bool source;         /* the cell is a SOURCE whose send completes now */
    void *packed;        /* SOURCE of a non-contiguous type: the packed data */
} sending_t;

static struct {
    const tm_p2p_net_module_t *m;
    tm_p2p_net_t *net;
    int nprocs, index;
    int *proc_of;              /* per world rank: its process */
    arrival_t **head;          /* per process: what arrived from it, by number */
    /* per process: the next number to send it, to deliver from it (the network thread's; atomic
     * for the report of a job that hangs, read from another thread) */
    _Atomic uint32_t *seq_out, *seq_in;
    tm_p2p_mailbox_t pools;    /* the cells of arrivals (its pools only) */
    tm_mpi_type_t *bytes_type; /* MPI_BYTE: a bounce buffer's layout */
    ack_t *_Atomic acks;       /* to send, pushed by the receivers */
    _Atomic long in_flight;    /* sends UCX is not done with, and ACKs not sent */
    _Atomic int finalized;     /* ranks of this process done with MPI */
    _Atomic bool stop;
    _Atomic bool sleeping; /* the network thread sleeps, or is about to: wake it */
    /* Held by whoever moves messages: the network thread for its passes, a rank that ships what
     * it posted (UCX's worker is serialized; the outbound queues have one consumer at a time). */
    pthread_mutex_t lock;
    pthread_t thread;
    bool running;
} nt;

static pthread_once_t nt_once = PTHREAD_ONCE_INIT;

static int nt_err;
static char nt_why[256];

/* ---- sending ---- */

/* The number *counter holds, and the next one into it (the network thread alone writes it). */
static uint32_t next_seq(_Atomic uint32_t *counter)
{
    uint32_t n = atomic_load_explicit(counter, memory_order_relaxed);
    atomic_store_explicit(counter, n + 1, memory_order_relaxed);
    return n;
}

static void send_done(void *arg, int err)
{
    sending_t *s = arg;
    if (err)
        tm_rt_job_abort(-1, 1, "a message to another host was lost (network error)");
    if (s->source) {
        tm_p2p_source_t *src = tm_p2p_cell_source(s->cell);
        src->ops->done(src);
    }
    if (s->cell)
        tm_shm_cell_free(s->cell);
    free(s->packed);
    free(s);
    atomic_fetch_sub_explicit(&nt.in_flight, 1, memory_order_release);
}

static void ship(int dest, bool coll, tm_shm_cell_t *cell)
{
    tm_p2p_envelope_t *env = tm_p2p_cell_envelope(cell);
    if (env->protocol == TM_P2P_PROTO_AM)
        tm_rt_job_abort(env->origin, 1,
                        "dynamic broadcasts to ranks on other hosts are not in this release");
    if (!tm_p2p_cell_claim(cell)) { /* cancelled by its sender */
        tm_shm_cell_free(cell);
        return;
    }
    wire_t w = {.kind = WIRE_MSG,
                .from = nt.index,
                .dest = dest,
                .coll = coll,
                .seq = next_seq(&nt.seq_out[nt.proc_of[dest]])};
    memcpy(&w.env, env, sizeof w.env);
    sending_t *s = calloc(1, sizeof *s);
    if (!s)
        tm_rt_job_abort(env->origin, MPI_ERR_NO_MEM, "out of memory sending a message");
    const void *data;
    if (env->protocol == TM_P2P_PROTO_EAGER) {
        w.bytes = env->bytes;
        data = tm_p2p_cell_payload(cell);
        s->cell = cell;
    } else {
        tm_p2p_source_t *src = tm_p2p_cell_source(cell);
        w.bytes = src->bytes;
        /* A standard send completes once its data has left (UCX is done with the buffer: the
         * receiver has fetched it, or it was copied out), as an eager one would; a synchronous
         * one once matched, when the receiver's ACK comes back. */
        if (env->synchronous) {
            w.token = (uint64_t)(uintptr_t)cell;
        } else {
            s->cell = cell;
            s->source = true;
        }
        if (src->type->contiguous) {
            data = (const char *)src->buf + src->type->contig_disp;
        } else {
            if (!(s->packed = malloc(src->bytes ? src->bytes : 1)))
                tm_rt_job_abort(env->origin, MPI_ERR_NO_MEM, "out of memory sending a message");
            tm_mpi_type_pack(src->buf, src->count, src->type, 0, src->bytes, s->packed);
            data = s->packed;
        }
    }
    atomic_fetch_add_explicit(&nt.in_flight, 1, memory_order_relaxed);
    int rc = nt.m->send(nt.net, nt.proc_of[dest], &w, sizeof w, data, w.bytes, send_done, s);
    if (rc <= 0)
        send_done(s, rc);
}

/* The remote ranks' mailboxes, both sides: what their senders pushed. */
static unsigned drain_outbound(void)
{
    unsigned n = 0;
    int world = tm_p2p_job.nranks;
    for (int w = 0; w < world; w++) {
        if (nt.proc_of[w] == nt.index)
            continue;
        for (int side = 0; side < 2; side++) {
            tm_shm_cell_t *cell;
            while ((cell = tm_shm_queue_pop(&tm_p2p_mailbox_get(w, side)->inbound))) {
                ship(w, side, cell);
                n++;
            }
        }
    }
    return n;
}

static unsigned send_acks(void)
{
    ack_t *a = atomic_exchange_explicit(&nt.acks, NULL, memory_order_acquire);
    unsigned n = 0;
    while (a) {
        ack_t *next = a->next;
        wire_t w = {.kind = WIRE_ACK, .from = nt.index, .token = a->token};
        /* In flight since it was queued (bounce_done), until UCX is done with it. */
        sending_t *s = calloc(1, sizeof *s);
        if (!s)
            tm_rt_job_abort(-1, MPI_ERR_NO_MEM, "out of memory answering another host");
        int rc = nt.m->send(nt.net, a->peer, &w, sizeof w, NULL, 0, send_done, s);
        if (rc <= 0)
            send_done(s, rc);
        free(a);
        a = next;
        n++;
    }
    return n;
}

/* ---- arriving ---- */

/* A SOURCE message from another host: its data is in a bounce buffer. */
static void bounce_copy(const tm_p2p_envelope_t *env, tm_p2p_source_t *src, void *buf, size_t count,
                        const tm_mpi_type_t *type, size_t n)
{
    (void)env;
    tm_mpi_type_copy(buf, count, type, src->buf, src->count, src->type, 0, n);
}

/* Matched and copied (or dropped unread): the sender may go. */
static void bounce_done(tm_p2p_source_t *src)
{
    ack_t *a = src->done_arg;
    free(a->bounce);
    if (!a->token) { /* a standard send: it completed when its data left */
        free(a);
        return;
    }
    atomic_fetch_add_explicit(&nt.in_flight, 1, memory_order_relaxed);
    ack_t *head = atomic_load_explicit(&nt.acks, memory_order_relaxed);
    do
        a->next = head;
    while (!atomic_compare_exchange_weak_explicit(&nt.acks, &head, a, memory_order_release,
                                                  memory_order_relaxed));
    atomic_thread_fence(memory_order_seq_cst);
    tm_p2p_net_posted();
}

static const tm_p2p_source_ops_t bounce_ops = {.copy = bounce_copy, .done = bounce_done};

static void fetched(void *arg, int err)
{
    if (err)
        tm_rt_job_abort(-1, 1, "a message from another host was lost (network error)");
    atomic_store_explicit(&((arrival_t *)arg)->ready, true, memory_order_release);
}

static void out_of_memory(void)
{
    tm_rt_job_abort(-1, MPI_ERR_NO_MEM, "out of memory receiving a message");
}

static void arrive(void *arg, const tm_p2p_net_arrival_t *m)
{
    (void)arg;
    wire_t w;
    memcpy(&w, m->header, sizeof w);
    if (w.kind == WIRE_ACK) {
        tm_shm_cell_t *cell = (tm_shm_cell_t *)(uintptr_t)w.token;
        tm_p2p_source_t *src = tm_p2p_cell_source(cell);
        src->ops->done(src);
        tm_shm_cell_free(cell);
        return;
    }
    bool eager = w.env.protocol == TM_P2P_PROTO_EAGER;
    tm_shm_cell_t *cell = tm_p2p_cell_alloc(&nt.pools, eager ? w.bytes : sizeof(tm_p2p_source_t));
    if (!cell)
        out_of_memory();
    tm_p2p_envelope_t *env = tm_p2p_cell_envelope(cell);
    memcpy(env, &w.env, sizeof *env);
    env->pair_seq = 0;
    atomic_store_explicit(&env->claim, TM_P2P_CLAIM_TAKEN, memory_order_relaxed);
    void *into = tm_p2p_cell_payload(cell);
    if (!eager) {
        ack_t *ack = malloc(sizeof *ack);
        void *bounce = malloc(w.bytes ? w.bytes : 1);
        if (!ack || !bounce)
            out_of_memory();
        *ack = (ack_t){.peer = w.from, .token = w.token, .bounce = bounce};
        tm_p2p_source_t *src = tm_p2p_cell_source(cell);
        src->ops = &bounce_ops;
        src->bytes = w.bytes;
        src->buf = bounce;
        src->count = w.bytes;
        src->type = nt.bytes_type;
        src->done_fn = NULL;
        src->done_arg = ack;
        into = bounce;
    }
    tm_p2p_mailbox_t *to = tm_p2p_mailbox_get(w.dest, w.coll != 0);
    /* The data came with it (an empty message, as a barrier's, may come with no pointer: it has
     * no descriptor either) */
    bool came = m->desc == NULL;
    if (came && w.bytes)
        memcpy(into, m->data, w.bytes);
    /* ... and it is the next from its process: delivered now. */
    if (came && w.seq == atomic_load_explicit(&nt.seq_in[w.from], memory_order_relaxed)) {
        next_seq(&nt.seq_in[w.from]);
        tm_p2p_mailbox_post(cell, to);
        return;
    }
    arrival_t *a = malloc(sizeof *a);
    if (!a)
        out_of_memory();
    a->next = NULL;
    a->seq = w.seq;
    a->cell = cell;
    a->to = to;
    atomic_init(&a->ready, false);
    if (came) {
        atomic_store_explicit(&a->ready, true, memory_order_relaxed);
    } else {
        int rc = nt.m->fetch(nt.net, m->desc, into, w.bytes, fetched, a);
        if (rc <= 0)
            fetched(a, rc);
    }
    /* Into its process's list, by number (mostly at the end). */
    arrival_t **at = &nt.head[w.from];
    while (*at && (int32_t)((*at)->seq - w.seq) < 0)
        at = &(*at)->next;
    a->next = *at;
    *at = a;
}

/* Pushes what arrived into its mailboxes, each process's in the order it came. */
static unsigned deliver(void)
{
    unsigned n = 0;
    for (int p = 0; p < nt.nprocs; p++) {
        arrival_t *a;
        while ((a = nt.head[p]) &&
               a->seq == atomic_load_explicit(&nt.seq_in[p], memory_order_relaxed) &&
               atomic_load_explicit(&a->ready, memory_order_acquire)) {
            nt.head[p] = a->next;
            next_seq(&nt.seq_in[p]);
            tm_p2p_mailbox_post(a->cell, a->to);
            free(a);
            n++;
        }
    }
    return n;
}

/* ---- the network thread, and ranks that ship their own messages ---- */

void tm_p2p_net_wake(void)
{
    if (atomic_load_explicit(&nt.sleeping, memory_order_relaxed))
        nt.m->signal(nt.net);
}

void tm_p2p_net_posted(void)
{
    /* Shipped at once by the poster when nobody else is moving messages: no hand-off to the
     * network thread. Else whoever is takes it, or the network thread, woken if it sleeps (the
     * post's poke fenced); a send UCX did not finish at once needs its progress too. (No
     * network: a unit test's remote mailboxes.) */
    if (!nt.running)
        return;
    if (pthread_mutex_trylock(&nt.lock) == 0) {
        long before = atomic_load_explicit(&nt.in_flight, memory_order_relaxed);
        drain_outbound();
        send_acks();
        bool pending = atomic_load_explicit(&nt.in_flight, memory_order_relaxed) > before;
        pthread_mutex_unlock(&nt.lock);
        if (!pending)
            return;
    }
    tm_p2p_net_wake();
}

/* Whether transfers are under way: sends UCX is not done with, arrivals not delivered yet. The
 * lock's holder. */
static bool under_way(void)
{
    if (atomic_load_explicit(&nt.in_flight, memory_order_relaxed))
        return true;
    for (int p = 0; p < nt.nprocs; p++)
        if (nt.head[p])
            return true;
    return false;
}

/* Whether transfers are under way or pools wait to be trimmed. The lock's holder. */
static bool busy(void)
{
    return under_way() || nt.pools.pools_grown;
}

/* Whether a remote rank's mailbox holds a message to ship. Any thread. */
static bool outbound_waiting(void)
{
    for (int w = 0; w < tm_p2p_job.nranks; w++)
        if (nt.proc_of[w] != nt.index &&
            (!tm_shm_queue_is_empty(&tm_p2p_mailbox_get(w, false)->inbound) ||
             !tm_shm_queue_is_empty(&tm_p2p_mailbox_get(w, true)->inbound)))
            return true;
    return false;
}

/* Whether the ranks gave the network thread something to do (read after it said it sleeps). */
static bool work_waiting(void)
{
    return atomic_load_explicit(&nt.acks, memory_order_relaxed) ||
           atomic_load_explicit(&nt.stop, memory_order_relaxed) || outbound_waiting();
}

static unsigned net_pass(void)
{
    unsigned n = nt.m->progress(nt.net);
    n += drain_outbound();
    n += send_acks();
    n += deliver();
    return n;
}

bool tm_p2p_net_poll(bool *transfers)
{
    *transfers = false;
    if (pthread_mutex_trylock(&nt.lock) != 0)
        return false;
    unsigned n = net_pass();
    *transfers = under_way();
    pthread_mutex_unlock(&nt.lock);
    return n > 0;
}

static void *net_main(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&nt.stop, memory_order_acquire)) {
        pthread_mutex_lock(&nt.lock);
        if (net_pass()) {
            pthread_mutex_unlock(&nt.lock);
            continue;
        }
        /* A burst of arrivals grew the pools: their memory goes back once all are received. */
        if (nt.pools.pools_grown)
            tm_p2p_mailbox_pools_trim(&nt.pools);
        /* Dekker with the ranks (tm_p2p_net_wake): said first, then the work looked for. */
        atomic_store_explicit(&nt.sleeping, true, memory_order_relaxed);
        atomic_thread_fence(memory_order_seq_cst);
        int armed = work_waiting() ? 1 : nt.m->arm(nt.net);
        /* With transfers under way, a short sleep: UCX does not signal every event its transports
         * need progress for (a socket that can take more of a send). Pools still grown: their
         * cells were not all received yet; look again soon. */
        int timeout_ms = busy() ? 1 : 10;
        /* The sleep itself without the lock: ranks ship meanwhile (tm_p2p_net_posted). */
        pthread_mutex_unlock(&nt.lock);
        if (armed < 0 || (armed == 0 && nt.m->sleep(nt.net, timeout_ms) < 0))
            tm_rt_job_abort(-1, 1, "the network failed (UCX)");
        atomic_store_explicit(&nt.sleeping, false, memory_order_relaxed);
    }
    return NULL;
}

/* mpcrun --timeout's report, after the ranks' lines: what this process sent to each other one
 * and delivered from it, so that the reports of two hosts show a message that left one and never
 * reached the other's ranks. The timeout's thread, while the network runs. */
static void report(void)
{
    for (int p = 0; p < nt.nprocs; p++)
        if (p != nt.index)
            fprintf(stderr,
                    "threadmpi: host process %d: messages sent to process %d: %u, delivered from "
                    "it: %u\n",
                    nt.index, p, atomic_load_explicit(&nt.seq_out[p], memory_order_relaxed),
                    atomic_load_explicit(&nt.seq_in[p], memory_order_relaxed));
    /* What arrived and waits for its data or for one before it: the lock's holder's lists. */
    if (pthread_mutex_trylock(&nt.lock) == 0) {
        for (int p = 0; p < nt.nprocs; p++) {
            int n = 0;
            for (arrival_t *a = nt.head[p]; a; a = a->next)
                n++;
            if (n)
                fprintf(stderr,
                        "threadmpi: host process %d: from process %d, %d arrived and wait, the "
                        "first numbered %u, its data %s\n",
                        nt.index, p, n, nt.head[p]->seq,
                        atomic_load_explicit(&nt.head[p]->ready, memory_order_acquire) ? "in"
                                                                                       : "not in");
        }
        pthread_mutex_unlock(&nt.lock);
    }
    fprintf(
        stderr,
        "threadmpi: host process %d: %ld sends under way, %s, messages to ship: %s, the network "
        "thread %s\n",
        nt.index, atomic_load_explicit(&nt.in_flight, memory_order_relaxed),
        atomic_load_explicit(&nt.acks, memory_order_relaxed) ? "answers to send"
                                                             : "no answer to send",
        outbound_waiting() ? "yes" : "none",
        atomic_load_explicit(&nt.sleeping, memory_order_relaxed) ? "sleeps" : "runs");
}

/* ---- wire-up and the end ---- */

/* What each process publishes: its ranks, what the collectives' choices depend on
 * (tm_rt_job_agree), where its ranks run, then its network address. */
#define PUBLISHED_CPUS 1024
typedef struct published {
    int32_t first, count;
    int32_t share_cores, idle_cores;
    char machine[40]; /* the kernel's boot id: hosts of one machine share it */
    unsigned char cpus[PUBLISHED_CPUS / 8]; /* tm_rt_ranks_cpus */
    char address[];
} published_t;

/* What tells a machine: the boot id of its kernel (namespaces and containers share it). */
static void machine_id(char id[40])
{
    memset(id, 0, 40);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(id, 40, f))
            id[0] = 0;
        fclose(f);
    }
}

/* Whether process `their`, on this machine, has ranks pinned to cores of ours. */
static bool shares_cores(const published_t *mine, const published_t *their)
{
    if (!mine->machine[0] || strncmp(mine->machine, their->machine, sizeof mine->machine) != 0)
        return false;
    for (size_t i = 0; i < sizeof mine->cpus; i++)
        if (mine->cpus[i] & their->cpus[i])
            return true;
    return false;
}

static const char *module_path(void)
{
    const char *path = getenv(TM_RT_ENV_MPCRUN_NET_MODULE);
    return path && *path ? path : TM_PKGLIBDIR "/" TM_P2P_NET_MODULE_FILE;
}

static int wireup(void)
{
    /* UCX's own handlers of fatal signals would replace the job's, which name the rank. */
    setenv("UCX_HANDLE_ERRORS", "none", 0);
    void *lib = dlopen(module_path(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(nt_why, sizeof nt_why, "cannot load the network module: %s", dlerror());
        return -1;
    }
    nt.m = dlsym(lib, TM_P2P_NET_MODULE_SYMBOL);
    if (!nt.m) {
        snprintf(nt_why, sizeof nt_why, "%s has no %s", module_path(), TM_P2P_NET_MODULE_SYMBOL);
        return -1;
    }
    snprintf(nt_why, sizeof nt_why, "out of memory");
    int world = tm_p2p_job.nranks;
    if (tm_mpi_type_lookup(MPI_BYTE, &nt.bytes_type) != 0 ||
        !(nt.proc_of = malloc((size_t)world * sizeof *nt.proc_of)))
        return -1;
    snprintf(nt_why, sizeof nt_why, "the wire-up with the job's other hosts failed (above)");
    if (nt.m->pm_init(&nt.nprocs, &nt.index) < 0 || nt.m->open(&nt.net, arrive, NULL) < 0)
        return -1;
    const void *addr;
    size_t len;
    nt.m->address(nt.net, &addr, &len);
    published_t *mine = malloc(sizeof *mine + len);
    if (!mine)
        return -1;
    mine->first = tm_rt_local_first();
    mine->count = tm_rt_local_size();
    mine->share_cores = tm_rt_ranks_share_cores();
    mine->idle_cores = tm_rt_idle_cores();
    machine_id(mine->machine);
    tm_rt_ranks_cpus(mine->cpus, PUBLISHED_CPUS);
    memcpy(mine->address, addr, len);
    void **all;
    size_t *lens;
    int rc = nt.m->pm_exchange(mine, sizeof *mine + len, &all, &lens);
    if (rc < 0) {
        free(mine);
        return -1;
    }
    const void **addrs = calloc((size_t)nt.nprocs, sizeof *addrs);
    nt.head = calloc((size_t)nt.nprocs, sizeof *nt.head);
    nt.seq_out = calloc((size_t)nt.nprocs, sizeof *nt.seq_out);
    nt.seq_in = calloc((size_t)nt.nprocs, sizeof *nt.seq_in);
    if (!addrs || !nt.head || !nt.seq_out || !nt.seq_in)
        return -1;
    int covered = 0, share_cores = 0, idle_cores = INT32_MAX;
    bool ranks_poll = true;
    for (int p = 0; p < nt.nprocs; p++) {
        const published_t *their = all[p];
        if (lens[p] < sizeof *their || their->first < 0 || their->count < 0 ||
            their->first + (long)their->count > world) {
            snprintf(nt_why, sizeof nt_why, "process %d of the job published a bad range", p);
            return -1;
        }
        for (int r = their->first; r < their->first + their->count; r++)
            nt.proc_of[r] = p;
        covered += their->count;
        share_cores |= their->share_cores;
        idle_cores = their->idle_cores < idle_cores ? their->idle_cores : idle_cores;
        addrs[p] = p == nt.index ? NULL : their->address;
        if (p != nt.index && shares_cores(mine, their))
            ranks_poll = false;
    }
    free(mine);
    tm_rt_job_agree(share_cores != 0, idle_cores);
    if (covered != world) {
        snprintf(nt_why, sizeof nt_why, "the job's %d processes hold %d ranks, not the world's %d",
                 nt.nprocs, covered, world);
        return -1;
    }
    /* What arrives while the connections are made (from processes done before this one) goes
     * into the network's pools: they come first. */
    if (tm_p2p_mailbox_pool(&nt.pools, tm_rt_local_first()) < 0) {
        snprintf(nt_why, sizeof nt_why, "out of memory");
        return -1;
    }
    rc = nt.m->connect(nt.net, nt.nprocs, addrs);
    free(addrs);
    free(all);
    if (rc < 0 || nt.m->wire(nt.net) < 0)
        return -1;
    pthread_mutex_init(&nt.lock, NULL);
    tm_p2p_job.net_poll = ranks_poll;
    if (pthread_create(&nt.thread, NULL, net_main, NULL) != 0) {
        snprintf(nt_why, sizeof nt_why, "cannot start the network thread");
        return -1;
    }
    nt.running = true;
    tm_rt_job_report_network(report);
    return 0;
}

static void start_once(void)
{
    nt_err = wireup();
}

int tm_p2p_net_start(const char **why)
{
    pthread_once(&nt_once, start_once);
    *why = nt_why;
    return nt_err;
}

bool tm_p2p_net_active(void)
{
    return nt.running;
}

int tm_p2p_net_procs(int *index)
{
    *index = nt.running ? nt.index : 0;
    return nt.running ? nt.nprocs : 1;
}

/* Whether every message sent from this process has left it, and every ACK owed. */
static bool flushed(void)
{
    return !atomic_load_explicit(&nt.in_flight, memory_order_acquire) &&
           !atomic_load_explicit(&nt.acks, memory_order_relaxed) && !outbound_waiting();
}

void tm_p2p_net_rank_done(void)
{
    if (!nt.running ||
        atomic_fetch_add_explicit(&nt.finalized, 1, memory_order_acq_rel) + 1 < tm_rt_local_size())
        return;
    /* The last rank of this process: what it sent leaves, then every process agrees that it is
     * done before the endpoints close. The thread keeps serving the others meanwhile. */
    while (!flushed())
        sched_yield();
    if (nt.m->pm_fence() < 0)
        tm_rt_job_abort(-1, 1, "the job's hosts could not agree to end (process manager error)");
    atomic_store_explicit(&nt.stop, true, memory_order_release);
    nt.m->signal(nt.net);
    pthread_join(nt.thread, NULL);
    nt.running = false;
    nt.m->close(nt.net);
    nt.m->pm_finalize();
}
