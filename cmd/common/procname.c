/* SPDX-License-Identifier: BSD-2-Clause */
/* A process's name and cgroup (see procname.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procname.h"

void
proc_comm(pid_t pid, char *comm, size_t size)
{
	char path[64];
	ssize_t n = 0;
	int fd;

	if (size == 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, comm, size - 1);
		close(fd);
	}
	/* The kernel ends it with a line feed; the name may hold others. */
	if (n > 0 && comm[n - 1] == '\n')
		n--;
	comm[n > 0 ? n : 0] = '\0';
}

char *
proc_cgroup(pid_t pid)
{
	char path[64], text[4096], *line, *end;
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, text, sizeof(text) - 1);
		close(fd);
	}
	text[n > 0 ? n : 0] = '\0';
	/*
	 * v1 hierarchies have lines of their own, before or after; a line
	 * without its newline was cut short by the buffer.
	 */
	for (line = text; *line != '\0'; line = end + (*end != '\0')) {
		end = line + strcspn(line, "\n");
		if (strncmp(line, "0::", 3) == 0 && *end == '\n' &&
		    end > line + 3)
			return strndup(line + 3, (size_t)(end - line - 3));
	}
	return NULL;
}
