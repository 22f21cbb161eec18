// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: PPS edges on DCD. Each edge is timestamped once, first thing in
 * the DCD interrupt, and that one timestamp goes to every consumer: the
 * standard PPS source (/dev/ppsN, as pps-ldisc would feed it), EXTTS
 * (/dev/ptpN, by the clock's input handler), and through the device's
 * queue (events.c) the servo (an on-time edge) and the notifications.
 * The interrupt does what pps-ldisc does and no more: the servo runs in
 * process context.
 */

#include <linux/pps_kernel.h>
#include <linux/timekeeping.h>

#include "dev.h"
#include "events.h"
#include "pps.h"

/**
 * gpsphc_pps_register() - register the standard PPS source of a device
 * @gdev: the device, already added to sysfs (it parents /dev/ppsN)
 *
 * Return: 0 or a negative errno.
 */
int gpsphc_pps_register(struct gpsphc_dev *gdev)
{
	struct pps_source_info info = {
		.owner = THIS_MODULE,
		.dev = &gdev->dev,
		.mode = PPS_CAPTUREBOTH | PPS_OFFSETASSERT | PPS_OFFSETCLEAR |
			PPS_CANWAIT | PPS_TSFMT_TSPEC,
	};
	struct pps_device *pps;

	snprintf(info.name, PPS_MAX_NAME_LEN, "gpsphc%u", gdev->id);
	/* Informational only; a tty name too long for it is cut short. */
	snprintf(info.path, PPS_MAX_NAME_LEN, "/dev/%.26s", gdev->tty_name);

	pps = pps_register_source(&info, PPS_CAPTUREBOTH | PPS_OFFSETASSERT |
				  PPS_OFFSETCLEAR);
	if (IS_ERR(pps))
		return PTR_ERR(pps);
	gdev->pps = pps;
	WRITE_ONCE(gdev->pps_id, pps->id);
	return 0;
}

/**
 * gpsphc_pps_unregister() - unregister the PPS source of a device
 * @gdev: the device; no DCD edge can reach it any more
 *
 * The one place the source is unregistered, once: a second call finds
 * nothing to do. Its only other user is the DCD path, which the tty layer
 * keeps out of detach (see dev.h), so the pointer needs no lock. Open
 * files of /dev/ppsN keep the pps_device, not the gpsphc device, alive.
 */
void gpsphc_pps_unregister(struct gpsphc_dev *gdev)
{
	struct pps_device *pps = gdev->pps;

	gdev->pps = NULL;
	if (pps)
		pps_unregister_source(pps);
}

/**
 * gpsphc_pps_set_edge() - choose which edge is on time
 * @gdev: the device
 * @edge: %GPSPHC_EDGE_RISING or %GPSPHC_EDGE_FALLING
 */
void gpsphc_pps_set_edge(struct gpsphc_dev *gdev, enum gpsphc_edge edge)
{
	WRITE_ONCE(gdev->edge, edge);
}

/**
 * gpsphc_pps_capture() - account for one DCD edge
 * @gdev: the device
 * @snap: the timestamps taken on entry to dcd_change
 * @active: the new DCD level
 *
 * The edge gets its identity, its seq, here, goes to /dev/ppsN and (an
 * on-time edge) to EXTTS in the clock's time as it reads at the edge, and
 * is queued for the servo, which counts it before its notification goes
 * out, so the notification says what the servo made of it and a label
 * sent on it finds it. The seq and the count of edges take no lock: the
 * tty drivers report one edge at a time, and the cmpxchg keeps each seq
 * given once even to a driver that did not.
 *
 * Context: the UART's interrupt, port lock held: one edge at a time.
 */
void gpsphc_pps_capture(struct gpsphc_dev *gdev,
			const struct system_time_snapshot *snap, bool active)
{
	struct pps_event_time ts = { .ts_real = ktime_to_timespec64(snap->real) };
	struct gpsphc_pps_event ev = {
		.raw_ns = ktime_to_ns(snap->raw),
		.real_ns = ktime_to_ns(snap->real),
		.edge = active ? GPSPHC_EDGE_RISING : GPSPHC_EDGE_FALLING,
	};

#ifdef CONFIG_NTP_PPS
	ts.ts_raw = ktime_to_timespec64(snap->raw);
#endif

	ev.assert = active == (READ_ONCE(gdev->edge) == GPSPHC_EDGE_RISING);
	atomic64_inc(&gdev->pps_edges);
	/* Read by the label path, to tell a clear edge from a future one. */
	ev.seq = READ_ONCE(gdev->pps_seq);
	while (!try_cmpxchg(&gdev->pps_seq, &ev.seq, ev.seq + 1))
		;

	pps_event(gdev->pps, &ts, ev.assert ? PPS_CAPTUREASSERT : PPS_CAPTURECLEAR,
		  NULL);
	/* EXTTS, by the clock's input handler: capture calls no clock code. */
	if (ev.assert)
		gdev->events.input->extts(gdev, ev.raw_ns);
	gpsphc_events_queue_edge(gdev, &ev);
}
