/*
 * Handles: names of their kinds, and compile-time checks that the values mpi.h publishes follow
 * the encoding mpi_impl.h decodes.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "obj/obj.h"

#define TM_MPI_CHECK_HANDLE(handle, kind, payload)                                                 \
    _Static_assert((handle) == TM_MPI_HANDLE(kind, payload), #handle " is misencoded")

TM_MPI_CHECK_HANDLE(MPI_COMM_NULL, TM_MPI_KIND_COMM, 0);
TM_MPI_CHECK_HANDLE(MPI_COMM_WORLD, TM_MPI_KIND_COMM, 1);
TM_MPI_CHECK_HANDLE(MPI_COMM_SELF, TM_MPI_KIND_COMM, 2);
TM_MPI_CHECK_HANDLE(MPI_GROUP_NULL, TM_MPI_KIND_GROUP, 0);
TM_MPI_CHECK_HANDLE(MPI_GROUP_EMPTY, TM_MPI_KIND_GROUP, 1);
TM_MPI_CHECK_HANDLE(MPI_DATATYPE_NULL, TM_MPI_KIND_DATATYPE, 0);
TM_MPI_CHECK_HANDLE(MPI_OP_NULL, TM_MPI_KIND_OP, 0);
TM_MPI_CHECK_HANDLE(MPI_NO_OP, TM_MPI_KIND_OP, 14);
TM_MPI_CHECK_HANDLE(MPI_ERRHANDLER_NULL, TM_MPI_KIND_ERRHANDLER, 0);
TM_MPI_CHECK_HANDLE(MPI_ERRORS_ARE_FATAL, TM_MPI_KIND_ERRHANDLER, 1);
TM_MPI_CHECK_HANDLE(MPI_ERRORS_RETURN, TM_MPI_KIND_ERRHANDLER, 2);
TM_MPI_CHECK_HANDLE(MPI_REQUEST_NULL, TM_MPI_KIND_REQUEST, 0);
TM_MPI_CHECK_HANDLE(MPI_INFO_NULL, TM_MPI_KIND_INFO, 0);
TM_MPI_CHECK_HANDLE(MPI_INFO_ENV, TM_MPI_KIND_INFO, 1);
TM_MPI_CHECK_HANDLE(MPI_WIN_NULL, TM_MPI_KIND_WIN, 0);
TM_MPI_CHECK_HANDLE(MPI_FILE_NULL, TM_MPI_KIND_FILE, 0);
TM_MPI_CHECK_HANDLE(MPI_MESSAGE_NULL, TM_MPI_KIND_MESSAGE, 0);
TM_MPI_CHECK_HANDLE(MPI_MESSAGE_NO_PROC, TM_MPI_KIND_MESSAGE, 1);
TM_MPI_CHECK_HANDLE(MPI_KEYVAL_INVALID, TM_MPI_KIND_KEYVAL, 0);
TM_MPI_CHECK_HANDLE(MPI_WIN_MODEL, TM_MPI_KIND_KEYVAL, 12);
TM_MPI_CHECK_HANDLE(MPIX_DEFERRED_SEND_NULL, TM_MPI_KIND_DEFERRED, 0);

/* The sizes mpi.h encodes in predefined datatypes hold for the LP64 ABIs ThreadMPI runs on
 * (x86-64 and aarch64 Linux); a port to another ABI must fail here, not corrupt messages. */
#define TM_MPI_KIND_OF_CONSTANT(h)                                                                 \
    ((((unsigned)(h)) >> TM_MPI_HANDLE_KIND_SHIFT) & TM_MPI_HANDLE_KIND_MASK)

