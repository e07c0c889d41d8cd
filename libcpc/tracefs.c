/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Tracepoints: subsystem:event, numbered by tracefs. Whether this user
 * may count them is asked of the kernel once per handle, with the first
 * tracepoint named, not once per tracepoint: opening and closing one
 * costs the kernel a grace period (tens of milliseconds) at the close.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evname.h"

static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

#define NAME_CHARS                   \
	"abcdefghijklmnopqrstuvwxyz" \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"

/* subsystem:event, both parts of tracefs's characters. */
bool
cpclib_looks_like_tracepoint(const char *name)
{
	const char *colon = strchr(name, ':');
	size_t sub;

	if (colon == NULL || colon == name || colon[1] == '\0')
		return false;
	sub = (size_t)(colon - name);
	return strspn(name, NAME_CHARS) == sub &&
	    strspn(colon + 1, NAME_CHARS) == strlen(colon + 1);
}

/*
 * The tracefs directory whose events/ this process can read; NULL with
 * *denied the first one that is there but closed to this user.
 */
static const char *
usable_dir(const char **denied)
{
	char path[128];
	size_t i;

	*denied = NULL;
	for (i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/events", tracefs_dirs[i]);
		if (access(path, R_OK | X_OK) == 0)
			return tracefs_dirs[i];
		if ((errno == EACCES || errno == EPERM) && *denied == NULL)
			*denied = tracefs_dirs[i];
	}
	return NULL;
}

const char *
cpclib_tracefs_dir(cpc_t *cpc)
{
	const char *denied;

	(void)cpc;
	return usable_dir(&denied);
}

static bool
read_id(const char *dir, const char *sub, const char *event, uint64_t *id)
{
	char path[768];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", dir, sub, event);
	if ((f = fopen(path, "r")) == NULL)
		return false;
	ok = fscanf(f, "%" SCNu64, id) == 1;
	fclose(f);
	return ok;
}

/* Whether tracefs has this tracepoint (whatever this user may do). */
bool
cpclib_tracepoint_exists(const char *name)
{
	const char *colon = strchr(name, ':'), *denied, *dir;
	char sub[256];
	uint64_t id;

	if ((dir = usable_dir(&denied)) == NULL || colon == NULL ||
	    (size_t)(colon - name) >= sizeof(sub))
		return false;
	memcpy(sub, name, (size_t)(colon - name));
	sub[colon - name] = '\0';
	return read_id(dir, sub, colon + 1, &id);
}

/*
 * Whether this user may count tracepoints, asked once per handle by
 * opening the first one (in kernel mode, as they count). The open event
 * is handed back to be kept (*fd), so that the question costs nothing.
 */
int
cpclib_tracepoint_access(
    cpc_t *cpc, const struct perf_event_attr *tp, const char *name, int *fd)
{
	struct ev_state *st = cpclib_ev_state(cpc);
	struct perf_event_attr attr = *tp;
	struct cpc_request req;
	struct cpc_event_term term;

	*fd = -1;
	if (st == NULL)
		return 1;
	if (st->tp_access != 0)
		return st->tp_access;
	attr.size = sizeof(attr);
	attr.disabled = 1;
	attr.exclude_hv = 1;
	if ((*fd = cpclib_probe_open(cpc, &attr)) >= 0) {
		st->tp_access = 1;
		return 1;
	}
	st->tp_access = -errno;
	if (errno == EMFILE || errno == ENFILE) {
		st->tp_access = 0; /* ask again later */
		return 1;
	}
	memset(&req, 0, sizeof(req));
	term.attr = attr;
	term.sign = 1;
	req.event = (char *)name;
	req.enc.term = &term;
	req.enc.nterms = 1;
	req.enc.kernel_context = true;
	req.flags = CPC_COUNT_USER | CPC_COUNT_SYSTEM;
	cpclib_explain_open_error(cpc, &req, -st->tp_access,
	    cpclib_probe_pid(cpc), cpc->probe_cpu, st->tp_denied,
	    sizeof(st->tp_denied));
	return st->tp_access;
}

/* One tracepoint asked on its own; kept open when it can count. */
static void
own_probe(cpc_t *cpc, const struct perf_event_attr *tp, const char *name,
    struct ev_result *r)
{
	struct perf_event_attr attr = *tp;
	struct cpc_request req;
	struct cpc_event_term term;
	char why[EV_WHY_LEN];
	int err;

	attr.size = sizeof(attr);
	attr.disabled = 1;
	attr.exclude_hv = 1;
	if ((r->pin_fd = cpclib_probe_open(cpc, &attr)) >= 0) {
		r->status = CPC_EVENT_COUNTABLE;
		return;
	}
	err = errno;
	memset(&req, 0, sizeof(req));
	term.attr = attr;
	term.sign = 1;
	req.event = (char *)name;
	req.enc.term = &term;
	req.enc.nterms = 1;
	req.enc.kernel_context = true;
	req.flags = CPC_COUNT_USER | CPC_COUNT_SYSTEM;
	cpclib_explain_open_error(cpc, &req, err, cpclib_probe_pid(cpc),
	    cpc->probe_cpu, why, sizeof(why));
	ev_fail(r,
	    err == EACCES || err == EPERM ? CPC_EVENT_NO_PERMISSION :
					    CPC_EVENT_UNSUPPORTED,
	    "%s", why);
}

bool
cpclib_resolve_tracepoint(cpc_t *cpc, const char *name, struct ev_result *r)
{
	const char *colon = strchr(name, ':'), *dir, *denied;
	char sub[256];
	uint64_t id;
	struct cpc_event_term *t;
	int fd;

	if (!cpclib_looks_like_tracepoint(name) ||
	    (size_t)(colon - name) >= sizeof(sub))
		return false;
	memcpy(sub, name, (size_t)(colon - name));
	sub[colon - name] = '\0';
	r->kind = "tracepoint";
	if ((dir = usable_dir(&denied)) == NULL) {
		if (denied != NULL)
			ev_fail(r, CPC_EVENT_NO_TRACEFS,
			    "tracepoint, but this "
			    "user may not read tracefs (%s: %s); tracepoints "
			    "need root, or read access to %s/events",
			    denied, strerror(EACCES), denied);
		else
			ev_fail(r, CPC_EVENT_NO_TRACEFS,
			    "tracepoint, but "
			    "tracefs is not mounted (mount -t tracefs nodev "
			    "/sys/kernel/tracing)");
		return true;
	}
	if (!read_id(dir, sub, colon + 1, &id)) {
		ev_fail(r, CPC_EVENT_UNKNOWN,
		    "no such tracepoint in this "
		    "kernel (none at %s/events/%s/%s)",
		    dir, sub, colon + 1);
		return true;
	}
	if ((t = ev_add_term(r, PERF_TYPE_TRACEPOINT, id, 1)) == NULL)
		return true;
	r->kernel_context = true;
	/*
	 * ftrace's own events are not tracepoints (tracefs lists them apart
	 * from available_events); the kernel decides on each one.
	 */
	if (strcmp(sub, "ftrace") == 0) {
		ev_desc(r, "an event of ftrace itself");
		own_probe(cpc, &t->attr, name, r);
		return true;
	}
	if (cpclib_tracepoint_access(cpc, &t->attr, name, &fd) < 0) {
		ev_fail(r, CPC_EVENT_NO_PERMISSION, "%s",
		    cpclib_ev_state(cpc)->tp_denied);
		return true;
	}
	r->pin_fd = fd;
	ev_desc(r, "tracepoint of the %s subsystem", sub);
	r->status = CPC_EVENT_COUNTABLE;
	return true;
}

#define UNREADABLE INT_MIN

/* available_events: "subsystem:event" per line. */
static int
walk_available(const char *dir, void *arg,
    int (*action)(void *, const char *, const char *))
{
	char path[128], line[512], *colon, *nl;
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/available_events", dir);
	if ((f = fopen(path, "r")) == NULL)
		return UNREADABLE;
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		if ((colon = strchr(line, ':')) == NULL)
			continue;
		*colon = '\0';
		rc = action(arg, line, colon + 1);
	}
	fclose(f);
	return rc;
}

/* The events/ directories, where available_events is not readable. */
static int
walk_dirs(const char *dir, void *arg,
    int (*action)(void *, const char *, const char *))
{
	char path[600];
	struct dirent *s, *e;
	DIR *ds, *de;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/events", dir);
	if ((ds = opendir(path)) == NULL)
		return -1;
	while (rc == 0 && (s = readdir(ds)) != NULL) {
		/* ftrace's own events, as available_events leaves them out. */
		if (s->d_name[0] == '.' || s->d_type != DT_DIR ||
		    strcmp(s->d_name, "ftrace") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", dir, s->d_name);
		if ((de = opendir(path)) == NULL)
			continue;
		while (rc == 0 && (e = readdir(de)) != NULL)
			if (e->d_name[0] != '.' && e->d_type == DT_DIR)
				rc = action(arg, s->d_name, e->d_name);
		closedir(de);
	}
	closedir(ds);
	return rc;
}

/*
 * Every tracepoint of this kernel, in tracefs's order, until action
 * returns non-zero: that value is returned.
 */
int
cpclib_tracefs_walk(cpc_t *cpc, void *arg,
    int (*action)(void *arg, const char *sub, const char *event))
{
	const char *denied, *dir = usable_dir(&denied);
	int rc;

	(void)cpc;
	if (dir == NULL)
		return 0;
	if ((rc = walk_available(dir, arg, action)) != UNREADABLE)
		return rc;
	return walk_dirs(dir, arg, action);
}
