/*
 * The accesses of windows: MPI_Put, MPI_Get, MPI_Accumulate, MPI_Get_accumulate,
 * MPI_Fetch_and_op, MPI_Compare_and_swap and the request forms MPI_Rput, _Rget, _Raccumulate,
 * _Rget_accumulate; the calls with counts have MPI-4.0's `_c` forms too (MPI_Count counts).
 * Here: the checks (arguments, an epoch that covers the target, the target's range); then
 * rma/access.c does the access, at the call. A request form's request is thus complete when it
 * is returned.
 */
#include "config.h"

#include <limits.h>

#include "p2p/p2p.h"
#include "win.h"

/* An access, as checked: its window, target (-1: MPI_PROC_NULL, nothing to do), types and the
 * target's memory. */
typedef struct access {
    tm_rma_win_t *w;
    int t;
    tm_mpi_type_t *otype, *ttype, *rtype;
    size_t tbytes; /* the target's data */
    char *target;
} access_t;

static int type_get(tm_rma_win_t *w, const char *call, const char *which, MPI_Datatype handle,
                    tm_mpi_type_t **type_p)
{
    unsigned index = (unsigned)handle & 0xff;

    /* inline for the predefined types, which most accesses name (as tm_mpi_type_get) */
    if (index != 0 && index < TM_MPI_TYPE_NBUILTIN &&
        tm_mpi_type_predefined[index].handle == handle) {
        *type_p = &tm_mpi_type_predefined[index];
        return MPI_SUCCESS;
    }
    if (tm_mpi_type_lookup(handle, type_p) < 0)
        return tm_mpi_win_error(w, call, MPI_ERR_TYPE, "invalid %s datatype 0x%08x", which,
                                (unsigned)handle);
    if (!(*type_p)->committed)
        return tm_mpi_win_error(w, call, MPI_ERR_TYPE, "the %s datatype is not committed", which);
    return MPI_SUCCESS;
}

static int count_check(tm_rma_win_t *w, const char *call, const char *which, MPI_Count count)
{
    if (count >= 0)
        return MPI_SUCCESS;
    return tm_mpi_win_error(w, call, MPI_ERR_COUNT, "negative %s count %lld", which,
                            (long long)count);
}

/* The bytes of count elements of type, in *bytes_p; MPI_ERR_COUNT when they are more than an
 * MPI_Aint holds. */
static int bytes_get(tm_rma_win_t *w, const char *call, const char *which, MPI_Count count,
                     const tm_mpi_type_t *type, size_t *bytes_p)
{
    MPI_Aint bytes;

    if (!__builtin_mul_overflow(count, (MPI_Aint)type->size, &bytes)) {
        *bytes_p = (size_t)bytes;
        return MPI_SUCCESS;
    }
    return tm_mpi_win_error(w, call, MPI_ERR_COUNT,
                            "%lld elements of the %s datatype are more bytes than memory holds",
                            (long long)count, which);
}

/* Checks what every access has: the window, the target and its epoch (`request`: the request
 * forms' passive-target one), the origin's and the target's data. The origin's is not there
 * for MPI_Get_accumulate's MPI_NO_OP (origin false). */
static int access_begin(const char *call, MPI_Win win, bool request, bool origin, MPI_Count ocount,
                        MPI_Datatype otype, int target_rank, MPI_Aint target_disp, MPI_Count tcount,
                        MPI_Datatype ttype, access_t *a)
{
    TM_MPI_RANK(r, call);
    int err = tm_mpi_win_get(r, win, call, &a->w);
    tm_rma_win_t *w = a->w;
    size_t obytes = 0;

    if (err != MPI_SUCCESS)
        return err;
    a->t = -1;
    a->otype = NULL;
    if (origin && ((err = count_check(w, call, "origin", ocount)) != MPI_SUCCESS ||
                   (err = type_get(w, call, "origin", otype, &a->otype)) != MPI_SUCCESS))
        return err;
    if ((err = count_check(w, call, "target", tcount)) != MPI_SUCCESS ||
        (err = type_get(w, call, "target", ttype, &a->ttype)) != MPI_SUCCESS ||
        (err = tm_mpi_win_check_rank(w, call, target_rank, true)) != MPI_SUCCESS)
        return err;
    if (target_rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (request && !tm_rma_passive(w, target_rank))
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_SYNC,
                                "no passive-target epoch (MPI_Win_lock or MPI_Win_lock_all) is "
                                "open on rank %d of the window: the request forms need one",
                                target_rank);
    if (!tm_rma_may_access(w, target_rank))
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_SYNC,
                                "no epoch (MPI_Win_fence, _start, _lock or _lock_all) is open "
                                "on rank %d of the window",
                                target_rank);
    if ((err = bytes_get(w, call, "target", tcount, a->ttype, &a->tbytes)) != MPI_SUCCESS ||
        (a->otype != NULL &&
         (err = bytes_get(w, call, "origin", ocount, a->otype, &obytes)) != MPI_SUCCESS))
        return err;
    if (a->otype != NULL && obytes != a->tbytes)
        return tm_mpi_win_error(w, call, MPI_ERR_TYPE,
                                "the origin has %zu bytes of data, the target %zu", obytes,
                                a->tbytes);
    if (tm_rma_target_addr(w, target_rank, target_disp, (size_t)tcount, a->ttype, &a->target) < 0)
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_RANGE,
                                "%lld elements at displacement %lld are not all in the %s of "
                                "rank %d",
                                (long long)tcount, (long long)target_disp,
                                w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? "memory attached by"
                                                                    : "window memory",
                                target_rank);
    a->t = target_rank;
    w->fence_access = w->fence_access || w->fence;
    return MPI_SUCCESS;
}

