// SPDX-License-Identifier: GPL-2.0-only
/* metrics_file.c - gpsphcd's Prometheus textfile: see metrics_file.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netlink/attr.h>

#include "linux/gpsphc.h"
#include "log.h"
#include "metrics_file.h"
#include "names.h"

#define NS_PER_S	1000000000LL

static uint64_t u64_or0(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static uint32_t u32_or0(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

void metrics_from_dev(struct nlattr **tb, const struct servo_status *sv,
		      struct gp_metrics_dev *d)
{
	struct nlattr *st[GPSPHC_A_STATS_MAX + 1] = { 0 };
	unsigned int i;

	if (tb[GPSPHC_A_DEV_STATS])
		nla_parse_nested(st, GPSPHC_A_STATS_MAX, tb[GPSPHC_A_DEV_STATS], NULL);
	d->id = u32_or0(tb[GPSPHC_A_DEV_ID]);
	d->ptp_index = u32_or0(tb[GPSPHC_A_DEV_PTP_INDEX]);
	d->pps_index = u32_or0(tb[GPSPHC_A_DEV_PPS_INDEX]);
	d->state = sv->state;
	d->coarse = sv->coarse;
	d->offset_ns = sv->offset_ns;
	d->rms_ns = sv->rms_ns;
	d->freq_ppb = sv->freq_ppb;
	d->tai_utc = sv->tai_utc;
	d->leap = sv->leap;
	d->leap_utc = sv->leap_utc;
	d->holdover_s = sv->holdover_s;
	d->off_phase_count = sv->off_phase_count;
	d->off_phase_ns = sv->off_phase_ns;
	/* the counters by attribute (names.h has their keys), 0 elsewhere */
	for (i = 0; i <= GPSPHC_A_SERVO_MAX; i++)
		d->servo[i] = sv->counters[i];
	for (i = 0; i <= GPSPHC_A_STATS_MAX; i++)
		d->stats[i] = gp_stats_key(i) ? u64_or0(st[i]) : 0;
}

int metrics_write(const char *path, const struct gp_metrics_dev *d)
{
	size_t len = gp_metrics_render(NULL, 0, d, 1);
	char tmp[PATH_MAX], *text = malloc(len + 1);
	int fd = -1, err;
	ssize_t n;

	if (!text)
		return -1;
	gp_metrics_render(text, len + 1, d, 1);
	/* PATH.tmp: the same directory, so rename() replaces PATH at once;
	 * node_exporter reads only *.prom, so never this half-written one. */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	/* node_exporter runs as another user: readable whatever the umask */
	if (fd < 0 || fchmod(fd, 0644))
		goto fail;
	n = write(fd, text, len);
	if (n < 0 || (size_t)n != len) {
		if (n >= 0)
			errno = ENOSPC;
		goto fail;
	}
	if (close(fd)) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path))
		goto fail;
	free(text);
	return 0;
fail:
	err = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(text);
	errno = err;
	return -1;
}

int metrics_out_tick(struct metrics_out *m, int64_t now_ns)
{
	if (!m->path || !m->have_dev || now_ns < m->next_ns)
		return 0;
	m->next_ns = now_ns + (int64_t)m->interval_s * NS_PER_S;
	if (metrics_write(m->path, &m->dev)) {
		if (!m->failing)
			log_msg(LOG_ERR, "cannot write the metrics file %s: %s; %s",
				m->path, strerror(errno),
				errno == ENOENT ? "create its directory (apt-get install prometheus-node-exporter makes /var/lib/prometheus/node-exporter), or set another metrics path" :
				errno == EROFS || errno == EACCES || errno == EPERM ?
				"the service may write only below /var/lib/prometheus/node-exporter (ReadWritePaths= in gpsphcd@.service): put it there, or add its directory with systemctl edit" :
				"trying again every interval");
		m->failing = true;
		return -1;
	}
	if (m->failing)
		log_msg(LOG_NOTICE, "the metrics file %s is written again", m->path);
	m->failing = false;
	return 0;
}

void metrics_out_close(struct metrics_out *m)
{
	if (m->path && unlink(m->path) && errno != ENOENT)
		log_msg(LOG_WARNING, "cannot remove the metrics file %s: %s; its series stay until it is removed",
			m->path, strerror(errno));
}
