// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_gmprop.c - the grandmaster's announced properties: the table of the
 * admin guide (Documentation/admin-guide/gpsphc-grandmaster.rst) case by
 * case, then every combination of state, holdover time around the limit,
 * TAI-UTC, leap, leap date, notice time, coarse mode and profile against
 * the rules stated one by one; and the option string.
 */
#include <stdio.h>
#include <string.h>

/* The harness compares EXPECT_EQ(1, x) as written (as tools/testing/host). */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#include "gmprop.h"

#define DAY	86400LL
/* 2016-12-31T23:59:60 was the last leap second: its day ends here. */
#define LEAP_MIDNIGHT	1483228800LL

#define F_TS	PTPM_PTP_TIMESCALE
#define F_UTC	PTPM_UTC_OFF_VALID
#define F_TR	(PTPM_TIME_TRACEABLE | PTPM_FREQ_TRACEABLE)

/* The admin guide's table, row by row. */
FIXTURE(table) {
	struct gmp_cfg c;
};
FIXTURE_SETUP(table)
{
	gmp_defaults(&self->c);
}
FIXTURE_TEARDOWN(table)
{
}
FIXTURE_VARIANT(table) {
	int profile;
	bool arb;
	struct gmp_input in;
	struct ptpm_gm_settings want;
};
FIXTURE_VARIANT_ADD(table, locked) {
	.in = { .state = GPSPHC_SERVO_LOCKED, .tai_utc = 37, .leap = GPSPHC_LEAP_NONE,
		.now_utc = LEAP_MIDNIGHT },
	.want = { 6, 0x23, 0x4E5D, 37, F_TS | F_UTC | F_TR, 0x20 },
};
FIXTURE_VARIANT_ADD(table, locked_coarse) {
	.in = { .state = GPSPHC_SERVO_LOCKED, .coarse = true, .tai_utc = 37,
		.leap = GPSPHC_LEAP_NONE },
	.want = { 6, 0x2B, 0x4E5D, 37, F_TS | F_UTC | F_TR, 0x20 },
};
FIXTURE_VARIANT_ADD(table, holdover_first_second) {
	.in = { .state = GPSPHC_SERVO_HOLDOVER, .holdover_s = 0, .tai_utc = 37,
		.leap = GPSPHC_LEAP_NONE },
	.want = { 7, 0xFE, 0x4E5D, 37, F_TS | F_UTC | F_TR, 0xA0 },
};
FIXTURE_VARIANT_ADD(table, holdover_at_limit) {
	.in = { .state = GPSPHC_SERVO_HOLDOVER, .holdover_s = 300, .tai_utc = 37,
		.leap = GPSPHC_LEAP_NONE },
	.want = { 7, 0xFE, 0x4E5D, 37, F_TS | F_UTC | F_TR, 0xA0 },
};
FIXTURE_VARIANT_ADD(table, holdover_past_limit_default) {
	.in = { .state = GPSPHC_SERVO_HOLDOVER, .holdover_s = 301, .tai_utc = 37,
		.leap = GPSPHC_LEAP_NONE },
	.want = { 248, 0xFE, 0xFFFF, 37, F_TS | F_UTC, 0xA0 },
};
FIXTURE_VARIANT_ADD(table, holdover_past_limit_g8275a) {
	.profile = GMP_PROFILE_G8275_A,
	.in = { .state = GPSPHC_SERVO_HOLDOVER, .holdover_s = 301, .tai_utc = 37,
		.leap = GPSPHC_LEAP_NONE },
	.want = { 52, 0xFE, 0xFFFF, 37, F_TS | F_UTC, 0xA0 },
};
FIXTURE_VARIANT_ADD(table, holdover_past_limit_g8275b) {
	.profile = GMP_PROFILE_G8275_B,
	.in = { .state = GPSPHC_SERVO_HOLDOVER, .holdover_s = 86400, .tai_utc = 37,
		.leap = GPSPHC_LEAP_NONE },
	.want = { 187, 0xFE, 0xFFFF, 37, F_TS | F_UTC, 0xA0 },
};
FIXTURE_VARIANT_ADD(table, locking) {
	.in = { .state = GPSPHC_SERVO_LOCKING, .tai_utc = 37, .leap = GPSPHC_LEAP_NONE },
	.want = { 248, 0xFE, 0xFFFF, 37, F_TS | F_UTC, 0xA0 },
};
FIXTURE_VARIANT_ADD(table, unlocked) {
	.in = { .state = GPSPHC_SERVO_UNLOCKED, .tai_utc = 0, .leap = GPSPHC_LEAP_NONE },
	.want = { 248, 0xFE, 0xFFFF, 37, F_TS, 0xA0 },
};
FIXTURE_VARIANT_ADD(table, unlocked_keeps_no_stale_offset) {
	.in = { .state = GPSPHC_SERVO_UNLOCKED, .tai_utc = 36, .leap = GPSPHC_LEAP_INSERT,
		.leap_utc = LEAP_MIDNIGHT, .now_utc = LEAP_MIDNIGHT - 1 },
	.want = { 248, 0xFE, 0xFFFF, 37, F_TS, 0xA0 },
};
FIXTURE_VARIANT_ADD(table, servo_off) {
	.in = { .state = GPSPHC_SERVO_OFF, .tai_utc = 37, .leap = GPSPHC_LEAP_NONE },
	.want = { 248, 0xFE, 0xFFFF, 37, F_TS, 0xA0 },
};
FIXTURE_VARIANT_ADD(table, leap61_too_early) {
	.in = { .state = GPSPHC_SERVO_LOCKED, .tai_utc = 36, .leap = GPSPHC_LEAP_INSERT,
		.leap_utc = LEAP_MIDNIGHT, .now_utc = LEAP_MIDNIGHT - 43201 },
	.want = { 6, 0x23, 0x4E5D, 36, F_TS | F_UTC | F_TR, 0x20 },
};
FIXTURE_VARIANT_ADD(table, leap61_twelve_hours_before) {
	.in = { .state = GPSPHC_SERVO_LOCKED, .tai_utc = 36, .leap = GPSPHC_LEAP_INSERT,
		.leap_utc = LEAP_MIDNIGHT, .now_utc = LEAP_MIDNIGHT - 43200 },
	.want = { 6, 0x23, 0x4E5D, 36, F_TS | F_UTC | F_TR | PTPM_LEAP_61, 0x20 },
};
FIXTURE_VARIANT_ADD(table, leap61_in_holdover) {
	.in = { .state = GPSPHC_SERVO_HOLDOVER, .holdover_s = 10, .tai_utc = 36,
		.leap = GPSPHC_LEAP_INSERT, .leap_utc = LEAP_MIDNIGHT,
		.now_utc = LEAP_MIDNIGHT - 1 },
	.want = { 7, 0xFE, 0x4E5D, 36, F_TS | F_UTC | F_TR | PTPM_LEAP_61, 0xA0 },
};
FIXTURE_VARIANT_ADD(table, after_leap_kernel_says_none) {
	.in = { .state = GPSPHC_SERVO_LOCKED, .tai_utc = 37, .leap = GPSPHC_LEAP_NONE,
		.now_utc = LEAP_MIDNIGHT + 1 },
	.want = { 6, 0x23, 0x4E5D, 37, F_TS | F_UTC | F_TR, 0x20 },
};
FIXTURE_VARIANT_ADD(table, leap59) {
	.in = { .state = GPSPHC_SERVO_LOCKED, .tai_utc = 37, .leap = GPSPHC_LEAP_DELETE,
		.leap_utc = LEAP_MIDNIGHT + 180 * DAY,
		.now_utc = LEAP_MIDNIGHT + 180 * DAY - 3600 },
	.want = { 6, 0x23, 0x4E5D, 37, F_TS | F_UTC | F_TR | PTPM_LEAP_59, 0x20 },
};
FIXTURE_VARIANT_ADD(table, leap_date_not_midnight_ignored) {
	.in = { .state = GPSPHC_SERVO_LOCKED, .tai_utc = 36, .leap = GPSPHC_LEAP_INSERT,
		.leap_utc = LEAP_MIDNIGHT - 1, .now_utc = LEAP_MIDNIGHT - 2 },
	.want = { 6, 0x23, 0x4E5D, 36, F_TS | F_UTC | F_TR, 0x20 },
};

