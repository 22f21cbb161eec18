// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc servo: linuxptp's PI servo as an estimator
 * (%GPSPHC_CLOCK_SERVO_PI), for users who want the servo they know.
 *
 * It follows linuxptp's pi.c (pi_sample()) with the gains ptp4l gives a
 * hardware clock at one sample a second (kp = 0.7, ki = 0.3):
 *
 * - the first offset is kept;
 * - the second sets the drift (the rate) from the change of the offset
 *   between the two, and steps the clock if it is beyond the step
 *   threshold while LOCKING;
 * - from then on the rate is kp * offset + drift + ki * offset, and the
 *   drift takes ki * offset unless the rate is at its limit (linuxptp's
 *   anti-windup).
 *
 * Offsets are the clock minus the truth, so the rate takes them with the
 * opposite sign to linuxptp's (which negates its result when it sets the
 * frequency). As in linuxptp there is no outlier rejection: an offset
 * beyond the step threshold starts the servo again (a relock) and is
 * stepped. The servo's counting, labels, holdover and states are those
 * of every estimator (servo.c, loop.c).
 *
 * Ranges: offsets are saturated to +-2^40 ns, so an offset times 7 * 2^16
 * stays below 2^59; rates stay within max_ppb (< 2^36 in 2^-16 ppb).
 */

#include "internal.h"

/* kp = 7 / 10, ki = 3 / 10: ptp4l's pi for hardware time stamps at 1 Hz */
#define SV_PI_KP		7
#define SV_PI_KI		3
#define SV_PI_GAIN_DIV		10

/* @off (ns) times @gain / 10, as a rate correction in 2^-16 ppb */
static s64 sv_pi_term(s64 off, s32 gain)
{
	return div_s64(off * GPSPHC_SERVO_ADJ_PER_PPB * gain, SV_PI_GAIN_DIV);
}

/*
 * The change of the drift (2^-16 ppb) that the offset's move by @d ns in
 * @dt raw ns asks for, as linuxptp's (1e9 - drift) * d / dt with the
 * clock's sign: @d / @dt of 1e9 and of @drift; saturated to max_ppb.
 */
static s64 sv_pi_rate(const struct gpsphc_servo *s, s64 drift, s64 d, u64 dt)
{
	u64 lim = (u64)sv_max_adj(s), mag = sv_mag(d), r, by_drift;

	/* Beyond 1000 ppm (> max_ppb): saturated, and no quotient is large */
	if (mag >= div64_u64(dt, 1000) + 1)
		return d < 0 ? -(s64)lim : (s64)lim;
	/* Both < 2^36 now; |drift| < 1000 ppm, so by_drift <= r */
	r = mul_u64_u64_div_u64(mag * GPSPHC_SERVO_ADJ_PER_PPB, SV_NSEC, dt);
	by_drift = mul_u64_u64_div_u64(mag, sv_mag(drift), dt);
	r = drift < 0 ? r - by_drift : r + by_drift;
	r = min(r, lim);
	return d < 0 ? -(s64)r : (s64)r;
}

/* The capture noise, from edges a second apart by the count */
static void sv_pi_noise(struct gpsphc_servo_pi *p,
			const struct gpsphc_servo_edge_rec *rec)
{
	bool next = p->n && rec->num == p->last_num + 1 &&
		    rec->raw > p->last_raw;

	if (next && p->prev_ok)
		gpsphc_sv_noise_add(&p->r, &p->r_n,
				    (s64)(rec->raw - p->last_raw) -
				    (s64)(p->last_raw - p->prev_raw));
	p->prev_ok = next;
	p->prev_raw = p->last_raw;
	p->last_raw = rec->raw;
	p->last_num = rec->num;
}

static void sv_pi_sample(struct gpsphc_servo *s,
			 const struct gpsphc_servo_edge_rec *rec, s64 off,
			 struct gpsphc_servo_out *out)
{
	struct gpsphc_servo_pi *p = &s->pi;
	bool jump = sv_mag(off) > s->cfg.step_threshold_ns;
	s64 ki_term, rate;

	off = sv_clamp(off, SV_OFF_LIMIT);
	if (s->state == GPSPHC_SERVO_HOLDOVER) {
		if (jump)
			gpsphc_sv_relock(s);
		else
			s->state = s->before_holdover;
	} else if (s->state == GPSPHC_SERVO_LOCKED && jump) {
		/* linuxptp: beyond the step threshold, the servo resets */
		s->counters.relocks++;
		gpsphc_sv_relock(s);
	}
	sv_pi_noise(p, rec);

	switch (p->n) {
	case 0:
		p->drift = s->freq;
		p->off0 = off;
		p->raw0 = rec->raw;
		p->n = 1;
		if (s->state == GPSPHC_SERVO_LOCKING && jump) {
			gpsphc_sv_step(s, sv_sat_sub(0, off), out);
			p->off0 = 0;
		}
		sv_set_adj(s, p->drift, out);
		return;
	case 1:
		if (rec->raw <= p->raw0) {
			p->n = 0;
			return;
		}
		p->drift = sv_clamp(p->drift -
				    sv_pi_rate(s, p->drift, off - p->off0,
					       rec->raw - p->raw0),
				    sv_max_adj(s));
		p->n = 2;
		s->freq = p->drift;
		sv_set_adj(s, p->drift, out);
		/* linuxptp's SERVO_JUMP: the stepped offset is no sample */
		if (s->state == GPSPHC_SERVO_LOCKING && jump) {
			gpsphc_sv_step(s, sv_sat_sub(0, off), out);
			return;
		}
		break;
	default:
		ki_term = -sv_pi_term(off, SV_PI_KI);
		rate = p->drift + ki_term - sv_pi_term(off, SV_PI_KP);
		if (sv_mag(rate) <= (u64)sv_max_adj(s))
			p->drift += ki_term;
		s->freq = p->drift;
		sv_set_adj(s, rate, out);
		break;
	}
	gpsphc_sv_take_offset(s, off, gpsphc_sv_in_noise(s, off, p->r, p->r_n));
}

static void sv_pi_forget(struct gpsphc_servo *s)
{
	s->pi.n = 0;
}

static bool sv_pi_ready(const struct gpsphc_servo *s)
{
	return s->pi.n > 0;
}

const struct gpsphc_sv_estimator gpsphc_sv_pi = {
	.forget	= sv_pi_forget,
	.relock	= sv_pi_forget,
	.ready	= sv_pi_ready,
	.sample	= sv_pi_sample,
};
