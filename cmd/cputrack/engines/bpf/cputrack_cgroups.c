/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --for-each-cgroup's rows. The engine knows a cgroup by its id; its name
 * is found by walking the target's directory, where each cgroup's
 * directory has its id as its inode number (cgroupdir.h). A walk happens
 * when a cgroup is counted first (the engine says so at once, while the
 * cgroup is there), so a name is found for all but a cgroup removed
 * within milliseconds of its first count: that one is named by its id.
 * Where the engine tells of each cgroup made and removed (its
 * hooks at the kernel's tracepoints), the names come that way, and the
 * directory is walked once, at the start: cgroups made and removed by
 * the thousand, by anyone with a delegated subtree, cost the counting
 * thread a record each, never a walk. Elsewhere, at most one walk is
 * made a tick, and one first counted after the tick's walk is named by
 * its id until the next tick's walk names it.
 *
 * A cgroup found gone at a tick gives its rows as usual; at the next tick,
 * its counts read after the last task can have left it, its last row is
 * labelled rmdir and its counts are dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/tree.h>
#include <unistd.h>

#include "cputrack_cgroups.h"
#include "diag.h"

struct cgroup_row {
	RB_ENTRY(cgroup_row) node;
	uint64_t id;
	char *rel;	/* below the target: "." for itself; NULL: not found */
	char *name;	/* in the hierarchy, or "id:N" when not found */
	setgrp_t *grp;	/* its counts, once counted */
	unsigned level; /* below the target */
	bool sampled;	/* at this tick */
	bool gone;	/* found gone: its next row is its last */
	bool removed;	/* said removed (by_event) */
	struct row_lwp who;
};

RB_HEAD(cgroup_tree, cgroup_row);

struct cgroup_rows {
	struct cputrack *ct;
	const struct cgroup_dir *top;
	int topfd;
	unsigned depth;
	bool walked;   /* at this tick */
	bool by_event; /* names come as cgroups are made: never a walk */
	int current;   /* the set counting now */
	struct cgroup_tree rows;
	/* Cgroups folded into their parents, how many were said, the first. */
	unsigned folded, folded_said;
	char folded_first[256];
};

static int
row_cmp(const struct cgroup_row *a, const struct cgroup_row *b)
{
	return a->id < b->id ? -1 : a->id > b->id;
}

RB_GENERATE(cgroup_tree, cgroup_row, node, row_cmp)

static struct cgroup_row *
row_find(struct cgroup_rows *cr, uint64_t id)
{
	struct cgroup_row key = { .id = id };

	return RB_FIND(cgroup_tree, &cr->rows, &key);
}

static void
row_free(struct cgroup_row *r)
{
	setgrp_free(r->grp);
	free(r->rel);
	free(r->name);
	free(r);
}

/* FNV-1a, 64 bits: what tells two shortened names apart. */
static uint64_t
name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/*
 * A name longer than CGROUP_NAME_MAX bytes, in place: its start, cut
 * between two UTF-8 characters, "..." and the hash of the whole, so
 * that each row and series label stays small (4,096 cgroups of 4 kB
 * names made a 64 MB scrape) and two long names stay apart.
 */
static void
name_shorten(char *name)
{
	size_t keep = CGROUP_NAME_MAX - 3 - 16;
	uint64_t h;

	if (strlen(name) <= CGROUP_NAME_MAX)
		return;
	h = name_hash(name);
	while (keep > 0 && ((unsigned char)name[keep] & 0xc0) == 0x80)
		keep--;
	snprintf(name + keep, CGROUP_NAME_MAX + 1 - keep, "...%016llx",
	    (unsigned long long)h);
}

/*
 * r's name, for rel below the target, or by its id (rel NULL); 0, or -1
 * with r as it was.
 */
static int
row_name(const struct cgroup_rows *cr, struct cgroup_row *r, const char *rel)
{
	const char *top = cr->top->name;
	char *name, *copy = NULL;
	int n;

	if (rel == NULL)
		n = asprintf(&name, "id:%llu", (unsigned long long)r->id);
	else if (strcmp(rel, ".") == 0)
		n = asprintf(&name, "%s", top);
	else
		n = asprintf(&name, "%s%s%s", top,
		    strcmp(top, "/") == 0 ? "" : "/", rel);
	if (n < 0)
		return -1;
	name_shorten(name);
	if (rel != NULL && (copy = strdup(rel)) == NULL) {
		free(name);
		return -1;
	}
	free(r->name);
	free(r->rel);
	r->name = name;
	r->rel = copy;
	r->who.comm = name;
	return 0;
}

/* A cgroup by id, named rel below the target, or unnamed (rel NULL). */
static struct cgroup_row *
row_new(struct cgroup_rows *cr, uint64_t id, const char *rel)
{
	struct cgroup_row *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->id = id;
	r->who = (struct row_lwp) { 0, 0, 0, NULL, 0 };
	if (row_name(cr, r, rel) != 0) {
		free(r);
		return NULL;
	}
	RB_INSERT(cgroup_tree, &cr->rows, r);
	return r;
}

/* A directory below the target (level levels down): a row, if new. */
static void
visit_dir(void *arg, int fd, const char *rel, unsigned level)
{
	struct cgroup_rows *cr = arg;
	struct cgroup_row *r;
	uint64_t id;

	(void)fd;
	if (cgroup_id_at(cr->topfd, rel, &id) != 0)
		return;
	if ((r = row_find(cr, id)) == NULL)
		r = row_new(cr, id, rel);
	else if (r->rel == NULL)
		(void)row_name(cr, r, rel);
	if (r != NULL)
		r->level = level;
}

struct cgroup_rows *
cgroup_rows_new(
    struct cputrack *ct, const struct cgroup_dir *top, unsigned depth)
{
	struct cgroup_rows *cr = calloc(1, sizeof(*cr));

	if (cr == NULL)
		return NULL;
	cr->ct = ct;
	cr->top = top;
	cr->depth = depth;
	RB_INIT(&cr->rows);
	if ((cr->topfd = open(top->path,
		 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    row_new(cr, top->id, ".") == NULL) {
		cgroup_rows_free(cr);
		return NULL;
	}
	cgroup_dir_walk(cr->topfd, cr->depth, visit_dir, cr);
	return cr;
}

void
cgroup_rows_free(struct cgroup_rows *cr)
{
	struct cgroup_row *r, *next;

	if (cr == NULL)
		return;
	RB_FOREACH_SAFE (r, cgroup_tree, &cr->rows, next) {
		RB_REMOVE(cgroup_tree, &cr->rows, r);
		row_free(r);
	}
	if (cr->topfd >= 0)
		close(cr->topfd);
	free(cr);
}

static struct cgroup_row *
row_of(struct cgroup_rows *cr, uint64_t id)
{
	struct cgroup_row *r = row_find(cr, id);

	if (r != NULL)
		return r;
	if (!cr->walked && !cr->by_event) {
		cr->walked = true;
		cgroup_dir_walk(cr->topfd, cr->depth, visit_dir, cr);
		if ((r = row_find(cr, id)) != NULL)
			return r;
	}
	return row_new(cr, id, NULL);
}

void
cgroup_rows_count_present(struct cgroup_rows *cr, unsigned max,
    int (*count)(void *arg, uint64_t id), void *arg)
{
	struct cgroup_row *r;
	unsigned n = 0;

	RB_FOREACH (r, cgroup_tree, &cr->rows)
		n++;
	if (n > max)
		return;
	RB_FOREACH (r, cgroup_tree, &cr->rows)
		if (r->id != cr->top->id)
			(void)count(arg, r->id);
}

void
cgroup_rows_by_event(struct cgroup_rows *cr)
{
	cr->by_event = true;
}

void
cgroup_rows_named(
    struct cgroup_rows *cr, uint64_t id, uint64_t parent, const char *name)
{
	struct cgroup_row *up = row_find(cr, parent), *r;
	char *rel;
	int n;

	/* Below a cgroup of the target's that has a name, as deep as a walk. */
	if (up == NULL || up->rel == NULL || up->level >= cr->depth ||
	    name[0] == '\0' || strchr(name, '/') != NULL)
		return;
	if (strcmp(up->rel, ".") == 0)
		n = asprintf(&rel, "%s", name);
	else
		n = asprintf(&rel, "%s/%s", up->rel, name);
	if (n < 0)
		return;
	if ((r = row_find(cr, id)) == NULL)
		r = row_new(cr, id, rel);
	else
		(void)row_name(cr, r, rel);
	if (r != NULL)
		r->level = up->level + 1;
	free(rel);
}

void
cgroup_rows_gone(struct cgroup_rows *cr, uint64_t id)
{
	struct cgroup_row *r = row_find(cr, id);

	if (r != NULL)
		r->removed = true;
}

void
cgroup_rows_found(struct cgroup_rows *cr, uint64_t id, bool folded)
{
	struct cgroup_row *r = row_of(cr, id);

	if (folded && cr->folded++ == 0)
		snprintf(cr->folded_first, sizeof(cr->folded_first), "%s",
		    r != NULL ? r->name : "?");
}

/* Cgroups folded since the last line: said, with the first's name. */
static void
say_folded(struct cgroup_rows *cr)
{
	const struct cputrack_opts *o = &cr->ct->opt;

	if (cr->folded == cr->folded_said)
		return;
	cr->folded_said = cr->folded;
	output_cgroups_folded(cr->ct->out, cr->folded);
	if (cr->folded == 1)
		diag(NULL,
		    "1 cgroup under %s (%s) is counted in its parent's rows: "
		    "no more than max=%u are counted apart\n",
		    cr->top->name, cr->folded_first, o->cgroups_max);
	else
		diag(NULL,
		    "%u cgroups under %s (%s, ...) are counted in their "
		    "parents' rows: no more than max=%u are counted apart\n",
		    cr->folded, cr->top->name, cr->folded_first,
		    o->cgroups_max);
}

void
cgroup_rows_sample(struct cgroup_rows *cr, uint64_t id, int s,
    struct bpf_sets *sets, const struct bpfeng_set_counts *sc, hrtime_t when)
{
	struct cgroup_row *r = row_of(cr, id);

	if (r == NULL)
		return;
	if (r->grp == NULL) {
		if ((r->grp = setgrp_accumulator(cr->ct->specs)) == NULL)
			return;
		setgrp_set_current(r->grp, cr->current);
	}
	bpf_sets_sample(sets, r->grp, s, sc, when);
	r->sampled = true;
}

/* Whether r's directory is gone; the target's never is, for its rows. */
static bool
gone(const struct cgroup_rows *cr, const struct cgroup_row *r)
{
	uint64_t id;

	if (r->id == cr->top->id)
		return false;
	if (cr->by_event)
		return r->removed;
	return r->rel == NULL || cgroup_id_at(cr->topfd, r->rel, &id) != 0 ||
	    id != r->id;
}

void
cgroup_rows_tick(struct cgroup_rows *cr, int s, unsigned long intervals,
    void (*forget)(void *arg, uint64_t id), void *arg)
{
	struct cgroup_row *r, *next;
	bool unnamed = false;

	RB_FOREACH_SAFE (r, cgroup_tree, &cr->rows, next)
		unnamed |= r->rel == NULL && r->id != cr->top->id;
	/* The walk this tick allows: for those still known by their ids. */
	cr->walked = false;
	if (unnamed && !cr->by_event) {
		cr->walked = true;
		cgroup_dir_walk(cr->topfd, cr->depth, visit_dir, cr);
	}
	RB_FOREACH_SAFE (r, cgroup_tree, &cr->rows, next) {
		/*
		 * A name found by a walk is kept while it is there, and a tick
		 * after: a thread's last counts, given at its last context
		 * switch, can come after its process was reaped and its cgroup
		 * removed.
		 */
		if (r->grp == NULL) {
			if (r->gone) {
				RB_REMOVE(cgroup_tree, &cr->rows, r);
				row_free(r);
			} else
				r->gone = gone(cr, r);
			continue;
		}
		if (!r->sampled)
			continue;
		r->sampled = false;
		row_cgroup(cr->ct, &r->who, r->gone ? "rmdir" : "cgroup", s,
		    setgrp_slice(r->grp, s), intervals);
		if (r->gone) {
			forget(arg, r->id);
			RB_REMOVE(cgroup_tree, &cr->rows, r);
			row_free(r);
		} else
			r->gone = gone(cr, r);
	}
	say_folded(cr);
}

void
cgroup_rows_set_current(struct cgroup_rows *cr, int s)
{
	struct cgroup_row *r;

	cr->current = s;
	RB_FOREACH (r, cgroup_tree, &cr->rows)
		if (r->grp != NULL)
			setgrp_set_current(r->grp, s);
}

void
cgroup_rows_totals(struct cgroup_rows *cr)
{
	struct cgroup_row *r;

	RB_FOREACH (r, cgroup_tree, &cr->rows)
		if (r->grp != NULL)
			row_totals(cr->ct, &r->who, "total", r->grp, NULL);
}
