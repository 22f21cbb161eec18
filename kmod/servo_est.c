// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc servo: the estimator of the pulses, in raw time. See servo.h
 * for what it does; here is how.
 *
 * The model: edge n truly comes at raw time a(n); a(n + 1) = a(n) + p(n),
 * the raw ns of a true second; p wanders, as a random walk (rate models:
 * p changes by a random amount each second) or through a drift d that
 * itself wanders (drift models: p(n + 1) = p(n) + d(n), and d makes the
 * random walk). Each capture is a(n) plus white noise of variance r. A
 * model is one Kalman filter of that, with its own "lambda": the
 * variance of the random walk over r. Its covariance is kept in units of
 * r (so it does not depend on r, which is measured apart), and it
 * predicts each input with a variance s (also in units of r).
 *
 * The bank runs the models side by side on every input taken. Each model
 * scores ln(likelihood of the input) against it: half of nu^2 / (r s) +
 * ln s, nu its prediction error. Scores are kept relative to the best and
 * capped (SV_SCORE_CAP: a model that was wrong can come back), start from
 * a prior that prefers the slow models, and weigh the models' predictions
 * by e^-score. A model far behind the best (SV_RESTART) that believes in
 * a slower wander than the best does is restarted from the best one's
 * state: after a change its old inputs only mislead it. Not from its
 * score: it starts SV_RESTART / 2 behind (weight 2 %) and earns its
 * weight back, else its copy of the best outweighs the best that keeps
 * adapting (on thermal cycles the estimate lagged by a fifth).
 *
 * Fixed point: states in 2^-16 ns (the drift in 2^-32 ns per second),
 * covariances, gains and s in 2^-44 (SV_Q), clamped to SV_P_MAX so that
 * a product of two stays below 2^63; scores in 2^-16 nats.
 */

#include "servo_internal.h"

#define SV_Q			44
#define SV_ONE			17592186044416LL	/* 2^44 */
/* A model knowing less than this (in units of r) has forgotten: clamp */
#define SV_P_MAX		(256LL << SV_Q)
#define SV_NAT			65536LL
/* A model is never scored further behind the best than this */
#define SV_SCORE_CAP		(12 * SV_NAT)
/* ...and is restarted from the best beyond this (if it is slower) */
#define SV_RESTART		(8 * SV_NAT)
/* log2(e) in 2^-16: scores in nats to weights in powers of two */
#define SV_LOG2E		94548
/* Inputs further apart (s) restart the estimator... */
#define SV_GAP_MAX		32768U
/* ...and the drift models: their phase grows with the gap squared. */
#define SV_DRIFT_GAP_MAX	1024U
/* The drift, 2^-32 ns per second per second, within +-2^10 ppb/s */
#define SV_DRIFT_LIMIT		4398046511104LL		/* 2^42 */
/* Prediction errors, 2^-16 ns, within +-2^30 ns */
#define SV_NU_LIMIT		70368744177664LL	/* 2^46 */
/*
 * Second differences in the noise estimate: a mean, then 1/256 each (at
 * 1/64 it wandered by 10 % in sigma, and an input 3 sigmas off by an
 * underestimate handed the bank to a fast model)
 */
#define SV_NOISE_EDGES		256
/* ...and how many make it trusted (for outliers: SV_NOISE_FIRST, widely) */
#define SV_NOISE_TRUSTED	8
#define SV_NOISE_FIRST		2
/* A drift model starts from no drift, within 1/64 of the noise per s^2 */
#define SV_DRIFT_PRIOR		(SV_ONE / 4096)
/* Held inputs line up with the first held one as a rate change: within */
#define SV_LINE_K		3

/*
 * The bank, fastest first within each family, drift models first: a
 * later model believes in a slower wander ("is slower"). Lambda in 2^-44
 * (10^-4 ... 10^-12 for drift, 1 ... 10^-12 for rate) and the prior
 * score: for a rate model half a nat per decade of lambda above the
 * slowest, for a drift model a nat per two decades above 3 nats (a
 * drift must be shown, not fitted to the noise of a few inputs).
 */
struct sv_model_def {
	u8 dim;
	s64 lambda;
	s64 prior;
};

static const struct sv_model_def sv_bank[GPSPHC_SERVO_MODELS] = {
	{ 3, 1759218604LL, 7 * SV_NAT },		/* 1e-4 */
	{ 3, 17592186LL, 6 * SV_NAT },		/* 1e-6 */
	{ 3, 175922LL, 5 * SV_NAT },			/* 1e-8 */
	{ 3, 1759LL, 4 * SV_NAT },			/* 1e-10 */
	{ 3, 18LL, 3 * SV_NAT },			/* 1e-12 */
	{ 2, 17592186044416LL, 12 * SV_NAT / 2 },	/* 1 */
	{ 2, 1759218604442LL, 11 * SV_NAT / 2 },	/* 1e-1 */
	{ 2, 175921860444LL, 10 * SV_NAT / 2 },
	{ 2, 17592186044LL, 9 * SV_NAT / 2 },
	{ 2, 1759218604LL, 8 * SV_NAT / 2 },
	{ 2, 175921860LL, 7 * SV_NAT / 2 },		/* 1e-5 */
	{ 2, 17592186LL, 6 * SV_NAT / 2 },
	{ 2, 1759219LL, 5 * SV_NAT / 2 },
	{ 2, 175922LL, 4 * SV_NAT / 2 },
	{ 2, 17592LL, 3 * SV_NAT / 2 },
	{ 2, 1759LL, 2 * SV_NAT / 2 },		/* 1e-10 */
	{ 2, 176LL, 1 * SV_NAT / 2 },
	{ 2, 18LL, 0 },				/* 1e-12 */
};

