/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * For bench/paths only, never part of a product build: the entry hook of
 * -finstrument-functions. Every function entry of a program built with
 * it is appended to $PATHS_TRACE as "> TID DEPTH OFFSET", OFFSET being
 * the function's address less its object's load address, for addr2line.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NO_TRACE __attribute__((no_instrument_function))

/* Far above what the program opens, so that none of it closes ours. */
#define TRACE_FD_MIN 900

void __cyg_profile_func_enter(void *fn, void *site) NO_TRACE;
void __cyg_profile_func_exit(void *fn, void *site) NO_TRACE;

static __thread int depth;
static int trace_fd = -1;

static NO_TRACE int
trace_open(void)
{
	const char *path = getenv("PATHS_TRACE");
	int fd, high;

	if (path == NULL ||
	    (fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) <
		0)
		return -1;
	if ((high = fcntl(fd, F_DUPFD_CLOEXEC, TRACE_FD_MIN)) >= 0) {
		close(fd);
		fd = high;
	}
	return fd;
}

void
__cyg_profile_func_enter(void *fn, void *site)
{
	unsigned long offset = (unsigned long)fn;
	char line[80];
	Dl_info info;
	int n;

	(void)site;
	depth++;
	if (trace_fd < 0 && (trace_fd = trace_open()) < 0)
		return;
	if (dladdr(fn, &info) != 0)
		offset -= (unsigned long)info.dli_fbase;
	n = snprintf(line, sizeof(line), "> %ld %d %lx\n",
	    (long)syscall(SYS_gettid), depth - 1, offset);
	if (write(trace_fd, line, (size_t)n) != n)
		return;
}

void
__cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
	depth--;
}
