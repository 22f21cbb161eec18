// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc_sim - a fake UART for testing the gpsphc line discipline
 *
 * TEST ONLY: never load this on a machine that matters.
 *
 * Registers a serial-core driver with GSIM_NR_PORTS ports, /dev/ttyGPSSIM0..3,
 * each parented to its own platform device "gpsphc_sim.N". There is no
 * hardware: received bytes and DCD edges are injected from debugfs through
 * the same serial-core calls an 8250 interrupt handler makes, and what the
 * tty transmits is captured for the test to read back.
 *
 * Control files, /sys/kernel/debug/gpsphc_sim/ (CONTROL.rst has the details):
 *
 *   port_present               rw "1111\n"; write "N 0" unplugs port N
 *                              (uart_remove_one_port, hangs up the tty),
 *                              "N 1" plugs it back in
 *   ttyGPSSIM<N>/rx            wo one write() = one receive chunk
 *                              (-ENOTCONN if the tty is not open)
 *   ttyGPSSIM<N>/rx_flags      wo (flag, char) byte pairs, flag 0..4 =
 *                              NORMAL, BREAK, FRAME, PARITY, OVERRUN
 *   ttyGPSSIM<N>/dcd           rw "0\n"/"1\n", a change calls
 *                              uart_handle_dcd_change() in IRQ-off context
 *   ttyGPSSIM<N>/edges         ro last 4096 DCD edges, one per line:
 *                              "index pulse level intended_ns raw_ns mono_ns";
 *                              any write clears
 *   ttyGPSSIM<N>/tx            ro bytes the port transmitted, consumed on read
 *   ttyGPSSIM<N>/mctrl         ro last set_mctrl() value, "0x%04x\n"
 *   ttyGPSSIM<N>/dcd_cost      rw "calls ns": time spent inside
 *                              uart_handle_dcd_change(); any write clears
 *   ttyGPSSIM<N>/baud          ro baud rate of the last set_termios()
 *   ttyGPSSIM<N>/msr_gate      rw 0 (default): every DCD change is delivered;
 *                              1: only while an 8250 would have its modem
 *                              status interrupt on (ms_enabled)
 *   ttyGPSSIM<N>/ms_enabled    ro 1 if CRTSCTS, !CLOCAL, N_PPS or TIOCMIWAIT
 *   ttyGPSSIM<N>/pulse_*       PPS generator: enable, ppb, jitter_ns, seed,
 *                              width_ms, phase_ms, miss, spike_ns,
 *                              spike_every
 *
 * Locking: sp->mutex serialises every control operation against plugging
 * and unplugging the port; the uart port lock protects the modem lines and
 * the pulse generator (its hrtimer callback takes it like an IRQ handler
 * would); sp->lock protects the edge and transmit rings and nests inside
 * the port lock.
 */

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/seq_file.h>
#include <linux/serial.h>
#include <linux/serial_core.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tty.h>
#include <linux/tty_flip.h>
#include <linux/uaccess.h>

#define GSIM_NR_PORTS		4
#define GSIM_DEV_NAME		"ttyGPSSIM"
#define GSIM_UARTCLK		(921600 * 16)	/* 50 .. 921600 baud */
#define GSIM_FIFOSIZE		16

#define GSIM_EDGE_RING		4096		/* edges kept, power of two */
#define GSIM_TX_RING		65536		/* tx bytes kept, power of two */
#define GSIM_RX_MAX		65536		/* largest rx/rx_flags write */
#define GSIM_RX_CHUNK		4096		/* bytes per insert + push */
#define GSIM_RX_STALL_MS	1000		/* give up on a full flip buffer */

#define GSIM_MISS_MAX		64
#define GSIM_PPB_MAX		100000000LL	/* +-10 % */
#define GSIM_JITTER_MAX		100000000U	/* 100 ms standard deviation */
#define GSIM_WIDTH_MAX		999		/* ms */
#define GSIM_PHASE_MAX		999		/* ms after the whole raw second */

struct gsim_edge {
	u64	index;
	s64	pulse;		/* pulse index k, -1 for a write to "dcd" */
	s64	intended_ns;	/* CLOCK_MONOTONIC, 0 for a write to "dcd" */
	s64	raw_ns;		/* ktime_get_raw() just before the call */
	s64	mono_ns;	/* ktime_get() just before the call */
	u8	level;
};

/* The PPS generator. Everything here is under the port lock. */
struct gsim_pulse {
	struct hrtimer	timer;

	/* configuration */
	s64		ppb;
	u32		jitter_ns;
	u64		seed;
	u32		width_ms;
	u32		phase_ms;
	u32		spike_ns;
	u32		spike_every;
	u64		miss[GSIM_MISS_MAX];
	unsigned int	nmiss;

	/* running state */
	bool		running;
	bool		high;		/* between the rise and fall of pulse k */
	u64		k;
	u64		base_k;		/* ideal rise of pulse base_k is base_ns */
	s64		base_ns;
	s64		rise_ns;	/* intended instants of pulse k */
	s64		fall_ns;
	s64		fire_ns;	/* rise_ns plus any latency spike */
	u64		rng;
};

struct gsim_port;

struct gsim_attr {
	const char	*name;
	umode_t		mode;
	int		(*show)(struct gsim_port *sp, char *buf, size_t size);
	int		(*store)(struct gsim_port *sp, char *buf);
};

struct gsim_attr_file {
	struct gsim_port	*sp;
	const struct gsim_attr	*attr;
};

struct gsim_port {
	struct uart_port	port;
	unsigned int		idx;
	struct platform_device	*pdev;
	struct dentry		*dir;
	struct gsim_attr_file	files[16];

	struct mutex		mutex;		/* control ops vs. plug/unplug */
	bool			present;

	/* under the port lock */
	bool			dcd;
	bool			msr_gate;	/* deliver only if ms_enabled */
	bool			ms_enabled;	/* 8250 IER_MSI would be set */
	bool			rx_stopped;
	unsigned int		mctrl;
	unsigned int		baud;
	struct gsim_pulse	pulse;
	u64			dcd_calls;	/* uart_handle_dcd_change() calls */
	u64			dcd_call_ns;	/* and the time spent in them */
	struct tty_struct	*drop_tty;	/* ref: the tty of the last DCD drop */