/* Covariance entries: 00 01 02 11 12 22 */
enum { P00, P01, P02, P11, P12, P22 };

/* (@a * @b) >> @shift, signed, with a 128-bit product */
static s64 sv_mulshr(s64 a, s64 b, unsigned int shift)
{
	u64 r = mul_u64_u64_shr(sv_mag(a), sv_mag(b), shift);

	return (a ^ b) < 0 ? -(s64)r : (s64)r;
}

/* @v * @n, saturated to +-S64_MAX / 4 */
static s64 sv_imul(s64 v, u64 n)
{
	s64 r;

	if (n > S64_MAX / 4 || check_mul_overflow(v, (s64)n, &r) ||
	    sv_mag(r) > S64_MAX / 4)
		return v < 0 ? -(S64_MAX / 4) : v ? S64_MAX / 4 : 0;
	return r;
}

/* @a + @b + @c, saturated as sv_imul() */
static s64 sv_add3(s64 a, s64 b, s64 c)
{
	return clamp(sv_sat_add(sv_sat_add(a, b), c), -(S64_MAX / 4),
		     S64_MAX / 4);
}

/*
 * ln(@s) / 2, 2^-16, for @s >= 1 in 2^-44: the power of two by the
 * highest bit, the rest from a table of ln(1 + i/64), 2^-16, linearly
 * between its entries (within 3e-5).
 */
static s64 sv_half_ln(s64 s)
{
	static const u16 ln_tab[65] = {
		0, 1016, 2017, 3002, 3973, 4930, 5873, 6802, 7719, 8623,
		9515, 10394, 11262, 12119, 12965, 13800, 14624, 15438, 16242,
		17037, 17821, 18597, 19364, 20121, 20870, 21611, 22343, 23067,
		23783, 24492, 25193, 25886, 26573, 27252, 27924, 28589, 29248,
		29900, 30546, 31185, 31818, 32445, 33067, 33682, 34292, 34896,
		35494, 36087, 36675, 37258, 37835, 38407, 38975, 39537, 40095,
		40648, 41196, 41740, 42280, 42815, 43345, 43872, 44394, 44912,
		45426,
	};
	const s64 ln2 = 45426;	/* ln 2 in 2^-16 */
	u32 e = fls64((u64)s) - 1 - SV_Q, i;
	u64 f = ((u64)s >> e) - SV_ONE;		/* [0, 1) in 2^-44 */
	s64 frac;

	i = f >> (SV_Q - 6);
	frac = (s64)(f & ((1ULL << (SV_Q - 6)) - 1)) >> (SV_Q - 6 - 16);
	return (e * ln2 + ln_tab[i] +
		(((ln_tab[i + 1] - ln_tab[i]) * frac) >> 16)) / 2;
}

/* 2^16 e^-@score, @score in 2^-16 nats */
static u32 sv_weight(s64 score)
{
	/* 2^16 * 2^(-i/8), i = 0..8 */
	static const u32 frac[9] = {
		65536, 60097, 55109, 50535, 46341, 42495, 38968, 35734, 32768,
	};
	u64 bits = (u64)score * SV_LOG2E >> 16;	/* 2^-16 */
	u32 i = (bits >> 13) & 7, f = bits & 8191, w;

	if (bits >> 16 >= 24)
		return 0;
	w = frac[i] - (u32)(((u64)(frac[i] - frac[i + 1]) * f) >> 13);
	return w >> (bits >> 16);
}

/* Sums of i^k over i = 0..g-1, k = 1..4, saturated */
static void sv_power_sums(u64 g, s64 *sum)
{
	s64 a = g - 1, b = 2 * g - 1, c;

	sum[0] = sv_imul(a, g) / 2;
	sum[1] = sv_imul(sv_imul(a, g), b) / 6;
	sum[2] = sv_imul(sum[0], sum[0]);
	c = sv_imul(3 * a, g) - 1;
	sum[3] = sv_imul(sv_imul(sum[1], c), 6) / 30;
}

/* Clamp a variance; if clamped, what it correlated with is forgotten */
static void sv_clamp_var(s64 *p, int d, const int *row)
{
	int i;

	if (p[d] <= SV_P_MAX)
		return;
	p[d] = SV_P_MAX;
	for (i = 0; i < 2; i++)
		p[row[i]] = 0;
}

/*
 * The covariance @g seconds on: F P F' + Q, with F the state's motion
 * (phase += g period + g^2 / 2 drift, period += g drift) and Q the
 * random walk's g steps.
 */
