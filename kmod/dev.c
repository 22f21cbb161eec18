// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: one class device per attached tty, and the lookups to it.
 *
 * n_tty owns tty->disc_data, so the DCD interrupt finds its device in a
 * list keyed by the tty pointer. The list is read under RCU, without a
 * lock (the lookup is on the DCD path), and changed under
 * gpsphc_devs_mutex; a device is freed a grace period after its last
 * reference is gone, as a lookup may still be walking past it. Netlink
 * and sysfs find devices by id in an xarray, under gpsphc_devs_mutex,
 * which attach and detach also take. An id stays taken until its device
 * is gone from sysfs, so that no other tty can be given the same name
 * meanwhile; lookups skip the devices that are not attached yet or any
 * more.
 */

#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tty.h>
#include <linux/xarray.h>

#include "dev.h"
#include "dpll.h"
#include "events.h"
#include "gpio.h"
#include "phc.h"
#include "pps.h"
#include "ptp.h"
#include "rx.h"
#include "servo_glue.h"
#include "sysfs.h"

static LIST_HEAD(gpsphc_devs);
static DEFINE_XARRAY_ALLOC(gpsphc_ids);
/*
 * Serialises attach/detach with netlink and sysfs lookups by id, and
 * orders the changes to the tty lookup list (read under RCU).
 */
DEFINE_MUTEX(gpsphc_devs_mutex);
/* Bumped on every attach and detach, for consistent netlink dumps. */
u32 gpsphc_devs_generation;

static struct class gpsphc_class = {
	.name = "gpsphc",
	.dev_groups = gpsphc_dev_groups,
};

/**
 * gpsphc_class_register() - register the gpsphc device class
 *
 * Return: 0 or a negative errno from class_register().
 */
int gpsphc_class_register(void)
{
	return class_register(&gpsphc_class);
}

/**
 * gpsphc_class_unregister() - unregister the gpsphc device class
 *
 * Every tty must have been detached before. Waits for the devices'
 * structures to be freed: gpsphc_dev_free() is this module's code.
 */
void gpsphc_class_unregister(void)
{
	class_unregister(&gpsphc_class);
	rcu_barrier();
}

static void gpsphc_dev_free(struct rcu_head *rcu)
{
	struct gpsphc_dev *gdev = container_of(rcu, struct gpsphc_dev, rcu);

	gpsphc_servo_glue_free(gdev);
	kfree(gdev);
}

/*
 * A lookup on another tty may still be walking past the device's node:
 * it is freed after a grace period. Not with kfree_rcu(), which batches
 * frees for up to 5 s, so that a loop of attach and detach holds
 * thousands of dead devices for a while.
 */
static void gpsphc_dev_release(struct device *dev)
{
	call_rcu(&to_gpsphc_dev(dev)->rcu, gpsphc_dev_free);
}

/**
 * gpsphc_dev_lookup() - find the device attached to a tty
 * @tty: the tty
 *
 * Safe in any context, and takes no lock. The result stays valid while
 * the caller runs inside an ldisc operation of @tty: detach happens in
 * the ldisc's close, which the tty layer never runs concurrently with the
 * other operations. Other devices may leave the list meanwhile; they are
 * freed only after a grace period (gpsphc_dev_release()), and this walk,
 * with preemption off, is an RCU reader (one that costs no function call
 * on a kernel with preemptible RCU, unlike rcu_read_lock()).
 *
 * Return: the device, or NULL when @tty has none.
 */
struct gpsphc_dev *gpsphc_dev_lookup(struct tty_struct *tty)
{
	struct gpsphc_dev *gdev, *found = NULL;

	rcu_read_lock_sched();
	list_for_each_entry_rcu(gdev, &gpsphc_devs, node) {
		if (gdev->tty == tty) {
			found = gdev;
			break;
		}
	}
	rcu_read_unlock_sched();
	return found;
}

/**
 * gpsphc_dev_find_id() - find an attached device by id
 * @id: the device id
 *
 * Context: gpsphc_devs_mutex held; the device stays attached until the
 * caller drops it.
 * Return: the device, or NULL.
 */
struct gpsphc_dev *gpsphc_dev_find_id(u32 id)
{
	struct gpsphc_dev *gdev;

