// SPDX-License-Identifier: GPL-2.0-only
/*
 * gpsphcd - userspace helper of the gpsphc PTP clock.  This file: options,
 * leap-second data, pivot, state, and the --replay driver.  Live mode
 * (attach the line discipline, netlink) plugs in at live_main() below.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leap.h"
#include "live.h"
#include "ptp4l_gm.h"
#include "status.h"
#include "pipeline.h"
#include "replay.h"
#include "state.h"
#include "timeconv.h"

#ifndef GPSPHC_BUILD_DATE
#error "the Makefile passes -DGPSPHC_BUILD_DATE=<unix seconds>"
#endif
#ifndef GPSPHC_VERSION
#error "the Makefile passes -DGPSPHC_VERSION=\"<dkms.conf's PACKAGE_VERSION>\""
#endif

#define DEFAULT_LEAPFILE	"/usr/share/zoneinfo/leap-seconds.list"
#define DEFAULT_STATE		"/var/lib/gpsphc/state"	/* live mode */
#define LEAPFILE_MAX		(1 << 20)
#define DEFAULT_LDISC		29	/* N_DEVELOPMENT, gpsphc.ko's default */

struct opts {
	const char *replay, *record, *state, *leapfile, *device;
	struct live_opts live;
	bool have_not_before;
	bool status, json;
	int64_t not_before;		/* UTC seconds */
	unsigned int guard_n;
	struct assoc_cfg assoc;
	const char *ptp4l_socket;	/* --ptp4l-socket */
	struct gmp_cfg gm;		/* --ptp4l-gm */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gpsphcd [options] --replay FILE\n"
		"       gpsphcd [options] [--record FILE] TTY    (live mode)\n"
		"       gpsphcd --status [--json]              (attached devices)\n"
		"live mode:\n"
		"  --baud N                 line speed (default: leave as set)\n"
		"  --edge rising|falling    on-time PPS edge (default: leave as set)\n"
		"  --servo on|off           off: the kernel leaves the clock to ts2phc/ptp4l\n"
		"                           and no labels are sent (default: leave as set)\n"
		"  --ldisc N                the module's line discipline (default 29)\n"
		"  --dump-events            print every kernel event as one line\n"
		"  --record FILE            write events in the --replay format\n"
		"  --ptp4l-socket PATH      keep this ptp4l's grandmaster settings in step\n"
		"                           with the servo (ptp4l's uds_address)\n"
		"  --ptp4l-gm KEY=VALUE,... profile=default|g8275a|g8275b, holdover=S,\n"
		"                           accuracy=0xNN, domain=N, ...\n"
		"                           (admin guide: gpsphc-grandmaster)\n"
		"options:\n"
		"  --not-before YYYY-MM-DD  no time before this date (raises the era pivot)\n"
		"  --state FILE             last-good time (live default " DEFAULT_STATE ";\n"
		"                           in replay only when given)\n"
		"  --leapfile FILE          IERS leap-seconds.list (default " DEFAULT_LEAPFILE ")\n"
		"  --guard N                consecutive sentences to accept a time jump (default %d)\n"
		"  --offset MS              receiver's sentence delay after its edge (default 0)\n"
		"  --window MS              association window (default %lld)\n"
		"  --margin MS              refused band around 500 ms (default %lld)\n"
		"  --version                print gpsphcd's version\n"
		"see gpsphcd(8)\n",
		GUARD_DEF_N, ASSOC_DEF_WINDOW_NS / 1000000,
		ASSOC_DEF_MARGIN_NS / 1000000);
}

static bool parse_ll(const char *s, long long lo, long long hi, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return !errno && end != s && !*end && *v >= lo && *v <= hi;
}