	spinlock_t		lock;		/* rings below; inside port lock */
	struct gsim_edge	*edges;
	u64			edge_count;
	u8			*txbuf;
	unsigned int		tx_head;	/* free running */
	unsigned int		tx_tail;
};

#define to_gsim_port(p)	container_of(p, struct gsim_port, port)

static struct gsim_port *gsim_ports[GSIM_NR_PORTS];
static struct dentry *gsim_debugfs_dir;
static struct dentry *gsim_present_file;

static struct uart_driver gsim_uart_driver = {
	.owner		= THIS_MODULE,
	.driver_name	= KBUILD_MODNAME,
	.dev_name	= GSIM_DEV_NAME,
	.nr		= GSIM_NR_PORTS,
};

/* ---- captured transmit data ------------------------------------------ */

/* Called with sp->lock held. When full, the oldest bytes are overwritten. */
static void gsim_tx_capture(struct gsim_port *sp, const u8 *buf,
			    unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sp->txbuf[sp->tx_head++ & (GSIM_TX_RING - 1)] = buf[i];
	if (sp->tx_head - sp->tx_tail > GSIM_TX_RING)
		sp->tx_tail = sp->tx_head - GSIM_TX_RING;
}

/* ---- uart_ops ------------------------------------------------------------ */

static unsigned int gsim_tx_empty(struct uart_port *port)
{
	/* start_tx() sends everything at once: the shifter is always idle. */
	return TIOCSER_TEMT;
}

static void gsim_set_mctrl(struct uart_port *port, unsigned int mctrl)
{
	WRITE_ONCE(to_gsim_port(port)->mctrl, mctrl);
}

static unsigned int gsim_get_mctrl(struct uart_port *port)
{
	struct gsim_port *sp = to_gsim_port(port);

	return TIOCM_CTS | TIOCM_DSR | (sp->dcd ? TIOCM_CAR : 0);
}

static void gsim_stop_tx(struct uart_port *port)
{
	/* Nothing in flight: start_tx() drains synchronously. */
}

/* Called with the port lock held and interrupts off. */
static void gsim_start_tx(struct uart_port *port)
{
	struct gsim_port *sp = to_gsim_port(port);
	unsigned int n, total = 0;
	u8 buf[64];

	spin_lock(&sp->lock);
	if (port->x_char) {
		gsim_tx_capture(sp, &port->x_char, 1);
		port->icount.tx++;
		port->x_char = 0;
	}
	if (!uart_tx_stopped(port)) {
		while ((n = uart_fifo_out(port, buf, sizeof(buf))) > 0) {
			gsim_tx_capture(sp, buf, n);
			total += n;
		}
	}
	spin_unlock(&sp->lock);

	if (total)
		uart_write_wakeup(port);
}

static void gsim_stop_rx(struct uart_port *port)
{
	to_gsim_port(port)->rx_stopped = true;
}

/*
 * A real 8250 enables its modem status interrupt only for CRTSCTS, !CLOCAL,
 * UPF_HARDPPS_CD (set for N_PPS) or while TIOCMIWAIT waits. ms_enabled
 * tracks that; DCD changes are gated by it only when msr_gate is set.
 */
static void gsim_enable_ms(struct uart_port *port)
{
	to_gsim_port(port)->ms_enabled = true;
}

/* As serial8250_do_set_ldisc(). */
static void gsim_set_ldisc(struct uart_port *port, struct ktermios *termios)
{
	struct gsim_port *sp = to_gsim_port(port);
	unsigned long flags;

	uart_port_lock_irqsave(port, &flags);
	if (termios->c_line == N_PPS) {
		port->flags |= UPF_HARDPPS_CD;
		sp->ms_enabled = true;
	} else {
		port->flags &= ~UPF_HARDPPS_CD;
		if (!UART_ENABLE_MS(port, termios->c_cflag))
			sp->ms_enabled = false;
	}
	uart_port_unlock_irqrestore(port, flags);
}

static void gsim_break_ctl(struct uart_port *port, int break_state)
{
	/* A break would show in the tx stream as nothing: ignore it. */
}

static int gsim_startup(struct uart_port *port)
{
	struct gsim_port *sp = to_gsim_port(port);
	unsigned long flags;

	uart_port_lock_irqsave(port, &flags);
	sp->rx_stopped = false;
	sp->ms_enabled = false;
	uart_port_unlock_irqrestore(port, flags);

	return 0;
}

static void gsim_shutdown(struct uart_port *port)
{
	struct gsim_port *sp = to_gsim_port(port);
	unsigned long flags;

	uart_port_lock_irqsave(port, &flags);
	sp->ms_enabled = false;
	uart_port_unlock_irqrestore(port, flags);
}

static void gsim_set_termios(struct uart_port *port, struct ktermios *termios,
			     const struct ktermios *old)
{
	struct gsim_port *sp = to_gsim_port(port);
	unsigned long flags;
	unsigned int baud;

	/* No hardware flow control, no mark/space parity. */
	termios->c_cflag &= ~(CRTSCTS | CMSPAR);

	baud = uart_get_baud_rate(port, termios, old, 50, port->uartclk / 16);

	uart_port_lock_irqsave(port, &flags);
	uart_update_timeout(port, termios->c_cflag, baud);
	sp->baud = baud;
	sp->ms_enabled = UART_ENABLE_MS(port, termios->c_cflag);
	uart_port_unlock_irqrestore(port, flags);

	if (tty_termios_baud_rate(termios))
		tty_termios_encode_baud_rate(termios, baud, baud);
}

static const char *gsim_type(struct uart_port *port)
{
	return port->type == PORT_16550A ? "gpsphc_sim" : NULL;
}

static void gsim_release_port(struct uart_port *port)
{
}

static int gsim_request_port(struct uart_port *port)
{
	return 0;
}

static void gsim_config_port(struct uart_port *port, int flags)
{
	if (flags & UART_CONFIG_TYPE)
		port->type = PORT_16550A;
}

static int gsim_verify_port(struct uart_port *port, struct serial_struct *ser)
{
	if (ser->type != PORT_UNKNOWN && ser->type != PORT_16550A)
		return -EINVAL;
	if (ser->irq != port->irq || ser->io_type != UPIO_MEM)
		return -EINVAL;
	if (ser->baud_base < 9600)
		return -EINVAL;

	return 0;
}

