// SPDX-License-Identifier: GPL-2.0-only
/* test_assoc_guard.c - edge association and the anti-warp guard. */
#include <stdint.h>

#include "kselftest_harness.h"

#include "assoc.h"
#include "guard.h"

#define MS 1000000LL
#define S 1000000000LL

FIXTURE(assoc) {
	struct assoc_cfg c;
	struct gp_err e;
	int64_t edge, delay;
};

FIXTURE_VARIANT(assoc) {
	int64_t offset_ms;	/* receiver offset */
	int64_t prev_ns;	/* last edge at or before t - offset */
	int64_t t_ns;		/* sentence */
	int want;
	int64_t want_delay_ms;
};

FIXTURE_SETUP(assoc)
{
	assoc_defaults(&self->c);
	self->c.offset_ns = variant->offset_ms * MS;
	ASSERT_EQ(ASSOC_OK, assoc_check_cfg(&self->c, &self->e));
	self->edge = -1;
}

FIXTURE_TEARDOWN(assoc) {}

FIXTURE_VARIANT_ADD(assoc, in_window_120ms) {
	.prev_ns = 10 * S, .t_ns = 10 * S + 120 * MS, .want = ASSOC_OK,
	.want_delay_ms = 120,
};
FIXTURE_VARIANT_ADD(assoc, at_edge_0ms) {
	.prev_ns = 10 * S, .t_ns = 10 * S, .want = ASSOC_OK,
};
FIXTURE_VARIANT_ADD(assoc, last_ns_of_window) {
	.prev_ns = 10 * S, .t_ns = 10 * S + 400 * MS - 1, .want = ASSOC_OK,
	.want_delay_ms = 399,
};
FIXTURE_VARIANT_ADD(assoc, window_end_400ms) {
	.prev_ns = 10 * S, .t_ns = 10 * S + 400 * MS, .want = ASSOC_E_NO_EDGE,
	.want_delay_ms = 400,
};
FIXTURE_VARIANT_ADD(assoc, ambiguous_401ms) {
	.prev_ns = 10 * S, .t_ns = 10 * S + 401 * MS,
	.want = ASSOC_E_AMBIGUOUS, .want_delay_ms = 401,
};
FIXTURE_VARIANT_ADD(assoc, ambiguous_500ms) {
	.prev_ns = 10 * S, .t_ns = 10 * S + 500 * MS,
	.want = ASSOC_E_AMBIGUOUS, .want_delay_ms = 500,
};
FIXTURE_VARIANT_ADD(assoc, ambiguous_599ms) {
	.prev_ns = 10 * S, .t_ns = 10 * S + 599 * MS,
	.want = ASSOC_E_AMBIGUOUS, .want_delay_ms = 599,
};
FIXTURE_VARIANT_ADD(assoc, late_700ms_no_edge) {
	.prev_ns = 10 * S, .t_ns = 10 * S + 700 * MS,
	.want = ASSOC_E_NO_EDGE, .want_delay_ms = 700,
};
FIXTURE_VARIANT_ADD(assoc, missing_edge_1100ms) {
	.prev_ns = 10 * S, .t_ns = 11 * S + 100 * MS,
	.want = ASSOC_E_NO_EDGE, .want_delay_ms = 1100,
};
FIXTURE_VARIANT_ADD(assoc, no_edge_yet) {
	.prev_ns = INT64_MIN, .t_ns = 10 * S, .want = ASSOC_E_NO_EDGE,
	.want_delay_ms = INT64_MAX / MS,
};
/* a receiver that sends its sentence 300 ms before the edge it describes:
 * offset -600 ms puts that edge 300 ms into the window */
FIXTURE_VARIANT_ADD(assoc, negative_offset_sentence_before_edge) {
	.offset_ms = -600, .prev_ns = 10 * S + 300 * MS, .t_ns = 10 * S,
	.want = ASSOC_OK, .want_delay_ms = 300,
};
/* the edge after t - offset is never taken */
FIXTURE_VARIANT_ADD(assoc, edge_after_sentence) {
	.prev_ns = 10 * S + 1, .t_ns = 10 * S, .want = ASSOC_E_NO_EDGE,
	.want_delay_ms = INT64_MAX / MS,
};

TEST_F(assoc, decides)
{
	int r = assoc_pick(&self->c, variant->t_ns, variant->prev_ns,
			   &self->edge, &self->delay, &self->e);

	EXPECT_EQ(variant->want, r) TH_LOG("%s", self->e.msg);
	EXPECT_EQ(variant->want_delay_ms, self->delay / MS);
	if (variant->want == ASSOC_OK) {
		EXPECT_EQ(variant->prev_ns, self->edge);
	} else {
		EXPECT_EQ(-1, self->edge);
		EXPECT_NE('\0', self->e.msg[0]);
	}
}

TEST(assoc_config_checked)
{
	struct assoc_cfg c;
	struct gp_err e;

	assoc_defaults(&c);
	c.window_ns = 0;
	EXPECT_EQ(ASSOC_E_CONFIG, assoc_check_cfg(&c, &e));
	assoc_defaults(&c);
	c.margin_ns = 500 * MS;
	EXPECT_EQ(ASSOC_E_CONFIG, assoc_check_cfg(&c, &e));
	assoc_defaults(&c);
	c.offset_ns = -S;
	EXPECT_EQ(ASSOC_E_CONFIG, assoc_check_cfg(&c, &e));
}

