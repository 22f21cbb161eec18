// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: one class device per attached tty, and the lookup from a tty to
 * it. n_tty owns tty->disc_data, so the per-tty state is kept in a list
 * keyed by the tty pointer instead.
 */

#include <linux/idr.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "gpsphc.h"

static LIST_HEAD(gpsphc_devs);
/* Irq-safe: the lookup runs from dcd_change, in the UART's interrupt. */
static DEFINE_SPINLOCK(gpsphc_devs_lock);
static DEFINE_IDA(gpsphc_ida);

static ssize_t tty_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%s\n", to_gpsphc_dev(dev)->tty_name);
}
static DEVICE_ATTR_RO(tty);

static struct attribute *gpsphc_attrs[] = {
	&dev_attr_tty.attr,
	NULL,
};
ATTRIBUTE_GROUPS(gpsphc);

static struct class gpsphc_class = {
	.name = "gpsphc",
	.dev_groups = gpsphc_groups,
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
 * Every device must have been detached before.
 */
void gpsphc_class_unregister(void)
{
	class_unregister(&gpsphc_class);
	ida_destroy(&gpsphc_ida);
}

static void gpsphc_dev_release(struct device *dev)
{
	struct gpsphc_dev *gdev = to_gpsphc_dev(dev);

	ida_free(&gpsphc_ida, gdev->id);
	kfree(gdev);
}

/**
 * gpsphc_dev_lookup() - find the device attached to a tty
 * @tty: the tty
 *
 * The result stays valid for as long as the caller runs inside an ldisc
 * operation of @tty: detach happens in the ldisc's close, which the tty
 * layer never runs concurrently with the other operations.
 *
 * Return: the device, or NULL when @tty has none.
 */
struct gpsphc_dev *gpsphc_dev_lookup(struct tty_struct *tty)
{
	struct gpsphc_dev *gdev, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&gpsphc_devs_lock, flags);
	list_for_each_entry(gdev, &gpsphc_devs, node) {
		if (gdev->tty == tty) {
			found = gdev;
			break;
		}
	}
	spin_unlock_irqrestore(&gpsphc_devs_lock, flags);
	return found;
}

/**
 * gpsphc_dev_attach() - create and register the device for a tty
 * @tty: the tty the discipline is being attached to
 *
 * Return: the new device, or an ERR_PTR() on failure.
 */
struct gpsphc_dev *gpsphc_dev_attach(struct tty_struct *tty)
{
	struct gpsphc_dev *gdev;
	unsigned long flags;
	int ret;

	gdev = kzalloc(sizeof(*gdev), GFP_KERNEL);
	if (!gdev)
		return ERR_PTR(-ENOMEM);

	ret = ida_alloc(&gpsphc_ida, GFP_KERNEL);
	if (ret < 0) {
		kfree(gdev);
		return ERR_PTR(ret);
	}
	gdev->id = ret;
	gdev->tty = tty;
	strscpy(gdev->tty_name, tty->name, sizeof(gdev->tty_name));
	INIT_LIST_HEAD(&gdev->node);

	device_initialize(&gdev->dev);
	gdev->dev.class = &gpsphc_class;
	gdev->dev.parent = tty->dev;
	gdev->dev.release = gpsphc_dev_release;
	dev_set_drvdata(&gdev->dev, gdev);
	ret = dev_set_name(&gdev->dev, "gpsphc%d", gdev->id);
	if (ret)
		goto out_put_dev;

	ret = device_add(&gdev->dev);
	if (ret)
		goto out_put_dev;

	spin_lock_irqsave(&gpsphc_devs_lock, flags);
	list_add_tail(&gdev->node, &gpsphc_devs);
	spin_unlock_irqrestore(&gpsphc_devs_lock, flags);

	return gdev;

out_put_dev:
	/* The release callback frees the id and the structure. */
	put_device(&gdev->dev);
	return ERR_PTR(ret);
}

/**
 * gpsphc_dev_detach() - unregister the device of a tty
 * @tty: the tty the discipline is being detached from
 *
 * The device leaves the lookup list first, so a DCD interrupt that races
 * with the detach finds nothing rather than a device being torn down.
 */
void gpsphc_dev_detach(struct tty_struct *tty)
{
	struct gpsphc_dev *gdev = gpsphc_dev_lookup(tty);
	unsigned long flags;

	/* Attach and detach are paired by the tty layer; nothing to undo. */
	if (WARN_ON_ONCE(!gdev))
		return;

	spin_lock_irqsave(&gpsphc_devs_lock, flags);
	list_del_init(&gdev->node);
	spin_unlock_irqrestore(&gpsphc_devs_lock, flags);

	device_unregister(&gdev->dev);
}
