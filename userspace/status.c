// SPDX-License-Identifier: GPL-2.0-only
/*
 * status.c - gpsphcd --status. The JSON form is a stable interface:
 *
 *   {"devices": [{"id": 0, "tty": "ttyS0", "pps": "pps0", "ptp": "ptp0",
 *     "edge": "rising", "scale": "tai", "step_ns": N, "confirm_n": N,
 *     "rx_latency_ns": N, "servo_off": false, "clock_servo": "bank",
 *     "pps_gpio": "none",
 *     "servo": {"state": "locked", "offset_ns": N, "rms_ns": N,
 *               "freq_ppb": N, "tai_utc": N, "leap": "none",
 *               "leap_utc": N, "holdover_s": N, "coarse": false,
 *               "off_phase_count": N, "off_phase_ns": N,
 *               "labels": N, "labels_refused": N, "disagreements": N,
 *               "steps": N, "outliers": N, "spurious": N, "relocks": N,
 *               "holdovers": N, "rephases": N},
 *     "stats": {"sentences": N, ... one key per counter}}]}
 *
 * "servo_off" is the setting (GPSPHC_A_DEV_SERVO_OFF: true while ts2phc or
 * ptp4l steers the clock, false when the module does not report it); the
 * servo's "state" is then "off". "clock_servo" is the servo's estimator
 * (GPSPHC_A_DEV_CLOCK_SERVO: "bank" or "pi"; "unknown" from a module
 * without the setting). "pps_gpio" is where the PPS comes from
 * (GPSPHC_A_DEV_PPS_GPIO: "none" for DCD, also from a module without the
 * setting, or the GPIO line as set). "off_phase_count" is not 0 while pulses
 * arrive steadily off the servo's phase, "off_phase_ns" late (see
 * status_off_phase()).
 *
 * Keys are only ever added. The document is json-c's (strings escaped as
 * RFC 8259 asks), written whole or not at all: a dump that fails halfway,
 * or a reply whose servo nest is malformed (servo_status.h), prints
 * nothing on stdout, the reason on stderr, and exits 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "log.h"
#include "linux/gpsphc.h"
#include "names.h"
#include "servo_status.h"
#include "status.h"

/* Dumps interrupted by a change (a device attached, detached) tried. */
#define STATUS_TRIES	3

