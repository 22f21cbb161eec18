/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * live_adapter.h - which driver owns the tty live mode attached, and
 * whether the PPS arrives through it: the driver is found in sysfs and
 * said at attach; when no PPS has come a few seconds later, the reason
 * (lib/adapter.c knows which drivers deliver DCD changes) and what to do
 * are said once, as a warning.
 */
#ifndef GPSPHCD_LIVE_ADAPTER_H
#define GPSPHCD_LIVE_ADAPTER_H

#include <stdbool.h>
#include <stdint.h>

struct live_adapter {
	char driver[64];	/* owner of the tty, "" if not found */
	char pps_gpio[64];	/* the device's GPIO line, "" for DCD */
	uint32_t dev_id;	/* gpsphc<dev_id> */
	int kmajor, kminor;	/* the running kernel's version */
	int64_t since;		/* CLOCK_MONOTONIC of the attach */
	unsigned long edges;	/* DCD edges since: the caller counts them */
	bool said;		/* live_adapter_no_pps() spoke */
};

/*
 * Attached as gpsphc<@dev_id> at @now (CLOCK_MONOTONIC ns): find the
 * driver of @tty_name ("ttyS0", the first "driver" link from its sysfs
 * device up, past the serial core's own) and say it, with whether it
 * delivers DCD, or, with a GPIO line set (live_adapter_pps_gpio() before),
 * that the PPS comes from the line.
 */
void live_adapter_probe(struct live_adapter *a, const char *tty_name,
			uint32_t dev_id, int64_t now);

/*
 * Where the device's PPS comes from, as the kernel last reported it (a
 * dev-get's GPSPHC_A_DEV_PPS_GPIO; NULL: not reported): a GPIO line, or
 * DCD for NULL and "none".
 */
void live_adapter_pps_gpio(struct live_adapter *a, const char *pps_gpio);

/*
 * Once, a few seconds after the attach with fewer edges than seconds
 * (lib/adapter.h's adapter_pps_missing()): why no PPS, and what to do,
 * for DCD or for the GPIO line the PPS comes from.
 */
void live_adapter_no_pps(struct live_adapter *a, const char *tty_name,
			 int64_t now);

#endif /* GPSPHCD_LIVE_ADAPTER_H */
