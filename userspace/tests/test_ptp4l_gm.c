// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ptp4l_gm.c - gpsphcd's ptp4l client (ptp4l_gm.c) against a stand-in
 * for ptp4l's socket in this process, on a clock the test moves: what it
 * sends, when it sends again (unanswered, changed, refused, answered with
 * other settings, an old answer, the refresh), and the kernel's servo nest,
 * decoded by servo_status.c, read into a status. The real ptp4l is tools/testing/host/
 * ptp4l_gm_test.sh's business.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

/* The harness compares EXPECT_EQ(1, x) as written (as tools/testing/host). */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#include "linux/gpsphc.h"
#include "../ptp4l_gm.h"
#include "../servo_status.h"
#include "ptpmgmt.h"

#define S	1000000000LL

struct srv {
	int fd;
	char dir[64], path[96], client[96];
	struct sockaddr_un from;
	socklen_t from_len;
	uint8_t req[PTPM_MAX_LEN];
	size_t req_len;
	struct ptpm_msg m;
	struct ptpm_gm_settings got;
};

static int srv_open(struct srv *s)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	snprintf(s->dir, sizeof(s->dir), "/tmp/gpsphc-gmtest.XXXXXX");
	if (!mkdtemp(s->dir))
		return -1;
	snprintf(s->path, sizeof(s->path), "%s/ptp4l", s->dir);
	snprintf(s->client, sizeof(s->client), "%s/gpsphcd", s->dir);
	strcpy(a.sun_path, s->path);
	s->fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	return s->fd < 0 ? -1 : bind(s->fd, (struct sockaddr *)&a, sizeof(a));
}

static void srv_close(struct srv *s)
{
	close(s->fd);
	unlink(s->path);
	unlink(s->client);
	rmdir(s->dir);
}

/* One request, if one came: true with it decoded. */
static bool srv_recv(struct srv *s)
{
	struct pollfd p = { .fd = s->fd, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, 0) != 1)
		return false;
	s->from_len = sizeof(s->from);
	n = recvfrom(s->fd, s->req, sizeof(s->req), 0,
		     (struct sockaddr *)&s->from, &s->from_len);
	s->req_len = n > 0 ? (size_t)n : 0;
	return !ptpm_decode(s->req, s->req_len, &s->m) &&
	       !ptpm_decode_gm_settings(s->m.data, s->m.data_len, &s->got);
}

enum reply { ECHO, OTHER, REFUSE, OLD_SEQ };

/* Answer the last request as ptp4l would, or as told. */
static void srv_reply(struct srv *s, enum reply how)
{
	uint8_t buf[PTPM_MAX_LEN], d[PTPM_GMS_LEN];
	struct ptpm_req r;
	size_t n;

	ptpm_req_init(&r, 0);
	r.seq = s->m.seq - (how == OLD_SEQ);
	r.target = s->m.source;
	memcpy(d, s->m.data, sizeof(d));
	if (how == OTHER)
		d[0] = 248;
	if (how == REFUSE) {
		/* MANAGEMENT_ERROR_STATUS: error, id, 4 reserved bytes */
		uint8_t e[6] = { (uint8_t)(s->m.id >> 8), (uint8_t)s->m.id };

		n = ptpm_encode(buf, sizeof(buf), &r, PTPM_RESPONSE,
				PTPM_ERR_NOT_SUPPORTED, e, sizeof(e));
		buf[49] = PTPM_TLV_MANAGEMENT_ERROR_STATUS;
	} else {
		n = ptpm_encode(buf, sizeof(buf), &r, PTPM_RESPONSE, s->m.id,
				d, sizeof(d));
	}
	sendto(s->fd, buf, n, 0, (struct sockaddr *)&s->from, s->from_len);
}

static const struct gmp_input locked = {
	.state = GPSPHC_SERVO_LOCKED, .tai_utc = 37, .leap = GPSPHC_LEAP_NONE,
};
static const struct gmp_input holdover = {
	.state = GPSPHC_SERVO_HOLDOVER, .holdover_s = 5, .tai_utc = 37,
	.leap = GPSPHC_LEAP_NONE,
};

