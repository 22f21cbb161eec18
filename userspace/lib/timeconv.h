/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * timeconv.h - civil dates, UTC, GPS and TAI seconds, as exact int64 sums.
 *
 * Time scales used in gpsphc (all int64 seconds):
 *  - UTC seconds: POSIX/unix count since 1970-01-01T00:00:00Z, 86400 per
 *    day.  An inserted leap second 23:59:60 has no value of its own: it is
 *    carried as the value of the following 00:00:00 plus a "sec60" flag.
 *  - GPS seconds: since the GPS epoch 1980-01-06T00:00:00Z, no leap seconds.
 *  - TAI (PTP) seconds: since 1970-01-01T00:00:00 TAI, the PTP timescale:
 *    TAI = UTC + (TAI-UTC), and TAI = GPS + GPS_EPOCH_TAI.
 */
#ifndef GPSPHC_TIMECONV_H
#define GPSPHC_TIMECONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NS_PER_SEC		INT64_C(1000000000)
#define NS_PER_MS		INT64_C(1000000)
#define SECS_PER_DAY		86400LL
#define SECS_PER_WEEK		604800LL
#define GPS_EPOCH_UTC		315964800LL	/* 1980-01-06T00:00:00Z */
#define GPS_TAI_MINUS_GPS	19		/* TAI - GPS, constant */
#define GPS_EPOCH_TAI		(GPS_EPOCH_UTC + GPS_TAI_MINUS_GPS)
#define WEEKS_10BIT		1024LL
#define WEEKS_13BIT		8192LL
#define ERA_10BIT_SECS		(WEEKS_10BIT * SECS_PER_WEEK)

struct civil {
	int64_t year;
	unsigned int month;	/* 1..12 */
	unsigned int day;	/* 1..31 */
	unsigned int hour;	/* 0..23 */
	unsigned int min;	/* 0..59 */
	unsigned int sec;	/* 0..60 */
};

int64_t floor_div(int64_t a, int64_t b);
int64_t floor_mod(int64_t a, int64_t b);

/* Days since 1970-01-01 of a proleptic Gregorian date, and back. */
int64_t days_from_civil(int64_t y, unsigned int m, unsigned int d);
void civil_from_days(int64_t days, int64_t *y, unsigned int *m,
		     unsigned int *d);
bool civil_date_valid(int64_t y, unsigned int m, unsigned int d);

/*
 * UTC seconds of a civil time.  sec == 60 yields the following 00:00:00
 * (see above); the caller keeps the sec60 flag.
 */
int64_t utc_from_civil(const struct civil *c);
/* Civil time of UTC seconds; with @sec60 the previous day's 23:59:60. */
void civil_from_utc(int64_t utc, bool sec60, struct civil *c);

/* "YYYY-MM-DDTHH:MM:SSZ"; @buf needs 21 bytes for years 0..9999. */
int format_utc(char *buf, size_t len, int64_t utc, bool sec60);

static inline int64_t tai_from_gps(int64_t gps)
{
	return gps + GPS_EPOCH_TAI;
}

#endif /* GPSPHC_TIMECONV_H */
