// SPDX-License-Identifier: GPL-2.0-only
/*
 * gen_capture.c - write a capture (the --replay format) of a receiver at a
 * given UTC time, or the labels gpsphcd should print for it.
 *
 *   gen_capture [-b WEEKS] [-e] START SECONDS
 *
 * START: UTC seconds of the first edge; SECONDS: how many edges, one a
 * second, the first at 1000 s of CLOCK_MONOTONIC_RAW.  Each edge is
 * followed by $GPRMC (50 ms) and $GPGGA (80 ms), as a u-blox sends them.
 * -b WEEKS: the receiver has the rollover bug and reports dates WEEKS
 * weeks early.  -e: print the true labels, "<edge ns> <PTP s> <UTC>
 * <TAI-UTC>", with the built-in leap table, instead of the capture.
 * For the long replay tests (the state file wants 15 minutes of labels).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leap.h"
#include "sentences.h"
#include "timeconv.h"

#define EDGE0_NS	1000000000000LL

static int usage(void)
{
	fprintf(stderr, "usage: gen_capture [-b WEEKS] [-e] START_UTC SECONDS\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct leap_table lt;
	long long start, count, behind = 0;
	bool expected = false;
	char s[NMEA_MAX_LEN], utc[32];
	int c;

	while ((c = getopt(argc, argv, "b:e")) != -1) {
		switch (c) {
		case 'b':
			behind = atoll(optarg);
			break;
		case 'e':
			expected = true;
			break;
		default:
			return usage();
		}
	}
	if (argc - optind != 2)
		return usage();
	start = atoll(argv[optind]);
	count = atoll(argv[optind + 1]);
	leap_builtin(&lt);
	if (!expected)
		printf("# gen_capture -b %lld %lld %lld: %lld s from UTC %lld, dates %lld weeks early\n",
		       behind, start, count, count, start, behind);
	for (long long k = 0; k < count; k++) {
		int64_t t = start + k, edge = EDGE0_NS + k * 1000000000LL;
		int64_t r = t - behind * SECS_PER_WEEK;
		int off = leap_offset(&lt, t);

		if (expected) {
			format_utc(utc, sizeof(utc), t, false);
			printf("%lld %lld %s %d\n", (long long)edge,
			       (long long)(t + off), utc, off);
			continue;
		}
		printf("P %lld\n", (long long)edge);
		gen_rmc(s, sizeof(s), "GP", r, false);
		printf("S %lld %s\n", (long long)edge + 50000000, s);
		sentence(s, sizeof(s),
			 "GPGGA,%02lld%02lld%02lld.00,4717.11399,N,00833.91590,E,1,08,1.01,499.6,M,48.0,M,,",
			 (long long)floor_mod(r, SECS_PER_DAY) / 3600,
			 (long long)floor_mod(r, 3600) / 60,
			 (long long)floor_mod(r, 60));
		printf("S %lld %s\n", (long long)edge + 80000000, s);
	}
	return ferror(stdout) ? 1 : 0;
}
