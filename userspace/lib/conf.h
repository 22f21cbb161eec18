/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * conf.h - gpsphcd's settings of one receiver: the per-instance
 * configuration file (gpsphc.conf(5), e.g. /etc/gpsphc/ttyS0.conf) and the
 * command-line options that override it, checked by the same rules.
 *
 * The file holds "key = value" lines; blank lines and lines whose first
 * non-blank character is '#' are skipped. Every key at most once; an
 * unknown key, a line without '=', an empty or out-of-range value is an
 * error naming the line. Values are plain decimal numbers or words, no
 * units, no quotes, no comment after a value.
 *
 * Pure: text in, values out, no I/O, no globals.
 */
#ifndef GPSPHC_CONF_H
#define GPSPHC_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "gperr.h"

/* The keys; a struct conf's set has bit (1 << key) for each one given. */
enum conf_key {
	CONF_BAUD,		/* line speed: a standard rate, 1200..921600 */
	CONF_EDGE,		/* on-time PPS edge: rising or falling */
	CONF_PPS_GPIO,		/* PPS from a GPIO line: CHIP:OFFSET, a name, none */
	CONF_SERVO,		/* on: the kernel servo steers; off: it does not */
	CONF_CLOCK_SERVO,	/* the kernel servo's estimator: bank or pi */
	CONF_SCALE,		/* the PTP clock's timescale: tai or utc */
	CONF_OFFSET,		/* receiver's sentence delay, ms, -999..1000 */
	CONF_WINDOW,		/* association window, ms, -999..1000 */
	CONF_MARGIN,		/* refused band around 500 ms, ms, -999..1000 */
	CONF_GUARD,		/* sentences to accept a time jump, 1..1000 */
	CONF_STEP_NS,		/* kernel step_ns, 1000..1000000000 */
	CONF_CONFIRM_N,		/* kernel confirm_n, 1..60 */
	CONF_RX_LATENCY_NS,	/* kernel rx_latency_ns, 0..999000000 */
	CONF_NMEA_PTY,		/* symlink to a pty with the sentences */
	CONF_TRUST_S,		/* consistent labels before a time is saved */
	CONF_METRICS,		/* Prometheus textfile to write, *.prom */
	CONF_METRICS_INTERVAL,	/* its period, s, 1..3600 */
	CONF_NKEYS
};

/* The longest value, and path (nmea_pty, metrics), with its terminating NUL. */
#define CONF_VALUE_MAX	128
/* The longest pps_gpio, with its NUL: the kernel's limit (63 bytes). */
#define CONF_PPS_GPIO_MAX	64

/* edge, clock_servo, scale: the uAPI's (linux/gpsphc.h) values; servo: */
enum conf_servo { CONF_SERVO_ON = 1, CONF_SERVO_OFF };

struct conf {
	unsigned int set;		/* 1 << enum conf_key, per key given */
	unsigned int baud;
	unsigned int edge;		/* enum gpsphc_edge */
	char pps_gpio[CONF_PPS_GPIO_MAX];	/* as the kernel takes it */
	unsigned int servo;		/* enum conf_servo */
	unsigned int clock_servo;	/* enum gpsphc_clock_servo */
	unsigned int scale;		/* enum gpsphc_scale */
	int64_t offset_ns, window_ns, margin_ns;
	unsigned int guard;
	uint64_t step_ns;
	uint32_t confirm_n;
	uint64_t rx_latency_ns;
	char nmea_pty[CONF_VALUE_MAX];	/* an absolute path */
	unsigned int trust_s;
	char metrics[CONF_VALUE_MAX];	/* an absolute path ending in .prom */
	unsigned int metrics_interval;	/* s */
};

enum conf_code {
	CONF_OK = 0,
	CONF_E_SYNTAX,		/* a line that is not "key = value" */
	CONF_E_KEY,		/* unknown key */
	CONF_E_VALUE,		/* value not of the key's kind or range */
	CONF_E_TWICE,		/* a key given on two lines */
};

#define CONF_GUARD_MAX	1000
/* trust_s: the default is pipeline.h's PP_TRUST_S. */
#define CONF_TRUST_S_MIN	10
#define CONF_TRUST_S_MAX	86400
#define CONF_METRICS_INTERVAL_DEF	15
#define CONF_METRICS_INTERVAL_MAX	3600

/* "baud", "step_ns", ...; NULL for a key out of range. */
const char *conf_key_name(enum conf_key k);

/*
 * Set key @k of @c from the text @value. On error, @e's message says what
 * @value should be, without the key's name: the caller names the key its
 * own way ("--baud", "ttyS0.conf:3: baud").
 */
int conf_set(struct conf *c, enum conf_key k, const char *value,
	     struct gp_err *e);

/*
 * Parse a whole file's @text (@len bytes, no terminating NUL needed) into
 * @c, which starts empty (set = 0). On error @c is unspecified and @e's
 * message begins with "line N: " (the caller prefixes the file's name).
 */
int conf_parse(const char *text, size_t len, struct conf *c, struct gp_err *e);

/* The keys set in @over replace those of @c (options over the file). */
void conf_merge(struct conf *c, const struct conf *over);

#endif /* GPSPHC_CONF_H */
