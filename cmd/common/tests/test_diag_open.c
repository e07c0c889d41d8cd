/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diag_cpc_open: a process whose seccomp filter answers perf_event_open(2)
 * with ENOSYS (as container runtimes' profiles with that default errno
 * refuse it) is told the filter refused it, not "Function not
 * implemented"; any other failure keeps the errno's own words.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libcpc.h>

#include "check.h"
#include "diag.h"

static char said[1024];

static void
keep(void *arg, const char *message)
{
	(void)arg;
	snprintf(said, sizeof(said), "%s", message);
}

/*
 * In a child: the filter, then cpc_open and its message. Exit status 0
 * as it should be, 1 not, 77 where no filter could be set.
 */
static int
filtered(void)
{
	struct sock_filter refuse[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(refuse) / sizeof(refuse[0]), refuse };
	cpc_t *cpc;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		return 77;
	if ((cpc = cpc_open(CPC_VER_CURRENT)) != NULL || errno != ENOSYS) {
		fprintf(stderr, "cpc_open under the filter: %s\n",
		    cpc != NULL ? "opened" : strerror(errno));
		return 1;
	}
	diag_cpc_open(errno);
	if (strstr(said, "refused by the seccomp filter") == NULL ||
	    strstr(said, "Function not implemented") != NULL) {
		fprintf(stderr, "said: %s", said);
		return 1;
	}
	return 0;
}

int
main(void)
{
	int status = 0;
	pid_t pid;

	diag_init("test_diag_open");
	diag_set_sink(keep, NULL);
	if (access("/proc/sys/kernel/perf_event_paranoid", F_OK) != 0)
		SKIP("this kernel has no perf events");
	if ((pid = fork()) == 0)
		_exit(filtered());
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		printf("# no seccomp filter could be set here\n");
	else
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	diag_cpc_open(EACCES);
	CHECK(strcmp(said,
		  "test_diag_open: cannot access performance "
		  "counters - Permission denied\n") == 0);
	return check_report("test_diag_open");
}
