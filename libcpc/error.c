/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Error reporting: subcodes, their default texts, and the handler.
 */
#include <errno.h>
#include <stdio.h>

#include "cpc_impl.h"

static const char *const subcode_texts[] = {
	[CPC_INVALID_EVENT] = "Unknown event",
	[CPC_INVALID_PICNUM] = "Invalid counter number",
	[CPC_INVALID_ATTRIBUTE] = "Unknown attribute",
	[CPC_ATTRIBUTE_OUT_OF_RANGE] = "Attribute out of range",
	[CPC_RESOURCE_UNAVAIL] = "Hardware resource unavailable",
	[CPC_PIC_NOT_CAPABLE] = "Counter cannot count requested event",
	[CPC_REQ_INVALID_FLAGS] = "Invalid flags in a request",
	[CPC_CONFLICTING_REQS] = "Requests conflict with each other",
	[CPC_ATTR_REQUIRES_PRIVILEGE] =
	    "Attribute requires the cpc_cpu privilege",
	[CPC_PBIND_FAILED] = "Couldn't bind LWP to requested processor",
	[CPC_HV_NO_ACCESS] = "Hypervisor event access denied",
};

const char *
cpc_subcode_text(int subcode)
{
	if (subcode == CPC_OVF_RECORDS_LOST)
		return "Overflow records lost";
	if (subcode == CPC_COUNTERS_HELD)
		return "The CPU's counters are held by others";
	if (subcode <= 0 ||
	    subcode >= (int)(sizeof(subcode_texts) / sizeof(subcode_texts[0])))
		return NULL;
	return subcode_texts[subcode];
}

static void
default_errfn(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)subcode;
	fprintf(stderr, "libcpc: %s: ", fn);
	vfprintf(stderr, fmt, ap);
}

static void
call_handler(cpc_t *cpc, const char *fn, int subcode, const char *fmt, ...)
{
	cpc_errhndlr_t *handler =
	    cpc != NULL && cpc->errfn != NULL ? cpc->errfn : default_errfn;
	va_list ap;

	va_start(ap, fmt);
	handler(fn, subcode, fmt, ap);
	va_end(ap);
}

/* Report an error with its own message; errno survives the handler. */
void
cpclib_err(cpc_t *cpc, const char *fn, int subcode, const char *fmt, ...)
{
	cpc_errhndlr_t *handler =
	    cpc != NULL && cpc->errfn != NULL ? cpc->errfn : default_errfn;
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	handler(fn, subcode, fmt, ap);
	va_end(ap);
	errno = saved;
}

/* Report a subcode with its default text. */
void
cpclib_err_subcode(cpc_t *cpc, const char *fn, int subcode)
{
	int saved = errno;

	call_handler(cpc, fn, subcode, "%s\n", cpc_subcode_text(subcode));
	errno = saved;
}

int
cpc_seterrhndlr(cpc_t *cpc, cpc_errhndlr_t *fn)
{
	cpc->errfn = fn;
	return 0;
}
