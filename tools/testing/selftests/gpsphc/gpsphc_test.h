/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the gpsphc selftests: the fake UART's debugfs control
 * files (tools/testing/gpsphc_sim/CONTROL.rst), raw tty set-up, and
 * attaching the discipline.
 */
#ifndef GPSPHC_TEST_H
#define GPSPHC_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <linux/pps.h>

#define GPSPHC_LDISC 29			/* N_DEVELOPMENT, the module default */

/*
 * Has the running test failed no check yet? 6.12's harness (the one that
 * has XFAIL_ADD, and -t/-l) keeps an exit code, 6.1's a flag.
 */
#ifdef XFAIL_ADD
#define gpsphc_test_passing(m)	__test_passed(m)
#else
#define gpsphc_test_passing(m)	((m)->passed)
#endif
#define SIM_DEBUGFS "/sys/kernel/debug/gpsphc_sim"
#define GPSPHC_CLASS "/sys/class/gpsphc"

/* Write @len bytes to the file @path in one write(): bytes written or -errno. */
static inline ssize_t write_file(const char *path, const void *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

/* Write @len bytes to a control file of fake port @port in one write(). */
static inline ssize_t sim_write(int port, const char *file, const void *buf,
				size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), SIM_DEBUGFS "/ttyGPSSIM%d/%s", port, file);
	return write_file(path, buf, len);
}

/* Open fake port @port as a raw 8N1 tty that ignores modem lines. */
static inline int sim_tty_open(int port, int flags)
{
	struct termios tio;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/ttyGPSSIM%d", port);
	fd = open(path, O_RDWR | O_NOCTTY | flags);
	if (fd < 0)
		return -errno;
	if (tcgetattr(fd, &tio) < 0)
		goto fail;
	cfmakeraw(&tio);
	tio.c_cflag |= CLOCAL | CREAD;
	cfsetspeed(&tio, B9600);
	if (tcsetattr(fd, TCSANOW, &tio) < 0)
		goto fail;
	return fd;
fail:
	flags = -errno;
	close(fd);
	return flags;
}

static inline int ldisc_set(int fd, int ldisc)
{
	return ioctl(fd, TIOCSETD, &ldisc) < 0 ? -errno : 0;
}

static inline int ldisc_get(int fd)
{
	int ldisc;

	return ioctl(fd, TIOCGETD, &ldisc) < 0 ? -errno : ldisc;
}

/* Number of entries in a sysfs directory (without . and ..), or -errno. */
static inline int dir_entries(const char *path)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Read a whole small file into @buf (NUL-terminated); -errno on failure. */
static inline int read_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* Read exactly @len bytes from @fd, waiting up to @timeout_ms overall. */
static inline ssize_t read_exact(int fd, void *buf, size_t len, int timeout_ms)
{
	size_t got = 0;
	int waited = 0;

	while (got < len && waited <= timeout_ms) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n > 0) {
			got += n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		usleep(1000);
		waited++;
	}
	return got;
}

/* Slab memory in kB after dropping reclaimable caches, or -1. */
static inline long slab_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f;
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "3", 1) != 1)
			kb = -1;
		close(fd);
	}
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Write the string @val to a control file of fake port @port. */
static inline int sim_set(int port, const char *file, const char *val)
{
	ssize_t n = sim_write(port, file, val, strlen(val));

	return n < 0 ? (int)n : 0;
}

/* A rising edge of a fake port's pulse generator, from its edges log. */
struct sim_pulse_edge {
	long long k;		/* the generator's pulse number */
	long long intended_ns;	/* CLOCK_MONOTONIC_RAW the receiver meant */
	long long raw_ns;	/* CLOCK_MONOTONIC_RAW just before the DCD call */
};

/* Number of edges fake port's edges log keeps (gpsphc_sim/CONTROL.rst). */
#define SIM_EDGE_LOG	4096

/*
 * The pulse generator's rising edges in fake port @port's edges log,
 * oldest first, at most @max: how many, or -errno.
 */
