// SPDX-License-Identifier: GPL-2.0
/*
 * The gpsphc generic netlink family: DEV_GET (do by id or tty, dump),
 * DEV_SET, strict validation with an extended-ack message on every
 * rejection, and admin permission for DEV_SET only.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "gpsphc_test.h"
#include "nl_helpers.h"

#define PORT_A		0
#define PORT_B		2

FIXTURE(nl) {
	int fd_a, fd_b;
	int id_a, id_b;
	struct nlt_sock nl;
};

FIXTURE_SETUP(nl)
{
	int ret;

	self->nl.fd = -1;
	self->fd_a = sim_tty_open(PORT_A, O_NONBLOCK);
	ASSERT_LE(0, self->fd_a);
	self->fd_b = sim_tty_open(PORT_B, O_NONBLOCK);
	ASSERT_LE(0, self->fd_b);
	ASSERT_EQ(0, ldisc_set(self->fd_a, GPSPHC_LDISC));
	ASSERT_EQ(0, ldisc_set(self->fd_b, GPSPHC_LDISC));
	self->id_a = gpsphc_find("ttyGPSSIM0");
	self->id_b = gpsphc_find("ttyGPSSIM2");
	ASSERT_LE(0, self->id_a);
	ASSERT_LE(0, self->id_b);
	ret = nlt_open(&self->nl);
	ASSERT_EQ(0, ret) TH_LOG("genl family " GPSPHC_GENL_NAME ": %s", strerror(-ret));
}

FIXTURE_TEARDOWN(nl)
{
	nlt_close(&self->nl);
	if (self->fd_a >= 0) {
		ldisc_set(self->fd_a, N_TTY);
		close(self->fd_a);
	}
	if (self->fd_b >= 0) {
		ldisc_set(self->fd_b, N_TTY);
		close(self->fd_b);
	}
}

struct devs {
	int n;
	struct nlt_dev d[8];
	int bad_cmd;	/* replies with a command other than DEV_GET */
};

static void collect_dev(const struct nlmsghdr *nlh, void *arg)
{
	struct devs *ds = arg;

	if (nlt_genl_cmd(nlh) != GPSPHC_CMD_DEV_GET)
		ds->bad_cmd++;
	if (ds->n < 8)
		nlt_parse_dev(nlh, &ds->d[ds->n]);
	ds->n++;
}

/* The reply for device @id agrees with its sysfs files. */
static void check_dev(struct __test_metadata *_metadata, const struct nlt_dev *d,
		      int id, const char *tty)
{
	unsigned long long st[GPSPHC_NSTATS];
	char buf[32];
	int i;

	ASSERT_TRUE(d->has_id);
	EXPECT_EQ((uint32_t)id, d->id);
	ASSERT_TRUE(d->has_tty);
	EXPECT_STREQ(tty, d->tty);
	ASSERT_TRUE(d->has_pps_index);
	EXPECT_EQ((uint32_t)gpsphc_pps_index(id), d->pps_index);
	ASSERT_TRUE(d->has_edge);
	ASSERT_LT(0, gpsphc_attr_get(id, "edge", buf, sizeof(buf)));
	EXPECT_EQ(!strcmp(buf, "rising\n") ? GPSPHC_EDGE_RISING : GPSPHC_EDGE_FALLING,
		  d->edge);
	ASSERT_TRUE(d->has_stats);
	EXPECT_EQ(0, d->nstats_unknown);
	ASSERT_EQ(0, gpsphc_stats(id, st));
	for (i = 0; i < GPSPHC_NSTATS; i++) {
		EXPECT_TRUE(d->has_stat[i + 1]) TH_LOG("%s", gpsphc_stat_names[i]);
		EXPECT_EQ(st[i], d->stats[i + 1]) TH_LOG("%s", gpsphc_stat_names[i]);
	}
}

static int dev_get_id(struct nlt_sock *s, uint32_t id, struct devs *ds,
		      struct nlt_result *res)
{
	struct nlt_msg m;

