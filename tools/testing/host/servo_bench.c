// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of the gpsphc servo (kmod/servo.c) against linuxptp's PI
 * servo, on the same simulated edge streams (edge_sim.c). Figures, not a
 * test: it prints them and writes them to the file named on the command
 * line (results/servo_bench.txt from `make bench`).
 *
 * Both servos steer the same model of the kernel's clock (struct
 * phc_model) from the same captured edges: the edge's raw time and what
 * the clock read then. The error scored is the clock's reading at the
 * true edge instant minus the TAI second it marks, which no servo sees.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edge_sim.h"

#define EDGES		1100	/* edges fed after the first label */
#define SCORE_FROM	20	/* RMS from this many edges after the label */
#define SCORE_EDGES	1000
#define LOCK_NS		1000.0	/* locked: |error| below this... */
#define LOCK_HOLD	10	/* ...for this many edges in a row */
#define EDGE_DELAY_NS	20000ULL	/* interrupt to servo output */
#define LABEL_DELAY_NS	300000000ULL	/* edge to userspace's label */
#define TICK_DELAY_NS	600000000ULL	/* edge to the holdover tick */

/*
 * linuxptp's PI servo, following pi.c of linuxptp 3.1 (pi_sample()) at
 * its defaults for hardware time stamps (kp = 0.7, ki = 0.3 at a 1 s
 * interval), driven as ts2phc drives it: offset = clock minus source,
 * first_step_threshold 20 us, step_threshold 0, the clock's frequency set
 * to -ppb and stepped by -offset on SERVO_JUMP. Floating point: it is
 * the reference, and runs on the host only.
 */
enum lptp_state { LPTP_UNLOCKED, LPTP_JUMP, LPTP_LOCKED };

struct lptp_pi {
	double kp, ki, drift, last_freq, max_frequency;
	double first_step_threshold, step_threshold;
	bool first_update;
	s64 offset[2];
	u64 local[2];
	int count;
};

#define LPTP_FREQ_EST_MARGIN	0.001

static void lptp_init(struct lptp_pi *s, double max_frequency)
{
	*s = (struct lptp_pi){
		.kp = 0.7, .ki = 0.3, .max_frequency = max_frequency,
		.first_step_threshold = 20000.0, .step_threshold = 0.0,
		.first_update = true,
	};
}

static double lptp_sample(struct lptp_pi *s, s64 offset, u64 local_ts,
			  enum lptp_state *state)
{
	double ki_term, ppb = s->last_freq, freq_est_interval, localdiff;

	switch (s->count) {
	case 0:
		s->offset[0] = offset;
		s->local[0] = local_ts;
		*state = LPTP_UNLOCKED;
		s->count = 1;
		break;
	case 1:
		s->offset[1] = offset;
		s->local[1] = local_ts;
		if (s->local[0] >= s->local[1]) {
			*state = LPTP_UNLOCKED;
			s->count = 0;
			break;
		}
		localdiff = (s->local[1] - s->local[0]) / 1e9;
		localdiff += localdiff * LPTP_FREQ_EST_MARGIN;
		freq_est_interval = 0.016 / s->ki;
		if (freq_est_interval > 1000.0)
			freq_est_interval = 1000.0;
		if (localdiff < freq_est_interval) {
			*state = LPTP_UNLOCKED;
			break;
		}
		s->drift += (1e9 - s->drift) * (s->offset[1] - s->offset[0]) /
			    (double)(s->local[1] - s->local[0]);
		if (s->drift < -s->max_frequency)
			s->drift = -s->max_frequency;
		else if (s->drift > s->max_frequency)
			s->drift = s->max_frequency;
		if ((s->first_update && s->first_step_threshold &&
		     s->first_step_threshold < llabs(offset)) ||
		    (s->step_threshold && s->step_threshold < llabs(offset)))
			*state = LPTP_JUMP;
		else
			*state = LPTP_LOCKED;
		ppb = s->drift;
		s->count = 2;
		break;
	case 2:
		if (s->step_threshold && s->step_threshold < llabs(offset)) {
			*state = LPTP_UNLOCKED;
			s->count = 0;
			break;
		}
		ki_term = s->ki * offset;
		ppb = s->kp * offset + s->drift + ki_term;
		if (ppb < -s->max_frequency)
			ppb = -s->max_frequency;
		else if (ppb > s->max_frequency)
			ppb = s->max_frequency;
		else
			s->drift += ki_term;
		*state = LPTP_LOCKED;
		break;
	}
	s->last_freq = ppb;
	return ppb;
}

