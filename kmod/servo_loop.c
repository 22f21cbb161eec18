// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc servo: the loop that steers the clock from the offsets of
 * labelled inputs, and holdover. See servo.h.
 */

#include "servo_internal.h"

/* Offsets kept for the RMS */
#define SV_RMS_LIMIT		268435456		/* 2^28 */
/* Weight of the newest offset in @var, once the servo has seen 16 */
#define SV_VAR_EDGES		16
/* Trend detection, see gpsphc_sv_loop() */
#define SV_TREND_LO		2
#define SV_TREND_HI		3
#define SV_TREND_RUN		3
#define SV_TREND_GEAR		0
#define SV_VAR_CLIP		3
/* Accepted offsets in gear g before shifting to g + 1: 4 << g */
#define SV_GEAR_HOLD		4U

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
 * Running mean of the squared offsets, then 1/16 per edge. Once it has
 * a few, each square is clipped at (3 RMS)^2: the filter follows noise
 * that grows, but a trend cannot hide itself by inflating the RMS.
 */
static void sv_var_add(struct gpsphc_servo *s, s64 off)
{
	u64 m = sv_mag(sv_clamp(off, SV_RMS_LIMIT));
	u64 sq = m * m;
	u32 w;

	if (s->var_n >= GPSPHC_SERVO_LOCK_EDGES &&
	    sq > SV_VAR_CLIP * SV_VAR_CLIP * s->var)
		sq = SV_VAR_CLIP * SV_VAR_CLIP * s->var;
	if (s->var_n < SV_VAR_EDGES)
		s->var_n++;
	w = s->var_n;
	if (sq >= s->var)
		s->var += div_u64(sq - s->var, w);
	else
		s->var -= div_u64(s->var - sq, w);
}

static u64 sv_sigma(const struct gpsphc_servo *s)
{
	return int_sqrt64(s->var);
}

static u64 sv_outlier_bound(const struct gpsphc_servo *s)
{
	const struct gpsphc_servo_input_cfg *ic = sv_icfg(s);

	return max_t(u64, ic->outlier_min_ns, ic->outlier_k * sv_sigma(s));
}

void gpsphc_sv_step(struct gpsphc_servo *s, s64 delta,
		    struct gpsphc_servo_out *out)
{
	out->step_ns = sv_sat_add(out->step_ns, delta);
	out->flags |= GPSPHC_SERVO_OUT_STEP;
	s->counters.steps++;
	gpsphc_sv_rms_clear(s);
	s->prev_off = 0;
	s->lock_run = 0;
}

/* Back to the fastest gear, converging again */
void gpsphc_sv_relock(struct gpsphc_servo *s, u32 gear)
{
	s->state = GPSPHC_SERVO_LOCKING;
	s->gear = min_t(u64, gear, sv_icfg(s)->max_gear);
	s->gear_edges = 0;
	s->lock_run = 0;
	s->rejects = 0;
	s->var_n = 0;
	s->prev_off = 0;
}

/*
 * The rate to hold: the loop's integral term, unless the loop is still in
 * its fast gears, where each noisy offset moves that term by ki times
 * the offset; then the history's fit over the last inputs is the better
 * estimate of the receiver's rate.
 */
void gpsphc_sv_enter_holdover(struct gpsphc_servo *s,
			      struct gpsphc_servo_out *out)
{
	struct gpsphc_servo_edge_rec *last = NULL;
	u64 raw_at;
	s64 freq;
	u32 i;

	/* The newest counted input is the last one, s->last_raw's. */
	for (i = s->hist_len; i-- > 0 && !last;)
		if (gpsphc_sv_hist_at(s, i)->counted)
			last = gpsphc_sv_hist_at(s, i);
	if (s->gear < SV_EST_FULL_GEAR && last &&
	    gpsphc_sv_estimate(s, last, &freq, &raw_at) >= SV_EST_GOOD)
		s->freq = freq;
	s->before_holdover = s->state;
	s->state = GPSPHC_SERVO_HOLDOVER;
	s->counters.holdovers++;
	sv_set_adj(s, s->freq, out);
}

/*
 * Labelled with little history (fewer than SV_EST_GOOD inputs): while the
 * history grows, its estimates of the rate and of the phase beat what a
 * loop can learn from so few offsets, so they drive the clock directly:
 * the rate is the estimate's, and the estimated phase error is taken out
 * over the next second. False if the history gave no better estimate.
 */
static bool sv_early(struct gpsphc_servo *s,
		     const struct gpsphc_servo_edge_rec *rec, s64 off,
		     struct gpsphc_servo_out *out)
{
	u64 raw_at = rec->raw;
	s64 freq, phase;
	u32 used;

	used = gpsphc_sv_estimate(s, rec, &freq, &raw_at);
	if (used <= s->est_n)
		return false;
	s->est_n = used;
	s->freq = freq;
	phase = sv_clamp(sv_sat_add(off, (s64)(raw_at - rec->raw)),
			 SV_OFF_LIMIT);
	sv_set_adj(s, freq - phase * GPSPHC_SERVO_ADJ_PER_PPB, out);
	return true;
}

