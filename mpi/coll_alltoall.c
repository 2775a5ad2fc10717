/*
 * MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw and their non-blocking and persistent forms.
 *
 * MPI_IN_PLACE (sendbuf): the data to send is taken from recvbuf, with the receive counts,
 * displacements and types, and the send arguments are ignored; the algorithm stages what it
 * would overwrite before sending it (the algorithms: coll/coll.c).
 */
#include "config.h"

#include <stdlib.h>

#include "coll.h"
#include "coll/blocks.h"

/* The names of one side's arrays, in errors. */
typedef struct side_names {
    const char *counts, *displs, *types;
} side_names_t;

static const side_names_t send_names = {"sendcounts", "sdispls", "sendtypes"};
static const side_names_t recv_names = {"recvcounts", "rdispls", "recvtypes"};

/* Counts and displacements of one side of alltoallv/w: present, counts >= 0. *some_p: a count
 * > 0 if any (to check the buffer against), else 0. */
static int check_counts(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                        const side_names_t *names, tm_coll_vec_t counts, tm_coll_vec_t displs,
                        MPI_Count *some_p)
{
    if (counts.at && !displs.at)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "%s is NULL", names->displs);
    return tm_mpi_coll_check_counts(r, c, call, names->counts, counts, c->size, some_p, NULL);
}

/* One side of alltoallv: its counts, displacements (in extents of the type) and buffer; sets
 * *type_p. */
static int check_v(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const side_names_t *names,
                   const void *buf, tm_coll_vec_t counts, tm_coll_vec_t displs, MPI_Datatype handle,
                   tm_mpi_type_t **type_p, MPI_Count *some_p)
{
    int err = check_counts(r, c, call, names, counts, displs, some_p);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_buffer(r, c, call, buf, *some_p, handle, type_p);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_blocks(r, c, call, names->counts, counts, names->displs, displs,
                                       c->size, (*type_p)->size, (*type_p)->extent);
    return err;
}

/* One side of alltoallw: counts, displacements (in bytes, which need no check) and a committed
 * type per peer, a buffer unless no block has data; fills types[]. *data_p: some block has
 * data. */
static int check_w(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, const side_names_t *names,
                   const void *buf, tm_coll_vec_t counts, tm_coll_vec_t displs,
                   const MPI_Datatype *handles, tm_mpi_type_t **types, bool *data_p)
{
    MPI_Count some;
    int err = check_counts(r, c, call, names, counts, displs, &some);
    if (err != MPI_SUCCESS)
        return err;
    if (!handles)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "%s is NULL", names->types);
    *data_p = false;
    for (int j = 0; j < c->size; j++) {
        MPI_Count count = tm_coll_vec_get(counts, j);
        /* Also refuses a count whose bytes are more than memory can hold. */
        if ((err = tm_mpi_coll_check_buffer(r, c, call, buf, count, handles[j], &types[j])) !=
            MPI_SUCCESS)
            return err;
        *data_p |= count > 0 && types[j]->size > 0;
    }
    return MPI_SUCCESS;
}

static int alltoall(const char *call, const void *sendbuf, MPI_Count sendcount,
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
        return tm_mpi_coll_inter_alltoall(
            r, c, call, sendbuf, sendcount, TM_COLL_VEC_NONE, TM_COLL_VEC_NONE, sendtype, NULL,
            recvbuf, recvcount, TM_COLL_VEC_NONE, TM_COLL_VEC_NONE, recvtype, NULL, request, mode);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_buffer(r, c, call, recvbuf, recvcount, recvtype, &rtype);
    if (err == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        err = tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                 "recvbuf is MPI_IN_PLACE (only sendbuf may be)");
    if (err == MPI_SUCCESS && !in_place)
        err = tm_mpi_coll_check_buffer(r, c, call, sendbuf, sendcount, sendtype, &stype);
    if (err == MPI_SUCCESS && !in_place)
        err = tm_mpi_coll_check_own_block(r, c, call, sendbuf, (size_t)sendcount * stype->size,
                                          recvbuf, (size_t)recvcount * rtype->size,
                                          sendcount > 0 && stype->size > 0);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err != MPI_SUCCESS)
        return err;
    tm_coll_blocks_t send = {.buf = (void *)sendbuf, .count = (size_t)sendcount, .type = stype};
    tm_coll_blocks_t recv = {.buf = recvbuf, .count = (size_t)recvcount, .type = rtype};
    if (mode == TM_MPI_COLL_INIT)
        return MPI_SUCCESS;
    return tm_coll_alltoall(r, c, call, in_place ? NULL : &send, &recv,
                            mode == TM_MPI_COLL_NONBLOCKING ? request : NULL);
}