static const struct uart_ops gsim_uart_ops = {
	.tx_empty	= gsim_tx_empty,
	.set_mctrl	= gsim_set_mctrl,
	.get_mctrl	= gsim_get_mctrl,
	.stop_tx	= gsim_stop_tx,
	.start_tx	= gsim_start_tx,
	.stop_rx	= gsim_stop_rx,
	.enable_ms	= gsim_enable_ms,
	.break_ctl	= gsim_break_ctl,
	.startup	= gsim_startup,
	.shutdown	= gsim_shutdown,
	.set_termios	= gsim_set_termios,
	.set_ldisc	= gsim_set_ldisc,
	.type		= gsim_type,
	.release_port	= gsim_release_port,
	.request_port	= gsim_request_port,
	.config_port	= gsim_config_port,
	.verify_port	= gsim_verify_port,
};

/* ---- receive -------------------------------------------------------------- */

/*
 * Deliver @n bytes as a UART RX interrupt would: insert into the flip
 * buffer and push, under the port lock, GSIM_RX_CHUNK bytes at a time.
 * @fl is NULL for TTY_NORMAL, otherwise one flag per byte.
 * Called with sp->mutex held.
 */
static ssize_t gsim_rx_deliver(struct gsim_port *sp, const u8 *chars,
			       const u8 *fl, size_t n)
{
	struct uart_port *port = &sp->port;
	struct tty_port *tport;
	struct tty_struct *tty;
	unsigned long deadline = 0;
	unsigned long flags;
	size_t done = 0;

	if (!sp->present)
		return -ENODEV;

	tport = &port->state->port;
	tty = tty_port_tty_get(tport);
	if (!tty)
		return -ENOTCONN;
	if (!tty_port_initialized(tport) || READ_ONCE(sp->rx_stopped)) {
		tty_kref_put(tty);
		return -ENOTCONN;
	}

	while (done < n) {
		size_t chunk = min_t(size_t, n - done, GSIM_RX_CHUNK);
		size_t got, i;

		uart_port_lock_irqsave(port, &flags);
		if (!fl) {
			got = tty_insert_flip_string(tport, chars + done, chunk);
		} else {
			for (i = 0; i < chunk; i++) {
				u8 flag = fl[done + i];

				if (!tty_insert_flip_char(tport, chars[done + i],
							  flag))
					break;
				if (flag == TTY_BREAK)
					port->icount.brk++;
				else if (flag == TTY_FRAME)
					port->icount.frame++;
				else if (flag == TTY_PARITY)
					port->icount.parity++;
				else if (flag == TTY_OVERRUN)
					port->icount.overrun++;
			}
			got = i;
		}
		port->icount.rx += got;
		tty_flip_buffer_push(tport);
		uart_port_unlock_irqrestore(port, flags);

		done += got;
		if (got == chunk) {
			deadline = 0;
		} else {
			/* Flip buffer memory limit: let the ldisc catch up. */
			if (!deadline)
				deadline = jiffies +
					   msecs_to_jiffies(GSIM_RX_STALL_MS);
			else if (time_after(jiffies, deadline))
				break;
			usleep_range(1000, 2000);
		}
	}
	tty_kref_put(tty);

	return done ? done : -ENOBUFS;
}

static ssize_t gsim_rx_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct gsim_port *sp = file->private_data;
	ssize_t ret;
	u8 *buf;

	if (!count)
		return 0;
	if (count > GSIM_RX_MAX)
		return -EFBIG;

	buf = vmemdup_user(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);

	mutex_lock(&sp->mutex);
	ret = gsim_rx_deliver(sp, buf, NULL, count);
	mutex_unlock(&sp->mutex);

	kvfree(buf);
	return ret < 0 ? ret : count;
}

static ssize_t gsim_rx_flags_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct gsim_port *sp = file->private_data;
	size_t i, n = count / 2;
	u8 *buf, *chars, *fl;
	ssize_t ret;

	if (!count)
		return 0;
	if (count % 2)
		return -EINVAL;
	if (count > GSIM_RX_MAX)
		return -EFBIG;

	buf = vmemdup_user(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);

	fl = kvmalloc(count, GFP_KERNEL);
	if (!fl) {
		ret = -ENOMEM;
		goto out_free_buf;
	}
	chars = fl + n;
	for (i = 0; i < n; i++) {
		fl[i] = buf[2 * i];
		chars[i] = buf[2 * i + 1];
		if (fl[i] > TTY_OVERRUN) {
			ret = -EINVAL;
			goto out_free_fl;
		}
	}

	mutex_lock(&sp->mutex);
	ret = gsim_rx_deliver(sp, chars, fl, n);
	mutex_unlock(&sp->mutex);
	if (ret >= 0)
		ret = 2 * ret;

out_free_fl:
	kvfree(fl);
out_free_buf:
	kvfree(buf);
	return ret;
}

static const struct file_operations gsim_rx_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= gsim_rx_write,
	.llseek	= noop_llseek,
};

static const struct file_operations gsim_rx_flags_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= gsim_rx_flags_write,
	.llseek	= noop_llseek,
};

/* ---- DCD ------------------------------------------------------------------ */

/*
 * A DCD drop with CLOCAL off makes uart_handle_dcd_change() queue
 * tty_hangup(). Should that work run after uart_remove_one_port() on a tty
 * the removal did not hang up (only hung-up files still held it, so the
 * port no longer pointed to it), uart_hangup() warns "hangup of detached
 * port": a race of the serial core's own, which a real driver's unbind
 * has too. Keep a reference to the tty, so that unplugging lets the work
 * finish while the port is still there. Called with the port lock held.
 */
static void gsim_dcd_dropped(struct gsim_port *sp)
{
	struct tty_struct *tty = tty_port_tty_get(&sp->port.state->port);

	lockdep_assert_held(&sp->port.lock);
	if (!tty)
		return;
	tty_kref_put(sp->drop_tty);
	sp->drop_tty = tty;
}

/*
 * Let a hangup the last DCD drop queued finish. Called with sp->mutex held
 * (no "dcd" write) and the pulses stopped, so that no drop follows.
 */
static void gsim_dcd_drop_flush(struct gsim_port *sp)
{
	struct tty_struct *tty;
	unsigned long flags;

	lockdep_assert_held(&sp->mutex);
	uart_port_lock_irqsave(&sp->port, &flags);
	tty = sp->drop_tty;
	sp->drop_tty = NULL;
	uart_port_unlock_irqrestore(&sp->port, flags);
	if (!tty)
		return;
	flush_work(&tty->hangup_work);
	tty_kref_put(tty);
}

