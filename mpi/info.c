/*
 * Info objects: ordered (key, value) string pairs, keys unique and kept in the order they were
 * first set, as MPI_Info_get_nthkey shows them.
 *
 * Handles are per rank (payload: index in the rank's table + 2). MPI_INFO_ENV (payload 1) is one
 * read-only object for the process, filled once: the standard keys ThreadMPI can answer, which
 * are the same for every rank.
 *
 * MPI 4.0 (11.4.1) lets the info calls be made before MPI_Init and after MPI_Finalize, and an
 * object lives until MPI_Info_free: a rank's table is in the part of its runtime state that
 * lasts its whole life (tm_rt_rank_t's mpi_lasting), not in its MPI state. Between MPI_Init and
 * MPI_Finalize an info call starts as any call does (the rank's turn taken, so that the threads
 * it started may call too); outside, only the rank itself may call, and an error is fatal (no
 * error handler exists then).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "mpi_impl.h"

#define TM_MPI_INFO_FIRST_PAYLOAD 2

typedef struct tm_mpi_info_entry {
    char *key;
    char *value;
} tm_mpi_info_entry_t;

typedef struct tm_mpi_info {
    int nkeys;
    int cap;
    tm_mpi_info_entry_t *entries; /* in the order the keys were first set */
} tm_mpi_info_t;

static tm_mpi_info_t tm_mpi_info_env;
static pthread_once_t tm_mpi_info_env_once = PTHREAD_ONCE_INIT;

static int tm_mpi_info_find(const tm_mpi_info_t *info, const char *key)
{
    for (int i = 0; i < info->nkeys; i++)
        if (strcmp(info->entries[i].key, key) == 0)
            return i;
    return -1;
}

/* Sets key to value in info. 0 or -ENOMEM (info unchanged). */
static int tm_mpi_info_put(tm_mpi_info_t *info, const char *key, const char *value)
{
    int i = tm_mpi_info_find(info, key);
    char *v = strdup(value), *k = NULL;

    if (v == NULL)
        return -ENOMEM;
    if (i >= 0) {
        free(info->entries[i].value);
        info->entries[i].value = v;
        return 0;
    }
    if (info->nkeys == info->cap) {
        int cap = info->cap ? 2 * info->cap : 8;
        tm_mpi_info_entry_t *e = realloc(info->entries, (size_t)cap * sizeof(*e));

        if (e == NULL)
            goto free_value;
        info->entries = e;
        info->cap = cap;
    }
    k = strdup(key);
    if (k == NULL)
        goto free_value;
    info->entries[info->nkeys].key = k;
    info->entries[info->nkeys].value = v;
    info->nkeys++;
    return 0;

free_value:
    free(v);
    return -ENOMEM;
}

static void tm_mpi_info_destroy(tm_mpi_info_t *info)
{
    for (int i = 0; i < info->nkeys; i++) {
        free(info->entries[i].key);
        free(info->entries[i].value);
    }
    free(info->entries);
    free(info);
}

/* Failures leave keys out: MPI_INFO_ENV may hold any subset of the standard keys. */
static void tm_mpi_info_env_init(void)
{
    char text[4096];
    struct utsname u;

    snprintf(text, sizeof(text), "%d", tm_rt_world_size());
    tm_mpi_info_put(&tm_mpi_info_env, "maxprocs", text);
    if (gethostname(text, sizeof(text)) == 0) {
        text[sizeof(text) - 1] = '\0';
        tm_mpi_info_put(&tm_mpi_info_env, "host", text);
    }
    if (uname(&u) == 0)
        tm_mpi_info_put(&tm_mpi_info_env, "arch", u.machine);
    if (getcwd(text, sizeof(text)) != NULL)
        tm_mpi_info_put(&tm_mpi_info_env, "wdir", text);
}

