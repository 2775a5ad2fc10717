/*
 * The point-to-point calls: sends in each mode, receives, probes and counts. They check their
 * arguments and hand over to the engine (p2p/). Modes: standard sends go eager up to
 * [p2p] eager_limit bytes, by rendezvous above; synchronous sends always by rendezvous (they
 * complete once the receiver has the data, so once matched); ready sends as standard sends,
 * which is what the standard allows when the receive is posted.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"
#include "pt2pt.h"

/* ---- argument checks shared by the calls -----------------------------------------------------
 *
 * Each check is a test inlined into the calls (sends and receives are the hot path of most
 * programs) and a report kept out of line. */

#define HOT  inline __attribute__((always_inline))
#define COLD __attribute__((cold, noinline))

static COLD int buffer_error(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                             MPI_Count count)
{
    if (count < 0)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_COUNT, "negative count %lld",
                                  (long long)count);
    return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_BUFFER, "buffer is NULL for %lld elements",
                              (long long)count);
}

/* Checks buf/count/datatype (committed) and computes the bytes they hold. A NULL buffer is
 * fine with absolute addresses (MPI_BOTTOM) in a derived type, not with a predefined one. */
static HOT int check_buffer(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                            const void *buf, MPI_Count count, MPI_Datatype handle,
                            tm_mpi_type_t **type_p, size_t *bytes_p)
{
    int err;
    if (count < 0)
        return buffer_error(r, comm, call, count);
    if ((err = tm_mpi_type_get(r, comm, handle, 1, call, type_p)) != MPI_SUCCESS)
        return err;
    if (buf == NULL && count > 0 && (*type_p)->predefined && (*type_p)->size > 0)
        return buffer_error(r, comm, call, count);
    /* Counts and sizes of 31 bits at most cannot overflow: one test on the usual path. */
    if (__builtin_expect(((uint64_t)count | (*type_p)->size) >> 31, 0) &&
        (__builtin_mul_overflow((size_t)count, (*type_p)->size, bytes_p) ||
         *bytes_p > (size_t)PTRDIFF_MAX))
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_COUNT,
                                  "%lld elements of %zu bytes are more than memory can hold",
                                  (long long)count, (*type_p)->size);
    *bytes_p = (size_t)count * (*type_p)->size;
    return MPI_SUCCESS;
}

static COLD int peer_error(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call, int rank)
{
    if (tm_mpi_comm_is_inter(comm))
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_RANK,
                                  "invalid rank %d in the remote group of %s, of size %d", rank,
                                  comm->name, comm->remote->size);
    return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_RANK, "invalid rank %d in %s of size %d",
                              rank, comm->name, comm->size);
}

/* A destination (`any` false) or a source (`any` true: MPI_ANY_SOURCE allowed): a rank of the
 * communicator, or of an intercommunicator's remote group. */
static HOT int check_peer(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call, int rank,
                          bool any)
{
    unsigned peers = (unsigned)(comm->remote ? comm->remote->size : comm->size);
    if ((unsigned)rank < peers || rank == MPI_PROC_NULL || (any && rank == MPI_ANY_SOURCE))
        return MPI_SUCCESS;
    return peer_error(r, comm, call, rank);
}

static COLD int tag_error(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call, int tag)
{
    return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_TAG,
                              "invalid tag %d (tags go from 0 to MPI_TAG_UB = %d)", tag,
                              TM_MPI_TAG_UB);
}

static HOT int check_tag(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call, int tag, bool any)
{
    if ((tag >= 0 && tag <= TM_MPI_TAG_UB) || (any && tag == MPI_ANY_TAG))
        return MPI_SUCCESS;
    return tag_error(r, comm, call, tag);
}

int tm_mpi_bad_request(tm_mpi_rank_t *r, const char *call, MPI_Request h, const char *what)
{
    if (h == MPI_REQUEST_NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_REQUEST,
                                  "the request is MPI_REQUEST_NULL%s", what);
    return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_REQUEST, "invalid request 0x%x%s",
                              (unsigned)h, what);
}

