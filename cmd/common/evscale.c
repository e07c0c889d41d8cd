/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An event's scale and unit, as libcpc reads them (see evscale.h).
 */
#include <stdio.h>
#include <string.h>

#include "evscale.h"

bool
evscale_read(cpc_t *cpc, const char *event, struct evscale *s)
{
	return cpc_event_scale(
		   cpc, event, &s->scale, s->unit, sizeof(s->unit)) == 1;
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
