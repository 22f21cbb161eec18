// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc NMEA sentence framer: finds sentences in the received byte stream,
 * checks their checksums and timestamps their start bytes. Pure C, no
 * kernel calls but u64_stats: see framer.h for the contract.
 */

#include "framer.h"

#define UBX_SYNC1	0xb5
#define UBX_SYNC2	0x62
#define RTCM_SYNC	0xd3
#define RTCM_CRC_LEN	3
#define UBX_CK_LEN	2
#define CRC24Q_POLY	0x1864cfbU

static bool is_start(u8 c)
{
	return c == '$' || c == '!';
}

static bool is_eol(u8 c)
{
	return c == '\r' || c == '\n';
}

/* First byte of a binary frame */
static bool is_sync(u8 c)
{
	return c == UBX_SYNC1 || c == RTCM_SYNC;
}

static bool is_printable(u8 c)
{
	return c >= 0x20 && c <= 0x7e;
}

/* Value of a hex digit of either case, or -1 */
static int hex_value(u8 c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

u8 gpsphc_nmea_checksum(const u8 *data, u32 len)
{
	u8 sum = 0;
	u32 i;

	for (i = 0; i < len; i++)
		sum ^= data[i];
	return sum;
}

static enum gpsphc_csum sentence_csum(const u8 *s, u32 len)
{
	int hi, lo;
	u32 i;

	if (len >= 4 && s[len - 3] == '*') {
		hi = hex_value(s[len - 2]);
		lo = hex_value(s[len - 1]);
		if (hi >= 0 && lo >= 0) {
			if (gpsphc_nmea_checksum(s + 1, len - 4) == hi * 16 + lo)
				return GPSPHC_CSUM_OK;
			return GPSPHC_CSUM_BAD;
		}
	}
	for (i = 1; i < len; i++)
		if (s[i] == '*')
			return GPSPHC_CSUM_BAD;
	return GPSPHC_CSUM_MISSING;
}

static u32 crc24q_byte(u32 crc, u8 c)
{
	int i;

	crc ^= (u32)c << 16;
	for (i = 0; i < 8; i++) {
		crc <<= 1;
		if (crc & 0x1000000)
			crc ^= CRC24Q_POLY;
	}
	return crc;
}

/*
 * One more in a counter: a change readers may see at any time (framer.h),
 * so an update of @syncp. Interrupts stay off for it only on a 32-bit
 * CPU, where a reader on the same one would otherwise spin.
 */
static void count(struct gpsphc_framer *f, u64_stats_t *c)
{
	unsigned long flags = u64_stats_update_begin_irqsave(&f->syncp);

	u64_stats_inc(c);
	u64_stats_update_end_irqrestore(&f->syncp, flags);
}

static void ubx_ck_byte(struct gpsphc_framer *f, u8 c)
{
	f->ck_a += c;
	f->ck_b += f->ck_a;
}

/* Estimated arrival of byte @i of a chunk of @count bytes, see framer.h */
static u64 byte_time(const struct gpsphc_framer *f, size_t count, size_t i,
		     u64 chunk_ns)
{
	size_t behind = count - 1 - i;
	u64 back;

	/* Keeps the product within 64 bits with no 64-bit division. */
	if ((u64)behind >> 32)
		return 0;
	back = (u64)behind * f->byte_ns;
	return back < chunk_ns ? chunk_ns - back : 0;
}

static void sentence_start(struct gpsphc_framer *f, u8 c, u64 ns)
{
	f->state = GPSPHC_FRAMER_SENTENCE;
	f->buf[0] = c;
	f->len = 1;
	f->start_ns = ns;
}

static void sentence_end(struct gpsphc_framer *f)
{
	struct gpsphc_sentence s = {
		.data = f->buf,
		.len = f->len,
		.seq = f->seq++,
		.start_ns = f->start_ns,
		.csum = sentence_csum(f->buf, f->len),
	};

	f->state = GPSPHC_FRAMER_IDLE;
	count(f, &f->counters.sentences);
	switch (s.csum) {
	case GPSPHC_CSUM_OK:
		count(f, &f->counters.csum_ok);
		break;
	case GPSPHC_CSUM_MISSING:
		count(f, &f->counters.csum_missing);
		break;
	default:
		count(f, &f->counters.csum_bad);
		break;
	}
	if (f->emit)
		f->emit(f->ctx, &s);
}

static void bin_start(struct gpsphc_framer *f, bool ubx, u32 left)
{
	f->state = GPSPHC_FRAMER_BIN_BODY;
	f->bin_ubx = ubx;
	f->bin_left = left;
	f->bin_good = true;
}

/* Last byte of a UBX header: take it as a frame, or scan it again. */
static void ubx_header_end(struct gpsphc_framer *f)
{
	u32 plen = f->hdr[4] | (u32)f->hdr[5] << 8;
	u32 i;

	if (plen <= GPSPHC_FRAMER_UBX_MAX_PAYLOAD) {
		f->ck_a = 0;
		f->ck_b = 0;
		for (i = 2; i < GPSPHC_FRAMER_UBX_HDR_LEN; i++)
			ubx_ck_byte(f, f->hdr[i]);
		bin_start(f, true, plen + UBX_CK_LEN);
		return;
	}
	/*
	 * Not a frame: 0xb5 was noise. Scan the bytes after it again, so a
	 * '$' among them still starts its sentence. The replay queue is
	 * empty here: a header needs six bytes, one more than a replay
	 * holds, so its last byte always comes from the live input.
	 */
	count(f, &f->counters.noise_bytes);
	f->state = GPSPHC_FRAMER_IDLE;
	for (i = 1; i < GPSPHC_FRAMER_UBX_HDR_LEN; i++) {
		f->replay[i - 1] = f->hdr[i];
		f->replay_ns[i - 1] = f->hdr_ns[i];
	}
	f->replay_len = GPSPHC_FRAMER_UBX_HDR_LEN - 1;
	f->replay_pos = 0;
}

/* One byte of a binary frame's body (payload, then checksum) */
static void bin_body_byte(struct gpsphc_framer *f, u8 c)
{
	u32 left = f->bin_left--;
	u8 want;

	if (f->bin_ubx) {
		if (left > UBX_CK_LEN) {
			ubx_ck_byte(f, c);
			return;
		}
		want = left == 2 ? f->ck_a : f->ck_b;
	} else {
		if (left > RTCM_CRC_LEN) {
			f->crc = crc24q_byte(f->crc, c);
			return;
		}
		want = (u8)(f->crc >> (8 * (left - 1)));
	}
	if (c != want)
		f->bin_good = false;
	if (left > 1)
		return;
	if (f->bin_good)
		count(f, &f->counters.binary_frames);
	else
		count(f, &f->counters.binary_bad);
	f->state = GPSPHC_FRAMER_IDLE;
}

/* A flagged byte: drop it and abort whatever it falls in. */
static void flagged_byte(struct gpsphc_framer *f)
{
	count(f, &f->counters.flag_bytes);
	switch (f->state) {
	case GPSPHC_FRAMER_SENTENCE:
		count(f, &f->counters.flag_aborts);
		f->state = GPSPHC_FRAMER_SKIP;
		break;
	case GPSPHC_FRAMER_SKIP:
		break;
	default:
		/* A sync byte alone (UBX's, RTCM's before a length): noise. */
		if (f->state == GPSPHC_FRAMER_UBX_SYNC ||
		    (f->state == GPSPHC_FRAMER_RTCM_HDR && f->len == 0))
			count(f, &f->counters.noise_bytes);
		f->state = GPSPHC_FRAMER_IDLE;
		break;
	}
}

/* One unflagged byte, arrived at @ns */
static void framer_byte(struct gpsphc_framer *f, u8 c, u64 ns)
{
again:
	switch (f->state) {
	case GPSPHC_FRAMER_IDLE:
		if (is_start(c)) {
			sentence_start(f, c, ns);
		} else if (c == UBX_SYNC1) {
			f->hdr[0] = c;
			f->hdr_ns[0] = ns;
			f->state = GPSPHC_FRAMER_UBX_SYNC;
		} else if (c == RTCM_SYNC) {
			f->crc = crc24q_byte(0, c);
			f->len = 0;
			f->state = GPSPHC_FRAMER_RTCM_HDR;
		} else if (!is_eol(c)) {
			count(f, &f->counters.noise_bytes);
		}
		break;
	case GPSPHC_FRAMER_SENTENCE:
		if (is_eol(c)) {
			sentence_end(f);
		} else if (is_start(c)) {
			count(f, &f->counters.truncated);
			sentence_start(f, c, ns);
		} else if (!is_printable(c)) {
			count(f, &f->counters.invalid);
			f->state = GPSPHC_FRAMER_SKIP;
			goto again;	/* to SKIP: noise or a binary frame */
		} else if (f->len >= GPSPHC_FRAMER_MAX_LEN) {
			count(f, &f->counters.overlong);
			f->state = GPSPHC_FRAMER_SKIP;
		} else {
			f->buf[f->len++] = c;
		}
		break;
	case GPSPHC_FRAMER_SKIP:
		if (is_start(c)) {
			sentence_start(f, c, ns);
		} else if (is_eol(c)) {
			f->state = GPSPHC_FRAMER_IDLE;
		} else if (is_sync(c)) {
			f->state = GPSPHC_FRAMER_IDLE;
			goto again;
		} else if (!is_printable(c)) {
			count(f, &f->counters.noise_bytes);
		}
		break;
	case GPSPHC_FRAMER_UBX_SYNC:
		if (c != UBX_SYNC2) {
			count(f, &f->counters.noise_bytes);
			f->state = GPSPHC_FRAMER_IDLE;
			goto again;
		}
		f->hdr[1] = c;
		f->hdr_ns[1] = ns;
		f->len = 2;
		f->state = GPSPHC_FRAMER_UBX_HDR;
		break;
	case GPSPHC_FRAMER_UBX_HDR:
		f->hdr[f->len] = c;
		f->hdr_ns[f->len] = ns;
		if (++f->len == GPSPHC_FRAMER_UBX_HDR_LEN)
			ubx_header_end(f);
		break;
	case GPSPHC_FRAMER_RTCM_HDR:
		if (f->len == 0 && (c & 0xfc)) {
			/* Reserved bits set: 0xd3 was noise. */
			count(f, &f->counters.noise_bytes);
			f->state = GPSPHC_FRAMER_IDLE;
			goto again;
		}
		f->crc = crc24q_byte(f->crc, c);
		if (f->len++ == 0) {
			f->bin_left = (u32)c << 8;
			break;
		}
		bin_start(f, false, (f->bin_left | c) + RTCM_CRC_LEN);
		break;
	case GPSPHC_FRAMER_BIN_BODY:
		bin_body_byte(f, c);
		break;
	}
}

/*
 * The body of a sentence is most of an NMEA stream: copy a run of bytes
 * that framer_byte() would append one by one (printable, not a start
 * byte, unflagged, room left) without its per-byte work.
 * Return: the bytes taken from @buf.
 */
static size_t sentence_body_run(struct gpsphc_framer *f, const u8 *buf,
				const u8 *flags, size_t count)
{
	size_t n = 0;

	while (n < count && f->len < GPSPHC_FRAMER_MAX_LEN &&
	       is_printable(buf[n]) && !is_start(buf[n]) &&
	       !(flags && flags[n]))
		f->buf[f->len++] = buf[n++];
	return n;
}

void gpsphc_framer_feed(struct gpsphc_framer *f, const u8 *buf,
			const u8 *flags, size_t count, u64 chunk_ns)
{
	size_t i;

	for (i = 0; i < count; i++) {
		if (f->state == GPSPHC_FRAMER_SENTENCE) {
			i += sentence_body_run(f, buf + i, flags ? flags + i : NULL,
					       count - i);
			if (i == count)
				break;
		}
		if (flags && flags[i]) {
			flagged_byte(f);
			continue;
		}
		framer_byte(f, buf[i], byte_time(f, count, i, chunk_ns));
		while (f->replay_pos < f->replay_len) {
			u32 p = f->replay_pos++;

			framer_byte(f, f->replay[p], f->replay_ns[p]);
		}
		f->replay_len = 0;
		f->replay_pos = 0;
	}
}

void gpsphc_framer_reset(struct gpsphc_framer *f)
{
	if (f->state == GPSPHC_FRAMER_SENTENCE)
		count(f, &f->counters.truncated);
	f->state = GPSPHC_FRAMER_IDLE;
	f->len = 0;
}

void gpsphc_framer_set_byte_ns(struct gpsphc_framer *f, u32 byte_ns)
{
	f->byte_ns = byte_ns;
}

void gpsphc_framer_init(struct gpsphc_framer *f, u32 byte_ns,
			gpsphc_framer_emit_t emit, void *ctx)
{
	*f = (struct gpsphc_framer) {
		.emit = emit,
		.ctx = ctx,
		.byte_ns = byte_ns,
		.state = GPSPHC_FRAMER_IDLE,
	};
	u64_stats_init(&f->syncp);
}