int tm_mpi_check_tag(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call, int tag, bool any)
{
    return check_tag(r, comm, call, tag, any);
}

static COLD int request_p_error(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call)
{
    return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_ARG, "request is NULL");
}

static HOT int check_request_p(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                               const MPI_Request *request)
{
    return request ? MPI_SUCCESS : request_p_error(r, comm, call);
}

static COLD int out_of_memory(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call)
{
    return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_NO_MEM, "out of memory");
}

/* Everything a send call checks, in the order of its arguments. */
static HOT int check_send(tm_mpi_rank_t *r, const char *call, const void *buf, MPI_Count count,
                          MPI_Datatype type, int dest, int tag, MPI_Comm handle,
                          tm_mpi_comm_t **comm_p, tm_mpi_type_t **type_p, size_t *bytes_p)
{
    int err = tm_mpi_comm_get(r, handle, call, comm_p);
    if (err == MPI_SUCCESS)
        err = check_buffer(r, *comm_p, call, buf, count, type, type_p, bytes_p);
    if (err == MPI_SUCCESS)
        err = check_peer(r, *comm_p, call, dest, false);
    if (err == MPI_SUCCESS)
        err = check_tag(r, *comm_p, call, tag, false);
    return err;
}

int tm_mpi_check_send(tm_mpi_rank_t *r, const char *call, const void *buf, MPI_Count count,
                      MPI_Datatype type, int dest, int tag, MPI_Comm handle, tm_mpi_comm_t **comm_p,
                      tm_mpi_type_t **type_p, size_t *bytes_p)
{
    return check_send(r, call, buf, count, type, dest, tag, handle, comm_p, type_p, bytes_p);
}

static HOT int check_recv(tm_mpi_rank_t *r, const char *call, void *buf, MPI_Count count,
                          MPI_Datatype type, int source, int tag, MPI_Comm handle,
                          tm_mpi_comm_t **comm_p, tm_mpi_type_t **type_p)
{
    size_t bytes;
    int err = tm_mpi_comm_get(r, handle, call, comm_p);
    if (err == MPI_SUCCESS)
        err = check_buffer(r, *comm_p, call, buf, count, type, type_p, &bytes);
    if (err == MPI_SUCCESS)
        err = check_peer(r, *comm_p, call, source, true);
    if (err == MPI_SUCCESS)
        err = check_tag(r, *comm_p, call, tag, true);
    return err;
}

int tm_mpi_check_recv(tm_mpi_rank_t *r, const char *call, void *buf, MPI_Count count,
                      MPI_Datatype type, int source, int tag, MPI_Comm handle,
                      tm_mpi_comm_t **comm_p, tm_mpi_type_t **type_p)
{
    return check_recv(r, call, buf, count, type, source, tag, handle, comm_p, type_p);
}

/* ---- completing one request ---------------------------------------------------------------------
 */

static bool request_done(void *arg)
{
    return tm_p2p_request_is_complete(arg);
}

static COLD int truncate_error(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                               size_t capacity)
{
    return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_TRUNCATE,
                              "message truncated: the receive buffer holds %zu bytes", capacity);
}

/* Waits for req, copies its status out, releases it; returns the error its status holds,
 * reported through the communicator's handler. */
static int finish(tm_mpi_rank_t *r, const char *call, tm_p2p_request_t *req, MPI_Status *status)
{
    TM_RT_PROFILE_SCOPE(PROGRESS);
    if (!tm_p2p_request_is_complete(req))
        tm_p2p_wait_noted(r, request_done, req, tm_p2p_request_blocked_note, req);
    tm_p2p_request_status(req, status);
    int err = req->kind == TM_P2P_REQ_RECV ? req->status.MPI_ERROR : MPI_SUCCESS;
    tm_mpi_comm_t *comm = req->comm;
    size_t capacity = req->type ? req->count * req->type->size : 0;
    tm_p2p_request_release(r, req);
    if (err == MPI_ERR_TRUNCATE)
        return truncate_error(r, comm, call, capacity);
    return err;
}

