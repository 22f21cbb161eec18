// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated PPS edge streams and the clock model: see edge_sim.h.
 */
#define _GNU_SOURCE
#include <math.h>

#include "edge_sim.h"

/* splitmix64: small, fast, and good enough for noise */
static u64 edge_sim_rand(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double edge_sim_uniform(u64 *state)
{
	return (edge_sim_rand(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* Box-Muller, one value per call */
double edge_sim_gauss(u64 *state)
{
	double u1 = edge_sim_uniform(state), u2 = edge_sim_uniform(state);

	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

void edge_sim_init(struct edge_sim *sim, const struct edge_sim_cfg *cfg)
{
	*sim = (struct edge_sim){
		.cfg = *cfg,
		.rng = cfg->seed,
		.raw_true = (double)cfg->raw0,
		.freq_ppb = cfg->freq_ppb,
	};
}

void edge_sim_drop(struct edge_sim *sim, u64 from, u64 to)
{
	if (sim->n_drop < EDGE_SIM_MAX_EVENTS)
		sim->drop[sim->n_drop++] = (struct edge_sim_range){ from, to, 0 };
}

void edge_sim_freq_step(struct edge_sim *sim, u64 at, double ppb)
{
	if (sim->n_fstep < EDGE_SIM_MAX_EVENTS)
		sim->fstep[sim->n_fstep++] =
			(struct edge_sim_range){ at, at + 1, ppb };
}

void edge_sim_ramp(struct edge_sim *sim, u64 from, u64 to, double ppb_per_s)
{
	if (sim->n_ramp < EDGE_SIM_MAX_EVENTS)
		sim->ramp[sim->n_ramp++] =
			(struct edge_sim_range){ from, to, ppb_per_s };
}

void edge_sim_spike_at(struct edge_sim *sim, u64 k)
{
	if (sim->n_spike_k < EDGE_SIM_MAX_EVENTS)
		sim->spike_k[sim->n_spike_k++] = k;
}

/* Ramps and the sine: the rate's change through second k, its mean */
static double edge_sim_shape(const struct edge_sim *sim, u64 k)
{
	double ppb = 0, w, t;
	unsigned int i;

	for (i = 0; i < sim->n_ramp; i++) {
		const struct edge_sim_range *r = &sim->ramp[i];

		t = (double)k + 0.5;
		if (t > (double)r->to)
			t = (double)r->to;
		if (t > (double)r->from)
			ppb += r->ppb * (t - (double)r->from);
	}
	if (sim->cfg.sine_ppb && sim->cfg.sine_period_s > 0) {
		w = 2.0 * M_PI / sim->cfg.sine_period_s;
		ppb += sim->cfg.sine_ppb * (cos(w * (double)k) -
					    cos(w * ((double)k + 1.0))) / w;
	}
	return ppb;
}

void edge_sim_next(struct edge_sim *sim, struct edge_sim_edge *e)
{
	double lat;
	unsigned int i;

	e->k = sim->k;
	e->tai_sec = sim->cfg.tai0 + sim->k;
	e->raw_true = (u64)llround(sim->raw_true);
	e->present = true;
	for (i = 0; i < sim->n_drop; i++)
		if (sim->k >= sim->drop[i].from && sim->k < sim->drop[i].to)
			e->present = false;
	/* Draw the noise either way, so drops do not shift the stream. */
	lat = sim->cfg.latency_ns + sim->cfg.jitter_ns * edge_sim_gauss(&sim->rng);
	e->spike = edge_sim_uniform(&sim->rng) < sim->cfg.spike_prob;
	for (i = 0; i < sim->n_spike_k; i++)
		if (sim->spike_k[i] == sim->k)
			e->spike = true;
	if (e->spike)
		lat += sim->cfg.spike_ns;
	e->raw = (u64)llround(sim->raw_true + lat);

	/* Advance the raw clock by one true second */
	for (i = 0; i < sim->n_fstep; i++)
		if (sim->fstep[i].from == sim->k)
			sim->freq_ppb += sim->fstep[i].ppb;
	if (sim->cfg.wander_ppb > 0)
		sim->freq_ppb += sim->cfg.wander_ppb * edge_sim_gauss(&sim->rng);
	sim->raw_true += 1e9 + sim->freq_ppb + edge_sim_shape(sim, sim->k);
	sim->k++;
}

void phc_init(struct phc_model *p, u64 raw, s64 ns, u32 max_ppb)
{
	*p = (struct phc_model){
		.base_raw = raw,
		.base_ns = ns,
		.max_adj = (s64)max_ppb * GPSPHC_SERVO_ADJ_PER_PPB,
	};
}

/* Exact, as kmod/phc.c does it (gpsphc_phc_scale()) */
s64 phc_read(const struct phc_model *p, u64 raw)
{
	u64 mag = raw >= p->base_raw ? raw - p->base_raw : p->base_raw - raw;
	s64 d = raw >= p->base_raw ? (s64)mag : -(s64)mag;
	u64 c = mul_u64_u64_div_u64(mag, p->adj < 0 ? -(u64)p->adj : (u64)p->adj,
				    1000000000ULL * 65536);
	s64 scaled = (d < 0) != (p->adj < 0) ? -(s64)c : (s64)c;

	return p->base_ns + d + scaled;
}

void phc_set_adj(struct phc_model *p, u64 now_raw, s64 adj)
{
	p->base_ns = phc_read(p, now_raw);
	p->base_raw = now_raw;
	if (adj > p->max_adj)
		adj = p->max_adj;
	if (adj < -p->max_adj)
		adj = -p->max_adj;
	p->adj = adj;
}

void phc_step(struct phc_model *p, u64 now_raw, s64 delta)
{
	p->base_ns = phc_read(p, now_raw) + delta;
	p->base_raw = now_raw;
}

void phc_apply(struct phc_model *p, u64 now_raw,
	       const struct gpsphc_servo_out *out)
{
	if (out->flags & GPSPHC_SERVO_OUT_STEP)
		phc_step(p, now_raw, out->step_ns);
	if (out->flags & GPSPHC_SERVO_OUT_ADJ)
		phc_set_adj(p, now_raw, out->adj);
}
