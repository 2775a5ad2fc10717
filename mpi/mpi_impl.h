/*
 * ThreadMPI mpi/: what the files of the MPI layer share.
 *
 * Status convention: functions whose name starts with tm_mpi_ return 0 or a negative errno value,
 * except the API-edge helpers that check the arguments of an MPI call (tm_mpi_comm_get,
 * tm_mpi_error_raise): they report what they find themselves and return the MPI error class that
 * the call must return.
 */
#ifndef TM_MPI_IMPL_H
#define TM_MPI_IMPL_H

/* Exactly the functions mpi.h declares leave the library (it is built with -fvisibility=hidden). */
#pragma GCC visibility push(default)
#include "mpi.h"
#pragma GCC visibility pop

#include "runtime/rank.h"

/* ------------------------------------------------------------------ handles
 *
 *   31  30  29 .. 26  25 .............. 0
 *  +---+---+---------+-------------------+
 *  | 0 | 1 |  kind   |      payload      |     payload 0: the null handle of the kind
 *  +---+---+---------+-------------------+
 *
 * Bit 30 makes 0 and small integers (uninitialized variables, ranks, counts) invalid handles.
 * Predefined datatypes: payload = size << 8 | index (size 0 for the pairs, which may have padding,
 * and for MPI_LB and MPI_UB).
 */
#define TM_MPI_HANDLE_TAG_MASK     0xc0000000u
#define TM_MPI_HANDLE_TAG          0x40000000u
#define TM_MPI_HANDLE_KIND_SHIFT   26
#define TM_MPI_HANDLE_KIND_MASK    0xfu
#define TM_MPI_HANDLE_PAYLOAD_MASK 0x03ffffffu

typedef enum tm_mpi_kind {
    TM_MPI_KIND_NONE = 0, /* not a handle */
    TM_MPI_KIND_COMM,
    TM_MPI_KIND_GROUP,
    TM_MPI_KIND_DATATYPE,
    TM_MPI_KIND_OP,
    TM_MPI_KIND_ERRHANDLER,
    TM_MPI_KIND_REQUEST,
    TM_MPI_KIND_INFO,
    TM_MPI_KIND_WIN,
    TM_MPI_KIND_FILE,
    TM_MPI_KIND_MESSAGE,
    TM_MPI_KIND_KEYVAL,
    TM_MPI_KIND_LAST = TM_MPI_KIND_KEYVAL
} tm_mpi_kind_t;

#define TM_MPI_HANDLE(kind, payload)                                                               \
    ((int)(TM_MPI_HANDLE_TAG | (unsigned)(kind) << TM_MPI_HANDLE_KIND_SHIFT | (unsigned)(payload)))

/* The kind of object `handle` refers to, or TM_MPI_KIND_NONE when it is not a handle at all. */
static inline tm_mpi_kind_t tm_mpi_handle_kind(int handle)
{
    unsigned h = (unsigned)handle;
    unsigned kind = (h >> TM_MPI_HANDLE_KIND_SHIFT) & TM_MPI_HANDLE_KIND_MASK;

    if ((h & TM_MPI_HANDLE_TAG_MASK) != TM_MPI_HANDLE_TAG || kind > TM_MPI_KIND_LAST)
        return TM_MPI_KIND_NONE;
    return (tm_mpi_kind_t)kind;
}

static inline unsigned tm_mpi_handle_payload(int handle)
{
    return (unsigned)handle & TM_MPI_HANDLE_PAYLOAD_MASK;
}

/* Bytes of one element of a predefined contiguous datatype, from its handle. */
#define TM_MPI_DATATYPE_BUILTIN_SIZE(type) ((((unsigned)(type)) >> 8) & 0xffu)

/* "a communicator", "a datatype", ...: what a handle of this kind designates, for messages. */
const char *tm_mpi_handle_kind_name(tm_mpi_kind_t kind);

/* ------------------------------------------------------------------ per-rank state */

typedef struct tm_mpi_rank tm_mpi_rank_t;

typedef struct tm_mpi_comm {
    tm_mpi_rank_t *owner; /* the rank this view of the communicator belongs to */
    MPI_Comm handle;
    const char *name; /* "MPI_COMM_WORLD", for messages */
    int rank;         /* of the owner in the communicator */
    int size;
    MPI_Errhandler errhandler; /* MPI_ERRORS_ARE_FATAL or MPI_ERRORS_RETURN */
} tm_mpi_comm_t;

/* A rank's MPI state: created by MPI_Init/MPI_Init_thread (rt->mpi points to it), destroyed by
 * MPI_Finalize (rt->mpi is NULL again). Only the rank's own thread touches it. */
struct tm_mpi_rank {
    tm_rt_rank_t *rt;
    tm_mpi_comm_t world;
    tm_mpi_comm_t self;
};

/* Creates the MPI state of rank `rt` and attaches it to rt->mpi. 0 or -ENOMEM. */
int tm_mpi_rank_create(tm_rt_rank_t *rt);

/* Frees the MPI state of `rt` and sets rt->mpi back to NULL. */
void tm_mpi_rank_destroy(tm_rt_rank_t *rt);

/* The calling rank, for MPI call `call`; when the caller is not a rank, reports the error and
 * ends the job (no error handler exists for a thread that is not a rank). */
tm_rt_rank_t *tm_mpi_rank_self(const char *call);

/* The MPI state of the calling rank, for MPI call `call` that needs MPI initialized and not
 * finalized. Otherwise (not called by a rank, before MPI_Init, after MPI_Finalize) reports the
 * error and ends the job: no error handler exists then. */
tm_mpi_rank_t *tm_mpi_rank_get(const char *call);

/* ------------------------------------------------------------------ communicators */

/* Resolves communicator handle `handle` for the calling rank `r`. On success sets *comm_p and
 * returns MPI_SUCCESS; otherwise sets *comm_p to NULL and reports MPI_ERR_COMM for `call`,
 * returning what the error handler returns. */
int tm_mpi_comm_get(tm_mpi_rank_t *r, MPI_Comm handle, const char *call, tm_mpi_comm_t **comm_p);

/* ------------------------------------------------------------------ errors */

/* "MPI_ERR_COMM" for MPI_ERR_COMM, ...; NULL if errclass is not an error class. */
const char *tm_mpi_error_class_name(int errclass);

/*
 * Reports error `errclass` detected in MPI call `call` by the calling rank `rt` (NULL when the
 * caller is not a rank), through the error handler of `comm`, or of MPI_COMM_WORLD when comm
 * is NULL. The message, printf-like, says what is wrong; it is printed as
 *     MPI_Comm_rank (rank 3): invalid communicator 0x4c000408 (MPI_ERR_COMM)
 * When MPI is not initialized for `rt` or `rt` is NULL, no handler exists: the error is fatal.
 * Returns errclass when the handler returns (MPI_ERRORS_RETURN).
 */
int tm_mpi_error_raise(tm_rt_rank_t *rt, tm_mpi_comm_t *comm, const char *call, int errclass,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The fatal path of tm_mpi_error_raise: prints the message and ends the job with exit status
 * errclass. */
_Noreturn void tm_mpi_error_fatal(tm_rt_rank_t *rt, const char *call, int errclass, const char *fmt,
                                  ...) __attribute__((format(printf, 4, 5)));

#endif /* TM_MPI_IMPL_H */
