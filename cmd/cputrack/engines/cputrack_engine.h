/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cputrack's engines: their list (engines.def, one line each), the table
 * made from it (cputrack_engine.c), what an engine is, and the engines,
 * each in a folder of its own here, with its row:
 *
 *	ptrace/	the ptrace engine, an adapter onto the model: libpctx's
 *		callbacks, each LWP counted by its own perf counters
 *	bpf/	the BPF engine, an adapter onto the model: per-CPU counters
 *		given to the threads at every context switch (bpf/lib);
 *		cputrack_nobpf.c in a build without it
 *	scan/	cputop with no target where the BPF engine cannot watch
 *		the machine: the processes counted from outside, found by
 *		a scan of /proc
 */
#ifndef CPUTRACK_ENGINE_H
#define CPUTRACK_ENGINE_H

#include "cputrack.h"

/* The engine a run takes when --engine is not given; unset: auto. */
#define ENGINE_ENV "CPCTOOLS_ENGINE"

/*
 * cputrack_engine.c: the engines, in one table in auto's order, and
 * which counts a run. engine_next: the row after e (NULL: the first), or
 * NULL after the last, those that stand in left out. An engine's name (or auto,
 * *engine NULL): 0, or -1 for none. The engine without --engine:
 * CPCTOOLS_ENGINE's, or auto; -1 when CPCTOOLS_ENGINE names none. The names
 * joined for usage and errors
 * ("a, b or auto" with sep ", " and last " or "), and how each follows
 * and counts, for --help. The line that says the
 * engine, and which engine auto takes here, for -h and --version. The
 * first engine that sees a process come into a cgroup. Whether auto
 * leaves this run's target to an engine that serves a program's requests,
 * and why (a program that may mark its sections with cpc_enable; on x86,
 * a breakpoint counted, whose lost debug trap only a tracer drops).
 * Whether a request of the run counts a breakpoint (mem:). Where
 * the checks of a run with engine (NULL: auto) open their test events
 * (ct->probe_cpu): on a CPU where an engine that counts CPUs alone may
 * count, so that no test opens the first event on a thread, which waits
 * for an RCU grace period where none is counted; on the thread otherwise
 * (engine_probe_on_thread). Where its requests are checked: as such an
 * engine counts them, on every CPU (SPEC_CHECK_CPUS: each request of a
 * core PMU on one of that PMU's CPUs), or on the thread.
 */
const struct engine *engine_next(const struct engine *e);
int engine_parse(const char *name, const struct engine **engine);
int engine_default(const struct engine **engine);
const char *engine_names(
    char *buf, size_t len, const char *sep, const char *last);
void engine_line(FILE *out);
void engine_help(FILE *out);
const struct engine *engine_seeing_cgroups(void);
bool engine_auto_skips(const struct cputrack *ct, char *why, size_t whylen);
void engine_probe_where(struct cputrack *ct, const struct engine *engine);
void engine_probe_on_thread(struct cputrack *ct);
int engine_check_cpu(const struct cputrack *ct);

/* Room for an engine's reason not to count here. */
#define ENGINE_WHY_LEN 256

/*
 * An engine. open makes it ready to count and returns 0, or returns the
 * status to exit with: 1 when cpustat holds the CPUs, 2 when the engine
 * cannot count here. Where it cannot, why says so (open_one, cputrack.c,
 * says it: for auto, which then counts with the next engine, only under
 * -v or -D); an empty why: open said all there was to say. track runs
 * the whole tracking and returns the status to exit with; let_go lets
 * whatever is still tracked run on and frees the engine's state.
 */
struct engine_ops {
	int (*open)(struct cputrack *ct, bool for_auto, char *why, size_t len);
	int (*track)(struct cputrack *ct);
	void (*let_go)(struct cputrack *ct);
};

/*
 * A row of the engines' table (engines.def), defined in the engine's
 * folder, the one place that names it: what --engine, the messages and
 * the output call it, what it can do, and its adapter.
 */
struct engine {
	const char *name;     /* as --engine and the output name it */
	const char *says;     /* as messages name it: "the %s engine" */
	const char *phase;    /* its mark in -D's start-up timing */
	const char *how;      /* how it follows and counts, for --help */
	bool sees_cgroups;    /* a process coming into a cgroup */
	bool serves_requests; /* a traced program's cpc_enable */
	bool counts_on_cpus;  /* CPUs alone, never a thread's events */
	/* 0 where it can run here, else -1 and why; NULL: it always can */
	int (*can_run)(char *why, size_t len);
	/* whether the user may count whole CPUs; NULL: as the kernel says */
	bool (*may_count_cpus)(void);
	const struct engine_ops *ops;
	/* never chosen by --engine or auto, nor named by usage or --help */
	bool stands_in;
	/* whether it takes over a refused run; NULL: never */
	bool (*instead)(const struct cputrack *ct);
};

/* The rows, one per line of engines.def, each in its engine's folder. */
#define ENGINE(name)   extern const struct engine name##_engine;
#define STAND_IN(name) ENGINE(name)
#include "engines.def"
#undef STAND_IN
#undef ENGINE

/*
 * A run refused for why (by an engine, or before any opens): true when an
 * engine that stands in takes it over (ct->opt.instead: cputop's whole
 * machine, counted from outside), the targets then its own (no cgroup),
 * with why kept for the view's header (ct->opt.instead_why).
 */
bool engine_instead(struct cputrack *ct, const char *why);

#endif /* CPUTRACK_ENGINE_H */
