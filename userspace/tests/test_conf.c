// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_conf.c - the per-instance configuration file (gpsphc.conf(5)):
 * every key at its limits and just past them, the exact error of each
 * kind of bad line, and options over the file.
 */
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"

#include "conf.h"
#include "linux/gpsphc.h"

#define MS 1000000LL

/* One key, one value: accepted or refused with exactly this message. */
FIXTURE(value) {
	struct conf c;
	struct gp_err e;
};

FIXTURE_VARIANT(value) {
	enum conf_key key;
	const char *value;
	int want;		/* CONF_OK or the error code */
	const char *msg;	/* the error's message, or NULL */
	int64_t got;		/* the value stored, when accepted */
};

FIXTURE_SETUP(value)
{
	memset(&self->c, 0, sizeof(self->c));
}

FIXTURE_TEARDOWN(value) {}

static int64_t conf_value(const struct conf *c, enum conf_key k)
{
	switch (k) {
	case CONF_BAUD:		return c->baud;
	case CONF_EDGE:		return c->edge;
	/* its length: the text is checked by file_values below */
	case CONF_PPS_GPIO:	return (int64_t)strlen(c->pps_gpio);
	case CONF_SERVO:	return c->servo;
	case CONF_CLOCK_SERVO:	return c->clock_servo;
	case CONF_SCALE:	return c->scale;
	case CONF_OFFSET:	return c->offset_ns;
	case CONF_WINDOW:	return c->window_ns;
	case CONF_MARGIN:	return c->margin_ns;
	case CONF_GUARD:	return c->guard;
	case CONF_STEP_NS:	return (int64_t)c->step_ns;
	case CONF_CONFIRM_N:	return c->confirm_n;
	case CONF_RX_LATENCY_NS: return (int64_t)c->rx_latency_ns;
	/* the path's length: its text is checked by nmea_pty_path below */
	case CONF_NMEA_PTY:	return (int64_t)strlen(c->nmea_pty);
	case CONF_TRUST_S:	return c->trust_s;
	case CONF_METRICS:	return (int64_t)strlen(c->metrics);
	case CONF_METRICS_INTERVAL: return c->metrics_interval;
	default:		return -1;
	}
}

#define OK(name, k, v, g) \
	FIXTURE_VARIANT_ADD(value, name) { .key = k, .value = v, \
		.want = CONF_OK, .got = g }
#define BAD(name, k, v, m) \
	FIXTURE_VARIANT_ADD(value, name) { .key = k, .value = v, \
		.want = CONF_E_VALUE, .msg = m }

#define BAUD_MSG(v) "\"" v "\" is not a standard rate (1200..921600, e.g. 9600)"
OK(baud_1200, CONF_BAUD, "1200", 1200);
OK(baud_9600, CONF_BAUD, "9600", 9600);
OK(baud_921600, CONF_BAUD, "921600", 921600);
BAD(baud_9601, CONF_BAUD, "9601", BAUD_MSG("9601"));
BAD(baud_600, CONF_BAUD, "600", BAUD_MSG("600"));
BAD(baud_0, CONF_BAUD, "0", BAUD_MSG("0"));
BAD(baud_1843200, CONF_BAUD, "1843200", BAUD_MSG("1843200"));
BAD(baud_negative, CONF_BAUD, "-9600", BAUD_MSG("-9600"));
BAD(baud_plus, CONF_BAUD, "+9600", BAUD_MSG("+9600"));
BAD(baud_blank_inside, CONF_BAUD, "96 00", BAUD_MSG("96 00"));
BAD(baud_unit, CONF_BAUD, "9600bps", BAUD_MSG("9600bps"));
BAD(baud_hex, CONF_BAUD, "0x2580", BAUD_MSG("0x2580"));
BAD(baud_huge, CONF_BAUD, "99999999999999999999", BAUD_MSG("99999999999999999999"));