/*
 * Set the simulated DCD level. Called with the port lock held and interrupts
 * off, as serial8250_modem_status() calls uart_handle_dcd_change(): that is
 * the path to the line discipline's dcd_change().
 */
static void gsim_dcd_edge(struct gsim_port *sp, bool level, s64 pulse,
			  s64 intended_ns)
{
	struct uart_port *port = &sp->port;
	struct gsim_edge *e;
	s64 raw_ns, mono_ns;

	if (sp->dcd == level)
		return;
	sp->dcd = level;
	if (sp->msr_gate && !sp->ms_enabled)
		return;		/* modem status interrupt off: nothing seen */

	raw_ns = ktime_get_raw_ns();
	mono_ns = ktime_get_ns();
	uart_handle_dcd_change(port, level);
	sp->dcd_call_ns += ktime_get_raw_ns() - raw_ns;
	sp->dcd_calls++;
	if (!level)
		gsim_dcd_dropped(sp);
	wake_up_interruptible(&port->state->port.delta_msr_wait);

	spin_lock(&sp->lock);
	e = &sp->edges[sp->edge_count & (GSIM_EDGE_RING - 1)];
	e->index = sp->edge_count++;
	e->pulse = pulse;
	e->level = level;
	e->intended_ns = intended_ns;
	e->raw_ns = raw_ns;
	e->mono_ns = mono_ns;
	spin_unlock(&sp->lock);
}

/* "<calls> <ns>": time spent in uart_handle_dcd_change(), for benchmarks. */
static int gsim_dcd_cost_show(struct gsim_port *sp, char *buf, size_t size)
{
	unsigned long flags;
	u64 calls, ns;

	uart_port_lock_irqsave(&sp->port, &flags);
	calls = sp->dcd_calls;
	ns = sp->dcd_call_ns;
	uart_port_unlock_irqrestore(&sp->port, flags);
	return scnprintf(buf, size, "%llu %llu\n", calls, ns);
}

static int gsim_dcd_cost_store(struct gsim_port *sp, char *buf)
{
	unsigned long flags;

	uart_port_lock_irqsave(&sp->port, &flags);
	sp->dcd_calls = 0;
	sp->dcd_call_ns = 0;
	uart_port_unlock_irqrestore(&sp->port, flags);
	return 0;
}

static int gsim_dcd_show(struct gsim_port *sp, char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", READ_ONCE(sp->dcd));
}

static int gsim_dcd_store(struct gsim_port *sp, char *buf)
{
	unsigned long flags;
	bool level;
	int ret;

	ret = kstrtobool(buf, &level);
	if (ret)
		return ret;
	if (!sp->present)
		return -ENODEV;

	uart_port_lock_irqsave(&sp->port, &flags);
	gsim_dcd_edge(sp, level, -1, 0);
	uart_port_unlock_irqrestore(&sp->port, flags);

	return 0;
}

/* ---- pulse generator -------------------------------------------------------- */

