/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which model's metrics a CPU takes, chosen as perf chooses its tables:
 * by the CPU's id string (x86: vendor-family-model-stepping, as
 * "GenuineIntel-6-55-4"; arm64: the MIDR, as "0x00000000410fd0c0"),
 * matched against each model's patterns in the data's order. perf's
 * PERF_CPUID, where set, stands for the CPU's own id, as in perf.
 */
#ifndef METRIC_MODEL_H
#define METRIC_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "metric_table.h"

/*
 * The id of the CPU this runs on, read under root ("/sys", or a recorded
 * tree's, where arm64's MIDR is), or PERF_CPUID's: 0, or -1 where there
 * is none (an architecture perf gives none).
 */
int metric_cpuid(const char *root, char *buf, size_t len);

/* Whether cpuid is one of the ids pattern names, as perf matches them. */
bool metric_cpuid_matches(const char *pattern, const char *cpuid);

/* The model of cpuid, or NULL (a CPU the vendors' data does not know). */
const struct metric_model *metric_model_of(const char *cpuid);

/* perf's metrics of every CPU (its Default group): the "common" model. */
const struct metric_model *metric_model_common(void);

/* A model by its tag ("skylakex"), or NULL. */
const struct metric_model *metric_model_named(const char *tag);

/* A model's legacy model i (0: the newest), or NULL past the last. */
const struct metric_model *metric_model_legacy(
    const struct metric_model *m, int i);

/* In words, for messages: "Intel skylakex (x86/skylakex, linux-7.3)". */
void metric_model_describe(
    const struct metric_model *m, const char *cpuid, char *buf, size_t len);

#endif /* METRIC_MODEL_H */
