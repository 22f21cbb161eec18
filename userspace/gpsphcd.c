// SPDX-License-Identifier: GPL-2.0-only
/*
 * gpsphcd - userspace helper of the gpsphc PTP clock.  This file: options,
 * leap-second data, pivot, state, and the --replay driver.  Live mode
 * (attach the line discipline, netlink) plugs in at live_main() below.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf.h"
#include "leap.h"
#include "live.h"
#include "log.h"
#include "nmea_pty.h"
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
	const char *replay, *record, *state, *leapfile, *device, *config;
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
		"  --config FILE            settings of this receiver, gpsphc.conf(5);\n"
		"                           options given here override the file's\n"
		"  --baud N                 line speed (default: leave as set)\n"
		"  --edge rising|falling    on-time PPS edge (default: leave as set)\n"
		"  --pps-gpio LINE          PPS from a GPIO line, not DCD: CHIP:OFFSET, a line\n"
		"                           name (GPIO18) or none (default: leave as set)\n"
		"  --servo on|off           off: the kernel leaves the clock to ts2phc/ptp4l\n"
		"                           and no labels are sent (default: leave as set)\n"
		"  --clock-servo bank|pi    the kernel servo's estimator (default: leave as set)\n"
		"  --scale tai|utc          the PTP clock's timescale (default: leave as set)\n"
		"  --step-ns N, --confirm-n N, --rx-latency-ns N\n"
		"                           the kernel's settings of the same names\n"
		"                           (default: leave as set)\n"
		"  --ldisc N                the module's line discipline (default 29)\n"
		"  --print-labels           print each label on stdout (one line a second)\n"
		"  --dump-events            print every kernel event as one line\n"
		"  --record FILE            write events in the --replay format\n"
		"  --nmea-pty PATH          republish the sentences on a pseudo-terminal,\n"
		"                           PATH a symlink to it (for gpsd)\n"
		"  --metrics PATH           write Prometheus metrics to PATH (*.prom) for\n"
		"                           node_exporter's textfile collector\n"
		"  --metrics-interval S     how often (default %d s)\n"
		"  --ptp4l-socket PATH      keep this ptp4l's grandmaster settings in step\n"
		"                           with the servo (ptp4l's uds_address)\n"
		"  --ptp4l-gm KEY=VALUE,... profile=default|g8275a|g8275b, holdover=S,\n"
		"                           accuracy=0xNN, domain=N, ...\n"
		"                           (admin guide: gpsphc-grandmaster)\n"
		"options:\n"
		"  -q, --quiet              only warnings and errors on stderr\n"
		"  -v, --verbose            debug messages too (each label sent)\n"
		"  --not-before YYYY-MM-DD  no time before this date (raises the era pivot)\n"
		"  --state FILE             last-good time (live default " DEFAULT_STATE ";\n"
		"                           in replay only when given)\n"
		"  --leapfile FILE          IERS leap-seconds.list (default " DEFAULT_LEAPFILE ")\n"
		"  --guard N                consecutive sentences to accept a time jump (default %d)\n"
		"  --offset MS              receiver's sentence delay after its edge (default 0)\n"
		"  --window MS              association window (default %lld)\n"
		"  --margin MS              refused band around 500 ms (default %lld)\n"
		"  --trust-s N              seconds of consistent labels before a time is\n"
		"                           saved to the state file (default %d)\n"
		"  --version                print gpsphcd's version\n"
		"see gpsphcd(8) and gpsphc.conf(5)\n",
		CONF_METRICS_INTERVAL_DEF, GUARD_DEF_N, ASSOC_DEF_WINDOW_NS / 1000000,
		ASSOC_DEF_MARGIN_NS / 1000000, PP_TRUST_S);
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
	int y, m, d, n = 0;

	if (sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &n) != 3 || s[n] ||
	    strlen(s) != 10 || !civil_date_valid(y, (unsigned int)m,
						(unsigned int)d))
		return false;
	*utc = days_from_civil(y, (unsigned int)m, (unsigned int)d) * SECS_PER_DAY;
	return true;
}

#define CONF_FILE_MAX	(64 * 1024)

/*
 * The whole of the file @path, at most @max bytes, into *@buf (to free,
 * NUL-terminated): its length, or -1 with errno (EFBIG: over @max).
 */