	lockdep_assert_held(&gpsphc_devs_mutex);
	gdev = xa_load(&gpsphc_ids, id);
	return gdev && !gdev->detached ? gdev : NULL;
}

/**
 * gpsphc_dev_find_tty() - find an attached device by its tty's name
 * @tty_name: e.g. "ttyS0"
 *
 * Context: gpsphc_devs_mutex held.
 * Return: the device, or NULL.
 */
struct gpsphc_dev *gpsphc_dev_find_tty(const char *tty_name)
{
	struct gpsphc_dev *gdev;
	unsigned long id;

	lockdep_assert_held(&gpsphc_devs_mutex);
	xa_for_each(&gpsphc_ids, id, gdev)
		if (!gdev->detached && !strcmp(gdev->tty_name, tty_name))
			return gdev;
	return NULL;
}

/**
 * gpsphc_dev_next() - iterate over attached devices in id order
 * @id: in: the lowest id to return; out: the id found
 *
 * Context: gpsphc_devs_mutex held.
 * Return: the device with the lowest id >= *@id, or NULL.
 */
struct gpsphc_dev *gpsphc_dev_next(unsigned long *id)
{
	struct gpsphc_dev *gdev;

	lockdep_assert_held(&gpsphc_devs_mutex);
	for (gdev = xa_find(&gpsphc_ids, id, ULONG_MAX, XA_PRESENT); gdev;
	     gdev = xa_find_after(&gpsphc_ids, id, ULONG_MAX, XA_PRESENT))
		if (!gdev->detached)
			return gdev;
	return NULL;
}

/*
 * gpsphc_dev_kill() - stop everything that could notify or change a device
 * @gdev: the device, detaching (or failing to attach)
 *
 * After this, sysfs stores fail (phc_dead, under phc_lock) and no
 * notification is queued or pending any more (gpsphc_events_stop()).
 */
static void gpsphc_dev_kill(struct gpsphc_dev *gdev)
{
	unsigned long flags;

	spin_lock_irqsave(&gdev->phc_lock, flags);
	WRITE_ONCE(gdev->phc_dead, true);
	spin_unlock_irqrestore(&gdev->phc_lock, flags);
	gpsphc_events_stop(gdev);
}

/**
 * gpsphc_dev_attach() - create and register the device for a tty
 * @tty: the tty the discipline is being attached to
 *
 * Every field a sysfs file, the clock or a notification can reach is
 * initialised before device_add() publishes the files: a udev rule may
 * write them at once. The "add" uevent is held back until the PTP clock
 * and the PPS source exist, so that udev sees a whole device. Everything
 * that feeds the device (the DCD lookup) is enabled last.
 *
 * Return: the new device, or an ERR_PTR() on failure.
 */
struct gpsphc_dev *gpsphc_dev_attach(struct tty_struct *tty)
{
	struct gpsphc_dev *gdev;
	int ret;

	gdev = kzalloc(sizeof(*gdev), GFP_KERNEL);
	if (!gdev)
		return ERR_PTR(-ENOMEM);

	gdev->tty = tty;
	strscpy(gdev->tty_name, tty->name, sizeof(gdev->tty_name));
	INIT_LIST_HEAD(&gdev->node);
	gdev->edge = GPSPHC_EDGE_RISING;
	gdev->pps_id = GPSPHC_ID_NONE;
	gdev->ptp_id = GPSPHC_ID_NONE;
	gpsphc_events_init(gdev, &gpsphc_clock_input);
	gpsphc_gpio_init(gdev);
	gpsphc_rx_init(gdev);
	gpsphc_phc_init(gdev);
	ret = gpsphc_servo_glue_init(gdev);
	if (ret)
		goto out_free_gdev;

	device_initialize(&gdev->dev);
	gdev->dev.class = &gpsphc_class;
	/*
	 * No parent: on 6.1, uart_remove_one_port() removes the tty's device
	 * before it hangs the tty up, so a child of it would lose its sysfs
	 * directory before our detach (sysfs_remove_group warnings).
	 */
	gdev->dev.parent = NULL;
	gdev->dev.release = gpsphc_dev_release;
	dev_set_drvdata(&gdev->dev, gdev);
	dev_set_uevent_suppress(&gdev->dev, true);

