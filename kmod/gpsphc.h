/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc: internal interfaces shared by the files of the module.
 *
 * Lifetime of a struct gpsphc_dev
 * ===============================
 * The structure is freed by the release callback of its class device,
 * an RCU grace period after the last reference to @dev is dropped;
 * detach drops the one attach took. Who else can reach it, and what keeps
 * that safe:
 *
 * - the tty (ldisc ops, the DCD interrupt): through gpsphc_dev_lookup().
 *   The tty layer runs no ldisc op, and lets no dcd_change in, while the
 *   ldisc's close (our detach) runs, and none after it. A lookup for
 *   another tty may walk past the node of a device being detached: it
 *   does so as an RCU reader, hence the grace period.
 * - sysfs files: kernfs keeps the device alive during a show or store and
 *   device_del() waits for those in progress. Stores check @phc_dead and
 *   fail with ENODEV once detach began, so no write is silently lost.
 * - netlink requests: find the device under gpsphc_devs_mutex and use it
 *   only while they hold it; lookups skip devices with @detached set,
 *   which attach clears and detach sets under that mutex.
 * - the notification work (events.c): queued only under the queue's lock
 *   while it is not dead; gpsphc_dev_kill() marks it dead under that lock
 *   and then cancels the work, which is final.
 * - the PTP clock's aux worker and its clock ops: ptp_clock_unregister()
 *   stops the worker and turns open /dev/ptpN files into zombies (their
 *   calls fail with ENODEV and never reach our ops again).
 * - the PPS source: pps_unregister_source() before the structure goes.
 * - the DPLL device and its pin (dpll.c, where the kernel has the DPLL
 *   core): their ops run under the DPLL core's dpll_lock and reach the
 *   device through their priv pointer; dpll_device_unregister() and
 *   dpll_pin_unregister() take that lock, so once gpsphc_dpll_unregister()
 *   returns none runs or can start. Its change notifications go out from
 *   the notification work only (the event queue's state watcher), so they
 *   stop with it. The ops take servo_lock under dpll_lock; nothing may
 *   wait for dpll_lock (a notification, a registration) under servo_lock.
 *
 * What a file descriptor keeps alive, and how each goes away once
 * ==============================================================
 * TIOCSETD, a close with the discipline attached, a hangup (vhangup(),
 * TIOCVHANGUP, an unplugged USB adapter) and the removal of a serial port
 * all end in the ldisc's close, so in gpsphc_dev_detach(), once per
 * attach; the module cannot be removed while a tty holds the discipline
 * (the ldisc's module reference).
 *
 * - /dev/ptpN: the PTP core owns the ptp_clock and frees it when its last
 *   file is closed. gpsphc registers it in attach and unregisters it in
 *   gpsphc_ptp_unregister(), the one place, which takes the pointer out
 *   under phc_lock first. Open files then get ENODEV and never reach our
 *   ops (their ptp_clock_info is inside this structure).
 * - /dev/ppsN: likewise, pps_unregister_source() once, in
 *   gpsphc_pps_unregister(); an open file holds the pps_device's own
 *   struct device, not ours.
 * - the tty: a file of the tty keeps the tty, not the device; the device
 *   goes with the discipline, above.
 * - sysfs files and netlink requests: as above (kernfs drains them in
 *   device_del(); netlink looks up under gpsphc_devs_mutex).
 * - a DPLL netlink request: the DPLL core finds the device under its
 *   dpll_lock, which the unregister takes: as above.
 *
 * One hazard is the kernel's and no driver can avoid it:
 * posix_clock_register() makes /dev/ptpN openable before it sets the
 * clock's device, and an open in that window takes no reference that its
 * close then drops, freeing the clock early (ptp_clock_unregister() then
 * spins on freed memory). Debian's 6.1 and 6.12 kernels have it; the fix
 * is tools/testing/vm/patches/posix-clock-register-race.patch, which the
 * debug test kernel carries.
 *
 * Attach initialises every field those can reach before device_add()
 * publishes the sysfs files, and holds back the "add" uevent until the
 * PTP clock, PPS source and DPLL device exist; the DPLL device is
 * registered after the PTP clock, whose index is its clock_id. Detach, in
 * this order: leave the tty lookup list; set @detached (netlink);
 * gpsphc_dev_kill() (sysfs stores fail, notifications stop, their work is
 * cancelled); unregister the DPLL device (waiting for its ops); unregister
 * the PTP clock, then the PPS source; device_del() (sysfs, waiting for
 * stores);
 * free the id (and with it the name gpsphc<id>, now gone from sysfs);
 * drop the reference.
 */
#ifndef _GPSPHC_H
#define _GPSPHC_H

#include <linux/device.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/ptp_clock_kernel.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/tty.h>
#include <linux/workqueue.h>

#include "framer.h"
#include "servo/servo.h"
#include "uapi/linux/gpsphc.h"

struct dpll_device;
struct dpll_pin;
struct gpsphc_clock_input;
struct gpsphc_dev;
struct pps_device;
struct sk_buff;
struct netlink_ext_ack;
struct nlattr;

/**
 * struct gpsphc_servo_field - one value of the servo's status
 * @attr:	its sysfs file
 * @type:	its netlink type in the servo nest: %NLA_U32, %NLA_S64,
 *		%NLA_U64 or %NLA_FLAG; %NLA_UNSPEC where the attribute is no
 *		value (unspec, pad)
 * @names:	an enumeration's names, which its file shows, or NULL
 *
 * gpsphc_servo_fields[] (sysfs.c) has one for each servo attribute,
 * indexed by enum gpsphc_servo_attrs like the values that
 * gpsphc_servo_glue_status() reads: the sysfs files, the netlink nest and
 * its size all come from that one table.
 */
struct gpsphc_servo_field {
	struct device_attribute attr;
	u8 type;
	const char * const *names;
};

/**
 * struct gpsphc_clock_settings - a change of the clock's settings
 * @change:	the fields to apply, by their netlink attributes:
 *		BIT(GPSPHC_A_DEV_SCALE), ... (others are ignored)
 * @scale:	enum gpsphc_scale the clock reads in
 * @step_ns:	offsets above this are stepped, not slewed
 * @confirm_n:	labels needed to move the kernel's count
 * @rx_latency_ns: coarse mode: receiver's second to first sentence start
 * @servo_off:	the servo leaves the clock alone
 * @clock_servo: enum gpsphc_clock_servo: the servo's estimator
 *
 * The interfaces (netlink's dev-set, the sysfs files) fill it, range
 * checked as the spec says, and gpsphc_servo_glue_apply() applies it in
 * one go, so that a dev-set changing several settings is never seen half
 * applied.
 */
struct gpsphc_clock_settings {
	unsigned int change;
	u32 scale;
	u64 step_ns;
	u32 confirm_n;
	u64 rx_latency_ns;
	bool servo_off;
	u32 clock_servo;
};

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
 * struct gpsphc_label - a time-set request, checked for range
 * @seq:	what it labels: an on-time edge's PPS seq, or with @sentence
 *		the seq of a sentence that started a second
 * @sentence:	coarse mode: @seq names a sentence
 * @tai_sec:	TAI seconds since 1970 at that input
 * @tai_utc:	TAI - UTC there
 * @leap:	enum gpsphc_leap announced
 * @leap_utc:	POSIX seconds of the midnight ending the leap day, or 0
 */
struct gpsphc_label {
	u32 seq;
	bool sentence;
	u64 tai_sec;
	u32 tai_utc;
	u32 leap;
	u64 leap_utc;
};

/**
 * struct gpsphc_label_report - how far the kernel is with a disagreement
 * @off_s:	the label's second less the count's; 0 when it agreed
 * @confirmed:	labels of consecutive inputs in a row proposing @off_s,
 *		this one the last; at @confirm_n the count moved
 * @confirm_n:	the labels in a row a change of the count needs
 */
struct gpsphc_label_report {
	s64 off_s;
	u32 confirmed;
	u32 confirm_n;
};

/**
 * enum gpsphc_label_verdict - what the clock made of a label
 * @GPSPHC_LABEL_TAKEN: it set the clock or agreed with the count
 * @GPSPHC_LABEL_LOUD: taken, and listeners must hear of it (label-ntf): it
 *	disagreed with the count (a jump pending, or confirmed and applied)
 *	or proposed or confirmed a change of TAI - UTC
 * @GPSPHC_LABEL_SERVO_OFF: refused: the servo is off
 * @GPSPHC_LABEL_NOT_YET: refused: no such input captured yet
 * @GPSPHC_LABEL_TOO_OLD: refused: older than the servo's history
 * @GPSPHC_LABEL_UNCOUNTED: refused: the input was not counted as a second
 * @GPSPHC_LABEL_OUT_OF_RANGE: refused: the second contradicts the count
 *	(before the inputs already counted) or is past year 2262
 */
enum gpsphc_label_verdict {
	GPSPHC_LABEL_TAKEN,
	GPSPHC_LABEL_LOUD,
	GPSPHC_LABEL_SERVO_OFF,
	GPSPHC_LABEL_NOT_YET,
	GPSPHC_LABEL_TOO_OLD,
	GPSPHC_LABEL_UNCOUNTED,
	GPSPHC_LABEL_OUT_OF_RANGE,
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

/* The clock's rate range, for the servo and adjfine: 500 ppm. */
#define GPSPHC_MAX_ADJ_PPB	500000

/* Edges waiting for the queue's worker; 32 s of pulses at 1 Hz. */
#define GPSPHC_PPS_QUEUE_LEN	32

/**
 * struct gpsphc_events - the one queue of a device's inputs and
 *	notifications
 * @input:	the clock, which gets every input before its notification
 *		goes out; set at init
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
 *		(the DPLL device); set under @order once, read by @work under
 *		it
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
 *
 * dev.c gives the clock's (gpsphc_clock_input, servo_glue.c) to each
 * device's event queue, which calls it for every input before the
 * input's notification: capture hands inputs to the clock only through
 * the queue, and the clock runs in process context, never in the
 * interrupt.
 */
struct gpsphc_clock_input {
	void (*edge)(struct gpsphc_dev *gdev, struct gpsphc_pps_event *ev);
	void (*sentence)(struct gpsphc_dev *gdev,
			 const struct gpsphc_sentence *s,
			 struct gpsphc_count *count);
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

/**
 * struct gpsphc_dev - state of one tty with the gpsphc discipline attached
 * @dev:	class device under /sys/class/gpsphc; its refcount owns the
 *		structure, which dev.release frees
 * @node:	entry in the tty lookup list: RCU, changed under
 *		gpsphc_devs_mutex
 * @rcu:	frees the structure a grace period after its release
 * @tty:	the tty; valid from attach to detach, which the tty layer
 *		serialises against every ldisc op
 * @id:		number in the device name (gpsphc<id>) and in netlink
 * @tty_name:	name of the tty, e.g. "ttyS0"
 * @detached:	lookups skip the device: set under gpsphc_devs_mutex
 *		while attach is not done yet, and from the start of detach
 * @pps:	the standard PPS source fed with the same edges; set by
 *		gpsphc_pps_register() before the DCD lookup can find the
 *		device, cleared by gpsphc_pps_unregister() after it cannot
 * @pps_id:	N of its /dev/ppsN, kept for readers racing with detach
 * @edge:	which edge is on time (assert); written and read once
 *		(WRITE_ONCE/READ_ONCE), each edge reads it once
 * @pps_seq:	number of the next edge; only capture moves it, with a
 *		cmpxchg, and the label path reads it (READ_ONCE) to tell a
 *		clear edge's seq from one not captured yet
 * @pps_edges:	edges seen, both kinds
 * @events:	the device's notifications (events.c)
 * @framer:	sentence framer; used only by the receive path, which the
 *		tty layer runs one at a time per tty
 * @rx_real_offset_ns: CLOCK_REALTIME minus CLOCK_MONOTONIC_RAW of the
 *		chunk being framed
 * @ptp_info:	the PTP clock's operations and capabilities
 * @ptp:	the PTP clock (/dev/ptpN); set and cleared under @phc_lock,
 *		by gpsphc_ptp_register() and gpsphc_ptp_unregister() only
 * @ptp_id:	N of /dev/ptpN, kept for readers racing with detach
 * @phc_lock:	protects the clock's time base, the fields from
 *		@phc_base_raw to @phc_dead, and @ptp; the DCD interrupt takes
 *		it for EXTTS, readers of the clock to read it, the servo
 *		only to read and change the time base. Each function of
 *		phc.c named *_locked asserts it (lockdep).
 * @phc_base_raw: CLOCK_MONOTONIC_RAW ns of the time base
 * @phc_base_ns: the clock's TAI ns at @phc_base_raw
 * @phc_adj:	rate correction, 2^-16 ppb
 * @phc_seen_raw: the latest raw instant the clock was read at, or its
 *		base moved to: a change from an earlier one would rewrite
 *		what a reader got (gpsphc_phc_change_from_locked())
 * @user_scaled_ppm: the frequency a user last set with adjfine
 * @extts_on:	on-time edges are reported as EXTTS events
 * @scale:	enum gpsphc_scale the clock reads in
 * @tai_utc:	TAI - UTC, seconds
 * @leap:	enum gpsphc_leap, pending
 * @leap_utc:	POSIX seconds of the midnight ending the leap day
 * @phc_dead:	detaching: sysfs stores fail with ENODEV
 * @servo_lock:	protects the servo: the fields from @servo_off to
 *		@labels_while_off, the servo's settings among them. Taken
 *		in process context only (the event queue's worker, the
 *		receive path, netlink, sysfs, the PTP core's ops and aux
 *		worker), before phc_lock. The time base fields the servo
 *		sets (@scale, @tai_utc, @leap, @leap_utc) are written under
 *		both. Functions of servo_glue.c named *_locked assert it.
 * @servo_off:	the servo leaves the clock alone (GPSPHC_A_DEV_SERVO_OFF)
 * @servo:	the servo (kmod/servo/servo.h): created with the device,
 *		freed with it (gpsphc_servo_glue_free())
 * @servo_out:	what the servo said last (state, offset, RMS, holdover)
 * @utc_pending: how far a change of TAI - UTC or leap is confirmed
 * @utc_proposed: the label that proposed it last
 * @labels_while_off: labels refused because the servo is off
 * @rx_consumed: stream position: bytes of the flip buffer consumed
 * @rx_framed:	stream position: bytes of the flip buffer framed
 * @rx_lookahead_end: stream position after the last lookahead chunk
 * @dpll:	the DPLL device (dpll.c), or NULL: set by
 *		gpsphc_dpll_register() in attach, cleared by
 *		gpsphc_dpll_unregister() in detach
 * @dpll_pin:	its input pin, the receiver's 1PPS; likewise
 */
struct gpsphc_dev {
	struct device dev;
	struct list_head node;
	struct rcu_head rcu;
	struct tty_struct *tty;
	u32 id;
	char tty_name[64];
	bool detached;

	struct pps_device *pps;
	u32 pps_id;

	enum gpsphc_edge edge;
	u32 pps_seq;
	atomic64_t pps_edges;

	struct gpsphc_events events;

	struct ptp_clock_info ptp_info;
	struct ptp_clock *ptp;
	u32 ptp_id;
	spinlock_t phc_lock;	/* the DCD interrupt takes it */
	u64 phc_base_raw;
	s64 phc_base_ns;
	s64 phc_adj;
	u64 phc_seen_raw;
	long user_scaled_ppm;
	bool extts_on;
	u32 scale;
	u32 tai_utc;
	u32 leap;
	u64 leap_utc;
	bool phc_dead;
	struct mutex servo_lock;	/* before phc_lock */
	bool servo_off;
	struct gpsphc_servo *servo;
	struct gpsphc_servo_out servo_out;
	struct gpsphc_servo_confirm utc_pending;
	struct gpsphc_label utc_proposed;
	u64 labels_while_off;

	struct gpsphc_framer framer;
	s64 rx_real_offset_ns;
	u64 rx_consumed;
	u64 rx_framed;
	u64 rx_lookahead_end;

	struct dpll_device *dpll;
	struct dpll_pin *dpll_pin;
};

#define to_gpsphc_dev(d) container_of(d, struct gpsphc_dev, dev)

/* dev.c */
extern struct mutex gpsphc_devs_mutex;
extern u32 gpsphc_devs_generation;
int gpsphc_class_register(void);
void gpsphc_class_unregister(void);
struct gpsphc_dev *gpsphc_dev_attach(struct tty_struct *tty);
void gpsphc_dev_detach(struct tty_struct *tty);
struct gpsphc_dev *gpsphc_dev_lookup(struct tty_struct *tty);
struct gpsphc_dev *gpsphc_dev_find_id(u32 id);
struct gpsphc_dev *gpsphc_dev_find_tty(const char *tty_name);
struct gpsphc_dev *gpsphc_dev_next(unsigned long *id);

/* sysfs.c */
extern const struct attribute_group *gpsphc_dev_groups[];
extern struct gpsphc_servo_field gpsphc_servo_fields[GPSPHC_A_SERVO_MAX + 1];

/* stats.c */
void gpsphc_dev_stats(struct gpsphc_dev *gdev, u64 *stats);

/* pps.c */
int gpsphc_pps_register(struct gpsphc_dev *gdev);
void gpsphc_pps_unregister(struct gpsphc_dev *gdev);
void gpsphc_pps_capture(struct gpsphc_dev *gdev,
			const struct system_time_snapshot *snap, bool active);
void gpsphc_pps_set_edge(struct gpsphc_dev *gdev, enum gpsphc_edge edge);

/* phc.c */
void gpsphc_phc_init(struct gpsphc_dev *gdev);
s64 gpsphc_phc_read_locked(struct gpsphc_dev *gdev, u64 raw);
u64 gpsphc_phc_change_from_locked(struct gpsphc_dev *gdev, u64 raw);
void gpsphc_phc_set_adj_locked(struct gpsphc_dev *gdev, u64 raw, s64 adj);
void gpsphc_phc_step_locked(struct gpsphc_dev *gdev, u64 raw, s64 delta_ns);
void gpsphc_phc_leap_retire_locked(struct gpsphc_dev *gdev, s64 tai);
void gpsphc_phc_extts_event(struct gpsphc_dev *gdev, u64 raw);

/*
 * What every on-time edge asks of the clock is inline: the time base's
 * arithmetic, and the checks that find nothing to do (no leap second
 * pending, no EXTTS channel on), which then cost neither a call nor the
 * TAI time they would be handed.
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

/**
 * gpsphc_phc_extts() - report an on-time edge as an EXTTS event
 * @gdev: the device
 * @raw: the edge's CLOCK_MONOTONIC_RAW timestamp
 *
 * With the channel off, as it mostly is, this costs no lock.
 *
 * Context: the DCD interrupt.
 */
static inline void gpsphc_phc_extts(struct gpsphc_dev *gdev, u64 raw)
{
	if (READ_ONCE(gdev->extts_on))
		gpsphc_phc_extts_event(gdev, raw);
}

/* ptp.c */
int gpsphc_ptp_register(struct gpsphc_dev *gdev);
void gpsphc_ptp_unregister(struct gpsphc_dev *gdev);

/* servo_glue.c */
extern const struct gpsphc_clock_input gpsphc_clock_input;
int gpsphc_servo_glue_init(struct gpsphc_dev *gdev);
void gpsphc_servo_glue_free(struct gpsphc_dev *gdev);
void gpsphc_servo_glue_counters(struct gpsphc_dev *gdev,
				struct gpsphc_servo_counters *c);
void gpsphc_servo_glue_tick(struct gpsphc_dev *gdev);
void gpsphc_servo_glue_reset_locked(struct gpsphc_dev *gdev);
enum gpsphc_label_verdict
gpsphc_servo_glue_label(struct gpsphc_dev *gdev,
			const struct gpsphc_label *label,
			struct gpsphc_label_report *report);
void gpsphc_servo_glue_status(struct gpsphc_dev *gdev, u64 *st);
void gpsphc_servo_glue_apply(struct gpsphc_dev *gdev,
			     const struct gpsphc_clock_settings *set);
void gpsphc_servo_glue_settings(struct gpsphc_dev *gdev,
				struct gpsphc_clock_settings *set);

/* rx.c */
void gpsphc_rx_init(struct gpsphc_dev *gdev);
void gpsphc_rx_chunk(struct gpsphc_dev *gdev, const u8 *cp, const u8 *fp,
		     size_t count);
void gpsphc_rx_offered(struct gpsphc_dev *gdev, const u8 *cp, const u8 *fp,
		       size_t count);
size_t gpsphc_rx_consumed(struct gpsphc_dev *gdev, size_t taken,
			  size_t count);
void gpsphc_rx_lookahead(struct gpsphc_dev *gdev, const u8 *cp,
			 const u8 *fp, size_t count);
void gpsphc_rx_flushed(struct gpsphc_dev *gdev);

/* events.c */
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

/* dpll.c, where the kernel has the DPLL core (compat.h) */
#if GPSPHC_HAVE_DPLL
int gpsphc_dpll_register(struct gpsphc_dev *gdev);
void gpsphc_dpll_unregister(struct gpsphc_dev *gdev);
#else
static inline int gpsphc_dpll_register(struct gpsphc_dev *gdev)
{
	return 0;
}

static inline void gpsphc_dpll_unregister(struct gpsphc_dev *gdev)
{
}
#endif

/* netlink.c */
int gpsphc_netlink_register(void);
void gpsphc_netlink_unregister(void);

#endif /* _GPSPHC_H */