FIXTURE(gm) {
	struct srv s;
	struct gmp_cfg cfg;
	struct ptp4l_gm *gm;
	int64_t t;
};
FIXTURE_SETUP(gm)
{
	gmp_defaults(&self->cfg);
	self->cfg.domain = 24;
	ASSERT_EQ(0, srv_open(&self->s));
	self->gm = ptp4l_gm_open(self->s.path, self->s.client, &self->cfg);
	ASSERT_NE(NULL, self->gm);
	self->t = 1000 * S;
}
FIXTURE_TEARDOWN(gm)
{
	ptp4l_gm_close(self->gm);
	srv_close(&self->s);
}

TEST_F(gm, sends_as_pmc_and_takes_the_echo)
{
	struct ptpm_gm_settings want, acked;

	gmp_map(&self->cfg, &locked, &want);
	ptp4l_gm_update(self->gm, &locked, self->t);
	ASSERT_TRUE(srv_recv(&self->s));
	EXPECT_EQ(PTPM_SET, self->s.m.action);
	EXPECT_EQ(PTPM_ID_GRANDMASTER_SETTINGS_NP, self->s.m.id);
	EXPECT_EQ(24, self->s.m.domain);
	EXPECT_EQ(0, self->s.m.hops);
	EXPECT_EQ(0, self->s.m.starting_hops);
	EXPECT_EQ(0xffff, self->s.m.target.port);
	EXPECT_EQ((uint16_t)getpid(), self->s.m.source.port);
	EXPECT_EQ(0, self->s.m.seq);
	EXPECT_TRUE(ptpm_gm_settings_eq(&want, &self->s.got));
	EXPECT_FALSE(ptp4l_gm_acked(self->gm, &acked));
	srv_reply(&self->s, ECHO);
	/* read on the next update; nothing more to send */
	ptp4l_gm_update(self->gm, &locked, self->t + S / 2);
	ASSERT_TRUE(ptp4l_gm_acked(self->gm, &acked));
	EXPECT_TRUE(ptpm_gm_settings_eq(&want, &acked));
	ptp4l_gm_update(self->gm, &locked, self->t + 2 * S);
	EXPECT_FALSE(srv_recv(&self->s));
}

TEST_F(gm, unanswered_sent_again_each_second)
{
	ptp4l_gm_update(self->gm, &locked, self->t);
	ASSERT_TRUE(srv_recv(&self->s));
	ptp4l_gm_update(self->gm, &locked, self->t + S - 1);
	EXPECT_FALSE(srv_recv(&self->s));
	ptp4l_gm_update(self->gm, &locked, self->t + S);
	ASSERT_TRUE(srv_recv(&self->s));
	EXPECT_EQ(1, self->s.m.seq);
	ptp4l_gm_update(self->gm, &locked, self->t + 2 * S);
	ASSERT_TRUE(srv_recv(&self->s));
	EXPECT_EQ(2, self->s.m.seq);
}

TEST_F(gm, a_change_goes_out_at_once)
{
	ptp4l_gm_update(self->gm, &locked, self->t);
	ASSERT_TRUE(srv_recv(&self->s));
	ptp4l_gm_update(self->gm, &holdover, self->t + S / 10);
	ASSERT_TRUE(srv_recv(&self->s));
	EXPECT_EQ(7, self->s.got.clock_class);
	/* the late echo of the first is not taken for the second */
	srv_reply(&self->s, OLD_SEQ);
	ptp4l_gm_update(self->gm, &holdover, self->t + S / 5);
	EXPECT_FALSE(ptp4l_gm_acked(self->gm, &self->s.got));
}

TEST_F(gm, refused_or_other_settings_not_taken)
{
	struct ptpm_gm_settings acked;

	ptp4l_gm_update(self->gm, &locked, self->t);
	ASSERT_TRUE(srv_recv(&self->s));
	srv_reply(&self->s, REFUSE);
	/* the answer came: sent again on the next update, not a second later */
	ptp4l_gm_update(self->gm, &locked, self->t + S / 10);
	EXPECT_FALSE(ptp4l_gm_acked(self->gm, &acked));
	ASSERT_TRUE(srv_recv(&self->s));
	srv_reply(&self->s, OTHER);
	ptp4l_gm_update(self->gm, &locked, self->t + S / 5);
	EXPECT_FALSE(ptp4l_gm_acked(self->gm, &acked));
	ASSERT_TRUE(srv_recv(&self->s));
	srv_reply(&self->s, ECHO);
	ptp4l_gm_update(self->gm, &locked, self->t + S / 2);
	ASSERT_TRUE(ptp4l_gm_acked(self->gm, &acked));
	EXPECT_EQ(6, acked.clock_class);
}

