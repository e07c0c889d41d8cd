/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --dry-run: what a run would open, without opening anything: each set's
 * counters with the perf_event_attr type and config the kernel would be
 * given (one per core PMU on a hybrid CPU), their modes, and the metrics
 * the set gives.
 */
#ifndef DRYRUN_H
#define DRYRUN_H

#include <stdio.h>

#include "libcpc.h"
#include "output.h"
#include "setgrp.h"

/* Print it for specs and the output's metrics: 0, or 1 when a set fails. */
int dryrun_print(
    cpc_t *cpc, const setgrp_t *specs, const struct out_config *out, FILE *f);

#endif /* DRYRUN_H */
