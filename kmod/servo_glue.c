// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: between the servo (servo.c, pure) and the clock (phc.c). Feeds
 * the servo every on-time edge and every label, applies what it asks for
 * to the clock, keeps the labels' TAI - UTC and leap second, and turns
 * state changes into notifications. Everything here runs under phc_lock,
 * which the DCD interrupt takes.
 */

#include <linux/ptp_clock_kernel.h>
#include <linux/stringify.h>
#include <net/netlink.h>

#include "gpsphc.h"

/**
 * gpsphc_servo_glue_init() - set up the servo of a new device
 * @gdev: the device, before its clock is registered
 */
void gpsphc_servo_glue_init(struct gpsphc_dev *gdev)
{
	struct gpsphc_servo_cfg cfg;

	gpsphc_servo_default_cfg(&cfg);
	gpsphc_servo_init(&gdev->servo, &cfg);
	gdev->step_ns = cfg.step_threshold_ns;
	gdev->confirm_n = cfg.confirm_n;
	gdev->rx_latency_ns = cfg.rx_latency_ns;
	gdev->servo_out.state = GPSPHC_SERVO_UNLOCKED;
}

/* Ask the worker for a state notification, if anyone listens. */
static void gpsphc_glue_notify_locked(struct gpsphc_dev *gdev)
{
	if (!gpsphc_notify_wanted())
		return;
	gdev->servo_notify = true;
	schedule_work(&gdev->ntf_work);
}

/* Apply what the servo asked for, from @raw on. */
static void gpsphc_glue_apply_locked(struct gpsphc_dev *gdev, u64 raw,
				     const struct gpsphc_servo_out *out)
{
	if (out->flags & GPSPHC_SERVO_OUT_STEP)
		gpsphc_phc_step_locked(gdev, raw, out->step_ns);
	if (out->flags & GPSPHC_SERVO_OUT_ADJ)
		gpsphc_phc_set_adj_locked(gdev, raw, out->adj);
	gdev->servo_out = *out;
	if (out->flags & GPSPHC_SERVO_OUT_STATE)
		gpsphc_glue_notify_locked(gdev);
}

/**
 * gpsphc_servo_glue_edge() - an on-time edge for the servo and EXTTS
 * @gdev: the device
 * @raw: the edge's CLOCK_MONOTONIC_RAW timestamp
 * @seq: its PPS sequence number, by which labels name it
 *
 * Context: the DCD interrupt.
 */
void gpsphc_servo_glue_edge(struct gpsphc_dev *gdev, u64 raw, u32 seq)
{
	struct gpsphc_servo_out out;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&gdev->phc_lock, flags);
	i = gdev->label_edges % GPSPHC_LABEL_HISTORY;
	gdev->label_seq[i] = seq;
	gdev->label_raw[i] = raw;
	gdev->label_edges++;

	gpsphc_servo_edge(&gdev->servo, GPSPHC_SERVO_INPUT_PPS, raw,
			  gpsphc_phc_tai_locked(gdev, raw), &out);
	gpsphc_glue_apply_locked(gdev, raw, &out);
	gpsphc_phc_leap_done_locked(gdev, gpsphc_phc_tai_locked(gdev, raw));
	gpsphc_phc_extts_locked(gdev, raw);
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
}

/**
 * gpsphc_servo_glue_tick() - let the servo see time pass (holdover)
 * @gdev: the device
 *
 * Context: the clock's aux worker, a few times a second.
 */
void gpsphc_servo_glue_tick(struct gpsphc_dev *gdev)
{
	struct gpsphc_servo_out out;
	unsigned long flags;
	u64 now;

	spin_lock_irqsave(&gdev->phc_lock, flags);
	now = ktime_get_raw_ns();
	gpsphc_servo_tick(&gdev->servo, now, &out);
	gpsphc_glue_apply_locked(gdev, now, &out);
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
}

/**
 * gpsphc_servo_glue_reset_locked() - someone else moved the clock
 * @gdev: the device
 *
 * The count no longer matches the clock: the servo waits for a label.
 *
 * Context: phc_lock held.
 */
void gpsphc_servo_glue_reset_locked(struct gpsphc_dev *gdev)
{
	gpsphc_servo_reset(&gdev->servo);
	if (gdev->servo_out.state != GPSPHC_SERVO_UNLOCKED) {
		gdev->servo_out.state = GPSPHC_SERVO_UNLOCKED;
		gdev->servo_out.offset_ns = 0;
		gdev->servo_out.rms_ns = 0;
		gpsphc_glue_notify_locked(gdev);
	}
}

