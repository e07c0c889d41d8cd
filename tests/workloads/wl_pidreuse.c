/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_pidreuse K1 K2 FILE
 *
 * Two children, one after the other, with one pid. The first makes K1
 * one-byte write(2) calls to /dev/null and exits; once it is reaped, its
 * pid is made the next one given (ns_last_pid) and a second child is
 * forked, which makes K2 writes if it has that pid, and none otherwise;
 * other processes may take the pid first, so this is tried up to 100
 * times. The pid goes to FILE. Exit 0; 4 when the pid could not be had
 * again (ns_last_pid not writable, or always taken); 1 on other errors.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int devnull;

/* A child that writes k times, if it is pid want (any, if 0). */
static pid_t
writer(long k, pid_t want)
{
	pid_t pid;
	long i;

	if ((pid = fork()) != 0)
		return pid;
	if (want != 0 && getpid() != want)
		_exit(3);
	for (i = 0; i < k; i++)
		(void)write(devnull, "x", 1);
	_exit(0);
}

static int
reaped(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* The next pid given is want, unless another process takes it first. */
static int
aim_at(pid_t want)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	int ok;

	if (f == NULL)
		return -1;
	ok = fprintf(f, "%d", (int)want - 1) > 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

int
main(int argc, char **argv)
{
	pid_t first, second;
	FILE *out;
	int try;

	if (argc < 4)
		return 2;
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return 1;
	first = writer(atol(argv[1]), 0);
	if (reaped(first) != 0)
		return 1;
	for (try = 0; try < 100; try++) {
		if (aim_at(first) != 0)
			return 4;
		second = writer(atol(argv[2]), first);
		if (second == first)
			break;
		if (reaped(second) != 3)
			return 1;
	}
	if (try == 100)
		return 4;
	if (reaped(second) != 0 || (out = fopen(argv[3], "w")) == NULL)
		return 1;
	fprintf(out, "%d\n", (int)first);
	return fclose(out) == 0 ? 0 : 1;
}
