/*
 * Windows: their creation (MPI_Win_create, _allocate, _allocate_shared, _create_dynamic), their
 * memory (MPI_Win_shared_query, _attach, _detach), MPI_Win_free, and what describes them: group,
 * info, name, error handler. The calls with a displacement unit have MPI-4.0's `_c` forms too
 * (an MPI_Aint unit). Attributes are in attr.c, accesses in win_access.c, epochs in
 * win_sync.c.
 *
 * Creation: the first member of the communicator makes the shared part (rma/rma.h) and sends
 * its address to the others on the communicator's collective context; each member then joins
 * with its memory, and a barrier of the window makes everyone's memory known to all. A member
 * that runs out of memory says so in the shared part before that barrier, so that every
 * member returns MPI_ERR_NO_MEM rather than some waiting forever.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/group.h"
#include "win.h"

/* ------------------------------------------------------------------ handles and errors */

int tm_mpi_win_get_slow(tm_mpi_rank_t *r, MPI_Win handle, const char *call, tm_rma_win_t **w_p)
{
    tm_mpi_kind_t kind = tm_mpi_handle_kind(handle);

    *w_p = NULL;
    if (handle == MPI_WIN_NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_WIN, "invalid window MPI_WIN_NULL");
    if (kind == TM_MPI_KIND_WIN) {
        *w_p = tm_mpi_table_get(&r->wins,
                                (long)tm_mpi_handle_payload(handle) - TM_MPI_WIN_FIRST_PAYLOAD);
        if (*w_p != NULL)
            return MPI_SUCCESS;
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_WIN,
                                  "invalid window 0x%08x: no such window (or freed)",
                                  (unsigned)handle);
    }
    if (kind == TM_MPI_KIND_NONE)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_WIN,
                                  "invalid window 0x%08x: not an MPI handle", (unsigned)handle);
    return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_WIN,
                              "invalid window 0x%08x: the handle of %s", (unsigned)handle,
                              tm_mpi_handle_kind_name(kind));
}

int tm_mpi_win_error(tm_rma_win_t *w, const char *call, int errclass, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return tm_mpi_error_raise_to(w->owner->rt, w->errhandler, w->errhandler_user, w->handle, call,
                                 errclass, "%s", msg);
}

int tm_mpi_win_check_rank(tm_rma_win_t *w, const char *call, int rank, bool proc_null)
{
    if ((rank >= 0 && rank < w->size) || (proc_null && rank == MPI_PROC_NULL))
        return MPI_SUCCESS;
    return tm_mpi_win_error(w, call, MPI_ERR_RANK, "invalid rank %d: the window has %d members",
                            rank, w->size);
}

/* ------------------------------------------------------------------ info */

/* Copies string value into field dst of `size` bytes, cut short if need be. */
static void copy_value(char *dst, size_t size, const char *value)
{
    size_t len = strnlen(value, size - 1);

    memcpy(dst, value, len);
    dst[len] = '\0';
}

