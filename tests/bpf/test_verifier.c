/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A BPF program the kernel's verifier refuses is reported as the engine
 * reports it: one line naming the program and the verifier's reason.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpfeng_impl.h"
#include "check.h"
#include "refused.skel.h"

int
main(void)
{
	static const char prefix[] =
	    "the kernel's verifier refused the BPF program 'refused': ";
	char why[BPFENG_WHY_LEN] = "";
	struct refused_bpf *skel;
	int err = 0;

	if (geteuid() != 0)
		SKIP("loading BPF programs needs root");
	eng_log_begin();
	if ((skel = refused_bpf__open()) == NULL ||
	    refused_bpf__load(skel) != 0)
		err = errno;
	if (err != 0)
		eng_load_reason(err, why, sizeof(why));
	eng_log_end();
	refused_bpf__destroy(skel);
	printf("%s\n", why);
	CHECK(err != 0);
	CHECK(strncmp(why, prefix, sizeof(prefix) - 1) == 0);
	/* The reason itself, not the trace of instructions before it. */
	CHECK(strstr(why, "invalid mem access") != NULL);
	CHECK(strchr(why, '\n') == NULL);
	return check_report("test_verifier");
}
