/*
 * ThreadMPI p2p/, inside the layer: fastboxes, the way of small eager messages between ranks of
 * this process (fastbox.c).
 *
 * A fastbox is a ring of cells (shm/ring.c) from one sending side to one receiving side of the
 * same kind (program or collectives), for the eager messages that fit its cells: the sender
 * writes the message in place and the receiver reads it there. Through the queue, a message also
 * costs the cache lines of the queue's links and of the pool's free lists, each a transfer
 * between cores on the way.
 *
 * Opening: the first small eager message from a side to another opens a fastbox, unless the
 * receiving side has TM_P2P_FASTBOX_MAX already (a side receiving from many polls only the first
 * few; the others use the queue, and a refused sender never asks again). The sender makes it and
 * sends a FASTBOX cell through the queue; from that cell on, the receiver polls it after the
 * queue.
 *
 * Order: from the opening on, the sender numbers every message it sends to that side (pair_seq,
 * from 1), through the fastbox or the queue: messages that do not fit a fastbox cell, or find it
 * full, take the queue. The receiver takes each sender's messages in that order: a queue cell
 * ahead of its turn waits among the held-back cells (as for dynamic broadcasts), and a fastbox
 * whose oldest cell is not its turn is left alone until it is. Messages sent before the opening
 * went through the queue ahead of the FASTBOX cell, so they come first anyway.
 * Dynamic broadcasts reach a destination through the queue, from other ranks, while the root's
 * messages sent before one may sit in the root's fastbox: a delivery is taken in only when no
 * message of its root numbered for it waits at the head of that fastbox or among the held-back
 * cells (dyn_preceded). With the queue alone, the queue's order did that.
 *
 * Cells: the receiver frees them in any order, like pool cells; one kept as unexpected keeps the
 * cells after it from being written again (the sender then uses the queue until it is
 * received). They are cancellable as other cells (see p2p.h): the claim word is in the cell.
 *
 * Lifetime: two references, the sender's and the receiver's, each dropped when that side
 * finalizes; the last frees the fastbox.
 */
#ifndef TM_P2P_FASTBOX_H
#define TM_P2P_FASTBOX_H

#include <stdalign.h>
#include <stdlib.h>

#include "p2p/transport.h"
#include "shm/ring.h"

struct tm_p2p_fastbox {
    tm_shm_ring_t *ring;
    int from;                                     /* the sending side's world rank */
    _Atomic int refs;                             /* its sender's and its receiver's */
    alignas(TM_SHM_CACHE_LINE) uint32_t next_seq; /* sender only: the next message's pair_seq */
    bool same_vp; /* between two programs' sides whose ranks share a VP (fastbox_poke) */
    alignas(TM_SHM_CACHE_LINE) uint32_t expected; /* receiver only: pair_seq of the next to take */
};

/* The data bytes a fastbox cell carries after its envelope. */
#define TM_P2P_FASTBOX_PAYLOAD                                                                     \
    (TM_P2P_FASTBOX_LINES * TM_SHM_CACHE_LINE - sizeof(tm_shm_cell_t) - sizeof(tm_p2p_envelope_t))

/* A fastbox_to entry for a side that refused one. */
#define TM_P2P_FASTBOX_REFUSED ((tm_p2p_fastbox_t *)(uintptr_t)1)

static inline uint32_t tm_p2p_pair_seq_next(uint32_t seq)
{
    return seq == UINT32_MAX ? 1 : seq + 1; /* 0 means "not numbered" */
}

/* Opens a fastbox from m's side to mailbox `to` (world rank `dest`); NULL when `to` has its
 * share or memory is short (the queue then carries everything). */
tm_p2p_fastbox_t *tm_p2p_fastbox_open(tm_p2p_matcher_t *m, tm_p2p_mailbox_t *to, int dest);

/* The receiving side of m takes in the FASTBOX cell that opens a fastbox: it polls it from now
 * on. */
void tm_p2p_fastbox_accept(tm_p2p_matcher_t *m, tm_shm_cell_t *cell);

/* Drops m's ends of its fastboxes (its side finalizes). */
void tm_p2p_fastboxes_close(tm_p2p_matcher_t *m);

/* Wakes the receiving side of fastbox fb, which has a message more (tm_p2p_mailbox_poke). Between
 * two ranks of one VP, without the fence: the receiving rank is parked or waits its turn on
 * this kernel thread, and it publishes itself as sleeper and looks for work without yielding in
 * between (tm_p2p_wait_noted), so program order alone lets one of us see the other. A
 * program's mailbox has no helper to look for. The fence costs a send 20 to 30 cycles while
 * nothing else is pending; more when its store waits for a line that another core polls. */
static inline void tm_p2p_fastbox_poke(const tm_p2p_fastbox_t *fb, tm_p2p_mailbox_t *to)
{
    if (!fb->same_vp)
        tm_p2p_mailbox_poke(to);
    else if (atomic_load_explicit(&to->sleeper, memory_order_relaxed))
        tm_p2p_mailbox_wake_rank(to);
}

/* The fastbox from m's side to mailbox `to` (world rank `dest`), else NULL; with `open`, opened
 * now if there is none yet. */
static inline tm_p2p_fastbox_t *tm_p2p_fastbox_to(tm_p2p_matcher_t *m, tm_p2p_mailbox_t *to,
                                                  int dest, bool open)
{
    if (!m->fastbox_to) {
        if (!open || !(m->fastbox_to = calloc((size_t)tm_p2p_job.nranks, sizeof *m->fastbox_to)))
            return NULL;
    }
    tm_p2p_fastbox_t *fb = m->fastbox_to[dest];
    if (fb == TM_P2P_FASTBOX_REFUSED)
        return NULL;
    if (!fb && open)
        fb = tm_p2p_fastbox_open(m, to, dest);
    return fb;
}

#endif /* TM_P2P_FASTBOX_H */
