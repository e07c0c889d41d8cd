/*
 * Set groups: the -c specs of a run, and each LWP's or CPU's rotation
 * through them. With one set, a tick shows the change since the previous
 * sample. With several, each tick samples the current set (its slice
 * began at zero when it was bound), adds the slice to that set's total,
 * and the caller binds the next set.
 */
#include <errno.h>
#include <stdlib.h>

#include "spec.h"

int
setgrp_add(struct setgrp *grp, cpc_t *cpc, const char *text,
    enum spec_error *err)
{
	struct spec **grown, *spec;

	if ((spec = spec_parse(cpc, text, err)) == NULL)
		return -1;
	grown = reallocarray(grp->specs, (size_t)grp->nspecs + 1,
	    sizeof(*grown));
	if (grown == NULL) {
		spec_free(spec);
		*err = SPEC_NOMEM;
		return -1;
	}
	grp->specs = grown;
	grp->specs[grp->nspecs++] = spec;
	return 0;
}

int
setgrp_add_checked(struct setgrp *grp, cpc_t *cpc, const char *text)
{
	enum spec_error err;

	if (setgrp_add(grp, cpc, text, &err) == 0)
		return 0;
	switch (err) {
	case SPEC_NOMEM:
		diag(NULL, "no memory available\n");
		return 1;
	case SPEC_UNCOUNTABLE:
		return 2;
	default:
		return -1;
	}
}

void
setgrp_free(struct setgrp *grp)
{
	int i;

	for (i = 0; i < grp->nspecs; i++)
		spec_free(grp->specs[i]);
	free(grp->specs);
	grp->specs = NULL;
	grp->nspecs = 0;
}

static int
rotation_alloc(struct rotation *rot, int n)
{
	rot->sets = calloc((size_t)n, sizeof(*rot->sets));
	rot->total = calloc((size_t)n, sizeof(*rot->total));
	rot->last = calloc((size_t)n, sizeof(*rot->last));
	rot->now = calloc((size_t)n, sizeof(*rot->now));
	rot->delta = calloc((size_t)n, sizeof(*rot->delta));
	rot->sampled = calloc((size_t)n, sizeof(*rot->sampled));
	rot->times = calloc((size_t)n, sizeof(*rot->times));
	return rot->sets && rot->total && rot->last && rot->now &&
	    rot->delta && rot->sampled && rot->times ? 0 : -1;
}

struct rotation *
rotation_create(cpc_t *cpc, const struct setgrp *grp)
{
	struct rotation *rot;
	int i;

	if ((rot = calloc(1, sizeof(*rot))) == NULL)
		return NULL;
	rot->grp = grp;
	if (rotation_alloc(rot, grp->nspecs) != 0)
		goto fail;
	for (i = 0; i < grp->nspecs; i++) {
		cpc_set_t *set = spec_build_set(cpc, grp->specs[i]);

		if ((rot->sets[i] = set) == NULL ||
		    (rot->total[i] = cpc_buf_create(cpc, set)) == NULL ||
		    (rot->last[i] = cpc_buf_create(cpc, set)) == NULL ||
		    (rot->now[i] = cpc_buf_create(cpc, set)) == NULL ||
		    (rot->delta[i] = cpc_buf_create(cpc, set)) == NULL)
			goto fail;
	}
	return rot;
fail:
	rotation_free(cpc, rot);
	errno = ENOMEM;
	return NULL;
}

/* Free a rotation; with cpc NULL (already closed) only our memory. */
void
rotation_free(cpc_t *cpc, struct rotation *rot)
{
	int i;

	if (rot == NULL)
		return;
	for (i = 0; cpc != NULL && rot->sets != NULL && i < rot->grp->nspecs;
	    i++) {
		if (rot->total[i] != NULL)
			(void)cpc_buf_destroy(cpc, rot->total[i]);
		if (rot->last[i] != NULL)
			(void)cpc_buf_destroy(cpc, rot->last[i]);
		if (rot->now[i] != NULL)
			(void)cpc_buf_destroy(cpc, rot->now[i]);
		if (rot->delta[i] != NULL)
			(void)cpc_buf_destroy(cpc, rot->delta[i]);
		if (rot->sets[i] != NULL)
			(void)cpc_set_destroy(cpc, rot->sets[i]);
	}
	free(rot->sets);
	free(rot->total);
	free(rot->last);
	free(rot->now);
	free(rot->delta);
	free(rot->sampled);
	free(rot->times);
	free(rot);
}

/*
 * Sample the current set into now, and put the change since the last
 * sample of this slice into delta.
 */
int
rotation_sample(cpc_t *cpc, struct rotation *rot)
{
	int c = rot->current;
	struct set_times *t = &rot->times[c];
	uint64_t enabled, running;

	if (cpc_set_sample(cpc, rot->sets[c], rot->now[c]) != 0)
		return -1;
	cpc_buf_sub(cpc, rot->delta[c], rot->now[c], rot->last[c]);
	cpc_buf_copy(cpc, rot->last[c], rot->now[c]);
	(void)cpc_set_times(cpc, rot->sets[c], &enabled, &running);
	t->delta_enabled = enabled - t->last_enabled;
	t->delta_running = running - t->last_running;
	t->last_enabled = enabled;
	t->last_running = running;
	return 0;
}

/* Add the latest delta of the current set to its total. */
void
rotation_accumulate(cpc_t *cpc, struct rotation *rot)
{
	int c = rot->current;

	cpc_buf_add(cpc, rot->total[c], rot->total[c], rot->delta[c]);
	rot->times[c].total_enabled += rot->times[c].delta_enabled;
	rot->times[c].total_running += rot->times[c].delta_running;
	rot->sampled[c] = true;
}

/* Move to the next set; its slice starts from zero when it is bound. */
void
rotation_next(cpc_t *cpc, struct rotation *rot)
{
	rot->current = (rot->current + 1) % rot->grp->nspecs;
	cpc_buf_zero(cpc, rot->last[rot->current]);
	rot->times[rot->current].last_enabled = 0;
	rot->times[rot->current].last_running = 0;
}
