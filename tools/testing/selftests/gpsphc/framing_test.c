// SPDX-License-Identifier: GPL-2.0
/*
 * Sentence framing in the kernel, end to end: bytes injected into the fake
 * UART come out as GPSPHC_CMD_SENTENCE_NTF events, byte-exact and in order,
 * while the same bytes stay readable from the tty; every malformed input is
 * counted under its own statistics/ counter (kmod/framer.h gives the rules)
 * and never swallows the good sentence that follows it.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>

#include "kselftest_harness.h"
#include "gpsphc_test.h"
#include "nl_helpers.h"

#define PORT		0
#define TTY_NAME	"ttyGPSSIM0"
#define BAUD		B115200
#define BYTE_NS		86806LL		/* 10 bits at 115200 baud */
#define STREAM_MAX	3500		/* below n_tty's 4 KiB buffer */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int rng_below(uint64_t *s, unsigned int n)
{
	return rng_next(s) % n;
}

static uint8_t nmea_xor(const char *p, size_t n)
{
	uint8_t x = 0;

	while (n--)
		x ^= (uint8_t)*p++;
	return x;
}

/*
 * Fill checksum placeholders in place: "*hh" becomes the right checksum in
 * upper case, "*xx" in lower case and "*bb" a wrong one (right ^ 1), each
 * over the bytes since the last '$' or '!'.
 */
static void fill_checksums(char *s, size_t len)
{
	static const char up[] = "0123456789ABCDEF", lo[] = "0123456789abcdef";
	size_t i, start = 0;

	for (i = 0; i < len; i++) {
		const char *hex;
		uint8_t x;

		if (s[i] == '$' || s[i] == '!')
			start = i;
		if (s[i] != '*' || i + 2 >= len + 0 || s[i + 1] != s[i + 2] ||
		    (s[i + 1] != 'h' && s[i + 1] != 'x' && s[i + 1] != 'b'))
			continue;
		x = nmea_xor(s + start + 1, i - start - 1);
		hex = s[i + 1] == 'x' ? lo : up;
		if (s[i + 1] == 'b')
			x ^= 1;
		s[i + 1] = hex[x >> 4];
		s[i + 2] = hex[x & 15];
	}
}

struct expect {
	char data[GPSPHC_SENTENCE_MAX + 1];
	int len;
	uint32_t csum;
	size_t start;		/* offset of '$'/'!' in the stream */
};

/* Wait for a whole read of @len bytes from the nonblocking tty @fd. */
static ssize_t tty_read_all(int fd, void *buf, size_t len, int timeout_ms)
{
	long long deadline = clock_ns(CLOCK_MONOTONIC) + timeout_ms * 1000000LL;
	size_t got = 0;

	while (got < len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left = deadline - clock_ns(CLOCK_MONOTONIC);
		ssize_t n;

		if (left <= 0)
			break;
		if (poll(&pfd, 1, left / 1000000 + 1) < 0 && errno != EINTR)
			return -errno;
		n = read(fd, (char *)buf + got, len - got);
		if (n > 0)
			got += n;
		else if (n == 0 || (errno != EAGAIN && errno != EINTR))
			return n ? -errno : (ssize_t)got;
	}
	return got;
}

FIXTURE(framing) {
	int fd;
	int id;
	struct nlt_sock nl;
	struct nlt_events *q;
	uint32_t next_seq;	/* sequence number of the next sentence */
};

static void attach_and_subscribe(struct __test_metadata *_metadata,
			  FIXTURE_DATA(framing) *self)
{
	int ret;

	self->nl.fd = -1;
	self->fd = sim_tty_open(PORT, O_NONBLOCK);
	ASSERT_LE(0, self->fd) TH_LOG("open /dev/" TTY_NAME ": %s", strerror(-self->fd));
	ASSERT_EQ(0, tty_set_speed(self->fd, BAUD));
	ASSERT_EQ(0, ldisc_set(self->fd, GPSPHC_LDISC));
	self->id = gpsphc_find(TTY_NAME);
	ASSERT_LE(0, self->id) TH_LOG("no gpsphc device for " TTY_NAME);
	ret = nlt_open(&self->nl);
	ASSERT_EQ(0, ret) TH_LOG("genl family " GPSPHC_GENL_NAME ": %s", strerror(-ret));
	ASSERT_EQ(0, nlt_subscribe(&self->nl));
	self->q = calloc(1, sizeof(*self->q));
	ASSERT_NE(NULL, self->q);
	/* A new attach starts a new framer: its first sentence is number 0. */
	self->next_seq = 0;
}

