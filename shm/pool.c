/*
 * Pools of fixed-size cells (see pool.h for the structure, its diagram and the return list's
 * algorithm). Memory comes in chunks from the pool's NUMA node through libnuma, or mapped
 * without a policy where libnuma reports NUMA unavailable. A pool grows a chunk at a time, gives
 * all but its first chunk and a spare back once every cell is free again (pool.h), and the rest
 * when it is destroyed.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <numa.h>

#include "shm/pool.h"
#include "shm/ring.h"

_Static_assert(sizeof(tm_shm_chunk_t) <= TM_SHM_CACHE_LINE, "a chunk header fits one line");
_Static_assert(sizeof(tm_shm_cell_t) < TM_SHM_CACHE_LINE, "a cell's links leave room on its line");
_Static_assert(offsetof(struct tm_shm_pool, returned) >= TM_SHM_CACHE_LINE,
               "the return list away from the owner's fields");

/* Beyond this, TM_SHM_CHUNK_MIN_CELLS cells and the page rounding could overflow a size_t. */
#define TM_SHM_CELL_SIZE_MAX (SIZE_MAX / (4 * TM_SHM_CHUNK_MIN_CELLS))

static size_t tm_shm_round_up(size_t n, size_t multiple)
{
    return (n + multiple - 1) / multiple * multiple;
}

/* Gives back `bytes` of memory at mem; 0 bytes: the caller's (tm_shm_pool_create_in). */
static void tm_shm_memory_release(const tm_shm_pool_t *pool, void *mem, size_t bytes)
{
    if (bytes == 0)
        return;
    if (pool->numa)
        numa_free(mem, bytes);
    else
        munmap(mem, bytes);
}

/* Makes `mem` the pool's newest chunk; `bytes` 0: the caller's memory, never freed here. The
 * first chunk has no header: it would be a page written for every pool, used or not. */
static void tm_shm_pool_add_chunk(tm_shm_pool_t *pool, unsigned char *mem, size_t bytes)
{
    if (pool->first == NULL) {
        pool->first = mem;
        pool->first_bytes = bytes;
    } else {
        tm_shm_chunk_t *chunk = (tm_shm_chunk_t *)mem;
        chunk->next = pool->chunks;
        chunk->bytes = bytes;
        pool->chunks = chunk;
    }
    pool->nchunks++;
    /* No cell is written now: a page is first touched when its first cell is handed out, by the
     * owner, which is what places the pages of a numa_alloc_local chunk on the owner's node; a
     * rank that sends few messages at a time touches few pages (the first chunk of every
     * mailbox is made at MPI_Init). */
    pool->fresh = mem + TM_SHM_CACHE_LINE;
    pool->nfresh = pool->chunk_cells;
}

/* Adds a chunk, whose cells are then carved one by one (tm_shm_cell_alloc): the spare if there
 * is one. Called when no cell is free, so that every cell carved so far is out. */
static int tm_shm_pool_grow(tm_shm_pool_t *pool)
{
    unsigned char *mem;
    size_t bytes = pool->chunk_bytes;

    if (pool->spare) {
        mem = (unsigned char *)pool->spare;
        bytes = pool->spare->bytes;
        pool->spare = NULL;
    } else if (!pool->numa) {
        /* Mapped, as libnuma would: a chunk given back leaves no hole in a heap. */
        mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mem == MAP_FAILED)
            mem = NULL;
    } else if (pool->numa_node == TM_SHM_NUMA_INTERLEAVE)
        mem = numa_alloc_interleaved(pool->chunk_bytes);
    else if (pool->numa_node < 0)
        mem = numa_alloc_local(pool->chunk_bytes);
    else
        mem = numa_alloc_onnode(pool->chunk_bytes, pool->numa_node);
    if (mem == NULL)
        return -ENOMEM;
    pool->nout = pool->nchunks * pool->chunk_cells;
    tm_shm_pool_add_chunk(pool, mem, bytes);
    if (pool->grown)
        *pool->grown = true;
    return 0;
}

/* Every cell is free (none out, the lists forgotten): keeps the first chunk, whose cells are
 * carved again from its start, and one other as the spare; gives the others back. */
static void tm_shm_pool_shrink(tm_shm_pool_t *pool)
{
    for (tm_shm_chunk_t *chunk = pool->chunks, *next; chunk != NULL; chunk = next) {
        next = chunk->next;
        if (pool->spare == NULL)
            pool->spare = chunk;
        else
            tm_shm_memory_release(pool, chunk, chunk->bytes);
    }
    pool->chunks = NULL;
    pool->nchunks = 1;
    pool->free_list = NULL;
    pool->fresh = pool->first + TM_SHM_CACHE_LINE;
    pool->nfresh = pool->chunk_cells;
}

