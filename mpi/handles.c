/*
 * Handle conversions between C and Fortran (MPI 3.1, 17.2.4), which C libraries with Fortran
 * callers use to keep handles as integers: a ThreadMPI handle is an int already, and a Fortran
 * handle is that int (an invalid one stays invalid). MPI_Status_c2f and MPI_Status_f2c copy a
 * status to and from its MPI_F_STATUS_SIZE integers, in the order of the C structure.
 */
#include "config.h"

#include <string.h>

#include "mpi_impl.h"

#define WEAK(name) _Pragma(#name)
#define CONVERSIONS(Kind, Type)                                                                    \
    MPI_Fint PMPI_##Kind##_c2f(Type handle)                                                        \
    {                                                                                              \
        return (MPI_Fint)handle;                                                                   \
    }                                                                                              \
    Type PMPI_##Kind##_f2c(MPI_Fint handle)                                                        \
    {                                                                                              \
        return (Type)handle;                                                                       \
    }                                                                                              \
    WEAK(weak MPI_##Kind##_c2f = PMPI_##Kind##_c2f)                                                \
    WEAK(weak MPI_##Kind##_f2c = PMPI_##Kind##_f2c)

CONVERSIONS(Comm, MPI_Comm)
CONVERSIONS(Group, MPI_Group)
CONVERSIONS(Type, MPI_Datatype)
CONVERSIONS(Op, MPI_Op)
CONVERSIONS(Errhandler, MPI_Errhandler)
CONVERSIONS(Request, MPI_Request)
CONVERSIONS(Info, MPI_Info)
CONVERSIONS(Win, MPI_Win)
CONVERSIONS(File, MPI_File)
CONVERSIONS(Message, MPI_Message)

_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "a status is MPI_F_STATUS_SIZE Fortran integers");

int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    static const char call[] = "MPI_Status_c2f";
    TM_MPI_RANK(r, call);
    if (c_status == NULL || c_status == MPI_STATUS_IGNORE)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "c_status is NULL or MPI_STATUS_IGNORE");
    if (f_status == NULL || f_status == MPI_F_STATUS_IGNORE)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "f_status is NULL or MPI_F_STATUS_IGNORE");
    memcpy(f_status, c_status, sizeof *c_status);
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_c2f = PMPI_Status_c2f

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    static const char call[] = "MPI_Status_f2c";
    TM_MPI_RANK(r, call);
    if (f_status == NULL || f_status == MPI_F_STATUS_IGNORE)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "f_status is NULL or MPI_F_STATUS_IGNORE");
    if (c_status == NULL || c_status == MPI_STATUS_IGNORE)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "c_status is NULL or MPI_STATUS_IGNORE");
    memcpy(c_status, f_status, sizeof *c_status);
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_f2c = PMPI_Status_f2c
