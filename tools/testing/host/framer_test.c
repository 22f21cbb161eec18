// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests for the gpsphc NMEA sentence framer (kmod/framer.c): exact
 * bytes, exact counters, exact timestamps.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "framer.h"

/* Per-byte flags as in include/linux/tty_flags.h */
#define TTY_NORMAL	0
#define TTY_BREAK	1
#define TTY_FRAME	2
#define TTY_PARITY	3
#define TTY_OVERRUN	4

#define T0		1000000000ULL	/* arrival of the first test byte */
#define BYTE_NS		86806ULL	/* 115200 baud, 10 bits a byte */

/* A string literal with its length, NUL excluded (binary bytes allowed) */
#define BYTES(s)	((const u8 *)(s)), (sizeof(s) - 1)

/* Feeds a string literal as one unflagged chunk stamped @ns */
#define FEED(f, s, ns)	gpsphc_framer_feed(f, (const u8 *)(s), NULL, \
					   sizeof(s) - 1, ns)

/* One emitted sentence, copied out of the callback */
struct got {
	u8 data[GPSPHC_FRAMER_MAX_LEN];
	u32 len;
	u32 seq;
	u64 start_ns;
	enum gpsphc_csum csum;
};

struct sink {
	struct got *v;
	size_t n;
	size_t cap;
};

static void collect(void *ctx, const struct gpsphc_sentence *s)
{
	struct sink *k = ctx;
	struct got *g;

	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 64;
		k->v = realloc(k->v, k->cap * sizeof(*k->v));
		if (!k->v)
			abort();
	}
	g = &k->v[k->n++];
	if (s->len > sizeof(g->data))
		abort();
	memcpy(g->data, s->data, s->len);
	g->len = s->len;
	g->seq = s->seq;
	g->start_ns = s->start_ns;
	g->csum = s->csum;
}

/* Emitted sentence @g holds exactly the C string @want */
static bool got_is(const struct got *g, const char *want)
{
	return g->len == strlen(want) && !memcmp(g->data, want, g->len);
}

/*
 * Feeds @len bytes as if they arrived back to back, the first at @t0:
 * each chunk is stamped with the arrival time of its last byte, so the
 * framer's back-dating must give every start byte its exact arrival.
 * @cuts lists the ascending chunk boundaries (offsets into @buf).
 */
static void feed_cut(struct gpsphc_framer *f, const u8 *buf, const u8 *flags,
		     size_t len, const size_t *cuts, size_t ncuts, u64 t0)
{
	size_t from = 0, i, to;

	for (i = 0; i <= ncuts; i++) {
		to = i < ncuts ? cuts[i] : len;
		gpsphc_framer_feed(f, buf + from, flags ? flags + from : NULL,
				   to - from, t0 + (to ? to - 1 : 0) * BYTE_NS);
		from = to;
	}
}

static void feed_one(struct gpsphc_framer *f, const u8 *buf, size_t len)
{
	feed_cut(f, buf, NULL, len, NULL, 0, T0);
}

#define EXPECT_COUNTERS(_want, _got) do {				\
	const struct gpsphc_framer_counters *w_ = (_want);		\
	const struct gpsphc_framer_counters *g_ = (_got);		\
	EXPECT_EQ(w_->sentences, g_->sentences);			\
	EXPECT_EQ(w_->csum_ok, g_->csum_ok);				\
	EXPECT_EQ(w_->csum_missing, g_->csum_missing);			\
	EXPECT_EQ(w_->csum_bad, g_->csum_bad);				\
	EXPECT_EQ(w_->overlong, g_->overlong);				\
	EXPECT_EQ(w_->truncated, g_->truncated);			\
	EXPECT_EQ(w_->invalid, g_->invalid);				\
	EXPECT_EQ(w_->flag_aborts, g_->flag_aborts);			\
	EXPECT_EQ(w_->flag_bytes, g_->flag_bytes);			\
	EXPECT_EQ(w_->noise_bytes, g_->noise_bytes);			\
	EXPECT_EQ(w_->binary_frames, g_->binary_frames);		\
	EXPECT_EQ(w_->binary_bad, g_->binary_bad);			\
} while (0)

