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
static int (*n_tty_open_op)(struct tty_struct *tty);
static void (*n_tty_close_op)(struct tty_struct *tty);
static void (*n_tty_receive_buf_op)(struct tty_struct *tty,
				    const gpsphc_rx_char_t *cp,
				    const gpsphc_rx_flag_t *fp,
				    gpsphc_rx_count_t count);
static gpsphc_rx2_ret_t (*n_tty_receive_buf2_op)(struct tty_struct *tty,
						 const gpsphc_rx_char_t *cp,
						 const gpsphc_rx_flag_t *fp,
						 gpsphc_rx_count_t count);

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
 * The framer must see every byte even when nobody reads the tty, and a
 * reader that keeps up must lose nothing. So each chunk is framed when it
 * is first offered, and n_tty takes what it has room for (flow control
 * as usual: the rest is offered again later and is not framed twice).
 * Only when n_tty has no room at all (nobody reads, or a reader is 4 KiB
 * behind) is the chunk dropped for n_tty, as a UART without flow control
 * would drop it: the clock never stalls.
 */
static gpsphc_rx2_ret_t gpsphc_ldisc_receive_buf2(struct tty_struct *tty,
						  const gpsphc_rx_char_t *cp,
						  const gpsphc_rx_flag_t *fp,
						  gpsphc_rx_count_t count)
{
	struct gpsphc_dev *gdev = gpsphc_dev_lookup(tty);
	size_t taken;

	if (gdev) {
		size_t seen = min_t(size_t, gdev->rx_ahead, count);

		gpsphc_rx_chunk(gdev, (const u8 *)cp + seen,
				fp ? (const u8 *)fp + seen : NULL, count - seen);
	}
	taken = n_tty_receive_buf2_op(tty, cp, fp, count);
	if (!taken)
		taken = count;
	if (gdev)
		gdev->rx_ahead = count - taken;
	return taken;
}

/* Only for drivers that bypass receive_buf2: no flow control there. */
static void gpsphc_ldisc_receive_buf(struct tty_struct *tty,
				     const gpsphc_rx_char_t *cp,
				     const gpsphc_rx_flag_t *fp,
				     gpsphc_rx_count_t count)
{
	struct gpsphc_dev *gdev = gpsphc_dev_lookup(tty);

	if (gdev) {
		gpsphc_rx_chunk(gdev, (const u8 *)cp, (const u8 *)fp, count);
		gdev->rx_ahead = 0;
	}
	n_tty_receive_buf_op(tty, cp, fp, count);
}

static int gpsphc_ldisc_open(struct tty_struct *tty)
{
	struct gpsphc_dev *gdev;
	int ret;

	/* The discipline will steer a clock: the same right as settimeofday. */
	if (!capable(CAP_SYS_TIME))
		return -EPERM;

	ret = n_tty_open_op(tty);
	if (ret)
		return ret;

	gdev = gpsphc_dev_attach(tty);
	if (IS_ERR(gdev)) {
		n_tty_close_op(tty);
		return PTR_ERR(gdev);
	}

	dev_info(&gdev->dev, "attached to %s\n", gdev->tty_name);
	return 0;
}

static void gpsphc_ldisc_close(struct tty_struct *tty)
{
	gpsphc_dev_detach(tty);
	n_tty_close_op(tty);
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

	n_tty_inherit_ops(&gpsphc_ldisc_ops);
	n_tty_open_op = gpsphc_ldisc_ops.open;
	n_tty_close_op = gpsphc_ldisc_ops.close;
	n_tty_receive_buf_op = gpsphc_ldisc_ops.receive_buf;
	n_tty_receive_buf2_op = gpsphc_ldisc_ops.receive_buf2;

	gpsphc_ldisc_ops.owner = THIS_MODULE;
	gpsphc_ldisc_ops.num = ldisc;
	gpsphc_ldisc_ops.name = "gpsphc";
	gpsphc_ldisc_ops.open = gpsphc_ldisc_open;
	gpsphc_ldisc_ops.close = gpsphc_ldisc_close;
	gpsphc_ldisc_ops.receive_buf = gpsphc_ldisc_receive_buf;
	gpsphc_ldisc_ops.receive_buf2 = gpsphc_ldisc_receive_buf2;
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
