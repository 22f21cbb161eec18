// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_era.c - exhaustive era resolution: every day from 1980-01-06 to
 * 2137-01-06 at several times of day, as RMC (2-digit year), ZDA, PUBX,04
 * and PGRMF, from a correct receiver and from one with the rollover bug
 * (reporting t - 1024 weeks), over a set of pivots; text built with real
 * checksums, then parser, then resolver.  Plus weeks mod 1024 and 8192,
 * the gpsd 2021-10-24 case, a running pivot across 2038 and 2137, and the
 * pivot's evidence: several build instants with receivers from 30 days
 * before the build to 19 years after it, the state file (believed, below,
 * and an older gpsphcd's 2046 warp) and --not-before.
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
#define YEAR		(365 * SECS_PER_DAY + SECS_PER_DAY / 4)
#define LAST_DAY	(FIRST_DAY + WEEKS_13BIT * 7)	/* 2137-01-06 */

static const int64_t tods[] = { 0, 1, 6 * 3600, 12 * 3600 + 34 * 60 + 56,
				86399 };

/*
 * Build instants: today, just after the 2019 rollover, an hour before the
 * 2038 one, a New Year's Eve, just after a leap second, 2065, and one a
 * second before a midnight.
 */
static const int64_t builds[] = {
	1796299200LL,			/* 2026-12-03T12:00:00Z */
	1554595200LL + 3 * 3600 + 7,	/* 2019-04-07T03:00:07Z */
	2173478400LL - 3600,		/* 2038-11-20T23:00:00Z */
	1735689599LL,			/* 2024-12-31T23:59:59Z */
	1483228801LL,			/* 2017-01-01T00:00:01Z */
	3000000000LL,			/* 2065-01-24T05:20:00Z */
	1900022399LL,			/* 2030-03-17T23:59:59Z */
};
#define NBUILDS	(sizeof(builds) / sizeof(builds[0]))

static struct era_floor build_floor(int64_t build)
{
	struct era_evidence ev = { .have_build = true, .build = build };
	struct era_floor f;

	era_choose_floor(&ev, &f);
	return f;
}

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
	/* and what gpsphcd makes of the build instants */
	for (size_t i = 0; i < NBUILDS && n < max; i++) {
		p[n].utc = build_floor(builds[i]).utc;
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
 * A receiver that stays up: the pivot follows the last good time (less
 * ERA_SLACK, as gpsphcd does), so a mod-1024 week and a 2-digit year keep
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
		if (t - ERA_SLACK > p.utc)	/* last good time - slack */
			p.utc = t - ERA_SLACK;
		days++;
	}
	printf("# running_pivot: %ld days\n", days);
	fflush(stdout);
}

/*
 * One receiver time @t, honest and with the rollover bug (its dates 1024
 * weeks early), as RMC, ZDA, PUBX,04 and PGRMF: every one must resolve to
 * @t, the honest ones unmoved and the buggy ones moved 1024 weeks.
 */
static void check_receiver(struct __test_metadata *_metadata,
			   struct tally *ty, const struct leap_table *lt,
			   const struct era_pivot *p, int64_t t)
{
	int leap = leap_offset(lt, t) - GPS_TAI_MINUS_GPS;
	int64_t tg = t - GPS_EPOCH_UTC + leap;
	char s[NMEA_MAX_LEN];

	for (int bug = 0; bug <= 1; bug++) {
		int64_t sh = bug ? ERA_10BIT_SECS : 0;

		gen_rmc(s, sizeof(s), "GN", t - sh, false);
		check(_metadata, ty, p, s, false, t, bug * 1024);
		gen_zda(s, sizeof(s), "GP", t - sh, false);
		check(_metadata, ty, p, s, false, t, bug * 1024);
		gen_pubx04(s, sizeof(s), t - sh, 0, leap, false);
		check(_metadata, ty, p, s, false, t, bug * 1024);
		gen_pgrmf(s, sizeof(s), tg, leap, -sh);
		check(_metadata, ty, p, s, true, tg, bug * 1024);
	}
}

static struct era_pivot pivot_at(const struct leap_table *lt, int64_t utc)
{
	return (struct era_pivot){ .utc = utc, .tai_utc = leap_offset(lt, utc) };
}

/*
 * The issue this slack answers: built at B, a receiver reading a few hours
 * (or days) before B must not be moved 1024 weeks, and one with the
 * rollover bug must still be corrected for the whole life of the build.
 * For every build instant: receivers from B - 30 days to B + 19 years,
 * one a day at a changing time of day, plus the named offsets (the last
 * one is the last day of the build's life: a GPS-time source's window is
 * counted in GPS seconds, so it ends earlier in UTC by the leap seconds
 * since the pivot); then the same with a state file saved 400 days after
 * the build (believed).
 */
