// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the servo's estimator ops table and of its PI estimator
 * (kmod/servo/pi.c, clock_servo pi): that it is linuxptp's PI (checked
 * edge by edge against lptp_servos.c, the same algorithm in floating
 * point), that it steps and relocks as linuxptp does, and that switching
 * estimators keeps the count, the labels and the states whole.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "edge_sim.h"
#include "lptp_servos.h"

#define RAW0		5000000000000ULL
#define TAI0		1750000037ULL
#define LABEL_DELAY	300000000ULL
#define TICK_DELAY	600000000ULL

struct pi_rig {
	struct gpsphc_servo s;
	struct gpsphc_servo_cfg cfg;
	struct edge_sim sim;
	struct phc_model phc;
	struct gpsphc_servo_out out;
	struct edge_sim_edge e;
	s64 moved_ns;		/* added to every edge from now on */
	u32 seq;
};

static void pi_rig_init(struct pi_rig *r, enum gpsphc_clock_servo est,
			double ppb, double jitter, u64 seed)
{
	struct edge_sim_cfg c = {
		.freq_ppb = ppb, .jitter_ns = jitter, .seed = seed,
		.raw0 = RAW0, .tai0 = TAI0,
	};

	memset(r, 0, sizeof(*r));
	gpsphc_servo_default_cfg(&r->cfg);
	r->cfg.clock_servo = est;
	gpsphc_servo_init(&r->s, &r->cfg);
	edge_sim_init(&r->sim, &c);
	phc_init(&r->phc, 0, 0, r->cfg.max_ppb);
}

/* One second: the edge if present, its label, a tick. Returns the error. */
static double pi_rig_second(struct pi_rig *r)
{
	struct gpsphc_servo_out o;
	struct edge_sim_edge *e = &r->e;
	double err;
	u64 now;

	edge_sim_next(&r->sim, e);
	e->raw += r->moved_ns;
	e->raw_true += r->moved_ns;
	err = (double)(phc_read(&r->phc, e->raw_true) -
		       (s64)e->tai_sec * 1000000000LL);
	if (e->present) {
		gpsphc_servo_edge(&r->s, GPSPHC_SERVO_INPUT_PPS, r->seq, e->raw,
				  phc_read(&r->phc, e->raw), &r->out);
		phc_apply(&r->phc, e->raw, &r->out);
		now = e->raw + LABEL_DELAY;
		gpsphc_servo_label(&r->s, GPSPHC_SERVO_INPUT_PPS, r->seq++,
				   e->tai_sec, now, phc_read(&r->phc, now), &o);
		phc_apply(&r->phc, now, &o);
	}
	now = e->raw_true + TICK_DELAY;
	gpsphc_servo_tick(&r->s, now, &o);
	phc_apply(&r->phc, now, &o);
	return err;
}

static void pi_rig_run(struct pi_rig *r, unsigned int n)
{
	while (n--)
		pi_rig_second(r);
}

/*
 * Edge by edge, the PI estimator is linuxptp's PI with ptp4l's hardware
 * gains: both steer a clock from the same edges (1 us jitter, a rate
 * that wanders 1 ppb/s), and once the start is forgotten (its transient
 * decays as 0.55^n) their clocks' errors differ only by rounding: the
 * PI in 2^-16 ppb integers, linuxptp in doubles. Seeds 1, 27, 1588.
 */
TEST(pi_is_linuxptps_pi)
{
	static const u64 seeds[] = { 1, 27, 1588 };
	unsigned int i, k, edges = 0;
	double worst = 0;

	for (i = 0; i < 3; i++) {
		enum lptp_state st = LPTP_UNLOCKED;
		struct edge_sim_edge le;
		struct phc_model lphc;
		struct edge_sim lsim;
		struct lptp_pi lpi;
		struct pi_rig r;
		double ppb, ours, theirs;
		s64 off;

		pi_rig_init(&r, GPSPHC_CLOCK_SERVO_PI, 30000, 1000, seeds[i]);
		r.sim.cfg.wander_ppb = 1;
		lsim = r.sim;
		phc_init(&lphc, 0, 0, r.cfg.max_ppb);
		lptp_pi_init(&lpi, 0.7, 0.3, r.cfg.max_ppb);
		for (k = 0; k < 1000; k++) {
			ours = pi_rig_second(&r);
			edge_sim_next(&lsim, &le);
			theirs = (double)(phc_read(&lphc, le.raw_true) -
					  (s64)le.tai_sec * 1000000000LL);
			off = phc_read(&lphc, le.raw) -
			      (s64)le.tai_sec * 1000000000LL;
			ppb = lptp_pi_sample(&lpi, off,
					     (u64)phc_read(&lphc, le.raw), &st);
			if (st == LPTP_JUMP)
				phc_step(&lphc, le.raw, -off);
			if (st != LPTP_UNLOCKED)
				phc_set_adj(&lphc, le.raw,
					    (s64)llround(-ppb * 65536.0));
			if (k < 100)
				continue;
			edges++;
			worst = fmax(worst, fabs(ours - theirs));
		}
		EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
		EXPECT_EQ(r.s.counters.outliers, 0);
		EXPECT_EQ(r.s.counters.relocks, 0);
	}
	TH_LOG("edges 100..999 of 3 seeds: |gpsphc pi - linuxptp pi| at most %.2f ns",
	       worst);
	EXPECT_EQ(edges, 2700);
	EXPECT_LE(worst, 2.0);
}

