// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: between the servo (kmod/servo/, pure) and the clock's time base
 * (phc.c). Feeds the servo every on-time edge, sentence and label,
 * applies what it asks for to the time base, keeps the labels' TAI - UTC
 * and leap second, and turns state changes into notifications.
 *
 * Everything here runs in process context under the device's servo_lock:
 * the event queue's worker hands it the edges the DCD interrupt captured,
 * the receive path its sentences, netlink the labels and settings, the
 * PTP core's aux worker the ticks and a user's steps. phc_lock, which the
 * interrupt takes for EXTTS, is held only around the time base itself:
 * reading it for the servo, and changing it as the servo asks. Lock order:
 * the event queue's order, then servo_lock, then phc_lock.
 */

#include <linux/ptp_clock_kernel.h>
#include <linux/timekeeping.h>

#include "dev.h"
#include "events.h"
#include "framer.h"
#include "phc.h"
#include "servo/servo.h"
#include "servo_glue.h"

/**
 * gpsphc_servo_glue_init() - set up the servo of a new device
 * @gdev: the device, its time base set up (gpsphc_phc_init()), before its
 *	clock is registered
 *
 * Context: process; allocates.
 * Return: 0, or -ENOMEM.
 */
int gpsphc_servo_glue_init(struct gpsphc_dev *gdev)
{
	struct gpsphc_clock_settings none = {};
	struct gpsphc_servo_cfg cfg;

	mutex_init(&gdev->servo_lock);
	gpsphc_servo_default_cfg(&cfg);
	gdev->servo = gpsphc_servo_create(&cfg);
	if (!gdev->servo)
		return -ENOMEM;
	gdev->servo_out.state = GPSPHC_SERVO_UNLOCKED;
	/* A change of nothing brings the default settings in range. */
	gpsphc_servo_glue_apply(gdev, &none);
	return 0;
}

/**
 * gpsphc_servo_glue_free() - free the servo of a device being freed
 * @gdev: the device, which nothing can reach any more
 *
 * Context: any (the device's RCU callback).
 */
void gpsphc_servo_glue_free(struct gpsphc_dev *gdev)
{
	gpsphc_servo_destroy(gdev->servo);
}

/* The servo's settings; under servo_lock. */
static void gpsphc_glue_cfg_locked(struct gpsphc_dev *gdev,
				   struct gpsphc_servo_cfg *cfg)
{
	lockdep_assert_held(&gdev->servo_lock);
	gpsphc_servo_settings(gdev->servo, cfg);
}

/* The clock's TAI time at @raw, for the servo. */
static s64 gpsphc_glue_tai(struct gpsphc_dev *gdev, u64 raw)
{
	unsigned long flags;
	s64 tai;

	spin_lock_irqsave(&gdev->phc_lock, flags);
	tai = gpsphc_phc_tai_locked(gdev, raw);
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
	return tai;
}

/*
 * Apply what the servo asked for, from @raw on if nobody has read the
 * clock at a later instant, else from now: see
 * gpsphc_phc_change_from_locked(). Most edges ask for nothing until the
 * first label, and then cost no clock read. Between the servo's read of
 * the time base and this, only readers can have used it: everything that
 * changes it holds servo_lock.
 */
static void gpsphc_glue_apply_locked(struct gpsphc_dev *gdev, u64 raw,
				     const struct gpsphc_servo_out *out)
{
	unsigned long flags;
	u32 was;

	lockdep_assert_held(&gdev->servo_lock);
	was = gdev->servo_out.flags;
	spin_lock_irqsave(&gdev->phc_lock, flags);
	if (out->flags & (GPSPHC_SERVO_OUT_STEP | GPSPHC_SERVO_OUT_ADJ))
		raw = gpsphc_phc_change_from_locked(gdev, raw);
	if (out->flags & GPSPHC_SERVO_OUT_STEP)
		gpsphc_phc_step_locked(gdev, raw, out->step_ns);
	if (out->flags & GPSPHC_SERVO_OUT_ADJ)
		gpsphc_phc_set_adj_locked(gdev, raw, out->adj);
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
	gdev->servo_out = *out;
	/* Off-phase pulses rising or gone are news like a state change. */
	if ((out->flags & GPSPHC_SERVO_OUT_STATE) ||
	    ((was ^ out->flags) & GPSPHC_SERVO_OUT_OFF_PHASE))
		gpsphc_events_post_state(gdev);
}

