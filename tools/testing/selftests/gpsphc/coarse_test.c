// SPDX-License-Identifier: GPL-2.0
/*
 * Coarse mode: a receiver with no PPS wire. The first sentence of each
 * second, less the receiver latency (rx_latency_ns), stands in for the
 * on-time edge; labels name it with GPSPHC_A_TIME_SENTENCE_SEQ.
 *
 * The test is the receiver: once a second (planned on CLOCK_MONOTONIC_RAW)
 * it writes a burst of two sentences to the fake UART, a GGA and 40 ms
 * later an RMC, and labels the burst's first sentence with TAI second
 * T0 + k. The truth at burst k is that second at the sentence's own
 * timestamp (GPSPHC_A_SENT_RAW_NS) less the latency; the clock is read
 * there through PTP_SYS_OFFSET_PRECISE (device time and MONOTONIC_RAW
 * from one snapshot), carried back at the servo's frequency.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>

#include "kselftest_harness.h"
#include "gpsphc_test.h"
#include "nl_helpers.h"
#include "phc_helpers.h"

/* A TAI second in 2027, far from the guest's CLOCK_REALTIME. */
#define T0		1800000037ULL
#define TAI_UTC		37
#define PORT		0

/*
 * Bounds on "clock minus label" at bursts the servo took in LOCKED.
 * A sentence's stamp is taken when the flip-buffer worker runs (the
 * framer then carries it back by the bytes' transmission time), so it
 * carries the test's wake-up lateness and the worker's scheduling: a few
 * ms under TCG, tens of ms now and then on a busy host. The servo follows
 * the typical delay. Measured, 8 locked bursts a run, 6.1 and 6.12:
 * median 0.2..2.7 ms, max 0.9..3.1 ms. So: p90 below 10 ms, every burst
 * below 100 ms (a wrong second, or a servo running 100 ppm off for 10 s,
 * is far beyond that).
 */
#define LOCK_P90_NS	10000000LL
#define LOCK_MAX_NS	100000000LL
/*
 * Bursts allowed before LOCKED: 4 offsets in a row within 20 ms (or within
 * the measured noise, with no trend). Measured: 3..11.
 */
#define LOCK_MAX_BURSTS	16
/* Locked bursts measured. */
#define MEASURE_BURSTS	8
/* The latency the second test sets, and bursts it allows to follow it. */
#define LATENCY_NS	100000000LL
#define FOLLOW_BURSTS	LOCK_MAX_BURSTS

FIXTURE(coarse) {
	struct nlt_sock nl;
	struct nlt_events *q;
	int tty_fd, id, ptp_fd;
	long long base_raw;	/* CLOCK_MONOTONIC_RAW of burst 0 */
	int states;		/* STATE_NTFs seen */
	bool coarse_ntf;	/* every STATE_NTF had the coarse flag */
};

FIXTURE_SETUP(coarse)
{
	int ret;

	self->tty_fd = self->ptp_fd = -1;
	self->nl.fd = -1;
	ret = nlt_open_events(&self->nl, &self->q);
	ASSERT_EQ(0, ret) TH_LOG("genl family " GPSPHC_GENL_NAME " events: %s",
				 strerror(-ret));
	self->coarse_ntf = true;

	ASSERT_EQ(0, sim_port_present(PORT, 1));
	sim_pulse_reset(PORT);
	ASSERT_EQ(0, sim_set(PORT, "dcd", "0"));
	self->tty_fd = sim_tty_open(PORT, O_NONBLOCK);
	ASSERT_LE(0, self->tty_fd);
	ASSERT_EQ(0, ldisc_set(self->tty_fd, GPSPHC_LDISC));
	self->id = gpsphc_find("ttyGPSSIM0");
	ASSERT_LE(0, self->id);
	ret = gpsphc_ptp_index(self->id);
	ASSERT_LE(0, ret);
	self->ptp_fd = phc_open(ret, O_RDWR);
	ASSERT_LE(0, self->ptp_fd);
	/* Whole seconds from now, with room for the set-up. */
	self->base_raw = clock_ns(CLOCK_MONOTONIC_RAW) + NSEC_PER_SEC / 2;
}

FIXTURE_TEARDOWN(coarse)
{
	sim_pulse_reset(PORT);
	sim_set(PORT, "dcd", "0");
	if (self->ptp_fd >= 0)
		close(self->ptp_fd);
	if (self->tty_fd >= 0) {
		ldisc_set(self->tty_fd, N_TTY);
		close(self->tty_fd);
	}
	if (self->q)
		nlt_events_free(self->q);
	free(self->q);
	nlt_close(&self->nl);
}

