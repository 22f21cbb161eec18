// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_servo_status.c - the decoder of the kernel's servo nest
 * (servo_status.c) on nests built here with libnl, as the kernel builds
 * them: a full status and a minimal one read back exactly, attributes it
 * does not know ignored, malformed attributes (a u32 where a u64 belongs,
 * a flag with a payload, one cut short, ...) refused with what was wrong
 * and nothing read; then random statuses from fixed seeds, each read back
 * exactly as put, and random malformed ones, each refused.
 *
 * The types and the counters below are the spec's
 * (Documentation/netlink/specs/gpsphc.yaml, the servo set), written out
 * again here so that the decoder's tables are held against them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/msg.h>

/* The harness compares EXPECT_EQ(1, x) as written (as tools/testing/host). */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#include "linux/gpsphc.h"
#include "../servo_status.h"

#define BIT(a)	(UINT64_C(1) << (a))

enum kind { K_NONE, K_U32, K_U64, K_S64, K_FLAG, K_COUNTER };

/* The servo set by the spec: each attribute's type, counters apart. */
static const enum kind kinds[GPSPHC_A_SERVO_MAX + 1] = {
	[GPSPHC_A_SERVO_STATE] = K_U32,
	[GPSPHC_A_SERVO_OFFSET_NS] = K_S64,
	[GPSPHC_A_SERVO_RMS_NS] = K_U64,
	[GPSPHC_A_SERVO_FREQ_PPB] = K_S64,
	[GPSPHC_A_SERVO_TAI_UTC] = K_U32,
	[GPSPHC_A_SERVO_LEAP] = K_U32,
	[GPSPHC_A_SERVO_LEAP_UTC] = K_U64,
	[GPSPHC_A_SERVO_HOLDOVER_S] = K_U64,
	[GPSPHC_A_SERVO_COARSE] = K_FLAG,
	[GPSPHC_A_SERVO_LABELS] = K_COUNTER,
	[GPSPHC_A_SERVO_LABELS_REFUSED] = K_COUNTER,
	[GPSPHC_A_SERVO_DISAGREEMENTS] = K_COUNTER,
	[GPSPHC_A_SERVO_STEPS] = K_COUNTER,
	[GPSPHC_A_SERVO_OUTLIERS] = K_COUNTER,
	[GPSPHC_A_SERVO_SPURIOUS] = K_COUNTER,
	[GPSPHC_A_SERVO_RELOCKS] = K_COUNTER,
	[GPSPHC_A_SERVO_HOLDOVERS] = K_COUNTER,
	[GPSPHC_A_SERVO_OFF_PHASE_COUNT] = K_U32,
	[GPSPHC_A_SERVO_OFF_PHASE_NS] = K_S64,
	[GPSPHC_A_SERVO_REPHASES] = K_COUNTER,
};

/* The payload length of a @k. */
static int kind_len(enum kind k)
{
	return k == K_U32 ? 4 : k == K_FLAG ? 0 : 8;
}

/* Put attribute @a as the kernel does, its value @v cut to its type. */
static int put(struct nl_msg *m, int a, uint64_t v)
{
	switch (kinds[a]) {
	case K_U32:	return nla_put_u32(m, a, (uint32_t)v);
	case K_S64:	return nla_put_s64(m, a, (int64_t)v);
	case K_FLAG:	return nla_put_flag(m, a);
	default:	return nla_put_u64(m, a, v);
	}
}

