/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Preloaded into cputrack (LD_PRELOAD) by a test: the first batched read
 * of the thread map of tick SLOW_READ_TICK, after the tick has taken the
 * engine's records and handed the sets over, waits until cputrack's
 * command (its child, spinning in its main thread) has spun
 * SLOW_READ_SPIN_MS more milliseconds of CPU, then kills it and waits
 * until it has ended: a thread that ends between the hand-over and the
 * read, as it may on a busy machine, every time and on any machine. The
 * read itself is libbpf's, unchanged.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "wait.h"

typedef int batch_fn(int, void *, void *, void *, void *, __u32 *,
    const struct bpf_map_batch_opts *);

/* cputrack's child, from any of its threads' children; 0: none. */
static pid_t
the_child(void)
{
	char path[300];
	struct dirent *d;
	DIR *dir;
	FILE *f;
	int pid = 0;

	if ((dir = opendir("/proc/self/task")) == NULL)
		return 0;
	while (pid == 0 && (d = readdir(dir)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/children",
		    d->d_name);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		if (fscanf(f, "%d", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	closedir(dir);
	return pid;
}

/* The CPU time of process pid's main thread, in ns. */
static unsigned long long
cpu_ns(pid_t pid)
{
	char path[64];
	unsigned long long ns = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns;
}

struct spin {
	pid_t pid;
	unsigned long long until;
};

static bool
spun(void *arg)
{
	const struct spin *s = arg;

	return cpu_ns(s->pid) >= s->until;
}

static void
end_the_command(long spin_ms)
{
	struct spin s = { the_child(), 0 };

	if (s.pid <= 0) {
		fprintf(stderr, "slow_read: cputrack has no child\n");
		return;
	}
	s.until = cpu_ns(s.pid) + (unsigned long long)spin_ms * 1000000;
	(void)wait_for("the command's spin", spun, &s);
	(void)kill(s.pid, SIGKILL);
	(void)wait_zombie(s.pid);
}

__attribute__((visibility("default"))) int
bpf_map_lookup_batch(int fd, void *in_batch, void *out_batch, void *keys,
    void *values, __u32 *count, const struct bpf_map_batch_opts *opts)
{
	static batch_fn *real;
	static long reads;
	const char *tick = getenv("SLOW_READ_TICK");
	const char *spin = getenv("SLOW_READ_SPIN_MS");

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "bpf_map_lookup_batch");
	/* The first of a read (no cursor yet) only. */
	if (in_batch == NULL && tick != NULL && spin != NULL &&
	    ++reads == atol(tick))
		end_the_command(atol(spin));
	return real(fd, in_batch, out_batch, keys, values, count, opts);
}
