/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A format of rows: the writers of its stream, each into a buffer that
 * the writer thread puts out. Each format is a file of its own that
 * defines one of these, declared here from its line of formats.def.
 */
#ifndef OUT_FORMAT_H
#define OUT_FORMAT_H

#include <stdbool.h>

#include "out_buf.h"
#include "out_run.h"

struct out_format_ops {
	bool head_each_run; /* a head again for each run of -r */
	bool wants_comm;    /* rows carry their command's name */
	/*
	 * The format's own state, made when the output opens, or none
	 * (NULL). Only the writer thread touches it after the head.
	 */
	void *(*state_new)(const struct out_run *run);
	void (*state_free)(void *state);
	void (*head)(void *state, const struct out_run *run, struct out_buf *b);
	/* A row at t ns after the start. */
	void (*row)(void *state, const struct out_run *run, struct out_buf *b,
	    const struct out_row *row, hrtime_t t);
	/* -r's summary of a set over the runs; NULL: the format has none. */
	void (*summary)(const struct out_run *run, struct out_buf *b,
	    const struct out_summary *sum);
	/* After every row, where a head was written; NULL: none. */
	void (*tail)(struct out_buf *b);
};

#define FORMAT(word, NAME) \
	extern const struct out_format_ops out_##word##_format;
#include "formats.def"
#undef FORMAT

#endif /* OUT_FORMAT_H */
