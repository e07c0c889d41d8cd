/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The commands need one descriptor per counter: as many as they may, but
 * never for the programs they start, which keep the limit they were given.
 */
#ifndef FDLIMIT_H
#define FDLIMIT_H

#include <stdbool.h>

void raise_fd_limit(bool report);
void fd_limit_reached(void);

#endif /* FDLIMIT_H */
