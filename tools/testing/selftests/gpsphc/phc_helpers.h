/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the PTP hardware clock tests: the /dev/ptpN of a gpsphc
 * device, its servo's sysfs files, EXTTS events, cross timestamps, and
 * running linuxptp's programs with their output captured.
 */
#ifndef GPSPHC_PHC_HELPERS_H
#define GPSPHC_PHC_HELPERS_H

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/ptp_clock.h>

#include "gpsphc_test.h"

#ifndef CLOCKFD
#define CLOCKFD 3
#endif
#define PHC_CLOCKID(fd)	((~(clockid_t)(fd) << 3) | CLOCKFD)

#define NSEC_PER_SEC	1000000000LL

/* N of /dev/ptpN of device @id (its ptp_device file holds "ptpN"), or -errno. */
static inline int gpsphc_ptp_index(int id)
{
	char buf[32];
	int n = gpsphc_attr_get(id, "ptp_device", buf, sizeof(buf));

	if (n < 0)
		return n;
	if (strncmp(buf, "ptp", 3) || buf[3] < '0' || buf[3] > '9')
		return -EINVAL;
	return atoi(buf + 3);
}

/* Attribute @attr of device @id without its newline; -errno on failure. */
static inline int gpsphc_attr_str(int id, const char *attr, char *buf, size_t size)
{
	int n = gpsphc_attr_get(id, attr, buf, size);

	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return n;
}

/* The servo's sysfs state of device @id, as a string ("" if unreadable). */
static inline const char *gpsphc_servo_state(int id, char *buf, size_t size)
{
	if (gpsphc_attr_str(id, "servo_state", buf, size) < 0)
		buf[0] = '\0';
	return buf;
}

/* A decimal attribute of device @id into @v: 0 or -errno. */
static inline int gpsphc_attr_ll(int id, const char *attr, long long *v)
{
	char buf[64], *end;
	int n = gpsphc_attr_get(id, attr, buf, sizeof(buf));

	if (n < 0)
		return n;
	errno = 0;
	*v = strtoll(buf, &end, 10);
	if (errno || end == buf || strcmp(end, "\n"))
		return -EINVAL;
	return 0;
}

/* A decimal attribute, or LLONG_MIN if it cannot be read. */
static inline long long gpsphc_ll(int id, const char *attr)
{
	long long v;

	return gpsphc_attr_ll(id, attr, &v) ? LLONG_MIN : v;
}

static inline long long pct_ns(const struct ptp_clock_time *t)
{
	return t->sec * NSEC_PER_SEC + t->nsec;
}

static inline long long ts_ns(const struct timespec *t)
{
	return t->tv_sec * NSEC_PER_SEC + t->tv_nsec;
}