/* Retire a leap second that is past at @raw, an input just applied. */
static void gpsphc_glue_leap_done(struct gpsphc_dev *gdev, u64 raw)
{
	unsigned long flags;

	spin_lock_irqsave(&gdev->phc_lock, flags);
	gpsphc_phc_leap_done_locked(gdev, raw);
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
}

/* What the servo made of an input, for the input's notification. */
static void gpsphc_glue_count(const struct gpsphc_servo_out *out,
			      struct gpsphc_count *count)
{
	count->counted = out->flags & GPSPHC_SERVO_OUT_USED;
	count->second = count->counted ? out->edge_num : 0;
}

/*
 * An on-time edge, from the event queue's worker: count it, steer the
 * clock with it. The servo counts seconds with its servo off too (it is
 * unlabelled then, and asks for nothing), so that notifications always
 * carry the count.
 */
static void gpsphc_glue_edge(struct gpsphc_dev *gdev,
			     struct gpsphc_pps_event *ev)
{
	struct gpsphc_servo_out out;

	mutex_lock(&gdev->servo_lock);
	gpsphc_servo_edge(gdev->servo, GPSPHC_SERVO_INPUT_PPS, ev->seq,
			  ev->raw_ns, gpsphc_glue_tai(gdev, ev->raw_ns), &out);
	/*
	 * From the edge's capture when no clock read since has seen a later
	 * instant, else from now (gpsphc_phc_change_from_locked()): either
	 * way no value a reader got is rewritten.
	 */
	if (!gdev->servo_off)
		gpsphc_glue_apply_locked(gdev, ev->raw_ns, &out);
	gpsphc_glue_count(&out, &ev->count);
	gpsphc_glue_leap_done(gdev, ev->raw_ns);
	mutex_unlock(&gdev->servo_lock);
}

/*
 * A sentence start, for coarse mode, from the receive path. Only
 * sentences with a good checksum are inputs: noise that happens to start
 * with '$' must not start a second. The servo decides whether one starts
 * a second and whether sentences steer the clock at all (not while a PPS
 * comes); those it counts can be labelled.
 */
static void gpsphc_glue_sentence(struct gpsphc_dev *gdev,
				 const struct gpsphc_sentence *s,
				 struct gpsphc_count *count)
{
	struct gpsphc_servo_cfg cfg;
	struct gpsphc_servo_out out;
	u64 at;

	*count = (struct gpsphc_count){ };
	mutex_lock(&gdev->servo_lock);
	if (s->csum != GPSPHC_CSUM_OK) {
		gpsphc_servo_skip(gdev->servo, GPSPHC_SERVO_INPUT_SENTENCE,
				  s->seq);
		goto out_unlock;
	}
	/* The receiver's second began rx_latency_ns before the '$'. */
	gpsphc_glue_cfg_locked(gdev, &cfg);
	at = s->start_ns - min(s->start_ns, cfg.rx_latency_ns);
	gpsphc_servo_edge(gdev->servo, GPSPHC_SERVO_INPUT_SENTENCE, s->seq,
			  s->start_ns, gpsphc_glue_tai(gdev, at), &out);
	gpsphc_glue_count(&out, count);
	/*
	 * Sentences come while a PPS is present or in holdover: one the
	 * servo ignored must not replace its status (holdover_s).
	 */
	if (!(out.flags & GPSPHC_SERVO_OUT_USED) || gdev->servo_off)
		goto out_unlock;
	gpsphc_glue_apply_locked(gdev, ktime_get_raw_ns(), &out);
	gpsphc_glue_leap_done(gdev, at);
out_unlock:
	mutex_unlock(&gdev->servo_lock);
}

