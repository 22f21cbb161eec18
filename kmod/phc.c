// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: the time base of an attached tty's PTP hardware clock.
 *
 * The clock is CLOCK_MONOTONIC_RAW through an adjustable rate:
 *
 *	tai_ns(raw) = base_ns + (raw - base_raw) * (1 + adj / (1e9 * 2^16))
 *
 * so syncing CLOCK_REALTIME from it (phc2sys) can never feed back into it,
 * and one ktime_get_snapshot() gives the clock and the system time at the
 * same instant (getcrosststamp, PTP_SYS_OFFSET_PRECISE). Every change of
 * rate or offset first moves the base to the instant it starts from, so
 * the mapping stays continuous: "now", or an edge's capture when no
 * reader has seen a later instant (gpsphc_phc_change_from_locked()).
 * The clock counts TAI; in UTC mode it reads TAI minus the TAI-UTC
 * offset, which changes at the exact instant of a leap second.
 * What users do to it through /dev/ptpN is ptp.c's.
 */

#include <linux/math64.h>
#include <linux/ptp_clock_kernel.h>
#include <linux/timekeeping.h>

#include "dev.h"
#include "phc.h"

/* Note that the clock's mapping was used at @raw, if later than any so far. */
static void gpsphc_phc_seen_locked(struct gpsphc_dev *gdev, u64 raw)
{
	lockdep_assert_held(&gdev->phc_lock);
	if ((s64)(raw - gdev->phc_seen_raw) > 0)
		gdev->phc_seen_raw = raw;
}

/* Move the base to @raw, keeping the mapping continuous. */
static void gpsphc_phc_rebase_locked(struct gpsphc_dev *gdev, u64 raw)
{
	lockdep_assert_held(&gdev->phc_lock);
	gdev->phc_base_ns = gpsphc_phc_tai_locked(gdev, raw);
	gdev->phc_base_raw = raw;
	gpsphc_phc_seen_locked(gdev, raw);
}

/**
 * gpsphc_phc_change_from_locked() - from when a change may apply
 * @gdev: the device
 * @raw: when the change is due, CLOCK_MONOTONIC_RAW ns: an edge's
 *	capture, or now
 *
 * A change of rate or offset from @raw on changes what the clock reads at
 * every instant after @raw. That rewrites nothing a reader got unless a
 * read was at an instant later than @raw: every read that leaves the
 * device (gpsphc_phc_read_locked()) and every move of the base notes its
 * raw time, taken under phc_lock, in @phc_seen_raw. Reads before @raw
 * keep their values (the new mapping agrees with the old up to @raw,
 * and is as continuous and monotonic after it), reads after the change
 * see the new mapping. So an edge's correction starts at its capture
 * unless someone read the clock in the microseconds between the capture
 * and the correction taking phc_lock; then it starts now, like every
 * other change, at the cost of a second clock read.
 *
 * Context: phc_lock held.
 * Return: @raw, or now.
 */
u64 gpsphc_phc_change_from_locked(struct gpsphc_dev *gdev, u64 raw)
{
	lockdep_assert_held(&gdev->phc_lock);
	if ((s64)(raw - gdev->phc_seen_raw) >= 0)
		return raw;
	return ktime_get_raw_ns();
}

/**
 * gpsphc_phc_set_adj_locked() - change the clock's rate from now on
 * @gdev: the device
 * @raw: now, CLOCK_MONOTONIC_RAW ns
 * @adj: rate correction in 2^-16 ppb
 *
 * Context: phc_lock held.
 */
void gpsphc_phc_set_adj_locked(struct gpsphc_dev *gdev, u64 raw, s64 adj)
{
	const s64 max = GPSPHC_MAX_ADJ_PPB * GPSPHC_ADJ_PER_PPB;

	lockdep_assert_held(&gdev->phc_lock);
	gpsphc_phc_rebase_locked(gdev, raw);
	gdev->phc_adj = clamp(adj, -max, max);
}

/**
 * gpsphc_phc_step_locked() - step the clock
 * @gdev: the device
 * @raw: now, CLOCK_MONOTONIC_RAW ns
 * @delta_ns: added to the clock
 *
 * Context: phc_lock held.
 */
void gpsphc_phc_step_locked(struct gpsphc_dev *gdev, u64 raw, s64 delta_ns)
{
	lockdep_assert_held(&gdev->phc_lock);
	gpsphc_phc_rebase_locked(gdev, raw);
	gdev->phc_base_ns += delta_ns;
}

/*
 * TAI - UTC at TAI instant @tai: a pending leap second takes effect at the
 * start of 23:59:60 (insertion: the UTC reading repeats 23:59:59, as
 * CLOCK_REALTIME does) or of 23:59:59 (deletion: it is skipped).
 */