/* servo_update(): the first update ends the first-step window */
static void lptp_update(struct lptp_pi *s, enum lptp_state state)
{
	if (state == LPTP_LOCKED || state == LPTP_JUMP)
		s->first_update = false;
}

struct scenario {
	const char *name;
	double freq_ppb, jitter_ns, spike_prob, spike_ns;
	u64 fstep_at;		/* edges after the label; 0: none */
	double fstep_ppb;
	u64 label_at;		/* edges seen before the first label */
	u64 seed;
};

struct result {
	int first_edges;	/* first edge with |error| < LOCK_NS; -1: never */
	int lock_edges;		/* -1: never */
	double rms_ns, max_ns;
	u64 outliers;
};

static void score(const double *err, struct result *r)
{
	double sum = 0, max = 0;
	int i, run = 0;

	r->lock_edges = -1;
	r->first_edges = -1;
	/* Edge 0 is the labelled one, read before the clock is set. */
	for (i = 1; i < EDGES && r->first_edges < 0; i++)
		if (fabs(err[i]) < LOCK_NS)
			r->first_edges = i;
	for (i = 0; i < EDGES; i++) {
		run = fabs(err[i]) < LOCK_NS ? run + 1 : 0;
		if (run == LOCK_HOLD && r->lock_edges < 0)
			r->lock_edges = i - LOCK_HOLD + 1;
	}
	for (i = SCORE_FROM; i < SCORE_FROM + SCORE_EDGES; i++) {
		sum += err[i] * err[i];
		if (fabs(err[i]) > max)
			max = fabs(err[i]);
	}
	r->rms_ns = sqrt(sum / SCORE_EDGES);
	r->max_ns = max;
}

static void sim_for(const struct scenario *sc, struct edge_sim *sim)
{
	struct edge_sim_cfg c = {
		.freq_ppb = sc->freq_ppb,
		.jitter_ns = sc->jitter_ns,
		.spike_prob = sc->spike_prob,
		.spike_ns = sc->spike_ns,
		.seed = sc->seed,
		.raw0 = 5000000000000ULL,
		.tai0 = 1750000037ULL,
	};

	edge_sim_init(sim, &c);
	if (sc->fstep_at)
		edge_sim_freq_step(sim, sc->label_at + sc->fstep_at,
				   sc->fstep_ppb);
}

/*
 * err[i]: the clock's error at the true instant of the i-th edge after the
 * first labelled one (edge 0 is the labelled edge itself, before the
 * step).
 */
static void run_ours(const struct scenario *sc, double *err,
		     struct result *r)
{
	struct gpsphc_servo_cfg cfg;
	struct gpsphc_servo_out out;
	struct gpsphc_servo s;
	struct edge_sim_edge e;
	struct phc_model phc;
	struct edge_sim sim;
	u64 i, n = sc->label_at + EDGES;

	gpsphc_servo_default_cfg(&cfg);
	gpsphc_servo_init(&s, &cfg);
	sim_for(sc, &sim);
	phc_init(&phc, 0, 0, cfg.max_ppb);
	for (i = 0; i < n; i++) {
		edge_sim_next(&sim, &e);
		if (i >= sc->label_at)
			err[i - sc->label_at] = (double)(phc_read(&phc, e.raw_true) -
						 (s64)e.tai_sec * 1000000000LL);
		gpsphc_servo_edge(&s, GPSPHC_SERVO_INPUT_PPS, e.raw,
				  phc_read(&phc, e.raw), &out);
		phc_apply(&phc, e.raw + EDGE_DELAY_NS, &out);
		if (i >= sc->label_at) {
			u64 now = e.raw + LABEL_DELAY_NS;

			gpsphc_servo_label(&s, e.raw, e.tai_sec, now,
					   phc_read(&phc, now), &out);
			phc_apply(&phc, now, &out);
		}
		gpsphc_servo_tick(&s, e.raw_true + TICK_DELAY_NS, &out);
		phc_apply(&phc, e.raw_true + TICK_DELAY_NS, &out);
	}
	score(err, r);
	r->outliers = s.counters.outliers;
}

/* linuxptp sees only the edges from the label on, as ts2phc started then */
static void run_lptp(const struct scenario *sc, double *err,
		     struct result *r)
{
	struct edge_sim_edge e;
	enum lptp_state st = LPTP_UNLOCKED;
	struct phc_model phc;
	struct edge_sim sim;
	struct lptp_pi pi;
	u64 i, n = sc->label_at + EDGES;
	double ppb;