/* ---- sends
 * ------------------------------------------------------------------------------------------ */

/* Starts a send whose arguments were checked: *req_p is NULL for MPI_PROC_NULL. */
static HOT int send_post(tm_mpi_rank_t *r, const char *call, const void *buf, MPI_Count count,
                         tm_mpi_type_t *type, size_t bytes, int dest, int tag, tm_mpi_comm_t *comm,
                         bool synchronous, tm_p2p_request_t **req_p)
{
    *req_p = NULL;
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (tm_p2p_isend(r, buf, (size_t)count, type, bytes, dest, tag, comm, synchronous, req_p) < 0)
        return out_of_memory(r, comm, call);
    (*req_p)->call = call;
    return MPI_SUCCESS;
}

/* Checks a send's arguments (and `request`, for the non-blocking calls: checked when not NULL
 * is wanted, i.e. when check_request) and starts it. *req_p is NULL for MPI_PROC_NULL. */
static HOT int send_start(const char *call, const void *buf, MPI_Count count, MPI_Datatype type,
                          int dest, int tag, MPI_Comm handle, bool synchronous,
                          const MPI_Request *request, bool check_request, tm_mpi_rank_t **r_p,
                          tm_mpi_comm_t **comm_p, tm_p2p_request_t **req_p)
{
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *t;
    size_t bytes = 0;
    int err = check_send(r, call, buf, count, type, dest, tag, handle, comm_p, &t, &bytes);
    if (err == MPI_SUCCESS && check_request)
        err = check_request_p(r, *comm_p, call, request);
    *r_p = r;
    *req_p = NULL;
    if (err != MPI_SUCCESS)
        return err;
    return send_post(r, call, buf, count, t, bytes, dest, tag, *comm_p, synchronous, req_p);
}

/* Whether a blocking send of `bytes` goes without a request (tm_p2p_send_eager): an eager
 * one, whose data is in the receiver's mailbox when the call returns. */
static HOT bool send_at_once(int dest, size_t bytes, bool synchronous)
{
    return dest != MPI_PROC_NULL && !synchronous && bytes <= tm_p2p_eager_limit();
}

/* A blocking send whose arguments were checked. */
static HOT int send_checked(tm_mpi_rank_t *r, const char *call, const void *buf, MPI_Count count,
                            tm_mpi_type_t *type, size_t bytes, int dest, int tag,
                            tm_mpi_comm_t *comm, bool synchronous)
{
    if (send_at_once(dest, bytes, synchronous)) {
        if (tm_p2p_send_eager(r, buf, (size_t)count, type, bytes, dest, tag, comm) < 0)
            return out_of_memory(r, comm, call);
        return MPI_SUCCESS;
    }
    tm_p2p_request_t *req;
    int err = send_post(r, call, buf, count, type, bytes, dest, tag, comm, synchronous, &req);
    if (err != MPI_SUCCESS || !req)
        return err;
    return finish(r, call, req, MPI_STATUS_IGNORE);
}

static HOT int send_blocking(const char *call, const void *buf, MPI_Count count, MPI_Datatype type,
                             int dest, int tag, MPI_Comm handle, bool synchronous)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *comm;
    tm_mpi_type_t *t;
    size_t bytes = 0;
    int err = check_send(r, call, buf, count, type, dest, tag, handle, &comm, &t, &bytes);
    if (err != MPI_SUCCESS)
        return err;
    return send_checked(r, call, buf, count, t, bytes, dest, tag, comm, synchronous);
}

