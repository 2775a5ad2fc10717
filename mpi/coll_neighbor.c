/*
 * The neighbourhood collectives: MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v,w) and their
 * non-blocking and persistent forms, over the process topology of the communicator (topo.h).
 *
 * Block k of the send buffer goes to out-neighbour k, block k of the receive buffer comes from
 * in-neighbour k (allgather: the one send buffer goes to every out-neighbour), neighbours in the
 * order of tm_mpi_topo_neighbors. A neighbour off a non-periodic Cartesian edge (MPI_PROC_NULL)
 * exchanges nothing: its receive block is left untouched.
 *
 * Matching when one rank is a neighbour twice (MPI 3.1 as corrected by the MPI 4.0 errata,
 * mpi-forum/mpi-issues#153): in a Cartesian dimension, what a rank sends towards -1 arrives as
 * the data from +1 and the other way round, also when both are the same rank (a periodic
 * dimension of size 1 or 2). The sends go in neighbour order (-1, then +1, per dimension) and
 * the receives of each dimension's pair are posted the other way round (+1, then -1): messages
 * between two ranks match in posting order. In a graph the k-th edge to a rank matches the k-th
 * edge from it: both lists are posted in neighbour order.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "coll.h"
#include "topo.h"

/* How one direction of a neighbourhood collective lays out its blocks. */
typedef enum layout {
    ONE,    /* every block is the whole buffer (allgather's send): count x type at buf */
    BLOCKS, /* count x type each, one after the other (allgather's receive, alltoall) */
    V,      /* counts[k] x type at buf + displs[k] extents */
    W,      /* counts[k] x types[k] at buf + displs[k] bytes */
} layout_t;

typedef struct side {
    layout_t layout;
    const void *buf;
    MPI_Count count;
    tm_coll_vec_t counts; /* V and W: ints or MPI_Counts */
    tm_coll_vec_t displs; /* V: ints or MPI_Aints; W: MPI_Aints */
    MPI_Datatype type;
    const MPI_Datatype *types;
} side_t;

/* Checks the `degree` blocks of one side and lists the transfers with the neighbours that are
 * not MPI_PROC_NULL into xfers (*n_p of them), in posting order: `swap_pairs` posts the two
 * neighbours of each Cartesian dimension the other way round. */
static int side_transfers(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const char *what,
                          const side_t *sd, int degree, const int *peers, bool swap_pairs,
                          tm_coll_xfer_t *xfers, int *n_p)
{
    int err;
    *n_p = 0;
    if (sd->buf == MPI_IN_PLACE)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                  "%sbuf is MPI_IN_PLACE, which neighbourhood collectives do not "
                                  "take",
                                  what);
    if (degree > 0 && (sd->layout == V || sd->layout == W) &&
        (sd->counts.at == NULL || sd->displs.at == NULL || (sd->layout == W && sd->types == NULL)))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                  "%scounts, %sdispls or %stypes is NULL", what, what, what);
    for (int i = 0; i < degree; i++) {
        int k = swap_pairs ? i ^ 1 : i;
        MPI_Count count =
            sd->layout == V || sd->layout == W ? tm_coll_vec_get(sd->counts, k) : sd->count;
        tm_mpi_type_t *type;
        if (count < 0)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COUNT,
                                      "negative %s count %lld (neighbour %d)", what,
                                      (long long)count, k);
        err = tm_mpi_type_get(r, c, sd->layout == W ? sd->types[k] : sd->type, 1, call, &type);
        if (err != MPI_SUCCESS)
            return err;
        size_t bytes;
        if (__builtin_mul_overflow((size_t)count, type->size, &bytes) ||
            bytes > (size_t)PTRDIFF_MAX)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COUNT,
                                      "%lld elements of %zu bytes (neighbour %d) are more than "
                                      "memory can hold",
                                      (long long)count, type->size, k);
        MPI_Aint offset = 0;
        if (sd->layout == BLOCKS)
            offset = (MPI_Aint)k * count * type->extent;
        else if (sd->layout == V &&
                 __builtin_mul_overflow(tm_coll_vec_get(sd->displs, k), type->extent, &offset))
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                      "%s displacement %lld (neighbour %d) of %lld-byte elements "
                                      "is an offset beyond MPI_Aint",
                                      what, (long long)tm_coll_vec_get(sd->displs, k), k,
                                      (long long)type->extent);
        else if (sd->layout == W)
            offset = (MPI_Aint)tm_coll_vec_get(sd->displs, k);
        const char *at = (const char *)sd->buf + offset;
        if (at == NULL && count > 0 && type->predefined && type->size > 0)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                      "%sbuf is NULL for %lld elements (neighbour %d)", what,
                                      (long long)count, k);
        if (peers[k] != MPI_PROC_NULL)
            xfers[(*n_p)++] = (tm_coll_xfer_t){
                .buf = (void *)at, .count = (size_t)count, .type = type, .peer = peers[k]};
    }
    return MPI_SUCCESS;
}

