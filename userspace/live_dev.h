/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * live_dev.h - live mode's view of its gpsphc device, as the kernel
 * reports it: dev-get at attach and each second (its id and clock, the
 * servo's status for the metrics, --record's V lines and ptp4l), and the
 * servo's state notifications. A change of the servo's state, and pulses
 * off its phase beginning or ending, are logged once each and put in the
 * service's status line.
 */
#ifndef GPSPHCD_LIVE_DEV_H
#define GPSPHCD_LIVE_DEV_H

struct live;
struct nlattr;

/*
 * dev-get the device of the tty: 0 with l->got_id, l->got_ptp and
 * l->got_state, or a negative error, said unless it is the kernel's
 * @quiet (as for live_nl_request()).
 */
int live_dev_get(struct live *l, int quiet);

/* A state-ntf: the servo's status (@servo, its nest) after a change. */
void live_state_ntf(struct live *l, struct nlattr *servo);

/* systemd's status line of the service, @more before it (live_sd.h). */
void live_notify_status(struct live *l, const char *more);

#endif /* GPSPHCD_LIVE_DEV_H */
