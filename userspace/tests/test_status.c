// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_status.c - gpsphcd --status (status.c) from stand-in dumps of
 * dev-get messages built here: the exact bytes of the JSON and the text,
 * tty names that need escaping, a dump interrupted by a change (tried
 * again, from nothing), a dump that fails halfway (nothing on the
 * output, the reason on stderr, status 1), a device whose servo nest is
 * malformed (the same), pulses off the servo's phase (in the status, and
 * what the daemon logs when they begin and end), a module that does not
 * report clock_servo and pps_gpio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

/* The harness compares EXPECT_EQ(1, x) as written (as tools/testing/host). */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#include "linux/gpsphc.h"
#include "../status.h"

/* The servo's values that vary between the tests. */
struct sv {
	bool coarse;
	uint32_t state;
	uint64_t holdover_s;
	uint32_t off_phase_count;
	int64_t off_phase_ns;
	bool no_clock_servo;	/* a module from before the settings */
};

/* A device's dev-get answer, as the kernel sends it, with @sv. */
static struct nl_msg *dev_msg_sv(uint32_t id, const char *tty,
				 const struct sv *sv)
{
	struct nl_msg *m = nlmsg_alloc();
	struct nlattr *n;
	int i;

	if (!m || !genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, 0x20, 0, 0,
			       GPSPHC_CMD_DEV_GET, GPSPHC_GENL_VERSION))
		abort();
	if (nla_put_u32(m, GPSPHC_A_DEV_ID, id) ||
	    nla_put_string(m, GPSPHC_A_DEV_TTY, tty) ||
	    nla_put_u32(m, GPSPHC_A_DEV_PPS_INDEX, id + 1) ||
	    nla_put_u32(m, GPSPHC_A_DEV_PTP_INDEX, id + 2) ||
	    nla_put_u32(m, GPSPHC_A_DEV_EDGE, GPSPHC_EDGE_FALLING) ||
	    nla_put_u32(m, GPSPHC_A_DEV_SCALE, 7) ||	/* not known: "unknown" */
	    nla_put_u64(m, GPSPHC_A_DEV_STEP_NS, 20000000) ||
	    nla_put_u32(m, GPSPHC_A_DEV_CONFIRM_N, 3) ||
	    nla_put_u64(m, GPSPHC_A_DEV_RX_LATENCY_NS, 0) ||
	    nla_put_u8(m, GPSPHC_A_DEV_SERVO_OFF, 0) ||
	    (!sv->no_clock_servo &&
	     (nla_put_u32(m, GPSPHC_A_DEV_CLOCK_SERVO, GPSPHC_CLOCK_SERVO_PI) ||
	      nla_put_string(m, GPSPHC_A_DEV_PPS_GPIO, "GPIO18"))))
		abort();
	n = nla_nest_start(m, GPSPHC_A_DEV_SERVO);
	if (!n || nla_put_u32(m, GPSPHC_A_SERVO_STATE, sv->state) ||
	    nla_put_u64(m, GPSPHC_A_SERVO_OFFSET_NS, (uint64_t)-212) ||
	    nla_put_u64(m, GPSPHC_A_SERVO_RMS_NS, 830) ||
	    nla_put_u64(m, GPSPHC_A_SERVO_FREQ_PPB, (uint64_t)-12457) ||
	    nla_put_u32(m, GPSPHC_A_SERVO_TAI_UTC, 37) ||
	    nla_put_u32(m, GPSPHC_A_SERVO_LEAP, GPSPHC_LEAP_INSERT) ||
	    nla_put_u64(m, GPSPHC_A_SERVO_LEAP_UTC, 1483228800) ||
	    nla_put_u64(m, GPSPHC_A_SERVO_HOLDOVER_S, sv->holdover_s) ||
	    (sv->coarse && nla_put_flag(m, GPSPHC_A_SERVO_COARSE)) ||
	    nla_put_u64(m, GPSPHC_A_SERVO_LABELS, 3587) ||
	    nla_put_u64(m, GPSPHC_A_SERVO_STEPS, 1) ||
	    nla_put_u64(m, GPSPHC_A_SERVO_SPURIOUS, 14) ||
	    nla_put_u64(m, GPSPHC_A_SERVO_RELOCKS, 2) ||
	    nla_put_u64(m, GPSPHC_A_SERVO_HOLDOVERS, 1) ||
	    nla_put_u32(m, GPSPHC_A_SERVO_OFF_PHASE_COUNT, sv->off_phase_count) ||
	    nla_put_u64(m, GPSPHC_A_SERVO_OFF_PHASE_NS, (uint64_t)sv->off_phase_ns) ||
	    nla_put_u64(m, GPSPHC_A_SERVO_REPHASES, 4))
		abort();
	nla_nest_end(m, n);
	n = nla_nest_start(m, GPSPHC_A_DEV_STATS);
	for (i = GPSPHC_A_STATS_SENTENCES; i <= GPSPHC_A_STATS_EVENTS_DROPPED; i++)
		if (!n || nla_put_u64(m, i, (uint64_t)i * 10))
			abort();
	nla_nest_end(m, n);
	return m;
}

