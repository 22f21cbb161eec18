// SPDX-License-Identifier: GPL-2.0
/*
 * Servo explorer: random sequences of disturbances, a seed each, against
 * the servo's invariants. Each seed draws a host (its rate, 0.1 or 1 us
 * of jitter), a start (labels from a late edge; a first edge that is a
 * glitch; a first label whole seconds wrong; a clock set off just after
 * the first label) and 1 to 4 disturbances: phase jumps of the pulses
 * (truth moves too: a new receiver), rate steps, ramps, DCD storms, single
 * glitches, gaps without pulses. Inputs go to the servo in time order as
 * the kernel gives them: every edge (real or not), a label 300 ms after
 * each counted real edge naming its true second, a tick 600 ms after each
 * second; the clock is modelled from the servo's steps and rates.
 *
 * Invariants:
 * - never a label-free jump: after a step asked for by an edge or a tick,
 *   the clock is within half a second (plus the phase window) of the
 *   truth plus the whole seconds the labels put on it (a wrong first
 *   label's, until confirmed labels take them off): whole seconds move
 *   only by labels;
 * - EXPLORE_SETTLE edges after the last disturbance ends, the servo is
 *   LOCKED at every real edge, within EXPLORE_NOISE_NS of the truth, and
 *   every label agrees;
 * - a storm alone (no other disturbance from EXPLORE_SETTLE s before it
 *   to EXPLORE_STORM_AFTER s after it) that finds the servo LOCKED moves
 *   the clock by no more than EXPLORE_STORM_DRIFT_NS against the truth
 *   while it lasts and for EXPLORE_STORM_AFTER s after: its edges may
 *   neither steer the clock nor leave the loop off the pulses.
 *
 * make check runs the seeds 1..EXPLORE_SEEDS; SERVO_EXPLORE_SEEDS=N runs
 * N seeds (a soak), from SERVO_EXPLORE_FIRST (default 1). A failure
 * prints its seed, its scenario, and the line that reruns it alone.
 * Host only: floating point is fine here, never in the servo.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "edge_sim.h"

#define NS		1000000000LL
#define RAW0		5000000000000ULL
#define TAI0		1750000037ULL
#define LABEL_DELAY	300000000ULL
#define TICK_DELAY	600000000ULL
#define EXPLORE_SEEDS	2000
/*
 * Edges from the end of the last disturbance: the slowest recovery is a
 * phase jump just under the step threshold (20 ms slewed at 500 ppm:
 * 40 edges, 60 in all, see servo_test's phase_move_bound()); a gap's
 * return relocks in far fewer, and a wrong label needs confirm_n (3).
 */
#define EXPLORE_SETTLE	80
/* Edges checked after that */
#define EXPLORE_CHECK	40
/*
 * A storm holds the rate: 50000 seeds moved the clock by 4.7 us at most
 * over a storm of up to 30 s and the 5 s after it.
 */
#define EXPLORE_STORM_AFTER	5
#define EXPLORE_STORM_DRIFT_NS	20000.0
/* 5 sigma of 1 us of jitter, as in servo_test's locks_at_50ppm */
#define EXPLORE_NOISE_NS 5000.0
/* Furthest from the labels' time a step by an edge or a tick may leave the clock */
#define EXPLORE_STEP_MAX (500000000LL + 11000000LL)
#define EXPLORE_MAX_DIST 4
#define EXPLORE_HEAP	65536

enum dist_kind { D_JUMP, D_RATE, D_RAMP, D_STORM, D_GLITCH, D_GAP, D_KINDS };

static const char *const dist_names[D_KINDS] = {
	"jump", "rate-step", "ramp", "storm", "glitch", "gap",
};

struct dist {
	enum dist_kind kind;
	u64 from, to;		/* seconds [from, to) */
	double v;		/* jump ns, step ppb, ramp ppb/s, storm Hz */
	double start;		/* storm: ns into second @from it starts */
};

struct scenario {
	u64 seed;
	double ppb, jitter;
	u64 label_from;		/* first labelled second */
	double first_glitch;	/* ns before the first edge, 0: none */
	s64 label_skew;		/* s added to the first label */
	s64 clock_off;		/* ns the clock is off after the first label */
	struct dist d[EXPLORE_MAX_DIST];
	unsigned int n;
	u64 quiet;		/* end of the last disturbance */
	u64 len;		/* seconds in all */
};

enum ev_kind { EV_EDGE, EV_EXTRA, EV_LABEL, EV_TICK };

