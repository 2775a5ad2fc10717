/*
 * Completion calls: Wait, Test and their -all, -any and -some forms, Request_free and
 * Request_get_status. Waiting progresses the rank's messages, yields to the other ranks of its
 * core, and sleeps when nothing can happen until another rank pokes it (p2p/wait.c), or the thread
 * that completes a generalized request (greq.c). A generalized request completes here through
 * its query function (the status, and the error of the call) and its free function.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "coll/check.h"
#include "p2p/p2p.h"
#include "pt2pt.h"

/* The requests of an array, resolved: NULL for MPI_REQUEST_NULL. */
static int resolve(tm_mpi_rank_t *r, const char *call, int count, MPI_Request handles[],
                   tm_p2p_request_t **reqs)
{
    if (count < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_COUNT, "negative count %d", count);
    if (count > 0 && handles == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "the request array is NULL");
    for (int i = 0; i < count; i++) {
        reqs[i] = tm_p2p_request_lookup(r, handles[i]);
        if (reqs[i] == TM_P2P_REQUEST_INVALID)
            return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_REQUEST,
                                      "invalid request 0x%x at index %d", (unsigned)handles[i], i);
        /* A persistent request completes through its current operation; inactive, it is
         * treated as a null request (MPI 3.1, 3.9). */
        if (reqs[i] && reqs[i]->kind == TM_P2P_REQ_PERSISTENT)
            reqs[i] = reqs[i]->active;
    }
    return MPI_SUCCESS;
}

/* resolve(), and *active_p = how many of the requests are not null. */
static int resolve_active(tm_mpi_rank_t *r, const char *call, int count, MPI_Request handles[],
                          tm_p2p_request_t **reqs, int *active_p)
{
    int err = resolve(r, call, count, handles, reqs);
    *active_p = 0;
    for (int i = 0; err == MPI_SUCCESS && i < count; i++)
        *active_p += reqs[i] != NULL;
    return err;
}

/* The status of an inactive (null) request: empty. */
static void status_empty(MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = MPI_SUCCESS;
    status->tm_count = 0;
    status->tm_cancelled = 0;
}

/* Copies out the status of a completed request, frees it, sets its handle to null; returns the
 * error of the operation (a truncated receive). */
static int retire(tm_mpi_rank_t *r, tm_p2p_request_t *req, MPI_Request *handle, MPI_Status *status)
{
    if (req->kind == TM_P2P_REQ_GREQ) {
        *handle = MPI_REQUEST_NULL;
        return tm_mpi_greq_retire(r, req, status); /* its query and free functions */
    }
    tm_p2p_request_status(req, status);
    int err = req->kind == TM_P2P_REQ_RECV || req->kind == TM_P2P_REQ_COLL ||
                      req->kind == TM_P2P_REQ_CHECKED
                  ? req->status.MPI_ERROR
                  : MPI_SUCCESS;
    if (req->persistent)
        req->persistent->active = NULL; /* inactive again; the user's handle stays */
    else
        *handle = MPI_REQUEST_NULL;
    tm_p2p_request_release(r, req);
    return err;
}

/* Who reports a completed request's error: its communicator's handler (that of MPI_COMM_WORLD
 * for a generalized request), or the request's own `raise` (a file access). Taken before the
 * request is retired. */
typedef struct reporter {
    tm_mpi_comm_t *comm;
    int (*raise)(void *ctx, const char *call, int errclass);
    void *ctx;
} reporter_t;

static reporter_t reporter_of(const tm_p2p_request_t *req)
{
    return (reporter_t){req->comm, req->raise, req->raise_ctx};
}

/* Reports the error of a completed operation. */
static int report(tm_mpi_rank_t *r, const char *call, reporter_t who, int err)
{
    tm_mpi_comm_t *comm = who.comm;

    if (err == MPI_SUCCESS)
        return err;
    if (who.raise != NULL)
        return who.raise(who.ctx, call, err);
    if (err == MPI_ERR_TRUNCATE)
        return tm_mpi_error_raise(r->rt, comm, call, err, "message truncated on receive");
    if (comm && tm_coll_check_is_broken(comm)) /* a non-blocking collective's members disagreed */
        return tm_coll_check_broken_raise(r, comm, call);
    return tm_mpi_error_raise(r->rt, comm, call, err,
                              "the query or free function of a generalized request returned %d",
                              err);
}

typedef struct waiting {
    tm_p2p_request_t **reqs;
    int count;
    int needed; /* how many must be complete (1 for any/some, all non-null for all) */
} waiting_t;

