/* Long regular datatypes, whose description does not grow with their count (a vector is one
 * period and a repetition), against the same typemaps spelled out element by element
 * (MPI_Type_create_hindexed_block of every double, which is flattened whole):
 *   - sizes, bounds and true bounds;
 *   - MPI_Pack and MPI_Unpack, and MPI_Pack_external in "external32", byte for byte;
 *   - messages each way between the two spellings (ring neighbours), and a message that ends
 *     inside an element (MPI_Get_elements, the bytes that arrived, nothing past them);
 *   - MPI_Allreduce (MPI_SUM) on two elements;
 *   - file views: written through one spelling, read through the other, the file's bytes by
 *     POSIX, a read from inside a period and the end of the file in etypes;
 *   - a vector of INT_MAX / 2 ints and a contiguous run of it: built, sized, freed; an indexed
 *     type of two of it, which would flatten into a billion runs, refused (MPI_ERR_OTHER).
 * The typemaps: a vector of 4100 blocks; a contiguous run of 3 of it; a negative-stride hvector
 * of it (2 levels); five nested hvectors (more levels than a type keeps); and a resized vector
 * whose elements leave a gap.
 * Usage: type_repeat */
#define FILE_TEST "type_repeat"
#include <limits.h>

#include "file_test.h"

/* A typemap of doubles spelled out: the displacement of each, in typemap order. */
typedef struct layout {
    MPI_Aint *disp;
    size_t n;
    MPI_Aint lb, extent;
} layout_t;

/* count blocks of blocklen copies of c, stride bytes apart (the typemap of an hvector). */
static layout_t hvector_of(size_t count, size_t blocklen, MPI_Aint stride, const layout_t *c)
{
    layout_t l = {malloc(count * blocklen * c->n * sizeof(MPI_Aint)), 0, 0, 0};
    MPI_Aint lo = 0, hi = 0;

    for (size_t j = 0; j < count; j++)
        for (size_t k = 0; k < blocklen; k++) {
            MPI_Aint at = (MPI_Aint)j * stride + (MPI_Aint)k * c->extent;

            for (size_t i = 0; i < c->n; i++)
                l.disp[l.n++] = at + c->disp[i];
            if ((j == 0 && k == 0) || at + c->lb < lo)
                lo = at + c->lb;
            if ((j == 0 && k == 0) || at + c->lb + c->extent > hi)
                hi = at + c->lb + c->extent;
        }
    l.lb = lo;
    l.extent = hi - lo;
    return l;
}

static const layout_t one_double = {(MPI_Aint[]){0}, 1, 0, 8};

/* The spelled-out type of a layout, with its bounds. */
static MPI_Datatype spelled(const layout_t *l)
{
    MPI_Datatype h, r;

    MUST(MPI_Type_create_hindexed_block((int)l->n, 1, l->disp, MPI_DOUBLE, &h));
    MUST(MPI_Type_create_resized(h, l->lb, l->extent, &r));
    MUST(MPI_Type_commit(&r));
    MPI_Type_free(&h);
    return r;
}

/* A buffer for 2 elements of a layout: the memory, and the address of the elements' origin. */
typedef struct buffer {
    double *mem;
    char *origin;
    size_t n; /* doubles */
} buffer_t;

static MPI_Aint true_lo(const layout_t *l)
{
    MPI_Aint lo = l->disp[0];
    for (size_t i = 1; i < l->n; i++)
        lo = l->disp[i] < lo ? l->disp[i] : lo;
    return lo;
}

static MPI_Aint true_hi(const layout_t *l)
{
    MPI_Aint hi = l->disp[0];
    for (size_t i = 1; i < l->n; i++)
        hi = l->disp[i] > hi ? l->disp[i] : hi;
    return hi + 8;
}

