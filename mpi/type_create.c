/*
 * Datatype constructors (contiguous ... create_resized, dup, create_subarray, create_darray,
 * MPI-1's hvector, hindexed and struct, and the Fortran 90 kinds' create_f90_integer, _real and
 * _complex), MPI_Type_commit and MPI_Type_free.
 * Each constructor turns its arguments into pieces (blocklen copies of a type at a byte
 * displacement), which tm_mpi_type_build flattens, and keeps its arguments for
 * MPI_Type_get_contents. The large-count (_c) forms of MPI-4.0 share each constructor's code,
 * the int forms widening their arrays to MPI_Count; only what is kept differs.
 */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "obj/datatype.h"

/* A constructor's arguments, kept for MPI_Type_get_contents(_c). */
typedef struct tm_mpi_type_args {
    int ni, na;
    size_t nc;
    int nd;
    const int *ints;
    const MPI_Aint *aints;
    const MPI_Count *counts;
    tm_mpi_type_t *const *types;
} tm_mpi_type_args_t;

/* Copies n items of `size` bytes to a new array at *out (NULL when n is 0). 0 or -ENOMEM. */
static int tm_mpi_type_keep(const void *v, size_t n, size_t size, void *out)
{
    void *copy = NULL;

    if (n > 0) {
        if ((copy = malloc(n * size)) == NULL)
            return -ENOMEM;
        memcpy(copy, v, n * size);
    }
    *(void **)out = copy;
    return 0;
}

/* Makes the new type from `pieces` (which it frees), records `args` and publishes it. Reports
 * the errors it meets; returns the MPI error class. */
static int tm_mpi_type_make(tm_mpi_rank_t *r, const char *call, int combiner,
                            tm_mpi_type_piece_t *pieces, size_t npieces, int pad,
                            const tm_mpi_type_args_t *args, MPI_Datatype *newtype)
{
    tm_mpi_type_t *t = tm_mpi_type_alloc(combiner);
    int err;

    if (t == NULL)
        goto fail_alloc;
    if (tm_mpi_type_keep(args->ints, args->ni, sizeof(int), &t->ints) != 0 ||
        tm_mpi_type_keep(args->aints, args->na, sizeof(MPI_Aint), &t->aints) != 0 ||
        tm_mpi_type_keep(args->counts, args->nc, sizeof(MPI_Count), &t->counts) != 0 ||
        (args->nd && (t->types = malloc(args->nd * sizeof(tm_mpi_type_t *))) == NULL))
        goto fail_type;
    for (int i = 0; i < args->nd; i++) {
        t->types[i] = args->types[i];
        tm_mpi_type_retain(t->types[i]);
        t->nd = i + 1;
    }
    t->ni = args->ni;
    t->na = args->na;
    t->nc = args->nc;
    if ((err = tm_mpi_type_build(t, pieces, npieces, pad)) != 0) {
        if (err != -EOVERFLOW)
            goto fail_type;
        tm_mpi_type_release(t);
        free(pieces);
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "the new type's size or bounds do not fit in an MPI_Aint");
    }
    if (tm_mpi_type_publish(t, newtype) != 0)
        goto fail_type;
    free(pieces);
    return MPI_SUCCESS;
fail_type:
    tm_mpi_type_release(t);
fail_alloc:
    free(pieces);
    return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_OTHER, "out of memory");
}

static tm_mpi_type_piece_t *tm_mpi_type_pieces(MPI_Count n)
{
    if ((uint64_t)n > SIZE_MAX / sizeof(tm_mpi_type_piece_t))
        return NULL;
    return malloc((n ? (size_t)n : 1) * sizeof(tm_mpi_type_piece_t));
}

#define TM_MPI_TYPE_NOMEM() tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_OTHER, "out of memory")

/* The error class to report for `code`, which an attribute callback returned: itself when it is
 * an error class, else MPI_ERR_OTHER. */
static int tm_mpi_type_callback_class(int code)
{
    return code > 0 && tm_mpi_error_class_name(code) != NULL ? code : MPI_ERR_OTHER;
}

/* The int forms of the constructors widen their arrays to MPI_Count and share the large-count
 * forms' code: *out gets the n values of `ints`, or of `aints` when that is NULL (*out NULL when
 * both are). 0 or -ENOMEM. */
static int tm_mpi_type_widen(const int *ints, const MPI_Aint *aints, int n, MPI_Count **out)
{
    *out = NULL;
    if ((ints == NULL && aints == NULL) || n <= 0)
        return 0;
    if ((*out = malloc((size_t)n * sizeof(MPI_Count))) == NULL)
        return -ENOMEM;
    for (int i = 0; i < n; i++)
        (*out)[i] = ints ? ints[i] : aints[i];
    return 0;
}

/* The checks every constructor starts with. */
static int tm_mpi_type_check(tm_mpi_rank_t *r, const char *call, MPI_Count count,
                             const void *newtype)
{
    if (count < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_COUNT, "count %lld is negative",
                                  count);
    if (newtype == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "newtype is NULL");
    return MPI_SUCCESS;
}

static int tm_mpi_type_check_array(tm_mpi_rank_t *r, const char *call, MPI_Count count,
                                   const void *array, const char *name)
{
    if (count > 0 && array == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "%s is NULL", name);
    return MPI_SUCCESS;
}

static int tm_mpi_type_check_blocklen(tm_mpi_rank_t *r, const char *call, MPI_Count blocklen,
                                      MPI_Count i)
{
    if (blocklen >= 0)
        return MPI_SUCCESS;
    if (i < 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "blocklength %lld is negative",
                                  blocklen);
    return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                              "array_of_blocklengths[%lld] = %lld is negative", i, blocklen);
}

/* *disp = n elements of `extent` bytes, in bytes; reports an overflow. */
static int tm_mpi_type_elements_at(tm_mpi_rank_t *r, const char *call, MPI_Count n, MPI_Aint extent,
                                   MPI_Aint *disp)
{
    if (!__builtin_mul_overflow(n, extent, disp))
        return MPI_SUCCESS;
    return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                              "displacement %lld x extent %ld does not fit in an MPI_Aint", n,
                              (long)extent);
}