static void sv_predict_p(const struct sv_model_def *def, s64 *p, u64 g)
{
	static const int rows[3][2] = { { P01, P02 }, { P01, P12 },
					{ P02, P12 } };
	u64 g2 = g * g;
	s64 a00, a01, a02, a11, a12, q[4];

	if (g == 1) {
		/* The common step, in additions: F = [1 1 1/2; 0 1 1; 0 0 1] */
		a00 = p[P00] + p[P01] + p[P02] / 2;
		a01 = p[P01] + p[P11] + p[P12] / 2;
		a02 = p[P02] + p[P12] + p[P22] / 2;
		p[P00] = a00 + a01 + a02 / 2;
		p[P01] = a01 + a02;
		p[P02] = a02;
		p[P11] += 2 * p[P12] + p[P22];
		p[P12] += p[P22];
		p[def->dim == 2 ? P11 : P22] += def->lambda;
		goto clamp;
	}

	/* A = F P (rows 0 and 1), then F P F' */
	a00 = sv_add3(p[P00], sv_imul(p[P01], g), sv_imul(p[P02], g2) / 2);
	a01 = sv_add3(p[P01], sv_imul(p[P11], g), sv_imul(p[P12], g2) / 2);
	a02 = sv_add3(p[P02], sv_imul(p[P12], g), sv_imul(p[P22], g2) / 2);
	a11 = sv_add3(p[P11], sv_imul(p[P12], g), 0);
	a12 = sv_add3(p[P12], sv_imul(p[P22], g), 0);
	p[P00] = sv_add3(a00, sv_imul(a01, g), sv_imul(a02, g2) / 2);
	p[P01] = sv_add3(a01, sv_imul(a02, g), 0);
	p[P02] = a02;
	p[P11] = sv_add3(a11, sv_imul(a12, g), 0);
	p[P12] = a12;

	sv_power_sums(g, q);
	if (def->dim == 2) {
		p[P00] = sv_add3(p[P00], sv_imul(def->lambda, q[1]), 0);
		p[P01] = sv_add3(p[P01], sv_imul(def->lambda, q[0]), 0);
		p[P11] = sv_add3(p[P11], sv_imul(def->lambda, g), 0);
	} else {
		p[P00] = sv_add3(p[P00], sv_imul(def->lambda, q[3]) / 4, 0);
		p[P01] = sv_add3(p[P01], sv_imul(def->lambda, q[2]) / 2, 0);
		p[P02] = sv_add3(p[P02], sv_imul(def->lambda, q[1]) / 2, 0);
		p[P11] = sv_add3(p[P11], sv_imul(def->lambda, q[1]), 0);
		p[P12] = sv_add3(p[P12], sv_imul(def->lambda, q[0]), 0);
		p[P22] = sv_add3(p[P22], sv_imul(def->lambda, g), 0);
	}
clamp:
	p[P00] = min_t(s64, p[P00], SV_P_MAX);
	sv_clamp_var(p, P11, rows[1]);
	sv_clamp_var(p, P22, rows[2]);
}

/* The model's predicted phase (2^-16 ns, from the anchor) @g seconds on */
static s64 sv_model_phase(const struct gpsphc_servo_model *m, s64 g)
{
	return m->x[0] + m->x[1] * g + sv_mulshr(m->x[2], g * g, 17);
}

/* ...and period (2^-16 ns) */
static s64 sv_model_period(const struct gpsphc_servo_model *m, s64 g)
{
	return m->x[1] + sv_mulshr(m->x[2], g, 16);
}

/*
 * How much less likely prediction error @nu (2^-16 ns) makes a model
 * predicting with variance @s (2^-44, in units of the capture noise),
 * @inv_s being 1 / @s in 2^-32: nu^2 / (2 noise s) + ln(s) / 2, the first
 * capped at 2^15 nats; 2^-16 nats. @nu2_noise is nu^2 / noise in 2^-16,
 * less than 2^47.
 */
static s64 sv_score(u64 nu2_noise, u64 inv_s, s64 half_ln_s)
{
	return (s64)mul_u64_u64_shr(nu2_noise, inv_s, 33) + half_ln_s;
}

/* nu^2 / noise in 2^-16 for @nu in 2^-16 ns, @inv_noise 2^48 / noise */
static u64 sv_nu2_noise(s64 nu, u64 noise, u64 inv_noise)
{
	s64 nu_ns = clamp(nu >> 16, -(1LL << 31), 1LL << 31);
	u64 nu2 = (u64)(nu_ns * nu_ns);

	if (nu2 >> 31 >= noise)		/* 2^31 nats and more */
		return 1ULL << 47;
	return mul_u64_u64_shr(nu2, inv_noise, 32);
}

/* 1 / @s in 2^-32, @s >= 1 in 2^-44 */
static u64 sv_inv(s64 s)
{
	return div64_u64(U64_MAX, (u64)s >> 12);
}

/* Has the covariance settled: @p within a few units of @old? */
static bool sv_settled(const s64 *p, const s64 *old)
{
	int i;

	for (i = 0; i < 6; i++)
		if (sv_mag(p[i] - old[i]) > 4)
			return false;
	return true;
}

/*
 * Take an input @nu (2^-16 ns) from the prediction @g seconds after the
 * anchor into model @m; returns its score for the input, 2^-16 nats.
 */