/* Zeroed, or holding value(owner, index of the double) in every double. */
static buffer_t buffer(const layout_t *l, int owner)
{
    MPI_Aint lo = true_lo(l), hi = l->extent + true_hi(l);
    buffer_t b;

    b.n = (size_t)(hi - lo) / 8;
    b.mem = calloc(b.n, 8);
    b.origin = (char *)b.mem - lo;
    if (owner >= 0)
        for (size_t i = 0; i < b.n; i++)
            b.mem[i] = owner * 1e7 + (double)i;
    return b;
}

/* Where double i of 2 elements of the layout is, as an index into the buffer's memory. */
static size_t at(const layout_t *l, const buffer_t *b, size_t i)
{
    MPI_Aint d = (MPI_Aint)(i / l->n) * l->extent + l->disp[i % l->n];
    return (size_t)((b->origin + d - (char *)b->mem) / 8);
}

static void check_pair(const char *name, MPI_Datatype t, const layout_t *l, int monotone)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Datatype r = spelled(l);
    MPI_Count sz, lb, extent, tlb, textent;
    size_t n2 = 2 * l->n, bytes = n2 * 8;
    buffer_t src = buffer(l, rank);

    MUST(MPI_Type_commit(&t));
    MUST(MPI_Type_size_x(t, &sz));
    MUST(MPI_Type_get_extent_x(t, &lb, &extent));
    MUST(MPI_Type_get_true_extent_x(t, &tlb, &textent));
    if (sz != (MPI_Count)l->n * 8 || lb != l->lb || extent != l->extent || tlb != true_lo(l) ||
        textent != true_hi(l) - true_lo(l)) {
        fprintf(stderr, "type_repeat: %s: size %lld lb %lld extent %lld true %lld %lld\n", name, sz,
                lb, extent, tlb, textent);
        errors++;
    }

    /* pack, unpack, external32 */
    char *pt = malloc(bytes), *pr = malloc(bytes), *et = malloc(bytes), *er = malloc(bytes);
    int pos = 0;
    MUST(MPI_Pack(src.origin, 2, t, pt, (int)bytes, &pos, MPI_COMM_SELF));
    CHECK(pos == (int)bytes);
    pos = 0;
    MUST(MPI_Pack(src.origin, 2, r, pr, (int)bytes, &pos, MPI_COMM_SELF));
    SAME(pt, pr, bytes);
    for (size_t i = 0; i < n2; i += 997)
        CHECK(((double *)pt)[i] == src.mem[at(l, &src, i)]);
    buffer_t ut = buffer(l, -1), ur = buffer(l, -1);
    pos = 0;
    MUST(MPI_Unpack(pt, (int)bytes, &pos, ut.origin, 2, t, MPI_COMM_SELF));
    pos = 0;
    MUST(MPI_Unpack(pt, (int)bytes, &pos, ur.origin, 2, r, MPI_COMM_SELF));
    SAME(ut.mem, ur.mem, ut.n * 8);
    MPI_Aint epos = 0, esize = 0;
    MUST(MPI_Pack_external_size("external32", 2, t, &esize));
    CHECK(esize == (MPI_Aint)bytes);
    MUST(MPI_Pack_external("external32", src.origin, 2, t, et, (MPI_Aint)bytes, &epos));
    epos = 0;
    MUST(MPI_Pack_external("external32", src.origin, 2, r, er, (MPI_Aint)bytes, &epos));
    SAME(et, er, bytes);

    /* messages: t to r, r to t; want: what prev's buffer gives */
    buffer_t want = buffer(l, prev), got = buffer(l, -1), cut = buffer(l, -1);
    memset(want.mem, 0, want.n * 8);
    {
        buffer_t p = buffer(l, prev);
        for (size_t i = 0; i < n2; i++)
            want.mem[at(l, &want, i)] = p.mem[at(l, &p, i)];
        free(p.mem);
    }
    MUST(MPI_Sendrecv(src.origin, 2, t, next, 1, got.origin, 2, r, prev, 1, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE));
    SAME(got.mem, want.mem, got.n * 8);
    memset(got.mem, 0, got.n * 8);
    MUST(MPI_Sendrecv(src.origin, 2, r, next, 2, got.origin, 2, t, prev, 2, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE));
    SAME(got.mem, want.mem, got.n * 8);

    /* a message that ends inside the second element */
    size_t part = l->n + l->n / 3 + 1;
    MPI_Status st;
    int count, elements;
    MUST(MPI_Sendrecv(pt, (int)part, MPI_DOUBLE, next, 3, cut.origin, 2, t, prev, 3, MPI_COMM_WORLD,
                      &st));
    MUST(MPI_Get_elements(&st, t, &elements));
    MUST(MPI_Get_count(&st, t, &count));
    CHECK(elements == (int)part);
    CHECK(count == MPI_UNDEFINED);
    for (size_t i = 0; i < part; i++)
        if (cut.mem[at(l, &cut, i)] != want.mem[at(l, &want, i)]) {
            fprintf(stderr, "type_repeat: %s: rank %d: cut message, double %zu\n", name, rank, i);
            errors++;
            break;
        }
    for (size_t i = part; i < n2; i++)
        if (cut.mem[at(l, &cut, i)] != 0) {
            fprintf(stderr, "type_repeat: %s: rank %d: double %zu written past the message\n", name,
                    rank, i);
            errors++;
            break;
        }

    /* reduction */
    buffer_t sum = buffer(l, -1);
    MUST(MPI_Allreduce(src.origin, sum.origin, 2, t, MPI_SUM, MPI_COMM_WORLD));
    for (size_t i = 0; i < n2; i++) {
        size_t k = at(l, &sum, i);
        if (sum.mem[k] != 1e7 * size * (size - 1) / 2 + (double)size * (double)k) {
            fprintf(stderr, "type_repeat: %s: rank %d: sum of double %zu is %g\n", name, rank, i,
                    sum.mem[k]);
            errors++;
            break;
        }
    }

    /* a file view of each spelling, on the rank's own file */
    if (monotone) {
        char p[PATHLEN + 32], fname[64];
        MPI_File fh;
        MPI_Offset end;
        double *back = calloc(n2, 8), *file = malloc(bytes);
        snprintf(fname, sizeof fname, "%s.%d", name, rank);
        path(p, fname);
        MUST(MPI_File_open(MPI_COMM_SELF, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
        MUST(MPI_File_set_view(fh, 0, MPI_DOUBLE, t, "native", MPI_INFO_NULL));
        MUST(MPI_File_write(fh, pt, (int)n2, MPI_DOUBLE, MPI_STATUS_IGNORE));
        MUST(MPI_File_seek(fh, 0, MPI_SEEK_END));
        MUST(MPI_File_get_position(fh, &end));
        CHECK(end == (MPI_Offset)n2);
        MUST(MPI_File_read_at(fh, (MPI_Offset)(l->n / 2 + 7), back, 100, MPI_DOUBLE,
                              MPI_STATUS_IGNORE));
        SAME(back, (double *)pt + l->n / 2 + 7, 100 * 8);
        MUST(MPI_File_set_view(fh, 0, MPI_DOUBLE, r, "native", MPI_INFO_NULL));
        MUST(MPI_File_read_at(fh, 0, back, (int)n2, MPI_DOUBLE, MPI_STATUS_IGNORE));
        SAME(back, pt, bytes);
        MUST(MPI_File_close(&fh));
        for (size_t i = 0; i < n2; i += 331) {
            MPI_Aint d = (MPI_Aint)(i / l->n) * l->extent + l->disp[i % l->n];
            CHECK(posix_read(p, (long)d, file, 8) == 8 && file[0] == ((double *)pt)[i]);
        }
        MUST(MPI_File_delete(p, MPI_INFO_NULL));
        free(back);
        free(file);
    }

    free(pt), free(pr), free(et), free(er);
    free(src.mem), free(ut.mem), free(ur.mem), free(want.mem), free(got.mem), free(cut.mem);
    free(sum.mem);
    MPI_Type_free(&r);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    MPI_Datatype a, b, c, h[5], e, v, big, big3;
    MPI_Count sz, lb, extent;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_dir();

    /* a: vector(4100, 3, 5) of doubles */
    layout_t la = hvector_of(4100, 3, 40, &one_double);
    MUST(MPI_Type_vector(4100, 3, 5, MPI_DOUBLE, &a));
    MUST(MPI_Type_dup(a, &v)); /* kept for the others: check_pair frees what it is given */
    check_pair("vector", a, &la, 1);

    /* b: contiguous(3, a) */
    layout_t lb3 = hvector_of(1, 3, 0, &la);
    MUST(MPI_Type_contiguous(3, v, &b));
    check_pair("contiguous", b, &lb3, 1);

    /* c: hvector(3, 2, -(2 extents + 16), a) */
    MPI_Aint back = -(2 * la.extent + 16);
    layout_t lc = hvector_of(3, 2, back, &la);
    MUST(MPI_Type_create_hvector(3, 2, back, v, &c));
    check_pair("hvector-negative", c, &lc, 0);

    /* h: five nested hvectors of vector(4100, 1, 2) */
    layout_t lh[5];
    lh[0] = hvector_of(4100, 1, 16, &one_double);
    MUST(MPI_Type_vector(4100, 1, 2, MPI_DOUBLE, &h[0]));
    for (int i = 1; i < 5; i++) {
        lh[i] = hvector_of(2, 1, lh[i - 1].extent + 8, &lh[i - 1]);
        MUST(MPI_Type_create_hvector(2, 1, lh[i - 1].extent + 8, h[i - 1], &h[i]));
    }
    MPI_Datatype h4;
    MUST(MPI_Type_dup(h[4], &h4));
    check_pair("nested", h4, &lh[4], 1);

    /* e: a resized to leave 64 bytes between elements */
    layout_t le = la;
    le.extent += 64;
    MUST(MPI_Type_create_resized(v, 0, le.extent, &e));
    check_pair("resized", e, &le, 1);

    /* a vector of INT_MAX / 2 ints, and 3 of it */
    MUST(MPI_Type_vector(INT_MAX / 2, 1, 2, MPI_INT, &big));
    MUST(MPI_Type_commit(&big));
    MUST(MPI_Type_size_x(big, &sz));
    MUST(MPI_Type_get_extent_x(big, &lb, &extent));
    CHECK(sz == (MPI_Count)(INT_MAX / 2) * 4);
    CHECK(lb == 0 && extent == (MPI_Count)(INT_MAX / 2 - 1) * 8 + 4);
    int isz;
    MUST(MPI_Type_size(big, &isz));
    CHECK(isz == MPI_UNDEFINED);
    MUST(MPI_Type_contiguous(3, big, &big3));
    MUST(MPI_Type_commit(&big3));
    MUST(MPI_Type_size_x(big3, &sz));
    CHECK(sz == (MPI_Count)(INT_MAX / 2) * 12);
    MPI_Type_free(&big3);
    /* two of it side by side cannot keep levels: refused, not flattened until memory runs out */
    MPI_Datatype pair = MPI_DATATYPE_NULL;
    MPI_Aint two[2] = {0, (MPI_Aint)extent + 4};
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rc = MPI_Type_create_hindexed_block(2, 1, two, big, &pair), cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER || cls == MPI_ERR_NO_MEM);
    if (rc == MPI_SUCCESS)
        MPI_Type_free(&pair);
    MPI_Type_free(&big);

    for (int i = 0; i < 5; i++) {
        MPI_Type_free(&h[i]);
        free(lh[i].disp);
    }
    MPI_Type_free(&v);
    free(la.disp), free(lb3.disp), free(lc.disp);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && rmdir(dir) != 0) {
        fprintf(stderr, "type_repeat: rmdir %s: %s\n", dir, strerror(errno));
        errors++;
    }
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("type_repeat: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
