// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: /dev/ptpN, the PTP clock's interface to its users. Reads come
 * from the time base (phc.c) under phc_lock, with the system time from the
 * same instant; a user who sets, steps or slews the clock takes it from
 * the servo, which then waits for a label (servo_glue.c): those hold
 * servo_lock, so the PTP core must call them in process context, as it
 * does for clock_settime() and clock_adjtime(). The PTP core's aux worker
 * lets the servo see time pass.
 */

#include <linux/ptp_clock_kernel.h>
#include <linux/timekeeping.h>

#include "dev.h"
#include "phc.h"
#include "ptp.h"
#include "servo_glue.h"

#define to_gpsphc_dev_ptp(info) container_of(info, struct gpsphc_dev, ptp_info)

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

/*
 * Step the clock by @delta, or to @to when given, read at the same raw
 * instant as the step: a user's step, which the servo leaves alone.
 */
static void gpsphc_ptp_step(struct gpsphc_dev *gdev,
			    const struct timespec64 *to, s64 delta)
{
	unsigned long flags;
	u64 raw;

	/* No edge may steer the clock between the step and the reset. */
	mutex_lock(&gdev->servo_lock);
	spin_lock_irqsave(&gdev->phc_lock, flags);
	raw = ktime_get_raw_ns();
	if (to)
		delta = timespec64_to_ns(to) - gpsphc_phc_read_locked(gdev, raw);
	gpsphc_phc_step_locked(gdev, raw, delta);
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
	/* A user moved the clock: the servo's count no longer holds. */
	gpsphc_servo_glue_reset_locked(gdev);
	mutex_unlock(&gdev->servo_lock);
}

static int gpsphc_ptp_settime64(struct ptp_clock_info *info,
				const struct timespec64 *ts)
{
	gpsphc_ptp_step(to_gpsphc_dev_ptp(info), ts, 0);
	return 0;
}

static int gpsphc_ptp_adjtime(struct ptp_clock_info *info, s64 delta)
{
	gpsphc_ptp_step(to_gpsphc_dev_ptp(info), NULL, delta);
	return 0;
}

static int gpsphc_ptp_adjfine(struct ptp_clock_info *info, long scaled_ppm)
{
	struct gpsphc_dev *gdev = to_gpsphc_dev_ptp(info);
	unsigned long flags;
	bool changed;

	/*
	 * The PTP core reports the last frequency a user set (0 at first),
	 * not the servo's; phc2sys and ptp4l read it and write it back when
	 * they open a clock, even a source. Writing back that same value
	 * changes nothing, so it must not stop the servo either.
	 */
	mutex_lock(&gdev->servo_lock);
	spin_lock_irqsave(&gdev->phc_lock, flags);
	changed = scaled_ppm != gdev->user_scaled_ppm;
	if (changed) {
		gdev->user_scaled_ppm = scaled_ppm;
		/* 2^-16 ppm is 1000 times 2^-16 ppb. */
		gpsphc_phc_set_adj_locked(gdev, ktime_get_raw_ns(),
					  (s64)scaled_ppm * 1000);
	}
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
	if (changed)
		gpsphc_servo_glue_reset_locked(gdev);
	mutex_unlock(&gdev->servo_lock);
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
	WRITE_ONCE(gdev->extts_on, on);
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
 * gpsphc_ptp_register() - register the PTP clock of a device
 * @gdev: the device, already in sysfs (it parents the clock)
 *
 * Return: 0 or a negative errno.
 */
int gpsphc_ptp_register(struct gpsphc_dev *gdev)
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
	spin_lock_irq(&gdev->phc_lock);
	gdev->ptp = ptp;
	spin_unlock_irq(&gdev->phc_lock);
	WRITE_ONCE(gdev->ptp_id, ptp_clock_index(ptp));
	ptp_schedule_worker(ptp, 0);
	return 0;
}

/**
 * gpsphc_ptp_unregister() - unregister the PTP clock of a device
 * @gdev: the device; no DCD edge can reach it any more
 *
 * The one place the clock is unregistered. Its pointer is taken out under
 * phc_lock, where EXTTS reads it, and unregistered outside, so that a
 * second call (an unwind after a detach, say) finds nothing to do. Open
 * files of /dev/ptpN get ENODEV from now on; the PTP core frees the
 * clock when the last of them is closed.
 */
void gpsphc_ptp_unregister(struct gpsphc_dev *gdev)
{
	struct ptp_clock *ptp;

	spin_lock_irq(&gdev->phc_lock);
	ptp = gdev->ptp;
	gdev->ptp = NULL;
	spin_unlock_irq(&gdev->phc_lock);
	if (ptp)
		ptp_clock_unregister(ptp);
}
