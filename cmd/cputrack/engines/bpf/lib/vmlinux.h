/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel types that cputrack's BPF programs use, and only those,
 * made by scripts/gen-vmlinux-h from the BTF of
 * linux-image-6.1.0-56-amd64_6.1.192-2_amd64.deb and
 * linux-image-6.1.0-56-arm64_6.1.192-2_arm64.deb.
 * Do not edit: run scripts/gen-vmlinux-h (see its help) instead.
 *
 * Every struct but those used by value carries only the fields the
 * programs read, and all of them preserve_access_index: libbpf relocates
 * each field at load time to where the running kernel has it (CO-RE), so
 * this one header serves every architecture and kernel.
 */
#ifndef CPCTOOLS_VMLINUX_H
#define CPCTOOLS_VMLINUX_H

#pragma clang attribute push (__attribute__((preserve_access_index)), \
    apply_to = record)

typedef unsigned char __u8;
typedef signed char __s8;
typedef short unsigned int __u16;
typedef short int __s16;
typedef unsigned int __u32;
typedef int __s32;
typedef long long unsigned int __u64;
typedef long long int __s64;
typedef __u8 u8;
typedef __s8 s8;
typedef __u16 u16;
typedef __s16 s16;
typedef __u32 u32;
typedef __s32 s32;
typedef __u64 u64;
typedef __s64 s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef int __kernel_pid_t;
typedef __kernel_pid_t pid_t;
typedef _Bool bool;

enum {
	false = 0,
	true = 1,
};

enum bpf_map_type {
	BPF_MAP_TYPE_UNSPEC = 0,
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PROG_ARRAY = 3,
	BPF_MAP_TYPE_PERF_EVENT_ARRAY = 4,
	BPF_MAP_TYPE_PERCPU_HASH = 5,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_STACK_TRACE = 7,
	BPF_MAP_TYPE_CGROUP_ARRAY = 8,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_LRU_PERCPU_HASH = 10,
	BPF_MAP_TYPE_LPM_TRIE = 11,
	BPF_MAP_TYPE_ARRAY_OF_MAPS = 12,
	BPF_MAP_TYPE_HASH_OF_MAPS = 13,
	BPF_MAP_TYPE_DEVMAP = 14,
	BPF_MAP_TYPE_SOCKMAP = 15,
	BPF_MAP_TYPE_CPUMAP = 16,
	BPF_MAP_TYPE_XSKMAP = 17,
	BPF_MAP_TYPE_SOCKHASH = 18,
	BPF_MAP_TYPE_CGROUP_STORAGE = 19,
	BPF_MAP_TYPE_REUSEPORT_SOCKARRAY = 20,
	BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE = 21,
	BPF_MAP_TYPE_QUEUE = 22,
	BPF_MAP_TYPE_STACK = 23,
	BPF_MAP_TYPE_SK_STORAGE = 24,
	BPF_MAP_TYPE_DEVMAP_HASH = 25,
	BPF_MAP_TYPE_STRUCT_OPS = 26,
	BPF_MAP_TYPE_RINGBUF = 27,
	BPF_MAP_TYPE_INODE_STORAGE = 28,
	BPF_MAP_TYPE_TASK_STORAGE = 29,
	BPF_MAP_TYPE_BLOOM_FILTER = 30,
	BPF_MAP_TYPE_USER_RINGBUF = 31,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_EXIST = 2,
	BPF_F_LOCK = 4,
};

enum {
	BPF_RB_NO_WAKEUP = 1,
	BPF_RB_FORCE_WAKEUP = 2,
};

enum {
	BPF_RB_AVAIL_DATA = 0,
	BPF_RB_RING_SIZE = 1,
	BPF_RB_CONS_POS = 2,
	BPF_RB_PROD_POS = 3,
};

struct kernel_siginfo;
struct linux_binprm;

struct bpf_perf_event_value {
	__u64 counter;
	__u64 enabled;
	__u64 running;
};

struct mm_struct;
struct signal_struct;

struct task_struct {
	unsigned int flags;
	struct mm_struct *mm;
	int exit_code;
	pid_t pid;
	pid_t tgid;
	char comm[16];
	struct signal_struct *signal;
};

typedef struct {
	int counter;
} atomic_t;

struct signal_struct {
	atomic_t live;
	int group_exit_code;
	struct task_struct *group_exec_task;
	unsigned int flags;
};

struct mm_struct {
	long unsigned int arg_start;
	long unsigned int arg_end;
};

#pragma clang attribute pop

#endif /* CPCTOOLS_VMLINUX_H */
