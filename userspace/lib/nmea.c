// SPDX-License-Identifier: GPL-2.0-only
/*
 * nmea.c - NMEA 0183 time sentences.  See nmea.h.
 *
 * Field numbers in messages count from 1 after the address, as the NMEA
 * and vendor manuals do.
 */
#include <string.h>

#include "nmea.h"

#define MAX_FIELDS 32

struct fld {
	const char *p;
	size_t n;
};

struct ctx {
	struct fld f[MAX_FIELDS];	/* f[0] is the address */
	size_t nf;
	const char *name;		/* for messages: "RMC", "PUBX,04" */
	struct gp_err *e;
};

uint8_t nmea_checksum(const char *body, size_t len)
{
	uint8_t x = 0;

	while (len--)
		x ^= (uint8_t)*body++;
	return x;
}

const char *nmea_kind_name(enum nmea_kind k)
{
	switch (k) {
	case NMEA_RMC:		return "RMC";
	case NMEA_ZDA:		return "ZDA";
	case NMEA_GGA:		return "GGA";
	case NMEA_GNS:		return "GNS";
	case NMEA_GLL:		return "GLL";
	case NMEA_PUBX04:	return "PUBX,04";
	case NMEA_PGRMF:	return "PGRMF";
	}
	return "?";
}

