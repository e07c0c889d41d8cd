/* SPDX-License-Identifier: BSD-2-Clause */
/* A command started behind a gate (see exec_gate.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "exec_gate.h"

static void
close_end(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void
exec_gate_close(struct exec_gate *g)
{
	close_end(&g->go[0]);
	close_end(&g->go[1]);
	close_end(&g->report[0]);
	close_end(&g->report[1]);
}

void
exec_gate_init(struct exec_gate *g)
{
	g->go[0] = g->go[1] = g->report[0] = g->report[1] = -1;
}

int
exec_gate_open(struct exec_gate *g)
{
	int err;

	exec_gate_init(g);
	if (pipe2(g->go, O_CLOEXEC) == 0 && pipe2(g->report, O_CLOEXEC) == 0)
		return 0;
	err = errno;
	exec_gate_close(g);
	errno = err;
	return -1;
}

/*
 * A terminal on standard output that is not this session's was made for
 * the command (cputop's pane): the command leads a session of its own on
 * it, so that its /dev/tty, its job control and its signals from the
 * keyboard are that terminal's. A command writing to its caller's own
 * terminal, or to no terminal, stays in its caller's session.
 */
static void
own_terminal(void)
{
	if (!isatty(STDOUT_FILENO) || tcgetsid(STDOUT_FILENO) >= 0)
		return;
	if (setsid() >= 0)
		(void)ioctl(STDOUT_FILENO, TIOCSCTTY, 0);
}

void
exec_gate_child(struct exec_gate *g, const char *file, char *const argv[],
    void (*before_exec)(const void *), const void *arg)
{
	char byte = 0;
	int err;

	close_end(&g->go[1]);
	close_end(&g->report[0]);
	while (read(g->go[0], &byte, 1) < 0 && errno == EINTR)
		;
	if (byte != 'g')
		_exit(127);
	own_terminal();
	if (before_exec != NULL)
		before_exec(arg);
	execvp(file, argv);
	err = errno;
	if (write(g->report[1], &err, sizeof(err)) == -1) {
		/* The parent sees exit status 127 all the same. */
	}
	_exit(127);
}

void
exec_gate_forked(struct exec_gate *g)
{
	close_end(&g->report[1]);
}

/* 0 when the child's exec succeeded (its end of the pipe closed). */
static int
exec_result(int report)
{
	ssize_t n;
	int err;

	while ((n = read(report, &err, sizeof(err))) < 0 && errno == EINTR)
		;
	return n == (ssize_t)sizeof(err) ? err : 0;
}

int
exec_gate_release(struct exec_gate *g)
{
	ssize_t n;
	int err;

	while ((n = write(g->go[1], "g", 1)) < 0 && errno == EINTR)
		;
	err = n != 1 ? errno : 0;
	close_end(&g->go[0]);
	close_end(&g->go[1]);
	if (err == 0)
		err = exec_result(g->report[0]);
	exec_gate_close(g);
	return err;
}