/* Gives a request form its request, complete. */
static int access_request(access_t *a, const char *call, MPI_Request *request)
{
    tm_p2p_request_t *req = tm_p2p_request_new_done(a->w->owner, TM_P2P_REQ_SEND, NULL);

    if (req == NULL)
        return tm_mpi_win_error(a->w, call, MPI_ERR_NO_MEM, "out of memory for a request");
    *request = tm_p2p_request_handle(req);
    return MPI_SUCCESS;
}

static int request_check(const char *call, MPI_Win win, MPI_Request *request)
{
    if (request != NULL)
        return MPI_SUCCESS;
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);
    return err != MPI_SUCCESS ? err : tm_mpi_win_error(w, call, MPI_ERR_ARG, "request is NULL");
}

/* ------------------------------------------------------------------ put and get */

static int put(const char *call, const void *origin_addr, MPI_Count origin_count,
               MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
               MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
               MPI_Request *request)
{
    access_t a;
    int err = access_begin(call, win, request != NULL, true, origin_count, origin_datatype,
                           target_rank, target_disp, target_count, target_datatype, &a);

    if (err != MPI_SUCCESS)
        return err;
    if (a.t >= 0)
        tm_rma_copy(a.w, a.t, a.target, (size_t)target_count, a.ttype, origin_addr,
                    (size_t)origin_count, a.otype);
    return request ? access_request(&a, call, request) : MPI_SUCCESS;
}

static int get(const char *call, void *origin_addr, MPI_Count origin_count,
               MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
               MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
               MPI_Request *request)
{
    access_t a;
    int err = access_begin(call, win, request != NULL, true, origin_count, origin_datatype,
                           target_rank, target_disp, target_count, target_datatype, &a);

    if (err != MPI_SUCCESS)
        return err;
    if (a.t >= 0)
        tm_rma_copy(a.w, a.t, origin_addr, (size_t)origin_count, a.otype, a.target,
                    (size_t)target_count, a.ttype);
    return request ? access_request(&a, call, request) : MPI_SUCCESS;
}

int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win)
{
    return put("MPI_Put", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, win, NULL);
}
#pragma weak MPI_Put = PMPI_Put

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return get("MPI_Get", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, win, NULL);
}
#pragma weak MPI_Get = PMPI_Get

int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
              MPI_Win win, MPI_Request *request)
{
    int err = request_check("MPI_Rput", win, request);
    return err != MPI_SUCCESS
               ? err
               : put("MPI_Rput", origin_addr, origin_count, origin_datatype, target_rank,
                     target_disp, target_count, target_datatype, win, request);
}
#pragma weak MPI_Rput = PMPI_Rput

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    int err = request_check("MPI_Rget", win, request);
    return err != MPI_SUCCESS
               ? err
               : get("MPI_Rget", origin_addr, origin_count, origin_datatype, target_rank,
                     target_disp, target_count, target_datatype, win, request);
}
#pragma weak MPI_Rget = PMPI_Rget

int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    return put("MPI_Put_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, win, NULL);
}
#pragma weak MPI_Put_c = PMPI_Put_c

int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    return get("MPI_Get_c", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, win, NULL);
}
#pragma weak MPI_Get_c = PMPI_Get_c

int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    int err = request_check("MPI_Rput_c", win, request);
    return err != MPI_SUCCESS
               ? err
               : put("MPI_Rput_c", origin_addr, origin_count, origin_datatype, target_rank,
                     target_disp, target_count, target_datatype, win, request);
}
#pragma weak MPI_Rput_c = PMPI_Rput_c

int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    int err = request_check("MPI_Rget_c", win, request);
    return err != MPI_SUCCESS
               ? err
               : get("MPI_Rget_c", origin_addr, origin_count, origin_datatype, target_rank,
                     target_disp, target_count, target_datatype, win, request);
}
#pragma weak MPI_Rget_c = PMPI_Rget_c