/* The PI loop on one accepted, labelled offset at input @rec */
void gpsphc_sv_loop(struct gpsphc_servo *s,
		    const struct gpsphc_servo_edge_rec *rec, s64 off,
		    struct gpsphc_servo_out *out)
{
	const struct gpsphc_servo_input_cfg *ic = sv_icfg(s);
	s64 o = sv_clamp(off, SV_OFF_LIMIT);
	s64 max = sv_max_adj(s);
	u64 mag = sv_mag(off);
	u64 sigma, lock_bound;
	s64 kp, ki;

	if (s->state == GPSPHC_SERVO_HOLDOVER) {
		/* back to where it was: a loop still locking stays so */
		if (mag <= sv_outlier_bound(s) && s->var_n) {
			s->state = s->before_holdover;
		} else {
			u64 var = s->var;
			u32 var_n = s->var_n;

			gpsphc_sv_relock(s, 0);
			/* The input is as noisy as before the pulses stopped. */
			s->var = var;
			s->var_n = var_n;
		}
	} else if (s->state == GPSPHC_SERVO_LOCKED && ic->outlier_k &&
		   mag > sv_outlier_bound(s)) {
		if (s->rejects < s->cfg.outlier_max) {
			s->rejects++;
			s->counters.outliers++;
			out->flags |= GPSPHC_SERVO_OUT_OUTLIER;
			sv_set_adj(s, s->freq, out);
			return;
		}
		s->counters.relocks++;
		gpsphc_sv_relock(s, 0);
	}
	s->rejects = 0;

	if (s->state == GPSPHC_SERVO_LOCKING && mag > s->cfg.step_threshold_ns) {
		gpsphc_sv_step(s, sv_sat_sub(0, off), out);
		sv_set_adj(s, s->freq, out);
		return;
	}

	/*
	 * Gears: a trend means the rate moved: back to a fast gear. A trend
	 * is SV_TREND_RUN offsets in a row beyond SV_TREND_LO RMS the same
	 * way, or two beyond SV_TREND_HI RMS. Else after SV_GEAR_HOLD << g
	 * offsets within lock_ns, one gear slower.
	 */
	sigma = max_t(u64, sv_sigma(s), 1);
	/*
	 * "Within lock_ns", or within the input's own noise once that is
	 * known: a PPS whose interrupt latency wanders by more than lock_ns
	 * (a USB adapter, a busy or virtual machine) must still lock and
	 * reach the slow gears, which filter that noise, rather than sit on
	 * the fast ones that pass it to the clock. Not while the rate is at
	 * its limit: then the offsets grow, and that is no noise.
	 */
	lock_bound = s->var_n >= GPSPHC_SERVO_LOCK_EDGES &&
		     sv_mag(s->freq) < (u64)max ?
		     max_t(u64, ic->lock_ns, SV_TREND_HI * sigma) : ic->lock_ns;
	if (mag <= SV_TREND_LO * sigma || !s->var_n)
		s->trend_run = 0;
	else if (s->trend_run && (o ^ s->prev_off) >= 0)
		s->trend_run++;
	else
		s->trend_run = 1;
	if (s->var_n >= GPSPHC_SERVO_LOCK_EDGES &&
	    (s->trend_run >= SV_TREND_RUN ||
	     (s->trend_run >= 2 && mag > SV_TREND_HI * sigma &&
	      sv_mag(s->prev_off) > SV_TREND_HI * sigma))) {
		if (s->gear > SV_TREND_GEAR)
			s->gear = SV_TREND_GEAR;
		s->gear_edges = 0;
		s->trend_run = 0;
	} else if (mag <= lock_bound && s->gear < ic->max_gear &&
		   ++s->gear_edges >= (SV_GEAR_HOLD << s->gear)) {
		s->gear++;
		s->gear_edges = 0;
	}

	if (s->est_n < SV_EST_GOOD && sv_early(s, rec, off, out)) {
		/* stay in the gear the loop takes over in */
		s->gear = min_t(u64, SV_EST_GOOD_GEAR, ic->max_gear);
		s->gear_edges = 0;
	} else {
		kp = ic->kp >> s->gear;
		ki = ic->ki >> (2 * s->gear);
		s->freq = sv_clamp(s->freq - ki * o, max);
		sv_set_adj(s, s->freq - kp * o, out);
	}

	sv_rms_add(s, o);
	sv_var_add(s, o);
	s->prev_off = o;
	/* Within lock_ns is good enough, trend or not: that is the contract. */
	if (mag <= ic->lock_ns || (mag <= lock_bound && !s->trend_run))
		s->lock_run++;
	else
		s->lock_run = 0;
	if (s->state == GPSPHC_SERVO_LOCKING &&
	    s->lock_run >= GPSPHC_SERVO_LOCK_EDGES)
		/* The noise estimate carries on: it is the input's, not the state's. */
		s->state = GPSPHC_SERVO_LOCKED;
}
