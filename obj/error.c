/*
 * Error classes, their descriptions, and the reporting of errors through error handlers (the
 * MPI calls MPI_Error_string and MPI_Error_class are in mpi/error.c).
 *
 * The predefined error codes are error classes (MPI_Error_class is the identity on them); the
 * classes and codes a rank adds (MPI_Add_error_class, MPI_Add_error_code) are numbered above
 * MPI_ERR_LASTCODE in the rank's own table.
 */
#include "config.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "obj/obj.h"

typedef struct tm_mpi_error_class {
    const char *name;
    const char *text;
} tm_mpi_error_class_t;

/* The descriptions follow the standard's tables of error classes (MPI 3.1, 8.4). */
static const tm_mpi_error_class_t tm_mpi_error_classes[] = {
    [MPI_SUCCESS] = {"MPI_SUCCESS", "no error"},
    [MPI_ERR_BUFFER] = {"MPI_ERR_BUFFER", "invalid buffer pointer"},
    [MPI_ERR_COUNT] = {"MPI_ERR_COUNT", "invalid count argument"},
    [MPI_ERR_TYPE] = {"MPI_ERR_TYPE", "invalid datatype"},
    [MPI_ERR_TAG] = {"MPI_ERR_TAG", "invalid tag"},
    [MPI_ERR_COMM] = {"MPI_ERR_COMM", "invalid communicator"},
    [MPI_ERR_RANK] = {"MPI_ERR_RANK", "invalid rank"},
    [MPI_ERR_REQUEST] = {"MPI_ERR_REQUEST", "invalid request"},
    [MPI_ERR_ROOT] = {"MPI_ERR_ROOT", "invalid root"},
    [MPI_ERR_GROUP] = {"MPI_ERR_GROUP", "invalid group"},
    [MPI_ERR_OP] = {"MPI_ERR_OP", "invalid reduction operation"},
    [MPI_ERR_TOPOLOGY] = {"MPI_ERR_TOPOLOGY", "invalid topology"},
    [MPI_ERR_DIMS] = {"MPI_ERR_DIMS", "invalid dimension argument"},
    [MPI_ERR_ARG] = {"MPI_ERR_ARG", "invalid argument of some other kind"},
    [MPI_ERR_UNKNOWN] = {"MPI_ERR_UNKNOWN", "unknown error"},
    [MPI_ERR_TRUNCATE] = {"MPI_ERR_TRUNCATE", "message truncated on receive"},
    [MPI_ERR_OTHER] = {"MPI_ERR_OTHER", "known error not in this list"},
    [MPI_ERR_INTERN] = {"MPI_ERR_INTERN", "internal error of the MPI library"},
    [MPI_ERR_IN_STATUS] = {"MPI_ERR_IN_STATUS", "error code is in the status"},
    [MPI_ERR_PENDING] = {"MPI_ERR_PENDING", "pending request"},
    [MPI_ERR_KEYVAL] = {"MPI_ERR_KEYVAL", "invalid attribute key"},
    [MPI_ERR_NO_MEM] = {"MPI_ERR_NO_MEM", "out of memory"},
    [MPI_ERR_BASE] = {"MPI_ERR_BASE", "invalid base address passed to MPI_Free_mem"},
    [MPI_ERR_INFO_KEY] = {"MPI_ERR_INFO_KEY", "info key longer than MPI_MAX_INFO_KEY"},
    [MPI_ERR_INFO_VALUE] = {"MPI_ERR_INFO_VALUE", "info value longer than MPI_MAX_INFO_VAL"},
    [MPI_ERR_INFO_NOKEY] = {"MPI_ERR_INFO_NOKEY", "no such key in the info object"},
    [MPI_ERR_SPAWN] = {"MPI_ERR_SPAWN", "error in spawning processes"},
    [MPI_ERR_PORT] = {"MPI_ERR_PORT", "invalid port name"},
    [MPI_ERR_SERVICE] = {"MPI_ERR_SERVICE", "invalid service name passed to MPI_Unpublish_name"},
    [MPI_ERR_NAME] = {"MPI_ERR_NAME", "invalid service name passed to MPI_Lookup_name"},
    [MPI_ERR_WIN] = {"MPI_ERR_WIN", "invalid window"},
    [MPI_ERR_SIZE] = {"MPI_ERR_SIZE", "invalid size argument"},
    [MPI_ERR_DISP] = {"MPI_ERR_DISP", "invalid displacement argument"},
    [MPI_ERR_INFO] = {"MPI_ERR_INFO", "invalid info object"},
    [MPI_ERR_LOCKTYPE] = {"MPI_ERR_LOCKTYPE", "invalid lock type"},
    [MPI_ERR_ASSERT] = {"MPI_ERR_ASSERT", "invalid assertion argument"},
    [MPI_ERR_RMA_CONFLICT] = {"MPI_ERR_RMA_CONFLICT", "conflicting accesses to a window"},
    [MPI_ERR_RMA_SYNC] = {"MPI_ERR_RMA_SYNC", "wrong synchronization of RMA calls"},
    [MPI_ERR_RMA_RANGE] = {"MPI_ERR_RMA_RANGE",
                           "target memory is not part of the window (or not attached to it)"},
    [MPI_ERR_RMA_ATTACH] = {"MPI_ERR_RMA_ATTACH", "memory cannot be attached to the window"},
    [MPI_ERR_RMA_SHARED] = {"MPI_ERR_RMA_SHARED", "memory cannot be shared"},
    [MPI_ERR_RMA_FLAVOR] = {"MPI_ERR_RMA_FLAVOR", "the window has the wrong flavor for this call"},
    [MPI_ERR_FILE] = {"MPI_ERR_FILE", "invalid file handle"},
    [MPI_ERR_NOT_SAME] = {"MPI_ERR_NOT_SAME",
                          "collective argument not identical on all processes, or collective "
                          "calls made in a different order by different processes"},
    [MPI_ERR_AMODE] = {"MPI_ERR_AMODE", "invalid access mode passed to MPI_File_open"},
    [MPI_ERR_UNSUPPORTED_DATAREP] = {"MPI_ERR_UNSUPPORTED_DATAREP",
                                     "unsupported data representation passed to "
                                     "MPI_File_set_view"},
    [MPI_ERR_UNSUPPORTED_OPERATION] = {"MPI_ERR_UNSUPPORTED_OPERATION",
                                       "operation not supported on this file"},
    [MPI_ERR_NO_SUCH_FILE] = {"MPI_ERR_NO_SUCH_FILE", "file does not exist"},
    [MPI_ERR_FILE_EXISTS] = {"MPI_ERR_FILE_EXISTS", "file exists"},
    [MPI_ERR_BAD_FILE] = {"MPI_ERR_BAD_FILE", "invalid file name"},
    [MPI_ERR_ACCESS] = {"MPI_ERR_ACCESS", "permission denied"},
    [MPI_ERR_NO_SPACE] = {"MPI_ERR_NO_SPACE", "not enough space"},
    [MPI_ERR_QUOTA] = {"MPI_ERR_QUOTA", "quota exceeded"},
    [MPI_ERR_READ_ONLY] = {"MPI_ERR_READ_ONLY", "read-only file or file system"},
    [MPI_ERR_FILE_IN_USE] = {"MPI_ERR_FILE_IN_USE", "file is open by some process"},
    [MPI_ERR_DUP_DATAREP] = {"MPI_ERR_DUP_DATAREP", "data representation already registered"},
    [MPI_ERR_CONVERSION] = {"MPI_ERR_CONVERSION", "error in a user data conversion function"},
    [MPI_ERR_IO] = {"MPI_ERR_IO", "other I/O error"},
    [MPI_ERR_LASTCODE] = {"MPI_ERR_LASTCODE", "last error code"},
};