	lptp_init(&pi, 500000.0);
	sim_for(sc, &sim);
	phc_init(&phc, 0, 0, 500000);
	for (i = 0; i < n; i++) {
		s64 ts, offset;
		u64 now;

		edge_sim_next(&sim, &e);
		now = e.raw + EDGE_DELAY_NS;
		if (i < sc->label_at)
			continue;
		err[i - sc->label_at] = (double)(phc_read(&phc, e.raw_true) -
						 (s64)e.tai_sec * 1000000000LL);
		ts = phc_read(&phc, e.raw);
		offset = ts - (s64)e.tai_sec * 1000000000LL;
		ppb = lptp_sample(&pi, offset, (u64)ts, &st);
		switch (st) {
		case LPTP_UNLOCKED:
			break;
		case LPTP_JUMP:
			phc_step(&phc, now, -offset);
			/* fall through */
		case LPTP_LOCKED:
			phc_set_adj(&phc, now, (s64)llround(-ppb * 65536.0));
			break;
		}
		lptp_update(&pi, st);
	}
	score(err, r);
	r->outliers = 0;
}

/* name, ppb, jitter, spike chance and size, step at and size, label at, seed */
static const struct scenario scenarios[] = {
	{ "50ppm-1us", 50000, 1000, 0, 0, 0, 0, 0, 1 },
	{ "50ppm-1us-history32", 50000, 1000, 0, 0, 0, 0, 32, 1 },
	{ "50ppm-1us-spikes", 50000, 1000, 0.005, 50000, 0, 0, 0, 2 },
	{ "50ppm-1us-spikes-history4", 50000, 1000, 0.005, 50000, 0, 0, 4, 2 },
	{ "50ppm-1us-spikes-history32", 50000, 1000, 0.005, 50000, 0, 0, 32, 2 },
	{ "50ppm-1us-2ppm-step", 50000, 1000, 0, 0, 500, 2000, 32, 3 },
	{ "50ppm-1us-spikes-2ppm-step", 50000, 1000, 0.005, 50000, 500, 2000, 0, 4 },
	{ "50ppm-1us-spikes-2ppm-step-history32", 50000, 1000, 0.005, 50000, 500, 2000, 32, 4 },
};

#define N_SCEN	(sizeof(scenarios) / sizeof(scenarios[0]))
#define N_SEEDS	8

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void print_lock(FILE *f, int v)
{
	if (v < 0)
		fprintf(f, "%7s", "never");
	else
		fprintf(f, "%7d", v);
}

/*
 * servo_bench --trace SCENARIO SEED: our servo's error at each of the
 * first TRACE_EDGES edges after the first label, to see how it locks.
 */
#define TRACE_EDGES	40

static int trace(const char *name, int seed)
{
	static double err[EDGES];
	struct result r;
	unsigned int i;

	for (i = 0; i < N_SCEN; i++) {
		struct scenario sc = scenarios[i];

		if (strcmp(sc.name, name))
			continue;
		sc.seed = sc.seed * 1000 + seed;
		run_ours(&sc, err, &r);
		for (i = 0; i < TRACE_EDGES; i++)
			printf("%3u %9.1f\n", i, err[i]);
		printf("lock %d\n", r.lock_edges);
		return 0;
	}
	fprintf(stderr, "servo_bench: no scenario %s\n", name);
	return 1;
}