	memset(ds, 0, sizeof(*ds));
	nlt_gpsphc_init(s, &m, GPSPHC_CMD_DEV_GET, 0);
	nlt_put_u32(&m, GPSPHC_A_DEV_ID, id);
	return nlt_request(s, &m, collect_dev, ds, res);
}

static int dev_set_edge(struct nlt_sock *s, uint32_t id, uint32_t edge,
			struct nlt_result *res)
{
	struct nlt_msg m;

	nlt_gpsphc_init(s, &m, GPSPHC_CMD_DEV_SET, 0);
	nlt_put_u32(&m, GPSPHC_A_DEV_ID, id);
	nlt_put_u32(&m, GPSPHC_A_DEV_EDGE, edge);
	return nlt_request(s, &m, NULL, NULL, res);
}

static void inject_some(void)
{
	static const char s[] =
		"$GPTXT,01,01,02,one*29\r\nnoise$GPTXT,no sum\r\n$GPTXT,x*00\r\n";

	sim_write(PORT_A, "rx", s, sizeof(s) - 1);
	sim_set(PORT_A, "dcd", "1");
	sim_set(PORT_A, "dcd", "0");
}

TEST_F(nl, family_and_group)
{
	EXPECT_NE(0, self->nl.family);
	EXPECT_NE(0, self->nl.events_grp);
}

TEST_F(nl, dev_get_by_id)
{
	struct nlt_result res;
	struct devs ds;
	int tries = 0;

	inject_some();
	/* Wait until the counters stop moving, then compare. */
	do {
		unsigned long long st[GPSPHC_NSTATS];

		usleep(100000);
		ASSERT_EQ(0, gpsphc_stats(self->id_a, st));
		if (st[ST_SENTENCES] == 3 && st[ST_PPS_EDGES] == 2)
			break;
	} while (++tries < 50);
	ASSERT_EQ(0, dev_get_id(&self->nl, self->id_a, &ds, &res));
	ASSERT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	ASSERT_EQ(1, ds.n);
	EXPECT_EQ(0, ds.bad_cmd);
	check_dev(_metadata, &ds.d[0], self->id_a, "ttyGPSSIM0");
	/* What inject_some() sent, counted. */
	EXPECT_EQ(3, ds.d[0].stats[GPSPHC_A_STATS_SENTENCES]);
	EXPECT_EQ(1, ds.d[0].stats[GPSPHC_A_STATS_CSUM_OK]);
	EXPECT_EQ(1, ds.d[0].stats[GPSPHC_A_STATS_CSUM_MISSING]);
	EXPECT_EQ(1, ds.d[0].stats[GPSPHC_A_STATS_CSUM_BAD]);
	EXPECT_EQ(5, ds.d[0].stats[GPSPHC_A_STATS_NOISE_BYTES]);
	EXPECT_EQ(2, ds.d[0].stats[GPSPHC_A_STATS_PPS_EDGES]);

	ASSERT_EQ(0, dev_get_id(&self->nl, self->id_b, &ds, &res));
	ASSERT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	ASSERT_EQ(1, ds.n);
	check_dev(_metadata, &ds.d[0], self->id_b, "ttyGPSSIM2");
	EXPECT_EQ(0, ds.d[0].stats[GPSPHC_A_STATS_SENTENCES]);
}

TEST_F(nl, dev_get_by_tty)
{
	struct nlt_result res;
	struct nlt_msg m;
	struct devs ds = { 0 };

	nlt_gpsphc_init(&self->nl, &m, GPSPHC_CMD_DEV_GET, 0);
	nlt_put_str(&m, GPSPHC_A_DEV_TTY, "ttyGPSSIM2");
	ASSERT_EQ(0, nlt_request(&self->nl, &m, collect_dev, &ds, &res));
	ASSERT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	ASSERT_EQ(1, ds.n);
	check_dev(_metadata, &ds.d[0], self->id_b, "ttyGPSSIM2");
}

