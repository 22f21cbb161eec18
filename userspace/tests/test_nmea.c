// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_nmea.c - the NMEA parser on sentences as real receivers send them
 * (published examples from the NMEA 0183 reference, the u-blox 6 protocol
 * specification and Garmin's manuals) and on broken ones.
 */
#include <string.h>

#include "kselftest_harness.h"

#include "nmea.h"
#include "sentences.h"

FIXTURE(good) {
	struct nmea_msg m;
};

FIXTURE_VARIANT(good) {
	const char *s;
	enum nmea_kind kind;
	const char *talker;
	unsigned int hour, min, sec;
	uint32_t nsec;
	bool has_date, year2;
	int year;
	unsigned int month, day;
	uint32_t week, week_mod;
	int64_t tow;
	int leap;		/* -1: none */
	bool leap_default;
};

FIXTURE_SETUP(good) {}
FIXTURE_TEARDOWN(good) {}

/* NMEA 0183 reference example (NMEA 2.0, no mode field) */
FIXTURE_VARIANT_ADD(good, rmc_nmea20) {
	.s = "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A",
	.kind = NMEA_RMC, .talker = "GP", .hour = 12, .min = 35, .sec = 19,
	.has_date = true, .year2 = true, .year = 94, .month = 3, .day = 23,
	.leap = -1,
};
/* u-blox 6 example (NMEA 2.3 mode field), trailing CR LF */
FIXTURE_VARIANT_ADD(good, rmc_nmea23_crlf) {
	.s = "$GPRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A*57\r\n",
	.kind = NMEA_RMC, .talker = "GP", .hour = 8, .min = 35, .sec = 59,
	.has_date = true, .year2 = true, .year = 2, .month = 12, .day = 9,
	.leap = -1,
};
/* NMEA 4.1 navigational status 'V' (u-blox M8 sends it with every fix),
 * lower-case checksum, GN talker, 3-digit fraction */
FIXTURE_VARIANT_ADD(good, rmc_nmea41_gn_lowercase) {
	.s = "$GNRMC,235957.250,A,4717.11437,N,00833.91522,E,0.004,,311224,,,D,V*2a",
	.kind = NMEA_RMC, .talker = "GN", .hour = 23, .min = 59, .sec = 57,
	.nsec = 250000000, .has_date = true, .year2 = true, .year = 24,
	.month = 12, .day = 31, .leap = -1,
};
/* inserted leap second, BeiDou talker, long fraction (truncated to ns) */
FIXTURE_VARIANT_ADD(good, rmc_sec60_bd_long_fraction) {
	.s = "$BDRMC,235960.1234567891,A,,,,,,,311216,,,A*79",
	.kind = NMEA_RMC, .talker = "BD", .hour = 23, .min = 59, .sec = 60,
	.nsec = 123456789, .has_date = true, .year2 = true, .year = 16,
	.month = 12, .day = 31, .leap = -1,
};
FIXTURE_VARIANT_ADD(good, zda_ublox) {
	.s = "$GPZDA,082710.00,16,09,2002,00,00*64",
	.kind = NMEA_ZDA, .talker = "GP", .hour = 8, .min = 27, .sec = 10,
	.has_date = true, .year = 2002, .month = 9, .day = 16, .leap = -1,
};
FIXTURE_VARIANT_ADD(good, zda_qzss_empty_zone) {
	.s = "$QZZDA,000000.5,06,01,1980,,*48",
	.kind = NMEA_ZDA, .talker = "QZ", .nsec = 500000000,
	.has_date = true, .year = 1980, .month = 1, .day = 6, .leap = -1,
};
FIXTURE_VARIANT_ADD(good, gga_ublox) {
	.s = "$GPGGA,092725.00,4717.11399,N,00833.91590,E,1,8,1.01,499.6,M,48.0,M,,0*5B",
	.kind = NMEA_GGA, .talker = "GP", .hour = 9, .min = 27, .sec = 25,
	.leap = -1,
};
FIXTURE_VARIANT_ADD(good, gns_galileo) {
	.s = "$GAGNS,112257.00,3844.24011,N,00908.43828,W,NA,10,1.0,100.0,50.0,,*45",
	.kind = NMEA_GNS, .talker = "GA", .hour = 11, .min = 22, .sec = 57,
	.leap = -1,
};
FIXTURE_VARIANT_ADD(good, gll_glonass) {
	.s = "$GLGLL,4717.11364,N,00833.91565,E,092321.00,A,A*7C",
	.kind = NMEA_GLL, .talker = "GL", .hour = 9, .min = 23, .sec = 21,
	.leap = -1,
};
/* u-blox PUBX,04 with the firmware-default leap count ('D') */
FIXTURE_VARIANT_ADD(good, pubx04_default_leap) {
	.s = "$PUBX,04,073731.00,091202,113851.00,1196,15D,1930035,-2660.664,43,*5D",
	.kind = NMEA_PUBX04, .talker = "P", .hour = 7, .min = 37, .sec = 31,
	.has_date = true, .year2 = true, .year = 2, .month = 12, .day = 9,
	.week = 1196, .tow = 113851, .leap = 15, .leap_default = true,
};
FIXTURE_VARIANT_ADD(good, pubx04_broadcast_leap) {
	.s = "$PUBX,04,000140.00,031226,345700.00,2447,18,1930035,-2660.664,43,*1C",
	.kind = NMEA_PUBX04, .talker = "P", .hour = 0, .min = 1, .sec = 40,
	.has_date = true, .year2 = true, .year = 26, .month = 12, .day = 3,
	.week = 2447, .tow = 345700, .leap = 18,
};
/* Garmin GPS 18x manual example */
FIXTURE_VARIANT_ADD(good, pgrmf_garmin) {
	.s = "$PGRMF,290,293895,160305,093802,13,5213.1439,N,02100.6511,E,A,2,0,226,2,1*11",
	.kind = NMEA_PGRMF, .talker = "P", .hour = 9, .min = 38, .sec = 2,
	.has_date = true, .year2 = true, .year = 5, .month = 3, .day = 16,
	.week = 290, .week_mod = 1024, .tow = 293895, .leap = 13,
};

TEST_F(good, parses)
{
	struct gp_err e;
	const char *s = variant->s;

	ASSERT_EQ(NMEA_OK, nmea_parse(s, strlen(s), &self->m, &e))
		TH_LOG("%s: %s", s, e.msg);
	EXPECT_EQ((int)variant->kind, (int)self->m.kind);
	EXPECT_STREQ(variant->talker, self->m.talker);
	EXPECT_TRUE(self->m.has_tod);
	EXPECT_EQ(variant->hour, self->m.hour);
	EXPECT_EQ(variant->min, self->m.min);
	EXPECT_EQ(variant->sec, self->m.sec);
	EXPECT_EQ(variant->nsec, self->m.nsec);
	EXPECT_EQ(variant->has_date, self->m.has_date);
	if (variant->has_date) {
		EXPECT_EQ(variant->year2, self->m.year2);
		EXPECT_EQ(variant->year, self->m.year);
		EXPECT_EQ(variant->month, self->m.month);
		EXPECT_EQ(variant->day, self->m.day);
	}
	EXPECT_EQ(variant->week || variant->tow, self->m.has_week);
	EXPECT_EQ(variant->week, self->m.week);
	EXPECT_EQ(variant->week_mod, self->m.week_mod);
	EXPECT_EQ(variant->tow, self->m.tow);
	EXPECT_EQ(variant->leap >= 0, self->m.has_leap);
	if (variant->leap >= 0)
		EXPECT_EQ(variant->leap, self->m.leap);
	EXPECT_EQ(variant->leap_default, self->m.leap_default);
}

FIXTURE(bad) {
	struct nmea_msg m;
};

FIXTURE_VARIANT(bad) {
	const char *s;		/* checksum recomputed unless keep_cs */
	bool keep_cs;
	int err;
	const char *reason;	/* substring of the message */
};

FIXTURE_SETUP(bad) {}
FIXTURE_TEARDOWN(bad) {}

FIXTURE_VARIANT_ADD(bad, checksum_wrong) {
	.s = "$GPRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A*58",
	.keep_cs = true, .err = NMEA_E_CHECKSUM, .reason = "gives 57",
};
FIXTURE_VARIANT_ADD(bad, checksum_missing) {
	.s = "$GPRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A",
	.keep_cs = true, .err = NMEA_E_NO_CHECKSUM,
};
FIXTURE_VARIANT_ADD(bad, checksum_one_digit) {
	.s = "$GPZDA,082710.00,16,09,2002,00,00*6",
	.keep_cs = true, .err = NMEA_E_CHECKSUM, .reason = "two hex digits",
};
FIXTURE_VARIANT_ADD(bad, checksum_not_hex) {
	.s = "$GPZDA,082710.00,16,09,2002,00,00*6G",
	.keep_cs = true, .err = NMEA_E_CHECKSUM, .reason = "two hex digits",
};
FIXTURE_VARIANT_ADD(bad, no_dollar) {
	.s = "GPZDA,082710.00,16,09,2002,00,00*64", .keep_cs = true,
	.err = NMEA_E_FRAME,
};
FIXTURE_VARIANT_ADD(bad, control_byte) {
	.s = "$GPZDA,082710.00,16,09,2002,00\x01,00*65", .keep_cs = true,
	.err = NMEA_E_FRAME, .reason = "0x01",
};
FIXTURE_VARIANT_ADD(bad, two_sentences_run_together) {
	.s = "$GPZDA,0827$GPZDA,082710.00,16,09,2002,00,00*64", .keep_cs = true,
	.err = NMEA_E_FRAME,
};
FIXTURE_VARIANT_ADD(bad, rmc_status_void) {
	.s = "$GPRMC,083559.00,V,,,,,,,091202,,,N", .err = NMEA_E_INVALID_FIX,
	.reason = "status is 'V'",
};
FIXTURE_VARIANT_ADD(bad, rmc_mode_not_valid) {
	.s = "$GPRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,N",
	.err = NMEA_E_INVALID_FIX, .reason = "mode is 'N'",
};
FIXTURE_VARIANT_ADD(bad, rmc_simulator) {
	.s = "$GPRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,S",
	.err = NMEA_E_INVALID_FIX,
};
FIXTURE_VARIANT_ADD(bad, rmc_empty_time) {
	.s = "$GPRMC,,V,,,,,,,,,,N", .err = NMEA_E_MISSING, .reason = "field 1",
};
FIXTURE_VARIANT_ADD(bad, rmc_empty_date) {
	.s = "$GPRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,,,,A",
	.err = NMEA_E_MISSING, .reason = "field 9 (date ddmmyy)",
};
FIXTURE_VARIANT_ADD(bad, rmc_short) {
	.s = "$GPRMC,083559.00,A", .err = NMEA_E_MISSING,
};
FIXTURE_VARIANT_ADD(bad, rmc_date_month_13) {
	.s = "$GPRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091302,,,A",
	.err = NMEA_E_FIELD, .reason = "\"091302\"",
};
FIXTURE_VARIANT_ADD(bad, rmc_date_letters) {
	.s = "$GPRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,09I202,,,A",
	.err = NMEA_E_FIELD,
};
FIXTURE_VARIANT_ADD(bad, rmc_second_61) {
	.s = "$GPRMC,083561.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A",
	.err = NMEA_E_FIELD,
};
FIXTURE_VARIANT_ADD(bad, rmc_hour_24) {
	.s = "$GPRMC,240000,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A",
	.err = NMEA_E_FIELD,
};
FIXTURE_VARIANT_ADD(bad, time_bad_fraction) {
	.s = "$GPRMC,083559.0x,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A",
	.err = NMEA_E_FIELD,
};
FIXTURE_VARIANT_ADD(bad, time_short) {
	.s = "$GPRMC,08355,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A",
	.err = NMEA_E_FIELD,
};
FIXTURE_VARIANT_ADD(bad, zda_two_digit_year) {
	.s = "$GPZDA,082710.00,16,09,02,00,00", .err = NMEA_E_FIELD,
	.reason = "year",
};
FIXTURE_VARIANT_ADD(bad, zda_empty) {
	.s = "$GPZDA,,,,,,", .err = NMEA_E_MISSING,
};
FIXTURE_VARIANT_ADD(bad, gga_no_fix) {
	.s = "$GPGGA,092725.00,,,,,0,00,99.99,,,,,,", .err = NMEA_E_INVALID_FIX,
};
FIXTURE_VARIANT_ADD(bad, gns_no_fix) {
	.s = "$GNGNS,112257.00,,,,,NN,00,,,,,", .err = NMEA_E_INVALID_FIX,
};
FIXTURE_VARIANT_ADD(bad, gll_void) {
	.s = "$GPGLL,,,,,092321.00,V,N", .err = NMEA_E_INVALID_FIX,
};
FIXTURE_VARIANT_ADD(bad, pubx00_unsupported) {
	.s = "$PUBX,00,081350.00,4717.113210,N,00833.915187,E,546.589,G3,2.1,2.0,0.007,77.52,0.007,,0.92,1.19,0.77,9,0,0",
	.err = NMEA_E_UNSUPPORTED,
};
FIXTURE_VARIANT_ADD(bad, pubx04_tow_too_big) {
	.s = "$PUBX,04,073731.00,091202,604800.00,1196,15,1930035,-2660.664,43,",
	.err = NMEA_E_FIELD, .reason = "time of week",
};
FIXTURE_VARIANT_ADD(bad, pubx04_leap_garbage) {
	.s = "$PUBX,04,073731.00,091202,113851.00,1196,1X,1930035,-2660.664,43,",
	.err = NMEA_E_FIELD, .reason = "leap",
};
FIXTURE_VARIANT_ADD(bad, pgrmf_week_1024) {
	.s = "$PGRMF,1024,293895,160305,093802,13,5213.1439,N,02100.6511,E,A,2,0,226,2,1",
	.err = NMEA_E_FIELD, .reason = "GPS week",
};
FIXTURE_VARIANT_ADD(bad, pgrmf_no_fix) {
	.s = "$PGRMF,290,293895,160305,093802,13,,,,,A,0,0,226,2,1",
	.err = NMEA_E_INVALID_FIX,
};
FIXTURE_VARIANT_ADD(bad, gsv_unsupported) {
	.s = "$GPGSV,3,1,11,03,03,111,00,04,15,270,00,06,01,010,00,13,06,292,00",
	.err = NMEA_E_UNSUPPORTED,
};
FIXTURE_VARIANT_ADD(bad, lowercase_address) {
	.s = "$gprmc,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A",
	.err = NMEA_E_UNSUPPORTED,
};

TEST_F(bad, rejected_with_reason)
{
	char buf[NMEA_MAX_LEN * 2];
	struct gp_err e;
	const char *s = variant->s;

	if (!variant->keep_cs) {
		/* strip the leading '$': sentence() adds '$' and "*hh" */
		sentence(buf, sizeof(buf), "%s", s + 1);
		s = buf;
	}
	EXPECT_EQ(variant->err, nmea_parse(s, strlen(s), &self->m, &e))
		TH_LOG("%s: %s", s, e.msg);
	EXPECT_EQ(variant->err, e.code);
	EXPECT_NE('\0', e.msg[0]);
	if (variant->reason)
		EXPECT_NE(NULL, strstr(e.msg, variant->reason))
			TH_LOG("reason \"%s\" not in \"%s\"", variant->reason,
			       e.msg);
}

TEST(too_long)
{
	char buf[NMEA_MAX_LEN + 40];
	struct nmea_msg m;
	struct gp_err e;

	memset(buf, 'A', sizeof(buf));
	memcpy(buf, "$GPRMC,", 7);
	buf[sizeof(buf) - 1] = '\0';
	EXPECT_EQ(NMEA_E_FRAME, nmea_parse(buf, strlen(buf), &m, &e));
	EXPECT_EQ(NMEA_E_FRAME, nmea_parse("", 0, &m, &e));
	EXPECT_EQ(NMEA_E_FRAME, nmea_parse("\r\n", 2, &m, &e));
}

/* Every talker id of the issue parses, with either case of hex. */
TEST(talkers_and_checksum_case)
{
	static const char *const talkers[] = {
		"GP", "GN", "GL", "GA", "GB", "BD", "GQ", "QZ", "GI",
	};
	struct nmea_msg m;
	struct gp_err e;
	char s[NMEA_MAX_LEN];

	for (size_t i = 0; i < sizeof(talkers) / sizeof(talkers[0]); i++) {
		int n = gen_zda(s, sizeof(s), talkers[i], 1796256000LL, false);

		ASSERT_EQ(0, nmea_parse(s, (size_t)n, &m, &e)) TH_LOG("%s", e.msg);
		EXPECT_EQ((int)NMEA_ZDA, (int)m.kind);
		EXPECT_EQ(0, memcmp(talkers[i], m.talker, 3));
		for (int k = n - 2; k < n; k++)
			if (s[k] >= 'A' && s[k] <= 'F')
				s[k] = (char)(s[k] - 'A' + 'a');
		ASSERT_EQ(0, nmea_parse(s, (size_t)n, &m, &e)) TH_LOG("%s", e.msg);
	}
}

/*
 * The kernel framer's good-checksum rule, which decides what can start a
 * second in coarse mode: any sentence type (GSV, AIS '!'), nothing parsed.
 */
FIXTURE(csum) {};
FIXTURE_VARIANT(csum) {
	const char *s;
	bool good;
};
FIXTURE_SETUP(csum) {}
FIXTURE_TEARDOWN(csum) {}

FIXTURE_VARIANT_ADD(csum, rmc_good) {
	.s = "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A",
	.good = true,
};
FIXTURE_VARIANT_ADD(csum, lowercase_crlf) {
	.s = "$GNZDA,120000.000,29,02,2024,,*46\r\n", .good = true,
};
/* a sentence the parser does not use still has a good checksum */
FIXTURE_VARIANT_ADD(csum, gsv_good) {
	.s = "$GPGSV,1,1,01,10,63,137,17*4F", .good = true,
};
/* AIS: the framer starts sentences at '!' too */
FIXTURE_VARIANT_ADD(csum, ais_good) {
	.s = "!AIVDM,1,1,,A,13aGmP0P00PD;88MD5MTDww@2<0L,0*23", .good = true,
};
FIXTURE_VARIANT_ADD(csum, rmc_wrong) {
	.s = "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6B",
};
FIXTURE_VARIANT_ADD(csum, missing) {
	.s = "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W",
};
FIXTURE_VARIANT_ADD(csum, not_hex) {
	.s = "$GNZDA,120000.000,29,02,2024,,*4G",
};
FIXTURE_VARIANT_ADD(csum, one_digit) {
	.s = "$GNZDA,120000.000,29,02,2024,,*6",
};
FIXTURE_VARIANT_ADD(csum, text_after_checksum) {
	.s = "$GNZDA,120000.000,29,02,2024,,*46 ",
};
FIXTURE_VARIANT_ADD(csum, no_start_byte) {
	.s = "GNZDA,120000.000,29,02,2024,,*46",
};
FIXTURE_VARIANT_ADD(csum, too_short) {
	.s = "$*0",
};
/* the shortest sentence: empty body, XOR 0 */
FIXTURE_VARIANT_ADD(csum, empty_body) {
	.s = "$*00", .good = true,
};

TEST_F(csum, good_as_the_kernel_says)
{
	EXPECT_EQ(variant->good,
		  nmea_checksum_check(variant->s, strlen(variant->s)) == NMEA_OK);
}

/* Not good: GPSPHC_CSUM_MISSING (no '*') or GPSPHC_CSUM_BAD (any other). */
TEST(csum_missing_or_bad)
{
	static const struct { const char *s; int want; } t[] = {
		{ "$GPGSV,1,1,01,10,63,137,17", NMEA_E_NO_CHECKSUM },
		{ "!AIVDM,1,1,,A,13aG\r\n", NMEA_E_NO_CHECKSUM },
		{ "$GPGSV,1,1,01,10,63,137,17*4E", NMEA_E_CHECKSUM },
		{ "$GPGSV,1,1,01,10,63,137,17*4", NMEA_E_CHECKSUM },
		{ "$GPGSV,1,1*01,10,63,137,17", NMEA_E_CHECKSUM },
		{ "$*0", NMEA_E_CHECKSUM },
		{ "GPGSV,1,1,01,10,63,137,17*4F", NMEA_E_FRAME },
		{ "", NMEA_E_FRAME },
	};

	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		EXPECT_EQ(t[i].want, nmea_checksum_check(t[i].s, strlen(t[i].s)))
			TH_LOG("%s", t[i].s);
	}
}

/* The parser takes the caller's verdict (the kernel's, in live mode). */
TEST(parse_takes_the_verdict)
{
	const char *s = "$GPZDA,082710.00,16,09,2002,00,00*64";
	struct nmea_msg m;
	struct gp_err e;

	ASSERT_EQ(NMEA_OK, nmea_checksum_check(s, strlen(s)));
	EXPECT_EQ(NMEA_OK, nmea_parse_checked(s, strlen(s), NMEA_OK, &m, &e));
	EXPECT_EQ(NMEA_E_CHECKSUM,
		  nmea_parse_checked(s, strlen(s), NMEA_E_CHECKSUM, &m, &e));
	EXPECT_NE(NULL, strstr(e.msg, "line corrupted in transit"));
	EXPECT_EQ(NMEA_E_NO_CHECKSUM,
		  nmea_parse_checked(s, strlen(s), NMEA_E_NO_CHECKSUM, &m, &e));
}

TEST_HARNESS_MAIN
