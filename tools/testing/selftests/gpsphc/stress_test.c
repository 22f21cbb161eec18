// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency stress: ttys attached and detached in loops on two fake
 * ports at once, while other threads use everything a device offers and
 * races with its coming and going: tty readers, received sentences and
 * DCD edges; netlink dumps, gets, dev-set and time-set; every writable
 * sysfs attribute with its value read back; vhangup() of a third port;
 * the PTP clock (open/clock_gettime/close, caps, EXTTS, the sys-offset
 * ioctls); /dev/ppsN fetches; an events listener. Each worker alone, some
 * together, and all of them at once, GPSPHC_STRESS_SECONDS each (5 by
 * default). A fourth port stays attached throughout with its pulse
 * generator running, so that there is always a device to use.
 * GPSPHC_STRESS_ONLY=<text> runs only the cases whose name contains it
 * (e.g. "stress.ptp", "udev").
 *
 * What must hold, exactly:
 * - every attach succeeds (TIOCSETD returns 0 and the device is in sysfs)
 *   and every detach too: two ports attaching and detaching at once must
 *   never collide on a device name;
 * - a sysfs write either succeeds and its value reads back (servo "off"
 *   also reads back as servo_state "off"), or fails with ENODEV/ENOENT
 *   because the device is going away (its directory is gone within 1 s);
 * - netlink answers every request within 5 s, with a valid reply or a
 *   documented errno and an extended-ack message; a dump lists each
 *   device once, complete;
 * - the PTP clock and /dev/ppsN either work or say ENODEV (ENOENT or
 *   ENXIO when opened after the device went away);
 * - every event is complete;
 * - no thread or child crashes, and afterwards only the fourth port's
 *   device is left, working.
 * The kernel's own checks (WARNING, BUG, list corruption) are the guest's:
 * its init fails the run on any of them in dmesg.
 *
 * One race is the kernel's, not ours, and stays out: posix_clock_register()
 * makes /dev/ptpN openable (cdev_device_add()) before it sets the clock's
 * device pointer. An open in that window takes no reference on the device
 * (get_device(NULL)) and its close drops one, so the clock is freed while
 * still in use: refcount underflow in ptp_clock_unregister(), list
 * corruption in its rwsem, cdev_put() on freed memory. Seen on Debian's
 * 6.1.0-57 and 6.12.118 within seconds once openers race re-attaches that
 * reuse a PTP index (a kprobe on get_device() caught posix_clock_open()
 * passing NULL just before each crash). No driver can close that window
 * (tools/testing/vm/patches/posix-clock-register-race.patch does, in the
 * kernel), so the PTP openers here never overlap an attach, nor a tty
 * open, which reattaches after a hangup; detach, where our teardown races
 * them, stays free. GPSPHC_STRESS_REGISTER_RACE=1 lets them overlap and
 * shows the kernel bug.
 *
 * Then a udev-like case, with an events listener subscribed (so that a
 * servo change queues a notification): a real-time thread on the CPU that
 * attaches, woken by the kernel's uevents, writes servo=off and
 * confirm_n=7 the moment a gpsphc device appears, and servo on and off
 * again the moment its PPS source goes away on detach. When attach
 * returns, each write that succeeded must be in effect (or it must have
 * failed with an error); a write as the device goes succeeds or fails
 * with ENODEV/ENOENT. Queueing the notification work before attach
 * initialised it, or after detach cancelled it, is for the guest's dmesg
 * check (WARNING in __queue_work, list corruption) to catch.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/pps.h>

#include "kselftest_harness.h"
#include "gpsphc_test.h"
#include "nl_helpers.h"
#include "phc_helpers.h"
#include "stress_helpers.h"

#define DEFAULT_SECONDS	5
/* Devices the udev test makes at least, for its count of settings written */
#define UDEV_MIN_CYCLES	8
#define LOOP_PORTS	2	/* ports 0 and 1 attach and detach in loops */
#define VHANGUP_PORT	2
#define STABLE_PORT	3	/* attached throughout, pulses on */
#define MAX_JOBS	24

enum {
	W_TTY		= 1 << 0,	/* readers, sentences, DCD on the loop ports */
	W_NETLINK	= 1 << 1,
	W_SYSFS		= 1 << 2,
	W_VHANGUP	= 1 << 3,
	W_PTP		= 1 << 4,
	W_PPS		= 1 << 5,
	W_EVENTS	= 1 << 6,
	W_ALL		= (1 << 7) - 1,
};

/* What the workers did: ok, and tolerated (a documented race outcome). */
enum ctr {
	C_ATTACH0, C_ATTACH1, C_TTY_READ, C_RX, C_DCD, C_NL_DUMP, C_NL_GET,
	C_NL_SET, C_NL_TIME, C_SYSFS_W, C_SYSFS_R, C_PTP_GETTIME, C_PTP_IOCTL,
	C_PPS, C_EVENTS, C_VHANGUP, C_LATE, NCTR
};

static const char *const ctr_names[NCTR] = {
	"attach ttyGPSSIM0", "attach ttyGPSSIM1", "tty reads", "rx writes",
	"DCD edges", "netlink dumps", "netlink gets", "netlink dev-set",
	"netlink time-set", "sysfs writes", "sysfs reads", "PTP gettime",
	"PTP ioctl rounds", "PPS fetches", "events", "vhangup cycles",
	"servo written as the device goes",
};

/* Shared with the vhangup child. */
struct shared {
	atomic_bool stop;
	atomic_long ok[NCTR], tol[NCTR];
	/* attach (write) against PTP opens (read): see the top comment */
	pthread_rwlock_t register_lock;
	bool register_race;
};

struct stress;

struct job {
	struct stress *s;
	int port;
	uint64_t rng;
	pthread_t thr;
};

struct stress {
	struct shared *sh;
	struct st_log *log;
	unsigned int workers;
	/* nlt_request() receives into one static buffer: one caller at a time */
	pthread_mutex_t nl_lock;
	/* one setter at a time, so that a write and its read-back pair up */
	pthread_mutex_t set_lock;
	struct nlt_sock nl;
	struct nlt_sock ev;
	struct nlt_events *q;
	int stable_fd, stable_id;
	struct job jobs[MAX_JOBS];
	int njobs;
	pid_t vh_pid;
	/* lockstep_loop(): its rounds, and the stop decision for both */
	pthread_barrier_t ls_barrier;
	bool ls_stop;
};

static bool stopping(struct stress *s)
{
	return atomic_load(&s->sh->stop);
}

static void count_ok(struct stress *s, enum ctr c)
{
	atomic_fetch_add(&s->sh->ok[c], 1);
}

static void count_tol(struct stress *s, enum ctr c)
{
	atomic_fetch_add(&s->sh->tol[c], 1);
}

/* ---- attach and detach --------------------------------------------------- */

/* Attach gpsphc to @fd, never while a PTP clock is being opened. */
static int attach_gpsphc(struct stress *s, int fd)
{
	int r;

	if (s->sh->register_race)
		return ldisc_set(fd, GPSPHC_LDISC);
	pthread_rwlock_wrlock(&s->sh->register_lock);
	r = ldisc_set(fd, GPSPHC_LDISC);
	pthread_rwlock_unlock(&s->sh->register_lock);
	return r;
}

/*
 * Open tty port @port. An open can attach gpsphc too: after a hangup the
 * tty has no discipline, and the next open while another fd still holds
 * it puts back termios.c_line, ours (tty_reopen()). So it counts as an
 * attach for the register lock (explore_test found it).
 */
static int tty_open_gated(struct stress *s, int port)
{
	int fd;

	if (s->sh->register_race)
		return sim_tty_open(port, O_NONBLOCK);
	pthread_rwlock_wrlock(&s->sh->register_lock);
	fd = sim_tty_open(port, O_NONBLOCK);
	pthread_rwlock_unlock(&s->sh->register_lock);
	return fd;
}

/* Open /dev/ptp@idx, never while a clock is being registered. */
static int ptp_open(struct stress *s, int idx, int flags)
{
	int fd;

	if (s->sh->register_race)
		return phc_open(idx, flags);
	pthread_rwlock_rdlock(&s->sh->register_lock);
	fd = phc_open(idx, flags);
	pthread_rwlock_unlock(&s->sh->register_lock);
	return fd;
}

