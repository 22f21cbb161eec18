// SPDX-License-Identifier: GPL-2.0-only
/* replay.c - read and write captures.  See replay.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "nmea.h"
#include "replay.h"
#include "timeconv.h"

static char *skip_blank(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static int bad_line(const char *name, unsigned long n, const char *why)
{
	log_msg(LOG_ERR, "%s:%lu: %s; expected \"S <ns> [<second>|-] <sentence>\", \"P <ns> [<second>|-]\" or \"# comment\" (see gpsphcd(8))",
		name, n, why);
	return -1;
}

/*
 * What the kernel counted, for a capture line that does not say: its
 * rules for a steady receiver. Every on-time edge starts a second; a
 * sentence with a good checksum does when it began at least
 * GPSPHC_SENTENCE_GAP_MS after the previous good one (or is the first),
 * while no edge came for GPSPHC_COARSE_AFTER_S or none ever did. Seconds
 * are numbered by their distance from the first input counted. Sequence
 * numbers count the lines of each kind.
 */
struct replay_count {
	bool have_first, have_pps, have_good;
	int64_t first_ns, pps_ns, good_ns;
	uint32_t pps_seq, sent_seq;
};

static void count_second(struct replay_count *c, struct pp_input *in)
{
	if (!c->have_first) {
		c->have_first = true;
		c->first_ns = in->t_ns;
	}
	in->counted = true;
	in->second = floor_div(in->t_ns - c->first_ns + NS_PER_SEC / 2,
			       NS_PER_SEC);
}

static void count_edge(struct replay_count *c, struct pp_input *in)
{
	count_second(c, in);
	c->have_pps = true;
	c->pps_ns = in->t_ns;
}

static void count_sentence(struct replay_count *c, struct pp_input *in,
			   int csum)
{
	bool gap = !c->have_good ||
		   in->t_ns - c->good_ns >= GPSPHC_SENTENCE_GAP_MS * NS_PER_MS;

	if (csum != NMEA_OK)
		return;
	c->have_good = true;
	c->good_ns = in->t_ns;
	if (gap && (!c->have_pps ||
		    in->t_ns - c->pps_ns >= GPSPHC_COARSE_AFTER_S * NS_PER_SEC))
		count_second(c, in);
}

/*
 * The kernel's count recorded after a timestamp: a second's number, or
 * "-" for an input it did not count. 1 if there is one (@p moves past
 * it), 0 if not, -1 if it is malformed.
 */
static int parse_count(char **p, struct pp_input *in)
{
	char *q = *p, *end;

	if (*q == '-' && (q[1] == '\0' || q[1] == ' ' || q[1] == '\t')) {
		in->counted = false;
		*p = skip_blank(q + 1);
		return 1;
	}
	if (*q < '0' || *q > '9')
		return 0;
	errno = 0;
	in->second = strtoll(q, &end, 10);
	if (errno || in->second < 0 ||
	    (*end != '\0' && *end != ' ' && *end != '\t'))
		return -1;
	in->counted = true;
	*p = skip_blank(end);
	return 1;
}

int replay_run(FILE *in, const char *name, struct pipeline *p)
{
	struct replay_count count = { 0 };
	char *line = NULL, *q, *end;
	struct pp_input input;
	size_t cap = 0;
	ssize_t len;
	unsigned long n = 0;
	int64_t last = INT64_MIN, t;
	int ret = 0, said;

	while ((len = getline(&line, &cap, in)) >= 0) {
		n++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' ||
			       line[len - 1] == ' ' || line[len - 1] == '\t'))
			line[--len] = '\0';
		q = skip_blank(line);
		if (*q == '\0' || *q == '#')
			continue;
		/* the servo's status: for plots, nothing to replay */
		if (*q == 'V' && (q[1] == ' ' || q[1] == '\t'))
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
		input = (struct pp_input){ .t_ns = t };
		said = parse_count(&end, &input);
		if (said < 0) {
			ret = bad_line(name, n, "the kernel's count is not a second's number or \"-\"");
			break;
		}
		if (*q == 'P') {
			if (*end) {
				ret = bad_line(name, n, "text after a PPS timestamp and count");
				break;
			}
			input.seq = count.pps_seq++;
			if (!said)
				count_edge(&count, &input);
			pipeline_edge(p, &input);
		} else {
			if (!*end) {
				ret = bad_line(name, n, "sentence missing");
				break;
			}
			size_t slen = strlen(end);
			int csum = nmea_checksum_check(end, slen);

			input.seq = count.sent_seq++;
			if (!said)
				count_sentence(&count, &input, csum);
			pipeline_sentence(p, &input, end, slen, csum);
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

/* The kernel's count of an input, as the capture format writes it. */
static void format_count(char *buf, size_t size, const struct pp_input *in)
{
	if (in->counted)
		snprintf(buf, size, "%" PRId64, in->second);
	else
		snprintf(buf, size, "-");
}

int record_edge(FILE *out, const struct pp_input *in)
{
	char count[24];

	format_count(count, sizeof(count), in);
	return fprintf(out, "P %" PRId64 " %s\n", in->t_ns, count) < 0 ? -1 : 0;
}

int record_sentence(FILE *out, const struct pp_input *in, const char *s,
		    size_t len)
{
	char count[24];

	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	format_count(count, sizeof(count), in);
	return fprintf(out, "S %" PRId64 " %s %.*s\n", in->t_ns, count,
		       (int)len, s) < 0 ? -1 : 0;
}

int record_servo(FILE *out, int64_t t_ns, const char *state,
		 int64_t offset_ns, int64_t freq_ppb, uint64_t rms_ns,
		 uint64_t holdover_s)
{
	return fprintf(out, "V %" PRId64 " state=%s offset_ns=%" PRId64
		       " freq_ppb=%" PRId64 " rms_ns=%" PRIu64 " holdover_s=%" PRIu64 "\n",
		       t_ns, state, offset_ns, freq_ppb, rms_ns, holdover_s) < 0 ? -1 : 0;
}