struct status_ctx {
	bool json;
	bool failed;			/* --json: out of memory */
	struct json_object *root;	/* --json: the document */
	struct json_object *devices;	/* its "devices" array */
	FILE *out;			/* the text, in memory */
	char *text;
	size_t text_len;
	unsigned int n;
	char bad[320];			/* a malformed reply: no document */
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

#define NAME(e, a)	gp_enum_name(GP_ENUM_##e, u32_or0(a))

const char *status_pps_gpio(const struct nlattr *a)
{
	return a && nla_len(a) > 1 && memchr(nla_data(a), '\0', (size_t)nla_len(a)) ?
	       nla_data(a) : "none";
}

/* The pulse the servo takes as its new phase (the kernel's SV_REPHASE_EDGES). */
#define STATUS_REPHASE_EDGES	4

/* @ns as "+300.000 ms": signed, to the microsecond. */
static void status_ms(char *buf, size_t size, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	snprintf(buf, size, "%c%" PRIu64 ".%03u ms", ns < 0 ? '-' : '+',
		 a / 1000000, (unsigned int)(a % 1000000 / 1000));
}

void status_off_phase(char *buf, size_t size, uint32_t count, int64_t ns)
{
	char ms[32];

	status_ms(ms, sizeof(ms), ns);
	snprintf(buf, size, "%" PRIu32 " pulses in a row at %s off the servo's phase: a steady new phase, not a lost PPS (taken at the %dth)",
		 count, ms, STATUS_REPHASE_EDGES);
}

int status_off_phase_change(struct status_off_phase *was, uint32_t count,
			    int64_t ns, uint64_t rephases, char *buf,
			    size_t size)
{
	char ms[32];
	int prio = -1;

	if (count && !was->count) {
		was->rephases = rephases;
		status_off_phase(buf, size, count, ns);
		prio = LOG_WARNING;
	} else if (!count && was->count) {
		status_ms(ms, sizeof(ms), was->ns);
		if (rephases != was->rephases)
			snprintf(buf, size, "the servo took the pulses at %s as its new phase: it counts them and steers the clock to them",
				 ms);
		else
			snprintf(buf, size, "no more pulses at %s off the servo's phase (%" PRIu32 " in a row came); it kept its phase",
				 ms, was->count);
		prio = LOG_NOTICE;
	}
	was->count = count;
	if (count)
		was->ns = ns;
	return prio;
}

/*
 * @v as @key of the object @obj (@key NULL: appended to the array @obj).
 * A value that could not be made or added is a failed document.
 */
static void put(struct status_ctx *c, struct json_object *obj,
		const char *key, struct json_object *v)
{
	if (!obj || !v || (key ? json_object_object_add(obj, key, v) :
			   json_object_array_add(obj, v))) {
		json_object_put(v);
		c->failed = true;
	}
}

#define PUT_STR(o, k, v)	put(c, o, k, json_object_new_string(v))
#define PUT_U64(o, k, v)	put(c, o, k, json_object_new_uint64(v))
#define PUT_I64(o, k, v)	put(c, o, k, json_object_new_int64(v))
#define PUT_BOOL(o, k, v)	put(c, o, k, json_object_new_boolean(v))

/*
 * The counters of @v (by attribute, up to @max) that @key names, into @j
 * (--json) or as the rest of a line of text.
 */
static void status_counters(struct status_ctx *c, struct json_object *j,
			    const uint64_t *v, int max,
			    const char *(*key)(unsigned int attr))
{
	int i;

	for (i = 0; i <= max; i++) {
		if (!key(i))
			continue;
		if (c->json)
			PUT_U64(j, key(i), v[i]);
		else
			fprintf(c->out, " %s %" PRIu64, key(i), v[i]);
	}
	if (!c->json)
		fputc('\n', c->out);
}

/* The servo's status, into @dev (--json) or as text. */
static void status_servo(struct status_ctx *c, struct json_object *dev,
			 const struct servo_status *sv)
{
	const char *state = gp_enum_name(GP_ENUM_SERVO_STATE, sv->state);
	const char *leap = gp_enum_name(GP_ENUM_LEAP, sv->leap);
	struct json_object *j;
	char line[256];

	if (c->json) {
		j = json_object_new_object();
		put(c, dev, "servo", j);
		if (c->failed)
			return;
		PUT_STR(j, "state", state);
		PUT_I64(j, "offset_ns", sv->offset_ns);
		PUT_U64(j, "rms_ns", sv->rms_ns);
		PUT_I64(j, "freq_ppb", sv->freq_ppb);
		PUT_U64(j, "tai_utc", sv->tai_utc);
		PUT_STR(j, "leap", leap);
		PUT_U64(j, "leap_utc", sv->leap_utc);
		PUT_U64(j, "holdover_s", sv->holdover_s);
		PUT_BOOL(j, "coarse", sv->coarse);
		PUT_U64(j, "off_phase_count", sv->off_phase_count);
		PUT_I64(j, "off_phase_ns", sv->off_phase_ns);
		status_counters(c, j, sv->counters, GPSPHC_A_SERVO_MAX, gp_servo_counter_key);
		return;
	}
	fprintf(c->out, "  servo %s%s, offset %" PRId64 " ns, rms %" PRIu64
		" ns, frequency %" PRId64 " ppb\n", state,
		sv->coarse ? " (coarse: no PPS, sentence timing)" : "",
		sv->offset_ns, sv->rms_ns, sv->freq_ppb);
	fprintf(c->out, "  TAI-UTC %" PRIu32 " s, leap second %s", sv->tai_utc, leap);
	if (sv->leap_utc)
		fprintf(c->out, " at %" PRIu64, sv->leap_utc);
	if (sv->holdover_s)
		fprintf(c->out, ", in holdover for %" PRIu64 " s", sv->holdover_s);
	if (sv->off_phase_count) {
		status_off_phase(line, sizeof(line), sv->off_phase_count,
				 sv->off_phase_ns);
		fprintf(c->out, "\n  %s", line);
	}
	fputs("\n  servo counters:", c->out);
	status_counters(c, NULL, sv->counters, GPSPHC_A_SERVO_MAX, gp_servo_counter_key);
}

/* The statistics nest, into @dev (--json) or as text. */
static void status_stats_print(struct status_ctx *c, struct json_object *dev,
			       struct nlattr *nest)
{
	struct nlattr *tb[GPSPHC_A_STATS_MAX + 1] = { 0 };
	uint64_t v[GPSPHC_A_STATS_MAX + 1];
	struct json_object *j = NULL;
	int i;

