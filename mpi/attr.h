/*
 * ThreadMPI mpi/: communicator and datatype attributes, for the files of the MPI layer that
 * create and free communicators (MPI_Comm_dup, MPI_Comm_free) and datatypes (MPI_Type_dup,
 * MPI_Type_free).
 *
 * A communicator view (tm_mpi_comm_t) keeps its attributes in a list, the most recently set
 * first; each holds a reference to its keyval, so a keyval freed by the program lives on until
 * its last attribute is deleted. Keyvals and attributes belong to one rank: no locks.
 */
#ifndef TM_MPI_ATTR_H
#define TM_MPI_ATTR_H

#include "mpi_impl.h"
#include "obj/datatype.h"

/*
 * For MPI_Comm_dup: calls the copy callback of each attribute of src, in the order they were
 * set, with src's handle, and attaches to dst the values whose callback set its flag (keyvals
 * created with MPI_COMM_NULL_COPY_FN are not copied). Returns MPI_SUCCESS, or the first code a
 * callback returned other than MPI_SUCCESS (MPI_ERR_NO_MEM when out of memory), unreported: dst
 * then holds the attributes copied so far, for tm_mpi_attr_delete_all. dst's handle must be set.
 */
int tm_mpi_attr_copy_all(tm_mpi_comm_t *src, tm_mpi_comm_t *dst);

/*
 * For MPI_Comm_free: deletes the attributes of comm, the most recently set first, calling their
 * delete callbacks. Stops at the first callback that fails and returns its code (unreported),
 * leaving that attribute and the older ones attached; MPI_SUCCESS when all are gone.
 */
int tm_mpi_attr_delete_all(tm_mpi_comm_t *comm);

/* For MPI_Type_dup: as tm_mpi_attr_copy_all, from type src (handle src_handle) to dst (whose
 * handle is set), for rank r. */
int tm_mpi_attr_type_copy_all(tm_mpi_rank_t *r, tm_mpi_type_t *src, MPI_Datatype src_handle,
                              tm_mpi_type_t *dst);

/* For MPI_Type_free: as tm_mpi_attr_delete_all, for type t of handle `handle`. */
int tm_mpi_attr_type_delete_all(tm_mpi_rank_t *r, tm_mpi_type_t *t, MPI_Datatype handle);

/* At MPI_Finalize: deletes the attributes of comm, calling every delete callback whatever
 * they return. */
void tm_mpi_attr_comm_fini(tm_mpi_comm_t *comm);

/* At MPI_Finalize: deletes the attributes of MPI_COMM_SELF (as MPI 3.1, 8.7.1 requires), then of
 * MPI_COMM_WORLD, calling every delete callback whatever they return, then frees r's keyvals. */
void tm_mpi_attr_rank_fini(tm_mpi_rank_t *r);

#endif /* TM_MPI_ATTR_H */
