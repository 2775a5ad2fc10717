/*
 * The arguments of the collectives on intercommunicators (MPI 3.1, 5.2.2), for the calls of
 * coll_*.c, which hand them here when their communicator is one (the algorithms: coll/inter.c).
 * A rooted call's root is MPI_ROOT at the root, MPI_PROC_NULL at the other members of its group,
 * the root's rank at the other group; only the buffers a member uses are checked. No buffer may
 * be MPI_IN_PLACE.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "coll/blocks.h"
#include "coll.h"

static int check_root(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, int root)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->remote->size))
        return MPI_SUCCESS;
    return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ROOT,
                              "invalid root %d on the intercommunicator %s: MPI_ROOT, "
                              "MPI_PROC_NULL or a rank of the remote group, of size %d",
                              root, c->name, c->remote->size);
}

static int check_buffer(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const char *name,
                        const void *buf, MPI_Count count, MPI_Datatype type, tm_mpi_type_t **type_p)
{
    if (buf == MPI_IN_PLACE)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                  "%s is MPI_IN_PLACE, which intercommunicators do not take", name);
    return tm_mpi_coll_check_buffer(r, c, call, buf, count, type, type_p);
}

static MPI_Request *request_of(MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    return mode == TM_MPI_COLL_NONBLOCKING ? request : NULL;
}

int tm_mpi_coll_inter_barrier(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                              MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    int err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err != MPI_SUCCESS || mode == TM_MPI_COLL_INIT)
        return err;
    return tm_coll_inter_barrier(r, c, call, request_of(request, mode));
}

int tm_mpi_coll_inter_bcast(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, void *buf,
                            MPI_Count count, MPI_Datatype datatype, int root, MPI_Request *request,
                            tm_mpi_coll_mode_t mode)
{
    tm_mpi_type_t *type = NULL;
    int err = check_root(r, c, call, root);
    if (err == MPI_SUCCESS && root != MPI_PROC_NULL)
        err = check_buffer(r, c, call, "buffer", buf, count, datatype, &type);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err != MPI_SUCCESS || mode == TM_MPI_COLL_INIT)
        return err;
    return tm_coll_inter_bcast(r, c, call, buf, (size_t)count, type, root,
                               request_of(request, mode));
}

/* The side of many blocks, one per remote member: `count` x `type` each without counts, else
 * counts[i] x (types ? types[i] : type) at displs[i] (in extents of type, or bytes with types).
 * Fills *b; the types of a w side go to a new array *held (NULL otherwise), which the caller
 * frees. */
static int check_blocks(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const char *name,
                        const void *buf, MPI_Count count, tm_coll_vec_t counts,
                        tm_coll_vec_t displs, MPI_Datatype type, const MPI_Datatype *types,
                        tm_coll_blocks_t *b, tm_mpi_type_t ***held)
{
    int n = c->remote->size, err;
    MPI_Count some;
    *held = NULL;
    *b = (tm_coll_blocks_t){.buf = (void *)buf, .count = (size_t)count};
    if (buf == MPI_IN_PLACE)
        return check_buffer(r, c, call, name, buf, 0, type, &b->type);
    if (!counts.at)
        return check_buffer(r, c, call, name, buf, count, type, &b->type);
    if (!displs.at)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "the displacements of %s are NULL",
                                  name);
    /* Counts of the remote group's members, in the calls' own names. */
    const char *counts_name = name[0] == 's' ? "sendcounts" : "recvcounts";
    if ((err = tm_mpi_coll_check_counts(r, c, call, counts_name, counts, n, &some, NULL)) !=
        MPI_SUCCESS)
        return err;
    b->counts = counts;
    b->displs = displs;
    if (!types) {
        if ((err = tm_mpi_coll_check_buffer(r, c, call, buf, 0, type, &b->type)) != MPI_SUCCESS ||
            (err = tm_mpi_coll_check_blocks(r, c, call, counts_name, counts, "displs", displs, n,
                                            b->type->size, b->type->extent)) != MPI_SUCCESS)
            return err;
        b->displ_unit = b->type->extent;
        return MPI_SUCCESS;
    }
    tm_mpi_type_t **t = malloc(((size_t)n + 1) * sizeof *t);
    if (!t)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < n; i++) {
        if ((err = tm_mpi_type_get(r, c, types[i], 1, call, &t[i])) != MPI_SUCCESS) {
            free(t);
            return err;
        }
        /* Each block's bytes must fit in memory; the displacements are bytes already. */
        MPI_Count ci = tm_coll_vec_get(counts, i);
        size_t bytes;
        if (__builtin_mul_overflow((size_t)ci, t[i]->size, &bytes) || bytes > (size_t)PTRDIFF_MAX) {
            free(t);
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COUNT,
                                      "%s[%d] = %lld elements of %zu bytes are more than memory "
                                      "can hold",
                                      counts_name, i, (long long)ci, t[i]->size);
        }
    }
    b->types = t;
    b->displ_unit = 1;
    *held = t;
    return MPI_SUCCESS;
}

