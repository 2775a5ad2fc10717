/*
 * ThreadMPI obj/: reduction operations (MPI_Op), for MPI_Reduce_local and the collectives.
 *
 * An operation combines two buffers of the same (count, datatype) element by element:
 *
 *     inout[i] = in[i] op inout[i]        `in` is the left operand: the lower ranks' data
 *
 * which is the order MPI gives user functions (invec, inoutvec), so that a non-commutative
 * operation reduces in rank order when the caller passes the lower ranks' partial result as
 * `in`. Predefined operations run a loop per basic C type, picked from a table indexed by
 * (operation, basic type); the same table says on which types each is defined (MPI 3.1
 * section 5.9.2). A derived datatype works with a predefined operation when its typemap is made
 * of one basic type the operation accepts (MPI_MAXLOC/MPI_MINLOC: of whole value-index pairs of
 * one pair type); the loop then runs over each run of basic elements of the flattened type.
 *
 * Handles: predefined operations are static objects; user-defined ones (MPI_Op_create) live in
 * a process-wide table (ranks are threads of one process) behind a mutex that is never held
 * across a yield, as derived datatypes do. Each handle holds one reference; a pending collective
 * takes its own (tm_mpi_op_retain) so that MPI_Op_free while it runs is safe. Predefined
 * operations are not counted.
 */
#ifndef TM_OBJ_OP_H
#define TM_OBJ_OP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "obj/datatype.h"
#include "obj/obj.h"

/* What an operation computes. The predefined ones have the payloads of their handles. */
typedef enum tm_mpi_op_kind {
    TM_MPI_OP_MAX = 1,
    TM_MPI_OP_MIN,
    TM_MPI_OP_SUM,
    TM_MPI_OP_PROD,
    TM_MPI_OP_LAND,
    TM_MPI_OP_BAND,
    TM_MPI_OP_LOR,
    TM_MPI_OP_BOR,
    TM_MPI_OP_LXOR,
    TM_MPI_OP_BXOR,
    TM_MPI_OP_MAXLOC,
    TM_MPI_OP_MINLOC,
    TM_MPI_OP_REPLACE,
    TM_MPI_OP_NO_OP,
    TM_MPI_OP_USER /* MPI_Op_create */
} tm_mpi_op_kind_t;

typedef struct tm_mpi_op {
    _Atomic long refs; /* one per handle + one per pending user; predefined: not counted */
    MPI_Op handle;     /* the handle it was created with */
    tm_mpi_op_kind_t kind;
    bool predefined;
    bool commute;              /* MPI_REPLACE and MPI_NO_OP are not (f(a, b) = b, a) */
    MPI_User_function *fn;     /* TM_MPI_OP_USER: the function of MPI_Op_create, */
    MPI_User_function_c *fn_c; /* or of MPI_Op_create_c */
    const char *name;          /* "MPI_SUM"; NULL for user-defined operations */
} tm_mpi_op_t;

/* Resolves a predefined or user-defined handle. 0, or -EINVAL for a handle that is not a live
 * operation (MPI_OP_NULL, freed, of another kind). Takes no reference: the object lives as long
 * as the handle, or as a reference the caller takes with tm_mpi_op_retain. */
int tm_mpi_op_lookup(MPI_Op handle, tm_mpi_op_t **op_p);

/* Any thread may retain and release (a progress thread finishing a collective, say). */
void tm_mpi_op_retain(tm_mpi_op_t *op);
/* Drops a reference (NULL allowed); the last one frees a user-defined operation. */
void tm_mpi_op_release(tm_mpi_op_t *op);

/* For MPI calls: resolves `handle`. On success sets *op_p and returns MPI_SUCCESS; otherwise
 * sets *op_p to NULL, reports MPI_ERR_OP for `call` through comm's handler (NULL: MPI_COMM_WORLD's)
 * and returns what the handler returns. */
int tm_mpi_op_get(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, MPI_Op handle, const char *call,
                  tm_mpi_op_t **op_p);

/* tm_mpi_op_get, then tm_mpi_op_check_type: also reports MPI_ERR_OP, naming the operation and
 * the datatype, when the operation is not defined on `type`. What a reduction call checks. */
int tm_mpi_op_get_for_type(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, MPI_Op handle,
                           const tm_mpi_type_t *type, const char *call, tm_mpi_op_t **op_p);

/* 0 when `op` is defined on `type`, else -EINVAL. MPI_REPLACE, MPI_NO_OP and user-defined
 * operations take any type; the others the predefined types of MPI 3.1 section 5.9.2 and the
 * derived types made of them (see the top of this file). A type without data is accepted. */
int tm_mpi_op_check_type(const tm_mpi_op_t *op, const tm_mpi_type_t *type);

/* inout[i] = in[i] op inout[i] for the count elements of (in, type) and (inout, type), which may
 * be any layout; bytes outside the typemap are not touched. `op` must be defined on `type`
 * (tm_mpi_op_check_type) and the two buffers must not overlap, unless they are the same. A
 * user-defined function is called with at most INT_MAX elements at a time, and with the handle
 * `type` was created with. Takes no lock: any thread may call it. */
void tm_mpi_op_apply(const tm_mpi_op_t *op, const void *in, void *inout, size_t count,
                     const tm_mpi_type_t *type);

/* Whether the reduction may combine the ranks' data in any order. */
bool tm_mpi_op_is_commutative(const tm_mpi_op_t *op);

/* Gives user-defined `op` a handle in the process-wide table (op->handle; the table then holds
 * the caller's reference). 0 or -ENOMEM. */
int tm_mpi_op_publish(tm_mpi_op_t *op);

/* Removes `handle` from the table and drops its reference. 0 or -EINVAL. */
int tm_mpi_op_unpublish(MPI_Op handle);

#endif /* TM_OBJ_OP_H */
