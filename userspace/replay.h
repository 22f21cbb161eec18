/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * replay.h - the capture format of --replay and --record.
 *
 * One event per line:
 *   S <mono_raw_ns> [<count>] <sentence>  a sentence, timestamp of its
 *                                         first byte
 *   P <mono_raw_ns> [<count>]             an on-time PPS edge
 *   # comment                             (also blank lines)
 * Timestamps are CLOCK_MONOTONIC_RAW nanoseconds, non-decreasing. <count>
 * is what the kernel's servo made of the input: the number of the second
 * it starts in the servo's count, or "-" when it starts none. --record
 * writes it; a line without it is counted by the kernel's rules for a
 * steady receiver (replay.c), as captures made before it are.
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

#endif /* GPSPHCD_REPLAY_H */
