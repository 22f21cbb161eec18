// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel surface explorer: EXPLORE_THREADS threads each draw
 * operations at random, from one seeded PRNG stream per thread, from
 * every way into the module at once:
 * - the tty: open, close, TIOCSETD 29 and 0 (also without CAP_SYS_TIME),
 *   reads, writes, ioctls (TIOCSTI into the discipline, flushes, modem
 *   lines), termios (CLOCAL off lets a DCD drop hang the tty up),
 *   TIOCVHANGUP;
 * - the fake UART: unplugging and plugging ports back in, received bytes
 *   (with and without error flags), DCD edges, its pulse generator;
 * - sysfs: reads of every file of a device, its PTP clock's and its PPS
 *   source's; writes of every setting, valid and not, of read-only files,
 *   uevent, the clock's extts_enable;
 * - /dev/ptpN: opens (read-only or not), closes, clock_gettime/settime/
 *   adjtime, every ioctl, EXTTS reads;
 * - /dev/ppsN: opens, closes, every ioctl (kernel consumer bind included);
 * - netlink: dev-get by id and tty, dumps, dev-set and time-set with valid
 *   and invalid attributes, malformed requests, events listeners that
 *   come, drain, leave the group and go;
 * - module unload attempts (and loads of the loaded module).
 * Ports 0-2 are the explorers'; port 3, the anchor, stays attached all
 * through, so that there is always a device to use and an unload always
 * has a tty with the discipline to refuse it for.
 *
 * Each operation's result must be in the set its interface documents for
 * what it was asked: success; a refusal of what was wrong with the
 * request (EINVAL, ERANGE, EACCES, EPERM without CAP_SYS_TIME, EEXIST,
 * EAGAIN for the unload); or an outcome of a race with the device going
 * (ENODEV, ENOENT, ENXIO, EIO on a hung-up tty; a sysfs file may fail only
 * if its directory is gone within 10 s, or if the device was not whole
 * yet and is within 10 s: see dev_whole()). The anchor's device never
 * goes: anything of it that fails as if gone is a failure. Each outcome is
 * counted per operation and the counts are printed, to show what was
 * covered. Afterwards, with everything closed and detached, nothing of the
 * module may be left (devices, PTP clocks, PPS sources), delete_module()
 * must succeed and the module is loaded again for the tests after this
 * one; and the kernel log of the case must have no WARNING, BUG, lockdep,
 * KASAN or kmemleak report (read as it comes, from /dev/kmsg).
 *
 * Seeds: 1 and one of the kernel's own (its release and machine) by
 * default, EXPLORE_SECONDS each;
 * GPSPHC_EXPLORE_SEED=<n> runs that seed alone and
 * GPSPHC_EXPLORE_SECONDS=<s> sets the duration (for soaking). Thread i
 * draws from the stream seeded with (seed, i): the sequence of draws is
 * reproducible, the threads' interleaving is not.
 *
 * One race is the kernel's and is kept out of Debian's kernels:
 * posix_clock_register() makes /dev/ptpN openable before it sets the
 * clock's device, so an open in that window frees the clock while it is
 * in use (stress_test.c says more). On a kernel whose release ends in
 * -gpsphc-debug (built with the fix) PTP opens overlap attaches freely;
 * elsewhere they take a read lock that TIOCSETD 29, and a tty open (which
 * puts gpsphc back on a tty hung up while open), take for write, unless
 * GPSPHC_EXPLORE_REGISTER_RACE=1. Opens overlapping a detach, and
 * /dev/ppsN opens (pps_idr_get() takes its reference under a lock), are
 * never held back.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/timex.h>
#include <linux/pps.h>
#include <linux/serial.h>

#include "kselftest_harness.h"
#include "gpsphc_test.h"
#include "nl_helpers.h"
#include "phc_helpers.h"
#include "stress_helpers.h"
#include "explore_helpers.h"

#define EXPLORE_SECONDS		12	/* per seed, by default */
#define EXPLORE_THREADS		6
#define EXPLORE_PORTS		3	/* ports 0..2: opened, hung up, unplugged */
#define ANCHOR_PORT		3	/* attached throughout */
#define ANCHOR_TTY		"ttyGPSSIM3"
#define TTY_SLOTS		4	/* ttys a thread holds open at most */
#define CLOCK_SLOTS		2	/* PTP clocks, and PPS sources, likewise */
#define MAX_FILES		64
/* 1 in this many operations runs without CAP_SYS_TIME */
#define UNPRIV_ONE_IN		12

#ifndef PTP_MASK_CLEAR_ALL
#define PTP_MASK_CLEAR_ALL	_IO(PTP_CLK_MAGIC, 19)	/* 6.7+ */
#endif

/* How an operation ended. */
enum outcome {
	DONE,		/* did what it was asked */
	REFUSED,	/* refused what was wrong with the request, as documented */
	RACED,		/* a documented outcome of a race with the device going */
	FAILED,		/* anything else: logged */
	NOUTCOMES
};

enum op {
	OP_TTY_OPEN, OP_TTY_CLOSE, OP_ATTACH, OP_DETACH, OP_TTY_READ,
	OP_TTY_WRITE, OP_TTY_IOCTL, OP_TTY_TERMIOS, OP_TTY_HANGUP,
	OP_PLUG, OP_RX, OP_RX_FLAGS, OP_DCD, OP_PULSE,
	OP_SYSFS_READ, OP_SYSFS_WRITE,
	OP_PTP_OPEN, OP_PTP_CLOSE, OP_PTP_CALL,
	OP_PPS_OPEN, OP_PPS_CLOSE, OP_PPS_CALL,
	OP_NL_GET, OP_NL_DUMP, OP_NL_SET, OP_NL_TIME_SET, OP_NL_MALFORMED,
	OP_NL_LISTEN,
	OP_MODULE,
	NOPS
};

struct held_tty {
	int fd;			/* -1: free */
	int port;
};

/* An open /dev/ptpN or /dev/ppsN. */
struct held_clock {
	int fd;			/* -1: free */
	int index;
	bool writable;
	bool anchor;		/* the anchor's: never goes */
};

/* A file of a device's sysfs directory, as the anchor's has it. */
struct dev_file {
	char path[48];		/* relative to the device's directory */
	bool readable, writable;
};

struct explorer;

struct worker {
	struct explorer *x;
	int index;
	uint64_t rng;
	pthread_t thr;
	enum op op;		/* the operation in progress */
	long nops;
	bool unpriv;		/* this operation runs without CAP_SYS_TIME */
	struct held_tty tty[TTY_SLOTS];
	struct held_clock ptp[CLOCK_SLOTS], pps[CLOCK_SLOTS];
	struct nlt_sock nl;	/* requests */
	struct nlt_sock ev;	/* an events listener, fd -1 when none */
	struct nlt_events *q;
};

struct explorer {
	uint64_t seed;
	atomic_bool stop;
	/* TIOCSETD 29 (write) against PTP opens (read): see the top comment */
	bool gate_ptp_opens;
	pthread_rwlock_t register_gate;
	/* nlt_request() receives into one static buffer: one caller at a time */
	pthread_mutex_t nl_lock;
	/*
	 * Poll and read of EXTTS events, and the ptp "fifo" file, which also
	 * takes events: on 6.1 every open file of a clock shares one queue,
	 * and a read that finds it emptied by another since its poll waits
	 * for the next event, for ever on a clock that has none.
	 */
	pthread_mutex_t extts_lock;
	struct st_log *log;
	atomic_long count[NOPS][NOUTCOMES];
	atomic_long unpriv_ops;
	int anchor_fd, anchor_id, anchor_ptp, anchor_pps;
	char anchor_name[32];
	/* the files of a device, of its PTP clock, of its PPS source */
	struct dev_file dev_files[MAX_FILES], ptp_files[MAX_FILES], pps_files[MAX_FILES];
	int n_dev_files, n_ptp_files, n_pps_files;
	/* entries in /sys/class/ptp and /sys/class/pps before the case */
	int ptp_base, pps_base;
	struct kmsg_watch kmsg;
	struct worker w[EXPLORE_THREADS];
	int nworkers;
};

static bool stopping(struct explorer *x)
{
	return atomic_load(&x->stop);
}

static const char *const op_names[NOPS] = {
	[OP_TTY_OPEN] = "tty open", [OP_TTY_CLOSE] = "tty close",
	[OP_ATTACH] = "TIOCSETD 29", [OP_DETACH] = "TIOCSETD 0",
	[OP_TTY_READ] = "tty read", [OP_TTY_WRITE] = "tty write",
	[OP_TTY_IOCTL] = "tty ioctl", [OP_TTY_TERMIOS] = "tty termios",
	[OP_TTY_HANGUP] = "TIOCVHANGUP", [OP_PLUG] = "port unplug/plug",
	[OP_RX] = "rx bytes", [OP_RX_FLAGS] = "rx flagged bytes", [OP_DCD] = "DCD edges",
	[OP_PULSE] = "pulse generator", [OP_SYSFS_READ] = "sysfs read",
	[OP_SYSFS_WRITE] = "sysfs write", [OP_PTP_OPEN] = "ptp open",
	[OP_PTP_CLOSE] = "ptp close", [OP_PTP_CALL] = "ptp call",
	[OP_PPS_OPEN] = "pps open", [OP_PPS_CLOSE] = "pps close",
	[OP_PPS_CALL] = "pps ioctl", [OP_NL_GET] = "nl dev-get", [OP_NL_DUMP] = "nl dump",
	[OP_NL_SET] = "nl dev-set", [OP_NL_TIME_SET] = "nl time-set",
	[OP_NL_MALFORMED] = "nl malformed", [OP_NL_LISTEN] = "nl listener",
	[OP_MODULE] = "module unload/load",
};

static void __attribute__((format(printf, 2, 3)))
xfail(struct worker *w, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	st_fail(w->x->log, "seed %llu thread %d op %ld (%s%s): %s",
		(unsigned long long)w->x->seed, w->index, w->nops, op_names[w->op],
		w->unpriv ? ", no CAP_SYS_TIME" : "", msg);
}