/* allgather and alltoall: the first receive block starts where the send data does. */
static bool sides_overlap(const side_t *send, const side_t *recv, int outdegree, int indegree,
                          const tm_coll_xfer_t *xfers, int nrecvs, int nsends)
{
    if (recv->layout != BLOCKS || send->layout == V || send->layout == W)
        return false;
    if (send->buf != recv->buf || indegree == 0 || outdegree == 0 || nrecvs == 0 || nsends == 0)
        return false;
    return xfers[0].count * xfers[0].type->size > 0 &&
           xfers[nrecvs].count * xfers[nrecvs].type->size > 0;
}

/* Neighbours (in and out together) whose lists a call keeps on the stack. */
#define NEIGHBORS_ON_STACK 16

static int neighbor(const char *call, const side_t *send, const side_t *recv, MPI_Comm handle,
                    MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get_intra(r, handle, call, &c);
    if (err != MPI_SUCCESS)
        return err;
    if (c->topo == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_TOPOLOGY, "%s has no process topology",
                                  c->name);
    int indegree, outdegree;
    tm_mpi_topo_degrees(c->topo, c->rank, &indegree, &outdegree);
    /* The common small neighbourhood on the stack; a larger one from the heap. */
    int peers_small[NEIGHBORS_ON_STACK + 1];
    tm_coll_xfer_t xfers_small[NEIGHBORS_ON_STACK + 1];
    bool small = indegree + outdegree <= NEIGHBORS_ON_STACK;
    int *peers = small ? peers_small : malloc((size_t)(indegree + outdegree + 1) * sizeof *peers);
    tm_coll_xfer_t *xfers =
        small ? xfers_small : malloc((size_t)(indegree + outdegree + 1) * sizeof *xfers);
    if (!peers || !xfers) {
        free(peers);
        free(xfers);
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    tm_mpi_topo_neighbors(c->topo, c->rank, peers, peers + indegree);
    int nrecvs = 0, nsends = 0;
    err = side_transfers(r, c, call, "recv", recv, indegree, peers, c->topo->kind == MPI_CART,
                         xfers, &nrecvs);
    if (err == MPI_SUCCESS)
        err = side_transfers(r, c, call, "send", send, outdegree, peers + indegree, false,
                             xfers + nrecvs, &nsends);
    if (err == MPI_SUCCESS && sides_overlap(send, recv, outdegree, indegree, xfers, nrecvs, nsends))
        err = tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                 "sendbuf and recvbuf are the same buffer");
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err == MPI_SUCCESS && mode != TM_MPI_COLL_INIT)
        err = tm_coll_neighbor(r, c, call, xfers, nrecvs, xfers + nrecvs, nsends,
                               mode == TM_MPI_COLL_NONBLOCKING ? request : NULL);
    if (!small) {
        free(peers);
        free(xfers);
    }
    return err;
}

/* ------------------------------------------------------------------ the calls */

