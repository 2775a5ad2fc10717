/*
 * Two-phase collective accesses (io.h): the aggregators' domains, and each aggregator's walk of
 * its domain, one buffer at a time, between the file and the members' own buffers.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"

/* A buffer is never smaller than this, whatever the hint says. */
#define COLLECTIVE_MIN_BUFFER ((size_t)64 << 10)

/* How an access is cut: the file bytes all parts touch, [lo, hi), in `aggregators` domains of
 * `domain` bytes each (the last one shorter). */
typedef struct plan {
    MPI_Offset lo, hi, domain;
    int aggregators;
} plan_t;

static plan_t plan_of(tm_io_shared_t *sh, int set)
{
    tm_io_part_t *parts = sh->parts[set];
    plan_t pl = {INT64_MAX, 0, 0, parts[0].aggregators};

    for (int i = 0; i < sh->nmembers; i++) {
        if (parts[i].len == 0)
            continue;
        if (parts[i].lo < pl.lo)
            pl.lo = parts[i].lo;
        if (parts[i].hi > pl.hi)
            pl.hi = parts[i].hi;
    }
    if (pl.hi <= pl.lo) {
        pl.lo = pl.hi = 0;
        pl.aggregators = 0;
        return pl;
    }
    if (pl.aggregators < 1)
        pl.aggregators = 1;
    if (pl.aggregators > sh->nmembers)
        pl.aggregators = sh->nmembers;
    /* Domains of whole pages, so that two aggregators never write the same page */
    pl.domain = ((pl.hi - pl.lo + pl.aggregators - 1) / pl.aggregators + 4095) & ~(MPI_Offset)4095;
    return pl;
}

typedef struct range {
    MPI_Offset lo, hi;
} range_t;

static int range_cmp(const void *a, const void *b)
{
    MPI_Offset x = ((const range_t *)a)->lo, y = ((const range_t *)b)->lo;
    return x < y ? -1 : x > y;
}

bool tm_io_collective_wanted(tm_io_shared_t *sh, int set)
{
    tm_io_part_t *parts = sh->parts[set];
    int mode = parts[0].mode, n = 0;

    if (mode != TM_IO_COLLECTIVE_AUTO)
        return mode == TM_IO_COLLECTIVE_ENABLE;
    range_t *r = malloc((size_t)sh->nmembers * sizeof(*r));
    if (r == NULL)
        return false;
    for (int i = 0; i < sh->nmembers; i++)
        if (parts[i].len > 0)
            r[n++] = (range_t){parts[i].lo, parts[i].hi};
    qsort(r, (size_t)n, sizeof(*r), range_cmp);
    bool interleaved = false;
    for (int i = 1; i < n && !interleaved; i++)
        interleaved = r[i].lo < r[i - 1].hi;
    free(r);
    return interleaved;
}

int tm_io_collective_aggregator(int index, int aggregators, int members)
{
    return (int)((long)index * members / aggregators);
}

/* What a walk over the runs of the parts in a piece of the file does with each run. */
typedef struct walk {
    char *buf; /* the aggregator's buffer, which holds file bytes from `base` on */
    MPI_Offset base;
    MPI_Offset first, last; /* the extent of the runs seen (pass 1) */
    MPI_Offset covered;     /* their bytes */
    bool copy, write;
} walk_t;

/* Calls the walk on each run of part p that lies in file bytes [c, e): `n` bytes at file byte
 * `file`, which are the part's stream bytes from `s` on (from the part's start). */
static void part_walk(tm_io_part_t *p, MPI_Offset c, MPI_Offset e, walk_t *w)
{
    if (p->len == 0 || p->hi <= c || p->lo >= e)
        return;
    MPI_Offset s0 = tm_io_view_bytes_before(p->view, c), s1 = tm_io_view_bytes_before(p->view, e);
    MPI_Offset start = p->off, end = p->off + (MPI_Offset)p->len;

    if (s0 < start)
        s0 = start;
    if (s1 > end)
        s1 = end;
    for (MPI_Offset s = s0; s < s1;) {
        MPI_Offset run, file = tm_io_view_map(p->view, s, &run);
        size_t n = (size_t)(run < s1 - s ? run : s1 - s);

        if (!w->copy) {
            if (file < w->first)
                w->first = file;
            if (file + (MPI_Offset)n > w->last)
                w->last = file + (MPI_Offset)n;
            w->covered += (MPI_Offset)n;
        } else if (w->write) {
            tm_mpi_type_pack(p->buf, p->count, p->type, (size_t)(s - start), n,
                             w->buf + (file - w->base));
        } else {
            tm_mpi_type_unpack(w->buf + (file - w->base), n, p->buf, p->count, p->type,
                               (size_t)(s - start));
        }
        s += (MPI_Offset)n;
    }
}

