// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc_8250emu - a 16550A in memory, driven by the kernel's own 8250 driver
 *
 * TEST ONLY: never load this on a machine that matters.
 *
 * Registers one port with serial8250_register_8250_port() (it becomes a
 * /dev/ttyS<N>) whose serial_in/serial_out reach a 16550A's registers
 * emulated here: RBR/THR, IER (honoured: it gates the interrupt sources),
 * IIR, FCR, LCR, MCR (OUT2 gates the interrupt line, as on a PC), LSR,
 * MSR with its delta bits, SCR, the divisor latch. Everything else is the
 * 8250 driver's own code: startup, set_termios, set_ldisc, enable_ms, the
 * interrupt handler, the receive and modem-status handling.
 *
 * The interrupt is a real Linux interrupt: a descriptor of our own on the
 * dummy irq_chip, which the 8250 driver requests with request_irq() like
 * any UART's. While the emulated line is asserted, an hrtimer raises it
 * (generic_handle_irq() from the timer's hard interrupt context), so the
 * driver's handler runs as it would on hardware: serial8250_interrupt(),
 * the port's handle_irq, serial8250_handle_irq(); on PREEMPT_RT in the
 * forced interrupt thread.
 *
 * Control files, /sys/kernel/debug/gpsphc_8250emu/ (CONTROL.rst has the
 * details):
 *
 *   tty        ro "ttyS<N>\n"
 *   rx         wo bytes into the receive FIFO (4096 bytes deep)
 *   dcd        rw "0\n"/"1\n": the DCD input; a change sets MSR.DDCD
 *   edges      ro DCD changes, "index level raw_ns\n"; any write clears
 *   dcd_lost   ro changes the 8250 driver could not see: MSR read with
 *              DDCD set while IER.MSI was off, or a change on a change
 *              nobody had read
 *   tx         ro bytes written to THR, consumed on read
 *   ier, mcr   ro the registers, "0x%02x\n"
 *   baud       ro from the divisor latch
 *   irqs       ro interrupts raised
 *
 * Locking: emu->lock (raw: taken in the hrtimer's hard interrupt context,
 * also on PREEMPT_RT) protects every register and buffer; serial_in and
 * serial_out take it inside the 8250 driver's port lock.
 */

#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/seq_file.h>
#include <linux/serial_8250.h>
#include <linux/serial_core.h>
#include <linux/serial_reg.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#define EMU_UARTCLK		1843200		/* a PC's: 50 .. 115200 baud */
#define EMU_FIFOSIZE		16
#define EMU_RX_SIZE		4096		/* power of two */
#define EMU_TX_SIZE		65536		/* power of two */
#define EMU_EDGES		1024		/* power of two */
/* A line still asserted after the handler ran is raised again this late. */
#define EMU_RETRIGGER_NS	(1 * NSEC_PER_MSEC)

struct emu_edge {
	u64 index;
	u64 raw_ns;
	u8 level;
};

struct emu {
	raw_spinlock_t lock;	/* everything below but the set-up fields */
	u8 ier, fcr, lcr, mcr, scr, dll, dlm;
	u8 msr;			/* lines (high nibble) and deltas (low) */
	bool thri;		/* THR-empty interrupt pending */
	unsigned int rx_head, rx_len;
	unsigned int tx_head, tx_len;
	u64 n_edges, dcd_lost, irqs;
	u8 rx[EMU_RX_SIZE];
	u8 tx[EMU_TX_SIZE];
	struct emu_edge edges[EMU_EDGES];

	/* Set up at load, constant after. */
	struct hrtimer irq_timer;
	unsigned int irq;
	int line;
	struct platform_device *pdev;
	struct dentry *dir;
};

static struct emu *emu;

/* IIR as a 16550A shows it: the pending source of highest priority. */
static u8 emu_iir_locked(struct emu *e)
{
	u8 fifo = e->fcr & UART_FCR_ENABLE_FIFO ? 0xc0 : 0;

	lockdep_assert_held(&e->lock);
	if ((e->ier & UART_IER_RDI) && e->rx_len)
		return fifo | UART_IIR_RDI;
	if ((e->ier & UART_IER_THRI) && e->thri)
		return fifo | UART_IIR_THRI;
	if ((e->ier & UART_IER_MSI) && (e->msr & UART_MSR_ANY_DELTA))
		return fifo | UART_IIR_MSI;
	return fifo | UART_IIR_NO_INT;
}

/* Assert the interrupt line if a source is pending: raise it now. */
static void emu_kick_locked(struct emu *e)
{
	lockdep_assert_held(&e->lock);
	if ((e->mcr & UART_MCR_OUT2) &&
	    !(emu_iir_locked(e) & UART_IIR_NO_INT))
		hrtimer_start(&e->irq_timer, 0, HRTIMER_MODE_REL_HARD);
}

static enum hrtimer_restart emu_irq_fire(struct hrtimer *t)
{
	struct emu *e = container_of(t, struct emu, irq_timer);
	bool again;

	raw_spin_lock(&e->lock);
	e->irqs++;
	raw_spin_unlock(&e->lock);

	generic_handle_irq(e->irq);

	/*
	 * A level-triggered line: what the handler left pending (or what
	 * came while it ran, whose kick found the timer busy) raises it
	 * again, a little later so that a line nobody serves cannot storm.
	 */
	raw_spin_lock(&e->lock);
	again = (e->mcr & UART_MCR_OUT2) &&
		!(emu_iir_locked(e) & UART_IIR_NO_INT) &&
		!hrtimer_is_queued(t);
	if (again)
		hrtimer_start(t, ns_to_ktime(EMU_RETRIGGER_NS),
			      HRTIMER_MODE_REL_HARD);
	raw_spin_unlock(&e->lock);
	return HRTIMER_NORESTART;
}

static u8 emu_rx_pop_locked(struct emu *e)
{
	u8 c;

	lockdep_assert_held(&e->lock);
	if (!e->rx_len)
		return 0;
	c = e->rx[e->rx_head];
	e->rx_head = (e->rx_head + 1) & (EMU_RX_SIZE - 1);
	e->rx_len--;
	return c;
}

static unsigned int emu_serial_in(struct uart_port *port, int offset)
{
	struct emu *e = port->private_data;
	bool dlab;
	unsigned long flags;
	unsigned int v = 0;

	raw_spin_lock_irqsave(&e->lock, flags);
	dlab = e->lcr & UART_LCR_DLAB;
	switch (offset) {
	case UART_RX:
		v = dlab ? e->dll : emu_rx_pop_locked(e);
		break;
	case UART_IER:
		v = dlab ? e->dlm : e->ier;
		break;
	case UART_IIR:
		v = emu_iir_locked(e);
		/* Reading IIR that shows it clears the THRE interrupt. */
		if ((v & UART_IIR_ID) == UART_IIR_THRI)
			e->thri = false;
		break;
	case UART_LCR:
		v = e->lcr;
		break;
	case UART_MCR:
		v = e->mcr;
		break;
	case UART_LSR:
		v = UART_LSR_THRE | UART_LSR_TEMT;
		if (e->rx_len)
			v |= UART_LSR_DR;
		break;
	case UART_MSR:
		v = e->msr;
		/*
		 * serial8250_modem_status() acts on deltas only while
		 * IER.MSI is on: read with it off, a DCD change is gone.
		 */
		if ((v & UART_MSR_DDCD) && !(e->ier & UART_IER_MSI))
			e->dcd_lost++;
		e->msr &= ~UART_MSR_ANY_DELTA;
		break;
	case UART_SCR:
		v = e->scr;
		break;
	}
	raw_spin_unlock_irqrestore(&e->lock, flags);
	return v;
}

static void emu_serial_out(struct uart_port *port, int offset, int value)
{
	struct emu *e = port->private_data;
	unsigned long flags;
	u8 v = value;

	raw_spin_lock_irqsave(&e->lock, flags);
	switch (offset) {
	case UART_TX:
		if (e->lcr & UART_LCR_DLAB) {
			e->dll = v;
			break;
		}
		/* Sent at once: THR is empty again. */
		e->tx[(e->tx_head + e->tx_len) & (EMU_TX_SIZE - 1)] = v;
		if (e->tx_len < EMU_TX_SIZE)
			e->tx_len++;
		else
			e->tx_head = (e->tx_head + 1) & (EMU_TX_SIZE - 1);
		e->thri = true;
		break;
	case UART_IER:
		if (e->lcr & UART_LCR_DLAB) {
			e->dlm = v;
			break;
		}
		/* Turning ETBEI on with THR empty raises the interrupt. */
		if (!(e->ier & UART_IER_THRI) && (v & UART_IER_THRI))
			e->thri = true;
		e->ier = v & 0x0f;
		break;
	case UART_FCR:
		if (v & UART_FCR_CLEAR_RCVR)
			e->rx_len = 0;
		e->fcr = v & ~(UART_FCR_CLEAR_RCVR | UART_FCR_CLEAR_XMIT);
		break;
	case UART_LCR:
		e->lcr = v;
		break;
	case UART_MCR:
		e->mcr = v;
		break;
	case UART_SCR:
		e->scr = v;
		break;
	}
	emu_kick_locked(e);
	raw_spin_unlock_irqrestore(&e->lock, flags);
}

/* debugfs */

static int emu_tty_show(struct seq_file *s, void *unused)
{
	struct emu *e = s->private;

	seq_printf(s, "ttyS%d\n", e->line);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(emu_tty);

static ssize_t emu_rx_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct emu *e = file->private_data;
	unsigned long flags;
	size_t n, i;
	u8 *buf;

	if (count > EMU_RX_SIZE)
		return -EFBIG;
	buf = memdup_user(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);

	raw_spin_lock_irqsave(&e->lock, flags);
	n = min_t(size_t, count, EMU_RX_SIZE - e->rx_len);
	for (i = 0; i < n; i++)
		e->rx[(e->rx_head + e->rx_len + i) & (EMU_RX_SIZE - 1)] = buf[i];
	e->rx_len += n;
	emu_kick_locked(e);
	raw_spin_unlock_irqrestore(&e->lock, flags);

	kfree(buf);
	return n ? n : -ENOBUFS;
}

static const struct file_operations emu_rx_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= emu_rx_write,
	.llseek	= noop_llseek,
};