/*
 * What the clock does with each input, in order: dev.c hands it to the
 * event queue, which calls it for every edge before the edge's
 * notification and for every sentence before its own, so that capture
 * reaches the clock only through the queue (struct gpsphc_clock_input).
 */
const struct gpsphc_clock_input gpsphc_clock_input = {
	.edge = gpsphc_glue_edge,
	.sentence = gpsphc_glue_sentence,
	.extts = gpsphc_phc_extts,
};

/**
 * gpsphc_servo_glue_tick() - let the servo see time pass (holdover)
 * @gdev: the device
 *
 * Context: the clock's aux worker, a few times a second; sleeps.
 */
void gpsphc_servo_glue_tick(struct gpsphc_dev *gdev)
{
	struct gpsphc_servo_out out;
	u64 now;

	/* The edges captured before now first: the servo sees time in order. */
	gpsphc_events_try_flush(gdev);
	mutex_lock(&gdev->servo_lock);
	if (!gdev->servo_off) {
		now = ktime_get_raw_ns();
		gpsphc_servo_tick(gdev->servo, now, &out);
		gpsphc_glue_apply_locked(gdev, now, &out);
	}
	mutex_unlock(&gdev->servo_lock);
}

/* Show @state with no offset, RMS or holdover, notifying a change. */
static void gpsphc_glue_show_state_locked(struct gpsphc_dev *gdev,
					  enum gpsphc_servo_state state)
{
	bool changed = gdev->servo_out.state != state ||
		       (gdev->servo_out.flags & GPSPHC_SERVO_OUT_OFF_PHASE);

	lockdep_assert_held(&gdev->servo_lock);
	gdev->servo_out.state = state;
	gdev->servo_out.offset_ns = 0;
	gdev->servo_out.rms_ns = 0;
	gdev->servo_out.holdover_ns = 0;
	gdev->servo_out.flags = 0;
	if (changed)
		gpsphc_events_post_state(gdev);
}

/**
 * gpsphc_servo_glue_reset_locked() - someone else moved the clock
 * @gdev: the device
 *
 * The count no longer matches the clock: the servo waits for a label.
 *
 * Context: servo_lock held, since before the clock moved.
 */
void gpsphc_servo_glue_reset_locked(struct gpsphc_dev *gdev)
{
	lockdep_assert_held(&gdev->servo_lock);
	if (gdev->servo_off)
		return;
	gpsphc_servo_reset(gdev->servo);
	gpsphc_glue_show_state_locked(gdev, GPSPHC_SERVO_UNLOCKED);
}

/* Turn the servo off (someone else steers the clock) or back on. */
static void gpsphc_glue_servo_off_locked(struct gpsphc_dev *gdev, bool off)
{
	lockdep_assert_held(&gdev->servo_lock);
	if (off == gdev->servo_off)
		return;
	gdev->servo_off = off;
	/* Back on, it needs a label again; the edge history is kept. */
	gpsphc_servo_reset(gdev->servo);
	gpsphc_glue_show_state_locked(gdev, off ? GPSPHC_SERVO_OFF :
				      GPSPHC_SERVO_UNLOCKED);
}

/* Take TAI - UTC and the leap second from a label: the time base's too. */
static void gpsphc_glue_take_utc_locked(struct gpsphc_dev *gdev,
					const struct gpsphc_label *label)
{
	unsigned long flags;

	lockdep_assert_held(&gdev->servo_lock);
	spin_lock_irqsave(&gdev->phc_lock, flags);
	gdev->tai_utc = label->tai_utc;
	gdev->leap = label->leap;
	gdev->leap_utc = label->leap == GPSPHC_LEAP_NONE ? 0 : label->leap_utc;
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
	gdev->utc_pending.n = 0;
}

static bool gpsphc_glue_same_utc(const struct gpsphc_label *a,
				 u32 tai_utc, u32 leap, u64 leap_utc)
{
	return a->tai_utc == tai_utc && a->leap == leap &&
	       (a->leap == GPSPHC_LEAP_NONE || a->leap_utc == leap_utc);
}

