/* Reductions against a serial reference: MPI_Reduce (from a root that moves on at every call),
 * MPI_Allreduce, MPI_Reduce_scatter (irregular counts, zeros among them), MPI_Reduce_scatter_block,
 * MPI_Scan and MPI_Exscan, each with every predefined operation on the types it applies to here:
 * int, unsigned, long long, float, double, MPI_C_BOOL (logical), MPI_BYTE (bitwise),
 * MPI_C_DOUBLE_COMPLEX (sum, product), MAXLOC/MINLOC on MPI_DOUBLE_INT and MPI_2INT with many
 * ties (the smaller index wins; indices fall as ranks rise, so "the first rank wins" is wrong);
 * a commutative user operation (product modulo a prime) and a non-commutative one (2x2 matrix
 * product modulo a prime) whose result is the product in rank order, M0 M1 ... M(n-1).
 * MPI_IN_PLACE wherever MPI allows it. Counts 1 and 13, and large counts (65537 ints with MPI_SUM
 * and the commutative user op, 32769 doubles, 21846 MPI_DOUBLE_INT pairs, whose type has a gap,
 * 16385 matrices: 256 KiB, where the blocking calls on 2 ranks or more switch to the
 * shared-address-space algorithm for commutative operations) for Reduce and Allreduce. The
 * order-revealing cases run again on MPI_COMM_WORLD split with reversed keys, where rank order is
 * not world order, and on its two halves interleaved. Floating-point values are small integers, so
 * every order of summation gives the same exact result. Elements past each result are checked
 * untouched and send buffers unchanged. Then MPI_Reduce_local with predefined and user operations,
 * and MPI_Op_commutative. Usage: coll_reduce [nb]: with nb, the non-blocking variants
 * (MPI_Iallreduce...), completed in turn by MPI_Wait, by an MPI_Test loop, or all of a group at
 * once by MPI_Waitall. */
#include <complex.h>
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, errors, nb;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "coll_reduce: rank %d, line %d: ", wrank, __LINE__);                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

/* A prime below 2^16: the user operations work modulo it. */
#define PRIME 65521

enum op {
    OP_MAX,
    OP_MIN,
    OP_SUM,
    OP_PROD,
    OP_LAND,
    OP_LOR,
    OP_LXOR,
    OP_BAND,
    OP_BOR,
    OP_BXOR,
    OP_MAXLOC,
    OP_MINLOC,
    OP_MODMUL,
    OP_MATMUL,
    NOPS
};
static const char *const op_name[NOPS] = {
    "MPI_MAX",
    "MPI_MIN",
    "MPI_SUM",
    "MPI_PROD",
    "MPI_LAND",
    "MPI_LOR",
    "MPI_LXOR",
    "MPI_BAND",
    "MPI_BOR",
    "MPI_BXOR",
    "MPI_MAXLOC",
    "MPI_MINLOC",
    "the commutative user op",
    "the non-commutative user op",
};
static MPI_Op ops[NOPS];

#define BIT(op) (1u << (op))
#define ARITH   (BIT(OP_MAX) | BIT(OP_MIN) | BIT(OP_SUM) | BIT(OP_PROD))
#define LOGICAL (BIT(OP_LAND) | BIT(OP_LOR) | BIT(OP_LXOR))
#define BITWISE (BIT(OP_BAND) | BIT(OP_BOR) | BIT(OP_BXOR))

struct double_int {
    double v;
    int loc;
};
struct int_int {
    int v;
    int loc;
};
/* A 2x2 matrix, row-major, entries modulo PRIME. */
struct mat {
    int a[4];
};

/* Room for one element of any type here. */
union elem {
    long long ll;
    double complex z;
    struct double_int di;
    struct mat m;
    unsigned char bytes[32];
};

/* The size of the communicator in use: how often the logical values are false depends on it. */
static int cur_size;

struct type {
    const char *name;
    MPI_Datatype dt;
    size_t size;
    unsigned ops; /* BIT(op) for each op applied to this type */
    /* One input element for op from the random word h, on rank r. */
    void (*gen)(int op, uint64_t h, int r, void *out);
    /* The reference: io = in op io, as MPI's user functions have it. */
    void (*apply)(int op, const void *in, void *io);
    int (*equal)(const void *a, const void *b);
    void (*show)(const void *a, char *s, size_t n);
};

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* MPICH before 4.1 compares unsigned integers as signed ones in MPI_MAX and MPI_MIN (its issue
 * 6083): there, unsigned values stay below 2^31, where both readings agree. */
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
#define SIGNED_MINMAX_ONLY 1
#else
#define SIGNED_MINMAX_ONLY 0
#endif

/* An integer value for op; nbits is the width of the type. Products and sums stay small enough
 * for any rank count used here (at most 2^17 in magnitude). For MPI_MAX and MPI_MIN, negative
 * values become large unsigned ones: a comparison of the wrong signedness shows. */
