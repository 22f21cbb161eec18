// SPDX-License-Identifier: GPL-2.0-only
/*
 * metrics_pair - one random dev-get reply (seed argv[1]), as the kernel
 * sends it, through both gpsphcd --status --json (status.c) and the
 * metrics (metrics_file.c, lib/metrics.c): the JSON to argv[2], the
 * exposition to argv[3], written as gpsphcd writes its metrics file. tests/test_metrics_status.py checks that they
 * say the same, series by series.
 */
#include <stdio.h>
#include <stdlib.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "linux/gpsphc.h"
#include "../metrics_file.h"
#include "../servo_status.h"
#include "../status.h"

static uint64_t state;

static uint64_t rnd(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Small, huge or negative (as the kernel's s64 in a u64). */
static uint64_t val(void)
{
	switch (rnd() % 3) {
	case 0:	return rnd() % 1000;
	case 1:	return -(rnd() % 100000000);
	default: return rnd();
	}
}

static int dump(void *src, status_dev_fn dev, void *arg)
{
	dev(src, arg);
	return 0;
}

int main(int argc, char **argv)
{
	struct nl_msg *m = nlmsg_alloc();
	struct nlattr *tb[GPSPHC_A_DEV_MAX + 1], *n;
	struct gp_metrics_dev d = { .clock_class = -1 };
	struct servo_status sv;
	unsigned int i;
	FILE *json;

	if (argc != 4 || !m)
		return 2;
	state = strtoull(argv[1], NULL, 0);
	if (!genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, 0x20, 0, 0,
			 GPSPHC_CMD_DEV_GET, GPSPHC_GENL_VERSION) ||
	    nla_put_u32(m, GPSPHC_A_DEV_ID, (uint32_t)rnd() % 8) ||
	    nla_put_string(m, GPSPHC_A_DEV_TTY, rnd() & 1 ? "ttyS0" : "ttyUSB1") ||
	    nla_put_u32(m, GPSPHC_A_DEV_PPS_INDEX, (uint32_t)rnd() % 64) ||
	    nla_put_u32(m, GPSPHC_A_DEV_PTP_INDEX, (uint32_t)rnd() % 64))
		return 1;
	n = nla_nest_start(m, GPSPHC_A_DEV_SERVO);
	if (!n || nla_put_u32(m, GPSPHC_A_SERVO_STATE, 1 + (uint32_t)(rnd() % GPSPHC_SERVO_MAX)) ||
	    nla_put_u32(m, GPSPHC_A_SERVO_TAI_UTC, (uint32_t)(rnd() % 100)) ||
	    nla_put_u32(m, GPSPHC_A_SERVO_LEAP, 1 + (uint32_t)(rnd() % GPSPHC_LEAP_MAX)) ||
	    nla_put_u32(m, GPSPHC_A_SERVO_OFF_PHASE_COUNT, (uint32_t)(rnd() % 10)) ||
	    (rnd() & 1 && nla_put_flag(m, GPSPHC_A_SERVO_COARSE)))
		return 1;
	/* every u64 of the nest, some left out (0 in both) */
	for (i = GPSPHC_A_SERVO_OFFSET_NS; i <= GPSPHC_A_SERVO_MAX; i++)
		if (i != GPSPHC_A_SERVO_TAI_UTC && i != GPSPHC_A_SERVO_LEAP &&
		    i != GPSPHC_A_SERVO_COARSE && i != GPSPHC_A_SERVO_PAD &&
		    i != GPSPHC_A_SERVO_OFF_PHASE_COUNT && rnd() % 8 &&
		    nla_put_u64(m, i, val()))
			return 1;
	nla_nest_end(m, n);
	n = nla_nest_start(m, GPSPHC_A_DEV_STATS);
	for (i = GPSPHC_A_STATS_SENTENCES; i <= GPSPHC_A_STATS_MAX; i++)
		if (i != GPSPHC_A_STATS_PAD && rnd() % 8 && nla_put_u64(m, i, rnd() % 4 ? rnd() % 100000 : rnd()))
			return 1;
	nla_nest_end(m, n);

	json = fopen(argv[2], "w");
	if (!json || status_show(json, true, dump, m) || fclose(json))
		return 1;
	if (genlmsg_parse(nlmsg_hdr(m), 0, tb, GPSPHC_A_DEV_MAX, NULL) ||
	    servo_status_parse(tb[GPSPHC_A_DEV_SERVO], &sv, NULL, 0))
		return 1;
	d.tty = nla_get_string(tb[GPSPHC_A_DEV_TTY]);
	metrics_from_dev(tb, &sv, &d);
	/* as gpsphcd writes it: atomically, 0644 whatever the umask */
	if (metrics_write(argv[3], &d))
		return 1;
	nlmsg_free(m);
	return 0;
}
