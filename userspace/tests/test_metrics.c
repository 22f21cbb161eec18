// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_metrics.c - lib/metrics.c, the Prometheus text exposition of
 * gpsphc devices: the exact text for a device (with and without gpsphcd's
 * own values), label values that need escaping, snprintf's contract when
 * the buffer is short, and, from random devices (a seed per run, printed;
 * GPSPHC_TEST_SEED repeats one), that the text always parses as the
 * exposition format: every sample after its family's TYPE, each family
 * in one group, names and label names well formed, label values escaped,
 * values numbers, no series twice.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#include "metrics.h"

/* A locked device with a value of its own in every field. */
static struct gp_metrics_dev dev_locked(const char *tty)
{
	struct gp_metrics_dev d = {
		.tty = tty, .id = 0, .ptp_index = 1, .pps_index = 2,
		.state = GPSPHC_SERVO_LOCKED, .offset_ns = -212, .rms_ns = 830,
		.freq_ppb = -12457, .tai_utc = 37, .leap = GPSPHC_LEAP_INSERT,
		.leap_utc = 1483228800, .holdover_s = 0,
		.off_phase_count = 2, .off_phase_ns = 300000000,
		.clock_class = -1,
	};
	unsigned int i;

	for (i = 0; i <= GPSPHC_A_SERVO_MAX; i++)
		d.servo[i] = 1000 + i;
	for (i = 0; i <= GPSPHC_A_STATS_MAX; i++)
		d.stats[i] = 100 * i;
	return d;
}

