// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: the PTP hardware clock of an attached tty.
 *
 * The clock is CLOCK_MONOTONIC_RAW through an adjustable rate:
 *
 *	tai_ns(raw) = base_ns + (raw - base_raw) * (1 + adj / (1e9 * 2^16))
 *
 * so syncing CLOCK_REALTIME from it (phc2sys) can never feed back into it,
 * and one ktime_get_snapshot() gives the clock and the system time at the
 * same instant (getcrosststamp, PTP_SYS_OFFSET_PRECISE). Every change of
 * rate or offset first moves the base to "now", so the mapping stays
 * continuous. The clock counts TAI; in UTC mode it reads TAI minus the
 * TAI-UTC offset, which changes at the exact instant of a leap second.
 */

#include <linux/math64.h>
#include <linux/ptp_clock_kernel.h>

#include "gpsphc.h"

/* adj units per ppb: 2^-16 ppb resolution, as scaled_ppm has 2^-16 ppm. */
#define GPSPHC_ADJ_PER_PPB	65536LL
#define GPSPHC_ADJ_DIV		(NSEC_PER_SEC * 65536ULL)
/* The servo's and adjfine's range: 500 ppm. */
#define GPSPHC_MAX_ADJ_PPB	500000

#define to_gpsphc_dev_ptp(info) container_of(info, struct gpsphc_dev, ptp_info)

/* @d * adj / (1e9 * 2^16), exact for any d and adj in range. */
static s64 gpsphc_phc_scale(s64 d, s64 adj)
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
s64 gpsphc_phc_tai_locked(const struct gpsphc_dev *gdev, u64 raw)
{
	s64 d = (s64)(raw - gdev->phc_base_raw);

	lockdep_assert_held(&gdev->phc_lock);
	return gdev->phc_base_ns + d + gpsphc_phc_scale(d, gdev->phc_adj);
}

/* Move the base to @raw, keeping the mapping continuous. */
static void gpsphc_phc_rebase_locked(struct gpsphc_dev *gdev, u64 raw)
{
	lockdep_assert_held(&gdev->phc_lock);
	gdev->phc_base_ns = gpsphc_phc_tai_locked(gdev, raw);
	gdev->phc_base_raw = raw;
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
 * Context: phc_lock held.
 * Return: ns since 1970 in the device's scale (TAI or UTC).
 */
s64 gpsphc_phc_read_locked(const struct gpsphc_dev *gdev, u64 raw)
{
	s64 tai = gpsphc_phc_tai_locked(gdev, raw);

	lockdep_assert_held(&gdev->phc_lock);
	if (gdev->scale == GPSPHC_SCALE_UTC)
		return tai - gpsphc_phc_utc_offset_ns_locked(gdev, tai);
	return tai;
}

/**
 * gpsphc_phc_leap_done_locked() - retire a leap second once it is past
 * @gdev: the device
 * @tai: the clock's TAI time now
 *
 * Context: phc_lock held.
 */
void gpsphc_phc_leap_done_locked(struct gpsphc_dev *gdev, s64 tai)
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

/* A user moved the clock: the servo's count no longer holds. */
static void gpsphc_phc_user_adjusted_locked(struct gpsphc_dev *gdev)
{
	lockdep_assert_held(&gdev->phc_lock);
	gpsphc_servo_glue_reset_locked(gdev);
}

static int gpsphc_ptp_gettimex64(struct ptp_clock_info *info,
				 struct timespec64 *ts,
				 struct ptp_system_timestamp *sts)
{
	struct gpsphc_dev *gdev = to_gpsphc_dev_ptp(info);
	unsigned long flags;
	u64 raw;
	s64 ns;

	spin_lock_irqsave(&gdev->phc_lock, flags);
	ptp_read_system_prets(sts);
	raw = ktime_get_raw_ns();
	ptp_read_system_postts(sts);
	ns = gpsphc_phc_read_locked(gdev, raw);
	spin_unlock_irqrestore(&gdev->phc_lock, flags);

	*ts = ns_to_timespec64(ns);
	return 0;
}

static int gpsphc_ptp_getcrosststamp(struct ptp_clock_info *info,
				     struct system_device_crosststamp *cts)
{
	struct gpsphc_dev *gdev = to_gpsphc_dev_ptp(info);
	struct system_time_snapshot snap;
	unsigned long flags;

	/* The clock is computed from MONOTONIC_RAW: one snapshot is exact. */
	spin_lock_irqsave(&gdev->phc_lock, flags);
	ktime_get_snapshot(&snap);
	cts->device = ns_to_ktime(gpsphc_phc_read_locked(gdev,
							 ktime_to_ns(snap.raw)));
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
	cts->sys_realtime = snap.real;
	cts->sys_monoraw = snap.raw;
	return 0;
}

static int gpsphc_ptp_settime64(struct ptp_clock_info *info,
				const struct timespec64 *ts)
{
	struct gpsphc_dev *gdev = to_gpsphc_dev_ptp(info);
	s64 want = timespec64_to_ns(ts);
	unsigned long flags;
	u64 raw;

	spin_lock_irqsave(&gdev->phc_lock, flags);
	raw = ktime_get_raw_ns();
	gpsphc_phc_step_locked(gdev, raw,
			       want - gpsphc_phc_read_locked(gdev, raw));
	gpsphc_phc_user_adjusted_locked(gdev);
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
	return 0;
}

static int gpsphc_ptp_adjtime(struct ptp_clock_info *info, s64 delta)
{
	struct gpsphc_dev *gdev = to_gpsphc_dev_ptp(info);
	unsigned long flags;

	spin_lock_irqsave(&gdev->phc_lock, flags);
	gpsphc_phc_step_locked(gdev, ktime_get_raw_ns(), delta);
	gpsphc_phc_user_adjusted_locked(gdev);
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
	return 0;
}

static int gpsphc_ptp_adjfine(struct ptp_clock_info *info, long scaled_ppm)
{
	struct gpsphc_dev *gdev = to_gpsphc_dev_ptp(info);
	unsigned long flags;

	/*
	 * The PTP core reports the last frequency a user set (0 at first),
	 * not the servo's; phc2sys and ptp4l read it and write it back when
	 * they open a clock, even a source. Writing back that same value
	 * changes nothing, so it must not stop the servo either.
	 */
	spin_lock_irqsave(&gdev->phc_lock, flags);
	if (scaled_ppm != gdev->user_scaled_ppm) {
		gdev->user_scaled_ppm = scaled_ppm;
		/* 2^-16 ppm is 1000 times 2^-16 ppb. */
		gpsphc_phc_set_adj_locked(gdev, ktime_get_raw_ns(),
					  (s64)scaled_ppm * 1000);
		gpsphc_phc_user_adjusted_locked(gdev);
	}
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
	return 0;
}

#define GPSPHC_EXTTS_FLAGS	(PTP_ENABLE_FEATURE | PTP_RISING_EDGE | \
				 PTP_FALLING_EDGE | PTP_STRICT_FLAGS)

