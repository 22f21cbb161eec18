// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of the gpsphc servo (kmod/servo/) against linuxptp's servos
 * (lptp_servos.c: the PI with ts2phc's hardware gains and with ptp4l's
 * software gains, and linreg) and against a Kalman filter given the noise
 * parameters (kalman_ref.c), on the streams real oscillators make
 * (edge_sim.c). Figures, not a test: it prints them and writes them to
 * the file named on the command line (results/servo_bench.txt from `make
 * bench`), with the rules the servo is held to and the rows that break
 * them.
 *
 * Every servo steers its own model of the kernel's clock (struct
 * phc_model) from the same captured edges: the edge's raw time and what
 * the clock read then. The error scored is the clock's reading at the
 * true edge instant minus the TAI second it marks, which no servo sees,
 * at every second, pulse or not.
 *
 *	servo_bench [FILE]		the whole table
 *	servo_bench --only TEXT [FILE]	the rows whose name contains TEXT
 *	servo_bench --trace ROW SEED	one row's errors, edge by edge
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "edge_sim.h"
#include "kalman_ref.h"
#include "lptp_servos.h"

#define EDGES		3600	/* seconds from the first label */
#define SCORE_FROM	300	/* RMS, p99 and max over edges SCORE_FROM.. */
#define N_SEEDS		5
#define LOCK_NS		1000.0	/* locked: |error| below this... */
#define LOCK_HOLD	10	/* ...for this many edges in a row */
#define EDGE_DELAY_NS	20000ULL	/* interrupt to servo output */
#define LABEL_DELAY_NS	300000000ULL	/* edge to userspace's label */
#define TICK_DELAY_NS	600000000ULL	/* edge to the holdover tick */
#define MAX_PPB		500000
#define SPIKE_NS	50000.0
#define SPIKE_PROB	0.01

/* The rules (issue 11): against the reference, and against linuxptp */
#define RULE_REF_RATIO	1.5
#define RULE_LOCK_EDGES	2

/*
 * A stream: the host's rate error over an hour. Ramps go up at second
 * RAMP_UP and back down at RAMP_DOWN, RAMP_S long each; steps go up at
 * STEP_UP and back at STEP_DOWN. The missed-pulse streams drop pulses as
 * their table says, and put a spike on the first edge after each gap
 * long enough for holdover.
 */
#define RAMP_UP		900
#define RAMP_DOWN	2400
#define RAMP_S		300
#define STEP_UP		1200
#define STEP_DOWN	2400

enum gaps { GAPS_NONE, GAPS_MISSED, GAPS_HOLDOVER };

struct stream {
	const char *name;
	double base_ppb;
	double wander_ppb;	/* random walk: sigma per second */
	double ramp_ppb_s;
	double sine_ppb, sine_period_s;
	double step_ppb;
	enum gaps gaps;
	bool random_walk;	/* the reference takes the true noise only */
};

static const struct stream streams[] = {
	{ "rw-0.1ppb", 50000, 0.1, 0, 0, 0, 0, GAPS_NONE, true },
	{ "rw-1ppb", 50000, 1.0, 0, 0, 0, 0, GAPS_NONE, true },
	{ "ramp-1ppb/s", 50000, 0, 1, 0, 0, 0, GAPS_NONE, false },
	{ "ramp-3ppb/s", 50000, 0, 3, 0, 0, 0, GAPS_NONE, false },
	{ "ramp-10ppb/s", 50000, 0, 10, 0, 0, 0, GAPS_NONE, false },
	{ "sine-0.2ppm-5min", 50000, 0, 0, 200, 300, 0, GAPS_NONE, false },
	{ "sine-0.5ppm-15min", 50000, 0, 0, 500, 900, 0, GAPS_NONE, false },
	{ "sine-2ppm-30min", 50000, 0, 0, 2000, 1800, 0, GAPS_NONE, false },
	{ "step-0.5ppm", 50000, 0, 0, 0, 0, 500, GAPS_NONE, false },
	{ "step-2ppm", 50000, 0, 0, 0, 0, 2000, GAPS_NONE, false },
	{ "missed-1-3", 50000, 0.1, 0, 0, 0, 0, GAPS_MISSED, true },
	{ "holdover-gaps", 50000, 0.1, 0, 0, 0, 0, GAPS_HOLDOVER, true },
	{ "start-400ppm", 400000, 0, 0, 0, 0, 0, GAPS_NONE, false },
};

#define N_STREAMS	(sizeof(streams) / sizeof(streams[0]))

/* [from, to) seconds without pulses; a spike on `to` if spike is set */
struct gap {
	u64 from, to;
	bool spike;
};

static const struct gap missed_gaps[] = {
	{ 500, 501, false }, { 700, 701, false }, { 900, 902, false },
	{ 1100, 1103, false }, { 1500, 1501, false }, { 1800, 1802, false },
	{ 2100, 2103, false }, { 2700, 2701, false }, { 3000, 3002, false },
	{ 3300, 3303, false },
};

static const struct gap holdover_gaps[] = {
	{ 600, 605, true }, { 1200, 1230, true }, { 2000, 2120, true },
	{ 2900, 3200, true },
};