/* contiguous(_c) */
static int tm_mpi_type_contiguous(const char *call, MPI_Count count, bool large,
                                  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *old;
    tm_mpi_type_piece_t *p;
    int icount = (int)count;
    int err;

    if ((err = tm_mpi_type_check(r, call, count, newtype)) != MPI_SUCCESS ||
        (err = tm_mpi_type_get(r, NULL, oldtype, 0, call, &old)) != MPI_SUCCESS)
        return err;
    if ((p = tm_mpi_type_pieces(1)) == NULL)
        return TM_MPI_TYPE_NOMEM();
    p[0] = (tm_mpi_type_piece_t){old, (size_t)count, 0, 1, 0};
    return tm_mpi_type_make(
        r, call, MPI_COMBINER_CONTIGUOUS, p, 1, 0,
        large ? &(tm_mpi_type_args_t){.nc = 1, .counts = &count, .nd = 1, .types = &old}
              : &(tm_mpi_type_args_t){.ni = 1, .ints = &icount, .nd = 1, .types = &old},
        newtype);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return tm_mpi_type_contiguous("MPI_Type_contiguous", count, false, oldtype, newtype);
}
#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return tm_mpi_type_contiguous("MPI_Type_contiguous_c", count, true, oldtype, newtype);
}
#pragma weak MPI_Type_contiguous_c = PMPI_Type_contiguous_c

/* vector and hvector, and their _c forms: the stride in old's extents (vector) or bytes. */
static int tm_mpi_type_vector(const char *call, int combiner, MPI_Count count,
                              MPI_Count blocklength, MPI_Count stride, bool large,
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    TM_MPI_RANK(r, call);
    bool h = combiner == MPI_COMBINER_HVECTOR;
    MPI_Count counts[3] = {count, blocklength, stride};
    int ints[3] = {(int)count, (int)blocklength, (int)stride};
    MPI_Aint aint = (MPI_Aint)stride, stride_bytes = (MPI_Aint)stride;
    tm_mpi_type_t *old;
    tm_mpi_type_piece_t *p;
    int err;

    if ((err = tm_mpi_type_check(r, call, count, newtype)) != MPI_SUCCESS ||
        (err = tm_mpi_type_check_blocklen(r, call, blocklength, -1)) != MPI_SUCCESS ||
        (err = tm_mpi_type_get(r, NULL, oldtype, 0, call, &old)) != MPI_SUCCESS)
        return err;
    if (!h &&
        (err = tm_mpi_type_elements_at(r, call, stride, old->extent, &stride_bytes)) != MPI_SUCCESS)
        return err;
    if (count > 1 && (err = tm_mpi_type_elements_at(r, call, count - 1, stride_bytes,
                                                    &(MPI_Aint){0})) != MPI_SUCCESS)
        return err;
    /* one piece repeated count times: the type's description does not grow with its count */
    if ((p = tm_mpi_type_pieces(1)) == NULL)
        return TM_MPI_TYPE_NOMEM();
    p[0] = (tm_mpi_type_piece_t){old, (size_t)blocklength, 0, (size_t)count, stride_bytes};
    return tm_mpi_type_make(
        r, call, combiner, p, 1, 0,
        large ? &(tm_mpi_type_args_t){.nc = 3, .counts = counts, .nd = 1, .types = &old}
              : &(tm_mpi_type_args_t){.ni = h ? 2 : 3,
                                      .ints = ints,
                                      .na = h,
                                      .aints = &aint,
                                      .nd = 1,
                                      .types = &old},
        newtype);
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    return tm_mpi_type_vector("MPI_Type_vector", MPI_COMBINER_VECTOR, count, blocklength, stride,
                              false, oldtype, newtype);
}
#pragma weak MPI_Type_vector = PMPI_Type_vector

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return tm_mpi_type_vector("MPI_Type_vector_c", MPI_COMBINER_VECTOR, count, blocklength, stride,
                              true, oldtype, newtype);
}
#pragma weak MPI_Type_vector_c = PMPI_Type_vector_c

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    return tm_mpi_type_vector("MPI_Type_create_hvector", MPI_COMBINER_HVECTOR, count, blocklength,
                              stride, false, oldtype, newtype);
}
#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return tm_mpi_type_vector("MPI_Type_create_hvector_c", MPI_COMBINER_HVECTOR, count, blocklength,
                              stride, true, oldtype, newtype);
}
#pragma weak MPI_Type_create_hvector_c = PMPI_Type_create_hvector_c

/* indexed, hindexed, indexed_block, hindexed_block, and their _c forms: blocklens (or one
 * blocklen when blocklens is NULL), displacements in old's extents or, for the h forms, bytes.
 * The arguments kept are count, the block lengths and the displacements, all as counts for a
 * _c form; otherwise as ints, but for the byte displacements (addresses). */
static int tm_mpi_type_indexed(const char *call, int combiner, MPI_Count count,
                               const MPI_Count *blocklens, MPI_Count blocklen,
                               const MPI_Count *disps, bool large, MPI_Datatype oldtype,
                               MPI_Datatype *newtype)
{
    TM_MPI_RANK(r, call);
    bool h = combiner == MPI_COMBINER_HINDEXED || combiner == MPI_COMBINER_HINDEXED_BLOCK;
    bool one = combiner == MPI_COMBINER_INDEXED_BLOCK || combiner == MPI_COMBINER_HINDEXED_BLOCK;
    size_t nbl = one ? 1 : (size_t)count, nargs = 1 + nbl + (size_t)count;
    tm_mpi_type_args_t args = {.nd = 1};
    tm_mpi_type_t *old;
    tm_mpi_type_piece_t *p;
    MPI_Count *counts = NULL;
    MPI_Aint *aints = NULL;
    int *ints = NULL;
    int err;

    if ((err = tm_mpi_type_check(r, call, count, newtype)) != MPI_SUCCESS ||
        (one ? (err = tm_mpi_type_check_blocklen(r, call, blocklen, -1))
             : (err = tm_mpi_type_check_array(r, call, count, blocklens,
                                              "array_of_blocklengths"))) != MPI_SUCCESS ||
        (err = tm_mpi_type_check_array(r, call, count, disps, "array_of_displacements")) !=
            MPI_SUCCESS)
        return err;
    for (MPI_Count i = 0; !one && i < count; i++)
        if ((err = tm_mpi_type_check_blocklen(r, call, blocklens[i], i)) != MPI_SUCCESS)
            return err;
    if ((err = tm_mpi_type_get(r, NULL, oldtype, 0, call, &old)) != MPI_SUCCESS)
        return err;
    if ((p = tm_mpi_type_pieces(count)) == NULL)
        return TM_MPI_TYPE_NOMEM();
    for (MPI_Count i = 0; i < count; i++) {
        MPI_Aint at = (MPI_Aint)disps[i];

        if (!h &&
            (err = tm_mpi_type_elements_at(r, call, disps[i], old->extent, &at)) != MPI_SUCCESS) {
            free(p);
            return err;
        }
        p[i] = (tm_mpi_type_piece_t){old, (size_t)(one ? blocklen : blocklens[i]), at, 1, 0};
    }
    if (large) {
        if ((counts = malloc(nargs * sizeof(MPI_Count))) == NULL)
            goto nomem;
        counts[0] = count;
        memcpy(counts + 1, one ? &blocklen : blocklens, nbl * sizeof(MPI_Count));
        memcpy(counts + 1 + nbl, disps, (size_t)count * sizeof(MPI_Count));
        args.nc = nargs;
        args.counts = counts;
    } else {
        size_t ni = h ? 1 + nbl : nargs;

        if ((ints = malloc(ni * sizeof(int))) == NULL ||
            (h && (aints = malloc((count ? (size_t)count : 1) * sizeof(MPI_Aint))) == NULL))
            goto nomem;
        ints[0] = (int)count;
        for (size_t i = 0; i < nbl; i++)
            ints[1 + i] = (int)(one ? blocklen : blocklens[i]);
        for (MPI_Count i = 0; i < count; i++) {
            if (h)
                aints[i] = (MPI_Aint)disps[i];
            else
                ints[1 + nbl + i] = (int)disps[i];
        }
        args.ni = (int)ni;
        args.ints = ints;
        args.na = h ? (int)count : 0;
        args.aints = aints;
    }
    args.types = &old;
    err = tm_mpi_type_make(r, call, combiner, p, (size_t)count, 0, &args, newtype);
    free(counts);
    free(ints);
    free(aints);
    return err;
nomem:
    free(p);
    free(counts);
    free(ints);
    free(aints);
    return TM_MPI_TYPE_NOMEM();
}

