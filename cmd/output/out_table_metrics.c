/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * -M's metrics in the table (see out_table.h). After a row of counts, a
 * line per metric, as perf stat writes one beside its counts ("40.0 %
 * tma_retiring"), each TopDown level under its parent, indented:
 *
 *   #          40.0 %    tma_retiring
 *   #       !  25.0 %    tma_backend_bound
 *   #       !  18.1 %      tma_memory_bound  <==
 *
 * "!" marks a metric whose threshold is crossed (perf colours it red),
 * "<==" the bottleneck (toplev's mark): the deepest crossed metric down
 * the largest crossed branch. A metric under a parent whose threshold is
 * not crossed is left out, unless --metric-no-threshold; one with no
 * value is "-". With --metric-only the metrics are the columns instead,
 * their unit and name in the title, one line per row of their set.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "out_table.h"

#define VALUE_WIDTH 12

/* perf's "%8.1f" for shares; three decimals for the others. */
static void
value_text(const struct metric_shown *m, double v, char *buf, size_t len)
{
	if (isnan(v) || isinf(v))
		snprintf(buf, len, "%*s", VALUE_WIDTH, "-");
	else
		snprintf(buf, len, m->unit[0] == '%' ? "%*.1f" : "%*.3f",
		    VALUE_WIDTH, v);
}

/* The widest unit of the shown metrics, for the names' column. */
static int
unit_width(const struct out_run *run)
{
	int i, n, w = 1;

	for (i = 0; i < run->nplan; i++)
		if ((n = (int)strlen(out_run_plan_metric(run, i)->unit)) > w)
			w = n;
	return w;
}

void
out_table_metric_lines(
    const struct out_run *run, struct out_buf *b, const struct out_row *row)
{
	const struct metric_value *plan = out_row_plan(run, row), *v;
	const struct metric_shown *m;
	char text[64];
	int i, depth, uw = unit_width(run);

	for (i = 0; i < run->nplan; i++) {
		m = out_run_plan_metric(run, i);
		v = &plan[i];
		if (v->hidden)
			continue;
		depth = m->level > 1 ? m->level - 1 : 0;
		value_text(m, v->value, text, sizeof(text));
		out_buf_printf(b, "# %8s%s %s %-*s  %*s%s%s\n", "",
		    v->crossed == 1 ? "!" : " ", text, uw, m->unit, 2 * depth,
		    "", m->key, v->bottleneck ? "  <==" : "");
	}
}

/*
 * A metric's column title: its key, after "%" for a share
 * ("%tma_retiring"); another unit is in the key (cs_per_second).
 */
static void
column_title(const struct metric_shown *m, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", m->unit[0] == '%' ? "%" : "", m->key);
}

static int
column_width(const struct metric_shown *m)
{
	char title[256];
	int n;

	column_title(m, title, sizeof(title));
	n = (int)strlen(title);
	return n > VALUE_WIDTH ? n : VALUE_WIDTH;
}

void
out_table_metric_title(const struct out_run *run, struct out_buf *b)
{
	const struct metric_shown *m;
	char title[256];
	int i;

	for (i = 0; i < run->nplan; i++) {
		m = out_run_plan_metric(run, i);
		column_title(m, title, sizeof(title));
		out_buf_printf(b, "%*s ", column_width(m), title);
	}
}

void
out_table_metric_values(
    const struct out_run *run, struct out_buf *b, const struct out_row *row)
{
	const struct metric_value *plan = out_row_plan(run, row);
	const struct metric_shown *m;
	char text[64];
	int i;

	for (i = 0; i < run->nplan; i++) {
		m = out_run_plan_metric(run, i);
		if (plan == NULL)
			snprintf(text, sizeof(text), "-");
		else
			value_text(m, plan[i].value, text, sizeof(text));
		out_buf_printf(b, "%*s ", column_width(m), text);
	}
}
