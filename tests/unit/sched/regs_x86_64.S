/*
 * Test helpers for x86-64: hold known values in every callee-saved register (rbx rbp r12-r15)
 * across a call, to check that the call (a yield, with its context switches and whatever other
 * ULTs ran meanwhile) gives them back.
 *
 * int tm_test_regs_call(void (*fn)(void)): loads 0x1000 + n into register n, calls fn, and
 *     returns how many of the six registers came back changed.
 * void tm_test_regs_trash(void (*fn)(void)): loads other values into the same registers and
 *     calls fn (the ULT that runs while the checker is switched out).
 */

	.text

	.macro	load base
	movq	$\base + 3, %rbx
	movq	$\base + 5, %rbp
	movq	$\base + 12, %r12
	movq	$\base + 13, %r13
	movq	$\base + 14, %r14
	movq	$\base + 15, %r15
	.endm

	.macro	check reg, value
	cmpq	$\value, \reg
	setne	%cl
	addl	%ecx, %eax
	.endm

	.macro	save
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	subq	$8, %rsp	/* 16-byte alignment at the call */
	.endm

	.macro	restore
	addq	$8, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	.endm

	.globl	tm_test_regs_call
	.type	tm_test_regs_call, @function
tm_test_regs_call:
	save
	load	0x1000
	call	*%rdi
	xorl	%eax, %eax
	xorl	%ecx, %ecx
	check	%rbx, 0x1003
	check	%rbp, 0x1005
	check	%r12, 0x100c
	check	%r13, 0x100d
	check	%r14, 0x100e
	check	%r15, 0x100f
	restore
	ret
	.size	tm_test_regs_call, .-tm_test_regs_call

	.globl	tm_test_regs_trash
	.type	tm_test_regs_trash, @function
tm_test_regs_trash:
	save
	load	0x5000
	call	*%rdi
	restore
	ret
	.size	tm_test_regs_trash, .-tm_test_regs_trash

	.section .note.GNU-stack,"",%progbits
