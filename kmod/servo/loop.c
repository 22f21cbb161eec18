// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc servo: what every estimator's loop shares: the RMS of the
 * offsets, steps, relocks, holdover and the LOCKED rule. The estimator
 * (bank.c, pi.c) decides the rate; this file keeps the states the same
 * whichever one runs.
 */

#include "internal.h"

/* Offsets kept for the RMS */
#define SV_RMS_LIMIT		268435456		/* 2^28 */
/*
 * The noise estimate forgets 1/64 per edge; after 16 edges, second
 * differences beyond 3 sigmas are clipped in it.
 */
#define SV_NOISE_EDGES		64U
#define SV_NOISE_CLIP_AFTER	16U
#define SV_NOISE_CLIP		3U
/* Offsets within this many sigmas of the capture noise count as locked */
#define SV_LOCK_SIGMAS		3U
/*
 * The median of |d| for a Gaussian d of sigma 1 is 0.6745, and the
 * interval between two edges has sqrt(2) times the sigma of their noise:
 * the noise's variance is the median absolute deviation of the intervals,
 * squared, times 100 / SV_MAD_TO_VAR (0.6745^2 * 2 = 0.91).
 */
#define SV_MAD_TO_VAR		91U
/*
 * On the way into LOCKED, the mean of the last offsets must be within
 * SV_LOCK_MEAN_LOCK_NS lock_ns or SV_LOCK_MEAN_SIGMAS of those sigmas: a
 * loop milliseconds off its pulses, as after a spike among its first
 * edges, is not locked, one that tens of microseconds of latency on its
 * first edges keep that far off for a while is.
 */
#define SV_LOCK_MEAN_LOCK_NS	10U
#define SV_LOCK_MEAN_SIGMAS	8U

void gpsphc_sv_mean_add(u64 *mean, u64 sq, u32 n, u32 w)
{
	u32 k = min(n, w);
	u64 step = sq >= *mean ? sq - *mean : *mean - sq;

	step = k == w ? step >> ilog2(w) : div_u64(step, k);
	if (sq >= *mean)
		*mean += step;
	else
		*mean -= step;
}

void gpsphc_sv_noise_add(u64 *r, u32 *r_n, s64 d2)
{
	u64 m = min_t(u64, sv_mag(d2), 1ULL << 30);
	u64 sq = div_u64(m * m, 6);

	if (*r_n >= SV_NOISE_CLIP_AFTER &&
	    sq > SV_NOISE_CLIP * SV_NOISE_CLIP * *r)
		sq = SV_NOISE_CLIP * SV_NOISE_CLIP * *r;
	if (*r_n < SV_NOISE_EDGES)
		++*r_n;
	gpsphc_sv_mean_add(r, sq, *r_n, SV_NOISE_EDGES);
}

void gpsphc_sv_rms_clear(struct gpsphc_servo *s)
{
	s->rms_pos = 0;
	s->rms_len = 0;
	s->rms_sum = 0;
	s->rms_ns = 0;
}

static void sv_rms_add(struct gpsphc_servo *s, s64 off)
{
	s32 v = (s32)sv_clamp(off, SV_RMS_LIMIT);
	s32 old = s->rms_ring[s->rms_pos];

	if (s->rms_len == GPSPHC_SERVO_RMS_EDGES)
		s->rms_sum -= (u64)((s64)old * old);
	else
		s->rms_len++;
	s->rms_ring[s->rms_pos] = v;
	s->rms_sum += (u64)((s64)v * v);
	s->rms_pos = (s->rms_pos + 1) % GPSPHC_SERVO_RMS_EDGES;
	s->rms_ns = int_sqrt64(div_u64(s->rms_sum, s->rms_len));
}

/*
 * "Within lock_ns", or within the input's own noise once that is known:
 * a PPS whose interrupt latency wanders by more than lock_ns (a USB
 * adapter, a busy or virtual machine) must still lock. Not while the rate
 * is at its limit: then the offsets grow, and that is no noise.
 */
bool gpsphc_sv_in_noise(const struct gpsphc_servo *s, s64 off, u64 r,
			u32 r_n)
{
	u64 mag = min_t(u64, sv_mag(off), 1ULL << 31);

	return r_n >= GPSPHC_SERVO_LOCK_EDGES &&
	       sv_mag(s->freq) < (u64)sv_max_adj(s) &&
	       mag * mag <= SV_LOCK_SIGMAS * SV_LOCK_SIGMAS * r;
}

