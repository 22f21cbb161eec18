/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version compatibility for gpsphc_sim, force-included from Kbuild
 * so that gpsphc_sim.c reads like current upstream code.
 *
 * Supported: Debian's 6.1 (which carries the uart_port_lock*() helpers
 * from 6.7) and 6.12.
 */
#ifndef _GPSPHC_SIM_COMPAT_H
#define _GPSPHC_SIM_COMPAT_H

#include <linux/version.h>
#include <linux/hrtimer.h>
#include <linux/serial_core.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 10, 0)
#include <linux/circ_buf.h>
#include <linux/string.h>

/* 6.10 turned the transmit circ_buf into a kfifo and added uart_fifo_out(). */
static inline unsigned int uart_fifo_out(struct uart_port *up,
					 unsigned char *buf, unsigned int chars)
{
	struct circ_buf *xmit = &up->state->xmit;
	unsigned int done = 0;

	while (done < chars) {
		unsigned int n = CIRC_CNT_TO_END(xmit->head, xmit->tail,
						 UART_XMIT_SIZE);

		n = min(n, chars - done);
		if (!n)
			break;
		memcpy(buf + done, xmit->buf + xmit->tail, n);
		uart_xmit_advance(up, n);
		done += n;
	}

	return done;
}
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
/* hrtimer_setup() replaced hrtimer_init() + ->function in 6.13. */
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

#endif /* _GPSPHC_SIM_COMPAT_H */
