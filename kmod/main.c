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

	gpsphc_ldisc_ops.owner = THIS_MODULE;
	gpsphc_ldisc_ops.num = ldisc;
	gpsphc_ldisc_ops.name = "gpsphc";
	gpsphc_ldisc_ops.open = gpsphc_ldisc_open;
	gpsphc_ldisc_ops.close = gpsphc_ldisc_close;

	ret = gpsphc_class_register();
	if (ret)
		return ret;

	ret = tty_register_ldisc(&gpsphc_ldisc_ops);
	if (ret)
		goto out_unregister_class;

	pr_info("line discipline %d registered\n", ldisc);
	return 0;

out_unregister_class:
	gpsphc_class_unregister();
	return ret;
}

static void __exit gpsphc_exit(void)
{
	/* The ldisc's module reference keeps us loaded while a tty uses it. */
	tty_unregister_ldisc(&gpsphc_ldisc_ops);
	gpsphc_class_unregister();
}

module_init(gpsphc_init);
module_exit(gpsphc_exit);

MODULE_ALIAS_LDISC(N_DEVELOPMENT);
MODULE_DESCRIPTION("GNSS receiver on a tty as a PTP hardware clock");
MODULE_LICENSE("GPL");
