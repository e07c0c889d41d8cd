/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The table, as the originals print it: "%7.3f" seconds since the run
 * started, then cputrack's "%6d" pid (with -f), "%3d %10s" lwp and label,
 * or cpustat's "%3d %5s" cpu and label (with --per-*, "%-9s %4d %5s" the
 * unit as perf names it, S0-D0-C1, its CPUs and the label; the total's
 * unit is "all"); "%9lld" tsc with -t; "%9lld" per
 * counter; each field followed by a space; and " # spec" when there are
 * several sets (cpustat's total rows have "# spec" right after the last
 * value's space, as the original's do). A gap row says how many intervals
 * it holds, and cpustat's in how long: "# 3 intervals in 0.312 s". Rows
 * without counts (fork, exec) have a blank tsc field, two blank value
 * fields and "# note".
 *
 * Values that were not counted are "-", in their columns, so that a
 * script that splits rows on white space still finds every field, and
 * the comment says why: "# not counted: <reason>" (after the spec and
 * "; " when there are several sets). A partial total keeps its values and
 * says "# partial: <reason>" the same way.
 *
 * After cputrack -r's runs, four rows per set, labelled mean, +-%, min
 * and max, give per column the tree's total over the runs; their time and
 * lwp are blank. With one set, a "# pic0=..." line names their columns
 * first, wherever the table goes.
 *
 * A record read back (--input) has a line before the title that says
 * which version of the tool made it, on which host, and when.
 *
 * With --metrics, the derived metrics a row has end the comment, after
 * "; " when something is before them: "# 1.234 insn per cycle, 0.998
 * CPUs utilized", as perf stat writes them beside its counts.
 */
#include <langinfo.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "out_format.h"
#include "out_table.h"
#include "topology.h"

/* "pic0", "pic1", ... as the original's "%8s%-2d " cut to 10 characters. */
static void
title_columns(struct out_buf *b, const struct spec *spec)
{
	char h[11];
	int i;

	for (i = 0; i < spec->nreqs; i++) {
		snprintf(h, sizeof(h), "%8s%-2d ", "pic", spec->reqs[i].picnum);
		out_buf_str(b, h);
	}
}

/*
 * "# pic0=task-clock pic1=page-faults": what each column counts, when the
 * rows do not say it (one set).
 */
static void
pic_names(const struct out_run *run, struct out_buf *b)
{
	const struct spec *spec = run->specs[0];
	const char *sep = "# ";
	int i;

	for (i = 0; i < spec->nreqs; i++) {
		out_buf_printf(b, "%spic%d=", sep, spec->reqs[i].picnum);
		out_buf_safe(b, spec->reqs[i].name);
		sep = " ";
	}
	if (run->cfg.default_note != NULL)
		out_buf_printf(
		    b, " (the default events; %s)", run->cfg.default_note);
	else if (run->cfg.default_events)
		out_buf_str(b, " (the default events)");
	out_buf_str(b, "\n");
}

/* The unit column's width: S0-D0-C12, or a cache's S0-D0-L3-ID12. */
static int
unit_width(const struct out_run *run)
{
	return run->cfg.per_unit == TOPO_CACHE ? 13 : 9;
}

/*
 * --input: "# cputrack 1.0 on HOST, started 2026-...Z", the record's;
 * none for a record that does not say (one made by hand).
 */
static void
origin_line(const struct out_run *run, struct out_buf *b)
{
	if (run->tool_version[0] == '\0' && run->host[0] == '\0' &&
	    run->start_text[0] == '\0')
		return;
	out_buf_printf(b, "# %s ", run->tool);
	out_buf_safe(b, run->tool_version);
	out_buf_str(b, " on ");
	out_buf_safe(b, run->host);
	out_buf_str(b, ", started ");
	out_buf_safe(b, run->start_text);
	out_buf_str(b, "\n");
}

