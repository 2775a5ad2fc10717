/*
 * MPIX_Ibcast_dynamic: the root's call of a dynamic broadcast (mpi.h). It checks the arguments
 * and the destination list, then hands over to coll/bcast_dynamic.c, which builds the tree and
 * sends the active messages.
 */
#include "config.h"

#include <stdlib.h>

#include "bcast_dynamic.h"
#include "coll.h"
#include "p2p/p2p.h"
#include "pt2pt.h"

/* Numbers this call for the look for duplicates in its list of destinations: the ranks it
 * lists get the number in r->dyn_listed, made room for c's ranks. false when out of memory. */
static bool listed_begin(tm_mpi_rank_t *r, const tm_mpi_comm_t *c, uint32_t *call_p)
{
    if (r->dyn_room < c->size || ++r->dyn_calls == 0) { /* a new room, or the numbers wrapped */
        int room = r->dyn_room > c->size ? r->dyn_room : c->size;
        uint32_t *listed = calloc((size_t)room, sizeof *listed);
        if (!listed)
            return false;
        free(r->dyn_listed);
        r->dyn_listed = listed;
        r->dyn_room = room;
        r->dyn_calls = 1;
    }
    *call_p = r->dyn_calls;
    return true;
}

int tm_mpi_bcast_dynamic_check_dests(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                                     const int *dests, int ndests, int **list_p, int *n_p)
{
    if (ndests < 0)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_ARG, "negative ndests %d", ndests);
    if (ndests > 0 && dests == NULL)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_ARG, "dests is NULL for %d ranks",
                                  ndests);
    uint32_t call_number;
    int *list = malloc(((size_t)ndests + 1) * sizeof *list);
    if (!list || !listed_begin(r, comm, &call_number)) {
        free(list);
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_NO_MEM, "out of memory");
    }
    int n = 0;
    int err = MPI_SUCCESS;
    for (int i = 0; i < ndests && err == MPI_SUCCESS; i++) {
        int d = dests[i];
        if (d == MPI_PROC_NULL)
            continue;
        if (d < 0 || d >= comm->size) {
            err = tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_RANK,
                                     "invalid rank %d in dests[%d] (%s has size %d)", d, i,
                                     comm->name, comm->size);
        } else if (d == comm->rank) {
            err = tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_ARG,
                                     "dests[%d] is the root itself (rank %d)", i, comm->rank);
        } else if (r->dyn_listed[d] == call_number) {
            int first = 0;
            while (dests[first] != d)
                first++;
            err = tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_ARG,
                                     "rank %d is listed twice in dests (dests[%d] and dests[%d])",
                                     d, first, i);
        } else {
            r->dyn_listed[d] = call_number;
        }
        list[n++] = d;
    }
    if (err != MPI_SUCCESS) {
        free(list);
        return err;
    }
    *list_p = list;
    *n_p = n;
    return MPI_SUCCESS;
}

int tm_mpi_bcast_dynamic_start(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                               const void *buf, size_t count, tm_mpi_type_t *type, const int *list,
                               int n, int tag, tm_p2p_request_t **req_p)
{
    /* Forwarded by the ranks' runtimes, through their memory. */
    int err = tm_mpi_comm_refuse_hosts(r, comm, call);
    if (err != MPI_SUCCESS)
        return err;
    tm_p2p_request_t *req = tm_p2p_request_new(r, TM_P2P_REQ_SEND);
    if (!req)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_NO_MEM, "out of memory");
    req->comm = comm;
    req->source = MPI_PROC_NULL;
    req->tag = tag;
    req->ndests = n;
    req->call = call;
    if (tm_coll_bcast_dynamic(r, comm, buf, count, type, list, n, tag, req) < 0) {
        tm_p2p_request_release(r, req);
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_NO_MEM, "out of memory");
    }
    *req_p = req;
    return MPI_SUCCESS;
}

int PMPIX_Ibcast_dynamic(const void *buf, int count, MPI_Datatype datatype, const int dests[],
                         int ndests, int tag, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IBCAST_DYNAMIC);
    static const char call[] = "MPIX_Ibcast_dynamic";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *type;
    int *list = NULL, n = 0;
    int err = tm_mpi_comm_get_intra(r, comm, call, &c);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_buffer(r, c, call, buf, count, datatype, &type);
    if (err == MPI_SUCCESS)
        err = tm_mpi_check_tag(r, c, call, tag, false);
    if (err == MPI_SUCCESS && request == NULL)
        err = tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "request is NULL");
    if (err == MPI_SUCCESS)
        err = tm_mpi_bcast_dynamic_check_dests(r, c, call, dests, ndests, &list, &n);
    if (err != MPI_SUCCESS)
        return err;
    tm_p2p_request_t *req;
    err = tm_mpi_bcast_dynamic_start(r, c, call, buf, (size_t)count, type, list, n, tag, &req);
    free(list);
    if (err == MPI_SUCCESS)
        *request = tm_p2p_request_handle(req);
    return err;
}
#pragma weak MPIX_Ibcast_dynamic = PMPIX_Ibcast_dynamic
