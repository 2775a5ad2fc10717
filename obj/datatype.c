/*
 * Datatype objects: the predefined ones, the process-wide table of derived ones, flattening into
 * segments and blocks, and the copy engine (see datatype.h for the representation).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "obj/datatype.h"

/* ------------------------------------------------------------------ predefined types */

typedef struct tm_mpi_type_builtin {
    const char *name;
    uint8_t size, align;
    /* pairs: the two members (index, displacement) and the extent */
    uint8_t first, second, second_disp, extent;
} tm_mpi_type_builtin_t;

#define B(h, sz, al)        [(h)&0xff] = {#h, sz, al, 0, 0, 0, 0}
#define PAIR(h, a, b, d, e) [(h)&0xff] = {#h, 0, 0, (a)&0xff, (b)&0xff, d, e}

static const tm_mpi_type_builtin_t tm_mpi_type_builtins[TM_MPI_TYPE_NBUILTIN] = {
    B(MPI_CHAR, 1, 1),
    B(MPI_SIGNED_CHAR, 1, 1),
    B(MPI_UNSIGNED_CHAR, 1, 1),
    B(MPI_BYTE, 1, 1),
    B(MPI_WCHAR, sizeof(wchar_t), _Alignof(wchar_t)),
    B(MPI_SHORT, sizeof(short), _Alignof(short)),
    B(MPI_UNSIGNED_SHORT, sizeof(short), _Alignof(short)),
    B(MPI_INT, sizeof(int), _Alignof(int)),
    B(MPI_UNSIGNED, sizeof(int), _Alignof(int)),
    B(MPI_LONG, sizeof(long), _Alignof(long)),
    B(MPI_UNSIGNED_LONG, sizeof(long), _Alignof(long)),
    B(MPI_LONG_LONG_INT, sizeof(long long), _Alignof(long long)),
    B(MPI_UNSIGNED_LONG_LONG, sizeof(long long), _Alignof(long long)),
    B(MPI_FLOAT, sizeof(float), _Alignof(float)),
    B(MPI_DOUBLE, sizeof(double), _Alignof(double)),
    B(MPI_LONG_DOUBLE, sizeof(long double), _Alignof(long double)),
    B(MPI_C_BOOL, 1, 1),
    B(MPI_INT8_T, 1, 1),
    B(MPI_INT16_T, 2, 2),
    B(MPI_INT32_T, 4, 4),
    B(MPI_INT64_T, 8, _Alignof(int64_t)),
    B(MPI_UINT8_T, 1, 1),
    B(MPI_UINT16_T, 2, 2),
    B(MPI_UINT32_T, 4, 4),
    B(MPI_UINT64_T, 8, _Alignof(uint64_t)),
    B(MPI_AINT, sizeof(MPI_Aint), _Alignof(MPI_Aint)),
    B(MPI_OFFSET, sizeof(MPI_Offset), _Alignof(MPI_Offset)),
    B(MPI_COUNT, sizeof(MPI_Count), _Alignof(MPI_Count)),
    B(MPI_C_FLOAT_COMPLEX, sizeof(float _Complex), _Alignof(float _Complex)),
    B(MPI_C_DOUBLE_COMPLEX, sizeof(double _Complex), _Alignof(double _Complex)),
    B(MPI_C_LONG_DOUBLE_COMPLEX, sizeof(long double _Complex), _Alignof(long double _Complex)),
    B(MPI_PACKED, 1, 1),
    PAIR(MPI_FLOAT_INT, MPI_FLOAT, MPI_INT, 4, 8),
    PAIR(MPI_DOUBLE_INT, MPI_DOUBLE, MPI_INT, 8, 16),
    PAIR(MPI_LONG_INT, MPI_LONG, MPI_INT, 8, 16),
    PAIR(MPI_2INT, MPI_INT, MPI_INT, 4, 8),
    PAIR(MPI_SHORT_INT, MPI_SHORT, MPI_INT, 4, 8),
    PAIR(MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_INT, 16, 32),
    [MPI_LB & 0xff] = {"MPI_LB", 0, 1, 0, 0, 0, 0},
    [MPI_UB & 0xff] = {"MPI_UB", 0, 1, 0, 0, 0, 0},
    B(MPI_CXX_BOOL, 1, 1),
    B(MPI_CXX_FLOAT_COMPLEX, sizeof(float _Complex), _Alignof(float _Complex)),
    B(MPI_CXX_DOUBLE_COMPLEX, sizeof(double _Complex), _Alignof(double _Complex)),
    B(MPI_CXX_LONG_DOUBLE_COMPLEX, sizeof(long double _Complex), _Alignof(long double _Complex)),
};

