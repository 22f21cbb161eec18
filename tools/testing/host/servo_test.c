// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests for the gpsphc clock servo (kmod/servo/). Simulated edge
 * streams (edge_sim.c) feed it as the kernel would: the edge's raw time
 * and what the clock read then, a label from "userspace" 300 ms after
 * each edge, a tick 600 ms after each second, and where a test asks,
 * extra edges in between (a DCD storm, a receiver pulsing several times a
 * second); the test keeps its own model of the kernel's clock and applies
 * every step and rate the servo asks for. The error checked is the clock at the true edge instant minus the
 * TAI second it marks, which the servo never sees. Each bound says why.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "edge_sim.h"

#define NS		1000000000LL
#define RAW0		5000000000000ULL	/* about 83 min of uptime */
#define TAI0		1750000037ULL
#define LABEL_DELAY	300000000ULL
#define TICK_DELAY	600000000ULL
#define EDGE_DELAY	20000ULL		/* interrupt to the servo */
#define MAX_EXTRA	8

struct rig {
	struct gpsphc_servo s;
	struct gpsphc_servo_cfg cfg;
	struct edge_sim sim;
	struct phc_model phc;
	struct gpsphc_servo_out out;	/* of the last edge */
	struct gpsphc_servo_out lout;	/* of the last label */
	struct gpsphc_servo_out tout;	/* of the last tick */
	struct edge_sim_edge e;
	double err;		/* clock minus truth at the last true edge */
	bool label;		/* label every edge */
	s64 skew;		/* seconds added to the labels */
	int lres;		/* last label result, 0: none */
	u64 extra_k[MAX_EXTRA];	/* edges captured extra_ns late */
	u64 extra_ns;
	unsigned int n_extra;
	/* Extra PPS edges each second, at raw_true + x_first + i * x_step */
	u64 x_first, x_step;
	unsigned int x_n;	/* per second, 0: none */
	unsigned int x_i;	/* this second's extras fed so far */
	u64 x_fed, x_used;	/* extras fed; extras counted as seconds */
	u32 seq[2];		/* next sequence number, per input kind */
	u32 e_seq;		/* the last true edge's */
	s64 moved_ns;		/* the pulses' move so far: truth moves too */
	u64 tick_delay;		/* after the edge; 0: TICK_DELAY */
};

/* Feed an input with the next sequence number of its kind; returns it */
static u32 rig_feed(struct rig *r, enum gpsphc_servo_input kind, u64 raw,
		    s64 phc, struct gpsphc_servo_out *o)
{
	u32 seq = r->seq[kind]++;

	gpsphc_servo_edge(&r->s, kind, seq, raw, phc, o);
	return seq;
}

static void rig_init(struct rig *r, double ppb, double jitter)
{
	struct edge_sim_cfg c = {
		.freq_ppb = ppb, .jitter_ns = jitter, .seed = 42,
		.raw0 = RAW0, .tai0 = TAI0,
	};

	memset(r, 0, sizeof(*r));
	gpsphc_servo_default_cfg(&r->cfg);
	gpsphc_servo_init(&r->s, &r->cfg);
	edge_sim_init(&r->sim, &c);
	phc_init(&r->phc, 0, 0, r->cfg.max_ppb);
}

static void rig_apply(struct rig *r, u64 now, const struct gpsphc_servo_out *o)
{
	phc_apply(&r->phc, now, o);
}

static double rig_err(struct rig *r, u64 raw, u64 tai)
{
	return (double)(phc_read(&r->phc, raw) - (s64)tai * NS);
}

/* Extra edges from now on: @n a second, at raw_true + @first + i * @step */
static void rig_extra_edges(struct rig *r, u64 first, u64 step,
			    unsigned int n)
{
	r->x_first = first;
	r->x_step = step;
	r->x_n = n;
}

/* Feed this second's extra edges that come before @until */
static void rig_extras(struct rig *r, u64 until)
{
	struct gpsphc_servo_out o;
	u64 raw;

	for (; r->x_i < r->x_n; r->x_i++) {
		raw = r->e.raw_true + r->x_first + r->x_i * r->x_step;
		if (raw >= until)
			break;
		rig_feed(r, GPSPHC_SERVO_INPUT_PPS, raw, phc_read(&r->phc, raw),
			 &o);
		rig_apply(r, raw + EDGE_DELAY, &o);
		r->x_fed++;
		if (o.flags & GPSPHC_SERVO_OUT_USED)
			r->x_used++;
	}
}

/*
 * One second: the edge (if present), its label, a tick, and the extra
 * edges of the second in time order among them
 */
static void rig_second(struct rig *r)
{
	struct edge_sim_edge *e = &r->e;
	unsigned int i;
	u64 tick;

	edge_sim_next(&r->sim, e);
	e->raw += r->moved_ns;
	e->raw_true += r->moved_ns;
	for (i = 0; i < r->n_extra; i++)
		if (r->extra_k[i] == e->k)
			e->raw += r->extra_ns;
	r->err = rig_err(r, e->raw_true, e->tai_sec);
	r->lres = 0;
	r->x_i = 0;
	if (e->present) {
		r->e_seq = rig_feed(r, GPSPHC_SERVO_INPUT_PPS, e->raw,
				    phc_read(&r->phc, e->raw), &r->out);
		rig_apply(r, e->raw + EDGE_DELAY, &r->out);
		if (r->label) {
			u64 now = e->raw + LABEL_DELAY;

			rig_extras(r, now);
			r->lres = gpsphc_servo_label(&r->s, GPSPHC_SERVO_INPUT_PPS,
						     r->e_seq,
						     e->tai_sec + r->skew, now,
						     phc_read(&r->phc, now),
						     &r->lout);
			rig_apply(r, now, &r->lout);
		}
	}
	tick = e->raw_true + (r->tick_delay ? r->tick_delay : TICK_DELAY);
	rig_extras(r, tick);
	gpsphc_servo_tick(&r->s, tick, &r->tout);
	rig_apply(r, tick, &r->tout);
	rig_extras(r, ~0ULL);
}

static void rig_run(struct rig *r, unsigned int n)
{
	while (n--)
		rig_second(r);
}

/* 50 ppm, @jitter ns, every edge labelled, @n seconds */
static void rig_start_jitter(struct rig *r, double jitter, unsigned int n)
{
	rig_init(r, 50000, jitter);
	r->label = true;
	rig_run(r, n);
}

/* The common start: 50 ppm, 1 us jitter, every edge labelled, @n seconds */
static void rig_start(struct rig *r, unsigned int n)
{
	rig_start_jitter(r, 1000, n);
}

/*
 * 50 ppm, 1 us Gaussian jitter, labels from the very first edge (no
 * history: the worst start). LOCKED within 10 edges (the issue's
 * target). Then, over 1000 edges: |error| < 5 us (5 sigma of the jitter
 * itself; the servo filters it, so this never comes near) and RMS error
 * < 500 ns (the servo must at least halve the jitter; the benchmark
 * measures about 210 ns).
 */
TEST(locks_at_50ppm)
{
	struct rig r;
	double sum = 0, max = 0;
	int i, locked_at = -1;

	rig_init(&r, 50000, 1000);
	r.label = true;
	for (i = 0; i < 1020; i++) {
		rig_second(&r);
		if (locked_at < 0 && r.out.state == GPSPHC_SERVO_LOCKED)
			locked_at = i;
		if (i >= 20) {
			sum += r.err * r.err;
			if (fabs(r.err) > max)
				max = fabs(r.err);
		}
	}
	ASSERT_GE(locked_at, 0);
	EXPECT_LE(locked_at, 10);
	EXPECT_LT(max, 5000.0);
	EXPECT_LT(sqrt(sum / 1000), 500.0);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	EXPECT_EQ(r.s.counters.steps, 1);
	EXPECT_EQ(r.s.counters.outliers, 0);
	EXPECT_EQ(r.s.counters.labels, 1020);
	EXPECT_EQ(r.s.counters.disagreements, 0);
	/* The rate it found: -50 ppm / (1 + 50 ppm), within 50 ppb */
	EXPECT_LT(fabs(r.s.freq / 65536.0 + 50000 / 1.00005), 50.0);
	/* RMS the servo reports: of measured offsets, i.e. about the jitter */
	EXPECT_GT(r.out.rms_ns, 500);
	EXPECT_LT(r.out.rms_ns, 2000);
}

/*
 * With 32 edges of history before the first label, the first step is
 * already right: |error| < 2 us (2 sigma of one edge's jitter; the
 * history's median is far better) from the first edge after the label.
 */
TEST(history_makes_first_step_right)
{
	struct rig r;
	int i;

	rig_init(&r, 50000, 1000);
	rig_run(&r, 32);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_UNLOCKED);
	EXPECT_EQ(r.s.counters.edges, 32);
	r.label = true;
	rig_second(&r);
	EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_SET);
	EXPECT_TRUE(r.lout.flags & GPSPHC_SERVO_OUT_STEP);
	for (i = 0; i < 100; i++) {
		rig_second(&r);
		EXPECT_LT(fabs(r.err), 2000.0);
	}
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
}

/*
 * Pulses stop for 30 s: HOLDOVER by the second tick after the last edge
 * (timeout 2.5 s), the rate kept (the integral term), and back to LOCKED
 * with no step when they return; the 30 missing pulses counted, the
 * count right. Bound: |error| < 10 us through the gap (the rate is known
 * to ~50 ppb: 1.5 us in 30 s, plus the lock's own error).
 */
TEST(holdover_and_back)
{
	struct rig r;
	u64 steps;
	int i;

	rig_start(&r, 100);
	ASSERT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	steps = r.s.counters.steps;
	edge_sim_drop(&r.sim, 100, 130);
	rig_second(&r);		/* 100: one missed pulse is not a lost PPS */
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	rig_second(&r);		/* 101: tick 2.6 s after edge 99 */
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_HOLDOVER);
	EXPECT_EQ(r.s.counters.holdovers, 1);
	EXPECT_EQ(r.s.adj, r.s.freq);
	for (i = 102; i < 130; i++) {
		rig_second(&r);
		EXPECT_EQ(r.s.state, GPSPHC_SERVO_HOLDOVER);
		EXPECT_LT(fabs(r.err), 10000.0);
	}
	rig_second(&r);		/* 130: back */
	EXPECT_EQ(r.out.state, GPSPHC_SERVO_LOCKED);
	EXPECT_TRUE(r.out.flags & GPSPHC_SERVO_OUT_STATE);
	EXPECT_EQ(r.out.tai_sec, r.e.tai_sec);
	EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_AGREE);
	EXPECT_EQ(r.s.counters.missed, 30);
	EXPECT_EQ(r.s.counters.steps, steps);
	EXPECT_LT(fabs(r.err), 10000.0);
	for (i = 0; i < 50; i++) {
		rig_second(&r);
		EXPECT_LT(fabs(r.err), 10000.0);
	}
}

