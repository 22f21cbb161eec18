/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pipeline.h - the userspace labelling path, shared by --replay and live
 * mode: sentences and PPS edges (CLOCK_MONOTONIC_RAW ns) go in, labels
 * ("edge X is TAI second Y") come out through a callback.  Diagnostics go
 * to stderr.
 *
 * Live mode feeds the same two functions from the kernel's netlink events
 * (PPS edge: its raw timestamp; SENTENCE: the timestamp of its first byte)
 * and turns each label into a TIME_SET command.
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

struct pp_label {
	int64_t edge_ns;	/* CLOCK_MONOTONIC_RAW of the PPS edge */
	int64_t tai;		/* PTP seconds of that edge */
	int64_t utc;		/* UTC seconds (23:59:60 -> next 00:00:00) */
	bool sec60;
	int tai_utc;
	int leap_pending;	/* +1/-1: a leap second at leap_at_utc */
	int64_t leap_at_utc;	/* UTC second at which TAI-UTC changes */
	int64_t behind_weeks;	/* receiver's rollover bug, 0 if none */
};

typedef void (*pp_emit_fn)(void *ctx, const struct pp_label *l);

#define PP_QUEUE	8

struct pp_pending {
	int64_t t_ns;			/* sentence timestamp */
	struct leap_label lab;
	int64_t behind_weeks;
};

struct pipeline {
	struct era_pivot floor;		/* build / --not-before / state */
	struct era_pivot pivot;		/* floor, advanced by last-good */
	struct leap_table leap;
	struct assoc_cfg assoc;
	struct guard guard;
	pp_emit_fn emit;
	void *ctx;

	bool have_edge;
	int64_t edge_ns;		/* last edge */
	bool edge_done;			/* it has a label */
	int64_t edge_tai;

	struct pp_pending q[PP_QUEUE];	/* resolved, waiting for t - offset */
	unsigned int nq;

	bool have_last_good;
	int64_t last_good_tai;

	bool warned_behind, warned_frac;
	int64_t warned_expired_utc;	/* repeat the warning daily */
	int64_t leap_announced;
	unsigned long labels, held, rejected;
};

/* Pivot slack: a sentence about a second just before the last good time
 * must not look like a rollover-bug date. */
#define PP_PIVOT_SLACK	SECS_PER_DAY

/*
 * @floor_utc: the latest of the build date, --not-before and the state's
 * last-good time (UTC seconds); @leap: the table to use (already chosen
 * between leap-seconds.list and the built-in one).
 */
void pipeline_init(struct pipeline *p, int64_t floor_utc,
		   const struct leap_table *leap, const struct assoc_cfg *a,
		   unsigned int guard_n, pp_emit_fn emit, void *ctx);
void pipeline_edge(struct pipeline *p, int64_t t_ns);
void pipeline_sentence(struct pipeline *p, int64_t t_ns, const char *s,
		       size_t len);
/* End of input: process what waits for a later timestamp. */
void pipeline_flush(struct pipeline *p);

/* The standard output line: "<edge ns> <PTP s> <UTC> <TAI-UTC>\n". */
void pp_print_label(FILE *f, const struct pp_label *l);

#endif /* GPSPHCD_PIPELINE_H */
