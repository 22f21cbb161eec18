/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc: the clock's API (servo_glue.c), to the layers above it: its
 * settings, the labels userspace gives it and what it makes of them, its
 * status, and its handlers of the inputs that capture queues
 * (struct gpsphc_clock_input, events.h). The time base itself is phc.h's.
 */
#ifndef _GPSPHC_SERVO_GLUE_H
#define _GPSPHC_SERVO_GLUE_H

#include <linux/types.h>

struct gpsphc_clock_input;
struct gpsphc_dev;
struct gpsphc_servo_counters;

/**
 * struct gpsphc_clock_settings - a change of the clock's settings
 * @change:	the fields to apply, by their netlink attributes:
 *		BIT(GPSPHC_A_DEV_SCALE), ... (others are ignored)
 * @scale:	enum gpsphc_scale the clock reads in
 * @step_ns:	offsets above this are stepped, not slewed
 * @confirm_n:	labels needed to move the kernel's count
 * @rx_latency_ns: coarse mode: receiver's second to first sentence start
 * @servo_off:	the servo leaves the clock alone
 * @clock_servo: enum gpsphc_clock_servo: the servo's estimator
 *
 * The interfaces (netlink's dev-set, the sysfs files) fill it, range
 * checked as the spec says, and gpsphc_servo_glue_apply() applies it in
 * one go, so that a dev-set changing several settings is never seen half
 * applied.
 */
struct gpsphc_clock_settings {
	unsigned int change;
	u32 scale;
	u64 step_ns;
	u32 confirm_n;
	u64 rx_latency_ns;
	bool servo_off;
	u32 clock_servo;
};

/**
 * struct gpsphc_label - a time-set request, checked for range
 * @seq:	what it labels: an on-time edge's PPS seq, or with @sentence
 *		the seq of a sentence that started a second
 * @sentence:	coarse mode: @seq names a sentence
 * @tai_sec:	TAI seconds since 1970 at that input
 * @tai_utc:	TAI - UTC there
 * @leap:	enum gpsphc_leap announced
 * @leap_utc:	POSIX seconds of the midnight ending the leap day, or 0
 */
struct gpsphc_label {
	u32 seq;
	bool sentence;
	u64 tai_sec;
	u32 tai_utc;
	u32 leap;
	u64 leap_utc;
};

/**
 * struct gpsphc_label_report - how far the kernel is with a disagreement
 * @off_s:	the label's second less the count's; 0 when it agreed
 * @confirmed:	labels of consecutive inputs in a row proposing @off_s,
 *		this one the last; at @confirm_n the count moved
 * @confirm_n:	the labels in a row a change of the count needs
 */
struct gpsphc_label_report {
	s64 off_s;
	u32 confirmed;
	u32 confirm_n;
};

/**
 * enum gpsphc_label_verdict - what the clock made of a label
 * @GPSPHC_LABEL_TAKEN: it set the clock or agreed with the count
 * @GPSPHC_LABEL_LOUD: taken, and listeners must hear of it (label-ntf): it
 *	disagreed with the count (a jump pending, or confirmed and applied)
 *	or proposed or confirmed a change of TAI - UTC
 * @GPSPHC_LABEL_SERVO_OFF: refused: the servo is off
 * @GPSPHC_LABEL_NOT_YET: refused: no such input captured yet
 * @GPSPHC_LABEL_TOO_OLD: refused: older than the servo's history
 * @GPSPHC_LABEL_UNCOUNTED: refused: the input was not counted as a second
 * @GPSPHC_LABEL_OUT_OF_RANGE: refused: the second contradicts the count
 *	(before the inputs already counted) or is past year 2262
 */
enum gpsphc_label_verdict {
	GPSPHC_LABEL_TAKEN,
	GPSPHC_LABEL_LOUD,
	GPSPHC_LABEL_SERVO_OFF,
	GPSPHC_LABEL_NOT_YET,
	GPSPHC_LABEL_TOO_OLD,
	GPSPHC_LABEL_UNCOUNTED,
	GPSPHC_LABEL_OUT_OF_RANGE,
};

extern const struct gpsphc_clock_input gpsphc_clock_input;
int gpsphc_servo_glue_init(struct gpsphc_dev *gdev);
void gpsphc_servo_glue_free(struct gpsphc_dev *gdev);
void gpsphc_servo_glue_counters(struct gpsphc_dev *gdev,
				struct gpsphc_servo_counters *c);
void gpsphc_servo_glue_tick(struct gpsphc_dev *gdev);
void gpsphc_servo_glue_reset_locked(struct gpsphc_dev *gdev);
enum gpsphc_label_verdict
gpsphc_servo_glue_label(struct gpsphc_dev *gdev,
			const struct gpsphc_label *label,
			struct gpsphc_label_report *report);
void gpsphc_servo_glue_status(struct gpsphc_dev *gdev, u64 *st);
void gpsphc_servo_glue_apply(struct gpsphc_dev *gdev,
			     const struct gpsphc_clock_settings *set);
void gpsphc_servo_glue_settings(struct gpsphc_dev *gdev,
				struct gpsphc_clock_settings *set);

#endif /* _GPSPHC_SERVO_GLUE_H */
