/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sinks a command has, from the one table of them (sinks.def): their
 * options on the command line, the formats they render, and their
 * configurations, which the options fill and the output hands back to
 * them (out_config's sinks). The command line reaches them here alone.
 */
#ifndef SINKS_H
#define SINKS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "out_sink.h"
#include "output.h"

/* A sink's long option's value for getopt: SINKS_OPTION and up. */
#define SINKS_OPTION 1024

/*
 * cfg->tool's sinks into cfg (sinks, nsinks), each with its
 * configuration made, which lasts as long as the process: 0, or -1 for
 * no memory.
 */
int sinks_setup(struct out_config *cfg);
/*
 * The long options of cfg's sinks, after the n of all (max at most),
 * and their letters after optstring's (size bytes at most): false when
 * there is no room.
 */
bool sinks_getopt(const struct out_config *cfg, struct option *all, size_t *n,
    size_t max, char *optstring, size_t size);
/*
 * Whether getopt's c is a sink's option: then its argument arg is given
 * to it, *bad when it is bad (said, with quote around it).
 */
bool sinks_option(const struct out_config *cfg, int c, const char *arg,
    char quote, bool *bad);
/* --format's word, when a sink renders it: that sink is told. */
const struct out_sink *sinks_format(
    const struct out_config *cfg, const char *word);
/*
 * The words of the formats tool's sinks render, after the n of words
 * (max at most): the new n.
 */
size_t sinks_formats(
    enum out_tool tool, const char **words, size_t n, size_t max);
/* The first of the sinks' options that needs another it lacks, or NULL. */
const char *sinks_check(const struct out_config *cfg);
/*
 * The usage's lines, in tool's words, of the options of tool's sinks
 * that stand in part of it.
 */
void sinks_help(FILE *out, enum out_tool tool, enum out_usage_part part);
/*
 * The synopsis's lines of the options of tool's sinks: each option
 * bracketed, as its usage's first line names it.
 */
void sinks_synopsis(FILE *out, enum out_tool tool);
/*
 * Whether the run's options want a sink, but the one whose configuration
 * is except (NULL: any sink).
 */
bool sinks_any_wanted(const struct out_config *cfg, const void *except);
/* The configuration of the sink called name, or NULL. */
void *sinks_config(const struct out_config *cfg, const char *name);

#endif /* SINKS_H */
