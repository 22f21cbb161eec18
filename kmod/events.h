/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc: the one queue of a device's inputs and notifications (events.c),
 * what goes through it (the PPS edges as captured, what the clock made of
 * an input) and the two ends it hands them to: the clock's input handlers
 * and the interface layer's sink.
 */
#ifndef _GPSPHC_EVENTS_H
#define _GPSPHC_EVENTS_H

#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct gpsphc_dev;
struct gpsphc_sentence;

/**
 * struct gpsphc_count - what the servo made of one input
 * @counted:	it starts a second, by the servo's count
 * @second:	with @counted, its number in that count: seconds since the
 *		first input counted, missed ones included
 *
 * Filled in by the servo glue as the input is counted, and carried by the
 * input's notification, so that userspace labels what the servo counted.
 */
struct gpsphc_count {
	bool counted;
	u64 second;
};

/**
 * struct gpsphc_pps_event - one DCD edge, captured in the interrupt
 * @raw_ns: CLOCK_MONOTONIC_RAW when dcd_change was entered
 * @real_ns: CLOCK_REALTIME from the same snapshot
 * @seq: per-device edge number
 * @edge: %GPSPHC_EDGE_RISING or %GPSPHC_EDGE_FALLING
 * @assert: this is the on-time edge
 * @count: what the servo made of it (an on-time edge)
 */
struct gpsphc_pps_event {
	u64 raw_ns;
	u64 real_ns;
	u32 seq;
	u8 edge;
	bool assert;
	struct gpsphc_count count;
};

/* Edges waiting for the queue's worker; 32 s of pulses at 1 Hz. */
#define GPSPHC_PPS_QUEUE_LEN	32

/**
 * struct gpsphc_events - the one queue of a device's inputs and
 *	notifications
 * @input:	the clock, which gets every input before its notification
 *		goes out, and each on-time edge's EXTTS from the interrupt;
 *		set at init
 * @lock:	protects the fields down to @state_due; the DCD interrupt
 *		takes it, the clock under servo_lock (never the reverse)
 * @dead:	detaching: nothing is queued, and the work not queued, any
 *		more
 * @queue:	PPS edges captured, waiting for the clock and their
 *		notification
 * @head:	oldest entry of @queue
 * @len:	entries in @queue
 * @dropped:	edges lost because @queue was full: neither counted by the
 *		servo nor notified
 * @state_due:	a state notification waits for @work
 * @order:	inputs reach the clock, and notifications leave, in capture
 *		order: whoever empties @queue, and the receive path, hold it
 * @work:	empties @queue a tick after the edge that found it empty, and
 *		sends the state
 * @state_watch: also told of every state change, listened to or not
 *		(the DPLL device); set and cleared under @order, read by
 *		@work under it
 */
struct gpsphc_events {
	const struct gpsphc_clock_input *input;
	spinlock_t lock;	/* the DCD interrupt takes it */
	bool dead;
	struct gpsphc_pps_event queue[GPSPHC_PPS_QUEUE_LEN];
	unsigned int head;
	unsigned int len;
	u64 dropped;
	bool state_due;
	struct mutex order;	/* notifications leave in order */
	struct delayed_work work;
	void (*state_watch)(struct gpsphc_dev *gdev);
};

/**
 * struct gpsphc_clock_input - what the clock does with each input
 * @edge:	an on-time edge; fills in @ev->count. Process context (the
 *		event queue's worker, or whoever flushes the queue).
 * @sentence:	a framed sentence; fills in @count. The receive path.
 * @extts:	an on-time edge as an EXTTS event, in the clock's time at
 *		@raw, its capture. The DCD interrupt, right after the capture
 *		and before the edge is queued; it takes phc_lock only while
 *		the EXTTS channel is on.
 *
 * dev.c gives the clock's (gpsphc_clock_input, servo_glue.c) to each
 * device's event queue, which calls @edge and @sentence for every input
 * before the input's notification; pps.c calls @extts through the queue's
 * @input too. Capture reaches the clock only through these, and the servo
 * runs in process context, never in the interrupt.
 */
struct gpsphc_clock_input {
	void (*edge)(struct gpsphc_dev *gdev, struct gpsphc_pps_event *ev);
	void (*sentence)(struct gpsphc_dev *gdev,
			 const struct gpsphc_sentence *s,
			 struct gpsphc_count *count);
	void (*extts)(struct gpsphc_dev *gdev, u64 raw);
};

/**
 * struct gpsphc_event_sink - who sends a device's notifications
 * @wanted:	does anyone listen? Any context, lock-free. Events ask it
 *		only until it says yes; the worker asks again (events.c).
 * @pps:	send one DCD edge's notification. Process context.
 * @sentence:	send one sentence's. The receive path.
 * @state:	send the servo's state. Process context.
 *
 * The interface layer (netlink.c) registers it with
 * gpsphc_events_set_sink(), so that capture and the clock notify without
 * calling up into it.
 */
struct gpsphc_event_sink {
	bool (*wanted)(void);
	void (*pps)(struct gpsphc_dev *gdev, const struct gpsphc_pps_event *ev);
	void (*sentence)(struct gpsphc_dev *gdev,
			 const struct gpsphc_sentence *s,
			 const struct gpsphc_count *count);
	void (*state)(struct gpsphc_dev *gdev);
};

void gpsphc_events_set_sink(const struct gpsphc_event_sink *sink);
void gpsphc_events_init(struct gpsphc_dev *gdev,
			const struct gpsphc_clock_input *input);
void gpsphc_events_queue_edge(struct gpsphc_dev *gdev,
			      const struct gpsphc_pps_event *ev);
void gpsphc_events_flush(struct gpsphc_dev *gdev);
void gpsphc_events_try_flush(struct gpsphc_dev *gdev);
bool gpsphc_events_edge_queued(struct gpsphc_dev *gdev, u32 seq);
void gpsphc_events_post_state(struct gpsphc_dev *gdev);
void gpsphc_events_rx_begin(struct gpsphc_dev *gdev);
void gpsphc_events_rx_end(struct gpsphc_dev *gdev);
void gpsphc_events_sentence(struct gpsphc_dev *gdev,
			    const struct gpsphc_sentence *s);
u64 gpsphc_events_dropped(struct gpsphc_dev *gdev);
void gpsphc_events_stop(struct gpsphc_dev *gdev);
void gpsphc_events_watch_state(struct gpsphc_dev *gdev,
			       void (*watch)(struct gpsphc_dev *gdev));
void gpsphc_events_unwatch_state(struct gpsphc_dev *gdev);

#endif /* _GPSPHC_EVENTS_H */
