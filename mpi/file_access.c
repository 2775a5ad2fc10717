/*
 * Reading and writing files (MPI 3.1, 13.4): explicit offsets (_at), the individual file
 * pointer, the shared file pointer (_shared, _ordered); blocking, non-blocking (MPI_File_i*)
 * and collective (_all, and the split collectives _begin/_end). The files and their views are
 * in file.c, the data's way to the file in io/.
 *
 * Where an access starts, in etypes of the view: its offset; the member's pointer, which it
 * then moves past what it moved; the shared pointer, which it moves past what it asks for with
 * one fetch-and-add, so that concurrent shared accesses take disjoint places in the order they
 * come; an ordered access's place is the shared pointer plus the data of the members before it
 * in rank order (an exclusive scan), the last member moving the pointer past them all.
 *
 * The collective accesses are each member's access done independently, which MPI allows (each
 * moves its own data between its buffer and the file); they are collective in what they check.
 * A split collective does its access in _begin, and _end returns its status.
 *
 * A non-blocking access is checked and placed at the call (its pointer moves then), then runs
 * in an I/O thread (io/worker.c) while the rank goes on: its request, a CHECKED one, is
 * completed by that thread, which also wakes the rank; its error goes to the file's handler in
 * the call that completes it.
 *
 * Each call has its large-count form (MPI-4.0, _c): the same access with an MPI_Count count. A
 * count whose bytes a buffer (PTRDIFF_MAX) or a file (an MPI_Offset) cannot hold is
 * MPI_ERR_COUNT in either form; a status counts bytes in an MPI_Count, whatever the form.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "file.h"
#include "p2p/p2p.h"

typedef enum where {
    AT,         /* an explicit offset */
    INDIVIDUAL, /* the member's file pointer */
    SHARED,     /* the shared file pointer */
    ORDERED,    /* the shared file pointer, in rank order (collective) */
} where_t;

/* One access as the program asked for it. */
typedef struct access {
    const char *call;
    tm_io_file_t *f;
    where_t where;
    MPI_Offset offset; /* AT: etypes */
    void *buf;
    MPI_Count count;
    tm_mpi_type_t *type;
    bool write, collective;
} access_t;

/* Bytes of one element of type t in the file of f's view: its size, or in "external32" its
 * size there. */
static size_t file_size_of(const tm_io_file_t *f, const tm_mpi_type_t *t)
{
    return f->view.external32 ? tm_mpi_type_external32_size(t) : t->size;
}

/* Checks access a; MPI_SUCCESS, or the error reported through the file's handler. */
static int access_check(access_t *a, MPI_Datatype datatype)
{
    tm_io_file_t *f = a->f;
    const char *call = a->call;
    int amode = f->shared->amode;

    if (a->count < 0)
        return tm_mpi_file_error(f, call, MPI_ERR_COUNT, "negative count %lld",
                                 (long long)a->count);
    if (tm_mpi_type_lookup(datatype, &a->type) < 0)
        return tm_mpi_file_error(f, call, MPI_ERR_TYPE, "invalid datatype 0x%08x",
                                 (unsigned)datatype);
    if (!a->type->committed)
        return tm_mpi_file_error(f, call, MPI_ERR_TYPE, "datatype 0x%08x is not committed",
                                 (unsigned)datatype);
    /* The data's bytes in memory are a buffer's size, and in the file an offset: the helpers
     * and io/ compute both as size_t without checking again. */
    size_t bytes, stream;
    if (__builtin_mul_overflow((size_t)a->count, a->type->size, &bytes) ||
        bytes > (size_t)PTRDIFF_MAX)
        return tm_mpi_file_error(f, call, MPI_ERR_COUNT,
                                 "%lld elements of %zu bytes are more than memory can hold",
                                 (long long)a->count, a->type->size);
    if (__builtin_mul_overflow((size_t)a->count, file_size_of(f, a->type), &stream) ||
        stream > (size_t)INT64_MAX)
        return tm_mpi_file_error(f, call, MPI_ERR_COUNT,
                                 "%lld elements of %zu bytes in the file are more than a file "
                                 "can hold",
                                 (long long)a->count, file_size_of(f, a->type));
    if (a->buf == NULL && a->count > 0 && a->type->size > 0)
        return tm_mpi_file_error(f, call, MPI_ERR_BUFFER, "buf is NULL");
    if (stream % f->view.etype->size != 0)
        return tm_mpi_file_error(f, call, MPI_ERR_TYPE,
                                 "%lld x %zu bytes of data are not a whole number of etypes "
                                 "(%zu bytes each in the file)",
                                 (long long)a->count, file_size_of(f, a->type),
                                 f->view.etype->size);
    if (a->write && (amode & MPI_MODE_RDONLY))
        return tm_mpi_file_error(f, call, MPI_ERR_READ_ONLY,
                                 "the file was opened with MPI_MODE_RDONLY");
    if (!a->write && (amode & MPI_MODE_WRONLY))
        return tm_mpi_file_error(f, call, MPI_ERR_ACCESS,
                                 "the file was opened with MPI_MODE_WRONLY");
    if ((amode & MPI_MODE_SEQUENTIAL) && (a->where == AT || a->where == INDIVIDUAL))
        return tm_mpi_file_error(f, call, MPI_ERR_UNSUPPORTED_OPERATION,
                                 "the file was opened with MPI_MODE_SEQUENTIAL: only the shared "
                                 "file pointer may be used");
    if (a->where == AT && a->offset < 0)
        return tm_mpi_file_error(f, call, MPI_ERR_ARG, "negative offset %lld",
                                 (long long)a->offset);
    if (a->collective && f->split.call != NULL)
        return tm_mpi_file_error(f, call, MPI_ERR_OTHER,
                                 "%s is under way: a collective access must wait for its end",
                                 f->split.call);
    return MPI_SUCCESS;
}

