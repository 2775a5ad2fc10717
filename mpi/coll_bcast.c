/*
 * MPI_Bcast, MPI_Ibcast, MPI_Bcast_init (the algorithms: coll/coll.c).
 */
#include "config.h"

#include "coll.h"

static int bcast(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype, int root,
                 MPI_Comm handle, MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    tm_mpi_type_t *type;
    int err = tm_mpi_comm_get(r, handle, call, &c);
    if (err == MPI_SUCCESS && tm_mpi_comm_is_inter(c))
        return tm_mpi_coll_inter_bcast(r, c, call, buf, count, datatype, root, request, mode);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_buffer(r, c, call, buf, count, datatype, &type);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_root(r, c, call, root);
    if (err == MPI_SUCCESS)
        err = tm_mpi_coll_check_request(r, c, call, request, mode);
    if (err != MPI_SUCCESS)
        return err;
    if (mode == TM_MPI_COLL_INIT)
        return MPI_SUCCESS;
    return tm_coll_bcast(r, c, call, buf, (size_t)count, type, root,
                         mode == TM_MPI_COLL_NONBLOCKING ? request : NULL);
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(BCAST);
    return bcast("MPI_Bcast", buffer, count, datatype, root, comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Bcast = PMPI_Bcast

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    TM_MPI_PROFILE_CALL(BCAST);
    return bcast("MPI_Bcast_c", buffer, count, datatype, root, comm, NULL, TM_MPI_COLL_BLOCKING);
}
#pragma weak MPI_Bcast_c = PMPI_Bcast_c

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IBCAST);
    return bcast("MPI_Ibcast", buffer, count, datatype, root, comm, request,
                 TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ibcast = PMPI_Ibcast

int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    TM_MPI_PROFILE_CALL(IBCAST);
    return bcast("MPI_Ibcast_c", buffer, count, datatype, root, comm, request,
                 TM_MPI_COLL_NONBLOCKING);
}
#pragma weak MPI_Ibcast_c = PMPI_Ibcast_c

int tm_mpi_coll_bcast(const char *call, void *buf, MPI_Count count, MPI_Datatype type, int root,
                      MPI_Comm comm)
{
    return bcast(call, buf, count, type, root, comm, NULL, TM_MPI_COLL_BLOCKING);
}

/* ---- the persistent forms (MPI-4.0; coll_persistent.c) ---- */

static int bcast_run(const char *call, const tm_mpi_coll_args_t *a, MPI_Request *request,
                     tm_mpi_coll_mode_t mode)
{
    return bcast(call, a->buffer, a->count, a->datatype, a->root, a->comm, request, mode);
}

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {
        .buffer = buffer, .count = count, .datatype = datatype, .root = root, .comm = comm};
    return tm_mpi_coll_init("MPI_Bcast_init", bcast_run, &a, info, request);
}
#pragma weak MPI_Bcast_init = PMPI_Bcast_init

int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request)
{
    tm_mpi_coll_args_t a = {
        .buffer = buffer, .count = count, .datatype = datatype, .root = root, .comm = comm};
    return tm_mpi_coll_init("MPI_Bcast_init_c", bcast_run, &a, info, request);
}
#pragma weak MPI_Bcast_init_c = PMPI_Bcast_init_c
