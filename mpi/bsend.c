/*
 * Buffered sends: MPI_Buffer_attach/detach, MPI_Bsend, MPI_Ibsend, and MPI-4.1's MPI_Buffer_flush
 * and MPI_Buffer_iflush, which wait for the buffered sends to complete. A buffered message is
 * packed into the attached buffer, in the first gap large enough (first fit over regions kept by
 * offset), and sent from there as bytes: the caller's buffer is free at once, and the region
 * when the send completes. Each message takes its size plus MPI_BSEND_OVERHEAD of the buffer, the
 * space the standard tells users to provide. No room is MPI_ERR_BUFFER.
 */
#include "config.h"

#include <stdlib.h>

#include "p2p/p2p.h"
#include "pt2pt.h"

/* Frees the regions whose sends have completed. */
static void regions_reclaim(tm_mpi_rank_t *r)
{
    tm_mpi_bsend_region_t **link = &r->bsend_regions;
    while (*link) {
        tm_mpi_bsend_region_t *g = *link;
        if (tm_p2p_request_is_complete(g->send)) {
            *link = g->next;
            tm_p2p_request_release(r, g->send);
            free(g);
        } else {
            link = &g->next;
        }
    }
}

/* First fit: the offset of a gap of len bytes, linked in order; NULL when there is none. */
static tm_mpi_bsend_region_t *region_take(tm_mpi_rank_t *r, size_t len)
{
    size_t at = 0;
    tm_mpi_bsend_region_t **link = &r->bsend_regions;
    for (;; link = &(*link)->next) {
        size_t end = *link ? (*link)->off : r->bsend_size;
        if (end >= at && end - at >= len)
            break;
        if (!*link)
            return NULL;
        at = (*link)->off + (*link)->len;
    }
    tm_mpi_bsend_region_t *g = malloc(sizeof *g);
    if (!g)
        return NULL;
    g->off = at;
    g->len = len;
    g->send = NULL;
    g->next = *link;
    *link = g;
    return g;
}

int tm_mpi_bsend_start(tm_mpi_rank_t *r, const char *call, const void *buf, size_t count,
                       tm_mpi_type_t *type, size_t bytes, int dest, int tag, tm_mpi_comm_t *comm)
{
    size_t len = bytes + MPI_BSEND_OVERHEAD;
    regions_reclaim(r);
    tm_mpi_bsend_region_t *g = region_take(r, len);
    if (!g) {
        /* Sends from the buffer may be done but not yet seen: look once more. */
        tm_p2p_progress(r);
        regions_reclaim(r);
        g = region_take(r, len);
    }
    if (!g)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_BUFFER,
                                  "no room for a message of %zu bytes (+ MPI_BSEND_OVERHEAD) in "
                                  "the attached buffer of %zu bytes",
                                  bytes, r->bsend_size);
    char *copy = r->bsend_buf + g->off;
    tm_rt_profile_mark_t copying = tm_rt_profile_begin(TM_RT_PROFILE_COPY);
    tm_mpi_type_pack(buf, count, type, 0, bytes, copy);
    tm_rt_profile_end(copying);
    tm_mpi_type_t *byte;
    tm_mpi_type_lookup(MPI_BYTE, &byte);
    if (tm_p2p_isend(r, copy, bytes, byte, bytes, dest, tag, comm, false, &g->send) < 0) {
        g->send = NULL;
        regions_reclaim(r);
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_NO_MEM, "out of memory");
    }
    g->send->call = call;
    g->seq = r->bsend_seq++;
    return MPI_SUCCESS;
}

void tm_mpi_bsend_cancel(tm_mpi_rank_t *r, tm_p2p_request_t *req)
{
    if (req->ticket == 0)
        return; /* to MPI_PROC_NULL, or cancelled already */
    for (tm_mpi_bsend_region_t *g = r->bsend_regions; g; g = g->next)
        if (g->seq == req->ticket - 1 && g->send && tm_p2p_cancel_send(g->send)) {
            req->status.tm_cancelled = 1;
            break;
        }
    req->ticket = 0;
}

static bool regions_done(void *arg)
{
    tm_mpi_rank_t *r = arg;
    for (tm_mpi_bsend_region_t *g = r->bsend_regions; g; g = g->next)
        if (!tm_p2p_request_is_complete(g->send))
            return false;
    return true;
}

/* Waits until the buffered sends have completed, noted as `call`, and frees their regions. */
static void regions_flush(tm_mpi_rank_t *r, const char *call)
{
    if (r->bsend_regions && !regions_done(r)) {
        tm_p2p_note_blocked(r, "%s(waiting for buffered sends)", call);
        tm_p2p_wait_until(r, regions_done, r);
    }
    regions_reclaim(r);
}

void tm_mpi_bsend_drain(tm_mpi_rank_t *r)
{
    regions_flush(r, "MPI_Buffer_detach");
    r->bsend_buf = NULL;
    r->bsend_size = 0;
}

int PMPI_Buffer_flush(void)
{
    static const char call[] = "MPI_Buffer_flush";
    TM_MPI_RANK(r, call);
    regions_flush(r, call);
    return MPI_SUCCESS;
}
#pragma weak MPI_Buffer_flush = PMPI_Buffer_flush