/*
 * Judge the result @err (0 or -errno) of @what: DONE for 0, REFUSED for
 * an errno in @refused, RACED for one in @raced, else a failure.
 */
static enum outcome judge(struct worker *w, const char *what, int err,
			  errset_t refused, errset_t raced)
{
	if (!err)
		return DONE;
	if (errno_in(err, refused))
		return REFUSED;
	if (errno_in(err, raced))
		return RACED;
	xfail(w, "%s: %s", what, strerror(-err));
	return FAILED;
}

/* A value in [@lo, @hi]. */
static uint64_t draw_between(uint64_t *rng, uint64_t lo, uint64_t hi)
{
	return lo + st_rand(rng) % (hi - lo + 1);
}

/* ---- choosing a device ---------------------------------------------------- */

/*
 * N of the ptpN or ppsN (@attr "ptp_device", "pps_device") of device
 * @dfd: N, or -errno.
 */
static int device_index(int dfd, const char *attr)
{
	char buf[32];
	int r = dir_read(dfd, attr, buf, sizeof(buf));

	if (r < 0)
		return r;
	return r > 3 ? atoi(buf + 3) : -EINVAL;
}

/*
 * Is the device open as @dfd whole? An attach makes the device's
 * directory (which /sys/class/gpsphc lists at once), then its files, its
 * PPS source and last its clock, and its ptp_device fails with EAGAIN
 * until then; a detach takes the clock and the PPS source away first. Whole:
 * the directory of the clock ptp_device names is there.
 */
static bool dev_whole(int dfd)
{
	char clock[32];
	int idx = device_index(dfd, "ptp_device");

	if (idx < 0)
		return false;
	snprintf(clock, sizeof(clock), "ptp%d", idx);
	return !faccessat(dfd, clock, F_OK, 0);
}

/*
 * Open the directory of a gpsphc device drawn at random (the anchor's if
 * there is none): its fd, or -errno if it went meanwhile. *@anchor says
 * whether it is the anchor's, *@whole whether the device was whole then.
 */
static int draw_device(struct worker *w, bool *anchor, bool *whole)
{
	char names[MAX_DEVS][32];
	int n = dev_names(names, MAX_DEVS);
	const char *name = n ? names[st_below(&w->rng, n)] : w->x->anchor_name;
	int dfd;

	*anchor = !strcmp(name, w->x->anchor_name);
	dfd = dev_dir_open(name);
	*whole = dfd >= 0 && dev_whole(dfd);
	return dfd;
}

/*
 * A sysfs access of device @dfd failed with @err: a race with the device
 * going if it is not the anchor's and its directory is gone within
 * SYSFS_GONE_S, or with its attach if it was not @whole before the access
 * and is within SYSFS_GONE_S (pps_device and ptp_device fail with EAGAIN
 * until their PPS source and clock exist). Its clock's and PPS source's directories go
 * first, and on the debug kernel under TCG the rest of a detach took over
 * a second; an attach there, and on the arm64 guest, has left a device
 * half made for as long as an access takes.
 */
#define SYSFS_GONE_S	10

static enum outcome sysfs_failed(struct worker *w, int dfd, bool anchor, bool whole,
				 const char *path, int err)
{
	bool racing = gone_errno(err) || (err == -EAGAIN && !whole);
	int s;

	for (s = 0; racing && !anchor && s < SYSFS_GONE_S; s++)
		if ((!whole && dev_whole(dfd)) || dir_gone_within(dfd, 1000))
			return RACED;
	xfail(w, "%s%s: %s, and the device is %s", path, anchor ? " of the anchor" : "",
	      strerror(-err), !racing ? "there" :
	      whole ? "still there after 10 s" : "neither whole nor gone after 10 s");
	return FAILED;
}

/* ---- the tty ---------------------------------------------------------------- */

static struct held_tty *held_tty(struct worker *w)
{
	int i, start = st_below(&w->rng, TTY_SLOTS);

	for (i = 0; i < TTY_SLOTS; i++)
		if (w->tty[(start + i) % TTY_SLOTS].fd >= 0)
			return &w->tty[(start + i) % TTY_SLOTS];
	return NULL;
}

static struct held_tty *free_tty(struct worker *w)
{
	int i;

	for (i = 0; i < TTY_SLOTS; i++)
		if (w->tty[i].fd < 0)
			return &w->tty[i];
	return NULL;
}

/* The errors of a tty open racing a hangup, an unplug or a close. */
#define TTY_OPEN_RACES	ERRNOS(ENOENT, ENODEV, ENXIO, EIO, EAGAIN, EBUSY)

static enum outcome run_op(struct worker *w, enum op op);

/*
 * An open of a tty that was hung up while others kept it open puts back
 * the discipline it had (tty_reopen() reinitialises termios.c_line): an
 * open may attach gpsphc, so it is kept apart from PTP opens as
 * TIOCSETD 29 is, and without CAP_SYS_TIME it may fail with EPERM.
 */
static enum outcome op_tty_open(struct worker *w)
{
	struct explorer *x = w->x;
	struct held_tty *t = free_tty(w);
	int port = st_below(&w->rng, EXPLORE_PORTS), fd;

	if (!t)
		return run_op(w, OP_TTY_CLOSE);
	if (x->gate_ptp_opens)
		pthread_rwlock_wrlock(&x->register_gate);
	fd = sim_tty_open(port, O_NONBLOCK);
	if (x->gate_ptp_opens)
		pthread_rwlock_unlock(&x->register_gate);
	if (fd < 0)
		return judge(w, "open", fd, w->unpriv ? ERRNOS(EPERM) : NO_ERRNOS,
			     TTY_OPEN_RACES);
	t->fd = fd;
	t->port = port;
	return DONE;
}

static enum outcome op_tty_close(struct worker *w)
{
	struct held_tty *t = held_tty(w);
	int r;

	if (!t)
		return run_op(w, OP_TTY_OPEN);
	r = close(t->fd) ? -errno : 0;
	t->fd = -1;
	return judge(w, "close", r, NO_ERRNOS, NO_ERRNOS);
}

/* TIOCSETD 29, never while a PTP clock is being opened (top comment). */
static int attach_gpsphc(struct explorer *x, int fd)
{
	int r;

	if (!x->gate_ptp_opens)
		return ldisc_set(fd, GPSPHC_LDISC);
	pthread_rwlock_wrlock(&x->register_gate);
	r = ldisc_set(fd, GPSPHC_LDISC);
	pthread_rwlock_unlock(&x->register_gate);
	return r;
}

/*
 * TIOCSETD: EIO once the tty is hung up; EBUSY if the ldisc lock was not
 * had within 5 s (tty_ldisc_lock()), which a slow detach of another
 * thread's can cause on the debug kernel.
 */
static enum outcome op_attach(struct worker *w)
{
	struct held_tty *t = held_tty(w);

	if (!t)
		return run_op(w, OP_TTY_OPEN);
	return judge(w, "TIOCSETD 29", attach_gpsphc(w->x, t->fd),
		     w->unpriv ? ERRNOS(EPERM) : NO_ERRNOS, ERRNOS(EIO, EBUSY));
}

static enum outcome op_detach(struct worker *w)
{
	struct held_tty *t = held_tty(w);

	if (!t)
		return run_op(w, OP_TTY_OPEN);
	return judge(w, "TIOCSETD 0", ldisc_set(t->fd, N_TTY), NO_ERRNOS, ERRNOS(EIO, EBUSY));
}

static enum outcome op_tty_read(struct worker *w)
{
	struct held_tty *t = held_tty(w);
	char buf[4096];
	ssize_t n;

	if (!t)
		return run_op(w, OP_TTY_OPEN);
	n = read(t->fd, buf, 1 + st_below(&w->rng, sizeof(buf)));
	if (n == 0)
		return RACED;	/* hung up: end of file */
	return judge(w, "read", n > 0 || errno == EAGAIN ? 0 : -errno, NO_ERRNOS, ERRNOS(EIO));
}

static enum outcome op_tty_write(struct worker *w)
{
	static const char text[] = "$PUBX,40,GGA,0,0,0,0*5A\r\n";
	struct held_tty *t = held_tty(w);
	ssize_t n;

	if (!t)
		return run_op(w, OP_TTY_OPEN);
	n = write(t->fd, text, 1 + st_below(&w->rng, sizeof(text) - 1));
	return judge(w, "write", n >= 0 || errno == EAGAIN ? 0 : -errno, NO_ERRNOS, ERRNOS(EIO));
}

/* ioctls that reach the discipline or the port, all harmless to repeat. */
static enum outcome op_tty_ioctl(struct worker *w)
{
	struct held_tty *t = held_tty(w);
	struct serial_icounter_struct icount;
	char c = "$GPRMC,\r\n*"[st_below(&w->rng, 10)];
	int v = 0, r;

	if (!t)
		return run_op(w, OP_TTY_OPEN);
	switch (st_below(&w->rng, 7)) {
	case 0:
		r = ioctl(t->fd, TIOCGETD, &v);
		if (!r && v != N_TTY && v != GPSPHC_LDISC)
			xfail(w, "TIOCGETD says discipline %d", v);
		break;
	case 1:
		r = ioctl(t->fd, FIONREAD, &v);
		break;
	case 2:
		r = ioctl(t->fd, TIOCOUTQ, &v);
		break;
	case 3:
		r = ioctl(t->fd, TIOCMGET, &v);
		break;
	case 4:
		/* the discipline's flush_buffer: its stream positions start again */
		r = ioctl(t->fd, TCFLSH, st_below(&w->rng, 2) ? TCIFLUSH : TCIOFLUSH);
		break;
	case 5:
		/* a byte through the discipline's receive_buf, not the flip buffer */
		r = ioctl(t->fd, TIOCSTI, &c);
		break;
	default:
		r = ioctl(t->fd, TIOCGICOUNT, &icount);
		break;
	}
	return judge(w, "tty ioctl", r ? -errno : 0, NO_ERRNOS, ERRNOS(EIO));
}

