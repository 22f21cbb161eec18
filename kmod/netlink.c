// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: the "gpsphc" generic netlink family, whose protocol is
 * Documentation/netlink/specs/gpsphc.yaml. The policies and the op table
 * are generated from it (gpsphc_nl.c); here are the handlers, the lookup
 * and locking around them, the family and its events.
 */

#include <linux/capability.h>
#include <linux/stringify.h>
#include <net/genetlink.h>

#include "clock_fields.h"
#include "dev.h"
#include "events.h"
#include "framer.h"
#include "gpio.h"
#include "gpsphc_nl.h"
#include "netlink.h"
#include "pps.h"
#include "servo_glue.h"
#include "stats.h"

/*
 * Events carry every sentence (the receiver's position) and every edge,
 * while the tty, /dev/ppsN and /dev/ptpN are root's: only CAP_NET_ADMIN
 * may listen, as the spec's admin-perm flag on the group says. 6.12's
 * ynl-gen-c does not render a group's flags, and makes the family struct
 * only for plain genetlink, so the group is declared here. (Debian's 6.1
 * has the per-group flag too.)
 */
static const struct genl_multicast_group gpsphc_mcgrps[] = {
	[GPSPHC_NLGRP_EVENTS] = {
		.name = GPSPHC_MCGRP_EVENTS,
		.flags = GENL_MCAST_CAP_NET_ADMIN,
	},
};

static struct genl_family gpsphc_genl_family;

/* What gpsphc_put_servo() adds, for messages sized to their content. */
static size_t gpsphc_servo_size(void)
{
	size_t size = nla_total_size(0);	/* the nest */
	int attr;

	for (attr = 1; attr <= GPSPHC_A_SERVO_MAX; attr++) {
		u8 type = gpsphc_servo_fields[attr].type;

		if (type == NLA_U32)
			size += nla_total_size(sizeof(u32));
		else if (type == NLA_FLAG)
			size += nla_total_size(0);
		else if (type != NLA_UNSPEC)
			size += nla_total_size_64bit(sizeof(u64));
	}
	return size;
}

/*
 * Put @v, indexed by attribute, in a nest @type: attributes 1 to @max but
 * @pad, each of the type @fields gives it, or all u64 without @fields.
 */
