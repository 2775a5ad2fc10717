/*
 * Error handlers: the user-defined ones (MPI_Comm_create_errhandler) and their handles;
 * tm_mpi_error_raise (error.c) calls them, the MPI calls on them are in mpi/errhandler.c.
 *
 * Handles are per rank, like every handle: each rank runs its own copy of the program, and a
 * handler is attached only to that rank's views of communicators, so a table in the rank's state
 * touched by its thread alone needs no lock (a process-wide table would serialize all ranks on
 * one lock for nothing). As in MPICH, the handle designates the object itself: it stays valid,
 * with the same value, as long as a handle or a communicator refers to the handler, which lets
 * MPI_Comm_get_errhandler return the very handle that MPI_Comm_create_errhandler returned.
 * Payloads: 1 MPI_ERRORS_ARE_FATAL, 2 MPI_ERRORS_RETURN, then index in the table + 3.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "obj/obj.h"

#define TM_MPI_ERRHANDLER_FIRST_PAYLOAD 3

struct tm_mpi_errhandler {
    int refs; /* handles given out plus communicators: the owner's thread alone counts them */
    int index;
    tm_mpi_rank_t *owner;
    MPI_Comm_errhandler_function *fn;
    tm_mpi_kind_t kind; /* of the objects it is for */
};

MPI_Errhandler tm_mpi_errhandler_handle(const tm_mpi_errhandler_t *eh)
{
    return TM_MPI_HANDLE(TM_MPI_KIND_ERRHANDLER, eh->index + TM_MPI_ERRHANDLER_FIRST_PAYLOAD);
}

void tm_mpi_errhandler_retain(tm_mpi_errhandler_t *eh)
{
    eh->refs++;
}

void tm_mpi_errhandler_release(tm_mpi_errhandler_t *eh)
{
    if (eh != NULL && --eh->refs == 0) {
        tm_mpi_table_remove(&eh->owner->errhandlers, eh->index);
        free(eh);
    }
}

void tm_mpi_errhandler_call(tm_mpi_errhandler_t *eh, MPI_Comm comm, int errcode)
{
    /* The handler may free its own handle and the communicator's reference is all that keeps
     * it: hold one more for the call. */
    tm_mpi_errhandler_retain(eh);
    eh->fn(&comm, &errcode);
    tm_mpi_errhandler_release(eh);
}

void tm_mpi_comm_errhandler_inherit(tm_mpi_comm_t *dst, const tm_mpi_comm_t *src)
{
    tm_mpi_comm_errhandler_clear(dst);
    dst->errhandler = src->errhandler;
    dst->errhandler_user = src->errhandler_user;
    if (dst->errhandler_user != NULL)
        tm_mpi_errhandler_retain(dst->errhandler_user);
}

void tm_mpi_comm_errhandler_clear(tm_mpi_comm_t *comm)
{
    tm_mpi_errhandler_t *eh = comm->errhandler_user;

    comm->errhandler = MPI_ERRORS_ARE_FATAL;
    comm->errhandler_user = NULL;
    tm_mpi_errhandler_release(eh);
}

void tm_mpi_errhandler_rank_fini(tm_mpi_rank_t *r)
{
    tm_mpi_comm_errhandler_clear(&r->world);
    tm_mpi_comm_errhandler_clear(&r->self);
    /* What is left are handles the program did not free. */
    for (int i = 0; i < r->errhandlers.len; i++)
        free(r->errhandlers.slots[i]);
    tm_mpi_table_destroy(&r->errhandlers);
}

int tm_mpi_errhandler_get(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, MPI_Errhandler handle,
                          const char *call, tm_mpi_errhandler_t **eh_p)
{
    tm_mpi_kind_t kind = tm_mpi_handle_kind(handle);

    *eh_p = NULL;
    if (handle == MPI_ERRORS_ARE_FATAL || handle == MPI_ERRORS_RETURN)
        return MPI_SUCCESS;
    if (handle == MPI_ERRHANDLER_NULL)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_ARG,
                                  "invalid error handler MPI_ERRHANDLER_NULL");
    if (kind == TM_MPI_KIND_ERRHANDLER) {
        *eh_p = tm_mpi_table_get(&r->errhandlers, (long)tm_mpi_handle_payload(handle) -
                                                      TM_MPI_ERRHANDLER_FIRST_PAYLOAD);
        if (*eh_p != NULL)
            return MPI_SUCCESS;
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_ARG,
                                  "invalid error handler 0x%08x: no such error handler",
                                  (unsigned)handle);
    }
    if (kind == TM_MPI_KIND_NONE)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_ARG,
                                  "invalid error handler 0x%08x: not an MPI handle",
                                  (unsigned)handle);
    return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_ARG,
                              "invalid error handler 0x%08x: the handle of %s", (unsigned)handle,
                              tm_mpi_handle_kind_name(kind));
}

tm_mpi_kind_t tm_mpi_errhandler_kind(const tm_mpi_errhandler_t *eh)
{
    return eh->kind;
}

int tm_mpi_errhandler_create(tm_mpi_rank_t *r, MPI_Comm_errhandler_function *fn, tm_mpi_kind_t kind,
                             MPI_Errhandler *handle_p)
{
    tm_mpi_errhandler_t *eh = malloc(sizeof(*eh));
    if (eh == NULL)
        return -ENOMEM;
    int index = tm_mpi_table_add(&r->errhandlers, eh);
    if (index < 0) {
        free(eh);
        return -ENOMEM;
    }
    eh->refs = 1;
    eh->index = index;
    eh->owner = r;
    eh->fn = fn;
    eh->kind = kind;
    *handle_p = tm_mpi_errhandler_handle(eh);
    return 0;
}
