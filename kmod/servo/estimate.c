// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc servo: the robust estimate of the pulses' rate and phase from
 * the history of counted inputs, in raw time. See servo.h.
 */

#include "internal.h"

/* The fit takes inputs within this many median deviations of the medians */
#define SV_FIT_MAD_K		5
/* ...up to this far off (ns), and a slope up to 1 ms per second. */
#define SV_FIT_RESID_MAX	2147483648LL		/* 2^31 */
#define SV_FIT_SLOPE_MAX	1000000LL
/* History pairs for the frequency estimate must span at most these. */
#define SV_EST_MAX_NUM		65536U
#define SV_EST_MAX_RAW		140737488355328ULL	/* 2^47 */

/*
 * An insertion sort: a few hundred comparisons at most, and no call
 * through a pointer per comparison (sort()'s, a retpoline each), on the
 * path of every edge while LOCKING (sv_kf_refit()).
 */
void gpsphc_sv_sort(s64 *v, u32 n)
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

	for (i = 0; i < m; i++) {
		y = sv_sat_sub(sv_carry(e[i], at, *period), *phase);
		v[i] = (s64)min_t(u64, sv_mag(y), SV_FIT_RESID_MAX);
	}
	gpsphc_sv_sort(v, m);
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
	q = div64_s64(num, den);
	if (sv_mag(q) > SV_FIT_SLOPE_MAX)
		return;
	b = q * 65536 + div64_s64((num - q * den) * 65536, den);
	*period += b;
	*phase += div64_s64(sy * 65536 - b * sx, (s64)n * 65536);
}

/**
 * gpsphc_sv_period_freq() - the rate that makes the clock tick 1e9 per period
 * @s: the servo (for its max_ppb).
 * @period: raw ns per true second, 2^-16 ns.
 *
 * With delta = 1e9 - P, (1e9 - P) / P = delta / 1e9 * (1 + delta / P).
 *
 * Return: the rate correction, 2^-16 ppb, within +-max_ppb.
 */
s64 gpsphc_sv_period_freq(const struct gpsphc_servo *s, s64 period)
{
	s64 delta = ((s64)SV_NSEC << 16) - period, d;

	delta = sv_clamp(delta, (s64)GPSPHC_SERVO_MAX_PPB_LIMIT << 16);
	d = delta + div_s64(delta * (delta >> 16),
			    (s32)((period >> 16) | 1));
	return sv_clamp(d, sv_max_adj(s));
}

/*
 * Frequency and phase from the history, robust to a few latency outliers:
 * the raw period is the median of the periods between input i and input
 * i + m/2 (m counted inputs of the kind of @at), and the raw time of @at's
 * second is the median of every input's time carried to @at's number at
 * that period; sv_fit() then refines both by least squares on the inputs
 * near that line. Returns the number of inputs used (0: no estimate).
 */
u32 gpsphc_sv_estimate(struct gpsphc_servo *s,
		       const struct gpsphc_servo_edge_rec *at,
		       s64 *period_out, u64 *raw_at)
{
	struct gpsphc_servo_edge_rec *e[GPSPHC_SERVO_HISTORY];
	s64 v[GPSPHC_SERVO_HISTORY];
	u32 m = 0, h, n = 0, i;
	s64 period, phase;
	u64 dn, draw;

	for (i = 0; i < s->hist_len; i++) {
		struct gpsphc_servo_edge_rec *r = gpsphc_sv_hist_at(s, i);

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
		v[n++] = (s64)div_u64(draw << 16, (u32)dn);
	}
	if (!n)
		return 0;
	gpsphc_sv_sort(v, n);
	period = v[n / 2];

	/* Each input's raw time carried to @at's number: the median phase */
	for (i = 0; i < m; i++)
		v[i] = sv_carry(e[i], at, period);
	gpsphc_sv_sort(v, m);
	phase = v[m / 2];
	sv_fit(e, m, at, v, &period, &phase);

	*period_out = period;
	*raw_at = at->raw + (u64)phase;
	return m;
}
