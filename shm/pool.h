/*
 * Pool of cells, inside shm/: the structure behind the opaque tm_shm_pool_t, for pool.c and the
 * unit tests (which check growth and reuse through it). The layers above use shm.h only.
 *
 *   owner only (one cache line)                     any thread (its own cache line)
 *   free_list -> c -> c -> c -> NULL                returned -> c -> c -> NULL   (newest first)
 *   first -> [   |cell|cell|...]                 (its first line unused: nothing in it is
 *   chunks -> [hdr|cell|cell|...] -> [hdr|cell|...] -> NULL     written before a cell is)
 *
 * The owner allocates from its private free list. Any thread frees a cell by pushing it on the
 * return list; when the private list runs dry, the owner takes the whole return list at once, and
 * only when both are empty does it add a chunk.
 *
 * Giving back: a pool that grew past its first chunk (a burst of messages nobody received yet)
 * counts the cells it has out, and when the return list it takes back brings that count to
 * zero, every cell is free: it keeps its first chunk and one spare, returns the other chunks to
 * the system, and carves its cells from the first chunk again. An owner that sends nothing from
 * the pool for a while gives the chunks back with tm_shm_pool_trim, at a moment of its choice. A
 * pool of one chunk does not count what it takes back (it has nothing to give), which keeps the
 * steady state's path as it was.
 *
 * Return list: the multi-producer single-consumer list of the Linux kernel's llist
 * (include/linux/llist.h: llist_add, llist_del_all), i.e. a Treiber stack (IBM RJ 5118, 1986)
 * whose only pop takes everything. Progress: free is lock-free (its CAS fails only when another
 * free succeeded), taking the list is wait-free (one exchange). ABA: none; it hurts a pop that
 * reads head->next and then CASes the head, and there is no such pop. A freeing thread only
 * writes its own cell's link before the CAS, and if the head went A -> (taken) -> A meanwhile,
 * A is again the first cell and linking to it is still right.
 */
#ifndef TM_SHM_POOL_H
#define TM_SHM_POOL_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "shm/shm.h"

/* Cells wanted per chunk at least; a chunk is then rounded up to whole pages and filled with as
 * many cells as fit. */
#define TM_SHM_CHUNK_MIN_CELLS 64

/* Head of a chunk, alone on its first cache line, so that the cells behind it stay aligned. */
typedef struct tm_shm_chunk {
    struct tm_shm_chunk *next;
    size_t bytes; /* what numa_free needs back */
} tm_shm_chunk_t;

struct tm_shm_pool {
    /* Owner only: plain fields. */
    tm_shm_cell_t *free_list;
    unsigned char *first;   /* the first chunk, kept until the pool is destroyed */
    size_t first_bytes;     /* what numa_free needs back; 0: the caller's memory */
    tm_shm_chunk_t *chunks; /* the others, newest first */
    size_t cell_size;       /* data bytes asked for */
    size_t stride;          /* bytes from one cell to the next: links + data, in whole lines */
    size_t chunk_bytes;     /* whole pages */
    size_t chunk_cells;
    size_t nchunks; /* the first included */
    /* Cells handed out and not taken back since the pool last grew: exact while nchunks > 1 (set
     * when a chunk is added, when every cell is out). */
    size_t nout;
    /* A chunk kept after giving the others back, used by the next growth before a new one. */
    tm_shm_chunk_t *spare;
    bool *grown; /* the owner's flag, set at each growth (tm_shm_pool_watch), or NULL */
    /* The newest chunk's cells never handed out yet, from `fresh` on: carved one at a time, so
     * that a page is touched (and placed, on the owner's node) only when its first cell is. */
    unsigned char *fresh;
    size_t nfresh;
    int numa_node; /* -1: local to the thread that first touches the memory (the owner);
                    * TM_SHM_NUMA_INTERLEAVE: every node, page by page */
    bool numa;     /* allocate with libnuma, else with aligned_alloc */
    /* Any thread: cells freed and not yet taken back by the owner. Its own line: every remote
     * free writes it, and the owner's allocations should not miss the cache for it. */
    alignas(TM_SHM_CACHE_LINE) tm_shm_cell_t *_Atomic returned;
};

#endif /* TM_SHM_POOL_H */
