// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: the receive path. Every chunk the tty layer hands the discipline
 * is timestamped on entry and framed into sentences; n_tty then gets the
 * same bytes unchanged.
 */

#include <linux/tty.h>

#include "gpsphc.h"

/* A character on an 8N1 line is 10 bits. */
static u32 gpsphc_byte_ns(struct tty_struct *tty)
{
	speed_t baud = tty_get_baud_rate(tty);

	return baud ? DIV_ROUND_CLOSEST(10 * NSEC_PER_SEC, baud) : 0;
}

static void gpsphc_rx_emit(void *ctx, const struct gpsphc_sentence *s)
{
	gpsphc_notify_sentence(ctx, s);
}

/**
 * gpsphc_rx_init() - set up the framer of a new device
 * @gdev: the device, its tty set
 */
void gpsphc_rx_init(struct gpsphc_dev *gdev)
{
	gpsphc_framer_init(&gdev->framer, gpsphc_byte_ns(gdev->tty),
			   gpsphc_rx_emit, gdev);
}

/**
 * gpsphc_rx_chunk() - frame a chunk of received bytes
 * @gdev: the device
 * @cp: the bytes
 * @fp: their TTY_* flags, or NULL
 * @count: number of bytes
 *
 * Context: the tty's receive path (process context, one call at a time
 * per tty).
 */
void gpsphc_rx_chunk(struct gpsphc_dev *gdev, const u8 *cp, const u8 *fp,
		     size_t count)
{
	struct system_time_snapshot snap;

	ktime_get_snapshot(&snap);
	gdev->rx_real_offset_ns = ktime_to_ns(ktime_sub(snap.real, snap.raw));
	/* The line speed may have changed since the last chunk. */
	gpsphc_framer_set_byte_ns(&gdev->framer, gpsphc_byte_ns(gdev->tty));

	mutex_lock(&gdev->ntf_lock);
	/* Edges that came before this chunk are notified before its sentences. */
	gpsphc_pps_flush_locked(gdev);
	gpsphc_framer_feed(&gdev->framer, cp, fp, count, ktime_to_ns(snap.raw));
	mutex_unlock(&gdev->ntf_lock);
}
