/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc: PPS edges from a GPIO line (gpio.c), for boards whose UART has
 * no DCD: the line's interrupt takes the timestamp and the same capture
 * as DCD (pps.c) gives it to every consumer.
 */
#ifndef _GPSPHC_GPIO_H
#define _GPSPHC_GPIO_H

#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>

struct gpsphc_dev;

/* What pps_gpio holds at most: "CHIP:OFFSET" or a line name. */
#define GPSPHC_GPIO_SPEC_LEN	64

/*
 * A kernel without gpiolib (the debug test kernel: CONFIG_GPIOLIB is not
 * set) has no line to take: pps_gpio stays "none" and a line is refused
 * with EOPNOTSUPP. Kbuild builds gpio.c on the same test.
 */
#if IS_ENABLED(CONFIG_GPIOLIB)
void gpsphc_gpio_init(struct gpsphc_dev *gdev);
void gpsphc_gpio_start(struct gpsphc_dev *gdev);
void gpsphc_gpio_stop(struct gpsphc_dev *gdev);
int gpsphc_gpio_set(struct gpsphc_dev *gdev, const char *spec);
void gpsphc_gpio_get(struct gpsphc_dev *gdev, char *spec, size_t size);
bool gpsphc_gpio_in_use(struct gpsphc_dev *gdev);
#else
static inline void gpsphc_gpio_init(struct gpsphc_dev *gdev) {}
static inline void gpsphc_gpio_start(struct gpsphc_dev *gdev) {}
static inline void gpsphc_gpio_stop(struct gpsphc_dev *gdev) {}

static inline int gpsphc_gpio_set(struct gpsphc_dev *gdev, const char *spec)
{
	return sysfs_streq(spec, "none") || sysfs_streq(spec, "") ?
	       0 : -EOPNOTSUPP;
}

static inline void gpsphc_gpio_get(struct gpsphc_dev *gdev, char *spec,
				   size_t size)
{
	strscpy(spec, "none", size);
}

static inline bool gpsphc_gpio_in_use(struct gpsphc_dev *gdev)
{
	return false;
}
#endif

#endif /* _GPSPHC_GPIO_H */