static void
table_title(void *state, const struct out_run *run, struct out_buf *b)
{
	(void)state;
	if (!run->cfg.title)
		return;
	if (run->cfg.origin != NULL)
		origin_line(run, b);
	if (run->cfg.name_pics && run->nsets == 1)
		pic_names(run, b);
	out_buf_printf(b, "%7s ", "time");
	if (run->cfg.tool == OUT_CPUTRACK) {
		if (run->cfg.pid)
			out_buf_printf(b, "%6s ", "pid");
		out_buf_printf(b, "%3s %10s ", "lwp", "event");
	} else if (run->cfg.per_unit != 0) {
		out_buf_printf(b, "%-*s %4s %5s ", unit_width(run), "unit",
		    "cpus", "event");
	} else {
		out_buf_printf(b, "%3s %5s ", "cpu", "event");
	}
	if (run->cfg.tsc)
		out_buf_printf(b, "%9s ", CPC_TICKREG_NAME);
	if (run->cfg.metric_only)
		out_table_metric_title(run, b);
	else
		title_columns(b, run->specs[0]);
	out_buf_str(b, "\n");
}

static void
prefix(const struct out_run *run, struct out_buf *b, const struct out_row *row,
    hrtime_t t)
{
	out_buf_printf(b, "%7.3f ", (double)t / 1e9);
	if (run->cfg.tool == OUT_CPUSTAT && run->cfg.per_unit != 0) {
		/* A unit's row, or the total over all of them. */
		out_buf_printf(b, "%-*s %4d %5s ", unit_width(run),
		    row->unit != NULL ? row->unit : "all", row->ncpus,
		    row->label);
		return;
	}
	/*
	 * A total's cpu column counts its CPUs (Solaris's); with the CPUs
	 * chosen (-C) it says "all" of them, as "1 total" would read as CPU 1.
	 */
	if (run->cfg.tool == OUT_CPUSTAT && row->cpu < 0 &&
	    run->cfg.cpus_chosen) {
		out_buf_printf(b, "%3s %5s ", "all", row->label);
		return;
	}
	if (run->cfg.tool == OUT_CPUSTAT) {
		out_buf_printf(b, "%3d %5s ",
		    row->cpu >= 0 ? row->cpu : row->ncpus, row->label);
		return;
	}
	if (run->cfg.pid)
		out_buf_printf(b, "%6d ", (int)row->pid);
	out_buf_printf(b, "%3d %10s ", row->lwp, row->label);
}

/*
 * A gap row: the intervals it holds, and for cpustat's, in how long (the
 * enabled time of a CPU's counters is wall time; an LWP's is its own).
 */
static void
gap_comment(struct out_buf *b, const struct out_row *row, const char *sep)
{
	out_buf_printf(b, "%s%lu intervals", sep, row->intervals);
	if (row->not_counted == NULL && row->cpu >= 0)
		out_buf_printf(b, " in %.3f s", (double)row->enabled_ns / 1e9);
}

/* Whether the row has a derived metric to show (--metrics). */
static bool
has_metrics(const struct out_run *run, const struct out_row *row)
{
	const struct out_metric *m;
	double v;
	int i, n = out_run_set_metrics(run, row->setno, &m);

	for (i = 0; i < n; i++)
		if (m[i].by_key && out_row_metric(row, i, &v))
			return true;
	return false;
}

/* "1.234 insn per cycle, 2.34% of all branches, 3.456 K/sec page-faults" */
static void
metrics_comment(const struct out_run *run, struct out_buf *b,
    const struct out_row *row, const char *sep)
{
	const struct out_metric *m;
	double v;
	int i, n = out_run_set_metrics(run, row->setno, &m);

	for (i = 0; i < n; i++) {
		if (!m[i].by_key || !out_row_metric(row, i, &v))
			continue;
		out_buf_str(b, sep);
		if (strcmp(m[i].unit, "%") == 0)
			out_buf_printf(b, "%.2f%% %s", v, m[i].use->label);
		else if (m[i].unit[0] != '\0')
			out_buf_printf(
			    b, "%.3f %s %s", v, m[i].unit, m[i].use->label);
		else
			out_buf_printf(b, "%.3f %s", v, m[i].use->label);
		sep = ", ";
	}
	if (out_run_multiplexed(row))
		out_buf_str(b, " (multiplexed)");
}

