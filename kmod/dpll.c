// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: a DPLL device per attached receiver (interface layer), for the
 * readers of the kernel's DPLL netlink family (linuxptp-daemon, synce4l):
 * its lock status follows the servo, and its one input pin, the
 * receiver's 1PPS, carries the servo's latest offset as its phase
 * offset. Built where the kernel has the DPLL core (compat.h); 6.1 has
 * none.
 *
 * Identity: module "gpsphc", clock_id N of the device's /dev/ptpN,
 * device index 0, type pps; the pin: the same clock_id, index 0. A
 * consumer goes from a DPLL device to its PHC by the clock-id (/dev/ptp
 * and the number), and from /dev/ptpN to the DPLL device with the DPLL
 * family's device-id-get (module-name "gpsphc", clock-id N, type pps).
 * ptp indexes are unique among live clocks and the DPLL device lives
 * within its clock's lifetime (registered after it, unregistered before
 * it), so no two gpsphc DPLL devices share a clock_id.
 *
 * Lock status, from the servo's state (enum gpsphc_servo_state):
 *
 * - UNLOCKED, OFF, LOCKING: %DPLL_LOCK_STATUS_UNLOCKED. LOCKING is the
 *   acquisition: the offsets are not yet within lock_ns, the clock may
 *   still be stepped.
 * - LOCKED on PPS edges: %DPLL_LOCK_STATUS_LOCKED_HO_ACQ. The loop
 *   follows the pulses and the rate its steering filter holds is what
 *   holdover keeps (servo/servo.h: HOLDOVER keeps "the loop's estimate
 *   of the pulses' rate", and a HOLDOVER entered from LOCKED is treated as
 *   locked when the pulses come back).
 * - LOCKED in coarse mode (sentence starts, no PPS wired):
 *   %DPLL_LOCK_STATUS_LOCKED. Locked, to millisecond-grade inputs whose
 *   rate is no holdover worth the name (the servo's status says coarse).
 * - HOLDOVER: %DPLL_LOCK_STATUS_HOLDOVER.
 *
 * Notifications: the event queue's worker calls gpsphc_dpll_notify() for
 * every state change the servo posts (gpsphc_events_post_state()), in
 * process context under the queue's order and never under servo_lock: the
 * DPLL core builds the message under its dpll_lock and calls our ops
 * there, which take servo_lock (gpsphc_servo_glue_status()). So the locks
 * nest as the queue's order, dpll_lock, servo_lock, and nothing holds
 * servo_lock while it waits for dpll_lock.
 *
 * Lifetime (see also dev.h): gpsphc_dpll_register() runs in attach
 * once the PTP clock exists (its index is the clock_id) and hands the
 * event queue gpsphc_dpll_notify() last, when the device and its pin are
 * whole. gpsphc_dpll_unregister() runs in detach right after the queue
 * is stopped (gpsphc_dev_kill(): no notification is pending or can be
 * queued), before the PTP clock goes, and takes the watcher back before
 * anything else, under the queue's order. dpll_device_unregister() and
 * dpll_pin_unregister() take dpll_lock, under which every op runs: once
 * they return, no op is running or can start, and the device structure,
 * which the ops reach through their priv pointer, outlives them.
 */

#include <linux/dpll.h>
#include <linux/module.h>

#include "dev.h"
#include "dpll.h"
#include "events.h"
#include "servo_glue.h"

/* The servo's status, as sysfs and netlink show it. */
static void gpsphc_dpll_status(struct gpsphc_dev *gdev, u64 *st)
{
	gpsphc_servo_glue_status(gdev, st);
}

static enum dpll_lock_status gpsphc_dpll_lock_status(const u64 *st)
{
	switch (st[GPSPHC_A_SERVO_STATE]) {
	case GPSPHC_SERVO_LOCKED:
		return st[GPSPHC_A_SERVO_COARSE] ? DPLL_LOCK_STATUS_LOCKED :
		       DPLL_LOCK_STATUS_LOCKED_HO_ACQ;
	case GPSPHC_SERVO_HOLDOVER:
		return DPLL_LOCK_STATUS_HOLDOVER;
	default:
		/* UNLOCKED, LOCKING (acquiring), OFF */
		return DPLL_LOCK_STATUS_UNLOCKED;
	}
}

static int gpsphc_dpll_mode_get(const struct dpll_device *dpll, void *priv,
				enum dpll_mode *mode,
				struct netlink_ext_ack *extack)
{
	/* The servo picks its input (PPS or sentences) by itself. */
	*mode = DPLL_MODE_AUTOMATIC;
	return 0;
}

static int gpsphc_dpll_lock_status_get(const struct dpll_device *dpll,
				       void *priv,
				       enum dpll_lock_status *status,
				       enum dpll_lock_status_error *status_error,
				       struct netlink_ext_ack *extack)
{
	u64 st[GPSPHC_A_SERVO_MAX + 1];

	gpsphc_dpll_status(priv, st);
	*status = gpsphc_dpll_lock_status(st);
	return 0;
}

static const struct dpll_device_ops gpsphc_dpll_ops = {
	.mode_get = gpsphc_dpll_mode_get,
	.lock_status_get = gpsphc_dpll_lock_status_get,
};

static int gpsphc_dpll_pin_direction_get(const struct dpll_pin *pin,
					 void *pin_priv,
					 const struct dpll_device *dpll,
					 void *dpll_priv,
					 enum dpll_pin_direction *direction,
					 struct netlink_ext_ack *extack)
{
	*direction = DPLL_PIN_DIRECTION_INPUT;
	return 0;
}

static int gpsphc_dpll_pin_state_get(const struct dpll_pin *pin,
				     void *pin_priv,
				     const struct dpll_device *dpll,
				     void *dpll_priv,
				     enum dpll_pin_state *state,
				     struct netlink_ext_ack *extack)
{
	/* The one input: whenever it pulses, the servo follows it. */
	*state = DPLL_PIN_STATE_CONNECTED;
	return 0;
}

static int gpsphc_dpll_pin_frequency_get(const struct dpll_pin *pin,
					 void *pin_priv,
					 const struct dpll_device *dpll,
					 void *dpll_priv, u64 *frequency,
					 struct netlink_ext_ack *extack)
{
	*frequency = DPLL_PIN_FREQUENCY_1_HZ;
	return 0;
}

/* DPLL phase offsets are in ps / DPLL_PHASE_OFFSET_DIVIDER. */
#define GPSPHC_DPLL_PER_NS	(1000LL * DPLL_PHASE_OFFSET_DIVIDER)

/*
 * The servo's latest offset: the clock (the DPLL's output) minus the
 * pulses (the pin), positive when the clock is ahead, as the servo and
 * gpsphc's status report it; 0 before the first label. Saturated: 2.5 h
 * would overflow, and the servo steps anything above 20 ms anyway.
 */
static int gpsphc_dpll_pin_phase_offset_get(const struct dpll_pin *pin,
					    void *pin_priv,
					    const struct dpll_device *dpll,
					    void *dpll_priv, s64 *phase_offset,
					    struct netlink_ext_ack *extack)
{
	const s64 lim = div_s64(S64_MAX, GPSPHC_DPLL_PER_NS);
	u64 st[GPSPHC_A_SERVO_MAX + 1];
	s64 off;

	gpsphc_dpll_status(pin_priv, st);
	off = clamp_t(s64, (s64)st[GPSPHC_A_SERVO_OFFSET_NS], -lim, lim);
	*phase_offset = off * GPSPHC_DPLL_PER_NS;
	return 0;
}

static const struct dpll_pin_ops gpsphc_dpll_pin_ops = {
	.direction_get = gpsphc_dpll_pin_direction_get,
	.state_on_dpll_get = gpsphc_dpll_pin_state_get,
	.frequency_get = gpsphc_dpll_pin_frequency_get,
	.phase_offset_get = gpsphc_dpll_pin_phase_offset_get,
};

/* dpll_pin_get() copies the properties, the frequencies too. */
static struct dpll_pin_frequency gpsphc_dpll_pin_freqs[] = {
	DPLL_PIN_FREQUENCY_1PPS,
};

static const struct dpll_pin_properties gpsphc_dpll_pin_props = {
	/* ice's name for its GNSS receiver's pulse */
	.board_label = "GNSS-1PPS",
	.type = DPLL_PIN_TYPE_GNSS,
	/* Nothing about it can be set through the DPLL family. */
	.capabilities = 0,
	.freq_supported_num = ARRAY_SIZE(gpsphc_dpll_pin_freqs),
	.freq_supported = gpsphc_dpll_pin_freqs,
};

/*
 * gpsphc_dpll_notify() - the servo's state changed: tell DPLL listeners
 * @gdev: the device
 *
 * The device's lock status, and the pin, whose phase offset is the
 * servo's offset. The DPLL core sends to its monitor group.
 *
 * Context: the event queue's worker, under its order; not servo_lock,
 * which the ops take under dpll_lock.
 */
static void gpsphc_dpll_notify(struct gpsphc_dev *gdev)
{
	lockdep_assert_held(&gdev->events.order);
	lockdep_assert_not_held(&gdev->servo_lock);
	dpll_device_change_ntf(gdev->dpll);
	dpll_pin_change_ntf(gdev->dpll_pin);
}

/**
 * gpsphc_dpll_register() - the device's DPLL device and its input pin
 * @gdev: the device, its PTP clock registered
 *
 * Context: attach; takes dpll_lock, then (in the ops the creation
 * notifications call) servo_lock.
 * Return: 0, or a negative errno with nothing left registered.
 */
int gpsphc_dpll_register(struct gpsphc_dev *gdev)
{
	u64 clock_id = gdev->ptp_id;
	int ret;

	gdev->dpll = dpll_device_get(clock_id, 0, THIS_MODULE);
	if (IS_ERR(gdev->dpll))
		return PTR_ERR(gdev->dpll);

	ret = dpll_device_register(gdev->dpll, DPLL_TYPE_PPS, &gpsphc_dpll_ops,
				   gdev);
	if (ret)
		goto out_put_dpll;

	gdev->dpll_pin = dpll_pin_get(clock_id, 0, THIS_MODULE,
				      &gpsphc_dpll_pin_props);
	if (IS_ERR(gdev->dpll_pin)) {
		ret = PTR_ERR(gdev->dpll_pin);
		goto out_unregister_dpll;
	}

	ret = dpll_pin_register(gdev->dpll, gdev->dpll_pin,
				&gpsphc_dpll_pin_ops, gdev);
	if (ret)
		goto out_put_pin;

	/* Whole: state changes from now on, and one now for any missed. */
	gpsphc_events_watch_state(gdev, gpsphc_dpll_notify);
	return 0;

out_put_pin:
	dpll_pin_put(gdev->dpll_pin);
out_unregister_dpll:
	dpll_device_unregister(gdev->dpll, &gpsphc_dpll_ops, gdev);
out_put_dpll:
	dpll_device_put(gdev->dpll);
	gdev->dpll = NULL;
	gdev->dpll_pin = NULL;
	return ret;
}

/**
 * gpsphc_dpll_unregister() - remove the DPLL device and its pin
 * @gdev: the device, its event queue stopped (gpsphc_events_stop())
 *
 * The watcher goes first, under the queue's order, so that no
 * notification can reach the device once it is gone. Waits, through
 * dpll_lock, for ops in progress; none runs after it. Nothing to do if
 * gpsphc_dpll_register() failed or never ran.
 */
void gpsphc_dpll_unregister(struct gpsphc_dev *gdev)
{
	if (!gdev->dpll)
		return;
	gpsphc_events_unwatch_state(gdev);
	dpll_pin_unregister(gdev->dpll, gdev->dpll_pin, &gpsphc_dpll_pin_ops,
			    gdev);
	dpll_pin_put(gdev->dpll_pin);
	dpll_device_unregister(gdev->dpll, &gpsphc_dpll_ops, gdev);
	dpll_device_put(gdev->dpll);
	gdev->dpll = NULL;
	gdev->dpll_pin = NULL;
}
