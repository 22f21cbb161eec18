// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: the one queue of a device's notifications. Capture posts its
 * PPS edges (from the DCD interrupt: queued, sent by a worker) and its
 * sentences (from the receive path: sent at once, after the edges queued
 * before them), the clock posts its state changes; the sink that the
 * interface layer registers (netlink) sends them. Nothing here knows a
 * netlink type, and nothing below the interfaces calls up into them.
 */

#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "gpsphc.h"

/* Registered at module load, before any device can exist; see set_sink. */
static const struct gpsphc_event_sink *gpsphc_sink;

/**
 * gpsphc_events_set_sink() - register who sends the notifications
 * @sink: the sink, or NULL to unregister
 *
 * Context: module load (before the line discipline is registered) and
 * unload (after it is gone, with every device).
 */
void gpsphc_events_set_sink(const struct gpsphc_event_sink *sink)
{
	WRITE_ONCE(gpsphc_sink, sink);
}

/*
 * Someone listened when the sink was last asked. Asking (for netlink,
 * genl_has_listeners()) was 180 ns of a 1.05 us DCD path with a listener
 * in the test VM: while the answer was yes it is not asked again on the
 * DCD path. Set when the sink says yes, cleared by the worker when it
 * says no. Never a lost notification: a "no" here is always asked again,
 * and a stale "yes" only queues an edge that the sink, which asks again
 * when it sends, drops.
 */
static bool gpsphc_events_listened;

/* Does anyone listen? Nothing is queued or built for nobody. */
static bool gpsphc_events_wanted(void)
{
	const struct gpsphc_event_sink *sink;

	if (READ_ONCE(gpsphc_events_listened))
		return true;
	sink = READ_ONCE(gpsphc_sink);
	if (!sink || !sink->wanted())
		return false;
	WRITE_ONCE(gpsphc_events_listened, true);
	return true;
}

/* Send every queued edge, in capture order. */
static void gpsphc_events_flush_locked(struct gpsphc_dev *gdev)
{
	struct gpsphc_events *q = &gdev->events;
	struct gpsphc_pps_event ev;
	unsigned long flags;

	lockdep_assert_held(&q->order);
	for (;;) {
		spin_lock_irqsave(&q->lock, flags);
		if (!q->len) {
			spin_unlock_irqrestore(&q->lock, flags);
			break;
		}
		ev = q->queue[q->head];
		q->head = (q->head + 1) % GPSPHC_PPS_QUEUE_LEN;
		q->len--;
		spin_unlock_irqrestore(&q->lock, flags);

		gpsphc_sink->pps(gdev, &ev);
	}
}

static void gpsphc_events_work(struct work_struct *work)
{
	struct gpsphc_dev *gdev = container_of(to_delayed_work(work),
						 struct gpsphc_dev,
						 events.work);
	struct gpsphc_events *q = &gdev->events;
	unsigned long flags;
	bool state;

	mutex_lock(&q->order);
	/*
	 * Nobody listens any more: the DCD path asks again from now on.
	 * What is queued still goes to the sink, which asks again itself,
	 * for a listener that subscribed meanwhile.
	 */
	if (!gpsphc_sink->wanted())
		WRITE_ONCE(gpsphc_events_listened, false);
	gpsphc_events_flush_locked(gdev);
	spin_lock_irqsave(&q->lock, flags);
	state = q->state_due;
	q->state_due = false;
	spin_unlock_irqrestore(&q->lock, flags);
	if (state)
		gpsphc_sink->state(gdev);
	mutex_unlock(&q->order);
}

/**
 * gpsphc_events_init() - set up the queue of a new device
 * @gdev: the device, before anything can reach it
 */
void gpsphc_events_init(struct gpsphc_dev *gdev)
{
	struct gpsphc_events *q = &gdev->events;

	spin_lock_init(&q->lock);
	mutex_init(&q->order);
	INIT_DELAYED_WORK(&q->work, gpsphc_events_work);
}

