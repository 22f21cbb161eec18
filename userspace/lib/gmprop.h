/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gmprop.h - what a PTP grandmaster fed by the gpsphc clock announces, from
 * the servo's state and the leap-second state: clockClass, clockAccuracy,
 * offsetScaledLogVariance, currentUtcOffset, the timePropertiesDS flags
 * and timeSource, as ptp4l's GRANDMASTER_SETTINGS_NP carries them.
 * A pure function of its inputs (the caller reads the clock); the rules
 * are in Documentation/admin-guide/gpsphc-grandmaster.rst and the test
 * (tests/test_gmprop.c) goes through every state.
 */
#ifndef GPSPHC_GMPROP_H
#define GPSPHC_GMPROP_H

#include <stdbool.h>
#include <stdint.h>

#include "gperr.h"
#include "linux/gpsphc.h"
#include "ptpmgmt.h"

/* Where the clockClass goes once holdover is out of its specification. */
enum gmp_profile {
	GMP_PROFILE_DEFAULT = 1,	/* 248: the default profile's default */
	GMP_PROFILE_G8275_A,		/* 52: degradation alternative A */
	GMP_PROFILE_G8275_B,		/* 187: degradation alternative B */
};

/* clockClass values (IEEE 1588-2008 Table 5) */
#define GMP_CLASS_LOCKED	6
#define GMP_CLASS_HOLDOVER	7
#define GMP_CLASS_DEGRADED_A	52
#define GMP_CLASS_DEGRADED_B	187
#define GMP_CLASS_DEFAULT	248

/* clockAccuracy values (Table 6): 0x20 25 ns ... 0x31 > 10 s, 0xFE unknown */
#define GMP_ACC_1US		0x23
#define GMP_ACC_10MS		0x2B
#define GMP_ACC_UNKNOWN		0xFE

/* offsetScaledLogVariance: G.8275.1's PRTC value, and "not computed" */
#define GMP_VAR_PRTC		0x4E5D
#define GMP_VAR_UNKNOWN		0xFFFF

/* Leap flags go up this long before the midnight that ends the leap day. */
#define GMP_LEAP_NOTICE_S	43200

struct gmp_cfg {
	enum gmp_profile profile;
	uint32_t holdover_s;		/* class 7 for this long in holdover */
	uint8_t accuracy;		/* clockAccuracy while locked to the PPS */
	uint8_t coarse_accuracy;	/* ... and in coarse mode (no PPS) */
	int16_t utc_offset;		/* currentUtcOffset while not known */
	/*
	 * The grandmaster's clock runs UTC, not TAI (ptp4l with software
	 * timestamping serves CLOCK_REALTIME as it is): ptpTimescale stays
	 * off, else every client would be TAI - UTC seconds off.
	 */
	bool arb_timescale;
	/* For the I/O (ptp4l_gm.c), parsed here with the rest: */
	uint8_t domain;			/* ptp4l's domainNumber */
	uint32_t refresh_s;		/* SET again after this long */
};

#define GMP_DEF_HOLDOVER_S	300
#define GMP_DEF_UTC_OFFSET	37
#define GMP_DEF_REFRESH_S	60

struct gmp_input {
	int state;			/* enum gpsphc_servo_state */
	bool coarse;			/* no PPS: sentence starts steer */
	uint64_t holdover_s;		/* since the last edge, in holdover */
	uint32_t tai_utc;		/* TAI - UTC, 0 if unknown */
	int leap;			/* enum gpsphc_leap */
	int64_t leap_utc;		/* the midnight ending the leap day */
	int64_t now_utc;		/* POSIX seconds, for the notice */
};

void gmp_defaults(struct gmp_cfg *c);

/*
 * Parse "KEY=VALUE[,KEY=VALUE...]" into @c (over its current values):
 * profile=default|g8275a|g8275b, holdover=SECONDS, accuracy=0xNN,
 * coarse-accuracy=0xNN, utc-offset=SECONDS, timescale=ptp|arb, domain=N,
 * refresh=SECONDS.
 * Returns 0, or -1 with the reason in @e.
 */
int gmp_parse(const char *spec, struct gmp_cfg *c, struct gp_err *e);

/* The settings a grandmaster announces for @in. */
void gmp_map(const struct gmp_cfg *c, const struct gmp_input *in,
	     struct ptpm_gm_settings *out);

#endif /* GPSPHC_GMPROP_H */
