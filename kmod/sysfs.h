/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc: the sysfs attributes of /sys/class/gpsphc/gpsphc<id> (sysfs.c),
 * which the class gives every device.
 */
#ifndef _GPSPHC_SYSFS_H
#define _GPSPHC_SYSFS_H

struct attribute_group;

extern const struct attribute_group *gpsphc_dev_groups[];

#endif /* _GPSPHC_SYSFS_H */
