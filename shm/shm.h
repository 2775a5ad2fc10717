/*
 * ThreadMPI shared-memory transport: the public interface of shm/ for the layers above.
 *
 * Ranks share one address space. Each rank owns
 * - an inbound queue: multi-producer (any rank, any thread), single-consumer (the owner, or
 *   whoever holds the owner's progress), FIFO per producer, lock-free;
 * - a pool of cells: fixed-size blocks that only the owner allocates, that travel to another
 *   rank through its inbound queue, and that the receiver frees back to the owner's pool from
 *   its own thread.
 *
 *   rank A (sender)                         rank B (receiver)
 *   cell = tm_shm_cell_alloc(A.pool)
 *   fill cell->data (header + eager data)
 *   tm_shm_queue_push(&B.inbound, cell) --> cell = tm_shm_queue_pop(&B.inbound)
 *                                           use cell->data
 *   A.pool <------------------------------- tm_shm_cell_free(cell)
 *
 * What a cell carries is the business of the layer above; shm/ only moves cells. Functions
 * return 0 or a negative errno value unless said otherwise.
 */
#ifndef TM_SHM_H
#define TM_SHM_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#define TM_SHM_CACHE_LINE 64

typedef struct tm_shm_pool tm_shm_pool_t;

/* A cell starts a cache line, and its data follows its two links on that line: a message whose
 * envelope and data fit in the line's remaining 48 bytes costs its receiver one line. The data is
 * 8-byte aligned (enough for every C type an MPI message carries). */
typedef struct tm_shm_cell {
    struct tm_shm_cell *_Atomic next; /* link while in a queue or a free list */
    tm_shm_pool_t *pool;              /* owner, for tm_shm_cell_free */
    alignas(8) unsigned char data[];  /* the pool's cell_size bytes */
} tm_shm_cell_t;

/* Data bytes of a cell's first cache line. */
#define TM_SHM_CELL_LINE_DATA (TM_SHM_CACHE_LINE - sizeof(tm_shm_cell_t))

/* MPSC queue (Vyukov's intrusive node queue, see queue.c). Head and tail live on separate cache
 * lines, and the stub on a third; the structure is embedded in its owner's state and initialized
 * with tm_shm_queue_init. */
typedef struct tm_shm_queue {
    alignas(TM_SHM_CACHE_LINE) tm_shm_cell_t *_Atomic tail; /* producers: last cell pushed */
    /* Consumer: the oldest node still in the queue. Written by the consumer only; atomic so that
     * tm_shm_queue_is_empty may read it from any thread. */
    alignas(TM_SHM_CACHE_LINE) tm_shm_cell_t *_Atomic head;
    alignas(TM_SHM_CACHE_LINE)
        tm_shm_cell_t stub; /* sentinel that keeps the list non-empty when all cells are popped */
} tm_shm_queue_t;

void tm_shm_queue_init(tm_shm_queue_t *q);

/* Appends `cell`: any thread, any time; wait-free (one atomic exchange, one store). Cells of one
 * producer come out in the order pushed. The push is a seq_cst exchange on the tail: everything
 * written to the cell before is visible to the consumer that pops it, and a producer may then
 * check with a seq_cst load whether the consumer sleeps (see tm_shm_queue_is_empty). A cell is in
 * at most one queue or free list at a time. */
void tm_shm_queue_push(tm_shm_queue_t *q, tm_shm_cell_t *cell);

/* Takes the oldest cell, or returns NULL when none is available now: consumer only.
 * NULL does not always mean empty: a producer that has started its push but not finished it (a
 * few instructions, unless its kernel thread is preempted right there) hides its cell, and every
 * cell pushed after it, until it finishes. tm_shm_queue_is_empty then reports false: the caller
 * polls again later (after other work, a yield) instead of concluding that nothing came. */
tm_shm_cell_t *tm_shm_queue_pop(tm_shm_queue_t *q);

/* true when no push has started since the queue was last drained; false means a cell was pushed,
 * or a push is under way, so that a pop returns a cell now or soon.
 * Called by the consumer, it is exact, and it is the consumer's side of a sleep/wake handshake:
 * its load of the tail is seq_cst like the producers' exchange (see tm_shm_queue_push), so a
 * consumer that stores "I sleep" (seq_cst) and then sees the queue empty, and a producer that
 * pushes and then loads "does it sleep?" (seq_cst), cannot both miss each other.
 * Called by another thread, it is a hint only: it reads the consumer's head and the tail at two
 * different moments. */
bool tm_shm_queue_is_empty(const tm_shm_queue_t *q);

