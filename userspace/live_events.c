// SPDX-License-Identifier: GPL-2.0-only
/* live_events.c - the kernel's events in live mode: see live_events.h. */
#include <inttypes.h>
#include <stdio.h>

#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "linux/gpsphc.h"
#include "live_dev.h"
#include "live_events.h"
#include "live_priv.h"
#include "log.h"
#include "names.h"
#include "nmea.h"
#include "nmea_pty.h"
#include "replay.h"

/* Datagrams read in one go before the loop looks at the clock again. */
#define LIVE_READ_MAX	64
/* An episode of lost events ends after this long without a loss. */
#define LIVE_LOSS_QUIET_NS	2000000000LL

/*
 * Events were lost: the socket overflowed (@overflow, how many is not
 * known), or sequence numbers jumped over @edges edges or @sentences
 * sentences. The labelling forgets what they may have changed, the device
 * is checked at once, and the episode is said when it starts.
 */
static void live_lost(struct live *l, bool overflow, uint32_t edges,
		      uint32_t sentences)
{
	struct live_loss *s = &l->loss;

	s->overflows += overflow;
	s->edges += edges;
	s->sentences += sentences;
	l->metrics.dev.overflows += overflow;
	l->metrics.dev.lost_edges += edges;
	l->metrics.dev.lost_sentences += sentences;
	s->last_ns = live_now_ns();
	pipeline_resync(l->p);
	if (s->episode)
		return;
	s->episode = true;
	s->start_ns = s->last_ns;
	l->next_check = 0;
	if (overflow)
		log_msg(LOG_WARNING, "WARNING: %s: kernel events lost: gpsphcd fell behind and its netlink socket overflowed (ENOBUFS); labels that need them are skipped, labelling goes on with the next edge",
			l->tty_name);
	else
		log_msg(LOG_WARNING, "WARNING: %s: kernel events lost: %" PRIu32 " %s missing from the sequence; labels that need them are skipped, labelling goes on with the next edge",
			l->tty_name, edges ? edges : sentences,
			edges ? "PPS edges" : "sentences");
}

/* The end of an episode of lost events, once none has come for a while. */
void live_loss_over(struct live *l, int64_t now)
{
	struct live_loss *s = &l->loss;

	if (!s->episode || now - s->last_ns < LIVE_LOSS_QUIET_NS)
		return;
	log_msg(LOG_NOTICE, "%s: events flow again after %.1f s of losses: %llu PPS edges and %llu sentences missing from the sequence, %lu socket overflows%s; if this recurs, see gpsphcd --status: many bad sentences mean a wrong --baud or a noisy line, many edges a noisy PPS wire",
		l->tty_name, (s->last_ns - s->start_ns) / 1e9, s->edges,
		s->sentences, s->overflows,
		s->overflows ? " (each loses an unknown number of events)" : "");
	*s = (struct live_loss){ 0 };
}

/*
 * The kernel numbers edges and sentences per device, +1 each: a jump
 * means lost events (a full socket, or the kernel's own edge queue).
 */
static void live_seq(struct live *l, bool pps, uint32_t seq)
{
	bool *have = pps ? &l->have_pps_seq : &l->have_sent_seq;
	uint32_t *last = pps ? &l->pps_seq : &l->sent_seq;
	uint32_t gap = seq - *last - 1;

	/* A step back (not expected) starts the count again. */
	if (*have && gap && gap < UINT32_MAX / 2)
		live_lost(l, false, pps ? gap : 0, pps ? 0 : gap);
	*have = true;
	*last = seq;
}

/*
 * An input's identity and the kernel's count of it, from its notification:
 * @second_attr is present when the servo counted it as a second.
 */
static struct pp_input live_input(uint32_t seq, uint64_t raw,
				  const struct nlattr *second_attr)
{
	return (struct pp_input){
		.t_ns = (int64_t)raw,
		.seq = seq,
		.counted = second_attr,
		.second = second_attr ? (int64_t)nla_get_u64(second_attr) : 0,
	};
}