static s64 sv_model_take(const struct sv_model_def *def,
			 struct gpsphc_servo_model *m, u64 g, s64 nu,
			 u64 noise, u64 inv_noise)
{
	u64 nu2 = sv_nu2_noise(nu, noise, inv_noise), inv_s;
	s64 p[6], s, score, r0[3];

	if (m->converged && g == 1) {
		score = sv_score(nu2, m->inv_s, m->half_ln_s);
		goto state;
	}
	memcpy(p, m->p, sizeof(p));
	sv_predict_p(def, p, g);
	if (p[P00] >= SV_P_MAX) {
		/*
		 * The gap lost it the phase: the line from the anchor through
		 * this input (the mean period over the gap), as a long gap
		 * makes the filter's own gains.
		 */
		p[P00] = SV_ONE;
		p[P01] = SV_ONE / (s64)g;
		p[P11] = min_t(s64, sv_sat_add(p[P11],
					       2 * SV_ONE / (s64)(g * g)),
			       SV_P_MAX);
		p[P02] = 0;
		memcpy(m->p, p, sizeof(p));
		m->converged = false;
		m->x[1] = sv_model_period(m, g) +
			  div64_s64(clamp(nu, -SV_NU_LIMIT, SV_NU_LIMIT),
				    (s64)g);
		m->x[0] = 0;
		s = SV_P_MAX + SV_ONE;
		return sv_score(nu2, sv_inv(s), sv_half_ln(s));
	}
	s = p[P00] + SV_ONE;
	inv_s = sv_inv(s);
	if (g == 1) {
		m->s = s;
		m->inv_s = inv_s;
		m->half_ln_s = sv_half_ln(s);
		score = sv_score(nu2, inv_s, m->half_ln_s);
	} else {
		score = sv_score(nu2, inv_s, sv_half_ln(s));
	}

	/* Gains k = P0 / s; P -= k P0, P0 the row as it was */
	memcpy(r0, p, sizeof(r0));
	m->k[0] = sv_mulshr(r0[0], (s64)inv_s, 32);
	m->k[1] = sv_mulshr(r0[1], (s64)inv_s, 32);
	m->k[2] = def->dim == 3 ? sv_mulshr(r0[2], (s64)inv_s, 32) : 0;
	p[P00] -= sv_mulshr(m->k[0], r0[0], SV_Q);
	p[P01] -= sv_mulshr(m->k[0], r0[1], SV_Q);
	p[P02] -= sv_mulshr(m->k[0], r0[2], SV_Q);
	p[P11] -= sv_mulshr(m->k[1], r0[1], SV_Q);
	p[P12] -= sv_mulshr(m->k[1], r0[2], SV_Q);
	p[P22] -= sv_mulshr(m->k[2], r0[2], SV_Q);
	m->converged = g == 1 && sv_settled(p, m->p);
	memcpy(m->p, p, sizeof(p));

state:
	/* state += k nu; the anchor moves to this input */
	nu = clamp(nu, -SV_NU_LIMIT, SV_NU_LIMIT);
	m->x[1] = sv_model_period(m, g) + sv_mulshr(m->k[1], nu, SV_Q);
	if (def->dim == 3)
		m->x[2] = clamp(m->x[2] + sv_mulshr(m->k[2], nu, SV_Q - 16),
				-SV_DRIFT_LIMIT, SV_DRIFT_LIMIT);
	m->x[0] = -(nu - sv_mulshr(m->k[0], nu, SV_Q));
	return score;
}

/* Start model @m on two inputs @g seconds apart, @d raw ns apart */
static void sv_model_start(const struct sv_model_def *def,
			   struct gpsphc_servo_model *m, u64 g, u64 d)
{
	/* The line through two captures: phase r, period 2r / g^2, cov r / g */
	*m = (struct gpsphc_servo_model){
		.x[1] = (s64)div64_u64(d << 16, g),
		.p[P00] = SV_ONE,
		.p[P01] = SV_ONE / (s64)g,
		.p[P11] = 2 * SV_ONE / (s64)(g * g),
		.p[P22] = def->dim == 3 ? SV_DRIFT_PRIOR : 0,
		.score = def->prior,
	};
}

/* Copy model @src into @dst, restarting @dst from what @src knows */
static void sv_model_copy(const struct sv_model_def *def,
			  struct gpsphc_servo_model *dst,
			  const struct gpsphc_servo_model *src)
{
	*dst = *src;
	dst->converged = false;
	if (def->dim == 2) {
		dst->x[2] = 0;
		dst->k[2] = 0;
		dst->p[P02] = 0;
		dst->p[P12] = 0;
		dst->p[P22] = 0;
	}
}

/* Forget the pulses' phase; keep the rate (@s->freq) for the next start */
void gpsphc_sv_est_reset(struct gpsphc_servo *s)
{
	s->est.taken = 0;
	s->est.held = 0;
}

/*
 * The estimate @g seconds from the anchor, phase and period (2^-16 ns):
 * the models' predictions weighted by e^-score, as deviations from the
 * best model's (within +-2^40: 16 ms).
 */
static void sv_est_predict(const struct gpsphc_servo *s, s64 g, s64 *phase,
			   s64 *period)
{
	const struct gpsphc_servo_model *m = s->est.model;
	const struct gpsphc_servo_model *best = &m[s->est.best];
	s64 bp = sv_model_phase(best, g), br = sv_model_period(best, g);
	s64 sp = 0, sr = 0, dp, dr;
	u64 sw = 0;
	u32 i;

	for (i = 0; i < GPSPHC_SERVO_MODELS; i++) {
		if (!m[i].weight)
			continue;
		dp = clamp(sv_model_phase(&m[i], g) - bp, -(1LL << 40),
			   1LL << 40);
		dr = clamp(sv_model_period(&m[i], g) - br, -(1LL << 40),
			   1LL << 40);
		sp += dp * m[i].weight;
		sr += dr * m[i].weight;
		sw += m[i].weight;
	}
	*phase = bp + div64_s64(sp, (s64)max_t(u64, sw, 1));
	*period = br + div64_s64(sr, (s64)max_t(u64, sw, 1));
}