/* Write $@body*hh CR LF (or with a wrong checksum) as one chunk. */
static int send_sentence(const char *body, bool good)
{
	unsigned int sum = 0;
	char s[128];
	const char *p;
	int n;

	for (p = body; *p; p++)
		sum ^= (unsigned char)*p;
	n = snprintf(s, sizeof(s), "$%s*%02X\r\n", body, good ? sum : sum ^ 0x5a);
	return sim_write(PORT, "rx", s, n) == n ? 0 : -EIO;
}

static void sleep_until_raw(long long raw)
{
	long long d = raw - clock_ns(CLOCK_MONOTONIC_RAW);
	struct timespec ts;

	if (d <= 0)
		return;
	ts.tv_sec = d / NSEC_PER_SEC;
	ts.tv_nsec = d % NSEC_PER_SEC;
	nanosleep(&ts, NULL);
}

struct burst {
	uint32_t seq[2];	/* the GGA's and the RMC's */
	long long raw[2];
	uint32_t csum[2];
	bool counted[2];	/* the notification carried a second */
	uint64_t second[2];
	int n;
};

static bool two_sentences(struct nlt_events *q, void *arg)
{
	(void)arg;
	return nlt_events_count(q, GPSPHC_CMD_SENTENCE_NTF) >= 2;
}

/*
 * Burst @k: a GGA (with a wrong checksum if !@good_first) at the planned
 * instant, an RMC 40 ms later; the two SENTENCE_NTFs in @b. Bursts are
 * @period_ns apart.
 */
static void burst(struct __test_metadata *_metadata, FIXTURE_DATA(coarse) *self,
		  int k, bool good_first, long long period_ns, struct burst *b)
{
	int i;

	memset(b, 0, sizeof(*b));
	sleep_until_raw(self->base_raw + k * period_ns);
	ASSERT_EQ(0, send_sentence("GPGGA,120000.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
				   good_first));
	usleep(40000);
	ASSERT_EQ(0, send_sentence("GPRMC,120000.00,A,4807.038,N,01131.000,E,0.0,0.0,010127,,,A",
				   true));
	nlt_events_wait(&self->nl, self->q, self->id, two_sentences, NULL, 2000);
	for (i = 0; i < self->q->n; i++) {
		const struct nlt_event *e = &self->q->ev[i];

		if (e->cmd == GPSPHC_CMD_STATE_NTF) {
			self->states++;
			self->coarse_ntf &= e->servo.coarse;
		}
		if (e->cmd != GPSPHC_CMD_SENTENCE_NTF || b->n == 2)
			continue;
		b->seq[b->n] = e->seq;
		b->raw[b->n] = e->raw_ns;
		b->csum[b->n] = e->csum;
		b->counted[b->n] = e->counted;
		b->second[b->n] = e->second;
		b->n++;
	}
	nlt_events_clear(self->q);
	ASSERT_EQ(2, b->n) TH_LOG("burst %d: %d sentence events", k, b->n);
	ASSERT_EQ(b->seq[0] + 1, b->seq[1]);
}

static int label_sentence(FIXTURE_DATA(coarse) *self, uint32_t seq, uint64_t tai,
			  struct nlt_result *res)
{
	return nlt_time_set_by(&self->nl, self->id, GPSPHC_A_TIME_SENTENCE_SEQ, 0,
			       seq, tai, TAI_UTC, 0, 0, res);
}

/* Clock minus TAI second @tai at CLOCK_MONOTONIC_RAW @raw, ns. */
static long long clock_error(struct __test_metadata *_metadata,
			     FIXTURE_DATA(coarse) *self, long long raw, uint64_t tai)
{
	long long ppb = gpsphc_ll(self->id, "freq_ppb"), back;
	struct phc_xts x = { 0 };

	EXPECT_EQ(0, phc_precise(self->ptp_fd, &x));
	back = x.raw - raw;
	back += back / 1000 * ppb / 1000000;
	return x.dev - back - (long long)tai * NSEC_PER_SEC;
}

/*
 * Bursts from @k0 on, each labelled T0 + k, until @n have been measured
 * in LOCKED (or @max_bursts have passed); |errors| of the locked ones in
 * @err. LOCKED counts only once the servo has stepped @min_steps times
 * (a locked servo rejects a change as outliers before it steps). Returns
 * the burst at which LOCKED was first seen so, or -1.
 */
