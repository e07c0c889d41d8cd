/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libpctx threads: every LWP is opened before its first instruction and
 * closed after its death, with exact write(2) counts; LWP ids are 1 for
 * the first thread, then creation order; no ticks with msec 0.
 */
#include "test_pctx.h"

/* N threads of K writes each, the main thread M writes. */
static void
test_threads(void)
{
	char *argv[] = { (char *)wl("wl_threads"), "4", "100", "7", NULL };
	struct lwprec *r;
	struct procrec *p;
	pctx_t *pctx;
	pid_t pid;
	id_t id;

	pctx = create_wl(argv);
	pid = pctx_pid(pctx);
	CHECK_EQ_U64(pctx_lwp_tid(pctx, 1), pid);
	CHECK(pctx_lwp_tid(pctx, 2) == -1 && errno == ESRCH);
	/* Held before its first instruction: alive; an unknown LWP: gone. */
	CHECK_EQ_U64(pctx_lwp_exiting(pctx, 1), 0);
	CHECK_EQ_U64(pctx_lwp_exiting(pctx, 2), 1);
	CHECK_EQ_U64(pctx_run(pctx, 0, 0, t_tick), 0);
	p = proc_of(pid);
	CHECK_EQ_U64(p->exits, 1);
	CHECK_EQ_U64(p->exit_status, 0);
	CHECK_EQ_U64(p->exit_lwpid, 1);
	CHECK_EQ_U64(count_lwps(pid, 0), 5);
	check_all_paired();
	r = lwp_rec(pid, 0, 1);
	CHECK(r != NULL && r->tid == pid && r->count == 7 && r->creates == 0 &&
	    r->exits == 0);
	for (id = 2; id <= 5; id++) {
		r = lwp_rec(pid, 0, id);
		CHECK(r != NULL);
		if (r == NULL)
			continue;
		CHECK_EQ_U64(r->count, 100);
		CHECK_EQ_U64(r->creates, 1);
		CHECK_EQ_U64(r->exits, 1);
		CHECK(r->tid != pid && r->tid > 0);
	}
	/* Solaris order at exit: every fini_lwp, then exit. */
	CHECK(p->last_fini_order < p->exit_order);
	CHECK_EQ_U64(nticks, 0);
	pctx_release(pctx);
}

/* Many short threads, created and joined in waves. */
static void
test_churn(void)
{
	char *argv[] = { (char *)wl("wl_churn"), "50", "4", "3", NULL };
	struct lwprec *r;
	pctx_t *pctx;
	pid_t pid;
	int i, n = 0;

	pctx = create_wl(argv);
	pid = pctx_pid(pctx);
	CHECK_EQ_U64(pctx_run(pctx, 0, 0, t_tick), 0);
	CHECK_EQ_U64(proc_of(pid)->exits, 1);
	CHECK_EQ_U64(count_lwps(pid, 0), 201);
	check_all_paired();
	for (i = 0; i < nlwps; i++) {
		r = &lwps[i];
		if (r->pid != pid || r->lwpid == 1)
			continue;
		n++;
		if (r->count != 3 || r->creates != 1 || r->exits != 1 ||
		    r->lwpid > 201) {
			fprintf(stderr,
			    "churn lwp %d: count %llu creates %d "
			    "exits %d\n",
			    (int)r->lwpid, (unsigned long long)r->count,
			    r->creates, r->exits);
			check_failures++;
		}
	}
	CHECK_EQ_U64(n, 200);
	r = lwp_rec(pid, 0, 1);
	CHECK(r != NULL && r->count == 0);
	pctx_release(pctx);
}

/* Unknown event tags are refused, and nothing changes. */
static int errfn_calls;
static char errfn_text[256];

static void
errfn(const char *fn, const char *fmt, va_list ap)
{
	int n;

	errfn_calls++;
	n = snprintf(errfn_text, sizeof(errfn_text), "%s: ", fn);
	vsnprintf(errfn_text + n, sizeof(errfn_text) - (size_t)n, fmt, ap);
}

static void
test_set_events(void)
{
	char *argv[] = { (char *)wl("wl_threads"), "0", "0", "2", NULL };
	pctx_t *pctx;
	pid_t pid;

	pctx = pctx_create(argv[0], argv, NULL, 0, errfn);
	CHECK(pctx != NULL);
	if (pctx == NULL)
		return;
	pid = pctx_pid(pctx);
	CHECK_EQ_U64(pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, t_init,
			 (pctx_event_t)42, t_fini, PCTX_NULL_EVENT),
	    (uint64_t)-1);
	CHECK_EQ_U64(errfn_calls, 1);
	CHECK(strcmp(errfn_text, "set_events: unknown event type 2a\n") == 0);
	/* Only init and fini: the others keep their defaults. */
	CHECK_EQ_U64(pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, t_init,
			 PCTX_FINI_LWP_EVENT, t_fini, PCTX_NULL_EVENT),
	    0);
	CHECK_EQ_U64(pctx_run(pctx, 0, 0, NULL), 0);
	CHECK_EQ_U64(proc_of(pid)->exits, 0);
	CHECK(lwp_rec(pid, 0, 1) != NULL && lwp_rec(pid, 0, 1)->count == 2);
	pctx_release(pctx);
}

int
main(void)
{
	alarm_guard(100);
	open_cpc();
	test_threads();
	test_churn();
	test_set_events();
	cpc_close(cpc);
	return check_report("test_pctx_threads");
}