/*
 * A label that agrees with the count may still change TAI - UTC or the
 * leap second: like a jump of the count, that takes labels of confirm_n
 * distinct consecutive edges proposing the same (a UTC-scale clock moves
 * by the difference). Return: true when this label confirmed a change.
 */
static bool gpsphc_glue_utc_confirmed_locked(struct gpsphc_dev *gdev,
					     const struct gpsphc_label *label,
					     u64 edge_num)
{
	struct gpsphc_label *p = &gdev->utc_proposed;
	struct gpsphc_servo_cfg cfg;
	bool same;

	lockdep_assert_held(&gdev->servo_lock);
	if (gpsphc_glue_same_utc(label, gdev->tai_utc, gdev->leap,
				 gdev->leap_utc)) {
		gdev->utc_pending.n = 0;
		return false;
	}
	same = gpsphc_glue_same_utc(label, p->tai_utc, p->leap, p->leap_utc);
	*p = *label;
	gpsphc_glue_cfg_locked(gdev, &cfg);
	if (!gpsphc_servo_confirm(&gdev->utc_pending, same, edge_num,
				  cfg.confirm_n))
		return false;
	gpsphc_glue_take_utc_locked(gdev, label);
	return true;
}

/* The verdict on a label the servo refused (@result). */
static enum gpsphc_label_verdict
gpsphc_glue_refused(struct gpsphc_dev *gdev, const struct gpsphc_label *label,
		    int result)
{
	switch (result) {
	case GPSPHC_SERVO_LABEL_FUTURE:
		/* A clear edge has a seq too, which the servo never sees. */
		if (!label->sentence &&
		    (s32)(label->seq - READ_ONCE(gdev->pps_seq)) < 0)
			return GPSPHC_LABEL_UNCOUNTED;
		return GPSPHC_LABEL_NOT_YET;
	case GPSPHC_SERVO_LABEL_UNKNOWN:
		return GPSPHC_LABEL_TOO_OLD;
	case GPSPHC_SERVO_LABEL_RANGE:
		return GPSPHC_LABEL_OUT_OF_RANGE;
	default:
		return GPSPHC_LABEL_UNCOUNTED;
	}
}

/**
 * gpsphc_servo_glue_label() - userspace says which TAI second an input is
 * @gdev: the device
 * @label: the label: an on-time edge or a sentence, its TAI second, TAI -
 *	UTC and the leap second announced
 * @report: filled in: how far a disagreement is confirmed (nothing
 *	disagrees in a label refused)
 *
 * An edge still queued for the clock is counted first, so that a label of
 * one captured a moment ago (read from /dev/ppsN, say) finds it.
 *
 * Context: process (netlink); sleeps.
 * Return: the verdict: taken (loud when it disagreed with the count or
 * changes TAI - UTC, which listeners must hear of), or why it was refused.
 */
enum gpsphc_label_verdict
gpsphc_servo_glue_label(struct gpsphc_dev *gdev,
			const struct gpsphc_label *label,
			struct gpsphc_label_report *report)
{
	enum gpsphc_label_verdict verdict;
	struct gpsphc_servo_status st;
	struct gpsphc_servo_cfg cfg;
	struct gpsphc_servo_out out;
	int ret;
	u64 now;

