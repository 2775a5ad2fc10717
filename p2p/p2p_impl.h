/*
 * ThreadMPI p2p/, inside the layer: what its files share beyond message.h (what a message is),
 * transport.h (the transport seam) and fastbox.h.
 */
#ifndef TM_P2P_IMPL_H
#define TM_P2P_IMPL_H

#include "p2p/message.h"

/* Puts back `cell`, taken from the unexpected messages u, first in its bin: it was the first
 * match (its arrival number is kept). match.c */
void tm_p2p_unexpected_return(tm_p2p_unexpected_t *u, tm_shm_cell_t *cell);

/* true when m's mailbox has a message m can take in now: the exact test of its consumer, after
 * a seq_cst fence. A fastbox whose oldest cell waits for its turn has none: the message it
 * waits for comes through the queue, which pokes. match.c */
bool tm_p2p_matcher_has_work(const tm_p2p_matcher_t *m);

/* The requests r freed with MPI_Request_free while pending: those complete go (sweep); whether
 * none is left pending (done, with r as the argument: a wait's condition). request.c */
void tm_p2p_request_zombies_sweep(tm_mpi_rank_t *r);
bool tm_p2p_request_zombies_done(void *r);

/* Hands `note` to the runtime's diagnosis: the rank blocks from now until its wait ends. note.c */
void tm_p2p_blocked_record(tm_mpi_rank_t *r, const tm_p2p_blocked_note_t *note);

/* "5" or "MPI_ANY_SOURCE", for notes. note.c */
void tm_p2p_peer_name(int rank, char *buf, size_t len);

/* Whether p's collectives need the rank to keep running them (tm_p2p_hook_t). */
static inline bool tm_p2p_hook_needs_rank(const tm_p2p_t *p)
{
    return p->hook && p->hook->needs_rank(p->hook_ctx);
}

#endif /* TM_P2P_IMPL_H */
