// SPDX-License-Identifier: GPL-2.0-only
/* live_label.c - live mode's labels to the kernel: see live_label.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <netlink/msg.h>

#include "linux/gpsphc.h"
#include "live_label.h"
#include "live_priv.h"
#include "log.h"
#include "state.h"

/* Save the last-good time every this many labels (about a minute). */
#define LIVE_SAVE_EVERY	60

void live_save_state(struct live *l)
{
	if (l->o->state && l->have_last &&
	    state_save_last_good(l->o->state, l->p, false) < 0)
		log_msg(LOG_ERR, "cannot save the last-good time to %s: %s",
			l->o->state, strerror(errno));
}

/* A label the kernel took, or one kept while it is not sent (hold). */
static void live_label_good(struct live *l)
{
	l->have_last = true;
	if (++l->labels_good % LIVE_SAVE_EVERY == 1)
		live_save_state(l);
}

/*
 * The kernel refused a label with EBUSY: its servo is off (sysfs "servo",
 * or another gpsphcd). Labels are still sent, so that the first one after
 * the servo is turned on again is taken, but the refusal is said once per
 * change, not once a second.
 */
static void live_label_busy(struct live *l, const char *what)
{
	if (l->refused_busy)
		return;
	l->refused_busy = true;
	log_msg(LOG_WARNING, "%s: %s%s%s; labels are printed, not taken, until the kernel servo is on again (gpsphcd --servo on); meanwhile steer /dev/ptp%" PRIu32 " with ts2phc or ptp4l",
		what, strerror(EBUSY), l->nl.ack_msg[0] ? ": " : "", l->nl.ack_msg,
		l->ptp_index);
}

/*
 * The pipeline labelled an edge, or in coarse mode a sentence that starts
 * a second: print it and tell the kernel, unless its servo is off. A label
 * the guard holds (a jump) goes to the kernel too, unprinted: the kernel
 * confirms jumps for the clock (confirm_n), gpsphcd's guard only for what
 * it prints and trusts.
 */
void live_label(void *ctx, const struct pp_label *lab)
{
	struct live *l = ctx;
	const char *input = lab->coarse ? "sentence" : "edge";
	struct nlattr *nest;
	struct nl_msg *msg;
	char what[96];

	if (l->o->print_labels && !lab->held)
		pp_print_label(stdout, lab);
	else if (log_enabled(LOG_DEBUG))
		log_msg(LOG_DEBUG, "%s: %s at %" PRId64 " ns is TAI %" PRId64 " (TAI-UTC %d)%s",
			l->tty_name, input, lab->edge_ns, lab->tai, lab->tai_utc,
			lab->held ? ", held by the guard: for the kernel to confirm" : "");
	if (l->hold) {
		if (!lab->held)
			live_label_good(l);
		return;
	}
	msg = live_nl_msg(&l->nl, GPSPHC_CMD_TIME_SET);
	if (!msg)
		return;
	if (nla_put_u32(msg, GPSPHC_A_DEV_ID, l->dev_id) ||
	    !(nest = nla_nest_start(msg, GPSPHC_A_DEV_TIME)) ||
	    nla_put_u32(msg, lab->coarse ? GPSPHC_A_TIME_SENTENCE_SEQ :
			GPSPHC_A_TIME_EDGE_SEQ, lab->seq) ||
	    nla_put_u64(msg, GPSPHC_A_TIME_TAI_SEC, (uint64_t)lab->tai) ||
	    nla_put_u32(msg, GPSPHC_A_TIME_TAI_UTC, (uint32_t)lab->tai_utc) ||
	    (lab->leap_pending &&
	     (nla_put_u32(msg, GPSPHC_A_TIME_LEAP, lab->leap_pending > 0 ?
			  GPSPHC_LEAP_INSERT : GPSPHC_LEAP_DELETE) ||
	      nla_put_u64(msg, GPSPHC_A_TIME_LEAP_UTC, (uint64_t)lab->leap_at_utc)))) {
		nlmsg_free(msg);
		return;
	}
	nla_nest_end(msg, nest);
	snprintf(what, sizeof(what), "labelling %s %" PRIu32 "%s as TAI %" PRId64,
		 input, lab->seq, lab->coarse ? " (coarse mode)" : "", lab->tai);
	if (!live_nl_request(&l->nl, msg, what, NULL, NULL, -EBUSY)) {
		if (l->refused_busy)
			log_msg(LOG_NOTICE, "the kernel takes labels again (%s)",
				what);
		l->refused_busy = false;
		if (!lab->held)
			live_label_good(l);
	} else if (l->nl.ack_err == -EBUSY) {
		live_label_busy(l, what);
	}
	nlmsg_free(msg);
}
