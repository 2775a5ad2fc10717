/* The datatype constructors' large-count forms (MPI-4.0): each _c constructor makes the typemap
 * its int form makes (same size, bounds and data on the wire around a ring of ranks), and
 * MPI_Type_get_envelope_c and MPI_Type_get_contents_c give back its arguments as MPI-4.0 section
 * 5.1.13 lists them: the counts and byte displacements among the large counts (as MPICH does),
 * while MPI_Type_get_envelope and _get_contents refuse such a type (MPI_ERR_TYPE) and still
 * describe the int forms' types. Beyond an int: a stride of 3e9 bytes, 3e9 elements, a type
 * whose size overflows (MPI_ERR_ARG, nothing made). A file view in external32 works with a
 * filetype of a _c constructor as with its int twin. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, errors;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "type_large_count: rank %d, line %d: %s\n", rank, __LINE__, #cond);    \
            errors++;                                                                              \
        }                                                                                          \
    } while (0)

static int error_class(int code)
{
    int class;
    MPI_Error_class(code, &class);
    return class;
}

/* What a type's envelope_c and contents_c say. */
typedef struct {
    int combiner;
    MPI_Count ni, na, nc, nd;
    int ints[16];
    MPI_Aint aints[16];
    MPI_Count counts[16];
    MPI_Datatype types[4];
} contents_t;

static contents_t contents_of(MPI_Datatype t)
{
    contents_t c;

    memset(&c, 0, sizeof c);
    CHECK(MPI_Type_get_envelope_c(t, &c.ni, &c.na, &c.nc, &c.nd, &c.combiner) == MPI_SUCCESS);
    CHECK(c.ni <= 16 && c.na <= 16 && c.nc <= 16 && c.nd <= 4);
    CHECK(MPI_Type_get_contents_c(t, 16, 16, 16, 4, c.ints, c.aints, c.counts, c.types) ==
          MPI_SUCCESS);
    for (int i = 0; i < c.nd && i < 4; i++) {
        int ni, na, nd, combiner;
        MPI_Type_get_envelope(c.types[i], &ni, &na, &nd, &combiner);
        if (combiner != MPI_COMBINER_NAMED)
            MPI_Type_free(&c.types[i]);
    }
    return c;
}

static int same_counts(const MPI_Count *got, const MPI_Count *want, int n)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i])
            return 0;
    return 1;
}

/* a _c type and its int twin: the same shape, the same bytes around the ring */
static void check_twins(MPI_Datatype large, MPI_Datatype plain, int line)
{
    MPI_Count size_l, size_p, lb_l, lb_p, ext_l, ext_p, tlb_l, tlb_p, text_l, text_p;
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    enum { N = 512 };
    int out[N], in_l[N], in_p[N];

    MPI_Type_commit(&large);
    MPI_Type_commit(&plain);
    MPI_Type_size_c(large, &size_l);
    MPI_Type_size_c(plain, &size_p);
    MPI_Type_get_extent_c(large, &lb_l, &ext_l);
    MPI_Type_get_extent_c(plain, &lb_p, &ext_p);
    MPI_Type_get_true_extent_c(large, &tlb_l, &text_l);
    MPI_Type_get_true_extent_c(plain, &tlb_p, &text_p);
    if (size_l != size_p || lb_l != lb_p || ext_l != ext_p || tlb_l != tlb_p || text_l != text_p) {
        fprintf(stderr, "type_large_count: rank %d, line %d: the _c type differs\n", rank, line);
        errors++;
    }
    CHECK(lb_l + ext_l <= (MPI_Count)sizeof out && tlb_l >= 0);
    for (int i = 0; i < N; i++)
        out[i] = rank * 1000 + i;
    memset(in_l, 0xff, sizeof in_l);
    memset(in_p, 0xff, sizeof in_p);
    CHECK(MPI_Sendrecv(out, 1, large, to, 1, in_l, 1, plain, from, 1, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Sendrecv(out, 1, plain, to, 2, in_p, 1, large, from, 2, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE) == MPI_SUCCESS);
    if (memcmp(in_l, in_p, sizeof in_l) != 0) {
        fprintf(stderr, "type_large_count: rank %d, line %d: the data differs\n", rank, line);
        errors++;
    }
    int touched = 0;
    for (int i = 0; i < N; i++)
        touched += in_l[i] == from * 1000 + i;
    CHECK(touched == (int)(size_l / (MPI_Count)sizeof(int)));
    MPI_Type_free(&large);
    MPI_Type_free(&plain);
}

/* The plain envelope and contents refuse a _c type, and name the call that can describe it. */
static void check_plain_refused(MPI_Datatype t)
{
    int ni = -1, na = -1, nd = -1, combiner = -1, ints[16];
    MPI_Aint aints[16];
    MPI_Datatype types[4];

    CHECK(error_class(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner)) == MPI_ERR_TYPE);
    CHECK(ni == -1 && combiner == -1);
    CHECK(error_class(MPI_Type_get_contents(t, 16, 16, 4, ints, aints, types)) == MPI_ERR_TYPE);
}

