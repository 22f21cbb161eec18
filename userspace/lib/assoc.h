/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * assoc.h - which PPS edge does a sentence label?
 *
 * Timestamps are CLOCK_MONOTONIC_RAW nanoseconds: the edge as captured in
 * the DCD interrupt, the sentence at its first byte.  A sentence describes
 * the edge E when its delay d = t_sentence - E - offset lies in
 * [0, window).  Delays within +-margin of half a second are ambiguous
 * (is it late for this edge or early for the next?) and refused.
 *
 * Defaults: offset 0, window 400 ms, margin 100 ms.  A receiver that sends
 * its sentence before the edge it describes (some Garmin units) needs a
 * negative offset, e.g. -600 ms.
 */
#ifndef GPSPHC_ASSOC_H
#define GPSPHC_ASSOC_H

#include <stdint.h>

#include "gperr.h"

#define ASSOC_DEF_OFFSET_NS	0
#define ASSOC_DEF_WINDOW_NS	400000000LL
#define ASSOC_DEF_MARGIN_NS	100000000LL

struct assoc_cfg {
	int64_t offset_ns;	/* receiver-specific, may be negative */
	int64_t window_ns;	/* (0, 1 s] */
	int64_t margin_ns;	/* half-width of the refused band at 0.5 s */
};

enum assoc_code {
	ASSOC_OK = 0,
	ASSOC_E_NO_EDGE,	/* no edge in the window: reported, not forced */
	ASSOC_E_AMBIGUOUS,	/* delay near 0.5 s: refused */
	ASSOC_E_CONFIG,		/* configuration out of range */
};

void assoc_defaults(struct assoc_cfg *c);
int assoc_check_cfg(const struct assoc_cfg *c, struct gp_err *e);

/*
 * Given the sentence time @t_ns and @prev_ns, the last edge at or before
 * t_ns - offset (INT64_MIN for none), decide whether the sentence labels
 * that edge.  On ASSOC_OK *@edge_ns
 * is set; *@delay_ns always gets the delay from @prev_ns (or INT64_MAX).
 */
int assoc_pick(const struct assoc_cfg *c, int64_t t_ns, int64_t prev_ns,
	       int64_t *edge_ns, int64_t *delay_ns,
	       struct gp_err *e);

#endif /* GPSPHC_ASSOC_H */
