/*
 * A rank's point-to-point state: made at its MPI_Init (with the job's mailboxes, the first time)
 * and freed at its MPI_Finalize; and the hook through which its progress runs its collectives.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "p2p/p2p_impl.h"
#include "p2p/transport.h"

int tm_p2p_init(tm_mpi_rank_t *r)
{
    if (tm_p2p_mailboxes_init() < 0)
        return -ENOMEM;
    /* Ranks on other hosts: the network, wired up by the first rank here to initialize. */
    const char *why;
    if (tm_rt_local_size() != tm_rt_world_size() && tm_p2p_net_start(&why) < 0) {
        char msg[320];
        snprintf(msg, sizeof msg, "MPI_Init (rank %d): cannot reach the job's other hosts: %s",
                 r->rt->world_rank, why);
        tm_rt_job_abort(r->rt->world_rank, 1, msg);
    }
    tm_p2p_t *p = calloc(1, sizeof *p);
    if (!p)
        return -ENOMEM;
    tm_p2p_mailbox_t *mb = tm_p2p_mailbox_get(r->rt->world_rank, false);
    int rc = tm_p2p_mailbox_pool(mb, r->rt->world_rank);
    if (rc == 0)
        rc = tm_p2p_mailbox_pool(tm_p2p_mailbox_get(r->rt->world_rank, true), r->rt->world_rank);
    if (rc < 0) {
        free(p);
        return rc;
    }
    p->match.mailbox = mb;
    p->match.world_rank = r->rt->world_rank;
    r->p2p = p;
    return 0;
}

void tm_p2p_hook_set(tm_mpi_rank_t *r, const tm_p2p_hook_t *hook, void *ctx)
{
    r->p2p->hook = hook;
    r->p2p->hook_ctx = ctx;
}

void tm_p2p_finalize(tm_mpi_rank_t *r)
{
    tm_p2p_t *p = r->p2p;
    if (!p)
        return;
    /* MPI_Finalize completes the sends the program freed with MPI_Request_free: by rendezvous,
     * their receivers still read them. */
    if (p->zombies && !tm_p2p_request_zombies_done(r)) {
        tm_p2p_note_blocked(r, "MPI_Finalize(waiting for sends freed with MPI_Request_free "
                               "to be received)");
        tm_p2p_wait_until(r, tm_p2p_request_zombies_done, r);
    }
    tm_p2p_request_zombies_sweep(r);
    /* A send still pending here (an erroneous program) may be completed later by its receiver:
     * its memory stays. A message taken by MPI_Mprobe and never received goes back to its
     * sender like an unexpected one. */
    for (int i = 0; i < p->nrequests; i++)
        if (p->requests[i] && p->requests[i]->kind == TM_P2P_REQ_MESSAGE && p->requests[i]->cell) {
            tm_p2p_unexpected_return(&p->match.unexpected, p->requests[i]->cell);
            p->requests[i]->cell = NULL;
        }
    for (int i = 0; i < p->nrequests; i++) {
        tm_p2p_request_t *req = p->requests[i];
        if (req && req->kind == TM_P2P_REQ_GREQ)
            tm_p2p_greq_unregister(req); /* never completed: an erroneous program */
        if (!req || tm_p2p_request_is_complete(req) || req->kind != TM_P2P_REQ_SEND)
            free(req);
    }
    while (p->free_requests) {
        tm_p2p_request_t *req = p->free_requests;
        p->free_requests = req->next;
        free(req);
    }
    free(p->requests);
    tm_p2p_matcher_fini(&p->match);
    free(p);
    r->p2p = NULL;
    if (tm_p2p_net_active())
        tm_p2p_net_rank_done();
}
