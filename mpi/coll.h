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
                             const void *buf, MPI_Count count, MPI_Datatype type,
                             tm_mpi_type_t **type_p);

/* One side of a rooted collective that may be MPI_IN_PLACE at the root only (gather's sendbuf,
 * scatter's recvbuf, named by `name`): MPI_SUCCESS with *type_p NULL when in place, else a
 * buffer of (count, type). */
int tm_mpi_coll_check_root_side(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                                const char *name, const void *buf, MPI_Count count,
                                MPI_Datatype type, bool at_root, tm_mpi_type_t **type_p);

/* The calling rank's own block, from sendbuf to recvbuf (not in place): it must fit, and the
 * buffers must differ when there is data (one address is allowed as MPI_BOTTOM, from which
 * derived types reach different places). */
int tm_mpi_coll_check_own_block(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                                const void *sendbuf, size_t sendbytes, const void *recvbuf,
                                size_t recvbytes, bool any_data);

/* The blocking collectives as another MPI call makes them on a communicator of its own (the
 * file calls, mpi/file*.c, on their duplicate): named `call` in errors, hang notes and mismatch
 * reports, and not counted by the profiler as calls of the program. */
int tm_mpi_coll_barrier(const char *call, MPI_Comm comm);
int tm_mpi_coll_bcast(const char *call, void *buf, MPI_Count count, MPI_Datatype type, int root,
                      MPI_Comm comm);
int tm_mpi_coll_allreduce(const char *call, const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int tm_mpi_coll_exscan(const char *call, const void *sendbuf, void *recvbuf, MPI_Count count,
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm);

/* An array of n counts of a v or w call, `name` in errors: present, each >= 0, their sum an
 * MPI_Count (else MPI_ERR_COUNT). *some_p: a count > 0 if any, else 0 (the count to check the
 * buffer against); *sum_p, unless NULL: their sum. */
int tm_mpi_coll_check_counts(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                             const char *name, tm_coll_vec_t counts, int n, MPI_Count *some_p,
                             MPI_Count *sum_p);

/* The n blocks of one side of a v call, whose counts are >= 0 (tm_mpi_coll_check_counts): the
 * bytes of each, counts[j] elements of `size` bytes, fit in memory (else MPI_ERR_COUNT), and the
 * byte offset of each, displs[j] x unit, is an MPI_Aint (else MPI_ERR_ARG). Nothing to do, and
 * done at once, for int arrays and an element and unit of at most INT_MAX bytes. */
int tm_mpi_coll_check_blocks(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                             const char *counts_name, tm_coll_vec_t counts, const char *displs_name,
                             tm_coll_vec_t displs, int n, size_t size, MPI_Aint unit);

/* A root in [0, size). */
int tm_mpi_coll_check_root(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call, int root);

/* How a collective call runs: blocking, non-blocking (MPI_I...), or not yet: MPI_..._init
 * (MPI-4.0) checks its arguments and keeps them in a persistent request, each MPI_Start of which
 * runs the collective as a non-blocking one. */
typedef enum tm_mpi_coll_mode {
    TM_MPI_COLL_BLOCKING,
    TM_MPI_COLL_NONBLOCKING,
    TM_MPI_COLL_INIT,
} tm_mpi_coll_mode_t;

/* The request pointer of a call that makes a request (any mode but blocking). */
int tm_mpi_coll_check_request(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call,
                              const MPI_Request *request, tm_mpi_coll_mode_t mode);

/* ---- on intercommunicators (coll_inter.c): each call's arguments, checked as the standard
 * reads them there, then its algorithm (coll/inter.c) ---- */

int tm_mpi_coll_inter_barrier(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                              MPI_Request *request, tm_mpi_coll_mode_t mode);
int tm_mpi_coll_inter_bcast(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, void *buf,
                            MPI_Count count, MPI_Datatype datatype, int root, MPI_Request *request,
                            tm_mpi_coll_mode_t mode);
/* The v and w forms pass their arrays, the others none (TM_COLL_VEC_NONE counts and displs,
 * NULL types). */
int tm_mpi_coll_inter_gather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                             const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, tm_coll_vec_t recvcounts,
                             tm_coll_vec_t displs, MPI_Datatype recvtype, int root,
                             MPI_Request *request, tm_mpi_coll_mode_t mode);
int tm_mpi_coll_inter_scatter(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                              const void *sendbuf, MPI_Count sendcount, tm_coll_vec_t sendcounts,
                              tm_coll_vec_t displs, MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, int root,
                              MPI_Request *request, tm_mpi_coll_mode_t mode);
int tm_mpi_coll_inter_allgather(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                                const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, MPI_Count recvcount, tm_coll_vec_t recvcounts,
                                tm_coll_vec_t displs, MPI_Datatype recvtype, MPI_Request *request,
                                tm_mpi_coll_mode_t mode);
int tm_mpi_coll_inter_alltoall(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                               const void *sendbuf, MPI_Count sendcount, tm_coll_vec_t sendcounts,
                               tm_coll_vec_t sdispls, MPI_Datatype sendtype,
                               const MPI_Datatype *sendtypes, void *recvbuf, MPI_Count recvcount,
                               tm_coll_vec_t recvcounts, tm_coll_vec_t rdispls,
                               MPI_Datatype recvtype, const MPI_Datatype *recvtypes,
                               MPI_Request *request, tm_mpi_coll_mode_t mode);
int tm_mpi_coll_inter_reduce(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                             const void *sendbuf, void *recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op_handle, int root,
                             MPI_Request *request, tm_mpi_coll_mode_t mode);
int tm_mpi_coll_inter_allreduce(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call,
                                const void *sendbuf, void *recvbuf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Op op_handle, MPI_Request *request,
                                tm_mpi_coll_mode_t mode);

/* ---- persistent collectives (coll_persistent.c) ---- */

/* The arguments of a persistent collective, as its init call took them (the fields of its kind;
 * the others zero). */
typedef struct tm_mpi_coll_args {
    void *buffer; /* MPI_Bcast's */
    const void *sendbuf;
    void *recvbuf;
    MPI_Count count, sendcount, recvcount; /* the _c forms' too */
    int root;
    /* The v and w forms' arrays as the program passed them: ints, or MPI_Count and MPI_Aint */
    tm_coll_vec_t sendcounts, recvcounts, displs, sdispls, rdispls;
    MPI_Datatype datatype, sendtype, recvtype;
    const MPI_Datatype *sendtypes, *recvtypes;
    MPI_Op op;
    MPI_Comm comm;
} tm_mpi_coll_args_t;

/* Runs collective `call` with arguments a in `mode`: TM_MPI_COLL_INIT checks them,
 * TM_MPI_COLL_NONBLOCKING starts the collective. */
typedef int (*tm_mpi_coll_run_fn)(const char *call, const tm_mpi_coll_args_t *a,
                                  MPI_Request *request, tm_mpi_coll_mode_t mode);

/* MPI_..._init: checks a with run, and info, then sets *request to a new persistent request that
 * keeps a copy of a. Arrays and buffers it points to are the program's, to keep until the request
 * is freed. */
int tm_mpi_coll_init(const char *call, tm_mpi_coll_run_fn run, const tm_mpi_coll_args_t *a,
                     MPI_Info info, MPI_Request *request);

/* MPI_Start of persistent collective request p (persist.c): the collective of this activation,
 * a non-blocking one under p's call, which completes through p. */
int tm_mpi_coll_start(tm_mpi_rank_t *r, tm_p2p_request_t *p);

#endif /* TM_MPI_COLL_H */