static inline int sim_pulse_edges(int port, struct sim_pulse_edge *e, int max)
{
	long long k, level, intended, raw;
	char path[256], line[160];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), SIM_DEBUGFS "/ttyGPSSIM%d/edges", port);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %lld %lld %lld %lld", &k, &level, &intended, &raw) != 4 ||
		    k < 0 || level != 1)
			continue;
		e[n++] = (struct sim_pulse_edge){ k, intended, raw };
	}
	fclose(f);
	return n;
}

/* Read a control file of fake port @port into @buf; -errno on failure. */
static inline int sim_get(int port, const char *file, char *buf, size_t size)
{
	char path[256];

	snprintf(path, sizeof(path), SIM_DEBUGFS "/ttyGPSSIM%d/%s", port, file);
	return read_file(path, buf, size);
}

/* Plug fake port @port in (@on 1) or out (@on 0). */
static inline int sim_port_present(int port, int on)
{
	char cmd[16];
	ssize_t n;

	snprintf(cmd, sizeof(cmd), "%d %d\n", port, on);
	n = write_file(SIM_DEBUGFS "/port_present", cmd, strlen(cmd));
	return n < 0 ? (int)n : 0;
}

/* Change the line speed of a tty opened with sim_tty_open(). */
static inline int tty_set_speed(int fd, speed_t speed)
{
	struct termios tio;

	if (tcgetattr(fd, &tio) < 0 || cfsetspeed(&tio, speed) < 0 ||
	    tcsetattr(fd, TCSANOW, &tio) < 0)
		return -errno;
	return 0;
}

/*
 * The id of the gpsphc device attached to tty @tty ("ttyGPSSIM0"), from
 * /sys/class/gpsphc/gpsphc<id>/tty, or -ENOENT.
 */
static inline int gpsphc_find(const char *tty)
{
	char path[512], buf[64], want[72];
	struct dirent *de;
	int id = -ENOENT;
	DIR *d;

	snprintf(want, sizeof(want), "%s\n", tty);
	d = opendir(GPSPHC_CLASS);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "gpsphc", 6))
			continue;
		snprintf(path, sizeof(path), GPSPHC_CLASS "/%s/tty", de->d_name);
		if (read_file(path, buf, sizeof(buf)) > 0 && !strcmp(buf, want)) {
			id = atoi(de->d_name + 6);
			break;
		}
	}
	closedir(d);
	return id;
}

/* Read attribute @attr ("edge", "statistics/sentences") of device @id. */
static inline int gpsphc_attr_get(int id, const char *attr, char *buf, size_t size)
{
	char path[256];

	snprintf(path, sizeof(path), GPSPHC_CLASS "/gpsphc%d/%s", id, attr);
	return read_file(path, buf, size);
}

/* Write @val to attribute @attr of device @id in one write(): 0 or -errno. */
static inline int gpsphc_attr_set(int id, const char *attr, const char *val)
{
	char path[256];
	ssize_t n;

	snprintf(path, sizeof(path), GPSPHC_CLASS "/gpsphc%d/%s", id, attr);
	n = write_file(path, val, strlen(val));
	return n < 0 ? (int)n : n == (ssize_t)strlen(val) ? 0 : -EIO;
}

/*
 * The counters in statistics/, in the order of enum gpsphc_stats_attrs
 * (GPSPHC_A_STATS_SENTENCES is index 0).
 */
#define GPSPHC_NSTATS 15
static const char *const gpsphc_stat_names[GPSPHC_NSTATS] = {
	"sentences", "csum_ok", "csum_missing", "csum_bad", "overlong",
	"truncated", "invalid", "flag_aborts", "flag_bytes", "noise_bytes",
	"binary_frames", "binary_bad", "pps_edges", "pps_missed",
	"events_dropped",
};

enum gpsphc_stat {
	ST_SENTENCES, ST_CSUM_OK, ST_CSUM_MISSING, ST_CSUM_BAD, ST_OVERLONG,
	ST_TRUNCATED, ST_INVALID, ST_FLAG_ABORTS, ST_FLAG_BYTES, ST_NOISE_BYTES,
	ST_BINARY_FRAMES, ST_BINARY_BAD, ST_PPS_EDGES, ST_PPS_MISSED,
	ST_EVENTS_DROPPED,
};

