// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptp4l_gm.c - gpsphcd's client of ptp4l's management socket (see
 * ptp4l_gm.h).  Like pmc -u -b 0: a UNIX datagram socket bound to a path
 * of its own (ptp4l answers to the sender's address), portNumber = pid,
 * target all clocks and ports, boundaryHops 0 so that ptp4l keeps the SET
 * to itself, domainNumber ptp4l's (domain= in --ptp4l-gm).  ptp4l takes a
 * SET only on this socket and answers it with a RESPONSE that carries the
 * settings it now has; that echo is the acknowledgement.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "linux/gpsphc.h"
#include "log.h"
#include "ptp4l_gm.h"
#include "ptpmgmt.h"
#include "timeconv.h"

/* An unanswered SET is sent again after this long. */
#define GM_RETRY_NS	NS_PER_SEC
/* How long a SET waits for its answer before the loop goes on. */
#define GM_WAIT_MS	100
/* Silence said after this long without an answer. */
#define GM_SILENT_NS	(5 * NS_PER_SEC)

struct ptp4l_gm {
	int fd;
	struct sockaddr_un server, local;
	struct gmp_cfg cfg;
	struct ptpm_req req;
	struct ptpm_gm_settings sent, acked;
	bool outstanding;	/* sent, no answer yet */
	bool have_acked;
	bool silent;		/* said that ptp4l does not answer */
	bool refused;		/* said that ptp4l refused */
	int send_errno;		/* the last sendto() error said, 0 none */
	int64_t sent_ns, acked_ns, first_unanswered_ns;
};

static bool gm_path(struct sockaddr_un *a, const char *path)
{
	*a = (struct sockaddr_un){ .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(a->sun_path))
		return false;
	strcpy(a->sun_path, path);
	return true;
}

struct ptp4l_gm *ptp4l_gm_open(const char *server, const char *local,
			       const struct gmp_cfg *cfg)
{
	struct ptp4l_gm *gm = calloc(1, sizeof(*gm));
	const char *dir = getenv("RUNTIME_DIRECTORY");
	char path[sizeof(gm->local.sun_path) + 32];

	if (!gm)
		return NULL;
	if (!local) {
		/* systemd may list several directories: the first is ours */
		snprintf(path, sizeof(path), "%.*s/gpsphcd.%ld",
			 dir && *dir ? (int)strcspn(dir, ":") : 8,
			 dir && *dir ? dir : "/var/run", (long)getpid());
		local = path;
	}
	if (!gm_path(&gm->server, server) || !gm_path(&gm->local, local)) {
		log_msg(LOG_ERR, "--ptp4l-socket: %s is too long for a UNIX socket path (%zu bytes at most)",
			strlen(server) >= sizeof(gm->server.sun_path) ? server : local,
			sizeof(gm->server.sun_path) - 1);
		goto out_free;
	}
	gm->cfg = *cfg;
	gm->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (gm->fd < 0) {
		log_msg(LOG_ERR, "cannot open a UNIX socket for ptp4l: %s",
			strerror(errno));
		goto out_free;
	}
	/* A previous gpsphcd with our pid died without cleaning up. */
	unlink(gm->local.sun_path);
	if (bind(gm->fd, (struct sockaddr *)&gm->local, sizeof(gm->local))) {
		log_msg(LOG_ERR, "cannot bind %s, the socket ptp4l answers to: %s (its directory must exist and be writable)",
			gm->local.sun_path, strerror(errno));
		goto out_close;
	}
	ptpm_req_init(&gm->req, (uint16_t)getpid());
	gm->req.domain = cfg->domain;
	gm->req.boundary_hops = 0;
	return gm;

out_close:
	close(gm->fd);
out_free:
	free(gm);
	return NULL;
}

void ptp4l_gm_close(struct ptp4l_gm *gm)
{
	if (!gm)
		return;
	close(gm->fd);
	unlink(gm->local.sun_path);
	free(gm);
}

bool ptp4l_gm_acked(const struct ptp4l_gm *gm, struct ptpm_gm_settings *s)
{
	if (gm->have_acked)
		*s = gm->acked;
	return gm->have_acked;
}

static void gm_format(char *buf, size_t size, const struct ptpm_gm_settings *s)
{
	snprintf(buf, size,
		 "clockClass %u clockAccuracy 0x%02x offsetScaledLogVariance 0x%04x currentUtcOffset %d%s%s%s%s%s%s timeSource 0x%02x",
		 s->clock_class, s->clock_accuracy, s->offset_scaled_log_variance,
		 s->utc_offset,
		 s->time_flags & PTPM_UTC_OFF_VALID ? " utcOffsetValid" : "",
		 s->time_flags & PTPM_LEAP_61 ? " leap61" : "",
		 s->time_flags & PTPM_LEAP_59 ? " leap59" : "",
		 s->time_flags & PTPM_PTP_TIMESCALE ? " ptpTimescale" : "",
		 s->time_flags & PTPM_TIME_TRACEABLE ? " timeTraceable" : "",
		 s->time_flags & PTPM_FREQ_TRACEABLE ? " frequencyTraceable" : "",
		 s->time_source);
}

/* One datagram from ptp4l: is it the answer to our outstanding SET? */
static void gm_answer(struct ptp4l_gm *gm, const uint8_t *buf, size_t len,
		      int64_t now_ns)
{
	struct ptpm_gm_settings s;
	struct ptpm_msg m;
	char txt[256];

	if (ptpm_decode(buf, len, &m) || m.action != PTPM_RESPONSE ||
	    m.id != PTPM_ID_GRANDMASTER_SETTINGS_NP || !gm->outstanding ||
	    m.seq != (uint16_t)(gm->req.seq - 1))
		return;		/* late, or someone else's business */
	gm->outstanding = false;
	if (gm->silent)
		log_msg(LOG_NOTICE, "ptp4l at %s answers again",
			gm->server.sun_path);
	gm->silent = false;
	if (m.tlv_type == PTPM_TLV_MANAGEMENT_ERROR_STATUS) {
		if (!gm->refused)
			log_msg(LOG_WARNING, "ptp4l at %s refused SET GRANDMASTER_SETTINGS_NP: %s (0x%04x)%s; trying again each second",
				gm->server.sun_path, ptpm_error_name(m.error), m.error,
				m.error == PTPM_ERR_NOT_SUPPORTED ?
				" (ptp4l takes a SET only on its UNIX socket, uds_address)" : "");
		gm->refused = true;
		return;
	}
	gm->refused = false;
	if (ptpm_decode_gm_settings(m.data, m.data_len, &s) ||
	    !ptpm_gm_settings_eq(&s, &gm->sent)) {
		gm_format(txt, sizeof(txt), &s);
		log_msg(LOG_WARNING, "ptp4l at %s answered with other settings than sent (%s); sending again",
			gm->server.sun_path, txt);
		return;
	}
	if (!gm->have_acked || !ptpm_gm_settings_eq(&s, &gm->acked)) {
		gm_format(txt, sizeof(txt), &s);
		log_msg(LOG_INFO, "ptp4l at %s announces %s",
			gm->server.sun_path, txt);
	}
	gm->acked = s;
	gm->have_acked = true;
	gm->acked_ns = now_ns;
}

static void gm_read(struct ptp4l_gm *gm, int64_t now_ns)
{
	uint8_t buf[PTPM_MAX_LEN * 2];
	ssize_t n;

	while ((n = recv(gm->fd, buf, sizeof(buf), 0)) >= 0)
		gm_answer(gm, buf, (size_t)n, now_ns);
}

static void gm_send(struct ptp4l_gm *gm, const struct ptpm_gm_settings *s,
		    int64_t now_ns)
{
	uint8_t buf[PTPM_MAX_LEN];
	struct pollfd pfd = { .fd = gm->fd, .events = POLLIN };
	size_t n;

	n = ptpm_encode_gm_settings(buf, sizeof(buf), &gm->req, s);
	gm->req.seq++;
	gm->sent = *s;
	gm->sent_ns = now_ns;
	if (!gm->outstanding)
		gm->first_unanswered_ns = now_ns;
	gm->outstanding = true;
	if (sendto(gm->fd, buf, n, 0, (struct sockaddr *)&gm->server,
		   sizeof(gm->server)) < 0) {
		if (errno != gm->send_errno)
			log_msg(LOG_WARNING, "cannot reach ptp4l at %s: %s (is ptp4l running with uds_address %s?); trying again each second",
				gm->server.sun_path, strerror(errno), gm->server.sun_path);
		gm->send_errno = errno;
		return;
	}
	if (gm->send_errno)
		log_msg(LOG_NOTICE, "ptp4l at %s is reachable again",
			gm->server.sun_path);
	gm->send_errno = 0;
	/* ptp4l answers at once: wait a little, so the ack is seen now. */
	if (poll(&pfd, 1, GM_WAIT_MS) > 0)
		gm_read(gm, now_ns);
}

void ptp4l_gm_update(struct ptp4l_gm *gm, const struct gmp_input *in,
		     int64_t now_ns)
{
	struct ptpm_gm_settings want;
	bool due;

	gm_read(gm, now_ns);
	gmp_map(&gm->cfg, in, &want);
	if (gm->outstanding && !gm->silent && !gm->send_errno &&
	    now_ns - gm->first_unanswered_ns >= GM_SILENT_NS) {
		log_msg(LOG_WARNING, "ptp4l at %s has not answered for %lld s: is its domainNumber %u (set domain= in --ptp4l-gm otherwise)?",
			gm->server.sun_path,
			(long long)((now_ns - gm->first_unanswered_ns) / NS_PER_SEC),
			gm->cfg.domain);
		gm->silent = true;
	}
	due = !gm->have_acked || !ptpm_gm_settings_eq(&want, &gm->acked) ||
	      now_ns - gm->acked_ns >= (int64_t)gm->cfg.refresh_s * NS_PER_SEC;
	if (!due)
		return;
	/* A change goes out at once; the same settings once a second. */
	if (gm->outstanding && ptpm_gm_settings_eq(&want, &gm->sent) &&
	    now_ns - gm->sent_ns < GM_RETRY_NS)
		return;
	gm_send(gm, &want, now_ns);
}

static int64_t gm_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

void ptp4l_gm_servo(struct ptp4l_gm *gm, const struct servo_status *sv)
{
	struct gmp_input in = { 0 };

	if (!sv || !servo_status_has(sv, GPSPHC_A_SERVO_STATE))
		return;
	in.state = (int)sv->state;
	in.coarse = sv->coarse;
	in.holdover_s = sv->holdover_s;
	in.tai_utc = sv->tai_utc;
	in.leap = servo_status_has(sv, GPSPHC_A_SERVO_LEAP) ?
		  (int)sv->leap : GPSPHC_LEAP_NONE;
	in.leap_utc = (int64_t)sv->leap_utc;
	in.now_utc = gm_clock_ns(CLOCK_REALTIME) / NS_PER_SEC;
	ptp4l_gm_update(gm, &in, gm_clock_ns(CLOCK_MONOTONIC));
}
