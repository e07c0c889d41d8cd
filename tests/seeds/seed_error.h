/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The seeds assume "a user-provided routine analogous to the familiar
 * printf(3C) function from the C library that also performs an exit(2)
 * after printing the message", and Solaris's _lwp_self(). Included
 * first by each example.
 */
#ifndef SEED_ERROR_H
#define SEED_ERROR_H

/* gettid() and the ucontext register names are GNU extensions. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vfprintf(stderr, fmt, ap);
	va_end(ap);
	(void)fputc('\n', stderr);
	exit(1);
}

#define _lwp_self() ((int)gettid())

#endif /* SEED_ERROR_H */
