/*
 * The calls on error handlers: MPI_Comm_create_errhandler, MPI_Comm_set_errhandler,
 * MPI_Comm_get_errhandler, MPI_Comm_call_errhandler, MPI_Errhandler_free and the MPI-1 forms
 * MPI_Errhandler_create, _set, _get (the handlers and their handles: obj/errhandler.c).
 */
#include "config.h"

#include "mpi_impl.h"

/* The bodies of the calls below, shared with their MPI-1 forms (MPI_Errhandler_create, _set and
 * _get), which name themselves in errors. */
static int tm_mpi_comm_create_errhandler(const char *call,
                                         MPI_Comm_errhandler_function *comm_errhandler_fn,
                                         MPI_Errhandler *errhandler)
{
    TM_MPI_RANK(r, call);

    if (comm_errhandler_fn == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "comm_errhandler_fn is NULL");
    if (errhandler == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "errhandler is NULL");
    if (tm_mpi_errhandler_create(r, comm_errhandler_fn, TM_MPI_KIND_COMM, errhandler) < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}

static int tm_mpi_comm_set_errhandler(const char *call, MPI_Comm comm, MPI_Errhandler errhandler)
{
    TM_MPI_RANK(r, call);
    tm_mpi_errhandler_t *eh;
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    err = tm_mpi_errhandler_get(r, c, errhandler, call, &eh);
    if (err != MPI_SUCCESS)
        return err;
    if (eh != NULL && tm_mpi_errhandler_kind(eh) != TM_MPI_KIND_COMM)
        return tm_mpi_error_raise(
            r->rt, c, call, MPI_ERR_ARG, "error handler 0x%08x is for %s, not a communicator",
            (unsigned)errhandler, tm_mpi_handle_kind_name(tm_mpi_errhandler_kind(eh)));
    if (eh != NULL)
        tm_mpi_errhandler_retain(eh);
    tm_mpi_comm_errhandler_clear(c);
    c->errhandler = errhandler;
    c->errhandler_user = eh;
    return MPI_SUCCESS;
}

static int tm_mpi_comm_get_errhandler(const char *call, MPI_Comm comm, MPI_Errhandler *errhandler)
{
    TM_MPI_RANK(r, call);
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

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                                MPI_Errhandler *errhandler)
{
    return tm_mpi_comm_create_errhandler("MPI_Comm_create_errhandler", comm_errhandler_fn,
                                         errhandler);
}
#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return tm_mpi_comm_set_errhandler("MPI_Comm_set_errhandler", comm, errhandler);
}
#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return tm_mpi_comm_get_errhandler("MPI_Comm_get_errhandler", comm, errhandler);
}
#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler

/* The MPI-1 forms, which MPI-3.0 removed and MPICH still provides. */
int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
{
    return tm_mpi_comm_create_errhandler("MPI_Errhandler_create", function, errhandler);
}
#pragma weak MPI_Errhandler_create = PMPI_Errhandler_create

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return tm_mpi_comm_set_errhandler("MPI_Errhandler_set", comm, errhandler);
}
#pragma weak MPI_Errhandler_set = PMPI_Errhandler_set

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return tm_mpi_comm_get_errhandler("MPI_Errhandler_get", comm, errhandler);
}
#pragma weak MPI_Errhandler_get = PMPI_Errhandler_get

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    static const char call[] = "MPI_Comm_call_errhandler";
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (errorcode <= MPI_SUCCESS || tm_mpi_error_class_of(r, errorcode) < 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "invalid error code %d", errorcode);
    tm_mpi_error_raise(r->rt, c, call, errorcode, "error code %d raised by the program", errorcode);
    /* The handler returned: the call itself succeeded (MPI 3.1, 8.3.6). */
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_Errhandler_free";
    TM_MPI_RANK(r, call);
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
