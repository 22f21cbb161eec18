// SPDX-License-Identifier: GPL-2.0
/*
 * bench_servo: the gpsphc servo against linuxptp's ts2phc on the real
 * clock, in the VM. Not a test: it prints measurements, never pass/fail.
 *
 * The fake UART's pulse generator plays a receiver whose second is 50 ppm
 * long (pulse_ppb) and which has no jitter of its own: pulse k rises at
 * raw t0 + k (1e9 + 50000) ns exactly, the intended_ns of its edges log.
 * What the DCD path stamps adds TCG's interrupt latency (0.1 to 21.5 ms
 * on a busy host: gpsphc_sim/CONTROL.rst), the noise both servos have to
 * filter; the edges log says how much there was. The same stream drives
 * (1) the kernel servo, labelled by this program, and (2) with the kernel
 * servo off, ts2phc (Debian 12's linuxptp 3.1.1: -s nmea, its PI with the
 * hardware-timestamp gains), reading the RMC sentences this program sends
 * 150 ms after each pulse, as a receiver does.
 *
 * The error: the clock at each pulse's true instant, whole seconds aside,
 * from two cross timestamps (PTP_SYS_OFFSET_PRECISE: the clock and
 * CLOCK_MONOTONIC_RAW at one instant) taken 150 and 50 ms before it; both
 * servos change the clock's rate only after they see the edge. Scored
 * from SKIP seconds after the start. GPSPHC_BENCH_SERVO_S: seconds per
 * servo (default 300).
 *
 * The kernel servo runs in a worker, after the interrupt: its delay is
 * measured as the time from each edge's capture to the arrival of its
 * notification, which the worker sends once the servo has counted it and
 * corrected the clock by it (a listener thread of its own stays
 * subscribed throughout, as gpsphcd would be).
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>

#include "gpsphc_test.h"
#include "nl_helpers.h"
#include "phc_helpers.h"

#define PORT		1
#define PPB		50000LL
#define PERIOD		(NSEC_PER_SEC + PPB)
#define SKIP		60
#define LABELS		5
#define T0		1800000037ULL	/* the first pulse's TAI second */
#define TAI_UTC		37

struct sample {
	struct phc_xts before, just_before;
	bool ok;
};