/* Sort @v (@n values, at least 1) and return its median */
static s64 sv_median(s64 *v, u32 n)
{
	gpsphc_sv_sort(v, n);
	return n & 1 ? v[n / 2] : v[n / 2 - 1] / 2 + v[n / 2] / 2;
}

u64 gpsphc_sv_noise_median(const struct gpsphc_servo *s)
{
	const struct gpsphc_servo_edge_rec *a, *b;
	s64 d[GPSPHC_SERVO_HISTORY], mid, mad;
	u32 i, n = 0;

	for (i = 1; i < s->hist_len; i++) {
		a = &s->hist[(s->hist_head + i - 1) % GPSPHC_SERVO_HISTORY];
		b = &s->hist[(s->hist_head + i) % GPSPHC_SERVO_HISTORY];
		if (a->coarse != s->coarse || b->coarse != s->coarse ||
		    b->num != a->num + 1 || b->raw <= a->raw)
			continue;
		d[n++] = (s64)min_t(u64, b->raw - a->raw, 1ULL << 40);
	}
	if (n < GPSPHC_SERVO_LOCK_EDGES)
		return 0;
	mid = sv_median(d, n);
	for (i = 0; i < n; i++)
		d[i] = min_t(s64, abs(d[i] - mid), 1LL << 28);
	mad = sv_median(d, n);
	/* mad < 2^28: the product stays below 2^63 */
	return div_u64((u64)(mad * mad) * 100, SV_MAD_TO_VAR);
}

/*
 * Is the mean of the last GPSPHC_SERVO_LOCK_EDGES offsets, which each
 * passed for locked, near enough (SV_LOCK_MEAN_LOCK_NS) or within the
 * noise @var that the history's median tells? A loop still far from the
 * pulses is off by the same much, edge after edge; noise scatters, and
 * one late edge of a long tail weighs a quarter. Only asked on the way
 * into LOCKED.
 */
static bool sv_offsets_in_noise(const struct gpsphc_servo *s, u64 var)
{
	s64 sum = 0;
	u64 mag;
	u32 i, pos;

	for (i = 1; i <= GPSPHC_SERVO_LOCK_EDGES; i++) {
		pos = (s->rms_pos + GPSPHC_SERVO_RMS_EDGES - i) %
		      GPSPHC_SERVO_RMS_EDGES;
		sum += s->rms_ring[pos];
	}
	/* offsets within 2^28: the mean's square below 2^56 */
	mag = div_u64(sv_mag(sum), GPSPHC_SERVO_LOCK_EDGES);
	return mag <= SV_LOCK_MEAN_LOCK_NS * sv_icfg(s)->lock_ns ||
	       mag * mag <= SV_LOCK_MEAN_SIGMAS * SV_LOCK_MEAN_SIGMAS * var;
}

void gpsphc_sv_take_offset(struct gpsphc_servo *s, s64 off, bool in_noise)
{
	sv_rms_add(s, off);
	if (sv_mag(off) <= sv_icfg(s)->lock_ns || in_noise)
		s->lock_run++;
	else
		s->lock_run = 0;
	if (s->state == GPSPHC_SERVO_LOCKING &&
	    s->lock_run >= GPSPHC_SERVO_LOCK_EDGES &&
	    sv_offsets_in_noise(s, gpsphc_sv_noise_median(s)))
		s->state = GPSPHC_SERVO_LOCKED;
}

void gpsphc_sv_step(struct gpsphc_servo *s, s64 delta,
		    struct gpsphc_servo_out *out)
{
	out->step_ns = sv_sat_add(out->step_ns, delta);
	out->flags |= GPSPHC_SERVO_OUT_STEP;
	s->counters.steps++;
	gpsphc_sv_rms_clear(s);
	s->lock_run = 0;
}

/* Converging again; the estimator starts again at the next edge it takes */
void gpsphc_sv_relock(struct gpsphc_servo *s)
{
	s->state = GPSPHC_SERVO_LOCKING;
	s->lock_run = 0;
	s->rejects = 0;
	s->est->relock(s);
}

/* The rate to hold: the estimator's, the fitted trend of the pulses */
void gpsphc_sv_enter_holdover(struct gpsphc_servo *s,
			      struct gpsphc_servo_out *out)
{
	s->before_holdover = s->state;
	s->state = GPSPHC_SERVO_HOLDOVER;
	s->counters.holdovers++;
	sv_set_adj(s, s->freq, out);
}

bool gpsphc_sv_locked(const struct gpsphc_servo *s)
{
	return s->state == GPSPHC_SERVO_LOCKED ||
	       (s->state == GPSPHC_SERVO_HOLDOVER &&
		s->before_holdover == GPSPHC_SERVO_LOCKED);
}