static void live_pps(struct live *l, struct nlattr *nest)
{
	struct nlattr *tb[GPSPHC_A_PPS_MAX + 1];
	struct pp_input in;
	uint64_t real;
	bool assert;

	if (nla_parse_nested(tb, GPSPHC_A_PPS_MAX, nest, NULL) ||
	    !tb[GPSPHC_A_PPS_SEQ] || !tb[GPSPHC_A_PPS_RAW_NS] ||
	    !tb[GPSPHC_A_PPS_REAL_NS] || !tb[GPSPHC_A_PPS_EDGE])
		return;
	live_seq(l, true, nla_get_u32(tb[GPSPHC_A_PPS_SEQ]));
	l->adapter.edges++;
	in = live_input(nla_get_u32(tb[GPSPHC_A_PPS_SEQ]),
			nla_get_u64(tb[GPSPHC_A_PPS_RAW_NS]),
			tb[GPSPHC_A_PPS_SECOND]);
	real = nla_get_u64(tb[GPSPHC_A_PPS_REAL_NS]);
	assert = tb[GPSPHC_A_PPS_ASSERT];
	if (l->o->dump_events) {
		printf("pps dev=%" PRIu32 " seq=%" PRIu32 " edge=%s assert=%d raw_ns=%" PRId64 " real_ns=%" PRIu64,
		       l->dev_id, in.seq,
		       gp_enum_name(GP_ENUM_EDGE, nla_get_u32(tb[GPSPHC_A_PPS_EDGE])),
		       assert, in.t_ns, real);
		if (in.counted)
			printf(" second=%" PRId64, in.second);
		printf("\n");
	}
	if (!assert)
		return;
	l->metrics.dev.last_edge_real_ns = (int64_t)real;
	if (l->o->record)
		record_edge(l->o->record, &in);
	pipeline_edge(l->p, &in);
}

static void live_sentence(struct live *l, struct nlattr *nest)
{
	struct nlattr *tb[GPSPHC_A_SENT_MAX + 1];
	struct pp_input in;
	const char *data;
	uint32_t csum;
	int len;

	if (nla_parse_nested(tb, GPSPHC_A_SENT_MAX, nest, NULL) ||
	    !tb[GPSPHC_A_SENT_SEQ] || !tb[GPSPHC_A_SENT_RAW_NS] ||
	    !tb[GPSPHC_A_SENT_REAL_NS] || !tb[GPSPHC_A_SENT_DATA] ||
	    !tb[GPSPHC_A_SENT_CSUM])
		return;
	live_seq(l, false, nla_get_u32(tb[GPSPHC_A_SENT_SEQ]));
	in = live_input(nla_get_u32(tb[GPSPHC_A_SENT_SEQ]),
			nla_get_u64(tb[GPSPHC_A_SENT_RAW_NS]),
			tb[GPSPHC_A_SENT_SECOND]);
	csum = nla_get_u32(tb[GPSPHC_A_SENT_CSUM]);
	data = nla_data(tb[GPSPHC_A_SENT_DATA]);
	len = nla_len(tb[GPSPHC_A_SENT_DATA]);
	if (csum < GPSPHC_CSUM_OK || csum > GPSPHC_CSUM_MAX)
		return;
	if (l->o->dump_events) {
		printf("sentence dev=%" PRIu32 " seq=%" PRIu32 " csum=%s raw_ns=%" PRId64 " real_ns=%" PRIu64,
		       l->dev_id, in.seq, gp_enum_name(GP_ENUM_CSUM, csum),
		       in.t_ns, nla_get_u64(tb[GPSPHC_A_SENT_REAL_NS]));
		if (in.counted)
			printf(" second=%" PRId64, in.second);
		printf(" %.*s\n", len, data);
	}
	/* What the receiver sent, less what the line garbled. */
	if (l->o->nmea_pty && csum != GPSPHC_CSUM_BAD)
		nmea_pty_write(l->o->nmea_pty, data, (size_t)len);
	if (csum != GPSPHC_CSUM_OK)
		return;
	if (l->o->record)
		record_sentence(l->o->record, &in, data, (size_t)len);
	/* The kernel's framer checked the checksum: the pipeline takes its word. */
	pipeline_sentence(l->p, &in, data, (size_t)len, NMEA_OK);
}

/*
 * The kernel took a label that disagreed with its count (anyone's: this
 * gpsphcd's, held by its guard or not, or another writer's). The kernel
 * alone confirms a change of the count; this says what it decided.
 */
