/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc servo, internal: what the servo's files share. The servo is
 * split by concern:
 *
 * - servo.c: settings and the entry points (an input, a tick, a reset);
 * - servo_count.c: counting seconds: which inputs start one, their edge
 *   numbers, the history of counted inputs;
 * - servo_label.c: labels, and the confirmation a change of the count
 *   needs;
 * - servo_est.c: the robust estimate of the pulses' rate and phase from
 *   the history;
 * - servo_loop.c: the loop that steers the clock, and holdover.
 *
 * Nothing here is for the servo's users: they include servo.h.
 */
#ifndef _GPSPHC_SERVO_INTERNAL_H
#define _GPSPHC_SERVO_INTERNAL_H

#include "servo.h"

#define SV_NSEC			1000000000U
#define SV_HALF_SEC		500000000U
/* Offsets in the loop, and most ns settings */
#define SV_OFF_LIMIT		1099511627776LL		/* 2^40 */
/* Largest TAI second: its ns, plus up to a second, fit in s64. */
#define SV_TAI_SEC_MAX		9223372035ULL

/* |@v| as u64: abs() of S64_MIN overflows. */
static inline u64 sv_mag(s64 v)
{
	return v < 0 ? 0 - (u64)v : (u64)v;
}

static inline s64 sv_clamp(s64 v, s64 limit)
{
	return clamp(v, -limit, limit);
}

static inline s64 sv_sat_add(s64 a, s64 b)
{
	s64 sum;

	if (check_add_overflow(a, b, &sum))
		return b > 0 ? S64_MAX : S64_MIN;
	return sum;
}

static inline s64 sv_sat_sub(s64 a, s64 b)
{
	s64 diff;

	if (check_sub_overflow(a, b, &diff))
		return b < 0 ? S64_MAX : S64_MIN;
	return diff;
}

/* @a - @b, or 0 if @b is later */
static inline u64 sv_since(u64 a, u64 b)
{
	return a > b ? a - b : 0;
}

static inline s64 sv_tai_ns(u64 tai_sec)
{
	if (tai_sec > SV_TAI_SEC_MAX)
		return S64_MAX;
	return (s64)tai_sec * SV_NSEC;
}

static inline const struct gpsphc_servo_input_cfg *
sv_icfg(const struct gpsphc_servo *s)
{
	return s->coarse ? &s->cfg.coarse : &s->cfg.pps;
}

static inline s64 sv_max_adj(const struct gpsphc_servo *s)
{
	return (s64)s->cfg.max_ppb * GPSPHC_SERVO_ADJ_PER_PPB;
}

/*
 * What a call returns: begun with the state before it, ended with the
 * state after it (flagging a change). Inline, so that every file of the
 * servo can report without calling the entry points' file.
 */
static inline void sv_out_begin(const struct gpsphc_servo *s,
				struct gpsphc_servo_out *out)
{
	*out = (struct gpsphc_servo_out){ .state = s->state };
}

static inline void sv_out_end(const struct gpsphc_servo *s,
			      struct gpsphc_servo_out *out)
{
	if (out->state != s->state)
		out->flags |= GPSPHC_SERVO_OUT_STATE;
	out->state = s->state;
	out->offset_ns = s->offset_ns;
	if (s->coarse)
		out->flags |= GPSPHC_SERVO_OUT_COARSE;
	out->rms_ns = s->rms_ns;
	if (!s->off_phase_run)
		return;
	out->off_phase_n = s->off_phase_run;
	out->off_phase_ns = s->off_phase_ns;
	if (s->off_phase_run >= 2)
		out->flags |= GPSPHC_SERVO_OUT_OFF_PHASE;
}

/* The clock's new rate, within max_ppb, for the caller to apply. */
static inline void sv_set_adj(struct gpsphc_servo *s, s64 adj,
			      struct gpsphc_servo_out *out)
{
	s->adj = sv_clamp(adj, sv_max_adj(s));
	out->adj = s->adj;
	out->flags |= GPSPHC_SERVO_OUT_ADJ;
}

/* servo_count.c */
u64 gpsphc_sv_raw_to_true(u64 d, s64 adj);
void gpsphc_sv_hist_push(struct gpsphc_servo *s,
			 const struct gpsphc_servo_edge_rec *rec);
struct gpsphc_servo_edge_rec *gpsphc_sv_hist_at(struct gpsphc_servo *s, u32 k);
bool gpsphc_sv_count(struct gpsphc_servo *s, struct gpsphc_servo_edge_rec *rec,
		     s64 phc_ns, bool switched);

/* servo_est.c */
u32 gpsphc_sv_estimate(struct gpsphc_servo *s,
		       const struct gpsphc_servo_edge_rec *at,
		       s64 *period, u64 *raw_at);
s64 gpsphc_sv_period_freq(const struct gpsphc_servo *s, s64 period);

/* servo_loop.c */
void gpsphc_sv_rms_clear(struct gpsphc_servo *s);
void gpsphc_sv_step(struct gpsphc_servo *s, s64 delta,
		    struct gpsphc_servo_out *out);
void gpsphc_sv_relock(struct gpsphc_servo *s);
void gpsphc_sv_enter_holdover(struct gpsphc_servo *s,
			      struct gpsphc_servo_out *out);
void gpsphc_sv_loop(struct gpsphc_servo *s,
		    const struct gpsphc_servo_edge_rec *rec, s64 off,
		    struct gpsphc_servo_out *out);

#endif /* _GPSPHC_SERVO_INTERNAL_H */
