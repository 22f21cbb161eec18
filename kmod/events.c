// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: the one queue of a device's inputs and notifications. Capture
 * posts its PPS edges (from the DCD interrupt: queued, and handed on by a
 * worker in process context) and its sentences (from the receive path:
 * handed on at once, after the edges queued before them). Each input goes
 * to the clock first, which counts it and steers by it (the input
 * handlers dev.c gives each device), then its notification to the sink
 * that the interface layer registers (netlink); the clock posts its state
 * changes, which also go to a device's state watcher if it has one (its
 * DPLL device). Nothing here knows a netlink type or the servo, and
 * nothing below calls up into them but through those.
 */

#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "dev.h"
#include "events.h"

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
 * Someone listened when the sink was last asked (for netlink,
 * genl_has_listeners(), 180 ns in the test VM): while the answer was yes
 * it is not asked again for each input. Set when the sink says yes,
 * cleared by the worker when it says no. Never a lost notification: a
 * "no" here is always asked again, and a stale "yes" only builds a
 * notification that the sink, which asks again when it sends, drops.
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

/*
 * Hand every queued edge to the clock, then its notification to the sink
 * if anyone listens, in capture order.
 */
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
		spin_unlock_irqrestore(&q->lock, flags);

		/* The clock first: the notification says what it counted. */
		if (ev.assert)
			q->input->edge(gdev, &ev);
		/*
		 * Only the holder of @order takes edges off, so the head is
		 * this edge still: it stays queued until the clock has it
		 * (see gpsphc_events_edge_queued()).
		 */
		spin_lock_irqsave(&q->lock, flags);
		q->head = (q->head + 1) % GPSPHC_PPS_QUEUE_LEN;
		q->len--;
		spin_unlock_irqrestore(&q->lock, flags);
		if (gpsphc_events_wanted())
			gpsphc_sink->pps(gdev, &ev);
	}
}

/**
 * gpsphc_events_edge_queued() - is an edge still on its way to the clock?
 * @gdev: the device
 * @seq: the edge's seq
 *
 * Return: true while the edge waits in the queue or the clock is being
 * handed it.
 */
bool gpsphc_events_edge_queued(struct gpsphc_dev *gdev, u32 seq)
{
	struct gpsphc_events *q = &gdev->events;
	unsigned long flags;
	bool queued = false;
	unsigned int i;

	spin_lock_irqsave(&q->lock, flags);
	for (i = 0; i < q->len && !queued; i++)
		queued = q->queue[(q->head + i) % GPSPHC_PPS_QUEUE_LEN].seq == seq;
	spin_unlock_irqrestore(&q->lock, flags);
	return queued;
}

/**
 * gpsphc_events_try_flush() - hand the edges captured so far on, unless
 *	someone else is doing so
 * @gdev: the device
 *
 * For the clock's tick: whoever holds the queue's order (its worker, the
 * receive path) empties the queue anyway, and the tick must not wait for
 * a receive path framing a long chunk.
 *
 * Context: process.
 */
void gpsphc_events_try_flush(struct gpsphc_dev *gdev)
{
	if (!mutex_trylock(&gdev->events.order))
		return;
	gpsphc_events_flush_locked(gdev);
	mutex_unlock(&gdev->events.order);
}

/**
 * gpsphc_events_flush() - hand the edges captured so far on, now
 * @gdev: the device
 *
 * For a label of an edge still queued (gpsphc_events_edge_queued()), so
 * that the clock has it first.
 *
 * Context: process; takes the queue's order (before servo_lock).
 */
void gpsphc_events_flush(struct gpsphc_dev *gdev)
{
	mutex_lock(&gdev->events.order);
	gpsphc_events_flush_locked(gdev);
	mutex_unlock(&gdev->events.order);
}

static void gpsphc_events_work(struct work_struct *work)
{
	struct gpsphc_dev *gdev = container_of(to_delayed_work(work),
						 struct gpsphc_dev,
						 events.work);
	struct gpsphc_events *q = &gdev->events;
	unsigned long flags;
	bool dead, state;

	mutex_lock(&q->order);
	/*
	 * Queued before the device began to detach, run after: detach waits
	 * for this run (gpsphc_events_stop()), and nothing of it is wanted.
	 */
	spin_lock_irqsave(&q->lock, flags);
	dead = q->dead;
	spin_unlock_irqrestore(&q->lock, flags);
	if (dead)
		goto out_unlock;
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
	if (state && q->state_watch)
		q->state_watch(gdev);
out_unlock:
	mutex_unlock(&q->order);
}

/**
 * gpsphc_events_init() - set up the queue of a new device
 * @gdev: the device, before anything can reach it
 * @input: the clock's handlers, which every input reaches first
 */