static void constructors(void)
{
    MPI_Datatype l, p;
    contents_t c;

    /* contiguous: nc 1 */
    MPI_Type_contiguous_c(7, MPI_INT, &l);
    c = contents_of(l);
    CHECK(c.combiner == MPI_COMBINER_CONTIGUOUS && c.ni == 0 && c.na == 0 && c.nc == 1 &&
          c.nd == 1 && c.counts[0] == 7 && c.types[0] == MPI_INT);
    check_plain_refused(l);
    MPI_Type_contiguous(7, MPI_INT, &p);
    c = contents_of(p); /* the int form's type through the _c calls: no large counts */
    CHECK(c.ni == 1 && c.nc == 0 && c.ints[0] == 7);
    check_twins(l, p, __LINE__);

    /* vector and hvector: nc 3 */
    MPI_Type_vector_c(3, 2, 5, MPI_INT, &l);
    c = contents_of(l);
    CHECK(c.combiner == MPI_COMBINER_VECTOR && c.ni == 0 && c.nc == 3 &&
          same_counts(c.counts, (MPI_Count[]){3, 2, 5}, 3));
    check_plain_refused(l);
    MPI_Type_vector(3, 2, 5, MPI_INT, &p);
    check_twins(l, p, __LINE__);
    MPI_Type_create_hvector_c(3, 2, 24, MPI_INT, &l);
    c = contents_of(l);
    CHECK(c.combiner == MPI_COMBINER_HVECTOR && c.ni == 0 && c.na == 0 && c.nc == 3 &&
          same_counts(c.counts, (MPI_Count[]){3, 2, 24}, 3));
    MPI_Type_create_hvector(3, 2, 24, MPI_INT, &p);
    c = contents_of(p);
    CHECK(c.ni == 2 && c.na == 1 && c.nc == 0 && c.aints[0] == 24);
    check_twins(l, p, __LINE__);

    /* indexed and hindexed: nc 2 count + 1 */
    MPI_Count bl[3] = {2, 3, 1}, ds[3] = {5, 40, 12}, bds[3] = {20, 160, 48};
    int ibl[3] = {2, 3, 1}, ids[3] = {5, 40, 12};
    MPI_Aint ads[3] = {20, 160, 48};
    MPI_Type_indexed_c(3, bl, ds, MPI_INT, &l);
    c = contents_of(l);
    CHECK(c.combiner == MPI_COMBINER_INDEXED && c.ni == 0 && c.nc == 7 &&
          same_counts(c.counts, (MPI_Count[]){3, 2, 3, 1, 5, 40, 12}, 7));
    check_plain_refused(l);
    MPI_Type_indexed(3, ibl, ids, MPI_INT, &p);
    check_twins(l, p, __LINE__);
    MPI_Type_create_hindexed_c(3, bl, bds, MPI_INT, &l);
    c = contents_of(l);
    CHECK(c.combiner == MPI_COMBINER_HINDEXED && c.ni == 0 && c.na == 0 && c.nc == 7 &&
          same_counts(c.counts, (MPI_Count[]){3, 2, 3, 1, 20, 160, 48}, 7));
    MPI_Type_create_hindexed(3, ibl, ads, MPI_INT, &p);
    check_twins(l, p, __LINE__);

    /* indexed_block and hindexed_block: nc count + 2 */
    MPI_Type_create_indexed_block_c(3, 4, ds, MPI_INT, &l);
    c = contents_of(l);
    CHECK(c.combiner == MPI_COMBINER_INDEXED_BLOCK && c.nc == 5 &&
          same_counts(c.counts, (MPI_Count[]){3, 4, 5, 40, 12}, 5));
    MPI_Type_create_indexed_block(3, 4, ids, MPI_INT, &p);
    check_twins(l, p, __LINE__);
    MPI_Type_create_hindexed_block_c(3, 4, bds, MPI_INT, &l);
    c = contents_of(l);
    CHECK(c.combiner == MPI_COMBINER_HINDEXED_BLOCK && c.nc == 5 && c.na == 0 &&
          same_counts(c.counts, (MPI_Count[]){3, 4, 20, 160, 48}, 5));
    check_plain_refused(l);
    MPI_Type_create_hindexed_block(3, 4, ads, MPI_INT, &p);
    check_twins(l, p, __LINE__);

    /* struct: nc 2 count + 1, the types as they are */
    MPI_Datatype pair;
    MPI_Count sbl[2] = {2, 3}, sds[2] = {4, 40};
    int isbl[2] = {2, 3};
    MPI_Aint isds[2] = {4, 40};
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Datatype stypes[2] = {MPI_INT, pair};
    MPI_Type_create_struct_c(2, sbl, sds, stypes, &l);
    c = contents_of(l);
    CHECK(c.combiner == MPI_COMBINER_STRUCT && c.ni == 0 && c.na == 0 && c.nc == 5 && c.nd == 2 &&
          same_counts(c.counts, (MPI_Count[]){2, 2, 3, 4, 40}, 5) && c.types[0] == MPI_INT);
    check_plain_refused(l);
    MPI_Type_create_struct(2, isbl, isds, stypes, &p);
    MPI_Type_free(&pair);
    check_twins(l, p, __LINE__);

    /* subarray: ints {ndims, order}, counts sizes, subsizes, starts */
    MPI_Count sz[2] = {10, 12}, sub[2] = {3, 4}, st[2] = {1, 2};
    int isz[2] = {10, 12}, isub[2] = {3, 4}, ist[2] = {1, 2};
    MPI_Type_create_subarray_c(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &l);
    c = contents_of(l);
    CHECK(c.combiner == MPI_COMBINER_SUBARRAY && c.ni == 2 && c.nc == 6 && c.ints[0] == 2 &&
          c.ints[1] == MPI_ORDER_C && same_counts(c.counts, (MPI_Count[]){10, 12, 3, 4, 1, 2}, 6));
    check_plain_refused(l);
    MPI_Type_create_subarray(2, isz, isub, ist, MPI_ORDER_C, MPI_INT, &p);
    check_twins(l, p, __LINE__);

    /* darray: ints {size, rank, ndims, distribs, dargs, psizes, order}, counts the gsizes */
    int distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[2] = {2, 2}, igs[2] = {10, 12};
    MPI_Count gs[2] = {10, 12};
    MPI_Type_create_darray_c(4, 1, 2, gs, distribs, dargs, psizes, MPI_ORDER_FORTRAN, MPI_INT, &l);
    c = contents_of(l);
    CHECK(c.combiner == MPI_COMBINER_DARRAY && c.ni == 10 && c.nc == 2 && c.ints[0] == 4 &&
          c.ints[1] == 1 && c.ints[2] == 2 && c.ints[3] == MPI_DISTRIBUTE_BLOCK && c.ints[6] == 2 &&
          c.ints[8] == 2 && c.ints[9] == MPI_ORDER_FORTRAN && same_counts(c.counts, gs, 2));
    check_plain_refused(l);
    MPI_Type_create_darray(4, 1, 2, igs, distribs, dargs, psizes, MPI_ORDER_FORTRAN, MPI_INT, &p);
    c = contents_of(p);
    CHECK(c.ni == 12 && c.nc == 0 && c.ints[3] == 10 && c.ints[4] == 12 &&
          c.ints[11] == MPI_ORDER_FORTRAN);
    check_twins(l, p, __LINE__);

    /* resized: nc 2 */
    MPI_Type_create_resized_c(MPI_INT, -4, 16, &l);
    c = contents_of(l);
    CHECK(c.combiner == MPI_COMBINER_RESIZED && c.na == 0 && c.nc == 2 && c.counts[0] == -4 &&
          c.counts[1] == 16);
    check_plain_refused(l);
    /* a duplicate has no counts of its own: the plain calls describe it (as in MPICH) */
    MPI_Type_dup(l, &p);
    int ni, na, nd, combiner;
    CHECK(MPI_Type_get_envelope(p, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
          combiner == MPI_COMBINER_DUP && ni == 0 && na == 0 && nd == 1);
    MPI_Type_free(&p);
    MPI_Type_free(&l);
}

/* Counts and displacements past an int. */
static void beyond_int(void)
{
    MPI_Datatype t;
    MPI_Count sz, lb, ext;

    CHECK(MPI_Type_contiguous_c(3000000000LL, MPI_CHAR, &t) == MPI_SUCCESS);
    MPI_Type_size_c(t, &sz);
    CHECK(sz == 3000000000LL);
    int size_int;
    MPI_Type_size(t, &size_int);
    CHECK(size_int == MPI_UNDEFINED);
    MPI_Type_free(&t);

    CHECK(MPI_Type_create_hvector_c(2, 1, 3000000000LL, MPI_INT, &t) == MPI_SUCCESS);
    MPI_Type_get_extent_c(t, &lb, &ext);
    CHECK(lb == 0 && ext == 3000000004LL);
    contents_t c = contents_of(t);
    CHECK(c.counts[2] == 3000000000LL);
    MPI_Type_free(&t);

    CHECK(MPI_Type_vector_c(2, 1, 1000000000LL, MPI_INT, &t) == MPI_SUCCESS);
    MPI_Type_get_extent_c(t, &lb, &ext);
    CHECK(ext == 4000000004LL);
    MPI_Type_free(&t);

    /* sizes that do not fit: refused, nothing made */
    t = MPI_DATATYPE_NULL;
    CHECK(error_class(MPI_Type_contiguous_c(4611686018427387904LL, MPI_INT, &t)) == MPI_ERR_ARG);
    CHECK(t == MPI_DATATYPE_NULL);
    CHECK(error_class(MPI_Type_vector_c(2, 1, 4611686018427387904LL, MPI_INT, &t)) == MPI_ERR_ARG);
    CHECK(error_class(MPI_Type_create_resized_c(MPI_INT, 9223372036854775807LL, 16, &t)) ==
          MPI_ERR_ARG);
    CHECK(error_class(MPI_Type_contiguous_c(-1, MPI_INT, &t)) == MPI_ERR_COUNT);
    MPI_Count neg[1] = {-2}, zero[1] = {0};
    CHECK(error_class(MPI_Type_indexed_c(1, neg, zero, MPI_INT, &t)) == MPI_ERR_ARG);
    CHECK(error_class(MPI_Type_indexed_c(1, NULL, zero, MPI_INT, &t)) == MPI_ERR_ARG);
    CHECK(t == MPI_DATATYPE_NULL);
    MPI_Count room;
    int ints[1];
    CHECK(MPI_Type_vector_c(3, 2, 5, MPI_INT, &t) == MPI_SUCCESS);
    CHECK(error_class(MPI_Type_get_contents_c(t, 0, 0, 2, 1, ints, NULL, &room, NULL)) ==
          MPI_ERR_ARG);
    MPI_Type_free(&t);
}

/* An external32 view (MPI_LONG: 4 bytes in the file) whose filetype is a _c type writes what
 * the int form's writes. */
static void external32_view(void)
{
    char path[256];
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    long data[6] = {1, -2, 3, -4, 5, -6};
    unsigned char bytes[2][64];

    for (int form = 0; form < 2; form++) {
        MPI_Datatype filetype;
        MPI_File fh;

        if (form == 0)
            MPI_Type_vector_c(3, 2, 3, MPI_LONG, &filetype);
        else
            MPI_Type_vector(3, 2, 3, MPI_LONG, &filetype);
        MPI_Type_commit(&filetype);
        snprintf(path, sizeof path, "%s/type_large_count.%d.%d.%d", dir, (int)getpid(), rank, form);
        CHECK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                            &fh) == MPI_SUCCESS);
        CHECK(MPI_File_set_view(fh, 0, MPI_LONG, filetype, "external32", MPI_INFO_NULL) ==
              MPI_SUCCESS);
        CHECK(MPI_File_write(fh, data, 6, MPI_LONG, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL) == MPI_SUCCESS);
        memset(bytes[form], 0, sizeof bytes[form]);
        CHECK(MPI_File_read_at(fh, 0, bytes[form], 32, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        MPI_File_close(&fh);
        MPI_File_delete(path, MPI_INFO_NULL);
        MPI_Type_free(&filetype);
    }
    CHECK(memcmp(bytes[0], bytes[1], 32) == 0);
    /* element 2 (3) is the third 4-byte slot past a hole of one: bytes 12..15, big-endian */
    CHECK(bytes[0][12] == 0 && bytes[0][15] == 3);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    constructors();
    beyond_int();
    external32_view();
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("type_large_count: %s (%d ranks)\n", all ? "FAILED" : "ok", size);
    MPI_Finalize();
    return all != 0;
}
