/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nmea.h - parse the NMEA 0183 sentences that carry time.
 *
 * Pure: text in, values out.  Any talker id (GP, GN, GL, GA, GB, BD, GQ,
 * QZ, ...) is accepted for the standard sentences.  A sentence must be
 * "$<address>,<fields>*<hh>" with a correct checksum (either case of hex
 * digits, the kernel framer's rule: nmea_checksum_check()); trailing CR/LF
 * are allowed.  Invalid fixes, bad checksums and malformed fields are
 * rejected with a reason, never guessed around.
 */
#ifndef GPSPHC_NMEA_H
#define GPSPHC_NMEA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gperr.h"
#include "timeconv.h"

#define NMEA_MAX_LEN	256	/* longer input is refused (spec: 82) */

enum nmea_kind {
	NMEA_RMC = 1,	/* time, 2-digit-year date, status, mode */
	NMEA_ZDA,	/* time, 4-digit-year date */
	NMEA_GGA,	/* time of day only */
	NMEA_GNS,	/* time of day only */
	NMEA_GLL,	/* time of day only */
	NMEA_PUBX04,	/* u-blox: UTC time/date, UTC TOW and week, leap */
	NMEA_PGRMF,	/* Garmin: GPS week mod 1024, GPS seconds, leap */
};

enum nmea_err {
	NMEA_OK = 0,
	NMEA_E_FRAME,		/* no '$', bad character, too long */
	NMEA_E_NO_CHECKSUM,	/* no "*hh" */
	NMEA_E_CHECKSUM,	/* checksum does not match */
	NMEA_E_UNSUPPORTED,	/* well-formed, but not a time sentence */
	NMEA_E_FIELD,		/* a field is malformed or out of range */
	NMEA_E_MISSING,		/* a needed field is empty or absent */
	NMEA_E_INVALID_FIX,	/* the receiver flags the data invalid */
};

struct nmea_msg {
	enum nmea_kind kind;
	char talker[3];		/* "GP", "GN", ...; "P" for proprietary */

	bool has_tod;		/* time of day, UTC */
	unsigned int hour, min, sec;	/* sec may be 60 */
	uint32_t nsec;		/* fraction, truncated to 9 digits */

	bool has_date;		/* UTC date */
	bool year2;		/* year is the 2-digit year (0..99) */
	int year;
	unsigned int month, day;

	bool has_week;		/* week number and time of week */
	bool week_utc;		/* PUBX,04: UTC week/TOW, not GPS */
	uint32_t week;		/* as sent */
	uint32_t week_mod;	/* 0: complete week, else 1024 or 8192 */
	int64_t tow;		/* seconds of week */
	uint32_t tow_nsec;

	bool has_leap;		/* GPS-UTC leap seconds from the receiver */
	bool leap_default;	/* PUBX,04 'D': firmware default, not broadcast */
	int leap;

	char status;		/* RMC/GLL status, '\0' if absent */
	char mode;		/* RMC/GLL mode (NMEA 2.3), '\0' if absent */
};

/*
 * The one checksum rule, the kernel framer's (enum gpsphc_csum in the
 * family's spec): trailing CR/LF dropped, @s must start with '$' or '!'
 * (else NMEA_E_FRAME); it ends in '*' and two hex digits (either case)
 * equal to the XOR of the bytes between: NMEA_OK (GPSPHC_CSUM_OK); it
 * holds no '*' after the start: NMEA_E_NO_CHECKSUM (GPSPHC_CSUM_MISSING);
 * anything else: NMEA_E_CHECKSUM (GPSPHC_CSUM_BAD). Whatever the sentence
 * type: a good checksum is what coarse mode counts (a sentence that may
 * start a second), not a promise that the sentence parses.
 */
int nmea_checksum_check(const char *s, size_t len);

/*
 * Parse one sentence of @len bytes (no NUL needed) whose checksum verdict
 * @csum is known: NMEA_OK, NMEA_E_NO_CHECKSUM or NMEA_E_CHECKSUM, from
 * nmea_checksum_check() or the kernel's framer (GPSPHC_A_SENT_CSUM), which
 * checked it already. Returns NMEA_OK and fills @m, or an enum nmea_err
 * with the reason in @e.
 */
int nmea_parse_checked(const char *s, size_t len, int csum,
		       struct nmea_msg *m, struct gp_err *e);

/* XOR of the bytes between '$' and '*' (exclusive): what "*hh" holds. */
uint8_t nmea_checksum(const char *body, size_t len);

/* nmea_parse_checked() with nmea_checksum_check()'s verdict. */
int nmea_parse(const char *s, size_t len, struct nmea_msg *m,
	       struct gp_err *e);

const char *nmea_kind_name(enum nmea_kind k);
const char *nmea_err_name(int err);

#endif /* GPSPHC_NMEA_H */