/* Speed, and CLOCAL: without it a DCD drop hangs the tty up. */
static enum outcome op_tty_termios(struct worker *w)
{
	static const speed_t speeds[] = { B4800, B9600, B38400, B115200 };
	struct held_tty *t = held_tty(w);
	struct termios tio;
	int r;

	if (!t)
		return run_op(w, OP_TTY_OPEN);
	r = tcgetattr(t->fd, &tio);
	if (!r) {
		if (st_below(&w->rng, 3))
			tio.c_cflag |= CLOCAL;
		else
			tio.c_cflag &= ~CLOCAL;
		cfsetspeed(&tio, speeds[st_below(&w->rng, 4)]);
		r = tcsetattr(t->fd, TCSANOW, &tio);
	}
	return judge(w, "termios", r ? -errno : 0, NO_ERRNOS, ERRNOS(EIO));
}

static enum outcome op_tty_hangup(struct worker *w)
{
	struct held_tty *t = held_tty(w);

	if (!t)
		return run_op(w, OP_TTY_OPEN);
	return judge(w, "TIOCVHANGUP", ioctl(t->fd, TIOCVHANGUP) ? -errno : 0, NO_ERRNOS,
		     ERRNOS(EIO));
}

/* ---- the fake UART ---------------------------------------------------------- */

/* Unplug a plugged port (one time in two), plug an unplugged one back in. */
static enum outcome op_plug(struct worker *w)
{
	int port = st_below(&w->rng, EXPLORE_PORTS), r;
	char present[8] = "";

	r = read_file(SIM_DEBUGFS "/port_present", present, sizeof(present));
	if (r < EXPLORE_PORTS)
		return judge(w, "read port_present", r < 0 ? r : -EIO, NO_ERRNOS, NO_ERRNOS);
	if (present[port] == '1' && st_below(&w->rng, 2))
		return DONE;
	return judge(w, "port_present", sim_port_present(port, present[port] != '1'),
		     NO_ERRNOS, NO_ERRNOS);
}

/* A port drawn from all four: the anchor's takes bytes and edges too. */
static int draw_any_port(struct worker *w)
{
	return st_below(&w->rng, EXPLORE_PORTS + 1);
}

/*
 * What rx and rx_flags may say: all taken, or (not on the anchor's port,
 * which is open and whose discipline never lets the flip buffer fill) the
 * tty is not open, the port is unplugged, or the flip buffer stayed full
 * for a second.
 */
static enum outcome rx_judge(struct worker *w, int port, ssize_t n, size_t len)
{
	if (n == (ssize_t)len)
		return DONE;
	if (port != ANCHOR_PORT && n > 0)
		return RACED;
	if (port != ANCHOR_PORT && n < 0 && errno_in(n, ERRNOS(ENOTCONN, ENODEV, ENOBUFS)))
		return RACED;
	xfail(w, "rx of %zu bytes into ttyGPSSIM%d: %zd%s%s", len, port, n,
	      n < 0 ? " " : "", n < 0 ? strerror(-n) : "");
	return FAILED;
}

static enum outcome op_rx(struct worker *w)
{
	static const char *const pieces[] = {
		"$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n",
		"$GPZDA,201530.00,04,07,2002,00,00*60\r\n",
		"$GPGGA,092750.000,5321.6802,N,00630.3372,W,1,8,1.03,61.7,M,55.2,M,,*76\r\n",
		"$GPRMC,1,A*00\r\n",		/* bad checksum */
		"$GPTXT,01,01,02,no checksum\r\n",
		"$$$$$$$$",
		"\xb5\x62\x01\x07\x5c\x00",	/* a UBX frame's start */
		"\r\n\r\n",
	};
	int port = draw_any_port(w), i, n = 1 + st_below(&w->rng, 8);
	char buf[1024];
	size_t len = 0;

	for (i = 0; i < n; i++) {
		if (st_below(&w->rng, 4)) {
			const char *p = pieces[st_below(&w->rng, 8)];

			memcpy(buf + len, p, strlen(p));
			len += strlen(p);
		} else {
			/* noise, and a line too long to be a sentence */
			size_t k, m = 1 + st_below(&w->rng, 100);

			for (k = 0; k < m; k++)
				buf[len + k] = st_rand(&w->rng);
			len += m;
		}
	}
	return rx_judge(w, port, sim_write(port, "rx", buf, len), len);
}

static enum outcome op_rx_flags(struct worker *w)
{
	int port = draw_any_port(w);
	size_t i, len = 2 * (1 + st_below(&w->rng, 64));
	char buf[128];

	for (i = 0; i < len; i += 2) {
		/* TTY_NORMAL mostly; BREAK, FRAME, PARITY, OVERRUN now and then */
		buf[i] = st_below(&w->rng, 4) ? 0 : 1 + st_below(&w->rng, 4);
		buf[i + 1] = "$GPZDA,*0123\r\n"[st_below(&w->rng, 14)];
	}
	return rx_judge(w, port, sim_write(port, "rx_flags", buf, len), len);
}

static enum outcome op_dcd(struct worker *w)
{
	int port = draw_any_port(w), i, r = 0, edges = 1 + st_below(&w->rng, 16);
	int level = st_below(&w->rng, 2);

	for (i = 0; i < edges && !r; i++, level = !level)
		r = sim_set(port, "dcd", level ? "1" : "0");
	return judge(w, "dcd", r, NO_ERRNOS,
		     port == ANCHOR_PORT ? NO_ERRNOS : ERRNOS(ENODEV));
}

static enum outcome op_pulse(struct worker *w)
{
	int port = draw_any_port(w);

	return judge(w, "pulse_enable",
		     sim_set(port, "pulse_enable", st_below(&w->rng, 3) ? "0" : "1"),
		     NO_ERRNOS, port == ANCHOR_PORT ? NO_ERRNOS : ERRNOS(ENODEV));
}

/* ---- sysfs ---------------------------------------------------------------- */

/*
 * Read a file of the device, of its PTP clock or of its PPS source, drawn
 * from the anchor's lists: one line (uevent: anything); EACCES for the
 * clock's write-only files.
 */
static enum outcome op_sysfs_read(struct worker *w)
{
	struct explorer *x = w->x;
	const struct dev_file *f;
	char path[96], buf[4096];
	int dfd, r, idx = 0, kind = st_below(&w->rng, 4);
	enum outcome out;
	bool anchor, whole;

	dfd = draw_device(w, &anchor, &whole);
	if (dfd < 0)
		return RACED;	/* gone since readdir */
	if (kind == 0) {
		f = &x->ptp_files[st_below(&w->rng, x->n_ptp_files)];
		idx = device_index(dfd, "ptp_device");
		snprintf(path, sizeof(path), "ptp%d/%s", idx, f->path);
	} else if (kind == 1) {
		f = &x->pps_files[st_below(&w->rng, x->n_pps_files)];
		idx = device_index(dfd, "pps_device");
		snprintf(path, sizeof(path), "pps%d/%s", idx, f->path);
	} else {
		f = &x->dev_files[st_below(&w->rng, x->n_dev_files)];
		snprintf(path, sizeof(path), "%s", f->path);
	}
	if (idx < 0) {
		out = sysfs_failed(w, dfd, anchor, whole, kind ? "pps_device" : "ptp_device", idx);
		close(dfd);
		return out;
	}
	if (kind == 0 && !strcmp(f->path, "fifo"))
		pthread_mutex_lock(&x->extts_lock);
	r = dir_read(dfd, path, buf, sizeof(buf));
	if (kind == 0 && !strcmp(f->path, "fifo"))
		pthread_mutex_unlock(&x->extts_lock);
	if (r < 0 && (gone_errno(r) || r == -EAGAIN)) {
		out = sysfs_failed(w, dfd, anchor, whole, path, r);
	} else if (!f->readable && r == -EACCES) {
		out = REFUSED;
	} else if (!f->readable || r < 0) {
		xfail(w, "read of %s%s: %s", f->readable ? "" : "write-only ", path,
		      r < 0 ? strerror(-r) : "it worked");
		out = FAILED;
	} else if (strcmp(f->path, "uevent") && strcmp(f->path, "fifo") &&
		   (r < 2 || buf[r - 1] != '\n' || strchr(buf, '\n') != buf + r - 1)) {
		xfail(w, "%s: \"%.40s\" is not one line", path, buf);
		out = FAILED;
	} else {
		out = DONE;
	}
	close(dfd);
	return out;
}

/*
 * A setting file: a choice of @names, a boolean, or a number in [@min,
 * @max] (as kstrtou64 reads it).
 */
struct setting {
	const char *name;
	const char *const *names;
	bool boolean;
	uint64_t min, max;
};

static const char *const edge_names[] = { "rising", "falling", NULL };
static const char *const scale_names[] = { "tai", "utc", NULL };
static const char *const clock_servo_names[] = { "bank", "pi", NULL };

static const struct setting settings[] = {
	{ .name = "edge", .names = edge_names },
	{ .name = "scale", .names = scale_names },
	{ .name = "step_ns", .min = 1000, .max = 1000000000 },
	{ .name = "confirm_n", .min = 1, .max = 60 },
	{ .name = "rx_latency_ns", .min = 0, .max = 999000000 },
	{ .name = "servo", .boolean = true },
	{ .name = "clock_servo", .names = clock_servo_names },
};