	mutex_lock(&gpsphc_devs_mutex);
	/* Not visible to lookups until attached: see gpsphc_dev_usable(). */
	gdev->detached = true;
	ret = xa_alloc(&gpsphc_ids, &gdev->id, gdev, xa_limit_31b, GFP_KERNEL);
	if (ret)
		goto out_unlock;
	mutex_unlock(&gpsphc_devs_mutex);

	ret = dev_set_name(&gdev->dev, "gpsphc%u", gdev->id);
	if (ret)
		goto out_erase_id;

	ret = device_add(&gdev->dev);
	if (ret)
		goto out_erase_id;

	ret = gpsphc_pps_register(gdev);
	if (ret)
		goto out_del_dev;

	ret = gpsphc_ptp_register(gdev);
	if (ret)
		goto out_unregister_pps;

	/* Its clock_id is the PTP clock's index. */
	ret = gpsphc_dpll_register(gdev);
	if (ret)
		goto out_unregister_ptp;

	/* Everything a GPIO line's edges feed exists now. */
	gpsphc_gpio_start(gdev);
	dev_set_uevent_suppress(&gdev->dev, false);
	kobject_uevent(&gdev->dev.kobj, KOBJ_ADD);

	mutex_lock(&gpsphc_devs_mutex);
	list_add_tail_rcu(&gdev->node, &gpsphc_devs);
	gdev->detached = false;
	gpsphc_devs_generation++;
	mutex_unlock(&gpsphc_devs_mutex);

	return gdev;

out_unregister_ptp:
	gpsphc_ptp_unregister(gdev);
out_unregister_pps:
	gpsphc_pps_unregister(gdev);
out_del_dev:
	/* A sysfs write may have queued a notification meanwhile. */
	gpsphc_dev_kill(gdev);
	device_del(&gdev->dev);
out_erase_id:
	mutex_lock(&gpsphc_devs_mutex);
	xa_erase(&gpsphc_ids, gdev->id);
out_unlock:
	mutex_unlock(&gpsphc_devs_mutex);
	put_device(&gdev->dev);
	return ERR_PTR(ret);

out_free_gdev:
	kfree(gdev);
	return ERR_PTR(ret);
}

/**
 * gpsphc_dev_detach() - unregister the device of a tty
 * @tty: the tty the discipline is being detached from
 *
 * The teardown order of the lifetime rules in dev.h: first nothing new
 * can reach the device (DCD and receive lookups, netlink and sysfs
 * lookups, anything that queues a notification, and the notification
 * worker is cancelled), then the DPLL device, the clock and the PPS
 * source go (their users get errors), then the sysfs directory goes, and
 * only then is the id, and with it the name gpsphc<id>, free for another
 * tty. The structure lives on until the last reference is dropped.
 */
void gpsphc_dev_detach(struct tty_struct *tty)
{
	struct gpsphc_dev *gdev = gpsphc_dev_lookup(tty);

	/* Attach and detach are paired by the tty layer; nothing to undo. */
	if (WARN_ON_ONCE(!gdev))
		return;

	/* Netlink handlers hold the mutex while they use a device. */
	mutex_lock(&gpsphc_devs_mutex);
	list_del_rcu(&gdev->node);
	WRITE_ONCE(gdev->detached, true);
	gpsphc_devs_generation++;
	mutex_unlock(&gpsphc_devs_mutex);

	/* No GPIO edge reaches the capture after this. */
	gpsphc_gpio_stop(gdev);
	gpsphc_dev_kill(gdev);
	/* Its notifications stopped with the queue; waits for its ops. */
	gpsphc_dpll_unregister(gdev);
	gpsphc_ptp_unregister(gdev);
	gpsphc_pps_unregister(gdev);
	/* Waits for sysfs reads and writes in progress. */
	device_del(&gdev->dev);

	mutex_lock(&gpsphc_devs_mutex);
	xa_erase(&gpsphc_ids, gdev->id);
	mutex_unlock(&gpsphc_devs_mutex);
	put_device(&gdev->dev);
}