/* What the decoder must make of attribute @a put with @v, into @want. */
static void expect_put(struct servo_status *want, int a, uint64_t v)
{
	want->present |= BIT(a);
	switch (a) {
	case GPSPHC_A_SERVO_STATE:
		want->state = (uint32_t)v;
		break;
	case GPSPHC_A_SERVO_OFFSET_NS:
		want->offset_ns = (int64_t)v;
		break;
	case GPSPHC_A_SERVO_RMS_NS:
		want->rms_ns = v;
		break;
	case GPSPHC_A_SERVO_FREQ_PPB:
		want->freq_ppb = (int64_t)v;
		break;
	case GPSPHC_A_SERVO_TAI_UTC:
		want->tai_utc = (uint32_t)v;
		break;
	case GPSPHC_A_SERVO_LEAP:
		want->leap = (uint32_t)v;
		break;
	case GPSPHC_A_SERVO_LEAP_UTC:
		want->leap_utc = v;
		break;
	case GPSPHC_A_SERVO_HOLDOVER_S:
		want->holdover_s = v;
		break;
	case GPSPHC_A_SERVO_COARSE:
		want->coarse = true;
		break;
	case GPSPHC_A_SERVO_OFF_PHASE_COUNT:
		want->off_phase_count = (uint32_t)v;
		break;
	case GPSPHC_A_SERVO_OFF_PHASE_NS:
		want->off_phase_ns = (int64_t)v;
		break;
	default:
		want->counters[a] = v;
		break;
	}
}

/* @got is @want, field by field (the struct has padding). */
static bool same(const struct servo_status *want, const struct servo_status *got)
{
	return want->present == got->present && want->state == got->state &&
	       want->offset_ns == got->offset_ns && want->rms_ns == got->rms_ns &&
	       want->freq_ppb == got->freq_ppb && want->tai_utc == got->tai_utc &&
	       want->leap == got->leap && want->leap_utc == got->leap_utc &&
	       want->holdover_s == got->holdover_s &&
	       want->coarse == got->coarse &&
	       want->off_phase_count == got->off_phase_count &&
	       want->off_phase_ns == got->off_phase_ns &&
	       !memcmp(want->counters, got->counters, sizeof(want->counters));
}

/* Nothing read: what a refusal leaves. */
static bool empty(const struct servo_status *s)
{
	struct servo_status none = { 0 };

	return same(&none, s);
}

/* A message with a servo nest open, and what the decoder makes of it. */
struct nest {
	struct nl_msg *m;
	struct nlattr *nest;
	struct servo_status s;
	char why[160];
};

static bool nest_open(struct nest *n)
{
	n->m = nlmsg_alloc();
	n->nest = n->m ? nla_nest_start(n->m, GPSPHC_A_DEV_SERVO) : NULL;
	memset(&n->s, 0xa5, sizeof(n->s));	/* all overwritten */
	strcpy(n->why, "untouched");
	return n->nest;
}

/* Close the nest and decode it. */
static int parse(struct nest *n)
{
	nla_nest_end_keep_empty(n->m, n->nest);
	return servo_status_parse(n->nest, &n->s, n->why, sizeof(n->why));
}

FIXTURE(nest) {
	struct nest n;
};

FIXTURE_SETUP(nest)
{
	ASSERT_TRUE(nest_open(&self->n));
}

FIXTURE_TEARDOWN(nest)
{
	nlmsg_free(self->n.m);
}