/* The int forms of the four above: the arrays widened to MPI_Count. */
static int tm_mpi_type_indexed_int(const char *call, int combiner, int count, const int *blocklens,
                                   int blocklen, const int *idisps, const MPI_Aint *adisps,
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_Count *wide_blocklens, *wide_disps = NULL;
    int err;

    if (tm_mpi_type_widen(blocklens, NULL, count, &wide_blocklens) != 0 ||
        tm_mpi_type_widen(idisps, adisps, count, &wide_disps) != 0) {
        TM_MPI_RANK(r, call);

        free(wide_blocklens);
        return TM_MPI_TYPE_NOMEM();
    }
    err = tm_mpi_type_indexed(call, combiner, count, wide_blocklens, blocklen, wide_disps, false,
                              oldtype, newtype);
    free(wide_blocklens);
    free(wide_disps);
    return err;
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    return tm_mpi_type_indexed_int("MPI_Type_indexed", MPI_COMBINER_INDEXED, count,
                                   array_of_blocklengths, 0, array_of_displacements, NULL, oldtype,
                                   newtype);
}
#pragma weak MPI_Type_indexed = PMPI_Type_indexed

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype)
{
    return tm_mpi_type_indexed("MPI_Type_indexed_c", MPI_COMBINER_INDEXED, count,
                               array_of_blocklengths, 0, array_of_displacements, true, oldtype,
                               newtype);
}
#pragma weak MPI_Type_indexed_c = PMPI_Type_indexed_c

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    return tm_mpi_type_indexed_int("MPI_Type_create_hindexed", MPI_COMBINER_HINDEXED, count,
                                   array_of_blocklengths, 0, NULL, array_of_displacements, oldtype,
                                   newtype);
}
#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    return tm_mpi_type_indexed("MPI_Type_create_hindexed_c", MPI_COMBINER_HINDEXED, count,
                               array_of_blocklengths, 0, array_of_displacements, true, oldtype,
                               newtype);
}
#pragma weak MPI_Type_create_hindexed_c = PMPI_Type_create_hindexed_c

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return tm_mpi_type_indexed_int("MPI_Type_create_indexed_block", MPI_COMBINER_INDEXED_BLOCK,
                                   count, NULL, blocklength, array_of_displacements, NULL, oldtype,
                                   newtype);
}
#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    return tm_mpi_type_indexed("MPI_Type_create_indexed_block_c", MPI_COMBINER_INDEXED_BLOCK, count,
                               NULL, blocklength, array_of_displacements, true, oldtype, newtype);
}
#pragma weak MPI_Type_create_indexed_block_c = PMPI_Type_create_indexed_block_c

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    return tm_mpi_type_indexed_int("MPI_Type_create_hindexed_block", MPI_COMBINER_HINDEXED_BLOCK,
                                   count, NULL, blocklength, NULL, array_of_displacements, oldtype,
                                   newtype);
}
#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return tm_mpi_type_indexed("MPI_Type_create_hindexed_block_c", MPI_COMBINER_HINDEXED_BLOCK,
                               count, NULL, blocklength, array_of_displacements, true, oldtype,
                               newtype);
}
#pragma weak MPI_Type_create_hindexed_block_c = PMPI_Type_create_hindexed_block_c

/* create_struct(_c) and MPI-1's struct. Kept: count, the block lengths (ints, or counts) and
 * the displacements (addresses, or counts). */
static int tm_mpi_type_struct(const char *call, MPI_Count count, const MPI_Count *blocklens,
                              const MPI_Count *disps, const MPI_Datatype array_of_types[],
                              bool large, MPI_Datatype *newtype)
{
    TM_MPI_RANK(r, call);
    tm_mpi_type_args_t args = {.nd = (int)count};
    size_t n = (size_t)count;
    tm_mpi_type_t **types;
    tm_mpi_type_piece_t *p;
    MPI_Count *counts = NULL;
    MPI_Aint *aints = NULL;
    int *ints = NULL;
    int err;

    if ((err = tm_mpi_type_check(r, call, count, newtype)) != MPI_SUCCESS ||
        (err = tm_mpi_type_check_array(r, call, count, blocklens, "array_of_blocklengths")) !=
            MPI_SUCCESS ||
        (err = tm_mpi_type_check_array(r, call, count, disps, "array_of_displacements")) !=
            MPI_SUCCESS ||
        (err = tm_mpi_type_check_array(r, call, count, array_of_types, "array_of_types")) !=
            MPI_SUCCESS)
        return err;
    if (count > INT_MAX)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_COUNT,
                                  "count %lld: a struct holds at most INT_MAX types", count);
    for (MPI_Count i = 0; i < count; i++)
        if ((err = tm_mpi_type_check_blocklen(r, call, blocklens[i], i)) != MPI_SUCCESS)
            return err;
    p = tm_mpi_type_pieces(count);
    types = malloc((n ? n : 1) * sizeof(*types));
    if (large)
        counts = malloc((2 * n + 1) * sizeof(MPI_Count));
    else {
        ints = malloc((n + 1) * sizeof(int));
        aints = malloc((n ? n : 1) * sizeof(MPI_Aint));
    }
    if (p == NULL || types == NULL || (large ? counts == NULL : ints == NULL || aints == NULL)) {
        err = TM_MPI_TYPE_NOMEM();
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if ((err = tm_mpi_type_get(r, NULL, array_of_types[i], 0, call, &types[i])) != MPI_SUCCESS)
            goto out;
        p[i] = (tm_mpi_type_piece_t){types[i], (size_t)blocklens[i], (MPI_Aint)disps[i], 1, 0};
    }
    if (large) {
        counts[0] = count;
        memcpy(counts + 1, blocklens, n * sizeof(MPI_Count));
        memcpy(counts + 1 + n, disps, n * sizeof(MPI_Count));
        args.nc = 2 * n + 1;
        args.counts = counts;
    } else {
        ints[0] = (int)count;
        for (size_t i = 0; i < n; i++) {
            ints[1 + i] = (int)blocklens[i];
            aints[i] = (MPI_Aint)disps[i];
        }
        args.ni = (int)n + 1;
        args.ints = ints;
        args.na = (int)n;
        args.aints = aints;
    }
    args.types = types;
    err = tm_mpi_type_make(r, call, MPI_COMBINER_STRUCT, p, n, 1, &args, newtype);
    p = NULL; /* tm_mpi_type_make freed it */
