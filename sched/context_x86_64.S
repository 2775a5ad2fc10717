/*
 * x86-64 (System V ABI) context switch for ULTs; see context.h for the frame it keeps.
 *
 * Only the callee-saved state is kept: rbx rbp r12-r15, rsp, and the control parts of MXCSR and
 * of the x87 FPU control word, which the ABI also makes callee-saved (a ULT that changes its
 * rounding mode must not change its neighbours'). The return address of the call is the
 * resume point, so the frame below is all a suspended context is.
 *
 *   sp + 56  return address
 *   sp + 48  rbp
 *   sp + 40  rbx
 *   sp + 32  r12
 *   sp + 24  r13
 *   sp + 16  r14
 *   sp +  8  r15
 *   sp +  4  x87 control word (16 bits)
 *   sp +  0  MXCSR (32 bits)
 */

	.text

/* void tm_sched_context_switch_asm(void **from_sp_p (rdi), void *to_sp (rsi)) */
	.globl	tm_sched_context_switch_asm
	.hidden	tm_sched_context_switch_asm
	.type	tm_sched_context_switch_asm, @function
	.p2align 4
tm_sched_context_switch_asm:
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbp, 0
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbx, 0
	pushq	%r12
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r12, 0
	pushq	%r13
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r13, 0
	pushq	%r14
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r14, 0
	pushq	%r15
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r15, 0
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	stmxcsr	(%rsp)
	fnstcw	4(%rsp)

	/* The other stack has the same frame layout, so the CFI above describes it too. */
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp

	ldmxcsr	(%rsp)
	fldcw	4(%rsp)
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%r15
	.cfi_adjust_cfa_offset -8
	.cfi_restore r15
	popq	%r14
	.cfi_adjust_cfa_offset -8
	.cfi_restore r14
	popq	%r13
	.cfi_adjust_cfa_offset -8
	.cfi_restore r13
	popq	%r12
	.cfi_adjust_cfa_offset -8
	.cfi_restore r12
	popq	%rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore rbx
	popq	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore rbp
	ret
	.cfi_endproc
	.size	tm_sched_context_switch_asm, .-tm_sched_context_switch_asm

/*
 * void *tm_sched_context_make_asm(void *stack_top (rdi), void (*entry)(void *) (rsi),
 *                                 void *arg (rdx))
 *
 * Builds a suspended frame whose return address is the trampoline, with entry in rbx and arg in
 * r12. The 16 bytes at the top stay zero: a null return address and frame pointer where
 * debuggers stop unwinding. After the switch's ret, rsp = top - 16, aligned as a call needs.
 * The floating-point controls are the creating thread's, as a new pthread inherits them.
 */
	.globl	tm_sched_context_make_asm
	.hidden	tm_sched_context_make_asm
	.type	tm_sched_context_make_asm, @function
	.p2align 4
tm_sched_context_make_asm:
	.cfi_startproc
	movq	%rdi, %rax
	andq	$-16, %rax
	subq	$80, %rax
	xorl	%ecx, %ecx
	movq	%rcx, 72(%rax)
	movq	%rcx, 64(%rax)
	leaq	tm_sched_context_trampoline(%rip), %r8
	movq	%r8, 56(%rax)
	movq	%rcx, 48(%rax)
	movq	%rsi, 40(%rax)
	movq	%rdx, 32(%rax)
	movq	%rcx, 24(%rax)
	movq	%rcx, 16(%rax)
	movq	%rcx, 8(%rax)
	stmxcsr	(%rax)
	fnstcw	4(%rax)
	ret
	.cfi_endproc
	.size	tm_sched_context_make_asm, .-tm_sched_context_make_asm

/* First code of a new context: entry(arg). entry never returns; ud2 makes sure a bug that lets
 * it return traps here instead of running whatever follows. */
	.type	tm_sched_context_trampoline, @function
	.p2align 4
tm_sched_context_trampoline:
	.cfi_startproc
	.cfi_undefined rip
	movq	%r12, %rdi
	callq	*%rbx
	ud2
	.cfi_endproc
	.size	tm_sched_context_trampoline, .-tm_sched_context_trampoline

	.section .note.GNU-stack,"",%progbits
