// SPDX-License-Identifier: GPL-2.0-only
/* state.c - persisted last-good time.  See state.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "state.h"
#include "timeconv.h"

#define YEARS(secs)	((double)(secs) / (365.2425 * SECS_PER_DAY))

/*
 * 0 and *tai set; -ENOENT if there is no file; other -errno with a
 * message already printed.
 */
static int state_load(const char *path, int64_t *tai)
{
	char line[128];
	int found = 0, ver = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		if (errno == ENOENT)
			return -ENOENT;
		log_msg(LOG_WARNING, "cannot open state file %s: %s; check its permissions or remove it",
			path, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		long long v;

		if (sscanf(line, "gpsphcd-state %d", &ver) == 1)
			continue;
		if (sscanf(line, "last_good_tai %lld", &v) == 1) {
			*tai = v;
			found = 1;
		}
	}
	fclose(f);
	if (ver != 1 || !found) {
		log_msg(LOG_WARNING, "state file %s is not a version 1 state file with last_good_tai; ignoring it (remove it to silence this)",
			path);
		return -EINVAL;
	}
	return 0;
}

static int state_save(const char *path, int64_t tai, const char *utc_text)
{
	size_t n = strlen(path) + 16;
	char *tmp = malloc(n), *dirc = strdup(path);
	int fd = -1, dfd, ret = 0;
	FILE *f;

	if (!tmp || !dirc) {
		ret = -ENOMEM;
		goto out_free;
	}
	snprintf(tmp, n, "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		log_msg(LOG_ERR, "cannot write state file %s: %s; check the directory's permissions",
			tmp, strerror(errno));
		goto out_free;
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto out_unlink;
	}
	fprintf(f, "gpsphcd-state 1\nlast_good_tai %" PRId64 "\nlast_good_utc %s\n",
		tai, utc_text);
	if (fflush(f) || fsync(fd)) {
		ret = -errno;
		fclose(f);
		goto out_unlink;
	}
	if (fclose(f) || rename(tmp, path)) {
		ret = -errno;
		goto out_unlink;
	}
	dfd = open(dirname(dirc), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	goto out_free;
out_unlink:
	log_msg(LOG_ERR, "cannot write state file %s: %s; the last-good time is not saved",
		path, strerror(-ret));
	unlink(tmp);
out_free:
	free(tmp);
	free(dirc);
	return ret;
}

void state_floor(const char *path, const struct leap_table *leap,
		 int64_t build, const int64_t *not_before, bool replay,
		 struct era_floor *f)
{
	struct era_evidence ev = {
		.have_build = !(replay && not_before),
		.build = build,
		.have_not_before = not_before != NULL,
		.not_before = not_before ? *not_before : 0,
	};
	char saved[32], anchor[32];
	int64_t tai = 0, at;
	bool s60 = false;
	int off;

	if (path && !state_load(path, &tai)) {
		leap_utc_from_tai(leap, tai, &ev.state, &s60, &off);
		ev.have_state = true;
	}
	era_choose_floor(&ev, f);
	if (f->state != ERA_STATE_AHEAD)
		return;
	at = f->state_max - ERA_STATE_BELIEVED;
	format_utc(saved, sizeof(saved), ev.state, s60);
	format_utc(anchor, sizeof(anchor), at, false);
	log_msg(LOG_WARNING, "state file %s says the last good time was %s, %.1f years after %s %s: not believed, a saved time counts only up to %lld weeks (%.1f years) after it. An older gpsphcd could save a time 1024 weeks ahead of an honest receiver: if the receiver's time is right, nothing to do, the file is rewritten once the labels have been consistent for %d minutes (or delete it now). If %s is the real date, this gpsphcd is too old to resolve GPS week rollovers by itself: update it, or pass --not-before YYYY-MM-DD.",
		path, saved, YEARS(ev.state - at),
		ev.have_build && at == build ? "the build date" : "--not-before",
		anchor, (long long)(ERA_STATE_BELIEVED / SECS_PER_WEEK),
		YEARS(ERA_STATE_BELIEVED), PP_TRUST_S / 60, saved);
}

int state_save_last_good(const char *path, const struct pipeline *p,
			 bool say)
{
	char utc[32];
	int64_t u;
	bool s60;
	int off;

	if (!p->have_last_good) {
		if (say)
			log_msg(LOG_INFO, "state file %s not written: the labels were consistent for %" PRId64 " s, a time is saved only after %" PRId64 " s",
				path, pipeline_run_secs(p), p->trust_s);
		return 1;
	}
	leap_utc_from_tai(&p->leap, p->last_good_tai, &u, &s60, &off);
	format_utc(utc, sizeof(utc), u, s60);
	return state_save(path, p->last_good_tai, utc);
}