FIXTURE_VARIANT_ADD(table, locked_arb_timescale) {
	.arb = true,
	.in = { .state = GPSPHC_SERVO_LOCKED, .tai_utc = 37, .leap = GPSPHC_LEAP_INSERT,
		.leap_utc = LEAP_MIDNIGHT, .now_utc = LEAP_MIDNIGHT - 1 },
	.want = { 6, 0x23, 0x4E5D, 37, F_UTC | F_TR | PTPM_LEAP_61, 0x20 },
};
FIXTURE_VARIANT_ADD(table, unlocked_arb_timescale) {
	.arb = true,
	.in = { .state = GPSPHC_SERVO_UNLOCKED, .leap = GPSPHC_LEAP_NONE },
	.want = { 248, 0xFE, 0xFFFF, 37, 0, 0xA0 },
};

TEST_F(table, maps)
{
	struct ptpm_gm_settings got;

	self->c.arb_timescale = variant->arb;
	if (variant->profile)
		self->c.profile = variant->profile;
	gmp_map(&self->c, &variant->in, &got);
	EXPECT_EQ(variant->want.clock_class, got.clock_class);
	EXPECT_EQ(variant->want.clock_accuracy, got.clock_accuracy);
	EXPECT_EQ(variant->want.offset_scaled_log_variance,
		  got.offset_scaled_log_variance);
	EXPECT_EQ(variant->want.utc_offset, got.utc_offset);
	EXPECT_EQ(variant->want.time_flags, got.time_flags);
	EXPECT_EQ(variant->want.time_source, got.time_source);
}

