/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * status.h - gpsphcd --status: every attached gpsphc device as the kernel
 * reports it (dev-get dump), for people or, with --json, for scripts.
 */
#ifndef GPSPHCD_STATUS_H
#define GPSPHCD_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct nl_msg;

/* Called by a dump for each device's dev-get message; returns an NL_* code. */
typedef int (*status_dev_fn)(struct nl_msg *msg, void *arg);

/*
 * One dev-get dump from @src: @dev for each device, then 0, or a negative
 * libnl error (-NLE_DUMP_INTR: the devices changed during the dump).
 */
typedef int (*status_dump_fn)(void *src, status_dev_fn dev, void *arg);

/*
 * Print the status of the devices @dump finds on @out, as a whole: the
 * document is built in memory and written only once complete (a dump
 * interrupted by a change is tried again). 0, or 1 with nothing on @out
 * after saying on stderr what failed.
 */
int status_show(FILE *out, bool json, status_dump_fn dump, void *src);

/* status_show() of the kernel's gpsphc netlink family. */
int status_run(FILE *out, bool json);

struct nlattr;

/*
 * The GPIO line the PPS comes from, from a dev-get's GPSPHC_A_DEV_PPS_GPIO
 * (@a, NULL if absent): the string, or "none" for DCD, an absent or
 * malformed attribute (a module without the setting).
 */
const char *status_pps_gpio(const struct nlattr *a);

/*
 * Pulses off the servo's phase (GPSPHC_A_SERVO_OFF_PHASE_COUNT @count, not
 * 0, and _NS @ns) in words, into @buf: the line of --status and of the log.
 */
void status_off_phase(char *buf, size_t size, uint32_t count, int64_t ns);

/* What a daemon last said of off-phase pulses; zeroed at first. */
struct status_off_phase {
	uint32_t count;		/* 0: none said */
	int64_t ns;		/* the last offset seen */
	uint64_t rephases;	/* GPSPHC_A_SERVO_REPHASES when they began */
};

/*
 * A servo status seen (@count, @ns, @rephases as in the servo nest): when
 * off-phase pulses begin or end, the line to log into @buf and its syslog
 * priority; else -1. @was follows.
 */
int status_off_phase_change(struct status_off_phase *was, uint32_t count,
			    int64_t ns, uint64_t rephases, char *buf,
			    size_t size);

#endif /* GPSPHCD_STATUS_H */
