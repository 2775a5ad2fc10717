/*
 * nbc/: a buffer of blocks, one per member of a communicator, as allgather(v)'s receive buffer
 * and alltoall(v,w)'s two buffers are; mpi/ fills one, the algorithms walk it.
 *
 *   buf
 *   |  block 0             block 2     block 1
 *   v  [counts[0] x types[0]]   [c2 x t2]  [c1 x t1]    block j at buf + displs[j] * displ_unit
 *
 * Without counts every block has `count` elements; without types, every block is of `type`;
 * without displs, block j is at j * count * extent (the blocks follow each other, as in
 * MPI_Allgather and MPI_Alltoall). Counts and displs are the program's arrays, ints or (the _c
 * forms) MPI_Count and MPI_Aint, read through tm_coll_vec_get.
 */
#ifndef TM_COLL_BLOCKS_H
#define TM_COLL_BLOCKS_H

#include "coll/coll.h"

struct tm_coll_blocks {
    void *buf;
    tm_coll_vec_t counts;        /* none: `count` for each */
    tm_coll_vec_t displs;        /* none: the blocks follow each other */
    MPI_Aint displ_unit;         /* bytes per unit of displs: the extent, or 1 (alltoallw) */
    size_t count;                /* without counts */
    tm_mpi_type_t *type;         /* without types */
    tm_mpi_type_t *const *types; /* NULL: `type` for each */
};

static inline size_t tm_coll_blocks_count(const tm_coll_blocks_t *b, int j)
{
    return b->counts.at ? (size_t)tm_coll_vec_get(b->counts, j) : b->count;
}

static inline tm_mpi_type_t *tm_coll_blocks_type(const tm_coll_blocks_t *b, int j)
{
    return b->types ? b->types[j] : b->type;
}

static inline char *tm_coll_blocks_at(const tm_coll_blocks_t *b, int j)
{
    if (b->displs.at)
        return (char *)b->buf + (MPI_Aint)tm_coll_vec_get(b->displs, j) * b->displ_unit;
    return (char *)b->buf + (MPI_Aint)j * (MPI_Aint)b->count * b->type->extent;
}

/* Bytes of data in block j. */
static inline size_t tm_coll_blocks_bytes(const tm_coll_blocks_t *b, int j)
{
    return tm_coll_blocks_count(b, j) * tm_coll_blocks_type(b, j)->size;
}

/* Scratch memory for count elements of type t laid out as in a user's buffer (so that an op can
 * combine it with one): the bytes it takes, and where the buffer pointer goes for it to start
 * at `scratch` (the elements span [base + true_lb, base + (count-1)·extent + true_ub)). */
static inline size_t tm_coll_typed_bytes(size_t count, const tm_mpi_type_t *t)
{
    if (count == 0)
        return 0;
    MPI_Aint step = t->extent < 0 ? -t->extent : t->extent;
    return (size_t)((MPI_Aint)(count - 1) * step + t->true_extent);
}

static inline char *tm_coll_typed_base(void *scratch, size_t count, const tm_mpi_type_t *t)
{
    MPI_Aint below = t->extent < 0 && count > 0 ? (MPI_Aint)(count - 1) * t->extent : 0;
    return (char *)scratch - t->true_lb - below;
}

/* MPI_BYTE: the type of data packed into a schedule's scratch memory. */
static inline tm_mpi_type_t *tm_coll_byte_type(void)
{
    tm_mpi_type_t *t = NULL;
    tm_mpi_type_lookup(MPI_BYTE, &t);
    return t;
}

#endif /* TM_COLL_BLOCKS_H */
