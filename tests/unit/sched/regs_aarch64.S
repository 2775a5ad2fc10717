/*
 * Test helpers for AArch64: hold known values in every callee-saved register (x19-x29 and
 * d8-d15) across a call, to check that the call (a yield, with its context switches and whatever
 * other ULTs ran meanwhile) gives them back.
 *
 * int tm_test_regs_call(void (*fn)(void)): loads 0x1000 + n into register n (d8-d15: 0x1100 + n),
 *     calls fn, and returns how many of the nineteen registers came back changed.
 * void tm_test_regs_trash(void (*fn)(void)): loads other values into the same registers and
 *     calls fn (the ULT that runs while the checker is switched out).
 */

	.text

	.macro	load base
	mov	x19, #\base + 19
	mov	x20, #\base + 20
	mov	x21, #\base + 21
	mov	x22, #\base + 22
	mov	x23, #\base + 23
	mov	x24, #\base + 24
	mov	x25, #\base + 25
	mov	x26, #\base + 26
	mov	x27, #\base + 27
	mov	x28, #\base + 28
	mov	x29, #\base + 29
	mov	x9, #\base + 0x108
	fmov	d8, x9
	mov	x9, #\base + 0x109
	fmov	d9, x9
	mov	x9, #\base + 0x10a
	fmov	d10, x9
	mov	x9, #\base + 0x10b
	fmov	d11, x9
	mov	x9, #\base + 0x10c
	fmov	d12, x9
	mov	x9, #\base + 0x10d
	fmov	d13, x9
	mov	x9, #\base + 0x10e
	fmov	d14, x9
	mov	x9, #\base + 0x10f
	fmov	d15, x9
	.endm

	.macro	check reg, value
	mov	x10, #\value
	cmp	\reg, x10
	cinc	w0, w0, ne
	.endm

	.macro	checkd reg, value
	fmov	x9, \reg
	check	x9, \value
	.endm

	.macro	save
	stp	x29, x30, [sp, #-160]!
	stp	x19, x20, [sp, #16]
	stp	x21, x22, [sp, #32]
	stp	x23, x24, [sp, #48]
	stp	x25, x26, [sp, #64]
	stp	x27, x28, [sp, #80]
	stp	d8, d9, [sp, #96]
	stp	d10, d11, [sp, #112]
	stp	d12, d13, [sp, #128]
	stp	d14, d15, [sp, #144]
	.endm

	.macro	restore
	ldp	x19, x20, [sp, #16]
	ldp	x21, x22, [sp, #32]
	ldp	x23, x24, [sp, #48]
	ldp	x25, x26, [sp, #64]
	ldp	x27, x28, [sp, #80]
	ldp	d8, d9, [sp, #96]
	ldp	d10, d11, [sp, #112]
	ldp	d12, d13, [sp, #128]
	ldp	d14, d15, [sp, #144]
	ldp	x29, x30, [sp], #160
	.endm

	.globl	tm_test_regs_call
	.type	tm_test_regs_call, %function
tm_test_regs_call:
	save
	load	0x1000
	blr	x0
	mov	w0, #0
	check	x19, 0x1013
	check	x20, 0x1014
	check	x21, 0x1015
	check	x22, 0x1016
	check	x23, 0x1017
	check	x24, 0x1018
	check	x25, 0x1019
	check	x26, 0x101a
	check	x27, 0x101b
	check	x28, 0x101c
	check	x29, 0x101d
	checkd	d8, 0x1108
	checkd	d9, 0x1109
	checkd	d10, 0x110a
	checkd	d11, 0x110b
	checkd	d12, 0x110c
	checkd	d13, 0x110d
	checkd	d14, 0x110e
	checkd	d15, 0x110f
	restore
	ret
	.size	tm_test_regs_call, .-tm_test_regs_call

	.globl	tm_test_regs_trash
	.type	tm_test_regs_trash, %function
tm_test_regs_trash:
	save
	load	0x5000
	blr	x0
	restore
	ret
	.size	tm_test_regs_trash, .-tm_test_regs_trash

	.section .note.GNU-stack,"",%progbits
