/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * metrics_file.h - gpsphcd's Prometheus metrics (gpsphc.conf(5) metrics,
 * --metrics): the device's values from its dev-get reply, the same reply
 * gpsphcd --status --json prints, and gpsphcd's own (the last edge, lost
 * events, ptp4l's clockClass), rendered by lib/metrics.c and written
 * every interval as a file that replaces the last one at once (a
 * temporary file in the same directory, then rename()), for
 * node_exporter's textfile collector.
 */
#ifndef GPSPHCD_METRICS_FILE_H
#define GPSPHCD_METRICS_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "metrics.h"
#include "servo_status.h"

struct nlattr;

/*
 * A dev-get reply's attributes (@tb, parsed up to GPSPHC_A_DEV_MAX), with
 * its servo nest decoded into @sv (servo_status_parse()), into @d: every
 * field the kernel reports, 0 for what it leaves out, as --status does.
 * The tty, gpsphcd's own fields and has_daemon stay.
 */
void metrics_from_dev(struct nlattr **tb, const struct servo_status *sv,
		      struct gp_metrics_dev *d);

struct metrics_out {
	const char *path;		/* NULL: no metrics */
	unsigned int interval_s;
	int64_t next_ns;		/* CLOCK_MONOTONIC of the next write */
	bool have_dev;			/* a dev-get reply came */
	bool failing;			/* the last write failed (said once) */
	struct gp_metrics_dev dev;
};

/*
 * Write @m->dev to @m->path if @now_ns (CLOCK_MONOTONIC) is past the
 * interval: 0, or -1 after saying why (once, until a write succeeds).
 */
int metrics_out_tick(struct metrics_out *m, int64_t now_ns);

/* The text of @d into @path, atomically, mode 0644: 0, or -1 with errno. */
int metrics_write(const char *path, const struct gp_metrics_dev *d);

/* gpsphcd stops: the file goes, so that its series do not outlive it. */
void metrics_out_close(struct metrics_out *m);

#endif /* GPSPHCD_METRICS_FILE_H */