static const double jitters[] = { 100, 1000, 10000 };

#define N_JITTERS	(sizeof(jitters) / sizeof(jitters[0]))
#define N_ROWS		(N_STREAMS * N_JITTERS * 2)

struct row {
	const struct stream *st;
	unsigned int st_idx;
	double jitter_ns;
	bool spikes;
	char name[64];
};

static void row_at(unsigned int i, struct row *r)
{
	r->st_idx = i / (N_JITTERS * 2);
	r->st = &streams[r->st_idx];
	r->jitter_ns = jitters[(i / 2) % N_JITTERS];
	r->spikes = i % 2;
	snprintf(r->name, sizeof(r->name), "%s %gus%s", r->st->name,
		 r->jitter_ns / 1000, r->spikes ? " +spikes" : "");
}

static void sim_for(const struct row *r, unsigned int seed,
		    struct edge_sim *sim)
{
	const struct stream *st = r->st;
	struct edge_sim_cfg c = {
		.freq_ppb = st->base_ppb,
		.jitter_ns = r->jitter_ns,
		.spike_prob = r->spikes ? SPIKE_PROB : 0,
		.spike_ns = SPIKE_NS,
		.wander_ppb = st->wander_ppb,
		.sine_ppb = st->sine_ppb,
		.sine_period_s = st->sine_period_s,
		.seed = 1000ULL * (r->st_idx + 1) + seed,
		.raw0 = 5000000000000ULL,
		.tai0 = 1750000037ULL,
	};
	const struct gap *g = NULL;
	unsigned int i, n = 0;

	edge_sim_init(sim, &c);
	if (st->ramp_ppb_s) {
		edge_sim_ramp(sim, RAMP_UP, RAMP_UP + RAMP_S, st->ramp_ppb_s);
		edge_sim_ramp(sim, RAMP_DOWN, RAMP_DOWN + RAMP_S,
			      -st->ramp_ppb_s);
	}
	if (st->step_ppb) {
		edge_sim_freq_step(sim, STEP_UP, st->step_ppb);
		edge_sim_freq_step(sim, STEP_DOWN, -st->step_ppb);
	}
	if (st->gaps == GAPS_MISSED) {
		g = missed_gaps;
		n = sizeof(missed_gaps) / sizeof(missed_gaps[0]);
	} else if (st->gaps == GAPS_HOLDOVER) {
		g = holdover_gaps;
		n = sizeof(holdover_gaps) / sizeof(holdover_gaps[0]);
	}
	for (i = 0; i < n; i++) {
		edge_sim_drop(sim, g[i].from, g[i].to);
		if (g[i].spike)
			edge_sim_spike_at(sim, g[i].to);
	}
}

static s64 tai_ns(const struct edge_sim_edge *e)
{
	return (s64)e->tai_sec * 1000000000LL;
}

static double err_at(const struct phc_model *phc, const struct edge_sim_edge *e)
{
	return (double)(phc_read(phc, e->raw_true) - tai_ns(e));
}

/* Host ns each gpsphc_servo_edge() call took, when timing: see cost() */
static double *edge_cost;
static unsigned int edge_cost_n;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* This thread's CPU time: what a call cost without the host's preemption */
static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * Our servo with the estimator @est, fed as the kernel feeds it: edge,
 * label 300 ms on, tick
 */
static void run_ours(const struct row *r, unsigned int seed, double *err,
		     enum gpsphc_clock_servo est)
{
	struct gpsphc_servo_cfg cfg;
	struct gpsphc_servo_out out;
	struct gpsphc_servo s;
	struct edge_sim_edge e;
	struct phc_model phc;
	struct edge_sim sim;
	u64 k, now;

	gpsphc_servo_default_cfg(&cfg);
	cfg.clock_servo = est;
	gpsphc_servo_init(&s, &cfg);
	sim_for(r, seed, &sim);
	phc_init(&phc, 0, 0, cfg.max_ppb);
	for (k = 0; k < EDGES; k++) {
		edge_sim_next(&sim, &e);
		err[k] = err_at(&phc, &e);
		if (e.present) {
			s64 reading = phc_read(&phc, e.raw);
			double t0 = edge_cost ? now_ns() : 0;

			gpsphc_servo_edge(&s, GPSPHC_SERVO_INPUT_PPS, (u32)k,
					  e.raw, reading, &out);
			if (edge_cost)
				edge_cost[edge_cost_n++] = now_ns() - t0;
			phc_apply(&phc, e.raw + EDGE_DELAY_NS, &out);
			now = e.raw + LABEL_DELAY_NS;
			gpsphc_servo_label(&s, GPSPHC_SERVO_INPUT_PPS, (u32)k,
					   e.tai_sec, now,
					   phc_read(&phc, now), &out);
			phc_apply(&phc, now, &out);
		}
		now = e.raw_true + TICK_DELAY_NS;
		gpsphc_servo_tick(&s, now, &out);
		phc_apply(&phc, now, &out);
	}
}

enum lptp_kind { LPTP_PI_HW, LPTP_PI_SW, LPTP_LINREG };