static u64 gsim_splitmix64(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Approximately N(0, sigma^2): the sum of 12 uniforms minus 6, in 1/65536. */
static s64 gsim_gauss(u64 *state, u32 sigma)
{
	s64 sum = -6 * 65536;
	int i, j;

	for (i = 0; i < 3; i++) {
		u64 r = gsim_splitmix64(state);

		for (j = 0; j < 4; j++, r >>= 16)
			sum += r & 0xffff;
	}

	return div_s64(sum * sigma, 65536);
}

static bool gsim_pulse_missed(const struct gsim_pulse *p, u64 k)
{
	unsigned int i;

	for (i = 0; i < p->nmiss; i++)
		if (p->miss[i] == k)
			return true;
	return false;
}

/*
 * Plan the rise of pulse p->k, or of the first pulse after it that is not
 * to be missed. Jitter is drawn for every pulse, missed or not, so that a
 * miss list does not change the other pulses. Called with the port lock held.
 */
static void gsim_pulse_plan(struct gsim_pulse *p)
{
	s64 jitter;
	u32 rem;

	for (;;) {
		jitter = gsim_gauss(&p->rng, p->jitter_ns);
		if (!gsim_pulse_missed(p, p->k))
			break;
		p->k++;
	}

	p->rise_ns = p->base_ns + (s64)(p->k - p->base_k) *
		     (NSEC_PER_SEC + p->ppb) + jitter;
	p->fire_ns = p->rise_ns;
	if (p->spike_every) {
		div_u64_rem(p->k + 1, p->spike_every, &rem);
		if (!rem)
			p->fire_ns += p->spike_ns;
	}
}

/*
 * Pulses are planned on CLOCK_MONOTONIC_RAW, so that steering the system
 * clock (phc2sys, NTP) never changes the simulated receiver's rate. The
 * hrtimer (CLOCK_MONOTONIC) fires GSIM_PULSE_LEAD_NS early and the
 * callback waits for the exact raw instant: hrtimer latency under TCG is
 * hundreds of microseconds, a real receiver's PPS is not that noisy.
 */
#define GSIM_PULSE_LEAD_NS	(2 * NSEC_PER_MSEC)
/* Never spin longer than this, whatever the clocks did. */
#define GSIM_PULSE_SPIN_MAX_NS	(10 * NSEC_PER_MSEC)

static ktime_t gsim_pulse_timer_at(s64 raw_target)
{
	return ns_to_ktime(raw_target + (s64)(ktime_get_ns() - ktime_get_raw_ns()) -
			   GSIM_PULSE_LEAD_NS);
}

static void gsim_pulse_wait_until(s64 raw_target)
{
	u64 start = ktime_get_raw_ns();

	while ((s64)(ktime_get_raw_ns() - raw_target) < 0 &&
	       ktime_get_raw_ns() - start < GSIM_PULSE_SPIN_MAX_NS)
		cpu_relax();
}

/* Hard interrupt context, like a UART modem status interrupt. */
static enum hrtimer_restart gsim_pulse_fire(struct hrtimer *timer)
{
	struct gsim_port *sp = container_of(timer, struct gsim_port,
					    pulse.timer);
	struct gsim_pulse *p = &sp->pulse;
	unsigned long flags;
	s64 next;

	uart_port_lock_irqsave(&sp->port, &flags);
	if (!p->running) {
		uart_port_unlock_irqrestore(&sp->port, flags);
		return HRTIMER_NORESTART;
	}

	if (!p->high) {
		gsim_pulse_wait_until(p->fire_ns);
		gsim_dcd_edge(sp, true, p->k, p->rise_ns);
		p->high = true;
		p->fall_ns = p->rise_ns + (s64)p->width_ms * NSEC_PER_MSEC;
		next = p->fall_ns;
	} else {
		gsim_pulse_wait_until(p->fall_ns);
		gsim_dcd_edge(sp, false, p->k, p->fall_ns);
		p->high = false;
		p->k++;
		gsim_pulse_plan(p);
		next = p->fire_ns;
	}
	hrtimer_set_expires(timer, gsim_pulse_timer_at(next));
	uart_port_unlock_irqrestore(&sp->port, flags);

	return HRTIMER_RESTART;
}

/*
 * Stop the generator and wait for its callback. A pulse in progress ends
 * at once, so that the next start begins with DCD low. Called with
 * sp->mutex held, not under the port lock.
 */
static void gsim_pulse_stop(struct gsim_port *sp)
{
	struct gsim_pulse *p = &sp->pulse;
	unsigned long flags;

	uart_port_lock_irqsave(&sp->port, &flags);
	if (p->running && p->high && sp->present)
		gsim_dcd_edge(sp, false, -1, 0);
	p->running = false;
	p->high = false;
	uart_port_unlock_irqrestore(&sp->port, flags);

	hrtimer_cancel(&sp->pulse.timer);
}

/* Start from pulse 0. Called with sp->mutex held and the generator stopped. */
static void gsim_pulse_start(struct gsim_port *sp)
{
	struct gsim_pulse *p = &sp->pulse;
	unsigned long flags;
	u64 now;
	s64 fire;

	uart_port_lock_irqsave(&sp->port, &flags);
	now = ktime_get_raw_ns();
	/* t0: the next whole raw second at least one second from now */
	p->base_ns = div64_u64(now + 2 * NSEC_PER_SEC - 1, NSEC_PER_SEC) *
		     NSEC_PER_SEC + (s64)p->phase_ms * NSEC_PER_MSEC;
	p->base_k = 0;
	p->k = 0;
	p->rng = p->seed;
	p->high = false;
	p->running = true;
	gsim_pulse_plan(p);
	fire = p->fire_ns;
	uart_port_unlock_irqrestore(&sp->port, flags);

	hrtimer_start(&p->timer, gsim_pulse_timer_at(fire), HRTIMER_MODE_ABS);
}

static int gsim_pulse_enable_show(struct gsim_port *sp, char *buf,
				  size_t size)
{
	return scnprintf(buf, size, "%u\n", READ_ONCE(sp->pulse.running));
}

static int gsim_pulse_enable_store(struct gsim_port *sp, char *buf)
{
	bool enable;
	int ret;

	ret = kstrtobool(buf, &enable);
	if (ret)
		return ret;

	gsim_pulse_stop(sp);
	if (!enable)
		return 0;
	if (!sp->present)
		return -ENODEV;
	gsim_pulse_start(sp);

	return 0;
}

static int gsim_pulse_ppb_show(struct gsim_port *sp, char *buf, size_t size)
{
	return scnprintf(buf, size, "%lld\n", READ_ONCE(sp->pulse.ppb));
}

static int gsim_pulse_ppb_store(struct gsim_port *sp, char *buf)
{
	struct gsim_pulse *p = &sp->pulse;
	unsigned long flags;
	s64 ppb;
	int ret;

	ret = kstrtos64(buf, 0, &ppb);
	if (ret)
		return ret;
	if (ppb < -GSIM_PPB_MAX || ppb > GSIM_PPB_MAX)
		return -ERANGE;

	uart_port_lock_irqsave(&sp->port, &flags);
	if (p->running) {
		/*
		 * Keep the phase: pulse k (due or in progress) stays where the
		 * old rate put it, the interval to pulse k + 1 has the new one.
		 */
		p->base_ns += (s64)(p->k - p->base_k) * (NSEC_PER_SEC + p->ppb);
		p->base_k = p->k;
	}
	p->ppb = ppb;
	uart_port_unlock_irqrestore(&sp->port, flags);

	return 0;
}

static int gsim_store_u32(struct gsim_port *sp, char *buf, u32 *val,
			  u32 min, u32 max)
{
	unsigned long flags;
	u32 v;
	int ret;

	ret = kstrtou32(buf, 0, &v);
	if (ret)
		return ret;
	if (v < min || v > max)
		return -ERANGE;

	uart_port_lock_irqsave(&sp->port, &flags);
	*val = v;
	uart_port_unlock_irqrestore(&sp->port, flags);

	return 0;
}

static int gsim_pulse_jitter_ns_show(struct gsim_port *sp, char *buf,
				     size_t size)
{
	return scnprintf(buf, size, "%u\n", READ_ONCE(sp->pulse.jitter_ns));
}

static int gsim_pulse_jitter_ns_store(struct gsim_port *sp, char *buf)
{
	return gsim_store_u32(sp, buf, &sp->pulse.jitter_ns, 0,
			      GSIM_JITTER_MAX);
}

static int gsim_pulse_width_ms_show(struct gsim_port *sp, char *buf,
				    size_t size)
{
	return scnprintf(buf, size, "%u\n", READ_ONCE(sp->pulse.width_ms));
}

static int gsim_pulse_width_ms_store(struct gsim_port *sp, char *buf)
{
	return gsim_store_u32(sp, buf, &sp->pulse.width_ms, 1,
			      GSIM_WIDTH_MAX);
}

static int gsim_pulse_phase_ms_show(struct gsim_port *sp, char *buf,
				    size_t size)
{
	return scnprintf(buf, size, "%u\n", READ_ONCE(sp->pulse.phase_ms));
}

static int gsim_pulse_phase_ms_store(struct gsim_port *sp, char *buf)
{
	return gsim_store_u32(sp, buf, &sp->pulse.phase_ms, 0,
			      GSIM_PHASE_MAX);
}

static int gsim_pulse_spike_ns_show(struct gsim_port *sp, char *buf,
				    size_t size)
{
	return scnprintf(buf, size, "%u\n", READ_ONCE(sp->pulse.spike_ns));
}

static int gsim_pulse_spike_ns_store(struct gsim_port *sp, char *buf)
{
	return gsim_store_u32(sp, buf, &sp->pulse.spike_ns, 0, NSEC_PER_SEC);
}

static int gsim_pulse_spike_every_show(struct gsim_port *sp, char *buf,
				       size_t size)
{
	return scnprintf(buf, size, "%u\n", READ_ONCE(sp->pulse.spike_every));
}

static int gsim_pulse_spike_every_store(struct gsim_port *sp, char *buf)
{
	return gsim_store_u32(sp, buf, &sp->pulse.spike_every, 0, U32_MAX);
}

static int gsim_pulse_seed_show(struct gsim_port *sp, char *buf, size_t size)
{
	return scnprintf(buf, size, "%llu\n", READ_ONCE(sp->pulse.seed));
}

static int gsim_pulse_seed_store(struct gsim_port *sp, char *buf)
{
	unsigned long flags;
	u64 seed;
	int ret;

	ret = kstrtou64(buf, 0, &seed);
	if (ret)
		return ret;

	uart_port_lock_irqsave(&sp->port, &flags);
	sp->pulse.seed = seed;
	uart_port_unlock_irqrestore(&sp->port, flags);

	return 0;
}

static int gsim_pulse_miss_show(struct gsim_port *sp, char *buf, size_t size)
{
	struct gsim_pulse *p = &sp->pulse;
	u64 miss[GSIM_MISS_MAX];
	unsigned int i, n;
	unsigned long flags;
	int len = 0;

	uart_port_lock_irqsave(&sp->port, &flags);
	n = p->nmiss;
	memcpy(miss, p->miss, n * sizeof(miss[0]));
	uart_port_unlock_irqrestore(&sp->port, flags);

	for (i = 0; i < n; i++)
		len += scnprintf(buf + len, size - len, "%s%llu",
				 i ? "," : "", miss[i]);
	len += scnprintf(buf + len, size - len, "\n");

	return len;
}

static int gsim_pulse_miss_store(struct gsim_port *sp, char *buf)
{
	struct gsim_pulse *p = &sp->pulse;
	u64 miss[GSIM_MISS_MAX];
	unsigned int n = 0;
	unsigned long flags;
	char *tok;
	int ret;

	while ((tok = strsep(&buf, ",")) != NULL) {
		tok = strim(tok);
		if (!*tok && !buf && !n)
			break;		/* empty list */
		if (n == GSIM_MISS_MAX)
			return -E2BIG;
		ret = kstrtou64(tok, 0, &miss[n]);
		if (ret)
			return ret;
		n++;
	}

	uart_port_lock_irqsave(&sp->port, &flags);
	memcpy(p->miss, miss, n * sizeof(miss[0]));
	p->nmiss = n;
	uart_port_unlock_irqrestore(&sp->port, flags);

	return 0;
}

/* ---- edges ------------------------------------------------------------------ */

struct gsim_edge_snap {
	unsigned int		n;
	struct gsim_edge	e[GSIM_EDGE_RING];
};

static void *gsim_edges_start(struct seq_file *m, loff_t *pos)
{
	struct gsim_edge_snap *snap = m->private;

	return snap && *pos < snap->n ? &snap->e[*pos] : NULL;
}

static void *gsim_edges_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return gsim_edges_start(m, pos);
}