static const char locked_text[] =
	"# HELP gpsphc_device_info The device of a tty with the gpsphc discipline: its PTP clock and PPS source; always 1.\n"
	"# TYPE gpsphc_device_info gauge\n"
	"gpsphc_device_info{tty=\"ttyS0\",ptp=\"ptp1\",pps=\"pps2\"} 1\n"
	"# HELP gpsphc_servo_state The servo's state: 1 for the state it is in, 0 for the others.\n"
	"# TYPE gpsphc_servo_state gauge\n"
	"gpsphc_servo_state{tty=\"ttyS0\",state=\"unlocked\"} 0\n"
	"gpsphc_servo_state{tty=\"ttyS0\",state=\"locking\"} 0\n"
	"gpsphc_servo_state{tty=\"ttyS0\",state=\"locked\"} 1\n"
	"gpsphc_servo_state{tty=\"ttyS0\",state=\"holdover\"} 0\n"
	"gpsphc_servo_state{tty=\"ttyS0\",state=\"off\"} 0\n"
	"# HELP gpsphc_servo_coarse 1 while the servo follows sentence timing (no PPS, millisecond-grade), else 0.\n"
	"# TYPE gpsphc_servo_coarse gauge\n"
	"gpsphc_servo_coarse{tty=\"ttyS0\"} 0\n"
	"# HELP gpsphc_servo_offset_seconds The clock minus the TAI second of the last on-time edge.\n"
	"# TYPE gpsphc_servo_offset_seconds gauge\n"
	"gpsphc_servo_offset_seconds{tty=\"ttyS0\"} -0.000000212\n"
	"# HELP gpsphc_servo_offset_rms_seconds RMS of the accepted offsets since the last step or relock, over the last 64.\n"
	"# TYPE gpsphc_servo_offset_rms_seconds gauge\n"
	"gpsphc_servo_offset_rms_seconds{tty=\"ttyS0\"} 0.000000830\n"
	"# HELP gpsphc_servo_frequency_adjustment_ratio The clock's rate correction: positive when it runs faster than CLOCK_MONOTONIC_RAW.\n"
	"# TYPE gpsphc_servo_frequency_adjustment_ratio gauge\n"
	"gpsphc_servo_frequency_adjustment_ratio{tty=\"ttyS0\"} -0.000012457\n"
	"# HELP gpsphc_servo_holdover_seconds Seconds since the last on-time edge while in holdover, else 0.\n"
	"# TYPE gpsphc_servo_holdover_seconds gauge\n"
	"gpsphc_servo_holdover_seconds{tty=\"ttyS0\"} 0\n"
	"# HELP gpsphc_tai_offset_seconds TAI minus UTC as the servo applies it.\n"
	"# TYPE gpsphc_tai_offset_seconds gauge\n"
	"gpsphc_tai_offset_seconds{tty=\"ttyS0\"} 37\n"
	"# HELP gpsphc_leap_second_pending A leap second announced for the end of the UTC day: 1 inserted, -1 deleted, 0 none.\n"
	"# TYPE gpsphc_leap_second_pending gauge\n"
	"gpsphc_leap_second_pending{tty=\"ttyS0\"} 1\n"
	"# HELP gpsphc_leap_second_timestamp_seconds UTC (Unix seconds) of the midnight where the announced leap second applies; 0 if none.\n"
	"# TYPE gpsphc_leap_second_timestamp_seconds gauge\n"
	"gpsphc_leap_second_timestamp_seconds{tty=\"ttyS0\"} 1483228800\n"
	"# HELP gpsphc_off_phase_pulses Pulses in a row off the servo's phase (a steady new phase, not a lost PPS); 0 if none.\n"
	"# TYPE gpsphc_off_phase_pulses gauge\n"
	"gpsphc_off_phase_pulses{tty=\"ttyS0\"} 2\n"
	"# HELP gpsphc_off_phase_offset_seconds How late the last pulse off the servo's phase came; meaningful while gpsphc_off_phase_pulses is not 0.\n"
	"# TYPE gpsphc_off_phase_offset_seconds gauge\n"
	"gpsphc_off_phase_offset_seconds{tty=\"ttyS0\"} 0.300000000\n"
	"# HELP gpsphc_servo_labels_total Labels (the TAI second of an edge) the servo accepted.\n"
	"# TYPE gpsphc_servo_labels_total counter\n"
	"gpsphc_servo_labels_total{tty=\"ttyS0\"} 1010\n"
	"# HELP gpsphc_servo_labels_refused_total Labels refused: an edge that cannot be labelled (unknown, too old, not on time) or a second out of range.\n"
	"# TYPE gpsphc_servo_labels_refused_total counter\n"
	"gpsphc_servo_labels_refused_total{tty=\"ttyS0\"} 1011\n"
	"# HELP gpsphc_servo_disagreements_total Accepted labels that disagreed with the kernel's count of seconds.\n"
	"# TYPE gpsphc_servo_disagreements_total counter\n"
	"gpsphc_servo_disagreements_total{tty=\"ttyS0\"} 1012\n"
	"# HELP gpsphc_servo_steps_total Times the servo stepped the clock.\n"
	"# TYPE gpsphc_servo_steps_total counter\n"
	"gpsphc_servo_steps_total{tty=\"ttyS0\"} 1013\n"
	"# HELP gpsphc_servo_outliers_total On-time edges whose offset was rejected as an outlier.\n"
	"# TYPE gpsphc_servo_outliers_total counter\n"
	"gpsphc_servo_outliers_total{tty=\"ttyS0\"} 1014\n"
	"# HELP gpsphc_servo_spurious_total On-time edges not where the next second was due, not counted as seconds.\n"
	"# TYPE gpsphc_servo_spurious_total counter\n"
	"gpsphc_servo_spurious_total{tty=\"ttyS0\"} 1016\n"
	"# HELP gpsphc_servo_relocks_total Times outliers in a row made the servo believe the next edge and lock again.\n"
	"# TYPE gpsphc_servo_relocks_total counter\n"
	"gpsphc_servo_relocks_total{tty=\"ttyS0\"} 1017\n"
	"# HELP gpsphc_servo_holdovers_total Times the servo went into holdover (no input counted for 2.5 s).\n"
	"# TYPE gpsphc_servo_holdovers_total counter\n"
	"gpsphc_servo_holdovers_total{tty=\"ttyS0\"} 1018\n"
	"# HELP gpsphc_servo_rephases_total Times the servo took a steady new phase of the pulses.\n"
	"# TYPE gpsphc_servo_rephases_total counter\n"
	"gpsphc_servo_rephases_total{tty=\"ttyS0\"} 1021\n"
	"# HELP gpsphc_sentences_total Complete sentences, whatever their checksum.\n"
	"# TYPE gpsphc_sentences_total counter\n"
	"gpsphc_sentences_total{tty=\"ttyS0\"} 100\n"
	"# HELP gpsphc_csum_ok_total Sentences with a right checksum.\n"
	"# TYPE gpsphc_csum_ok_total counter\n"
	"gpsphc_csum_ok_total{tty=\"ttyS0\"} 200\n"
	"# HELP gpsphc_csum_missing_total Sentences without a checksum.\n"
	"# TYPE gpsphc_csum_missing_total counter\n"
	"gpsphc_csum_missing_total{tty=\"ttyS0\"} 300\n"
	"# HELP gpsphc_csum_bad_total Sentences with a wrong or malformed checksum.\n"
	"# TYPE gpsphc_csum_bad_total counter\n"
	"gpsphc_csum_bad_total{tty=\"ttyS0\"} 400\n"
	"# HELP gpsphc_overlong_total Sentences aborted for being too long.\n"
	"# TYPE gpsphc_overlong_total counter\n"
	"gpsphc_overlong_total{tty=\"ttyS0\"} 500\n"
	"# HELP gpsphc_truncated_total Sentences cut short by the start of the next one.\n"
	"# TYPE gpsphc_truncated_total counter\n"
	"gpsphc_truncated_total{tty=\"ttyS0\"} 600\n"
	"# HELP gpsphc_invalid_total Sentences aborted by a byte outside 0x20..0x7e other than CR and LF.\n"
	"# TYPE gpsphc_invalid_total counter\n"
	"gpsphc_invalid_total{tty=\"ttyS0\"} 700\n"
	"# HELP gpsphc_flag_aborts_total Sentences aborted by a line error (break, framing, parity, overrun).\n"
	"# TYPE gpsphc_flag_aborts_total counter\n"
	"gpsphc_flag_aborts_total{tty=\"ttyS0\"} 800\n"
	"# HELP gpsphc_flag_bytes_total Bytes received with an error flag.\n"
	"# TYPE gpsphc_flag_bytes_total counter\n"
	"gpsphc_flag_bytes_total{tty=\"ttyS0\"} 900\n"
	"# HELP gpsphc_noise_bytes_total Unflagged bytes outside any sentence and binary frame.\n"
	"# TYPE gpsphc_noise_bytes_total counter\n"
	"gpsphc_noise_bytes_total{tty=\"ttyS0\"} 1000\n"
	"# HELP gpsphc_binary_frames_total UBX and RTCM3 frames skipped whole with a good checksum.\n"
	"# TYPE gpsphc_binary_frames_total counter\n"
	"gpsphc_binary_frames_total{tty=\"ttyS0\"} 1100\n"
	"# HELP gpsphc_binary_bad_total UBX and RTCM3 frames skipped whole whose checksum failed.\n"
	"# TYPE gpsphc_binary_bad_total counter\n"
	"gpsphc_binary_bad_total{tty=\"ttyS0\"} 1200\n"
	"# HELP gpsphc_pps_edges_total DCD edges seen, both kinds.\n"
	"# TYPE gpsphc_pps_edges_total counter\n"
	"gpsphc_pps_edges_total{tty=\"ttyS0\"} 1300\n"
	"# HELP gpsphc_pps_missed_total PPS pulses the servo's count of seconds skipped (seconds with no edge of their own).\n"
	"# TYPE gpsphc_pps_missed_total counter\n"
	"gpsphc_pps_missed_total{tty=\"ttyS0\"} 1400\n"
	"# HELP gpsphc_events_dropped_total PPS edges not notified: the device's queue of edges for the notification worker was full.\n"
	"# TYPE gpsphc_events_dropped_total counter\n"
	"gpsphc_events_dropped_total{tty=\"ttyS0\"} 1500\n";

