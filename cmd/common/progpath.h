/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef PROGPATH_H
#define PROGPATH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The file execvp(3) would run for name, in path (len bytes): a name with
 * a slash as it is, otherwise the first regular, executable file of that
 * name in PATH's directories. False if there is none.
 */
bool program_path(const char *name, char *path, size_t len);

#endif /* PROGPATH_H */
