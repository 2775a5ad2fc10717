/*
 * What the collective calls share: argument checks and running their schedules (coll.h).
 */
#include "config.h"

#include <limits.h>
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

int tm_mpi_coll_check_counts(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                             const char *name, tm_coll_vec_t counts, int n, MPI_Count *some_p,
                             MPI_Count *sum_p)
{
    if (!counts.at)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_ARG, "%s is NULL", name);
    MPI_Count some = 0, sum = 0;
    for (int j = 0; j < n; j++) {
        MPI_Count count = tm_coll_vec_get(counts, j);
        if (count < 0)
            return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_COUNT,
                                      "negative count %lld in %s[%d]", (long long)count, name, j);
        if (count > 0 && some == 0)
            some = count;
        if (__builtin_add_overflow(sum, count, &sum))
            return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_COUNT,
                                      "the counts of %s add up to more than an MPI_Count holds",
                                      name);
    }
    *some_p = some;
    if (sum_p)
        *sum_p = sum;
    return MPI_SUCCESS;
}

int tm_mpi_coll_check_blocks(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                             const char *counts_name, tm_coll_vec_t counts, const char *displs_name,
                             tm_coll_vec_t displs, int n, size_t size, MPI_Aint unit)
{
    /* Products of two numbers of at most INT_MAX stay below 2^62: the int forms' usual case. */
    if (counts.width == TM_COLL_VEC_INT && displs.width == TM_COLL_VEC_INT && size <= INT_MAX &&
        unit >= -INT_MAX && unit <= INT_MAX)
        return MPI_SUCCESS;
    for (int j = 0; j < n; j++) {
        MPI_Count count = tm_coll_vec_get(counts, j);
        size_t bytes;
        if (__builtin_mul_overflow((size_t)count, size, &bytes) || bytes > (size_t)PTRDIFF_MAX)
            return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_COUNT,
                                      "%s[%d] = %lld elements of %zu bytes are more than memory "
                                      "can hold",
                                      counts_name, j, (long long)count, size);
        MPI_Count displ = displs.at ? tm_coll_vec_get(displs, j) : 0;
        MPI_Aint offset;
        if (__builtin_mul_overflow(displ, unit, &offset))
            return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_ARG,
                                      "%s[%d] = %lld units of %lld bytes is an offset beyond "
                                      "MPI_Aint",
                                      displs_name, j, (long long)displ, (long long)unit);
    }
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
