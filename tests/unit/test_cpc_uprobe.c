/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uprobes through the kernel's uprobe PMU, named uprobe:PATH:SYMBOL: a
 * function of this very program, found in its ELF symbol table, counts
 * its calls exactly on the thread bound (entries and returns alike), and
 * a probe the kernel cannot place (a locked instruction) is refused with
 * that reason, not with an errno number: when the name is added, since
 * this process maps the file (asked of the kernel then), or at bind.
 */
#include <stdatomic.h>

#include "test_cpc.h"

#define CALLS 321

static volatile unsigned long plain_count;
static atomic_ulong locked_count;

__attribute__((noinline, used)) void
uprobe_plain_target(void)
{
	plain_count = plain_count + 1;
	__asm__ volatile("" ::: "memory");
}

/* Starts with a locked instruction on x86, where uprobes may not sit. */
__attribute__((noinline, used)) void
uprobe_locked_target(void)
{
	atomic_fetch_add(&locked_count, 1);
}

static char self[4096];

static int
count_calls(cpc_t *cpc, const char *event, uint64_t *value)
{
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_buf_t *buf;
	int i, rc = -1;

	if (cpc_set_add_request(cpc, set, event, 0, CPC_COUNT_USER, 0, NULL) !=
	    0) {
		cpc_set_destroy(cpc, set);
		return -1;
	}
	buf = cpc_buf_create(cpc, set);
	if (cpc_bind_curlwp(cpc, set, 0) == 0) {
		for (i = 0; i < CALLS; i++) {
			uprobe_plain_target();
			uprobe_locked_target();
		}
		rc = cpc_set_sample(cpc, set, buf);
		cpc_buf_get(cpc, buf, 0, value);
		cpc_unbind(cpc, set);
	}
	cpc_buf_destroy(cpc, buf);
	cpc_set_destroy(cpc, set);
	return rc;
}

int
main(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	char event[4200], why[600];
	uint64_t v = 0;
	ssize_t n;

	if (cpc == NULL)
		SKIP("cpc_open failed: %s", strerror(errno));
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0)
		SKIP("no /proc/self/exe");
	self[n] = '\0';
	snprintf(event, sizeof(event), "uprobe:%s:uprobe_plain_target", self);
	if (cpc_event_status(cpc, event, why, sizeof(why)) !=
	    CPC_EVENT_COUNTABLE)
		SKIP("uprobes cannot be counted here: %s", why);
	CHECK(strcmp(cpc_event_kind(cpc, event), "uprobe") == 0);
	CHECK(count_calls(cpc, event, &v) == 0);
	CHECK_EQ_U64(v, CALLS);
	snprintf(
	    event, sizeof(event), "uretprobe:%s:uprobe_plain_target", self);
	CHECK(count_calls(cpc, event, &v) == 0);
	CHECK_EQ_U64(v, CALLS);
	printf("uprobe and uretprobe on uprobe_plain_target: %d calls each\n",
	    CALLS);

	/* Names that cannot be: no such file, no such symbol. */
	CHECK(cpc_event_status(cpc, "uprobe:/no/such/file:f", why,
		  sizeof(why)) == CPC_EVENT_UNSUPPORTED);
	CHECK(strstr(why, "No such file or directory") != NULL);
	snprintf(event, sizeof(event), "uprobe:%s:no_such_symbol", self);
	CHECK(cpc_event_status(cpc, event, why, sizeof(why)) ==
	    CPC_EVENT_UNSUPPORTED);
	CHECK(strstr(why, "no symbol no_such_symbol in it") != NULL);

#if defined(__x86_64__) || defined(__i386__)
	/* The kernel refuses to place it, and that is what is said. */
	snprintf(event, sizeof(event), "uprobe:%s:uprobe_locked_target", self);
	(void)cpc_seterrhndlr(cpc, recording_handler);
	forget_error();
	CHECK(count_calls(cpc, event, &v) != 0);
	CHECK(last_error.subcode == CPC_INVALID_EVENT);
	CHECK(strstr(last_error.msg,
		  "the kernel cannot probe there: uprobes "
		  "refuse some instructions") != NULL);
	printf("on a locked instruction: %s", last_error.msg);
#endif
	cpc_close(cpc);
	return check_report("test_cpc_uprobe");
}
