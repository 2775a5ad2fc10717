/*
 * Files (MPI 3.1, chapter 13): MPI_File_open, _close, _delete, their size (set_size,
 * preallocate, get_size), what describes them (group, amode, info), views, file pointers that
 * need no data (seek, get_position, get_byte_offset, their shared forms), atomicity, sync and
 * error handlers. Reading and writing are in file_access.c.
 *
 * Opening: each member duplicates the communicator (the file's collectives then never meet the
 * program's); the members check that they ask for the same access mode; the first member opens
 * the file (io/file.c) and broadcasts the shared part, or the errno that failed, which every
 * member then reports. Collective calls that change the file (set_size, preallocate, set_view,
 * seek_shared) run between barriers of that duplicate, so that no member's access straddles
 * them.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll.h"
#include "file.h"

#define FILE_AMODES                                                                                \
    (MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |                         \
     MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL | MPI_MODE_APPEND |           \
     MPI_MODE_SEQUENTIAL)

/* ------------------------------------------------------------------ handles and errors */

int tm_mpi_file_get(tm_mpi_rank_t *r, MPI_File handle, const char *call, tm_io_file_t **f_p)
{
    tm_mpi_kind_t kind = tm_mpi_handle_kind(handle);

    *f_p = NULL;
    if (handle == MPI_FILE_NULL)
        return tm_mpi_file_null_error(r, call, MPI_ERR_FILE, "invalid file MPI_FILE_NULL");
    if (kind == TM_MPI_KIND_FILE) {
        *f_p = tm_mpi_table_get(&r->files,
                                (long)tm_mpi_handle_payload(handle) - TM_MPI_FILE_FIRST_PAYLOAD);
        if (*f_p != NULL)
            return MPI_SUCCESS;
        return tm_mpi_file_null_error(r, call, MPI_ERR_FILE,
                                      "invalid file 0x%08x: no such file (or closed)",
                                      (unsigned)handle);
    }
    if (kind == TM_MPI_KIND_NONE)
        return tm_mpi_file_null_error(r, call, MPI_ERR_FILE,
                                      "invalid file 0x%08x: not an MPI handle", (unsigned)handle);
    return tm_mpi_file_null_error(r, call, MPI_ERR_FILE, "invalid file 0x%08x: the handle of %s",
                                  (unsigned)handle, tm_mpi_handle_kind_name(kind));
}

int tm_mpi_file_error(tm_io_file_t *f, const char *call, int errclass, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return tm_mpi_error_raise_to(f->owner->rt, f->errhandler, f->errhandler_user, f->handle, call,
                                 errclass, "%s", msg);
}

int tm_mpi_file_null_error(tm_mpi_rank_t *r, const char *call, int errclass, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return tm_mpi_error_raise_to(r->rt, r->file_errhandler, r->file_errhandler_user, MPI_FILE_NULL,
                                 call, errclass, "%s", msg);
}

int tm_mpi_file_errno_class(int err)
{
    switch (err) {
    case ENOENT:
        return MPI_ERR_NO_SUCH_FILE;
    case EACCES:
    case EPERM:
        return MPI_ERR_ACCESS;
    case EEXIST:
        return MPI_ERR_FILE_EXISTS;
    case EROFS:
        return MPI_ERR_READ_ONLY;
    case ENOSPC:
        return MPI_ERR_NO_SPACE;
    case EDQUOT:
        return MPI_ERR_QUOTA;
    case ENAMETOOLONG:
    case EISDIR:
    case ENOTDIR:
    case ELOOP:
        return MPI_ERR_BAD_FILE;
    case EBUSY:
    case ETXTBSY:
        return MPI_ERR_FILE_IN_USE;
    case ENOMEM:
        return MPI_ERR_NO_MEM;
    default:
        return MPI_ERR_IO;
    }
}

/* ------------------------------------------------------------------ open, close, delete */

/* What the first member tells the others: the shared part, or the errno that failed. */
typedef struct open_result {
    tm_io_shared_t *shared;
    MPI_Offset end; /* MPI_MODE_APPEND: the size of the file, where the pointers start */
    int err;
} open_result_t;

/* Checks amode alone: MPI_SUCCESS or the reason in *why. */
static int amode_check(int amode, const char **why)
{
    int rw = (amode & MPI_MODE_RDONLY ? 1 : 0) + (amode & MPI_MODE_WRONLY ? 1 : 0) +
             (amode & MPI_MODE_RDWR ? 1 : 0);

    if (amode & ~FILE_AMODES)
        *why = "unknown bits";
    else if (rw != 1)
        *why = "exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR is needed";
    else if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        *why = "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL";
    else if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
        *why = "MPI_MODE_SEQUENTIAL with MPI_MODE_RDWR";
    else
        return MPI_SUCCESS;
    return MPI_ERR_AMODE;
}

/* Reads the collective hints of f's info into f->hints (a value it cannot use leaves the hint
 * as it was), then writes back the values in use, which MPI_File_get_info shows. */