out:
    free(p);
    free(types);
    free(counts);
    free(ints);
    free(aints);
    return err;
}

static int tm_mpi_type_struct_int(const char *call, int count, const int array_of_blocklengths[],
                                  const MPI_Aint array_of_displacements[],
                                  const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    MPI_Count *blocklens, *disps = NULL;
    int err;

    if (tm_mpi_type_widen(array_of_blocklengths, NULL, count, &blocklens) != 0 ||
        tm_mpi_type_widen(NULL, array_of_displacements, count, &disps) != 0) {
        TM_MPI_RANK(r, call);

        free(blocklens);
        return TM_MPI_TYPE_NOMEM();
    }
    err = tm_mpi_type_struct(call, count, blocklens, disps, array_of_types, false, newtype);
    free(blocklens);
    free(disps);
    return err;
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return tm_mpi_type_struct_int("MPI_Type_create_struct", count, array_of_blocklengths,
                                  array_of_displacements, array_of_types, newtype);
}
#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return tm_mpi_type_struct("MPI_Type_create_struct_c", count, array_of_blocklengths,
                              array_of_displacements, array_of_types, true, newtype);
}
#pragma weak MPI_Type_create_struct_c = PMPI_Type_create_struct_c

/* The MPI-1 forms of the three constructors above, which MPI-3.0 removed and MPICH still
 * provides. Called from C they describe themselves as their successors do (MPI 3.1, 4.1.13). */
int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    return tm_mpi_type_vector("MPI_Type_hvector", MPI_COMBINER_HVECTOR, count, blocklength, stride,
                              false, oldtype, newtype);
}
#pragma weak MPI_Type_hvector = PMPI_Type_hvector

int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return tm_mpi_type_indexed_int("MPI_Type_hindexed", MPI_COMBINER_HINDEXED, count,
                                   array_of_blocklengths, 0, NULL, array_of_displacements, oldtype,
                                   newtype);
}
#pragma weak MPI_Type_hindexed = PMPI_Type_hindexed

int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return tm_mpi_type_struct_int("MPI_Type_struct", count, array_of_blocklengths,
                                  array_of_displacements, array_of_types, newtype);
}
#pragma weak MPI_Type_struct = PMPI_Type_struct

/* create_resized(_c): lb and extent kept as addresses, or counts. */
static int tm_mpi_type_resized(const char *call, MPI_Datatype oldtype, MPI_Count lb,
                               MPI_Count extent, bool large, MPI_Datatype *newtype)
{
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *old, *t;
    tm_mpi_type_piece_t *p;
    MPI_Aint aints[2] = {(MPI_Aint)lb, (MPI_Aint)extent};
    MPI_Count counts[2] = {lb, extent};
    int err;

    if ((err = tm_mpi_type_check(r, call, 0, newtype)) != MPI_SUCCESS ||
        (err = tm_mpi_type_get(r, NULL, oldtype, 0, call, &old)) != MPI_SUCCESS)
        return err;
    if (__builtin_add_overflow(lb, extent, &(MPI_Aint){0}))
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "lb %lld + extent %lld does not fit in an MPI_Aint", lb, extent);
    if ((p = tm_mpi_type_pieces(1)) == NULL)
        return TM_MPI_TYPE_NOMEM();
    p[0] = (tm_mpi_type_piece_t){old, 1, 0, 1, 0};
    if ((err = tm_mpi_type_make(
             r, call, MPI_COMBINER_RESIZED, p, 1, 0,
             large ? &(tm_mpi_type_args_t){.nc = 2, .counts = counts, .nd = 1, .types = &old}
                   : &(tm_mpi_type_args_t){.na = 2, .aints = aints, .nd = 1, .types = &old},
             newtype)) != MPI_SUCCESS)
        return err;
    tm_mpi_type_lookup(*newtype, &t);
    tm_mpi_type_set_bounds(t, (MPI_Aint)lb, (MPI_Aint)extent);
    return MPI_SUCCESS;
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    return tm_mpi_type_resized("MPI_Type_create_resized", oldtype, lb, extent, false, newtype);
}
#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized

int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype *newtype)
{
    return tm_mpi_type_resized("MPI_Type_create_resized_c", oldtype, lb, extent, true, newtype);
}
#pragma weak MPI_Type_create_resized_c = PMPI_Type_create_resized_c

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_dup";
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *old, *t;
    tm_mpi_type_piece_t *p;
    int err;

    if ((err = tm_mpi_type_check(r, call, 0, newtype)) != MPI_SUCCESS ||
        (err = tm_mpi_type_get(r, NULL, oldtype, 0, call, &old)) != MPI_SUCCESS)
        return err;
    if ((p = tm_mpi_type_pieces(1)) == NULL)
        return TM_MPI_TYPE_NOMEM();
    p[0] = (tm_mpi_type_piece_t){old, 1, 0, 1, 0};
    if ((err = tm_mpi_type_make(r, call, MPI_COMBINER_DUP, p, 1, 0,
                                &(tm_mpi_type_args_t){.nd = 1, .types = &old}, newtype)) !=
        MPI_SUCCESS)
        return err;
    /* Same typemap, same bounds and markers, same committed state (MPI 3.1 section 4.1.10),
     * and the attributes that their copy callbacks copy. */
    tm_mpi_type_lookup(*newtype, &t);
    t->committed = old->committed;
    t->align = old->align;
    if ((err = tm_mpi_attr_type_copy_all(r, old, oldtype, t)) != MPI_SUCCESS) {
        tm_mpi_attr_type_delete_all(r, t, *newtype);
        tm_mpi_type_unpublish(*newtype);
        *newtype = MPI_DATATYPE_NULL;
        return tm_mpi_error_raise(r->rt, NULL, call, tm_mpi_type_callback_class(err),
                                  "the copy callback of an attribute returned %d", err);
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_dup = PMPI_Type_dup

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    static const char call[] = "MPI_Type_commit";
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *t;
    int err;

    if (datatype == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "datatype is NULL");
    if ((err = tm_mpi_type_get(r, NULL, *datatype, 0, call, &t)) != MPI_SUCCESS)
        return err;
    t->committed = 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_commit = PMPI_Type_commit

/* A pending operation keeps its own reference: the object outlives the handle if needed. */
int PMPI_Type_free(MPI_Datatype *datatype)
{
    static const char call[] = "MPI_Type_free";
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *t;
    int err;

    if (datatype == NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "datatype is NULL");
    if ((err = tm_mpi_type_get(r, NULL, *datatype, 0, call, &t)) != MPI_SUCCESS)
        return err;
    if (t->predefined)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_TYPE,
                                  "%s is predefined and cannot be freed", t->name);
    if (t->f90)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_TYPE,
                                  "a type of MPI_Type_create_f90_* is predefined and cannot be "
                                  "freed");
    /* The attributes go with the handle the type was made with (not those of
     * MPI_Type_get_contents); a delete callback that fails keeps the type. */
    if (t->handle == *datatype && t->attrs != NULL &&
        (err = tm_mpi_attr_type_delete_all(r, t, *datatype)) != MPI_SUCCESS)
        return tm_mpi_error_raise(r->rt, NULL, call, tm_mpi_type_callback_class(err),
                                  "the delete callback of an attribute returned %d", err);
    if (tm_mpi_type_unpublish(*datatype) != 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_TYPE,
                                  "invalid datatype 0x%08x: no such datatype", (unsigned)*datatype);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_free = PMPI_Type_free

/* One piece per row of the subarray (the fastest-varying dimension), then resized to the whole
 * array, as MPI 3.1 section 4.1.3 defines it. Kept: ndims, the sizes, subsizes and starts, and
 * order, all as ints; for the _c form, ndims and order as ints and the rest as counts. */
#define TM_MPI_SUBARRAY_MAX_DIMS 32

static int tm_mpi_type_subarray(const char *call, int ndims, const MPI_Count sizes[],
                                const MPI_Count subsizes[], const MPI_Count starts[], int order,
                                bool large, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    TM_MPI_RANK(r, call);
    tm_mpi_type_t *old, *t;
    tm_mpi_type_piece_t *p;
    MPI_Count rows = 1, np = 0;
    MPI_Aint total = 1, bytes, stride[TM_MPI_SUBARRAY_MAX_DIMS];
    MPI_Count counts[3 * TM_MPI_SUBARRAY_MAX_DIMS], idx[TM_MPI_SUBARRAY_MAX_DIMS] = {0};
    int ints[3 * TM_MPI_SUBARRAY_MAX_DIMS + 2];
    int err, last;
    bool too_big = false;

    if (ndims <= 0 || ndims > TM_MPI_SUBARRAY_MAX_DIMS)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "ndims %d is not in [1, %d]",
                                  ndims, TM_MPI_SUBARRAY_MAX_DIMS);
    if ((err = tm_mpi_type_check(r, call, 0, newtype)) != MPI_SUCCESS ||
        (err = tm_mpi_type_check_array(r, call, 1, sizes, "array_of_sizes")) != MPI_SUCCESS ||
        (err = tm_mpi_type_check_array(r, call, 1, subsizes, "array_of_subsizes")) != MPI_SUCCESS ||
        (err = tm_mpi_type_check_array(r, call, 1, starts, "array_of_starts")) != MPI_SUCCESS)
        return err;
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "invalid order %d", order);
    for (int d = 0; d < ndims; d++)
        if (sizes[d] <= 0 || subsizes[d] <= 0 || subsizes[d] > sizes[d] || starts[d] < 0 ||
            starts[d] > sizes[d] - subsizes[d])
            return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                      "dimension %d: size %lld, subsize %lld, start %lld are "
                                      "inconsistent",
                                      d, sizes[d], subsizes[d], starts[d]);
    if ((err = tm_mpi_type_get(r, NULL, oldtype, 0, call, &old)) != MPI_SUCCESS)
        return err;
    /* stride[d]: elements between consecutive indices of dimension d */
    last = order == MPI_ORDER_C ? ndims - 1 : 0;
    for (int k = 0; k < ndims; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;

        stride[d] = total;
        too_big |= __builtin_mul_overflow(total, sizes[d], &total);
        if (d != last)
            too_big |= __builtin_mul_overflow(rows, subsizes[d], &rows);
    }
    too_big |= __builtin_mul_overflow(total, old->extent, &bytes);
    if (too_big)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "the array's extent does not fit in an MPI_Aint");
    if ((p = tm_mpi_type_pieces(rows)) == NULL)
        return TM_MPI_TYPE_NOMEM();
    for (;;) {
        MPI_Aint disp = 0;
        int k;

        for (int d = 0; d < ndims; d++)
            disp += (starts[d] + (d == last ? 0 : idx[d])) * stride[d];
        p[np++] = (tm_mpi_type_piece_t){old, (size_t)subsizes[last], disp * old->extent, 1, 0};
        /* next row: odometer over the dimensions other than `last`, slowest last */
        for (k = 0; k < ndims; k++) {
            int d = order == MPI_ORDER_C ? ndims - 1 - k : k;

            if (d == last)
                continue;
            if (++idx[d] < subsizes[d])
                break;
            idx[d] = 0;
        }
        if (k == ndims)
            break;
    }
    ints[0] = ndims;
    for (int d = 0; d < ndims; d++) {
        counts[d] = sizes[d];
        counts[ndims + d] = subsizes[d];
        counts[2 * ndims + d] = starts[d];
    }
    if (large) {
        ints[1] = order;
    } else {
        for (int i = 0; i < 3 * ndims; i++)
            ints[1 + i] = (int)counts[i];
        ints[1 + 3 * ndims] = order;
    }
    if ((err = tm_mpi_type_make(
             r, call, MPI_COMBINER_SUBARRAY, p, (size_t)np, 0,
             large
                 ? &(tm_mpi_type_args_t){.ni = 2,
                                         .ints = ints,
                                         .nc = 3 * (size_t)ndims,
                                         .counts = counts,
                                         .nd = 1,
                                         .types = &old}
                 : &(tm_mpi_type_args_t){.ni = 3 * ndims + 2, .ints = ints, .nd = 1, .types = &old},
             newtype)) != MPI_SUCCESS)
        return err;
    tm_mpi_type_lookup(*newtype, &t);
    tm_mpi_type_set_bounds(t, 0, bytes);
    return MPI_SUCCESS;
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    MPI_Count wide[3][TM_MPI_SUBARRAY_MAX_DIMS];
    const int *arrays[3] = {array_of_sizes, array_of_subsizes, array_of_starts};
    int n = ndims < 0 ? 0 : ndims > TM_MPI_SUBARRAY_MAX_DIMS ? TM_MPI_SUBARRAY_MAX_DIMS : ndims;

    for (int a = 0; a < 3; a++)
        for (int d = 0; arrays[a] != NULL && d < n; d++)
            wide[a][d] = arrays[a][d];
    return tm_mpi_type_subarray("MPI_Type_create_subarray", ndims, array_of_sizes ? wide[0] : NULL,
                                array_of_subsizes ? wide[1] : NULL,
                                array_of_starts ? wide[2] : NULL, order, false, oldtype, newtype);
}
#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    return tm_mpi_type_subarray("MPI_Type_create_subarray_c", ndims, array_of_sizes,
                                array_of_subsizes, array_of_starts, order, true, oldtype, newtype);
}
#pragma weak MPI_Type_create_subarray_c = PMPI_Type_create_subarray_c