static int alltoallv(const char *call, const void *sendbuf, tm_coll_vec_t sendcounts,
                     tm_coll_vec_t sdispls, MPI_Datatype sendtype, void *recvbuf,
                     tm_coll_vec_t recvcounts, tm_coll_vec_t rdispls, MPI_Datatype recvtype,
                     MPI_Comm handle, MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *stype = NULL, *rtype;
    bool in_place = sendbuf == MPI_IN_PLACE;
    MPI_Count some;
    int err = tm_mpi_comm_get(r, handle, call, &c);
    if (err == MPI_SUCCESS && tm_mpi_comm_is_inter(c))
        return tm_mpi_coll_inter_alltoall(r, c, call, sendbuf, 0, sendcounts, sdispls, sendtype,
                                          NULL, recvbuf, 0, recvcounts, rdispls, recvtype, NULL,
                                          request, mode);
    if (err == MPI_SUCCESS)
        err =
            check_v(r, c, call, &recv_names, recvbuf, recvcounts, rdispls, recvtype, &rtype, &some);
    if (err == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        err = tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                 "recvbuf is MPI_IN_PLACE (only sendbuf may be)");
    if (err == MPI_SUCCESS && !in_place)
        err =
            check_v(r, c, call, &send_names, sendbuf, sendcounts, sdispls, sendtype, &stype, &some);
    if (err == MPI_SUCCESS && !in_place)
        err = tm_mpi_coll_check_own_block(
            r, c, call, sendbuf, (size_t)tm_coll_vec_get(sendcounts, c->rank) * stype->size,
            recvbuf, (size_t)tm_coll_vec_get(recvcounts, c->rank) * rtype->size,
            some > 0 && stype->size > 0);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err != MPI_SUCCESS)
        return err;
    tm_coll_blocks_t send = {.buf = (void *)sendbuf,
                             .counts = sendcounts,
                             .displs = sdispls,
                             .displ_unit = stype ? stype->extent : 0,
                             .type = stype};
    tm_coll_blocks_t recv = {.buf = recvbuf,
                             .counts = recvcounts,
                             .displs = rdispls,
                             .displ_unit = rtype->extent,
                             .type = rtype};
    if (mode == TM_MPI_COLL_INIT)
        return MPI_SUCCESS;
    return tm_coll_alltoall(r, c, call, in_place ? NULL : &send, &recv,
                            mode == TM_MPI_COLL_NONBLOCKING ? request : NULL);
}