int main(int argc, char **argv)
{
	static double err[EDGES];
	FILE *out[2] = { stdout, NULL };
	unsigned int i, j, k, h;
	/* worst lock by edges of history: none, 1..31, 32 or more */
	int worst_lock[3] = { 0, 0, 0 };
	int worst_first = 0;
	double worst_ratio = 0;

	if (argc == 4 && !strcmp(argv[1], "--trace"))
		return trace(argv[2], atoi(argv[3]));
	if (argc > 1) {
		out[1] = fopen(argv[1], "w");
		if (!out[1]) {
			perror(argv[1]);
			return 1;
		}
	}
	for (k = 0; k < 2 && out[k]; k++)
		fprintf(out[k],
			"# gpsphc servo vs linuxptp 3.1 PI (kp 0.7, ki 0.3), same streams\n"
			"# error: clock at the true edge minus its TAI second\n"
			"# first: edges after the first label until |error| < %.0f ns\n"
			"# lock: edges after the first label until |error| < %.0f ns for %d edges in a row\n"
			"# history: edges the servo saw before the first label (linuxptp starts at the label)\n"
			"# rms/max: over edges %d..%d after the first label; %d seeds each\n"
			"# %-36s %4s %7s %9s %9s %7s %9s %9s %6s %5s\n",
			LOCK_NS, LOCK_NS, LOCK_HOLD, SCORE_FROM, SCORE_FROM + SCORE_EDGES - 1,
			N_SEEDS, "scenario", "seed", "ours", "rms_ns", "max_ns",
			"lptp", "rms_ns", "max_ns", "ratio", "outl");
	for (i = 0; i < N_SCEN; i++) {
		double sum_ours = 0, sum_lptp = 0;
		int lock_a[N_SEEDS], lock_b[N_SEEDS];
		int first_a[N_SEEDS], first_b[N_SEEDS];

		for (j = 0; j < N_SEEDS; j++) {
			struct scenario sc = scenarios[i];
			struct result a, b;

			sc.seed = sc.seed * 1000 + j;
			run_ours(&sc, err, &a);
			run_lptp(&sc, err, &b);
			sum_ours += a.rms_ns * a.rms_ns;
			sum_lptp += b.rms_ns * b.rms_ns;
			lock_a[j] = a.lock_edges < 0 ? 9999 : a.lock_edges;
			lock_b[j] = b.lock_edges < 0 ? 9999 : b.lock_edges;
			first_a[j] = a.first_edges < 0 ? 9999 : a.first_edges;
			first_b[j] = b.first_edges < 0 ? 9999 : b.first_edges;
			if (first_a[j] > worst_first)
				worst_first = first_a[j];
			h = sc.label_at >= 32 ? 2 : sc.label_at ? 1 : 0;
			if (lock_a[j] > worst_lock[h])
				worst_lock[h] = lock_a[j];
			for (k = 0; k < 2 && out[k]; k++) {
				fprintf(out[k], "  %-36s %4u", sc.name, j);
				print_lock(out[k], a.lock_edges);
				fprintf(out[k], " %9.1f %9.1f", a.rms_ns, a.max_ns);
				print_lock(out[k], b.lock_edges);
				fprintf(out[k], " %9.1f %9.1f %6.3f %5llu\n",
					b.rms_ns, b.max_ns, a.rms_ns / b.rms_ns,
					(unsigned long long)a.outliers);
			}
		}
		if (sqrt(sum_ours / sum_lptp) > worst_ratio)
			worst_ratio = sqrt(sum_ours / sum_lptp);
		qsort(lock_a, N_SEEDS, sizeof(int), cmp_int);
		qsort(lock_b, N_SEEDS, sizeof(int), cmp_int);
		qsort(first_a, N_SEEDS, sizeof(int), cmp_int);
		qsort(first_b, N_SEEDS, sizeof(int), cmp_int);
		for (k = 0; k < 2 && out[k]; k++)
			fprintf(out[k], "= %-36s first |error| < 1 us median/worst ours %d/%d, linuxptp %d/%d\n",
				scenarios[i].name, first_a[N_SEEDS / 2],
				first_a[N_SEEDS - 1], first_b[N_SEEDS / 2],
				first_b[N_SEEDS - 1]);
		for (k = 0; k < 2 && out[k]; k++)
			fprintf(out[k], "= %-36s lock median/worst ours %d/%d, linuxptp %d/%d; rms ours %.1f ns, linuxptp %.1f ns, ratio %.3f\n",
				scenarios[i].name, lock_a[N_SEEDS / 2],
				lock_a[N_SEEDS - 1], lock_b[N_SEEDS / 2],
				lock_b[N_SEEDS - 1], sqrt(sum_ours / N_SEEDS),
				sqrt(sum_lptp / N_SEEDS), sqrt(sum_ours / sum_lptp));
	}
	for (k = 0; k < 2 && out[k]; k++)
		fprintf(out[k], "summary: first |error| < 1 us at worst %d edges after the first label; held for %d edges, at worst %d edges with 32 edges of history, %d with 4, %d with none (target <= 10); worst rms ratio %.3f (target <= 0.5)\n",
			worst_first, LOCK_HOLD, worst_lock[2], worst_lock[1],
			worst_lock[0], worst_ratio);
	if (out[1])
		fclose(out[1]);
	return 0;
}
