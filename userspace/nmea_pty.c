// SPDX-License-Identifier: GPL-2.0-only
/* nmea_pty.c - the sentences on a pseudo-terminal: see nmea_pty.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "log.h"
#include "nmea_pty.h"

/* Point @link at @target: a new symlink renamed over the old one. */
static int nmea_pty_link(const char *link, const char *target)
{
	char tmp[PATH_MAX];

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", link) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	unlink(tmp);
	if (symlink(target, tmp))
		return -1;
	if (rename(tmp, link)) {
		int e = errno;

		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

/*
 * The pty master a gpsphcd before this one left in systemd's fd store
 * (FDNAME NMEA_PTY_FDNAME), or -1. The environment is left for
 * live_sd_stored_tty() (live_sd.c), which leaves this one alone.
 */
static int nmea_pty_stored(void)
{
	char **names = NULL;
	int n, i, fd = -1, ptn;

	n = sd_listen_fds_with_names(0, &names);
	for (i = 0; i < n; i++)
		if (fd < 0 && names && names[i] &&
		    !strcmp(names[i], NMEA_PTY_FDNAME) &&
		    !ioctl(SD_LISTEN_FDS_START + i, TIOCGPTN, &ptn))
			fd = SD_LISTEN_FDS_START + i;
	for (i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
	return fd;
}

int nmea_pty_open(struct nmea_pty *p, const char *link, gid_t tty_gid,
		  mode_t tty_mode)
{
	struct termios tio;
	const char *what;

	*p = (struct nmea_pty){ .master = -1, .slave = -1,
				.backlog = NMEA_PTY_BACKLOG };
	/*
	 * Crashed or restarted, gpsphcd finds its pty in the fd store, and
	 * gpsd, which holds the slave, never notices: a new pty would hang
	 * gpsd's up, and gpsd 3.22 gives a device up after one failed
	 * reopen.
	 */
	p->master = nmea_pty_stored();
	p->stored = p->master >= 0;
	what = "cannot open a pseudo-terminal (/dev/ptmx)";
	if (!p->stored)
		p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->master < 0 || grantpt(p->master) || unlockpt(p->master) ||
	    ptsname_r(p->master, p->slave_name, sizeof(p->slave_name)))
		goto fail;
	if (!p->stored)
		p->stored = sd_pid_notify_with_fds(0, 0, "FDSTORE=1\nFDNAME=" NMEA_PTY_FDNAME,
						   &p->master, 1) > 0;
	what = "cannot make the pseudo-terminal's master non-blocking";
	if (fcntl(p->master, F_SETFL, fcntl(p->master, F_GETFL) | O_NONBLOCK))
		goto fail;
	what = "cannot open the pseudo-terminal";
	p->slave = open(p->slave_name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->slave < 0)
		goto fail;
	/* Bytes as they are: no CR LF translation, no echo back to us. */
	what = "cannot set raw mode on the pseudo-terminal";
	if (tcgetattr(p->slave, &tio))
		goto fail;
	cfmakeraw(&tio);
	tio.c_cflag |= CLOCAL | CREAD;
	if (tcsetattr(p->slave, TCSANOW, &tio))
		goto fail;
	what = "cannot set the pseudo-terminal's permissions";
	if (fchmod(p->slave, S_IRUSR | S_IWUSR | (tty_mode & (S_IRGRP | S_IWGRP))))
		goto fail;
	if (fchown(p->slave, (uid_t)-1, tty_gid))
		log_msg(LOG_WARNING, "cannot give %s the receiver's tty group %u (%s): only root and group tty may read the sentences there; run gpsphcd in that group (SupplementaryGroups= in gpsphcd@.service) or with CAP_CHOWN",
			p->slave_name, (unsigned int)tty_gid, strerror(errno));
	what = "out of memory";
	if (link && !(p->link = strdup(link)))
		goto fail;
	return 0;
fail:
	log_msg(LOG_ERR, "%s: %s; nmea_pty needs /dev/ptmx (DevicePolicy=closed allows it)",
		what, strerror(errno));
	nmea_pty_close(p);
	return -1;
}

int nmea_pty_publish(struct nmea_pty *p)
{
	if (p->link && nmea_pty_link(p->link, p->slave_name)) {
		log_msg(LOG_ERR, "cannot point %s at %s: %s; gpsd will not find the sentences there (in the service the link must be below /run/gpsphc/)",
			p->link, p->slave_name, strerror(errno));
		return -1;
	}
	p->published = true;
	log_msg(LOG_INFO, "the receiver's sentences are republished on %s%s%s",
		p->slave_name, p->link ? ", " : "", p->link ? p->link : "");
	return 0;
}

/* Whatever a reader wrote to the pty (gpsd's probes): read and dropped. */
static void nmea_pty_drain(struct nmea_pty *p)
{
	char buf[512];

	while (read(p->master, buf, sizeof(buf)) > 0)
		;
}

/* The reader is behind: the sentence is dropped, an episode said once. */
static int nmea_pty_drop(struct nmea_pty *p)
{
	p->dropped++;
	if (!p->dropping) {
		p->dropping = true;
		log_msg(LOG_NOTICE, "nobody reads %s (%s) or it is %u bytes behind: its sentences are dropped until it reads again",
			p->link ? p->link : p->slave_name, p->slave_name,
			(unsigned int)p->backlog);
	}
	return 0;
}

/* Hand on what the kernel took only in part before: true when all is. */
static bool nmea_pty_rest(struct nmea_pty *p)
{
	ssize_t w;

	if (!p->rest_len)
		return true;
	w = write(p->master, p->rest, p->rest_len);
	if (w <= 0)
		return false;
	p->rest_len -= (size_t)w;
	memmove(p->rest, p->rest + w, p->rest_len);
	return !p->rest_len;
}

int nmea_pty_write(struct nmea_pty *p, const char *s, size_t len)
{
	char buf[NMEA_PTY_SENTENCE_MAX];
	size_t n = len + 2;
	ssize_t w;
	int unread = 0;

	if (p->master < 0 || n > sizeof(buf))
		return p->master < 0 ? -1 : nmea_pty_drop(p);
	nmea_pty_drain(p);
	if (!nmea_pty_rest(p))
		return nmea_pty_drop(p);
	if (ioctl(p->slave, TIOCINQ, &unread) || unread < 0 ||
	    (size_t)unread + n > p->backlog)
		return nmea_pty_drop(p);
	memcpy(buf, s, len);
	memcpy(buf + len, "\r\n", 2);
	w = write(p->master, buf, n);
	if (w < 0 && (errno == EAGAIN || errno == EINTR))
		return nmea_pty_drop(p);
	if (w < 0) {
		log_msg(LOG_ERR, "writing to %s failed: %s; the sentences are no longer republished there",
			p->slave_name, strerror(errno));
		close(p->master);
		p->master = -1;
		return -1;
	}
	/* The rest goes first next time: a reader never sees half of it. */
	p->rest_len = n - (size_t)w;
	memcpy(p->rest, buf + w, p->rest_len);
	p->written++;
	if (p->dropping) {
		p->dropping = false;
		log_msg(LOG_INFO, "%s is read again: %llu sentences were dropped while it was not",
			p->link ? p->link : p->slave_name,
			p->dropped - p->dropped_said);
		p->dropped_said = p->dropped;
	}
	return 1;
}

void nmea_pty_close(struct nmea_pty *p)
{
	char target[sizeof(p->slave_name)];
	ssize_t n;

	/*
	 * Kept in the fd store, the pty outlives this process, and the link
	 * stays for the next one. Otherwise: a gpsphcd that took over may
	 * have pointed it at its own pty.
	 */
	if (p->link && p->published && !p->stored) {
		n = readlink(p->link, target, sizeof(target) - 1);
		if (n > 0 && (target[n] = '\0', !strcmp(target, p->slave_name)))
			unlink(p->link);
	}
	free(p->link);
	p->link = NULL;
	if (p->slave >= 0)
		close(p->slave);
	if (p->master >= 0)
		close(p->master);
	p->slave = p->master = -1;
	p->published = false;
	p->stored = false;
}
