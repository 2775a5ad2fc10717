/*
 * Communicator attributes: keyvals (MPI_Comm_create_keyval, MPI_Comm_free_keyval), the
 * attributes themselves (MPI_Comm_set_attr, _get_attr, _delete_attr), their MPI-1 forms
 * (MPI_Keyval_create, _free, MPI_Attr_put, _get, _delete) and the predefined, read-only
 * attributes that describe the job; windows' and datatypes' attributes, which work the same.
 * Datatypes are shared by the ranks: a derived type's attributes are on the type (only the rank
 * that made it uses its handle), a predefined type's in the setting rank's own table.
 *
 * Keyval handles are per rank. As for error handlers, the handle designates the object: its slot
 * stays taken until the last attribute of a freed keyval is deleted, so that the callbacks of
 * those attributes still receive a keyval that no new one shares. Payloads: 1 to 12 are the
 * predefined keys of mpi.h, then index in the table + 16.
 *
 * A delete callback may call MPI on the communicator, delete other attributes among them: the
 * attribute whose callback runs is marked, a nested deletion of it does nothing (a nested
 * setting replaces its value without a second callback), and the list is searched again after
 * the callback, which may have unlinked any other attribute.
 */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>

#include "attr.h"
#include "win.h"

#define TM_MPI_KEYVAL_FIRST_PAYLOAD 16
#define TM_MPI_KEYVAL_LAST_BUILTIN  (MPI_WIN_MODEL & TM_MPI_HANDLE_PAYLOAD_MASK)

typedef struct tm_mpi_keyval {
    int refs;           /* the program's handle (until MPI_Comm_free_keyval) plus attributes */
    int index;          /* in the rank's table */
    int freed;          /* by MPI_Comm_free_keyval: the handle is no longer valid */
    tm_mpi_kind_t kind; /* TM_MPI_KIND_COMM, _WIN or _DATATYPE: the objects it is for */
    tm_mpi_rank_t *owner;
    MPI_Comm_copy_attr_function *copy_fn;
    MPI_Comm_delete_attr_function *delete_fn;
    void *extra_state;
} tm_mpi_keyval_t;

struct tm_mpi_attr {
    tm_mpi_attr_t *next; /* set before this one */
    tm_mpi_keyval_t *keyval;
    void *value;
    bool deleting; /* its delete callback runs */
};

/* ------------------------------------------------------------------ predefined attributes */

/* The values the predefined attributes point to: the same for every rank, set once. */
static struct {
    int tag_ub;
    int host;
    int io;
    int wtime_is_global;
    int appnum;
    int universe_size;
} tm_mpi_attr_builtin;
static pthread_once_t tm_mpi_attr_builtin_once = PTHREAD_ONCE_INIT;

static void tm_mpi_attr_builtin_init(void)
{
    tm_mpi_attr_builtin.tag_ub = TM_MPI_TAG_UB;
    tm_mpi_attr_builtin.host = MPI_PROC_NULL; /* no host process is distinguished */
    tm_mpi_attr_builtin.io = MPI_ANY_SOURCE;  /* every rank may do I/O */
    /* One clock for the process; the hosts of a job on several have theirs. */
    tm_mpi_attr_builtin.wtime_is_global = tm_rt_local_size() == tm_rt_world_size();
    tm_mpi_attr_builtin.appnum = 0;
    tm_mpi_attr_builtin.universe_size = tm_rt_world_size();
}

/* The value of predefined communicator attribute `keyval` for rank r, or NULL if keyval is not
 * one. */
