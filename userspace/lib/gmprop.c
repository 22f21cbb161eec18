// SPDX-License-Identifier: GPL-2.0-only
/*
 * gmprop.c - a grandmaster's announced properties from the servo and the
 * leap state (see gmprop.h and Documentation/admin-guide/
 * gpsphc-grandmaster.rst, which this code must match).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gmprop.h"

void gmp_defaults(struct gmp_cfg *c)
{
	*c = (struct gmp_cfg){
		.profile = GMP_PROFILE_DEFAULT,
		.holdover_s = GMP_DEF_HOLDOVER_S,
		.accuracy = GMP_ACC_1US,
		.coarse_accuracy = GMP_ACC_10MS,
		.utc_offset = GMP_DEF_UTC_OFFSET,
		.domain = 0,
		.refresh_s = GMP_DEF_REFRESH_S,
	};
}

static const char *const gmp_profiles[] = { NULL, "default", "g8275a", "g8275b", NULL };
static const char *const gmp_timescales[] = { NULL, "ptp", "arb", NULL };

static void gmp_set_holdover(struct gmp_cfg *c, long long v) { c->holdover_s = (uint32_t)v; }
static void gmp_set_accuracy(struct gmp_cfg *c, long long v) { c->accuracy = (uint8_t)v; }
static void gmp_set_coarse(struct gmp_cfg *c, long long v) { c->coarse_accuracy = (uint8_t)v; }
static void gmp_set_utc_offset(struct gmp_cfg *c, long long v) { c->utc_offset = (int16_t)v; }
static void gmp_set_domain(struct gmp_cfg *c, long long v) { c->domain = (uint8_t)v; }
static void gmp_set_refresh(struct gmp_cfg *c, long long v) { c->refresh_s = (uint32_t)v; }
static void gmp_set_profile(struct gmp_cfg *c, long long v) { c->profile = (enum gmp_profile)v; }
static void gmp_set_timescale(struct gmp_cfg *c, long long v) { c->arb_timescale = v == 2; }

/*
 * The keys, each with what it sets; profile and timescale take a word,
 * numbered from 1. A clockAccuracy is 0x17..0x31 or 0xFE (unknown).
 */
static const struct gmp_key {
	const char *name;
	const char *const *words;	/* NULL-terminated, or NULL: a number */
	long long lo, hi;
	bool accuracy;
	void (*set)(struct gmp_cfg *c, long long v);
	const char *what;
} gmp_keys[] = {
	{ "holdover", NULL, 0, 30 * 86400, false, gmp_set_holdover, "seconds of holdover announced as clockClass 7, 0..2592000" },
	{ "accuracy", NULL, 0x17, 0xFE, true, gmp_set_accuracy, "a clockAccuracy, 0x17..0x31 or 0xFE, e.g. 0x21 for 100 ns" },
	{ "coarse-accuracy", NULL, 0x17, 0xFE, true, gmp_set_coarse, "a clockAccuracy, 0x17..0x31 or 0xFE, e.g. 0x2B for 10 ms" },
	{ "utc-offset", NULL, 0, 1000, false, gmp_set_utc_offset, "TAI - UTC in seconds while none is known, 0..1000" },
	{ "domain", NULL, 0, 255, false, gmp_set_domain, "ptp4l's domainNumber, 0..255" },
	{ "refresh", NULL, 1, 86400, false, gmp_set_refresh, "seconds between SETs of unchanged settings, 1..86400" },
	{ "profile", gmp_profiles, 1, 3, false, gmp_set_profile, "default (clockClass 248 after holdover), g8275a (52) or g8275b (187)" },
	{ "timescale", gmp_timescales, 1, 2, false, gmp_set_timescale, "ptp (the grandmaster's clock runs TAI, as a NIC's fed from gpsphc) or arb (it runs UTC: ptp4l with software timestamping)" },
};

/* Is the @len bytes at @s the word @w? */
static bool gmp_is(const char *s, size_t len, const char *w)
{
	return strlen(w) == len && !strncmp(s, w, len);
}

/* The value of key @k in the @len bytes at @s: a word's number, or a number. */
static bool gmp_value(const struct gmp_key *k, const char *s, size_t len,
		      long long *v)
{
	char buf[24], *end;

	if (k->words) {
		for (*v = 1; k->words[*v]; (*v)++)
			if (gmp_is(s, len, k->words[*v]))
				return true;
		return false;
	}
	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*v = strtoll(buf, &end, 0);
	return !errno && !*end && *v >= k->lo && *v <= k->hi;
}

