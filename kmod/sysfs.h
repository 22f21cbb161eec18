/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc: the sysfs attributes of /sys/class/gpsphc/gpsphc<id> (sysfs.c),
 * which the class gives every device.
 */
#ifndef _GPSPHC_SYSFS_H
#define _GPSPHC_SYSFS_H

#include <linux/device.h>
#include <linux/types.h>

#include "uapi/linux/gpsphc.h"

/**
 * struct gpsphc_servo_field - one value of the servo's status
 * @attr:	its sysfs file
 * @type:	its netlink type in the servo nest: %NLA_U32, %NLA_S64,
 *		%NLA_U64 or %NLA_FLAG; %NLA_UNSPEC where the attribute is no
 *		value (unspec, pad)
 * @names:	an enumeration's names, which its file shows, or NULL
 *
 * gpsphc_servo_fields[] (sysfs.c) has one for each servo attribute,
 * indexed by enum gpsphc_servo_attrs like the values that
 * gpsphc_servo_glue_status() reads: the sysfs files, the netlink nest and
 * its size all come from that one table.
 */
struct gpsphc_servo_field {
	struct device_attribute attr;
	u8 type;
	const char * const *names;
};

extern const struct attribute_group *gpsphc_dev_groups[];
extern struct gpsphc_servo_field gpsphc_servo_fields[GPSPHC_A_SERVO_MAX + 1];

#endif /* _GPSPHC_SYSFS_H */