static void gsim_edges_stop(struct seq_file *m, void *v)
{
}

static int gsim_edges_show(struct seq_file *m, void *v)
{
	const struct gsim_edge *e = v;

	seq_printf(m, "%llu %lld %u %lld %lld %lld\n", e->index, e->pulse,
		   e->level, e->intended_ns, e->raw_ns, e->mono_ns);
	return 0;
}

static const struct seq_operations gsim_edges_seq_ops = {
	.start	= gsim_edges_start,
	.next	= gsim_edges_next,
	.stop	= gsim_edges_stop,
	.show	= gsim_edges_show,
};

/* A reader sees the ring as it was at open(), oldest edge first. */
static int gsim_edges_open(struct inode *inode, struct file *file)
{
	struct gsim_port *sp = inode->i_private;
	struct gsim_edge_snap *snap = NULL;
	unsigned long flags;
	u64 first, i;
	int ret;

	if (file->f_mode & FMODE_READ) {
		snap = kvmalloc(sizeof(*snap), GFP_KERNEL);
		if (!snap)
			return -ENOMEM;

		spin_lock_irqsave(&sp->lock, flags);
		first = sp->edge_count > GSIM_EDGE_RING ?
			sp->edge_count - GSIM_EDGE_RING : 0;
		snap->n = sp->edge_count - first;
		for (i = 0; i < snap->n; i++)
			snap->e[i] = sp->edges[(first + i) &
					       (GSIM_EDGE_RING - 1)];
		spin_unlock_irqrestore(&sp->lock, flags);
	}

	ret = seq_open(file, &gsim_edges_seq_ops);
	if (ret) {
		kvfree(snap);
		return ret;
	}
	((struct seq_file *)file->private_data)->private = snap;

	return 0;
}

static int gsim_edges_release(struct inode *inode, struct file *file)
{
	kvfree(((struct seq_file *)file->private_data)->private);
	return seq_release(inode, file);
}

static ssize_t gsim_edges_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct gsim_port *sp = file_inode(file)->i_private;
	unsigned long flags;

	spin_lock_irqsave(&sp->lock, flags);
	sp->edge_count = 0;
	spin_unlock_irqrestore(&sp->lock, flags);

	return count;
}

static const struct file_operations gsim_edges_fops = {
	.owner		= THIS_MODULE,
	.open		= gsim_edges_open,
	.read		= seq_read,
	.write		= gsim_edges_write,
	.llseek		= seq_lseek,
	.release	= gsim_edges_release,
};

/* ---- tx ---------------------------------------------------------------------- */

