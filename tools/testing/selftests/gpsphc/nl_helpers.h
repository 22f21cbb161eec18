/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small generic netlink client for the gpsphc selftests, on a raw
 * AF_NETLINK socket: messages are built by hand so a test can send exactly
 * the bytes it wants (wrong attribute lengths, unknown attribute types,
 * strings without their NUL), and every error comes back with its errno and
 * the kernel's extended-ack message.
 */
#ifndef GPSPHC_NL_HELPERS_H
#define GPSPHC_NL_HELPERS_H

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/gpsphc.h>
#include <linux/netlink.h>

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

#define NLT_BUF_SIZE	(64 * 1024)

struct nlt_sock {
	int fd;
	uint32_t seq;
	uint16_t family;	/* 0 until resolved */
	uint32_t events_grp;	/* multicast group id of "events" */
	/*
	 * Multicast messages of the family that arrive while nlt_request()
	 * waits for its answer go here (a notification the request itself
	 * caused comes before the ack); NULL drops them.
	 */
	void (*mcast_fn)(const struct nlmsghdr *nlh, void *arg);
	void *mcast_arg;
};

/* A request or reply: one netlink message, attributes appended in place. */
struct nlt_msg {
	union {
		struct nlmsghdr nlh;
		char buf[8192];
	};
	int nest[8];		/* offsets of open nests */
	int depth;
};

/* What a request got back. */
struct nlt_result {
	int err;		/* 0 or a positive errno from NLMSG_ERROR */
	char ext_msg[256];	/* NLMSGERR_ATTR_MSG, or "" */
	uint32_t ext_offs;	/* NLMSGERR_ATTR_OFFS, or 0 */
	bool has_offs;
	uint32_t miss_type;	/* NLMSGERR_ATTR_MISS_TYPE: a required attribute */
	bool has_miss;
	int replies;		/* data messages received */
};

/* ---- message building --------------------------------------------------- */

static inline void nlt_msg_init(struct nlt_msg *m, uint16_t type, uint16_t flags,
				uint8_t cmd)
{
	struct genlmsghdr *g;

	memset(m, 0, sizeof(*m));
	m->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m->nlh.nlmsg_type = type;
	m->nlh.nlmsg_flags = flags;
	g = NLMSG_DATA(&m->nlh);
	g->cmd = cmd;
	g->version = GPSPHC_GENL_VERSION;
}

