// SPDX-License-Identifier: GPL-2.0-only
/*
 * era.c - week-number era and century resolution.  See era.h for the rules;
 * all arithmetic is exact int64 seconds.
 */
#include <string.h>

#include "era.h"
#include "timeconv.h"

int64_t era_pivot_gps(const struct era_pivot *p)
{
	return p->utc + p->tai_utc - GPS_EPOCH_TAI;
}

#define STR(x)	#x
#define XSTR(x)	STR(x)
#define LESS_SLACK " less " XSTR(ERA_SLACK_WEEKS) " weeks"

const char *era_floor_by_name(enum era_floor_by by)
{
	switch (by) {
	case ERA_BY_BUILD:	return "the build date" LESS_SLACK;
	case ERA_BY_NOT_BEFORE:	return "--not-before";
	case ERA_BY_STATE:	return "the state file's last-good time" LESS_SLACK;
	case ERA_BY_LABELS:	return "this run's last-good time" LESS_SLACK;
	}
	return "?";
}

static void raise_floor(struct era_floor *f, int64_t utc,
			enum era_floor_by by)
{
	if (!f->by || utc > f->utc) {
		f->utc = utc;
		f->by = by;
	}
}

void era_choose_floor(const struct era_evidence *ev, struct era_floor *f)
{
	int64_t anchor = INT64_MIN;

	memset(f, 0, sizeof(*f));
	if (ev->have_build) {
		raise_floor(f, ev->build - ERA_SLACK, ERA_BY_BUILD);
		anchor = ev->build;
	}
	if (ev->have_not_before) {
		raise_floor(f, ev->not_before, ERA_BY_NOT_BEFORE);
		if (ev->not_before > anchor)
			anchor = ev->not_before;
	}
	if (!ev->have_state)
		return;
	f->state_max = anchor + ERA_STATE_BELIEVED;
	if (ev->state > f->state_max) {
		f->state = ERA_STATE_AHEAD;
		return;
	}
	f->state = ev->state - ERA_SLACK > f->utc ? ERA_STATE_FLOOR :
						    ERA_STATE_BELOW;
	raise_floor(f, ev->state - ERA_SLACK, ERA_BY_STATE);
}

/* Rules 2 and 3 of era.h: @x and @pivot in the same timescale. */
static int64_t lift(int64_t x, int64_t pivot, struct era_result *r)
{
	if (x < pivot) {
		int64_t k = floor_div(pivot - x + ERA_10BIT_SECS - 1,
				      ERA_10BIT_SECS);

		x += k * ERA_10BIT_SECS;
		r->behind_weeks = k * WEEKS_10BIT;
		r->why = ERA_WHY_PIVOT;
	}
	r->ahead = x >= pivot + ERA_10BIT_SECS;
	return x;
}

int era_resolve_date(const struct era_pivot *p, int year, bool year2,
		     unsigned int month, unsigned int day, unsigned int hour,
		     unsigned int min, unsigned int sec,
		     struct era_result *r, struct gp_err *e)
{
	struct civil c = {
		.year = year, .month = month, .day = day,
		.hour = hour, .min = min, .sec = sec,
	};
	struct civil pc;

	memset(r, 0, sizeof(*r));
	if (year2) {
		int64_t lo;

		civil_from_utc(p->utc, false, &pc);
		lo = pc.year - 50;
		c.year = lo + floor_mod(year - lo, 100);
	}
	if (!civil_date_valid(c.year, month, day))
		return gp_err_set(e, ERA_E_BAD_DATE,
				  "date %04lld-%02u-%02u does not exist: the receiver sent garbage",
				  (long long)c.year, month, day);
	if (hour > 23 || min > 59 || sec > 60 ||
	    (sec == 60 && (hour != 23 || min != 59)))
		return gp_err_set(e, ERA_E_BAD_DATE,
				  "time %02u:%02u:%02u does not exist (second 60 only at 23:59): the receiver sent garbage",
				  hour, min, sec);
	r->utc = lift(utc_from_civil(&c), p->utc, r);
	r->sec60 = sec == 60;
	r->utc_valid = true;
	return 0;
}

int era_resolve_week(const struct era_pivot *p, uint32_t week,
		     uint32_t week_mod, int64_t tow, bool utc_scale,
		     struct era_result *r, struct gp_err *e)
{
	int64_t pivot = utc_scale ? p->utc - GPS_EPOCH_UTC : era_pivot_gps(p);
	int64_t x = (int64_t)week * SECS_PER_WEEK + tow;

