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

#include "state.h"

int state_load(const char *path, int64_t *tai)
{
	char line[128];
	int found = 0, ver = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		if (errno == ENOENT)
			return -ENOENT;
		fprintf(stderr, "gpsphcd: cannot open state file %s: %s; check its permissions or remove it\n",
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
		fprintf(stderr, "gpsphcd: state file %s is not a version 1 state file with last_good_tai; ignoring it (remove it to silence this)\n",
			path);
		return -EINVAL;
	}
	return 0;
}

int state_save(const char *path, int64_t tai, const char *utc_text)
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
		fprintf(stderr, "gpsphcd: cannot write state file %s: %s; check the directory's permissions\n",
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
	if (fclose(f)) {
		ret = -errno;
		goto out_unlink;
	}
	if (rename(tmp, path)) {
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
	fprintf(stderr, "gpsphcd: cannot write state file %s: %s; the last-good time is not saved\n",
		path, strerror(-ret));
	unlink(tmp);
out_free:
	free(tmp);
	free(dirc);
	return ret;
}