/* One message per attached tty, each once, and nothing else. */
TEST_F(nl, dev_get_dump)
{
	struct nlt_result res;
	struct nlt_msg m;
	struct devs ds = { 0 };
	bool seen_a = false, seen_b = false;
	int i;

	nlt_gpsphc_init(&self->nl, &m, GPSPHC_CMD_DEV_GET, NLM_F_DUMP);
	ASSERT_EQ(0, nlt_request(&self->nl, &m, collect_dev, &ds, &res));
	ASSERT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	EXPECT_EQ(0, ds.bad_cmd);
	ASSERT_EQ(dir_entries(GPSPHC_CLASS), ds.n);
	ASSERT_EQ(2, ds.n);
	for (i = 0; i < ds.n; i++) {
		if (ds.d[i].id == (uint32_t)self->id_a) {
			EXPECT_FALSE(seen_a);
			seen_a = true;
			check_dev(_metadata, &ds.d[i], self->id_a, "ttyGPSSIM0");
		} else if (ds.d[i].id == (uint32_t)self->id_b) {
			EXPECT_FALSE(seen_b);
			seen_b = true;
			check_dev(_metadata, &ds.d[i], self->id_b, "ttyGPSSIM2");
		}
	}
	EXPECT_TRUE(seen_a);
	EXPECT_TRUE(seen_b);

	/* Detach one: the next dump has only the other. */
	ASSERT_EQ(0, ldisc_set(self->fd_b, N_TTY));
	memset(&ds, 0, sizeof(ds));
	nlt_gpsphc_init(&self->nl, &m, GPSPHC_CMD_DEV_GET, NLM_F_DUMP);
	ASSERT_EQ(0, nlt_request(&self->nl, &m, collect_dev, &ds, &res));
	ASSERT_EQ(0, res.err);
	ASSERT_EQ(1, ds.n);
	EXPECT_EQ((uint32_t)self->id_a, ds.d[0].id);
}

TEST_F(nl, dev_set_edge)
{
	struct nlt_result res;
	struct devs ds;
	char buf[32];

	ASSERT_EQ(0, dev_set_edge(&self->nl, self->id_a, GPSPHC_EDGE_FALLING, &res));
	ASSERT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	ASSERT_LT(0, gpsphc_attr_get(self->id_a, "edge", buf, sizeof(buf)));
	EXPECT_STREQ("falling\n", buf);
	ASSERT_EQ(0, dev_get_id(&self->nl, self->id_a, &ds, &res));
	EXPECT_EQ(GPSPHC_EDGE_FALLING, ds.d[0].edge);
	/* The other device is untouched. */
	ASSERT_LT(0, gpsphc_attr_get(self->id_b, "edge", buf, sizeof(buf)));
	EXPECT_STREQ("rising\n", buf);

	ASSERT_EQ(0, dev_set_edge(&self->nl, self->id_a, GPSPHC_EDGE_RISING, &res));
	ASSERT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	ASSERT_LT(0, gpsphc_attr_get(self->id_a, "edge", buf, sizeof(buf)));
	EXPECT_STREQ("rising\n", buf);
}

/* ---- refused requests ----------------------------------------------------- */

FIXTURE(refused) {
	FIXTURE_DATA(nl) n;
};

FIXTURE_VARIANT(refused) {
	uint8_t cmd;
	bool dump;
	void (*build)(struct nlt_msg *m, uint32_t id);
	int err;
	bool no_extack;	/* generic netlink's own refusals carry no message */
	uint16_t miss;	/* the required attribute reported missing, if any */
};

static void b_none(struct nlt_msg *m, uint32_t id)
{
	(void)m;
	(void)id;
}

static void b_id_u16(struct nlt_msg *m, uint32_t id)
{
	uint16_t v = id;

	nlt_put(m, GPSPHC_A_DEV_ID, &v, sizeof(v));
}

static void b_id_u64(struct nlt_msg *m, uint32_t id)
{
	uint64_t v = id;

	nlt_put(m, GPSPHC_A_DEV_ID, &v, sizeof(v));
}

