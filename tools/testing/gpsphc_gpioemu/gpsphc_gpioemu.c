// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc_gpioemu - a GPIO controller whose line 0 carries a PPS
 *
 * TEST ONLY: never load this on a machine that matters.
 *
 * Registers a gpio_chip labelled "gpsphc-gpioemu" with EMU_NGPIO input
 * lines named as a Raspberry Pi's device tree names its header pins
 * (offset 0 is "GPIO18"), and an interrupt controller through gpiolib's
 * own GPIOLIB_IRQCHIP support: each line's interrupt is a real Linux
 * interrupt in the chip's irq domain, with handle_edge_irq. A consumer
 * requests the line and its interrupt through the kernel's GPIO and
 * interrupt code as it would on hardware; nothing of the PPS subsystem
 * or of gpsphc is mocked.
 *
 * Line 0 is driven by a pulse generator: an hrtimer whose callback runs
 * in hard interrupt context (on PREEMPT_RT too: HRTIMER_MODE_ABS_HARD)
 * changes the line's level and, if the line's interrupt is unmasked and
 * its trigger type wants that edge, calls generic_handle_domain_irq(), as
 * a GPIO controller's chained handler does. Pulses are planned on
 * CLOCK_MONOTONIC_RAW like gpsphc_sim's: pulse k rises at
 * t0 + k * (1e9 + ppb) ns and falls width_ms later, t0 the first whole
 * second of the raw clock at least a second after enable. The timer
 * fires EMU_EARLY_NS early and the callback waits for the raw instant
 * (at most EMU_WAIT_NS), as TCG's timer latency would otherwise be far
 * noisier than a receiver's pulse.
 *
 * Control files, /sys/kernel/debug/gpsphc_gpioemu/ (CONTROL.rst):
 *
 *   enable     rw 1 (re)starts the pulses from k = 0, 0 stops them (the
 *              line goes low without an edge, so the next pulse's
 *              rising edge is one)
 *   ppb        rw s64, the pulses' frequency error, +-100000000
 *   width_ms   rw 1..999, from the next pulse on (default 100)
 *   rising     ro rising edges made since load
 *   edges      ro edges made (both kinds) since load
 *   delivered  ro edges that raised the line's interrupt
 *   level      ro line 0's level
 *
 * Locking: emu->lock (raw: taken in the hrtimer's hard interrupt
 * context) protects the lines' levels, their interrupt state and the
 * counters. The generator's plan is the timer callback's own while the
 * timer runs; a write to enable cancels the timer first.
 */

#include <linux/debugfs.h>
#include <linux/gpio/driver.h>
#include <linux/hrtimer.h>
#include <linux/irq.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>

#define EMU_NGPIO	4
#define EMU_EARLY_NS	(2 * NSEC_PER_MSEC)
#define EMU_WAIT_NS	(10 * NSEC_PER_MSEC)
#define EMU_PPB_MAX	100000000LL

static const char * const emu_line_names[EMU_NGPIO] = {
	"GPIO18", "GPIO23", "GPIO24", "GPIO25",
};

struct emu {
	struct gpio_chip gc;
	raw_spinlock_t lock;	/* the fields down to delivered */
	unsigned long level;	/* a bit per line */
	unsigned long unmasked;	/* a bit per line */
	unsigned int type[EMU_NGPIO];
	u64 rising, edges, delivered;

	/* The generator: the timer callback's, or enable's while stopped. */
	struct hrtimer timer;
	bool running;
	bool next_high;
	u64 rise_raw;		/* the pulse due or in progress */
	u64 next_raw;		/* the next edge */
	s64 ppb;		/* WRITE_ONCE by the control file */
	u32 width_ms;		/* likewise */

	struct platform_device *pdev;
	struct dentry *dir;
	struct mutex ctl_lock;	/* serialises enable's writes */
};

static struct emu *emu;

static int emu_get_direction(struct gpio_chip *gc, unsigned int offset)
{
	return GPIO_LINE_DIRECTION_IN;
}

static int emu_direction_input(struct gpio_chip *gc, unsigned int offset)
{
	return 0;
}

static int emu_get(struct gpio_chip *gc, unsigned int offset)
{
	struct emu *e = gpiochip_get_data(gc);
	unsigned long flags;
	int v;

	raw_spin_lock_irqsave(&e->lock, flags);
	v = test_bit(offset, &e->level);
	raw_spin_unlock_irqrestore(&e->lock, flags);
	return v;
}

static void emu_irq_ack(struct irq_data *d)
{
	/* Edges are not latched here: nothing to acknowledge. */
}

static void emu_irq_mask(struct irq_data *d)
{
	struct gpio_chip *gc = irq_data_get_irq_chip_data(d);
	struct emu *e = gpiochip_get_data(gc);
	irq_hw_number_t hw = irqd_to_hwirq(d);
	unsigned long flags;

	raw_spin_lock_irqsave(&e->lock, flags);
	__clear_bit(hw, &e->unmasked);
	raw_spin_unlock_irqrestore(&e->lock, flags);
	gpiochip_disable_irq(gc, hw);
}

