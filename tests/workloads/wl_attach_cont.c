/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_attach_cont [cont]
 *
 * How LeakSanitizer's stop of every thread at a sanitizer build's exit
 * can wait forever: it attaches to each thread (PTRACE_ATTACH, which
 * sends SIGSTOP) and waits for the stop, and a SIGCONT that comes
 * before the thread takes that SIGSTOP discards it. timeout(1) sends
 * SIGCONT right after the signal it was asked to send.
 *
 * A child waits in vfork(2) for its own child (1 s), where a SIGSTOP
 * stays pending; this process attaches to it there, with cont sends it
 * SIGCONT, and then waits up to 3 s for the SIGSTOP's stop, as the
 * sanitizer does: the stop of another signal (the SIGCONT, which a
 * tracee stops for) is passed on. Prints "stopped" or "never stopped",
 * kills the child, and exits 0 (1 on a failed call).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void
pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* The state letter of /proc/PID/stat. */
static char
state_of(pid_t pid)
{
	char path[64], text[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return '?';
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	p = strrchr(text, ')');
	return p != NULL && p[1] == ' ' ? p[2] : '?';
}

static void __attribute__((noreturn)) child(void)
{
	pid_t v = vfork();

	if (v == 0) {
		pause_ms(1000);
		_exit(0);
	}
	/* Runs on, in user mode, until killed. */
	for (;;)
		;
}

int
main(int argc, char **argv)
{
	int cont = argc > 1 && strcmp(argv[1], "cont") == 0, status, i;
	pid_t pid = fork(), got;

	if (pid < 0)
		return 1;
	if (pid == 0)
		child();
	/* Until it waits in vfork (D: the wait takes no stop signal). */
	for (i = 0; i < 500 && state_of(pid) != 'D'; i++)
		pause_ms(1);
	if (state_of(pid) != 'D' || ptrace(PTRACE_ATTACH, pid, 0, 0) != 0) {
		kill(pid, SIGKILL);
		return 1;
	}
	if (cont)
		kill(pid, SIGCONT);
	/* As LeakSanitizer waits: another signal's stop is passed on. */
	for (i = 0; i < 3000; i++) {
		got = waitpid(pid, &status, __WALL | WNOHANG);
		if (got == pid && WIFSTOPPED(status) &&
		    WSTOPSIG(status) == SIGSTOP)
			break;
		if (got == pid && WIFSTOPPED(status))
			ptrace(PTRACE_CONT, pid, 0, WSTOPSIG(status));
		else
			pause_ms(1);
	}
	puts(i < 3000 ? "stopped" : "never stopped");
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, __WALL) == pid && !WIFSIGNALED(status))
		;
	return 0;
}
