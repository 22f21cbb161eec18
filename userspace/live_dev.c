// SPDX-License-Identifier: GPL-2.0-only
/* live_dev.c - live mode's view of its device: see live_dev.h. */
#include <stdio.h>
#include <time.h>

#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "linux/gpsphc.h"
#include "live_dev.h"
#include "live_priv.h"
#include "live_sd.h"
#include "log.h"
#include "names.h"
#include "ptp4l_gm.h"
#include "replay.h"
#include "servo_status.h"

void live_notify_status(struct live *l, const char *more)
{
	live_sd_status(more, l->tty_name, l->dev_id, l->ptp_index,
		       l->servo_state, l->off_phase.count);
}

/*
 * The servo nest of a dev-get reply or a state-ntf (NULL: none), decoded
 * into *@sv. A malformed one reads as none (*@sv empty, as from a module
 * that does not send it), said when that begins and when it ends, not
 * once a second.
 */
static void live_servo(struct live *l, struct nlattr *nest,
		       struct servo_status *sv)
{
	char why[160];

	if (servo_status_parse(nest, sv, why, sizeof(why))) {
		if (!l->servo_bad)
			log_msg(LOG_ERR, "%s: the kernel's servo status is malformed (%s): read as if there were none until it is well-formed again; the gpsphc module and gpsphcd do not match: install both from the same gpsphc version (modinfo -F version gpsphc, gpsphcd --version)",
				l->tty_name, why);
		l->servo_bad = true;
	} else if (nest && l->servo_bad) {
		log_msg(LOG_NOTICE, "%s: the kernel's servo status is well-formed again",
			l->tty_name);
		l->servo_bad = false;
	}
}

/*
 * Pulses arriving steadily off the servo's phase, from the servo's status
 * (a state-ntf, which the kernel sends when they begin and end, or the
 * dev-get of each second): said once when they begin, once when they end.
 */
static void live_off_phase(struct live *l, const struct servo_status *sv)
{
	char line[256];
	int prio;

	if (!servo_status_has(sv, GPSPHC_A_SERVO_OFF_PHASE_COUNT))
		return;		/* a module that does not report them */
	prio = status_off_phase_change(&l->off_phase, sv->off_phase_count,
				       sv->off_phase_ns,
				       sv->counters[GPSPHC_A_SERVO_REPHASES],
				       line, sizeof(line));
	if (prio < 0)
		return;
	log_msg(prio, "%s: %s", l->tty_name, line);
	live_notify_status(l, "");
}

/* --record: the servo's status of a dev-get, for gpsphc-plot. */
static void live_record_servo(FILE *f, const struct gp_metrics_dev *d)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	record_servo(f, ts.tv_sec * 1000000000LL + ts.tv_nsec,
		     gp_enum_name(GP_ENUM_SERVO_STATE, d->state), d->offset_ns,
		     d->freq_ppb, d->rms_ns, d->holdover_s);
}

static int live_dev_id_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[GPSPHC_A_DEV_MAX + 1];
	struct servo_status sv;
	struct live *l = arg;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, GPSPHC_A_DEV_MAX, NULL) ||
	    !tb[GPSPHC_A_DEV_ID])
		return NL_SKIP;
	live_servo(l, tb[GPSPHC_A_DEV_SERVO], &sv);
	l->got_id = nla_get_u32(tb[GPSPHC_A_DEV_ID]);
	l->got_ptp = tb[GPSPHC_A_DEV_PTP_INDEX] ?
		     nla_get_u32(tb[GPSPHC_A_DEV_PTP_INDEX]) : 0;
	l->got_state = sv.state;
	l->got = true;
	live_adapter_pps_gpio(&l->adapter, status_pps_gpio(tb[GPSPHC_A_DEV_PPS_GPIO]));
	metrics_from_dev(tb, &sv, &l->metrics.dev);
	l->metrics.have_dev = true;
	if (l->o->record)
		live_record_servo(l->o->record, &l->metrics.dev);
	live_off_phase(l, &sv);
	/* Each second (live_check()): ptp4l follows the servo's status. */
	if (l->o->gm)
		ptp4l_gm_servo(l->o->gm, &sv);
	return NL_OK;
}

int live_dev_get(struct live *l, int quiet)
{
	int ret;

	l->got = false;
	ret = live_nl_dev_get(&l->nl, l->tty_name, live_dev_id_cb, l, quiet);
	return ret ? ret : l->got ? 0 : -NLE_OBJ_NOTFOUND;
}

/* The kernel's servo changed state (@state 0: not said). */
static void live_servo_changed(struct live *l, uint32_t state)
{
	if (!state || state == l->servo_state)
		return;
	l->servo_state = state;
	log_msg(LOG_INFO, "%s: servo %s", l->tty_name,
		gp_enum_name(GP_ENUM_SERVO_STATE, state));
	live_notify_status(l, "");
}

/* The servo's status after a change of its state or of off-phase pulses. */
void live_state_ntf(struct live *l, struct nlattr *servo)
{
	struct servo_status sv;

	live_servo(l, servo, &sv);
	live_servo_changed(l, sv.state);
	live_off_phase(l, &sv);
}
