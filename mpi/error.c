/*
 * MPI_Error_string and MPI_Error_class (the classes: obj/error.c), and the classes, codes and
 * strings a program adds (MPI_Add_error_class, _code, _string), each rank's own as each
 * process's: the predefined codes are classes (MPI_Error_class is the identity on them).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    static const char call[] = "MPI_Error_string";
    TM_MPI_RANK(r, call);
    const char *name = tm_mpi_error_class_name(errorcode);
    int n;

    if (tm_mpi_error_class_of(r, errorcode) < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "invalid error code %d",
                                  errorcode);
    if (string == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "string is NULL");
    if (resultlen == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "resultlen is NULL");
    if (name == NULL) { /* added: its string, "" until MPI_Add_error_string */
        const char *added = r->user_errors[errorcode - MPI_ERR_LASTCODE - 1].string;
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", added ? added : "");
    } else {
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", name,
                     tm_mpi_error_class_text(errorcode));
    }
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_Error_string = PMPI_Error_string

int PMPI_Error_class(int errorcode, int *errorclass)
{
    static const char call[] = "MPI_Error_class";
    TM_MPI_RANK(r, call);

    int cls = tm_mpi_error_class_of(r, errorcode);

    if (cls < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "invalid error code %d",
                                  errorcode);
    if (errorclass == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "errorclass is NULL");
    *errorclass = cls;
    return MPI_SUCCESS;
}
#pragma weak MPI_Error_class = PMPI_Error_class

/* Adds a code of class `errclass` (-1: a new class, its own) to r's table: the code, or -1 when
 * out of memory. */
static int tm_mpi_error_add(tm_mpi_rank_t *r, int errclass)
{
    if (r->nuser_errors == r->user_errors_cap) {
        int cap = r->user_errors_cap ? 2 * r->user_errors_cap : 16;
        struct tm_mpi_user_error *v = realloc(r->user_errors, (size_t)cap * sizeof(*v));

        if (v == NULL)
            return -1;
        r->user_errors = v;
        r->user_errors_cap = cap;
    }
    int code = MPI_ERR_LASTCODE + 1 + r->nuser_errors;
    r->user_errors[r->nuser_errors++] =
        (struct tm_mpi_user_error){errclass < 0 ? code : errclass, NULL};
    return code;
}

int PMPI_Add_error_class(int *errorclass)
{
    static const char call[] = "MPI_Add_error_class";
    TM_MPI_RANK(r, call);
    int code;

    if (errorclass == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "errorclass is NULL");
    if ((code = tm_mpi_error_add(r, -1)) < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    *errorclass = code;
    return MPI_SUCCESS;
}
#pragma weak MPI_Add_error_class = PMPI_Add_error_class

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    static const char call[] = "MPI_Add_error_code";
    TM_MPI_RANK(r, call);
    int code;

    if (tm_mpi_error_class_of(r, errorclass) != errorclass || errorclass == MPI_SUCCESS)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "%d is not an error class",
                                  errorclass);
    if (errorcode == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "errorcode is NULL");
    if ((code = tm_mpi_error_add(r, errorclass)) < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    *errorcode = code;
    return MPI_SUCCESS;
}
#pragma weak MPI_Add_error_code = PMPI_Add_error_code

int PMPI_Add_error_string(int errorcode, const char *string)
{
    static const char call[] = "MPI_Add_error_string";
    TM_MPI_RANK(r, call);

    if (tm_mpi_error_class_of(r, errorcode) < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "invalid error code %d",
                                  errorcode);
    if (errorcode <= MPI_ERR_LASTCODE)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "error code %d is predefined: its string cannot change",
                                  errorcode);
    if (string == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "string is NULL");
    size_t len = strnlen(string, MPI_MAX_ERROR_STRING);
    if (len == MPI_MAX_ERROR_STRING)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "the string is longer than MPI_MAX_ERROR_STRING - 1 (%d)",
                                  MPI_MAX_ERROR_STRING - 1);
    char *copy = strdup(string);
    if (copy == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    struct tm_mpi_user_error *e = &r->user_errors[errorcode - MPI_ERR_LASTCODE - 1];
    free(e->string);
    e->string = copy;
    return MPI_SUCCESS;
}
#pragma weak MPI_Add_error_string = PMPI_Add_error_string