static void b_id_empty(struct nlt_msg *m, uint32_t id)
{
	(void)id;
	nlt_put(m, GPSPHC_A_DEV_ID, NULL, 0);
}

static void b_tty_no_nul(struct nlt_msg *m, uint32_t id)
{
	(void)id;
	nlt_put(m, GPSPHC_A_DEV_TTY, "ttyGPSSIM0", 10);
}

static void b_tty_empty(struct nlt_msg *m, uint32_t id)
{
	(void)id;
	nlt_put(m, GPSPHC_A_DEV_TTY, NULL, 0);
}

static void b_id_and_tty(struct nlt_msg *m, uint32_t id)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	nlt_put_str(m, GPSPHC_A_DEV_TTY, "ttyGPSSIM0");
}

static void b_id_999(struct nlt_msg *m, uint32_t id)
{
	(void)id;
	nlt_put_u32(m, GPSPHC_A_DEV_ID, 999);
}

static void b_tty_unknown(struct nlt_msg *m, uint32_t id)
{
	(void)id;
	nlt_put_str(m, GPSPHC_A_DEV_TTY, "ttyS99");
}

/* A real tty, but without the discipline. */
static void b_tty_not_attached(struct nlt_msg *m, uint32_t id)
{
	(void)id;
	nlt_put_str(m, GPSPHC_A_DEV_TTY, "ttyGPSSIM1");
}

static void b_id_unknown_attr(struct nlt_msg *m, uint32_t id)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	nlt_put_u32(m, GPSPHC_A_DEV_MAX + 1, 1);
}

static void b_id_attr_100(struct nlt_msg *m, uint32_t id)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	nlt_put_u32(m, 100, 1);
}

/* Reply-only attributes are unknown to a request. */
static void b_id_pps_index(struct nlt_msg *m, uint32_t id)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	nlt_put_u32(m, GPSPHC_A_DEV_PPS_INDEX, 0);
}

static void b_id_stats(struct nlt_msg *m, uint32_t id)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	nlt_nest_start(m, GPSPHC_A_DEV_STATS);
	nlt_put(m, GPSPHC_A_STATS_SENTENCES, &(uint64_t){ 0 }, 8);
	nlt_nest_end(m);
}

/* DEV_GET takes no edge. */
static void b_id_edge(struct nlt_msg *m, uint32_t id)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	nlt_put_u32(m, GPSPHC_A_DEV_EDGE, GPSPHC_EDGE_RISING);
}

/* DEV_SET requests; each would set the edge to rising if it got through. */
static void b_edge_only(struct nlt_msg *m, uint32_t id)
{
	(void)id;
	nlt_put_u32(m, GPSPHC_A_DEV_EDGE, GPSPHC_EDGE_RISING);
}

static void b_tty_edge(struct nlt_msg *m, uint32_t id)
{
	(void)id;
	nlt_put_str(m, GPSPHC_A_DEV_TTY, "ttyGPSSIM0");
	nlt_put_u32(m, GPSPHC_A_DEV_EDGE, GPSPHC_EDGE_RISING);
}

static void b_edge_0(struct nlt_msg *m, uint32_t id)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	nlt_put_u32(m, GPSPHC_A_DEV_EDGE, 0);
}

static void b_edge_3(struct nlt_msg *m, uint32_t id)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	nlt_put_u32(m, GPSPHC_A_DEV_EDGE, GPSPHC_EDGE_MAX + 1);
}

static void b_edge_max(struct nlt_msg *m, uint32_t id)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	nlt_put_u32(m, GPSPHC_A_DEV_EDGE, 0xffffffff);
}

static void b_edge_u8(struct nlt_msg *m, uint32_t id)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	nlt_put(m, GPSPHC_A_DEV_EDGE, &(uint8_t){ GPSPHC_EDGE_RISING }, 1);
}