FIXTURE_SETUP(framing)
{
	attach_and_subscribe(_metadata, self);
}

static void detach_and_close(FIXTURE_DATA(framing) *self)
{
	if (self->q)
		nlt_events_free(self->q);
	free(self->q);
	nlt_close(&self->nl);
	if (self->fd >= 0) {
		ldisc_set(self->fd, N_TTY);
		close(self->fd);
	}
}

FIXTURE_TEARDOWN(framing)
{
	detach_and_close(self);
}

static bool got_n(struct nlt_events *q, void *arg)
{
	return nlt_events_count(q, GPSPHC_CMD_SENTENCE_NTF) >= *(int *)arg;
}

/*
 * Compare the received sentence events with @exp, exactly: same count,
 * same bytes, same checksum status, consecutive sequence numbers.
 */
static void check_sentences(struct __test_metadata *_metadata,
			    FIXTURE_DATA(framing) *self,
			    const struct expect *exp, int nexp)
{
	int i, k = 0;

	EXPECT_EQ(0, self->q->overruns);
	for (i = 0; i < self->q->n; i++) {
		const struct nlt_event *e = &self->q->ev[i];

		if (e->cmd != GPSPHC_CMD_SENTENCE_NTF)
			continue;
		EXPECT_TRUE(e->complete) TH_LOG("event %d lacks an attribute", k);
		EXPECT_EQ((uint32_t)self->id, e->dev_id);
		if (k >= nexp) {
			TH_LOG("unexpected extra sentence %d: '%.*s' csum %u",
			       k, e->len, e->data, e->csum);
			EXPECT_LT(k, nexp);
			k++;
			continue;
		}
		EXPECT_EQ(self->next_seq, e->seq) TH_LOG("sentence %d", k);
		self->next_seq = e->seq + 1;
		EXPECT_EQ(exp[k].len, e->len) TH_LOG("sentence %d: want '%s' got '%.*s'",
						    k, exp[k].data, e->len, e->data);
		if (exp[k].len == e->len)
			EXPECT_EQ(0, memcmp(exp[k].data, e->data, e->len))
				TH_LOG("sentence %d: want '%s' got '%.*s'",
				       k, exp[k].data, e->len, e->data);
		EXPECT_EQ(exp[k].csum, e->csum) TH_LOG("sentence %d '%s'", k, exp[k].data);
		k++;
	}
	EXPECT_EQ(nexp, k) TH_LOG("sentences received");
}

/* ---- random streams ------------------------------------------------------ */

FIXTURE_VARIANT(framing) {
	uint64_t seed;
	bool paced;	/* one chunk on the line at a time, at line rate */
};

FIXTURE_VARIANT_ADD(framing, paced_seed_1) { .seed = 1, .paced = true };
FIXTURE_VARIANT_ADD(framing, paced_seed_2) { .seed = 2, .paced = true };
FIXTURE_VARIANT_ADD(framing, paced_seed_3) { .seed = 3, .paced = true };
FIXTURE_VARIANT_ADD(framing, paced_seed_1000) { .seed = 1000, .paced = true };
FIXTURE_VARIANT_ADD(framing, paced_seed_99999) { .seed = 99999, .paced = true };
FIXTURE_VARIANT_ADD(framing, burst_seed_1) { .seed = 1 };
FIXTURE_VARIANT_ADD(framing, burst_seed_7) { .seed = 7 };
FIXTURE_VARIANT_ADD(framing, burst_seed_424242) { .seed = 424242 };

/*
 * A stream of sentences: mostly good ones of every length up to the
 * maximum, some with a bad or no checksum, '$' and '!' starts, CR LF, LF or
 * CR endings, checksums in either case. Returns the stream length.
 */