#undef B
#undef PAIR

_Static_assert(sizeof(struct {
                   float f;
                   int i;
               }) == 8,
               "MPI_FLOAT_INT layout");
_Static_assert(sizeof(struct {
                   double d;
                   int i;
               }) == 16,
               "MPI_DOUBLE_INT layout");
_Static_assert(sizeof(struct {
                   long double d;
                   int i;
               }) == 32,
               "MPI_LONG_DOUBLE_INT layout");

tm_mpi_type_t tm_mpi_type_predefined[TM_MPI_TYPE_NBUILTIN];
static tm_mpi_type_seg_t tm_mpi_type_predefined_segs[TM_MPI_TYPE_NBUILTIN][2];
static tm_mpi_type_block_t tm_mpi_type_predefined_blocks[TM_MPI_TYPE_NBUILTIN][2];

/* What a basic type's element is, for type signatures: its size and whether it is an integer (a
 * character, a byte), a floating-point or a complex number, mixed into 64 bits (SplitMix64's
 * finalizer) so that sums of different elements rarely meet. */
static uint64_t basic_signature(unsigned basic)
{
    unsigned h = basic;
    unsigned kind =
        h == (MPI_FLOAT & 0xff) || h == (MPI_DOUBLE & 0xff) || h == (MPI_LONG_DOUBLE & 0xff) ? 1
        : h == (MPI_C_FLOAT_COMPLEX & 0xff) || h == (MPI_C_DOUBLE_COMPLEX & 0xff) ||
                h == (MPI_C_LONG_DOUBLE_COMPLEX & 0xff) || h == (MPI_CXX_FLOAT_COMPLEX & 0xff) ||
                h == (MPI_CXX_DOUBLE_COMPLEX & 0xff) || h == (MPI_CXX_LONG_DOUBLE_COMPLEX & 0xff)
            ? 2
            : 0;
    uint64_t z = ((uint64_t)kind << 32 | tm_mpi_type_builtins[basic].size) + 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

size_t tm_mpi_type_basic_size(unsigned basic)
{
    return basic < TM_MPI_TYPE_NBUILTIN ? tm_mpi_type_builtins[basic].size : 0;
}

/* Fills the table when the library is loaded, before any thread can look a type up: the lookup
 * of every send and receive then needs no once-guard. */
__attribute__((constructor)) static void tm_mpi_type_predefined_init(void)
{
    for (unsigned i = 1; i < TM_MPI_TYPE_NBUILTIN; i++) {
        const tm_mpi_type_builtin_t *b = &tm_mpi_type_builtins[i];
        tm_mpi_type_t *t = &tm_mpi_type_predefined[i];
        tm_mpi_type_seg_t *s = tm_mpi_type_predefined_segs[i];
        tm_mpi_type_block_t *bl = tm_mpi_type_predefined_blocks[i];

        if (b->name == NULL)
            continue;
        t->handle = TM_MPI_HANDLE(TM_MPI_KIND_DATATYPE, (unsigned)b->size << 8 | i);
        t->combiner = MPI_COMBINER_NAMED;
        t->predefined = 1;
        t->committed = 1;
        t->lb_contrib = 1;
        t->ub_contrib = 1;
        t->segs = s;
        t->blocks = bl;
        strcpy(t->name, b->name);
        if (b->first != 0) { /* a pair */
            size_t s1 = tm_mpi_type_builtins[b->first].size;
            size_t s2 = tm_mpi_type_builtins[b->second].size;

            t->handle = TM_MPI_HANDLE(TM_MPI_KIND_DATATYPE, i);
            s[0] = (tm_mpi_type_seg_t){0, 1, b->first};
            s[1] = (tm_mpi_type_seg_t){b->second_disp, 1, b->second};
            t->nsegs = 2;
            t->size = s1 + s2;
            t->elements = 2;
            t->signature = basic_signature(b->first) + basic_signature(b->second);
            t->align = tm_mpi_type_builtins[b->first].align;
            if (tm_mpi_type_builtins[b->second].align > t->align)
                t->align = tm_mpi_type_builtins[b->second].align;
            t->ub = b->extent;
            t->true_ub = b->second_disp + (MPI_Aint)s2;
            if (s1 == b->second_disp) {
                bl[0] = (tm_mpi_type_block_t){0, s1 + s2, 0};
                t->nblocks = 1;
            } else {
                bl[0] = (tm_mpi_type_block_t){0, s1, 0};
                bl[1] = (tm_mpi_type_block_t){b->second_disp, s2, s1};
                t->nblocks = 2;
            }
            t->contiguous = t->nblocks == 1 && t->size == b->extent; /* MPI_2INT */
        } else if (b->size == 0) {                                   /* MPI_LB, MPI_UB */
            t->handle = TM_MPI_HANDLE(TM_MPI_KIND_DATATYPE, i);
            t->align = 1;
            if (t->handle == MPI_LB) {
                t->lb_mark = 1;
                t->ub_contrib = 0;
            } else {
                t->ub_mark = 1;
                t->lb_contrib = 0;
            }
        } else {
            s[0] = (tm_mpi_type_seg_t){0, 1, (uint8_t)i};
            bl[0] = (tm_mpi_type_block_t){0, b->size, 0};
            t->nsegs = 1;
            t->nblocks = 1;
            t->size = b->size;
            t->elements = 1;
            t->signature = basic_signature(i);
            t->align = b->align;
            t->ub = b->size;
            t->true_ub = b->size;
            t->contiguous = 1;
        }
        t->extent = t->ub - t->lb;
        t->true_extent = t->true_ub - t->true_lb;
        t->periods = 1;
        t->period_size = t->size;
    }
}

/* ------------------------------------------------------------------ the table of derived types
 *
 * payload of a derived handle: 1 << 25 | generation << 20 | slot. Predefined payloads are below
 * 1 << 14; the generation (5 bits) makes a freed handle whose slot was reused by a later type
 * unlikely to resolve to it.
 */
#define TM_MPI_TYPE_GEN_SHIFT 20
#define TM_MPI_TYPE_GEN_MASK  0x1fu
#define TM_MPI_TYPE_SLOT_MASK 0xfffffu

typedef struct tm_mpi_type_slot {
    tm_mpi_type_t *type; /* NULL: free */
    unsigned gen;
    size_t next_free;
} tm_mpi_type_slot_t;

static pthread_mutex_t tm_mpi_type_table_lock = PTHREAD_MUTEX_INITIALIZER;
static tm_mpi_type_slot_t *tm_mpi_type_table;
static size_t tm_mpi_type_table_len, tm_mpi_type_table_cap;
static size_t tm_mpi_type_free_head = SIZE_MAX;

int tm_mpi_type_lookup(MPI_Datatype handle, tm_mpi_type_t **type_p)
{
    unsigned payload, slot, gen;
    int err = -EINVAL;

    *type_p = NULL;
    if (tm_mpi_handle_kind(handle) != TM_MPI_KIND_DATATYPE)
        return -EINVAL;
    payload = tm_mpi_handle_payload(handle);
    if (!(payload & TM_MPI_TYPE_DERIVED)) {
        unsigned i = payload & 0xff;

        if (i == 0 || i >= TM_MPI_TYPE_NBUILTIN || tm_mpi_type_predefined[i].handle != handle)
            return -EINVAL;
        *type_p = &tm_mpi_type_predefined[i];
        return 0;
    }
    slot = payload & TM_MPI_TYPE_SLOT_MASK;
    gen = (payload >> TM_MPI_TYPE_GEN_SHIFT) & TM_MPI_TYPE_GEN_MASK;
    pthread_mutex_lock(&tm_mpi_type_table_lock);
    if (slot < tm_mpi_type_table_len && tm_mpi_type_table[slot].type != NULL &&
        tm_mpi_type_table[slot].gen == gen) {
        *type_p = tm_mpi_type_table[slot].type;
        err = 0;
    }
    pthread_mutex_unlock(&tm_mpi_type_table_lock);
    return err;
}

int tm_mpi_type_publish(tm_mpi_type_t *type, MPI_Datatype *handle_p)
{
    size_t slot;
    tm_mpi_type_slot_t *s;

    pthread_mutex_lock(&tm_mpi_type_table_lock);
    if (tm_mpi_type_free_head != SIZE_MAX) {
        slot = tm_mpi_type_free_head;
        tm_mpi_type_free_head = tm_mpi_type_table[slot].next_free;
    } else {
        if (tm_mpi_type_table_len == tm_mpi_type_table_cap) {
            size_t cap = tm_mpi_type_table_cap ? 2 * tm_mpi_type_table_cap : 64;
            tm_mpi_type_slot_t *t;

            if (cap > TM_MPI_TYPE_SLOT_MASK + 1u ||
                (t = realloc(tm_mpi_type_table, cap * sizeof(*t))) == NULL) {
                pthread_mutex_unlock(&tm_mpi_type_table_lock);
                return -ENOMEM;
            }
            tm_mpi_type_table = t;
            tm_mpi_type_table_cap = cap;
        }
        slot = tm_mpi_type_table_len++;
        tm_mpi_type_table[slot].gen = 0;
    }
    s = &tm_mpi_type_table[slot];
    s->type = type;
    s->gen = (s->gen + 1) & TM_MPI_TYPE_GEN_MASK;
    *handle_p =
        TM_MPI_HANDLE(TM_MPI_KIND_DATATYPE,
                      TM_MPI_TYPE_DERIVED | s->gen << TM_MPI_TYPE_GEN_SHIFT | (unsigned)slot);
    pthread_mutex_unlock(&tm_mpi_type_table_lock);
    if (type->handle == MPI_DATATYPE_NULL)
        type->handle = *handle_p;
    return 0;
}

int tm_mpi_type_unpublish(MPI_Datatype handle)
{
    unsigned payload = tm_mpi_handle_payload(handle);
    unsigned slot = payload & TM_MPI_TYPE_SLOT_MASK;
    unsigned gen = (payload >> TM_MPI_TYPE_GEN_SHIFT) & TM_MPI_TYPE_GEN_MASK;
    tm_mpi_type_t *type = NULL;

    if (tm_mpi_handle_kind(handle) != TM_MPI_KIND_DATATYPE || !(payload & TM_MPI_TYPE_DERIVED))
        return -EINVAL;
    pthread_mutex_lock(&tm_mpi_type_table_lock);
    if (slot < tm_mpi_type_table_len && tm_mpi_type_table[slot].type != NULL &&
        tm_mpi_type_table[slot].gen == gen) {
        type = tm_mpi_type_table[slot].type;
        tm_mpi_type_table[slot].type = NULL;
        tm_mpi_type_table[slot].next_free = tm_mpi_type_free_head;
        tm_mpi_type_free_head = slot;
    }
    pthread_mutex_unlock(&tm_mpi_type_table_lock);
    if (type == NULL)
        return -EINVAL;
    tm_mpi_type_release(type);
    return 0;
}

tm_mpi_type_t *tm_mpi_type_alloc(int combiner)
{
    tm_mpi_type_t *t = calloc(1, sizeof(*t));

    if (t == NULL)
        return NULL;
    atomic_init(&t->refs, 1);
    t->handle = MPI_DATATYPE_NULL;
    t->combiner = combiner;
    t->lb_contrib = 1;
    t->ub_contrib = 1;
    t->align = 1;
    t->periods = 1;
    return t;
}

void tm_mpi_type_release_derived(tm_mpi_type_t *type)
{
    /* acq_rel: the thread that frees must see every other user's accesses to the object. */
    if (atomic_fetch_sub_explicit(&type->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (int i = 0; i < type->nd; i++)
        tm_mpi_type_release(type->types[i]);
    free(type->types);
    free(type->ints);
    free(type->aints);
    free(type->counts);
    free(type->segs);
    free(type->blocks);
    free(type);
}

int tm_mpi_type_get_slow(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, MPI_Datatype handle,
                         int need_commit, const char *call, tm_mpi_type_t **type_p)
{
    tm_mpi_kind_t kind = tm_mpi_handle_kind(handle);

    if (tm_mpi_type_lookup(handle, type_p) == 0) {
        if (need_commit && !(*type_p)->committed) {
            *type_p = NULL;
            return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_TYPE,
                                      "datatype 0x%08x is not committed", (unsigned)handle);
        }
        return MPI_SUCCESS;
    }
    if (handle == MPI_DATATYPE_NULL)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_TYPE,
                                  "invalid datatype MPI_DATATYPE_NULL");
    if (kind == TM_MPI_KIND_DATATYPE)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_TYPE,
                                  "invalid datatype 0x%08x: no such datatype", (unsigned)handle);
    if (kind == TM_MPI_KIND_NONE)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_TYPE,
                                  "invalid datatype 0x%08x: not an MPI handle", (unsigned)handle);
    return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_TYPE,
                              "invalid datatype 0x%08x: the handle of %s", (unsigned)handle,
                              tm_mpi_handle_kind_name(kind));
}