struct ev {
	u64 t;
	u64 id;			/* ties: in the order made */
	enum ev_kind kind;
	u32 seq;		/* labels: the edge's */
	u64 tai;		/* labels: its true second */
};

struct explorer {
	struct scenario sc;
	struct gpsphc_servo s;
	struct gpsphc_servo_cfg cfg;
	struct edge_sim sim;
	struct phc_model phc;
	struct ev heap[EXPLORE_HEAP];
	unsigned int nh;
	u64 next_id;
	u32 seq;
	bool labelled_once;
	s64 moved;
	s64 skew;		/* whole seconds the labels put on the clock */
	u64 true_raw;		/* the latest second's true edge */
	u64 true_tai;
	char why[256];		/* the first broken invariant */
};

static void ev_push(struct explorer *x, struct ev e)
{
	unsigned int i = x->nh++, p;

	e.id = x->next_id++;
	while (i) {
		p = (i - 1) / 2;
		if (x->heap[p].t < e.t ||
		    (x->heap[p].t == e.t && x->heap[p].id < e.id))
			break;
		x->heap[i] = x->heap[p];
		i = p;
	}
	x->heap[i] = e;
}

static bool ev_before(const struct ev *a, const struct ev *b)
{
	return a->t < b->t || (a->t == b->t && a->id < b->id);
}

static struct ev ev_pop(struct explorer *x)
{
	struct ev top = x->heap[0], last = x->heap[--x->nh];
	unsigned int i = 0, c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= x->nh)
			break;
		if (c + 1 < x->nh && ev_before(&x->heap[c + 1], &x->heap[c]))
			c++;
		if (!ev_before(&x->heap[c], &last))
			break;
		x->heap[i] = x->heap[c];
		i = c;
	}
	x->heap[i] = last;
	return top;
}

static double uni(u64 *rng, double lo, double hi)
{
	return lo + (hi - lo) * edge_sim_uniform(rng);
}

/* 10^uniform: magnitudes spread over decades */
static double decades(u64 *rng, double lo, double hi)
{
	return pow(10, uni(rng, log10(lo), log10(hi)));
}

static double sign(u64 *rng)
{
	return edge_sim_uniform(rng) < 0.5 ? -1 : 1;
}

static void scenario_draw(struct scenario *sc, u64 seed)
{
	u64 rng = seed * 0x9e3779b97f4a7c15ULL + 1, t;
	u64 phase_rng = seed * 0xbf58476d1ce4e5b9ULL + 7;
	unsigned int i;

	memset(sc, 0, sizeof(*sc));
	sc->seed = seed;
	sc->ppb = uni(&rng, -100000, 100000);
	sc->jitter = edge_sim_uniform(&rng) < 0.5 ? 100 : 1000;
	sc->label_from = edge_sim_uniform(&rng) < 0.3 ?
			 (u64)uni(&rng, 1, 60) : 0;
	/*
	 * Not within 50 ms of half a second: an edge that far from the
	 * pulses is as near the second before as the one after, and the
	 * count can only guess which (labels then move it, confirmed).
	 */
	if (edge_sim_uniform(&rng) < 0.15) {
		sc->first_glitch = uni(&rng, 1e6, 899e6);
		if (sc->first_glitch > 450e6)
			sc->first_glitch += 100e6;
	}
	if (edge_sim_uniform(&rng) < 0.15)
		sc->label_skew = (s64)sign(&rng) * (s64)uni(&rng, 1, 4);
	if (edge_sim_uniform(&rng) < 0.2)
		sc->clock_off = (s64)(sign(&rng) * decades(&rng, 1e3, 5e8));
	t = sc->label_from + (u64)uni(&rng, 20, 120);
	sc->n = 1 + (unsigned int)uni(&rng, 0, EXPLORE_MAX_DIST);
	for (i = 0; i < sc->n; i++) {
		struct dist *d = &sc->d[i];

		d->kind = (enum dist_kind)uni(&rng, 0, D_KINDS);
		d->from = t;
		d->to = t + 1;
		switch (d->kind) {
		case D_JUMP:
			/* Half a second is ambiguous (see first_glitch). */
			d->v = sign(&rng) * decades(&rng, 1e3, 4.5e8);
			break;
		case D_RATE:
			d->v = sign(&rng) * decades(&rng, 50, 5000);
			break;
		case D_RAMP:
			d->v = sign(&rng) * decades(&rng, 0.1, 10);
			d->to = t + (u64)uni(&rng, 30, 300);
			break;
		case D_STORM:
			d->v = decades(&rng, 2, 1000);
			d->to = t + (u64)uni(&rng, 1, 30);
			/*
			 * Anywhere in its first second, so also just before
			 * the next pulse, with no storm edge before it in its
			 * window (a stream of its own: the other draws, and
			 * so the seeds found earlier, stay as they were).
			 */
			d->start = uni(&phase_rng, 0, 1e9);
			break;
		case D_GLITCH:
			d->v = uni(&rng, 0, 1e9);
			break;
		case D_GAP:
			d->to = t + (u64)decades(&rng, 1, 300);
			break;
		default:
			break;
		}
		t = d->to + (u64)uni(&rng, 0, 100);
	}
	sc->quiet = t;
	sc->len = t + EXPLORE_SETTLE + EXPLORE_CHECK;
}