TEST(build_slack_30_days_before_to_19_years_after)
{
	static const int64_t named[] = {
		-30 * SECS_PER_DAY, -SECS_PER_DAY, -5 * 3600, -14 * 3600, -1,
		0, 1, 19 * YEAR, ERA_BUILD_LIFE - SECS_PER_DAY,
	};
	struct leap_table lt;
	struct tally ty = { 0 };

	leap_builtin(&lt);
	for (size_t i = 0; i < NBUILDS; i++) {
		int64_t b = builds[i];
		struct era_floor f = build_floor(b);
		struct era_evidence ev = { .have_build = true, .build = b,
					   .have_state = true,
					   .state = b + 400 * SECS_PER_DAY };
		struct era_pivot p = pivot_at(&lt, f.utc);

		ASSERT_EQ(b - ERA_SLACK, f.utc);
		ASSERT_EQ(ERA_BY_BUILD, (int)f.by);
		for (int64_t t = b - 30 * SECS_PER_DAY; t <= b + 19 * YEAR;
		     t += SECS_PER_DAY + 7 * 3600 + 13)
			check_receiver(_metadata, &ty, &lt, &p, t);
		for (size_t k = 0; k < sizeof(named) / sizeof(named[0]); k++)
			check_receiver(_metadata, &ty, &lt, &p, b + named[k]);

		era_choose_floor(&ev, &f);
		ASSERT_EQ(ERA_STATE_FLOOR, (int)f.state);
		ASSERT_EQ(ev.state - ERA_SLACK, f.utc);
		p = pivot_at(&lt, f.utc);
		for (int64_t t = ev.state - 30 * SECS_PER_DAY; t <= b + 19 * YEAR;
		     t += 3 * SECS_PER_DAY + 5 * 3600 + 1)
			check_receiver(_metadata, &ty, &lt, &p, t);
	}
	printf("# build_slack: %ld cases checked (%zu build instants), %ld wrong\n",
	       ty.checked, NBUILDS, ty.wrong);
	fflush(stdout);
	EXPECT_EQ(0, ty.wrong);
	EXPECT_GT(ty.checked, 400000);
}

/* The life of the build, to the second, and what lies past it. */
TEST(build_life_boundaries)
{
	const int64_t b = 1796299200LL;		/* 2026-12-03T12:00:00Z */
	struct era_floor f = build_floor(b);
	struct era_pivot p = { .utc = f.utc, .tai_utc = 37 };
	struct era_result r;
	struct gp_err e;
	struct civil c;
	char buf[32];

	/* 998 weeks: 19.1 years, to 2046-01-18T12:00:00Z */
	EXPECT_EQ(998 * SECS_PER_WEEK, ERA_BUILD_LIFE);
	format_utc(buf, sizeof(buf), b + ERA_BUILD_LIFE, false);
	EXPECT_STREQ("2046-01-18T12:00:00Z", buf);
	/* honest from B - 26 weeks on ... */
	civil_from_utc(b - ERA_SLACK, false, &c);
	ASSERT_EQ(0, era_resolve_date(&p, (int)c.year, false, c.month, c.day,
				      c.hour, c.min, c.sec, &r, &e));
	EXPECT_EQ(b - ERA_SLACK, r.utc);
	EXPECT_EQ(0, r.behind_weeks);
	/* ... a second earlier is taken for a rollover bug: the limit */
	civil_from_utc(b - ERA_SLACK - 1, false, &c);
	ASSERT_EQ(0, era_resolve_date(&p, (int)c.year, false, c.month, c.day,
				      c.hour, c.min, c.sec, &r, &e));
	EXPECT_EQ(1024, r.behind_weeks);
	EXPECT_EQ(ERA_WHY_PIVOT, (int)r.why);
	/* a rollover-bug receiver is corrected up to the last second of life */
	civil_from_utc(b + ERA_BUILD_LIFE - 1 - ERA_10BIT_SECS, false, &c);
	ASSERT_EQ(0, era_resolve_date(&p, (int)c.year, false, c.month, c.day,
				      c.hour, c.min, c.sec, &r, &e));
	EXPECT_EQ(b + ERA_BUILD_LIFE - 1, r.utc);
	/* ... and from then on read as honest: the end of the build's life */
	civil_from_utc(b + ERA_BUILD_LIFE - ERA_10BIT_SECS, false, &c);
	ASSERT_EQ(0, era_resolve_date(&p, (int)c.year, false, c.month, c.day,
				      c.hour, c.min, c.sec, &r, &e));
	EXPECT_EQ(b + ERA_BUILD_LIFE - ERA_10BIT_SECS, r.utc);
	EXPECT_EQ(0, r.behind_weeks);
}

