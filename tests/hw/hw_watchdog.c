/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hw_watchdog: a stand-in for the kernel's perf-based hardlockup detector
 * (x86's NMI watchdog), which Debian's arm64 kernels do not build. Opens
 * what the detector opens on every online CPU: a pinned, CPU-wide cycles
 * counter with a long sample period. Prints "hw_watchdog: holding cycles
 * on N CPUs" once every one is on its PMU, then holds them until killed.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_CPUS 64

int
main(void)
{
	struct perf_event_attr attr;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long count;
	int fd, cpu;

	if (ncpus < 1 || ncpus > MAX_CPUS)
		return 2;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.pinned = 1;
	/* The detector's period is seconds of cycles: it never fires here. */
	attr.sample_period = 1ULL << 40;
	for (cpu = 0; cpu < ncpus; cpu++) {
		fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, 0);
		/* A pinned event that could not go on reads 0 bytes. */
		if (fd < 0 ||
		    read(fd, &count, sizeof(count)) != sizeof(count)) {
			perror("hw_watchdog: cpu");
			return 1;
		}
	}
	printf("hw_watchdog: holding cycles on %ld CPUs\n", ncpus);
	fflush(stdout);
	for (;;)
		pause();
}