static int scenario_print(const struct scenario *sc, char *buf, size_t n)
{
	int len = snprintf(buf, n, "seed %llu: %.0f ppb, %.0f ns jitter, labels from %llu",
			   (unsigned long long)sc->seed, sc->ppb, sc->jitter,
			   (unsigned long long)sc->label_from);
	unsigned int i;

	if (sc->first_glitch)
		len += snprintf(buf + len, n - len, ", first edge a glitch %.0f ns early",
				sc->first_glitch);
	if (sc->label_skew)
		len += snprintf(buf + len, n - len, ", first label %+lld s",
				(long long)sc->label_skew);
	if (sc->clock_off)
		len += snprintf(buf + len, n - len, ", clock %+lld ns off at it",
				(long long)sc->clock_off);
	for (i = 0; i < sc->n; i++) {
		len += snprintf(buf + len, n - len, "; %s %llu-%llu %.6g",
				dist_names[sc->d[i].kind],
				(unsigned long long)sc->d[i].from,
				(unsigned long long)sc->d[i].to, sc->d[i].v);
		if (sc->d[i].kind == D_STORM)
			len += snprintf(buf + len, n - len, " from +%.0f ms",
					sc->d[i].start / 1e6);
	}
	return len;
}

static void explorer_fail(struct explorer *x, const char *fmt, double a,
			  double b)
{
	if (!x->why[0])
		snprintf(x->why, sizeof(x->why), fmt, a, b);
}

/*
 * Apply an output at @t; after an edge's or a tick's step, the clock is
 * where the labels put it, to within half a second
 */
static void explorer_apply(struct explorer *x, u64 t,
			   const struct gpsphc_servo_out *o, bool label)
{
	s64 off;

	phc_apply(&x->phc, t, o);
	if (label || !(o->flags & GPSPHC_SERVO_OUT_STEP))
		return;
	off = phc_read(&x->phc, t) - (s64)x->true_tai * NS -
	      ((s64)t - (s64)x->true_raw) - x->skew * NS;
	if (llabs(off) > EXPLORE_STEP_MAX)
		explorer_fail(x, "label-free step of %.0f ns, leaving the clock %.0f ns off",
			      (double)o->step_ns, (double)off);
}

/* Schedule second @k: its edge, extras, tick */
static void explorer_second(struct explorer *x, struct edge_sim_edge *e)
{
	const struct scenario *sc = &x->sc;
	unsigned int i, j, m;

	edge_sim_next(&x->sim, e);
	for (i = 0; i < sc->n; i++)
		if (sc->d[i].kind == D_JUMP && sc->d[i].from == e->k)
			x->moved += (s64)sc->d[i].v;
	e->raw += x->moved;
	e->raw_true += x->moved;
	x->true_raw = e->raw_true;
	x->true_tai = e->tai_sec;
	if (e->present)
		ev_push(x, (struct ev){ .t = e->raw, .kind = EV_EDGE,
					.tai = e->tai_sec });
	ev_push(x, (struct ev){ .t = e->raw_true + TICK_DELAY,
				.kind = EV_TICK });
	for (i = 0; i < sc->n; i++) {
		const struct dist *d = &sc->d[i];

		if (e->k < d->from || e->k >= d->to)
			continue;
		if (d->kind == D_GLITCH) {
			ev_push(x, (struct ev){ .t = e->raw_true + (u64)d->v,
						.kind = EV_EXTRA,
						.tai = e->tai_sec + (d->v > 5e8) });
		} else if (d->kind == D_STORM) {
			/* @v a second, from a random point of the second */
			m = (unsigned int)d->v;
			for (j = 0; j < m; j++) {
				double at = fmod(j * 1e9 / d->v + (double)e->k * 3.7e7, 1e9);

				if (e->k == d->from && at < d->start)
					continue;
				ev_push(x, (struct ev){ .t = e->raw_true + (u64)at,
							.kind = EV_EXTRA,
							.tai = e->tai_sec + (at > 5e8) });
			}
		}
	}
}