/*
 * The PPS lost 20 edges after the first label, the last edge before the
 * loss 40 us late (an interrupt latency spike; a virtual machine's are
 * like that): in the fast gears, the loop's integral term moves by ki
 * times that offset (12 ppm in gear 0), so holdover takes the rate of the
 * history's fit, which leaves the late edge out. The raw clock is 50 ppm
 * fast, 1 us jitter: the clock must run at -50000 / (1 + 5e-5) =
 * -49997.5 ppb; the fit over 20 edges is good to 0.05 ppm, within 0.5.
 */
TEST(holdover_early_takes_the_fitted_rate)
{
	struct rig r;
	double ppb;

	rig_init(&r, 50000, 1000);
	r.label = true;
	r.extra_ns = 40000;
	r.extra_k[r.n_extra++] = 19;
	rig_run(&r, 20);
	edge_sim_drop(&r.sim, 20, 40);
	rig_run(&r, 3);
	ASSERT_EQ(r.s.state, GPSPHC_SERVO_HOLDOVER);
	ppb = (double)r.s.adj / GPSPHC_SERVO_ADJ_PER_PPB;
	TH_LOG("holdover rate %.1f ppb", ppb);
	EXPECT_LT(fabs(ppb + 49997.5), 500.0);
}

/*
 * Back from a 300 s outage during which the host's rate moved by 100 ppm:
 * the error (30 ms) is above the step threshold (20 ms), so one step,
 * then LOCKED again; the count stays right (the error is far below half
 * a second).
 */
TEST(holdover_large_error_steps)
{
	struct rig r;
	u64 steps;
	int i;

	rig_start(&r, 100);
	steps = r.s.counters.steps;
	edge_sim_drop(&r.sim, 100, 400);
	edge_sim_freq_step(&r.sim, 100, 100000);
	rig_run(&r, 300);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_HOLDOVER);
	rig_second(&r);
	EXPECT_GT(fabs(r.err), 20e6);
	EXPECT_EQ(r.out.tai_sec, r.e.tai_sec);
	EXPECT_TRUE(r.out.flags & GPSPHC_SERVO_OUT_STEP);
	EXPECT_EQ(r.s.counters.steps, steps + 1);
	EXPECT_EQ(r.out.state, GPSPHC_SERVO_LOCKING);
	for (i = 0; i < 30; i++)
		rig_second(&r);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	EXPECT_LT(fabs(r.err), 5000.0);
	EXPECT_EQ(r.s.counters.missed, 300);
}

/*
 * One missing pulse: counted as missed, the next edge numbered two
 * seconds on, no 1 s error, no step. (The tick 1.6 s after the last edge
 * enters HOLDOVER, the edge 0.4 s later resumes LOCKED.) Bound: |error|
 * < 5 us, 5 sigma of the jitter, as when no pulse is missed.
 */
TEST(missed_pulse_keeps_count)
{
	struct rig r;
	u64 steps;
	int i;

	rig_start(&r, 60);
	steps = r.s.counters.steps;
	edge_sim_drop(&r.sim, 60, 61);
	rig_run(&r, 2);
	EXPECT_EQ(r.s.counters.missed, 1);
	EXPECT_EQ(r.out.tai_sec, r.e.tai_sec);
	EXPECT_EQ(r.out.edge_num, 61);
	EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_AGREE);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	for (i = 0; i < 20; i++) {
		rig_second(&r);
		EXPECT_LT(fabs(r.err), 5000.0);
	}
	EXPECT_EQ(r.s.counters.steps, steps);
	/* A single missed pulse (2 s gap) stays within the 2.5 s timeout. */
	EXPECT_EQ(r.s.counters.holdovers, 0);
	EXPECT_EQ(r.s.counters.disagreements, 0);
}

/* Labelling without every edge: the servo's own count carries on. */
TEST(count_without_labels)
{
	struct rig r;
	int i;

	rig_init(&r, -30000, 1000);
	r.label = true;
	rig_second(&r);
	r.label = false;
	for (i = 0; i < 200; i++) {
		rig_second(&r);
		EXPECT_EQ(r.out.tai_sec, r.e.tai_sec);
	}
	EXPECT_LT(fabs(r.err), 5000.0);
	EXPECT_EQ(r.s.counters.labels, 1);
}

/*
 * A stray label one second off is counted and flagged, never moves the
 * clock; labels off by 1, 2, 1 s (not agreeing with each other) never
 * either; a real change (the same +1 s, confirm_n = 3 times in a row)
 * steps the clock by exactly 1 s on the third.
 */
TEST(labels_need_confirmation)
{
	struct rig r;
	u64 steps;
	int i;

	rig_start(&r, 60);
	steps = r.s.counters.steps;

	r.skew = 1;
	rig_second(&r);
	EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_DISAGREE);
	EXPECT_TRUE(r.lout.flags & GPSPHC_SERVO_OUT_DISAGREE);
	EXPECT_FALSE(r.lout.flags & GPSPHC_SERVO_OUT_STEP);
	r.skew = 0;
	rig_second(&r);
	EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_AGREE);
	EXPECT_LT(fabs(r.err), 5000.0);

	r.skew = 1;
	rig_second(&r);
	r.skew = 2;
	rig_second(&r);
	r.skew = 1;
	rig_second(&r);
	EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_DISAGREE);
	EXPECT_EQ(r.s.counters.disagreements, 4);
	EXPECT_EQ(r.s.counters.steps, steps);
	r.skew = 0;
	rig_second(&r);
	EXPECT_LT(fabs(r.err), 5000.0);

	r.skew = 1;
	rig_second(&r);
	EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_DISAGREE);
	rig_second(&r);
	EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_DISAGREE);
	rig_second(&r);
	EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_APPLIED);
	EXPECT_TRUE(r.lout.flags & GPSPHC_SERVO_OUT_STEP);
	EXPECT_EQ(r.lout.step_ns, NS);
	EXPECT_EQ(r.s.counters.steps, steps + 1);
	EXPECT_EQ(r.s.counters.disagreements, 7);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	for (i = 0; i < 10; i++) {
		rig_second(&r);
		EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_AGREE);
		EXPECT_EQ(r.out.tai_sec, r.e.tai_sec + 1);
		/* the clock now reads the labels' second: 1 s ahead */
		EXPECT_LT(fabs(r.err - NS), 5000.0);
	}
}

/* confirm_n = 1: the first disagreeing label moves the clock. */
TEST(confirm_n_one)
{
	struct rig r;

	rig_init(&r, 50000, 1000);
	r.cfg.confirm_n = 1;
	gpsphc_servo_configure(&r.s, &r.cfg);
	r.label = true;
	rig_run(&r, 30);
	r.skew = -2;
	rig_second(&r);
	EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_APPLIED);
	EXPECT_EQ(r.lout.step_ns, -2 * NS);
}

/*
 * 50 us latency spikes on a locked clock: each rejected (the counter
 * moves by one per spike) and the clock disturbed by less than 2 us (at
 * most 2 sigma of the jitter; a 50 us spike taken in at the slowest gear
 * alone would move it by kp / 16 * 50 us = 2.2 us, at the fastest 35 us).
 */
TEST(spikes_rejected)
{
	struct rig r;
	double max = 0;
	int i;

	rig_init(&r, 50000, 1000);
	r.label = true;
	r.extra_ns = 50000;
	r.extra_k[r.n_extra++] = 150;
	r.extra_k[r.n_extra++] = 300;
	r.extra_k[r.n_extra++] = 301;
	r.extra_k[r.n_extra++] = 450;
	rig_run(&r, 100);
	ASSERT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	for (i = 100; i < 500; i++) {
		rig_second(&r);
		if (r.e.k == 150)
			EXPECT_TRUE(r.out.flags & GPSPHC_SERVO_OUT_OUTLIER);
		if (fabs(r.err) > max)
			max = fabs(r.err);
	}
	EXPECT_EQ(r.s.counters.outliers, 4);
	EXPECT_EQ(r.s.counters.relocks, 0);
	EXPECT_LT(max, 2000.0);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
}

/*
 * The pulses moved (the rig's edges from the next one on): outlier_max
 * (3) edges are rejected, the 4th agrees with them and relocks (LOCKING,
 * no step: the moves below are under the step threshold), and the clock
 * follows: 40 edges later it is LOCKED and its error less @behind_ns is
 * under 5 us (5 sigma of the jitter).
 */
static void expect_relock(struct __test_metadata *_metadata, struct rig *r,
			  double behind_ns)
{
	int i;

	for (i = 0; i < 3; i++) {
		rig_second(r);
		EXPECT_TRUE(r->out.flags & GPSPHC_SERVO_OUT_OUTLIER);
	}
	rig_second(r);
	EXPECT_FALSE(r->out.flags & GPSPHC_SERVO_OUT_OUTLIER);
	EXPECT_EQ(r->s.counters.relocks, 1);
	EXPECT_FALSE(r->out.flags & GPSPHC_SERVO_OUT_STEP);
	rig_run(r, 40);
	EXPECT_EQ(r->s.state, GPSPHC_SERVO_LOCKED);
	EXPECT_LT(fabs(r->err + behind_ns), 5000.0);
}

/*
 * Rejection is never forever: the PPS phase moves by 200 us for good.
 * Edges captured 200 us late: the clock follows them, 200 us behind.
 */
TEST(outliers_relock)
{
	struct rig r;

	rig_start(&r, 100);
	ASSERT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	r.sim.cfg.latency_ns = 200000;
	expect_relock(_metadata, &r, 200000);
}