/* linuxptp's servos as ts2phc drives them, from the first edge on */
static void run_lptp(const struct row *r, unsigned int seed,
		     enum lptp_kind kind, double *err)
{
	enum lptp_state st = LPTP_UNLOCKED;
	struct lptp_linreg lr;
	struct edge_sim_edge e;
	struct phc_model phc;
	struct edge_sim sim;
	struct lptp_pi pi;
	s64 ts, offset;
	double ppb;
	u64 k, now;

	if (kind == LPTP_LINREG)
		lptp_linreg_init(&lr, MAX_PPB);
	else if (kind == LPTP_PI_HW)
		lptp_pi_init(&pi, 0.7, 0.3, MAX_PPB);
	else
		lptp_pi_init(&pi, 0.1, 0.001, MAX_PPB);
	sim_for(r, seed, &sim);
	phc_init(&phc, 0, 0, MAX_PPB);
	for (k = 0; k < EDGES; k++) {
		edge_sim_next(&sim, &e);
		err[k] = err_at(&phc, &e);
		if (!e.present)
			continue;
		now = e.raw + EDGE_DELAY_NS;
		ts = phc_read(&phc, e.raw);
		offset = ts - tai_ns(&e);
		if (kind == LPTP_LINREG)
			ppb = lptp_linreg_sample(&lr, offset, (u64)ts, &st);
		else
			ppb = lptp_pi_sample(&pi, offset, (u64)ts, &st);
		if (st == LPTP_JUMP)
			phc_step(&phc, now, -offset);
		if (st != LPTP_UNLOCKED)
			phc_set_adj(&phc, now, (s64)llround(-ppb * 65536.0));
	}
}

/*
 * Make the clock read @tai at the raw time @raw_next, from @now on, by
 * its rate alone if it can, else by a step and the rate of @period (raw
 * ns per true second): what a servo that trusts its estimate does.
 */
static void steer(struct phc_model *phc, u64 now, double raw_next, s64 tai,
		  double period)
{
	double span = raw_next - (double)now, rate = 1e9 / period;
	double adj, gap = (double)(tai - phc_read(phc, now));

	if (span < 1e6)
		span = 1e6;
	adj = (gap / span - 1.0) * 1e9 * 65536.0;
	if (fabs(adj) > (double)phc->max_adj) {
		phc_step(phc, now, llround(gap - span * rate));
		adj = (rate - 1.0) * 1e9 * 65536.0;
	}
	phc_set_adj(phc, now, llround(adj));
}

/*
 * The reference: a Kalman filter with rate noise @q and the true capture
 * noise, told which edges carry a spike (it skips them), steering the
 * clock to its prediction of the next edge; at the tick after a missing
 * pulse, to the one after.
 */
static void run_ref(const struct row *r, unsigned int seed, double q,
		    double *err)
{
	struct kalman_ref f;
	struct edge_sim_edge e;
	struct phc_model phc;
	struct edge_sim sim;
	u64 k, now;

	kalman_ref_init(&f, q, r->jitter_ns * r->jitter_ns);
	sim_for(r, seed, &sim);
	phc_init(&phc, 0, 0, MAX_PPB);
	for (k = 0; k < EDGES; k++) {
		edge_sim_next(&sim, &e);
		err[k] = err_at(&phc, &e);
		kalman_ref_edge(&f, k, e.present && !e.spike, e.raw);
		if (!f.started)
			continue;
		if (e.present)
			now = e.raw + EDGE_DELAY_NS;
		else
			now = e.raw_true + TICK_DELAY_NS;
		steer(&phc, now, kalman_ref_raw_at(&f, k + 1),
		      tai_ns(&e) + 1000000000LL, f.p);
	}
}

struct stats {
	double rms, p99, max, worst_rms;
	int lock_med, lock_worst;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* First edge after the label that starts LOCK_HOLD under LOCK_NS; 9999 */
static int lock_edge(const double *err)
{
	int k, run = 0;

	for (k = 1; k < EDGES; k++) {
		run = fabs(err[k]) < LOCK_NS ? run + 1 : 0;
		if (run == LOCK_HOLD)
			return k - LOCK_HOLD + 1;
	}
	return 9999;
}

#define SCORED	(EDGES - SCORE_FROM)

/* Scores N_SEEDS runs: err[seed][edge] */
static void score(double (*err)[EDGES], struct stats *st)
{
	static double mag[N_SEEDS * SCORED];
	int lock[N_SEEDS];
	double sum = 0, seed_sum;
	unsigned int j, k, n = 0;

	st->worst_rms = 0;
	for (j = 0; j < N_SEEDS; j++) {
		seed_sum = 0;
		for (k = SCORE_FROM; k < EDGES; k++) {
			seed_sum += err[j][k] * err[j][k];
			mag[n++] = fabs(err[j][k]);
		}
		sum += seed_sum;
		if (sqrt(seed_sum / SCORED) > st->worst_rms)
			st->worst_rms = sqrt(seed_sum / SCORED);
		lock[j] = lock_edge(err[j]);
	}
	qsort(mag, n, sizeof(mag[0]), cmp_double);
	qsort(lock, N_SEEDS, sizeof(lock[0]), cmp_int);
	st->rms = sqrt(sum / n);
	st->p99 = mag[(n * 99) / 100];
	st->max = mag[n - 1];
	st->lock_med = lock[N_SEEDS / 2];
	st->lock_worst = lock[N_SEEDS - 1];
}

/* The reference's rate noise in hindsight: q = 1e-4 * 2^i ppb^2/s, or 0 */
#define Q_STEPS		30

static double q_at(int i)
{
	return i < 0 ? 0 : 1e-4 * pow(2, i);
}

/* The reference for row @r: its stats, and the q it took (-1: the truth) */
static double run_refs(const struct row *r, double (*err)[EDGES],
		       struct stats *st)
{
	double q_true = r->st->wander_ppb * r->st->wander_ppb, best_q = -1;
	struct stats s;
	unsigned int j;
	int i;

