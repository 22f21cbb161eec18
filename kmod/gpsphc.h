/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc: internal interfaces shared by the files of the module.
 */
#ifndef _GPSPHC_H
#define _GPSPHC_H

#include <linux/device.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/tty.h>
#include <linux/workqueue.h>

#include "framer.h"
#include "uapi/linux/gpsphc.h"

struct pps_device;
struct sk_buff;

/**
 * struct gpsphc_pps_event - one DCD edge, captured in the interrupt
 * @raw_ns: CLOCK_MONOTONIC_RAW when dcd_change was entered
 * @real_ns: CLOCK_REALTIME from the same snapshot
 * @seq: per-device edge number
 * @edge: %GPSPHC_EDGE_RISING or %GPSPHC_EDGE_FALLING
 * @assert: this is the on-time edge
 */
struct gpsphc_pps_event {
	u64 raw_ns;
	u64 real_ns;
	u32 seq;
	u8 edge;
	bool assert;
};

/* Edges waiting for the notification worker; 16 s of pulses at 1 Hz. */
#define GPSPHC_PPS_QUEUE_LEN	32

/**
 * struct gpsphc_dev - state of one tty with the gpsphc discipline attached
 * @dev:	class device under /sys/class/gpsphc; its refcount owns the
 *		structure, which dev.release frees
 * @node:	entry in the tty lookup list (gpsphc_devs_lock)
 * @tty:	the tty; valid from attach to detach, which the tty layer
 *		serialises against every ldisc op
 * @id:		number in the device name (gpsphc<id>) and in netlink
 * @tty_name:	name of the tty, e.g. "ttyS0"
 * @detached:	set (under gpsphc_devs_mutex) when the tty let go; the
 *		structure may live on while sysfs or netlink hold it
 * @pps:	the standard PPS source fed with the same edges
 * @pps_id:	N of its /dev/ppsN, kept for readers racing with detach
 * @pps_lock:	protects the fields down to @queue_len; taken in the DCD
 *		interrupt
 * @edge:	which edge is on time (assert)
 * @pps_seq:	number of the next edge
 * @last_assert_raw_ns: raw time of the last on-time edge, 0 before one
 * @pps_edges:	edges seen, both kinds
 * @pps_missed:	on-time edges missing, judged from the time between them
 * @events_dropped: edges not notified because @queue was full
 * @queue:	edges waiting for @ntf_work
 * @queue_head:	oldest entry of @queue
 * @queue_len:	entries in @queue
 * @ntf_lock:	serialises notifications so they leave in capture order
 * @ntf_work:	sends the queued PPS notifications
 * @framer:	sentence framer; used only by the receive path, which the
 *		tty layer runs one at a time per tty
 * @rx_real_offset_ns: CLOCK_REALTIME minus CLOCK_MONOTONIC_RAW of the
 *		chunk being framed
 * @rx_consumed: stream position: bytes of the flip buffer consumed
 * @rx_framed:	stream position: bytes of the flip buffer framed
 * @rx_lookahead_end: stream position after the last lookahead chunk
 */
struct gpsphc_dev {
	struct device dev;
	struct list_head node;
	struct tty_struct *tty;
	u32 id;
	char tty_name[64];
	bool detached;

	struct pps_device *pps;
	u32 pps_id;

	spinlock_t pps_lock;	/* the DCD interrupt takes it */
	enum gpsphc_edge edge;
	u32 pps_seq;
	u64 last_assert_raw_ns;
	u64 pps_edges;
	u64 pps_missed;
	u64 events_dropped;
	struct gpsphc_pps_event queue[GPSPHC_PPS_QUEUE_LEN];
	unsigned int queue_head;
	unsigned int queue_len;

	struct mutex ntf_lock;	/* notifications leave in order */
	struct work_struct ntf_work;

	struct gpsphc_framer framer;
	s64 rx_real_offset_ns;
	u64 rx_consumed;
	u64 rx_framed;
	u64 rx_lookahead_end;
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
void gpsphc_dev_stats(struct gpsphc_dev *gdev, u64 *stats);

/* pps.c */
int gpsphc_pps_register(struct gpsphc_dev *gdev);
void gpsphc_pps_unregister(struct gpsphc_dev *gdev);
void gpsphc_pps_capture(struct gpsphc_dev *gdev,
			const struct system_time_snapshot *snap, bool active);
void gpsphc_pps_flush_locked(struct gpsphc_dev *gdev);
void gpsphc_pps_set_edge(struct gpsphc_dev *gdev, enum gpsphc_edge edge);
u32 gpsphc_pps_index(const struct gpsphc_dev *gdev);

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

/* netlink.c */
int gpsphc_netlink_register(void);
void gpsphc_netlink_unregister(void);
bool gpsphc_notify_wanted(void);
void gpsphc_notify_pps(struct gpsphc_dev *gdev,
		       const struct gpsphc_pps_event *ev);
void gpsphc_notify_sentence(struct gpsphc_dev *gdev,
			    const struct gpsphc_sentence *s);
int gpsphc_fill_dev(struct sk_buff *skb, struct gpsphc_dev *gdev);

#endif /* _GPSPHC_H */