/*
 * The host's rate steps by 100 ppm: the edges come 100 us later each
 * second, on a line; the clock follows the new rate.
 */
TEST(rate_step_relocks)
{
	struct rig r;

	rig_start(&r, 100);
	ASSERT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	/* from the next edge on: the one after it is 100 us late */
	edge_sim_freq_step(&r.sim, r.sim.k, 100000);
	rig_second(&r);
	EXPECT_FALSE(r.out.flags & GPSPHC_SERVO_OUT_OUTLIER);
	expect_relock(_metadata, &r, 0);
}

/*
 * A 2 ppm rate step seen through 0.1 us of jitter: the first edge after
 * it is 2 us (20 sigma) off, within outlier_min_ns, so taken, and a
 * surprise: the most wandering filter steers at once. The error at the
 * first edge is the step's and no servo avoids it; from the next on it
 * shrinks: every edge after the step within 2.2 us (10 % over the first,
 * for the jitter), and 20 edges later within 0.5 us. Waiting for the
 * scores instead let the second edge reach 4 us.
 */
TEST(rate_step_followed_at_once)
{
	struct rig r;
	double max = 0;
	int i;

	rig_start_jitter(&r, 100, 300);
	ASSERT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	edge_sim_freq_step(&r.sim, r.sim.k, 2000);
	rig_second(&r);
	for (i = 0; i < 20; i++) {
		rig_second(&r);
		EXPECT_FALSE(r.out.flags & GPSPHC_SERVO_OUT_OUTLIER);
		max = fmax(max, fabs(r.err));
	}
	EXPECT_LT(max, 2200.0);
	EXPECT_LT(fabs(r.err), 500.0);
	EXPECT_EQ(r.s.counters.relocks, 0);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
}

/* The largest |error| over the next @n seconds; their RMS in @rms */
static double rig_max_err(struct rig *r, unsigned int n, double *rms)
{
	double max = 0, sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		rig_second(r);
		max = fmax(max, fabs(r->err));
		sum += r->err * r->err;
	}
	*rms = sqrt(sum / n);
	return max;
}

/*
 * From the next edge on, the rate ramps by 10 ppb/s for 300 s: after
 * @skip seconds, the largest |error| over @n, their RMS in @rms. The
 * loop stays LOCKED and never relocks: a ramp is no outlier.
 */
static double rig_ramp(struct __test_metadata *_metadata, struct rig *r,
		       unsigned int skip, unsigned int n, double *rms)
{
	double max;

	EXPECT_EQ(r->s.state, GPSPHC_SERVO_LOCKED);
	edge_sim_ramp(&r->sim, r->sim.k, r->sim.k + 300, 10);
	rig_run(r, skip);
	max = rig_max_err(r, n, rms);
	TH_LOG("max %.0f ns, RMS %.0f ns", max, *rms);
	EXPECT_EQ(r->s.counters.relocks, 0);
	EXPECT_EQ(r->s.state, GPSPHC_SERVO_LOCKED);
	return max;
}

/*
 * The host's crystal warms: its rate ramps by 10 ppb a second for 5
 * minutes (a load that comes and stays), seen through 0.1 us of jitter.
 * A filter of a phase and a rate only chases a ramp, lagging behind it;
 * the drift filters follow it. Over the ramp's last 3 minutes the RMS
 * error is under 100 ns, below the jitter (115 ns without the drift
 * filters), and every edge within 300 ns (318).
 */
TEST(ramp_followed)
{
	struct rig r;
	double max, rms;

	rig_start_jitter(&r, 100, 400);
	max = rig_ramp(_metadata, &r, 120, 180, &rms);
	EXPECT_LT(rms, 100.0);
	EXPECT_LT(max, 300.0);
}

/*
 * The start of that ramp through 1 us of jitter: the error grows as 5 ns
 * times the seconds squared until the servo tells the ramp from the
 * noise, about 25 edges in (2.3 us). Then the steering filter starts
 * again from the better one (the likelihood ratios' CUSUM): every edge of
 * the ramp's second half-minute within 1.2 us (1.6 us when it waited for
 * the long scores).
 */
TEST(ramp_start_told)
{
	struct rig r;
	double rms;

	rig_start(&r, 400);
	EXPECT_LT(rig_ramp(_metadata, &r, 30, 30, &rms), 1200.0);
}

/*
 * A loaded virtual machine: twelve edges in a row captured late by
 * amounts that scatter (0.4 to 3.7 ms, as TCG's timers do). Latency, not
 * a move of the pulses: every one is rejected, the loop never relocks
 * and stays LOCKED, and the clock, steered by the filters' prediction
 * meanwhile, is within 5 us (5 sigma of the jitter) at every edge.
 */
TEST(scattered_late_edges_keep_the_lock)
{
	static const double late_us[] = {
		400, 1900, 800, 2500, 1200, 3100, 600, 2200, 1500, 3700, 900, 2000,
	};
	struct rig r;
	double max = 0;
	unsigned int i;

	rig_start(&r, 100);
	ASSERT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	for (i = 0; i < sizeof(late_us) / sizeof(late_us[0]); i++) {
		r.sim.cfg.latency_ns = late_us[i] * 1000;
		rig_second(&r);
		EXPECT_TRUE(r.out.flags & GPSPHC_SERVO_OUT_OUTLIER);
		EXPECT_EQ(r.out.state, GPSPHC_SERVO_LOCKED);
		max = fmax(max, fabs(r.err));
	}
	r.sim.cfg.latency_ns = 0;
	for (i = 0; i < 40; i++) {
		rig_second(&r);
		EXPECT_EQ(r.out.state, GPSPHC_SERVO_LOCKED);
		max = fmax(max, fabs(r.err));
	}
	EXPECT_EQ(r.s.counters.outliers, 12);
	EXPECT_EQ(r.s.counters.relocks, 0);
	EXPECT_LT(max, 5000.0);
}

/* @n edges captured 0.5 and 3 ms late in turn: each one rejected */
static void expect_scatter_rejected(struct __test_metadata *_metadata,
				    struct rig *r, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		r->sim.cfg.latency_ns = (i % 2 ? 3000 : 500) * 1000.0;
		rig_second(r);
		EXPECT_TRUE(r->out.flags & GPSPHC_SERVO_OUT_OUTLIER);
	}
}

/*
 * Scatter that never ends is a change of the noise, not latency: after
 * GPSPHC_SERVO_SCATTER_RUNS times outlier_max (30) outliers in a row the
 * next edge relocks the loop, whatever it says.
 */
TEST(endless_scatter_relocks)
{
	struct rig r;

	rig_start(&r, 100);
	ASSERT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	expect_scatter_rejected(_metadata, &r, 30);
	EXPECT_EQ(r.s.counters.relocks, 0);
	rig_second(&r);
	EXPECT_FALSE(r.out.flags & GPSPHC_SERVO_OUT_OUTLIER);
	EXPECT_EQ(r.s.counters.outliers, 30);
	EXPECT_EQ(r.s.counters.relocks, 1);
	EXPECT_EQ(r.out.state, GPSPHC_SERVO_LOCKING);
}

/*
 * The scatter rule keeps a lock, and only a lock: in a HOLDOVER entered
 * while LOCKING, the filters may be what is wrong, so outlier_max (3)
 * late edges in a row are rejected and the 4th relocks, however they
 * scatter (as while LOCKING).
 */
TEST(holdover_from_locking_relocks_on_scatter)
{
	struct rig r;

	rig_start(&r, 5);
	ASSERT_EQ(r.s.state, GPSPHC_SERVO_LOCKING);
	edge_sim_drop(&r.sim, 5, 10);
	rig_run(&r, 5);
	ASSERT_EQ(r.s.state, GPSPHC_SERVO_HOLDOVER);
	expect_scatter_rejected(_metadata, &r, 3);
	r.sim.cfg.latency_ns = 1900000;
	rig_second(&r);
	EXPECT_FALSE(r.out.flags & GPSPHC_SERVO_OUT_OUTLIER);
	EXPECT_EQ(r.s.counters.outliers, 3);
	EXPECT_EQ(r.s.counters.relocks, 1);
	EXPECT_EQ(r.out.state, GPSPHC_SERVO_LOCKING);
}

/*
 * Saturation: the host runs 700 ppm fast, beyond max_ppb (500 ppm). No
 * rate asked for ever exceeds max_ppb, the loop sits at -max_ppb, and as
 * the error grows past the step threshold the clock is stepped.
 */
TEST(saturates_at_max_ppb)
{
	struct rig r;
	const s64 max = 500000LL * 65536;
	int i;

	rig_init(&r, 700000, 1000);
	r.label = true;
	for (i = 0; i < 300; i++) {
		rig_second(&r);
		EXPECT_LE(llabs(r.out.adj), max);
		EXPECT_LE(llabs(r.lout.adj), max);
		EXPECT_LE(llabs(r.s.freq), max);
		if (i)
			EXPECT_EQ(r.out.tai_sec, r.e.tai_sec);
	}
	EXPECT_EQ(r.s.freq, -max);
	EXPECT_GT(r.s.counters.steps, 2);
	EXPECT_NE(r.s.state, GPSPHC_SERVO_LOCKED);
}

/* A smaller max_ppb (10 ppm) than the error (50 ppm): same, at -10 ppm */
TEST(saturates_at_configured_max)
{
	struct rig r;
	int i;

	rig_init(&r, 50000, 1000);
	r.cfg.max_ppb = 10000;
	gpsphc_servo_configure(&r.s, &r.cfg);
	r.label = true;
	for (i = 0; i < 100; i++) {
		rig_second(&r);
		EXPECT_LE(llabs(r.out.adj), 10000LL * 65536);
	}
	EXPECT_EQ(r.s.adj, -10000LL * 65536);
}

