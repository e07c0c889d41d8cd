/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hw_spin N [M ...]: N iterations of a two-instruction loop, then, if
 * more arguments follow, exec(2) itself with them (so M iterations
 * next), and exit.
 *
 * Freestanding aarch64: no C library and no startup code, so every
 * user-mode instruction this program retires is written below and its
 * count is known exactly. Numbers are given as 8 decimal digits
 * ("00100000"), so that parsing costs the same for every N.
 *
 * Instructions retired in user mode (svc counts as one):
 *   last image:                 52 + 2N   (N = 0 included)
 *   an image that execs on:     56 + 2N
 * The loop's first and last instruction are exported as hw_spin_loop and
 * hw_spin_loop_end, for sampling checks.
 */
__asm__("	.text\n"
	"	.globl	_start\n"
	"	.type	_start, %function\n"
	"_start:\n"
	"	ldr	x21, [sp]\n"	 /* argc */
	"	ldr	x1, [sp, #16]\n" /* argv[1] */
	"	mov	x0, #0\n"
	"	mov	x3, #10\n"	/* 4 so far */
	"1:	ldrb	w2, [x1], #1\n" /* 5 per digit */
	"	cbz	w2, 2f\n"
	"	sub	w2, w2, #'0'\n"
	"	madd	x0, x0, x3, x2\n"
	"	b	1b\n"
	"2:	cbz	x0, 4f\n" /* 2 at the NUL, 1 here */
	"	.globl	hw_spin_loop\n"
	"hw_spin_loop:\n"
	"3:	subs	x0, x0, #1\n" /* 2 per iteration */
	"	.globl	hw_spin_loop_end\n"
	"hw_spin_loop_end:\n"
	"	b.ne	3b\n"
	"4:	cmp	x21, #2\n" /* 2 */
	"	b.gt	5f\n"
	"	mov	x0, #0\n" /* exit_group(0): 3 */
	"	mov	x8, #94\n"
	"	svc	#0\n"
	"5:	ldr	x0, [sp, #8]\n"	 /* execve(argv[0], ...): 7 */
	"	str	x0, [sp, #16]\n" /* argv[0] of the next image */
	"	add	x1, sp, #16\n"
	"	add	x2, sp, x21, lsl #3\n" /* envp: sp + 8 * (argc + 2) */
	"	add	x2, x2, #16\n"
	"	mov	x8, #221\n"
	"	svc	#0\n"
	"	mov	x0, #127\n" /* exec failed */
	"	mov	x8, #94\n"
	"	svc	#0\n");