static int gpsphc_ptp_enable(struct ptp_clock_info *info,
			     struct ptp_clock_request *rq, int on)
{
	struct gpsphc_dev *gdev = to_gpsphc_dev_ptp(info);
	unsigned long flags;
	u32 edges;

	if (rq->type != PTP_CLK_REQ_EXTTS || rq->extts.index != 0)
		return -EOPNOTSUPP;
	if (rq->extts.flags & ~GPSPHC_EXTTS_FLAGS)
		return -EOPNOTSUPP;

	/*
	 * Events are the on-time edges, whichever edge the device calls so;
	 * a strict request naming other edges cannot be honoured.
	 */
	edges = rq->extts.flags & (PTP_RISING_EDGE | PTP_FALLING_EDGE);
	if (on && (rq->extts.flags & PTP_STRICT_FLAGS) && edges &&
	    edges != (READ_ONCE(gdev->edge) == GPSPHC_EDGE_RISING ?
		      PTP_RISING_EDGE : PTP_FALLING_EDGE))
		return -EOPNOTSUPP;
	spin_lock_irqsave(&gdev->phc_lock, flags);
	gdev->extts_on = on;
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
	return 0;
}

static long gpsphc_ptp_aux_work(struct ptp_clock_info *info)
{
	struct gpsphc_dev *gdev = to_gpsphc_dev_ptp(info);

	gpsphc_servo_glue_tick(gdev);
	return msecs_to_jiffies(250);
}

/**
 * gpsphc_phc_extts_locked() - report an on-time edge as an EXTTS event
 * @gdev: the device
 * @raw: the edge's CLOCK_MONOTONIC_RAW timestamp
 *
 * Context: the DCD interrupt, phc_lock held.
 */
void gpsphc_phc_extts_locked(struct gpsphc_dev *gdev, u64 raw)
{
	struct ptp_clock_event ev = {
		.type = PTP_CLOCK_EXTTS,
		.index = 0,
	};

	lockdep_assert_held(&gdev->phc_lock);
	if (!gdev->extts_on)
		return;
	ev.timestamp = gpsphc_phc_read_locked(gdev, raw);
	ptp_clock_event(gdev->ptp, &ev);
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
	gdev->phc_base_ns = ktime_to_ns(snap.real) + 37LL * NSEC_PER_SEC;
	gdev->scale = GPSPHC_SCALE_TAI;
	gdev->tai_utc = 37;
	gdev->leap = GPSPHC_LEAP_NONE;
}

/**
 * gpsphc_phc_register() - register the PTP clock of a device
 * @gdev: the device, already in sysfs (it parents the clock)
 *
 * Return: 0 or a negative errno.
 */
int gpsphc_phc_register(struct gpsphc_dev *gdev)
{
	struct ptp_clock *ptp;

	gdev->ptp_info = (struct ptp_clock_info) {
		.owner		= THIS_MODULE,
		.max_adj	= GPSPHC_MAX_ADJ_PPB,
		.n_ext_ts	= 1,
		.gettimex64	= gpsphc_ptp_gettimex64,
		.getcrosststamp	= gpsphc_ptp_getcrosststamp,
		.settime64	= gpsphc_ptp_settime64,
		.adjtime	= gpsphc_ptp_adjtime,
		.adjfine	= gpsphc_ptp_adjfine,
		.enable		= gpsphc_ptp_enable,
		.do_aux_work	= gpsphc_ptp_aux_work,
	};
	/* PTP_CLOCK_NAME_LEN is 32: a longer tty name is cut short. */
	snprintf(gdev->ptp_info.name, sizeof(gdev->ptp_info.name), "gpsphc %.24s",
		 gdev->tty_name);

	ptp = ptp_clock_register(&gdev->ptp_info, &gdev->dev);
	if (IS_ERR(ptp))
		return PTR_ERR(ptp);
	gdev->ptp = ptp;
	gdev->ptp_id = ptp_clock_index(ptp);
	ptp_schedule_worker(ptp, 0);
	return 0;
}

/**
 * gpsphc_phc_unregister() - unregister the PTP clock of a device
 * @gdev: the device; no DCD edge can reach it any more
 *
 * Open files of /dev/ptpN get errors from now on.
 */
void gpsphc_phc_unregister(struct gpsphc_dev *gdev)
{
	ptp_clock_unregister(gdev->ptp);
	gdev->ptp = NULL;
}