/*
 * No outlier rejection, as in linuxptp: a 100 us late edge moves the
 * clock (the bank rejects it and counts an outlier).
 */
TEST(pi_takes_a_latency_spike)
{
	struct pi_rig pi, bank;
	double before;

	pi_rig_init(&pi, GPSPHC_CLOCK_SERVO_PI, 50000, 100, 42);
	pi_rig_init(&bank, GPSPHC_CLOCK_SERVO_BANK, 50000, 100, 42);
	pi_rig_run(&pi, 60);
	pi_rig_run(&bank, 60);
	ASSERT_EQ(pi.s.state, GPSPHC_SERVO_LOCKED);
	ASSERT_EQ(bank.s.state, GPSPHC_SERVO_LOCKED);
	edge_sim_spike_at(&pi.sim, pi.sim.k);
	pi.sim.cfg.spike_ns = 100000;
	edge_sim_spike_at(&bank.sim, bank.sim.k);
	bank.sim.cfg.spike_ns = 100000;
	pi_rig_second(&pi);
	pi_rig_second(&bank);
	EXPECT_TRUE(pi.e.spike);
	EXPECT_EQ(pi.s.counters.outliers, 0);
	EXPECT_EQ(bank.s.counters.outliers, 1);
	/* kp + ki = 1: by the next edge the PI slewed the whole spike in */
	before = pi_rig_second(&pi);
	EXPECT_LT(before, -99000.0);
	EXPECT_GT(before, -101000.0);
	EXPECT_LT(fabs(pi_rig_second(&bank)), 2000.0);
}

/*
 * Beyond the step threshold (step_ns, here 1 ms), linuxptp's PI resets
 * and steps: so does the estimator, from LOCKED: one relock, one step,
 * by exactly the offset the edge had (5 ms: within the count's phase
 * window, which a larger move would leave, to be taken as a new phase).
 */
TEST(pi_steps_beyond_the_threshold)
{
	struct pi_rig r;
	u64 steps, raw;
	s64 off;

	pi_rig_init(&r, GPSPHC_CLOCK_SERVO_PI, 50000, 100, 7);
	r.cfg.step_threshold_ns = 1000000;
	gpsphc_servo_configure(&r.s, &r.cfg);
	pi_rig_run(&r, 60);
	ASSERT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	steps = r.s.counters.steps;
	r.moved_ns = 5000000;
	/* The edge's offset, computed as the servo will see it */
	r.sim.cfg.jitter_ns = 0;
	edge_sim_next(&r.sim, &r.e);
	raw = r.e.raw + r.moved_ns;
	off = phc_read(&r.phc, raw) - (s64)r.e.tai_sec * 1000000000LL;
	gpsphc_servo_edge(&r.s, GPSPHC_SERVO_INPUT_PPS, r.seq++, raw,
			  phc_read(&r.phc, raw), &r.out);
	EXPECT_EQ(r.s.counters.relocks, 1);
	EXPECT_EQ(r.s.counters.steps, steps + 1);
	EXPECT_TRUE(r.out.flags & GPSPHC_SERVO_OUT_STEP);
	EXPECT_EQ(r.out.step_ns, -off);
	EXPECT_GT(off, 4990000);
	EXPECT_EQ(r.out.state, GPSPHC_SERVO_LOCKING);
	phc_apply(&r.phc, raw, &r.out);
	pi_rig_run(&r, 30);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	EXPECT_EQ(r.s.counters.relocks, 1);
	EXPECT_EQ(r.s.counters.steps, steps + 1);
	EXPECT_LT(fabs(pi_rig_second(&r)), 1000.0);
}

/*
 * Holdover holds the PI's drift (its integral: the rate it learnt), and
 * the pulses' return resumes LOCKED without a relock or a step.
 */
