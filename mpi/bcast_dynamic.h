/*
 * mpi/: what MPIX_Ibcast_dynamic (bcast_dynamic.c) shares with the send aggregation of
 * MPIX_Deferred_send_* (deferred_send.c).
 */
#ifndef TM_MPI_BCAST_DYNAMIC_H
#define TM_MPI_BCAST_DYNAMIC_H

#include "obj/datatype.h"
#include "mpi_impl.h"
#include "p2p/p2p.h"

/* Checks a destination list of a dynamic broadcast from the calling rank on comm: ndests >= 0,
 * dests not NULL when ndests > 0, ranks of comm, none twice, not the caller; MPI_PROC_NULL
 * entries are skipped. On success *list_p (malloc'd, the caller frees it) holds the *n_p
 * destinations in the order given. Returns the error class (reported). */
int tm_mpi_bcast_dynamic_check_dests(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                                     const int *dests, int ndests, int **list_p, int *n_p);

/* Starts the dynamic broadcast of (buf, count, type) to the n checked ranks `list` with `tag`;
 * *req_p completes when buf may be reused. Returns the error class (reported). */
int tm_mpi_bcast_dynamic_start(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                               const void *buf, size_t count, tm_mpi_type_t *type, const int *list,
                               int n, int tag, tm_p2p_request_t **req_p);

/* Frees the rank's MPIX_Deferred_send handles (MPI_Finalize). */
void tm_mpi_deferred_rank_fini(tm_mpi_rank_t *r);

#endif /* TM_MPI_BCAST_DYNAMIC_H */