/* Write a value drawn for @s into @val: the errno the write must give. */
static int draw_setting_value(struct worker *w, const struct setting *s, char *val,
			      size_t size)
{
	static const char *const bad_words[] = { "both", "gps", "RISING", "x", "on off" };
	static const char *const yes_no[] = { "on", "off", "1", "0", "y", "n", "true", "false\n" };
	static const char *const not_bool[] = { "maybe", "2", "o", "-" };
	uint64_t v;

	if (s->names || s->boolean) {
		int bad = !st_below(&w->rng, 4), n;

		if (bad) {
			snprintf(val, size, "%s", s->boolean ? not_bool[st_below(&w->rng, 4)] :
				 bad_words[st_below(&w->rng, 5)]);
			return EINVAL;
		}
		if (s->boolean) {
			snprintf(val, size, "%s", yes_no[st_below(&w->rng, 8)]);
			return 0;
		}
		for (n = 0; s->names[n]; n++)
			;
		snprintf(val, size, "%s%s", s->names[st_below(&w->rng, n)],
			 st_below(&w->rng, 2) ? "\n" : "");
		return 0;
	}
	switch (st_below(&w->rng, 8)) {
	case 0:
		snprintf(val, size, "18446744073709551616");	/* 2^64 */
		return ERANGE;
	case 1:
		snprintf(val, size, "-%u", 1 + st_below(&w->rng, 100));
		return EINVAL;
	case 2:
		snprintf(val, size, "%u%s", st_below(&w->rng, 1000), "ns");
		return EINVAL;
	case 3:
		v = s->max + 1 + st_below(&w->rng, 1000);
		snprintf(val, size, "%llu", (unsigned long long)v);
		return ERANGE;
	case 4:
		if (s->min) {
			snprintf(val, size, "%llu", (unsigned long long)st_below(&w->rng, s->min));
			return ERANGE;
		}
		/* fall through */
	default:
		v = draw_between(&w->rng, s->min, s->max);
		snprintf(val, size, st_below(&w->rng, 4) ? "%llu\n" : "0x%llx",
			 (unsigned long long)v);
		return 0;
	}
}

/*
 * Write a setting (valid or not), a read-only file, uevent, or the
 * clock's extts_enable; the errno must be the one the value calls for,
 * or the device must be going.
 */
static enum outcome op_sysfs_write(struct worker *w)
{
	struct explorer *x = w->x;
	int dfd, r, idx, want = 0, kind = st_below(&w->rng, 8);
	char path[96], val[64];
	enum outcome out;
	bool anchor, whole;

	dfd = draw_device(w, &anchor, &whole);
	if (dfd < 0)
		return RACED;
	if (kind < 5) {
		const struct setting *s =
			&settings[st_below(&w->rng, sizeof(settings) / sizeof(settings[0]))];

		snprintf(path, sizeof(path), "%s", s->name);
		want = draw_setting_value(w, s, val, sizeof(val));
		/* the right to set the clock is checked before anything */
		if (w->unpriv)
			want = EPERM;
	} else if (kind == 5) {
		const struct dev_file *f;
		int i = st_below(&w->rng, x->n_dev_files);

		/* the first read-only file from a random place on */
		while (x->dev_files[i].writable)
			i = (i + 1) % x->n_dev_files;
		f = &x->dev_files[i];
		snprintf(path, sizeof(path), "%s", f->path);
		snprintf(val, sizeof(val), "1");
		want = EACCES;
	} else if (kind == 6) {
		bool bad = !st_below(&w->rng, 3);

		snprintf(path, sizeof(path), "uevent");
		snprintf(val, sizeof(val), bad ? "explode" : "change");
		want = bad ? EINVAL : 0;
	} else {
		static const char *const extts[] = { "0 1", "0 0", "1 1", "0", "x y" };
		int e = st_below(&w->rng, 5);

		idx = device_index(dfd, "ptp_device");
		if (idx < 0) {
			out = sysfs_failed(w, dfd, anchor, whole, "ptp_device", idx);
			close(dfd);
			return out;
		}
		snprintf(path, sizeof(path), "ptp%d/extts_enable", idx);
		snprintf(val, sizeof(val), "%s", extts[e]);
		want = e < 2 ? 0 : EINVAL;
	}
	r = dir_write(dfd, path, val);
	if (r == -want)
		out = want ? REFUSED : DONE;
	else if (gone_errno(r))
		out = sysfs_failed(w, dfd, anchor, whole, path, r);
	else {
		xfail(w, "\"%s\" into %s: %s, not %s", val, path, strerror(-r),
		      want ? strerror(want) : "success");
		out = FAILED;
	}
	close(dfd);
	return out;
}

/* ---- /dev/ptpN and /dev/ppsN --------------------------------------------- */

static struct held_clock *held_clock(struct worker *w, struct held_clock *slots)
{
	int i, start = st_below(&w->rng, CLOCK_SLOTS);

	for (i = 0; i < CLOCK_SLOTS; i++)
		if (slots[(start + i) % CLOCK_SLOTS].fd >= 0)
			return &slots[(start + i) % CLOCK_SLOTS];
	return NULL;
}

static struct held_clock *free_clock(struct held_clock *slots)
{
	int i;

	for (i = 0; i < CLOCK_SLOTS; i++)
		if (slots[i].fd < 0)
			return &slots[i];
	return NULL;
}

/*
 * The index of a clock or PPS source to open (@attr "ptp_device" or
 * "pps_device"): a device's, or one time in eight any of 0..7.
 */
static int draw_index(struct worker *w, const char *attr)
{
	bool anchor, whole;
	int dfd, idx;

	if (!st_below(&w->rng, 8))
		return st_below(&w->rng, 8);
	dfd = draw_device(w, &anchor, &whole);
	if (dfd < 0)
		return st_below(&w->rng, 8);
	idx = device_index(dfd, attr);
	close(dfd);
	return idx < 0 ? (int)st_below(&w->rng, 8) : idx;
}

/* An open of a device that went away; the anchor's must always open. */
static enum outcome open_failed(struct worker *w, const char *what, int index,
				bool anchor, int err)
{
	char name[32];

	snprintf(name, sizeof(name), "open %s%d%s", what, index, anchor ? " (anchor)" : "");
	return judge(w, name, err, NO_ERRNOS, anchor ? NO_ERRNOS : ERRNOS(ENOENT, ENODEV, ENXIO));
}

static enum outcome op_ptp_open(struct worker *w)
{
	struct explorer *x = w->x;
	struct held_clock *c = free_clock(w->ptp);
	bool writable = st_below(&w->rng, 3);
	int idx, fd;

	if (!c)
		return run_op(w, OP_PTP_CLOSE);
	idx = draw_index(w, "ptp_device");
	if (x->gate_ptp_opens)
		pthread_rwlock_rdlock(&x->register_gate);
	fd = phc_open(idx, writable ? O_RDWR : O_RDONLY);
	if (x->gate_ptp_opens)
		pthread_rwlock_unlock(&x->register_gate);
	if (fd < 0)
		return open_failed(w, "/dev/ptp", idx, idx == x->anchor_ptp, fd);
	*c = (struct held_clock){ .fd = fd, .index = idx, .writable = writable,
				  .anchor = idx == x->anchor_ptp };
	return DONE;
}

static enum outcome close_clock(struct worker *w, struct held_clock *slots, enum op open)
{
	struct held_clock *c = held_clock(w, slots);
	int r;

	if (!c)
		return run_op(w, open);
	r = close(c->fd) ? -errno : 0;
	c->fd = -1;
	return judge(w, "close", r, NO_ERRNOS, NO_ERRNOS);
}

static enum outcome op_ptp_close(struct worker *w)
{
	return close_clock(w, w->ptp, OP_PTP_OPEN);
}

/* EXTTS events waiting on @c, without waiting: see extts_lock. */
static int ptp_read_events(struct explorer *x, struct held_clock *c)
{
	struct ptp_extts_event ev[4];
	int r;

	pthread_mutex_lock(&x->extts_lock);
	r = phc_extts_read(c->fd, ev, 4, 0);
	pthread_mutex_unlock(&x->extts_lock);
	return r < 0 ? r : 0;
}

/*
 * One call on a held clock. @refused: what the call's arguments make it
 * refuse; writes on a read-only file are EACCES (clock_settime and
 * clock_adjtime, and the ioctls that change the clock's outputs); a
 * clock gone (not the anchor's) says ENODEV.
 */
static enum outcome op_ptp_call(struct worker *w)
{
	struct held_clock *c = held_clock(w, w->ptp);
	struct ptp_sys_offset_extended ext;
	struct ptp_sys_offset_precise pre;
	struct ptp_extts_request extts;
	struct ptp_perout_request perout;
	struct ptp_sys_offset off;
	struct ptp_clock_caps caps;
	struct ptp_pin_desc pin;
	errset_t refused = NO_ERRNOS;
	bool ro_refused = false;
	const char *what;
	long long t;
	int r;