static int *tm_mpi_attr_builtin_value(tm_mpi_rank_t *r, int keyval)
{
    pthread_once(&tm_mpi_attr_builtin_once, tm_mpi_attr_builtin_init);
    switch (keyval) {
    case MPI_TAG_UB:
        return &tm_mpi_attr_builtin.tag_ub;
    case MPI_HOST:
        return &tm_mpi_attr_builtin.host;
    case MPI_IO:
        return &tm_mpi_attr_builtin.io;
    case MPI_WTIME_IS_GLOBAL:
        return &tm_mpi_attr_builtin.wtime_is_global;
    case MPI_APPNUM:
        return &tm_mpi_attr_builtin.appnum;
    case MPI_UNIVERSE_SIZE:
        return &tm_mpi_attr_builtin.universe_size;
    case MPI_LASTUSEDCODE: /* the rank's own (mpi/error.c) */
        r->lastusedcode = MPI_ERR_LASTCODE + r->nuser_errors;
        return &r->lastusedcode;
    }
    return NULL;
}

/* ------------------------------------------------------------------ keyvals */

static int tm_mpi_keyval_handle(const tm_mpi_keyval_t *kv)
{
    return TM_MPI_HANDLE(TM_MPI_KIND_KEYVAL, kv->index + TM_MPI_KEYVAL_FIRST_PAYLOAD);
}

static void tm_mpi_keyval_release(tm_mpi_keyval_t *kv)
{
    if (--kv->refs == 0) {
        tm_mpi_table_remove(&kv->owner->keyvals, kv->index);
        free(kv);
    }
}

static int tm_mpi_is_builtin_keyval(int keyval)
{
    unsigned payload = tm_mpi_handle_payload(keyval);

    return tm_mpi_handle_kind(keyval) == TM_MPI_KIND_KEYVAL && payload >= 1 &&
           payload <= TM_MPI_KEYVAL_LAST_BUILTIN;
}

/* What holds attributes: a communicator, a window or a datatype; its errors go to its handler
 * (a datatype's: MPI_COMM_WORLD's). */
typedef struct attr_owner {
    tm_mpi_kind_t kind;    /* TM_MPI_KIND_COMM, _WIN or _DATATYPE */
    tm_mpi_attr_t **attrs; /* its list */
    int handle;
    tm_mpi_comm_t *comm; /* a communicator: itself (NULL: none yet, MPI_COMM_WORLD's handler) */
    tm_rma_win_t *win;   /* a window: itself */
} attr_owner_t;

static attr_owner_t attr_comm(tm_mpi_comm_t *c)
{
    return (attr_owner_t){TM_MPI_KIND_COMM, c ? &c->attrs : NULL, c ? c->handle : 0, c, NULL};
}

static attr_owner_t attr_win(tm_rma_win_t *w)
{
    return (attr_owner_t){TM_MPI_KIND_WIN, &w->attrs, w->handle, NULL, w};
}

/* Type t of handle h, for rank r: attrs NULL when r's table of predefined types' attributes
 * could not be allocated. */
static attr_owner_t attr_type(tm_mpi_rank_t *r, tm_mpi_type_t *t, MPI_Datatype h)
{
    tm_mpi_attr_t **attrs = &t->attrs;

    if (t->predefined) {
        if (r->type_attrs == NULL)
            r->type_attrs = calloc(TM_MPI_TYPE_NBUILTIN, sizeof(*r->type_attrs));
        attrs = r->type_attrs ? &r->type_attrs[(unsigned)h & 0xff] : NULL;
    }
    return (attr_owner_t){TM_MPI_KIND_DATATYPE, attrs, h, NULL, NULL};
}

