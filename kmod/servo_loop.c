// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc servo: steering the clock to the estimate (servo_est.c), the
 * states it goes through, and holdover. See servo.h.
 *
 * At each edge taken the clock is given the rate that makes it read the
 * next second exactly where the estimator predicts that edge (from the
 * edge just seen: the clock is known there, it is the caller's reading).
 * The estimate, not the capture, decides: the capture's noise reaches the
 * clock only through it.
 */

#include "servo_internal.h"

/* The clock locks within lock_ns, or this many sigmas of the inputs */
#define SV_LOCK_SIGMAS		3
/* A correction beyond the rate's reach is stepped beyond these sigmas */
#define SV_STEP_SIGMAS		8
/* Offsets kept for the RMS */
#define SV_RMS_LIMIT		268435456		/* 2^28 */

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

void gpsphc_sv_step(struct gpsphc_servo *s, s64 delta,
		    struct gpsphc_servo_out *out)
{
	out->step_ns = sv_sat_add(out->step_ns, delta);
	out->flags |= GPSPHC_SERVO_OUT_STEP;
	s->counters.steps++;
	gpsphc_sv_rms_clear(s);
	s->lock_run = 0;
}

/* Locking again: a change, a switch of input, a new label */
void gpsphc_sv_relock(struct gpsphc_servo *s)
{
	if (s->labelled)
		s->state = GPSPHC_SERVO_LOCKING;
	s->lock_run = 0;
}

/*
 * The rate of the estimate at @now: what the clock holds with no edge.
 * In holdover, the rate it entered with: a drift carried on without
 * edges to check it would grow into the clock's largest error.
 */
void gpsphc_sv_coast(struct gpsphc_servo *s, u64 now_raw,
		     struct gpsphc_servo_out *out)
{
	if (gpsphc_sv_est_ready(s) && s->state != GPSPHC_SERVO_HOLDOVER)
		s->freq = gpsphc_sv_est_adj_at(s, now_raw);
	gpsphc_sv_set_adj(s, s->freq, out);
}

void gpsphc_sv_enter_holdover(struct gpsphc_servo *s, u64 now_raw,
			      struct gpsphc_servo_out *out)
{
	gpsphc_sv_coast(s, now_raw, out);
	s->before_holdover = s->state;
	s->state = GPSPHC_SERVO_HOLDOVER;
	s->counters.holdovers++;
}

/*
 * Give the clock, which reads @phc_ns at the capture of @rec, the rate
 * that makes it read second @rec->num + 1 at the edge the estimator
 * predicts for it; or, while locking, when no rate within max_ppb can or
 * the step threshold says so, step it there and give it the estimate's
 * rate.
 */
static void sv_steer(struct gpsphc_servo *s,
		     const struct gpsphc_servo_edge_rec *rec, s64 phc_ns,
		     struct gpsphc_servo_out *out)
{
	u64 tai = s->tai_base + rec->num + 1, next, span;
	s64 max = sv_max_adj(s), need, d, adj, rate;

	/* The clock must gain d ns over the span to the next edge */
	next = gpsphc_sv_est_raw_at(s, rec->num + 1, &rate);
	span = clamp_t(u64, sv_since(next, rec->raw), SV_HALF_SEC,
		       SV_NSEC + SV_HALF_SEC);
	need = sv_sat_sub(sv_tai_ns(tai), phc_ns);
	d = sv_clamp(sv_sat_sub(need, (s64)span), (s64)span);
	/* |d| <= span: the quotient is at most 2^16 * 1e9 */
	adj = (s64)mul_u64_u64_div_u64(sv_mag(d), 65536ULL * SV_NSEC, span);
	if (d < 0)
		adj = -adj;
	/*
	 * While locking, a correction above the step threshold is stepped;
	 * so is one no rate can make in a second, once the inputs' noise is
	 * known and the correction well beyond it (else the rate slews at
	 * its limit: the first edges' latency is no reason to step).
	 */
	if (s->state == GPSPHC_SERVO_LOCKING &&
	    (sv_mag(d) > s->cfg.step_threshold_ns ||
	     (sv_mag(adj) > (u64)max && gpsphc_sv_est_noise_known(s) &&
	      sv_mag(d) > SV_STEP_SIGMAS *
	      gpsphc_sv_est_sigma(s, rec->num + 1)))) {
		/* At the estimate's rate, the clock gets there by this step */
		gpsphc_sv_step(s, sv_sat_sub(d, gpsphc_sv_scale(span, rate)), out);
		adj = rate;
	}
	gpsphc_sv_set_adj(s, adj, out);
}

/*
 * A counted input @rec, on which the clock read @phc_ns: to the
 * estimator, and once labelled the clock steered by what it made of it.
 */
void gpsphc_sv_loop(struct gpsphc_servo *s,
		    const struct gpsphc_servo_edge_rec *rec, s64 phc_ns,
		    struct gpsphc_servo_out *out)
{
	const struct gpsphc_servo_input_cfg *ic = sv_icfg(s);
	s64 off = s->offset_ns, err;
	int verdict;
	u64 bound;

	verdict = gpsphc_sv_est_input(s, rec->raw, rec->num, &err);
	if (verdict == SV_EST_HELD) {
		/* The estimate stands; the next input decides. */
		s->counters.outliers++;
		out->flags |= GPSPHC_SERVO_OUT_OUTLIER;
		if (s->labelled && s->state != GPSPHC_SERVO_HOLDOVER)
			sv_steer(s, rec, phc_ns, out);
		return;
	}
	if (!s->labelled)
		return;
	if (s->state == GPSPHC_SERVO_HOLDOVER)
		s->state = s->before_holdover;
	if (verdict == SV_EST_CHANGE) {
		s->counters.relocks++;
		gpsphc_sv_relock(s);
	}
	if (!gpsphc_sv_est_ready(s)) {
		gpsphc_sv_set_adj(s, s->freq, out);
		return;
	}
	sv_steer(s, rec, phc_ns, out);

	sv_rms_add(s, off);
	/*
	 * The clock's error at the true edge, as the estimate judges it,
	 * within lock_ns; or within the inputs' own noise once it is known
	 * (SV_LOCK_SIGMAS of the next edge's prediction): a PPS whose
	 * latency wanders by more than lock_ns (a USB adapter, a busy or
	 * virtual machine) must still lock.
	 */
	err = sv_sat_add(off, gpsphc_sv_est_phase(s));
	bound = ic->lock_ns;
	if (gpsphc_sv_est_noise_known(s))
		bound = max_t(u64, bound, SV_LOCK_SIGMAS *
			      gpsphc_sv_est_sigma(s, rec->num + 1));
	if (sv_mag(err) <= bound)
		s->lock_run++;
	else
		s->lock_run = 0;
	if (s->state == GPSPHC_SERVO_LOCKING &&
	    s->lock_run >= GPSPHC_SERVO_LOCK_EDGES)
		s->state = GPSPHC_SERVO_LOCKED;
}
