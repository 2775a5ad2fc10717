/*
 * What the collective calls share: argument checks and running their schedules (coll.h).
 */
#include "config.h"

#include <stdint.h>

#include "coll.h"
#include "p2p/p2p.h"

int tm_mpi_coll_check_buffer(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                             const void *buf, MPI_Count count, MPI_Datatype handle,
                             tm_mpi_type_t **type_p)
{
    int err;
    if (count < 0)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_COUNT, "negative count %lld",
                                  (long long)count);
    if ((err = tm_mpi_type_get(r, comm, handle, 1, call, type_p)) != MPI_SUCCESS)
        return err;
    if (buf == NULL && count > 0 && (*type_p)->predefined && (*type_p)->size > 0)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_BUFFER,
                                  "buffer is NULL for %lld elements", (long long)count);
    size_t bytes;
    if (__builtin_mul_overflow((size_t)count, (*type_p)->size, &bytes) ||
        bytes > (size_t)PTRDIFF_MAX)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_COUNT,
                                  "%lld elements of %zu bytes are more than memory can hold",
                                  (long long)count, (*type_p)->size);
    return MPI_SUCCESS;
}

int tm_mpi_coll_check_root_side(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                                const char *name, const void *buf, MPI_Count count,
                                MPI_Datatype type, bool at_root, tm_mpi_type_t **type_p)
{
    *type_p = NULL;
    if (buf != MPI_IN_PLACE)
        return tm_mpi_coll_check_buffer(r, comm, call, buf, count, type, type_p);
    if (at_root)
        return MPI_SUCCESS;
    return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_BUFFER,
                              "%s is MPI_IN_PLACE at rank %d, which is not the root", name,
                              comm->rank);
}

int tm_mpi_coll_check_own_block(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                                const void *sendbuf, size_t sendbytes, const void *recvbuf,
                                size_t recvbytes, bool any_data)
{
    if (sendbytes > recvbytes)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_TRUNCATE,
                                  "rank %d sends itself %zu bytes into a block of %zu", comm->rank,
                                  sendbytes, recvbytes);
    if (sendbuf == recvbuf && sendbuf != MPI_BOTTOM && any_data)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_BUFFER,
                                  "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
    return MPI_SUCCESS;
}

int tm_mpi_coll_check_root(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call, int root)
{
    if (root >= 0 && root < comm->size)
        return MPI_SUCCESS;
    return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_ROOT, "invalid root %d in %s of size %d",
                              root, comm->name, comm->size);
}

int tm_mpi_coll_check_request(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                              const MPI_Request *request, tm_mpi_coll_mode_t mode)
{
    if (mode == TM_MPI_COLL_BLOCKING || request)
        return MPI_SUCCESS;
    return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_ARG, "request is NULL");
}