/* After an input taken: the best model, the weights, the estimate */
static void sv_est_refresh(struct gpsphc_servo *s)
{
	struct gpsphc_servo_est *e = &s->est;
	u32 i;

	e->best = 0;
	for (i = 0; i < GPSPHC_SERVO_MODELS; i++) {
		e->model[i].weight = sv_weight(e->model[i].score);
		if (e->model[i].score <= e->model[e->best].score)
			e->best = i;
	}
	sv_est_predict(s, 0, &e->phase, &e->period);
	sv_est_predict(s, 1, &e->next_phase, &e->next_period);
}

/*
 * The clock's rate correction for a period (2^-16 ns of raw time per true
 * second), 2^-16 ppb, within max_ppb: with delta = 1e9 - P,
 * (1e9 - P) / P = delta / 1e9 * (1 + delta / P).
 */
static s64 sv_period_to_adj(const struct gpsphc_servo *s, s64 period)
{
	s64 delta = ((s64)SV_NSEC << 16) - period, d;

	delta = sv_clamp(delta, (s64)GPSPHC_SERVO_MAX_PPB_LIMIT << 16);
	period = max_t(s64, period, (s64)SV_NSEC << 15);	/* 0.5 s */
	d = delta + div_s64(delta * (delta >> 16), (s32)((period >> 16) | 1));
	return sv_clamp(d, sv_max_adj(s));
}

bool gpsphc_sv_est_ready(const struct gpsphc_servo *s)
{
	return s->est.taken >= 2;
}

/* Has the estimator measured the capture noise? */
bool gpsphc_sv_est_noise_known(const struct gpsphc_servo *s)
{
	return s->est.noise_n >= SV_NOISE_TRUSTED;
}

/*
 * Where edge @num truly comes, raw ns, and the clock's rate then (2^-16
 * ppb): the estimator's weighted prediction. Needs gpsphc_sv_est_ready().
 */
u64 gpsphc_sv_est_raw_at(const struct gpsphc_servo *s, u64 num, s64 *adj)
{
	s64 g = (s64)(num - s->est.anchor_num), phase, period;

	if (g == 1) {
		phase = s->est.next_phase;
		period = s->est.next_period;
	} else {
		g = clamp(g, -(s64)SV_GAP_MAX, (s64)SV_GAP_MAX);
		sv_est_predict(s, g, &phase, &period);
	}
	if (adj)
		*adj = sv_period_to_adj(s, period);
	return s->est.anchor_raw + (phase >> 16);
}

/* The rate at raw time @raw (2^-16 ppb), predicted from the last input */
s64 gpsphc_sv_est_adj_at(const struct gpsphc_servo *s, u64 raw)
{
	s64 g = (s64)div64_u64(sv_since(raw, s->est.anchor_raw), SV_NSEC);
	s64 phase, period = s->est.period;

	if (g == 1)
		period = s->est.next_period;
	else if (g)
		sv_est_predict(s, min_t(s64, g, SV_GAP_MAX), &phase, &period);
	return sv_period_to_adj(s, period);
}

/* Second differences of inputs a second apart measure the noise */
static void sv_est_noise(struct gpsphc_servo_est *e, u64 raw, u64 num)
{
	s64 d;
	u64 v;

	if (e->taken < 2 || num != e->anchor_num + 1 ||
	    e->anchor_num != e->prev_num + 1)
		return;
	d = (s64)(raw - e->anchor_raw) - (s64)(e->anchor_raw - e->prev_raw);
	d = clamp(d, -(1LL << 31), 1LL << 31);
	v = (u64)(d * d) / 6;
	if (e->noise_n < SV_NOISE_EDGES)
		e->noise_n++;
	if (v >= e->noise)
		e->noise += div_u64(v - e->noise, e->noise_n);
	else
		e->noise -= div_u64(e->noise - v, e->noise_n);
}

/* The capture noise variance, ns^2: a prior of (lock_ns / 10)^2 at first */
static u64 sv_est_noise_var(const struct gpsphc_servo *s)
{
	const struct gpsphc_servo_est *e = &s->est;
	u64 prior = div_u64(sv_icfg(s)->lock_ns, 10);

	prior = min_t(u64, prior * prior, 1ULL << 50);
	if (e->noise_n >= SV_NOISE_TRUSTED)
		return max_t(u64, e->noise, 1);
	return max_t(u64, div_u64(e->noise * e->noise_n + prior *
				  (SV_NOISE_TRUSTED - e->noise_n),
				  SV_NOISE_TRUSTED), 1);
}

