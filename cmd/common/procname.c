/* SPDX-License-Identifier: BSD-2-Clause */
/* A process's name (see procname.h). */
#include <fcntl.h>
#include <stdio.h>
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
	comm[n > 0 ? n : 0] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}
