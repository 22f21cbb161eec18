/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * live_events.h - the kernel's events in live mode, from the "events"
 * group of the gpsphc family: PPS edges and sentences go to the labelling
 * pipeline (and to --dump-events, --record and nmea_pty), the servo's
 * state changes to live_dev.c, the kernel's decisions on labels that
 * disagreed with its count to the log. Events lost on the way (a full
 * socket, a jump in the kernel's sequence numbers) make the pipeline
 * forget what they may have changed; each episode of losses is said when
 * it starts and when it ends.
 */
#ifndef GPSPHCD_LIVE_EVENTS_H
#define GPSPHCD_LIVE_EVENTS_H

#include <stdint.h>

struct live;
struct nl_msg;

/* The events socket's NL_CB_VALID: one event of @arg's (a struct live) device. */
int live_event_cb(struct nl_msg *msg, void *arg);

/* Read what the events socket holds, a bounded number of datagrams. */
void live_read_events(struct live *l);

/* Say the end of an episode of losses, once none has come for a while. */
void live_loss_over(struct live *l, int64_t now);

#endif /* GPSPHCD_LIVE_EVENTS_H */
