/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linuxptp's clock servos, re-implemented for servo_bench from their
 * behaviour in linuxptp 3.1 (pi.c, linreg.c and the servo_sample()
 * wrapper of servo.c): the references our servo is measured against.
 * Floating point, host only, as linuxptp itself.
 *
 * Both take what ts2phc gives them for each PPS edge: the offset of the
 * clock from the source (clock minus source, ns) and the clock's own
 * timestamp of the edge, and return the frequency the clock must run at
 * (ppb, linuxptp's sign: the caller sets -ppb) and a state: on
 * LPTP_JUMP the caller also steps the clock by -offset.
 */
#ifndef _LPTP_SERVOS_H
#define _LPTP_SERVOS_H

#include <stdbool.h>
#include <stdint.h>

enum lptp_state { LPTP_UNLOCKED, LPTP_JUMP, LPTP_LOCKED };

/* Settings common to both, as servo_create() takes them */
struct lptp_common {
	double max_frequency;		/* ppb */
	double first_step_threshold;	/* ns; ts2phc: 20 us */
	double step_threshold;		/* ns; ts2phc: 0, never */
	bool first_update;
};

/* pi.c: a PI loop; its first two samples estimate the frequency. */
struct lptp_pi {
	struct lptp_common c;
	double kp, ki, drift, last_freq;
	int64_t offset[2];
	uint64_t local[2];
	int count;
};

/* linreg.c: least-squares lines over the last 4..64 samples, the one
 * with the smallest running prediction error steering. */
#define LPTP_LINREG_MIN_SIZE	2
#define LPTP_LINREG_MAX_SIZE	6
#define LPTP_LINREG_POINTS	(1 << LPTP_LINREG_MAX_SIZE)

struct lptp_linreg_result {
	double slope, intercept, err;
	int err_updates;
};

struct lptp_linreg {
	struct lptp_common c;
	uint64_t px[LPTP_LINREG_POINTS], py[LPTP_LINREG_POINTS];
	uint64_t ref_x, ref_y;
	unsigned int num_points, last_point;
	double x_remainder;
	uint64_t last_update;
	struct lptp_linreg_result res[LPTP_LINREG_MAX_SIZE -
				      LPTP_LINREG_MIN_SIZE + 1];
	double clock_freq, update_interval;
};

/*
 * ts2phc's gains for hardware time stamps (kp 0.7, ki 0.3) and ptp4l's
 * for software time stamps (kp 0.1, ki 0.001), both at a 1 s interval.
 */
void lptp_pi_init(struct lptp_pi *s, double kp, double ki,
		  double max_frequency);
void lptp_linreg_init(struct lptp_linreg *s, double max_frequency);

/* servo_sample(): the servo's sample(), then the first-update rule */
double lptp_pi_sample(struct lptp_pi *s, int64_t offset, uint64_t local_ts,
		      enum lptp_state *state);
double lptp_linreg_sample(struct lptp_linreg *s, int64_t offset,
			  uint64_t local_ts, enum lptp_state *state);

#endif /* _LPTP_SERVOS_H */
