// SPDX-License-Identifier: GPL-2.0-only
/*
 * leap.c - leap-second tables and TAI labels.  See leap.h.
 */
#include <string.h>

#include <nettle/macros.h>
#include <nettle/sha1.h>

#include "leap.h"
#include "timeconv.h"

/*
 * IERS Bulletin C history, as NTP seconds (so it reads like the list).
 * Updated and expiring as the list Debian 12's tzdata 2026f ships
 * (updated 2026-07-06; no leap second since 2017): expires 28 June 2027.
 */
static const struct {
	int64_t ntp;
	int tai_utc;
} builtin[] = {
	{ 2272060800LL, 10 }, { 2287785600LL, 11 }, { 2303683200LL, 12 },
	{ 2335219200LL, 13 }, { 2366755200LL, 14 }, { 2398291200LL, 15 },
	{ 2429913600LL, 16 }, { 2461449600LL, 17 }, { 2492985600LL, 18 },
	{ 2524521600LL, 19 }, { 2571782400LL, 20 }, { 2603318400LL, 21 },
	{ 2634854400LL, 22 }, { 2698012800LL, 23 }, { 2776982400LL, 24 },
	{ 2840140800LL, 25 }, { 2871676800LL, 26 }, { 2918937600LL, 27 },
	{ 2950473600LL, 28 }, { 2982009600LL, 29 }, { 3029443200LL, 30 },
	{ 3076704000LL, 31 }, { 3124137600LL, 32 }, { 3345062400LL, 33 },
	{ 3439756800LL, 34 }, { 3550089600LL, 35 }, { 3644697600LL, 36 },
	{ 3692217600LL, 37 },
};
#define BUILTIN_UPDATED	(3992312697LL - NTP_UNIX_OFFSET)	/* 2026-07-06 */
#define BUILTIN_EXPIRES	(4023129600LL - NTP_UNIX_OFFSET)	/* 2027-06-28 */

static const char *leap_src_name(enum leap_src s)
{
	switch (s) {
	case LEAP_SRC_BUILTIN:	return "built-in table";
	case LEAP_SRC_LIST:	return "leap-seconds.list";
	case LEAP_SRC_RECEIVER:	return "receiver";
	}
	return "?";
}

void leap_builtin(struct leap_table *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++) {
		t->e[i].utc = builtin[i].ntp - NTP_UNIX_OFFSET;
		t->e[i].tai_utc = builtin[i].tai_utc;
		t->n++;
	}
	t->updated = BUILTIN_UPDATED;
	t->expires = BUILTIN_EXPIRES;
	t->src = LEAP_SRC_BUILTIN;
}

struct lparse {
	const char *p, *end;	/* current line, without its newline */
	unsigned int lineno;
	struct sha1_ctx sha;
	struct gp_err *e;
};

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

/* A decimal number at *pp; hashes its digits. */
static bool number(struct lparse *lp, const char **pp, int64_t *v)
{
	const char *p = skip_ws(*pp, lp->end), *s = p;

	*v = 0;
	while (p < lp->end && *p >= '0' && *p <= '9' && p - s < 18)
		*v = *v * 10 + (*p++ - '0');
	if (p == s || (p < lp->end && *p >= '0' && *p <= '9'))
		return false;
	sha1_update(&lp->sha, (size_t)(p - s), (const uint8_t *)s);
	*pp = p;
	return true;
}

static bool hash_line(const char *p, const char *end, uint32_t want[5])
{
	for (int i = 0; i < 5; i++) {
		const char *s;
		uint32_t v = 0;

		p = skip_ws(p, end);
		for (s = p; p < end && p - s < 8; p++) {
			char c = *p;
			int d = c >= '0' && c <= '9' ? c - '0' :
				c >= 'a' && c <= 'f' ? c - 'a' + 10 :
				c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

			if (d < 0)
				break;
			v = v << 4 | (uint32_t)d;
		}
		if (p == s)
			return false;
		want[i] = v;
	}
	return skip_ws(p, end) == end;
}

static int malformed(struct lparse *lp, const char *what)
{
	return gp_err_set(lp->e, LEAP_E_MALFORMED,
			  "leap-seconds.list line %u: %s; install a current tzdata or pass --leapfile",
			  lp->lineno, what);
}