	if (!label->sentence && gpsphc_events_edge_queued(gdev, label->seq))
		gpsphc_events_flush(gdev);
	mutex_lock(&gdev->servo_lock);
	gpsphc_glue_cfg_locked(gdev, &cfg);
	*report = (struct gpsphc_label_report){
		.confirm_n = cfg.confirm_n,
	};
	if (gdev->servo_off) {
		gdev->labels_while_off++;
		verdict = GPSPHC_LABEL_SERVO_OFF;
		goto out_unlock;
	}
	now = ktime_get_raw_ns();
	ret = gpsphc_servo_label(gdev->servo, label->sentence ?
				 GPSPHC_SERVO_INPUT_SENTENCE :
				 GPSPHC_SERVO_INPUT_PPS, label->seq,
				 label->tai_sec, now, gpsphc_glue_tai(gdev, now),
				 &out);
	switch (ret) {
	case GPSPHC_SERVO_LABEL_SET:
		gpsphc_glue_apply_locked(gdev, now, &out);
		gpsphc_glue_take_utc_locked(gdev, label);
		verdict = GPSPHC_LABEL_TAKEN;
		break;
	case GPSPHC_SERVO_LABEL_APPLIED:
		report->off_s = div_s64(out.step_ns, NSEC_PER_SEC);
		report->confirmed = report->confirm_n;
		fallthrough;
	case GPSPHC_SERVO_LABEL_AGREE:
		gpsphc_glue_apply_locked(gdev, now, &out);
		verdict = ret == GPSPHC_SERVO_LABEL_APPLIED ?
			  GPSPHC_LABEL_LOUD : GPSPHC_LABEL_TAKEN;
		/* A TAI - UTC change proposed or confirmed is loud too. */
		if (gpsphc_glue_utc_confirmed_locked(gdev, label, out.edge_num) ||
		    gdev->utc_pending.n)
			verdict = GPSPHC_LABEL_LOUD;
		break;
	case GPSPHC_SERVO_LABEL_DISAGREE:
		gpsphc_servo_status(gdev->servo, &st);
		report->off_s = st.pending_s;
		report->confirmed = st.pending_n;
		gpsphc_glue_apply_locked(gdev, now, &out);
		verdict = GPSPHC_LABEL_LOUD;
		break;
	default:
		verdict = gpsphc_glue_refused(gdev, label, ret);
		break;
	}
out_unlock:
	mutex_unlock(&gdev->servo_lock);
	return verdict;
}

/**
 * gpsphc_servo_glue_status() - the servo as sysfs and netlink show it
 * @gdev: the device
 * @st: filled, indexed by enum gpsphc_servo_attrs (the signed values as
 *	their two's complement); see struct gpsphc_servo_field
 */
void gpsphc_servo_glue_status(struct gpsphc_dev *gdev, u64 *st)
{
	const struct gpsphc_servo_counters *c;
	struct gpsphc_servo_status sst;
	unsigned long flags;
	bool off;

	mutex_lock(&gdev->servo_lock);
	gpsphc_servo_status(gdev->servo, &sst);
	c = &sst.counters;
	spin_lock_irqsave(&gdev->phc_lock, flags);
	st[GPSPHC_A_SERVO_FREQ_PPB] = div_s64(gdev->phc_adj,
					      GPSPHC_SERVO_ADJ_PER_PPB);
	st[GPSPHC_A_SERVO_TAI_UTC] = gdev->tai_utc;
	st[GPSPHC_A_SERVO_LEAP] = gdev->leap;
	st[GPSPHC_A_SERVO_LEAP_UTC] = gdev->leap_utc;
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
	st[GPSPHC_A_SERVO_UNSPEC] = 0;
	st[GPSPHC_A_SERVO_STATE] = gdev->servo_out.state;
	st[GPSPHC_A_SERVO_OFFSET_NS] = gdev->servo_out.offset_ns;
	st[GPSPHC_A_SERVO_RMS_NS] = gdev->servo_out.rms_ns;
	st[GPSPHC_A_SERVO_HOLDOVER_S] = div_u64(gdev->servo_out.holdover_ns,
						NSEC_PER_SEC);
	st[GPSPHC_A_SERVO_COARSE] =
		!!(gdev->servo_out.flags & GPSPHC_SERVO_OUT_COARSE);
	st[GPSPHC_A_SERVO_LABELS] = c->labels;
	st[GPSPHC_A_SERVO_LABELS_REFUSED] = c->labels_refused +
					    gdev->labels_while_off;
	st[GPSPHC_A_SERVO_DISAGREEMENTS] = c->disagreements;
	st[GPSPHC_A_SERVO_STEPS] = c->steps;
	st[GPSPHC_A_SERVO_OUTLIERS] = c->outliers;
	st[GPSPHC_A_SERVO_PAD] = 0;
	st[GPSPHC_A_SERVO_SPURIOUS] = c->spurious;
	st[GPSPHC_A_SERVO_RELOCKS] = c->relocks;
	st[GPSPHC_A_SERVO_HOLDOVERS] = c->holdovers;
	/* Shown from the second edge on: one alone is spurious, no phase. */
	off = gdev->servo_out.flags & GPSPHC_SERVO_OUT_OFF_PHASE;
	st[GPSPHC_A_SERVO_OFF_PHASE_COUNT] =
		off ? gdev->servo_out.off_phase_n : 0;
	st[GPSPHC_A_SERVO_OFF_PHASE_NS] =
		off ? gdev->servo_out.off_phase_ns : 0;
	st[GPSPHC_A_SERVO_REPHASES] = c->rephases;
	mutex_unlock(&gdev->servo_lock);
}