static int file_hints_read(tm_io_file_t *f)
{
    static const struct {
        const char *key;
        size_t offset;
    } modes[] = {
        {"romio_cb_read", offsetof(tm_io_hints_t, read_mode)},
        {"romio_cb_write", offsetof(tm_io_hints_t, write_mode)},
    };
    static const char *mode_names[] = {"automatic", "enable", "disable"};
    char value[MPI_MAX_INFO_VAL + 1], *end;
    int flag, err;

    if (PMPI_Info_get(f->info, "cb_nodes", MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS && flag) {
        long n = strtol(value, &end, 10);
        if (*end == '\0' && n > 0) /* at most one per member */
            f->hints.aggregators = n < f->size ? (int)n : f->size;
    }
    if (PMPI_Info_get(f->info, "cb_buffer_size", MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS &&
        flag) {
        long long n = strtoll(value, &end, 10);
        if (*end == '\0' && n > 0 && n <= (1LL << 40))
            f->hints.buffer_size = (size_t)n;
    }
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        int *mode = (int *)((char *)&f->hints + modes[i].offset);
        if (PMPI_Info_get(f->info, modes[i].key, MPI_MAX_INFO_VAL, value, &flag) != MPI_SUCCESS ||
            !flag)
            continue;
        for (int m = 0; m < 3; m++)
            if (strcmp(value, mode_names[m]) == 0)
                *mode = m;
    }
    snprintf(value, sizeof(value), "%d", f->hints.aggregators);
    if ((err = PMPI_Info_set(f->info, "cb_nodes", value)) != MPI_SUCCESS)
        return err;
    snprintf(value, sizeof(value), "%zu", f->hints.buffer_size);
    if ((err = PMPI_Info_set(f->info, "cb_buffer_size", value)) != MPI_SUCCESS)
        return err;
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        int mode = *(int *)((char *)&f->hints + modes[i].offset);
        if ((err = PMPI_Info_set(f->info, modes[i].key, mode_names[mode])) != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

/* Aggregators of a collective access unless cb_nodes says otherwise: at most this many (the
 * members' copies to and from the file run on their cores in parallel). Their buffer, unless
 * cb_buffer_size says otherwise: small enough to stay in a core's cache between the copy of the
 * pieces into it and the system call that copies it to the page cache (16 MiB, ROMIO's
 * default, made the 1 MiB strided writes of bench/io.sh 3 to 6 times slower on 2 cores). */
#define FILE_AGGREGATORS  4
#define FILE_BUFFER_BYTES ((size_t)1 << 20)

/* The member's object for shared part sh, opened on its duplicate `comm`, where it is `rank` of
 * `size`; NULL when out of memory. */
static tm_io_file_t *file_new(tm_mpi_rank_t *r, tm_io_shared_t *sh, MPI_Comm comm, MPI_Info info,
                              int rank, int size)
{
    tm_io_file_t *f = calloc(1, sizeof(*f));

    if (f == NULL)
        return NULL;
    f->shared = sh;
    f->owner = r;
    f->comm = comm;
    f->rank = rank;
    f->size = size;
    f->hints = (tm_io_hints_t){size < FILE_AGGREGATORS ? size : FILE_AGGREGATORS, FILE_BUFFER_BYTES,
                               TM_IO_COLLECTIVE_AUTO, TM_IO_COLLECTIVE_AUTO};
    f->info = MPI_INFO_NULL;
    if ((info == MPI_INFO_NULL ? PMPI_Info_create(&f->info) : PMPI_Info_dup(info, &f->info)) !=
        MPI_SUCCESS) {
        free(f);
        return NULL;
    }
    if (file_hints_read(f) != MPI_SUCCESS) {
        PMPI_Info_free(&f->info);
        free(f);
        return NULL;
    }
    tm_mpi_type_t *byte = &tm_mpi_type_predefined[(unsigned)MPI_BYTE & 0xff];
    tm_io_view_set(&f->view, 0, byte, byte, byte, byte, "native");
    f->errhandler = r->file_errhandler;
    f->errhandler_user = r->file_errhandler_user;
    if (f->errhandler_user != NULL)
        tm_mpi_errhandler_retain(f->errhandler_user);
    f->index = tm_mpi_table_add(&r->files, f);
    if (f->index < 0) {
        tm_mpi_errhandler_release(f->errhandler_user);
        tm_io_view_clear(&f->view);
        PMPI_Info_free(&f->info);
        free(f);
        return NULL;
    }
    f->handle = TM_MPI_HANDLE(TM_MPI_KIND_FILE, f->index + TM_MPI_FILE_FIRST_PAYLOAD);
    return f;
}

/* Frees member object f: its handle, view, hints, handler, communicator (unless the job is
 * ending: MPI_Finalize frees the communicators itself). */
static void file_destroy(tm_mpi_rank_t *r, tm_io_file_t *f, bool free_comm)
{
    tm_mpi_table_remove(&r->files, f->index);
    tm_mpi_errhandler_release(f->errhandler_user);
    tm_io_view_clear(&f->view);
    free(f->buffer.data);
    if (f->info != MPI_INFO_NULL)
        PMPI_Info_free(&f->info);
    if (free_comm)
        PMPI_Comm_free(&f->comm);
    free(f);
}

int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    static const char call[] = "MPI_File_open";
    TM_MPI_RANK(r, call);
    const char *why = NULL;
    tm_mpi_comm_t *c;
    int err = tm_mpi_comm_get(r, comm, call, &c);

    if (err != MPI_SUCCESS)
        return err;
    if (tm_mpi_comm_is_inter(c))
        return tm_mpi_error_raise(r->rt, c, call, MPI_ERR_COMM,
                                  "%s is an intercommunicator: files need an intracommunicator",
                                  c->name);
    if (fh == NULL)
        return tm_mpi_file_null_error(r, call, MPI_ERR_ARG, "fh is NULL");
    if ((err = tm_mpi_comm_refuse_hosts(r, c, call)) != MPI_SUCCESS)
        return err;
    if (filename == NULL)
        return tm_mpi_file_null_error(r, call, MPI_ERR_ARG, "filename is NULL");
    if (info != MPI_INFO_NULL && (err = tm_mpi_info_check(r, info, call)) != MPI_SUCCESS)
        return err;
    if (amode_check(amode, &why) != MPI_SUCCESS)
        return tm_mpi_file_null_error(r, call, MPI_ERR_AMODE, "invalid amode 0x%x: %s", amode, why);

    MPI_Comm dup;
    if ((err = PMPI_Comm_dup(comm, &dup)) != MPI_SUCCESS)
        return err;
    /* The members must agree on the access mode (MPI 3.1, 13.2.1). */
    int modes[2] = {amode, -amode};
    tm_mpi_coll_allreduce(call, MPI_IN_PLACE, modes, 2, MPI_INT, MPI_MAX, dup);
    if (modes[0] != -modes[1]) {
        PMPI_Comm_free(&dup);
        return tm_mpi_file_null_error(r, call, MPI_ERR_NOT_SAME,
                                      "the members passed different access modes (this one 0x%x)",
                                      amode);
    }

    open_result_t res = {NULL, 0, 0};
    if (c->rank == 0) {
        res.err = -tm_io_shared_open(filename, amode, c->size, &res.shared);
        if (res.err == 0 && (amode & MPI_MODE_APPEND)) {
            MPI_Offset size = tm_io_size(res.shared);
            res.end = size > 0 ? size : 0;
            atomic_store_explicit(&res.shared->shared_pos, res.end, memory_order_relaxed);
        }
    }
    tm_mpi_coll_bcast(call, &res, sizeof(res), MPI_BYTE, 0, dup);
    if (res.err != 0) {
        PMPI_Comm_free(&dup);
        return tm_mpi_file_null_error(r, call, tm_mpi_file_errno_class(res.err), "%s: %s", filename,
                                      strerror(res.err));
    }

    tm_io_file_t *f = file_new(r, res.shared, dup, info, c->rank, c->size);
    if (f == NULL) {
        tm_io_shared_release(res.shared);
        PMPI_Comm_free(&dup);
        return tm_mpi_file_null_error(r, call, MPI_ERR_NO_MEM, "out of memory");
    }
    f->pos = res.end;
    *fh = f->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_File_open = PMPI_File_open

int PMPI_File_close(MPI_File *fh)
{
    static const char call[] = "MPI_File_close";
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err;

    if (fh == NULL)
        return tm_mpi_file_null_error(r, call, MPI_ERR_ARG, "fh is NULL");
    if ((err = tm_mpi_file_get(r, *fh, call, &f)) != MPI_SUCCESS)
        return err;
    if (f->split.call != NULL)
        return tm_mpi_file_error(f, call, MPI_ERR_OTHER,
                                 "%s is under way: end it before closing the file", f->split.call);
    /* Every member lets go, the last closes the file (and removes it with
     * MPI_MODE_DELETE_ON_CLOSE); the barrier returns once that is done. */
    tm_io_jobs_wait(f); /* (a job still under way, which MPI forbids, ends first) */
    int closed = tm_io_shared_release(f->shared);
    tm_mpi_coll_barrier(call, f->comm);
    file_destroy(r, f, true);
    *fh = MPI_FILE_NULL;
    if (closed < 0) /* the handle is gone: report through MPI_FILE_NULL's handler */
        return tm_mpi_file_null_error(r, call, tm_mpi_file_errno_class(-closed),
                                      "closing the file: %s", strerror(-closed));
    return MPI_SUCCESS;
}
#pragma weak MPI_File_close = PMPI_File_close

int PMPI_File_delete(const char *filename, MPI_Info info)
{
    static const char call[] = "MPI_File_delete";
    TM_MPI_RANK(r, call);
    int err;

    if (filename == NULL)
        return tm_mpi_file_null_error(r, call, MPI_ERR_ARG, "filename is NULL");
    if (info != MPI_INFO_NULL && (err = tm_mpi_info_check(r, info, call)) != MPI_SUCCESS)
        return err;
    if (unlink(filename) < 0)
        return tm_mpi_file_null_error(r, call, tm_mpi_file_errno_class(errno), "%s: %s", filename,
                                      strerror(errno));
    return MPI_SUCCESS;
}
#pragma weak MPI_File_delete = PMPI_File_delete

void tm_mpi_file_rank_fini(tm_mpi_rank_t *r)
{
    /* Files the program left open: let them go without the members' barrier (each member
     * finalizes on its own); the last closes the file. */
    for (int i = 0; i < r->files.len; i++) {
        tm_io_file_t *f = r->files.slots[i];

        if (f != NULL) {
            tm_io_jobs_wait(f);
            tm_io_shared_release(f->shared);
            file_destroy(r, f, false);
        }
    }
    tm_mpi_table_destroy(&r->files);
    tm_mpi_errhandler_release(r->file_errhandler_user);
    r->file_errhandler_user = NULL;
}

/* ------------------------------------------------------------------ size */

/* The body of MPI_File_set_size and MPI_File_preallocate: the first member changes the file
 * between barriers, then tells the others how it went. */
static int file_resize(const char *call, MPI_File fh, MPI_Offset size, bool preallocate)
{
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    if (size < 0)
        return tm_mpi_file_error(f, call, MPI_ERR_ARG, "negative size %lld", (long long)size);
    if (f->shared->amode & MPI_MODE_SEQUENTIAL)
        return tm_mpi_file_error(f, call, MPI_ERR_UNSUPPORTED_OPERATION,
                                 "the file was opened with MPI_MODE_SEQUENTIAL");
    if (f->shared->amode & MPI_MODE_RDONLY)
        return tm_mpi_file_error(f, call, MPI_ERR_READ_ONLY,
                                 "the file was opened with MPI_MODE_RDONLY");
    int rank, ret = 0;
    PMPI_Comm_rank(f->comm, &rank);
    tm_mpi_coll_barrier(call, f->comm);
    if (rank == 0) {
        if (preallocate)
            ret = tm_io_preallocate(f->shared, size);
        else
            ret = tm_io_set_size(f->shared, size);
    }
    tm_mpi_coll_bcast(call, &ret, 1, MPI_INT, 0, f->comm);
    if (ret < 0)
        return tm_mpi_file_error(f, call, tm_mpi_file_errno_class(-ret), "to %lld bytes: %s",
                                 (long long)size, strerror(-ret));
    return MPI_SUCCESS;
}

int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    return file_resize("MPI_File_set_size", fh, size, false);
}
#pragma weak MPI_File_set_size = PMPI_File_set_size

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    return file_resize("MPI_File_preallocate", fh, size, true);
}
#pragma weak MPI_File_preallocate = PMPI_File_preallocate

int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    static const char call[] = "MPI_File_get_size";
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    if (size == NULL)
        return tm_mpi_file_error(f, call, MPI_ERR_ARG, "size is NULL");
    MPI_Offset s = tm_io_size(f->shared);
    if (s < 0)
        return tm_mpi_file_error(f, call, tm_mpi_file_errno_class((int)-s), "%s",
                                 strerror((int)-s));
    *size = s;
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_size = PMPI_File_get_size

int PMPI_File_sync(MPI_File fh)
{
    static const char call[] = "MPI_File_sync";
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    if (f->split.call != NULL)
        return tm_mpi_file_error(f, call, MPI_ERR_OTHER, "%s is under way", f->split.call);
    /* The members share one descriptor: what any wrote is in the process's view of the file
     * already; fsync takes it to the storage. */
    int ret = tm_io_sync(f->shared);
    tm_mpi_coll_barrier(call, f->comm);
    if (ret < 0)
        return tm_mpi_file_error(f, call, tm_mpi_file_errno_class(-ret), "%s", strerror(-ret));
    return MPI_SUCCESS;
}
#pragma weak MPI_File_sync = PMPI_File_sync

/* ------------------------------------------------------------------ group, amode, info */

int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    static const char call[] = "MPI_File_get_group";
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    if (group == NULL)
        return tm_mpi_file_error(f, call, MPI_ERR_ARG, "group is NULL");
    return PMPI_Comm_group(f->comm, group);
}
#pragma weak MPI_File_get_group = PMPI_File_get_group