/* What gpsphcd adds: the last edge, its losses, ptp4l's clockClass. */
static const char daemon_text[] =
	"# HELP gpsphc_pps_last_edge_timestamp_seconds CLOCK_REALTIME (Unix seconds) of the last on-time PPS edge gpsphcd received; its age is time() minus this.\n"
	"# TYPE gpsphc_pps_last_edge_timestamp_seconds gauge\n"
	"gpsphc_pps_last_edge_timestamp_seconds{tty=\"ttyS0\"} 1767225600.000004200\n"
	"# HELP gpsphc_events_lost_total Kernel events gpsphcd missed (gaps in their sequence numbers), by kind, since it started.\n"
	"# TYPE gpsphc_events_lost_total counter\n"
	"gpsphc_events_lost_total{tty=\"ttyS0\",kind=\"pps\"} 3\n"
	"gpsphc_events_lost_total{tty=\"ttyS0\",kind=\"sentence\"} 5\n"
	"# HELP gpsphc_event_socket_overflows_total Times gpsphcd's netlink event socket overflowed (ENOBUFS), each losing an unknown number of events, since it started.\n"
	"# TYPE gpsphc_event_socket_overflows_total counter\n"
	"gpsphc_event_socket_overflows_total{tty=\"ttyS0\"} 1\n"
	"# HELP gpsphc_ptp4l_clock_class The clockClass ptp4l last acknowledged from gpsphcd (--ptp4l-socket).\n"
	"# TYPE gpsphc_ptp4l_clock_class gauge\n"
	"gpsphc_ptp4l_clock_class{tty=\"ttyS0\"} 6\n";