	if (nest)
		nla_parse_nested(tb, GPSPHC_A_STATS_MAX, nest, NULL);
	for (i = 0; i <= GPSPHC_A_STATS_MAX; i++)
		v[i] = u64_or0(tb[i]);
	if (c->json) {
		j = json_object_new_object();
		put(c, dev, "stats", j);
		if (c->failed)
			return;
	} else {
		fputs("  counters:", c->out);
	}
	status_counters(c, j, v, GPSPHC_A_STATS_MAX, gp_stats_key);
}

static int status_dev_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[GPSPHC_A_DEV_MAX + 1];
	struct status_ctx *c = arg;
	struct json_object *j = NULL;
	struct servo_status sv;
	const char *tty;
	char dev[24], why[160];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, GPSPHC_A_DEV_MAX, NULL) ||
	    !tb[GPSPHC_A_DEV_ID] || !tb[GPSPHC_A_DEV_TTY])
		return NL_SKIP;
	tty = nla_get_string(tb[GPSPHC_A_DEV_TTY]);
	if (servo_status_parse(tb[GPSPHC_A_DEV_SERVO], &sv, why, sizeof(why))) {
		if (!c->bad[0])
			snprintf(c->bad, sizeof(c->bad), "gpsphc%" PRIu32 " on %s: its servo status is malformed: %s",
				 nla_get_u32(tb[GPSPHC_A_DEV_ID]), tty, why);
		return NL_SKIP;
	}
	if (c->json) {
		j = json_object_new_object();
		put(c, c->devices, NULL, j);
		if (c->failed)
			return NL_OK;
		PUT_U64(j, "id", nla_get_u32(tb[GPSPHC_A_DEV_ID]));
		PUT_STR(j, "tty", tty);
		snprintf(dev, sizeof(dev), "pps%" PRIu32, u32_or0(tb[GPSPHC_A_DEV_PPS_INDEX]));
		PUT_STR(j, "pps", dev);
		snprintf(dev, sizeof(dev), "ptp%" PRIu32, u32_or0(tb[GPSPHC_A_DEV_PTP_INDEX]));
		PUT_STR(j, "ptp", dev);
		PUT_STR(j, "edge", NAME(EDGE, tb[GPSPHC_A_DEV_EDGE]));
		PUT_STR(j, "scale", NAME(SCALE, tb[GPSPHC_A_DEV_SCALE]));
		PUT_U64(j, "step_ns", u64_or0(tb[GPSPHC_A_DEV_STEP_NS]));
		PUT_U64(j, "confirm_n", u32_or0(tb[GPSPHC_A_DEV_CONFIRM_N]));
		PUT_U64(j, "rx_latency_ns", u64_or0(tb[GPSPHC_A_DEV_RX_LATENCY_NS]));
		PUT_BOOL(j, "servo_off", servo_off(tb[GPSPHC_A_DEV_SERVO_OFF]));
		PUT_STR(j, "clock_servo", NAME(CLOCK_SERVO, tb[GPSPHC_A_DEV_CLOCK_SERVO]));
		PUT_STR(j, "pps_gpio", status_pps_gpio(tb[GPSPHC_A_DEV_PPS_GPIO]));
	} else {
		fprintf(c->out, "gpsphc%" PRIu32 " on %s: /dev/ptp%" PRIu32 ", /dev/pps%" PRIu32
			", on-time edge %s, clock in %s, %s, clock_servo %s, pps_gpio %s\n",
			nla_get_u32(tb[GPSPHC_A_DEV_ID]), tty,
			u32_or0(tb[GPSPHC_A_DEV_PTP_INDEX]), u32_or0(tb[GPSPHC_A_DEV_PPS_INDEX]),
			NAME(EDGE, tb[GPSPHC_A_DEV_EDGE]),
			NAME(SCALE, tb[GPSPHC_A_DEV_SCALE]),
			servo_off(tb[GPSPHC_A_DEV_SERVO_OFF]) ?
			"servo off (the clock is left to ts2phc or ptp4l)" :
			"servo on",
			NAME(CLOCK_SERVO, tb[GPSPHC_A_DEV_CLOCK_SERVO]),
			status_pps_gpio(tb[GPSPHC_A_DEV_PPS_GPIO]));
	}
	status_servo(c, j, &sv);
	status_stats_print(c, j, tb[GPSPHC_A_DEV_STATS]);
	c->n++;
	return NL_OK;
}