/* Every attribute, with the kernel's padding before a u64. */
TEST_F(nest, full_status_read_exactly)
{
	ASSERT_EQ(0, nla_put_u32(self->n.m, GPSPHC_A_SERVO_STATE, GPSPHC_SERVO_HOLDOVER));
	ASSERT_EQ(0, nla_put(self->n.m, GPSPHC_A_SERVO_PAD, 0, NULL));
	ASSERT_EQ(0, nla_put_s64(self->n.m, GPSPHC_A_SERVO_OFFSET_NS, -212));
	ASSERT_EQ(0, nla_put_u64(self->n.m, GPSPHC_A_SERVO_RMS_NS, 830));
	ASSERT_EQ(0, nla_put_s64(self->n.m, GPSPHC_A_SERVO_FREQ_PPB, -12457));
	ASSERT_EQ(0, nla_put_u32(self->n.m, GPSPHC_A_SERVO_TAI_UTC, 37));
	ASSERT_EQ(0, nla_put_u32(self->n.m, GPSPHC_A_SERVO_LEAP, GPSPHC_LEAP_INSERT));
	ASSERT_EQ(0, nla_put_u64(self->n.m, GPSPHC_A_SERVO_LEAP_UTC, 1483228800));
	ASSERT_EQ(0, nla_put_u64(self->n.m, GPSPHC_A_SERVO_HOLDOVER_S, UINT64_MAX));
	ASSERT_EQ(0, nla_put_flag(self->n.m, GPSPHC_A_SERVO_COARSE));
	ASSERT_EQ(0, nla_put_u64(self->n.m, GPSPHC_A_SERVO_LABELS, 3587));
	ASSERT_EQ(0, nla_put_u64(self->n.m, GPSPHC_A_SERVO_LABELS_REFUSED, 5));
	ASSERT_EQ(0, nla_put_u64(self->n.m, GPSPHC_A_SERVO_DISAGREEMENTS, 6));
	ASSERT_EQ(0, nla_put_u64(self->n.m, GPSPHC_A_SERVO_STEPS, 1));
	ASSERT_EQ(0, nla_put_u64(self->n.m, GPSPHC_A_SERVO_OUTLIERS, 7));
	ASSERT_EQ(0, nla_put_u64(self->n.m, GPSPHC_A_SERVO_SPURIOUS, 14));
	ASSERT_EQ(0, nla_put_u64(self->n.m, GPSPHC_A_SERVO_RELOCKS, 2));
	ASSERT_EQ(0, nla_put_u64(self->n.m, GPSPHC_A_SERVO_HOLDOVERS, 0x100000000ULL));
	ASSERT_EQ(0, nla_put_u32(self->n.m, GPSPHC_A_SERVO_OFF_PHASE_COUNT, 3));
	ASSERT_EQ(0, nla_put_s64(self->n.m, GPSPHC_A_SERVO_OFF_PHASE_NS, INT64_MIN));
	ASSERT_EQ(0, nla_put_u64(self->n.m, GPSPHC_A_SERVO_REPHASES, 4));
	ASSERT_EQ(0, parse(&self->n));
	EXPECT_STREQ("", self->n.why);
	/* every attribute but unspec: pad came too */
	EXPECT_EQ(BIT(GPSPHC_A_SERVO_MAX + 1) - 2, self->n.s.present);
	EXPECT_EQ(GPSPHC_SERVO_HOLDOVER, self->n.s.state);
	EXPECT_EQ(-212, self->n.s.offset_ns);
	EXPECT_EQ(830, self->n.s.rms_ns);
	EXPECT_EQ(-12457, self->n.s.freq_ppb);
	EXPECT_EQ(37, self->n.s.tai_utc);
	EXPECT_EQ(GPSPHC_LEAP_INSERT, self->n.s.leap);
	EXPECT_EQ(1483228800, self->n.s.leap_utc);
	EXPECT_EQ(UINT64_MAX, self->n.s.holdover_s);
	EXPECT_TRUE(self->n.s.coarse);
	EXPECT_EQ(3, self->n.s.off_phase_count);
	EXPECT_EQ(INT64_MIN, self->n.s.off_phase_ns);
	EXPECT_EQ(3587, self->n.s.counters[GPSPHC_A_SERVO_LABELS]);
	EXPECT_EQ(5, self->n.s.counters[GPSPHC_A_SERVO_LABELS_REFUSED]);
	EXPECT_EQ(6, self->n.s.counters[GPSPHC_A_SERVO_DISAGREEMENTS]);
	EXPECT_EQ(1, self->n.s.counters[GPSPHC_A_SERVO_STEPS]);
	EXPECT_EQ(7, self->n.s.counters[GPSPHC_A_SERVO_OUTLIERS]);
	EXPECT_EQ(14, self->n.s.counters[GPSPHC_A_SERVO_SPURIOUS]);
	EXPECT_EQ(2, self->n.s.counters[GPSPHC_A_SERVO_RELOCKS]);
	EXPECT_EQ(0x100000000ULL, self->n.s.counters[GPSPHC_A_SERVO_HOLDOVERS]);
	EXPECT_EQ(4, self->n.s.counters[GPSPHC_A_SERVO_REPHASES]);
	/* what is not a counter has no counter */
	for (int a = 0; a <= GPSPHC_A_SERVO_MAX; a++)
		if (kinds[a] != K_COUNTER)
			EXPECT_EQ(0, self->n.s.counters[a]);
}

