// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the gpsphc NMEA sentence framer (kmod/framer.c).
 *
 * Input: 4 control bytes, then the received byte stream. The control
 * bytes seed the chunking, the per-byte TTY flags and the character time.
 * The stream is fed twice, chunked with flags and then as one chunk with
 * the same flags; both runs must emit the same sentences and counters.
 * Every emitted sentence must be a contiguous, unflagged run of the input
 * from a '$'/'!' to just before a CR/LF, printable, within the bound, at
 * the exact back-dated time of its start byte, with a checksum status
 * that matches an independent recomputation.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "framer.h"

#define T0	1000000000ULL

struct seen {
	u64 start_ns;
	u32 len;
	u32 seq;
	enum gpsphc_csum csum;
};

struct run {
	const u8 *in;		/* the stream */
	const u8 *flags;
	size_t n;
	u32 byte_ns;
	struct seen *v;		/* sentences of the first run */
	size_t nv;
	bool compare;		/* second run: check against v[] */
	size_t i;
};

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static u64 prng(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The checksum rules of framer.h, written again with libc */
static enum gpsphc_csum ref_csum(const u8 *d, u32 n)
{
	char hex[3];
	u8 x = 0;
	u32 i;

	if (!memchr(d + 1, '*', n - 1))
		return GPSPHC_CSUM_MISSING;
	if (n < 4 || d[n - 3] != '*' || !isxdigit(d[n - 2]) ||
	    !isxdigit(d[n - 1]))
		return GPSPHC_CSUM_BAD;
	for (i = 1; i < n - 3; i++)
		x ^= d[i];
	hex[0] = d[n - 2];
	hex[1] = d[n - 1];
	hex[2] = 0;
	return strtoul(hex, NULL, 16) == x ? GPSPHC_CSUM_OK : GPSPHC_CSUM_BAD;
}

static void emit(void *ctx, const struct gpsphc_sentence *s)
{
	struct run *r = ctx;
	size_t at, k;

	CHECK(s->len >= 1 && s->len <= GPSPHC_FRAMER_MAX_LEN);
	CHECK(s->data[0] == '$' || s->data[0] == '!');
	for (k = 1; k < s->len; k++)
		CHECK(s->data[k] >= 0x20 && s->data[k] <= 0x7e &&
		      s->data[k] != '$' && s->data[k] != '!');
	CHECK(s->csum == ref_csum(s->data, s->len));

	if (r->byte_ns) {
		/* The start byte's index, from its exact arrival time */
		CHECK(s->start_ns >= T0);
		CHECK((s->start_ns - T0) % r->byte_ns == 0);
		at = (s->start_ns - T0) / r->byte_ns;
		CHECK(at + s->len < r->n);
		CHECK(!memcmp(r->in + at, s->data, s->len));
		CHECK(r->in[at + s->len] == '\r' || r->in[at + s->len] == '\n');
		for (k = 0; k <= s->len; k++)
			CHECK(!r->flags[at + k]);
	}

	if (r->compare) {
		CHECK(r->i < r->nv);
		CHECK(r->v[r->i].start_ns == s->start_ns);
		CHECK(r->v[r->i].len == s->len);
		CHECK(r->v[r->i].seq == s->seq);
		CHECK(r->v[r->i].csum == s->csum);
	} else {
		CHECK(s->seq == r->i);
		CHECK(!r->i || r->v[r->i - 1].start_ns < s->start_ns ||
		      !r->byte_ns);
		r->v[r->i] = (struct seen) {
			.start_ns = s->start_ns, .len = s->len,
			.seq = s->seq, .csum = s->csum,
		};
		r->nv++;
	}
	r->i++;
}

static void check_counters(const struct gpsphc_framer_counters *c,
			   size_t emitted, size_t flagged, size_t n)
{
	CHECK(c->sentences == emitted);
	CHECK(c->sentences == c->csum_ok + c->csum_missing + c->csum_bad);
	CHECK(c->flag_bytes == flagged);
	CHECK(c->flag_aborts <= flagged);
	/*
	 * Each sentence has its own start byte and, unless a new start cut
	 * it short, its own terminator (CR/LF, bad byte, flagged byte, the
	 * byte past the bound); binary frames take at least 6 bytes.
	 */
	CHECK(2 * (c->sentences + c->overlong + c->invalid + c->flag_aborts) +
	      c->truncated <= n);
	CHECK(c->noise_bytes + c->flag_bytes +
	      6 * (c->binary_frames + c->binary_bad) <= n);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static const u32 byte_ns[] = { 86806, 1, 1041667, 0 };
	struct gpsphc_framer a, b;
	u64 seed = 0x2545f4914f6cdd1dULL;
	size_t n, i, from, to, flagged = 0;
	struct run r;
	u8 *flags;

	if (size < 4)
		return 0;
	memset(&r, 0, sizeof(r));
	r.byte_ns = byte_ns[data[0] & 3];
	seed ^= (u64)data[0] << 24 | (u64)data[1] << 16 | data[2] << 8 |
		data[3];
	r.in = data + 4;
	r.n = n = size - 4;
	flags = calloc(n + 1, 1);
	r.v = calloc(n + 1, sizeof(*r.v));
	CHECK(flags && r.v);
	r.flags = flags;

	/* flags: none, rare or frequent, by the second control byte */
	for (i = 0; i < n && (data[1] & 3); i++) {
		if (prng(&seed) % ((data[1] & 3) == 1 ? 256 : 16) == 0) {
			flags[i] = 1 + prng(&seed) % 4;
			flagged++;
		}
	}

	gpsphc_framer_init(&a, r.byte_ns, emit, &r);
	for (from = 0; from < n; from = to) {
		to = from + prng(&seed) % (2 + (data[2] & 0x7f));
		if (to > n)
			to = n;
		gpsphc_framer_feed(&a, r.in + from, flags + from, to - from,
				   T0 + (to ? to - 1 : 0) * r.byte_ns);
	}
	check_counters(&a.counters, r.i, flagged, n);

	r.compare = true;
	r.i = 0;
	gpsphc_framer_init(&b, r.byte_ns, emit, &r);
	gpsphc_framer_feed(&b, r.in, flags, n,
			   T0 + (n ? n - 1 : 0) * r.byte_ns);
	CHECK(r.i == r.nv);
	CHECK(!memcmp(&a.counters, &b.counters, sizeof(a.counters)));

	free(r.v);
	free(flags);
	return 0;
}
