/*
 * Walkers over what this kernel can count. Every counter can take every
 * listed event: software events and tracepoints need no counter, and the
 * kernel schedules hardware events onto the counters itself.
 */
#include <errno.h>
#include <string.h>

#include "cpc_impl.h"

static void
walk_list(char **names, int n, void *arg,
    void (*action)(void *, const char *))
{
	int i;

	for (i = 0; i < n; i++)
		action(arg, names[i]);
}

static void
walk_list_pic(char **names, int n, uint_t picno, void *arg,
    void (*action)(void *, uint_t, const char *))
{
	int i;

	for (i = 0; i < n; i++)
		action(arg, picno, names[i]);
}

void
cpc_walk_events_all(cpc_t *cpc, void *arg,
    void (*action)(void *arg, const char *event))
{
	if (cpc_catalog_build(cpc) != 0)
		return;
	walk_list(cpc->catalog.platform, cpc->catalog.nplatform, arg, action);
}

void
cpc_walk_generic_events_all(cpc_t *cpc, void *arg,
    void (*action)(void *arg, const char *event))
{
	if (cpc_catalog_build(cpc) != 0)
		return;
	walk_list(cpc->catalog.generic, cpc->catalog.ngeneric, arg, action);
}

void
cpc_walk_events_pic(cpc_t *cpc, uint_t picno, void *arg,
    void (*action)(void *arg, uint_t picno, const char *event))
{
	if (picno >= cpc->npic) {
		errno = EINVAL;
		return;
	}
	if (cpc_catalog_build(cpc) != 0)
		return;
	walk_list_pic(cpc->catalog.platform, cpc->catalog.nplatform, picno,
	    arg, action);
}

void
cpc_walk_generic_events_pic(cpc_t *cpc, uint_t picno, void *arg,
    void (*action)(void *arg, uint_t picno, const char *event))
{
	if (picno >= cpc->npic) {
		errno = EINVAL;
		return;
	}
	if (cpc_catalog_build(cpc) != 0)
		return;
	walk_list_pic(cpc->catalog.generic, cpc->catalog.ngeneric, picno,
	    arg, action);
}

void
cpc_walk_attrs(cpc_t *cpc, void *arg,
    void (*action)(void *arg, const char *attr))
{
	const char *const *a;

	for (a = cpc->attr_names; *a != NULL; a++)
		action(arg, *a);
	action(arg, "picnum");
}