static HOT int send_nonblocking(const char *call, const void *buf, MPI_Count count,
                                MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                                bool synchronous, MPI_Request *request)
{
    tm_mpi_rank_t *r;
    tm_mpi_comm_t *c;
    tm_p2p_request_t *req;
    int err = send_start(call, buf, count, type, dest, tag, comm, synchronous, request, true, &r,
                         &c, &req);
    if (err != MPI_SUCCESS)
        return err;
    if (!req && !(req = tm_p2p_request_new_done(r, TM_P2P_REQ_SEND, c))) /* MPI_PROC_NULL */
        return out_of_memory(r, c, call);
    *request = tm_p2p_request_handle(req);
    return MPI_SUCCESS;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(SEND);
    return send_blocking("MPI_Send", buf, count, datatype, dest, tag, comm, false);
}
#pragma weak MPI_Send = PMPI_Send

int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(SEND);
    return send_blocking("MPI_Send_c", buf, count, datatype, dest, tag, comm, false);
}
#pragma weak MPI_Send_c = PMPI_Send_c

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(SSEND);
    return send_blocking("MPI_Ssend", buf, count, datatype, dest, tag, comm, true);
}
#pragma weak MPI_Ssend = PMPI_Ssend

int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(SSEND);
    return send_blocking("MPI_Ssend_c", buf, count, datatype, dest, tag, comm, true);
}
#pragma weak MPI_Ssend_c = PMPI_Ssend_c

int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(RSEND);
    return send_blocking("MPI_Rsend", buf, count, datatype, dest, tag, comm, false);
}
#pragma weak MPI_Rsend = PMPI_Rsend

int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(RSEND);
    return send_blocking("MPI_Rsend_c", buf, count, datatype, dest, tag, comm, false);
}
#pragma weak MPI_Rsend_c = PMPI_Rsend_c

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(ISEND);
    return send_nonblocking("MPI_Isend", buf, count, datatype, dest, tag, comm, false, request);
}
#pragma weak MPI_Isend = PMPI_Isend

int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(ISEND);
    return send_nonblocking("MPI_Isend_c", buf, count, datatype, dest, tag, comm, false, request);
}
#pragma weak MPI_Isend_c = PMPI_Isend_c

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(ISSEND);
    return send_nonblocking("MPI_Issend", buf, count, datatype, dest, tag, comm, true, request);
}
#pragma weak MPI_Issend = PMPI_Issend

int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(ISSEND);
    return send_nonblocking("MPI_Issend_c", buf, count, datatype, dest, tag, comm, true, request);
}
#pragma weak MPI_Issend_c = PMPI_Issend_c

int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IRSEND);
    return send_nonblocking("MPI_Irsend", buf, count, datatype, dest, tag, comm, false, request);
}
#pragma weak MPI_Irsend = PMPI_Irsend

int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IRSEND);
    return send_nonblocking("MPI_Irsend_c", buf, count, datatype, dest, tag, comm, false, request);
}
#pragma weak MPI_Irsend_c = PMPI_Irsend_c

/* ---- receives ----------------------------------------------------------------------------------
 */

