/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * era.h - resolve what a receiver reports (2-digit years, 4-digit years,
 * GPS weeks mod 1024 or 8192 or complete) to one instant, without ever
 * looking at the leap-second count.
 *
 * The pivot P is the earliest instant the caller is sure of (the latest of
 * the build date, the persisted last-good time and --not-before).  The
 * window is [P, P + 1024 weeks).  The rules, applied in the timescale of
 * the source (UTC seconds for dates and PUBX,04's UTC week, GPS seconds for
 * GPS weeks; the pivot is converted with the TAI-UTC in force at P):
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
 *     behind_weeks says by how much.
 *  3. A completed time at or after P + 1024 weeks is kept (the receiver
 *     cannot be ahead because of a rollover bug) and flagged "ahead".
 *
 * So every true time t in [P, P + 1024 weeks) resolves to t whether the
 * receiver reports t or t - 1024 weeks, and no result is ever before P.
 */
#ifndef GPSPHC_ERA_H
#define GPSPHC_ERA_H

#include <stdbool.h>
#include <stdint.h>

#include "gperr.h"
#include "nmea.h"

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

struct era_result {
	bool utc_valid;		/* utc/sec60 are set */
	int64_t utc;		/* UTC seconds; 23:59:60 -> following 00:00:00 */
	bool sec60;		/* the second is an inserted leap second */
	uint32_t nsec;		/* fraction of the second, as reported */
	bool gps_valid;		/* the source counts GPS time: gps is set */
	int64_t gps;		/* GPS seconds since 1980-01-06 */
	int64_t behind_weeks;	/* receiver reported this many weeks early */
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
