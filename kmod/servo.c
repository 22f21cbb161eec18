// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc clock servo: counts seconds from the PPS edges, ties the count to
 * TAI with labels, and steers the clock with a gear-shifting PI loop. Pure
 * C, no kernel calls: see servo.h for the contract and the units.
 *
 * Integer ranges, so that nothing can overflow whatever the inputs:
 * offsets entering the loop are saturated to +-2^40 ns, gains to 2^17, so
 * a gain times an offset stays below 2^57; frequencies to +-1e6 ppb
 * (< 2^36 in 2^-16 ppb); RMS samples to +-2^28 ns, so 64 squares stay
 * below 2^62. TAI seconds above SV_TAI_SEC_MAX are refused, so TAI ns fit
 * in s64.
 */

#include "servo.h"

#ifdef __KERNEL__
#include <linux/math64.h>

static u64 sv_div_u64_rem(u64 a, u32 b, u32 *rem)
{
	return div_u64_rem(a, b, rem);
}

static s64 sv_div_s64(s64 a, s32 b)
{
	return div_s64(a, b);
}

static s64 sv_div64_s64(s64 a, s64 b)
{
	return div64_s64(a, b);
}

#else /* !__KERNEL__ */

static u64 sv_div_u64_rem(u64 a, u32 b, u32 *rem)
{
	*rem = (u32)(a % b);
	return a / b;
}

static s64 sv_div_s64(s64 a, s32 b)
{
	return a / b;
}

static s64 sv_div64_s64(s64 a, s64 b)
{
	return a / b;
}

#endif /* __KERNEL__ */

#define SV_NSEC			1000000000U
#define SV_HALF_SEC		500000000U
#define SV_S64_MAX		((s64)(~0ULL >> 1))
#define SV_S64_MIN		(-SV_S64_MAX - 1)
/* Offsets in the loop, and most ns settings */
#define SV_OFF_LIMIT		1099511627776LL		/* 2^40 */
/* Offsets kept for the RMS */
#define SV_RMS_LIMIT		268435456		/* 2^28 */
/* Offsets reported */
#define SV_REPORT_LIMIT		4611686018427387904LL	/* 2^62 */
/* Largest TAI second: its ns, plus up to a second, fit in s64. */
#define SV_TAI_SEC_MAX		9223372035ULL
#define SV_GAIN_LIMIT		(2U << 16)
#define SV_OUTLIER_K_LIMIT	1000
#define SV_OUTLIER_MAX_LIMIT	1000
#define SV_CONFIRM_LIMIT	255
#define SV_HOLDOVER_MIN		1100000000ULL
/* Weight of the newest offset in @var, once the servo has seen 16 */
#define SV_VAR_EDGES		16
/* Trend detection, see sv_loop() */
#define SV_TREND_LO		2
#define SV_TREND_HI		3
#define SV_TREND_RUN		3
#define SV_TREND_GEAR		0
#define SV_VAR_CLIP		3
/* Accepted offsets in gear g before shifting to g + 1: 4 << g */
#define SV_GEAR_HOLD		4U
/* Inputs in the history estimate that make it better than the loop's */
#define SV_EST_GOOD		16
/* ...and the gear the loop then starts in; one slower from a full history */
#define SV_EST_GOOD_GEAR	2U
#define SV_EST_FULL_GEAR	3U
/* The fit takes inputs within this many median deviations of the medians */
#define SV_FIT_MAD_K		5
/* ...up to this far off (ns), and a slope up to 1 ms per second. */
#define SV_FIT_RESID_MAX	2147483648LL		/* 2^31 */
#define SV_FIT_SLOPE_MAX	1000000LL
/*
 * A PPS edge is a new second only within this of where the second is due,
 * plus what the rate can be wrong by since the last one: interrupt latency
 * on a serial port is microseconds to a few milliseconds, and a window
 * under the step threshold keeps a glitch that lands in it from stepping.
 */
#define SV_PHASE_WINDOW_NS	10000000U
/* Off-phase edges a second apart, in a row, that move the phase there */
#define SV_REPHASE_EDGES	4
/*
 * A spurious edge within this many windows of a second means edges
 * compete for it; counted edges then keep the count but do not steer the
 * clock for this long (two seconds: one clean second ends it).
 */
#define SV_STORM_WINDOWS	3
#define SV_STORM_HOLD_NS	2000000000ULL
/* Spurious edges remembered, to refuse their labels as such */
#define SV_SPURIOUS_KEEP	GPSPHC_SERVO_SPURIOUS_KEEP
/* History pairs for the frequency estimate must span at most these. */
#define SV_EST_MAX_NUM		65536U
#define SV_EST_MAX_RAW		140737488355328ULL	/* 2^47 */

static u64 sv_mag(s64 v)
{
	return v < 0 ? 0 - (u64)v : (u64)v;
}

static s64 sv_clamp(s64 v, s64 limit)
{
	if (v > limit)
		return limit;
	if (v < -limit)
		return -limit;
	return v;
}

static u64 sv_min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

static u64 sv_max_u64(u64 a, u64 b)
{
	return a > b ? a : b;
}

static s64 sv_sat_add(s64 a, s64 b)
{
	if (b > 0 && a > SV_S64_MAX - b)
		return SV_S64_MAX;
	if (b < 0 && a < SV_S64_MIN - b)
		return SV_S64_MIN;
	return a + b;
}