static void live_label_ntf(struct live *l, struct nlattr **dev)
{
	struct nlattr *tb[GPSPHC_A_TIME_MAX + 1], *seq;
	uint32_t confirmed, confirm_n;
	bool coarse;
	int64_t off;

	if (!dev[GPSPHC_A_DEV_TIME] || !dev[GPSPHC_A_DEV_CONFIRM_N] ||
	    nla_parse_nested(tb, GPSPHC_A_TIME_MAX, dev[GPSPHC_A_DEV_TIME], NULL) ||
	    !tb[GPSPHC_A_TIME_OFF_S] || !tb[GPSPHC_A_TIME_CONFIRMED] ||
	    !tb[GPSPHC_A_TIME_TAI_SEC])
		return;		/* a change of TAI - UTC: the labels say it */
	coarse = !tb[GPSPHC_A_TIME_EDGE_SEQ];
	seq = coarse ? tb[GPSPHC_A_TIME_SENTENCE_SEQ] : tb[GPSPHC_A_TIME_EDGE_SEQ];
	if (!seq)
		return;
	off = (int64_t)nla_get_u64(tb[GPSPHC_A_TIME_OFF_S]);
	confirmed = nla_get_u32(tb[GPSPHC_A_TIME_CONFIRMED]);
	confirm_n = nla_get_u32(dev[GPSPHC_A_DEV_CONFIRM_N]);
	if (confirmed < confirm_n)
		log_msg(LOG_WARNING, "%s: the kernel holds the label of %s %" PRIu32 " (TAI %" PRIu64 "), %+" PRId64 " s from its count: %" PRIu32 " of the %" PRIu32 " labels in a row that move the clock",
			l->tty_name, coarse ? "sentence" : "edge",
			nla_get_u32(seq), nla_get_u64(tb[GPSPHC_A_TIME_TAI_SEC]),
			off, confirmed, confirm_n);
	else
		log_msg(LOG_WARNING, "%s: the kernel moved its count by %+" PRId64 " s at %s %" PRIu32 " after %" PRIu32 " labels in a row: the clock stepped",
			l->tty_name, off, coarse ? "sentence" : "edge",
			nla_get_u32(seq), confirmed);
}

int live_event_cb(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[GPSPHC_A_DEV_MAX + 1];
	struct live *l = arg;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, GPSPHC_A_DEV_MAX, NULL) ||
	    !tb[GPSPHC_A_DEV_ID] || nla_get_u32(tb[GPSPHC_A_DEV_ID]) != l->dev_id)
		return NL_SKIP;
	if (gh->cmd == GPSPHC_CMD_PPS_NTF && tb[GPSPHC_A_DEV_PPS])
		live_pps(l, tb[GPSPHC_A_DEV_PPS]);
	else if (gh->cmd == GPSPHC_CMD_SENTENCE_NTF && tb[GPSPHC_A_DEV_SENTENCE])
		live_sentence(l, tb[GPSPHC_A_DEV_SENTENCE]);
	else if (gh->cmd == GPSPHC_CMD_STATE_NTF)
		live_state_ntf(l, tb[GPSPHC_A_DEV_SERVO]);
	else if (gh->cmd == GPSPHC_CMD_LABEL_NTF)
		live_label_ntf(l, tb);
	fflush(stdout);
	if (l->o->record)
		fflush(l->o->record);
	return NL_OK;
}

/*
 * Read what the events socket holds, LIVE_READ_MAX datagrams at most. An
 * overflow (ENOBUFS, which libnl calls NLE_NOMEM) shows as POLLERR, with
 * or without POLLIN, and reading is what clears it.
 */
void live_read_events(struct live *l)
{
	int i, err;

	for (i = 0; i < LIVE_READ_MAX; i++) {
		err = nl_recvmsgs_default(l->nl.sk);
		if (err == -NLE_AGAIN)
			return;
		if (err == -NLE_NOMEM)
			live_lost(l, true, 0, 0);
		else if (err < 0 && err != -NLE_INTR)
			log_msg(LOG_ERR, "reading events: %s", nl_geterror(err));
	}
}