static long long int_value(int op, uint64_t h, int r, int nbits, int is_signed)
{
    int n2 = 2 * cur_size;
    long long truthy = (long long)((h >> 40) % 4) + 1;
    unsigned long long bit = 1ull << ((h >> 48) % (unsigned)nbits);
    if ((h >> 44) & 1)
        truthy = -truthy;
    switch (op) {
    case OP_MAX:
    case OP_MIN:
        if (!is_signed && SIGNED_MINMAX_ONLY)
            return (long long)(h % 2001);
        return (long long)(h % 2001) - 1000;
    case OP_SUM:
        return (long long)(h % 201) - 100;
    case OP_PROD:
        return h % 8 == 0 && r % 2 == 0 ? 2 : h % 8 == 1 ? -1 : 1;
    case OP_LAND:
        return h % (uint64_t)n2 ? truthy : 0;
    case OP_LOR:
        return h % (uint64_t)n2 ? 0 : truthy;
    case OP_LXOR:
        return (h >> 3) & 1 ? truthy : 0;
    case OP_BAND:
        return (long long)((h >> 3) & 1 ? ~bit : ~0ull);
    case OP_BOR:
        return (long long)((h >> 3) & 1 ? bit : 0);
    case OP_BXOR:
        return (long long)h;
    case OP_MODMUL:
        return (long long)(1 + h % (PRIME - 1));
    }
    return 0;
}

/* Integer types: the value goes through the unsigned type of the same width, whose conversion
 * is defined for every value, then is copied into the signed one. */
#define INT_TYPE(NAME, T, UT, SIGNED, FMT)                                                         \
    static void gen_##NAME(int op, uint64_t h, int r, void *out)                                   \
    {                                                                                              \
        UT u = (UT)int_value(op, h, r, (int)(8 * sizeof(T)), SIGNED);                              \
        memcpy(out, &u, sizeof u);                                                                 \
    }                                                                                              \
    static void apply_##NAME(int op, const void *in, void *io)                                     \
    {                                                                                              \
        T a, b, c = 0;                                                                             \
        memcpy(&a, in, sizeof a);                                                                  \
        memcpy(&b, io, sizeof b);                                                                  \
        switch (op) {                                                                              \
        case OP_MAX:                                                                               \
            c = a > b ? a : b;                                                                     \
            break;                                                                                 \
        case OP_MIN:                                                                               \
            c = a < b ? a : b;                                                                     \
            break;                                                                                 \
        case OP_SUM:                                                                               \
            c = (T)(a + b);                                                                        \
            break;                                                                                 \
        case OP_PROD:                                                                              \
            c = (T)(a * b);                                                                        \
            break;                                                                                 \
        case OP_LAND:                                                                              \
            c = a && b;                                                                            \
            break;                                                                                 \
        case OP_LOR:                                                                               \
            c = a || b;                                                                            \
            break;                                                                                 \
        case OP_LXOR:                                                                              \
            c = !a != !b;                                                                          \
            break;                                                                                 \
        case OP_BAND:                                                                              \
            c = a & b;                                                                             \
            break;                                                                                 \
        case OP_BOR:                                                                               \
            c = a | b;                                                                             \
            break;                                                                                 \
        case OP_BXOR:                                                                              \
            c = a ^ b;                                                                             \
            break;                                                                                 \
        case OP_MODMUL:                                                                            \
            c = (T)((long long)a * (long long)b % PRIME);                                          \
            break;                                                                                 \
        }                                                                                          \
        memcpy(io, &c, sizeof c);                                                                  \
    }                                                                                              \
    static int equal_##NAME(const void *a, const void *b)                                          \
    {                                                                                              \
        return memcmp(a, b, sizeof(T)) == 0;                                                       \
    }                                                                                              \
    static void show_##NAME(const void *a, char *s, size_t n)                                      \
    {                                                                                              \
        T v;                                                                                       \
        memcpy(&v, a, sizeof v);                                                                   \
        snprintf(s, n, FMT, v);                                                                    \
    }

INT_TYPE(int, int, unsigned, 1, "%d")
INT_TYPE(unsigned, unsigned, unsigned, 0, "%u")
INT_TYPE(llong, long long, unsigned long long, 1, "%lld")
INT_TYPE(byte, unsigned char, unsigned char, 0, "0x%02x")

