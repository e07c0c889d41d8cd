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
	const char *log, *p;
	int err = 0, lines = 0;

	if (geteuid() != 0)
		SKIP("loading BPF programs needs root");
	eng_log_begin();
	if ((skel = refused_bpf__open()) == NULL ||
	    refused_bpf__load(skel) != 0)
		err = errno;
	if (err != 0)
		eng_load_reason(eng_log_text(), err, why, sizeof(why));
	eng_log_end();
	refused_bpf__destroy(skel);
	printf("%s\n", why);
	CHECK(err != 0);
	CHECK(strncmp(why, prefix, sizeof(prefix) - 1) == 0);
	/* The reason itself, not the trace of instructions before it. */
	CHECK(strstr(why, "invalid mem access") != NULL);
	CHECK(strchr(why, '\n') == NULL);
	/* The whole log is kept for a report, after the load is over. */
	log = bpfeng_verifier_log();
	CHECK(log != NULL);
	if (log != NULL) {
		CHECK(strstr(log,
			  "prog 'refused': -- BEGIN PROG LOAD LOG --") != NULL);
		CHECK(strstr(log, "invalid mem access") != NULL);
		CHECK(strstr(log, "-- END PROG LOAD LOG --") != NULL);
		for (p = log; (p = strchr(p, '\n')) != NULL; p++)
			lines++;
		/* The trace of the instructions too, not one line. */
		CHECK(lines > 5);
		printf("the verifier's log: %d lines\n", lines);
	}
	/* Gone at the next load. */
	eng_log_begin();
	eng_log_end();
	CHECK(bpfeng_verifier_log() == NULL);
	return check_report("test_verifier");
}