/* The same, locked, with the coarse flag if @coarse. */
static struct nl_msg *dev_msg(uint32_t id, const char *tty, bool coarse)
{
	struct sv sv = { .coarse = coarse, .state = GPSPHC_SERVO_LOCKED };

	return dev_msg_sv(id, tty, &sv);
}

/* A stand-in dump: its messages, then its answer, for each try. */
struct fake {
	struct nl_msg *msg[3];
	int n;
	int err[4];		/* the answer of try 0, 1, ...; 0 after */
	int tries;
};

static int fake_dump(void *src, status_dev_fn dev, void *arg)
{
	struct fake *f = src;
	int i, err = f->tries < 4 ? f->err[f->tries] : 0;

	f->tries++;
	for (i = 0; i < f->n; i++)
		/* An error stops the dump after its first device. */
		if (!err || i == 0)
			dev(f->msg[i], arg);
	return err;
}

FIXTURE(status) {
	struct fake f;
	FILE *out;
	char text[8192], err[4096];
	int ret;
};

FIXTURE_SETUP(status)
{
	memset(&self->f, 0, sizeof(self->f));
	self->out = tmpfile();
	ASSERT_NE(NULL, self->out);
}

FIXTURE_TEARDOWN(status)
{
	for (int i = 0; i < self->f.n; i++)
		nlmsg_free(self->f.msg[i]);
	fclose(self->out);
}

/* status_show() into self->text (stdout) and self->err (stderr). */
static void show(struct __test_metadata *_metadata,
		 FIXTURE_DATA(status) *self, bool json)
{
	FILE *err = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n;

	ASSERT_NE(NULL, err);
	ASSERT_LE(0, saved);
	fflush(stderr);
	ASSERT_LE(0, dup2(fileno(err), STDERR_FILENO));
	self->ret = status_show(self->out, json, fake_dump, &self->f);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(err);
	n = fread(self->err, 1, sizeof(self->err) - 1, err);
	self->err[n] = '\0';
	fclose(err);
	rewind(self->out);
	n = fread(self->text, 1, sizeof(self->text) - 1, self->out);
	self->text[n] = '\0';
}

/* How often @s holds @what. */
static int count(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s++;
	}
	return n;
}

#define DEV0_JSON(tty) \
	"{ \"id\": 0, \"tty\": \"" tty "\", \"pps\": \"pps1\", \"ptp\": \"ptp2\", " \
	"\"edge\": \"falling\", \"scale\": \"unknown\", \"step_ns\": 20000000, " \
	"\"confirm_n\": 3, \"rx_latency_ns\": 0, \"servo_off\": false, " \
	"\"clock_servo\": \"pi\", \"pps_gpio\": \"GPIO18\", " \
	"\"servo\": { \"state\": \"locked\", \"offset_ns\": -212, \"rms_ns\": 830, " \
	"\"freq_ppb\": -12457, \"tai_utc\": 37, \"leap\": \"insert\", " \
	"\"leap_utc\": 1483228800, \"holdover_s\": 0, \"coarse\": true, " \
	"\"off_phase_count\": 0, \"off_phase_ns\": 0, " \
	"\"labels\": 3587, \"labels_refused\": 0, \"disagreements\": 0, " \
	"\"steps\": 1, \"outliers\": 0, \"spurious\": 14, \"relocks\": 2, " \
	"\"holdovers\": 1, \"rephases\": 4 }, " \
	"\"stats\": { \"sentences\": 10, \"csum_ok\": 20, \"csum_missing\": 30, " \
	"\"csum_bad\": 40, \"overlong\": 50, \"truncated\": 60, \"invalid\": 70, " \
	"\"flag_aborts\": 80, \"flag_bytes\": 90, \"noise_bytes\": 100, " \
	"\"binary_frames\": 110, \"binary_bad\": 120, \"pps_edges\": 130, " \
	"\"pps_missed\": 140, \"events_dropped\": 150 } }"

