/*
 * MPI_Error_string and MPI_Error_class (the classes: obj/error.c). Error codes are error classes
 * (MPI_Error_class is the identity on them).
 */
#include "config.h"

#include <stdio.h>

#include "mpi_impl.h"

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    static const char call[] = "MPI_Error_string";
    TM_MPI_RANK(r, call);
    const char *name = tm_mpi_error_class_name(errorcode);
    int n;

    if (name == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "invalid error code %d",
                                  errorcode);
    if (string == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "string is NULL");
    if (resultlen == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "resultlen is NULL");
    n = snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", name, tm_mpi_error_class_text(errorcode));
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_Error_string = PMPI_Error_string

int PMPI_Error_class(int errorcode, int *errorclass)
{
    static const char call[] = "MPI_Error_class";
    TM_MPI_RANK(r, call);

    if (tm_mpi_error_class_name(errorcode) == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "invalid error code %d",
                                  errorcode);
    if (errorclass == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "errorclass is NULL");
    *errorclass = errorcode;
    return MPI_SUCCESS;
}
#pragma weak MPI_Error_class = PMPI_Error_class