	memset(r, 0, sizeof(*r));
	if (tow < 0 || tow >= SECS_PER_WEEK ||
	    (week_mod && week >= week_mod))
		return gp_err_set(e, ERA_E_RANGE,
				  "week %u / time of week %lld out of range for modulus %u",
				  week, (long long)tow, week_mod);
	switch (week_mod) {
	case 0:
		x = lift(x, pivot, r);
		break;
	case WEEKS_10BIT:
		x = pivot + floor_mod(x - pivot, ERA_10BIT_SECS);
		break;
	case WEEKS_13BIT: {
		int64_t span = WEEKS_13BIT * SECS_PER_WEEK;
		int64_t lo = pivot - span / 2;

		x = lift(lo + floor_mod(x - lo, span), pivot, r);
		break;
	}
	default:
		return gp_err_set(e, ERA_E_RANGE,
				  "week modulus %u not supported (0, 1024 or 8192)",
				  week_mod);
	}
	if (utc_scale) {
		r->utc = x + GPS_EPOCH_UTC;
		r->utc_valid = true;
	} else {
		r->gps = x;
		r->gps_valid = true;
	}
	return 0;
}

/* Does the sentence's date and time name the UTC second @utc? */
static bool date_names(const struct nmea_msg *m, int64_t utc)
{
	struct civil c, want;
	int64_t t;

	civil_from_utc(utc, false, &c);
	want = (struct civil){
		.year = c.year, .month = m->month, .day = m->day,
		.hour = m->hour, .min = m->min, .sec = m->sec,
	};
	/* 23:59:60 against a week count already at the next 00:00:00 */
	if (m->sec == 60 && c.hour == 0 && c.min == 0 && c.sec == 0)
		civil_from_days(floor_div(utc, SECS_PER_DAY) - 1, &want.year,
				&c.month, &c.day);
	if ((m->year2 ? floor_mod(want.year, 100) : want.year) != m->year)
		return false;
	t = utc_from_civil(&want);
	/* ... or still at 23:59:59 */
	return t == utc || (m->sec == 60 && t - 1 == utc);
}

/*
 * The sentence's own date and time must name the second @utc (UTC seconds
 * derived from its week), or that second k*1024 weeks earlier: a receiver
 * with the rollover bug sends a mod-1024 week that is right and a date
 * that is not.  During an inserted leap second the week count may show
 * the next second or still the previous one.
 */
static int check_date(const struct nmea_msg *m, int64_t utc,
		      struct era_result *r, struct gp_err *e)
{
	char got[24];

	for (int64_t k = 0; k <= 2; k++) {
		if (!date_names(m, utc - k * ERA_10BIT_SECS))
			continue;
		r->utc = utc + (m->sec == 60 && (utc % SECS_PER_DAY) != 0);
		r->sec60 = m->sec == 60;
		r->utc_valid = true;
		if (k) {
			r->behind_weeks = k * WEEKS_10BIT;
			r->why = ERA_WHY_WEEK;
		}
		return 0;
	}
	format_utc(got, sizeof(got), utc, false);
	return gp_err_set(e, ERA_E_MISMATCH,
			  "%s date %02u-%02u-%02d %02u:%02u:%02u disagrees with its week/seconds (%s): ignoring this sentence",
			  nmea_kind_name(m->kind), m->day, m->month, m->year,
			  m->hour, m->min, m->sec, got);
}

int era_resolve(const struct era_pivot *p, const struct nmea_msg *m,
		struct era_result *r, struct gp_err *e)
{
	int ret;

	if (!m->has_date || !m->has_tod)
		return gp_err_set(e, ERA_E_NO_DATE,
				  "%s carries no date: it cannot label an edge by itself",
				  nmea_kind_name(m->kind));
	if (!m->has_week)
		ret = era_resolve_date(p, m->year, m->year2, m->month, m->day,
				       m->hour, m->min, m->sec, r, e);
	else
		ret = era_resolve_week(p, m->week, m->week_mod, m->tow,
				       m->week_utc, r, e);
	r->nsec = m->nsec;
	if (ret || !m->has_week)
		return ret;
	if (m->week_utc)
		return check_date(m, r->utc, r, e);
	/* PGRMF: UTC from GPS time with the receiver's own leap count */
	return check_date(m, r->gps + GPS_EPOCH_UTC - m->leap, r, e);
}
