/*
 * MPI_Scatter, MPI_Scatterv and their non-blocking and persistent forms (the algorithms:
 * coll/coll.c).
 *
 * The send arguments are significant at the root only: the other ranks check none of them.
 * MPI_IN_PLACE as recvbuf (at the root only) becomes the root's own block of sendbuf, which the
 * algorithms then leave where it is.
 */
#include "config.h"

#include "coll.h"

static int scatter(const char *call, const void *sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm handle, MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *stype = NULL, *rtype;
    int err = tm_mpi_comm_get(r, handle, call, &c);
    if (err == MPI_SUCCESS && tm_mpi_comm_is_inter(c))
        return tm_mpi_coll_inter_scatter(r, c, call, sendbuf, sendcount, TM_COLL_VEC_NONE,
                                         TM_COLL_VEC_NONE, sendtype, recvbuf, recvcount, recvtype,
                                         root, request, mode);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_root(r, c, call, root);
    if (err != MPI_SUCCESS)
        return err;
    bool at_root = c->rank == root, in_place = recvbuf == MPI_IN_PLACE;
    if (at_root) {
        if ((err = tm_mpi_coll_check_buffer(r, c, call, sendbuf, sendcount, sendtype, &stype)) !=
            MPI_SUCCESS)
            return err;
        if (sendbuf == MPI_IN_PLACE)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                      "sendbuf is MPI_IN_PLACE (only recvbuf may be)");
    }
    if ((err = tm_mpi_coll_check_root_side(r, c, call, "recvbuf", recvbuf, recvcount, recvtype,
                                           at_root, &rtype)) != MPI_SUCCESS)
        return err;
    if (at_root && !in_place &&
        (err = tm_mpi_coll_check_own_block(r, c, call, sendbuf, (size_t)sendcount * stype->size,
                                           recvbuf, (size_t)recvcount * rtype->size,
                                           (size_t)sendcount * stype->size > 0)) != MPI_SUCCESS)
        return err;
    if ((err = tm_mpi_coll_check_request(r, c, call, request, mode)) != MPI_SUCCESS)
        return err;
    if (in_place) {
        /* The root's own block: the algorithm sees it is already there and writes nothing. */
        recvbuf = (char *)sendbuf + (MPI_Aint)root * sendcount * stype->extent;
        recvcount = sendcount;
        rtype = stype;
    }
    if (mode == TM_MPI_COLL_INIT)
        return MPI_SUCCESS;
    return tm_coll_scatter(r, c, call, sendbuf, (size_t)sendcount, stype, recvbuf,
                           (size_t)recvcount, rtype, root,
                           mode == TM_MPI_COLL_NONBLOCKING ? request : NULL);
}