/* Gather(v) and scatter(v): the root uses its side of many blocks (recv of gather, send of
 * scatter), the other group its side of one. */
static int rooted(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, bool root_sends,
                  const void *sendbuf, MPI_Count sendcount, tm_coll_vec_t sendcounts,
                  tm_coll_vec_t sdispls, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                  tm_coll_vec_t recvcounts, tm_coll_vec_t rdispls, MPI_Datatype recvtype, int root,
                  MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    tm_mpi_type_t *one = NULL, **held = NULL;
    tm_coll_blocks_t many = {0};
    int err = check_root(r, c, call, root);
    if (err == MPI_SUCCESS && root == MPI_ROOT)
        err = root_sends ? check_blocks(r, c, call, "sendbuf", sendbuf, sendcount, sendcounts,
                                        sdispls, sendtype, NULL, &many, &held)
                         : check_blocks(r, c, call, "recvbuf", recvbuf, recvcount, recvcounts,
                                        rdispls, recvtype, NULL, &many, &held);
    else if (err == MPI_SUCCESS && root != MPI_PROC_NULL)
        err = root_sends ? check_buffer(r, c, call, "recvbuf", recvbuf, recvcount, recvtype, &one)
                         : check_buffer(r, c, call, "sendbuf", sendbuf, sendcount, sendtype, &one);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err != MPI_SUCCESS || mode == TM_MPI_COLL_INIT)
        return err;
    if (root_sends)
        return tm_coll_inter_scatter(r, c, call, &many, recvbuf, (size_t)recvcount, one, root,
                                     request_of(request, mode));
    return tm_coll_inter_gather(r, c, call, sendbuf, (size_t)sendcount, one, &many, root,
                                request_of(request, mode));
}

int tm_mpi_coll_inter_gather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                             const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, tm_coll_vec_t recvcounts,
                             tm_coll_vec_t displs, MPI_Datatype recvtype, int root,
                             MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    return rooted(r, c, call, false, sendbuf, sendcount, TM_COLL_VEC_NONE, TM_COLL_VEC_NONE,
                  sendtype, recvbuf, recvcount, recvcounts, displs, recvtype, root, request, mode);
}

int tm_mpi_coll_inter_scatter(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                              const void *sendbuf, MPI_Count sendcount, tm_coll_vec_t sendcounts,
                              tm_coll_vec_t displs, MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, int root,
                              MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    return rooted(r, c, call, true, sendbuf, sendcount, sendcounts, displs, sendtype, recvbuf,
                  recvcount, TM_COLL_VEC_NONE, TM_COLL_VEC_NONE, recvtype, root, request, mode);
}

