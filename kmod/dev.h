/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc: the device of an attached tty, its state and its life (dev.c).
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
 * - a GPIO line's interrupt (gpio.c), which feeds the same capture as
 *   DCD: gpsphc_gpio_stop() frees the interrupt (waiting for its handler
 *   and thread) and releases the line first thing in detach, before the
 *   queue, the clock and the PPS source go; no line can be set before
 *   gpsphc_gpio_start(), the end of attach, or after the stop.
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
 * PTP clock, PPS source and DPLL device exist; pps_gpio accepts a line
 * only then. The DPLL device is registered after the PTP clock, whose
 * index is its clock_id. Detach, in this order: leave the tty lookup
 * list; set @detached (netlink); free the GPIO line's interrupt and
 * release the line; gpsphc_dev_kill() (sysfs stores fail, notifications
 * stop, their work is cancelled); unregister the DPLL device (waiting for
 * its ops); unregister the PTP clock, then the PPS source; device_del()
 * (sysfs, waiting for stores); free the id (and with it the name
 * gpsphc<id>, now gone from sysfs);
 * drop the reference.
 */
#ifndef _GPSPHC_DEV_H
#define _GPSPHC_DEV_H

#include <linux/device.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/ptp_clock_kernel.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "events.h"
#include "framer.h"
#include "servo/servo.h"
#include "servo_glue.h"
#include "uapi/linux/gpsphc.h"

struct dpll_device;
struct dpll_pin;
struct gpsphc_gpio;
struct pps_device;
struct tty_struct;

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
 * @pps_id:	N of its /dev/ppsN, kept for readers racing with detach;
 *		%GPSPHC_ID_NONE until registered (WRITE_ONCE: sysfs may read
 *		it from device_add() on)
 * @edge:	which edge is on time (assert); written and read once
 *		(WRITE_ONCE/READ_ONCE), each edge reads it once
 * @pps_seq:	number of the next edge; only capture moves it, with a
 *		cmpxchg, and the label path reads it (READ_ONCE) to tell a
 *		clear edge's seq from one not captured yet
 * @pps_edges:	edges seen, both kinds
 * @pps_lost:	edges of a GPIO line lost before their capture, its ring
 *		full (gpio.c): the hard interrupt counts them, so atomic
 * @gpio_lock:	protects @gpio_open and @pps_gpio, and the line and
 *		interrupt @pps_gpio holds (gpio.c); process context only
 * @gpio_open:	a line may be set: from attach's end to detach's start
 * @pps_gpio:	the GPIO line the PPS comes from, or NULL for DCD; written
 *		under @gpio_lock (WRITE_ONCE), read by the DCD callback
 *		(READ_ONCE), which drops its edges while it is set
 * @events:	the device's notifications (events.c)
 * @framer:	sentence framer; used only by the receive path, which the
 *		tty layer runs one at a time per tty
 * @rx_real_offset_ns: CLOCK_REALTIME minus CLOCK_MONOTONIC_RAW of the
 *		chunk being framed
 * @ptp_info:	the PTP clock's operations and capabilities
 * @ptp:	the PTP clock (/dev/ptpN); set and cleared under @phc_lock,
 *		by gpsphc_ptp_register() and gpsphc_ptp_unregister() only
 * @ptp_id:	N of /dev/ptpN, kept for readers racing with detach;
 *		likewise %GPSPHC_ID_NONE until registered
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
	atomic64_t pps_lost;

	struct mutex gpio_lock;	/* the GPIO line and its interrupt */
	bool gpio_open;
	struct gpsphc_gpio *pps_gpio;

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

/* @pps_id or @ptp_id before its PPS source or clock is registered */
#define GPSPHC_ID_NONE	U32_MAX

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

#endif /* _GPSPHC_DEV_H */