/* The next never-used cell of the newest chunk (there is one). */
static tm_shm_cell_t *tm_shm_pool_carve(tm_shm_pool_t *pool)
{
    tm_shm_cell_t *cell = (tm_shm_cell_t *)pool->fresh;

    pool->fresh += pool->stride;
    pool->nfresh--;
    cell->pool = pool;
    atomic_store_explicit(&cell->next, NULL, memory_order_relaxed);
    return cell;
}

static size_t tm_shm_pool_stride(size_t cell_size)
{
    return tm_shm_round_up(sizeof(tm_shm_cell_t) + cell_size, TM_SHM_CACHE_LINE);
}

size_t tm_shm_pool_chunk_bytes(size_t cell_size)
{
    /* numa_alloc_* hands out whole pages anyway: fill them with cells rather than waste them. */
    return tm_shm_round_up(TM_SHM_CACHE_LINE +
                               TM_SHM_CHUNK_MIN_CELLS * tm_shm_pool_stride(cell_size),
                           (size_t)sysconf(_SC_PAGESIZE));
}

/* A pool without chunks, or NULL. */
static tm_shm_pool_t *tm_shm_pool_new(size_t cell_size, int numa_node, bool numa)
{
    tm_shm_pool_t *pool = aligned_alloc(TM_SHM_CACHE_LINE, sizeof(*pool));
    if (pool == NULL)
        return NULL;
    pool->free_list = NULL;
    pool->first = NULL;
    pool->first_bytes = 0;
    pool->chunks = NULL;
    pool->nchunks = 0;
    pool->nout = 0;
    pool->spare = NULL;
    pool->grown = NULL;
    pool->fresh = NULL;
    pool->nfresh = 0;
    pool->cell_size = cell_size;
    pool->stride = tm_shm_pool_stride(cell_size);
    pool->chunk_bytes = tm_shm_pool_chunk_bytes(cell_size);
    pool->chunk_cells = (pool->chunk_bytes - TM_SHM_CACHE_LINE) / pool->stride;
    pool->numa_node = numa ? numa_node : -1;
    pool->numa = numa;
    atomic_init(&pool->returned, NULL);
    return pool;
}

/* The checks of both ways to create a pool: 0, -EINVAL or -ENOMEM. */
static int tm_shm_pool_check(size_t cell_size, int numa_node, bool numa)
{
    if (cell_size == 0 || (numa_node < -1 && numa_node != TM_SHM_NUMA_INTERLEAVE))
        return -EINVAL;
    /* Without NUMA support there is nothing to place: any node means "no preference" (hwloc may
     * still list nodes where the kernel refuses libnuma its system calls, e.g. in containers). */
    if (numa && numa_node >= 0 &&
        (numa_node > numa_max_node() || !numa_bitmask_isbitset(numa_all_nodes_ptr, numa_node)))
        return -EINVAL;
    if (cell_size > TM_SHM_CELL_SIZE_MAX)
        return -ENOMEM;
    return 0;
}

int tm_shm_pool_create(size_t cell_size, int numa_node, tm_shm_pool_t **pool_p)
{
    bool numa = numa_available() >= 0;
    int err = tm_shm_pool_check(cell_size, numa_node, numa);
    if (err != 0)
        return err;
    tm_shm_pool_t *pool = tm_shm_pool_new(cell_size, numa_node, numa);
    if (pool == NULL)
        return -ENOMEM;
    /* The first chunk now: creation is where running out of memory is expected to show. */
    err = tm_shm_pool_grow(pool);
    if (err != 0) {
        free(pool);
        return err;
    }
    *pool_p = pool;
    return 0;
}

int tm_shm_pool_create_in(size_t cell_size, int numa_node, void *first, tm_shm_pool_t **pool_p)
{
    bool numa = numa_available() >= 0;
    int err = tm_shm_pool_check(cell_size, numa_node, numa);
    if (err != 0)
        return err;
    if (first == NULL || (uintptr_t)first % (size_t)sysconf(_SC_PAGESIZE) != 0)
        return -EINVAL;
    tm_shm_pool_t *pool = tm_shm_pool_new(cell_size, numa_node, numa);
    if (pool == NULL)
        return -ENOMEM;
    /* The policy of the chunk's pages, set before any is touched. Neighbouring chunks with the
     * same policy stay one mapping for the kernel; -1 leaves the pages to the first touch, the
     * owner's. */
    if (numa && numa_node == TM_SHM_NUMA_INTERLEAVE)
        numa_interleave_memory(first, pool->chunk_bytes, numa_all_nodes_ptr);
    else if (numa && numa_node >= 0)
        numa_tonode_memory(first, pool->chunk_bytes, numa_node);
    tm_shm_pool_add_chunk(pool, first, 0);
    *pool_p = pool;
    return 0;
}

size_t tm_shm_pool_cell_size(const tm_shm_pool_t *pool)
{
    return pool->cell_size;
}

/* Takes back the return list (not empty) onto the private list. A pool of several chunks counts
 * them, and gives chunks back when that makes every cell free: false then, the lists empty and
 * the first chunk's cells to carve again. */
