/*
 * Both commands need one descriptor per counter: as many as they may.
 */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>

#include "spec.h"

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
