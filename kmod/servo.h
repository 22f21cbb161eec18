/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc clock servo: decides how the PTP clock follows the PPS edges.
 *
 * Pure C with no floating point and no allocation, using only the
 * kernel's arithmetic helpers (pure_types.h gives the host the same): the
 * same files (servo*.c, split by concern: see servo_internal.h) build into
 * the gpsphc line discipline and into the host tests and the benchmark
 * (tools/testing/host/). It does no locking: the caller
 * embeds a struct gpsphc_servo per device and serialises every call on it,
 * and every read of its fields, under one lock (the module's servo_lock,
 * a mutex: the servo runs in process context, never in an interrupt).
 *
 * The clock the servo steers is CLOCK_MONOTONIC_RAW through a rate and an
 * offset, kept by the caller:
 *
 *	phc(raw) = base_ns + (raw - base_raw) * (1 + adj / (1e9 * 2^16))
 *
 * The servo never reads that clock: the caller tells it what the clock
 * read at an edge, and applies what the servo returns (a new @adj, a step)
 * from the input's capture on, or, if the clock was read at a later
 * instant meanwhile, from now on (rewriting no value a reader got),
 * moving its base there first. The servo's arithmetic takes the capture;
 * from now, it is off by the rate's change times the microseconds since.
 *
 * Units, everywhere in this file:
 *
 * - raw: CLOCK_MONOTONIC_RAW, ns (u64).
 * - phc, step, offset: ns of the clock's timescale, TAI since 1970 (s64).
 *   An offset is the clock minus the truth: positive when the clock is
 *   ahead.
 * - adj: rate correction in 2^-16 ppb (s64): 65536 is 1 ppb, i.e. the
 *   clock gains 1 ns per 1e9 ns of raw time. adjfine()'s scaled_ppm is
 *   the same number divided by 1000.
 * - period: raw ns per true second, in 2^-16 ns (s64).
 *
 * The servo counts seconds by itself: each edge gets an edge number, one
 * more than the previous edge's plus the pulses missed between them,
 * judged from the raw time between the two edges (rounded to whole seconds
 * with the servo's frequency estimate). Every input keeps the identity it
 * got when it was captured, its kind and sequence number (the PPS seq, the
 * sentence seq): the servo's history is kept by it, and a label (userspace
 * saying which TAI second an input marks) names it. A label ties edge
 * numbers to TAI seconds. The first
 * label sets the clock; later ones confirm the count, and one that
 * disagrees must be repeated (see &gpsphc_servo_cfg.confirm_n) before it
 * moves the clock.
 *
 * States (enum gpsphc_servo_state, uapi):
 *
 * - %GPSPHC_SERVO_UNLOCKED: no label yet (or since gpsphc_servo_reset()).
 *   Edges are counted and kept, the clock is left alone.
 * - %GPSPHC_SERVO_LOCKING: labelled; the loop runs and any offset above
 *   &gpsphc_servo_cfg.step_threshold_ns is stepped.
 * - %GPSPHC_SERVO_LOCKED: the last %GPSPHC_SERVO_LOCK_EDGES offsets were
 *   within the input's lock_ns (or the input's own noise, if larger).
 *
 * In every labelled state, edges far from where the loop predicts them
 * are rejected as outliers (see &gpsphc_servo_input_cfg.outlier_k).
 * - %GPSPHC_SERVO_HOLDOVER: no edge for holdover_timeout_ns: the clock
 *   keeps the loop's estimate of the pulses' rate. The next edge resumes
 *   the state before the loss (LOCKED or LOCKING) if it is where the loop
 *   predicts it, within the outlier bound; one beyond it is an outlier
 *   like any other (see &gpsphc_servo_cfg.outlier_max), unless its
 *   offset is above the step threshold: then LOCKING, and a step.
 *
 * The loop (servo_loop.c) is a small bank of Kalman filters of the edges'
 * raw times, each assuming a different wander of the host's rate (two a
 * drift of it as well); the clock is steered to read each next second at
 * their predictions of the next edge, each weighted by how well it
 * predicted the recent edges.
 */
#ifndef _GPSPHC_SERVO_H
#define _GPSPHC_SERVO_H

#include "pure_types.h"
#include "uapi/linux/gpsphc.h"

/*
 * Inputs counted as seconds kept for labels and the frequency estimate;
 * a power of two. Labels may name any of them (the uAPI's label-history).
 */
