// SPDX-License-Identifier: GPL-2.0-only
/* metrics.c - gpsphc devices as Prometheus text exposition: see metrics.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "metrics.h"
#include "names.h"

#define N(a)	(sizeof(a) / sizeof((a)[0]))

/* The text so far: snprintf's contract over many calls. */
struct out {
	char *buf;
	size_t size, len;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	size_t room = o->len < o->size ? o->size - o->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

/* A label value: backslash, double quote and newline escaped. */
static void put_label(struct out *o, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			put(o, "\\%c", *s);
		else if (*s == '\n')
			put(o, "\\n");
		else
			put(o, "%c", *s);
	}
}

/* The kinds of value: a count or an integer, or nanoseconds (or ppb) as seconds (a ratio). */
enum mval { M_INT, M_NANO };

struct sample {
	const char *label, *label_value;	/* one more label, or NULL */
	enum mval kind;
	int64_t v;
	bool u;				/* v is a uint64_t */
};

/* The families, in the order they are written. */
enum fam {
	F_INFO, F_STATE, F_COARSE, F_OFFSET, F_RMS, F_FREQ, F_HOLDOVER,
	F_TAI, F_LEAP, F_LEAP_AT, F_OFF_COUNT, F_OFF_NS, F_SERVO_CTR,
	F_STATS_CTR, F_LAST_EDGE, F_LOST, F_OVERFLOWS, F_CLOCK_CLASS, F_COUNT
};

static const struct fam_info {
	const char *name, *type, *help;
} fams[F_COUNT] = {
	[F_INFO] = { "gpsphc_device_info", "gauge",
		"The device of a tty with the gpsphc discipline: its PTP clock and PPS source; always 1." },
	[F_STATE] = { "gpsphc_servo_state", "gauge",
		"The servo's state: 1 for the state it is in, 0 for the others." },
	[F_COARSE] = { "gpsphc_servo_coarse", "gauge",
		"1 while the servo follows sentence timing (no PPS, millisecond-grade), else 0." },
	[F_OFFSET] = { "gpsphc_servo_offset_seconds", "gauge",
		"The clock minus the TAI second of the last on-time edge." },
	[F_RMS] = { "gpsphc_servo_offset_rms_seconds", "gauge",
		"RMS of the accepted offsets since the last step or relock, over the last 64." },
	[F_FREQ] = { "gpsphc_servo_frequency_adjustment_ratio", "gauge",
		"The clock's rate correction: positive when it runs faster than CLOCK_MONOTONIC_RAW." },
	[F_HOLDOVER] = { "gpsphc_servo_holdover_seconds", "gauge",
		"Seconds since the last on-time edge while in holdover, else 0." },
	[F_TAI] = { "gpsphc_tai_offset_seconds", "gauge",
		"TAI minus UTC as the servo applies it." },
	[F_LEAP] = { "gpsphc_leap_second_pending", "gauge",
		"A leap second announced for the end of the UTC day: 1 inserted, -1 deleted, 0 none." },
	[F_LEAP_AT] = { "gpsphc_leap_second_timestamp_seconds", "gauge",
		"UTC (Unix seconds) of the midnight where the announced leap second applies; 0 if none." },
	[F_OFF_COUNT] = { "gpsphc_off_phase_pulses", "gauge",
		"Pulses in a row off the servo's phase (a steady new phase, not a lost PPS); 0 if none." },
	[F_OFF_NS] = { "gpsphc_off_phase_offset_seconds", "gauge",
		"How late the last pulse off the servo's phase came; meaningful while gpsphc_off_phase_pulses is not 0." },
	[F_SERVO_CTR] = { NULL, "counter", NULL },	/* per counter */
	[F_STATS_CTR] = { NULL, "counter", NULL },
	[F_LAST_EDGE] = { "gpsphc_pps_last_edge_timestamp_seconds", "gauge",
		"CLOCK_REALTIME (Unix seconds) of the last on-time PPS edge gpsphcd received; its age is time() minus this." },
	[F_LOST] = { "gpsphc_events_lost_total", "counter",
		"Kernel events gpsphcd missed (gaps in their sequence numbers), by kind, since it started." },
	[F_OVERFLOWS] = { "gpsphc_event_socket_overflows_total", "counter",
		"Times gpsphcd's netlink event socket overflowed (ENOBUFS), each losing an unknown number of events, since it started." },
	[F_CLOCK_CLASS] = { "gpsphc_ptp4l_clock_class", "gauge",
		"The clockClass ptp4l last acknowledged from gpsphcd (--ptp4l-socket)." },
};

/* The help of each counter, by attribute; the key is names.h's. */
static const char *const servo_help[GPSPHC_A_SERVO_MAX + 1] = {
	[GPSPHC_A_SERVO_LABELS] = "Labels (the TAI second of an edge) the servo accepted.",
	[GPSPHC_A_SERVO_LABELS_REFUSED] = "Labels refused: an edge that cannot be labelled (unknown, too old, not on time) or a second out of range.",
	[GPSPHC_A_SERVO_DISAGREEMENTS] = "Accepted labels that disagreed with the kernel's count of seconds.",
	[GPSPHC_A_SERVO_STEPS] = "Times the servo stepped the clock.",
	[GPSPHC_A_SERVO_OUTLIERS] = "On-time edges whose offset was rejected as an outlier.",
	[GPSPHC_A_SERVO_SPURIOUS] = "On-time edges not where the next second was due, not counted as seconds.",
	[GPSPHC_A_SERVO_RELOCKS] = "Times outliers in a row made the servo believe the next edge and lock again.",
	[GPSPHC_A_SERVO_HOLDOVERS] = "Times the servo went into holdover (no input counted for 2.5 s).",
	[GPSPHC_A_SERVO_REPHASES] = "Times the servo took a steady new phase of the pulses.",
};

static const char *const stats_help[GPSPHC_A_STATS_MAX + 1] = {
	[GPSPHC_A_STATS_SENTENCES] = "Complete sentences, whatever their checksum.",
	[GPSPHC_A_STATS_CSUM_OK] = "Sentences with a right checksum.",
	[GPSPHC_A_STATS_CSUM_MISSING] = "Sentences without a checksum.",
	[GPSPHC_A_STATS_CSUM_BAD] = "Sentences with a wrong or malformed checksum.",
	[GPSPHC_A_STATS_OVERLONG] = "Sentences aborted for being too long.",
	[GPSPHC_A_STATS_TRUNCATED] = "Sentences cut short by the start of the next one.",
	[GPSPHC_A_STATS_INVALID] = "Sentences aborted by a byte outside 0x20..0x7e other than CR and LF.",
	[GPSPHC_A_STATS_FLAG_ABORTS] = "Sentences aborted by a line error (break, framing, parity, overrun).",
	[GPSPHC_A_STATS_FLAG_BYTES] = "Bytes received with an error flag.",
	[GPSPHC_A_STATS_NOISE_BYTES] = "Unflagged bytes outside any sentence and binary frame.",
	[GPSPHC_A_STATS_BINARY_FRAMES] = "UBX and RTCM3 frames skipped whole with a good checksum.",
	[GPSPHC_A_STATS_BINARY_BAD] = "UBX and RTCM3 frames skipped whole whose checksum failed.",
	[GPSPHC_A_STATS_PPS_EDGES] = "DCD edges seen, both kinds.",
	[GPSPHC_A_STATS_PPS_MISSED] = "PPS pulses the servo's count of seconds skipped (seconds with no edge of their own).",
	[GPSPHC_A_STATS_EVENTS_DROPPED] = "PPS edges not notified: the device's queue of edges for the notification worker was full.",
};

/* Which device of @devs is the first with its tty: the others are left out. */
static bool first_tty(const struct gp_metrics_dev *devs, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (!strcmp(devs[j].tty ? devs[j].tty : "",
			    devs[i].tty ? devs[i].tty : ""))
			return false;
	return true;
}

static const char *const lost_kinds[] = { "pps", "sentence" };

/*
 * Sample @k of family @f (counter attribute @attr) for @d into @s: false
 * once there is none (most families have one per device).
 */
static bool get_sample(enum fam f, unsigned int attr,
		       const struct gp_metrics_dev *d, unsigned int k,
		       struct sample *s)
{
	*s = (struct sample){ .kind = M_INT };
	if (k && f != F_STATE && f != F_LOST)
		return false;
	switch (f) {
	case F_INFO:	s->v = 1; break;
	case F_STATE:
		if (k >= GPSPHC_SERVO_MAX)
			return false;
		s->label = "state";
		s->label_value = gp_enum_name(GP_ENUM_SERVO_STATE, k + 1);
		s->v = d->state == k + 1;
		break;
	case F_COARSE:	s->v = d->coarse; break;
	case F_OFFSET:	s->kind = M_NANO; s->v = d->offset_ns; break;
	case F_RMS:	s->kind = M_NANO; s->v = (int64_t)d->rms_ns; s->u = true; break;
	case F_FREQ:	s->kind = M_NANO; s->v = d->freq_ppb; break;
	case F_HOLDOVER: s->v = (int64_t)d->holdover_s; s->u = true; break;
	case F_TAI:	s->v = d->tai_utc; break;
	case F_LEAP:
		s->v = d->leap == GPSPHC_LEAP_INSERT ? 1 :
		       d->leap == GPSPHC_LEAP_DELETE ? -1 : 0;
		break;
	case F_LEAP_AT:	s->v = (int64_t)d->leap_utc; s->u = true; break;
	case F_OFF_COUNT: s->v = d->off_phase_count; break;
	case F_OFF_NS:	s->kind = M_NANO; s->v = d->off_phase_ns; break;
	case F_SERVO_CTR: s->v = (int64_t)d->servo[attr]; s->u = true; break;
	case F_STATS_CTR: s->v = (int64_t)d->stats[attr]; s->u = true; break;
	case F_LAST_EDGE:
		if (!d->has_daemon || !d->last_edge_real_ns)
			return false;
		s->kind = M_NANO;
		s->v = d->last_edge_real_ns;
		break;
	case F_LOST:
		if (!d->has_daemon || k >= N(lost_kinds))
			return false;
		s->label = "kind";
		s->label_value = lost_kinds[k];
		s->v = (int64_t)(k ? d->lost_sentences : d->lost_edges);
		s->u = true;
		break;
	case F_OVERFLOWS:
		if (!d->has_daemon)
			return false;
		s->v = (int64_t)d->overflows;
		s->u = true;
		break;
	case F_CLOCK_CLASS:
		if (!d->has_daemon || d->clock_class < 0)
			return false;
		s->v = d->clock_class;
		break;
	default:
		return false;
	}
	return true;
}

/* One sample line of @name for @d. */
static void put_sample(struct out *o, const char *name,
		       const struct gp_metrics_dev *d, enum fam f,
		       const struct sample *s)
{
	uint64_t a;
	bool neg;

	put(o, "%s{tty=\"", name);
	put_label(o, d->tty ? d->tty : "");
	put(o, "\"");
	if (f == F_INFO)
		put(o, ",ptp=\"ptp%" PRIu32 "\",pps=\"pps%" PRIu32 "\"",
		    d->ptp_index, d->pps_index);
	if (s->label) {
		put(o, ",%s=\"", s->label);
		put_label(o, s->label_value);
		put(o, "\"");
	}
	neg = !s->u && s->v < 0;
	a = neg ? -(uint64_t)s->v : (uint64_t)s->v;
	if (s->kind == M_INT)
		put(o, "} %s%" PRIu64 "\n", neg ? "-" : "", a);
	else	/* nanoseconds as seconds, exactly: no rounding through a double */
		put(o, "} %s%" PRIu64 ".%09" PRIu64 "\n", neg ? "-" : "",
		    a / 1000000000u, a % 1000000000u);
}

/* Family @f (counter @attr, named @name) for every device, if any has a sample. */
static void put_family(struct out *o, enum fam f, unsigned int attr,
		       const char *name, const char *help,
		       const struct gp_metrics_dev *devs, size_t n)
{
	struct sample s;
	bool head = false;
	unsigned int k;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!first_tty(devs, i))
			continue;
		for (k = 0; get_sample(f, attr, &devs[i], k, &s); k++) {
			if (!head) {
				put(o, "# HELP %s %s\n# TYPE %s %s\n", name,
				    help, name, fams[f].type);
				head = true;
			}
			put_sample(o, name, &devs[i], f, &s);
		}
	}
}

size_t gp_metrics_render(char *buf, size_t size,
			 const struct gp_metrics_dev *devs, size_t n)
{
	struct out o = { .buf = buf, .size = size };
	char name[80], help[160];
	unsigned int f, a;
	const char *key;

	if (size)
		buf[0] = '\0';
	for (f = 0; f < F_COUNT; f++) {
		if (f == F_SERVO_CTR || f == F_STATS_CTR) {
			bool servo = f == F_SERVO_CTR;

			for (a = 0; a <= (servo ? GPSPHC_A_SERVO_MAX : GPSPHC_A_STATS_MAX); a++) {
				const char *h = servo ? servo_help[a] : stats_help[a];

				key = servo ? gp_servo_counter_key(a) : gp_stats_key(a);
				if (!key)
					continue;
				snprintf(name, sizeof(name), "gpsphc_%s%s_total",
					 servo ? "servo_" : "", key);
				/* A counter the module added since: its --status key says what it is. */
				if (!h) {
					snprintf(help, sizeof(help), "The counter %s of gpsphcd --status.", key);
					h = help;
				}
				put_family(&o, (enum fam)f, a, name, h, devs, n);
			}
			continue;
		}
		put_family(&o, (enum fam)f, 0, fams[f].name, fams[f].help, devs, n);
	}
	return o.len;
}