/* ------------------------------------------------------------------ flattening */

typedef struct tm_mpi_type_segv {
    tm_mpi_type_seg_t *v;
    size_t n, cap;
} tm_mpi_type_segv_t;

/* Appends n elements of `basic` at disp, merging with the last segment when they follow it. */
static int tm_mpi_type_segv_add(tm_mpi_type_segv_t *sv, MPI_Aint disp, size_t n, uint8_t basic)
{
    if (n == 0)
        return 0;
    if (sv->n > 0) {
        tm_mpi_type_seg_t *last = &sv->v[sv->n - 1];

        if (last->basic == basic &&
            last->disp + (MPI_Aint)(last->n * tm_mpi_type_builtins[basic].size) == disp) {
            last->n += n;
            return 0;
        }
    }
    if (sv->n == sv->cap) {
        size_t cap = sv->cap ? 2 * sv->cap : 8;
        tm_mpi_type_seg_t *v = realloc(sv->v, cap * sizeof(*v));

        if (v == NULL)
            return -ENOMEM;
        sv->v = v;
        sv->cap = cap;
    }
    sv->v[sv->n++] = (tm_mpi_type_seg_t){disp, n, basic};
    return 0;
}

static int tm_mpi_type_blocks_build(tm_mpi_type_t *t)
{
    size_t n = 0, off = 0;

    free(t->blocks);
    t->blocks = NULL;
    t->nblocks = 0;
    if (t->nsegs == 0)
        return 0;
    t->blocks = malloc(t->nsegs * sizeof(*t->blocks));
    if (t->blocks == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < t->nsegs; i++) {
        const tm_mpi_type_seg_t *s = &t->segs[i];
        size_t len = s->n * tm_mpi_type_builtins[s->basic].size;

        if (n > 0 && t->blocks[n - 1].disp + (MPI_Aint)t->blocks[n - 1].len == s->disp)
            t->blocks[n - 1].len += len;
        else
            t->blocks[n++] = (tm_mpi_type_block_t){s->disp, len, off};
        off += len;
    }
    t->nblocks = n;
    return 0;
}

