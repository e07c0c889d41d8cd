/*
 * Machine-readable output shared by cputrack and cpustat: one schema,
 * version OUTPUT_SCHEMA_VERSION, documented in the man pages.
 */
#ifndef OUTPUT_H
#define OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "spec.h"

#define OUTPUT_SCHEMA_VERSION	1

enum out_format { OUT_TABLE, OUT_CSV, OUT_JSON };

/* One row; fields that do not apply are -1 or NULL. */
struct out_row {
	double		 time;
	pid_t		 pid;
	int		 lwp;
	pid_t		 tid;
	int		 cpu;
	const char	*label;
	int		 setno;		/* -1: a row without counts */
	const uint64_t	*values;	/* one per request of the set */
	bool		 has_tick;
	uint64_t	 tick;
	uint64_t	 enabled_ns;
	uint64_t	 running_ns;
	const char	*info;		/* fork child, exec arguments */
};

struct output {
	FILE			*out;
	enum out_format		 format;
	const struct setgrp	*grp;
	const char		*tool;
	char			**columns;	/* CSV counter columns */
	int			  ncolumns;
	bool			  multiplex_noted;
};

int output_parse_format(const char *arg, enum out_format *format);
int output_open(struct output *o, FILE *out, enum out_format format,
    const struct setgrp *grp, const char *tool);
void output_close(struct output *o);
void output_preamble(struct output *o);
void output_row(struct output *o, const struct out_row *row);
/* Say once, on stderr, that a table row's counts ran part of the time. */
void output_note_multiplex(struct output *o, const struct out_row *row);

#endif /* OUTPUT_H */
