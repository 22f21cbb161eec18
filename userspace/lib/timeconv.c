// SPDX-License-Identifier: GPL-2.0-only
/*
 * timeconv.c - civil date arithmetic.  The day-number algorithm is the
 * well-known era/year-of-era decomposition of the 400-year Gregorian cycle
 * (146097 days), exact for any int64 year that fits.
 */
#include <stdio.h>

#include "timeconv.h"

int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

int64_t floor_mod(int64_t a, int64_t b)
{
	return a - floor_div(a, b) * b;
}

int64_t days_from_civil(int64_t y, unsigned int m, unsigned int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = floor_div(y, 400);
	yoe = y - era * 400;				/* [0, 399] */
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;	/* [0, 146096] */
	return era * 146097 + doe - 719468;
}

void civil_from_days(int64_t days, int64_t *y, unsigned int *m,
		     unsigned int *d)
{
	int64_t z = days + 719468;
	int64_t era = floor_div(z, 146097);
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;

	*d = (unsigned int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

bool civil_date_valid(int64_t y, unsigned int m, unsigned int d)
{
	static const unsigned char mdays[12] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	if (m < 1 || m > 12 || d < 1)
		return false;
	return d <= (unsigned int)mdays[m - 1] + (m == 2 && leap);
}

int64_t utc_from_civil(const struct civil *c)
{
	return days_from_civil(c->year, c->month, c->day) * SECS_PER_DAY +
	       c->hour * 3600LL + c->min * 60LL + c->sec;
}

void civil_from_utc(int64_t utc, bool sec60, struct civil *c)
{
	int64_t t = sec60 ? utc - 1 : utc;
	int64_t sod = floor_mod(t, SECS_PER_DAY);

	civil_from_days(floor_div(t, SECS_PER_DAY), &c->year, &c->month,
			&c->day);
	c->hour = (unsigned int)(sod / 3600);
	c->min = (unsigned int)(sod / 60 % 60);
	c->sec = (unsigned int)(sod % 60) + sec60;
}

int format_utc(char *buf, size_t len, int64_t utc, bool sec60)
{
	struct civil c;

	civil_from_utc(utc, sec60, &c);
	return snprintf(buf, len, "%04lld-%02u-%02uT%02u:%02u:%02uZ",
			(long long)c.year, c.month, c.day, c.hour, c.min,
			c.sec);
}
