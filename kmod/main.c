// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: a tty line discipline for a GNSS receiver that sends NMEA
 * sentences and a pulse per second on DCD.
 *
 * It wraps n_tty (as pps-ldisc does), so programs can still read the tty
 * after the discipline is attached; it only adds its own work around
 * n_tty's open and close.
 */

#include <linux/capability.h>
#include <linux/module.h>
#include <linux/tty.h>
#include <linux/tty_ldisc.h>

#include "gpsphc.h"

static int ldisc = N_DEVELOPMENT;
module_param(ldisc, int, 0444);
MODULE_PARM_DESC(ldisc, "line discipline number to register (default 29, N_DEVELOPMENT); must not be used by another discipline");

static struct tty_ldisc_ops gpsphc_ldisc_ops;
/* n_tty's own operations, which ours wrap. */
static struct tty_ldisc_ops n_tty_ops;

static void gpsphc_ldisc_dcd_change(struct tty_struct *tty, bool active)
{
	struct system_time_snapshot snap;
	struct gpsphc_dev *gdev;

	/* The timestamp is the whole point: take it before anything else. */
	ktime_get_snapshot(&snap);

	gdev = gpsphc_dev_lookup(tty);
	/*
	 * Cannot fail while the ldisc is open (the caller holds an ldisc
	 * reference, detach waits for it), but the ldisc locking is
	 * convoluted enough that a miss must not crash.
	 */
	if (WARN_ON_ONCE(!gdev))
		return;
	gpsphc_pps_capture(gdev, &snap, active);
}

/*
 * The framer must see every byte once, as soon as it arrives, even when
 * nobody reads the tty; and a reader that keeps up must lose nothing.
 * n_tty keeps its flow control: what it has no room for stays in the flip
 * buffer and is offered again later, and the tty layer shows us the bytes
 * beyond it through lookahead_buf. rx.c tracks stream positions so that
 * each byte is framed once whichever way it comes. Only when nobody has
 * read for GPSPHC_RX_BACKLOG_MAX bytes does n_tty lose a chunk, as on a
 * UART without flow control: the flip buffer must not fill up and stop
 * the stream for the clock.
 */
static gpsphc_rx2_ret_t gpsphc_ldisc_receive_buf2(struct tty_struct *tty,
						  const gpsphc_rx_char_t *cp,
						  const gpsphc_rx_flag_t *fp,
						  gpsphc_rx_count_t count)
{
	struct gpsphc_dev *gdev = gpsphc_dev_lookup(tty);
	size_t taken;

	if (gdev)
		gpsphc_rx_offered(gdev, (const u8 *)cp, (const u8 *)fp, count);
	taken = n_tty_ops.receive_buf2(tty, cp, fp, count);
	if (gdev)
		taken = gpsphc_rx_consumed(gdev, taken, count);
	return taken;
}

static void gpsphc_ldisc_lookahead_buf(struct tty_struct *tty,
				       const gpsphc_rx_char_t *cp,
				       const gpsphc_rx_char_t *fp,
				       gpsphc_lookahead_count_t count)
{
	struct gpsphc_dev *gdev = gpsphc_dev_lookup(tty);

	n_tty_ops.lookahead_buf(tty, cp, fp, count);
	if (gdev)
		gpsphc_rx_lookahead(gdev, (const u8 *)cp, (const u8 *)fp, count);
}

/*
 * Bytes that do not come from the flip buffer (TIOCSTI): framed as they
 * come, outside the stream positions.
 */
static void gpsphc_ldisc_receive_buf(struct tty_struct *tty,
				     const gpsphc_rx_char_t *cp,
				     const gpsphc_rx_flag_t *fp,
				     gpsphc_rx_count_t count)
{
	struct gpsphc_dev *gdev = gpsphc_dev_lookup(tty);

	if (gdev)
		gpsphc_rx_chunk(gdev, (const u8 *)cp, (const u8 *)fp, count);
	n_tty_ops.receive_buf(tty, cp, fp, count);
}

/* The flip buffer was emptied: stream positions start again. */
static void gpsphc_ldisc_flush_buffer(struct tty_struct *tty)
{
	struct gpsphc_dev *gdev = gpsphc_dev_lookup(tty);

	if (gdev)
		gpsphc_rx_flushed(gdev);
	n_tty_ops.flush_buffer(tty);
}

static int gpsphc_ldisc_open(struct tty_struct *tty)
{
	struct gpsphc_dev *gdev;
	int ret;

	/* The discipline will steer a clock: the same right as settimeofday. */
	if (!capable(CAP_SYS_TIME))
		return -EPERM;

	ret = n_tty_ops.open(tty);
	if (ret)
		return ret;

	gdev = gpsphc_dev_attach(tty);
	if (IS_ERR(gdev)) {
		n_tty_ops.close(tty);
		return PTR_ERR(gdev);
	}

	dev_info(&gdev->dev, "attached to %s\n", gdev->tty_name);
	return 0;
}

static void gpsphc_ldisc_close(struct tty_struct *tty)
{
	gpsphc_dev_detach(tty);
	n_tty_ops.close(tty);
}

static int __init gpsphc_init(void)
{
	int ret;

	/*
	 * tty_register_ldisc() silently replaces whatever is registered
	 * under the number; refuse at least the one every tty depends on.
	 */
	if (ldisc <= N_TTY || ldisc >= NR_LDISCS) {
		pr_err("ldisc=%d is out of range: use 1..%d, not a number another discipline uses (default %d)\n",
		       ldisc, NR_LDISCS - 1, N_DEVELOPMENT);
		return -EINVAL;
	}

	n_tty_inherit_ops(&n_tty_ops);
	gpsphc_ldisc_ops = n_tty_ops;

	gpsphc_ldisc_ops.owner = THIS_MODULE;
	gpsphc_ldisc_ops.num = ldisc;
	gpsphc_ldisc_ops.name = "gpsphc";
	gpsphc_ldisc_ops.open = gpsphc_ldisc_open;
	gpsphc_ldisc_ops.close = gpsphc_ldisc_close;
	gpsphc_ldisc_ops.receive_buf = gpsphc_ldisc_receive_buf;
	gpsphc_ldisc_ops.receive_buf2 = gpsphc_ldisc_receive_buf2;
	gpsphc_ldisc_ops.lookahead_buf = gpsphc_ldisc_lookahead_buf;
	gpsphc_ldisc_ops.flush_buffer = gpsphc_ldisc_flush_buffer;
	gpsphc_ldisc_ops.dcd_change = gpsphc_ldisc_dcd_change;

	ret = gpsphc_class_register();
	if (ret)
		return ret;

	ret = gpsphc_netlink_register();
	if (ret)
		goto out_unregister_class;

	ret = tty_register_ldisc(&gpsphc_ldisc_ops);
	if (ret)
		goto out_unregister_netlink;

	pr_info("line discipline %d registered\n", ldisc);
	return 0;

out_unregister_netlink:
	gpsphc_netlink_unregister();
out_unregister_class:
	gpsphc_class_unregister();
	return ret;
}

static void __exit gpsphc_exit(void)
{
	/* The ldisc's module reference keeps us loaded while a tty uses it. */
	tty_unregister_ldisc(&gpsphc_ldisc_ops);
	gpsphc_netlink_unregister();
	gpsphc_class_unregister();
}

module_init(gpsphc_init);
module_exit(gpsphc_exit);

MODULE_ALIAS_LDISC(N_DEVELOPMENT);
MODULE_DESCRIPTION("GNSS receiver on a tty as a PTP hardware clock");
MODULE_LICENSE("GPL");
MODULE_VERSION(GPSPHC_VERSION);
