// SPDX-License-Identifier: GPL-2.0
/*
 * linuxptp's PI and linreg servos for servo_bench: see lptp_servos.h.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lptp_servos.h"

/* servo.c's servo_sample(): an update that steers ends the first one */
static void lptp_after_sample(struct lptp_common *c, enum lptp_state state)
{
	if (state == LPTP_LOCKED || state == LPTP_JUMP)
		c->first_update = false;
}

static void lptp_common_init(struct lptp_common *c, double max_frequency)
{
	*c = (struct lptp_common){
		.max_frequency = max_frequency,
		.first_step_threshold = 20000.0,
		.step_threshold = 0.0,
		.first_update = true,
	};
}

static bool lptp_step_due(const struct lptp_common *c, double offset)
{
	return (c->first_update && c->first_step_threshold &&
		c->first_step_threshold < fabs(offset)) ||
	       (c->step_threshold && c->step_threshold < fabs(offset));
}

#define LPTP_FREQ_EST_MARGIN	0.001

void lptp_pi_init(struct lptp_pi *s, double kp, double ki,
		  double max_frequency)
{
	memset(s, 0, sizeof(*s));
	lptp_common_init(&s->c, max_frequency);
	s->kp = kp;
	s->ki = ki;
}

/* pi.c's pi_sample() */
static double lptp_pi_sample_raw(struct lptp_pi *s, int64_t offset,
				 uint64_t local_ts, enum lptp_state *state)
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
		if (s->drift < -s->c.max_frequency)
			s->drift = -s->c.max_frequency;
		else if (s->drift > s->c.max_frequency)
			s->drift = s->c.max_frequency;
		*state = lptp_step_due(&s->c, (double)offset) ? LPTP_JUMP :
			 LPTP_LOCKED;
		ppb = s->drift;
		s->count = 2;
		break;
	case 2:
		if (s->c.step_threshold &&
		    s->c.step_threshold < llabs(offset)) {
			*state = LPTP_UNLOCKED;
			s->count = 0;
			break;
		}
		ki_term = s->ki * offset;
		ppb = s->kp * offset + s->drift + ki_term;
		if (ppb < -s->c.max_frequency)
			ppb = -s->c.max_frequency;
		else if (ppb > s->c.max_frequency)
			ppb = s->c.max_frequency;
		else
			s->drift += ki_term;
		*state = LPTP_LOCKED;
		break;
	}
	s->last_freq = ppb;
	return ppb;
}

double lptp_pi_sample(struct lptp_pi *s, int64_t offset, uint64_t local_ts,
		      enum lptp_state *state)
{
	double ppb = lptp_pi_sample_raw(s, offset, local_ts, state);

	lptp_after_sample(&s->c, *state);
	return ppb;
}

/*
 * linreg.c. Points are (x: the clock's time with the servo's own
 * frequency corrections taken out, y: the source's time), both kept
 * relative to a reference point that moves with each sample.
 */
#define LR_ERR_SMOOTH		0.02	/* running prediction error */
#define LR_ERR_INITIAL		10	/* ...plain mean of the first ones */
#define LR_ERR_EQUALS		1.05	/* errors this close count as equal */
#define LR_NSIZES		(LPTP_LINREG_MAX_SIZE - LPTP_LINREG_MIN_SIZE + 1)

void lptp_linreg_init(struct lptp_linreg *s, double max_frequency)
{
	memset(s, 0, sizeof(*s));
	lptp_common_init(&s->c, max_frequency);
	s->update_interval = 1.0;
}

static void lr_move_reference(struct lptp_linreg *s, int64_t x, int64_t y)
{
	unsigned int i;

	s->ref_x += x;
	s->ref_y += y;
	for (i = 0; i < LR_NSIZES; i++)
		s->res[i].intercept += x * s->res[i].slope - y;
}

static void lr_update_reference(struct lptp_linreg *s, uint64_t local_ts)
{
	double dx;
	int64_t dy;

	if (s->last_update) {
		dy = (int64_t)(local_ts - s->last_update);
		dx = dy / (1.0 + s->clock_freq / 1e9) + s->x_remainder;
		s->x_remainder = dx - (int64_t)dx;
		lr_move_reference(s, (int64_t)dx, dy);
	}
	s->last_update = local_ts;
}

