/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Solaris fork model (PCTX_FORK_COPY): the fork callback runs in a
 * copy of the controller, which traces the new child from then on, while
 * the controller goes on with the parent.
 *
 * A tracee has one tracer, and the copy must take the child over before
 * it runs a single instruction, without a signal the child or its parent
 * could see. So the tracer parks the child first: at its first stop, just
 * after the fork syscall, its registers are saved and it is set to make
 * one more system call, rt_sigsuspend with every signal blocked, in which
 * it sleeps. Then the tracer lets it go and forks the copy. The copy
 * seizes the sleeping child, interrupts it, puts the saved registers back
 * (the signal mask comes back with the end of rt_sigsuspend), and calls
 * the fork callback with the child held. When the callback returns, the
 * copy releases the child and exits.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pctx_impl.h"

/* Below the stack pointer, past x86-64's 128-byte red zone. */
#define MASK_BELOW_SP 256

#if defined(__x86_64__)
#define CAN_PARK 1
typedef struct user_regs_struct regs_t;
#define SYSCALL_INSN	  0x050fUL /* syscall, little-endian */
#define SYSCALL_INSN_LEN  2
#define SYSCALL_INSN_MASK 0xffffUL
#define REG_PC(r)	  ((r)->rip)
#define REG_SP(r)	  ((r)->rsp)

static void
set_sigsuspend(regs_t *r, unsigned long mask_addr)
{
	r->rax = SYS_rt_sigsuspend;
	r->rdi = mask_addr;
	r->rsi = 8;
	r->orig_rax = (unsigned long)-1; /* no syscall to restart */
}
#elif defined(__aarch64__)
#define CAN_PARK	  1
typedef struct user_regs_struct regs_t;
#define SYSCALL_INSN	  0xd4000001UL /* svc #0 */
#define SYSCALL_INSN_LEN  4
#define SYSCALL_INSN_MASK 0xffffffffUL
#define REG_PC(r)	  ((r)->pc)
#define REG_SP(r)	  ((r)->sp)

static void
set_sigsuspend(regs_t *r, unsigned long mask_addr)
{
	r->regs[8] = SYS_rt_sigsuspend;
	r->regs[0] = mask_addr;
	r->regs[1] = 8;
}
#endif

#ifdef CAN_PARK
struct parked {
	regs_t regs;   /* at the child's first stop */
	int syscallno; /* arm64 keeps it apart from the registers */
};

static int
get_regs(pid_t tid, struct parked *p)
{
	struct iovec iov = { &p->regs, sizeof(p->regs) };

	if (ptrace(PTRACE_GETREGSET, tid, NT_PRSTATUS, &iov) != 0)
		return -1;
#if defined(__aarch64__)
	iov.iov_base = &p->syscallno;
	iov.iov_len = sizeof(p->syscallno);
	if (ptrace(PTRACE_GETREGSET, tid, NT_ARM_SYSTEM_CALL, &iov) != 0)
		return -1;
#endif
	return 0;
}

static int
set_regs(pid_t tid, regs_t *regs, int syscallno)
{
	struct iovec iov = { regs, sizeof(*regs) };

#if defined(__aarch64__)
	struct iovec sc = { &syscallno, sizeof(syscallno) };

	if (ptrace(PTRACE_SETREGSET, tid, NT_ARM_SYSTEM_CALL, &sc) != 0)
		return -1;
#else
	(void)syscallno;
#endif
	return ptrace(PTRACE_SETREGSET, tid, NT_PRSTATUS, &iov);
}

/* Set the held child to sleep in rt_sigsuspend once it runs. */
static int
park(pid_t tid, struct parked *p)
{
	unsigned long mask_addr, insn;
	regs_t r;

	if (get_regs(tid, p) != 0)
		return -1;
	r = p->regs;
	errno = 0;
	insn = (unsigned long)ptrace(
	    PTRACE_PEEKTEXT, tid, REG_PC(&r) - SYSCALL_INSN_LEN, 0);
	if (errno != 0 || (insn & SYSCALL_INSN_MASK) != SYSCALL_INSN) {
		errno = ENOTSUP; /* not just after a system call */
		return -1;
	}
	mask_addr = (REG_SP(&r) - MASK_BELOW_SP) & ~7UL;
	if (ptrace(PTRACE_POKEDATA, tid, mask_addr, ~0UL) != 0)
		return -1;
	REG_PC(&r) -= SYSCALL_INSN_LEN;
	set_sigsuspend(&r, mask_addr);
	return set_regs(tid, &r, -1);
}

