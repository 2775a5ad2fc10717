/*
 * ThreadMPI io/: files through the MPI interface (MPI-3.1 chapter 13) on POSIX files.
 *
 * A file opened by the members of a communicator has two parts, as a window has:
 *
 *   tm_io_shared_t   what the members share, made by the first member: ONE descriptor of the
 *                    file (the ranks are threads of one process, and pread/pwrite take their
 *                    offset with each call), the access mode, the shared file pointer, the
 *                    atomicity and its lock.
 *   tm_io_file_t     a member's own: its view, its individual file pointer, what its MPI_File
 *                    designates (handle, communicator, error handler, info). Only the member's
 *                    thread touches it.
 *
 * A view (disp, etype, filetype) makes the file a stream of data: the filetype tiled from byte
 * disp on, element i at disp + i * extent, its holes skipped. Offsets and file pointers count
 * etypes of that stream. An access maps the stream bytes it covers to runs of file bytes
 * through the filetype's blocks (obj/datatype.h: a block's `off` is its place in the element's
 * stream), and moves each run with one pread or pwrite, straight from the program's buffer when
 * its datatype is contiguous, through a buffer of TM_IO_CHUNK bytes packed or unpacked by the
 * datatype engine otherwise (or converted to or from external32 for such a view).
 *
 * Atomic mode (MPI_File_set_atomicity): an access holds the shared part's lock, shared for a
 * read and exclusive for a write, so that the members' accesses are sequentially consistent
 * even when one is many runs. The lock is held across system calls only, never across a
 * yield: the ranks' threads are never preempted, so its holder always runs.
 *
 * Functions return 0 or a negative errno, which mpi/ turns into an I/O error class.
 */
#ifndef TM_IO_H
#define TM_IO_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "obj/datatype.h"
#include "obj/obj.h"

/* Bytes an access moves per system call at most when its buffer must be packed or unpacked. */
#define TM_IO_CHUNK ((size_t)4 << 20)

/* One member's part of a collective access, which it publishes in the shared part for the
 * aggregators (collective.c); `err` is where an aggregator tells it that its data failed. */
typedef struct tm_io_part {
    const struct tm_io_view *view;
    MPI_Offset off; /* the stream byte where it starts */
    size_t len;     /* stream bytes */
    void *buf;
    size_t count;
    const tm_mpi_type_t *type;
    MPI_Offset lo, hi; /* the file bytes it touches lie in [lo, hi) */
    /* The hints of the access (the first member's are used) */
    int aggregators;
    size_t buffer_size;
    int mode; /* TM_IO_COLLECTIVE_* */
    _Atomic int err;
} tm_io_part_t;

/* Whether a collective access goes through aggregators (the hints romio_cb_read/_write). */
#define TM_IO_COLLECTIVE_AUTO    0 /* when the members' accesses interleave in the file */
#define TM_IO_COLLECTIVE_ENABLE  1
#define TM_IO_COLLECTIVE_DISABLE 2

typedef struct tm_io_shared {
    int fd;
    int amode;           /* MPI_MODE_* */
    char *path;          /* as opened: MPI_MODE_DELETE_ON_CLOSE removes it */
    _Atomic int members; /* that have not let it go yet: the last one closes the descriptor */
    /* The shared file pointer, in etypes of the view all members set for shared accesses */
    _Atomic long long shared_pos;
    _Atomic bool atomic;
    pthread_rwlock_t lock; /* atomic mode's */
    /* The members' parts of their collective accesses, by rank in the communicator; two sets,
     * used in turn, so that a member may publish its next part while a slower one still reads
     * the current set */
    int nmembers;
    tm_io_part_t *parts[2];
} tm_io_shared_t;

typedef struct tm_io_view {
    MPI_Offset disp;
    /* The layout of the data in the file (retained): the types the program gave, or for
     * "external32" their twins built with the basic types' sizes there (mpi/file.c) */
    tm_mpi_type_t *etype, *filetype;
    tm_mpi_type_t *given_etype, *given_filetype; /* what MPI_File_get_view returns (retained) */
    char datarep[MPI_MAX_DATAREP_STRING];
    /* "external32": the file holds the data big-endian (obj/external32.c), each basic element in
     * its external32 size */
    bool external32;
} tm_io_view_t;