/* edges 1 s apart (with a little jitter) starting at 5 s */
/* The kernel's count of the i-th edge: seconds since the first it counted */
static int64_t edge(int i)
{
	return 5 + i;
}

#define T0 1700000037LL

static int offer(struct guard *g, int64_t second, int64_t tai, int64_t pivot,
		 int64_t *exp)
{
	return (int)guard_offer(g, second, tai, pivot, exp);
}

TEST(guard_single_wrong_sentence_never_changes_labels)
{
	struct guard g;
	int64_t exp;

	guard_init(&g, GUARD_DEF_N);
	EXPECT_EQ(GUARD_FIRST, offer(&g, edge(0), T0, 0, &exp));
	EXPECT_EQ(GUARD_ACCEPT, offer(&g, edge(1), T0 + 1, 0, &exp));
	/* one sentence 1024 weeks back, one 1 s off, one an hour ahead */
	EXPECT_EQ(GUARD_HOLD, offer(&g, edge(2), T0 + 2 - 619315200LL, 0, &exp));
	EXPECT_EQ(T0 + 2, exp);
	EXPECT_EQ(GUARD_ACCEPT, offer(&g, edge(3), T0 + 3, 0, &exp));
	EXPECT_EQ(GUARD_HOLD, offer(&g, edge(4), T0 + 5, 0, &exp));
	EXPECT_EQ(GUARD_ACCEPT, offer(&g, edge(5), T0 + 5, 0, &exp));
	EXPECT_EQ(GUARD_HOLD, offer(&g, edge(6), T0 + 6 + 3600, 0, &exp));
	EXPECT_EQ(GUARD_ACCEPT, offer(&g, edge(7), T0 + 7, 0, &exp));
	EXPECT_EQ(T0 + 7, g.tai);
	/* alternating wrong values never build up a count */
	for (int i = 8; i < 20; i += 2) {
		EXPECT_EQ(GUARD_HOLD, offer(&g, edge(i), T0 + i + 100, 0, &exp));
		EXPECT_EQ(GUARD_ACCEPT, offer(&g, edge(i + 1), T0 + i + 1, 0, &exp));
	}
}

TEST(guard_real_jump_after_n)
{
	struct guard g;
	int64_t exp;

	guard_init(&g, 3);
	EXPECT_EQ(GUARD_FIRST, offer(&g, edge(0), T0, 0, &exp));
	/* the receiver really moves 10 s ahead */
	EXPECT_EQ(GUARD_HOLD, offer(&g, edge(1), T0 + 11, 0, &exp));
	/* a second sentence for the same edge counts once */
	EXPECT_EQ(GUARD_HOLD, offer(&g, edge(1), T0 + 11, 0, &exp));
	EXPECT_EQ(GUARD_HOLD, offer(&g, edge(2), T0 + 12, 0, &exp));
	EXPECT_EQ(GUARD_JUMP, offer(&g, edge(3), T0 + 13, 0, &exp));
	EXPECT_EQ(T0 + 3, exp);
	EXPECT_EQ(GUARD_ACCEPT, offer(&g, edge(4), T0 + 14, 0, &exp));
	/* backwards too, across a missed edge (edge 6 absent) */
	EXPECT_EQ(GUARD_HOLD, offer(&g, edge(5), T0 + 5, 0, &exp));
	EXPECT_EQ(GUARD_HOLD, offer(&g, edge(7), T0 + 7, 0, &exp));
	EXPECT_EQ(GUARD_JUMP, offer(&g, edge(8), T0 + 8, 0, &exp));
	EXPECT_EQ(T0 + 18, exp);
	EXPECT_EQ(T0 + 8, g.tai);
}

TEST(guard_missed_edges_extrapolate)
{
	struct guard g;
	int64_t exp;

	guard_init(&g, 3);
	EXPECT_EQ(GUARD_FIRST, offer(&g, edge(0), T0, 0, &exp));
	EXPECT_EQ(GUARD_ACCEPT, offer(&g, edge(10), T0 + 10, 0, &exp));
	EXPECT_EQ(T0 + 10, exp);
}

TEST(guard_never_before_pivot)
{
	struct guard g;
	int64_t exp;

	guard_init(&g, 1);
	EXPECT_EQ(GUARD_BEFORE_PIVOT, offer(&g, edge(0), T0 - 1, T0, &exp));
	EXPECT_FALSE(g.have);
	EXPECT_EQ(GUARD_FIRST, offer(&g, edge(1), T0, T0, &exp));
	for (int i = 2; i < 6; i++)
		EXPECT_EQ(GUARD_BEFORE_PIVOT,
			  offer(&g, edge(i), T0 - 100 + i, T0, &exp));
	EXPECT_EQ(T0, g.tai);
}

TEST(guard_n1_accepts_at_once)
{
	struct guard g;
	int64_t exp;

	guard_init(&g, 1);
	EXPECT_EQ(GUARD_FIRST, offer(&g, edge(0), T0, 0, &exp));
	EXPECT_EQ(GUARD_JUMP, offer(&g, edge(1), T0 + 50, 0, &exp));
}

TEST_HARNESS_MAIN
