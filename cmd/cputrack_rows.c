/*
 * cputrack's rows. The table layout is the original's: "%7.3f " time,
 * "%6d " pid with -f, "%3d %10s " lwp and label, "%9lld " tick with -t,
 * "%9lld " per counter, and " # spec" when there are several sets.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "cputrack.h"

hrtime_t
rows_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (hrtime_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double
seconds(const struct cputrack *ct, hrtime_t t)
{
	return (double)(t - ct->start) / 1e9;
}

void
rows_title(struct cputrack *ct)
{
	if (ct->out.format != OUT_TABLE) {
		output_preamble(&ct->out);
		return;
	}
	if (ct->no_title)
		return;
	fprintf(ct->log, "%7s ", "time");
	if (ct->follow_fork)
		fprintf(ct->log, "%6s ", "pid");
	fprintf(ct->log, "%3s %10s ", "lwp", "event");
	if (ct->tick_col)
		fprintf(ct->log, "%9s ", CPC_TICKREG_NAME);
	spec_header(ct->grp.specs[0], ct->log);
	fputc('\n', ct->log);
}

static void
table_prefix(struct cputrack *ct, double t, pid_t pid, id_t lwpid,
    const char *label)
{
	fprintf(ct->log, "%7.3f ", t);
	if (ct->follow_fork)
		fprintf(ct->log, "%6d ", (int)pid);
	fprintf(ct->log, "%3d %10s ", (int)lwpid, label);
}

void
rows_sample(struct cputrack *ct, struct proc *p, struct lwp *l,
    const char *label, int setno, cpc_buf_t *buf, uint64_t enabled,
    uint64_t running)
{
	const struct spec *spec = ct->grp.specs[setno];
	uint64_t values[spec->nreqs > 0 ? spec->nreqs : 1];
	struct out_row row = {
		.pid = p->pid, .lwp = (int)l->lwpid, .tid = l->tid, .cpu = -1,
		.label = label, .setno = setno, .values = values,
		.has_tick = ct->tick_col, .enabled_ns = enabled,
		.running_ns = running,
	};
	hrtime_t when = cpc_buf_hrtime(ct->cpc, buf);
	int i;

	for (i = 0; i < spec->nreqs; i++)
		(void)cpc_buf_get(ct->cpc, buf, i, &values[i]);
	row.time = seconds(ct, when != 0 ? when : rows_now());
	row.tick = cpc_buf_tick(ct->cpc, buf);
	if (ct->out.format != OUT_TABLE) {
		output_row(&ct->out, &row);
		return;
	}
	table_prefix(ct, row.time, p->pid, l->lwpid, label);
	if (ct->tick_col)
		fprintf(ct->log, "%9lld ", (long long)row.tick);
	for (i = 0; i < spec->nreqs; i++)
		fprintf(ct->log, "%9lld ", (long long)values[i]);
	if (ct->grp.nspecs > 1)
		fprintf(ct->log, " # %s", spec->text);
	fputc('\n', ct->log);
	output_note_multiplex(&ct->out, &row);
}

/* Rows without counts: the tick field blank, two blank value fields. */
static void
marker_row(struct cputrack *ct, double t, pid_t pid, id_t lwpid,
    const char *label, const char *note)
{
	table_prefix(ct, t, pid, lwpid, label);
	if (ct->tick_col)
		fprintf(ct->log, "%9s ", "");
	fprintf(ct->log, "%9s %9s # %s\n", "", "", note);
}

void
rows_fork(struct cputrack *ct, pid_t parent, id_t lwpid, pid_t child)
{
	char note[32];
	struct out_row row = {
		.time = seconds(ct, rows_now()), .pid = parent,
		.lwp = (int)lwpid, .tid = -1, .cpu = -1, .label = "fork",
		.setno = -1, .info = note,
	};

	snprintf(note, sizeof(note), "%d", (int)child);
	if (ct->out.format != OUT_TABLE)
		output_row(&ct->out, &row);
	else
		marker_row(ct, row.time, parent, lwpid, "fork", note);
}

void
rows_exec_marker(struct cputrack *ct, struct proc *p, const char *args)
{
	char note[128];
	struct out_row row = {
		.time = p->last_total_time != 0 ?
		    seconds(ct, p->last_total_time) : 0.0,
		.pid = p->pid, .lwp = 1, .tid = p->pid, .cpu = -1,
		.label = "exec", .setno = -1, .info = args,
	};

	if (ct->out.format != OUT_TABLE) {
		output_row(&ct->out, &row);
		return;
	}
	snprintf(note, sizeof(note), "'%s'", args);
	marker_row(ct, row.time, p->pid, 1, "exec", note);
}

void
rows_flush(struct cputrack *ct)
{
	if (fflush(ct->log) != 0 || ferror(ct->log)) {
		/*
		 * The reader of a pipe went away: SIGPIPE has ended the run,
		 * which is an end like SIGINT (exit 0), not a write error.
		 */
		if (ct->reader_gone || errno == EPIPE) {
			ct->reader_gone = true;
			cputrack_interrupted = 1;
			return;
		}
		if (!ct->write_failed)
			diag(NULL, "write error on '%s': %s\n", ct->log_name,
			    strerror(errno));
		ct->write_failed = true;
	}
}
