// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_live_nl.c - the dev-set gpsphcd sends at attach (live_nl.c), built
 * from a configuration file's text as gpsphc.conf(5) takes it: the exact
 * bytes of the request, header and attributes, for each kind of setting;
 * nothing at all when the file gives none of the device's settings; an
 * error, not half a request, when the message has no room.
 *
 * The attribute numbers and types are the spec's
 * (Documentation/netlink/specs/gpsphc.yaml, the dev set), written out
 * again here as bytes so that a change of either shows.
 */
#include <stdint.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

/* The harness compares EXPECT_EQ(1, x) as written (as tools/testing/host). */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#include "conf.h"
#include "linux/gpsphc.h"
#include "../live_nl.h"

/* A stand-in family number: the kernel's is the controller's to give. */
#define FAMILY	0x20
#define DEV_ID	5

/* Bytes of a value in the host's order, as netlink carries them. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define U16(v)	((v) & 0xff), (((v) >> 8) & 0xff)
#define U32(v)	U16((v) & 0xffff), U16(((v) >> 16) & 0xffff)
#define U64(v)	U32((v) & 0xffffffffULL), U32(((v) >> 32) & 0xffffffffULL)
#else
#define U16(v)	(((v) >> 8) & 0xff), ((v) & 0xff)
#define U32(v)	U16(((v) >> 16) & 0xffff), U16((v) & 0xffff)
#define U64(v)	U32(((v) >> 32) & 0xffffffffULL), U32((v) & 0xffffffffULL)
#endif

/* An attribute: its length (header and value, not the padding), type. */
#define A_U8(type, v)	U16(5), U16(type), (v), 0, 0, 0
#define A_U32(type, v)	U16(8), U16(type), U32(v)
#define A_U64(type, v)	U16(12), U16(type), U64(v)
#define A_ID		A_U32(GPSPHC_A_DEV_ID, DEV_ID)
/* "GPIO18" with its NUL, padded to 4 bytes */
#define A_GPIO18	U16(11), U16(GPSPHC_A_DEV_PPS_GPIO), \
			'G', 'P', 'I', 'O', '1', '8', 0, 0

FIXTURE(dev_set) {
	struct nl_msg *m;
	struct conf c;
	struct gp_err e;
};

FIXTURE_VARIANT(dev_set) {
	const char *text;		/* the configuration file */
	int want;			/* live_nl_dev_set_put()'s answer */
	const uint8_t *attrs;		/* the attributes sent */
	size_t len;
};

FIXTURE_SETUP(dev_set)
{
	struct live_nl nl = { .family = FAMILY };

	self->m = live_nl_msg(&nl, GPSPHC_CMD_DEV_SET);
	ASSERT_NE(NULL, self->m);
}

FIXTURE_TEARDOWN(dev_set)
{
	nlmsg_free(self->m);
}

#define SENDS(name, conf, ...) \
	static const uint8_t name##_attrs[] = { __VA_ARGS__ }; \
	FIXTURE_VARIANT_ADD(dev_set, name) { .text = conf, .want = 1, \
		.attrs = name##_attrs, .len = sizeof(name##_attrs) }

/* Keys that are the tty's or gpsphcd's own: no request at all. */
FIXTURE_VARIANT_ADD(dev_set, none_of_the_device_keys) {
	.text = "baud = 9600\noffset = -600\nwindow = 500\nmargin = 50\n"
		"guard = 5\nnmea_pty = /run/gpsphc/ttyS0/nmea\ntrust_s = 30\n"
		"metrics = /var/lib/prometheus/node-exporter/gpsphc-ttyS0.prom\n"
		"metrics_interval = 60\n",
	.want = 0,
};
FIXTURE_VARIANT_ADD(dev_set, empty_file) { .text = "", .want = 0 };

SENDS(edge_falling, "edge = falling\n",
      A_ID, A_U32(GPSPHC_A_DEV_EDGE, GPSPHC_EDGE_FALLING));
SENDS(clock_servo_pi, "clock_servo = pi\n",
      A_ID, A_U32(GPSPHC_A_DEV_CLOCK_SERVO, GPSPHC_CLOCK_SERVO_PI));
SENDS(clock_servo_bank, "clock_servo = bank\nmetrics_interval = 60\n",
      A_ID, A_U32(GPSPHC_A_DEV_CLOCK_SERVO, GPSPHC_CLOCK_SERVO_BANK));
SENDS(pps_gpio_line_name, "pps_gpio = GPIO18\n", A_ID, A_GPIO18);
SENDS(pps_gpio_none, "baud = 9600\npps_gpio = none\n",
      A_ID, U16(9), U16(GPSPHC_A_DEV_PPS_GPIO), 'n', 'o', 'n', 'e', 0, 0, 0, 0);
SENDS(scale_utc, "baud = 9600\nscale = utc\n",
      A_ID, A_U32(GPSPHC_A_DEV_SCALE, GPSPHC_SCALE_UTC));
/* servo is sent inverted, as the kernel's servo-off flag (a u8) */
SENDS(servo_on, "servo = on\n",
      A_ID, A_U8(GPSPHC_A_DEV_SERVO_OFF, 0));
SENDS(servo_off, "servo = off\n",
      A_ID, A_U8(GPSPHC_A_DEV_SERVO_OFF, 1));
/* The file's order is not the request's: the attributes' numbers are. */
SENDS(every_device_key,
      "pps_gpio = GPIO18\nclock_servo = pi\nservo = off\n"
      "rx_latency_ns = 120000000\nconfirm_n = 5\nstep_ns = 1000000\n"
      "scale = tai\nedge = rising\nbaud = 4800\n",
      A_ID,
      A_U32(GPSPHC_A_DEV_EDGE, GPSPHC_EDGE_RISING),
      A_U32(GPSPHC_A_DEV_SCALE, GPSPHC_SCALE_TAI),
      A_U64(GPSPHC_A_DEV_STEP_NS, 1000000ULL),
      A_U32(GPSPHC_A_DEV_CONFIRM_N, 5),
      A_U64(GPSPHC_A_DEV_RX_LATENCY_NS, 120000000ULL),
      A_U8(GPSPHC_A_DEV_SERVO_OFF, 1),
      A_U32(GPSPHC_A_DEV_CLOCK_SERVO, GPSPHC_CLOCK_SERVO_PI),
      A_GPIO18);
/* The largest values, every byte of the u64s */
SENDS(largest_values,
      "step_ns = 1000000000\nconfirm_n = 60\nrx_latency_ns = 999000000\n",
      A_ID,
      A_U64(GPSPHC_A_DEV_STEP_NS, 1000000000ULL),
      A_U32(GPSPHC_A_DEV_CONFIRM_N, 60),
      A_U64(GPSPHC_A_DEV_RX_LATENCY_NS, 999000000ULL));

TEST_F(dev_set, request_bytes)
{
	struct nlmsghdr *nlh = nlmsg_hdr(self->m);
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	uint32_t before = nlh->nlmsg_len;

	ASSERT_EQ(CONF_OK, conf_parse(variant->text, strlen(variant->text),
				      &self->c, &self->e)) TH_LOG("%s", self->e.msg);
	ASSERT_EQ(variant->want, live_nl_dev_set_put(self->m, DEV_ID, &self->c));
	/* the header: the family's dev-set, answered with an ACK */
	EXPECT_EQ(FAMILY, nlh->nlmsg_type);
	EXPECT_EQ(NLM_F_ACK, nlh->nlmsg_flags & NLM_F_ACK);
	EXPECT_EQ(GPSPHC_CMD_DEV_SET, gnlh->cmd);
	EXPECT_EQ(GPSPHC_GENL_VERSION, gnlh->version);
	if (!variant->want) {
		EXPECT_EQ(before, nlh->nlmsg_len);
		return;
	}
	ASSERT_EQ(variant->len, (size_t)genlmsg_attrlen(gnlh, 0));
	EXPECT_EQ(0, memcmp(variant->attrs, genlmsg_attrdata(gnlh, 0),
			    variant->len));
	EXPECT_EQ(NLMSG_HDRLEN + GENL_HDRLEN + variant->len, nlh->nlmsg_len);
}

/* No room for every setting: an error, and the caller sends nothing. */
TEST(dev_set_without_room)
{
	static const char text[] = "edge = falling\nscale = utc\nstep_ns = 1000\n";
	/* room for the headers, the id and the edge: not the scale */
	struct nl_msg *m = nlmsg_alloc_size(NLMSG_HDRLEN + GENL_HDRLEN + 16);
	struct conf c;
	struct gp_err e;

	ASSERT_NE(NULL, m);
	ASSERT_NE(NULL, genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, FAMILY, 0,
				    NLM_F_ACK, GPSPHC_CMD_DEV_SET,
				    GPSPHC_GENL_VERSION));
	ASSERT_EQ(CONF_OK, conf_parse(text, strlen(text), &c, &e));
	EXPECT_EQ(-NLE_NOMEM, live_nl_dev_set_put(m, DEV_ID, &c));
	nlmsg_free(m);
}

TEST_HARNESS_MAIN