/* Reads the window keys of info into w->info (others are ignored, as MPI allows). */
static void win_info_read(tm_rma_win_t *w, MPI_Info info)
{
    char value[MPI_MAX_INFO_VAL + 1];
    int flag;

    if (info == MPI_INFO_NULL)
        return;
    static const struct {
        const char *key;
        size_t offset;
    } flags[] = {
        {"no_locks", offsetof(tm_rma_info_t, no_locks)},
        {"same_size", offsetof(tm_rma_info_t, same_size)},
        {"same_disp_unit", offsetof(tm_rma_info_t, same_disp_unit)},
        {"alloc_shared_noncontig", offsetof(tm_rma_info_t, alloc_shared_noncontig)},
    };
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
        if (PMPI_Info_get(info, flags[i].key, MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS &&
            flag)
            *(bool *)((char *)&w->info + flags[i].offset) = strcmp(value, "true") == 0;
    if (PMPI_Info_get(info, "accumulate_ordering", MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS &&
        flag)
        copy_value(w->info.accumulate_ordering, sizeof(w->info.accumulate_ordering), value);
    if (PMPI_Info_get(info, "accumulate_ops", MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS &&
        flag)
        copy_value(w->info.accumulate_ops, sizeof(w->info.accumulate_ops), value);
}

/* ------------------------------------------------------------------ creation */

/* Agrees with the other members of c on a new shared part (NULL for all when the first member
 * ran out of memory). */
static int win_agree(tm_mpi_rank_t *r, tm_mpi_comm_t *c, const char *call, int flavor,
                     tm_rma_shared_t **sh_p)
{
    tm_mpi_comm_t view;
    tm_rma_shared_t *sh = NULL;

    tm_mpi_comm_coll_view(&view, c);
    if (c->rank == 0) {
        sh = tm_rma_shared_new(c->group, flavor);
        for (int i = 1; i < c->size; i++)
            if (tm_mpi_comm_send(r, &view, call, &sh, sizeof(sh), i, TM_MPI_TAG_WIN_CREATE) < 0)
                return -ENOMEM;
    } else if (tm_mpi_comm_recv(r, &view, call, &sh, sizeof(sh), 0, TM_MPI_TAG_WIN_CREATE) < 0) {
        return -ENOMEM;
    }
    *sh_p = sh;
    return 0;
}

/* The body of the four creation calls. MPI_Win_create: base; MPI_Win_allocate(_shared):
 * baseptr; MPI_Win_create_dynamic: neither, size 0. */
static int win_make(const char *call, int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit,
                    MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    TM_MPI_RANK(r, call);
    tm_rma_shared_t *sh;
    tm_rma_win_t *w;
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);
    bool ok;

    if (err != MPI_SUCCESS)
        return err;
    if (tm_mpi_comm_is_inter(c))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COMM,
                                  "%s is an intercommunicator: windows need an "
                                  "intracommunicator",
                                  c->name);
    if (win == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "win is NULL");
    if ((err = tm_mpi_comm_refuse_hosts(r, c, call)) != MPI_SUCCESS)
        return err;
    if (size < 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_SIZE, "negative size %lld",
                                  (long long)size);
    if (disp_unit <= 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_DISP,
                                  "invalid disp_unit %lld: it must be positive",
                                  (long long)disp_unit);
    if ((flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) && baseptr == NULL)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG, "baseptr is NULL");
    if (flavor == MPI_WIN_FLAVOR_CREATE && base == NULL && size > 0)
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_ARG,
                                  "base is NULL for a window of %lld bytes", (long long)size);
    if (info != MPI_INFO_NULL && (err = tm_mpi_info_check(r, info, call)) != MPI_SUCCESS)
        return err;

    w = tm_rma_win_new(r, c->group, c->rank);
    if (win_agree(r, c, call, flavor, &sh) < 0 || sh == NULL) {
        if (w != NULL)
            tm_rma_win_free(w);
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    ok = w != NULL;
    if (ok && flavor == MPI_WIN_FLAVOR_ALLOCATE) {
        /* A block of its own even for 0 bytes, aligned for any type */
        base = aligned_alloc(64, ((size_t)size + 63) & ~(size_t)63 ?: 64);
        ok = base != NULL;
    }
    if (ok) {
        win_info_read(w, info);
        tm_rma_win_join(w, sh, base, size, disp_unit);
    } else {
        atomic_store_explicit(&sh->failed, true, memory_order_relaxed);
    }
    tm_rma_shared_barrier(sh, r, c->rank, call);
    if (!atomic_load_explicit(&sh->failed, memory_order_relaxed) && flavor == MPI_WIN_FLAVOR_SHARED)
        tm_rma_shared_allocate(w, w->info.alloc_shared_noncontig, call);
    if (!atomic_load_explicit(&sh->failed, memory_order_relaxed)) {
        int index = tm_mpi_table_add(&r->wins, w);

        if (index >= 0) {
            w->index = index;
            w->handle = TM_MPI_HANDLE(TM_MPI_KIND_WIN, index + TM_MPI_WIN_FIRST_PAYLOAD);
            *win = w->handle;
            if (baseptr != NULL)
                *(void **)baseptr = w->attr_base;
            return MPI_SUCCESS;
        }
        /* Too late to tell the others: they have their window. This member's memory stays
         * in it (an access from another member lands there), only its handle is missing. */
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM,
                                  "out of memory for window handles");
    }
    if (w != NULL)
        tm_rma_win_free(w);
    else if (base != NULL && flavor == MPI_WIN_FLAVOR_ALLOCATE)
        free(base);
    tm_rma_shared_release(sh);
    return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_NO_MEM,
                              "out of memory for a window of %lld bytes on some member",
                              (long long)size);
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    return win_make("MPI_Win_create", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm,
                    NULL, win);
}
#pragma weak MPI_Win_create = PMPI_Win_create