static bool tm_shm_pool_take_back(tm_shm_pool_t *pool)
{
    /* Acquire: pairs with the release CAS of every free before it (a chain of RMWs on
     * `returned`), so the cells' links, and the freeing threads' last uses of the cells, come
     * before the owner's reuse. */
    tm_shm_cell_t *list = atomic_exchange_explicit(&pool->returned, NULL, memory_order_acquire);
    if (pool->nchunks == 1 && pool->free_list == NULL) {
        pool->free_list = list;
        return true;
    }
    tm_shm_cell_t *last = list;
    size_t n = 1;
    for (tm_shm_cell_t *next; (next = atomic_load_explicit(&last->next, memory_order_relaxed));
         last = next)
        n++;
    if (pool->nchunks > 1 && (pool->nout -= n) == 0) {
        tm_shm_pool_shrink(pool);
        return false;
    }
    atomic_store_explicit(&last->next, pool->free_list, memory_order_relaxed);
    pool->free_list = list;
    return true;
}

/* The private list is empty: take back what other threads freed (warm in a cache), else carve
 * a cell never used, else grow. Returns a cell, out of the lists, or NULL. */
static tm_shm_cell_t *tm_shm_pool_refill(tm_shm_pool_t *pool)
{
    /* Relaxed test first: the exchange would take the line exclusive even when it finds the
     * list empty, and the freeing threads would have to take it back. */
    if (atomic_load_explicit(&pool->returned, memory_order_relaxed) != NULL &&
        tm_shm_pool_take_back(pool)) {
        tm_shm_cell_t *cell = pool->free_list;
        pool->free_list = atomic_load_explicit(&cell->next, memory_order_relaxed);
        pool->nout++;
        return cell;
    }
    if (pool->nfresh == 0 && tm_shm_pool_grow(pool) != 0)
        return NULL;
    pool->nout++;
    return tm_shm_pool_carve(pool);
}

void tm_shm_pool_watch(tm_shm_pool_t *pool, bool *grown)
{
    pool->grown = grown;
}

bool tm_shm_pool_trim(tm_shm_pool_t *pool)
{
    if (pool->nchunks > 1 && atomic_load_explicit(&pool->returned, memory_order_relaxed) != NULL)
        tm_shm_pool_take_back(pool);
    return pool->nchunks > 1;
}

tm_shm_cell_t *tm_shm_cell_alloc(tm_shm_pool_t *pool)
{
    tm_shm_cell_t *cell = pool->free_list;

    if (cell == NULL)
        return tm_shm_pool_refill(pool);
    /* Relaxed: the owner wrote this link itself, or took the cell with the acquire exchange. */
    pool->free_list = atomic_load_explicit(&cell->next, memory_order_relaxed);
    pool->nout++;
    return cell;
}

void tm_shm_cell_free(tm_shm_cell_t *cell)
{
    tm_shm_pool_t *pool = cell->pool;
    tm_shm_cell_t *head;

    assert(pool != NULL && "a queue's stub is not a pool's cell");
    if (TM_SHM_POOL_IS_RING(pool)) {
        tm_shm_ring_release(TM_SHM_POOL_RING(pool), cell);
        return;
    }
    head = atomic_load_explicit(&pool->returned, memory_order_relaxed);
    do
        atomic_store_explicit(&cell->next, head, memory_order_relaxed);
    /* Release: publishes the link above and ends this thread's use of the cell before the
     * owner's acquire exchange hands it out again. */
    while (!atomic_compare_exchange_weak_explicit(&pool->returned, &head, cell,
                                                  memory_order_release, memory_order_relaxed));
}

#ifndef NDEBUG
static size_t tm_shm_list_length(const tm_shm_cell_t *cell)
{
    size_t n = 0;

    for (; cell != NULL; cell = atomic_load_explicit(&cell->next, memory_order_relaxed))
        n++;
    return n;
}
#endif

void tm_shm_pool_destroy(tm_shm_pool_t *pool)
{
    tm_shm_chunk_t *chunk, *next;
    tm_shm_cell_t *returned;

    if (pool == NULL)
        return;
    /* Acquire, as in refill: the last frees came from other threads, and their writes to the
     * cells must come before the chunks go back to the system. */
    returned = atomic_exchange_explicit(&pool->returned, NULL, memory_order_acquire);
    assert(tm_shm_list_length(pool->free_list) + tm_shm_list_length(returned) + pool->nfresh ==
               pool->nchunks * pool->chunk_cells &&
           "every cell freed back before the pool is destroyed");
    (void)returned;
    for (chunk = pool->chunks; chunk != NULL; chunk = next) {
        next = chunk->next;
        tm_shm_memory_release(pool, chunk, chunk->bytes);
    }
    if (pool->spare)
        tm_shm_memory_release(pool, pool->spare, pool->spare->bytes);
    tm_shm_memory_release(pool, pool->first, pool->first_bytes);
    free(pool);
}
