/*
 * Persistent collectives (MPI-4.0: MPI_Bcast_init ... MPI_Neighbor_alltoallw_init): a persistent
 * request keeps the collective's arguments, checked once by the init call; each MPI_Start runs
 * the collective as a non-blocking one under the init call's name, so that it matches only the
 * same persistent collective on the other members (MPI 4.0, 6.13), and completes through the
 * persistent request (wait.c), which stays.
 */
#include "config.h"

#include <stdlib.h>

#include "coll.h"
#include "p2p/p2p.h"

/* What a persistent collective request keeps (its `coll`, freed with it). */
typedef struct persistent {
    tm_mpi_coll_run_fn run;
    tm_mpi_coll_args_t args;
} persistent_t;

int tm_mpi_coll_init(const char *call, tm_mpi_coll_run_fn run, const tm_mpi_coll_args_t *a,
                     MPI_Info info, MPI_Request *request)
{
    int err = run(call, a, request, TM_MPI_COLL_INIT);
    if (err != MPI_SUCCESS)
        return err;
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    if ((err = tm_mpi_comm_get(r, a->comm, call, &c)) != MPI_SUCCESS)
        return err;
    /* ThreadMPI takes no hints: the info is checked and ignored. */
    if (info != MPI_INFO_NULL && (err = tm_mpi_info_check(r, info, call)) != MPI_SUCCESS)
        return err;
    persistent_t *p = malloc(sizeof *p);
    tm_p2p_request_t *req = p ? tm_p2p_request_new(r, TM_P2P_REQ_PERSISTENT) : NULL;
    if (!req) {
        free(p);
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    p->run = run;
    p->args = *a;
    req->op = TM_P2P_PERSIST_COLL;
    req->comm = c;
    req->call = call;
    req->coll = p;
    req->coll_free = free;
    *request = tm_p2p_request_handle(req);
    return MPI_SUCCESS;
}

int tm_mpi_coll_start(tm_mpi_rank_t *r, tm_p2p_request_t *p)
{
    const persistent_t *kept = p->coll;
    MPI_Request h;
    int err = kept->run(p->call, &kept->args, &h, TM_MPI_COLL_NONBLOCKING);
    if (err != MPI_SUCCESS)
        return err;
    tm_p2p_request_t *op = tm_p2p_request_lookup(r, h);
    op->persistent = p;
    p->active = op;
    return MPI_SUCCESS;
}