/* Read every counter of device @id; 0, or -errno of the first that failed. */
static inline int gpsphc_stats(int id, unsigned long long st[GPSPHC_NSTATS])
{
	char attr[64], buf[32], *end;
	int i, n;

	for (i = 0; i < GPSPHC_NSTATS; i++) {
		snprintf(attr, sizeof(attr), "statistics/%s", gpsphc_stat_names[i]);
		n = gpsphc_attr_get(id, attr, buf, sizeof(buf));
		if (n < 0)
			return n;
		errno = 0;
		st[i] = strtoull(buf, &end, 10);
		if (errno || end == buf || strcmp(end, "\n"))
			return -EINVAL;
	}
	return 0;
}

/* N of /dev/ppsN of device @id (its pps_device file holds "ppsN"), or -errno. */
static inline int gpsphc_pps_index(int id)
{
	char buf[32];
	int n = gpsphc_attr_get(id, "pps_device", buf, sizeof(buf));

	if (n < 0)
		return n;
	if (strncmp(buf, "pps", 3) || buf[3] < '0' || buf[3] > '9')
		return -EINVAL;
	return atoi(buf + 3);
}

/*
 * The last events of the PPS source open on @fd, without waiting (a zero
 * timeout): 0, or -errno and *@info zeroed.
 */
static inline int pps_fetch(int fd, struct pps_kinfo *info)
{
	struct pps_fdata fd_data;
	int ret;

	memset(&fd_data, 0, sizeof(fd_data));
	ret = ioctl(fd, PPS_FETCH, &fd_data) < 0 ? -errno : 0;
	*info = fd_data.info;
	return ret;
}

static inline long long pps_ktime_ns(const struct pps_ktime *t)
{
	return t->sec * 1000000000LL + t->nsec;
}

static inline long long clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Stop the fake port's pulse generator and reset its settings. */
static inline void sim_pulse_reset(int port)
{
	sim_set(port, "pulse_enable", "0");
	sim_set(port, "pulse_ppb", "0");
	sim_set(port, "pulse_jitter_ns", "0");
	sim_set(port, "pulse_width_ms", "100");
	sim_set(port, "pulse_phase_ms", "0");
	sim_set(port, "pulse_miss", "\n");
	sim_set(port, "pulse_spike_ns", "0");
	sim_set(port, "pulse_spike_every", "0");
	sim_set(port, "pulse_seed", "1");
}

/* Active bytes of slab cache @name from /proc/slabinfo, or -1. */
static inline long long slab_cache_bytes(const char *name)
{
	char line[512], n[64];
	long long bytes = -1;
	long act, num, sz;
	FILE *f;

	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld %ld %ld", n, &act, &num, &sz) == 4 &&
		    !strcmp(n, name)) {
			bytes = (long long)act * sz;
			break;
		}
	fclose(f);
	return bytes;
}

/* ---- the module ----------------------------------------------------------- */

/* Where the guest keeps gpsphc.ko (GPSPHC_KO overrides). */
static inline const char *gpsphc_ko_path(void)
{
	const char *p = getenv("GPSPHC_KO");

	return p ? p : "/lib/gpsphc/gpsphc.ko";
}

/* finit_module() of the module file @path with @params: 0 or -errno. */
static inline int module_load(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

/* delete_module(@name) as rmmod does it (never forced): 0 or -errno. */
static inline int module_unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

/* finit_module() of gpsphc.ko with @params: 0 or -errno. */
static inline int gpsphc_module_load(const char *params)
{
	return module_load(gpsphc_ko_path(), params);
}

static inline int gpsphc_module_unload(void)
{
	return module_unload("gpsphc");
}

static inline bool gpsphc_module_loaded(void)
{
	return access("/sys/module/gpsphc", F_OK) == 0;
}

#endif /* GPSPHC_TEST_H */