/* The etypes access a asks for. */
static MPI_Offset access_etypes(const access_t *a)
{
    return (MPI_Offset)((size_t)a->count * file_size_of(a->f, a->type) / a->f->view.etype->size);
}

/* Where access a starts, in etypes; moves the pointer it uses past what it asks for. */
static MPI_Offset access_place(access_t *a)
{
    tm_io_file_t *f = a->f;
    MPI_Offset n = access_etypes(a);

    switch (a->where) {
    case AT:
        return a->offset;
    case INDIVIDUAL: {
        MPI_Offset at = f->pos;
        f->pos += n;
        return at;
    }
    case SHARED:
        return atomic_fetch_add_explicit(&f->shared->shared_pos, n, memory_order_relaxed);
    case ORDERED:
        break;
    }
    /* The members before this one in rank order, and the last one, which moves the pointer
     * past them all and tells the others where they start. */
    MPI_Offset before = 0, base = 0;
    int rank, size;
    PMPI_Comm_rank(f->comm, &rank);
    PMPI_Comm_size(f->comm, &size);
    tm_mpi_coll_exscan(a->call, &n, &before, 1, MPI_OFFSET, MPI_SUM, f->comm);
    if (rank == 0)
        before = 0;
    if (rank == size - 1)
        base = atomic_fetch_add_explicit(&f->shared->shared_pos, before + n, memory_order_relaxed);
    tm_mpi_coll_bcast(a->call, &base, 1, MPI_OFFSET, size - 1, f->comm);
    return base + before;
}

/* The status of an access that moved `bytes`. */
static void access_status(MPI_Status *status, size_t bytes)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->tm_count = (MPI_Count)bytes;
    status->tm_cancelled = 0;
}

/* Reports the -errno of an access that failed. */
static int access_failed(tm_io_file_t *f, const char *call, bool write, int err)
{
    return tm_mpi_file_error(f, call, tm_mpi_file_errno_class(-err), "%s the file: %s",
                             write ? "writing" : "reading", strerror(-err));
}

/* A blocking collective access at stream byte `off` of a's view, through aggregators when the
 * members' accesses interleave (io/collective.c): its part published, a barrier, then the
 * aggregators' work and another barrier; else each member's own access. *bytes_p: what it moved.
 * 0 or -errno. */