/* The `settle` of MPI_Buffer_iflush's request: done once the buffered sends numbered below its
 * ticket (those started before the call) have completed. */
static bool iflush_settle(tm_p2p_request_t *req)
{
    for (tm_mpi_bsend_region_t *g = req->owner->bsend_regions; g; g = g->next)
        if (g->seq < req->ticket && !tm_p2p_request_is_complete(g->send))
            return false;
    /* Only its owner reads it: relaxed. */
    atomic_store_explicit(&req->complete, 1, memory_order_relaxed);
    return true;
}

int PMPI_Buffer_iflush(MPI_Request *request)
{
    static const char call[] = "MPI_Buffer_iflush";
    TM_MPI_RANK(r, call);
    if (request == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "request is NULL");
    tm_p2p_request_t *req = tm_p2p_request_new(r, TM_P2P_REQ_CHECKED);
    if (!req)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    req->settle = iflush_settle;
    req->ticket = r->bsend_seq;
    req->call = call;
    req->status.MPI_SOURCE = MPI_ANY_SOURCE;
    req->status.MPI_TAG = MPI_ANY_TAG;
    req->status.MPI_ERROR = MPI_SUCCESS;
    *request = tm_p2p_request_handle(req);
    return MPI_SUCCESS;
}
#pragma weak MPI_Buffer_iflush = PMPI_Buffer_iflush

static int buffer_attach(const char *call, void *buffer, MPI_Count size)
{
    TM_MPI_RANK(r, call);
    if (size < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "negative size %lld",
                                  (long long)size);
    if (buffer == NULL && size > 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_BUFFER, "buffer is NULL");
    if (r->bsend_buf)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_BUFFER,
                                  "a buffer is already attached (detach it first)");
    r->bsend_buf = buffer;
    r->bsend_size = (size_t)size;
    return MPI_SUCCESS;
}

int PMPI_Buffer_attach(void *buffer, int size)
{
    return buffer_attach("MPI_Buffer_attach", buffer, size);
}
#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    return buffer_attach("MPI_Buffer_attach_c", buffer, size);
}
#pragma weak MPI_Buffer_attach_c = PMPI_Buffer_attach_c

/* Detaches the buffer; its size in *size_p, which is `size`, the caller's argument. */
static int buffer_detach(const char *call, void *buffer_addr, const void *size, MPI_Count *size_p)
{
    TM_MPI_RANK(r, call);
    if (buffer_addr == NULL || size == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "%s is NULL",
                                  size ? "buffer_addr" : "size");
    /* The standard passes the address of a pointer as void *. */
    *(void **)buffer_addr = r->bsend_buf;
    *size_p = (MPI_Count)r->bsend_size;
    tm_mpi_bsend_drain(r);
    return MPI_SUCCESS;
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPI_Count n = 0;
    int err = buffer_detach("MPI_Buffer_detach", buffer_addr, size, &n);
    if (err == MPI_SUCCESS)
        *size = (int)n; /* attached as an int */
    return err;
}
#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    return buffer_detach("MPI_Buffer_detach_c", buffer_addr, size, size);
}
#pragma weak MPI_Buffer_detach_c = PMPI_Buffer_detach_c

static int bsend(const char *call, const void *buf, MPI_Count count, MPI_Datatype datatype,
                 int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *t;
    size_t bytes;
    int err = tm_mpi_check_send(r, call, buf, count, datatype, dest, tag, comm, &c, &t, &bytes);
    if (err == MPI_SUCCESS && dest != MPI_PROC_NULL)
        err = tm_mpi_bsend_start(r, call, buf, (size_t)count, t, bytes, dest, tag, c);
    if (err != MPI_SUCCESS || !request)
        return err;
    /* The message is in the attached buffer: the caller's operation is complete, and still
     * cancellable until a receiver matches it (MPI_Cancel). */
    tm_p2p_request_t *req = tm_p2p_request_new_done(r, TM_P2P_REQ_SEND, c);
    if (!req)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
    req->call = call;
    if (dest != MPI_PROC_NULL)
        req->ticket = r->bsend_seq; /* its buffered send's number (r->bsend_seq - 1), plus one */
    *request = tm_p2p_request_handle(req);
    return MPI_SUCCESS;
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(BSEND);
    return bsend("MPI_Bsend", buf, count, datatype, dest, tag, comm, NULL);
}
#pragma weak MPI_Bsend = PMPI_Bsend

int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(BSEND);
    return bsend("MPI_Bsend_c", buf, count, datatype, dest, tag, comm, NULL);
}
#pragma weak MPI_Bsend_c = PMPI_Bsend_c

static int ibsend(const char *call, const void *buf, MPI_Count count, MPI_Datatype datatype,
                  int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    if (request == NULL)
        return tm_mpi_error_raise(tm_mpi_rank_get(call)->rt, NULL, call, MPI_ERR_ARG,
                                  "request is NULL");
    return bsend(call, buf, count, datatype, dest, tag, comm, request);
}

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IBSEND);
    return ibsend("MPI_Ibsend", buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Ibsend = PMPI_Ibsend

int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IBSEND);
    return ibsend("MPI_Ibsend_c", buf, count, datatype, dest, tag, comm, request);
}
#pragma weak MPI_Ibsend_c = PMPI_Ibsend_c
