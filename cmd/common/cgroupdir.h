/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A cgroup v2 directory named on the command line: where the unified
 * hierarchy is mounted (from /proc/self/mountinfo, never assumed), the
 * directory, and the numbers the kernel knows it by.
 */
#ifndef CGROUPDIR_H
#define CGROUPDIR_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

struct cgroup_dir {
	char path[PATH_MAX]; /* the directory */
	char name[PATH_MAX]; /* in the hierarchy, as /proc/PID/cgroup says:
				"/" or "/a/b" */
	uint64_t id;	     /* the kernel's cgroup id */
	int level;	     /* below the hierarchy's root: "/" is 0 */
};

/*
 * The first cgroup2 mount in a mountinfo text: its mount point and the
 * directory of the hierarchy it shows (its root, "/" but in a cgroup
 * namespace or a bind mount). 0, or -1 when there is none.
 */
int cgroup2_mount(
    FILE *mountinfo, char *mnt, size_t mntlen, char *root, size_t rootlen);

/*
 * The first mount in a mountinfo text through which a cgroup could be
 * changed: a cgroup hierarchy (v1 or v2) mounted read-write. 1 and
 * "MOUNTPOINT (TYPE)" in which, or 0 where none is.
 * The mount's flags, not access(2), tell: root with CAP_DAC_OVERRIDE
 * may write where its file modes say it may not.
 */
int cgroup_writable_mount(FILE *mountinfo, char *which, size_t len);

/*
 * arg as --cgroup takes it: a directory under the cgroup2 mount, or a
 * path in the hierarchy ("/system.slice/x.service", as /proc/PID/cgroup
 * writes it, or relative: "system.slice/x.service"). 0, or -1 with why, a
 * line that begins with arg, quoted, for the caller to name its option.
 */
int cgroup_dir_resolve(
    const char *arg, struct cgroup_dir *cg, char *why, size_t whylen);

/* The id of the cgroup directory name under dirfd, as the kernel has it. */
int cgroup_id_at(int dirfd, const char *name, uint64_t *id);

/*
 * What cgroup_dir_walk shows of a directory: fd, open for it (no symbolic
 * link followed; closed after the visit of its children), rel its path
 * below the walk's top, level 1 for the top's own children.
 */
typedef void cgroup_visit_fn(
    void *arg, int fd, const char *rel, unsigned level);

/*
 * Visit each directory below the one open at topfd, depth levels down at
 * most, a parent before its children. One removed meanwhile is passed
 * over: a cgroup tree changes while it is read.
 */
void cgroup_dir_walk(
    int topfd, unsigned depth, cgroup_visit_fn *visit, void *arg);

#endif /* CGROUPDIR_H */
