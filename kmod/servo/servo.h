/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc clock servo: decides how the PTP clock follows the PPS edges.
 *
 * The servo is a library (kmod/servo/): pure C with no floating point,
 * using only the kernel's arithmetic helpers (pure_types.h gives the host
 * the same), so that the same files build into the gpsphc line discipline
 * and into the host tests and the benchmark (tools/testing/host/). This
 * header is all its callers see: an opaque handle, the settings, what a
 * call returns and a status. internal.h says how the files split the
 * work. The servo does no locking: the caller serialises every call on a
 * handle under one lock (the module's servo_lock, a mutex: the servo runs
 * in process context, never in an interrupt).
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
 * Counting and labels are the servo's own; the estimator that turns the
 * offsets of the counted edges into a rate sits behind an ops table
 * (internal.h), picked by &gpsphc_servo_cfg.clock_servo:
 *
 * - %GPSPHC_CLOCK_SERVO_BANK (the default, bank.c): a small bank of Kalman
 *   filters of the edges' raw times, each assuming a different wander of
 *   the host's rate (two a drift of it as well); the clock is steered to
 *   read each next second at their predictions of the next edge, each
 *   weighted by how well it predicted the recent edges.
 * - %GPSPHC_CLOCK_SERVO_PI (pi.c): linuxptp's PI servo with its gains for
 *   hardware time stamps at one sample a second (kp 0.7, ki 0.3), for
 *   users who want the servo they already know. It has no outlier
 *   rejection, as in linuxptp: an offset beyond the step threshold
 *   relocks and steps.
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
/* Filters in the loop's bank (bank.c) */
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
 *	or rate step) and no DCD storm held the count in the last 30 s (a
 *	periodic one lines its edges up too); other outliers (latency,
 *	what a storm left in the window) are rejected on, up
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
 * @clock_servo: the estimator (enum gpsphc_clock_servo, uapi); anything
 *	else is the default, %GPSPHC_CLOCK_SERVO_BANK.
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
	enum gpsphc_clock_servo clock_servo;
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
 * The counters are not copied here (every edge would copy them): read
 * them with gpsphc_servo_status() under the caller's lock.
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
 * struct gpsphc_servo_status - the servo's state between calls
 * @state: enum gpsphc_servo_state.
 * @coarse: sentence starts are the input (no PPS).
 * @offset_ns: as in struct gpsphc_servo_out.
 * @rms_ns: as in struct gpsphc_servo_out.
 * @freq: the rate that makes the clock tick true seconds, the estimator's,
 *	2^-16 ppb: what HOLDOVER holds.
 * @adj: the rate correction last asked for, 2^-16 ppb.
 * @pending_s: whole seconds by which the pending labels disagree with the
 *	count; with @pending_n only.
 * @pending_n: labels in a row that proposed @pending_s, 0: none pending.
 * @counters: see struct gpsphc_servo_counters.
 */
struct gpsphc_servo_status {
	enum gpsphc_servo_state state;
	bool coarse;
	s64 offset_ns;
	u64 rms_ns;
	s64 freq;
	s64 adj;
	s64 pending_s;
	u32 pending_n;
	struct gpsphc_servo_counters counters;
};

/* The servo: opaque to its callers. */
struct gpsphc_servo;

/**
 * gpsphc_servo_default_cfg() - fill in the default settings
 * @cfg: the settings to fill.
 *
 * PPS: outliers beyond 4 x the RMS prediction error and 5 us, lock
 * within 10 us. Coarse: outliers beyond 4 x RMS and 20 ms, lock within
 * 20 ms. Step threshold 20 ms, 500 ppm, 3 outliers before a relock, 3
 * confirmations, holdover after 2.5 s, no receiver latency, sentence gap
 * 200 ms, coarse inputs after 600 s without PPS, the bank estimator.
 */
void gpsphc_servo_default_cfg(struct gpsphc_servo_cfg *cfg);

/**
 * gpsphc_servo_create() - a new servo: UNLOCKED, no history, counters 0
 * @cfg: settings, copied and sanitised (see gpsphc_servo_configure()).
 *
 * Context: process context; it allocates (GFP_KERNEL in the kernel).
 * Return: the servo, or NULL when out of memory.
 */
struct gpsphc_servo *gpsphc_servo_create(const struct gpsphc_servo_cfg *cfg);

/**
 * gpsphc_servo_destroy() - free a servo from gpsphc_servo_create()
 * @s: the servo, or NULL.
 */
void gpsphc_servo_destroy(struct gpsphc_servo *s);

/**
 * gpsphc_servo_settings() - the settings in effect, as sanitised
 * @s: the servo.
 * @cfg: filled in.
 */
void gpsphc_servo_settings(const struct gpsphc_servo *s,
			   struct gpsphc_servo_cfg *cfg);

/**
 * gpsphc_servo_status() - the servo's state and counters
 * @s: the servo.
 * @st: filled in.
 */
void gpsphc_servo_status(const struct gpsphc_servo *s,
			 struct gpsphc_servo_status *st);

/**
 * gpsphc_servo_configure() - change the settings, keeping the state
 * @s: the servo.
 * @cfg: new settings, copied. Out-of-range values are clamped to the
 *	nearest allowed one (documented with each field).
 *
 * A change of &gpsphc_servo_cfg.clock_servo starts the new estimator from
 * the servo's rate at the next edge: the servo relocks if it was LOCKED.
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
