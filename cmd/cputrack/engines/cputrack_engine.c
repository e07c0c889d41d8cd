/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engines, and which counts a run: --engine's, CPCTOOLS_ENGINE's, or
 * auto's choice. Auto takes the first engine of the table that can run,
 * except for a program that may mark its own sections with cpc_enable(3CPC)
 * and cpc_disable(3CPC): only an engine that serves its requests counts
 * those. Adding an engine: its folder, with its row, and one line of
 * engines.def.
 */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cputrack_engine.h"
#include "progpath.h"

/* A bound on a symbol table's names: a program's with more is not read. */
#define MAX_STRINGS (64u << 20)

/* The engines in auto's order, one row per line of engines.def. */
static const struct engine *const engines[] = {
#define ENGINE(name)   &name##_engine,
#define STAND_IN(name) ENGINE(name)
#include "engines.def"
#undef STAND_IN
#undef ENGINE
};
#define NENGINES (sizeof(engines) / sizeof(engines[0]))

static const char auto_name[] = "auto";

const struct engine *
engine_next(const struct engine *e)
{
	size_t i = 0;

	if (e != NULL)
		while (i < NENGINES && engines[i++] != e)
			;
	while (i < NENGINES && engines[i]->stands_in)
		i++;
	return i < NENGINES ? engines[i] : NULL;
}

bool
engine_instead(struct cputrack *ct, const char *why)
{
	size_t i;

	for (i = 0; i < NENGINES; i++)
		if (engines[i]->instead != NULL && engines[i]->instead(ct)) {
			ct->opt.instead = engines[i];
			strlcpy(ct->opt.instead_why, why,
			    sizeof(ct->opt.instead_why));
			free(ct->opt.cgroup);
			ct->opt.cgroup = NULL;
			return true;
		}
	return false;
}

int
engine_parse(const char *name, const struct engine **engine)
{
	const struct engine *e;

	if (strcmp(name, auto_name) == 0) {
		*engine = NULL;
		return 0;
	}
	for (e = engine_next(NULL); e != NULL; e = engine_next(e))
		if (strcmp(name, e->name) == 0) {
			*engine = e;
			return 0;
		}
	return -1;
}

const char *
engine_names(char *buf, size_t len, const char *sep, const char *last)
{
	const struct engine *e;
	size_t n = 0;

	buf[0] = '\0';
	for (e = engine_next(NULL); e != NULL && n < len; e = engine_next(e))
		n += (size_t)snprintf(buf + n, len - n, "%s%s",
		    e == engines[0] ? "" : sep, e->name);
	if (n < len)
		snprintf(buf + n, len - n, "%s%s", last, auto_name);
	return buf;
}

void
engine_help(FILE *out)
{
	const struct engine *e;

	for (e = engine_next(NULL); e != NULL; e = engine_next(e))
		fprintf(out, "\t\t  %s: %s\n", e->name, e->how);
	fprintf(out,
	    "\t\t  %s (the default): the first of these that can run\n",
	    auto_name);
}

const struct engine *
engine_seeing_cgroups(void)
{
	const struct engine *e;

	for (e = engine_next(NULL); e != NULL && !e->sees_cgroups;
	     e = engine_next(e))
		;
	return e;
}

static const char *
engine_env(void)
{
	const char *env = getenv(ENGINE_ENV);

	return env != NULL && env[0] != '\0' ? env : NULL;
}

int
engine_default(const struct engine **engine)
{
	*engine = NULL;
	return engine_env() == NULL ? 0 : engine_parse(engine_env(), engine);
}

static void
probe_at(struct cputrack *ct, int cpu)
{
	if (cpc_probe_cpu(ct->cpc, cpu) == 0)
		ct->probe_cpu = cpu;
}

void
engine_probe_where(struct cputrack *ct, const struct engine *engine)
{
	const struct engine *e = engine != NULL ? engine : engine_next(NULL);
	char why[ENGINE_WHY_LEN];
	int cpu = -1;

	if (e != NULL && e->counts_on_cpus &&
	    e->can_run(why, sizeof(why)) == 0 && (cpu = sched_getcpu()) < 0)
		cpu = -1;
	probe_at(ct, cpu);
}

void
engine_probe_on_thread(struct cputrack *ct)
{
	probe_at(ct, -1);
}

int
engine_check_cpu(const struct cputrack *ct)
{
	return ct->probe_cpu >= 0 ? SPEC_CHECK_CPUS : -1;
}

/* Which engine auto takes here: the first, or another and why. */
static void
auto_line(FILE *out)
{
	const struct engine *e;
	char why[ENGINE_WHY_LEN] = "";

	for (e = engine_next(NULL); e != NULL; e = engine_next(e))
		if (e->can_run == NULL || e->can_run(why, sizeof(why)) == 0)
			break;
	if (e == engines[0])
		fprintf(out, ": the %s engine here\n", e->says);
	else if (e != NULL)
		fprintf(out, ": %s here (%s)\n", e->name, why);
	else
		fprintf(out, ": none here (%s)\n", why);
}

