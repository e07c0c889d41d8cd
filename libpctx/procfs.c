/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What /proc tells about a process or thread that ptrace does not.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pctx_impl.h"

#define CAP_SYS_PTRACE_BIT 19

/*
 * The tracer keeps a descriptor for /proc at the limit of open files,
 * where the counters of many threads take every other: a new thread must
 * still be found whose it is, to be counted or said uncounted, never let
 * go unseen. It is given up for the read, and taken again after it.
 */
int
pctxlib_procfs_spare(void)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static ssize_t
read_small_file(const char *path, char *buf, size_t len)
{
	int *spare = &pctxlib_tracer.spare;
	bool spent = false;
	ssize_t n = -1;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 && errno == EMFILE &&
	    *spare >= 0) {
		close(*spare);
		spent = true;
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	if (spent)
		*spare = pctxlib_procfs_spare();
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static long
status_field(const char *text, const char *name)
{
	const char *p;
	size_t len = strlen(name);

	for (p = text; p != NULL && *p != '\0'; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (strncmp(p, name, len) == 0 && p[len] == ':')
			return strtol(p + len + 1, NULL, 10);
	}
	return -1;
}

/* Tgid, PPid and TracerPid of a thread; -1 if it is gone. */
int
pctxlib_procfs_ids(pid_t tid, pid_t *tgid, pid_t *ppid, pid_t *tracer_pid)
{
	char path[64], text[4096];

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if (read_small_file(path, text, sizeof(text)) < 0)
		return -1;
	if (tgid != NULL)
		*tgid = status_field(text, "Tgid");
	if (ppid != NULL)
		*ppid = status_field(text, "PPid");
	if (tracer_pid != NULL)
		*tracer_pid = status_field(text, "TracerPid");
	return 0;
}

/*
 * Field n (numbered from 3, the state, as in proc(5)) of a stat file's
 * text; NULL if there is no such field.
 */
static const char *
stat_field(const char *text, int n)
{
	const char *p;
	int field;

	/* The command name may hold spaces and parentheses: skip to its end. */
	if ((p = strrchr(text, ')')) == NULL || p[1] != ' ')
		return NULL;
	p += 2;
	for (field = 3; field < n && p != NULL; field++)
		if ((p = strchr(p, ' ')) != NULL)
			p++;
	return p;
}

/* State letter and kernel task flags from /proc/PID/stat. */
int
pctxlib_procfs_stat(pid_t pid, char *state, unsigned long *flags)
{
	char path[64], text[1024];
	const char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_small_file(path, text, sizeof(text)) < 0 ||
	    (p = stat_field(text, 3)) == NULL)
		return -1;
	*state = *p;
	*flags = (p = stat_field(text, 9)) != NULL ? strtoul(p, NULL, 10) : 0;
	return 0;
}

/*
 * The argument string of a process, like Solaris psargs: at most 80 bytes,
 * the arguments joined by spaces, each other byte as it is: the caller
 * that prints it makes it fit its output (cputrack escapes control
 * characters, cpctools-output(5)).
 */
void
pctxlib_procfs_psargs(pid_t pid, char *buf, size_t len)
{
	char path[64], text[81];
	ssize_t n, i;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	if ((n = read_small_file(path, text, sizeof(text))) <= 0) {
		strlcpy(buf, "(unknown)", len);
		return;
	}
	while (n > 0 && text[n - 1] == '\0')
		n--;
	for (i = 0; i < n; i++)
		if (text[i] == '\0')
			text[i] = ' ';
	text[n] = '\0';
	strlcpy(buf, text, len);
}

static bool
read_cap_sys_ptrace(void)
{
	char text[4096], *p;
	unsigned long long eff;

	if (read_small_file("/proc/self/status", text, sizeof(text)) < 0 ||
	    (p = strstr(text, "\nCapEff:")) == NULL)
		return geteuid() == 0;
	eff = strtoull(p + 8, NULL, 16);
	return (eff >> CAP_SYS_PTRACE_BIT) & 1;
}

/* Read once: it is asked at every exec of a followed process. */
bool
pctxlib_have_cap_sys_ptrace(void)
{
	static int known = -1;

	if (known < 0)
		known = read_cap_sys_ptrace();
	return known;
}