/* The v and w calls' sides, from their arrays (ints, or the _c forms' MPI_Count and MPI_Aint). */

static int neighbor_allgatherv(const char *call, const void *sendbuf, MPI_Count sendcount,
                               MPI_Datatype sendtype, void *recvbuf, tm_coll_vec_t recvcounts,
                               tm_coll_vec_t displs, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    side_t send = {.layout = ONE, .buf = sendbuf, .count = sendcount, .type = sendtype};
    side_t recv = {
        .layout = V, .buf = recvbuf, .counts = recvcounts, .displs = displs, .type = recvtype};
    return neighbor(call, &send, &recv, comm, request, mode);
}

static int neighbor_alltoallv(const char *call, const void *sendbuf, tm_coll_vec_t sendcounts,
                              tm_coll_vec_t sdispls, MPI_Datatype sendtype, void *recvbuf,
                              tm_coll_vec_t recvcounts, tm_coll_vec_t rdispls,
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request,
                              tm_mpi_coll_mode_t mode)
{
    side_t send = {
        .layout = V, .buf = sendbuf, .counts = sendcounts, .displs = sdispls, .type = sendtype};
    side_t recv = {
        .layout = V, .buf = recvbuf, .counts = recvcounts, .displs = rdispls, .type = recvtype};
    return neighbor(call, &send, &recv, comm, request, mode);
}

