/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/gpsphc.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_GPSPHC_GEN_H
#define _LINUX_GPSPHC_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/gpsphc.h>

/* Common nested types */
extern const struct nla_policy gpsphc_time_nl_policy[GPSPHC_A_TIME_CONFIRMED + 1];

extern const struct nla_policy gpsphc_dev_get_nl_policy[GPSPHC_A_DEV_TTY + 1];

extern const struct nla_policy gpsphc_dev_set_nl_policy[GPSPHC_A_DEV_PPS_GPIO + 1];

extern const struct nla_policy gpsphc_time_set_nl_policy[GPSPHC_A_DEV_TIME + 1];

/* Ops table for gpsphc */
extern const struct genl_ops gpsphc_nl_ops[3];

int gpsphc_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info);
int gpsphc_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int gpsphc_nl_dev_set_doit(struct sk_buff *skb, struct genl_info *info);
int gpsphc_nl_time_set_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	GPSPHC_NLGRP_EVENTS,
};

#endif /* _LINUX_GPSPHC_GEN_H */
