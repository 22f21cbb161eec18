/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * status.h - gpsphcd --status: every attached gpsphc device as the kernel
 * reports it (dev-get dump), for people or, with --json, for scripts.
 */
#ifndef GPSPHCD_STATUS_H
#define GPSPHCD_STATUS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Print the status on @out; 0, or 1 after saying on stderr what failed. */
int status_run(FILE *out, bool json);

/* "unlocked", "locking", ... for enum gpsphc_servo_state; "unknown". */
const char *status_servo_state_name(uint32_t state);

#endif /* GPSPHCD_STATUS_H */
