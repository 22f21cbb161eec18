/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc NMEA sentence framer.
 *
 * Pure C with no kernel calls but u64_stats (below, the host's): the same
 * file builds into the gpsphc line discipline and into the host tests and
 * the libFuzzer target (tools/testing/host/). It does no locking and no
 * allocation: the caller embeds a struct gpsphc_framer per tty and
 * serialises every call on it (the tty layer already serialises
 * receive_buf per tty). Only the counters may be read meanwhile, with
 * u64_stats_read() between u64_stats_fetch_begin() and
 * u64_stats_fetch_retry() on the framer's @syncp.
 *
 * Byte classes, as the framer sees a received stream:
 *
 * - A sentence starts at '$' or '!' and ends at CR or LF (CR LF ends it
 *   once: the LF that follows is then idle whitespace). Its bytes must be
 *   printable ASCII (0x20..0x7e). It may hold at most %GPSPHC_FRAMER_MAX_LEN
 *   bytes counted from the start byte up to and including the checksum,
 *   without the CR LF.
 * - A u-blox UBX frame (0xb5 0x62 class id len16le payload ck_a ck_b) or an
 *   RTCM3 frame (0xd3, 6 zero bits, len10, payload, CRC-24Q) seen outside a
 *   sentence is skipped whole by its length, so a '$' in its payload never
 *   starts a sentence. A UBX header declaring more than
 *   %GPSPHC_FRAMER_UBX_MAX_PAYLOAD bytes, or an RTCM3 header with a
 *   reserved bit set, is not a frame: the sync byte counts as noise and the
 *   bytes after it are scanned again. Limitation: noise that happens to
 *   look like a valid header hides the following bytes, up to the declared
 *   length (at most 8 KiB for UBX, 1 KiB for RTCM3); such a false frame
 *   then counts under @binary_bad.
 * - Anything else outside a sentence or frame is noise, except CR and LF.
 *
 * Nothing the framer rejects swallows the sentence that follows it: after
 * a sentence is aborted (overlong, invalid byte, flagged byte) the framer
 * discards the rest of that line: printable bytes silently, other bytes
 * as noise, up to the next '$' or '!' (which starts a new sentence), CR or
 * LF (idle again), or binary sync byte 0xb5 or 0xd3 (which may start a
 * binary frame).
 */
#ifndef _GPSPHC_FRAMER_H
#define _GPSPHC_FRAMER_H

#include "pure_types.h"
#include "uapi/linux/gpsphc.h"

#ifdef __KERNEL__
#include <linux/u64_stats_sync.h>
#else
/* The host's u64_stats, for one thread: a counter is a plain u64. */
typedef u64 u64_stats_t;
struct u64_stats_sync {
};

static inline void u64_stats_init(struct u64_stats_sync *syncp)
{
	(void)syncp;
}

static inline unsigned long
u64_stats_update_begin_irqsave(struct u64_stats_sync *syncp)
{
	(void)syncp;
	return 0;
}

static inline void
u64_stats_update_end_irqrestore(struct u64_stats_sync *syncp,
				unsigned long flags)
{
	(void)syncp;
	(void)flags;
}

static inline void u64_stats_inc(u64_stats_t *p)
{
	(*p)++;
}
#endif

/*
 * Longest sentence accepted, in bytes from '$'/'!' to the end of '*hh',
 * without CR LF. NMEA 0183 allows 82 with CR LF; proprietary sentences
 * ($PUBX, $PGRM..., $PSRF...) run longer, so allow about twice that.
 */
#define GPSPHC_FRAMER_MAX_LEN		160

/* Longest UBX payload taken as a frame; longer headers are noise. */
#define GPSPHC_FRAMER_UBX_MAX_PAYLOAD	8192

/*
 * enum gpsphc_csum, the checksum status of an emitted sentence, is part of
 * the netlink protocol and defined there:
 * GPSPHC_CSUM_OK: the sentence ends in '*hh' (hex, either case) and hh is
 *	the XOR of every byte between the start byte and '*'.
 * GPSPHC_CSUM_MISSING: the sentence holds no '*' at all.
 * GPSPHC_CSUM_BAD: the sentence ends in '*hh' and hh does not match, or
 *	it holds a '*' that is not followed by exactly two hex digits and
 *	the end of the sentence.
 */

/**
 * struct gpsphc_sentence - a complete sentence, handed to the emit callback
 * @data: the sentence from its '$' or '!' up to and excluding CR/LF. It
 *	points into the framer and is valid only during the callback.
 * @len: bytes at @data, 1..%GPSPHC_FRAMER_MAX_LEN.
 * @seq: sequence number: 0 for the first sentence emitted after
 *	gpsphc_framer_init(), then one more per emitted sentence, wrapping.
 * @start_ns: estimated arrival time of the start byte, see
 *	gpsphc_framer_feed().
 * @csum: checksum status.
 */
struct gpsphc_sentence {
	const u8 *data;
	u32 len;
	u32 seq;
	u64 start_ns;
	enum gpsphc_csum csum;
};

/**
 * struct gpsphc_framer_counters - what the framer saw, since init
 *
 * u64_stats_t, written under struct gpsphc_framer's @syncp: a reader
 * elsewhere gets whole values on a 32-bit CPU too.
 *
 * @sentences: sentences emitted (terminated by CR or LF, whatever their
 *	checksum). Always @csum_ok + @csum_missing + @csum_bad.
 * @csum_ok: emitted with %GPSPHC_CSUM_OK.
 * @csum_missing: emitted with %GPSPHC_CSUM_MISSING.
 * @csum_bad: emitted with %GPSPHC_CSUM_BAD.
 * @overlong: sentences aborted because a byte other than CR, LF, '$' or
 *	'!' arrived when %GPSPHC_FRAMER_MAX_LEN bytes were already held.
 * @truncated: sentences cut short before their terminator by a new '$' or
 *	'!' (which starts the next sentence), or discarded by
 *	gpsphc_framer_reset().
 * @invalid: sentences aborted by a byte outside 0x20..0x7e other than CR
 *	and LF. That byte also counts under @noise_bytes, unless it is 0xb5
 *	or 0xd3 and so may start a binary frame.
 * @flag_aborts: sentences aborted by a flagged byte.
 * @flag_bytes: bytes received with a non-zero flag (TTY_BREAK, TTY_FRAME,
 *	TTY_PARITY, TTY_OVERRUN, ...), wherever they fall. Such a byte is
 *	dropped; it aborts the sentence or binary frame it falls in.
 * @noise_bytes: unflagged bytes outside any sentence and binary frame
 *	other than CR and LF, including the sync byte of a header that turned
 *	out not to be a frame; but the printable bytes discarded after an
 *	aborted sentence, up to the end of its line, are not counted.
 * @binary_frames: UBX and RTCM3 frames skipped whole with a good checksum.
 * @binary_bad: UBX and RTCM3 frames skipped whole whose checksum failed.
 *	Frames aborted by a flagged byte count in neither.
 */
struct gpsphc_framer_counters {
	u64_stats_t sentences;
	u64_stats_t csum_ok;
	u64_stats_t csum_missing;
	u64_stats_t csum_bad;
	u64_stats_t overlong;
	u64_stats_t truncated;
	u64_stats_t invalid;
	u64_stats_t flag_aborts;
	u64_stats_t flag_bytes;
	u64_stats_t noise_bytes;
	u64_stats_t binary_frames;
	u64_stats_t binary_bad;
};

/**
 * enum gpsphc_framer_state - where in the stream the framer is (internal)
 * @GPSPHC_FRAMER_IDLE: between sentences and frames.
 * @GPSPHC_FRAMER_SENTENCE: inside a sentence.
 * @GPSPHC_FRAMER_SKIP: discarding the rest of an aborted sentence's line.
 * @GPSPHC_FRAMER_UBX_SYNC: saw 0xb5, waiting for 0x62.
 * @GPSPHC_FRAMER_UBX_HDR: collecting UBX class, id and length.
 * @GPSPHC_FRAMER_RTCM_HDR: collecting the RTCM3 length.
 * @GPSPHC_FRAMER_BIN_BODY: skipping a binary frame's payload and checksum.
 */
enum gpsphc_framer_state {
	GPSPHC_FRAMER_IDLE,
	GPSPHC_FRAMER_SENTENCE,
	GPSPHC_FRAMER_SKIP,
	GPSPHC_FRAMER_UBX_SYNC,
	GPSPHC_FRAMER_UBX_HDR,
	GPSPHC_FRAMER_RTCM_HDR,
	GPSPHC_FRAMER_BIN_BODY,
};

/* UBX header bytes from 0xb5 to the high length byte */
#define GPSPHC_FRAMER_UBX_HDR_LEN	6

/**
 * typedef gpsphc_framer_emit_t - receives each complete sentence
 * @ctx: the pointer given to gpsphc_framer_init().
 * @s: the sentence; @s and @s->data are valid only during the call.
 *
 * Called from gpsphc_framer_feed(), in the caller's context, once per
 * sentence, in arrival order. It must not call back into the framer.
 */
typedef void (*gpsphc_framer_emit_t)(void *ctx,
				     const struct gpsphc_sentence *s);

/**
 * struct gpsphc_framer - per-tty framer state, embedded by its user
 * @counters: statistics; see struct gpsphc_framer_counters.
 * @syncp: each change of @counters is inside an update on it.
 * @emit: sentence callback, or NULL to only count.
 * @ctx: argument for @emit.
 * @byte_ns: time one character takes on the line, in ns; 0 disables
 *	back-dating.
 * @seq: sequence number of the next emitted sentence.
 * @state: where in the stream the framer is.
 * @len: bytes held in @buf (sentence) or @hdr (UBX header).
 * @start_ns: arrival estimate of the current sentence's start byte.
 * @bin_left: bytes of the current binary frame still to skip, checksum
 *	included.
 * @bin_ubx: the current binary frame is UBX (else RTCM3).
 * @bin_good: the checksum bytes seen so far in the frame matched.
 * @ck_a: running UBX checksum A.
 * @ck_b: running UBX checksum B.
 * @crc: running RTCM3 CRC-24Q.
 * @replay_len: bytes in @replay still to scan again.
 * @replay_pos: next byte of @replay to scan.
 * @hdr: UBX header bytes so far, kept to be scanned again if the header
 *	turns out not to be one.
 * @hdr_ns: arrival estimates of the bytes in @hdr.
 * @replay: bytes of a rejected UBX header after its 0xb5.
 * @replay_ns: arrival estimates of the bytes in @replay.
 * @buf: the sentence being collected.
 */
struct gpsphc_framer {
	struct gpsphc_framer_counters counters;
	struct u64_stats_sync syncp;
	gpsphc_framer_emit_t emit;
	void *ctx;
	u32 byte_ns;
	u32 seq;
	enum gpsphc_framer_state state;
	u32 len;
	u64 start_ns;
	u32 bin_left;
	bool bin_ubx;
	bool bin_good;
	u8 ck_a;
	u8 ck_b;
	u32 crc;
	u32 replay_len;
	u32 replay_pos;
	u8 hdr[GPSPHC_FRAMER_UBX_HDR_LEN];
	u64 hdr_ns[GPSPHC_FRAMER_UBX_HDR_LEN];
	u8 replay[GPSPHC_FRAMER_UBX_HDR_LEN];
	u64 replay_ns[GPSPHC_FRAMER_UBX_HDR_LEN];
	u8 buf[GPSPHC_FRAMER_MAX_LEN];
};

/**
 * gpsphc_framer_init() - set a framer up, counters and sequence at zero
 * @f: the framer.
 * @byte_ns: time one character takes on the line in ns (10 bits / baud:
 *	86806 at 115200 baud), or 0 to stamp every byte with the chunk time.
 * @emit: called for each complete sentence, or NULL.
 * @ctx: passed to @emit.
 */
void gpsphc_framer_init(struct gpsphc_framer *f, u32 byte_ns,
			gpsphc_framer_emit_t emit, void *ctx);

/**
 * gpsphc_framer_set_byte_ns() - change the character time (baud change)
 * @f: the framer.
 * @byte_ns: as for gpsphc_framer_init().
 */
void gpsphc_framer_set_byte_ns(struct gpsphc_framer *f, u32 byte_ns);

/**
 * gpsphc_framer_reset() - forget any partial sentence or binary frame
 * @f: the framer.
 *
 * For when the byte stream has a gap the framer cannot see (a tty buffer
 * flush). A partial sentence counts under @truncated; counters, sequence
 * number and byte time are kept.
 */
void gpsphc_framer_reset(struct gpsphc_framer *f);

/**
 * gpsphc_framer_feed() - scan a chunk of received bytes
 * @f: the framer.
 * @buf: the bytes, exactly as received; the framer never changes them.
 * @flags: one TTY_* flag per byte (0 is TTY_NORMAL), or NULL if all are 0.
 * @count: bytes at @buf (and @flags).
 * @chunk_ns: the time the chunk was taken from the line (read when the
 *	receive path was entered).
 *
 * Sentences are emitted, in order, when their terminator arrives, so a
 * sentence may span any number of chunks and a chunk may end any number.
 *
 * Timestamps: the receive path runs from the tty flip-buffer worker, so
 * @chunk_ns is taken some time after the last byte arrived: scheduling
 * latency, the UART FIFO threshold and the flip-buffer batching make it
 * millisecond-grade at best. The framer assumes the chunk's last byte
 * arrived at @chunk_ns and the bytes before it back to back, one @byte_ns
 * apart: a start byte at index i gets
 * start_ns = @chunk_ns - (@count - 1 - i) * byte_ns (0 if that would be
 * negative). This removes the chunk's own transmission time, not the
 * latency before @chunk_ns, and it is wrong for bytes that arrived with
 * gaps between them. Successive sentences get non-decreasing start_ns as
 * long as each chunk_ns is at least @count * byte_ns after the previous.
 */
void gpsphc_framer_feed(struct gpsphc_framer *f, const u8 *buf,
			const u8 *flags, size_t count, u64 chunk_ns);

/**
 * gpsphc_nmea_checksum() - NMEA checksum of a byte range
 * @data: the bytes between '$'/'!' and '*' (both excluded).
 * @len: bytes at @data.
 *
 * Return: the XOR of the bytes.
 */
u8 gpsphc_nmea_checksum(const u8 *data, u32 len);

#endif /* _GPSPHC_FRAMER_H */