#define GPSPHC_SERVO_HISTORY		GPSPHC_LABEL_HISTORY
/* Offsets the RMS is taken over; a power of two. */
#define GPSPHC_SERVO_RMS_EDGES		64
/* Consecutive offsets within lock_ns that make LOCKING become LOCKED. */
#define GPSPHC_SERVO_LOCK_EDGES		4
/* Filters in the loop's bank (servo_loop.c) */
#define GPSPHC_SERVO_MODELS		8
/*
 * Outliers that scatter are rejected up to this many times outlier_max
 * in a row; then the noise has changed, not the pulses, and the loop
 * relocks to measure it again.
 */
#define GPSPHC_SERVO_SCATTER_RUNS	10
/* Largest max_ppb accepted: 1000 ppm. */
#define GPSPHC_SERVO_MAX_PPB_LIMIT	1000000
/* adj units per ppb */
#define GPSPHC_SERVO_ADJ_PER_PPB	65536

/**
 * enum gpsphc_servo_input - what an input to gpsphc_servo_edge() is
 * @GPSPHC_SERVO_INPUT_PPS: an on-time PPS edge, microsecond-grade.
 * @GPSPHC_SERVO_INPUT_SENTENCE: the arrival of the start byte of an NMEA
 *	sentence, millisecond-grade (coarse mode: no PPS wiring).
 */
enum gpsphc_servo_input {
	GPSPHC_SERVO_INPUT_PPS,
	GPSPHC_SERVO_INPUT_SENTENCE,
};

/**
 * struct gpsphc_servo_input_cfg - loop settings for one kind of input
 * @outlier_k: an edge further than @outlier_k times the RMS of the
 *	loop's recent prediction errors from where every filter predicts it
 *	(and beyond @outlier_min_ns) is rejected, in any state once the
 *	filters have taken two edges; 0 disables outlier rejection. At most
 *	1000.
 * @outlier_min_ns: prediction errors within this are never outliers.
 * @lock_ns: offsets within this count towards LOCKED.
 */
struct gpsphc_servo_input_cfg {
	u32 outlier_k;
	u64 outlier_min_ns;
	u64 lock_ns;
};

/**
 * struct gpsphc_servo_cfg - servo settings
 * @pps: loop settings for PPS edges.
 * @coarse: loop settings for sentence starts (coarse mode).
 * @step_threshold_ns: while LOCKING (after the first label, after a
 *	relock, after holdover), an offset above this is stepped rather
 *	than slewed. In LOCKED a large offset is first an outlier, and is
 *	stepped only if @outlier_max more in a row follow it. Whole-second
 *	errors are never stepped from offsets: only labels move the count.
 * @max_ppb: largest rate correction, ppb (the clock's max_adj); at most
 *	%GPSPHC_SERVO_MAX_PPB_LIMIT.
 * @outlier_max: consecutive outliers rejected; the next one is accepted
 *	and the loop relocks (LOCKING, its filters start again from that
 *	edge). Once LOCKED (and in a HOLDOVER entered from LOCKED), only
 *	if it lies on the line of the last two (the pulses moved: a phase
 *	or rate step); outliers that scatter (latency) are rejected on, up
 *	to %GPSPHC_SERVO_SCATTER_RUNS times @outlier_max in a row, and the
 *	next edge then relocks whatever it says. At least 1.
 * @confirm_n: labels in a row, disagreeing with the count by the same
 *	whole seconds, needed before the count (and the clock) moves;
 *	1..255.
 * @holdover_timeout_ns: no edge for this long means the PPS is lost
 *	(HOLDOVER). At least 1.1 s.
 * @rx_latency_ns: coarse mode: the receiver's delay from the start of
 *	its second to the start of the first sentence about it; subtracted
 *	from sentence starts. Below 1 s.
 * @sentence_gap_ns: coarse mode: a sentence start marks a new second only
 *	if the previous sentence started at least this much earlier (the
 *	first sentence of a burst).
 * @coarse_after_ns: sentence starts steer the clock only when no PPS edge
 *	has come for this long (or none ever has): after a PPS loss,
 *	holdover on the PPS-trained frequency beats millisecond inputs for
 *	a while.
 */
struct gpsphc_servo_cfg {
	struct gpsphc_servo_input_cfg pps;
	struct gpsphc_servo_input_cfg coarse;
	u64 step_threshold_ns;
	u32 max_ppb;
	u32 outlier_max;
	u32 confirm_n;
	u64 holdover_timeout_ns;
	u64 rx_latency_ns;
	u64 sentence_gap_ns;
	u64 coarse_after_ns;
};

