// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc servo: counting seconds. Each input the servo is fed either
 * starts a second (and gets the next edge number, counting the pulses
 * missed since the last) or is spurious: a PPS edge counts only within
 * the phase window of where a second is due. See servo.h.
 */

#include "internal.h"

/*
 * A PPS edge is a new second only within this of where the second is due,
 * plus what the rate can be wrong by since the last one: interrupt latency
 * on a serial port is microseconds to a few milliseconds, and a window
 * under the step threshold keeps a glitch that lands in it from stepping.
 */
#define SV_PHASE_WINDOW_NS	10000000U
/* Off-phase edges a second apart, in a row, that move the phase there */
#define SV_REPHASE_EDGES	4
/*
 * A spurious edge within this many windows of a second, with another edge
 * in the same second (under a second less as many windows apart), means
 * edges compete for it; counted edges then keep the count but do not
 * steer the clock for this long (two seconds: one clean second ends it).
 * An edge off the phase alone in its second competes with none: pulses
 * that moved come one a second.
 */
#define SV_STORM_WINDOWS	3
#define SV_STORM_HOLD_NS	2000000000ULL
/*
 * A storm's edges may land in the window between its holds, and a
 * periodic one lines them up as pulses that moved would: for this long
 * after a hold, outliers in a row do not relock the loop by agreeing.
 */
#define SV_STORM_QUIET_NS	30000000000ULL

/*
 * @d * @adj / (1e9 * 2^16): what a clock running @adj (2^-16 ppb, within
 * +-2^36) gains over @d raw ns. Exact to 1 ns up to 2^25 s, then to 1 ppb.
 */
static s64 sv_scale(u64 d, s64 adj)
{
	u32 rem, ms, sub;
	u64 q = div_u64_rem(d, SV_NSEC, &rem);
	s64 c;

	if (q >= (1ULL << 25))
		return (s64)q * div_s64(adj, GPSPHC_SERVO_ADJ_PER_PPB);
	ms = rem / 1000000;
	sub = rem % 1000000;
	c = (s64)q * adj + div_s64((s64)ms * adj, 1000) +
	    div_s64((s64)sub * adj, (s32)SV_NSEC);
	return div_s64(c, GPSPHC_SERVO_ADJ_PER_PPB);
}

/* Raw interval @d on a clock running @adj, saturated */
u64 gpsphc_sv_raw_to_true(u64 d, s64 adj)
{
	s64 c = sv_scale(d, adj);

	if (c < 0)
		return d - min_t(u64, d, sv_mag(c));
	return d > ~0ULL - (u64)c ? ~0ULL : d + (u64)c;
}

void gpsphc_sv_hist_push(struct gpsphc_servo *s,
			 const struct gpsphc_servo_edge_rec *rec)
{
	u32 i;

	if (s->hist_len < GPSPHC_SERVO_HISTORY) {
		i = (s->hist_head + s->hist_len) % GPSPHC_SERVO_HISTORY;
		s->hist_len++;
	} else {
		i = s->hist_head;
		s->hist_head = (s->hist_head + 1) % GPSPHC_SERVO_HISTORY;
	}
	s->hist[i] = *rec;
}

struct gpsphc_servo_edge_rec *gpsphc_sv_hist_at(struct gpsphc_servo *s,
						u32 k)
{
	return &s->hist[(s->hist_head + k) % GPSPHC_SERVO_HISTORY];
}

/*
 * How late an edge is against where a second is due, ns, within +-0.5 s:
 * against the clock once the loop has taken an edge since the clock was
 * set (it holds the phase and the rate the loop learnt), else against
 * the last counted input and the rate estimate: a first label may set the
 * clock off the pulses (a label carried to now at a wrong rate, a late
 * reader), and no edge has said so yet. @dtrue: true ns since the last
 * counted input.
 */
static s64 sv_phase_error(const struct gpsphc_servo *s, s64 phc_ns, u64 dtrue)
{
	u32 rem;

	if (s->labelled && s->state != GPSPHC_SERVO_UNLOCKED &&
	    s->est->ready(s)) {
		div_u64_rem(sv_mag(phc_ns), SV_NSEC, &rem);
		if (phc_ns < 0 && rem)
			rem = SV_NSEC - rem;
	} else {
		div_u64_rem(dtrue, SV_NSEC, &rem);
	}
	return rem > SV_HALF_SEC ? (s64)rem - SV_NSEC : (s64)rem;
}

/*
 * Is a PPS edge that is not where its second was due the new phase of
 * the pulses? Only when SV_REPHASE_EDGES such edges came a second apart
 * and no counted edge came meanwhile: a receiver reset, or a first edge
 * that was a glitch. A storm's edges are never a second apart in a row
 * while a counted edge comes every second.
 */
