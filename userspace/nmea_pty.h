/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nmea_pty.h - the receiver's sentences republished on a pseudo-terminal
 * (gpsphc.conf(5), nmea_pty), for gpsd and other programs that want to
 * read NMEA from a tty: the receiver's own tty is gpsphcd's, and a second
 * reader there would take bytes from it, or replace its discipline.
 *
 * Each sentence gpsphcd gets from the kernel goes out as it came, '$' to
 * the last checksum digit, followed by CR LF. Writing never blocks the
 * live path: the master is non-blocking, and while the reader is behind
 * by more than NMEA_PTY_BACKLOG unread bytes (or reads nothing at all),
 * new sentences are dropped whole and counted. A reader never sees part
 * of a sentence: a write the kernel takes only in part is completed
 * before anything else is written.
 *
 * Under systemd the master goes to the service's file descriptor store
 * (FDNAME NMEA_PTY_FDNAME), as the receiver's tty does: a gpsphcd that
 * crashed or was restarted leaves the pty, and the reader on it, in
 * place, and the next one takes it over.
 *
 * The slave's name changes with every pty, so a symlink names it: created
 * as "<link>.tmp" and renamed over @link, so a reader that opens @link
 * always finds the live pty, also when a gpsphcd that took over from a
 * killed one makes a new pty. The slave takes the owner group and the
 * mode (at most rw-rw----) of the receiver's tty: whoever may read the
 * receiver (gpsd: group dialout on Debian) may read its sentences.
 */
#ifndef GPSPHCD_NMEA_PTY_H
#define GPSPHCD_NMEA_PTY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Unread bytes past which a sentence is dropped: a couple of seconds of a
 * busy receiver at 9600 baud, and well inside the kernel's buffer of a pty
 * (4 KiB read buffer, 8 KiB more in flight), so that a write is taken
 * whole. gpsd reads as the bytes come; a reader that stops gets at most
 * this much of old sentences when it reads again (gpsd flushes them when
 * it opens a tty).
 */
#define NMEA_PTY_BACKLOG	2048
/* A sentence and its CR LF: the kernel's sentence-max is 160 bytes. */
#define NMEA_PTY_SENTENCE_MAX	(160 + 2)
/* The master's name in systemd's file descriptor store. */
#define NMEA_PTY_FDNAME		"nmea_pty"

struct nmea_pty {
	int master;		/* non-blocking; -1 when closed */
	int slave;		/* held open: the pty keeps its settings and
				 * never hangs up while readers come and go */
	char *link;		/* the symlink, or NULL */
	char slave_name[64];	/* e.g. /dev/pts/3 */
	size_t backlog;		/* NMEA_PTY_BACKLOG; tests set less */
	/* The rest of a sentence the kernel took only in part. */
	char rest[NMEA_PTY_SENTENCE_MAX];
	size_t rest_len;
	unsigned long long written;	/* sentences handed on whole */
	unsigned long long dropped;	/* sentences dropped: reader behind */
	unsigned long long dropped_said;	/* dropped when last said */
	bool dropping;		/* an episode of drops, said at its start */
	bool published;		/* the link points here (nmea_pty_publish()) */
	bool stored;		/* the master is in systemd's fd store */
};

/*
 * Open a pty in raw mode and give its slave @tty_gid and @tty_mode's group
 * permissions; @link (NULL: none) is made by nmea_pty_publish(). 0, or -1
 * with the reason said; @p is then closed (nmea_pty_close() is safe).
 */
int nmea_pty_open(struct nmea_pty *p, const char *link, gid_t tty_gid,
		  mode_t tty_mode);

/*
 * Point the link at the pty: once gpsphcd has the tty, not before, so
 * that a second gpsphcd refused on the same tty leaves the first one's
 * link alone. 0, or -1 with the reason said (the pty stays; sentences
 * still go to it).
 */
int nmea_pty_publish(struct nmea_pty *p);

/*
 * Hand on one sentence, @len bytes from '$' or '!' without CR LF (at most
 * NMEA_PTY_SENTENCE_MAX - 2): 1 written, 0 dropped (reader behind), -1 on
 * an error of the pty (said once; later sentences are dropped).
 */
int nmea_pty_write(struct nmea_pty *p, const char *s, size_t len);

/*
 * Close the pty, and remove the symlink if it still points at it and the
 * pty is not kept in the fd store for the next gpsphcd.
 */
void nmea_pty_close(struct nmea_pty *p);

#endif /* GPSPHCD_NMEA_PTY_H */