	for (j = 0; j < N_SEEDS; j++)
		run_ref(r, j, q_true, err[j]);
	score(err, st);
	if (r->st->random_walk)
		return -1;
	for (i = -1; i < Q_STEPS; i++) {
		for (j = 0; j < N_SEEDS; j++)
			run_ref(r, j, q_at(i), err[j]);
		score(err, &s);
		if (s.rms < st->rms) {
			*st = s;
			best_q = q_at(i);
		}
	}
	return best_q;
}

enum { S_OURS, S_REF, S_PI_HW, S_PI_SW, S_LINREG, N_SERVOS };

static const char *const servo_names[N_SERVOS] = {
	"gpsphc", "kalman", "pi-hw", "pi-sw", "linreg",
};

struct row_result {
	struct row row;
	struct stats s[N_SERVOS];
	double ref_q;
	double lptp_rms, lptp_p99, lptp_max;	/* the best linuxptp figures */
	char verdict[32];
	struct stats pi;		/* gpsphc with clock_servo pi */
};

static void run_row(unsigned int i, struct row_result *res)
{
	static double err[N_SEEDS][EDGES];
	struct row *r = &res->row;
	unsigned int j, k;

	row_at(i, r);
	for (j = 0; j < N_SEEDS; j++)
		run_ours(r, j, err[j], GPSPHC_CLOCK_SERVO_BANK);
	score(err, &res->s[S_OURS]);
	for (j = 0; j < N_SEEDS; j++)
		run_ours(r, j, err[j], GPSPHC_CLOCK_SERVO_PI);
	score(err, &res->pi);
	res->ref_q = run_refs(r, err, &res->s[S_REF]);
	for (k = S_PI_HW; k <= S_LINREG; k++) {
		for (j = 0; j < N_SEEDS; j++)
			run_lptp(r, j, k == S_PI_HW ? LPTP_PI_HW :
				 k == S_PI_SW ? LPTP_PI_SW : LPTP_LINREG,
				 err[j]);
		score(err, &res->s[k]);
	}
	res->lptp_rms = res->lptp_p99 = res->lptp_max = INFINITY;
	for (k = S_PI_HW; k <= S_LINREG; k++) {
		res->lptp_rms = fmin(res->lptp_rms, res->s[k].rms);
		res->lptp_p99 = fmin(res->lptp_p99, res->s[k].p99);
		res->lptp_max = fmin(res->lptp_max, res->s[k].max);
	}
	/* R: rms vs the reference; L: rms, P: p99, M: max vs linuxptp;
	 * K: lock (at 1 us jitter) */
	res->verdict[0] = 0;
	if (res->s[S_OURS].rms > RULE_REF_RATIO * res->s[S_REF].rms)
		strcat(res->verdict, "R");
	if (res->s[S_OURS].rms > res->lptp_rms)
		strcat(res->verdict, "L");
	if (res->s[S_OURS].p99 > res->lptp_p99)
		strcat(res->verdict, "P");
	if (res->s[S_OURS].max > res->lptp_max)
		strcat(res->verdict, "M");
	if (r->jitter_ns == 1000 &&
	    res->s[S_OURS].lock_med > res->s[S_REF].lock_med + RULE_LOCK_EDGES)
		strcat(res->verdict, "K");
	if (!res->verdict[0])
		strcpy(res->verdict, "ok");
}

static void print_rms_header(FILE *f)
{
	fprintf(f,
		"\n## RMS error, ns, edges %d..%d after the first label, %d seeds pooled (worst seed)\n"
		"# %-32s %16s %19s %6s %8s %8s %8s %6s %s\n",
		SCORE_FROM, EDGES - 1, N_SEEDS, "stream", "gpsphc",
		"kalman (q ppb^2/s)", "x kal", "pi-hw", "pi-sw", "linreg",
		"x lptp", "rules");
}

static void print_rms(FILE *f, const struct row_result *res)
{
	const struct stats *s = res->s;
	char q[16];

	if (res->ref_q < 0)
		snprintf(q, sizeof(q), "true");
	else
		snprintf(q, sizeof(q), "%.1e", res->ref_q);
	fprintf(f, "  %-32s %7.1f (%6.1f) %8.1f (%7s) %6.2f %8.1f %8.1f %8.1f %6.2f %s\n",
		res->row.name, s[S_OURS].rms, s[S_OURS].worst_rms,
		s[S_REF].rms, q, s[S_OURS].rms / s[S_REF].rms,
		s[S_PI_HW].rms, s[S_PI_SW].rms, s[S_LINREG].rms,
		s[S_OURS].rms / res->lptp_rms, res->verdict);
}

static void print_tail_header(FILE *f)
{
	fprintf(f,
		"\n## p99 / max |error|, ns, same edges; worst-seed RMS of each\n"
		"# %-32s %19s %19s %19s %19s %19s | %7s %7s %7s %7s %7s\n",
		"stream", "gpsphc", "kalman", "pi-hw", "pi-sw", "linreg",
		"gpsphc", "kalman", "pi-hw", "pi-sw", "linreg");
}

static void print_tail(FILE *f, const struct row_result *res)
{
	unsigned int k;

	fprintf(f, "  %-32s", res->row.name);
	for (k = 0; k < N_SERVOS; k++)
		fprintf(f, " %9.0f %9.0f", res->s[k].p99, res->s[k].max);
	fprintf(f, " |");
	for (k = 0; k < N_SERVOS; k++)
		fprintf(f, " %7.0f", res->s[k].worst_rms);
	fprintf(f, "\n");
}

static void print_lock_header(FILE *f)
{
	fprintf(f,
		"\n## Lock: edges after the first label to %d in a row under %.0f ns, median/worst of %d seeds\n"
		"# %-32s %9s %9s %9s %9s %9s\n",
		LOCK_HOLD, LOCK_NS, N_SEEDS, "stream", "gpsphc", "kalman",
		"pi-hw", "pi-sw", "linreg");
}

static void print_lock(FILE *f, const struct row_result *res)
{
	unsigned int k;
	char b[24];

	fprintf(f, "  %-32s", res->row.name);
	for (k = 0; k < N_SERVOS; k++) {
		snprintf(b, sizeof(b), "%d/%d", res->s[k].lock_med,
			 res->s[k].lock_worst);
		fprintf(f, " %9s", b);
	}
	fprintf(f, "\n");
}

/*
 * What an edge costs the servo: host ns per gpsphc_servo_edge() call
 * (the DCD interrupt's share), over every edge of a few rows, with the
 * cost of reading the clock twice (about 20-40 ns) included.
 */
static void cost(FILE **out)
{
	static const char *const rows[] = {
		"rw-1ppb 1us", "step-2ppm 1us +spikes", "holdover-gaps 10us",
		"start-400ppm 0.1us",
	};
	static double err[EDGES];
	double sum = 0;
	unsigned int i, j, k, n;
	struct row r;

	edge_cost = calloc(N_SEEDS * EDGES * 4, sizeof(*edge_cost));
	for (i = 0; i < N_ROWS; i++) {
		row_at(i, &r);
		for (j = 0; j < 4; j++)
			if (!strcmp(r.name, rows[j]))
				for (k = 0; k < N_SEEDS; k++)
					run_ours(&r, k, err,
						 GPSPHC_CLOCK_SERVO_BANK);
	}
	n = edge_cost_n;
	for (i = 0; i < n; i++)
		sum += edge_cost[i];
	qsort(edge_cost, n, sizeof(*edge_cost), cmp_double);
	for (k = 0; k < 2 && out[k]; k++)
		fprintf(out[k],
			"\n## Cost: gpsphc_servo_edge() on this host, %u edges of %s, %s, %s, %s\n"
			"cost: mean %.0f ns, median %.0f ns, p99 %.0f ns, max %.0f ns per edge\n",
			n, rows[0], rows[1], rows[2], rows[3], sum / n,
			edge_cost[n / 2], edge_cost[n * 99 / 100], edge_cost[n - 1]);
	free(edge_cost);
	edge_cost = NULL;
}

/*
 * The servo's worst paths, forced, over EDGES_FORCED edges of 1 us jitter:
 * every 20 s the pulses' phase steps by 2 ms for good (outliers, then a
 * relock), and every 200 s the clock is reset and labelled again (the
 * first label's estimate from the history, with its sorts). Host ns per
 * gpsphc_servo_edge() and per gpsphc_servo_label(), with estimator @est,
 * on the clock and (for the worst case of the code itself, which the
 * host's preemption hides in the clock's maximum) in thread CPU time.
 */
#define EDGES_FORCED	1000000U

static void cost_forced(FILE **out, enum gpsphc_clock_servo est,
			const char *name)
{
	double *ec = calloc(EDGES_FORCED, sizeof(*ec));
	double *lc = calloc(EDGES_FORCED, sizeof(*lc));
	double *eu = calloc(EDGES_FORCED, sizeof(*eu));
	struct gpsphc_servo_cfg cfg;
	struct gpsphc_servo_out out_s;
	struct gpsphc_servo s;
	struct edge_sim_edge e;
	struct phc_model phc;
	struct edge_sim sim;
	u64 k, now, phase = 0, relocks;
	unsigned int i, ln = 0;
	double t0, c0;
	struct row r;

	for (i = 0; i < N_ROWS; i++) {
		row_at(i, &r);
		if (!strcmp(r.name, "rw-1ppb 1us"))
			break;
	}
	gpsphc_servo_default_cfg(&cfg);
	cfg.clock_servo = est;
	gpsphc_servo_init(&s, &cfg);
	sim_for(&r, 0, &sim);
	phc_init(&phc, 0, 0, cfg.max_ppb);
	for (k = 0; k < EDGES_FORCED; k++) {
		edge_sim_next(&sim, &e);
		if (k && k % 20 == 0)
			phase += 2000000;
		if (k && k % 200 == 0)
			gpsphc_servo_reset(&s);
		e.raw += phase;
		c0 = cpu_ns();
		t0 = now_ns();
		gpsphc_servo_edge(&s, GPSPHC_SERVO_INPUT_PPS, (u32)k, e.raw,
				  phc_read(&phc, e.raw), &out_s);
		ec[k] = now_ns() - t0;
		eu[k] = cpu_ns() - c0;
		phc_apply(&phc, e.raw + EDGE_DELAY_NS, &out_s);
		now = e.raw + LABEL_DELAY_NS;
		t0 = now_ns();
		gpsphc_servo_label(&s, GPSPHC_SERVO_INPUT_PPS, (u32)k,
				   e.tai_sec, now, phc_read(&phc, now), &out_s);
		lc[ln++] = now_ns() - t0;
		phc_apply(&phc, now, &out_s);
	}
	relocks = s.counters.relocks;
	qsort(ec, EDGES_FORCED, sizeof(*ec), cmp_double);
	qsort(lc, ln, sizeof(*lc), cmp_double);
	qsort(eu, EDGES_FORCED, sizeof(*eu), cmp_double);
	for (i = 0; i < 2 && out[i]; i++)
		fprintf(out[i],
			"cost, worst paths forced (%s): %u edges, %llu outliers, %llu relocks, %llu rephases, %llu steps, %u labels:\n"
			"  gpsphc_servo_edge()  median %.0f ns, p99 %.0f ns, p99.99 %.0f ns, max %.0f ns\n"
			"  gpsphc_servo_label() median %.0f ns, p99 %.0f ns, p99.99 %.0f ns, max %.0f ns\n"
			"  gpsphc_servo_edge() in thread CPU time: p99.99 %.0f ns, max %.0f ns\n",
			name, EDGES_FORCED,
			(unsigned long long)s.counters.outliers,
			(unsigned long long)relocks,
			(unsigned long long)s.counters.rephases,
			(unsigned long long)s.counters.steps, ln,
			ec[EDGES_FORCED / 2], ec[EDGES_FORCED / 100 * 99],
			ec[EDGES_FORCED / 10000 * 9999], ec[EDGES_FORCED - 1],
			lc[ln / 2], lc[ln / 100 * 99], lc[ln / 10000 * 9999],
			lc[ln - 1], eu[EDGES_FORCED / 10000 * 9999],
			eu[EDGES_FORCED - 1]);
	free(ec);
	free(lc);
	free(eu);
}

/*
 * gpsphc with clock_servo pi beside linuxptp's pi-hw (the same gains)
 * and the bank: the simple servo users know, in the servo's states.
 */
static void print_pi(FILE *f, const struct row_result *res, unsigned int n)
{
	unsigned int i;

	fprintf(f,
		"\n## clock_servo pi: gpsphc's PI estimator (kp 0.7, ki 0.3) beside linuxptp's pi-hw and the bank\n"
		"# %-32s %27s %27s %27s\n# %-32s %27s %27s %27s\n",
		"", "gpsphc pi", "pi-hw", "gpsphc bank", "stream",
		"rms / p99 / max", "rms / p99 / max", "rms / p99 / max");
	for (i = 0; i < n; i++) {
		const struct stats *p = &res[i].pi, *h = &res[i].s[S_PI_HW];
		const struct stats *b = &res[i].s[S_OURS];

		fprintf(f, "  %-32s %8.1f %8.0f %9.0f %8.1f %8.0f %9.0f %8.1f %8.0f %9.0f\n",
			res[i].row.name, p->rms, p->p99, p->max, h->rms,
			h->p99, h->max, b->rms, b->p99, b->max);
	}
}

/*
 * The M rule against itself. By the first edge after a rate step, what
 * a servo has seen of it is that edge's offset: the step plus jitter.
 * To keep the next edge, two steps off if nothing moved, within the step
 * row's M bar it must move its clock by two steps less the bar (less its
 * own error) on seeing that offset. The bound row has the law of the
 * step row before its step (a constant rate, the same jitter) but for
 * its base rate; wherever jitter alone puts one of its edges as far off
 * on the same side, that move is an error, to be held to the bound row's
 * own bar. So a servo whose move grows with the offset holds both bars
 * only if every step's first offset is beyond every steady edge's. Offsets
 * are from the true trend (the line through the two true edges before),
 * no servo's own error in them. The bench's seeds are set 0 of
 * BOUND_SETS sets of N_SEEDS, to show how often the two overlap.
 */
#define BOUND_STEP_ROW		"step-0.5ppm 0.1us"
#define BOUND_STEADY_ROW	"start-400ppm 0.1us"
#define BOUND_SETS		200

static const struct row_result *result_of(const struct row_result *res,
					  unsigned int n, const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(res[i].row.name, name))
			return &res[i];
	return NULL;
}