static void tm_mpi_type_contiguous_update(tm_mpi_type_t *t)
{
    t->contiguous =
        t->size > 0 && t->nlevels == 0 && t->nblocks == 1 && (MPI_Aint)t->size == t->extent;
    t->contig_disp = t->contiguous ? t->blocks[0].disp : 0;
}

/* Whether copies of c abut with nothing between them: one segment as long as the extent. */
static bool tm_mpi_type_dense(const tm_mpi_type_t *c)
{
    return c->nlevels == 0 && c->nsegs == 1 && (MPI_Aint)c->size == c->extent;
}

/* Segments beyond which a typemap that cannot keep levels is not flattened (6 GiB of them). */
#define TM_MPI_TYPE_FLAT_MAX ((size_t)1 << 28)

/* The segments a piece of a type with data flattens to, at most; SIZE_MAX past size_t. */
static size_t tm_mpi_type_piece_segs(const tm_mpi_type_piece_t *p)
{
    const tm_mpi_type_t *c = p->type;
    size_t n = p->reps;

    if (!tm_mpi_type_dense(c) &&
        (__builtin_mul_overflow(n, p->blocklen, &n) || __builtin_mul_overflow(n, c->periods, &n) ||
         __builtin_mul_overflow(n, c->nsegs, &n)))
        return SIZE_MAX;
    return n;
}