/**
 * struct gpsphc_servo_counters - what the servo saw, since init
 * @edges: inputs counted as seconds (PPS edges, or sentence starts in
 *	coarse mode).
 * @missed: PPS pulses missing between counted edges, judged from the time
 *	between them (a second of coarse mode without a sentence is none).
 * @spurious: PPS edges not where the next second was due (more than
 *	the phase window off it): contact bounce, a glitch or storm on DCD,
 *	a receiver set to several pulses a second. Not counted as seconds;
 *	they never move the clock.
 * @ignored: sentence starts that were not used: not the first of their
 *	burst, or a PPS is (or lately was) present.
 * @outliers: offsets rejected as latency outliers.
 * @relocks: times @outlier_max consecutive outliers made the loop relock.
 * @labels: labels accepted (set, agreeing, disagreeing).
 * @labels_refused: labels refused (gpsphc_servo_label() returned a
 *	refusal).
 * @disagreements: accepted labels that disagreed with the count.
 * @steps: times the servo stepped the clock.
 * @holdovers: times the servo entered HOLDOVER.
 * @rephases: times the count took a new phase of the pulses: they came,
 *	SV_REPHASE_EDGES (4) in a row a second apart, off the phase it
 *	counted, and none on it (a receiver restarted, a cable changed, a
 *	first edge that was a glitch).
 */
struct gpsphc_servo_counters {
	u64 edges;
	u64 missed;
	u64 spurious;
	u64 ignored;
	u64 outliers;
	u64 relocks;
	u64 labels;
	u64 labels_refused;
	u64 disagreements;
	u64 steps;
	u64 holdovers;
	u64 rephases;
};

/* struct gpsphc_servo_out.flags */
#define GPSPHC_SERVO_OUT_ADJ		0x01	/* apply @adj */
#define GPSPHC_SERVO_OUT_STEP		0x02	/* apply @step_ns */
#define GPSPHC_SERVO_OUT_STATE		0x04	/* @state changed */
#define GPSPHC_SERVO_OUT_USED		0x08	/* the input was counted */
#define GPSPHC_SERVO_OUT_OUTLIER	0x10	/* ...but rejected as outlier */
#define GPSPHC_SERVO_OUT_LABELLED	0x20	/* @tai_sec is valid */
#define GPSPHC_SERVO_OUT_DISAGREE	0x40	/* a label disagreed: notify */
#define GPSPHC_SERVO_OUT_COARSE		0x80	/* coarse mode */
#define GPSPHC_SERVO_OUT_OFF_PHASE	0x100	/* see @off_phase_n */

/**
 * struct gpsphc_servo_out - what the caller must do, and what happened
 * @flags: GPSPHC_SERVO_OUT_* bits.
 * @adj: with %GPSPHC_SERVO_OUT_ADJ: the clock's new rate correction,
 *	2^-16 ppb, within +-max_ppb; apply from the capture or now on (see
 *	above).
 * @step_ns: with %GPSPHC_SERVO_OUT_STEP: add this to the clock from the
 *	same instant (after moving its base there), before applying @adj.
 *	0 otherwise.
 * @state: the state after the call.
 * @offset_ns: clock minus truth at the last labelled input (this call's
 *	with %GPSPHC_SERVO_OUT_LABELLED), measured before any correction
 *	asked for then; 0 before the first label and after a reset.
 *	Saturated to +-2^62.
 * @rms_ns: RMS of the accepted offsets since the last step, over the
 *	last %GPSPHC_SERVO_RMS_EDGES of them.
 * @tai_sec: the TAI second the input marks, by the servo's count.
 * @edge_num: the servo's number for the input (seconds since the first
 *	input, counting missed ones), with %GPSPHC_SERVO_OUT_USED.
 * @holdover_ns: raw ns since the last counted input, while in HOLDOVER;
 *	else 0.
 * @off_phase_n: PPS edges in a row, each a second after the one before,
 *	that came off the phase the servo counts and were not counted; 0
 *	once an edge is counted or none came for 1.5 s. From 2 on, with
 *	%GPSPHC_SERVO_OUT_OFF_PHASE: pulses arrive steadily at a phase the
 *	servo does not accept yet. It takes them as the new phase at the
 *	4th (the count then follows, the clock steps or slews to them): a
 *	state of HOLDOVER or LOCKED meanwhile is not the pulses' absence.
 * @off_phase_ns: with @off_phase_n, how late the last of those edges came
 *	against where its second was due (by the clock once the loop runs,
 *	else by the count), ns, within +-0.5 s: positive when the pulses
 *	come after the servo's second.
 *
 * Every call fills @state, @offset_ns and @rms_ns, so the last output of
 * any call is a status; @holdover_ns comes from gpsphc_servo_tick() only.
 * The counters are not copied here (this runs with interrupts off on
 * every edge): read &gpsphc_servo.counters under the caller's lock.
 */
