/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An event's scale and unit from its PMU's sysfs events (see evscale.h).
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evscale.h"
#include "pmumask.h"

#define DEVICES "bus/event_source/devices"

/* The event's name in its PMU: "energy-pkg" of "power/energy-pkg/". */
static bool
alias_of(const char *event, char *alias, size_t size)
{
	const char *open = strchr(event, '/'), *close;
	size_t n;

	if (open == NULL || (close = strchr(open + 1, '/')) == NULL ||
	    (n = (size_t)(close - open - 1)) == 0 || n >= size)
		return false;
	memcpy(alias, open + 1, n);
	alias[n] = '\0';
	return strpbrk(alias, "=,") == NULL;
}

/* Whether dir is a box of pmu: pmu, "_", and a number. */
static bool
is_box(const char *dir, const char *pmu)
{
	size_t n = strlen(pmu);

	return strncmp(dir, pmu, n) == 0 && dir[n] == '_' &&
	    dir[n + 1] != '\0' &&
	    strspn(dir + n + 1, "0123456789") == strlen(dir + n + 1);
}

/* pmu's directory, or (for a PMU of boxes) a box's: they share events. */
static bool
pmu_dir(const char *root, const char *pmu, char *dir, size_t size)
{
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(dir, size, "%s/" DEVICES "/%s", root, pmu);
	if ((d = opendir(dir)) != NULL) {
		closedir(d);
		return true;
	}
	snprintf(dir, size, "%s/" DEVICES, root);
	if ((d = opendir(dir)) == NULL)
		return false;
	while (!found && (e = readdir(d)) != NULL)
		if (is_box(e->d_name, pmu)) {
			snprintf(
			    dir, size, "%s/" DEVICES "/%s", root, e->d_name);
			found = true;
		}
	closedir(d);
	return found;
}

/* The first line of dir/events/alias.suffix, or false. */
static bool
read_attr(const char *dir, const char *alias, const char *suffix, char *buf,
    size_t size)
{
	char path[1024];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/events/%s.%s", dir, alias, suffix);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ok && buf[0] != '\0';
}

bool
evscale_read(const char *root, const char *event, struct evscale *s)
{
	char pmu[256], alias[256], dir[600], text[64], *end;
	bool scaled, named;
	double v;

	s->scale = 1;
	s->unit[0] = '\0';
	if (!pmumask_pmu(event, pmu, sizeof(pmu)) ||
	    !alias_of(event, alias, sizeof(alias)) ||
	    !pmu_dir(root, pmu, dir, sizeof(dir)))
		return false;
	scaled = read_attr(dir, alias, "scale", text, sizeof(text));
	if (scaled) {
		v = strtod(text, &end);
		/* A scale that is no positive number is not applied. */
		if (*end != '\0' || !isfinite(v) || v <= 0)
			scaled = false;
		else
			s->scale = v;
	}
	named = read_attr(dir, alias, "unit", s->unit, sizeof(s->unit));
	return scaled || named;
}

double
evscale_value(const struct evscale *s, uint64_t count)
{
	return (double)count * s->scale;
}

double
evscale_rate(const struct evscale *s, uint64_t count, uint64_t elapsed_ns)
{
	return evscale_value(s, count) * 1e9 / (double)elapsed_ns;
}

void
evscale_rate_unit(const struct evscale *s, char *buf, size_t len)
{
	if (strcmp(s->unit, "Joules") == 0)
		snprintf(buf, len, "W");
	else
		snprintf(
		    buf, len, "%s/s", s->unit[0] != '\0' ? s->unit : "counts");
}
