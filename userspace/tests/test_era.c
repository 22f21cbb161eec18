// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_era.c - exhaustive era resolution: every day from 1980-01-06 to
 * 2137-01-06 at several times of day, as RMC (2-digit year), ZDA, PUBX,04
 * and PGRMF, from a correct receiver and from one with the rollover bug
 * (reporting t - 1024 weeks), over a set of pivots; text built with real
 * checksums, then parser, then resolver.  Plus weeks mod 1024 and 8192,
 * the gpsd 2021-10-24 case, and a running pivot across 2038 and 2137.
 */
#include <inttypes.h>
#include <stdio.h>

#include "kselftest_harness.h"

#include "era.h"
#include "leap.h"
#include "nmea.h"
#include "sentences.h"
#include "timeconv.h"

#define FIRST_DAY	(GPS_EPOCH_UTC / SECS_PER_DAY)	/* 1980-01-06 */
#define LAST_DAY	(FIRST_DAY + WEEKS_13BIT * 7)	/* 2137-01-06 */

static const int64_t tods[] = { 0, 1, 6 * 3600, 12 * 3600 + 34 * 60 + 56,
				86399 };

/* Pivots: every 512 weeks from the GPS epoch (each at an odd time of day,
 * so windows start mid-day), and the dates that matter. */
static size_t make_pivots(const struct leap_table *lt, struct era_pivot *p,
			  size_t max)
{
	static const int64_t special[] = {
		935280000LL,	/* 1999-08-22 first 10-bit rollover */
		1554595200LL,	/* 2019-04-07 second 10-bit rollover */
		1635033600LL,	/* 2021-10-24 the gpsd 3.20-3.22 bug */
		1796256000LL,	/* 2026-12-03 a build date */
		2173478400LL,	/* 2038-11-21 third 10-bit rollover */
	};
	size_t n = 0;

	for (int64_t k = 0; k < 16 && n < max; k++) {
		p[n].utc = GPS_EPOCH_UTC + k * 512 * SECS_PER_WEEK +
			   (k ? k * 7919 % SECS_PER_DAY : 0);
		p[n].tai_utc = leap_offset(lt, p[n].utc);
		n++;
	}
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
		p[n].utc = special[i];
		p[n].tai_utc = leap_offset(lt, p[n].utc);
		n++;
	}
	return n;
}

struct tally {
	long checked, wrong;
};

static void check(struct __test_metadata *_metadata, struct tally *ty,
		  const struct era_pivot *p, const char *s, bool gps,
		  int64_t want, int64_t want_behind)
{
	struct nmea_msg m;
	struct era_result r;
	struct gp_err e;
	int ret;

	ty->checked++;
	ret = nmea_parse(s, strlen(s), &m, &e);
	if (!ret)
		ret = era_resolve(p, &m, &r, &e);
	if (!ret && (gps ? r.gps : r.utc) == want &&
	    r.behind_weeks == want_behind && !r.ahead)
		return;
	if (ty->wrong++ < 10)
		TH_LOG("pivot %" PRId64 ": %s -> ret %d (%s) got %" PRId64 " behind %" PRId64 ", want %" PRId64 " behind %" PRId64,
		       p->utc, s, ret, e.msg, gps ? r.gps : r.utc,
		       r.behind_weeks, want, want_behind);
}

