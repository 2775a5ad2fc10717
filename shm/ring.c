/*
 * Single-producer single-consumer ring of cells (see shm.h).
 *
 *   cells:  [0][1][2] ... [n-1]           position p lives in cell p mod n
 *   released <= head <= tail <= released + n
 *   [released, head): popped, some maybe freed   [head, tail): pushed, waiting
 *
 * Publication: a cell's `next` word is its stamp. The producer fills cell p, then stores
 * stamp(p) = 2 * (p / n + 1) + 1 into its `next` with release; the consumer's acquire load of
 * that word at its head position sees the stamp of this lap only once the cell's contents are
 * visible. Stamps are odd, so they are never a list link (cells are aligned), NULL, or FREED.
 * Free space: the consumer frees popped cells in any order (FREED in `next`) and moves
 * `released` over the freed prefix, publishing it with release; the producer reads it with
 * acquire only when its private copy says the ring is full, so that its write of a cell comes
 * after the consumer's last use of it.
 * Progress: both sides are wait-free (no loop waits for the other side). There is no ABA: each
 * word has a single writer at a time, and positions are 64-bit counters that do not wrap.
 * Layout: the producer's, the consumer's and the shared `released` words each have their own
 * cache line; cells start on lines (the pool's layout).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "shm/ring.h"

#define FREED ((tm_shm_cell_t *)(uintptr_t)2)

static inline tm_shm_cell_t *ring_cell(const tm_shm_ring_t *ring, uint64_t pos)
{
    return (tm_shm_cell_t *)(ring->cells + (size_t)(pos & (ring->ncells - 1)) * ring->stride);
}

static inline tm_shm_cell_t *ring_stamp(const tm_shm_ring_t *ring, uint64_t pos)
{
    return (tm_shm_cell_t *)(uintptr_t)(2 * ((pos >> ring->lap_shift) + 1) + 1);
}

/* Asks for the line at p for writing (PREFETCHW; on an x86-64 without it, a no-op). */
static inline void prefetch_for_write(const void *p)
{
#if defined(__x86_64__)
    __asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1);
#endif
}

int tm_shm_ring_create(size_t cell_size, size_t ncells, tm_shm_ring_t **ring_p)
{
    if (cell_size == 0 || ncells == 0 || (ncells & (ncells - 1)) != 0 ||
        cell_size > SIZE_MAX / 2 / ncells)
        return -EINVAL;
    tm_shm_ring_t *ring = aligned_alloc(TM_SHM_CACHE_LINE, sizeof *ring);
    if (!ring)
        return -ENOMEM;
    ring->stride = (sizeof(tm_shm_cell_t) + cell_size + TM_SHM_CACHE_LINE - 1) / TM_SHM_CACHE_LINE *
                   TM_SHM_CACHE_LINE;
    ring->cells = aligned_alloc(TM_SHM_CACHE_LINE, ncells * ring->stride);
    if (!ring->cells) {
        free(ring);
        return -ENOMEM;
    }
    ring->ncells = ncells;
    ring->lap_shift = (unsigned)__builtin_ctzll(ncells);
    ring->cell_size = cell_size;
    ring->tail = 0;
    ring->released_seen = 0;
    atomic_init(&ring->head, 0);
    atomic_init(&ring->released, 0);
    for (size_t i = 0; i < ncells; i++) {
        tm_shm_cell_t *cell = ring_cell(ring, i);
        atomic_init(&cell->next, NULL);
        cell->pool = TM_SHM_RING_POOL(ring);
    }
    *ring_p = ring;
    return 0;
}

size_t tm_shm_ring_cell_size(const tm_shm_ring_t *ring)
{
    return ring->cell_size;
}

tm_shm_cell_t *tm_shm_ring_alloc(tm_shm_ring_t *ring)
{
    if (ring->tail - ring->released_seen == ring->ncells) {
        /* Acquire: pairs with the consumer's release of `released`; its reads of the cells it
         * freed come before our writes into them. */
        ring->released_seen = atomic_load_explicit(&ring->released, memory_order_acquire);
        if (ring->tail - ring->released_seen == ring->ncells)
            return NULL;
    }
    return ring_cell(ring, ring->tail);
}

void tm_shm_ring_push(tm_shm_ring_t *ring, tm_shm_cell_t *cell)
{
    /* Release: the cell's contents before its stamp. */
    atomic_store_explicit(&cell->next, ring_stamp(ring, ring->tail), memory_order_release);
    ring->tail++;
    /* The next cell's line was last written by the consumer (it freed the cell a lap ago): ask
     * for it now, for writing, so that the next push does not wait for it. */
    prefetch_for_write(ring_cell(ring, ring->tail));
}

tm_shm_cell_t *tm_shm_ring_peek(tm_shm_ring_t *ring)
{
    uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);
    tm_shm_cell_t *cell = ring_cell(ring, head);
    /* Acquire: pairs with the producer's release of the stamp (the contents). */
    if (atomic_load_explicit(&cell->next, memory_order_acquire) != ring_stamp(ring, head))
        return NULL;
    return cell;
}

void tm_shm_ring_pop(tm_shm_ring_t *ring)
{
    uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);
    /* Relaxed: only this thread writes it; others read it as a hint. */
    atomic_store_explicit(&ring->head, head + 1, memory_order_relaxed);
}

bool tm_shm_ring_is_empty(const tm_shm_ring_t *ring)
{
    uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);
    tm_shm_cell_t *cell = ring_cell(ring, head);
    return atomic_load_explicit(&cell->next, memory_order_acquire) != ring_stamp(ring, head);
}

void tm_shm_ring_release(tm_shm_ring_t *ring, tm_shm_cell_t *cell)
{
    atomic_store_explicit(&cell->next, FREED, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);
    uint64_t released = atomic_load_explicit(&ring->released, memory_order_relaxed);
    uint64_t moved = released;
    while (moved < head &&
           atomic_load_explicit(&ring_cell(ring, moved)->next, memory_order_relaxed) == FREED)
        moved++;
    /* Release: our reads of the cells freed come before the producer writes them again. */
    if (moved != released)
        atomic_store_explicit(&ring->released, moved, memory_order_release);
}

void tm_shm_ring_destroy(tm_shm_ring_t *ring)
{
    if (!ring)
        return;
    free(ring->cells);
    free(ring);
}
