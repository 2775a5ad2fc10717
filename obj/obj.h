/*
 * ThreadMPI obj/: the MPI objects that every layer above shares: handles and the rank's tables of
 * them, the rank's MPI state, communicators, groups, and errors with their handlers. Datatypes
 * (datatype.h) and reduction operations (op.h) have headers of their own.
 *
 * The objects keep the names of what they implement (tm_mpi_comm_t is an MPI_Comm): p2p/, nbc/,
 * coll/ and mpi/ all work on them. Status convention: functions return 0 or a negative errno
 * value, except those that resolve a handle or report an error for an MPI call (tm_mpi_comm_get,
 * tm_mpi_error_raise): they report what they find themselves and return the MPI error class that
 * the call must return.
 */
#ifndef TM_OBJ_H
#define TM_OBJ_H

/* Exactly the functions mpi.h declares leave the library (it is built with -fvisibility=hidden). */
#pragma GCC visibility push(default)
#include "mpi.h"
#pragma GCC visibility pop

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime/profile.h"
#include "runtime/rank.h"

/* ------------------------------------------------------------------ handles
 *
 *   31  30  29 .. 26  25 .............. 0
 *  +---+---+---------+-------------------+
 *  | 0 | 1 |  kind   |      payload      |     payload 0: the null handle of the kind
 *  +---+---+---------+-------------------+
 *
 * Bit 30 makes 0 and small integers (uninitialized variables, ranks, counts) invalid handles.
 * Predefined datatypes: payload = size << 8 | index (size 0 for the pairs, which may have padding,
 * and for MPI_LB and MPI_UB).
 */
#define TM_MPI_HANDLE_TAG_MASK     0xc0000000u
#define TM_MPI_HANDLE_TAG          0x40000000u
#define TM_MPI_HANDLE_KIND_SHIFT   26
#define TM_MPI_HANDLE_KIND_MASK    0xfu
#define TM_MPI_HANDLE_PAYLOAD_MASK 0x03ffffffu

typedef enum tm_mpi_kind {
    TM_MPI_KIND_NONE = 0, /* not a handle */
    TM_MPI_KIND_COMM,
    TM_MPI_KIND_GROUP,
    TM_MPI_KIND_DATATYPE,
    TM_MPI_KIND_OP,
    TM_MPI_KIND_ERRHANDLER,
    TM_MPI_KIND_REQUEST,
    TM_MPI_KIND_INFO,
    TM_MPI_KIND_WIN,
    TM_MPI_KIND_FILE,
    TM_MPI_KIND_MESSAGE,
    TM_MPI_KIND_KEYVAL,
    TM_MPI_KIND_DEFERRED, /* MPIX_Deferred_send */
    TM_MPI_KIND_LAST = TM_MPI_KIND_DEFERRED
} tm_mpi_kind_t;

#define TM_MPI_HANDLE(kind, payload)                                                               \
    ((int)(TM_MPI_HANDLE_TAG | (unsigned)(kind) << TM_MPI_HANDLE_KIND_SHIFT | (unsigned)(payload)))

/* The kind of object `handle` refers to, or TM_MPI_KIND_NONE when it is not a handle at all. */
static inline tm_mpi_kind_t tm_mpi_handle_kind(int handle)
{
    unsigned h = (unsigned)handle;
    unsigned kind = (h >> TM_MPI_HANDLE_KIND_SHIFT) & TM_MPI_HANDLE_KIND_MASK;

    if ((h & TM_MPI_HANDLE_TAG_MASK) != TM_MPI_HANDLE_TAG || kind > TM_MPI_KIND_LAST)
        return TM_MPI_KIND_NONE;
    return (tm_mpi_kind_t)kind;
}

static inline unsigned tm_mpi_handle_payload(int handle)
{
    return (unsigned)handle & TM_MPI_HANDLE_PAYLOAD_MASK;
}

/* Bytes of one element of a predefined contiguous datatype, from its handle. */
#define TM_MPI_DATATYPE_BUILTIN_SIZE(type) ((((unsigned)(type)) >> 8) & 0xffu)

/* "a communicator", "a datatype", ...: what a handle of this kind designates, for messages. */
const char *tm_mpi_handle_kind_name(tm_mpi_kind_t kind);

/* The largest tag (the MPI_TAG_UB attribute): collectives run in contexts of their own, so every
 * non-negative int is the user's. */
#define TM_MPI_TAG_UB 0x7fffffff

/* ------------------------------------------------------------------ per-rank state */

typedef struct tm_mpi_rank tm_mpi_rank_t;