/* A glitch on DCD 300 ms after an edge: ignored, counted, count intact */
TEST(spurious_edge)
{
	struct rig r;
	struct gpsphc_servo_out o;
	u32 glitch;
	int i;

	rig_start(&r, 50);
	glitch = rig_feed(&r, GPSPHC_SERVO_INPUT_PPS, r.e.raw + 300000000,
			  phc_read(&r.phc, r.e.raw + 300000000), &o);
	EXPECT_FALSE(o.flags & (GPSPHC_SERVO_OUT_USED | GPSPHC_SERVO_OUT_ADJ |
				GPSPHC_SERVO_OUT_STEP));
	EXPECT_EQ(r.s.counters.spurious, 1);
	EXPECT_EQ(gpsphc_servo_label(&r.s, GPSPHC_SERVO_INPUT_PPS, glitch,
				     r.e.tai_sec, r.e.raw + 400000000, 0, &o),
		  GPSPHC_SERVO_LABEL_UNCOUNTED);
	for (i = 0; i < 10; i++) {
		rig_second(&r);
		EXPECT_EQ(r.out.tai_sec, r.e.tai_sec);
		EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_AGREE);
		EXPECT_LT(fabs(r.err), 5000.0);
	}
	EXPECT_EQ(r.s.counters.missed, 0);
}

/* Labels refused, with the reason; nothing moves */
TEST(label_refusals)
{
	const enum gpsphc_servo_input pps = GPSPHC_SERVO_INPUT_PPS;
	struct gpsphc_servo_out o;
	struct rig r;
	u32 first;

	rig_init(&r, 50000, 1000);
	rig_run(&r, 1);
	first = r.e_seq;
	rig_run(&r, 40);
	/* the first edge fell out of the 32-edge history */
	EXPECT_EQ(gpsphc_servo_label(&r.s, pps, first, TAI0, r.e.raw + 1, 0,
				     &o),
		  GPSPHC_SERVO_LABEL_UNKNOWN);
	EXPECT_EQ(gpsphc_servo_label(&r.s, pps, r.e_seq - GPSPHC_SERVO_HISTORY,
				     r.e.tai_sec, r.e.raw + 1, 0, &o),
		  GPSPHC_SERVO_LABEL_UNKNOWN);
	EXPECT_EQ(gpsphc_servo_label(&r.s, pps, r.e_seq + 1, r.e.tai_sec,
				     r.e.raw + 2 * NS, 0, &o),
		  GPSPHC_SERVO_LABEL_FUTURE);
	/* no sentence was ever fed */
	EXPECT_EQ(gpsphc_servo_label(&r.s, GPSPHC_SERVO_INPUT_SENTENCE, r.e_seq,
				     r.e.tai_sec, r.e.raw + 1, 0, &o),
		  GPSPHC_SERVO_LABEL_FUTURE);
	EXPECT_EQ(gpsphc_servo_label(&r.s, pps, r.e_seq, 10, r.e.raw + 1, 0,
				     &o),
		  GPSPHC_SERVO_LABEL_RANGE);
	EXPECT_EQ(gpsphc_servo_label(&r.s, pps, r.e_seq, 9223372036ULL,
				     r.e.raw + 1, 0, &o),
		  GPSPHC_SERVO_LABEL_RANGE);
	EXPECT_EQ(gpsphc_servo_label(&r.s, pps, r.e_seq, ~0ULL, r.e.raw + 1, 0,
				     &o),
		  GPSPHC_SERVO_LABEL_RANGE);
	EXPECT_EQ(o.flags & ~GPSPHC_SERVO_OUT_COARSE, 0);
	EXPECT_EQ(r.s.counters.labels_refused, 7);
	EXPECT_EQ(r.s.counters.labels, 0);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_UNLOCKED);
}

/*
 * A first label for edge @seq, TAI @tai, given LABEL_DELAY after the last
 * edge, sets the clock: its next @n seconds read their TAI second within
 * @max_err ns.
 */
static void first_label_sets(struct __test_metadata *_metadata, struct rig *r,
			     u32 seq, u64 tai, int n, double max_err)
{
	u64 now = r->e.raw + LABEL_DELAY;
	struct gpsphc_servo_out o;
	int i;

	EXPECT_EQ(gpsphc_servo_label(&r->s, GPSPHC_SERVO_INPUT_PPS, seq, tai,
				     now, phc_read(&r->phc, now), &o),
		  GPSPHC_SERVO_LABEL_SET);
	rig_apply(r, now, &o);
	for (i = 0; i < n; i++) {
		rig_second(r);
		EXPECT_EQ(r->out.tai_sec, r->e.tai_sec);
		EXPECT_LT(fabs(r->err), max_err);
	}
}

/*
 * After a gap of 2000 s the history still holds edges from before it. A
 * label for one of them would carry the step over more than 2^40 ns, the
 * servo's limit: it is refused as too old, and a label for an edge since
 * the gap sets the clock right. (It was taken, and the clock was set
 * about 900 s wrong for good.)
 */
TEST(label_older_than_the_limit)
{
	const enum gpsphc_servo_input pps = GPSPHC_SERVO_INPUT_PPS;
	struct gpsphc_servo_out o;
	struct rig r;
	u64 tai, now;
	u32 old;

	rig_init(&r, 50000, 1000);
	rig_run(&r, 6);
	old = r.e_seq;
	tai = r.e.tai_sec;
	rig_run(&r, 4);
	edge_sim_drop(&r.sim, 10, 2010);
	rig_run(&r, 2003);
	now = r.e.raw + LABEL_DELAY;
	EXPECT_EQ(gpsphc_servo_label(&r.s, pps, old, tai, now,
				     phc_read(&r.phc, now), &o),
		  GPSPHC_SERVO_LABEL_UNKNOWN);
	EXPECT_EQ(o.flags & (GPSPHC_SERVO_OUT_STEP | GPSPHC_SERVO_OUT_ADJ), 0);
	EXPECT_EQ(r.s.counters.labels_refused, 1);
	first_label_sets(_metadata, &r, r.e_seq, r.e.tai_sec, 10, 1e6);
}

/*
 * A label for an edge 5 s old (userspace was slow) sets the clock just
 * as well: the step is carried to now at the estimated rate.
 */
TEST(late_first_label)
{
	struct rig r;
	u64 tai;
	u32 seq;

	rig_init(&r, 50000, 1000);
	rig_run(&r, 20);
	seq = r.e_seq;
	tai = r.e.tai_sec;
	rig_run(&r, 5);
	first_label_sets(_metadata, &r, seq, tai, 20, 3000.0);
}

/* Someone else moved the clock: reset, and the next label steps at once */
TEST(reset_and_relabel)
{
	struct rig r;

	rig_start(&r, 40);
	phc_step(&r.phc, r.e.raw + 500000000, 12345678);
	gpsphc_servo_reset(&r.s);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_UNLOCKED);
	rig_second(&r);
	EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_SET);
	rig_second(&r);
	EXPECT_LT(fabs(r.err), 3000.0);
	EXPECT_EQ(r.s.counters.edges, 42);
}

/*
 * Coarse mode: no PPS; each second a burst of 5 sentences, the first
 * starting 120 ms after the second with 2 ms of jitter (rx_latency_ns
 * says 120 ms). Only the first sentence of each burst counts; the status
 * says coarse; LOCKED within 20 bursts, then |error| < 10 ms (5 sigma of
 * the input's jitter) and the RMS below 2 ms.
 */
TEST(coarse_mode_locks)
{
	struct gpsphc_servo_out o;
	struct rig r;
	double sum = 0;
	int i, j, locked_at = -1;
	u32 first_seq = 0;

	rig_init(&r, 50000, 2000000);
	r.sim.cfg.latency_ns = 120000000;
	r.cfg.rx_latency_ns = 120000000;
	gpsphc_servo_configure(&r.s, &r.cfg);
	for (i = 0; i < 300; i++) {
		u64 lab_now;

		edge_sim_next(&r.sim, &r.e);
		r.err = rig_err(&r, r.e.raw_true, r.e.tai_sec);
		for (j = 0; j < 5; j++) {
			u64 raw = r.e.raw + j * 30000000ULL;

			u32 seq = rig_feed(&r, GPSPHC_SERVO_INPUT_SENTENCE, raw,
					   phc_read(&r.phc, raw - 120000000),
					   &o);

			rig_apply(&r, raw + EDGE_DELAY, &o);
			EXPECT_TRUE(o.flags & GPSPHC_SERVO_OUT_COARSE);
			EXPECT_EQ(!!(o.flags & GPSPHC_SERVO_OUT_USED), j == 0);
			if (!j) {
				r.out = o;
				first_seq = seq;
			}
		}
		lab_now = r.e.raw + LABEL_DELAY;
		gpsphc_servo_label(&r.s, GPSPHC_SERVO_INPUT_SENTENCE, first_seq,
				   r.e.tai_sec, lab_now,
				   phc_read(&r.phc, lab_now), &o);
		rig_apply(&r, lab_now, &o);
		gpsphc_servo_tick(&r.s, r.e.raw_true + TICK_DELAY, &o);
		rig_apply(&r, r.e.raw_true + TICK_DELAY, &o);
		if (locked_at < 0 && r.out.state == GPSPHC_SERVO_LOCKED)
			locked_at = i;
		if (i >= 50) {
			EXPECT_LT(fabs(r.err), 10e6);
			sum += r.err * r.err;
		}
	}
	ASSERT_GE(locked_at, 0);
	EXPECT_LE(locked_at, 20);
	EXPECT_LT(sqrt(sum / 250), 2e6);
	EXPECT_EQ(r.s.counters.ignored, 4 * 300);
	EXPECT_EQ(r.s.counters.edges, 300);
	EXPECT_TRUE(r.s.coarse);
}

/*
 * PPS lost for good: HOLDOVER first (the PPS-trained rate beats
 * millisecond inputs), sentence starts take over after coarse_after_ns
 * (set to 20 s here); when the PPS comes back the servo leaves coarse
 * mode and locks to it again. Bounds: |error| < 10 ms in coarse mode (5
 * sigma of its 2 ms input jitter), < 5 us once back on PPS.
 */