int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                      MPI_Win *win)
{
    return win_make("MPI_Win_create_c", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm,
                    NULL, win);
}
#pragma weak MPI_Win_create_c = PMPI_Win_create_c

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    return win_make("MPI_Win_allocate", MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, comm,
                    baseptr, win);
}
#pragma weak MPI_Win_allocate = PMPI_Win_allocate

int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void *baseptr, MPI_Win *win)
{
    return win_make("MPI_Win_allocate_c", MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info,
                    comm, baseptr, win);
}
#pragma weak MPI_Win_allocate_c = PMPI_Win_allocate_c

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    return win_make("MPI_Win_allocate_shared", MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info,
                    comm, baseptr, win);
}
#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared

int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void *baseptr, MPI_Win *win)
{
    return win_make("MPI_Win_allocate_shared_c", MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info,
                    comm, baseptr, win);
}
#pragma weak MPI_Win_allocate_shared_c = PMPI_Win_allocate_shared_c

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return win_make("MPI_Win_create_dynamic", MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, info, comm, NULL,
                    win);
}
#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic

/* ------------------------------------------------------------------ memory */

/* The body of MPI_Win_shared_query and its `_c` form. */
static int shared_query(const char *call, MPI_Win win, int rank, MPI_Aint *size,
                        MPI_Aint *disp_unit, bool disp_unit_null, void *baseptr)
{
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if (w->flavor != MPI_WIN_FLAVOR_SHARED)
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_FLAVOR,
                                "the window was not made by MPI_Win_allocate_shared");
    if ((err = tm_mpi_win_check_rank(w, call, rank, true)) != MPI_SUCCESS)
        return err;
    if (size == NULL || disp_unit_null || baseptr == NULL)
        return tm_mpi_win_error(w, call, MPI_ERR_ARG, "%s is NULL",
                                size == NULL     ? "size"
                                : disp_unit_null ? "disp_unit"
                                                 : "baseptr");
    tm_rma_target_t *t = NULL;
    if (rank != MPI_PROC_NULL)
        t = &w->shared->targets[rank];
    else
        for (int i = 0; i < w->size && t == NULL; i++)
            if (w->shared->targets[i].size > 0)
                t = &w->shared->targets[i];
    if (t == NULL) { /* every member's size is 0 */
        *size = 0;
        *disp_unit = w->shared->targets[w->rank].disp_unit;
        *(void **)baseptr = NULL;
        return MPI_SUCCESS;
    }
    *size = t->size;
    *disp_unit = t->disp_unit;
    *(void **)baseptr = t->base;
    return MPI_SUCCESS;
}