static int data_line(struct lparse *lp, struct leap_table *t)
{
	const char *p = lp->p;
	int64_t ntp, off;

	if (!number(lp, &p, &ntp) || !number(lp, &p, &off) || off > 1000)
		return malformed(lp, "expected \"<NTP seconds> <TAI-UTC>\"");
	p = skip_ws(p, lp->end);
	if (p != lp->end && *p != '#')
		return malformed(lp, "unexpected text after the TAI-UTC value");
	if (t->n == LEAP_MAX)
		return malformed(lp, "too many entries");
	if (t->n && (ntp - NTP_UNIX_OFFSET <= t->e[t->n - 1].utc ||
		     (off - t->e[t->n - 1].tai_utc != 1 &&
		      off - t->e[t->n - 1].tai_utc != -1)))
		return malformed(lp, "entries must go forward in time, TAI-UTC by +1 or -1 each");
	t->e[t->n].utc = ntp - NTP_UNIX_OFFSET;
	t->e[t->n].tai_utc = (int)off;
	t->n++;
	return 0;
}

int leap_parse_list(const char *text, size_t len, struct leap_table *t,
		    struct gp_err *e)
{
	struct lparse lp = { .e = e, .lineno = 1 };
	const char *end = text + len;
	uint32_t want[5];
	uint8_t dig[SHA1_DIGEST_SIZE];
	bool have_hash = false, have_exp = false;
	int r;

	memset(t, 0, sizeof(*t));
	gp_err_clear(e);
	sha1_init(&lp.sha);
	for (const char *p = text; p < end; lp.lineno++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *q;
		int64_t v;

		lp.p = p;
		lp.end = nl ? nl : end;
		p = nl ? nl + 1 : end;
		q = lp.p + 2;
		if (lp.end - lp.p >= 2 && lp.p[0] == '#' &&
		    (lp.p[1] == '$' || lp.p[1] == '@')) {
			if (!number(&lp, &q, &v) || skip_ws(q, lp.end) != lp.end)
				return malformed(&lp, "bad #$ or #@ line");
			if (lp.p[1] == '$') {
				t->updated = v - NTP_UNIX_OFFSET;
			} else {
				t->expires = v - NTP_UNIX_OFFSET;
				have_exp = true;
			}
		} else if (lp.end - lp.p >= 2 && lp.p[0] == '#' &&
			   lp.p[1] == 'h') {
			if (!hash_line(q, lp.end, want))
				return malformed(&lp, "bad #h hash line");
			have_hash = true;
		} else if (skip_ws(lp.p, lp.end) == lp.end || lp.p[0] == '#') {
			continue;
		} else if ((r = data_line(&lp, t))) {
			return r;
		}
	}
	if (!t->n)
		return gp_err_set(e, LEAP_E_EMPTY,
				  "leap-seconds.list has no data lines: it is not a leap-seconds.list; check --leapfile");
	if (!have_exp)
		return gp_err_set(e, LEAP_E_NO_EXPIRY,
				  "leap-seconds.list has no \"#@\" expiry line: cannot tell whether it is current; install a current tzdata");
	if (!have_hash)
		return gp_err_set(e, LEAP_E_NO_HASH,
				  "leap-seconds.list has no \"#h\" hash line: cannot verify it; install a current tzdata");
	sha1_digest(&lp.sha, sizeof(dig), dig);
	for (int i = 0; i < 5; i++) {
		uint32_t got = READ_UINT32(dig + 4 * i);	/* big-endian */

		if (got != want[i])
			return gp_err_set(e, LEAP_E_BAD_HASH,
					  "leap-seconds.list hash mismatch (word %d is %08x, data gives %08x): the file is corrupt or edited; reinstall tzdata",
					  i + 1, want[i], got);
	}
	t->src = LEAP_SRC_LIST;
	return LEAP_OK;
}

int leap_check_expiry(const struct leap_table *t, int64_t utc,
		      struct gp_err *e)
{
	char exp[24], now[24];

	if (utc <= t->expires)
		return LEAP_OK;
	format_utc(exp, sizeof(exp), t->expires, false);
	format_utc(now, sizeof(now), utc, false);
	return gp_err_set(e, LEAP_W_EXPIRED,
			  "leap-second data (%s) expired %s and it is now %s: labels continue, but a leap second announced since may be missed; update tzdata or pass a current --leapfile",
			  leap_src_name(t->src), exp, now);
}