static ssize_t read_whole(const char *path, size_t max, char **buf)
{
	FILE *f;
	size_t n;
	int err;

	*buf = malloc(max + 1);
	if (!*buf)
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(*buf, 1, max + 1, f);
	err = ferror(f) ? errno : n > max ? EFBIG : 0;
	fclose(f);
	(*buf)[n > max ? max : n] = '\0';
	errno = err;
	return err ? -1 : (ssize_t)n;
}

/*
 * Read the configuration file @path into @c: 0, or 2 (the usage exit
 * status) after saying what is wrong with it. A missing file is no error:
 * the service names one per tty whether the admin wrote it or not.
 */
static int read_config(const char *path, struct conf *c)
{
	char *buf;
	ssize_t n = read_whole(path, CONF_FILE_MAX, &buf);
	struct gp_err e;
	int ret = 2;

	*c = (struct conf){ 0 };
	if (n < 0 && errno == ENOENT) {
		log_msg(LOG_INFO, "no configuration file %s: the command line and the defaults apply (see gpsphc.conf(5))",
			path);
		ret = 0;
	} else if (n < 0 && errno == EFBIG) {
		log_msg(LOG_ERR, "%s is over %d bytes: not a gpsphc.conf(5) file",
			path, CONF_FILE_MAX);
	} else if (n < 0) {
		log_msg(LOG_ERR, "cannot read the configuration file %s: %s%s",
			path, strerror(errno), errno == EACCES ?
			"; fix its permissions, or remove it to use the defaults" : "");
	} else if (conf_parse(buf, (size_t)n, c, &e)) {
		/* "line N: ..." becomes "FILE:N: ..." */
		log_msg(LOG_ERR, "%s:%s", path, e.msg + strlen("line "));
	} else {
		ret = 0;
	}
	free(buf);
	return ret;
}

