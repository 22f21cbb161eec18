/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gperr.h - error reports of the gpsphc userspace library.
 *
 * Every function of the library that can fail fills a struct gp_err: a code
 * (the module's own enum, cast to int) and a sentence for humans that says
 * what was wrong, with the value, and what to do.  No errno, no globals.
 */
#ifndef GPSPHC_GPERR_H
#define GPSPHC_GPERR_H

#include <stdarg.h>

#define GP_ERR_MSG_LEN 320

struct gp_err {
	int code;			/* module enum, 0 means no error */
	char msg[GP_ERR_MSG_LEN];	/* human-readable reason */
};

/* Set @e (may be NULL) to @code and a formatted reason; returns @code. */
int gp_err_set(struct gp_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline void gp_err_clear(struct gp_err *e)
{
	if (e) {
		e->code = 0;
		e->msg[0] = '\0';
	}
}

#endif /* GPSPHC_GPERR_H */