/* xorshift64: a seeded PRNG so failures reproduce */
static u64 prng(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A growable byte buffer that remembers where each sentence starts */
struct stream {
	u8 *b;
	size_t n;
	size_t cap;
	size_t *start;	/* offset of each sentence's start byte */
	size_t *len;	/* its length without CR LF */
	size_t ns;
	size_t scap;
};

static void put(struct stream *s, const void *p, size_t n)
{
	while (s->n + n > s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->b = realloc(s->b, s->cap);
		if (!s->b)
			abort();
	}
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

/* Appends a sentence line (ending CR LF) and records it as expected */
static void put_line(struct stream *s, const u8 *line, size_t n)
{
	if (s->ns == s->scap) {
		s->scap = s->scap ? 2 * s->scap : 256;
		s->start = realloc(s->start, s->scap * sizeof(*s->start));
		s->len = realloc(s->len, s->scap * sizeof(*s->len));
		if (!s->start || !s->len)
			abort();
	}
	s->start[s->ns] = s->n;
	s->len[s->ns++] = n - 2;
	put(s, line, n);
}

static void stream_free(struct stream *s)
{
	free(s->b);
	free(s->start);
	free(s->len);
}

/* Appends a UBX frame with a correct (or, if @bad, wrong) checksum */
static void put_ubx(struct stream *s, u8 cls, u8 id, const u8 *payload,
		    u16 n, bool bad)
{
	u8 hdr[6] = { 0xb5, 0x62, cls, id, n & 0xff, n >> 8 };
	u8 ck[2] = { 0, 0 };
	size_t i;

	for (i = 2; i < 6 + (size_t)n; i++) {
		ck[0] += i < 6 ? hdr[i] : payload[i - 6];
		ck[1] += ck[0];
	}
	ck[1] ^= bad;
	put(s, hdr, sizeof(hdr));
	put(s, payload, n);
	put(s, ck, sizeof(ck));
}

static const u8 ubx_cfg_rate[] = {
	0xb5, 0x62, 0x06, 0x08, 0x06, 0x00, 0x64, 0x00,
	0x01, 0x00, 0x01, 0x00, 0x7a, 0x12,
};

static const u8 rtcm_1005[] = {
	0xd3, 0x00, 0x13, 0x3e, 0xd7, 0xd3, 0x02, 0x02, 0x98, 0x0e,
	0xde, 0xef, 0x34, 0xb4, 0xbd, 0x62, 0xac, 0x09, 0x41, 0x98,
	0x6f, 0x33, 0x36, 0x0b, 0x98,
};

static const char zda[] = "$GPZDA,082710.00,16,09,2002,00,00*64";
static const char rmc[] =
	"$GPRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A*57";

/* Reads a capture from data/ into @s, recording its sentences */
static int load_capture(struct stream *s, const char *name)
{
	char path[4096], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", DATA_DIR, name);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	while ((n = getline(&line, &cap, fp)) > 0) {
		if (n < 3 || line[n - 2] != '\r' || line[n - 1] != '\n')
			break;
		put_line(s, (u8 *)line, n);
	}
	free(line);
	fclose(fp);
	return 0;
}

FIXTURE(framer) {
	struct gpsphc_framer f;
	struct sink sink;
	struct gpsphc_framer_counters want;
};

FIXTURE_SETUP(framer)
{
	memset(&self->sink, 0, sizeof(self->sink));
	memset(&self->want, 0, sizeof(self->want));
	gpsphc_framer_init(&self->f, BYTE_NS, collect, &self->sink);
}

FIXTURE_TEARDOWN(framer)
{
	free(self->sink.v);
}

TEST_F(framer, single_sentence)
{
	static const char in[] = "$GPZDA,082710.00,16,09,2002,00,00*64\r\n";
	const struct got *g;

	FEED(&self->f, in, 5 * T0);
	ASSERT_EQ(1, self->sink.n);
	g = &self->sink.v[0];
	EXPECT_TRUE(got_is(g, zda));
	EXPECT_EQ(0, g->seq);
	EXPECT_EQ(GPSPHC_CSUM_OK, g->csum);
	/* '$' is 37 bytes before the LF that ends the chunk */
	EXPECT_EQ(5 * T0 - 37 * BYTE_NS, g->start_ns);
	self->want.sentences = 1;
	self->want.csum_ok = 1;
	EXPECT_COUNTERS(&self->want, &self->f.counters);
}

/* Every way to cut "noise, sentence, CR LF" into two and three chunks */
TEST_F(framer, every_split)
{
	static const char in[] = "x$GPZDA,082710.00,16,09,2002,00,00*64\r\n";
	size_t n = sizeof(in) - 1, cuts[2];
	struct gpsphc_framer_counters want = {
		.sentences = 1, .csum_ok = 1, .noise_bytes = 1,
	};
	unsigned int runs = 0;

	for (cuts[0] = 0; cuts[0] <= n; cuts[0]++) {
		for (cuts[1] = cuts[0]; cuts[1] <= n + 1; cuts[1]++) {
			/* cuts[1] == n + 1 stands for "two chunks only" */
			size_t ncuts = cuts[1] > n ? 1 : 2;

			self->sink.n = 0;
			gpsphc_framer_init(&self->f, BYTE_NS, collect,
					   &self->sink);
			feed_cut(&self->f, (const u8 *)in, NULL, n, cuts,
				 ncuts, T0);
			ASSERT_EQ(1, self->sink.n)
				TH_LOG("cuts %zu %zu", cuts[0], cuts[1]);
			EXPECT_TRUE(got_is(&self->sink.v[0], zda));
			EXPECT_EQ(T0 + BYTE_NS, self->sink.v[0].start_ns)
				TH_LOG("cuts %zu %zu", cuts[0], cuts[1]);
			EXPECT_COUNTERS(&want, &self->f.counters);
			runs++;
		}
	}
	EXPECT_EQ((n + 1) * (n + 2) / 2 + n + 1, runs);
}

/* A whole capture in one chunk: every sentence, in order, exact times */
TEST_F(framer, many_in_one_chunk)
{
	struct stream s = { 0 };
	size_t i;

	ASSERT_EQ(0, load_capture(&s, "ublox_m8.nmea"));
	ASSERT_EQ(18, s.ns);
	feed_one(&self->f, s.b, s.n);
	ASSERT_EQ(s.ns, self->sink.n);
	for (i = 0; i < s.ns; i++) {
		const struct got *g = &self->sink.v[i];

		EXPECT_EQ(s.len[i], g->len);
		EXPECT_EQ(0, memcmp(s.b + s.start[i], g->data, g->len));
		EXPECT_EQ(i, g->seq);
		EXPECT_EQ(GPSPHC_CSUM_OK, g->csum);
		EXPECT_EQ(T0 + s.start[i] * BYTE_NS, g->start_ns);
	}
	self->want.sentences = s.ns;
	self->want.csum_ok = s.ns;
	EXPECT_COUNTERS(&self->want, &self->f.counters);
	stream_free(&s);
}

/*
 * All captures, many times over, with UBX and RTCM3 frames between the
 * sentences (UBX payloads holding whole sentences, CR, LF and random
 * bytes), cut into random chunks: every sentence comes out byte-exact,
 * in order, once, with its exact arrival time.
 */
TEST_F(framer, random_chunkings)
{
	static const char * const files[] = {
		"ublox_m8.nmea", "sirf.nmea", "ais.nmea",
	};
	struct stream cap = { 0 }, s = { 0 };
	u64 seed = 0x9e3779b97f4a7c15ULL, frames = 0;
	size_t i, rep, c, *cuts, ncuts;
	u8 payload[600];

	for (i = 0; i < ARRAY_SIZE(files); i++)
		ASSERT_EQ(0, load_capture(&cap, files[i]));
	for (rep = 0; rep < 40; rep++) {
		for (i = 0; i < cap.ns; i++) {
			switch (prng(&seed) % 4) {
			case 0:
				for (c = 0; c < sizeof(payload); c++)
					payload[c] = prng(&seed);
				c = prng(&seed) % (sizeof(payload) - 80);
				memcpy(payload + c, rmc, sizeof(rmc) - 1);
				memcpy(payload + c + 71, "\r\n$GPZDA", 8);
				put_ubx(&s, 0x01, 0x07, payload,
					prng(&seed) % sizeof(payload), false);
				frames++;
				break;
			case 1:
				put(&s, rtcm_1005, sizeof(rtcm_1005));
				frames++;
				break;
			case 2:
				put(&s, ubx_cfg_rate, sizeof(ubx_cfg_rate));
				frames++;
				break;
			}
			put_line(&s, cap.b + cap.start[i], cap.len[i] + 2);
		}
	}
	cuts = calloc(s.n, sizeof(*cuts));
	ASSERT_TRUE(cuts != NULL);
	for (rep = 0; rep < 200; rep++) {
		self->sink.n = 0;
		gpsphc_framer_init(&self->f, BYTE_NS, collect, &self->sink);
		/* chunk sizes 0..4 bytes early on, up to 1 KiB later */
		for (ncuts = 0, c = 0; ; ncuts++) {
			c += prng(&seed) % (rep < 20 ? 5 : rep < 100 ? 64 : 1024);
			if (c >= s.n)
				break;
			cuts[ncuts] = c;
		}
		feed_cut(&self->f, s.b, NULL, s.n, cuts, ncuts, T0);
		ASSERT_EQ(s.ns, self->sink.n) TH_LOG("rep %zu", rep);
		for (i = 0; i < s.ns; i++) {
			const struct got *g = &self->sink.v[i];

			ASSERT_EQ(s.len[i], g->len) TH_LOG("rep %zu i %zu", rep, i);
			ASSERT_EQ(0, memcmp(s.b + s.start[i], g->data, g->len));
			ASSERT_EQ((u32)i, g->seq);
			ASSERT_EQ(GPSPHC_CSUM_OK, g->csum);
			ASSERT_EQ(T0 + s.start[i] * BYTE_NS, g->start_ns);
			if (i)
				ASSERT_LT(g[-1].start_ns, g->start_ns);
		}
		self->want.sentences = s.ns;
		self->want.csum_ok = s.ns;
		self->want.binary_frames = frames;
		EXPECT_COUNTERS(&self->want, &self->f.counters);
	}
	free(cuts);
	stream_free(&s);
	stream_free(&cap);
}

TEST_F(framer, known_binary_frames)
{
	struct stream s = { 0 };

	put(&s, ubx_cfg_rate, sizeof(ubx_cfg_rate));
	put(&s, rtcm_1005, sizeof(rtcm_1005));
	/* UBX-MON-VER poll: empty payload */
	put(&s, "\xb5\x62\x0a\x04\x00\x00\x0e\x34", 8);
	put_line(&s, BYTES("$GPZDA,082710.00,16,09,2002,00,00*64\r\n"));
	feed_one(&self->f, s.b, s.n);
	ASSERT_EQ(1, self->sink.n);
	EXPECT_TRUE(got_is(&self->sink.v[0], zda));
	EXPECT_EQ(T0 + s.start[0] * BYTE_NS, self->sink.v[0].start_ns);
	self->want.sentences = 1;
	self->want.csum_ok = 1;
	self->want.binary_frames = 3;
	EXPECT_COUNTERS(&self->want, &self->f.counters);
	stream_free(&s);
}

/* UBX frame holding a whole "$GPRMC...*57\r\n": skipped, no sentence */
TEST_F(framer, ubx_payload_with_sentence)
{
	struct stream s = { 0 };
	char pl[128];
	int n = snprintf(pl, sizeof(pl), "%s\r\n", rmc);

	put_ubx(&s, 0x02, 0x13, (const u8 *)pl, n, false);
	put_ubx(&s, 0x02, 0x13, (const u8 *)pl, n, true);
	put_line(&s, BYTES("$GPZDA,082710.00,16,09,2002,00,00*64\r\n"));
	feed_one(&self->f, s.b, s.n);
	ASSERT_EQ(1, self->sink.n);
	EXPECT_TRUE(got_is(&self->sink.v[0], zda));
	self->want.sentences = 1;
	self->want.csum_ok = 1;
	self->want.binary_frames = 1;
	self->want.binary_bad = 1;
	EXPECT_COUNTERS(&self->want, &self->f.counters);
	stream_free(&s);
}

/*
 * 0xb5 0x62 in noise right before a sentence: the "length" is the
 * sentence's 3rd and 4th bytes, 0x5a50, too long for UBX, so the bytes
 * after 0xb5 are scanned again and the sentence keeps its exact time.
 */
TEST_F(framer, false_ubx_header_replayed)
{
	static const char in[] =
		"\xb5\x62$GPZDA,082710.00,16,09,2002,00,00*64\r\n";
	size_t cuts[2], n = sizeof(in) - 1;

	for (cuts[0] = 0; cuts[0] <= 8; cuts[0]++) {
		for (cuts[1] = cuts[0]; cuts[1] <= 8; cuts[1]++) {
			self->sink.n = 0;
			gpsphc_framer_init(&self->f, BYTE_NS, collect,
					   &self->sink);
			feed_cut(&self->f, (const u8 *)in, NULL, n, cuts, 2, T0);
			ASSERT_EQ(1, self->sink.n);
			EXPECT_TRUE(got_is(&self->sink.v[0], zda));
			EXPECT_EQ(T0 + 2 * BYTE_NS, self->sink.v[0].start_ns);
			/* 0xb5, then 0x62 when scanned again */
			EXPECT_EQ(2, self->f.counters.noise_bytes);
			EXPECT_EQ(0, self->f.counters.binary_frames);
		}
	}
}

/* Table of byte strings with exact expected output and counters */
FIXTURE(cases) {
	struct gpsphc_framer f;
	struct sink sink;
};

FIXTURE_VARIANT(cases) {
	const char *in;
	size_t len;
	const char *out[3];	/* expected sentences, NULL-terminated */
	enum gpsphc_csum csum[3];
	struct gpsphc_framer_counters want;
};

FIXTURE_SETUP(cases)
{
	memset(&self->sink, 0, sizeof(self->sink));
	gpsphc_framer_init(&self->f, BYTE_NS, collect, &self->sink);
}

FIXTURE_TEARDOWN(cases)
{
	free(self->sink.v);
}

#define IN(s)	.in = (s), .len = sizeof(s) - 1

FIXTURE_VARIANT_ADD(cases, missing_checksum) {
	IN("$GPTXT,01,01,02,hello\r\n"),
	.out = { "$GPTXT,01,01,02,hello" },
	.csum = { GPSPHC_CSUM_MISSING },
	.want = { .sentences = 1, .csum_missing = 1 },
};

FIXTURE_VARIANT_ADD(cases, bad_checksum) {
	IN("$GPZDA,082710.00,16,09,2002,00,00*65\r\n"),
	.out = { "$GPZDA,082710.00,16,09,2002,00,00*65" },
	.csum = { GPSPHC_CSUM_BAD },
	.want = { .sentences = 1, .csum_bad = 1 },
};

FIXTURE_VARIANT_ADD(cases, lower_case_checksum) {
	IN("$GPGSA,A,3,23,29,07,08,09,18,26,28,,,,,1.94,1.18,1.54*0d\r\n"),
	.out = { "$GPGSA,A,3,23,29,07,08,09,18,26,28,,,,,1.94,1.18,1.54*0d" },
	.csum = { GPSPHC_CSUM_OK },
	.want = { .sentences = 1, .csum_ok = 1 },
};

FIXTURE_VARIANT_ADD(cases, short_checksum) {
	IN("$GPZDA,082710.00,16,09,2002,00,00*6\r\n"),
	.out = { "$GPZDA,082710.00,16,09,2002,00,00*6" },
	.csum = { GPSPHC_CSUM_BAD },
	.want = { .sentences = 1, .csum_bad = 1 },
};

FIXTURE_VARIANT_ADD(cases, non_hex_checksum) {
	IN("$GPZDA,082710.00,16,09,2002,00,00*6G\r\n"),
	.out = { "$GPZDA,082710.00,16,09,2002,00,00*6G" },
	.csum = { GPSPHC_CSUM_BAD },
	.want = { .sentences = 1, .csum_bad = 1 },
};

FIXTURE_VARIANT_ADD(cases, lone_start_bytes) {
	IN("$\r!*\n"),
	.out = { "$", "!*" },
	.csum = { GPSPHC_CSUM_MISSING, GPSPHC_CSUM_BAD },
	.want = { .sentences = 2, .csum_missing = 1, .csum_bad = 1 },
};

/* The shortest sentences with a checksum: an empty body XORs to 00 */
FIXTURE_VARIANT_ADD(cases, empty_body) {
	IN("$*00\r\n!*01\r\n"),
	.out = { "$*00", "!*01" },
	.csum = { GPSPHC_CSUM_OK, GPSPHC_CSUM_BAD },
	.want = { .sentences = 2, .csum_ok = 1, .csum_bad = 1 },
};

/* CR alone, LF alone and CR LF each end a sentence once */
FIXTURE_VARIANT_ADD(cases, terminators) {
	IN("$A*41\r$B*42\n$C*43\r\n\r\n\n\r"),
	.out = { "$A*41", "$B*42", "$C*43" },
	.csum = { GPSPHC_CSUM_OK, GPSPHC_CSUM_OK, GPSPHC_CSUM_OK },
	.want = { .sentences = 3, .csum_ok = 3 },
};

/* A '$' inside a sentence cuts it short and starts the next */
FIXTURE_VARIANT_ADD(cases, start_inside_sentence) {
	IN("$GPGGA,0927$GPZDA,082710.00,16,09,2002,00,00*64\r\n"),
	.out = { "$GPZDA,082710.00,16,09,2002,00,00*64" },
	.csum = { GPSPHC_CSUM_OK },
	.want = { .sentences = 1, .csum_ok = 1, .truncated = 1 },
};

FIXTURE_VARIANT_ADD(cases, bang_inside_sentence) {
	IN("$GPGGA,0927!AIVDM,2,2,3,B,1CQ1A83PCAH0,0*64\r\n"),
	.out = { "!AIVDM,2,2,3,B,1CQ1A83PCAH0,0*64" },
	.csum = { GPSPHC_CSUM_OK },
	.want = { .sentences = 1, .csum_ok = 1, .truncated = 1 },
};

/* Noise: 0xff, NUL, text, a lone 0xb5, a 0xd3 with reserved bits set */
FIXTURE_VARIANT_ADD(cases, line_noise) {
	IN("\xff\x00junk \xb5\x11\xd3\xff\r\n$A*41\r\nzz"),
	.out = { "$A*41" },
	.csum = { GPSPHC_CSUM_OK },
	.want = { .sentences = 1, .csum_ok = 1, .noise_bytes = 13 },
};

/*
 * A control byte aborts the sentence and is itself noise; the rest of
 * its line is dropped silently; the next sentence is good.
 */
FIXTURE_VARIANT_ADD(cases, invalid_byte) {
	IN("$GPZDA,0827\x01" "10.00,16*00\r\n$A*41\r\n"),
	.out = { "$A*41" },
	.csum = { GPSPHC_CSUM_OK },
	.want = { .sentences = 1, .csum_ok = 1, .invalid = 1,
		  .noise_bytes = 1 },
};

/* A UBX frame cutting into a sentence: aborted, frame skipped whole */
FIXTURE_VARIANT_ADD(cases, ubx_inside_sentence) {
	IN("$GPZDA,08\xb5\x62\x06\x08\x06\x00\x64\x00\x01\x00\x01\x00\x7a\x12"
	   "$A*41\r\n"),
	.out = { "$A*41" },
	.csum = { GPSPHC_CSUM_OK },
	.want = { .sentences = 1, .csum_ok = 1, .invalid = 1,
		  .binary_frames = 1 },
};

/* 0xd3 0x00 0x00: an empty RTCM3 frame with a wrong CRC */
FIXTURE_VARIANT_ADD(cases, rtcm_bad_crc) {
	IN("\xd3\x00\x00\x00\x00\x00$A*41\r\n"),
	.out = { "$A*41" },
	.csum = { GPSPHC_CSUM_OK },
	.want = { .sentences = 1, .csum_ok = 1, .binary_bad = 1 },
};

/* An overlong line resyncs at the next '$' on the same line */
FIXTURE_VARIANT_ADD(cases, overlong_then_start) {
	IN("$GP" "0123456789012345678901234567890123456789"
	   "0123456789012345678901234567890123456789"
	   "0123456789012345678901234567890123456789"
	   "0123456789012345678901234567890123456789"
	   "$A*41\r\n"),
	.out = { "$A*41" },
	.csum = { GPSPHC_CSUM_OK },
	.want = { .sentences = 1, .csum_ok = 1, .overlong = 1 },
};

TEST_F(cases, table)
{
	size_t n = 0, i;

	while (n < ARRAY_SIZE(variant->out) && variant->out[n])
		n++;
	/* every case, whole and byte by byte */
	for (i = 0; i < 2; i++) {
		size_t b, k;

		self->sink.n = 0;
		gpsphc_framer_init(&self->f, BYTE_NS, collect, &self->sink);
		if (i == 0)
			feed_one(&self->f, (const u8 *)variant->in, variant->len);
		for (b = 0; i == 1 && b < variant->len; b++)
			gpsphc_framer_feed(&self->f, (const u8 *)variant->in + b,
					   NULL, 1, T0 + b * BYTE_NS);
		ASSERT_EQ(n, self->sink.n);
		for (k = 0; k < n; k++) {
			EXPECT_TRUE(got_is(&self->sink.v[k], variant->out[k]))
				TH_LOG("sentence %zu: want %s", k,
				       variant->out[k]);
			EXPECT_EQ(variant->csum[k], self->sink.v[k].csum);
			EXPECT_EQ(k, self->sink.v[k].seq);
		}
		EXPECT_COUNTERS(&variant->want, &self->f.counters);
	}
}

/* Builds a sentence of exactly @len bytes with a good checksum */
static void make_sentence(char *buf, size_t len)
{
	size_t i;

	memcpy(buf, "$PXXX,", 6);
	for (i = 6; i < len - 3; i++)
		buf[i] = 'A' + i % 26;
	sprintf(buf + len - 3, "*%02X",
		gpsphc_nmea_checksum((const u8 *)buf + 1, len - 4));
}

TEST_F(framer, overlong_bound)
{
	char line[GPSPHC_FRAMER_MAX_LEN + 8];
	size_t len;

	for (len = GPSPHC_FRAMER_MAX_LEN; len <= GPSPHC_FRAMER_MAX_LEN + 1;
	     len++) {
		make_sentence(line, len);
		strcpy(line + len, "\r\n");
		gpsphc_framer_feed(&self->f, (const u8 *)line, NULL, len + 2,
				   T0);
		FEED(&self->f, "$A*41\r\n", T0);
	}
	ASSERT_EQ(3, self->sink.n);
	EXPECT_EQ(GPSPHC_FRAMER_MAX_LEN, self->sink.v[0].len);
	EXPECT_EQ(GPSPHC_CSUM_OK, self->sink.v[0].csum);
	EXPECT_TRUE(got_is(&self->sink.v[1], "$A*41"));
	EXPECT_TRUE(got_is(&self->sink.v[2], "$A*41"));
	self->want.sentences = 3;
	self->want.csum_ok = 3;
	self->want.overlong = 1;
	EXPECT_COUNTERS(&self->want, &self->f.counters);
}

/* One variant per TTY flag: the flagged byte aborts its sentence */
FIXTURE(flags) {
	struct gpsphc_framer f;
	struct sink sink;
};

FIXTURE_VARIANT(flags) {
	u8 flag;
};

FIXTURE_VARIANT_ADD(flags, tty_break) { .flag = TTY_BREAK };
FIXTURE_VARIANT_ADD(flags, tty_frame) { .flag = TTY_FRAME };
FIXTURE_VARIANT_ADD(flags, tty_parity) { .flag = TTY_PARITY };
FIXTURE_VARIANT_ADD(flags, tty_overrun) { .flag = TTY_OVERRUN };

FIXTURE_SETUP(flags)
{
	memset(&self->sink, 0, sizeof(self->sink));
	gpsphc_framer_init(&self->f, BYTE_NS, collect, &self->sink);
}

FIXTURE_TEARDOWN(flags)
{
	free(self->sink.v);
}

TEST_F(flags, aborts_sentence)
{
	static const char in[] =
		"$GPZDA,082710.00,16,09,2002,00,00*64\r\n"
		"$GPZDA,082710.00,16,09,2002,00,00*64\r\n"
		"$GPZDA,082710.00,16,09,2002,00,00*64\r\n";
	size_t n = sizeof(in) - 1, line = 38, at;
	u8 fl[sizeof(in)];

	/* flag each byte of the middle line in turn, '$' to LF */
	for (at = line; at < 2 * line; at++) {
		/* a flagged LF falls after the sentence its CR ended */
		bool lf = at == 2 * line - 1;

		self->sink.n = 0;
		gpsphc_framer_init(&self->f, BYTE_NS, collect, &self->sink);
		memset(fl, TTY_NORMAL, sizeof(fl));
		fl[at] = variant->flag;
		feed_cut(&self->f, (const u8 *)in, fl, n, &at, 1, T0);
		ASSERT_EQ(lf ? 3 : 2, self->sink.n) TH_LOG("flag at %zu", at);
		EXPECT_EQ(T0, self->sink.v[0].start_ns);
		EXPECT_EQ(T0 + 2 * line * BYTE_NS,
			  self->sink.v[lf ? 2 : 1].start_ns);
		EXPECT_EQ(1, self->f.counters.flag_bytes);
		/* a flagged '$' never starts the sentence it would abort */
		EXPECT_EQ(at == line || lf ? 0 : 1,
			  self->f.counters.flag_aborts);
		EXPECT_EQ(at == line ? 35 : 0, self->f.counters.noise_bytes);
		EXPECT_EQ(lf ? 3 : 2, self->f.counters.sentences);
	}
}

/* Flagged bytes outside a sentence and inside binary frames */
TEST_F(flags, outside_sentence)
{
	struct stream s = { 0 };
	u8 fl[64] = { 0 };

	put(&s, "\n", 1);				/* 0: flagged */
	put(&s, ubx_cfg_rate, sizeof(ubx_cfg_rate));	/* 1..14: 8 flagged */
	put_line(&s, BYTES("$A*41\r\n"));		/* 15.. */
	fl[0] = variant->flag;
	fl[1 + 8] = variant->flag;
	ASSERT_LE(s.n, sizeof(fl));
	feed_cut(&self->f, s.b, fl, s.n, NULL, 0, T0);
	ASSERT_EQ(1, self->sink.n);
	EXPECT_TRUE(got_is(&self->sink.v[0], "$A*41"));
	EXPECT_EQ(2, self->f.counters.flag_bytes);
	EXPECT_EQ(0, self->f.counters.flag_aborts);
	EXPECT_EQ(0, self->f.counters.binary_frames);
	EXPECT_EQ(0, self->f.counters.binary_bad);
	/* the 5 payload/checksum bytes after the abort are noise */
	EXPECT_EQ(5, self->f.counters.noise_bytes);
	stream_free(&s);
}

TEST_F(framer, backdating_arithmetic)
{
	static const char in[] = "ab$A*41\r\n";
	const u64 t = 5000000000ULL;

	/* '$' at index 2 of 9 bytes: 6 bytes before the chunk's last */
	FEED(&self->f, in, t);
	ASSERT_EQ(1, self->sink.n);
	EXPECT_EQ(t - 6 * BYTE_NS, self->sink.v[0].start_ns);

	/* saturates at 0 rather than wrapping */
	FEED(&self->f, in, 6 * BYTE_NS - 1);
	ASSERT_EQ(2, self->sink.n);
	EXPECT_EQ(0, self->sink.v[1].start_ns);
	FEED(&self->f, in, 6 * BYTE_NS);
	ASSERT_EQ(3, self->sink.n);
	EXPECT_EQ(0, self->sink.v[2].start_ns);
	FEED(&self->f, in, 6 * BYTE_NS + 1);
	ASSERT_EQ(4, self->sink.n);
	EXPECT_EQ(1, self->sink.v[3].start_ns);

	/* byte_ns 0: the chunk time itself; then 9600 baud */
	gpsphc_framer_set_byte_ns(&self->f, 0);
	FEED(&self->f, in, t);
	gpsphc_framer_set_byte_ns(&self->f, 1041667);
	FEED(&self->f, in, t);
	ASSERT_EQ(6, self->sink.n);
	EXPECT_EQ(t, self->sink.v[4].start_ns);
	EXPECT_EQ(t - 6 * 1041667ULL, self->sink.v[5].start_ns);

	/* a start byte keeps the time of the chunk it arrived in */
	gpsphc_framer_set_byte_ns(&self->f, BYTE_NS);
	FEED(&self->f, "xx$GPZ", t);
	FEED(&self->f, "DA*48\r\n", 2 * t);
	ASSERT_EQ(7, self->sink.n);
	EXPECT_EQ(t - 3 * BYTE_NS, self->sink.v[6].start_ns);
	EXPECT_EQ(GPSPHC_CSUM_OK, self->sink.v[6].csum);
}

TEST_F(framer, reset_and_seq_wrap)
{
	FEED(&self->f, "$GPZDA,08", T0);
	gpsphc_framer_reset(&self->f);
	EXPECT_EQ(1, self->f.counters.truncated);
	/* the tail of the cut sentence is noise: 10 bytes, CR LF are not */
	FEED(&self->f, "2710.00*00\r\n", T0);
	EXPECT_EQ(10, self->f.counters.noise_bytes);
	EXPECT_EQ(0, self->sink.n);

	/* a partial binary frame is forgotten without a count */
	gpsphc_framer_feed(&self->f, ubx_cfg_rate, NULL, 7, T0);
	gpsphc_framer_reset(&self->f);
	EXPECT_EQ(1, self->f.counters.truncated);

	self->f.seq = 0xffffffffU;
	FEED(&self->f, "$A*41\r\n$B*42\r\n", T0);
	ASSERT_EQ(2, self->sink.n);
	EXPECT_EQ(0xffffffffU, self->sink.v[0].seq);
	EXPECT_EQ(0, self->sink.v[1].seq);
	EXPECT_EQ(2, self->f.counters.sentences);
}

TEST(null_emit_and_empty_feed)
{
	struct gpsphc_framer f;

	gpsphc_framer_init(&f, BYTE_NS, NULL, NULL);
	gpsphc_framer_feed(&f, NULL, NULL, 0, T0);
	FEED(&f, "$A*41\r\n$A*40\r\n", T0);
	EXPECT_EQ(2, f.counters.sentences);
	EXPECT_EQ(1, f.counters.csum_ok);
	EXPECT_EQ(1, f.counters.csum_bad);
}

TEST_HARNESS_MAIN
