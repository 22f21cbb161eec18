/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * guard.h - anti-warp guard.
 *
 * The running time is the last accepted label extrapolated one second per
 * second of edge timestamps.  A new label that agrees with it is accepted.
 * One that disagrees (a jump by a whole number of seconds, forwards or
 * backwards) is held: it replaces the running time only after N
 * consecutive edges whose labels agree with each other (default 3, so a
 * single wrong sentence never changes anything; several sentences for one
 * edge count once).  Nothing before the pivot is
 * ever accepted.  The first label is accepted as it is (after the pivot).
 */
#ifndef GPSPHC_GUARD_H
#define GPSPHC_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#define GUARD_DEF_N	3

struct guard {
	unsigned int n;			/* consecutive labels to accept a jump */
	bool have;			/* running time known */
	int64_t edge_ns, tai;		/* last accepted label */
	unsigned int cand_count;	/* candidates so far, 0: none */
	int64_t cand_edge_ns, cand_tai;	/* last candidate */
};

enum guard_verdict {
	GUARD_ACCEPT = 0,	/* agrees with the running time */
	GUARD_FIRST,		/* first label: accepted */
	GUARD_JUMP,		/* N consistent labels: jump accepted */
	GUARD_HOLD,		/* disagrees: held, label not used */
	GUARD_BEFORE_PIVOT,	/* before the pivot: refused */
};

void guard_init(struct guard *g, unsigned int n);

/*
 * Offer the label @tai (PTP seconds) for the edge at @edge_ns.  @expected
 * gets the running time for that edge (or @tai when there is none).
 */
enum guard_verdict guard_offer(struct guard *g, int64_t edge_ns, int64_t tai,
			       int64_t pivot_tai, int64_t *expected);

/* Seconds from edge @a_ns to edge @b_ns, rounded to the nearest second. */
int64_t guard_elapsed(int64_t a_ns, int64_t b_ns);

#endif /* GPSPHC_GUARD_H */