/* The state of a split collective access (MPI_File_read_all_begin ... _end). */
typedef struct tm_io_split {
    const char *call; /* the _begin call under way, NULL when none */
    const void *buf;
    MPI_Status status;
} tm_io_split_t;

/* An aggregator's buffer, which it keeps from one collective access to the next: a fresh one
 * would cost a page fault per page at each access. */
typedef struct tm_io_buffer {
    char *data;
    size_t size;
} tm_io_buffer_t;

/* The hints a member's collective accesses follow (MPI 3.1, 13.2.8: cb_nodes, cb_buffer_size,
 * romio_cb_read, romio_cb_write). */
typedef struct tm_io_hints {
    int aggregators;
    size_t buffer_size;
    int read_mode, write_mode; /* TM_IO_COLLECTIVE_* */
} tm_io_hints_t;

typedef struct tm_io_file {
    tm_io_shared_t *shared;
    tm_io_view_t view;
    MPI_Offset pos; /* the individual file pointer, in etypes */
    tm_mpi_rank_t *owner;
    MPI_File handle;
    int index;     /* in the owner's table */
    MPI_Comm comm; /* the owner's duplicate of the communicator the file was opened on */
    MPI_Errhandler errhandler;
    tm_mpi_errhandler_t *errhandler_user;
    MPI_Info info; /* the hints in use (MPI_File_get_info copies it) */
    tm_io_hints_t hints;
    tm_io_buffer_t buffer; /* as an aggregator */
    int rank, size;        /* in `comm` */
    unsigned coll_calls;   /* collective accesses so far: which set of parts the next one uses */
    _Atomic int jobs;      /* its non-blocking accesses that an I/O thread has not let go yet */
    tm_io_split_t split;
} tm_io_file_t;

/* ------------------------------------------------------------------ the shared part (file.c) */

/* Opens `path` with MPI access mode `amode` (checked by the caller) for the `members` members
 * of a communicator, each of which lets it go once. 0 or -errno (-ENOMEM). */
int tm_io_shared_open(const char *path, int amode, int members, tm_io_shared_t **sh_p);

/* A member lets sh go; the last closes the file (and removes it with MPI_MODE_DELETE_ON_CLOSE).
 * 0 or the -errno of closing it. */
int tm_io_shared_release(tm_io_shared_t *sh);

/* The file's size in bytes, or -errno. */
MPI_Offset tm_io_size(tm_io_shared_t *sh);

/* Truncates or extends the file to `size` bytes (MPI_File_set_size); 0 or -errno. */
int tm_io_set_size(tm_io_shared_t *sh, MPI_Offset size);

/* Makes the file at least `size` bytes, allocating the blocks (MPI_File_preallocate). */
int tm_io_preallocate(tm_io_shared_t *sh, MPI_Offset size);

/* Writes the file's data to its storage (MPI_File_sync). */
int tm_io_sync(tm_io_shared_t *sh);

/* Atomic mode's lock around one access (or one piece of a collective one): taken, shared to read
 * and exclusive to write, when the file is in atomic mode; whether it was, for tm_io_atomic_end. */
bool tm_io_atomic_begin(tm_io_shared_t *sh, bool write);
void tm_io_atomic_end(tm_io_shared_t *sh, bool held);

/* ------------------------------------------------------------------ views (view.c) */

/* Sets view v (its types retained, the previous ones released): the types the program gave,
 * and those that lay the data out in the file (the same but for "external32"); the caller
 * checked that the filetype is made of etypes and its displacements never go back. */
void tm_io_view_set(tm_io_view_t *v, MPI_Offset disp, tm_mpi_type_t *given_etype,
                    tm_mpi_type_t *given_filetype, tm_mpi_type_t *etype, tm_mpi_type_t *filetype,
                    const char *datarep);

/* Releases v's types. */
void tm_io_view_clear(tm_io_view_t *v);

/* The file byte of stream byte `off` of view v, and in *run_p the stream bytes from there on
 * that lie back to back in the file (at least 1). */
