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

/* Every event of one list (platform or generic) for counter picno. */
static void
walk_list_pic(cpc_t *cpc, bool generic, uint_t picno, void *arg,
    void (*action)(void *, uint_t, const char *))
{
	char **names;
	int i, n;

	if (picno >= cpc->npic) {
		errno = EINVAL;
		return;
	}
	if (cpc_catalog_build(cpc) != 0)
		return;
	names = generic ? cpc->catalog.generic : cpc->catalog.platform;
	n = generic ? cpc->catalog.ngeneric : cpc->catalog.nplatform;
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
	walk_list_pic(cpc, false, picno, arg, action);
}

void
cpc_walk_generic_events_pic(cpc_t *cpc, uint_t picno, void *arg,
    void (*action)(void *arg, uint_t picno, const char *event))
{
	walk_list_pic(cpc, true, picno, arg, action);
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