static int gpsphc_put_values(struct sk_buff *skb, int type, const u64 *v,
			     int max, int pad,
			     const struct gpsphc_servo_field *fields)
{
	struct nlattr *nest = nla_nest_start(skb, type);
	int attr, ret;

	if (!nest)
		return -EMSGSIZE;
	for (attr = 1; attr <= max; attr++) {
		if (attr == pad)
			continue;
		switch (fields ? fields[attr].type : NLA_U64) {
		case NLA_U32:
			ret = nla_put_u32(skb, attr, v[attr]);
			break;
		case NLA_FLAG:
			ret = v[attr] ? nla_put_flag(skb, attr) : 0;
			break;
		default:	/* NLA_S64 or NLA_U64: the same eight bytes */
			ret = nla_put_u64_64bit(skb, attr, v[attr], pad);
			break;
		}
		if (ret) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int gpsphc_put_servo(struct sk_buff *skb, struct gpsphc_dev *gdev)
{
	u64 st[GPSPHC_A_SERVO_MAX + 1];

	gpsphc_servo_glue_status(gdev, st);
	return gpsphc_put_values(skb, GPSPHC_A_DEV_SERVO, st, GPSPHC_A_SERVO_MAX,
				 GPSPHC_A_SERVO_PAD, gpsphc_servo_fields);
}

/*
 * gpsphc_fill_dev() - describe a device in a netlink message
 * @skb: the message, its genetlink header already in place
 * @gdev: the device
 *
 * Return: 0, or -EMSGSIZE when @skb is full.
 */
static int gpsphc_fill_dev(struct sk_buff *skb, struct gpsphc_dev *gdev)
{
	u64 stats[GPSPHC_A_STATS_MAX + 1];
	char pps_gpio[GPSPHC_GPIO_SPEC_LEN];
	struct gpsphc_clock_settings set;

	gpsphc_dev_stats(gdev, stats);
	gpsphc_servo_glue_settings(gdev, &set);
	gpsphc_gpio_get(gdev, pps_gpio, sizeof(pps_gpio));
	if (nla_put_u32(skb, GPSPHC_A_DEV_ID, gdev->id) ||
	    nla_put_string(skb, GPSPHC_A_DEV_TTY, gdev->tty_name) ||
	    nla_put_u32(skb, GPSPHC_A_DEV_PPS_INDEX, gdev->pps_id) ||
	    nla_put_u32(skb, GPSPHC_A_DEV_EDGE, READ_ONCE(gdev->edge)) ||
	    nla_put_u32(skb, GPSPHC_A_DEV_PTP_INDEX, gdev->ptp_id) ||
	    nla_put_u32(skb, GPSPHC_A_DEV_SCALE, set.scale) ||
	    nla_put_u64_64bit(skb, GPSPHC_A_DEV_STEP_NS, set.step_ns,
			      GPSPHC_A_DEV_PAD) ||
	    nla_put_u32(skb, GPSPHC_A_DEV_CONFIRM_N, set.confirm_n) ||
	    nla_put_u64_64bit(skb, GPSPHC_A_DEV_RX_LATENCY_NS,
			      set.rx_latency_ns, GPSPHC_A_DEV_PAD) ||
	    nla_put_u8(skb, GPSPHC_A_DEV_SERVO_OFF, set.servo_off) ||
	    nla_put_u32(skb, GPSPHC_A_DEV_CLOCK_SERVO, set.clock_servo) ||
	    nla_put_string(skb, GPSPHC_A_DEV_PPS_GPIO, pps_gpio) ||
	    gpsphc_put_servo(skb, gdev))
		return -EMSGSIZE;
	return gpsphc_put_values(skb, GPSPHC_A_DEV_STATS, stats,
				 GPSPHC_A_STATS_MAX, GPSPHC_A_STATS_PAD, NULL);
}

/* Find the device a request names. Context: gpsphc_devs_mutex held. */
static struct gpsphc_dev *gpsphc_find_dev(struct genl_info *info)
{
	struct nlattr *id = info->attrs[GPSPHC_A_DEV_ID];
	struct nlattr *tty = info->attrs[GPSPHC_A_DEV_TTY];
	struct gpsphc_dev *gdev;

	if (!id && !tty) {
		NL_SET_ERR_MSG(info->extack,
			       "name the device with GPSPHC_A_DEV_ID or GPSPHC_A_DEV_TTY");
		return ERR_PTR(-EINVAL);
	}
	if (id && tty) {
		NL_SET_ERR_MSG_ATTR(info->extack, tty,
				    "give GPSPHC_A_DEV_ID or GPSPHC_A_DEV_TTY, not both");
		return ERR_PTR(-EINVAL);
	}
	gdev = id ? gpsphc_dev_find_id(nla_get_u32(id)) :
		    gpsphc_dev_find_tty(nla_data(tty));
	if (!gdev) {
		NL_SET_ERR_MSG_ATTR(info->extack, id ?: tty,
				    "no tty with the gpsphc discipline attached matches");
		return ERR_PTR(-ENODEV);
	}
	return gdev;
}

/*
 * What a request needs before its device is looked up: the right to set
 * the clock, and the attributes that name the device. (dev-set's
 * CAP_NET_ADMIN is its admin-perm flag: generic netlink checked it.)
 */
static int gpsphc_nl_check_request(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;

	switch (info->genlhdr->cmd) {
	case GPSPHC_CMD_DEV_SET:
		/*
		 * Every setting changes what the clock reads (the on-time
		 * edge, the scale, how and whether the servo steers): like
		 * settimeofday.
		 */
		if (!netlink_capable(skb, CAP_SYS_TIME)) {
			NL_SET_ERR_MSG(extack,
				       "changing gpsphc settings needs CAP_SYS_TIME: they change what the clock reads");
			return -EPERM;
		}
		if (GENL_REQ_ATTR_CHECK(info, GPSPHC_A_DEV_ID)) {
			NL_SET_ERR_MSG(extack,
				       "dev-set needs GPSPHC_A_DEV_ID, the device to change");
			return -EINVAL;
		}
		return 0;
	case GPSPHC_CMD_TIME_SET:
		/* A label moves the clock: the same right as settimeofday. */
		if (!netlink_capable(skb, CAP_SYS_TIME)) {
			NL_SET_ERR_MSG(extack, "labelling the clock needs CAP_SYS_TIME");
			return -EPERM;
		}
		if (GENL_REQ_ATTR_CHECK(info, GPSPHC_A_DEV_ID) ||
		    GENL_REQ_ATTR_CHECK(info, GPSPHC_A_DEV_TIME)) {
			NL_SET_ERR_MSG(extack,
				       "time-set needs GPSPHC_A_DEV_ID and GPSPHC_A_DEV_TIME");
			return -EINVAL;
		}
		return 0;
	default:
		/* dev-get: anyone, by id or by tty. */
		return 0;
	}
}

/*
 * Before every do: the request's checks, then the device it names, found
 * under gpsphc_devs_mutex and held there (attach and detach wait) until
 * gpsphc_nl_post_doit(); the handler gets it from gpsphc_nl_dev().
 */
static int gpsphc_nl_pre_doit(const gpsphc_genl_op_t *ops, struct sk_buff *skb,
			      struct genl_info *info)
{
	struct gpsphc_dev *gdev;
	int ret;

	ret = gpsphc_nl_check_request(skb, info);
	if (ret)
		return ret;
	mutex_lock(&gpsphc_devs_mutex);
	gdev = gpsphc_find_dev(info);
	if (IS_ERR(gdev)) {
		mutex_unlock(&gpsphc_devs_mutex);
		return PTR_ERR(gdev);
	}
	info->user_ptr[0] = gdev;
	return 0;
}

/* After every do whose gpsphc_nl_pre_doit() succeeded. */
static void gpsphc_nl_post_doit(const gpsphc_genl_op_t *ops,
				struct sk_buff *skb, struct genl_info *info)
{
	mutex_unlock(&gpsphc_devs_mutex);
}

/* The device of a do request. Context: between pre_doit and post_doit. */
static struct gpsphc_dev *gpsphc_nl_dev(struct genl_info *info)
{
	lockdep_assert_held(&gpsphc_devs_mutex);
	return info->user_ptr[0];
}

int gpsphc_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int ret;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &gpsphc_genl_family, 0,
				GPSPHC_CMD_DEV_GET);
	if (!hdr) {
		ret = -EMSGSIZE;
		goto out_free_msg;
	}
	ret = gpsphc_fill_dev(msg, gpsphc_nl_dev(info));
	if (ret)
		goto out_free_msg;

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

out_free_msg:
	nlmsg_free(msg);
	return ret;
}

