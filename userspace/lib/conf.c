// SPDX-License-Identifier: GPL-2.0-only
/* conf.c - gpsphcd's per-instance configuration: see conf.h. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "guard.h"
#include "names.h"
#include "timeconv.h"


/* A key's field in struct conf: where it is and how big. */
#define CONF_FIELD(f)	offsetof(struct conf, f), sizeof(((struct conf *)0)->f)

/* Each key's name and its field, which conf_merge() copies. */
static const struct conf_key_info {
	const char *name;
	size_t off, size;
} conf_keys[CONF_NKEYS] = {
	[CONF_BAUD] = { "baud", CONF_FIELD(baud) },
	[CONF_EDGE] = { "edge", CONF_FIELD(edge) },
	[CONF_PPS_GPIO] = { "pps_gpio", CONF_FIELD(pps_gpio) },
	[CONF_SERVO] = { "servo", CONF_FIELD(servo) },
	[CONF_CLOCK_SERVO] = { "clock_servo", CONF_FIELD(clock_servo) },
	[CONF_SCALE] = { "scale", CONF_FIELD(scale) },
	[CONF_OFFSET] = { "offset", CONF_FIELD(offset_ns) },
	[CONF_WINDOW] = { "window", CONF_FIELD(window_ns) },
	[CONF_MARGIN] = { "margin", CONF_FIELD(margin_ns) },
	[CONF_GUARD] = { "guard", CONF_FIELD(guard) },
	[CONF_STEP_NS] = { "step_ns", CONF_FIELD(step_ns) },
	[CONF_CONFIRM_N] = { "confirm_n", CONF_FIELD(confirm_n) },
	[CONF_RX_LATENCY_NS] = { "rx_latency_ns", CONF_FIELD(rx_latency_ns) },
	[CONF_NMEA_PTY] = { "nmea_pty", CONF_FIELD(nmea_pty) },
	[CONF_TRUST_S] = { "trust_s", CONF_FIELD(trust_s) },
	[CONF_METRICS] = { "metrics", CONF_FIELD(metrics) },
	[CONF_METRICS_INTERVAL] = { "metrics_interval", CONF_FIELD(metrics_interval) },
};

static const unsigned long conf_bauds[] = {
	1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800,
	921600,
};

const char *conf_key_name(enum conf_key k)
{
	return (unsigned int)k < CONF_NKEYS ? conf_keys[k].name : NULL;
}

/* Is @baud a standard rate (1200..921600)? */
static bool conf_baud_ok(unsigned long baud)
{
	size_t i;

	for (i = 0; i < sizeof(conf_bauds) / sizeof(conf_bauds[0]); i++)
		if (conf_bauds[i] == baud)
			return true;
	return false;
}

/* A whole decimal number in [lo, hi]: no sign on unsigned, no blanks. */
static bool conf_ll(const char *s, long long lo, long long hi, long long *v)
{
	char *end;

	if (!(*s >= '0' && *s <= '9') && !(lo < 0 && *s == '-'))
		return false;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return !errno && !*end && *v >= lo && *v <= hi;
}

/*
 * A GPIO line as the kernel's pps_gpio takes it: "none", a line name, or
 * "CHIP:OFFSET" with a decimal OFFSET; printable, no blanks, 1..63 bytes.
 * Whether the line exists is the kernel's to say, at attach.
 */
static bool conf_pps_gpio_ok(const char *s)
{
	const char *colon = strrchr(s, ':');
	size_t n = strlen(s), i;

	if (!n || n >= CONF_PPS_GPIO_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return false;
	if (!colon)
		return true;
	if (colon == s || !colon[1] || strlen(colon + 1) > 5)
		return false;
	for (i = 1; colon[i]; i++)
		if (colon[i] < '0' || colon[i] > '9')
			return false;
	return strtoul(colon + 1, NULL, 10) < 65535;
}

/* @s is one of @a or @b: 1 or 2; 0 if neither. */
static unsigned int conf_word(const char *s, const char *a, const char *b)
{
	return !strcmp(s, a) ? 1 : !strcmp(s, b) ? 2 : 0;
}

int conf_set(struct conf *c, enum conf_key k, const char *value,
	     struct gp_err *e)
{
	long long v;

	switch (k) {
	case CONF_BAUD:
		if (!conf_ll(value, 0, 921600, &v) || !conf_baud_ok((unsigned long)v))
			return gp_err_set(e, CONF_E_VALUE,
					  "\"%s\" is not a standard rate (1200..921600, e.g. 9600)",
					  value);
		c->baud = (unsigned int)v;
		break;
	case CONF_EDGE:
		c->edge = gp_enum_value(GP_ENUM_EDGE, value);
		if (!c->edge)
			return gp_err_set(e, CONF_E_VALUE,
					  "\"%s\" must be rising or falling", value);
		break;
	case CONF_PPS_GPIO:
		if (!conf_pps_gpio_ok(value))
			return gp_err_set(e, CONF_E_VALUE,
					  "\"%s\" must be CHIP:OFFSET (a gpiochip's label or gpiochipN, and the line's number on it), a line name (e.g. GPIO18) or none, without blanks, at most %d bytes",
					  value, CONF_PPS_GPIO_MAX - 1);
		strcpy(c->pps_gpio, value);
		break;
	case CONF_SERVO:
		c->servo = conf_word(value, "on", "off");
		if (!c->servo)
			return gp_err_set(e, CONF_E_VALUE,
					  "\"%s\" must be on (the kernel steers the clock) or off (ts2phc or ptp4l does)",
					  value);
		break;
	case CONF_CLOCK_SERVO:
		c->clock_servo = gp_enum_value(GP_ENUM_CLOCK_SERVO, value);
		if (!c->clock_servo)
			return gp_err_set(e, CONF_E_VALUE,
					  "\"%s\" must be bank (the default) or pi (linuxptp's PI servo)",
					  value);
		break;
	case CONF_SCALE:
		c->scale = gp_enum_value(GP_ENUM_SCALE, value);
		if (!c->scale)
			return gp_err_set(e, CONF_E_VALUE,
					  "\"%s\" must be tai (the PTP timescale) or utc",
					  value);
		break;
	case CONF_OFFSET:
	case CONF_WINDOW:
	case CONF_MARGIN:
		if (!conf_ll(value, -999, 1000, &v))
			return gp_err_set(e, CONF_E_VALUE,
					  "\"%s\" must be whole milliseconds, -999..1000",
					  value);
		*(k == CONF_OFFSET ? &c->offset_ns : k == CONF_WINDOW ?
		  &c->window_ns : &c->margin_ns) = v * NS_PER_MS;
		break;
	case CONF_GUARD:
		if (!conf_ll(value, 1, CONF_GUARD_MAX, &v))
			return gp_err_set(e, CONF_E_VALUE,
					  "\"%s\" must be a whole number 1..%d (default %d)",
					  value, CONF_GUARD_MAX, GUARD_DEF_N);
		c->guard = (unsigned int)v;
		break;
	case CONF_STEP_NS:
		if (!conf_ll(value, 1000, 1000000000, &v))
			return gp_err_set(e, CONF_E_VALUE,
					  "\"%s\" must be whole nanoseconds, 1000..1000000000 (default 20000000)",
					  value);
		c->step_ns = (uint64_t)v;
		break;
	case CONF_CONFIRM_N:
		if (!conf_ll(value, 1, 60, &v))
			return gp_err_set(e, CONF_E_VALUE,
					  "\"%s\" must be a whole number 1..60 (default 3)",
					  value);
		c->confirm_n = (uint32_t)v;
		break;
	case CONF_RX_LATENCY_NS:
		if (!conf_ll(value, 0, 999000000, &v))
			return gp_err_set(e, CONF_E_VALUE,
					  "\"%s\" must be whole nanoseconds, 0..999000000 (default 0)",
					  value);
		c->rx_latency_ns = (uint64_t)v;
		break;
	case CONF_NMEA_PTY:
		if (value[0] != '/' || strlen(value) >= sizeof(c->nmea_pty) ||
		    strpbrk(value, " \t"))
			return gp_err_set(e, CONF_E_VALUE,
					  "\"%s\" must be an absolute path without blanks, shorter than %d bytes (e.g. /run/gpsphc/ttyS0/nmea)",
					  value, CONF_VALUE_MAX);
		strcpy(c->nmea_pty, value);
		break;
	case CONF_TRUST_S:
		if (!conf_ll(value, CONF_TRUST_S_MIN, CONF_TRUST_S_MAX, &v))
			return gp_err_set(e, CONF_E_VALUE,
					  "\"%s\" must be whole seconds, %d..%d (default 900)",
					  value, CONF_TRUST_S_MIN, CONF_TRUST_S_MAX);
		c->trust_s = (unsigned int)v;
		break;
	case CONF_METRICS:
		/* node_exporter's textfile collector reads only *.prom */
		if (value[0] != '/' || strlen(value) >= sizeof(c->metrics) ||
		    strpbrk(value, " \t") || strlen(value) < 6 ||
		    strcmp(value + strlen(value) - 5, ".prom"))
			return gp_err_set(e, CONF_E_VALUE,
					  "\"%s\" must be an absolute path ending in .prom, without blanks, shorter than %d bytes (e.g. /var/lib/prometheus/node-exporter/gpsphc-ttyS0.prom)",
					  value, CONF_VALUE_MAX);
		strcpy(c->metrics, value);
		break;
	case CONF_METRICS_INTERVAL:
		if (!conf_ll(value, 1, CONF_METRICS_INTERVAL_MAX, &v))
			return gp_err_set(e, CONF_E_VALUE,
					  "\"%s\" must be whole seconds, 1..%d (default %d)",
					  value, CONF_METRICS_INTERVAL_MAX,
					  CONF_METRICS_INTERVAL_DEF);
		c->metrics_interval = (unsigned int)v;
		break;
	default:
		return gp_err_set(e, CONF_E_KEY, "no key number %d", (int)k);
	}
	c->set |= 1u << k;
	return CONF_OK;
}

static bool conf_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/* The key named by @s[0..@n), or CONF_NKEYS. */
static enum conf_key conf_lookup(const char *s, size_t n)
{
	unsigned int k;

	for (k = 0; k < CONF_NKEYS; k++)
		if (strlen(conf_keys[k].name) == n && !memcmp(conf_keys[k].name, s, n))
			return (enum conf_key)k;
	return CONF_NKEYS;
}

/* One line, without its '\n', as "key = value", into @c. */
static int conf_line(struct conf *c, const char *s, size_t n,
		     unsigned long line, unsigned long *lines,
		     struct gp_err *e)
{
	const char *eq, *k0, *v0;
	size_t kn, vn;
	enum conf_key k;
	char value[CONF_VALUE_MAX];
	struct gp_err ve;

	while (n && conf_blank(*s))
		s++, n--;
	while (n && conf_blank(s[n - 1]))
		n--;
	if (!n || *s == '#')
		return CONF_OK;
	if (memchr(s, '\0', n))
		return gp_err_set(e, CONF_E_SYNTAX,
				  "line %lu: holds a NUL byte: the file must be text",
				  line);
	eq = memchr(s, '=', n);
	if (!eq)
		return gp_err_set(e, CONF_E_SYNTAX,
				  "line %lu: \"%.*s\" is not \"key = value\" (comments start with '#')",
				  line, (int)(n > 40 ? 40 : n), s);
	k0 = s;
	kn = (size_t)(eq - s);
	while (kn && conf_blank(k0[kn - 1]))
		kn--;
	v0 = eq + 1;
	vn = n - (size_t)(v0 - s);
	while (vn && conf_blank(*v0))
		v0++, vn--;
	if (!kn)
		return gp_err_set(e, CONF_E_SYNTAX,
				  "line %lu: no key before '='", line);
	k = conf_lookup(k0, kn);
	if (k == CONF_NKEYS)
		return gp_err_set(e, CONF_E_KEY,
				  "line %lu: unknown key \"%.*s\": the keys are baud, edge, pps_gpio, servo, clock_servo, scale, offset, window, margin, guard, step_ns, confirm_n, rx_latency_ns, nmea_pty, trust_s, metrics, metrics_interval (see gpsphc.conf(5))",
				  line, (int)(kn > 40 ? 40 : kn), k0);
	if (c->set & (1u << k))
		return gp_err_set(e, CONF_E_TWICE,
				  "line %lu: %s given again (first on line %lu): keep one",
				  line, conf_keys[k].name, lines[k]);
	if (!vn)
		return gp_err_set(e, CONF_E_VALUE,
				  "line %lu: %s has no value", line, conf_keys[k].name);
	if (vn >= sizeof(value))
		return gp_err_set(e, CONF_E_VALUE,
				  "line %lu: %s: the value \"%.20s...\" is too long",
				  line, conf_keys[k].name, v0);
	memcpy(value, v0, vn);
	value[vn] = '\0';
	if (conf_set(c, k, value, &ve))
		return gp_err_set(e, ve.code, "line %lu: %s %s", line,
				  conf_keys[k].name, ve.msg);
	lines[k] = line;
	return CONF_OK;
}

int conf_parse(const char *text, size_t len, struct conf *c, struct gp_err *e)
{
	unsigned long lines[CONF_NKEYS] = { 0 }, line = 0;
	size_t at = 0;
	int ret;

	*c = (struct conf){ 0 };
	gp_err_clear(e);
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;

		ret = conf_line(c, text + at, n, ++line, lines, e);
		if (ret)
			return ret;
		at += n + 1;
	}
	return CONF_OK;
}

void conf_merge(struct conf *c, const struct conf *over)
{
	unsigned int k;

	for (k = 0; k < CONF_NKEYS; k++)
		if (over->set & (1u << k))
			memcpy((char *)c + conf_keys[k].off,
			       (const char *)over + conf_keys[k].off,
			       conf_keys[k].size);
	c->set |= over->set;
}