static ssize_t gsim_tx_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct gsim_port *sp = file->private_data;
	unsigned int n, i, tail;
	unsigned long flags;
	ssize_t done = 0;
	u8 *bounce;

	bounce = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!bounce)
		return -ENOMEM;

	/* The mutex makes concurrent readers take turns. */
	mutex_lock(&sp->mutex);
	while (done < count) {
		spin_lock_irqsave(&sp->lock, flags);
		tail = sp->tx_tail;
		n = min_t(size_t, sp->tx_head - tail, count - done);
		n = min_t(unsigned int, n, PAGE_SIZE);
		for (i = 0; i < n; i++)
			bounce[i] = sp->txbuf[(tail + i) & (GSIM_TX_RING - 1)];
		spin_unlock_irqrestore(&sp->lock, flags);

		if (!n)
			break;
		if (copy_to_user(ubuf + done, bounce, n)) {
			if (!done)
				done = -EFAULT;
			break;
		}

		/* Consume, unless the writer overran us meanwhile. */
		spin_lock_irqsave(&sp->lock, flags);
		if (sp->tx_tail == tail)
			sp->tx_tail = tail + n;
		spin_unlock_irqrestore(&sp->lock, flags);
		done += n;
	}
	mutex_unlock(&sp->mutex);

	kfree(bounce);
	return done;
}

static const struct file_operations gsim_tx_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= gsim_tx_read,
	.llseek	= noop_llseek,
};

/* ---- small attributes --------------------------------------------------------- */

static int gsim_mctrl_show(struct gsim_port *sp, char *buf, size_t size)
{
	return scnprintf(buf, size, "0x%04x\n", READ_ONCE(sp->mctrl));
}

static int gsim_msr_gate_show(struct gsim_port *sp, char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", READ_ONCE(sp->msr_gate));
}

static int gsim_msr_gate_store(struct gsim_port *sp, char *buf)
{
	unsigned long flags;
	bool gate;
	int ret;

	ret = kstrtobool(buf, &gate);
	if (ret)
		return ret;

	uart_port_lock_irqsave(&sp->port, &flags);
	sp->msr_gate = gate;
	uart_port_unlock_irqrestore(&sp->port, flags);

	return 0;
}

static int gsim_ms_enabled_show(struct gsim_port *sp, char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", READ_ONCE(sp->ms_enabled));
}

static int gsim_baud_show(struct gsim_port *sp, char *buf, size_t size)
{
	return scnprintf(buf, size, "%u\n", READ_ONCE(sp->baud));
}

static const struct gsim_attr gsim_attrs[] = {
	{ "dcd",		0644, gsim_dcd_show, gsim_dcd_store },
	{ "dcd_cost",		0644, gsim_dcd_cost_show, gsim_dcd_cost_store },
	{ "mctrl",		0444, gsim_mctrl_show, NULL },
	{ "baud",		0444, gsim_baud_show, NULL },
	{ "msr_gate",		0644, gsim_msr_gate_show, gsim_msr_gate_store },
	{ "ms_enabled",		0444, gsim_ms_enabled_show, NULL },
	{ "pulse_enable",	0644, gsim_pulse_enable_show,
				      gsim_pulse_enable_store },
	{ "pulse_ppb",		0644, gsim_pulse_ppb_show,
				      gsim_pulse_ppb_store },
	{ "pulse_jitter_ns",	0644, gsim_pulse_jitter_ns_show,
				      gsim_pulse_jitter_ns_store },
	{ "pulse_seed",		0644, gsim_pulse_seed_show,
				      gsim_pulse_seed_store },
	{ "pulse_width_ms",	0644, gsim_pulse_width_ms_show,
				      gsim_pulse_width_ms_store },
	{ "pulse_phase_ms",	0644, gsim_pulse_phase_ms_show,
				      gsim_pulse_phase_ms_store },
	{ "pulse_miss",		0644, gsim_pulse_miss_show,
				      gsim_pulse_miss_store },
	{ "pulse_spike_ns",	0644, gsim_pulse_spike_ns_show,
				      gsim_pulse_spike_ns_store },
	{ "pulse_spike_every",	0644, gsim_pulse_spike_every_show,
				      gsim_pulse_spike_every_store },
};

static ssize_t gsim_attr_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct gsim_attr_file *af = file->private_data;
	ssize_t ret;
	char *buf;
	int len;

	if (!af->attr->show)
		return -EPERM;

	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;

	mutex_lock(&af->sp->mutex);
	len = af->attr->show(af->sp, buf, PAGE_SIZE);
	mutex_unlock(&af->sp->mutex);

	ret = simple_read_from_buffer(ubuf, count, ppos, buf, len);
	kfree(buf);
	return ret;
}

static ssize_t gsim_attr_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct gsim_attr_file *af = file->private_data;
	char *buf;
	int ret;

	if (!af->attr->store)
		return -EPERM;
	if (count >= PAGE_SIZE)
		return -EINVAL;

	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);

	mutex_lock(&af->sp->mutex);
	ret = af->attr->store(af->sp, strim(buf));
	mutex_unlock(&af->sp->mutex);

	kfree(buf);
	return ret ? ret : count;
}

static const struct file_operations gsim_attr_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= gsim_attr_read,
	.write	= gsim_attr_write,
	.llseek	= default_llseek,
};

/* ---- ports ------------------------------------------------------------------ */

/* (Re)initialise the uart_port for uart_add_one_port(). */
static void gsim_port_setup(struct gsim_port *sp)
{
	struct uart_port *port = &sp->port;

	memset(port, 0, sizeof(*port));
	spin_lock_init(&port->lock);
	port->line = sp->idx;
	port->dev = &sp->pdev->dev;
	port->type = PORT_16550A;
	port->iotype = UPIO_MEM;	/* no memory: nothing is ever mapped */
	port->uartclk = GSIM_UARTCLK;
	port->fifosize = GSIM_FIFOSIZE;
	port->ops = &gsim_uart_ops;
	port->flags = UPF_FIXED_TYPE | UPF_FIXED_PORT;

	sp->dcd = false;
	sp->ms_enabled = false;
	sp->rx_stopped = true;
	sp->mctrl = 0;
	sp->baud = 0;
}

/* Plug the port in. Called with sp->mutex held. */
static int gsim_port_plug(struct gsim_port *sp)
{
	int ret;

	if (sp->present)
		return 0;

	gsim_port_setup(sp);
	ret = uart_add_one_port(&gsim_uart_driver, &sp->port);
	if (ret)
		return ret;
	sp->present = true;

	return 0;
}

