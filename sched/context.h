/*
 * Execution contexts of sched/: what a context switch saves, and how a new context starts.
 *
 * Two implementations, chosen by configure:
 * - assembly (context_x86_64.S, context_aarch64.S): a context is just the stack pointer of a
 *   suspended stack. Switching pushes the callee-saved registers on the current stack, stores
 *   the stack pointer, loads the other one and pops its registers. Everything else is either
 *   caller-saved (the compiler already spilled it around the call) or shared by the kernel
 *   thread. x86-64 saves rbx rbp r12-r15 plus MXCSR and the x87 control word (their control bits
 *   are callee-saved in the SysV ABI); aarch64 saves x19-x30 and d8-d15 (AAPCS64).
 *
 *      high addresses                    a suspended x86-64 context
 *      +----------------------------+
 *      | frames of the suspended    |
 *      | code                       |
 *      | return address into it     |
 *      | rbp rbx r12 r13 r14 r15    |
 *      | MXCSR, x87 control word    |  <- sp stored in tm_sched_context_t
 *      +----------------------------+
 *
 *   A new context gets the same frame, built by tm_sched_context_make_asm(), whose return
 *   address is a small trampoline that calls entry(arg).
 * - ucontext (TM_SCHED_CONTEXT_UCONTEXT, --with-context=ucontext): portable but each switch
 *   costs a sigprocmask system call.
 *
 * Both are plain switches: no allocation, no signal-safety, no sanitizer annotation (the
 * callers in vp.c and ult.c annotate switches for ASan and TSan).
 */
#ifndef TM_SCHED_CONTEXT_H
#define TM_SCHED_CONTEXT_H

#include <stddef.h>

/* The function a new context runs. It must never return: a ULT leaves its context by switching
 * away for the last time. */
typedef void (*tm_sched_context_entry_fn_t)(void *arg);

#ifdef TM_SCHED_CONTEXT_UCONTEXT

#include <ucontext.h>

typedef struct tm_sched_context {
    ucontext_t uc;
    tm_sched_context_entry_fn_t entry;
    void *arg;
} tm_sched_context_t;

/* Prepares ctx to run entry(arg) on the stack [stack_lo, stack_lo + size). */
void tm_sched_context_make(tm_sched_context_t *ctx, void *stack_lo, size_t size,
                           tm_sched_context_entry_fn_t entry, void *arg);

/* Saves the running context in from and resumes to. Returns when some context switches back
 * to from. */
void tm_sched_context_switch(tm_sched_context_t *from, tm_sched_context_t *to);

#else /* assembly */

typedef struct tm_sched_context {
    void *sp;
} tm_sched_context_t;

/* In context_<arch>.S. make returns the stack pointer of a new suspended frame built below
 * stack_top (rounded down to 16 bytes); switch stores the current stack pointer in *from_sp_p
 * and resumes the context suspended at to_sp. */
void *tm_sched_context_make_asm(void *stack_top, tm_sched_context_entry_fn_t entry, void *arg);
void tm_sched_context_switch_asm(void **from_sp_p, void *to_sp);

static inline void tm_sched_context_make(tm_sched_context_t *ctx, void *stack_lo, size_t size,
                                         tm_sched_context_entry_fn_t entry, void *arg)
{
    ctx->sp = tm_sched_context_make_asm((char *)stack_lo + size, entry, arg);
}

static inline void tm_sched_context_switch(tm_sched_context_t *from, tm_sched_context_t *to)
{
    tm_sched_context_switch_asm(&from->sp, to->sp);
}

#endif /* TM_SCHED_CONTEXT_UCONTEXT */

#endif /* TM_SCHED_CONTEXT_H */