int gpsphc_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	/* cb->args[0]: the id to continue from. */
	unsigned long id = cb->args[0];
	struct nlattr **attrs = gpsphc_dump_attrs(cb);
	struct gpsphc_dev *gdev;
	int ret = 0;
	void *hdr;

	/* The do policy is shared; a dump filters nothing, so says so. */
	if (attrs[GPSPHC_A_DEV_ID] || attrs[GPSPHC_A_DEV_TTY]) {
		NL_SET_ERR_MSG(cb->extack,
			       "a dev-get dump lists every device and takes no attributes");
		return -EINVAL;
	}

	mutex_lock(&gpsphc_devs_mutex);
	cb->seq = gpsphc_devs_generation;
	while ((gdev = gpsphc_dev_next(&id))) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &gpsphc_genl_family,
				  NLM_F_MULTI, GPSPHC_CMD_DEV_GET);
		if (!hdr) {
			ret = -EMSGSIZE;
			break;
		}
		genl_dump_check_consistent(cb, hdr);
		ret = gpsphc_fill_dev(skb, gdev);
		if (ret) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		id++;
	}
	mutex_unlock(&gpsphc_devs_mutex);
	cb->args[0] = id;

	/* A full skb ends this round; the dump continues in the next. */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ?: skb->len;
}

