/*
 * MPI_Allgather, MPI_Allgatherv and their non-blocking and persistent forms.
 *
 * MPI_IN_PLACE (sendbuf): each rank's block is already in its place in recvbuf; the send
 * arguments are then ignored (the algorithms: coll/coll.c).
 */
#include "config.h"

#include "coll.h"
#include "coll/blocks.h"

/* The send side, unless in place: a buffer of (count, type) no larger than the rank's own block
 * of `recvbytes`, and not recvbuf itself. */
static int check_send(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const void *sendbuf,
                      MPI_Count sendcount, MPI_Datatype sendtype, const void *recvbuf,
                      size_t recvbytes, tm_mpi_type_t **type_p)
{
    int err = tm_mpi_coll_check_buffer(r, c, call, sendbuf, sendcount, sendtype, type_p);
    if (err != MPI_SUCCESS)
        return err;
    size_t sendbytes = (size_t)sendcount * (*type_p)->size;
    if (sendbytes > recvbytes)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_TRUNCATE,
                                  "rank %d sends %zu bytes but receives %zu from each rank",
                                  c->rank, sendbytes, recvbytes);
    if (sendbuf == recvbuf && sendbuf != MPI_BOTTOM && sendbytes > 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                  "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
    return MPI_SUCCESS;
}

static int allgather(const char *call, const void *sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, MPI_Comm handle, MPI_Request *request,
                     tm_mpi_coll_mode_t mode)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *stype = NULL, *rtype;
    bool in_place = sendbuf == MPI_IN_PLACE;
    int err = tm_mpi_comm_get(r, handle, call, &c);
    if (err == MPI_SUCCESS && tm_mpi_comm_is_inter(c))
        return tm_mpi_coll_inter_allgather(r, c, call, sendbuf, sendcount, sendtype, recvbuf,
                                           recvcount, TM_COLL_VEC_NONE, TM_COLL_VEC_NONE, recvtype,
                                           request, mode);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_buffer(r, c, call, recvbuf, recvcount, recvtype, &rtype);
    if (err == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        err = tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                 "recvbuf is MPI_IN_PLACE (only sendbuf may be)");
    if (err == MPI_SUCCESS && !in_place)
        err = check_send(r, c, call, sendbuf, sendcount, sendtype, recvbuf,
                         (size_t)recvcount * rtype->size, &stype);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err != MPI_SUCCESS)
        return err;
    tm_coll_blocks_t recv = {.buf = recvbuf, .count = (size_t)recvcount, .type = rtype};
    if (mode == TM_MPI_COLL_INIT)
        return MPI_SUCCESS;
    return tm_coll_allgather(r, c, call, in_place ? NULL : sendbuf, (size_t)sendcount, stype, &recv,
                             mode == TM_MPI_COLL_NONBLOCKING ? request : NULL);
}

