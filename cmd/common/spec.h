/*
 * Event specifications (-c) and the set groups the commands rotate.
 */
#ifndef SPEC_H
#define SPEC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "libcpc.h"

/* One counter of a parsed spec, in ascending counter order. */
struct spec_req {
	char		*event;
	uint_t		 flags;
	uint_t		 nattrs;
	cpc_attr_t	*attrs;		/* always ends with picnum */
	int		 picnum;
};

struct spec {
	char		*text;		/* the -c argument, unchanged */
	struct spec_req	*reqs;
	int		 nreqs;
	bool		 system_only;	/* no request counts user mode */
};

enum spec_error {
	SPEC_OK = 0,
	SPEC_SYNTAX,		/* a usage error: message printed */
	SPEC_UNCOUNTABLE,	/* known events this machine cannot count */
	SPEC_NOMEM
};

struct spec *spec_parse(cpc_t *cpc, const char *text, enum spec_error *err);
void spec_free(struct spec *spec);
cpc_set_t *spec_build_set(cpc_t *cpc, const struct spec *spec);
void spec_header(const struct spec *spec, FILE *out);

/* All -c specs of a run, parsed once. */
struct setgrp {
	struct spec	**specs;
	int		  nspecs;
};

int setgrp_add(struct setgrp *grp, cpc_t *cpc, const char *text,
    enum spec_error *err);
/*
 * For the commands: 0; -1 for a syntax error (reported: a usage error);
 * or the status to exit with at once: 2 for events this machine cannot
 * count (each reported), 1 for no memory.
 */
int setgrp_add_checked(struct setgrp *grp, cpc_t *cpc, const char *text);
void setgrp_free(struct setgrp *grp);

/*
 * One LWP's or one CPU's copy of the group: sets rotate per tick, and
 * each keeps the counts accumulated while it was bound.
 */
/* Enabled and running nanoseconds of a set, as its counts are kept. */
struct set_times {
	uint64_t	 last_enabled, last_running;	/* at the last sample */
	uint64_t	 delta_enabled, delta_running;	/* of the last delta */
	uint64_t	 total_enabled, total_running;	/* of the total */
};

struct rotation {
	const struct setgrp *grp;
	struct set_times *times;	/* per set */
	cpc_set_t	**sets;
	cpc_buf_t	**total;	/* per set: sum of its slices */
	bool		 *sampled;	/* per set: ever sampled */
	cpc_buf_t	**last;		/* per set: sample at the slice start */
	cpc_buf_t	**now;		/* per set: latest sample */
	cpc_buf_t	**delta;	/* per set: now - last */
	int		  current;
};

struct rotation *rotation_create(cpc_t *cpc, const struct setgrp *grp);
void rotation_free(cpc_t *cpc, struct rotation *rot);
/* Sample the current set; delta gets the slice's counts. */
int rotation_sample(cpc_t *cpc, struct rotation *rot);
void rotation_accumulate(cpc_t *cpc, struct rotation *rot);
void rotation_next(cpc_t *cpc, struct rotation *rot);

/* fdlimit.c */
void raise_fd_limit(bool report);
void fd_limit_reached(void);

/* Diagnostics: "<prog>: [<fn>: ]<message>", fn only in debug mode. */
void diag_init(const char *argv0);
const char *diag_progname(void);
void diag_set_debug(bool on);
void diag_errhndlr(const char *fn, int subcode, const char *fmt, va_list ap);
void diag(const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* SPEC_H */