/* Edge offsets from the true trend of @r's run @seed, ns (0: missed) */
static void trend_offsets(const struct row *r, unsigned int seed,
			  double *off)
{
	struct edge_sim_edge e;
	struct edge_sim sim;
	double t1 = 0, t2 = 0;
	unsigned int k;

	sim_for(r, seed, &sim);
	for (k = 0; k < EDGES; k++) {
		edge_sim_next(&sim, &e);
		off[k] = k >= 2 && e.present ? (double)e.raw - (2 * t1 - t2) : 0;
		t2 = t1;
		t1 = (double)e.raw_true;
	}
}

/*
 * Seed set @set of the step row @sr and the steady row @br: each step's
 * first offset (@first: up and down by seed, if not NULL), and the
 * steady edges as far off on the same side as the least of them (@hits,
 * described in @far if not NULL). Returns whether there is any.
 */
static bool bound_overlap(const struct row *sr, const struct row *br,
			  unsigned int set, double *first, unsigned int *hits,
			  char *far, size_t far_len)
{
	static const unsigned int at[] = { STEP_UP + 1, STEP_DOWN + 1 };
	/* The least first offsets, signed toward their step: up, down */
	double least[2] = { INFINITY, INFINITY }, o;
	static double off[EDGES];
	unsigned int i, j, k, seed;
	size_t len = 0;

	*hits = 0;
	for (j = 0; j < N_SEEDS; j++) {
		seed = set * N_SEEDS + j;
		trend_offsets(sr, seed, off);
		for (i = 0; i < 2; i++) {
			if (first)
				first[2 * j + i] = off[at[i]];
			o = i ? -off[at[i]] : off[at[i]];
			least[i] = fmin(least[i], o);
		}
	}
	for (j = 0; j < N_SEEDS; j++) {
		seed = set * N_SEEDS + j;
		trend_offsets(br, seed, off);
		for (k = SCORE_FROM; k < EDGES; k++) {
			o = off[k];
			if (o < least[0] && -o < least[1])
				continue;
			(*hits)++;
			if (far && len < far_len - 48)
				len += snprintf(far + len, far_len - len,
						"%s%.0f ns at edge %u of seed %u",
						*hits > 1 ? ", " : "", o, k, seed);
		}
	}
	return *hits;
}