/* Moves len bytes between buf and file byte `at`: 0 or -errno; *moved_p what was moved (a read
 * stops at the end of the file). */
static int move_all(int fd, char *buf, size_t len, MPI_Offset at, bool write, size_t *moved_p)
{
    size_t done = 0;
    int err = 0;

    while (done < len) {
        ssize_t n = write ? pwrite(fd, buf + done, len - done, (off_t)(at + (MPI_Offset)done))
                          : pread(fd, buf + done, len - done, (off_t)(at + (MPI_Offset)done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            err = n < 0 ? -errno : write ? -EIO : 0;
            break;
        }
        done += (size_t)n;
    }
    *moved_p = done;
    return err;
}

/* Tells every part that the access failed with -errno err (the first failure stays). */
static void parts_fail(tm_io_shared_t *sh, int set, int err)
{
    for (int i = 0; i < sh->nmembers; i++) {
        int none = 0;
        atomic_compare_exchange_strong_explicit(&sh->parts[set][i].err, &none, err,
                                                memory_order_relaxed, memory_order_relaxed);
    }
}

/* One piece [c, e) of an aggregator's domain. 0 or -errno. */
static int piece_run(tm_io_shared_t *sh, tm_io_part_t *parts, MPI_Offset c, MPI_Offset e, char *buf,
                     bool write)
{
    walk_t w = {buf, c, e, c, 0, false, write};
    size_t moved;
    int err;

    /* Pass 1: the extent of the bytes the parts move here, and how many they are */
    for (int i = 0; i < sh->nmembers; i++)
        part_walk(&parts[i], c, e, &w);
    if (w.covered == 0)
        return 0;
    size_t len = (size_t)(w.last - w.first);
    w.base = w.first;
    w.copy = true;
    if (write) {
        /* Bytes of the extent that no part writes keep what the file holds (data sieving) */
        if (w.covered < w.last - w.first) {
            err = move_all(sh->fd, buf, len, w.first, false, &moved);
            if (err < 0)
                return err;
            memset(buf + moved, 0, len - moved);
        }
        for (int i = 0; i < sh->nmembers; i++)
            part_walk(&parts[i], w.first, w.last, &w);
        return move_all(sh->fd, buf, len, w.first, true, &moved);
    }
    err = move_all(sh->fd, buf, len, w.first, false, &moved);
    if (err < 0)
        return err;
    /* Past the end of the file the parts' buffers keep what they hold */
    for (int i = 0; i < sh->nmembers; i++)
        part_walk(&parts[i], w.first, w.first + (MPI_Offset)moved, &w);
    return 0;
}

void tm_io_collective_run(tm_io_shared_t *sh, int set, int index, bool write, tm_io_buffer_t *b)
{
    tm_io_part_t *parts = sh->parts[set];
    plan_t pl = plan_of(sh, set);

    if (index >= pl.aggregators)
        return;
    MPI_Offset lo = pl.lo + index * pl.domain, hi = lo + pl.domain;
    if (hi > pl.hi)
        hi = pl.hi;
    if (lo >= hi)
        return;
    size_t size =
        parts[0].buffer_size < COLLECTIVE_MIN_BUFFER ? COLLECTIVE_MIN_BUFFER : parts[0].buffer_size;
    if ((MPI_Offset)size > hi - lo)
        size = (size_t)(hi - lo);
    if (b->size < size) {
        char *grown = realloc(b->data, size);
        if (grown == NULL) {
            parts_fail(sh, set, -ENOMEM);
            return;
        }
        b->data = grown;
        b->size = size;
    }
    char *buf = b->data;
    for (MPI_Offset c = lo; c < hi; c += (MPI_Offset)size) {
        MPI_Offset e = c + (MPI_Offset)size < hi ? c + (MPI_Offset)size : hi;
        bool held = tm_io_atomic_begin(sh, write);
        int err = piece_run(sh, parts, c, e, buf, write);
        tm_io_atomic_end(sh, held);
        if (err < 0) {
            parts_fail(sh, set, err);
            break;
        }
    }
}

size_t tm_io_collective_read_bytes(const tm_io_part_t *p, MPI_Offset file_size)
{
    MPI_Offset s = tm_io_view_bytes_before(p->view, file_size) - p->off;

    if (s <= 0)
        return 0;
    return s < (MPI_Offset)p->len ? (size_t)s : p->len;
}
