/* SPDX-License-Identifier: BSD-2-Clause */
/* A thread's process, from /proc/TID/status (see proc_tgid.h). */
#include <stdio.h>

#include "proc_tgid.h"

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