/*
 * Is a gpsphc device attached to @tty in sysfs? A readdir of a directory
 * whose entries come and go may skip one (kernfs resumes by hash): a miss
 * is looked for twice more before it counts.
 */
static bool attached(struct stress *s, const char *tty)
{
	int i;

	for (i = 0; i < 3; i++) {
		if (gpsphc_find(tty) >= 0)
			return true;
		count_tol(s, C_SYSFS_R);
	}
	return false;
}

/*
 * Attach and detach in a loop, by TIOCSETD and (without tty readers, who
 * keep the tty open) every fourth time by closing the last fd.
 */
static void *attach_loop(void *arg)
{
	struct job *j = arg;
	struct stress *s = j->s;
	enum ctr c = j->port ? C_ATTACH1 : C_ATTACH0;
	bool by_close = !(s->workers & W_TTY);
	int fd = -1, cycle, r;
	char tty[16];

	snprintf(tty, sizeof(tty), "ttyGPSSIM%d", j->port);
	for (cycle = 0; !stopping(s); cycle++) {
		if (fd < 0) {
			fd = tty_open_gated(s, j->port);
			if (fd < 0) {
				st_fail(s->log, "open %s: %s", tty, strerror(-fd));
				usleep(10000);
				continue;
			}
		}
		r = attach_gpsphc(s, fd);
		if (r) {
			st_fail(s->log, "%s: attach #%d failed: %s", tty, cycle, strerror(-r));
		} else if (!attached(s, tty)) {
			st_fail(s->log, "%s: attach #%d returned 0 but no gpsphc device names it",
				tty, cycle);
		} else {
			count_ok(s, c);
		}
		usleep(st_below(&j->rng, 2000));
		if (by_close && cycle % 4 == 3) {
			close(fd);
			fd = -1;
			continue;
		}
		r = ldisc_set(fd, N_TTY);
		if (r)
			st_fail(s->log, "%s: detach #%d failed: %s", tty, cycle, strerror(-r));
	}
	if (fd >= 0) {
		ldisc_set(fd, N_TTY);
		close(fd);
	}
	return NULL;
}

/*
 * The two loop ports in lockstep: each round one port detaches while the
 * other attaches (after a random delay of up to 0.5 ms), then they swap.
 * An id given out again before its old device has left sysfs makes the
 * attach fail ("sysfs: cannot create duplicate filename"): that must
 * never happen.
 */
static void *lockstep_loop(void *arg)
{
	struct job *j = arg;
	struct stress *s = j->s;
	enum ctr c = j->port ? C_ATTACH1 : C_ATTACH0;
	int fd, round, r;
	char tty[16];

	snprintf(tty, sizeof(tty), "ttyGPSSIM%d", j->port);
	fd = tty_open_gated(s, j->port);
	if (fd < 0)
		st_fail(s->log, "open %s: %s", tty, strerror(-fd));
	/* port 0 starts attached, port 1 detached */
	if (fd >= 0 && j->port == 0 && attach_gpsphc(s, fd))
		st_fail(s->log, "%s: first attach failed", tty);
	for (round = 0;; round++) {
		if (j->port == 0)
			s->ls_stop = stopping(s);
		pthread_barrier_wait(&s->ls_barrier);
		if (s->ls_stop)
			break;
		if (fd < 0) {
			/* keep the rounds going for the other port */
		} else if ((round + j->port) % 2 == 0) {
			r = ldisc_set(fd, N_TTY);
			if (r)
				st_fail(s->log, "%s: detach in round %d failed: %s", tty, round,
					strerror(-r));
		} else {
			usleep(st_below(&j->rng, 500));
			r = attach_gpsphc(s, fd);
			if (r)
				st_fail(s->log, "%s: attach in round %d failed: %s", tty, round,
					strerror(-r));
			else if (!attached(s, tty))
				st_fail(s->log, "%s: attach in round %d returned 0 but no gpsphc device names it",
					tty, round);
			else
				count_ok(s, c);
		}
		pthread_barrier_wait(&s->ls_barrier);
	}
	if (fd >= 0) {
		ldisc_set(fd, N_TTY);
		close(fd);
	}
	return NULL;
}

/* ---- the tty side: readers, received bytes, DCD -------------------------- */

/* Errors an open of a tty that is being hung up may give. */
static bool open_race_errno(int err)
{
	return err == -EIO || err == -EAGAIN || err == -EBUSY;
}

