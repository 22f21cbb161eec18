// SPDX-License-Identifier: GPL-2.0
/*
 * attach_hold TTY [LDISC]: a minimal ldattach for shell tests: put TTY in
 * raw mode, attach the discipline, hold it until SIGTERM/SIGINT, detach.
 */
#include <signal.h>

#include "gpsphc_test.h"

static void on_signal(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	int fd, ldisc = argc > 2 ? atoi(argv[2]) : GPSPHC_LDISC;
	struct sigaction sa = { .sa_handler = on_signal };
	char path[64];
	int port;

	if (argc < 2 || sscanf(argv[1], "/dev/ttyGPSSIM%d", &port) != 1) {
		fprintf(stderr, "usage: %s /dev/ttyGPSSIMn [ldisc]\n", argv[0]);
		return 2;
	}
	fd = sim_tty_open(port, 0);
	if (fd < 0) {
		snprintf(path, sizeof(path), "%s", argv[1]);
		fprintf(stderr, "open %s: %s\n", path, strerror(-fd));
		return 1;
	}
	if (ldisc_set(fd, ldisc) < 0) {
		fprintf(stderr, "TIOCSETD %d on %s: %s\n", ldisc, argv[1], strerror(errno));
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	pause();
	ldisc_set(fd, N_TTY);
	close(fd);
	return 0;
}
