/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which engine counts a run: --engine's, CPCTOOLS_ENGINE's, or auto's
 * choice. Auto takes the BPF engine where it can run, which traces
 * nothing, except for a program that may mark its own sections with
 * cpc_enable(3CPC) and cpc_disable(3CPC): only the ptrace engine serves
 * those.
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

#include "bpfeng.h"
#include "cputrack.h"
#include "progpath.h"

/* A bound on a symbol table's names: a program's with more is not read. */
#define MAX_STRINGS (64u << 20)

int
engine_parse(const char *name, enum track_engine *engine)
{
	if (strcmp(name, "ptrace") == 0)
		*engine = ENGINE_PTRACE;
	else if (strcmp(name, "bpf") == 0)
		*engine = ENGINE_BPF;
	else if (strcmp(name, "auto") == 0)
		*engine = ENGINE_AUTO;
	else
		return -1;
	return 0;
}

static const char *
engine_env(void)
{
	const char *env = getenv(ENGINE_ENV);

	return env != NULL && env[0] != '\0' ? env : NULL;
}

int
engine_default(enum track_engine *engine)
{
	*engine = ENGINE_AUTO;
	return engine_env() == NULL ? 0 : engine_parse(engine_env(), engine);
}

void
engine_probe_where(struct cputrack *ct, enum track_engine engine)
{
	char why[BPFENG_WHY_LEN];
	int cpu = -1;

	if (engine != ENGINE_PTRACE && bpfeng_can_run(why, sizeof(why)) == 0 &&
	    (cpu = sched_getcpu()) < 0)
		cpu = -1;
	if (cpc_probe_cpu(ct->cpc, cpu) == 0)
		ct->probe_cpu = cpu;
}

int
engine_check_cpu(const struct cputrack *ct)
{
	return ct->probe_cpu >= 0 ? SPEC_CHECK_CPUS : -1;
}

void
engine_line(FILE *out)
{
	static const char *const names[] = { "ptrace", "bpf", "auto" };
	enum track_engine engine;
	char why[BPFENG_WHY_LEN];

	if (engine_default(&engine) != 0) {
		fprintf(out,
		    "engine: %s names no engine (ptrace, bpf or auto)\n",
		    ENGINE_ENV);
		return;
	}
	fprintf(out, "engine: %s%s", names[engine],
	    engine_env() != NULL ? " (" ENGINE_ENV ")" : " (the default)");
	if (engine != ENGINE_AUTO)
		fputc('\n', out);
	else if (bpfeng_can_run(why, sizeof(why)) == 0)
		fprintf(out, ": the BPF engine here\n");
	else
		fprintf(out, ": ptrace here (%s)\n", why);
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

bool
engine_auto_ptrace(const struct cputrack *ct, char *why, size_t whylen)
{
	const char *reason = "may mark its own sections with cpc_enable and "
			     "cpc_disable, which only the ptrace engine serves";
	char path[PATH_MAX];
	size_t i;

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
