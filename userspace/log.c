// SPDX-License-Identifier: GPL-2.0-only
/* log.c - gpsphcd's messages with syslog priorities: see log.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

/* The daemon's one logging setting, fixed once options are read. */
static struct {
	int max_prio;
	bool journal;
} log_cfg = { .max_prio = LOG_INFO };

/* Is stderr the stream $JOURNAL_STREAM ("<dev>:<inode>") names? */
static bool log_to_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	int n = 0;

	if (!js || sscanf(js, "%llu:%llu%n", &dev, &ino, &n) != 2 || js[n] ||
	    fstat(STDERR_FILENO, &st))
		return false;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void log_setup(int max_prio)
{
	log_cfg.max_prio = max_prio;
	log_cfg.journal = log_to_journal();
}

bool log_enabled(int prio)
{
	return prio <= log_cfg.max_prio;
}

void log_msg(int prio, const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	int n = 0;

	if (!log_enabled(prio))
		return;
	/* The journal's priority prefix: "<3>" is sd-daemon.h's SD_ERR, ... */
	if (log_cfg.journal)
		n = snprintf(line, sizeof(line), "<%d>", prio & 7);
	n += snprintf(line + n, sizeof(line) - (size_t)n, "gpsphcd: ");
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	/* One write per line: lines of two threads never interleave. */
	fprintf(stderr, "%s\n", line);
}