static int scatterv(const char *call, const void *sendbuf, tm_coll_vec_t sendcounts,
                    tm_coll_vec_t displs, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm handle, MPI_Request *request,
                    tm_mpi_coll_mode_t mode)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *stype = NULL, *rtype;
    int err = tm_mpi_comm_get(r, handle, call, &c);
    if (err == MPI_SUCCESS && tm_mpi_comm_is_inter(c))
        return tm_mpi_coll_inter_scatter(r, c, call, sendbuf, 0, sendcounts, displs, sendtype,
                                         recvbuf, recvcount, recvtype, root, request, mode);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_root(r, c, call, root);
    if (err != MPI_SUCCESS)
        return err;
    bool at_root = c->rank == root, in_place = recvbuf == MPI_IN_PLACE;
    if (at_root) {
        if (!displs.at && sendcounts.at)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "displs is NULL at the root");
        MPI_Count some; /* a count > 0, if any: then sendbuf must be a buffer */
        if ((err = tm_mpi_coll_check_counts(r, c, call, "sendcounts", sendcounts, c->size, &some,
                                            NULL)) != MPI_SUCCESS ||
            (err = tm_mpi_coll_check_buffer(r, c, call, sendbuf, some, sendtype, &stype)) !=
                MPI_SUCCESS ||
            (err = tm_mpi_coll_check_blocks(r, c, call, "sendcounts", sendcounts, "displs", displs,
                                            c->size, stype->size, stype->extent)) != MPI_SUCCESS)
            return err;
        if (sendbuf == MPI_IN_PLACE)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                      "sendbuf is MPI_IN_PLACE (only recvbuf may be)");
    }
    if ((err = tm_mpi_coll_check_root_side(r, c, call, "recvbuf", recvbuf, recvcount, recvtype,
                                           at_root, &rtype)) != MPI_SUCCESS)
        return err;
    if (at_root && !in_place) {
        size_t own = (size_t)tm_coll_vec_get(sendcounts, root) * stype->size;
        if ((err = tm_mpi_coll_check_own_block(r, c, call, sendbuf, own, recvbuf,
                                               (size_t)recvcount * rtype->size, own > 0)) !=
            MPI_SUCCESS)
            return err;
    }
    if ((err = tm_mpi_coll_check_request(r, c, call, request, mode)) != MPI_SUCCESS)
        return err;
    if (in_place) {
        /* The root's own block: the algorithm sees it is already there and writes nothing. */
        recvbuf = (char *)sendbuf + (MPI_Aint)tm_coll_vec_get(displs, root) * stype->extent;
        recvcount = tm_coll_vec_get(sendcounts, root);
        rtype = stype;
    }
    if (mode == TM_MPI_COLL_INIT)
        return MPI_SUCCESS;
    return tm_coll_scatterv(r, c, call, sendbuf, sendcounts, displs, stype, recvbuf,
                            (size_t)recvcount, rtype, root,
                            mode == TM_MPI_COLL_NONBLOCKING ? request : NULL);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(SCATTER);
    return scatter("MPI_Scatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                   comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Scatter = PMPI_Scatter

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(SCATTER);
    return scatter("MPI_Scatter_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                   root, comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Scatter_c = PMPI_Scatter_c

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(ISCATTER);
    return scatter("MPI_Iscatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                   comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Iscatter = PMPI_Iscatter

int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(ISCATTER);
    return scatter("MPI_Iscatter_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                   root, comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Iscatter_c = PMPI_Iscatter_c

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(SCATTERV);
    return scatterv("MPI_Scatterv", sendbuf, tm_coll_vec_int(sendcounts), tm_coll_vec_int(displs),
                    sendtype, recvbuf, recvcount, recvtype, root, comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Scatterv = PMPI_Scatterv

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(SCATTERV);
    return scatterv("MPI_Scatterv_c", sendbuf, tm_coll_vec_count(sendcounts),
                    tm_coll_vec_aint(displs), sendtype, recvbuf, recvcount, recvtype, root, comm,
                    NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Scatterv_c = PMPI_Scatterv_c

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(ISCATTERV);
    return scatterv("MPI_Iscatterv", sendbuf, tm_coll_vec_int(sendcounts), tm_coll_vec_int(displs),
                    sendtype, recvbuf, recvcount, recvtype, root, comm, request,
                    TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Iscatterv = PMPI_Iscatterv

int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(ISCATTERV);
    return scatterv("MPI_Iscatterv_c", sendbuf, tm_coll_vec_count(sendcounts),
                    tm_coll_vec_aint(displs), sendtype, recvbuf, recvcount, recvtype, root, comm,
                    request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Iscatterv_c = PMPI_Iscatterv_c

/* ---- the persistent forms (MPI-4.0; coll_persistent.c) ---- */

static int scatter_run(const char *call, const tm_mpi_coll_args_t *a, MPI_Request *request,
                       tm_mpi_coll_mode_t mode)
{
    return scatter(call, a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount,
                   a->recvtype, a->root, a->comm, request, mode);
}

int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcount = sendcount,
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcount = recvcount,
                            .recvtype = recvtype,
                            .root = root,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Scatter_init", scatter_run, &a, info, request);
}
#pragma weak MPI_Scatter_init = PMPI_Scatter_init

int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcount = sendcount,
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcount = recvcount,
                            .recvtype = recvtype,
                            .root = root,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Scatter_init_c", scatter_run, &a, info, request);
}
#pragma weak MPI_Scatter_init_c = PMPI_Scatter_init_c

static int scatterv_run(const char *call, const tm_mpi_coll_args_t *a, MPI_Request *request,
                        tm_mpi_coll_mode_t mode)
{
    return scatterv(call, a->sendbuf, a->sendcounts, a->displs, a->sendtype, a->recvbuf,
                    a->recvcount, a->recvtype, a->root, a->comm, request, mode);
}

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcounts = tm_coll_vec_int(sendcounts),
                            .displs = tm_coll_vec_int(displs),
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcount = recvcount,
                            .recvtype = recvtype,
                            .root = root,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Scatterv_init", scatterv_run, &a, info, request);
}
#pragma weak MPI_Scatterv_init = PMPI_Scatterv_init

int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                         MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcounts = tm_coll_vec_count(sendcounts),
                            .displs = tm_coll_vec_aint(displs),
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcount = recvcount,
                            .recvtype = recvtype,
                            .root = root,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Scatterv_init_c", scatterv_run, &a, info, request);
}
#pragma weak MPI_Scatterv_init_c = PMPI_Scatterv_init_c