static void step_bound(FILE **out, const struct row_result *res,
		       unsigned int n)
{
	const struct row_result *sr = result_of(res, n, BOUND_STEP_ROW);
	const struct row_result *br = result_of(res, n, BOUND_STEADY_ROW);
	double first[2 * N_SEEDS], step;
	unsigned int i, k, hits, other, sets;
	char seen[256] = "", far[256] = "";
	size_t len = 0;

	if (!sr || !br)
		return;
	step = sr->row.st->step_ppb;
	/* The bench's own seeds are set 0: what is printed */
	sets = bound_overlap(&sr->row, &br->row, 0, first, &hits, far,
			     sizeof(far));
	for (i = 1; i < BOUND_SETS; i++)
		sets += bound_overlap(&sr->row, &br->row, i, NULL, &other,
				      NULL, 0);
	for (i = 0; i < 2 * N_SEEDS; i++)
		len += snprintf(seen + len, sizeof(seen) - len, " %.0f",
				first[i]);
	for (k = 0; k < 2 && out[k]; k++)
		fprintf(out[k],
			"\n## M against itself: %s, and %s (the step row's law before its step but the base rate)\n"
			"first edge after each step, ns off the true trend (up, down; seeds 0-%d):%s\n"
			"%s's M bar is %.0f ns; the next edge is %.0f ns off if nothing moves, so on\n"
			"seeing each of these a servo must move its clock %.0f ns (less its own error) toward it\n"
			"%s: edges as far off on the same side from jitter alone: %u%s%s%s; its M bar is %.0f ns\n"
			"a servo whose move grows with the offset holds both bars only if all the first are further off\n"
			"than all the second (by more than its own errors there); they overlap in %u of %d sets of %d seeds\n",
			BOUND_STEP_ROW, BOUND_STEADY_ROW, N_SEEDS - 1, seen,
			BOUND_STEP_ROW, sr->lptp_max, 2 * step,
			2 * step - sr->lptp_max, BOUND_STEADY_ROW, hits,
			hits ? " (" : "", far, hits ? ")" : "", br->lptp_max,
			sets, BOUND_SETS, N_SEEDS);
}