struct gpsphc_servo_out {
	u32 flags;
	s64 adj;
	s64 step_ns;
	enum gpsphc_servo_state state;
	s64 offset_ns;
	u64 rms_ns;
	u64 tai_sec;
	u64 edge_num;
	u64 holdover_ns;
	u32 off_phase_n;
	s64 off_phase_ns;
};

/**
 * enum gpsphc_servo_label_result - what gpsphc_servo_label() did
 * @GPSPHC_SERVO_LABEL_SET: the first label: the count is tied to TAI and
 *	the clock set (stepped).
 * @GPSPHC_SERVO_LABEL_AGREE: the label confirms the count.
 * @GPSPHC_SERVO_LABEL_DISAGREE: the label disagrees with the count by
 *	whole seconds; counted, kept as pending, clock unchanged. Notify.
 * @GPSPHC_SERVO_LABEL_APPLIED: a disagreement confirmed confirm_n times in
 *	a row: the count moved and the clock stepped by whole seconds.
 *	Notify.
 * @GPSPHC_SERVO_LABEL_UNKNOWN: refused: the input is older than the last
 *	%GPSPHC_SERVO_HISTORY counted ones, or than 2^40 ns (18.3 min).
 * @GPSPHC_SERVO_LABEL_FUTURE: refused: the input is later than every input
 *	of its kind the servo has been fed.
 * @GPSPHC_SERVO_LABEL_RANGE: refused: the second is before the input's
 *	edge number or beyond what s64 ns of TAI can hold (year 2262).
 * @GPSPHC_SERVO_LABEL_UNCOUNTED: refused: that input was not counted as a
 *	second (spurious edge, ignored sentence), or never fed.
 */
enum gpsphc_servo_label_result {
	GPSPHC_SERVO_LABEL_SET = 1,
	GPSPHC_SERVO_LABEL_AGREE,
	GPSPHC_SERVO_LABEL_DISAGREE,
	GPSPHC_SERVO_LABEL_APPLIED,
	GPSPHC_SERVO_LABEL_UNKNOWN,
	GPSPHC_SERVO_LABEL_FUTURE,
	GPSPHC_SERVO_LABEL_RANGE,
	GPSPHC_SERVO_LABEL_UNCOUNTED,
};

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
 * struct gpsphc_servo_confirm - a change that labels must confirm
 * @num: edge number of the last label that proposed it
 * @n: labels for distinct consecutive edges that proposed it, 0: none
 *
 * A label moves the clock's count, or its TAI - UTC, only when the labels
 * of confirm_n distinct consecutive edges all propose the same change: a
 * repeat for one edge counts once, and an edge skipped starts again.
 */
struct gpsphc_servo_confirm {
	u64 num;
	u32 n;
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
 * @n: edges in its least-squares start (see servo_loop.c); 0 once it
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
};

/**
 * struct gpsphc_servo - per-device servo state, embedded by its user
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
 * @bank: the loop's filters; see struct gpsphc_servo_bank.
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
	struct gpsphc_servo_bank bank;
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
 * gpsphc_servo_default_cfg() - fill in the default settings
 * @cfg: the settings to fill.
 *
 * PPS: outliers beyond 4 x the RMS prediction error and 5 us, lock
 * within 10 us. Coarse: outliers beyond 4 x RMS and 20 ms, lock within
 * 20 ms. Step threshold 20 ms, 500 ppm, 3 outliers before a relock, 3
 * confirmations, holdover after 2.5 s, no receiver latency, sentence gap
 * 200 ms, coarse inputs after 600 s without PPS.
 */
void gpsphc_servo_default_cfg(struct gpsphc_servo_cfg *cfg);

/**
 * gpsphc_servo_init() - set a servo up: UNLOCKED, no history, counters 0
 * @s: the servo.
 * @cfg: settings, copied and sanitised (see gpsphc_servo_configure()).
 */
void gpsphc_servo_init(struct gpsphc_servo *s,
		       const struct gpsphc_servo_cfg *cfg);