/**
 * gpsphc_events_post_pps() - queue a DCD edge's notification
 * @gdev: the device
 * @ev: the edge, with what the servo made of it
 *
 * The worker is not woken from here: that wake-up was most of the DCD
 * path's cost (1.2-1.6 us of it in the test VM, 0.9 without). A timer
 * runs it at the next tick: a few ms are nothing to a label, and the
 * receive path sends the queue before any sentence anyway.
 *
 * Context: the DCD interrupt.
 */
void gpsphc_events_post_pps(struct gpsphc_dev *gdev,
			    const struct gpsphc_pps_event *ev)
{
	struct gpsphc_events *q = &gdev->events;
	unsigned long flags;

	if (!gpsphc_events_wanted())
		return;
	spin_lock_irqsave(&q->lock, flags);
	if (q->dead) {
		/* detaching: nothing may queue the work any more */
	} else if (q->len == GPSPHC_PPS_QUEUE_LEN) {
		q->dropped++;
	} else {
		q->queue[(q->head + q->len) % GPSPHC_PPS_QUEUE_LEN] = *ev;
		/* A worker already on its way takes this edge too. */
		if (!q->len++)
			schedule_delayed_work(&q->work, 1);
	}
	spin_unlock_irqrestore(&q->lock, flags);
}

/**
 * gpsphc_events_post_state() - the servo's state changed: notify it
 * @gdev: the device
 *
 * Context: any; the clock calls it under phc_lock.
 */
void gpsphc_events_post_state(struct gpsphc_dev *gdev)
{
	struct gpsphc_events *q = &gdev->events;
	unsigned long flags;

	if (!gpsphc_events_wanted())
		return;
	spin_lock_irqsave(&q->lock, flags);
	if (!q->dead) {
		q->state_due = true;
		mod_delayed_work(system_wq, &q->work, 0);
	}
	spin_unlock_irqrestore(&q->lock, flags);
}

/**
 * gpsphc_events_rx_begin() - the receive path is about to frame a chunk
 * @gdev: the device
 *
 * Sends the edges captured before the chunk, so that listeners see edges
 * and sentences in the order they happened, and holds the order until
 * gpsphc_events_rx_end().
 *
 * Context: the tty receive path.
 */
void gpsphc_events_rx_begin(struct gpsphc_dev *gdev)
{
	mutex_lock(&gdev->events.order);
	gpsphc_events_flush_locked(gdev);
}

/**
 * gpsphc_events_rx_end() - the chunk is framed
 * @gdev: the device
 */
void gpsphc_events_rx_end(struct gpsphc_dev *gdev)
{
	mutex_unlock(&gdev->events.order);
}

/**
 * gpsphc_events_sentence() - notify a framed sentence
 * @gdev: the device
 * @s: the sentence
 * @count: what the servo made of it
 *
 * Context: the receive path, between gpsphc_events_rx_begin() and _end().
 */
void gpsphc_events_sentence(struct gpsphc_dev *gdev,
			    const struct gpsphc_sentence *s,
			    const struct gpsphc_count *count)
{
	lockdep_assert_held(&gdev->events.order);
	if (gpsphc_events_wanted())
		gpsphc_sink->sentence(gdev, s, count);
}

/**
 * gpsphc_events_dropped() - edges not notified because the queue was full
 * @gdev: the device
 *
 * Return: the count since attach.
 */
u64 gpsphc_events_dropped(struct gpsphc_dev *gdev)
{
	unsigned long flags;
	u64 dropped;

	spin_lock_irqsave(&gdev->events.lock, flags);
	dropped = gdev->events.dropped;
	spin_unlock_irqrestore(&gdev->events.lock, flags);
	return dropped;
}

/**
 * gpsphc_events_stop() - no notification of a detaching device any more
 * @gdev: the device
 *
 * Nothing queues the work once the flag is set, under the lock every
 * queuer holds, so the cancel that follows is final.
 *
 * Context: detach, after the device left every lookup.
 */
void gpsphc_events_stop(struct gpsphc_dev *gdev)
{
	unsigned long flags;

	spin_lock_irqsave(&gdev->events.lock, flags);
	gdev->events.dead = true;
	spin_unlock_irqrestore(&gdev->events.lock, flags);
	cancel_delayed_work_sync(&gdev->events.work);
}