/* ------------------------------------------------------------------ distributed arrays */

/* MPI_Type_create_darray (MPI 3.1 section 4.1.4): the part of an ndims array of gsizes oldtypes
 * that process `rank` owns when the array is spread over a psizes process grid, the grid's
 * processes numbered in row-major order whatever the array's order. In each dimension the
 * process owns a set of indices:
 *
 *   MPI_DISTRIBUTE_BLOCK, darg b (default ceil(gsize / psize)): [coord * b, (coord + 1) * b)
 *   MPI_DISTRIBUTE_CYCLIC, darg k (default 1): coord * k + j * psize * k + [0, k), j = 0, 1, ...
 *   MPI_DISTRIBUTE_NONE (psize 1, darg ignored): all of [0, gsize)
 *
 * each cut at gsize. The typemap is the product of these sets in the array's order (the fastest
 * dimension last in C, first in Fortran), each element at its global position: one piece per
 * run of consecutive indices in the fastest dimension. As for a subarray, the extent is the
 * whole array, from 0. */

#define TM_MPI_DARRAY_MAX_DIMS 32

/* The checked arguments, and what follows from them. */
typedef struct tm_mpi_darray {
    int ndims, order;
    const MPI_Count *gsizes;
    const int *distribs, *dargs, *psizes;
    int coords[TM_MPI_DARRAY_MAX_DIMS];      /* of the process in the grid */
    int last;                                /* the fastest dimension */
    MPI_Aint stride[TM_MPI_DARRAY_MAX_DIMS]; /* elements between indices i and i + 1 */
} tm_mpi_darray_t;

/* The runs of indices of dimension d that the process owns, increasing; returns how many there
 * are, and stores them in starts and lens unless NULL. */
static size_t tm_mpi_darray_runs(const tm_mpi_darray_t *a, int d, MPI_Count *starts,
                                 MPI_Count *lens)
{
    MPI_Count gsize = a->gsizes[d], k, first, step;
    int distrib = a->distribs[d], darg = a->dargs[d], psize = a->psizes[d];
    size_t n = 0;

    switch (distrib) {
    case MPI_DISTRIBUTE_NONE:
        k = gsize;
        break;
    case MPI_DISTRIBUTE_BLOCK:
        k = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
        break;
    default: /* MPI_DISTRIBUTE_CYCLIC */
        k = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        break;
    }
    first = a->coords[d] * k; /* 0 for MPI_DISTRIBUTE_NONE (psize 1) */
    step = k * psize;
    for (MPI_Count s = first; s < gsize; s += step) {
        if (starts != NULL) {
            starts[n] = s;
            lens[n] = gsize - s < k ? gsize - s : k;
        }
        n++;
        if (distrib != MPI_DISTRIBUTE_CYCLIC)
            break;
    }
    return n;
}

/* Argument checks of MPI_Type_create_darray that need no datatype. */
static int tm_mpi_darray_check(tm_mpi_rank_t *r, const char *call, int size, int rank, int ndims,
                               const MPI_Count gsizes[], const int distribs[], const int dargs[],
                               const int psizes[], int order, const void *newtype)
{
    long long grid = 1;
    int err;

    if (size <= 0)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "size %d is not positive", size);
    if (rank < 0 || rank >= size)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "rank %d is not in [0, %d)", rank,
                                  size);
    if (ndims <= 0 || ndims > TM_MPI_DARRAY_MAX_DIMS)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "ndims %d is not in [1, %d]",
                                  ndims, TM_MPI_DARRAY_MAX_DIMS);
    if ((err = tm_mpi_type_check(r, call, 0, newtype)) != MPI_SUCCESS ||
        (err = tm_mpi_type_check_array(r, call, 1, gsizes, "array_of_gsizes")) != MPI_SUCCESS ||
        (err = tm_mpi_type_check_array(r, call, 1, distribs, "array_of_distribs")) != MPI_SUCCESS ||
        (err = tm_mpi_type_check_array(r, call, 1, dargs, "array_of_dargs")) != MPI_SUCCESS ||
        (err = tm_mpi_type_check_array(r, call, 1, psizes, "array_of_psizes")) != MPI_SUCCESS)
        return err;
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "invalid order %d", order);
    for (int d = 0; d < ndims; d++) {
        MPI_Count g = gsizes[d];
        int p = psizes[d], a = dargs[d];

        if (g <= 0 || p <= 0)
            return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                      "dimension %d: gsize %lld and psize %d must be positive", d,
                                      g, p);
        grid *= p;
        if (grid > size)
            break; /* reported below */
        switch (distribs[d]) {
        case MPI_DISTRIBUTE_NONE:
            if (p != 1)
                return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                          "dimension %d is MPI_DISTRIBUTE_NONE over %d processes "
                                          "(psize must be 1)",
                                          d, p);
            break;
        case MPI_DISTRIBUTE_BLOCK:
        case MPI_DISTRIBUTE_CYCLIC:
            if (a != MPI_DISTRIBUTE_DFLT_DARG && a <= 0)
                return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                          "dimension %d: darg %d is neither positive nor "
                                          "MPI_DISTRIBUTE_DFLT_DARG",
                                          d, a);
            if (distribs[d] == MPI_DISTRIBUTE_BLOCK && a != MPI_DISTRIBUTE_DFLT_DARG &&
                (long long)a * p < g)
                return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                          "dimension %d: %d blocks of %d cannot hold %lld "
                                          "elements",
                                          d, p, a, g);
            break;
        default:
            return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                      "dimension %d: invalid distribution %d", d, distribs[d]);
        }
    }
    if (grid != size)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "the process grid has %lld processes, size is %d", grid, size);
    return MPI_SUCCESS;
}