/**
 * gpsphc_servo_configure() - change the settings, keeping the state
 * @s: the servo.
 * @cfg: new settings, copied. Out-of-range values are clamped to the
 *	nearest allowed one (documented with each field).
 */
void gpsphc_servo_configure(struct gpsphc_servo *s,
			    const struct gpsphc_servo_cfg *cfg);

/**
 * gpsphc_servo_reset() - forget the labels: back to UNLOCKED
 * @s: the servo.
 *
 * For when someone else moved the clock (settime, adjtime, adjfine): the
 * tie between the count and the clock no longer holds. The edge history,
 * the count, the frequency estimate and the counters are kept, so the
 * next label sets the clock at once.
 */
void gpsphc_servo_reset(struct gpsphc_servo *s);

/**
 * gpsphc_servo_edge() - feed one input
 * @s: the servo.
 * @kind: a PPS edge or a sentence start.
 * @seq: its sequence number among the inputs of its kind, given at
 *	capture; labels name it by (@kind, @seq).
 * @raw_ns: when the input happened (the PPS edge's capture, the sentence
 *	start byte's arrival), CLOCK_MONOTONIC_RAW ns. Inputs of each kind
 *	must come in time order.
 * @phc_ns: what the clock read at @raw_ns with the mapping in effect at
 *	the time of the call (for a sentence start: at @raw_ns less the
 *	receiver latency).
 * @out: filled in; apply its @step_ns and @adj as the flags say.
 *
 * Counts the input as a second (or refuses it: a spurious PPS edge, a
 * sentence start that is not the first of its burst or that a PPS makes
 * useless), records it for labels, and once labelled runs the loop on it.
 * Call it in time order with gpsphc_servo_label() and gpsphc_servo_tick().
 */
void gpsphc_servo_edge(struct gpsphc_servo *s, enum gpsphc_servo_input kind,
		       u32 seq, u64 raw_ns, s64 phc_ns,
		       struct gpsphc_servo_out *out);

/**
 * gpsphc_servo_skip() - an input was captured that is no input to the servo
 * @s: the servo.
 * @kind: its kind.
 * @seq: its sequence number.
 *
 * For a sentence with a bad or missing checksum: it keeps its place in the
 * sequence, so that a label naming it is refused as not counted rather
 * than as not yet seen.
 */
void gpsphc_servo_skip(struct gpsphc_servo *s, enum gpsphc_servo_input kind,
		       u32 seq);

/**
 * gpsphc_servo_label() - tell the servo which TAI second an input marks
 * @s: the servo.
 * @kind: the input's kind, as it was fed.
 * @seq: the input's sequence number, as it was fed.
 * @tai_sec: TAI seconds since 1970 at that input.
 * @now_raw_ns: now, CLOCK_MONOTONIC_RAW ns.
 * @now_phc_ns: what the clock reads at @now_raw_ns.
 * @out: filled in; apply its @step_ns and @adj as the flags say.
 *
 * The first label (after init or reset) sets the clock: the step in @out
 * makes it read the labelled second at the input, carried to now at the
 * frequency estimated from the history, which @out's @adj applies. Later
 * labels are checked against the count; see enum
 * gpsphc_servo_label_result.
 *
 * Return: an enum gpsphc_servo_label_result.
 */
int gpsphc_servo_label(struct gpsphc_servo *s, enum gpsphc_servo_input kind,
		       u32 seq, u64 tai_sec, u64 now_raw_ns, s64 now_phc_ns,
		       struct gpsphc_servo_out *out);

/**
 * gpsphc_servo_confirm() - count one label towards a change
 * @c: the change pending so far
 * @same: the label proposes the change @c counts (false: a new one)
 * @num: the edge number the label names
 * @need: labels needed (confirm_n)
 *
 * Return: true when the change is confirmed (and @c is cleared).
 */
bool gpsphc_servo_confirm(struct gpsphc_servo_confirm *c, bool same, u64 num,
			  u32 need);

/**
 * gpsphc_servo_tick() - let time pass with no input
 * @s: the servo.
 * @now_raw_ns: now, CLOCK_MONOTONIC_RAW ns.
 * @out: filled in; apply its @adj as the flags say.
 *
 * Enters HOLDOVER when no input was counted for holdover_timeout_ns; call
 * it a few times a second (a timer or worker), so the proportional term of
 * the last correction does not run on.
 */
void gpsphc_servo_tick(struct gpsphc_servo *s, u64 now_raw_ns,
		       struct gpsphc_servo_out *out);

#endif /* _GPSPHC_SERVO_H */