static char *render(const struct gp_metrics_dev *d, size_t n)
{
	size_t len = gp_metrics_render(NULL, 0, d, n);
	char *buf = malloc(len + 1);

	if (!buf || gp_metrics_render(buf, len + 1, d, n) != len)
		abort();
	return buf;
}

TEST(exact_text_of_a_device)
{
	struct gp_metrics_dev d = dev_locked("ttyS0");
	char *t = render(&d, 1);

	EXPECT_STREQ(locked_text, t);
	free(t);
}

TEST(exact_text_with_the_daemons_values)
{
	struct gp_metrics_dev d = dev_locked("ttyS0");
	char want[sizeof(locked_text) + sizeof(daemon_text)];
	char *t;

	d.has_daemon = true;
	d.last_edge_real_ns = 1767225600000004200LL;
	d.lost_edges = 3;
	d.lost_sentences = 5;
	d.overflows = 1;
	d.clock_class = 6;
	t = render(&d, 1);
	snprintf(want, sizeof(want), "%s%s", locked_text, daemon_text);
	EXPECT_STREQ(want, t);
	free(t);
	/* No edge yet, no ptp4l: their series are absent, not 0. */
	d.last_edge_real_ns = 0;
	d.clock_class = -1;
	t = render(&d, 1);
	EXPECT_EQ(NULL, strstr(t, "gpsphc_pps_last_edge_timestamp_seconds"));
	EXPECT_EQ(NULL, strstr(t, "gpsphc_ptp4l_clock_class"));
	EXPECT_NE(NULL, strstr(t, "gpsphc_events_lost_total{tty=\"ttyS0\",kind=\"pps\"} 3\n"));
	free(t);
}

TEST(extremes_and_unknown_values)
{
	struct gp_metrics_dev d = dev_locked("ttyS0");
	char *t;

	d.offset_ns = INT64_MIN;
	d.freq_ppb = 1;
	d.state = 99;		/* not known: every state 0 */
	d.leap = GPSPHC_LEAP_DELETE;
	d.servo[GPSPHC_A_SERVO_LABELS] = UINT64_MAX;
	t = render(&d, 1);
	EXPECT_NE(NULL, strstr(t, "gpsphc_servo_offset_seconds{tty=\"ttyS0\"} -9223372036.854775808\n"));
	EXPECT_NE(NULL, strstr(t, "gpsphc_servo_frequency_adjustment_ratio{tty=\"ttyS0\"} 0.000000001\n"));
	EXPECT_EQ(NULL, strstr(t, "gpsphc_servo_state{tty=\"ttyS0\",state=\"locked\"} 1"));
	EXPECT_NE(NULL, strstr(t, "gpsphc_leap_second_pending{tty=\"ttyS0\"} -1\n"));
	EXPECT_NE(NULL, strstr(t, "gpsphc_servo_labels_total{tty=\"ttyS0\"} 18446744073709551615\n"));
	free(t);
}

TEST(label_values_escaped_and_a_tty_once)
{
	struct gp_metrics_dev d[3] = { dev_locked("a\\b\"c\nd"), dev_locked("ttyUSB0"),
				       dev_locked("ttyUSB0") };
	char *t;

	d[2].offset_ns = 5;	/* a second ttyUSB0: left out */
	t = render(d, 3);
	EXPECT_NE(NULL, strstr(t, "gpsphc_servo_offset_seconds{tty=\"a\\\\b\\\"c\\nd\"} -0.000000212\n"
			       "gpsphc_servo_offset_seconds{tty=\"ttyUSB0\"} -0.000000212\n# HELP"));
	EXPECT_EQ(NULL, strstr(t, "0.000000005"));
	free(t);
}

