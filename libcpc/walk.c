/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Walkers over what this kernel can count (catalog.c). Every counter can
 * take every listed event: software events and tracepoints need no
 * counter, and the kernel schedules hardware events onto the counters
 * itself.
 */
#include <errno.h>
#include <string.h>

#include "cpc_impl.h"

/* Every name (not form) of the catalog, generic or not. */
static void
walk_names(
    cpc_t *cpc, bool generic, void *arg, void (*action)(void *, const char *))
{
	const struct cpc_catalog *cat = &cpc->catalog;
	int i;

	if (cpclib_catalog_build(cpc) != 0)
		return;
	for (i = 0; i < cat->n; i++)
		if (!cat->entry[i].form && cat->entry[i].generic == generic)
			action(arg, cat->entry[i].name);
}

static void
walk_names_pic(cpc_t *cpc, bool generic, uint_t picno, void *arg,
    void (*action)(void *, uint_t, const char *))
{
	const struct cpc_catalog *cat = &cpc->catalog;
	int i;

	if (picno >= cpclib_npic(cpc)) {
		errno = EINVAL;
		return;
	}
	if (cpclib_catalog_build(cpc) != 0)
		return;
	for (i = 0; i < cat->n; i++)
		if (!cat->entry[i].form && cat->entry[i].generic == generic)
			action(arg, picno, cat->entry[i].name);
}

void
cpc_walk_events_all(
    cpc_t *cpc, void *arg, void (*action)(void *arg, const char *event))
{
	walk_names(cpc, false, arg, action);
}

void
cpc_walk_generic_events_all(
    cpc_t *cpc, void *arg, void (*action)(void *arg, const char *event))
{
	walk_names(cpc, true, arg, action);
}

void
cpc_walk_events_pic(cpc_t *cpc, uint_t picno, void *arg,
    void (*action)(void *arg, uint_t picno, const char *event))
{
	walk_names_pic(cpc, false, picno, arg, action);
}

void
cpc_walk_generic_events_pic(cpc_t *cpc, uint_t picno, void *arg,
    void (*action)(void *arg, uint_t picno, const char *event))
{
	walk_names_pic(cpc, true, picno, arg, action);
}

void
cpc_walk_events_described(cpc_t *cpc, void *arg,
    void (*action)(
	void *arg, const char *event, const char *kind, const char *desc))
{
	const struct cpc_catalog *cat = &cpc->catalog;
	int i;

	if (cpclib_catalog_build(cpc) != 0)
		return;
	for (i = 0; i < cat->n; i++)
		action(arg, cat->entry[i].name, cat->entry[i].kind,
		    cat->entry[i].desc);
}

void
cpc_walk_attrs(
    cpc_t *cpc, void *arg, void (*action)(void *arg, const char *attr))
{
	const char *const *a;

	for (a = cpclib_attr_names(cpc); *a != NULL; a++)
		action(arg, *a);
	action(arg, "picnum");
}
