/*
 * The calls on reduction operations: MPI_Op_create, MPI_Op_free, MPI_Op_commutative and
 * MPI_Reduce_local (the operations themselves: obj/op.c).
 */
#include "config.h"

#include <stdlib.h>

#include "mpi_impl.h"
#include "obj/datatype.h"
#include "obj/op.h"

/* ------------------------------------------------------------------ the MPI calls */

/* MPI_Op_create and _c: one of fn and fn_c. */
static int op_create(const char *call, MPI_User_function *fn, MPI_User_function_c *fn_c,
                     int commute, MPI_Op *op)
{
    TM_MPI_RANK(r, call);
    tm_mpi_op_t *o;

    if (fn == NULL && fn_c == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "user_fn is NULL");
    if (op == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "op is NULL");
    o = calloc(1, sizeof(*o));
    if (o == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_OTHER, "out of memory");
    atomic_init(&o->refs, 1);
    o->kind = TM_MPI_OP_USER;
    o->commute = commute != 0;
    o->fn = fn;
    o->fn_c = fn_c;
    if (tm_mpi_op_publish(o) != 0) {
        free(o);
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_OTHER, "out of memory");
    }
    *op = o->handle;
    return MPI_SUCCESS;
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create", user_fn, NULL, commute, op);
}
#pragma weak MPI_Op_create = PMPI_Op_create

int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create_c", NULL, user_fn, commute, op);
}
#pragma weak MPI_Op_create_c = PMPI_Op_create_c

/* A pending collective keeps its own reference: the object outlives the handle if needed. */
int PMPI_Op_free(MPI_Op *op)
{
    static const char call[] = "MPI_Op_free";
    TM_MPI_RANK(r, call);
    tm_mpi_op_t *o;
    int err;

    if (op == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "op is NULL");
    if ((err = tm_mpi_op_get(r, NULL, *op, call, &o)) != MPI_SUCCESS)
        return err;
    if (o->predefined)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_OP,
                                  "%s is predefined and cannot be freed", o->name);
    if (tm_mpi_op_unpublish(*op) != 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_OP,
                                  "invalid operation 0x%08x: no such operation", (unsigned)*op);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Op_free = PMPI_Op_free

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    static const char call[] = "MPI_Op_commutative";
    TM_MPI_RANK(r, call);
    tm_mpi_op_t *o;
    int err;

    if ((err = tm_mpi_op_get(r, NULL, op, call, &o)) != MPI_SUCCESS)
        return err;
    if (commute == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "commute is NULL");
    *commute = tm_mpi_op_is_commutative(o);
    return MPI_SUCCESS;
}
#pragma weak MPI_Op_commutative = PMPI_Op_commutative

static int reduce_local(const char *call, const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op)
{
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *type;
    tm_mpi_op_t *o;
    int err;

    if (count < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_COUNT, "count %lld is negative",
                                  (long long)count);
    if ((err = tm_mpi_type_get(r, NULL, datatype, 1, call, &type)) != MPI_SUCCESS ||
        (err = tm_mpi_op_get_for_type(r, NULL, op, type, call, &o)) != MPI_SUCCESS)
        return err;
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_BUFFER,
                                  "MPI_IN_PLACE is not allowed for %s",
                                  inbuf == MPI_IN_PLACE ? "inbuf" : "inoutbuf");
    /* NULL is MPI_BOTTOM: fine with the absolute addresses of a derived type only */
    if ((inbuf == NULL || inoutbuf == NULL) && count > 0 && type->predefined && type->size > 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_BUFFER, "%s is NULL for %lld elements",
                                  inbuf == NULL ? "inbuf" : "inoutbuf", (long long)count);
    tm_mpi_op_apply(o, inbuf, inoutbuf, (size_t)count, type);
    return MPI_SUCCESS;
}

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    return reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}
#pragma weak MPI_Reduce_local = PMPI_Reduce_local

int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op)
{
    return reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}
#pragma weak MPI_Reduce_local_c = PMPI_Reduce_local_c
