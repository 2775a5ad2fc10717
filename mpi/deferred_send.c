/*
 * Send aggregation (MPIX_Deferred_send_*, mpi.h; the COMPAS 2020 paper, section 3.2): a task
 * runtime declares a send for each task that needs a piece of data before the data exists; the
 * handle gathers their destinations, and once the data is ready sends it in one go: a plain send
 * to a single destination, a dynamic broadcast to several. Destinations that come after that get
 * plain sends, which the handle keeps until MPIX_Deferred_send_free has seen them complete.
 *
 * Handles are per rank (payload: index in the rank's table + 1; 0 is MPIX_DEFERRED_SEND_NULL).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bcast_dynamic.h"
#include "coll.h"
#include "pt2pt.h"

typedef struct tm_mpi_deferred {
    const void *buf;
    size_t count;
    tm_mpi_type_t *type; /* retained */
    int tag;
    MPI_Comm comm;        /* resolved at each call: a communicator freed meanwhile is reported */
    int size;             /* its size, which `added` covers */
    unsigned char *added; /* one bit per rank of comm: a destination already */
    int *dests;           /* before ready: the destinations, in the order added */
    int ndests, dests_cap;
    bool ready;
    tm_p2p_request_t **late; /* after ready: the plain sends started since */
    int nlate, late_cap;
} tm_mpi_deferred_t;

static int deferred_get(tm_mpi_rank_t *r, const char *call, MPIX_Deferred_send handle,
                        tm_mpi_deferred_t **d_p)
{
    tm_mpi_kind_t kind = tm_mpi_handle_kind(handle);
    if (kind == TM_MPI_KIND_DEFERRED && handle != MPIX_DEFERRED_SEND_NULL) {
        *d_p = tm_mpi_table_get(&r->deferred, (long)tm_mpi_handle_payload(handle) - 1);
        if (*d_p)
            return MPI_SUCCESS;
    }
    return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "invalid deferred send 0x%08x: %s",
                              (unsigned)handle,
                              handle == MPIX_DEFERRED_SEND_NULL ? "MPIX_DEFERRED_SEND_NULL"
                              : kind == TM_MPI_KIND_DEFERRED    ? "no such deferred send"
                                                                : tm_mpi_handle_kind_name(kind));
}

/* Grows *array (of *cap elements of `size` bytes) to hold one more than n. */
static int grow(void **array, int *cap, int n, size_t size)
{
    if (n < *cap)
        return 0;
    int ncap = *cap ? 2 * *cap : 8;
    void *p = realloc(*array, (size_t)ncap * size);
    if (!p)
        return -ENOMEM;
    *array = p;
    *cap = ncap;
    return 0;
}

static void deferred_free(tm_mpi_deferred_t *d)
{
    tm_mpi_type_release(d->type);
    free(d->added);
    free(d->dests);
    free(d->late);
    free(d);
}

int PMPIX_Deferred_send_init(const void *buf, int count, MPI_Datatype datatype, int tag,
                             MPI_Comm comm, MPIX_Deferred_send *handle)
{
    static const char call[] = "MPIX_Deferred_send_init";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *type;
    int err = tm_mpi_comm_get_intra(r, comm, call, &c);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_buffer(r, c, call, buf, count, datatype, &type);
    if (err == MPI_SUCCESS)
        err = tm_mpi_check_tag(r, c, call, tag, false);
    if (err == MPI_SUCCESS && handle == NULL)
        err = tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "handle is NULL");
    if (err != MPI_SUCCESS)
        return err;
    tm_mpi_deferred_t *d = calloc(1, sizeof *d);
    int index = -ENOMEM;
    if (d && (d->added = calloc(((size_t)c->size + 7) / 8, 1)) != NULL)
        index = tm_mpi_table_add(&r->deferred, d);
    if (index < 0) {
        if (d)
            free(d->added);
        free(d);
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    d->buf = buf;
    d->count = (size_t)count;
    tm_mpi_type_retain(type);
    d->type = type;
    d->tag = tag;
    d->comm = comm;
    d->size = c->size;
    *handle = TM_MPI_HANDLE(TM_MPI_KIND_DEFERRED, index + 1);
    return MPI_SUCCESS;
}
#pragma weak MPIX_Deferred_send_init = PMPIX_Deferred_send_init

