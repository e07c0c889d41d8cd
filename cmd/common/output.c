/*
 * CSV and JSON rows. Numbers are printed as numbers in the C locale, and
 * the stream is flushed by the caller at the end of each interval.
 *
 * CSV: a first line "# cpctools csv <version> <tool>", then a header
 *   time,pid,lwp,tid,cpu,label,set,enabled_ns,running_ns,tsc,<events>,info
 * with one column per distinct event of all sets, in set order. A row
 * fills the columns of its own set's events and leaves the others empty.
 * JSON: one object per line; the first describes the run and its sets.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

int
output_parse_format(const char *arg, enum out_format *format)
{
	if (strcmp(arg, "table") == 0)
		*format = OUT_TABLE;
	else if (strcmp(arg, "csv") == 0)
		*format = OUT_CSV;
	else if (strcmp(arg, "json") == 0)
		*format = OUT_JSON;
	else
		return -1;
	return 0;
}

static int
column_of(const struct output *o, const char *event)
{
	int i;

	for (i = 0; i < o->ncolumns; i++)
		if (strcmp(o->columns[i], event) == 0)
			return i;
	return -1;
}

static int
collect_columns(struct output *o)
{
	int s, r;

	for (s = 0; s < o->grp->nspecs; s++) {
		const struct spec *spec = o->grp->specs[s];

		for (r = 0; r < spec->nreqs; r++) {
			char **grown;

			if (column_of(o, spec->reqs[r].event) >= 0)
				continue;
			grown = reallocarray(o->columns, (size_t)o->ncolumns + 1,
			    sizeof(char *));
			if (grown == NULL)
				return -1;
			o->columns = grown;
			o->columns[o->ncolumns++] = spec->reqs[r].event;
		}
	}
	return 0;
}

int
output_open(struct output *o, FILE *out, enum out_format format,
    const struct setgrp *grp, const char *tool)
{
	memset(o, 0, sizeof(*o));
	o->out = out;
	o->format = format;
	o->grp = grp;
	o->tool = tool;
	if (collect_columns(o) != 0) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void
output_close(struct output *o)
{
	free(o->columns);
	o->columns = NULL;
}

/* A CSV field or JSON string, quoted and escaped. */
static void
put_string(FILE *out, const char *s, bool json)
{
	fputc('"', out);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (!json && c == '"')
			fputs("\"\"", out);
		else if (json && (c == '"' || c == '\\'))
			fprintf(out, "\\%c", c);
		else if (json && c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void
csv_preamble(struct output *o)
{
	int i;

	fprintf(o->out, "# cpctools csv %d %s\n", OUTPUT_SCHEMA_VERSION,
	    o->tool);
	fputs("time,pid,lwp,tid,cpu,label,set,enabled_ns,running_ns,tsc",
	    o->out);
	for (i = 0; i < o->ncolumns; i++) {
		fputc(',', o->out);
		put_string(o->out, o->columns[i], false);
	}
	fputs(",info\n", o->out);
}

static void
json_preamble(struct output *o)
{
	int s, r;

	fprintf(o->out, "{\"schema\":\"cpctools\",\"version\":%d,"
	    "\"tool\":\"%s\",\"sets\":[", OUTPUT_SCHEMA_VERSION, o->tool);
	for (s = 0; s < o->grp->nspecs; s++) {
		const struct spec *spec = o->grp->specs[s];

		fprintf(o->out, "%s{\"set\":%d,\"spec\":", s ? "," : "", s);
		put_string(o->out, spec->text, true);
		fputs(",\"events\":[", o->out);
		for (r = 0; r < spec->nreqs; r++) {
			fputs(r ? "," : "", o->out);
			put_string(o->out, spec->reqs[r].event, true);
		}
		fputs("]}", o->out);
	}
	fputs("]}\n", o->out);
}

void
output_preamble(struct output *o)
{
	if (o->format == OUT_CSV)
		csv_preamble(o);
	else if (o->format == OUT_JSON)
		json_preamble(o);
}

static void
csv_int(FILE *out, long long v)
{
	if (v >= 0)
		fprintf(out, "%lld", v);
	fputc(',', out);
}

static void
csv_row(struct output *o, const struct out_row *row)
{
	const struct spec *spec = row->setno >= 0 ?
	    o->grp->specs[row->setno] : NULL;
	int i, r;

	fprintf(o->out, "%.6f,", row->time);
	csv_int(o->out, row->pid);
	csv_int(o->out, row->lwp);
	csv_int(o->out, row->tid);
	csv_int(o->out, row->cpu);
	fprintf(o->out, "%s,", row->label);
	csv_int(o->out, row->setno);
	if (spec != NULL)
		fprintf(o->out, "%llu,%llu,",
		    (unsigned long long)row->enabled_ns,
		    (unsigned long long)row->running_ns);
	else
		fputs(",,", o->out);
	if (row->has_tick)
		fprintf(o->out, "%llu", (unsigned long long)row->tick);
	for (i = 0; i < o->ncolumns; i++) {
		fputc(',', o->out);
		for (r = 0; spec != NULL && r < spec->nreqs; r++)
			if (strcmp(spec->reqs[r].event, o->columns[i]) == 0)
				fprintf(o->out, "%llu",
				    (unsigned long long)row->values[r]);
	}
	fputc(',', o->out);
	if (row->info != NULL)
		put_string(o->out, row->info, false);
	fputc('\n', o->out);
}

static void
json_int(FILE *out, const char *key, long long v)
{
	if (v >= 0)
		fprintf(out, ",\"%s\":%lld", key, v);
	else
		fprintf(out, ",\"%s\":null", key);
}

static void
json_row(struct output *o, const struct out_row *row)
{
	const struct spec *spec = row->setno >= 0 ?
	    o->grp->specs[row->setno] : NULL;
	int r;

	fprintf(o->out, "{\"time\":%.6f", row->time);
	json_int(o->out, "pid", row->pid);
	json_int(o->out, "lwp", row->lwp);
	json_int(o->out, "tid", row->tid);
	json_int(o->out, "cpu", row->cpu);
	fprintf(o->out, ",\"label\":\"%s\"", row->label);
	json_int(o->out, "set", row->setno);
	if (spec != NULL) {
		fputs(",\"spec\":", o->out);
		put_string(o->out, spec->text, true);
		fputs(",\"counters\":{", o->out);
		for (r = 0; r < spec->nreqs; r++) {
			fputs(r ? "," : "", o->out);
			put_string(o->out, spec->reqs[r].event, true);
			fprintf(o->out, ":%llu",
			    (unsigned long long)row->values[r]);
		}
		fprintf(o->out, "},\"enabled_ns\":%llu,\"running_ns\":%llu",
		    (unsigned long long)row->enabled_ns,
		    (unsigned long long)row->running_ns);
	}
	if (row->has_tick)
		fprintf(o->out, ",\"tsc\":%llu", (unsigned long long)row->tick);
	if (row->info != NULL) {
		fputs(",\"info\":", o->out);
		put_string(o->out, row->info, true);
	}
	fputs("}\n", o->out);
}

void
output_row(struct output *o, const struct out_row *row)
{
	if (o->format == OUT_CSV)
		csv_row(o, row);
	else if (o->format == OUT_JSON)
		json_row(o, row);
}

void
output_note_multiplex(struct output *o, const struct out_row *row)
{
	if (o->multiplex_noted || row->setno < 0 ||
	    row->running_ns >= row->enabled_ns)
		return;
	o->multiplex_noted = true;
	fprintf(stderr, "%s: note: set %d ran %.1f%% of its enabled time "
	    "(counters multiplexed); counts are not scaled\n", o->tool,
	    row->setno, row->enabled_ns ?
	    100.0 * (double)row->running_ns / (double)row->enabled_ns : 0.0);
}
