/*
 * ULT stacks (see stack.h). Address space is cheap and the kernel commits pages on first touch,
 * so every stack gets its full size at once (8 MiB by default) with MAP_NORESERVE, and only
 * what a ULT touches costs memory.
 */
#include "config.h"

#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef TM_WITH_ASAN
#include <sanitizer/asan_interface.h>
#endif

#include "sched/sched.h"
#include "sched/stack.h"

/* Nodes a placement mask can name: 1024, as many as Linux builds with at most. */
#define TM_SCHED_STACK_NODE_WORDS 16

static size_t tm_sched_stack_page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

size_t tm_sched_stack_round(size_t size)
{
    size_t page = tm_sched_stack_page_size();

    return (size + page - 1) & ~(page - 1);
}

int tm_sched_stack_alloc(size_t size, tm_sched_stack_t *stack_p)
{
    size_t page = tm_sched_stack_page_size();
    void *base;

    if (size == 0 || size % page != 0 || size > SIZE_MAX - page)
        return -EINVAL;
    base = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (base == MAP_FAILED)
        return -errno;
    if (mprotect(base, page, PROT_NONE) != 0) {
        int err = -errno;

        munmap(base, size + page);
        return err;
    }
    stack_p->base = base;
    stack_p->lo = (char *)base + page;
    stack_p->size = size;
    return 0;
}

void tm_sched_stack_free(const tm_sched_stack_t *stack)
{
#ifdef TM_WITH_ASAN
    /* Frames left by a ULT that ended (its last frames never returned) keep their redzones
     * poisoned in the shadow; a later mapping at the same address must not inherit them. */
    __asan_unpoison_memory_region(stack->lo, stack->size);
#endif
    munmap(stack->base, (size_t)((char *)stack->lo - (char *)stack->base) + stack->size);
}

int tm_sched_stack_place(const tm_sched_stack_t *stack, int node)
{
    unsigned long mask[TM_SCHED_STACK_NODE_WORDS] = {0};
    int mode;

    if (node == TM_SCHED_MEM_INTERLEAVE) {
        /* The nodes memory can come from, as libnuma lists them (mbind refuses others). */
        struct bitmask *all = numa_available() >= 0 ? numa_all_nodes_ptr : NULL;

        if (all == NULL)
            return -ENOSYS;
        for (unsigned i = 0; i < all->size && i < 64 * TM_SCHED_STACK_NODE_WORDS; i++)
            if (numa_bitmask_isbitset(all, i))
                mask[i / 64] |= 1ul << (i % 64);
        mode = MPOL_INTERLEAVE;
    } else if (node >= 0 && node < 64 * TM_SCHED_STACK_NODE_WORDS) {
        mask[node / 64] = 1ul << (node % 64);
        mode = MPOL_PREFERRED;
    } else {
        return -EINVAL;
    }
    if (mbind(stack->lo, stack->size, mode, mask, 64 * TM_SCHED_STACK_NODE_WORDS, MPOL_MF_MOVE) !=
        0)
        return -errno;
    return 0;
}

bool tm_sched_stack_overflowed(const tm_sched_stack_t *stack, const void *addr)
{
    uintptr_t guard = (uintptr_t)stack->lo - (uintptr_t)stack->base;
    uintptr_t a = (uintptr_t)addr;

    return a < (uintptr_t)stack->lo && a >= (uintptr_t)stack->base - guard;
}

int tm_sched_stack_cache_get(tm_sched_stack_cache_t *cache, size_t size, tm_sched_stack_t *stack_p)
{
    if (cache != NULL) {
        /* Newest first: its pages are the likeliest to be committed and cached. */
        for (unsigned i = cache->count; i-- > 0;) {
            if (cache->stacks[i].size == size) {
                *stack_p = cache->stacks[i];
                cache->stacks[i] = cache->stacks[--cache->count];
                return 0;
            }
        }
    }
    return tm_sched_stack_alloc(size, stack_p);
}

void tm_sched_stack_cache_put(tm_sched_stack_cache_t *cache, const tm_sched_stack_t *stack)
{
    if (cache->count == TM_SCHED_STACK_CACHE_LEN) {
        tm_sched_stack_free(stack);
        return;
    }
#ifdef TM_WITH_ASAN
    /* Same reason as in tm_sched_stack_free: the next ULT starts with a clean shadow. */
    __asan_unpoison_memory_region(stack->lo, stack->size);
#endif
    cache->stacks[cache->count++] = *stack;
}

void tm_sched_stack_cache_drain(tm_sched_stack_cache_t *cache)
{
    while (cache->count > 0)
        tm_sched_stack_free(&cache->stacks[--cache->count]);
}