static void lr_regress(struct lptp_linreg *s)
{
	double sx = 0, sy = 0, sxy = 0, sxx = 0, x, y, y0, e;
	unsigned int i = 0, j, n, size;
	struct lptp_linreg_result *r;

	y0 = (double)(int64_t)(s->py[s->last_point] - s->ref_y);
	for (size = LPTP_LINREG_MIN_SIZE; size <= LPTP_LINREG_MAX_SIZE; size++) {
		n = 1U << size;
		if (n > s->num_points)
			break;
		r = &s->res[size - LPTP_LINREG_MIN_SIZE];
		/* How well the last line predicted this sample */
		if (r->slope) {
			e = fabs(r->intercept - y0);
			if (r->err_updates < LR_ERR_INITIAL) {
				r->err = (r->err * r->err_updates + e) /
					 (r->err_updates + 1);
				r->err_updates++;
			} else {
				r->err += LR_ERR_SMOOTH * (e - r->err);
			}
		}
		/* The sums grow with the size: add the next older points */
		for (; i < n; i++) {
			j = (LPTP_LINREG_POINTS + s->last_point - i) %
			    LPTP_LINREG_POINTS;
			x = (double)(int64_t)(s->px[j] - s->ref_x);
			y = (double)(int64_t)(s->py[j] - s->ref_y);
			sx += x;
			sy += y;
			sxy += x * y;
			sxx += x * x;
		}
		r->slope = (sxy - sx * sy / n) / (sxx - sx * sx / n);
		r->intercept = (sy - r->slope * sx) / n;
	}
}

/* The largest size whose error is the smallest, within LR_ERR_EQUALS */
static unsigned int lr_best_size(const struct lptp_linreg *s)
{
	unsigned int size, best = 0;
	double best_err = 0;

	for (size = LPTP_LINREG_MIN_SIZE; size <= LPTP_LINREG_MAX_SIZE; size++) {
		const struct lptp_linreg_result *r =
			&s->res[size - LPTP_LINREG_MIN_SIZE];

		if ((!best && r->slope) ||
		    (best_err * LR_ERR_EQUALS > r->err &&
		     r->err_updates >= LR_ERR_INITIAL)) {
			best = size;
			best_err = r->err;
		}
	}
	return best;
}

static double lptp_linreg_sample_raw(struct lptp_linreg *s, int64_t offset,
				     uint64_t local_ts, enum lptp_state *state)
{
	const struct lptp_linreg_result *r;
	unsigned int size, corr;

	lr_update_reference(s, local_ts);
	s->last_point = (s->last_point + 1) % LPTP_LINREG_POINTS;
	s->px[s->last_point] = s->ref_x;
	s->py[s->last_point] = s->ref_y - offset;
	if (s->num_points < LPTP_LINREG_POINTS)
		s->num_points++;
	lr_regress(s);

	size = lr_best_size(s);
	if (size < LPTP_LINREG_MIN_SIZE) {
		*state = LPTP_UNLOCKED;
		return -s->clock_freq;
	}
	r = &s->res[size - LPTP_LINREG_MIN_SIZE];
	if (lptp_step_due(&s->c, r->intercept)) {
		/* the clock is stepped by -offset: so is the reference */
		lr_move_reference(s, 0, -offset);
		s->last_update -= offset;
		*state = LPTP_JUMP;
	} else {
		*state = LPTP_LOCKED;
	}
	/* The slope's rate, and the intercept taken out over 1..3 intervals */
	s->clock_freq = 1e9 * (r->slope - 1.0);
	corr = size <= 4 ? 1 : size / 2;
	s->clock_freq += r->intercept / s->update_interval / corr;
	if (s->clock_freq > s->c.max_frequency)
		s->clock_freq = s->c.max_frequency;
	else if (s->clock_freq < -s->c.max_frequency)
		s->clock_freq = -s->c.max_frequency;
	return -s->clock_freq;
}

double lptp_linreg_sample(struct lptp_linreg *s, int64_t offset,
			  uint64_t local_ts, enum lptp_state *state)
{
	double ppb = lptp_linreg_sample_raw(s, offset, local_ts, state);

	lptp_after_sample(&s->c, *state);
	return ppb;
}
