// SPDX-License-Identifier: GPL-2.0-only
/* names.c - the words for the gpsphc family's enums.  See names.h. */
#include <stddef.h>
#include <string.h>

#include "linux/gpsphc.h"
#include "names.h"

#define N(tab)	(sizeof(tab) / sizeof((tab)[0]))
/* Values of an enum, 0 (none: the spec's enums start at 1) included. */
#define GP_VALUES	6

/* Each enum's words by value, as the spec lists its entries. */
static const struct {
	const char *spec;
	const char *word[GP_VALUES];
} gp_enums[GP_ENUM_COUNT] = {
	[GP_ENUM_EDGE] = { "edge", { NULL, "rising", "falling" } },
	[GP_ENUM_CSUM] = { "csum", { NULL, "ok", "missing", "bad" } },
	[GP_ENUM_SCALE] = { "scale", { NULL, "tai", "utc" } },
	[GP_ENUM_CLOCK_SERVO] = { "clock-servo", { NULL, "bank", "pi" } },
	[GP_ENUM_LEAP] = { "leap", { NULL, "none", "insert", "delete" } },
	[GP_ENUM_SERVO_STATE] = { "servo-state",
		{ NULL, "unlocked", "locking", "locked", "holdover", "off" } },
};

_Static_assert(GPSPHC_EDGE_MAX < GP_VALUES && GPSPHC_CSUM_MAX < GP_VALUES &&
	       GPSPHC_SCALE_MAX < GP_VALUES && GPSPHC_LEAP_MAX < GP_VALUES &&
	       GPSPHC_SERVO_MAX < GP_VALUES &&
	       GPSPHC_CLOCK_SERVO_MAX < GP_VALUES, "raise GP_VALUES");

const char *gp_enum_name(enum gp_enum e, uint32_t v)
{
	if ((unsigned int)e >= GP_ENUM_COUNT || v >= GP_VALUES ||
	    !gp_enums[e].word[v])
		return "unknown";
	return gp_enums[e].word[v];
}

uint32_t gp_enum_value(enum gp_enum e, const char *word)
{
	uint32_t v;

	for (v = 1; (unsigned int)e < GP_ENUM_COUNT && v < GP_VALUES; v++)
		if (gp_enums[e].word[v] && !strcmp(gp_enums[e].word[v], word))
			return v;
	return 0;
}

const char *gp_enum_spec_name(enum gp_enum e)
{
	return (unsigned int)e < GP_ENUM_COUNT ? gp_enums[e].spec : NULL;
}

uint32_t gp_enum_max(enum gp_enum e)
{
	uint32_t v = 1;

	if ((unsigned int)e >= GP_ENUM_COUNT)
		return 0;
	while (v < GP_VALUES && gp_enums[e].word[v])
		v++;
	return v - 1;
}

/* By attribute number, as the spec lists the stats set. */
static const char *const gp_stats_keys[] = {
	NULL, "sentences", "csum_ok", "csum_missing", "csum_bad", "overlong",
	"truncated", "invalid", "flag_aborts", "flag_bytes", "noise_bytes",
	"binary_frames", "binary_bad", "pps_edges", "pps_missed",
	"events_dropped",
};

_Static_assert(N(gp_stats_keys) == GPSPHC_A_STATS_EVENTS_DROPPED + 1,
	       "a stats counter without its key");

static const char *const gp_servo_counter_keys[GPSPHC_A_SERVO_MAX + 1] = {
	[GPSPHC_A_SERVO_LABELS] = "labels",
	[GPSPHC_A_SERVO_LABELS_REFUSED] = "labels_refused",
	[GPSPHC_A_SERVO_DISAGREEMENTS] = "disagreements",
	[GPSPHC_A_SERVO_STEPS] = "steps",
	[GPSPHC_A_SERVO_OUTLIERS] = "outliers",
	[GPSPHC_A_SERVO_SPURIOUS] = "spurious",
	[GPSPHC_A_SERVO_RELOCKS] = "relocks",
	[GPSPHC_A_SERVO_HOLDOVERS] = "holdovers",
	[GPSPHC_A_SERVO_REPHASES] = "rephases",
};

const char *gp_stats_key(unsigned int attr)
{
	return attr < N(gp_stats_keys) ? gp_stats_keys[attr] : NULL;
}

const char *gp_servo_counter_key(unsigned int attr)
{
	return attr < N(gp_servo_counter_keys) ? gp_servo_counter_keys[attr] :
	       NULL;
}