/* Posts a receive whose arguments were checked: *req_p is NULL for MPI_PROC_NULL. */
static HOT int recv_post(tm_mpi_rank_t *r, const char *call, void *buf, MPI_Count count,
                         tm_mpi_type_t *type, int source, int tag, tm_mpi_comm_t *comm,
                         tm_p2p_request_t **req_p)
{
    *req_p = NULL;
    if (source == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (tm_p2p_irecv(r, buf, (size_t)count, type, source, tag, comm, req_p) < 0)
        return out_of_memory(r, comm, call);
    (*req_p)->call = call;
    return MPI_SUCCESS;
}

/* Checks a receive's arguments (and `request`, as send_start does) and posts it. *req_p is NULL
 * for MPI_PROC_NULL. */
static HOT int recv_start(const char *call, void *buf, MPI_Count count, MPI_Datatype type,
                          int source, int tag, MPI_Comm handle, const MPI_Request *request,
                          bool check_request, tm_mpi_rank_t **r_p, tm_mpi_comm_t **comm_p,
                          tm_p2p_request_t **req_p)
{
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *t;
    int err = check_recv(r, call, buf, count, type, source, tag, handle, comm_p, &t);
    if (err == MPI_SUCCESS && check_request)
        err = check_request_p(r, *comm_p, call, request);
    *r_p = r;
    *req_p = NULL;
    if (err != MPI_SUCCESS)
        return err;
    return recv_post(r, call, buf, count, t, source, tag, *comm_p, req_p);
}

/* A blocking receive whose arguments were checked: at once when the message is there or comes
 * through its fastbox soon (tm_p2p_recv_now), else through a posted request. */
static HOT int recv_checked(tm_mpi_rank_t *r, const char *call, void *buf, MPI_Count count,
                            tm_mpi_type_t *type, int source, int tag, tm_mpi_comm_t *comm,
                            MPI_Status *status)
{
    if (source == MPI_PROC_NULL) {
        tm_p2p_status_proc_null(status);
        return MPI_SUCCESS;
    }
    int got = tm_p2p_recv_now(r, buf, (size_t)count, type, source, tag, comm, status);
    if (got == MPI_ERR_TRUNCATE)
        return truncate_error(r, comm, call, (size_t)count * type->size);
    if (got == MPI_SUCCESS)
        return MPI_SUCCESS;
    tm_p2p_request_t *req;
    int err = recv_post(r, call, buf, count, type, source, tag, comm, &req);
    if (err != MPI_SUCCESS)
        return err;
    return finish(r, call, req, status);
}

static HOT int recv(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype, int source,
                    int tag, MPI_Comm comm, MPI_Status *status)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *t;
    int err = check_recv(r, call, buf, count, datatype, source, tag, comm, &c, &t);
    if (err != MPI_SUCCESS)
        return err;
    return recv_checked(r, call, buf, count, t, source, tag, c, status);
}

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    TM_MPI_PROFILE_CALL(RECV);
    return recv("MPI_Recv", buf, count, datatype, source, tag, comm, status);
}
#pragma weak MPI_Recv = PMPI_Recv

int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Status *status)
{
    TM_MPI_PROFILE_CALL(RECV);
    return recv("MPI_Recv_c", buf, count, datatype, source, tag, comm, status);
}
#pragma weak MPI_Recv_c = PMPI_Recv_c

static HOT int irecv(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                     int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    tm_mpi_rank_t *r;
    tm_mpi_comm_t *c;
    tm_p2p_request_t *req;
    int err =
        recv_start(call, buf, count, datatype, source, tag, comm, request, true, &r, &c, &req);
    if (err != MPI_SUCCESS)
        return err;
    if (!req && !(req = tm_p2p_request_new_done(r, TM_P2P_REQ_RECV, c))) /* MPI_PROC_NULL */
        return out_of_memory(r, c, call);
    *request = tm_p2p_request_handle(req);
    return MPI_SUCCESS;
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IRECV);
    return irecv("MPI_Irecv", buf, count, datatype, source, tag, comm, request);
}
#pragma weak MPI_Irecv = PMPI_Irecv

int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IRECV);
    return irecv("MPI_Irecv_c", buf, count, datatype, source, tag, comm, request);
}
#pragma weak MPI_Irecv_c = PMPI_Irecv_c