/* Whether the row has a counter sysfs gives a scale, counted. */
static bool
has_scaled(const struct out_run *run, const struct out_row *row)
{
	double v;
	int i;

	for (i = 0; row->setno >= 0 && i < run->specs[row->setno]->nreqs; i++)
		if (out_run_scaled(run, row, i, &v))
			return true;
	return false;
}

/* "1.000 MiB uncore_imc/cas_count_read/ (2.000 MiB/s)" */
static void
scaled_comment(const struct out_run *run, struct out_buf *b,
    const struct out_row *row, const char *sep)
{
	const struct spec *spec = run->specs[row->setno];
	const struct out_event *e;
	char rate_unit[48];
	double v, rate;
	int i;

	for (i = 0; i < spec->nreqs; i++) {
		if (!out_run_scaled(run, row, i, &v))
			continue;
		e = out_run_req_event(run, row->setno, i);
		out_buf_printf(b, "%s%.3f%s%s %s", sep, v,
		    e->scale.unit[0] != '\0' ? " " : "", e->scale.unit,
		    spec->reqs[i].name);
		if (out_run_scaled_rate(run, row, i, &rate)) {
			evscale_rate_unit(
			    &e->scale, rate_unit, sizeof(rate_unit));
			out_buf_printf(b, " (%.3f %s)", rate, rate_unit);
		}
		sep = ", ";
	}
}

/*
 * The comment at the end of a row of counts: its set, what a gap row
 * holds, what is amiss, and with --metrics the derived metrics.
 */
static void
trailer(const struct out_run *run, struct out_buf *b, const struct out_row *row,
    const struct spec *spec)
{
	bool several = run->nsets > 1, gap = row->intervals > 1;
	bool metrics = has_metrics(run, row), scales = has_scaled(run, row);
	bool named =
	    run->cfg.cgroup_names && row->pid == 0 && row->comm != NULL;
	const char *why = row->not_counted != NULL ? "not counted" :
	    row->partial != NULL		   ? "partial" :
						     NULL;

	if (!named && !several && !gap && why == NULL && !metrics && !scales)
		return;
	/* A total's comment follows its last value's space, as it did. */
	out_buf_str(b, row->ncpus >= 0 && row->unit == NULL ? "# " : " # ");
	if (named) {
		out_buf_safe(b, row->comm);
		out_buf_str(b, several ? "; " : "");
	}
	if (several)
		out_buf_safe(b, spec->text);
	if (gap)
		gap_comment(b, row, several || named ? "; " : "");
	if (why != NULL) {
		out_buf_printf(
		    b, "%s%s: ", several || gap || named ? "; " : "", why);
		out_buf_safe(b,
		    row->not_counted != NULL ? row->not_counted : row->partial);
	}
	if (scales)
		scaled_comment(run, b, row,
		    several || gap || named || why != NULL ? "; " : "");
	if (metrics)
		metrics_comment(run, b, row,
		    several || gap || named || why != NULL || scales ? "; " :
								       "");
}

static void
counts(const struct out_run *run, struct out_buf *b, const struct out_row *row,
    hrtime_t t)
{
	const struct spec *spec = run->specs[row->setno];
	bool none = row->not_counted != NULL;
	int i;

	prefix(run, b, row, t);
	if (run->cfg.tsc && none)
		out_buf_printf(b, "%9s ", "-");
	else if (run->cfg.tsc)
		out_buf_printf(b, "%9lld ", (long long)row->tick);
	for (i = 0; i < spec->nreqs; i++) {
		if (none) {
			out_buf_printf(b, "%9s ", "-");
			continue;
		}
		out_buf_printf(b, "%9lld ", (long long)row->values[i]);
	}
	trailer(run, b, row, spec);
	out_buf_str(b, "\n");
	if (out_row_plan(run, row) != NULL && row->not_counted == NULL)
		out_table_metric_lines(run, b, row);
}

