/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The CPCv1 table that gives every event name its 8-bit code in a control
 * word (ce_pes): the names the walkers list, generic ones first, then
 * those met in specs. Both halves of the v1 layer read it: the syntax
 * (v1_strtoevent.c) and the bindings (v1.c).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cpc_impl.h"

#define NCODES	     256
#define WALKED_CODES 192 /* the rest for names met in specs */

static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static char *names[NCODES];
static int nnames;
static bool names_ready;

static void
add_walked(void *arg, const char *name)
{
	(void)arg;
	if (nnames < WALKED_CODES && (names[nnames] = strdup(name)) != NULL)
		nnames++;
}

/* Codes 0.. are what the walkers list, generic names first. */
static void
names_init(cpc_t *cpc)
{
	if (names_ready)
		return;
	names_ready = true;
	cpc_walk_generic_events_all(cpc, NULL, add_walked);
	cpc_walk_events_all(cpc, NULL, add_walked);
}

static int
find_code(const char *name)
{
	int i;

	for (i = 0; i < nnames; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

/* The code of a countable name, given one on first use; -1 if none. */
int
cpclib_v1_code(cpc_t *cpc, const char *name)
{
	struct cpc_event_enc enc;
	char why[256];
	int code;

	pthread_mutex_lock(&names_lock);
	names_init(cpc);
	if ((code = find_code(name)) < 0 && nnames < NCODES &&
	    cpclib_event_encode(cpc, name, &enc, why, sizeof(why)) == 0 &&
	    (names[nnames] = strdup(name)) != NULL)
		code = nnames++;
	pthread_mutex_unlock(&names_lock);
	return code;
}

const char *
cpclib_v1_name(cpc_t *cpc, unsigned code)
{
	const char *name = NULL;

	pthread_mutex_lock(&names_lock);
	names_init(cpc);
	if (code < (unsigned)nnames)
		name = names[code];
	pthread_mutex_unlock(&names_lock);
	return name;
}

/* How many codes there are now: those below are all named. */
int
cpclib_v1_ncodes(cpc_t *cpc)
{
	int n;

	pthread_mutex_lock(&names_lock);
	names_init(cpc);
	n = nnames;
	pthread_mutex_unlock(&names_lock);
	return n;
}