static int allgatherv(const char *call, const void *sendbuf, MPI_Count sendcount,
                      MPI_Datatype sendtype, void *recvbuf, tm_coll_vec_t recvcounts,
                      tm_coll_vec_t displs, MPI_Datatype recvtype, MPI_Comm handle,
                      MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *stype = NULL, *rtype;
    bool in_place = sendbuf == MPI_IN_PLACE;
    int err = tm_mpi_comm_get(r, handle, call, &c);
    if (err == MPI_SUCCESS && tm_mpi_comm_is_inter(c))
        return tm_mpi_coll_inter_allgather(r, c, call, sendbuf, sendcount, sendtype, recvbuf, 0,
                                           recvcounts, displs, recvtype, request, mode);
    if (err != MPI_SUCCESS)
        return err;
    if (!displs.at && recvcounts.at)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "displs is NULL");
    MPI_Count some, all;
    err = tm_mpi_coll_check_counts(r, c, call, "recvcounts", recvcounts, c->size, &some, &all);
    /* All the blocks together must fit in memory, as recvbuf holds them. */
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_buffer(r, c, call, recvbuf, all, recvtype, &rtype);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_blocks(r, c, call, "recvcounts", recvcounts, "displs", displs,
                                       c->size, rtype->size, rtype->extent);
    if (err == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        err = tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                 "recvbuf is MPI_IN_PLACE (only sendbuf may be)");
    if (err == MPI_SUCCESS && !in_place)
        err = check_send(r, c, call, sendbuf, sendcount, sendtype, recvbuf,
                         (size_t)tm_coll_vec_get(recvcounts, c->rank) * rtype->size, &stype);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err != MPI_SUCCESS)
        return err;
    tm_coll_blocks_t recv = {.buf = recvbuf,
                             .counts = recvcounts,
                             .displs = displs,
                             .displ_unit = rtype->extent,
                             .type = rtype};
    if (mode == TM_MPI_COLL_INIT)
        return MPI_SUCCESS;
    return tm_coll_allgather(r, c, call, in_place ? NULL : sendbuf, (size_t)sendcount, stype, &recv,
                             mode == TM_MPI_COLL_NONBLOCKING ? request : NULL);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(ALLGATHER);
    return allgather("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                     comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Allgather = PMPI_Allgather

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(ALLGATHER);
    return allgather("MPI_Allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                     comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Allgather_c = PMPI_Allgather_c

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IALLGATHER);
    return allgather("MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                     comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Iallgather = PMPI_Iallgather

int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IALLGATHER);
    return allgather("MPI_Iallgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                     comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Iallgather_c = PMPI_Iallgather_c

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(ALLGATHERV);
    return allgatherv("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf,
                      tm_coll_vec_int(recvcounts), tm_coll_vec_int(displs), recvtype, comm, NULL,
                      TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Allgatherv = PMPI_Allgatherv

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(ALLGATHERV);
    return allgatherv("MPI_Allgatherv_c", sendbuf, sendcount, sendtype, recvbuf,
                      tm_coll_vec_count(recvcounts), tm_coll_vec_aint(displs), recvtype, comm, NULL,
                      TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Allgatherv_c = PMPI_Allgatherv_c

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IALLGATHERV);
    return allgatherv("MPI_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf,
                      tm_coll_vec_int(recvcounts), tm_coll_vec_int(displs), recvtype, comm, request,
                      TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv

int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IALLGATHERV);
    return allgatherv("MPI_Iallgatherv_c", sendbuf, sendcount, sendtype, recvbuf,
                      tm_coll_vec_count(recvcounts), tm_coll_vec_aint(displs), recvtype, comm,
                      request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Iallgatherv_c = PMPI_Iallgatherv_c

/* ---- the persistent forms (MPI-4.0; coll_persistent.c) ---- */

static int allgather_run(const char *call, const tm_mpi_coll_args_t *a, MPI_Request *request,
                         tm_mpi_coll_mode_t mode)
{
    return allgather(call, a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount,
                     a->recvtype, a->comm, request, mode);
}

int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcount = sendcount,
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcount = recvcount,
                            .recvtype = recvtype,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Allgather_init", allgather_run, &a, info, request);
}
#pragma weak MPI_Allgather_init = PMPI_Allgather_init

int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcount = sendcount,
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcount = recvcount,
                            .recvtype = recvtype,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Allgather_init_c", allgather_run, &a, info, request);
}
#pragma weak MPI_Allgather_init_c = PMPI_Allgather_init_c

static int allgatherv_run(const char *call, const tm_mpi_coll_args_t *a, MPI_Request *request,
                          tm_mpi_coll_mode_t mode)
{
    return allgatherv(call, a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcounts,
                      a->displs, a->recvtype, a->comm, request, mode);
}

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcount = sendcount,
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcounts = tm_coll_vec_int(recvcounts),
                            .displs = tm_coll_vec_int(displs),
                            .recvtype = recvtype,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Allgatherv_init", allgatherv_run, &a, info, request);
}
#pragma weak MPI_Allgatherv_init = PMPI_Allgatherv_init

int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                           MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcount = sendcount,
                            .sendtype = sendtype,
                            .recvbuf = recvbuf,
                            .recvcounts = tm_coll_vec_count(recvcounts),
                            .displs = tm_coll_vec_aint(displs),
                            .recvtype = recvtype,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Allgatherv_init_c", allgatherv_run, &a, info, request);
}
#pragma weak MPI_Allgatherv_init_c = PMPI_Allgatherv_init_c
