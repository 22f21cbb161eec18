// SPDX-License-Identifier: GPL-2.0-only
/*
 * live.c - gpsphcd's live mode. Like ldattach, it puts the tty in raw
 * mode, sets CLOCAL (a USB adapter would otherwise hang the tty up each
 * time DCD drops), attaches the discipline and holds the tty open. The
 * kernel's events arrive on the "events" multicast group of the gpsphc
 * generic netlink family.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <systemd/sd-daemon.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "linux/gpsphc.h"
#include "adapter.h"
#include "live.h"
#include "log.h"
#include "metrics_file.h"
#include "names.h"
#include "nmea.h"
#include "nmea_pty.h"
#include "ptp4l_gm.h"
#include "replay.h"
#include "state.h"
#include "status.h"
#include "timeconv.h"

static volatile sig_atomic_t live_stop;

static void on_signal(int sig)
{
	(void)sig;
	live_stop = 1;
}

/* Save the last-good time every this many labels (about a minute). */
#define LIVE_SAVE_EVERY	60
/*
 * The events socket's receive buffer. Each event takes over 4 KiB of
 * it (the kernel allocates a page-sized message), so the default 208 KiB
 * holds some 50 events; this holds some 500, most of a minute of a
 * receiver's usual output. Past it events are lost and gpsphcd recovers.
 */
#define LIVE_RCVBUF	(1 << 20)
/* Datagrams read in one go before the loop looks at the clock again. */
#define LIVE_READ_MAX	64
/* How often the tty and the device are checked while nothing happens. */
#define LIVE_CHECK_NS	1000000000LL
/* An episode of lost events ends after this long without a loss. */
#define LIVE_LOSS_QUIET_NS	2000000000LL
/* Holders of a tty named in a refusal. */
#define LIVE_HOLDERS	3
/* No PPS edge this long after attach is said once (live_no_pps()). */
#define LIVE_NO_PPS_S	5

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
	int fd;			/* the tty, held open and locked */
	const char *tty_name;	/* e.g. "ttyS0" */
	int64_t next_check;	/* CLOCK_MONOTONIC of the next live_check() */
	bool have_pps_seq, have_sent_seq;
	uint32_t pps_seq, sent_seq;	/* the last seen, see live_seq() */
	struct live_loss loss;
	struct nl_sock *sk;	/* events */
	struct nl_sock *req;	/* requests: their answers never mix with events */
	int family;
	uint32_t dev_id;
	uint32_t ptp_index;	/* N of /dev/ptpN */
	uint32_t got_id, got_ptp;	/* the last dev-get reply */
	uint32_t got_state;		/* its servo state, 0 if none */
	bool got;
	uint32_t servo_state;	/* enum gpsphc_servo_state last said */
	struct status_off_phase off_phase;	/* pulses off its phase, said */
	bool stored;		/* the tty is in systemd's fd store */
	unsigned long labels_good;	/* taken by the kernel, or kept (hold) */
	bool have_last;		/* a label was taken or kept: a time to save */
	bool hold;		/* --servo off: labels are printed, not sent */
	bool refused_busy;	/* EBUSY (servo off) since the last label taken */
	struct metrics_out metrics;	/* metrics: the textfile, its values */
	char ack_msg[256];	/* extack message of the last error */
	int ack_err;
	bool answered;		/* the request's ACK or error came */
	struct {
		char driver[64];	/* owner of the tty, "" if not found */
		int kmajor, kminor;	/* the running kernel's version */
		int64_t since;		/* CLOCK_MONOTONIC of the attach */
		unsigned long edges;	/* DCD edges since */
		bool said;		/* live_no_pps() spoke */
	} adapter;
};

/*
 * The processes other than this one that have the tty @rdev open, as
 * "gpsphcd (pid 123), cat (pid 456)" (at most LIVE_HOLDERS), from
 * /proc/<pid>/fd: another user's processes show only to root.
 */
