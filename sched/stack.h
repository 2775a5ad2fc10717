/*
 * ULT stacks: mmap'ed, lazily committed, with a PROT_NONE guard page below, and a small per-VP
 * cache so that a VP that finishes and creates ULTs in turn reuses the same few mappings.
 *
 *   base          lo                                  lo + size
 *   +-------------+-----------------------------------+
 *   | guard page  | usable stack (grows downwards <-) |
 *   | PROT_NONE   | PROT_READ | PROT_WRITE, NORESERVE |
 *   +-------------+-----------------------------------+
 */
#ifndef TM_SCHED_STACK_H
#define TM_SCHED_STACK_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tm_sched_stack {
    void *base;  /* start of the mapping: the guard page */
    void *lo;    /* lowest usable byte, just above the guard */
    size_t size; /* usable bytes */
} tm_sched_stack_t;

/* Stacks kept per VP. Each VP runs a handful of ULTs at a time in the common case (ranks plus a
 * progress ULT), so a few entries catch the create-after-finish pattern without hoarding memory. */
#define TM_SCHED_STACK_CACHE_LEN 8

/* Owned by one VP and touched only by its kernel thread: no synchronisation. */
typedef struct tm_sched_stack_cache {
    unsigned count;
    tm_sched_stack_t stacks[TM_SCHED_STACK_CACHE_LEN];
} tm_sched_stack_cache_t;

/* size rounded up to whole pages. */
size_t tm_sched_stack_round(size_t size);

/* Maps a stack of `size` usable bytes (a multiple of the page size) with its guard page. */
int tm_sched_stack_alloc(size_t size, tm_sched_stack_t *stack_p);
void tm_sched_stack_free(const tm_sched_stack_t *stack);

/* Gives the stack's pages, present and future, to NUMA node `node` (>= 0) or to every node in
 * turn (TM_SCHED_MEM_INTERLEAVE); pages already committed move. Best effort: where the kernel
 * refuses (no NUMA, or a container that forbids it) the pages stay where first touched, and the
 * error is returned for callers that care. */
int tm_sched_stack_place(const tm_sched_stack_t *stack, int node);

/* true when addr is in the guard page of stack or in the page just below it: where a
 * stack overflow faults first. Async-signal-safe. */
bool tm_sched_stack_overflowed(const tm_sched_stack_t *stack, const void *addr);

/* A stack of `size` usable bytes from cache when it holds one of that size, else a new one.
 * cache may be NULL (a caller that is not a VP). */
int tm_sched_stack_cache_get(tm_sched_stack_cache_t *cache, size_t size, tm_sched_stack_t *stack_p);
/* Gives a stack no context runs on any more back to cache, or unmaps it when cache is full. */
void tm_sched_stack_cache_put(tm_sched_stack_cache_t *cache, const tm_sched_stack_t *stack);
/* Unmaps every stack of cache. */
void tm_sched_stack_cache_drain(tm_sched_stack_cache_t *cache);

#endif /* TM_SCHED_STACK_H */
