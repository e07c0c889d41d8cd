/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An event's scale and unit, as its PMU's sysfs files give them
 * (events/NAME.scale, events/NAME.unit: an uncore memory controller's CAS
 * counts in MiB, RAPL's energy in Joules). The counters keep the raw
 * counts; the scaled value is shown beside them.
 */
#ifndef EVSCALE_H
#define EVSCALE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcpc.h"

struct evscale {
	double scale;  /* what one count is worth in unit */
	char unit[32]; /* "MiB", "Joules"; "" where sysfs names none */
};

/*
 * The scale and unit of event, a PMU's named event (power/energy-pkg/,
 * uncore_imc/cas_count_read/), as libcpc reads them (cpc_event_scale):
 * true when sysfs gives it a scale or a unit (a unit alone: scale 1).
 */
bool evscale_read(cpc_t *cpc, const char *event, struct evscale *s);

/* count in the event's unit; per second over elapsed_ns (> 0). */
double evscale_value(const struct evscale *s, uint64_t count);
double evscale_rate(
    const struct evscale *s, uint64_t count, uint64_t elapsed_ns);

/* The rate's unit: W for Joules, else the unit per second ("MiB/s"). */
void evscale_rate_unit(const struct evscale *s, char *buf, size_t len);

#endif /* EVSCALE_H */