TEST_F(status, json_exact_with_escaped_tty)
{
	self->f.msg[self->f.n++] = dev_msg(0, "tty\"S\\0\x01", true);
	show(_metadata, self, true);
	EXPECT_EQ(0, self->ret);
	EXPECT_STREQ("{ \"devices\": [ " DEV0_JSON("tty\\\"S\\\\0\\u0001") " ] }\n",
		     self->text);
	EXPECT_STREQ("", self->err);
}

TEST_F(status, json_no_device)
{
	show(_metadata, self, true);
	EXPECT_EQ(0, self->ret);
	EXPECT_STREQ("{ \"devices\": [ ] }\n", self->text);
}

/* dev_msg()'s first line and counters as text. */
#define DEV0_TEXT_HEAD \
	"gpsphc0 on ttyS0: /dev/ptp2, /dev/pps1, on-time edge falling, clock in unknown, servo on, clock_servo pi, pps_gpio GPIO18\n"
#define DEV0_TEXT_COUNTERS \
	"  servo counters: labels 3587 labels_refused 0 disagreements 0 steps 1 outliers 0 spurious 14 relocks 2 holdovers 1 rephases 4\n" \
	"  counters: sentences 10 csum_ok 20 csum_missing 30 csum_bad 40 overlong 50 truncated 60 invalid 70 flag_aborts 80 flag_bytes 90 noise_bytes 100 binary_frames 110 binary_bad 120 pps_edges 130 pps_missed 140 events_dropped 150\n"

TEST_F(status, text_exact)
{
	self->f.msg[self->f.n++] = dev_msg(0, "ttyS0", false);
	show(_metadata, self, false);
	EXPECT_EQ(0, self->ret);
	EXPECT_STREQ(DEV0_TEXT_HEAD
		     "  servo locked, offset -212 ns, rms 830 ns, frequency -12457 ppb\n"
		     "  TAI-UTC 37 s, leap second insert at 1483228800\n"
		     DEV0_TEXT_COUNTERS,
		     self->text);
}

/*
 * Holdover with pulses arriving every second off the servo's phase: the
 * status says they come, and where, so the holdover is not mistaken for
 * a lost PPS.
 */
TEST_F(status, text_off_phase_in_holdover)
{
	struct sv sv = { .state = GPSPHC_SERVO_HOLDOVER, .holdover_s = 3,
			 .off_phase_count = 3, .off_phase_ns = 300000417 };

	self->f.msg[self->f.n++] = dev_msg_sv(0, "ttyS0", &sv);
	show(_metadata, self, false);
	EXPECT_EQ(0, self->ret);
	EXPECT_STREQ(DEV0_TEXT_HEAD
		     "  servo holdover, offset -212 ns, rms 830 ns, frequency -12457 ppb\n"
		     "  TAI-UTC 37 s, leap second insert at 1483228800, in holdover for 3 s\n"
		     "  3 pulses in a row at +300.000 ms off the servo's phase: a steady new phase, not a lost PPS (taken at the 4th)\n"
		     DEV0_TEXT_COUNTERS,
		     self->text);
}

/* The same in JSON, pulses early: a negative offset. */
TEST_F(status, json_off_phase_early)
{
	struct sv sv = { .state = GPSPHC_SERVO_LOCKED,
			 .off_phase_count = 2, .off_phase_ns = -120500000 };

	self->f.msg[self->f.n++] = dev_msg_sv(0, "ttyS0", &sv);
	show(_metadata, self, true);
	EXPECT_EQ(0, self->ret);
	EXPECT_EQ(1, count(self->text, "\"holdover_s\": 0, \"coarse\": false, \"off_phase_count\": 2, \"off_phase_ns\": -120500000, \"labels\": 3587, "));
	EXPECT_EQ(1, count(self->text, "\"holdovers\": 1, \"rephases\": 4 }, \"stats\""));
	show(_metadata, self, false);
	EXPECT_EQ(1, count(self->text, "\n  2 pulses in a row at -120.500 ms off the servo's phase: a steady new phase, not a lost PPS (taken at the 4th)\n  servo counters:"));
}

