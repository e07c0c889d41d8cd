/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * exec_refuse: a seccomp filter of four tests, written out rather than
 * built by libseccomp, so that the image and the .deb carry no library
 * for it. The filter is a classic BPF program over struct seccomp_data.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "exec_refuse.h"

#if defined(__x86_64__)
#define OWN_ARCH   AUDIT_ARCH_X86_64
/* x32's calls share x86-64's arch value and set this bit in their number. */
#define FOREIGN_NR 0x40000000U
#elif defined(__aarch64__)
#define OWN_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef OWN_ARCH

#define LOAD(field) \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define REFUSE BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)
#define ALLOW  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

int
exec_refuse(void)
{
	/* Jumps count the instructions they skip; the last one refuses. */
	static struct sock_filter rules[] = {
		LOAD(arch),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, OWN_ARCH, 0, 5),
		LOAD(nr),
#ifdef FOREIGN_NR
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, FOREIGN_NR, 3, 0),
#else
		BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0),
#endif
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execveat, 1, 0),
		ALLOW,
		REFUSE,
	};
	struct sock_fprog program = {
		.len = sizeof(rules) / sizeof(rules[0]),
		.filter = rules,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0);
}

#else

int
exec_refuse(void)
{
	errno = ENOSYS;
	return -1;
}

#endif
