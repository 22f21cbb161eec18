// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: PPS edges on DCD. Each edge is timestamped once, first thing in
 * the DCD interrupt, and that one timestamp goes to every consumer: the
 * standard PPS source (/dev/ppsN, as pps-ldisc would feed it) and a
 * netlink notification, sent from a worker because the interrupt cannot
 * allocate and multicast.
 */

#include <linux/pps_kernel.h>

#include "gpsphc.h"

static void gpsphc_pps_work(struct work_struct *work)
{
	struct gpsphc_dev *gdev = container_of(to_delayed_work(work),
						 struct gpsphc_dev, ntf_work);

	mutex_lock(&gdev->ntf_lock);
	gpsphc_pps_flush_locked(gdev);
	if (gpsphc_servo_glue_take_notify(gdev))
		gpsphc_notify_state(gdev);
	mutex_unlock(&gdev->ntf_lock);
}

/**
 * gpsphc_pps_init() - set up the edge queue of a new device
 * @gdev: the device, before anything can reach it
 */
void gpsphc_pps_init(struct gpsphc_dev *gdev)
{
	INIT_DELAYED_WORK(&gdev->ntf_work, gpsphc_pps_work);
}

/**
 * gpsphc_pps_register() - register the standard PPS source of a device
 * @gdev: the device, already added to sysfs (it parents /dev/ppsN)
 *
 * Return: 0 or a negative errno.
 */
int gpsphc_pps_register(struct gpsphc_dev *gdev)
{
	struct pps_source_info info = {
		.owner = THIS_MODULE,
		.dev = &gdev->dev,
		.mode = PPS_CAPTUREBOTH | PPS_OFFSETASSERT | PPS_OFFSETCLEAR |
			PPS_CANWAIT | PPS_TSFMT_TSPEC,
	};
	struct pps_device *pps;

	snprintf(info.name, PPS_MAX_NAME_LEN, "gpsphc%u", gdev->id);
	/* Informational only; a tty name too long for it is cut short. */
	snprintf(info.path, PPS_MAX_NAME_LEN, "/dev/%.26s", gdev->tty_name);

	pps = pps_register_source(&info, PPS_CAPTUREBOTH | PPS_OFFSETASSERT |
				  PPS_OFFSETCLEAR);
	if (IS_ERR(pps))
		return PTR_ERR(pps);
	gdev->pps = pps;
	gdev->pps_id = pps->id;
	return 0;
}

/**
 * gpsphc_pps_unregister() - unregister the PPS source of a device
 * @gdev: the device; no DCD edge can reach it any more
 */
void gpsphc_pps_unregister(struct gpsphc_dev *gdev)
{
	pps_unregister_source(gdev->pps);
	gdev->pps = NULL;
}

/**
 * gpsphc_pps_index() - N of the device's /dev/ppsN
 * @gdev: the device
 *
 * Return: the PPS source's id.
 */
u32 gpsphc_pps_index(const struct gpsphc_dev *gdev)
{
	return gdev->pps_id;
}

/**
 * gpsphc_pps_set_edge() - choose which edge is on time
 * @gdev: the device
 * @edge: %GPSPHC_EDGE_RISING or %GPSPHC_EDGE_FALLING
 */
void gpsphc_pps_set_edge(struct gpsphc_dev *gdev, enum gpsphc_edge edge)
{
	unsigned long flags;

	spin_lock_irqsave(&gdev->pps_lock, flags);
	gdev->edge = edge;
	spin_unlock_irqrestore(&gdev->pps_lock, flags);
}

/*
 * Queue an edge for the notification worker. Context: pps_lock held.
 * Return: true if the worker must be woken (a worker already on its way
 * takes this edge too).
 */
