/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hw_fork N: fork(2); the child runs 2N iterations of a two-instruction
 * loop and exits, the parent runs N, waits for the child and exits.
 *
 * Freestanding aarch64, so the user-mode instructions are known exactly
 * (N as 8 decimal digits; svc counts as one; a blocked wait4 retires no
 * user instructions):
 *   parent:   65 + 2N
 *   child:     6 + 4N     (from the instruction after fork)
 */
__asm__("	.text\n"
	"	.globl	_start\n"
	"	.type	_start, %function\n"
	"_start:\n"
	"	ldr	x1, [sp, #16]\n" /* argv[1]: N */
	"	mov	x0, #0\n"
	"	mov	x3, #10\n"	/* 3 */
	"1:	ldrb	w2, [x1], #1\n" /* 5 per digit, 2 at the NUL */
	"	cbz	w2, 2f\n"
	"	sub	w2, w2, #'0'\n"
	"	madd	x0, x0, x3, x2\n"
	"	b	1b\n"
	"2:	mov	x19, x0\n" /* 1 */
	"	mov	x0, #17\n" /* clone(SIGCHLD, 0, 0, 0, 0): 7 */
	"	mov	x1, #0\n"
	"	mov	x2, #0\n"
	"	mov	x3, #0\n"
	"	mov	x4, #0\n"
	"	mov	x8, #220\n"
	"	svc	#0\n"
	"	cbz	x0, 6f\n"  /* 1 */
	"	mov	x0, x19\n" /* parent: 2 + 2N */
	"	cbz	x0, 4f\n"
	"3:	subs	x0, x0, #1\n"
	"	b.ne	3b\n"
	"4:	mov	x0, #-1\n" /* wait4(-1, 0, 0, 0): 6 */
	"	mov	x1, #0\n"
	"	mov	x2, #0\n"
	"	mov	x3, #0\n"
	"	mov	x8, #260\n"
	"	svc	#0\n"
	"	mov	x0, #0\n" /* exit_group(0): 3 */
	"	mov	x8, #94\n"
	"	svc	#0\n"
	"6:	lsl	x0, x19, #1\n" /* child: 1 (cbz above) + 2 + 4N + 3 */
	"	cbz	x0, 8f\n"
	"7:	subs	x0, x0, #1\n"
	"	b.ne	7b\n"
	"8:	mov	x0, #0\n"
	"	mov	x8, #94\n"
	"	svc	#0\n");
