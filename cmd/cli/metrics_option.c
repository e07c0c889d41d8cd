/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * -M (see metrics_option.h): the CPU's model, the machine's facts, the
 * plan, and its events as a set of the run. Events of a core PMU count
 * every mode this user may count, as perf stat counts them (user mode
 * alone where the kernel keeps its own to privilege, as perf falls back).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "metric_model.h"
#include "metrics_option.h"

int
metrics_option_add(struct metrics_option *mo, const char *arg)
{
	if (mo->nargs == METRICS_MAX_ARGS) {
		diag(NULL, "-M %s: more than %d -M options\n", arg,
		    METRICS_MAX_ARGS);
		return -1;
	}
	mo->args[mo->nargs++] = arg;
	return 0;
}

enum metric_event_kind
metrics_option_event_kind(
    void *arg, const char *event, const char *name, char *why, size_t len)
{
	cpc_t *cpc = arg;
	char line[512] = "";
	const char *at;

	(void)name;
	if (cpc_event_status(cpc, event, line, sizeof(line)) !=
	    CPC_EVENT_COUNTABLE) {
		/* libcpc's line starts with the event: the reason alone. */
		at = strstr(line, ": ");
		snprintf(why, len, "%s",
		    at != NULL	? at + 2 :
			line[0] ? line :
				  "not countable here");
		why[strcspn(why, "\n")] = '\0';
		return METRIC_EVENT_UNKNOWN;
	}
	return cpc_event_cpumask(cpc, event, 0) != NULL ? METRIC_EVENT_SOCKET :
							  METRIC_EVENT_CORE;
}

static bool
nmi_watchdog(void)
{
	FILE *f = fopen("/proc/sys/kernel/nmi_watchdog", "re");
	int on = 0;

	if (f == NULL)
		return false;
	if (fscanf(f, "%d", &on) != 1)
		on = 0;
	fclose(f);
	return on != 0;
}

/* The events a perf group can hold: the counters, less the watchdog's. */
static int
group_counters(cpc_t *cpc, bool nmi)
{
	int n = cpc != NULL ? (int)cpc_npic(cpc) : 0;

	if (n == 0)
		return 0;
	return n > 1 && nmi ? n - 1 : n;
}

/* The names of every -M, as one list (to free), or NULL (said). */
static char *
join_names(const struct metrics_option *mo)
{
	size_t len = 1, n = 0;
	char *buf;
	int i;

	for (i = 0; i < mo->nargs; i++)
		len += strlen(mo->args[i]) + 1;
	if ((buf = malloc(len)) == NULL) {
		diag(NULL, "-M: out of memory\n");
		return NULL;
	}
	buf[0] = '\0';
	for (i = 0; i < mo->nargs; i++)
		n += (size_t)snprintf(
		    buf + n, len - n, "%s%s", i > 0 ? "," : "", mo->args[i]);
	return buf;
}

/*
 * The metrics left out: one line that names the first and why, and how
 * many more (-D names each).
 */