int gmp_parse(const char *spec, struct gmp_cfg *c, struct gp_err *e)
{
	const char *p = spec;

	while (*p) {
		size_t len = strcspn(p, ","), klen;
		const char *eq = memchr(p, '=', len), *val;
		long long v;
		size_t i;

		if (!eq) {
			gp_err_set(e, 1, "\"%.*s\" is not KEY=VALUE (keys: profile, holdover, accuracy, coarse-accuracy, utc-offset, timescale, domain, refresh)",
				   (int)len, p);
			return -1;
		}
		klen = (size_t)(eq - p);
		val = eq + 1;
		for (i = 0; i < sizeof(gmp_keys) / sizeof(gmp_keys[0]); i++)
			if (gmp_is(p, klen, gmp_keys[i].name))
				break;
		if (i == sizeof(gmp_keys) / sizeof(gmp_keys[0])) {
			gp_err_set(e, 1, "unknown key \"%.*s\" (keys: profile, holdover, accuracy, coarse-accuracy, utc-offset, timescale, domain, refresh)",
				   (int)klen, p);
			return -1;
		}
		if (!gmp_value(&gmp_keys[i], val, len - klen - 1, &v) ||
		    (gmp_keys[i].accuracy && v > 0x31 && v != 0xFE)) {
			gp_err_set(e, 1, "%s \"%.*s\" must be %s", gmp_keys[i].name,
				   (int)(len - klen - 1), val, gmp_keys[i].what);
			return -1;
		}
		gmp_keys[i].set(c, v);
		p += len;
		if (*p == ',' && *++p == '\0') {
			gp_err_set(e, 1, "a comma ends \"%s\": remove it", spec);
			return -1;
		}
	}
	return 0;
}

static uint8_t gmp_degraded(enum gmp_profile p)
{
	switch (p) {
	case GMP_PROFILE_G8275_A:	return GMP_CLASS_DEGRADED_A;
	case GMP_PROFILE_G8275_B:	return GMP_CLASS_DEGRADED_B;
	default:			return GMP_CLASS_DEFAULT;
	}
}

void gmp_map(const struct gmp_cfg *c, const struct gmp_input *in,
	     struct ptpm_gm_settings *out)
{
	bool labelled = in->state == GPSPHC_SERVO_LOCKED ||
			in->state == GPSPHC_SERVO_HOLDOVER ||
			in->state == GPSPHC_SERVO_LOCKING;
	bool utc_known = labelled && in->tai_utc >= 10 && in->tai_utc <= 1000;

	/* Free-running, or not yet (or no longer) steered by us. */
	*out = (struct ptpm_gm_settings){
		.clock_class = GMP_CLASS_DEFAULT,
		.clock_accuracy = GMP_ACC_UNKNOWN,
		.offset_scaled_log_variance = GMP_VAR_UNKNOWN,
		.utc_offset = c->utc_offset,
		.time_flags = c->arb_timescale ? 0 : PTPM_PTP_TIMESCALE,
		.time_source = PTPM_TS_INTERNAL_OSC,
	};
	if (in->state == GPSPHC_SERVO_LOCKED) {
		out->clock_class = GMP_CLASS_LOCKED;
		out->clock_accuracy = in->coarse ? c->coarse_accuracy : c->accuracy;
		out->offset_scaled_log_variance = GMP_VAR_PRTC;
		out->time_source = PTPM_TS_GPS;
		out->time_flags |= PTPM_TIME_TRACEABLE | PTPM_FREQ_TRACEABLE;
	} else if (in->state == GPSPHC_SERVO_HOLDOVER) {
		if (in->holdover_s <= c->holdover_s && c->holdover_s) {
			out->clock_class = GMP_CLASS_HOLDOVER;
			out->offset_scaled_log_variance = GMP_VAR_PRTC;
			out->time_flags |= PTPM_TIME_TRACEABLE | PTPM_FREQ_TRACEABLE;
		} else {
			out->clock_class = gmp_degraded(c->profile);
		}
	}
	if (!utc_known)
		return;
	out->utc_offset = (int16_t)in->tai_utc;
	out->time_flags |= PTPM_UTC_OFF_VALID;
	/*
	 * Up from GMP_LEAP_NOTICE_S before the leap (linuxptp takes the
	 * flags at most 12 hours ahead) until the kernel says it passed.
	 */
	if (in->leap_utc <= 0 || in->leap_utc % 86400 ||
	    in->now_utc < in->leap_utc - GMP_LEAP_NOTICE_S)
		return;
	if (in->leap == GPSPHC_LEAP_INSERT)
		out->time_flags |= PTPM_LEAP_61;
	else if (in->leap == GPSPHC_LEAP_DELETE)
		out->time_flags |= PTPM_LEAP_59;
}
