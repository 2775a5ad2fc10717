/*
 * Fastboxes (fastbox.h): opening one from a sending side, accepting it on the receiving side,
 * and closing both ends.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "p2p/fastbox.h"

static void fastbox_unref(tm_p2p_fastbox_t *fb)
{
    /* acq_rel: the other side's last uses of the ring come before the free */
    if (atomic_fetch_sub_explicit(&fb->refs, 1, memory_order_acq_rel) == 1) {
        tm_shm_ring_destroy(fb->ring);
        free(fb);
    }
}

tm_p2p_fastbox_t *tm_p2p_fastbox_open(tm_p2p_matcher_t *m, tm_p2p_mailbox_t *to, int dest)
{
    m->fastbox_to[dest] = TM_P2P_FASTBOX_REFUSED; /* unless opened below */
    /* A ring in this process's memory: a rank of another process is reached through its
     * mailbox, which the network transport drains (transport.h). */
    if (!tm_rt_rank_is_local(dest))
        return NULL;
    /* Relaxed: a counter of reservations, nothing is published through it. */
    if (atomic_fetch_add_explicit(&to->fastboxes_taken, 1, memory_order_relaxed) >=
        TM_P2P_FASTBOX_MAX)
        return NULL;
    tm_p2p_fastbox_t *fb = aligned_alloc(TM_SHM_CACHE_LINE, sizeof *fb);
    tm_shm_cell_t *cell = tm_p2p_cell_alloc(m->mailbox, sizeof fb);
    if (!fb || !cell ||
        tm_shm_ring_create(TM_P2P_FASTBOX_LINES * TM_SHM_CACHE_LINE - sizeof(tm_shm_cell_t),
                           TM_P2P_FASTBOX_CELLS, &fb->ring) < 0) {
        free(fb);
        if (cell)
            tm_shm_cell_free(cell);
        atomic_fetch_sub_explicit(&to->fastboxes_taken, 1, memory_order_relaxed);
        return NULL;
    }
    fb->from = m->world_rank;
    atomic_init(&fb->refs, 2);
    fb->next_seq = 1;
    /* Ranks never leave their VP; a collective side's sender may be its progress thread. */
    fb->same_vp = tm_p2p_mailbox_is_program(m->mailbox) &&
                  tm_rt_rank_vp(dest) == tm_rt_rank_vp(m->world_rank);
    fb->expected = 1;
    tm_p2p_envelope_t *env = tm_p2p_cell_envelope(cell);
    memset(env, 0, sizeof *env);
    env->protocol = TM_P2P_PROTO_FASTBOX;
    env->origin = fb->from;
    atomic_store_explicit(&env->claim, TM_P2P_CLAIM_TAKEN, memory_order_relaxed);
    memcpy(tm_p2p_cell_payload(cell), &fb, sizeof fb);
    /* No poke: the message that opens it follows at once, and pokes. */
    tm_shm_queue_push(&to->inbound, cell);
    m->fastbox_to[dest] = fb;
    return fb;
}

void tm_p2p_fastbox_accept(tm_p2p_matcher_t *m, tm_shm_cell_t *cell)
{
    tm_p2p_fastbox_t *fb;
    memcpy(&fb, tm_p2p_cell_payload(cell), sizeof fb);
    tm_shm_cell_free(cell);
    if (!m->fastbox_from &&
        !(m->fastbox_from = calloc((size_t)tm_p2p_job.nranks, sizeof *m->fastbox_from)))
        tm_rt_job_abort(m->world_rank, MPI_ERR_NO_MEM, "out of memory opening a fastbox");
    m->fastbox_from[fb->from] = fb;
    tm_p2p_mailbox_t *mb = m->mailbox;
    int n = atomic_load_explicit(&mb->nfastboxes, memory_order_relaxed);
    atomic_store_explicit(&mb->fastboxes[n], fb, memory_order_relaxed);
    /* release: a thread reading the count as a hint then sees the pointer */
    atomic_store_explicit(&mb->nfastboxes, n + 1, memory_order_release);
}

void tm_p2p_fastboxes_close(tm_p2p_matcher_t *m)
{
    if (m->fastbox_from) {
        for (int i = 0; i < tm_p2p_job.nranks; i++)
            if (m->fastbox_from[i])
                fastbox_unref(m->fastbox_from[i]);
        free(m->fastbox_from);
        m->fastbox_from = NULL;
        atomic_store_explicit(&m->mailbox->nfastboxes, 0, memory_order_relaxed);
        atomic_store_explicit(&m->mailbox->fastboxes_taken, 0, memory_order_relaxed);
    }
    if (m->fastbox_to) {
        for (int i = 0; i < tm_p2p_job.nranks; i++)
            if (m->fastbox_to[i] && m->fastbox_to[i] != TM_P2P_FASTBOX_REFUSED)
                fastbox_unref(m->fastbox_to[i]);
        free(m->fastbox_to);
        m->fastbox_to = NULL;
    }
}