static int alltoallw(const char *call, const void *sendbuf, tm_coll_vec_t sendcounts,
                     tm_coll_vec_t sdispls, const MPI_Datatype sendtypes[], void *recvbuf,
                     tm_coll_vec_t recvcounts, tm_coll_vec_t rdispls,
                     const MPI_Datatype recvtypes[], MPI_Comm handle, MPI_Request *request,
                     tm_mpi_coll_mode_t mode)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    bool in_place = sendbuf == MPI_IN_PLACE, sdata, rdata;
    int err = tm_mpi_comm_get(r, handle, call, &c);
    if (err == MPI_SUCCESS && tm_mpi_comm_is_inter(c))
        return tm_mpi_coll_inter_alltoall(r, c, call, sendbuf, 0, sendcounts, sdispls,
                                          MPI_DATATYPE_NULL, sendtypes, recvbuf, 0, recvcounts,
                                          rdispls, MPI_DATATYPE_NULL, recvtypes, request, mode);
    if (err != MPI_SUCCESS)
        return err;
    /* The resolved types, send side then receive side. */
    tm_mpi_type_t **types = malloc(2 * (size_t)c->size * sizeof *types);
    if (!types)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
    tm_mpi_type_t **stypes = types, **rtypes = types + c->size;
    err = check_w(r, c, call, &recv_names, recvbuf, recvcounts, rdispls, recvtypes, rtypes, &rdata);
    if (err == MPI_SUCCESS && recvbuf == MPI_IN_PLACE)
        err = tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                 "recvbuf is MPI_IN_PLACE (only sendbuf may be)");
    if (err == MPI_SUCCESS && !in_place)
        err = check_w(r, c, call, &send_names, sendbuf, sendcounts, sdispls, sendtypes, stypes,
                      &sdata);
    if (err == MPI_SUCCESS && !in_place)
        err = tm_mpi_coll_check_own_block(
            r, c, call, sendbuf,
            (size_t)tm_coll_vec_get(sendcounts, c->rank) * stypes[c->rank]->size, recvbuf,
            (size_t)tm_coll_vec_get(recvcounts, c->rank) * rtypes[c->rank]->size, sdata);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err != MPI_SUCCESS) {
        free(types);
        return err;
    }
    tm_coll_blocks_t send = {.buf = (void *)sendbuf,
                             .counts = sendcounts,
                             .displs = sdispls,
                             .displ_unit = 1,
                             .types = stypes};
    tm_coll_blocks_t recv = {
        .buf = recvbuf, .counts = recvcounts, .displs = rdispls, .displ_unit = 1, .types = rtypes};
    if (mode != TM_MPI_COLL_INIT)
        err = tm_coll_alltoall(r, c, call, in_place ? NULL : &send, &recv,
                               mode == TM_MPI_COLL_NONBLOCKING ? request : NULL);
    free(types); /* the schedule holds its own references to the types */
    return err;
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(ALLTOALL);
    return alltoall("MPI_Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                    comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Alltoall = PMPI_Alltoall

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(ALLTOALL);
    return alltoall("MPI_Alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                    comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Alltoall_c = PMPI_Alltoall_c

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IALLTOALL);
    return alltoall("MPI_Ialltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                    comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ialltoall = PMPI_Ialltoall

int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IALLTOALL);
    return alltoall("MPI_Ialltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                    comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ialltoall_c = PMPI_Ialltoall_c

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(ALLTOALLV);
    return alltoallv("MPI_Alltoallv", sendbuf, tm_coll_vec_int(sendcounts),
                     tm_coll_vec_int(sdispls), sendtype, recvbuf, tm_coll_vec_int(recvcounts),
                     tm_coll_vec_int(rdispls), recvtype, comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Alltoallv = PMPI_Alltoallv

int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(ALLTOALLV);
    return alltoallv("MPI_Alltoallv_c", sendbuf, tm_coll_vec_count(sendcounts),
                     tm_coll_vec_aint(sdispls), sendtype, recvbuf, tm_coll_vec_count(recvcounts),
                     tm_coll_vec_aint(rdispls), recvtype, comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Alltoallv_c = PMPI_Alltoallv_c

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IALLTOALLV);
    return alltoallv("MPI_Ialltoallv", sendbuf, tm_coll_vec_int(sendcounts),
                     tm_coll_vec_int(sdispls), sendtype, recvbuf, tm_coll_vec_int(recvcounts),
                     tm_coll_vec_int(rdispls), recvtype, comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv

int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IALLTOALLV);
    return alltoallv("MPI_Ialltoallv_c", sendbuf, tm_coll_vec_count(sendcounts),
                     tm_coll_vec_aint(sdispls), sendtype, recvbuf, tm_coll_vec_count(recvcounts),
                     tm_coll_vec_aint(rdispls), recvtype, comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ialltoallv_c = PMPI_Ialltoallv_c

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(ALLTOALLW);
    return alltoallw("MPI_Alltoallw", sendbuf, tm_coll_vec_int(sendcounts),
                     tm_coll_vec_int(sdispls), sendtypes, recvbuf, tm_coll_vec_int(recvcounts),
                     tm_coll_vec_int(rdispls), recvtypes, comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Alltoallw = PMPI_Alltoallw

int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(ALLTOALLW);
    return alltoallw("MPI_Alltoallw_c", sendbuf, tm_coll_vec_count(sendcounts),
                     tm_coll_vec_aint(sdispls), sendtypes, recvbuf, tm_coll_vec_count(recvcounts),
                     tm_coll_vec_aint(rdispls), recvtypes, comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Alltoallw_c = PMPI_Alltoallw_c

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IALLTOALLW);
    return alltoallw("MPI_Ialltoallw", sendbuf, tm_coll_vec_int(sendcounts),
                     tm_coll_vec_int(sdispls), sendtypes, recvbuf, tm_coll_vec_int(recvcounts),
                     tm_coll_vec_int(rdispls), recvtypes, comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw

int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                      MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IALLTOALLW);
    return alltoallw("MPI_Ialltoallw_c", sendbuf, tm_coll_vec_count(sendcounts),
                     tm_coll_vec_aint(sdispls), sendtypes, recvbuf, tm_coll_vec_count(recvcounts),
                     tm_coll_vec_aint(rdispls), recvtypes, comm, request, TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ialltoallw_c = PMPI_Ialltoallw_c

/* ---- the persistent forms (MPI-4.0; coll_persistent.c) ---- */

static int alltoall_run(const char *call, const tm_mpi_coll_args_t *a, MPI_Request *request,
                        tm_mpi_coll_mode_t mode)
{
    return alltoall(call, a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount,
                    a->recvtype, a->comm, request, mode);
}

int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
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
    return tm_mpi_coll_init("MPI_Alltoall_init", alltoall_run, &a, info, request);
}
#pragma weak MPI_Alltoall_init = PMPI_Alltoall_init

int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
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
    return tm_mpi_coll_init("MPI_Alltoall_init_c", alltoall_run, &a, info, request);
}
#pragma weak MPI_Alltoall_init_c = PMPI_Alltoall_init_c

static int alltoallv_run(const char *call, const tm_mpi_coll_args_t *a, MPI_Request *request,
                         tm_mpi_coll_mode_t mode)
{
    return alltoallv(call, a->sendbuf, a->sendcounts, a->sdispls, a->sendtype, a->recvbuf,
                     a->recvcounts, a->rdispls, a->recvtype, a->comm, request, mode);
}

int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
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
    return tm_mpi_coll_init("MPI_Alltoallv_init", alltoallv_run, &a, info, request);
}
#pragma weak MPI_Alltoallv_init = PMPI_Alltoallv_init

int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
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
    return tm_mpi_coll_init("MPI_Alltoallv_init_c", alltoallv_run, &a, info, request);
}
#pragma weak MPI_Alltoallv_init_c = PMPI_Alltoallv_init_c

static int alltoallw_run(const char *call, const tm_mpi_coll_args_t *a, MPI_Request *request,
                         tm_mpi_coll_mode_t mode)
{
    return alltoallw(call, a->sendbuf, a->sendcounts, a->sdispls, a->sendtypes, a->recvbuf,
                     a->recvcounts, a->rdispls, a->recvtypes, a->comm, request, mode);
}

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .sendcounts = tm_coll_vec_int(sendcounts),
                            .sdispls = tm_coll_vec_int(sdispls),
                            .sendtypes = sendtypes,
                            .recvbuf = recvbuf,
                            .recvcounts = tm_coll_vec_int(recvcounts),
                            .rdispls = tm_coll_vec_int(rdispls),
                            .recvtypes = recvtypes,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Alltoallw_init", alltoallw_run, &a, info, request);
}
#pragma weak MPI_Alltoallw_init = PMPI_Alltoallw_init

int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
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
    return tm_mpi_coll_init("MPI_Alltoallw_init_c", alltoallw_run, &a, info, request);
}
#pragma weak MPI_Alltoallw_init_c = PMPI_Alltoallw_init_c
