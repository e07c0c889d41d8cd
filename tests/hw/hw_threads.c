/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hw_threads N T: T threads made with clone(2) (1 <= T <= 9); thread k
 * (the k-th created is given k = T, T-1, ..., 1) runs k*N iterations of
 * a two-instruction loop, the main thread N, and each thread ends with
 * exit(2), so nothing waits for anything in user mode.
 *
 * Freestanding aarch64, so the user-mode instructions of each thread are
 * known exactly (N as 8 decimal digits, T as one digit; svc counts as
 * one):
 *   main thread:          55 + 14T + 2N
 *   thread k:              6 + 2kN      (from the instruction after clone)
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
	"2:	mov	x19, x0\n"	 /* 4 */
	"	ldr	x1, [sp, #24]\n" /* argv[2]: T */
	"	ldrb	w20, [x1]\n"
	"	sub	w20, w20, #'0'\n"
	"3:	cbz	x20, 5f\n"	     /* 14 per thread, 1 at the end */
	"	mov	x0, #0x0f00\n"	     /* VM|FS|FILES|SIGHAND */
	"	movk	x0, #0x5, lsl #16\n" /* |THREAD|SYSVSEM */
	"	adrp	x1, hw_stacks\n"
	"	add	x1, x1, :lo12:hw_stacks\n"
	"	add	x1, x1, x20, lsl #12\n" /* top of a 4 KiB stack of its
						   own */
	"	mov	x2, #0\n"
	"	mov	x3, #0\n"
	"	mov	x4, #0\n"
	"	mov	x8, #220\n" /* clone */
	"	svc	#0\n"
	"	cbz	x0, 6f\n"
	"	sub	x20, x20, #1\n"
	"	b	3b\n"
	"5:	mov	x0, x19\n" /* main: 2 + 2N + 3 */
	"	cbz	x0, 8f\n"
	"7:	subs	x0, x0, #1\n"
	"	b.ne	7b\n"
	"8:	mov	x0, #0\n"
	"	mov	x8, #93\n" /* exit: this thread only */
	"	svc	#0\n"
	/* thread k: 1 (cbz above) + 2 + 2kN + 3 */
	"6:	mul	x0, x19, x20\n"
	"	cbz	x0, 10f\n"
	"9:	subs	x0, x0, #1\n"
	"	b.ne	9b\n"
	"10:	mov	x0, #0\n"
	"	mov	x8, #93\n"
	"	svc	#0\n"
	"	.bss\n"
	"	.balign	4096\n"
	"hw_stacks:\n"
	"	.skip	4096 * 10\n");