/* Every combination, each output against its rule. */
TEST(every_combination)
{
	static const uint64_t holdovers[] = { 0, 1, 59, 60, 61, 299, 300, 301, 86400 };
	static const uint32_t limits[] = { 0, 60, 300 };
	static const uint32_t tai_utcs[] = { 0, 9, 10, 36, 37, 1000, 1001 };
	static const int64_t leap_utcs[] = { 0, LEAP_MIDNIGHT, LEAP_MIDNIGHT + 1, -DAY };
	static const int64_t nows[] = { -DAY, -43201, -43200, -1, 0, 1, DAY };
	static const int profiles[] = { GMP_PROFILE_DEFAULT, GMP_PROFILE_G8275_A,
					GMP_PROFILE_G8275_B };
	unsigned long n = 0;
	struct gmp_cfg c;
	size_t a, b, d, e, f, g, k;
	int state, leap, coarse;

	gmp_defaults(&c);
	c.accuracy = 0x21;
	c.coarse_accuracy = 0x2A;
	c.utc_offset = 35;
	for (state = 0; state <= 6; state++)
	for (a = 0; a < sizeof(holdovers) / sizeof(holdovers[0]); a++)
	for (b = 0; b < sizeof(limits) / sizeof(limits[0]); b++)
	for (d = 0; d < sizeof(tai_utcs) / sizeof(tai_utcs[0]); d++)
	for (leap = 0; leap <= 4; leap++)
	for (e = 0; e < sizeof(leap_utcs) / sizeof(leap_utcs[0]); e++)
	for (f = 0; f < sizeof(nows) / sizeof(nows[0]); f++)
	for (coarse = 0; coarse <= 1; coarse++)
	for (g = 0; g < sizeof(profiles) / sizeof(profiles[0]); g++) {
		struct gmp_input in = {
			.state = state, .coarse = coarse,
			.holdover_s = holdovers[a], .tai_utc = tai_utcs[d],
			.leap = leap, .leap_utc = leap_utcs[e],
			.now_utc = LEAP_MIDNIGHT + nows[f],
		};
		struct ptpm_gm_settings s;
		bool in_spec = state == GPSPHC_SERVO_HOLDOVER && limits[b] &&
			       holdovers[a] <= limits[b];
		bool utc = (state == GPSPHC_SERVO_LOCKED || state == GPSPHC_SERVO_LOCKING ||
			    state == GPSPHC_SERVO_HOLDOVER) &&
			   tai_utcs[d] >= 10 && tai_utcs[d] <= 1000;
		bool leap_on = utc && leap_utcs[e] == LEAP_MIDNIGHT &&
			       nows[f] >= -43200;
		uint8_t want_class = state == GPSPHC_SERVO_LOCKED ? 6 : in_spec ? 7 :
				     state != GPSPHC_SERVO_HOLDOVER ? 248 :
				     profiles[g] == GMP_PROFILE_G8275_A ? 52 :
				     profiles[g] == GMP_PROFILE_G8275_B ? 187 : 248;
		bool traceable = want_class == 6 || want_class == 7;

		c.holdover_s = limits[b];
		c.profile = profiles[g];
		gmp_map(&c, &in, &s);
		n++;
		ASSERT_EQ(want_class, s.clock_class)
			TH_LOG("state %d holdover %llu limit %u", state,
			       (unsigned long long)holdovers[a], limits[b]);
		ASSERT_EQ(state == GPSPHC_SERVO_LOCKED ? (coarse ? 0x2A : 0x21) : 0xFE,
			  s.clock_accuracy);
		ASSERT_EQ(traceable ? 0x4E5D : 0xFFFF, s.offset_scaled_log_variance);
		ASSERT_EQ(state == GPSPHC_SERVO_LOCKED ? 0x20 : 0xA0, s.time_source);
		ASSERT_EQ(utc ? (int)tai_utcs[d] : 35, s.utc_offset);
		ASSERT_TRUE(s.time_flags & PTPM_PTP_TIMESCALE);
		ASSERT_EQ(utc, !!(s.time_flags & PTPM_UTC_OFF_VALID));
		ASSERT_EQ(traceable, !!(s.time_flags & PTPM_TIME_TRACEABLE));
		ASSERT_EQ(traceable, !!(s.time_flags & PTPM_FREQ_TRACEABLE));
		ASSERT_EQ(leap_on && leap == GPSPHC_LEAP_INSERT,
			  !!(s.time_flags & PTPM_LEAP_61))
			TH_LOG("leap %d at %lld now %lld utc %d", leap,
			       (long long)leap_utcs[e], (long long)nows[f], utc);
		ASSERT_EQ(leap_on && leap == GPSPHC_LEAP_DELETE,
			  !!(s.time_flags & PTPM_LEAP_59));
		ASSERT_EQ(0, s.time_flags & 0xC0);
	}
	k = 7 * 9 * 3 * 7 * 5 * 4 * 7 * 2 * 3;
	EXPECT_EQ(k, n);
}