/**
 * gpsphc_servo_glue_take_notify() - is a state notification due?
 * @gdev: the device
 *
 * Return: true once per request made since the last call.
 */
bool gpsphc_servo_glue_take_notify(struct gpsphc_dev *gdev)
{
	unsigned long flags;
	bool due;

	spin_lock_irqsave(&gdev->phc_lock, flags);
	due = gdev->servo_notify;
	gdev->servo_notify = false;
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
	return due;
}

/* The raw time of on-time edge @seq, if it is among the recent ones. */
static int gpsphc_glue_find_edge_locked(struct gpsphc_dev *gdev, u32 seq,
					u64 *raw, struct netlink_ext_ack *extack)
{
	unsigned int n = min_t(unsigned int, gdev->label_edges,
			       GPSPHC_LABEL_HISTORY);
	unsigned int i;
	u32 oldest;

	for (i = 0; i < n; i++) {
		if (gdev->label_seq[i] == seq) {
			*raw = gdev->label_raw[i];
			return 0;
		}
	}
	if (!n || (s32)(seq - READ_ONCE(gdev->pps_seq)) >= 0) {
		NL_SET_ERR_MSG(extack, "no such edge yet: label an edge after it happened");
		return -ENOENT;
	}
	oldest = gdev->label_seq[gdev->label_edges % n];
	if ((s32)(seq - oldest) < 0) {
		NL_SET_ERR_MSG(extack,
			       "edge too old: only the last " __stringify(GPSPHC_LABEL_HISTORY)
			       " on-time edges can be labelled");
		return -ENOENT;
	}
	NL_SET_ERR_MSG(extack,
		       "not an on-time edge: label the edges the events mark as assert");
	return -EINVAL;
}

/**
 * gpsphc_servo_glue_label() - userspace says which TAI second an edge is
 * @gdev: the device
 * @seq: the on-time edge's sequence number
 * @tai_sec: TAI seconds since 1970 at that edge
 * @tai_utc: TAI - UTC at that edge
 * @leap: enum gpsphc_leap announced
 * @leap_utc: POSIX seconds of the midnight ending the leap day, or 0
 * @extack: for the reason of a refusal
 *
 * Context: process (netlink).
 * Return: 0 when the label was taken (also when it disagreed and waits for
 * confirmation), else a negative errno with a message in @extack.
 */
int gpsphc_servo_glue_label(struct gpsphc_dev *gdev, u32 seq, u64 tai_sec,
			    u32 tai_utc, u32 leap, u64 leap_utc,
			    struct netlink_ext_ack *extack)
{
	struct gpsphc_servo_out out;
	bool disagreed = false;
	unsigned long flags;
	u64 raw, now;
	int ret;

	spin_lock_irqsave(&gdev->phc_lock, flags);
	ret = gpsphc_glue_find_edge_locked(gdev, seq, &raw, extack);
	if (ret) {
		gdev->labels_unmatched++;
		goto out_unlock;
	}
	now = ktime_get_raw_ns();
	ret = gpsphc_servo_label(&gdev->servo, raw, tai_sec, now,
				 gpsphc_phc_tai_locked(gdev, now), &out);
	switch (ret) {
	case GPSPHC_SERVO_LABEL_SET:
	case GPSPHC_SERVO_LABEL_AGREE:
	case GPSPHC_SERVO_LABEL_APPLIED:
		disagreed = ret == GPSPHC_SERVO_LABEL_APPLIED;
		gpsphc_glue_apply_locked(gdev, now, &out);
		gdev->tai_utc = tai_utc;
		gdev->leap = leap;
		gdev->leap_utc = leap == GPSPHC_LEAP_NONE ? 0 : leap_utc;
		ret = 0;
		break;
	case GPSPHC_SERVO_LABEL_DISAGREE:
		disagreed = true;
		gpsphc_glue_apply_locked(gdev, now, &out);
		ret = 0;
		break;
	case GPSPHC_SERVO_LABEL_UNKNOWN:
		NL_SET_ERR_MSG(extack, "the servo no longer has this edge: label a newer one");
		ret = -ENOENT;
		break;
	case GPSPHC_SERVO_LABEL_FUTURE:
		NL_SET_ERR_MSG(extack, "the edge is later than every edge the servo has seen");
		ret = -ENOENT;
		break;
	case GPSPHC_SERVO_LABEL_RANGE:
		NL_SET_ERR_MSG(extack,
			       "the TAI second contradicts the edge count (earlier than the edges already counted) or is past 2262");
		ret = -ERANGE;
		break;
	default:
		NL_SET_ERR_MSG(extack,
			       "that edge was not counted as a second (less than half a second after the one before)");
		ret = -EINVAL;
		break;
	}
out_unlock:
	spin_unlock_irqrestore(&gdev->phc_lock, flags);

