// SPDX-License-Identifier: GPL-2.0-only
/* guard.c - anti-warp guard.  See guard.h. */
#include "guard.h"
#include "timeconv.h"


void guard_init(struct guard *g, unsigned int n)
{
	*g = (struct guard){ .n = n ? n : 1 };
}

int64_t guard_elapsed(int64_t a_ns, int64_t b_ns)
{
	return floor_div(b_ns - a_ns + NS_PER_SEC / 2, NS_PER_SEC);
}

enum guard_verdict guard_offer(struct guard *g, int64_t edge_ns, int64_t tai,
			       int64_t pivot_tai, int64_t *expected)
{
	*expected = g->have ? g->tai + guard_elapsed(g->edge_ns, edge_ns) : tai;
	if (tai < pivot_tai)
		return GUARD_BEFORE_PIVOT;
	if (!g->have || tai == *expected) {
		enum guard_verdict v = g->have ? GUARD_ACCEPT : GUARD_FIRST;

		g->have = true;
		g->edge_ns = edge_ns;
		g->tai = tai;
		g->cand_count = 0;
		return v;
	}
	if (g->cand_count && edge_ns == g->cand_edge_ns && tai == g->cand_tai)
		return GUARD_HOLD;	/* same edge again: N counts edges */
	if (g->cand_count &&
	    tai == g->cand_tai + guard_elapsed(g->cand_edge_ns, edge_ns))
		g->cand_count++;
	else
		g->cand_count = 1;
	g->cand_edge_ns = edge_ns;
	g->cand_tai = tai;
	if (g->cand_count < g->n)
		return GUARD_HOLD;
	g->edge_ns = edge_ns;
	g->tai = tai;
	g->cand_count = 0;
	return GUARD_JUMP;
}
