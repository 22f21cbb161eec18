// SPDX-License-Identifier: GPL-2.0-only
/* live_nl.c - live mode's netlink session: see live_nl.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "linux/gpsphc.h"
#include "live_nl.h"
#include "log.h"

/*
 * The events socket's receive buffer. Each event takes over 4 KiB of
 * it (the kernel allocates a page-sized message), so the default 208 KiB
 * holds some 50 events; this holds some 500, most of a minute of a
 * receiver's usual output. Past it events are lost and gpsphcd recovers.
 */
#define LIVE_RCVBUF	(1 << 20)

/* The keys that go to the kernel in dev-set. */
#define LIVE_DEV_SET_KEYS ((1u << CONF_EDGE) | (1u << CONF_PPS_GPIO) | \
			   (1u << CONF_SERVO) | (1u << CONF_CLOCK_SERVO) | \
			   (1u << CONF_SCALE) | (1u << CONF_STEP_NS) | \
			   (1u << CONF_CONFIRM_N) | (1u << CONF_RX_LATENCY_NS))

/* Keep the kernel's extended-ack message of an error reply. */
static int live_err_cb(struct sockaddr_nl *nla, struct nlmsgerr *err, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)err - 1;
	struct live_nl *nl = arg;
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*nlh) + sizeof(*err);

	(void)nla;
	nl->answered = true;
	nl->ack_err = err->error;
	nl->ack_msg[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - sizeof(err->msg);
	if (off < nlh->nlmsg_len &&
	    !nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)nlh + off),
		       (int)(nlh->nlmsg_len - off), NULL) && tb[NLMSGERR_ATTR_MSG])
		snprintf(nl->ack_msg, sizeof(nl->ack_msg), "%s",
			 (const char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
	return NL_STOP;
}

/* The kernel's ACK: the request's answer is complete. */
static int live_ack_cb(struct nl_msg *msg, void *arg)
{
	struct live_nl *nl = arg;

	(void)msg;
	nl->answered = true;
	return NL_STOP;
}

int live_nl_request(struct live_nl *nl, struct nl_msg *msg, const char *what,
		    nl_recvmsg_msg_cb_t cb, void *arg, int quiet)
{
	struct nl_cb *nlcb = nl_cb_alloc(NL_CB_DEFAULT);
	int ret;

	if (!nlcb)
		return -NLE_NOMEM;
	nl->ack_err = 0;
	nl->answered = false;
	nl_cb_err(nlcb, NL_CB_CUSTOM, live_err_cb, nl);
	nl_cb_set(nlcb, NL_CB_ACK, NL_CB_CUSTOM, live_ack_cb, nl);
	if (cb)
		nl_cb_set(nlcb, NL_CB_VALID, NL_CB_CUSTOM, cb, arg);
	ret = nl_send_auto(nl->req, msg);
	/*
	 * A reply and the ACK after it are two datagrams, and nl_recvmsgs()
	 * returns after the reply's: read until the ACK (or the error), or
	 * the next request reads this one's ACK and leaves its own reply for
	 * the one after (each answer a request older, the socket filling up
	 * until the kernel drops answers: ENOBUFS).
	 */
	while (ret >= 0 && !nl->answered)
		ret = nl_recvmsgs(nl->req, nlcb);
	/*
	 * The kernel's error ends nl_recvmsgs() with libnl's translation of
	 * it (live_err_cb() returns NL_STOP): report the kernel's own errno
	 * and extack message instead, and keep @quiet quiet.
	 */
	if (nl->answered && nl->ack_err) {
		if (nl->ack_err != quiet)
			log_msg(LOG_ERR, "%s: %s%s%s", what,
				strerror(-nl->ack_err), nl->ack_msg[0] ? ": " : "",
				nl->ack_msg);
		ret = nl->ack_err;
	} else if (ret < 0) {
		log_msg(LOG_ERR, "%s: %s", what, nl_geterror(ret));
	}
	nl_cb_put(nlcb);
	return ret < 0 ? ret : 0;
}

struct nl_msg *live_nl_msg(const struct live_nl *nl, uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
				NLM_F_ACK, cmd, GPSPHC_GENL_VERSION)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

int live_nl_dev_get(struct live_nl *nl, const char *tty_name,
		    nl_recvmsg_msg_cb_t cb, void *arg, int quiet)
{
	struct nl_msg *msg = live_nl_msg(nl, GPSPHC_CMD_DEV_GET);
	int ret = -NLE_NOMEM;

	if (msg && !nla_put_string(msg, GPSPHC_A_DEV_TTY, tty_name))
		ret = live_nl_request(nl, msg, "looking up the gpsphc device",
				      cb, arg, quiet);
	nlmsg_free(msg);
	return ret;
}

int live_nl_open(struct live_nl *nl)
{
	int one = 1, rcvbuf = LIVE_RCVBUF;

	nl->req = nl_socket_alloc();
	nl->sk = nl_socket_alloc();
	if (!nl->req || !nl->sk || genl_connect(nl->req) || genl_connect(nl->sk)) {
		log_msg(LOG_ERR, "cannot open a generic netlink socket");
		return -1;
	}
	setsockopt(nl_socket_get_fd(nl->req), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	/* Past net.core.rmem_max with CAP_NET_ADMIN, else up to it. */
	if (setsockopt(nl_socket_get_fd(nl->sk), SOL_SOCKET, SO_RCVBUFFORCE,
		       &rcvbuf, sizeof(rcvbuf)))
		setsockopt(nl_socket_get_fd(nl->sk), SOL_SOCKET, SO_RCVBUF,
			   &rcvbuf, sizeof(rcvbuf));
	/* Read until the socket is empty, then look at the clock. */
	nl_socket_set_nonblocking(nl->sk);
	nl->family = genl_ctrl_resolve(nl->req, GPSPHC_GENL_NAME);
	nl->grp = genl_ctrl_resolve_grp(nl->req, GPSPHC_GENL_NAME, GPSPHC_MCGRP_EVENTS);
	if (nl->family < 0 || nl->grp < 0) {
		log_msg(LOG_ERR, "the kernel has no \"%s\" netlink family: load the module (modprobe gpsphc)",
			GPSPHC_GENL_NAME);
		return -1;
	}
	return 0;
}

int live_nl_dev_set_put(struct nl_msg *msg, uint32_t dev_id,
			const struct conf *c)
{
#define has(k) (c->set & (1u << (k)))
	bool off = c->servo == CONF_SERVO_OFF;

	if (!(c->set & LIVE_DEV_SET_KEYS))
		return 0;
	if (nla_put_u32(msg, GPSPHC_A_DEV_ID, dev_id) ||
	    (has(CONF_EDGE) &&
	     nla_put_u32(msg, GPSPHC_A_DEV_EDGE, c->edge)) ||
	    (has(CONF_SCALE) &&
	     nla_put_u32(msg, GPSPHC_A_DEV_SCALE, c->scale)) ||
	    (has(CONF_STEP_NS) &&
	     nla_put_u64(msg, GPSPHC_A_DEV_STEP_NS, c->step_ns)) ||
	    (has(CONF_CONFIRM_N) &&
	     nla_put_u32(msg, GPSPHC_A_DEV_CONFIRM_N, c->confirm_n)) ||
	    (has(CONF_RX_LATENCY_NS) &&
	     nla_put_u64(msg, GPSPHC_A_DEV_RX_LATENCY_NS, c->rx_latency_ns)) ||
	    (has(CONF_SERVO) &&
	     nla_put_u8(msg, GPSPHC_A_DEV_SERVO_OFF, off)) ||
	    (has(CONF_CLOCK_SERVO) &&
	     nla_put_u32(msg, GPSPHC_A_DEV_CLOCK_SERVO, c->clock_servo)) ||
	    (has(CONF_PPS_GPIO) &&
	     nla_put_string(msg, GPSPHC_A_DEV_PPS_GPIO, c->pps_gpio)))
		return -NLE_NOMEM;
	return 1;
#undef has
}

int live_nl_dev_set(struct live_nl *nl, uint32_t dev_id, const struct conf *c)
{
	static const char what[] = "applying the settings (edge, pps_gpio, servo, clock_servo, scale, step_ns, confirm_n, rx_latency_ns)";
	struct nl_msg *msg = live_nl_msg(nl, GPSPHC_CMD_DEV_SET);
	int ret = msg ? live_nl_dev_set_put(msg, dev_id, c) : -NLE_NOMEM;

	if (ret < 0)
		log_msg(LOG_ERR, "%s: %s", what, nl_geterror(ret));
	else if (ret > 0 && live_nl_request(nl, msg, what, NULL, NULL, 0))
		ret = -1;
	nlmsg_free(msg);
	return ret < 0 ? -1 : ret;
}

int live_nl_join(struct live_nl *nl)
{
	if (nl_socket_add_membership(nl->sk, nl->grp)) {
		log_msg(LOG_ERR, "cannot join the gpsphc events group");
		return -1;
	}
	return 0;
}

void live_nl_close(struct live_nl *nl)
{
	nl_socket_free(nl->sk);
	nl_socket_free(nl->req);
}
