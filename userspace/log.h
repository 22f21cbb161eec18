/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * log.h - gpsphcd's messages on stderr, each with a syslog priority. When
 * stderr is the journal (systemd sets $JOURNAL_STREAM to its device and
 * inode), each line starts with sd-daemon.h's "<N>" prefix, which journald
 * turns into the entry's priority; elsewhere the line is as it always was,
 * "gpsphcd: ...". -q keeps warnings and errors, -v adds debug messages.
 */
#ifndef GPSPHCD_LOG_H
#define GPSPHCD_LOG_H

#include <stdbool.h>
#include <syslog.h>	/* LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG */

/* Messages above @max_prio (e.g. LOG_INFO) are dropped. */
void log_setup(int max_prio);

/* Would a message of @prio be written? */
bool log_enabled(int prio);

/* One line "gpsphcd: <message>" of priority @prio (no '\n' in @fmt). */
void log_msg(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* GPSPHCD_LOG_H */