/* Appends the whole typemap of a piece, each period of each copy of its type. */
static int tm_mpi_type_piece_flatten(tm_mpi_type_segv_t *sv, const tm_mpi_type_piece_t *p)
{
    const tm_mpi_type_t *c = p->type;

    for (size_t j = 0; j < p->reps; j++) {
        MPI_Aint d = p->disp + (MPI_Aint)j * p->rep_stride;

        if (tm_mpi_type_dense(c)) { /* the copies abut: one segment, however long the block */
            if (tm_mpi_type_segv_add(sv, d + c->segs[0].disp, p->blocklen * c->segs[0].n,
                                     c->segs[0].basic) != 0)
                return -ENOMEM;
            continue;
        }
        for (size_t k = 0; k < p->blocklen; k++)
            for (tm_mpi_type_walk_t w = tm_mpi_type_walk_at(c, 1, 0); w.left > 0;
                 tm_mpi_type_walk_next(&w, c))
                for (size_t s = 0; s < c->nsegs; s++)
                    if (tm_mpi_type_segv_add(sv,
                                             d + (MPI_Aint)k * c->extent + w.disp + c->segs[s].disp,
                                             c->segs[s].n, c->segs[s].basic) != 0)
                        return -ENOMEM;
    }
    return 0;
}

/* Repeats what t's levels and the period in sv describe n times, stride bytes apart: one
 * longer segment when the period is one run as long as the stride, else one more level (the
 * innermost one flattened into the period when all are taken). */