#define REAL_TYPE(NAME, T)                                                                         \
    static void gen_##NAME(int op, uint64_t h, int r, void *out)                                   \
    {                                                                                              \
        T v = (T)int_value(op, h, r, 32, 1);                                                       \
        memcpy(out, &v, sizeof v);                                                                 \
    }                                                                                              \
    static void apply_##NAME(int op, const void *in, void *io)                                     \
    {                                                                                              \
        T a, b, c = 0;                                                                             \
        memcpy(&a, in, sizeof a);                                                                  \
        memcpy(&b, io, sizeof b);                                                                  \
        switch (op) {                                                                              \
        case OP_MAX:                                                                               \
            c = a > b ? a : b;                                                                     \
            break;                                                                                 \
        case OP_MIN:                                                                               \
            c = a < b ? a : b;                                                                     \
            break;                                                                                 \
        case OP_SUM:                                                                               \
            c = a + b;                                                                             \
            break;                                                                                 \
        case OP_PROD:                                                                              \
            c = a * b;                                                                             \
            break;                                                                                 \
        }                                                                                          \
        memcpy(io, &c, sizeof c);                                                                  \
    }                                                                                              \
    static int equal_##NAME(const void *a, const void *b)                                          \
    {                                                                                              \
        T x, y;                                                                                    \
        memcpy(&x, a, sizeof x);                                                                   \
        memcpy(&y, b, sizeof y);                                                                   \
        return x == y;                                                                             \
    }                                                                                              \
    static void show_##NAME(const void *a, char *s, size_t n)                                      \
    {                                                                                              \
        T v;                                                                                       \
        memcpy(&v, a, sizeof v);                                                                   \
        snprintf(s, n, "%g", (double)v);                                                           \
    }

REAL_TYPE(float, float)
REAL_TYPE(double, double)

/* C_BOOL: compared byte for byte, so a true stored as anything but 1 shows. */
static void gen_bool(int op, uint64_t h, int r, void *out)
{
    bool v = int_value(op, h, r, 8, 0) != 0;
    memcpy(out, &v, sizeof v);
}

static void apply_bool(int op, const void *in, void *io)
{
    bool a, b, c = false;
    memcpy(&a, in, sizeof a);
    memcpy(&b, io, sizeof b);
    if (op == OP_LAND)
        c = a && b;
    else if (op == OP_LOR)
        c = a || b;
    else if (op == OP_LXOR)
        c = a != b;
    memcpy(io, &c, sizeof c);
}

static int equal_bool(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(bool)) == 0;
}

static void show_bool(const void *a, char *s, size_t n)
{
    snprintf(s, n, "byte %u", *(const unsigned char *)a);
}

/* Complex numbers from {1, -1, i, -i, 1+i, 1} for products (exact Gaussian integers), small
 * integer parts for sums. */
static void gen_complex(int op, uint64_t h, int r, void *out)
{
    (void)r;
    double complex z;
    if (op == OP_SUM) {
        z = CMPLX((double)(h % 21) - 10, (double)((h >> 16) % 21) - 10);
    } else {
        static const double parts[6][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, 0}};
        z = CMPLX(parts[h % 6][0], parts[h % 6][1]);
    }
    memcpy(out, &z, sizeof z);
}

static void apply_complex(int op, const void *in, void *io)
{
    double complex a, b, c;
    memcpy(&a, in, sizeof a);
    memcpy(&b, io, sizeof b);
    c = op == OP_SUM ? a + b : a * b;
    memcpy(io, &c, sizeof c);
}

static int equal_complex(const void *a, const void *b)
{
    double complex x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return creal(x) == creal(y) && cimag(x) == cimag(y);
}

static void show_complex(const void *a, char *s, size_t n)
{
    double complex x;
    memcpy(&x, a, sizeof x);
    snprintf(s, n, "%g%+gi", creal(x), cimag(x));
}

/* Value/index pairs: values 0..3, so most of them tie; the index falls as the rank rises and
 * depends on the element too. */
static int pair_loc(uint64_t h, int r)
{
    return (cur_size - 1 - r) * 3 + (int)((h >> 20) % 3);
}

static void gen_double_int(int op, uint64_t h, int r, void *out)
{
    (void)op;
    struct double_int p = {(double)(h % 4), pair_loc(h, r)};
    memcpy(out, &p, sizeof p);
}

static void gen_int_int(int op, uint64_t h, int r, void *out)
{
    (void)op;
    struct int_int p = {(int)(h % 4), pair_loc(h, r)};
    memcpy(out, &p, sizeof p);
}

/* MAXLOC / MINLOC: the greater (smaller) value; on a tie, the smaller index. */
#define PAIR_APPLY(NAME, T)                                                                        \
    static void apply_##NAME(int op, const void *in, void *io)                                     \
    {                                                                                              \
        T a, b;                                                                                    \
        memcpy(&a, in, sizeof a);                                                                  \
        memcpy(&b, io, sizeof b);                                                                  \
        if (a.v == b.v) {                                                                          \
            if (a.loc < b.loc)                                                                     \
                b.loc = a.loc;                                                                     \
        } else if (op == OP_MAXLOC ? a.v > b.v : a.v < b.v) {                                      \
            b = a;                                                                                 \
        }                                                                                          \
        memcpy(io, &b, sizeof b);                                                                  \
    }                                                                                              \
    static int equal_##NAME(const void *x, const void *y)                                          \
    {                                                                                              \
        T a, b;                                                                                    \
        memcpy(&a, x, sizeof a);                                                                   \
        memcpy(&b, y, sizeof b);                                                                   \
        return a.v == b.v && a.loc == b.loc;                                                       \
    }                                                                                              \
    static void show_##NAME(const void *x, char *s, size_t n)                                      \
    {                                                                                              \
        T a;                                                                                       \
        memcpy(&a, x, sizeof a);                                                                   \
        snprintf(s, n, "(%g, %d)", (double)a.v, a.loc);                                            \
    }

