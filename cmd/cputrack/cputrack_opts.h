/* SPDX-License-Identifier: BSD-2-Clause */
/* cputrack's command line (cputrack_opts.c). */
#ifndef CPUTRACK_OPTS_H
#define CPUTRACK_OPTS_H

#include "cputrack.h"

/* False when the run is over, with *status to exit with. */
bool cputrack_options(struct cputrack *ct, int argc, char **argv, int *status);

#endif /* CPUTRACK_OPTS_H */
