/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc: PPS edges on DCD (pps.c), timestamped in the interrupt, and the
 * device's standard PPS source (/dev/ppsN).
 */
#ifndef _GPSPHC_PPS_H
#define _GPSPHC_PPS_H

#include <linux/types.h>

#include "uapi/linux/gpsphc.h"

struct gpsphc_dev;
struct system_time_snapshot;

int gpsphc_pps_register(struct gpsphc_dev *gdev);
void gpsphc_pps_unregister(struct gpsphc_dev *gdev);
void gpsphc_pps_capture(struct gpsphc_dev *gdev,
			const struct system_time_snapshot *snap, bool active);
void gpsphc_pps_set_edge(struct gpsphc_dev *gdev, enum gpsphc_edge edge);

#endif /* _GPSPHC_PPS_H */
