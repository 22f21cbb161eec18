// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/gpsphc.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "gpsphc_nl.h"

#include <uapi/linux/gpsphc.h>

/* Integer value ranges */
static const struct netlink_range_validation gpsphc_a_dev_step_ns_range = {
	.min	= 1000ULL,
	.max	= 1000000000ULL,
};

static const struct netlink_range_validation gpsphc_a_dev_rx_latency_ns_range = {
	.max	= 999000000ULL,
};

/* Common nested types */
const struct nla_policy gpsphc_time_nl_policy[GPSPHC_A_TIME_CONFIRMED + 1] = {
	[GPSPHC_A_TIME_EDGE_SEQ] = { .type = NLA_U32, },
	[GPSPHC_A_TIME_TAI_SEC] = { .type = NLA_U64, },
	[GPSPHC_A_TIME_TAI_UTC] = NLA_POLICY_RANGE(NLA_U32, 10, 1000),
	[GPSPHC_A_TIME_LEAP] = NLA_POLICY_RANGE(NLA_U32, 1, 3),
	[GPSPHC_A_TIME_LEAP_UTC] = { .type = NLA_U64, },
	[GPSPHC_A_TIME_SENTENCE_SEQ] = { .type = NLA_U32, },
	[GPSPHC_A_TIME_OFF_S] = { .type = NLA_S64, },
	[GPSPHC_A_TIME_CONFIRMED] = { .type = NLA_U32, },
};

/* GPSPHC_CMD_DEV_GET - do */
const struct nla_policy gpsphc_dev_get_nl_policy[GPSPHC_A_DEV_TTY + 1] = {
	[GPSPHC_A_DEV_ID] = { .type = NLA_U32, },
	[GPSPHC_A_DEV_TTY] = { .type = NLA_NUL_STRING, .len = 63, },
};

/* GPSPHC_CMD_DEV_SET - do */
const struct nla_policy gpsphc_dev_set_nl_policy[GPSPHC_A_DEV_PPS_GPIO + 1] = {
	[GPSPHC_A_DEV_ID] = { .type = NLA_U32, },
	[GPSPHC_A_DEV_EDGE] = NLA_POLICY_RANGE(NLA_U32, 1, 2),
	[GPSPHC_A_DEV_SCALE] = NLA_POLICY_RANGE(NLA_U32, 1, 2),
	[GPSPHC_A_DEV_STEP_NS] = NLA_POLICY_FULL_RANGE(NLA_U64, &gpsphc_a_dev_step_ns_range),
	[GPSPHC_A_DEV_CONFIRM_N] = NLA_POLICY_RANGE(NLA_U32, 1, 60),
	[GPSPHC_A_DEV_RX_LATENCY_NS] = NLA_POLICY_FULL_RANGE(NLA_U64, &gpsphc_a_dev_rx_latency_ns_range),
	[GPSPHC_A_DEV_SERVO_OFF] = NLA_POLICY_MAX(NLA_U8, 1),
	[GPSPHC_A_DEV_CLOCK_SERVO] = NLA_POLICY_RANGE(NLA_U32, 1, 2),
	[GPSPHC_A_DEV_PPS_GPIO] = { .type = NLA_NUL_STRING, .len = 63, },
};

/* GPSPHC_CMD_TIME_SET - do */
const struct nla_policy gpsphc_time_set_nl_policy[GPSPHC_A_DEV_TIME + 1] = {
	[GPSPHC_A_DEV_ID] = { .type = NLA_U32, },
	[GPSPHC_A_DEV_TIME] = NLA_POLICY_NESTED(gpsphc_time_nl_policy),
};

/* Ops table for gpsphc */
const struct genl_ops gpsphc_nl_ops[3] = {
	{
		.cmd		= GPSPHC_CMD_DEV_GET,
		.doit		= gpsphc_nl_dev_get_doit,
		.dumpit		= gpsphc_nl_dev_get_dumpit,
		.policy		= gpsphc_dev_get_nl_policy,
		.maxattr	= GPSPHC_A_DEV_TTY,
	},
	{
		.cmd		= GPSPHC_CMD_DEV_SET,
		.doit		= gpsphc_nl_dev_set_doit,
		.policy		= gpsphc_dev_set_nl_policy,
		.maxattr	= GPSPHC_A_DEV_PPS_GPIO,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= GPSPHC_CMD_TIME_SET,
		.doit		= gpsphc_nl_time_set_doit,
		.policy		= gpsphc_time_set_nl_policy,
		.maxattr	= GPSPHC_A_DEV_TIME,
	},
};

static const struct genl_multicast_group gpsphc_nl_mcgrps[] = {
	[GPSPHC_NLGRP_EVENTS] = { "events", },
};
