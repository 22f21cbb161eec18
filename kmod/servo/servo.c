// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc clock servo: counts seconds from the PPS edges, ties the count to
 * TAI with labels, and steers the clock from a bank of Kalman filters. Pure
 * C, no kernel calls: see servo.h for the contract and the units, and
 * internal.h for how the files split the work. This one holds the
 * settings and the entry points.
 *
 * Integer ranges, so that nothing can overflow whatever the inputs:
 * offsets entering the loop are saturated to +-2^40 ns; frequencies to
 * +-1e6 ppb (< 2^36 in 2^-16 ppb); RMS samples to +-2^28 ns, so 64
 * squares stay below 2^62; bank.c and pi.c say their own. TAI seconds above
 * SV_TAI_SEC_MAX are refused, so TAI ns fit in s64.
 */

#include "internal.h"

/* Offsets reported */
#define SV_REPORT_LIMIT		4611686018427387904LL	/* 2^62 */
/* Limits of the settings */
#define SV_OUTLIER_K_LIMIT	1000
#define SV_OUTLIER_MAX_LIMIT	1000
#define SV_CONFIRM_LIMIT	255
#define SV_HOLDOVER_MIN		1100000000ULL

static void sv_sanitize_input(struct gpsphc_servo_input_cfg *ic)
{
	ic->outlier_k = min_t(u32, ic->outlier_k, SV_OUTLIER_K_LIMIT);
	ic->outlier_min_ns = min_t(u64, ic->outlier_min_ns, SV_OFF_LIMIT);
	ic->lock_ns = min_t(u64, ic->lock_ns, SV_OFF_LIMIT);
}

static void sv_sanitize(struct gpsphc_servo_cfg *c)
{
	sv_sanitize_input(&c->pps);
	sv_sanitize_input(&c->coarse);
	c->step_threshold_ns = min_t(u64, c->step_threshold_ns, SV_OFF_LIMIT);
	c->max_ppb = clamp_t(u32, c->max_ppb, 1, GPSPHC_SERVO_MAX_PPB_LIMIT);
	c->outlier_max = clamp_t(u32, c->outlier_max, 1, SV_OUTLIER_MAX_LIMIT);
	c->confirm_n = clamp_t(u32, c->confirm_n, 1, SV_CONFIRM_LIMIT);
	c->holdover_timeout_ns = clamp_t(u64, c->holdover_timeout_ns,
					 SV_HOLDOVER_MIN, SV_OFF_LIMIT);
	c->rx_latency_ns = min_t(u64, c->rx_latency_ns, SV_NSEC - 1);
	c->sentence_gap_ns = min_t(u64, c->sentence_gap_ns, SV_NSEC);
	c->coarse_after_ns = min_t(u64, c->coarse_after_ns, SV_OFF_LIMIT);
	if (c->clock_servo != GPSPHC_CLOCK_SERVO_PI)
		c->clock_servo = GPSPHC_CLOCK_SERVO_BANK;
}

void gpsphc_servo_default_cfg(struct gpsphc_servo_cfg *cfg)
{
	*cfg = (struct gpsphc_servo_cfg){
		.pps = {
			.outlier_k = 4,
			.outlier_min_ns = 5000,
			.lock_ns = 10000,
		},
		.step_threshold_ns = 20000000,
		.max_ppb = 500000,
		.outlier_max = 3,
		.confirm_n = 3,
		/* One missed pulse is not a lost PPS: wait past the second. */
		.holdover_timeout_ns = 2500000000ULL,
		.rx_latency_ns = 0,
		.sentence_gap_ns = GPSPHC_SENTENCE_GAP_MS * 1000000ULL,
		.coarse_after_ns = GPSPHC_COARSE_AFTER_S * 1000000000ULL,
		.clock_servo = GPSPHC_CLOCK_SERVO_BANK,
	};
	/* Coarse mode: the same loop, on inputs milliseconds apart. */
	cfg->coarse = cfg->pps;
	cfg->coarse.outlier_min_ns = 20000000;
	cfg->coarse.lock_ns = 20000000;
}

static const struct gpsphc_sv_estimator *
sv_estimator(enum gpsphc_clock_servo which)
{
	return which == GPSPHC_CLOCK_SERVO_PI ? &gpsphc_sv_pi : &gpsphc_sv_bank;
}

void gpsphc_servo_configure(struct gpsphc_servo *s,
			    const struct gpsphc_servo_cfg *cfg)
{
	const struct gpsphc_sv_estimator *est = sv_estimator(cfg->clock_servo);

	s->cfg = *cfg;
	sv_sanitize(&s->cfg);
	s->freq = sv_clamp(s->freq, sv_max_adj(s));
	s->adj = sv_clamp(s->adj, sv_max_adj(s));
	if (est == s->est)
		return;
	/* The new estimator knows nothing yet: it starts at the next edge. */
	s->est = est;
	s->est->forget(s);
	if (s->state == GPSPHC_SERVO_LOCKED || s->state == GPSPHC_SERVO_LOCKING)
		gpsphc_sv_relock(s);
	else if (s->state == GPSPHC_SERVO_HOLDOVER)
		s->before_holdover = GPSPHC_SERVO_LOCKING;
}

void gpsphc_servo_init(struct gpsphc_servo *s,
		       const struct gpsphc_servo_cfg *cfg)
{
	*s = (struct gpsphc_servo){ .state = GPSPHC_SERVO_UNLOCKED };
	gpsphc_servo_configure(s, cfg);
}

struct gpsphc_servo *gpsphc_servo_create(const struct gpsphc_servo_cfg *cfg)
{
	struct gpsphc_servo *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (s)
		gpsphc_servo_init(s, cfg);
	return s;
}

