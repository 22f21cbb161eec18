// SPDX-License-Identifier: GPL-2.0-only
/* replay.c - read and write captures.  See replay.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "nmea.h"
#include "replay.h"

static char *skip_blank(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static int bad_line(const char *name, unsigned long n, const char *why)
{
	log_msg(LOG_ERR, "%s:%lu: %s; expected \"S <ns> <sentence>\", \"P <ns>\" or \"# comment\" (see gpsphcd(8))",
		name, n, why);
	return -1;
}

int replay_run(FILE *in, const char *name, struct pipeline *p)
{
	char *line = NULL, *q, *end;
	size_t cap = 0;
	ssize_t len;
	unsigned long n = 0;
	int64_t last = INT64_MIN, t;
	int ret = 0;

	while ((len = getline(&line, &cap, in)) >= 0) {
		n++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' ||
			       line[len - 1] == ' ' || line[len - 1] == '\t'))
			line[--len] = '\0';
		q = skip_blank(line);
		if (*q == '\0' || *q == '#')
			continue;
		if ((*q != 'S' && *q != 'P') || (q[1] != ' ' && q[1] != '\t')) {
			ret = bad_line(name, n, "unknown event type");
			break;
		}
		errno = 0;
		t = strtoll(skip_blank(q + 2), &end, 10);
		if (errno || end == skip_blank(q + 2) ||
		    (*end != '\0' && *end != ' ' && *end != '\t')) {
			ret = bad_line(name, n, "timestamp is not a decimal number of nanoseconds");
			break;
		}
		if (t < last) {
			ret = bad_line(name, n, "timestamp goes backwards");
			break;
		}
		last = t;
		end = skip_blank(end);
		if (*q == 'P') {
			if (*end) {
				ret = bad_line(name, n, "text after a PPS timestamp");
				break;
			}
			pipeline_edge(p, t);
		} else {
			if (!*end) {
				ret = bad_line(name, n, "sentence missing");
				break;
			}
			size_t slen = strlen(end);

			pipeline_sentence(p, t, end, slen,
					  nmea_checksum_check(end, slen));
		}
	}
	if (!ret && ferror(in)) {
		log_msg(LOG_ERR, "reading %s: %s", name,
			strerror(errno));
		ret = -1;
	}
	pipeline_flush(p);
	free(line);
	return ret;
}

int record_edge(FILE *out, int64_t t_ns)
{
	return fprintf(out, "P %" PRId64 "\n", t_ns) < 0 ? -1 : 0;
}

int record_sentence(FILE *out, int64_t t_ns, const char *s, size_t len)
{
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	return fprintf(out, "S %" PRId64 " %.*s\n", t_ns, (int)len, s) < 0 ?
	       -1 : 0;
}
