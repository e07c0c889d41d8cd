/* SPDX-License-Identifier: BSD-2-Clause */
/* A process's name, and a thread's process (see procname.h). */
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

pid_t
proc_tgid(pid_t tid)
{
	char path[64], line[128];
	long tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	fclose(f);
	return (pid_t)tgid;
}