static void
say_notes(const char *names, char *notes)
{
	char *line, *save = NULL, *first = NULL;
	int total = 0;

	for (line = notes; *line != '\0'; line++)
		total += *line == '\n';
	for (line = strtok_r(notes, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (first == NULL)
			first = line;
		else
			diag_debug("-M %s: left out: %s\n", names, line);
	}
	if (total == 1)
		diag(NULL, "-M %s: left out: %s\n", names, first);
	else if (total > 1)
		diag(NULL, "-M %s: %d metrics left out, first %s%s\n", names,
		    total, first,
		    diag_debugging() ? "" : " (-D names them all)");
}

static int
make_plan(struct metrics_option *mo, cpc_t *cpc, enum out_tool tool,
    const struct metric_env *env, struct out_config *out, const char *names)
{
	const struct metric_model *model = metric_model_of(env->cpuid);
	char err[1024] = "", *notes;
	bool nmi = nmi_watchdog();
	struct metric_ask ask = {
		.names = names,
		.no_group = mo->no_group,
		.no_threshold = mo->no_threshold,
		.per_thread = tool == OUT_CPUTRACK,
		.nmi_watchdog = nmi,
		.counters = group_counters(cpc, nmi),
		.core_pmu = cpc != NULL ? cpc_core_pmu(cpc, 0, NULL) : NULL,
		.event_kind = cpc != NULL ? metrics_option_event_kind : NULL,
		.arg = cpc,
	};
	size_t notes_len = 64 * 1024;

	if (mo->kind != NULL) {
		ask.event_kind = mo->kind;
		ask.arg = mo->kind_arg;
	}
	if (cpc != NULL && mo->kind == NULL)
		ask.modes = cpc_event_status(cpc, "cpu-clock:k", NULL, 0) ==
			CPC_EVENT_COUNTABLE ?
		    "uk" :
		    "u";
	if ((notes = malloc(notes_len)) == NULL) {
		diag(NULL, "-M %s: out of memory\n", names);
		return 2;
	}
	out->metric_plan = metric_plan_new(
	    model, env, &ask, err, sizeof(err), notes, notes_len);
	if (out->metric_plan == NULL)
		diag(NULL, "-M %s\n", err);
	else
		say_notes(names, notes);
	free(notes);
	return out->metric_plan != NULL ? 0 : 2;
}

/*
 * The metrics' set, just added, joins a -c set that needs no counters
 * beside it, or that it needs none beside: perf counts -M and -e
 * together, and sets that take turns would leave the metrics without
 * counts for every other interval (a run of one interval, none at all).
 * Sets that both wait for counters stay apart, each a group of its own
 * in turns, as with two -c.
 */
static int
join_c_set(setgrp_t *specs, struct out_config *out)
{
	int last = setgrp_nsets(specs) - 1, status = 0;

	if (last == 1 &&
	    (setgrp_limited_groups(specs, 0) == 0 ||
		setgrp_limited_groups(specs, last) == 0) &&
	    (status = setgrp_join_last(specs, 0)) == 0)
		last = 0;
	out->metric_set_given = true;
	out->metric_set = last;
	return status;
}

int
metrics_option_plan(struct metrics_option *mo, cpc_t *cpc, enum out_tool tool,
    const struct metric_env *given, setgrp_t *specs, struct out_config *out)
{
	struct metric_env env;
	const char *spec;
	char *names;
	int status;

	if (mo->nargs == 0) {
		if (mo->only || mo->no_group || mo->no_threshold) {
			diag(NULL,
			    "--metric-%s needs -M: the metrics it is "
			    "about\n",
			    mo->only	     ? "only" :
				mo->no_group ? "no-group" :
					       "no-threshold");
			return 2;
		}
		return 0;
	}
	if ((names = join_names(mo)) == NULL)
		return 2;
	if (given != NULL) {
		env = *given;
	} else if (metric_env_host(&env, "/sys",
		       cpc != NULL ? cpc_core_pmu(cpc, 0, NULL) : NULL,
		       tool == OUT_CPUSTAT, mo->cpus) != 0 ||
	    metric_cpuid("/sys", env.cpuid, sizeof(env.cpuid)) != 0) {
		env.cpuid[0] = '\0';
	}
	status = make_plan(mo, cpc, tool, &env, out, names);
	free(names);
	if (status != 0)
		return status;
	out->metric_only = mo->only;
	out->metric_show_all = mo->no_threshold;
	/* The metrics' counters are named once, above their columns. */
	out->name_pics = true;
	spec = metric_plan_spec(out->metric_plan);
	if (specs == NULL)
		return 0;
	if (spec[0] == '\0') {
		/*
		 * Metrics that read no counter (duration_time, a constant of
		 * the machine) are the rows' of the first set: -c's, or the
		 * default events'.
		 */
		out->metric_set_given = true;
		out->metric_set = 0;
		return 0;
	}
	status = setgrp_add(specs, spec);
	if (status == 0)
		status = join_c_set(specs, out);
	return status > 0 ? status : status < 0 ? 2 : 0;
}

void
metrics_option_free(struct out_config *out)
{
	metric_plan_free(out->metric_plan);
	out->metric_plan = NULL;
}