static s64 gpsphc_phc_utc_offset_ns_locked(const struct gpsphc_dev *gdev,
					   s64 tai)
{
	s64 off = (s64)gdev->tai_utc * NSEC_PER_SEC;
	s64 midnight = (s64)gdev->leap_utc * NSEC_PER_SEC;

	lockdep_assert_held(&gdev->phc_lock);
	switch (gdev->leap) {
	case GPSPHC_LEAP_INSERT:
		if (tai >= midnight + off)
			return off + NSEC_PER_SEC;
		break;
	case GPSPHC_LEAP_DELETE:
		if (tai >= midnight - NSEC_PER_SEC + off)
			return off - NSEC_PER_SEC;
		break;
	default:
		break;
	}
	return off;
}

/**
 * gpsphc_phc_read_locked() - what the clock reads at a raw instant
 * @gdev: the device
 * @raw: CLOCK_MONOTONIC_RAW ns
 *
 * For a value that leaves the device (a user's read, an EXTTS event):
 * it notes @raw as seen. The servo's own reads use gpsphc_phc_tai_locked().
 *
 * Context: phc_lock held.
 * Return: ns since 1970 in the device's scale (TAI or UTC).
 */
s64 gpsphc_phc_read_locked(struct gpsphc_dev *gdev, u64 raw)
{
	s64 tai = gpsphc_phc_tai_locked(gdev, raw);

	lockdep_assert_held(&gdev->phc_lock);
	/* A reader has seen it: see gpsphc_phc_change_from_locked(). */
	gpsphc_phc_seen_locked(gdev, raw);
	if (gdev->scale == GPSPHC_SCALE_UTC)
		return tai - gpsphc_phc_utc_offset_ns_locked(gdev, tai);
	return tai;
}

/**
 * gpsphc_phc_leap_retire_locked() - retire a pending leap second if past
 * @gdev: the device
 * @tai: the clock's TAI time now
 *
 * The out-of-line half of gpsphc_phc_leap_done_locked().
 *
 * Context: phc_lock held.
 */
void gpsphc_phc_leap_retire_locked(struct gpsphc_dev *gdev, s64 tai)
{
	s64 off = gpsphc_phc_utc_offset_ns_locked(gdev, tai);

	lockdep_assert_held(&gdev->phc_lock);
	if (gdev->leap != GPSPHC_LEAP_NONE &&
	    off != (s64)gdev->tai_utc * NSEC_PER_SEC) {
		gdev->tai_utc = div_s64(off, NSEC_PER_SEC);
		gdev->leap = GPSPHC_LEAP_NONE;
		gdev->leap_utc = 0;
	}
}

/**
 * gpsphc_phc_extts() - report an on-time edge as an EXTTS event
 * @gdev: the device
 * @raw: the edge's CLOCK_MONOTONIC_RAW timestamp
 *
 * The clock's time at the edge, as it reads now (the servo corrects it
 * later, in process context; a correction then applies from this read
 * on, so the event and the clock agree). The clock's @extts input
 * handler (struct gpsphc_clock_input), which capture calls right after
 * the edge's capture. With the channel off, as it mostly is, this costs
 * no lock.
 *
 * Context: the DCD interrupt.
 */
void gpsphc_phc_extts(struct gpsphc_dev *gdev, u64 raw)
{
	struct ptp_clock_event ev = {
		.type = PTP_CLOCK_EXTTS,
		.index = 0,
	};
	unsigned long flags;

	if (!READ_ONCE(gdev->extts_on))
		return;
	spin_lock_irqsave(&gdev->phc_lock, flags);
	if (gdev->extts_on && gdev->ptp) {
		ev.timestamp = gpsphc_phc_read_locked(gdev, raw);
		ptp_clock_event(gdev->ptp, &ev);
	}
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
}

/**
 * gpsphc_phc_init() - set up the clock's time base of a new device
 * @gdev: the device, before anything can reach it
 *
 * The clock starts at CLOCK_REALTIME + 37 s (TAI as of 2017) until the
 * first label steps it.
 */
void gpsphc_phc_init(struct gpsphc_dev *gdev)
{
	struct system_time_snapshot snap;

	spin_lock_init(&gdev->phc_lock);
	ktime_get_snapshot(&snap);
	gdev->phc_base_raw = ktime_to_ns(snap.raw);
	gdev->phc_seen_raw = gdev->phc_base_raw;
	gdev->phc_base_ns = ktime_to_ns(snap.real) + 37LL * NSEC_PER_SEC;
	gdev->scale = GPSPHC_SCALE_TAI;
	gdev->tai_utc = 37;
	gdev->leap = GPSPHC_LEAP_NONE;
}