static bool enough_complete(void *arg)
{
    waiting_t *w = arg;
    int n = 0;
    for (int i = 0; i < w->count; i++)
        if (w->reqs[i] && tm_p2p_request_is_complete(w->reqs[i]) && ++n >= w->needed)
            return true;
    return false;
}

/* What a blocking completion call waits for, for hang diagnosis: "MPI_Waitall(3 requests, 2
 * pending, the first: MPI_Irecv(source=1, tag=0, comm=MPI_COMM_WORLD))". Noted only when the
 * rank goes to sleep (tm_p2p_wait_noted). */
typedef struct blocked_note {
    const char *call;
    tm_p2p_request_t **reqs;
    int count;
} blocked_note_t;

static void note_make(void *arg, tm_p2p_blocked_note_t *out)
{
    const blocked_note_t *n = arg;
    out->call = n->call;
    out->count = n->count;
    out->pending = 0;
    for (int i = 0; i < n->count; i++) {
        if (!n->reqs[i] || tm_p2p_request_is_complete(n->reqs[i]))
            continue;
        if (out->pending++ == 0)
            tm_p2p_request_note(n->reqs[i], &out->first);
    }
}

/* Waits until w is done, noted as call on reqs[0, count). */
static void wait_noted(tm_mpi_rank_t *r, const char *call, tm_p2p_request_t **reqs, int count,
                       waiting_t *w)
{
    blocked_note_t note = {call, reqs, count};
    tm_p2p_wait_noted(r, enough_complete, w, note_make, &note);
}

/* Resolves the array into a temporary one: up to 64 requests (a window of messages) on the
 * stack. */
#define WITH_REQUESTS(count, reqs)                                                                 \
    tm_p2p_request_t *reqs##_small[64];                                                            \
    tm_p2p_request_t **reqs = (count) <= 64 ? reqs##_small : malloc((size_t)(count) * sizeof *reqs)

#define END_REQUESTS(reqs)                                                                         \
    do {                                                                                           \
        if (reqs != reqs##_small)                                                                  \
            free(reqs);                                                                            \
    } while (0)

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    TM_MPI_PROFILE_CALL(WAIT);
    static const char call[] = "MPI_Wait";
    TM_MPI_RANK(r, call);
    if (request == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "request is NULL");
    tm_p2p_request_t *req;
    int err = resolve(r, call, 1, request, &req);
    if (err != MPI_SUCCESS)
        return err;
    if (!req) {
        status_empty(status);
        return MPI_SUCCESS;
    }
    waiting_t w = {&req, 1, 1};
    if (!tm_p2p_request_is_complete(req))
        wait_noted(r, call, &req, 1, &w);
    reporter_t who = reporter_of(req);
    return report(r, call, who, retire(r, req, request, status));
}
#pragma weak MPI_Wait = PMPI_Wait

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    TM_MPI_PROFILE_CALL(TEST);
    static const char call[] = "MPI_Test";
    TM_MPI_RANK(r, call);
    if (request == NULL || flag == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "%s is NULL",
                                  request ? "flag" : "request");
    tm_p2p_request_t *req;
    int err = resolve(r, call, 1, request, &req);
    if (err != MPI_SUCCESS)
        return err;
    if (!req) {
        *flag = 1;
        status_empty(status);
        return MPI_SUCCESS;
    }
    waiting_t w = {&req, 1, 1};
    if (!tm_p2p_request_is_complete(req))
        tm_p2p_poll(r, enough_complete, &w);
    *flag = tm_p2p_request_is_complete(req);
    if (!*flag)
        return MPI_SUCCESS;
    reporter_t who = reporter_of(req);
    return report(r, call, who, retire(r, req, request, status));
}
#pragma weak MPI_Test = PMPI_Test

/* Waitall (block) and Testall: MPI_ERR_IN_STATUS when an operation failed, its status says which.
 */
