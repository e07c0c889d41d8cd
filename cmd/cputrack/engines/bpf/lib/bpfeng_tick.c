/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tick: flush every CPU, hand over to the next set, and read every
 * live thread's counts in a few batched map reads, into one batch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "bpfeng_impl.h"

/* A flush that interrupts a handler at work is tried again; handlers
 * take microseconds, so this many tries mean something is wrong. */
#define FLUSH_TRIES 100000
#define BATCH_FIRST 256

static int
flush_cpu(struct bpfeng *eng, int cpu)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU,
	    .cpu = (uint32_t)cpu);
	int tries;

	for (tries = 0; tries < FLUSH_TRIES; tries++) {
		if (bpf_prog_test_run_opts(eng->flush_fd, &opts) != 0)
			/* A CPU gone offline has nothing to flush. */
			return errno == ENXIO ? 0 : -1;
		if (opts.retval == 0)
			return 0;
	}
	errno = EBUSY;
	return -1;
}

int
eng_flush(struct bpfeng *eng, char *why, size_t whylen)
{
	uint64_t start = eng_now_ns();
	int cpu;

	for (cpu = 0; cpu < eng->ncpus; cpu++) {
		if (!eng->online[cpu])
			continue;
		if (flush_cpu(eng, cpu) != 0) {
			eng_why(why, whylen,
			    "cannot flush the counts of cpu%d "
			    "- %s",
			    cpu, strerror(errno));
			return -1;
		}
	}
	eng->flush_ns = eng_now_ns() - start;
	return 0;
}

uint64_t
bpfeng_hidden_switches(const struct bpfeng *eng)
{
	return *eng->hidden_switches;
}

int
eng_lost_check(struct bpfeng *eng, char *why, size_t whylen)
{
	uint64_t records = *eng->lost_records, threads = *eng->lost_threads;
	uint64_t reads = *eng->read_errors;

	if (records + threads + reads + eng->unadopted == eng->lost_seen)
		return 0;
	eng->lost_seen = records + threads + reads + eng->unadopted;
	eng_why(why, whylen,
	    "counts are incomplete: %llu records and %llu "
	    "threads could not be kept, %llu processes could not be "
	    "tracked, %llu counter reads failed",
	    (unsigned long long)records, (unsigned long long)threads,
	    (unsigned long long)eng->unadopted, (unsigned long long)reads);
	errno = ENOBUFS;
	return -1;
}

/* Room for len entries of the thread map, keeping those read. */
static int
batch_room(struct bpfeng *eng, uint32_t len)
{
	uint32_t *keys;
	void *values;

	if (eng->batch_len >= len)
		return 0;
	if ((keys = realloc(eng->batch_keys, len * sizeof(*keys))) == NULL)
		return -1;
	eng->batch_keys = keys;
	if ((values = realloc(eng->batch_values, len * eng->value_size)) ==
	    NULL)
		return -1;
	eng->batch_values = values;
	eng->batch_len = len;
	return 0;
}

static const struct bpfeng_thread *
batch_value(const struct bpfeng *eng, uint32_t i)
{
	return (const void *)((const char *)eng->batch_values +
	    i * eng->value_size);
}

const struct bpfeng_set_counts *
bpfeng_set_counts(
    const struct bpfeng *eng, const struct bpfeng_counts *counts, int set)
{
	const uint64_t *slots = (const uint64_t *)(const void *)counts;

	if (counts == NULL || set < 0 || set >= eng->nsets)
		return NULL;
	return (const struct bpfeng_set_counts *)(const void *)(slots +
	    eng->set_slot[set]);
}

/*
 * The live threads of the n entries read, in the engine's ticked: those
 * announced and counted, each pointing at its entry. -1: no memory.
 */
static int
gather(struct bpfeng *eng, uint32_t n, int closed, struct bpfeng_tick_batch *b)
{
	const struct bpfeng_thread *value;
	const struct bpfeng_counts *counts;
	struct bpfeng_ticked *room;
	struct eng_thread *t;
	uint32_t i;

	if (n > eng->ticked_len) {
		if ((room = reallocarray(eng->ticked, n, sizeof(*room))) ==
		    NULL)
			return -1;
		eng->ticked = room;
		eng->ticked_len = n;
	}
	b->n = 0;
	for (i = 0; i < n; i++) {
		value = batch_value(eng, i);
		/*
		 * Not yet counted, not yet announced, or a new image's entry
		 * whose exec record is still on its way: next tick.
		 */
		if ((value->flags & BPFENG_THREAD_AWAIT_EXEC) ||
		    (t = eng_thread_find(eng, (pid_t)eng->batch_keys[i])) ==
			NULL ||
		    t->gen != value->gen)
			continue;
		counts =
		    (const struct bpfeng_counts *)(const void *)value->slots;
		eng->ticked[b->n++] = (struct bpfeng_ticked) { t->lwp, t->pid,
			t->tid, bpfeng_set_counts(eng, counts, closed), counts,
			value->counted_ns > b->when_ns ? value->counted_ns :
							 b->when_ns };
	}
	b->threads = eng->ticked;
	return 0;
}

/*
 * Every tracked thread's entry, a batch of hash buckets at a time, each
 * after those before it: *n of them.
 */
static int
read_threads(struct bpfeng *eng, uint32_t *n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint32_t cursor, count, chunk = BATCH_FIRST;
	bool first = true;
	int ret;

	*n = 0;
	for (;;) {
		if (batch_room(eng, *n + chunk) != 0)
			return -1;
		count = chunk;
		ret = bpf_map_lookup_batch(eng->threads_fd,
		    first ? NULL : &cursor, &cursor, eng->batch_keys + *n,
		    (char *)eng->batch_values + *n * eng->value_size, &count,
		    &opts);
		if (ret != 0 && errno == ENOSPC && count == 0) {
			/* A bucket holds more than a batch: grow it. */
			chunk *= 2;
			continue;
		}
		if (ret != 0 && errno != ENOENT)
			return -1;
		*n += count;
		if (ret != 0)
			return 0;
		first = false;
	}
}

/* A tick once the records before it are dispatched (bpfeng_tick). */
int
eng_tick(struct bpfeng *eng, int next_set, struct bpfeng_tick_batch *batch,
    char *why, size_t whylen)
{
	int prev = eng->active;
	uint32_t n;

	/*
	 * Both sets count while the CPUs hand over, one by one, at their
	 * flush or at a switch before it: no time is lost in between. Joint
	 * sets count all the time, and hand over at the same marks.
	 */
	if (next_set != prev && !eng->joint)
		(void)eng_counters_enable(eng, next_set, true);
	/*
	 * The time of the tick's counts: taken before, a delay of this
	 * thread's would count in the old set past the end of its turn.
	 */
	eng->handover_ns = eng_now_ns();
	__atomic_store_n(eng->active_set, (uint32_t)next_set, __ATOMIC_RELEASE);
	if (eng_flush(eng, why, whylen) != 0)
		return -1;
	if (next_set != prev && !eng->joint)
		(void)eng_counters_enable(eng, prev, false);
	eng->active = next_set;
	*batch = (struct bpfeng_tick_batch) { NULL, 0, eng->handover_ns };
	if (read_threads(eng, &n) != 0 || gather(eng, n, prev, batch) != 0) {
		eng_why(why, whylen, "cannot read the threads' counts - %s",
		    strerror(errno));
		return -1;
	}
	return 0;
}
