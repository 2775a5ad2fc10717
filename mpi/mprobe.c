/*
 * Matched probes and cancellation: MPI_Mprobe/MPI_Improbe take a message out of matching, so
 * that no other receive can take it, and MPI_Mrecv/MPI_Imrecv receive exactly that message.
 * MPI_Cancel cancels receives that are still posted, sends whose message no receiver has
 * matched yet (the claim protocol of p2p.h: the message is then never received), and hands
 * generalized requests to their cancel function. A send already matched completes normally, and
 * MPI_Test_cancelled says so.
 */
#include "config.h"

#include <stdint.h>

#include "p2p/p2p.h"
#include "pt2pt.h"

static int mprobe(const char *call, int source, int tag, MPI_Comm comm, bool block, int *flag,
                  MPI_Message *message, MPI_Status *status)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);
    if (err != MPI_SUCCESS)
        return err;
    if (message == NULL || (!block && flag == NULL))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "%s is NULL",
                                  message ? "flag" : "message");
    if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE && (source < 0 || source >= c->size))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_RANK, "invalid rank %d in %s of size %d",
                                  source, c->name, c->size);
    if (tag != MPI_ANY_TAG && (tag < 0 || tag > TM_MPI_TAG_UB))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_TAG, "invalid tag %d", tag);
    if (flag)
        *flag = 1;
    if (source == MPI_PROC_NULL) {
        *message = MPI_MESSAGE_NO_PROC;
        tm_p2p_status_proc_null(status);
        return MPI_SUCCESS;
    }
    tm_p2p_request_t *msg = tm_p2p_mprobe(r, source, tag, c, block, status);
    if (!msg) {
        if (block)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
        *flag = 0;
        return MPI_SUCCESS;
    }
    *message = tm_p2p_message_handle(msg);
    return MPI_SUCCESS;
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    TM_MPI_PROFILE_CALL(MPROBE);
    return mprobe("MPI_Mprobe", source, tag, comm, true, NULL, message, status);
}
#pragma weak MPI_Mprobe = PMPI_Mprobe

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    TM_MPI_PROFILE_CALL(IMPROBE);
    return mprobe("MPI_Improbe", source, tag, comm, false, flag, message, status);
}
#pragma weak MPI_Improbe = PMPI_Improbe

/* Receives *message into a complete receive request (NULL for MPI_MESSAGE_NO_PROC). */
static int mrecv(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Message *message, tm_mpi_rank_t **r_p, tm_p2p_request_t **req_p)
{
    TM_MPI_RANK(r, call);
    *r_p = r;
    *req_p = NULL;
    if (message == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "message is NULL");
    if (*message == MPI_MESSAGE_NO_PROC) {
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    tm_p2p_request_t *msg = tm_p2p_message_lookup(r, *message);
    if (!msg)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_REQUEST, "invalid message 0x%x",
                                  (unsigned)*message);
    tm_mpi_type_t *t;
    int err;
    if (count < 0)
        return tm_mpi_error_raise(r->rt, msg->comm, call, MPI_ERR_COUNT, "negative count %lld",
                                  (long long)count);
    if ((err = tm_mpi_type_get(r, msg->comm, datatype, 1, call, &t)) != MPI_SUCCESS)
        return err;
    if (buf == NULL && count > 0 && t->predefined && t->size > 0)
        return tm_mpi_error_raise(r->rt, msg->comm, call, MPI_ERR_BUFFER,
                                  "buffer is NULL for %lld elements", (long long)count);
    if ((size_t)count > SIZE_MAX / (t->size ? t->size : 1))
        return tm_mpi_error_raise(r->rt, msg->comm, call, MPI_ERR_COUNT,
                                  "%lld elements of %zu bytes are more than memory can hold",
                                  (long long)count, t->size);
    *req_p = tm_p2p_mrecv(r, msg, buf, (size_t)count, t);
    if (!*req_p)
        return tm_mpi_error_raise(r->rt, msg->comm, call, MPI_ERR_NO_MEM, "out of memory");
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}

