/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A test of a recorded machine (tests/unit/sysfs-trees) answers as that
 * machine would, on any host. Three facts of the host reach libcpc and
 * the metrics beside the PMUs a tree records: the model libpfm4 detects,
 * which gives a tree of one core PMU its model name and its counters; the
 * CPU id, which picks the metrics' model (cpuid, or PERF_CPUID where it
 * is set); and the variables a user may give libpfm4. recorded_machine
 * sets all three to the recorded machine's before the process's first
 * cpc_open: libpfm4 reads its variables once, when cpc_open initializes
 * it, so one process stands for one machine.
 */
#ifndef RECORDED_H
#define RECORDED_H

/*
 * The PMUs of tree (a directory of tests/unit/sysfs-trees, by name) read
 * through libcpc's test-only sysfs root, and the host made that
 * machine's: libpfm4 forced to its model, or to none, and PERF_CPUID its
 * CPU's id. extended_hw_type: whether its kernel opens a generic event on
 * a core PMU it names. A tree it has no row for ends the test.
 */
void recorded_machine(const char *tree, int extended_hw_type);

/*
 * For a process that reads several trees: libpfm4 with no model at all,
 * and no CPU id of the host's given (PERF_CPUID unset; such a test reads
 * no metric's model).
 */
void recorded_no_model(void);

#endif /* RECORDED_H */