int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    static const char call[] = "MPI_File_get_amode";
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    if (amode == NULL)
        return tm_mpi_file_error(f, call, MPI_ERR_ARG, "amode is NULL");
    *amode = f->shared->amode;
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_amode = PMPI_File_get_amode

/* Adds the keys of info to f's hints (newer values replace older ones). */
static int file_info_merge(tm_io_file_t *f, MPI_Info info)
{
    char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
    int nkeys, flag, err;

    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    if ((err = PMPI_Info_get_nkeys(info, &nkeys)) != MPI_SUCCESS)
        return err;
    for (int i = 0; i < nkeys; i++) {
        if ((err = PMPI_Info_get_nthkey(info, i, key)) != MPI_SUCCESS ||
            (err = PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag)) != MPI_SUCCESS)
            return err;
        if (flag && (err = PMPI_Info_set(f->info, key, value)) != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    static const char call[] = "MPI_File_set_info";
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    if (info != MPI_INFO_NULL && (err = tm_mpi_info_check(r, info, call)) != MPI_SUCCESS)
        return err;
    if (file_info_merge(f, info) != MPI_SUCCESS || file_hints_read(f) != MPI_SUCCESS)
        return tm_mpi_file_error(f, call, MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}
#pragma weak MPI_File_set_info = PMPI_File_set_info

int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    static const char call[] = "MPI_File_get_info";
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    if (info_used == NULL)
        return tm_mpi_file_error(f, call, MPI_ERR_ARG, "info_used is NULL");
    if (PMPI_Info_dup(f->info, info_used) != MPI_SUCCESS)
        return tm_mpi_file_error(f, call, MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_info = PMPI_File_get_info

/* ------------------------------------------------------------------ views */

/* Whether type t's data is as large in external32 as in memory. */
static bool external32_fits(const tm_mpi_type_t *t)
{
    return tm_mpi_type_external32_size(t) == t->size;
}

/* Frees handle h unless it is a predefined type (what MPI_Type_get_contents and
 * external32_twin return). */
static void type_free_derived(MPI_Datatype h)
{
    MPI_Count ni, na, nc, nd;
    int combiner;

    if (PMPI_Type_get_envelope_c(h, &ni, &na, &nc, &nd, &combiner) == MPI_SUCCESS &&
        combiner != MPI_COMBINER_NAMED && combiner != MPI_COMBINER_F90_REAL &&
        combiner != MPI_COMBINER_F90_COMPLEX && combiner != MPI_COMBINER_F90_INTEGER)
        PMPI_Type_free(&h);
}

/* external32_twin's constructor call for a type made by a large-count (_c) constructor: the
 * arguments are in `c`, as MPI-4.0 section 5.1.13 lists them. */
static int external32_remake_c(int combiner, const int *ints, const MPI_Count *c,
                               const MPI_Datatype *twins, MPI_Datatype *made)
{
    MPI_Count n = c[0];

    switch (combiner) {
    case MPI_COMBINER_CONTIGUOUS:
        return PMPI_Type_contiguous_c(n, twins[0], made);
    case MPI_COMBINER_VECTOR:
        return PMPI_Type_vector_c(n, c[1], c[2], twins[0], made);
    case MPI_COMBINER_HVECTOR:
        return PMPI_Type_create_hvector_c(n, c[1], c[2], twins[0], made);
    case MPI_COMBINER_INDEXED:
        return PMPI_Type_indexed_c(n, c + 1, c + 1 + n, twins[0], made);
    case MPI_COMBINER_HINDEXED:
        return PMPI_Type_create_hindexed_c(n, c + 1, c + 1 + n, twins[0], made);
    case MPI_COMBINER_INDEXED_BLOCK:
        return PMPI_Type_create_indexed_block_c(n, c[1], c + 2, twins[0], made);
    case MPI_COMBINER_HINDEXED_BLOCK:
        return PMPI_Type_create_hindexed_block_c(n, c[1], c + 2, twins[0], made);
    case MPI_COMBINER_STRUCT:
        return PMPI_Type_create_struct_c(n, c + 1, c + 1 + n, twins, made);
    case MPI_COMBINER_SUBARRAY:
        n = ints[0];
        return PMPI_Type_create_subarray_c((int)n, c, c + n, c + 2 * n, ints[1], twins[0], made);
    case MPI_COMBINER_DARRAY:
        n = ints[2];
        return PMPI_Type_create_darray_c(ints[0], ints[1], (int)n, c, ints + 3, ints + 3 + n,
                                         ints + 3 + 2 * n, ints[3 + 3 * n], twins[0], made);
    case MPI_COMBINER_RESIZED:
        return PMPI_Type_create_resized_c(twins[0], c[0], c[1], made);
    default:
        return MPI_ERR_UNSUPPORTED_DATAREP;
    }
}

/* external32_twin's constructor call for the other types. */
static int external32_remake(int combiner, const int *ints, const MPI_Aint *aints,
                             const MPI_Datatype *twins, MPI_Datatype *made)
{
    int n = ints[0];

    switch (combiner) {
    case MPI_COMBINER_DUP:
        return PMPI_Type_dup(twins[0], made);
    case MPI_COMBINER_CONTIGUOUS:
        return PMPI_Type_contiguous(n, twins[0], made);
    case MPI_COMBINER_VECTOR:
        return PMPI_Type_vector(n, ints[1], ints[2], twins[0], made);
    case MPI_COMBINER_HVECTOR:
        return PMPI_Type_create_hvector(n, ints[1], aints[0], twins[0], made);
    case MPI_COMBINER_INDEXED:
        return PMPI_Type_indexed(n, ints + 1, ints + 1 + n, twins[0], made);
    case MPI_COMBINER_HINDEXED:
        return PMPI_Type_create_hindexed(n, ints + 1, aints, twins[0], made);
    case MPI_COMBINER_INDEXED_BLOCK:
        return PMPI_Type_create_indexed_block(n, ints[1], ints + 2, twins[0], made);
    case MPI_COMBINER_HINDEXED_BLOCK:
        return PMPI_Type_create_hindexed_block(n, ints[1], aints, twins[0], made);
    case MPI_COMBINER_STRUCT:
        return PMPI_Type_create_struct(n, ints + 1, aints, twins, made);
    case MPI_COMBINER_SUBARRAY:
        return PMPI_Type_create_subarray(n, ints + 1, ints + 1 + n, ints + 1 + 2 * n,
                                         ints[1 + 3 * n], twins[0], made);
    case MPI_COMBINER_DARRAY:
        n = ints[2];
        return PMPI_Type_create_darray(ints[0], ints[1], n, ints + 3, ints + 3 + n,
                                       ints + 3 + 2 * n, ints + 3 + 3 * n, ints[3 + 4 * n],
                                       twins[0], made);
    case MPI_COMBINER_RESIZED:
        return PMPI_Type_create_resized(twins[0], aints[0], aints[1], made);
    default:
        return MPI_ERR_UNSUPPORTED_DATAREP;
    }
}

/* The layout of type h's data in an "external32" file (MPI 3.1, 13.5.2): h rebuilt from its
 * constructor's arguments with each basic type replaced by one of its size in external32
 * (MPI_LONG: 4 bytes), so that the constructors that count elements (contiguous, vector,
 * indexed, subarray, darray) place them as the file holds them, while the displacements given in
 * bytes (hvector, hindexed, struct, resized) stay as they are, as MPI says. *twin_p: h itself
 * when its data is as large there as here (nothing to free), else a new committed type the
 * caller frees. MPI_SUCCESS, MPI_ERR_NO_MEM, or MPI_ERR_UNSUPPORTED_DATAREP for a basic type
 * that has no external32 form. */
static int external32_twin(MPI_Datatype h, MPI_Datatype *twin_p)
{
    MPI_Count ni, na, nc, nd;
    int combiner, err;
    tm_mpi_type_t *t;

    if (tm_mpi_type_lookup(h, &t) < 0)
        return MPI_ERR_TYPE;
    if (external32_fits(t)) {
        *twin_p = h;
        return MPI_SUCCESS;
    }
    if ((err = PMPI_Type_get_envelope_c(h, &ni, &na, &nc, &nd, &combiner)) != MPI_SUCCESS)
        return err;
    if (combiner == MPI_COMBINER_NAMED) {
        /* The basic types whose size differs: long and unsigned long, 4 bytes in external32 */
        if (h == MPI_LONG)
            *twin_p = MPI_INT32_T;
        else if (h == MPI_UNSIGNED_LONG)
            *twin_p = MPI_UINT32_T;
        else
            return MPI_ERR_UNSUPPORTED_DATAREP;
        return MPI_SUCCESS;
    }
    int *ints = malloc(((size_t)ni + 1) * sizeof(int));
    MPI_Aint *aints = malloc(((size_t)na + 1) * sizeof(MPI_Aint));
    MPI_Count *counts = malloc(((size_t)nc + 1) * sizeof(MPI_Count));
    MPI_Datatype *types = malloc(((size_t)nd + 1) * sizeof(MPI_Datatype));
    MPI_Datatype *twins = malloc(((size_t)nd + 1) * sizeof(MPI_Datatype));
    int ntwins = 0;
    if (!ints || !aints || !counts || !types || !twins) {
        err = MPI_ERR_NO_MEM;
        goto out;
    }
    ints[0] = 0; /* the count read by remake for the combiners without integers */
    counts[0] = 0;
    if ((err = PMPI_Type_get_contents_c(h, ni, na, nc, nd, ints, aints, counts, types)) !=
        MPI_SUCCESS)
        goto out;
    for (; ntwins < nd; ntwins++)
        if ((err = external32_twin(types[ntwins], &twins[ntwins])) != MPI_SUCCESS)
            goto out_twins;

    MPI_Datatype made = MPI_DATATYPE_NULL;
    err = nc > 0 ? external32_remake_c(combiner, ints, counts, twins, &made)
                 : external32_remake(combiner, ints, aints, twins, &made);
    if (err == MPI_SUCCESS && (err = PMPI_Type_commit(&made)) == MPI_SUCCESS)
        *twin_p = made;
out_twins:
    for (int i = 0; i < ntwins; i++)
        if (twins[i] != types[i])
            type_free_derived(twins[i]);
    for (int i = 0; i < nd; i++)
        type_free_derived(types[i]);
out:
    free(ints);
    free(aints);
    free(counts);
    free(types);
    free(twins);
    return err;
}

/* Checks that filetype is made of etypes and that its displacements never go back (MPI 3.1,
 * 13.3): MPI_SUCCESS or the reason in *why. */
static int view_check(const tm_mpi_type_t *etype, const tm_mpi_type_t *filetype, const char **why)
{
    if (etype->size == 0)
        *why = "the etype holds no data";
    else if (filetype->size == 0)
        *why = "the filetype holds no data";
    else if (filetype->size % etype->size != 0)
        *why = "the filetype is not made of etypes";
    else if (etype->true_lb < 0 || filetype->true_lb < 0)
        *why = "a displacement is negative";
    else {
        for (size_t b = 1; b < filetype->nblocks; b++)
            if (filetype->blocks[b].disp <
                filetype->blocks[b - 1].disp + (MPI_Aint)filetype->blocks[b - 1].len) {
                *why = "the filetype's displacements go back";
                return MPI_ERR_TYPE;
            }
        const tm_mpi_type_block_t *first = &filetype->blocks[0],
                                  *last = &filetype->blocks[filetype->nblocks - 1];
        /* the bytes from the first block's start to the end of the data: a period's, then
         * each level's, whose copies must not go back either */
        MPI_Aint span = last->disp + (MPI_Aint)last->len - first->disp;
        for (unsigned l = 0; l < filetype->nlevels; l++) {
            if (filetype->levels[l].stride < span) {
                *why = "the filetype's displacements go back";
                return MPI_ERR_TYPE;
            }
            span += (MPI_Aint)(filetype->levels[l].n - 1) * filetype->levels[l].stride;
        }
        if (span > filetype->extent) {
            *why = "the filetype's tiles overlap: its extent is smaller than its data";
            return MPI_ERR_TYPE;
        }
        return MPI_SUCCESS;
    }
    return MPI_ERR_TYPE;
}

/* Resolves a committed datatype for a file call, errors through f's handler. */
static int file_type_get(tm_io_file_t *f, const char *call, MPI_Datatype handle, const char *what,
                         tm_mpi_type_t **type_p)
{
    if (tm_mpi_type_lookup(handle, type_p) < 0)
        return tm_mpi_file_error(f, call, MPI_ERR_TYPE, "invalid %s 0x%08x", what,
                                 (unsigned)handle);
    if (!(*type_p)->committed)
        return tm_mpi_file_error(f, call, MPI_ERR_TYPE, "%s 0x%08x is not committed", what,
                                 (unsigned)handle);
    return MPI_SUCCESS;
}

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    static const char call[] = "MPI_File_set_view";
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *et, *ft;
    const char *why = NULL;
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    if (f->split.call != NULL)
        return tm_mpi_file_error(f, call, MPI_ERR_OTHER, "%s is under way", f->split.call);
    if ((err = file_type_get(f, call, etype, "etype", &et)) != MPI_SUCCESS ||
        (err = file_type_get(f, call, filetype, "filetype", &ft)) != MPI_SUCCESS)
        return err;
    if (datarep == NULL)
        return tm_mpi_file_error(f, call, MPI_ERR_ARG, "datarep is NULL");
    if (strcmp(datarep, "native") != 0 && strcmp(datarep, "internal") != 0 &&
        strcmp(datarep, "external32") != 0)
        return tm_mpi_file_error(f, call, MPI_ERR_UNSUPPORTED_DATAREP,
                                 "unknown data representation \"%.64s\"", datarep);
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        if (!(f->shared->amode & MPI_MODE_SEQUENTIAL))
            return tm_mpi_file_error(f, call, MPI_ERR_ARG,
                                     "MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL");
    } else if (disp < 0) {
        return tm_mpi_file_error(f, call, MPI_ERR_ARG, "negative displacement %lld",
                                 (long long)disp);
    }
    if (info != MPI_INFO_NULL && (err = tm_mpi_info_check(r, info, call)) != MPI_SUCCESS)
        return err;
    /* The layout in the file: the types themselves, or in external32 their twins */
    MPI_Datatype lay[2] = {etype, filetype};
    tm_mpi_type_t *let = et, *lft = ft;
    if (strcmp(datarep, "external32") == 0) {
        for (int i = 0; i < 2; i++)
            if ((err = external32_twin(i ? filetype : etype, &lay[i])) != MPI_SUCCESS) {
                if (i == 1 && lay[0] != etype)
                    type_free_derived(lay[0]);
                return tm_mpi_file_error(
                    f, call, err, "the %s in \"external32\": %s", i ? "filetype" : "etype",
                    err == MPI_ERR_UNSUPPORTED_DATAREP ? "a basic type has no external32 form"
                                                       : "out of memory");
            }
        tm_mpi_type_lookup(lay[0], &let);
        tm_mpi_type_lookup(lay[1], &lft);
    }
    err = view_check(let, lft, &why);
    if (err == MPI_SUCCESS) {
        /* Between barriers: the shared file pointer goes back to 0 when no member uses it. */
        tm_mpi_coll_barrier(call, f->comm);
        if (disp == MPI_DISPLACEMENT_CURRENT) /* in bytes: the old view's etypes */
            disp =
                tm_io_view_map(&f->view,
                               atomic_load_explicit(&f->shared->shared_pos, memory_order_relaxed) *
                                   (MPI_Offset)f->view.etype->size,
                               &(MPI_Offset){0});
        tm_io_view_set(&f->view, disp, et, ft, let, lft, datarep);
    }
    /* The view holds its own references to the twins */
    for (int i = 0; i < 2; i++)
        if (lay[i] != (i ? filetype : etype))
            type_free_derived(lay[i]);
    if (err != MPI_SUCCESS)
        return tm_mpi_file_error(f, call, err, "invalid view: %s", why);

    int rank;
    PMPI_Comm_rank(f->comm, &rank);
    f->pos = 0;
    tm_mpi_coll_barrier(call, f->comm);
    if (rank == 0)
        atomic_store_explicit(&f->shared->shared_pos, 0, memory_order_relaxed);
    tm_mpi_coll_barrier(call, f->comm);
    if (file_info_merge(f, info) != MPI_SUCCESS || file_hints_read(f) != MPI_SUCCESS)
        return tm_mpi_file_error(f, call, MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}
#pragma weak MPI_File_set_view = PMPI_File_set_view

/* A handle for type t that the program may free (MPI_File_get_view): predefined types are
 * their own; a derived one gets a new handle of its own reference. */
static int view_type_handle(tm_mpi_type_t *t, MPI_Datatype *handle_p)
{
    if (t->predefined) {
        *handle_p = t->handle;
        return 0;
    }
    tm_mpi_type_retain(t);
    if (tm_mpi_type_publish(t, handle_p) < 0) {
        tm_mpi_type_release(t);
        return -ENOMEM;
    }
    return 0;
}

int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                       char *datarep)
{
    static const char call[] = "MPI_File_get_view";
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    if (disp == NULL || etype == NULL || filetype == NULL || datarep == NULL)
        return tm_mpi_file_error(f, call, MPI_ERR_ARG, "%s is NULL",
                                 !disp       ? "disp"
                                 : !etype    ? "etype"
                                 : !filetype ? "filetype"
                                             : "datarep");
    MPI_Datatype e, t;
    if (view_type_handle(f->view.given_etype, &e) < 0)
        return tm_mpi_file_error(f, call, MPI_ERR_NO_MEM, "out of memory");
    if (view_type_handle(f->view.given_filetype, &t) < 0) {
        if (!f->view.given_etype->predefined)
            PMPI_Type_free(&e);
        return tm_mpi_file_error(f, call, MPI_ERR_NO_MEM, "out of memory");
    }
    *disp = f->view.disp;
    *etype = e;
    *filetype = t;
    strcpy(datarep, f->view.datarep);
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_view = PMPI_File_get_view

/* The extent of datatype in the file of fh's view, for `call`; `extent` is the program's output
 * argument, checked. */
static int type_extent(const char *call, MPI_File fh, MPI_Datatype datatype, const void *extent,
                       MPI_Count *extent_p)
{
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *t;
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    if (tm_mpi_type_lookup(datatype, &t) < 0)
        return tm_mpi_file_error(f, call, MPI_ERR_TYPE, "invalid datatype 0x%08x",
                                 (unsigned)datatype);
    if (extent == NULL)
        return tm_mpi_file_error(f, call, MPI_ERR_ARG, "extent is NULL");
    /* "native" and "internal" store data as memory holds it; in "external32" its twin says */
    MPI_Datatype twin = datatype;
    if (f->view.external32 && (err = external32_twin(datatype, &twin)) != MPI_SUCCESS)
        return tm_mpi_file_error(
            f, call, err, "datatype 0x%08x in \"external32\": %s", (unsigned)datatype,
            err == MPI_ERR_UNSUPPORTED_DATAREP ? "a basic type has no external32 form"
                                               : "out of memory");
    tm_mpi_type_lookup(twin, &t);
    *extent_p = (MPI_Count)t->extent;
    if (twin != datatype)
        type_free_derived(twin);
    return MPI_SUCCESS;
}

int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_Count e;
    int err = type_extent("MPI_File_get_type_extent", fh, datatype, extent, &e);

    if (err == MPI_SUCCESS)
        *extent = (MPI_Aint)e; /* a type's extent is an MPI_Aint: it fits */
    return err;
}
#pragma weak MPI_File_get_type_extent = PMPI_File_get_type_extent

int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    return type_extent("MPI_File_get_type_extent_c", fh, datatype, extent, extent);
}
#pragma weak MPI_File_get_type_extent_c = PMPI_File_get_type_extent_c