PAIR_APPLY(double_int, struct double_int)
PAIR_APPLY(int_int, struct int_int)

/* c = a b modulo PRIME; c may be b. */
static void mat_mul(const struct mat *a, const struct mat *b, struct mat *c)
{
    long long r[4];
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++)
            r[2 * i + k] =
                ((long long)a->a[2 * i] * b->a[k] + (long long)a->a[2 * i + 1] * b->a[2 + k]) %
                PRIME;
    for (int i = 0; i < 4; i++)
        c->a[i] = (int)r[i];
}

static void gen_mat(int op, uint64_t h, int r, void *out)
{
    (void)op;
    (void)r;
    struct mat m;
    for (int i = 0; i < 4; i++)
        m.a[i] = (int)(mix(h + (uint64_t)i) % PRIME);
    memcpy(out, &m, sizeof m);
}

static void apply_mat(int op, const void *in, void *io)
{
    (void)op;
    struct mat a, b;
    memcpy(&a, in, sizeof a);
    memcpy(&b, io, sizeof b);
    mat_mul(&a, &b, &b);
    memcpy(io, &b, sizeof b);
}

static int equal_mat(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(struct mat)) == 0;
}

static void show_mat(const void *a, char *s, size_t n)
{
    struct mat m;
    memcpy(&m, a, sizeof m);
    snprintf(s, n, "[%d %d; %d %d]", m.a[0], m.a[1], m.a[2], m.a[3]);
}

/* The user operations handed to MPI_Op_create. */
static void modmul_fn(void *in, void *io, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const int *a = in;
    int *b = io;
    for (int k = 0; k < *len; k++)
        b[k] = (int)((long long)a[k] * b[k] % PRIME);
}

static void matmul_fn(void *in, void *io, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const struct mat *a = in;
    struct mat *b = io;
    for (int k = 0; k < *len; k++)
        mat_mul(&a[k], &b[k], &b[k]);
}

enum {
    T_INT,
    T_UNSIGNED,
    T_LLONG,
    T_FLOAT,
    T_DOUBLE,
    T_BOOL,
    T_BYTE,
    T_COMPLEX,
    T_DOUBLE_INT,
    T_2INT,
    T_MAT,
    NTYPES
};
static struct type types[NTYPES];