#define TM_MPI_CHECK_SIZE(type, ctype)                                                             \
    _Static_assert(TM_MPI_DATATYPE_BUILTIN_SIZE(type) == sizeof(ctype),                            \
                   #type " does not encode sizeof(" #ctype ")");                                   \
    _Static_assert(TM_MPI_KIND_OF_CONSTANT(type) == TM_MPI_KIND_DATATYPE, #type " is no datatype")

TM_MPI_CHECK_SIZE(MPI_CHAR, char);
TM_MPI_CHECK_SIZE(MPI_SIGNED_CHAR, signed char);
TM_MPI_CHECK_SIZE(MPI_UNSIGNED_CHAR, unsigned char);
TM_MPI_CHECK_SIZE(MPI_BYTE, unsigned char);
TM_MPI_CHECK_SIZE(MPI_WCHAR, wchar_t);
TM_MPI_CHECK_SIZE(MPI_SHORT, short);
TM_MPI_CHECK_SIZE(MPI_UNSIGNED_SHORT, unsigned short);
TM_MPI_CHECK_SIZE(MPI_INT, int);
TM_MPI_CHECK_SIZE(MPI_UNSIGNED, unsigned);
TM_MPI_CHECK_SIZE(MPI_LONG, long);
TM_MPI_CHECK_SIZE(MPI_UNSIGNED_LONG, unsigned long);
TM_MPI_CHECK_SIZE(MPI_LONG_LONG_INT, long long);
TM_MPI_CHECK_SIZE(MPI_UNSIGNED_LONG_LONG, unsigned long long);
TM_MPI_CHECK_SIZE(MPI_FLOAT, float);
TM_MPI_CHECK_SIZE(MPI_DOUBLE, double);
TM_MPI_CHECK_SIZE(MPI_LONG_DOUBLE, long double);
TM_MPI_CHECK_SIZE(MPI_C_BOOL, _Bool);
TM_MPI_CHECK_SIZE(MPI_INT8_T, int8_t);
TM_MPI_CHECK_SIZE(MPI_INT16_T, int16_t);
TM_MPI_CHECK_SIZE(MPI_INT32_T, int32_t);
TM_MPI_CHECK_SIZE(MPI_INT64_T, int64_t);
TM_MPI_CHECK_SIZE(MPI_UINT8_T, uint8_t);
TM_MPI_CHECK_SIZE(MPI_UINT16_T, uint16_t);
TM_MPI_CHECK_SIZE(MPI_UINT32_T, uint32_t);
TM_MPI_CHECK_SIZE(MPI_UINT64_T, uint64_t);
TM_MPI_CHECK_SIZE(MPI_AINT, MPI_Aint);
TM_MPI_CHECK_SIZE(MPI_OFFSET, MPI_Offset);
TM_MPI_CHECK_SIZE(MPI_COUNT, MPI_Count);
TM_MPI_CHECK_SIZE(MPI_C_FLOAT_COMPLEX, float _Complex);
TM_MPI_CHECK_SIZE(MPI_C_DOUBLE_COMPLEX, double _Complex);
TM_MPI_CHECK_SIZE(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex);
TM_MPI_CHECK_SIZE(MPI_PACKED, unsigned char);
TM_MPI_CHECK_SIZE(MPI_CXX_BOOL, _Bool);
TM_MPI_CHECK_SIZE(MPI_CXX_FLOAT_COMPLEX, float _Complex);
TM_MPI_CHECK_SIZE(MPI_CXX_DOUBLE_COMPLEX, double _Complex);
TM_MPI_CHECK_SIZE(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex);

_Static_assert(sizeof(MPI_Aint) == sizeof(void *), "MPI_Aint must hold an address");
_Static_assert(sizeof(MPI_Count) >= sizeof(MPI_Aint) && sizeof(MPI_Count) >= sizeof(MPI_Offset),
               "MPI_Count must hold any MPI_Aint and MPI_Offset");
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
               "MPI_F_STATUS_SIZE and MPI_F_SOURCE/TAG/ERROR do not match MPI_Status");

const char *tm_mpi_handle_kind_name(tm_mpi_kind_t kind)
{
    switch (kind) {
    case TM_MPI_KIND_NONE:
        return "not an MPI handle";
    case TM_MPI_KIND_COMM:
        return "a communicator";
    case TM_MPI_KIND_GROUP:
        return "a group";
    case TM_MPI_KIND_DATATYPE:
        return "a datatype";
    case TM_MPI_KIND_OP:
        return "an operation";
    case TM_MPI_KIND_ERRHANDLER:
        return "an error handler";
    case TM_MPI_KIND_REQUEST:
        return "a request";
    case TM_MPI_KIND_INFO:
        return "an info object";
    case TM_MPI_KIND_WIN:
        return "a window";
    case TM_MPI_KIND_FILE:
        return "a file";
    case TM_MPI_KIND_MESSAGE:
        return "a message";
    case TM_MPI_KIND_KEYVAL:
        return "an attribute key";
    case TM_MPI_KIND_DEFERRED:
        return "a deferred send";
    }
    return "not an MPI handle";
}