static int access_collective(access_t *a, MPI_Offset off, size_t *bytes_p)
{
    tm_io_file_t *f = a->f;
    char *stored = NULL; /* an "external32" view's data, converted */
    tm_io_shared_t *sh = f->shared;
    int set = (int)(f->coll_calls++ & 1), members = sh->nmembers;
    tm_io_part_t *p = &sh->parts[set][f->rank];
    size_t len = (size_t)a->count * file_size_of(f, a->type); /* stream bytes */
    MPI_Offset run;

    p->view = &f->view;
    p->off = off;
    p->len = len;
    p->buf = a->buf;
    p->count = (size_t)a->count;
    p->type = a->type;
    if (f->view.external32 && len > 0) {
        /* The aggregators move the data as the file holds it: a converted copy */
        if ((stored = malloc(len)) == NULL)
            p->len = len = 0; /* the others wait at the barriers: take part without data */
        else if (a->write)
            tm_mpi_type_external32_pack(a->buf, (size_t)a->count, a->type, stored);
        p->buf = stored;
        p->count = len;
        p->type = &tm_mpi_type_predefined[(unsigned)MPI_BYTE & 0xff];
    }
    p->lo = p->hi = 0;
    if (len > 0) {
        p->lo = tm_io_view_map(&f->view, off, &run);
        p->hi = tm_io_view_map(&f->view, off + (MPI_Offset)len - 1, &run) + 1;
    }
    p->aggregators = f->hints.aggregators;
    p->buffer_size = f->hints.buffer_size;
    p->mode = a->write ? f->hints.write_mode : f->hints.read_mode;
    atomic_store_explicit(&p->err, 0, memory_order_relaxed);
    tm_mpi_coll_barrier(a->call, f->comm); /* every part published */

    int err;
    size_t moved; /* stream bytes */
    if (!tm_io_collective_wanted(sh, set)) {
        /* (tm_io_access counts the data as memory holds it: the same bytes but in external32) */
        err = stored ? tm_io_access_stored(f, off, stored, len, a->write, &moved)
                     : tm_io_access(f, off, a->buf, (size_t)a->count, a->type, a->write, &moved);
    } else {
        for (int i = 0; i < p->aggregators && i < members; i++)
            if (tm_io_collective_aggregator(i, p->aggregators < members ? p->aggregators : members,
                                            members) == f->rank)
                tm_io_collective_run(sh, set, i, a->write, &f->buffer);
        tm_mpi_coll_barrier(a->call,
                            f->comm); /* the aggregators are done with every member's buffer */
        err = atomic_load_explicit(&p->err, memory_order_relaxed);
        moved = len;
        if (!a->write && err == 0) {
            MPI_Offset size = tm_io_size(sh);
            err = size < 0 ? (int)size : 0;
            moved = size < 0 ? 0 : tm_io_collective_read_bytes(p, size);
        }
    }
    *bytes_p = moved;
    if (f->view.external32 && (size_t)a->count * a->type->size > 0) {
        if (stored == NULL)
            return -ENOMEM;
        size_t whole = moved / file_size_of(f, a->type); /* the whole datatypes moved */
        if (!a->write)
            tm_mpi_type_external32_unpack(stored, a->buf, whole, a->type);
        *bytes_p = whole * a->type->size;
        free(stored);
    }
    return err;
}

