/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The live view's command on a terminal of its own (see cputrack_tty.h).
 * Its standard error is its terminal's only where cputrack's is a
 * terminal: one sent to a file (2>log) goes there still, as it would
 * without the view.
 * The pseudo-terminal takes the view's terminal's modes and size, so that
 * the command writes as it would there (a line discipline that turns \n
 * into \r\n, colours where it asks isatty); its slave is for this user
 * alone (0600, not the tty group's 0620: no write(1) to it). The
 * command leads a session of its own on it (exec_gate.h), so that what
 * it writes to /dev/tty itself (a password prompt) stays in the pane and
 * what it reads there comes from the keys the view hands it; Ctrl-C
 * reaches it through cputrack, which passes the signal on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "cputrack_tty.h"
#include "diag.h"

void
cputrack_tty_init(struct cputrack_tty *t)
{
	t->master = t->saved[0] = t->saved[1] = t->saved[2] = -1;
}

/* The slave of a new pseudo-terminal, as the view's terminal is; or -1. */
static int
open_slave(struct cputrack_tty *t)
{
	struct termios modes;
	struct winsize size;
	char name[64];
	int slave;

	t->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (t->master < 0 || grantpt(t->master) != 0 ||
	    unlockpt(t->master) != 0 ||
	    ptsname_r(t->master, name, sizeof(name)) != 0)
		return -1;
	if ((slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		return -1;
	(void)fchmod(slave, S_IRUSR | S_IWUSR);
	if (tcgetattr(STDOUT_FILENO, &modes) == 0)
		(void)tcsetattr(slave, TCSANOW, &modes);
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0)
		(void)ioctl(slave, TIOCSWINSZ, &size);
	return slave;
}

/* Descriptor fd becomes slave; what it was is kept. 0, or -1. */
static int
hand_over(struct cputrack_tty *t, int fd, int slave)
{
	if ((t->saved[fd] = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1)) < 0)
		return -1;
	return dup2(slave, fd) == fd ? 0 : -1;
}

int
cputrack_tty_open(struct cputrack_tty *t)
{
	int slave, err = 0;

	fflush(NULL);
	if ((slave = open_slave(t)) < 0 ||
	    (isatty(STDIN_FILENO) && hand_over(t, STDIN_FILENO, slave) != 0) ||
	    hand_over(t, STDOUT_FILENO, slave) != 0 ||
	    (isatty(STDERR_FILENO) && hand_over(t, STDERR_FILENO, slave) != 0))
		err = errno;
	if (slave >= 0)
		close(slave);
	if (err == 0)
		return 0;
	cputrack_tty_restore(t);
	cputrack_tty_close(t);
	diag(NULL, "cannot give the command a terminal of its own: %s\n",
	    strerror(err));
	return -1;
}

int
cputrack_tty_view(const struct cputrack_tty *t)
{
	return t->saved[STDOUT_FILENO];
}

void
cputrack_tty_restore(struct cputrack_tty *t)
{
	int fd;

	fflush(NULL);
	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (t->saved[fd] >= 0)
			(void)dup2(t->saved[fd], fd);
}

/* n bytes onto standard output, whole: false when they cannot be. */
static bool
write_out(const char *b, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(STDOUT_FILENO, b, n)) < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		b += w;
		n -= (size_t)w;
	}
	return true;
}

/* What the master has now, onto standard output. */
static void
drain(int master)
{
	char buf[4096];
	ssize_t n;

	(void)fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
	while ((n = read(master, buf, sizeof(buf))) > 0)
		if (!write_out(buf, (size_t)n))
			return;
}

void
cputrack_tty_close(struct cputrack_tty *t)
{
	int fd;

	if (t->master >= 0) {
		drain(t->master);
		close(t->master);
	}
	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (t->saved[fd] >= 0)
			close(t->saved[fd]);
	cputrack_tty_init(t);
}
