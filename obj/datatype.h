/*
 * ThreadMPI obj/: datatypes, and the engine that copies typed data without packing.
 *
 * A type is flattened at construction into the typemap of ONE element:
 *
 *   segs:   (disp, basic type, n)   n basic elements back to back, in typemap order
 *   blocks: (disp, len, off)        the same bytes with adjacent segments merged; off is where the
 *                                   block starts in the element's data stream (prefix sum of len)
 *
 *      element i of (buf, count, type) is at buf + i * extent:
 *      buf + i*extent + blocks[0].disp   [len 0]  -> stream bytes i*size + [0, len 0)
 *      buf + i*extent + blocks[1].disp   [len 1]  -> stream bytes i*size + [len 0, len 0 + len 1)
 *
 * A copy between (dst, dcount, dtype) and (src, scount, stype) walks two cursors over the data
 * streams and memcpys the overlap of the current blocks: no intermediate buffer, whatever the
 * shapes, as long as the signatures match (which the caller checks; the engine copies bytes).
 * Counts are never expanded: a cursor is (element, block, offset in block), found from a stream
 * offset by division and a binary search over the blocks' prefix sums. A contiguous type
 * (one block, size == extent) is seen as one block of count * size bytes: one memcpy.
 *
 * A long regular type is not flattened whole, so that its description does not grow with its
 * count (MPI_Type_vector with a count of a billion): segs and blocks then describe one period,
 * which up to TM_MPI_TYPE_LEVELS levels repeat, levels[0] innermost. Period
 * q = k0 + n0 * (k1 + n1 * k2 ...) of an element is at k0 * stride0 + k1 * stride1 + ... from
 * it and holds stream bytes [q * period_size, (q + 1) * period_size) of it. A type without
 * levels is one period. Only a typemap of more than TM_MPI_TYPE_FLAT_SEGS segments made of one
 * repeated piece gets levels; the others are flattened whole, as their arrays are already as
 * long as their typemaps.
 *
 * Handles: predefined datatypes are static objects found from their handle's index; derived ones
 * live in a process-wide table (ranks are threads of one process) protected by a mutex that is
 * never held across a yield. Each handle holds one reference on its object; a pending operation
 * takes its own (tm_mpi_type_retain) so that MPI_Type_free during the operation is safe.
 */
#ifndef TM_OBJ_DATATYPE_H
#define TM_OBJ_DATATYPE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "obj/obj.h"

/* n basic elements of predefined type `basic` (an index, as in the handle) at disp, back to back */
typedef struct tm_mpi_type_seg {
    MPI_Aint disp;
    size_t n;
    uint8_t basic;
} tm_mpi_type_seg_t;

typedef struct tm_mpi_type_block {
    MPI_Aint disp; /* from the start of the element */
    size_t len;    /* bytes */
    size_t off;    /* offset of the block in the element's data stream */
} tm_mpi_type_block_t;

/* A level of repetition: n copies of what the inner levels describe, stride bytes apart. */
typedef struct tm_mpi_type_level {
    size_t n;
    MPI_Aint stride;
} tm_mpi_type_level_t;

#define TM_MPI_TYPE_LEVELS    4
#define TM_MPI_TYPE_FLAT_SEGS 4096