/**
 * gpsphc_servo_glue_counters() - the servo's counters
 * @gdev: the device
 * @c: filled in
 *
 * Context: process; takes servo_lock.
 */
void gpsphc_servo_glue_counters(struct gpsphc_dev *gdev,
				struct gpsphc_servo_counters *c)
{
	struct gpsphc_servo_status st;

	mutex_lock(&gdev->servo_lock);
	gpsphc_servo_status(gdev->servo, &st);
	mutex_unlock(&gdev->servo_lock);
	*c = st.counters;
}

/**
 * gpsphc_servo_glue_apply() - change settings of the clock and its servo
 * @gdev: the device
 * @set: the settings to change, already range-checked by the caller
 */
void gpsphc_servo_glue_apply(struct gpsphc_dev *gdev,
			     const struct gpsphc_clock_settings *set)
{
	struct gpsphc_servo_cfg cfg;
	unsigned long flags;

	mutex_lock(&gdev->servo_lock);
	gpsphc_glue_cfg_locked(gdev, &cfg);
	if (set->change & BIT(GPSPHC_A_DEV_SCALE)) {
		/* The time base reads in it. */
		spin_lock_irqsave(&gdev->phc_lock, flags);
		WRITE_ONCE(gdev->scale, set->scale);
		spin_unlock_irqrestore(&gdev->phc_lock, flags);
	}
	if (set->change & BIT(GPSPHC_A_DEV_STEP_NS))
		cfg.step_threshold_ns = set->step_ns;
	if (set->change & BIT(GPSPHC_A_DEV_CONFIRM_N))
		cfg.confirm_n = set->confirm_n;
	if (set->change & BIT(GPSPHC_A_DEV_RX_LATENCY_NS))
		cfg.rx_latency_ns = set->rx_latency_ns;
	if (set->change & BIT(GPSPHC_A_DEV_CLOCK_SERVO))
		cfg.clock_servo = set->clock_servo;
	if (set->change & BIT(GPSPHC_A_DEV_SERVO_OFF))
		gpsphc_glue_servo_off_locked(gdev, set->servo_off);
	gpsphc_servo_configure(gdev->servo, &cfg);
	mutex_unlock(&gdev->servo_lock);
}

/**
 * gpsphc_servo_glue_settings() - the clock's settings as they are now
 * @gdev: the device
 * @set: filled in, every field (@set->change is 0)
 *
 * Read together under servo_lock, so that a reader never sees one
 * dev-set half applied, nor a u64 torn on a 32-bit CPU.
 *
 * Context: process; takes servo_lock.
 */
void gpsphc_servo_glue_settings(struct gpsphc_dev *gdev,
				struct gpsphc_clock_settings *set)
{
	struct gpsphc_servo_cfg cfg;

	mutex_lock(&gdev->servo_lock);
	gpsphc_glue_cfg_locked(gdev, &cfg);
	*set = (struct gpsphc_clock_settings){
		.scale = READ_ONCE(gdev->scale),
		.step_ns = cfg.step_threshold_ns,
		.confirm_n = cfg.confirm_n,
		.rx_latency_ns = cfg.rx_latency_ns,
		.servo_off = gdev->servo_off,
		.clock_servo = cfg.clock_servo,
	};
	mutex_unlock(&gdev->servo_lock);
}