static int all(const char *call, int count, MPI_Request requests[], int *flag, MPI_Status *statuses,
               bool block)
{
    TM_MPI_RANK(r, call);
    if (!block && flag == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "flag is NULL");
    WITH_REQUESTS(count, reqs);
    if (!reqs)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    int active;
    int err = resolve_active(r, call, count, requests, reqs, &active);
    if (err != MPI_SUCCESS) {
        END_REQUESTS(reqs);
        return err;
    }
    waiting_t w = {reqs, count, active};
    bool done = active == 0 || enough_complete(&w);
    if (!done && block) {
        wait_noted(r, call, reqs, count, &w);
        done = true;
    } else if (!done) {
        tm_p2p_poll(r, enough_complete, &w);
        done = enough_complete(&w);
    }
    if (flag)
        *flag = done;
    int failed = 0;
    tm_mpi_comm_t *comm = NULL;
    for (int i = 0; done && i < count; i++) {
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        if (!reqs[i]) {
            status_empty(st);
            continue;
        }
        comm = reqs[i]->comm;
        if (retire(r, reqs[i], &requests[i], st) != MPI_SUCCESS)
            failed++;
    }
    END_REQUESTS(reqs);
    if (failed)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_IN_STATUS,
                                  "%d of the operations failed: see their statuses", failed);
    return MPI_SUCCESS;
}

int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status *statuses)
{
    TM_MPI_PROFILE_CALL(WAITALL);
    return all("MPI_Waitall", count, requests, NULL, statuses, true);
}
#pragma weak MPI_Waitall = PMPI_Waitall

int PMPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status *statuses)
{
    TM_MPI_PROFILE_CALL(TESTALL);
    return all("MPI_Testall", count, requests, flag, statuses, false);
}
#pragma weak MPI_Testall = PMPI_Testall

/* Waitany (block) and Testany. */
static int any(const char *call, int count, MPI_Request requests[], int *index, int *flag,
               MPI_Status *status, bool block)
{
    TM_MPI_RANK(r, call);
    if (index == NULL || (!block && flag == NULL))
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "%s is NULL",
                                  index ? "flag" : "index");
    WITH_REQUESTS(count, reqs);
    if (!reqs)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    int active;
    int err = resolve_active(r, call, count, requests, reqs, &active);
    if (err != MPI_SUCCESS) {
        END_REQUESTS(reqs);
        return err;
    }
    waiting_t w = {reqs, count, 1};
    *index = MPI_UNDEFINED;
    if (active == 0) {
        if (flag)
            *flag = 1;
        status_empty(status);
        END_REQUESTS(reqs);
        return MPI_SUCCESS;
    }
    if (!enough_complete(&w)) {
        if (block) {
            wait_noted(r, call, reqs, count, &w);
        } else {
            tm_p2p_poll(r, enough_complete, &w);
        }
    }
    if (flag)
        *flag = 0;
    for (int i = 0; i < count; i++) {
        if (!reqs[i] || !tm_p2p_request_is_complete(reqs[i]))
            continue;
        reporter_t who = reporter_of(reqs[i]);
        *index = i;
        if (flag)
            *flag = 1;
        err = report(r, call, who, retire(r, reqs[i], &requests[i], status));
        break;
    }
    END_REQUESTS(reqs);
    return err;
}

int PMPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    TM_MPI_PROFILE_CALL(WAITANY);
    return any("MPI_Waitany", count, requests, index, NULL, status, true);
}
#pragma weak MPI_Waitany = PMPI_Waitany

int PMPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    TM_MPI_PROFILE_CALL(TESTANY);
    return any("MPI_Testany", count, requests, index, flag, status, false);
}
#pragma weak MPI_Testany = PMPI_Testany

/* Waitsome (block) and Testsome. */
static int some(const char *call, int incount, MPI_Request requests[], int *outcount, int indices[],
                MPI_Status *statuses, bool block)
{
    TM_MPI_RANK(r, call);
    if (outcount == NULL || (incount > 0 && indices == NULL))
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "%s is NULL",
                                  outcount ? "indices" : "outcount");
    WITH_REQUESTS(incount, reqs);
    if (!reqs)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    int active;
    int err = resolve_active(r, call, incount, requests, reqs, &active);
    if (err != MPI_SUCCESS) {
        END_REQUESTS(reqs);
        return err;
    }
    if (active == 0) {
        *outcount = MPI_UNDEFINED;
        END_REQUESTS(reqs);
        return MPI_SUCCESS;
    }
    waiting_t w = {reqs, incount, 1};
    if (!enough_complete(&w)) {
        if (block) {
            wait_noted(r, call, reqs, incount, &w);
        } else {
            tm_p2p_poll(r, enough_complete, &w);
        }
    }
    int n = 0, failed = 0;
    tm_mpi_comm_t *comm = NULL;
    for (int i = 0; i < incount; i++) {
        if (!reqs[i] || !tm_p2p_request_is_complete(reqs[i]))
            continue;
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[n];
        comm = reqs[i]->comm;
        indices[n++] = i;
        if (retire(r, reqs[i], &requests[i], st) != MPI_SUCCESS)
            failed++;
    }
    *outcount = n;
    END_REQUESTS(reqs);
    if (failed)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_IN_STATUS,
                                  "%d of the operations failed: see their statuses", failed);
    return MPI_SUCCESS;
}

int PMPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                  MPI_Status *statuses)
{
    TM_MPI_PROFILE_CALL(WAITSOME);
    return some("MPI_Waitsome", incount, requests, outcount, indices, statuses, true);
}
#pragma weak MPI_Waitsome = PMPI_Waitsome

int PMPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                  MPI_Status *statuses)
{
    TM_MPI_PROFILE_CALL(TESTSOME);
    return some("MPI_Testsome", incount, requests, outcount, indices, statuses, false);
}
#pragma weak MPI_Testsome = PMPI_Testsome

int PMPI_Request_free(MPI_Request *request)
{
    static const char call[] = "MPI_Request_free";
    TM_MPI_RANK(r, call);
    if (request == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "request is NULL");
    tm_p2p_request_t *req = tm_p2p_request_lookup(r, *request);
    if (!req || req == TM_P2P_REQUEST_INVALID)
        return tm_mpi_bad_request(r, call, *request, "");
    if (req->kind == TM_P2P_REQ_COLL)
        return tm_mpi_error_raise(r->rt, req->comm, call, MPI_ERR_REQUEST,
                                  "the request of a non-blocking collective (%s) cannot be freed: "
                                  "complete it with MPI_Wait or MPI_Test",
                                  req->call);
    if (req->kind == TM_P2P_REQ_PERSISTENT && req->op == TM_P2P_PERSIST_COLL && req->active)
        return tm_mpi_error_raise(r->rt, req->comm, call, MPI_ERR_REQUEST,
                                  "the persistent collective (%s) is active: complete it with "
                                  "MPI_Wait or MPI_Test before freeing it",
                                  req->call);
    *request = MPI_REQUEST_NULL;
    if (req->kind == TM_P2P_REQ_GREQ) {
        /* Its free function runs now if complete, else when MPI_Grequest_complete is called. */
        int err = tm_mpi_greq_free(r, req);
        return err == MPI_SUCCESS ? err
                                  : tm_mpi_error_raise(r->rt, NULL, call, err,
                                                       "the free function of the generalized "
                                                       "request returned %d",
                                                       err);
    }
    if (req->kind == TM_P2P_REQ_PERSISTENT) {
        /* The persistent request goes now; an operation under way goes when it completes. */
        tm_p2p_request_t *op = req->active;
        tm_p2p_request_release(r, req);
        if (!op)
            return MPI_SUCCESS;
        op->persistent = NULL;
        req = op;
    }
    if (tm_p2p_request_is_complete(req)) {
        tm_p2p_request_release(r, req);
        return MPI_SUCCESS;
    }
    /* Still pending: it goes when it completes (a posted receive when it is delivered, a send
     * or a CHECKED one when the progress sweep finds it complete). */
    req->freed = true;
    if (req->kind == TM_P2P_REQ_SEND || req->kind == TM_P2P_REQ_CHECKED)
        tm_p2p_request_zombie_add(r, req);
    return MPI_SUCCESS;
}
#pragma weak MPI_Request_free = PMPI_Request_free

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    TM_MPI_PROFILE_CALL(REQUEST_GET_STATUS);
    static const char call[] = "MPI_Request_get_status";
    TM_MPI_RANK(r, call);
    if (flag == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "flag is NULL");
    tm_p2p_request_t *req;
    int err = resolve(r, call, 1, &request, &req);
    if (err != MPI_SUCCESS)
        return err;
    if (!req) {
        *flag = 1;
        status_empty(status);
        return MPI_SUCCESS;
    }
    waiting_t w = {&req, 1, 1};
    if (!tm_p2p_request_is_complete(req))
        tm_p2p_poll(r, enough_complete, &w);
    *flag = tm_p2p_request_is_complete(req);
    if (*flag && req->kind == TM_P2P_REQ_GREQ) {
        err = tm_mpi_greq_query(req, status);
        if (err != MPI_SUCCESS)
            return tm_mpi_error_raise(r->rt, NULL, call, err,
                                      "the query function of the generalized request returned %d",
                                      err);
    } else if (*flag) {
        tm_p2p_request_status(req, status);
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Request_get_status = PMPI_Request_get_status
