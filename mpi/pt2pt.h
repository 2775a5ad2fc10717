/*
 * ThreadMPI mpi/: what the point-to-point calls share: their argument checks, buffered sends
 * (bsend.c) and generalized requests (greq.c).
 */
#ifndef TM_MPI_PT2PT_H
#define TM_MPI_PT2PT_H

#include "mpi_impl.h"
#include "p2p/p2p.h"

/* A message of MPI_Bsend, packed in the attached buffer until its send completes. */
typedef struct tm_mpi_bsend_region {
    size_t off, len; /* in the attached buffer; len counts MPI_BSEND_OVERHEAD */
    uint64_t seq;    /* the rank's buffered sends so far, before this one (MPI_Buffer_iflush) */
    tm_p2p_request_t *send;
    struct tm_mpi_bsend_region *next; /* by offset */
} tm_mpi_bsend_region_t;

/* MPI_Bsend's work: packs the message into the attached buffer and sends it from there; the send
 * request returned is internal (the caller's operation is complete). Returns the error class. */
int tm_mpi_bsend_start(tm_mpi_rank_t *r, const char *call, const void *buf, size_t count,
                       tm_mpi_type_t *type, size_t bytes, int dest, int tag, tm_mpi_comm_t *comm);

/* Waits for every buffered send to complete and forgets the attached buffer (MPI_Finalize). */
void tm_mpi_bsend_drain(tm_mpi_rank_t *r);

/* MPI_Cancel of an MPI_Ibsend's request `req`: cancels its buffered send if no receiver has
 * matched it yet (its region is then free), and says so in req's status. */
void tm_mpi_bsend_cancel(tm_mpi_rank_t *r, tm_p2p_request_t *req);

/* The argument checks of send and receive calls, in the order of their arguments; each reports
 * what it finds (through comm's handler) and returns the error class, or MPI_SUCCESS with the
 * communicator, the type and (sends) the bytes of data resolved. */
int tm_mpi_check_send(tm_mpi_rank_t *r, const char *call, const void *buf, MPI_Count count,
                      MPI_Datatype type, int dest, int tag, MPI_Comm handle, tm_mpi_comm_t **comm_p,
                      tm_mpi_type_t **type_p, size_t *bytes_p);
/* A tag to send with (`any` false) or to receive with (`any` true: MPI_ANY_TAG allowed). */
int tm_mpi_check_tag(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, const char *call, int tag, bool any);
int tm_mpi_check_recv(tm_mpi_rank_t *r, const char *call, void *buf, MPI_Count count,
                      MPI_Datatype type, int source, int tag, MPI_Comm handle,
                      tm_mpi_comm_t **comm_p, tm_mpi_type_t **type_p);

/* Reports request handle h, which names no request the call can take, as the program wrote it:
 * "the request is MPI_REQUEST_NULL" or "invalid request 0x...", then `what` (may be ""). Returns
 * MPI_ERR_REQUEST. */
int tm_mpi_bad_request(tm_mpi_rank_t *r, const char *call, MPI_Request h, const char *what);

/* ---- generalized requests (greq.c) ---- */

/* Completes generalized request req (complete) for a wait or test: its query function fills
 * *status (which may be MPI_STATUS_IGNORE), then its free function runs and req is released.
 * Returns the first error of the two callbacks. */
int tm_mpi_greq_retire(tm_mpi_rank_t *r, tm_p2p_request_t *req, MPI_Status *status);
/* MPI_Request_get_status on complete generalized request req: its query function's status and
 * error. */
int tm_mpi_greq_query(tm_p2p_request_t *req, MPI_Status *status);
/* MPI_Request_free of generalized request req: releases it now when complete (after its free
 * function), else once MPI_Grequest_complete has run the free function. Returns the free
 * function's error, or MPI_SUCCESS when it runs later. */
int tm_mpi_greq_free(tm_mpi_rank_t *r, tm_p2p_request_t *req);
/* MPI_Cancel of generalized request req: its cancel function's error. */
int tm_mpi_greq_cancel(tm_p2p_request_t *req);

#endif /* TM_MPI_PT2PT_H */