/*
 * A group: its members in group order, as world ranks. Shared between handles, communicators and
 * ranks (the world group is one object for the whole process), so the count is atomic; groups
 * never change after creation. See group.h.
 */
typedef struct tm_mpi_group {
    _Atomic int refs;
    int size;
    /* Kept for the life of the process (the world group, the empty group): not counted, so that
     * the ranks do not all write one cache line at each reference (every collective's schedule
     * takes one) */
    bool immortal;
    int world_ranks[];
} tm_mpi_group_t;

typedef struct tm_mpi_errhandler tm_mpi_errhandler_t; /* errhandler.c */
typedef struct tm_mpi_attr tm_mpi_attr_t;             /* mpi/attr.c */

/* A rank's table of handles of one kind (table.c): handle payload = index + first payload of
 * the kind after its predefined handles. Only the rank's thread uses it: no lock. */
typedef struct tm_mpi_table {
    void **slots; /* NULL: free */
    int len;      /* slots in use or freed, from 0 */
    int cap;
} tm_mpi_table_t;

typedef struct tm_mpi_comm {
    tm_mpi_rank_t *owner; /* the rank this view of the communicator belongs to */
    MPI_Comm handle;
    const char *name; /* "MPI_COMM_WORLD", for messages */
    int rank;         /* of the owner in the communicator */
    int size;
    int context_id;            /* of its point-to-point traffic; context_id + 1: its collectives' */
    /* Every member is a rank of this process (none on another host): the collectives that work
     * through the members' memory (coll/flat.c, coll/shared.c) may run on it. */
    bool local;
    MPI_Errhandler errhandler; /* MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN or user-defined */
    tm_mpi_errhandler_t *errhandler_user; /* the user-defined handler (a reference), else NULL */
    tm_mpi_group_t *group;                /* the members (a reference): the local group */
    tm_mpi_group_t *remote; /* an intercommunicator's remote group (a reference), else NULL */
    tm_mpi_attr_t *attrs;   /* attributes, the most recently set first */
    char objname[MPI_MAX_OBJECT_NAME]; /* MPI_Comm_set_name, MPI_Comm_get_name */
    struct tm_mpi_topo *topo;          /* the process topology (topo.h), else NULL */
    unsigned coll_seq; /* collectives started on it: the tag of the next one (nbc/) */
    /* Collective calls made on it, every algorithm's: each call's number among them, for the
     * check that the members' calls agree (coll/check.c, which keeps its state in `check`). */
    uint64_t coll_calls;
    struct tm_coll_check *check;
    int coll_tag_sig;  /* 15 bits of the signature of its latest collective call, for its tags */
    unsigned idup_seq; /* MPI_Comm_idup calls on it: the key of the next one (mpi/comm_idup.c) */
    /* The state of its flat collectives (coll/flat.c): */
    struct tm_coll_flat *flat; /* the block they run through, else NULL */
    uint64_t flat_rounds;      /* flat collectives it ran */
    uint64_t flat_ibarriers;   /* flat non-blocking barriers it entered */
    /* those whose request found them over, no longer reading the block (written by the
     * engine's lock holder: the rank, or its progress thread) */
    _Atomic uint64_t flat_ibarriers_seen;
    uint64_t flat_ring_rounds; /* flat non-blocking broadcasts and reductions it started */
    /* those that no longer read the block (the rank, or the engine's lock holder) */
    _Atomic uint64_t flat_ring_seen;
    /* The members had all read up to this round, as last seen (a hint, for either side). */
    _Atomic uint64_t flat_ring_free;
    uint64_t flat_scans;      /* flat scans and exscans it ran (their own chain) */
    uint64_t flat_scans_next; /* those the next rank had finished, as last seen */
} tm_mpi_comm_t;

/* A rank's MPI state: created by MPI_Init/MPI_Init_thread (rt->mpi points to it), destroyed by
 * MPI_Finalize (rt->mpi is NULL again). Only the rank's own thread touches it. */
