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
 *
 * What is saved is the pipeline's last-good time: a label only after the
 * labels have been consistent for PP_TRUST_S (pipeline.h).  What is read
 * is a floor for the era pivot with ERA_SLACK, believed only up to
 * ERA_STATE_BELIEVED after the build date (era.h): a file in which an
 * older gpsphcd saved a time 1024 weeks ahead is said and ignored, and is
 * rewritten by the first run whose labels are consistent long enough.
 */
#ifndef GPSPHCD_STATE_H
#define GPSPHCD_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "era.h"
#include "leap.h"
#include "pipeline.h"

/*
 * The era pivot: era_choose_floor() over the build date @build,
 * --not-before (@not_before, NULL when not given; with @replay it replaces
 * the build date) and the state file @path (NULL: none), in UTC seconds.
 * A saved time that is not believed is said on stderr, with what to do.
 */
void state_floor(const char *path, const struct leap_table *leap,
		 int64_t build, const int64_t *not_before, bool replay,
		 struct era_floor *f);

/*
 * Save @p's last-good time to @path: 0 when saved, -errno (said) when it
 * could not be, 1 when there is none yet (the labels have not been
 * consistent for PP_TRUST_S; said on stderr if @say).
 */
int state_save_last_good(const char *path, const struct pipeline *p,
			 bool say);

#endif /* GPSPHCD_STATE_H */
