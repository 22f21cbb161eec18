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
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/serial_core.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/tty.h>
#include <linux/tty_ldisc.h>
#include <linux/workqueue.h>

#include "dev.h"
#include "gpio.h"
#include "netlink.h"
#include "pps.h"
#include "rx.h"

static int ldisc = N_DEVELOPMENT;
module_param(ldisc, int, 0444);
MODULE_PARM_DESC(ldisc, "line discipline number to register (default 29, N_DEVELOPMENT); must not be used by another discipline");

static struct tty_ldisc_ops gpsphc_ldisc_ops;
/* n_tty's own operations, which ours wrap. */
static struct tty_ldisc_ops n_tty_ops;

/*
 * The uart_state of @tty if a serial_core driver serves it, else NULL.
 * serial_core makes its tty_driver's driver_state the uart_driver, and
 * each tty's driver_data that driver's uart_state of the line, whose
 * tty_port is the tty's. (Two other drivers in the tree set driver_state,
 * mips_ejtag_fdc and vcc, to objects larger than a uart_driver, which do
 * not point back at the tty_driver.)
 */
static struct uart_state *gpsphc_uart_state(struct tty_struct *tty)
{
	struct tty_driver *driver = tty->driver;
	struct uart_driver *drv = driver->driver_state;
	struct uart_state *state = tty->driver_data;

	if (driver->type != TTY_DRIVER_TYPE_SERIAL || !drv ||
	    drv->tty_driver != driver || !drv->state ||
	    tty->index < 0 || tty->index >= drv->nr ||
	    state != drv->state + tty->index || tty->port != &state->port)
		return NULL;
	return state;
}

/*
 * A UART of the 8250 family raises DCD interrupts only while its modem
 * status interrupt (IER.MSI) is on. The 8250 driver turns it off for any
 * discipline but N_PPS when CLOCAL is set and CRTSCTS is not, at
 * set_ldisc (serial8250_do_set_ldisc(): right after our open) and at
 * every termios change (serial8250_do_set_termios(): gpsd setting the
 * speed, an stty); pl011 starts with it off. gpsphcd sets CLOCAL (a USB
 * adapter hangs the tty up when DCD drops without it), so the discipline
 * turns the interrupt back on itself, each time, the way TIOCMIWAIT does
 * (uart_wait_modem_status()): the driver's enable_ms, under the port
 * mutex (which keeps the uart_port from going away) and the port lock.
 */
static void gpsphc_uart_enable_ms(struct tty_struct *tty)
{
	struct uart_state *state = gpsphc_uart_state(tty);
	struct uart_port *uport;

	if (!state)
		return;
	mutex_lock(&state->port.mutex);
	uport = state->uart_port;
	if (uport && uport->ops->enable_ms &&
	    tty_port_initialized(&state->port)) {
		uart_port_lock_irq(uport);
		uport->ops->enable_ms(uport);
		uart_port_unlock_irq(uport);
	}
	mutex_unlock(&state->port.mutex);
}

/*
 * The ttys whose TIOCSETD is still running its set_ldisc (which turns the
 * interrupt off after our open), and the work that turns it on again once
 * the change is done: it can take a reference to the discipline then.
 */
struct gpsphc_ms_pending {
	struct list_head node;
	struct tty_struct *tty;
};

static LIST_HEAD(gpsphc_ms_pending_list);
static DEFINE_MUTEX(gpsphc_ms_pending_lock);	/* the list */
static void gpsphc_ms_pending_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(gpsphc_ms_pending_dwork, gpsphc_ms_pending_work);

static void gpsphc_ms_pending_work(struct work_struct *work)
{
	struct gpsphc_ms_pending *p, *tmp;
	bool retry = false;

	mutex_lock(&gpsphc_ms_pending_lock);
	list_for_each_entry_safe(p, tmp, &gpsphc_ms_pending_list, node) {
		/*
		 * Fails while TIOCSETD holds the discipline for writing. The
		 * entry is ours until gpsphc_ms_forget(), which the close
		 * that ends the tty's use of the discipline calls first.
		 */
		struct tty_ldisc *ld = tty_ldisc_ref(p->tty);

		if (!ld) {
			retry = true;
			continue;
		}
		if (ld->ops == &gpsphc_ldisc_ops)
			gpsphc_uart_enable_ms(p->tty);
		tty_ldisc_deref(ld);
		list_del(&p->node);
		kfree(p);
	}
	if (retry)
		schedule_delayed_work(&gpsphc_ms_pending_dwork, 1);
	mutex_unlock(&gpsphc_ms_pending_lock);
}

/* After open: turn the interrupt on once TIOCSETD is done. */
static void gpsphc_ms_after_open(struct tty_struct *tty)
{
	struct gpsphc_ms_pending *p;

	if (!gpsphc_uart_state(tty))
		return;
	p = kmalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		pr_warn("%s: no memory to turn DCD interrupts on: they come once the termios change or someone waits in TIOCMIWAIT\n",
			tty->name);
		return;
	}
	p->tty = tty;
	mutex_lock(&gpsphc_ms_pending_lock);
	list_add_tail(&p->node, &gpsphc_ms_pending_list);
	mod_delayed_work(system_wq, &gpsphc_ms_pending_dwork, 0);
	mutex_unlock(&gpsphc_ms_pending_lock);
}

static void gpsphc_ms_forget(struct tty_struct *tty)
{
	struct gpsphc_ms_pending *p, *tmp;

	mutex_lock(&gpsphc_ms_pending_lock);
	list_for_each_entry_safe(p, tmp, &gpsphc_ms_pending_list, node) {
		if (p->tty == tty) {
			list_del(&p->node);
			kfree(p);
		}
	}
	mutex_unlock(&gpsphc_ms_pending_lock);
}

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
	/* A GPIO line's edges stand in for DCD's (pps_gpio). */
	if (gpsphc_gpio_in_use(gdev))
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

/* Called after the driver's set_termios, which may have turned DCD off. */
static void gpsphc_ldisc_set_termios(struct tty_struct *tty,
				     const struct ktermios *old)
{
	n_tty_ops.set_termios(tty, old);
	gpsphc_uart_enable_ms(tty);
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
	gpsphc_ms_after_open(tty);
	return 0;
}

static void gpsphc_ldisc_close(struct tty_struct *tty)
{
	gpsphc_ms_forget(tty);
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
	gpsphc_ldisc_ops.set_termios = gpsphc_ldisc_set_termios;
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
	/* Every tty closed the discipline: nothing is pending any more. */
	cancel_delayed_work_sync(&gpsphc_ms_pending_dwork);
	gpsphc_netlink_unregister();
	gpsphc_class_unregister();
}

module_init(gpsphc_init);
module_exit(gpsphc_exit);

MODULE_ALIAS_LDISC(N_DEVELOPMENT);
MODULE_DESCRIPTION("GNSS receiver on a tty as a PTP hardware clock");
MODULE_LICENSE("GPL");
MODULE_VERSION(GPSPHC_VERSION);
