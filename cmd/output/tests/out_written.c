/* SPDX-License-Identifier: BSD-2-Clause */
/* The formats' unit tests' shared pieces (out_written.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "out_written.h"

char *
written(const struct out_format_ops *ops, struct out_run *run,
    const struct out_row *row)
{
	struct out_buf b = { 0 };
	void *state = ops->state_new != NULL ? ops->state_new(run) : NULL;
	struct out_row r;
	char *text;

	if (row == NULL) {
		ops->head(state, run, &b);
	} else {
		r = *row;
		if (r.metrics == NULL)
			r.metrics = out_run_row_metrics(run, &r);
		ops->row(state, run, &b, &r, 0);
	}
	if (ops->state_free != NULL)
		ops->state_free(state);
	out_buf_str(&b, "");
	text = strndup(b.data != NULL ? b.data : "", b.len);
	out_buf_free(&b);
	return text;
}

struct out_row
cpu_tick_row(const uint64_t *values, uint64_t enabled_ns, uint64_t running_ns,
    uint64_t elapsed_ns)
{
	return (struct out_row) { .label = "tick",
		.pid = -1,
		.lwp = -1,
		.tid = -1,
		.cpu = 0,
		.ncpus = -1,
		.setno = 0,
		.values = values,
		.enabled_ns = enabled_ns,
		.running_ns = running_ns,
		.elapsed_ns = elapsed_ns,
		.child = -1 };
}

void
check_has(const char *text, const char *want, bool has)
{
	check_count++;
	if (text == NULL || (strstr(text, want) != NULL) != has) {
		check_failures++;
		fprintf(stderr, "expected%s '%s' in: %s\n", has ? "" : " no",
		    want, text != NULL ? text : "(null)");
	}
}
