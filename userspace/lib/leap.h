/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * leap.h - leap seconds: a built-in table, the IERS leap-seconds.list
 * (parsed from text the caller read; this library reads no files), and
 * labelling a resolved time with TAI.
 *
 * Trust, highest first: a value broadcast by the receiver (PUBX,04 without
 * the 'D' flag, PGRMF), the leap-seconds.list when its hash is right, the
 * built-in table.  Expired data is a warning, never a reason to stop.
 * One refinement: before its expiry date a table is complete (IERS
 * announces leap seconds six months ahead), so up to then the table gives
 * TAI-UTC and a receiver that disagrees (a cold-start default, a count
 * switched a second early or late) cannot mislabel; past the expiry the
 * receiver's broadcast value is the only news and is used first.
 *
 * Return values: LEAP_OK (0); a warning (LEAP_W_*: the output is valid,
 * the reason is in the gp_err); an error (LEAP_E_*: no output).
 */
#ifndef GPSPHC_LEAP_H
#define GPSPHC_LEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "era.h"
#include "gperr.h"

#define LEAP_MAX	64
#define NTP_UNIX_OFFSET	2208988800LL	/* 1900-01-01 to 1970-01-01 */

enum leap_src {
	LEAP_SRC_BUILTIN = 1,
	LEAP_SRC_LIST,
	LEAP_SRC_RECEIVER,
};

enum leap_code {
	LEAP_OK = 0,
	LEAP_W_EXPIRED = 1,	/* data past its expiry date: warn loudly */
	LEAP_W_UNKNOWN_LEAP,	/* 23:59:60 the table does not know */
	LEAP_E_MALFORMED = 16,	/* a line of the list is not understood */
	LEAP_E_NO_HASH,		/* list has no "#h" line */
	LEAP_E_BAD_HASH,	/* list's hash does not match its data */
	LEAP_E_NO_EXPIRY,	/* list has no "#@" line */
	LEAP_E_EMPTY,		/* list has no data line */
	LEAP_E_DELETED,		/* a UTC second removed by a negative leap */
};

struct leap_entry {
	int64_t utc;		/* from this UTC second on ... */
	int tai_utc;		/* ... TAI-UTC is this */
};

struct leap_table {
	struct leap_entry e[LEAP_MAX];
	size_t n;
	int64_t updated;	/* UTC seconds of the last update, 0 unknown */
	int64_t expires;	/* UTC seconds after which it may be stale */
	enum leap_src src;
};

struct leap_label {
	int64_t tai;		/* PTP seconds (TAI since 1970) */
	int64_t utc;		/* UTC seconds (23:59:60 -> next 00:00:00) */
	bool sec60;
	int tai_utc;		/* TAI-UTC for this second */
	enum leap_src src;	/* where tai_utc came from */
};

/* The built-in table (last resort), with its own expiry. */
void leap_builtin(struct leap_table *t);

/*
 * Parse the text of an IERS/NIST leap-seconds.list.  The "#h" SHA-1 is
 * computed, as the file's comments and the NTP reference implementation
 * describe, over the digits of the "#$" and "#@" values and of the first
 * two fields of every data line, in file order.
 */
int leap_parse_list(const char *text, size_t len, struct leap_table *t,
		    struct gp_err *e);

/* LEAP_W_EXPIRED (with the dates in @e) if @utc is past t->expires. */
int leap_check_expiry(const struct leap_table *t, int64_t utc,
		      struct gp_err *e);

/* TAI-UTC in force at UTC second @utc (not during a 23:59:60). */
int leap_offset(const struct leap_table *t, int64_t utc);

/*
 * Next change after UTC second @utc: fills @next and returns true, e.g.
 * to tell the kernel of a pending leap second.
 */
bool leap_next(const struct leap_table *t, int64_t utc,
	       struct leap_entry *next);

/*
 * TAI of a resolved time.  @rx_leap is the receiver's broadcast GPS-UTC
 * (negative when it has none or only a firmware default); it is used
 * after the table's expiry (see above).  A GPS-time source (r->gps_valid)
 * gives TAI exactly, whatever the leap count; its UTC then comes from the
 * table, or after expiry from the receiver's own UTC.
 */
int leap_label(const struct leap_table *t, const struct era_result *r,
	       int rx_leap, struct leap_label *out, struct gp_err *e);

/* UTC of PTP seconds @tai by the table (sets @sec60 during an insertion). */
void leap_utc_from_tai(const struct leap_table *t, int64_t tai,
		       int64_t *utc, bool *sec60, int *tai_utc);

#endif /* GPSPHC_LEAP_H */
