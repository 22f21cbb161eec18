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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#define GPSPHC_LDISC 29			/* N_DEVELOPMENT, the module default */
#define SIM_DEBUGFS "/sys/kernel/debug/gpsphc_sim"
#define GPSPHC_CLASS "/sys/class/gpsphc"

/* Write @len bytes to a control file of fake port @port in one write(). */
static inline ssize_t sim_write(int port, const char *file, const void *buf,
				size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), SIM_DEBUGFS "/ttyGPSSIM%d/%s", port, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
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

#endif /* GPSPHC_TEST_H */
