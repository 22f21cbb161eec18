// SPDX-License-Identifier: GPL-2.0-only
/*
 * status.c - gpsphcd --status. The JSON form is a stable interface:
 *
 *   {"devices": [{"id": 0, "tty": "ttyS0", "pps": "pps0", "ptp": "ptp0",
 *     "edge": "rising", "scale": "tai", "step_ns": N, "confirm_n": N,
 *     "rx_latency_ns": N, "servo_off": false,
 *     "servo": {"state": "locked", "offset_ns": N, "rms_ns": N,
 *               "freq_ppb": N, "tai_utc": N, "leap": "none",
 *               "leap_utc": N, "holdover_s": N, "coarse": false,
 *               "labels": N, "labels_refused": N, "disagreements": N,
 *               "steps": N, "outliers": N},
 *     "stats": {"sentences": N, ... one key per counter}}]}
 *
 * "servo_off" is the setting (GPSPHC_A_DEV_SERVO_OFF: true while ts2phc or
 * ptp4l steers the clock, false when the module does not report it); the
 * servo's "state" is then "off".
 *
 * Keys are only ever added.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "log.h"
#include "linux/gpsphc.h"
#include "status.h"

static const char *const status_stats[GPSPHC_A_STATS_MAX + 1] = {
	[GPSPHC_A_STATS_SENTENCES] = "sentences",
	[GPSPHC_A_STATS_CSUM_OK] = "csum_ok",
	[GPSPHC_A_STATS_CSUM_MISSING] = "csum_missing",
	[GPSPHC_A_STATS_CSUM_BAD] = "csum_bad",
	[GPSPHC_A_STATS_OVERLONG] = "overlong",
	[GPSPHC_A_STATS_TRUNCATED] = "truncated",
	[GPSPHC_A_STATS_INVALID] = "invalid",
	[GPSPHC_A_STATS_FLAG_ABORTS] = "flag_aborts",
	[GPSPHC_A_STATS_FLAG_BYTES] = "flag_bytes",
	[GPSPHC_A_STATS_NOISE_BYTES] = "noise_bytes",
	[GPSPHC_A_STATS_BINARY_FRAMES] = "binary_frames",
	[GPSPHC_A_STATS_BINARY_BAD] = "binary_bad",
	[GPSPHC_A_STATS_PPS_EDGES] = "pps_edges",
	[GPSPHC_A_STATS_PPS_MISSED] = "pps_missed",
	[GPSPHC_A_STATS_EVENTS_DROPPED] = "events_dropped",
};

static const char *const status_servo_counters[GPSPHC_A_SERVO_MAX + 1] = {
	[GPSPHC_A_SERVO_LABELS] = "labels",
	[GPSPHC_A_SERVO_LABELS_REFUSED] = "labels_refused",
	[GPSPHC_A_SERVO_DISAGREEMENTS] = "disagreements",
	[GPSPHC_A_SERVO_STEPS] = "steps",
	[GPSPHC_A_SERVO_OUTLIERS] = "outliers",
};

static const char *status_name(const char *const *names, unsigned int n,
			       uint32_t v)
{
	return v < n && names[v] ? names[v] : "unknown";
}

static const char *const status_edges[] = { NULL, "rising", "falling" };
static const char *const status_scales[] = { NULL, "tai", "utc" };
static const char *const status_leaps[] = { NULL, "none", "insert", "delete" };
static const char *const status_states[] = {
	NULL, "unlocked", "locking", "locked", "holdover", "off",
};

#define NAME(tab, v) status_name(tab, sizeof(tab) / sizeof(tab[0]), v)

const char *status_servo_state_name(uint32_t state)
{
	return NAME(status_states, state);
}

struct status_ctx {
	FILE *out;
	bool json;
	unsigned int n;
};

static uint64_t u64_or0(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static uint32_t u32_or0(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

/* GPSPHC_A_DEV_SERVO_OFF; a module without the setting always steers. */
static bool servo_off(struct nlattr *a)
{
	return a && nla_get_u8(a);
}