/* Append an attribute with exactly @len payload bytes (padded to 4). */
static inline void nlt_put(struct nlt_msg *m, uint16_t type, const void *data,
			   size_t len)
{
	struct nlattr *a = (struct nlattr *)(m->buf + NLMSG_ALIGN(m->nlh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	memset((char *)a + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	m->nlh.nlmsg_len = NLMSG_ALIGN(m->nlh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static inline void nlt_put_u32(struct nlt_msg *m, uint16_t type, uint32_t v)
{
	nlt_put(m, type, &v, sizeof(v));
}

static inline void nlt_put_u64(struct nlt_msg *m, uint16_t type, uint64_t v)
{
	nlt_put(m, type, &v, sizeof(v));
}

static inline void nlt_put_str(struct nlt_msg *m, uint16_t type, const char *s)
{
	nlt_put(m, type, s, strlen(s) + 1);
}

static inline void nlt_nest_start(struct nlt_msg *m, uint16_t type)
{
	m->nest[m->depth++] = NLMSG_ALIGN(m->nlh.nlmsg_len);
	nlt_put(m, type | NLA_F_NESTED, NULL, 0);
}

static inline void nlt_nest_end(struct nlt_msg *m)
{
	struct nlattr *a = (struct nlattr *)(m->buf + m->nest[--m->depth]);

	a->nla_len = m->nlh.nlmsg_len - m->nest[m->depth];
}

/* ---- attribute parsing ---------------------------------------------------- */

/* Index the attributes in [@data, @data + @len) by type; later ones win. */
static inline int nlt_parse(const struct nlattr **tb, int max, const void *data,
			    int len)
{
	const struct nlattr *a = data;
	int n = 0;

	memset(tb, 0, (max + 1) * sizeof(*tb));
	while (len >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= len) {
		int type = a->nla_type & NLA_TYPE_MASK;

		if (type <= max)
			tb[type] = a;
		n++;
		len -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
	return n;
}

static inline const void *nlt_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

static inline int nlt_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

static inline uint32_t nlt_u32(const struct nlattr *a)
{
	uint32_t v;

	memcpy(&v, nlt_data(a), sizeof(v));
	return v;
}

static inline uint64_t nlt_u64(const struct nlattr *a)
{
	uint64_t v;

	memcpy(&v, nlt_data(a), sizeof(v));
	return v;
}

/* Top-level attributes of a generic netlink message. */
static inline int nlt_parse_genl(const struct nlattr **tb, int max,
				 const struct nlmsghdr *nlh)
{
	return nlt_parse(tb, max, (const char *)NLMSG_DATA(nlh) + GENL_HDRLEN,
			 nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
}

static inline uint8_t nlt_genl_cmd(const struct nlmsghdr *nlh)
{
	return ((const struct genlmsghdr *)NLMSG_DATA(nlh))->cmd;
}

/* ---- socket --------------------------------------------------------------- */

static inline int nlt_send(struct nlt_sock *s, struct nlt_msg *m)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	m->nlh.nlmsg_seq = ++s->seq;
	if (sendto(s->fd, m->buf, m->nlh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) != (ssize_t)m->nlh.nlmsg_len)
		return -errno;
	return 0;
}

/* One datagram into @buf (NLT_BUF_SIZE), waiting up to @timeout_ms. */
static inline ssize_t nlt_recv(struct nlt_sock *s, void *buf, int timeout_ms)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	ssize_t n;
	int r;

	r = poll(&pfd, 1, timeout_ms);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -ETIMEDOUT;
	n = recv(s->fd, buf, NLT_BUF_SIZE, 0);
	return n < 0 ? -errno : n;
}

/* Decode an NLMSG_ERROR (with its extack TLVs) into @res. */
static inline void nlt_parse_error(const struct nlmsghdr *nlh,
				   struct nlt_result *res)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	int off;

	res->err = -e->error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	off = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	nlt_parse(tb, NLMSGERR_ATTR_MAX, (const char *)e + off,
		  (int)nlh->nlmsg_len - NLMSG_HDRLEN - off);
	if (tb[NLMSGERR_ATTR_MSG]) {
		int len = nlt_len(tb[NLMSGERR_ATTR_MSG]);

		if (len >= (int)sizeof(res->ext_msg))
			len = sizeof(res->ext_msg) - 1;
		memcpy(res->ext_msg, nlt_data(tb[NLMSGERR_ATTR_MSG]), len);
		res->ext_msg[len] = '\0';
	}
	if (tb[NLMSGERR_ATTR_OFFS]) {
		res->ext_offs = nlt_u32(tb[NLMSGERR_ATTR_OFFS]);
		res->has_offs = true;
	}
	if (tb[NLMSGERR_ATTR_MISS_TYPE]) {
		res->miss_type = nlt_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
		res->has_miss = true;
	}
}

typedef void (*nlt_reply_fn)(const struct nlmsghdr *nlh, void *arg);

/*
 * Send @m with NLM_F_ACK and collect the answer: every data message goes to
 * @fn, the final NLMSG_ERROR / NLMSG_DONE fills @res. Multicast messages
 * (seq 0) arriving in between go to s->mcast_fn, or are skipped. Returns 0
 * when an answer came, else -errno (ETIMEDOUT after 5 s without one).
 */
static inline int nlt_request(struct nlt_sock *s, struct nlt_msg *m,
			      nlt_reply_fn fn, void *arg, struct nlt_result *res)
{
	static char rbuf[NLT_BUF_SIZE] __attribute__((aligned(4)));
	int ret;

	memset(res, 0, sizeof(*res));
	m->nlh.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	ret = nlt_send(s, m);
	if (ret)
		return ret;
	for (;;) {
		ssize_t n = nlt_recv(s, rbuf, 5000);
		struct nlmsghdr *nlh;

		if (n < 0)
			return n;
		for (nlh = (struct nlmsghdr *)rbuf; NLMSG_OK(nlh, n);
		     nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_seq != s->seq) {
				if (!nlh->nlmsg_seq && s->mcast_fn && s->family &&
				    nlh->nlmsg_type == s->family)
					s->mcast_fn(nlh, s->mcast_arg);
				continue;
			}
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				nlt_parse_error(nlh, res);
				return 0;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				/* A dump's end may carry an error too. */
				if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
					res->err = -*(int *)NLMSG_DATA(nlh);
				return 0;
			}
			res->replies++;
			if (fn)
				fn(nlh, arg);
		}
	}
}

/* Family id and "events" group id, from the generic netlink controller. */
static void nlt_ctrl_reply(const struct nlmsghdr *nlh, void *arg)
{
	struct nlt_sock *s = arg;
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	const struct nlattr *grp;
	int rem;

	nlt_parse_genl(tb, CTRL_ATTR_MAX, nlh);
	if (tb[CTRL_ATTR_FAMILY_ID])
		s->family = *(const uint16_t *)nlt_data(tb[CTRL_ATTR_FAMILY_ID]);
	if (!tb[CTRL_ATTR_MCAST_GROUPS])
		return;
	grp = nlt_data(tb[CTRL_ATTR_MCAST_GROUPS]);
	rem = nlt_len(tb[CTRL_ATTR_MCAST_GROUPS]);
	while (rem >= (int)NLA_HDRLEN && grp->nla_len >= NLA_HDRLEN &&
	       grp->nla_len <= rem) {
		const struct nlattr *g[CTRL_ATTR_MCAST_GRP_MAX + 1];

		nlt_parse(g, CTRL_ATTR_MCAST_GRP_MAX, nlt_data(grp), nlt_len(grp));
		if (g[CTRL_ATTR_MCAST_GRP_NAME] && g[CTRL_ATTR_MCAST_GRP_ID] &&
		    !strcmp(nlt_data(g[CTRL_ATTR_MCAST_GRP_NAME]), GPSPHC_MCGRP_EVENTS))
			s->events_grp = nlt_u32(g[CTRL_ATTR_MCAST_GRP_ID]);
		rem -= NLA_ALIGN(grp->nla_len);
		grp = (const struct nlattr *)((const char *)grp + NLA_ALIGN(grp->nla_len));
	}
}

/*
 * Open a generic netlink socket with extended acks on and resolve the
 * gpsphc family. Returns 0 or -errno (-ENOENT: no such family).
 */
static inline int nlt_open(struct nlt_sock *s)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1, rcvbuf = 16 << 20;
	struct nlt_result res;
	struct nlt_msg m;
	int ret;

	memset(s, 0, sizeof(*s));
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0)
		return -errno;
	if (bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)))
		goto fail;
	/* Event bursts must not overflow the socket: FORCE works as root. */
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));

	nlt_msg_init(&m, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY);
	((struct genlmsghdr *)NLMSG_DATA(&m.nlh))->version = 1;
	nlt_put_str(&m, CTRL_ATTR_FAMILY_NAME, GPSPHC_GENL_NAME);
	ret = nlt_request(s, &m, nlt_ctrl_reply, s, &res);
	if (ret) {
		close(s->fd);
		return ret;
	}
	if (res.err || !s->family) {
		close(s->fd);
		return -(res.err ? res.err : ENOENT);
	}
	return 0;