/* Within a millisecond of the second: the sign still says which side. */
TEST(off_phase_words_near_zero)
{
	char buf[256];

	status_off_phase(buf, sizeof(buf), 2, -999);
	EXPECT_STREQ("2 pulses in a row at -0.000 ms off the servo's phase: a steady new phase, not a lost PPS (taken at the 4th)",
		     buf);
	status_off_phase(buf, sizeof(buf), 2, 500000000);
	EXPECT_EQ(0, strncmp(buf, "2 pulses in a row at +500.000 ms off", 36));
}

/*
 * What gpsphcd logs as the statuses of successive seconds come: once when
 * off-phase pulses begin (a warning), nothing while they go on, once
 * when they end (a notice), saying whether the servo took their phase.
 */
TEST(off_phase_logged_once_when_it_begins_and_ends)
{
	struct status_off_phase was = { 0 };
	char buf[256] = "";

	EXPECT_EQ(-1, status_off_phase_change(&was, 0, 0, 0, buf, sizeof(buf)));
	EXPECT_EQ(LOG_WARNING, status_off_phase_change(&was, 2, 300000000, 0, buf, sizeof(buf)));
	EXPECT_STREQ("2 pulses in a row at +300.000 ms off the servo's phase: a steady new phase, not a lost PPS (taken at the 4th)",
		     buf);
	EXPECT_EQ(-1, status_off_phase_change(&was, 3, 300000250, 0, buf, sizeof(buf)));
	EXPECT_EQ(-1, status_off_phase_change(&was, 3, 300000250, 0, buf, sizeof(buf)));
	EXPECT_EQ(LOG_NOTICE, status_off_phase_change(&was, 0, 0, 1, buf, sizeof(buf)));
	EXPECT_STREQ("the servo took the pulses at +300.000 ms as its new phase: it counts them and steers the clock to them",
		     buf);
	EXPECT_EQ(-1, status_off_phase_change(&was, 0, 0, 1, buf, sizeof(buf)));

	/* Pulses that stop (or come back on phase) before the 4th. */
	EXPECT_EQ(LOG_WARNING, status_off_phase_change(&was, 2, -5000000, 1, buf, sizeof(buf)));
	EXPECT_STREQ("2 pulses in a row at -5.000 ms off the servo's phase: a steady new phase, not a lost PPS (taken at the 4th)",
		     buf);
	EXPECT_EQ(-1, status_off_phase_change(&was, 3, -5000100, 1, buf, sizeof(buf)));
	EXPECT_EQ(LOG_NOTICE, status_off_phase_change(&was, 0, 0, 1, buf, sizeof(buf)));
	EXPECT_STREQ("no more pulses at -5.000 ms off the servo's phase (3 in a row came); it kept its phase",
		     buf);
}

/*
 * A module without the clock_servo and pps_gpio settings: "unknown", like
 * any value not known, and "none" (such a module has only DCD).
 */
TEST_F(status, module_without_clock_servo)
{
	struct sv sv = { .state = GPSPHC_SERVO_LOCKED, .no_clock_servo = true };

	self->f.msg[self->f.n++] = dev_msg_sv(0, "ttyS0", &sv);
	show(_metadata, self, false);
	EXPECT_EQ(0, self->ret);
	EXPECT_STREQ("gpsphc0 on ttyS0: /dev/ptp2, /dev/pps1, on-time edge falling, clock in unknown, servo on, clock_servo unknown, pps_gpio none\n"
		     "  servo locked, offset -212 ns, rms 830 ns, frequency -12457 ppb\n"
		     "  TAI-UTC 37 s, leap second insert at 1483228800\n"
		     DEV0_TEXT_COUNTERS,
		     self->text);
	/* (the output file keeps the text: the JSON comes after it) */
	show(_metadata, self, true);
	EXPECT_EQ(0, self->ret);
	EXPECT_EQ(1, count(self->text, "\"servo_off\": false, \"clock_servo\": \"unknown\", \"pps_gpio\": \"none\", \"servo\": { "));
}

TEST_F(status, text_no_device)
{
	show(_metadata, self, false);
	EXPECT_EQ(0, self->ret);
	EXPECT_STREQ("no tty has the gpsphc discipline attached (start gpsphcd TTY)\n",
		     self->text);
}

