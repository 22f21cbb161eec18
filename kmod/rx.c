// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: the receive path. Every chunk the tty layer hands the discipline
 * is timestamped on entry and framed into sentences; n_tty then gets the
 * same bytes unchanged.
 */

#include <linux/timekeeping.h>
#include <linux/tty.h>

#include "dev.h"
#include "events.h"
#include "framer.h"
#include "rx.h"

/*
 * A character on an 8N1 line is 10 bits: 86806 ns at 115200 baud. Ten
 * seconds of nanoseconds need 64 bits, also where a long has 32; below
 * 3 baud the time is past a u32 and saturates.
 */
static u32 gpsphc_byte_ns(struct tty_struct *tty)
{
	speed_t baud = tty_get_baud_rate(tty);

	if (!baud)
		return 0;
	return min_t(u64, DIV_ROUND_CLOSEST_ULL(10 * (u64)NSEC_PER_SEC, baud),
		     U32_MAX);
}

static void gpsphc_rx_emit(void *ctx, const struct gpsphc_sentence *s)
{
	gpsphc_events_sentence(ctx, s);
}

/**
 * gpsphc_rx_init() - set up the framer of a new device
 * @gdev: the device, its tty set
 */
void gpsphc_rx_init(struct gpsphc_dev *gdev)
{
	gpsphc_framer_init(&gdev->framer, gpsphc_byte_ns(gdev->tty),
			   gpsphc_rx_emit, gdev);
}

/**
 * gpsphc_rx_chunk() - frame a chunk of received bytes
 * @gdev: the device
 * @cp: the bytes
 * @fp: their TTY_* flags, or NULL
 * @count: number of bytes
 *
 * Context: the tty's receive path (process context, one call at a time
 * per tty).
 */
void gpsphc_rx_chunk(struct gpsphc_dev *gdev, const u8 *cp, const u8 *fp,
		     size_t count)
{
	struct system_time_snapshot snap;

	ktime_get_snapshot(&snap);
	gdev->rx_real_offset_ns = ktime_to_ns(ktime_sub(snap.real, snap.raw));
	/* The line speed may have changed since the last chunk. */
	gpsphc_framer_set_byte_ns(&gdev->framer, gpsphc_byte_ns(gdev->tty));

	/* Edges that came before this chunk are notified before its sentences. */
	gpsphc_events_rx_begin(gdev);
	gpsphc_framer_feed(&gdev->framer, cp, fp, count, ktime_to_ns(snap.raw));
	gpsphc_events_rx_end(gdev);
}

/*
 * Flip-buffer bytes nobody has read that n_tty may hold back before it
 * must drop a chunk: well past n_tty's own 4 KiB, far below the flip
 * buffer's 640 KiB limit.
 */
#define GPSPHC_RX_BACKLOG_MAX	(16 * 1024)

/* Frame the part of stream bytes [@start, @start + @count) not yet framed. */
static void gpsphc_rx_stream(struct gpsphc_dev *gdev, u64 start, const u8 *cp,
			     const u8 *fp, size_t count)
{
	u64 end = start + count;
	size_t seen;

	if (end <= gdev->rx_framed)
		return;
	seen = gdev->rx_framed > start ? gdev->rx_framed - start : 0;
	gpsphc_rx_chunk(gdev, cp + seen, fp ? fp + seen : NULL, count - seen);
	gdev->rx_framed = end;
}

/**
 * gpsphc_rx_offered() - the flip buffer offers bytes to the discipline
 * @gdev: the device
 * @cp: the bytes, starting at the first one not yet consumed
 * @fp: their flags, or NULL
 * @count: number of bytes
 *
 * Context: flip-buffer worker, buffer lock held (as for all rx_* calls).
 */
void gpsphc_rx_offered(struct gpsphc_dev *gdev, const u8 *cp, const u8 *fp,
		       size_t count)
{
	gpsphc_rx_stream(gdev, gdev->rx_consumed, cp, fp, count);
}

/**
 * gpsphc_rx_consumed() - n_tty took @taken of the @count offered bytes
 * @gdev: the device
 * @taken: bytes n_tty took
 * @count: bytes offered
 *
 * Return: the bytes to report consumed to the tty layer: @taken, or all
 * of them when n_tty has no room and nobody has read for a long while.
 */
size_t gpsphc_rx_consumed(struct gpsphc_dev *gdev, size_t taken, size_t count)
{
	if (!taken && gdev->rx_framed - gdev->rx_consumed > GPSPHC_RX_BACKLOG_MAX)
		taken = count;
	gdev->rx_consumed += taken;
	return taken;
}

/**
 * gpsphc_rx_lookahead() - bytes queued behind those n_tty had no room for
 * @gdev: the device
 * @cp: the bytes
 * @fp: their flags, or NULL
 * @count: number of bytes
 *
 * The tty layer shows each byte once this way, continuing where the last
 * lookahead ended, or at the first unconsumed byte if that is later.
 */
void gpsphc_rx_lookahead(struct gpsphc_dev *gdev, const u8 *cp, const u8 *fp,
			 size_t count)
{
	u64 start = max(gdev->rx_lookahead_end, gdev->rx_consumed);

	gpsphc_rx_stream(gdev, start, cp, fp, count);
	gdev->rx_lookahead_end = start + count;
}

/**
 * gpsphc_rx_flushed() - the flip buffer was emptied (TCIFLUSH, hangup)
 * @gdev: the device
 *
 * Positions restart at zero; a sentence cut by the flush is dropped.
 */
void gpsphc_rx_flushed(struct gpsphc_dev *gdev)
{
	gdev->rx_consumed = 0;
	gdev->rx_framed = 0;
	gdev->rx_lookahead_end = 0;
	gpsphc_framer_reset(&gdev->framer);
}