static int neighbor_alltoallw(const char *call, const void *sendbuf, tm_coll_vec_t sendcounts,
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, tm_coll_vec_t recvcounts, const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request,
                              tm_mpi_coll_mode_t mode)
{
    side_t send = {.layout = W,
                   .buf = sendbuf,
                   .counts = sendcounts,
                   .displs = tm_coll_vec_aint(sdispls),
                   .types = sendtypes};
    side_t recv = {.layout = W,
                   .buf = recvbuf,
                   .counts = recvcounts,
                   .displs = tm_coll_vec_aint(rdispls),
                   .types = recvtypes};
    return neighbor(call, &send, &recv, comm, request, mode);
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(NEIGHBOR_ALLGATHER);
    side_t send = {.layout = ONE, .buf = sendbuf, .count = sendcount, .type = sendtype};
    side_t recv = {.layout = BLOCKS, .buf = recvbuf, .count = recvcount, .type = recvtype};
    return neighbor("MPI_Neighbor_allgather", &send, &recv, comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather

int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(NEIGHBOR_ALLGATHER);
    side_t send = {.layout = ONE, .buf = sendbuf, .count = sendcount, .type = sendtype};
    side_t recv = {.layout = BLOCKS, .buf = recvbuf, .count = recvcount, .type = recvtype};
    return neighbor("MPI_Neighbor_allgather_c", &send, &recv, comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Neighbor_allgather_c = PMPI_Neighbor_allgather_c

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(INEIGHBOR_ALLGATHER);
    side_t send = {.layout = ONE, .buf = sendbuf, .count = sendcount, .type = sendtype};
    side_t recv = {.layout = BLOCKS, .buf = recvbuf, .count = recvcount, .type = recvtype};
    return neighbor("MPI_Ineighbor_allgather", &send, &recv, comm, request,
                    TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather

int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(INEIGHBOR_ALLGATHER);
    side_t send = {.layout = ONE, .buf = sendbuf, .count = sendcount, .type = sendtype};
    side_t recv = {.layout = BLOCKS, .buf = recvbuf, .count = recvcount, .type = recvtype};
    return neighbor("MPI_Ineighbor_allgather_c", &send, &recv, comm, request,
                    TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ineighbor_allgather_c = PMPI_Ineighbor_allgather_c

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(NEIGHBOR_ALLGATHERV);
    return neighbor_allgatherv("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf,
                               tm_coll_vec_int(recvcounts), tm_coll_vec_int(displs), recvtype, comm,
                               NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv

int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(NEIGHBOR_ALLGATHERV);
    return neighbor_allgatherv("MPI_Neighbor_allgatherv_c", sendbuf, sendcount, sendtype, recvbuf,
                               tm_coll_vec_count(recvcounts), tm_coll_vec_aint(displs), recvtype,
                               comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Neighbor_allgatherv_c = PMPI_Neighbor_allgatherv_c

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(INEIGHBOR_ALLGATHERV);
    return neighbor_allgatherv("MPI_Ineighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf,
                               tm_coll_vec_int(recvcounts), tm_coll_vec_int(displs), recvtype, comm,
                               request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv

int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(INEIGHBOR_ALLGATHERV);
    return neighbor_allgatherv("MPI_Ineighbor_allgatherv_c", sendbuf, sendcount, sendtype, recvbuf,
                               tm_coll_vec_count(recvcounts), tm_coll_vec_aint(displs), recvtype,
                               comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ineighbor_allgatherv_c = PMPI_Ineighbor_allgatherv_c

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(NEIGHBOR_ALLTOALL);
    side_t send = {.layout = BLOCKS, .buf = sendbuf, .count = sendcount, .type = sendtype};
    side_t recv = {.layout = BLOCKS, .buf = recvbuf, .count = recvcount, .type = recvtype};
    return neighbor("MPI_Neighbor_alltoall", &send, &recv, comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall

int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(NEIGHBOR_ALLTOALL);
    side_t send = {.layout = BLOCKS, .buf = sendbuf, .count = sendcount, .type = sendtype};
    side_t recv = {.layout = BLOCKS, .buf = recvbuf, .count = recvcount, .type = recvtype};
    return neighbor("MPI_Neighbor_alltoall_c", &send, &recv, comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Neighbor_alltoall_c = PMPI_Neighbor_alltoall_c

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(INEIGHBOR_ALLTOALL);
    side_t send = {.layout = BLOCKS, .buf = sendbuf, .count = sendcount, .type = sendtype};
    side_t recv = {.layout = BLOCKS, .buf = recvbuf, .count = recvcount, .type = recvtype};
    return neighbor("MPI_Ineighbor_alltoall", &send, &recv, comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall

int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(INEIGHBOR_ALLTOALL);
    side_t send = {.layout = BLOCKS, .buf = sendbuf, .count = sendcount, .type = sendtype};
    side_t recv = {.layout = BLOCKS, .buf = recvbuf, .count = recvcount, .type = recvtype};
    return neighbor("MPI_Ineighbor_alltoall_c", &send, &recv, comm, request,
                    TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ineighbor_alltoall_c = PMPI_Ineighbor_alltoall_c

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(NEIGHBOR_ALLTOALLV);
    return neighbor_alltoallv("MPI_Neighbor_alltoallv", sendbuf, tm_coll_vec_int(sendcounts),
                              tm_coll_vec_int(sdispls), sendtype, recvbuf,
                              tm_coll_vec_int(recvcounts), tm_coll_vec_int(rdispls), recvtype, comm,
                              NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv

int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(NEIGHBOR_ALLTOALLV);
    return neighbor_alltoallv("MPI_Neighbor_alltoallv_c", sendbuf, tm_coll_vec_count(sendcounts),
                              tm_coll_vec_aint(sdispls), sendtype, recvbuf,
                              tm_coll_vec_count(recvcounts), tm_coll_vec_aint(rdispls), recvtype,
                              comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Neighbor_alltoallv_c = PMPI_Neighbor_alltoallv_c

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(INEIGHBOR_ALLTOALLV);
    return neighbor_alltoallv("MPI_Ineighbor_alltoallv", sendbuf, tm_coll_vec_int(sendcounts),
                              tm_coll_vec_int(sdispls), sendtype, recvbuf,
                              tm_coll_vec_int(recvcounts), tm_coll_vec_int(rdispls), recvtype, comm,
                              request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv

int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(INEIGHBOR_ALLTOALLV);
    return neighbor_alltoallv("MPI_Ineighbor_alltoallv_c", sendbuf, tm_coll_vec_count(sendcounts),
                              tm_coll_vec_aint(sdispls), sendtype, recvbuf,
                              tm_coll_vec_count(recvcounts), tm_coll_vec_aint(rdispls), recvtype,
                              comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ineighbor_alltoallv_c = PMPI_Ineighbor_alltoallv_c

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(NEIGHBOR_ALLTOALLW);
    return neighbor_alltoallw("MPI_Neighbor_alltoallw", sendbuf, tm_coll_vec_int(sendcounts),
                              sdispls, sendtypes, recvbuf, tm_coll_vec_int(recvcounts), rdispls,
                              recvtypes, comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw

int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(NEIGHBOR_ALLTOALLW);
    return neighbor_alltoallw("MPI_Neighbor_alltoallw_c", sendbuf, tm_coll_vec_count(sendcounts),
                              sdispls, sendtypes, recvbuf, tm_coll_vec_count(recvcounts), rdispls,
                              recvtypes, comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Neighbor_alltoallw_c = PMPI_Neighbor_alltoallw_c

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(INEIGHBOR_ALLTOALLW);
    return neighbor_alltoallw("MPI_Ineighbor_alltoallw", sendbuf, tm_coll_vec_int(sendcounts),
                              sdispls, sendtypes, recvbuf, tm_coll_vec_int(recvcounts), rdispls,
                              recvtypes, comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw

int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                               MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(INEIGHBOR_ALLTOALLW);
    return neighbor_alltoallw("MPI_Ineighbor_alltoallw_c", sendbuf, tm_coll_vec_count(sendcounts),
                              sdispls, sendtypes, recvbuf, tm_coll_vec_count(recvcounts), rdispls,
                              recvtypes, comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ineighbor_alltoallw_c = PMPI_Ineighbor_alltoallw_c

/* ---- the persistent forms (MPI-4.0; coll_persistent.c) ---- */

static int neighbor_allgather_run(const char *call, const tm_mpi_coll_args_t *a,
                                  MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    side_t send = {.layout = ONE, .buf = a->sendbuf, .count = a->sendcount, .type = a->sendtype};
    side_t recv = {.layout = BLOCKS, .buf = a->recvbuf, .count = a->recvcount, .type = a->recvtype};
    return neighbor(call, &send, &recv, a->comm, request, mode);
}

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcount = sendcount,
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcount = recvcount,
                            .recvtype = recvtype,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Neighbor_allgather_init", neighbor_allgather_run, &a, info,
                            request);
}
#pragma weak MPI_Neighbor_allgather_init = PMPI_Neighbor_allgather_init

int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcount = sendcount,
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcount = recvcount,
                            .recvtype = recvtype,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Neighbor_allgather_init_c", neighbor_allgather_run, &a, info,
                            request);
}
#pragma weak MPI_Neighbor_allgather_init_c = PMPI_Neighbor_allgather_init_c

static int neighbor_allgatherv_run(const char *call, const tm_mpi_coll_args_t *a,
                                   MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    return neighbor_allgatherv(call, a->sendbuf, a->sendcount, a->sendtype, a->recvbuf,
                               a->recvcounts, a->displs, a->recvtype, a->comm, request, mode);
}

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcount = sendcount,
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcounts = tm_coll_vec_int(recvcounts),
                            .displs = tm_coll_vec_int(displs),
                            .recvtype = recvtype,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Neighbor_allgatherv_init", neighbor_allgatherv_run, &a, info,
                            request);
}
#pragma weak MPI_Neighbor_allgatherv_init = PMPI_Neighbor_allgatherv_init

int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcount = sendcount,
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcounts = tm_coll_vec_count(recvcounts),
                            .displs = tm_coll_vec_aint(displs),
                            .recvtype = recvtype,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Neighbor_allgatherv_init_c", neighbor_allgatherv_run, &a, info,
                            request);
}
#pragma weak MPI_Neighbor_allgatherv_init_c = PMPI_Neighbor_allgatherv_init_c

static int neighbor_alltoall_run(const char *call, const tm_mpi_coll_args_t *a,
                                 MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    side_t send = {.layout = BLOCKS, .buf = a->sendbuf, .count = a->sendcount, .type = a->sendtype};
    side_t recv = {.layout = BLOCKS, .buf = a->recvbuf, .count = a->recvcount, .type = a->recvtype};
    return neighbor(call, &send, &recv, a->comm, request, mode);
}

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcount = sendcount,
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcount = recvcount,
                            .recvtype = recvtype,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Neighbor_alltoall_init", neighbor_alltoall_run, &a, info, request);
}
#pragma weak MPI_Neighbor_alltoall_init = PMPI_Neighbor_alltoall_init

int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcount = sendcount,
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcount = recvcount,
                            .recvtype = recvtype,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Neighbor_alltoall_init_c", neighbor_alltoall_run, &a, info,
                            request);
}
#pragma weak MPI_Neighbor_alltoall_init_c = PMPI_Neighbor_alltoall_init_c

static int neighbor_alltoallv_run(const char *call, const tm_mpi_coll_args_t *a,
                                  MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    return neighbor_alltoallv(call, a->sendbuf, a->sendcounts, a->sdispls, a->sendtype, a->recvbuf,
                              a->recvcounts, a->rdispls, a->recvtype, a->comm, request, mode);
}

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcounts = tm_coll_vec_int(sendcounts),
                            .sdispls = tm_coll_vec_int(sdispls),
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcounts = tm_coll_vec_int(recvcounts),
                            .rdispls = tm_coll_vec_int(rdispls),
                            .recvtype = recvtype,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Neighbor_alltoallv_init", neighbor_alltoallv_run, &a, info,
                            request);
}
#pragma weak MPI_Neighbor_alltoallv_init = PMPI_Neighbor_alltoallv_init

int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcounts = tm_coll_vec_count(sendcounts),
                            .sdispls = tm_coll_vec_aint(sdispls),
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcounts = tm_coll_vec_count(recvcounts),
                            .rdispls = tm_coll_vec_aint(rdispls),
                            .recvtype = recvtype,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Neighbor_alltoallv_init_c", neighbor_alltoallv_run, &a, info,
                            request);
}
#pragma weak MPI_Neighbor_alltoallv_init_c = PMPI_Neighbor_alltoallv_init_c

static int neighbor_alltoallw_run(const char *call, const tm_mpi_coll_args_t *a,
                                  MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    /* The displacements are MPI_Aints in both forms. */
    return neighbor_alltoallw(call, a->sendbuf, a->sendcounts, a->sdispls.at, a->sendtypes,
                              a->recvbuf, a->recvcounts, a->rdispls.at, a->recvtypes, a->comm,
                              request, mode);
}

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcounts = tm_coll_vec_int(sendcounts),
                            .sdispls = tm_coll_vec_aint(sdispls),
                            .sendtypes = sendtypes,
                            .recvbuf = recvbuf,
                            .recvcounts = tm_coll_vec_int(recvcounts),
                            .rdispls = tm_coll_vec_aint(rdispls),
                            .recvtypes = recvtypes,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Neighbor_alltoallw_init", neighbor_alltoallw_run, &a, info,
                            request);
}
#pragma weak MPI_Neighbor_alltoallw_init = PMPI_Neighbor_alltoallw_init

int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcounts = tm_coll_vec_count(sendcounts),
                            .sdispls = tm_coll_vec_aint(sdispls),
                            .sendtypes = sendtypes,
                            .recvbuf = recvbuf,
                            .recvcounts = tm_coll_vec_count(recvcounts),
                            .rdispls = tm_coll_vec_aint(rdispls),
                            .recvtypes = recvtypes,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Neighbor_alltoallw_init_c", neighbor_alltoallw_run, &a, info,
                            request);
}
#pragma weak MPI_Neighbor_alltoallw_init_c = PMPI_Neighbor_alltoallw_init_c