TEST(pi_holdover_holds_the_drift)
{
	struct pi_rig r;
	struct gpsphc_servo_status st;
	u64 steps;

	pi_rig_init(&r, GPSPHC_CLOCK_SERVO_PI, 50000, 100, 3);
	edge_sim_drop(&r.sim, 120, 150);
	pi_rig_run(&r, 125);
	gpsphc_servo_status(&r.s, &st);
	EXPECT_EQ(st.state, GPSPHC_SERVO_HOLDOVER);
	EXPECT_EQ(st.adj, r.s.pi.drift);
	EXPECT_EQ(st.freq, r.s.pi.drift);
	/*
	 * -50 ppm / (1 + 50 ppm), within 100 ppb: the integral takes 0.3 of
	 * each offset, so 100 ns of jitter move it by about 30 ppb an edge
	 */
	EXPECT_LT(fabs(st.freq / 65536.0 + 50000 / 1.00005), 100.0);
	steps = st.counters.steps;
	pi_rig_run(&r, 26);
	gpsphc_servo_status(&r.s, &st);
	EXPECT_EQ(st.state, GPSPHC_SERVO_LOCKED);
	EXPECT_EQ(st.counters.relocks, 0);
	EXPECT_EQ(st.counters.steps, steps);
	EXPECT_EQ(st.counters.holdovers, 1);
}

/*
 * Switching the estimator keeps the count and the labels: a LOCKED bank
 * switched to the PI relocks (LOCKING), takes no step and locks again;
 * and back. An unknown estimator is the default, the bank.
 */
TEST(switch_estimators)
{
	struct gpsphc_servo_cfg cfg;
	struct pi_rig r;
	u64 edges, labels;

	pi_rig_init(&r, GPSPHC_CLOCK_SERVO_BANK, 50000, 1000, 11);
	pi_rig_run(&r, 60);
	ASSERT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	edges = r.s.counters.edges;
	labels = r.s.counters.labels;
	cfg = r.cfg;
	cfg.clock_servo = GPSPHC_CLOCK_SERVO_PI;
	gpsphc_servo_configure(&r.s, &cfg);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKING);
	EXPECT_TRUE(r.s.est == &gpsphc_sv_pi);
	pi_rig_run(&r, 40);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	EXPECT_EQ(r.s.counters.steps, 1);
	EXPECT_EQ(r.s.counters.edges, edges + 40);
	EXPECT_EQ(r.s.counters.labels, labels + 40);
	EXPECT_EQ(r.s.counters.disagreements, 0);
	EXPECT_LT(fabs(pi_rig_second(&r)), 5000.0);

	cfg.clock_servo = 7;
	gpsphc_servo_configure(&r.s, &cfg);
	gpsphc_servo_settings(&r.s, &cfg);
	EXPECT_EQ(cfg.clock_servo, GPSPHC_CLOCK_SERVO_BANK);
	EXPECT_TRUE(r.s.est == &gpsphc_sv_bank);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKING);
	pi_rig_run(&r, 40);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
	EXPECT_EQ(r.s.counters.steps, 1);
	/* The same estimator again changes nothing */
	gpsphc_servo_configure(&r.s, &cfg);
	EXPECT_EQ(r.s.state, GPSPHC_SERVO_LOCKED);
}

/*
 * The handle: created in UNLOCKED with the settings sanitised, status
 * and settings read back, destroyed (NULL too).
 */
TEST(create_status_destroy)
{
	struct gpsphc_servo_status st;
	struct gpsphc_servo_cfg cfg, got;
	struct gpsphc_servo *s;

	gpsphc_servo_default_cfg(&cfg);
	EXPECT_EQ(cfg.clock_servo, GPSPHC_CLOCK_SERVO_BANK);
	cfg.clock_servo = GPSPHC_CLOCK_SERVO_PI;
	cfg.confirm_n = 1000;
	s = gpsphc_servo_create(&cfg);
	ASSERT_TRUE(s != NULL);
	gpsphc_servo_settings(s, &got);
	EXPECT_EQ(got.clock_servo, GPSPHC_CLOCK_SERVO_PI);
	EXPECT_EQ(got.confirm_n, 255);
	gpsphc_servo_status(s, &st);
	EXPECT_EQ(st.state, GPSPHC_SERVO_UNLOCKED);
	EXPECT_EQ(st.counters.edges, 0);
	EXPECT_EQ(st.pending_n, 0);
	gpsphc_servo_destroy(s);
	gpsphc_servo_destroy(NULL);
}

TEST_HARNESS_MAIN