OK(edge_rising, CONF_EDGE, "rising", GPSPHC_EDGE_RISING);
OK(edge_falling, CONF_EDGE, "falling", GPSPHC_EDGE_FALLING);
BAD(edge_case, CONF_EDGE, "Rising", "\"Rising\" must be rising or falling");
BAD(edge_both, CONF_EDGE, "both", "\"both\" must be rising or falling");

#define SERVO_MSG(v) "\"" v "\" must be on (the kernel steers the clock) or off (ts2phc or ptp4l does)"
OK(servo_on, CONF_SERVO, "on", CONF_SERVO_ON);
OK(servo_off, CONF_SERVO, "off", CONF_SERVO_OFF);
BAD(servo_of, CONF_SERVO, "of", SERVO_MSG("of"));
BAD(servo_yes, CONF_SERVO, "yes", SERVO_MSG("yes"));
BAD(servo_1, CONF_SERVO, "1", SERVO_MSG("1"));

#define CLOCK_SERVO_MSG(v) "\"" v "\" must be bank (the default) or pi (linuxptp's PI servo)"
OK(clock_servo_bank, CONF_CLOCK_SERVO, "bank", GPSPHC_CLOCK_SERVO_BANK);
OK(clock_servo_pi, CONF_CLOCK_SERVO, "pi", GPSPHC_CLOCK_SERVO_PI);
BAD(clock_servo_linreg, CONF_CLOCK_SERVO, "linreg", CLOCK_SERVO_MSG("linreg"));
BAD(clock_servo_upper, CONF_CLOCK_SERVO, "PI", CLOCK_SERVO_MSG("PI"));
BAD(clock_servo_number, CONF_CLOCK_SERVO, "2", CLOCK_SERVO_MSG("2"));
BAD(clock_servo_empty, CONF_CLOCK_SERVO, "", CLOCK_SERVO_MSG(""));

OK(scale_tai, CONF_SCALE, "tai", GPSPHC_SCALE_TAI);
OK(scale_utc, CONF_SCALE, "utc", GPSPHC_SCALE_UTC);
BAD(scale_gps, CONF_SCALE, "gps", "\"gps\" must be tai (the PTP timescale) or utc");
BAD(scale_upper, CONF_SCALE, "TAI", "\"TAI\" must be tai (the PTP timescale) or utc");

#define MS_MSG(v) "\"" v "\" must be whole milliseconds, -999..1000"
OK(offset_min, CONF_OFFSET, "-999", -999 * MS);
OK(offset_zero, CONF_OFFSET, "0", 0);
OK(offset_max, CONF_OFFSET, "1000", 1000 * MS);
BAD(offset_below, CONF_OFFSET, "-1000", MS_MSG("-1000"));
BAD(offset_above, CONF_OFFSET, "1001", MS_MSG("1001"));
BAD(offset_fraction, CONF_OFFSET, "12.5", MS_MSG("12.5"));
BAD(offset_unit, CONF_OFFSET, "120ms", MS_MSG("120ms"));
BAD(offset_minus_only, CONF_OFFSET, "-", MS_MSG("-"));
OK(window_400, CONF_WINDOW, "400", 400 * MS);
BAD(window_above, CONF_WINDOW, "1001", MS_MSG("1001"));
OK(margin_100, CONF_MARGIN, "100", 100 * MS);
BAD(margin_word, CONF_MARGIN, "wide", MS_MSG("wide"));

#define GUARD_MSG(v) "\"" v "\" must be a whole number 1..1000 (default 3)"
OK(guard_1, CONF_GUARD, "1", 1);
OK(guard_1000, CONF_GUARD, "1000", 1000);
BAD(guard_0, CONF_GUARD, "0", GUARD_MSG("0"));
BAD(guard_1001, CONF_GUARD, "1001", GUARD_MSG("1001"));
BAD(guard_negative, CONF_GUARD, "-3", GUARD_MSG("-3"));

