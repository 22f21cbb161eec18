// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc servo: the bank of Kalman filters, the default estimator
 * (%GPSPHC_CLOCK_SERVO_BANK). See servo.h; loop.c holds what the
 * estimators share.
 *
 * The loop models the pulses, not the clock. Each filter of a small bank
 * is a two-state Kalman filter of the edges' raw times: a phase (the raw
 * time of the last edge it took) and a period (raw ns per true second),
 * with white capture noise of variance r and a period that wanders as a
 * random walk of variance q per second (the host crystal's temperature).
 * Such a filter's gains settle to constants that depend on q / r alone,
 * so each filter runs on the steady-state gains of its q and the measured
 * r, from a table (an alpha-beta filter: no covariance to carry, a few
 * multiplications an edge), after a start on the gains of a least-squares
 * line through the edges so far, which is what the Kalman filter does
 * while its prior is vague. The filters' q span the crystals' range, from
 * an oven to a laptop whose load comes and goes. Two more filters model
 * a drift of the period as well (three states: a rate that ramps with the
 * temperature for minutes follows a parabola, which a rate filter can
 * only chase), on the steady-state gains of an alpha-beta-gamma filter
 * after a least-squares parabola's. The one whose recent predictions were
 * best steers, and one that falls far behind the best of the last few
 * edges (the rate stepped, a ramp began) restarts from that one's state
 * and memory: the bank then behaves like one filter that knows when the
 * rate moved. So does the steering filter once another has predicted
 * better for long enough to outweigh chance (a CUSUM of their
 * log-likelihood ratios), which tells the start of a ramp sooner than
 * the long scores (about 9 edges into 10 ppb/s through 0.1 us of jitter,
 * 25 through 1 us). An edge taken yet far off every
 * prediction (a rate step seen through little noise) hands the steering
 * to the most wandering filter at once, not after its scores show it.
 *
 * The clock is steered deadbeat: to read the next second at the bank's
 * prediction of the next edge, by its rate alone (within max_ppb). Its
 * error at an edge is then that prediction's error, and the measured
 * edges' own noise never reaches it but through the filters. The
 * prediction is the filters' own, each weighted by the likelihood of its
 * recent prediction errors (model averaging), once the scores are long
 * enough to tell; before, the steering filter's.
 *
 * Ranges: prediction errors are saturated to +-2^31 ns (2^47 in the 2^-16
 * ns the filters keep) and gains are at most 1.5 (a parabola's third
 * point), so a gain times an error goes through mul_u64_u64_shr();
 * periods stay within 1e6 ppb of a second (< 2^46), drifts within 100
 * ppb/s (< 2^23), and the edges a filter takes are under SV_KF_MAX_GAP
 * (2^16) seconds apart, so a gap times a period stays below 2^62 and a
 * gap squared times a drift below 2^55.
 */

#include "internal.h"
#include "bank_gains.h"

/* Offsets kept for the RMS */
/* 1 in 2^-31 */
#define SV_Q31			2147483648ULL
/* A gain of 1 */
#define SV_ONE			4294967296ULL		/* 2^32 */
/* Prediction errors, 2^-16 ns */
#define SV_KF_Y_LIMIT		140737488355328LL	/* 2^47 */
/* Periods, 2^-16 ns: within 1e6 ppb of a second */
#define SV_KF_P_MIN		((s64)(SV_NSEC - 1000000) << 16)
#define SV_KF_P_MAX		((s64)(SV_NSEC + 1000000) << 16)
/* Drifts, 2^-16 ns per s per s: within 100 ppb/s */
#define SV_KF_D_MAX		(100LL << 16)
/* Seconds between edges the filters take, at most; else they start again */
#define SV_KF_MAX_GAP		65536U
/* Least-squares lines forget beyond this many edges */
#define SV_KF_LS_MAX		1048576U
/*
 * Scores forget 1/256 per edge: the filters' predictions differ by far
 * less than the capture noise, which is the same in every score and
 * cancels from their comparison, but what is left takes a few hundred
 * edges to tell filters apart. The short scores, 1/16, only tell a
 * filter that fell far behind. The noise estimate forgets 1/64.
 */
#define SV_KF_SCORE_EDGES	256U
#define SV_KF_FAST_EDGES	16U
/*
 * Until the long scores have all their edges, a filter steers only if
 * its score beats a steadier one's by SV_KF_EARLY / edges scored: in
 * noise alone the steadier filter is the better one, and scores of a few
 * dozen edges differ by that much by chance.
 */
#define SV_KF_EARLY		4U
/*
 * Filters whose long score is this much (1/16) above the best one's weigh
 * under 2^-11 in the steering prediction, and are left out of it.
 */
#define SV_KF_BLEND_SHIFT	4
/* A filter whose short score is this many times the lowest one restarts */
#define SV_KF_WORSE		4U
/*
 * Edges the filters scored before they screen: two prediction errors
 * already bound a latency spike of tens of microseconds, and one taken
 * into a line of a few edges stays in it for hundreds.
 */
#define SV_KF_SCREEN_EDGES	2U
/*
 * The screen's variance, while LOCKING and the long scores are not full,
 * is at most this many times the noise's median variance (4 sigmas): a
 * filter's prediction error is the noise plus its own error, which a
 * least-squares line through three edges already keeps under twice the
 * noise's. Not once LOCKED: there a long tail of latency (PREEMPT_RT's
 * interrupt thread: edges 250 us late among 15 us of noise, three in a
 * row) would look like pulses that moved, and relock the loop.
 */
#define SV_KF_SCREEN_NOISE	16U
/*
 * An edge taken this many sigmas off every prediction (a rate step seen
 * through little noise: within outlier_min_ns, but not the noise) hands
 * the steering to the most wandering filter at once, then to the best of
 * the last few edges until the lagging filters have restarted: waiting
 * for the scores would let the error grow for a few more edges. Only
 * once the short scores have all their edges: a sigma from a few edges,
 * through the latency of a busy or virtual machine, is no sigma.
 */
#define SV_KF_SURPRISE		5U
/*
 * Evidence that another filter predicts better than the steering one, in
 * nats, beyond which it takes over (see sv_kf_switch()). Their log-
 * likelihood ratio drifts down while it does not, and a CUSUM with this
 * threshold then crosses it by chance rarely (for the exact ratio, once
 * in e^10 edges or fewer).
 */
#define SV_KF_SWITCH_NATS	10U

/*
 * The history's inputs from which its estimate corrects the filters'
 * lines while LOCKING (with five, the MAD of four intervals could read
 * 1 us of jitter as 115 ns and move a clean stream's filters), and how
 * far off, in sigmas of the history's noise, they must be.
 */
#define SV_KF_REFIT_INPUTS	8U
#define SV_KF_REFIT_SIGMAS	4U

/* No rate noise at all: a least-squares line through every edge */
#define SV_KF_Q_NONE		(-64)

/*
 * Each filter's rate noise q: 2^n ppb^2 per second, from a rate that
 * never moves, or a crystal that wanders by 0.1 ppb a second, to one
 * that moves by 90 ppb a second (a step of the rate); then, in the
 * filters that model a drift, its noise: 2^n (ppb/s)^2 per second, a
 * drift that holds for many minutes or for one.
 */
static const int sv_kf_log2_q[GPSPHC_SERVO_MODELS] = {
	SV_KF_Q_NONE, -6, 0, 5, 9, 13, -12, -4,
};

/* The most wandering filter of a rate: the one a surprise hands over to */
#define SV_KF_AGILE		5U
/* The first filter that models a drift */
#define SV_KF_DRIFT_FIRST	6U
/*
 * A drift filter's parabola, extrapolated over a gap, is as uncertain as
 * a rate that wanders by 2^n ppb^2 per second: the outlier bound widens
 * that much when one steers.
 */
#define SV_KF_DRIFT_GAP_LOG2_Q	0

/*
 * The steady-state gains of each filter for q / r = 2^-j, j = 0..63
 * (sv_kf_ab: alpha, beta of a rate filter; sv_kf_abg: alpha, beta,
 * gamma of a drift filter), from tools/testing/host/gen_servo_gains.py,
 * which states their equations and rounding (bank_gains.h): a table,
 * since the division cost more than all else a filter does in an edge.
 */

/* The square of @y (2^-16 ns), in ns^2, saturated at 2^60 */
static u64 sv_sq(s64 y)
{
	u64 m = min_t(u64, sv_mag(y) >> 16, 1ULL << 30);

	return m * m;
}

/* @y times @gain (2^-32) */
static s64 sv_gain(s64 y, u64 gain)
{
	s64 v = (s64)mul_u64_u64_shr(sv_mag(y), gain, 32);

	return y < 0 ? -v : v;
}

/* The period (2^-16 ns) a clock running @freq (2^-16 ppb) calls 1 s */
static s64 sv_freq_period(s64 freq)
{
	u64 one = (u64)SV_NSEC << 16;

	return (s64)mul_u64_u64_div_u64(one, one, (u64)((s64)one + freq));
}

/*
 * The row of filter @i's steady-state gains for the noise measured, j
 * for q / r = 2^-j, at least 0; -1: the noise is not measured yet
 */
static int sv_kf_gain_row(const struct gpsphc_servo_bank *b, u32 i)
{
	if (b->r_n < GPSPHC_SERVO_LOCK_EDGES)
		return -1;
	return max(fls64(b->r | 1) - 1 - sv_kf_log2_q[i], 0);
}

/*
 * Rate filter @i's steady-state alpha and beta for the noise measured;
 * NULL: not yet, or beyond the table (alpha below 2^-15: a least-squares
 * line)
 */
static const u32 *sv_kf_ab_ss(const struct gpsphc_servo_bank *b, u32 i)
{
	int j = sv_kf_gain_row(b, i);

	return j < 0 || j > 63 ? NULL : sv_kf_ab[j];
}

/* Drift filter @i's steady-state gains for the noise measured; NULL: not yet */
static const u32 *sv_kf_abg_ss(const struct gpsphc_servo_bank *b, u32 i)
{
	int j = sv_kf_gain_row(b, i);

	return j < 0 ? NULL : sv_kf_abg[min(j, 63)];
}

/*
 * The edges filter @i's state stands for: its least-squares start's, or
 * as many as its steady-state gains imply (alpha is about 4 / k for a
 * line through k points, 9 / k for a parabola).
 */
static u32 sv_kf_memory(const struct gpsphc_servo_bank *b, u32 i)
{
	const u32 *abg;
	u64 k;

	if (b->m[i].n)
		return b->m[i].n;
	if (i < SV_KF_DRIFT_FIRST) {
		abg = sv_kf_ab_ss(b, i);
		k = div64_u64(4 * SV_ONE, (abg ? abg[0] : 0) | 1);
	} else {
		abg = sv_kf_abg_ss(b, i);
		k = div64_u64(9 * SV_ONE, (abg ? abg[0] : 0) | 1);
	}
	return (u32)min_t(u64, k, SV_KF_LS_MAX);
}

/* Filter @m's prediction of the edge @g seconds after its last, 2^-16 ns */
static s64 sv_kf_pred(const struct gpsphc_servo_model *m, u64 g)
{
	s64 at = m->a + (s64)g * m->p;

	return m->d ? at + m->d * (s64)(g * g) / 2 : at;
}

/*
 * Take an edge @y (2^-16 ns) off where filter @m predicted it: a
 * least-squares line's gains for the k-th point while they are above the
 * steady-state ones @ab (alpha_k = 2 (2k - 1) / k (k + 1), beta_k = 6 / k
 * (k + 1)), then @ab's. @m->a is then relative to the edge.
 */
static void sv_kf_update(struct gpsphc_servo_model *m, s64 y, const u32 *ab)
{
	u64 alpha = ab ? ab[0] : 0, beta = ab ? ab[1] : 0, k, kk, ls;

	if (m->n) {
		k = min(m->n + 1, SV_KF_LS_MAX);
		kk = k * (k + 1);
		ls = div64_u64((4 * k - 2) << 32, kk);
		if (ls > alpha) {
			alpha = ls;
			beta = div64_u64(6ULL << 32, kk);
			m->n = k;
			goto take;
		}
		m->n = 0;
	}
take:
	m->a = sv_gain(y, alpha) - y;
	m->p = clamp(m->p + sv_gain(y, beta), SV_KF_P_MIN, SV_KF_P_MAX);
}

/*
 * The same for a drift filter, @g seconds after the last edge it took:
 * a least-squares parabola's gains for the k-th point while they are
 * above the steady-state ones @abg (alpha_k = 3 (3k^2 - 3k + 2) / k (k +
 * 1) (k + 2), beta_k = 18 (2k - 1) / k (k + 1) (k + 2), gamma_k = 60 / k
 * (k + 1) (k + 2); a line's through two points), then @abg's.
 */
static void sv_kf_update_drift(struct gpsphc_servo_model *m, s64 y, u64 g,
			       const u32 *abg)
{
	u64 alpha = abg ? abg[0] : 0, beta = 0, gamma = 0, k, kkk, ls;

	if (m->n) {
		k = min(m->n + 1, SV_KF_LS_MAX);
		if (k < 3) {
			m->n = k;
			alpha = SV_ONE;
			beta = div64_u64(6ULL << 32, k * (k + 1));
			goto take;
		}
		kkk = k * (k + 1) * (k + 2);
		ls = mul_u64_u64_div_u64(3 * (3 * k * k - 3 * k + 2), SV_ONE, kkk);
		if (ls > alpha) {
			m->n = k;
			alpha = ls;
			beta = mul_u64_u64_div_u64(18 * (2 * k - 1), SV_ONE, kkk);
			gamma = mul_u64_u64_div_u64(60, SV_ONE, kkk);
			goto take;
		}
		m->n = 0;
	}
	if (abg) {
		beta = abg[1];
		gamma = abg[2];
	}
take:
	m->a = sv_gain(y, alpha) - y;
	m->p = clamp(m->p + (s64)g * m->d + sv_gain(y, beta), SV_KF_P_MIN,
		     SV_KF_P_MAX);
	m->d = sv_clamp(m->d + sv_gain(y, gamma), SV_KF_D_MAX);
}

static void sv_kf_anchor(struct gpsphc_servo_bank *b,
			 const struct gpsphc_servo_edge_rec *rec)
{
	b->prev_ok = b->ready && rec->num == b->anchor_num + 1;
	b->prev_raw = b->anchor_raw;
	b->prev_num = b->anchor_num;
	b->anchor_raw = rec->raw;
	b->anchor_num = rec->num;
	b->ready = true;
}

/*
 * Start the filters at @rec from the history's estimate (the first label,
 * a change of input kind), as a least-squares line through the inputs it
 * used; or, with none, at @rec and the rate the servo has.
 */
static void sv_kf_start(struct gpsphc_servo *s,
			const struct gpsphc_servo_edge_rec *rec)
{
	struct gpsphc_servo_bank *b = &s->bank;
	u64 raw_at = rec->raw;
	s64 period, a;
	u32 used, i;

	used = gpsphc_sv_estimate(s, rec, &period, &raw_at);
	if (!used) {
		period = sv_freq_period(s->freq);
		used = 1;
	}
	a = sv_clamp((s64)(raw_at - rec->raw), SV_KF_Y_LIMIT >> 16) * 65536;
	for (i = 0; i < GPSPHC_SERVO_MODELS; i++)
		b->m[i] = (struct gpsphc_servo_model){
			.a = a,
			.p = clamp(period, SV_KF_P_MIN, SV_KF_P_MAX),
			.n = used,
		};
	b->ready = false;
	b->restart = false;
	b->agile = 0;
	b->best = 0;
	b->scored = 0;
	b->r = 0;
	b->r_n = 0;
	b->refit = true;
	sv_kf_anchor(b, rec);
}

/*
 * While LOCKING from a start (not a relock: the history then holds
 * where the pulses were), after each edge taken: where the least-squares
 * line through every edge (the first filter's) predicts the next edge
 * more than SV_KF_REFIT_SIGMAS of the history's noise
 * (gpsphc_sv_noise_median()) off the history's robust estimate, which
 * is that line through the edges near the medians', every filter moves
 * by that difference of phase and period. A latency spike among the
 * first edges, before the filters screen, goes whole into their
 * least-squares lines, which then converge as 1/n: a 3.9 ms spike at the
 * second edge left the clock 600 us off 20 edges later (arm64 under
 * TCG), never LOCKED. The estimate's medians leave such a spike out.
 * The filters keep their scores, memories and their differences, which
 * tell the steadiest from the most wandering once the pulses' rate
 * moves; clean edges leave them alone.
 */
static void sv_kf_refit(struct gpsphc_servo *s,
			const struct gpsphc_servo_edge_rec *rec)
{
	struct gpsphc_servo_bank *b = &s->bank;
	const struct gpsphc_servo_model *line = &b->m[0];
	u64 raw_at = rec->raw, var, mag;
	s64 period, da, dp;
	u32 i;

	var = gpsphc_sv_noise_median(s);
	if (!var ||
	    gpsphc_sv_estimate(s, rec, &period, &raw_at) < SV_KF_REFIT_INPUTS)
		return;
	da = sv_clamp((s64)(raw_at - rec->raw), SV_KF_Y_LIMIT >> 16) * 65536 -
	     line->a;
	dp = clamp(period, SV_KF_P_MIN, SV_KF_P_MAX) - line->p;
	/* The next edge's predictions differ by that much, within 2^31 ns */
	mag = min_t(u64, sv_mag(sv_sat_add(da, dp)) >> 16, 1ULL << 31);
	if (mag * mag <= SV_KF_REFIT_SIGMAS * SV_KF_REFIT_SIGMAS * var)
		return;
	for (i = 0; i < GPSPHC_SERVO_MODELS; i++) {
		b->m[i].a = sv_clamp(sv_sat_add(b->m[i].a, da), SV_KF_Y_LIMIT);
		b->m[i].p = clamp(b->m[i].p + dp, SV_KF_P_MIN, SV_KF_P_MAX);
	}
}

/*
 * A relock: the pulses moved (a phase that stays where the outliers were,
 * a rate changed in holdover). Every filter starts a least-squares line
 * at @rec, keeping its period, which is the best guess of the next one.
 */
static void sv_kf_restart(struct gpsphc_servo *s,
			  const struct gpsphc_servo_edge_rec *rec)
{
	struct gpsphc_servo_bank *b = &s->bank;
	u32 i;

	for (i = 0; i < GPSPHC_SERVO_MODELS; i++) {
		b->m[i].a = 0;
		b->m[i].d = 0;
		b->m[i].llr = 0;
		b->m[i].n = 1;
	}
	b->restart = false;
	b->agile = 0;
	b->scored = 0;
	b->ready = false;
	b->refit = false;
	sv_kf_anchor(b, rec);
}

/* The shift that brings a score @sq (ns^2, < 2^60) under 2^31 */
static int sv_kf_score_shift(u64 sq)
{
	return max(fls64(sq) - 31, 0);
}

/* 2^62 / (@sq >> @sh): one division, for all the filters compared with @sq */
static u64 sv_kf_score_recip(u64 sq, int sh)
{
	return div64_u64(1ULL << 62, (sq >> sh) | 1);
}

/* Filter @i starts again from @src's state, as the @n edges it stands for */
static void sv_kf_copy(struct gpsphc_servo_bank *b, u32 i,
		       const struct gpsphc_servo_model *src, u32 n)
{
	b->m[i] = *src;
	b->m[i].n = max(n, 2U);
	b->m[i].llr = 0;
	if (i < SV_KF_DRIFT_FIRST)
		b->m[i].d = 0;
}

/*
 * Has another filter predicted the edges better than the steering one
 * for long enough to outweigh chance? Were their errors Gaussian of
 * variances S (their long scores), the log-likelihood ratio of filter i
 * against the steering one b at an edge would be about (y_b^2 + S_b -
 * y_i^2 - S_i) / 2 S_b nats: its CUSUM (summed, and restarted at 0 when
 * it falls below) is @llr. Beyond SV_KF_SWITCH_NATS the rate has begun
 * to move (a ramp, thermal cycling turning) where the long scores would
 * take tens of edges to tell: the steering filter, and every one whose
 * long score would outrank the better one's, start again from it.
 * @ysq: the squares of this edge's prediction errors, ns^2.
 */
static void sv_kf_switch(struct gpsphc_servo_bank *b, const u64 *ysq)
{
	const struct gpsphc_servo_model *sb = &b->m[b->best];
	int sh = sv_kf_score_shift(sb->score);
	u64 base = ysq[b->best] + sb->score, lim, step, sq;
	u64 inv = sv_kf_score_recip(sb->score, sh);
	u32 i, hit = b->best, top = SV_KF_SWITCH_NATS << 16, n;
	struct gpsphc_servo_model src;

	/* (scores, squares < 2^60; S_b >> sh < 2^31; steps < 2^27) */
	lim = ((sb->score >> sh) | 1) << 12;
	for (i = 0; i < GPSPHC_SERVO_MODELS; i++) {
		if (i == b->best) {
			b->m[i].llr = 0;
			continue;
		}
		sq = ysq[i] + b->m[i].score;
		step = mul_u64_u64_shr(min((base > sq ? base - sq : sq - base) >>
					   sh, lim), inv, 47);
		/* llr stays under the threshold, 2^20, before this step */
		if (base > sq)
			b->m[i].llr += (u32)step;
		else
			b->m[i].llr -= (u32)min_t(u64, step, b->m[i].llr);
		if (b->m[i].llr > top) {
			top = b->m[i].llr;
			hit = i;
		}
	}
	if (hit == b->best)
		return;
	src = b->m[hit];
	n = sv_kf_memory(b, hit);
	for (i = 0; i < GPSPHC_SERVO_MODELS; i++) {
		b->m[i].llr = 0;
		if (i != hit && (i == b->best || b->m[i].score < src.score))
			sv_kf_copy(b, i, &src, n);
	}
}

/*
 * Every filter takes the edge @rec, @y[i] off its prediction: scores,
 * updates, the noise. Once the long scores are full, the steering filter
 * may start again from a better one (sv_kf_switch()). A filter whose
 * short score is far worse than the best short score (the rate stepped,
 * a ramp began: it fell behind) restarts from the filter that scored it,
 * with as much memory as that one's gains imply. Then the steering
 * filter: after a @surprise the most wandering one, then for
 * SV_KF_FAST_EDGES edges the lowest short score; else the lowest long
 * score.
 */
static void sv_kf_take(struct gpsphc_servo *s,
		       const struct gpsphc_servo_edge_rec *rec, const s64 *y,
		       bool surprise)
{
	struct gpsphc_servo_bank *b = &s->bank;
	u64 g = rec->num - b->anchor_num, sq[GPSPHC_SERVO_MODELS], score;
	struct gpsphc_servo_model q;
	u32 i, n, quick = 0;

	if (b->scored < SV_KF_SCORE_EDGES)
		b->scored++;
	for (i = 0; i < GPSPHC_SERVO_MODELS; i++) {
		sq[i] = sv_sq(y[i]);
		gpsphc_sv_mean_add(&b->m[i].fast, sq[i], b->scored,
				   SV_KF_FAST_EDGES);
		gpsphc_sv_mean_add(&b->m[i].score, sq[i], b->scored,
				   SV_KF_SCORE_EDGES);
		if (i < SV_KF_DRIFT_FIRST)
			sv_kf_update(&b->m[i], y[i], sv_kf_ab_ss(b, i));
		else
			sv_kf_update_drift(&b->m[i], y[i], g,
					   sv_kf_abg_ss(b, i));
		if (b->m[i].fast < b->m[quick].fast)
			quick = i;
	}
	if (b->prev_ok && rec->num == b->anchor_num + 1)
		gpsphc_sv_noise_add(&b->r, &b->r_n,
				    (s64)(rec->raw - b->anchor_raw) -
				    (s64)(b->anchor_raw - b->prev_raw));
	sv_kf_anchor(b, rec);

	if (b->scored >= SV_KF_SCORE_EDGES && !b->agile)
		sv_kf_switch(b, sq);
	q = b->m[quick];
	n = sv_kf_memory(b, quick);
	for (i = 0; i < GPSPHC_SERVO_MODELS; i++) {
		if (b->scored < SV_KF_FAST_EDGES ||
		    b->m[i].fast / SV_KF_WORSE <= q.fast)
			continue;
		sv_kf_copy(b, i, &q, n);
	}
	if (surprise) {
		b->agile = SV_KF_FAST_EDGES;
		b->best = SV_KF_AGILE;
		return;
	}
	if (b->agile) {
		b->agile--;
		b->best = quick;
		return;
	}
	b->best = 0;
	for (i = 1; i < GPSPHC_SERVO_MODELS; i++) {
		score = b->m[i].score;
		if (b->scored < SV_KF_SCORE_EDGES)
			score += div_u64(score * SV_KF_EARLY, b->scored);
		if (score < b->m[b->best].score)
			b->best = i;
	}
}

/*
 * The weight (2^-31) of a filter whose long score is @sq, against the
 * best one's @best: the likelihood ratio of their prediction errors were
 * they Gaussian, (best / sq)^(edges / 2), over half the scores' memory:
 * (1 + d)^-128 with d = sq / best - 1 (over the whole of it, one noisy
 * edge could swing the weights from one filter to another). @inv is
 * 2^62 / (@best >> @sh), the same for every filter: one division an
 * edge, not eight. 0 beyond 1/16 worse: below 2^-11.
 */
static u64 sv_kf_weight(u64 sq, u64 best, u64 inv, int sh)
{
	u64 d, x;
	int i;

	if (sq <= best)
		return SV_Q31;
	if (sq - best > best >> SV_KF_BLEND_SHIFT)
		return 0;
	/* d < 1/16 (2^-31): 1 / (1 + d) = 1 - d + d^2 - d^3 + d^4 + O(d^5) */
	d = mul_u64_u64_shr((sq - best) >> sh, inv, 31);
	x = SV_Q31 - d;
	for (i = 0; i < 3; i++)
		x = SV_Q31 - ((d * x) >> 31);
	/* ^128 */
	for (i = 0; i < 7; i++)
		x = (x * x) >> 31;
	return x;
}

/*
 * Raw time from the last edge to the next one, 2^-16 ns, as the clock is
 * steered to it: the filters' predictions weighted by the likelihood of
 * their recent errors (model averaging: the filters' predictions differ
 * most when the rate has just begun to move, and no single one is then
 * best), once the long scores have all their edges and no surprise is
 * being followed; else the steering filter's.
 */
static s64 sv_kf_span(const struct gpsphc_servo_bank *b)
{
	const struct gpsphc_servo_model *m = &b->m[b->best];
	s64 span = sv_kf_pred(m, 1), sum = 0, d;
	int sh = sv_kf_score_shift(m->score);
	u64 w, wsum = 0, inv;
	u32 i;

	if (b->scored < SV_KF_SCORE_EDGES || b->agile)
		return span;
	inv = sv_kf_score_recip(m->score, sh);
	for (i = 0; i < GPSPHC_SERVO_MODELS; i++) {
		w = sv_kf_weight(b->m[i].score, m->score, inv, sh);
		/* |d| < 2^28 (4 us), w <= 2^31: eight products fit s64 */
		d = sv_clamp(sv_kf_pred(&b->m[i], 1) - span, 1LL << 28);
		sum += d * (s64)w;
		wsum += w;
	}
	return span + div64_s64(sum, (s64)wsum);
}

/*
 * Make the clock, which read TAI + @off at the edge, read the next second
 * @span (2^-16 ns of raw time) after it: by rate, within max_ppb.
 */
static void sv_steer(struct gpsphc_servo *s, s64 off, s64 span,
		     struct gpsphc_servo_out *out)
{
	s64 gap, n, adj;

	span = clamp_t(s64, span, (s64)SV_HALF_SEC << 16,
		       (s64)(SV_NSEC + SV_HALF_SEC) << 16);
	gap = (s64)SV_NSEC - sv_clamp(off, SV_OFF_LIMIT);
	n = gap * 65536 - span;
	adj = (s64)min_t(u64, mul_u64_u64_div_u64(sv_mag(n),
						  (u64)SV_NSEC << 16, span),
			 SV_OFF_LIMIT << 16);
	sv_set_adj(s, n < 0 ? -adj : adj, out);
}

/*
 * Is an edge @near ns from the nearest prediction beyond @k times the
 * steering filter's RMS prediction error, @var its mean square, plus
 * what its rate noise adds over a gap of @g seconds (q g^3 / 3)? With
 * outlier_k and the short score: a suspected outlier; with
 * SV_KF_SURPRISE and the larger score: a surprise. Squares, not roots,
 * on the usual edge a second after the last: this runs on every edge.
 */
static bool sv_beyond(const struct gpsphc_servo *s, u64 near, u64 g, u64 k,
		      u64 var)
{
	const struct gpsphc_servo_bank *b = &s->bank;
	int lq = b->best < SV_KF_DRIFT_FIRST ? sv_kf_log2_q[b->best] :
					       SV_KF_DRIFT_GAP_LOG2_Q;
	u64 g3;

	if (!k || b->scored < SV_KF_SCREEN_EDGES)
		return false;
	if (g > 1 && lq != SV_KF_Q_NONE) {
		g3 = g * g * g;
		g3 = lq < 0 ? g3 >> -lq : g3 << lq;
		return near > k * (int_sqrt64(var) + int_sqrt64(div_u64(g3, 3)));
	}
	near = min_t(u64, near, 1ULL << 31);
	return div64_u64(near * near, k * k) > var;
}

/*
 * Do the outliers in a row and this edge @num, @y ns off the steering
 * filter's prediction, lie on one line, within what the capture noise
 * allows (and outlier_min_ns)? Then the pulses moved: a phase step keeps
 * the errors, a rate step grows them evenly. Latency scatters them. The
 * line is the last two outliers' (after one only: a phase step); the
 * prediction's variance from three noisy points is 6 r.
 */
static bool sv_rejects_agree(const struct gpsphc_servo *s, u64 num, s64 y)
{
	const struct gpsphc_servo_reject *a = &s->rejected[0];
	const struct gpsphc_servo_reject *b = &s->rejected[1];
	const struct gpsphc_servo_input_cfg *ic = sv_icfg(s);
	u64 bound = ic->outlier_k * int_sqrt64(6 * s->bank.r);
	s64 line = b->y;

	/* |y| < 2^31 and the edges are under SV_KF_MAX_GAP (2^16) apart */
	if (s->rejects >= 2 && b->num > a->num && num > b->num)
		line += div64_s64((b->y - a->y) * (s64)(num - b->num),
				  (s64)(b->num - a->num));
	return sv_mag(y - line) <= max(bound, ic->outlier_min_ns);
}

/*
 * Is the edge @rec, @near ns from the nearest prediction and @y ns from
 * the steering filter's, to be taken? False if it is rejected as an
 * outlier. In HOLDOVER, an edge where the filters expect it resumes the
 * state before the loss. Once the filters have scored a few edges, one
 * beyond the outlier bound is rejected, in any state, up to outlier_max
 * in a row, and the next relocks the loop. Once locked, it does so only
 * if it agrees with them (the pulses moved) and no storm came near
 * (gpsphc_sv_storm_near()); if they scatter as latency does, rejection
 * goes on, up to GPSPHC_SERVO_SCATTER_RUNS times
 * outlier_max in a row (while locking, the filters may be what is
 * wrong, and starting them again is the cure). An edge back
 * from holdover with an offset above the step threshold relocks at once
 * (LOCKING steps it). The filters model the pulses, not the clock: an
 * edge far from their prediction is a latency spike whether or not the
 * clock has converged yet.
 */
static bool sv_screen(struct gpsphc_servo *s, s64 off, u64 near, u64 g,
		      const struct gpsphc_servo_edge_rec *rec, s64 y,
		      struct gpsphc_servo_out *out)
{
	const struct gpsphc_servo_bank *b = &s->bank;
	u32 limit = s->cfg.outlier_max, k = sv_icfg(s)->outlier_k;
	bool known = b->scored >= SV_KF_SCREEN_EDGES;
	u64 var = b->m[b->best].fast, noise;
	bool suspect = false;

	if (near > sv_icfg(s)->outlier_min_ns) {
		suspect = sv_beyond(s, near, g, k, var);
		/*
		 * A short score that a spike among the first edges inflated
		 * would let edges milliseconds off in (a DCD storm's) until
		 * the scores have forgotten it.
		 */
		if (!suspect && s->state == GPSPHC_SERVO_LOCKING &&
		    b->scored < SV_KF_SCORE_EDGES) {
			noise = SV_KF_SCREEN_NOISE * gpsphc_sv_noise_median(s);
			suspect = noise && noise < var &&
				  sv_beyond(s, near, g, k, noise);
		}
	}

	if (s->state == GPSPHC_SERVO_HOLDOVER) {
		if (known && !suspect) {
			s->state = s->before_holdover;
			return true;
		}
		if (!known || !suspect ||
		    sv_mag(off) > s->cfg.step_threshold_ns) {
			gpsphc_sv_relock(s);
			return true;
		}
	} else if (!known || !suspect) {
		s->rejects = 0;
		return true;
	}
	if (s->rejects < limit ||
	    (gpsphc_sv_locked(s) &&
	     s->rejects < limit * GPSPHC_SERVO_SCATTER_RUNS &&
	     (gpsphc_sv_storm_near(s, rec->raw) ||
	      !sv_rejects_agree(s, rec->num, y)))) {
		s->rejected[0] = s->rejected[1];
		s->rejected[1] = (struct gpsphc_servo_reject){ rec->num, y };
		s->rejects++;
		s->counters.outliers++;
		out->flags |= GPSPHC_SERVO_OUT_OUTLIER;
		return false;
	}
	s->counters.relocks++;
	gpsphc_sv_relock(s);
	return true;
}

/* The loop on one labelled input @rec, at offset @off */
static void sv_bank_sample(struct gpsphc_servo *s,
			   const struct gpsphc_servo_edge_rec *rec, s64 off,
			   struct gpsphc_servo_out *out)
{
	struct gpsphc_servo_bank *b = &s->bank;
	s64 y[GPSPHC_SERVO_MODELS], d;
	u64 g = rec->num - b->anchor_num, near = U64_MAX, var;
	struct gpsphc_servo_model *m;
	u32 i;

	if (!b->ready || rec->num <= b->anchor_num || g > SV_KF_MAX_GAP ||
	    rec->raw <= b->anchor_raw ||
	    rec->raw - b->anchor_raw > (u64)SV_KF_MAX_GAP * SV_NSEC) {
		sv_kf_start(s, rec);
		g = 0;
	}
	if (g) {
		d = (s64)(rec->raw - b->anchor_raw) << 16;
		/*
		 * Over a gap, a drift filter's parabola may land anywhere,
		 * near a latency spike too: only the rate filters vouch
		 * for an edge then.
		 */
		for (i = 0; i < GPSPHC_SERVO_MODELS; i++) {
			y[i] = sv_clamp(d - sv_kf_pred(&b->m[i], g),
					SV_KF_Y_LIMIT);
			if (g == 1 || i < SV_KF_DRIFT_FIRST)
				near = min(near, sv_mag(y[i]) >> 16);
		}
		m = &b->m[b->best];
		if (!sv_screen(s, off, near, g, rec, y[b->best] / 65536, out)) {
			/* Aim at the next edge from the filter, not this one. */
			sv_steer(s, off, sv_kf_pred(m, g + 1) - sv_kf_pred(m, g) -
				 y[b->best], out);
			return;
		}
		/*
		 * A sigma from the short score alone, 16 edges, is at times
		 * small enough by chance that plain noise would surprise.
		 */
		var = max(m->fast, m->score);
		if (b->restart)
			sv_kf_restart(s, rec);
		else
			sv_kf_take(s, rec, y, b->scored >= SV_KF_FAST_EDGES &&
				   sv_beyond(s, near, g, SV_KF_SURPRISE, var));
		if (b->refit && s->state == GPSPHC_SERVO_LOCKING)
			sv_kf_refit(s, rec);
	}
	m = &b->m[b->best];
	s->freq = gpsphc_sv_period_freq(s, m->p);

	if (s->state == GPSPHC_SERVO_LOCKING &&
	    sv_mag(off) > s->cfg.step_threshold_ns) {
		gpsphc_sv_step(s, sv_sat_sub(0, off), out);
		sv_steer(s, 0, sv_kf_span(b), out);
		return;
	}
	sv_steer(s, off, sv_kf_span(b), out);

	gpsphc_sv_take_offset(s, off, gpsphc_sv_in_noise(s, off, b->r, b->r_n));
}

static void sv_bank_forget(struct gpsphc_servo *s)
{
	s->bank.ready = false;
}

static void sv_bank_relock(struct gpsphc_servo *s)
{
	s->bank.restart = true;
}

static bool sv_bank_ready(const struct gpsphc_servo *s)
{
	return s->bank.ready;
}

const struct gpsphc_sv_estimator gpsphc_sv_bank = {
	.forget	= sv_bank_forget,
	.relock	= sv_bank_relock,
	.ready	= sv_bank_ready,
	.sample	= sv_bank_sample,
};