	if (!c)
		return run_op(w, OP_PTP_OPEN);
	switch (st_below(&w->rng, 14)) {
	case 0:
		what = "clock_gettime";
		t = phc_gettime(c->fd);
		r = t < 0 ? (int)t : 0;
		break;
	case 1:
		what = "clock_settime";
		r = phc_settime(c->fd, clock_ns(CLOCK_REALTIME) + 37 * NSEC_PER_SEC -
				st_below(&w->rng, 2000000000));
		ro_refused = true;
		break;
	case 2: {
		/* GPSPHC_MAX_ADJ_PPB is 500000 */
		long long ppb = (long long)st_below(&w->rng, 1200001) - 600000;

		what = "adjtime frequency";
		r = phc_adj_freq(c->fd, ppb);
		/* scaled ppm and back again may round across the limit */
		if (ppb > 499000 || ppb < -499000)
			refused = ERRNOS(ERANGE);
		ro_refused = true;
		break;
	}
	case 3:
		what = "adjtime offset";
		r = phc_adj_offset(c->fd, (long long)st_below(&w->rng, 2000001) - 1000000);
		ro_refused = true;
		break;
	case 4:
		what = "GETCAPS";
		memset(&caps, 0, sizeof(caps));
		r = ioctl(c->fd, st_below(&w->rng, 2) ? PTP_CLOCK_GETCAPS : PTP_CLOCK_GETCAPS2,
			  &caps) ? -errno : 0;
		if (!r && (caps.n_ext_ts != 1 || caps.max_adj != 500000))
			xfail(w, "ptp%d caps: n_ext_ts %d max_adj %d", c->index, caps.n_ext_ts,
			      caps.max_adj);
		break;
	case 5: {
		static const unsigned int flags[] = {
			0, PTP_ENABLE_FEATURE | PTP_RISING_EDGE,
			PTP_ENABLE_FEATURE | PTP_FALLING_EDGE,
			PTP_ENABLE_FEATURE | PTP_RISING_EDGE | PTP_FALLING_EDGE,
			PTP_ENABLE_FEATURE, PTP_ENABLE_FEATURE | PTP_RISING_EDGE | 0x100,
		};

		what = "EXTTS_REQUEST";
		memset(&extts, 0, sizeof(extts));
		extts.index = !st_below(&w->rng, 4);
		extts.flags = flags[st_below(&w->rng, 6)];
		r = ioctl(c->fd, st_below(&w->rng, 2) ? PTP_EXTTS_REQUEST : PTP_EXTTS_REQUEST2,
			  &extts) ? -errno : 0;
		/* which edges a strict request may name depends on the edge setting */
		refused = ERRNOS(EINVAL, EOPNOTSUPP);
		ro_refused = true;
		break;
	}
	case 6:
		what = "PEROUT_REQUEST";
		memset(&perout, 0, sizeof(perout));
		perout.period.sec = 1;
		r = ioctl(c->fd, PTP_PEROUT_REQUEST2, &perout) ? -errno : 0;
		refused = ERRNOS(EINVAL, EOPNOTSUPP);	/* no periodic outputs */
		ro_refused = true;
		break;
	case 7:
		what = "ENABLE_PPS";
		r = ioctl(c->fd, PTP_ENABLE_PPS, (long)st_below(&w->rng, 2)) ? -errno : 0;
		refused = w->unpriv ? ERRNOS(EPERM, EOPNOTSUPP) : ERRNOS(EOPNOTSUPP);
		ro_refused = true;
		break;
	case 8:
		what = "SYS_OFFSET";
		memset(&off, 0, sizeof(off));
		off.n_samples = st_below(&w->rng, 31);
		r = ioctl(c->fd, PTP_SYS_OFFSET, &off) ? -errno : 0;
		if (off.n_samples > PTP_MAX_SAMPLES)
			refused = ERRNOS(EINVAL);
		break;
	case 9:
		what = "SYS_OFFSET_EXTENDED";
		memset(&ext, 0, sizeof(ext));
		ext.n_samples = st_below(&w->rng, 31);
		r = ioctl(c->fd, PTP_SYS_OFFSET_EXTENDED, &ext) ? -errno : 0;
		if (ext.n_samples > PTP_MAX_SAMPLES)
			refused = ERRNOS(EINVAL);
		break;
	case 10:
		what = "SYS_OFFSET_PRECISE";
		memset(&pre, 0, sizeof(pre));
		r = ioctl(c->fd, PTP_SYS_OFFSET_PRECISE, &pre) ? -errno : 0;
		break;
	case 11:
		what = "PIN_GETFUNC/SETFUNC";
		memset(&pin, 0, sizeof(pin));
		if (st_below(&w->rng, 2)) {
			r = ioctl(c->fd, PTP_PIN_GETFUNC, &pin) ? -errno : 0;
		} else {
			r = ioctl(c->fd, PTP_PIN_SETFUNC, &pin) ? -errno : 0;
			ro_refused = true;
		}
		refused = ERRNOS(EINVAL);	/* no pins */
		break;
	case 12:
		/* per-file channel masks exist from 6.7 on */
		what = "MASK_CLEAR_ALL";
		r = ioctl(c->fd, PTP_MASK_CLEAR_ALL) ? -errno : 0;
		refused = ERRNOS(ENOTTY);
		break;
	default:
		what = "EXTTS read";
		r = ptp_read_events(w->x, c);
		break;
	}
	if (ro_refused && !c->writable)
		refused = ERRNOS(EACCES);
	return judge(w, what, r, refused, c->anchor ? NO_ERRNOS : ERRNOS(ENODEV));
}

static enum outcome op_pps_open(struct worker *w)
{
	struct held_clock *c = free_clock(w->pps);
	char path[32];
	int idx, fd;

	if (!c)
		return run_op(w, OP_PPS_CLOSE);
	idx = draw_index(w, "pps_device");
	snprintf(path, sizeof(path), "/dev/pps%d", idx);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return open_failed(w, "/dev/pps", idx, idx == w->x->anchor_pps, -errno);
	*c = (struct held_clock){ .fd = fd, .index = idx, .writable = true,
				  .anchor = idx == w->x->anchor_pps };
	return DONE;
}

static enum outcome op_pps_close(struct worker *w)
{
	return close_clock(w, w->pps, OP_PPS_OPEN);
}

/*
 * One ioctl on a held PPS source. A source that is gone keeps answering
 * (the file holds the pps_device) but sees no more edges.
 */
static enum outcome op_pps_call(struct worker *w)
{
	struct held_clock *c = held_clock(w, w->pps);
	errset_t refused = NO_ERRNOS;
	struct pps_bind_args bind;
	struct pps_kparams params;
	struct pps_fdata fdata;
	const char *what;
	int mode, r;

	if (!c)
		return run_op(w, OP_PPS_OPEN);
	switch (st_below(&w->rng, 6)) {
	case 0:
		what = "PPS_GETPARAMS";
		r = ioctl(c->fd, PPS_GETPARAMS, &params) ? -errno : 0;
		break;
	case 1: {
		static const int modes[] = {
			PPS_CAPTUREASSERT, PPS_CAPTUREBOTH | PPS_OFFSETASSERT,
			PPS_CAPTURECLEAR | PPS_OFFSETCLEAR, PPS_OFFSETASSERT,
			PPS_CAPTUREASSERT | PPS_ECHOASSERT,
		};
		int m = st_below(&w->rng, 5);

		what = "PPS_SETPARAMS";
		memset(&params, 0, sizeof(params));
		params.api_version = PPS_API_VERS;
		params.mode = modes[m] | PPS_TSFMT_TSPEC;
		r = ioctl(c->fd, PPS_SETPARAMS, &params) ? -errno : 0;
		/* no capture edge, or one the source cannot echo */
		refused = w->unpriv ? ERRNOS(EPERM) : m >= 3 ? ERRNOS(EINVAL) : NO_ERRNOS;
		break;
	}
	case 2:
		what = "PPS_GETCAP";
		r = ioctl(c->fd, PPS_GETCAP, &mode) ? -errno : 0;
		break;
	case 3:
		what = "PPS_FETCH";
		memset(&fdata, 0, sizeof(fdata));
		fdata.timeout.nsec = st_below(&w->rng, 3) ? 0 : st_below(&w->rng, 20000000);
		r = ioctl(c->fd, PPS_FETCH, &fdata) ? -errno : 0;
		if (r == -ETIMEDOUT)
			r = 0;
		break;
	case 4:
		/*
		 * The kernel consumer (hardpps): bound to one source at a time,
		 * EOPNOTSUPP without CONFIG_NTP_PPS; unbound by edge 0, or
		 * when its source goes.
		 */
		what = "PPS_KC_BIND";
		memset(&bind, 0, sizeof(bind));
		bind.tsformat = PPS_TSFMT_TSPEC;
		bind.edge = st_below(&w->rng, 2) ? PPS_CAPTUREASSERT : 0;
		bind.consumer = PPS_KC_HARDPPS;
		r = ioctl(c->fd, PPS_KC_BIND, &bind) ? -errno : 0;
		refused = w->unpriv ? ERRNOS(EPERM) : ERRNOS(EINVAL, EOPNOTSUPP);
		break;
	default:
		what = "unknown ioctl";
		r = ioctl(c->fd, _IO('p', 0xa0 + st_below(&w->rng, 8)), 0) ? -errno : 0;
		refused = ERRNOS(ENOTTY);
		break;
	}
	return judge(w, what, r, refused, NO_ERRNOS);
}

/* ---- netlink -------------------------------------------------------------- */

static int nl_request(struct worker *w, struct nlt_msg *m, struct devs *ds,
		      struct nlt_result *res)
{
	int ret;

	if (ds)
		memset(ds, 0, sizeof(*ds));
	pthread_mutex_lock(&w->x->nl_lock);
	ret = nlt_request(&w->nl, m, ds ? collect_dev : NULL, ds, res);
	pthread_mutex_unlock(&w->x->nl_lock);
	return ret;
}

/*
 * The answer to a request: 0, an errno in @refused (the request was
 * wrong) or in @raced (the device it names went); every refusal carries
 * an extack message, except the core's EOPNOTSUPP for an unknown command
 * (and a dump's, which this client does not read).
 */
static enum outcome nl_judge(struct worker *w, const char *what, int ret,
			     const struct nlt_result *res, errset_t refused,
			     errset_t raced)
{
	enum outcome out;

	if (ret) {
		xfail(w, "%s: no answer: %s", what, strerror(-ret));
		return FAILED;
	}
	out = judge(w, what, -res->err, refused, raced);
	/* (a dump's error comes in NLMSG_DONE, whose extack nlt_request skips) */
	if (out != DONE && out != FAILED && !res->ext_msg[0] && res->err != EOPNOTSUPP &&
	    !strstr(what, "dump")) {
		xfail(w, "%s: %s without an extack message", what, strerror(res->err));
		return FAILED;
	}
	return out;
}

/* A device id: one of those in sysfs mostly, else any of 0..7. */
static uint32_t draw_dev_id(struct worker *w, bool *anchor)
{
	char names[MAX_DEVS][32];
	int n = dev_names(names, MAX_DEVS);
	uint32_t id;

	id = n && st_below(&w->rng, 4) ? (uint32_t)atoi(names[st_below(&w->rng, n)] + 6) :
		st_below(&w->rng, 8);
	*anchor = id == (uint32_t)w->x->anchor_id;
	return id;
}