struct tm_mpi_rank {
    tm_rt_rank_t *rt;
    tm_mpi_comm_t world;
    tm_mpi_comm_t self;
    struct tm_p2p *p2p;         /* p2p/: its point-to-point state */
    bool threads;               /* its threads call MPI too (see turn_owner below) */
    struct tm_nbc_engine *nbc;  /* nbc/: its collectives under way */
    tm_mpi_table_t groups;      /* group.c */
    tm_mpi_table_t errhandlers; /* errhandler.c */
    tm_mpi_table_t keyvals;     /* mpi/attr.c */
    tm_mpi_table_t comms;       /* mpi/comm_create.c: communicators the program created */
    tm_mpi_table_t deferred;    /* mpi/deferred_send.c: MPIX_Deferred_send handles */
    tm_mpi_table_t wins;        /* mpi/win.c: windows */
    tm_mpi_table_t files;       /* mpi/file.c: open files */
    /* The handler of MPI_FILE_NULL, which new files take and failed opens call (MPI 3.1, 13.7:
     * MPI_ERRORS_RETURN at first) */
    MPI_Errhandler file_errhandler;
    tm_mpi_errhandler_t *file_errhandler_user;
    /* MPI_Buffer_attach (mpi/bsend.c): the attached buffer and its messages, by offset */
    char *bsend_buf;
    size_t bsend_size;
    struct tm_mpi_bsend_region *bsend_regions;
    uint64_t bsend_seq; /* buffered sends so far */
    /* The names this rank gave predefined datatypes (MPI_Type_set_name), by index, else NULL:
     * the types are shared by the ranks, their names are each rank's, as each process's. */
    char **type_names;
    /* The attributes this rank set on predefined datatypes (MPI_Type_set_attr), by index, for
     * the same reason (mpi/attr.c); NULL until the first. */
    tm_mpi_attr_t **type_attrs;
    /* MPI_Add_error_class and MPI_Add_error_code: code MPI_ERR_LASTCODE + 1 + i is
     * user_errors[i], of class `errclass` (itself for a class), described by `string`
     * (MPI_Add_error_string; NULL: ""). Each rank's, as each process's (obj/error.c). */
    struct tm_mpi_user_error {
        int errclass;
        char *string;
    } *user_errors;
    int nuser_errors, user_errors_cap;
    int lastusedcode; /* what the attribute MPI_LASTUSEDCODE points to */
    /* MPIX_Ibcast_dynamic's look for a rank listed twice (mpi/bcast_dynamic.c): per rank of a
     * communicator, the number of the last call that listed it, in a room for `dyn_room` ranks
     * (grown to the largest communicator used). */
    uint32_t *dyn_listed;
    int dyn_room;
    uint32_t dyn_calls;
    /* MPI_THREAD_SERIALIZED and _MULTIPLE: the threads the rank started (tm_rt_thread_rank)
     * call MPI for it too. They and the rank's own ULT take turns: every MPI call holds the
     * rank's turn (TM_MPI_RANK), and a blocking wait gives it up while it sleeps (p2p/wait.c).
     * Only the rank's ULT writes `threads`, at MPI_Init_thread, before any thread may call. */
    alignas(64) _Atomic uintptr_t turn_owner; /* 0: free; else tm_mpi_turn_self()'s value */
    unsigned turn_depth;                      /* the owner's nested calls (error handlers...) */
    /* The rank's ULT while it sleeps in a wait with its turn given up, for a thread that took
     * the turn meanwhile to wake (what it did may be what the rank waits for). */
    struct tm_sched_ult *_Atomic turn_sleeper;
};

/* The calling rank, for MPI call `call`; when the caller is not a rank, reports the error and
 * ends the job (no error handler exists for a thread that is not a rank). */
tm_rt_rank_t *tm_mpi_rank_self(const char *call);

/* tm_mpi_rank_get when the caller is no rank's ULT or MPI is not usable: the rank of a thread
 * that a rank started, if that rank lets its threads call MPI, else a report that ends the job. */
tm_mpi_rank_t *tm_mpi_rank_get_slow(tm_rt_rank_t *rt, const char *call);

/* The MPI state of the calling rank, for MPI call `call` that needs MPI initialized and not
 * finalized: the caller's own, or that of the rank that started the calling thread under
 * MPI_THREAD_SERIALIZED or _MULTIPLE. Otherwise (not called by a rank, before MPI_Init, after
 * MPI_Finalize) reports the error and ends the job: no error handler exists then. */
static inline tm_mpi_rank_t *tm_mpi_rank_get(const char *call)
{
    tm_rt_rank_t *rt = tm_rt_rank_self();
    if (__builtin_expect(rt == NULL || rt->mpi == NULL, 0))
        return tm_mpi_rank_get_slow(rt, call);
    return rt->mpi;
}

/* ---- turns: a rank and the threads it started (MPI_THREAD_SERIALIZED, _MULTIPLE) ---- */

/* Who calls, as the owner of a turn: TM_MPI_TURN_RANK for r's own ULT, else the calling
 * thread's own value. */
#define TM_MPI_TURN_RANK ((uintptr_t)1)
uintptr_t tm_mpi_turn_self(const tm_mpi_rank_t *r);