/* Read the port's tty until stopped; reopen after a hangup. */
static void *tty_reader(void *arg)
{
	struct job *j = arg;
	struct stress *s = j->s;
	char buf[4096];
	int fd = -1;

	while (!stopping(s)) {
		struct pollfd pfd;
		ssize_t n;

		if (fd < 0) {
			fd = tty_open_gated(s, j->port);
			if (fd < 0) {
				if (!open_race_errno(fd))
					st_fail(s->log, "reader: open ttyGPSSIM%d: %s", j->port,
						strerror(-fd));
				count_tol(s, C_TTY_READ);
				fd = -1;
				usleep(5000);
				continue;
			}
		}
		pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
		if (poll(&pfd, 1, 20) < 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n > 0) {
			count_ok(s, C_TTY_READ);
		} else if (n == 0 || (n < 0 && errno == EIO) ||
			   (pfd.revents & (POLLHUP | POLLERR))) {
			/* hung up: a new open gets the tty again */
			count_tol(s, C_TTY_READ);
			close(fd);
			fd = -1;
		} else if (errno != EAGAIN && errno != EINTR) {
			st_fail(s->log, "reader: read ttyGPSSIM%d: %s", j->port, strerror(errno));
		}
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* Sentences into the loop ports (and the vhangup port), in turn. */
static void *rx_writer(void *arg)
{
	static const char sentence[] =
		"$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n"
		"$GPTXT,01,01,02,stress*19\r\n";
	struct job *j = arg;
	struct stress *s = j->s;
	int nports = s->workers & W_VHANGUP ? 3 : LOOP_PORTS;
	int i;

	for (i = 0; !stopping(s); i++) {
		int port = i % nports;
		ssize_t n = sim_write(port, "rx", sentence, sizeof(sentence) - 1);

		if (n == (ssize_t)sizeof(sentence) - 1)
			count_ok(s, C_RX);
		else if (n == -ENOTCONN || n == -ENOBUFS)
			count_tol(s, C_RX);	/* nobody has the tty open */
		else
			st_fail(s->log, "rx ttyGPSSIM%d: %zd (%s)", port, n,
				n < 0 ? strerror(-n) : "short");
		usleep(2000);
	}
	return NULL;
}

/* DCD edges on the loop ports, about 500 a second each. */
static void *dcd_toggler(void *arg)
{
	struct job *j = arg;
	struct stress *s = j->s;
	int fd[LOOP_PORTS], i, level = 0;

	for (i = 0; i < LOOP_PORTS; i++) {
		fd[i] = sim_ctl_open(i, "dcd");
		if (fd[i] < 0)
			st_fail(s->log, "open dcd of port %d: %s", i, strerror(-fd[i]));
	}
	while (!stopping(s)) {
		level = !level;
		for (i = 0; i < LOOP_PORTS; i++) {
			int r = fd[i] < 0 ? fd[i] : dcd_write(fd[i], level);

			if (r)
				st_fail(s->log, "dcd port %d: %s", i, strerror(-r));
			else
				count_ok(s, C_DCD);
		}
		usleep(1000);
	}
	for (i = 0; i < LOOP_PORTS; i++) {
		if (fd[i] >= 0) {
			dcd_write(fd[i], 0);
			close(fd[i]);
		}
	}
	return NULL;
}

/* ---- netlink ------------------------------------------------------------- */

static int nl_locked_request(struct stress *s, struct nlt_msg *m, struct devs *ds,
			     struct nlt_result *res)
{
	int ret;

	if (ds)
		memset(ds, 0, sizeof(*ds));
	pthread_mutex_lock(&s->nl_lock);
	ret = nlt_request(&s->nl, m, ds ? collect_dev : NULL, ds, res);
	pthread_mutex_unlock(&s->nl_lock);
	return ret;
}

/* A refusal must be a documented errno, with a message. */
static void nl_check_err(struct stress *s, const char *what, int ret,
			 const struct nlt_result *res, const int *allowed)
{
	if (ret) {
		st_fail(s->log, "%s: no answer: %s", what, strerror(-ret));
		return;
	}
	for (; *allowed; allowed++)
		if (res->err == *allowed)
			break;
	if (!*allowed)
		st_fail(s->log, "%s: %s \"%s\"", what, strerror(res->err), res->ext_msg);
	else if (!res->ext_msg[0])
		st_fail(s->log, "%s: %s without an extack message", what, strerror(res->err));
}

/* A dump: every device once, each complete. Its ids in @ids. */
static int nl_dump(struct stress *s, uint32_t *ids)
{
	static const int allowed[] = { 0 };
	struct nlt_result res;
	struct nlt_msg m;
	struct devs ds;
	int i, k, ret;

	nlt_gpsphc_init(&s->nl, &m, GPSPHC_CMD_DEV_GET, NLM_F_DUMP);
	ret = nl_locked_request(s, &m, &ds, &res);
	if (ret || res.err) {
		nl_check_err(s, "dump", ret, &res, allowed);
		return 0;
	}
	if (ds.bad_cmd)
		st_fail(s->log, "dump: %d replies not DEV_GET", ds.bad_cmd);
	if (ds.n > 4 || ds.n < 1)
		st_fail(s->log, "dump: %d devices (4 ports, one always attached)", ds.n);
	for (i = 0; i < ds.n && i < MAX_DEVS; i++) {
		const char *why = dev_invalid(&ds.d[i]);

		if (why)
			st_fail(s->log, "dump: device %u: %s", ds.d[i].id, why);
		for (k = 0; k < i; k++)
			if (ds.d[k].id == ds.d[i].id)
				st_fail(s->log, "dump: id %u twice", ds.d[i].id);
		ids[i] = ds.d[i].id;
	}
	count_ok(s, C_NL_DUMP);
	return ds.n < MAX_DEVS ? ds.n : MAX_DEVS;
}

/* Get by id or by tty: the device asked for, or ENODEV. */
static void nl_get(struct stress *s, uint64_t *rng)
{
	static const int allowed[] = { ENODEV, 0 };
	uint32_t id = st_below(rng, 6);
	int port = st_below(rng, 4);
	bool by_tty = st_below(rng, 2);
	struct nlt_result res;
	struct nlt_msg m;
	struct devs ds;
	char tty[16];
	int ret;

	snprintf(tty, sizeof(tty), "ttyGPSSIM%d", port);
	nlt_gpsphc_init(&s->nl, &m, GPSPHC_CMD_DEV_GET, 0);
	if (by_tty)
		nlt_put_str(&m, GPSPHC_A_DEV_TTY, tty);
	else
		nlt_put_u32(&m, GPSPHC_A_DEV_ID, id);
	ret = nl_locked_request(s, &m, &ds, &res);
	if (ret || res.err) {
		nl_check_err(s, "get", ret, &res, allowed);
		if (!ret && res.err == ENODEV)
			count_tol(s, C_NL_GET);
		return;
	}
	if (ds.n != 1 || ds.bad_cmd) {
		st_fail(s->log, "get: %d replies (%d not DEV_GET)", ds.n, ds.bad_cmd);
	} else if (dev_invalid(&ds.d[0])) {
		st_fail(s->log, "get: %s", dev_invalid(&ds.d[0]));
	} else if (by_tty ? strcmp(ds.d[0].tty, tty) : ds.d[0].id != id) {
		st_fail(s->log, "get: asked for %s, got gpsphc%u on %s",
			by_tty ? tty : "an id", ds.d[0].id, ds.d[0].tty);
	} else {
		count_ok(s, C_NL_GET);
	}
}

/*
 * dev-set with values none of which is the default, then dev-get of the
 * same id: our values, or (the device went and a new one took the id)
 * the defaults, or ENODEV.
 */
static void nl_set(struct stress *s, uint64_t *rng, uint32_t id)
{
	static const int allowed[] = { ENODEV, 0 };
	uint64_t step = 1000 + st_below(rng, 1000) * 1000;
	uint32_t confirm = 4 + st_below(rng, 57);
	uint64_t lat = 1 + st_below(rng, 999000000);
	struct nlt_result res;
	struct nlt_dev *d;
	struct nlt_msg m;
	struct devs ds;
	int ret;

	pthread_mutex_lock(&s->set_lock);
	nlt_gpsphc_init(&s->nl, &m, GPSPHC_CMD_DEV_SET, 0);
	nlt_put_u32(&m, GPSPHC_A_DEV_ID, id);
	nlt_put_u32(&m, GPSPHC_A_DEV_EDGE, GPSPHC_EDGE_FALLING);
	nlt_put_u32(&m, GPSPHC_A_DEV_SCALE, GPSPHC_SCALE_UTC);
	nlt_put_u64(&m, GPSPHC_A_DEV_STEP_NS, step);
	nlt_put_u32(&m, GPSPHC_A_DEV_CONFIRM_N, confirm);
	nlt_put_u64(&m, GPSPHC_A_DEV_RX_LATENCY_NS, lat);
	nlt_put(&m, GPSPHC_A_DEV_SERVO_OFF, &(uint8_t){ st_below(rng, 2) }, 1);
	ret = nl_locked_request(s, &m, NULL, &res);
	if (ret || res.err) {
		nl_check_err(s, "dev-set", ret, &res, allowed);
		if (!ret && res.err == ENODEV)
			count_tol(s, C_NL_SET);
		goto out;
	}
	nlt_gpsphc_init(&s->nl, &m, GPSPHC_CMD_DEV_GET, 0);
	nlt_put_u32(&m, GPSPHC_A_DEV_ID, id);
	ret = nl_locked_request(s, &m, &ds, &res);
	if (ret || res.err) {
		nl_check_err(s, "get after dev-set", ret, &res, allowed);
		count_tol(s, C_NL_SET);
		goto out;
	}
	d = &ds.d[0];
	if (ds.n != 1 || dev_invalid(d)) {
		st_fail(s->log, "get after dev-set: %d replies, %s", ds.n,
			ds.n ? dev_invalid(d) : "none");
	} else if (d->edge == GPSPHC_EDGE_FALLING && d->scale == GPSPHC_SCALE_UTC &&
		   d->step_ns == step && d->confirm_n == confirm &&
		   d->rx_latency_ns == lat) {
		count_ok(s, C_NL_SET);
	} else if (d->edge == GPSPHC_EDGE_RISING && d->scale == GPSPHC_SCALE_TAI &&
		   d->step_ns == 20000000 && d->confirm_n == 3 && !d->rx_latency_ns) {
		count_tol(s, C_NL_SET);	/* a new device with the id */
	} else {
		st_fail(s->log, "dev-set gpsphc%u: set edge 2 scale 2 step %llu confirm %u latency %llu, reads edge %u scale %u step %llu confirm %u latency %llu",
			id, (unsigned long long)step, confirm, (unsigned long long)lat,
			d->edge, d->scale, (unsigned long long)d->step_ns, d->confirm_n,
			(unsigned long long)d->rx_latency_ns);
	}
out:
	pthread_mutex_unlock(&s->set_lock);
}

/* A label for some recent-looking edge: taken, or refused with a reason. */
static void nl_time_set(struct stress *s, uint64_t *rng, uint32_t id)
{
	static const int allowed[] = { ENOENT, EINVAL, ERANGE, ENODEV, EBUSY, 0 };
	struct nlt_result res;
	int ret;

	pthread_mutex_lock(&s->nl_lock);
	ret = nlt_time_set(&s->nl, id, st_below(rng, 64), 1800000037ULL, 37, 0, 0, &res);
	pthread_mutex_unlock(&s->nl_lock);
	if (ret || res.err)
		nl_check_err(s, "time-set", ret, &res, allowed);
	if (!ret && !res.err)
		count_ok(s, C_NL_TIME);
	else
		count_tol(s, C_NL_TIME);
}

static void *netlink_worker(void *arg)
{
	struct job *j = arg;
	struct stress *s = j->s;
	uint32_t ids[MAX_DEVS];

	while (!stopping(s)) {
		int n = nl_dump(s, ids);

		nl_get(s, &j->rng);
		if (n) {
			nl_set(s, &j->rng, ids[st_below(&j->rng, n)]);
			nl_time_set(s, &j->rng, ids[st_below(&j->rng, n)]);
		}
	}
	return NULL;
}

/* ---- sysfs --------------------------------------------------------------- */

struct wval {
	const char *w;		/* written */
	const char *r;		/* reads back as, without the newline */
};

struct wattr {
	const char *name;
	const struct wval *v;
	int nv;
	const char *bad;	/* a value refused with @bad_err */
	int bad_err;
};

#define WA(n, vals, b, e) { n, vals, sizeof(vals) / sizeof(vals[0]), b, e }

static const struct wval edge_v[] = { { "rising", "rising" }, { "falling\n", "falling" } };
static const struct wval scale_v[] = { { "tai", "tai" }, { "utc\n", "utc" } };
static const struct wval step_v[] = {
	{ "1000", "1000" }, { "20000000", "20000000" },
	{ "0x3b9aca00", "1000000000" }, { "5000000\n", "5000000" },
};
static const struct wval confirm_v[] = {
	{ "1", "1" }, { "3", "3" }, { "60\n", "60" }, { "7", "7" },
};
static const struct wval latency_v[] = {
	{ "0", "0" }, { "999000000", "999000000" }, { "1500000\n", "1500000" },
};
static const struct wval servo_v[] = {
	{ "off", "off" }, { "on", "on" }, { "0", "off" }, { "y\n", "on" },
};

static const struct wattr wattrs[] = {
	WA("edge", edge_v, "both", EINVAL),
	WA("scale", scale_v, "gps", EINVAL),
	WA("step_ns", step_v, "999", ERANGE),
	WA("confirm_n", confirm_v, "61", ERANGE),
	WA("rx_latency_ns", latency_v, "999000001", ERANGE),
	WA("servo", servo_v, "maybe", EINVAL),
};

static const char *const rattrs[] = {
	"tty", "pps_device", "edge", "available_edges", "ptp_device", "scale",
	"available_scales", "step_ns", "confirm_n", "rx_latency_ns", "servo",
	"servo_state", "offset_ns", "rms_ns", "freq_ppb", "tai_utc", "leap",
	"leap_utc", "holdover_s", "coarse", "statistics/labels",
	"statistics/labels_refused", "statistics/disagreements",
	"statistics/steps", "statistics/outliers", "statistics/pps_spurious",
	"statistics/relocks", "statistics/holdovers", "statistics/sentences",
	"statistics/pps_edges", "statistics/pps_missed",
	"statistics/events_dropped",
};

static void strip_nl(char *buf)
{
	size_t n = strlen(buf);

	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
}

/*
 * Does @attr (pps_device, ptp_device) of the device open as @dfd read
 * within @ms, or the device go? Either ends an attach.
 */
static bool whole_within(int dfd, const char *attr, int ms)
{
	char buf[32];
	int r;

	for (;;) {
		r = dir_read(dfd, attr, buf, sizeof(buf));
		if (r > 0 || (r < 0 && r != -EAGAIN))
			return true;
		if (ms <= 0)
			return false;
		usleep(10000);
		ms -= 10;
	}
}

/* A failed access to device @name is fine only if the device is going. */
static void sysfs_gone(struct stress *s, int dfd, const char *name, const char *what,
		       int err, enum ctr c)
{
	if (gone_errno(err) && dir_gone_within(dfd, 1000))
		count_tol(s, c);
	else
		st_fail(s->log, "%s/%s: %s, and the device is %s", name, what, strerror(-err),
			gone_errno(err) ? "still there after 1 s" : "there");
}

/* One write and its read-back, as the only setter. */
static void sysfs_write_one(struct stress *s, uint64_t *rng, int dfd, const char *name)
{
	const struct wattr *a = &wattrs[st_below(rng, sizeof(wattrs) / sizeof(wattrs[0]))];
	bool bad = st_below(rng, 10) == 0;
	const struct wval *v = &a->v[st_below(rng, a->nv)];
	char buf[64];
	int r;

	pthread_mutex_lock(&s->set_lock);
	r = dir_write(dfd, a->name, bad ? a->bad : v->w);
	if (bad) {
		if (r == -a->bad_err)
			count_ok(s, C_SYSFS_W);
		else if (r)
			sysfs_gone(s, dfd, name, a->name, r, C_SYSFS_W);
		else
			st_fail(s->log, "%s/%s: \"%s\" accepted", name, a->name, a->bad);
		goto out;
	}
	if (r) {
		sysfs_gone(s, dfd, name, a->name, r, C_SYSFS_W);
		goto out;
	}
	r = dir_read(dfd, a->name, buf, sizeof(buf));
	if (r < 0) {
		sysfs_gone(s, dfd, name, a->name, r, C_SYSFS_W);
		goto out;
	}
	strip_nl(buf);
	if (strcmp(buf, v->r)) {
		st_fail(s->log, "%s/%s: wrote \"%s\", reads \"%s\"", name, a->name, v->r, buf);
		goto out;
	}
	/* The servo off is off: its state says so (until it is turned on). */
	if (!strcmp(v->r, "off")) {
		r = dir_read(dfd, "servo_state", buf, sizeof(buf));
		if (r < 0) {
			sysfs_gone(s, dfd, name, "servo_state", r, C_SYSFS_W);
			goto out;
		}
		strip_nl(buf);
		if (strcmp(buf, "off")) {
			st_fail(s->log, "%s: servo reads \"off\", servo_state \"%s\"", name, buf);
			goto out;
		}
	}
	count_ok(s, C_SYSFS_W);
out:
	pthread_mutex_unlock(&s->set_lock);
}

/* Every readable file: one line, ending in a newline. */
static void sysfs_read_all(struct stress *s, int dfd, const char *name)
{
	char buf[128];
	unsigned int i;

	for (i = 0; i < sizeof(rattrs) / sizeof(rattrs[0]); i++) {
		int r = dir_read(dfd, rattrs[i], buf, sizeof(buf));

		if (r == -EAGAIN && (!strcmp(rattrs[i], "pps_device") ||
				     !strcmp(rattrs[i], "ptp_device"))) {
			/* Read mid-attach: fine if the device is whole soon. */
			if (!whole_within(dfd, rattrs[i], 1000))
				st_fail(s->log, "%s/%s: %s for over 1 s", name, rattrs[i],
					strerror(EAGAIN));
			count_tol(s, C_SYSFS_R);
			return;
		}
		if (r < 0) {
			sysfs_gone(s, dfd, name, rattrs[i], r, C_SYSFS_R);
			return;
		}
		if (r < 2 || buf[r - 1] != '\n' || strchr(buf, '\n') != buf + r - 1)
			st_fail(s->log, "%s/%s: \"%s\" is not one line", name, rattrs[i], buf);
	}
	count_ok(s, C_SYSFS_R);
}

/*
 * servo off and on, read back each time, on the loop ports' devices as
 * long as each lives: with a listener, every change queues a
 * notification, also while the device is being attached or detached.
 */
static void *servo_toggler(void *arg)
{
	struct job *j = arg;
	struct stress *s = j->s;
	char names[MAX_DEVS][32], buf[64];

	while (!stopping(s)) {
		int i, k, n = dev_names(names, MAX_DEVS);

		for (i = 0; i < n && !stopping(s); i++) {
			int dfd = dev_dir_open(names[i]), r = -ENOENT;

			if (dfd < 0)
				continue;
			if (dir_read(dfd, "tty", buf, sizeof(buf)) > 0 &&
			    strcmp(buf, "ttyGPSSIM3\n")) {
				for (k = 0; k < 200 && !stopping(s); k++) {
					const char *v = k % 2 ? "on" : "off";

					pthread_mutex_lock(&s->set_lock);
					r = dir_write(dfd, "servo", v);
					if (!r)
						r = dir_read(dfd, "servo", buf, sizeof(buf));
					pthread_mutex_unlock(&s->set_lock);
					if (r < 0)
						break;
					strip_nl(buf);
					if (strcmp(buf, v))
						st_fail(s->log, "%s/servo: wrote \"%s\", reads \"%s\"",
							names[i], v, buf);
					count_ok(s, C_SYSFS_W);
				}
				if (r < 0)
					sysfs_gone(s, dfd, names[i], "servo", r, C_SYSFS_W);
			}
			close(dfd);
		}
	}
	return NULL;
}

static void *sysfs_worker(void *arg)
{
	struct job *j = arg;
	struct stress *s = j->s;
	char names[MAX_DEVS][32];

	while (!stopping(s)) {
		int i, k, n = dev_names(names, MAX_DEVS);

		for (i = 0; i < n && !stopping(s); i++) {
			int dfd = dev_dir_open(names[i]);

			if (dfd < 0)
				continue;	/* gone since readdir */
			for (k = 0; k < 6; k++)
				sysfs_write_one(s, &j->rng, dfd, names[i]);
			sysfs_read_all(s, dfd, names[i]);
			close(dfd);
		}
	}
	return NULL;
}

/* ---- the PTP clock and the PPS source ------------------------------------ */

/* N of /dev/ptpN (@file "ptp_device") or /dev/ppsN of a random device, or -1. */
static int random_index(uint64_t *rng, const char *file)
{
	char names[MAX_DEVS][32], path[256], buf[32];
	int n = dev_names(names, MAX_DEVS);

	if (!n)
		return -1;
	snprintf(path, sizeof(path), GPSPHC_CLASS "/%s/%s", names[st_below(rng, n)], file);
	if (read_file(path, buf, sizeof(buf)) < 4)
		return -1;
	return atoi(buf + 3);
}

/* Open, clock_gettime, close: the loop that met a freed clock on detach. */
static void *ptp_gettime_worker(void *arg)
{
	struct job *j = arg;
	struct stress *s = j->s;

	while (!stopping(s)) {
		int idx = random_index(&j->rng, "ptp_device"), i;

		for (i = 0; idx >= 0 && i < 20 && !stopping(s); i++) {
			int fd = ptp_open(s, idx, O_RDONLY);
			long long t;

			if (fd < 0) {
				if (!gone_open_errno(fd))
					st_fail(s->log, "open /dev/ptp%d: %s", idx, strerror(-fd));
				count_tol(s, C_PTP_GETTIME);
				break;
			}
			t = phc_gettime(fd);
			if (t >= 0)
				count_ok(s, C_PTP_GETTIME);
			else if (t == -ENODEV)
				count_tol(s, C_PTP_GETTIME);
			else
				st_fail(s->log, "clock_gettime /dev/ptp%d: %s", idx, strerror((int)-t));
			close(fd);
		}
	}
	return NULL;
}

/* Each ioctl works or says ENODEV (the clock went away). */
static bool ptp_ok(struct stress *s, int idx, const char *what, int r)
{
	if (r == 0)
		return true;
	if (errno != ENODEV)
		st_fail(s->log, "/dev/ptp%d %s: %s", idx, what, strerror(errno));
	return false;
}

static void *ptp_ioctl_worker(void *arg)
{
	struct job *j = arg;
	struct stress *s = j->s;

	while (!stopping(s)) {
		int idx = random_index(&j->rng, "ptp_device");
		struct ptp_sys_offset_extended ext = { .n_samples = 3 };
		struct ptp_sys_offset_precise pre;
		struct ptp_sys_offset off = { .n_samples = 3 };
		struct ptp_extts_request req = { .index = 0 };
		struct ptp_extts_event ev[4];
		struct ptp_clock_caps caps;
		int fd, r;

		if (idx < 0) {
			usleep(1000);
			continue;
		}
		fd = ptp_open(s, idx, O_RDWR);
		if (fd < 0) {
			if (!gone_open_errno(fd))
				st_fail(s->log, "open /dev/ptp%d: %s", idx, strerror(-fd));
			count_tol(s, C_PTP_IOCTL);
			continue;
		}
		memset(&caps, 0, sizeof(caps));
		memset(&pre, 0, sizeof(pre));
		if (!ptp_ok(s, idx, "GETCAPS", ioctl(fd, PTP_CLOCK_GETCAPS, &caps)))
			goto gone;
		if (caps.n_ext_ts != 1 || caps.max_adj != 500000)
			st_fail(s->log, "/dev/ptp%d caps: n_ext_ts %d max_adj %d", idx,
				caps.n_ext_ts, caps.max_adj);
		req.flags = PTP_ENABLE_FEATURE | PTP_RISING_EDGE;
		if (!ptp_ok(s, idx, "EXTTS on", ioctl(fd, PTP_EXTTS_REQUEST, &req)) ||
		    !ptp_ok(s, idx, "SYS_OFFSET", ioctl(fd, PTP_SYS_OFFSET, &off)) ||
		    !ptp_ok(s, idx, "SYS_OFFSET_EXTENDED",
			    ioctl(fd, PTP_SYS_OFFSET_EXTENDED, &ext)) ||
		    !ptp_ok(s, idx, "SYS_OFFSET_PRECISE",
			    ioctl(fd, PTP_SYS_OFFSET_PRECISE, &pre)))
			goto gone;
		r = phc_extts_read(fd, ev, 4, 0);
		if (r < 0) {
			errno = -r;
			if (!ptp_ok(s, idx, "EXTTS read", -1))
				goto gone;
		}
		req.flags = 0;
		if (!ptp_ok(s, idx, "EXTTS off", ioctl(fd, PTP_EXTTS_REQUEST, &req)))
			goto gone;
		count_ok(s, C_PTP_IOCTL);
		close(fd);
		continue;
gone:
		count_tol(s, C_PTP_IOCTL);
		close(fd);
	}
	return NULL;
}

static void *pps_worker(void *arg)
{
	struct job *j = arg;
	struct stress *s = j->s;

	while (!stopping(s)) {
		int idx = random_index(&j->rng, "pps_device"), fd, mode;
		struct pps_kparams params;
		struct pps_fdata fdata;
		char path[32];

		if (idx < 0) {
			usleep(1000);
			continue;
		}
		snprintf(path, sizeof(path), "/dev/pps%d", idx);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			if (!gone_open_errno(-errno))
				st_fail(s->log, "open %s: %s", path, strerror(errno));
			count_tol(s, C_PPS);
			continue;
		}
		memset(&fdata, 0, sizeof(fdata));	/* zero timeout: no wait */
		if (ioctl(fd, PPS_GETPARAMS, &params) || ioctl(fd, PPS_GETCAP, &mode) ||
		    ioctl(fd, PPS_FETCH, &fdata)) {
			if (errno != ENODEV)
				st_fail(s->log, "%s ioctl: %s", path, strerror(errno));
			count_tol(s, C_PPS);
		} else {
			count_ok(s, C_PPS);
		}
		close(fd);
	}
	return NULL;
}

/* ---- events -------------------------------------------------------------- */

static void check_events(struct stress *s, struct nlt_events *q)
{
	int i;

	for (i = 0; i < q->n; i++) {
		const struct nlt_event *e = &q->ev[i];

		switch (e->cmd) {
		case GPSPHC_CMD_PPS_NTF:
		case GPSPHC_CMD_SENTENCE_NTF:
		case GPSPHC_CMD_STATE_NTF:
		case GPSPHC_CMD_LABEL_NTF:
			if (e->complete)
				count_ok(s, C_EVENTS);
			else
				st_fail(s->log, "event %u of gpsphc%u incomplete", e->cmd, e->dev_id);
			break;
		default:
			st_fail(s->log, "event with command %u", e->cmd);
		}
	}
	if (q->overruns)
		count_tol(s, C_EVENTS);
	nlt_events_clear(q);
}

static void *events_worker(void *arg)
{
	struct job *j = arg;
	struct stress *s = j->s;

	while (!stopping(s)) {
		if (nlt_events_wait(&s->ev, s->q, -1, NULL, NULL, 50) < 0)
			st_fail(s->log, "events: out of memory");
		check_events(s, s->q);
	}
	return NULL;
}

/* ---- vhangup, in a child with a session of its own ----------------------- */

/*
 * Open the port, make it the controlling tty, attach, vhangup(), close:
 * until stopped. Runs in a forked child (vhangup() hangs up the caller's
 * controlling tty); it reports through the shared counters and log.
 */
static int vhangup_child(struct stress *s)
{
	char tty[16];
	int cycle, fd, r;

	snprintf(tty, sizeof(tty), "ttyGPSSIM%d", VHANGUP_PORT);
	signal(SIGHUP, SIG_IGN);
	if (setsid() < 0)
		return 2;
	for (cycle = 0; !stopping(s); cycle++) {
		fd = tty_open_gated(s, VHANGUP_PORT);
		if (fd < 0) {
			if (!open_race_errno(fd))
				st_fail(s->log, "vhangup: open %s #%d: %s", tty, cycle,
					strerror(-fd));
			count_tol(s, C_VHANGUP);
			usleep(2000);
			continue;
		}
		if (ioctl(fd, TIOCSCTTY, 0))
			st_fail(s->log, "vhangup: TIOCSCTTY %s: %s", tty, strerror(errno));
		r = attach_gpsphc(s, fd);
		if (r)
			st_fail(s->log, "vhangup: %s: attach #%d failed: %s", tty, cycle,
				strerror(-r));
		else if (!attached(s, tty))
			st_fail(s->log, "vhangup: %s: attached but no gpsphc device names it",
				tty);
		usleep(1000 + cycle % 3 * 1000);
		if (vhangup())
			st_fail(s->log, "vhangup: %s", strerror(errno));
		else
			count_ok(s, C_VHANGUP);
		close(fd);
	}
	return 0;
}

/* ---- set-up -------------------------------------------------------------- */

static void stress_init(struct __test_metadata *_metadata, struct stress *s,
			unsigned int workers)
{
	pthread_rwlockattr_t rwa;
	int i, ret;

	memset(s, 0, sizeof(*s));
	s->workers = workers;
	s->nl.fd = s->ev.fd = -1;
	s->stable_fd = -1;
	pthread_mutex_init(&s->nl_lock, NULL);
	pthread_mutex_init(&s->set_lock, NULL);
	pthread_barrier_init(&s->ls_barrier, NULL, LOOP_PORTS);
	s->log = st_log_new();
	ASSERT_NE(NULL, s->log);
	s->sh = mmap(NULL, sizeof(*s->sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, s->sh);
	memset(s->sh, 0, sizeof(*s->sh));
	ASSERT_EQ(0, pthread_rwlockattr_init(&rwa));
	ASSERT_EQ(0, pthread_rwlockattr_setpshared(&rwa, PTHREAD_PROCESS_SHARED));
	/* openers come back-to-back: an attach must not starve */
	ASSERT_EQ(0, pthread_rwlockattr_setkind_np(&rwa,
			PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP));
	ASSERT_EQ(0, pthread_rwlock_init(&s->sh->register_lock, &rwa));
	pthread_rwlockattr_destroy(&rwa);
	s->sh->register_race = getenv("GPSPHC_STRESS_REGISTER_RACE") != NULL;
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, sim_port_present(i, 1));
		sim_pulse_reset(i);
		ASSERT_EQ(0, sim_set(i, "dcd", "0"));
	}
	ASSERT_EQ(0, dir_entries(GPSPHC_CLASS)) TH_LOG("a device is left from before");
	ret = nlt_open(&s->nl);
	ASSERT_EQ(0, ret) TH_LOG("genl family " GPSPHC_GENL_NAME ": %s", strerror(-ret));
	if (workers & W_EVENTS) {
		ret = nlt_open_events(&s->ev, &s->q);
		ASSERT_EQ(0, ret) TH_LOG("events: %s", strerror(-ret));
	}

	/* The stable device, with pulses. */
	s->stable_fd = sim_tty_open(STABLE_PORT, O_NONBLOCK);
	ASSERT_LE(0, s->stable_fd);
	ASSERT_EQ(0, ldisc_set(s->stable_fd, GPSPHC_LDISC));
	s->stable_id = gpsphc_find("ttyGPSSIM3");
	ASSERT_LE(0, s->stable_id);
	ASSERT_EQ(0, sim_set(STABLE_PORT, "pulse_enable", "1"));
}