/* ------------------------------------------------------------------ file pointers */

/* The etypes of f's view that lie before the end of the file (rounded up: an etype the end
 * cuts counts), or -errno. */
static MPI_Offset file_end_etypes(tm_io_file_t *f)
{
    MPI_Offset size = tm_io_size(f->shared);

    if (size < 0)
        return size;
    MPI_Offset bytes = tm_io_view_bytes_before(&f->view, size), e = (MPI_Offset)f->view.etype->size;
    return (bytes + e - 1) / e;
}

/* The new position of a seek from pointer `pos`, or -1 with the error reported in *err_p. */
static MPI_Offset seek_target(tm_io_file_t *f, const char *call, MPI_Offset pos, MPI_Offset offset,
                              int whence, int *err_p)
{
    MPI_Offset base;

    *err_p = MPI_SUCCESS;
    if (whence == MPI_SEEK_SET) {
        base = 0;
    } else if (whence == MPI_SEEK_CUR) {
        base = pos;
    } else if (whence == MPI_SEEK_END) {
        base = file_end_etypes(f);
        if (base < 0) {
            *err_p = tm_mpi_file_error(f, call, tm_mpi_file_errno_class((int)-base), "%s",
                                       strerror((int)-base));
            return -1;
        }
    } else {
        *err_p = tm_mpi_file_error(f, call, MPI_ERR_ARG, "invalid whence %d", whence);
        return -1;
    }
    if (base + offset < 0) {
        *err_p =
            tm_mpi_file_error(f, call, MPI_ERR_ARG, "the position would be negative (%lld etypes)",
                              (long long)(base + offset));
        return -1;
    }
    return base + offset;
}

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    static const char call[] = "MPI_File_seek";
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    if (f->shared->amode & MPI_MODE_SEQUENTIAL)
        return tm_mpi_file_error(f, call, MPI_ERR_UNSUPPORTED_OPERATION,
                                 "the file was opened with MPI_MODE_SEQUENTIAL");
    MPI_Offset pos = seek_target(f, call, f->pos, offset, whence, &err);
    if (pos < 0)
        return err;
    f->pos = pos;
    return MPI_SUCCESS;
}
#pragma weak MPI_File_seek = PMPI_File_seek

