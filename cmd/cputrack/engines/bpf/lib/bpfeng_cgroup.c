/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A cgroup as the target. The programs find each thread that runs in it
 * or below it, and each tracked one that runs outside it, at its switch
 * or at a flush; the processes there at the start are adopted from
 * cgroup.procs here, as -p's is, so that each has its rows from the
 * start, sleeping or not. With each cgroup apart (BPFENG_EACH_CGROUP), no
 * thread is tracked: each cgroup's counts are an entry of one map, read
 * here at the ticks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bpfeng_impl.h"
#include "cgroupdir.h"

/* The processes of one cgroup; a process gone meanwhile is let go. */
static void
adopt_procs(struct bpfeng *eng, int dirfd)
{
	char line[32], *end;
	FILE *f;
	long pid;
	int fd;

	if ((fd = openat(dirfd, "cgroup.procs", O_RDONLY | O_CLOEXEC)) < 0)
		return;
	if ((f = fdopen(fd, "r")) == NULL) {
		close(fd);
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		pid = strtol(line, &end, 10);
		if (pid <= 0 || (*end != '\n' && *end != '\0') ||
		    eng_thread_find(eng, (pid_t)pid) != NULL)
			continue;
		if (eng_adopt_process(eng, (pid_t)pid) != 0) {
			/* One gone since it was listed was never there. */
			if (errno != ESRCH)
				eng->unadopted++;
			eng_untrack(eng, (pid_t)pid);
		}
	}
	fclose(f);
}

static void
adopt_visit(void *arg, int fd, const char *rel, unsigned level)
{
	(void)rel;
	(void)level;
	adopt_procs(arg, fd);
}

/* The cgroup's processes, then its children's, as deep as they go. */
static void
adopt_tree(struct bpfeng *eng, int dirfd)
{
	adopt_procs(eng, dirfd);
	cgroup_dir_walk(dirfd, BPFENG_CGROUP_DEPTH, adopt_visit, eng);
}

/* An entry of zero counts for cgroup id. */
static int
count_apart(struct bpfeng *eng, uint64_t id)
{
	void *zeros = calloc(1, eng->value_size);
	int ret;

	if (zeros == NULL)
		return -1;
	ret = bpf_map_update_elem(eng->cgroups_fd, &id, zeros, BPF_NOEXIST);
	free(zeros);
	return ret;
}

int
bpfeng_attach_cgroup(struct bpfeng *eng, uint64_t id, int level,
    const char *dir, char *why, size_t whylen)
{
	int fd;

	if (eng->target != 0) {
		eng_why(why, whylen, "the engine has a target already");
		errno = EINVAL;
		return -1;
	}
	if (!(eng->flags & BPFENG_BY_CGROUP)) {
		eng_why(why, whylen, "the engine was not opened for a cgroup");
		errno = EINVAL;
		return -1;
	}
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		eng_why(why, whylen, "cannot open the cgroup %s - %s", dir,
		    strerror(errno));
		return -1;
	}
	/* Counts that find no room of their own go to the target's. */
	if (eng->cgroups_max != 0 && count_apart(eng, id) != 0) {
		eng_why(why, whylen, "cannot count the cgroup %s - %s", dir,
		    strerror(errno));
		close(fd);
		return -1;
	}
	eng->target = -1;
	eng->by_cgroup = true;
	*eng->target_level = (uint32_t)level;
	/* From here on the programs find what comes. */
	__atomic_store_n(eng->target_cgroup, id, __ATOMIC_RELEASE);
	/*
	 * Of those there now, the programs check each one as it runs; each
	 * cgroup apart tracks no thread.
	 */
	if (eng_may_trace_any() && eng->cgroups_max == 0)
		adopt_tree(eng, fd);
	close(fd);
	/* A thread on a CPU now counts from that CPU's flush. */
	return eng_flush(eng, why, whylen);
}

/* Every cgroup's counts, a batch of hash buckets at a time. */
int
bpfeng_read_cgroups(struct bpfeng *eng, bpfeng_cgroup_fn *fn, void *arg)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint64_t cursor, *keys = eng->cgroup_keys;
	const struct bpfeng_thread *value;
	uint32_t count, i;
	bool first = true;
	int ret;

	if (eng->cgroups_max == 0)
		return 0;
	if (keys == NULL) {
		/* Room for the whole map: one read, however its buckets lie. */
		eng->cgroup_keys = keys =
		    calloc(eng->cgroups_max, sizeof(*keys));
		eng->cgroup_values = calloc(eng->cgroups_max, eng->value_size);
		if (keys == NULL || eng->cgroup_values == NULL)
			return -1;
	}
	for (;;) {
		count = eng->cgroups_max;
		ret = bpf_map_lookup_batch(eng->cgroups_fd,
		    first ? NULL : &cursor, &cursor, keys, eng->cgroup_values,
		    &count, &opts);
		if (ret != 0 && errno != ENOENT)
			return -1;
		for (i = 0; i < count; i++) {
			value =
			    (const void *)((const char *)eng->cgroup_values +
				i * eng->value_size);
			fn(arg, keys[i],
			    (const struct bpfeng_counts *)(const void *)
				value->slots);
		}
		if (ret != 0)
			return 0;
		first = false;
	}
}

int
bpfeng_count_cgroup(struct bpfeng *eng, uint64_t id)
{
	if (eng->cgroups_max == 0 || *eng->target_cgroup == 0) {
		errno = EINVAL;
		return -1;
	}
	return count_apart(eng, id);
}

void
bpfeng_forget_cgroup(struct bpfeng *eng, uint64_t id)
{
	if (eng->cgroups_max != 0 && id != *eng->target_cgroup)
		(void)bpf_map_delete_elem(eng->cgroups_fd, &id);
}