static void stop_all(struct stress *s)
{
	int i, status;

	if (!s->sh)
		return;
	atomic_store(&s->sh->stop, true);
	for (i = 0; i < s->njobs; i++)
		pthread_join(s->jobs[i].thr, NULL);
	s->njobs = 0;
	if (s->vh_pid > 0) {
		if (waitpid(s->vh_pid, &status, 0) == s->vh_pid &&
		    !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			st_fail(s->log, "vhangup child ended with status 0x%x", status);
		s->vh_pid = 0;
	}
}

static void stress_fini(struct stress *s)
{
	int i;

	stop_all(s);
	if (s->stable_fd >= 0) {
		ldisc_set(s->stable_fd, N_TTY);
		close(s->stable_fd);
	}
	for (i = 0; i < 4; i++) {
		sim_port_present(i, 1);
		sim_pulse_reset(i);
		sim_set(i, "dcd", "0");
	}
	if (s->q)
		nlt_events_free(s->q);
	free(s->q);
	nlt_close(&s->ev);
	nlt_close(&s->nl);
	st_log_free(s->log);
	if (s->sh)
		munmap(s->sh, sizeof(*s->sh));
	s->sh = NULL;
}

static void start(struct __test_metadata *_metadata, struct stress *s,
		  void *(*fn)(void *), int port)
{
	struct job *j;

	ASSERT_GT(MAX_JOBS, s->njobs);
	j = &s->jobs[s->njobs];
	j->s = s;
	j->port = port;
	j->rng = 0x5eed0000ULL + s->njobs * 7919 + (uint64_t)clock_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, pthread_create(&j->thr, NULL, fn, j));
	s->njobs++;
}