static int tm_mpi_type_level_push(tm_mpi_type_t *t, tm_mpi_type_segv_t *sv, size_t n,
                                  MPI_Aint stride)
{
    if (n == 1)
        return 0;
    if (t->nlevels == 0 && sv->n == 1 &&
        (MPI_Aint)(sv->v[0].n * tm_mpi_type_builtins[sv->v[0].basic].size) == stride) {
        sv->v[0].n *= n;
        return 0;
    }
    if (t->nlevels == TM_MPI_TYPE_LEVELS) {
        tm_mpi_type_segv_t nv = {NULL, 0, 0};
        const tm_mpi_type_level_t *in = &t->levels[0];

        for (size_t k = 0; k < in->n; k++)
            for (size_t s = 0; s < sv->n; s++)
                if (tm_mpi_type_segv_add(&nv, sv->v[s].disp + (MPI_Aint)k * in->stride, sv->v[s].n,
                                         sv->v[s].basic) != 0) {
                    free(nv.v);
                    return -ENOMEM;
                }
        free(sv->v);
        *sv = nv;
        memmove(&t->levels[0], &t->levels[1], (TM_MPI_TYPE_LEVELS - 1) * sizeof(t->levels[0]));
        t->nlevels--;
    }
    t->levels[t->nlevels++] = (tm_mpi_type_level_t){n, stride};
    return 0;
}

/* The typemap of one piece too long to flatten: its type's period and levels, then a level for
 * the blocklen copies and one for the repetitions. */
static int tm_mpi_type_piece_levels(tm_mpi_type_t *t, tm_mpi_type_segv_t *sv,
                                    const tm_mpi_type_piece_t *p)
{
    const tm_mpi_type_t *c = p->type;

    for (size_t s = 0; s < c->nsegs; s++)
        if (tm_mpi_type_segv_add(sv, p->disp + c->segs[s].disp, c->segs[s].n, c->segs[s].basic) !=
            0)
            return -ENOMEM;
    t->nlevels = c->nlevels;
    memcpy(t->levels, c->levels, sizeof(t->levels));
    if (tm_mpi_type_level_push(t, sv, p->blocklen, c->extent) != 0 ||
        tm_mpi_type_level_push(t, sv, p->reps, p->rep_stride) != 0)
        return -ENOMEM;
    return 0;
}

int tm_mpi_type_build(tm_mpi_type_t *t, const tm_mpi_type_piece_t *pieces, size_t npieces, int pad)
{
    tm_mpi_type_segv_t sv = {NULL, 0, 0};
    int has_lbm = 0, has_ubm = 0, has_lbn = 0, has_ubn = 0, has_data = 0;
    MPI_Aint lbm = 0, ubm = 0, lbn = 0, ubn = 0, tlb = 0, tub = 0;
    size_t nflat = 0;

    t->size = 0;
    t->elements = 0;
    t->signature = 0;
    t->nlevels = 0;
    for (size_t p = 0; p < npieces; p++) {
        const tm_mpi_type_t *c = pieces[p].type;
        size_t b = pieces[p].blocklen, reps = pieces[p].reps;
        MPI_Aint d = pieces[p].disp, span, rspan, lo, hi;
        size_t bytes;

        if (b == 0 || reps == 0)
            continue;
        if (__builtin_mul_overflow(b - 1, c->extent, &span) ||
            __builtin_mul_overflow(reps - 1, pieces[p].rep_stride, &rspan) ||
            __builtin_add_overflow(d, c->lb, &lo) ||
            __builtin_add_overflow(lo, span < 0 ? span : 0, &lo) ||
            __builtin_add_overflow(lo, rspan < 0 ? rspan : 0, &lo) ||
            __builtin_add_overflow(d, c->ub, &hi) ||
            __builtin_add_overflow(hi, span > 0 ? span : 0, &hi) ||
            __builtin_add_overflow(hi, rspan > 0 ? rspan : 0, &hi) ||
            __builtin_mul_overflow(b, c->size, &bytes) ||
            __builtin_mul_overflow(bytes, reps, &bytes) ||
            __builtin_add_overflow(t->size, bytes, &t->size))
            goto overflow;
        if (c->lb_mark) {
            lbm = has_lbm ? (lo < lbm ? lo : lbm) : lo;
            has_lbm = 1;
        } else if (c->lb_contrib) {
            lbn = has_lbn ? (lo < lbn ? lo : lbn) : lo;
            has_lbn = 1;
        }
        if (c->ub_mark) {
            ubm = has_ubm ? (hi > ubm ? hi : ubm) : hi;
            has_ubm = 1;
        } else if (c->ub_contrib) {
            ubn = has_ubn ? (hi > ubn ? hi : ubn) : hi;
            has_ubn = 1;
        }
        if (c->align > t->align)
            t->align = c->align;
        t->elements += reps * b * c->elements;
        t->signature += reps * b * c->signature;
        if (c->size == 0)
            continue;
        nflat = nflat > SIZE_MAX - tm_mpi_type_piece_segs(&pieces[p])
                    ? SIZE_MAX
                    : nflat + tm_mpi_type_piece_segs(&pieces[p]);
    }
    if (nflat > TM_MPI_TYPE_FLAT_MAX && npieces > 1)
        goto fail; /* refused before memory runs out as it fills */
    if (nflat > TM_MPI_TYPE_FLAT_SEGS && npieces == 1) {
        if (tm_mpi_type_piece_levels(t, &sv, &pieces[0]) != 0)
            goto fail;
    } else if (nflat > 0) {
        for (size_t p = 0; p < npieces; p++)
            if (pieces[p].blocklen > 0 && pieces[p].type->size > 0 &&
                tm_mpi_type_piece_flatten(&sv, &pieces[p]) != 0)
                goto fail;
    }
    t->period_size = 0;
    for (size_t s = 0; s < sv.n; s++) {
        size_t len = sv.v[s].n * tm_mpi_type_builtins[sv.v[s].basic].size;
        MPI_Aint lo = sv.v[s].disp, hi = lo + (MPI_Aint)len;

        tlb = has_data && tlb < lo ? tlb : lo;
        tub = has_data && tub > hi ? tub : hi;
        has_data = 1;
        t->period_size += len;
    }
    t->periods = 1;
    for (unsigned l = 0; l < t->nlevels; l++) { /* the period's copies reach further */
        MPI_Aint span = (MPI_Aint)(t->levels[l].n - 1) * t->levels[l].stride;

        tlb += span < 0 ? span : 0;
        tub += span > 0 ? span : 0;
        t->periods *= t->levels[l].n;
    }
    t->lb = has_lbm ? lbm : has_lbn ? lbn : 0;
    t->ub = has_ubm ? ubm : has_ubn ? ubn : 0;
    if (__builtin_sub_overflow(t->ub, t->lb, &t->extent))
        goto overflow;
    if (!has_ubm && pad && t->align > 1 && t->extent % (MPI_Aint)t->align != 0) {
        MPI_Aint add = (MPI_Aint)t->align - t->extent % (MPI_Aint)t->align;

        if (__builtin_add_overflow(t->ub, add, &t->ub) ||
            __builtin_add_overflow(t->extent, add, &t->extent))
            goto overflow;
    }
    t->segs = sv.v;
    t->nsegs = sv.n;
    t->lb_mark = has_lbm;
    t->ub_mark = has_ubm;
    t->true_lb = tlb;
    t->true_ub = tub;
    t->true_extent = tub - tlb;
    if (tm_mpi_type_blocks_build(t) != 0)
        return -ENOMEM;
    tm_mpi_type_contiguous_update(t);
    return 0;
overflow:
    free(sv.v);
    return -EOVERFLOW;
fail:
    free(sv.v);
    return -ENOMEM;
}