typedef struct tm_mpi_type {
    _Atomic long refs;   /* one per handle + one per pending user; predefined: not counted */
    MPI_Datatype handle; /* the handle it was created with (MPI_DATATYPE_NULL once freed) */
    int combiner;        /* MPI_COMBINER_* */
    unsigned predefined : 1;
    unsigned committed : 1;
    unsigned contiguous : 1; /* count elements are count * size bytes at buf + contig_disp */
    unsigned lb_mark : 1;    /* lb set by an MPI_LB marker or create_resized (sticky) */
    unsigned ub_mark : 1;
    unsigned lb_contrib : 1; /* 0 for MPI_UB: contributes no lower bound */
    unsigned ub_contrib : 1; /* 0 for MPI_LB */
    unsigned f90 : 1;        /* made by MPI_Type_create_f90_*: predefined, never freed */
    size_t size;             /* bytes of data in one element */
    size_t elements;         /* basic elements in one element */
    /* Its type signature, order aside: the sum over its basic elements of a hash of what each
     * one is (an integer, a floating-point or a complex number, and its size), so that types
     * built differently from the same data agree, and MPI_INT agrees with MPI_INT32_T (the
     * collectives' consistency check, coll/check.h, compares count x this). */
    uint64_t signature;
    size_t align; /* strictest alignment of its basic types (struct padding) */
    MPI_Aint lb, ub, extent;
    MPI_Aint true_lb, true_ub, true_extent;
    MPI_Aint contig_disp;
    size_t nsegs;
    tm_mpi_type_seg_t *segs;
    size_t nblocks;
    tm_mpi_type_block_t *blocks;
    unsigned nlevels;
    tm_mpi_type_level_t levels[TM_MPI_TYPE_LEVELS];
    size_t periods;     /* in one element: the product of the levels' n */
    size_t period_size; /* bytes of data in one period: size / periods */
    /* MPI_Type_get_envelope(_c) / MPI_Type_get_contents(_c): the constructor's arguments. A type
     * made by a large-count (_c) constructor keeps its counts and byte displacements in `counts`
     * (nc > 0), as MPI-4.0 section 5.1.13 lists them, and only MPI_Type_get_envelope_c shows it. */
    int ni, na, nd;
    size_t nc;
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
    struct tm_mpi_type **types; /* retained */
    char name[MPI_MAX_OBJECT_NAME];
    /* MPI_Type_set_attr's attributes of a derived type (mpi/attr.c; a predefined type's are
     * each rank's), deleted by MPI_Type_free of the handle it was created with */
    tm_mpi_attr_t *attrs;
} tm_mpi_type_t;

/* ------------------------------------------------------------------ objects and handles */

/* Resolves a predefined or derived handle (committed or not). 0, or -EINVAL for a handle that
 * is not a live datatype (MPI_DATATYPE_NULL, freed, of another kind). Takes no reference: the
 * object lives as long as the handle, or as a reference the caller takes with retain. */
int tm_mpi_type_lookup(MPI_Datatype handle, tm_mpi_type_t **type_p);

/* Takes a reference (none is counted on a predefined type). Inline, as a receive takes one. */
static inline void tm_mpi_type_retain(tm_mpi_type_t *type)
{
    if (type->predefined)
        return;
    /* Relaxed: a new reference is taken from an existing one, which keeps the object alive. */
    atomic_fetch_add_explicit(&type->refs, 1, memory_order_relaxed);
}

void tm_mpi_type_release_derived(tm_mpi_type_t *type);

/* Drops a reference; the last one frees the object (and releases the types it was built of).
 * NULL is fine. */
static inline void tm_mpi_type_release(tm_mpi_type_t *type)
{
    if (type && !type->predefined)
        tm_mpi_type_release_derived(type);
}

/* Handle payloads: a predefined type's has its index in the low byte, which indexes
 * tm_mpi_type_predefined (filled when the library loads); a derived type's has bit 25 set. */
#define TM_MPI_TYPE_NBUILTIN 0x2d
#define TM_MPI_TYPE_DERIVED  (1u << 25)
extern tm_mpi_type_t tm_mpi_type_predefined[TM_MPI_TYPE_NBUILTIN];

int tm_mpi_type_get_slow(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, MPI_Datatype handle,
                         int need_commit, const char *call, tm_mpi_type_t **type_p);

/* For MPI calls: resolves `handle` and checks that it is committed when `need_commit`. On
 * success sets *type_p and returns MPI_SUCCESS; otherwise reports MPI_ERR_TYPE for `call`
 * through comm's handler (NULL: MPI_COMM_WORLD's) and returns what the handler returns.
 * Inline for the predefined types, which every send and receive of most programs names. */
