/*
 * Requests and their handles. A rank's requests are its own: the handle table, the free list
 * and the free slots are touched by its thread only. Another rank may complete a request (a
 * rendezvous receiver completes the send), which it does through the request's atomic flag.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "p2p/p2p_impl.h"

tm_p2p_request_t *tm_p2p_request_new_slow(tm_mpi_rank_t *r, tm_p2p_request_kind_t kind)
{
    tm_p2p_t *p = r->p2p;
    tm_p2p_request_t *req = malloc(sizeof *req);
    if (!req)
        return NULL;
    if (p->nrequests == p->requests_cap) {
        int cap = p->requests_cap ? 2 * p->requests_cap : 64;
        tm_p2p_request_t **t = realloc(p->requests, (size_t)cap * sizeof *t);
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
    return tm_p2p_request_new(r, kind);
}

tm_p2p_request_t *tm_p2p_request_new_done(tm_mpi_rank_t *r, tm_p2p_request_kind_t kind,
                                          tm_mpi_comm_t *comm)
{
    tm_p2p_request_t *req = tm_p2p_request_new(r, kind);
    if (!req)
        return NULL;
    req->comm = comm;
    tm_p2p_status_proc_null(&req->status);
    /* Nobody else sees this request yet: relaxed. */
    atomic_store_explicit(&req->complete, 1, memory_order_relaxed);
    return req;
}

tm_p2p_request_t *tm_p2p_request_new_coll_done(tm_mpi_rank_t *r, tm_mpi_comm_t *comm,
                                               const char *call, int err)
{
    tm_p2p_request_t *req = tm_p2p_request_new(r, TM_P2P_REQ_COLL);
    if (!req)
        return NULL;
    req->comm = comm;
    req->call = call;
    req->status.MPI_SOURCE = MPI_ANY_SOURCE;
    req->status.MPI_TAG = MPI_ANY_TAG;
    req->status.MPI_ERROR = err;
    /* Nobody else sees this request yet: relaxed. */
    atomic_store_explicit(&req->complete, 1, memory_order_relaxed);
    return req;
}

tm_p2p_request_t *tm_p2p_request_lookup(tm_mpi_rank_t *r, MPI_Request h)
{
    if (h == MPI_REQUEST_NULL)
        return NULL;
    if (tm_mpi_handle_kind(h) == TM_MPI_KIND_REQUEST &&
        (tm_mpi_handle_payload(h) & TM_P2P_GREQ_HANDLE_BIT)) {
        /* Generalized: waited for, tested, freed and cancelled by its owner only */
        tm_p2p_request_t *req = tm_p2p_greq_lookup(h);
        return req && req->owner == r && !req->freed ? req : TM_P2P_REQUEST_INVALID;
    }
    tm_p2p_t *p = r->p2p;
    unsigned index = tm_mpi_handle_payload(h) - 1;
    if (tm_mpi_handle_kind(h) != TM_MPI_KIND_REQUEST || index >= (unsigned)p->nrequests ||
        !p->requests[index] || p->requests[index]->freed ||
        p->requests[index]->kind == TM_P2P_REQ_MESSAGE)
        return TM_P2P_REQUEST_INVALID;
    return p->requests[index];
}

/* Message handles share the request table; their payload is index + 2, since payload 1 is
 * MPI_MESSAGE_NO_PROC. */
tm_p2p_request_t *tm_p2p_message_lookup(tm_mpi_rank_t *r, MPI_Message h)
{
    tm_p2p_t *p = r->p2p;
    unsigned index = tm_mpi_handle_payload(h) - 2;
    if (tm_mpi_handle_kind(h) != TM_MPI_KIND_MESSAGE || index >= (unsigned)p->nrequests ||
        !p->requests[index] || p->requests[index]->kind != TM_P2P_REQ_MESSAGE)
        return NULL;
    return p->requests[index];
}

MPI_Message tm_p2p_message_handle(const tm_p2p_request_t *msg)
{
    return TM_MPI_HANDLE(TM_MPI_KIND_MESSAGE, (unsigned)msg->handle_index + 2);
}

bool tm_p2p_pair_settle(tm_p2p_request_t *req)
{
    for (int i = 0; i < 2; i++) {
        tm_p2p_request_t *part = req->parts[i];
        if (!part || !tm_p2p_request_is_complete(part))
            continue;
        if (part->kind == TM_P2P_REQ_RECV)
            req->status = part->status;
        tm_p2p_request_release(req->owner, part);
        req->parts[i] = NULL;
    }
    if (req->parts[0] || req->parts[1])
        return false;
    /* Only its owner reads the pair: relaxed. */
    atomic_store_explicit(&req->complete, 1, memory_order_relaxed);
    return true;
}

