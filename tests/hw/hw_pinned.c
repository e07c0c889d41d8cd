/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hw_pinned NCOUNTERS ON_MS OFF_MS TOTAL_MS: a competing user of the
 * hardware counters. Opens NCOUNTERS pinned, CPU-wide instruction
 * counters on CPU 0 (not through libcpc, so no cpctools lock is taken)
 * and turns them on for ON_MS and off for OFF_MS, for TOTAL_MS. While
 * they are on, a per-thread group that needs a general counter cannot be
 * scheduled on CPU 0, so it runs only part of its enabled time.
 * Prints "hw_pinned: holding N" once the counters are open.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static struct timespec
span_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	return ts;
}

int
main(int argc, char **argv)
{
	struct perf_event_attr attr;
	struct timespec on_span, off_span;
	int fds[64], n, i, on, off, total, elapsed;

	if (argc != 5) {
		fprintf(stderr,
		    "usage: hw_pinned ncounters on_ms off_ms "
		    "total_ms\n");
		return 2;
	}
	n = atoi(argv[1]);
	on = atoi(argv[2]);
	off = atoi(argv[3]);
	total = atoi(argv[4]);
	if (n < 1 || n > 64)
		return 2;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.pinned = 1;
	attr.disabled = 1;
	for (i = 0; i < n; i++) {
		fds[i] = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, 0);
		if (fds[i] < 0) {
			perror("hw_pinned: perf_event_open");
			return 1;
		}
	}
	printf("hw_pinned: holding %d\n", n);
	fflush(stdout);
	on_span = span_ms(on);
	off_span = span_ms(off);
	for (elapsed = 0; elapsed < total; elapsed += on + off) {
		for (i = 0; i < n; i++)
			ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
		nanosleep(&on_span, NULL); /* not a wait: on for ON_MS */
		for (i = 0; i < n; i++)
			ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
		nanosleep(&off_span, NULL); /* not a wait: off for OFF_MS */
	}
	return 0;
}
