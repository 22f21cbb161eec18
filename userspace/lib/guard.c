// SPDX-License-Identifier: GPL-2.0-only
/* guard.c - anti-warp guard.  See guard.h. */
#include "guard.h"

void guard_init(struct guard *g, unsigned int n)
{
	*g = (struct guard){ .n = n ? n : 1 };
}

enum guard_verdict guard_offer(struct guard *g, int64_t second, int64_t tai,
			       int64_t pivot_tai, int64_t *expected)
{
	*expected = g->have ? g->tai + (second - g->second) : tai;
	if (tai < pivot_tai)
		return GUARD_BEFORE_PIVOT;
	if (!g->have || tai == *expected) {
		enum guard_verdict v = g->have ? GUARD_ACCEPT : GUARD_FIRST;

		g->have = true;
		g->second = second;
		g->tai = tai;
		g->cand_count = 0;
		return v;
	}
	if (g->cand_count && second == g->cand_second && tai == g->cand_tai)
		return GUARD_HOLD;	/* same input again: N counts inputs */
	if (g->cand_count && tai == g->cand_tai + (second - g->cand_second))
		g->cand_count++;
	else
		g->cand_count = 1;
	g->cand_second = second;
	g->cand_tai = tai;
	if (g->cand_count < g->n)
		return GUARD_HOLD;
	g->second = second;
	g->tai = tai;
	g->cand_count = 0;
	return GUARD_JUMP;
}