TEST(exhaustive_sentences)
{
	struct leap_table lt;
	struct era_pivot pv[32];
	struct tally ty = { 0 };
	char s[NMEA_MAX_LEN];
	size_t np;

	leap_builtin(&lt);
	np = make_pivots(&lt, pv, 32);
	for (int64_t day = FIRST_DAY; day < LAST_DAY; day++) {
		for (size_t ti = 0; ti < sizeof(tods) / sizeof(tods[0]); ti++) {
			int64_t t = day * SECS_PER_DAY + tods[ti];
			int leap = leap_offset(&lt, t) - GPS_TAI_MINUS_GPS;
			int64_t tg = t - GPS_EPOCH_UTC + leap;

			for (size_t k = 0; k < np; k++) {
				const struct era_pivot *p = &pv[k];
				int64_t pg = era_pivot_gps(p);

				if (t >= p->utc && t < p->utc + ERA_10BIT_SECS) {
					for (int bug = 0; bug <= 1; bug++) {
						int64_t sh = bug ? ERA_10BIT_SECS : 0;

						gen_rmc(s, sizeof(s), "GN", t - sh, false);
						check(_metadata, &ty, p, s, false, t, bug * 1024);
						gen_zda(s, sizeof(s), "GP", t - sh, false);
						check(_metadata, &ty, p, s, false, t, bug * 1024);
						if (t - sh < GPS_EPOCH_UTC)
							continue;	/* no negative week */
						gen_pubx04(s, sizeof(s), t - sh, 0, leap, false);
						check(_metadata, &ty, p, s, false, t, bug * 1024);
					}
				}
				if (tg >= pg && tg < pg + ERA_10BIT_SECS) {
					/* week mod 1024 is right either way; the
					 * bug shows only in the date */
					gen_pgrmf(s, sizeof(s), tg, leap, 0);
					check(_metadata, &ty, p, s, true, tg, 0);
					gen_pgrmf(s, sizeof(s), tg, leap, -ERA_10BIT_SECS);
					check(_metadata, &ty, p, s, true, tg, 1024);
				}
			}
		}
	}
	printf("# exhaustive_sentences: %ld cases checked (%zu pivots, days %lld..%lld), %ld wrong\n",
	       ty.checked, np, (long long)FIRST_DAY, (long long)LAST_DAY - 1,
	       ty.wrong);
	fflush(stdout);
	EXPECT_EQ(0, ty.wrong);
	EXPECT_GT(ty.checked, 4000000);
}

TEST(exhaustive_weeks_mod_1024_8192)
{
	struct leap_table lt;
	struct era_pivot pv[32];
	struct era_result r;
	struct gp_err e;
	long checked = 0, wrong = 0;
	size_t np;

	leap_builtin(&lt);
	np = make_pivots(&lt, pv, 32);
	for (int64_t day = FIRST_DAY; day < LAST_DAY; day++) {
		for (size_t ti = 0; ti < sizeof(tods) / sizeof(tods[0]); ti++) {
			int64_t g = (day - FIRST_DAY) * SECS_PER_DAY + tods[ti];
			int64_t wk = g / SECS_PER_WEEK, tow = g % SECS_PER_WEEK;

			for (size_t k = 0; k < np; k++) {
				int64_t pg = era_pivot_gps(&pv[k]);
				struct {
					int64_t week, mod, behind;
				} c[] = {
					{ wk % 1024, 1024, 0 },
					{ wk % 8192, 8192, 0 },
					{ wk, 0, 0 },
					{ (wk - 1024) % 8192, 8192, 1024 },
					{ wk - 1024, 0, 1024 },
				};

				if (g < pg || g >= pg + ERA_10BIT_SECS)
					continue;
				for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
					if (c[i].week < 0)
						continue;
					checked++;
					if (!era_resolve_week(&pv[k], (uint32_t)c[i].week,
							      (uint32_t)c[i].mod, tow,
							      false, &r, &e) &&
					    r.gps == g && r.behind_weeks == c[i].behind)
						continue;
					if (wrong++ < 10)
						TH_LOG("pivot %" PRId64 " week %" PRId64 " mod %" PRId64 " tow %" PRId64 ": got %" PRId64 ", want %" PRId64 " (%s)",
						       pv[k].utc, c[i].week, c[i].mod,
						       tow, r.gps, g, e.msg);
				}
			}
		}
	}
	printf("# exhaustive_weeks: %ld cases checked, %ld wrong\n", checked,
	       wrong);
	fflush(stdout);
	EXPECT_EQ(0, wrong);
	EXPECT_GT(checked, 1000000);
}

/*
 * gpsd 3.20-3.22: week > 2180 with leap < 19 was taken back 1024 weeks on
 * 2021-10-24.  Here: weeks 2180.. 2180+520, any leap count 0..40, PGRMF
 * (week mod 1024, date consistent with the receiver's own leap count) and
 * PUBX,04 (complete week): the era and the TAI label never depend on the
 * leap count.
 */
TEST(gpsd_2021_10_24_any_leap_count)
{
	struct leap_table lt;
	struct era_pivot p = { .utc = 1546300800LL /* 2019-01-01 */ };
	struct era_result r;
	struct leap_label lab;
	struct nmea_msg m;
	struct gp_err e;
	char s[NMEA_MAX_LEN];
	long checked = 0;

	leap_builtin(&lt);
	p.tai_utc = leap_offset(&lt, p.utc);
	for (int64_t wk = 2180; wk < 2180 + 520; wk += 1) {
		for (int leap = 0; leap <= 40; leap++) {
			int64_t g = wk * SECS_PER_WEEK + 3 * SECS_PER_DAY + 4321;

			gen_pgrmf(s, sizeof(s), g, leap, 0);
			ASSERT_EQ(0, nmea_parse(s, strlen(s), &m, &e)) TH_LOG("%s", e.msg);
			ASSERT_EQ(0, era_resolve(&p, &m, &r, &e)) TH_LOG("%s: %s", s, e.msg);
			ASSERT_EQ(g, r.gps);
			ASSERT_EQ(0, r.behind_weeks);
			ASSERT_EQ(0, leap_label(&lt, &r, m.leap, &lab, &e));
			ASSERT_EQ(g + GPS_EPOCH_TAI, lab.tai);

			gen_pubx04(s, sizeof(s), GPS_EPOCH_UTC + g, 0, leap, false);
			ASSERT_EQ(0, nmea_parse(s, strlen(s), &m, &e)) TH_LOG("%s", e.msg);
			ASSERT_EQ(0, era_resolve(&p, &m, &r, &e)) TH_LOG("%s: %s", s, e.msg);
			ASSERT_EQ(GPS_EPOCH_UTC + g, r.utc);
			ASSERT_EQ(0, r.behind_weeks);
			checked += 2;
		}
	}
	printf("# gpsd_2021_10_24: %ld cases checked\n", checked);
	fflush(stdout);
}

/*
 * A receiver that stays up: the pivot follows the last good time (minus a
 * day, as gpsphcd does), so a mod-1024 week and a 2-digit year keep
 * resolving across 2038-11-21 (10-bit) and 2137-01-06 (13-bit) and the
 * 2-digit-year century boundaries, one label a day from 2026 to 2160.
 */
TEST(running_pivot_across_rollovers)
{
	struct leap_table lt;
	struct era_pivot p = { .utc = 1796256000LL };	/* 2026-12-03 */
	struct era_result r;
	struct nmea_msg m;
	struct gp_err e;
	char s[NMEA_MAX_LEN];
	long days = 0;

	leap_builtin(&lt);
	for (int64_t t = p.utc + 3600; t < 5996000000LL; t += SECS_PER_DAY) {
		int64_t g = t - GPS_EPOCH_UTC + 18;

		p.tai_utc = leap_offset(&lt, p.utc);
		gen_pgrmf(s, sizeof(s), g, 18, 0);
		ASSERT_EQ(0, nmea_parse(s, strlen(s), &m, &e));
		ASSERT_EQ(0, era_resolve(&p, &m, &r, &e));
		ASSERT_EQ(g, r.gps);
		gen_rmc(s, sizeof(s), "GP", t, false);
		ASSERT_EQ(0, nmea_parse(s, strlen(s), &m, &e));
		ASSERT_EQ(0, era_resolve(&p, &m, &r, &e));
		ASSERT_EQ(t, r.utc);
		ASSERT_EQ(0, r.behind_weeks);
		ASSERT_EQ(0, era_resolve_week(&p, (uint32_t)(g / SECS_PER_WEEK % 8192),
					      8192, g % SECS_PER_WEEK, false, &r, &e));
		ASSERT_EQ(g, r.gps);
		p.utc = t - SECS_PER_DAY;	/* last good time - slack */
		days++;
	}
	printf("# running_pivot: %ld days\n", days);
	fflush(stdout);
}