static enum outcome op_nl_get(struct worker *w)
{
	struct nlt_result res;
	struct nlt_msg m;
	struct devs ds;
	char tty[16];
	bool anchor, by_tty = st_below(&w->rng, 3) == 0;
	uint32_t id = draw_dev_id(w, &anchor);
	enum outcome out;
	int ret;

	snprintf(tty, sizeof(tty), "ttyGPSSIM%u", st_below(&w->rng, 5));
	if (by_tty)
		anchor = !strcmp(tty, ANCHOR_TTY);
	nlt_gpsphc_init(&w->nl, &m, GPSPHC_CMD_DEV_GET, 0);
	if (by_tty)
		nlt_put_str(&m, GPSPHC_A_DEV_TTY, tty);
	else
		nlt_put_u32(&m, GPSPHC_A_DEV_ID, id);
	ret = nl_request(w, &m, &ds, &res);
	out = nl_judge(w, "dev-get", ret, &res, NO_ERRNOS, anchor ? NO_ERRNOS : ERRNOS(ENODEV));
	if (out != DONE)
		return out;
	if (ds.n != 1 || ds.bad_cmd || dev_invalid(&ds.d[0])) {
		xfail(w, "dev-get: %d replies, %s", ds.n, ds.n ? dev_invalid(&ds.d[0]) : "none");
		return FAILED;
	}
	if (by_tty ? strcmp(ds.d[0].tty, tty) : ds.d[0].id != id) {
		xfail(w, "dev-get of %s or id %u: gpsphc%u on %s", by_tty ? tty : "-", id,
		      ds.d[0].id, ds.d[0].tty);
		return FAILED;
	}
	return DONE;
}

/* A dump: each device once, complete, the anchor's among them. */
static enum outcome op_nl_dump(struct worker *w)
{
	struct nlt_result res;
	struct nlt_msg m;
	struct devs ds;
	bool seen_anchor = false;
	enum outcome out;
	int i, k, ret;

	nlt_gpsphc_init(&w->nl, &m, GPSPHC_CMD_DEV_GET, NLM_F_DUMP);
	ret = nl_request(w, &m, &ds, &res);
	out = nl_judge(w, "dump", ret, &res, NO_ERRNOS, NO_ERRNOS);
	if (out != DONE)
		return out;
	if (ds.bad_cmd || ds.n < 1 || ds.n > EXPLORE_PORTS + 1) {
		xfail(w, "dump: %d devices, %d not DEV_GET", ds.n, ds.bad_cmd);
		return FAILED;
	}
	for (i = 0; i < ds.n; i++) {
		if (dev_invalid(&ds.d[i])) {
			xfail(w, "dump: gpsphc%u: %s", ds.d[i].id, dev_invalid(&ds.d[i]));
			return FAILED;
		}
		for (k = 0; k < i; k++)
			if (ds.d[k].id == ds.d[i].id) {
				xfail(w, "dump: gpsphc%u twice", ds.d[i].id);
				return FAILED;
			}
		seen_anchor |= ds.d[i].id == (uint32_t)w->x->anchor_id;
	}
	if (!seen_anchor) {
		xfail(w, "dump: the anchor gpsphc%d is missing", w->x->anchor_id);
		return FAILED;
	}
	return DONE;
}

/*
 * dev-set with a few attributes drawn from the policy, each in range or
 * (one time in six) out of it: the policy refuses anything out of range
 * (ERANGE) before gpsphc looks at the request; then CAP_SYS_TIME (EPERM),
 * then the id must be there (EINVAL) and name a device (ENODEV).
 */
static enum outcome op_nl_set(struct worker *w)
{
	struct nlt_result res;
	struct nlt_msg m;
	bool anchor, out_of_range = false, with_id = st_below(&w->rng, 10);
	uint32_t id = draw_dev_id(w, &anchor);
	int i, n = 1 + st_below(&w->rng, 4), ret;
	errset_t refused;

	nlt_gpsphc_init(&w->nl, &m, GPSPHC_CMD_DEV_SET, 0);
	if (with_id)
		nlt_put_u32(&m, GPSPHC_A_DEV_ID, id);
	for (i = 0; i < n; i++) {
		bool bad = !st_below(&w->rng, 6);

		out_of_range |= bad;
		switch (st_below(&w->rng, 6)) {
		case 0:
			nlt_put_u32(&m, GPSPHC_A_DEV_EDGE, bad ? 3 : 1 + st_below(&w->rng, 2));
			break;
		case 1:
			nlt_put_u32(&m, GPSPHC_A_DEV_SCALE, bad ? 0 : 1 + st_below(&w->rng, 2));
			break;
		case 2:
			nlt_put_u64(&m, GPSPHC_A_DEV_STEP_NS,
				    bad ? 999 : draw_between(&w->rng, 1000, 1000000000));
			break;
		case 3:
			nlt_put_u32(&m, GPSPHC_A_DEV_CONFIRM_N, bad ? 61 : 1 + st_below(&w->rng, 60));
			break;
		case 4:
			nlt_put_u64(&m, GPSPHC_A_DEV_RX_LATENCY_NS,
				    bad ? 999000001 : st_below(&w->rng, 999000001));
			break;
		default:
			nlt_put(&m, GPSPHC_A_DEV_SERVO_OFF,
				&(uint8_t){ bad ? 2 : st_below(&w->rng, 2) }, 1);
			break;
		}
	}
	ret = nl_request(w, &m, NULL, &res);
	if (out_of_range)
		refused = ERRNOS(ERANGE, EINVAL);
	else if (w->unpriv)
		refused = ERRNOS(EPERM);
	else if (!with_id)
		refused = ERRNOS(EINVAL);
	else
		refused = NO_ERRNOS;
	return nl_judge(w, "dev-set", ret, &res, refused,
			!errset_empty(refused) || anchor ? NO_ERRNOS : ERRNOS(ENODEV));
}

/*
 * A label for some edge: taken, or refused for what the servo says of it
 * (no such edge, too old, disagrees, servo off); ERANGE for a TAI - UTC
 * or leap out of the policy's range, which is checked before the right to
 * label (EPERM).
 */
static enum outcome op_nl_time_set(struct worker *w)
{
	struct nlt_result res;
	bool anchor;
	uint32_t id = draw_dev_id(w, &anchor);
	uint32_t tai_utc = st_below(&w->rng, 8) ? 37 : st_below(&w->rng, 1100);
	uint32_t leap = st_below(&w->rng, 4) ? 0 : st_below(&w->rng, 5);
	uint64_t tai = 1800000037ULL + st_below(&w->rng, 100);
	int ret;

	pthread_mutex_lock(&w->x->nl_lock);
	ret = nlt_time_set(&w->nl, id, st_below(&w->rng, 64), tai, tai_utc, leap, 0, &res);
	pthread_mutex_unlock(&w->x->nl_lock);
	return nl_judge(w, "time-set", ret, &res,
			w->unpriv ? ERRNOS(EPERM, ERANGE, EINVAL) : ERRNOS(ENOENT, EINVAL, ERANGE, EBUSY),
			anchor ? NO_ERRNOS : ERRNOS(ENODEV));
}

/* Requests that are wrong in themselves: each has its one answer. */
static enum outcome op_nl_malformed(struct worker *w)
{
	struct nlt_result res;
	struct nlt_msg m;
	errset_t refused = ERRNOS(EINVAL);
	const char *what;
	int ret;

	switch (st_below(&w->rng, 6)) {
	case 0:
		what = "unknown command";
		nlt_gpsphc_init(&w->nl, &m, 50 + st_below(&w->rng, 200), 0);
		refused = ERRNOS(EOPNOTSUPP);
		break;
	case 1:
		what = "a notification's command as a request";
		nlt_gpsphc_init(&w->nl, &m, GPSPHC_CMD_PPS_NTF, 0);
		refused = ERRNOS(EOPNOTSUPP);
		break;
	case 2:
		what = "dev-get by id and tty";
		nlt_gpsphc_init(&w->nl, &m, GPSPHC_CMD_DEV_GET, 0);
		nlt_put_u32(&m, GPSPHC_A_DEV_ID, w->x->anchor_id);
		nlt_put_str(&m, GPSPHC_A_DEV_TTY, ANCHOR_TTY);
		break;
	case 3:
		what = "dev-get naming nothing";
		nlt_gpsphc_init(&w->nl, &m, GPSPHC_CMD_DEV_GET, 0);
		break;
	case 4:
		what = "a dump with a filter";
		nlt_gpsphc_init(&w->nl, &m, GPSPHC_CMD_DEV_GET, NLM_F_DUMP);
		nlt_put_u32(&m, GPSPHC_A_DEV_ID, w->x->anchor_id);
		break;
	default:
		what = "a u32 of two bytes";
		nlt_gpsphc_init(&w->nl, &m, GPSPHC_CMD_DEV_GET, 0);
		nlt_put(&m, GPSPHC_A_DEV_ID, "\0\0", 2);
		refused = ERRNOS(EINVAL, ERANGE);
		break;
	}
	ret = nl_request(w, &m, NULL, &res);
	if (!ret && !res.err) {
		xfail(w, "%s: accepted", what);
		return FAILED;
	}
	return nl_judge(w, what, ret, &res, refused, NO_ERRNOS);
}

static void listener_close(struct worker *w)
{
	nlt_close(&w->ev);
	if (w->q)
		nlt_events_free(w->q);
	free(w->q);
	w->q = NULL;
}

/*
 * An events listener: one comes (the first subscriber turns the events
 * on), drains what came with a short wait, leaves the group and joins it
 * again, or goes.
 */
static enum outcome op_nl_listen(struct worker *w)
{
	int i, r, grp;