/* servo_bench --trace ROW SEED: every servo's error at each edge */
static int trace(const char *name, unsigned int seed)
{
	static double err[N_SERVOS][EDGES];
	struct row r;
	unsigned int i, k;

	for (i = 0; i < N_ROWS; i++) {
		row_at(i, &r);
		if (strcmp(r.name, name))
			continue;
		run_ours(&r, seed, err[S_OURS], GPSPHC_CLOCK_SERVO_BANK);
		run_ref(&r, seed, r.st->wander_ppb * r.st->wander_ppb,
			err[S_REF]);
		run_lptp(&r, seed, LPTP_PI_HW, err[S_PI_HW]);
		run_lptp(&r, seed, LPTP_PI_SW, err[S_PI_SW]);
		run_lptp(&r, seed, LPTP_LINREG, err[S_LINREG]);
		printf("# %s, seed %u; kalman with the true noise\n# edge",
		       name, seed);
		for (k = 0; k < N_SERVOS; k++)
			printf(" %10s", servo_names[k]);
		printf("\n");
		for (i = 0; i < EDGES; i++) {
			printf("%6u", i);
			for (k = 0; k < N_SERVOS; k++)
				printf(" %10.1f", err[k][i]);
			printf("\n");
		}
		return 0;
	}
	fprintf(stderr, "servo_bench: no row \"%s\"\n", name);
	return 1;
}