#define TYPE(NAME, DT, T, OPS)                                                                     \
    ((struct type){.name = #DT,                                                                    \
                   .dt = DT,                                                                       \
                   .size = sizeof(T),                                                              \
                   .ops = OPS,                                                                     \
                   .gen = gen_##NAME,                                                              \
                   .apply = apply_##NAME,                                                          \
                   .equal = equal_##NAME,                                                          \
                   .show = show_##NAME})

static void types_init(void)
{
    MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    types[T_INT] = TYPE(int, MPI_INT, int, ARITH | LOGICAL | BITWISE | BIT(OP_MODMUL));
    types[T_UNSIGNED] = TYPE(unsigned, MPI_UNSIGNED, unsigned, ARITH | LOGICAL | BITWISE);
    types[T_LLONG] = TYPE(llong, MPI_LONG_LONG, long long, ARITH | LOGICAL | BITWISE);
    types[T_FLOAT] = TYPE(float, MPI_FLOAT, float, ARITH);
    types[T_DOUBLE] = TYPE(double, MPI_DOUBLE, double, ARITH);
    types[T_BOOL] = TYPE(bool, MPI_C_BOOL, bool, LOGICAL);
    types[T_BYTE] = TYPE(byte, MPI_BYTE, unsigned char, BITWISE);
    types[T_COMPLEX] =
        TYPE(complex, MPI_C_DOUBLE_COMPLEX, double complex, BIT(OP_SUM) | BIT(OP_PROD));
    types[T_DOUBLE_INT] =
        TYPE(double_int, MPI_DOUBLE_INT, struct double_int, BIT(OP_MAXLOC) | BIT(OP_MINLOC));
    types[T_2INT] = TYPE(int_int, MPI_2INT, struct int_int, BIT(OP_MAXLOC) | BIT(OP_MINLOC));
    types[T_MAT] = TYPE(mat, mat, struct mat, BIT(OP_MATMUL));
    types[T_MAT].name = "2x2 int matrix";

    /* The C layouts assumed here must be MPI's. */
    for (int t = 0; t < NTYPES; t++) {
        MPI_Aint lb, extent;
        MPI_Type_get_extent(types[t].dt, &lb, &extent);
        if (lb != 0 || (size_t)extent != types[t].size) {
            fprintf(stderr, "coll_reduce: %s has extent %ld, the C type %zu\n", types[t].name,
                    (long)extent, types[t].size);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
}

static void ops_init(void)
{
    static const int predefined[] = {OP_MAX,  OP_MIN,  OP_SUM, OP_PROD, OP_LAND,   OP_LOR,
                                     OP_LXOR, OP_BAND, OP_BOR, OP_BXOR, OP_MAXLOC, OP_MINLOC};
    MPI_Op handles[] = {MPI_MAX,  MPI_MIN,  MPI_SUM, MPI_PROD, MPI_LAND,   MPI_LOR,
                        MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC};
    for (size_t k = 0; k < sizeof predefined / sizeof predefined[0]; k++)
        ops[predefined[k]] = handles[k];
    CHECK(MPI_Op_create(modmul_fn, 1, &ops[OP_MODMUL]) == MPI_SUCCESS, "MPI_Op_create");
    CHECK(MPI_Op_create(matmul_fn, 0, &ops[OP_MATMUL]) == MPI_SUCCESS, "MPI_Op_create");
}

enum coll { REDUCE, ALLREDUCE, REDUCE_SCATTER, REDUCE_SCATTER_BLOCK, SCAN, EXSCAN, NCOLLS };
static const char *const coll_name[NCOLLS] = {
    "reduce", "allreduce", "reduce_scatter", "reduce_scatter_block", "scan", "exscan",
};

struct job {
    enum coll coll;
    const struct type *t;
    int op, count, root, inplace;
    uint64_t seed;
    MPI_Comm comm;
    const char *cname;
    int rank, size;
    int *rcounts;   /* reduce_scatter */
    size_t nin;     /* input elements per rank */
    size_t first;   /* index of this rank's first result in the reduced vector */
    size_t nout;    /* results at this rank */
    size_t recvlen; /* elements of recv, guard not included */
    void *send, *recv;
    MPI_Request req;
};

#define GUARD 0xa5

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "coll_reduce: rank %d: out of memory\n", wrank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* Rank r's input element i of job j. */
static void input(const struct job *j, int r, size_t i, void *out)
{
    uint64_t h = mix(j->seed ^ ((uint64_t)(unsigned)r << 40) ^ (uint64_t)i);
    j->t->gen(j->op, h, r, out);
}

/* The reduction, in rank order, of element i of ranks 0 .. hi-1. */
static void reference(const struct job *j, int hi, size_t i, union elem *out)
{
    union elem tmp;
    input(j, 0, i, out);
    for (int r = 1; r < hi; r++) {
        input(j, r, i, &tmp);
        j->t->apply(j->op, out, &tmp);
        memcpy(out, &tmp, j->t->size);
    }
}

static const char *describe(const struct job *j, char *s, size_t n)
{
    snprintf(s, n, "%s %s on %s, count %d%s, on %s", coll_name[j->coll], op_name[j->op], j->t->name,
             j->count, j->inplace ? ", in place" : "", j->cname);
    if (j->coll == REDUCE) {
        size_t len = strlen(s);
        snprintf(s + len, n - len, ", root %d", j->root);
    }
    return s;
}

/* Compares element i of buf with want; reports the first difference of a job only. */
static int same(const struct job *j, const char *what, const void *buf, size_t i, const void *want)
{
    const void *got = (const char *)buf + i * j->t->size;
    if (j->t->equal(got, want))
        return 1;
    char d[160], g[64], w[64];
    j->t->show(got, g, sizeof g);
    j->t->show(want, w, sizeof w);
    CHECK(0, "%s: %s[%zu] is %s, expected %s", describe(j, d, sizeof d), what, i, g, w);
    return 0;
}

static void start(struct job *j)
{
    size_t es = j->t->size;
    int me = j->rank, n = j->size, c = j->count, rc = MPI_SUCCESS;
    MPI_Datatype dt = j->t->dt;
    MPI_Op op = ops[j->op];
    MPI_Comm comm = j->comm;
    MPI_Request *rq = &j->req;
    int has_recv = j->coll != REDUCE || me == j->root;

    j->req = MPI_REQUEST_NULL;
    j->rcounts = NULL;
    j->nin = (size_t)c;
    j->first = 0;
    j->nout = (size_t)c;
    if (j->coll == REDUCE_SCATTER) {
        j->rcounts = xmalloc((size_t)n * sizeof(int));
        j->nin = 0;
        for (int r = 0; r < n; r++) {
            j->rcounts[r] = r % 3 == 1 ? 0 : c + r % 2;
            if (r == me)
                j->first = j->nin;
            j->nin += (size_t)j->rcounts[r];
        }
        j->nout = (size_t)j->rcounts[me];
    } else if (j->coll == REDUCE_SCATTER_BLOCK) {
        j->nin = (size_t)c * (size_t)n;
        j->first = (size_t)c * (size_t)me;
    }
    if (!has_recv)
        j->nout = 0;

    /* In place, the input is in recv, and so recv must hold all of it. */
    int ip = j->inplace && has_recv;
    j->recvlen = ip && j->nin > j->nout ? j->nin : j->nout;
    j->send = NULL;
    j->recv = has_recv ? xmalloc((j->recvlen + 1) * es) : NULL;
    if (has_recv)
        memset(j->recv, GUARD, (j->recvlen + 1) * es);
    void *in = ip ? j->recv : (j->send = xmalloc(j->nin * es));
    for (size_t i = 0; i < j->nin; i++)
        input(j, me, i, (char *)in + i * es);
    void *sb = ip ? MPI_IN_PLACE : j->send;

    switch (j->coll) {
    case REDUCE:
        rc = nb ? MPI_Ireduce(sb, j->recv, c, dt, op, j->root, comm, rq)
                : MPI_Reduce(sb, j->recv, c, dt, op, j->root, comm);
        break;
    case ALLREDUCE:
        rc = nb ? MPI_Iallreduce(sb, j->recv, c, dt, op, comm, rq)
                : MPI_Allreduce(sb, j->recv, c, dt, op, comm);
        break;
    case REDUCE_SCATTER:
        rc = nb ? MPI_Ireduce_scatter(sb, j->recv, j->rcounts, dt, op, comm, rq)
                : MPI_Reduce_scatter(sb, j->recv, j->rcounts, dt, op, comm);
        break;
    case REDUCE_SCATTER_BLOCK:
        rc = nb ? MPI_Ireduce_scatter_block(sb, j->recv, c, dt, op, comm, rq)
                : MPI_Reduce_scatter_block(sb, j->recv, c, dt, op, comm);
        break;
    case SCAN:
        rc = nb ? MPI_Iscan(sb, j->recv, c, dt, op, comm, rq)
                : MPI_Scan(sb, j->recv, c, dt, op, comm);
        break;
    case EXSCAN:
        rc = nb ? MPI_Iexscan(sb, j->recv, c, dt, op, comm, rq)
                : MPI_Exscan(sb, j->recv, c, dt, op, comm);
        break;
    default:
        break;
    }
    char d[160];
    CHECK(rc == MPI_SUCCESS, "%s: returned %d", describe(j, d, sizeof d), rc);
    if (nb)
        CHECK(j->req != MPI_REQUEST_NULL, "%s: no request", describe(j, d, sizeof d));
}

static void check(struct job *j)
{
    size_t es = j->t->size;
    int me = j->rank;
    union elem want;

    if (j->send)
        for (size_t i = 0; i < j->nin; i++) {
            input(j, me, i, &want);
            if (!same(j, "sendbuf", j->send, i, &want))
                break;
        }
    /* Exscan leaves rank 0's recvbuf undefined. */
    int defined = !(j->coll == EXSCAN && me == 0);
    if (defined)
        for (size_t k = 0; k < j->nout; k++) {
            int hi = j->coll == SCAN ? me + 1 : j->coll == EXSCAN ? me : j->size;
            reference(j, hi, j->first + k, &want);
            if (!same(j, "recvbuf", j->recv, k, &want))
                break;
        }
    if (j->recv) {
        unsigned char guard[sizeof(union elem)];
        memset(guard, GUARD, es);
        char d[160];
        CHECK(memcmp((char *)j->recv + j->recvlen * es, guard, es) == 0,
              "%s: the element after recvbuf was written", describe(j, d, sizeof d));
    }
    free(j->send);
    free(j->recv);
    free(j->rcounts);
}

/* Runs a group of jobs. Blocking: one after the other. nb: in turn, each job waited for at once,
 * each completed by an MPI_Test loop, or all of them started, then completed by one MPI_Waitall. */
static void run(struct job *jobs, int njobs)
{
    static unsigned turn;
    MPI_Request reqs[32];

    if (!nb) {
        for (int k = 0; k < njobs; k++) {
            start(&jobs[k]);
            check(&jobs[k]);
        }
        return;
    }
    switch (turn++ % 3) {
    case 0:
        for (int k = 0; k < njobs; k++) {
            start(&jobs[k]);
            CHECK(MPI_Wait(&jobs[k].req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "MPI_Wait failed");
            CHECK(jobs[k].req == MPI_REQUEST_NULL, "MPI_Wait left the request");
            check(&jobs[k]);
        }
        break;
    case 1:
        for (int k = 0; k < njobs; k++) {
            int flag = 0;
            start(&jobs[k]);
            while (!flag)
                CHECK(MPI_Test(&jobs[k].req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS,
                      "MPI_Test failed");
            CHECK(jobs[k].req == MPI_REQUEST_NULL, "MPI_Test left the request");
            check(&jobs[k]);
        }
        break;
    default:
        for (int k = 0; k < njobs; k++) {
            start(&jobs[k]);
            reqs[k] = jobs[k].req;
        }
        CHECK(MPI_Waitall(njobs, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "MPI_Waitall failed");
        for (int k = 0; k < njobs; k++) {
            CHECK(reqs[k] == MPI_REQUEST_NULL, "MPI_Waitall left request %d", k);
            check(&jobs[k]);
        }
        break;
    }
}

static unsigned serial; /* jobs so far, the same on every rank: seeds and roots */

static struct job make_job(MPI_Comm comm, const char *cname, enum coll coll, int t, int op,
                           int count, int inplace)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    serial++;
    return (struct job){.coll = coll,
                        .t = &types[t],
                        .op = op,
                        .count = count,
                        .root = (int)(serial % (unsigned)n),
                        .inplace = inplace,
                        .seed = mix(serial),
                        .comm = comm,
                        .cname = cname,
                        .rank = me,
                        .size = n};
}

/* Every reduction with op on type t and count elements (per rank, or per block), not in place
 * and, if inplace, in place too. */
static void all_colls(MPI_Comm comm, const char *cname, int t, int op, int count, int inplace)
{
    struct job jobs[2 * NCOLLS];
    int njobs = 0;
    for (int ip = 0; ip <= inplace; ip++)
        for (int coll = 0; coll < NCOLLS; coll++)
            jobs[njobs++] = make_job(comm, cname, (enum coll)coll, t, op, count, ip);
    run(jobs, njobs);
}

/* The data of the non-commutative case must reveal the order: M0 M1 differs from M1 M0. */
static void order_is_revealed(void)
{
    struct job j = make_job(MPI_COMM_WORLD, "", ALLREDUCE, T_MAT, OP_MATMUL, 1, 0);
    int differ = 0;
    for (size_t i = 0; i < 13; i++) {
        struct mat a, b, ab, ba;
        input(&j, 0, i, &a);
        input(&j, 1, i, &b);
        mat_mul(&a, &b, &ab);
        mat_mul(&b, &a, &ba);
        differ += memcmp(&ab, &ba, sizeof ab) != 0;
    }
    CHECK(differ == 13, "only %d of 13 matrix pairs do not commute", differ);
}

/* MPI_Reduce_local: inout = in op inout, no communication; and MPI_Op_commutative. */
static void reduce_local(void)
{
    double in[13], io[13];
    for (int i = 0; i < 13; i++) {
        in[i] = i;
        io[i] = 100 * i;
    }
    CHECK(MPI_Reduce_local(in, io, 13, MPI_DOUBLE, MPI_SUM) == MPI_SUCCESS, "reduce_local");
    for (int i = 0; i < 13; i++)
        CHECK(io[i] == 101 * i, "reduce_local MPI_SUM: io[%d] is %g", i, io[i]);

    struct int_int a[4] = {{5, 9}, {5, 1}, {2, 0}, {7, 3}}, b[4] = {{5, 2}, {5, 4}, {3, 8}, {1, 0}};
    CHECK(MPI_Reduce_local(a, b, 4, MPI_2INT, MPI_MAXLOC) == MPI_SUCCESS, "reduce_local");
    static const struct int_int want[4] = {{5, 2}, {5, 1}, {3, 8}, {7, 3}};
    for (int i = 0; i < 4; i++)
        CHECK(b[i].v == want[i].v && b[i].loc == want[i].loc,
              "reduce_local MPI_MAXLOC: (%d, %d), expected (%d, %d)", b[i].v, b[i].loc, want[i].v,
              want[i].loc);

    /* in = [1 1; 0 1], io = [1 0; 1 1]: in io = [2 1; 1 1], io in would be [1 1; 1 2]. */
    struct mat m_in[2] = {{{1, 1, 0, 1}}, {{2, 0, 0, 3}}},
               m_io[2] = {{{1, 0, 1, 1}}, {{0, 1, 1, 0}}};
    CHECK(MPI_Reduce_local(m_in, m_io, 2, types[T_MAT].dt, ops[OP_MATMUL]) == MPI_SUCCESS,
          "reduce_local");
    static const struct mat m_want[2] = {{{2, 1, 1, 1}}, {{0, 2, 3, 0}}};
    for (int i = 0; i < 2; i++)
        CHECK(memcmp(&m_io[i], &m_want[i], sizeof m_want[i]) == 0,
              "reduce_local with the non-commutative op: [%d %d; %d %d]", m_io[i].a[0],
              m_io[i].a[1], m_io[i].a[2], m_io[i].a[3]);

    int x[3] = {2, PRIME - 1, 300}, y[3] = {3, PRIME - 1, 300};
    CHECK(MPI_Reduce_local(x, y, 3, MPI_INT, ops[OP_MODMUL]) == MPI_SUCCESS, "reduce_local");
    CHECK(y[0] == 6 && y[1] == 1 && y[2] == 90000 % PRIME && x[0] == 2,
          "reduce_local with the commutative op: %d %d %d", y[0], y[1], y[2]);

    int commute = -1;
    CHECK(MPI_Op_commutative(MPI_SUM, &commute) == MPI_SUCCESS && commute == 1,
          "MPI_SUM commutative: %d", commute);
    CHECK(MPI_Op_commutative(ops[OP_MODMUL], &commute) == MPI_SUCCESS && commute == 1,
          "user op commutative: %d", commute);
    CHECK(MPI_Op_commutative(ops[OP_MATMUL], &commute) == MPI_SUCCESS && commute == 0,
          "non-commutative user op: %d", commute);
}

int main(int argc, char **argv)
{
    int size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 2 || (argc == 2 && strcmp(argv[1], "nb") != 0)) {
        if (wrank == 0)
            fprintf(stderr, "usage: coll_reduce [nb]\n");
        MPI_Finalize();
        return 2;
    }
    nb = argc == 2;
    cur_size = size; /* MPI_COMM_WORLD, and the reversed communicator, of the same size */
    types_init();
    ops_init();
    order_is_revealed();
    reduce_local();

    /* Every type with every operation that applies to it: 1 element, then 13 elements, in place
     * too. */
    for (int t = 0; t < NTYPES; t++)
        for (int op = 0; op < NOPS; op++)
            if (types[t].ops & BIT(op)) {
                all_colls(MPI_COMM_WORLD, "MPI_COMM_WORLD", t, op, 1, 0);
                all_colls(MPI_COMM_WORLD, "MPI_COMM_WORLD", t, op, 13, 1);
            }

    /* Large counts for Reduce and Allreduce, in place and not. */
    static const struct {
        int t, op, count;
    } large[] = {
        {T_INT, OP_SUM, 65537},           {T_DOUBLE, OP_MAX, 32769}, {T_INT, OP_MODMUL, 65537},
        {T_DOUBLE_INT, OP_MINLOC, 21846}, {T_MAT, OP_MATMUL, 16385},
    };
    for (size_t k = 0; k < sizeof large / sizeof large[0]; k++) {
        struct job jobs[4];
        for (int ip = 0; ip < 2; ip++) {
            jobs[2 * ip] = make_job(MPI_COMM_WORLD, "MPI_COMM_WORLD", REDUCE, large[k].t,
                                    large[k].op, large[k].count, ip);
            jobs[2 * ip + 1] = make_job(MPI_COMM_WORLD, "MPI_COMM_WORLD", ALLREDUCE, large[k].t,
                                        large[k].op, large[k].count, ip);
        }
        run(jobs, 4);
    }

    /* In reverse order of world ranks: the order-revealing cases again. */
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - wrank, &rev);
    all_colls(rev, "MPI_COMM_WORLD reversed", T_MAT, OP_MATMUL, 1, 0);
    all_colls(rev, "MPI_COMM_WORLD reversed", T_MAT, OP_MATMUL, 13, 1);
    all_colls(rev, "MPI_COMM_WORLD reversed", T_2INT, OP_MINLOC, 13, 1);
    all_colls(rev, "MPI_COMM_WORLD reversed", T_INT, OP_MODMUL, 13, 0);
    MPI_Comm_free(&rev);

    /* The two halves of the world interleaved (0, h, 1, h + 1, ...): with the ranks placed in
     * blocks, neighbours in rank order run on different cores, so a fold by core would show in
     * the non-commutative product. */
    MPI_Comm mixed;
    int half = (size + 1) / 2;
    MPI_Comm_split(MPI_COMM_WORLD, 0, wrank < half ? 2 * wrank : 2 * (wrank - half) + 1, &mixed);
    all_colls(mixed, "MPI_COMM_WORLD interleaved", T_MAT, OP_MATMUL, 1, 0);
    all_colls(mixed, "MPI_COMM_WORLD interleaved", T_MAT, OP_MATMUL, 13, 1);
    MPI_Comm_free(&mixed);

    MPI_Datatype mat = types[T_MAT].dt;
    MPI_Type_free(&mat);
    for (int op = OP_MODMUL; op <= OP_MATMUL; op++) {
        MPI_Op_free(&ops[op]);
        CHECK(ops[op] == MPI_OP_NULL, "MPI_Op_free left the handle");
    }
    MPI_Finalize();
    if (errors)
        fprintf(stderr, "coll_reduce: rank %d: %d errors\n", wrank, errors);
    return errors ? 1 : 0;
}