/* A blocking access. */
static int access_run(const char *call, MPI_File fh, where_t where, MPI_Offset offset, void *buf,
                      MPI_Count count, MPI_Datatype datatype, MPI_Status *status, bool write,
                      bool collective)
{
    TM_MPI_RANK(r, call);
    access_t a = {call, NULL, where, offset, buf, count, NULL, write, collective};
    int err = tm_mpi_file_get(r, fh, call, &a.f);

    if (err != MPI_SUCCESS || (err = access_check(&a, datatype)) != MPI_SUCCESS)
        return err;
    MPI_Offset at = access_place(&a);
    size_t esize = a.f->view.etype->size, bytes;
    if (collective && where != ORDERED)
        err = access_collective(&a, at * (MPI_Offset)esize, &bytes);
    else
        err = tm_io_access(a.f, at * (MPI_Offset)esize, buf, (size_t)count, a.type, write, &bytes);
    /* The member's pointer moves past what it moved (a read may stop at the end of the file). */
    if (where == INDIVIDUAL) {
        size_t stream =
            a.type->size ? bytes / a.type->size * file_size_of(a.f, a.type) + bytes % a.type->size
                         : 0;
        a.f->pos = at + (MPI_Offset)(stream / esize);
    }
    access_status(status, bytes);
    if (err < 0)
        return access_failed(a.f, call, write, err);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ non-blocking */

/* A non-blocking access: the I/O thread's job and the request it completes. */
typedef struct file_job {
    tm_io_job_t job;
    tm_p2p_request_t *req;
    tm_p2p_mailbox_t *mailbox; /* its owner's */
} file_job_t;

/* The I/O thread's end of a job: the request's status, then its completion, which wakes the
 * rank. The rank may release the request (and the job with it) from then on. */
static void job_done(tm_io_job_t *job, size_t bytes, int err)
{
    file_job_t *fj = (file_job_t *)job;
    tm_p2p_request_t *req = fj->req;

    access_status(&req->status, bytes);
    req->status.MPI_ERROR = err < 0 ? tm_mpi_file_errno_class(-err) : MPI_SUCCESS;
    tm_p2p_request_complete(req, fj->mailbox);
}

/* Completed by its I/O thread, never by its owner's check. */
static bool job_settle(tm_p2p_request_t *req)
{
    (void)req;
    return false;
}

/* The error of a completed non-blocking access, through its file's handler. */
static int job_raise(void *ctx, const char *call, int errclass)
{
    return tm_mpi_file_error(ctx, call, errclass, "the access failed (%s)",
                             tm_mpi_error_class_text(errclass));
}

static int access_start(const char *call, MPI_File fh, where_t where, MPI_Offset offset, void *buf,
                        MPI_Count count, MPI_Datatype datatype, MPI_Request *request, bool write,
                        bool collective)
{
    TM_MPI_RANK(r, call);
    access_t a = {call, NULL, where, offset, buf, count, NULL, write, collective};
    int err = tm_mpi_file_get(r, fh, call, &a.f);

    if (err != MPI_SUCCESS || (err = access_check(&a, datatype)) != MPI_SUCCESS)
        return err;
    if (request == NULL)
        return tm_mpi_file_error(a.f, call, MPI_ERR_ARG, "request is NULL");
    file_job_t *fj = calloc(1, sizeof(*fj));
    tm_p2p_request_t *req = fj ? tm_p2p_request_new(r, TM_P2P_REQ_CHECKED) : NULL;
    if (req == NULL) {
        free(fj);
        return tm_mpi_file_error(a.f, call, MPI_ERR_NO_MEM, "out of memory");
    }
    tm_mpi_type_retain(a.type);
    req->type = a.type; /* released with the request */
    req->call = call;
    req->settle = job_settle;
    req->raise = job_raise;
    req->raise_ctx = a.f;
    req->coll = fj; /* freed with the request */
    req->coll_free = free;
    fj->req = req;
    fj->mailbox = r->p2p->match.mailbox;
    fj->job.file = a.f;
    fj->job.off = access_place(&a) * (MPI_Offset)a.f->view.etype->size;
    fj->job.buf = buf;
    fj->job.count = (size_t)count;
    fj->job.type = a.type;
    fj->job.write = write;
    fj->job.done = job_done;
    if (count == 0 || a.type->size == 0) {
        job_done(&fj->job, 0, 0);
    } else if ((err = tm_io_job_post(&fj->job)) < 0) {
        tm_p2p_request_release(r, req);
        return tm_mpi_file_error(a.f, call, MPI_ERR_OTHER, "no I/O thread could start: %s",
                                 strerror(-err));
    }
    *request = tm_p2p_request_handle(req);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ split collectives */

static int split_begin(const char *call, MPI_File fh, where_t where, MPI_Offset offset, void *buf,
                       MPI_Count count, MPI_Datatype datatype, bool write)
{
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    if (f->split.call != NULL)
        return tm_mpi_file_error(f, call, MPI_ERR_OTHER,
                                 "%s is under way: one split collective at a time per file",
                                 f->split.call);
    MPI_Status status;
    err = access_run(call, fh, where, offset, buf, count, datatype, &status, write, true);
    if (err != MPI_SUCCESS) /* reported: no split collective began */
        return err;
    f->split.call = call;
    f->split.buf = buf;
    f->split.status = status;
    return MPI_SUCCESS;
}

/* Whether the split collective under way (its _begin call, or NULL) is `begin` or its
 * large-count form, begin"_c": an _end ends either. */
static bool split_is(const char *under_way, const char *begin)
{
    size_t n = strlen(begin);

    return under_way != NULL && strncmp(under_way, begin, n) == 0 &&
           (under_way[n] == '\0' || strcmp(under_way + n, "_c") == 0);
}

static int split_end(const char *call, const char *begin, MPI_File fh, const void *buf,
                     MPI_Status *status)
{
    TM_MPI_RANK(r, call);
    tm_io_file_t *f;
    int err = tm_mpi_file_get(r, fh, call, &f);

    if (err != MPI_SUCCESS)
        return err;
    if (!split_is(f->split.call, begin))
        return tm_mpi_file_error(f, call, MPI_ERR_OTHER, "%s is under way, not %s",
                                 f->split.call ? f->split.call : "no split collective", begin);
    if (buf != f->split.buf)
        return tm_mpi_file_error(f, call, MPI_ERR_BUFFER, "buf is not the buffer %s was given",
                                 f->split.call);
    f->split.call = NULL;
    if (status != MPI_STATUS_IGNORE)
        *status = f->split.status;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ the calls */

/* The const of the write forms' buffers is cast away: the access only reads it. */
int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status)
{
    return access_run("MPI_File_read_at", fh, AT, offset, buf, count, datatype, status, false,
                      false);
}
#pragma weak MPI_File_read_at = PMPI_File_read_at

int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Status *status)
{
    return access_run("MPI_File_read_at_c", fh, AT, offset, buf, count, datatype, status, false,
                      false);
}
#pragma weak MPI_File_read_at_c = PMPI_File_read_at_c

int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                          MPI_Datatype datatype, MPI_Status *status)
{
    return access_run("MPI_File_read_at_all", fh, AT, offset, buf, count, datatype, status, false,
                      true);
}
#pragma weak MPI_File_read_at_all = PMPI_File_read_at_all

int PMPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Status *status)
{
    return access_run("MPI_File_read_at_all_c", fh, AT, offset, buf, count, datatype, status, false,
                      true);
}
#pragma weak MPI_File_read_at_all_c = PMPI_File_read_at_all_c

int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                       MPI_Datatype datatype, MPI_Status *status)
{
    return access_run("MPI_File_write_at", fh, AT, offset, (void *)buf, count, datatype, status,
                      true, false);
}
#pragma weak MPI_File_write_at = PMPI_File_write_at

int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Status *status)
{
    return access_run("MPI_File_write_at_c", fh, AT, offset, (void *)buf, count, datatype, status,
                      true, false);
}
#pragma weak MPI_File_write_at_c = PMPI_File_write_at_c

int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                           MPI_Datatype datatype, MPI_Status *status)
{
    return access_run("MPI_File_write_at_all", fh, AT, offset, (void *)buf, count, datatype, status,
                      true, true);
}
#pragma weak MPI_File_write_at_all = PMPI_File_write_at_all

int PMPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Status *status)
{
    return access_run("MPI_File_write_at_all_c", fh, AT, offset, (void *)buf, count, datatype,
                      status, true, true);
}
#pragma weak MPI_File_write_at_all_c = PMPI_File_write_at_all_c

int PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return access_run("MPI_File_read", fh, INDIVIDUAL, 0, buf, count, datatype, status, false,
                      false);
}
#pragma weak MPI_File_read = PMPI_File_read

int PMPI_File_read_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Status *status)
{
    return access_run("MPI_File_read_c", fh, INDIVIDUAL, 0, buf, count, datatype, status, false,
                      false);
}
#pragma weak MPI_File_read_c = PMPI_File_read_c

int PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return access_run("MPI_File_read_all", fh, INDIVIDUAL, 0, buf, count, datatype, status, false,
                      true);
}
#pragma weak MPI_File_read_all = PMPI_File_read_all

int PMPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Status *status)
{
    return access_run("MPI_File_read_all_c", fh, INDIVIDUAL, 0, buf, count, datatype, status, false,
                      true);
}
#pragma weak MPI_File_read_all_c = PMPI_File_read_all_c

int PMPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                    MPI_Status *status)
{
    return access_run("MPI_File_write", fh, INDIVIDUAL, 0, (void *)buf, count, datatype, status,
                      true, false);
}
#pragma weak MPI_File_write = PMPI_File_write

int PMPI_File_write_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Status *status)
{
    return access_run("MPI_File_write_c", fh, INDIVIDUAL, 0, (void *)buf, count, datatype, status,
                      true, false);
}
#pragma weak MPI_File_write_c = PMPI_File_write_c

int PMPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                        MPI_Status *status)
{
    return access_run("MPI_File_write_all", fh, INDIVIDUAL, 0, (void *)buf, count, datatype, status,
                      true, true);
}
#pragma weak MPI_File_write_all = PMPI_File_write_all

int PMPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Status *status)
{
    return access_run("MPI_File_write_all_c", fh, INDIVIDUAL, 0, (void *)buf, count, datatype,
                      status, true, true);
}
#pragma weak MPI_File_write_all_c = PMPI_File_write_all_c

int PMPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status)
{
    return access_run("MPI_File_read_shared", fh, SHARED, 0, buf, count, datatype, status, false,
                      false);
}
#pragma weak MPI_File_read_shared = PMPI_File_read_shared

int PMPI_File_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status)
{
    return access_run("MPI_File_read_shared_c", fh, SHARED, 0, buf, count, datatype, status, false,
                      false);
}
#pragma weak MPI_File_read_shared_c = PMPI_File_read_shared_c

int PMPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status)
{
    return access_run("MPI_File_write_shared", fh, SHARED, 0, (void *)buf, count, datatype, status,
                      true, false);
}
#pragma weak MPI_File_write_shared = PMPI_File_write_shared

int PMPI_File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status)
{
    return access_run("MPI_File_write_shared_c", fh, SHARED, 0, (void *)buf, count, datatype,
                      status, true, false);
}
#pragma weak MPI_File_write_shared_c = PMPI_File_write_shared_c

int PMPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status)
{
    return access_run("MPI_File_read_ordered", fh, ORDERED, 0, buf, count, datatype, status, false,
                      true);
}
#pragma weak MPI_File_read_ordered = PMPI_File_read_ordered

int PMPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status)
{
    return access_run("MPI_File_read_ordered_c", fh, ORDERED, 0, buf, count, datatype, status,
                      false, true);
}
#pragma weak MPI_File_read_ordered_c = PMPI_File_read_ordered_c

int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Status *status)
{
    return access_run("MPI_File_write_ordered", fh, ORDERED, 0, (void *)buf, count, datatype,
                      status, true, true);
}
#pragma weak MPI_File_write_ordered = PMPI_File_write_ordered

int PMPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Status *status)
{
    return access_run("MPI_File_write_ordered_c", fh, ORDERED, 0, (void *)buf, count, datatype,
                      status, true, true);
}
#pragma weak MPI_File_write_ordered_c = PMPI_File_write_ordered_c

/* Non-blocking */

int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request)
{
    return access_start("MPI_File_iread_at", fh, AT, offset, buf, count, datatype, request, false,
                        false);
}
#pragma weak MPI_File_iread_at = PMPI_File_iread_at

int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Request *request)
{
    return access_start("MPI_File_iread_at_c", fh, AT, offset, buf, count, datatype, request, false,
                        false);
}
#pragma weak MPI_File_iread_at_c = PMPI_File_iread_at_c

int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                           MPI_Datatype datatype, MPI_Request *request)
{
    return access_start("MPI_File_iread_at_all", fh, AT, offset, buf, count, datatype, request,
                        false, true);
}
#pragma weak MPI_File_iread_at_all = PMPI_File_iread_at_all

int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request *request)
{
    return access_start("MPI_File_iread_at_all_c", fh, AT, offset, buf, count, datatype, request,
                        false, true);
}
#pragma weak MPI_File_iread_at_all_c = PMPI_File_iread_at_all_c

int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                        MPI_Datatype datatype, MPI_Request *request)
{
    return access_start("MPI_File_iwrite_at", fh, AT, offset, (void *)buf, count, datatype, request,
                        true, false);
}
#pragma weak MPI_File_iwrite_at = PMPI_File_iwrite_at