/* How an info call starts: declares `rt`, the calling rank's runtime state (see above). */
static tm_mpi_rank_t *tm_mpi_info_enter(const char *call, tm_rt_rank_t **rt_p)
{
    tm_rt_rank_t *rt = tm_rt_rank_self();
    if (rt != NULL && rt->mpi == NULL) { /* before MPI_Init, after MPI_Finalize */
        *rt_p = rt;
        return NULL;
    }
    tm_mpi_rank_t *r = tm_mpi_rank_enter(call); /* ends the job if no rank calls */
    *rt_p = r->rt;
    return r;
}

static void tm_mpi_info_leave(tm_mpi_rank_t *const *r)
{
    if (*r != NULL)
        tm_mpi_rank_leave(r);
}

#define TM_MPI_INFO_RANK(rt, call)                                                                 \
    tm_rt_rank_t *rt;                                                                              \
    tm_mpi_rank_t *rt##_entered __attribute__((cleanup(tm_mpi_info_leave))) =                      \
        tm_mpi_info_enter(call, &rt)

/* The rank's table of info objects, made at its first use; NULL when out of memory. */
static tm_mpi_table_t *tm_mpi_info_table(tm_rt_rank_t *rt)
{
    if (rt->mpi_lasting == NULL)
        rt->mpi_lasting = calloc(1, sizeof(tm_mpi_table_t));
    return rt->mpi_lasting;
}

/* Resolves info handle `handle` for rank rt; MPI_INFO_ENV is refused when `modify` is set. */
static int tm_mpi_info_get(tm_rt_rank_t *rt, MPI_Info handle, int modify, const char *call,
                           tm_mpi_info_t **info_p)
{
    tm_mpi_kind_t kind = tm_mpi_handle_kind(handle);

    *info_p = NULL;
    if (handle == MPI_INFO_ENV) {
        if (modify)
            return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_INFO, "MPI_INFO_ENV is read-only");
        pthread_once(&tm_mpi_info_env_once, tm_mpi_info_env_init);
        *info_p = &tm_mpi_info_env;
        return MPI_SUCCESS;
    }
    if (handle == MPI_INFO_NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_INFO,
                                  "invalid info object MPI_INFO_NULL");
    if (kind == TM_MPI_KIND_INFO && rt->mpi_lasting != NULL) {
        *info_p = tm_mpi_table_get(rt->mpi_lasting,
                                   (long)tm_mpi_handle_payload(handle) - TM_MPI_INFO_FIRST_PAYLOAD);
        if (*info_p != NULL)
            return MPI_SUCCESS;
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_INFO,
                                  "invalid info object 0x%08x: no such info object",
                                  (unsigned)handle);
    }
    if (kind == TM_MPI_KIND_INFO)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_INFO,
                                  "invalid info object 0x%08x: no such info object",
                                  (unsigned)handle);
    if (kind == TM_MPI_KIND_NONE)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_INFO,
                                  "invalid info object 0x%08x: not an MPI handle",
                                  (unsigned)handle);
    return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_INFO,
                              "invalid info object 0x%08x: the handle of %s", (unsigned)handle,
                              tm_mpi_handle_kind_name(kind));
}

int tm_mpi_info_check(tm_mpi_rank_t *r, MPI_Info handle, const char *call)
{
    tm_mpi_info_t *info;

    return tm_mpi_info_get(r->rt, handle, 0, call, &info);
}

static int tm_mpi_info_check_key(tm_rt_rank_t *rt, const char *call, const char *key)
{
    size_t len;

    if (key == NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_INFO_KEY, "key is NULL");
    len = strlen(key);
    if (len == 0)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_INFO_KEY, "key is empty");
    if (len > MPI_MAX_INFO_KEY)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_INFO_KEY,
                                  "key is %zu characters long, more than MPI_MAX_INFO_KEY (%d)",
                                  len, MPI_MAX_INFO_KEY);
    return MPI_SUCCESS;
}

