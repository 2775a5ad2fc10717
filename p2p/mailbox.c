/*
 * Mailboxes: where the messages for each world rank's two receiving sides arrive, made for the
 * whole job by the first rank to initialize, with the cell pools the sides send from; and the
 * wake-ups of whoever sleeps waiting for one.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "p2p/fastbox.h"
#include "p2p/transport.h"

tm_p2p_job_t tm_p2p_job;
static pthread_once_t mailboxes_once = PTHREAD_ONCE_INIT;

/* The first chunks of the sides' cell pools, one of each class per mailbox, in one mapping for
 * the job (tm_shm_pool_create_in): a mapping per pool would be many per rank of the kernel's
 * limit on a process's mappings; neighbouring chunks placed on one NUMA node stay one mapping.
 * Reserved, not committed: a page costs memory when its owner first uses it. Not in huge pages,
 * which would put neighbours' chunks on one rank's node. NULL if it could not be mapped. */
static unsigned char *first_chunks;
static size_t first_chunks_per_mailbox; /* bytes: the first chunk of each class, in order */

/* Data bytes of the full cells: an envelope and the eager limit, or an active message's
 * capacity, or a rendezvous source. */
static size_t full_cell_size(void)
{
    size_t payload = tm_p2p_am_capacity();
    if (payload < sizeof(tm_p2p_source_t))
        payload = sizeof(tm_p2p_source_t);
    return sizeof(tm_p2p_envelope_t) + payload;
}

/* Data bytes of class c's cells (TM_P2P_CELL_CLASSES). */
static size_t class_cell_size(int c)
{
    if (c == TM_P2P_CELL_CLASS_FULL)
        return full_cell_size();
    return ((size_t)TM_P2P_CELL_CLASS_MIN << c) - sizeof(tm_shm_cell_t);
}

/* The classes below the full one that are smaller than it. */
static int cell_classes(void)
{
    int c = 0;
    while (c < TM_P2P_CELL_CLASS_FULL && class_cell_size(c) < full_cell_size())
        c++;
    return c;
}

static bool class_used(int c)
{
    return c == TM_P2P_CELL_CLASS_FULL || c < tm_p2p_job.cell_classes;
}

static void first_chunks_map(int nmailboxes)
{
    for (int c = 0; c < TM_P2P_CELL_CLASSES; c++)
        if (class_used(c))
            first_chunks_per_mailbox += tm_shm_pool_chunk_bytes(class_cell_size(c));
    size_t bytes = (size_t)nmailboxes * first_chunks_per_mailbox;
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (m == MAP_FAILED)
        return;
#ifdef MADV_NOHUGEPAGE
    madvise(m, bytes, MADV_NOHUGEPAGE);
#endif
    first_chunks = m;
}

static void mailboxes_create(void)
{
    int n = tm_rt_world_size();
    tm_p2p_job.eager_limit = tm_rt_eager_limit();
    tm_p2p_job.cell_classes = cell_classes();
    tm_p2p_job.notes_read = tm_rt_hangs_diagnosed();
    tm_p2p_mailbox_t *mailboxes =
        aligned_alloc(TM_SHM_CACHE_LINE, 2 * (size_t)n * sizeof *mailboxes);
    if (!mailboxes)
        return;
    for (int i = 0; i < 2 * n; i++) {
        tm_shm_queue_init(&mailboxes[i].inbound);
        mailboxes[i].remote = !tm_rt_rank_is_local(i < n ? i : i - n);
        atomic_init(&mailboxes[i].sleeper, NULL);
        atomic_init(&mailboxes[i].helper, NULL);
        atomic_init(&mailboxes[i].am_helper, NULL);
        atomic_init(&mailboxes[i].am_posted, false);
        atomic_init(&mailboxes[i].copy_offer, NULL);
        for (int c = 0; c < TM_P2P_CELL_CLASSES; c++)
            mailboxes[i].pools[c] = NULL;
        for (int f = 0; f < TM_P2P_FASTBOX_MAX; f++)
            atomic_init(&mailboxes[i].fastboxes[f], NULL);
        mailboxes[i].pools_grown = false;
        atomic_init(&mailboxes[i].nfastboxes, 0);
        atomic_init(&mailboxes[i].fastboxes_taken, 0);
    }
    first_chunks_map(2 * n);
    tm_p2p_job.nranks = n;
    tm_p2p_job.mailboxes = mailboxes;
}