static int emu_dcd_get(void *data, u64 *val)
{
	struct emu *e = data;

	*val = !!(READ_ONCE(e->msr) & UART_MSR_DCD);
	return 0;
}

static int emu_dcd_set(void *data, u64 val)
{
	struct emu *e = data;
	struct emu_edge *edge;
	unsigned long flags;
	bool level = val;

	if (val > 1)
		return -EINVAL;
	raw_spin_lock_irqsave(&e->lock, flags);
	if (level != !!(e->msr & UART_MSR_DCD)) {
		/* The delta of the change before is still unread: merged. */
		if (e->msr & UART_MSR_DDCD)
			e->dcd_lost++;
		e->msr ^= UART_MSR_DCD;
		e->msr |= UART_MSR_DDCD;
		edge = &e->edges[e->n_edges & (EMU_EDGES - 1)];
		edge->index = e->n_edges++;
		edge->raw_ns = ktime_get_raw_ns();
		edge->level = level;
		emu_kick_locked(e);
	}
	raw_spin_unlock_irqrestore(&e->lock, flags);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(emu_dcd_fops, emu_dcd_get, emu_dcd_set, "%llu\n");

static int emu_edges_show(struct seq_file *s, void *unused)
{
	struct emu *e = s->private;
	struct emu_edge *copy;
	unsigned long flags;
	u64 first, n, i;

	copy = kvmalloc_array(EMU_EDGES, sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	raw_spin_lock_irqsave(&e->lock, flags);
	memcpy(copy, e->edges, sizeof(e->edges));
	n = e->n_edges;
	raw_spin_unlock_irqrestore(&e->lock, flags);

	first = n > EMU_EDGES ? n - EMU_EDGES : 0;
	for (i = first; i < n; i++) {
		struct emu_edge *edge = &copy[i & (EMU_EDGES - 1)];

		seq_printf(s, "%llu %u %llu\n", edge->index, edge->level,
			   edge->raw_ns);
	}
	kvfree(copy);
	return 0;
}

static int emu_edges_open(struct inode *inode, struct file *file)
{
	return single_open(file, emu_edges_show, inode->i_private);
}

static ssize_t emu_edges_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct emu *e = ((struct seq_file *)file->private_data)->private;
	unsigned long flags;

	raw_spin_lock_irqsave(&e->lock, flags);
	e->n_edges = 0;
	e->dcd_lost = 0;
	raw_spin_unlock_irqrestore(&e->lock, flags);
	return count;
}

static const struct file_operations emu_edges_fops = {
	.owner		= THIS_MODULE,
	.open		= emu_edges_open,
	.read		= seq_read,
	.write		= emu_edges_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static ssize_t emu_tx_read(struct file *file, char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	struct emu *e = file->private_data;
	unsigned long flags;
	size_t n, i;
	u8 *buf;

	count = min_t(size_t, count, EMU_TX_SIZE);
	buf = kvmalloc(count, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	raw_spin_lock_irqsave(&e->lock, flags);
	n = min_t(size_t, count, e->tx_len);
	for (i = 0; i < n; i++)
		buf[i] = e->tx[(e->tx_head + i) & (EMU_TX_SIZE - 1)];
	e->tx_head = (e->tx_head + n) & (EMU_TX_SIZE - 1);
	e->tx_len -= n;
	raw_spin_unlock_irqrestore(&e->lock, flags);

	if (copy_to_user(ubuf, buf, n))
		n = -EFAULT;
	kvfree(buf);
	return n;
}

static const struct file_operations emu_tx_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= emu_tx_read,
	.llseek	= noop_llseek,
};

/* Read-only numbers: one getter each, under the lock. */
#define EMU_RO_ATTR(name, expr, fmt)					\
static int emu_##name##_get(void *data, u64 *val)			\
{									\
	struct emu *e = data;						\
	unsigned long flags;						\
									\
	raw_spin_lock_irqsave(&e->lock, flags);				\
	*val = (expr);							\
	raw_spin_unlock_irqrestore(&e->lock, flags);			\
	return 0;							\
}									\
DEFINE_DEBUGFS_ATTRIBUTE(emu_##name##_fops, emu_##name##_get, NULL, fmt)

static u64 emu_baud_locked(struct emu *e)
{
	unsigned int div = e->dll | e->dlm << 8;

	return div ? EMU_UARTCLK / 16 / div : 0;
}

EMU_RO_ATTR(ier, e->ier, "0x%02llx\n");
EMU_RO_ATTR(mcr, e->mcr, "0x%02llx\n");
EMU_RO_ATTR(baud, emu_baud_locked(e), "%llu\n");
EMU_RO_ATTR(irqs, e->irqs, "%llu\n");
EMU_RO_ATTR(dcd_lost, e->dcd_lost, "%llu\n");

static void emu_debugfs_init(struct emu *e)
{
	e->dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("tty", 0444, e->dir, e, &emu_tty_fops);
	debugfs_create_file("rx", 0200, e->dir, e, &emu_rx_fops);
	debugfs_create_file_unsafe("dcd", 0644, e->dir, e, &emu_dcd_fops);
	debugfs_create_file("edges", 0644, e->dir, e, &emu_edges_fops);
	debugfs_create_file("tx", 0400, e->dir, e, &emu_tx_fops);
	debugfs_create_file_unsafe("ier", 0444, e->dir, e, &emu_ier_fops);
	debugfs_create_file_unsafe("mcr", 0444, e->dir, e, &emu_mcr_fops);
	debugfs_create_file_unsafe("baud", 0444, e->dir, e, &emu_baud_fops);
	debugfs_create_file_unsafe("irqs", 0444, e->dir, e, &emu_irqs_fops);
	debugfs_create_file_unsafe("dcd_lost", 0444, e->dir, e,
				   &emu_dcd_lost_fops);
}

static int __init emu_init(void)
{
	struct uart_8250_port up = { };
	struct emu *e;
	int ret;

	e = kvzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	raw_spin_lock_init(&e->lock);
	/* No device on the other end drives CTS or DSR: a plain 3-wire+DCD. */
	e->msr = UART_MSR_CTS | UART_MSR_DSR;
	/* hrtimer_init(): 6.1 has no hrtimer_setup() (6.13). */
	hrtimer_init(&e->irq_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	e->irq_timer.function = emu_irq_fire;

	ret = irq_alloc_desc(NUMA_NO_NODE);
	if (ret < 0)
		goto out_free;
	e->irq = ret;
	irq_set_chip_and_handler(e->irq, &dummy_irq_chip, handle_simple_irq);
	irq_clear_status_flags(e->irq, IRQ_NOREQUEST | IRQ_NOPROBE);

	e->pdev = platform_device_register_simple(KBUILD_MODNAME,
						  PLATFORM_DEVID_NONE, NULL, 0);
	if (IS_ERR(e->pdev)) {
		ret = PTR_ERR(e->pdev);
		goto out_free_irq;
	}

	/*
	 * Memory-mapped at no address: the 8250 driver's probe for the
	 * region fails and it takes the type as given (no autoconfig); every
	 * register access comes through serial_in/serial_out.
	 */
	up.port.dev = &e->pdev->dev;
	up.port.type = PORT_16550A;
	up.port.iotype = UPIO_MEM;
	up.port.flags = UPF_FIXED_TYPE | UPF_FIXED_PORT;
	up.port.uartclk = EMU_UARTCLK;
	up.port.fifosize = EMU_FIFOSIZE;
	up.tx_loadsz = EMU_FIFOSIZE;
	up.port.irq = e->irq;
	up.port.serial_in = emu_serial_in;
	up.port.serial_out = emu_serial_out;
	up.port.private_data = e;
	ret = serial8250_register_8250_port(&up);
	if (ret < 0)
		goto out_unregister_pdev;
	e->line = ret;

	emu_debugfs_init(e);
	emu = e;
	dev_info(&e->pdev->dev, "16550A emulated as ttyS%d, irq %u\n",
		 e->line, e->irq);
	return 0;

out_unregister_pdev:
	platform_device_unregister(e->pdev);
out_free_irq:
	irq_free_desc(e->irq);
out_free:
	kvfree(e);
	return ret;
}

static void __exit emu_exit(void)
{
	struct emu *e = emu;

	/* No control file can be in use any more after this. */
	debugfs_remove_recursive(e->dir);
	/* Hangs up an open tty; the driver frees its interrupt. */
	serial8250_unregister_port(e->line);
	hrtimer_cancel(&e->irq_timer);
	irq_free_desc(e->irq);
	platform_device_unregister(e->pdev);
	kvfree(e);
}

module_init(emu_init);
module_exit(emu_exit);

MODULE_DESCRIPTION("16550A registers in memory for the kernel's 8250 driver, for gpsphc tests");
MODULE_LICENSE("GPL");