static int sendrecv(const char *call, const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                    MPI_Comm comm, MPI_Status *status)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *rt, *st;
    size_t sendbytes = 0;
    int err = check_recv(r, call, recvbuf, recvcount, recvtype, source, recvtag, comm, &c, &rt);
    if (err == MPI_SUCCESS)
        err = check_send(r, call, sendbuf, sendcount, sendtype, dest, sendtag, comm, &c, &st,
                         &sendbytes);
    if (err != MPI_SUCCESS)
        return err;
    /* An eager send is done once sent: then the receive, as MPI_Recv. */
    if (send_at_once(dest, sendbytes, false)) {
        if ((err = send_checked(r, call, sendbuf, sendcount, st, sendbytes, dest, sendtag, c,
                                false)) != MPI_SUCCESS)
            return err;
        return recv_checked(r, call, recvbuf, recvcount, rt, source, recvtag, c, status);
    }
    /* Else the receive first: our own rendezvous send to ourselves must find it posted. */
    tm_p2p_request_t *rreq, *sreq;
    if ((err = recv_post(r, call, recvbuf, recvcount, rt, source, recvtag, c, &rreq)) !=
        MPI_SUCCESS)
        return err;
    if ((err = send_post(r, call, sendbuf, sendcount, st, sendbytes, dest, sendtag, c, false,
                         &sreq)) != MPI_SUCCESS) {
        /* The call fails as a whole: take back the receive posted above (waiting for it could
         * wait for ever); if a message already matched it, that message is consumed. */
        if (rreq) {
            tm_p2p_cancel_recv(r, rreq);
            tm_p2p_request_release(r, rreq);
        }
        return err;
    }
    if (sreq)
        finish(r, call, sreq, MPI_STATUS_IGNORE);
    if (!rreq) {
        tm_p2p_status_proc_null(status);
        return MPI_SUCCESS;
    }
    return finish(r, call, rreq, status);
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    TM_MPI_PROFILE_CALL(SENDRECV);
    return sendrecv("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                    recvtype, source, recvtag, comm, status);
}
#pragma weak MPI_Sendrecv = PMPI_Sendrecv

int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    TM_MPI_PROFILE_CALL(SENDRECV);
    return sendrecv("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                    recvcount, recvtype, source, recvtag, comm, status);
}
#pragma weak MPI_Sendrecv_c = PMPI_Sendrecv_c

static int sendrecv_replace(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                            int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Status *status)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *t;
    size_t bytes;
    int err = tm_mpi_check_send(r, call, buf, count, datatype, dest, sendtag, comm, &c, &t, &bytes);
    if (err != MPI_SUCCESS)
        return err;
    /* The outgoing data must survive the incoming: send a packed copy, as bytes (the same type
     * signature as count elements of datatype). */
    void *copy = malloc(bytes ? bytes : 1);
    if (!copy)
        return out_of_memory(r, c, call);
    tm_rt_profile_mark_t copying = tm_rt_profile_begin(TM_RT_PROFILE_COPY);
    tm_mpi_type_pack(buf, (size_t)count, t, 0, bytes, copy);
    tm_rt_profile_end(copying);
    err = sendrecv(call, copy, (MPI_Count)bytes, MPI_BYTE, dest, sendtag, buf, count, datatype,
                   source, recvtag, comm, status);
    free(copy);
    return err;
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    TM_MPI_PROFILE_CALL(SENDRECV_REPLACE);
    return sendrecv_replace("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag, source,
                            recvtag, comm, status);
}
#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace

int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    TM_MPI_PROFILE_CALL(SENDRECV_REPLACE);
    return sendrecv_replace("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag, source,
                            recvtag, comm, status);
}
#pragma weak MPI_Sendrecv_replace_c = PMPI_Sendrecv_replace_c

/* MPI_Isendrecv's request: a CHECKED one of its receive, posted first as in MPI_Sendrecv, and its
 * send. `copy` (or NULL) is freed with the request. */