void
engine_line(FILE *out)
{
	const struct engine *engine;
	char names[64];

	if (engine_default(&engine) != 0) {
		fprintf(out, "engine: %s names no engine (%s)\n", ENGINE_ENV,
		    engine_names(names, sizeof(names), ", ", " or "));
		return;
	}
	fprintf(out, "engine: %s%s", engine != NULL ? engine->name : auto_name,
	    engine_env() != NULL ? " (" ENGINE_ENV ")" : " (the default)");
	if (engine != NULL)
		fputc('\n', out);
	else
		auto_line(out);
}

static bool
read_at(int fd, void *buf, size_t len, off_t off)
{
	return pread(fd, buf, len, off) == (ssize_t)len;
}

/* Whether the string table str names a function that asks the tracer. */
static bool
strings_name_a_request(int fd, const Elf64_Shdr *str)
{
	static const char *const asks[] = { "cpc_enable", "cpc_disable",
		"cpc_count_usr_events", "cpc_count_sys_events",
		"cpclib_pctx_ask_counting", "cpclib_pctx_ask_mode" };
	char name[64], *names;
	bool found = false;
	size_t i;

	if (str->sh_size < 2 || str->sh_size > MAX_STRINGS ||
	    (names = malloc(str->sh_size + 1)) == NULL)
		return false;
	names[str->sh_size] = '\0';
	if (read_at(fd, names, str->sh_size, (off_t)str->sh_offset))
		for (i = 0; i < sizeof(asks) / sizeof(asks[0]) && !found; i++) {
			/* A whole name: NUL on both sides (the table's
			   first byte is one). */
			snprintf(name, sizeof(name), "%c%s", '\0', asks[i]);
			found = memmem(names, str->sh_size + 1, name,
				    strlen(asks[i]) + 2) != NULL;
		}
	free(names);
	return found;
}

/*
 * Whether the ELF program at path may ask its tracer to turn its counters
 * on and off: its symbols (dynamic, or the static ones of a libcpc.a
 * linked in) name cpc_enable, cpc_disable or the mode switches. A 32-bit
 * or stripped static program, a script or an unreadable file: false.
 */
static bool
program_marks_sections(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	bool found = false;
	int fd, i;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	if (!read_at(fd, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
	    (sh = calloc(eh.e_shnum, sizeof(*sh))) == NULL ||
	    !read_at(fd, sh, eh.e_shnum * sizeof(*sh), (off_t)eh.e_shoff))
		goto out;
	for (i = 0; i < eh.e_shnum && !found; i++)
		found = (sh[i].sh_type == SHT_DYNSYM ||
			    sh[i].sh_type == SHT_SYMTAB) &&
		    sh[i].sh_link < eh.e_shnum &&
		    strings_name_a_request(fd, &sh[sh[i].sh_link]);
out:
	free(sh);
	close(fd);
	return found;
}

/* program_marks_sections of a running process's program. */
static bool
process_marks_sections(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return program_marks_sections(path);
}

/*
 * On x86 a breakpoint's debug exception that a hypervisor lost reaches
 * its process as a SIGTRAP, which only an engine that traces it drops.
 */
static bool
breakpoint_needs_tracer(const struct cputrack *ct)
{
#if defined(__x86_64__) || defined(__i386__)
	return setgrp_counts_breakpoints(ct->specs);
#else
	(void)ct;
	return false;
#endif
}

bool
engine_auto_skips(const struct cputrack *ct, char *why, size_t whylen)
{
	const struct engine *e;
	char reason[160];
	char path[PATH_MAX];
	size_t i;

	for (e = engine_next(NULL); e != NULL && !e->serves_requests;
	     e = engine_next(e))
		;
	if (breakpoint_needs_tracer(ct)) {
		snprintf(why, whylen,
		    "a breakpoint counted: only the %s engine keeps a debug "
		    "trap that the kernel sends for it from its process",
		    e != NULL ? e->says : "no");
		return true;
	}
	snprintf(reason, sizeof(reason),
	    "may mark its own sections with cpc_enable and cpc_disable, "
	    "which only the %s engine serves",
	    e != NULL ? e->says : "no");
	if (ct->opt.command != NULL) {
		if (!program_path(ct->opt.command[0], path, sizeof(path)) ||
		    !program_marks_sections(path))
			return false;
		snprintf(why, whylen, "%s %s", ct->opt.command[0], reason);
		return true;
	}
	for (i = 0; i < ct->opt.npids; i++)
		if (process_marks_sections(ct->opt.pids[i])) {
			snprintf(why, whylen, "pid %d %s", (int)ct->opt.pids[i],
			    reason);
			return true;
		}
	for (i = 0; i < ct->opt.ntids; i++)
		if (process_marks_sections(ct->tid_procs[i])) {
			snprintf(why, whylen, "pid %d %s",
			    (int)ct->tid_procs[i], reason);
			return true;
		}
	return false;
}