void tm_p2p_request_release(tm_mpi_rank_t *r, tm_p2p_request_t *req)
{
    tm_p2p_t *p = r->p2p;
    if (req->type)
        tm_mpi_type_release(req->type);
    if (req->coll)
        req->coll_free(req->coll);
    if (req->kind == TM_P2P_REQ_GREQ)
        tm_p2p_greq_unregister(req);
    p->requests[req->handle_index] = NULL; /* the request keeps its index for its next use */
    req->next = p->free_requests;
    p->free_requests = req;
}

void tm_p2p_request_forget_comm(tm_mpi_rank_t *r, const tm_mpi_comm_t *c)
{
    tm_p2p_t *p = r->p2p;
    for (int i = 0; i < p->nrequests; i++)
        if (p->requests[i] && p->requests[i]->comm == c)
            p->requests[i]->comm = NULL;
    for (tm_p2p_request_t *req = p->zombies; req; req = req->next)
        if (req->comm == c)
            req->comm = NULL;
}

void tm_p2p_request_complete(tm_p2p_request_t *req, tm_p2p_mailbox_t *owner_mailbox)
{
    /* release: the owner's acquire load then sees everything done for the request. */
    atomic_store_explicit(&req->complete, 1, memory_order_release);
    tm_p2p_mailbox_poke(owner_mailbox);
}

void tm_p2p_request_status(const tm_p2p_request_t *req, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    if (req->kind == TM_P2P_REQ_RECV || req->kind == TM_P2P_REQ_COLL ||
        req->kind == TM_P2P_REQ_CHECKED) {
        *status = req->status;
    } else {
        /* A send's status says nothing but whether it was cancelled. */
        status->MPI_SOURCE = MPI_ANY_SOURCE;
        status->MPI_TAG = MPI_ANY_TAG;
        status->MPI_ERROR = MPI_SUCCESS;
        status->tm_count = 0;
        status->tm_cancelled = req->kind == TM_P2P_REQ_SEND && req->status.tm_cancelled;
    }
}

/* true when freed request req may go (a generalized one: once its free function returned). */
static bool zombie_done(tm_p2p_request_t *req)
{
    if (req->kind != TM_P2P_REQ_GREQ)
        return tm_p2p_request_is_complete(req);
    /* acquire: the free function, run by the completing thread, is done with the request */
    return atomic_load_explicit(&req->complete, memory_order_acquire) & TM_P2P_GREQ_RELEASABLE;
}

void tm_p2p_status_proc_null(MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = MPI_PROC_NULL;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = MPI_SUCCESS;
    status->tm_count = 0;
    status->tm_cancelled = 0;
}

/* ---- requests freed by MPI_Request_free while pending: they go when they complete ---- */

void tm_p2p_request_zombie_add(tm_mpi_rank_t *r, tm_p2p_request_t *req)
{
    req->next = r->p2p->zombies;
    r->p2p->zombies = req;
}

void tm_p2p_request_zombies_sweep(tm_mpi_rank_t *r)
{
    tm_p2p_request_t **link = &r->p2p->zombies;
    while (*link) {
        tm_p2p_request_t *req = *link;
        if (zombie_done(req)) {
            *link = req->next;
            tm_p2p_request_release(r, req);
        } else {
            link = &req->next;
        }
    }
}

bool tm_p2p_request_zombies_done(void *arg)
{
    tm_mpi_rank_t *r = arg;
    for (tm_p2p_request_t *req = r->p2p->zombies; req; req = req->next)
        if (!zombie_done(req))
            return false;
    return true;
}

typedef struct zombies_of {
    tm_mpi_rank_t *r;
    const tm_mpi_comm_t *c;
} zombies_of_t;

/* Whether r's requests on c that the program freed while pending are all complete: the sends
 * and checked ones among the zombies, and the receives still posted. */
static bool zombies_of_done(void *arg)
{
    const zombies_of_t *z = arg;
    for (tm_p2p_request_t *req = z->r->p2p->zombies; req; req = req->next)
        if (req->comm == z->c && !zombie_done(req))
            return false;
    for (tm_p2p_request_t *req = z->r->p2p->match.posted_head; req; req = req->next)
        if (req->freed && req->comm == z->c)
            return false;
    return true;
}

