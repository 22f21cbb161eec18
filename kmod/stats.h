/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc: every counter of a device in one array (stats.c), indexed by
 * enum gpsphc_stats_attrs, for netlink and sysfs.
 */
#ifndef _GPSPHC_STATS_H
#define _GPSPHC_STATS_H

#include <linux/types.h>

struct gpsphc_dev;

void gpsphc_dev_stats(struct gpsphc_dev *gdev, u64 *stats);

#endif /* _GPSPHC_STATS_H */