/* Log what the workers did and every failure; the count of failures. */
static long report(struct __test_metadata *_metadata, struct stress *s, double secs)
{
	char line[512];
	int i, len = 0;

	for (i = 0; i < NCTR; i++) {
		long ok = atomic_load(&s->sh->ok[i]), tol = atomic_load(&s->sh->tol[i]);

		if (!ok && !tol)
			continue;
		len += snprintf(line + len, sizeof(line) - len, "%s%s %ld (+%ld)",
				len ? ", " : "", ctr_names[i], ok, tol);
		if (len > 300) {
			TH_LOG("%s", line);
			len = 0;
		}
	}
	if (len)
		TH_LOG("%s", line);
	TH_LOG("%.1f s; (+N): outcomes of a race with detach, counted as fine", secs);
	for (i = 0; i < s->log->n && i < ST_LOG_KEEP; i++)
		TH_LOG("FAIL: %s", s->log->msg[i]);
	if (s->log->n > ST_LOG_KEEP)
		TH_LOG("... and %ld more failures", s->log->n - ST_LOG_KEEP);
	return s->log->n;
}

/* ---- the stress cases ---------------------------------------------------- */

FIXTURE(stress) {
	struct stress s;
};

FIXTURE_VARIANT(stress) {
	unsigned int workers;
	const char *name;
};

