/*
 * ThreadMPI mpi/: what the files of the one-sided calls share (win.c: windows; win_sync.c:
 * synchronization; win_access.c: put, get and the accumulates). The windows themselves are
 * rma/'s (rma/rma.h).
 */
#ifndef TM_MPI_WIN_H
#define TM_MPI_WIN_H

#include "mpi_impl.h"
#include "rma/rma.h"

/* Window handles: MPI_WIN_NULL (payload 0), then index in the rank's `wins` table + 1. */
#define TM_MPI_WIN_FIRST_PAYLOAD 1

/* Resolves window handle `handle` for r. On success sets *w_p and returns MPI_SUCCESS;
 * otherwise reports MPI_ERR_WIN for `call` through MPI_COMM_WORLD's handler (a window that
 * does not exist has none) and returns what it returns. */
int tm_mpi_win_get_slow(tm_mpi_rank_t *r, MPI_Win handle, const char *call, tm_rma_win_t **w_p);
static inline int tm_mpi_win_get(tm_mpi_rank_t *r, MPI_Win handle, const char *call,
                                 tm_rma_win_t **w_p)
{
    /* inline: every access and flush resolves its window */
    unsigned index = tm_mpi_handle_payload(handle) - TM_MPI_WIN_FIRST_PAYLOAD;
    if (__builtin_expect(tm_mpi_handle_kind(handle) == TM_MPI_KIND_WIN &&
                             index < (unsigned)r->wins.len && r->wins.slots[index] != NULL,
                         1)) {
        *w_p = r->wins.slots[index];
        return MPI_SUCCESS;
    }
    return tm_mpi_win_get_slow(r, handle, call, w_p);
}

/* Reports error `errclass` of `call` on window w through its error handler (printf-like
 * message, as tm_mpi_error_raise). */
int tm_mpi_win_error(tm_rma_win_t *w, const char *call, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Checks that `rank` names a member of w (or MPI_PROC_NULL when proc_null) for `call`. */
int tm_mpi_win_check_rank(tm_rma_win_t *w, const char *call, int rank, bool proc_null);

/* Frees the windows r's program left (at MPI_Finalize). */
void tm_mpi_win_rank_fini(tm_mpi_rank_t *r);

/* Window attributes (attr.c): deletes w's attributes, the newest first, calling the delete
 * callbacks; stops at the first that fails and returns its code (unreported). */
int tm_mpi_attr_win_delete_all(tm_rma_win_t *w);

/* At MPI_Finalize: deletes w's attributes, calling every delete callback whatever they
 * return. */
void tm_mpi_attr_win_fini(tm_rma_win_t *w);

#endif /* TM_MPI_WIN_H */