static void status_servo(struct status_ctx *c, struct nlattr *nest)
{
	struct nlattr *tb[GPSPHC_A_SERVO_MAX + 1] = { 0 };
	int i;

	if (nest)
		nla_parse_nested(tb, GPSPHC_A_SERVO_MAX, nest, NULL);
	if (c->json) {
		fprintf(c->out, ", \"servo\": {\"state\": \"%s\", \"offset_ns\": %" PRId64
			", \"rms_ns\": %" PRIu64 ", \"freq_ppb\": %" PRId64
			", \"tai_utc\": %" PRIu32 ", \"leap\": \"%s\", \"leap_utc\": %" PRIu64
			", \"holdover_s\": %" PRIu64 ", \"coarse\": %s",
			NAME(status_states, u32_or0(tb[GPSPHC_A_SERVO_STATE])),
			(int64_t)u64_or0(tb[GPSPHC_A_SERVO_OFFSET_NS]),
			u64_or0(tb[GPSPHC_A_SERVO_RMS_NS]),
			(int64_t)u64_or0(tb[GPSPHC_A_SERVO_FREQ_PPB]),
			u32_or0(tb[GPSPHC_A_SERVO_TAI_UTC]),
			NAME(status_leaps, u32_or0(tb[GPSPHC_A_SERVO_LEAP])),
			u64_or0(tb[GPSPHC_A_SERVO_LEAP_UTC]),
			u64_or0(tb[GPSPHC_A_SERVO_HOLDOVER_S]),
			tb[GPSPHC_A_SERVO_COARSE] ? "true" : "false");
		for (i = 0; i <= GPSPHC_A_SERVO_MAX; i++)
			if (status_servo_counters[i])
				fprintf(c->out, ", \"%s\": %" PRIu64, status_servo_counters[i],
					u64_or0(tb[i]));
		fputc('}', c->out);
		return;
	}
	fprintf(c->out, "  servo %s%s, offset %" PRId64 " ns, rms %" PRIu64
		" ns, frequency %" PRId64 " ppb\n",
		NAME(status_states, u32_or0(tb[GPSPHC_A_SERVO_STATE])),
		tb[GPSPHC_A_SERVO_COARSE] ? " (coarse: no PPS, sentence timing)" : "",
		(int64_t)u64_or0(tb[GPSPHC_A_SERVO_OFFSET_NS]),
		u64_or0(tb[GPSPHC_A_SERVO_RMS_NS]),
		(int64_t)u64_or0(tb[GPSPHC_A_SERVO_FREQ_PPB]));
	fprintf(c->out, "  TAI-UTC %" PRIu32 " s, leap second %s", u32_or0(tb[GPSPHC_A_SERVO_TAI_UTC]),
		NAME(status_leaps, u32_or0(tb[GPSPHC_A_SERVO_LEAP])));
	if (u64_or0(tb[GPSPHC_A_SERVO_LEAP_UTC]))
		fprintf(c->out, " at %" PRIu64, u64_or0(tb[GPSPHC_A_SERVO_LEAP_UTC]));
	if (u64_or0(tb[GPSPHC_A_SERVO_HOLDOVER_S]))
		fprintf(c->out, ", in holdover for %" PRIu64 " s",
			u64_or0(tb[GPSPHC_A_SERVO_HOLDOVER_S]));
	fputc('\n', c->out);
	fputs("  servo counters:", c->out);
	for (i = 0; i <= GPSPHC_A_SERVO_MAX; i++)
		if (status_servo_counters[i])
			fprintf(c->out, " %s %" PRIu64, status_servo_counters[i], u64_or0(tb[i]));
	fputc('\n', c->out);
}

static void status_stats_print(struct status_ctx *c, struct nlattr *nest)
{
	struct nlattr *tb[GPSPHC_A_STATS_MAX + 1] = { 0 };
	const char *sep = "";
	int i;

	if (nest)
		nla_parse_nested(tb, GPSPHC_A_STATS_MAX, nest, NULL);
	fputs(c->json ? ", \"stats\": {" : "  counters:", c->out);
	for (i = 0; i <= GPSPHC_A_STATS_MAX; i++) {
		if (!status_stats[i])
			continue;
		if (c->json)
			fprintf(c->out, "%s\"%s\": %" PRIu64, sep, status_stats[i], u64_or0(tb[i]));
		else
			fprintf(c->out, " %s %" PRIu64, status_stats[i], u64_or0(tb[i]));
		sep = ", ";
	}
	fputs(c->json ? "}" : "\n", c->out);
}