/* Input @raw, @num is the last taken: the estimate from there */
static void sv_est_anchor(struct gpsphc_servo *s, u64 raw, u64 num)
{
	struct gpsphc_servo_est *e = &s->est;

	e->prev_raw = e->anchor_raw;
	e->prev_num = e->anchor_num;
	e->anchor_raw = raw;
	e->anchor_num = num;
	if (e->taken < U32_MAX)
		e->taken++;
	if (e->taken >= 2) {
		sv_est_refresh(s);
		s->freq = sv_period_to_adj(s, e->period);
	}
}

static void sv_est_start_push(struct gpsphc_servo_est *e, u64 raw, u64 num)
{
	if (e->start_n >= GPSPHC_SERVO_START)
		return;
	e->start_raw[e->start_n] = raw;
	e->start_num[e->start_n] = num;
	e->start_n++;
}

/* Take input @raw, edge @num, into every model */
static void sv_est_take(struct gpsphc_servo *s, u64 raw, u64 num)
{
	struct gpsphc_servo_est *e = &s->est;
	s64 score[GPSPHC_SERVO_MODELS], prev[GPSPHC_SERVO_MODELS], best_score;
	u64 g = num - e->anchor_num, noise = sv_est_noise_var(s);
	u64 d = raw - e->anchor_raw, inv_noise = div64_u64(1ULL << 48, noise);
	u32 i, best = 0;
	s64 nu;

	if (!e->taken || num <= e->anchor_num || raw <= e->anchor_raw ||
	    g > SV_GAP_MAX) {
		/* (Re)start; the clock keeps the rate from before, if any */
		e->taken = 0;
		e->noise_n = 0;
		e->noise = 0;
		e->start_n = 0;
		goto anchor;
	}
	sv_est_noise(e, raw, num);
	for (i = 0; i < GPSPHC_SERVO_MODELS; i++) {
		struct gpsphc_servo_model *m = &e->model[i];

		if (e->taken == 1) {
			sv_model_start(&sv_bank[i], m, g, d);
			continue;
		}
		if (sv_bank[i].dim == 3 && g > SV_DRIFT_GAP_MAX) {
			/* Too long for a drift model: start it from the rates */
			sv_model_copy(&sv_bank[i], m,
				      &e->model[GPSPHC_SERVO_MODELS - 1]);
			m->p[P00] = SV_P_MAX;
			m->p[P01] = 0;
			m->p[P22] = SV_DRIFT_PRIOR;
		}
		prev[i] = m->score;
		nu = ((s64)d << 16) - sv_model_phase(m, (s64)g);
		score[i] = m->score + sv_model_take(&sv_bank[i], m, g, nu,
						    noise, inv_noise);
	}
	if (e->taken == 1)
		goto anchor;

	/* Scores relative to the best, capped */
	for (i = 1; i < GPSPHC_SERVO_MODELS; i++)
		if (score[i] <= score[best])
			best = i;
	best_score = score[best];
	for (i = 0; i < GPSPHC_SERVO_MODELS; i++)
		e->model[i].score = min_t(s64, score[i] - best_score,
					  SV_SCORE_CAP);
	/*
	 * Slower models far behind a best that was already good, and behind
	 * it before this input too (one input, however odd, is no change):
	 * their past misleads them; they restart from the best (a rate model
	 * also from a drift model, dropping the drift), but behind it.
	 */
	if (prev[best] <= SV_RESTART / 2 && e->noise_n >= SV_NOISE_TRUSTED) {
		for (i = best + 1; i < GPSPHC_SERVO_MODELS; i++) {
			if (e->model[i].score < SV_RESTART ||
			    prev[i] - prev[best] < SV_RESTART / 2 ||
			    (sv_bank[i].dim == 3 && sv_bank[best].dim == 2))
				continue;
			sv_model_copy(&sv_bank[i], &e->model[i],
				      &e->model[best]);
			e->model[i].score = SV_RESTART / 2;
		}
	}
anchor:
	sv_est_start_push(e, raw, num);
	sv_est_anchor(s, raw, num);
}

/*
 * The sigma of the estimator's prediction of edge @num (its error and the
 * capture noise), ns: the best model's.
 */
u64 gpsphc_sv_est_sigma(const struct gpsphc_servo *s, u64 num)
{
	const struct gpsphc_servo_est *e = &s->est;
	u64 g = clamp_t(u64, num - e->anchor_num, 1, SV_GAP_MAX);
	s64 p[6], var = e->model[e->best].s;

	if (g != 1 || !var) {
		memcpy(p, e->model[e->best].p, sizeof(p));
		sv_predict_p(&sv_bank[e->best], p, g);
		var = p[P00] + SV_ONE;
	}
	return int_sqrt64(mul_u64_u64_shr(sv_est_noise_var(s), (u64)var,
					  SV_Q));
}

/*
 * Is input @raw, @num an outlier? Beyond outlier_k sigmas of the
 * prediction late (a latency spike), 2 outlier_k early, and beyond
 * outlier_min_ns, once the noise is known.
 */
static bool sv_est_outlier(const struct gpsphc_servo *s, u64 raw, u64 num,
			   s64 *err)
{
	const struct gpsphc_servo_input_cfg *ic = sv_icfg(s);
	const struct gpsphc_servo_est *e = &s->est;
	u64 bound;

	*err = (s64)(raw - gpsphc_sv_est_raw_at(s, num, NULL));
	if (!ic->outlier_k || e->noise_n < SV_NOISE_FIRST || e->taken < 3)
		return false;
	/* Twice as wide while the noise is measured on few inputs */
	bound = (*err > 0 ? 1 : 2) * ic->outlier_k *
		gpsphc_sv_est_sigma(s, num);
	if (!gpsphc_sv_est_noise_known(s))
		bound *= 2;
	bound = max_t(u64, ic->outlier_min_ns, bound);
	return sv_mag(*err) > bound;
}