static int isendrecv(tm_mpi_rank_t *r, const char *call, const void *sendbuf, MPI_Count sendcount,
                     tm_mpi_type_t *st, size_t sendbytes, int dest, int sendtag, void *recvbuf,
                     MPI_Count recvcount, tm_mpi_type_t *rt, int source, int recvtag,
                     tm_mpi_comm_t *c, void *copy, MPI_Request *request)
{
    tm_p2p_request_t *pair = tm_p2p_request_new(r, TM_P2P_REQ_CHECKED), *rreq, *sreq;
    if (!pair) {
        free(copy);
        return out_of_memory(r, c, call);
    }
    pair->settle = tm_p2p_pair_settle;
    pair->comm = c;
    pair->call = call;
    pair->coll = copy;
    pair->coll_free = free;
    tm_p2p_status_proc_null(&pair->status);
    int err = recv_post(r, call, recvbuf, recvcount, rt, source, recvtag, c, &rreq);
    if (err == MPI_SUCCESS) {
        err = send_post(r, call, sendbuf, sendcount, st, sendbytes, dest, sendtag, c, false, &sreq);
        if (err != MPI_SUCCESS && rreq) {
            tm_p2p_cancel_recv(r, rreq); /* as in MPI_Sendrecv */
            tm_p2p_request_release(r, rreq);
        }
    }
    if (err != MPI_SUCCESS) {
        tm_p2p_request_release(r, pair);
        return err;
    }
    pair->parts[0] = sreq;
    pair->parts[1] = rreq;
    *request = tm_p2p_request_handle(pair);
    return MPI_SUCCESS;
}

static int isendrecv_checked(const char *call, const void *sendbuf, MPI_Count sendcount,
                             MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                             MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *rt, *st;
    size_t sendbytes = 0;
    int err = check_recv(r, call, recvbuf, recvcount, recvtype, source, recvtag, comm, &c, &rt);
    if (err == MPI_SUCCESS)
        err = check_send(r, call, sendbuf, sendcount, sendtype, dest, sendtag, comm, &c, &st,
                         &sendbytes);
    if (err == MPI_SUCCESS)
        err = check_request_p(r, c, call, request);
    if (err != MPI_SUCCESS)
        return err;
    return isendrecv(r, call, sendbuf, sendcount, st, sendbytes, dest, sendtag, recvbuf, recvcount,
                     rt, source, recvtag, c, NULL, request);
}

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(ISENDRECV);
    return isendrecv_checked("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                             recvcount, recvtype, source, recvtag, comm, request);
}
#pragma weak MPI_Isendrecv = PMPI_Isendrecv

int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(ISENDRECV);
    return isendrecv_checked("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag,
                             recvbuf, recvcount, recvtype, source, recvtag, comm, request);
}
#pragma weak MPI_Isendrecv_c = PMPI_Isendrecv_c

static int isendrecv_replace(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                             int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *t, *bytes_type;
    size_t bytes;
    int err = tm_mpi_check_send(r, call, buf, count, datatype, dest, sendtag, comm, &c, &t, &bytes);
    if (err == MPI_SUCCESS)
        err = check_recv(r, call, buf, count, datatype, source, recvtag, comm, &c, &t);
    if (err == MPI_SUCCESS)
        err = check_request_p(r, c, call, request);
    if (err == MPI_SUCCESS)
        err = tm_mpi_type_get(r, c, MPI_BYTE, 0, call, &bytes_type);
    if (err != MPI_SUCCESS)
        return err;
    /* As MPI_Sendrecv_replace: the data goes out as a packed copy, which the request keeps. */
    void *copy = malloc(bytes ? bytes : 1);
    if (!copy)
        return out_of_memory(r, c, call);
    tm_rt_profile_mark_t copying = tm_rt_profile_begin(TM_RT_PROFILE_COPY);
    tm_mpi_type_pack(buf, (size_t)count, t, 0, bytes, copy);
    tm_rt_profile_end(copying);
    return isendrecv(r, call, copy, (MPI_Count)bytes, bytes_type, bytes, dest, sendtag, buf, count,
                     t, source, recvtag, c, copy, request);
}

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(ISENDRECV_REPLACE);
    return isendrecv_replace("MPI_Isendrecv_replace", buf, count, datatype, dest, sendtag, source,
                             recvtag, comm, request);
}
#pragma weak MPI_Isendrecv_replace = PMPI_Isendrecv_replace

int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(ISENDRECV_REPLACE);
    return isendrecv_replace("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag, source,
                             recvtag, comm, request);
}
#pragma weak MPI_Isendrecv_replace_c = PMPI_Isendrecv_replace_c

/* ---- probes and counts
 * --------------------------------------------------------------------------- */