int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Request *request)
{
    return access_start("MPI_File_iwrite_at_c", fh, AT, offset, (void *)buf, count, datatype,
                        request, true, false);
}
#pragma weak MPI_File_iwrite_at_c = PMPI_File_iwrite_at_c

int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                            MPI_Datatype datatype, MPI_Request *request)
{
    return access_start("MPI_File_iwrite_at_all", fh, AT, offset, (void *)buf, count, datatype,
                        request, true, true);
}
#pragma weak MPI_File_iwrite_at_all = PMPI_File_iwrite_at_all

int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Request *request)
{
    return access_start("MPI_File_iwrite_at_all_c", fh, AT, offset, (void *)buf, count, datatype,
                        request, true, true);
}
#pragma weak MPI_File_iwrite_at_all_c = PMPI_File_iwrite_at_all_c

int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
    return access_start("MPI_File_iread", fh, INDIVIDUAL, 0, buf, count, datatype, request, false,
                        false);
}
#pragma weak MPI_File_iread = PMPI_File_iread

int PMPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Request *request)
{
    return access_start("MPI_File_iread_c", fh, INDIVIDUAL, 0, buf, count, datatype, request, false,
                        false);
}
#pragma weak MPI_File_iread_c = PMPI_File_iread_c

int PMPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request)
{
    return access_start("MPI_File_iread_all", fh, INDIVIDUAL, 0, buf, count, datatype, request,
                        false, true);
}
#pragma weak MPI_File_iread_all = PMPI_File_iread_all

int PMPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Request *request)
{
    return access_start("MPI_File_iread_all_c", fh, INDIVIDUAL, 0, buf, count, datatype, request,
                        false, true);
}
#pragma weak MPI_File_iread_all_c = PMPI_File_iread_all_c

int PMPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                     MPI_Request *request)
{
    return access_start("MPI_File_iwrite", fh, INDIVIDUAL, 0, (void *)buf, count, datatype, request,
                        true, false);
}
#pragma weak MPI_File_iwrite = PMPI_File_iwrite

int PMPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Request *request)
{
    return access_start("MPI_File_iwrite_c", fh, INDIVIDUAL, 0, (void *)buf, count, datatype,
                        request, true, false);
}
#pragma weak MPI_File_iwrite_c = PMPI_File_iwrite_c

int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                         MPI_Request *request)
{
    return access_start("MPI_File_iwrite_all", fh, INDIVIDUAL, 0, (void *)buf, count, datatype,
                        request, true, true);
}
#pragma weak MPI_File_iwrite_all = PMPI_File_iwrite_all

int PMPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Request *request)
{
    return access_start("MPI_File_iwrite_all_c", fh, INDIVIDUAL, 0, (void *)buf, count, datatype,
                        request, true, true);
}
#pragma weak MPI_File_iwrite_all_c = PMPI_File_iwrite_all_c

int PMPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request)
{
    return access_start("MPI_File_iread_shared", fh, SHARED, 0, buf, count, datatype, request,
                        false, false);
}
#pragma weak MPI_File_iread_shared = PMPI_File_iread_shared

int PMPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Request *request)
{
    return access_start("MPI_File_iread_shared_c", fh, SHARED, 0, buf, count, datatype, request,
                        false, false);
}
#pragma weak MPI_File_iread_shared_c = PMPI_File_iread_shared_c

int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Request *request)
{
    return access_start("MPI_File_iwrite_shared", fh, SHARED, 0, (void *)buf, count, datatype,
                        request, true, false);
}
#pragma weak MPI_File_iwrite_shared = PMPI_File_iwrite_shared

int PMPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Request *request)
{
    return access_start("MPI_File_iwrite_shared_c", fh, SHARED, 0, (void *)buf, count, datatype,
                        request, true, false);
}
#pragma weak MPI_File_iwrite_shared_c = PMPI_File_iwrite_shared_c

/* Split collectives */

int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                MPI_Datatype datatype)
{
    return split_begin("MPI_File_read_at_all_begin", fh, AT, offset, buf, count, datatype, false);
}
#pragma weak MPI_File_read_at_all_begin = PMPI_File_read_at_all_begin