void gpsphc_events_init(struct gpsphc_dev *gdev,
			const struct gpsphc_clock_input *input)
{
	struct gpsphc_events *q = &gdev->events;

	q->input = input;
	spin_lock_init(&q->lock);
	mutex_init(&q->order);
	INIT_DELAYED_WORK(&q->work, gpsphc_events_work);
}

/**
 * gpsphc_events_queue_edge() - queue a DCD edge for the clock and listeners
 * @gdev: the device
 * @ev: the edge as captured
 *
 * The worker is not woken from here: that wake-up was most of the DCD
 * path's cost (1.2-1.6 us of it in the test VM, 0.9 without). A timer
 * runs it at the next tick: the clock's correction applies from the
 * edge's capture all the same unless the clock was read meanwhile (see
 * gpsphc_phc_change_from_locked()), a few ms are nothing to a label, and
 * the receive path, a label and the servo's tick empty the queue first
 * anyway.
 *
 * Context: the DCD interrupt.
 */
void gpsphc_events_queue_edge(struct gpsphc_dev *gdev,
			      const struct gpsphc_pps_event *ev)
{
	struct gpsphc_events *q = &gdev->events;
	unsigned long flags;

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
 * Context: any; the clock calls it under servo_lock.
 */
void gpsphc_events_post_state(struct gpsphc_dev *gdev)
{
	struct gpsphc_events *q = &gdev->events;
	unsigned long flags;

	/* The watcher, unlike netlink, is always told. */
	if (!READ_ONCE(q->state_watch) && !gpsphc_events_wanted())
		return;
	spin_lock_irqsave(&q->lock, flags);
	if (!q->dead) {
		q->state_due = true;
		mod_delayed_work(system_wq, &q->work, 0);
	}
	spin_unlock_irqrestore(&q->lock, flags);
}

/**
 * gpsphc_events_watch_state() - tell @watch of every state change too
 * @gdev: the device
 * @watch: called by the worker, in process context under the queue's
 *	order (never under servo_lock), after the sink's state op
 *
 * For an interface of the device that must hear of every change whether
 * or not anyone listens to netlink (its DPLL device). @watch is called
 * once now, under the order, for a change that came before it was set.
 * Detach stops the queue (gpsphc_events_stop()), and the owner clears
 * the watcher (gpsphc_events_unwatch_state()), before it takes down what
 * @watch uses: no call is running or comes after that.
 *
 * Context: process, once @watch can run; takes the queue's order.
 */
void gpsphc_events_watch_state(struct gpsphc_dev *gdev,
			       void (*watch)(struct gpsphc_dev *gdev))
{
	mutex_lock(&gdev->events.order);
	WRITE_ONCE(gdev->events.state_watch, watch);
	watch(gdev);
	mutex_unlock(&gdev->events.order);
}

/**
 * gpsphc_events_unwatch_state() - no state watcher any more
 * @gdev: the device, its queue stopped (gpsphc_events_stop())
 *
 * For the watcher's owner before it takes down what the watcher uses.
 * The worker reads the watcher under the queue's order, and a stopped
 * queue runs no more work: clearing it under the order as well makes a
 * call after this impossible whatever queued the work.
 *
 * Context: process; takes the queue's order.
 */
void gpsphc_events_unwatch_state(struct gpsphc_dev *gdev)
{
	mutex_lock(&gdev->events.order);
	WARN_ON_ONCE(!gdev->events.dead);
	WRITE_ONCE(gdev->events.state_watch, NULL);
	mutex_unlock(&gdev->events.order);
}

/**
 * gpsphc_events_rx_begin() - the receive path is about to frame a chunk
 * @gdev: the device
 *
 * Hands on the edges captured before the chunk, so that the clock and
 * listeners see edges and sentences in the order they happened, and holds
 * the order until gpsphc_events_rx_end().
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
 * gpsphc_events_sentence() - a framed sentence, for the clock and listeners
 * @gdev: the device
 * @s: the sentence
 *
 * Context: the receive path, between gpsphc_events_rx_begin() and _end().
 */
void gpsphc_events_sentence(struct gpsphc_dev *gdev,
			    const struct gpsphc_sentence *s)
{
	struct gpsphc_count count;

	lockdep_assert_held(&gdev->events.order);
	/* The clock first: the notification says what it counted. */
	gdev->events.input->sentence(gdev, s, &count);
	if (gpsphc_events_wanted())
		gpsphc_sink->sentence(gdev, s, &count);
}

/**
 * gpsphc_events_dropped() - edges lost because the queue was full
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
 * queuer holds, so the cancel that follows is final; a run queued before
 * and started since sees the flag and sends nothing.
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
