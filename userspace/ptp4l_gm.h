/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ptp4l_gm.h - keep a running ptp4l's grandmaster settings in step with the
 * gpsphc servo (gpsphcd --ptp4l-socket): SET GRANDMASTER_SETTINGS_NP on its
 * UNIX socket, as pmc does, from a socket of our own; the reply is checked,
 * an unanswered SET is sent again each second, and unchanged settings are
 * sent again every refresh seconds (ptp4l may have restarted with its
 * config file's values).  What is announced comes from gmprop.h.
 */
#ifndef GPSPHCD_PTP4L_GM_H
#define GPSPHCD_PTP4L_GM_H

#include <stdbool.h>
#include <stdint.h>

#include "gmprop.h"
#include "servo_status.h"

struct ptp4l_gm;

/*
 * Open a client of the ptp4l at @server: its own socket is @local, or
 * with NULL $RUNTIME_DIRECTORY/gpsphcd.<pid> (systemd's
 * RuntimeDirectory=), else /var/run/gpsphcd.<pid>.  NULL on failure,
 * said on stderr.
 */
struct ptp4l_gm *ptp4l_gm_open(const char *server, const char *local,
			       const struct gmp_cfg *cfg);
void ptp4l_gm_close(struct ptp4l_gm *gm);

/*
 * The servo's status changed, or a second passed: read ptp4l's answers,
 * then send what @in maps to if it is not acknowledged yet (at most once
 * a second), or the refresh is due.  @now_ns is CLOCK_MONOTONIC.
 */
void ptp4l_gm_update(struct ptp4l_gm *gm, const struct gmp_input *in,
		     int64_t now_ns);

/*
 * The same from the kernel's servo status (servo_status.h: a dev-get
 * reply's or a state notification's), with the time of day from
 * CLOCK_REALTIME (only the leap notice needs it, to within hours).
 * Nothing is sent for a status without a state (@sv NULL, an old module).
 */
void ptp4l_gm_servo(struct ptp4l_gm *gm, const struct servo_status *sv);

/* The settings ptp4l acknowledged last; false if none yet. */
bool ptp4l_gm_acked(const struct ptp4l_gm *gm, struct ptpm_gm_settings *s);

#endif /* GPSPHCD_PTP4L_GM_H */
