// SPDX-License-Identifier: GPL-2.0-only
/* live_sd.c - live mode and the service manager: see live_sd.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "live_sd.h"
#include "log.h"
#include "names.h"

void live_sd_status(const char *more, const char *tty_name, uint32_t dev_id,
		    uint32_t ptp_index, uint32_t servo_state, bool off_phase)
{
	sd_notifyf(0, "%sSTATUS=%s is gpsphc%" PRIu32 ", /dev/ptp%" PRIu32 ": servo %s%s",
		   more, tty_name, dev_id, ptp_index,
		   gp_enum_name(GP_ENUM_SERVO_STATE, servo_state),
		   off_phase ? ", pulses off its phase" : "");
}

void live_sd_stopping(void)
{
	sd_notify(0, "STOPPING=1");
}

int live_sd_stored_tty(const char *path, int keep)
{
	char **names = NULL;
	struct stat want, st;
	int n, i, fd = -1;

	n = sd_listen_fds_with_names(1, &names);
	if (n <= 0)
		return -1;
	if (stat(path, &want))
		want.st_rdev = 0;
	for (i = 0; i < n; i++) {
		int f = SD_LISTEN_FDS_START + i;
		bool tty = names && names[i] && !strcmp(names[i], "tty");

		if (f == keep)
			continue;
		if (fd < 0 && tty && !fstat(f, &st) && S_ISCHR(st.st_mode) &&
		    st.st_rdev == want.st_rdev) {
			fd = f;
			continue;
		}
		if (tty) {
			log_msg(LOG_NOTICE, "the tty kept in the file descriptor store is not %s (any more): released",
				path);
			live_sd_unstore();
		}
		close(f);
	}
	for (i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
	return fd;
}

bool live_sd_store(int fd)
{
	return sd_pid_notify_with_fds(0, 0, "FDSTORE=1\nFDNAME=tty", &fd, 1) > 0;
}

void live_sd_unstore(void)
{
	sd_notify(0, "FDSTOREREMOVE=1\nFDNAME=tty");
}