static bool gpsphc_pps_queue(struct gpsphc_dev *gdev,
			     const struct system_time_snapshot *snap, u32 seq,
			     bool active, bool assert,
			     const struct gpsphc_count *count)
{
	struct gpsphc_pps_event *ev;

	lockdep_assert_held(&gdev->pps_lock);
	if (gdev->queue_len == GPSPHC_PPS_QUEUE_LEN) {
		gdev->events_dropped++;
		return false;
	}
	ev = &gdev->queue[(gdev->queue_head + gdev->queue_len) %
			  GPSPHC_PPS_QUEUE_LEN];
	ev->raw_ns = ktime_to_ns(snap->raw);
	ev->real_ns = ktime_to_ns(snap->real);
	ev->seq = seq;
	ev->edge = active ? GPSPHC_EDGE_RISING : GPSPHC_EDGE_FALLING;
	ev->assert = assert;
	ev->count = *count;
	return !gdev->queue_len++;
}

/**
 * gpsphc_pps_capture() - account for one DCD edge
 * @gdev: the device
 * @snap: the timestamps taken on entry to dcd_change
 * @active: the new DCD level
 *
 * The edge gets its identity, its seq, here; the servo counts it (an
 * on-time edge) before its notification is queued, so the notification
 * says what the servo made of it and a label sent on it finds it.
 *
 * Context: the UART's interrupt, port lock held: one edge at a time.
 */
void gpsphc_pps_capture(struct gpsphc_dev *gdev,
			const struct system_time_snapshot *snap, bool active)
{
	struct pps_event_time ts = { .ts_real = ktime_to_timespec64(snap->real) };
	struct gpsphc_count count = { };
	unsigned long flags;
	bool assert;
	u32 seq;

#ifdef CONFIG_NTP_PPS
	ts.ts_raw = ktime_to_timespec64(snap->raw);
#endif

	spin_lock_irqsave(&gdev->pps_lock, flags);
	assert = active == (gdev->edge == GPSPHC_EDGE_RISING);
	gdev->pps_edges++;
	seq = gdev->pps_seq;
	/* Read by the label path, to tell a clear edge from a future one. */
	WRITE_ONCE(gdev->pps_seq, seq + 1);
	spin_unlock_irqrestore(&gdev->pps_lock, flags);

	pps_event(gdev->pps, &ts, assert ? PPS_CAPTUREASSERT : PPS_CAPTURECLEAR,
		  NULL);
	if (assert)
		gpsphc_servo_glue_edge(gdev, ktime_to_ns(snap->raw), seq, &count);

	/*
	 * Only for listeners, and the worker is not woken from here: that
	 * wake-up was most of this path's cost (1.2-1.6 us of it in the
	 * test VM, 0.9 without). A timer runs it at the next tick: a few ms
	 * are nothing to a label, and the receive path flushes the queue
	 * before any sentence anyway. Queued under the lock, so that
	 * detach's cancel_delayed_work_sync() after gpsphc_dev_kill() is
	 * final.
	 */
	spin_lock_irqsave(&gdev->pps_lock, flags);
	if (!gdev->pps_dead && gpsphc_notify_wanted() &&
	    gpsphc_pps_queue(gdev, snap, seq, active, assert, &count))
		schedule_delayed_work(&gdev->ntf_work, 1);
	spin_unlock_irqrestore(&gdev->pps_lock, flags);
}

/**
 * gpsphc_pps_flush_locked() - send the notifications of all queued edges
 * @gdev: the device
 *
 * Called by the worker, and by the receive path before it frames a chunk,
 * so that listeners see edges and sentences in the order they happened.
 *
 * Context: process; @gdev->ntf_lock held.
 */
void gpsphc_pps_flush_locked(struct gpsphc_dev *gdev)
{
	struct gpsphc_pps_event ev;
	unsigned long flags;

	lockdep_assert_held(&gdev->ntf_lock);
	for (;;) {
		spin_lock_irqsave(&gdev->pps_lock, flags);
		if (!gdev->queue_len) {
			spin_unlock_irqrestore(&gdev->pps_lock, flags);
			break;
		}
		ev = gdev->queue[gdev->queue_head];
		gdev->queue_head = (gdev->queue_head + 1) % GPSPHC_PPS_QUEUE_LEN;
		gdev->queue_len--;
		spin_unlock_irqrestore(&gdev->pps_lock, flags);

		gpsphc_notify_pps(gdev, &ev);
	}
}
