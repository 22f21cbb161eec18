// SPDX-License-Identifier: GPL-2.0-only
/* assoc.c - edge association.  See assoc.h. */
#include <inttypes.h>

#include "assoc.h"
#include "timeconv.h"


void assoc_defaults(struct assoc_cfg *c)
{
	c->offset_ns = ASSOC_DEF_OFFSET_NS;
	c->window_ns = ASSOC_DEF_WINDOW_NS;
	c->margin_ns = ASSOC_DEF_MARGIN_NS;
}

int assoc_check_cfg(const struct assoc_cfg *c, struct gp_err *e)
{
	if (c->window_ns <= 0 || c->window_ns > NS_PER_SEC)
		return gp_err_set(e, ASSOC_E_CONFIG,
				  "association window %" PRId64 " ns is outside (0, 1 s]: use e.g. 400 ms",
				  c->window_ns);
	if (c->margin_ns < 0 || c->margin_ns >= NS_PER_SEC / 2)
		return gp_err_set(e, ASSOC_E_CONFIG,
				  "ambiguity margin %" PRId64 " ns is outside [0, 0.5 s): use e.g. 100 ms",
				  c->margin_ns);
	if (c->offset_ns <= -NS_PER_SEC || c->offset_ns >= NS_PER_SEC)
		return gp_err_set(e, ASSOC_E_CONFIG,
				  "receiver offset %" PRId64 " ns is outside (-1 s, 1 s)",
				  c->offset_ns);
	return ASSOC_OK;
}

int assoc_pick(const struct assoc_cfg *c, int64_t t_ns, int64_t prev_ns,
	       int64_t *edge_ns, int64_t *delay_ns,
	       struct gp_err *e)
{
	int64_t t = t_ns - c->offset_ns;
	int64_t d;

	*delay_ns = INT64_MAX;
	if (prev_ns == INT64_MIN || prev_ns > t)
		return gp_err_set(e, ASSOC_E_NO_EDGE,
				  "sentence at %" PRId64 " ns has no PPS edge before it: check the PPS wiring (DCD, or the GPIO line pps_gpio names) and --offset",
				  t_ns);
	d = t - prev_ns;
	*delay_ns = d;
	if (d > NS_PER_SEC / 2 - c->margin_ns &&
	    d < NS_PER_SEC / 2 + c->margin_ns)
		return gp_err_set(e, ASSOC_E_AMBIGUOUS,
				  "sentence came %" PRId64 " ms after the edge, too close to half a second to tell which edge it describes: refusing to label; set --offset to the receiver's delay",
				  d / NS_PER_MS);
	if (d >= c->window_ns)
		return gp_err_set(e, ASSOC_E_NO_EDGE,
				  "sentence came %" PRId64 " ms after the last edge, outside the %" PRId64 " ms window: a PPS edge is missing, or set --offset/--window",
				  d / NS_PER_MS, c->window_ns / NS_PER_MS);
	*edge_ns = prev_ns;
	return ASSOC_OK;
}