	/* Loud: a label that disagreed, and the one that moved the count. */
	if (disagreed)
		gpsphc_notify_label(gdev, seq, tai_sec);
	return ret;
}

/**
 * gpsphc_servo_glue_status() - the servo as sysfs and netlink show it
 * @gdev: the device
 * @st: filled in
 */
void gpsphc_servo_glue_status(struct gpsphc_dev *gdev,
			      struct gpsphc_servo_status *st)
{
	const struct gpsphc_servo_counters *c = &gdev->servo.counters;
	unsigned long flags;

	spin_lock_irqsave(&gdev->phc_lock, flags);
	st->state = gdev->servo_out.state;
	st->offset_ns = gdev->servo_out.offset_ns;
	st->rms_ns = gdev->servo_out.rms_ns;
	st->freq_ppb = div_s64(gdev->phc_adj, GPSPHC_SERVO_ADJ_PER_PPB);
	st->tai_utc = gdev->tai_utc;
	st->leap = gdev->leap;
	st->leap_utc = gdev->leap_utc;
	st->holdover_s = div_u64(gdev->servo_out.holdover_ns, NSEC_PER_SEC);
	st->coarse = gdev->servo_out.flags & GPSPHC_SERVO_OUT_COARSE;
	st->labels = c->labels;
	st->labels_refused = c->labels_refused + gdev->labels_unmatched;
	st->disagreements = c->disagreements;
	st->steps = c->steps;
	st->outliers = c->outliers;
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
}

/**
 * gpsphc_servo_glue_set_u64() - change one setting
 * @gdev: the device
 * @attr: GPSPHC_A_DEV_SCALE, _STEP_NS, _CONFIRM_N or _RX_LATENCY_NS
 * @v: the new value, already range-checked by the caller
 */
void gpsphc_servo_glue_set_u64(struct gpsphc_dev *gdev, int attr, u64 v)
{
	struct gpsphc_servo_cfg cfg;
	unsigned long flags;

	spin_lock_irqsave(&gdev->phc_lock, flags);
	cfg = gdev->servo.cfg;
	switch (attr) {
	case GPSPHC_A_DEV_SCALE:
		gdev->scale = v;
		break;
	case GPSPHC_A_DEV_STEP_NS:
		gdev->step_ns = v;
		cfg.step_threshold_ns = v;
		break;
	case GPSPHC_A_DEV_CONFIRM_N:
		gdev->confirm_n = v;
		cfg.confirm_n = v;
		break;
	case GPSPHC_A_DEV_RX_LATENCY_NS:
		gdev->rx_latency_ns = v;
		cfg.rx_latency_ns = v;
		break;
	}
	gpsphc_servo_configure(&gdev->servo, &cfg);
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
}

/**
 * gpsphc_servo_glue_settings() - apply the settings a dev-set carries
 * @gdev: the device
 * @attrs: the request's attributes, validated by the dev-set policy
 */
void gpsphc_servo_glue_settings(struct gpsphc_dev *gdev, struct nlattr **attrs)
{
	if (attrs[GPSPHC_A_DEV_SCALE])
		gpsphc_servo_glue_set_u64(gdev, GPSPHC_A_DEV_SCALE,
					  nla_get_u32(attrs[GPSPHC_A_DEV_SCALE]));
	if (attrs[GPSPHC_A_DEV_STEP_NS])
		gpsphc_servo_glue_set_u64(gdev, GPSPHC_A_DEV_STEP_NS,
					  nla_get_u64(attrs[GPSPHC_A_DEV_STEP_NS]));
	if (attrs[GPSPHC_A_DEV_CONFIRM_N])
		gpsphc_servo_glue_set_u64(gdev, GPSPHC_A_DEV_CONFIRM_N,
					  nla_get_u32(attrs[GPSPHC_A_DEV_CONFIRM_N]));
	if (attrs[GPSPHC_A_DEV_RX_LATENCY_NS])
		gpsphc_servo_glue_set_u64(gdev, GPSPHC_A_DEV_RX_LATENCY_NS,
					  nla_get_u64(attrs[GPSPHC_A_DEV_RX_LATENCY_NS]));
}
