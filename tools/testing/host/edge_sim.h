/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Simulated PPS edge streams for the servo's host tests and benchmark,
 * and a model of the kernel's clock (the timecounter the servo steers).
 *
 * Truth is the receiver: edge k marks TAI second tai0 + k exactly. The
 * host's CLOCK_MONOTONIC_RAW runs fast by freq_ppb (plus any steps and
 * random walk), so the true edge happens at raw time raw_true; the kernel
 * captures it at raw = raw_true + latency + Gaussian jitter (+ a spike
 * now and then). Deterministic: the same seed gives the same stream.
 * Host only: floating point is fine here, never in the servo.
 */
#ifndef _EDGE_SIM_H
#define _EDGE_SIM_H

#include "servo/internal.h"

#define EDGE_SIM_MAX_EVENTS	16

/**
 * struct edge_sim_cfg - one simulated receiver and host
 * @freq_ppb: the raw clock's rate error against GNSS, ppb (+ is fast)
 * @jitter_ns: Gaussian sigma of the capture time, ns
 * @latency_ns: mean capture delay, ns (a constant no servo can see)
 * @spike_prob: chance that an edge is captured @spike_ns late
 * @spike_ns: latency spike, ns
 * @wander_ppb: sigma of the rate's random walk per second, ppb
 * @sine_ppb: amplitude of a sinusoidal rate change (thermal cycling), ppb
 * @sine_period_s: its period, s
 * @seed: PRNG seed
 * @raw0: raw time of the first true edge, ns
 * @tai0: TAI second of the first edge
 */
struct edge_sim_cfg {
	double freq_ppb;
	double jitter_ns;
	double latency_ns;
	double spike_prob;
	double spike_ns;
	double wander_ppb;
	double sine_ppb;
	double sine_period_s;
	u64 seed;
	u64 raw0;
	u64 tai0;
};

/**
 * struct edge_sim_edge - one second of the stream
 * @k: second index from 0
 * @tai_sec: the TAI second it marks
 * @raw_true: raw time of the true edge (rounded to ns)
 * @raw: raw time the kernel captures, when @present
 * @present: the pulse arrived (not dropped)
 * @spike: @raw carries a latency spike
 */
struct edge_sim_edge {
	u64 k;
	u64 tai_sec;
	u64 raw_true;
	u64 raw;
	bool present;
	bool spike;
};

struct edge_sim_range {
	u64 from, to;		/* seconds [from, to) */
	double ppb;		/* rate step, or ramp rate per second */
};

struct edge_sim {
	struct edge_sim_cfg cfg;
	u64 rng;
	u64 k;
	double raw_true;	/* raw time of edge k, ns */
	double freq_ppb;	/* current rate error */
	struct edge_sim_range drop[EDGE_SIM_MAX_EVENTS];
	unsigned int n_drop;
	struct edge_sim_range fstep[EDGE_SIM_MAX_EVENTS];
	unsigned int n_fstep;
	struct edge_sim_range ramp[EDGE_SIM_MAX_EVENTS];
	unsigned int n_ramp;
	u64 spike_k[EDGE_SIM_MAX_EVENTS];
	unsigned int n_spike_k;
};

void edge_sim_init(struct edge_sim *sim, const struct edge_sim_cfg *cfg);
/* No pulses for seconds [from, to) */
void edge_sim_drop(struct edge_sim *sim, u64 from, u64 to);
/* The raw clock's rate error moves by @ppb at second @at */
void edge_sim_freq_step(struct edge_sim *sim, u64 at, double ppb);
/* ...by @ppb_per_s every second through seconds [from, to) */
void edge_sim_ramp(struct edge_sim *sim, u64 from, u64 to, double ppb_per_s);
/* Edge @k carries a latency spike of cfg.spike_ns, whatever the dice say */
void edge_sim_spike_at(struct edge_sim *sim, u64 k);
/* The next second */
void edge_sim_next(struct edge_sim *sim, struct edge_sim_edge *e);
/* Deterministic PRNG: uniform in [0, 1), standard Gaussian */
double edge_sim_uniform(u64 *state);
double edge_sim_gauss(u64 *state);

/**
 * struct phc_model - the kernel's clock, as kmod/phc.c keeps it
 * @base_raw: raw ns of the base
 * @base_ns: clock ns at @base_raw
 * @adj: rate correction, 2^-16 ppb
 * @max_adj: |adj| limit, 2^-16 ppb (the clock clamps, as phc.c does)
 */
struct phc_model {
	u64 base_raw;
	s64 base_ns;
	s64 adj;
	s64 max_adj;
};

void phc_init(struct phc_model *p, u64 raw, s64 ns, u32 max_ppb);
s64 phc_read(const struct phc_model *p, u64 raw);
void phc_set_adj(struct phc_model *p, u64 now_raw, s64 adj);
void phc_step(struct phc_model *p, u64 now_raw, s64 delta);
/* Apply a servo output at @now_raw: step first, then the rate */
void phc_apply(struct phc_model *p, u64 now_raw,
	       const struct gpsphc_servo_out *out);

#endif /* _EDGE_SIM_H */