/* --metric-only: a row of -M's set, its metrics as columns. */
static void
metrics_only(const struct out_run *run, struct out_buf *b,
    const struct out_row *row, hrtime_t t)
{
	prefix(run, b, row, t);
	if (run->cfg.tsc)
		out_buf_printf(b, "%9lld ", (long long)row->tick);
	out_table_metric_values(run, b, row);
	if (row->not_counted != NULL) {
		out_buf_str(b, "# not counted: ");
		out_buf_safe(b, row->not_counted);
	}
	out_buf_str(b, "\n");
}

static void
marker(const struct out_run *run, struct out_buf *b, const struct out_row *row,
    hrtime_t t)
{
	prefix(run, b, row, t);
	if (run->cfg.tsc)
		out_buf_printf(b, "%9s ", "");
	if (row->args != NULL) {
		out_buf_printf(b, "%9s %9s # '", "", "");
		out_buf_safe(b, row->args);
		out_buf_str(b, "'\n");
	} else
		out_buf_printf(b, "%9s %9s # %d\n", "", "", (int)row->child);
}

static void
table_row(void *state, const struct out_run *run, struct out_buf *b,
    const struct out_row *row, hrtime_t t)
{
	(void)state;
	if (run->cfg.metric_only) {
		if (row->setno >= 0 && row->setno == run->metric_set)
			metrics_only(run, b, row, t);
	} else if (row->setno >= 0) {
		counts(run, b, row, t);
	} else {
		marker(run, b, row, t);
	}
}

void
out_table_timestamp(const struct out_run *run, struct out_buf *b)
{
	char text[128];
	time_t now = time(NULL);
	struct tm tm;

	if (run->cfg.timestamp == 'u') {
		out_buf_printf(b, "%lld\n", (long long)now);
		return;
	}
	localtime_r(&now, &tm);
	if (strftime(text, sizeof(text), nl_langinfo(_DATE_FMT), &tm) > 0)
		out_buf_printf(b, "%s\n", text);
}

/* The start of a summary row: blank time, pid and lwp, then the label. */
static void
summary_prefix(const struct out_run *run, struct out_buf *b, const char *label)
{
	out_buf_printf(b, "%7s ", "");
	if (run->cfg.pid)
		out_buf_printf(b, "%6s ", "");
	out_buf_printf(b, "%3s %10s ", "", label);
	if (run->cfg.tsc)
		out_buf_printf(b, "%9s ", "");
}

static void
table_summary(
    const struct out_run *run, struct out_buf *b, const struct out_summary *sum)
{
	const struct spec *spec = run->specs[sum->setno];
	const struct out_runs_stat *st = sum->stats;
	int i;

	/*
	 * The summary may stand alone (-n), and no Solaris script reads
	 * it: its columns are named always. Several sets name theirs in
	 * each mean row.
	 */
	if (run->nsets == 1)
		pic_names(run, b);
	summary_prefix(run, b, "mean");
	for (i = 0; i < spec->nreqs; i++)
		out_buf_printf(b, "%9.0f ", st[i].mean);
	out_buf_printf(b, " # %u run%s: the tree's total per run", sum->runs,
	    sum->runs == 1 ? "" : "s");
	if (run->nsets > 1)
		out_buf_printf(b, "; %s", spec->text);
	out_buf_str(b, "\n");
	summary_prefix(run, b, "+-%");
	for (i = 0; i < spec->nreqs; i++)
		if (st[i].rse_pct < 0)
			out_buf_printf(b, "%9s ", "-");
		else
			out_buf_printf(b, "%8.2f%% ", st[i].rse_pct);
	out_buf_str(b, "\n");
	summary_prefix(run, b, "min");
	for (i = 0; i < spec->nreqs; i++)
		out_buf_printf(b, "%9llu ", (unsigned long long)st[i].min);
	out_buf_str(b, "\n");
	summary_prefix(run, b, "max");
	for (i = 0; i < spec->nreqs; i++)
		out_buf_printf(b, "%9llu ", (unsigned long long)st[i].max);
	out_buf_str(b, "\n");
}

/* The title again for each run of -r, as the original printed it. */
const struct out_format_ops out_table_format = {
	.head_each_run = true,
	.head = table_title,
	.row = table_row,
	.summary = table_summary,
};