static void live_holders(dev_t rdev, char *buf, size_t size)
{
	struct dirent *p, *f;
	size_t len = 0;
	int n = 0;
	DIR *proc, *fds;

	buf[0] = '\0';
	proc = opendir("/proc");
	if (!proc)
		return;
	while (n < LIVE_HOLDERS && (p = readdir(proc))) {
		char path[64], comm[32] = "?", *end;
		long pid = strtol(p->d_name, &end, 10);
		struct stat st;
		FILE *c;

		if (*end || pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/fd", pid);
		fds = opendir(path);
		if (!fds)
			continue;
		while ((f = readdir(fds)))
			if (!fstatat(dirfd(fds), f->d_name, &st, 0) &&
			    S_ISCHR(st.st_mode) && st.st_rdev == rdev)
				break;
		closedir(fds);
		if (!f)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		c = fopen(path, "r");
		if (c) {
			if (fgets(comm, sizeof(comm), c))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(c);
		}
		len += (size_t)snprintf(buf + len, size - len, "%s%s (pid %ld)",
					n++ ? ", " : "", comm, pid);
		if (len >= size)
			break;
	}
	closedir(proc);
}

/*
 * Another process holds the tty: say which, and leave it alone. @what
 * says how it holds it.
 */
static void live_refuse(const struct live_opts *o, dev_t rdev, const char *what,
			const char *todo)
{
	char who[256];

	live_holders(rdev, who, sizeof(who));
	log_msg(LOG_ERR, "%s %s, held open by %s: %s; %s is left as it is",
		o->device, what, who[0] ? who : "a process not visible here (run as root to see which)",
		todo, o->device);
}

/*
 * Lock the tty (one gpsphcd per tty), check that nobody else has a
 * discipline on it, then raw mode, CLOCAL, speed, and the discipline.
 * @fd is the tty a gpsphcd before this one left in systemd's fd store, or
 * -1 to open o->device; if it still has the discipline, it is taken as it
 * is (*@reused). Returns the fd, or -1 with *@status the exit status.
 */
static int live_attach(const struct live_opts *o, int fd, int *status,
		       bool *reused)
{
	struct termios tio;
	struct stat st;
	int ld = o->ldisc, cur;
	bool from_store = fd >= 0;
	char what[96];

	*status = 1;
	*reused = false;
	if (!from_store)
		fd = open(o->device, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		log_msg(LOG_ERR, "cannot open %s: %s", o->device, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || ioctl(fd, TIOCGETD, &cur)) {
		log_msg(LOG_ERR, "%s is not a tty (%s): give the receiver's serial device",
			o->device, strerror(errno));
		goto fail;
	}
	/* Held for as long as this process runs: a second gpsphcd fails here. */
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK) {
			log_msg(LOG_ERR, "cannot lock %s: %s", o->device,
				strerror(errno));
			goto fail;
		}
		*status = LIVE_EXIT_BUSY;
		live_refuse(o, st.st_rdev, "is locked by another process",
			    "only one gpsphcd may attach to a tty; stop that one first, or keep it (gpsphcd --status shows its device)");
		goto fail;
	}
	/*
	 * The same open tty (the lock above is its own) kept in the fd
	 * store: a gpsphcd before this one attached it, and its device and
	 * clock are still there.
	 */
	if (from_store && cur == ld) {
		*reused = true;
		*status = 0;
		return fd;
	}
	/*
	 * Any discipline but N_TTY belongs to a process that holds the tty
	 * (ldattach, a gpsphcd that opened it through another device node).
	 */
	if (cur != N_TTY) {
		*status = LIVE_EXIT_BUSY;
		snprintf(what, sizeof(what), "already has line discipline %d%s attached",
			 cur, cur == ld ? " (gpsphc)" : "");
		live_refuse(o, st.st_rdev, what,
			    "gpsphcd does not take a tty from another program; stop that one first");
		goto fail;
	}
	if (tcgetattr(fd, &tio)) {
		log_msg(LOG_ERR, "%s is not a tty (%s): give the receiver's serial device",
			o->device, strerror(errno));
		goto fail;
	}
	cfmakeraw(&tio);
	tio.c_cflag |= CLOCAL | CREAD;
	/* glibc's cfsetspeed() takes the rate itself as well as a Bnnn. */
	if ((o->conf.set & (1u << CONF_BAUD)) &&
	    cfsetspeed(&tio, o->conf.baud)) {
		log_msg(LOG_ERR, "cannot set %u baud on %s", o->conf.baud, o->device);
		goto fail;
	}
	if (tcsetattr(fd, TCSANOW, &tio)) {
		log_msg(LOG_ERR, "cannot set raw mode on %s: %s", o->device,
			strerror(errno));
		goto fail;
	}
	if (ioctl(fd, TIOCSETD, &ld)) {
		int e = errno;

		log_msg(LOG_ERR, "cannot attach line discipline %d to %s: %s%s",
			ld, o->device, strerror(e),
			e == EPERM ? " (attaching needs CAP_SYS_TIME: run as root)" :
			e == EINVAL ? " (is the gpsphc module loaded? try: modprobe gpsphc)" : "");
		goto fail;
	}
	*status = 0;
	return fd;
fail:
	close(fd);
	return -1;
}

/*
 * A real 8250 raises DCD interrupts only with CRTSCTS, without CLOCAL, for
 * the N_PPS discipline, or while someone waits in TIOCMIWAIT (which calls
 * the driver's enable_ms). CLOCAL is needed (see above), so this thread
 * waits there for good: without it, the discipline's dcd_change would
 * never run on such a UART. It ends with the process.
 */
static void *live_dcd_keeper(void *arg)
{
	int fd = (int)(intptr_t)arg;

	while (ioctl(fd, TIOCMIWAIT, TIOCM_CAR) == 0 || errno == EINTR)
		;
	if (errno != ENOTTY && errno != EINVAL && errno != EIO)
		log_msg(LOG_WARNING, "waiting for DCD changes failed (%s): PPS interrupts may be off on this UART",
			strerror(errno));
	return NULL;
}

