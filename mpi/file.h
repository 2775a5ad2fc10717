/*
 * ThreadMPI mpi/: what the files of the MPI-IO calls share (file.c: opening, closing, sizes,
 * views, hints, error handlers; file_access.c: reading and writing). The files themselves are
 * io/'s (io/io.h).
 */
#ifndef TM_MPI_FILE_H
#define TM_MPI_FILE_H

#include "io/io.h"
#include "mpi_impl.h"

/* File handles: MPI_FILE_NULL (payload 0), then index in the rank's `files` table + 1. */
#define TM_MPI_FILE_FIRST_PAYLOAD 1

/* Resolves file handle `handle` for r. On success sets *f_p and returns MPI_SUCCESS; otherwise
 * reports MPI_ERR_FILE for `call` through MPI_FILE_NULL's handler and returns what it returns. */
int tm_mpi_file_get(tm_mpi_rank_t *r, MPI_File handle, const char *call, tm_io_file_t **f_p);

/* Reports error `errclass` of `call` on file f through its error handler (printf-like message,
 * as tm_mpi_error_raise). */
int tm_mpi_file_error(tm_io_file_t *f, const char *call, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The same through MPI_FILE_NULL's handler: the errors of calls that have no file yet. */
int tm_mpi_file_null_error(tm_mpi_rank_t *r, const char *call, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The I/O error class of errno value err (positive). */
int tm_mpi_file_errno_class(int err);

/* Frees the files r's program left open (at MPI_Finalize). */
void tm_mpi_file_rank_fini(tm_mpi_rank_t *r);

#endif /* TM_MPI_FILE_H */