static int status_dev_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[GPSPHC_A_DEV_MAX + 1];
	struct status_ctx *c = arg;
	const char *tty;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, GPSPHC_A_DEV_MAX, NULL) ||
	    !tb[GPSPHC_A_DEV_ID] || !tb[GPSPHC_A_DEV_TTY])
		return NL_SKIP;
	tty = nla_get_string(tb[GPSPHC_A_DEV_TTY]);
	if (c->json) {
		/* tty names are [A-Za-z0-9_.-]: nothing to escape. */
		fprintf(c->out, "%s{\"id\": %" PRIu32 ", \"tty\": \"%s\", \"pps\": \"pps%" PRIu32
			"\", \"ptp\": \"ptp%" PRIu32 "\", \"edge\": \"%s\", \"scale\": \"%s\""
			", \"step_ns\": %" PRIu64 ", \"confirm_n\": %" PRIu32
			", \"rx_latency_ns\": %" PRIu64 ", \"servo_off\": %s",
			c->n ? ", " : "", nla_get_u32(tb[GPSPHC_A_DEV_ID]), tty,
			u32_or0(tb[GPSPHC_A_DEV_PPS_INDEX]), u32_or0(tb[GPSPHC_A_DEV_PTP_INDEX]),
			NAME(status_edges, u32_or0(tb[GPSPHC_A_DEV_EDGE])),
			NAME(status_scales, u32_or0(tb[GPSPHC_A_DEV_SCALE])),
			u64_or0(tb[GPSPHC_A_DEV_STEP_NS]), u32_or0(tb[GPSPHC_A_DEV_CONFIRM_N]),
			u64_or0(tb[GPSPHC_A_DEV_RX_LATENCY_NS]),
			servo_off(tb[GPSPHC_A_DEV_SERVO_OFF]) ? "true" : "false");
	} else {
		fprintf(c->out, "gpsphc%" PRIu32 " on %s: /dev/ptp%" PRIu32 ", /dev/pps%" PRIu32
			", on-time edge %s, clock in %s, %s\n",
			nla_get_u32(tb[GPSPHC_A_DEV_ID]), tty,
			u32_or0(tb[GPSPHC_A_DEV_PTP_INDEX]), u32_or0(tb[GPSPHC_A_DEV_PPS_INDEX]),
			NAME(status_edges, u32_or0(tb[GPSPHC_A_DEV_EDGE])),
			NAME(status_scales, u32_or0(tb[GPSPHC_A_DEV_SCALE])),
			servo_off(tb[GPSPHC_A_DEV_SERVO_OFF]) ?
			"servo off (the clock is left to ts2phc or ptp4l)" :
			"servo on");
	}
	status_servo(c, tb[GPSPHC_A_DEV_SERVO]);
	status_stats_print(c, tb[GPSPHC_A_DEV_STATS]);
	if (c->json)
		fputc('}', c->out);
	c->n++;
	return NL_OK;
}

int status_run(FILE *out, bool json)
{
	struct status_ctx c = { .out = out, .json = json };
	struct nl_sock *sk = nl_socket_alloc();
	int family, ret = 1, err;

	if (!sk || genl_connect(sk)) {
		log_msg(LOG_ERR, "cannot open a generic netlink socket");
		goto out;
	}
	family = genl_ctrl_resolve(sk, GPSPHC_GENL_NAME);
	if (family < 0) {
		log_msg(LOG_ERR, "the kernel has no \"%s\" netlink family: load the module (modprobe gpsphc)",
			GPSPHC_GENL_NAME);
		goto out;
	}
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, status_dev_cb, &c);
	if (json)
		fputs("{\"devices\": [", out);
	do {
		err = genl_send_simple(sk, family, GPSPHC_CMD_DEV_GET,
				       GPSPHC_GENL_VERSION, NLM_F_DUMP);
		if (err >= 0)
			err = nl_recvmsgs_default(sk);
		/* A dump interrupted by a change starts again. */
	} while (err == -NLE_DUMP_INTR && !c.n);
	if (err < 0) {
		log_msg(LOG_ERR, "listing gpsphc devices: %s", nl_geterror(err));
		goto out;
	}
	if (json)
		fputs("]}\n", out);
	else if (!c.n)
		fputs("no tty has the gpsphc discipline attached (start gpsphcd TTY)\n", out);
	ret = 0;
out:
	nl_socket_free(sk);
	return ret;
}
