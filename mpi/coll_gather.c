/*
 * MPI_Gather, MPI_Gatherv and their non-blocking and persistent forms (the algorithms:
 * coll/coll.c).
 *
 * The receive arguments are significant at the root only: the other ranks check none of them.
 * MPI_IN_PLACE (at the root only) becomes the root's own block of recvbuf, which the algorithms
 * then leave where it is.
 */
#include "config.h"

#include "coll.h"

static int gather(const char *call, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm handle, MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *stype, *rtype = NULL;
    int err = tm_mpi_comm_get(r, handle, call, &c);
    if (err == MPI_SUCCESS && tm_mpi_comm_is_inter(c))
        return tm_mpi_coll_inter_gather(r, c, call, sendbuf, sendcount, sendtype, recvbuf,
                                        recvcount, TM_COLL_VEC_NONE, TM_COLL_VEC_NONE, recvtype,
                                        root, request, mode);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_root(r, c, call, root);
    if (err != MPI_SUCCESS)
        return err;
    bool at_root = c->rank == root, in_place = sendbuf == MPI_IN_PLACE;
    if ((err = tm_mpi_coll_check_root_side(r, c, call, "sendbuf", sendbuf, sendcount, sendtype,
                                           at_root, &stype)) != MPI_SUCCESS)
        return err;
    if (at_root) {
        if ((err = tm_mpi_coll_check_buffer(r, c, call, recvbuf, recvcount, recvtype, &rtype)) !=
            MPI_SUCCESS)
            return err;
        if (recvbuf == MPI_IN_PLACE)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                      "recvbuf is MPI_IN_PLACE (only sendbuf may be)");
        if (!in_place &&
            (err = tm_mpi_coll_check_own_block(r, c, call, sendbuf, (size_t)sendcount * stype->size,
                                               recvbuf, (size_t)recvcount * rtype->size,
                                               (size_t)sendcount * stype->size > 0)) != MPI_SUCCESS)
            return err;
    }
    if ((err = tm_mpi_coll_check_request(r, c, call, request, mode)) != MPI_SUCCESS)
        return err;
    if (in_place) {
        sendbuf = (char *)recvbuf + (MPI_Aint)root * recvcount * rtype->extent;
        sendcount = recvcount;
        stype = rtype;
    }
    if (mode == TM_MPI_COLL_INIT)
        return MPI_SUCCESS;
    return tm_coll_gather(r, c, call, sendbuf, (size_t)sendcount, stype, recvbuf, (size_t)recvcount,
                          rtype, root, mode == TM_MPI_COLL_NONBLOCKING ? request : NULL);
}