fail:
	ret = -errno;
	close(s->fd);
	return ret;
}

static inline void nlt_close(struct nlt_sock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

static inline int nlt_subscribe(struct nlt_sock *s)
{
	if (!s->events_grp)
		return -ENOENT;
	if (setsockopt(s->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
		       &s->events_grp, sizeof(s->events_grp)))
		return -errno;
	return 0;
}

/* A gpsphc request of command @cmd (flags: NLM_F_DUMP or 0). */
static inline void nlt_gpsphc_init(struct nlt_sock *s, struct nlt_msg *m,
				   uint8_t cmd, uint16_t flags)
{
	nlt_msg_init(m, s->family, flags, cmd);
}

/* ---- servo status and labels --------------------------------------------- */

/* GPSPHC_A_DEV_SERVO, decoded; has_* say which attributes were there. */
struct nlt_servo {
	bool present;
	bool has_state, has_offset, has_rms, has_freq, has_tai_utc, has_leap;
	bool has_leap_utc, has_holdover, coarse;
	uint32_t state;
	int64_t offset_ns;
	uint64_t rms_ns;
	int64_t freq_ppb;
	uint32_t tai_utc;
	uint32_t leap;
	uint64_t leap_utc;
	uint64_t holdover_s;
	uint64_t labels, labels_refused, disagreements, steps, outliers;
	int counters;		/* how many of the five counters were there */
	int bad_len;		/* attributes with the wrong size */
};

static inline void nlt_parse_servo(const struct nlattr *nest, struct nlt_servo *sv)
{
	const struct nlattr *tb[GPSPHC_A_SERVO_MAX + 1];
	uint64_t *ctr[] = {
		[GPSPHC_A_SERVO_LABELS] = &sv->labels,
		[GPSPHC_A_SERVO_LABELS_REFUSED] = &sv->labels_refused,
		[GPSPHC_A_SERVO_DISAGREEMENTS] = &sv->disagreements,
		[GPSPHC_A_SERVO_STEPS] = &sv->steps,
		[GPSPHC_A_SERVO_OUTLIERS] = &sv->outliers,
	};
	int i;

	memset(sv, 0, sizeof(*sv));
	if (!nest)
		return;
	sv->present = true;
	nlt_parse(tb, GPSPHC_A_SERVO_MAX, nlt_data(nest), nlt_len(nest));
#define NLT_SV(attr, field, flag, size, get)				\
	do {								\
		if (tb[attr]) {						\
			if (nlt_len(tb[attr]) == size) {		\
				sv->field = get(tb[attr]);		\
				sv->flag = true;			\
			} else {					\
				sv->bad_len++;				\
			}						\
		}							\
	} while (0)
	NLT_SV(GPSPHC_A_SERVO_STATE, state, has_state, 4, nlt_u32);
	NLT_SV(GPSPHC_A_SERVO_OFFSET_NS, offset_ns, has_offset, 8, (int64_t)nlt_u64);
	NLT_SV(GPSPHC_A_SERVO_RMS_NS, rms_ns, has_rms, 8, nlt_u64);
	NLT_SV(GPSPHC_A_SERVO_FREQ_PPB, freq_ppb, has_freq, 8, (int64_t)nlt_u64);
	NLT_SV(GPSPHC_A_SERVO_TAI_UTC, tai_utc, has_tai_utc, 4, nlt_u32);
	NLT_SV(GPSPHC_A_SERVO_LEAP, leap, has_leap, 4, nlt_u32);
	NLT_SV(GPSPHC_A_SERVO_LEAP_UTC, leap_utc, has_leap_utc, 8, nlt_u64);
	NLT_SV(GPSPHC_A_SERVO_HOLDOVER_S, holdover_s, has_holdover, 8, nlt_u64);
#undef NLT_SV
	if (tb[GPSPHC_A_SERVO_COARSE]) {
		sv->coarse = true;
		if (nlt_len(tb[GPSPHC_A_SERVO_COARSE]))
			sv->bad_len++;
	}
	for (i = GPSPHC_A_SERVO_LABELS; i <= GPSPHC_A_SERVO_OUTLIERS; i++) {
		if (!tb[i])
			continue;
		if (nlt_len(tb[i]) != 8) {
			sv->bad_len++;
			continue;
		}
		*ctr[i] = nlt_u64(tb[i]);
		sv->counters++;
	}
}

/* GPSPHC_A_DEV_TIME, decoded (a LABEL_NTF echoes the label). */
struct nlt_time {
	bool present, has_seq, has_tai, has_tai_utc, has_leap, has_leap_utc;
	bool sentence;		/* @seq came as GPSPHC_A_TIME_SENTENCE_SEQ */
	uint32_t seq;
	uint64_t tai_sec;
	uint32_t tai_utc;
	uint32_t leap;
	uint64_t leap_utc;
	/* LABEL_NTF of a disagreement: by how much, confirmed how far */
	bool has_off;
	int64_t off_s;
	uint32_t confirmed;
};

static inline void nlt_parse_time(const struct nlattr *nest, struct nlt_time *t)
{
	const struct nlattr *tb[GPSPHC_A_TIME_MAX + 1];

	memset(t, 0, sizeof(*t));
	if (!nest)
		return;
	t->present = true;
	nlt_parse(tb, GPSPHC_A_TIME_MAX, nlt_data(nest), nlt_len(nest));
	if (tb[GPSPHC_A_TIME_EDGE_SEQ] && nlt_len(tb[GPSPHC_A_TIME_EDGE_SEQ]) == 4) {
		t->seq = nlt_u32(tb[GPSPHC_A_TIME_EDGE_SEQ]);
		t->has_seq = true;
	}
	if (tb[GPSPHC_A_TIME_SENTENCE_SEQ] &&
	    nlt_len(tb[GPSPHC_A_TIME_SENTENCE_SEQ]) == 4) {
		t->seq = nlt_u32(tb[GPSPHC_A_TIME_SENTENCE_SEQ]);
		t->sentence = true;
		t->has_seq = !t->has_seq;	/* exactly one of the two */
	}
	if (tb[GPSPHC_A_TIME_TAI_SEC] && nlt_len(tb[GPSPHC_A_TIME_TAI_SEC]) == 8) {
		t->tai_sec = nlt_u64(tb[GPSPHC_A_TIME_TAI_SEC]);
		t->has_tai = true;
	}
	if (tb[GPSPHC_A_TIME_TAI_UTC] && nlt_len(tb[GPSPHC_A_TIME_TAI_UTC]) == 4) {
		t->tai_utc = nlt_u32(tb[GPSPHC_A_TIME_TAI_UTC]);
		t->has_tai_utc = true;
	}
	if (tb[GPSPHC_A_TIME_LEAP] && nlt_len(tb[GPSPHC_A_TIME_LEAP]) == 4) {
		t->leap = nlt_u32(tb[GPSPHC_A_TIME_LEAP]);
		t->has_leap = true;
	}
	if (tb[GPSPHC_A_TIME_LEAP_UTC] && nlt_len(tb[GPSPHC_A_TIME_LEAP_UTC]) == 8) {
		t->leap_utc = nlt_u64(tb[GPSPHC_A_TIME_LEAP_UTC]);
		t->has_leap_utc = true;
	}
	if (tb[GPSPHC_A_TIME_OFF_S] && nlt_len(tb[GPSPHC_A_TIME_OFF_S]) == 8 &&
	    tb[GPSPHC_A_TIME_CONFIRMED] && nlt_len(tb[GPSPHC_A_TIME_CONFIRMED]) == 4) {
		t->off_s = (int64_t)nlt_u64(tb[GPSPHC_A_TIME_OFF_S]);
		t->confirmed = nlt_u32(tb[GPSPHC_A_TIME_CONFIRMED]);
		t->has_off = true;
	}
}

/*
 * GPSPHC_CMD_TIME_SET naming input @seq by attribute @seq_attr
 * (GPSPHC_A_TIME_EDGE_SEQ or _SENTENCE_SEQ; 0 leaves it out, and
 * @seq_attr2, if not 0, adds a second one with the same value): TAI second
 * @tai, TAI - UTC @tai_utc; @leap 0 leaves GPSPHC_A_TIME_LEAP out,
 * @leap_utc 0 leaves GPSPHC_A_TIME_LEAP_UTC out.
 */
static inline int nlt_time_set_by(struct nlt_sock *s, uint32_t id,
				  uint16_t seq_attr, uint16_t seq_attr2,
				  uint32_t seq, uint64_t tai, uint32_t tai_utc,
				  uint32_t leap, uint64_t leap_utc,
				  struct nlt_result *res)
{
	struct nlt_msg m;

	nlt_gpsphc_init(s, &m, GPSPHC_CMD_TIME_SET, 0);
	nlt_put_u32(&m, GPSPHC_A_DEV_ID, id);
	nlt_nest_start(&m, GPSPHC_A_DEV_TIME);
	if (seq_attr)
		nlt_put_u32(&m, seq_attr, seq);
	if (seq_attr2)
		nlt_put_u32(&m, seq_attr2, seq);
	nlt_put_u64(&m, GPSPHC_A_TIME_TAI_SEC, tai);
	nlt_put_u32(&m, GPSPHC_A_TIME_TAI_UTC, tai_utc);
	if (leap)
		nlt_put_u32(&m, GPSPHC_A_TIME_LEAP, leap);
	if (leap_utc)
		nlt_put_u64(&m, GPSPHC_A_TIME_LEAP_UTC, leap_utc);
	nlt_nest_end(&m);
	return nlt_request(s, &m, NULL, NULL, res);
}

/* GPSPHC_CMD_TIME_SET labelling on-time edge @seq; see nlt_time_set_by(). */
static inline int nlt_time_set(struct nlt_sock *s, uint32_t id, uint32_t seq,
			       uint64_t tai, uint32_t tai_utc, uint32_t leap,
			       uint64_t leap_utc, struct nlt_result *res)
{
	return nlt_time_set_by(s, id, GPSPHC_A_TIME_EDGE_SEQ, 0, seq, tai,
			       tai_utc, leap, leap_utc, res);
}

/* ---- device replies --------------------------------------------------------- */

#define NLT_NSTATS	GPSPHC_A_STATS_EVENTS_DROPPED

struct nlt_dev {
	bool has_id, has_tty, has_pps_index, has_edge, has_stats;
	uint32_t id;
	char tty[64];
	uint32_t pps_index;
	uint32_t edge;
	uint64_t stats[NLT_NSTATS + 1];	/* by GPSPHC_A_STATS_* */
	bool has_stat[NLT_NSTATS + 1];
	int nstats_unknown;		/* counters with a type we don't know */
	/* the PTP clock and its servo */
	bool has_ptp_index, has_scale, has_step_ns, has_confirm_n, has_rx_latency;
	bool has_clock_servo;
	uint32_t ptp_index;
	uint32_t scale;
	uint64_t step_ns;
	uint32_t confirm_n;
	uint64_t rx_latency_ns;
	uint32_t clock_servo;
	struct nlt_servo servo;
};

static inline void nlt_parse_dev(const struct nlmsghdr *nlh, struct nlt_dev *d)
{
	const struct nlattr *tb[GPSPHC_A_DEV_MAX + 1];
	const struct nlattr *st[GPSPHC_A_STATS_MAX + 1];
	int i;

	memset(d, 0, sizeof(*d));
	nlt_parse_genl(tb, GPSPHC_A_DEV_MAX, nlh);
	if (tb[GPSPHC_A_DEV_ID] && nlt_len(tb[GPSPHC_A_DEV_ID]) == 4) {
		d->has_id = true;
		d->id = nlt_u32(tb[GPSPHC_A_DEV_ID]);
	}
	if (tb[GPSPHC_A_DEV_TTY]) {
		int len = nlt_len(tb[GPSPHC_A_DEV_TTY]);

		d->has_tty = len > 0 && len <= (int)sizeof(d->tty) &&
			     ((const char *)nlt_data(tb[GPSPHC_A_DEV_TTY]))[len - 1] == '\0';
		if (d->has_tty)
			memcpy(d->tty, nlt_data(tb[GPSPHC_A_DEV_TTY]), len);
	}
	if (tb[GPSPHC_A_DEV_PPS_INDEX] && nlt_len(tb[GPSPHC_A_DEV_PPS_INDEX]) == 4) {
		d->has_pps_index = true;
		d->pps_index = nlt_u32(tb[GPSPHC_A_DEV_PPS_INDEX]);
	}
	if (tb[GPSPHC_A_DEV_EDGE] && nlt_len(tb[GPSPHC_A_DEV_EDGE]) == 4) {
		d->has_edge = true;
		d->edge = nlt_u32(tb[GPSPHC_A_DEV_EDGE]);
	}
	if (tb[GPSPHC_A_DEV_PTP_INDEX] && nlt_len(tb[GPSPHC_A_DEV_PTP_INDEX]) == 4) {
		d->has_ptp_index = true;
		d->ptp_index = nlt_u32(tb[GPSPHC_A_DEV_PTP_INDEX]);
	}
	if (tb[GPSPHC_A_DEV_SCALE] && nlt_len(tb[GPSPHC_A_DEV_SCALE]) == 4) {
		d->has_scale = true;
		d->scale = nlt_u32(tb[GPSPHC_A_DEV_SCALE]);
	}
	if (tb[GPSPHC_A_DEV_STEP_NS] && nlt_len(tb[GPSPHC_A_DEV_STEP_NS]) == 8) {
		d->has_step_ns = true;
		d->step_ns = nlt_u64(tb[GPSPHC_A_DEV_STEP_NS]);
	}
	if (tb[GPSPHC_A_DEV_CONFIRM_N] && nlt_len(tb[GPSPHC_A_DEV_CONFIRM_N]) == 4) {
		d->has_confirm_n = true;
		d->confirm_n = nlt_u32(tb[GPSPHC_A_DEV_CONFIRM_N]);
	}
	if (tb[GPSPHC_A_DEV_RX_LATENCY_NS] && nlt_len(tb[GPSPHC_A_DEV_RX_LATENCY_NS]) == 8) {
		d->has_rx_latency = true;
		d->rx_latency_ns = nlt_u64(tb[GPSPHC_A_DEV_RX_LATENCY_NS]);
	}
	if (tb[GPSPHC_A_DEV_CLOCK_SERVO] && nlt_len(tb[GPSPHC_A_DEV_CLOCK_SERVO]) == 4) {
		d->has_clock_servo = true;
		d->clock_servo = nlt_u32(tb[GPSPHC_A_DEV_CLOCK_SERVO]);
	}
	nlt_parse_servo(tb[GPSPHC_A_DEV_SERVO], &d->servo);
	if (!tb[GPSPHC_A_DEV_STATS])
		return;
	d->has_stats = true;
	nlt_parse(st, GPSPHC_A_STATS_MAX, nlt_data(tb[GPSPHC_A_DEV_STATS]),
		  nlt_len(tb[GPSPHC_A_DEV_STATS]));
	for (i = 1; i <= NLT_NSTATS; i++) {
		if (!st[i])
			continue;
		if (nlt_len(st[i]) != 8) {
			d->nstats_unknown++;
			continue;
		}
		d->has_stat[i] = true;
		d->stats[i] = nlt_u64(st[i]);
	}
}

/* ---- events ------------------------------------------------------------------- */

struct nlt_event {
	uint8_t cmd;		/* GPSPHC_CMD_PPS_NTF or GPSPHC_CMD_SENTENCE_NTF */
	uint32_t dev_id;
	uint32_t seq;
	uint64_t raw_ns;
	uint64_t real_ns;
	/* PPS and sentence: the servo counted it as a second, and which */
	bool counted;
	uint64_t second;
	/* PPS */
	uint32_t edge;
	bool assert;
	/* sentence */
	uint32_t csum;
	int len;
	char data[GPSPHC_SENTENCE_MAX + 64];
	/* STATE_NTF and LABEL_NTF */
	struct nlt_servo servo;
	struct nlt_time time;	/* LABEL_NTF: the label */
	uint32_t confirm_n;	/* LABEL_NTF */
	/* every attribute the message must have was there with its size */
	bool complete;
	/* CLOCK_MONOTONIC_RAW when nlt_events_wait() received it */
	uint64_t recv_raw_ns;
};

static inline void nlt_parse_event(const struct nlmsghdr *nlh, struct nlt_event *e)
{
	const struct nlattr *tb[GPSPHC_A_DEV_MAX + 1];
	const struct nlattr *at[GPSPHC_A_SENT_MAX + GPSPHC_A_PPS_MAX + 1];

	memset(e, 0, sizeof(*e));
	e->cmd = nlt_genl_cmd(nlh);
	nlt_parse_genl(tb, GPSPHC_A_DEV_MAX, nlh);
	if (!tb[GPSPHC_A_DEV_ID] || nlt_len(tb[GPSPHC_A_DEV_ID]) != 4)
		return;
	e->dev_id = nlt_u32(tb[GPSPHC_A_DEV_ID]);
	if (e->cmd == GPSPHC_CMD_PPS_NTF && tb[GPSPHC_A_DEV_PPS]) {
		nlt_parse(at, GPSPHC_A_PPS_MAX, nlt_data(tb[GPSPHC_A_DEV_PPS]),
			  nlt_len(tb[GPSPHC_A_DEV_PPS]));
		if (!at[GPSPHC_A_PPS_SEQ] || nlt_len(at[GPSPHC_A_PPS_SEQ]) != 4 ||
		    !at[GPSPHC_A_PPS_RAW_NS] || nlt_len(at[GPSPHC_A_PPS_RAW_NS]) != 8 ||
		    !at[GPSPHC_A_PPS_REAL_NS] || nlt_len(at[GPSPHC_A_PPS_REAL_NS]) != 8 ||
		    !at[GPSPHC_A_PPS_EDGE] || nlt_len(at[GPSPHC_A_PPS_EDGE]) != 4 ||
		    (at[GPSPHC_A_PPS_ASSERT] && nlt_len(at[GPSPHC_A_PPS_ASSERT]) != 0) ||
		    (at[GPSPHC_A_PPS_SECOND] && nlt_len(at[GPSPHC_A_PPS_SECOND]) != 8))
			return;
		e->counted = at[GPSPHC_A_PPS_SECOND] != NULL;
		e->second = e->counted ? nlt_u64(at[GPSPHC_A_PPS_SECOND]) : 0;
		e->seq = nlt_u32(at[GPSPHC_A_PPS_SEQ]);
		e->raw_ns = nlt_u64(at[GPSPHC_A_PPS_RAW_NS]);
		e->real_ns = nlt_u64(at[GPSPHC_A_PPS_REAL_NS]);
		e->edge = nlt_u32(at[GPSPHC_A_PPS_EDGE]);
		e->assert = at[GPSPHC_A_PPS_ASSERT] != NULL;
		e->complete = true;
	} else if (e->cmd == GPSPHC_CMD_SENTENCE_NTF && tb[GPSPHC_A_DEV_SENTENCE]) {
		nlt_parse(at, GPSPHC_A_SENT_MAX, nlt_data(tb[GPSPHC_A_DEV_SENTENCE]),
			  nlt_len(tb[GPSPHC_A_DEV_SENTENCE]));
		if (!at[GPSPHC_A_SENT_SEQ] || nlt_len(at[GPSPHC_A_SENT_SEQ]) != 4 ||
		    !at[GPSPHC_A_SENT_RAW_NS] || nlt_len(at[GPSPHC_A_SENT_RAW_NS]) != 8 ||
		    !at[GPSPHC_A_SENT_REAL_NS] || nlt_len(at[GPSPHC_A_SENT_REAL_NS]) != 8 ||
		    !at[GPSPHC_A_SENT_DATA] ||
		    nlt_len(at[GPSPHC_A_SENT_DATA]) > (int)sizeof(e->data) ||
		    !at[GPSPHC_A_SENT_CSUM] || nlt_len(at[GPSPHC_A_SENT_CSUM]) != 4 ||
		    (at[GPSPHC_A_SENT_SECOND] && nlt_len(at[GPSPHC_A_SENT_SECOND]) != 8))
			return;
		e->counted = at[GPSPHC_A_SENT_SECOND] != NULL;
		e->second = e->counted ? nlt_u64(at[GPSPHC_A_SENT_SECOND]) : 0;
		e->seq = nlt_u32(at[GPSPHC_A_SENT_SEQ]);
		e->raw_ns = nlt_u64(at[GPSPHC_A_SENT_RAW_NS]);
		e->real_ns = nlt_u64(at[GPSPHC_A_SENT_REAL_NS]);
		e->len = nlt_len(at[GPSPHC_A_SENT_DATA]);
		memcpy(e->data, nlt_data(at[GPSPHC_A_SENT_DATA]), e->len);
		e->csum = nlt_u32(at[GPSPHC_A_SENT_CSUM]);
		e->complete = true;
	} else if (e->cmd == GPSPHC_CMD_STATE_NTF || e->cmd == GPSPHC_CMD_LABEL_NTF) {
		nlt_parse_servo(tb[GPSPHC_A_DEV_SERVO], &e->servo);
		e->complete = e->servo.present && e->servo.has_state && !e->servo.bad_len;
		if (e->cmd == GPSPHC_CMD_LABEL_NTF) {
			nlt_parse_time(tb[GPSPHC_A_DEV_TIME], &e->time);
			e->complete = e->complete && e->time.has_seq && e->time.has_tai &&
				      tb[GPSPHC_A_DEV_CONFIRM_N] &&
				      nlt_len(tb[GPSPHC_A_DEV_CONFIRM_N]) == 4;
			if (e->complete)
				e->confirm_n = nlt_u32(tb[GPSPHC_A_DEV_CONFIRM_N]);
		}
	}
}

/* A queue of received events, filled from a subscribed socket. */
struct nlt_events {
	struct nlt_event *ev;
	int n, cap;
	int overruns;		/* ENOBUFS seen: events were lost */
	char rbuf[NLT_BUF_SIZE] __attribute__((aligned(4)));
};

/* Append @e to @q: 0, or -ENOMEM. */
static inline int nlt_events_push(struct nlt_events *q, const struct nlt_event *e)
{
	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 256;
		q->ev = realloc(q->ev, q->cap * sizeof(*q->ev));
		if (!q->ev)
			return -ENOMEM;
	}
	q->ev[q->n++] = *e;
	return 0;
}