TEST(coarse_takes_over_and_hands_back)
{
	struct gpsphc_servo_out o;
	struct rig r;
	int i;

	rig_init(&r, 50000, 1000);
	r.cfg.coarse_after_ns = 20 * NS;
	r.cfg.rx_latency_ns = 152000000;
	gpsphc_servo_configure(&r.s, &r.cfg);
	r.label = true;
	for (i = 0; i < 160; i++) {
		bool pps = i < 60 || i >= 120;

		if (i == 60)
			edge_sim_drop(&r.sim, 60, 120);
		rig_second(&r);
		/* a sentence 150 ms after the second, 2 ms jitter */
		{
			u64 raw = r.e.raw_true + 150000000 +
				  (u64)(1e6 * (2 + edge_sim_gauss(&r.sim.rng)));

			u32 seq = rig_feed(&r, GPSPHC_SERVO_INPUT_SENTENCE, raw,
					   phc_read(&r.phc, raw - 152000000),
					   &o);

			rig_apply(&r, raw + EDGE_DELAY, &o);
			if (!pps && (o.flags & GPSPHC_SERVO_OUT_USED)) {
				u64 now = raw + LABEL_DELAY;

				gpsphc_servo_label(&r.s,
						   GPSPHC_SERVO_INPUT_SENTENCE,
						   seq, r.e.tai_sec, now,
						   phc_read(&r.phc, now), &o);
				rig_apply(&r, now, &o);
			}
		}
		if (i == 70)
			EXPECT_EQ(r.s.state, GPSPHC_SERVO_HOLDOVER);
		if (i == 70)
			EXPECT_FALSE(r.s.coarse);
		if (i >= 85 && i < 120) {
			EXPECT_TRUE(r.s.coarse);
			EXPECT_LT(fabs(r.err), 10e6);
		}
		if (i >= 150) {
			EXPECT_FALSE(r.s.coarse);
			EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
			EXPECT_LT(fabs(r.err), 5000.0);
		}
		if (pps && (r.out.flags & GPSPHC_SERVO_OUT_LABELLED))
			EXPECT_EQ(r.out.tai_sec, r.e.tai_sec);
	}
	EXPECT_EQ(r.s.counters.disagreements, 0);
}

/* With PPS present, sentence starts are ignored and change nothing. */
TEST(sentences_ignored_with_pps)
{
	struct gpsphc_servo_out o;
	struct rig r;
	int i;

	rig_init(&r, 50000, 1000);
	r.label = true;
	for (i = 0; i < 60; i++) {
		rig_second(&r);
		rig_feed(&r, GPSPHC_SERVO_INPUT_SENTENCE, r.e.raw + 150000000,
			 phc_read(&r.phc, r.e.raw + 150000000), &o);
		EXPECT_EQ(o.flags & (GPSPHC_SERVO_OUT_USED | GPSPHC_SERVO_OUT_ADJ |
				     GPSPHC_SERVO_OUT_STEP |
				     GPSPHC_SERVO_OUT_COARSE), 0);
	}
	EXPECT_EQ(r.s.counters.ignored, 60);
	EXPECT_LT(fabs(r.err), 2000.0);
}

/*
 * Any input at all: extreme and random raw times, clock readings and
 * labels never push a rate beyond max_ppb or the state out of its enum.
 * (Built with -fsanitize=undefined this also shows no overflow.)
 */
TEST(extreme_inputs)
{
	static const u64 raws[] = { 0, 1, 999999999, 1000000000, 1ULL << 62,
				    ~0ULL >> 1, ~0ULL - 1, ~0ULL };
	static const s64 phcs[] = { 0, -1, 1, (s64)(~0ULL >> 1),
				    -(s64)(~0ULL >> 1) - 1, 1LL << 62 };
	const s64 max = 500000LL * 65536;
	struct gpsphc_servo_out o;
	struct gpsphc_servo_cfg cfg;
	struct gpsphc_servo s;
	u64 rng = 7;
	int i;

	gpsphc_servo_default_cfg(&cfg);
	gpsphc_servo_init(&s, &cfg);
	for (i = 0; i < 200000; i++) {
		double u = edge_sim_uniform(&rng);
		u64 raw = raws[(int)(u * 8)];
		s64 phc = phcs[(int)(edge_sim_uniform(&rng) * 6)];
		u64 tai = raws[(int)(edge_sim_uniform(&rng) * 8)] >> (i % 40);

		if (i % 3)
			raw = (u64)(edge_sim_uniform(&rng) * 1e12) * (1 + i % 5);
		if (i % 7 == 0)
			gpsphc_servo_tick(&s, raw, &o);
		else if (i % 5 == 0)
			gpsphc_servo_label(&s, i % 2 ? GPSPHC_SERVO_INPUT_PPS :
					   GPSPHC_SERVO_INPUT_SENTENCE,
					   s.hist_len ? s.hist[i % s.hist_len].seq :
					   (u32)raw,
					   tai, raw + (u64)(i % 11) * NS, phc, &o);
		else
			gpsphc_servo_edge(&s, i % 13 ? GPSPHC_SERVO_INPUT_PPS :
					  GPSPHC_SERVO_INPUT_SENTENCE, (u32)i, raw,
					  phc, &o);
		if (o.flags & GPSPHC_SERVO_OUT_ADJ)
			ASSERT_LE(llabs(o.adj), max);
		ASSERT_GE(o.state, GPSPHC_SERVO_UNLOCKED);
		ASSERT_LE(o.state, GPSPHC_SERVO_HOLDOVER);
		if (i % 50000 == 0) {
			cfg.max_ppb = i ? ~0U : 0;
			cfg.pps.outlier_k = ~0U;
			gpsphc_servo_configure(&s, &cfg);
		}
	}
}

/*
 * A DCD storm while LOCKED (50 ppm, 1 us jitter): for 30 s an extra edge
 * every 1 ms from 0.5 ms after each real edge to 11.55 ms before the
 * next, 989 a second. Those up to 10.5 ms after an edge are within the
 * phase window but under half a second after the counted edge; the rest
 * are 11.5 ms or more from the clock's second, outside the window (10 ms
 * plus 500 ppm of under a second, 10.5 ms). So every one is spurious:
 * the spurious counter grows by exactly the extras fed, none is counted,
 * every real edge is, with its own number and TAI second. Labels are off
 * during the storm: the servo counts alone. Edges within 10 ms after the
 * counted one mean edges compete for the second (the counted one could
 * have been a glitch), so from the first such second on the counted
 * edges keep the count but do not steer: the clock runs at the loop's
 * rate estimate, as in holdover (not at the last correction: a slew
 * would run on through the storm, which the explorer found), and it
 * stays within 5 us (5 sigma of the jitter, as in locks_at_50ppm; 30 s
 * at the loop's rate error adds ns); LOCKED throughout, no step, no
 * outlier. Labels after it agree at once.
 */
TEST(dcd_storm_between_edges)
{
	const unsigned int per_sec = 989;
	struct gpsphc_servo_counters c0;
	struct rig r;
	s64 adj0 = 0;
	int i;

	rig_start(&r, 100);
	ASSERT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	c0 = r.s.counters;
	r.label = false;
	rig_extra_edges(&r, 500000, 1000000, per_sec);
	for (i = 0; i < 30; i++) {
		rig_second(&r);
		ASSERT_TRUE(r.out.flags & GPSPHC_SERVO_OUT_USED);
		EXPECT_EQ(r.out.edge_num, r.e.k);
		EXPECT_EQ(r.out.tai_sec, r.e.tai_sec);
		EXPECT_EQ(r.out.state, GPSPHC_SERVO_LOCKED);
		EXPECT_FALSE(r.out.flags & (GPSPHC_SERVO_OUT_STEP |
					    GPSPHC_SERVO_OUT_OUTLIER));
		if (i == 1)
			adj0 = r.phc.adj;
		if (i >= 1) {
			EXPECT_EQ(r.phc.adj, adj0) TH_LOG("second %d", i);
			EXPECT_EQ(r.phc.adj, r.s.freq);
		}
		EXPECT_LT(fabs(r.err), 5000.0);
	}
	EXPECT_EQ(r.x_fed, 30 * per_sec);
	EXPECT_EQ(r.x_used, 0);
	EXPECT_EQ(r.s.counters.spurious, c0.spurious + 30 * per_sec);
	EXPECT_EQ(r.s.counters.edges, c0.edges + 30);
	EXPECT_EQ(r.s.counters.missed, 0);
	EXPECT_EQ(r.s.counters.steps, c0.steps);
	EXPECT_EQ(r.s.counters.outliers, 0);
	EXPECT_EQ(r.s.counters.relocks, 0);

	r.x_n = 0;
	r.label = true;
	for (i = 0; i < 10; i++) {
		rig_second(&r);
		EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_AGREE);
		EXPECT_EQ(r.out.tai_sec, r.e.tai_sec);
		EXPECT_EQ(r.out.state, GPSPHC_SERVO_LOCKED);
		EXPECT_LT(fabs(r.err), 5000.0);
	}
	EXPECT_EQ(r.s.counters.steps, c0.steps);
	EXPECT_EQ(r.s.counters.spurious, c0.spurious + 30 * per_sec);
	EXPECT_EQ(r.s.counters.disagreements, 0);
}

/*
 * A latency spike among the first edges, on a port with a busy virtual
 * machine's capture noise (50 us, 50 ppm): edge 1, the second edge taken,
 * 2.6 ms late. A least-squares start takes it whole (a two-point line:
 * a rate 2600 ppm off, clamped), and a mean of the first second
 * differences then reads the noise as about a millisecond, so that the
 * offsets of a loop still far from the pulses once passed for noise:
 * LOCKED with the clock 0.57 ms off and the rate 200 ppm off, which a
 * DCD storm right after held for its seconds (hostile_test's storm, one
 * run in eight under TCG). LOCKED must mean converged: from the edge it
 * locks at, the clock is within 250 us (5 sigma) of the truth. Then a
 * storm of 3 s, an extra edge every 1 ms (those just before a second
 * compete with its edge): the clock stays within 1 ms, and 5 s after
 * it within 250 us again, LOCKED, never stepped.
 */
/*
 * Rig @r with the noise above and a spike of @spike_ns at edge @k, every
 * edge labelled, for up to @seconds: from the edge it locks at, the clock
 * within 250 us of the truth, until @after edges past it. Returns that
 * edge, -1 if it never locked.
 */