/* Why a pps-gpio was refused, for the extack: gpsphc_gpio_set()'s errors. */
static void gpsphc_pps_gpio_err(struct netlink_ext_ack *extack,
				const struct nlattr *attr, int err)
{
	switch (err) {
	case -ENODEV:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "pps-gpio: no gpiochip has that label or device name");
		break;
	case -ENOENT:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "pps-gpio: no such line (offset or line name)");
		break;
	case -EBUSY:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "pps-gpio: the line is busy: another driver holds it");
		break;
	case -EINVAL:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "pps-gpio: CHIP:OFFSET, a line name or none");
		break;
	case -ENOTUNIQ:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "pps-gpio: device name fits several chips: use the label");
		break;
	case -EOPNOTSUPP:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "pps-gpio: a controller that sleeps, or no gpiolib");
		break;
	default:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "pps-gpio: the line or its interrupt cannot be had");
		break;
	}
}

int gpsphc_nl_dev_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct gpsphc_dev *gdev = gpsphc_nl_dev(info);
	struct nlattr **attrs = info->attrs;
	struct gpsphc_clock_settings set = {};
	unsigned int attr;
	int ret;

	/* The one setting that can fail after the policy: first, alone. */
	if (attrs[GPSPHC_A_DEV_PPS_GPIO]) {
		ret = gpsphc_gpio_set(gdev, nla_data(attrs[GPSPHC_A_DEV_PPS_GPIO]));
		if (ret) {
			gpsphc_pps_gpio_err(info->extack,
					    attrs[GPSPHC_A_DEV_PPS_GPIO], ret);
			return ret;
		}
	}

	/* Ranges: the dev-set policy, generated from the spec. */
	for (attr = 1; attr < ARRAY_SIZE(gpsphc_dev_set_nl_policy); attr++)
		if (attrs[attr])
			set.change |= BIT(attr);
	if (attrs[GPSPHC_A_DEV_SCALE])
		set.scale = nla_get_u32(attrs[GPSPHC_A_DEV_SCALE]);
	if (attrs[GPSPHC_A_DEV_STEP_NS])
		set.step_ns = nla_get_u64(attrs[GPSPHC_A_DEV_STEP_NS]);
	if (attrs[GPSPHC_A_DEV_CONFIRM_N])
		set.confirm_n = nla_get_u32(attrs[GPSPHC_A_DEV_CONFIRM_N]);
	if (attrs[GPSPHC_A_DEV_RX_LATENCY_NS])
		set.rx_latency_ns = nla_get_u64(attrs[GPSPHC_A_DEV_RX_LATENCY_NS]);
	if (attrs[GPSPHC_A_DEV_SERVO_OFF])
		set.servo_off = nla_get_u8(attrs[GPSPHC_A_DEV_SERVO_OFF]);
	if (attrs[GPSPHC_A_DEV_CLOCK_SERVO])
		set.clock_servo = nla_get_u32(attrs[GPSPHC_A_DEV_CLOCK_SERVO]);
	if (attrs[GPSPHC_A_DEV_EDGE])
		gpsphc_pps_set_edge(gdev, nla_get_u32(attrs[GPSPHC_A_DEV_EDGE]));
	gpsphc_servo_glue_apply(gdev, &set);
	return 0;
}