static void explorer_init(struct explorer *x, u64 seed)
{
	struct edge_sim_cfg c;
	unsigned int i;

	memset(x, 0, sizeof(*x));
	scenario_draw(&x->sc, seed);
	c = (struct edge_sim_cfg){
		.freq_ppb = x->sc.ppb, .jitter_ns = x->sc.jitter, .seed = seed,
		.raw0 = RAW0, .tai0 = TAI0,
	};
	gpsphc_servo_default_cfg(&x->cfg);
	gpsphc_servo_init(&x->s, &x->cfg);
	edge_sim_init(&x->sim, &c);
	phc_init(&x->phc, 0, 0, x->cfg.max_ppb);
	for (i = 0; i < x->sc.n; i++) {
		const struct dist *d = &x->sc.d[i];

		if (d->kind == D_RATE)
			edge_sim_freq_step(&x->sim, d->from, d->v);
		else if (d->kind == D_RAMP)
			edge_sim_ramp(&x->sim, d->from, d->to, d->v);
		else if (d->kind == D_GAP)
			edge_sim_drop(&x->sim, d->from, d->to);
	}
	if (x->sc.first_glitch)
		ev_push(x, (struct ev){ .t = RAW0 - (u64)x->sc.first_glitch,
					.kind = EV_EXTRA,
					.tai = TAI0 - (x->sc.first_glitch > 5e8) });
}

/* Feed one input; the real edges of the checked seconds are judged */
static void explorer_event(struct explorer *x, const struct ev *ev, u64 k)
{
	const struct scenario *sc = &x->sc;
	bool check = k >= sc->quiet + EXPLORE_SETTLE;
	struct gpsphc_servo_out o;
	int res;
	s64 tai;

	switch (ev->kind) {
	case EV_TICK:
		gpsphc_servo_tick(&x->s, ev->t, &o);
		explorer_apply(x, ev->t, &o, false);
		return;
	case EV_LABEL:
		tai = (s64)ev->tai;
		if (!x->labelled_once)
			tai += sc->label_skew;
		res = gpsphc_servo_label(&x->s, GPSPHC_SERVO_INPUT_PPS, ev->seq,
					 (u64)tai, ev->t,
					 phc_read(&x->phc, ev->t), &o);
		explorer_apply(x, ev->t, &o, true);
		if (res == GPSPHC_SERVO_LABEL_SET) {
			x->labelled_once = true;
			x->skew = sc->label_skew;
			phc_step(&x->phc, ev->t, sc->clock_off);
		}
		if (res == GPSPHC_SERVO_LABEL_APPLIED)
			x->skew += o.step_ns / NS;
		if (check && res != GPSPHC_SERVO_LABEL_AGREE)
			explorer_fail(x, "label %.0f at second %.0f does not agree",
				      res, (double)k);
		return;
	case EV_EDGE:
	case EV_EXTRA:
		gpsphc_servo_edge(&x->s, GPSPHC_SERVO_INPUT_PPS, x->seq,
				  ev->t, phc_read(&x->phc, ev->t), &o);
		explorer_apply(x, ev->t, &o, false);
		if ((o.flags & GPSPHC_SERVO_OUT_USED) &&
		    (k >= sc->label_from || x->labelled_once))
			ev_push(x, (struct ev){ .t = ev->t + LABEL_DELAY,
						.kind = EV_LABEL,
						.seq = x->seq, .tai = ev->tai });
		x->seq++;
		if (ev->kind == EV_EDGE && check &&
		    o.state != GPSPHC_SERVO_LOCKED)
			explorer_fail(x, "state %.0f at second %.0f", o.state,
				      (double)k);
		return;
	}
}

/* The scenario's storm with no other disturbance near it, or NULL */
static const struct dist *lone_storm(const struct scenario *sc)
{
	unsigned int i;

	for (i = 0; i < sc->n; i++) {
		const struct dist *d = &sc->d[i];

		if (d->kind == D_STORM &&
		    d->from >= sc->label_from + EXPLORE_SETTLE &&
		    (!i || sc->d[i - 1].to + EXPLORE_SETTLE <= d->from) &&
		    (i + 1 == sc->n ||
		     sc->d[i + 1].from > d->to + EXPLORE_STORM_AFTER))
			return d;
	}
	return NULL;
}

