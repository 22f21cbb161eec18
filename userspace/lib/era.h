/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * era.h - resolve what a receiver reports (2-digit years, 4-digit years,
 * GPS weeks mod 1024 or 8192 or complete) to one instant, without ever
 * looking at the leap-second count.
 *
 * The pivot P is the earliest instant the caller is sure of: see
 * era_choose_floor() below for how it comes from the build date, the state
 * file and --not-before.  The window is [P, P + 1024 weeks).  The rules,
 * applied in the timescale of the source (UTC seconds for dates and
 * PUBX,04's UTC week, GPS seconds for GPS weeks; the pivot is converted
 * with the TAI-UTC in force at P):
 *
 *  1. Complete the reported value:
 *     - a 2-digit year becomes the year in [Y(P) - 50, Y(P) + 50);
 *     - a week mod 1024 becomes the unique week that puts the time in
 *       [P, P + 1024 weeks): done, nothing else applies (such a receiver's
 *       rollover bug is invisible in a mod-1024 week);
 *     - a week mod 8192 becomes the unique time in
 *       [P - 4096 weeks, P + 4096 weeks);
 *     - a 4-digit year or a complete week is taken as given.
 *  2. A completed time earlier than P comes from a receiver with the
 *     week-rollover bug (reporting t - k*1024 weeks): it is lifted by the
 *     smallest multiple of 1024 weeks that brings it to or past P, and
 *     behind_weeks says by how much (why = ERA_WHY_PIVOT).
 *  3. A completed time at or after P + 1024 weeks is kept (the receiver
 *     cannot be ahead because of a rollover bug) and flagged "ahead".
 *
 * So every true time t in [P, P + 1024 weeks) resolves to t whether the
 * receiver reports t or t - 1024 weeks, and no result is ever before P.
 * Rule 2 is also what makes a pivot that is too late dangerous: an honest
 * receiver that reads earlier than P is moved 1024 weeks (19.6 years)
 * into the future.  Hence the slack below.
 */
#ifndef GPSPHC_ERA_H
#define GPSPHC_ERA_H

#include <stdbool.h>
#include <stdint.h>

#include "gperr.h"
#include "nmea.h"
#include "timeconv.h"

/*
 * Where the pivot comes from: what the caller knows about "now" when it
 * starts.  P = the latest of
 *
 *  - the build date less ERA_SLACK.  The build date says that time is no
 *    earlier than roughly then, not exactly: the build machine's clock
 *    can be ahead of UTC (a real-time clock kept in local time east of
 *    Greenwich, up to 14 hours; a drifting VM, hours; a date set by hand
 *    with the wrong month, weeks or months), and a package built today
 *    may run at once.  A pivot at the build instant itself moves an
 *    honest receiver that reads a few hours earlier by 1024 weeks.
 *    26 weeks covers every such error short of a wrong year.  The price
 *    is paid at the far end of the window: a receiver with the rollover
 *    bug is corrected while the true time is before build - ERA_SLACK +
 *    1024 weeks, that is for ERA_BUILD_LIFE = 998 weeks (19.1 years) after
 *    the build, longer than any distribution supports a build (Debian's
 *    longest, ELTS, 10 years).  The bounds: at least 30 days (an honest
 *    receiver from 30 days before the build on is labelled as itself),
 *    at most 228 days (a receiver with the bug is corrected for 19 years);
 *    half a year sits well inside both.
 *
 *  - the saved last-good time (state file) less ERA_SLACK, if believed.
 *    The daemon saves a time only after its labels have been consistent
 *    for a while (pipeline.h), and the same slack absorbs a saved time
 *    somewhat ahead of the truth.  Within the life of the build an honest
 *    saved time changes no result (the build date alone already places
 *    every time of that life), so it matters only when it is wrong or
 *    when the build is very old, and those two cannot be told apart: an
 *    older gpsphcd, whose pivot had no slack, could save a time 1024
 *    weeks ahead of an honest receiver (2046 for a 2026 receiver), and a
 *    floor taken from it would carry that warp forward for ever.  So a
 *    saved time more than ERA_STATE_BELIEVED (512 weeks, 9.8 years) after
 *    the build date (or --not-before, if later) is not believed
 *    (ERA_STATE_AHEAD) and the caller says what to do.  Such a warp lies
 *    at least about 1024 weeks after the build that wrote it, so it is
 *    refused unless this build is 512 weeks newer than that one; an
 *    honest time is refused only once this build has run for 9.8 years,
 *    and refusing it changes no label before the end of the build's life
 *    (after which only --not-before or a newer build can help).
 *
 *  - --not-before, exactly: the admin's word, no slack.  In replay it
 *    replaces the build date (a capture may be older than the build).
 */
