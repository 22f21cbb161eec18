/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A watch on the kernel log for the tests that say which case made the
 * kernel report a bug (explore_test, gpio_test).
 */
#ifndef GPSPHC_KMSG_WATCH_H
#define GPSPHC_KMSG_WATCH_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define KMSG_KEEP	8
#define KMSG_TRACE	16

/*
 * What the kernel logged since kmsg_watch_open(), scanned for the reports
 * that mean a kernel bug (the guest's init looks for the same ones at the
 * end of the run; this says which case caused them) or a misbehaving
 * interrupt. Read as it comes, so that a flood of "attached to" lines
 * cannot push a report out of the ring buffer before it is seen.
 */
struct kmsg_watch {
	int fd;
	long bad;		/* records that matched */
	long lost;		/* times records were overwritten unread */
	char line[KMSG_KEEP][240];
	/* the first report's task, work item and call trace */
	int ntrace;
	char trace[KMSG_TRACE][120];
};

static const char *const kmsg_bad_words[] = {
	"WARNING:", "BUG:", "Oops", "general protection", "scheduling while atomic",
	"sleeping function called", "UBSAN:", "detected stall", "soft lockup",
	"blocked for more than", "hung_task", "circular locking",
	"inconsistent lock state", "possible recursive locking",
	"suspicious RCU usage", "list_add corruption", "list_del corruption",
	"refcount_t:", "suspected memory leak", "Kernel panic",
	/* the interrupt core on a misbehaving interrupt (gpio_test) */
	"nobody cared", "Unbalanced enable", "genirq:",
};

/* Start watching from the end of the log: 0 or -errno. */
static inline int kmsg_watch_open(struct kmsg_watch *k)
{
	memset(k, 0, sizeof(*k));
	k->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->fd < 0)
		return -errno;
	lseek(k->fd, 0, SEEK_END);
	return 0;
}

/* Read every record logged since the last call. */
static inline void kmsg_watch_drain(struct kmsg_watch *k)
{
	char rec[2048];
	unsigned int i;

	while (k->fd >= 0) {
		ssize_t n = read(k->fd, rec, sizeof(rec) - 1);
		char *msg;

		if (n < 0 && errno == EPIPE) {
			k->lost++;
			continue;
		}
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		if (k->bad == 1 && k->ntrace < KMSG_TRACE &&
		    ((strstr(msg, "+0x") && !strstr(msg, " at ")) ||
		     strstr(msg, " Comm: ") || strstr(msg, "Workqueue: "))) {
			snprintf(k->trace[k->ntrace++], sizeof(k->trace[0]), "%.*s",
				 (int)strcspn(msg, "\n"), msg);
			continue;
		}
		for (i = 0; i < sizeof(kmsg_bad_words) / sizeof(kmsg_bad_words[0]); i++) {
			if (!strstr(msg, kmsg_bad_words[i]))
				continue;
			if (k->bad < KMSG_KEEP)
				snprintf(k->line[k->bad], sizeof(k->line[0]), "%.*s",
					 (int)strcspn(msg, "\n"), msg);
			k->bad++;
			break;
		}
	}
}

static inline void kmsg_watch_close(struct kmsg_watch *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

#endif /* GPSPHC_KMSG_WATCH_H */
