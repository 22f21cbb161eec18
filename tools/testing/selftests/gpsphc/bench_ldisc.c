// SPDX-License-Identifier: GPL-2.0
/*
 * bench_ldisc: figures for the gpsphc receive and DCD paths, in the VM.
 * Not a test: it prints measurements, never pass/fail.
 *
 * 1. Throughput: NMEA text injected through the fake UART in 4 KiB receive
 *    chunks and read back through the tty, with plain N_TTY and with the
 *    gpsphc discipline on the same port; the ratio is what framing costs.
 * 2. DCD edge cost: the fake UART toggles DCD from debugfs and measures
 *    the time spent inside uart_handle_dcd_change() (dcd_cost), the
 *    interrupt-side path: with gpsphc attached minus with N_TTY is what our
 *    dcd_change costs (snapshot, lookup, queue, pps_event, worker kick).
 *    The whole toggle's time difference is printed too: it adds the
 *    notification worker's run. Both are measured without and with a
 *    netlink listener (gpsphcd is one): edges are queued for the worker
 *    only when someone listens. Back to back, the edges come faster than
 *    the worker runs (it runs a tick after the first edge it queues), so
 *    with a listener most of them find the queue full and are dropped;
 *    a real PPS finds it empty, and arms the worker's timer. Edges spaced
 *    out as a PPS's are no better measure: under TCG each costs some 15
 *    times as much even with N_TTY (4.4 us against 0.3 us; the
 *    emulator's caches are cold after the context switches between
 *    them), and that varies by microseconds from run to run.
 *    Two costs of a real receiver's edges are not in the figures: nothing
 *    labels the edges here, so the servo counts the on-time ones but asks
 *    for no correction (a locked servo's moves the clock's base on every
 *    one, from the edge's capture, with no second clock read); and with
 *    a listener a real PPS arms the worker's timer on every edge, these
 *    once per full queue.
 */
#include <poll.h>
#include <time.h>

#include "gpsphc_test.h"
#include "nl_helpers.h"

#define PORT		2
#define CHUNK		4096
#define TOTAL		(8 << 20)
#define EDGES		20000
#define BATCH		500
#define ROUNDS		5

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fill_nmea(char *buf, size_t len)
{
	static const char line[] =
		"$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n";
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = line[i % (sizeof(line) - 1)];
}

/* Bytes per second through the port with discipline @ldisc. */
static double throughput(int ldisc)
{
	static char chunk[CHUNK], sink[CHUNK];
	int fd = sim_tty_open(PORT, O_NONBLOCK);
	size_t done = 0;
	double t0;

	if (fd < 0 || ldisc_set(fd, ldisc))
		return -1;
	fill_nmea(chunk, sizeof(chunk));
	t0 = now_s();
	while (done < TOTAL) {
		size_t got = 0;

		ssize_t w = sim_write(PORT, "rx", chunk, CHUNK);

		if (w != CHUNK) {
			errno = w < 0 ? (int)-w : EIO;
			return -1;
		}
		while (got < CHUNK) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			ssize_t n;

			if (poll(&p, 1, 2000) <= 0) {
				errno = errno ? errno : ETIMEDOUT;
				return -1;
			}
			n = read(fd, sink, sizeof(sink));
			if (n > 0)
				got += n;
		}
		done += CHUNK;
	}
	t0 = now_s() - t0;
	ldisc_set(fd, N_TTY);
	close(fd);
	return TOTAL / t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Seconds inside uart_handle_dcd_change() per edge since the last call. */
