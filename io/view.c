/*
 * Views (io.h): the stream of data that (disp, etype, filetype) makes of a file, and the file
 * bytes of each stream byte.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "io.h"

void tm_io_view_set(tm_io_view_t *v, MPI_Offset disp, tm_mpi_type_t *given_etype,
                    tm_mpi_type_t *given_filetype, tm_mpi_type_t *etype, tm_mpi_type_t *filetype,
                    const char *datarep)
{
    tm_mpi_type_t *hold[4] = {given_etype, given_filetype, etype, filetype};

    for (int i = 0; i < 4; i++)
        tm_mpi_type_retain(hold[i]);
    tm_io_view_clear(v);
    v->disp = disp;
    v->given_etype = given_etype;
    v->given_filetype = given_filetype;
    v->etype = etype;
    v->filetype = filetype;
    size_t n = strnlen(datarep, sizeof(v->datarep) - 1);
    memcpy(v->datarep, datarep, n);
    v->datarep[n] = '\0';
    v->external32 = strcmp(v->datarep, "external32") == 0;
}

void tm_io_view_clear(tm_io_view_t *v)
{
    tm_mpi_type_release(v->given_etype);
    tm_mpi_type_release(v->given_filetype);
    tm_mpi_type_release(v->etype);
    tm_mpi_type_release(v->filetype);
    v->given_etype = v->given_filetype = v->etype = v->filetype = NULL;
}

/* Whether the tiles of t follow each other without a hole: one block as long as the extent. */
static bool view_dense(const tm_mpi_type_t *t)
{
    return t->nlevels == 0 && t->nblocks == 1 && (MPI_Aint)t->blocks[0].len == t->extent;
}

/* The block of t's period that holds stream byte o of the period (o < t->period_size): the
 * last block that starts at or before it. */
static size_t block_at(const tm_mpi_type_t *t, size_t o)
{
    size_t lo = 0, hi = t->nblocks - 1;

    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (t->blocks[mid].off <= o)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Runs that a view's blocks extend by looking at the next ones: enough to merge the blocks a
 * filetype splits for no reason, without walking a long type at every call. */
#define VIEW_MERGE_MAX 64

MPI_Offset tm_io_view_map(const tm_io_view_t *v, MPI_Offset off, MPI_Offset *run_p)
{
    const tm_mpi_type_t *t = v->filetype;

    if (view_dense(t)) {
        *run_p = INT64_MAX - off;
        return v->disp + t->blocks[0].disp + off;
    }
    MPI_Offset e = off / (MPI_Offset)t->size;
    size_t o = (size_t)(off % (MPI_Offset)t->size), q = o / t->period_size;
    o %= t->period_size;
    size_t b = block_at(t, o), in = o - t->blocks[b].off;
    MPI_Offset period = v->disp + e * t->extent + tm_mpi_type_period_disp(t, q);
    MPI_Offset file = period + t->blocks[b].disp + (MPI_Offset)in;
    MPI_Offset run = (MPI_Offset)(t->blocks[b].len - in);

    /* The next blocks (of this period, then of the next ones) while they start where the run
     * ends. */
    for (int k = 0; k < VIEW_MERGE_MAX; k++) {
        if (++b == t->nblocks) {
            b = 0;
            if (++q == t->periods) {
                q = 0;
                e++;
            }
            period = v->disp + e * t->extent + tm_mpi_type_period_disp(t, q);
        }
        if (period + t->blocks[b].disp != file + run)
            break;
        run += (MPI_Offset)t->blocks[b].len;
    }
    *run_p = run;
    return file;
}

MPI_Offset tm_io_view_bytes_before(const tm_io_view_t *v, MPI_Offset end)
{
    const tm_mpi_type_t *t = v->filetype;
    /* From the first block of the first tile on: a view's blocks then lie within one extent
     * (mpi/file.c checks it), each tile after the last, and so do the periods of a tile, each
     * copy of a level's unit within its stride. */
    MPI_Aint first = t->blocks[0].disp;
    MPI_Offset base = v->disp + first;

    if (end <= base)
        return 0;
    MPI_Offset rel = end - base;
    if (view_dense(t))
        return rel;
    MPI_Offset e = rel / t->extent, r = rel % t->extent;
    MPI_Offset bytes = e * (MPI_Offset)t->size, unit = (MPI_Offset)t->size;
    for (unsigned l = t->nlevels; l-- > 0;) { /* the whole copies of each level's unit */
        MPI_Offset k = r / t->levels[l].stride;
        if (k >= (MPI_Offset)t->levels[l].n)
            k = (MPI_Offset)t->levels[l].n - 1;
        unit /= (MPI_Offset)t->levels[l].n;
        bytes += k * unit;
        r -= k * t->levels[l].stride;
    }
    for (size_t b = 0; b < t->nblocks; b++) {
        MPI_Offset in = r - (t->blocks[b].disp - first);
        if (in <= 0)
            break;
        bytes += in < (MPI_Offset)t->blocks[b].len ? in : (MPI_Offset)t->blocks[b].len;
    }
    return bytes;
}
