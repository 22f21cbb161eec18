/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * replay.h - the capture format of --replay and --record.
 *
 * One event per line:
 *   S <mono_raw_ns> [<count>] <sentence>  a sentence, timestamp of its
 *                                         first byte
 *   P <mono_raw_ns> [<count>]             an on-time PPS edge
 *   V <mono_raw_ns> state=W offset_ns=N freq_ppb=N rms_ns=N holdover_s=N
 *                                         the servo's status as gpsphcd
 *                                         read it (each second)
 *   # comment                             (also blank lines)
 * Timestamps are CLOCK_MONOTONIC_RAW nanoseconds, non-decreasing. <count>
 * is what the kernel's servo made of the input: the number of the second
 * it starts in the servo's count, or "-" when it starts none. --record
 * writes it; a line without it is counted by the kernel's rules for a
 * steady receiver (replay.c), as captures made before it are.
 *
 * V lines are the kernel's output, not its input: --replay skips them,
 * gpsphc-plot draws them. Their time is when gpsphcd asked, which may
 * come before that of edges still waiting in its socket: they are not
 * held to the order of the P and S lines.
 */
#ifndef GPSPHCD_REPLAY_H
#define GPSPHCD_REPLAY_H

#include <stdint.h>
#include <stdio.h>

#include "pipeline.h"

/* Feed a capture through @p; 0, or -1 after printing what line is bad. */
int replay_run(FILE *in, const char *name, struct pipeline *p);

/* For --record (live mode): write one event in the format above. */
int record_edge(FILE *out, const struct pp_input *in);
int record_sentence(FILE *out, const struct pp_input *in, const char *s,
		    size_t len);
int record_servo(FILE *out, int64_t t_ns, const char *state,
		 int64_t offset_ns, int64_t freq_ppb, uint64_t rms_ns,
		 uint64_t holdover_s);

#endif /* GPSPHCD_REPLAY_H */
