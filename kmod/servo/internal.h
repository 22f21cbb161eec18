/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc servo, internal: what the servo's files share. The servo is
 * split by concern:
 *
 * - servo.c: the handle, settings and the entry points (an input, a
 *   tick, a reset, the status);
 * - count.c: counting seconds: which inputs start one, their edge
 *   numbers, the history of counted inputs;
 * - label.c: labels, and the confirmation a change of the count needs;
 * - estimate.c: the robust estimate of the pulses' rate and phase from
 *   the history (the first label's rate, and the bank's start);
 * - loop.c: what every estimator's loop shares: RMS, steps, relocks,
 *   holdover, the LOCKED rule;
 * - the estimators, behind struct gpsphc_sv_estimator: bank.c (the bank
 *   of Kalman filters, the default) and pi.c (linuxptp's PI).
 *
 * Nothing here is for the servo's users: they include servo.h. The host
 * tests include it too, to look inside.
 */
#ifndef _GPSPHC_SERVO_INTERNAL_H
#define _GPSPHC_SERVO_INTERNAL_H

#include "servo.h"

/**
 * struct gpsphc_servo_edge_rec - one input in the servo's history (internal)
 * @raw: the raw time the servo uses (the capture time, less the receiver
 *	latency for sentence starts).
 * @num: edge number.
 * @seq: the input's sequence number, by which labels name it.
 * @counted: the input counted as a second.
 * @coarse: a sentence start (@seq is a sentence's), else a PPS edge.
 * @rephase: the count took it as the pulses' new phase (see
 *	&gpsphc_servo_counters.rephases).
 */
struct gpsphc_servo_edge_rec {
	u64 raw;
	u64 num;
	u32 seq;
	bool counted;
	bool coarse;
	bool rephase;
};

/**
 * struct gpsphc_servo_fed - the inputs of one kind the servo was fed
 * @any: one was.
 * @next_seq: the sequence number after the last one's.
 * @counted_any: one was counted as a second.
 * @last_counted_seq: the sequence number of the last one counted.
 */
struct gpsphc_servo_fed {
	bool any;
	u32 next_seq;
	bool counted_any;
	u32 last_counted_seq;
};

/**
 * struct gpsphc_servo_model - one filter of the loop's bank (internal)
 * @a: its estimate of the true raw time of the bank's anchor edge less
 *	the measured one, 2^-16 ns.
 * @p: its estimate of the pulses' period, raw ns per second, 2^-16 ns.
 * @d: its estimate of the period's drift, 2^-16 ns per second per
 *	second; always 0 in the filters that model no drift.
 * @score: mean square of its prediction errors, ns^2, forgotten 1/256
 *	per edge: which filter steers.
 * @fast: the same, forgotten 1/16 per edge: which filter fell behind.
 * @llr: the evidence that it predicts better than the steering filter
 *	since it last did not, 2^-16 nats (a CUSUM of log-likelihood ratios).
 * @n: edges in its least-squares start (see bank.c); 0 once it
 *	runs on its steady-state gains.
 */
struct gpsphc_servo_model {
	s64 a;
	s64 p;
	s64 d;
	u64 score;
	u64 fast;
	u32 llr;
	u32 n;
};

/**
 * struct gpsphc_servo_reject - an edge rejected as an outlier (internal)
 * @num: its edge number.
 * @y: the steering filter's prediction error at it, ns.
 */
struct gpsphc_servo_reject {
	u64 num;
	s64 y;
};

/**
 * struct gpsphc_servo_bank - the loop's filters of the edges (internal)
 * @m: the filters: those of a phase and a rate, from the steadiest rate
 *	to the most wandering one, then those that model a drift as well.
 * @ready: @m and the anchor are valid; false: the next labelled edge
 *	starts them from the history's estimate.
 * @restart: the next accepted edge starts the filters again, at their
 *	periods (a relock: the pulses moved).
 * @best: the steering filter, the one with the lowest @score: the rate
 *	held in holdover, and the one the others are weighed against.
 * @anchor_raw: raw time of the last edge the filters took.
 * @anchor_num: its edge number.
 * @prev_raw: raw time of the edge they took before it; with @prev_num
 *	@anchor_num - 1 only.
 * @prev_num: its edge number.
 * @prev_ok: @prev_raw is valid.
 * @scored: edges in the scores, up to 256.
 * @r: the edges' capture noise, ns^2: from second differences of
 *	consecutive edges' raw times, forgotten 1/64 per edge.
 * @r_n: edges in @r, up to 64.
 * @agile: edges left in which the lowest short score steers, after a
 *	surprise (an edge far off every prediction, yet taken).
 * @refit: the filters started from the history's estimate, not a relock:
 *	while LOCKING, each edge taken may move them onto the estimate
 *	(see sv_kf_refit()).
 */
struct gpsphc_servo_bank {
	struct gpsphc_servo_model m[GPSPHC_SERVO_MODELS];
	bool ready;
	bool restart;
	u32 best;
	u64 anchor_raw;
	u64 anchor_num;
	u64 prev_raw;
	u64 prev_num;
	bool prev_ok;
	u32 scored;
	u64 r;
	u32 r_n;
	u32 agile;
	bool refit;
};

/**
 * struct gpsphc_servo_pi - the PI estimator's state (pi.c)
 * @n: offsets taken since it started: 0, 1 (one offset kept), 2 (runs).
 * @off0: the first offset, ns.
 * @raw0: its raw time.
 * @drift: the integral term: the rate that makes the clock tick true
 *	seconds, 2^-16 ppb (linuxptp's drift, with the clock's sign).
 * @last_raw: raw time of the last edge taken; valid with @n.
 * @last_num: its edge number.
 * @prev_raw: raw time of the edge before it, one second earlier by the
 *	count; valid with @prev_ok.
 * @prev_ok: @prev_raw is valid.
 * @r: the edges' capture noise, ns^2 (gpsphc_sv_noise_add()): which
 *	offsets are noise, for LOCKED.
 * @r_n: edges in @r.
 */
struct gpsphc_servo_pi {
	u32 n;
	s64 off0;
	u64 raw0;
	s64 drift;
	u64 last_raw;
	u64 last_num;
	u64 prev_raw;
	bool prev_ok;
	u64 r;
	u32 r_n;
};

/**
 * struct gpsphc_sv_estimator - an estimator: from offsets to a rate
 * @forget: drop the estimate: the next labelled edge starts it afresh
 *	(from the history's estimate, where it uses one).
 * @relock: the pulses moved (a relock, a label): the next edge it takes
 *	starts it again, keeping the rate.
 * @ready: it has taken an edge since it was started or forgot: the clock
 *	holds the phase and the rate it learnt.
 * @sample: one labelled input @rec, the clock @off ns off it: screen it
 *	(outliers, holdover's return), set &gpsphc_servo.freq, step or
 *	steer the clock through @out, and count the offset towards LOCKED
 *	(gpsphc_sv_take_offset()).
 *
 * Like linuxptp's struct servo: the counting, the labels and the states
 * are the servo's; only this decides the rate.
 */
struct gpsphc_sv_estimator {
	void (*forget)(struct gpsphc_servo *s);
	void (*relock)(struct gpsphc_servo *s);
	bool (*ready)(const struct gpsphc_servo *s);
	void (*sample)(struct gpsphc_servo *s,
		       const struct gpsphc_servo_edge_rec *rec, s64 off,
		       struct gpsphc_servo_out *out);
};

extern const struct gpsphc_sv_estimator gpsphc_sv_bank;
extern const struct gpsphc_sv_estimator gpsphc_sv_pi;

/**
 * struct gpsphc_servo - per-device servo state, behind the handle
 * @cfg: settings, sanitised; change them with gpsphc_servo_configure().
 * @counters: statistics; see struct gpsphc_servo_counters.
 * @state: enum gpsphc_servo_state.
 * @before_holdover: the state the next good edge returns to from HOLDOVER.
 * @coarse: sentence starts are the input (no PPS).
 * @labelled: @tai_base is valid.
 * @have_edge: @last_raw and @last_num are valid.
 * @tai_base: TAI second of edge number 0.
 * @last_raw: raw time of the last counted input.
 * @last_num: its edge number.
 * @last_pps_raw: raw time of the last PPS edge; valid with @pps_seen.
 * @pps_seen: a PPS edge came since init.
 * @last_sentence_raw: raw time of the last sentence start, any.
 * @sentence_seen: @last_sentence_raw is valid.
 * @freq: the rate correction that makes the clock tick true seconds: the
 *	steering filter's period (or the history's, before the loop ran),
 *	2^-16 ppb.
 * @adj: the rate correction last asked for, 2^-16 ppb.
 * @offset_ns: offset at the last labelled input.
 * @est: the estimator &gpsphc_servo_cfg.clock_servo picks.
 * @bank: the bank estimator's filters; see struct gpsphc_servo_bank.
 * @pi: the PI estimator's state.
 * @rejects: outliers in a row.
 * @rejected: the last two of them, older first: their edge numbers and
 *	the steering filter's prediction errors (ns); valid up to @rejects.
 * @lock_run: offsets in a row within lock_ns.
 * @pending_d: seconds by which the pending labels disagree.
 * @pending: how far the labels for @pending_d are confirmed.
 * @off_phase_raw: raw time of the last PPS edge off the predicted phase.
 * @off_phase_run: such edges in a row, each a second after the one before.
 * @off_phase_ns: how late the last of them came against its second, ns.
 * @fed: per enum gpsphc_servo_input, the inputs fed, for labels' refusals.
 * @storm_until: raw time until which counted PPS edges do not steer the
 *	clock: a spurious edge came close to a second (edges compete). A
 *	new phase the count takes (@off_phase_run) ends it: its edges came
 *	one a second.
 * @hist: the last inputs, oldest first from @hist_head.
 * @hist_head: index of the oldest entry of @hist.
 * @hist_len: entries in @hist.
 * @rms_ring: the last accepted offsets, ns, saturated to +-2^28.
 * @rms_pos: next slot of @rms_ring.
 * @rms_len: valid entries in @rms_ring.
 * @rms_sum: sum of the squares of the valid entries, ns^2.
 * @rms_ns: square root of @rms_sum / @rms_len.
 */
struct gpsphc_servo {
	struct gpsphc_servo_cfg cfg;
	struct gpsphc_servo_counters counters;
	enum gpsphc_servo_state state;
	enum gpsphc_servo_state before_holdover;
	bool coarse;
	bool labelled;
	bool have_edge;
	u64 tai_base;
	u64 last_raw;
	u64 last_num;
	u64 last_pps_raw;
	bool pps_seen;
	u64 last_sentence_raw;
	bool sentence_seen;
	s64 freq;
	s64 adj;
	s64 offset_ns;
	const struct gpsphc_sv_estimator *est;
	struct gpsphc_servo_bank bank;
	struct gpsphc_servo_pi pi;
	u32 rejects;
	struct gpsphc_servo_reject rejected[2];
	u32 lock_run;
	s64 pending_d;
	struct gpsphc_servo_confirm pending;
	u64 off_phase_raw;
	u32 off_phase_run;
	s64 off_phase_ns;
	struct gpsphc_servo_fed fed[2];
	u64 storm_until;
	struct gpsphc_servo_edge_rec hist[GPSPHC_SERVO_HISTORY];
	u32 hist_head;
	u32 hist_len;
	s32 rms_ring[GPSPHC_SERVO_RMS_EDGES];
	u32 rms_pos;
	u32 rms_len;
	u64 rms_sum;
	u64 rms_ns;
};

/**
 * gpsphc_servo_init() - set a servo up: UNLOCKED, no history, counters 0
 * @s: the servo.
 * @cfg: settings, copied and sanitised (see gpsphc_servo_configure()).
 */
void gpsphc_servo_init(struct gpsphc_servo *s,
		       const struct gpsphc_servo_cfg *cfg);

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

/* count.c */
u64 gpsphc_sv_raw_to_true(u64 d, s64 adj);
void gpsphc_sv_hist_push(struct gpsphc_servo *s,
			 const struct gpsphc_servo_edge_rec *rec);
struct gpsphc_servo_edge_rec *gpsphc_sv_hist_at(struct gpsphc_servo *s, u32 k);
bool gpsphc_sv_count(struct gpsphc_servo *s, struct gpsphc_servo_edge_rec *rec,
		     s64 phc_ns, bool switched);
/*
 * Did a storm hold the count within SV_STORM_QUIET_NS before raw time
 * @raw? Outliers in a row then say nothing of pulses that moved.
 */
bool gpsphc_sv_storm_near(const struct gpsphc_servo *s, u64 raw);

/* estimate.c */
u32 gpsphc_sv_estimate(struct gpsphc_servo *s,
		       const struct gpsphc_servo_edge_rec *at,
		       s64 *period, u64 *raw_at);
s64 gpsphc_sv_period_freq(const struct gpsphc_servo *s, s64 period);
/* Sort @n values (at most GPSPHC_SERVO_HISTORY) in place, ascending */
void gpsphc_sv_sort(s64 *v, u32 n);

/* loop.c */
/*
 * The mean of @n squares so far, then forgetting 1/@w (a power of 2) per
 * square: a shift, not a division, once it forgets.
 */
void gpsphc_sv_mean_add(u64 *mean, u64 sq, u32 n, u32 w);
/*
 * The capture noise @r (ns^2; @r_n edges in it) from the second
 * difference of three consecutive edges' raw times, @d2 ns (its variance
 * is 6 r, plus q): clipped once known, so that a step of the rate or a
 * latency spike cannot inflate it.
 */
void gpsphc_sv_noise_add(u64 *r, u32 *r_n, s64 d2);
/*
 * The capture noise's variance, ns^2, from the median absolute deviation
 * of the intervals between consecutive inputs of the kind the servo runs
 * on (PPS edges or sentence starts) in the history; 0 if there are fewer
 * than GPSPHC_SERVO_LOCK_EDGES intervals. The running estimates the
 * estimators keep are means, and one latency spike among their first
 * edges inflates them for dozens of edges: a loop far from converged
 * would pass for locked, and an edge milliseconds off for no outlier. A
 * spike moves two intervals; the median ignores them.
 */
u64 gpsphc_sv_noise_median(const struct gpsphc_servo *s);
void gpsphc_sv_rms_clear(struct gpsphc_servo *s);
/* Is the offset @off within 3 sigmas of the noise @r (@r_n edges)? */
bool gpsphc_sv_in_noise(const struct gpsphc_servo *s, s64 off, u64 r,
			u32 r_n);
/*
 * An offset @off taken: into the RMS; LOCKING becomes LOCKED after
 * GPSPHC_SERVO_LOCK_EDGES in a row within lock_ns or, @in_noise, within
 * what the estimator measured of the input's own noise, if they are also
 * within the noise the history's median tells (gpsphc_sv_noise_median()).
 */
void gpsphc_sv_take_offset(struct gpsphc_servo *s, s64 off, bool in_noise);
void gpsphc_sv_step(struct gpsphc_servo *s, s64 delta,
		    struct gpsphc_servo_out *out);
void gpsphc_sv_relock(struct gpsphc_servo *s);
void gpsphc_sv_enter_holdover(struct gpsphc_servo *s,
			      struct gpsphc_servo_out *out);
/* LOCKED, or in a HOLDOVER entered from LOCKED */
bool gpsphc_sv_locked(const struct gpsphc_servo *s);

#endif /* _GPSPHC_SERVO_INTERNAL_H */