/* What a time-set request names, checked: exactly one edge or sentence. */
static int gpsphc_nl_parse_label(struct nlattr *nest, struct nlattr **tb,
				 struct gpsphc_label *label,
				 struct netlink_ext_ack *extack)
{
	struct nlattr *edge = tb[GPSPHC_A_TIME_EDGE_SEQ];
	struct nlattr *sentence = tb[GPSPHC_A_TIME_SENTENCE_SEQ];

	if (edge && sentence) {
		NL_SET_ERR_MSG_ATTR(extack, sentence,
				    "a label names one input: GPSPHC_A_TIME_EDGE_SEQ (PPS) or GPSPHC_A_TIME_SENTENCE_SEQ (coarse mode), not both");
		return -EINVAL;
	}
	/* With neither, the PPS edge is the input reported missing. */
	if ((!sentence &&
	     NL_REQ_ATTR_CHECK(extack, nest, tb, GPSPHC_A_TIME_EDGE_SEQ)) ||
	    NL_REQ_ATTR_CHECK(extack, nest, tb, GPSPHC_A_TIME_TAI_SEC) ||
	    NL_REQ_ATTR_CHECK(extack, nest, tb, GPSPHC_A_TIME_TAI_UTC)) {
		NL_SET_ERR_MSG(extack,
			       "a label needs the edge (or in coarse mode the sentence), its TAI second and TAI - UTC");
		return -EINVAL;
	}
	*label = (struct gpsphc_label){
		.seq = nla_get_u32(edge ?: sentence),
		.sentence = sentence,
		.tai_sec = nla_get_u64(tb[GPSPHC_A_TIME_TAI_SEC]),
		.tai_utc = nla_get_u32(tb[GPSPHC_A_TIME_TAI_UTC]),
		.leap = GPSPHC_LEAP_NONE,
	};
	if (tb[GPSPHC_A_TIME_LEAP])
		label->leap = nla_get_u32(tb[GPSPHC_A_TIME_LEAP]);
	if (tb[GPSPHC_A_TIME_LEAP_UTC])
		label->leap_utc = nla_get_u64(tb[GPSPHC_A_TIME_LEAP_UTC]);
	if (label->leap != GPSPHC_LEAP_NONE && !label->leap_utc) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPSPHC_A_TIME_LEAP],
				    "a leap second needs GPSPHC_A_TIME_LEAP_UTC, the midnight ending its day");
		return -EINVAL;
	}
	if (div_u64(label->leap_utc, 86400) * 86400 != label->leap_utc) {
		NL_SET_ERR_MSG_ATTR(extack, tb[GPSPHC_A_TIME_LEAP_UTC],
				    "GPSPHC_A_TIME_LEAP_UTC must be a UTC midnight (a multiple of 86400)");
		return -EINVAL;
	}
	return 0;
}

static void gpsphc_notify_label(struct gpsphc_dev *gdev,
				const struct gpsphc_label *label,
				const struct gpsphc_label_report *report);

