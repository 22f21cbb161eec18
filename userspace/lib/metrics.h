/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * metrics.h - gpsphc devices in Prometheus's text exposition format
 * (version 0.0.4, what node_exporter's textfile collector reads): values
 * in, text out. No I/O, no clock, no globals; gpsphcd fills the values
 * from the same dev-get reply that gpsphcd --status --json prints, and
 * writes the text (metrics_file.c).
 *
 * Every metric is named gpsphc_..., in base units (seconds, a ratio for
 * the frequency), counters end in _total, and every sample carries the
 * device's tty as the label "tty". The servo's counters are
 * gpsphc_servo_<key>_total and the device's gpsphc_<key>_total, <key> the
 * counter's key in --status --json (names.h): a counter the module adds
 * appears in both, by the same name. The list, with what each means, is in
 * gpsphcd(8) and the admin guide.
 */
#ifndef GPSPHC_METRICS_H
#define GPSPHC_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linux/gpsphc.h"

/* One device: what a dev-get reply says (0 where it says nothing), and gpsphcd's own. */
struct gp_metrics_dev {
	const char *tty;		/* "ttyS0": the label of every sample */
	uint32_t id, ptp_index, pps_index;
	/* the servo nest, as in --status --json's "servo" */
	uint32_t state;			/* enum gpsphc_servo_state, 0 unknown */
	bool coarse;
	int64_t offset_ns;
	uint64_t rms_ns;
	int64_t freq_ppb;
	uint32_t tai_utc;		/* TAI - UTC, s */
	uint32_t leap;			/* enum gpsphc_leap, 0 unknown */
	uint64_t leap_utc;		/* UTC seconds of the leap, 0 none */
	uint64_t holdover_s;
	uint32_t off_phase_count;
	int64_t off_phase_ns;
	uint64_t servo[GPSPHC_A_SERVO_MAX + 1];	/* counters, by attribute */
	uint64_t stats[GPSPHC_A_STATS_MAX + 1];	/* the stats nest, by attribute */
	/* gpsphcd's own: absent from a --status dump (has_daemon false) */
	bool has_daemon;
	int64_t last_edge_real_ns;	/* CLOCK_REALTIME of the last on-time edge, 0 none */
	uint64_t lost_edges, lost_sentences;	/* sequence gaps */
	uint64_t overflows;		/* events socket overflows */
	int clock_class;		/* acknowledged by ptp4l; -1: no client or no answer */
};

/*
 * The exposition of @n devices into @buf (@size bytes, NUL-terminated if
 * @size is not 0), each metric family once, with its HELP and TYPE lines
 * and a sample per device. A device whose tty an earlier one has is left
 * out (series must be unique); a NULL tty reads "". Returns the length of
 * the whole text, as snprintf does: when it is @size or more, the text
 * was cut and a buffer of the returned length + 1 holds it.
 */
size_t gp_metrics_render(char *buf, size_t size,
			 const struct gp_metrics_dev *devs, size_t n);

#endif /* GPSPHC_METRICS_H */
