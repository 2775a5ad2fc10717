/*
 * Ring of cells, inside shm/: the structure behind the opaque tm_shm_ring_t, for ring.c, pool.c
 * (tm_shm_cell_free gives ring cells back to their ring) and the unit tests.
 */
#ifndef TM_SHM_RING_H
#define TM_SHM_RING_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

#include "shm/shm.h"

struct tm_shm_ring {
    /* Fixed at creation: read by both sides, on a line nobody writes. */
    unsigned char *cells;
    size_t ncells, stride, cell_size;
    unsigned lap_shift; /* log2(ncells): position >> lap_shift is the lap */
    /* Producer only. */
    alignas(TM_SHM_CACHE_LINE) uint64_t tail; /* cells pushed */
    uint64_t released_seen;                   /* its last read of `released` */
    /* Consumer: cells popped (others read it as a hint). */
    alignas(TM_SHM_CACHE_LINE) _Atomic uint64_t head;
    /* Consumer to producer: the cells before this position are free to write again. */
    alignas(TM_SHM_CACHE_LINE) _Atomic uint64_t released;
};

/* A ring cell's `pool` word: its ring, tagged in the low bit (pools are aligned). */
#define TM_SHM_RING_POOL(ring)    ((tm_shm_pool_t *)((uintptr_t)(ring) | 1))
#define TM_SHM_POOL_IS_RING(pool) (((uintptr_t)(pool)&1) != 0)
#define TM_SHM_POOL_RING(pool)    ((tm_shm_ring_t *)((uintptr_t)(pool) & ~(uintptr_t)1))

/* The consumer frees a popped cell (tm_shm_cell_free of a ring cell). */
void tm_shm_ring_release(tm_shm_ring_t *ring, tm_shm_cell_t *cell);

#endif /* TM_SHM_RING_H */
