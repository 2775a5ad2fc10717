/*
 * Reduction operations: the loops of the predefined ones, the table of user-defined ones and
 * their application to typed buffers (see op.h; the MPI calls on them are in mpi/op.c).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "obj/op.h"

/* The index of a predefined datatype (the low byte of its handle's payload). */
#define TM_MPI_OP_IDX(type) ((unsigned)(type)&0xffu)
/* Above every predefined datatype's index: a designator beyond it does not compile. */
#define TM_MPI_OP_NBASIC 0x30

/* The loops below map each C integer type on the fixed-width type of its size (LP64). */
_Static_assert(sizeof(short) == 2 && sizeof(int) == 4 && sizeof(long) == 8 &&
                   sizeof(long long) == 8,
               "the C integer types are not those of an LP64 ABI");
_Static_assert(sizeof(MPI_Aint) == 8 && sizeof(MPI_Offset) == 8 && sizeof(MPI_Count) == 8,
               "MPI_AINT, MPI_OFFSET and MPI_COUNT are reduced as 64-bit signed integers");
_Static_assert((MPI_Aint)-1 < 0 && (MPI_Offset)-1 < 0 && (MPI_Count)-1 < 0,
               "MPI_AINT, MPI_OFFSET and MPI_COUNT are reduced as signed integers");
_Static_assert(sizeof(_Bool) == 1, "MPI_C_BOOL and MPI_CXX_BOOL are one byte");

/* ------------------------------------------------------------------ the loops
 *
 * One function per (operation, C type): a plain loop over n elements that the compiler
 * vectorizes. GCC's -O2 cost model vectorizes a loop only when it needs neither a scalar epilogue
 * nor a run-time alias check, which these, with a count known at run time, need: they are built
 * with the dynamic cost model (versioned for aliasing: `in` and `inout` may be the same buffer).
 * Signed integers are summed and multiplied as unsigned ones of the same width: the result wraps
 * around in two's complement, as MPI programs expect, where signed overflow would be undefined in
 * C. `1u *` keeps narrow unsigned products unsigned instead of promoting them to int.
 */
typedef void tm_mpi_op_loop_fn_t(const void *in, void *inout, size_t n);

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#define TM_MPI_OP_LOOP(name, ctype, expr)                                                          \
    static void tm_mpi_op_##name(const void *vin, void *vio, size_t n)                             \
    {                                                                                              \
        const ctype *in = vin;                                                                     \
        ctype *io = vio;                                                                           \
                                                                                                   \
        for (size_t i = 0; i < n; i++) {                                                           \
            ctype a = in[i], b = io[i];                                                            \
                                                                                                   \
            io[i] = (ctype)(expr);                                                                 \
        }                                                                                          \
    }

