/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sentences.h - build NMEA sentences as text, with correct checksums, for
 * the host tests.  Times are UTC seconds (timeconv.h); @sec60 prints the
 * previous day's 23:59:60.
 */
#ifndef GPSPHC_TEST_SENTENCES_H
#define GPSPHC_TEST_SENTENCES_H

#include <stdarg.h>
#include <stdio.h>

#include "nmea.h"
#include "timeconv.h"

static inline int sentence(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "$" + body + "*HH" */
static inline int sentence(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	buf[0] = '$';
	va_start(ap, fmt);
	n = vsnprintf(buf + 1, len - 1, fmt, ap);
	va_end(ap);
	return 1 + n + snprintf(buf + 1 + n, len - 1 - (size_t)n, "*%02X",
				nmea_checksum(buf + 1, (size_t)n));
}

static inline int gen_rmc(char *buf, size_t len, const char *talker,
			  int64_t utc, bool sec60)
{
	struct civil c;

	civil_from_utc(utc, sec60, &c);
	return sentence(buf, len,
			"%sRMC,%02u%02u%02u.00,A,4717.11437,N,00833.91522,E,0.004,77.52,%02u%02u%02u,,,A",
			talker, c.hour, c.min, c.sec, c.day, c.month,
			(unsigned int)floor_mod(c.year, 100));
}

static inline int gen_zda(char *buf, size_t len, const char *talker,
			  int64_t utc, bool sec60)
{
	struct civil c;

	civil_from_utc(utc, sec60, &c);
	return sentence(buf, len, "%sZDA,%02u%02u%02u.00,%02u,%02u,%04lld,00,00",
			talker, c.hour, c.min, c.sec, c.day, c.month,
			(long long)c.year);
}

/* u-blox PUBX,04: UTC week/TOW counted from the GPS epoch in UTC seconds */
static inline int gen_pubx04(char *buf, size_t len, int64_t utc,
			     int64_t week_shift, int leap, bool leap_dflt)
{
	struct civil c;
	int64_t w = utc - GPS_EPOCH_UTC;

	civil_from_utc(utc, false, &c);
	return sentence(buf, len,
			"PUBX,04,%02u%02u%02u.00,%02u%02u%02u,%lld.00,%lld,%d%s,1930035,-2660.664,43,",
			c.hour, c.min, c.sec, c.day, c.month,
			(unsigned int)floor_mod(c.year, 100),
			(long long)floor_mod(w, SECS_PER_WEEK),
			(long long)(floor_div(w, SECS_PER_WEEK) + week_shift),
			leap, leap_dflt ? "D" : "");
}

/*
 * Garmin PGRMF for GPS seconds @gps with leap count @leap (GPS-UTC); the
 * date/time fields show UTC = GPS - leap, shifted by @date_shift seconds
 * (a rollover-bug receiver: -1024 weeks).
 */
static inline int gen_pgrmf(char *buf, size_t len, int64_t gps, int leap,
			    int64_t date_shift)
{
	struct civil d, t;
	int64_t utc = gps + GPS_EPOCH_UTC - leap;

	civil_from_utc(utc + date_shift, false, &d);
	civil_from_utc(utc, false, &t);
	return sentence(buf, len,
			"PGRMF,%lld,%lld,%02u%02u%02u,%02u%02u%02u,%d,5213.1439,N,02100.6511,E,A,2,0,226,2,1",
			(long long)floor_mod(floor_div(gps, SECS_PER_WEEK), 1024),
			(long long)floor_mod(gps, SECS_PER_WEEK),
			d.day, d.month, (unsigned int)floor_mod(d.year, 100),
			t.hour, t.min, t.sec, leap);
}

#endif /* GPSPHC_TEST_SENTENCES_H */
