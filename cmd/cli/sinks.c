/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The table of sinks (sinks.def), and what the command line asks of it
 * (see sinks.h). A sink's long option k of all of them, counted across
 * the table's rows, is getopt's SINKS_OPTION + k.
 */
#include <stdlib.h>
#include <string.h>

#include "out_sink.h"
#include "sinks.h"

#define SINK(ops, tools) extern const struct out_sink_ops ops;
#include "sinks.def"
#undef SINK

static const struct {
	const struct out_sink_ops *ops;
	unsigned tools;
} table[] = {
#define SINK(ops, tools) { &ops, tools },
#include "sinks.def"
#undef SINK
};
#define NSINKS (sizeof(table) / sizeof(table[0]))

/* The sinks of one process: its command's rows, configured. */
static struct out_sink used[NSINKS];

int
sinks_setup(struct out_config *cfg)
{
	size_t i;
	int n = 0;

	for (i = 0; i < NSINKS; i++) {
		if (!(table[i].tools & OUT_TOOLS(cfg->tool)))
			continue;
		/* Made anew: a sink's options start from its defaults. */
		free(used[n].cfg);
		used[n].cfg = calloc(1, table[i].ops->config_size + 1);
		if (used[n].cfg == NULL)
			return -1;
		used[n].ops = table[i].ops;
		if (used[n].ops->config_init != NULL)
			used[n].ops->config_init(used[n].cfg);
		n++;
	}
	cfg->sinks = used;
	cfg->nsinks = n;
	return 0;
}

/* Whether tool has the option opt. */
static bool
tool_has(const struct out_sink_option *opt, enum out_tool tool)
{
	return opt->tools == 0 || (opt->tools & OUT_TOOLS(tool)) != 0;
}

/*
 * The letters of a sink's options that tool has, after optstring's;
 * false: no room.
 */
static bool
add_letters(const struct out_sink_option *opt, enum out_tool tool,
    char *optstring, size_t size)
{
	size_t len = strlen(optstring);

	for (; opt->name != NULL || opt->letter != '\0'; opt++) {
		if (opt->letter == '\0' || !tool_has(opt, tool))
			continue;
		if (len + 3 > size)
			return false;
		optstring[len++] = opt->letter;
		if (opt->takes_arg)
			optstring[len++] = ':';
		optstring[len] = '\0';
	}
	return true;
}

bool
sinks_getopt(const struct out_config *cfg, struct option *all, size_t *n,
    size_t max, char *optstring, size_t size)
{
	const struct out_sink_option *opt;
	int s, k = 0;

	for (s = 0; s < cfg->nsinks; s++) {
		opt = cfg->sinks[s].ops->options;
		if (opt == NULL)
			continue;
		if (!add_letters(opt, cfg->tool, optstring, size))
			return false;
		for (; opt->name != NULL || opt->letter != '\0'; opt++, k++) {
			if (opt->name == NULL || !tool_has(opt, cfg->tool))
				continue;
			if (*n == max - 1)
				return false;
			all[(*n)++] = (struct option) { opt->name,
				opt->takes_arg ? required_argument :
						 no_argument,
				NULL, SINKS_OPTION + k };
		}
	}
	all[*n] = (struct option) { NULL, 0, NULL, 0 };
	return true;
}

bool
sinks_option(
    const struct out_config *cfg, int c, const char *arg, char quote, bool *bad)
{
	const struct out_sink_option *opt;
	int s, i, k = 0;

	for (s = 0; s < cfg->nsinks; s++) {
		opt = cfg->sinks[s].ops->options;
		for (i = 0; opt != NULL &&
		     (opt[i].name != NULL || opt[i].letter != '\0');
		     i++, k++) {
			if ((c != SINKS_OPTION + k && c != opt[i].letter) ||
			    !tool_has(&opt[i], cfg->tool))
				continue;
			if (cfg->sinks[s].ops->option(
				cfg->sinks[s].cfg, i, arg, quote) != 0)
				*bad = true;
			return true;
		}
	}
	return false;
}

const struct out_sink *
sinks_format(const struct out_config *cfg, const char *word)
{
	const struct out_sink *s;
	int i;

	for (s = cfg->sinks; s < cfg->sinks + cfg->nsinks; s++)
		for (i = 0; s->ops->formats != NULL && s->ops->formats[i]; i++)
			if (strcmp(s->ops->formats[i], word) == 0) {
				s->ops->format(s->cfg, i);
				return s;
			}
	return NULL;
}

size_t
sinks_formats(enum out_tool tool, const char **words, size_t n, size_t max)
{
	const char *const *f;
	size_t i;

	for (i = 0; i < NSINKS; i++) {
		if (!(table[i].tools & OUT_TOOLS(tool)))
			continue;
		for (f = table[i].ops->formats; f != NULL && *f && n < max; f++)
			words[n++] = *f;
	}
	return n;
}

const char *
sinks_check(const struct out_config *cfg)
{
	const char *why;
	int s;

	for (s = 0; s < cfg->nsinks; s++)
		if (cfg->sinks[s].ops->check != NULL &&
		    (why = cfg->sinks[s].ops->check(cfg->sinks[s].cfg)) != NULL)
			return why;
	return NULL;
}

/* The usage's lines of opt, in tool's words, where tool has it. */
static void
option_help(FILE *out, const struct out_sink_option *opt, enum out_tool tool)
{
	if (!tool_has(opt, tool))
		return;
	fputs(opt->help[tool] != NULL ? opt->help[tool] : opt->help[0], out);
}

/* The synopsis's columns after its indent, at most. */
#define SYNOPSIS_WIDTH 56

/*
 * opt's word in the synopsis, its usage's first line (--listen=addr:port),
 * bracketed, into word (size bytes).
 */
static void
synopsis_word(const struct out_sink_option *opt, enum out_tool tool, char *word,
    size_t size)
{
	const char *help =
	    opt->help[tool] != NULL ? opt->help[tool] : opt->help[0];

	help += strspn(help, "\t");
	snprintf(word, size, "[%.*s]", (int)strcspn(help, "\t\n"), help);
}

/* word on the synopsis's line at col, or on a new one: the next col. */
static size_t
synopsis_put(FILE *out, const char *word, size_t col)
{
	if (col == 0)
		fputs("\t\t", out);
	else if (col + 1 + strlen(word) > SYNOPSIS_WIDTH) {
		fputs("\n\t\t", out);
		col = 0;
	} else {
		fputc(' ', out);
		col++;
	}
	fputs(word, out);
	return col + strlen(word);
}

void
sinks_synopsis(FILE *out, enum out_tool tool)
{
	const struct out_sink_option *opt;
	char word[64];
	size_t i, col = 0;

	for (i = 0; i < NSINKS; i++) {
		if (!(table[i].tools & OUT_TOOLS(tool)) ||
		    table[i].ops->options == NULL)
			continue;
		for (opt = table[i].ops->options;
		     opt->name != NULL || opt->letter != '\0'; opt++) {
			if (!tool_has(opt, tool))
				continue;
			synopsis_word(opt, tool, word, sizeof(word));
			col = synopsis_put(out, word, col);
		}
	}
	if (col != 0)
		fputc('\n', out);
}

void
sinks_help(FILE *out, enum out_tool tool, enum out_usage_part part)
{
	const struct out_sink_option *opt;
	size_t i;

	for (i = 0; i < NSINKS; i++) {
		if (!(table[i].tools & OUT_TOOLS(tool)) ||
		    table[i].ops->options == NULL)
			continue;
		for (opt = table[i].ops->options;
		     opt->name != NULL || opt->letter != '\0'; opt++)
			if (opt->part == part)
				option_help(out, opt, tool);
	}
}

static const struct out_sink *
find(const struct out_config *cfg, const char *name)
{
	int s;

	for (s = 0; s < cfg->nsinks; s++)
		if (strcmp(cfg->sinks[s].ops->name, name) == 0)
			return &cfg->sinks[s];
	return NULL;
}

bool
sinks_any_wanted(const struct out_config *cfg, const void *except)
{
	int s;

	for (s = 0; s < cfg->nsinks; s++)
		if (cfg->sinks[s].cfg != except &&
		    cfg->sinks[s].ops->wanted(cfg, cfg->sinks[s].cfg))
			return true;
	return false;
}

void *
sinks_config(const struct out_config *cfg, const char *name)
{
	const struct out_sink *s = find(cfg, name);

	return s != NULL ? s->cfg : NULL;
}
