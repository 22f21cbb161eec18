// SPDX-License-Identifier: GPL-2.0
/*
 * sim_flood PORT sentences|dcd SECONDS: flood fake port PORT for a shell
 * test, as fast as the guest allows, then print how much was sent.
 *
 * sentences: 4096-byte writes to rx, each 256 sentences of 16 bytes whose
 * checksum is wrong. The fake UART delivers a 4096-byte write as one
 * chunk, so a good sentence another process writes meanwhile stays whole.
 * dcd: a DCD storm, the level toggled write after write.
 */
#include <stdbool.h>

#include "gpsphc_test.h"

#define FLOOD_CHUNK	4096
#define FLOOD_SENTENCE	"$GPXXX,1234*00\r\n"	/* 16 bytes; the sum is 67 */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char path[256], buf[FLOOD_CHUNK];
	unsigned long long n = 0;
	double end;
	bool dcd;
	int fd, port;

	if (argc != 4 || sscanf(argv[1], "%d", &port) != 1 ||
	    (strcmp(argv[2], "sentences") && strcmp(argv[2], "dcd"))) {
		fprintf(stderr, "usage: %s PORT sentences|dcd SECONDS\n", argv[0]);
		return 2;
	}
	dcd = !strcmp(argv[2], "dcd");
	end = now_s() + atof(argv[3]);
	snprintf(path, sizeof(path), SIM_DEBUGFS "/ttyGPSSIM%d/%s", port,
		 dcd ? "dcd" : "rx");
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < sizeof(buf); i += strlen(FLOOD_SENTENCE))
		memcpy(buf + i, FLOOD_SENTENCE, strlen(FLOOD_SENTENCE));
	while (now_s() < end) {
		if (dcd) {
			if (pwrite(fd, n & 1 ? "0" : "1", 1, 0) != 1)
				break;
			n++;
		} else {
			if (pwrite(fd, buf, sizeof(buf), 0) != sizeof(buf))
				break;
			n += sizeof(buf) / strlen(FLOOD_SENTENCE);
		}
	}
	if (dcd && (n & 1) && pwrite(fd, "0", 1, 0) == 1)
		n++;
	close(fd);
	printf("%llu\n", n);
	return 0;
}