static size_t make_stream(uint64_t seed, char *buf, size_t size,
			  struct expect *exp, int *nexp, int max_exp)
{
	static const char body[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789,.-+ /:;=?@_";
	static const char *const ends[] = { "\r\n", "\r\n", "\r\n", "\n", "\r" };
	uint64_t s = seed;
	size_t len = 0;

	*nexp = 0;
	for (;;) {
		char sent[GPSPHC_SENTENCE_MAX + 8];
		unsigned int kind = rng_below(&s, 10), n, i;
		const char *end = ends[rng_below(&s, 5)];
		int sl;

		/* Every length from the shortest to exactly the maximum. */
		n = rng_below(&s, 8) ? 5 + rng_below(&s, 80) :
		    GPSPHC_SENTENCE_MAX - 4 - rng_below(&s, 3);
		sent[0] = rng_below(&s, 6) ? '$' : '!';
		for (i = 1; i <= n; i++)
			sent[i] = body[rng_below(&s, sizeof(body) - 1)];
		sl = n + 1;
		if (kind == 0) {
			exp[*nexp].csum = GPSPHC_CSUM_MISSING;
		} else {
			memcpy(sent + sl, kind == 1 ? "*bb" : kind == 2 ? "*xx" : "*hh", 3);
			sl += 3;
			exp[*nexp].csum = kind == 1 ? GPSPHC_CSUM_BAD : GPSPHC_CSUM_OK;
		}
		fill_checksums(sent, sl);
		if (len + sl + strlen(end) > size || *nexp == max_exp)
			break;
		memcpy(exp[*nexp].data, sent, sl);
		exp[*nexp].data[sl] = '\0';
		exp[*nexp].len = sl;
		exp[*nexp].start = len;
		(*nexp)++;
		memcpy(buf + len, sent, sl);
		len += sl;
		memcpy(buf + len, end, strlen(end));
		len += strlen(end);
	}
	/* A lone CR at the very end leaves nothing pending either way. */
	return len;
}

TEST_F_TIMEOUT(framing, random_chunks_exact, 120)
{
	static char stream[STREAM_MAX], back[STREAM_MAX];
	static struct expect exp[200];
	static long long after_raw[STREAM_MAX + 1], after_real[STREAM_MAX + 1];
	static size_t chunk_of[STREAM_MAX];
	long long t0_raw, t0_real, prev_raw, now;
	size_t len, off = 0;
	uint64_t s = variant->seed * 7919 + 1;
	unsigned long long st0[GPSPHC_NSTATS], st1[GPSPHC_NSTATS];
	int nexp, i, k = 0, nok = 0, nmiss = 0, nbad = 0;

	len = make_stream(variant->seed, stream, sizeof(stream), exp, &nexp, 200);
	ASSERT_LT(20, nexp);
	ASSERT_EQ(0, gpsphc_stats(self->id, st0));
	for (i = 0; i < GPSPHC_NSTATS; i++)
		ASSERT_EQ(0, st0[i]) TH_LOG("%s not 0 after attach", gpsphc_stat_names[i]);

	t0_real = clock_ns(CLOCK_REALTIME);
	t0_raw = prev_raw = clock_ns(CLOCK_MONOTONIC_RAW);
	after_raw[0] = t0_raw;
	after_real[0] = t0_real;
	while (off < len) {
		size_t n = 1 + rng_below(&s, 64);

		if (n > len - off)
			n = len - off;
		if (variant->paced) {
			/*
			 * The framer back-dates a chunk's bytes one character
			 * time each from the chunk's arrival: keep chunks at
			 * least that far apart (twice, for any rounding in the
			 * kernel's character time) so the estimate of every
			 * byte falls after the previous chunk was read back.
			 */
			do
				now = clock_ns(CLOCK_MONOTONIC_RAW);
			while (now < prev_raw + 2 * (long long)n * BYTE_NS &&
			       !usleep((prev_raw + 2 * n * BYTE_NS - now) / 1000 + 1));
		}
		ASSERT_EQ((ssize_t)n, sim_write(PORT, "rx", stream + off, n));
		for (i = 0; i < (int)n; i++)
			chunk_of[off + i] = k;
		if (variant->paced) {
			/* Read it back: the chunk is through the receive path. */
			ASSERT_EQ((ssize_t)n, tty_read_all(self->fd, back + off, n, 5000));
			/*
			 * Real first: the pacing above counts from the raw
			 * reading, so it also covers the real one.
			 */
			after_real[k + 1] = clock_ns(CLOCK_REALTIME);
			prev_raw = clock_ns(CLOCK_MONOTONIC_RAW);
			after_raw[k + 1] = prev_raw;
		}
		off += n;
		k++;
	}
	if (!variant->paced) {
		ASSERT_EQ((ssize_t)len, tty_read_all(self->fd, back, len, 10000));
	}
	EXPECT_EQ(0, memcmp(stream, back, len)) TH_LOG("tty read-back differs");
	/* Nothing more than what was sent. */
	EXPECT_EQ(-1, read(self->fd, back, 1));

	nlt_events_wait(&self->nl, self->q, self->id, got_n, &nexp, 10000);
	/* Duplicates would come right behind: give them a moment. */
	nlt_events_wait(&self->nl, self->q, self->id, NULL, NULL, 200);
	check_sentences(_metadata, self, exp, nexp);
	TH_LOG("%d sentences, %zu bytes in %d chunks", nexp, len, k);

	/* Timestamps: within the chunk of their start byte, non-decreasing. */
	now = clock_ns(CLOCK_MONOTONIC_RAW);
	for (i = 0, k = 0; i < self->q->n && k < nexp; i++) {
		const struct nlt_event *e = &self->q->ev[i];
		size_t c = chunk_of[exp[k].start];

		if (e->cmd != GPSPHC_CMD_SENTENCE_NTF)
			continue;
		if (variant->paced) {
			EXPECT_LT(after_raw[c], (long long)e->raw_ns)
				TH_LOG("sentence %d raw %llu before its chunk %zu", k,
				       (unsigned long long)e->raw_ns, c);
			EXPECT_GE(after_raw[c + 1], (long long)e->raw_ns)
				TH_LOG("sentence %d raw after its chunk was read", k);
			EXPECT_LT(after_real[c], (long long)e->real_ns);
			EXPECT_GE(after_real[c + 1], (long long)e->real_ns);
			if (k > 0)
				EXPECT_LE(self->q->ev[i - 1].raw_ns, e->raw_ns)
					TH_LOG("sentence %d raw time went back", k);
		} else {
			/* Back-dated at most the whole stream's line time. */
			EXPECT_LE(t0_raw - (long long)len * BYTE_NS * 2, (long long)e->raw_ns);
			EXPECT_GE(now, (long long)e->raw_ns);
		}
		k++;
	}

	for (i = 0; i < nexp; i++) {
		nok += exp[i].csum == GPSPHC_CSUM_OK;
		nmiss += exp[i].csum == GPSPHC_CSUM_MISSING;
		nbad += exp[i].csum == GPSPHC_CSUM_BAD;
	}
	ASSERT_EQ(0, gpsphc_stats(self->id, st1));
	EXPECT_EQ((unsigned long long)nexp, st1[ST_SENTENCES]);
	EXPECT_EQ((unsigned long long)nok, st1[ST_CSUM_OK]);
	EXPECT_EQ((unsigned long long)nmiss, st1[ST_CSUM_MISSING]);
	EXPECT_EQ((unsigned long long)nbad, st1[ST_CSUM_BAD]);
	for (i = ST_OVERLONG; i < GPSPHC_NSTATS; i++)
		EXPECT_EQ(0, st1[i]) TH_LOG("%s", gpsphc_stat_names[i]);
}

/* ---- malformed input, one case per variant -------------------------------- */

enum bin_fix { FIX_NONE, FIX_UBX, FIX_UBX_BAD, FIX_RTCM, FIX_RTCM_BAD };

FIXTURE(malformed) {
	FIXTURE_DATA(framing) f;
};

#define BYTES(s) .in = s, .in_len = sizeof(s) - 1
#define D(counter, n) [ST_##counter] = n

FIXTURE_VARIANT(malformed) {
	const char *in;		/* "*hh"/"*xx"/"*bb" filled, '#' -> pad 'A's */
	size_t in_len;
	int pad;
	const char *flags;	/* per byte: '.', 'B'reak, 'F'rame, 'P'arity, 'O'verrun */
	enum bin_fix fix;	/* binary frame to finish, at @fix_at */
	size_t fix_at;
	long long delta[GPSPHC_NSTATS];
	const char *out[2];	/* sentences delivered, same placeholders */
	uint32_t csum[2];
};

FIXTURE_VARIANT_ADD(malformed, csum_bad) {
	BYTES("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*bb\r\n"),
	.delta = { D(SENTENCES, 1), D(CSUM_BAD, 1) },
	.out = { "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*bb" },
	.csum = { GPSPHC_CSUM_BAD },
};

FIXTURE_VARIANT_ADD(malformed, csum_missing) {
	BYTES("$GPTXT,01,01,02,no checksum\r\n"),
	.delta = { D(SENTENCES, 1), D(CSUM_MISSING, 1) },
	.out = { "$GPTXT,01,01,02,no checksum" }, .csum = { GPSPHC_CSUM_MISSING },
};

FIXTURE_VARIANT_ADD(malformed, csum_one_digit) {
	BYTES("$GPTXT,01,01,02,short*4\r\n"),
	.delta = { D(SENTENCES, 1), D(CSUM_BAD, 1) },
	.out = { "$GPTXT,01,01,02,short*4" }, .csum = { GPSPHC_CSUM_BAD },
};

FIXTURE_VARIANT_ADD(malformed, csum_not_hex) {
	BYTES("$GPTXT,01,01,02,nothex*GG\r\n"),
	.delta = { D(SENTENCES, 1), D(CSUM_BAD, 1) },
	.out = { "$GPTXT,01,01,02,nothex*GG" }, .csum = { GPSPHC_CSUM_BAD },
};

FIXTURE_VARIANT_ADD(malformed, csum_three_digits) {
	BYTES("$GPTXT,01,01,02,three*hh0\r\n"),
	.delta = { D(SENTENCES, 1), D(CSUM_BAD, 1) },
	.out = { "$GPTXT,01,01,02,three*hh0" }, .csum = { GPSPHC_CSUM_BAD },
};

FIXTURE_VARIANT_ADD(malformed, star_not_at_end) {
	BYTES("$GPTXT,01,01,02,a*b,c\r\n"),
	.delta = { D(SENTENCES, 1), D(CSUM_BAD, 1) },
	.out = { "$GPTXT,01,01,02,a*b,c" }, .csum = { GPSPHC_CSUM_BAD },
};

/* Positive controls: lower-case checksum, LF-only and CR-only endings. */
FIXTURE_VARIANT_ADD(malformed, csum_lower_case_ok) {
	BYTES("$GPTXT,01,01,02,lower case*xx\r\n"),
	.delta = { D(SENTENCES, 1), D(CSUM_OK, 1) },
	.out = { "$GPTXT,01,01,02,lower case*xx" }, .csum = { GPSPHC_CSUM_OK },
};

FIXTURE_VARIANT_ADD(malformed, lf_and_cr_endings) {
	BYTES("$GPTXT,lf*hh\n!AIVDM,cr*hh\r"),
	.delta = { D(SENTENCES, 2), D(CSUM_OK, 2) },
	.out = { "$GPTXT,lf*hh", "!AIVDM,cr*hh" },
	.csum = { GPSPHC_CSUM_OK, GPSPHC_CSUM_OK },
};

FIXTURE_VARIANT_ADD(malformed, blank_lines) {
	BYTES("\r\n\r\n\n\n\r\r"),
};

/* 160 bytes from '$' to the checksum: the longest sentence taken. */
FIXTURE_VARIANT_ADD(malformed, longest_sentence_ok) {
	BYTES("$GPTXT,#*hh\r\n"), .pad = GPSPHC_SENTENCE_MAX - 10,
	.delta = { D(SENTENCES, 1), D(CSUM_OK, 1) },
	.out = { "$GPTXT,#*hh" }, .csum = { GPSPHC_CSUM_OK },
};

/* 161: the last checksum digit arrives with 160 bytes held. */
FIXTURE_VARIANT_ADD(malformed, overlong_by_one) {
	BYTES("$GPTXT,#*hh\r\n"), .pad = GPSPHC_SENTENCE_MAX - 9,
	.delta = { D(OVERLONG, 1) },
};

/* The rest of an overlong line is discarded, not counted as noise. */
FIXTURE_VARIANT_ADD(malformed, overlong_line) {
	BYTES("$GPTXT,#\r\n"), .pad = 400,
	.delta = { D(OVERLONG, 1) },
};

FIXTURE_VARIANT_ADD(malformed, noise_text) {
	BYTES("hello, world\r\n"),
	.delta = { D(NOISE_BYTES, 12) },
};

FIXTURE_VARIANT_ADD(malformed, noise_binary) {
	BYTES("\x01\x02\x7f\xff\x00\r\n"),
	.delta = { D(NOISE_BYTES, 5) },
};

/* Noise right before a start byte does not hurt the sentence. */
FIXTURE_VARIANT_ADD(malformed, noise_then_sentence) {
	BYTES("xyz$GPTXT,after noise*hh\r\n"),
	.delta = { D(NOISE_BYTES, 3), D(SENTENCES, 1), D(CSUM_OK, 1) },
	.out = { "$GPTXT,after noise*hh" }, .csum = { GPSPHC_CSUM_OK },
};

/* UBX-NAV-... with a whole NMEA sentence in its payload: skipped whole. */
#define UBX_WITH_SENTENCE \
	"\xb5\x62\x02\x13\x16\x00" "$GPGGA,in payload*hh\r\n" "\x00\x00"
FIXTURE_VARIANT_ADD(malformed, ubx_with_dollar) {
	BYTES(UBX_WITH_SENTENCE), .fix = FIX_UBX,
	.delta = { D(BINARY_FRAMES, 1) },
};

FIXTURE_VARIANT_ADD(malformed, ubx_bad_checksum) {
	BYTES(UBX_WITH_SENTENCE), .fix = FIX_UBX_BAD,
	.delta = { D(BINARY_BAD, 1) },
};

/* Declared length 8193 > 8192: not a frame, every byte is noise. */
FIXTURE_VARIANT_ADD(malformed, ubx_too_long_is_noise) {
	BYTES("\xb5\x62\x01\x07\x01\x20\r\n"),
	.delta = { D(NOISE_BYTES, 6) },
};

#define RTCM_WITH_SENTENCE \
	"\xd3\x00\x14" "$GPGGA,rtcm bod*hh\r\n" "\x00\x00\x00"
FIXTURE_VARIANT_ADD(malformed, rtcm3_with_dollar) {
	BYTES(RTCM_WITH_SENTENCE), .fix = FIX_RTCM,
	.delta = { D(BINARY_FRAMES, 1) },
};

FIXTURE_VARIANT_ADD(malformed, rtcm3_bad_crc) {
	BYTES(RTCM_WITH_SENTENCE), .fix = FIX_RTCM_BAD,
	.delta = { D(BINARY_BAD, 1) },
};

FIXTURE_VARIANT_ADD(malformed, rtcm3_reserved_bits_is_noise) {
	BYTES("\xd3\xfc\x05\r\n"),
	.delta = { D(NOISE_BYTES, 3) },
};

FIXTURE_VARIANT_ADD(malformed, dollar_inside_sentence) {
	BYTES("$GPGGA,123519,48$GPTXT,01,01,02,restart*hh\r\n"),
	.delta = { D(TRUNCATED, 1), D(SENTENCES, 1), D(CSUM_OK, 1) },
	.out = { "$GPTXT,01,01,02,restart*hh" }, .csum = { GPSPHC_CSUM_OK },
};

FIXTURE_VARIANT_ADD(malformed, bang_inside_sentence) {
	BYTES("$GPGGA,1235!AIVDM,1,1,,A,15M67FC000G,0*hh\r\n"),
	.delta = { D(TRUNCATED, 1), D(SENTENCES, 1), D(CSUM_OK, 1) },
	.out = { "!AIVDM,1,1,,A,15M67FC000G,0*hh" }, .csum = { GPSPHC_CSUM_OK },
};

/* A control byte aborts the sentence and is then noise itself. */
FIXTURE_VARIANT_ADD(malformed, invalid_byte) {
	BYTES("$GPTXT,01,01\x01\r\n"),
	.delta = { D(INVALID, 1), D(NOISE_BYTES, 1) },
};

/* ... or the start of a binary frame, which is then skipped whole. */
FIXTURE_VARIANT_ADD(malformed, invalid_byte_starts_ubx) {
	BYTES("$GPTXT,01,01" UBX_WITH_SENTENCE "\r\n"), .fix = FIX_UBX, .fix_at = 12,
	.delta = { D(INVALID, 1), D(BINARY_FRAMES, 1) },
};

FIXTURE_VARIANT_ADD(malformed, frame_error_in_sentence) {
	BYTES("$GPTXT,01,01,02,flagged*hh\r\n"),
	.flags = "..........F.................",
	.delta = { D(FLAG_ABORTS, 1), D(FLAG_BYTES, 1) },
};

FIXTURE_VARIANT_ADD(malformed, parity_error_on_star) {
	BYTES("$GPTXT,01,01,02,parity*hh\r\n"),
	.flags = "......................P....",
	.delta = { D(FLAG_ABORTS, 1), D(FLAG_BYTES, 1) },
};

FIXTURE_VARIANT_ADD(malformed, overrun_in_sentence) {
	BYTES("$GPTXT,01,01,02,overrun*hh\r\n"),
	.flags = "....O.......................",
	.delta = { D(FLAG_ABORTS, 1), D(FLAG_BYTES, 1) },
};

/* A flagged terminator does not terminate: the sentence is lost. */
FIXTURE_VARIANT_ADD(malformed, frame_error_on_cr) {
	BYTES("$GPTXT,01,01,02,flagged cr*hh\r\n"),
	.flags = ".............................F.",
	.delta = { D(FLAG_ABORTS, 1), D(FLAG_BYTES, 1) },
};

/* A break between sentences: a flagged byte, no sentence to abort. */
FIXTURE_VARIANT_ADD(malformed, break_between_sentences) {
	BYTES("\x00$GPTXT,after break*hh\r\n"),
	.flags = "B.......................",
	.delta = { D(FLAG_BYTES, 1), D(SENTENCES, 1), D(CSUM_OK, 1) },
	.out = { "$GPTXT,after break*hh" }, .csum = { GPSPHC_CSUM_OK },
};

/* A flagged last byte aborts the binary frame: neither good nor bad. */
FIXTURE_VARIANT_ADD(malformed, frame_error_in_ubx) {
	BYTES(UBX_WITH_SENTENCE), .fix = FIX_UBX,
	.flags = ".............................F",
	.delta = { D(FLAG_BYTES, 1) },
};

/* RTCM3's CRC-24Q over header and payload. */
static uint32_t crc24q(const uint8_t *p, size_t n)
{
	uint32_t crc = 0;
	int i;

	while (n--) {
		crc ^= (uint32_t)*p++ << 16;
		for (i = 0; i < 8; i++) {
			crc <<= 1;
			if (crc & 0x1000000)
				crc ^= 0x1864cfb;
		}
	}
	return crc & 0xffffff;
}

/* Expand '#' to @pad 'A's and fill the checksum placeholders. */
static size_t expand(const char *in, size_t len, int pad, char *out)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		if (in[i] == '#' && pad) {
			memset(out + n, 'A', pad);
			n += pad;
		} else {
			out[n++] = in[i];
		}
	}
	fill_checksums(out, n);
	return n;
}