	if (w->ev.fd < 0) {
		pthread_mutex_lock(&w->x->nl_lock);
		r = nlt_open_events(&w->ev, &w->q);
		pthread_mutex_unlock(&w->x->nl_lock);
		if (r) {
			/* a failed nlt_open() leaves the number of the fd it closed */
			w->ev.fd = -1;
			listener_close(w);
		}
		return judge(w, "events listener", r, NO_ERRNOS, NO_ERRNOS);
	}
	switch (st_below(&w->rng, 4)) {
	case 0:
		listener_close(w);
		return DONE;
	case 1:
		grp = w->ev.events_grp;
		r = setsockopt(w->ev.fd, SOL_NETLINK, NETLINK_DROP_MEMBERSHIP, &grp,
			       sizeof(grp)) ? -errno : nlt_subscribe(&w->ev);
		return judge(w, "leave and join the events group", r, NO_ERRNOS, NO_ERRNOS);
	default:
		if (nlt_events_wait(&w->ev, w->q, -1, NULL, NULL, st_below(&w->rng, 10)) < 0)
			return judge(w, "events", -ENOMEM, NO_ERRNOS, NO_ERRNOS);
		for (i = 0; i < w->q->n; i++) {
			const struct nlt_event *e = &w->q->ev[i];

			if (e->cmd < GPSPHC_CMD_PPS_NTF || e->cmd > GPSPHC_CMD_LABEL_NTF ||
			    e->cmd == GPSPHC_CMD_TIME_SET || !e->complete)
				xfail(w, "event %u of gpsphc%u: %s", e->cmd, e->dev_id,
				      e->complete ? "not a notification" : "incomplete");
		}
		r = w->q->overruns ? -ENOBUFS : 0;
		nlt_events_clear(w->q);
		/* ENOBUFS: the socket overflowed and said so, as it should */
		return judge(w, "events", r, NO_ERRNOS, ERRNOS(ENOBUFS));
	}
}

/* ---- the module ----------------------------------------------------------- */

/*
 * The anchor keeps the discipline, and with it the module, in use: an
 * unload must fail with EAGAIN (EWOULDBLOCK: in use) or EBUSY (being
 * loaded or unloaded); a load of the loaded module with EEXIST.
 */
static enum outcome op_module(struct worker *w)
{
	int r;

	if (!st_below(&w->rng, 4))
		return judge(w, "load gpsphc.ko", gpsphc_module_load(""), ERRNOS(EEXIST),
			     NO_ERRNOS);
	r = gpsphc_module_unload();
	if (!r) {
		xfail(w, "gpsphc unloaded while %s had the discipline", ANCHOR_TTY);
		gpsphc_module_load("");
		return FAILED;
	}
	return judge(w, "delete_module", r, ERRNOS(EAGAIN, EBUSY), NO_ERRNOS);
}

/* ---- the workers ---------------------------------------------------------- */

struct op_entry {
	enum outcome (*run)(struct worker *w);
	int weight;
};

static const struct op_entry ops[NOPS] = {
	[OP_TTY_OPEN] = { op_tty_open, 6 },
	[OP_TTY_CLOSE] = { op_tty_close, 4 },
	[OP_ATTACH] = { op_attach, 8 },
	[OP_DETACH] = { op_detach, 5 },
	[OP_TTY_READ] = { op_tty_read, 3 },
	[OP_TTY_WRITE] = { op_tty_write, 2 },
	[OP_TTY_IOCTL] = { op_tty_ioctl, 4 },
	[OP_TTY_TERMIOS] = { op_tty_termios, 2 },
	[OP_TTY_HANGUP] = { op_tty_hangup, 2 },
	[OP_PLUG] = { op_plug, 1 },
	[OP_RX] = { op_rx, 5 },
	[OP_RX_FLAGS] = { op_rx_flags, 2 },
	[OP_DCD] = { op_dcd, 5 },
	[OP_PULSE] = { op_pulse, 1 },
	[OP_SYSFS_READ] = { op_sysfs_read, 6 },
	[OP_SYSFS_WRITE] = { op_sysfs_write, 5 },
	[OP_PTP_OPEN] = { op_ptp_open, 4 },
	[OP_PTP_CLOSE] = { op_ptp_close, 3 },
	[OP_PTP_CALL] = { op_ptp_call, 8 },
	[OP_PPS_OPEN] = { op_pps_open, 3 },
	[OP_PPS_CLOSE] = { op_pps_close, 2 },
	[OP_PPS_CALL] = { op_pps_call, 5 },
	[OP_NL_GET] = { op_nl_get, 3 },
	[OP_NL_DUMP] = { op_nl_dump, 3 },
	[OP_NL_SET] = { op_nl_set, 3 },
	[OP_NL_TIME_SET] = { op_nl_time_set, 3 },
	[OP_NL_MALFORMED] = { op_nl_malformed, 1 },
	[OP_NL_LISTEN] = { op_nl_listen, 3 },
	[OP_MODULE] = { op_module, 1 },
};

static enum op draw_op(uint64_t *rng)
{
	int total = 0, i, k;

	for (i = 0; i < NOPS; i++)
		total += ops[i].weight;
	k = st_below(rng, total);
	for (i = 0; k >= ops[i].weight; i++)
		k -= ops[i].weight;
	return i;
}

/* Run @op (also when another operation found nothing to act on). */
static enum outcome run_op(struct worker *w, enum op op)
{
	w->op = op;
	return ops[op].run(w);
}

static void worker_close_all(struct worker *w)
{
	int i;

	for (i = 0; i < TTY_SLOTS; i++)
		if (w->tty[i].fd >= 0)
			close(w->tty[i].fd);
	for (i = 0; i < CLOCK_SLOTS; i++) {
		if (w->ptp[i].fd >= 0)
			close(w->ptp[i].fd);
		if (w->pps[i].fd >= 0)
			close(w->pps[i].fd);
	}
	listener_close(w);
	nlt_close(&w->nl);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct explorer *x = w->x;
	enum outcome out;
	int r;

	pthread_mutex_lock(&x->nl_lock);
	r = nlt_open(&w->nl);
	pthread_mutex_unlock(&x->nl_lock);
	if (r) {
		w->nl.fd = -1;
		xfail(w, "genl family " GPSPHC_GENL_NAME ": %s", strerror(-r));
		return NULL;
	}
	while (!stopping(x)) {
		enum op op = draw_op(&w->rng);

		w->unpriv = !st_below(&w->rng, UNPRIV_ONE_IN);
		if (w->unpriv && cap_sys_time_effective(false)) {
			xfail(w, "cannot drop CAP_SYS_TIME");
			break;
		}
		out = run_op(w, op);
		if (w->unpriv) {
			atomic_fetch_add(&x->unpriv_ops, 1);
			cap_sys_time_effective(true);
		}
		atomic_fetch_add(&x->count[w->op][out], 1);
		w->nops++;
	}
	worker_close_all(w);
	return NULL;
}

/* ---- set-up, the end, the report ----------------------------------------- */

/*
 * The regular files of directory @dir (relative to the device directory
 * @dfd), their names prefixed with @prefix, and those of its
 * "statistics" subdirectory when @stats.
 */
static int list_files(int dfd, const char *dir, const char *prefix, bool stats,
		      struct dev_file *files, int max)
{
	char path[160];
	struct dirent *de;
	struct stat st;
	int n = 0, fd;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dfd, dir);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while (n < max && (de = readdir(d))) {
		if (de->d_name[0] == '.' || fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISDIR(st.st_mode) && stats && !strcmp(de->d_name, "statistics"))
			n += list_files(dfd, "statistics", "statistics/", false, files + n,
					max - n);
		if (!S_ISREG(st.st_mode))
			continue;
		/* the longest name, statistics/labels_refused, has 26 characters */
		snprintf(files[n].path, sizeof(files[n].path), "%.11s%.36s", prefix, de->d_name);
		files[n].readable = st.st_mode & 0444;
		files[n].writable = st.st_mode & 0222;
		n++;
	}
	closedir(d);
	return n;
}

static void explorer_init(struct __test_metadata *_metadata, struct explorer *x,
			  uint64_t seed)
{
	pthread_rwlockattr_t rwa;
	char path[64];
	int i, dfd;

	memset(x, 0, sizeof(*x));
	x->seed = seed;
	x->anchor_fd = -1;
	x->kmsg.fd = -1;
	pthread_mutex_init(&x->nl_lock, NULL);
	pthread_mutex_init(&x->extts_lock, NULL);
	ASSERT_EQ(0, pthread_rwlockattr_init(&rwa));
	/* openers come back-to-back: an attach must not starve */
	ASSERT_EQ(0, pthread_rwlockattr_setkind_np(&rwa,
			PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP));
	ASSERT_EQ(0, pthread_rwlock_init(&x->register_gate, &rwa));
	pthread_rwlockattr_destroy(&rwa);
	x->gate_ptp_opens = !kernel_is_gpsphc_debug() &&
			    !getenv("GPSPHC_EXPLORE_REGISTER_RACE");
	x->log = st_log_new();
	ASSERT_NE(NULL, x->log);
	if (!gpsphc_module_loaded())
		ASSERT_EQ(0, gpsphc_module_load(""));
	for (i = 0; i <= ANCHOR_PORT; i++) {
		ASSERT_EQ(0, sim_port_present(i, 1));
		sim_pulse_reset(i);
		ASSERT_EQ(0, sim_set(i, "dcd", "0"));
	}
	ASSERT_EQ(0, dir_entries(GPSPHC_CLASS)) TH_LOG("a device is left from before");
	x->ptp_base = dir_entries("/sys/class/ptp");
	x->pps_base = dir_entries("/sys/class/pps");
	ASSERT_EQ(0, kmsg_watch_open(&x->kmsg));

	x->anchor_fd = sim_tty_open(ANCHOR_PORT, O_NONBLOCK);
	ASSERT_LE(0, x->anchor_fd);
	ASSERT_EQ(0, ldisc_set(x->anchor_fd, GPSPHC_LDISC));
	x->anchor_id = gpsphc_find(ANCHOR_TTY);
	ASSERT_LE(0, x->anchor_id);
	snprintf(x->anchor_name, sizeof(x->anchor_name), "gpsphc%d", x->anchor_id);
	x->anchor_ptp = gpsphc_ptp_index(x->anchor_id);
	x->anchor_pps = gpsphc_pps_index(x->anchor_id);
	ASSERT_LE(0, x->anchor_ptp);
	ASSERT_LE(0, x->anchor_pps);

	/* What there is to read and write, from the anchor's directories. */
	dfd = dev_dir_open(x->anchor_name);
	ASSERT_LE(0, dfd);
	x->n_dev_files = list_files(dfd, "", "", true, x->dev_files, MAX_FILES);
	snprintf(path, sizeof(path), "ptp%d", x->anchor_ptp);
	x->n_ptp_files = list_files(dfd, path, "", false, x->ptp_files, MAX_FILES);
	snprintf(path, sizeof(path), "pps%d", x->anchor_pps);
	x->n_pps_files = list_files(dfd, path, "", false, x->pps_files, MAX_FILES);
	close(dfd);
	ASSERT_LT(10, x->n_dev_files);
	ASSERT_LT(0, x->n_ptp_files);
	ASSERT_LT(0, x->n_pps_files);
}

