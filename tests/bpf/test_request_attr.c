/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libcpc's extension for counting engines: cpc_set_request_attr gives the
 * perf attributes that count a request (proved by counting with them).
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "test_cpc.h"

static int
count_own_writes(const struct perf_event_attr *attr, int n, uint64_t *count)
{
	struct perf_event_attr a = *attr;
	uint64_t buf[3];
	int fd, devnull, i;

	a.disabled = 1;
	if ((fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0)) < 0)
		return -1;
	devnull = open("/dev/null", O_WRONLY);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < n; i++)
		(void)write(devnull, "x", 1);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	close(devnull);
	/* read_format: value, enabled, running. */
	if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		close(fd);
		return -1;
	}
	close(fd);
	*count = buf[0];
	return 0;
}

static void
check_attrs(cpc_t *cpc)
{
	cpc_set_t *set = cpc_set_create(cpc);
	struct perf_event_attr attr;
	uint64_t count = 0;

	CHECK(cpc_set_add_request(cpc, set, "syscalls:sys_enter_write", 0,
		  CPC_COUNT_USER, 0, NULL) == 0);
	/* add_request returns the request's index. */
	CHECK(cpc_set_add_request(
		  cpc, set, "page-faults", 0, CPC_COUNT_USER, 0, NULL) == 1);
	CHECK(cpc_set_request_attr(cpc, set, 0, &attr) == 0);
	CHECK(attr.type == PERF_TYPE_TRACEPOINT);
	CHECK(attr.size == sizeof(attr));
	/* A tracepoint counts in the kernel, whatever the modes asked. */
	CHECK(attr.exclude_kernel == 0 && attr.exclude_user == 0);
	CHECK(attr.read_format ==
	    (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING));
	CHECK(attr.sample_period == 0 && attr.inherit == 0);
	CHECK(count_own_writes(&attr, 321, &count) == 0);
	CHECK_EQ_U64(count, 321);
	CHECK(cpc_set_request_attr(cpc, set, 1, &attr) == 0);
	CHECK(attr.type == PERF_TYPE_SOFTWARE);
	CHECK(attr.config == PERF_COUNT_SW_PAGE_FAULTS);
	/* No such request. */
	errno = 0;
	CHECK(
	    cpc_set_request_attr(cpc, set, 2, &attr) == -1 && errno == EINVAL);
	CHECK(
	    cpc_set_request_attr(cpc, set, -1, &attr) == -1 && errno == EINVAL);
	CHECK(
	    cpc_set_request_attr(cpc, NULL, 0, &attr) == -1 && errno == EINVAL);
	(void)cpc_set_destroy(cpc, set);

	/* An overflow request needs what only a bind gives. */
	set = cpc_set_create(cpc);
	CHECK(cpc_set_add_request(cpc, set, "page-faults", 0,
		  CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL) == 0);
	CHECK(
	    cpc_set_request_attr(cpc, set, 0, &attr) == -1 && errno == ENOTSUP);
	(void)cpc_set_destroy(cpc, set);
}

int
main(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);

	if (cpc == NULL)
		SKIP("cpc_open: %s", strerror(errno));
	require_tracefs();
	check_attrs(cpc);
	cpc_close(cpc);
	return check_report("test_request_attr");
}