int tm_p2p_mailboxes_init(void)
{
    pthread_once(&mailboxes_once, mailboxes_create);
    return tm_p2p_job.mailboxes ? 0 : -ENOMEM;
}

int tm_p2p_mailbox_pool(tm_p2p_mailbox_t *mb, int world_rank)
{
    if (mb->pools[TM_P2P_CELL_CLASS_FULL])
        return 0;
    int node = tm_rt_memory_node(world_rank);
    if (node == TM_RT_MEMORY_NODE_INTERLEAVE)
        node = TM_SHM_NUMA_INTERLEAVE;
    else if (node < 0)
        node = -1;
    /* A mailbox of the job's array has its first chunks there; another one (the network
     * transport's, for what arrives) maps its own. */
    bool in_job = mb >= tm_p2p_job.mailboxes && mb < tm_p2p_job.mailboxes + 2 * tm_p2p_job.nranks;
    unsigned char *first =
        first_chunks && in_job
            ? first_chunks + (size_t)(mb - tm_p2p_job.mailboxes) * first_chunks_per_mailbox
            : NULL;
    for (int c = 0; c < TM_P2P_CELL_CLASSES; c++) {
        if (!class_used(c))
            continue;
        size_t size = class_cell_size(c);
        int rc = mb->pools[c] ? 0
                 : first      ? tm_shm_pool_create_in(size, node, first, &mb->pools[c])
                              : tm_shm_pool_create(size, node, &mb->pools[c]);
        if (rc < 0)
            return rc;
        tm_shm_pool_watch(mb->pools[c], &mb->pools_grown);
        if (first)
            first += tm_shm_pool_chunk_bytes(size);
    }
    return 0;
}

void tm_p2p_mailbox_pools_trim(tm_p2p_mailbox_t *mb)
{
    bool grown = false;
    for (int c = 0; c < TM_P2P_CELL_CLASSES; c++)
        if (mb->pools[c] && tm_shm_pool_trim(mb->pools[c]))
            grown = true;
    mb->pools_grown = grown;
}

void tm_p2p_mailbox_wake(tm_p2p_mailbox_t *mailbox)
{
    /* Loaded again: a sleeper gone since tm_p2p_mailbox_poke looked has seen the work. */
    tm_sched_ult_t *ult = atomic_load_explicit(&mailbox->sleeper, memory_order_relaxed);
    if (ult)
        tm_rt_profile_unpark(ult);
    /* acquire: pairs with the progress thread's release; it was made on another core */
    ult = atomic_load_explicit(&mailbox->helper, memory_order_acquire);
    if (ult)
        tm_rt_profile_unpark(ult);
}

void tm_p2p_mailbox_wake_rank(tm_p2p_mailbox_t *mailbox)
{
    tm_sched_ult_t *ult = atomic_load_explicit(&mailbox->sleeper, memory_order_relaxed);
    if (ult)
        tm_rt_profile_unpark(ult);
}

void tm_p2p_mailbox_poke_rank(tm_p2p_mailbox_t *mailbox)
{
    atomic_thread_fence(memory_order_seq_cst); /* as in tm_p2p_mailbox_poke */
    tm_p2p_mailbox_wake_rank(mailbox);
}

bool tm_p2p_mailbox_idle(const tm_p2p_mailbox_t *mb)
{
    if (!tm_shm_queue_is_empty(&mb->inbound))
        return false;
    int n = atomic_load_explicit(&mb->nfastboxes, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (!tm_shm_ring_is_empty(
                atomic_load_explicit(&mb->fastboxes[i], memory_order_relaxed)->ring))
            return false;
    return true;
}