int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    static const char call[] = "MPI_File_get_position";
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    if (offset == NULL)
        return tm_mpi_file_error(f, call, MPI_ERR_ARG, "offset is NULL");
    if (f->shared->amode & MPI_MODE_SEQUENTIAL)
        return tm_mpi_file_error(f, call, MPI_ERR_UNSUPPORTED_OPERATION,
                                 "the file was opened with MPI_MODE_SEQUENTIAL");
    *offset = f->pos;
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_position = PMPI_File_get_position

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    static const char call[] = "MPI_File_get_byte_offset";
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    if (disp == NULL)
        return tm_mpi_file_error(f, call, MPI_ERR_ARG, "disp is NULL");
    if (offset < 0)
        return tm_mpi_file_error(f, call, MPI_ERR_ARG, "negative offset %lld", (long long)offset);
    MPI_Offset run;
    *disp = tm_io_view_map(&f->view, offset * (MPI_Offset)f->view.etype->size, &run);
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_byte_offset = PMPI_File_get_byte_offset

int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    static const char call[] = "MPI_File_seek_shared";
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    _Atomic long long *shared = &f->shared->shared_pos;
    MPI_Offset pos = seek_target(f, call, atomic_load_explicit(shared, memory_order_relaxed),
                                 offset, whence, &err);
    if (pos < 0)
        return err;
    /* Collective: the members agree on the new position; the first sets it between barriers,
     * so that no member's shared access straddles the change. */
    MPI_Offset agreed[2] = {pos, -pos};
    tm_mpi_coll_allreduce(call, MPI_IN_PLACE, agreed, 2, MPI_OFFSET, MPI_MAX, f->comm);
    if (agreed[0] != -agreed[1])
        return tm_mpi_file_error(f, call, MPI_ERR_NOT_SAME,
                                 "the members asked for different positions (this one %lld)",
                                 (long long)pos);
    int rank;
    PMPI_Comm_rank(f->comm, &rank);
    if (rank == 0)
        atomic_store_explicit(shared, pos, memory_order_relaxed);
    tm_mpi_coll_barrier(call, f->comm);
    return MPI_SUCCESS;
}
#pragma weak MPI_File_seek_shared = PMPI_File_seek_shared

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    static const char call[] = "MPI_File_get_position_shared";
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    if (offset == NULL)
        return tm_mpi_file_error(f, call, MPI_ERR_ARG, "offset is NULL");
    *offset = atomic_load_explicit(&f->shared->shared_pos, memory_order_relaxed);
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_position_shared = PMPI_File_get_position_shared