/* The two loops alone, in lockstep: no attach may fail (duplicate names). */
FIXTURE_VARIANT_ADD(stress, attach_only) {
	.workers = 0, .name = "attach_only",
};
FIXTURE_VARIANT_ADD(stress, tty_readers) {
	.workers = W_TTY, .name = "tty_readers",
};
FIXTURE_VARIANT_ADD(stress, netlink) {
	.workers = W_NETLINK, .name = "netlink",
};
FIXTURE_VARIANT_ADD(stress, sysfs) {
	.workers = W_SYSFS, .name = "sysfs",
};
/* servo writes queue a notification when someone listens */
FIXTURE_VARIANT_ADD(stress, sysfs_events) {
	.workers = W_SYSFS | W_EVENTS, .name = "sysfs_events",
};
FIXTURE_VARIANT_ADD(stress, vhangup) {
	.workers = W_VHANGUP | W_TTY, .name = "vhangup",
};
/* open/clock_gettime/close against detach */
FIXTURE_VARIANT_ADD(stress, ptp) {
	.workers = W_PTP, .name = "ptp",
};
FIXTURE_VARIANT_ADD(stress, pps_events) {
	.workers = W_PPS | W_EVENTS, .name = "pps_events",
};
FIXTURE_VARIANT_ADD(stress, all) {
	.workers = W_ALL, .name = "all",
};

FIXTURE_SETUP(stress)
{
	kmsg_mark("stress_test: stress.%s", variant->name);
	stress_init(_metadata, &self->s, variant->workers);
}

FIXTURE_TEARDOWN(stress)
{
	stress_fini(&self->s);
}

