/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A program the verifier must refuse: it uses a map lookup's result
 * without checking it for NULL. test_verifier loads it the way the engine
 * loads its own, to see the refusal reported.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} values SEC(".maps");

SEC("tp_btf/sched_switch")
int
BPF_PROG(
    refused, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&values, &zero);

	return (int)*v;
}