/* A state alone (an older module's status): the rest reads 0. */
TEST_F(nest, minimal_status)
{
	struct servo_status want = { .present = BIT(GPSPHC_A_SERVO_STATE),
				     .state = GPSPHC_SERVO_UNLOCKED };

	ASSERT_EQ(0, nla_put_u32(self->n.m, GPSPHC_A_SERVO_STATE, GPSPHC_SERVO_UNLOCKED));
	ASSERT_EQ(0, parse(&self->n));
	EXPECT_TRUE(same(&want, &self->n.s));
	EXPECT_TRUE(servo_status_has(&self->n.s, GPSPHC_A_SERVO_STATE));
	EXPECT_FALSE(servo_status_has(&self->n.s, GPSPHC_A_SERVO_LEAP));
	EXPECT_FALSE(servo_status_has(&self->n.s, GPSPHC_A_SERVO_MAX + 1));
}

/* No nest (a module that sends none), or an empty one: an empty status. */
TEST_F(nest, no_nest_and_empty_nest)
{
	ASSERT_EQ(0, servo_status_parse(NULL, &self->n.s, self->n.why, sizeof(self->n.why)));
	EXPECT_TRUE(empty(&self->n.s));
	EXPECT_STREQ("", self->n.why);
	memset(&self->n.s, 0xa5, sizeof(self->n.s));
	ASSERT_EQ(0, parse(&self->n));
	EXPECT_TRUE(empty(&self->n.s));
	/* no room for a reason: still decoded */
	ASSERT_EQ(0, servo_status_parse(NULL, &self->n.s, NULL, 0));
}

/* A newer module's attributes, of any length: ignored, the rest read. */
TEST_F(nest, unknown_attributes_ignored)
{
	static const uint8_t junk[20] = { 1, 2, 3 };
	struct servo_status want = { 0 };

	ASSERT_EQ(0, nla_put_u32(self->n.m, GPSPHC_A_SERVO_MAX + 1, 5));
	ASSERT_EQ(0, nla_put_u32(self->n.m, GPSPHC_A_SERVO_STATE, GPSPHC_SERVO_LOCKED));
	ASSERT_EQ(0, nla_put(self->n.m, GPSPHC_A_SERVO_MAX + 7, 3, junk));
	ASSERT_EQ(0, nla_put_u64(self->n.m, GPSPHC_A_SERVO_RMS_NS, 99));
	ASSERT_EQ(0, nla_put(self->n.m, 200, sizeof(junk), junk));
	ASSERT_EQ(0, nla_put(self->n.m, 0x3fff, 0, NULL));
	expect_put(&want, GPSPHC_A_SERVO_STATE, GPSPHC_SERVO_LOCKED);
	expect_put(&want, GPSPHC_A_SERVO_RMS_NS, 99);
	ASSERT_EQ(0, parse(&self->n));
	EXPECT_TRUE(same(&want, &self->n.s));
}

/* One attribute of a length its type does not have, among good ones. */
FIXTURE(bad) {
	struct nest n;
};

FIXTURE_SETUP(bad)
{
	ASSERT_TRUE(nest_open(&self->n));
}

FIXTURE_TEARDOWN(bad)
{
	nlmsg_free(self->n.m);
}

FIXTURE_VARIANT(bad) {
	int attr;
	int len;
	const char *why;
};

FIXTURE_VARIANT_ADD(bad, u32_where_a_u64_belongs) {
	.attr = GPSPHC_A_SERVO_RMS_NS, .len = 4,
	.why = "attribute rms-ns (3) is 4 bytes long: a u64 takes 8",
};

FIXTURE_VARIANT_ADD(bad, u64_where_a_u32_belongs) {
	.attr = GPSPHC_A_SERVO_STATE, .len = 8,
	.why = "attribute state (1) is 8 bytes long: a u32 takes 4",
};

FIXTURE_VARIANT_ADD(bad, short_s64) {
	.attr = GPSPHC_A_SERVO_OFFSET_NS, .len = 2,
	.why = "attribute offset-ns (2) is 2 bytes long: an s64 takes 8",
};

