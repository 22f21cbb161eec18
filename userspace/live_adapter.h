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
	int kmajor, kminor;	/* the running kernel's version */
	int64_t since;		/* CLOCK_MONOTONIC of the attach */
	unsigned long edges;	/* DCD edges since: the caller counts them */
	bool said;		/* live_adapter_no_pps() spoke */
};

/*
 * Attached at @now (CLOCK_MONOTONIC ns): find the driver of @tty_name
 * ("ttyS0", the first "driver" link from its sysfs device up, past the
 * serial core's own) and say it, with whether it delivers DCD.
 */
void live_adapter_probe(struct live_adapter *a, const char *tty_name,
			int64_t now);

/*
 * Once, a few seconds after the attach with fewer edges than seconds
 * (lib/adapter.h's adapter_pps_missing()): why no PPS, and what to do.
 */
void live_adapter_no_pps(struct live_adapter *a, const char *tty_name,
			 int64_t now);

#endif /* GPSPHCD_LIVE_ADAPTER_H */