/* Everything back as the fixed tests expect it: ports in, quiet, CLOCAL. */
static void ports_restore(void)
{
	int i, fd;

	for (i = 0; i <= ANCHOR_PORT; i++) {
		sim_port_present(i, 1);
		sim_pulse_reset(i);
		sim_set(i, "dcd", "0");
		fd = sim_tty_open(i, O_NONBLOCK);
		if (fd >= 0)
			close(fd);
	}
}

static void stop_workers(struct explorer *x)
{
	int i;

	atomic_store(&x->stop, true);
	for (i = 0; i < x->nworkers; i++)
		pthread_join(x->w[i].thr, NULL);
	x->nworkers = 0;
}

static void explorer_fini(struct explorer *x)
{
	stop_workers(x);
	if (x->anchor_fd >= 0) {
		ldisc_set(x->anchor_fd, N_TTY);
		close(x->anchor_fd);
		x->anchor_fd = -1;
	}
	ports_restore();
	kmsg_watch_close(&x->kmsg);
	st_log_free(x->log);
	x->log = NULL;
	/* the tests after this one need the module */
	if (!gpsphc_module_loaded())
		gpsphc_module_load("");
}

/* The counts of each operation, and every failure; the number of failures. */
static long report(struct __test_metadata *_metadata, struct explorer *x, double secs)
{
	static const char *const outcome_names[NOUTCOMES] = {
		"done", "refused", "raced", "FAILED",
	};
	long total = 0;
	int i, o;

	for (i = 0; i < NOPS; i++) {
		char line[160];
		int len = 0;

		for (o = 0; o < NOUTCOMES; o++) {
			long n = atomic_load(&x->count[i][o]);

			total += n;
			if (n)
				len += snprintf(line + len, sizeof(line) - len, " %s %ld",
						outcome_names[o], n);
		}
		TH_LOG("%-20s%s", op_names[i], len ? line : " never ran");
	}
	TH_LOG("%ld operations in %.1f s by %d threads, %ld without CAP_SYS_TIME; PTP opens %s attaches",
	       total, secs, EXPLORE_THREADS, atomic_load(&x->unpriv_ops),
	       x->gate_ptp_opens ? "kept apart from" : "free to overlap");
	for (i = 0; i < x->log->n && i < ST_LOG_KEEP; i++)
		TH_LOG("FAIL: %s", x->log->msg[i]);
	if (x->log->n > ST_LOG_KEEP)
		TH_LOG("... and %ld more failures", x->log->n - ST_LOG_KEEP);
	return x->log->n;
}

/* Wait up to @ms for class directory @dir to hold @n entries: how many it has. */
static int class_entries_within(const char *dir, int n, int ms)
{
	int i, have = dir_entries(dir);

	for (i = 0; i < ms / 10 && have != n; i++) {
		usleep(10000);
		have = dir_entries(dir);
	}
	return have;
}

FIXTURE(explore) {
	struct explorer x;
};

FIXTURE_VARIANT(explore) {
	uint64_t seed;	/* 0: the platform's own (platform_seed()) */
	bool first;	/* GPSPHC_EXPLORE_SEED runs here, the others skip */
};

/*
 * Seed 1 on every kernel, and a seed of each kernel's own: make check
 * boots five kernels, and the same four seeds on each walked the same
 * scenarios five times where ten seeds now walk ten, in half the time.
 */
FIXTURE_VARIANT_ADD(explore, seed_1) { .seed = 1, .first = true };
FIXTURE_VARIANT_ADD(explore, platform_seed) { .seed = 0 };

/* FNV-1a of the kernel's release and machine, below 2^31. */
static uint64_t platform_seed(void)
{
	struct utsname u;
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *p;

	if (uname(&u))
		return 2;
	for (p = u.release; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	for (p = u.machine; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	return (h >> 33) | 2;
}

FIXTURE_SETUP(explore)
{
	uint64_t seed = variant->seed ? variant->seed : platform_seed();

	if (explore_seed_from_env(&seed) && !variant->first) {
		memset(&self->x, 0, sizeof(self->x));
		self->x.anchor_fd = -1;
		self->x.kmsg.fd = -1;
		SKIP(return, "GPSPHC_EXPLORE_SEED runs one seed");
	}
	kmsg_mark("explore_test: seed %llu", (unsigned long long)seed);
	explorer_init(_metadata, &self->x, seed);
}

FIXTURE_TEARDOWN(explore)
{
	explorer_fini(&self->x);
}

TEST_F_TIMEOUT(explore, runs_clean, 90)
{
	struct explorer *x = &self->x;
	int secs = explore_seconds(EXPLORE_SECONDS), i, r;
	long long t0 = clock_ns(CLOCK_MONOTONIC), t1;
	uint64_t stream = x->seed;

	TH_LOG("seed %llu, %d s, %d threads (GPSPHC_EXPLORE_SEED=%llu repeats it)",
	       (unsigned long long)x->seed, secs, EXPLORE_THREADS,
	       (unsigned long long)x->seed);
	for (i = 0; i < EXPLORE_THREADS; i++) {
		struct worker *w = &x->w[i];
		int k;

		memset(w, 0, sizeof(*w));
		w->x = x;
		w->index = i;
		w->rng = st_rand(&stream);	/* thread i's stream: the seed's i-th draw */
		w->nl.fd = w->ev.fd = -1;
		for (k = 0; k < TTY_SLOTS; k++)
			w->tty[k].fd = -1;
		for (k = 0; k < CLOCK_SLOTS; k++)
			w->ptp[k].fd = w->pps[k].fd = -1;
		ASSERT_EQ(0, pthread_create(&w->thr, NULL, worker_main, w));
		x->nworkers++;
	}
	/* the kernel log as it comes, until the time is up */
	while (clock_ns(CLOCK_MONOTONIC) - t0 < secs * NSEC_PER_SEC) {
		kmsg_watch_drain(&x->kmsg);
		usleep(100000);
	}
	stop_workers(x);
	t1 = clock_ns(CLOCK_MONOTONIC);
	EXPECT_EQ(0, report(_metadata, x, (t1 - t0) / 1e9));
	EXPECT_LT(0, atomic_load(&x->count[OP_ATTACH][DONE]));

	/* The anchor lived through it all, and its clock works. */
	EXPECT_EQ(x->anchor_id, gpsphc_find(ANCHOR_TTY));
	r = phc_open(x->anchor_ptp, O_RDONLY);
	EXPECT_LE(0, r);
	if (r >= 0) {
		EXPECT_LT(0, phc_gettime(r));
		close(r);
	}

	/* Everything closed and detached: nothing of the module is left... */
	ldisc_set(x->anchor_fd, N_TTY);
	close(x->anchor_fd);
	x->anchor_fd = -1;
	ports_restore();
	EXPECT_EQ(0, class_entries_within(GPSPHC_CLASS, 0, 5000));
	EXPECT_EQ(x->ptp_base, class_entries_within("/sys/class/ptp", x->ptp_base, 5000));
	EXPECT_EQ(x->pps_base, class_entries_within("/sys/class/pps", x->pps_base, 5000));

	/* ...so it unloads at once, and loads again for the tests after this. */
	r = gpsphc_module_unload();
	for (i = 0; r == -EAGAIN && i < 50; i++) {
		usleep(100000);
		r = gpsphc_module_unload();
	}
	EXPECT_EQ(0, r) TH_LOG("unload with nothing attached: %s", strerror(-r));
	if (!r && i)
		TH_LOG("the module unloaded only after %d ms of EAGAIN", i * 100);
	EXPECT_FALSE(gpsphc_module_loaded());
	EXPECT_EQ(0, gpsphc_module_load(""));
	EXPECT_EQ(0, access(GPSPHC_CLASS, F_OK));
	TH_LOG("teardown, unload and load: %.1f s", (clock_ns(CLOCK_MONOTONIC) - t1) / 1e9);

	/* The kernel said nothing bad meanwhile. */
	usleep(200000);
	kmsg_watch_drain(&x->kmsg);
	if (x->kmsg.lost)
		TH_LOG("kernel log: records overwritten before they were read %ld times",
		       x->kmsg.lost);
	for (i = 0; i < x->kmsg.bad && i < KMSG_KEEP; i++)
		TH_LOG("kernel: %s", x->kmsg.line[i]);
	for (i = 0; i < x->kmsg.ntrace; i++)
		TH_LOG("kernel:   %s", x->kmsg.trace[i]);
	EXPECT_EQ(0, x->kmsg.bad);
}

/* A longer run (GPSPHC_EXPLORE_SECONDS) gets a timeout to match. */
int main(int argc, char **argv)
{
	int secs = explore_seconds(EXPLORE_SECONDS);
	struct __fixture_metadata *f;
	struct __test_metadata *t;

	for (f = __fixture_list; f; f = f->next)
		for (t = f->tests; t; t = t->next)
			if (t->timeout < secs + 78)
				t->timeout = secs + 78;
	return test_harness_run(argc, argv);
}