TEST_F(gm, refreshed_every_refresh_seconds)
{
	ptp4l_gm_update(self->gm, &locked, self->t);
	ASSERT_TRUE(srv_recv(&self->s));
	srv_reply(&self->s, ECHO);
	ptp4l_gm_update(self->gm, &locked, self->t + S / 10);
	ptp4l_gm_update(self->gm, &locked, self->t + 60 * S);
	EXPECT_FALSE(srv_recv(&self->s));
	ptp4l_gm_update(self->gm, &locked, self->t + 60 * S + S / 10);
	ASSERT_TRUE(srv_recv(&self->s));
	EXPECT_EQ(6, self->s.got.clock_class);
}

TEST_F(gm, reads_the_kernels_servo_nest)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct servo_status sv, none = { 0 };
	struct nlattr *nest;
	char why[160];

	ASSERT_NE(NULL, msg);
	nest = nla_nest_start(msg, GPSPHC_A_DEV_SERVO);
	ASSERT_NE(NULL, nest);
	ASSERT_EQ(0, nla_put_u32(msg, GPSPHC_A_SERVO_STATE, GPSPHC_SERVO_LOCKED));
	ASSERT_EQ(0, nla_put_u32(msg, GPSPHC_A_SERVO_TAI_UTC, 36));
	ASSERT_EQ(0, nla_put_u32(msg, GPSPHC_A_SERVO_LEAP, GPSPHC_LEAP_INSERT));
	/* a midnight long past: within any notice */
	ASSERT_EQ(0, nla_put_u64(msg, GPSPHC_A_SERVO_LEAP_UTC, 1483228800ULL));
	ASSERT_EQ(0, nla_put_u64(msg, GPSPHC_A_SERVO_HOLDOVER_S, 0));
	ASSERT_EQ(0, nla_put_flag(msg, GPSPHC_A_SERVO_COARSE));
	nla_nest_end(msg, nest);
	ASSERT_EQ(0, servo_status_parse(nest, &sv, why, sizeof(why)));
	ptp4l_gm_servo(self->gm, &sv);
	ASSERT_TRUE(srv_recv(&self->s));
	EXPECT_EQ(6, self->s.got.clock_class);
	EXPECT_EQ(0x2B, self->s.got.clock_accuracy);
	EXPECT_EQ(36, self->s.got.utc_offset);
	EXPECT_EQ(PTPM_LEAP_61 | PTPM_UTC_OFF_VALID | PTPM_PTP_TIMESCALE |
		  PTPM_TIME_TRACEABLE | PTPM_FREQ_TRACEABLE,
		  self->s.got.time_flags);
	EXPECT_EQ(PTPM_TS_GPS, self->s.got.time_source);
	/* no nest (an old module), or no state in it: nothing sent */
	ptp4l_gm_servo(self->gm, NULL);
	EXPECT_FALSE(srv_recv(&self->s));
	ASSERT_EQ(0, servo_status_parse(NULL, &none, why, sizeof(why)));
	ptp4l_gm_servo(self->gm, &none);
	EXPECT_FALSE(srv_recv(&self->s));
	nlmsg_free(msg);
}

TEST(open_refuses_overlong_paths)
{
	char path[200];
	struct gmp_cfg c;

	gmp_defaults(&c);
	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	EXPECT_EQ(NULL, ptp4l_gm_open(path, "/tmp/x", &c));
	EXPECT_EQ(NULL, ptp4l_gm_open("/var/run/ptp4l", path, &c));
	EXPECT_EQ(NULL, ptp4l_gm_open("/var/run/ptp4l", "/no/such/dir/sock", &c));
}

TEST_HARNESS_MAIN