FIXTURE_VARIANT_ADD(bad, empty_u32) {
	.attr = GPSPHC_A_SERVO_TAI_UTC, .len = 0,
	.why = "attribute tai-utc (5) is 0 bytes long: a u32 takes 4",
};

FIXTURE_VARIANT_ADD(bad, one_byte_counter) {
	.attr = GPSPHC_A_SERVO_REPHASES, .len = 1,
	.why = "attribute rephases (21) is 1 byte long: a u64 takes 8",
};

FIXTURE_VARIANT_ADD(bad, long_u64) {
	.attr = GPSPHC_A_SERVO_LEAP_UTC, .len = 12,
	.why = "attribute leap-utc (7) is 12 bytes long: a u64 takes 8",
};

FIXTURE_VARIANT_ADD(bad, flag_with_a_payload) {
	.attr = GPSPHC_A_SERVO_COARSE, .len = 4,
	.why = "attribute coarse (9) is 4 bytes long: a flag takes 0",
};

TEST_F(bad, malformed_attribute_refused)
{
	static const uint8_t bytes[16] = { 0xff, 0xff, 0xff, 0xff };

	ASSERT_EQ(0, nla_put_u32(self->n.m, GPSPHC_A_SERVO_STATE, GPSPHC_SERVO_LOCKED));
	ASSERT_EQ(0, nla_put_u64(self->n.m, GPSPHC_A_SERVO_STEPS, 3));
	ASSERT_EQ(0, nla_put(self->n.m, variant->attr, variant->len, bytes));
	ASSERT_EQ(0, nla_put_u32(self->n.m, GPSPHC_A_SERVO_LEAP, GPSPHC_LEAP_NONE));
	EXPECT_EQ(-NLE_RANGE, parse(&self->n));
	EXPECT_STREQ(variant->why, self->n.why);
	EXPECT_TRUE(empty(&self->n.s));
}

/* The nest ends inside its last attribute: refused, not read past. */
TEST_F(nest, attribute_cut_short_refused)
{
	ASSERT_EQ(0, nla_put_u32(self->n.m, GPSPHC_A_SERVO_STATE, GPSPHC_SERVO_LOCKED));
	ASSERT_EQ(0, nla_put_u64(self->n.m, GPSPHC_A_SERVO_RMS_NS, 830));
	nla_nest_end(self->n.m, self->n.nest);
	self->n.nest->nla_len -= 4;	/* the u64 is 12 bytes, 8 of them left */
	EXPECT_EQ(-NLE_RANGE, servo_status_parse(self->n.nest, &self->n.s, self->n.why,
						 sizeof(self->n.why)));
	EXPECT_STREQ("its last 8 bytes are not a whole attribute (one cut short)",
		     self->n.why);
	EXPECT_TRUE(empty(&self->n.s));
}

/* An attribute header shorter than a header: refused likewise. */
TEST_F(nest, header_too_short_refused)
{
	struct nlattr *a;

	ASSERT_EQ(0, nla_put_u32(self->n.m, GPSPHC_A_SERVO_STATE, GPSPHC_SERVO_LOCKED));
	a = nla_reserve(self->n.m, GPSPHC_A_SERVO_LEAP, 4);
	ASSERT_NE(NULL, a);
	a->nla_len = 2;
	EXPECT_EQ(-NLE_RANGE, parse(&self->n));
	EXPECT_STREQ("its last 8 bytes are not a whole attribute (one cut short)",
		     self->n.why);
	EXPECT_TRUE(empty(&self->n.s));
}

/* splitmix64: the explorer's numbers, from its seed alone. */
static uint64_t rnd(uint64_t *st)
{
	uint64_t z = (*st += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A value: small, an edge of a range, negative, or any 64 bits. */
static uint64_t rnd_value(uint64_t *st)
{
	static const uint64_t edges[] = {
		0, 1, UINT32_MAX, (uint64_t)UINT32_MAX + 1, INT64_MAX,
		(uint64_t)INT64_MIN, UINT64_MAX,
	};

	switch (rnd(st) % 4) {
	case 0:	return rnd(st) % 1000;
	case 1:	return edges[rnd(st) % ARRAY_SIZE(edges)];
	case 2:	return -(rnd(st) % 1000000000);
	default: return rnd(st);
	}
}

/*
 * A random status into @m: a random subset of the attributes in a random
 * order, random values, now and then the kernel's padding and a newer
 * module's attribute; what the decoder must read into @want. With @bad
 * not NULL, one typed attribute at a random place gets a length its type
 * does not have, and *@bad is that attribute.
 */
static int rnd_status(uint64_t *st, struct nl_msg *m, struct servo_status *want,
		      int *bad)
{
	int order[GPSPHC_A_SERVO_MAX], n = 0, i, j, t, len, wrong = 0;
	uint8_t junk[24];

	for (i = 1; i <= GPSPHC_A_SERVO_MAX; i++)
		if (kinds[i] != K_NONE)
			order[n++] = i;
	for (i = n - 1; i > 0; i--) {
		j = (int)(rnd(st) % (uint64_t)(i + 1));
		t = order[i], order[i] = order[j], order[j] = t;
	}
	if (bad) {
		*bad = order[rnd(st) % (uint64_t)n];
		wrong = (int)(rnd(st) % (uint64_t)n);
	}
	for (i = 0; i < (int)sizeof(junk); i++)
		junk[i] = (uint8_t)rnd(st);
	for (i = 0; i < n; i++) {
		uint64_t v = rnd_value(st);

		if (rnd(st) % 4 == 0) {
			if (nla_put(m, GPSPHC_A_SERVO_PAD, 0, NULL))
				return -1;
			want->present |= BIT(GPSPHC_A_SERVO_PAD);
		}
		if (rnd(st) % 8 == 0 &&
		    nla_put(m, GPSPHC_A_SERVO_MAX + 1 + (int)(rnd(st) % 64),
			    (int)(rnd(st) % sizeof(junk)), junk))
			return -1;
		if (bad && i == wrong) {
			/* any length 0..16 but its own */
			do
				len = (int)(rnd(st) % 17);
			while (len == kind_len(kinds[*bad]));
			if (nla_put(m, *bad, len, junk))
				return -1;
		}
		if (order[i] == (bad ? *bad : 0) || rnd(st) % 2)
			continue;
		if (put(m, order[i], v))
			return -1;
		expect_put(want, order[i], v);
	}
	return 0;
}

/* Seeds of the explorer: fixed, so that a failure comes again. */
static const uint64_t seeds[] = { 1, 27, 1588 };
#define ROUNDS	2000

/*
 * ROUNDS random statuses from each seed, well-formed, or (@malformed) each
 * with one attribute of a wrong length: how many the decoder got wrong,
 * the first few of them logged.
 */
static int explore(struct __test_metadata *_metadata, bool malformed)
{
	int round, bad = 0, wrong = 0;
	char name[64];

	for (size_t k = 0; k < ARRAY_SIZE(seeds); k++) {
		uint64_t st = seeds[k];

		for (round = 0; round < ROUNDS; round++) {
			struct servo_status want = { 0 };
			struct nest n;
			bool right;
			int ret = -1;

			if (nest_open(&n) &&
			    !rnd_status(&st, n.m, &want, malformed ? &bad : NULL))
				ret = parse(&n);
			if (!malformed) {
				right = !ret && same(&want, &n.s);
			} else {
				snprintf(name, sizeof(name), "attribute %s (%d) is ",
					 servo_status_attr_name((unsigned int)bad), bad);
				right = ret == -NLE_RANGE && empty(&n.s) &&
					!strncmp(n.why, name, strlen(name));
			}
			if (!right && wrong++ < 5)
				TH_LOG("seed %llu round %d (bad attribute %d): %d %s",
				       (unsigned long long)seeds[k], round, bad, ret,
				       n.why);
			nlmsg_free(n.m);
		}
	}
	return wrong;
}

TEST(random_statuses_read_exactly)
{
	EXPECT_EQ(0, explore(_metadata, false));
}

TEST(random_malformed_statuses_refused)
{
	EXPECT_EQ(0, explore(_metadata, true));
}

TEST_HARNESS_MAIN
