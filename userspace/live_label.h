/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * live_label.h - live mode's labels: each edge (or, in coarse mode,
 * sentence) the pipeline labels goes to the kernel in a time-set, unless
 * the kernel's servo is off (--servo off: labels are only printed). A
 * refusal because the servo is off (EBUSY) is said once until labels are
 * taken again. The last-good time is saved to --state every minute of
 * labels, and at the end.
 */
#ifndef GPSPHCD_LIVE_LABEL_H
#define GPSPHCD_LIVE_LABEL_H

struct live;
struct pp_label;

/* The pipeline's emit (@ctx: the struct live): print and send @lab. */
void live_label(void *ctx, const struct pp_label *lab);

/* Save the last-good time to --state, if there is one to save. */
void live_save_state(struct live *l);

#endif /* GPSPHCD_LIVE_LABEL_H */
