/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Preloaded into cputrack (LD_PRELOAD) by a test: each tick's first
 * batched read of the thread map waits SLOW_READ_US microseconds first,
 * after the tick has taken the engine's records and handed the sets
 * over, so that a thread can end in between, as it may on a busy
 * machine. The read itself is libbpf's, unchanged.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>

typedef int batch_fn(int, void *, void *, void *, void *, __u32 *,
    const struct bpf_map_batch_opts *);

int
bpf_map_lookup_batch(int fd, void *in_batch, void *out_batch, void *keys,
    void *values, __u32 *count, const struct bpf_map_batch_opts *opts)
{
	static batch_fn *real;
	const char *us = getenv("SLOW_READ_US");

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "bpf_map_lookup_batch");
	/* The first of a read (no cursor yet) only. */
	if (in_batch == NULL && us != NULL)
		usleep((useconds_t)atol(us)); /* not a wait: sets up the race */
	return real(fd, in_batch, out_batch, keys, values, count, opts);
}
