/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Both commands need one descriptor per counter: as many as they may.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>

#include "diag.h"
#include "fdlimit.h"

/* Raise the soft RLIMIT_NOFILE to the hard limit; say if that fails. */
void
raise_fd_limit(bool report)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0 && report)
		diag(NULL, "setrlimit failed - %s\n", strerror(errno));
}

/*
 * Out of file descriptors (EMFILE): say once which limit it is. A thread
 * of a process already counted is left uncounted and the others go on;
 * a process's first LWP cannot be followed (the caller says so).
 */
void
fd_limit_reached(void)
{
	static bool said;
	struct rlimit rl;

	if (said)
		return;
	said = true;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		diag(NULL,
		    "out of file descriptors (RLIMIT_NOFILE): LWPs "
		    "beyond the limit are not counted; raise it with "
		    "ulimit -n\n");
	else
		diag(NULL,
		    "out of file descriptors: the limit is %llu open "
		    "files (RLIMIT_NOFILE); LWPs beyond it are not counted; "
		    "raise it with ulimit -n\n",
		    (unsigned long long)rl.rlim_cur);
}
