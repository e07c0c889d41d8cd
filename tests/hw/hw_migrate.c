/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hw_migrate N M: N iterations of a two-instruction loop on CPU 0, then M
 * on CPU 1 (sched_setaffinity(2) before each), and exit: a thread that
 * runs on each core type of the hybrid guest in turn.
 *
 * Freestanding aarch64, as hw_spin: every user-mode instruction it
 * retires is written below. Numbers are 8 decimal digits. Its loops
 * retire 2N instructions on CPU 0 and 2M on CPU 1; parsing, pinning and
 * exiting add about a hundred, on whichever CPU it is on at the time.
 * The affinity mask lives on the stack, below argc.
 */
__asm__("	.text\n"
	"	.globl	_start\n"
	"	.type	_start, %function\n"
	"_start:\n"
	"	mov	x20, sp\n"
	"	mov	x22, #1\n"	  /* the CPU mask: CPU 0 */
	"	ldr	x1, [x20, #16]\n" /* argv[1] */
	"	bl	6f\n"
	"	mov	x23, x0\n"
	"	ldr	x1, [x20, #24]\n" /* argv[2] */
	"	bl	6f\n"
	"	mov	x24, x0\n"
	"	bl	8f\n" /* pin to CPU 0 */
	"	mov	x0, x23\n"
	"	cbz	x0, 2f\n"
	"1:	subs	x0, x0, #1\n" /* 2 per iteration */
	"	b.ne	1b\n"
	"2:	mov	x22, #2\n" /* CPU 1 */
	"	bl	8f\n"
	"	mov	x0, x24\n"
	"	cbz	x0, 4f\n"
	"3:	subs	x0, x0, #1\n"
	"	b.ne	3b\n"
	"4:	mov	x0, #0\n" /* exit_group(0) */
	"	mov	x8, #94\n"
	"	svc	#0\n"
	/* x0 = the 8-digit number at x1 */
	"6:	mov	x0, #0\n"
	"	mov	x3, #10\n"
	"7:	ldrb	w2, [x1], #1\n"
	"	cbz	w2, 9f\n"
	"	sub	w2, w2, #'0'\n"
	"	madd	x0, x0, x3, x2\n"
	"	b	7b\n"
	"9:	ret\n"
	/* sched_setaffinity(0, 8, &x22), the mask stored below the stack */
	"8:	str	x22, [x20, #-16]\n"
	"	mov	x0, #0\n"
	"	mov	x1, #8\n"
	"	sub	x2, x20, #16\n"
	"	mov	x8, #122\n"
	"	svc	#0\n"
	"	ret\n");
