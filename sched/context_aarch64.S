/*
 * AArch64 (AAPCS64) context switch for ULTs; see context.h for the idea.
 *
 * Only the callee-saved state is kept: x19-x28, the frame pointer x29, the link register x30
 * (the resume point), sp, and the low halves d8-d15 of v8-v15 (AAPCS64 makes only those
 * callee-saved). FPCR is not switched, as in Boost.Context: a ULT that changes its rounding mode
 * changes it for its VP. sp stays 16-byte aligned throughout, as the architecture requires.
 *
 *   sp + 144  d14 d15
 *   sp + 128  d12 d13
 *   sp + 112  d10 d11
 *   sp +  96  d8  d9
 *   sp +  80  x29 x30
 *   sp +  64  x27 x28
 *   sp +  48  x25 x26
 *   sp +  32  x23 x24
 *   sp +  16  x21 x22
 *   sp +   0  x19 x20
 */

	.text

/* void tm_sched_context_switch_asm(void **from_sp_p (x0), void *to_sp (x1)) */
	.globl	tm_sched_context_switch_asm
	.hidden	tm_sched_context_switch_asm
	.type	tm_sched_context_switch_asm, %function
	.p2align 4
tm_sched_context_switch_asm:
	.cfi_startproc
	sub	sp, sp, #160
	.cfi_def_cfa_offset 160
	stp	x19, x20, [sp, #0]
	.cfi_offset x19, -160
	.cfi_offset x20, -152
	stp	x21, x22, [sp, #16]
	.cfi_offset x21, -144
	.cfi_offset x22, -136
	stp	x23, x24, [sp, #32]
	.cfi_offset x23, -128
	.cfi_offset x24, -120
	stp	x25, x26, [sp, #48]
	.cfi_offset x25, -112
	.cfi_offset x26, -104
	stp	x27, x28, [sp, #64]
	.cfi_offset x27, -96
	.cfi_offset x28, -88
	stp	x29, x30, [sp, #80]
	.cfi_offset x29, -80
	.cfi_offset x30, -72
	stp	d8, d9, [sp, #96]
	stp	d10, d11, [sp, #112]
	stp	d12, d13, [sp, #128]
	stp	d14, d15, [sp, #144]

	/* The other stack has the same frame layout, so the CFI above describes it too. */
	mov	x9, sp
	str	x9, [x0]
	mov	sp, x1

	ldp	x19, x20, [sp, #0]
	ldp	x21, x22, [sp, #16]
	ldp	x23, x24, [sp, #32]
	ldp	x25, x26, [sp, #48]
	ldp	x27, x28, [sp, #64]
	ldp	x29, x30, [sp, #80]
	ldp	d8, d9, [sp, #96]
	ldp	d10, d11, [sp, #112]
	ldp	d12, d13, [sp, #128]
	ldp	d14, d15, [sp, #144]
	add	sp, sp, #160
	.cfi_def_cfa_offset 0
	.cfi_restore x19
	.cfi_restore x20
	.cfi_restore x21
	.cfi_restore x22
	.cfi_restore x23
	.cfi_restore x24
	.cfi_restore x25
	.cfi_restore x26
	.cfi_restore x27
	.cfi_restore x28
	.cfi_restore x29
	.cfi_restore x30
	ret
	.cfi_endproc
	.size	tm_sched_context_switch_asm, .-tm_sched_context_switch_asm

/*
 * void *tm_sched_context_make_asm(void *stack_top (x0), void (*entry)(void *) (x1),
 *                                 void *arg (x2))
 *
 * Builds a suspended frame whose x30 is the trampoline, with entry in x19 and arg in x20, and
 * every other saved register zero (x29 = 0 ends frame-pointer walks). The 16 bytes at the top
 * stay zero; after the switch's ret, sp = top - 16.
 */
	.globl	tm_sched_context_make_asm
	.hidden	tm_sched_context_make_asm
	.type	tm_sched_context_make_asm, %function
	.p2align 4
tm_sched_context_make_asm:
	.cfi_startproc
	and	x9, x0, #-16
	sub	x9, x9, #176
	stp	xzr, xzr, [x9, #160]
	stp	x1, x2, [x9, #0]
	stp	xzr, xzr, [x9, #16]
	stp	xzr, xzr, [x9, #32]
	stp	xzr, xzr, [x9, #48]
	stp	xzr, xzr, [x9, #64]
	adr	x10, tm_sched_context_trampoline
	stp	xzr, x10, [x9, #80]
	stp	xzr, xzr, [x9, #96]
	stp	xzr, xzr, [x9, #112]
	stp	xzr, xzr, [x9, #128]
	stp	xzr, xzr, [x9, #144]
	mov	x0, x9
	ret
	.cfi_endproc
	.size	tm_sched_context_make_asm, .-tm_sched_context_make_asm

/* First code of a new context: entry(arg). entry never returns; brk makes sure a bug that lets
 * it return traps here instead of running whatever follows. */
	.type	tm_sched_context_trampoline, %function
	.p2align 4
tm_sched_context_trampoline:
	.cfi_startproc
	.cfi_undefined x30
	mov	x0, x20
	blr	x19
	brk	#0
	.cfi_endproc
	.size	tm_sched_context_trampoline, .-tm_sched_context_trampoline

	.section .note.GNU-stack,"",%progbits