static int probe(const char *call, int source, int tag, MPI_Comm comm, bool block, int *flag,
                 MPI_Status *status)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);
    if (err == MPI_SUCCESS)
        err = check_peer(r, c, call, source, true);
    if (err == MPI_SUCCESS)
        err = check_tag(r, c, call, tag, true);
    if (err == MPI_SUCCESS && !block && !flag)
        err = tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "flag is NULL");
    if (err != MPI_SUCCESS)
        return err;
    bool found = true;
    if (source == MPI_PROC_NULL)
        tm_p2p_status_proc_null(status);
    else
        found = tm_p2p_probe(r, source, tag, c, block, status);
    if (flag)
        *flag = found;
    return MPI_SUCCESS;
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    TM_MPI_PROFILE_CALL(PROBE);
    return probe("MPI_Probe", source, tag, comm, true, NULL, status);
}
#pragma weak MPI_Probe = PMPI_Probe

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    TM_MPI_PROFILE_CALL(IPROBE);
    return probe("MPI_Iprobe", source, tag, comm, false, flag, status);
}
#pragma weak MPI_Iprobe = PMPI_Iprobe

/* Whole elements of datatype in the data a status describes; MPI_UNDEFINED when the data ends
 * inside one, or when there are more than `most`. */
static int get_count(const char *call, const MPI_Status *status, MPI_Datatype datatype,
                     MPI_Count most, const void *count, MPI_Count *n_p)
{
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *t;
    int err;
    if (status == NULL || status == MPI_STATUS_IGNORE)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "status is %s",
                                  status ? "MPI_STATUS_IGNORE" : "NULL");
    if (count == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "count is NULL");
    if ((err = tm_mpi_type_get(r, NULL, datatype, 1, call, &t)) != MPI_SUCCESS)
        return err;
    MPI_Count bytes = status->tm_count, size = (MPI_Count)t->size;
    if (size == 0)
        *n_p = bytes == 0 ? 0 : MPI_UNDEFINED;
    else if (bytes % size != 0 || bytes / size > most)
        *n_p = MPI_UNDEFINED;
    else
        *n_p = bytes / size;
    return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count n;
    int err = get_count("MPI_Get_count", status, datatype, INT_MAX, count, &n);
    if (err == MPI_SUCCESS)
        *count = (int)n;
    return err;
}
#pragma weak MPI_Get_count = PMPI_Get_count

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return get_count("MPI_Get_count_c", status, datatype, INT64_MAX, count, count);
}
#pragma weak MPI_Get_count_c = PMPI_Get_count_c

/* Basic elements in the data a status describes; *elements_p = MPI_UNDEFINED when the data ends
 * inside a basic element. `count` is the program's output argument, checked. */
static int get_elements(const char *call, const MPI_Status *status, MPI_Datatype datatype,
                        const void *count, MPI_Count *elements_p)
{
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *t;
    size_t n;
    int err;
    if (count == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "count is NULL");
    if (status == NULL || status == MPI_STATUS_IGNORE)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "status is %s",
                                  status ? "MPI_STATUS_IGNORE" : "NULL");
    if ((err = tm_mpi_type_get(r, NULL, datatype, 1, call, &t)) != MPI_SUCCESS)
        return err;
    if (status->tm_count < 0 || tm_mpi_type_count_elements(t, (size_t)status->tm_count, &n) < 0)
        *elements_p = MPI_UNDEFINED;
    else
        *elements_p = (MPI_Count)n;
    return MPI_SUCCESS;
}

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return get_elements("MPI_Get_elements_x", status, datatype, count, count);
}
#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return get_elements("MPI_Get_elements_c", status, datatype, count, count);
}
#pragma weak MPI_Get_elements_c = PMPI_Get_elements_c

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count n;
    int err = get_elements("MPI_Get_elements", status, datatype, count, &n);
    if (err == MPI_SUCCESS)
        *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return err;
}
#pragma weak MPI_Get_elements = PMPI_Get_elements