static int lock_past_spike(struct __test_metadata *_metadata, struct rig *r,
			   u64 spike_ns, int k, int seconds, int after)
{
	int i, locked_at = -1;

	rig_init(r, 50000, 50000);
	r->label = true;
	r->extra_ns = spike_ns;
	r->extra_k[r->n_extra++] = k;
	for (i = 0; i < seconds; i++) {
		rig_second(r);
		if (r->s.state != GPSPHC_SERVO_LOCKED)
			continue;
		if (locked_at < 0)
			locked_at = i;
		EXPECT_LT(fabs(r->err), 250000.0)
			TH_LOG("second %d, locked at %d: %.0f ns", i, locked_at,
			       r->err);
		if (i >= locked_at + after)
			break;
	}
	TH_LOG("locked at edge %d", locked_at);
	return locked_at;
}

TEST(spike_in_the_first_edges_locks_converged)
{
	struct rig r;
	int i, locked_at;
	u64 steps;

	locked_at = lock_past_spike(_metadata, &r, 2600000, 1, 40, 5);
	ASSERT_LE(0, locked_at) TH_LOG("not locked in 40 s");
	steps = r.s.counters.steps;
	rig_extra_edges(&r, 500000, 1000000, 999);
	for (i = 0; i < 3; i++) {
		rig_second(&r);
		EXPECT_LT(fabs(r.err), 1000000.0) TH_LOG("storm second %d: %.0f ns", i, r.err);
	}
	r.x_n = 0;
	for (i = 0; i < 8; i++) {
		rig_second(&r);
		EXPECT_LT(fabs(r.err), i < 5 ? 1000000.0 : 250000.0)
			TH_LOG("second %d after the storm: %.0f ns", i, r.err);
	}
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	EXPECT_EQ(r.s.counters.steps, steps);
}

/*
 * The same capture noise, a spike of 3.9 ms at edge 2 (arm64 under TCG,
 * phc_test's lock fixture): the least-squares lines took it before they
 * screen, and converged as 1/n: there the clock was 600 us off 20 edges
 * later, never LOCKED; here, LOCKED at edge 9 and 460 us off at edge 24.
 * The history's robust estimate corrects them while LOCKING
 * (sv_kf_refit()): LOCKED within 15 edges, and from there within 250 us
 * (5 sigma) of the truth.
 */
TEST(spike_at_the_third_edge_corrected_while_locking)
{
	struct rig r;
	int locked_at;

	locked_at = lock_past_spike(_metadata, &r, 3900000, 2, 25, 25);
	ASSERT_LE(0, locked_at) TH_LOG("not locked in 25 s");
	EXPECT_GE(15, locked_at);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
}

/*
 * A receiver set to @per_sec pulses a second, every edge labelled from
 * the first: the pulses between the seconds (at true fractions of the
 * second, 1/@per_sec apart) are all spurious, exactly 60 * (@per_sec - 1)
 * in 60 s; every second's own edge is counted with its number and TAI
 * second, every label agrees; one step, the first label's. LOCKED within
 * 10 edges and then |error| < 5 us, as with one pulse a second
 * (locks_at_50ppm: 5 sigma of the jitter).
 */
static void multi_pps(struct __test_metadata *_metadata, unsigned int per_sec)
{
	struct rig r;
	u64 period;
	int i, locked_at = -1;

	rig_init(&r, 50000, 1000);
	r.label = true;
	/* the raw ns of one true second: 1e9 + 50 ppm */
	period = NS + 50000;
	rig_extra_edges(&r, period / per_sec, period / per_sec, per_sec - 1);
	for (i = 0; i < 60; i++) {
		rig_second(&r);
		ASSERT_TRUE(r.out.flags & GPSPHC_SERVO_OUT_USED);
		EXPECT_EQ(r.out.edge_num, r.e.k);
		EXPECT_EQ(r.lres, i ? GPSPHC_SERVO_LABEL_AGREE :
			  GPSPHC_SERVO_LABEL_SET);
		if (i)
			EXPECT_EQ(r.out.tai_sec, r.e.tai_sec);
		if (locked_at < 0 && r.out.state == GPSPHC_SERVO_LOCKED)
			locked_at = i;
		if (i >= 20)
			EXPECT_LT(fabs(r.err), 5000.0);
	}
	ASSERT_GE(locked_at, 0);
	EXPECT_LE(locked_at, 10);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	EXPECT_EQ(r.x_fed, 60 * (per_sec - 1));
	EXPECT_EQ(r.x_used, 0);
	EXPECT_EQ(r.s.counters.spurious, 60 * (per_sec - 1));
	EXPECT_EQ(r.s.counters.edges, 60);
	EXPECT_EQ(r.s.counters.missed, 0);
	EXPECT_EQ(r.s.counters.steps, 1);
	EXPECT_EQ(r.s.counters.disagreements, 0);
}

TEST(two_pulses_a_second)
{
	multi_pps(_metadata, 2);
}

TEST(ten_pulses_a_second)
{
	multi_pps(_metadata, 10);
}

/*
 * The first edge ever is a glitch, @before ns ahead of the real pulses
 * (a second apart from then on); every real edge is labelled. The glitch
 * is counted (number 0: nothing to judge it by). The real edges are off
 * its phase, so spurious, their labels refused, until SV_REPHASE_EDGES
 * (4) of them a second apart with no counted edge meanwhile: real edges
 * 0..3, the 4th of which becomes the new phase, whether the first came
 * under half a second after the glitch or not. That edge is numbered by
 * the time since the glitch (3.3 s: 3, two seconds missed; 3.7 s: 4,
 * three missed), takes the first label (the only step) and from then
 * on every real edge counts with its TAI second: LOCKED within 10 edges
 * of the label (as in locks_at_50ppm), never further than the phase
 * window (10 ms) from a real edge, which would make it spurious, and
 * within 5 us (5 sigma of the jitter) after 16 more.
 */
static void first_edge_glitch(struct __test_metadata *_metadata, u64 before,
			      u64 first_k, u64 num)
{
	struct gpsphc_servo_out o;
	struct rig r;
	u64 k;
	int locked_at = -1;

	rig_init(&r, 50000, 1000);
	r.label = true;
	rig_feed(&r, GPSPHC_SERVO_INPUT_PPS, RAW0 - before, 0, &o);
	EXPECT_TRUE(o.flags & GPSPHC_SERVO_OUT_USED);
	EXPECT_EQ(o.edge_num, 0);
	EXPECT_FALSE(o.flags & (GPSPHC_SERVO_OUT_STEP | GPSPHC_SERVO_OUT_ADJ));
	for (k = 0; k < first_k; k++) {
		rig_second(&r);
		EXPECT_FALSE(r.out.flags & GPSPHC_SERVO_OUT_USED);
		EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_UNCOUNTED);
		EXPECT_EQ(r.s.counters.spurious, k + 1);
		EXPECT_EQ(r.s.state, GPSPHC_SERVO_UNLOCKED);
	}
	rig_second(&r);
	ASSERT_TRUE(r.out.flags & GPSPHC_SERVO_OUT_USED);
	EXPECT_EQ(r.out.edge_num, num);
	EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_SET);
	EXPECT_EQ(r.s.counters.missed, num - 1);
	EXPECT_EQ(r.s.counters.steps, 1);
	for (k = first_k + 1; k < first_k + 50; k++) {
		rig_second(&r);
		ASSERT_TRUE(r.out.flags & GPSPHC_SERVO_OUT_USED);
		EXPECT_EQ(r.out.edge_num, k + num - first_k);
		EXPECT_EQ(r.out.tai_sec, r.e.tai_sec);
		EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_AGREE);
		EXPECT_LT(fabs(r.err), 10e6);
		if (locked_at < 0 && r.out.state == GPSPHC_SERVO_LOCKED)
			locked_at = (int)(k - first_k);
		if (k > first_k + 16)
			EXPECT_LT(fabs(r.err), 5000.0);
	}
	ASSERT_GE(locked_at, 0);
	EXPECT_LE(locked_at, 10);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	EXPECT_EQ(r.s.counters.spurious, first_k);
	EXPECT_EQ(r.s.counters.steps, 1);
	EXPECT_EQ(r.s.counters.disagreements, 0);
}

TEST(first_edge_glitch_0_3s_ahead)
{
	first_edge_glitch(_metadata, 300000000, 3, 3);
}

TEST(first_edge_glitch_0_7s_ahead)
{
	first_edge_glitch(_metadata, 700000000, 3, 4);
}

/* Label the last edge again, @ms ms later than the rig did */
static int rig_relabel(struct rig *r, s64 skew, u64 ms)
{
	u64 now = r->e.raw + LABEL_DELAY + ms * 1000000;
	int ret;

	ret = gpsphc_servo_label(&r->s, GPSPHC_SERVO_INPUT_PPS, r->e_seq,
				 r->e.tai_sec + skew, now,
				 phc_read(&r->phc, now), &r->lout);
	rig_apply(r, now, &r->lout);
	return ret;
}

/*
 * Labels name an input by its kind and sequence number, as captured:
 * across the wrap of the 32-bit sequence, a PPS edge and a sentence with
 * the same number are two inputs, and a sentence the servo did not count
 * (a PPS is present) is refused as such, not as unknown.
 */
TEST(labels_name_kind_and_seq)
{
	const enum gpsphc_servo_input pps = GPSPHC_SERVO_INPUT_PPS;
	const enum gpsphc_servo_input sentence = GPSPHC_SERVO_INPUT_SENTENCE;
	struct gpsphc_servo_out o;
	struct rig r;
	u32 ignored;
	int i;

	rig_init(&r, 50000, 1000);
	r.seq[pps] = 0xfffffff0U;
	r.seq[sentence] = 0xfffffff0U;
	r.label = true;
	for (i = 0; i < 40; i++) {
		rig_second(&r);
		EXPECT_EQ(r.lres, i ? GPSPHC_SERVO_LABEL_AGREE :
			  GPSPHC_SERVO_LABEL_SET);
		ignored = rig_feed(&r, sentence, r.e.raw + 150000000,
				   phc_read(&r.phc, r.e.raw + 150000000), &o);
		EXPECT_FALSE(o.flags & GPSPHC_SERVO_OUT_USED);
	}
	EXPECT_EQ(r.e_seq, 0xfffffff0U + 39);
	EXPECT_EQ(ignored, r.e_seq);
	EXPECT_EQ(rig_relabel(&r, 0, 1), GPSPHC_SERVO_LABEL_AGREE);
	EXPECT_EQ(gpsphc_servo_label(&r.s, sentence, ignored, r.e.tai_sec,
				     r.e.raw + NS / 2, 0, &o),
		  GPSPHC_SERVO_LABEL_UNCOUNTED);
	EXPECT_EQ(gpsphc_servo_label(&r.s, sentence, ignored + 1, r.e.tai_sec,
				     r.e.raw + NS / 2, 0, &o),
		  GPSPHC_SERVO_LABEL_FUTURE);
	/* before the wrap, older than the 32 edges kept */
	EXPECT_EQ(gpsphc_servo_label(&r.s, pps, 0xfffffff5U, r.e.tai_sec,
				     r.e.raw + NS / 2, 0, &o),
		  GPSPHC_SERVO_LABEL_UNKNOWN);
	EXPECT_EQ(r.s.counters.labels_refused, 3);
	EXPECT_EQ(r.s.counters.steps, 1);
}

