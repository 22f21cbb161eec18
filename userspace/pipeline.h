/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pipeline.h - the userspace labelling path, shared by --replay and live
 * mode: sentences and PPS edges (CLOCK_MONOTONIC_RAW ns) go in, labels
 * ("edge X is TAI second Y") come out through a callback.  Diagnostics go
 * to stderr.
 *
 * Each input comes with its identity and the kernel's word on it (struct
 * pp_input): live mode reads them from the kernel's netlink events (PPS
 * edge: its raw timestamp; SENTENCE: the timestamp of its first byte), the
 * replay from the capture. A label names its input by that identity, which
 * live mode puts in a TIME_SET command as it is: gpsphcd keeps no table of
 * its own from timestamps to inputs.
 *
 * Which inputs start a second is the kernel's servo's to say, and it says
 * so in the input's notification with the second's number in its count:
 * an on-time edge it did not count (not where a second was due) is no
 * edge here, and in coarse mode (no PPS wire) a sentence it counted stands
 * in for the edge of its burst: the burst's time sentences label it
 * (offset 0, the usual window).  gpsphcd's own policy on top: with no edge
 * ever, coarse mode waits until the first good sentence is
 * PP_COARSE_START_NS old.  An edge ends coarse mode.
 */
#ifndef GPSPHCD_PIPELINE_H
#define GPSPHCD_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "assoc.h"
#include "era.h"
#include "guard.h"
#include "leap.h"
#include "linux/gpsphc.h"
#include "timeconv.h"

/*
 * gpsphcd's own policy: with no edge ever, coarse mode waits until the
 * first good sentence is this old, so that a PPS which starts just after
 * the first sentence (start-up) is not overtaken by sentence labels.
 */
#define PP_COARSE_START_NS	(2 * NS_PER_SEC)

/*
 * One input as the kernel captured and counted it: an on-time PPS edge or
 * a sentence.
 */
struct pp_input {
	int64_t t_ns;		/* CLOCK_MONOTONIC_RAW */
	uint32_t seq;		/* the kernel's sequence number, per kind */
	bool counted;		/* it starts a second, by the kernel's count */
	int64_t second;		/* with counted: its number in that count */
};

struct pp_label {
	/* CLOCK_MONOTONIC_RAW of the PPS edge, or of the sentence standing in */
	int64_t edge_ns;
	uint32_t seq;		/* its sequence number: TIME_SET names it */
	bool coarse;		/* edge_ns is a sentence that starts a second */
	int64_t tai;		/* PTP seconds of that edge */
	int64_t utc;		/* UTC seconds (23:59:60 -> next 00:00:00) */
	bool sec60;
	int tai_utc;
	int leap_pending;	/* +1/-1: a leap second at leap_at_utc */
	int64_t leap_at_utc;	/* UTC second at which TAI-UTC changes */
	/*
	 * The guard holds it: a jump not confirmed yet. The kernel, which
	 * confirms jumps for the clock (confirm_n), gets it all the same;
	 * it is neither printed nor trusted here.
	 */
	bool held;
};

typedef void (*pp_emit_fn)(void *ctx, const struct pp_label *l);

#define PP_QUEUE	8

struct pp_pending {
	int64_t t_ns;			/* sentence timestamp */
	struct leap_label lab;
};

/*
 * The last-good time: a label becomes it only once the labels have been
 * consistent for PP_TRUST_S, that is the guard has accepted every label
 * (no jump, no first label) since one PP_TRUST_S earlier.  Only then is it
 * saved to the state file, and (less ERA_SLACK, see era.h) raises this
 * run's pivot.  15 minutes: longer than the 12.5 minutes a GPS receiver
 * needs after a cold start to hear the whole navigation message (25 frames
 * of 30 s; the UTC parameters and leap seconds come once in it), before
 * which its time may rest on firmware defaults; and long beside the
 * guard's few seconds, so that a jump the guard accepted on a transient
 * error is never saved.  A run shorter than that saves nothing.  The
 * configuration's trust_s sets another (a test may not wait 15 minutes).
 */
#define PP_TRUST_S	(15 * 60)

struct pipeline {
	/* the era floor (build, --not-before, state), advanced by last-good */
	struct era_pivot pivot;
	enum era_floor_by pivot_by;	/* what set the pivot */
	struct leap_table leap;
	struct assoc_cfg assoc;
	struct guard guard;
	pp_emit_fn emit;
	void *ctx;

	/* the last edge, or (coarse mode) sentence that starts a second */
	bool have_edge;
	struct pp_input edge;
	bool edge_done;			/* it has a label */
	int64_t edge_tai;

	bool coarse;			/* edge_ns is a sentence (see above) */
	bool have_pps;			/* an on-time edge has come */
	int64_t pps_ns;			/* the last one */
	bool have_good;			/* a sentence with a good checksum has */
	int64_t first_good_ns;

	struct pp_pending q[PP_QUEUE];	/* resolved, waiting for t - offset */
	unsigned int nq;

	int64_t run_start_tai;		/* first label of the consistent run */
	int64_t trust_s;		/* PP_TRUST_S, or gpsphc.conf's trust_s */
	bool have_last_good;		/* see PP_TRUST_S */
	int64_t last_good_tai;

	bool warned_behind, warned_frac;
	int64_t warned_expired_utc;	/* repeat the warning daily */
	int64_t leap_announced;
	unsigned long labels, held, rejected;
	unsigned long coarse_labels;	/* of labels, sentences */
};

/*
 * @floor: the pivot from the build date, --not-before and the state file
 * (era_choose_floor()); @leap: the table to use (already chosen between
 * leap-seconds.list and the built-in one).
 */
void pipeline_init(struct pipeline *p, const struct era_floor *floor,
		   const struct leap_table *leap, const struct assoc_cfg *a,
		   unsigned int guard_n, pp_emit_fn emit, void *ctx);
/* An on-time PPS edge; one the kernel did not count is ignored. */
void pipeline_edge(struct pipeline *p, const struct pp_input *in);
/*
 * Any sentence, with its checksum verdict @csum (NMEA_OK,
 * NMEA_E_NO_CHECKSUM or NMEA_E_CHECKSUM): the kernel framer's in live
 * mode, nmea_checksum_check()'s in replay. The parser takes the verdict
 * as it is; only the kernel counts a sentence (@in->counted).
 */
void pipeline_sentence(struct pipeline *p, const struct pp_input *in,
		       const char *s, size_t len, int csum);
/* End of input: process what waits for a later timestamp. */
void pipeline_flush(struct pipeline *p);
/* Seconds the labels have been consistent so far (see PP_TRUST_S). */
int64_t pipeline_run_secs(const struct pipeline *p);
/*
 * Events were lost (live mode: the netlink socket overflowed, or a
 * sequence number jumped): forget what a lost event may have changed.
 */
void pipeline_resync(struct pipeline *p);

/* The standard output line: "<edge ns> <PTP s> <UTC> <TAI-UTC>\n". */
void pp_print_label(FILE *f, const struct pp_label *l);

#endif /* GPSPHCD_PIPELINE_H */