static int mrecv_blocking(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Message *message, MPI_Status *status)
{
    tm_mpi_rank_t *r;
    tm_p2p_request_t *req;
    int err = mrecv(call, buf, count, datatype, message, &r, &req);
    if (err != MPI_SUCCESS)
        return err;
    if (!req) {
        tm_p2p_status_proc_null(status);
        return MPI_SUCCESS;
    }
    tm_p2p_request_status(req, status);
    err = req->status.MPI_ERROR;
    tm_mpi_comm_t *comm = req->comm;
    tm_p2p_request_release(r, req);
    if (err != MPI_SUCCESS)
        return tm_mpi_error_raise(r->rt, comm, call, err, "message truncated on receive");
    return MPI_SUCCESS;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status)
{
    TM_MPI_PROFILE_CALL(MRECV);
    return mrecv_blocking("MPI_Mrecv", buf, count, datatype, message, status);
}
#pragma weak MPI_Mrecv = PMPI_Mrecv

int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Status *status)
{
    TM_MPI_PROFILE_CALL(MRECV);
    return mrecv_blocking("MPI_Mrecv_c", buf, count, datatype, message, status);
}
#pragma weak MPI_Mrecv_c = PMPI_Mrecv_c

static int imrecv(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Message *message, MPI_Request *request)
{
    tm_mpi_rank_t *r;
    tm_p2p_request_t *req;
    if (request == NULL)
        return tm_mpi_error_raise(tm_mpi_rank_get(call)->rt, NULL, call, MPI_ERR_ARG,
                                  "request is NULL");
    int err = mrecv(call, buf, count, datatype, message, &r, &req);
    if (err != MPI_SUCCESS)
        return err;
    /* MPI_MESSAGE_NO_PROC: a receive from MPI_PROC_NULL, complete */
    if (!req && !(req = tm_p2p_request_new_done(r, TM_P2P_REQ_RECV, NULL)))
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    *request = tm_p2p_request_handle(req);
    return MPI_SUCCESS;
}

int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IMRECV);
    return imrecv("MPI_Imrecv", buf, count, datatype, message, request);
}
#pragma weak MPI_Imrecv = PMPI_Imrecv

int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                  MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IMRECV);
    return imrecv("MPI_Imrecv_c", buf, count, datatype, message, request);
}
#pragma weak MPI_Imrecv_c = PMPI_Imrecv_c

int PMPI_Cancel(MPI_Request *request)
{
    static const char call[] = "MPI_Cancel";
    TM_MPI_RANK(r, call);
    if (request == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "request is NULL");
    tm_p2p_request_t *req = tm_p2p_request_lookup(r, *request);
    if (req == NULL || req == TM_P2P_REQUEST_INVALID)
        return tm_mpi_bad_request(r, call, *request, "");
    /* MPI_Isendrecv's send and receive would not be cancelled as one. */
    if (req->kind == TM_P2P_REQ_CHECKED)
        return tm_mpi_error_raise(r->rt, req->comm, call, MPI_ERR_REQUEST,
                                  "the request of %s cannot be cancelled", req->call);
    if (req->kind == TM_P2P_REQ_GREQ) {
        int err = tm_mpi_greq_cancel(req);
        if (err != MPI_SUCCESS)
            return tm_mpi_error_raise(r->rt, NULL, call, err,
                                      "the cancel function of the generalized request returned %d",
                                      err);
        return MPI_SUCCESS;
    }
    if (req->kind == TM_P2P_REQ_PERSISTENT)
        req = req->active;                   /* inactive: nothing to cancel */
    if (req && req->kind == TM_P2P_REQ_COLL) /* of a persistent collective too */
        return tm_mpi_error_raise(r->rt, req->comm, call, MPI_ERR_REQUEST,
                                  "the request of a collective (%s) cannot be cancelled",
                                  req->call);
    if (req && req->kind == TM_P2P_REQ_RECV && !tm_p2p_request_is_complete(req))
        tm_p2p_cancel_recv(r, req);
    else if (req && req->kind == TM_P2P_REQ_SEND && !req->cell && req->ticket)
        tm_mpi_bsend_cancel(r, req); /* MPI_Ibsend's: its buffered send */
    else if (req && req->kind == TM_P2P_REQ_SEND)
        tm_p2p_cancel_send(req); /* complete or not: an eager send may still be unmatched */
    return MPI_SUCCESS;
}
#pragma weak MPI_Cancel = PMPI_Cancel

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    static const char call[] = "MPI_Test_cancelled";
    TM_MPI_RANK(r, call);
    if (status == NULL || status == MPI_STATUS_IGNORE || flag == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "%s is NULL",
                                  flag ? "status" : "flag");
    *flag = status->tm_cancelled != 0;
    return MPI_SUCCESS;
}
#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled
