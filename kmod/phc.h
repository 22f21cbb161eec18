/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc: the time base of a device's PTP hardware clock (phc.c), for the
 * servo glue and /dev/ptpN (ptp.c). Every function named *_locked wants
 * the device's phc_lock held.
 */
#ifndef _GPSPHC_PHC_H
#define _GPSPHC_PHC_H

#include <linux/math64.h>
#include <linux/spinlock.h>
#include <linux/time64.h>
#include <linux/types.h>

#include "dev.h"
#include "uapi/linux/gpsphc.h"

/* The clock's rate range, for the servo and adjfine: 500 ppm. */
#define GPSPHC_MAX_ADJ_PPB	500000

void gpsphc_phc_init(struct gpsphc_dev *gdev);
s64 gpsphc_phc_read_locked(struct gpsphc_dev *gdev, u64 raw);
u64 gpsphc_phc_change_from_locked(struct gpsphc_dev *gdev, u64 raw);
void gpsphc_phc_set_adj_locked(struct gpsphc_dev *gdev, u64 raw, s64 adj);
void gpsphc_phc_step_locked(struct gpsphc_dev *gdev, u64 raw, s64 delta_ns);
void gpsphc_phc_leap_retire_locked(struct gpsphc_dev *gdev, s64 tai);
void gpsphc_phc_extts(struct gpsphc_dev *gdev, u64 raw);

/*
 * What every on-time edge asks of the clock is inline: the time base's
 * arithmetic, and the check that finds nothing to do (no leap second
 * pending), which then costs neither a call nor the TAI time it would be
 * handed.
 */

/* adj units per ppb: 2^-16 ppb resolution, as scaled_ppm has 2^-16 ppm. */
#define GPSPHC_ADJ_PER_PPB	65536LL
#define GPSPHC_ADJ_DIV		(NSEC_PER_SEC * 65536ULL)

/* @d * adj / (1e9 * 2^16), exact for any d and adj in range. */
static inline s64 gpsphc_phc_scale(s64 d, s64 adj)
{
	u64 c = mul_u64_u64_div_u64(abs(d), abs(adj), GPSPHC_ADJ_DIV);

	return (d < 0) != (adj < 0) ? -(s64)c : (s64)c;
}

/**
 * gpsphc_phc_tai_locked() - the clock's TAI time at a raw instant
 * @gdev: the device
 * @raw: CLOCK_MONOTONIC_RAW ns, before or after the base
 *
 * Context: phc_lock held.
 * Return: TAI ns since 1970.
 */
static inline s64 gpsphc_phc_tai_locked(const struct gpsphc_dev *gdev,
					u64 raw)
{
	s64 d = (s64)(raw - gdev->phc_base_raw);

	lockdep_assert_held(&gdev->phc_lock);
	return gdev->phc_base_ns + d + gpsphc_phc_scale(d, gdev->phc_adj);
}

/**
 * gpsphc_phc_leap_done_locked() - retire a leap second once it is past
 * @gdev: the device
 * @raw: CLOCK_MONOTONIC_RAW ns of the input just applied
 *
 * The clock's time at @raw is computed only when a leap second is
 * pending: with none, an edge pays for no second TAI time.
 *
 * Context: phc_lock held.
 */
static inline void gpsphc_phc_leap_done_locked(struct gpsphc_dev *gdev,
					       u64 raw)
{
	lockdep_assert_held(&gdev->phc_lock);
	if (gdev->leap != GPSPHC_LEAP_NONE)
		gpsphc_phc_leap_retire_locked(gdev,
					      gpsphc_phc_tai_locked(gdev, raw));
}

#endif /* _GPSPHC_PHC_H */
