/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * servo_status.h - the kernel's servo status, the GPSPHC_A_DEV_SERVO nest
 * of a dev-get reply or a state-ntf (the servo attribute set of
 * Documentation/netlink/specs/gpsphc.yaml), decoded once into a plain
 * struct for everything in gpsphcd that reads it: --status, live mode,
 * the metrics and the ptp4l client.
 *
 * Pure: it takes the nest and returns values, reads no clock, no file and
 * no global state. Each attribute is checked against a policy of its type
 * in the spec before it is read (a u32 is 4 bytes, a u64 or s64 8, a flag
 * none), so a malformed attribute is refused, with what was wrong, rather
 * than read past its end. Attributes it does not know (a newer module's)
 * are ignored, as the spec asks: attributes are only ever added.
 */
#ifndef GPSPHCD_SERVO_STATUS_H
#define GPSPHCD_SERVO_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linux/gpsphc.h"

struct nlattr;

/* Each value is 0 (false) when the kernel leaves its attribute out. */
struct servo_status {
	uint64_t present;	/* bit N: attribute GPSPHC_A_SERVO_N came */
	uint32_t state;		/* enum gpsphc_servo_state */
	int64_t offset_ns;
	uint64_t rms_ns;
	int64_t freq_ppb;
	uint32_t tai_utc;	/* TAI - UTC, s */
	uint32_t leap;		/* enum gpsphc_leap */
	uint64_t leap_utc;	/* the midnight that ends the leap day */
	uint64_t holdover_s;
	bool coarse;		/* no PPS: the servo steers by sentences */
	uint32_t off_phase_count;
	int64_t off_phase_ns;
	/*
	 * The counters (labels, steps, ..., rephases) by attribute: those
	 * names.h's gp_servo_counter_key() names, 0 elsewhere.
	 */
	uint64_t counters[GPSPHC_A_SERVO_MAX + 1];
};

_Static_assert(GPSPHC_A_SERVO_MAX < 64, "servo_status.present has a bit per attribute");

/* Did attribute @attr (GPSPHC_A_SERVO_*) come? */
static inline bool servo_status_has(const struct servo_status *s,
				    unsigned int attr)
{
	return attr <= GPSPHC_A_SERVO_MAX && (s->present >> attr & 1);
}

/*
 * Decode @nest (GPSPHC_A_DEV_SERVO; NULL, from a module that does not send
 * it, is an empty status) into *@s: 0, or a negative libnl error
 * (-NLE_RANGE) with *@s empty and @why (@size bytes) saying which
 * attribute was malformed and how, e.g. "attribute offset-ns (2) is 4
 * bytes long: an s64 takes 8".
 */
int servo_status_parse(struct nlattr *nest, struct servo_status *s,
		       char *why, size_t size);

/* The spec's name of servo attribute @attr ("offset-ns"), or NULL. */
const char *servo_status_attr_name(unsigned int attr);

#endif /* GPSPHCD_SERVO_STATUS_H */
