/*
 * The arguments of the collectives on intercommunicators (MPI 3.1, 5.2.2), for the calls of
 * coll_*.c, which hand them here when their communicator is one (the algorithms: coll/inter.c).
 * A rooted call's root is MPI_ROOT at the root, MPI_PROC_NULL at the other members of its group,
 * the root's rank at the other group; only the buffers a member uses are checked. No buffer may
 * be MPI_IN_PLACE.
 */
#include "config.h"

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
                        const void *buf, int count, MPI_Datatype type, tm_mpi_type_t **type_p)
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
                            int count, MPI_Datatype datatype, int root, MPI_Request *request,
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

/* Gather and scatter: the root uses its `many` side (recvbuf of gather, sendbuf of scatter), the
 * other group its `one` side. */
static int check_rooted(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *sendbuf,
                        int sendcount, MPI_Datatype sendtype, tm_mpi_type_t **stype,
                        const void *recvbuf, int recvcount, MPI_Datatype recvtype,
                        tm_mpi_type_t **rtype, int root, bool root_sends, MPI_Request *request,
                        tm_mpi_coll_mode_t mode)
{
    int err = check_root(r, c, call, root);
    bool sends = root == MPI_ROOT ? root_sends : !root_sends;
    if (err == MPI_SUCCESS && root != MPI_PROC_NULL)
        err = sends ? check_buffer(r, c, call, "sendbuf", sendbuf, sendcount, sendtype, stype)
                    : check_buffer(r, c, call, "recvbuf", recvbuf, recvcount, recvtype, rtype);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    return err;
}

int tm_mpi_coll_inter_gather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                             const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    tm_mpi_type_t *stype = NULL, *rtype = NULL;
    int err = check_rooted(r, c, call, sendbuf, sendcount, sendtype, &stype, recvbuf, recvcount,
                           recvtype, &rtype, root, false, request, mode);
    if (err != MPI_SUCCESS || mode == TM_MPI_COLL_INIT)
        return err;
    return tm_coll_inter_gather(r, c, call, sendbuf, (size_t)sendcount, stype, recvbuf,
                                (size_t)recvcount, rtype, root, request_of(request, mode));
}

int tm_mpi_coll_inter_scatter(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                              const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                              MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    tm_mpi_type_t *stype = NULL, *rtype = NULL;
    int err = check_rooted(r, c, call, sendbuf, sendcount, sendtype, &stype, recvbuf, recvcount,
                           recvtype, &rtype, root, true, request, mode);
    if (err != MPI_SUCCESS || mode == TM_MPI_COLL_INIT)
        return err;
    return tm_coll_inter_scatter(r, c, call, sendbuf, (size_t)sendcount, stype, recvbuf,
                                 (size_t)recvcount, rtype, root, request_of(request, mode));
}

/* Allgather and alltoall: both sides on every member. */
static int check_both(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *sendbuf,
                      int sendcount, MPI_Datatype sendtype, tm_mpi_type_t **stype,
                      const void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      tm_mpi_type_t **rtype, MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    int err = check_buffer(r, c, call, "sendbuf", sendbuf, sendcount, sendtype, stype);
    if (err == MPI_SUCCESS)
        err = check_buffer(r, c, call, "recvbuf", recvbuf, recvcount, recvtype, rtype);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    return err;
}

int tm_mpi_coll_inter_allgather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                                const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    tm_mpi_type_t *stype, *rtype;
    int err = check_both(r, c, call, sendbuf, sendcount, sendtype, &stype, recvbuf, recvcount,
                         recvtype, &rtype, request, mode);
    if (err != MPI_SUCCESS || mode == TM_MPI_COLL_INIT)
        return err;
    return tm_coll_inter_allgather(r, c, call, sendbuf, (size_t)sendcount, stype, recvbuf,
                                   (size_t)recvcount, rtype, request_of(request, mode));
}

int tm_mpi_coll_inter_alltoall(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                               const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype,
                               MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    tm_mpi_type_t *stype, *rtype;
    int err = check_both(r, c, call, sendbuf, sendcount, sendtype, &stype, recvbuf, recvcount,
                         recvtype, &rtype, request, mode);
    if (err != MPI_SUCCESS || mode == TM_MPI_COLL_INIT)
        return err;
    return tm_coll_inter_alltoall(r, c, call, sendbuf, (size_t)sendcount, stype, recvbuf,
                                  (size_t)recvcount, rtype, request_of(request, mode));
}

int tm_mpi_coll_inter_reduce(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                             const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                             MPI_Op op_handle, int root, MPI_Request *request,
                             tm_mpi_coll_mode_t mode)
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
                                const void *sendbuf, void *recvbuf, int count,
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