MPI_Offset tm_io_view_map(const tm_io_view_t *v, MPI_Offset off, MPI_Offset *run_p);

/* The number of stream bytes of view v that lie before file byte `end` (end of file). */
MPI_Offset tm_io_view_bytes_before(const tm_io_view_t *v, MPI_Offset end);

/* ------------------------------------------------------------------ data access (access.c) */

/* Reads (write false) or writes the data of (buf, count, type) from or to the stream of f's
 * view at stream byte `off`. *bytes_p: the bytes moved, as memory holds them (a read stops
 * short at end of file; in "external32", at the last whole datatype). 0 or -errno (then
 * *bytes_p says how far it got). */
int tm_io_access(tm_io_file_t *f, MPI_Offset off, void *buf, size_t count,
                 const tm_mpi_type_t *type, bool write, size_t *bytes_p);

/* tm_io_access of `len` bytes at `data` that are the stream's bytes as the file holds them (no
 * conversion, whatever the view's representation). */
int tm_io_access_stored(tm_io_file_t *f, MPI_Offset off, void *data, size_t len, bool write,
                        size_t *bytes_p);

/* ------------------------------------------------------------------ collective (collective.c)
 *
 * Two-phase collective accesses. The members publish their parts (what each reads or writes:
 * its view, stream bytes and buffer) in the shared part; the file bytes the parts touch are cut
 * into as many domains as there are aggregators, contiguous, one per aggregator. An aggregator
 * goes through its domain a buffer of `buffer_size` bytes at a time: for a write it copies every
 * member's bytes of that piece of the file straight from the member's buffer (the ranks share
 * one address space: no message carries them) into its buffer, reading first the bytes no member
 * writes (data sieving), and writes the piece with one pwrite; a read is the reverse. Many small
 * pieces of the members become few large system calls. The members wait (a barrier) until the
 * aggregators are done with their buffers. */

/* Whether the collective access whose parts are published in set `set` goes through
 * aggregators: the first member's hint, or with "automatic" whether two members' file ranges
 * interleave. The same answer for every member. */
bool tm_io_collective_wanted(tm_io_shared_t *sh, int set);

/* The `index`-th of the `aggregators` members (by rank) that aggregate. */
int tm_io_collective_aggregator(int index, int aggregators, int members);

/* Aggregator `index` does its domain of the access published in set `set`, through buffer b
 * (grown as the hint cb_buffer_size asks); errors go to the parts' `err` (the -errno of the
 * first failure, for every part). */
void tm_io_collective_run(tm_io_shared_t *sh, int set, int index, bool write, tm_io_buffer_t *b);

/* The stream bytes of part p that a read moved, given the file's size now. */
size_t tm_io_collective_read_bytes(const tm_io_part_t *p, MPI_Offset file_size);

/* ------------------------------------------------------------------ I/O threads (worker.c)
 *
 * The non-blocking accesses (MPI_File_iread ...) run in threads of the process that are no
 * ranks: a rank posts the access and goes on computing; a thread does the system calls and
 * calls `done`, which completes the request and wakes its rank. Up to TM_IO_WORKERS threads,
 * started as accesses wait for one, serve the whole process. */

#define TM_IO_WORKERS 4

typedef struct tm_io_job tm_io_job_t;
struct tm_io_job {
    tm_io_job_t *next;
    tm_io_file_t *file; /* its view and shared part stay as they are until `done` */
    MPI_Offset off;     /* stream byte */
    void *buf;
    size_t count;
    const tm_mpi_type_t *type; /* held by the poster */
    bool write;
    /* Called by the I/O thread with what tm_io_access returned: the last use of the job by io/ */
    void (*done)(tm_io_job_t *job, size_t bytes, int err);
    void *arg;
};

/* Hands job to the I/O threads (starting one if none is idle). 0 or -errno (no thread could
 * start: the job was not taken). */
int tm_io_job_post(tm_io_job_t *job);

/* Waits until the I/O threads are done with every job of f, `done` included: its completion
 * wakes the rank, which may then see the job complete while the thread still finishes the
 * wake-up. Whoever frees f (or ends the job) waits first. */
void tm_io_jobs_wait(tm_io_file_t *f);

#endif /* TM_IO_H */