static s64 sv_sat_sub(s64 a, s64 b)
{
	if (b == SV_S64_MIN)
		return a >= 0 ? SV_S64_MAX : a - b;
	return sv_sat_add(a, -b);
}

/* @a - @b, or 0 if @b is later */
static u64 sv_since(u64 a, u64 b)
{
	return a > b ? a - b : 0;
}

static u64 sv_isqrt(u64 v)
{
	u64 r = 0, bit = 1ULL << 62;

	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

/*
 * @d * @adj / (1e9 * 2^16): what a clock running @adj (2^-16 ppb, within
 * +-2^36) gains over @d raw ns. Exact to 1 ns up to 2^25 s, then to 1 ppb.
 */
static s64 sv_scale(u64 d, s64 adj)
{
	u32 rem, ms, sub;
	u64 q = sv_div_u64_rem(d, SV_NSEC, &rem);
	s64 c;

	if (q >= (1ULL << 25))
		return (s64)q * sv_div_s64(adj, GPSPHC_SERVO_ADJ_PER_PPB);
	ms = rem / 1000000;
	sub = rem % 1000000;
	c = (s64)q * adj + sv_div_s64((s64)ms * adj, 1000) +
	    sv_div_s64((s64)sub * adj, (s32)SV_NSEC);
	return sv_div_s64(c, GPSPHC_SERVO_ADJ_PER_PPB);
}

/* Raw interval @d on a clock running @adj, saturated */
static u64 sv_raw_to_true(u64 d, s64 adj)
{
	s64 c = sv_scale(d, adj);

	if (c < 0)
		return d - sv_min_u64(d, sv_mag(c));
	return d > ~0ULL - (u64)c ? ~0ULL : d + (u64)c;
}

static s64 sv_tai_ns(u64 tai_sec)
{
	if (tai_sec > SV_TAI_SEC_MAX)
		return SV_S64_MAX;
	return (s64)tai_sec * SV_NSEC;
}

static void sv_sort_s64(s64 *v, u32 n)
{
	u32 i, j;
	s64 x;

	for (i = 1; i < n; i++) {
		x = v[i];
		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static void sv_sanitize_input(struct gpsphc_servo_input_cfg *ic)
{
	if (ic->kp > SV_GAIN_LIMIT)
		ic->kp = SV_GAIN_LIMIT;
	if (ic->ki > SV_GAIN_LIMIT)
		ic->ki = SV_GAIN_LIMIT;
	if (ic->max_gear > GPSPHC_SERVO_MAX_GEAR)
		ic->max_gear = GPSPHC_SERVO_MAX_GEAR;
	if (ic->outlier_k > SV_OUTLIER_K_LIMIT)
		ic->outlier_k = SV_OUTLIER_K_LIMIT;
	ic->outlier_min_ns = sv_min_u64(ic->outlier_min_ns, SV_OFF_LIMIT);
	ic->lock_ns = sv_min_u64(ic->lock_ns, SV_OFF_LIMIT);
}

static void sv_sanitize(struct gpsphc_servo_cfg *c)
{
	sv_sanitize_input(&c->pps);
	sv_sanitize_input(&c->coarse);
	c->step_threshold_ns = sv_min_u64(c->step_threshold_ns, SV_OFF_LIMIT);
	if (!c->max_ppb)
		c->max_ppb = 1;
	if (c->max_ppb > GPSPHC_SERVO_MAX_PPB_LIMIT)
		c->max_ppb = GPSPHC_SERVO_MAX_PPB_LIMIT;
	if (!c->outlier_max)
		c->outlier_max = 1;
	if (c->outlier_max > SV_OUTLIER_MAX_LIMIT)
		c->outlier_max = SV_OUTLIER_MAX_LIMIT;
	if (!c->confirm_n)
		c->confirm_n = 1;
	if (c->confirm_n > SV_CONFIRM_LIMIT)
		c->confirm_n = SV_CONFIRM_LIMIT;
	c->holdover_timeout_ns = sv_max_u64(c->holdover_timeout_ns,
					    SV_HOLDOVER_MIN);
	c->holdover_timeout_ns = sv_min_u64(c->holdover_timeout_ns,
					    SV_OFF_LIMIT);
	c->rx_latency_ns = sv_min_u64(c->rx_latency_ns, SV_NSEC - 1);
	c->sentence_gap_ns = sv_min_u64(c->sentence_gap_ns, SV_NSEC);
	c->coarse_after_ns = sv_min_u64(c->coarse_after_ns, SV_OFF_LIMIT);
}

void gpsphc_servo_default_cfg(struct gpsphc_servo_cfg *cfg)
{
	*cfg = (struct gpsphc_servo_cfg){
		.pps = {
			.kp = 45875,		/* 0.7 */
			.ki = 19661,		/* 0.3 */
			.max_gear = 4,
			.outlier_k = 8,
			.outlier_min_ns = 5000,
			.lock_ns = 10000,
		},
		.coarse = {
			.kp = 45875,
			.ki = 19661,
			.max_gear = 4,
			.outlier_k = 8,
			.outlier_min_ns = 20000000,
			.lock_ns = 20000000,
		},
		.step_threshold_ns = 20000000,
		.max_ppb = 500000,
		.outlier_max = 3,
		.confirm_n = 3,
		/* One missed pulse is not a lost PPS: wait past the second. */
		.holdover_timeout_ns = 2500000000ULL,
		.rx_latency_ns = 0,
		.sentence_gap_ns = GPSPHC_SENTENCE_GAP_MS * 1000000ULL,
		.coarse_after_ns = GPSPHC_COARSE_AFTER_S * 1000000000ULL,
	};
}

void gpsphc_servo_configure(struct gpsphc_servo *s,
			    const struct gpsphc_servo_cfg *cfg)
{
	s64 max;

	s->cfg = *cfg;
	sv_sanitize(&s->cfg);
	max = (s64)s->cfg.max_ppb * GPSPHC_SERVO_ADJ_PER_PPB;
	s->freq = sv_clamp(s->freq, max);
	s->adj = sv_clamp(s->adj, max);
}

void gpsphc_servo_init(struct gpsphc_servo *s,
		       const struct gpsphc_servo_cfg *cfg)
{
	*s = (struct gpsphc_servo){ .state = GPSPHC_SERVO_UNLOCKED };
	gpsphc_servo_configure(s, cfg);
}

static const struct gpsphc_servo_input_cfg *sv_icfg(const struct gpsphc_servo *s)
{
	return s->coarse ? &s->cfg.coarse : &s->cfg.pps;
}

static s64 sv_max_adj(const struct gpsphc_servo *s)
{
	return (s64)s->cfg.max_ppb * GPSPHC_SERVO_ADJ_PER_PPB;
}

static void sv_out_begin(const struct gpsphc_servo *s,
			 struct gpsphc_servo_out *out)
{
	*out = (struct gpsphc_servo_out){ .state = s->state };
}

static void sv_out_end(const struct gpsphc_servo *s,
		       struct gpsphc_servo_out *out)
{
	if (out->state != s->state)
		out->flags |= GPSPHC_SERVO_OUT_STATE;
	out->state = s->state;
	out->offset_ns = s->offset_ns;
	if (s->coarse)
		out->flags |= GPSPHC_SERVO_OUT_COARSE;
	out->rms_ns = s->rms_ns;
	out->counters = s->counters;
}

static void sv_set_adj(struct gpsphc_servo *s, s64 adj,
		       struct gpsphc_servo_out *out)
{
	s->adj = sv_clamp(adj, sv_max_adj(s));
	out->adj = s->adj;
	out->flags |= GPSPHC_SERVO_OUT_ADJ;
}

static void sv_rms_clear(struct gpsphc_servo *s)
{
	s->rms_pos = 0;
	s->rms_len = 0;
	s->rms_sum = 0;
	s->rms_ns = 0;
}

static void sv_rms_add(struct gpsphc_servo *s, s64 off)
{
	s32 v = (s32)sv_clamp(off, SV_RMS_LIMIT);
	s32 old = s->rms_ring[s->rms_pos];
	u32 rem;

	if (s->rms_len == GPSPHC_SERVO_RMS_EDGES)
		s->rms_sum -= (u64)((s64)old * old);
	else
		s->rms_len++;
	s->rms_ring[s->rms_pos] = v;
	s->rms_sum += (u64)((s64)v * v);
	s->rms_pos = (s->rms_pos + 1) % GPSPHC_SERVO_RMS_EDGES;
	s->rms_ns = sv_isqrt(sv_div_u64_rem(s->rms_sum, s->rms_len, &rem));
}

/*
 * Running mean of the squared offsets, then 1/16 per edge. Once it has
 * a few, each square is clipped at (3 RMS)^2: the filter follows noise
 * that grows, but a trend cannot hide itself by inflating the RMS.
 */
static void sv_var_add(struct gpsphc_servo *s, s64 off)
{
	u64 m = sv_mag(sv_clamp(off, SV_RMS_LIMIT));
	u64 sq = m * m;
	u32 w, rem;

	if (s->var_n >= GPSPHC_SERVO_LOCK_EDGES &&
	    sq > SV_VAR_CLIP * SV_VAR_CLIP * s->var)
		sq = SV_VAR_CLIP * SV_VAR_CLIP * s->var;
	if (s->var_n < SV_VAR_EDGES)
		s->var_n++;
	w = s->var_n;
	if (sq >= s->var)
		s->var += sv_div_u64_rem(sq - s->var, w, &rem);
	else
		s->var -= sv_div_u64_rem(s->var - sq, w, &rem);
}

static u64 sv_sigma(const struct gpsphc_servo *s)
{
	return sv_isqrt(s->var);
}

static u64 sv_outlier_bound(const struct gpsphc_servo *s)
{
	const struct gpsphc_servo_input_cfg *ic = sv_icfg(s);

	return sv_max_u64(ic->outlier_min_ns, ic->outlier_k * sv_sigma(s));
}

static void sv_step(struct gpsphc_servo *s, s64 delta,
		    struct gpsphc_servo_out *out)
{
	out->step_ns = sv_sat_add(out->step_ns, delta);
	out->flags |= GPSPHC_SERVO_OUT_STEP;
	s->counters.steps++;
	sv_rms_clear(s);
	s->prev_off = 0;
	s->lock_run = 0;
}

/* Back to the fastest gear, converging again */
static void sv_relock(struct gpsphc_servo *s, u32 gear)
{
	s->state = GPSPHC_SERVO_LOCKING;
	s->gear = sv_min_u64(gear, sv_icfg(s)->max_gear);
	s->gear_edges = 0;
	s->lock_run = 0;
	s->rejects = 0;
	s->var_n = 0;
	s->prev_off = 0;
}

static void sv_hist_push(struct gpsphc_servo *s,
			 const struct gpsphc_servo_edge_rec *rec)
{
	u32 i;

	if (s->hist_len < GPSPHC_SERVO_HISTORY) {
		i = (s->hist_head + s->hist_len) % GPSPHC_SERVO_HISTORY;
		s->hist_len++;
	} else {
		i = s->hist_head;
		s->hist_head = (s->hist_head + 1) % GPSPHC_SERVO_HISTORY;
	}
	s->hist[i] = *rec;
}

static struct gpsphc_servo_edge_rec *sv_hist_at(struct gpsphc_servo *s,
						u32 k)
{
	return &s->hist[(s->hist_head + k) % GPSPHC_SERVO_HISTORY];
}

/*
 * Input @r's raw time less @at's, less the periods (2^-16 ns) between
 * their numbers: where @r puts @at's second.
 */
static s64 sv_carry(const struct gpsphc_servo_edge_rec *r,
		    const struct gpsphc_servo_edge_rec *at, s64 period)
{
	u64 k = sv_since(at->num, r->num) | sv_since(r->num, at->num);
	s64 span = (s64)((k * (u64)period) >> 16);

	if (r->num > at->num)
		span = -span;
	return sv_sat_add((s64)(r->raw - at->raw), span);
}

/*
 * Refine the medians' @period and @phase by least squares: for Gaussian
 * noise the line through all inputs is about twice as good as medians,
 * which only serve to keep latency outliers (beyond SV_FIT_MAD_K median
 * absolute deviations) out of it. Residual y of input i against the
 * medians' line, x its number less @at's: y = a + b x moves the period by
 * b and the phase by a. @v is scratch for @m values.
 */
static void sv_fit(struct gpsphc_servo_edge_rec *const *e, u32 m,
		   const struct gpsphc_servo_edge_rec *at, s64 *v,
		   s64 *period, s64 *phase)
{
	s64 sx = 0, sy = 0, sxx = 0, sxy = 0, num, den, q, b, x, y;
	u64 bound;
	u32 i, n = 0;

	for (i = 0; i < m; i++)
		v[i] = (s64)sv_min_u64(sv_mag(sv_sat_sub(sv_carry(e[i], at, *period),
							 *phase)),
				       SV_FIT_RESID_MAX);
	sv_sort_s64(v, m);
	bound = SV_FIT_MAD_K * (u64)v[m / 2] + 1;
	for (i = 0; i < m; i++) {
		y = sv_sat_sub(sv_carry(e[i], at, *period), *phase);
		if (sv_mag(y) > bound || sv_mag(y) >= SV_FIT_RESID_MAX)
			continue;
		x = (s64)(e[i]->num - at->num);
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		n++;
	}
	/* Ranges: |x| < 2^16, |y| < 2^31, n <= 32: every product < 2^58. */
	den = (s64)n * sxx - sx * sx;
	if (n < 3 || n < m / 2 || den <= 0)
		return;
	num = (s64)n * sxy - sx * sy;
	q = sv_div64_s64(num, den);
	if (sv_mag(q) > SV_FIT_SLOPE_MAX)
		return;
	b = q * 65536 + sv_div64_s64((num - q * den) * 65536, den);
	*period += b;
	*phase += sv_div64_s64(sy * 65536 - b * sx, (s64)n * 65536);
}

/*
 * Frequency and phase from the history, robust to a few latency outliers:
 * the raw period is the median of the periods between input i and input
 * i + m/2 (m counted inputs of the kind of @at), and the raw time of @at's
 * second is the median of every input's time carried to @at's number at
 * that period; sv_fit() then refines both by least squares on the inputs
 * near that line. Returns the number of inputs used (0: no estimate).
 */
static u32 sv_estimate(struct gpsphc_servo *s,
		       const struct gpsphc_servo_edge_rec *at,
		       s64 *freq, u64 *raw_at)
{
	struct gpsphc_servo_edge_rec *e[GPSPHC_SERVO_HISTORY];
	s64 v[GPSPHC_SERVO_HISTORY];
	u32 m = 0, h, n = 0, i, rem;
	s64 period, phase, delta, d;
	u64 dn, draw;

	for (i = 0; i < s->hist_len; i++) {
		struct gpsphc_servo_edge_rec *r = sv_hist_at(s, i);

		if (r->counted && r->coarse == at->coarse &&
		    sv_since(at->num, r->num) < SV_EST_MAX_NUM &&
		    sv_since(r->num, at->num) < SV_EST_MAX_NUM)
			e[m++] = r;
	}
	if (m < 2)
		return 0;
	h = m / 2;
	for (i = 0; i + h < m; i++) {
		dn = e[i + h]->num - e[i]->num;
		draw = sv_since(e[i + h]->raw, e[i]->raw);
		if (!dn || dn >= SV_EST_MAX_NUM || draw >= SV_EST_MAX_RAW)
			continue;
		/* raw ns per second, 2^-16 ns */
		v[n++] = (s64)sv_div_u64_rem(draw << 16, (u32)dn, &rem);
	}
	if (!n)
		return 0;
	sv_sort_s64(v, n);
	period = v[n / 2];

	/* Each input's raw time carried to @at's number: the median phase */
	for (i = 0; i < m; i++)
		v[i] = sv_carry(e[i], at, period);
	sv_sort_s64(v, m);
	phase = v[m / 2];
	sv_fit(e, m, at, v, &period, &phase);

	/*
	 * Rate making the clock tick 1e9 per period: with delta = 1e9 - P,
	 * (1e9 - P) / P = delta / 1e9 * (1 + delta / P).
	 */
	delta = ((s64)SV_NSEC << 16) - period;
	delta = sv_clamp(delta, (s64)GPSPHC_SERVO_MAX_PPB_LIMIT << 16);
	d = delta + sv_div_s64(delta * (delta >> 16),
			       (s32)((period >> 16) | 1));
	*freq = sv_clamp(d, sv_max_adj(s));
	*raw_at = at->raw + (u64)phase;
	return m;
}

/*
 * The rate to hold: the loop's integral term, unless the loop is still in
 * its fast gears, where each noisy offset moves that term by ki times
 * the offset; then the history's fit over the last inputs is the better
 * estimate of the receiver's rate.
 */
static void sv_enter_holdover(struct gpsphc_servo *s,
			      struct gpsphc_servo_out *out)
{
	struct gpsphc_servo_edge_rec *last = NULL;
	u64 raw_at;
	s64 freq;
	u32 i;

	/* The newest counted input is the last one, s->last_raw's. */
	for (i = s->hist_len; i-- > 0 && !last;)
		if (sv_hist_at(s, i)->counted)
			last = sv_hist_at(s, i);
	if (s->gear < SV_EST_FULL_GEAR && last &&
	    sv_estimate(s, last, &freq, &raw_at) >= SV_EST_GOOD)
		s->freq = freq;
	s->before_holdover = s->state;
	s->state = GPSPHC_SERVO_HOLDOVER;
	s->counters.holdovers++;
	sv_set_adj(s, s->freq, out);
}

/*
 * Labelled with little history (fewer than SV_EST_GOOD inputs): while the
 * history grows, its estimates of the rate and of the phase beat what a
 * loop can learn from so few offsets, so they drive the clock directly:
 * the rate is the estimate's, and the estimated phase error is taken out
 * over the next second. False if the history gave no better estimate.
 */
static bool sv_early(struct gpsphc_servo *s,
		     const struct gpsphc_servo_edge_rec *rec, s64 off,
		     struct gpsphc_servo_out *out)
{
	u64 raw_at = rec->raw;
	s64 freq, phase;
	u32 used;

	used = sv_estimate(s, rec, &freq, &raw_at);
	if (used <= s->est_n)
		return false;
	s->est_n = used;
	s->freq = freq;
	phase = sv_clamp(sv_sat_add(off, (s64)(raw_at - rec->raw)),
			 SV_OFF_LIMIT);
	sv_set_adj(s, freq - phase * GPSPHC_SERVO_ADJ_PER_PPB, out);
	return true;
}

/* The PI loop on one accepted, labelled offset at input @rec */
static void sv_loop(struct gpsphc_servo *s,
		    const struct gpsphc_servo_edge_rec *rec, s64 off,
		    struct gpsphc_servo_out *out)
{
	const struct gpsphc_servo_input_cfg *ic = sv_icfg(s);
	s64 o = sv_clamp(off, SV_OFF_LIMIT);
	s64 max = sv_max_adj(s);
	u64 mag = sv_mag(off);
	u64 sigma, lock_bound;
	s64 kp, ki;

	if (s->state == GPSPHC_SERVO_HOLDOVER) {
		/* back to where it was: a loop still locking stays so */
		if (mag <= sv_outlier_bound(s) && s->var_n) {
			s->state = s->before_holdover;
		} else {
			u64 var = s->var;
			u32 var_n = s->var_n;

			sv_relock(s, 0);
			/* The input is as noisy as before the pulses stopped. */
			s->var = var;
			s->var_n = var_n;
		}
	} else if (s->state == GPSPHC_SERVO_LOCKED && ic->outlier_k &&
		   mag > sv_outlier_bound(s)) {
		if (s->rejects < s->cfg.outlier_max) {
			s->rejects++;
			s->counters.outliers++;
			out->flags |= GPSPHC_SERVO_OUT_OUTLIER;
			sv_set_adj(s, s->freq, out);
			return;
		}
		s->counters.relocks++;
		sv_relock(s, 0);
	}
	s->rejects = 0;

	if (s->state == GPSPHC_SERVO_LOCKING && mag > s->cfg.step_threshold_ns) {
		sv_step(s, sv_sat_sub(0, off), out);
		sv_set_adj(s, s->freq, out);
		return;
	}

	/*
	 * Gears: a trend means the rate moved: back to a fast gear. A trend
	 * is SV_TREND_RUN offsets in a row beyond SV_TREND_LO RMS the same
	 * way, or two beyond SV_TREND_HI RMS. Else after SV_GEAR_HOLD << g
	 * offsets within lock_ns, one gear slower.
	 */
	sigma = sv_max_u64(sv_sigma(s), 1);
	/*
	 * "Within lock_ns", or within the input's own noise once that is
	 * known: a PPS whose interrupt latency wanders by more than lock_ns
	 * (a USB adapter, a busy or virtual machine) must still lock and
	 * reach the slow gears, which filter that noise, rather than sit on
	 * the fast ones that pass it to the clock. Not while the rate is at
	 * its limit: then the offsets grow, and that is no noise.
	 */
	lock_bound = s->var_n >= GPSPHC_SERVO_LOCK_EDGES &&
		     sv_mag(s->freq) < (u64)max ?
		     sv_max_u64(ic->lock_ns, SV_TREND_HI * sigma) : ic->lock_ns;
	if (mag <= SV_TREND_LO * sigma || !s->var_n)
		s->trend_run = 0;
	else if (s->trend_run && (o ^ s->prev_off) >= 0)
		s->trend_run++;
	else
		s->trend_run = 1;
	if (s->var_n >= GPSPHC_SERVO_LOCK_EDGES &&
	    (s->trend_run >= SV_TREND_RUN ||
	     (s->trend_run >= 2 && mag > SV_TREND_HI * sigma &&
	      sv_mag(s->prev_off) > SV_TREND_HI * sigma))) {
		if (s->gear > SV_TREND_GEAR)
			s->gear = SV_TREND_GEAR;
		s->gear_edges = 0;
		s->trend_run = 0;
	} else if (mag <= lock_bound && s->gear < ic->max_gear &&
		   ++s->gear_edges >= (SV_GEAR_HOLD << s->gear)) {
		s->gear++;
		s->gear_edges = 0;
	}

	if (s->est_n < SV_EST_GOOD && sv_early(s, rec, off, out)) {
		/* stay in the gear the loop takes over in */
		s->gear = sv_min_u64(SV_EST_GOOD_GEAR, ic->max_gear);
		s->gear_edges = 0;
	} else {
		kp = ic->kp >> s->gear;
		ki = ic->ki >> (2 * s->gear);
		s->freq = sv_clamp(s->freq - ki * o, max);
		sv_set_adj(s, s->freq - kp * o, out);
	}

	sv_rms_add(s, o);
	sv_var_add(s, o);
	s->prev_off = o;
	/* Within lock_ns is good enough, trend or not: that is the contract. */
	if (mag <= ic->lock_ns || (mag <= lock_bound && !s->trend_run))
		s->lock_run++;
	else
		s->lock_run = 0;
	if (s->state == GPSPHC_SERVO_LOCKING &&
	    s->lock_run >= GPSPHC_SERVO_LOCK_EDGES)
		/* The noise estimate carries on: it is the input's, not the state's. */
		s->state = GPSPHC_SERVO_LOCKED;
}

/*
 * How far an edge is from where a second is due, ns: against the clock
 * once labelled (it holds the phase and the rate the loop learnt), else
 * against the last counted input and the rate estimate. @dtrue: true ns
 * since the last counted input.
 */
static u64 sv_phase_error(const struct gpsphc_servo *s, s64 phc_ns, u64 dtrue)
{
	u32 rem;

	if (s->labelled && s->state != GPSPHC_SERVO_UNLOCKED) {
		sv_div_u64_rem(sv_mag(phc_ns), SV_NSEC, &rem);
		if (phc_ns < 0 && rem)
			rem = SV_NSEC - rem;
	} else {
		sv_div_u64_rem(dtrue, SV_NSEC, &rem);
	}
	return rem > SV_HALF_SEC ? SV_NSEC - rem : rem;
}

/*
 * Is a PPS edge that is not where its second was due the new phase of
 * the pulses? Only when SV_REPHASE_EDGES such edges came a second apart
 * and no counted edge came meanwhile: a receiver reset, or a first edge
 * that was a glitch. A storm's edges are never a second apart in a row
 * while a counted edge comes every second.
 */
static bool sv_rephase(struct gpsphc_servo *s, u64 raw, u64 window)
{
	u64 d = sv_since(raw, s->off_phase_raw);
	u64 e = d > SV_NSEC ? d - SV_NSEC : SV_NSEC - d;

	if (s->off_phase_run && e <= window)
		s->off_phase_run++;
	else
		s->off_phase_run = 1;
	s->off_phase_raw = raw;
	return s->off_phase_run >= SV_REPHASE_EDGES &&
	       sv_since(raw, s->last_raw) > SV_NSEC + SV_HALF_SEC;
}

/*
 * Number a PPS edge. False if it is no new second (spurious); an edge
 * near a second that is not counted means several edges compete for it:
 * a storm, during which the counted edges keep the count but do not steer
 * the clock (see @storm_until).
 */
static bool sv_count_pps(struct gpsphc_servo *s,
			 struct gpsphc_servo_edge_rec *rec, s64 phc_ns)
{
	u64 dtrue, n, window, err;
	u32 rem;

	dtrue = sv_raw_to_true(sv_since(rec->raw, s->last_raw), s->freq);
	n = sv_div_u64_rem(sv_min_u64(dtrue, ~0ULL - SV_HALF_SEC) +
			   SV_HALF_SEC, SV_NSEC, &rem);
	/* The rate may be off by max_ppb since the last counted edge. */
	window = SV_PHASE_WINDOW_NS +
		 sv_div_u64_rem(sv_min_u64(dtrue, SV_OFF_LIMIT) / 1000 *
				s->cfg.max_ppb, 1000000, &rem);
	/* A loop at its rate limit is behind by its offset, knowingly. */
	if (sv_mag(s->freq) >= (u64)sv_max_adj(s))
		window += sv_mag(sv_clamp(s->offset_ns, SV_HALF_SEC));
	err = n ? sv_phase_error(s, phc_ns, dtrue) : dtrue;
	if (rec->raw > s->last_raw && n && err <= window) {
		s->off_phase_run = 0;
		s->counters.missed += n - 1;
		rec->num = s->last_num + n;
		return true;
	}
	if (err <= SV_STORM_WINDOWS * window)
		s->storm_until = rec->raw + SV_STORM_HOLD_NS;
	if (!sv_rephase(s, rec->raw, SV_PHASE_WINDOW_NS))
		return false;
	/* The new phase: what came before it says nothing about the rate. */
	s->hist_len = 0;
	s->off_phase_run = 0;
	s->counters.missed += n - 1;
	rec->num = s->last_num + n;
	return true;
}

/* Number a counted input; false if it is no new second */
static bool sv_count(struct gpsphc_servo *s, struct gpsphc_servo_edge_rec *rec,
		     s64 phc_ns, bool switched)
{
	u64 dtrue, n;
	u32 rem;

	if (!s->have_edge) {
		rec->num = 0;
		return true;
	}
	/* Sentence starts are picked by their gap, and come ms late anyway. */
	if (!rec->coarse && !switched)
		return sv_count_pps(s, rec, phc_ns);
	dtrue = sv_raw_to_true(sv_since(rec->raw, s->last_raw), s->freq);
	n = sv_div_u64_rem(sv_min_u64(dtrue, ~0ULL - SV_HALF_SEC) +
			   SV_HALF_SEC, SV_NSEC, &rem);
	if (rec->raw <= s->last_raw || !n) {
		/* A PPS back after sentences: the sentence's own second */
		if (switched && rec->raw + SV_HALF_SEC > s->last_raw) {
			rec->num = s->last_num;
			return true;
		}
		return false;
	}
	s->counters.missed += n - 1;
	rec->num = s->last_num + n;
	return true;
}

void gpsphc_servo_edge(struct gpsphc_servo *s, enum gpsphc_servo_input kind,
		       u64 raw_ns, s64 phc_ns, struct gpsphc_servo_out *out)
{
	struct gpsphc_servo_edge_rec rec = { .key = raw_ns, .raw = raw_ns };
	bool switched = false;
	u64 gap, tai;
	s64 off;

	sv_out_begin(s, out);
	if (kind == GPSPHC_SERVO_INPUT_SENTENCE) {
		bool first = !s->sentence_seen ||
			sv_since(raw_ns, s->last_sentence_raw) >=
			s->cfg.sentence_gap_ns;

		s->last_sentence_raw = raw_ns;
		s->sentence_seen = true;
		if (!first || (s->pps_seen &&
			       sv_since(raw_ns, s->last_pps_raw) <
			       s->cfg.coarse_after_ns)) {
			s->counters.ignored++;
			goto out;
		}
		rec.raw = raw_ns - sv_min_u64(raw_ns, s->cfg.rx_latency_ns);
		rec.coarse = true;
		switched = !s->coarse;
		s->coarse = true;
	} else {
		s->pps_seen = true;
		s->last_pps_raw = raw_ns;
		switched = s->coarse;
		s->coarse = false;
	}

	rec.counted = sv_count(s, &rec, phc_ns, switched && s->have_edge);
	/*
	 * Only seconds go into the history: a storm must not flush it. The
	 * last few spurious edges are kept to say why a label is refused.
	 */
	if (!rec.counted) {
		s->spurious_raw[s->counters.spurious++ % SV_SPURIOUS_KEEP] =
			rec.key;
		goto out;
	}
	sv_hist_push(s, &rec);
	gap = s->have_edge ? sv_since(rec.raw, s->last_raw) : 0;
	s->have_edge = true;
	s->last_raw = rec.raw;
	s->last_num = rec.num;
	s->counters.edges++;
	out->flags |= GPSPHC_SERVO_OUT_USED;
	out->edge_num = rec.num;
	if (!s->labelled)
		goto out;

	tai = s->tai_base + rec.num;
	out->tai_sec = tai;
	out->flags |= GPSPHC_SERVO_OUT_LABELLED;
	/* Edges compete for the second: keep the count, not the phase. */
	if (!rec.coarse && rec.raw < s->storm_until)
		goto out;
	off = sv_sat_sub(phc_ns, sv_tai_ns(tai));
	s->offset_ns = sv_clamp(off, SV_REPORT_LIMIT);

	if (s->state != GPSPHC_SERVO_HOLDOVER &&
	    gap > s->cfg.holdover_timeout_ns)
		sv_enter_holdover(s, out);
	if (switched)
		sv_relock(s, 0);
	sv_loop(s, &rec, off, out);
out:
	sv_out_end(s, out);
}

void gpsphc_servo_tick(struct gpsphc_servo *s, u64 now_raw_ns,
		       struct gpsphc_servo_out *out)
{
	u64 since = sv_since(now_raw_ns, s->last_raw);

	sv_out_begin(s, out);
	if ((s->state == GPSPHC_SERVO_LOCKING ||
	     s->state == GPSPHC_SERVO_LOCKED) &&
	    since > s->cfg.holdover_timeout_ns)
		sv_enter_holdover(s, out);
	if (s->state == GPSPHC_SERVO_HOLDOVER)
		out->holdover_ns = since;
	sv_out_end(s, out);
}

void gpsphc_servo_reset(struct gpsphc_servo *s)
{
	s->state = GPSPHC_SERVO_UNLOCKED;
	s->labelled = false;
	s->pending.n = 0;
	s->rejects = 0;
	s->lock_run = 0;
	s->offset_ns = 0;
	sv_rms_clear(s);
}

/* First label: tie the count to TAI, set the clock and the rate */
static void sv_first_label(struct gpsphc_servo *s,
			   const struct gpsphc_servo_edge_rec *rec,
			   u64 tai_sec, u64 now_raw_ns, s64 now_phc_ns,
			   struct gpsphc_servo_out *out)
{
	u64 raw_at = rec->raw, elapsed;
	s64 truth, freq;
	u32 used;

	used = sv_estimate(s, rec, &freq, &raw_at);
	if (used)
		s->freq = freq;
	s->est_n = used;
	elapsed = sv_raw_to_true(sv_since(now_raw_ns, raw_at), s->freq);
	truth = sv_sat_add(sv_tai_ns(tai_sec),
			   (s64)sv_min_u64(elapsed, SV_OFF_LIMIT));
	s->tai_base = tai_sec - rec->num;
	s->labelled = true;
	s->pending.n = 0;
	sv_step(s, sv_sat_sub(truth, now_phc_ns), out);
	sv_set_adj(s, s->freq, out);
	/* A long history gives a good start: skip the fastest gears. */
	sv_relock(s, used >= GPSPHC_SERVO_HISTORY ? SV_EST_FULL_GEAR :
		  used >= SV_EST_GOOD ? SV_EST_GOOD_GEAR : 0);
}

bool gpsphc_servo_confirm(struct gpsphc_servo_confirm *c, bool same, u64 num,
			  u32 need)
{
	if (c->n && same && num == c->num)
		return false;
	if (c->n && same && num == c->num + 1)
		c->n++;
	else
		c->n = 1;
	c->num = num;
	if (c->n < need)
		return false;
	c->n = 0;
	return true;
}

int gpsphc_servo_label(struct gpsphc_servo *s, u64 edge_raw_ns, u64 tai_sec,
		       u64 now_raw_ns, s64 now_phc_ns,
		       struct gpsphc_servo_out *out)
{
	struct gpsphc_servo_edge_rec *rec = NULL;
	int ret;
	u32 i;
	s64 d;

	sv_out_begin(s, out);
	for (i = 0; i < s->hist_len; i++) {
		if (sv_hist_at(s, i)->key == edge_raw_ns) {
			rec = sv_hist_at(s, i);
			break;
		}
	}
	if (!rec) {
		for (i = 0; i < SV_SPURIOUS_KEEP; i++)
			if (s->spurious_raw[i] == edge_raw_ns && edge_raw_ns) {
				ret = GPSPHC_SERVO_LABEL_UNCOUNTED;
				goto refuse;
			}
		if (!s->hist_len ||
		    edge_raw_ns > sv_hist_at(s, s->hist_len - 1)->key)
			ret = GPSPHC_SERVO_LABEL_FUTURE;
		else
			ret = GPSPHC_SERVO_LABEL_UNKNOWN;
		goto refuse;
	}
	if (edge_raw_ns > now_raw_ns) {
		ret = GPSPHC_SERVO_LABEL_FUTURE;
		goto refuse;
	}
	if (!rec->counted) {
		ret = GPSPHC_SERVO_LABEL_UNCOUNTED;
		goto refuse;
	}
	if (tai_sec < rec->num || tai_sec > SV_TAI_SEC_MAX ||
	    tai_sec - rec->num > SV_TAI_SEC_MAX - s->last_num) {
		ret = GPSPHC_SERVO_LABEL_RANGE;
		goto refuse;
	}

	s->counters.labels++;
	out->edge_num = rec->num;
	if (!s->labelled) {
		sv_first_label(s, rec, tai_sec, now_raw_ns, now_phc_ns, out);
		ret = GPSPHC_SERVO_LABEL_SET;
		goto out;
	}
	d = (s64)tai_sec - (s64)(s->tai_base + rec->num);
	if (!d) {
		s->pending.n = 0;
		ret = GPSPHC_SERVO_LABEL_AGREE;
		goto out;
	}
	s->counters.disagreements++;
	out->flags |= GPSPHC_SERVO_OUT_DISAGREE;
	if (!gpsphc_servo_confirm(&s->pending, s->pending.n && s->pending_d == d,
				  rec->num, s->cfg.confirm_n)) {
		s->pending_d = d;
		ret = GPSPHC_SERVO_LABEL_DISAGREE;
		goto out;
	}
	/* Confirmed: whole seconds only, the loop's lock is unaffected. */
	s->tai_base = tai_sec - rec->num;
	out->step_ns = d * (s64)SV_NSEC;
	out->flags |= GPSPHC_SERVO_OUT_STEP;
	s->counters.steps++;
	ret = GPSPHC_SERVO_LABEL_APPLIED;
	goto out;

refuse:
	s->counters.labels_refused++;
out:
	sv_out_end(s, out);
	return ret;
}