static bool sv_rephase(struct gpsphc_servo *s, u64 raw, s64 late, u64 window)
{
	u64 d = sv_since(raw, s->off_phase_raw);
	u64 e = d > SV_NSEC ? d - SV_NSEC : SV_NSEC - d;

	if (s->off_phase_run && e <= window)
		s->off_phase_run++;
	else
		s->off_phase_run = 1;
	s->off_phase_raw = raw;
	s->off_phase_ns = late;
	return s->off_phase_run >= SV_REPHASE_EDGES &&
	       sv_since(raw, s->last_raw) > SV_NSEC + SV_HALF_SEC;
}

/*
 * Number a PPS edge, @dtrue (true ns) and @n (seconds, rounded) after the
 * last counted input (@last_pps_raw is still the PPS edge before it).
 * False if it is no new second (spurious); an edge near a second that is
 * not counted, with another in the same second, means several edges
 * compete for it: a storm, during which the counted edges keep the count
 * but do not steer the clock (see @storm_until). Edges that come a
 * second apart at another phase are no storm: the 4th is the new phase (@rec->rephase), and the
 * storm hold ends, or the clock could never follow them.
 */
static bool sv_count_pps(struct gpsphc_servo *s,
			 struct gpsphc_servo_edge_rec *rec, s64 phc_ns,
			 u64 dtrue, u64 n)
{
	u64 window, err;
	s64 late;

	/* The rate may be off by max_ppb since the last counted edge. */
	window = SV_PHASE_WINDOW_NS +
		 div_u64(div_u64(min_t(u64, dtrue, SV_OFF_LIMIT), 1000) *
			 s->cfg.max_ppb, 1000000);
	/*
	 * A loop at its rate limit is behind by its offset, knowingly: the
	 * pulses' rate is beyond max_ppb, or the loop slews towards pulses
	 * that moved by less than the step threshold.
	 */
	if (sv_mag(s->freq) >= (u64)sv_max_adj(s) ||
	    sv_mag(s->adj) >= (u64)sv_max_adj(s))
		window += sv_mag(sv_clamp(s->offset_ns, SV_HALF_SEC));
	late = n ? sv_phase_error(s, phc_ns, dtrue) : (s64)dtrue;
	err = sv_mag(late);
	if (rec->raw <= s->last_raw || !n || err > window) {
		if (err <= SV_STORM_WINDOWS * window &&
		    sv_since(rec->raw, s->last_pps_raw) + SV_STORM_WINDOWS * window <
		    SV_NSEC)
			s->storm_until = rec->raw + SV_STORM_HOLD_NS;
		if (!sv_rephase(s, rec->raw, late, SV_PHASE_WINDOW_NS))
			return false;
		/* The new phase: what came before says nothing of the rate. */
		s->hist_len = 0;
		s->storm_until = 0;
		s->counters.rephases++;
		rec->rephase = true;
	} else if (sv_since(rec->raw, s->last_pps_raw) <=
		   SV_STORM_WINDOWS * window) {
		s->storm_until = rec->raw + SV_STORM_HOLD_NS;
	}
	s->off_phase_run = 0;
	s->counters.missed += n - 1;
	rec->num = s->last_num + n;
	return true;
}

bool gpsphc_sv_storm_near(const struct gpsphc_servo *s, u64 raw)
{
	return s->storm_until && raw < s->storm_until + SV_STORM_QUIET_NS;
}

/* Number a counted input; false if it is no new second */
bool gpsphc_sv_count(struct gpsphc_servo *s, struct gpsphc_servo_edge_rec *rec,
		     s64 phc_ns, bool switched)
{
	u64 dtrue, n;

	if (!s->have_edge) {
		rec->num = 0;
		return true;
	}
	dtrue = gpsphc_sv_raw_to_true(sv_since(rec->raw, s->last_raw), s->freq);
	n = div_u64(min_t(u64, dtrue, ~0ULL - SV_HALF_SEC) + SV_HALF_SEC,
		    SV_NSEC);
	/* Sentence starts are picked by their gap, and come ms late anyway. */
	if (!rec->coarse && !switched)
		return sv_count_pps(s, rec, phc_ns, dtrue, n);
	if (rec->raw <= s->last_raw || !n) {
		/* A PPS back after sentences: the sentence's own second */
		if (switched && rec->raw + SV_HALF_SEC > s->last_raw) {
			rec->num = s->last_num;
			return true;
		}
		return false;
	}
	/* Pulses missed: a second without a sentence is no missed pulse. */
	if (!rec->coarse)
		s->counters.missed += n - 1;
	rec->num = s->last_num + n;
	return true;
}