/* The pieces of the darray: *p_p and *np_p. The indices owned in each dimension other than the
 * fastest are listed one by one (owned[d]), those of the fastest as runs. 0 or -ENOMEM. */
static int tm_mpi_darray_pieces(const tm_mpi_darray_t *a, tm_mpi_type_t *old,
                                tm_mpi_type_piece_t **p_p, size_t *np_p)
{
    MPI_Count *owned[TM_MPI_DARRAY_MAX_DIMS] = {NULL}, *rstarts, *rlens;
    int last = a->last;
    size_t nowned[TM_MPI_DARRAY_MAX_DIMS], at[TM_MPI_DARRAY_MAX_DIMS] = {0};
    size_t nruns = tm_mpi_darray_runs(a, last, NULL, NULL), npieces = nruns, np = 0;
    tm_mpi_type_piece_t *p = NULL;
    int err = -ENOMEM;

    rstarts = malloc((nruns ? nruns : 1) * sizeof(MPI_Count));
    rlens = malloc((nruns ? nruns : 1) * sizeof(MPI_Count));
    if (rstarts == NULL || rlens == NULL)
        goto free_lists;
    tm_mpi_darray_runs(a, last, rstarts, rlens);
    for (int d = 0; d < a->ndims; d++) {
        size_t n = 0, runs;
        MPI_Count *s, *l;

        if (d == last)
            continue;
        runs = tm_mpi_darray_runs(a, d, NULL, NULL);
        s = malloc((runs ? runs : 1) * sizeof(MPI_Count));
        l = malloc((runs ? runs : 1) * sizeof(MPI_Count));
        if (s != NULL && l != NULL) {
            tm_mpi_darray_runs(a, d, s, l);
            for (size_t i = 0; i < runs; i++)
                n += (size_t)l[i];
            owned[d] = malloc((n ? n : 1) * sizeof(MPI_Count));
        }
        for (size_t i = 0, k = 0; owned[d] != NULL && i < runs; i++)
            for (MPI_Count j = 0; j < l[i]; j++)
                owned[d][k++] = s[i] + j;
        free(s);
        free(l);
        if (owned[d] == NULL)
            goto free_lists;
        nowned[d] = n;
        npieces *= n; /* at most the array's elements, whose count fits in MPI_Aint */
    }
    if ((p = tm_mpi_type_pieces(npieces)) == NULL)
        goto free_lists;
    while (npieces > 0) {
        MPI_Aint base = 0;
        int k;

        for (int d = 0; d < a->ndims; d++)
            if (d != last)
                base += owned[d][at[d]] * a->stride[d];
        for (size_t i = 0; i < nruns; i++)
            p[np++] = (tm_mpi_type_piece_t){
                old, (size_t)rlens[i], (base + rstarts[i] * a->stride[last]) * old->extent, 1, 0};
        /* next combination: odometer over the other dimensions, the fastest of them first */
        for (k = 0; k < a->ndims; k++) {
            int d = a->order == MPI_ORDER_C ? a->ndims - 1 - k : k;

            if (d == last)
                continue;
            if (++at[d] < nowned[d])
                break;
            at[d] = 0;
        }
        if (k == a->ndims)
            break;
    }
    *p_p = p;
    *np_p = np;
    err = 0;
free_lists:
    for (int d = 0; d < a->ndims; d++)
        free(owned[d]);
    free(rstarts);
    free(rlens);
    return err;
}

/* create_darray(_c). Kept: size, rank, ndims, gsizes, distribs, dargs, psizes and order, all as
 * ints; for the _c form, the gsizes as counts and the rest as ints. */
static int tm_mpi_type_darray(const char *call, int size, int rank, int ndims,
                              const MPI_Count gsizes[], const int distribs[], const int dargs[],
                              const int psizes[], int order, bool large, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    TM_MPI_RANK(r, call);
    tm_mpi_darray_t a = {.ndims = ndims,
                         .order = order,
                         .gsizes = gsizes,
                         .distribs = distribs,
                         .dargs = dargs,
                         .psizes = psizes};
    tm_mpi_type_t *old, *t;
    tm_mpi_type_piece_t *p;
    size_t np;
    MPI_Aint total = 1, bytes;
    int ints[4 * TM_MPI_DARRAY_MAX_DIMS + 4], *at = ints;
    int err, left = rank;
    bool too_big = false;

    if ((err = tm_mpi_darray_check(r, call, size, rank, ndims, gsizes, distribs, dargs, psizes,
                                   order, newtype)) != MPI_SUCCESS ||
        (err = tm_mpi_type_get(r, NULL, oldtype, 0, call, &old)) != MPI_SUCCESS)
        return err;
    /* the grid is row-major whatever the array's order */
    for (int d = ndims - 1; d >= 0; d--) {
        a.coords[d] = left % psizes[d];
        left /= psizes[d];
    }
    a.last = order == MPI_ORDER_C ? ndims - 1 : 0;
    for (int k = 0; k < ndims; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;

        a.stride[d] = total;
        too_big |= __builtin_mul_overflow(total, gsizes[d], &total);
    }
    too_big |= __builtin_mul_overflow(total, old->extent, &bytes);
    if (too_big)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "the global array's extent does not fit in an MPI_Aint");
    if (tm_mpi_darray_pieces(&a, old, &p, &np) != 0)
        return TM_MPI_TYPE_NOMEM();
    *at++ = size;
    *at++ = rank;
    *at++ = ndims;
    for (int d = 0; !large && d < ndims; d++)
        *at++ = (int)gsizes[d];
    memcpy(at, distribs, ndims * sizeof(int));
    memcpy(at + ndims, dargs, ndims * sizeof(int));
    memcpy(at + 2 * ndims, psizes, ndims * sizeof(int));
    at[3 * ndims] = order;
    if ((err = tm_mpi_type_make(r, call, MPI_COMBINER_DARRAY, p, np, 0,
                                &(tm_mpi_type_args_t){.ni = (int)(at - ints) + 3 * ndims + 1,
                                                      .ints = ints,
                                                      .nc = large ? (size_t)ndims : 0,
                                                      .counts = gsizes,
                                                      .nd = 1,
                                                      .types = &old},
                                newtype)) != MPI_SUCCESS)
        return err;
    tm_mpi_type_lookup(*newtype, &t);
    tm_mpi_type_set_bounds(t, 0, bytes);
    return MPI_SUCCESS;
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    MPI_Count gsizes[TM_MPI_DARRAY_MAX_DIMS];
    int n = ndims < 0 ? 0 : ndims > TM_MPI_DARRAY_MAX_DIMS ? TM_MPI_DARRAY_MAX_DIMS : ndims;

    for (int d = 0; array_of_gsizes != NULL && d < n; d++)
        gsizes[d] = array_of_gsizes[d];
    return tm_mpi_type_darray("MPI_Type_create_darray", size, rank, ndims,
                              array_of_gsizes ? gsizes : NULL, array_of_distribs, array_of_dargs,
                              array_of_psizes, order, false, oldtype, newtype);
}
#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    return tm_mpi_type_darray("MPI_Type_create_darray_c", size, rank, ndims, array_of_gsizes,
                              array_of_distribs, array_of_dargs, array_of_psizes, order, true,
                              oldtype, newtype);
}
#pragma weak MPI_Type_create_darray_c = PMPI_Type_create_darray_c

