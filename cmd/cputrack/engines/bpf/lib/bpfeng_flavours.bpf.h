/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel's structs as bpfeng.bpf.c reads them where they differ from
 * one kernel version to another, or where vmlinux.h leaves them out: each
 * a flavour (struct name___flavour) with the fields read alone, which
 * CO-RE relocates against the running kernel's own. Every field read is
 * a line of kernel_fields.txt.
 */
#ifndef BPFENG_FLAVOURS_BPF_H
#define BPFENG_FLAVOURS_BPF_H

/* Kernels before 5.18 named the exec'ing task group_exit_task. */
struct signal_struct___pre518 {
	struct task_struct *group_exit_task;
} __attribute__((preserve_access_index));

/*
 * The kernel's cgroups: a task's cgroup in the unified hierarchy, its
 * depth there, its parent, and its id (its directory's kernfs node's).
 */
struct kernfs_node___cg {
	__u64 id;
	const char *name;
} __attribute__((preserve_access_index));

struct cgroup_root___cg {
	int hierarchy_id; /* the unified hierarchy's is 0 */
} __attribute__((preserve_access_index));

struct cgroup_subsys_state___cg {
	struct cgroup_subsys_state___cg *parent;
} __attribute__((preserve_access_index));

struct cgroup___cg {
	struct cgroup_subsys_state___cg self;
	struct kernfs_node___cg *kn;
	struct cgroup_root___cg *root;
	int level;
} __attribute__((preserve_access_index));

struct css_set___cg {
	struct cgroup___cg *dfl_cgrp;
} __attribute__((preserve_access_index));

struct task_struct___cg {
	struct css_set___cg *cgroups;
} __attribute__((preserve_access_index));

/* A task's children: whether a wrapper at its exec still has one. */
struct list_head___kids {
	struct list_head___kids *next;
} __attribute__((preserve_access_index));

struct task_struct___kids {
	struct list_head___kids children;
} __attribute__((preserve_access_index));

/*
 * What ptrace(2) looks at to decide whether a caller may trace a task.
 * mm_struct's flags were an unsigned long until Linux 6.17 and are a
 * bitmap since: both flavours, and CO-RE keeps the running kernel's.
 */
struct kid___ptrace {
	__u32 val;
};

/* kernel_cap_t: a __u64 since Linux 6.3, two __u32 before; 8 bytes. */
struct kcap___ptrace {
	__u64 val;
};

struct cred___ptrace {
	struct kid___ptrace uid, gid, suid, sgid, euid, egid;
	struct kcap___ptrace cap_permitted;
} __attribute__((preserve_access_index));

struct task_struct___ptrace {
	struct cred___ptrace *cred;
	struct mm_struct *mm;
} __attribute__((preserve_access_index));

struct mm_struct___flags_long {
	unsigned long flags;
} __attribute__((preserve_access_index));

struct mm_flags___bitmap {
	unsigned long __mm_flags[1];
};

struct mm_struct___flags_bitmap {
	struct mm_flags___bitmap flags;
} __attribute__((preserve_access_index));

#endif /* BPFENG_FLAVOURS_BPF_H */
