// SPDX-License-Identifier: GPL-2.0-only
/* servo_status.c - the kernel's servo nest, decoded: see servo_status.h. */
#include <stdio.h>

#include <netlink/attr.h>
#include <netlink/errno.h>

#include "names.h"
#include "servo_status.h"

/*
 * The servo set's types, from the spec (tests/test_names.py holds them
 * against it), each with its exact length: [minlen, maxlen].
 * servo_status_check() refuses any other, naming the attribute;
 * nla_parse_nested() checks the same again, except the flag's none (it
 * reads a maxlen of 0 as no limit).
 */
#define SV_U32	{ .type = NLA_U32, .minlen = 4, .maxlen = 4 }
#define SV_U64	{ .type = NLA_U64, .minlen = 8, .maxlen = 8 }
#define SV_S64	{ .type = NLA_S64, .minlen = 8, .maxlen = 8 }
#define SV_FLAG	{ .type = NLA_FLAG }

static const struct nla_policy servo_policy[GPSPHC_A_SERVO_MAX + 1] = {
	[GPSPHC_A_SERVO_STATE] = SV_U32,
	[GPSPHC_A_SERVO_OFFSET_NS] = SV_S64,
	[GPSPHC_A_SERVO_RMS_NS] = SV_U64,
	[GPSPHC_A_SERVO_FREQ_PPB] = SV_S64,
	[GPSPHC_A_SERVO_TAI_UTC] = SV_U32,
	[GPSPHC_A_SERVO_LEAP] = SV_U32,
	[GPSPHC_A_SERVO_LEAP_UTC] = SV_U64,
	[GPSPHC_A_SERVO_HOLDOVER_S] = SV_U64,
	[GPSPHC_A_SERVO_COARSE] = SV_FLAG,
	[GPSPHC_A_SERVO_LABELS] = SV_U64,
	[GPSPHC_A_SERVO_LABELS_REFUSED] = SV_U64,
	[GPSPHC_A_SERVO_DISAGREEMENTS] = SV_U64,
	[GPSPHC_A_SERVO_STEPS] = SV_U64,
	[GPSPHC_A_SERVO_OUTLIERS] = SV_U64,
	/* GPSPHC_A_SERVO_PAD: alignment, NLA_UNSPEC, never read */
	[GPSPHC_A_SERVO_SPURIOUS] = SV_U64,
	[GPSPHC_A_SERVO_RELOCKS] = SV_U64,
	[GPSPHC_A_SERVO_HOLDOVERS] = SV_U64,
	[GPSPHC_A_SERVO_OFF_PHASE_COUNT] = SV_U32,
	[GPSPHC_A_SERVO_OFF_PHASE_NS] = SV_S64,
	[GPSPHC_A_SERVO_REPHASES] = SV_U64,
};

/* The spec's attribute names, for what a refusal says. */
static const char *const servo_attr_names[GPSPHC_A_SERVO_MAX + 1] = {
	[GPSPHC_A_SERVO_STATE] = "state",
	[GPSPHC_A_SERVO_OFFSET_NS] = "offset-ns",
	[GPSPHC_A_SERVO_RMS_NS] = "rms-ns",
	[GPSPHC_A_SERVO_FREQ_PPB] = "freq-ppb",
	[GPSPHC_A_SERVO_TAI_UTC] = "tai-utc",
	[GPSPHC_A_SERVO_LEAP] = "leap",
	[GPSPHC_A_SERVO_LEAP_UTC] = "leap-utc",
	[GPSPHC_A_SERVO_HOLDOVER_S] = "holdover-s",
	[GPSPHC_A_SERVO_COARSE] = "coarse",
	[GPSPHC_A_SERVO_LABELS] = "labels",
	[GPSPHC_A_SERVO_LABELS_REFUSED] = "labels-refused",
	[GPSPHC_A_SERVO_DISAGREEMENTS] = "disagreements",
	[GPSPHC_A_SERVO_STEPS] = "steps",
	[GPSPHC_A_SERVO_OUTLIERS] = "outliers",
	[GPSPHC_A_SERVO_PAD] = "pad",
	[GPSPHC_A_SERVO_SPURIOUS] = "spurious",
	[GPSPHC_A_SERVO_RELOCKS] = "relocks",
	[GPSPHC_A_SERVO_HOLDOVERS] = "holdovers",
	[GPSPHC_A_SERVO_OFF_PHASE_COUNT] = "off-phase-count",
	[GPSPHC_A_SERVO_OFF_PHASE_NS] = "off-phase-ns",
	[GPSPHC_A_SERVO_REPHASES] = "rephases",
};

