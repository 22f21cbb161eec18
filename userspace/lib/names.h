/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * names.h - the words for the values of the gpsphc family's enums, one
 * table for all of gpsphcd: the entry names of the YAML spec
 * (Documentation/netlink/specs/gpsphc.yaml), which are also the words the
 * kernel's sysfs files print. tests/test_names.py checks this table
 * against both, so the three cannot drift apart.
 *
 * Values are those of the uAPI header (linux/gpsphc.h), generated from the
 * spec; a value gpsphcd does not know reads "unknown".
 */
#ifndef GPSPHC_NAMES_H
#define GPSPHC_NAMES_H

#include <stdint.h>

enum gp_enum {
	GP_ENUM_EDGE,		/* enum gpsphc_edge: "rising", "falling" */
	GP_ENUM_CSUM,		/* enum gpsphc_csum: "ok", "missing", "bad" */
	GP_ENUM_SCALE,		/* enum gpsphc_scale: "tai", "utc" */
	GP_ENUM_CLOCK_SERVO,	/* enum gpsphc_clock_servo: "bank", "pi" */
	GP_ENUM_LEAP,		/* enum gpsphc_leap: "none", "insert", ... */
	GP_ENUM_SERVO_STATE,	/* enum gpsphc_servo_state: "unlocked", ... */
	GP_ENUM_COUNT
};

/* The word for value @v of enum @e, or "unknown". */
const char *gp_enum_name(enum gp_enum e, uint32_t v);

/* The value of enum @e that @word names, or 0 if none does. */
uint32_t gp_enum_value(enum gp_enum e, const char *word);

/* The spec's name of enum @e ("servo-state"), and its largest value. */
const char *gp_enum_spec_name(enum gp_enum e);
uint32_t gp_enum_max(enum gp_enum e);

/*
 * The keys of the counters in gpsphcd --status (text and JSON): the
 * spec's attribute names with '_' for '-'. @attr is a GPSPHC_A_STATS_*
 * or GPSPHC_A_SERVO_* value; NULL for an attribute that is not a counter
 * shown (GPSPHC_A_SERVO_STATE, padding, ...).
 */
const char *gp_stats_key(unsigned int attr);
const char *gp_servo_counter_key(unsigned int attr);

#endif /* GPSPHC_NAMES_H */
