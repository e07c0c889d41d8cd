/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libpfm4's initialization, in two steps.
 *
 * Its perf PMU (perf::, perf_raw::) reads the id file of every tracepoint
 * when it initializes where debugfs is mounted, as systemd mounts it:
 * thousands of files, one open each, for names this library resolves by
 * itself (tracefs.c, evtables.c). A start initializes libpfm4 without
 * those two PMUs; a name no other grammar knows, or the catalog,
 * initializes it again with every PMU. libpfm4 leaves PMUs out by
 * LIBPFM_DISABLED_PMUS, which it reads only while it initializes: the
 * variable is set for that call and then restored, so that no command
 * started later inherits it. Both steps come from a name, a listing or a
 * question about the CPU's model (cpclib_pmu_models), never from
 * cpc_open: a run of software events and tracepoints does without
 * libpfm4. The commands ask those on one thread, before threads of their
 * own.
 */
#include <perfmon/pfmlib.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpc_impl.h"

#define DISABLED_ENV "LIBPFM_DISABLED_PMUS"
/* libpfm4 matches each name as a substring of its PMUs' names. */
#define PERF_PMUS    "perf,perf_raw"

static pthread_once_t core_once = PTHREAD_ONCE_INIT;
static pthread_once_t all_once = PTHREAD_ONCE_INIT;
static int core_status;
static bool all_pmus;

/*
 * pfm_initialize with extra added to the PMUs the user left out. The
 * variable is set even where nothing is left out: libpfm4 keeps what it
 * read the last time when it finds the variable unset.
 */
static int
initialize_leaving_out(const char *extra)
{
	const char *user = getenv(DISABLED_ENV);
	char *saved = NULL, *value;
	int rc;

	if (user != NULL && (saved = strdup(user)) == NULL)
		return pfm_initialize();
	if (asprintf(&value, "%s%s%s", saved != NULL ? saved : "",
		saved != NULL && *saved != '\0' && *extra != '\0' ? "," : "",
		extra) < 0) {
		free(saved);
		return pfm_initialize();
	}
	if (setenv(DISABLED_ENV, value, 1) != 0) {
		free(value);
		free(saved);
		return pfm_initialize();
	}
	rc = pfm_initialize();
	if (saved != NULL)
		(void)setenv(DISABLED_ENV, saved, 1);
	else
		(void)unsetenv(DISABLED_ENV);
	free(value);
	free(saved);
	return rc;
}

static void
init_core(void)
{
	/* A PMU forced by name is the only one: nothing to leave out. */
	all_pmus = getenv("LIBPFM_FORCE_PMU") != NULL;
	core_status = initialize_leaving_out(all_pmus ? "" : PERF_PMUS);
}

static void
init_all(void)
{
	if (all_pmus)
		return;
	pfm_terminate();
	if (initialize_leaving_out("") != PFM_SUCCESS) {
		/* What the first step had, rather than nothing. */
		pfm_terminate();
		(void)initialize_leaving_out(PERF_PMUS);
		return;
	}
	all_pmus = true;
}

int
cpclib_pfm_init(void)
{
	pthread_once(&core_once, init_core);
	return core_status;
}

bool
cpclib_pfm_init_all(void)
{
	bool before;

	if (cpclib_pfm_init() != PFM_SUCCESS)
		return false;
	before = all_pmus;
	pthread_once(&all_once, init_all);
	return !before && all_pmus;
}
