/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Messages through the caller's error function, or to stderr.
 */
#include <stdio.h>

#include "pctx_impl.h"

static void
default_errfn(const char *fn, const char *fmt, va_list ap)
{
	fprintf(stderr, "libpctx: pctx_%s: ", fn);
	vfprintf(stderr, fmt, ap);
}

pctx_errfn_t *
pctxlib_default_errfn(void)
{
	return default_errfn;
}

void
pctxlib_error_to(pctx_errfn_t *errfn, const char *fn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(errfn != NULL ? errfn : default_errfn)(fn, fmt, ap);
	va_end(ap);
}

void
pctxlib_error(pctx_t *pctx, const char *fn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pctx->errfn(fn, fmt, ap);
	va_end(ap);
}

void
pctxlib_verbose(pctx_t *pctx, const char *fn, const char *fmt, ...)
{
	va_list ap;

	if (!pctx->verbose)
		return;
	va_start(ap, fmt);
	pctx->errfn(fn, fmt, ap);
	va_end(ap);
}