/* What each piece of evidence does to the pivot. */
TEST(floor_from_evidence)
{
	const int64_t b = 1796299200LL;		/* 2026-12-03T12:00:00Z */
	struct era_evidence ev = { .have_build = true, .build = b };
	struct era_floor f;

	era_choose_floor(&ev, &f);
	EXPECT_EQ(b - ERA_SLACK, f.utc);
	EXPECT_EQ(ERA_BY_BUILD, (int)f.by);
	EXPECT_EQ(ERA_STATE_NONE, (int)f.state);

	/* --not-before: exact, when later than the build less its slack */
	ev.have_not_before = true;
	ev.not_before = b - 10 * SECS_PER_DAY;
	era_choose_floor(&ev, &f);
	EXPECT_EQ(b - 10 * SECS_PER_DAY, f.utc);
	EXPECT_EQ(ERA_BY_NOT_BEFORE, (int)f.by);
	ev.not_before = b - 300 * SECS_PER_DAY;
	era_choose_floor(&ev, &f);
	EXPECT_EQ(b - ERA_SLACK, f.utc);
	EXPECT_EQ(ERA_BY_BUILD, (int)f.by);
	/* replay: --not-before replaces the build date, even far before it */
	ev.have_build = false;
	era_choose_floor(&ev, &f);
	EXPECT_EQ(b - 300 * SECS_PER_DAY, f.utc);
	EXPECT_EQ(ERA_BY_NOT_BEFORE, (int)f.by);

	/* a state file: believed up to 512 weeks after the build */
	ev = (struct era_evidence){ .have_build = true, .build = b,
				    .have_state = true,
				    .state = b + 3 * YEAR };
	era_choose_floor(&ev, &f);
	EXPECT_EQ(ERA_STATE_FLOOR, (int)f.state);
	EXPECT_EQ(ERA_BY_STATE, (int)f.by);
	EXPECT_EQ(b + 3 * YEAR - ERA_SLACK, f.utc);
	EXPECT_EQ(b + ERA_STATE_BELIEVED, f.state_max);
	ev.state = b + ERA_STATE_BELIEVED;
	era_choose_floor(&ev, &f);
	EXPECT_EQ(ERA_STATE_FLOOR, (int)f.state);
	ev.state = b + ERA_STATE_BELIEVED + 1;
	era_choose_floor(&ev, &f);
	EXPECT_EQ(ERA_STATE_AHEAD, (int)f.state);
	EXPECT_EQ(b - ERA_SLACK, f.utc);
	EXPECT_EQ(ERA_BY_BUILD, (int)f.by);
	/* older than the build: believed, changes nothing */
	ev.state = b - YEAR;
	era_choose_floor(&ev, &f);
	EXPECT_EQ(ERA_STATE_BELOW, (int)f.state);
	EXPECT_EQ(b - ERA_SLACK, f.utc);
	EXPECT_EQ(ERA_BY_BUILD, (int)f.by);
	/* --not-before later than the build moves the limit with it */
	ev.have_not_before = true;
	ev.not_before = b + 5 * YEAR;
	ev.state = b + 5 * YEAR + ERA_STATE_BELIEVED;
	era_choose_floor(&ev, &f);
	EXPECT_EQ(ERA_STATE_FLOOR, (int)f.state);
	EXPECT_EQ(ev.state - ERA_SLACK, f.utc);
}

/*
 * A state file left by an older gpsphcd that had labelled an honest
 * receiver 1024 weeks late (pivot = its build date, no slack, receiver a
 * few hours earlier): the saved time is t + 1024 weeks, written once
 * right after the warp or kept up to date until the upgrade.  With a new
 * build from the same day to 9 years later, the warp is not believed and
 * every honest receiver is labelled with its own time.
 */
TEST(older_gpsphcd_warp_in_state_never_lifts)
{
	static const int64_t newer[] = {
		0, SECS_PER_DAY, 30 * SECS_PER_DAY, YEAR, 5 * YEAR, 9 * YEAR,
	};
	const int64_t old_build = 1796299200LL;	/* 2026-12-03T12:00:00Z */
	const int64_t warped = old_build - 5 * 3600 + ERA_10BIT_SECS;
	struct leap_table lt;
	struct tally ty = { 0 };

	leap_builtin(&lt);
	for (size_t i = 0; i < sizeof(newer) / sizeof(newer[0]); i++) {
		int64_t b = old_build + newer[i];
		/* saved once (at the old build) or until the upgrade (at b) */
		int64_t saved[] = { warped, warped + newer[i] };

		for (size_t k = 0; k < 2; k++) {
			struct era_evidence ev = { .have_build = true,
						   .build = b,
						   .have_state = true,
						   .state = saved[k] };
			struct era_floor f;
			struct era_pivot p;

			era_choose_floor(&ev, &f);
			EXPECT_EQ(ERA_STATE_AHEAD, (int)f.state);
			EXPECT_EQ(b - ERA_SLACK, f.utc);
			p = pivot_at(&lt, f.utc);
			for (int64_t t = b - 30 * SECS_PER_DAY; t <= b + YEAR;
			     t += SECS_PER_DAY + 3 * 3600 + 7)
				check_receiver(_metadata, &ty, &lt, &p, t);
		}
	}
	printf("# older_gpsphcd_warp: %ld cases checked, %ld wrong\n",
	       ty.checked, ty.wrong);
	fflush(stdout);
	EXPECT_EQ(0, ty.wrong);
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
