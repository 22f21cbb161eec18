/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/gpsphc.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_GPSPHC_H
#define _UAPI_LINUX_GPSPHC_H

#define GPSPHC_GENL_NAME	"gpsphc"
#define GPSPHC_GENL_VERSION	3

#define GPSPHC_SENTENCE_MAX	160

/**
 * enum gpsphc_edge - A DCD edge kind, and which kind is on time (the PPS
 *   "assert" edge); valid values for GPSPHC_A_DEV_EDGE and GPSPHC_A_PPS_EDGE.
 * @GPSPHC_EDGE_RISING: DCD went from low to high (carrier detected).
 * @GPSPHC_EDGE_FALLING: DCD went from high to low.
 */
enum gpsphc_edge {
	GPSPHC_EDGE_RISING = 1,
	GPSPHC_EDGE_FALLING,

	/* private: */
	__GPSPHC_EDGE_MAX,
	GPSPHC_EDGE_MAX = (__GPSPHC_EDGE_MAX - 1)
};

/**
 * enum gpsphc_csum - Checksum status of a framed sentence; valid values for
 *   GPSPHC_A_SENT_CSUM.
 * @GPSPHC_CSUM_OK: The sentence ends in "*hh" (hex, either case) and hh is the
 *   XOR of every byte between the start byte and the '*'.
 * @GPSPHC_CSUM_MISSING: The sentence holds no '*' at all.
 * @GPSPHC_CSUM_BAD: The sentence ends in "*hh" and hh does not match, or it
 *   holds a '*' that is not followed by exactly two hex digits and the end of
 *   the sentence.
 */
enum gpsphc_csum {
	GPSPHC_CSUM_OK = 1,
	GPSPHC_CSUM_MISSING,
	GPSPHC_CSUM_BAD,

	/* private: */
	__GPSPHC_CSUM_MAX,
	GPSPHC_CSUM_MAX = (__GPSPHC_CSUM_MAX - 1)
};

#define GPSPHC_LABEL_HISTORY	32
#define GPSPHC_COARSE_AFTER_S	600
#define GPSPHC_SENTENCE_GAP_MS	200

/**
 * enum gpsphc_scale - The timescale the PTP clock reads in; valid values for
 *   GPSPHC_A_DEV_SCALE.
 * @GPSPHC_SCALE_TAI: TAI seconds since 1970, the PTP timescale (37 s ahead of
 *   UTC since 2017). The default.
 * @GPSPHC_SCALE_UTC: UTC as POSIX counts it: the clock reads TAI minus the
 *   current TAI - UTC, and a pending leap second changes that at its instant
 *   (an inserted 23:59:60 reads as a repeat of 23:59:59, a deleted 23:59:59 is
 *   skipped).
 */
enum gpsphc_scale {
	GPSPHC_SCALE_TAI = 1,
	GPSPHC_SCALE_UTC,

	/* private: */
	__GPSPHC_SCALE_MAX,
	GPSPHC_SCALE_MAX = (__GPSPHC_SCALE_MAX - 1)
};

/**
 * enum gpsphc_clock_servo - The servo's estimator, which turns the offsets of
 *   the counted edges into the clock's rate; valid values for
 *   GPSPHC_A_DEV_CLOCK_SERVO. Counting, labels, steps, holdover and the servo
 *   states are the same with either.
 * @GPSPHC_CLOCK_SERVO_BANK: A bank of Kalman filters of the edges' raw times,
 *   weighted by how well each predicted the recent edges, with outlier
 *   rejection. The default.
 * @GPSPHC_CLOCK_SERVO_PI: linuxptp's PI servo (its clock_servo pi), with its
 *   gains for hardware time stamps at one sample a second: kp 0.7, ki 0.3. No
 *   outlier rejection: an offset beyond step-ns relocks and steps.
 */
enum gpsphc_clock_servo {
	GPSPHC_CLOCK_SERVO_BANK = 1,
	GPSPHC_CLOCK_SERVO_PI,

	/* private: */
	__GPSPHC_CLOCK_SERVO_MAX,
	GPSPHC_CLOCK_SERVO_MAX = (__GPSPHC_CLOCK_SERVO_MAX - 1)
};

/**
 * enum gpsphc_leap - A leap second announced for the end of a UTC day; valid
 *   values for GPSPHC_A_TIME_LEAP and GPSPHC_A_SERVO_LEAP.
 * @GPSPHC_LEAP_NONE: No leap second pending.
 * @GPSPHC_LEAP_INSERT: The day ends with 23:59:60: TAI - UTC grows by one
 *   second at the midnight that ends it.
 * @GPSPHC_LEAP_DELETE: The day ends with 23:59:58: 23:59:59 is skipped and TAI
 *   - UTC shrinks by one second.
 */
enum gpsphc_leap {
	GPSPHC_LEAP_NONE = 1,
	GPSPHC_LEAP_INSERT,
	GPSPHC_LEAP_DELETE,

	/* private: */
	__GPSPHC_LEAP_MAX,
	GPSPHC_LEAP_MAX = (__GPSPHC_LEAP_MAX - 1)
};

/**
 * enum gpsphc_servo_state - State of the clock servo; valid values for
 *   GPSPHC_A_SERVO_STATE.
 * @GPSPHC_SERVO_UNLOCKED: No label yet, or none since a user adjusted the
 *   clock (settime, adjtime, adjfine). Edges are counted and kept; the clock
 *   is left alone.
 * @GPSPHC_SERVO_LOCKING: Labelled and converging: offsets above step-ns are
 *   stepped, smaller ones slewed with the fastest gains.
 * @GPSPHC_SERVO_LOCKED: Following the PPS: the last offsets were small; a
 *   large offset is rejected as an outlier before it is believed.
 * @GPSPHC_SERVO_HOLDOVER: The PPS is lost (no on-time edge for a while): the
 *   clock keeps the last frequency estimate until edges return.
 * @GPSPHC_SERVO_OFF: The servo is off (servo-off): it leaves the clock to
 *   whatever else steers it.
 */
enum gpsphc_servo_state {
	GPSPHC_SERVO_UNLOCKED = 1,
	GPSPHC_SERVO_LOCKING,
	GPSPHC_SERVO_LOCKED,
	GPSPHC_SERVO_HOLDOVER,
	GPSPHC_SERVO_OFF,

	/* private: */
	__GPSPHC_SERVO_MAX,
	GPSPHC_SERVO_MAX = (__GPSPHC_SERVO_MAX - 1)
};

enum gpsphc_dev_attrs {
	GPSPHC_A_DEV_UNSPEC,
	GPSPHC_A_DEV_ID,
	GPSPHC_A_DEV_TTY,
	GPSPHC_A_DEV_PPS_INDEX,
	GPSPHC_A_DEV_EDGE,
	GPSPHC_A_DEV_STATS,
	GPSPHC_A_DEV_PPS,
	GPSPHC_A_DEV_SENTENCE,
	GPSPHC_A_DEV_PAD,
	GPSPHC_A_DEV_PTP_INDEX,
	GPSPHC_A_DEV_SCALE,
	GPSPHC_A_DEV_STEP_NS,
	GPSPHC_A_DEV_CONFIRM_N,
	GPSPHC_A_DEV_RX_LATENCY_NS,
	GPSPHC_A_DEV_SERVO,
	GPSPHC_A_DEV_TIME,
	GPSPHC_A_DEV_SERVO_OFF,
	GPSPHC_A_DEV_CLOCK_SERVO,
	GPSPHC_A_DEV_PPS_GPIO,

	__GPSPHC_A_DEV_MAX,
	GPSPHC_A_DEV_MAX = (__GPSPHC_A_DEV_MAX - 1)
};

enum gpsphc_stats_attrs {
	GPSPHC_A_STATS_UNSPEC,
	GPSPHC_A_STATS_SENTENCES,
	GPSPHC_A_STATS_CSUM_OK,
	GPSPHC_A_STATS_CSUM_MISSING,
	GPSPHC_A_STATS_CSUM_BAD,
	GPSPHC_A_STATS_OVERLONG,
	GPSPHC_A_STATS_TRUNCATED,
	GPSPHC_A_STATS_INVALID,
	GPSPHC_A_STATS_FLAG_ABORTS,
	GPSPHC_A_STATS_FLAG_BYTES,
	GPSPHC_A_STATS_NOISE_BYTES,
	GPSPHC_A_STATS_BINARY_FRAMES,
	GPSPHC_A_STATS_BINARY_BAD,
	GPSPHC_A_STATS_PPS_EDGES,
	GPSPHC_A_STATS_PPS_MISSED,
	GPSPHC_A_STATS_EVENTS_DROPPED,
	GPSPHC_A_STATS_PAD,

	__GPSPHC_A_STATS_MAX,
	GPSPHC_A_STATS_MAX = (__GPSPHC_A_STATS_MAX - 1)
};

enum gpsphc_pps_attrs {
	GPSPHC_A_PPS_UNSPEC,
	GPSPHC_A_PPS_SEQ,
	GPSPHC_A_PPS_RAW_NS,
	GPSPHC_A_PPS_REAL_NS,
	GPSPHC_A_PPS_EDGE,
	GPSPHC_A_PPS_ASSERT,
	GPSPHC_A_PPS_PAD,
	GPSPHC_A_PPS_SECOND,

	__GPSPHC_A_PPS_MAX,
	GPSPHC_A_PPS_MAX = (__GPSPHC_A_PPS_MAX - 1)
};

enum gpsphc_sentence_attrs {
	GPSPHC_A_SENT_UNSPEC,
	GPSPHC_A_SENT_SEQ,
	GPSPHC_A_SENT_RAW_NS,
	GPSPHC_A_SENT_REAL_NS,
	GPSPHC_A_SENT_DATA,
	GPSPHC_A_SENT_CSUM,
	GPSPHC_A_SENT_PAD,
	GPSPHC_A_SENT_SECOND,

	__GPSPHC_A_SENT_MAX,
	GPSPHC_A_SENT_MAX = (__GPSPHC_A_SENT_MAX - 1)
};

enum gpsphc_time_attrs {
	GPSPHC_A_TIME_UNSPEC,
	GPSPHC_A_TIME_EDGE_SEQ,
	GPSPHC_A_TIME_TAI_SEC,
	GPSPHC_A_TIME_TAI_UTC,
	GPSPHC_A_TIME_LEAP,
	GPSPHC_A_TIME_LEAP_UTC,
	GPSPHC_A_TIME_PAD,
	GPSPHC_A_TIME_SENTENCE_SEQ,
	GPSPHC_A_TIME_OFF_S,
	GPSPHC_A_TIME_CONFIRMED,

	__GPSPHC_A_TIME_MAX,
	GPSPHC_A_TIME_MAX = (__GPSPHC_A_TIME_MAX - 1)
};

enum gpsphc_servo_attrs {
	GPSPHC_A_SERVO_UNSPEC,
	GPSPHC_A_SERVO_STATE,
	GPSPHC_A_SERVO_OFFSET_NS,
	GPSPHC_A_SERVO_RMS_NS,
	GPSPHC_A_SERVO_FREQ_PPB,
	GPSPHC_A_SERVO_TAI_UTC,
	GPSPHC_A_SERVO_LEAP,
	GPSPHC_A_SERVO_LEAP_UTC,
	GPSPHC_A_SERVO_HOLDOVER_S,
	GPSPHC_A_SERVO_COARSE,
	GPSPHC_A_SERVO_LABELS,
	GPSPHC_A_SERVO_LABELS_REFUSED,
	GPSPHC_A_SERVO_DISAGREEMENTS,
	GPSPHC_A_SERVO_STEPS,
	GPSPHC_A_SERVO_OUTLIERS,
	GPSPHC_A_SERVO_PAD,
	GPSPHC_A_SERVO_SPURIOUS,
	GPSPHC_A_SERVO_RELOCKS,
	GPSPHC_A_SERVO_HOLDOVERS,
	GPSPHC_A_SERVO_OFF_PHASE_COUNT,
	GPSPHC_A_SERVO_OFF_PHASE_NS,
	GPSPHC_A_SERVO_REPHASES,

	__GPSPHC_A_SERVO_MAX,
	GPSPHC_A_SERVO_MAX = (__GPSPHC_A_SERVO_MAX - 1)
};

enum gpsphc_cmd {
	GPSPHC_CMD_UNSPEC,
	GPSPHC_CMD_DEV_GET,
	GPSPHC_CMD_DEV_SET,
	GPSPHC_CMD_PPS_NTF,
	GPSPHC_CMD_SENTENCE_NTF,
	GPSPHC_CMD_TIME_SET,
	GPSPHC_CMD_STATE_NTF,
	GPSPHC_CMD_LABEL_NTF,

	__GPSPHC_CMD_MAX,
	GPSPHC_CMD_MAX = (__GPSPHC_CMD_MAX - 1)
};

#define GPSPHC_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_GPSPHC_H */
