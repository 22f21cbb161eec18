// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>

#include "gperr.h"

int gp_err_set(struct gp_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return code;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}
