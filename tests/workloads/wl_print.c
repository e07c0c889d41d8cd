/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wl_print [LINES [K [DELAY_MS]]]
 *
 * A program that talks: prints LINES (default 200) numbered lines to
 * standard output, DELAY_MS (default 5) milliseconds apart, each with its
 * own write(2), some of them looking like the rows of the machine formats
 * ("{", "time,", "# "), then makes K (default 100) one-byte write(2)
 * calls to /dev/null and exits 0. For the recipes of the manual pages,
 * which must work on a program that prints.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const looks_like[] = {
	"{\"not\": \"a row of counts\"",
	"time,pid,lwp,label",
	"# TYPE not_a_metric counter",
	"   1.000   1       tick       123",
};

int
main(int argc, char **argv)
{
	long lines = argc > 1 ? atol(argv[1]) : 200;
	long k = argc > 2 ? atol(argv[2]) : 100;
	long delay_ms = argc > 3 ? atol(argv[3]) : 5;
	struct timespec delay = { delay_ms / 1000, delay_ms % 1000 * 1000000 };
	char line[128];
	int devnull, n;
	long i;

	for (i = 0; i < lines; i++) {
		n = snprintf(
		    line, sizeof(line), "line %ld: %s\n", i, looks_like[i % 4]);
		if (write(STDOUT_FILENO, line, (size_t)n) != n)
			return 1;
		nanosleep(&delay, NULL);
	}
	if ((devnull = open("/dev/null", O_WRONLY)) < 0)
		return 1;
	for (i = 0; i < k; i++)
		(void)write(devnull, "x", 1);
	return 0;
}
