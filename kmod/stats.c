// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: every counter of a device in one array, for netlink's dev-get
 * and the files in statistics/: the framer's, the PPS capture's and the
 * servo's count of seconds.
 */

#include "dev.h"
#include "events.h"
#include "framer.h"
#include "servo/servo.h"
#include "servo_glue.h"
#include "stats.h"

/**
 * gpsphc_dev_stats() - read every counter of a device
 * @gdev: the device
 * @stats: filled, indexed by enum gpsphc_stats_attrs
 *
 * The receive path writes the framer counters without a lock, each change
 * an update of the framer's u64_stats_sync: every counter is read whole,
 * also on a 32-bit CPU.
 *
 * Context: process; takes servo_lock.
 */
void gpsphc_dev_stats(struct gpsphc_dev *gdev, u64 *stats)
{
	const struct gpsphc_framer *f = &gdev->framer;
	const struct gpsphc_framer_counters *fc = &f->counters;
	struct gpsphc_servo_counters sc;
	unsigned int start;

	stats[GPSPHC_A_STATS_UNSPEC] = 0;
	do {
		start = u64_stats_fetch_begin(&f->syncp);
		stats[GPSPHC_A_STATS_SENTENCES] = u64_stats_read(&fc->sentences);
		stats[GPSPHC_A_STATS_CSUM_OK] = u64_stats_read(&fc->csum_ok);
		stats[GPSPHC_A_STATS_CSUM_MISSING] = u64_stats_read(&fc->csum_missing);
		stats[GPSPHC_A_STATS_CSUM_BAD] = u64_stats_read(&fc->csum_bad);
		stats[GPSPHC_A_STATS_OVERLONG] = u64_stats_read(&fc->overlong);
		stats[GPSPHC_A_STATS_TRUNCATED] = u64_stats_read(&fc->truncated);
		stats[GPSPHC_A_STATS_INVALID] = u64_stats_read(&fc->invalid);
		stats[GPSPHC_A_STATS_FLAG_ABORTS] = u64_stats_read(&fc->flag_aborts);
		stats[GPSPHC_A_STATS_FLAG_BYTES] = u64_stats_read(&fc->flag_bytes);
		stats[GPSPHC_A_STATS_NOISE_BYTES] = u64_stats_read(&fc->noise_bytes);
		stats[GPSPHC_A_STATS_BINARY_FRAMES] = u64_stats_read(&fc->binary_frames);
		stats[GPSPHC_A_STATS_BINARY_BAD] = u64_stats_read(&fc->binary_bad);
	} while (u64_stats_fetch_retry(&f->syncp, start));

	stats[GPSPHC_A_STATS_PPS_EDGES] = atomic64_read(&gdev->pps_edges);
	/* Lost on the way from the interrupt to the clock, wherever. */
	stats[GPSPHC_A_STATS_EVENTS_DROPPED] = gpsphc_events_dropped(gdev) +
		atomic64_read(&gdev->pps_lost);
	/* The servo's count of seconds is the only one. */
	gpsphc_servo_glue_counters(gdev, &sc);
	stats[GPSPHC_A_STATS_PPS_MISSED] = sc.missed;
	stats[GPSPHC_A_STATS_PAD] = 0;
}
