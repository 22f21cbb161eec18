// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: every counter of a device in one array, for netlink's dev-get
 * and the files in statistics/: the framer's, the PPS capture's and the
 * servo's count of seconds.
 */

#include "gpsphc.h"

/**
 * gpsphc_dev_stats() - read every counter of a device
 * @gdev: the device
 * @stats: filled, indexed by enum gpsphc_stats_attrs
 *
 * The framer counters are written by the receive path without a lock;
 * each is read once, whole (64-bit loads), so a reader sees every counter
 * at some recent value.
 */
void gpsphc_dev_stats(struct gpsphc_dev *gdev, u64 *stats)
{
	const struct gpsphc_framer_counters *fc = &gdev->framer.counters;
	unsigned long flags;

	stats[GPSPHC_A_STATS_UNSPEC] = 0;
	stats[GPSPHC_A_STATS_SENTENCES] = READ_ONCE(fc->sentences);
	stats[GPSPHC_A_STATS_CSUM_OK] = READ_ONCE(fc->csum_ok);
	stats[GPSPHC_A_STATS_CSUM_MISSING] = READ_ONCE(fc->csum_missing);
	stats[GPSPHC_A_STATS_CSUM_BAD] = READ_ONCE(fc->csum_bad);
	stats[GPSPHC_A_STATS_OVERLONG] = READ_ONCE(fc->overlong);
	stats[GPSPHC_A_STATS_TRUNCATED] = READ_ONCE(fc->truncated);
	stats[GPSPHC_A_STATS_INVALID] = READ_ONCE(fc->invalid);
	stats[GPSPHC_A_STATS_FLAG_ABORTS] = READ_ONCE(fc->flag_aborts);
	stats[GPSPHC_A_STATS_FLAG_BYTES] = READ_ONCE(fc->flag_bytes);
	stats[GPSPHC_A_STATS_NOISE_BYTES] = READ_ONCE(fc->noise_bytes);
	stats[GPSPHC_A_STATS_BINARY_FRAMES] = READ_ONCE(fc->binary_frames);
	stats[GPSPHC_A_STATS_BINARY_BAD] = READ_ONCE(fc->binary_bad);

	stats[GPSPHC_A_STATS_PPS_EDGES] = atomic64_read(&gdev->pps_edges);
	stats[GPSPHC_A_STATS_EVENTS_DROPPED] = gpsphc_events_dropped(gdev);
	/* The servo's count of seconds is the only one. */
	spin_lock_irqsave(&gdev->phc_lock, flags);
	stats[GPSPHC_A_STATS_PPS_MISSED] = gdev->servo.counters.missed;
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
	stats[GPSPHC_A_STATS_PAD] = 0;
}
