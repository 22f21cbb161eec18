/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the stress and hostile-input tests (stress_test.c,
 * hostile_test.c): how long to run, a failure log that threads and forked
 * children can write, sysfs attributes read and written through a
 * directory fd, DCD driven through a held control file, and a small PRNG.
 *
 * Include after kselftest_harness.h: STRESS_HARNESS_MAIN walks its test
 * list.
 */
#ifndef GPSPHC_STRESS_HELPERS_H
#define GPSPHC_STRESS_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "gpsphc_test.h"
#include "nl_helpers.h"

/*
 * Seconds each stress case runs: GPSPHC_STRESS_SECONDS from the
 * environment (1..3600), else @dflt. make check runs the default; set it
 * for a longer run on demand.
 */
static inline int stress_seconds(int dflt)
{
	const char *s = getenv("GPSPHC_STRESS_SECONDS");
	int v = s ? atoi(s) : 0;

	return v >= 1 && v <= 3600 ? v : dflt;
}

/*
 * GPSPHC_STRESS_ONLY=<text> runs only the cases whose name, "fixture" or
 * "fixture.variant", contains <text> (to reproduce one of them): false
 * for the others, which SKIP.
 */
static inline bool stress_selected(const char *fixture, const char *variant)
{
	const char *only = getenv("GPSPHC_STRESS_ONLY");
	char name[128];

	if (!only || !*only)
		return true;
	snprintf(name, sizeof(name), "%s%s%s", fixture, variant ? "." : "",
		 variant ? variant : "");
	return strstr(name, only) != NULL;
}

/*
 * TEST_HARNESS_MAIN, but a longer run asked for by GPSPHC_STRESS_SECONDS
 * stretches every test's timeout (fixed at compile time by TEST_F_TIMEOUT)
 * in proportion, so that a long run is not cut short by a limit sized for
 * @dflt seconds.
 */
#define STRESS_HARNESS_MAIN(dflt)					\
	int main(int argc, char **argv)					\
	{								\
		struct __fixture_metadata *f;				\
		struct __test_metadata *t;				\
		int secs = stress_seconds(dflt);			\
									\
		for (f = __fixture_list; f && secs > (dflt); f = f->next) \
			for (t = f->tests; t; t = t->next)		\
				t->timeout = t->timeout * secs / (dflt); \
		return test_harness_run(argc, argv);			\
	}

/* ---- a failure log ------------------------------------------------------- */

#define ST_LOG_KEEP	16

/*
 * Failures seen by worker threads (and forked children: the log lives in
 * shared memory, its lock is process-shared). The first ST_LOG_KEEP
 * messages are kept; the main thread logs them after joining.
 */
struct st_log {
	pthread_mutex_t lock;
	long n;
	char msg[ST_LOG_KEEP][240];
};

/* A new log in shared anonymous memory, or NULL. */
static inline struct st_log *st_log_new(void)
{
	pthread_mutexattr_t a;
	struct st_log *l;

	l = mmap(NULL, sizeof(*l), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (l == MAP_FAILED)
		return NULL;
	memset(l, 0, sizeof(*l));
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&l->lock, &a);
	pthread_mutexattr_destroy(&a);
	return l;
}

static inline void st_log_free(struct st_log *l)
{
	if (l)
		munmap(l, sizeof(*l));
}

static inline void __attribute__((format(printf, 2, 3)))
st_fail(struct st_log *l, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&l->lock);
	if (l->n < ST_LOG_KEEP) {
		va_start(ap, fmt);
		vsnprintf(l->msg[l->n], sizeof(l->msg[0]), fmt, ap);
		va_end(ap);
	}
	l->n++;
	pthread_mutex_unlock(&l->lock);
}

/* ---- sysfs through a directory fd ---------------------------------------- */

/*
 * A device directory opened once and its files reached from it: once the
 * device is gone every access fails (ENOENT, ENODEV), even when a new
 * device of the same name has appeared meanwhile, so a value read back is
 * always the one device's.
 */
static inline int dev_dir_open(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), GPSPHC_CLASS "/%.64s", name);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * Attribute @attr of the device open as @dfd, as a path: through
 * /proc/self/fd the lookup starts in that very directory.
 */
static inline void dir_path(char *path, size_t size, int dfd, const char *attr)
{
	snprintf(path, size, "/proc/self/fd/%d/%s", dfd, attr);
}

/* Read attribute @attr of the device open as @dfd: length or -errno. */
static inline int dir_read(int dfd, const char *attr, char *buf, size_t size)
{
	char path[128];

	dir_path(path, sizeof(path), dfd, attr);
	return read_file(path, buf, size);
}