static inline int tm_mpi_type_get(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, MPI_Datatype handle,
                                  int need_commit, const char *call, tm_mpi_type_t **type_p)
{
    unsigned index = (unsigned)handle & 0xff;
    if (index != 0 && index < TM_MPI_TYPE_NBUILTIN &&
        tm_mpi_type_predefined[index].handle == handle) {
        *type_p = &tm_mpi_type_predefined[index]; /* predefined types are committed */
        return MPI_SUCCESS;
    }
    return tm_mpi_type_get_slow(r, comm, handle, need_commit, call, type_p);
}

/* Allocates an empty derived type (refs 1, combiner set). NULL when out of memory. */
tm_mpi_type_t *tm_mpi_type_alloc(int combiner);

/* Gives `type` a handle in the table (it then holds the caller's reference). 0 or -ENOMEM. */
int tm_mpi_type_publish(tm_mpi_type_t *type, MPI_Datatype *handle_p);

/* Removes `handle` from the table and drops its reference. 0 or -EINVAL. */
int tm_mpi_type_unpublish(MPI_Datatype handle);

/* One piece of a typemap under construction: blocklen copies of `type` at disp + k * extent,
 * that whole block repeated at disp + j * rep_stride for j < reps (a vector's count; 1 for the
 * pieces that do not repeat). */
typedef struct tm_mpi_type_piece {
    tm_mpi_type_t *type;
    size_t blocklen;
    MPI_Aint disp;
    size_t reps;
    MPI_Aint rep_stride;
} tm_mpi_type_piece_t;

/* Fills the layout of `type` (segs, blocks, size, bounds, flags) from its pieces, in typemap
 * order. `pad` rounds the extent up to the alignment when no MPI_UB marker says otherwise (as
 * create_struct does). 0, -ENOMEM, or -EOVERFLOW when its size or bounds do not fit. */
int tm_mpi_type_build(tm_mpi_type_t *type, const tm_mpi_type_piece_t *pieces, size_t npieces,
                      int pad);

/* Sets the bounds of a built type explicitly (create_resized). */
void tm_mpi_type_set_bounds(tm_mpi_type_t *type, MPI_Aint lb, MPI_Aint extent);

/* Bytes of one element of predefined type number `basic` (the index of its handle). */
size_t tm_mpi_type_basic_size(unsigned basic);

/* ------------------------------------------------------------------ periods */

/* Where period q (< type->periods) of an element is, from the element. */
static inline MPI_Aint tm_mpi_type_period_disp(const tm_mpi_type_t *type, size_t q)
{
    MPI_Aint disp = 0;

    for (unsigned l = 0; l < type->nlevels; l++) {
        disp += (MPI_Aint)(q % type->levels[l].n) * type->levels[l].stride;
        q /= type->levels[l].n;
    }
    return disp;
}

/* A walk over the periods of (buf, count, type) in stream order:
 *   for (tm_mpi_type_walk_t w = tm_mpi_type_walk_at(type, count, 0); w.left > 0;
 *        tm_mpi_type_walk_next(&w, type))
 *       ... buf + w.disp + type->segs[s].disp ...
 */
typedef struct tm_mpi_type_walk {
    MPI_Aint disp; /* of the current period, from the buffer */
    size_t left;   /* periods left, the current one included */
    size_t idx[TM_MPI_TYPE_LEVELS];
} tm_mpi_type_walk_t;

/* The walk from period p of the stream on (p <= count * type->periods). */
static inline tm_mpi_type_walk_t tm_mpi_type_walk_at(const tm_mpi_type_t *type, size_t count,
                                                     size_t p)
{
    tm_mpi_type_walk_t w;
    size_t q = p % type->periods;

    w.left = count * type->periods - p;
    w.disp = (MPI_Aint)(p / type->periods) * type->extent;
    for (unsigned l = 0; l < type->nlevels; l++) {
        w.idx[l] = q % type->levels[l].n;
        w.disp += (MPI_Aint)w.idx[l] * type->levels[l].stride;
        q /= type->levels[l].n;
    }
    return w;
}

