/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * live_nl.h - live mode's netlink session with the kernel's gpsphc family.
 *
 * Two generic netlink sockets: one for requests, whose answers never mix
 * with events, and one that joins the "events" multicast group, read
 * without blocking and with a receive buffer large enough for most of a
 * minute of events. A request is sent with NLM_F_ACK and waited for until
 * its ACK or error has come; an error is reported with the kernel's own
 * errno and extended-ack message (NETLINK_EXT_ACK), never libnl's
 * translation of it. Every failure is said (log.h) before it is returned.
 */
#ifndef GPSPHCD_LIVE_NL_H
#define GPSPHCD_LIVE_NL_H

#include <stdbool.h>
#include <stdint.h>

#include <netlink/handlers.h>

#include "conf.h"

struct nl_msg;
struct nl_sock;

struct live_nl {
	struct nl_sock *sk;	/* events */
	struct nl_sock *req;	/* requests: their answers never mix with events */
	int family;
	int grp;		/* the "events" multicast group */
	char ack_msg[256];	/* extack message of the last error */
	int ack_err;		/* the last request's error (negative errno), 0 */
	bool answered;		/* the request's ACK or error came */
};

/*
 * Open both sockets and find the family and its events group: 0, or -1
 * after saying why (no module: modprobe gpsphc). live_nl_close() frees
 * what was opened either way.
 */
int live_nl_open(struct live_nl *nl);
void live_nl_close(struct live_nl *nl);

/* A request @cmd of the family, NLM_F_ACK set; NULL out of memory. */
struct nl_msg *live_nl_msg(const struct live_nl *nl, uint8_t cmd);

/*
 * Send @msg (the caller frees it) and wait for its answer, each reply to
 * @cb(@arg) if @cb is not NULL: 0, or a negative error. What failed is
 * said as "@what: reason", unless it is the kernel's error @quiet (a
 * negative errno, or 0 for none), which the caller says itself from
 * nl->ack_err and nl->ack_msg.
 */
int live_nl_request(struct live_nl *nl, struct nl_msg *msg, const char *what,
		    nl_recvmsg_msg_cb_t cb, void *arg, int quiet);

/*
 * dev-get the device of the tty @tty_name ("ttyS0"): its reply to
 * @cb(@arg); 0 or a negative error, said unless it is @quiet (as for
 * live_nl_request()).
 */
int live_nl_dev_get(struct live_nl *nl, const char *tty_name,
		    nl_recvmsg_msg_cb_t cb, void *arg, int quiet);

/*
 * The settings of @c that go to the kernel (edge, pps_gpio, servo,
 * clock_servo, scale, step_ns, confirm_n, rx_latency_ns: those given) to device
 * @dev_id in one dev-set, which the kernel applies all or none: 1 when
 * applied, 0 when @c gives none of them (nothing sent), -1 after saying
 * why not.
 */
int live_nl_dev_set(struct live_nl *nl, uint32_t dev_id, const struct conf *c);

/*
 * That dev-set's attributes, after @msg's generic netlink header: the id
 * @dev_id, then each of those settings @c gives, in the order of their
 * attribute numbers. 1 when put, 0 when @c gives none of them (nothing
 * put), or -NLE_NOMEM when @msg has no room for them.
 */
int live_nl_dev_set_put(struct nl_msg *msg, uint32_t dev_id,
			const struct conf *c);

/* Join the events group: 0, or -1 after saying so. */
int live_nl_join(struct live_nl *nl);

#endif /* GPSPHCD_LIVE_NL_H */
