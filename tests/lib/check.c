/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The harness's counters (see check.h).
 */
#include "check.h"

int check_failures;
int check_count;

int
check_report(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
	return check_failures == 0 ? 0 : 1;
}

void
check_skip(void)
{
	if (check_failures == 0)
		exit(77);
	printf("%d checks failed before the skip: the test fails\n",
	    check_failures);
	exit(1);
}
