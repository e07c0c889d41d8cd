/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A program from outside the tree, built against an installed cpctools:
 * with libcpc and libpctx it counts the write(2) calls of a child that
 * makes exactly NWRITES of them (this program, run as "consumer child"),
 * then its own NWRITES, on the tracepoint syscalls:sys_enter_write.
 *
 * Exit status: 0 when both counts are exact, 1 when not or on an error,
 * 77 when this machine cannot count the tracepoint (the reason on stderr).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libcpc.h>
#include <libpctx.h>

#define NWRITES 1000
#define EVENT	"syscalls:sys_enter_write"

struct counter {
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *buf;
	int index;
	uint64_t total;
};

static int
write_many(int n)
{
	int fd, i;

	if ((fd = open("/dev/null", O_WRONLY)) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1)
			break;
	(void)close(fd);
	return i == n ? 0 : -1;
}

static int
counter_init(cpc_t *cpc, struct counter *c)
{
	c->cpc = cpc;
	c->total = 0;
	if ((c->set = cpc_set_create(cpc)) == NULL)
		return -1;
	c->index = cpc_set_add_request(
	    cpc, c->set, EVENT, 0, CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL);
	if (c->index < 0)
		return -1;
	if ((c->buf = cpc_buf_create(cpc, c->set)) == NULL)
		return -1;
	return 0;
}

/* Add what the set counted since it was bound. */
static int
counter_take(struct counter *c)
{
	uint64_t v;

	if (cpc_set_sample(c->cpc, c->set, c->buf) != 0 ||
	    cpc_buf_get(c->cpc, c->buf, c->index, &v) != 0)
		return -1;
	c->total += v;
	return 0;
}

static int
init_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct counter *c = arg;

	(void)pid;
	return cpc_bind_pctx(c->cpc, pctx, lwpid, c->set, 0);
}

static int
fini_lwp(pctx_t *pctx, pid_t pid, id_t lwpid, void *arg)
{
	struct counter *c = arg;

	(void)pctx;
	(void)pid;
	(void)lwpid;
	if (counter_take(c) != 0)
		return -1;
	return cpc_unbind(c->cpc, c->set);
}

/* The writes of program self run as "consumer child", through libpctx. */
static int
count_child(cpc_t *cpc, const char *self, uint64_t *n)
{
	char *argv[] = { "consumer", "child", NULL };
	struct counter c;
	pctx_t *pctx;
	int rc;

	if (counter_init(cpc, &c) != 0)
		return -1;
	if ((pctx = pctx_create(self, argv, &c, 0, NULL)) == NULL)
		return -1;
	rc = pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, init_lwp,
	    PCTX_FINI_LWP_EVENT, fini_lwp, PCTX_NULL_EVENT);
	if (rc == 0)
		rc = pctx_run(pctx, 0, 0, NULL);
	pctx_release(pctx);
	*n = c.total;
	return rc;
}

/* This thread's own writes, counted through libcpc alone. */
static int
count_self(cpc_t *cpc, uint64_t *n)
{
	struct counter c;

	if (counter_init(cpc, &c) != 0 || cpc_bind_curlwp(cpc, c.set, 0) != 0 ||
	    write_many(NWRITES) != 0 || counter_take(&c) != 0 ||
	    cpc_unbind(cpc, c.set) != 0)
		return -1;
	*n = c.total;
	return 0;
}

int
main(int argc, char **argv)
{
	char why[256];
	uint64_t child = 0, self = 0;
	cpc_t *cpc;

	/*
	 * _exit: no exit-time work (stdio, a sanitizer's leak check) adds
	 * write(2) calls to the NWRITES counted.
	 */
	if (argc == 2 && strcmp(argv[1], "child") == 0)
		_exit(write_many(NWRITES) == 0 ? 0 : 1);

	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL) {
		fprintf(stderr, "consumer: cpc_open: %s\n", strerror(errno));
		return 1;
	}
	if (cpc_event_status(cpc, EVENT, why, sizeof(why)) !=
	    CPC_EVENT_COUNTABLE) {
		fprintf(
		    stderr, "consumer: cannot count %s here: %s\n", EVENT, why);
		return 77;
	}
	/* This program; under valgrind /proc/self/exe is valgrind's. */
	if (count_child(cpc,
		strchr(argv[0], '/') != NULL ? argv[0] : "/proc/self/exe",
		&child) != 0) {
		fprintf(stderr, "consumer: counting the child: %s\n",
		    strerror(errno));
		return 1;
	}
	if (count_self(cpc, &self) != 0) {
		fprintf(
		    stderr, "consumer: counting itself: %s\n", strerror(errno));
		return 1;
	}
	(void)cpc_close(cpc);
	printf("child %" PRIu64 " self %" PRIu64 " (want %d each)\n", child,
	    self, NWRITES);
	return child == NWRITES && self == NWRITES ? 0 : 1;
}
