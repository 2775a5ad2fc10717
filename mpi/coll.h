/*
 * mpi/: what the collective calls share (coll.c): their argument checks. Each call then hands
 * its resolved arguments to its entry point in coll/ (coll/coll.h), which picks the algorithm.
 */
#ifndef TM_MPI_COLL_H
#define TM_MPI_COLL_H

#include "coll/coll.h"
#include "mpi_impl.h"
#include "obj/datatype.h"
#include "obj/op.h"

/* count >= 0, a committed datatype, a buffer unless there is no data; sets *type_p. */
int tm_mpi_coll_check_buffer(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                             const void *buf, int count, MPI_Datatype type, tm_mpi_type_t **type_p);

/* One side of a rooted collective that may be MPI_IN_PLACE at the root only (gather's sendbuf,
 * scatter's recvbuf, named by `name`): MPI_SUCCESS with *type_p NULL when in place, else a
 * buffer of (count, type). */
int tm_mpi_coll_check_root_side(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                                const char *name, const void *buf, int count, MPI_Datatype type,
                                bool at_root, tm_mpi_type_t **type_p);

/* The calling rank's own block, from sendbuf to recvbuf (not in place): it must fit, and the
 * buffers must differ when there is data (one address is allowed as MPI_BOTTOM, from which
 * derived types reach different places). */
int tm_mpi_coll_check_own_block(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                                const void *sendbuf, size_t sendbytes, const void *recvbuf,
                                size_t recvbytes, bool any_data);

/* A root in [0, size). */
int tm_mpi_coll_check_root(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call, int root);

/* A non-blocking call's request pointer (request_p may be NULL for a blocking call: no check). */
int tm_mpi_coll_check_request(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                              const MPI_Request *request, bool nonblocking);

#endif /* TM_MPI_COLL_H */