int PMPIX_Deferred_send_add(MPIX_Deferred_send handle, int dest)
{
    TM_MPI_PROFILE_CALL(DEFERRED_SEND_ADD);
    static const char call[] = "MPIX_Deferred_send_add";
    TM_MPI_RANK(r, call);
    tm_mpi_deferred_t *d;
    tm_mpi_comm_t *c;
    int err = deferred_get(r, call, handle, &d);
    if (err == MPI_SUCCESS)
        err = tm_mpi_comm_get(r, d->comm, call, &c);
    if (err == MPI_SUCCESS && c->size != d->size)
        err = tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COMM,
                                 "the communicator of deferred send 0x%08x was freed",
                                 (unsigned)handle);
    if (err != MPI_SUCCESS)
        return err;
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (dest < 0 || dest >= c->size)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_RANK, "invalid rank %d in %s of size %d",
                                  dest, c->name, c->size);
    if (dest == c->rank)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "rank %d is the sender itself",
                                  dest);
    unsigned char bit = (unsigned char)(1u << (dest % 8));
    if (d->added[dest / 8] & bit)
        return MPI_SUCCESS; /* a destination already */
    if (!d->ready) {
        if (grow((void **)&d->dests, &d->dests_cap, d->ndests, sizeof *d->dests) < 0)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
        d->dests[d->ndests++] = dest;
        d->added[dest / 8] |= bit;
        return MPI_SUCCESS;
    }
    /* Late: the data is there, send it now. */
    tm_p2p_request_t *req;
    if (grow((void **)&d->late, &d->late_cap, d->nlate, sizeof *d->late) < 0 ||
        tm_p2p_isend(r, d->buf, d->count, d->type, d->count * d->type->size, dest, d->tag, c, false,
                     &req) < 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
    req->call = call;
    d->late[d->nlate++] = req;
    d->added[dest / 8] |= bit;
    return MPI_SUCCESS;
}
#pragma weak MPIX_Deferred_send_add = PMPIX_Deferred_send_add

int PMPIX_Deferred_send_ready(MPIX_Deferred_send handle, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(DEFERRED_SEND_READY);
    static const char call[] = "MPIX_Deferred_send_ready";
    TM_MPI_RANK(r, call);
    tm_mpi_deferred_t *d;
    tm_mpi_comm_t *c;
    int err = deferred_get(r, call, handle, &d);
    if (err == MPI_SUCCESS)
        err = tm_mpi_comm_get(r, d->comm, call, &c);
    if (err == MPI_SUCCESS && c->size != d->size)
        err = tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COMM,
                                 "the communicator of deferred send 0x%08x was freed",
                                 (unsigned)handle);
    if (err != MPI_SUCCESS)
        return err;
    if (d->ready)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_OTHER,
                                  "the deferred send 0x%08x was already made ready",
                                  (unsigned)handle);
    if (request == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "request is NULL");
    tm_p2p_request_t *req = NULL;
    if (d->ndests == 0) {
        req = tm_p2p_request_new_done(r, TM_P2P_REQ_SEND, c);
        if (!req)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
    } else if (d->ndests == 1) {
        if (tm_p2p_isend(r, d->buf, d->count, d->type, d->count * d->type->size, d->dests[0],
                         d->tag, c, false, &req) < 0)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
    } else {
        err = tm_mpi_bcast_dynamic_start(r, c, call, d->buf, d->count, d->type, d->dests, d->ndests,
                                         d->tag, &req);
        if (err != MPI_SUCCESS)
            return err;
    }
    req->call = call;
    d->ready = true;
    free(d->dests);
    d->dests = NULL;
    d->ndests = d->dests_cap = 0;
    *request = tm_p2p_request_handle(req);
    return MPI_SUCCESS;
}
#pragma weak MPIX_Deferred_send_ready = PMPIX_Deferred_send_ready

static bool request_done(void *arg)
{
    return tm_p2p_request_is_complete(arg);
}

int PMPIX_Deferred_send_free(MPIX_Deferred_send *handle)
{
    static const char call[] = "MPIX_Deferred_send_free";
    TM_MPI_RANK(r, call);
    if (handle == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "handle is NULL");
    tm_mpi_deferred_t *d;
    int err = deferred_get(r, call, *handle, &d);
    if (err != MPI_SUCCESS)
        return err;
    for (int i = 0; i < d->nlate; i++) {
        tm_p2p_request_t *req = d->late[i];
        if (!tm_p2p_request_is_complete(req)) {
            char what[160];
            tm_p2p_request_describe(req, what, sizeof what);
            tm_p2p_note_blocked(r, "%s", what);
            tm_p2p_wait_until(r, request_done, req);
        }
        tm_p2p_request_release(r, req);
    }
    tm_mpi_table_remove(&r->deferred, (int)tm_mpi_handle_payload(*handle) - 1);
    deferred_free(d);
    *handle = MPIX_DEFERRED_SEND_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPIX_Deferred_send_free = PMPIX_Deferred_send_free

void tm_mpi_deferred_rank_fini(tm_mpi_rank_t *r)
{
    /* Handles the program never freed: their late sends are its requests to complete (MPI_Finalize
     * has drained what it must); the handles go. */
    for (int i = 0; i < r->deferred.len; i++) {
        tm_mpi_deferred_t *d = tm_mpi_table_get(&r->deferred, i);
        if (!d)
            continue;
        for (int j = 0; j < d->nlate; j++)
            if (tm_p2p_request_is_complete(d->late[j]))
                tm_p2p_request_release(r, d->late[j]);
        deferred_free(d);
    }
    tm_mpi_table_destroy(&r->deferred);
}