static int gatherv(const char *call, const void *sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, void *recvbuf, tm_coll_vec_t recvcounts,
                   tm_coll_vec_t displs, MPI_Datatype recvtype, int root, MPI_Comm handle,
                   MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *stype, *rtype = NULL;
    int err = tm_mpi_comm_get(r, handle, call, &c);
    if (err == MPI_SUCCESS && tm_mpi_comm_is_inter(c))
        return tm_mpi_coll_inter_gather(r, c, call, sendbuf, sendcount, sendtype, recvbuf, 0,
                                        recvcounts, displs, recvtype, root, request, mode);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_root(r, c, call, root);
    if (err != MPI_SUCCESS)
        return err;
    bool at_root = c->rank == root, in_place = sendbuf == MPI_IN_PLACE;
    if ((err = tm_mpi_coll_check_root_side(r, c, call, "sendbuf", sendbuf, sendcount, sendtype,
                                           at_root, &stype)) != MPI_SUCCESS)
        return err;
    if (at_root) {
        if (!displs.at && recvcounts.at)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "displs is NULL at the root");
        MPI_Count some; /* a count > 0, if any: then recvbuf must be a buffer */
        if ((err = tm_mpi_coll_check_counts(r, c, call, "recvcounts", recvcounts, c->size, &some,
                                            NULL)) != MPI_SUCCESS ||
            (err = tm_mpi_coll_check_buffer(r, c, call, recvbuf, some, recvtype, &rtype)) !=
                MPI_SUCCESS ||
            (err = tm_mpi_coll_check_blocks(r, c, call, "recvcounts", recvcounts, "displs", displs,
                                            c->size, rtype->size, rtype->extent)) != MPI_SUCCESS)
            return err;
        if (recvbuf == MPI_IN_PLACE)
            return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                      "recvbuf is MPI_IN_PLACE (only sendbuf may be)");
        size_t own = (size_t)tm_coll_vec_get(recvcounts, root) * rtype->size;
        if (!in_place && (err = tm_mpi_coll_check_own_block(
                              r, c, call, sendbuf, (size_t)sendcount * stype->size, recvbuf, own,
                              (size_t)sendcount * stype->size > 0)) != MPI_SUCCESS)
            return err;
    }
    if ((err = tm_mpi_coll_check_request(r, c, call, request, mode)) != MPI_SUCCESS)
        return err;
    if (in_place) {
        sendbuf = (char *)recvbuf + (MPI_Aint)tm_coll_vec_get(displs, root) * rtype->extent;
        sendcount = tm_coll_vec_get(recvcounts, root);
        stype = rtype;
    }
    if (mode == TM_MPI_COLL_INIT)
        return MPI_SUCCESS;
    return tm_coll_gatherv(r, c, call, sendbuf, (size_t)sendcount, stype, recvbuf, recvcounts,
                           displs, rtype, root, mode == TM_MPI_COLL_NONBLOCKING ? request : NULL);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(GATHER);
    return gather("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                  comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Gather = PMPI_Gather

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(GATHER);
    return gather("MPI_Gather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                  comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Gather_c = PMPI_Gather_c

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IGATHER);
    return gather("MPI_Igather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                  comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Igather = PMPI_Igather

int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IGATHER);
    return gather("MPI_Igather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                  comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Igather_c = PMPI_Igather_c

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(GATHERV);
    return gatherv("MPI_Gatherv", sendbuf, sendcount, sendtype, recvbuf,
                   tm_coll_vec_int(recvcounts), tm_coll_vec_int(displs), recvtype, root, comm, NULL,
                   TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Gatherv = PMPI_Gatherv

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(GATHERV);
    return gatherv("MPI_Gatherv_c", sendbuf, sendcount, sendtype, recvbuf,
                   tm_coll_vec_count(recvcounts), tm_coll_vec_aint(displs), recvtype, root, comm,
                   NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Gatherv_c = PMPI_Gatherv_c

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IGATHERV);
    return gatherv("MPI_Igatherv", sendbuf, sendcount, sendtype, recvbuf,
                   tm_coll_vec_int(recvcounts), tm_coll_vec_int(displs), recvtype, root, comm,
                   request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Igatherv = PMPI_Igatherv

int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IGATHERV);
    return gatherv("MPI_Igatherv_c", sendbuf, sendcount, sendtype, recvbuf,
                   tm_coll_vec_count(recvcounts), tm_coll_vec_aint(displs), recvtype, root, comm,
                   request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Igatherv_c = PMPI_Igatherv_c

/* ---- the persistent forms (MPI-4.0; coll_persistent.c) ---- */

static int gather_run(const char *call, const tm_mpi_coll_args_t *a, MPI_Request *request,
                      tm_mpi_coll_mode_t mode)
{
    return gather(call, a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount,
                  a->recvtype, a->root, a->comm, request, mode);
}

int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
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
    return tm_mpi_coll_init("MPI_Gather_init", gather_run, &a, info, request);
}
#pragma weak MPI_Gather_init = PMPI_Gather_init

int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
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
    return tm_mpi_coll_init("MPI_Gather_init_c", gather_run, &a, info, request);
}
#pragma weak MPI_Gather_init_c = PMPI_Gather_init_c

static int gatherv_run(const char *call, const tm_mpi_coll_args_t *a, MPI_Request *request,
                       tm_mpi_coll_mode_t mode)
{
    return gatherv(call, a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcounts,
                   a->displs, a->recvtype, a->root, a->comm, request, mode);
}

int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcount = sendcount,
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcounts = tm_coll_vec_int(recvcounts),
                            .displs = tm_coll_vec_int(displs),
                            .recvtype = recvtype,
                            .root = root,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Gatherv_init", gatherv_run, &a, info, request);
}
#pragma weak MPI_Gatherv_init = PMPI_Gatherv_init

int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcount = sendcount,
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcounts = tm_coll_vec_count(recvcounts),
                            .displs = tm_coll_vec_aint(displs),
                            .recvtype = recvtype,
                            .root = root,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Gatherv_init_c", gatherv_run, &a, info, request);
}
#pragma weak MPI_Gatherv_init_c = PMPI_Gatherv_init_c