const char *servo_status_attr_name(unsigned int attr)
{
	return attr <= GPSPHC_A_SERVO_MAX ? servo_attr_names[attr] : NULL;
}

/* The type of policy entry @p in words, for a refusal. */
static const char *servo_type_name(const struct nla_policy *p)
{
	switch (p->type) {
	case NLA_U32:	return "a u32";
	case NLA_U64:	return "a u64";
	case NLA_S64:	return "an s64";
	case NLA_FLAG:	return "a flag";
	default:	return "this attribute";
	}
}

/*
 * Every attribute of @nest that the policy types has its type's length,
 * and the nest ends with its last whole attribute: 0, or -NLE_RANGE with
 * the first thing wrong in @why.
 */
static int servo_status_check(struct nlattr *nest, char *why, size_t size)
{
	const struct nla_policy *p;
	struct nlattr *a;
	int rem, type, len;

	nla_for_each_nested(a, nest, rem) {
		type = nla_type(a);
		if (type > GPSPHC_A_SERVO_MAX)
			continue;	/* a newer module's: not ours to read */
		p = &servo_policy[type];
		len = nla_len(a);
		if (p->type == NLA_UNSPEC || (len >= p->minlen && len <= p->maxlen))
			continue;
		snprintf(why, size, "attribute %s (%d) is %d byte%s long: %s takes %u",
			 servo_attr_names[type] ? servo_attr_names[type] : "?",
			 type, len, len == 1 ? "" : "s", servo_type_name(p),
			 p->maxlen);
		return -NLE_RANGE;
	}
	if (rem > 0) {
		snprintf(why, size, "its last %d bytes are not a whole attribute (one cut short)",
			 rem);
		return -NLE_RANGE;
	}
	return 0;
}

static uint32_t sv_u32(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_u32(tb[attr]) : 0;
}

static uint64_t sv_u64(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_u64(tb[attr]) : 0;
}

static int64_t sv_s64(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_s64(tb[attr]) : 0;
}

int servo_status_parse(struct nlattr *nest, struct servo_status *s,
		       char *why, size_t size)
{
	struct nlattr *tb[GPSPHC_A_SERVO_MAX + 1];
	unsigned int i;
	int err;

	*s = (struct servo_status){ 0 };
	if (size)
		why[0] = '\0';
	if (!nest)
		return 0;
	err = servo_status_check(nest, why, size);
	if (!err)
		err = nla_parse_nested(tb, GPSPHC_A_SERVO_MAX, nest, servo_policy);
	if (err) {
		if (size && !why[0])
			snprintf(why, size, "%s", nl_geterror(err));
		return err;
	}
	for (i = 0; i <= GPSPHC_A_SERVO_MAX; i++)
		if (tb[i])
			s->present |= UINT64_C(1) << i;
	s->state = sv_u32(tb, GPSPHC_A_SERVO_STATE);
	s->offset_ns = sv_s64(tb, GPSPHC_A_SERVO_OFFSET_NS);
	s->rms_ns = sv_u64(tb, GPSPHC_A_SERVO_RMS_NS);
	s->freq_ppb = sv_s64(tb, GPSPHC_A_SERVO_FREQ_PPB);
	s->tai_utc = sv_u32(tb, GPSPHC_A_SERVO_TAI_UTC);
	s->leap = sv_u32(tb, GPSPHC_A_SERVO_LEAP);
	s->leap_utc = sv_u64(tb, GPSPHC_A_SERVO_LEAP_UTC);
	s->holdover_s = sv_u64(tb, GPSPHC_A_SERVO_HOLDOVER_S);
	s->coarse = tb[GPSPHC_A_SERVO_COARSE] != NULL;
	s->off_phase_count = sv_u32(tb, GPSPHC_A_SERVO_OFF_PHASE_COUNT);
	s->off_phase_ns = sv_s64(tb, GPSPHC_A_SERVO_OFF_PHASE_NS);
	/* a counter the policy does not type as a u64 is never read */
	for (i = 0; i <= GPSPHC_A_SERVO_MAX; i++)
		if (gp_servo_counter_key(i) && servo_policy[i].type == NLA_U64)
			s->counters[i] = sv_u64(tb, (int)i);
	return 0;
}