static inline void tm_mpi_type_walk_next(tm_mpi_type_walk_t *w, const tm_mpi_type_t *type)
{
    w->left--;
    for (unsigned l = 0; l < type->nlevels; l++) {
        const tm_mpi_type_level_t *lv = &type->levels[l];

        w->disp += lv->stride;
        if (++w->idx[l] < lv->n)
            return;
        w->idx[l] = 0;
        w->disp -= (MPI_Aint)lv->n * lv->stride;
    }
    w->disp += type->extent; /* the next element */
}

/* ------------------------------------------------------------------ the engine */

/* Copies `bytes` bytes of the data stream of (src, src_count, src_type), starting at byte
 * `offset` of it, to the same bytes of the stream of (dst, dst_count, dst_type). Stops at the
 * end of the shorter stream; returns the bytes copied. Types need not be committed. */
size_t tm_mpi_type_copy(void *dst, size_t dst_count, const tm_mpi_type_t *dst_type, const void *src,
                        size_t src_count, const tm_mpi_type_t *src_type, size_t offset,
                        size_t bytes);

/* The bytes of [offset, offset + bytes) that a stream of `total` bytes holds. */
static inline size_t tm_mpi_type_stream_left(size_t total, size_t offset, size_t bytes)
{
    if (offset >= total)
        return 0;
    return bytes < total - offset ? bytes : total - offset;
}

/* tm_mpi_type_pack and _unpack for the types that are not contiguous: block by block. */
size_t tm_mpi_type_pack_blocks(const void *buf, size_t count, const tm_mpi_type_t *type,
                               size_t offset, size_t bytes, void *out);
size_t tm_mpi_type_unpack_blocks(const void *in, size_t bytes, void *buf, size_t count,
                                 const tm_mpi_type_t *type, size_t offset);

/* Copies bytes [offset, offset + bytes) of the stream of (buf, count, type) to `out`
 * (contiguous). Returns the bytes copied (fewer at the end of the stream). Inline: a contiguous
 * type, the common case of every eager message, is one memcpy. */
static inline size_t tm_mpi_type_pack(const void *buf, size_t count, const tm_mpi_type_t *type,
                                      size_t offset, size_t bytes, void *out)
{
    if (!type->contiguous)
        return tm_mpi_type_pack_blocks(buf, count, type, offset, bytes, out);
    size_t n = tm_mpi_type_stream_left(count * type->size, offset, bytes);
    memcpy(out, (const char *)buf + type->contig_disp + offset, n);
    return n;
}

/* Copies `bytes` bytes from `in` (contiguous) to bytes [offset, offset + bytes) of the stream of
 * (buf, count, type). Returns the bytes copied (fewer at the end of the stream). */
static inline size_t tm_mpi_type_unpack(const void *in, size_t bytes, void *buf, size_t count,
                                        const tm_mpi_type_t *type, size_t offset)
{
    if (!type->contiguous)
        return tm_mpi_type_unpack_blocks(in, bytes, buf, count, type, offset);
    size_t n = tm_mpi_type_stream_left(count * type->size, offset, bytes);
    memcpy((char *)buf + type->contig_disp + offset, in, n);
    return n;
}

/* *elements_p = the basic elements in the first `bytes` bytes of a stream of `type` elements.
 * 0, or -ERANGE when `bytes` ends inside a basic element (MPI_UNDEFINED for MPI_Get_elements). */
int tm_mpi_type_count_elements(const tm_mpi_type_t *type, size_t bytes, size_t *elements_p);

/* ------------------------------------------------------------------ external32 */

/* Bytes of one element of `type` in external32; 0 when a basic type has no external32 form. */
size_t tm_mpi_type_external32_size(const tm_mpi_type_t *type);

/* Converts count elements of (buf, type) to external32 at out (tm_mpi_type_external32_size(type)
 * * count bytes), or back. */
void tm_mpi_type_external32_pack(const void *buf, size_t count, const tm_mpi_type_t *type,
                                 void *out);
void tm_mpi_type_external32_unpack(const void *in, void *buf, size_t count,
                                   const tm_mpi_type_t *type);

#endif /* TM_OBJ_DATATYPE_H */