#define ERA_SLACK_WEEKS		26
#define ERA_SLACK		(ERA_SLACK_WEEKS * SECS_PER_WEEK)
#define ERA_BUILD_LIFE		(ERA_10BIT_SECS - ERA_SLACK)
#define ERA_STATE_BELIEVED	(512 * SECS_PER_WEEK)

/* All times in UTC seconds. */
struct era_evidence {
	bool have_build;	/* false: --not-before replaces it (replay) */
	int64_t build;		/* when gpsphcd was built */
	bool have_not_before;
	int64_t not_before;	/* --not-before */
	bool have_state;
	int64_t state;		/* the saved last-good time */
};

enum era_floor_by {
	ERA_BY_BUILD = 1,	/* the build date less ERA_SLACK */
	ERA_BY_NOT_BEFORE,	/* --not-before */
	ERA_BY_STATE,		/* the saved time less ERA_SLACK */
	ERA_BY_LABELS,		/* this run's consistent labels (pipeline.h) */
};

enum era_state_use {
	ERA_STATE_NONE = 0,	/* no saved time */
	ERA_STATE_FLOOR,	/* believed: it sets the pivot */
	ERA_STATE_BELOW,	/* believed, but the pivot is later anyway */
	ERA_STATE_AHEAD,	/* later than state_max: not believed */
};

struct era_floor {
	int64_t utc;		/* the pivot */
	enum era_floor_by by;
	enum era_state_use state;
	int64_t state_max;	/* the latest saved time believed */
};

/* The pivot from @ev (at least one of build and not_before given). */
void era_choose_floor(const struct era_evidence *ev, struct era_floor *f);
const char *era_floor_by_name(enum era_floor_by by);

struct era_pivot {
	int64_t utc;		/* UTC seconds of the pivot */
	int tai_utc;		/* TAI-UTC in force at the pivot */
};

enum era_err {
	ERA_OK = 0,
	ERA_E_NO_DATE,		/* time of day only (GGA, GNS, GLL) */
	ERA_E_BAD_DATE,		/* e.g. 29 February of a common year */
	ERA_E_MISMATCH,		/* the sentence's date and week disagree */
	ERA_E_RANGE,		/* week/modulus outside what we handle */
};

enum era_why {
	ERA_WHY_NONE = 0,
	ERA_WHY_PIVOT,		/* its time was before the pivot (rule 2) */
	ERA_WHY_WEEK,		/* its date is behind its own week count */
};

struct era_result {
	bool utc_valid;		/* utc/sec60 are set */
	int64_t utc;		/* UTC seconds; 23:59:60 -> following 00:00:00 */
	bool sec60;		/* the second is an inserted leap second */
	uint32_t nsec;		/* fraction of the second, as reported */
	bool gps_valid;		/* the source counts GPS time: gps is set */
	int64_t gps;		/* GPS seconds since 1980-01-06 */
	int64_t behind_weeks;	/* receiver reported this many weeks early */
	enum era_why why;	/* and how we know (behind_weeks != 0) */
	bool ahead;		/* >= P + 1024 weeks, trusted and flagged */
};

/* Pivot in the GPS timescale (GPS seconds). */
int64_t era_pivot_gps(const struct era_pivot *p);

/* A UTC date and time; @year2: @year is a 2-digit year. */
int era_resolve_date(const struct era_pivot *p, int year, bool year2,
		     unsigned int month, unsigned int day, unsigned int hour,
		     unsigned int min, unsigned int sec,
		     struct era_result *r, struct gp_err *e);

/*
 * A week number and seconds of week.  @week_mod is 0 (complete week),
 * 1024 or 8192.  @utc_scale: the week counts UTC seconds since the GPS
 * epoch (u-blox PUBX,04) rather than GPS seconds.
 */
int era_resolve_week(const struct era_pivot *p, uint32_t week,
		     uint32_t week_mod, int64_t tow, bool utc_scale,
		     struct era_result *r, struct gp_err *e);

/*
 * A parsed sentence.  RMC and ZDA resolve their date; PUBX,04 and PGRMF
 * resolve their week and check that their date and time agree with it
 * (PGRMF's UTC comes from GPS time minus its own leap count; the era never
 * depends on it).  GGA/GNS/GLL give ERA_E_NO_DATE.
 */
int era_resolve(const struct era_pivot *p, const struct nmea_msg *m,
		struct era_result *r, struct gp_err *e);

#endif /* GPSPHC_ERA_H */