static int run_bursts(struct __test_metadata *_metadata, FIXTURE_DATA(coarse) *self,
		      int k0, int max_bursts, long long latency, long long min_steps,
		      long long *err, int *n)
{
	int k, locked_at = -1, want = *n;
	struct nlt_result res;
	struct burst b;
	char st[32];

	*n = 0;
	for (k = k0; k < k0 + max_bursts && *n < want; k++) {
		long long e;

		burst(_metadata, self, k, true, NSEC_PER_SEC, &b);
		ASSERT_EQ(0, label_sentence(self, b.seq[0], T0 + k, &res));
		ASSERT_EQ(0, res.err) TH_LOG("burst %d: %s", k, res.ext_msg);
		e = clock_error(_metadata, self, b.raw[0] - latency, T0 + k);
		gpsphc_servo_state(self->id, st, sizeof(st));
		TH_LOG("burst %d: %s, clock - label %+.3f ms, offset_ns %lld", k, st,
		       e / 1e6, gpsphc_ll(self->id, "offset_ns"));
		if (strcmp(st, "locked") ||
		    gpsphc_ll(self->id, "statistics/steps") < min_steps)
			continue;
		if (locked_at < 0)
			locked_at = k;
		else
			err[(*n)++] = llabs(e);
	}
	return locked_at;
}

static void check_errors(struct __test_metadata *_metadata, long long *err, int n)
{
	qsort(err, n, sizeof(*err), cmp_ll);
	TH_LOG("locked bursts: %d, |err| median %.3f ms, p90 %.3f ms, max %.3f ms",
	       n, err[n / 2] / 1e6, err[n * 9 / 10] / 1e6, err[n - 1] / 1e6);
	EXPECT_GT(LOCK_P90_NS, err[n * 9 / 10]);
	EXPECT_GT(LOCK_MAX_NS, err[n - 1]);
}

/*
 * No PPS: the first good sentence of each second steers the clock. It
 * locks, reads the labels at the sentences, says it is coarse (sysfs,
 * dev-get's servo and every state notification), and the sentences that
 * do not start a second cannot be labelled.
 */
TEST_F_TIMEOUT(coarse, locks_to_sentences, 90)
{
	long long err[MEASURE_BURSTS];
	struct nlt_result res;
	int n = MEASURE_BURSTS, locked_at;
	struct burst b;
	long long refused;

	EXPECT_EQ(0, gpsphc_ll(self->id, "coarse"));
	burst(_metadata, self, 0, true, NSEC_PER_SEC, &b);
	EXPECT_EQ(GPSPHC_CSUM_OK, b.csum[0]);
	EXPECT_EQ(1, gpsphc_ll(self->id, "coarse"));
	/* The notifications say which sentence the servo counted: the GGA. */
	EXPECT_TRUE(b.counted[0]);
	EXPECT_EQ(0, b.second[0]);
	EXPECT_FALSE(b.counted[1]);

	/* The RMC came 40 ms after the GGA: not a second of its own. */
	ASSERT_EQ(0, label_sentence(self, b.seq[1], T0, &res));
	EXPECT_EQ(EINVAL, res.err);
	EXPECT_NE(NULL, strstr(res.ext_msg, "did not start a second")) TH_LOG("%s", res.ext_msg);
	ASSERT_EQ(0, label_sentence(self, b.seq[1] + 1, T0, &res));
	EXPECT_EQ(ENOENT, res.err);
	EXPECT_NE(NULL, strstr(res.ext_msg, "no such sentence yet")) TH_LOG("%s", res.ext_msg);
	/* A sentence is not an edge. */
	ASSERT_EQ(0, nlt_time_set(&self->nl, self->id, b.seq[0], T0, TAI_UTC, 0, 0, &res));
	EXPECT_EQ(ENOENT, res.err) TH_LOG("%s", res.ext_msg);
	refused = gpsphc_ll(self->id, "statistics/labels_refused");
	EXPECT_EQ(3, refused);
	EXPECT_EQ(0, gpsphc_ll(self->id, "statistics/labels"));

	/* The burst's first sentence sets the clock. */
	ASSERT_EQ(0, label_sentence(self, b.seq[0], T0, &res));
	ASSERT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	EXPECT_EQ(1, gpsphc_ll(self->id, "statistics/steps"));
	EXPECT_GT(LOCK_MAX_NS, llabs(clock_error(_metadata, self, b.raw[0], T0)));

	locked_at = run_bursts(_metadata, self, 1, LOCK_MAX_BURSTS + MEASURE_BURSTS + 1,
			       0, 1, err, &n);
	ASSERT_LE(1, locked_at) TH_LOG("never locked");
	EXPECT_GE(LOCK_MAX_BURSTS, locked_at);
	ASSERT_EQ(MEASURE_BURSTS, n);
	check_errors(_metadata, err, n);

	EXPECT_EQ(1, gpsphc_ll(self->id, "coarse"));
	EXPECT_LE(2, self->states) TH_LOG("state notifications: locking, locked");
	EXPECT_TRUE(self->coarse_ntf) TH_LOG("a state notification without the coarse flag");
	EXPECT_EQ(refused, gpsphc_ll(self->id, "statistics/labels_refused"));
	EXPECT_EQ(0, gpsphc_ll(self->id, "statistics/disagreements"));
}