/* A new, empty document; false if there is no memory for it. */
static bool status_begin(struct status_ctx *c)
{
	c->n = 0;
	c->bad[0] = '\0';
	if (c->json) {
		json_object_put(c->root);
		c->failed = false;
		c->root = json_object_new_object();
		c->devices = json_object_new_array();
		put(c, c->root, "devices", c->devices);
		if (c->failed)
			return false;
	}
	if (c->out)
		fclose(c->out);
	free(c->text);
	c->text = NULL;
	c->out = open_memstream(&c->text, &c->text_len);
	return c->out;
}

/* The finished document, or NULL if memory ran out. */
static const char *status_end(struct status_ctx *c, size_t *len)
{
	if (c->json) {
		const char *doc = c->failed ? NULL :
			json_object_to_json_string_ext(c->root, JSON_C_TO_STRING_SPACED |
						       JSON_C_TO_STRING_NOSLASHESCAPE);

		if (!doc)
			return NULL;
		fprintf(c->out, "%s\n", doc);
	} else if (!c->n) {
		fputs("no tty has the gpsphc discipline attached (start gpsphcd TTY)\n", c->out);
	}
	if (fflush(c->out) || ferror(c->out))
		return NULL;
	*len = c->text_len;
	return c->text;
}

int status_show(FILE *out, bool json, status_dump_fn dump, void *src)
{
	struct status_ctx c = { .json = json };
	const char *doc = NULL;
	int tries = 0, ret = 1, err;
	size_t len;

	do {
		if (!status_begin(&c)) {
			err = -NLE_NOMEM;
			break;
		}
		err = dump(src, status_dev_cb, &c);
		/* A dump interrupted by a change starts again, from nothing. */
	} while (err == -NLE_DUMP_INTR && ++tries < STATUS_TRIES);
	if (err == -NLE_DUMP_INTR) {
		log_msg(LOG_ERR, "listing gpsphc devices: the devices changed during each of %d dumps (attached or detached meanwhile): nothing printed; run gpsphcd --status again",
			STATUS_TRIES);
		goto out;
	}
	if (err < 0) {
		log_msg(LOG_ERR, "listing gpsphc devices: %s: nothing printed", nl_geterror(err));
		goto out;
	}
	if (c.bad[0]) {
		log_msg(LOG_ERR, "listing gpsphc devices: %s: nothing printed; the gpsphc module and gpsphcd do not match: install both from the same gpsphc version (modinfo -F version gpsphc, gpsphcd --version)",
			c.bad);
		goto out;
	}
	doc = status_end(&c, &len);
	if (!doc) {
		log_msg(LOG_ERR, "cannot build the status: out of memory");
		goto out;
	}
	if (fwrite(doc, 1, len, out) != len || fflush(out)) {
		log_msg(LOG_ERR, "writing the status: %s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	json_object_put(c.root);
	if (c.out)
		fclose(c.out);
	free(c.text);
	return ret;
}

struct status_nl {
	struct nl_sock *sk;
	int family;
};

static int status_nl_dump(void *src, status_dev_fn dev, void *arg)
{
	struct status_nl *s = src;
	int err;

	nl_socket_modify_cb(s->sk, NL_CB_VALID, NL_CB_CUSTOM, dev, arg);
	err = genl_send_simple(s->sk, s->family, GPSPHC_CMD_DEV_GET,
			       GPSPHC_GENL_VERSION, NLM_F_DUMP);
	if (err >= 0)
		err = nl_recvmsgs_default(s->sk);
	return err < 0 ? err : 0;
}

int status_run(FILE *out, bool json)
{
	struct status_nl s = { .sk = nl_socket_alloc() };
	int ret = 1;

	if (!s.sk || genl_connect(s.sk)) {
		log_msg(LOG_ERR, "cannot open a generic netlink socket");
		goto out;
	}
	s.family = genl_ctrl_resolve(s.sk, GPSPHC_GENL_NAME);
	if (s.family < 0) {
		log_msg(LOG_ERR, "the kernel has no \"%s\" netlink family: load the module (modprobe gpsphc)",
			GPSPHC_GENL_NAME);
		goto out;
	}
	ret = status_show(out, json, status_nl_dump, &s);
out:
	nl_socket_free(s.sk);
	return ret;
}