/* The settings of @c that go to the association and the guard. */
static int apply_conf(const struct conf *c, struct opts *o)
{
	struct gp_err e;

	if (c->set & (1u << CONF_OFFSET))
		o->assoc.offset_ns = c->offset_ns;
	if (c->set & (1u << CONF_WINDOW))
		o->assoc.window_ns = c->window_ns;
	if (c->set & (1u << CONF_MARGIN))
		o->assoc.margin_ns = c->margin_ns;
	if (c->set & (1u << CONF_GUARD))
		o->guard_n = c->guard;
	o->live.conf = *c;
	if (assoc_check_cfg(&o->assoc, &e)) {
		log_msg(LOG_ERR, "%s", e.msg);
		return 2;
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	enum { O_NB = 256, O_STATE, O_LEAP, O_REPLAY, O_RECORD, O_LDISC,
	       O_DUMP, O_STATUS, O_JSON, O_CONFIG, O_LABELS, O_PTP4L,
	       O_PTP4L_GM, O_CONF = 512 /* + enum conf_key */ };
	static const struct option lo[] = {
		{ "replay", required_argument, NULL, O_REPLAY },
		{ "record", required_argument, NULL, O_RECORD },
		{ "not-before", required_argument, NULL, O_NB },
		{ "state", required_argument, NULL, O_STATE },
		{ "leapfile", required_argument, NULL, O_LEAP },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "guard", required_argument, NULL, O_CONF + CONF_GUARD },
		{ "offset", required_argument, NULL, O_CONF + CONF_OFFSET },
		{ "window", required_argument, NULL, O_CONF + CONF_WINDOW },
		{ "margin", required_argument, NULL, O_CONF + CONF_MARGIN },
		{ "baud", required_argument, NULL, O_CONF + CONF_BAUD },
		{ "edge", required_argument, NULL, O_CONF + CONF_EDGE },
		{ "pps-gpio", required_argument, NULL, O_CONF + CONF_PPS_GPIO },
		{ "servo", required_argument, NULL, O_CONF + CONF_SERVO },
		{ "clock-servo", required_argument, NULL, O_CONF + CONF_CLOCK_SERVO },
		{ "scale", required_argument, NULL, O_CONF + CONF_SCALE },
		{ "step-ns", required_argument, NULL, O_CONF + CONF_STEP_NS },
		{ "confirm-n", required_argument, NULL, O_CONF + CONF_CONFIRM_N },
		{ "rx-latency-ns", required_argument, NULL, O_CONF + CONF_RX_LATENCY_NS },
		{ "nmea-pty", required_argument, NULL, O_CONF + CONF_NMEA_PTY },
		{ "trust-s", required_argument, NULL, O_CONF + CONF_TRUST_S },
		{ "metrics", required_argument, NULL, O_CONF + CONF_METRICS },
		{ "metrics-interval", required_argument, NULL, O_CONF + CONF_METRICS_INTERVAL },
		{ "ptp4l-socket", required_argument, NULL, O_PTP4L },
		{ "ptp4l-gm", required_argument, NULL, O_PTP4L_GM },
		{ "ldisc", required_argument, NULL, O_LDISC },
		{ "print-labels", no_argument, NULL, O_LABELS },
		{ "dump-events", no_argument, NULL, O_DUMP },
		{ "status", no_argument, NULL, O_STATUS },
		{ "json", no_argument, NULL, O_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	struct conf cli = { 0 }, file;
	const char *live_only;
	struct gp_err e;
	int c, idx, prio = LOG_INFO, ret;
	long long v;

	*o = (struct opts){ .leapfile = DEFAULT_LEAPFILE,
			    .guard_n = GUARD_DEF_N,
			    .live.ldisc = DEFAULT_LDISC };
	assoc_defaults(&o->assoc);
	gmp_defaults(&o->gm);
	while ((c = getopt_long(argc, argv, "hqv", lo, &idx)) != -1) {
		switch (c) {
		case O_REPLAY:	o->replay = optarg; break;
		case O_RECORD:	o->record = optarg; break;
		case O_STATE:	o->state = optarg; break;
		case O_CONFIG:	o->config = optarg; break;
		case O_LABELS:	o->live.print_labels = true; break;
		case O_DUMP:	o->live.dump_events = true; break;
		case O_STATUS:	o->status = true; break;
		case O_JSON:	o->json = true; break;
		case 'q':	prio = LOG_WARNING; break;
		case 'v':	prio = LOG_DEBUG; break;
		case O_LDISC:
			if (!parse_ll(optarg, 1, 30, &v)) {
				log_msg(LOG_ERR, "--ldisc \"%s\" must be 1..30, the module's ldisc parameter (default %d)",
					optarg, DEFAULT_LDISC);
				return 2;
			}
			o->live.ldisc = (int)v;
			break;
		case O_LEAP:	o->leapfile = optarg; break;
		case O_PTP4L:	o->ptp4l_socket = optarg; break;
		case O_PTP4L_GM:
			if (gmp_parse(optarg, &o->gm, &e)) {
				log_msg(LOG_ERR, "--ptp4l-gm: %s", e.msg);
				return 2;
			}
			break;
		case O_NB:
			if (!parse_date(optarg, &o->not_before)) {
				log_msg(LOG_ERR, "--not-before \"%s\" is not a date YYYY-MM-DD",
					optarg);
				return 2;
			}
			o->have_not_before = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("gpsphcd %s\n", GPSPHC_VERSION);
			exit(0);
		default:
			if (c >= O_CONF && c < O_CONF + CONF_NKEYS) {
				if (conf_set(&cli, (enum conf_key)(c - O_CONF),
					     optarg, &e)) {
					log_msg(LOG_ERR, "--%s %s", lo[idx].name,
						e.msg);
					return 2;
				}
				break;
			}
			usage(stderr);
			return 2;
		}
	}
	log_setup(prio);
	/* Options about the device attached: live mode only. */
	live_only = (cli.set & (1u << CONF_SERVO)) ? "servo on|off" :
		    (cli.set & (1u << CONF_PPS_GPIO)) ? "pps-gpio LINE" :
		    (cli.set & (1u << CONF_NMEA_PTY)) ? "nmea-pty PATH" :
		    (cli.set & (1u << CONF_METRICS)) ? "metrics PATH" :
		    o->ptp4l_socket ? "ptp4l-socket PATH" : NULL;
	if (live_only && (o->status || o->replay)) {
		log_msg(LOG_ERR, "--%.*s goes with live mode (gpsphcd --%s TTY), not with %s",
			(int)strcspn(live_only, " "), live_only, live_only,
			o->status ? "--status" : "--replay");
		return 2;
	}
	if (o->status) {
		if (optind < argc || o->replay || o->record || o->config) {
			usage(stderr);
			return 2;
		}
		return 0;
	}
	if (o->json) {
		log_msg(LOG_ERR, "--json goes with --status");
		return 2;
	}
	if (optind < argc)
		o->device = argv[optind++];
	if (optind < argc || (o->replay && (o->device || o->record)) ||
	    (!o->replay && !o->device)) {
		usage(stderr);
		return 2;
	}
	if (o->config && (ret = read_config(o->config, &file)))
		return ret;
	if (o->config)
		conf_merge(&file, &cli);
	return apply_conf(o->config ? &file : &cli, o);
}

/* The leap-seconds.list if it is good, else the built-in table. */
static void load_leap(const char *path, struct leap_table *t)
{
	struct leap_table list;
	struct gp_err e;
	char *buf, exp[32];
	ssize_t n = read_whole(path, LEAPFILE_MAX, &buf);

	leap_builtin(t);
	format_utc(exp, sizeof(exp), t->expires, false);
	if (n < 0 && errno == EFBIG)
		log_msg(LOG_WARNING, "WARNING: %s is not a readable leap-seconds.list (too large or read error): using the built-in table (expires %s)",
			path, exp);
	else if (n < 0)
		log_msg(LOG_WARNING, "WARNING: cannot read leap-second file %s (%s): using the built-in table (expires %s); install tzdata or pass --leapfile",
			path, strerror(errno), exp);
	else if (leap_parse_list(buf, (size_t)n, &list, &e))
		log_msg(LOG_WARNING, "WARNING: %s: %s. Using the built-in table (expires %s)",
			path, e.msg, exp);
	else if (list.expires >= t->expires)
		*t = list;
	else
		log_msg(LOG_NOTICE, "%s expires before the built-in table (%s): using the built-in table",
			path, exp);
	free(buf);
}

/* Replay: the labels are the output. */
/* Replay prints the labels the guard accepted: no kernel takes any. */
static void emit(void *ctx, const struct pp_label *l)
{
	(void)ctx;
	if (!l->held)
		pp_print_label(stdout, l);
}

/*
 * nmea_pty: the pty takes the group and the group's permissions of the
 * receiver's tty, so that the same users may read the sentences.
 */
static int open_nmea_pty(struct opts *o, struct nmea_pty *pty)
{
	struct stat st;

	if (!(o->live.conf.set & (1u << CONF_NMEA_PTY)))
		return 0;
	if (stat(o->device, &st)) {
		log_msg(LOG_ERR, "%s: %s", o->device, strerror(errno));
		return 1;
	}
	if (nmea_pty_open(pty, o->live.conf.nmea_pty, st.st_gid, st.st_mode))
		return 1;
	o->live.nmea_pty = pty;
	return 0;
}

static int live_main(struct opts *o, struct pipeline *p)
{
	struct nmea_pty pty;
	int ret;

	o->live.device = o->device;
	if (o->record) {
		o->live.record = fopen(o->record, "w");
		if (!o->live.record) {
			log_msg(LOG_ERR, "cannot write the capture %s: %s",
				o->record, strerror(errno));
			return 1;
		}
	}
	if (o->ptp4l_socket) {
		o->live.gm = ptp4l_gm_open(o->ptp4l_socket, NULL, &o->gm);
		if (!o->live.gm)
			return 1;
	}
	ret = open_nmea_pty(o, &pty);
	if (!ret)
		ret = live_run(&o->live, p);
	if (o->live.nmea_pty) {
		log_msg(LOG_INFO, "%s: %llu sentences republished, %llu dropped while nobody read them",
			o->live.conf.nmea_pty, pty.written, pty.dropped);
		nmea_pty_close(&pty);
	}
	ptp4l_gm_close(o->live.gm);
	if (o->live.record && fclose(o->live.record)) {
		log_msg(LOG_ERR, "writing the capture %s failed: %s",
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

	log_setup(LOG_INFO);
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
	if (o.live.conf.set & (1u << CONF_TRUST_S))
		p.trust_s = o.live.conf.trust_s;
	if (!o.replay) {
		o.live.state = state;
		return live_main(&o, &p);
	}

	in = strcmp(o.replay, "-") ? fopen(o.replay, "r") : stdin;
	if (!in) {
		log_msg(LOG_ERR, "cannot open capture %s: %s",
			o.replay, strerror(errno));
		return 1;
	}
	ret = replay_run(in, o.replay, &p);
	if (in != stdin)
		fclose(in);
	log_msg(LOG_INFO, "replay of %s: %lu edges labelled (%lu of them sentences, coarse mode), %lu held by the guard, %lu refused before the pivot",
		o.replay, p.labels, p.coarse_labels, p.held, p.rejected);
	if (state && state_save_last_good(state, &p, true) < 0)
		ret = -1;
	if (fflush(stdout)) {
		log_msg(LOG_ERR, "writing labels: %s", strerror(errno));
		return 1;
	}
	return ret ? 1 : 0;
}