TEST(short_buffers_as_snprintf)
{
	struct gp_metrics_dev d = dev_locked("ttyS0");
	size_t len = strlen(locked_text), sizes[] = { 1, 2, 100, 101, 1000 };
	char buf[1001];
	unsigned int i;

	EXPECT_EQ(len, gp_metrics_render(NULL, 0, &d, 1));
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		memset(buf, 'x', sizeof(buf));
		EXPECT_EQ(len, gp_metrics_render(buf, sizes[i], &d, 1));
		EXPECT_EQ(sizes[i] - 1, strlen(buf));
		EXPECT_EQ(0, strncmp(buf, locked_text, sizes[i] - 1));
	}
	EXPECT_EQ(0, gp_metrics_render(buf, sizeof(buf), NULL, 0));
	EXPECT_STREQ("", buf);
}

/* --- a checker of the text exposition format (version 0.0.4) --- */

#define MAX_FAMS	128
#define MAX_SERIES	4096

struct checker {
	char fam[MAX_FAMS][96];		/* TYPE seen, in order */
	char type[MAX_FAMS][16];
	bool help[MAX_FAMS];
	int nfam;
	char *series[MAX_SERIES];	/* "name{sorted labels}" */
	int nseries;
	char err[1100];
};

static bool name_ok(const char *s, size_t n, bool colon)
{
	size_t i;

	if (!n || isdigit((unsigned char)s[0]))
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    !(colon && s[i] == ':'))
			return false;
	return true;
}

static int fam_index(struct checker *c, const char *name, size_t n)
{
	int i;

	for (i = 0; i < c->nfam; i++)
		if (strlen(c->fam[i]) == n && !strncmp(c->fam[i], name, n))
			return i;
	return -1;
}

#define FAIL(...)	(snprintf(c->err, sizeof(c->err), __VA_ARGS__), false)

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One sample line. */
static bool check_sample(struct checker *c, const char *l)
{
	char *labels[16], key[1024], *end;
	const char *p = l, *name = l;
	size_t n, klen;
	int f, nl = 0, i;
	double v;

	while (*p && *p != '{' && *p != ' ')
		p++;
	n = (size_t)(p - name);
	if (!name_ok(name, n, true))
		return FAIL("bad metric name in \"%s\"", l);
	f = fam_index(c, name, n);
	if (f < 0)
		return FAIL("sample before its TYPE: \"%s\"", l);
	if (f != c->nfam - 1)
		return FAIL("family %s not in one group: \"%s\"", c->fam[f], l);
	if (*p == '{') {
		p++;
		while (*p != '}') {
			const char *ln = p;
			char *lab;
			size_t vlen = 0;

			while (*p && *p != '=')
				p++;
			if (!*p || !name_ok(ln, (size_t)(p - ln), false) ||
			    !strncmp(ln, "__", 2))
				return FAIL("bad label name in \"%s\"", l);
			if (p[1] != '"')
				return FAIL("label value not quoted in \"%s\"", l);
			lab = malloc(strlen(l) + 1);
			memcpy(lab, ln, (size_t)(p - ln) + 2);
			vlen = (size_t)(p - ln) + 2;
			for (p += 2; *p != '"'; p++) {
				if (!*p || *p == '\n') {
					free(lab);
					return FAIL("unterminated label value in \"%s\"", l);
				}
				if (*p == '\\') {
					if (p[1] != '\\' && p[1] != '"' && p[1] != 'n') {
						free(lab);
						return FAIL("bad escape in \"%s\"", l);
					}
					lab[vlen++] = *p++;
				}
				lab[vlen++] = *p;
			}
			lab[vlen++] = '"';
			lab[vlen] = '\0';
			for (i = 0; i < nl; i++)
				if (!strncmp(labels[i], lab, strcspn(lab, "=") + 1))
					return FAIL("label twice in \"%s\"", l);
			if (nl == 16)
				return FAIL("too many labels");
			labels[nl++] = lab;
			p++;
			if (*p == ',')
				p++;
			else if (*p != '}')
				return FAIL("junk after a label in \"%s\"", l);
		}
		p++;
	}
	if (*p++ != ' ')
		return FAIL("no value in \"%s\"", l);
	v = strtod(p, &end);
	if (end == p || *end)	/* a timestamp would be a second field: none allowed */
		return FAIL("value not a number in \"%s\"", l);
	if (!strcmp(c->type[f], "counter") && v < 0)
		return FAIL("negative counter \"%s\"", l);
	qsort(labels, (size_t)nl, sizeof(labels[0]), cmp_str);
	klen = (size_t)snprintf(key, sizeof(key), "%.*s{", (int)n, name);
	for (i = 0; i < nl; i++) {
		klen += (size_t)snprintf(key + klen, sizeof(key) - klen, "%s,", labels[i]);
		free(labels[i]);
	}
	for (i = 0; i < c->nseries; i++)
		if (!strcmp(c->series[i], key))
			return FAIL("series twice: %.200s", key);
	if (c->nseries == MAX_SERIES)
		return FAIL("too many series");
	c->series[c->nseries++] = strdup(key);
	return true;
}