static void fix_binary(char *buf, size_t at, enum bin_fix fix)
{
	uint8_t *f = (uint8_t *)buf + at;

	if (fix == FIX_UBX || fix == FIX_UBX_BAD) {
		size_t len = f[4] | f[5] << 8, i;
		uint8_t a = 0, b = 0;

		for (i = 2; i < 6 + len; i++) {
			a += f[i];
			b += a;
		}
		f[6 + len] = a;
		f[7 + len] = b ^ (fix == FIX_UBX_BAD);
	} else if (fix == FIX_RTCM || fix == FIX_RTCM_BAD) {
		size_t len = (f[1] & 3) << 8 | f[2];
		uint32_t crc = crc24q(f, 3 + len) ^ (fix == FIX_RTCM_BAD);

		f[3 + len] = crc >> 16;
		f[4 + len] = crc >> 8;
		f[5 + len] = crc;
	}
}

FIXTURE_SETUP(malformed)
{
	attach_and_subscribe(_metadata, &self->f);
}

FIXTURE_TEARDOWN(malformed)
{
	detach_and_close(&self->f);
}

/* Inject @n bytes (with @flags, or none) in chunks of @chunk bytes. */
static int inject(const char *buf, const char *flags, size_t n, size_t chunk)
{
	static const char fl[] = ".BFPO";
	char pairs[2 * 1024];
	size_t off, i;

	for (off = 0; off < n; off += chunk) {
		size_t c = chunk < n - off ? chunk : n - off;
		ssize_t r;

		if (!flags) {
			r = sim_write(PORT, "rx", buf + off, c);
			if (r != (ssize_t)c)
				return r < 0 ? r : -EIO;
			continue;
		}
		for (i = 0; i < c; i++) {
			pairs[2 * i] = strchr(fl, flags[off + i]) - fl;
			pairs[2 * i + 1] = buf[off + i];
		}
		r = sim_write(PORT, "rx_flags", pairs, 2 * c);
		if (r != (ssize_t)(2 * c))
			return r < 0 ? r : -EIO;
	}
	return 0;
}

