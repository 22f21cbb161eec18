// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: PPS edges from a GPIO line, for boards whose UART has no DCD
 * (the Raspberry Pi wiring: NMEA on ttyAMA0, PPS on GPIO 18).
 *
 * The device requests the line itself (pps_gpio in sysfs) and, while it
 * holds it, its edges stand in for DCD's: the DCD callback drops its
 * edges (gpsphc_gpio_in_use()). Both edges are requested; the device's
 * edge setting says which is on time, as for DCD.
 *
 * The interrupt is requested with IRQF_ONESHOT, which forced threading
 * (threadirqs, PREEMPT_RT) leaves alone, so the primary handler runs in
 * hard interrupt context on every kernel and takes the timestamp as its
 * first statement. It hands the timestamp and the line's level to the
 * interrupt's thread through a small ring; the thread gives them to the
 * capture the DCD path uses (gpsphc_pps_capture(): seq, /dev/ppsN,
 * EXTTS, the queue), which takes spinlock_t locks (the PPS core's among
 * them) that sleep on PREEMPT_RT and so cannot be taken in a hard
 * interrupt there. The timestamp every consumer gets is the primary
 * handler's: what the thread adds is latency of the notification only.
 * pps-gpio splits its handler the same way, for the same reason.
 *
 * Lifetime: the line and the interrupt belong to the device; gpio_lock
 * serialises setting them with dev.c's gpsphc_gpio_start() and
 * gpsphc_gpio_stop(). Stop runs first in detach, before anything the
 * capture feeds goes away: free_irq() waits for the primary handler and
 * the thread, then the line is released. While the line is held, gpiolib
 * holds a reference to its chip's module and gpio_device, so the chip's
 * driver cannot go away under it.
 */

#include <linux/ctype.h>
#include <linux/gpio.h>
#include <linux/gpio/consumer.h>
#include <linux/gpio/machine.h>
#include <linux/interrupt.h>
#include <linux/kfifo.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "dev.h"
#include "gpio.h"
#include "pps.h"

/* Edges between the primary handler and the thread: 4 s at 1 Hz. */
#define GPSPHC_GPIO_RING	8

struct gpsphc_gpio_edge {
	struct system_time_snapshot snap;
	bool level;
};

/**
 * struct gpsphc_gpio - the GPIO line a device takes its PPS from
 * @gdev:	the device
 * @desc:	the line, requested by the device
 * @irq:	its interrupt
 * @edges:	edges from the primary handler (the one writer) to the
 *		thread (the one reader): a kfifo needs no lock for that
 * @spec:	what was written to pps_gpio, shown back
 * @label:	the line's consumer and the interrupt's name ("gpsphc<id>")
 */
struct gpsphc_gpio {
	struct gpsphc_dev *gdev;
	struct gpio_desc *desc;
	unsigned int irq;
	DECLARE_KFIFO(edges, struct gpsphc_gpio_edge, GPSPHC_GPIO_RING);
	char spec[GPSPHC_GPIO_SPEC_LEN];
	char label[16];
};

/**
 * gpsphc_gpio_init() - set up the GPIO state of a new device
 * @gdev: the device, before anything can reach it
 *
 * No line can be set until gpsphc_gpio_start().
 */
void gpsphc_gpio_init(struct gpsphc_dev *gdev)
{
	mutex_init(&gdev->gpio_lock);
	gdev->gpio_open = false;
	gdev->pps_gpio = NULL;
}

/**
 * gpsphc_gpio_in_use() - do a GPIO line's edges stand in for DCD's?
 * @gdev: the device
 *
 * Context: any; the DCD callback asks it.
 */
bool gpsphc_gpio_in_use(struct gpsphc_dev *gdev)
{
	return READ_ONCE(gdev->pps_gpio);
}

/* The primary handler: hard interrupt context, on PREEMPT_RT too. */
static irqreturn_t gpsphc_gpio_hardirq(int irq, void *data)
{
	struct gpsphc_gpio *g = data;
	struct gpsphc_gpio_edge e;

	/* The timestamp is the whole point: take it before anything else. */
	ktime_get_snapshot(&e.snap);
	e.level = gpiod_get_raw_value(g->desc) > 0;
	/* Full only when the thread has not run for seconds: drop it. */
	if (!kfifo_put(&g->edges, e)) {
		atomic64_inc(&g->gdev->pps_lost);
		return IRQ_HANDLED;
	}
	return IRQ_WAKE_THREAD;
}

static irqreturn_t gpsphc_gpio_thread(int irq, void *data)
{
	struct gpsphc_gpio *g = data;
	struct gpsphc_gpio_edge e;

	while (kfifo_get(&g->edges, &e))
		gpsphc_pps_capture(g->gdev, &e.snap, e.level);
	return IRQ_HANDLED;
}