/*
 * A burst that starts with a bad checksum: the next good sentence starts
 * the second. And sentences 200 ms apart or less never start one.
 */
TEST_F_TIMEOUT(coarse, which_sentence_starts_a_second, 60)
{
	struct nlt_result res;
	struct burst b;
	int k;

	burst(_metadata, self, 0, true, NSEC_PER_SEC, &b);
	ASSERT_EQ(0, label_sentence(self, b.seq[0], T0, &res));
	ASSERT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	for (k = 1; k <= 2; k++) {
		burst(_metadata, self, k, false, NSEC_PER_SEC, &b);
		EXPECT_EQ(GPSPHC_CSUM_BAD, b.csum[0]);
		EXPECT_FALSE(b.counted[0]);
		EXPECT_TRUE(b.counted[1]);
		EXPECT_EQ((uint64_t)k, b.second[1]);
		ASSERT_EQ(0, label_sentence(self, b.seq[0], T0 + k, &res));
		EXPECT_EQ(EINVAL, res.err) TH_LOG("%s", res.ext_msg);
		/* The RMC is the first good one: it starts the second. */
		ASSERT_EQ(0, label_sentence(self, b.seq[1], T0 + k, &res));
		EXPECT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	}
	EXPECT_EQ(3, gpsphc_ll(self->id, "statistics/labels"));
	EXPECT_EQ(0, gpsphc_ll(self->id, "statistics/disagreements"));

	/* Bursts 150 ms apart: GGA 110 ms after the last RMC, no new second. */
	self->base_raw = clock_ns(CLOCK_MONOTONIC_RAW) + 500000000LL;
	burst(_metadata, self, 0, true, 150000000LL, &b);
	burst(_metadata, self, 1, true, 150000000LL, &b);
	EXPECT_FALSE(b.counted[0]);
	EXPECT_FALSE(b.counted[1]);
	ASSERT_EQ(0, label_sentence(self, b.seq[0], T0 + 4, &res));
	EXPECT_EQ(EINVAL, res.err) TH_LOG("%s", res.ext_msg);
}

/*
 * rx_latency_ns: the receiver's second begins that long before its first
 * sentence. Setting it on a locked clock moves the clock by as much.
 */
TEST_F_TIMEOUT(coarse, latency_moves_the_clock, 90)
{
	long long err[MEASURE_BURSTS], before, after, steps;
	struct nlt_result res;
	int n = MEASURE_BURSTS, locked_at;
	struct burst b;
	struct phc_xts x0 = { 0 }, x1 = { 0 };
	char v[32];

	burst(_metadata, self, 0, true, NSEC_PER_SEC, &b);
	ASSERT_EQ(0, label_sentence(self, b.seq[0], T0, &res));
	ASSERT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	n = 2;
	locked_at = run_bursts(_metadata, self, 1, LOCK_MAX_BURSTS + 3, 0, 1, err, &n);
	ASSERT_LE(1, locked_at) TH_LOG("never locked");
	ASSERT_EQ(0, phc_precise(self->ptp_fd, &x0));
	before = x0.dev - x0.raw;
	steps = gpsphc_ll(self->id, "statistics/steps");

	snprintf(v, sizeof(v), "%lld\n", LATENCY_NS);
	ASSERT_EQ(0, gpsphc_attr_set(self->id, "rx_latency_ns", v));
	EXPECT_EQ(LATENCY_NS, gpsphc_ll(self->id, "rx_latency_ns"));
	n = MEASURE_BURSTS;
	locked_at = run_bursts(_metadata, self, locked_at + 3, FOLLOW_BURSTS + MEASURE_BURSTS,
			       LATENCY_NS, steps + 1, err, &n);
	ASSERT_EQ(MEASURE_BURSTS, n) TH_LOG("did not lock again with the latency");
	check_errors(_metadata, err, n);
	ASSERT_EQ(0, phc_precise(self->ptp_fd, &x1));
	after = x1.dev - x1.raw;
	/* The clock moved forward by the latency (and its rate over ~20 s). */
	TH_LOG("clock - raw moved by %.3f ms", (after - before) / 1e6);
	EXPECT_GT(LOCK_MAX_NS, llabs(after - before - LATENCY_NS));
	EXPECT_LT(steps, gpsphc_ll(self->id, "statistics/steps"));
}