/* A unit that an int cannot hold (made by a `_c` creation call) is MPI_UNDEFINED here, as
 * MPI-4.0 has the int forms of other queries give a value they cannot hold. */
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    MPI_Aint unit;
    int err =
        shared_query("MPI_Win_shared_query", win, rank, size, &unit, disp_unit == NULL, baseptr);

    if (err == MPI_SUCCESS)
        *disp_unit = unit <= INT_MAX ? (int)unit : MPI_UNDEFINED;
    return err;
}
#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                            void *baseptr)
{
    MPI_Aint unit;
    int err =
        shared_query("MPI_Win_shared_query_c", win, rank, size, &unit, disp_unit == NULL, baseptr);

    if (err == MPI_SUCCESS)
        *disp_unit = unit;
    return err;
}
#pragma weak MPI_Win_shared_query_c = PMPI_Win_shared_query_c

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    static const char call[] = "MPI_Win_attach";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_FLAVOR,
                                "the window was not made by MPI_Win_create_dynamic");
    if (size < 0)
        return tm_mpi_win_error(w, call, MPI_ERR_SIZE, "negative size %lld", (long long)size);
    if (base == NULL && size > 0)
        return tm_mpi_win_error(w, call, MPI_ERR_ARG, "base is NULL");
    err = tm_rma_attach(w, base, size);
    if (err == -EEXIST)
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_ATTACH,
                                "%lld bytes at %p overlap memory attached already", (long long)size,
                                base);
    if (err < 0)
        return tm_mpi_win_error(w, call, MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_attach = PMPI_Win_attach

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    static const char call[] = "MPI_Win_detach";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_FLAVOR,
                                "the window was not made by MPI_Win_create_dynamic");
    if (tm_rma_detach(w, base) < 0)
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_ATTACH, "no memory was attached at %p", base);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_detach = PMPI_Win_detach

/* ------------------------------------------------------------------ free */

/* Drops w's handle and frees it (its shared part: once every member has). */
static void win_destroy(tm_mpi_rank_t *r, tm_rma_win_t *w)
{
    tm_rma_shared_t *sh = w->shared;

    tm_mpi_table_remove(&r->wins, w->index);
    tm_mpi_errhandler_release(w->errhandler_user);
    tm_rma_win_free(w);
    tm_rma_shared_release(sh);
}