TEST(parse_options)
{
	struct gmp_cfg c;
	struct gp_err e;

	gmp_defaults(&c);
	EXPECT_EQ(GMP_PROFILE_DEFAULT, c.profile);
	EXPECT_EQ(300, c.holdover_s);
	EXPECT_EQ(0x23, c.accuracy);
	EXPECT_EQ(0x2B, c.coarse_accuracy);
	EXPECT_EQ(37, c.utc_offset);
	EXPECT_EQ(0, c.domain);
	EXPECT_EQ(60, c.refresh_s);
	ASSERT_EQ(0, gmp_parse("profile=g8275b,holdover=1200,accuracy=0x21,"
			       "coarse-accuracy=0x2a,utc-offset=36,domain=24,refresh=5,"
			       "timescale=arb",
			       &c, &e)) TH_LOG("%s", e.msg);
	EXPECT_EQ(GMP_PROFILE_G8275_B, c.profile);
	EXPECT_EQ(1200, c.holdover_s);
	EXPECT_EQ(0x21, c.accuracy);
	EXPECT_EQ(0x2A, c.coarse_accuracy);
	EXPECT_EQ(36, c.utc_offset);
	EXPECT_EQ(24, c.domain);
	EXPECT_EQ(5, c.refresh_s);
	EXPECT_TRUE(c.arb_timescale);
	ASSERT_EQ(0, gmp_parse("profile=g8275a,timescale=ptp", &c, &e));
	EXPECT_FALSE(c.arb_timescale);
	EXPECT_EQ(GMP_PROFILE_G8275_A, c.profile);
	EXPECT_EQ(1200, c.holdover_s);
	ASSERT_EQ(0, gmp_parse("accuracy=0xfe,holdover=0", &c, &e));
	EXPECT_EQ(0xFE, c.accuracy);
	EXPECT_EQ(0, c.holdover_s);
	ASSERT_EQ(0, gmp_parse("", &c, &e));
}

TEST(parse_refusals_say_why)
{
	static const char *const bad[] = {
		"profile", "profile=g8275", "profile=defaultx", "holdover=-1",
		"holdover=2592001", "holdover=5s", "accuracy=0x32",
		"accuracy=0x16", "accuracy=0xff", "coarse-accuracy=0x32",
		"domain=256", "refresh=0",
		"colour=blue", "holdover=10,", ",holdover=10", "holdover=",
		"=5", "domain=99999999999999999999999", "timescale=tai",
	};
	struct gmp_cfg c;
	struct gp_err e;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gmp_defaults(&c);
		e.msg[0] = '\0';
		EXPECT_EQ(-1, gmp_parse(bad[i], &c, &e)) TH_LOG("%s", bad[i]);
		EXPECT_NE('\0', e.msg[0]) TH_LOG("%s", bad[i]);
	}
}

TEST_HARNESS_MAIN
