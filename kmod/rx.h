/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc: the receive path (rx.c): the bytes the tty layer hands the
 * discipline, timestamped and framed into sentences.
 */
#ifndef _GPSPHC_RX_H
#define _GPSPHC_RX_H

#include <linux/types.h>

struct gpsphc_dev;

void gpsphc_rx_init(struct gpsphc_dev *gdev);
void gpsphc_rx_chunk(struct gpsphc_dev *gdev, const u8 *cp, const u8 *fp,
		     size_t count);
void gpsphc_rx_offered(struct gpsphc_dev *gdev, const u8 *cp, const u8 *fp,
		       size_t count);
size_t gpsphc_rx_consumed(struct gpsphc_dev *gdev, size_t taken,
			  size_t count);
void gpsphc_rx_lookahead(struct gpsphc_dev *gdev, const u8 *cp,
			 const u8 *fp, size_t count);
void gpsphc_rx_flushed(struct gpsphc_dev *gdev);

#endif /* _GPSPHC_RX_H */
