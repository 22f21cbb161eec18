/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * live_tty.h - the tty live mode holds. Like ldattach, gpsphcd puts it in
 * raw mode, sets CLOCAL (a USB adapter would otherwise hang the tty up
 * each time DCD drops), attaches the gpsphc line discipline and holds the
 * tty open, locked, for as long as it runs: one gpsphcd per tty. A tty
 * another process holds (its lock, or a discipline other than N_TTY) is
 * left as it is, and the refusal names the processes that have it open.
 */
#ifndef GPSPHCD_LIVE_TTY_H
#define GPSPHCD_LIVE_TTY_H

#include <stdbool.h>

#include "live.h"

/*
 * Lock the tty (one gpsphcd per tty), check that nobody else has a
 * discipline on it, then raw mode, CLOCAL, speed (o->conf's baud, if
 * given), and the discipline o->ldisc. @fd is the tty a gpsphcd before
 * this one left in systemd's fd store, or -1 to open o->device; if it
 * still has the discipline, it is taken as it is (*@reused). Returns the
 * fd, or -1 with *@status the exit status (LIVE_EXIT_BUSY: another
 * process holds it), what failed said.
 */
int live_tty_attach(const struct live_opts *o, int fd, int *status,
		    bool *reused);

/*
 * Keep DCD interrupts on for the life of the process (a thread waiting in
 * TIOCMIWAIT on @fd): an 8250 raises them only for a waiter once CLOCAL
 * is set. A failure to start it is said as a warning.
 */
void live_tty_keep_dcd(int fd);

/* Give @fd back to N_TTY: the discipline, its device and clock go. */
void live_tty_detach(int fd);

#endif /* GPSPHCD_LIVE_TTY_H */