TEST_F_TIMEOUT(stress, runs_clean, 45)
{
	struct stress *s = &self->s;
	unsigned int w = variant->workers;
	int secs = stress_seconds(DEFAULT_SECONDS), i;
	long long t0 = clock_ns(CLOCK_MONOTONIC);
	struct nlt_result res;
	struct nlt_msg m;
	struct devs ds;
	int fd;

	if (!stress_selected("stress", variant->name))
		SKIP(return, "not in GPSPHC_STRESS_ONLY");
	if (w & W_VHANGUP) {
		/* before any thread: the child copies only the caller */
		s->vh_pid = fork();
		ASSERT_LE(0, s->vh_pid);
		if (s->vh_pid == 0)
			_exit(vhangup_child(s));
	}
	for (i = 0; i < LOOP_PORTS; i++)
		start(_metadata, s, w ? attach_loop : lockstep_loop, i);
	if (w & W_TTY) {
		start(_metadata, s, tty_reader, 0);
		start(_metadata, s, tty_reader, 1);
		if (w & W_VHANGUP)
			start(_metadata, s, tty_reader, VHANGUP_PORT);
		start(_metadata, s, rx_writer, 0);
		start(_metadata, s, dcd_toggler, 0);
	}
	if (w & W_NETLINK)
		start(_metadata, s, netlink_worker, 0);
	if (w & W_SYSFS) {
		start(_metadata, s, sysfs_worker, 0);
		start(_metadata, s, servo_toggler, 0);
	}
	if (w & W_PTP) {
		/*
		 * The more files are being closed as a clock goes, the likelier
		 * one meets its unregistering: four openers.
		 */
		for (i = 0; i < 4; i++)
			start(_metadata, s, ptp_gettime_worker, 0);
		start(_metadata, s, ptp_ioctl_worker, 0);
	}
	if (w & W_PPS)
		start(_metadata, s, pps_worker, 0);
	if (w & W_EVENTS)
		start(_metadata, s, events_worker, 0);

	sleep_until_ns(t0 + secs * NSEC_PER_SEC);
	stop_all(s);
	EXPECT_EQ(0, report(_metadata, s, (clock_ns(CLOCK_MONOTONIC) - t0) / 1e9));

	/*
	 * Each worker got somewhere: hundreds of cycles on Debian's kernels,
	 * a handful on the debug kernel (KASAN, lockdep under TCG).
	 */
	EXPECT_LT(0, atomic_load(&s->sh->ok[C_ATTACH0]));
	EXPECT_LT(0, atomic_load(&s->sh->ok[C_ATTACH1]));
	if (w & W_TTY)
		EXPECT_LT(0, atomic_load(&s->sh->ok[C_RX]) + atomic_load(&s->sh->ok[C_DCD]));
	if (w & W_NETLINK)
		EXPECT_LT(0, atomic_load(&s->sh->ok[C_NL_DUMP]));
	if (w & W_SYSFS)
		EXPECT_LT(0, atomic_load(&s->sh->ok[C_SYSFS_W]));
	if (w & W_VHANGUP)
		EXPECT_LT(0, atomic_load(&s->sh->ok[C_VHANGUP]));
	if (w & W_PTP)
		EXPECT_LT(0, atomic_load(&s->sh->ok[C_PTP_GETTIME]));
	if (w & W_PPS)
		EXPECT_LT(0, atomic_load(&s->sh->ok[C_PPS]));
	if (w & W_EVENTS)
		EXPECT_LT(0, atomic_load(&s->sh->ok[C_EVENTS]));

	/* Only the stable device is left, and it still works. */
	for (i = 0; i < 100 && dir_entries(GPSPHC_CLASS) != 1; i++)
		usleep(10000);
	EXPECT_EQ(1, dir_entries(GPSPHC_CLASS));
	EXPECT_EQ(s->stable_id, gpsphc_find("ttyGPSSIM3"));
	nlt_gpsphc_init(&s->nl, &m, GPSPHC_CMD_DEV_GET, 0);
	nlt_put_u32(&m, GPSPHC_A_DEV_ID, s->stable_id);
	memset(&ds, 0, sizeof(ds));
	ASSERT_EQ(0, nlt_request(&s->nl, &m, collect_dev, &ds, &res));
	EXPECT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	EXPECT_EQ(1, ds.n);
	fd = phc_open(gpsphc_ptp_index(s->stable_id), O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_LT(0, phc_gettime(fd));
	close(fd);
}

/* ---- settings written as devices come and go (udev) ---------------------- */

/* What the uevent listener and the early writer did for one new device. */
struct appeared {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool want, done;
	int id;
	int servo_ret, confirm_ret;
	/* the early writer: armed for gpsphc<early_id> while attach runs */
	atomic_bool early_armed;
	atomic_int early_id;
	atomic_int early_ret;	/* 1 until it wrote */
	long early_writes;	/* servo=off written before attach returned */
	char late_err[96];	/* the first write as the device went that failed */
};

struct appear_job {
	struct stress *s;
	struct appeared *a;
	int fd;
	pthread_t thr, early;
};

static int uevent_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd, size = 4 << 20;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -errno;
	}
	return fd;
}

/*
 * A uevent: its action ("add@..."), SUBSYSTEM and the device name in
 * /devices/virtual/gpsphc/gpsphc<N>[/child]: N, or -1 if not under gpsphc.
 */
static int uevent_gpsphc(const char *buf, ssize_t len, const char *action,
			 const char *subsystem, bool child)
{
	const char *p, *dev = NULL;
	bool sub = false;
	int id;

	if (strncmp(buf, action, strlen(action)))
		return -1;
	for (p = buf; p < buf + len; p += strlen(p) + 1) {
		if (!strncmp(p, "SUBSYSTEM=", 10))
			sub = !strcmp(p + 10, subsystem);
		else if (!strncmp(p, "DEVPATH=/devices/virtual/gpsphc/gpsphc", 38))
			dev = p + 38;
	}
	if (!sub || !dev || sscanf(dev, "%d", &id) != 1)
		return -1;
	return !!strchr(dev, '/') == child ? id : -1;
}

/* Pin the calling thread to CPU @cpu: 0 or -errno. */
static int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/*
 * Like udev rules, but sooner: a real-time thread on the CPU that attaches
 * and detaches, woken by the kernel's uevents, so it runs at the first
 * point where the attaching (detaching) thread may be preempted.
 * - A gpsphc device appears: servo=off and confirm_n=7.
 * - Its PPS source goes away (detach, after the notification work was
 *   cancelled, before the device leaves sysfs): servo on and off again.
 */
static void *uevent_worker(void *arg)
{
	struct sched_param sp = { .sched_priority = 10 };
	struct appear_job *aj = arg;
	struct appeared *a = aj->a;
	struct stress *s = aj->s;
	char buf[4096], path[128];
	int r = pin_to_cpu(0);

	if (!r)
		r = -pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (r)
		st_fail(s->log, "uevent listener: no SCHED_FIFO on CPU 0: %s", strerror(-r));
	while (!stopping(s)) {
		struct pollfd pfd = { .fd = aj->fd, .events = POLLIN };
		int dfd, sr, cr, id;
		ssize_t n;

		if (poll(&pfd, 1, 50) <= 0)
			continue;
		n = recv(aj->fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		id = uevent_gpsphc(buf, n, "remove@", "pps", true);
		if (id >= 0) {
			const char *step = "open";

			snprintf(path, sizeof(path), "gpsphc%d", id);
			dfd = dev_dir_open(path);
			sr = dfd;
			if (dfd >= 0) {
				step = "servo=on";
				sr = dir_write(dfd, "servo", "on");
			}
			if (!sr) {
				step = "servo=off";
				sr = dir_write(dfd, "servo", "off");
			}
			if (!sr)
				count_ok(s, C_LATE);
			else if (gone_errno(sr))
				count_tol(s, C_LATE);
			else
				st_fail(s->log, "servo of gpsphc%d as it goes: %s", id, strerror(-sr));
			if (sr && !a->late_err[0])
				snprintf(a->late_err, sizeof(a->late_err), "%s of gpsphc%d: %s",
					 step, id, strerror(-sr));
			if (dfd >= 0)
				close(dfd);
			continue;
		}
		id = uevent_gpsphc(buf, n, "add@", "gpsphc", false);
		if (id < 0)
			continue;
		snprintf(path, sizeof(path), "gpsphc%d", id);
		dfd = dev_dir_open(path);
		if (dfd < 0) {
			sr = cr = dfd;
		} else {
			sr = dir_write(dfd, "servo", "off");
			cr = dir_write(dfd, "confirm_n", "7");
			close(dfd);
		}
		pthread_mutex_lock(&a->lock);
		if (a->want) {
			a->id = id;
			a->servo_ret = sr;
			a->confirm_ret = cr;
			a->done = true;
			pthread_cond_signal(&a->cond);
		}
		pthread_mutex_unlock(&a->lock);
	}
	return NULL;
}

/*
 * Earlier than any uevent: while attach runs, open gpsphc<N>/servo (N the
 * id the device will get) over and over, and write "off" the moment the
 * file exists.
 */
static void *early_writer(void *arg)
{
	struct appear_job *aj = arg;
	struct appeared *a = aj->a;
	char path[128];

	while (!stopping(aj->s)) {
		int fd, r;

		if (!atomic_load(&a->early_armed)) {
			usleep(100);
			continue;
		}
		snprintf(path, sizeof(path), GPSPHC_CLASS "/gpsphc%d/servo",
			 atomic_load(&a->early_id));
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		r = write(fd, "off", 3) == 3 ? 0 : -errno;
		close(fd);
		if (atomic_exchange(&a->early_armed, false))
			atomic_store(&a->early_ret, r);
	}
	return NULL;
}

FIXTURE(udev) {
	struct stress s;
	struct appeared a;
	struct appear_job uj;
};

FIXTURE_SETUP(udev)
{
	kmsg_mark("stress_test: udev");
	/* An events listener: servo writes queue notifications for it. */
	stress_init(_metadata, &self->s, W_EVENTS);
	pthread_mutex_init(&self->a.lock, NULL);
	pthread_cond_init(&self->a.cond, NULL);
	self->uj.fd = uevent_open();
	ASSERT_LE(0, self->uj.fd) TH_LOG("uevent socket: %s", strerror(-self->uj.fd));
}

FIXTURE_TEARDOWN(udev)
{
	stop_all(&self->s);
	if (self->uj.thr)
		pthread_join(self->uj.thr, NULL);
	if (self->uj.early)
		pthread_join(self->uj.early, NULL);
	stress_fini(&self->s);
	if (self->uj.fd >= 0)
		close(self->uj.fd);
}

/* After attach returned: each write that succeeded is in effect. */
static void check_appeared(struct stress *s, const struct appeared *a, int id, int cycle)
{
	struct nlt_result res;
	struct nlt_msg m;
	struct devs ds;
	char buf[32];

	if (a->id != id) {
		st_fail(s->log, "#%d: uevent for gpsphc%d, attached gpsphc%d", cycle, a->id, id);
		return;
	}
	nlt_gpsphc_init(&s->nl, &m, GPSPHC_CMD_DEV_GET, 0);
	nlt_put_u32(&m, GPSPHC_A_DEV_ID, id);
	if (nl_locked_request(s, &m, &ds, &res) || res.err || ds.n != 1) {
		st_fail(s->log, "#%d: dev-get gpsphc%d: %s", cycle, id, strerror(res.err));
		return;
	}
	if (!a->servo_ret || !atomic_load(&a->early_ret)) {
		gpsphc_attr_get(id, "servo", buf, sizeof(buf));
		strip_nl(buf);
		if (strcmp(buf, "off"))
			st_fail(s->log, "#%d: servo=off written as gpsphc%d appeared, servo reads %s",
				cycle, id, buf);
		gpsphc_attr_get(id, "servo_state", buf, sizeof(buf));
		strip_nl(buf);
		if (strcmp(buf, "off") || ds.d[0].servo.state != GPSPHC_SERVO_OFF)
			st_fail(s->log, "#%d: servo=off written as gpsphc%d appeared, servo_state reads %.8s, netlink state %u",
				cycle, id, buf, ds.d[0].servo.state);
		pthread_mutex_lock(&s->nl_lock);
		nlt_time_set(&s->nl, id, 0, 1800000037ULL, 37, 0, 0, &res);
		pthread_mutex_unlock(&s->nl_lock);
		if (res.err != EBUSY)
			st_fail(s->log, "#%d: servo off, but a label gets %s (not EBUSY)",
				cycle, strerror(res.err));
	} else {
		count_tol(s, C_SYSFS_W);
	}
	if (!a->confirm_ret) {
		gpsphc_attr_get(id, "confirm_n", buf, sizeof(buf));
		strip_nl(buf);
		if (strcmp(buf, "7") || ds.d[0].confirm_n != 7)
			st_fail(s->log, "#%d: confirm_n=7 written as gpsphc%d appeared, reads %.4s, netlink %u",
				cycle, id, buf, ds.d[0].confirm_n);
	} else {
		count_tol(s, C_SYSFS_W);
	}
	count_ok(s, C_SYSFS_W);
}

TEST_F_TIMEOUT(udev, settings_written_as_devices_come_and_go, 45)
{
	struct stress *s = &self->s;
	struct appeared *a = &self->a;
	int secs = stress_seconds(DEFAULT_SECONDS), cycle, fd, id, r;
	long long t0 = clock_ns(CLOCK_MONOTONIC);

	if (!stress_selected("udev", NULL))
		SKIP(return, "not in GPSPHC_STRESS_ONLY");
	self->uj.s = s;
	self->uj.a = a;
	ASSERT_EQ(0, pin_to_cpu(0));
	ASSERT_EQ(0, pthread_create(&self->uj.thr, NULL, uevent_worker, &self->uj));
	ASSERT_EQ(0, pthread_create(&self->uj.early, NULL, early_writer, &self->uj));
	start(_metadata, s, events_worker, 0);

	/*
	 * secs, and at least UDEV_MIN_CYCLES devices (within 4 secs): the
	 * debug kernel took 1.4 s a cycle on a busy host, 4 in 5 s.
	 */
	for (cycle = 0; clock_ns(CLOCK_MONOTONIC) - t0 < secs * NSEC_PER_SEC ||
	     (cycle < UDEV_MIN_CYCLES &&
	      clock_ns(CLOCK_MONOTONIC) - t0 < 4 * secs * NSEC_PER_SEC); cycle++) {
		struct timespec until;
		char dir[64];
		int next;

		fd = sim_tty_open(0, O_NONBLOCK);
		ASSERT_LE(0, fd);
		pthread_mutex_lock(&a->lock);
		a->want = true;
		a->done = false;
		pthread_mutex_unlock(&a->lock);
		/* ids are given lowest free first */
		for (next = 0; next < 8; next++) {
			snprintf(dir, sizeof(dir), GPSPHC_CLASS "/gpsphc%d", next);
			if (access(dir, F_OK))
				break;
		}
		atomic_store(&a->early_id, next);
		atomic_store(&a->early_ret, 1);
		atomic_store(&a->early_armed, true);
		r = ldisc_set(fd, GPSPHC_LDISC);
		if (!atomic_exchange(&a->early_armed, false) && !atomic_load(&a->early_ret))
			a->early_writes++;
		if (r) {
			st_fail(s->log, "#%d: attach failed: %s", cycle, strerror(-r));
			close(fd);
			continue;
		}
		id = gpsphc_find("ttyGPSSIM0");
		count_ok(s, C_ATTACH0);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 2;
		pthread_mutex_lock(&a->lock);
		while (!a->done && pthread_cond_timedwait(&a->cond, &a->lock, &until) == 0)
			;
		a->want = false;
		pthread_mutex_unlock(&a->lock);
		if (!a->done)
			st_fail(s->log, "#%d: no uevent for gpsphc%d within 2 s", cycle, id);
		else
			check_appeared(s, a, id, cycle);
		EXPECT_EQ(0, ldisc_set(fd, N_TTY));
		close(fd);
	}
	stop_all(s);
	TH_LOG("%ld cycles; servo=off written before attach returned in %ld", (long)cycle,
	       a->early_writes);
	if (a->late_err[0])
		TH_LOG("as a device went, the first write refused: %s", a->late_err);
	EXPECT_EQ(0, report(_metadata, s, (clock_ns(CLOCK_MONOTONIC) - t0) / 1e9));
	EXPECT_LT(5, atomic_load(&s->sh->ok[C_SYSFS_W]));
}

STRESS_HARNESS_MAIN(DEFAULT_SECONDS)
