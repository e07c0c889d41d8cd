/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A two-instruction aarch64 loop with its bounds exported, for the probe
 * programs: hw_loop(n) retires 2n instructions in the loop (n > 0), and
 * every PC it can be interrupted at lies in [hw_loop_start, hw_loop_end].
 */
#ifndef HW_LOOP_H
#define HW_LOOP_H

#include <stdint.h>

void hw_loop(uint64_t n);
extern const char hw_loop_start[], hw_loop_end[];

#define HW_LOOP_DEFINE                        \
	__asm__("	.text\n"                    \
		"	.globl	hw_loop\n"           \
		"	.type	hw_loop, %function\n" \
		"hw_loop:\n"                  \
		"	cbz	x0, 2f\n"               \
		"	.globl	hw_loop_start\n"     \
		"hw_loop_start:\n"            \
		"1:	subs	x0, x0, #1\n"        \
		"	.globl	hw_loop_end\n"       \
		"hw_loop_end:\n"              \
		"	b.ne	1b\n"                  \
		"2:	ret\n"                    \
		"	.size	hw_loop, . - hw_loop\n")

/* Whether a PC is one of the loop's two instructions. */
static inline int
hw_in_loop(uint64_t pc)
{
	return pc >= (uint64_t)(uintptr_t)hw_loop_start &&
	    pc <= (uint64_t)(uintptr_t)hw_loop_end;
}

#endif
