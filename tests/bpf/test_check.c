/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's checks of the kernel before it loads anything: its
 * version and its BTF, each refusal one line that names the fix; and the
 * verifier's reason picked out of a load log as libbpf prints it.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "bpfeng_impl.h"
#include "check.h"

static void
check_kernel(void)
{
	char why[BPFENG_WHY_LEN];

	CHECK(eng_check_kernel("6.18.44-fc-v595", "/sys/kernel/btf/vmlinux",
		  why, sizeof(why)) == 0 ||
	    access("/sys/kernel/btf/vmlinux", R_OK) != 0);
	CHECK(eng_check_kernel("5.10.0", "/", why, sizeof(why)) == 0);
	CHECK(eng_check_kernel("5.9.16", "/", why, sizeof(why)) == -1);
	CHECK(errno == ENOSYS);
	CHECK(strcmp(why,
		  "kernel 5.9.16 is too old: the BPF engine needs "
		  "Linux 5.10 or later") == 0);
	CHECK(eng_check_kernel("4.19.0-27-amd64", "/", why, sizeof(why)) == -1);
	CHECK(eng_check_kernel("garbage", "/", why, sizeof(why)) == -1);
	CHECK(eng_check_kernel(
		  "6.1.0", "/nonexistent/vmlinux", why, sizeof(why)) == -1);
	CHECK(errno == ENOENT);
	CHECK(strcmp(why,
		  "the kernel has no BTF (/nonexistent/vmlinux is "
		  "missing; it needs CONFIG_DEBUG_INFO_BTF)") == 0);
}

/* A load log in the shape libbpf prints it, from a 6.x verifier. */
static const char load_log[] =
    "libbpf: prog 'on_switch': BPF program load failed: Permission denied\n"
    "libbpf: prog 'on_switch': -- BEGIN PROG LOAD LOG --\n"
    "0: R1=ctx() R10=fp0\n"
    "; int BPF_PROG(on_switch) @ bpfeng.bpf.c:274\n"
    "0: (79) r7 = *(u64 *)(r1 +16)\n"
    "func 'sched_switch' arg2 has btf_id 114 type STRUCT 'task_struct'\n"
    "1: R1=ctx() R7=trusted_ptr_task_struct()\n"
    "189: (79) r1 = *(u64 *)(r3 +8)\n"
    "R3 unbounded memory access, make sure to bounds check any such "
    "access\n"
    "processed 567 insns (limit 1000000) max_states_per_insn 3\n"
    "-- END PROG LOAD LOG --\n"
    "libbpf: prog 'on_switch': failed to load: -13\n";

static void
check_reason(void)
{
	char line[200];

	eng_verifier_reason(load_log, line, sizeof(line));
	CHECK(strcmp(line,
		  "R3 unbounded memory access, make sure to bounds "
		  "check any such access") == 0);
	eng_verifier_reason("libbpf: no log here\n", line, sizeof(line));
	CHECK(strcmp(line, "no verifier log") == 0);
}

/*
 * A load that failed for want of descriptors is said as such, though
 * libbpf prints the verifier's log with it (the program passed, its
 * descriptor could not be had), or its own probe failed for want of one
 * and the verifier refused the program made without the feature.
 */
static void
check_descriptors(void)
{
	char why[BPFENG_WHY_LEN], probe[512];

	eng_load_reason(load_log, EMFILE, why, sizeof(why));
	CHECK(strncmp(why,
		  "cannot load the BPF programs - Too many open "
		  "files",
		  49) == 0);
	CHECK(strstr(why, "verifier") == NULL);
	CHECK(bpfeng_verifier_log() == NULL);
	snprintf(probe, sizeof(probe),
	    "libbpf: Error in probe_kern_global_"
	    "data():%s(24). Couldn't create simple array map.\n%s",
	    strerror(EMFILE), load_log);
	eng_load_reason(probe, EINVAL, why, sizeof(why));
	CHECK(strstr(why, "Too many open files") != NULL);
	CHECK(strstr(why, "verifier") == NULL);
	/* A refusal, and its log kept whole. */
	eng_load_reason(load_log, EACCES, why, sizeof(why));
	CHECK(strstr(why,
		  "the kernel's verifier refused the BPF program "
		  "'on_switch': R3 unbounded memory access") == why);
	CHECK(bpfeng_verifier_log() != NULL &&
	    strcmp(bpfeng_verifier_log(), load_log) == 0);
}

int
main(void)
{
	check_kernel();
	check_reason();
	check_descriptors();
	return check_report("test_check");
}