/* A label's verdict as time-set's answer: 0, or an errno and why. */
static int gpsphc_nl_label_answer(enum gpsphc_label_verdict verdict,
				  const struct gpsphc_label *label,
				  struct netlink_ext_ack *extack)
{
	switch (verdict) {
	case GPSPHC_LABEL_TAKEN:
	case GPSPHC_LABEL_LOUD:
		return 0;
	case GPSPHC_LABEL_SERVO_OFF:
		NL_SET_ERR_MSG(extack,
			       "the servo is off (GPSPHC_A_DEV_SERVO_OFF): something else steers this clock");
		return -EBUSY;
	case GPSPHC_LABEL_NOT_YET:
		if (label->sentence)
			NL_SET_ERR_MSG(extack,
				       "no such sentence yet: label a sentence after it arrived");
		else
			NL_SET_ERR_MSG(extack, "no such edge yet: label an edge after it happened");
		return -ENOENT;
	case GPSPHC_LABEL_TOO_OLD:
		NL_SET_ERR_MSG(extack,
			       "too old: only the last " __stringify(GPSPHC_LABEL_HISTORY)
			       " inputs counted as seconds (on-time edges, coarse mode's sentences), of the last 18 minutes, can be labelled");
		return -ENOENT;
	case GPSPHC_LABEL_OUT_OF_RANGE:
		NL_SET_ERR_MSG(extack,
			       "the TAI second contradicts the edge count (earlier than the edges already counted) or is past 2262");
		return -ERANGE;
	default:
		if (label->sentence)
			NL_SET_ERR_MSG(extack,
				       "that sentence did not start a second: coarse mode takes the first good sentence after a "
				       __stringify(GPSPHC_SENTENCE_GAP_MS)
				       " ms gap, and only while no PPS edge comes");
		else
			NL_SET_ERR_MSG(extack,
				       "not an edge the servo counted as a second: label on-time (assert) edges, not spurious ones (statistics/pps_spurious)");
		return -EINVAL;
	}
}

int gpsphc_nl_time_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	enum gpsphc_label_verdict verdict;
	struct gpsphc_dev *gdev = gpsphc_nl_dev(info);
	struct nlattr *tb[ARRAY_SIZE(gpsphc_time_nl_policy)];
	struct nlattr *time = info->attrs[GPSPHC_A_DEV_TIME];
	struct gpsphc_label_report report;
	struct gpsphc_label label;
	int ret;

	/* The op's policy has checked the nest: this only indexes it. */
	ret = nla_parse_nested(tb, ARRAY_SIZE(tb) - 1, time,
			       gpsphc_time_nl_policy, info->extack);
	if (ret)
		return ret;
	ret = gpsphc_nl_parse_label(time, tb, &label, info->extack);
	if (ret)
		return ret;
	verdict = gpsphc_servo_glue_label(gdev, &label, &report);
	/* Loud: a label that disagreed, and the one that moved the count. */
	if (verdict == GPSPHC_LABEL_LOUD)
		gpsphc_notify_label(gdev, &label, &report);
	return gpsphc_nl_label_answer(verdict, &label, info->extack);
}

static struct genl_family gpsphc_genl_family __ro_after_init = {
	.name = GPSPHC_GENL_NAME,
	.version = GPSPHC_GENL_VERSION,
	.module = THIS_MODULE,
	.ops = gpsphc_nl_ops,
	.n_ops = ARRAY_SIZE(gpsphc_nl_ops),
	.pre_doit = gpsphc_nl_pre_doit,
	.post_doit = gpsphc_nl_post_doit,
	.mcgrps = gpsphc_mcgrps,
	.n_mcgrps = ARRAY_SIZE(gpsphc_mcgrps),
};

/**
 * gpsphc_notify_wanted() - does anyone listen to the events group?
 *
 * Context: any; lock-free (an RCU read of the group's listener bitmap).
 * Return: true when events would reach someone.
 */
static bool gpsphc_notify_wanted(void)
{
	return genl_has_listeners(&gpsphc_genl_family, &init_net,
				  GPSPHC_NLGRP_EVENTS);
}

/*
 * Start an event message with room for @size bytes of attributes after
 * the device id, or return NULL when nobody listens. Sized to fit: every
 * event counts against each listener's receive buffer, a page apiece
 * before (a listener that fell behind lost events 20 times sooner).
 */