/* Ring (ring.c): a single-producer single-consumer ring of cells between one sender and one
 * receiver, the fast path for small messages between ranks that talk often (a "fastbox", as MPICH
 * and Open MPI call theirs). The producer writes a cell in place and publishes it with one store;
 * the consumer polls the next cell's line. No atomic read-modify-write, no pointer chasing: a
 * message costs the receiver the cache lines it fills, where the queue adds its links' lines.
 * The consumer may keep popped cells (as unexpected messages, say) and free them in any order;
 * a cell is written again only once every cell before it was freed too. */
typedef struct tm_shm_ring tm_shm_ring_t;

/* A ring of `ncells` (a power of two) cells of `cell_size` data bytes. */
int tm_shm_ring_create(size_t cell_size, size_t ncells, tm_shm_ring_t **ring_p);
/* Data bytes of the ring's cells. */
size_t tm_shm_ring_cell_size(const tm_shm_ring_t *ring);
/* Producer: the next cell to fill, or NULL when the ring is full. The same cell until pushed. */
tm_shm_cell_t *tm_shm_ring_alloc(tm_shm_ring_t *ring);
/* Producer: publishes the cell tm_shm_ring_alloc returned (a release store; the producer may
 * then look for a sleeping consumer with a seq_cst fence and load, as after a queue push). */
void tm_shm_ring_push(tm_shm_ring_t *ring, tm_shm_cell_t *cell);
/* Consumer: the oldest cell pushed and not popped, else NULL; it stays in the ring until
 * tm_shm_ring_pop. */
tm_shm_cell_t *tm_shm_ring_peek(tm_shm_ring_t *ring);
/* Consumer: takes the cell tm_shm_ring_peek returned; it is the consumer's until
 * tm_shm_cell_free (consumer only, for ring cells), and its `next` is free for its lists. */
void tm_shm_ring_pop(tm_shm_ring_t *ring);
/* true when no cell waits to be popped. Exact from the consumer, after a seq_cst fence (the
 * consumer's half of the sleep/wake handshake, as tm_shm_queue_is_empty); a hint from others. */
bool tm_shm_ring_is_empty(const tm_shm_ring_t *ring);
/* Frees the ring; no cell of it may be in use any more. */
void tm_shm_ring_destroy(tm_shm_ring_t *ring);

/* numa_node of tm_shm_pool_create: pages spread round-robin over every NUMA node. */
#define TM_SHM_NUMA_INTERLEAVE (-2)

/* Creates a pool of cells of `cell_size` data bytes, allocated on NUMA node `numa_node` (-1: the
 * caller's node; TM_SHM_NUMA_INTERLEAVE: every node, page by page; no preference where libnuma
 * reports NUMA unavailable). The calling thread's rank owns it: only the owner allocates from
 * it. */
int tm_shm_pool_create(size_t cell_size, int numa_node, tm_shm_pool_t **pool_p);

/* Bytes of a chunk of a pool of cells of `cell_size` data bytes (whole pages). */
size_t tm_shm_pool_chunk_bytes(size_t cell_size);

/* Creates a pool as tm_shm_pool_create does, whose first chunk is `first`:
 * tm_shm_pool_chunk_bytes(cell_size) bytes, page-aligned and untouched, which the caller owns
 * (the pool never frees it) and whose pages the pool places on `numa_node` (-1: where the owner
 * first touches them). Callers that make many pools take their first chunks from one mapping:
 * the kernel bounds the mappings of a process (vm.max_map_count), and one per pool would bound
 * the number of ranks. */
int tm_shm_pool_create_in(size_t cell_size, int numa_node, void *first, tm_shm_pool_t **pool_p);

/* Data bytes of the pool's cells. */
size_t tm_shm_pool_cell_size(const tm_shm_pool_t *pool);

/* A free cell of the pool, growing it when needed; NULL only when memory is exhausted. Owner
 * only. */
tm_shm_cell_t *tm_shm_cell_alloc(tm_shm_pool_t *pool);

/* Owner only: *grown becomes true whenever the pool adds a chunk (the owner clears it), so that
 * the owner knows cheaply when tm_shm_pool_trim has work. */
void tm_shm_pool_watch(tm_shm_pool_t *pool, bool *grown);

/* Owner only: takes back the cells other threads freed and, when every cell is free, gives the
 * pool's chunks back but its first and a spare (as an allocation that finds the pool so does).
 * True while the pool still has more than one chunk. */
bool tm_shm_pool_trim(tm_shm_pool_t *pool);

/* Gives a cell back to its pool (any thread), or to its ring (the ring's consumer only). */
void tm_shm_cell_free(tm_shm_cell_t *cell);

/* Frees the pool and all its memory; every cell must have been freed back. */
void tm_shm_pool_destroy(tm_shm_pool_t *pool);

#endif /* TM_SHM_H */
