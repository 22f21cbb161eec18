// SPDX-License-Identifier: GPL-2.0-only
/*
 * gm_drive.c - gpsphcd's ptp4l client (ptp4l_gm.c) driven from stdin,
 * for the test against a real ptp4l (tools/testing/host/ptp4l_gm_test.sh),
 * where no kernel module feeds it.
 *
 *   gm_drive SERVER LOCAL [--ptp4l-gm options]
 *
 * Each input line is one servo status, sent until ptp4l acknowledges it:
 *   STATE HOLDOVER_S TAI_UTC LEAP LEAP_UTC NOW_UTC [coarse]
 *     STATE unlocked|locking|locked|holdover|off, LEAP none|insert|delete
 *   -> "acked class=6 accuracy=0x23 variance=0x4e5d utc_offset=37
 *       flags=0x3c source=0x20", or "timeout" (exit 1) after 20 s
 * or "hold SECONDS": keep the last status, one update a second (refresh
 * and retries), then "held" with the settings acknowledged last.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gmprop.h"
#include "../ptp4l_gm.h"

#define NS	1000000000LL

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NS + ts.tv_nsec;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static int lookup(const char *s, const char *const *names, int n)
{
	int i;

	for (i = 1; i < n; i++)
		if (names[i] && !strcmp(s, names[i]))
			return i;
	return 0;
}

static void print_settings(const char *what, const struct ptpm_gm_settings *s)
{
	printf("%s class=%u accuracy=0x%02x variance=0x%04x utc_offset=%d flags=0x%02x source=0x%02x\n",
	       what, s->clock_class, s->clock_accuracy,
	       s->offset_scaled_log_variance, s->utc_offset, s->time_flags,
	       s->time_source);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const char *const states[] = {
		NULL, "unlocked", "locking", "locked", "holdover", "off",
	};
	static const char *const leaps[] = { NULL, "none", "insert", "delete" };
	struct gmp_input in = { .state = GPSPHC_SERVO_UNLOCKED, .leap = GPSPHC_LEAP_NONE };
	struct ptpm_gm_settings want, got;
	struct ptp4l_gm *gm;
	struct gmp_cfg cfg;
	struct gp_err e;
	char line[256];

	gmp_defaults(&cfg);
	if (argc < 3 || argc > 4 || (argc == 4 && gmp_parse(argv[3], &cfg, &e))) {
		fprintf(stderr, "usage: gm_drive SERVER LOCAL [KEY=VALUE,...] %s\n",
			argc == 4 ? e.msg : "");
		return 2;
	}
	gm = ptp4l_gm_open(argv[1], argv[2], &cfg);
	if (!gm)
		return 1;
	while (fgets(line, sizeof(line), stdin)) {
		char st[16], lp[16], co[16] = "";
		unsigned long long hold;
		long long leap_utc, now_utc;
		unsigned int tai_utc;
		int64_t end;
		int secs;

		if (sscanf(line, "hold %d", &secs) == 1) {
			for (end = mono_ns() + secs * NS; mono_ns() < end; nap_ms(1000))
				ptp4l_gm_update(gm, &in, mono_ns());
			if (!ptp4l_gm_acked(gm, &got))
				memset(&got, 0, sizeof(got));
			print_settings("held", &got);
			continue;
		}
		if (sscanf(line, "%15s %llu %u %15s %lld %lld %15s", st, &hold,
			   &tai_utc, lp, &leap_utc, &now_utc, co) < 6 ||
		    !lookup(st, states, 6) || !lookup(lp, leaps, 4)) {
			fprintf(stderr, "gm_drive: cannot read \"%s\"\n", line);
			continue;
		}
		in = (struct gmp_input){
			.state = lookup(st, states, 6), .holdover_s = hold,
			.tai_utc = tai_utc, .leap = lookup(lp, leaps, 4),
			.leap_utc = leap_utc, .now_utc = now_utc,
			.coarse = !strcmp(co, "coarse"),
		};
		gmp_map(&cfg, &in, &want);
		for (end = mono_ns() + 20 * NS; mono_ns() < end; nap_ms(200)) {
			ptp4l_gm_update(gm, &in, mono_ns());
			if (ptp4l_gm_acked(gm, &got) && ptpm_gm_settings_eq(&got, &want))
				break;
		}
		if (!ptp4l_gm_acked(gm, &got) || !ptpm_gm_settings_eq(&got, &want)) {
			printf("timeout\n");
			ptp4l_gm_close(gm);
			return 1;
		}
		print_settings("acked", &got);
	}
	ptp4l_gm_close(gm);
	return 0;
}