/* ------------------------------------------------------------------ accumulates */

/* The operation of an accumulate: a predefined one defined on the target's (and the origin's)
 * datatype. */
static int op_get(access_t *a, const char *call, MPI_Op handle, tm_mpi_op_t **op_p)
{
    tm_mpi_op_t *op;

    if (tm_mpi_op_lookup(handle, &op) < 0)
        return tm_mpi_win_error(a->w, call, MPI_ERR_OP, "invalid operation 0x%08x",
                                (unsigned)handle);
    if (!op->predefined)
        return tm_mpi_win_error(a->w, call, MPI_ERR_OP,
                                "user-defined operation 0x%08x: accumulates take predefined "
                                "operations only",
                                (unsigned)handle);
    if (tm_mpi_op_check_type(op, a->ttype) < 0 ||
        (a->otype != NULL && tm_mpi_op_check_type(op, a->otype) < 0))
        return tm_mpi_win_error(a->w, call, MPI_ERR_OP, "%s is not defined on the %s datatype",
                                op->name,
                                tm_mpi_op_check_type(op, a->ttype) < 0 ? "target" : "origin");
    *op_p = op;
    return MPI_SUCCESS;
}

static int accumulate(const char *call, const void *origin_addr, MPI_Count origin_count,
                      MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                      MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                      MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op_handle,
                      MPI_Win win, MPI_Request *request)
{
    access_t a;
    tm_mpi_op_t *op = NULL;
    bool fetch = result_addr != NULL || result_datatype != MPI_DATATYPE_NULL;
    /* MPI_Get_accumulate with MPI_NO_OP reads only: its origin arguments are ignored */
    bool no_origin = fetch && op_handle == MPI_NO_OP;
    int err = access_begin(call, win, request != NULL, !no_origin, origin_count, origin_datatype,
                           target_rank, target_disp, target_count, target_datatype, &a);

    if (err != MPI_SUCCESS)
        return err;
    if ((err = op_get(&a, call, op_handle, &op)) != MPI_SUCCESS)
        return err;
    if (!fetch && op->kind == TM_MPI_OP_NO_OP) /* MPI 3.1, 11.3.4: the fetching calls only */
        return tm_mpi_win_error(a.w, call, MPI_ERR_OP,
                                "MPI_NO_OP: only MPI_Get_accumulate and MPI_Fetch_and_op take it");
    a.rtype = NULL;
    if (fetch) {
        size_t rbytes = 0;

        if ((err = count_check(a.w, call, "result", result_count)) != MPI_SUCCESS ||
            (err = type_get(a.w, call, "result", result_datatype, &a.rtype)) != MPI_SUCCESS ||
            (err = bytes_get(a.w, call, "result", result_count, a.rtype, &rbytes)) != MPI_SUCCESS)
            return err;
        if (a.t >= 0 && rbytes != a.tbytes)
            return tm_mpi_win_error(a.w, call, MPI_ERR_TYPE,
                                    "the result buffer has room for %zu bytes of data, the "
                                    "target has %zu",
                                    rbytes, a.tbytes);
    }
    if (a.t >= 0 && tm_rma_accumulate(a.w, a.t, origin_addr, no_origin ? 0 : (size_t)origin_count,
                                      a.otype, fetch ? result_addr : NULL, (size_t)result_count,
                                      a.rtype, a.target, (size_t)target_count, a.ttype, op) < 0)
        return tm_mpi_win_error(a.w, call, MPI_ERR_NO_MEM, "out of memory");
    return request ? access_request(&a, call, request) : MPI_SUCCESS;
}

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return accumulate("MPI_Accumulate", origin_addr, origin_count, origin_datatype, NULL, 0,
                      MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype,
                      op, win, NULL);
}
#pragma weak MPI_Accumulate = PMPI_Accumulate

int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    int err = request_check("MPI_Raccumulate", win, request);
    return err != MPI_SUCCESS
               ? err
               : accumulate("MPI_Raccumulate", origin_addr, origin_count, origin_datatype, NULL, 0,
                            MPI_DATATYPE_NULL, target_rank, target_disp, target_count,
                            target_datatype, op, win, request);
}
#pragma weak MPI_Raccumulate = PMPI_Raccumulate

int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return accumulate("MPI_Accumulate_c", origin_addr, origin_count, origin_datatype, NULL, 0,
                      MPI_DATATYPE_NULL, target_rank, target_disp, target_count, target_datatype,
                      op, win, NULL);
}
#pragma weak MPI_Accumulate_c = PMPI_Accumulate_c