/*
 * Three identical wrong labels for one edge are one label: -1024 weeks
 * (a week-number rollover) three times for edge E, then +1 s three times
 * for E + 1 and for E + 2, each DISAGREE, counted, nothing moved (no
 * step, tai_base as it was). The +1 s labels of E + 1 and E + 2 count
 * once each, so one more for E + 3 confirms them (confirm_n 3): a step
 * of exactly 1 s, and the count moved by one.
 */
TEST(label_repeats_count_once)
{
	const s64 rollover = -619315200;	/* 1024 weeks */
	struct rig r;
	u64 steps, base, disagreements;
	int e, j;

	rig_start(&r, 60);
	steps = r.s.counters.steps;
	base = r.s.tai_base;
	disagreements = r.s.counters.disagreements;
	r.label = false;
	for (e = 0; e < 3; e++) {
		rig_second(&r);
		ASSERT_TRUE(r.out.flags & GPSPHC_SERVO_OUT_USED);
		for (j = 0; j < 3; j++) {
			EXPECT_EQ(rig_relabel(&r, e ? 1 : rollover, j),
				  GPSPHC_SERVO_LABEL_DISAGREE);
			EXPECT_TRUE(r.lout.flags & GPSPHC_SERVO_OUT_DISAGREE);
			EXPECT_FALSE(r.lout.flags & GPSPHC_SERVO_OUT_STEP);
			EXPECT_EQ(r.lout.edge_num, r.e.k);
			EXPECT_EQ(r.s.counters.steps, steps);
			EXPECT_EQ(r.s.tai_base, base);
		}
		EXPECT_LT(fabs(r.err), 5000.0);
	}
	EXPECT_EQ(r.s.counters.disagreements, disagreements + 9);
	rig_second(&r);
	EXPECT_EQ(rig_relabel(&r, 1, 0), GPSPHC_SERVO_LABEL_APPLIED);
	EXPECT_TRUE(r.lout.flags & GPSPHC_SERVO_OUT_STEP);
	EXPECT_EQ(r.lout.step_ns, NS);
	EXPECT_EQ(r.s.counters.steps, steps + 1);
	EXPECT_EQ(r.s.tai_base, base + 1);
	EXPECT_EQ(r.s.counters.disagreements, disagreements + 10);
	r.label = true;
	r.skew = 1;
	for (j = 0; j < 5; j++) {
		rig_second(&r);
		EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_AGREE);
		EXPECT_EQ(r.out.tai_sec, r.e.tai_sec + 1);
		/* the clock reads the labels' second: 1 s ahead */
		EXPECT_LT(fabs(r.err - NS), 5000.0);
	}
}

/*
 * Confirmation needs the same disagreement for confirm_n (3) distinct
 * consecutive edges; the script gives, each second, the label (+1 s, or
 * 0: agreeing), none, or no pulse at all, and what the label must return.
 * Each script moves the count once, by exactly 1 s, on its last label.
 */
enum { LAB, NOLAB, DROP };

struct label_step {
	int what;
	s64 skew;
	int want;
};

static void label_script(struct __test_metadata *_metadata,
			 const struct label_step *st, unsigned int n)
{
	struct rig r;
	u64 steps, base, disagreements = 0;
	unsigned int i;

	rig_start(&r, 60);
	steps = r.s.counters.steps;
	base = r.s.tai_base;
	for (i = 0; i < n; i++) {
		r.label = st[i].what == LAB;
		r.skew = st[i].skew;
		if (st[i].what == DROP)
			edge_sim_drop(&r.sim, r.sim.k, r.sim.k + 1);
		rig_second(&r);
		EXPECT_EQ(r.lres, st[i].want);
		if (r.lres == GPSPHC_SERVO_LABEL_DISAGREE ||
		    r.lres == GPSPHC_SERVO_LABEL_APPLIED)
			disagreements++;
		if (r.lres != GPSPHC_SERVO_LABEL_APPLIED) {
			EXPECT_EQ(r.s.counters.steps, steps);
			EXPECT_EQ(r.s.tai_base, base);
		}
		if (st[i].what != DROP)
			EXPECT_EQ(r.out.edge_num, r.e.k);
	}
	EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_APPLIED);
	EXPECT_EQ(r.lout.step_ns, NS);
	EXPECT_EQ(r.s.counters.steps, steps + 1);
	EXPECT_EQ(r.s.tai_base, base + 1);
	EXPECT_EQ(r.s.counters.disagreements, disagreements);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
}

#define D	GPSPHC_SERVO_LABEL_DISAGREE
#define A	GPSPHC_SERVO_LABEL_APPLIED

TEST(label_confirm_consecutive)
{
	static const struct label_step st[] = {
		{ LAB, 1, D }, { LAB, 1, D }, { LAB, 1, A },
	};

	label_script(_metadata, st, 3);
}

/* An edge with no label in between: the confirmation starts again */
TEST(label_confirm_restarts_after_unlabelled_edge)
{
	static const struct label_step st[] = {
		{ LAB, 1, D }, { LAB, 1, D }, { NOLAB, 0, 0 },
		{ LAB, 1, D }, { LAB, 1, D }, { LAB, 1, A },
	};

	label_script(_metadata, st, 6);
}

/* A missing pulse in between: the labelled edges are not consecutive */
TEST(label_confirm_restarts_after_missed_pulse)
{
	static const struct label_step st[] = {
		{ LAB, 1, D }, { LAB, 1, D }, { DROP, 0, 0 },
		{ LAB, 1, D }, { LAB, 1, D }, { LAB, 1, A },
	};

	label_script(_metadata, st, 6);
}

/* An agreeing label in between clears the pending change */
TEST(label_confirm_cleared_by_agreeing_label)
{
	static const struct label_step st[] = {
		{ LAB, 1, D }, { LAB, 1, D },
		{ LAB, 0, GPSPHC_SERVO_LABEL_AGREE },
		{ LAB, 1, D }, { LAB, 1, D }, { LAB, 1, A },
	};

	label_script(_metadata, st, 6);
}

#undef D
#undef A

/*
 * gpsphc_servo_confirm() itself, one label at a time: whether it
 * confirms, and how many labels it then holds (the label's edge number
 * is always the one it keeps).
 */
TEST(servo_confirm)
{
	static const struct {
		bool same;
		u64 num;
		u32 need, n;
		bool ret;
	} st[] = {
		/* need 3: a new change, a repeat, the next edge... */
		{ false, 10, 3, 1, false }, { true, 10, 3, 1, false },
		{ true, 11, 3, 2, false }, { true, 11, 3, 2, false },
		{ true, 12, 3, 0, true },
		/* cleared: the next label starts again, "same" or not */
		{ true, 13, 3, 1, false }, { true, 14, 3, 2, false },
		/* an edge skipped: start again from this one */
		{ true, 16, 3, 1, false }, { true, 17, 3, 2, false },
		/* an older edge: start again */
		{ true, 15, 3, 1, false }, { true, 16, 3, 2, false },
		/* another change for the next edge, then for the same edge */
		{ false, 17, 3, 1, false }, { false, 17, 3, 1, false },
		{ true, 18, 3, 2, false }, { true, 19, 3, 0, true },
		/* need 1: every label confirms at once, a repeat too */
		{ false, 5, 1, 0, true }, { true, 5, 1, 0, true },
		/* need 2: a repeat is not the second */
		{ false, 7, 2, 1, false }, { true, 7, 2, 1, false },
		{ true, 7, 2, 1, false }, { true, 8, 2, 0, true },
	};
	struct gpsphc_servo_confirm c = { 0 };
	unsigned int i;

	for (i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
		EXPECT_EQ(gpsphc_servo_confirm(&c, st[i].same, st[i].num,
					       st[i].need), st[i].ret)
			TH_LOG("label %u", i);
		EXPECT_EQ(c.n, st[i].n)
			TH_LOG("label %u", i);
		EXPECT_EQ(c.num, st[i].num)
			TH_LOG("label %u", i);
	}
}

/*
 * A 1 kHz DCD storm over the whole second,
 * edges from 0.5 ms after each real edge up to 0.5 ms before the next,
 * 1000 a second, while LOCKED and labelled as usual. Storm edges within
 * the phase window before a real edge are taken as its second (the real
 * edge is then under half a second after it: spurious). The least the
 * servo must keep: one counted input a second (the count neither gains
 * nor loses a second), no step (the window is under the step threshold,
 * so "a glitch that lands in it" must not step), the clock within the
 * phase window (10 ms) of the truth, and LOCKED with agreeing labels
 * within 10 edges after the storm.
 */