const char *nmea_err_name(int err)
{
	switch (err) {
	case NMEA_OK:			return "ok";
	case NMEA_E_FRAME:		return "frame";
	case NMEA_E_NO_CHECKSUM:	return "no-checksum";
	case NMEA_E_CHECKSUM:		return "checksum";
	case NMEA_E_UNSUPPORTED:	return "unsupported";
	case NMEA_E_FIELD:		return "field";
	case NMEA_E_MISSING:		return "missing";
	case NMEA_E_INVALID_FIX:	return "invalid-fix";
	}
	return "?";
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* @s without its trailing CR/LF: the new length. */
static size_t trim_eol(const char *s, size_t len)
{
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	return len;
}

/* Does @s (trimmed) end in '*' and two hex digits?  Their value if so. */
static int star_hh(const char *s, size_t len)
{
	int hi, lo;

	if (len < 4 || s[len - 3] != '*')
		return -1;
	hi = hexval(s[len - 2]);
	lo = hexval(s[len - 1]);
	return hi < 0 || lo < 0 ? -1 : hi << 4 | lo;
}

int nmea_checksum_check(const char *s, size_t len)
{
	int hh;

	len = trim_eol(s, len);
	if (!len || (s[0] != '$' && s[0] != '!'))
		return NMEA_E_FRAME;
	hh = star_hh(s, len);
	if (hh >= 0)
		return nmea_checksum(s + 1, len - 4) == hh ? NMEA_OK :
		       NMEA_E_CHECKSUM;
	return memchr(s + 1, '*', len - 1) ? NMEA_E_CHECKSUM :
	       NMEA_E_NO_CHECKSUM;
}

static bool all_digits(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	return n > 0;
}

/* Decimal digits only, no sign; fails on overflow past 10^15. */
static bool parse_u64(const char *p, size_t n, uint64_t *v)
{
	if (!all_digits(p, n) || n > 15)
		return false;
	*v = 0;
	for (size_t i = 0; i < n; i++)
		*v = *v * 10 + (uint64_t)(p[i] - '0');
	return true;
}

static unsigned int two(const char *p)
{
	return (unsigned int)((p[0] - '0') * 10 + (p[1] - '0'));
}

/* "123.456" -> 123 s and 456000000 ns; fraction of any length. */
static bool parse_decimal(const char *p, size_t n, uint64_t *ip,
			  uint32_t *nsec)
{
	const char *dot = memchr(p, '.', n);
	size_t il = dot ? (size_t)(dot - p) : n;
	uint32_t ns = 0, scale = 100000000;

	if (!parse_u64(p, il, ip))
		return false;
	if (dot) {
		size_t fl = n - il - 1;

		if (!all_digits(dot + 1, fl))
			return false;
		for (size_t i = 0; i < fl && i < 9; i++, scale /= 10)
			ns += (uint32_t)(dot[1 + i] - '0') * scale;
	}
	*nsec = ns;
	return true;
}

static const char *fld_show(const struct fld *f, char *buf, size_t len)
{
	size_t n = f->n < len - 1 ? f->n : len - 1;

	memcpy(buf, f->p, n);
	buf[n] = '\0';
	return buf;
}

static int bad(struct ctx *c, size_t i, const char *what, const char *fix)
{
	char b[40];

	if (i >= c->nf || c->f[i].n == 0)
		return gp_err_set(c->e, NMEA_E_MISSING,
				  "%s field %zu (%s) is empty or absent: %s",
				  c->name, i, what, fix);
	return gp_err_set(c->e, NMEA_E_FIELD,
			  "%s field %zu (%s) \"%s\" is malformed: %s",
			  c->name, i, what, fld_show(&c->f[i], b, sizeof(b)),
			  fix);
}

static const struct fld *field(const struct ctx *c, size_t i)
{
	static const struct fld empty = { "", 0 };

	return i < c->nf ? &c->f[i] : &empty;
}

static char field_char(const struct ctx *c, size_t i)
{
	const struct fld *f = field(c, i);

	return f->n == 1 ? f->p[0] : '\0';
}

static int get_tod(struct ctx *c, size_t i, struct nmea_msg *m)
{
	const struct fld *f = field(c, i);
	uint64_t hms;

	if (f->n < 6 || (f->n > 6 && f->p[6] != '.') ||
	    !all_digits(f->p, 6) || !parse_decimal(f->p, f->n, &hms, &m->nsec))
		return bad(c, i, "time hhmmss[.s]",
			   "the receiver has no time yet or the line is corrupt");
	m->hour = two(f->p);
	m->min = two(f->p + 2);
	m->sec = two(f->p + 4);
	if (m->hour > 23 || m->min > 59 || m->sec > 60)
		return bad(c, i, "time hhmmss[.s] out of range",
			   "the line is corrupt");
	m->has_tod = true;
	return 0;
}

static int get_ddmmyy(struct ctx *c, size_t i, struct nmea_msg *m)
{
	const struct fld *f = field(c, i);

	if (f->n != 6 || !all_digits(f->p, 6))
		return bad(c, i, "date ddmmyy",
			   "the receiver has no date yet or the line is corrupt");
	m->day = two(f->p);
	m->month = two(f->p + 2);
	m->year = (int)two(f->p + 4);
	m->year2 = true;
	if (m->day < 1 || m->day > 31 || m->month < 1 || m->month > 12)
		return bad(c, i, "date ddmmyy out of range",
			   "the line is corrupt");
	m->has_date = true;
	return 0;
}

static int get_uint(struct ctx *c, size_t i, const char *what,
		    uint64_t max, uint64_t *v)
{
	const struct fld *f = field(c, i);

	if (!parse_u64(f->p, f->n, v) || *v > max)
		return bad(c, i, what, "the line is corrupt");
	return 0;
}

static int parse_rmc(struct ctx *c, struct nmea_msg *m)
{
	int r;

	/* 1 time, 2 status, 3-6 position, 7 speed, 8 course, 9 date,
	 * 10-11 magnetic variation, 12 mode (2.3), 13 nav status (4.1) */
	if ((r = get_tod(c, 1, m)) || (r = get_ddmmyy(c, 9, m)))
		return r;
	m->status = field_char(c, 2);
	m->mode = field_char(c, 12);
	if (m->status != 'A')
		return gp_err_set(c->e, NMEA_E_INVALID_FIX,
				  "RMC status is '%c', not 'A': the receiver has no valid fix; wait for one",
				  m->status ? m->status : '-');
	/* N no fix, M manual input, S simulator: not time from the sky */
	if (m->mode == 'N' || m->mode == 'M' || m->mode == 'S')
		return gp_err_set(c->e, NMEA_E_INVALID_FIX,
				  "RMC mode is '%c' (not from satellites): ignoring; wait for a fix",
				  m->mode);
	/* navigational status (S/C/U/V) is not about the fix: u-blox sends
	 * 'V' ("no status information") with every valid fix */
	return 0;
}

static int parse_zda(struct ctx *c, struct nmea_msg *m)
{
	uint64_t d, mo, y;
	int r;

	/* 1 time, 2 day, 3 month, 4 year, 5-6 local zone (ignored) */
	if ((r = get_tod(c, 1, m)))
		return r;
	if (field(c, 2)->n != 2 || get_uint(c, 2, "day", 31, &d) || d < 1)
		return bad(c, 2, "day dd", "the line is corrupt");
	if (field(c, 3)->n != 2 || get_uint(c, 3, "month", 12, &mo) || mo < 1)
		return bad(c, 3, "month mm", "the line is corrupt");
	if (field(c, 4)->n != 4 || get_uint(c, 4, "year", 9999, &y))
		return bad(c, 4, "year yyyy", "the line is corrupt");
	m->day = (unsigned int)d;
	m->month = (unsigned int)mo;
	m->year = (int)y;
	m->year2 = false;
	m->has_date = true;
	return 0;
}

static int parse_tod_only(struct ctx *c, struct nmea_msg *m)
{
	size_t tf = m->kind == NMEA_GLL ? 5 : 1;
	int r = get_tod(c, tf, m);

	if (r)
		return r;
	switch (m->kind) {
	case NMEA_GGA:	/* 6 quality: 0 invalid */
		if (field_char(c, 6) == '0' || field(c, 6)->n == 0)
			return gp_err_set(c->e, NMEA_E_INVALID_FIX,
					  "GGA fix quality is 0 or empty: no fix; wait for one");
		break;
	case NMEA_GNS: {	/* 6 mode, one letter per system */
		const struct fld *f = field(c, 6);
		size_t i;

		for (i = 0; i < f->n && f->p[i] == 'N'; i++)
			;
		if (i == f->n)
			return gp_err_set(c->e, NMEA_E_INVALID_FIX,
					  "GNS mode is all 'N' or empty: no fix; wait for one");
		break;
	}
	default:	/* GLL: 6 status, 7 mode */
		m->status = field_char(c, 6);
		m->mode = field_char(c, 7);
		if (m->status != 'A' || m->mode == 'N')
			return gp_err_set(c->e, NMEA_E_INVALID_FIX,
					  "GLL status/mode is not valid: no fix; wait for one");
		break;
	}
	return 0;
}

static int get_tow(struct ctx *c, size_t i, struct nmea_msg *m)
{
	const struct fld *f = field(c, i);
	uint64_t s;

	if (!parse_decimal(f->p, f->n, &s, &m->tow_nsec) || s >= 604800)
		return bad(c, i, "time of week, seconds 0..604799",
			   "the line is corrupt");
	m->tow = (int64_t)s;
	return 0;
}

static int get_leap(struct ctx *c, size_t i, struct nmea_msg *m)
{
	const struct fld *f = field(c, i);
	size_t n = f->n;
	uint64_t v;

	m->leap_default = n > 0 && f->p[n - 1] == 'D';
	if (m->leap_default)
		n--;
	if (!parse_u64(f->p, n, &v) || v > 255)
		return bad(c, i, "leap seconds", "the line is corrupt");
	m->leap = (int)v;
	m->has_leap = true;
	return 0;
}

static int parse_pubx04(struct ctx *c, struct nmea_msg *m)
{
	uint64_t wk;
	int r;

	/* 1 "04", 2 time, 3 date, 4 UTC TOW, 5 UTC week, 6 leap[D],
	 * 7 clock bias, 8 clock drift, 9 time pulse granularity */
	if ((r = get_tod(c, 2, m)) || (r = get_ddmmyy(c, 3, m)) ||
	    (r = get_tow(c, 4, m)) ||
	    (r = get_uint(c, 5, "UTC week", 65535, &wk)) ||
	    (r = get_leap(c, 6, m)))
		return r;
	m->week = (uint32_t)wk;
	m->week_mod = 0;	/* "continues beyond 1023" */
	m->week_utc = true;
	m->has_week = true;
	return 0;
}

static int parse_pgrmf(struct ctx *c, struct nmea_msg *m)
{
	uint64_t wk, fix;
	int r;

	/* 1 GPS week (0-1023), 2 GPS seconds, 3 date, 4 time, 5 leap,
	 * 6-9 position, 10 mode, 11 fix type (0 none, 1 2D, 2 3D), ... */
	if ((r = get_uint(c, 1, "GPS week 0..1023", 1023, &wk)) ||
	    (r = get_tow(c, 2, m)) || (r = get_ddmmyy(c, 3, m)) ||
	    (r = get_tod(c, 4, m)) || (r = get_leap(c, 5, m)))
		return r;
	if (m->leap_default)
		return bad(c, 5, "leap seconds", "PGRMF has no 'D' flag");
	if ((r = get_uint(c, 11, "fix type 0..2", 2, &fix)))
		return r;
	if (fix == 0)
		return gp_err_set(c->e, NMEA_E_INVALID_FIX,
				  "PGRMF fix type is 0: no fix; wait for one");
	m->week = (uint32_t)wk;
	m->week_mod = WEEKS_10BIT;
	m->week_utc = false;
	m->has_week = true;
	return 0;
}

/* Split @s, whose checksum verdict is @csum, into its fields. */
static int frame(const char *s, size_t len, int csum, struct ctx *c)
{
	const char *star;
	size_t i;

	len = trim_eol(s, len);
	if (len == 0 || s[0] != '$')
		return gp_err_set(c->e, NMEA_E_FRAME,
				  "sentence does not start with '$': check the serial speed and framing");
	if (len > NMEA_MAX_LEN)
		return gp_err_set(c->e, NMEA_E_FRAME,
				  "sentence is %zu bytes, longer than %d: probably two lines run together; check the serial settings",
				  len, NMEA_MAX_LEN);
	for (i = 1; i < len; i++)
		if (s[i] < 0x20 || s[i] > 0x7e || s[i] == '$')
			return gp_err_set(c->e, NMEA_E_FRAME,
					  "byte 0x%02x at offset %zu is not allowed in a sentence: check the serial speed",
					  (unsigned char)s[i], i);
	if (csum == NMEA_E_NO_CHECKSUM)
		return gp_err_set(c->e, NMEA_E_NO_CHECKSUM,
				  "sentence has no \"*hh\" checksum: enable checksums on the receiver");
	/* The verdict is the caller's; the message says what is wrong. */
	if (star_hh(s, len) < 0)
		return gp_err_set(c->e, NMEA_E_CHECKSUM,
				  "checksum after the last '*' must be exactly two hex digits: the line is corrupt");
	if (csum != NMEA_OK)
		return gp_err_set(c->e, NMEA_E_CHECKSUM,
				  "checksum is %c%c but the data gives %02X: line corrupted in transit; check cabling and baud rate",
				  s[len - 2], s[len - 1], nmea_checksum(s + 1, len - 4));
	star = s + len - 3;
	c->nf = 0;
	for (const char *p = s + 1, *end = star;; p++) {
		const char *q = memchr(p, ',', (size_t)(end - p));

		if (c->nf == MAX_FIELDS)
			return gp_err_set(c->e, NMEA_E_FRAME,
					  "more than %d fields: the line is corrupt",
					  MAX_FIELDS);
		c->f[c->nf].p = p;
		c->f[c->nf].n = (size_t)((q ? q : end) - p);
		c->nf++;
		if (!q)
			break;
		p = q;
	}
	return 0;
}

int nmea_parse(const char *s, size_t len, struct nmea_msg *m,
	       struct gp_err *e)
{
	return nmea_parse_checked(s, len, nmea_checksum_check(s, len), m, e);
}

/* The sentences any talker sends that carry time, named by their type */
static const enum nmea_kind nmea_talker_kinds[] = {
	NMEA_RMC, NMEA_ZDA, NMEA_GGA, NMEA_GNS, NMEA_GLL,
};

int nmea_parse_checked(const char *s, size_t len, int csum,
		       struct nmea_msg *m, struct gp_err *e)
{
	const size_t n_kinds = sizeof(nmea_talker_kinds) /
			       sizeof(nmea_talker_kinds[0]);
	struct ctx c = { .e = e };
	const struct fld *a;
	size_t k;
	int r;

	memset(m, 0, sizeof(*m));
	gp_err_clear(e);
	if ((r = frame(s, len, csum, &c)))
		return r;
	a = &c.f[0];
	if (a->n == 4 && !memcmp(a->p, "PUBX", 4)) {
		if (field(&c, 1)->n != 2 || memcmp(field(&c, 1)->p, "04", 2))
			return gp_err_set(e, NMEA_E_UNSUPPORTED,
					  "PUBX message other than 04 carries no time for us: ignored");
		m->kind = NMEA_PUBX04;
		strcpy(m->talker, "P");
	} else if (a->n == 5 && !memcmp(a->p, "PGRMF", 5)) {
		m->kind = NMEA_PGRMF;
		strcpy(m->talker, "P");
	} else {
		if (a->n != 5 || a->p[0] < 'A' || a->p[0] > 'Z' || a->p[0] == 'P' ||
		    a->p[1] < 'A' || a->p[1] > 'Z')
			return gp_err_set(e, NMEA_E_UNSUPPORTED,
					  "address \"%.*s\" is not a standard talker sentence we use: ignored",
					  (int)(a->n < 16 ? a->n : 16), a->p);
		for (k = 0; k < n_kinds; k++)
			if (!memcmp(a->p + 2, nmea_kind_name(nmea_talker_kinds[k]), 3))
				break;
		if (k == n_kinds)
			return gp_err_set(e, NMEA_E_UNSUPPORTED,
					  "sentence type %.3s carries no time we use: ignored",
					  a->p + 2);
		m->kind = nmea_talker_kinds[k];
		m->talker[0] = a->p[0];
		m->talker[1] = a->p[1];
	}
	c.name = nmea_kind_name(m->kind);
	switch (m->kind) {
	case NMEA_RMC:		return parse_rmc(&c, m);
	case NMEA_ZDA:		return parse_zda(&c, m);
	case NMEA_PUBX04:	return parse_pubx04(&c, m);
	case NMEA_PGRMF:	return parse_pgrmf(&c, m);
	default:		return parse_tod_only(&c, m);
	}
}