/* A dump of two devices whose first @n tries end in @err. */
static void two_devices(FIXTURE_DATA(status) *self, int n, int err)
{
	self->f.msg[self->f.n++] = dev_msg(0, "ttyS0", true);
	self->f.msg[self->f.n++] = dev_msg(1, "ttyUSB0", true);
	for (int i = 0; i < n; i++)
		self->f.err[i] = err;
}

/* Interrupted once by a change: the second try alone is printed. */
TEST_F(status, interrupted_dump_tried_again_from_nothing)
{
	two_devices(self, 1, -NLE_DUMP_INTR);
	show(_metadata, self, true);
	EXPECT_EQ(0, self->ret);
	EXPECT_EQ(2, self->f.tries);
	EXPECT_EQ(1, count(self->text, "\"ttyS0\""));
	EXPECT_EQ(1, count(self->text, "\"ttyUSB0\""));
	EXPECT_EQ(1, count(self->text, "{ \"devices\": [ " DEV0_JSON("ttyS0") ", { \"id\": 1, "));
	EXPECT_EQ(1, count(self->text, "} } ] }\n"));
}

/* A dump that fails after @tries tries: status 1, nothing printed. */
static void fails(struct __test_metadata *_metadata,
		  FIXTURE_DATA(status) *self, bool json, int tries)
{
	self->f.tries = 0;
	show(_metadata, self, json);
	EXPECT_EQ(1, self->ret);
	EXPECT_EQ(tries, self->f.tries);
	EXPECT_STREQ("", self->text);
}

/* Interrupted every time: nothing printed, the reason on stderr. */
TEST_F(status, interrupted_every_time_prints_nothing)
{
	two_devices(self, 4, -NLE_DUMP_INTR);
	fails(_metadata, self, true, 3);
	EXPECT_STREQ("gpsphcd: listing gpsphc devices: the devices changed during each of 3 dumps (attached or detached meanwhile): nothing printed; run gpsphcd --status again\n",
		     self->err);
}

/* A dump that fails halfway (the first device came): nothing printed. */
TEST_F(status, failed_halfway_prints_nothing)
{
	two_devices(self, 1, -NLE_NOMEM);
	fails(_metadata, self, true, 1);
	EXPECT_EQ(0, strncmp(self->err, "gpsphcd: listing gpsphc devices: ", 33));
	EXPECT_NE(NULL, strstr(self->err, ": nothing printed\n"));
	fails(_metadata, self, false, 1);
}

/* A device whose servo nest has rms-ns as a u32: a u64 in the spec. */
static struct nl_msg *dev_msg_bad_servo(uint32_t id, const char *tty)
{
	struct nl_msg *m = nlmsg_alloc();
	struct nlattr *n;

	if (!m || !genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, 0x20, 0, 0,
			       GPSPHC_CMD_DEV_GET, GPSPHC_GENL_VERSION) ||
	    nla_put_u32(m, GPSPHC_A_DEV_ID, id) ||
	    nla_put_string(m, GPSPHC_A_DEV_TTY, tty) ||
	    !(n = nla_nest_start(m, GPSPHC_A_DEV_SERVO)) ||
	    nla_put_u32(m, GPSPHC_A_SERVO_STATE, GPSPHC_SERVO_LOCKED) ||
	    nla_put_u32(m, GPSPHC_A_SERVO_RMS_NS, 830))
		return NULL;
	nla_nest_end(m, n);
	return m;
}

/*
 * A malformed servo nest, after a good device: refused, not read past
 * its end; nothing printed, the device and the attribute on stderr.
 */
TEST_F(status, malformed_servo_nest_prints_nothing)
{
	self->f.msg[self->f.n++] = dev_msg(0, "ttyS0", false);
	self->f.msg[self->f.n++] = dev_msg_bad_servo(1, "ttyUSB0");
	ASSERT_NE(NULL, self->f.msg[1]);
	for (int json = 0; json < 2; json++) {
		fails(_metadata, self, json, 1);
		EXPECT_STREQ("gpsphcd: listing gpsphc devices: gpsphc1 on ttyUSB0: its servo status is malformed: attribute rms-ns (3) is 4 bytes long: a u64 takes 8: nothing printed; the gpsphc module and gpsphcd do not match: install both from the same gpsphc version (modinfo -F version gpsphc, gpsphcd --version)\n",
			     self->err);
	}
}

TEST_HARNESS_MAIN