/* In the copy: take the sleeping child over and wake it as it was. */
static int
unpark(pid_t tid, int opts, struct parked *p, int *status)
{
	if (ptrace(PTRACE_SEIZE, tid, 0, (long)opts) != 0 ||
	    ptrace(PTRACE_INTERRUPT, tid, 0, 0) != 0)
		return -1;
	while (waitpid(tid, status, __WALL) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFSTOPPED(*status))
		return -1;
	return set_regs(tid, &p->regs, p->syscallno);
}

/* A child not yet seen stopped: its first stop is due at once. */
static int
await_first_stop(struct lwp *child)
{
	int status;

	while (waitpid(child->tid, &status, __WALL) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFSTOPPED(status))
		return -1;
	child->held_status = status;
	child->flags = (child->flags | LWP_HELD) & ~LWP_NEW;
	return 0;
}

/* What the copy needs from its parent's pctx, taken before it is lost. */
struct lineage {
	pctx_sysc_forkfn_t *fork;
	pid_t ppid;
	id_t lwpid;
	void *arg;	 /* as the parent's callbacks get it */
	void *child_arg; /* as pctx_create's arg */
	int verbose;
	pctx_errfn_t *errfn;
	bool created;
	int opts;
};

/*
 * The copy: wait until the controller has let the child go (it closes
 * its end of the pipe), take it over, and call the fork callback.
 */
static void __attribute__((noreturn))
run_copy(const struct lineage *from, pid_t tid, struct parked *p, int go[2])
{
	struct lwp *lwp;
	pctx_t *pctx;
	char byte;
	int status;

	close(go[1]);
	while (read(go[0], &byte, 1) < 0 && errno == EINTR)
		;
	close(go[0]);
	pthread_sigmask(SIG_SETMASK, &pctxlib_tracer.caller_mask, NULL);
	pctxlib_tracer_abandon();
	if (unpark(tid, from->opts, p, &status) != 0 ||
	    (pctx = pctxlib_alloc(
		 tid, from->child_arg, from->verbose, from->errfn)) == NULL ||
	    (lwp = pctxlib_lwp_add(pctx, tid, LWP_HELD | LWP_ANNOUNCED)) ==
		NULL) {
		pctxlib_error_to(from->errfn, "run",
		    "cannot follow pid %d: "
		    "%s\n",
		    (int)tid, strerror(errno));
		_exit(1);
	}
	lwp->held_status = status;
	pctx->created = from->created;
	pctx->opts = from->opts;
	from->fork(pctx, from->ppid, tid, from->lwpid, from->arg);
	pctx_release(pctx);
	_exit(0);
}

/*
 * Offer the child to the fork callback in a copy of the controller; false
 * when it cannot be done here (the caller then adopts the child).
 */
bool
pctxlib_fork_copy(pctx_t *parent, struct lwp *by, struct lwp *child)
{
	struct lineage from = {
		.fork = parent->h.fork,
		.ppid = parent->pid,
		.lwpid = by->lwpid,
		.arg = parent->data != NULL ? parent->data : parent->arg,
		.child_arg = parent->arg,
		.verbose = parent->verbose,
		.errfn = parent->errfn,
		.created = parent->created,
		.opts =
		    SEIZE_OPTS_BASE | (parent->created ? PTRACE_O_EXITKILL : 0),
	};
	struct parked p;
	pid_t tid = child->tid, copy;
	int go[2];

	if (!(child->flags & LWP_HELD) && await_first_stop(child) != 0) {
		pctxlib_lwp_bury(child); /* it died at birth */
		return true;
	}
	if (pipe2(go, O_CLOEXEC) != 0)
		return false;
	if (park(tid, &p) != 0) {
		close(go[0]);
		close(go[1]);
		return false;
	}
	fflush(NULL);
	if ((copy = fork()) == 0)
		run_copy(&from, tid, &p, go);
	close(go[0]);
	if (copy < 0) {
		/* Still held here: undo the parking, and adopt it instead. */
		close(go[1]);
		(void)set_regs(tid, &p.regs, p.syscallno);
		return false;
	}
	(void)ptrace(PTRACE_DETACH, tid, 0, 0);
	pctxlib_lwp_bury(child);
	close(go[1]);
	return true;
}
#else
bool
pctxlib_fork_copy(pctx_t *parent, struct lwp *by, struct lwp *child)
{
	(void)parent;
	(void)by;
	(void)child;
	return false;
}
#endif
