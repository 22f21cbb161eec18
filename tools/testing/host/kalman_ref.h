/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reference estimator of servo_bench: a two-state Kalman filter of
 * the pulses in raw time, given the noise parameters (the truth for a
 * random walk, or the best in hindsight for anything else). What no
 * servo can beat on average when the model holds, so a yardstick.
 * Floating point, host only.
 *
 * State: @a, the raw time of the true edge @k (relative to @origin), and
 * @p, the raw ns per true second. The raw clock's rate makes a random
 * walk with variance @q (ns^2, i.e. ppb^2) per second; each capture adds
 * white noise of variance @r (ns^2).
 */
#ifndef _KALMAN_REF_H
#define _KALMAN_REF_H

#include <stdbool.h>
#include <stdint.h>

struct kalman_ref {
	double q, r;
	bool started;
	uint64_t origin;
	uint64_t k;
	double a, p;
	double P[2][2];
};

void kalman_ref_init(struct kalman_ref *f, double q, double r);
/* Carry the state to edge @k, then take its capture @raw if @use. */
void kalman_ref_edge(struct kalman_ref *f, uint64_t k, bool use, uint64_t raw);
/* The predicted raw time of edge @k (after the last one given), ns */
double kalman_ref_raw_at(const struct kalman_ref *f, uint64_t k);

#endif /* _KALMAN_REF_H */