/* Keep the kernel's extended-ack message of an error reply. */
static int live_err_cb(struct sockaddr_nl *nla, struct nlmsgerr *err, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)err - 1;
	struct live *l = arg;
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*nlh) + sizeof(*err);

	(void)nla;
	l->answered = true;
	l->ack_err = err->error;
	l->ack_msg[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - sizeof(err->msg);
	if (off < nlh->nlmsg_len &&
	    !nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)nlh + off),
		       (int)(nlh->nlmsg_len - off), NULL) && tb[NLMSGERR_ATTR_MSG])
		snprintf(l->ack_msg, sizeof(l->ack_msg), "%s",
			 (const char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
	return NL_STOP;
}

/* The kernel's ACK: the request's answer is complete. */
static int live_ack_cb(struct nl_msg *msg, void *arg)
{
	struct live *l = arg;

	(void)msg;
	l->answered = true;
	return NL_STOP;
}

/* The servo state in a GPSPHC_A_DEV_SERVO nest, or 0. */
static uint32_t live_servo_state(struct nlattr *nest)
{
	struct nlattr *tb[GPSPHC_A_SERVO_MAX + 1];

	if (!nest || nla_parse_nested(tb, GPSPHC_A_SERVO_MAX, nest, NULL) ||
	    !tb[GPSPHC_A_SERVO_STATE])
		return 0;
	return nla_get_u32(tb[GPSPHC_A_SERVO_STATE]);
}

/* systemd's status line of the service (nothing without systemd). */
static void live_notify_status(struct live *l, const char *more)
{
	sd_notifyf(0, "%sSTATUS=%s is gpsphc%" PRIu32 ", /dev/ptp%" PRIu32 ": servo %s%s",
		   more, l->tty_name, l->dev_id, l->ptp_index,
		   gp_enum_name(GP_ENUM_SERVO_STATE, l->servo_state),
		   l->off_phase.count ? ", pulses off its phase" : "");
}

/*
 * Pulses arriving steadily off the servo's phase, from a servo nest (a
 * state-ntf, which the kernel sends when they begin and end, or the
 * dev-get of each second): said once when they begin, once when they end.
 */
static void live_off_phase(struct live *l, struct nlattr *nest)
{
	struct nlattr *tb[GPSPHC_A_SERVO_MAX + 1];
	char line[256];
	int prio;

	if (!nest || nla_parse_nested(tb, GPSPHC_A_SERVO_MAX, nest, NULL) ||
	    !tb[GPSPHC_A_SERVO_OFF_PHASE_COUNT])
		return;		/* a module that does not report them */
	prio = status_off_phase_change(&l->off_phase,
				       nla_get_u32(tb[GPSPHC_A_SERVO_OFF_PHASE_COUNT]),
				       tb[GPSPHC_A_SERVO_OFF_PHASE_NS] ?
				       (int64_t)nla_get_u64(tb[GPSPHC_A_SERVO_OFF_PHASE_NS]) : 0,
				       tb[GPSPHC_A_SERVO_REPHASES] ?
				       nla_get_u64(tb[GPSPHC_A_SERVO_REPHASES]) : 0,
				       line, sizeof(line));
	if (prio < 0)
		return;
	log_msg(prio, "%s: %s", l->tty_name, line);
	live_notify_status(l, "");
}

/* --record: the servo's status of a dev-get, for gpsphc-plot. */
static void live_record_servo(FILE *f, const struct gp_metrics_dev *d)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	record_servo(f, ts.tv_sec * 1000000000LL + ts.tv_nsec,
		     gp_enum_name(GP_ENUM_SERVO_STATE, d->state), d->offset_ns,
		     d->freq_ppb, d->rms_ns, d->holdover_s);
}

static int live_dev_id_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[GPSPHC_A_DEV_MAX + 1];
	struct live *l = arg;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, GPSPHC_A_DEV_MAX, NULL) ||
	    !tb[GPSPHC_A_DEV_ID])
		return NL_SKIP;
	l->got_id = nla_get_u32(tb[GPSPHC_A_DEV_ID]);
	l->got_ptp = tb[GPSPHC_A_DEV_PTP_INDEX] ?
		     nla_get_u32(tb[GPSPHC_A_DEV_PTP_INDEX]) : 0;
	l->got_state = live_servo_state(tb[GPSPHC_A_DEV_SERVO]);
	l->got = true;
	metrics_from_dev(tb, &l->metrics.dev);
	l->metrics.have_dev = true;
	if (l->o->record)
		live_record_servo(l->o->record, &l->metrics.dev);
	live_off_phase(l, tb[GPSPHC_A_DEV_SERVO]);
	/* Each second (live_check()): ptp4l follows the servo's status. */
	if (l->o->gm)
		ptp4l_gm_servo(l->o->gm, tb[GPSPHC_A_DEV_SERVO]);
	return NL_OK;
}

/*
 * Send one request and wait for its answer; prints the kernel's reason,
 * unless the kernel's error is @quiet (a negative errno, or 0 for none):
 * the caller reports that one itself from l->ack_err and l->ack_msg.
 */
static int live_request(struct live *l, struct nl_msg *msg, const char *what,
			nl_recvmsg_msg_cb_t cb, int quiet)
{
	struct nl_cb *nlcb = nl_cb_alloc(NL_CB_DEFAULT);
	int ret;

	if (!nlcb)
		return -NLE_NOMEM;
	l->ack_err = 0;
	l->answered = false;
	nl_cb_err(nlcb, NL_CB_CUSTOM, live_err_cb, l);
	nl_cb_set(nlcb, NL_CB_ACK, NL_CB_CUSTOM, live_ack_cb, l);
	if (cb)
		nl_cb_set(nlcb, NL_CB_VALID, NL_CB_CUSTOM, cb, l);
	ret = nl_send_auto(l->req, msg);
	/*
	 * A reply and the ACK after it are two datagrams, and nl_recvmsgs()
	 * returns after the reply's: read until the ACK (or the error), or
	 * the next request reads this one's ACK and leaves its own reply for
	 * the one after (each answer a request older, the socket filling up
	 * until the kernel drops answers: ENOBUFS).
	 */
	while (ret >= 0 && !l->answered)
		ret = nl_recvmsgs(l->req, nlcb);
	/*
	 * The kernel's error ends nl_recvmsgs() with libnl's translation of
	 * it (live_err_cb() returns NL_STOP): report the kernel's own errno
	 * and extack message instead, and keep @quiet quiet.
	 */
	if (l->answered && l->ack_err) {
		if (l->ack_err != quiet)
			log_msg(LOG_ERR, "%s: %s%s%s", what,
				strerror(-l->ack_err), l->ack_msg[0] ? ": " : "",
				l->ack_msg);
		ret = l->ack_err;
	} else if (ret < 0) {
		log_msg(LOG_ERR, "%s: %s", what, nl_geterror(ret));
	}
	nl_cb_put(nlcb);
	return ret < 0 ? ret : 0;
}

static struct nl_msg *live_msg(struct live *l, uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, l->family, 0,
				NLM_F_ACK, cmd, GPSPHC_GENL_VERSION)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

/*
 * dev-get the device of the tty: 0 with l->got_id and l->got_ptp, or a
 * negative error, printed unless it is the kernel's @quiet (as for
 * live_request()).
 */
static int live_dev_get(struct live *l, int quiet)
{
	struct nl_msg *msg = live_msg(l, GPSPHC_CMD_DEV_GET);
	int ret = -NLE_NOMEM;

	l->got = false;
	if (msg && !nla_put_string(msg, GPSPHC_A_DEV_TTY, l->tty_name))
		ret = live_request(l, msg, "looking up the gpsphc device",
				   live_dev_id_cb, quiet);
	nlmsg_free(msg);
	return ret ? ret : l->got ? 0 : -NLE_OBJ_NOTFOUND;
}

/* The keys that go to the kernel in dev-set. */
#define LIVE_DEV_SET_KEYS ((1u << CONF_EDGE) | (1u << CONF_SERVO) | \
			   (1u << CONF_SCALE) | (1u << CONF_STEP_NS) | \
			   (1u << CONF_CONFIRM_N) | (1u << CONF_RX_LATENCY_NS))

static int live_setup_netlink(struct live *l)
{
	const struct conf *c = &l->o->conf;
#define has(k) (c->set & (1u << (k)))
	struct nl_msg *msg;
	int grp, one = 1, ret, rcvbuf = LIVE_RCVBUF;

	l->req = nl_socket_alloc();
	l->sk = nl_socket_alloc();
	if (!l->req || !l->sk || genl_connect(l->req) || genl_connect(l->sk)) {
		log_msg(LOG_ERR, "cannot open a generic netlink socket");
		return -1;
	}
	setsockopt(nl_socket_get_fd(l->req), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	/* Past net.core.rmem_max with CAP_NET_ADMIN, else up to it. */
	if (setsockopt(nl_socket_get_fd(l->sk), SOL_SOCKET, SO_RCVBUFFORCE,
		       &rcvbuf, sizeof(rcvbuf)))
		setsockopt(nl_socket_get_fd(l->sk), SOL_SOCKET, SO_RCVBUF,
			   &rcvbuf, sizeof(rcvbuf));
	/* Read until the socket is empty, then look at the clock. */
	nl_socket_set_nonblocking(l->sk);
	l->family = genl_ctrl_resolve(l->req, GPSPHC_GENL_NAME);
	grp = genl_ctrl_resolve_grp(l->req, GPSPHC_GENL_NAME, GPSPHC_MCGRP_EVENTS);
	if (l->family < 0 || grp < 0) {
		log_msg(LOG_ERR, "the kernel has no \"%s\" netlink family: load the module (modprobe gpsphc)",
			GPSPHC_GENL_NAME);
		return -1;
	}

	if (live_dev_get(l, 0))
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
	if (c->set & LIVE_DEV_SET_KEYS) {
		bool off = c->servo == CONF_SERVO_OFF;

		msg = live_msg(l, GPSPHC_CMD_DEV_SET);
		ret = !msg || nla_put_u32(msg, GPSPHC_A_DEV_ID, l->dev_id) ||
		      (has(CONF_EDGE) &&
		       nla_put_u32(msg, GPSPHC_A_DEV_EDGE, c->edge)) ||
		      (has(CONF_SCALE) &&
		       nla_put_u32(msg, GPSPHC_A_DEV_SCALE, c->scale)) ||
		      (has(CONF_STEP_NS) &&
		       nla_put_u64(msg, GPSPHC_A_DEV_STEP_NS, c->step_ns)) ||
		      (has(CONF_CONFIRM_N) &&
		       nla_put_u32(msg, GPSPHC_A_DEV_CONFIRM_N, c->confirm_n)) ||
		      (has(CONF_RX_LATENCY_NS) &&
		       nla_put_u64(msg, GPSPHC_A_DEV_RX_LATENCY_NS,
				   c->rx_latency_ns)) ||
		      (has(CONF_SERVO) &&
		       nla_put_u8(msg, GPSPHC_A_DEV_SERVO_OFF, off));
		if (!ret)
			ret = live_request(l, msg, "applying the settings (edge, servo, scale, step_ns, confirm_n, rx_latency_ns)",
					   NULL, 0);
		nlmsg_free(msg);
		if (ret)
			return -1;
		l->hold = off;
	}

	if (nl_socket_add_membership(l->sk, grp)) {
		log_msg(LOG_ERR, "cannot join the gpsphc events group");
		return -1;
	}
	return 0;
#undef has
}

static int64_t live_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Events were lost: the socket overflowed (@overflow, how many is not
 * known), or sequence numbers jumped over @edges edges or @sentences
 * sentences. The labelling forgets what they may have changed, the device
 * is checked at once, and the episode is said when it starts.
 */
static void live_lost(struct live *l, bool overflow, uint32_t edges,
		      uint32_t sentences)
{
	struct live_loss *s = &l->loss;

	s->overflows += overflow;
	s->edges += edges;
	s->sentences += sentences;
	l->metrics.dev.overflows += overflow;
	l->metrics.dev.lost_edges += edges;
	l->metrics.dev.lost_sentences += sentences;
	s->last_ns = live_now_ns();
	pipeline_resync(l->p);
	if (s->episode)
		return;
	s->episode = true;
	s->start_ns = s->last_ns;
	l->next_check = 0;
	if (overflow)
		log_msg(LOG_WARNING, "WARNING: %s: kernel events lost: gpsphcd fell behind and its netlink socket overflowed (ENOBUFS); labels that need them are skipped, labelling goes on with the next edge",
			l->tty_name);
	else
		log_msg(LOG_WARNING, "WARNING: %s: kernel events lost: %" PRIu32 " %s missing from the sequence; labels that need them are skipped, labelling goes on with the next edge",
			l->tty_name, edges ? edges : sentences,
			edges ? "PPS edges" : "sentences");
}

/* The end of an episode of lost events, once none has come for a while. */
static void live_loss_over(struct live *l, int64_t now)
{
	struct live_loss *s = &l->loss;

	if (!s->episode || now - s->last_ns < LIVE_LOSS_QUIET_NS)
		return;
	log_msg(LOG_NOTICE, "%s: events flow again after %.1f s of losses: %llu PPS edges and %llu sentences missing from the sequence, %lu socket overflows%s; if this recurs, see gpsphcd --status: many bad sentences mean a wrong --baud or a noisy line, many edges a noisy PPS wire",
		l->tty_name, (s->last_ns - s->start_ns) / 1e9, s->edges,
		s->sentences, s->overflows,
		s->overflows ? " (each loses an unknown number of events)" : "");
	*s = (struct live_loss){ 0 };
}

/*
 * The kernel numbers edges and sentences per device, +1 each: a jump
 * means lost events (a full socket, or the kernel's own edge queue).
 */
static void live_seq(struct live *l, bool pps, uint32_t seq)
{
	bool *have = pps ? &l->have_pps_seq : &l->have_sent_seq;
	uint32_t *last = pps ? &l->pps_seq : &l->sent_seq;
	uint32_t gap = seq - *last - 1;

	/* A step back (not expected) starts the count again. */
	if (*have && gap && gap < UINT32_MAX / 2)
		live_lost(l, false, pps ? gap : 0, pps ? 0 : gap);
	*have = true;
	*last = seq;
}

/*
 * An input's identity and the kernel's count of it, from its notification:
 * @second_attr is present when the servo counted it as a second.
 */
static struct pp_input live_input(uint32_t seq, uint64_t raw,
				  const struct nlattr *second_attr)
{
	return (struct pp_input){
		.t_ns = (int64_t)raw,
		.seq = seq,
		.counted = second_attr,
		.second = second_attr ? (int64_t)nla_get_u64(second_attr) : 0,
	};
}

static void live_pps(struct live *l, struct nlattr *nest)
{
	struct nlattr *tb[GPSPHC_A_PPS_MAX + 1];
	struct pp_input in;
	uint64_t real;
	bool assert;

	if (nla_parse_nested(tb, GPSPHC_A_PPS_MAX, nest, NULL) ||
	    !tb[GPSPHC_A_PPS_SEQ] || !tb[GPSPHC_A_PPS_RAW_NS] ||
	    !tb[GPSPHC_A_PPS_REAL_NS] || !tb[GPSPHC_A_PPS_EDGE])
		return;
	live_seq(l, true, nla_get_u32(tb[GPSPHC_A_PPS_SEQ]));
	l->adapter.edges++;
	in = live_input(nla_get_u32(tb[GPSPHC_A_PPS_SEQ]),
			nla_get_u64(tb[GPSPHC_A_PPS_RAW_NS]),
			tb[GPSPHC_A_PPS_SECOND]);
	real = nla_get_u64(tb[GPSPHC_A_PPS_REAL_NS]);
	assert = tb[GPSPHC_A_PPS_ASSERT];
	if (l->o->dump_events) {
		printf("pps dev=%" PRIu32 " seq=%" PRIu32 " edge=%s assert=%d raw_ns=%" PRId64 " real_ns=%" PRIu64,
		       l->dev_id, in.seq,
		       gp_enum_name(GP_ENUM_EDGE, nla_get_u32(tb[GPSPHC_A_PPS_EDGE])),
		       assert, in.t_ns, real);
		if (in.counted)
			printf(" second=%" PRId64, in.second);
		printf("\n");
	}
	if (!assert)
		return;
	l->metrics.dev.last_edge_real_ns = (int64_t)real;
	if (l->o->record)
		record_edge(l->o->record, &in);
	pipeline_edge(l->p, &in);
}

static void live_sentence(struct live *l, struct nlattr *nest)
{
	struct nlattr *tb[GPSPHC_A_SENT_MAX + 1];
	struct pp_input in;
	const char *data;
	uint32_t csum;
	int len;

	if (nla_parse_nested(tb, GPSPHC_A_SENT_MAX, nest, NULL) ||
	    !tb[GPSPHC_A_SENT_SEQ] || !tb[GPSPHC_A_SENT_RAW_NS] ||
	    !tb[GPSPHC_A_SENT_REAL_NS] || !tb[GPSPHC_A_SENT_DATA] ||
	    !tb[GPSPHC_A_SENT_CSUM])
		return;
	live_seq(l, false, nla_get_u32(tb[GPSPHC_A_SENT_SEQ]));
	in = live_input(nla_get_u32(tb[GPSPHC_A_SENT_SEQ]),
			nla_get_u64(tb[GPSPHC_A_SENT_RAW_NS]),
			tb[GPSPHC_A_SENT_SECOND]);
	csum = nla_get_u32(tb[GPSPHC_A_SENT_CSUM]);
	data = nla_data(tb[GPSPHC_A_SENT_DATA]);
	len = nla_len(tb[GPSPHC_A_SENT_DATA]);
	if (csum < GPSPHC_CSUM_OK || csum > GPSPHC_CSUM_MAX)
		return;
	if (l->o->dump_events) {
		printf("sentence dev=%" PRIu32 " seq=%" PRIu32 " csum=%s raw_ns=%" PRId64 " real_ns=%" PRIu64,
		       l->dev_id, in.seq, gp_enum_name(GP_ENUM_CSUM, csum),
		       in.t_ns, nla_get_u64(tb[GPSPHC_A_SENT_REAL_NS]));
		if (in.counted)
			printf(" second=%" PRId64, in.second);
		printf(" %.*s\n", len, data);
	}
	/* What the receiver sent, less what the line garbled. */
	if (l->o->nmea_pty && csum != GPSPHC_CSUM_BAD)
		nmea_pty_write(l->o->nmea_pty, data, (size_t)len);
	if (csum != GPSPHC_CSUM_OK)
		return;
	if (l->o->record)
		record_sentence(l->o->record, &in, data, (size_t)len);
	/* The kernel's framer checked the checksum: the pipeline takes its word. */
	pipeline_sentence(l->p, &in, data, (size_t)len, NMEA_OK);
}

static void live_save_state(struct live *l)
{
	if (l->o->state && l->have_last &&
	    state_save_last_good(l->o->state, l->p, false) < 0)
		log_msg(LOG_ERR, "cannot save the last-good time to %s: %s",
			l->o->state, strerror(errno));
}

/* A label the kernel took, or one kept while it is not sent (hold). */
static void live_label_good(struct live *l)
{
	l->have_last = true;
	if (++l->labels_good % LIVE_SAVE_EVERY == 1)
		live_save_state(l);
}

/*
 * The kernel refused a label with EBUSY: its servo is off (sysfs "servo",
 * or another gpsphcd). Labels are still sent, so that the first one after
 * the servo is turned on again is taken, but the refusal is said once per
 * change, not once a second.
 */
static void live_label_busy(struct live *l, const char *what)
{
	if (l->refused_busy)
		return;
	l->refused_busy = true;
	log_msg(LOG_WARNING, "%s: %s%s%s; labels are printed, not taken, until the kernel servo is on again (gpsphcd --servo on); meanwhile steer /dev/ptp%" PRIu32 " with ts2phc or ptp4l",
		what, strerror(EBUSY), l->ack_msg[0] ? ": " : "", l->ack_msg,
		l->ptp_index);
}

/*
 * The pipeline labelled an edge, or in coarse mode a sentence that starts
 * a second: print it and tell the kernel, unless its servo is off. A label
 * the guard holds (a jump) goes to the kernel too, unprinted: the kernel
 * confirms jumps for the clock (confirm_n), gpsphcd's guard only for what
 * it prints and trusts.
 */
static void live_label(void *ctx, const struct pp_label *lab)
{
	struct live *l = ctx;
	const char *input = lab->coarse ? "sentence" : "edge";
	struct nlattr *nest;
	struct nl_msg *msg;
	char what[96];

	if (l->o->print_labels && !lab->held)
		pp_print_label(stdout, lab);
	else if (log_enabled(LOG_DEBUG))
		log_msg(LOG_DEBUG, "%s: %s at %" PRId64 " ns is TAI %" PRId64 " (TAI-UTC %d)%s",
			l->tty_name, input, lab->edge_ns, lab->tai, lab->tai_utc,
			lab->held ? ", held by the guard: for the kernel to confirm" : "");
	if (l->hold) {
		if (!lab->held)
			live_label_good(l);
		return;
	}
	msg = live_msg(l, GPSPHC_CMD_TIME_SET);
	if (!msg)
		return;
	if (nla_put_u32(msg, GPSPHC_A_DEV_ID, l->dev_id) ||
	    !(nest = nla_nest_start(msg, GPSPHC_A_DEV_TIME)) ||
	    nla_put_u32(msg, lab->coarse ? GPSPHC_A_TIME_SENTENCE_SEQ :
			GPSPHC_A_TIME_EDGE_SEQ, lab->seq) ||
	    nla_put_u64(msg, GPSPHC_A_TIME_TAI_SEC, (uint64_t)lab->tai) ||
	    nla_put_u32(msg, GPSPHC_A_TIME_TAI_UTC, (uint32_t)lab->tai_utc) ||
	    (lab->leap_pending &&
	     (nla_put_u32(msg, GPSPHC_A_TIME_LEAP, lab->leap_pending > 0 ?
			  GPSPHC_LEAP_INSERT : GPSPHC_LEAP_DELETE) ||
	      nla_put_u64(msg, GPSPHC_A_TIME_LEAP_UTC, (uint64_t)lab->leap_at_utc)))) {
		nlmsg_free(msg);
		return;
	}
	nla_nest_end(msg, nest);
	snprintf(what, sizeof(what), "labelling %s %" PRIu32 "%s as TAI %" PRId64,
		 input, lab->seq, lab->coarse ? " (coarse mode)" : "", lab->tai);
	if (!live_request(l, msg, what, NULL, -EBUSY)) {
		if (l->refused_busy)
			log_msg(LOG_NOTICE, "the kernel takes labels again (%s)",
				what);
		l->refused_busy = false;
		if (!lab->held)
			live_label_good(l);
	} else if (l->ack_err == -EBUSY) {
		live_label_busy(l, what);
	}
	nlmsg_free(msg);
}

/* The kernel's servo changed state (@state 0: not said). */
static void live_servo_changed(struct live *l, uint32_t state)
{
	if (!state || state == l->servo_state)
		return;
	l->servo_state = state;
	log_msg(LOG_INFO, "%s: servo %s", l->tty_name,
		gp_enum_name(GP_ENUM_SERVO_STATE, state));
	live_notify_status(l, "");
}

/* The servo's status after a change of its state or of off-phase pulses. */
static void live_state_ntf(struct live *l, struct nlattr *servo)
{
	live_servo_changed(l, live_servo_state(servo));
	live_off_phase(l, servo);
}

/*
 * The kernel took a label that disagreed with its count (anyone's: this
 * gpsphcd's, held by its guard or not, or another writer's). The kernel
 * alone confirms a change of the count; this says what it decided.
 */
static void live_label_ntf(struct live *l, struct nlattr **dev)
{
	struct nlattr *tb[GPSPHC_A_TIME_MAX + 1], *seq;
	uint32_t confirmed, confirm_n;
	bool coarse;
	int64_t off;

	if (!dev[GPSPHC_A_DEV_TIME] || !dev[GPSPHC_A_DEV_CONFIRM_N] ||
	    nla_parse_nested(tb, GPSPHC_A_TIME_MAX, dev[GPSPHC_A_DEV_TIME], NULL) ||
	    !tb[GPSPHC_A_TIME_OFF_S] || !tb[GPSPHC_A_TIME_CONFIRMED] ||
	    !tb[GPSPHC_A_TIME_TAI_SEC])
		return;		/* a change of TAI - UTC: the labels say it */
	coarse = !tb[GPSPHC_A_TIME_EDGE_SEQ];
	seq = coarse ? tb[GPSPHC_A_TIME_SENTENCE_SEQ] : tb[GPSPHC_A_TIME_EDGE_SEQ];
	if (!seq)
		return;
	off = (int64_t)nla_get_u64(tb[GPSPHC_A_TIME_OFF_S]);
	confirmed = nla_get_u32(tb[GPSPHC_A_TIME_CONFIRMED]);
	confirm_n = nla_get_u32(dev[GPSPHC_A_DEV_CONFIRM_N]);
	if (confirmed < confirm_n)
		log_msg(LOG_WARNING, "%s: the kernel holds the label of %s %" PRIu32 " (TAI %" PRIu64 "), %+" PRId64 " s from its count: %" PRIu32 " of the %" PRIu32 " labels in a row that move the clock",
			l->tty_name, coarse ? "sentence" : "edge",
			nla_get_u32(seq), nla_get_u64(tb[GPSPHC_A_TIME_TAI_SEC]),
			off, confirmed, confirm_n);
	else
		log_msg(LOG_WARNING, "%s: the kernel moved its count by %+" PRId64 " s at %s %" PRIu32 " after %" PRIu32 " labels in a row: the clock stepped",
			l->tty_name, off, coarse ? "sentence" : "edge",
			nla_get_u32(seq), confirmed);
}

static int live_event_cb(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[GPSPHC_A_DEV_MAX + 1];
	struct live *l = arg;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, GPSPHC_A_DEV_MAX, NULL) ||
	    !tb[GPSPHC_A_DEV_ID] || nla_get_u32(tb[GPSPHC_A_DEV_ID]) != l->dev_id)
		return NL_SKIP;
	if (gh->cmd == GPSPHC_CMD_PPS_NTF && tb[GPSPHC_A_DEV_PPS])
		live_pps(l, tb[GPSPHC_A_DEV_PPS]);
	else if (gh->cmd == GPSPHC_CMD_SENTENCE_NTF && tb[GPSPHC_A_DEV_SENTENCE])
		live_sentence(l, tb[GPSPHC_A_DEV_SENTENCE]);
	else if (gh->cmd == GPSPHC_CMD_STATE_NTF)
		live_state_ntf(l, tb[GPSPHC_A_DEV_SERVO]);
	else if (gh->cmd == GPSPHC_CMD_LABEL_NTF)
		live_label_ntf(l, tb);
	fflush(stdout);
	if (l->o->record)
		fflush(l->o->record);
	return NL_OK;
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
	if (ret && l->ack_err == -ENODEV) {
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

/*
 * Read what the events socket holds, LIVE_READ_MAX datagrams at most. An
 * overflow (ENOBUFS, which libnl calls NLE_NOMEM) shows as POLLERR, with
 * or without POLLIN, and reading is what clears it.
 */
static void live_read_events(struct live *l)
{
	int i, err;

	for (i = 0; i < LIVE_READ_MAX; i++) {
		err = nl_recvmsgs_default(l->sk);
		if (err == -NLE_AGAIN)
			return;
		if (err == -NLE_NOMEM)
			live_lost(l, true, 0, 0);
		else if (err < 0 && err != -NLE_INTR)
			log_msg(LOG_ERR, "reading events: %s", nl_geterror(err));
	}
}

/* metrics: the values of the last dev-get, and gpsphcd's, once an interval. */
static void live_metrics(struct live *l, int64_t now)
{
	struct ptpm_gm_settings gs;

	l->metrics.dev.clock_class = l->o->gm && ptp4l_gm_acked(l->o->gm, &gs) ?
				     gs.clock_class : -1;
	metrics_out_tick(&l->metrics, now);
}

/*
 * The tty a gpsphcd before this one left in systemd's fd store (FDNAME
 * "tty", see live_store()), if it is still @path's device; -1 if there is
 * none. Any other descriptor passed is closed, but @keep (nmea_pty's, or
 * -1), and a stale tty is taken out of the store.
 */
static int live_stored_tty(const char *path, int keep)
{
	char **names = NULL;
	struct stat want, st;
	int n, i, fd = -1;

	n = sd_listen_fds_with_names(1, &names);
	if (n <= 0)
		return -1;
	if (stat(path, &want))
		want.st_rdev = 0;
	for (i = 0; i < n; i++) {
		int f = SD_LISTEN_FDS_START + i;
		bool tty = names && names[i] && !strcmp(names[i], "tty");

		if (f == keep)
			continue;
		if (fd < 0 && tty && !fstat(f, &st) && S_ISCHR(st.st_mode) &&
		    st.st_rdev == want.st_rdev) {
			fd = f;
			continue;
		}
		if (tty) {
			log_msg(LOG_NOTICE, "the tty kept in the file descriptor store is not %s (any more): released",
				path);
			sd_notify(0, "FDSTOREREMOVE=1\nFDNAME=tty");
		}
		close(f);
	}
	for (i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
	return fd;
}

/*
 * Give systemd a copy of the tty (FileDescriptorStoreMax= in the unit):
 * it keeps the tty open, and with it the discipline, the PTP clock and
 * the PPS source, while gpsphcd is killed or restarted, and hands it to
 * the next gpsphcd. True if there is a service manager to keep it.
 */
static bool live_store(int fd)
{
	return sd_pid_notify_with_fds(0, 0, "FDSTORE=1\nFDNAME=tty", &fd, 1) > 0;
}

/*
 * Which driver owns the tty (the first "driver" link from its sysfs device
 * up, past the serial core's own), said at attach; adapter.c knows which
 * drivers deliver DCD.
 */
static void live_adapter_probe(struct live *l)
{
	char path[PATH_MAX], link[PATH_MAX], msg[512];
	const char *name;
	struct utsname u;
	int up, len;
	ssize_t n;

	l->adapter.since = live_now_ns();
	if (uname(&u) || sscanf(u.release, "%d.%d", &l->adapter.kmajor,
				&l->adapter.kminor) != 2)
		l->adapter.kmajor = l->adapter.kminor = 0;
	for (up = 0; up < 4 && !l->adapter.driver[0]; up++) {
		len = snprintf(path, sizeof(path), "/sys/class/tty/%s/device%.*s/driver",
			       l->tty_name, 3 * up, "/../../../..");
		n = len < (int)sizeof(path) ? readlink(path, link, sizeof(link) - 1) : -1;
		if (n < 0)
			continue;
		link[n] = '\0';
		name = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
		if (!adapter_serial_core_layer(name))
			snprintf(l->adapter.driver, sizeof(l->adapter.driver), "%.63s", name);
	}
	adapter_attach_msg(msg, sizeof(msg), l->tty_name,
			   l->adapter.driver[0] ? l->adapter.driver : NULL,
			   l->adapter.kmajor, l->adapter.kminor);
	log_msg(LOG_INFO, "%s", msg);
}

/* Once, LIVE_NO_PPS_S after attach with no PPS yet: why, and what to do. */
static void live_no_pps(struct live *l, int64_t now)
{
	char msg[1024];

	if (!adapter_pps_missing(l->adapter.edges, LIVE_NO_PPS_S) ||
	    l->adapter.said ||
	    now - l->adapter.since < LIVE_NO_PPS_S * 1000000000LL)
		return;
	l->adapter.said = true;
	adapter_no_pps_msg(msg, sizeof(msg), l->tty_name,
			   l->adapter.driver[0] ? l->adapter.driver : NULL,
			   l->adapter.kmajor, l->adapter.kminor, LIVE_NO_PPS_S);
	log_msg(LOG_WARNING, "%s", msg);
}

int live_run(const struct live_opts *o, struct pipeline *p)
{
	struct live l = { .o = o, .p = p };
	struct sigaction sa = { .sa_handler = on_signal };
	char path[PATH_MAX];
	int ret = 1, ld = N_TTY;
	pthread_t keeper;
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
	l.fd = live_attach(o, live_stored_tty(path, o->nmea_pty ?
					       o->nmea_pty->master : -1),
			   &ret, &reused);
	if (l.fd < 0)
		return ret;
	ret = 1;
	l.stored = reused || live_store(l.fd);
	if (live_setup_netlink(&l))
		goto out_detach;
	/* Events are not answers to our requests: their sequence numbers are 0. */
	nl_socket_disable_seq_check(l.sk);
	nl_socket_modify_cb(l.sk, NL_CB_VALID, NL_CB_CUSTOM, live_event_cb, &l);
	p->emit = live_label;
	p->ctx = &l;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (pthread_create(&keeper, NULL, live_dcd_keeper, (void *)(intptr_t)l.fd) ||
	    pthread_detach(keeper))
		log_msg(LOG_WARNING, "cannot start the DCD interrupt keeper: PPS may be missed on 8250 UARTs");
	if (reused)
		log_msg(LOG_INFO, "%s: took over gpsphc%" PRIu32 " (/dev/ptp%" PRIu32 ", servo %s) from the file descriptor store: the clock stayed in place",
			o->device, l.dev_id, l.ptp_index,
			gp_enum_name(GP_ENUM_SERVO_STATE, l.servo_state));
	else
		log_msg(LOG_INFO, "%s attached as gpsphc%" PRIu32, o->device, l.dev_id);
	live_adapter_probe(&l);
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
			{ .fd = nl_socket_get_fd(l.sk), .events = POLLIN },
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
			live_no_pps(&l, now);
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
	sd_notify(0, "STOPPING=1");
	metrics_out_close(&l.metrics);
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
	ioctl(l.fd, TIOCSETD, &ld);
	goto out_release;
out_lost:
	/* The discipline is another process's now: left as it is. */
	live_save_state(&l);
out_release:
	if (l.stored)
		sd_notify(0, "FDSTOREREMOVE=1\nFDNAME=tty");
out_close:
	close(l.fd);
	nl_socket_free(l.sk);
	nl_socket_free(l.req);
	return ret;
}