/* Open /dev/ptp@index: fd or -errno. */
static inline int phc_open(int index, int flags)
{
	char path[32];
	int fd;

	snprintf(path, sizeof(path), "/dev/ptp%d", index);
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Time of the PHC open on @fd in ns, or -errno (negative). */
static inline long long phc_gettime(int fd)
{
	struct timespec ts;

	if (clock_gettime(PHC_CLOCKID(fd), &ts))
		return -errno;
	return ts_ns(&ts);
}

static inline int phc_settime(int fd, long long ns)
{
	struct timespec ts = { .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };

	return clock_settime(PHC_CLOCKID(fd), &ts) ? -errno : 0;
}

/* clock_adjtime ADJ_SETOFFSET by @ns (may be negative). */
static inline int phc_adj_offset(int fd, long long ns)
{
	struct timex tx = { .modes = ADJ_SETOFFSET | ADJ_NANO };
	long long s = ns / NSEC_PER_SEC, r = ns % NSEC_PER_SEC;

	if (r < 0) {
		r += NSEC_PER_SEC;
		s--;
	}
	tx.time.tv_sec = s;
	tx.time.tv_usec = r;	/* nanoseconds, with ADJ_NANO */
	return clock_adjtime(PHC_CLOCKID(fd), &tx) < 0 ? -errno : 0;
}

/* clock_adjtime ADJ_FREQUENCY to @ppb (scaled ppm, as phc_ctl does). */
static inline int phc_adj_freq(int fd, long long ppb)
{
	struct timex tx = { .modes = ADJ_FREQUENCY };

	tx.freq = (long)(ppb * 65536 / 1000);
	return clock_adjtime(PHC_CLOCKID(fd), &tx) < 0 ? -errno : 0;
}

/* Turn EXTTS channel @index on (rising edge) or off. */
static inline int phc_extts(int fd, unsigned int index, bool on)
{
	struct ptp_extts_request req = { .index = index };

	if (on)
		req.flags = PTP_ENABLE_FEATURE | PTP_RISING_EDGE;
	return ioctl(fd, PTP_EXTTS_REQUEST, &req) ? -errno : 0;
}

/*
 * Read the EXTTS events waiting on @fd into @ev (at most @max), waiting up
 * to @timeout_ms for the first. Number read, 0 on timeout, or -errno.
 */
static inline int phc_extts_read(int fd, struct ptp_extts_event *ev, int max,
				 int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;
	int r;

	r = poll(&pfd, 1, timeout_ms);
	if (r < 0)
		return -errno;
	if (r == 0)
		return 0;
	if (pfd.revents & (POLLERR | POLLHUP) && !(pfd.revents & POLLIN))
		return -ENODEV;
	n = read(fd, ev, max * sizeof(*ev));
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	return n / sizeof(*ev);
}

/* One cross timestamp: device time and CLOCK_MONOTONIC_RAW / REALTIME. */
struct phc_xts {
	long long dev, raw, real;
};

static inline int phc_precise(int fd, struct phc_xts *x)
{
	struct ptp_sys_offset_precise p;

	memset(&p, 0, sizeof(p));
	if (ioctl(fd, PTP_SYS_OFFSET_PRECISE, &p))
		return -errno;
	x->dev = pct_ns(&p.device);
	x->raw = pct_ns(&p.sys_monoraw);
	x->real = pct_ns(&p.sys_realtime);
	return 0;
}

/* Run @argv with stdout and stderr into @out; its exit status or -errno. */
static inline int run_capture(char *const argv[], char *out, size_t size)
{
	size_t len = 0;
	int p[2], status;
	pid_t pid;
	ssize_t n;

	if (pipe(p))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while (len + 1 < size && (n = read(p[0], out + len, size - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A program left running, its output read through a pipe. */
struct bg_prog {
	pid_t pid;
	int fd;
};

static inline int bg_start(struct bg_prog *b, char *const argv[])
{
	int p[2];

	if (pipe(p))
		return -errno;
	b->pid = fork();
	if (b->pid < 0)
		return -errno;
	if (b->pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	b->fd = p[0];
	return 0;
}

/* Append what @b printed within @ms to @out (NUL-terminated, @size total). */
static inline void bg_collect(struct bg_prog *b, char *out, size_t size, int ms)
{
	long long end = clock_ns(CLOCK_MONOTONIC) + ms * 1000000LL;
	size_t len = strlen(out);

	for (;;) {
		long long left = (end - clock_ns(CLOCK_MONOTONIC)) / 1000000;
		struct pollfd pfd = { .fd = b->fd, .events = POLLIN };
		ssize_t n;

		if (left <= 0 || len + 1 >= size)
			break;
		if (poll(&pfd, 1, left) <= 0)
			continue;
		n = read(b->fd, out + len, size - 1 - len);
		if (n <= 0)
			break;
		len += n;
		out[len] = '\0';
	}
}

/* Is @b still running? (reaps it if not; *@status then holds its status) */
static inline bool bg_running(struct bg_prog *b, int *status)
{
	if (b->pid <= 0)
		return false;
	if (waitpid(b->pid, status, WNOHANG) == b->pid) {
		b->pid = 0;
		return false;
	}
	return true;
}

/* SIGTERM, then wait; the exit status (or 128 + signal). */
static inline int bg_stop(struct bg_prog *b)
{
	int status = 0;

	if (b->pid > 0) {
		kill(b->pid, SIGTERM);
		waitpid(b->pid, &status, 0);
		b->pid = 0;
	}
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Sort helper for statistics of errors. */
static inline int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

#endif /* GPSPHC_PHC_HELPERS_H */
