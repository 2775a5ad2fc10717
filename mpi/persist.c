/*
 * Persistent requests: MPI_Send_init and its modes, MPI_Recv_init, MPI_Start, MPI_Startall (of
 * these and of persistent collectives, coll_persistent.c). A persistent request keeps the
 * arguments; each start makes the operation of that activation, which the completion calls
 * complete through it (wait.c) before making it inactive again.
 */
#include "config.h"

#include "coll.h"
#include "p2p/p2p.h"
#include "pt2pt.h"

static int init(const char *call, tm_p2p_persistent_op_t op, const void *buf, MPI_Count count,
                MPI_Datatype datatype, int peer, int tag, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *t;
    size_t bytes;
    int err = tm_mpi_comm_get(r, comm, call, &c);
    if (err == MPI_SUCCESS && request == NULL)
        err = tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "request is NULL");
    if (err == MPI_SUCCESS && op == TM_P2P_PERSIST_RECV)
        err = tm_mpi_check_recv(r, call, (void *)buf, count, datatype, peer, tag, comm, &c, &t);
    else if (err == MPI_SUCCESS)
        err = tm_mpi_check_send(r, call, buf, count, datatype, peer, tag, comm, &c, &t, &bytes);
    if (err != MPI_SUCCESS)
        return err;
    tm_p2p_request_t *req = tm_p2p_request_new(r, TM_P2P_REQ_PERSISTENT);
    if (!req)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
    req->op = op;
    req->buf = (void *)buf;
    req->count = (size_t)count;
    tm_mpi_type_retain(t);
    req->type = t;
    req->source = peer;
    req->tag = tag;
    req->comm = c;
    req->call = call;
    *request = tm_p2p_request_handle(req);
    return MPI_SUCCESS;
}

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return init("MPI_Send_init", TM_P2P_PERSIST_SEND, buf, count, datatype, dest, tag, comm,
                request);
}
#pragma weak MPI_Send_init = PMPI_Send_init

int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return init("MPI_Send_init_c", TM_P2P_PERSIST_SEND, buf, count, datatype, dest, tag, comm,
                request);
}
#pragma weak MPI_Send_init_c = PMPI_Send_init_c

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return init("MPI_Ssend_init", TM_P2P_PERSIST_SSEND, buf, count, datatype, dest, tag, comm,
                request);
}
#pragma weak MPI_Ssend_init = PMPI_Ssend_init

int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    return init("MPI_Ssend_init_c", TM_P2P_PERSIST_SSEND, buf, count, datatype, dest, tag, comm,
                request);
}
#pragma weak MPI_Ssend_init_c = PMPI_Ssend_init_c

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return init("MPI_Rsend_init", TM_P2P_PERSIST_RSEND, buf, count, datatype, dest, tag, comm,
                request);
}
#pragma weak MPI_Rsend_init = PMPI_Rsend_init

int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    return init("MPI_Rsend_init_c", TM_P2P_PERSIST_RSEND, buf, count, datatype, dest, tag, comm,
                request);
}
#pragma weak MPI_Rsend_init_c = PMPI_Rsend_init_c

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return init("MPI_Bsend_init", TM_P2P_PERSIST_BSEND, buf, count, datatype, dest, tag, comm,
                request);
}
#pragma weak MPI_Bsend_init = PMPI_Bsend_init

int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    return init("MPI_Bsend_init_c", TM_P2P_PERSIST_BSEND, buf, count, datatype, dest, tag, comm,
                request);
}
#pragma weak MPI_Bsend_init_c = PMPI_Bsend_init_c

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return init("MPI_Recv_init", TM_P2P_PERSIST_RECV, buf, count, datatype, source, tag, comm,
                request);
}
#pragma weak MPI_Recv_init = PMPI_Recv_init

int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return init("MPI_Recv_init_c", TM_P2P_PERSIST_RECV, buf, count, datatype, source, tag, comm,
                request);
}
#pragma weak MPI_Recv_init_c = PMPI_Recv_init_c

/* Starts persistent request h: makes the operation of this activation. */
static int start(tm_mpi_rank_t *r, const char *call, MPI_Request h)
{
    tm_p2p_request_t *p = tm_p2p_request_lookup(r, h);
    if (!p || p == TM_P2P_REQUEST_INVALID || p->kind != TM_P2P_REQ_PERSISTENT)
        return p && p != TM_P2P_REQUEST_INVALID
                   ? tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_REQUEST,
                                        "request 0x%x is not a persistent request", (unsigned)h)
                   : tm_mpi_bad_request(r, call, h, " (MPI_Start takes persistent requests)");
    if (p->active)
        return tm_mpi_error_raise(r->rt, p->comm, call, MPI_ERR_REQUEST,
                                  "the request is already active");
    if (p->op == TM_P2P_PERSIST_COLL)
        return tm_mpi_coll_start(r, p);
    size_t bytes = p->count * p->type->size;
    tm_p2p_request_t *op = NULL;
    int err = MPI_SUCCESS;
    if (p->source == MPI_PROC_NULL || p->op == TM_P2P_PERSIST_BSEND) {
        if (p->source != MPI_PROC_NULL)
            err = tm_mpi_bsend_start(r, call, p->buf, p->count, p->type, bytes, p->source, p->tag,
                                     p->comm);
        if (err != MPI_SUCCESS)
            return err;
        /* Done at once: to MPI_PROC_NULL, or copied into the attached buffer. */
        op = tm_p2p_request_new_done(
            r, p->op == TM_P2P_PERSIST_RECV ? TM_P2P_REQ_RECV : TM_P2P_REQ_SEND, p->comm);
        if (op && p->op == TM_P2P_PERSIST_BSEND && p->source != MPI_PROC_NULL)
            op->ticket = r->bsend_seq; /* cancellable as MPI_Ibsend's (mpi/bsend.c) */
    } else if (p->op == TM_P2P_PERSIST_RECV) {
        if (tm_p2p_irecv(r, p->buf, p->count, p->type, p->source, p->tag, p->comm, &op) < 0)
            op = NULL;
    } else {
        if (tm_p2p_isend(r, p->buf, p->count, p->type, bytes, p->source, p->tag, p->comm,
                         p->op == TM_P2P_PERSIST_SSEND, &op) < 0)
            op = NULL;
    }
    if (!op)
        return tm_mpi_error_raise(r->rt, p->comm, call, MPI_ERR_NO_MEM, "out of memory");
    op->comm = p->comm;
    op->call = p->call;
    op->persistent = p;
    p->active = op;
    return MPI_SUCCESS;
}

int PMPI_Start(MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(START);
    static const char call[] = "MPI_Start";
    TM_MPI_RANK(r, call);
    if (request == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "request is NULL");
    return start(r, call, *request);
}
#pragma weak MPI_Start = PMPI_Start

int PMPI_Startall(int count, MPI_Request requests[])
{
    TM_MPI_PROFILE_CALL(STARTALL);
    static const char call[] = "MPI_Startall";
    TM_MPI_RANK(r, call);
    if (count < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_COUNT, "negative count %d", count);
    if (count > 0 && requests == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "the request array is NULL");
    for (int i = 0; i < count; i++) {
        int err = start(r, call, requests[i]);
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Startall = PMPI_Startall