/* Write @val to attribute @attr in one write(): 0 or -errno. */
static inline int dir_write(int dfd, const char *attr, const char *val)
{
	ssize_t n, len = strlen(val);
	char path[128];

	dir_path(path, sizeof(path), dfd, attr);
	n = write_file(path, val, len);
	return n < 0 ? (int)n : n == len ? 0 : -EIO;
}

/* The errors a file of a device that is going away may give. */
static inline bool gone_errno(int err)
{
	return err == -ENOENT || err == -ENODEV;
}

/* The errors an open of a character device that went away may give. */
static inline bool gone_open_errno(int err)
{
	return err == -ENOENT || err == -ENODEV || err == -ENXIO;
}

/*
 * Is the device open as @dfd gone, or going within @ms? Attribute groups
 * are removed one file at a time, so a file may fail while its neighbours
 * are still there for a moment: wait for the directory itself.
 */
static inline bool dir_gone_within(int dfd, int ms)
{
	char buf[64];
	int i;

	for (i = 0; i <= ms; i++) {
		if (gone_errno(dir_read(dfd, "tty", buf, sizeof(buf))))
			return true;
		usleep(1000);
	}
	return false;
}

/* The device names in /sys/class/gpsphc ("gpsphc0", ...): how many, at most @max. */
static inline int dev_names(char (*names)[32], int max)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(GPSPHC_CLASS);
	if (!d)
		return 0;
	while (n < max && (de = readdir(d)))
		if (!strncmp(de->d_name, "gpsphc", 6))
			snprintf(names[n++], sizeof(names[0]), "%.31s", de->d_name);
	closedir(d);
	return n;
}

/* ---- netlink replies ----------------------------------------------------- */

#define MAX_DEVS	8

/* What is wrong with a dev-get reply, or NULL. */
static inline const char *dev_invalid(const struct nlt_dev *d)
{
	int i;

	if (!d->has_id)
		return "no GPSPHC_A_DEV_ID";
	if (!d->has_tty || strncmp(d->tty, "ttyGPSSIM", 9))
		return "no or wrong GPSPHC_A_DEV_TTY";
	if (!d->has_pps_index || !d->has_ptp_index)
		return "no PPS or PTP index";
	if (!d->has_edge || d->edge < GPSPHC_EDGE_RISING || d->edge > GPSPHC_EDGE_MAX)
		return "no or bad edge";
	if (!d->has_scale || !d->has_step_ns || !d->has_confirm_n || !d->has_rx_latency)
		return "a setting is missing";
	if (!d->has_stats || d->nstats_unknown)
		return "statistics missing or malformed";
	for (i = 1; i <= NLT_NSTATS; i++)
		if (!d->has_stat[i])
			return "a counter is missing";
	if (!d->servo.present || !d->servo.has_state || d->servo.bad_len ||
	    d->servo.counters != 5 || d->servo.state < GPSPHC_SERVO_UNLOCKED ||
	    d->servo.state > GPSPHC_SERVO_MAX)
		return "servo status missing or malformed";
	return NULL;
}

struct devs {
	int n, bad_cmd;
	struct nlt_dev d[MAX_DEVS];
};

static inline void collect_dev(const struct nlmsghdr *nlh, void *arg)
{
	struct devs *ds = arg;

	if (nlt_genl_cmd(nlh) != GPSPHC_CMD_DEV_GET)
		ds->bad_cmd++;
	if (ds->n < MAX_DEVS)
		nlt_parse_dev(nlh, &ds->d[ds->n]);
	ds->n++;
}

/* ---- DCD and other fake-UART controls through a held fd ------------------ */

/* Open control file @file of fake port @port for writing: fd or -errno. */
static inline int sim_ctl_open(int port, const char *file)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), SIM_DEBUGFS "/ttyGPSSIM%d/%s", port, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Drive DCD to @level through a held "dcd" control fd: 0 or -errno. */
static inline int dcd_write(int fd, int level)
{
	return write(fd, level ? "1" : "0", 1) == 1 ? 0 : -errno;
}

/*
 * A line in the kernel log ("gpsphc-selftest: ..."), so that a warning
 * in dmesg can be told to come from one case or another.
 */
static inline void __attribute__((format(printf, 1, 2))) kmsg_mark(const char *fmt, ...)
{
	char line[200];
	va_list ap;
	int fd, n;

	n = snprintf(line, sizeof(line), "<5>gpsphc-selftest: ");
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, line, n) < 0)
		n = 0;
	close(fd);
}

/* ---- time and randomness ------------------------------------------------- */

/* Sleep until @ns on CLOCK_MONOTONIC (absolute). */
static inline void sleep_until_ns(long long ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* splitmix64: a per-thread generator, reproducible from its seed. */
static inline uint64_t st_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, @n). */
static inline uint32_t st_below(uint64_t *s, uint32_t n)
{
	return n ? (uint32_t)(st_rand(s) % n) : 0;
}

#endif /* GPSPHC_STRESS_HELPERS_H */
