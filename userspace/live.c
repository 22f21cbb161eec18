// SPDX-License-Identifier: GPL-2.0-only
/*
 * live.c - gpsphcd's live mode: the main loop. It takes the tty
 * (live_tty.c; from systemd's fd store if a gpsphcd before it left it
 * there, live_sd.c), opens the netlink session (live_nl.c) and finds its
 * device (live_dev.c), then reads the kernel's events (live_events.c),
 * whose labels go back to the kernel (live_label.c), until it is stopped,
 * the tty hangs up, or the device is no longer its own. Each second, by
 * the clock however many events come, it checks the discipline and the
 * device, and writes the metrics.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "linux/gpsphc.h"
#include "live.h"
#include "live_adapter.h"
#include "live_dev.h"
#include "live_events.h"
#include "live_label.h"
#include "live_nl.h"
#include "live_priv.h"
#include "live_sd.h"
#include "live_tty.h"
#include "log.h"
#include "metrics_file.h"
#include "names.h"
#include "nmea_pty.h"
#include "ptp4l_gm.h"

static volatile sig_atomic_t live_stop;

static void on_signal(int sig)
{
	(void)sig;
	live_stop = 1;
}

/* How often the tty and the device are checked while nothing happens. */
#define LIVE_CHECK_NS	1000000000LL

/*
 * The netlink session, the device of the tty, the settings of the options
 * and the configuration file, and the events group: 0, or -1 said.
 */
static int live_setup_netlink(struct live *l)
{
	int ret;

	if (live_nl_open(&l->nl) || live_dev_get(l, 0))
		return -1;
	l->dev_id = l->got_id;
	l->ptp_index = l->got_ptp;
	l->servo_state = l->got_state;
	/*
	 * The settings of the options and the configuration file in one
	 * dev-set: the kernel applies all or none. At every attach, and
	 * again on a device taken over from the fd store (the same values:
	 * nothing moves).
	 */
	ret = live_nl_dev_set(&l->nl, l->dev_id, &l->o->conf);
	if (ret < 0)
		return -1;
	if (ret > 0)
		l->hold = l->o->conf.servo == CONF_SERVO_OFF;
	return live_nl_join(&l->nl);
}

/*
 * Is the device still this process's? Another process may have replaced
 * the discipline (TIOCSETD), or detached it and attached it again (a new
 * device). Returns 0, or the exit status with the reason said.
 */
static int live_check(struct live *l)
{
	int ld, ret;

	if (ioctl(l->fd, TIOCGETD, &ld)) {
		log_msg(LOG_ERR, "%s: cannot read its line discipline (%s): hung up? stopping",
			l->o->device, strerror(errno));
		return 1;
	}
	if (ld != l->o->ldisc) {
		log_msg(LOG_ERR, "the gpsphc line discipline on %s was replaced by another process (now discipline %d); exiting so that the service restarts it (find what sets it: %s)",
			l->tty_name, ld, "fuser -v /dev/<tty>, an ldattach or a getty");
		return LIVE_EXIT_LOST;
	}
	ret = live_dev_get(l, -ENODEV);
	if (ret && l->nl.ack_err == -ENODEV) {
		log_msg(LOG_ERR, "%s has the gpsphc line discipline but the kernel has no device for it: it was detached and attached again by another process; exiting so that the service restarts it",
			l->tty_name);
		return LIVE_EXIT_LOST;
	}
	/* Not an answer (printed): the next check tries again. */
	if (ret)
		return 0;
	if (l->got_id != l->dev_id) {
		log_msg(LOG_ERR, "%s is now gpsphc%" PRIu32 ", not gpsphc%" PRIu32 ": another process detached the discipline and attached it again; exiting so that the service restarts it",
			l->tty_name, l->got_id, l->dev_id);
		return LIVE_EXIT_LOST;
	}
	return 0;
}

/* metrics: the values of the last dev-get, and gpsphcd's, once an interval. */
static void live_metrics(struct live *l, int64_t now)
{
	struct ptpm_gm_settings gs;

	l->metrics.dev.clock_class = l->o->gm && ptp4l_gm_acked(l->o->gm, &gs) ?
				     gs.clock_class : -1;
	metrics_out_tick(&l->metrics, now);
}

int live_run(const struct live_opts *o, struct pipeline *p)
{
	struct live l = { .o = o, .p = p };
	struct sigaction sa = { .sa_handler = on_signal };
	char path[PATH_MAX];
	int ret = 1;
	bool reused;

	if (!realpath(o->device, path)) {
		log_msg(LOG_ERR, "%s: %s", o->device, strerror(errno));
		return 1;
	}
	l.tty_name = strrchr(path, '/') + 1;
	if (o->conf.set & (1u << CONF_METRICS))
		l.metrics = (struct metrics_out){
			.path = o->conf.metrics,
			.interval_s = o->conf.set & (1u << CONF_METRICS_INTERVAL) ?
				      o->conf.metrics_interval : CONF_METRICS_INTERVAL_DEF,
			.dev = { .tty = l.tty_name, .has_daemon = true },
		};
	l.fd = live_tty_attach(o, live_sd_stored_tty(path, o->nmea_pty ?
						     o->nmea_pty->master : -1),
			       &ret, &reused);
	if (l.fd < 0)
		return ret;
	ret = 1;
	l.stored = reused || live_sd_store(l.fd);
	if (live_setup_netlink(&l))
		goto out_detach;
	/* Events are not answers to our requests: their sequence numbers are 0. */
	nl_socket_disable_seq_check(l.nl.sk);
	nl_socket_modify_cb(l.nl.sk, NL_CB_VALID, NL_CB_CUSTOM, live_event_cb, &l);
	p->emit = live_label;
	p->ctx = &l;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	live_tty_keep_dcd(l.fd);
	if (reused)
		log_msg(LOG_INFO, "%s: took over gpsphc%" PRIu32 " (/dev/ptp%" PRIu32 ", servo %s) from the file descriptor store: the clock stayed in place",
			o->device, l.dev_id, l.ptp_index,
			gp_enum_name(GP_ENUM_SERVO_STATE, l.servo_state));
	else
		log_msg(LOG_INFO, "%s attached as gpsphc%" PRIu32, o->device, l.dev_id);
	/* The line the settings just gave the device, else its own. */
	if (o->conf.set & (1u << CONF_PPS_GPIO))
		live_adapter_pps_gpio(&l.adapter, o->conf.pps_gpio);
	live_adapter_probe(&l.adapter, l.tty_name, l.dev_id, live_now_ns());
	if (l.hold)
		log_msg(LOG_NOTICE, "the kernel servo is off (--servo off): labels are printed, not sent; steer /dev/ptp%" PRIu32 " with ts2phc or ptp4l",
			l.ptp_index);
	if (o->nmea_pty)
		nmea_pty_publish(o->nmea_pty);
	/* The device and its PTP clock exist: ready. */
	live_notify_status(&l, "READY=1\n");

	l.next_check = live_now_ns() + LIVE_CHECK_NS;
	while (!live_stop) {
		struct pollfd pfd[2] = {
			{ .fd = nl_socket_get_fd(l.nl.sk), .events = POLLIN },
			{ .fd = l.fd, .events = 0 },	/* POLLHUP: unplugged */
		};
		int64_t now = live_now_ns();

		/* Checked by the clock: a flood of events must not delay it. */
		if (now >= l.next_check) {
			ret = live_check(&l);
			if (ret == LIVE_EXIT_LOST)
				goto out_lost;
			if (ret)
				goto out_detach;
			live_loss_over(&l, now);
			live_adapter_no_pps(&l.adapter, l.tty_name, now);
			l.next_check = now + LIVE_CHECK_NS;
			live_metrics(&l, now);
		}
		if (poll(pfd, 2, (int)((l.next_check - now) / 1000000) + 1) < 0) {
			if (errno == EINTR)
				continue;
			log_msg(LOG_ERR, "poll: %s", strerror(errno));
			goto out_detach;
		}
		if (pfd[1].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			log_msg(LOG_ERR, "%s hung up (unplugged?): stopping", o->device);
			goto out_detach;
		}
		if (pfd[0].revents & (POLLIN | POLLERR))
			live_read_events(&l);
	}
	ret = 0;
	live_sd_stopping();
	live_save_state(&l);
	/*
	 * Stopped or restarted by the service manager, which holds the tty:
	 * the clock stays for the next gpsphcd (restart), or goes when
	 * systemd closes its copy (stop).
	 */
	if (l.stored) {
		log_msg(LOG_INFO, "%s: stopping; the tty stays with the service manager, and gpsphc%" PRIu32 " (/dev/ptp%" PRIu32 ") with it until the service is stopped",
			o->device, l.dev_id, l.ptp_index);
		goto out_close;
	}
out_detach:
	live_tty_detach(l.fd);
	goto out_release;
out_lost:
	/* The discipline is another process's now: left as it is. */
	live_save_state(&l);
out_release:
	if (l.stored)
		live_sd_unstore();
out_close:
	/* Whichever way it ends: a file left would be scraped as live. */
	metrics_out_close(&l.metrics);
	close(l.fd);
	live_nl_close(&l.nl);
	return ret;
}