static struct sk_buff *gpsphc_ntf_new(struct gpsphc_dev *gdev, u8 cmd,
				      size_t size, void **hdr)
{
	struct sk_buff *msg;

	if (!gpsphc_notify_wanted())
		return NULL;
	msg = genlmsg_new(nla_total_size(sizeof(u32)) + size, GFP_KERNEL);
	if (!msg)
		return NULL;
	*hdr = genlmsg_put(msg, 0, 0, &gpsphc_genl_family, 0, cmd);
	if (!*hdr || nla_put_u32(msg, GPSPHC_A_DEV_ID, gdev->id)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/*
 * Close @nest (when given) and send the event; or, @too_small, drop it:
 * a message its own size estimate did not fit is a bug, said once.
 */
static void gpsphc_ntf_send(struct sk_buff *msg, void *hdr,
			    struct nlattr *nest, bool too_small)
{
	if (WARN_ONCE(too_small,
		      "gpsphc: event larger than its size estimate\n")) {
		nlmsg_free(msg);
		return;
	}
	if (nest)
		nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&gpsphc_genl_family, msg, 0, GPSPHC_NLGRP_EVENTS,
			  GFP_KERNEL);
}

/**
 * gpsphc_notify_pps() - multicast one PPS edge
 * @gdev: the device
 * @ev: the edge
 *
 * Context: process.
 */
static void gpsphc_notify_pps(struct gpsphc_dev *gdev,
			      const struct gpsphc_pps_event *ev)
{
	struct nlattr *nest;
	struct sk_buff *msg;
	bool too_small;
	void *hdr;

	msg = gpsphc_ntf_new(gdev, GPSPHC_CMD_PPS_NTF,
			     nla_total_size(0) +
			     2 * nla_total_size(sizeof(u32)) +
			     3 * nla_total_size_64bit(sizeof(u64)) +
			     nla_total_size(0), &hdr);
	if (!msg)
		return;
	nest = nla_nest_start(msg, GPSPHC_A_DEV_PPS);
	too_small = !nest ||
	    nla_put_u32(msg, GPSPHC_A_PPS_SEQ, ev->seq) ||
	    nla_put_u64_64bit(msg, GPSPHC_A_PPS_RAW_NS, ev->raw_ns,
			      GPSPHC_A_PPS_PAD) ||
	    nla_put_u64_64bit(msg, GPSPHC_A_PPS_REAL_NS, ev->real_ns,
			      GPSPHC_A_PPS_PAD) ||
	    nla_put_u32(msg, GPSPHC_A_PPS_EDGE, ev->edge) ||
	    (ev->assert && nla_put_flag(msg, GPSPHC_A_PPS_ASSERT)) ||
	    (ev->count.counted &&
	     nla_put_u64_64bit(msg, GPSPHC_A_PPS_SECOND, ev->count.second,
			       GPSPHC_A_PPS_PAD));
	gpsphc_ntf_send(msg, hdr, nest, too_small);
}

/**
 * gpsphc_notify_sentence() - multicast one framed sentence
 * @gdev: the device
 * @s: the sentence
 * @count: what the servo made of it
 *
 * Context: the tty receive path.
 */
static void gpsphc_notify_sentence(struct gpsphc_dev *gdev,
				   const struct gpsphc_sentence *s,
				   const struct gpsphc_count *count)
{
	struct nlattr *nest;
	struct sk_buff *msg;
	bool too_small;
	void *hdr;

	msg = gpsphc_ntf_new(gdev, GPSPHC_CMD_SENTENCE_NTF,
			     nla_total_size(0) +
			     2 * nla_total_size(sizeof(u32)) +
			     3 * nla_total_size_64bit(sizeof(u64)) +
			     nla_total_size(s->len), &hdr);
	if (!msg)
		return;
	nest = nla_nest_start(msg, GPSPHC_A_DEV_SENTENCE);
	too_small = !nest ||
	    nla_put_u32(msg, GPSPHC_A_SENT_SEQ, s->seq) ||
	    nla_put_u64_64bit(msg, GPSPHC_A_SENT_RAW_NS, s->start_ns,
			      GPSPHC_A_SENT_PAD) ||
	    nla_put_u64_64bit(msg, GPSPHC_A_SENT_REAL_NS,
			      s->start_ns + gdev->rx_real_offset_ns,
			      GPSPHC_A_SENT_PAD) ||
	    nla_put(msg, GPSPHC_A_SENT_DATA, s->len, s->data) ||
	    nla_put_u32(msg, GPSPHC_A_SENT_CSUM, s->csum) ||
	    (count->counted &&
	     nla_put_u64_64bit(msg, GPSPHC_A_SENT_SECOND, count->second,
			       GPSPHC_A_SENT_PAD));
	gpsphc_ntf_send(msg, hdr, nest, too_small);
}

/**
 * gpsphc_notify_state() - multicast the servo's status after a change
 * @gdev: the device
 *
 * Context: process.
 */
static void gpsphc_notify_state(struct gpsphc_dev *gdev)
{
	struct sk_buff *msg;
	void *hdr;

	msg = gpsphc_ntf_new(gdev, GPSPHC_CMD_STATE_NTF, gpsphc_servo_size(),
			     &hdr);
	if (msg)
		gpsphc_ntf_send(msg, hdr, NULL, gpsphc_put_servo(msg, gdev));
}

/**
 * gpsphc_notify_label() - multicast a label that disagreed with the count
 * @gdev: the device
 * @label: the label: the input it named and the TAI second it gave
 * @report: how far the kernel is in confirming the disagreement
 *
 * Context: process.
 */
static void gpsphc_notify_label(struct gpsphc_dev *gdev,
				const struct gpsphc_label *label,
				const struct gpsphc_label_report *report)
{
	struct nlattr *nest;
	struct sk_buff *msg;
	bool too_small;
	void *hdr;

	msg = gpsphc_ntf_new(gdev, GPSPHC_CMD_LABEL_NTF,
			     nla_total_size(0) +
			     3 * nla_total_size(sizeof(u32)) +
			     2 * nla_total_size_64bit(sizeof(u64)) +
			     gpsphc_servo_size(), &hdr);
	if (!msg)
		return;
	nest = nla_nest_start(msg, GPSPHC_A_DEV_TIME);
	too_small = !nest ||
	    nla_put_u32(msg, label->sentence ? GPSPHC_A_TIME_SENTENCE_SEQ :
			GPSPHC_A_TIME_EDGE_SEQ, label->seq) ||
	    nla_put_u64_64bit(msg, GPSPHC_A_TIME_TAI_SEC, label->tai_sec,
			      GPSPHC_A_TIME_PAD) ||
	    (report->off_s &&
	     (nla_put_s64(msg, GPSPHC_A_TIME_OFF_S, report->off_s,
			  GPSPHC_A_TIME_PAD) ||
	      nla_put_u32(msg, GPSPHC_A_TIME_CONFIRMED, report->confirmed)));
	if (!too_small) {
		nla_nest_end(msg, nest);
		too_small = nla_put_u32(msg, GPSPHC_A_DEV_CONFIRM_N,
					report->confirm_n) ||
			    gpsphc_put_servo(msg, gdev);
	}
	gpsphc_ntf_send(msg, hdr, NULL, too_small);
}

/* The devices' notifications go out through the family's events group. */
static const struct gpsphc_event_sink gpsphc_nl_sink = {
	.wanted = gpsphc_notify_wanted,
	.pps = gpsphc_notify_pps,
	.sentence = gpsphc_notify_sentence,
	.state = gpsphc_notify_state,
};

/**
 * gpsphc_netlink_register() - register the gpsphc genetlink family
 *
 * Return: 0 or a negative errno.
 */
int gpsphc_netlink_register(void)
{
	int ret = genl_register_family(&gpsphc_genl_family);

	if (!ret)
		gpsphc_events_set_sink(&gpsphc_nl_sink);
	return ret;
}

/**
 * gpsphc_netlink_unregister() - unregister the gpsphc genetlink family
 *
 * Context: module unload, every device gone.
 */
void gpsphc_netlink_unregister(void)
{
	gpsphc_events_set_sink(NULL);
	genl_unregister_family(&gpsphc_genl_family);
}