static bool parse_date(const char *s, int64_t *utc)
{
	struct civil c = { 0 };
	int y, m, d, n = 0;

	if (sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &n) != 3 || s[n] ||
	    strlen(s) != 10 || !civil_date_valid(y, (unsigned int)m,
						(unsigned int)d))
		return false;
	c.year = y;
	c.month = (unsigned int)m;
	c.day = (unsigned int)d;
	*utc = utc_from_civil(&c);
	return true;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	enum { O_NB = 256, O_STATE, O_LEAP, O_GUARD, O_OFF, O_WIN, O_MARGIN,
	       O_REPLAY, O_RECORD, O_BAUD, O_EDGE, O_LDISC, O_DUMP, O_STATUS,
	       O_JSON, O_SERVO, O_PTP4L, O_PTP4L_GM };
	static const struct option lo[] = {
		{ "replay", required_argument, NULL, O_REPLAY },
		{ "record", required_argument, NULL, O_RECORD },
		{ "not-before", required_argument, NULL, O_NB },
		{ "state", required_argument, NULL, O_STATE },
		{ "leapfile", required_argument, NULL, O_LEAP },
		{ "guard", required_argument, NULL, O_GUARD },
		{ "offset", required_argument, NULL, O_OFF },
		{ "window", required_argument, NULL, O_WIN },
		{ "margin", required_argument, NULL, O_MARGIN },
		{ "baud", required_argument, NULL, O_BAUD },
		{ "edge", required_argument, NULL, O_EDGE },
		{ "servo", required_argument, NULL, O_SERVO },
		{ "ptp4l-socket", required_argument, NULL, O_PTP4L },
		{ "ptp4l-gm", required_argument, NULL, O_PTP4L_GM },
		{ "ldisc", required_argument, NULL, O_LDISC },
		{ "dump-events", no_argument, NULL, O_DUMP },
		{ "status", no_argument, NULL, O_STATUS },
		{ "json", no_argument, NULL, O_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	struct gp_err e;
	long long v;
	int c;

	*o = (struct opts){ .leapfile = DEFAULT_LEAPFILE,
			    .guard_n = GUARD_DEF_N,
			    .live.ldisc = DEFAULT_LDISC };
	assoc_defaults(&o->assoc);
	gmp_defaults(&o->gm);
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_REPLAY:	o->replay = optarg; break;
		case O_RECORD:	o->record = optarg; break;
		case O_STATE:	o->state = optarg; break;
		case O_DUMP:	o->live.dump_events = true; break;
		case O_STATUS:	o->status = true; break;
		case O_JSON:	o->json = true; break;
		case O_BAUD:
			if (!live_parse_baud(optarg, &o->live.baud)) {
				fprintf(stderr, "gpsphcd: --baud \"%s\" is not a standard rate (1200..921600, e.g. 9600)\n",
					optarg);
				return 2;
			}
			break;
		case O_EDGE:
			if (!live_parse_edge(optarg, &o->live.edge)) {
				fprintf(stderr, "gpsphcd: --edge \"%s\" must be rising or falling\n",
					optarg);
				return 2;
			}
			break;
		case O_SERVO:
			if (!live_parse_servo(optarg, &o->live.servo)) {
				fprintf(stderr, "gpsphcd: --servo \"%s\" must be on (the kernel steers the clock) or off (ts2phc or ptp4l does)\n",
					optarg);
				return 2;
			}
			break;
		case O_LDISC:
			if (!parse_ll(optarg, 1, 30, &v)) {
				fprintf(stderr, "gpsphcd: --ldisc \"%s\" must be 1..30, the module's ldisc parameter (default %d)\n",
					optarg, DEFAULT_LDISC);
				return 2;
			}
			o->live.ldisc = (int)v;
			break;
		case O_LEAP:	o->leapfile = optarg; break;
		case O_PTP4L:	o->ptp4l_socket = optarg; break;
		case O_PTP4L_GM:
			if (gmp_parse(optarg, &o->gm, &e)) {
				fprintf(stderr, "gpsphcd: --ptp4l-gm: %s\n", e.msg);
				return 2;
			}
			break;
		case O_NB:
			if (!parse_date(optarg, &o->not_before)) {
				fprintf(stderr, "gpsphcd: --not-before \"%s\" is not a date YYYY-MM-DD\n",
					optarg);
				return 2;
			}
			o->have_not_before = true;
			break;
		case O_GUARD:
			if (!parse_ll(optarg, 1, 1000, &v)) {
				fprintf(stderr, "gpsphcd: --guard \"%s\" must be a whole number 1..1000 (default %d)\n",
					optarg, GUARD_DEF_N);
				return 2;
			}
			o->guard_n = (unsigned int)v;
			break;
		case O_OFF:
		case O_WIN:
		case O_MARGIN:
			if (!parse_ll(optarg, -999, 1000, &v)) {
				fprintf(stderr, "gpsphcd: %s \"%s\" must be whole milliseconds\n",
					argv[optind - 1], optarg);
				return 2;
			}
			*(c == O_OFF ? &o->assoc.offset_ns :
			  c == O_WIN ? &o->assoc.window_ns :
			  &o->assoc.margin_ns) = v * 1000000;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("gpsphcd %s\n", GPSPHC_VERSION);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (assoc_check_cfg(&o->assoc, &e)) {
		fprintf(stderr, "gpsphcd: %s\n", e.msg);
		return 2;
	}
	/* --servo changes the device it attaches to: live mode only. */
	if (o->live.servo != LIVE_SERVO_LEAVE && (o->status || o->replay)) {
		fprintf(stderr, "gpsphcd: --servo goes with live mode (gpsphcd --servo on|off TTY), not with %s\n",
			o->status ? "--status" : "--replay");
		return 2;
	}
	if (o->ptp4l_socket && (o->status || o->replay)) {
		fprintf(stderr, "gpsphcd: --ptp4l-socket goes with live mode (gpsphcd --ptp4l-socket PATH TTY), not with %s\n",
			o->status ? "--status" : "--replay");
		return 2;
	}
	if (o->status) {
		if (optind < argc || o->replay || o->record) {
			usage(stderr);
			return 2;
		}
		return 0;
	}
	if (o->json) {
		fprintf(stderr, "gpsphcd: --json goes with --status\n");
		return 2;
	}
	if (optind < argc)
		o->device = argv[optind++];
	if (optind < argc || (o->replay && (o->device || o->record)) ||
	    (!o->replay && !o->device)) {
		usage(stderr);
		return 2;
	}
	return 0;
}

/* The leap-seconds.list if it is good, else the built-in table. */
static void load_leap(const char *path, struct leap_table *t)
{
	struct leap_table list;
	struct gp_err e;
	char *buf = malloc(LEAPFILE_MAX);
	FILE *f = fopen(path, "r");
	size_t n = 0;
	char exp[32];

	leap_builtin(t);
	format_utc(exp, sizeof(exp), t->expires, false);
	if (!f || !buf) {
		fprintf(stderr, "gpsphcd: WARNING: cannot read leap-second file %s (%s): using the built-in table (expires %s); install tzdata or pass --leapfile\n",
			path, strerror(errno), exp);
		goto out;
	}
	n = fread(buf, 1, LEAPFILE_MAX, f);
	if (n == LEAPFILE_MAX || ferror(f)) {
		fprintf(stderr, "gpsphcd: WARNING: %s is not a readable leap-seconds.list (too large or read error): using the built-in table (expires %s)\n",
			path, exp);
		goto out;
	}
	if (leap_parse_list(buf, n, &list, &e)) {
		fprintf(stderr, "gpsphcd: WARNING: %s: %s. Using the built-in table (expires %s)\n",
			path, e.msg, exp);
		goto out;
	}
	if (list.expires >= t->expires)
		*t = list;
	else
		fprintf(stderr, "gpsphcd: %s expires before the built-in table (%s): using the built-in table\n",
			path, exp);
out:
	if (f)
		fclose(f);
	free(buf);
}

static void emit(void *ctx, const struct pp_label *l)
{
	(void)ctx;
	pp_print_label(stdout, l);
}

static int live_main(struct opts *o, struct pipeline *p)
{
	int ret;

	o->live.device = o->device;
	if (o->record) {
		o->live.record = fopen(o->record, "w");
		if (!o->live.record) {
			fprintf(stderr, "gpsphcd: cannot write the capture %s: %s\n",
				o->record, strerror(errno));
			return 1;
		}
	}
	if (o->ptp4l_socket) {
		o->live.gm = ptp4l_gm_open(o->ptp4l_socket, NULL, &o->gm);
		if (!o->live.gm)
			return 1;
	}
	ret = live_run(&o->live, p);
	ptp4l_gm_close(o->live.gm);
	if (o->live.record && fclose(o->live.record)) {
		fprintf(stderr, "gpsphcd: writing the capture %s failed: %s\n",
			o->record, strerror(errno));
		ret = 1;
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct leap_table leap;
	struct pipeline p;
	struct era_floor floor;
	const char *state;
	FILE *in;
	int ret;

	if ((ret = parse_opts(argc, argv, &o)))
		return ret;
	if (o.status)
		return status_run(stdout, o.json);
	load_leap(o.leapfile, &leap);
	state = o.state ? o.state : o.replay ? NULL : DEFAULT_STATE;
	state_floor(state, &leap, GPSPHC_BUILD_DATE,
		    o.have_not_before ? &o.not_before : NULL, o.replay != NULL,
		    &floor);
	pipeline_init(&p, &floor, &leap, &o.assoc, o.guard_n, emit, NULL);
	if (!o.replay) {
		o.live.state = state;
		return live_main(&o, &p);
	}

	in = strcmp(o.replay, "-") ? fopen(o.replay, "r") : stdin;
	if (!in) {
		fprintf(stderr, "gpsphcd: cannot open capture %s: %s\n",
			o.replay, strerror(errno));
		return 1;
	}
	ret = replay_run(in, o.replay, &p);
	if (in != stdin)
		fclose(in);
	fprintf(stderr, "gpsphcd: replay of %s: %lu edges labelled (%lu of them sentences, coarse mode), %lu held by the guard, %lu refused before the pivot\n",
		o.replay, p.labels, p.coarse_labels, p.held, p.rejected);
	if (state && state_save_last_good(state, &p, true) < 0)
		ret = -1;
	if (fflush(stdout)) {
		fprintf(stderr, "gpsphcd: writing labels: %s\n", strerror(errno));
		return 1;
	}
	return ret ? 1 : 0;
}