void gpsphc_servo_destroy(struct gpsphc_servo *s)
{
	kfree(s);
}

void gpsphc_servo_settings(const struct gpsphc_servo *s,
			   struct gpsphc_servo_cfg *cfg)
{
	*cfg = s->cfg;
}

void gpsphc_servo_status(const struct gpsphc_servo *s,
			 struct gpsphc_servo_status *st)
{
	*st = (struct gpsphc_servo_status){
		.state = s->state,
		.coarse = s->coarse,
		.offset_ns = s->offset_ns,
		.rms_ns = s->rms_ns,
		.freq = s->freq,
		.adj = s->adj,
		.pending_s = s->pending_d,
		.pending_n = s->pending.n,
		.counters = s->counters,
	};
}

void gpsphc_servo_skip(struct gpsphc_servo *s, enum gpsphc_servo_input kind,
		       u32 seq)
{
	s->fed[kind].any = true;
	s->fed[kind].next_seq = seq + 1;
}

void gpsphc_servo_edge(struct gpsphc_servo *s, enum gpsphc_servo_input kind,
		       u32 seq, u64 raw_ns, s64 phc_ns,
		       struct gpsphc_servo_out *out)
{
	struct gpsphc_servo_edge_rec rec = { .raw = raw_ns, .seq = seq };
	struct gpsphc_servo_fed *fed = &s->fed[kind];
	bool switched = false;
	u64 gap, tai;
	s64 off;

	sv_out_begin(s, out);
	gpsphc_servo_skip(s, kind, seq);
	if (kind == GPSPHC_SERVO_INPUT_SENTENCE) {
		bool first = !s->sentence_seen ||
			sv_since(raw_ns, s->last_sentence_raw) >=
			s->cfg.sentence_gap_ns;

		s->last_sentence_raw = raw_ns;
		s->sentence_seen = true;
		if (!first || (s->pps_seen &&
			       sv_since(raw_ns, s->last_pps_raw) <
			       s->cfg.coarse_after_ns)) {
			s->counters.ignored++;
			goto out;
		}
		rec.raw = raw_ns - min_t(u64, raw_ns, s->cfg.rx_latency_ns);
		rec.coarse = true;
		switched = !s->coarse;
		s->coarse = true;
	} else {
		switched = s->coarse;
		s->coarse = false;
	}

	rec.counted = gpsphc_sv_count(s, &rec, phc_ns, switched && s->have_edge);
	if (kind == GPSPHC_SERVO_INPUT_PPS) {
		s->pps_seen = true;
		s->last_pps_raw = raw_ns;
	}
	/* Only seconds go into the history: a storm must not flush it. */
	if (!rec.counted) {
		s->counters.spurious++;
		goto out;
	}
	gpsphc_sv_hist_push(s, &rec);
	fed->counted_any = true;
	fed->last_counted_seq = seq;
	gap = s->have_edge ? sv_since(rec.raw, s->last_raw) : 0;
	s->have_edge = true;
	s->last_raw = rec.raw;
	s->last_num = rec.num;
	s->counters.edges++;
	out->flags |= GPSPHC_SERVO_OUT_USED;
	out->edge_num = rec.num;
	if (!s->labelled)
		goto out;

	tai = s->tai_base + rec.num;
	out->tai_sec = tai;
	out->flags |= GPSPHC_SERVO_OUT_LABELLED;
	/*
	 * Edges compete for the second: keep the count, not the phase, and
	 * hold the rate as in holdover (not a slew, which would run on).
	 */
	if (!rec.coarse && rec.raw < s->storm_until) {
		if (s->adj != s->freq)
			sv_set_adj(s, s->freq, out);
		goto out;
	}
	off = sv_sat_sub(phc_ns, sv_tai_ns(tai));
	s->offset_ns = sv_clamp(off, SV_REPORT_LIMIT);

	if (s->state != GPSPHC_SERVO_HOLDOVER &&
	    gap > s->cfg.holdover_timeout_ns)
		gpsphc_sv_enter_holdover(s, out);
	/*
	 * The other kind's edges say nothing of this kind's phase; nor do
	 * the edges before the pulses moved. The loop starts again from
	 * this edge: it steps to it, or slews (the count's window follows).
	 */
	if (switched || rec.rephase) {
		gpsphc_sv_relock(s);
		s->est->forget(s);
	}
	s->est->sample(s, &rec, off, out);
out:
	sv_out_end(s, out);
}

void gpsphc_servo_tick(struct gpsphc_servo *s, u64 now_raw_ns,
		       struct gpsphc_servo_out *out)
{
	u64 since = sv_since(now_raw_ns, s->last_raw);

	sv_out_begin(s, out);
	/* No edge off the phase for 1.5 s: the run can no longer go on. */
	if (s->off_phase_run &&
	    sv_since(now_raw_ns, s->off_phase_raw) > SV_NSEC + SV_HALF_SEC)
		s->off_phase_run = 0;
	if ((s->state == GPSPHC_SERVO_LOCKING ||
	     s->state == GPSPHC_SERVO_LOCKED) &&
	    since > s->cfg.holdover_timeout_ns)
		gpsphc_sv_enter_holdover(s, out);
	if (s->state == GPSPHC_SERVO_HOLDOVER)
		out->holdover_ns = since;
	sv_out_end(s, out);
}

void gpsphc_servo_reset(struct gpsphc_servo *s)
{
	s->state = GPSPHC_SERVO_UNLOCKED;
	s->labelled = false;
	s->pending.n = 0;
	s->rejects = 0;
	s->lock_run = 0;
	s->offset_ns = 0;
	gpsphc_sv_rms_clear(s);
}
