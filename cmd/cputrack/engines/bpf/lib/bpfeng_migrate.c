/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The hooks at a cgroup's changes, for each cgroup apart: a task's move
 * (on_migrate in bpfeng.bpf.c), so that what a task counted before it
 * moved goes to the cgroup it left; and a cgroup made or removed
 * (on_cgroup_made, ...), so that userspace learns its name as it comes
 * and never walks the directory for it while it counts. They are loaded on
 * their own, only for runs that count each cgroup apart, as a third
 * instance of the object that uses the first's maps, so that neither
 * their load nor their attach can stop the engine. Without on_migrate, a
 * task that moves itself counts in the cgroup it left until its next
 * switch (where the programs find each task as it comes to a CPU), and
 * bpfeng_migrations() says so; without the others, userspace names
 * cgroups as before.
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

static bool
hook_program(const struct bpfeng_bpf *skel, const struct bpf_program *prog)
{
	return prog == skel->progs.on_migrate ||
	    prog == skel->progs.on_cgroup_made ||
	    prog == skel->progs.on_cgroup_removed;
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
		(void)bpf_program__set_autoload(prog, hook_program(skel, prog));
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

/* prog, attached to its tracepoint, its link kept where destroy finds it. */
static int
hook(struct bpf_program *prog, struct bpf_link **link)
{
	if ((*link = bpf_program__attach(prog)) == NULL)
		return errno != 0 ? errno : ENOENT;
	return 0;
}

void
eng_migrate_attach(struct bpfeng *eng)
{
	struct bpfeng_bpf *skel = eng->migrate;
	int err;

	if (skel == NULL)
		return;
	if ((err = hook(skel->progs.on_migrate, &skel->links.on_migrate)) != 0)
		eng->migrate_err = err;
	/* Removals first: a cgroup told of is one whose end is told too. */
	if (hook(skel->progs.on_cgroup_removed,
		&skel->links.on_cgroup_removed) != 0 ||
	    hook(skel->progs.on_cgroup_made, &skel->links.on_cgroup_made) != 0)
		return;
	eng->cgroup_events = true;
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
	return eng->migrate != NULL &&
	    hook_program(eng->migrate,
		bpf_object__find_program_by_name(eng->migrate->obj, name));
}

bool
eng_migrate_unused(const struct bpfeng *eng, const char *name)
{
	return eng->cgroups_max == 0 &&
	    (strcmp(name, "on_migrate") == 0 ||
		strncmp(name, "on_cgroup_", strlen("on_cgroup_")) == 0);
}

bool
bpfeng_cgroup_events(const struct bpfeng *eng)
{
	return eng->cgroup_events;
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