static void b_edge_u64(struct nlt_msg *m, uint32_t id)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	nlt_put(m, GPSPHC_A_DEV_EDGE, &(uint64_t){ GPSPHC_EDGE_RISING }, 8);
}

static void b_edge_id_u16(struct nlt_msg *m, uint32_t id)
{
	b_id_u16(m, id);
	nlt_put_u32(m, GPSPHC_A_DEV_EDGE, GPSPHC_EDGE_RISING);
}

static void b_edge_id_999(struct nlt_msg *m, uint32_t id)
{
	b_id_999(m, id);
	nlt_put_u32(m, GPSPHC_A_DEV_EDGE, GPSPHC_EDGE_RISING);
}

static void b_edge_unknown_attr(struct nlt_msg *m, uint32_t id)
{
	b_id_unknown_attr(m, id);
	nlt_put_u32(m, GPSPHC_A_DEV_EDGE, GPSPHC_EDGE_RISING);
}

/* A good edge and then a bad attribute: nothing at all is applied. */
static void b_edge_then_bad(struct nlt_msg *m, uint32_t id)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	nlt_put_u32(m, GPSPHC_A_DEV_EDGE, GPSPHC_EDGE_RISING);
	nlt_put_u32(m, GPSPHC_A_DEV_PPS_INDEX, 0);
}

static void b_edge_tty_too(struct nlt_msg *m, uint32_t id)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	nlt_put_u32(m, GPSPHC_A_DEV_EDGE, GPSPHC_EDGE_RISING);
	nlt_put_str(m, GPSPHC_A_DEV_TTY, "ttyGPSSIM0");
}

static void b_edge_stats(struct nlt_msg *m, uint32_t id)
{
	b_id_stats(m, id);
	nlt_put_u32(m, GPSPHC_A_DEV_EDGE, GPSPHC_EDGE_RISING);
}

#define GET(name, fn, e) \
	FIXTURE_VARIANT_ADD(refused, get_##name) { \
		.cmd = GPSPHC_CMD_DEV_GET, .build = fn, .err = e }
#define SET(name, fn, e) \
	FIXTURE_VARIANT_ADD(refused, set_##name) { \
		.cmd = GPSPHC_CMD_DEV_SET, .build = fn, .err = e }

GET(missing_id_and_tty, b_none, EINVAL);
GET(id_u16, b_id_u16, EINVAL);
GET(id_u64, b_id_u64, EINVAL);
GET(id_empty, b_id_empty, EINVAL);
GET(tty_without_nul, b_tty_no_nul, EINVAL);
GET(tty_empty, b_tty_empty, EINVAL);
GET(id_and_tty, b_id_and_tty, EINVAL);
GET(id_unknown, b_id_999, ENODEV);
GET(tty_unknown, b_tty_unknown, ENODEV);
GET(tty_not_attached, b_tty_not_attached, ENODEV);
GET(unknown_attr, b_id_unknown_attr, EINVAL);
GET(unknown_attr_100, b_id_attr_100, EINVAL);
GET(reply_attr_pps_index, b_id_pps_index, EINVAL);
GET(reply_attr_stats, b_id_stats, EINVAL);
GET(edge_attr, b_id_edge, EINVAL);

/* Missing ID: reported as NLMSGERR_ATTR_MISS_TYPE, and in words. */
FIXTURE_VARIANT_ADD(refused, set_no_attrs) {
	.cmd = GPSPHC_CMD_DEV_SET, .build = b_none, .err = EINVAL,
	.miss = GPSPHC_A_DEV_ID,
};

FIXTURE_VARIANT_ADD(refused, set_missing_id) {
	.cmd = GPSPHC_CMD_DEV_SET, .build = b_edge_only, .err = EINVAL,
	.miss = GPSPHC_A_DEV_ID,
};

