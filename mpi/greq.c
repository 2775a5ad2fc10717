/*
 * Generalized requests (MPI 3.1, 12.2): MPI_Grequest_start, MPI_Grequest_complete, and the
 * status setters their query functions use (MPI_Status_set_elements(_x), _set_cancelled).
 *
 * A generalized request is a request of its owner rank like any other (a slot of its table, the
 * completion calls of wait.c), except for its handle: the program completes it from wherever
 * its work ends, another rank or a thread of its own that is no rank at all. Its handle
 * therefore names a slot of a process-wide table (p2p/request.c).
 *
 * Completion, freeing and release race between the completing thread and the owner, decided by
 * one atomic word, the request's `complete` (bits TM_P2P_GREQ_*, p2p.h):
 *
 *   completer: MPI_Grequest_complete           owner: MPI_Request_free before a wait
 *   reads what it needs (mailbox, callbacks)   fetch_or FREED
 *   fetch_or DONE                                DONE was set: free_fn, release now
 *     FREED was not set: poke the owner;         else: the request waits among the rank's
 *       its last touch of the request              zombies until RELEASABLE
 *     FREED was set: free_fn, fetch_or
 *       RELEASABLE, poke the owner
 *
 * A wait sees DONE as completion (the owner's wait sleeps like any other, woken by the poke),
 * then calls query_fn and free_fn itself. The completer touches the request after its DONE only
 * when the owner gave it up first, and then the owner releases it only after RELEASABLE: the
 * request is never used after its release.
 */
#include "config.h"

#include <stdlib.h>

#include "mpi_impl.h"
#include "p2p/p2p.h"
#include "pt2pt.h"

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    static const char call[] = "MPI_Grequest_start";
    TM_MPI_RANK(r, call);
    if (request == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "request is NULL");
    if (!query_fn || !free_fn || !cancel_fn)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "%s is NULL",
                                  !query_fn  ? "query_fn"
                                  : !free_fn ? "free_fn"
                                             : "cancel_fn");
    tm_p2p_request_t *req = tm_p2p_request_new(r, TM_P2P_REQ_GREQ);
    if (!req)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    req->query_fn = query_fn;
    req->free_fn = free_fn;
    req->cancel_fn = cancel_fn;
    req->extra_state = extra_state;
    req->call = call;
    if (tm_p2p_greq_register(req) < 0) {
        req->kind = TM_P2P_REQ_RECV; /* released as a plain request: it has no table slot */
        tm_p2p_request_release(r, req);
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM,
                                  "too many generalized requests alive");
    }
    *request = tm_p2p_request_handle(req);
    return MPI_SUCCESS;
}
#pragma weak MPI_Grequest_start = PMPI_Grequest_start

/* An error of MPI_Grequest_complete: through the handler of the calling rank, else (a thread
 * that is not a rank, where no handler can run) returned as is. */
static int complete_error(const char *call, int errclass, MPI_Request request, const char *what)
{
    tm_rt_rank_t *rt = tm_rt_rank_self();
    if (!rt)
        return errclass;
    return tm_mpi_error_raise(rt, NULL, call, errclass, "0x%x %s", (unsigned)request, what);
}

int PMPI_Grequest_complete(MPI_Request request)
{
    static const char call[] = "MPI_Grequest_complete";
    tm_p2p_request_t *req = tm_p2p_greq_lookup(request);
    if (!req || req->kind != TM_P2P_REQ_GREQ)
        return complete_error(call, MPI_ERR_REQUEST, request, "is not a generalized request");
    /* Read before the fetch_or: once DONE is set the owner may release the request. The
     * mailboxes live as long as the process. */
    tm_p2p_mailbox_t *owner = req->owner->p2p->match.mailbox;
    MPI_Grequest_free_function *free_fn = req->free_fn;
    void *extra_state = req->extra_state;
    /* acq_rel: release publishes the program's work before the request reads as complete;
     * acquire sees the owner's FREED and what it did before. */
    unsigned old = atomic_fetch_or_explicit(&req->complete, TM_P2P_GREQ_DONE, memory_order_acq_rel);
    if (old & TM_P2P_GREQ_DONE)
        return complete_error(call, MPI_ERR_REQUEST, request, "was completed already");
    if (old & TM_P2P_GREQ_FREED) {
        /* Freed by the program already: the free function runs here, then the owner may let the
         * request go (its progress sweeps it). Its error has nobody to go to. */
        free_fn(extra_state);
        atomic_fetch_or_explicit(&req->complete, TM_P2P_GREQ_RELEASABLE, memory_order_release);
    }
    tm_p2p_mailbox_poke(owner);
    return MPI_SUCCESS;
}
#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete

int tm_mpi_greq_query(tm_p2p_request_t *req, MPI_Status *status)
{
    /* The query function always gets a status to fill, even when the program ignores it. An
     * empty one first, so that fields it leaves alone say nothing. */
    MPI_Status ignored;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &ignored : status;
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    st->MPI_ERROR = MPI_SUCCESS;
    st->tm_count = 0;
    st->tm_cancelled = 0;
    return req->query_fn(req->extra_state, st);
}

int tm_mpi_greq_retire(tm_mpi_rank_t *r, tm_p2p_request_t *req, MPI_Status *status)
{
    int err = tm_mpi_greq_query(req, status);
    int free_err = req->free_fn(req->extra_state);
    if (err == MPI_SUCCESS)
        err = free_err;
    if (status != MPI_STATUS_IGNORE)
        status->MPI_ERROR = err;
    tm_p2p_request_release(r, req);
    return err;
}

int tm_mpi_greq_free(tm_mpi_rank_t *r, tm_p2p_request_t *req)
{
    req->freed = true; /* its handle is gone, whatever happens next */
    /* acq_rel: see MPI_Grequest_complete; the completer's work is seen if DONE was set. */
    unsigned old =
        atomic_fetch_or_explicit(&req->complete, TM_P2P_GREQ_FREED, memory_order_acq_rel);
    if (old & TM_P2P_GREQ_DONE) {
        int err = req->free_fn(req->extra_state);
        tm_p2p_request_release(r, req);
        return err;
    }
    tm_p2p_request_zombie_add(r, req);
    return MPI_SUCCESS;
}

int tm_mpi_greq_cancel(tm_p2p_request_t *req)
{
    /* acquire: a completion by another thread is seen with what it published */
    unsigned state = atomic_load_explicit(&req->complete, memory_order_acquire);
    return req->cancel_fn(req->extra_state, (state & TM_P2P_GREQ_DONE) != 0);
}

/* Checks the status and datatype arguments of the setters; MPI_SUCCESS and the type, or the
 * error class reported. */
static int status_check(tm_mpi_rank_t *r, const char *call, MPI_Status *status,
                        MPI_Datatype datatype, tm_mpi_type_t **type_p)
{
    if (status == NULL || status == MPI_STATUS_IGNORE)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "status is %s",
                                  status ? "MPI_STATUS_IGNORE" : "NULL");
    return tm_mpi_type_get(r, NULL, datatype, 1, call, type_p);
}

/* Sets the status to describe `count` basic elements of datatype (a whole number of datatypes
 * and then the first elements of one more), as a receive of them would. */
static int set_elements(const char *call, MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count count)
{
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *t;
    int err = status_check(r, call, status, datatype, &t);
    if (err != MPI_SUCCESS)
        return err;
    if (count < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_COUNT, "negative count %lld",
                                  (long long)count);
    size_t elements = 0; /* in one datatype */
    if (t->size > 0 && tm_mpi_type_count_elements(t, t->size, &elements) < 0)
        elements = 0;
    if (elements == 0) {
        if (count != 0)
            return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_TYPE,
                                      "%lld elements of a datatype that has none",
                                      (long long)count);
        status->tm_count = 0;
        return MPI_SUCCESS;
    }
    /* Whole datatypes, then the bytes of the first elements of the next: those that make
     * MPI_Get_elements count them back. */
    MPI_Count whole = count / (MPI_Count)elements, rest = count % (MPI_Count)elements;
    size_t bytes = 0;
    for (size_t b = 1; rest > 0 && b <= t->size; b++) {
        size_t n;
        if (tm_mpi_type_count_elements(t, b, &n) == 0 && (MPI_Count)n == rest) {
            bytes = b;
            break;
        }
    }
    if (rest > 0 && bytes == 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "no data ends after %lld elements of the datatype",
                                  (long long)count);
    status->tm_count = whole * (MPI_Count)t->size + (MPI_Count)bytes;
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return set_elements("MPI_Status_set_elements", status, datatype, count);
}
#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}
#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x

int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_c", status, datatype, count);
}
#pragma weak MPI_Status_set_elements_c = PMPI_Status_set_elements_c

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    static const char call[] = "MPI_Status_set_cancelled";
    TM_MPI_RANK(r, call);
    if (status == NULL || status == MPI_STATUS_IGNORE)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "status is %s",
                                  status ? "MPI_STATUS_IGNORE" : "NULL");
    status->tm_cancelled = flag != 0;
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled
