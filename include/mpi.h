/*
 * ThreadMPI: the MPI 3.1 C interface.
 *
 * Every MPI rank is a user-level thread of one process running its own private copy of the
 * program, so everything this header declares is per rank: MPI_COMM_WORLD, the thread level and
 * the initialization state all belong to the rank that calls.
 *
 * All the constants and types of MPI 3.1 for C are defined here; only the functions that the
 * library implements are declared. Each MPI_X is a weak alias of PMPI_X (the profiling
 * interface): a tool may define its own MPI_X and call PMPI_X.
 *
 * Handles (MPI_Comm, MPI_Datatype, ...) are plain ints whose value tells the kind of object, so
 * that passing a handle of the wrong kind is detected and reported (MPI_ERR_COMM, MPI_ERR_TYPE,
 * ...). Their values are the library's business: compare them only with each other.
 *
 * Threads: a rank is identified by its own thread. Under MPI_THREAD_SERIALIZED and _MULTIPLE the
 * threads it starts call MPI for it too, taking turns with it; under the lower levels only the
 * rank's own thread may. Any thread may call MPI_Is_thread_main, MPI_Initialized, MPI_Finalized,
 * MPI_Wtime, MPI_Wtick, MPI_Get_version and MPI_Get_library_version.
 *
 * Errors: every function returns MPI_SUCCESS or an error class. The default error handler,
 * MPI_ERRORS_ARE_FATAL, prints the name of the call, the world rank of the caller, the problem and
 * the error class on stderr, then ends the whole job with the error class as exit status.
 */
#ifndef TM_MPI_H
#define TM_MPI_H

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ version */

#define MPI_VERSION    3
#define MPI_SUBVERSION 1

/* ------------------------------------------------------------------ scalar types */

typedef long MPI_Aint;        /* an address or a displacement (pointer-sized) */
typedef long long MPI_Offset; /* a file offset */
typedef long long MPI_Count;  /* holds any MPI_Aint, MPI_Offset or element count */
typedef int MPI_Fint;         /* a Fortran INTEGER */

/* ------------------------------------------------------------------ handles */

typedef int MPI_Comm;
typedef int MPI_Group;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Errhandler;
typedef int MPI_Request;
typedef int MPI_Info;
typedef int MPI_Win;
typedef int MPI_File;
typedef int MPI_Message;

/*
 * A handle is 0x40000000 | kind << 26 | payload; the null handle of a kind has payload 0.
 * Kinds: 1 communicator, 2 group, 3 datatype, 4 operation, 5 error handler, 6 request, 7 info,
 * 8 window, 9 file, 10 message, 11 attribute key. A predefined datatype's payload is
 * size << 8 | index, size being the bytes of one element (0 for the pairs and MPI_LB/MPI_UB).
 */

#define MPI_COMM_NULL  ((MPI_Comm)0x44000000)
#define MPI_COMM_WORLD ((MPI_Comm)0x44000001)
#define MPI_COMM_SELF  ((MPI_Comm)0x44000002)

#define MPI_GROUP_NULL  ((MPI_Group)0x48000000)
#define MPI_GROUP_EMPTY ((MPI_Group)0x48000001)

#define MPI_DATATYPE_NULL ((MPI_Datatype)0x4c000000)

/* C types */
#define MPI_CHAR                  ((MPI_Datatype)0x4c000101)
#define MPI_SIGNED_CHAR           ((MPI_Datatype)0x4c000102)
#define MPI_UNSIGNED_CHAR         ((MPI_Datatype)0x4c000103)
#define MPI_BYTE                  ((MPI_Datatype)0x4c000104)
#define MPI_WCHAR                 ((MPI_Datatype)0x4c000405)
#define MPI_SHORT                 ((MPI_Datatype)0x4c000206)
#define MPI_UNSIGNED_SHORT        ((MPI_Datatype)0x4c000207)
#define MPI_INT                   ((MPI_Datatype)0x4c000408)
#define MPI_UNSIGNED              ((MPI_Datatype)0x4c000409)
#define MPI_LONG                  ((MPI_Datatype)0x4c00080a)
#define MPI_UNSIGNED_LONG         ((MPI_Datatype)0x4c00080b)
#define MPI_LONG_LONG_INT         ((MPI_Datatype)0x4c00080c)
#define MPI_LONG_LONG             MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG    ((MPI_Datatype)0x4c00080d)
#define MPI_FLOAT                 ((MPI_Datatype)0x4c00040e)
#define MPI_DOUBLE                ((MPI_Datatype)0x4c00080f)
#define MPI_LONG_DOUBLE           ((MPI_Datatype)0x4c001010)
#define MPI_C_BOOL                ((MPI_Datatype)0x4c000111)
#define MPI_INT8_T                ((MPI_Datatype)0x4c000112)
#define MPI_INT16_T               ((MPI_Datatype)0x4c000213)
#define MPI_INT32_T               ((MPI_Datatype)0x4c000414)
#define MPI_INT64_T               ((MPI_Datatype)0x4c000815)
#define MPI_UINT8_T               ((MPI_Datatype)0x4c000116)
#define MPI_UINT16_T              ((MPI_Datatype)0x4c000217)
#define MPI_UINT32_T              ((MPI_Datatype)0x4c000418)
#define MPI_UINT64_T              ((MPI_Datatype)0x4c000819)
#define MPI_AINT                  ((MPI_Datatype)0x4c00081a)
#define MPI_OFFSET                ((MPI_Datatype)0x4c00081b)
#define MPI_COUNT                 ((MPI_Datatype)0x4c00081c)
#define MPI_C_FLOAT_COMPLEX       ((MPI_Datatype)0x4c00081d)
#define MPI_C_COMPLEX             MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX      ((MPI_Datatype)0x4c00101e)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4c00201f)
#define MPI_PACKED                ((MPI_Datatype)0x4c000120)

/* Pairs for MPI_MAXLOC and MPI_MINLOC (size not encoded: some have padding) */
#define MPI_FLOAT_INT       ((MPI_Datatype)0x4c000021)
#define MPI_DOUBLE_INT      ((MPI_Datatype)0x4c000022)
#define MPI_LONG_INT        ((MPI_Datatype)0x4c000023)
#define MPI_2INT            ((MPI_Datatype)0x4c000024)
#define MPI_SHORT_INT       ((MPI_Datatype)0x4c000025)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)0x4c000026)

/* Bound markers: removed by MPI 3.0, kept for old programs */
#define MPI_LB ((MPI_Datatype)0x4c000027)
#define MPI_UB ((MPI_Datatype)0x4c000028)

/* C++ types */
#define MPI_CXX_BOOL                ((MPI_Datatype)0x4c000129)
#define MPI_CXX_FLOAT_COMPLEX       ((MPI_Datatype)0x4c00082a)
#define MPI_CXX_DOUBLE_COMPLEX      ((MPI_Datatype)0x4c00102b)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4c00202c)

/* Fortran types: ThreadMPI has no Fortran support, so they are MPI_DATATYPE_NULL (as in an
 * MPICH built without Fortran); programs that name them still compile. */
#define MPI_CHARACTER         MPI_DATATYPE_NULL
#define MPI_LOGICAL           MPI_DATATYPE_NULL
#define MPI_INTEGER           MPI_DATATYPE_NULL
#define MPI_REAL              MPI_DATATYPE_NULL
#define MPI_DOUBLE_PRECISION  MPI_DATATYPE_NULL
#define MPI_COMPLEX           MPI_DATATYPE_NULL
#define MPI_DOUBLE_COMPLEX    MPI_DATATYPE_NULL
#define MPI_INTEGER1          MPI_DATATYPE_NULL
#define MPI_INTEGER2          MPI_DATATYPE_NULL
#define MPI_INTEGER4          MPI_DATATYPE_NULL
#define MPI_INTEGER8          MPI_DATATYPE_NULL
#define MPI_INTEGER16         MPI_DATATYPE_NULL
#define MPI_REAL2             MPI_DATATYPE_NULL
#define MPI_REAL4             MPI_DATATYPE_NULL
#define MPI_REAL8             MPI_DATATYPE_NULL
#define MPI_REAL16            MPI_DATATYPE_NULL
#define MPI_COMPLEX4          MPI_DATATYPE_NULL
#define MPI_COMPLEX8          MPI_DATATYPE_NULL
#define MPI_COMPLEX16         MPI_DATATYPE_NULL
#define MPI_COMPLEX32         MPI_DATATYPE_NULL
#define MPI_2REAL             MPI_DATATYPE_NULL
#define MPI_2DOUBLE_PRECISION MPI_DATATYPE_NULL
#define MPI_2INTEGER          MPI_DATATYPE_NULL

#define MPI_OP_NULL ((MPI_Op)0x50000000)
#define MPI_MAX     ((MPI_Op)0x50000001)
#define MPI_MIN     ((MPI_Op)0x50000002)
#define MPI_SUM     ((MPI_Op)0x50000003)
#define MPI_PROD    ((MPI_Op)0x50000004)
#define MPI_LAND    ((MPI_Op)0x50000005)
#define MPI_BAND    ((MPI_Op)0x50000006)
#define MPI_LOR     ((MPI_Op)0x50000007)
#define MPI_BOR     ((MPI_Op)0x50000008)
#define MPI_LXOR    ((MPI_Op)0x50000009)
#define MPI_BXOR    ((MPI_Op)0x5000000a)
#define MPI_MAXLOC  ((MPI_Op)0x5000000b)
#define MPI_MINLOC  ((MPI_Op)0x5000000c)
#define MPI_REPLACE ((MPI_Op)0x5000000d)
#define MPI_NO_OP   ((MPI_Op)0x5000000e)

#define MPI_ERRHANDLER_NULL  ((MPI_Errhandler)0x54000000)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x54000001)
#define MPI_ERRORS_RETURN    ((MPI_Errhandler)0x54000002)

#define MPI_REQUEST_NULL ((MPI_Request)0x58000000)

#define MPI_INFO_NULL ((MPI_Info)0x5c000000)
#define MPI_INFO_ENV  ((MPI_Info)0x5c000001)

#define MPI_WIN_NULL ((MPI_Win)0x60000000)

#define MPI_FILE_NULL ((MPI_File)0x64000000)

#define MPI_MESSAGE_NULL    ((MPI_Message)0x68000000)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)0x68000001)

/* Attribute keys (keyvals are ints). MPI_WTIME_IS_GLOBAL is true: all ranks share one clock. */
#define MPI_KEYVAL_INVALID    0x6c000000
#define MPI_TAG_UB            0x6c000001
#define MPI_HOST              0x6c000002
#define MPI_IO                0x6c000003
#define MPI_WTIME_IS_GLOBAL   0x6c000004
#define MPI_APPNUM            0x6c000005
#define MPI_UNIVERSE_SIZE     0x6c000006
#define MPI_LASTUSEDCODE      0x6c000007
#define MPI_WIN_BASE          0x6c000008
#define MPI_WIN_SIZE          0x6c000009
#define MPI_WIN_DISP_UNIT     0x6c00000a
#define MPI_WIN_CREATE_FLAVOR 0x6c00000b
#define MPI_WIN_MODEL         0x6c00000c

/* ------------------------------------------------------------------ status */

/* The status of a completed receive. MPI_SOURCE, MPI_TAG and MPI_ERROR are public; the other
 * fields belong to the library (use MPI_Get_count, MPI_Test_cancelled). */
typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int tm_cancelled;
    MPI_Count tm_count;
} MPI_Status;

#define MPI_STATUS_IGNORE   ((MPI_Status *)1)
#define MPI_STATUSES_IGNORE ((MPI_Status *)1)

/* The layout of a status seen as an array of MPI_Fint (Fortran's INTEGER status) */
#define MPI_F_STATUS_SIZE     6
#define MPI_F_SOURCE          0
#define MPI_F_TAG             1
#define MPI_F_ERROR           2
#define MPI_F_STATUS_IGNORE   ((MPI_Fint *)1)
#define MPI_F_STATUSES_IGNORE ((MPI_Fint *)1)

/* ------------------------------------------------------------------ error classes */

#define MPI_SUCCESS                   0
#define MPI_ERR_BUFFER                1
#define MPI_ERR_COUNT                 2
#define MPI_ERR_TYPE                  3
#define MPI_ERR_TAG                   4
#define MPI_ERR_COMM                  5
#define MPI_ERR_RANK                  6
#define MPI_ERR_REQUEST               7
#define MPI_ERR_ROOT                  8
#define MPI_ERR_GROUP                 9
#define MPI_ERR_OP                    10
#define MPI_ERR_TOPOLOGY              11
#define MPI_ERR_DIMS                  12
#define MPI_ERR_ARG                   13
#define MPI_ERR_UNKNOWN               14
#define MPI_ERR_TRUNCATE              15
#define MPI_ERR_OTHER                 16
#define MPI_ERR_INTERN                17
#define MPI_ERR_IN_STATUS             18
#define MPI_ERR_PENDING               19
#define MPI_ERR_KEYVAL                20
#define MPI_ERR_NO_MEM                21
#define MPI_ERR_BASE                  22
#define MPI_ERR_INFO_KEY              23
#define MPI_ERR_INFO_VALUE            24
#define MPI_ERR_INFO_NOKEY            25
#define MPI_ERR_SPAWN                 26
#define MPI_ERR_PORT                  27
#define MPI_ERR_SERVICE               28
#define MPI_ERR_NAME                  29
#define MPI_ERR_WIN                   30
#define MPI_ERR_SIZE                  31
#define MPI_ERR_DISP                  32
#define MPI_ERR_INFO                  33
#define MPI_ERR_LOCKTYPE              34
#define MPI_ERR_ASSERT                35
#define MPI_ERR_RMA_CONFLICT          36
#define MPI_ERR_RMA_SYNC              37
#define MPI_ERR_RMA_RANGE             38
#define MPI_ERR_RMA_ATTACH            39
#define MPI_ERR_RMA_SHARED            40
#define MPI_ERR_RMA_FLAVOR            41
#define MPI_ERR_FILE                  42
#define MPI_ERR_NOT_SAME              43
#define MPI_ERR_AMODE                 44
#define MPI_ERR_UNSUPPORTED_DATAREP   45
#define MPI_ERR_UNSUPPORTED_OPERATION 46
#define MPI_ERR_NO_SUCH_FILE          47
#define MPI_ERR_FILE_EXISTS           48
#define MPI_ERR_BAD_FILE              49
#define MPI_ERR_ACCESS                50
#define MPI_ERR_NO_SPACE              51
#define MPI_ERR_QUOTA                 52
#define MPI_ERR_READ_ONLY             53
#define MPI_ERR_FILE_IN_USE           54
#define MPI_ERR_DUP_DATAREP           55
#define MPI_ERR_CONVERSION            56
#define MPI_ERR_IO                    57
#define MPI_ERR_LASTCODE              58

/* ------------------------------------------------------------------ other constants */

#define MPI_ANY_SOURCE (-2)
#define MPI_ANY_TAG    (-1)
#define MPI_PROC_NULL  (-1)
#define MPI_ROOT       (-3)
#define MPI_UNDEFINED  (-32766)

#define MPI_BOTTOM          ((void *)0)
#define MPI_IN_PLACE        ((void *)-1)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_ARGV_NULL       ((char **)0)
#define MPI_ARGVS_NULL      ((char ***)0)
#define MPI_UNWEIGHTED      ((int *)2)
#define MPI_WEIGHTS_EMPTY   ((int *)3)

/* Thread support levels; ThreadMPI provides each (see MPI_Init_thread) */
#define MPI_THREAD_SINGLE     0
#define MPI_THREAD_FUNNELED   1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE   3

#define MPI_MAX_PROCESSOR_NAME         256
#define MPI_MAX_ERROR_STRING           512
#define MPI_MAX_PORT_NAME              256
#define MPI_MAX_OBJECT_NAME            128
#define MPI_MAX_INFO_KEY               255
#define MPI_MAX_INFO_VAL               1024
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPI_MAX_DATAREP_STRING         128

#define MPI_BSEND_OVERHEAD 96

/* Results of MPI_Comm_compare and MPI_Group_compare */
#define MPI_IDENT     0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR   2
#define MPI_UNEQUAL   3

/* Topologies */
#define MPI_GRAPH      1
#define MPI_CART       2
#define MPI_DIST_GRAPH 3

#define MPI_COMM_TYPE_SHARED 1

#define MPI_TYPECLASS_REAL    1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

#define MPI_COMBINER_NAMED            1
#define MPI_COMBINER_DUP              2
#define MPI_COMBINER_CONTIGUOUS       3
#define MPI_COMBINER_VECTOR           4
#define MPI_COMBINER_HVECTOR_INTEGER  5
#define MPI_COMBINER_HVECTOR          6
#define MPI_COMBINER_INDEXED          7
#define MPI_COMBINER_HINDEXED_INTEGER 8
#define MPI_COMBINER_HINDEXED         9
#define MPI_COMBINER_INDEXED_BLOCK    10
#define MPI_COMBINER_HINDEXED_BLOCK   11
#define MPI_COMBINER_STRUCT_INTEGER   12
#define MPI_COMBINER_STRUCT           13
#define MPI_COMBINER_SUBARRAY         14
#define MPI_COMBINER_DARRAY           15
#define MPI_COMBINER_F90_REAL         16
#define MPI_COMBINER_F90_COMPLEX      17
#define MPI_COMBINER_F90_INTEGER      18
#define MPI_COMBINER_RESIZED          19

#define MPI_ORDER_C       56
#define MPI_ORDER_FORTRAN 57

#define MPI_DISTRIBUTE_BLOCK     121
#define MPI_DISTRIBUTE_CYCLIC    122
#define MPI_DISTRIBUTE_NONE      123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* File access modes */
#define MPI_MODE_CREATE          1
#define MPI_MODE_RDONLY          2
#define MPI_MODE_WRONLY          4
#define MPI_MODE_RDWR            8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN     32
#define MPI_MODE_EXCL            64
#define MPI_MODE_APPEND          128
#define MPI_MODE_SEQUENTIAL      256

/* One-sided assertions */
#define MPI_MODE_NOCHECK   1024
#define MPI_MODE_NOSTORE   2048
#define MPI_MODE_NOPUT     4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384

#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED    235

#define MPI_WIN_FLAVOR_CREATE   1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC  3
#define MPI_WIN_FLAVOR_SHARED   4

#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED  2

#define MPI_SEEK_SET             600
#define MPI_SEEK_CUR             602
#define MPI_SEEK_END             604
#define MPI_DISPLACEMENT_CURRENT (-54278278)

/* ------------------------------------------------------------------ callback types */

typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
/* MPI-4.0's large-count form, for MPI_Op_create_c: called once with every element. */
typedef void MPI_User_function_c(void *invec, void *inoutvec, MPI_Count *len,
                                 MPI_Datatype *datatype);

typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                          void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval,
                                          void *attribute_val, void *extra_state);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state,
                                       void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val,
                                         void *extra_state);

/* Deprecated forms of the communicator attribute callbacks */
typedef int MPI_Copy_function(MPI_Comm oldcomm, int keyval, void *extra_state,
                              void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Delete_function(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state);

typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *errcode, ...);
typedef void MPI_Win_errhandler_function(MPI_Win *win, int *errcode, ...);
typedef void MPI_File_errhandler_function(MPI_File *file, int *errcode, ...);
/* Deprecated names of the error handler callbacks */
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
/* MPI-1's name of the communicator error handler callback, for MPI_Errhandler_create */
typedef MPI_Comm_errhandler_function MPI_Handler_function;

typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);

typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint *extent, void *extra_state);
typedef int MPI_Datarep_conversion_function(void *userbuf, MPI_Datatype datatype, int count,
                                            void *filebuf, MPI_Offset position, void *extra_state);

/* Predefined callbacks that do nothing */
#define MPI_NULL_COPY_FN        ((MPI_Copy_function *)0)
#define MPI_NULL_DELETE_FN      ((MPI_Delete_function *)0)
#define MPI_COMM_NULL_COPY_FN   ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)
#define MPI_TYPE_NULL_COPY_FN   ((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function *)0)
#define MPI_WIN_NULL_COPY_FN    ((MPI_Win_copy_attr_function *)0)
#define MPI_WIN_NULL_DELETE_FN  ((MPI_Win_delete_attr_function *)0)
#define MPI_CONVERSION_FN_NULL  ((MPI_Datarep_conversion_function *)0)
/* The callbacks that copy the attribute's value (MPIX_Comm_dup_fn is declared below) */
#define MPI_COMM_DUP_FN ((MPI_Comm_copy_attr_function *)MPIX_Comm_dup_fn)
#define MPI_DUP_FN      ((MPI_Copy_function *)MPIX_Comm_dup_fn)
#define MPI_TYPE_DUP_FN ((MPI_Type_copy_attr_function *)MPIX_Comm_dup_fn)
#define MPI_WIN_DUP_FN  ((MPI_Win_copy_attr_function *)MPIX_Comm_dup_fn)

/* ------------------------------------------------------------------ functions */

/*
 * MPI_Init: initializes MPI for the calling rank; same as MPI_Init_thread with
 * MPI_THREAD_SINGLE. argc and argv may be NULL; they are neither read nor modified. Calling it
 * twice, or after MPI_Finalize, is an error.
 */
int MPI_Init(int *argc, char ***argv);
int PMPI_Init(int *argc, char ***argv);

/*
 * MPI_Init_thread: initializes MPI for the calling rank and sets *provided to the thread level
 * required. Under MPI_THREAD_SERIALIZED and _MULTIPLE the threads the rank starts (and theirs)
 * call MPI for it, each call holding the rank's turn; under the lower levels only the rank's own
 * thread may make MPI calls.
 */
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided);

/* MPI_Initialized: *flag = true once the calling rank has called MPI_Init (even after
 * MPI_Finalize). May be called before MPI_Init and after MPI_Finalize. */
int MPI_Initialized(int *flag);
int PMPI_Initialized(int *flag);

/*
 * MPI_Finalize: ends the use of MPI by the calling rank. Afterwards only MPI_Initialized,
 * MPI_Finalized, MPI_Get_version, MPI_Get_library_version, MPI_Wtime and MPI_Wtick may be
 * called. Calling it twice, or before MPI_Init, is an error.
 */
int MPI_Finalize(void);
int PMPI_Finalize(void);

/* MPI_Finalized: *flag = true once the calling rank has called MPI_Finalize. May be called
 * before MPI_Init and after MPI_Finalize. */
int MPI_Finalized(int *flag);
int PMPI_Finalized(int *flag);

/* MPI_Query_thread: *provided = the thread level MPI_Init or MPI_Init_thread gave the rank. */
int MPI_Query_thread(int *provided);
int PMPI_Query_thread(int *provided);

/* MPI_Is_thread_main: *flag = true when called by the rank's own thread (the one that
 * initialized MPI), false when called by any other thread (at any time). */
int MPI_Is_thread_main(int *flag);
int PMPI_Is_thread_main(int *flag);

/* MPI_Abort: ends the whole job (every rank of every communicator) with exit status
 * errorcode, after a line on stderr naming the calling rank. Does not return. */
int MPI_Abort(MPI_Comm comm, int errorcode);
int PMPI_Abort(MPI_Comm comm, int errorcode);

/* MPI_Comm_rank: *rank = the rank of the caller in comm. */
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int PMPI_Comm_rank(MPI_Comm comm, int *rank);

/* MPI_Comm_size: *size = the number of ranks in comm. */
int MPI_Comm_size(MPI_Comm comm, int *size);
int PMPI_Comm_size(MPI_Comm comm, int *size);

/* MPI_Wtime: seconds elapsed since an arbitrary origin in the past. The clock is the same for
 * all ranks (MPI_WTIME_IS_GLOBAL). May be called at any time, by any thread. */
double MPI_Wtime(void);
double PMPI_Wtime(void);

/* MPI_Wtick: the resolution of MPI_Wtime, in seconds. May be called at any time, by any
 * thread. */
double MPI_Wtick(void);
double PMPI_Wtick(void);

/* MPI_Get_processor_name: copies the host name, truncated to MPI_MAX_PROCESSOR_NAME - 1
 * characters and NUL-terminated, into name (at least MPI_MAX_PROCESSOR_NAME bytes);
 * *resultlen = its length. */
int MPI_Get_processor_name(char *name, int *resultlen);
int PMPI_Get_processor_name(char *name, int *resultlen);

/* MPI_Alloc_mem: *(void **)baseptr = size bytes (a block of its own for 0), aligned to 64 bytes;
 * info (or MPI_INFO_NULL) is checked and ignored. MPI_ERR_NO_MEM when memory is short. */
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);

/* MPI_Free_mem: frees memory from MPI_Alloc_mem (NULL: nothing); MPI_ERR_BASE for a pointer
 * MPI_Alloc_mem did not return, or returned and was freed already. */
int MPI_Free_mem(void *base);
int PMPI_Free_mem(void *base);

/* Handle conversions to and from Fortran integers (a handle's value is kept: an invalid one
 * stays invalid). MPI_Status_c2f and MPI_Status_f2c copy a status to and from its
 * MPI_F_STATUS_SIZE integers (MPI_ERR_ARG for NULL or an IGNORE). */
MPI_Fint MPI_Comm_c2f(MPI_Comm handle);
MPI_Comm MPI_Comm_f2c(MPI_Fint handle);
MPI_Fint PMPI_Comm_c2f(MPI_Comm handle);
MPI_Comm PMPI_Comm_f2c(MPI_Fint handle);
MPI_Fint MPI_Group_c2f(MPI_Group handle);
MPI_Group MPI_Group_f2c(MPI_Fint handle);
MPI_Fint PMPI_Group_c2f(MPI_Group handle);
MPI_Group PMPI_Group_f2c(MPI_Fint handle);
MPI_Fint MPI_Type_c2f(MPI_Datatype handle);
MPI_Datatype MPI_Type_f2c(MPI_Fint handle);
MPI_Fint PMPI_Type_c2f(MPI_Datatype handle);
MPI_Datatype PMPI_Type_f2c(MPI_Fint handle);
MPI_Fint MPI_Op_c2f(MPI_Op handle);
MPI_Op MPI_Op_f2c(MPI_Fint handle);
MPI_Fint PMPI_Op_c2f(MPI_Op handle);
MPI_Op PMPI_Op_f2c(MPI_Fint handle);
MPI_Fint MPI_Errhandler_c2f(MPI_Errhandler handle);
MPI_Errhandler MPI_Errhandler_f2c(MPI_Fint handle);
MPI_Fint PMPI_Errhandler_c2f(MPI_Errhandler handle);
MPI_Errhandler PMPI_Errhandler_f2c(MPI_Fint handle);
MPI_Fint MPI_Request_c2f(MPI_Request handle);
MPI_Request MPI_Request_f2c(MPI_Fint handle);
MPI_Fint PMPI_Request_c2f(MPI_Request handle);
MPI_Request PMPI_Request_f2c(MPI_Fint handle);
MPI_Fint MPI_Info_c2f(MPI_Info handle);
MPI_Info MPI_Info_f2c(MPI_Fint handle);
MPI_Fint PMPI_Info_c2f(MPI_Info handle);
MPI_Info PMPI_Info_f2c(MPI_Fint handle);
MPI_Fint MPI_Win_c2f(MPI_Win handle);
MPI_Win MPI_Win_f2c(MPI_Fint handle);
MPI_Fint PMPI_Win_c2f(MPI_Win handle);
MPI_Win PMPI_Win_f2c(MPI_Fint handle);
MPI_Fint MPI_File_c2f(MPI_File handle);
MPI_File MPI_File_f2c(MPI_Fint handle);
MPI_Fint PMPI_File_c2f(MPI_File handle);
MPI_File PMPI_File_f2c(MPI_Fint handle);
MPI_Fint MPI_Message_c2f(MPI_Message handle);
MPI_Message MPI_Message_f2c(MPI_Fint handle);
MPI_Fint PMPI_Message_c2f(MPI_Message handle);
MPI_Message PMPI_Message_f2c(MPI_Fint handle);
int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);
int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);

/* MPI_Get_version: *version = MPI_VERSION, *subversion = MPI_SUBVERSION. May be called at any
 * time, by any thread. */
int MPI_Get_version(int *version, int *subversion);
int PMPI_Get_version(int *version, int *subversion);

/* MPI_Get_library_version: copies "ThreadMPI <version> ..." into version (at least
 * MPI_MAX_LIBRARY_VERSION_STRING bytes); *resultlen = its length. May be called at any time, by
 * any thread. */
int MPI_Get_library_version(char *version, int *resultlen);
int PMPI_Get_library_version(char *version, int *resultlen);

/* MPI_Pcontrol: for profiling tools, which intercept it; the library itself ignores it. */
int MPI_Pcontrol(const int level, ...);
int PMPI_Pcontrol(const int level, ...);

/* MPI_Error_string: copies the description of errorcode into string (at least
 * MPI_MAX_ERROR_STRING bytes); *resultlen = its length. An invalid code is MPI_ERR_ARG. */
int MPI_Error_string(int errorcode, char *string, int *resultlen);
int PMPI_Error_string(int errorcode, char *string, int *resultlen);

/* MPI_Error_class: *errorclass = the class of errorcode. An invalid code is MPI_ERR_ARG. */
int MPI_Error_class(int errorcode, int *errorclass);
int PMPI_Error_class(int errorcode, int *errorclass);

/* Error classes, codes and their strings that the program adds: numbered above
 * MPI_ERR_LASTCODE, each rank's own (as each process's), the last one in the attribute
 * MPI_LASTUSEDCODE; MPI_Error_string gives an added code's string ("" until it is set). */
int MPI_Add_error_class(int *errorclass);
int PMPI_Add_error_class(int *errorclass);
int MPI_Add_error_code(int errorclass, int *errorcode);
int PMPI_Add_error_code(int errorclass, int *errorcode);
int MPI_Add_error_string(int errorcode, const char *string);
int PMPI_Add_error_string(int errorcode, const char *string);

/* ------------------------------------------------------------------ point-to-point
 *
 * Messages between ranks are copied once, from the sender's buffer to the receiver's: up to
 * [p2p] eager_limit bytes (4 KiB by default) they travel in a cell of the receiver's mailbox (the
 * send completes at once); above that
 * the receiver copies straight from the sender's buffer, type to type, without packing (the send
 * completes once it has). Any committed datatype may be used on either side, as long as the
 * type signatures match. Order: two messages of one sender to one receiver that both match a
 * receive arrive in the order sent (non-overtaking). */

/* Blocking sends: return once buf may be reused. Ssend returns once the receive has started
 * (it has the data); Rsend requires the receive to be posted already. */
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);

/* Non-blocking sends: *request completes as the blocking send would return. */
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request);
int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request);
int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request);

/* Receives: source may be MPI_ANY_SOURCE, tag MPI_ANY_TAG; a message longer than the buffer is
 * MPI_ERR_TRUNCATE. With MPI_PROC_NULL a receive completes at once with an empty status. */
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status);
int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status);
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request);
int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request);

/* MPI_Sendrecv: a send and a receive at once (no deadlock between two ranks doing it to each
 * other); MPI_Sendrecv_replace uses one buffer for both. */
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status);
int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status);
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status);

/* MPI_Isendrecv, MPI_Isendrecv_replace (MPI-4.0): their non-blocking forms. The request
 * completes when both the send and the receive have; its status is the receive's. It may be
 * freed while pending, not cancelled (MPI_ERR_REQUEST). */
int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Request *request);
int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                   int recvtag, MPI_Comm comm, MPI_Request *request);
int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Request *request);
int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request);

/* The large-count forms (MPI-4.0): the same calls with MPI_Count counts. A count whose bytes are
 * more than memory can hold is MPI_ERR_COUNT. */
int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm);
int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm);
int MPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm);
int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm);
int MPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm);
int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm);
int MPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request);
int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request);
int MPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request);
int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request);
int MPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request);
int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request);
int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
               MPI_Comm comm, MPI_Status *status);
int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Status *status);
int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Request *request);
int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                 MPI_Comm comm, MPI_Request *request);
int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                           int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Status *status);
int MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Request *request);
int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request *request);
int MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Request *request);
int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request);

/* Probes: the status of a message that a receive with (source, tag) would get, without
 * receiving it. MPI_Probe waits for one; MPI_Iprobe sets *flag. */
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);

/* Buffered sends: MPI_Bsend/MPI_Ibsend copy the message into the buffer attached with
 * MPI_Buffer_attach (each message takes its packed size plus MPI_BSEND_OVERHEAD; no room is
 * MPI_ERR_BUFFER) and return; MPI_Buffer_detach waits until the buffered messages are sent and
 * stores the buffer's address in *(void **)buffer_addr. */
int MPI_Buffer_attach(void *buffer, int size);
int PMPI_Buffer_attach(void *buffer, int size);
int MPI_Buffer_detach(void *buffer_addr, int *size);
int PMPI_Buffer_detach(void *buffer_addr, int *size);
/* MPI_Buffer_flush (MPI-4.1): waits until the buffered messages are sent, keeping the buffer;
 * MPI_Buffer_iflush: *request completes once those buffered before the call are. */
int MPI_Buffer_flush(void);
int PMPI_Buffer_flush(void);
int MPI_Buffer_iflush(MPI_Request *request);
int PMPI_Buffer_iflush(MPI_Request *request);
int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request);
/* Their large-count forms (MPI-4.0). */
int MPI_Buffer_attach_c(void *buffer, MPI_Count size);
int PMPI_Buffer_attach_c(void *buffer, MPI_Count size);
int MPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size);
int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size);
int MPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm);
int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm);
int MPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request);
int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request);

/* Persistent requests: MPI_*_init record the arguments of an operation in an inactive request;
 * MPI_Start/MPI_Startall start it; completing it (wait/test) makes it inactive again, with its
 * handle kept, until MPI_Request_free. */
int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request);
int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request);
int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request);
int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request);
int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request *request);
int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request *request);
/* Their large-count forms (MPI-4.0). */
int MPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request);
int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request);
int MPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request);
int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request);
int MPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request);
int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request);
int MPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request);
int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request);
int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, MPI_Request *request);
int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Request *request);
int MPI_Start(MPI_Request *request);
int PMPI_Start(MPI_Request *request);
int MPI_Startall(int count, MPI_Request requests[]);
int PMPI_Startall(int count, MPI_Request requests[]);

/* Matched probes: MPI_Mprobe/MPI_Improbe find a message as MPI_Probe does and take it out of
 * matching into *message (MPI_MESSAGE_NO_PROC for MPI_PROC_NULL); MPI_Mrecv/MPI_Imrecv receive
 * exactly that message and set *message to MPI_MESSAGE_NULL. */
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                MPI_Status *status);
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status);
int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
              MPI_Status *status);
int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status);
int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Request *request);
int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request);
/* Their large-count forms (MPI-4.0). */
int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Status *status);
int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Status *status);
int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Request *request);
int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                  MPI_Request *request);

/* MPI_Cancel: a receive still posted is cancelled (its status says so: MPI_Test_cancelled), and
 * so is a send (persistent or not, eager or not) whose message no receive has matched yet: no
 * receiver sees it. An operation already matched completes normally. A generalized request's
 * cancel function is called. The request must still be completed with a wait or test. */
int MPI_Cancel(MPI_Request *request);
int PMPI_Cancel(MPI_Request *request);
int MPI_Test_cancelled(const MPI_Status *status, int *flag);
int PMPI_Test_cancelled(const MPI_Status *status, int *flag);

/* Generalized requests (MPI 3.1, 12.2). MPI_Grequest_start makes a request that the program
 * completes with MPI_Grequest_complete; a wait or test on it then calls query_fn to fill the
 * status (its error is the call's; MPI_ERR_IN_STATUS from the -all and -some forms) and free_fn
 * (its error when query_fn succeeded). MPI_Request_free calls free_fn at once if the request is
 * complete, else MPI_Grequest_complete calls it. MPI_Cancel calls cancel_fn (complete: whether
 * MPI_Grequest_complete was called). MPI_Grequest_complete may be called by any rank or by any
 * thread of the program that is no rank at all (the one call allowed there); on such a thread
 * an error is returned, as no error handler can run there. The handle is waited for, tested,
 * freed and cancelled by the rank that started it. */
int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                       MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                       MPI_Request *request);
int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request);
int MPI_Grequest_complete(MPI_Request request);
int PMPI_Grequest_complete(MPI_Request request);

/* For query functions: the status says `count` basic elements of datatype were received
 * (MPI_Get_elements gives them back; MPI_Get_count the whole datatypes among them), or that the
 * operation was cancelled (MPI_Test_cancelled). */
int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count);
int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count);
int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
int MPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
int MPI_Status_set_cancelled(MPI_Status *status, int flag);
int PMPI_Status_set_cancelled(MPI_Status *status, int flag);

/* MPI_Get_count: elements of datatype received (MPI_UNDEFINED if not a whole number).
 * MPI_Get_elements(_x): basic elements received (MPI_UNDEFINED if the data ends inside one). */
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
/* Their large-count forms (MPI-4.0). */
int MPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
int MPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);

/* Completion. Wait/Test complete one request and set it to MPI_REQUEST_NULL; the -all forms
 * complete all (MPI_ERR_IN_STATUS when some failed: see each status's MPI_ERROR); -any one
 * (*index, MPI_UNDEFINED when all are null); -some at least one (*outcount, indices). Test forms
 * never wait: *flag says whether they completed. Arrays of statuses are declared as pointers so
 * that MPI_STATUSES_IGNORE passes without compiler warnings. */
int MPI_Wait(MPI_Request *request, MPI_Status *status);
int PMPI_Wait(MPI_Request *request, MPI_Status *status);
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int MPI_Waitall(int count, MPI_Request requests[], MPI_Status *statuses);
int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status *statuses);
int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status *statuses);
int PMPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status *statuses);
int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status);
int PMPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status);
int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status);
int PMPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status);
int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status *statuses);
int PMPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                  MPI_Status *statuses);
int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status *statuses);
int PMPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                  MPI_Status *statuses);

/* MPI_Request_free: the request goes (when its operation completes); *request = null.
 * MPI_Request_get_status: like MPI_Test, without freeing the request. */
int MPI_Request_free(MPI_Request *request);
int PMPI_Request_free(MPI_Request *request);
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);

/* ------------------------------------------------------------------ datatypes
 *
 * Derived datatypes are process-wide objects: a handle stays valid until MPI_Type_free. Types
 * need not be committed to build other types or be queried; they must be to carry data (Pack,
 * Unpack, communication). Invalid, freed or uncommitted types where a committed one is needed are
 * MPI_ERR_TYPE; negative counts MPI_ERR_COUNT; negative block lengths and NULL arrays or outputs
 * MPI_ERR_ARG. Errors of type calls go to MPI_COMM_WORLD's handler, those of MPI_Pack, MPI_Unpack
 * and MPI_Pack_size to the handler of their communicator.
 */

/* MPI_Type_contiguous: count copies of oldtype, each at the previous one's extent. */
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);

/* MPI_Type_vector: count blocks of blocklength oldtypes, stride oldtype extents apart. */
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype);
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype);

/* MPI_Type_create_hvector: as MPI_Type_vector with the stride in bytes. */
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype);
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype);

/* MPI_Type_indexed: block i is array_of_blocklengths[i] oldtypes at array_of_displacements[i]
 * oldtype extents. */
int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype);

/* MPI_Type_create_hindexed: as MPI_Type_indexed with displacements in bytes. */
int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype);

/* MPI_Type_create_indexed_block: as MPI_Type_indexed with one block length for all blocks. */
int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype);

/* MPI_Type_create_hindexed_block: as MPI_Type_create_indexed_block with byte displacements. */
int MPI_Type_create_hindexed_block(int count, int blocklength,
                                   const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype);
int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype);

/* MPI_Type_create_struct: block i is array_of_blocklengths[i] elements of array_of_types[i] at
 * byte array_of_displacements[i]. Without an MPI_UB marker, the extent is rounded up to the
 * strictest alignment of the basic types (as a C struct). MPI_LB and MPI_UB set the bounds. */
int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype);

/* MPI_Type_create_resized: oldtype with lower bound lb and extent `extent`. */
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype);
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype);

/* MPI_Type_create_subarray: the block array_of_starts + [0, array_of_subsizes) of an ndims array
 * of array_of_sizes oldtypes in MPI_ORDER_C or MPI_ORDER_FORTRAN; its extent is the whole
 * array's. */
int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype);

/* MPI_Type_create_darray: the part of an ndims array of array_of_gsizes oldtypes (in order
 * MPI_ORDER_C or MPI_ORDER_FORTRAN) that process `rank` of a row-major array_of_psizes grid of
 * `size` processes owns, each dimension MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC (darg: the
 * block size, or MPI_DISTRIBUTE_DFLT_DARG) or MPI_DISTRIBUTE_NONE (psize 1); its extent is the
 * whole array's. */
int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype *newtype);
int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype);

/* The large-count forms (MPI-4.0) of the constructors above: counts, and displacements in
 * bytes, as MPI_Count. MPI_Type_get_envelope_c and _get_contents_c describe the types they
 * make; the plain MPI_Type_get_envelope and _get_contents refuse them (MPI_ERR_TYPE). */
int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                      MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                              MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                       const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                       MPI_Datatype *newtype);
int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype);
int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                               const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                               MPI_Datatype *newtype);
int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype);
int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                    const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype);
int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype);
int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype);
int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                             const MPI_Count array_of_displacements[],
                             const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                              MPI_Datatype *newtype);
int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype *newtype);
int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                               const MPI_Count array_of_subsizes[],
                               const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                               MPI_Datatype *newtype);
int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype *newtype);
int MPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                             const int array_of_distribs[], const int array_of_dargs[],
                             const int array_of_psizes[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype);

/* MPI_Type_dup: a new type with oldtype's typemap and committed state. */
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);

/* MPI_Type_commit: makes *datatype usable for communication (committing twice is harmless). */
int MPI_Type_commit(MPI_Datatype *datatype);
int PMPI_Type_commit(MPI_Datatype *datatype);

/* MPI_Type_free: frees *datatype and sets it to MPI_DATATYPE_NULL. Operations under way and
 * types built from it are not affected. Predefined types cannot be freed (MPI_ERR_TYPE). */
int MPI_Type_free(MPI_Datatype *datatype);
int PMPI_Type_free(MPI_Datatype *datatype);

/* MPI_Type_size: *size = bytes of data in one element (MPI_UNDEFINED if above INT_MAX). */
int MPI_Type_size(MPI_Datatype datatype, int *size);
int PMPI_Type_size(MPI_Datatype datatype, int *size);
int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);

/* MPI_Type_get_extent: the lower bound and extent (ub - lb) of the type. */
int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);

/* MPI_Type_get_true_extent: the bounds of the data itself, ignoring markers and resizing. */
int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent);
int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent);
int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent);
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent);
/* The large-count forms (MPI-4.0) of the three _x calls. */
int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size);
int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size);
int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent);
int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent);

/* MPI_Type_get_envelope: how the type was made (MPI_COMBINER_*) and the sizes of its
 * arguments, for MPI_Type_get_contents. */
int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner);
int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner);

/* MPI_Type_get_contents: the arguments the type was made with. Derived types returned are new
 * handles, which the caller frees; predefined ones are returned as they are. A predefined
 * datatype has no contents (MPI_ERR_ARG). */
int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
                          MPI_Datatype array_of_datatypes[]);
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]);
/* Their large-count forms (MPI-4.0): a type made by a _c constructor keeps its counts and
 * byte displacements among the large counts. */
int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                            MPI_Count *num_addresses, MPI_Count *num_large_counts,
                            MPI_Count *num_datatypes, int *combiner);
int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                             MPI_Count *num_addresses, MPI_Count *num_large_counts,
                             MPI_Count *num_datatypes, int *combiner);
int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                            MPI_Count max_large_counts, MPI_Count max_datatypes,
                            int array_of_integers[], MPI_Aint array_of_addresses[],
                            MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]);
int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes,
                             int array_of_integers[], MPI_Aint array_of_addresses[],
                             MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]);

/* MPI_Type_get_name: the type's name ("MPI_INT", or set by MPI_Type_set_name; "" by default)
 * into type_name (MPI_MAX_OBJECT_NAME bytes). */
int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);

/* MPI_Type_set_name: names a derived type (truncated to MPI_MAX_OBJECT_NAME - 1 characters). */
int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name);

/* Datatypes' attributes: keyvals made by MPI_Type_create_keyval. A derived type's are copied by
 * MPI_Type_dup (through the copy callback) and deleted by MPI_Type_free, newest first; those a
 * rank sets on a predefined type are its own, as a process's. */
int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                           MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                           void *extra_state);
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state);
int MPI_Type_free_keyval(int *type_keyval);
int PMPI_Type_free_keyval(int *type_keyval);
int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val);
int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val);
int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag);
int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag);
int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);
int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);

/* MPI_Type_match_size: the predefined C type of MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX with
 * `size` bytes (MPI_ERR_ARG if none). */
int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype);
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype);

/* MPI_Type_create_f90_integer, _real, _complex: the datatype of Fortran's
 * SELECTED_INT_KIND(r) and SELECTED_REAL_KIND(p, r) (either may be MPI_UNDEFINED, not both):
 * 1, 2, 4 or 8-byte integers, float, double or long double (complex: two of them). The same
 * handle for the same arguments; predefined: committed, never freed (MPI_ERR_TYPE); its
 * envelope's combiner is MPI_COMBINER_F90_*, its contents the arguments. No such kind:
 * MPI_ERR_ARG. */
int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype);
int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype);
int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype);
int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype);
int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype);
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype);

/* MPI_Get_address: the address of location, as an MPI_Aint. */
int MPI_Get_address(const void *location, MPI_Aint *address);
int PMPI_Get_address(const void *location, MPI_Aint *address);

/* MPI_Aint_add, MPI_Aint_diff: base + disp and addr1 - addr2, as addresses. Any thread, any
 * time. */
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);

/* MPI_Pack: appends the data of (inbuf, incount, datatype) to outbuf at *position and advances
 * it. Overflowing outsize is MPI_ERR_TRUNCATE. */
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm);
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm);

/* MPI_Unpack: reads (outbuf, outcount, datatype) from inbuf at *position and advances it.
 * Reading past insize is MPI_ERR_TRUNCATE. */
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm);
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm);

/* MPI_Pack_size: *size = the bytes MPI_Pack needs for incount elements of datatype. */
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);

/* MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size: the same in the portable
 * "external32" representation (big-endian, IEEE; the only datarep accepted, else MPI_ERR_ARG). */
int MPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                      void *outbuf, MPI_Aint outsize, MPI_Aint *position);
int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position);
int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                        MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype);
int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype);
int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                           MPI_Aint *size);
int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size);
/* Their large-count forms (MPI-4.0). */
int MPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
               MPI_Count outsize, MPI_Count *position, MPI_Comm comm);
int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm);
int MPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                 MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm);
int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm);
int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size);
int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size);
int MPI_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount,
                        MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                        MPI_Count *position);
int PMPI_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position);
int MPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                          MPI_Count *position, void *outbuf, MPI_Count outcount,
                          MPI_Datatype datatype);
int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           MPI_Datatype datatype);
int MPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                             MPI_Count *size);
int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count *size);

/* ------------------------------------------------------------------ end of datatypes */

/* ------------------------------------------------------------------ reduction operations
 *
 * The predefined operations are defined on the types of MPI 3.1 section 5.9.2 (MPI_MAXLOC and
 * MPI_MINLOC on the pair types MPI_FLOAT_INT ... MPI_LONG_DOUBLE_INT), and on the derived types
 * whose typemap is made of such a type alone; another combination is MPI_ERR_OP. User-defined
 * operations are process-wide objects, like derived datatypes: a handle stays valid until
 * MPI_Op_free, and operations under way keep theirs. Errors of these calls go to MPI_COMM_WORLD's
 * handler.
 */

/* MPI_Op_create: *op = an operation that calls user_fn(invec, inoutvec, &len, &datatype) to
 * compute inoutvec[i] = invec[i] op inoutvec[i], invec holding the data of the lower ranks;
 * commute (true or false) says whether the order of the operands may change. */
int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
int MPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op);
int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op);

/* MPI_Op_free: frees *op and sets it to MPI_OP_NULL; predefined operations cannot be freed
 * (MPI_ERR_OP). */
int MPI_Op_free(MPI_Op *op);
int PMPI_Op_free(MPI_Op *op);

/* MPI_Op_commutative: *commute = whether op is commutative (every predefined operation is, but
 * MPI_REPLACE and MPI_NO_OP). */
int MPI_Op_commutative(MPI_Op op, int *commute);
int PMPI_Op_commutative(MPI_Op op, int *commute);

/* MPI_Reduce_local: inoutbuf[i] = inbuf[i] op inoutbuf[i] for count elements of datatype
 * (committed); MPI_IN_PLACE is MPI_ERR_BUFFER. */
int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                     MPI_Op op);
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op);
int MPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op);
int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op);

/* ------------------------------------------------------------------ end of reduction operations */

/* ------------------------------------------------------------------ groups, communicator queries,
 * error handlers, attributes, info objects, MPI_Dims_create
 *
 * Groups, error handlers, attribute keys and info objects are handles of the calling rank: a
 * rank cannot use another rank's (each rank runs its own copy of the program anyway).
 */

/* MPI_Comm_group: *group = a new handle on the group of comm. Free it with MPI_Group_free. */
int MPI_Comm_group(MPI_Comm comm, MPI_Group *group);
int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group);

/* MPI_Group_size: *size = the number of members of group. */
int MPI_Group_size(MPI_Group group, int *size);
int PMPI_Group_size(MPI_Group group, int *size);

/* MPI_Group_rank: *rank = the rank of the caller in group, or MPI_UNDEFINED. */
int MPI_Group_rank(MPI_Group group, int *rank);
int PMPI_Group_rank(MPI_Group group, int *rank);

/* MPI_Group_translate_ranks: ranks2[i] = the rank in group2 of member ranks1[i] of group1, or
 * MPI_UNDEFINED; MPI_PROC_NULL stays MPI_PROC_NULL. A rank out of group1 is MPI_ERR_RANK. */
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[]);
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[]);

/* MPI_Group_compare: *result = MPI_IDENT (same members, same order), MPI_SIMILAR (same members)
 * or MPI_UNEQUAL. */
int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);

/* MPI_Group_union: group1's members, then group2's that are not in group1. Set operations and
 * selections return MPI_GROUP_EMPTY when the result has no members. */
int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);

/* MPI_Group_intersection: group1's members that are in group2, in group1's order. */
int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);

/* MPI_Group_difference: group1's members that are not in group2, in group1's order. */
int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);

/* MPI_Group_incl: members ranks[0..n-1] of group, in that order. Ranks out of the group or given
 * twice are MPI_ERR_RANK; n out of [0, size] is MPI_ERR_ARG. */
int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);

/* MPI_Group_excl: the members of group but ranks[0..n-1], in group order (errors as incl). */
int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);

/* MPI_Group_range_incl: the ranks of the n triplets {first, last, stride}, in that order. A
 * first or last out of the group, or a rank selected twice, is MPI_ERR_RANK; a zero stride, or
 * one that goes away from last, is MPI_ERR_ARG. */
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);

/* MPI_Group_range_excl: the members of group but those of the triplets, in group order. */
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);

/* MPI_Group_free: frees the handle (*group = MPI_GROUP_NULL); MPI_GROUP_EMPTY may be freed. */
int MPI_Group_free(MPI_Group *group);
int PMPI_Group_free(MPI_Group *group);

/* MPI_Comm_compare: *result = MPI_IDENT (the same communicator), MPI_CONGRUENT (same members in
 * the same order), MPI_SIMILAR (same members) or MPI_UNEQUAL. */
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);

/* MPI_Comm_test_inter: *flag = whether comm is an intercommunicator. */
int MPI_Comm_test_inter(MPI_Comm comm, int *flag);
int PMPI_Comm_test_inter(MPI_Comm comm, int *flag);

/* Intercommunicators (MPI 3.1, 6.6). MPI_Intercomm_create: collective over local_comm and, at
 * once, the local_comm of the other group, whose leaders (local_leader of each) are ranks of
 * peer_comm (remote_leader: the other leader's rank there) and exchange the groups over it with
 * `tag`; the groups must be disjoint (else MPI_ERR_COMM). On an intercommunicator, a rank names a
 * rank of the remote group in point-to-point calls; MPI_Comm_rank, MPI_Comm_size and
 * MPI_Comm_group are of the local group; MPI_Comm_dup and MPI_Comm_idup duplicate it. Their
 * collectives: MPI_Barrier, MPI_Bcast, MPI_Gather(v), MPI_Scatter(v), MPI_Allgather(v),
 * MPI_Alltoall(v,w), MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter(_block), blocking, non-blocking
 * and persistent, rooted ones with MPI_ROOT at the root and MPI_PROC_NULL at the rest of its
 * group; MPI_Comm_create takes a subgroup of each side and makes the intercommunicator between
 * them (MPI_COMM_NULL outside them, or when one is empty); MPI_Comm_split makes one
 * intercommunicator per color that both sides have (MPI_COMM_NULL for the others); the scans,
 * topologies, MPI_Comm_split_type and MPI_Comm_create_group refuse intercommunicators
 * (MPI_ERR_COMM). MPI_Intercomm_merge: the intracommunicator of both groups, the one that passes
 * high = false first (a group's high is its rank 0's; on a tie, the one whose rank 0 has the lower
 * rank in MPI_COMM_WORLD).
 * MPI_Comm_remote_size, MPI_Comm_remote_group: the remote group. */
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm);
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm);
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
int MPI_Comm_remote_size(MPI_Comm comm, int *size);
int PMPI_Comm_remote_size(MPI_Comm comm, int *size);
int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);

/* MPI_Comm_set_name: names the calling rank's view of comm (truncated to
 * MPI_MAX_OBJECT_NAME - 1 characters). */
int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name);

/* MPI_Comm_get_name: copies the name of comm ("MPI_COMM_WORLD", "MPI_COMM_SELF" by default) into
 * comm_name (at least MPI_MAX_OBJECT_NAME bytes); *resultlen = its length. */
int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);
int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);

/* MPI_Comm_create_errhandler: *errhandler = a handler that calls comm_errhandler_fn(&comm,
 * &errorcode) for the errors of the communicators it is set on; if the function returns, so
 * does the failing call, with the error code. */
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                               MPI_Errhandler *errhandler);
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                                MPI_Errhandler *errhandler);

/* MPI_Comm_set_errhandler: sets the error handler of the calling rank's view of comm. */
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);

/* MPI_Comm_get_errhandler: *errhandler = the error handler of comm (a new reference: give it
 * back with MPI_Errhandler_free). */
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);

/* MPI_Comm_call_errhandler: invokes comm's error handler on errorcode; returns MPI_SUCCESS if
 * the handler returns. */
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);

/* MPI_Errhandler_free: frees the handle (*errhandler = MPI_ERRHANDLER_NULL); communicators that
 * use the handler keep it. */
int MPI_Errhandler_free(MPI_Errhandler *errhandler);
int PMPI_Errhandler_free(MPI_Errhandler *errhandler);

/* MPI_Comm_create_keyval: *comm_keyval = a new attribute key. comm_copy_attr_fn (or
 * MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN) decides what communicators created by duplication
 * inherit; comm_delete_attr_fn (or MPI_COMM_NULL_DELETE_FN) is called when a value is deleted or
 * replaced, and its error is the call's. */
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                           void *extra_state);
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                            void *extra_state);

/* MPI_Comm_free_keyval: frees the key (*comm_keyval = MPI_KEYVAL_INVALID); attributes set with
 * it remain until deleted. Predefined keys cannot be freed (MPI_ERR_KEYVAL). */
int MPI_Comm_free_keyval(int *comm_keyval);
int PMPI_Comm_free_keyval(int *comm_keyval);

/* MPI_Comm_set_attr: attaches attribute_val to comm under comm_keyval (an existing value is
 * deleted first). The predefined attributes are read-only (MPI_ERR_KEYVAL). */
int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);
int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);

/* MPI_Comm_get_attr: *(void **)attribute_val = the value and *flag = true, or *flag = false.
 * Every communicator has the predefined attributes, whose values are pointers to int:
 * MPI_TAG_UB, MPI_HOST (MPI_PROC_NULL), MPI_IO (MPI_ANY_SOURCE), MPI_WTIME_IS_GLOBAL (1),
 * MPI_APPNUM (0), MPI_UNIVERSE_SIZE (the number of ranks), MPI_LASTUSEDCODE. */
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag);
int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag);

/* MPI_Comm_delete_attr: deletes the attribute, calling the key's delete callback; when the
 * callback fails, the attribute stays and its error is returned. */
int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);
int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);

/* The copy callback of MPI_COMM_DUP_FN: copies the value and sets *flag. */
int MPIX_Comm_dup_fn(MPI_Comm oldcomm, int comm_keyval, void *extra_state, void *attribute_val_in,
                     void *attribute_val_out, int *flag);

/* MPI_Info_create: *info = a new, empty info object. */
int MPI_Info_create(MPI_Info *info);
int PMPI_Info_create(MPI_Info *info);

/* MPI_Info_set: sets key to value (keys of 1 to MPI_MAX_INFO_KEY characters, else
 * MPI_ERR_INFO_KEY; values of at most MPI_MAX_INFO_VAL, else MPI_ERR_INFO_VALUE). A new key
 * comes after the existing ones; an existing key keeps its place. */
int MPI_Info_set(MPI_Info info, const char *key, const char *value);
int PMPI_Info_set(MPI_Info info, const char *key, const char *value);

/* MPI_Info_get: when key is set, copies at most valuelen characters of its value and a NUL into
 * value (valuelen + 1 bytes) and sets *flag; otherwise *flag = false. */
int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag);
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag);

/* MPI_Info_get_string (MPI-4.0): key's value into value, *buflen - 1 characters at most and the
 * NUL; *buflen = the bytes the whole value needs with its NUL; *flag = whether key is set (a
 * key not set leaves *buflen and value as they were). */
int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag);
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag);

/* MPI_Info_get_valuelen: *valuelen = the length of key's value (without the NUL), *flag = true;
 * or *flag = false. */
int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag);
int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag);

/* MPI_Info_get_nkeys: *nkeys = the number of keys set. */
int MPI_Info_get_nkeys(MPI_Info info, int *nkeys);
int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys);

/* MPI_Info_get_nthkey: copies the n-th key (from 0, in the order keys were first set) into key
 * (MPI_MAX_INFO_KEY + 1 bytes). */
int MPI_Info_get_nthkey(MPI_Info info, int n, char *key);
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key);

/* MPI_Info_delete: removes key (MPI_ERR_INFO_NOKEY when it is not set). */
int MPI_Info_delete(MPI_Info info, const char *key);
int PMPI_Info_delete(MPI_Info info, const char *key);

/* MPI_Info_dup: *newinfo = a new info object with the same keys, values and order. */
int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo);
int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo);

/* MPI_Info_free: frees info (*info = MPI_INFO_NULL). MPI_INFO_ENV, which holds "maxprocs",
 * "host", "arch" and "wdir" for the job, is read-only: modifying or freeing it is
 * MPI_ERR_INFO. */
int MPI_Info_free(MPI_Info *info);
int PMPI_Info_free(MPI_Info *info);

/* MPI_Dims_create: fills the zero entries of dims[0..ndims-1] with the most balanced
 * factorisation, in non-increasing order, of nnodes divided by the product of the non-zero
 * entries (MPI_ERR_DIMS when that does not divide, or for a negative entry). */
int MPI_Dims_create(int nnodes, int ndims, int dims[]);
int PMPI_Dims_create(int nnodes, int ndims, int dims[]);

/* ------------------------------------------------------------------ end of groups ... dims */

/* ------------------------------------------------------------------ communicator creation
 *
 * Collective calls (all the ranks of comm call them, in the same order; MPI_Comm_create_group:
 * the members of group), except MPI_Comm_free, MPI_Comm_set_info and MPI_Comm_get_info, which
 * are local. Errors go to comm's handler. A new communicator has comm's error handler, no name
 * and, for MPI_Comm_dup and MPI_Comm_idup only, the attributes that comm's copy callbacks copy.
 */

/* MPI_Comm_dup: *newcomm = a communicator with the members of comm in the same order, and a
 * context of its own (messages on one never match receives on the other). */
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);

/* MPI_Comm_dup_with_info: MPI_Comm_dup; info (or MPI_INFO_NULL) is checked and ignored. */
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);

/* MPI_Comm_idup: MPI_Comm_dup without waiting for the other members; newcomm may be used once
 * *request (of a non-blocking collective: completed by MPI_Wait, MPI_Test and their forms, never
 * freed) is complete. */
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);
/* MPI_Comm_idup_with_info (MPI-4.0): MPI_Comm_idup; info (or MPI_INFO_NULL) is checked and
 * ignored. */
int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                            MPI_Request *request);
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                             MPI_Request *request);

/* MPI_Comm_split: one communicator per color (>= 0), its members ordered by key, then by rank in
 * comm; color MPI_UNDEFINED gives MPI_COMM_NULL, a negative color MPI_ERR_ARG. */
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);

/* MPI_Comm_split_type: MPI_COMM_TYPE_SHARED gives all the ranks of comm (they all share this
 * node's memory), ordered by key; MPI_UNDEFINED gives MPI_COMM_NULL; other types MPI_ERR_ARG.
 * info (MPI_INFO_NULL allowed) is checked and ignored. */
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm);
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm);

/* MPI_Comm_create: all the ranks of comm pass the same group, a subgroup of comm's (else
 * MPI_ERR_GROUP); its members get a communicator with the group's order, the others
 * MPI_COMM_NULL. */
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);

/* MPI_Comm_create_group: as MPI_Comm_create, but only the members of group call it (another
 * caller is MPI_ERR_GROUP); tag (0 to MPI_TAG_UB, else MPI_ERR_TAG) tells apart calls made at
 * the same time by overlapping groups. */
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm);
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm);

/* MPI_Comm_free: deletes the attributes of comm (a failing delete callback stops the free and
 * its error is returned), then frees it (*comm = MPI_COMM_NULL). Operations pending on comm must
 * complete first. MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed (MPI_ERR_COMM). */
int MPI_Comm_free(MPI_Comm *comm);
int PMPI_Comm_free(MPI_Comm *comm);

/* MPI_Comm_disconnect: collective; the requests on comm that the program freed while pending
 * complete, the members meet, then comm is freed as by MPI_Comm_free. Every rank is in the job
 * from its start (no dynamic processes), so there is nothing else to disconnect from. */
int MPI_Comm_disconnect(MPI_Comm *comm);
int PMPI_Comm_disconnect(MPI_Comm *comm);

/* MPI_Comm_set_info: info is checked and ignored (ThreadMPI takes no communicator hints). */
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info);
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info);

/* MPI_Comm_get_info: *info_used = a new, empty info object (no hint is in use). */
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used);
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used);

/* ------------------------------------------------------------------ end of comm creation */

/* ------------------------------------------------------------------ process topologies
 *
 * The constructors are collective over comm_old and never reorder ranks (reorder is ignored):
 * rank i of the new communicator is rank i of comm_old. MPI_Comm_dup copies the topology. A
 * query on a communicator without the right topology is MPI_ERR_TOPOLOGY.
 */

/* MPI_Cart_create: the first dims[0] x ... x dims[ndims-1] ranks of comm_old (more than its size
 * is MPI_ERR_TOPOLOGY, a dimension <= 0 MPI_ERR_DIMS) form a grid, in row-major order; the
 * others get MPI_COMM_NULL. periods[i] makes dimension i wrap around. */
int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *comm_cart);
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart);

/* MPI_Cart_map: *newrank = the caller's rank in the grid Cart_create would make (ranks are not
 * reordered: its rank in comm, or MPI_UNDEFINED when the grid has fewer processes). */
int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank);
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank);

/* MPI_Cartdim_get: *ndims = the number of dimensions. */
int MPI_Cartdim_get(MPI_Comm comm, int *ndims);
int PMPI_Cartdim_get(MPI_Comm comm, int *ndims);

/* MPI_Cart_get: the first maxdims dimensions, periods and coordinates of the caller. */
int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);

/* MPI_Cart_rank: *rank = the rank at coords (wrapped in periodic dimensions; out of range in
 * another is MPI_ERR_ARG). */
int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank);
int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank);

/* MPI_Cart_coords: the coordinates of rank (maxdims below the dimensions is MPI_ERR_ARG). */
int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);

/* MPI_Cart_shift: the ranks disp below (*rank_source) and above (*rank_dest) the caller along
 * direction; MPI_PROC_NULL off the edge of a dimension that is not periodic. */
int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest);
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest);

/* MPI_Cart_sub: the ranks that share the coordinates of the dimensions not kept form a grid of
 * the dimensions kept (remain_dims[i] != 0). */
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);

/* MPI_Topo_test: *status = MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH or MPI_UNDEFINED. */
int MPI_Topo_test(MPI_Comm comm, int *status);
int PMPI_Topo_test(MPI_Comm comm, int *status);

/* MPI_Graph_create: the first nnodes ranks of comm_old form the graph where node i's neighbours
 * are edges[index[i-1] .. index[i]-1] (index[-1] = 0); the others get MPI_COMM_NULL. */
int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm *comm_graph);
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph);

/* MPI_Graph_map: *newrank = the caller's node in the graph Graph_create would make (its rank in
 * comm, or MPI_UNDEFINED when it is not one of the first nnodes ranks). */
int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank);
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank);

/* MPI_Graphdims_get: *nnodes, *nedges of the graph. */
int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges);
int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges);

/* MPI_Graph_get: the first maxindex entries of index and maxedges of edges. */
int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]);
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]);

/* MPI_Graph_neighbors_count, MPI_Graph_neighbors: the neighbours of rank (at most
 * maxneighbors of them). */
int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors);
int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors);
int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);
int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);

/* MPI_Dist_graph_create_adjacent: every rank of comm_old gets the new communicator, with its own
 * in- and out-neighbours (weights, or MPI_UNWEIGHTED on both sides); info is checked and
 * ignored. */
int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int *sourceweights, int outdegree,
                                   const int destinations[], const int *destweights, MPI_Info info,
                                   int reorder, MPI_Comm *comm_dist_graph);
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int *sourceweights, int outdegree,
                                    const int destinations[], const int *destweights, MPI_Info info,
                                    int reorder, MPI_Comm *comm_dist_graph);

/* MPI_Dist_graph_create: every rank of comm_old gets the new communicator; each names any edges
 * (sources[i] -> destinations[...], degrees[i] of them for source i, in turn) with their weights
 * or MPI_UNWEIGHTED (then on every rank; MPI_WEIGHTS_EMPTY when a rank names no edge), and learns
 * its own in- and out-neighbours, in the order of the ranks that named the edges, then of their
 * lists. info is checked and ignored. */
int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int *weights, MPI_Info info,
                          int reorder, MPI_Comm *comm_dist_graph);
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int *weights, MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph);

/* MPI_Dist_graph_neighbors_count: the caller's degrees and whether the graph is weighted. */
int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted);
int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted);

/* MPI_Dist_graph_neighbors: the caller's first maxindegree sources and maxoutdegree
 * destinations, with their weights when the graph has them. */
int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int *sourceweights,
                             int maxoutdegree, int destinations[], int *destweights);
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int *sourceweights,
                              int maxoutdegree, int destinations[], int *destweights);

/* ------------------------------------------------------------------ end of topologies */

/* ------------------------------------------------------------------ collectives
 *
 * Every collective exists blocking and non-blocking (MPI_I...: complete the request with
 * MPI_Wait, MPI_Test and their forms; MPI_Request_free and MPI_Cancel refuse it). Any number may
 * be outstanding on a communicator, beside its point-to-point traffic; every member starts them
 * in the same order. Non-blocking ones run on the rank's progress thread where a core is free
 * for it, split with the rank itself by the split-tree ([nbc] split_levels).
 */

/* MPI_Bcast: root's count elements of buffer reach every member's buffer. */
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request);
int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request);

/* MPI_Reduce: root's recvbuf gets op over every member's sendbuf (in rank order unless op
 * commutes); MPI_IN_PLACE as the root's sendbuf: its data is in recvbuf. */
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm);
int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm);
int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request);
int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request);

/* MPI_Gather: every member's sendbuf to block `rank` of root's recvbuf; MPI_IN_PLACE as the
 * root's sendbuf: its block is already there. */
int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request *request);
int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request);

/* MPI_Gatherv: MPI_Gather with a count and a displacement per member at the root. */
int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm);
int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm);
int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request);
int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request);
int MPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                  int root, MPI_Comm comm);
int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm);
int MPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request);
int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Request *request);
int MPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request);
int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request);

/* MPI_Scatter: block `rank` of root's sendbuf to every member's recvbuf; MPI_IN_PLACE as the
 * root's recvbuf: its block stays where it is. */
int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request);
int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request);

/* MPI_Scatterv: MPI_Scatter with a count and a displacement per member at the root. */
int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm);
int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm);
int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request *request);
int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request);
int MPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm);
int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
int MPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                        MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request);
int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                         MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request);

/* MPI_Scan: recvbuf of rank r gets op over the sendbufs of ranks 0 .. r, in rank order;
 * MPI_IN_PLACE as sendbuf: the data is in recvbuf. */
int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm);
int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm);
int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request);
int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request);

/* MPI_Exscan: MPI_Scan over ranks 0 .. r - 1; rank 0's recvbuf is left untouched. */
int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm);
int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm);
int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request);
int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request);

/* MPI_Reduce_scatter: op over every member's sendbuf, in rank order; block j of the result
 * (recvcounts[j] elements, the blocks back to back) goes to rank j's recvbuf. MPI_IN_PLACE as
 * sendbuf: the data is in recvbuf, the block lands at its start. */
int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
int MPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                              MPI_Request *request);
int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request);

/* MPI_Reduce_scatter_block: MPI_Reduce_scatter with recvcount elements in every block. */
int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request);
int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request);

/* The neighbourhood collectives, over comm's process topology (none: MPI_ERR_TOPOLOGY; no
 * MPI_IN_PLACE). Neighbours in the order of MPI_Cart_shift per dimension (-1, then +1; none off
 * a non-periodic edge: that block is left untouched), MPI_Graph_neighbors, or
 * MPI_Dist_graph_neighbors. MPI_Neighbor_allgather: sendbuf to every out-neighbour, block k of
 * recvbuf from in-neighbour k. */
int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request);
int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request);

/* MPI_Neighbor_allgatherv: MPI_Neighbor_allgather with a count and a displacement per
 * in-neighbour. */
int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                              MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request *request);
int MPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request);
int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request);

/* MPI_Neighbor_alltoall: block k of sendbuf to out-neighbour k, block k of recvbuf from
 * in-neighbour k. */
int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request);
int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request);

/* MPI_Neighbor_alltoallv: MPI_Neighbor_alltoall with a count and a displacement (in extents) per
 * neighbour. */
int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request);
int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request);
int MPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                             const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                  const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                  const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request);
int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request);

/* MPI_Neighbor_alltoallw: MPI_Neighbor_alltoallv with a datatype per neighbour and
 * displacements in bytes. */
int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                            MPI_Comm comm);
int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request);
int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm, MPI_Request *request);
int MPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm);
int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm);
int MPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);
int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                               MPI_Comm comm, MPI_Request *request);
int MPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                  const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                  void *recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request);
/* MPI_Barrier: returns once every member has entered it. */
int MPI_Barrier(MPI_Comm comm);
int PMPI_Barrier(MPI_Comm comm);
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request);
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request);

/* MPI_Allgather: every member's sendbuf to block `rank` of every member's recvbuf; MPI_IN_PLACE
 * as sendbuf: the member's block is in recvbuf already. */
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);

/* MPI_Allgatherv: MPI_Allgather with a count and a displacement per member. */
int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm);
int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm);
int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request);
int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request);
int MPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                     MPI_Comm comm);
int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int MPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request);
int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                           MPI_Request *request);

/* MPI_Alltoall: block j of every member's sendbuf to block `rank` of member j's recvbuf;
 * MPI_IN_PLACE as sendbuf: the blocks to send are taken from recvbuf. */
int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);

/* MPI_Alltoallv: MPI_Alltoall with a count and a displacement (in extents) per member. */
int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request);
int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request);
int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request);
int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request);
int MPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request);

/* MPI_Alltoallw: MPI_Alltoallv with a datatype per member and displacements in bytes. */
int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request);
int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request);
int MPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int MPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                     MPI_Request *request);
int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                      MPI_Request *request);
int MPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                         MPI_Request *request);
int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request *request);

/* MPI_Allreduce: every member's recvbuf gets op over every member's sendbuf (in rank order
 * unless op is commutative); MPI_IN_PLACE as sendbuf: the data is taken from recvbuf. */
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm);
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm);
int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request);
int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Request *request);

/* Persistent collectives (MPI-4.0): MPI_Bcast_init ... check their arguments as the blocking
 * call does, take info (checked, no hint is used) and make an inactive persistent request. Each
 * MPI_Start (or MPI_Startall) runs the collective once, as its non-blocking form would; MPI_Wait
 * or MPI_Test completes that run and leaves the request inactive. Every member starts its
 * persistent collectives in the same order; one matches only the same persistent collective on
 * the other members. Buffers and arrays stay the program's until MPI_Request_free, which an
 * active request refuses (MPI_ERR_REQUEST), as does MPI_Cancel. */
int MPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request);
int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request);
int MPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request);
int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request);
int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request);
int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request);
int MPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Info info, MPI_Request *request);
int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request);
int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Info info, MPI_Request *request);
int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request);
int MPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request);
int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request);
int MPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request);
int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request);
int MPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request);
int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request);
int MPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request);
int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request);
int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request);
int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request);
int MPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                MPI_Request *request);
int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request);
int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request);
int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request);
int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request);
int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request);
int MPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request);
int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request);
int MPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);

/* The large-count forms (MPI-4.0) of the collectives whose counts are scalars: the same calls
 * with MPI_Count counts, each matching its int form on the other members (the v and w forms'
 * _c forms, with MPI_Count counts and MPI_Aint displacements, are beside their int forms). A
 * count whose bytes are more than memory can hold is MPI_ERR_COUNT. */
int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm);
int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm);
int MPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 MPI_Request *request);
int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  MPI_Request *request);
int MPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request *request);
int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request);
int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm);
int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm);
int MPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm, MPI_Request *request);
int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, int root, MPI_Comm comm, MPI_Request *request);
int MPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm);
int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm);
int MPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Request *request);
int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Request *request);
int MPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request);
int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
               MPI_Op op, MPI_Comm comm);
int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm);
int MPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Request *request);
int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request *request);
int MPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm);
int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm);
int MPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm, MPI_Request *request);
int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request);
int MPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);

int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request);
int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request);
int MPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request);
int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request *request);
int MPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request);
int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request);
int MPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request);
int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info info, MPI_Request *request);
int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request);
int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request);
int MPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, MPI_Request *request);
int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request);
int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request *request);
int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 MPI_Request *request);
int MPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request);
int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                     MPI_Request *request);
int MPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm);
int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm);
int MPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request);
int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request);
int MPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm);
int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm);
int MPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request);
int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request);
int MPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request);
/* ------------------------------------------------------------------ end of collectives */

/* ------------------------------------------------------------------ one-sided communication
 *
 * MPI-3.1 chapter 11. A window is memory of each member of a communicator that the others
 * read and write with MPI_Put, MPI_Get and the accumulates. The ranks are threads of one
 * process: an access is done by the origin itself, at the call, straight between its buffer
 * and the target's memory (a put is a copy, a get a copy back), so a target never has to call
 * MPI for an access to it to progress, and every access is complete when its call returns (the
 * flushes have nothing left to wait for; they check the epoch). The memory model is
 * MPI_WIN_UNIFIED. Accumulates (MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op,
 * MPI_Compare_and_swap and their request forms) are atomic per target: two of them never
 * interleave on the same target's memory. Access outside an epoch (no fence, start, lock or
 * lock_all open on that target) is MPI_ERR_RMA_SYNC; a target range outside the target's
 * window (or, in a dynamic window, outside memory attached to it) is MPI_ERR_RMA_RANGE.
 * Errors go to the window's error handler (MPI_ERRORS_ARE_FATAL unless set). */

/* MPI_Win_create: a window of size bytes at base on each member of comm (an intracommunicator),
 * addressed in units of disp_unit bytes (target_disp * disp_unit from base). Collective. */
int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win *win);
int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win);

/* MPI_Win_allocate: MPI_Win_create on size bytes that MPI allocates (aligned to 64 bytes);
 * *(void **)baseptr = their address. MPI_Win_free frees them. */
int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                     MPI_Win *win);
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win);

/* MPI_Win_allocate_shared: MPI_Win_allocate whose memory every member may also load and store
 * directly (MPI_Win_shared_query gives the others' addresses). The members' pieces are
 * contiguous, in rank order, unless info sets "alloc_shared_noncontig" to "true". */
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win);
int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win);

/* MPI_Win_shared_query: the size, disp_unit and address (*(void **)baseptr) of rank's memory
 * in a shared window; rank MPI_PROC_NULL: of the first member whose size is not 0. Windows of
 * the other flavors are MPI_ERR_RMA_FLAVOR. */
int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr);
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr);

/* MPI-4.0's `_c` forms of the creation calls and MPI_Win_shared_query: an MPI_Aint disp_unit.
 * The int forms and the MPI_WIN_DISP_UNIT attribute give MPI_UNDEFINED for a unit above
 * INT_MAX. */
int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                     MPI_Win *win);
int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                      MPI_Win *win);
int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                       void *baseptr, MPI_Win *win);
int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void *baseptr, MPI_Win *win);
int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                              void *baseptr, MPI_Win *win);
int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void *baseptr, MPI_Win *win);
int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                           void *baseptr);
int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                            void *baseptr);

/* MPI_Win_create_dynamic: a window without memory; each member attaches its own
 * (MPI_Win_attach) and target displacements are addresses (MPI_Get_address, MPI_BOTTOM). */
int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);

/* MPI_Win_attach, MPI_Win_detach: adds size bytes at base to the caller's memory of a dynamic
 * window, or removes the region attached at base (MPI_ERR_RMA_ATTACH when regions would
 * overlap, or when nothing was attached at base). Local. */
int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size);
int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size);
int MPI_Win_detach(MPI_Win win, const void *base);
int PMPI_Win_detach(MPI_Win win, const void *base);

/* MPI_Win_free: frees the window (*win = MPI_WIN_NULL) once every member has called it, after
 * deleting its attributes; MPI_ERR_RMA_SYNC while the caller has an epoch open (a lock, a
 * start or a post; a fence epoch ends here). Collective. */
int MPI_Win_free(MPI_Win *win);
int PMPI_Win_free(MPI_Win *win);

/* MPI_Win_get_group: *group = a new group of the window's members (those of its comm). */
int MPI_Win_get_group(MPI_Win win, MPI_Group *group);
int PMPI_Win_get_group(MPI_Win win, MPI_Group *group);

/* MPI_Win_set_info, MPI_Win_get_info: the info keys of the window; get returns a new info
 * object with "no_locks", "accumulate_ordering", "accumulate_ops", "same_size",
 * "same_disp_unit" and "alloc_shared_noncontig" as set at creation or by MPI_Win_set_info. */
int MPI_Win_set_info(MPI_Win win, MPI_Info info);
int PMPI_Win_set_info(MPI_Win win, MPI_Info info);
int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used);
int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used);

/* MPI_Win_set_name, MPI_Win_get_name: the window's name ("" until set). */
int MPI_Win_set_name(MPI_Win win, const char *win_name);
int PMPI_Win_set_name(MPI_Win win, const char *win_name);
int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen);
int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen);

/* Windows' error handlers, as communicators': a handler created for windows is called with
 * (&win, &errcode); a communicator's handler on a window (or the reverse) is MPI_ERR_ARG. */
int MPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                              MPI_Errhandler *errhandler);
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                               MPI_Errhandler *errhandler);
int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler);
int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler);
int MPI_Win_call_errhandler(MPI_Win win, int errorcode);
int PMPI_Win_call_errhandler(MPI_Win win, int errorcode);

/* Windows' attributes. MPI_WIN_BASE (void *), MPI_WIN_SIZE (MPI_Aint *), MPI_WIN_DISP_UNIT,
 * MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL (int *) are predefined and read-only; keyvals made by
 * MPI_Win_create_keyval hold the program's. Deleted by MPI_Win_free, newest first. */
int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                          MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                          void *extra_state);
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state);
int MPI_Win_free_keyval(int *win_keyval);
int PMPI_Win_free_keyval(int *win_keyval);
int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val);
int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val);
int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
int MPI_Win_delete_attr(MPI_Win win, int win_keyval);
int PMPI_Win_delete_attr(MPI_Win win, int win_keyval);

/* MPI_Put: writes (origin_addr, origin_count, origin_datatype) to target_rank's window at
 * target_disp, as (target_count, target_datatype); the signatures must match. MPI_Get reads
 * the other way. target_rank MPI_PROC_NULL: nothing. */
int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
            MPI_Win win);
int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win);
int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);

/* MPI_Accumulate: target = origin op target, element by element, with a predefined operation
 * (MPI_REPLACE: target = origin; MPI_NO_OP, which only the fetching calls take, is MPI_ERR_OP);
 * the datatypes are made of one predefined type the operation accepts. */
int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);

/* MPI_Get_accumulate: result = target, then MPI_Accumulate, in one atomic step (MPI_NO_OP: an
 * atomic read; origin is then not read). */
int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void *result_addr, int result_count, MPI_Datatype result_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);

/* MPI_Fetch_and_op: MPI_Get_accumulate of one element of a predefined datatype. */
int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win);
int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win);

/* MPI_Compare_and_swap: result = target; target = origin when it equals compare (bit for
 * bit); one element of a predefined integer, logical, byte or multi-language type. Atomic. */
int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Win win);
int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Win win);

/* The request forms, inside a passive-target epoch (lock or lock_all) only: the access is
 * done at the call, and *request is complete (MPI_Wait and MPI_Test free it). */
int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request);
int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request);
int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request *request);
int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                        MPI_Request *request);
int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void *result_addr, int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request *request);

/* MPI-4.0's `_c` forms of the calls above with counts: MPI_Count counts (MPI_ERR_COUNT when
 * the data's bytes overflow). */
int MPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win);
int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win);
int MPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win);
int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win);
int MPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int MPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                         MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPI_Win win);
int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win);
int MPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int MPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int MPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                       MPI_Request *request);
int MPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win, MPI_Request *request);
int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                           MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                           MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                           MPI_Win win, MPI_Request *request);

/* MPI_Win_fence: ends the members' accesses of the previous fence epoch and starts the next
 * one; collective. assert: MPI_MODE_NOSTORE, _NOPUT, _NOPRECEDE, _NOSUCCEED (NOSUCCEED: no
 * epoch follows; NOPRECEDE with accesses made since the last fence is MPI_ERR_RMA_SYNC). */
int MPI_Win_fence(int assert, MPI_Win win);
int PMPI_Win_fence(int assert, MPI_Win win);

/* General active target (PSCW). MPI_Win_post exposes the caller's memory to the members of
 * group; MPI_Win_start opens access to the members of group and waits until each has posted;
 * MPI_Win_complete ends that access; MPI_Win_wait waits until every member of the post's group
 * has completed (MPI_Win_test: *flag says whether they have, and ends the exposure if so).
 * assert: MPI_MODE_NOCHECK, _NOSTORE, _NOPUT (post), MPI_MODE_NOCHECK (start). */
int MPI_Win_post(MPI_Group group, int assert, MPI_Win win);
int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win);
int MPI_Win_start(MPI_Group group, int assert, MPI_Win win);
int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win);
int MPI_Win_complete(MPI_Win win);
int PMPI_Win_complete(MPI_Win win);
int MPI_Win_wait(MPI_Win win);
int PMPI_Win_wait(MPI_Win win);
int MPI_Win_test(MPI_Win win, int *flag);
int PMPI_Win_test(MPI_Win win, int *flag);

/* Passive target. MPI_Win_lock waits until rank's window is locked for the caller
 * (MPI_LOCK_EXCLUSIVE: by it alone; MPI_LOCK_SHARED: with other shared holders);
 * MPI_MODE_NOCHECK skips the lock. MPI_Win_lock_all locks every member shared. The target
 * never has to call MPI. MPI_Win_flush and _flush_local (one target), _flush_all and
 * _flush_local_all complete the caller's accesses, which are complete at their call.
 * MPI_Win_sync orders the caller's loads and stores to the window's memory against others'. */
int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win);
int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win);
int MPI_Win_unlock(int rank, MPI_Win win);
int PMPI_Win_unlock(int rank, MPI_Win win);
int MPI_Win_lock_all(int assert, MPI_Win win);
int PMPI_Win_lock_all(int assert, MPI_Win win);
int MPI_Win_unlock_all(MPI_Win win);
int PMPI_Win_unlock_all(MPI_Win win);
int MPI_Win_flush(int rank, MPI_Win win);
int PMPI_Win_flush(int rank, MPI_Win win);
int MPI_Win_flush_all(MPI_Win win);
int PMPI_Win_flush_all(MPI_Win win);
int MPI_Win_flush_local(int rank, MPI_Win win);
int PMPI_Win_flush_local(int rank, MPI_Win win);
int MPI_Win_flush_local_all(MPI_Win win);
int PMPI_Win_flush_local_all(MPI_Win win);
int MPI_Win_sync(MPI_Win win);
int PMPI_Win_sync(MPI_Win win);

/* ------------------------------------------------------------------ end of one-sided */

/* ------------------------------------------------------------------ files (MPI-IO) */

/* Files (ThreadMPI io/). MPI_File_open opens filename for the members of comm (collective;
 * the same amode everywhere, else MPI_ERR_NOT_SAME); MPI_File_close closes it (collective).
 * Errors with no file yet go to MPI_FILE_NULL's handler, MPI_ERRORS_RETURN unless
 * MPI_File_set_errhandler(MPI_FILE_NULL, ...) changed it; a file takes that handler when it
 * opens. Views: "native" and "internal" (the same bytes); "external32" (its types laid out with
 * the file's sizes: MPI_File_get_type_extent). */
int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh);
int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh);
int MPI_File_close(MPI_File *fh);
int PMPI_File_close(MPI_File *fh);
int MPI_File_delete(const char *filename, MPI_Info info);
int PMPI_File_delete(const char *filename, MPI_Info info);
int MPI_File_set_size(MPI_File fh, MPI_Offset size);
int PMPI_File_set_size(MPI_File fh, MPI_Offset size);
int MPI_File_preallocate(MPI_File fh, MPI_Offset size);
int PMPI_File_preallocate(MPI_File fh, MPI_Offset size);
int MPI_File_get_size(MPI_File fh, MPI_Offset *size);
int PMPI_File_get_size(MPI_File fh, MPI_Offset *size);
int MPI_File_get_group(MPI_File fh, MPI_Group *group);
int PMPI_File_get_group(MPI_File fh, MPI_Group *group);
int MPI_File_get_amode(MPI_File fh, int *amode);
int PMPI_File_get_amode(MPI_File fh, int *amode);
int MPI_File_set_info(MPI_File fh, MPI_Info info);
int PMPI_File_set_info(MPI_File fh, MPI_Info info);
int MPI_File_get_info(MPI_File fh, MPI_Info *info_used);
int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used);
int MPI_File_sync(MPI_File fh);
int PMPI_File_sync(MPI_File fh);
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info);
int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info);
int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                      char *datarep);
int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                       char *datarep);
int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent);
int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent);
int MPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent);
int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent);
int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence);
int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence);
int MPI_File_get_position(MPI_File fh, MPI_Offset *offset);
int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset);
int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp);
int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp);
int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence);
int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence);
int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset);
int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset);
int MPI_File_set_atomicity(MPI_File fh, int flag);
int PMPI_File_set_atomicity(MPI_File fh, int flag);
int MPI_File_get_atomicity(MPI_File fh, int *flag);
int PMPI_File_get_atomicity(MPI_File fh, int *flag);
int MPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                               MPI_Errhandler *errhandler);
int PMPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                                MPI_Errhandler *errhandler);
int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler);
int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler);
int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler);
int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler);
int MPI_File_call_errhandler(MPI_File fh, int errorcode);
int PMPI_File_call_errhandler(MPI_File fh, int errorcode);

/* Blocking accesses: at an explicit offset (_at), at the member's file pointer, at the shared
 * file pointer (_shared; _ordered: collective, in rank order). Offsets count etypes of the
 * view. The _all forms are collective: two-phase, through aggregators, where the members'
 * pieces interleave in the file (hints cb_nodes, cb_buffer_size, romio_cb_read/_write). */
int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                     MPI_Status *status);
int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status);
int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                         MPI_Datatype datatype, MPI_Status *status);
int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                          MPI_Datatype datatype, MPI_Status *status);
int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                      MPI_Datatype datatype, MPI_Status *status);
int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                       MPI_Datatype datatype, MPI_Status *status);
int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                          MPI_Datatype datatype, MPI_Status *status);
int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                           MPI_Datatype datatype, MPI_Status *status);
int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                       MPI_Status *status);
int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                   MPI_Status *status);
int PMPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                    MPI_Status *status);
int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                       MPI_Status *status);
int PMPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                        MPI_Status *status);
int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                         MPI_Status *status);
int PMPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status);
int MPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status);
int PMPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status);
int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status);
int PMPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status);
int MPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status);
int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Status *status);

/* The large-count forms (MPI-4.0) of the blocking accesses: counts as MPI_Count. A count whose
 * bytes are more than memory or a file can hold is MPI_ERR_COUNT, in either form. */
int MPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                       MPI_Datatype datatype, MPI_Status *status);
int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Status *status);
int MPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Status *status);
int PMPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Status *status);
int MPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Status *status);
int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Status *status);
int MPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Status *status);
int PMPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Status *status);
int MPI_File_read_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Status *status);
int PMPI_File_read_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Status *status);
int MPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Status *status);
int PMPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Status *status);
int MPI_File_write_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Status *status);
int PMPI_File_write_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Status *status);
int MPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Status *status);
int PMPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Status *status);
int MPI_File_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Status *status);
int PMPI_File_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status);
int MPI_File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status);
int PMPI_File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status);
int MPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status);
int PMPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status);
int MPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status);
int PMPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Status *status);

/* Non-blocking accesses: they run in an I/O thread while the rank goes on; the file pointer
 * moves at the call; MPI_Wait and the other completion calls complete them. */
int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                      MPI_Request *request);
int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request);
int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                          MPI_Datatype datatype, MPI_Request *request);
int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                           MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                       MPI_Datatype datatype, MPI_Request *request);
int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                        MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                           MPI_Datatype datatype, MPI_Request *request);
int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                            MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request);
int PMPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request);
int MPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                    MPI_Request *request);
int PMPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                     MPI_Request *request);
int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request);
int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                         MPI_Request *request);
int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Request *request);
int PMPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request);
int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request);
int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Request *request);

/* Their large-count forms (MPI-4.0). */
int MPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Request *request);
int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Request *request);
int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Request *request);
int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request *request);
int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Request *request);
int MPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Request *request);
int PMPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Request *request);
int MPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Request *request);
int PMPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Request *request);
int MPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Request *request);
int PMPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Request *request);
int MPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Request *request);
int PMPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Request *request);
int MPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Request *request);
int PMPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Request *request);
int MPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Request *request);
int PMPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Request *request);

/* Split collectives: _begin does the access, _end (same buffer) returns its status; one at a
 * time per file. */
int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                               MPI_Datatype datatype);
int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                MPI_Datatype datatype);
int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status);
int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status);
int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                MPI_Datatype datatype);
int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                 MPI_Datatype datatype);
int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status);
int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status);
int MPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status);
int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status);
int MPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status);
int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status);
int MPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status);
int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status);
int MPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status);
int PMPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status);

/* The large-count forms (MPI-4.0) of the _begin calls; the _end calls above, which have no
 * count, end them too. */
int MPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                 MPI_Datatype datatype);
int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                  MPI_Datatype datatype);
int MPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                  MPI_Datatype datatype);
int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                   MPI_Datatype datatype);
int MPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype);
int PMPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype);
int MPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                               MPI_Datatype datatype);
int PMPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                MPI_Datatype datatype);
int MPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype);
int PMPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype);
int MPI_File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                   MPI_Datatype datatype);
int PMPI_File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                    MPI_Datatype datatype);

/* ------------------------------------------------------------------ end of files */

/* ------------------------------------------------------------------ MPI-1's removed functions */

/* The MPI-1 functions that MPI-3.0 removed, which old programs still call and MPICH still
 * provides, each the same as its successor: MPI_Address is MPI_Get_address; MPI_Type_hvector,
 * _hindexed and _struct are MPI_Type_create_hvector, _hindexed and _struct; MPI_Type_extent
 * gives the extent of MPI_Type_get_extent, MPI_Type_lb its lower bound and MPI_Type_ub the lower
 * bound plus the extent; MPI_Errhandler_create, _set and _get are MPI_Comm_create_errhandler,
 * _set_errhandler and _get_errhandler; MPI_Keyval_create and _free are MPI_Comm_create_keyval
 * and _free_keyval; MPI_Attr_put, _get and _delete are MPI_Comm_set_attr, _get_attr and
 * _delete_attr. */
int MPI_Address(void *location, MPI_Aint *address);
int PMPI_Address(void *location, MPI_Aint *address);
int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                      MPI_Datatype *newtype);
int MPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                      MPI_Datatype oldtype, MPI_Datatype *newtype);
int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                       MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                    MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);
int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);
int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler);
int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler);
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                      void *extra_state);
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state);
int MPI_Keyval_free(int *keyval);
int PMPI_Keyval_free(int *keyval);
int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
int MPI_Attr_delete(MPI_Comm comm, int keyval);
int PMPI_Attr_delete(MPI_Comm comm, int keyval);

/* ------------------------------------------------------------------ ThreadMPI extensions:
 * dynamic broadcasts and send aggregation (MPIX_, not in the MPI standard) */

/* Defined when this mpi.h has MPIX_Ibcast_dynamic and the MPIX_Deferred_send calls. */
#define THREADMPI_BCAST_DYNAMIC 1

/* MPIX_Ibcast_dynamic: sends (buf, count, datatype) to every rank of comm listed in dests, as if
 * the calling rank (the root) had sent it to each with MPI_Isend(..., dest, tag, comm). Only the
 * root calls it: each destination receives the data with an ordinary receive (MPI_Recv,
 * MPI_Irecv, MPI_Probe, MPI_Mprobe...) from the root or MPI_ANY_SOURCE with `tag` (or
 * MPI_ANY_TAG), and its status names the root as source. The destinations need not know each
 * other, nor that a broadcast is under way; ranks not listed receive nothing.
 *
 * The data travels down a binomial tree built over dests: each active message carries the
 * destination list of the receiver's subtree, and the runtime of each destination (its progress
 * thread, or its own MPI calls) forwards it to its children before handing it to the program,
 * without waiting for the program's receive. MPI's order holds for the messages of the root to a
 * destination: they match in the order the root sent them, plain sends and dynamic broadcasts
 * alike.
 *
 * dests: ndests ranks of comm (MPI_PROC_NULL entries are skipped); a rank listed twice, or the
 * root itself, is an error (MPI_ERR_ARG); a rank outside comm is MPI_ERR_RANK. tag: 0 to
 * MPI_TAG_UB. dests may be reused as soon as the call returns; *request completes when buf may
 * be reused. */
int MPIX_Ibcast_dynamic(const void *buf, int count, MPI_Datatype datatype, const int dests[],
                        int ndests, int tag, MPI_Comm comm, MPI_Request *request);
int PMPIX_Ibcast_dynamic(const void *buf, int count, MPI_Datatype datatype, const int dests[],
                         int ndests, int tag, MPI_Comm comm, MPI_Request *request);

/* Send aggregation: a handle that gathers the destinations of data that is not ready yet, for
 * task-based runtimes that learn them one by one. */
typedef int MPIX_Deferred_send;
#define MPIX_DEFERRED_SEND_NULL ((MPIX_Deferred_send)0x70000000)

/* MPIX_Deferred_send_init: a new handle for sending (buf, count, datatype) with `tag` on comm,
 * with no destination yet. buf need not hold the data until MPIX_Deferred_send_ready. */
int MPIX_Deferred_send_init(const void *buf, int count, MPI_Datatype datatype, int tag,
                            MPI_Comm comm, MPIX_Deferred_send *handle);
int PMPIX_Deferred_send_init(const void *buf, int count, MPI_Datatype datatype, int tag,
                             MPI_Comm comm, MPIX_Deferred_send *handle);

/* MPIX_Deferred_send_add: adds rank `dest` of the handle's communicator. Before
 * MPIX_Deferred_send_ready it joins the destination list (a destination already there is
 * ignored); after it, the data is sent to it at once with a plain send (unless it already got
 * it), whose completion MPIX_Deferred_send_free waits for. MPI_PROC_NULL is ignored; the
 * calling rank itself is an error (MPI_ERR_ARG). */
int MPIX_Deferred_send_add(MPIX_Deferred_send handle, int dest);
int PMPIX_Deferred_send_add(MPIX_Deferred_send handle, int dest);

/* MPIX_Deferred_send_ready: the data is in buf: sends it to the destinations gathered so far (no
 * destination: nothing; one: a plain send; several: MPIX_Ibcast_dynamic). *request completes
 * when buf may be reused by the sends started here. Once per handle (else MPI_ERR_OTHER). */
int MPIX_Deferred_send_ready(MPIX_Deferred_send handle, MPI_Request *request);
int PMPIX_Deferred_send_ready(MPIX_Deferred_send handle, MPI_Request *request);

/* MPIX_Deferred_send_free: waits until the sends started by MPIX_Deferred_send_add after
 * MPIX_Deferred_send_ready have completed, frees the handle and sets *handle to
 * MPIX_DEFERRED_SEND_NULL. Freed before ready, it sends nothing. The request of
 * MPIX_Deferred_send_ready stays the program's to complete. */
int MPIX_Deferred_send_free(MPIX_Deferred_send *handle);
int PMPIX_Deferred_send_free(MPIX_Deferred_send *handle);

#ifdef __cplusplus
}
#endif

#endif /* TM_MPI_H */
