/*
 * The calls on error handlers: MPI_Comm_create_errhandler, MPI_Comm_set_errhandler,
 * MPI_Comm_get_errhandler, MPI_Comm_call_errhandler and MPI_Errhandler_free (the handlers and
 * their handles: obj/errhandler.c).
 */
#include "config.h"

#include "mpi_impl.h"

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                                MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_Comm_create_errhandler";
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);

    if (comm_errhandler_fn == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "comm_errhandler_fn is NULL");
    if (errhandler == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "errhandler is NULL");
    if (tm_mpi_errhandler_create(r, comm_errhandler_fn, errhandler) < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    static const char call[] = "MPI_Comm_set_errhandler";
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
    tm_mpi_errhandler_t *eh;
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    err = tm_mpi_errhandler_get(r, c, errhandler, call, &eh);
    if (err != MPI_SUCCESS)
        return err;
    if (eh != NULL)
        tm_mpi_errhandler_retain(eh);
    tm_mpi_comm_errhandler_clear(c);
    c->errhandler = errhandler;
    c->errhandler_user = eh;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_Comm_get_errhandler";
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (errhandler == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "errhandler is NULL");
    /* A new reference, which the program gives back with MPI_Errhandler_free. */
    if (c->errhandler_user != NULL)
        tm_mpi_errhandler_retain(c->errhandler_user);
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    static const char call[] = "MPI_Comm_call_errhandler";
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (errorcode <= MPI_SUCCESS || tm_mpi_error_class_name(errorcode) == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "invalid error code %d", errorcode);
    tm_mpi_error_raise(r->rt, c, call, errorcode, "error code %d raised by the program", errorcode);
    /* The handler returned: the call itself succeeded (MPI 3.1, 8.3.6). */
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_Errhandler_free";
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
    tm_mpi_errhandler_t *eh;
    int err;

    if (errhandler == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "errhandler is NULL");
    err = tm_mpi_errhandler_get(r, NULL, *errhandler, call, &eh);
    if (err != MPI_SUCCESS)
        return err;
    /* Predefined handlers may be freed (MPI_Comm_get_errhandler returns them): nothing to do. */
    tm_mpi_errhandler_release(eh);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
