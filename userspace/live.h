/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * live.h - gpsphcd's live mode: attach the gpsphc line discipline to a tty,
 * subscribe to the kernel's events over generic netlink, feed them to the
 * labelling pipeline, optionally print or record them.
 */
#ifndef GPSPHCD_LIVE_H
#define GPSPHCD_LIVE_H

#include <stdbool.h>
#include <stdio.h>

#include "conf.h"
#include "pipeline.h"

struct live_opts {
	const char *device;	/* e.g. /dev/ttyS0 */
	/*
	 * Settings applied at attach, each only if given (conf.set): baud
	 * to the tty; edge, pps_gpio, servo, clock_servo, scale, step_ns,
	 * confirm_n and rx_latency_ns to the device in one dev-set.
	 */
	struct conf conf;
	int ldisc;		/* the module's line discipline number */
	bool print_labels;	/* one line per label on stdout */
	bool dump_events;	/* one line per event on stdout */
	FILE *record;		/* --record capture, or NULL */
	const char *state;	/* last-good time file, or NULL */
	struct ptp4l_gm *gm;	/* --ptp4l-socket: ptp4l to keep in step, or NULL */
	struct nmea_pty *nmea_pty;	/* nmea_pty: sentences for gpsd, or NULL */
};

/* live_run()'s exit statuses besides 0 and 1 (gpsphcd(8), EXIT STATUS). */
#define LIVE_EXIT_LOST	3	/* another process replaced the discipline */
#define LIVE_EXIT_BUSY	4	/* another process holds the tty: untouched */

/*
 * Run until SIGINT/SIGTERM, hangup, or the device is lost: 0 on a clean
 * stop, 1 on error, or LIVE_EXIT_*.
 */
int live_run(const struct live_opts *o, struct pipeline *p);

#endif /* GPSPHCD_LIVE_H */
