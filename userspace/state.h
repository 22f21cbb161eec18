/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * state.h - the persisted last-good time.
 *
 * Format (text, one key per line, unknown keys ignored):
 *   gpsphcd-state 1
 *   last_good_tai <PTP seconds>
 *   last_good_utc <YYYY-MM-DDTHH:MM:SSZ>     (informational)
 * Written atomically: temporary file in the same directory, fsync, rename,
 * fsync of the directory.
 */
#ifndef GPSPHCD_STATE_H
#define GPSPHCD_STATE_H

#include <stdint.h>

/* 0 and *tai set; -ENOENT if there is no file; other -errno with a
 * message already printed. */
int state_load(const char *path, int64_t *tai);
int state_save(const char *path, int64_t tai, const char *utc_text);

#endif /* GPSPHCD_STATE_H */