/* The whole text: true, or false with c->err saying why. */
static bool check_exposition(struct checker *c, char *text)
{
	char *l, *save = NULL;
	int f;

	memset(c, 0, sizeof(*c));
	if (*text && text[strlen(text) - 1] != '\n')
		return FAIL("the text does not end with a newline");
	for (l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char name[96], word[16];

		if (!strncmp(l, "# HELP ", 7) || !strncmp(l, "# TYPE ", 7)) {
			size_t n = strcspn(l + 7, " ");

			if (!name_ok(l + 7, n, true) || n >= sizeof(name) || !l[7 + n])
				return FAIL("bad HELP/TYPE line \"%s\"", l);
			snprintf(name, sizeof(name), "%.*s", (int)n, l + 7);
			f = fam_index(c, name, n);
			if (l[2] == 'H') {
				if (f >= 0 && c->help[f])
					return FAIL("HELP twice for %s", name);
				if (strchr(l, '\\') && !strstr(l, "\\\\") && !strstr(l, "\\n"))
					return FAIL("bad escape in HELP \"%s\"", l);
				/* a HELP before its TYPE: the TYPE must follow at once */
				if (f < 0) {
					if (c->nfam == MAX_FAMS)
						return FAIL("too many families");
					strcpy(c->fam[c->nfam], name);
					c->type[c->nfam][0] = '\0';
					c->help[c->nfam++] = true;
				}
				continue;
			}
			snprintf(word, sizeof(word), "%s", l + 8 + n);
			if (strcmp(word, "counter") && strcmp(word, "gauge") &&
			    strcmp(word, "histogram") && strcmp(word, "summary") &&
			    strcmp(word, "untyped"))
				return FAIL("bad type in \"%s\"", l);
			if (f >= 0 && c->type[f][0])
				return FAIL("TYPE twice for %s", name);
			if (f >= 0 && f != c->nfam - 1)
				return FAIL("TYPE of %s away from its HELP", name);
			if (f < 0) {
				f = c->nfam++;
				strcpy(c->fam[f], name);
			}
			strcpy(c->type[f], word);
			continue;
		}
		if (l[0] == '#')
			continue;	/* a comment */
		if (!check_sample(c, l))
			return false;
	}
	for (f = 0; f < c->nfam; f++)
		if (!c->type[f][0])
			return FAIL("HELP of %s without a TYPE", c->fam[f]);
	return true;
}

static void checker_free(struct checker *c)
{
	int i;

	for (i = 0; i < c->nseries; i++)
		free(c->series[i]);
}

static uint64_t rnd_state;