/* Takes r's turn (again, if the caller holds it: calls nest), waiting while another has it. */
void tm_mpi_turn_take(tm_mpi_rank_t *r);

/* Gives one level of it back; the last wakes the rank's ULT if it sleeps (tm_mpi_turn_sleep). */
void tm_mpi_turn_give(tm_mpi_rank_t *r);

/* For a wait that sleeps or polls: gives up the caller's turn whole, returning its depth, and
 * takes it back at that depth. */
unsigned tm_mpi_turn_give_all(tm_mpi_rank_t *r);
void tm_mpi_turn_take_back(tm_mpi_rank_t *r, unsigned depth);

/* tm_mpi_rank_get, with the rank's turn taken when it lets its threads call MPI. */
static inline tm_mpi_rank_t *tm_mpi_rank_enter(const char *call)
{
    tm_mpi_rank_t *r = tm_mpi_rank_get(call);
    if (__builtin_expect(r->threads, 0))
        tm_mpi_turn_take(r);
    return r;
}

static inline void tm_mpi_rank_leave(tm_mpi_rank_t *const *r)
{
    if (__builtin_expect((*r)->threads, 0))
        tm_mpi_turn_give(*r);
}

/* Declares `r`, the calling rank for MPI call `call`, holding its turn until the end of the
 * enclosing block: how an MPI call starts. */
#define TM_MPI_RANK(r, call)                                                                       \
    tm_mpi_rank_t *r __attribute__((cleanup(tm_mpi_rank_leave))) = tm_mpi_rank_enter(call)

/* ------------------------------------------------------------------ communicators */

/* Resolves communicator handle `handle` for the calling rank `r`. On success sets *comm_p and
 * returns MPI_SUCCESS; otherwise sets *comm_p to NULL and reports MPI_ERR_COMM for `call`,
 * returning what the error handler returns. */
int tm_mpi_comm_get_slow(tm_mpi_rank_t *r, MPI_Comm handle, const char *call,
                         tm_mpi_comm_t **comm_p);
static inline int tm_mpi_comm_get(tm_mpi_rank_t *r, MPI_Comm handle, const char *call,
                                  tm_mpi_comm_t **comm_p)
{
    if (handle == MPI_COMM_WORLD) { /* inline: most calls name it */
        *comm_p = &r->world;
        return MPI_SUCCESS;
    }
    return tm_mpi_comm_get_slow(r, handle, call, comm_p);
}

/* Intercommunicators (MPI 3.1, 6.6; mpi/intercomm.c). */
static inline bool tm_mpi_comm_is_inter(const tm_mpi_comm_t *c)
{
    return c->remote != NULL;
}

/* The group whose ranks c's point-to-point calls name as peers: the remote group of an
 * intercommunicator, else the members. */
static inline tm_mpi_group_t *tm_mpi_comm_peers(const tm_mpi_comm_t *c)
{
    return c->remote ? c->remote : c->group;
}

/* tm_mpi_comm_get for the calls intercommunicators do not take (yet): the scans and the
 * neighbourhood collectives, which MPI defines for intracommunicators only,
 * MPI_Comm_split_type, MPI_Comm_create_group, the topologies: MPI_ERR_COMM for one. */
int tm_mpi_comm_get_intra(tm_mpi_rank_t *r, MPI_Comm handle, const char *call,
                          tm_mpi_comm_t **comm_p);

/* Context ids of the predefined communicators (their collectives use context_id + 1). */
#define TM_MPI_CONTEXT_WORLD 0
#define TM_MPI_CONTEXT_SELF  2

/* Communicators the program creates have payloads from TM_MPI_COMM_FIRST_PAYLOAD on (index in
 * the rank's `comms` table + TM_MPI_COMM_FIRST_PAYLOAD), after MPI_COMM_NULL (0),
 * MPI_COMM_WORLD (1) and MPI_COMM_SELF (2). */
#define TM_MPI_COMM_FIRST_PAYLOAD 3

/* ------------------------------------------------------------------ handle tables (table.c) */

/* Stores `obj` in a free slot of `t`; returns its index, or -ENOMEM. */
int tm_mpi_table_add(tm_mpi_table_t *t, void *obj);

/* The object at `index`, or NULL when index is out of range or the slot is free. */
void *tm_mpi_table_get(const tm_mpi_table_t *t, long index);

/* Frees slot `index` (which must be in use). */
void tm_mpi_table_remove(tm_mpi_table_t *t, int index);

/* Frees the table itself (not the objects: the owner releases them first). */
void tm_mpi_table_destroy(tm_mpi_table_t *t);