/* ------------------------------------------------------------------ atomicity */

int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    static const char call[] = "MPI_File_set_atomicity";
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    int flags[2] = {flag != 0, -(flag != 0)};
    tm_mpi_coll_allreduce(call, MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, f->comm);
    if (flags[0] != -flags[1])
        return tm_mpi_file_error(f, call, MPI_ERR_NOT_SAME,
                                 "the members passed different flags (this one %d)", flag);
    /* Between the members' accesses: the Allreduce above, and this barrier */
    atomic_store_explicit(&f->shared->atomic, flag != 0, memory_order_release);
    tm_mpi_coll_barrier(call, f->comm);
    return MPI_SUCCESS;
}
#pragma weak MPI_File_set_atomicity = PMPI_File_set_atomicity

int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    static const char call[] = "MPI_File_get_atomicity";
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    if (flag == NULL)
        return tm_mpi_file_error(f, call, MPI_ERR_ARG, "flag is NULL");
    *flag = atomic_load_explicit(&f->shared->atomic, memory_order_acquire);
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_atomicity = PMPI_File_get_atomicity

/* ------------------------------------------------------------------ error handlers */

int PMPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                                MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_File_create_errhandler";
    TM_MPI_RANK(r, call);

    if (file_errhandler_fn == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "file_errhandler_fn is NULL");
    if (errhandler == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "errhandler is NULL");
    /* Handles are ints: the function takes the same arguments as a communicator's. */
    if (tm_mpi_errhandler_create(r, (MPI_Comm_errhandler_function *)file_errhandler_fn,
                                 TM_MPI_KIND_FILE, errhandler) < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}
