/*
 * ThreadMPI p2p/, inside the layer: the transport seam, where the engine reaches a peer rank.
 *
 * Matching (match.c) and the calls on requests work on messages (message.h) and receiving sides;
 * they never touch a peer's memory themselves. A transport moves a message between a side and a
 * peer's side, and meets the rest of the engine at four points:
 *
 *   1. sending   send.c builds a message for a peer side (a cell with its envelope, and the data
 *                or a tm_p2p_source_t) and hands it to the transport that serves the peer
 *   2. arriving  the messages for a side come out of its mailbox alone (the queue, then the
 *                fastboxes), each sender's in the order sent; matching takes them in from there
 *   3. data      a SOURCE message's data comes into the receive buffer through its source's ops
 *                (copy, then done, which lets the sender go)
 *   4. progress  what the transport must run to move messages runs in the rank's progress
 *                (wait.c), beside the collectives' hook
 *
 * Ranks of other processes (a job on several hosts) keep their two mailboxes here too: they are
 * the network transport's outbound queues for those ranks (docs/architecture.md, "Beyond one
 * node"). Sending pushes into them as into any mailbox, so matching, ordering and cancelling
 * do not change; what needs the peer's memory (fastboxes, shared rendezvous copies, wake-ups
 * by VP) is for ranks of this process only (tm_rt_rank_is_local).
 *
 * Today one transport serves every peer: the ranks of this process, through shared memory.
 * Sending pushes the cell into the peer's mailbox (tm_p2p_mailbox_post), or writes a small eager
 * message into a fastbox to it (fastbox.c); a rendezvous is one copy from the sender's buffer,
 * which the receiving side may share with a sender that waits (copy.c, tm_p2p_rndv_ops). A
 * transport to ranks of other processes or nodes (over libfabric or UCX) adds files: its sending
 * for the peers it serves (point 1), its progress pushing what arrives into the receiver's
 * mailbox queue in each sender's order, as a sender of this process would (2, 4), and source ops
 * that fetch remote data (3). Matching does not change.
 */
#ifndef TM_P2P_TRANSPORT_H
#define TM_P2P_TRANSPORT_H

#include "p2p/message.h"

/* Makes the job's mailboxes, the first time. 0 or -ENOMEM. */
int tm_p2p_mailboxes_init(void);

/* Gives mailbox `mb` of world rank `world_rank` its cell pools, unless it has them (a rank that
 * initializes again after a failed start keeps its pools). 0 or -ENOMEM. */
int tm_p2p_mailbox_pool(tm_p2p_mailbox_t *mb, int world_rank);

/* A free cell from the side of mailbox `mb` (its sender only) for a message of `payload` bytes
 * after the envelope: of the smallest class it fits (see TM_P2P_CELL_CLASSES). NULL when memory
 * is exhausted. */
static inline tm_shm_cell_t *tm_p2p_cell_alloc(tm_p2p_mailbox_t *mb, size_t payload)
{
    size_t need = sizeof(tm_shm_cell_t) + sizeof(tm_p2p_envelope_t) + payload;
    int c = need <= TM_P2P_CELL_CLASS_MIN
                ? 0
                : 64 - __builtin_clzll(need - 1) - __builtin_ctz(TM_P2P_CELL_CLASS_MIN);
    if (c >= tm_p2p_job.cell_classes)
        c = TM_P2P_CELL_CLASS_FULL;
    return tm_shm_cell_alloc(mb->pools[c]);
}

/* The world rank whose mailbox `mb` is (either side). */
static inline int tm_p2p_mailbox_world_rank(const tm_p2p_mailbox_t *mb)
{
    int index = (int)(mb - tm_p2p_job.mailboxes);
    return index < tm_p2p_job.nranks ? index : index - tm_p2p_job.nranks;
}

/* Whether `mb` is a program's side (not a collectives'). */
static inline bool tm_p2p_mailbox_is_program(const tm_p2p_mailbox_t *mb)
{
    return mb < tm_p2p_job.mailboxes + tm_p2p_job.nranks;
}

/* Wakes the network thread if it sleeps (net_transport.c), after the caller's seq_cst fence
 * that published its work. */
void tm_p2p_net_wake(void);

/* A rank posted to a remote rank's mailbox (after the post's fence): ships it now if nobody else
 * is moving messages, else leaves it to them (net_transport.c). */
void tm_p2p_net_posted(void);

/* Moves messages, as the network thread does, unless someone else is: true when it did; and
 * *transfers: whether transfers are under way (sends not done, data not arrived). For a rank
 * that polls while it waits. */
bool tm_p2p_net_poll(bool *transfers);

/* Hands the cell to mailbox `to` and wakes whoever sleeps on it: the network thread for a rank
 * of another process. */
static inline void tm_p2p_mailbox_post(tm_shm_cell_t *cell, tm_p2p_mailbox_t *to)
{
    tm_shm_queue_push(&to->inbound, cell);
    tm_p2p_mailbox_poke(to);
    if (__builtin_expect(to->remote, 0))
        tm_p2p_net_posted(); /* the poke fenced */
}

/* A rendezvous from a rank of this process: the receiving side copies from the sender's buffer,
 * shared with the sender when it is worth it, then completes the send (copy.c). */
extern const tm_p2p_source_ops_t tm_p2p_rndv_ops;

/* The network transport (net_transport.c), for a job whose ranks are not all in this process:
 * the wire-up with the job's other processes, once, at the first MPI_Init here. 0, or -1 with
 * the reason in *why. */
int tm_p2p_net_start(const char **why);

/* Whether the network transport runs. */
bool tm_p2p_net_active(void);

/* A rank of this process is done with MPI (MPI_Finalize): after the last one, the messages
 * sent from here leave, the processes agree that they are all done, and the network closes. */
void tm_p2p_net_rank_done(void);

#endif /* TM_P2P_TRANSPORT_H */
