/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * proc_guard: when its owner's end of the socket closes without a
 * dismissal (as the owner's death by SIGKILL closes it), the guard kills
 * the command, and with a tree every process below it, and a process
 * handed to it with what is below that one; without a tree, the command
 * alone; dismissed, nothing. Real processes: a command that makes a
 * child and a grandchild. This test is a child subreaper, so that the
 * processes whose parents end come to it, to be seen ended and reaped.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "proc_guard.h"
#include "wait.h"

/* A command and what it made: its pid, its child's, its grandchild's. */
struct family {
	pid_t command, child, grandchild;
};

/* A process that makes a child, which makes one, all paused. */
static pid_t
make_family(struct family *f)
{
	int mine[2], childs[2];
	bool ok;

	if (pipe(mine) != 0 || pipe(childs) != 0)
		return -1;
	if ((f->command = fork()) == 0) {
		pid_t child = fork();

		if (child == 0) {
			pid_t grandchild = fork();

			if (grandchild == 0)
				for (;;)
					pause();
			(void)write(childs[1], &grandchild, sizeof(grandchild));
			for (;;)
				pause();
		}
		(void)write(mine[1], &child, sizeof(child));
		for (;;)
			pause();
	}
	close(mine[1]);
	close(childs[1]);
	ok = read(mine[0], &f->child, sizeof(pid_t)) == sizeof(pid_t) &&
	    read(childs[0], &f->grandchild, sizeof(pid_t)) == sizeof(pid_t);
	close(mine[0]);
	close(childs[0]);
	return ok ? f->command : -1;
}

static bool
ended_one(void *arg)
{
	char st = proc_state(*(pid_t *)arg);

	return st == 0 || st == 'Z';
}

static bool
ended(pid_t pid)
{
	return wait_for("a process to end", ended_one, &pid);
}

/* Every child of this test reaped, the guard's stray ones too. */
static void
reap_all(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static void
end_family(const struct family *f)
{
	(void)kill(f->grandchild, SIGKILL);
	(void)kill(f->child, SIGKILL);
	(void)kill(f->command, SIGKILL);
	CHECK(ended(f->grandchild) && ended(f->child) && ended(f->command));
	reap_all();
}

/* The owner "dies": its end closes, undismissed. */
static void
owner_gone(struct proc_guard *g)
{
	close(g->fd);
	g->fd = -1;
}

/* Its /proc directory's descriptor, as the ptrace engine takes it. */
static int
pidfd_of(pid_t pid)
{
	return proc_guard_open(pid);
}

static void
test_tree(void)
{
	struct proc_guard g;
	struct family f;
	int fd;

	proc_guard_init(&g);
	CHECK(make_family(&f) > 0);
	CHECK((fd = pidfd_of(f.command)) >= 0);
	CHECK(proc_guard_start(&g, fd, f.command, true) == 0);
	close(fd);
	owner_gone(&g);
	CHECK(ended(f.command));
	CHECK(ended(f.child));
	CHECK(ended(f.grandchild));
	reap_all();
}

static void
test_command_alone(void)
{
	struct proc_guard g;
	struct family f;
	int fd;

	proc_guard_init(&g);
	CHECK(make_family(&f) > 0);
	CHECK((fd = pidfd_of(f.command)) >= 0);
	CHECK(proc_guard_start(&g, fd, f.command, false) == 0);
	close(fd);
	owner_gone(&g);
	CHECK(wait_zombie(f.command));
	/* What it made runs on, neither stopped nor killed. */
	CHECK(wait_running(f.child));
	CHECK(wait_running(f.grandchild));
	end_family(&f);
}

static void
test_dismissed(void)
{
	struct proc_guard g;
	struct family f;
	int fd;

	proc_guard_init(&g);
	CHECK(make_family(&f) > 0);
	CHECK((fd = pidfd_of(f.command)) >= 0);
	CHECK(proc_guard_start(&g, fd, f.command, true) == 0);
	close(fd);
	proc_guard_gone(&g);
	CHECK(g.fd == -1);
	CHECK(wait_running(f.command));
	CHECK(wait_running(f.child));
	CHECK(wait_running(f.grandchild));
	end_family(&f);
}

/*
 * A process handed over, no longer below the command (here never), is
 * killed with what is below it.
 */
static void
test_added(void)
{
	struct family f, other;
	struct proc_guard g;
	int fd;

	proc_guard_init(&g);
	CHECK(make_family(&f) > 0);
	CHECK(make_family(&other) > 0);
	CHECK((fd = pidfd_of(f.command)) >= 0);
	CHECK(proc_guard_start(&g, fd, f.command, true) == 0);
	close(fd);
	CHECK(kill(other.command, SIGSTOP) == 0);
	CHECK(wait_state(other.command, "T"));
	proc_guard_add(&g, other.command);
	owner_gone(&g);
	CHECK(ended(f.command) && ended(f.child) && ended(f.grandchild));
	CHECK(ended(other.command));
	CHECK(ended(other.child));
	CHECK(ended(other.grandchild));
	reap_all();
}

int
main(void)
{
	int fd;

	if ((fd = (int)syscall(SYS_pidfd_open, getpid(), 0U)) < 0)
		SKIP("no pidfd_open here (Linux 5.3 and later): no sure guard");
	close(fd);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
		SKIP("cannot be a child subreaper");
	test_tree();
	test_command_alone();
	test_dismissed();
	test_added();
	return check_report("test_proc_guard");
}