void tm_mpi_type_set_bounds(tm_mpi_type_t *t, MPI_Aint lb, MPI_Aint extent)
{
    t->lb = lb;
    t->ub = lb + extent;
    t->extent = extent;
    t->lb_mark = 1;
    t->ub_mark = 1;
    tm_mpi_type_contiguous_update(t);
}

/* ------------------------------------------------------------------ the copy engine */

/* A position in the data stream of (base, count, type); a contiguous type is one block. */
typedef struct tm_mpi_type_cursor {
    char *base;
    const tm_mpi_type_t *type;
    tm_mpi_type_walk_t period; /* the current period */
    size_t blk;                /* current block in it */
    size_t off;                /* bytes of that block already passed */
    size_t total;              /* bytes of the whole stream */
} tm_mpi_type_cursor_t;

static void tm_mpi_type_cursor_init(tm_mpi_type_cursor_t *c, const void *base, size_t count,
                                    const tm_mpi_type_t *type, size_t offset)
{
    c->base = (char *)base;
    c->type = type;
    c->total = count * type->size;
    c->blk = 0;
    c->off = offset;
    if (type->contiguous || type->size == 0 || offset >= c->total)
        return;
    c->period = tm_mpi_type_walk_at(type, count, offset / type->period_size);
    offset %= type->period_size;
    {
        size_t lo = 0, hi = type->nblocks; /* last block whose off <= offset */

        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;

            if (type->blocks[mid].off <= offset)
                lo = mid;
            else
                hi = mid;
        }
        c->blk = lo;
        c->off = offset - type->blocks[lo].off;
    }
}

/* The address of the cursor's byte and how many bytes follow it contiguously. */
static char *tm_mpi_type_cursor_span(const tm_mpi_type_cursor_t *c, size_t *len_p)
{
    const tm_mpi_type_t *t = c->type;
    const tm_mpi_type_block_t *b;

    if (t->contiguous) {
        *len_p = c->total - c->off;
        return c->base + t->contig_disp + c->off;
    }
    b = &t->blocks[c->blk];
    *len_p = b->len - c->off;
    return c->base + c->period.disp + b->disp + (MPI_Aint)c->off;
}