TEST(dcd_storm_1khz_whole_second)
{
	struct gpsphc_servo_counters c0;
	struct rig r;
	int i, locked_at = -1;

	rig_start(&r, 100);
	ASSERT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	c0 = r.s.counters;
	rig_extra_edges(&r, 500000, 1000000, 1000);
	for (i = 0; i < 30; i++) {
		rig_second(&r);
		EXPECT_LT(fabs(r.err), 10e6);
	}
	/*
	 * One counted input a second: 30 real or storm edges, and the storm
	 * edge 0.5 ms before the 31st real edge, which takes its second.
	 */
	EXPECT_EQ(r.s.counters.edges, c0.edges + 31);
	EXPECT_EQ(r.s.counters.spurious, c0.spurious + 30 * 1001 - 31);
	EXPECT_EQ(r.s.counters.steps, c0.steps);
	r.x_n = 0;
	for (i = 0; i < 20; i++) {
		rig_second(&r);
		if (locked_at < 0 && r.out.state == GPSPHC_SERVO_LOCKED &&
		    r.lres == GPSPHC_SERVO_LABEL_AGREE)
			locked_at = i;
	}
	EXPECT_GE(locked_at, 0);
	EXPECT_LE(locked_at, 10);
	EXPECT_EQ(r.out.tai_sec, r.e.tai_sec);
	EXPECT_EQ(r.s.counters.steps, c0.steps);
	TH_LOG("steps %llu, counted %llu in 30 s, storm edges counted %llu, "
	       "error after %.0f ns",
	       (unsigned long long)(r.s.counters.steps - c0.steps),
	       (unsigned long long)(r.s.counters.edges - c0.edges - 20),
	       (unsigned long long)r.x_used, r.err);
}

/*
 * Labels during a storm (dcd_storm_between_edges, labels on): the 300 ms
 * between an edge and its label bring about 300 spurious edges, which
 * stay out of the servo's history, so the labelled edge is still there
 * and its label agrees.
 */
TEST(labels_during_storm)
{
	struct rig r;
	int i;

	rig_start(&r, 100);
	rig_extra_edges(&r, 500000, 1000000, 989);
	for (i = 0; i < 5; i++) {
		rig_second(&r);
		EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_AGREE);
	}
}

/*
 * Issue 29: the pulses move by J at edge 100 and stay there (a receiver
 * restart, a changed cable delay, another receiver plugged in); every
 * edge labelled with its true second, so the labels name the right
 * seconds throughout. The truth is the new pulses. Or: the pulses never
 * move, and the clock is off by J just after the first label sets it.
 * 1 us of jitter, the oscillator 1 ppm off either way, J from 1 ms to
 * half a second either way. The servo must follow any consistent phase
 * within a bound (phase_move_bound()), and stay with it: from the first
 * of 10 edges in a row LOCKED within 1 us of the truth to the end of the
 * run (300 edges after the move), never HOLDOVER, |error| under 5 us (5
 * sigma of the jitter, as in locks_at_50ppm) and LOCKED at the end.
 */
static const int phase_moves_ms[] = {
	1, 5, 9, 11, 12, 15, 20, 25, 30, 35, 40, 50, 100, 500,
};

#define MOVE_AT		100
#define MOVE_RUN	300
#define MOVE_LOCK_RUN	10

struct move_result {
	int at;			/* edges after the move to recovery, -1: never */
	double max_after;	/* |error| from then on, ns */
	u64 holdovers;		/* entered from then on */
	enum gpsphc_servo_state end;
};

/*
 * Run the rig @n seconds from a disturbance: where 10 edges in a row are
 * first LOCKED within 1 us (the first of them, counting the disturbed
 * edge as 0), and how it went from there.
 */
static struct move_result rig_recovery(struct rig *r, unsigned int n)
{
	struct move_result m = { .at = -1 };
	unsigned int i, run = 0;
	u64 h0 = 0;

	for (i = 0; i < n; i++) {
		rig_second(r);
		if (m.at >= 0) {
			m.max_after = fmax(m.max_after, fabs(r->err));
			continue;
		}
		if (r->out.state == GPSPHC_SERVO_LOCKED && fabs(r->err) < 1000.0)
			run++;
		else
			run = 0;
		if (run == MOVE_LOCK_RUN) {
			m.at = (int)(i + 1 - MOVE_LOCK_RUN);
			h0 = r->s.counters.holdovers;
		}
	}
	m.holdovers = r->s.counters.holdovers - h0;
	m.end = r->s.state;
	return m;
}

/* The pulses move by @j ns at edge MOVE_AT, the oscillator @ppb off */
static struct move_result phase_move(struct rig *r, double ppb, s64 j)
{
	rig_init(r, ppb, 1000);
	r->label = true;
	rig_run(r, MOVE_AT - 1);
	/* The last tick before the move comes before the moved edge. */
	r->tick_delay = j < 0 ? 400000000 : 0;
	rig_second(r);
	r->tick_delay = 0;
	r->moved_ns = j;
	return rig_recovery(r, MOVE_RUN);
}

/* The clock is @j ns off just after the first label, the oscillator @ppb */
static struct move_result clock_off_at_label(struct rig *r, double ppb, s64 j)
{
	rig_init(r, ppb, 1000);
	r->label = true;
	rig_second(r);
	phc_step(&r->phc, r->e.raw + LABEL_DELAY, j);
	return rig_recovery(r, MOVE_RUN);
}

/*
 * The bound, edges from the disturbance to the first of 10 LOCKED within
 * 1 us: beyond the step threshold (20 ms), 16: SV_REPHASE_EDGES (4)
 * edges off the old phase before the count takes the new one, a step,
 * GPSPHC_SERVO_LOCK_EDGES (4) to LOCKED and the loop's settling (8; 14 in
 * all is measured). Within it, 20 more than the slew at max_ppb (500 ppm:
 * 2 edges a ms): the count's window grows by max_ppb a second after a
 * pulse it did not count, so edges from 10 to 11 ms off alternate
 * between counted (outliers to the loop) and not, and the loop relocks
 * only after outlier_max (3) of them, 7 edges in (11 ms: 22 + 15 is
 * measured).
 */
static int phase_move_bound(s64 j)
{
	u64 mag = (u64)llabs(j);

	if (mag > 20000000)
		return 16;
	return 20 + (int)((mag + 499999) / 500000);
}

static void phase_sweep(struct __test_metadata *_metadata,
			struct move_result (*run)(struct rig *, double, s64))
{
	static const double ppbs[] = { 1000, -1000 };
	struct move_result m;
	unsigned int i, k, fails = 0;
	struct rig r;
	char line[256];
	int len;

	for (i = 0; i < ARRAY_SIZE(phase_moves_ms); i++) {
		len = snprintf(line, sizeof(line), "J %4d ms (bound %2d):",
			       phase_moves_ms[i],
			       phase_move_bound(phase_moves_ms[i] * 1000000LL));
		for (k = 0; k < 4; k++) {
			s64 j = phase_moves_ms[i] * 1000000LL * (k & 1 ? -1 : 1);
			bool ok;

			m = run(&r, ppbs[k / 2], j);
			ok = m.at >= 0 && m.at <= phase_move_bound(j) &&
			     !m.holdovers && m.max_after < 5000.0 &&
			     m.end == GPSPHC_SERVO_LOCKED;
			fails += !ok;
			len += snprintf(line + len, sizeof(line) - len,
					" %+6.0f ppb %c: %4d%s", ppbs[k / 2],
					k & 1 ? '-' : '+', m.at, ok ? "" : " FAIL");
		}
		TH_LOG("%s", line);
	}
	EXPECT_EQ(fails, 0);
}

TEST(phase_move_sweep)
{
	phase_sweep(_metadata, phase_move);
}

TEST(clock_off_at_first_label_sweep)
{
	phase_sweep(_metadata, clock_off_at_label);
}

/*
 * While the servo holds the old phase against steady pulses, its status
 * says so: the pulses move by @j (15 ms: beyond the phase window, under
 * the step threshold); the 1st edge at the new phase is off phase alone
 * (no OFF_PHASE yet: one edge may be a glitch), the 2nd and 3rd make it
 * OFF_PHASE with their offset, within 10 us of @j (the jitter and the
 * rate's error over 3 s), whatever the state says (HOLDOVER from the
 * tick 2.6 s after the last counted edge). The 4th is the new phase:
 * counted, one rephase, no OFF_PHASE any more. Pulses that then stop
 * after two edges off phase leave no OFF_PHASE 1.5 s after the last.
 */
static void off_phase_status(struct __test_metadata *_metadata, s64 j)
{
	struct rig r;
	int i;

	rig_start(&r, 100);
	ASSERT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	r.moved_ns = j;
	rig_second(&r);
	EXPECT_FALSE(r.out.flags & GPSPHC_SERVO_OUT_USED);
	EXPECT_EQ(r.tout.off_phase_n, 1);
	EXPECT_FALSE(r.tout.flags & GPSPHC_SERVO_OUT_OFF_PHASE);
	for (i = 2; i <= 3; i++) {
		rig_second(&r);
		EXPECT_FALSE(r.out.flags & GPSPHC_SERVO_OUT_USED);
		EXPECT_EQ(r.lres, GPSPHC_SERVO_LABEL_UNCOUNTED);
		EXPECT_EQ(r.tout.off_phase_n, i);
		EXPECT_TRUE(r.tout.flags & GPSPHC_SERVO_OUT_OFF_PHASE);
		EXPECT_LT(llabs(r.tout.off_phase_ns - j), 10000);
	}
	EXPECT_EQ(r.tout.state, GPSPHC_SERVO_HOLDOVER);
	rig_second(&r);
	EXPECT_TRUE(r.out.flags & GPSPHC_SERVO_OUT_USED);
	EXPECT_EQ(r.out.tai_sec, r.e.tai_sec);
	EXPECT_EQ(r.s.counters.rephases, 1);
	EXPECT_EQ(r.tout.off_phase_n, 0);
	EXPECT_FALSE(r.tout.flags & GPSPHC_SERVO_OUT_OFF_PHASE);
	rig_run(&r, 60);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);

	r.moved_ns += j;
	rig_run(&r, 2);
	EXPECT_TRUE(r.tout.flags & GPSPHC_SERVO_OUT_OFF_PHASE);
	edge_sim_drop(&r.sim, r.sim.k, r.sim.k + 10);
	rig_second(&r);		/* the tick 1.6 s after the last edge */
	EXPECT_EQ(r.tout.off_phase_n, 0);
	EXPECT_FALSE(r.tout.flags & GPSPHC_SERVO_OUT_OFF_PHASE);
}

TEST(off_phase_status_late)
{
	off_phase_status(_metadata, 15000000);
}

TEST(off_phase_status_early)
{
	off_phase_status(_metadata, -15000000);
}

TEST_HARNESS_MAIN
