/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc: internal interfaces shared by the files of the module.
 */
#ifndef _GPSPHC_H
#define _GPSPHC_H

#include <linux/device.h>
#include <linux/list.h>
#include <linux/tty.h>

/**
 * struct gpsphc_dev - state of one tty with the gpsphc discipline attached
 * @dev:	class device under /sys/class/gpsphc; its refcount owns the
 *		structure, which dev.release frees
 * @node:	entry in the list of attached devices (gpsphc_devs_lock)
 * @tty:	the tty this discipline is attached to; valid from attach to
 *		detach, which the tty layer serialises against every ldisc op
 * @id:		number in the device name (gpsphc<id>)
 * @tty_name:	name of the tty, e.g. "ttyS0"
 */
struct gpsphc_dev {
	struct device dev;
	struct list_head node;
	struct tty_struct *tty;
	int id;
	char tty_name[64];
};

#define to_gpsphc_dev(d) container_of(d, struct gpsphc_dev, dev)

int gpsphc_class_register(void);
void gpsphc_class_unregister(void);

struct gpsphc_dev *gpsphc_dev_attach(struct tty_struct *tty);
void gpsphc_dev_detach(struct tty_struct *tty);
struct gpsphc_dev *gpsphc_dev_lookup(struct tty_struct *tty);

#endif /* _GPSPHC_H */