static void tm_mpi_type_cursor_advance(tm_mpi_type_cursor_t *c, size_t n)
{
    const tm_mpi_type_t *t = c->type;

    c->off += n;
    if (t->contiguous || c->off < t->blocks[c->blk].len)
        return;
    c->off = 0;
    if (++c->blk == t->nblocks) {
        c->blk = 0;
        tm_mpi_type_walk_next(&c->period, t);
    }
}

/* Where byte `offset` of the stream of a contiguous type's data at buf is. */
static inline char *tm_mpi_type_contig_at(const void *buf, const tm_mpi_type_t *type, size_t offset)
{
    return (char *)buf + type->contig_disp + offset;
}

size_t tm_mpi_type_copy(void *dst, size_t dst_count, const tm_mpi_type_t *dst_type, const void *src,
                        size_t src_count, const tm_mpi_type_t *src_type, size_t offset,
                        size_t bytes)
{
    tm_mpi_type_cursor_t d, s;
    size_t left, done;

    left = tm_mpi_type_stream_left(dst_count * dst_type->size, offset, bytes);
    left = tm_mpi_type_stream_left(src_count * src_type->size, offset, left);
    done = left;
    if (left == 0)
        return 0;
    if (dst_type->contiguous && src_type->contiguous) { /* most messages: one memcpy */
        memcpy(tm_mpi_type_contig_at(dst, dst_type, offset),
               tm_mpi_type_contig_at(src, src_type, offset), left);
        return done;
    }
    tm_mpi_type_cursor_init(&d, dst, dst_count, dst_type, offset);
    tm_mpi_type_cursor_init(&s, src, src_count, src_type, offset);
    while (left > 0) {
        size_t dl, sl, n;
        char *dp = tm_mpi_type_cursor_span(&d, &dl);
        char *sp = tm_mpi_type_cursor_span(&s, &sl);

        n = dl < sl ? dl : sl;
        n = n < left ? n : left;
        memcpy(dp, sp, n);
        tm_mpi_type_cursor_advance(&d, n);
        tm_mpi_type_cursor_advance(&s, n);
        left -= n;
    }
    return done;
}

size_t tm_mpi_type_pack_blocks(const void *buf, size_t count, const tm_mpi_type_t *type,
                               size_t offset, size_t bytes, void *out)
{
    tm_mpi_type_cursor_t c;
    size_t left = tm_mpi_type_stream_left(count * type->size, offset, bytes), done = left;
    char *o = out;

    if (left == 0)
        return 0;
    tm_mpi_type_cursor_init(&c, buf, count, type, offset);
    while (left > 0) {
        size_t len;
        char *p = tm_mpi_type_cursor_span(&c, &len);

        len = len < left ? len : left;
        memcpy(o, p, len);
        o += len;
        tm_mpi_type_cursor_advance(&c, len);
        left -= len;
    }
    return done;
}

size_t tm_mpi_type_unpack_blocks(const void *in, size_t bytes, void *buf, size_t count,
                                 const tm_mpi_type_t *type, size_t offset)
{
    tm_mpi_type_cursor_t c;
    size_t left = tm_mpi_type_stream_left(count * type->size, offset, bytes), done = left;
    const char *i = in;

    if (left == 0)
        return 0;
    tm_mpi_type_cursor_init(&c, buf, count, type, offset);
    while (left > 0) {
        size_t len;
        char *p = tm_mpi_type_cursor_span(&c, &len);

        len = len < left ? len : left;
        memcpy(p, i, len);
        i += len;
        tm_mpi_type_cursor_advance(&c, len);
        left -= len;
    }
    return done;
}

int tm_mpi_type_count_elements(const tm_mpi_type_t *type, size_t bytes, size_t *elements_p)
{
    size_t elements, rest;

    *elements_p = 0;
    if (type->size == 0)
        return bytes == 0 ? 0 : -ERANGE;
    elements = bytes / type->size * type->elements;
    rest = bytes % type->size;
    /* whole periods, then the segments of one */
    elements += rest / type->period_size * (type->elements / type->periods);
    rest %= type->period_size;
    for (size_t s = 0; s < type->nsegs && rest > 0; s++) {
        size_t bs = tm_mpi_type_builtins[type->segs[s].basic].size;
        size_t n = rest / bs < type->segs[s].n ? rest / bs : type->segs[s].n;

        elements += n;
        rest -= n * bs;
        if (n < type->segs[s].n)
            break;
    }
    *elements_p = elements;
    return rest == 0 ? 0 : -ERANGE;
}
