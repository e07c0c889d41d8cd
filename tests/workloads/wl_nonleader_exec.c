/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_nonleader_exec K PROG [ARG...]
 *
 * The main thread makes K one-byte write(2) calls to /dev/null, starts a
 * second thread and blocks. The second thread makes K such calls and then
 * execs PROG with the ARGs (PROG is argv[0] too): the exec comes from a
 * thread that is not the leader. Exit status: PROG's; 127 if exec failed.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static int devnull;
static long k;
static char **prog;

static void
writes(long n)
{
	while (n-- > 0)
		(void)write(devnull, "x", 1);
}

static void *
execer(void *arg)
{
	(void)arg;
	writes(k);
	execv(prog[0], prog);
	_exit(127);
}

int
main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 3)
		return 2;
	k = atol(argv[1]);
	prog = &argv[2];
	if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return 1;
	writes(k);
	if (pthread_create(&t, NULL, execer, NULL) != 0)
		return 1;
	for (;;)
		pause();
}