/*
 * Do the held inputs and @raw line up as a rate change: @raw where the
 * line through the last input taken and the first held one puts it, to
 * within SV_LINE_K sigmas of the noise there and half the first one's
 * error? (Two latency spikes in a row are not a line: the second is as
 * late as the first, where a line doubles its error.)
 */
static bool sv_est_line(const struct gpsphc_servo *s, u64 raw, u64 num)
{
	const struct gpsphc_servo_est *e = &s->est;
	u64 g0 = e->held_num[0] - e->anchor_num, g = num - e->held_num[0];
	s64 d0 = (s64)(e->held_raw[0] - e->anchor_raw), at, tol, d;

	if (g > 64 || !g0)
		return false;
	at = d0 + div64_s64(d0 * (s64)g, (s64)g0);
	d = (s64)(raw - e->anchor_raw) - at;
	tol = SV_LINE_K * int_sqrt64(sv_est_noise_var(s)) * (s64)(g + 1);
	return sv_mag(d) <= (u64)tol && sv_mag(d) <= sv_mag(e->held_err) / 2;
}

/*
 * The start. The bank knows no outliers until it has measured the noise,
 * and the first inputs of a PPS can be its worst (a machine still busy,
 * a virtual one). So the first GPSPHC_SERVO_START inputs after a
 * (re)start are fitted robustly and the bank seeded from the fit at each
 * input: the period is the median of the periods between input i and
 * input i + n/2, the phase the median of the inputs carried to the
 * newest at that period. Inputs within SV_FIT_MAD_K median absolute
 * deviations of that line (or outlier_min_ns) are its inliers; the line
 * through them by least squares, with its covariance, seeds every model,
 * and their residuals measure the noise. An input off the line is held.
 */
#define SV_FIT_MAD_K		5
/* Start inputs spanning more seconds than this end the start */
#define SV_START_SPAN		1024
/* Residuals from the medians' line, ns, within +-2^28 (268 ms) */
#define SV_FIT_RESID_MAX	268435456LL
/* ...and the least squares' slope within 1 ms per second */
#define SV_FIT_SLOPE_MAX	1000000LL

/* The line through the start's inputs: what seeds the bank */
struct sv_fit {
	s64 period;		/* 2^-16 ns */
	s64 phase;		/* at the newest input, less its capture */
	s64 p00, p01, p11;	/* covariance, units of the noise, 2^-44 */
	u64 noise;		/* the residuals' variance, ns^2 */
	u32 n;			/* inliers */
};