static long long sleep_raw_until(long long raw)
{
	long long d = raw - clock_ns(CLOCK_MONOTONIC_RAW);
	struct timespec ts;

	if (d > 0) {
		ts.tv_sec = d / NSEC_PER_SEC;
		ts.tv_nsec = d % NSEC_PER_SEC;
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	return clock_ns(CLOCK_MONOTONIC_RAW);
}

/* intended_ns and raw_ns of rising pulse k, from the generator's log */
static int read_edges(long long *intended, long long *raw, int n)
{
	static struct sim_pulse_edge log[SIM_EDGE_LOG];
	int i, got = 0, len = sim_pulse_edges(PORT, log, SIM_EDGE_LOG);

	for (i = 0; i < len; i++) {
		if (log[i].k >= n)
			continue;
		intended[log[i].k] = log[i].intended_ns;
		raw[log[i].k] = log[i].raw_ns;
		got++;
	}
	return len < 0 ? len : got;
}

/* The RMC for the UTC second that began at CLOCK_REALTIME @real_ns */
static void send_rmc(long long real_ns)
{
	time_t t = (time_t)(real_ns / NSEC_PER_SEC);
	char body[96], msg[112];
	unsigned int cs = 0;
	struct tm tm;
	size_t i;

	gmtime_r(&t, &tm);
	snprintf(body, sizeof(body),
		 "GPRMC,%02d%02d%02d.00,A,4807.038,N,01131.000,E,0.0,0.0,%02d%02d%02d,,,A",
		 tm.tm_hour, tm.tm_min, tm.tm_sec, tm.tm_mday, tm.tm_mon + 1,
		 tm.tm_year % 100);
	for (i = 0; body[i]; i++)
		cs ^= (unsigned char)body[i];
	snprintf(msg, sizeof(msg), "$%s*%02X\r\n", body, cs);
	sim_write(PORT, "rx", msg, strlen(msg));
}

/* Label the next assert edge of device @id: its TAI second by the schedule */
static void label_next(struct nlt_sock *nl, struct nlt_events *q, int id,
		       long long t0)
{
	struct nlt_result res;
	int i, n = q->n;

	nlt_events_wait(nl, q, id, NULL, NULL, 400);
	for (i = n; i < q->n; i++) {
		const struct nlt_event *e = &q->ev[i];
		long long k;

		if (e->cmd != GPSPHC_CMD_PPS_NTF || !e->assert)
			continue;
		k = ((long long)e->raw_ns - t0 + PERIOD / 2) / PERIOD;
		nlt_time_set(nl, id, e->seq, T0 + k, TAI_UTC, 0, 0, &res);
	}
	nlt_events_clear(q);
}

/*
 * A listener of its own, in a thread always waiting for the next
 * notification, so that its arrival time is taken as it arrives: for each
 * on-time edge, the time from its capture to its notification's arrival.
 */
struct edge_delays {
	struct nlt_sock nl;
	struct nlt_events *q;
	int id, n, max;
	long long *delay;
	atomic_bool stop;
	pthread_t thread;
};

static void *edge_delays_listen(void *arg)
{
	struct edge_delays *d = arg;
	int i;

	while (!atomic_load(&d->stop)) {
		nlt_events_wait(&d->nl, d->q, d->id, NULL, NULL, 200);
		for (i = 0; i < d->q->n && d->n < d->max; i++) {
			const struct nlt_event *e = &d->q->ev[i];

			if (e->cmd == GPSPHC_CMD_PPS_NTF && e->assert)
				d->delay[d->n++] = (long long)(e->recv_raw_ns -
							       e->raw_ns);
		}
		nlt_events_clear(d->q);
	}
	return NULL;
}

static int edge_delays_start(struct edge_delays *d, int id, int max)
{
	d->id = id;
	d->max = max;
	d->n = 0;
	atomic_store(&d->stop, false);
	d->delay = calloc(max, sizeof(*d->delay));
	if (!d->delay || nlt_open_events(&d->nl, &d->q))
		return -ENOMEM;
	return -pthread_create(&d->thread, NULL, edge_delays_listen, d);
}

/* Stop listening; print the delays. */
static void edge_delays_stop(struct edge_delays *d, const char *name)
{
	int n;

	atomic_store(&d->stop, true);
	pthread_join(d->thread, NULL);
	n = d->n;
	if (n >= 10) {
		qsort(d->delay, n, sizeof(*d->delay), cmp_ll);
		printf("# bench servo: %s run: edge to servo (capture to its notification, sent once the servo corrected by it) median %.1f us, p90 %.1f us, p99 %.1f us, max %.1f us (%d edges)\n",
		       name, d->delay[n / 2] / 1e3, d->delay[n * 9 / 10] / 1e3,
		       d->delay[n * 99 / 100] / 1e3, d->delay[n - 1] / 1e3, n);
	}
	nlt_events_free(d->q);
	free(d->q);
	nlt_close(&d->nl);
	free(d->delay);
}

/* Read what @b printed so far, keeping the last of it in @out */
static void drain(struct bg_prog *b, char *out, size_t size)
{
	char buf[1024];
	size_t len;
	ssize_t n;

	while ((n = read(b->fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		len = strlen(out);
		if (len + n + 1 > size) {
			memmove(out, out + len / 2, len - len / 2 + 1);
			len = strlen(out);
		}
		if (len + n + 1 <= size)
			strcat(out, buf);
	}
}

/* One run: @ts2phc, or the kernel servo; prints its figures */
static int run(bool ts2phc, int secs)
{
	long long *intended = calloc(secs + 2, sizeof(long long));
	long long *raw = calloc(secs + 2, sizeof(long long));
	long long *err = calloc(secs + 2, sizeof(long long));
	long long *lat = calloc(secs + 2, sizeof(long long));
	struct sample *s = calloc(secs + 2, sizeof(*s));
	int tty_fd, id, ptp, ptp_fd, k, n = 0, nl_ok = 0, delays_ok = 0;
	struct edge_delays delays;
	char dev[32], out[4096] = "";
	struct nlt_events *q = NULL;
	struct bg_prog prog = { 0 };
	struct nlt_sock nl;
	long long t0, sum = 0, seconds_off = 0;
	const char *name = ts2phc ? "ts2phc" : "gpsphc";

	nl.fd = -1;
	if (!intended || !raw || !err || !lat || !s)
		return -ENOMEM;
	sim_port_present(PORT, 1);
	sim_pulse_reset(PORT);
	sim_set(PORT, "dcd", "0");
	sim_set(PORT, "edges", "0");
	tty_fd = sim_tty_open(PORT, O_NONBLOCK);
	if (tty_fd < 0 || ldisc_set(tty_fd, GPSPHC_LDISC))
		return -EIO;
	snprintf(dev, sizeof(dev), "ttyGPSSIM%d", PORT);
	id = gpsphc_find(dev);
	ptp = id < 0 ? id : gpsphc_ptp_index(id);
	ptp_fd = ptp < 0 ? ptp : phc_open(ptp, O_RDWR);
	if (ptp_fd < 0)
		return ptp_fd;
	snprintf(dev, sizeof(dev), "/dev/ptp%d", ptp);
	if (ts2phc) {
		char port[32];
		char *argv[] = { "ts2phc", "-c", dev, "-s", "nmea",
				 "--ts2phc.nmea_serialport", port, "--leapfile",
				 "/usr/share/zoneinfo/leap-seconds.list", "-m", NULL };

		snprintf(port, sizeof(port), "/dev/ttyGPSSIM%d", PORT);
		if (gpsphc_attr_set(id, "servo", "off") || bg_start(&prog, argv))
			return -EIO;
		fcntl(prog.fd, F_SETFL, O_NONBLOCK);
	} else {
		nl_ok = !nlt_open_events(&nl, &q);
		delays_ok = !edge_delays_start(&delays, id, secs + 2);
	}

	sim_set(PORT, "pulse_ppb", "50000");
	sim_set(PORT, "dcd_cost", "0");
	sim_set(PORT, "pulse_enable", "1");
	/* t0: pulse 0's instant, from the log once it has risen */
	sleep_raw_until(clock_ns(CLOCK_MONOTONIC_RAW) + 2300000000LL);
	if (read_edges(intended, raw, 1) < 1)
		return -ENODATA;
	t0 = intended[0];

	for (k = 1; k < secs; k++) {
		long long at = t0 + k * PERIOD;

		sleep_raw_until(at - 150000000);
		s[k].ok = !phc_precise(ptp_fd, &s[k].before);
		sleep_raw_until(at - 50000000);
		s[k].ok &= !phc_precise(ptp_fd, &s[k].just_before);
		if (!ts2phc && nl_ok && k <= LABELS) {
			label_next(&nl, q, id, t0);
			if (k == LABELS) {
				/* gpsphcd's part is done: only the delays listen on */
				nlt_events_free(q);
				free(q);
				nlt_close(&nl);
				nl_ok = 0;
			}
		} else if (ts2phc) {
			/* the sentence of the pulse's UTC second, 150 ms on */
			long long real = s[k].just_before.real + 50000000;

			sleep_raw_until(at + 150000000);
			send_rmc(real);
			drain(&prog, out, sizeof(out));
		}
	}
	read_edges(intended, raw, secs);
	{
		char buf[64];
		unsigned long long calls, ns;

		if (sim_get(PORT, "dcd_cost", buf, sizeof(buf)) > 0 &&
		    sscanf(buf, "%llu %llu", &calls, &ns) == 2 && calls)
			printf("# bench servo: %s run: %llu DCD edges (rising and falling), %llu ns each in uart_handle_dcd_change()\n",
			       name, calls, ns / calls);
	}

	for (k = SKIP; k < secs; k++) {
		struct phc_xts *a = &s[k].before, *b = &s[k].just_before;
		long long at = t0 + k * PERIOD, phc, frac;
		double rate;

		if (!s[k].ok || intended[k] != at || b->raw <= a->raw)
			continue;
		rate = (double)(b->dev - a->dev) / (double)(b->raw - a->raw);
		phc = b->dev + llround((at - b->raw) * rate);
		frac = ((phc % NSEC_PER_SEC) + NSEC_PER_SEC) % NSEC_PER_SEC;
		if (frac >= NSEC_PER_SEC / 2)
			frac -= NSEC_PER_SEC;
		if (!ts2phc && phc - frac != (long long)(T0 + k) * NSEC_PER_SEC)
			seconds_off++;
		err[n] = llabs(frac);
		lat[n] = raw[k] - intended[k];
		sum += frac * frac / 1000;	/* ns^2 / 1000: no overflow */
		n++;
	}

	if (ts2phc) {
		drain(&prog, out, sizeof(out));
		bg_stop(&prog);
		gpsphc_attr_set(id, "servo", "on");
	} else if (nl_ok) {
		nlt_events_free(q);
		free(q);
		nlt_close(&nl);
	}
	sim_pulse_reset(PORT);
	close(ptp_fd);
	ldisc_set(tty_fd, N_TTY);
	close(tty_fd);

	if (n < 10) {
		printf("# bench servo: %s: only %d edges measured\n", name, n);
		if (ts2phc)
			printf("# bench servo: ts2phc said: %.300s\n", out);
		return -ENODATA;
	}
	qsort(err, n, sizeof(*err), cmp_ll);
	qsort(lat, n, sizeof(*lat), cmp_ll);
	printf("# bench servo: %s: %d edges (%d s from the start): |error| median %.1f us, rms %.1f us, p90 %.1f us, p99 %.1f us, max %.1f us%s\n",
	       name, n, SKIP, err[n / 2] / 1e3, sqrt(sum * 1000.0 / n) / 1e3,
	       err[n * 9 / 10] / 1e3, err[n * 99 / 100] / 1e3,
	       err[n - 1] / 1e3, seconds_off ? " (WRONG SECONDS)" : "");
	printf("# bench servo: %s run: interrupt latency median %.1f us, p90 %.1f us, p99 %.1f us, max %.1f us\n",
	       name, lat[n / 2] / 1e3, lat[n * 9 / 10] / 1e3,
	       lat[n * 99 / 100] / 1e3, lat[n - 1] / 1e3);
	if (delays_ok)
		edge_delays_stop(&delays, name);
	free(intended);
	free(raw);
	free(err);
	free(lat);
	free(s);
	return 0;
}

int main(void)
{
	const char *e = getenv("GPSPHC_BENCH_SERVO_S");
	int secs = e ? atoi(e) : 300;

	if (secs < SKIP + 20)
		secs = SKIP + 20;
	run(false, secs);
	run(true, secs);
	return 0;
}