#define TM_MPI_OP_MINMAX(t, ctype)                                                                 \
    TM_MPI_OP_LOOP(max_##t, ctype, a > b ? a : b)                                                  \
    TM_MPI_OP_LOOP(min_##t, ctype, a < b ? a : b)
#define TM_MPI_OP_ARITH_UNSIGNED(t, ctype)                                                         \
    TM_MPI_OP_LOOP(sum_##t, ctype, a + b)                                                          \
    TM_MPI_OP_LOOP(prod_##t, ctype, 1u * a * b)
#define TM_MPI_OP_ARITH(t, ctype)                                                                  \
    TM_MPI_OP_LOOP(sum_##t, ctype, a + b)                                                          \
    TM_MPI_OP_LOOP(prod_##t, ctype, (a) * (b))
#define TM_MPI_OP_LOGICAL(t, ctype)                                                                \
    TM_MPI_OP_LOOP(land_##t, ctype, (a) && (b))                                                    \
    TM_MPI_OP_LOOP(lor_##t, ctype, a || b)                                                         \
    TM_MPI_OP_LOOP(lxor_##t, ctype, !a != !b)
#define TM_MPI_OP_BITWISE(t, ctype)                                                                \
    TM_MPI_OP_LOOP(band_##t, ctype, (a) & (b))                                                     \
    TM_MPI_OP_LOOP(bor_##t, ctype, a | b)                                                          \
    TM_MPI_OP_LOOP(bxor_##t, ctype, a ^ b)
#define TM_MPI_OP_UNSIGNED(t, ctype)                                                               \
    TM_MPI_OP_MINMAX(t, ctype)                                                                     \
    TM_MPI_OP_ARITH_UNSIGNED(t, ctype)                                                             \
    TM_MPI_OP_LOGICAL(t, ctype)                                                                    \
    TM_MPI_OP_BITWISE(t, ctype)

TM_MPI_OP_UNSIGNED(u8, uint8_t)
TM_MPI_OP_UNSIGNED(u16, uint16_t)
TM_MPI_OP_UNSIGNED(u32, uint32_t)
TM_MPI_OP_UNSIGNED(u64, uint64_t)
TM_MPI_OP_MINMAX(i8, int8_t)
TM_MPI_OP_MINMAX(i16, int16_t)
TM_MPI_OP_MINMAX(i32, int32_t)
TM_MPI_OP_MINMAX(i64, int64_t)
TM_MPI_OP_MINMAX(f, float)
TM_MPI_OP_MINMAX(d, double)
TM_MPI_OP_MINMAX(ld, long double)
TM_MPI_OP_ARITH(f, float)
TM_MPI_OP_ARITH(d, double)
TM_MPI_OP_ARITH(ld, long double)
TM_MPI_OP_ARITH(cf, float _Complex)
TM_MPI_OP_ARITH(cd, double _Complex)
TM_MPI_OP_ARITH(cld, long double _Complex)
TM_MPI_OP_LOGICAL(b, _Bool)

/*
 * MPI_MAXLOC, MPI_MINLOC on the pair types (MPI 3.1 section 5.9.4): the extreme value, and the
 * smallest index among the elements that hold it. The structs have the layout of the pair types
 * (datatype.c checks their sizes); fields are assigned one by one so padding is not written.
 */
#define TM_MPI_OP_LOC(t, vtype, idx_disp)                                                          \
    typedef struct {                                                                               \
        vtype v;                                                                                   \
        int i;                                                                                     \
    } tm_mpi_op_pair_##t##_t;                                                                      \
    _Static_assert(offsetof(tm_mpi_op_pair_##t##_t, i) == (idx_disp), "pair layout");              \
    TM_MPI_OP_LOC_LOOP(maxloc_##t, tm_mpi_op_pair_##t##_t, >)                                      \
    TM_MPI_OP_LOC_LOOP(minloc_##t, tm_mpi_op_pair_##t##_t, <)

#define TM_MPI_OP_LOC_LOOP(name, ptype, cmp)                                                       \
    static void tm_mpi_op_##name(const void *vin, void *vio, size_t n)                             \
    {                                                                                              \
        const ptype *in = vin;                                                                     \
        ptype *io = vio;                                                                           \
                                                                                                   \
        for (size_t k = 0; k < n; k++) {                                                           \
            if (in[k].v cmp io[k].v) {                                                             \
                io[k].v = in[k].v;                                                                 \
                io[k].i = in[k].i;                                                                 \
            } else if (in[k].v == io[k].v && in[k].i < io[k].i) {                                  \
                io[k].i = in[k].i;                                                                 \
            }                                                                                      \
        }                                                                                          \
    }

TM_MPI_OP_LOC(f, float, 4)
TM_MPI_OP_LOC(d, double, 8)
TM_MPI_OP_LOC(l, long, 8)
TM_MPI_OP_LOC(i, int, 4)
TM_MPI_OP_LOC(s, short, 4)
TM_MPI_OP_LOC(ld, long double, 16)

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

/* ------------------------------------------------------------------ which loop for which type
 *
 * The groups of MPI 3.1 section 5.9.2. "C integer" leaves out MPI_CHAR and MPI_WCHAR (text), and
 * MPI_BYTE, which only the bitwise operations take; MPI_CHAR is taken as the C integer it is
 * (signed where char is), as MPICH and Open MPI take it. The logical operations also take
 * MPI_AINT, MPI_OFFSET and MPI_COUNT, as the bitwise ones do (MPICH and Open MPI again). A
 * signed type uses the signed loop where the sign matters (MPI_MAX, MPI_MIN), the unsigned one
 * of its width elsewhere.
 */
#define TM_MPI_OP_L(op, t) [TM_MPI_OP_IDX(MPI_##t)] = tm_mpi_op_##op
#if CHAR_MIN < 0
#define TM_MPI_OP_CHAR(op, s) TM_MPI_OP_L(op##_##s##8, CHAR)
#else
#define TM_MPI_OP_CHAR(op, s) TM_MPI_OP_L(op##_u8, CHAR)
#endif
#define TM_MPI_OP_C_INTEGER(op, s)                                                                 \
    TM_MPI_OP_CHAR(op, s), TM_MPI_OP_L(op##_##s##8, SIGNED_CHAR),                                  \
        TM_MPI_OP_L(op##_u8, UNSIGNED_CHAR), TM_MPI_OP_L(op##_##s##16, SHORT),                     \
        TM_MPI_OP_L(op##_u16, UNSIGNED_SHORT), TM_MPI_OP_L(op##_##s##32, INT),                     \
        TM_MPI_OP_L(op##_u32, UNSIGNED), TM_MPI_OP_L(op##_##s##64, LONG),                          \
        TM_MPI_OP_L(op##_u64, UNSIGNED_LONG), TM_MPI_OP_L(op##_##s##64, LONG_LONG_INT),            \
        TM_MPI_OP_L(op##_u64, UNSIGNED_LONG_LONG), TM_MPI_OP_L(op##_##s##8, INT8_T),               \
        TM_MPI_OP_L(op##_##s##16, INT16_T), TM_MPI_OP_L(op##_##s##32, INT32_T),                    \
        TM_MPI_OP_L(op##_##s##64, INT64_T), TM_MPI_OP_L(op##_u8, UINT8_T),                         \
        TM_MPI_OP_L(op##_u16, UINT16_T), TM_MPI_OP_L(op##_u32, UINT32_T),                          \
        TM_MPI_OP_L(op##_u64, UINT64_T)
#define TM_MPI_OP_MULTI_LANGUAGE(op, s)                                                            \
    TM_MPI_OP_L(op##_##s##64, AINT), TM_MPI_OP_L(op##_##s##64, OFFSET),                            \
        TM_MPI_OP_L(op##_##s##64, COUNT)
#define TM_MPI_OP_FLOATING(op)                                                                     \
    TM_MPI_OP_L(op##_f, FLOAT), TM_MPI_OP_L(op##_d, DOUBLE), TM_MPI_OP_L(op##_ld, LONG_DOUBLE)
#define TM_MPI_OP_COMPLEX(op)                                                                      \
    TM_MPI_OP_L(op##_cf, C_FLOAT_COMPLEX), TM_MPI_OP_L(op##_cd, C_DOUBLE_COMPLEX),                 \
        TM_MPI_OP_L(op##_cld, C_LONG_DOUBLE_COMPLEX), TM_MPI_OP_L(op##_cf, CXX_FLOAT_COMPLEX),     \
        TM_MPI_OP_L(op##_cd, CXX_DOUBLE_COMPLEX), TM_MPI_OP_L(op##_cld, CXX_LONG_DOUBLE_COMPLEX)
#define TM_MPI_OP_LOGICAL_TYPES(op) TM_MPI_OP_L(op##_b, C_BOOL), TM_MPI_OP_L(op##_b, CXX_BOOL)

#define TM_MPI_OP_ROW_MINMAX(op)                                                                   \
    {                                                                                              \
        TM_MPI_OP_C_INTEGER(op, i), TM_MPI_OP_MULTI_LANGUAGE(op, i), TM_MPI_OP_FLOATING(op)        \
    }
#define TM_MPI_OP_ROW_ARITH(op)                                                                    \
    {                                                                                              \
        TM_MPI_OP_C_INTEGER(op, u), TM_MPI_OP_MULTI_LANGUAGE(op, u), TM_MPI_OP_FLOATING(op),       \
            TM_MPI_OP_COMPLEX(op)                                                                  \
    }
#define TM_MPI_OP_ROW_LOGICAL(op)                                                                  \
    {                                                                                              \
        TM_MPI_OP_C_INTEGER(op, u), TM_MPI_OP_MULTI_LANGUAGE(op, u), TM_MPI_OP_LOGICAL_TYPES(op)   \
    }
#define TM_MPI_OP_ROW_BITWISE(op)                                                                  \
    {                                                                                              \
        TM_MPI_OP_C_INTEGER(op, u), TM_MPI_OP_L(op##_u8, BYTE), TM_MPI_OP_MULTI_LANGUAGE(op, u)    \
    }

/* NULL: the operation is not defined on the type. */
static tm_mpi_op_loop_fn_t *const tm_mpi_op_loops[TM_MPI_OP_BXOR + 1][TM_MPI_OP_NBASIC] = {
    [TM_MPI_OP_MAX] = TM_MPI_OP_ROW_MINMAX(max),    [TM_MPI_OP_MIN] = TM_MPI_OP_ROW_MINMAX(min),
    [TM_MPI_OP_SUM] = TM_MPI_OP_ROW_ARITH(sum),     [TM_MPI_OP_PROD] = TM_MPI_OP_ROW_ARITH(prod),
    [TM_MPI_OP_LAND] = TM_MPI_OP_ROW_LOGICAL(land), [TM_MPI_OP_LOR] = TM_MPI_OP_ROW_LOGICAL(lor),
    [TM_MPI_OP_LXOR] = TM_MPI_OP_ROW_LOGICAL(lxor), [TM_MPI_OP_BAND] = TM_MPI_OP_ROW_BITWISE(band),
    [TM_MPI_OP_BOR] = TM_MPI_OP_ROW_BITWISE(bor),   [TM_MPI_OP_BXOR] = TM_MPI_OP_ROW_BITWISE(bxor),
};

/* The pair types: their value type, where their index is, and their loops. */
typedef struct tm_mpi_op_pair {
    unsigned value;      /* index of the value's basic type */
    MPI_Aint index_disp; /* of the int after the value */
    tm_mpi_op_loop_fn_t *maxloc, *minloc;
} tm_mpi_op_pair_t;

#define TM_MPI_OP_PAIR(pair, value, t)                                                             \
    [TM_MPI_OP_IDX(MPI_##pair)] = {TM_MPI_OP_IDX(MPI_##value),                                     \
                                   offsetof(tm_mpi_op_pair_##t##_t, i), tm_mpi_op_maxloc_##t,      \
                                   tm_mpi_op_minloc_##t}

static const tm_mpi_op_pair_t tm_mpi_op_pairs[TM_MPI_OP_NBASIC] = {
    TM_MPI_OP_PAIR(FLOAT_INT, FLOAT, f), TM_MPI_OP_PAIR(DOUBLE_INT, DOUBLE, d),
    TM_MPI_OP_PAIR(LONG_INT, LONG, l),   TM_MPI_OP_PAIR(2INT, INT, i),
    TM_MPI_OP_PAIR(SHORT_INT, SHORT, s), TM_MPI_OP_PAIR(LONG_DOUBLE_INT, LONG_DOUBLE, ld),
};

/* The pair type whose value is basic type `value`, or NULL. */
static const tm_mpi_op_pair_t *tm_mpi_op_pair_of_value(unsigned value)
{
    for (unsigned p = 0; p < TM_MPI_OP_NBASIC; p++)
        if (tm_mpi_op_pairs[p].maxloc != NULL && tm_mpi_op_pairs[p].value == value)
            return &tm_mpi_op_pairs[p];
    return NULL;
}

/* ------------------------------------------------------------------ objects and handles */

#define TM_MPI_OP_PREDEF(h, k, c)                                                                  \
    [k] = {.handle = h, .kind = k, .predefined = true, .commute = c, .name = #h}

static tm_mpi_op_t tm_mpi_op_predefined[TM_MPI_OP_NO_OP + 1] = {
    TM_MPI_OP_PREDEF(MPI_MAX, TM_MPI_OP_MAX, true),
    TM_MPI_OP_PREDEF(MPI_MIN, TM_MPI_OP_MIN, true),
    TM_MPI_OP_PREDEF(MPI_SUM, TM_MPI_OP_SUM, true),
    TM_MPI_OP_PREDEF(MPI_PROD, TM_MPI_OP_PROD, true),
    TM_MPI_OP_PREDEF(MPI_LAND, TM_MPI_OP_LAND, true),
    TM_MPI_OP_PREDEF(MPI_BAND, TM_MPI_OP_BAND, true),
    TM_MPI_OP_PREDEF(MPI_LOR, TM_MPI_OP_LOR, true),
    TM_MPI_OP_PREDEF(MPI_BOR, TM_MPI_OP_BOR, true),
    TM_MPI_OP_PREDEF(MPI_LXOR, TM_MPI_OP_LXOR, true),
    TM_MPI_OP_PREDEF(MPI_BXOR, TM_MPI_OP_BXOR, true),
    TM_MPI_OP_PREDEF(MPI_MAXLOC, TM_MPI_OP_MAXLOC, true),
    TM_MPI_OP_PREDEF(MPI_MINLOC, TM_MPI_OP_MINLOC, true),
    TM_MPI_OP_PREDEF(MPI_REPLACE, TM_MPI_OP_REPLACE, false),
    TM_MPI_OP_PREDEF(MPI_NO_OP, TM_MPI_OP_NO_OP, false),
};

_Static_assert(MPI_MAX == TM_MPI_HANDLE(TM_MPI_KIND_OP, TM_MPI_OP_MAX) &&
                   MPI_BXOR == TM_MPI_HANDLE(TM_MPI_KIND_OP, TM_MPI_OP_BXOR) &&
                   MPI_MINLOC == TM_MPI_HANDLE(TM_MPI_KIND_OP, TM_MPI_OP_MINLOC) &&
                   MPI_NO_OP == TM_MPI_HANDLE(TM_MPI_KIND_OP, TM_MPI_OP_NO_OP),
               "the kinds of the predefined operations are not their handles' payloads");

/*
 * The table of user-defined operations, as datatype.c's: payload = 1 << 25 | generation << 20 |
 * slot. The generation (5 bits) makes a freed handle whose slot a later operation took unlikely
 * to resolve to it.
 */
#define TM_MPI_OP_USER_BIT  (1u << 25)
#define TM_MPI_OP_GEN_SHIFT 20
#define TM_MPI_OP_GEN_MASK  0x1fu
#define TM_MPI_OP_SLOT_MASK 0xfffffu

typedef struct tm_mpi_op_slot {
    tm_mpi_op_t *op; /* NULL: free */
    unsigned gen;
    size_t next_free;
} tm_mpi_op_slot_t;

static pthread_mutex_t tm_mpi_op_table_lock = PTHREAD_MUTEX_INITIALIZER;
static tm_mpi_op_slot_t *tm_mpi_op_table;
static size_t tm_mpi_op_table_len, tm_mpi_op_table_cap;
static size_t tm_mpi_op_free_head = SIZE_MAX;

int tm_mpi_op_lookup(MPI_Op handle, tm_mpi_op_t **op_p)
{
    unsigned payload = tm_mpi_handle_payload(handle), slot, gen;
    int err = -EINVAL;

    *op_p = NULL;
    if (tm_mpi_handle_kind(handle) != TM_MPI_KIND_OP)
        return -EINVAL;
    if (!(payload & TM_MPI_OP_USER_BIT)) {
        if (payload < TM_MPI_OP_MAX || payload > TM_MPI_OP_NO_OP)
            return -EINVAL;
        *op_p = &tm_mpi_op_predefined[payload];
        return 0;
    }
    slot = payload & TM_MPI_OP_SLOT_MASK;
    gen = (payload >> TM_MPI_OP_GEN_SHIFT) & TM_MPI_OP_GEN_MASK;
    pthread_mutex_lock(&tm_mpi_op_table_lock);
    if (slot < tm_mpi_op_table_len && tm_mpi_op_table[slot].op != NULL &&
        tm_mpi_op_table[slot].gen == gen) {
        *op_p = tm_mpi_op_table[slot].op;
        err = 0;
    }
    pthread_mutex_unlock(&tm_mpi_op_table_lock);
    return err;
}

int tm_mpi_op_publish(tm_mpi_op_t *op)
{
    size_t slot;
    tm_mpi_op_slot_t *s;

    pthread_mutex_lock(&tm_mpi_op_table_lock);
    if (tm_mpi_op_free_head != SIZE_MAX) {
        slot = tm_mpi_op_free_head;
        tm_mpi_op_free_head = tm_mpi_op_table[slot].next_free;
    } else {
        if (tm_mpi_op_table_len == tm_mpi_op_table_cap) {
            size_t cap = tm_mpi_op_table_cap ? 2 * tm_mpi_op_table_cap : 16;
            tm_mpi_op_slot_t *t;

            if (cap > TM_MPI_OP_SLOT_MASK + 1u ||
                (t = realloc(tm_mpi_op_table, cap * sizeof(*t))) == NULL) {
                pthread_mutex_unlock(&tm_mpi_op_table_lock);
                return -ENOMEM;
            }
            tm_mpi_op_table = t;
            tm_mpi_op_table_cap = cap;
        }
        slot = tm_mpi_op_table_len++;
        tm_mpi_op_table[slot].gen = 0;
    }
    s = &tm_mpi_op_table[slot];
    s->op = op;
    s->gen = (s->gen + 1) & TM_MPI_OP_GEN_MASK;
    op->handle = TM_MPI_HANDLE(TM_MPI_KIND_OP,
                               TM_MPI_OP_USER_BIT | s->gen << TM_MPI_OP_GEN_SHIFT | (unsigned)slot);
    pthread_mutex_unlock(&tm_mpi_op_table_lock);
    return 0;
}

int tm_mpi_op_unpublish(MPI_Op handle)
{
    unsigned payload = tm_mpi_handle_payload(handle);
    unsigned slot = payload & TM_MPI_OP_SLOT_MASK;
    unsigned gen = (payload >> TM_MPI_OP_GEN_SHIFT) & TM_MPI_OP_GEN_MASK;
    tm_mpi_op_t *op = NULL;

    if (tm_mpi_handle_kind(handle) != TM_MPI_KIND_OP || !(payload & TM_MPI_OP_USER_BIT))
        return -EINVAL;
    pthread_mutex_lock(&tm_mpi_op_table_lock);
    if (slot < tm_mpi_op_table_len && tm_mpi_op_table[slot].op != NULL &&
        tm_mpi_op_table[slot].gen == gen) {
        op = tm_mpi_op_table[slot].op;
        tm_mpi_op_table[slot].op = NULL;
        tm_mpi_op_table[slot].next_free = tm_mpi_op_free_head;
        tm_mpi_op_free_head = slot;
    }
    pthread_mutex_unlock(&tm_mpi_op_table_lock);
    if (op == NULL)
        return -EINVAL;
    tm_mpi_op_release(op);
    return 0;
}

void tm_mpi_op_retain(tm_mpi_op_t *op)
{
    if (op->predefined)
        return;
    /* Relaxed: a new reference is taken from an existing one, which keeps the object alive. */
    atomic_fetch_add_explicit(&op->refs, 1, memory_order_relaxed);
}

void tm_mpi_op_release(tm_mpi_op_t *op)
{
    if (op == NULL || op->predefined)
        return;
    /* acq_rel: the thread that frees must see every other user's accesses to the object. */
    if (atomic_fetch_sub_explicit(&op->refs, 1, memory_order_acq_rel) == 1)
        free(op);
}

bool tm_mpi_op_is_commutative(const tm_mpi_op_t *op)
{
    return op->commute;
}

/* "MPI_SUM", or "user-defined operation 0x54000010", for messages. */
static const char *tm_mpi_op_describe(const tm_mpi_op_t *op, char *buf, size_t len)
{
    if (op->name != NULL)
        return op->name;
    snprintf(buf, len, "user-defined operation 0x%08x", (unsigned)op->handle);
    return buf;
}

static const char *tm_mpi_op_describe_type(const tm_mpi_type_t *type, char *buf, size_t len)
{
    if (type->name[0] != '\0')
        return type->name;
    snprintf(buf, len, "datatype 0x%08x", (unsigned)type->handle);
    return buf;
}

int tm_mpi_op_get(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, MPI_Op handle, const char *call,
                  tm_mpi_op_t **op_p)
{
    tm_mpi_kind_t kind = tm_mpi_handle_kind(handle);

    if (tm_mpi_op_lookup(handle, op_p) == 0)
        return MPI_SUCCESS;
    if (handle == MPI_OP_NULL)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_OP, "invalid operation MPI_OP_NULL");
    if (kind == TM_MPI_KIND_OP)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_OP,
                                  "invalid operation 0x%08x: no such operation", (unsigned)handle);
    if (kind == TM_MPI_KIND_NONE)
        return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_OP,
                                  "invalid operation 0x%08x: not an MPI handle", (unsigned)handle);
    return tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_OP,
                              "invalid operation 0x%08x: the handle of %s", (unsigned)handle,
                              tm_mpi_handle_kind_name(kind));
}

int tm_mpi_op_get_for_type(tm_mpi_rank_t *r, tm_mpi_comm_t *comm, MPI_Op handle,
                           const tm_mpi_type_t *type, const char *call, tm_mpi_op_t **op_p)
{
    char obuf[64], tbuf[64];
    int err;

    if ((err = tm_mpi_op_get(r, comm, handle, call, op_p)) != MPI_SUCCESS)
        return err;
    if (tm_mpi_op_check_type(*op_p, type) == 0)
        return MPI_SUCCESS;
    err = tm_mpi_error_raise(r->rt, comm, call, MPI_ERR_OP, "%s is not defined on %s",
                             tm_mpi_op_describe(*op_p, obuf, sizeof(obuf)),
                             tm_mpi_op_describe_type(type, tbuf, sizeof(tbuf)));
    *op_p = NULL;
    return err;
}

/* ------------------------------------------------------------------ which types an op takes */

/* Whether the typemap of one element of derived `type` is whole (value, int) pairs of one pair
 * type, each index right where that pair type has it; sets *pair_p to that pair type.
 * Flattening merges adjacent runs of one basic type, so MPI_2INT pairs show as runs of an even
 * number of ints; the other pairs alternate one value, one int. */
static bool tm_mpi_op_type_is_pairs(const tm_mpi_type_t *type, const tm_mpi_op_pair_t **pair_p)
{
    const tm_mpi_type_seg_t *s = type->segs;
    const tm_mpi_op_pair_t *pair = tm_mpi_op_pair_of_value(s[0].basic);

    *pair_p = pair;
    if (pair == NULL)
        return false;
    if (pair->value == TM_MPI_OP_IDX(MPI_INT)) {
        for (size_t k = 0; k < type->nsegs; k++)
            if (s[k].basic != TM_MPI_OP_IDX(MPI_INT) || s[k].n % 2 != 0)
                return false;
        return true;
    }
    if (type->nsegs % 2 != 0)
        return false;
    for (size_t k = 0; k < type->nsegs; k += 2)
        if (s[k].basic != pair->value || s[k].n != 1 || s[k + 1].basic != TM_MPI_OP_IDX(MPI_INT) ||
            s[k + 1].n != 1 || s[k + 1].disp != s[k].disp + pair->index_disp)
            return false;
    return true;
}

int tm_mpi_op_check_type(const tm_mpi_op_t *op, const tm_mpi_type_t *type)
{
    const tm_mpi_op_pair_t *pair;

    switch (op->kind) {
    case TM_MPI_OP_USER:
    case TM_MPI_OP_REPLACE:
    case TM_MPI_OP_NO_OP:
        return 0;
    case TM_MPI_OP_MAXLOC:
    case TM_MPI_OP_MINLOC:
        if (type->predefined)
            return tm_mpi_op_pairs[TM_MPI_OP_IDX(type->handle)].maxloc != NULL ? 0 : -EINVAL;
        if (type->nsegs == 0)
            return 0;
        return tm_mpi_op_type_is_pairs(type, &pair) ? 0 : -EINVAL;
    default:
        break;
    }
    if (type->predefined) {
        unsigned basic = TM_MPI_OP_IDX(type->handle);

        return type->nsegs == 1 && tm_mpi_op_loops[op->kind][basic] != NULL ? 0 : -EINVAL;
    }
    for (size_t k = 0; k < type->nsegs; k++)
        if (type->segs[k].basic != type->segs[0].basic ||
            tm_mpi_op_loops[op->kind][type->segs[k].basic] == NULL)
            return -EINVAL;
    return 0;
}

/* ------------------------------------------------------------------ application */

/* MPI_MAXLOC (max) or MPI_MINLOC on one pair of basic type `value` scattered in memory. */
static void tm_mpi_op_loc_one(bool max, unsigned value, const char *in_v, const char *in_i,
                              char *io_v, char *io_i)
{
#define TM_MPI_OP_LOC_ONE(vtype)                                                                   \
    do {                                                                                           \
        vtype a = *(const vtype *)in_v, b = *(vtype *)io_v;                                        \
        int ai = *(const int *)in_i;                                                               \
                                                                                                   \
        if (max ? a > b : a < b) {                                                                 \
            *(vtype *)io_v = a;                                                                    \
            *(int *)io_i = ai;                                                                     \
        } else if (a == b && ai < *(int *)io_i) {                                                  \
            *(int *)io_i = ai;                                                                     \
        }                                                                                          \
    } while (0)

    switch (value) {
    case TM_MPI_OP_IDX(MPI_FLOAT):
        TM_MPI_OP_LOC_ONE(float);
        break;
    case TM_MPI_OP_IDX(MPI_DOUBLE):
        TM_MPI_OP_LOC_ONE(double);
        break;
    case TM_MPI_OP_IDX(MPI_LONG):
        TM_MPI_OP_LOC_ONE(long);
        break;
    case TM_MPI_OP_IDX(MPI_INT):
        TM_MPI_OP_LOC_ONE(int);
        break;
    case TM_MPI_OP_IDX(MPI_SHORT):
        TM_MPI_OP_LOC_ONE(short);
        break;
    case TM_MPI_OP_IDX(MPI_LONG_DOUBLE):
        TM_MPI_OP_LOC_ONE(long double);
        break;
    }
#undef TM_MPI_OP_LOC_ONE
}

/* MPI_MAXLOC/MPI_MINLOC on a derived type of pairs (tm_mpi_op_type_is_pairs). */
static void tm_mpi_op_apply_pairs(bool max, const char *in, char *io, size_t count,
                                  const tm_mpi_type_t *type)
{
    const tm_mpi_type_seg_t *s = type->segs;
    const tm_mpi_op_pair_t *pair;
    tm_mpi_op_loop_fn_t *loop;

    if (!tm_mpi_op_type_is_pairs(type, &pair))
        return;
    loop = max ? pair->maxloc : pair->minloc;
    for (tm_mpi_type_walk_t w = tm_mpi_type_walk_at(type, count, 0); w.left > 0;
         tm_mpi_type_walk_next(&w, type)) {
        MPI_Aint base = w.disp;

        if (pair->value != TM_MPI_OP_IDX(MPI_INT)) {
            for (size_t k = 0; k < type->nsegs; k += 2)
                tm_mpi_op_loc_one(max, pair->value, in + base + s[k].disp,
                                  in + base + s[k + 1].disp, io + base + s[k].disp,
                                  io + base + s[k + 1].disp);
            continue;
        }
        /* runs of ints: arrays of MPI_2INT */
        for (size_t k = 0; k < type->nsegs; k++)
            loop(in + base + s[k].disp, io + base + s[k].disp, s[k].n / 2);
    }
}

/* A predefined operation other than MPI_REPLACE, MPI_NO_OP on a derived type made of one basic
 * type: the loop of that type over each run of basic elements. */
static void tm_mpi_op_apply_runs(tm_mpi_op_loop_fn_t *loop, const char *in, char *io, size_t count,
                                 const tm_mpi_type_t *type)
{
    const tm_mpi_type_seg_t *s = type->segs;

    if (type->nlevels == 0 && type->nsegs == 1 &&
        (MPI_Aint)(s[0].n * tm_mpi_type_basic_size(s[0].basic)) == type->extent) {
        /* the elements abut: one run of count * n basic elements */
        loop(in + s[0].disp, io + s[0].disp, count * s[0].n);
        return;
    }
    for (tm_mpi_type_walk_t w = tm_mpi_type_walk_at(type, count, 0); w.left > 0;
         tm_mpi_type_walk_next(&w, type)) {
        MPI_Aint base = w.disp;

        for (size_t k = 0; k < type->nsegs; k++)
            loop(in + base + s[k].disp, io + base + s[k].disp, s[k].n);
    }
}

/* A user-defined function of MPI_Op_create takes an int count: call it on at most INT_MAX
 * elements at a time; one of MPI_Op_create_c, on them all. */
static void tm_mpi_op_apply_user(const tm_mpi_op_t *op, const char *in, char *io, size_t count,
                                 const tm_mpi_type_t *type)
{
    if (op->fn_c) {
        MPI_Count len = (MPI_Count)count; /* the function may write to its arguments */
        MPI_Datatype handle = type->handle;
        if (count > 0)
            op->fn_c((void *)in, io, &len, &handle);
        return;
    }
    while (count > 0) {
        int n = count > INT_MAX ? INT_MAX : (int)count;
        int len = n; /* the function may write to its arguments */
        MPI_Datatype handle = type->handle;

        op->fn((void *)in, io, &len, &handle);
        in += (MPI_Aint)n * type->extent;
        io += (MPI_Aint)n * type->extent;
        count -= (size_t)n;
    }
}

void tm_mpi_op_apply(const tm_mpi_op_t *op, const void *in, void *inout, size_t count,
                     const tm_mpi_type_t *type)
{
    const char *i = in;
    char *io = inout;

    if (count == 0)
        return;
    switch (op->kind) {
    case TM_MPI_OP_NO_OP:
        return;
    case TM_MPI_OP_USER:
        tm_mpi_op_apply_user(op, i, io, count, type);
        return;
    case TM_MPI_OP_REPLACE:
        if (in != inout)
            tm_mpi_type_copy(inout, count, type, in, count, type, 0, count * type->size);
        return;
    case TM_MPI_OP_MAXLOC:
    case TM_MPI_OP_MINLOC:
        if (type->size == 0)
            return;
        if (type->predefined) {
            const tm_mpi_op_pair_t *pair = &tm_mpi_op_pairs[TM_MPI_OP_IDX(type->handle)];

            (op->kind == TM_MPI_OP_MAXLOC ? pair->maxloc : pair->minloc)(in, inout, count);
            return;
        }
        tm_mpi_op_apply_pairs(op->kind == TM_MPI_OP_MAXLOC, i, io, count, type);
        return;
    default:
        if (type->size == 0)
            return;
        tm_mpi_op_apply_runs(tm_mpi_op_loops[op->kind][type->segs[0].basic], i, io, count, type);
        return;
    }
}
