/*
 * ULT stacks (see stack.h). Address space is cheap and the kernel commits pages on first touch,
 * so every stack gets its full size at once (8 MiB by default) with MAP_NORESERVE, and only
 * what a ULT touches costs memory.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef TM_WITH_ASAN
#include <sanitizer/asan_interface.h>
#endif

#include "sched/stack.h"

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