/* Named boundary cases with exact values. */
TEST(boundaries)
{
	struct era_pivot p = { .utc = 1796256000LL, .tai_utc = 37 };
	struct era_result r;
	struct gp_err e;

	/* the pivot itself, and one second before it (lifted 1024 weeks) */
	ASSERT_EQ(0, era_resolve_date(&p, 26, true, 12, 3, 0, 0, 0, &r, &e));
	EXPECT_EQ(1796256000LL, r.utc);
	EXPECT_EQ(0, r.behind_weeks);
	ASSERT_EQ(0, era_resolve_date(&p, 26, true, 12, 2, 23, 59, 59, &r, &e));
	EXPECT_EQ(1796255999LL + ERA_10BIT_SECS, r.utc);
	EXPECT_EQ(1024, r.behind_weeks);
	/* last second of the window, first after it (trusted, "ahead") */
	ASSERT_EQ(0, era_resolve_date(&p, 2046, false, 7, 18, 23, 59, 59, &r, &e));
	EXPECT_EQ(1796256000LL + ERA_10BIT_SECS - 1, r.utc);
	EXPECT_FALSE(r.ahead);
	ASSERT_EQ(0, era_resolve_date(&p, 2046, false, 7, 19, 0, 0, 0, &r, &e));
	EXPECT_TRUE(r.ahead);
	/* a 2-digit year completes within [1976, 2076) for a 2026 pivot */
	ASSERT_EQ(0, era_resolve_date(&p, 75, true, 12, 31, 0, 0, 0, &r, &e));
	EXPECT_TRUE(r.ahead);
	EXPECT_EQ(3344976000LL, r.utc);	/* 2075-12-31 */
	/* 29 February exists in 2028, not in 2100 (a 2-digit 00 near 2080) */
	EXPECT_EQ(0, era_resolve_date(&p, 28, true, 2, 29, 0, 0, 0, &r, &e));
	p.utc = 3471292800LL;	/* 2080-01-01 */
	EXPECT_EQ(ERA_E_BAD_DATE,
		  era_resolve_date(&p, 0, true, 2, 29, 0, 0, 0, &r, &e));
	/* second 60 only at 23:59 */
	EXPECT_EQ(ERA_E_BAD_DATE,
		  era_resolve_date(&p, 80, true, 6, 30, 12, 0, 60, &r, &e));
	/* a week beyond its modulus */
	EXPECT_EQ(ERA_E_RANGE, era_resolve_week(&p, 1024, 1024, 0, false, &r, &e));
	EXPECT_EQ(ERA_E_RANGE, era_resolve_week(&p, 1, 1000, 0, false, &r, &e));
}

TEST(mismatch_and_no_date)
{
	struct era_pivot p = { .utc = 1796256000LL, .tai_utc = 37 };
	struct era_result r;
	struct nmea_msg m;
	struct gp_err e;
	char s[NMEA_MAX_LEN];

	/* PUBX,04 whose date is a day off its week (2026-12-03 00:01:40) */
	sentence(s, sizeof(s), "PUBX,04,000140.00,031226,345700.00,2447,18,1930035,-2660.664,43,");
	ASSERT_EQ(0, nmea_parse(s, strlen(s), &m, &e));
	ASSERT_EQ(0, era_resolve(&p, &m, &r, &e));
	EXPECT_EQ(1796256100LL, r.utc);
	sentence(s, sizeof(s), "PUBX,04,000140.00,041226,345700.00,2447,18,1930035,-2660.664,43,");
	ASSERT_EQ(0, nmea_parse(s, strlen(s), &m, &e));
	EXPECT_EQ(ERA_E_MISMATCH, era_resolve(&p, &m, &r, &e));
	ASSERT_EQ(0, nmea_parse("$GPGGA,092725.00,4717.11399,N,00833.91590,E,1,8,1.01,499.6,M,48.0,M,,0*5B",
				73, &m, &e));
	EXPECT_EQ(ERA_E_NO_DATE, era_resolve(&p, &m, &r, &e));
}

TEST_HARNESS_MAIN
