/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * live_priv.h - the state of one live_run(), shared by live mode's files
 * and private to them: live.c (the main loop) owns it, and each group of
 * fields is marked with the file that keeps it. The tty, the netlink
 * session, the adapter and the service manager have their own headers
 * and take only what they need; live_dev.c, live_events.c and
 * live_label.c work on this.
 */
#ifndef GPSPHCD_LIVE_PRIV_H
#define GPSPHCD_LIVE_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "live.h"
#include "live_adapter.h"
#include "live_nl.h"
#include "metrics_file.h"
#include "pipeline.h"
#include "status.h"

/*
 * Events lost on the way from the kernel: the socket overflowed (ENOBUFS)
 * or a sequence number jumped. An episode is said when it starts and when
 * it ends, never once per lost event.
 */
struct live_loss {
	bool episode;			/* started, its end not said yet */
	int64_t start_ns, last_ns;	/* CLOCK_MONOTONIC */
	unsigned long overflows;	/* ENOBUFS, this episode */
	unsigned long long edges, sentences;	/* by sequence numbers */
};

struct live {
	const struct live_opts *o;
	struct pipeline *p;
	/* live.c */
	int fd;			/* the tty, held open and locked */
	const char *tty_name;	/* e.g. "ttyS0" */
	int64_t next_check;	/* CLOCK_MONOTONIC of the next live_check() */
	uint32_t dev_id;
	uint32_t ptp_index;	/* N of /dev/ptpN */
	bool stored;		/* the tty is in systemd's fd store */
	bool hold;		/* --servo off: labels are printed, not sent */
	struct live_nl nl;	/* the netlink session */
	/* metrics: the textfile; its values from live_dev.c, losses and edges from live_events.c */
	struct metrics_out metrics;
	struct live_adapter adapter;	/* the tty's driver; live_events.c counts edges */
	/* live_events.c */
	bool have_pps_seq, have_sent_seq;
	uint32_t pps_seq, sent_seq;	/* the last seen, see live_seq() */
	struct live_loss loss;
	/* live_dev.c */
	uint32_t got_id, got_ptp;	/* the last dev-get reply */
	uint32_t got_state;		/* its servo state, 0 if none */
	bool got;
	uint32_t servo_state;	/* enum gpsphc_servo_state last said */
	struct status_off_phase off_phase;	/* pulses off its phase, said */
	bool servo_bad;		/* said that the servo nest is malformed */
	/* live_label.c */
	unsigned long labels_good;	/* taken by the kernel, or kept (hold) */
	bool have_last;		/* a label was taken or kept: a time to save */
	bool refused_busy;	/* EBUSY (servo off) since the last label taken */
};

/* CLOCK_MONOTONIC in ns: the loop's, the losses' and the adapter's time. */
static inline int64_t live_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif /* GPSPHCD_LIVE_PRIV_H */
