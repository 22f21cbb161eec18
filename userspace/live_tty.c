// SPDX-License-Identifier: GPL-2.0-only
/* live_tty.c - the tty live mode attaches and holds: see live_tty.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "live_tty.h"
#include "log.h"

/* Holders of a tty named in a refusal. */
#define LIVE_HOLDERS	3

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

int live_tty_attach(const struct live_opts *o, int fd, int *status,
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

void live_tty_keep_dcd(int fd)
{
	pthread_t keeper;

	if (pthread_create(&keeper, NULL, live_dcd_keeper, (void *)(intptr_t)fd) ||
	    pthread_detach(keeper))
		log_msg(LOG_WARNING, "cannot start the DCD interrupt keeper: PPS may be missed on 8250 UARTs");
}

void live_tty_detach(int fd)
{
	int ld = N_TTY;

	ioctl(fd, TIOCSETD, &ld);
}