/*
 * Request the line named by a line name, through a lookup table of one
 * entry for this device: gpiolib exports no other lookup by line name
 * (gpio_name_to_desc() is its own). gpiod_get() requests the line with
 * the references that keep its chip.
 */
static struct gpio_desc *gpsphc_gpio_get_by_name(struct gpsphc_dev *gdev,
						 const char *name)
{
	struct gpiod_lookup_table *table;
	struct gpio_desc *desc;

	table = kzalloc(struct_size(table, table, 2), GFP_KERNEL);
	if (!table)
		return ERR_PTR(-ENOMEM);
	table->dev_id = dev_name(&gdev->dev);
	table->table[0] = GPIO_LOOKUP(name, U16_MAX, NULL, GPIO_ACTIVE_HIGH);
	gpiod_add_lookup_table(table);
	desc = gpiod_get(&gdev->dev, NULL, GPIOD_IN);
	gpiod_remove_lookup_table(table);
	kfree(table);
	/* gpiolib defers when no line has the name: none here. */
	if (desc == ERR_PTR(-EPROBE_DEFER))
		return ERR_PTR(-ENOENT);
	return desc;
}

/*
 * Request line @offset of the chip labelled or named (gpiochipN) @chip,
 * by its global number: gpio_request() takes the references that keep
 * the chip, and gpiolib exports no request by descriptor.
 */
static struct gpio_desc *gpsphc_gpio_get_by_chip(struct gpsphc_gpio *g,
						 const char *chip,
						 unsigned int offset)
{
	struct gpio_desc *desc;
	int gpio, ret;

	gpio = gpsphc_gpiochip_line(chip, offset);
	if (gpio < 0)
		return ERR_PTR(gpio);
	ret = gpio_request(gpio, g->label);
	/* The chip went away since the lookup. */
	if (ret == -EPROBE_DEFER)
		ret = -ENODEV;
	if (ret)
		return ERR_PTR(ret);
	desc = gpio_to_desc(gpio);
	ret = gpiod_direction_input(desc);
	if (ret) {
		gpiod_put(desc);
		return ERR_PTR(ret);
	}
	return desc;
}

/*
 * Parse @spec: "CHIP:OFFSET" (*@chip and *@offset) or a line name (*@chip
 * NULL). @spec is changed: the colon ends CHIP.
 */
static int gpsphc_gpio_parse(char *spec, char **chip, unsigned int *offset)
{
	char *colon;
	u16 off;
	char *c;

	for (c = spec; *c; c++)
		if (!isgraph(*c))
			return -EINVAL;
	colon = strrchr(spec, ':');
	*chip = NULL;
	if (!colon)
		return 0;
	*colon = '\0';
	if (!*spec || kstrtou16(colon + 1, 10, &off) || off == U16_MAX)
		return -EINVAL;
	*chip = spec;
	*offset = off;
	return 0;
}

static void gpsphc_gpio_release_locked(struct gpsphc_dev *gdev)
{
	struct gpsphc_gpio *g = gdev->pps_gpio;

	lockdep_assert_held(&gdev->gpio_lock);
	if (!g)
		return;
	/* Waits for the primary handler and the thread. */
	free_irq(g->irq, g);
	gpiod_put(g->desc);
	WRITE_ONCE(gdev->pps_gpio, NULL);
	kfree(g);
}

static int gpsphc_gpio_request_locked(struct gpsphc_dev *gdev,
				      const char *spec)
{
	char parsed[GPSPHC_GPIO_SPEC_LEN];
	struct gpsphc_gpio *g;
	unsigned int offset;
	char *chip;
	int ret;

	lockdep_assert_held(&gdev->gpio_lock);
	strscpy(parsed, spec, sizeof(parsed));
	ret = gpsphc_gpio_parse(parsed, &chip, &offset);
	if (ret)
		return ret;

	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	g->gdev = gdev;
	INIT_KFIFO(g->edges);
	strscpy(g->spec, spec, sizeof(g->spec));
	snprintf(g->label, sizeof(g->label), "gpsphc%u", gdev->id);

	if (chip)
		g->desc = gpsphc_gpio_get_by_chip(g, chip, offset);
	else
		g->desc = gpsphc_gpio_get_by_name(gdev, parsed);
	if (IS_ERR(g->desc)) {
		ret = PTR_ERR(g->desc);
		goto out_free;
	}

	/*
	 * A controller behind a slow bus (I2C, SPI) has nested threaded
	 * interrupts: no handler of its lines runs in hard interrupt context.
	 */
	if (gpiod_cansleep(g->desc)) {
		ret = -EOPNOTSUPP;
		goto out_put_line;
	}
	ret = gpiod_to_irq(g->desc);
	if (ret <= 0) {
		ret = ret ?: -ENXIO;
		goto out_put_line;
	}
	g->irq = ret;

	/* From the first edge on, DCD's are dropped. */
	WRITE_ONCE(gdev->pps_gpio, g);
	ret = request_threaded_irq(g->irq, gpsphc_gpio_hardirq,
				   gpsphc_gpio_thread,
				   IRQF_TRIGGER_RISING | IRQF_TRIGGER_FALLING |
				   IRQF_ONESHOT, g->label, g);
	if (ret)
		goto out_no_gpio;
	return 0;

out_no_gpio:
	WRITE_ONCE(gdev->pps_gpio, NULL);
out_put_line:
	gpiod_put(g->desc);
out_free:
	kfree(g);
	return ret;
}

/**
 * gpsphc_gpio_set() - take the PPS from a GPIO line, or from DCD again
 * @gdev: the device
 * @spec: "CHIP:OFFSET" (CHIP a gpiochip's label or its device name,
 *	gpiochipN), a line name, or "none" or nothing for DCD; a trailing
 *	newline is ignored
 *
 * A write that fails leaves the device as it was: one that cannot name a
 * line (its syntax) touches nothing, and the line in use, released first
 * (so that another name of the same line can take it), is taken back if
 * the new one cannot be had; only if that fails too (someone took it
 * meanwhile) is the device left on DCD, which the kernel log says.
 * Writing the line in use again changes nothing.
 *
 * Context: process; takes gpio_lock.
 * Return: 0; -ENODEV (no such chip, or the device is detaching), -ENOENT
 * (no such line), -EBUSY (another driver holds the line), -EINVAL (bad
 * syntax), -EOPNOTSUPP (a controller that sleeps), or another errno from
 * gpiolib or the interrupt core.
 */
int gpsphc_gpio_set(struct gpsphc_dev *gdev, const char *spec)
{
	char buf[GPSPHC_GPIO_SPEC_LEN], parsed[GPSPHC_GPIO_SPEC_LEN];
	char old[GPSPHC_GPIO_SPEC_LEN] = "";
	unsigned int offset;
	char *chip;
	bool none;
	int ret;

	if (strscpy(buf, spec, sizeof(buf)) < 0)
		return -EINVAL;
	strim(buf);
	none = !*buf || !strcmp(buf, "none");
	strscpy(parsed, buf, sizeof(parsed));
	if (!none && gpsphc_gpio_parse(parsed, &chip, &offset))
		return -EINVAL;

	mutex_lock(&gdev->gpio_lock);
	if (!gdev->gpio_open) {
		ret = -ENODEV;
	} else if (gdev->pps_gpio && !strcmp(gdev->pps_gpio->spec, buf)) {
		ret = 0;
	} else {
		if (gdev->pps_gpio)
			strscpy(old, gdev->pps_gpio->spec, sizeof(old));
		gpsphc_gpio_release_locked(gdev);
		ret = none ? 0 : gpsphc_gpio_request_locked(gdev, buf);
		if (ret && *old && gpsphc_gpio_request_locked(gdev, old))
			dev_warn(&gdev->dev, "pps_gpio: %s refused (%pe), and %s could not be taken back: the PPS comes from DCD now\n",
				 buf, ERR_PTR(ret), old);
	}
	mutex_unlock(&gdev->gpio_lock);
	return ret;
}

/**
 * gpsphc_gpio_get() - the line in use, as set, or "none"
 * @gdev: the device
 * @spec: where to put it
 * @size: its size
 *
 * Context: process; takes gpio_lock.
 */
void gpsphc_gpio_get(struct gpsphc_dev *gdev, char *spec, size_t size)
{
	mutex_lock(&gdev->gpio_lock);
	strscpy(spec, gdev->pps_gpio ? gdev->pps_gpio->spec : "none", size);
	mutex_unlock(&gdev->gpio_lock);
}

/**
 * gpsphc_gpio_start() - a line may be set from now on
 * @gdev: the device, with its PPS source and clock registered
 */
void gpsphc_gpio_start(struct gpsphc_dev *gdev)
{
	mutex_lock(&gdev->gpio_lock);
	gdev->gpio_open = true;
	mutex_unlock(&gdev->gpio_lock);
}

/**
 * gpsphc_gpio_stop() - release the line for good
 * @gdev: the device, detaching
 *
 * Once it returns, no edge of the line reaches the capture, and no line
 * can be set any more (-ENODEV). Detach calls it before anything the
 * capture feeds goes away.
 */
void gpsphc_gpio_stop(struct gpsphc_dev *gdev)
{
	mutex_lock(&gdev->gpio_lock);
	gdev->gpio_open = false;
	gpsphc_gpio_release_locked(gdev);
	mutex_unlock(&gdev->gpio_lock);
}