int tm_mpi_coll_inter_allgather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                                const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, MPI_Count recvcount, tm_coll_vec_t recvcounts,
                                tm_coll_vec_t displs, MPI_Datatype recvtype, MPI_Request *request,
                                tm_mpi_coll_mode_t mode)
{
    tm_mpi_type_t *stype, **held;
    tm_coll_blocks_t recv;
    int err = check_buffer(r, c, call, "sendbuf", sendbuf, sendcount, sendtype, &stype);
    if (err == MPI_SUCCESS)
        err = check_blocks(r, c, call, "recvbuf", recvbuf, recvcount, recvcounts, displs, recvtype,
                           NULL, &recv, &held);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err != MPI_SUCCESS || mode == TM_MPI_COLL_INIT)
        return err;
    return tm_coll_inter_allgather(r, c, call, sendbuf, (size_t)sendcount, stype, &recv,
                                   request_of(request, mode));
}

int tm_mpi_coll_inter_alltoall(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                               const void *sendbuf, MPI_Count sendcount, tm_coll_vec_t sendcounts,
                               tm_coll_vec_t sdispls, MPI_Datatype sendtype,
                               const MPI_Datatype *sendtypes, void *recvbuf, MPI_Count recvcount,
                               tm_coll_vec_t recvcounts, tm_coll_vec_t rdispls,
                               MPI_Datatype recvtype, const MPI_Datatype *recvtypes,
                               MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    tm_mpi_type_t **sheld = NULL, **rheld = NULL;
    tm_coll_blocks_t send, recv;
    int err = check_blocks(r, c, call, "sendbuf", sendbuf, sendcount, sendcounts, sdispls, sendtype,
                           sendtypes, &send, &sheld);
    if (err == MPI_SUCCESS)
        err = check_blocks(r, c, call, "recvbuf", recvbuf, recvcount, recvcounts, rdispls, recvtype,
                           recvtypes, &recv, &rheld);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err == MPI_SUCCESS && mode != TM_MPI_COLL_INIT)
        err = tm_coll_inter_alltoall(r, c, call, &send, &recv, request_of(request, mode));
    free(sheld); /* the schedule holds its own references to the types */
    free(rheld);
    return err;
}

int tm_mpi_coll_inter_reduce(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                             const void *sendbuf, void *recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op_handle, int root,
                             MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    tm_mpi_type_t *type = NULL;
    tm_mpi_op_t *op = NULL;
    int err = check_root(r, c, call, root);
    if (err == MPI_SUCCESS && root != MPI_PROC_NULL)
        err = root == MPI_ROOT
                  ? check_buffer(r, c, call, "recvbuf", recvbuf, count, datatype, &type)
                  : check_buffer(r, c, call, "sendbuf", sendbuf, count, datatype, &type);
    if (err == MPI_SUCCESS && root != MPI_PROC_NULL)
        err = tm_mpi_op_get_for_type(r, c, op_handle, type, call, &op);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err != MPI_SUCCESS || mode == TM_MPI_COLL_INIT)
        return err;
    return tm_coll_inter_reduce(r, c, call, sendbuf, recvbuf, (size_t)count, type, op, root,
                                request_of(request, mode));
}

int tm_mpi_coll_inter_allreduce(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                                const void *sendbuf, void *recvbuf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Op op_handle, MPI_Request *request,
                                tm_mpi_coll_mode_t mode)
{
    tm_mpi_type_t *type;
    tm_mpi_op_t *op;
    int err = check_buffer(r, c, call, "sendbuf", sendbuf, count, datatype, &type);
    if (err == MPI_SUCCESS)
        err = check_buffer(r, c, call, "recvbuf", recvbuf, count, datatype, &type);
    if (err == MPI_SUCCESS)
        err = tm_mpi_op_get_for_type(r, c, op_handle, type, call, &op);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err != MPI_SUCCESS || mode == TM_MPI_COLL_INIT)
        return err;
    return tm_coll_inter_allreduce(r, c, call, sendbuf, recvbuf, (size_t)count, type, op,
                                   request_of(request, mode));
}