static double dcd_cost_take(int edges)
{
	unsigned long long calls, ns;
	char path[128], buf[64];

	snprintf(path, sizeof(path), SIM_DEBUGFS "/ttyGPSSIM%d/dcd_cost", PORT);
	if (read_file(path, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%llu %llu", &calls, &ns) != 2 ||
	    calls != (unsigned int)edges ||
	    sim_write(PORT, "dcd_cost", "0", 1) != 1)
		return -1;
	return ns / 1e9 / calls;
}

/*
 * Seconds per DCD edge toggled through debugfs with discipline @ldisc;
 * *@in_call: seconds of each inside uart_handle_dcd_change(), the median
 * of the batches' means, and *@mean the mean of all. The guest's clock
 * runs on while the host runs something else, and an edge that the host
 * interrupts looks milliseconds long: on a loaded host the mean of all
 * says as much about the host's load as about the path, while most
 * batches are not hit.
 */
static double edge_cost(int ldisc, double *in_call, double *mean)
{
	int fd = sim_tty_open(PORT, O_NONBLOCK), ctl, i, n = 0;
	double t0, means[EDGES / BATCH], sum = 0;
	char path[128];

	if (fd < 0 || ldisc_set(fd, ldisc))
		return -1;
	snprintf(path, sizeof(path), SIM_DEBUGFS "/ttyGPSSIM%d/dcd", PORT);
	ctl = open(path, O_WRONLY);
	if (ctl < 0 || sim_write(PORT, "dcd_cost", "0", 1) != 1)
		return -1;
	t0 = now_s();
	for (i = 0; i < EDGES; i++) {
		if (pwrite(ctl, i & 1 ? "0" : "1", 1, 0) != 1)
			return -1;
		if ((i + 1) % BATCH == 0) {
			means[n] = dcd_cost_take(BATCH);
			if (means[n] < 0)
				return -1;
			sum += means[n++];
		}
	}
	t0 = now_s() - t0;
	close(ctl);
	*mean = sum / n;
	qsort(means, n, sizeof(double), cmp_double);
	*in_call = means[n / 2];
	ldisc_set(fd, N_TTY);
	close(fd);
	return t0 / EDGES;
}

int main(void)
{
	double tty[ROUNDS], gps[ROUNDS], e_tty[ROUNDS], e_gps[ROUNDS];
	double c_tty[ROUNDS], c_gps[ROUNDS], e_lis[ROUNDS], c_lis[ROUNDS];
	double m_tty[ROUNDS], m_gps[ROUNDS], m_lis[ROUNDS];
	struct nlt_sock listener;
	int r;

	for (r = 0; r < ROUNDS; r++) {	/* interleaved: host load hits both */
		tty[r] = throughput(N_TTY);
		gps[r] = throughput(GPSPHC_LDISC);
		e_tty[r] = edge_cost(N_TTY, &c_tty[r], &m_tty[r]);
		e_gps[r] = edge_cost(GPSPHC_LDISC, &c_gps[r], &m_gps[r]);
		if (nlt_open(&listener) || nlt_subscribe(&listener)) {
			printf("# bench: cannot listen to the gpsphc events\n");
			return 1;
		}
		e_lis[r] = edge_cost(GPSPHC_LDISC, &c_lis[r], &m_lis[r]);
		nlt_close(&listener);
		if (tty[r] < 0 || gps[r] < 0 || e_tty[r] < 0 || e_gps[r] < 0 ||
		    e_lis[r] < 0) {
			printf("# bench: a measurement failed: rx %.0f/%.0f, dcd %g/%g (%s)\n",
			       tty[r], gps[r], e_tty[r], e_gps[r], strerror(errno));
			return 1;
		}
	}
	qsort(tty, ROUNDS, sizeof(double), cmp_double);
	qsort(gps, ROUNDS, sizeof(double), cmp_double);
	qsort(e_tty, ROUNDS, sizeof(double), cmp_double);
	qsort(e_gps, ROUNDS, sizeof(double), cmp_double);
	qsort(c_tty, ROUNDS, sizeof(double), cmp_double);
	qsort(c_gps, ROUNDS, sizeof(double), cmp_double);
	qsort(e_lis, ROUNDS, sizeof(double), cmp_double);
	qsort(c_lis, ROUNDS, sizeof(double), cmp_double);
	qsort(m_tty, ROUNDS, sizeof(double), cmp_double);
	qsort(m_gps, ROUNDS, sizeof(double), cmp_double);
	qsort(m_lis, ROUNDS, sizeof(double), cmp_double);
	printf("# bench rx: N_TTY %.2f MB/s, gpsphc %.2f MB/s, ratio %.3f (median of %d, %d MiB each)\n",
	       tty[ROUNDS / 2] / 1e6, gps[ROUNDS / 2] / 1e6,
	       gps[ROUNDS / 2] / tty[ROUNDS / 2], ROUNDS, TOTAL >> 20);
	printf("# bench dcd: in uart_handle_dcd_change %.0f ns per edge with N_TTY, %.0f ns with gpsphc: dcd_change path %.0f ns (median of %d x %d edges, each the median of %d-edge batches; mean of all edges %.0f ns)\n",
	       c_tty[ROUNDS / 2] * 1e9, c_gps[ROUNDS / 2] * 1e9,
	       (c_gps[ROUNDS / 2] - c_tty[ROUNDS / 2]) * 1e9, ROUNDS, EDGES,
	       BATCH, (m_gps[ROUNDS / 2] - m_tty[ROUNDS / 2]) * 1e9);
	printf("# bench dcd: whole toggle %.0f ns with N_TTY, %.0f ns with gpsphc: %.0f ns more, notification worker included\n",
	       e_tty[ROUNDS / 2] * 1e9, e_gps[ROUNDS / 2] * 1e9,
	       (e_gps[ROUNDS / 2] - e_tty[ROUNDS / 2]) * 1e9);
	printf("# bench dcd: with a netlink listener: dcd_change path %.0f ns (mean of all edges %.0f ns), whole toggle %.0f ns more than N_TTY\n",
	       (c_lis[ROUNDS / 2] - c_tty[ROUNDS / 2]) * 1e9,
	       (m_lis[ROUNDS / 2] - m_tty[ROUNDS / 2]) * 1e9,
	       (e_lis[ROUNDS / 2] - e_tty[ROUNDS / 2]) * 1e9);
	return 0;
}