#pragma weak MPI_File_create_errhandler = PMPI_File_create_errhandler

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    static const char call[] = "MPI_File_set_errhandler";
    TM_MPI_RANK(r, call);
    tm_mpi_errhandler_t *eh;
    tm_io_file_t *f = NULL;
    int err;

    if (file != MPI_FILE_NULL && (err = tm_mpi_file_get(r, file, call, &f)) != MPI_SUCCESS)
        return err;
    if ((err = tm_mpi_errhandler_get(r, NULL, errhandler, call, &eh)) != MPI_SUCCESS)
        return err;
    if (eh != NULL && tm_mpi_errhandler_kind(eh) != TM_MPI_KIND_FILE)
        return tm_mpi_error_raise(
            r->rt, NULL, call, MPI_ERR_ARG, "error handler 0x%08x is for %s, not a file",
            (unsigned)errhandler, tm_mpi_handle_kind_name(tm_mpi_errhandler_kind(eh)));
    if (eh != NULL)
        tm_mpi_errhandler_retain(eh);
    MPI_Errhandler *slot = f ? &f->errhandler : &r->file_errhandler;
    tm_mpi_errhandler_t **user = f ? &f->errhandler_user : &r->file_errhandler_user;
    tm_mpi_errhandler_release(*user);
    *slot = errhandler;
    *user = eh;
    return MPI_SUCCESS;
}
#pragma weak MPI_File_set_errhandler = PMPI_File_set_errhandler

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_File_get_errhandler";
    TM_MPI_RANK(r, call);
    tm_io_file_t *f = NULL;
    int err;

    if (file != MPI_FILE_NULL && (err = tm_mpi_file_get(r, file, call, &f)) != MPI_SUCCESS)
        return err;
    if (errhandler == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "errhandler is NULL");
    tm_mpi_errhandler_t *user = f ? f->errhandler_user : r->file_errhandler_user;
    /* A new reference, which the program gives back with MPI_Errhandler_free. */
    if (user != NULL)
        tm_mpi_errhandler_retain(user);
    *errhandler = f ? f->errhandler : r->file_errhandler;
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_errhandler = PMPI_File_get_errhandler

int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    static const char call[] = "MPI_File_call_errhandler";
    TM_MPI_RANK(r, call);
    tm_io_file_t *f = NULL;
    int err;

    if (fh != MPI_FILE_NULL && (err = tm_mpi_file_get(r, fh, call, &f)) != MPI_SUCCESS)
        return err;
    if (errorcode <= MPI_SUCCESS || tm_mpi_error_class_of(r, errorcode) < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "invalid error code %d",
                                  errorcode);
    if (f != NULL)
        tm_mpi_file_error(f, call, errorcode, "error code %d raised by the program", errorcode);
    else
        tm_mpi_file_null_error(r, call, errorcode, "error code %d raised by the program",
                               errorcode);
    /* The handler returned: the call itself succeeded (MPI 3.1, 8.3.6). */
    return MPI_SUCCESS;
}
#pragma weak MPI_File_call_errhandler = PMPI_File_call_errhandler
