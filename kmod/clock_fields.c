// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: the clock's status, value by value. gpsphc_servo_glue_status()
 * reads the values into an array indexed by enum gpsphc_servo_attrs; this
 * table says what each is: its name, its netlink type and its
 * enumeration's names. sysfs names its files after it and shows the
 * names; netlink puts and sizes the servo nest from it. It belongs to the
 * clock, whose values it describes, so that the interfaces share it
 * rather than one of them owning it and the other calling into that one.
 */

#include <linux/build_bug.h>
#include <net/netlink.h>

#include "clock_fields.h"

static const char * const gpsphc_state_names[] = {
	[GPSPHC_SERVO_UNLOCKED] = "unlocked",
	[GPSPHC_SERVO_LOCKING] = "locking",
	[GPSPHC_SERVO_LOCKED] = "locked",
	[GPSPHC_SERVO_HOLDOVER] = "holdover",
	[GPSPHC_SERVO_OFF] = "off",
};

static const char * const gpsphc_leap_names[] = {
	[GPSPHC_LEAP_NONE] = "none",
	[GPSPHC_LEAP_INSERT] = "insert",
	[GPSPHC_LEAP_DELETE] = "delete",
};

/*
 * GPSPHC_SF() gives attribute @_attr its name @_name (which must fit
 * GPSPHC_FIELD_NAME_LEN with its NUL), netlink type @_type and
 * enumeration @_names.
 */
#define GPSPHC_SF(_attr, _name, _type, _names)				\
	[_attr] = {							\
		.name = _name,						\
		.type = (_type) + BUILD_BUG_ON_ZERO(sizeof(_name) >	\
						  GPSPHC_FIELD_NAME_LEN), \
		.names = _names,					\
	}

const struct gpsphc_servo_field gpsphc_servo_fields[GPSPHC_A_SERVO_MAX + 1] = {
	GPSPHC_SF(GPSPHC_A_SERVO_STATE, "servo_state", NLA_U32,
		  gpsphc_state_names),
	GPSPHC_SF(GPSPHC_A_SERVO_OFFSET_NS, "offset_ns", NLA_S64, NULL),
	GPSPHC_SF(GPSPHC_A_SERVO_RMS_NS, "rms_ns", NLA_U64, NULL),
	GPSPHC_SF(GPSPHC_A_SERVO_FREQ_PPB, "freq_ppb", NLA_S64, NULL),
	GPSPHC_SF(GPSPHC_A_SERVO_TAI_UTC, "tai_utc", NLA_U32, NULL),
	GPSPHC_SF(GPSPHC_A_SERVO_LEAP, "leap", NLA_U32, gpsphc_leap_names),
	GPSPHC_SF(GPSPHC_A_SERVO_LEAP_UTC, "leap_utc", NLA_U64, NULL),
	GPSPHC_SF(GPSPHC_A_SERVO_HOLDOVER_S, "holdover_s", NLA_U64, NULL),
	GPSPHC_SF(GPSPHC_A_SERVO_COARSE, "coarse", NLA_FLAG, NULL),
	GPSPHC_SF(GPSPHC_A_SERVO_LABELS, "labels", NLA_U64, NULL),
	GPSPHC_SF(GPSPHC_A_SERVO_LABELS_REFUSED, "labels_refused", NLA_U64,
		  NULL),
	GPSPHC_SF(GPSPHC_A_SERVO_DISAGREEMENTS, "disagreements", NLA_U64, NULL),
	GPSPHC_SF(GPSPHC_A_SERVO_STEPS, "steps", NLA_U64, NULL),
	GPSPHC_SF(GPSPHC_A_SERVO_OUTLIERS, "outliers", NLA_U64, NULL),
	GPSPHC_SF(GPSPHC_A_SERVO_SPURIOUS, "pps_spurious", NLA_U64, NULL),
	GPSPHC_SF(GPSPHC_A_SERVO_RELOCKS, "relocks", NLA_U64, NULL),
	GPSPHC_SF(GPSPHC_A_SERVO_HOLDOVERS, "holdovers", NLA_U64, NULL),
	GPSPHC_SF(GPSPHC_A_SERVO_OFF_PHASE_COUNT, "off_phase_count", NLA_U32,
		  NULL),
	GPSPHC_SF(GPSPHC_A_SERVO_OFF_PHASE_NS, "off_phase_ns", NLA_S64, NULL),
	GPSPHC_SF(GPSPHC_A_SERVO_REPHASES, "rephases", NLA_U64, NULL),
};