/*
 * Read events of device @dev_id (all devices if < 0) into @q until @pred
 * says enough or @timeout_ms pass. @pred may be NULL to just drain what
 * comes within the time. Returns the number of events held.
 */
static inline int nlt_events_wait(struct nlt_sock *s, struct nlt_events *q,
				  long dev_id, bool (*pred)(struct nlt_events *, void *),
				  void *arg, int timeout_ms)
{
	struct timespec t0, t;
	int left = timeout_ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!(pred && pred(q, arg))) {
		struct nlmsghdr *nlh;
		struct timespec rx;
		ssize_t n;

		n = nlt_recv(s, q->rbuf, left);
		if (n == -ENOBUFS) {
			q->overruns++;
			continue;
		}
		if (n < 0)
			break;
		clock_gettime(CLOCK_MONOTONIC_RAW, &rx);
		for (nlh = (struct nlmsghdr *)q->rbuf; NLMSG_OK(nlh, n);
		     nlh = NLMSG_NEXT(nlh, n)) {
			struct nlt_event e;

			if (nlh->nlmsg_type != s->family || nlh->nlmsg_seq)
				continue;
			nlt_parse_event(nlh, &e);
			e.recv_raw_ns = rx.tv_sec * 1000000000ULL + rx.tv_nsec;
			if (dev_id >= 0 && e.dev_id != (uint32_t)dev_id)
				continue;
			if (nlt_events_push(q, &e))
				return -ENOMEM;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = timeout_ms - ((t.tv_sec - t0.tv_sec) * 1000 +
				     (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			break;
	}
	return q->n;
}

static inline void nlt_events_clear(struct nlt_events *q)
{
	q->n = 0;
	q->overruns = 0;
}

static inline void nlt_events_free(struct nlt_events *q)
{
	free(q->ev);
	q->ev = NULL;
	q->n = q->cap = 0;
}

/*
 * An nlt_sock mcast_fn: keep a notification that came while a request
 * waited for its ack in the struct nlt_events @arg.
 */
static inline void nlt_events_keep(const struct nlmsghdr *nlh, void *arg)
{
	struct nlt_event e;

	nlt_parse_event(nlh, &e);
	nlt_events_push(arg, &e);
}

/*
 * Open @s subscribed to the events group, with a new queue in @q that
 * also keeps the notifications coming while a request waits for its ack
 * (nlt_events_keep): 0 or -errno. Free the queue with nlt_events_free()
 * and free().
 */
static inline int nlt_open_events(struct nlt_sock *s, struct nlt_events **q)
{
	int ret = nlt_open(s);

	if (ret)
		return ret;
	ret = nlt_subscribe(s);
	if (ret)
		return ret;
	*q = calloc(1, sizeof(**q));
	if (!*q)
		return -ENOMEM;
	s->mcast_fn = nlt_events_keep;
	s->mcast_arg = *q;
	return 0;
}

/* Events of one kind, counted. */
static inline int nlt_events_count(const struct nlt_events *q, uint8_t cmd)
{
	int i, n = 0;

	for (i = 0; i < q->n; i++)
		n += q->ev[i].cmd == cmd;
	return n;
}

#endif /* GPSPHC_NL_HELPERS_H */