SET(tty_instead_of_id, b_tty_edge, EINVAL);
/* NLA_POLICY_RANGE refuses with ERANGE, as every range policy does. */
SET(edge_0, b_edge_0, ERANGE);
SET(edge_3, b_edge_3, ERANGE);
SET(edge_u32_max, b_edge_max, ERANGE);
SET(edge_u8, b_edge_u8, EINVAL);
SET(edge_u64, b_edge_u64, EINVAL);
SET(id_u16, b_edge_id_u16, EINVAL);
SET(id_unknown, b_edge_id_999, ENODEV);
SET(unknown_attr, b_edge_unknown_attr, EINVAL);
SET(reply_attr_after_edge, b_edge_then_bad, EINVAL);
SET(tty_with_id, b_edge_tty_too, EINVAL);
SET(reply_attr_stats, b_edge_stats, EINVAL);

FIXTURE_VARIANT_ADD(refused, dump_unknown_attr) {
	.cmd = GPSPHC_CMD_DEV_GET, .dump = true, .build = b_id_attr_100,
	.err = EINVAL,
};

/* Commands nobody may send: notifications, and numbers past the last. */
FIXTURE_VARIANT_ADD(refused, cmd_pps_ntf) {
	.cmd = GPSPHC_CMD_PPS_NTF, .build = b_id_edge, .err = EOPNOTSUPP,
	.no_extack = true,
};

FIXTURE_VARIANT_ADD(refused, cmd_sentence_ntf) {
	.cmd = GPSPHC_CMD_SENTENCE_NTF, .build = b_id_edge, .err = EOPNOTSUPP,
	.no_extack = true,
};

FIXTURE_VARIANT_ADD(refused, cmd_past_max) {
	.cmd = GPSPHC_CMD_MAX + 1, .build = b_id_edge, .err = EOPNOTSUPP,
	.no_extack = true,
};

FIXTURE_VARIANT_ADD(refused, cmd_unspec) {
	.cmd = GPSPHC_CMD_UNSPEC, .build = b_id_edge, .err = EOPNOTSUPP,
	.no_extack = true,
};

FIXTURE_SETUP(refused)
{
	struct nlt_result res;

	self->n.nl.fd = -1;
	self->n.fd_a = sim_tty_open(PORT_A, O_NONBLOCK);
	ASSERT_LE(0, self->n.fd_a);
	ASSERT_EQ(0, ldisc_set(self->n.fd_a, GPSPHC_LDISC));
	self->n.fd_b = -1;
	self->n.id_a = gpsphc_find("ttyGPSSIM0");
	ASSERT_LE(0, self->n.id_a);
	ASSERT_EQ(0, nlt_open(&self->n.nl));
	/* Not the default: a refused DEV_SET would set it back to rising. */
	ASSERT_EQ(0, dev_set_edge(&self->n.nl, self->n.id_a, GPSPHC_EDGE_FALLING, &res));
	ASSERT_EQ(0, res.err);
}

FIXTURE_TEARDOWN(refused)
{
	nlt_close(&self->n.nl);
	if (self->n.fd_a >= 0) {
		ldisc_set(self->n.fd_a, N_TTY);
		close(self->n.fd_a);
	}
}

TEST_F(refused, with_errno_and_message_changing_nothing)
{
	struct nlt_result res;
	struct nlt_msg m;
	struct devs ds = { 0 };
	char buf[32];

	nlt_gpsphc_init(&self->n.nl, &m, variant->cmd, variant->dump ? NLM_F_DUMP : 0);
	variant->build(&m, self->n.id_a);
	ASSERT_EQ(0, nlt_request(&self->n.nl, &m, collect_dev, &ds, &res));
	EXPECT_EQ(variant->err, res.err) TH_LOG("got %s (%s)", strerror(res.err),
						res.ext_msg);
	EXPECT_EQ(0, ds.n) TH_LOG("a refused request got a reply");
	if (!variant->no_extack)
		EXPECT_NE(0, strlen(res.ext_msg)) TH_LOG("no extack message");
	if (variant->miss) {
		EXPECT_TRUE(res.has_miss) TH_LOG("no NLMSGERR_ATTR_MISS_TYPE");
		EXPECT_EQ(variant->miss, res.miss_type);
	}
	TH_LOG("%s: \"%s\"%s%s", strerror(res.err), res.ext_msg,
	       res.has_offs ? " (points at an attribute)" : "",
	       res.has_miss ? " (names a missing attribute)" : "");

	ASSERT_LT(0, gpsphc_attr_get(self->n.id_a, "edge", buf, sizeof(buf)));
	EXPECT_STREQ("falling\n", buf);
}

/* ---- permissions ------------------------------------------------------------- */

/*
 * In a child that dropped root (and with it every capability): DEV_GET
 * works and DEV_SET is EPERM, refused by generic netlink for the spec's
 * admin-perm flag (so without a message of the family's; phc_test checks
 * the CAP_SYS_TIME refusals, which have one). Exit code: bit per failure.
 */
static int unprivileged(uint32_t id)
{
	struct nlt_result res;
	struct nlt_sock s;
	struct devs ds;
	int fails = 0;

	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return 0x80;
	if (nlt_open(&s))
		return 0x40;
	if (dev_get_id(&s, id, &ds, &res) || res.err || ds.n != 1 ||
	    ds.d[0].id != id || strcmp(ds.d[0].tty, "ttyGPSSIM0"))
		fails |= 1;
	if (dev_set_edge(&s, id, GPSPHC_EDGE_FALLING, &res) || res.err != EPERM)
		fails |= 2;
	/* Even a malformed DEV_SET tells an unprivileged caller nothing else. */
	if (dev_set_edge(&s, 999, GPSPHC_EDGE_FALLING, &res) || res.err != EPERM)
		fails |= 8;
	/* Events carry every sentence (the position): CAP_NET_ADMIN only. */
	if (nlt_subscribe(&s) != -EPERM)
		fails |= 16;
	nlt_close(&s);
	return fails;
}

TEST_F(nl, unprivileged_get_works_set_is_eperm)
{
	char buf[32];
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(unprivileged(self->id_a));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status) & 0xc0) TH_LOG("child set-up failed");
	EXPECT_EQ(0, WEXITSTATUS(status) & 1) TH_LOG("unprivileged DEV_GET failed");
	EXPECT_EQ(0, WEXITSTATUS(status) & 2) TH_LOG("unprivileged DEV_SET not EPERM");
	EXPECT_EQ(0, WEXITSTATUS(status) & 8) TH_LOG("unknown id not EPERM first");
	EXPECT_EQ(0, WEXITSTATUS(status) & 16) TH_LOG("unprivileged events subscription not EPERM");
	ASSERT_LT(0, gpsphc_attr_get(self->id_a, "edge", buf, sizeof(buf)));
	EXPECT_STREQ("rising\n", buf);
}

/* Events from several devices carry each its own id. */
TEST_F(nl, events_name_their_device)
{
	struct nlt_events *q = calloc(1, sizeof(*q));
	int i, na = 0, nb = 0;

	ASSERT_NE(NULL, q);
	ASSERT_EQ(0, nlt_subscribe(&self->nl));
	ASSERT_EQ(0, sim_set(PORT_A, "dcd", "1"));
	ASSERT_EQ(0, sim_set(PORT_B, "dcd", "1"));
	ASSERT_EQ(0, sim_set(PORT_B, "dcd", "0"));
	ASSERT_EQ(0, sim_set(PORT_A, "dcd", "0"));
	nlt_events_wait(&self->nl, q, -1, NULL, NULL, 500);
	for (i = 0; i < q->n; i++) {
		EXPECT_EQ(GPSPHC_CMD_PPS_NTF, q->ev[i].cmd);
		na += q->ev[i].dev_id == (uint32_t)self->id_a;
		nb += q->ev[i].dev_id == (uint32_t)self->id_b;
	}
	EXPECT_EQ(2, na);
	EXPECT_EQ(2, nb);
	EXPECT_EQ(4, q->n);
	nlt_events_free(q);
	free(q);
}

TEST_HARNESS_MAIN