#define STEP_MSG(v) "\"" v "\" must be whole nanoseconds, 1000..1000000000 (default 20000000)"
OK(step_min, CONF_STEP_NS, "1000", 1000);
OK(step_max, CONF_STEP_NS, "1000000000", 1000000000);
BAD(step_999, CONF_STEP_NS, "999", STEP_MSG("999"));
BAD(step_above, CONF_STEP_NS, "1000000001", STEP_MSG("1000000001"));
BAD(step_exp, CONF_STEP_NS, "2e7", STEP_MSG("2e7"));

#define CONFIRM_MSG(v) "\"" v "\" must be a whole number 1..60 (default 3)"
OK(confirm_1, CONF_CONFIRM_N, "1", 1);
OK(confirm_60, CONF_CONFIRM_N, "60", 60);
BAD(confirm_0, CONF_CONFIRM_N, "0", CONFIRM_MSG("0"));
BAD(confirm_61, CONF_CONFIRM_N, "61", CONFIRM_MSG("61"));

#define RXL_MSG(v) "\"" v "\" must be whole nanoseconds, 0..999000000 (default 0)"
OK(rxl_0, CONF_RX_LATENCY_NS, "0", 0);
OK(rxl_max, CONF_RX_LATENCY_NS, "999000000", 999000000);
BAD(rxl_above, CONF_RX_LATENCY_NS, "999000001", RXL_MSG("999000001"));
BAD(rxl_negative, CONF_RX_LATENCY_NS, "-1", RXL_MSG("-1"));
BAD(rxl_empty, CONF_RX_LATENCY_NS, "", RXL_MSG(""));

#define GPIO_MSG(v) "\"" v "\" must be CHIP:OFFSET (a gpiochip's label or gpiochipN, and the line's number on it), a line name (e.g. GPIO18) or none, without blanks, at most 63 bytes"
#define NAME63 "gpio-line-name-" \
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
OK(gpio_line_name, CONF_PPS_GPIO, "GPIO18", 6);
OK(gpio_label_offset, CONF_PPS_GPIO, "pinctrl-bcm2711:18", 18);
OK(gpio_device_offset, CONF_PPS_GPIO, "gpiochip0:18", 12);
OK(gpio_label_with_colon, CONF_PPS_GPIO, "a:b:7", 5);
OK(gpio_largest_offset, CONF_PPS_GPIO, "gpiochip0:65534", 15);
OK(gpio_none, CONF_PPS_GPIO, "none", 4);
OK(gpio_63_bytes, CONF_PPS_GPIO, NAME63, 63);
BAD(gpio_64_bytes, CONF_PPS_GPIO, NAME63 "a", GPIO_MSG(NAME63 "a"));
BAD(gpio_blank, CONF_PPS_GPIO, "GPIO 18", GPIO_MSG("GPIO 18"));
BAD(gpio_no_offset, CONF_PPS_GPIO, "gpiochip0:", GPIO_MSG("gpiochip0:"));
BAD(gpio_no_chip, CONF_PPS_GPIO, ":18", GPIO_MSG(":18"));
BAD(gpio_offset_word, CONF_PPS_GPIO, "gpiochip0:x", GPIO_MSG("gpiochip0:x"));
BAD(gpio_offset_signed, CONF_PPS_GPIO, "gpiochip0:-1", GPIO_MSG("gpiochip0:-1"));
BAD(gpio_offset_65535, CONF_PPS_GPIO, "gpiochip0:65535", GPIO_MSG("gpiochip0:65535"));
BAD(gpio_empty, CONF_PPS_GPIO, "", GPIO_MSG(""));

