/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc: the clock's status, value by value (clock_fields.c): what the
 * interfaces that show it, sysfs and netlink, share without calling one
 * another.
 */
#ifndef _GPSPHC_CLOCK_FIELDS_H
#define _GPSPHC_CLOCK_FIELDS_H

#include <linux/types.h>

#include "uapi/linux/gpsphc.h"

/* Room for a value's name, its NUL included. */
#define GPSPHC_FIELD_NAME_LEN	24

/**
 * struct gpsphc_servo_field - one value of the servo's status
 * @name:	its name, which is its sysfs file's; empty where the
 *		attribute is no value (unspec, pad)
 * @type:	its netlink type in the servo nest: %NLA_U32, %NLA_S64,
 *		%NLA_U64 or %NLA_FLAG; %NLA_UNSPEC where the attribute is no
 *		value
 * @names:	an enumeration's names, which its file shows, or NULL
 *
 * gpsphc_servo_fields[] (clock_fields.c) has one for each servo
 * attribute, indexed by enum gpsphc_servo_attrs like the values that
 * gpsphc_servo_glue_status() reads: the sysfs files, the netlink nest and
 * its size all come from that one table. @name is an array, not a
 * pointer, so that sysfs can name its attributes after it in their
 * static initialisers.
 */
struct gpsphc_servo_field {
	char name[GPSPHC_FIELD_NAME_LEN];
	u8 type;
	const char * const *names;
};

extern const struct gpsphc_servo_field
gpsphc_servo_fields[GPSPHC_A_SERVO_MAX + 1];

#endif /* _GPSPHC_CLOCK_FIELDS_H */