void tm_p2p_request_zombies_wait_comm(tm_mpi_rank_t *r, const tm_mpi_comm_t *c)
{
    zombies_of_t z = {r, c};
    if (!zombies_of_done(&z)) {
        tm_p2p_note_blocked(r, "MPI_Comm_disconnect(the requests on it freed while pending)");
        tm_p2p_wait_until(r, zombies_of_done, &z);
    }
    tm_p2p_request_zombies_sweep(r);
}

/* ---- generalized requests' handles ----
 *
 * A generalized request's handle names a slot of a process-wide table, so that the program may
 * complete it from wherever its work ends, another rank or a thread that is no rank at all:
 * chunks of pointers allocated once and never moved, read without a lock; slots are taken and
 * given back under a mutex (MPI_Grequest_start is no hot path). */
#define GREQ_CHUNK  1024
#define GREQ_CHUNKS 4096 /* 4 Mi generalized requests alive at once */
_Static_assert((unsigned)GREQ_CHUNK *GREQ_CHUNKS < TM_P2P_GREQ_HANDLE_BIT,
               "generalized request indices must fit below the handle bit");

static tm_p2p_request_t *_Atomic *_Atomic greq_chunks[GREQ_CHUNKS];
static pthread_mutex_t greq_lock = PTHREAD_MUTEX_INITIALIZER;
static int *greq_free_slots; /* under greq_lock */
static int greq_nfree, greq_free_cap, greq_used;

int tm_p2p_greq_register(tm_p2p_request_t *req)
{
    pthread_mutex_lock(&greq_lock);
    int index = -1;
    if (greq_nfree > 0) {
        index = greq_free_slots[--greq_nfree];
    } else if (greq_used < GREQ_CHUNK * GREQ_CHUNKS) {
        int c = greq_used / GREQ_CHUNK;
        if (!atomic_load_explicit(&greq_chunks[c], memory_order_relaxed)) {
            tm_p2p_request_t *_Atomic *chunk = calloc(GREQ_CHUNK, sizeof *chunk);
            /* release: a lookup that finds the chunk sees it zeroed */
            if (chunk)
                atomic_store_explicit(&greq_chunks[c], chunk, memory_order_release);
        }
        if (atomic_load_explicit(&greq_chunks[c], memory_order_relaxed))
            index = greq_used++;
    }
    pthread_mutex_unlock(&greq_lock);
    if (index < 0)
        return -ENOMEM;
    req->greq_index = index;
    tm_p2p_request_t *_Atomic *chunk =
        atomic_load_explicit(&greq_chunks[index / GREQ_CHUNK], memory_order_relaxed);
    /* release: whoever looks the handle up sees the request filled in */
    atomic_store_explicit(&chunk[index % GREQ_CHUNK], req, memory_order_release);
    return 0;
}

void tm_p2p_greq_unregister(tm_p2p_request_t *req)
{
    int index = req->greq_index;
    tm_p2p_request_t *_Atomic *chunk =
        atomic_load_explicit(&greq_chunks[index / GREQ_CHUNK], memory_order_relaxed);
    atomic_store_explicit(&chunk[index % GREQ_CHUNK], NULL, memory_order_relaxed);
    pthread_mutex_lock(&greq_lock);
    if (greq_nfree == greq_free_cap) {
        int cap = greq_free_cap ? 2 * greq_free_cap : 64;
        int *slots = realloc(greq_free_slots, (size_t)cap * sizeof *slots);
        if (slots) {
            greq_free_slots = slots;
            greq_free_cap = cap;
        }
    }
    if (greq_nfree < greq_free_cap)
        greq_free_slots[greq_nfree++] = index; /* else the slot is lost, not reused wrongly */
    pthread_mutex_unlock(&greq_lock);
}

tm_p2p_request_t *tm_p2p_greq_lookup(MPI_Request h)
{
    unsigned payload = tm_mpi_handle_payload(h);
    if (tm_mpi_handle_kind(h) != TM_MPI_KIND_REQUEST || !(payload & TM_P2P_GREQ_HANDLE_BIT))
        return NULL;
    unsigned index = (payload & ~TM_P2P_GREQ_HANDLE_BIT) - 1;
    if (index >= (unsigned)GREQ_CHUNK * GREQ_CHUNKS)
        return NULL;
    /* acquire: pair with greq_register's releases */
    tm_p2p_request_t *_Atomic *chunk =
        atomic_load_explicit(&greq_chunks[index / GREQ_CHUNK], memory_order_acquire);
    if (!chunk)
        return NULL;
    return atomic_load_explicit(&chunk[index % GREQ_CHUNK], memory_order_acquire);
}
