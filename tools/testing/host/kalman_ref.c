// SPDX-License-Identifier: GPL-2.0
/*
 * servo_bench's reference: a two-state Kalman filter, see kalman_ref.h.
 */
#include <string.h>

#include "kalman_ref.h"

/* The rate before the first two edges: unknown within +-1000 ppm */
#define KALMAN_REF_P0	1e12

void kalman_ref_init(struct kalman_ref *f, double q, double r)
{
	memset(f, 0, sizeof(*f));
	f->q = q;
	f->r = r;
}

/* One second on: a += p, P = F P F' + diag(0, q) */
static void kalman_ref_predict(struct kalman_ref *f)
{
	double (*P)[2] = f->P;

	f->a += f->p;
	P[0][0] += 2 * P[0][1] + P[1][1];
	P[0][1] += P[1][1];
	P[1][0] = P[0][1];
	P[1][1] += f->q;
	f->k++;
}

void kalman_ref_edge(struct kalman_ref *f, uint64_t k, bool use, uint64_t raw)
{
	double (*P)[2] = f->P;
	double y, s, k0, k1, p00, p01;

	if (!f->started) {
		if (!use)
			return;
		f->started = true;
		f->origin = raw;
		f->k = k;
		f->a = 0;
		f->p = 1e9;
		P[0][0] = f->r;
		P[0][1] = P[1][0] = 0;
		P[1][1] = KALMAN_REF_P0;
		return;
	}
	while (f->k < k)
		kalman_ref_predict(f);
	if (!use)
		return;
	y = (double)(int64_t)(raw - f->origin) - f->a;
	s = P[0][0] + f->r;
	k0 = P[0][0] / s;
	k1 = P[1][0] / s;
	f->a += k0 * y;
	f->p += k1 * y;
	p00 = P[0][0];
	p01 = P[0][1];
	P[0][0] = p00 - k0 * p00;
	P[0][1] = p01 - k0 * p01;
	P[1][1] -= k1 * p01;
	P[1][0] = P[0][1];
}

double kalman_ref_raw_at(const struct kalman_ref *f, uint64_t k)
{
	return (double)f->origin + f->a + (double)(int64_t)(k - f->k) * f->p;
}