/* ------------------------------------------------------------------ errors */

/* "MPI_ERR_COMM" for MPI_ERR_COMM, ...; NULL if errclass is not an error class. */
const char *tm_mpi_error_class_name(int errclass);

/* "invalid communicator" for MPI_ERR_COMM, ... (MPI 3.1, 8.4); NULL if errclass is not one. */
const char *tm_mpi_error_class_text(int errclass);

/* The class of error code `code` for rank r (NULL: the predefined ones only): itself for a
 * predefined class, the class it was added to for a code of MPI_Add_error_code; -1 when `code`
 * is none. */
int tm_mpi_error_class_of(const tm_mpi_rank_t *r, int code);

/*
 * Reports error `errclass` detected in MPI call `call` by the calling rank `rt` (NULL when the
 * caller is not a rank), through the error handler of `comm`, or of MPI_COMM_WORLD when comm
 * is NULL. The message, printf-like, says what is wrong; it is printed as
 *     MPI_Comm_rank (rank 3): invalid communicator 0x4c000408 (MPI_ERR_COMM)
 * When MPI is not initialized for `rt` or `rt` is NULL, no handler exists: the error is fatal.
 * A user-defined handler is called with (&comm's handle, &errclass) and prints nothing.
 * Returns errclass when the handler returns (MPI_ERRORS_RETURN or user-defined).
 */
int tm_mpi_error_raise(tm_rt_rank_t *rt, tm_mpi_comm_t *comm, const char *call, int errclass,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* tm_mpi_error_raise through the handler of an object of another kind (a window): `errhandler`
 * and `user` as a communicator keeps them; a user-defined handler is called with (&handle,
 * &errclass). */
int tm_mpi_error_raise_to(tm_rt_rank_t *rt, MPI_Errhandler errhandler, tm_mpi_errhandler_t *user,
                          int handle, const char *call, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* ------------------------------------------------------------------ error handlers (errhandler.c)
 *
 * A communicator's handler is `errhandler` (its handle) plus, when user-defined, a reference in
 * `errhandler_user`. Handlers are per rank and counted by the rank's thread alone. */

void tm_mpi_errhandler_retain(tm_mpi_errhandler_t *eh);
void tm_mpi_errhandler_release(tm_mpi_errhandler_t *eh); /* NULL allowed */

/* Calls the user-defined handler eh with (&comm, &errcode). */
void tm_mpi_errhandler_call(tm_mpi_errhandler_t *eh, MPI_Comm comm, int errcode);

/* Gives dst the handler of src (for communicators created from src). */
void tm_mpi_comm_errhandler_inherit(tm_mpi_comm_t *dst, const tm_mpi_comm_t *src);

/* Drops comm's handler (back to MPI_ERRORS_ARE_FATAL), for a communicator being freed. */
void tm_mpi_comm_errhandler_clear(tm_mpi_comm_t *comm);

/* Drops the handlers of r's predefined communicators and frees the handlers left (finalize). */
void tm_mpi_errhandler_rank_fini(tm_mpi_rank_t *r);

/* A new user-defined handler of r calling fn, for objects of `kind` (TM_MPI_KIND_COMM or
 * TM_MPI_KIND_WIN: their functions take the same arguments, handles being ints), with one
 * reference, its handle in *handle_p. 0 or -ENOMEM. */
int tm_mpi_errhandler_create(tm_mpi_rank_t *r, MPI_Comm_errhandler_function *fn,
                             tm_mpi_kind_t kind, MPI_Errhandler *handle_p);

/* The kind of object user-defined handler eh was created for. */
tm_mpi_kind_t tm_mpi_errhandler_kind(const tm_mpi_errhandler_t *eh);

/* The handle of user-defined handler eh. */
MPI_Errhandler tm_mpi_errhandler_handle(const tm_mpi_errhandler_t *eh);

/* Resolves error handler handle `handle` for rank r: *eh_p is the user-defined handler, or NULL
 * for a predefined one. Errors (MPI_ERR_ARG: MPI 3.1 has no class for error handlers) go to
 * comm's handler, or MPI_COMM_WORLD's when comm is NULL. */
int tm_mpi_errhandler_get(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, MPI_Errhandler handle,
                          const char *call, tm_mpi_errhandler_t **eh_p);

/* The fatal path of tm_mpi_error_raise: prints the message and ends the job with exit status
 * errclass. */
_Noreturn void tm_mpi_error_fatal(tm_rt_rank_t *rt, const char *call, int errclass, const char *fmt,
                                  ...) __attribute__((format(printf, 4, 5)));

#endif /* TM_OBJ_H */