static uint64_t rnd(void)
{
	/* splitmix64: a seed repeats a run exactly */
	uint64_t z = (rnd_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Mostly small values, sometimes the extremes. */
static uint64_t rnd_val(void)
{
	switch (rnd() % 4) {
	case 0:	return rnd() % 10;
	case 1:	return rnd();
	case 2:	return (uint64_t)INT64_MIN + rnd() % 3;
	default: return UINT64_MAX - rnd() % 3;
	}
}

TEST(random_devices_always_valid_exposition)
{
	static const char chars[] = "ttyS0AMA_\\\"\n{}=, #\xc3\xa9";
	const char *env = getenv("GPSPHC_TEST_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
	struct gp_metrics_dev d[4];
	char ttys[4][12];
	struct checker *c = malloc(sizeof(*c));
	unsigned int run, i, j, n;

	ASSERT_NE(NULL, c);
	rnd_state = seed;
	ksft_print_msg("seed %llu (GPSPHC_TEST_SEED=%llu repeats this run)\n",
		       (unsigned long long)seed, (unsigned long long)seed);
	for (run = 0; run < 3000; run++) {
		char *t;

		n = (unsigned int)(rnd() % 5);
		for (i = 0; i < n; i++) {
			unsigned int len = (unsigned int)(rnd() % 6);

			/* few characters: ttys repeat, and are left out */
			for (j = 0; j < len; j++)
				ttys[i][j] = chars[rnd() % (sizeof(chars) - 1)];
			ttys[i][len] = '\0';
			d[i] = (struct gp_metrics_dev){
				.tty = rnd() % 8 ? ttys[i] : NULL,
				.ptp_index = (uint32_t)rnd(), .pps_index = (uint32_t)rnd(),
				.state = (uint32_t)(rnd() % 8), .coarse = rnd() & 1,
				.offset_ns = (int64_t)rnd_val(), .rms_ns = rnd_val(),
				.freq_ppb = (int64_t)rnd_val(), .tai_utc = (uint32_t)rnd_val(),
				.leap = (uint32_t)(rnd() % 5), .leap_utc = rnd_val(),
				.holdover_s = rnd_val(),
				.off_phase_count = (uint32_t)rnd_val(),
				.off_phase_ns = (int64_t)rnd_val(),
				.has_daemon = rnd() & 1,
				.last_edge_real_ns = (int64_t)rnd_val(),
				.lost_edges = rnd_val(), .lost_sentences = rnd_val(),
				.overflows = rnd_val(),
				.clock_class = (int)(rnd() % 300) - 40,
			};
			for (j = 0; j <= GPSPHC_A_SERVO_MAX; j++)
				d[i].servo[j] = rnd_val();
			for (j = 0; j <= GPSPHC_A_STATS_MAX; j++)
				d[i].stats[j] = rnd_val();
		}
		t = render(d, n);
		if (!check_exposition(c, t)) {
			ksft_print_msg("run %u of seed %llu: %s\n", run,
				       (unsigned long long)seed, c->err);
			EXPECT_TRUE(false);
			free(t);
			checker_free(c);
			break;
		}
		checker_free(c);
		free(t);
	}
	free(c);
}

/* The checker itself catches what it is there for. */
TEST(checker_rejects_bad_text)
{
	static const char *const bad[] = {
		"x 1\n",					/* no TYPE */
		"# TYPE x gauge\nx{a=\"1\"} 1\nx{a=\"1\"} 2\n",	/* twice */
		"# TYPE x gauge\n# TYPE y gauge\ny 1\nx 1\n",	/* two groups */
		"# TYPE x gauge\nx{a=\"\\q\"} 1\n",		/* bad escape */
		"# TYPE x gauge\nx{a=\"b} 1\n",			/* unterminated */
		"# TYPE 1x gauge\n1x 1\n",			/* name */
		"# TYPE x gauge\nx{1a=\"b\"} 1\n",		/* label name */
		"# TYPE x gauge\nx one\n",			/* value */
		"# TYPE x gauge\nx 1 1700000000\n",		/* a timestamp */
		"# TYPE x counter\nx -1\n",			/* counter < 0 */
		"# TYPE x gauge\nx 1",				/* no newline */
	};
	struct checker *c = malloc(sizeof(*c));
	char buf[256];
	unsigned int i;

	ASSERT_NE(NULL, c);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf), "%s", bad[i]);
		EXPECT_FALSE(check_exposition(c, buf)) {
			TH_LOG("accepted: %s", bad[i]);
		}
		checker_free(c);
	}
	snprintf(buf, sizeof(buf), "# HELP x a \\\\ b\n# TYPE x gauge\nx{a=\"\\\"\",b=\"\\n\"} -1.5e-9\nx 2\n");
	EXPECT_TRUE(check_exposition(c, buf)) {
		TH_LOG("%s", c->err);
	}
	checker_free(c);
	free(c);
}

TEST_HARNESS_MAIN
