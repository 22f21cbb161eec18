/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc: /dev/ptpN, the PTP clock's interface to its users (ptp.c).
 */
#ifndef _GPSPHC_PTP_H
#define _GPSPHC_PTP_H

struct gpsphc_dev;

int gpsphc_ptp_register(struct gpsphc_dev *gdev);
void gpsphc_ptp_unregister(struct gpsphc_dev *gdev);

#endif /* _GPSPHC_PTP_H */