int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                  MPI_Datatype datatype)
{
    return split_begin("MPI_File_read_at_all_begin_c", fh, AT, offset, buf, count, datatype, false);
}
#pragma weak MPI_File_read_at_all_begin_c = PMPI_File_read_at_all_begin_c

int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return split_end("MPI_File_read_at_all_end", "MPI_File_read_at_all_begin", fh, buf, status);
}
#pragma weak MPI_File_read_at_all_end = PMPI_File_read_at_all_end

int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                 MPI_Datatype datatype)
{
    return split_begin("MPI_File_write_at_all_begin", fh, AT, offset, (void *)buf, count, datatype,
                       true);
}
#pragma weak MPI_File_write_at_all_begin = PMPI_File_write_at_all_begin

int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                   MPI_Datatype datatype)
{
    return split_begin("MPI_File_write_at_all_begin_c", fh, AT, offset, (void *)buf, count,
                       datatype, true);
}
#pragma weak MPI_File_write_at_all_begin_c = PMPI_File_write_at_all_begin_c

int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return split_end("MPI_File_write_at_all_end", "MPI_File_write_at_all_begin", fh, buf, status);
}
#pragma weak MPI_File_write_at_all_end = PMPI_File_write_at_all_end

int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype)
{
    return split_begin("MPI_File_read_all_begin", fh, INDIVIDUAL, 0, buf, count, datatype, false);
}
#pragma weak MPI_File_read_all_begin = PMPI_File_read_all_begin

int PMPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype)
{
    return split_begin("MPI_File_read_all_begin_c", fh, INDIVIDUAL, 0, buf, count, datatype, false);
}
#pragma weak MPI_File_read_all_begin_c = PMPI_File_read_all_begin_c

int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return split_end("MPI_File_read_all_end", "MPI_File_read_all_begin", fh, buf, status);
}
#pragma weak MPI_File_read_all_end = PMPI_File_read_all_end

int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype)
{
    return split_begin("MPI_File_write_all_begin", fh, INDIVIDUAL, 0, (void *)buf, count, datatype,
                       true);
}
#pragma weak MPI_File_write_all_begin = PMPI_File_write_all_begin

int PMPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                MPI_Datatype datatype)
{
    return split_begin("MPI_File_write_all_begin_c", fh, INDIVIDUAL, 0, (void *)buf, count,
                       datatype, true);
}
#pragma weak MPI_File_write_all_begin_c = PMPI_File_write_all_begin_c

int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return split_end("MPI_File_write_all_end", "MPI_File_write_all_begin", fh, buf, status);
}
#pragma weak MPI_File_write_all_end = PMPI_File_write_all_end

int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype)
{
    return split_begin("MPI_File_read_ordered_begin", fh, ORDERED, 0, buf, count, datatype, false);
}
#pragma weak MPI_File_read_ordered_begin = PMPI_File_read_ordered_begin

int PMPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype)
{
    return split_begin("MPI_File_read_ordered_begin_c", fh, ORDERED, 0, buf, count, datatype,
                       false);
}
#pragma weak MPI_File_read_ordered_begin_c = PMPI_File_read_ordered_begin_c

int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return split_end("MPI_File_read_ordered_end", "MPI_File_read_ordered_begin", fh, buf, status);
}
#pragma weak MPI_File_read_ordered_end = PMPI_File_read_ordered_end

int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype)
{
    return split_begin("MPI_File_write_ordered_begin", fh, ORDERED, 0, (void *)buf, count, datatype,
                       true);
}
#pragma weak MPI_File_write_ordered_begin = PMPI_File_write_ordered_begin

int PMPI_File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                    MPI_Datatype datatype)
{
    return split_begin("MPI_File_write_ordered_begin_c", fh, ORDERED, 0, (void *)buf, count,
                       datatype, true);
}
#pragma weak MPI_File_write_ordered_begin_c = PMPI_File_write_ordered_begin_c

int PMPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return split_end("MPI_File_write_ordered_end", "MPI_File_write_ordered_begin", fh, buf, status);
}
#pragma weak MPI_File_write_ordered_end = PMPI_File_write_ordered_end