_Static_assert(sizeof(tm_mpi_error_classes) / sizeof(tm_mpi_error_classes[0]) ==
                   MPI_ERR_LASTCODE + 1,
               "one entry per error class");

static const tm_mpi_error_class_t *tm_mpi_error_class_find(int errclass)
{
    if (errclass < 0 || errclass > MPI_ERR_LASTCODE)
        return NULL;
    return &tm_mpi_error_classes[errclass];
}

const char *tm_mpi_error_class_name(int errclass)
{
    const tm_mpi_error_class_t *c = tm_mpi_error_class_find(errclass);

    return c ? c->name : NULL;
}

int tm_mpi_error_class_of(const tm_mpi_rank_t *r, int code)
{
    if (code >= 0 && code <= MPI_ERR_LASTCODE)
        return code;
    if (r != NULL && code > MPI_ERR_LASTCODE && code - MPI_ERR_LASTCODE <= r->nuser_errors)
        return r->user_errors[code - MPI_ERR_LASTCODE - 1].errclass;
    return -1;
}

static _Noreturn void tm_mpi_error_vfatal(tm_rt_rank_t *rt, const char *call, int errclass,
                                          const char *fmt, va_list ap)
{
    const char *name = tm_mpi_error_class_name(errclass);
    char line[1024], added[48];
    size_t len;

    if (name == NULL) { /* a class or code the program added */
        snprintf(added, sizeof(added), "error code %d", errclass);
        name = added;
    }
    if (rt != NULL)
        snprintf(line, sizeof(line), "%s (rank %d): ", call, rt->world_rank);
    else
        snprintf(line, sizeof(line), "%s (rank ?): ", call);
    len = strlen(line);
    vsnprintf(line + len, sizeof(line) - len, fmt, ap);
    len = strlen(line);
    snprintf(line + len, sizeof(line) - len, " (%s)", name);
    /* A truncated message still ends its line; one fputs keeps it whole among other ranks'. */
    len = strlen(line);
    if (len > sizeof(line) - 2)
        len = sizeof(line) - 2;
    line[len] = '\n';
    line[len + 1] = '\0';
    fputs(line, stderr);
    fflush(stderr);
    tm_rt_job_abort(rt ? rt->world_rank : -1, errclass, NULL);
}

_Noreturn void tm_mpi_error_fatal(tm_rt_rank_t *rt, const char *call, int errclass, const char *fmt,
                                  ...)
{
    va_list ap;

    va_start(ap, fmt);
    tm_mpi_error_vfatal(rt, call, errclass, fmt, ap);
}

int tm_mpi_error_raise(tm_rt_rank_t *rt, tm_mpi_comm_t *comm, const char *call, int errclass,
                       const char *fmt, ...)
{
    tm_mpi_rank_t *r = rt ? rt->mpi : NULL;
    MPI_Errhandler handler = MPI_ERRORS_ARE_FATAL;
    va_list ap;

    if (comm == NULL && r != NULL)
        comm = &r->world;
    if (comm != NULL)
        handler = comm->errhandler;
    if (handler == MPI_ERRORS_RETURN)
        return errclass;
    if (comm != NULL && comm->errhandler_user != NULL) {
        tm_mpi_errhandler_call(comm->errhandler_user, comm->handle, errclass);
        return errclass;
    }
    va_start(ap, fmt);
    tm_mpi_error_vfatal(rt, call, errclass, fmt, ap);
}

int tm_mpi_error_raise_to(tm_rt_rank_t *rt, MPI_Errhandler errhandler, tm_mpi_errhandler_t *user,
                          int handle, const char *call, int errclass, const char *fmt, ...)
{
    va_list ap;

    if (errhandler == MPI_ERRORS_RETURN)
        return errclass;
    if (user != NULL) {
        tm_mpi_errhandler_call(user, handle, errclass);
        return errclass;
    }
    va_start(ap, fmt);
    tm_mpi_error_vfatal(rt, call, errclass, fmt, ap);
}

const char *tm_mpi_error_class_text(int errclass)
{
    const tm_mpi_error_class_t *c = tm_mpi_error_class_find(errclass);
    return c ? c->text : NULL;
}