/* Insertion sort: @n is at most GPSPHC_SERVO_START */
static void sv_sort(s64 *v, u32 n)
{
	u32 i, j;
	s64 x;

	for (i = 1; i < n; i++) {
		x = v[i];
		for (j = i; j && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Start input @i less the newest, less @period (2^-16 ns) per second */
static s64 sv_start_resid(const struct gpsphc_servo_est *e, u32 i,
			  s64 period, s64 *x)
{
	u32 last = e->start_n - 1;
	s64 y = (s64)(e->start_raw[i] - e->start_raw[last]);

	*x = (s64)(e->start_num[i] - e->start_num[last]);
	return clamp(y - sv_mulshr(period, *x, 16), -SV_FIT_RESID_MAX,
		     SV_FIT_RESID_MAX);
}

/*
 * The medians' line (@period, @phase in ns at the newest input) and the
 * bound within which an input is on it, ns.
 */
static u64 sv_start_medians(const struct gpsphc_servo *s, s64 *period,
			    s64 *phase)
{
	const struct gpsphc_servo_est *e = &s->est;
	u32 n = e->start_n, h = n / 2, m = 0, i;
	s64 v[GPSPHC_SERVO_START], x;
	u64 mad;

	for (i = 0; i + h < n; i++)
		v[m++] = div64_s64((s64)(e->start_raw[i + h] -
					 e->start_raw[i]) << 16,
				   (s64)(e->start_num[i + h] - e->start_num[i]));
	sv_sort(v, m);
	*period = v[m / 2];
	for (i = 0; i < n; i++)
		v[i] = sv_start_resid(e, i, *period, &x);
	sv_sort(v, n);
	*phase = v[n / 2];
	for (i = 0; i < n; i++)
		v[i] = (s64)sv_mag(v[i] - *phase);
	sv_sort(v, n);
	mad = (u64)v[n / 2];
	if (!sv_icfg(s)->outlier_k)
		return SV_FIT_RESID_MAX * 2;
	return max_t(u64, SV_FIT_MAD_K * mad, sv_icfg(s)->outlier_min_ns);
}

/*
 * The least squares' line through the start's inliers; false if the
 * newest input is off the medians' line, or the inputs make no line yet
 * (as many outliers as inliers).
 */
static bool sv_start_fit(const struct gpsphc_servo *s, struct sv_fit *f)
{
	const struct gpsphc_servo_est *e = &s->est;
	s64 sx = 0, sy = 0, sxx = 0, sxy = 0, x, y, den, num, q, b, a;
	s64 period, phase;
	u64 bound, ss = 0;
	u32 i, n = 0;

	bound = sv_start_medians(s, &period, &phase);
	y = sv_start_resid(e, e->start_n - 1, period, &x) - phase;
	if (sv_mag(y) > bound)
		return false;
	for (i = 0; i < e->start_n; i++) {
		y = sv_start_resid(e, i, period, &x) - phase;
		if (sv_mag(y) > bound)
			continue;
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		n++;
	}
	/* |x| <= 2^10, |y| <= 2^29, n <= 16: every product below 2^50 */
	den = (s64)n * sxx - sx * sx;
	if (n < 2 || den <= 0)
		return false;
	num = (s64)n * sxy - sx * sy;
	q = div64_s64(num, den);
	if (sv_mag(q) > SV_FIT_SLOPE_MAX)
		return false;
	b = q * 65536 + div64_s64((num - q * den) * 65536, den);
	a = div64_s64(sy * 65536 - b * sx, n);
	for (i = 0; i < e->start_n; i++) {
		y = sv_start_resid(e, i, period, &x) - phase;
		if (sv_mag(y) > bound)
			continue;
		y -= (a + b * x) >> 16;
		ss += (u64)(y * y);
	}
	f->period = period + b;
	f->phase = phase * 65536 + a;
	f->p00 = (s64)min_t(u64, mul_u64_u64_div_u64(sxx, SV_ONE, den),
			    SV_P_MAX);
	f->p01 = (s64)min_t(u64, mul_u64_u64_div_u64(-sx, SV_ONE, den),
			    SV_P_MAX);
	f->p11 = (s64)min_t(u64, mul_u64_u64_div_u64(n, SV_ONE, den),
			    SV_P_MAX);
	f->noise = n > 2 ? div_u64(ss, n - 2) : 0;
	f->n = n;
	return true;
}

/* Every model from the fit @f, at input @raw, @num */
static void sv_start_seed(struct gpsphc_servo *s, const struct sv_fit *f,
			  u64 raw, u64 num)
{
	struct gpsphc_servo_est *e = &s->est;
	u32 i;

	for (i = 0; i < GPSPHC_SERVO_MODELS; i++)
		e->model[i] = (struct gpsphc_servo_model){
			.x[0] = f->phase,
			.x[1] = f->period,
			.p[P00] = f->p00,
			.p[P01] = f->p01,
			.p[P11] = f->p11,
			.p[P22] = sv_bank[i].dim == 3 ? SV_DRIFT_PRIOR : 0,
			.score = sv_bank[i].prior,
		};
	e->noise = f->noise;
	e->noise_n = f->n > 2 ? f->n - 2 : 0;
	sv_est_anchor(s, raw, num);
}

/* Input @raw, @num during the start: to the fit, held if off its line */
static int sv_est_start(struct gpsphc_servo *s, u64 raw, u64 num, s64 *err)
{
	struct gpsphc_servo_est *e = &s->est;
	struct sv_fit f;

	*err = (s64)(raw - gpsphc_sv_est_raw_at(s, num, NULL));
	sv_est_start_push(e, raw, num);
	if (!sv_start_fit(s, &f))
		return SV_EST_HELD;
	sv_start_seed(s, &f, raw, num);
	return SV_EST_TAKEN;
}

int gpsphc_sv_est_input(struct gpsphc_servo *s, u64 raw, u64 num, s64 *err)
{
	struct gpsphc_servo_est *e = &s->est;
	u32 i, n;

	*err = 0;
	if (e->taken < 2 || num <= e->anchor_num || raw <= e->anchor_raw ||
	    num - e->anchor_num > SV_GAP_MAX) {
		sv_est_take(s, raw, num);
		return SV_EST_TAKEN;
	}
	if (e->start_n < GPSPHC_SERVO_START) {
		if (num - e->start_num[0] <= SV_START_SPAN)
			return sv_est_start(s, raw, num, err);
		e->start_n = GPSPHC_SERVO_START;
	}
	if (!sv_est_outlier(s, raw, num, err)) {
		e->held = 0;
		sv_est_take(s, raw, num);
		return SV_EST_TAKEN;
	}
	if (e->held && e->held < GPSPHC_SERVO_HELD &&
	    e->held <= s->cfg.outlier_max && sv_est_line(s, raw, num))
		goto change;
	if (e->held < s->cfg.outlier_max) {
		if (!e->held)
			e->held_err = *err;
		if (e->held < GPSPHC_SERVO_HELD) {
			e->held_raw[e->held] = raw;
			e->held_num[e->held] = num;
		}
		e->held++;
		return SV_EST_HELD;
	}
change:
	/* Not a spike: a change. Take what was held, then this. */
	n = min_t(u32, e->held, GPSPHC_SERVO_HELD);
	for (i = 0; i < n; i++)
		sv_est_take(s, e->held_raw[i], e->held_num[i]);
	e->held = 0;
	sv_est_take(s, raw, num);
	*err = 0;
	return SV_EST_CHANGE;
}

/* The estimated true edge of the last input taken, less its capture, ns */
s64 gpsphc_sv_est_phase(const struct gpsphc_servo *s)
{
	return s->est.taken < 2 ? 0 : s->est.phase >> 16;
}