static void emu_irq_unmask(struct irq_data *d)
{
	struct gpio_chip *gc = irq_data_get_irq_chip_data(d);
	struct emu *e = gpiochip_get_data(gc);
	irq_hw_number_t hw = irqd_to_hwirq(d);
	unsigned long flags;

	gpiochip_enable_irq(gc, hw);
	raw_spin_lock_irqsave(&e->lock, flags);
	__set_bit(hw, &e->unmasked);
	raw_spin_unlock_irqrestore(&e->lock, flags);
}

static int emu_irq_set_type(struct irq_data *d, unsigned int type)
{
	struct gpio_chip *gc = irq_data_get_irq_chip_data(d);
	struct emu *e = gpiochip_get_data(gc);
	unsigned long flags;

	/* Edges only, as a PPS input needs. */
	if (type & ~IRQ_TYPE_EDGE_BOTH)
		return -EINVAL;
	raw_spin_lock_irqsave(&e->lock, flags);
	e->type[irqd_to_hwirq(d)] = type;
	raw_spin_unlock_irqrestore(&e->lock, flags);
	irq_set_handler_locked(d, handle_edge_irq);
	return 0;
}

static const struct irq_chip emu_irq_chip = {
	.name		= "gpsphc-gpioemu",
	.irq_ack	= emu_irq_ack,
	.irq_mask	= emu_irq_mask,
	.irq_unmask	= emu_irq_unmask,
	.irq_set_type	= emu_irq_set_type,
	.flags		= IRQCHIP_IMMUTABLE,
	GPIOCHIP_IRQ_RESOURCE_HELPERS,
};

/* Line @hw goes to @high; its interrupt fires if it wants the edge. */
static void emu_drive(struct emu *e, unsigned int hw, bool high)
{
	bool fire;

	raw_spin_lock(&e->lock);
	if (test_bit(hw, &e->level) == high) {
		raw_spin_unlock(&e->lock);
		return;
	}
	__assign_bit(hw, &e->level, high);
	e->edges++;
	e->rising += high;
	fire = test_bit(hw, &e->unmasked) &&
	       (e->type[hw] & (high ? IRQ_TYPE_EDGE_RISING :
					IRQ_TYPE_EDGE_FALLING));
	e->delivered += fire;
	raw_spin_unlock(&e->lock);
	if (fire)
		generic_handle_domain_irq(e->gc.irq.domain, hw);
}

static u64 emu_period_ns(struct emu *e)
{
	return NSEC_PER_SEC + READ_ONCE(e->ppb);
}

/* Arm the timer EMU_EARLY_NS before the raw instant of the next edge. */
static void emu_arm(struct emu *e)
{
	s64 mono_minus_raw = ktime_get_ns() - ktime_get_raw_ns();

	hrtimer_set_expires(&e->timer,
			    ns_to_ktime(e->next_raw + mono_minus_raw - EMU_EARLY_NS));
}

static enum hrtimer_restart emu_pulse(struct hrtimer *t)
{
	struct emu *e = container_of(t, struct emu, timer);
	u64 until = ktime_get_raw_ns() + EMU_WAIT_NS;
	u64 now;

	while ((now = ktime_get_raw_ns()) < e->next_raw && now < until)
		cpu_relax();

	emu_drive(e, 0, e->next_high);
	if (e->next_high) {
		e->next_raw = e->rise_raw + READ_ONCE(e->width_ms) * NSEC_PER_MSEC;
	} else {
		e->rise_raw += emu_period_ns(e);
		e->next_raw = e->rise_raw;
	}
	e->next_high = !e->next_high;
	emu_arm(e);
	return HRTIMER_RESTART;
}

static void emu_stop(struct emu *e)
{
	unsigned long flags;

	hrtimer_cancel(&e->timer);
	e->running = false;
	/* Low again, quietly: no interrupt from process context. */
	raw_spin_lock_irqsave(&e->lock, flags);
	__clear_bit(0, &e->level);
	raw_spin_unlock_irqrestore(&e->lock, flags);
}

static int emu_enable_get(void *data, u64 *val)
{
	struct emu *e = data;

	mutex_lock(&e->ctl_lock);
	*val = e->running;
	mutex_unlock(&e->ctl_lock);
	return 0;
}

static int emu_enable_set(void *data, u64 val)
{
	struct emu *e = data;
	u64 now;

	if (val > 1)
		return -EINVAL;
	mutex_lock(&e->ctl_lock);
	emu_stop(e);
	if (val) {
		now = ktime_get_raw_ns() + NSEC_PER_SEC;
		/* no bare 64-bit division: armhf builds this too */
		e->rise_raw = DIV_ROUND_UP_ULL(now, NSEC_PER_SEC) * NSEC_PER_SEC;
		e->next_raw = e->rise_raw;
		e->next_high = true;
		e->running = true;
		emu_arm(e);
		hrtimer_start_expires(&e->timer, HRTIMER_MODE_ABS_HARD);
	}
	mutex_unlock(&e->ctl_lock);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(emu_enable_fops, emu_enable_get, emu_enable_set, "%llu\n");

static int emu_ppb_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct emu *)data)->ppb);
	return 0;
}

static int emu_ppb_set(void *data, u64 val)
{
	s64 ppb = val;

	if (ppb < -EMU_PPB_MAX || ppb > EMU_PPB_MAX)
		return -ERANGE;
	WRITE_ONCE(((struct emu *)data)->ppb, ppb);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(emu_ppb_fops, emu_ppb_get, emu_ppb_set, "%lld\n");

static int emu_width_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct emu *)data)->width_ms);
	return 0;
}

static int emu_width_set(void *data, u64 val)
{
	if (val < 1 || val > 999)
		return -ERANGE;
	WRITE_ONCE(((struct emu *)data)->width_ms, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(emu_width_fops, emu_width_get, emu_width_set, "%llu\n");

/* Read-only numbers: one getter each, under the lock. */
#define EMU_RO_ATTR(name, expr)						\
static int emu_##name##_get(void *data, u64 *val)			\
{									\
	struct emu *e = data;						\
	unsigned long flags;						\
									\
	raw_spin_lock_irqsave(&e->lock, flags);				\
	*val = (expr);							\
	raw_spin_unlock_irqrestore(&e->lock, flags);			\
	return 0;							\
}									\
DEFINE_DEBUGFS_ATTRIBUTE(emu_##name##_fops, emu_##name##_get, NULL, "%llu\n")

EMU_RO_ATTR(rising, e->rising);
EMU_RO_ATTR(edges, e->edges);
EMU_RO_ATTR(delivered, e->delivered);
EMU_RO_ATTR(level, test_bit(0, &e->level));

static void emu_debugfs_init(struct emu *e)
{
	e->dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file_unsafe("enable", 0644, e->dir, e, &emu_enable_fops);
	debugfs_create_file_unsafe("ppb", 0644, e->dir, e, &emu_ppb_fops);
	debugfs_create_file_unsafe("width_ms", 0644, e->dir, e, &emu_width_fops);
	debugfs_create_file_unsafe("rising", 0444, e->dir, e, &emu_rising_fops);
	debugfs_create_file_unsafe("edges", 0444, e->dir, e, &emu_edges_fops);
	debugfs_create_file_unsafe("delivered", 0444, e->dir, e,
				   &emu_delivered_fops);
	debugfs_create_file_unsafe("level", 0444, e->dir, e, &emu_level_fops);
}

static int __init emu_init(void)
{
	struct gpio_irq_chip *girq;
	struct emu *e;
	int ret;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	raw_spin_lock_init(&e->lock);
	mutex_init(&e->ctl_lock);
	e->width_ms = 100;
	/* hrtimer_init(): 6.1 has no hrtimer_setup() (6.13). */
	hrtimer_init(&e->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_HARD);
	e->timer.function = emu_pulse;

	e->pdev = platform_device_register_simple(KBUILD_MODNAME,
						  PLATFORM_DEVID_NONE, NULL, 0);
	if (IS_ERR(e->pdev)) {
		ret = PTR_ERR(e->pdev);
		goto out_free;
	}

	e->gc.label = "gpsphc-gpioemu";
	e->gc.parent = &e->pdev->dev;
	/* A request of a line takes a reference to this module. */
	e->gc.owner = THIS_MODULE;
	e->gc.base = -1;
	e->gc.ngpio = EMU_NGPIO;
	e->gc.names = emu_line_names;
	e->gc.get_direction = emu_get_direction;
	e->gc.direction_input = emu_direction_input;
	e->gc.get = emu_get;
	girq = &e->gc.irq;
	gpio_irq_chip_set_chip(girq, &emu_irq_chip);
	girq->handler = handle_edge_irq;
	girq->default_type = IRQ_TYPE_NONE;
	ret = gpiochip_add_data(&e->gc, e);
	if (ret)
		goto out_unregister_pdev;

	emu_debugfs_init(e);
	emu = e;
	dev_info(&e->pdev->dev, "%u lines, line 0 (%s) the pulse generator's\n",
		 EMU_NGPIO, emu_line_names[0]);
	return 0;

out_unregister_pdev:
	platform_device_unregister(e->pdev);
out_free:
	kfree(e);
	return ret;
}

static void __exit emu_exit(void)
{
	struct emu *e = emu;

	/* No control file can be in use any more after this. */
	debugfs_remove_recursive(e->dir);
	hrtimer_cancel(&e->timer);
	/* Nobody holds a line: that would hold this module too. */
	gpiochip_remove(&e->gc);
	platform_device_unregister(e->pdev);
	kfree(e);
}

module_init(emu_init);
module_exit(emu_exit);

MODULE_DESCRIPTION("A GPIO controller with a PPS on line 0, for gpsphc tests");
MODULE_LICENSE("GPL");
