/*
 * Portable ULT context switch on ucontext (--with-context=ucontext), for machines without an
 * assembly switch. swapcontext also saves and restores the signal mask, a system call per
 * switch: expect about ten times the cost of the assembly switch.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "sched/context.h"

/* makecontext passes int arguments only, so the context pointer travels in two halves (shifted
 * in two steps so that a 32-bit uintptr_t does not shift by its width). */
static void tm_sched_context_start(unsigned int lo, unsigned int hi)
{
    tm_sched_context_t *ctx = (tm_sched_context_t *)((((uintptr_t)hi << 16) << 16) | lo);

    ctx->entry(ctx->arg);
    abort();
}

void tm_sched_context_make(tm_sched_context_t *ctx, void *stack_lo, size_t size,
                           tm_sched_context_entry_fn_t entry, void *arg)
{
    uintptr_t self = (uintptr_t)ctx;

    _Static_assert(sizeof(uintptr_t) <= 2 * sizeof(unsigned int),
                   "a pointer must fit in two makecontext arguments");
    ctx->entry = entry;
    ctx->arg = arg;
    if (getcontext(&ctx->uc) != 0)
        abort();
    ctx->uc.uc_stack.ss_sp = stack_lo;
    ctx->uc.uc_stack.ss_size = size;
    ctx->uc.uc_link = NULL;
    makecontext(&ctx->uc, (void (*)(void))tm_sched_context_start, 2, (unsigned int)self,
                (unsigned int)((self >> 16) >> 16));
}

void tm_sched_context_switch(tm_sched_context_t *from, tm_sched_context_t *to)
{
    if (swapcontext(&from->uc, &to->uc) != 0)
        abort();
}