int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                       MPI_Request *request)
{
    int err = request_check("MPI_Raccumulate_c", win, request);
    return err != MPI_SUCCESS
               ? err
               : accumulate("MPI_Raccumulate_c", origin_addr, origin_count, origin_datatype, NULL,
                            0, MPI_DATATYPE_NULL, target_rank, target_disp, target_count,
                            target_datatype, op, win, request);
}
#pragma weak MPI_Raccumulate_c = PMPI_Raccumulate_c

/* result_addr may be NULL for an empty result: the result type tells the fetching calls. */
static int get_accumulate(const char *call, const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win, MPI_Request *request)
{
    if (result_datatype == MPI_DATATYPE_NULL) {
        TM_MPI_RANK(r, call);
        tm_rma_win_t *w;
        int err = tm_mpi_win_get(r, win, call, &w);
        return err != MPI_SUCCESS ? err
                                  : tm_mpi_win_error(w, call, MPI_ERR_TYPE,
                                                     "invalid result datatype MPI_DATATYPE_NULL");
    }
    return accumulate(call, origin_addr, origin_count, origin_datatype, result_addr, result_count,
                      result_datatype, target_rank, target_disp, target_count, target_datatype, op,
                      win, request);
}

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return get_accumulate("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype,
                          result_addr, result_count, result_datatype, target_rank, target_disp,
                          target_count, target_datatype, op, win, NULL);
}
#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void *result_addr, int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    int err = request_check("MPI_Rget_accumulate", win, request);
    return err != MPI_SUCCESS
               ? err
               : get_accumulate("MPI_Rget_accumulate", origin_addr, origin_count, origin_datatype,
                                result_addr, result_count, result_datatype, target_rank,
                                target_disp, target_count, target_datatype, op, win, request);
}
#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate

int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win)
{
    return get_accumulate("MPI_Get_accumulate_c", origin_addr, origin_count, origin_datatype,
                          result_addr, result_count, result_datatype, target_rank, target_disp,
                          target_count, target_datatype, op, win, NULL);
}
#pragma weak MPI_Get_accumulate_c = PMPI_Get_accumulate_c

int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                           MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                           MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                           MPI_Win win, MPI_Request *request)
{
    int err = request_check("MPI_Rget_accumulate_c", win, request);
    return err != MPI_SUCCESS
               ? err
               : get_accumulate("MPI_Rget_accumulate_c", origin_addr, origin_count, origin_datatype,
                                result_addr, result_count, result_datatype, target_rank,
                                target_disp, target_count, target_datatype, op, win, request);
}
#pragma weak MPI_Rget_accumulate_c = PMPI_Rget_accumulate_c

/* MPI_Fetch_and_op and MPI_Compare_and_swap take one element of a predefined datatype. */
static int predefined_check(const char *call, MPI_Win win, MPI_Datatype datatype)
{
    tm_mpi_type_t *type;

    if (tm_mpi_type_lookup(datatype, &type) == 0 && type->predefined)
        return MPI_SUCCESS;
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);
    return err != MPI_SUCCESS ? err
                              : tm_mpi_win_error(w, call, MPI_ERR_TYPE,
                                                 "datatype 0x%08x is not a predefined datatype",
                                                 (unsigned)datatype);
}

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    static const char call[] = "MPI_Fetch_and_op";
    int err = predefined_check(call, win, datatype);

    return err != MPI_SUCCESS ? err
                              : accumulate(call, origin_addr, 1, datatype, result_addr, 1, datatype,
                                           target_rank, target_disp, 1, datatype, op, win, NULL);
}
#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    static const char call[] = "MPI_Compare_and_swap";
    tm_mpi_op_t *band, *land;
    access_t a;
    int err = predefined_check(call, win, datatype);

    if (err != MPI_SUCCESS)
        return err;
    if ((err = access_begin(call, win, false, true, 1, datatype, target_rank, target_disp, 1,
                            datatype, &a)) != MPI_SUCCESS)
        return err;
    /* An integer, logical, byte or multi-language type: those that MPI_BAND or MPI_LAND take. */
    if (tm_mpi_op_lookup(MPI_BAND, &band) < 0 || tm_mpi_op_lookup(MPI_LAND, &land) < 0 ||
        (tm_mpi_op_check_type(band, a.ttype) < 0 && tm_mpi_op_check_type(land, a.ttype) < 0))
        return tm_mpi_win_error(a.w, call, MPI_ERR_TYPE,
                                "datatype 0x%08x is not an integer, logical or byte type",
                                (unsigned)datatype);
    if (a.t >= 0)
        tm_rma_compare_and_swap(a.w, a.t, origin_addr, compare_addr, result_addr, a.target,
                                a.ttype->size);
    return MPI_SUCCESS;
}
#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap
