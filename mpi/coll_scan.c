/*
 * MPI_Scan, MPI_Exscan and their non-blocking and persistent forms: prefix reductions in rank order
 * (the algorithms: coll/coll.c).
 */
#include "config.h"

#include "coll.h"

static int scan(const char *call, const void *sendbuf, void *recvbuf, MPI_Count count,
                MPI_Datatype datatype, MPI_Op op_handle, MPI_Comm handle, MPI_Request *request,
                bool exclusive, tm_mpi_coll_mode_t mode)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *type;
    tm_mpi_op_t *op;
    bool in_place = sendbuf == MPI_IN_PLACE;
    int err = tm_mpi_comm_get_intra(r, handle, call, &c);
    if (err != MPI_SUCCESS)
        return err;
    /* Exscan: rank 0's recvbuf is not significant, unless it holds the data (in place). */
    bool recv_significant = !exclusive || c->rank != 0 || in_place;
    if (recvbuf == MPI_IN_PLACE)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER, "recvbuf is MPI_IN_PLACE");
    /* The data is in sendbuf, or in recvbuf in place. */
    err =
        tm_mpi_coll_check_buffer(r, c, call, in_place ? recvbuf : sendbuf, count, datatype, &type);
    if (err == MPI_SUCCESS && !in_place && recv_significant)
        err = tm_mpi_coll_check_buffer(r, c, call, recvbuf, count, datatype, &type);
    if (err == MPI_SUCCESS && !in_place && recv_significant && sendbuf == recvbuf && count > 0 &&
        type->size > 0)
        err = tm_mpi_error_raise(r->rt, c, call, MPI_ERR_BUFFER,
                                 "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
    if (err == MPI_SUCCESS)
        err = tm_mpi_op_get_for_type(r, c, op_handle, type, call, &op);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err != MPI_SUCCESS)
        return err;
    if (mode == TM_MPI_COLL_INIT)
        return MPI_SUCCESS;
    return tm_coll_scan(r, c, call, in_place ? recvbuf : sendbuf, recvbuf, (size_t)count, type, op,
                        exclusive, mode == TM_MPI_COLL_NONBLOCKING ? request : NULL);
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(SCAN);
    return scan("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, NULL, false,
                TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Scan = PMPI_Scan

int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(SCAN);
    return scan("MPI_Scan_c", sendbuf, recvbuf, count, datatype, op, comm, NULL, false,
                TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Scan_c = PMPI_Scan_c

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(ISCAN);
    return scan("MPI_Iscan", sendbuf, recvbuf, count, datatype, op, comm, request, false,
                TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Iscan = PMPI_Iscan

int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(ISCAN);
    return scan("MPI_Iscan_c", sendbuf, recvbuf, count, datatype, op, comm, request, false,
                TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Iscan_c = PMPI_Iscan_c

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(EXSCAN);
    return scan("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, NULL, true,
                TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Exscan = PMPI_Exscan

int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(EXSCAN);
    return scan("MPI_Exscan_c", sendbuf, recvbuf, count, datatype, op, comm, NULL, true,
                TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Exscan_c = PMPI_Exscan_c

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IEXSCAN);
    return scan("MPI_Iexscan", sendbuf, recvbuf, count, datatype, op, comm, request, true,
                TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Iexscan = PMPI_Iexscan

int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IEXSCAN);
    return scan("MPI_Iexscan_c", sendbuf, recvbuf, count, datatype, op, comm, request, true,
                TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Iexscan_c = PMPI_Iexscan_c

int tm_mpi_coll_exscan(const char *call, const void *sendbuf, void *recvbuf, MPI_Count count,
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return scan(call, sendbuf, recvbuf, count, type, op, comm, NULL, true, TM_MPI_COLL_BLOCKING);
}

/* ---- the persistent forms (MPI-4.0; coll_persistent.c) ---- */

static int scan_run(const char *call, const tm_mpi_coll_args_t *a, MPI_Request *request,
                    tm_mpi_coll_mode_t mode)
{
    return scan(call, a->sendbuf, a->recvbuf, a->count, a->datatype, a->op, a->comm, request, false,
                mode);
}

int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .recvbuf = recvbuf,
                            .count = count,
                            .datatype = datatype,
                            .op = op,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Scan_init", scan_run, &a, info, request);
}
#pragma weak MPI_Scan_init = PMPI_Scan_init

int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .recvbuf = recvbuf,
                            .count = count,
                            .datatype = datatype,
                            .op = op,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Scan_init_c", scan_run, &a, info, request);
}
#pragma weak MPI_Scan_init_c = PMPI_Scan_init_c

static int exscan_run(const char *call, const tm_mpi_coll_args_t *a, MPI_Request *request,
                      tm_mpi_coll_mode_t mode)
{
    return scan(call, a->sendbuf, a->recvbuf, a->count, a->datatype, a->op, a->comm, request, true,
                mode);
}

int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .recvbuf = recvbuf,
                            .count = count,
                            .datatype = datatype,
                            .op = op,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Exscan_init", exscan_run, &a, info, request);
}
#pragma weak MPI_Exscan_init = PMPI_Exscan_init

int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {.sendbuf = sendbuf,
                            .recvbuf = recvbuf,
                            .count = count,
                            .datatype = datatype,
                            .op = op,
                            .comm = comm};
    return tm_mpi_coll_init("MPI_Exscan_init_c", exscan_run, &a, info, request);
}
#pragma weak MPI_Exscan_init_c = PMPI_Exscan_init_c