int PMPI_Win_free(MPI_Win *win)
{
    static const char call[] = "MPI_Win_free";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err;

    if (win == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "win is NULL");
    if ((err = tm_mpi_win_get(r, *win, call, &w)) != MPI_SUCCESS)
        return err;
    if (w->lock_all || w->nlocked > 0 || w->started || w->posted)
        return tm_mpi_win_error(w, call, MPI_ERR_RMA_SYNC,
                                "an epoch is open (%s): close it before freeing the window",
                                w->lock_all      ? "MPI_Win_lock_all"
                                : w->nlocked > 0 ? "MPI_Win_lock"
                                : w->started     ? "MPI_Win_start"
                                                 : "MPI_Win_post");
    err = tm_mpi_attr_win_delete_all(w);
    if (err != MPI_SUCCESS)
        return tm_mpi_win_error(w, call,
                                err > 0 && tm_mpi_error_class_name(err) ? err : MPI_ERR_OTHER,
                                "an attribute delete callback returned %d", err);
    /* Every member's accesses to this member's memory are over before it goes. */
    tm_rma_barrier(w, call);
    win_destroy(r, w);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_free = PMPI_Win_free

void tm_mpi_win_rank_fini(tm_mpi_rank_t *r)
{
    for (int i = 0; i < r->wins.len; i++) {
        tm_rma_win_t *w = r->wins.slots[i];

        if (w != NULL) {
            tm_mpi_attr_win_fini(w);
            win_destroy(r, w);
        }
    }
    tm_mpi_table_destroy(&r->wins);
}

/* ------------------------------------------------------------------ group, info, name */

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    static const char call[] = "MPI_Win_get_group";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if (group == NULL)
        return tm_mpi_win_error(w, call, MPI_ERR_ARG, "group is NULL");
    tm_mpi_group_retain(w->group);
    return tm_mpi_group_return(r, call, w->group, group);
}
#pragma weak MPI_Win_get_group = PMPI_Win_get_group

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    static const char call[] = "MPI_Win_set_info";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if (info != MPI_INFO_NULL && (err = tm_mpi_info_check(r, info, call)) != MPI_SUCCESS)
        return err;
    win_info_read(w, info);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_set_info = PMPI_Win_set_info

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    static const char call[] = "MPI_Win_get_info";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    MPI_Info info;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if (info_used == NULL)
        return tm_mpi_win_error(w, call, MPI_ERR_ARG, "info_used is NULL");
    if (PMPI_Info_create(&info) != MPI_SUCCESS)
        return tm_mpi_win_error(w, call, MPI_ERR_NO_MEM, "out of memory");
    const tm_rma_info_t *in = &w->info;
    if (PMPI_Info_set(info, "no_locks", in->no_locks ? "true" : "false") != MPI_SUCCESS ||
        PMPI_Info_set(info, "accumulate_ordering", in->accumulate_ordering) != MPI_SUCCESS ||
        PMPI_Info_set(info, "accumulate_ops", in->accumulate_ops) != MPI_SUCCESS ||
        PMPI_Info_set(info, "same_size", in->same_size ? "true" : "false") != MPI_SUCCESS ||
        PMPI_Info_set(info, "same_disp_unit", in->same_disp_unit ? "true" : "false") !=
            MPI_SUCCESS ||
        PMPI_Info_set(info, "alloc_shared_noncontig",
                      in->alloc_shared_noncontig ? "true" : "false") != MPI_SUCCESS) {
        PMPI_Info_free(&info);
        return tm_mpi_win_error(w, call, MPI_ERR_NO_MEM, "out of memory");
    }
    *info_used = info;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_info = PMPI_Win_get_info

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    static const char call[] = "MPI_Win_set_name";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if (win_name == NULL)
        return tm_mpi_win_error(w, call, MPI_ERR_ARG, "win_name is NULL");
    size_t len = strnlen(win_name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(w->name, win_name, len);
    w->name[len] = '\0';
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_set_name = PMPI_Win_set_name

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    static const char call[] = "MPI_Win_get_name";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if (win_name == NULL || resultlen == NULL)
        return tm_mpi_win_error(w, call, MPI_ERR_ARG, "%s is NULL",
                                win_name == NULL ? "win_name" : "resultlen");
    size_t len = strlen(w->name);
    memcpy(win_name, w->name, len + 1);
    *resultlen = (int)len;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_name = PMPI_Win_get_name

/* ------------------------------------------------------------------ error handlers */

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                               MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_Win_create_errhandler";
    TM_MPI_RANK(r, call);

    if (win_errhandler_fn == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "win_errhandler_fn is NULL");
    if (errhandler == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "errhandler is NULL");
    /* MPI_Win and MPI_Comm are both ints: the function types are the same. */
    if (tm_mpi_errhandler_create(r, (MPI_Comm_errhandler_function *)win_errhandler_fn,
                                 TM_MPI_KIND_WIN, errhandler) < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    static const char call[] = "MPI_Win_set_errhandler";
    TM_MPI_RANK(r, call);
    tm_mpi_errhandler_t *eh;
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if ((err = tm_mpi_errhandler_get(r, NULL, errhandler, call, &eh)) != MPI_SUCCESS)
        return err;
    if (eh != NULL && tm_mpi_errhandler_kind(eh) != TM_MPI_KIND_WIN)
        return tm_mpi_win_error(
            w, call, MPI_ERR_ARG, "error handler 0x%08x is for %s, not a window",
            (unsigned)errhandler, tm_mpi_handle_kind_name(tm_mpi_errhandler_kind(eh)));
    if (eh != NULL)
        tm_mpi_errhandler_retain(eh);
    tm_mpi_errhandler_release(w->errhandler_user);
    w->errhandler = errhandler;
    w->errhandler_user = eh;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_Win_get_errhandler";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if (errhandler == NULL)
        return tm_mpi_win_error(w, call, MPI_ERR_ARG, "errhandler is NULL");
    /* A new reference, which the program gives back with MPI_Errhandler_free. */
    if (w->errhandler_user != NULL)
        tm_mpi_errhandler_retain(w->errhandler_user);
    *errhandler = w->errhandler;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    static const char call[] = "MPI_Win_call_errhandler";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    if (errorcode <= MPI_SUCCESS || tm_mpi_error_class_of(r, errorcode) < 0)
        return tm_mpi_win_error(w, call, MPI_ERR_ARG, "invalid error code %d", errorcode);
    tm_mpi_win_error(w, call, errorcode, "error code %d raised by the program", errorcode);
    /* The handler returned: the call itself succeeded (MPI 3.1, 8.3.6). */
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler
