/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The vendors' metrics and the encodings of their events, per CPU model:
 * cmd/metrics/metrics.tsv (written by scripts/metrics-import from the
 * kernel's tools/perf/pmu-events), turned into C at build time by
 * metric_table.awk. Texts are offsets into metric_strings (metric_str):
 * the tables hold no pointer, so a command's start relocates nothing of
 * them. Each text is the data's own; "" where it has none.
 */
#ifndef METRIC_TABLE_H
#define METRIC_TABLE_H

/* A metric, as its vendor's file gives it. */
struct metric_def {
	unsigned name;		/* tma_frontend_bound */
	unsigned pmu;		/* "core" (the core PMU), "cpu_atom", ... */
	unsigned groups;	/* "TopdownL1;tma_L1_group", ';' between */
	unsigned nogroup;	/* groups whose -M counts it ungrouped */
	unsigned default_group; /* its heading in perf's Default */
	unsigned constraint;	/* NO_GROUP_EVENTS[_NMI|_SMT] */
	unsigned scale_unit;	/* "100%", "1MB/s": a factor and a unit */
	unsigned expr;		/* formula.h's language */
	unsigned threshold;	/* likewise; true where it matters */
};

/* An event a model's metrics name: its PMU's format terms. */
struct metric_event {
	unsigned pmu;	/* as metric_def's */
	unsigned name;	/* UOPS_ISSUED.ANY, as the vendor writes it */
	unsigned terms; /* event=0xe,umask=0x1 */
};

/*
 * A model: its CPU ids, its metrics and events, and the models that hold
 * the names older releases of perf gave it (newest first), which answer
 * where its own data has no such name. Each is a range of the arrays
 * below.
 */
struct metric_model {
	unsigned tag;	  /* skylakex, skylakex@6.1, arm/neoverse-v1 */
	unsigned arch;	  /* x86, arm64, common */
	unsigned source;  /* linux-7.3 */
	unsigned dir;	  /* x86/skylakex: where in pmu-events/arch */
	unsigned version; /* the vendor's version of its files */
	int cpuid0, ncpuids;
	int legacy0, nlegacy;
	int metric0, nmetrics;
	int event0, nevents;
};

extern const char metric_strings[];
extern const unsigned metric_cpuids[];
extern const unsigned short metric_legacy[];
extern const struct metric_def metric_defs[];
extern const struct metric_event metric_events[];
extern const struct metric_model metric_models[];
extern const int metric_nmodels;

static inline const char *
metric_str(unsigned offset)
{
	return &metric_strings[offset];
}

#endif /* METRIC_TABLE_H */
