/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * guard.h - anti-warp guard.
 *
 * The running time is the last accepted label extrapolated by the kernel's
 * count of seconds: each input that starts a second has its number in that
 * count (live mode reads it from the input's notification; see
 * pipeline.h), so the guard counts no seconds of its own.  A new label that agrees with it is accepted.
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
	int64_t second, tai;		/* last accepted label */
	unsigned int cand_count;	/* candidates so far, 0: none */
	int64_t cand_second, cand_tai;	/* last candidate */
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
 * Offer the label @tai (PTP seconds) for the input numbered @second in the
 * kernel's count.  @expected gets the running time for that input (or
 * @tai when there is none).
 */
enum guard_verdict guard_offer(struct guard *g, int64_t second, int64_t tai,
			       int64_t pivot_tai, int64_t *expected);

#endif /* GPSPHC_GUARD_H */
