/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * live_sd.h - what live mode tells the service manager (sd_notify(3)):
 * its status line, READY and STOPPING, and systemd's file descriptor
 * store, which keeps the tty open, and with it the discipline, the PTP
 * clock and the PPS source, while gpsphcd is killed or restarted (the
 * unit's FileDescriptorStoreMax=), and hands it to the next gpsphcd. All
 * of it is a no-op without systemd.
 */
#ifndef GPSPHCD_LIVE_SD_H
#define GPSPHCD_LIVE_SD_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The service's status line: @tty_name is gpsphc@dev_id, /dev/ptp@ptp_index,
 * its servo in @servo_state (enum gpsphc_servo_state), and whether pulses
 * arrive off its phase; @more ("READY=1\n", or "") goes before it.
 */
void live_sd_status(const char *more, const char *tty_name, uint32_t dev_id,
		    uint32_t ptp_index, uint32_t servo_state, bool off_phase);

/* gpsphcd stops (STOPPING=1). */
void live_sd_stopping(void);

/*
 * The tty a gpsphcd before this one left in the fd store (FDNAME "tty"),
 * if it is still @path's device; -1 if there is none. Any other
 * descriptor passed is closed, but @keep (nmea_pty's, or -1), and a stale
 * tty is taken out of the store.
 */
int live_sd_stored_tty(const char *path, int keep);

/* Give the service manager a copy of the tty @fd: true if there is one to keep it. */
bool live_sd_store(int fd);

/* Take the tty out of the store: systemd closes its copy. */
void live_sd_unstore(void);

#endif /* GPSPHCD_LIVE_SD_H */