/* Gives info a handle in *handle_p; destroys it on failure. */
static int tm_mpi_info_return(tm_rt_rank_t *rt, const char *call, tm_mpi_info_t *info,
                              MPI_Info *handle_p)
{
    tm_mpi_table_t *table = tm_mpi_info_table(rt);
    int index = table ? tm_mpi_table_add(table, info) : -1;

    if (index < 0) {
        tm_mpi_info_destroy(info);
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_NO_MEM, "out of memory for info handles");
    }
    *handle_p = TM_MPI_HANDLE(TM_MPI_KIND_INFO, index + TM_MPI_INFO_FIRST_PAYLOAD);
    return MPI_SUCCESS;
}

int PMPI_Info_create(MPI_Info *info)
{
    static const char call[] = "MPI_Info_create";
    TM_MPI_INFO_RANK(rt, call);
    tm_mpi_info_t *i;

    if (info == NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_ARG, "info is NULL");
    i = calloc(1, sizeof(*i));
    if (i == NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    return tm_mpi_info_return(rt, call, i, info);
}
#pragma weak MPI_Info_create = PMPI_Info_create

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    static const char call[] = "MPI_Info_set";
    TM_MPI_INFO_RANK(rt, call);
    tm_mpi_info_t *i;
    int err = tm_mpi_info_get(rt, info, 1, call, &i);
    size_t len;

    if (err != MPI_SUCCESS)
        return err;
    err = tm_mpi_info_check_key(rt, call, key);
    if (err != MPI_SUCCESS)
        return err;
    if (value == NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_INFO_VALUE, "value is NULL");
    len = strlen(value);
    if (len > MPI_MAX_INFO_VAL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_INFO_VALUE,
                                  "value is %zu characters long, more than MPI_MAX_INFO_VAL (%d)",
                                  len, MPI_MAX_INFO_VAL);
    if (tm_mpi_info_put(i, key, value) < 0)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_set = PMPI_Info_set

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    static const char call[] = "MPI_Info_get";
    TM_MPI_INFO_RANK(rt, call);
    tm_mpi_info_t *i;
    int err = tm_mpi_info_get(rt, info, 0, call, &i);
    int k;

    if (err != MPI_SUCCESS)
        return err;
    err = tm_mpi_info_check_key(rt, call, key);
    if (err != MPI_SUCCESS)
        return err;
    if (valuelen < 0)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_ARG, "valuelen is negative (%d)",
                                  valuelen);
    if (value == NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_ARG, "value is NULL");
    if (flag == NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_ARG, "flag is NULL");
    k = tm_mpi_info_find(i, key);
    *flag = k >= 0;
    if (k >= 0) {
        /* valuelen characters at most, plus the NUL (MPI 3.1, 9.0: value holds valuelen + 1). */
        size_t len = strlen(i->entries[k].value);

        if (len > (size_t)valuelen)
            len = (size_t)valuelen;
        memcpy(value, i->entries[k].value, len);
        value[len] = '\0';
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get = PMPI_Info_get

int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    static const char call[] = "MPI_Info_get_string";
    TM_MPI_INFO_RANK(rt, call);
    tm_mpi_info_t *i;
    int err = tm_mpi_info_get(rt, info, 0, call, &i);
    int k;

    if (err != MPI_SUCCESS || (err = tm_mpi_info_check_key(rt, call, key)) != MPI_SUCCESS)
        return err;
    if (buflen == NULL || flag == NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_ARG, "%s is NULL",
                                  buflen == NULL ? "buflen" : "flag");
    if (*buflen < 0)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_ARG, "*buflen is negative (%d)", *buflen);
    if (*buflen > 0 && value == NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_ARG, "value is NULL");
    k = tm_mpi_info_find(i, key);
    *flag = k >= 0;
    if (k < 0)
        return MPI_SUCCESS;
    /* At most *buflen - 1 characters and the NUL; *buflen becomes what the whole value needs
     * (MPI 4.0, 10.4). */
    size_t len = strlen(i->entries[k].value);
    if (*buflen > 0) {
        size_t n = len < (size_t)*buflen - 1 ? len : (size_t)*buflen - 1;
        memcpy(value, i->entries[k].value, n);
        value[n] = '\0';
    }
    *buflen = (int)len + 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_string = PMPI_Info_get_string

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    static const char call[] = "MPI_Info_get_valuelen";
    TM_MPI_INFO_RANK(rt, call);
    tm_mpi_info_t *i;
    int err = tm_mpi_info_get(rt, info, 0, call, &i);
    int k;

    if (err != MPI_SUCCESS)
        return err;
    err = tm_mpi_info_check_key(rt, call, key);
    if (err != MPI_SUCCESS)
        return err;
    if (valuelen == NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_ARG, "valuelen is NULL");
    if (flag == NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_ARG, "flag is NULL");
    k = tm_mpi_info_find(i, key);
    *flag = k >= 0;
    if (k >= 0)
        *valuelen = (int)strlen(i->entries[k].value);
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    static const char call[] = "MPI_Info_get_nkeys";
    TM_MPI_INFO_RANK(rt, call);
    tm_mpi_info_t *i;
    int err = tm_mpi_info_get(rt, info, 0, call, &i);

    if (err != MPI_SUCCESS)
        return err;
    if (nkeys == NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_ARG, "nkeys is NULL");
    *nkeys = i->nkeys;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    static const char call[] = "MPI_Info_get_nthkey";
    TM_MPI_INFO_RANK(rt, call);
    tm_mpi_info_t *i;
    int err = tm_mpi_info_get(rt, info, 0, call, &i);

    if (err != MPI_SUCCESS)
        return err;
    if (n < 0 || n >= i->nkeys)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_ARG,
                                  "n = %d is not in [0, %d) (the number of keys)", n, i->nkeys);
    if (key == NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_ARG, "key is NULL");
    strcpy(key, i->entries[n].key);
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    static const char call[] = "MPI_Info_delete";
    TM_MPI_INFO_RANK(rt, call);
    tm_mpi_info_t *i;
    int err = tm_mpi_info_get(rt, info, 1, call, &i);
    int k;

    if (err != MPI_SUCCESS)
        return err;
    err = tm_mpi_info_check_key(rt, call, key);
    if (err != MPI_SUCCESS)
        return err;
    k = tm_mpi_info_find(i, key);
    if (k < 0)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_INFO_NOKEY, "no key \"%s\"", key);
    free(i->entries[k].key);
    free(i->entries[k].value);
    memmove(&i->entries[k], &i->entries[k + 1], (size_t)(i->nkeys - k - 1) * sizeof(i->entries[0]));
    i->nkeys--;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_delete = PMPI_Info_delete

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    static const char call[] = "MPI_Info_dup";
    TM_MPI_INFO_RANK(rt, call);
    tm_mpi_info_t *i, *copy;
    int err = tm_mpi_info_get(rt, info, 0, call, &i);

    if (err != MPI_SUCCESS)
        return err;
    if (newinfo == NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_ARG, "newinfo is NULL");
    copy = calloc(1, sizeof(*copy));
    if (copy == NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    for (int k = 0; k < i->nkeys; k++)
        if (tm_mpi_info_put(copy, i->entries[k].key, i->entries[k].value) < 0) {
            tm_mpi_info_destroy(copy);
            return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
        }
    return tm_mpi_info_return(rt, call, copy, newinfo);
}
#pragma weak MPI_Info_dup = PMPI_Info_dup

int PMPI_Info_free(MPI_Info *info)
{
    static const char call[] = "MPI_Info_free";
    TM_MPI_INFO_RANK(rt, call);
    tm_mpi_info_t *i;
    int err;

    if (info == NULL)
        return tm_mpi_error_raise(rt, NULL, call, MPI_ERR_ARG, "info is NULL");
    err = tm_mpi_info_get(rt, *info, 1, call, &i);
    if (err != MPI_SUCCESS)
        return err;
    tm_mpi_table_remove(rt->mpi_lasting,
                        (int)tm_mpi_handle_payload(*info) - TM_MPI_INFO_FIRST_PAYLOAD);
    tm_mpi_info_destroy(i);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_free = PMPI_Info_free