int main(int argc, char **argv)
{
	static struct row_result res[N_ROWS];
	FILE *out[2] = { stdout, NULL };
	const char *only = NULL;
	unsigned int i, k, n = 0, fails[5] = { 0 };
	double worst_ref = 0, worst_lptp = 0;
	struct row r;

	if (argc == 4 && !strcmp(argv[1], "--trace"))
		return trace(argv[2], (unsigned int)atoi(argv[3]));
	if (argc >= 3 && !strcmp(argv[1], "--only")) {
		only = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc > 1) {
		out[1] = fopen(argv[1], "w");
		if (!out[1]) {
			perror(argv[1]);
			return 1;
		}
	}
	for (i = 0; i < N_ROWS; i++) {
		row_at(i, &r);
		if (only && !strstr(r.name, only))
			continue;
		run_row(i, &res[n]);
		if (res[n].s[S_OURS].rms / res[n].s[S_REF].rms > worst_ref)
			worst_ref = res[n].s[S_OURS].rms / res[n].s[S_REF].rms;
		if (res[n].s[S_OURS].rms / res[n].lptp_rms > worst_lptp)
			worst_lptp = res[n].s[S_OURS].rms / res[n].lptp_rms;
		for (k = 0; k < 5; k++)
			if (strchr(res[n].verdict, "RLPMK"[k]))
				fails[k]++;
		n++;
	}
	for (k = 0; k < 2 && out[k]; k++) {
		FILE *f = out[k];

		fprintf(f,
			"# gpsphc servo vs linuxptp 3.1's PI (ts2phc's gains kp 0.7 ki 0.3: pi-hw; ptp4l's\n"
			"# software gains kp 0.1 ki 0.001: pi-sw) and linreg, and a 2-state Kalman filter\n"
			"# of the pulses given the noise (kalman: the true rate noise for random walks, else\n"
			"# the better of that and the best in hindsight; it skips the spikes, knowing them)\n"
			"# error: each clock at the true edge minus its TAI second, every second\n"
			"# streams: base rate 50 ppm; ramps up at %d s and down at %d s for %d s; sines\n"
			"# from 0; steps up at %d s and down at %d s; missed-1-3: 1-3 pulses missed\n"
			"# 10 times; holdover-gaps: 5, 30, 120 and 300 s without pulses, a 50 us spike on\n"
			"# the first edge back; spikes: %.0f %% of edges %.0f us late\n"
			"# rules: R rms <= %.1f x kalman; L rms, P p99, M max <= the best linuxptp servo's;\n"
			"# K lock (1 us jitter, median) within %d edges of kalman's\n",
			RAMP_UP, RAMP_DOWN, RAMP_S, STEP_UP, STEP_DOWN,
			SPIKE_PROB * 100, SPIKE_NS / 1000, RULE_REF_RATIO,
			RULE_LOCK_EDGES);
		print_rms_header(f);
		for (i = 0; i < n; i++)
			print_rms(f, &res[i]);
		print_tail_header(f);
		for (i = 0; i < n; i++)
			print_tail(f, &res[i]);
		print_lock_header(f);
		for (i = 0; i < n; i++)
			print_lock(f, &res[i]);
		print_pi(f, res, n);
	}
	if (!only) {
		step_bound(out, res, n);
		cost(out);
		cost_forced(out, GPSPHC_CLOCK_SERVO_BANK, "bank");
		cost_forced(out, GPSPHC_CLOCK_SERVO_PI, "pi");
	}
	for (k = 0; k < 2 && out[k]; k++) {
		FILE *f = out[k];

		fprintf(f,
			"\nsummary: %u rows; worst rms %.2f x kalman, %.2f x the best linuxptp servo;"
			" rows breaking R %u, L %u, P %u, M %u, K %u\n",
			n, worst_ref, worst_lptp, fails[0], fails[1], fails[2],
			fails[3], fails[4]);
	}
	if (out[1])
		fclose(out[1]);
	return 0;
}