/* With a PPS, sentences never steer the clock, nor can they be labelled. */
TEST_F_TIMEOUT(coarse, pps_wins, 60)
{
	struct nlt_result res;
	struct burst b;

	ASSERT_EQ(0, sim_set(PORT, "pulse_enable", "1"));
	/* The generator's first pulse is a whole second at least 1 s away. */
	sleep(3);
	self->base_raw = clock_ns(CLOCK_MONOTONIC_RAW);
	burst(_metadata, self, 0, true, NSEC_PER_SEC, &b);
	burst(_metadata, self, 1, true, NSEC_PER_SEC, &b);
	EXPECT_EQ(0, gpsphc_ll(self->id, "coarse"));
	ASSERT_EQ(0, label_sentence(self, b.seq[0], T0, &res));
	EXPECT_EQ(EINVAL, res.err);
	EXPECT_NE(NULL, strstr(res.ext_msg, "no PPS edge")) TH_LOG("%s", res.ext_msg);
	EXPECT_EQ(0, gpsphc_ll(self->id, "statistics/labels"));
	EXPECT_EQ(1, gpsphc_ll(self->id, "statistics/labels_refused"));
}

static bool two_assert_edges(struct nlt_events *q, void *arg)
{
	int i, n = 0;

	(void)arg;
	for (i = 0; i < q->n; i++)
		n += q->ev[i].cmd == GPSPHC_CMD_PPS_NTF && q->ev[i].assert;
	return n >= 2;
}

/*
 * The PPS stops but the sentences go on: holdover, counted in holdover_s
 * whatever the sentences do, for the GPSPHC_COARSE_AFTER_S before they
 * may take over.
 */
TEST_F_TIMEOUT(coarse, pps_holdover_with_sentences, 60)
{
	struct nlt_result res;
	uint32_t seq = 0;
	struct burst b;
	char st[32];
	int i, k;

	ASSERT_EQ(0, sim_set(PORT, "pulse_enable", "1"));
	nlt_events_wait(&self->nl, self->q, self->id, two_assert_edges, NULL, 5000);
	for (i = 0; i < self->q->n; i++)
		if (self->q->ev[i].cmd == GPSPHC_CMD_PPS_NTF && self->q->ev[i].assert)
			seq = self->q->ev[i].seq;
	ASSERT_TRUE(two_assert_edges(self->q, NULL));
	nlt_events_clear(self->q);
	ASSERT_EQ(0, nlt_time_set(&self->nl, self->id, seq, T0, TAI_UTC, 0, 0, &res));
	ASSERT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	ASSERT_EQ(0, sim_set(PORT, "pulse_enable", "0"));

	self->base_raw = clock_ns(CLOCK_MONOTONIC_RAW);
	for (k = 0; k < 5; k++)
		burst(_metadata, self, k, true, NSEC_PER_SEC, &b);
	/* A tick (every 250 ms) has come since the last sentence. */
	usleep(300000);
	EXPECT_STREQ("holdover", gpsphc_servo_state(self->id, st, sizeof(st)));
	EXPECT_LE(2, gpsphc_ll(self->id, "holdover_s"));
	EXPECT_EQ(0, gpsphc_ll(self->id, "coarse"));
	ASSERT_EQ(0, label_sentence(self, b.seq[0], T0 + 10, &res));
	EXPECT_EQ(EINVAL, res.err) TH_LOG("%s", res.ext_msg);
}

TEST_HARNESS_MAIN
