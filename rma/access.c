/*
 * Accesses: where the target's data is, and the copies and reductions that put, get and the
 * accumulates do there (rma.h). The origin runs them, at the call.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "p2p/p2p.h"
#include "rma.h"

/* The bytes that count elements of type occupy, from element 0's address: [*lo, *hi). false
 * when that does not fit in an MPI_Aint. */
static bool type_span(size_t count, const tm_mpi_type_t *type, MPI_Aint *lo, MPI_Aint *hi)
{
    MPI_Aint last;

    if (count > (size_t)INT64_MAX ||
        __builtin_mul_overflow((MPI_Aint)count - 1, type->extent, &last))
        return false;
    return !__builtin_add_overflow(type->true_lb, last < 0 ? last : 0, lo) &&
           !__builtin_add_overflow(type->true_ub, last > 0 ? last : 0, hi);
}

int tm_rma_target_addr(tm_rma_win_t *w, int t, MPI_Aint target_disp, size_t count,
                       const tm_mpi_type_t *type, char **addr_p)
{
    tm_rma_target_t *target = &w->shared->targets[t];
    MPI_Aint lo = 0, hi = 0, off, first, end;
    bool empty = count == 0 || type->size == 0;

    if (!empty && !type_span(count, type, &lo, &hi))
        return -ERANGE;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        /* target_disp is an address (relative to MPI_BOTTOM, which is 0) */
        *addr_p = (char *)(uintptr_t)target_disp;
        if (empty)
            return 0;
        if (__builtin_add_overflow(target_disp, lo, &first) ||
            __builtin_add_overflow(target_disp, hi, &end) || first < 0)
            return -ERANGE;
        return tm_rma_regions_hold(target, (uintptr_t)first, (uintptr_t)end) ? 0 : -ERANGE;
    }
    if (__builtin_mul_overflow(target_disp, (MPI_Aint)target->disp_unit, &off))
        return -ERANGE;
    if (!empty && (__builtin_add_overflow(off, lo, &first) ||
                   __builtin_add_overflow(off, hi, &end) || first < 0 || end > target->size))
        return -ERANGE;
    if (empty && (off < 0 || off > target->size))
        return -ERANGE;
    *addr_p = target->base + off;
    return 0;
}

void tm_rma_copy(tm_rma_win_t *w, int t, void *dst, size_t dcount, const tm_mpi_type_t *dtype,
                 const void *src, size_t scount, const tm_mpi_type_t *stype)
{
    size_t n = scount * stype->size;

    /* a small contiguous access, the most common, is one memcpy */
    if (n <= 4096 && dtype->contiguous && stype->contiguous) {
        memcpy((char *)dst + dtype->contig_disp, (const char *)src + stype->contig_disp, n);
        return;
    }
    tm_p2p_copy(dst, dcount, dtype, src, scount, stype, n, w->shared->targets[t].world_rank);
}

/* MPI_REPLACE of elements of one predefined type of 4 or 8 bytes, aligned: each stored by one
 * atomic store (release), so that a program polling the target's memory with atomic loads (the
 * notification idiom of the unified model) sees each element whole, and what the origin stored
 * before. false when the data is not of that shape (then it is copied). */
static bool replace_atomic(void *target, size_t count, const tm_mpi_type_t *ttype,
                           const void *origin, const tm_mpi_type_t *otype)
{
    size_t size = ttype->size;

    if (!ttype->predefined || otype != ttype || (size != 4 && size != 8) ||
        (uintptr_t)target % size != 0 || (uintptr_t)origin % size != 0)
        return false;
    for (size_t i = 0; i < count; i++) {
        if (size == 4)
            __atomic_store_n((uint32_t *)target + i, ((const uint32_t *)origin)[i],
                             __ATOMIC_RELEASE);
        else
            __atomic_store_n((uint64_t *)target + i, ((const uint64_t *)origin)[i],
                             __ATOMIC_RELEASE);
    }
    return true;
}

int tm_rma_accumulate(tm_rma_win_t *w, int t, const void *origin, size_t ocount,
                      const tm_mpi_type_t *otype, void *result, size_t rcount,
                      const tm_mpi_type_t *rtype, void *target, size_t tcount,
                      const tm_mpi_type_t *ttype, const tm_mpi_op_t *op)
{
    tm_rma_target_t *tg = &w->shared->targets[t];
    bool reduce = op->kind != TM_MPI_OP_NO_OP && op->kind != TM_MPI_OP_REPLACE;
    const void *in = origin;
    char *copy = NULL;

    /* A reduction takes both operands in one layout, the target's: the origin's data goes into
     * that layout first, outside the lock. */
    if (reduce && tcount > 0 && (otype != ttype || ocount != tcount)) {
        MPI_Aint lo, hi;

        if (!type_span(tcount, ttype, &lo, &hi) || (copy = malloc((size_t)(hi - lo))) == NULL)
            return -ENOMEM;
        in = copy - lo;
        tm_mpi_type_copy((char *)in, tcount, ttype, origin, ocount, otype, 0, ocount * otype->size);
    }
    tm_rma_spin_lock(&tg->acc_lock);
    if (result != NULL)
        tm_mpi_type_copy(result, rcount, rtype, target, tcount, ttype, 0, tcount * ttype->size);
    if (op->kind == TM_MPI_OP_REPLACE && replace_atomic(target, tcount, ttype, origin, otype))
        ;
    else if (op->kind == TM_MPI_OP_REPLACE)
        tm_mpi_type_copy(target, tcount, ttype, origin, ocount, otype, 0, ocount * otype->size);
    else if (reduce)
        tm_p2p_reduce(op, in, target, tcount, ttype, tg->world_rank);
    tm_rma_spin_unlock(&tg->acc_lock);
    free(copy);
    return 0;
}

void tm_rma_compare_and_swap(tm_rma_win_t *w, int t, const void *origin, const void *compare,
                             void *result, void *target, size_t bytes)
{
    tm_rma_target_t *tg = &w->shared->targets[t];
    unsigned char old[64]; /* the largest predefined type is 32 bytes */

    tm_rma_spin_lock(&tg->acc_lock);
    memcpy(old, target, bytes);
    if (memcmp(old, compare, bytes) == 0)
        memcpy(target, origin, bytes);
    tm_rma_spin_unlock(&tg->acc_lock);
    memcpy(result, old, bytes);
}