#define PTY_MSG(v) "\"" v "\" must be an absolute path without blanks, shorter than 128 bytes (e.g. /run/gpsphc/ttyS0/nmea)"
#define PATH127 "/run/gpsphc/" \
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
OK(pty_path, CONF_NMEA_PTY, "/run/gpsphc/ttyS0/nmea", 22);
OK(pty_127_bytes, CONF_NMEA_PTY, PATH127, 127);
BAD(pty_128_bytes, CONF_NMEA_PTY, PATH127 "a", PTY_MSG(PATH127 "a"));
BAD(pty_relative, CONF_NMEA_PTY, "ttyS0.nmea", PTY_MSG("ttyS0.nmea"));
BAD(pty_blank, CONF_NMEA_PTY, "/run/gpsphc/tty S0", PTY_MSG("/run/gpsphc/tty S0"));
BAD(pty_empty, CONF_NMEA_PTY, "", PTY_MSG(""));

#define TRUST_MSG(v) "\"" v "\" must be whole seconds, 10..86400 (default 900)"
OK(trust_10, CONF_TRUST_S, "10", 10);
OK(trust_max, CONF_TRUST_S, "86400", 86400);
BAD(trust_9, CONF_TRUST_S, "9", TRUST_MSG("9"));
BAD(trust_above, CONF_TRUST_S, "86401", TRUST_MSG("86401"));
BAD(trust_minutes, CONF_TRUST_S, "15m", TRUST_MSG("15m"));

#define METRICS_MSG(v) "\"" v "\" must be an absolute path ending in .prom, without blanks, shorter than 128 bytes (e.g. /var/lib/prometheus/node-exporter/gpsphc-ttyS0.prom)"
OK(metrics_prom, CONF_METRICS, "/var/lib/prometheus/node-exporter/gpsphc-ttyS0.prom", 51);
OK(metrics_short, CONF_METRICS, "/.prom", 6);
BAD(metrics_relative, CONF_METRICS, "gpsphc.prom", METRICS_MSG("gpsphc.prom"));
BAD(metrics_not_prom, CONF_METRICS, "/var/lib/gpsphc/metrics.txt", METRICS_MSG("/var/lib/gpsphc/metrics.txt"));
BAD(metrics_only_suffix, CONF_METRICS, "prom", METRICS_MSG("prom"));
BAD(metrics_blank, CONF_METRICS, "/var/lib/a b.prom", METRICS_MSG("/var/lib/a b.prom"));
#define INTERVAL_MSG(v) "\"" v "\" must be whole seconds, 1..3600 (default 15)"
OK(metrics_interval_1, CONF_METRICS_INTERVAL, "1", 1);
OK(metrics_interval_max, CONF_METRICS_INTERVAL, "3600", 3600);
BAD(metrics_interval_0, CONF_METRICS_INTERVAL, "0", INTERVAL_MSG("0"));
BAD(metrics_interval_above, CONF_METRICS_INTERVAL, "3601", INTERVAL_MSG("3601"));
BAD(metrics_interval_unit, CONF_METRICS_INTERVAL, "15s", INTERVAL_MSG("15s"));

TEST_F(value, set)
{
	int ret = conf_set(&self->c, variant->key, variant->value, &self->e);

	ASSERT_EQ(variant->want, ret) TH_LOG("%s = \"%s\": %s",
		conf_key_name(variant->key), variant->value, self->e.msg);
	if (ret) {
		EXPECT_STREQ(variant->msg, self->e.msg);
		EXPECT_EQ(0u, self->c.set);
		return;
	}
	EXPECT_EQ(1u << variant->key, self->c.set);
	EXPECT_EQ(variant->got, conf_value(&self->c, variant->key));
}

/* Whole files: accepted with the values, or refused with the message. */
FIXTURE(file) {
	struct conf c;
	struct gp_err e;
};

FIXTURE_VARIANT(file) {
	const char *text;
	int want;
	const char *msg;
	unsigned int set;	/* when accepted */
};

FIXTURE_SETUP(file) {}
FIXTURE_TEARDOWN(file) {}