/* Unplug the port, hanging up its tty. Called with sp->mutex held. */
static void gsim_port_unplug(struct gsim_port *sp)
{
	/* Nothing may call into the serial core once the port is gone. */
	gsim_pulse_stop(sp);

	if (!sp->present)
		return;
	gsim_dcd_drop_flush(sp);
	uart_remove_one_port(&gsim_uart_driver, &sp->port);
	sp->present = false;
}

static void gsim_port_debugfs(struct gsim_port *sp)
{
	char name[sizeof(GSIM_DEV_NAME) + 4];
	unsigned int i;

	BUILD_BUG_ON(ARRAY_SIZE(gsim_attrs) > ARRAY_SIZE(sp->files));

	snprintf(name, sizeof(name), GSIM_DEV_NAME "%u", sp->idx);
	sp->dir = debugfs_create_dir(name, gsim_debugfs_dir);

	debugfs_create_file("rx", 0200, sp->dir, sp, &gsim_rx_fops);
	debugfs_create_file("rx_flags", 0200, sp->dir, sp,
			    &gsim_rx_flags_fops);
	debugfs_create_file("edges", 0644, sp->dir, sp, &gsim_edges_fops);
	debugfs_create_file("tx", 0444, sp->dir, sp, &gsim_tx_fops);

	for (i = 0; i < ARRAY_SIZE(gsim_attrs); i++) {
		sp->files[i].sp = sp;
		sp->files[i].attr = &gsim_attrs[i];
		debugfs_create_file(gsim_attrs[i].name, gsim_attrs[i].mode,
				    sp->dir, &sp->files[i], &gsim_attr_fops);
	}
}

static int gsim_port_create(unsigned int idx)
{
	struct gsim_port *sp;
	int ret;

	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp)
		return -ENOMEM;

	sp->idx = idx;
	mutex_init(&sp->mutex);
	spin_lock_init(&sp->lock);
	spin_lock_init(&sp->port.lock);
	hrtimer_setup(&sp->pulse.timer, gsim_pulse_fire, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS);
	sp->pulse.seed = 1;
	sp->pulse.width_ms = 100;

	sp->edges = kvcalloc(GSIM_EDGE_RING, sizeof(*sp->edges), GFP_KERNEL);
	if (!sp->edges) {
		ret = -ENOMEM;
		goto out_free_port;
	}

	sp->txbuf = kvmalloc(GSIM_TX_RING, GFP_KERNEL);
	if (!sp->txbuf) {
		ret = -ENOMEM;
		goto out_free_edges;
	}

	sp->pdev = platform_device_register_simple(KBUILD_MODNAME, idx,
						   NULL, 0);
	if (IS_ERR(sp->pdev)) {
		ret = PTR_ERR(sp->pdev);
		goto out_free_txbuf;
	}

	mutex_lock(&sp->mutex);
	ret = gsim_port_plug(sp);
	mutex_unlock(&sp->mutex);
	if (ret)
		goto out_unregister_pdev;

	gsim_port_debugfs(sp);
	gsim_ports[idx] = sp;

	return 0;

out_unregister_pdev:
	platform_device_unregister(sp->pdev);
out_free_txbuf:
	kvfree(sp->txbuf);
out_free_edges:
	kvfree(sp->edges);
out_free_port:
	mutex_destroy(&sp->mutex);
	kfree(sp);
	return ret;
}

static void gsim_port_destroy(struct gsim_port *sp)
{
	/* Waits for control operations in flight; none can start after. */
	debugfs_remove_recursive(sp->dir);

	mutex_lock(&sp->mutex);
	gsim_port_unplug(sp);
	mutex_unlock(&sp->mutex);

	platform_device_unregister(sp->pdev);
	kvfree(sp->txbuf);
	kvfree(sp->edges);
	mutex_destroy(&sp->mutex);
	gsim_ports[sp->idx] = NULL;
	kfree(sp);
}

/* ---- port_present ------------------------------------------------------------ */

static ssize_t gsim_present_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	char buf[GSIM_NR_PORTS + 1];
	unsigned int i;

	for (i = 0; i < GSIM_NR_PORTS; i++)
		buf[i] = READ_ONCE(gsim_ports[i]->present) ? '1' : '0';
	buf[i] = '\n';

	return simple_read_from_buffer(ubuf, count, ppos, buf, sizeof(buf));
}

static ssize_t gsim_present_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct gsim_port *sp;
	unsigned int idx, on;
	char buf[32];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';

	if (sscanf(buf, "%u %u", &idx, &on) != 2 || on > 1)
		return -EINVAL;
	if (idx >= GSIM_NR_PORTS)
		return -ENODEV;
	sp = gsim_ports[idx];

	mutex_lock(&sp->mutex);
	if (on) {
		ret = gsim_port_plug(sp);
	} else {
		gsim_port_unplug(sp);
		ret = 0;
	}
	mutex_unlock(&sp->mutex);

	return ret ? ret : count;
}

static const struct file_operations gsim_present_fops = {
	.owner	= THIS_MODULE,
	.read	= gsim_present_read,
	.write	= gsim_present_write,
	.llseek	= default_llseek,
};

/* ---- module ------------------------------------------------------------------- */

static int __init gsim_init(void)
{
	unsigned int i;
	int ret;

	ret = uart_register_driver(&gsim_uart_driver);
	if (ret)
		return ret;

	gsim_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);

	for (i = 0; i < GSIM_NR_PORTS; i++) {
		ret = gsim_port_create(i);
		if (ret)
			goto out_destroy_ports;
	}

	gsim_present_file = debugfs_create_file("port_present", 0644,
						gsim_debugfs_dir, NULL,
						&gsim_present_fops);
	return 0;

out_destroy_ports:
	while (i--)
		gsim_port_destroy(gsim_ports[i]);
	debugfs_remove_recursive(gsim_debugfs_dir);
	uart_unregister_driver(&gsim_uart_driver);
	return ret;
}

static void __exit gsim_exit(void)
{
	unsigned int i;

	debugfs_remove(gsim_present_file);
	for (i = 0; i < GSIM_NR_PORTS; i++)
		gsim_port_destroy(gsim_ports[i]);
	debugfs_remove_recursive(gsim_debugfs_dir);
	uart_unregister_driver(&gsim_uart_driver);
}

module_init(gsim_init);
module_exit(gsim_exit);

MODULE_DESCRIPTION("Fake UART driving the gpsphc line discipline in tests");
MODULE_LICENSE("GPL");
