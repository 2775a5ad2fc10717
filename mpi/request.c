/*
 * Requests and their handles. A rank's requests are its own: the handle table, the free list
 * and the free slots are touched by its thread only. Another rank may complete a request (a
 * rendezvous receiver completes the send), which it does through the request's atomic flag.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "nbc/nbc.h"
#include "p2p.h"

tm_mpi_request_t *tm_mpi_request_new_slow(tm_mpi_rank_t *r, tm_mpi_request_kind_t kind)
{
    tm_mpi_p2p_t *p = r->p2p;
    tm_mpi_request_t *req = malloc(sizeof *req);
    if (!req)
        return NULL;
    if (p->nrequests == p->requests_cap) {
        int cap = p->requests_cap ? 2 * p->requests_cap : 64;
        tm_mpi_request_t **t = realloc(p->requests, (size_t)cap * sizeof *t);
        if (!t) {
            free(req);
            return NULL;
        }
        p->requests = t;
        p->requests_cap = cap;
    }
    /* The new request owns this index for good: released, it keeps it on the free list. */
    req->handle_index = p->nrequests++;
    req->next = p->free_requests;
    p->free_requests = req;
    return tm_mpi_request_new(r, kind);
}

tm_mpi_request_t *tm_mpi_request_new_done(tm_mpi_rank_t *r, tm_mpi_request_kind_t kind,
                                          tm_mpi_comm_t *comm)
{
    tm_mpi_request_t *req = tm_mpi_request_new(r, kind);
    if (!req)
        return NULL;
    req->comm = comm;
    tm_mpi_status_proc_null(&req->status);
    /* Nobody else sees this request yet: relaxed. */
    atomic_store_explicit(&req->complete, 1, memory_order_relaxed);
    return req;
}

tm_mpi_request_t *tm_mpi_request_lookup(tm_mpi_rank_t *r, MPI_Request h)
{
    if (h == MPI_REQUEST_NULL)
        return NULL;
    if (tm_mpi_handle_kind(h) == TM_MPI_KIND_REQUEST &&
        (tm_mpi_handle_payload(h) & TM_MPI_GREQ_HANDLE_BIT)) {
        /* Generalized: waited for, tested, freed and cancelled by its owner only */
        tm_mpi_request_t *req = tm_mpi_greq_lookup(h);
        return req && req->owner == r && !req->freed ? req : TM_MPI_REQUEST_INVALID;
    }
    tm_mpi_p2p_t *p = r->p2p;
    unsigned index = tm_mpi_handle_payload(h) - 1;
    if (tm_mpi_handle_kind(h) != TM_MPI_KIND_REQUEST || index >= (unsigned)p->nrequests ||
        !p->requests[index] || p->requests[index]->freed ||
        p->requests[index]->kind == TM_MPI_REQ_MESSAGE)
        return TM_MPI_REQUEST_INVALID;
    return p->requests[index];
}

/* Message handles share the request table; their payload is index + 2, since payload 1 is
 * MPI_MESSAGE_NO_PROC. */
tm_mpi_request_t *tm_mpi_message_lookup(tm_mpi_rank_t *r, MPI_Message h)
{
    tm_mpi_p2p_t *p = r->p2p;
    unsigned index = tm_mpi_handle_payload(h) - 2;
    if (tm_mpi_handle_kind(h) != TM_MPI_KIND_MESSAGE || index >= (unsigned)p->nrequests ||
        !p->requests[index] || p->requests[index]->kind != TM_MPI_REQ_MESSAGE)
        return NULL;
    return p->requests[index];
}

MPI_Message tm_mpi_message_handle(const tm_mpi_request_t *msg)
{
    return TM_MPI_HANDLE(TM_MPI_KIND_MESSAGE, (unsigned)msg->handle_index + 2);
}

void tm_mpi_request_release(tm_mpi_rank_t *r, tm_mpi_request_t *req)
{
    tm_mpi_p2p_t *p = r->p2p;
    if (req->type)
        tm_mpi_type_release(req->type);
    if (req->sched)
        tm_nbc_sched_free(req->sched);
    if (req->kind == TM_MPI_REQ_GREQ)
        tm_mpi_greq_unregister(req);
    p->requests[req->handle_index] = NULL; /* the request keeps its index for its next use */
    req->next = p->free_requests;
    p->free_requests = req;
}

void tm_mpi_request_forget_comm(tm_mpi_rank_t *r, const tm_mpi_comm_t *c)
{
    tm_mpi_p2p_t *p = r->p2p;
    for (int i = 0; i < p->nrequests; i++)
        if (p->requests[i] && p->requests[i]->comm == c)
            p->requests[i]->comm = NULL;
    for (tm_mpi_request_t *req = p->zombies; req; req = req->next)
        if (req->comm == c)
            req->comm = NULL;
}

void tm_mpi_request_complete(tm_mpi_request_t *req, tm_mpi_mailbox_t *owner_mailbox)
{
    /* release: the owner's acquire load then sees everything done for the request. */
    atomic_store_explicit(&req->complete, 1, memory_order_release);
    tm_mpi_mailbox_poke(owner_mailbox);
}

void tm_mpi_request_status(const tm_mpi_request_t *req, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    if (req->kind == TM_MPI_REQ_RECV || req->kind == TM_MPI_REQ_COLL) {
        *status = req->status;
    } else {
        /* A send's status says nothing but whether it was cancelled. */
        status->MPI_SOURCE = MPI_ANY_SOURCE;
        status->MPI_TAG = MPI_ANY_TAG;
        status->MPI_ERROR = MPI_SUCCESS;
        status->tm_count = 0;
        status->tm_cancelled = req->kind == TM_MPI_REQ_SEND && req->status.tm_cancelled;
    }
}

bool tm_mpi_request_zombie_done(const tm_mpi_request_t *req)
{
    if (req->kind != TM_MPI_REQ_GREQ)
        return tm_mpi_request_is_complete(req);
    /* acquire: the free function, run by the completing thread, is done with the request */
    return atomic_load_explicit(&req->complete, memory_order_acquire) & TM_MPI_GREQ_RELEASABLE;
}

void tm_mpi_status_proc_null(MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = MPI_PROC_NULL;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = MPI_SUCCESS;
    status->tm_count = 0;
    status->tm_cancelled = 0;
}