static bool got_data(struct nlt_events *q, void *arg)
{
	const char *want = arg;
	int i;

	for (i = 0; i < q->n; i++)
		if (q->ev[i].cmd == GPSPHC_CMD_SENTENCE_NTF &&
		    q->ev[i].len == (int)strlen(want) &&
		    !memcmp(q->ev[i].data, want, q->ev[i].len))
			return true;
	return false;
}

/*
 * The case, then a good sentence: exactly the case's counters move (and
 * the good sentence's), exactly the case's sentences and the good one are
 * delivered, and the tty reads back every byte. Once in a single chunk and
 * once a byte at a time, so no state is lost between chunks.
 */
TEST_F_TIMEOUT(malformed, counted_and_next_delivered, 60)
{
	FIXTURE_DATA(framing) *f = &self->f;
	static char in[2048], back[2048];
	struct expect exp[3];
	int pass, i, nexp;
	size_t len;

	ASSERT_LT(variant->in_len + variant->pad, sizeof(in) - 64);
	len = expand(variant->in, variant->in_len, variant->pad, in);
	if (variant->fix)
		fix_binary(in, variant->fix_at, variant->fix);
	if (variant->flags)
		ASSERT_EQ(variant->in_len, strlen(variant->flags));

	for (pass = 0; pass < 2; pass++) {
		unsigned long long st0[GPSPHC_NSTATS], st1[GPSPHC_NSTATS];
		char good[64];
		size_t glen, chunk = pass ? 1 : len;
		long long deadline;
		bool match = false;

		glen = snprintf(good, sizeof(good), "$GPTXT,01,01,02,next %d*hh\r\n", pass);
		fill_checksums(good, glen);
		nexp = 0;
		for (i = 0; i < 2 && variant->out[i]; i++, nexp++) {
			exp[i].len = expand(variant->out[i], strlen(variant->out[i]),
					    variant->pad, exp[i].data);
			exp[i].data[exp[i].len] = '\0';
			exp[i].csum = variant->csum[i];
		}
		memcpy(exp[nexp].data, good, glen - 2);
		exp[nexp].data[glen - 2] = '\0';
		exp[nexp].len = glen - 2;
		exp[nexp].csum = GPSPHC_CSUM_OK;
		nexp++;

		ASSERT_EQ(0, gpsphc_stats(f->id, st0));
		nlt_events_clear(f->q);
		ASSERT_EQ(0, inject(in, variant->flags, len, chunk));
		ASSERT_EQ(0, inject(good, NULL, glen, glen));

		nlt_events_wait(&f->nl, f->q, f->id, got_data, exp[nexp - 1].data, 5000);
		ASSERT_EQ((ssize_t)(len + glen),
			  tty_read_all(f->fd, back, len + glen, 5000));
		EXPECT_EQ(0, memcmp(in, back, len)) TH_LOG("pass %d: tty read-back", pass);
		EXPECT_EQ(0, memcmp(good, back + len, glen));
		nlt_events_wait(&f->nl, f->q, f->id, NULL, NULL, 100);
		check_sentences(_metadata, f, exp, nexp);

		/* The counters settle once the receive path is done. */
		deadline = clock_ns(CLOCK_MONOTONIC) + 2000000000LL;
		do {
			ASSERT_EQ(0, gpsphc_stats(f->id, st1));
			match = true;
			for (i = 0; i < GPSPHC_NSTATS; i++) {
				long long want = variant->delta[i] +
					(i == ST_SENTENCES || i == ST_CSUM_OK);

				match &= (long long)(st1[i] - st0[i]) == want;
			}
		} while (!match && clock_ns(CLOCK_MONOTONIC) < deadline &&
			 !usleep(10000));
		for (i = 0; i < GPSPHC_NSTATS; i++) {
			long long want = variant->delta[i] +
				(i == ST_SENTENCES || i == ST_CSUM_OK);

			EXPECT_EQ(want, (long long)(st1[i] - st0[i]))
				TH_LOG("pass %d (chunks of %zu): %s", pass, chunk,
				       gpsphc_stat_names[i]);
		}
		EXPECT_EQ(st1[ST_SENTENCES], st1[ST_CSUM_OK] + st1[ST_CSUM_MISSING] +
					     st1[ST_CSUM_BAD]);
	}
}

TEST_HARNESS_MAIN
