/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gpsphc: generic netlink interface between the gpsphc line discipline and
 * its userspace helper (gpsphcd). Documentation/netlink/specs/gpsphc.yaml
 * describes the same family in YNL form; the two must agree.
 *
 * Family GPSPHC_GENL_NAME ("gpsphc"), version GPSPHC_GENL_VERSION, one
 * multicast group GPSPHC_MCGRP_EVENTS ("events"), which only a process with
 * CAP_NET_ADMIN may join (it carries every sentence, the receiver's
 * position among them). All times are
 * nanoseconds: "raw" on CLOCK_MONOTONIC_RAW, "real" on CLOCK_REALTIME
 * (since 1970), both read from one ktime_get_snapshot().
 *
 * GPSPHC_CMD_DEV_GET
 * ------------------
 * Do: the request holds one of
 *
 *    GPSPHC_A_DEV_ID: NLA_U32
 *    GPSPHC_A_DEV_TTY: NLA_NUL_STRING, e.g. "ttyS0"
 *
 * and the reply describes that device. Dump (NLM_F_DUMP, no attributes:
 * any is refused): one message per attached tty. Each reply holds:
 *
 *    GPSPHC_A_DEV_ID: NLA_U32, as in /sys/class/gpsphc/gpsphc<id>
 *    GPSPHC_A_DEV_TTY: NLA_NUL_STRING
 *    GPSPHC_A_DEV_PPS_INDEX: NLA_U32, N of /dev/ppsN
 *    GPSPHC_A_DEV_EDGE: NLA_U32, enum gpsphc_edge: the on-time edge
 *    GPSPHC_A_DEV_STATS: NLA_NESTED
 *        GPSPHC_A_STATS_*: NLA_U64 counters (see enum gpsphc_stats_attrs)
 *
 * GPSPHC_CMD_DEV_SET (needs CAP_NET_ADMIN and CAP_SYS_TIME: every setting
 * changes what the clock reads)
 * ----------------------------------------
 * Request: GPSPHC_A_DEV_ID (required) and any of:
 *
 *    GPSPHC_A_DEV_EDGE: NLA_U32, enum gpsphc_edge
 *
 * Nothing is changed unless every attribute is valid.
 *
 * GPSPHC_CMD_PPS_NTF (multicast, group "events")
 * ----------------------------------------------
 * One per DCD edge while someone listens to the group, in the order the
 * edges happened (an edge that finds 32 waiting is dropped and counted in
 * GPSPHC_A_STATS_EVENTS_DROPPED). Order edges and sentences by RAW_NS:
 * a sentence is sent when its end arrives.
 *
 *    GPSPHC_A_DEV_ID: NLA_U32
 *    GPSPHC_A_DEV_PPS: NLA_NESTED
 *        GPSPHC_A_PPS_SEQ: NLA_U32, per device, +1 per edge (both kinds)
 *        GPSPHC_A_PPS_RAW_NS: NLA_U64, taken first thing in dcd_change
 *        GPSPHC_A_PPS_REAL_NS: NLA_U64, same snapshot
 *        GPSPHC_A_PPS_EDGE: NLA_U32, enum gpsphc_edge: rising or falling
 *        GPSPHC_A_PPS_ASSERT: NLA_FLAG, present if this is the on-time edge
 *
 * GPSPHC_CMD_SENTENCE_NTF (multicast, group "events")
 * ---------------------------------------------------
 * One per complete sentence the framer found (bad checksums included, so
 * a capture shows them; consumers must check GPSPHC_A_SENT_CSUM):
 *
 *    GPSPHC_A_DEV_ID: NLA_U32
 *    GPSPHC_A_DEV_SENTENCE: NLA_NESTED
 *        GPSPHC_A_SENT_SEQ: NLA_U32, per device, +1 per sentence
 *        GPSPHC_A_SENT_RAW_NS: NLA_U64, arrival of the '$' or '!' byte
 *        GPSPHC_A_SENT_REAL_NS: NLA_U64, same instant on CLOCK_REALTIME
 *            (RAW_NS plus REALTIME - MONOTONIC_RAW at the chunk that
 *            ended the sentence: off by any step of the clock between)
 *        GPSPHC_A_SENT_DATA: NLA_BINARY, from '$'/'!' up to (not
 *            including) CR LF; at most GPSPHC_SENTENCE_MAX bytes
 *        GPSPHC_A_SENT_CSUM: NLA_U32, enum gpsphc_csum
 *
 * The start-byte timestamp comes from the tty receive path, which runs in
 * the flip-buffer worker after the UART interrupt: it is millisecond-grade,
 * good for telling which edge a sentence belongs to, not for timing.
 *
 * GPSPHC_CMD_TIME_SET (needs CAP_SYS_TIME)
 * ----------------------------------------
 * Tells the kernel which TAI second an on-time edge marks. Request:
 *
 *    GPSPHC_A_DEV_ID: NLA_U32 (required)
 *    GPSPHC_A_DEV_TIME: NLA_NESTED (required)
 *        GPSPHC_A_TIME_EDGE_SEQ: NLA_U32, GPSPHC_A_PPS_SEQ of an on-time
 *            edge among the last GPSPHC_LABEL_HISTORY ones
 *        GPSPHC_A_TIME_SENTENCE_SEQ: NLA_U32, coarse mode (below): the
 *            GPSPHC_A_SENT_SEQ of a sentence that starts a second, among
 *            the last GPSPHC_LABEL_HISTORY such sentences
 *        GPSPHC_A_TIME_TAI_SEC: NLA_U64, TAI seconds since 1970 at that
 *            edge (or at the start of that sentence's second), the PTP
 *            timescale (required)
 *        GPSPHC_A_TIME_TAI_UTC: NLA_U32, TAI - UTC in seconds at that
 *            edge, 10..1000 (required)
 *        GPSPHC_A_TIME_LEAP: NLA_U32, enum gpsphc_leap: a leap second
 *            announced for the end of a UTC day (default NONE)
 *        GPSPHC_A_TIME_LEAP_UTC: NLA_U64, with INSERT or DELETE: the UTC
 *            (POSIX) seconds of the midnight that ends the leap day
 *
 * The first label steps the clock. Later ones confirm the count the kernel
 * keeps by itself (+1 s per edge, missed pulses judged from the timing);
 * one that disagrees by whole seconds is accepted but only counted and
 * notified (GPSPHC_CMD_LABEL_NTF, sent before the reply to this request),
 * and moves the clock once GPSPHC_A_DEV_CONFIRM_N labels in a row have
 * said the same. Refused, with a reason: an edge that is unknown, too old
 * or not on time (ENOENT, EINVAL), a second earlier than the edges already
 * counted allow (ERANGE).
 *
 * Exactly one of EDGE_SEQ and SENTENCE_SEQ names what is labelled.
 * Coarse mode is for receivers with no PPS wiring: while no on-time edge
 * has come for GPSPHC_COARSE_AFTER_S seconds (or none since attach), the
 * start of the first sentence of each second, less GPSPHC_A_DEV_RX_LATENCY_NS,
 * stands in for the edge. A sentence starts a second when its checksum is
 * good and it began at least GPSPHC_SENTENCE_GAP_MS after the previous
 * sentence with a good checksum. Labels for any other sentence are refused
 * (EINVAL). GPSPHC_A_SERVO_COARSE says the clock is in this mode.
 *
 * GPSPHC_CMD_STATE_NTF (multicast, group "events")
 * ------------------------------------------------
 * On every servo state change: GPSPHC_A_DEV_ID and GPSPHC_A_DEV_SERVO.
 *
 * GPSPHC_CMD_LABEL_NTF (multicast, group "events")
 * ------------------------------------------------
 * A label disagreed with the kernel's count: GPSPHC_A_DEV_ID,
 * GPSPHC_A_DEV_TIME (the label) and GPSPHC_A_DEV_SERVO.
 *
 * The servo status (GPSPHC_A_DEV_SERVO, in dev-get replies too):
 *
 *    GPSPHC_A_SERVO_STATE: NLA_U32, enum gpsphc_servo_state
 *    GPSPHC_A_SERVO_OFFSET_NS: NLA_S64, PHC minus label at the last edge
 *    GPSPHC_A_SERVO_RMS_NS: NLA_U64, RMS of the offset, last 64 edges
 *    GPSPHC_A_SERVO_FREQ_PPB: NLA_S64, frequency correction in ppb
 *    GPSPHC_A_SERVO_TAI_UTC: NLA_U32, current TAI - UTC
 *    GPSPHC_A_SERVO_LEAP: NLA_U32, enum gpsphc_leap, pending
 *    GPSPHC_A_SERVO_LEAP_UTC: NLA_U64, when (as GPSPHC_A_TIME_LEAP_UTC)
 *    GPSPHC_A_SERVO_HOLDOVER_S: NLA_U64, seconds since the last edge
 *        while in HOLDOVER, else 0
 *    GPSPHC_A_SERVO_COARSE: NLA_FLAG, no PPS: sentence starts stand in
 *    GPSPHC_A_SERVO_LABELS, _LABELS_REFUSED, _DISAGREEMENTS, _STEPS,
 *    _OUTLIERS, _SPURIOUS (on-time edges not where a second was due, not
 *        counted as seconds): NLA_U64 counters
 *
 * dev-get replies also hold GPSPHC_A_DEV_PTP_INDEX (N of /dev/ptpN) and
 * the settings below, which dev-set changes (each optional):
 *
 *    GPSPHC_A_DEV_SCALE: NLA_U32, enum gpsphc_scale: TAI (default) or UTC;
 *        changing it needs CAP_SYS_TIME too (it moves what the clock reads)
 *    GPSPHC_A_DEV_STEP_NS: NLA_U64, offsets above this are stepped, not
 *        slewed (1000..1000000000, default 20000000)
 *    GPSPHC_A_DEV_CONFIRM_N: NLA_U32, labels needed to move the count
 *        (1..60, default 3)
 *    GPSPHC_A_DEV_RX_LATENCY_NS: NLA_U64, coarse mode: the receiver's
 *        delay from its second to the start of its first sentence
 *        (0..999000000, default 0)
 *    GPSPHC_A_DEV_SERVO_OFF: NLA_U8, 1: the kernel's servo leaves the
 *        clock alone (state GPSPHC_SERVO_OFF), so that something else
 *        can steer it (ts2phc with the EXTTS events, ptp4l); time-set is
 *        refused (EBUSY). 0 (the default): the servo steers, starting
 *        UNLOCKED.
 *
 * Every rejected request carries an extended-ack message saying why.
 */
#ifndef _UAPI_LINUX_GPSPHC_H
#define _UAPI_LINUX_GPSPHC_H

#define GPSPHC_GENL_NAME	"gpsphc"
#define GPSPHC_GENL_VERSION	1
#define GPSPHC_MCGRP_EVENTS	"events"

/* Longest sentence delivered, '$' to checksum, without CR LF. */
#define GPSPHC_SENTENCE_MAX	160

/* On-time edges (or second-starting sentences) a label may name. */
#define GPSPHC_LABEL_HISTORY	16

/* Coarse mode: sentences stand in when no on-time edge came for this long. */
#define GPSPHC_COARSE_AFTER_S	600

/* Coarse mode: the quiet time before a sentence that starts a second. */
#define GPSPHC_SENTENCE_GAP_MS	200

enum gpsphc_edge {
	GPSPHC_EDGE_RISING = 1,
	GPSPHC_EDGE_FALLING,

	/* private: */
	__GPSPHC_EDGE_MAX,
	GPSPHC_EDGE_MAX = __GPSPHC_EDGE_MAX - 1
};

enum gpsphc_csum {
	GPSPHC_CSUM_OK = 1,	/* "*hh" present and right */
	GPSPHC_CSUM_MISSING,	/* no "*hh" */
	GPSPHC_CSUM_BAD,	/* "*hh" present and wrong */

	/* private: */
	__GPSPHC_CSUM_MAX,
	GPSPHC_CSUM_MAX = __GPSPHC_CSUM_MAX - 1
};

enum gpsphc_scale {
	GPSPHC_SCALE_TAI = 1,	/* PTP timescale: TAI since 1970 */
	GPSPHC_SCALE_UTC,	/* UTC, leap seconds applied at the instant */

	/* private: */
	__GPSPHC_SCALE_MAX,
	GPSPHC_SCALE_MAX = __GPSPHC_SCALE_MAX - 1
};

enum gpsphc_leap {
	GPSPHC_LEAP_NONE = 1,
	GPSPHC_LEAP_INSERT,	/* 23:59:60 at the end of the day */
	GPSPHC_LEAP_DELETE,	/* 23:59:59 skipped */

	/* private: */
	__GPSPHC_LEAP_MAX,
	GPSPHC_LEAP_MAX = __GPSPHC_LEAP_MAX - 1
};

enum gpsphc_servo_state {
	GPSPHC_SERVO_UNLOCKED = 1,	/* no label yet */
	GPSPHC_SERVO_LOCKING,		/* stepped, converging */
	GPSPHC_SERVO_LOCKED,		/* following the PPS */
	GPSPHC_SERVO_HOLDOVER,		/* PPS lost: last frequency kept */
	GPSPHC_SERVO_OFF,		/* GPSPHC_A_DEV_SERVO_OFF: not steering */

	/* private: */
	__GPSPHC_SERVO_MAX,
	GPSPHC_SERVO_MAX = __GPSPHC_SERVO_MAX - 1
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

	/* private: */
	__GPSPHC_CMD_MAX,
	GPSPHC_CMD_MAX = __GPSPHC_CMD_MAX - 1
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

	/* private: */
	__GPSPHC_A_DEV_MAX,
	GPSPHC_A_DEV_MAX = __GPSPHC_A_DEV_MAX - 1
};

/*
 * Counters since attach. The framer's follow its rules exactly (see
 * kmod/framer.h): SENTENCES = CSUM_OK + CSUM_MISSING + CSUM_BAD.
 */
enum gpsphc_stats_attrs {
	GPSPHC_A_STATS_UNSPEC,
	GPSPHC_A_STATS_SENTENCES,	/* complete sentences, any checksum */
	GPSPHC_A_STATS_CSUM_OK,		/* right "*hh" */
	GPSPHC_A_STATS_CSUM_MISSING,	/* no "*hh" */
	GPSPHC_A_STATS_CSUM_BAD,	/* wrong or malformed "*hh" */
	GPSPHC_A_STATS_OVERLONG,	/* aborted: longer than the maximum */
	GPSPHC_A_STATS_TRUNCATED,	/* cut short by a new '$' or '!' */
	GPSPHC_A_STATS_INVALID,		/* aborted by a non-printable byte */
	GPSPHC_A_STATS_FLAG_ABORTS,	/* aborted by a break/frame/parity byte */
	GPSPHC_A_STATS_FLAG_BYTES,	/* bytes received with an error flag */
	GPSPHC_A_STATS_NOISE_BYTES,	/* bytes outside sentences and frames */
	GPSPHC_A_STATS_BINARY_FRAMES,	/* UBX/RTCM3 frames skipped, good */
	GPSPHC_A_STATS_BINARY_BAD,	/* UBX/RTCM3 frames skipped, bad sum */
	GPSPHC_A_STATS_PPS_EDGES,	/* DCD edges, both kinds */
	GPSPHC_A_STATS_PPS_MISSED,	/* on-time edges missing, by timing */
	GPSPHC_A_STATS_EVENTS_DROPPED,	/* PPS events lost to a full queue */
	GPSPHC_A_STATS_PAD,

	/* private: */
	__GPSPHC_A_STATS_MAX,
	GPSPHC_A_STATS_MAX = __GPSPHC_A_STATS_MAX - 1
};

enum gpsphc_pps_attrs {
	GPSPHC_A_PPS_UNSPEC,
	GPSPHC_A_PPS_SEQ,
	GPSPHC_A_PPS_RAW_NS,
	GPSPHC_A_PPS_REAL_NS,
	GPSPHC_A_PPS_EDGE,
	GPSPHC_A_PPS_ASSERT,
	GPSPHC_A_PPS_PAD,

	/* private: */
	__GPSPHC_A_PPS_MAX,
	GPSPHC_A_PPS_MAX = __GPSPHC_A_PPS_MAX - 1
};

enum gpsphc_sentence_attrs {
	GPSPHC_A_SENT_UNSPEC,
	GPSPHC_A_SENT_SEQ,
	GPSPHC_A_SENT_RAW_NS,
	GPSPHC_A_SENT_REAL_NS,
	GPSPHC_A_SENT_DATA,
	GPSPHC_A_SENT_CSUM,
	GPSPHC_A_SENT_PAD,

	/* private: */
	__GPSPHC_A_SENT_MAX,
	GPSPHC_A_SENT_MAX = __GPSPHC_A_SENT_MAX - 1
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

	/* private: */
	__GPSPHC_A_TIME_MAX,
	GPSPHC_A_TIME_MAX = __GPSPHC_A_TIME_MAX - 1
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

	/* private: */
	__GPSPHC_A_SERVO_MAX,
	GPSPHC_A_SERVO_MAX = __GPSPHC_A_SERVO_MAX - 1
};

#endif /* _UAPI_LINUX_GPSPHC_H */