static int attr_error(tm_mpi_rank_t *r, const attr_owner_t *o, const char *call, int errclass,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int attr_error(tm_mpi_rank_t *r, const attr_owner_t *o, const char *call, int errclass,
                      const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (o->win != NULL)
        return tm_mpi_win_error(o->win, call, errclass, "%s", msg);
    return tm_mpi_error_raise(r->rt, o->comm, call, errclass, "%s", msg);
}

/* Resolves user keyval `keyval` of kind o->kind for rank r; errors (MPI_ERR_KEYVAL) go to o's
 * handler. Predefined keys are the caller's business. A keyval the program freed while
 * attributes still use it resolves with `freed_ok` (reading and deleting those attributes, as
 * MPICH and Open MPI allow), not without (setting, freeing again). */
static int tm_mpi_keyval_get(tm_mpi_rank_t *r, const attr_owner_t *o, int keyval, const char *call,
                             bool freed_ok, tm_mpi_keyval_t **kv_p)
{
    tm_mpi_kind_t kind = tm_mpi_handle_kind(keyval);
    const char *mine = o->kind == TM_MPI_KIND_WIN        ? "a window's"
                       : o->kind == TM_MPI_KIND_DATATYPE ? "a datatype's"
                                                         : "a communicator's";

    *kv_p = NULL;
    if (keyval == MPI_KEYVAL_INVALID)
        return attr_error(r, o, call, MPI_ERR_KEYVAL, "invalid attribute key MPI_KEYVAL_INVALID");
    if (tm_mpi_is_builtin_keyval(keyval)) {
        bool comm_key = tm_mpi_attr_builtin_value(r, keyval) != NULL;
        const char *whose = comm_key ? "a communicator's" : "a window's";
        bool own = comm_key == (o->kind == TM_MPI_KIND_COMM) && o->kind != TM_MPI_KIND_DATATYPE;

        return attr_error(r, o, call, MPI_ERR_KEYVAL, "attribute key 0x%08x is predefined%s%s%s%s",
                          (unsigned)keyval, own ? " and read-only" : ": ", own ? "" : whose,
                          own ? "" : ", not ", own ? "" : mine);
    }
    if (kind == TM_MPI_KIND_KEYVAL) {
        *kv_p = tm_mpi_table_get(&r->keyvals,
                                 (long)tm_mpi_handle_payload(keyval) - TM_MPI_KEYVAL_FIRST_PAYLOAD);
        bool usable = *kv_p != NULL && (!(*kv_p)->freed || freed_ok);
        if (usable && (*kv_p)->kind == o->kind)
            return MPI_SUCCESS;
        bool other = usable;
        *kv_p = NULL;
        if (other)
            return attr_error(r, o, call, MPI_ERR_KEYVAL, "attribute key 0x%08x is not %s key",
                              (unsigned)keyval, mine);
        return attr_error(r, o, call, MPI_ERR_KEYVAL,
                          "invalid attribute key 0x%08x: no such key (or freed)", (unsigned)keyval);
    }
    if (kind == TM_MPI_KIND_NONE)
        return attr_error(r, o, call, MPI_ERR_KEYVAL,
                          "invalid attribute key 0x%08x: not an MPI handle", (unsigned)keyval);
    return attr_error(r, o, call, MPI_ERR_KEYVAL, "invalid attribute key 0x%08x: the handle of %s",
                      (unsigned)keyval, tm_mpi_handle_kind_name(kind));
}

/* ------------------------------------------------------------------ attribute lists */

static tm_mpi_attr_t **tm_mpi_attr_find(const attr_owner_t *o, const tm_mpi_keyval_t *kv)
{
    tm_mpi_attr_t **p = o->attrs;

    while (*p != NULL && (*p)->keyval != kv)
        p = &(*p)->next;
    return p;
}

/* Runs a's delete callback, a marked meanwhile (see the top of the file). Window callbacks
 * take the same arguments (handles are ints). */
static int tm_mpi_attr_call_delete(const attr_owner_t *o, tm_mpi_attr_t *a)
{
    tm_mpi_keyval_t *kv = a->keyval;

    if (kv->delete_fn == MPI_COMM_NULL_DELETE_FN)
        return MPI_SUCCESS;
    a->deleting = true;
    int err = kv->delete_fn(o->handle, tm_mpi_keyval_handle(kv), a->value, kv->extra_state);
    a->deleting = false;
    return err;
}

/* Unlinks a from o's list, wherever it is now, and frees it. */
static void tm_mpi_attr_unlink(const attr_owner_t *o, tm_mpi_attr_t *a)
{
    tm_mpi_attr_t **p = o->attrs;

    while (*p != a)
        p = &(*p)->next;
    *p = a->next;
    tm_mpi_keyval_release(a->keyval);
    free(a);
}

static int tm_mpi_attr_delete_list(const attr_owner_t *o, int force)
{
    int first_err = MPI_SUCCESS;

    while (*o->attrs != NULL) {
        tm_mpi_attr_t *a = *o->attrs;
        int err = tm_mpi_attr_call_delete(o, a);

        if (err != MPI_SUCCESS) {
            if (!force)
                return err;
            if (first_err == MPI_SUCCESS)
                first_err = err;
        }
        tm_mpi_attr_unlink(o, a);
    }
    return first_err;
}

int tm_mpi_attr_delete_all(tm_mpi_comm_t *comm)
{
    attr_owner_t o = attr_comm(comm);
    return tm_mpi_attr_delete_list(&o, 0);
}

int tm_mpi_attr_win_delete_all(tm_rma_win_t *w)
{
    attr_owner_t o = attr_win(w);
    return tm_mpi_attr_delete_list(&o, 0);
}

void tm_mpi_attr_win_fini(tm_rma_win_t *w)
{
    attr_owner_t o = attr_win(w);
    tm_mpi_attr_delete_list(&o, 1);
}

/* Attaches a new attribute (kv, value) at the head of o's list. */
static int tm_mpi_attr_push(const attr_owner_t *o, tm_mpi_keyval_t *kv, void *value)
{
    tm_mpi_attr_t *a = malloc(sizeof(*a));

    if (a == NULL)
        return MPI_ERR_NO_MEM;
    a->keyval = kv;
    a->value = value;
    a->deleting = false;
    a->next = *o->attrs;
    *o->attrs = a;
    kv->refs++;
    return MPI_SUCCESS;
}

static int tm_mpi_attr_copy_list(tm_mpi_comm_t *src, tm_mpi_attr_t *a, tm_mpi_comm_t *dst)
{
    attr_owner_t o = attr_comm(dst);
    tm_mpi_keyval_t *kv;
    void *out = NULL;
    int flag = 0, err;

    if (a == NULL)
        return MPI_SUCCESS;
    /* The list is newest first: copy the older attributes first. */
    err = tm_mpi_attr_copy_list(src, a->next, dst);
    if (err != MPI_SUCCESS)
        return err;
    kv = a->keyval;
    if (kv->copy_fn == MPI_COMM_NULL_COPY_FN)
        return MPI_SUCCESS;
    err =
        kv->copy_fn(src->handle, tm_mpi_keyval_handle(kv), kv->extra_state, a->value, &out, &flag);
    if (err != MPI_SUCCESS)
        return err;
    return flag ? tm_mpi_attr_push(&o, kv, out) : MPI_SUCCESS;
}

int tm_mpi_attr_copy_all(tm_mpi_comm_t *src, tm_mpi_comm_t *dst)
{
    return tm_mpi_attr_copy_list(src, src->attrs, dst);
}

void tm_mpi_attr_comm_fini(tm_mpi_comm_t *comm)
{
    attr_owner_t o = attr_comm(comm);
    tm_mpi_attr_delete_list(&o, 1);
}

int tm_mpi_attr_type_copy_all(tm_mpi_rank_t *r, tm_mpi_type_t *src, MPI_Datatype src_handle,
                              tm_mpi_type_t *dst)
{
    attr_owner_t from = attr_type(r, src, src_handle);
    attr_owner_t to = attr_type(r, dst, dst->handle);
    tm_mpi_attr_t *list[64], **all = list;
    size_t n = 0;
    int err = MPI_SUCCESS;

    if (from.attrs == NULL)
        return MPI_ERR_NO_MEM;
    for (tm_mpi_attr_t *a = *from.attrs; a != NULL; a = a->next)
        n++;
    if (n > 64 && (all = malloc(n * sizeof(*all))) == NULL)
        return MPI_ERR_NO_MEM;
    n = 0;
    for (tm_mpi_attr_t *a = *from.attrs; a != NULL; a = a->next)
        all[n++] = a;
    while (n-- > 0 && err == MPI_SUCCESS) { /* the oldest first */
        tm_mpi_keyval_t *kv = all[n]->keyval;
        void *out = NULL;
        int flag = 0;

        if (kv->copy_fn == MPI_COMM_NULL_COPY_FN)
            continue;
        err = kv->copy_fn(src_handle, tm_mpi_keyval_handle(kv), kv->extra_state, all[n]->value,
                          &out, &flag);
        if (err == MPI_SUCCESS && flag)
            err = tm_mpi_attr_push(&to, kv, out);
    }
    if (all != list)
        free(all);
    return err;
}

int tm_mpi_attr_type_delete_all(tm_mpi_rank_t *r, tm_mpi_type_t *t, MPI_Datatype handle)
{
    attr_owner_t o = attr_type(r, t, handle);
    return o.attrs ? tm_mpi_attr_delete_list(&o, 0) : MPI_SUCCESS;
}

void tm_mpi_attr_rank_fini(tm_mpi_rank_t *r)
{
    tm_mpi_attr_comm_fini(&r->self);
    tm_mpi_attr_comm_fini(&r->world);
    /* The attributes left on predefined types go without their callbacks, as a process's would
     * at its end. */
    for (int i = 0; r->type_attrs != NULL && i < TM_MPI_TYPE_NBUILTIN; i++)
        while (r->type_attrs[i] != NULL) {
            tm_mpi_attr_t *a = r->type_attrs[i];
            r->type_attrs[i] = a->next;
            free(a);
        }
    free(r->type_attrs);
    r->type_attrs = NULL;
    /* What is left are keyvals the program did not free, without attributes. */
    for (int i = 0; i < r->keyvals.len; i++)
        free(r->keyvals.slots[i]);
    tm_mpi_table_destroy(&r->keyvals);
}

/* Reports `code`, which a delete callback returned, for `call`. */
static int tm_mpi_attr_callback_error(tm_mpi_rank_t *r, const attr_owner_t *o, const char *call,
                                      int keyval, int code)
{
    /* A callback may return any int; one that is not an error class is reported as
     * MPI_ERR_OTHER. */
    int errclass = code > 0 && tm_mpi_error_class_name(code) != NULL ? code : MPI_ERR_OTHER;

    return attr_error(r, o, call, errclass,
                      "the delete callback of attribute key 0x%08x returned %d", (unsigned)keyval,
                      code);
}

/* ------------------------------------------------------------------ the API */

int MPIX_Comm_dup_fn(MPI_Comm oldcomm, int comm_keyval, void *extra_state, void *attribute_val_in,
                     void *attribute_val_out, int *flag)
{
    (void)oldcomm;
    (void)comm_keyval;
    (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

static const char *keyval_arg_name(tm_mpi_kind_t kind)
{
    return kind == TM_MPI_KIND_WIN        ? "win_keyval"
           : kind == TM_MPI_KIND_DATATYPE ? "type_keyval"
                                          : "comm_keyval";
}

/* The bodies of the calls below, for communicators, windows and datatypes, shared with the
 * MPI-1 forms (MPI_Keyval_create, ...), which name themselves in errors. */
static int keyval_create(const char *call, tm_mpi_kind_t kind, MPI_Comm_copy_attr_function *copy_fn,
                         MPI_Comm_delete_attr_function *delete_fn, int *keyval, void *extra_state)
{
    TM_MPI_RANK(r, call);
    tm_mpi_keyval_t *kv;
    int index;

    if (keyval == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "%s is NULL",
                                  keyval_arg_name(kind));
    kv = malloc(sizeof(*kv));
    if (kv == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    index = tm_mpi_table_add(&r->keyvals, kv);
    if (index < 0) {
        free(kv);
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM,
                                  "out of memory for attribute keys");
    }
    kv->refs = 1;
    kv->index = index;
    kv->freed = 0;
    kv->kind = kind;
    kv->owner = r;
    kv->copy_fn = copy_fn;
    kv->delete_fn = delete_fn;
    kv->extra_state = extra_state;
    *keyval = tm_mpi_keyval_handle(kv);
    return MPI_SUCCESS;
}

static int keyval_free(const char *call, tm_mpi_kind_t kind, int *keyval)
{
    TM_MPI_RANK(r, call);
    attr_owner_t o = attr_comm(NULL);
    tm_mpi_keyval_t *kv;
    int err;

    o.kind = kind;
    if (keyval == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "%s is NULL",
                                  keyval_arg_name(kind));
    err = tm_mpi_keyval_get(r, &o, *keyval, call, false, &kv);
    if (err != MPI_SUCCESS)
        return err;
    /* The attributes that use it keep it until they are deleted. */
    kv->freed = 1;
    tm_mpi_keyval_release(kv);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static int attr_set(tm_mpi_rank_t *r, const attr_owner_t *o, const char *call, int keyval,
                    void *attribute_val)
{
    tm_mpi_keyval_t *kv;
    tm_mpi_attr_t **p;
    int err = tm_mpi_keyval_get(r, o, keyval, call, false, &kv);

    if (err != MPI_SUCCESS)
        return err;
    p = tm_mpi_attr_find(o, kv);
    if (*p != NULL) {
        tm_mpi_attr_t *a = *p;
        /* Replacing a value deletes the old one first (MPI 3.1, 6.7.2), unless its deletion is
         * what runs now. */
        err = a->deleting ? MPI_SUCCESS : tm_mpi_attr_call_delete(o, a);
        if (err != MPI_SUCCESS)
            return tm_mpi_attr_callback_error(r, o, call, keyval, err);
        a->value = attribute_val;
        return MPI_SUCCESS;
    }
    if (tm_mpi_attr_push(o, kv, attribute_val) != MPI_SUCCESS)
        return attr_error(r, o, call, MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}

/* `builtin`: the value of a predefined key of the owner's kind, or NULL when keyval is none. */
static int attr_get(tm_mpi_rank_t *r, const attr_owner_t *o, const char *call, int keyval,
                    void *builtin, void *attribute_val, int *flag)
{
    tm_mpi_keyval_t *kv;
    tm_mpi_attr_t *a;
    int err;

    if (attribute_val == NULL)
        return attr_error(r, o, call, MPI_ERR_ARG, "attribute_val is NULL");
    if (flag == NULL)
        return attr_error(r, o, call, MPI_ERR_ARG, "flag is NULL");
    if (builtin != NULL) {
        *(void **)attribute_val = builtin;
        *flag = 1;
        return MPI_SUCCESS;
    }
    err = tm_mpi_keyval_get(r, o, keyval, call, true, &kv);
    if (err != MPI_SUCCESS)
        return err;
    a = *tm_mpi_attr_find(o, kv);
    *flag = a != NULL;
    if (a != NULL)
        *(void **)attribute_val = a->value;
    return MPI_SUCCESS;
}

static int attr_delete(tm_mpi_rank_t *r, const attr_owner_t *o, const char *call, int keyval)
{
    tm_mpi_keyval_t *kv;
    tm_mpi_attr_t **p;
    int err = tm_mpi_keyval_get(r, o, keyval, call, true, &kv);

    if (err != MPI_SUCCESS)
        return err;
    p = tm_mpi_attr_find(o, kv);
    /* Deleting an attribute that is not there does nothing, as in MPICH; nor does deleting one
     * from its own delete callback. */
    if (*p == NULL || (*p)->deleting)
        return MPI_SUCCESS;
    /* When the callback fails the attribute stays. */
    tm_mpi_attr_t *a = *p;
    err = tm_mpi_attr_call_delete(o, a);
    if (err != MPI_SUCCESS)
        return tm_mpi_attr_callback_error(r, o, call, keyval, err);
    tm_mpi_attr_unlink(o, a);
    return MPI_SUCCESS;
}

static int tm_mpi_comm_create_keyval(const char *call, MPI_Comm_copy_attr_function *copy_fn,
                                     MPI_Comm_delete_attr_function *delete_fn, int *comm_keyval,
                                     void *extra_state)
{
    return keyval_create(call, TM_MPI_KIND_COMM, copy_fn, delete_fn, comm_keyval, extra_state);
}

static int tm_mpi_comm_free_keyval(const char *call, int *comm_keyval)
{
    return keyval_free(call, TM_MPI_KIND_COMM, comm_keyval);
}

static int tm_mpi_comm_set_attr(const char *call, MPI_Comm comm, int comm_keyval,
                                void *attribute_val)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    attr_owner_t o = attr_comm(c);
    return attr_set(r, &o, call, comm_keyval, attribute_val);
}

static int tm_mpi_comm_get_attr(const char *call, MPI_Comm comm, int comm_keyval,
                                void *attribute_val, int *flag)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    attr_owner_t o = attr_comm(c);
    return attr_get(
        r, &o, call, comm_keyval,
        tm_mpi_is_builtin_keyval(comm_keyval) ? tm_mpi_attr_builtin_value(r, comm_keyval) : NULL,
        attribute_val, flag);
}

static int tm_mpi_comm_delete_attr(const char *call, MPI_Comm comm, int comm_keyval)
{
    TM_MPI_RANK(r, call);
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    attr_owner_t o = attr_comm(c);
    return attr_delete(r, &o, call, comm_keyval);
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                            void *extra_state)
{
    return tm_mpi_comm_create_keyval("MPI_Comm_create_keyval", comm_copy_attr_fn,
                                     comm_delete_attr_fn, comm_keyval, extra_state);
}
#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return tm_mpi_comm_free_keyval("MPI_Comm_free_keyval", comm_keyval);
}
#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return tm_mpi_comm_set_attr("MPI_Comm_set_attr", comm, comm_keyval, attribute_val);
}
#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr

/* The predefined attributes describe the job, not a communicator: every communicator has them
 * (MPI 3.1 only requires them on MPI_COMM_WORLD), so communicators created later have them too. */
int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    return tm_mpi_comm_get_attr("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag);
}
#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    return tm_mpi_comm_delete_attr("MPI_Comm_delete_attr", comm, comm_keyval);
}
#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr

/* The MPI-1 forms, which MPI-3.0 removed and MPICH still provides. MPI_Copy_function and
 * MPI_Delete_function have the signatures of their MPI-2 successors. */
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    return tm_mpi_comm_create_keyval("MPI_Keyval_create", copy_fn, delete_fn, keyval, extra_state);
}
#pragma weak MPI_Keyval_create = PMPI_Keyval_create

int PMPI_Keyval_free(int *keyval)
{
    return tm_mpi_comm_free_keyval("MPI_Keyval_free", keyval);
}
#pragma weak MPI_Keyval_free = PMPI_Keyval_free

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return tm_mpi_comm_set_attr("MPI_Attr_put", comm, keyval, attribute_val);
}
#pragma weak MPI_Attr_put = PMPI_Attr_put

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return tm_mpi_comm_get_attr("MPI_Attr_get", comm, keyval, attribute_val, flag);
}
#pragma weak MPI_Attr_get = PMPI_Attr_get

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return tm_mpi_comm_delete_attr("MPI_Attr_delete", comm, keyval);
}
#pragma weak MPI_Attr_delete = PMPI_Attr_delete

/* ------------------------------------------------------------------ windows' attributes */

/* The value of predefined window attribute `keyval` of w, or NULL if keyval is not one. */
static void *win_builtin_value(tm_rma_win_t *w, int keyval)
{
    switch (keyval) {
    case MPI_WIN_BASE:
        return w->attr_base; /* the attribute is the base itself, not a pointer to it */
    case MPI_WIN_SIZE:
        return &w->attr_size;
    case MPI_WIN_DISP_UNIT:
        return &w->attr_disp_unit;
    case MPI_WIN_CREATE_FLAVOR:
        return &w->attr_flavor;
    case MPI_WIN_MODEL:
        return &w->attr_model;
    }
    return NULL;
}

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state)
{
    /* MPI_Win and MPI_Comm are both ints: the callbacks' types are the same. */
    return keyval_create(
        "MPI_Win_create_keyval", TM_MPI_KIND_WIN, (MPI_Comm_copy_attr_function *)win_copy_attr_fn,
        (MPI_Comm_delete_attr_function *)win_delete_attr_fn, win_keyval, extra_state);
}
#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval

int PMPI_Win_free_keyval(int *win_keyval)
{
    return keyval_free("MPI_Win_free_keyval", TM_MPI_KIND_WIN, win_keyval);
}
#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    static const char call[] = "MPI_Win_set_attr";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    attr_owner_t o = attr_win(w);
    return attr_set(r, &o, call, win_keyval, attribute_val);
}
#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    static const char call[] = "MPI_Win_get_attr";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    attr_owner_t o = attr_win(w);
    if (win_keyval >= MPI_WIN_BASE && win_keyval <= MPI_WIN_MODEL) {
        /* MPI_WIN_BASE of a window of no memory is NULL, and still set */
        if (attribute_val == NULL || flag == NULL)
            return attr_error(r, &o, call, MPI_ERR_ARG, "%s is NULL",
                              attribute_val == NULL ? "attribute_val" : "flag");
        *(void **)attribute_val = win_builtin_value(w, win_keyval);
        *flag = 1;
        return MPI_SUCCESS;
    }
    return attr_get(r, &o, call, win_keyval, NULL, attribute_val, flag);
}
#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    static const char call[] = "MPI_Win_delete_attr";
    TM_MPI_RANK(r, call);
    tm_rma_win_t *w;
    int err = tm_mpi_win_get(r, win, call, &w);

    if (err != MPI_SUCCESS)
        return err;
    attr_owner_t o = attr_win(w);
    return attr_delete(r, &o, call, win_keyval);
}
#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr

/* ------------------------------------------------------------------ datatypes' attributes */

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state)
{
    /* MPI_Datatype and MPI_Comm are both ints: the callbacks' types are the same. */
    return keyval_create("MPI_Type_create_keyval", TM_MPI_KIND_DATATYPE,
                         (MPI_Comm_copy_attr_function *)type_copy_attr_fn,
                         (MPI_Comm_delete_attr_function *)type_delete_attr_fn, type_keyval,
                         extra_state);
}
#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval

int PMPI_Type_free_keyval(int *type_keyval)
{
    return keyval_free("MPI_Type_free_keyval", TM_MPI_KIND_DATATYPE, type_keyval);
}
#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval

/* The owner of datatype's attributes for a call, or the call's error in *err_p. */
static int type_owner(tm_mpi_rank_t *r, MPI_Datatype datatype, const char *call, attr_owner_t *o)
{
    tm_mpi_type_t *t;
    int err = tm_mpi_type_get(r, NULL, datatype, 0, call, &t);

    if (err != MPI_SUCCESS)
        return err;
    *o = attr_type(r, t, datatype);
    if (o->attrs == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    static const char call[] = "MPI_Type_set_attr";
    TM_MPI_RANK(r, call);
    attr_owner_t o;
    int err = type_owner(r, datatype, call, &o);

    return err != MPI_SUCCESS ? err : attr_set(r, &o, call, type_keyval, attribute_val);
}
#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    static const char call[] = "MPI_Type_get_attr";
    TM_MPI_RANK(r, call);
    attr_owner_t o;
    int err = type_owner(r, datatype, call, &o);

    return err != MPI_SUCCESS ? err : attr_get(r, &o, call, type_keyval, NULL, attribute_val, flag);
}
#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    static const char call[] = "MPI_Type_delete_attr";
    TM_MPI_RANK(r, call);
    attr_owner_t o;
    int err = type_owner(r, datatype, call, &o);

    return err != MPI_SUCCESS ? err : attr_delete(r, &o, call, type_keyval);
}
#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