FIXTURE_VARIANT_ADD(file, empty) { .text = "", .want = CONF_OK };
FIXTURE_VARIANT_ADD(file, comments_and_blanks) {
	.text = "# gpsphcd on ttyS0\n\n   \t\n  # indented comment\n",
	.want = CONF_OK,
};
FIXTURE_VARIANT_ADD(file, every_key) {
	.text = "baud = 9600\nedge = falling\nservo = off\nclock_servo = pi\n"
		"scale = utc\npps_gpio = GPIO18\n"
		"offset = -600\nwindow = 500\nmargin = 50\nguard = 5\n"
		"step_ns = 1000000\nconfirm_n = 4\nrx_latency_ns = 120000000\n"
		"nmea_pty = /run/gpsphc/ttyS0/nmea\ntrust_s = 30\n"
		"metrics = /var/lib/prometheus/node-exporter/gpsphc-ttyS0.prom\n"
		"metrics_interval = 60\n",
	.want = CONF_OK, .set = (1u << CONF_NKEYS) - 1,
};
FIXTURE_VARIANT_ADD(file, blanks_crlf_no_final_newline) {
	.text = "\tbaud=4800 \r\n  edge\t =\trising\r\nscale = tai",
	.want = CONF_OK,
	.set = 1u << CONF_BAUD | 1u << CONF_EDGE | 1u << CONF_SCALE,
};
FIXTURE_VARIANT_ADD(file, unknown_key) {
	.text = "baud = 9600\nbauds = 9600\n", .want = CONF_E_KEY,
	.msg = "line 2: unknown key \"bauds\": the keys are baud, edge, pps_gpio, servo, clock_servo, scale, offset, window, margin, guard, step_ns, confirm_n, rx_latency_ns, nmea_pty, trust_s, metrics, metrics_interval (see gpsphc.conf(5))",
};
FIXTURE_VARIANT_ADD(file, sysfs_spelling_of_an_option) {
	.text = "step-ns = 1000\n", .want = CONF_E_KEY,
	.msg = "line 1: unknown key \"step-ns\": the keys are baud, edge, pps_gpio, servo, clock_servo, scale, offset, window, margin, guard, step_ns, confirm_n, rx_latency_ns, nmea_pty, trust_s, metrics, metrics_interval (see gpsphc.conf(5))",
};
FIXTURE_VARIANT_ADD(file, option_spelling_of_a_key) {
	.text = "clock-servo = pi\n", .want = CONF_E_KEY,
	.msg = "line 1: unknown key \"clock-servo\": the keys are baud, edge, pps_gpio, servo, clock_servo, scale, offset, window, margin, guard, step_ns, confirm_n, rx_latency_ns, nmea_pty, trust_s, metrics, metrics_interval (see gpsphc.conf(5))",
};
FIXTURE_VARIANT_ADD(file, clock_servo_names_line) {
	.text = "servo = on\nclock_servo = linreg\n", .want = CONF_E_VALUE,
	.msg = "line 2: clock_servo \"linreg\" must be bank (the default) or pi (linuxptp's PI servo)",
};
FIXTURE_VARIANT_ADD(file, key_case) {
	.text = "Baud = 9600\n", .want = CONF_E_KEY,
	.msg = "line 1: unknown key \"Baud\": the keys are baud, edge, pps_gpio, servo, clock_servo, scale, offset, window, margin, guard, step_ns, confirm_n, rx_latency_ns, nmea_pty, trust_s, metrics, metrics_interval (see gpsphc.conf(5))",
};
FIXTURE_VARIANT_ADD(file, no_equals) {
	.text = "# x\nbaud 9600\n", .want = CONF_E_SYNTAX,
	.msg = "line 2: \"baud 9600\" is not \"key = value\" (comments start with '#')",
};
FIXTURE_VARIANT_ADD(file, no_key) {
	.text = " = 9600\n", .want = CONF_E_SYNTAX,
	.msg = "line 1: no key before '='",
};
FIXTURE_VARIANT_ADD(file, no_value) {
	.text = "edge =  \n", .want = CONF_E_VALUE,
	.msg = "line 1: edge has no value",
};
FIXTURE_VARIANT_ADD(file, twice) {
	.text = "baud = 9600\n\nbaud = 9600\n", .want = CONF_E_TWICE,
	.msg = "line 3: baud given again (first on line 1): keep one",
};
FIXTURE_VARIANT_ADD(file, comment_after_value) {
	.text = "baud = 9600 # the u-blox\n", .want = CONF_E_VALUE,
	.msg = "line 1: baud \"9600 # the u-blox\" is not a standard rate (1200..921600, e.g. 9600)",
};
FIXTURE_VARIANT_ADD(file, quoted_value) {
	.text = "edge = \"rising\"\n", .want = CONF_E_VALUE,
	.msg = "line 1: edge \"\"rising\"\" must be rising or falling",
};
FIXTURE_VARIANT_ADD(file, out_of_range_names_line) {
	.text = "\n\n\n\nconfirm_n = 61\n", .want = CONF_E_VALUE,
	.msg = "line 5: confirm_n \"61\" must be a whole number 1..60 (default 3)",
};
FIXTURE_VARIANT_ADD(file, long_value) {
	.text = "baud = 9600000000000000000000000000000000000000000000000000000000000000"
		"0000000000000000000000000000000000000000000000000000000000000000\n",
	.want = CONF_E_VALUE,
	.msg = "line 1: baud: the value \"96000000000000000000...\" is too long",
};
FIXTURE_VARIANT_ADD(file, long_line_quoted_short) {
	.text = "this line is not a setting at all and goes on and on and on\n",
	.want = CONF_E_SYNTAX,
	.msg = "line 1: \"this line is not a setting at all and go\" is not \"key = value\" (comments start with '#')",
};

TEST_F(file, parse)
{
	int ret = conf_parse(variant->text, strlen(variant->text), &self->c,
			     &self->e);

	ASSERT_EQ(variant->want, ret) TH_LOG("%s", self->e.msg);
	if (ret) {
		EXPECT_STREQ(variant->msg, self->e.msg);
	} else {
		EXPECT_EQ(variant->set, self->c.set);
	}
}

/* Every key's value from a whole file. */
TEST(file_values)
{
	static const char text[] =
		"baud = 9600\nedge = falling\nservo = off\nclock_servo = pi\n"
		"scale = utc\npps_gpio = pinctrl-bcm2711:18\n"
		"offset = -600\nwindow = 500\nmargin = 50\nguard = 5\n"
		"step_ns = 1000000\nconfirm_n = 4\nrx_latency_ns = 120000000\n"
		"nmea_pty = /run/gpsphc/ttyUSB0/nmea\ntrust_s = 60\n"
		"metrics = /var/lib/prometheus/node-exporter/gpsphc-ttyUSB0.prom\n"
		"metrics_interval = 30\n";
	struct conf c;
	struct gp_err e;

	ASSERT_EQ(CONF_OK, conf_parse(text, strlen(text), &c, &e));
	EXPECT_EQ(9600u, c.baud);
	EXPECT_EQ((unsigned int)GPSPHC_EDGE_FALLING, c.edge);
	EXPECT_EQ((unsigned int)CONF_SERVO_OFF, c.servo);
	EXPECT_EQ((unsigned int)GPSPHC_CLOCK_SERVO_PI, c.clock_servo);
	EXPECT_EQ((unsigned int)GPSPHC_SCALE_UTC, c.scale);
	EXPECT_STREQ("pinctrl-bcm2711:18", c.pps_gpio);
	EXPECT_EQ(-600 * MS, c.offset_ns);
	EXPECT_EQ(500 * MS, c.window_ns);
	EXPECT_EQ(50 * MS, c.margin_ns);
	EXPECT_EQ(5u, c.guard);
	EXPECT_EQ(1000000u, c.step_ns);
	EXPECT_EQ(4u, c.confirm_n);
	EXPECT_EQ(120000000u, c.rx_latency_ns);
	EXPECT_STREQ("/run/gpsphc/ttyUSB0/nmea", c.nmea_pty);
	EXPECT_EQ(60u, c.trust_s);
	EXPECT_STREQ("/var/lib/prometheus/node-exporter/gpsphc-ttyUSB0.prom", c.metrics);
	EXPECT_EQ(30u, c.metrics_interval);
}

/* A NUL byte anywhere in a setting line makes it no text file. */
TEST(file_nul_byte)
{
	static const char text[] = "baud = 96\0" "00\n";
	struct conf c;
	struct gp_err e;

	ASSERT_EQ(CONF_E_SYNTAX, conf_parse(text, sizeof(text) - 1, &c, &e));
	EXPECT_STREQ("line 1: holds a NUL byte: the file must be text", e.msg);
}

/* Only @len bytes are read: no terminating NUL needed. */
TEST(file_len_bounds_the_text)
{
	static const char text[] = "baud = 9600\nedge = nonsense\n";
	struct conf c;
	struct gp_err e;

	ASSERT_EQ(CONF_OK, conf_parse(text, strlen("baud = 9600\n"), &c, &e));
	EXPECT_EQ(1u << CONF_BAUD, c.set);
}

/* Options override the file key by key; the file's other keys stay. */
TEST(merge_options_over_file)
{
	static const char text[] = "baud = 9600\nedge = falling\nstep_ns = 5000\n"
				   "clock_servo = bank\n";
	struct conf file, cli = { 0 };
	struct gp_err e;

	ASSERT_EQ(CONF_OK, conf_parse(text, strlen(text), &file, &e));
	ASSERT_EQ(CONF_OK, conf_set(&cli, CONF_BAUD, "115200", &e));
	ASSERT_EQ(CONF_OK, conf_set(&cli, CONF_RX_LATENCY_NS, "0", &e));
	ASSERT_EQ(CONF_OK, conf_set(&cli, CONF_NMEA_PTY, "/run/x", &e));
	ASSERT_EQ(CONF_OK, conf_set(&cli, CONF_CLOCK_SERVO, "pi", &e));
	conf_merge(&file, &cli);
	EXPECT_STREQ("/run/x", file.nmea_pty);
	EXPECT_EQ(115200u, file.baud);
	EXPECT_EQ((unsigned int)GPSPHC_EDGE_FALLING, file.edge);
	EXPECT_EQ(5000u, file.step_ns);
	EXPECT_EQ(0u, file.rx_latency_ns);
	EXPECT_EQ((unsigned int)GPSPHC_CLOCK_SERVO_PI, file.clock_servo);
	EXPECT_EQ(1u << CONF_BAUD | 1u << CONF_EDGE | 1u << CONF_STEP_NS |
		  1u << CONF_RX_LATENCY_NS | 1u << CONF_NMEA_PTY |
		  1u << CONF_CLOCK_SERVO, file.set);
}

/* Every key has a name the parser knows, and only those. */
TEST(key_names)
{
	char line[64];
	unsigned int k;
	struct conf c;
	struct gp_err e;

	for (k = 0; k < CONF_NKEYS; k++) {
		ASSERT_NE(NULL, conf_key_name((enum conf_key)k));
		snprintf(line, sizeof(line), "%s = x y\n",
			 conf_key_name((enum conf_key)k));
		/*
		 * known key, bad value (a blank: "x" is a line name
		 * pps_gpio takes): a value error, not an unknown key
		 */
		EXPECT_EQ(CONF_E_VALUE, conf_parse(line, strlen(line), &c, &e))
			TH_LOG("%s", e.msg);
	}
	EXPECT_EQ(NULL, conf_key_name(CONF_NKEYS));
}

TEST_HARNESS_MAIN
