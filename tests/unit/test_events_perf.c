/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Every tracepoint perf list prints, against perf stat itself.
 *
 * Method: the names come from `perf list tracepoint`. This process adds
 * every one of them to sets (8 a set) and binds each set to itself and
 * samples it, through the library; the library keeps one event open on
 * each tracepoint it has counted, so that perf stat, run next on batches
 * of 200 names (a batch perf refuses whole is halved until the names it
 * refuses are found), finds them registered and opens and closes them
 * cheaply. The two must
 * agree on each name: both count it, or both refuse it. Values are
 * compared where they are exact here: syscalls:sys_enter_write and
 * sys_exit_write count exactly the writes a workload makes, in perf stat
 * and here. (cli/events_perf.bats compares the other names perf list
 * prints, and each syntax form, value by value, through cputrack.)
 *
 * Its cost is the kernel's: when the last event on a tracepoint closes,
 * the kernel waits for a grace period (~20 ms here), once per tracepoint,
 * at cpc_close, holding a lock that every tracepoint's open and close
 * takes (closing from several threads gains nothing): about 50 s for 2300
 * tracepoints, most of the test's time.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "test_cpc.h"

#define BATCH	200
#define PER_SET 8
#define WRITES	777

struct tp {
	char *name;
	bool ours; /* the library counted it */
	int perf;  /* 1 counted, 0 refused, -1 not asked yet */
	uint64_t perf_value;
};

static struct tp *tps;
static int ntps;

static void
perf_list(void)
{
	FILE *p = popen("perf list tracepoint 2>/dev/null", "r");
	char line[1024], name[600];

	if (p == NULL)
		return;
	while (fgets(line, sizeof(line), p) != NULL) {
		if (strstr(line, "[Tracepoint event]") == NULL ||
		    sscanf(line, " %599s", name) != 1)
			continue;
		tps = realloc(tps, (size_t)(ntps + 1) * sizeof(*tps));
		tps[ntps].name = strdup(name);
		tps[ntps].ours = false;
		tps[ntps].perf = -1;
		ntps++;
	}
	pclose(p);
}

/* Bind the tracepoints [i, i + n) as one set, count, unbind. */
static void
library_counts(cpc_t *cpc, int i, int n)
{
	cpc_set_t *set = cpc_set_create(cpc);
	int idx[PER_SET], k, added = 0;
	cpc_buf_t *buf;

	for (k = 0; k < n; k++) {
		idx[k] = cpc_set_add_request(
		    cpc, set, tps[i + k].name, 0, CPC_COUNT_USER, 0, NULL);
		added += idx[k] >= 0;
	}
	if (added < n) {
		/* Some refused: bind the others one by one. */
		cpc_set_destroy(cpc, set);
		for (k = 0; k < n; k++)
			if (idx[k] >= 0 && n > 1)
				library_counts(cpc, i + k, 1);
		return;
	}
	buf = cpc_buf_create(cpc, set);
	if (cpc_bind_curlwp(cpc, set, 0) == 0) {
		if (cpc_set_sample(cpc, set, buf) == 0)
			for (k = 0; k < n; k++)
				tps[i + k].ours = true;
		cpc_unbind(cpc, set);
	} else if (n > 1) {
		cpc_buf_destroy(cpc, buf);
		cpc_set_destroy(cpc, set);
		for (k = 0; k < n; k++)
			library_counts(cpc, i + k, 1);
		return;
	}
	cpc_buf_destroy(cpc, buf);
	cpc_set_destroy(cpc, set);
}

/*
 * perf stat -x, on [i, i + n) over the workload; each event's line says
 * whether perf counted it. 0, or -1 if perf refused the whole run.
 */
static int
perf_counts(int i, int n, const char *workload)
{
	char *cmd, out[] = "/tmp/test_events_perf.XXXXXX", line[1024];
	size_t len = 256 + strlen(workload);
	int k, fd, rc, seen = 0;
	FILE *f;

	for (k = 0; k < n; k++)
		len += strlen(tps[i + k].name) + 1;
	cmd = malloc(len);
	fd = mkstemp(out);
	close(fd);
	snprintf(cmd, len, "perf stat -x, -o %s -e ", out);
	for (k = 0; k < n; k++) {
		strlcat(cmd, tps[i + k].name, len);
		strlcat(cmd, k + 1 < n ? "," : " -- ", len);
	}
	strlcat(cmd, workload, len);
	strlcat(cmd, " >/dev/null 2>&1", len);
	rc = system(cmd);
	free(cmd);
	if ((f = fopen(out, "r")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL) {
			/* value,unit,event,... with the unit often empty */
			char *rest = line, *v = strsep(&rest, ",");
			char *ev = (strsep(&rest, ","), strsep(&rest, ","));

			if (line[0] == '#' || ev == NULL)
				continue;
			for (k = 0; k < n; k++) {
				if (strcmp(tps[i + k].name, ev) != 0)
					continue;
				tps[i + k].perf = v[0] != '<';
				tps[i + k].perf_value = strtoull(v, NULL, 10);
				seen++;
				break;
			}
		}
		fclose(f);
	}
	unlink(out);
	return WIFEXITED(rc) && WEXITSTATUS(rc) == 0 && seen == n ? 0 : -1;
}

/*
 * perf stat on [i, i + n). perf refuses a whole run for one name it
 * cannot count: then each half is asked again, down to single names, so
 * that a refused name costs a few runs, not one per name of its batch.
 */
static void
perf_ask(int i, int n, const char *workload)
{
	if (perf_counts(i, n, workload) == 0)
		return;
	if (n == 1) {
		if (tps[i].perf < 0)
			tps[i].perf = 0;
		return;
	}
	perf_ask(i, n / 2, workload);
	perf_ask(i + n / 2, n - n / 2, workload);
}

static void
perf_compare(const char *workload)
{
	int i;

	for (i = 0; i < ntps; i += BATCH)
		perf_ask(i, ntps - i < BATCH ? ntps - i : BATCH, workload);
}

static struct tp *
find(const char *name)
{
	int i;

	for (i = 0; i < ntps; i++)
		if (strcmp(tps[i].name, name) == 0)
			return &tps[i];
	return NULL;
}

/* The exact ones: writes, counted here and by perf stat. */
static void
exact_values(cpc_t *cpc, const char *steady)
{
	static const char *const exact[] = {
		"syscalls:sys_enter_write",
		"syscalls:sys_exit_write",
	};
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_buf_t *buf = NULL;
	uint64_t v;
	char workload[600];
	size_t e;
	int i, fd = open("/dev/null", O_WRONLY);

	for (e = 0; e < 2; e++)
		CHECK(cpc_set_add_request(cpc, set, exact[e], 0, CPC_COUNT_USER,
			  0, NULL) == (int)e);
	buf = cpc_buf_create(cpc, set);
	CHECK(cpc_bind_curlwp(cpc, set, 0) == 0);
	for (i = 0; i < WRITES; i++)
		CHECK(write(fd, "x", 1) == 1);
	CHECK(cpc_set_sample(cpc, set, buf) == 0);
	CHECK(cpc_unbind(cpc, set) == 0);
	close(fd);
	/* One thread, WRITES writes, then done: exactly WRITES writes. */
	snprintf(workload, sizeof(workload), "%s 1 %d 0 1", steady, WRITES);
	for (e = 0; e < 2; e++) {
		struct tp *t = find(exact[e]);

		CHECK(t != NULL);
		if (t == NULL)
			continue;
		CHECK(perf_counts((int)(t - tps), 1, workload) == 0);
		cpc_buf_get(cpc, buf, (int)e, &v);
		CHECK_EQ_U64(v, WRITES);
		CHECK_EQ_U64(t->perf_value, WRITES);
		printf("%s: %" PRIu64 " here, %" PRIu64 " by perf stat, of "
		       "%d writes\n",
		    exact[e], v, t->perf_value, WRITES);
	}
	cpc_buf_destroy(cpc, buf);
	cpc_set_destroy(cpc, set);
}

int
main(void)
{
	const char *workloads = getenv("WORKLOADS");
	char steady[512];
	struct rlimit rl;
	cpc_t *cpc;
	int i, both = 0, neither = 0, differ = 0;

	if (system("perf version >/dev/null 2>&1") != 0)
		SKIP("perf is not installed: nothing to compare with");
	if (!tracefs_ready())
		SKIP("tracefs is not mounted and cannot be: no tracepoints");
	if (workloads == NULL)
		SKIP("WORKLOADS is not set (run through ctest)");
	snprintf(steady, sizeof(steady), "%s/ct_steady", workloads);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	perf_list();
	if (ntps == 0)
		SKIP("perf list prints no tracepoints here");
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		SKIP("cpc_open failed: %s", strerror(errno));
	for (i = 0; i < ntps; i += PER_SET)
		library_counts(cpc, i, ntps - i < PER_SET ? ntps - i : PER_SET);
	perf_compare("true");
	for (i = 0; i < ntps; i++) {
		if (tps[i].ours && tps[i].perf == 1) {
			both++;
		} else if (!tps[i].ours && tps[i].perf == 0) {
			neither++;
			printf("both refuse %s\n", tps[i].name);
		} else {
			differ++;
			fprintf(stderr, "%s: %s here, %s by perf stat\n",
			    tps[i].name, tps[i].ours ? "counted" : "refused",
			    tps[i].perf == 1 ? "counted" : "refused");
		}
	}
	CHECK(differ == 0);
	exact_values(cpc, steady);
	printf("%d tracepoints of perf list: %d counted by both, %d refused "
	       "by both, %d differ\n",
	    ntps, both, neither, differ);
	cpc_close(cpc);
	return check_report("test_events_perf");
}