/* ---- the Fortran 90 kinds (MPI 3.1 section 17.1.9) ----
 *
 * Each distinct (combiner, p, r) gets one type for the process, made at its first call and kept
 * to the end (MPI: the same handle for the same arguments, never freed), a duplicate of the C
 * type of that kind whose envelope says how it was asked for. */

typedef struct f90_type {
    int combiner, p, r;
    MPI_Datatype handle;
    struct f90_type *next;
} f90_type_t;

static pthread_mutex_t f90_lock = PTHREAD_MUTEX_INITIALIZER;
static f90_type_t *f90_types;

/* Makes the type of combiner (p, r) from `base` and adds it to f90_types (its lock held). */
static int f90_make(tm_mpi_rank_t *r, const char *call, int combiner, int p, int range,
                    MPI_Datatype base, f90_type_t **f_p)
{
    f90_type_t *f = malloc(sizeof *f);
    tm_mpi_type_piece_t *pieces = tm_mpi_type_pieces(1);
    if (!f || !pieces) {
        free(f);
        free(pieces);
        return TM_MPI_TYPE_NOMEM();
    }
    tm_mpi_type_t *old, *t;
    tm_mpi_type_lookup(base, &old);
    pieces[0] = (tm_mpi_type_piece_t){old, 1, 0, 1, 0};
    bool integer = combiner == MPI_COMBINER_F90_INTEGER;
    int ints[2] = {integer ? range : p, range};
    int err =
        tm_mpi_type_make(r, call, combiner, pieces, 1, 0,
                         &(tm_mpi_type_args_t){.ni = integer ? 1 : 2, .ints = ints}, &f->handle);
    if (err != MPI_SUCCESS) {
        free(f);
        return err;
    }
    tm_mpi_type_lookup(f->handle, &t);
    t->committed = 1;
    t->f90 = 1;
    t->align = old->align;
    *f = (f90_type_t){combiner, p, range, f->handle, f90_types};
    f90_types = f;
    *f_p = f;
    return MPI_SUCCESS;
}

/* The kind's type for combiner (p, r): found, or made from `base`. */
static int f90_type(tm_mpi_rank_t *r, const char *call, int combiner, int p, int range,
                    MPI_Datatype base, MPI_Datatype *newtype)
{
    int err = MPI_SUCCESS;
    pthread_mutex_lock(&f90_lock);
    f90_type_t *f = f90_types;
    while (f && (f->combiner != combiner || f->p != p || f->r != range))
        f = f->next;
    if (!f)
        err = f90_make(r, call, combiner, p, range, base, &f);
    if (err == MPI_SUCCESS)
        *newtype = f->handle;
    pthread_mutex_unlock(&f90_lock);
    return err;
}

/* SELECTED_INT_KIND(r): the smallest integer with at least r decimal digits of range (that of
 * an n-byte integer: the digits of its largest value, less one). */
int PMPI_Type_create_f90_integer(int range, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_f90_integer";
    TM_MPI_RANK(r, call);
    int err = tm_mpi_type_check(r, call, 0, newtype);
    if (err != MPI_SUCCESS)
        return err;
    MPI_Datatype base = range == MPI_UNDEFINED ? MPI_DATATYPE_NULL
                        : range <= 2           ? MPI_INT8_T
                        : range <= 4           ? MPI_INT16_T
                        : range <= 9           ? MPI_INT32_T
                        : range <= 18          ? MPI_INT64_T
                                               : MPI_DATATYPE_NULL;
    if (base == MPI_DATATYPE_NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "no integer kind has a decimal range of %d (at most 18)", range);
    return f90_type(r, call, MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, range, base, newtype);
}
#pragma weak MPI_Type_create_f90_integer = PMPI_Type_create_f90_integer

/* SELECTED_REAL_KIND(p, r): the smallest of float, double and long double with at least p
 * decimal digits of precision and a decimal exponent range of at least r, or MPI_ERR_ARG. */
static int f90_real(const char *call, int combiner, int p, int range, MPI_Datatype *newtype)
{
    TM_MPI_RANK(r, call);
    int err = tm_mpi_type_check(r, call, 0, newtype);
    if (err != MPI_SUCCESS)
        return err;
    if (p == MPI_UNDEFINED && range == MPI_UNDEFINED)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG, "p and r are both MPI_UNDEFINED");
    int want_p = p == MPI_UNDEFINED ? 0 : p, want_r = range == MPI_UNDEFINED ? 0 : range;
    bool complex = combiner == MPI_COMBINER_F90_COMPLEX;
    MPI_Datatype base = MPI_DATATYPE_NULL;
    if (want_p <= FLT_DIG && want_r <= -FLT_MIN_10_EXP)
        base = complex ? MPI_C_FLOAT_COMPLEX : MPI_FLOAT;
    else if (want_p <= DBL_DIG && want_r <= -DBL_MIN_10_EXP)
        base = complex ? MPI_C_DOUBLE_COMPLEX : MPI_DOUBLE;
    else if (want_p <= LDBL_DIG && want_r <= -LDBL_MIN_10_EXP)
        base = complex ? MPI_C_LONG_DOUBLE_COMPLEX : MPI_LONG_DOUBLE;
    if (base == MPI_DATATYPE_NULL)
        return tm_mpi_error_raise(r->rt, NULL, call, MPI_ERR_ARG,
                                  "no real kind has %d digits of precision and a decimal range "
                                  "of %d (at most %d and %d)",
                                  p, range, LDBL_DIG, -LDBL_MIN_10_EXP);
    return f90_type(r, call, combiner, p, range, base, newtype);
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return f90_real("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, newtype);
}
#pragma weak MPI_Type_create_f90_real = PMPI_Type_create_f90_real

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return f90_real("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r, newtype);
}
#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex
