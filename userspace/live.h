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

#include "pipeline.h"

/* --servo: what to set GPSPHC_A_DEV_SERVO_OFF to after attaching. */
enum live_servo {
	LIVE_SERVO_LEAVE,	/* no --servo: leave the setting as it is */
	LIVE_SERVO_ON,		/* the kernel servo steers the clock */
	LIVE_SERVO_OFF,		/* it leaves the clock to ts2phc or ptp4l */
};

struct live_opts {
	const char *device;	/* e.g. /dev/ttyS0 */
	unsigned int baud;	/* 0: leave the speed as it is */
	unsigned int edge;	/* enum gpsphc_edge, 0: leave it */
	int servo;		/* enum live_servo: the kernel servo */
	int ldisc;		/* the module's line discipline number */
	bool dump_events;	/* one line per event on stdout */
	FILE *record;		/* --record capture, or NULL */
	const char *state;	/* last-good time file, or NULL */
	struct ptp4l_gm *gm;	/* --ptp4l-socket: ptp4l to keep in step, or NULL */
};

/* Parse "4800".."921600" into @baud; false if not a standard rate. */
bool live_parse_baud(const char *s, unsigned int *baud);
/* Parse "rising"/"falling" into enum gpsphc_edge; false otherwise. */
bool live_parse_edge(const char *s, unsigned int *edge);
/* Parse "on"/"off" into enum live_servo; false otherwise. */
bool live_parse_servo(const char *s, int *servo);

/* live_run()'s exit statuses besides 0 and 1 (gpsphcd(8), EXIT STATUS). */
#define LIVE_EXIT_LOST	3	/* another process replaced the discipline */
#define LIVE_EXIT_BUSY	4	/* another process holds the tty: untouched */

/*
 * Run until SIGINT/SIGTERM, hangup, or the device is lost: 0 on a clean
 * stop, 1 on error, or LIVE_EXIT_*.
 */
int live_run(const struct live_opts *o, struct pipeline *p);

#endif /* GPSPHCD_LIVE_H */
