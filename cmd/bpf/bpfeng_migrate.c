/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The hook at a cgroup migration (on_migrate in bpfeng.bpf.c), for each
 * cgroup apart: what a task counted before it moved goes to the cgroup it
 * left. It is loaded on its own, only for runs that count each cgroup
 * apart, as a third instance of the object that uses the first's maps, so
 * that neither its load nor its attach can stop the engine: without it, a
 * task that moves itself counts in the cgroup it left until its next
 * switch (where the programs find each task as it comes to a CPU), and
 * bpfeng_migrations() says so.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpfeng_impl.h"
#include "bpfeng.skel.h"

/* The first instance's maps, in the object's order. */
static int
share_maps(struct bpfeng_bpf *mine, const struct bpfeng_bpf *first)
{
	struct bpf_map *map, *theirs = NULL;

	bpf_object__for_each_map (map, mine->obj) {
		theirs = bpf_object__next_map(first->obj, theirs);
		if (theirs == NULL ||
		    bpf_map__reuse_fd(map, bpf_map__fd(theirs)) != 0)
			return errno != 0 ? errno : EINVAL;
	}
	return 0;
}

void
eng_migrate_load(struct bpfeng *eng, const char *types_path)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = types_path);
	struct bpfeng_bpf *skel;
	struct bpf_program *prog;
	int err;

	eng->migrate_err = 0;
	if (eng->cgroups_max == 0)
		return;
	if ((skel = bpfeng_bpf__open_opts(&opts)) == NULL) {
		eng->migrate_err = errno != 0 ? errno : ENOMEM;
		return;
	}
	bpf_object__for_each_program (prog, skel->obj)
		(void)bpf_program__set_autoload(
		    prog, prog == skel->progs.on_migrate);
	if ((err = share_maps(skel, eng->skel)) == 0 &&
	    bpfeng_bpf__load(skel) != 0)
		err = errno != 0 ? errno : EINVAL;
	if (err != 0) {
		bpfeng_bpf__destroy(skel);
		eng->migrate_err = err;
		return;
	}
	eng->migrate = skel;
}

void
eng_migrate_attach(struct bpfeng *eng)
{
	struct bpf_link *link;

	if (eng->migrate == NULL)
		return;
	link = bpf_program__attach(eng->migrate->progs.on_migrate);
	if (link == NULL) {
		eng->migrate_err = errno != 0 ? errno : ENOENT;
		return;
	}
	eng->migrate->links.on_migrate = link;
}

void
eng_migrate_detach(struct bpfeng *eng)
{
	if (eng->migrate != NULL)
		bpfeng_bpf__detach(eng->migrate);
}

void
eng_migrate_unload(struct bpfeng *eng)
{
	bpfeng_bpf__destroy(eng->migrate);
	eng->migrate = NULL;
}

bool
eng_migrate_program(const struct bpfeng *eng, const char *name)
{
	return eng->migrate != NULL && strcmp(name, "on_migrate") == 0;
}

bool
eng_migrate_unused(const struct bpfeng *eng, const char *name)
{
	return eng->cgroups_max == 0 && strcmp(name, "on_migrate") == 0;
}

void
bpfeng_migrations(const struct bpfeng *eng, char *buf, size_t len)
{
	if (eng->cgroups_max == 0)
		snprintf(buf, len, "not watched (no cgroup counted apart)");
	else if (eng->migrate != NULL && eng->migrate->links.on_migrate != NULL)
		snprintf(buf, len,
		    "a task that moves itself counts in the cgroup it left "
		    "until the move");
	else
		snprintf(buf, len,
		    "a task that moves itself counts in the cgroup it left "
		    "until its next switch (no hook at the kernel's "
		    "cgroup_attach_task tracepoint: %s)",
		    strerror(
			eng->migrate_err != 0 ? eng->migrate_err : ENOENT));
}
