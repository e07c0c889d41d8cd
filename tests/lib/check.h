/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A minimal test harness: CHECK records a failure and goes on, so one run
 * shows every broken expectation; SKIP ends a test with a stated reason.
 * The counters and check_report are in check.c, compiled once into the
 * test helper library (tests/lib) that every C test links.
 */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>
#include <stdlib.h>

extern int check_failures;
extern int check_count;

#define CHECK(cond)                                                            \
	do {                                                                   \
		check_count++;                                                 \
		if (!(cond)) {                                                 \
			check_failures++;                                      \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
			    __LINE__, #cond);                                  \
		}                                                              \
	} while (0)

#define CHECK_EQ_U64(got, want)                                               \
	do {                                                                  \
		unsigned long long g_ = (unsigned long long)(got);            \
		unsigned long long w_ = (unsigned long long)(want);           \
		check_count++;                                                \
		if (g_ != w_) {                                               \
			check_failures++;                                     \
			fprintf(stderr, "%s:%d: %s is %llu, expected %llu\n", \
			    __FILE__, __LINE__, #got, g_, w_);                \
		}                                                             \
	} while (0)

/*
 * CTest treats exit status 77 as skipped (SKIP_RETURN_CODE). A skip after
 * a failed CHECK exits 1: what the machine lacks does not hide what
 * failed before it was found out.
 */
#define SKIP(...)                    \
	do {                         \
		printf("SKIP: ");    \
		printf(__VA_ARGS__); \
		printf("\n");        \
		check_skip();        \
	} while (0)

/* Say how many checks ran and failed: the exit status, 0 or 1. */
int check_report(const char *name);

/* End a test that SKIP stops: 77, or 1 after a failed CHECK. */
void check_skip(void) __attribute__((noreturn));

#endif /* CHECK_H */
