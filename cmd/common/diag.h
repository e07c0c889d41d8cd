/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Diagnostics of the commands: "<prog>: [<fn>: ]<message>", fn only in
 * debug mode, shared with libcpc's and libpctx's error handlers.
 */
#ifndef DIAG_H
#define DIAG_H

#include <stdarg.h>
#include <stdbool.h>

void diag_init(const char *argv0);
const char *diag_progname(void);
void diag_set_debug(bool on);
bool diag_debugging(void);
void diag_errhndlr(const char *fn, int subcode, const char *fmt, va_list ap);
void diag(const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/*
 * Where the messages go instead of stderr while a screen holds the
 * terminal: fn gets each whole, "<prog>: " and all; NULL: stderr again.
 */
void diag_set_sink(void (*fn)(void *arg, const char *message), void *arg);
/*
 * cpc_open's failure, errno err, in one line: a kernel with performance
 * counters that answers ENOSYS is a seccomp filter's refusal, said so.
 */
void diag_cpc_open(int err);
/* Said only in debug mode (-D). */
void diag_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* DIAG_H */