/* One seed; false with @x->why if an invariant broke */
static bool explore(struct explorer *x, u64 seed)
{
	struct edge_sim_edge e = { 0 };
	const struct dist *storm;
	double err, storm_err0 = 0;
	bool storm_locked = false;
	u64 k;

	explorer_init(x, seed);
	storm = lone_storm(&x->sc);
	for (k = 0; k < x->sc.len && !x->why[0]; k++) {
		explorer_second(x, &e);
		/*
		 * Everything due before the next second's earliest input
		 * (its edge, after a jump of half a second back)
		 */
		while (x->nh && x->heap[0].t < e.raw_true + 400000000ULL) {
			struct ev ev = ev_pop(x);

			explorer_event(x, &ev, k);
		}
		err = (double)(phc_read(&x->phc, e.raw_true) -
			       (s64)e.tai_sec * NS);
		if (getenv("SERVO_EXPLORE_TRACE"))
			fprintf(stderr, "%4llu %s state %d hold %d err %12.0f off %9lld adj %9lld freq %9lld edges %llu spurious %llu outliers %llu relocks %llu steps %llu rephases %llu\n",
				(unsigned long long)k, e.present ? "edge" : "none",
				x->s.state, e.raw < x->s.storm_until, err, (long long)x->s.offset_ns,
				(long long)(x->s.adj / 65536), (long long)(x->s.freq / 65536),
				(unsigned long long)x->s.counters.edges,
				(unsigned long long)x->s.counters.spurious,
				(unsigned long long)x->s.counters.outliers,
				(unsigned long long)x->s.counters.relocks,
				(unsigned long long)x->s.counters.steps,
				(unsigned long long)x->s.counters.rephases);
		if (storm && k == storm->from) {
			storm_err0 = err;
			storm_locked = x->s.state == GPSPHC_SERVO_LOCKED;
		}
		if (storm_locked && e.present && k > storm->from &&
		    k <= storm->to + EXPLORE_STORM_AFTER &&
		    fabs(err - storm_err0) > EXPLORE_STORM_DRIFT_NS)
			explorer_fail(x, "a storm moved the clock by %.0f ns (second %.0f)",
				      err - storm_err0, (double)k);
		if (k < x->sc.quiet + EXPLORE_SETTLE || !e.present)
			continue;
		if (fabs(err) > EXPLORE_NOISE_NS)
			explorer_fail(x, "error %.0f ns at second %.0f", err,
				      (double)k);
	}
	return !x->why[0];
}

static unsigned long long env_u64(const char *name, unsigned long long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

TEST(explore_seeds)
{
	static struct explorer x;
	u64 first = env_u64("SERVO_EXPLORE_FIRST", 1);
	u64 n = env_u64("SERVO_EXPLORE_SEEDS", EXPLORE_SEEDS), seed;
	unsigned int fails = 0;
	char line[1024];

	for (seed = first; seed < first + n; seed++) {
		if (explore(&x, seed))
			continue;
		fails++;
		scenario_print(&x.sc, line, sizeof(line));
		TH_LOG("%s\n\t%s\n\trerun: SERVO_EXPLORE_FIRST=%llu SERVO_EXPLORE_SEEDS=1 %s",
		       line, x.why, (unsigned long long)seed,
		       "tools/testing/host/build/servo_explore");
	}
	TH_LOG("%llu seeds from %llu, %u failed", (unsigned long long)n,
	       (unsigned long long)first, fails);
	EXPECT_EQ(fails, 0);
}

/*
 * Seeds that soaks found failing, run in make check beside the first
 * EXPLORE_SEEDS: periodic DCD storms whose edges landed in the phase
 * window between the storm's holds on a line, as pulses that moved would,
 * so that the loop relocked on them and then took minutes to come back
 * (up to 0.7 ms off, LOCKING for over two minutes).
 */
static const u64 explore_found[] = { 3350, 16035, 18476, 18479 };

TEST(explore_found_seeds)
{
	static struct explorer x;
	unsigned int i, fails = 0;
	char line[1024];

	for (i = 0; i < ARRAY_SIZE(explore_found); i++) {
		if (explore(&x, explore_found[i]))
			continue;
		fails++;
		scenario_print(&x.sc, line, sizeof(line));
		TH_LOG("%s\n\t%s", line, x.why);
	}
	EXPECT_EQ(fails, 0);
}

TEST_HARNESS_MAIN
