/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels gpsphc supports (6.1 .. 6.12), kept in
 * one place and force-included by Kbuild so the driver reads as upstream
 * code. Feature tests first, LINUX_VERSION_CODE only where no symbol to
 * test for exists.
 */
#ifndef _GPSPHC_COMPAT_H
#define _GPSPHC_COMPAT_H

#include <linux/version.h>
#include <linux/types.h>

/*
 * v6.6 ("tty: make tty_ldisc_ops::*buf*() hooks operate on size_t",
 * "tty: use u8 for flags") changed the types of the ldisc receive hooks.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
typedef u8 gpsphc_rx_char_t;
typedef u8 gpsphc_rx_flag_t;
typedef size_t gpsphc_rx_count_t;
typedef size_t gpsphc_rx2_ret_t;
typedef size_t gpsphc_lookahead_count_t;
#else
typedef unsigned char gpsphc_rx_char_t;
typedef char gpsphc_rx_flag_t;
typedef int gpsphc_rx_count_t;
typedef int gpsphc_rx2_ret_t;
typedef unsigned int gpsphc_lookahead_count_t;
#endif

/*
 * v6.6 ("netlink: add struct genl_info to struct genl_dumpit_info") moved
 * a dump's parsed attributes into an embedded genl_info.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define gpsphc_dump_attrs(cb)	(genl_info_dump(cb)->attrs)
#else
#define gpsphc_dump_attrs(cb)	(genl_dumpit_info(cb)->attrs)
#endif

/*
 * v6.2 ("genetlink: introduce split op representation") hands a family's
 * pre_doit and post_doit the split op; before, the struct genl_ops.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
struct genl_split_ops;
typedef struct genl_split_ops gpsphc_genl_op_t;
#else
struct genl_ops;
typedef struct genl_ops gpsphc_genl_op_t;
#endif

/*
 * v6.2 ("netlink: make range pointers in policies const"): ynl-gen-c's
 * policies point at const ranges, which 6.1's NLA_POLICY_FULL_RANGE()
 * takes only without the const (netlink never writes through it).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#include <net/netlink.h>
#undef NLA_POLICY_FULL_RANGE
#define NLA_POLICY_FULL_RANGE(tp, _range) {				\
	.type = NLA_ENSURE_UINT_OR_BINARY_TYPE(tp),			\
	.validation_type = NLA_VALIDATE_RANGE_PTR,			\
	.range = (struct netlink_range_validation *)(_range),		\
}
#endif

/*
 * The DPLL subsystem (drivers/dpll, <linux/dpll.h>) came in v6.7 and is
 * built in where a driver selects it: Debian's 6.12 kernels have it
 * (ice, mlx5, ptp_ocp), 6.1 has neither the header nor the symbol, and
 * no kernel has the symbol without the header. Kbuild builds kmod/dpll.c
 * on the same test (gpsphc-$(CONFIG_DPLL)); elsewhere dpll.h's stubs
 * stand in.
 */
#if IS_ENABLED(CONFIG_DPLL)
#define GPSPHC_HAVE_DPLL	1
#else
#define GPSPHC_HAVE_DPLL	0
#endif

/*
 * uart_port_lock_irq() and the other uart port lock helpers came in v6.7
 * ("serial: core: Provide port lock wrappers"); Debian's 6.1 carries them
 * (linux/serial_core.h), so main.c uses them on both supported kernels.
 * An upstream 6.1 .. 6.6 would need spin_lock_irq(&uport->lock) instead.
 */

/*
 * A GPIO line by its chip and offset, as a global GPIO number for
 * gpio_request() (gpio.c): gpiolib exports no request by descriptor
 * (gpiod_request() is its own) on either kernel, and the chip is found
 * differently. v6.7 ("gpiolib: provide gpio_device_find()") replaced
 * gpiochip_find() with gpio_device_find(), which returns a reference to
 * the gpio_device, and gpio_device_to_device() names it; no symbol tells
 * them apart, hence the version. On 6.1, struct gpio_device is gpiolib's
 * own: its device ("gpiochipN") is found as the child of the chip's
 * parent with the chip's fwnode, which names one chip unless a driver
 * registers several on one fwnode (-ENOTUNIQ then: use the label).
 * A label wins over a device name. gpsphc_gpiochip_line() returns the
 * number, or -ENODEV (no such chip), -ENOENT (no such offset),
 * -ENOTUNIQ.
 */
#if IS_ENABLED(CONFIG_GPIOLIB)
#include <linux/device.h>
#include <linux/gpio/driver.h>
#include <linux/string.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
static inline int gpsphc_gpiochip_match(struct gpio_chip *gc, const void *name)
{
	return !strcmp(dev_name(gpio_device_to_device(gc->gpiodev)), name);
}

static inline int gpsphc_gpiochip_line(const char *chip, unsigned int offset)
{
	struct gpio_device *gdev;
	struct gpio_chip *gc;
	int ret = -ENODEV;

	gdev = gpio_device_find_by_label(chip);
	if (!gdev)
		gdev = gpio_device_find(chip, gpsphc_gpiochip_match);
	if (!gdev)
		return -ENODEV;
	/* NULL once the chip's driver removed it. */
	gc = gpio_device_get_chip(gdev);
	if (gc)
		ret = offset < gc->ngpio ?
		      gpio_device_get_base(gdev) + (int)offset : -ENOENT;
	gpio_device_put(gdev);
	return ret;
}
#else
struct gpsphc_gpiochip_find {
	const char *name;
	unsigned int offset;
	int gpio;
	int named;
};

/* Called under gpiolib's spinlock: the chip cannot go meanwhile. */
static inline int gpsphc_gpiochip_match(struct gpio_chip *gc, void *data)
{
	struct gpsphc_gpiochip_find *f = data;
	int gpio = f->offset < gc->ngpio ? gc->base + (int)f->offset : -ENOENT;
	struct device *dev;
	bool hit;

	if (!strcmp(gc->label, f->name)) {
		f->gpio = gpio;
		return 1;
	}
	if (!gc->parent || strncmp(f->name, "gpiochip", 8))
		return 0;
	dev = device_find_child_by_name(gc->parent, f->name);
	if (!dev)
		return 0;
	hit = dev_fwnode(dev) == (gc->fwnode ?: dev_fwnode(gc->parent));
	put_device(dev);
	if (hit && !f->named++)
		f->gpio = gpio;
	return 0;
}

static inline int gpsphc_gpiochip_line(const char *chip, unsigned int offset)
{
	struct gpsphc_gpiochip_find f = { .name = chip, .offset = offset };

	if (gpiochip_find(&f, gpsphc_gpiochip_match))
		return f.gpio;
	if (f.named > 1)
		return -ENOTUNIQ;
	return f.named ? f.gpio : -ENODEV;
}
#endif
#endif /* CONFIG_GPIOLIB */

#endif /* _GPSPHC_COMPAT_H */