/* Index of the last entry at or before @utc, or -1. */
static long find(const struct leap_table *t, int64_t utc)
{
	long lo = -1, hi = (long)t->n;	/* e[lo].utc <= utc < e[hi].utc */

	while (hi - lo > 1) {
		long mid = lo + (hi - lo) / 2;

		if (t->e[mid].utc <= utc)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int leap_offset(const struct leap_table *t, int64_t utc)
{
	long i = find(t, utc);

	if (i < 0)
		return t->n ? t->e[0].tai_utc : 0;
	return t->e[i].tai_utc;
}

bool leap_next(const struct leap_table *t, int64_t utc,
	       struct leap_entry *next)
{
	long i = find(t, utc) + 1;

	if ((size_t)i >= t->n)
		return false;
	*next = t->e[i];
	return true;
}

int leap_label(const struct leap_table *t, const struct era_result *r,
	       int rx_leap, struct leap_label *out, struct gp_err *e)
{
	char when[24];
	long i;

	gp_err_clear(e);
	out->utc = r->utc;
	out->sec60 = r->sec60;
	if (r->gps_valid && r->utc_valid && r->utc > t->expires) {
		/* GPS time is TAI - 19 s exactly; the receiver's UTC is ours */
		out->tai = tai_from_gps(r->gps);
		out->tai_utc = (int)(out->tai - r->utc);
		out->src = LEAP_SRC_RECEIVER;
		return LEAP_OK;
	}
	if (r->gps_valid) {
		out->tai = tai_from_gps(r->gps);
		leap_utc_from_tai(t, out->tai, &out->utc, &out->sec60,
				  &out->tai_utc);
		out->src = t->src;
		return LEAP_OK;
	}
	if (rx_leap >= 0 && r->utc > t->expires) {
		out->tai_utc = GPS_TAI_MINUS_GPS + rx_leap;
		out->src = LEAP_SRC_RECEIVER;
		out->tai = r->utc + out->tai_utc;
		return LEAP_OK;
	}
	out->src = t->src;
	if (r->sec60) {
		/* TAI(23:59:60) = next 00:00:00 + the offset before it */
		out->tai_utc = leap_offset(t, r->utc - 1);
		out->tai = r->utc + out->tai_utc;
		if (leap_offset(t, r->utc) == out->tai_utc + 1)
			return LEAP_OK;
		format_utc(when, sizeof(when), r->utc, true);
		return gp_err_set(e, LEAP_W_UNKNOWN_LEAP,
				  "the receiver sent %s but the %s has no leap second there: labelled as an insertion; update the leap-second data",
				  when, leap_src_name(t->src));
	}
	i = find(t, r->utc + 1);
	if (i > 0 && t->e[i].utc == r->utc + 1 &&
	    t->e[i].tai_utc == t->e[i - 1].tai_utc - 1) {
		format_utc(when, sizeof(when), r->utc, false);
		return gp_err_set(e, LEAP_E_DELETED,
				  "the receiver sent %s, a second removed by a negative leap second in the %s: not labelling it",
				  when, leap_src_name(t->src));
	}
	out->tai_utc = leap_offset(t, r->utc);
	out->tai = r->utc + out->tai_utc;
	return LEAP_OK;
}

void leap_utc_from_tai(const struct leap_table *t, int64_t tai,
		       int64_t *utc, bool *sec60, int *tai_utc)
{
	/* the entry in force: the last whose start, in TAI, is <= tai */
	long i;

	for (i = (long)t->n - 1; i >= 0; i--)
		if (t->e[i].utc + t->e[i].tai_utc <= tai)
			break;
	*tai_utc = i >= 0 ? t->e[i].tai_utc : (t->n ? t->e[0].tai_utc : 0);
	*utc = tai - *tai_utc;
	*sec60 = false;
	/* inside an insertion: TAI second just before the new offset starts */
	if ((size_t)(i + 1) < t->n &&
	    t->e[i + 1].tai_utc == *tai_utc + 1 &&
	    tai == t->e[i + 1].utc + *tai_utc) {
		*utc = t->e[i + 1].utc;
		*sec60 = true;
	}
}
