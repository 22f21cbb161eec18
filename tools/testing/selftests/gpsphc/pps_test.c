// SPDX-License-Identifier: GPL-2.0
/*
 * PPS capture: DCD edges of the fake UART come out as GPSPHC_CMD_PPS_NTF
 * events with consecutive sequence numbers, the right edge kind and the
 * assert flag on the on-time edge; /dev/ppsN reports the very same
 * timestamps; the `edge` setting moves the assert; the pulse generator's
 * edges are stamped within a stated bound of the instant the fake UART
 * raised them; missing pulses are counted.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <linux/pps.h>

#include "kselftest_harness.h"
#include "gpsphc_test.h"
#include "nl_helpers.h"

#define PORT		1
#define TTY_NAME	"ttyGPSSIM1"

/*
 * The fake UART reads CLOCK_MONOTONIC_RAW, then calls
 * uart_handle_dcd_change() with interrupts off and the port lock held, and
 * the discipline's dcd_change takes its snapshot first thing: a few calls
 * apart, so a few microseconds natively and tens of microseconds under
 * TCG. The bound is two orders of magnitude above that, because a vCPU
 * thread of a TCG guest on a busy 2-core host can be preempted by the host
 * between the two reads for a scheduler slice or so (~1 ms); anything
 * slower than 2 ms means the stamp is taken somewhere else (a worker, the
 * flip buffer), which is what the test is for.
 */
#define STAMP_BOUND_NS	2000000LL

/*
 * The generator's hrtimer fires late by the guest's timer latency: 0.1 to
 * 21.5 ms under TCG on a loaded 2-core host (gpsphc_sim/CONTROL.rst), so
 * the 1 s spacing and the pulse width are checked to 50 ms only; the
 * stamps' spacing is checked against the fake UART's own raw readings of
 * the same edges, to twice STAMP_BOUND_NS.
 */
#define SPACING_BOUND_NS 50000000LL

FIXTURE(pps) {
	int fd;
	int id;
	int pps_fd;
	int pps_index;
	struct nlt_sock nl;
	struct nlt_events *q;
};

FIXTURE_SETUP(pps)
{
	char path[64];
	int ret;

	self->nl.fd = -1;
	self->pps_fd = -1;
	sim_pulse_reset(PORT);
	ASSERT_EQ(0, sim_set(PORT, "dcd", "0"));
	self->fd = sim_tty_open(PORT, O_NONBLOCK);
	ASSERT_LE(0, self->fd) TH_LOG("open /dev/" TTY_NAME ": %s", strerror(-self->fd));
	ASSERT_EQ(0, ldisc_set(self->fd, GPSPHC_LDISC));
	self->id = gpsphc_find(TTY_NAME);
	ASSERT_LE(0, self->id) TH_LOG("no gpsphc device for " TTY_NAME);
	self->pps_index = gpsphc_pps_index(self->id);
	ASSERT_LE(0, self->pps_index) TH_LOG("pps_device: %s", strerror(-self->pps_index));
	snprintf(path, sizeof(path), "/dev/pps%d", self->pps_index);
	self->pps_fd = open(path, O_RDWR);
	ASSERT_LE(0, self->pps_fd) TH_LOG("open %s: %s", path, strerror(errno));
	ret = nlt_open(&self->nl);
	ASSERT_EQ(0, ret) TH_LOG("genl family " GPSPHC_GENL_NAME ": %s", strerror(-ret));
	ASSERT_EQ(0, nlt_subscribe(&self->nl));
	self->q = calloc(1, sizeof(*self->q));
	ASSERT_NE(NULL, self->q);
}

FIXTURE_TEARDOWN(pps)
{
	sim_set(PORT, "pulse_enable", "0");
	if (self->q)
		nlt_events_free(self->q);
	free(self->q);
	nlt_close(&self->nl);
	if (self->pps_fd >= 0)
		close(self->pps_fd);
	if (self->fd >= 0) {
		ldisc_set(self->fd, N_TTY);
		close(self->fd);
	}
	sim_pulse_reset(PORT);
	sim_set(PORT, "dcd", "0");
}

static bool got_pps(struct nlt_events *q, void *arg)
{
	return nlt_events_count(q, GPSPHC_CMD_PPS_NTF) >= *(int *)arg;
}

/* One edge by hand: level @level, the event it must produce. */
struct manual_edge {
	long long raw0, raw1, real0, real1;	/* around the write to "dcd" */
};

static void dcd_edge(struct __test_metadata *_metadata, int level,
		     struct manual_edge *m)
{
	m->real0 = clock_ns(CLOCK_REALTIME);
	m->raw0 = clock_ns(CLOCK_MONOTONIC_RAW);
	ASSERT_EQ(0, sim_set(PORT, "dcd", level ? "1" : "0"));
	m->raw1 = clock_ns(CLOCK_MONOTONIC_RAW);
	m->real1 = clock_ns(CLOCK_REALTIME);
}

/*
 * @n edges by hand, rising first, with the on-time edge @assert_edge:
 * events, counters and /dev/ppsN must all agree, to the nanosecond.
 */
static void manual_edges(struct __test_metadata *_metadata,
			 FIXTURE_DATA(pps) *self, int n, uint32_t assert_edge)
{
	unsigned long long st0[GPSPHC_NSTATS], st1[GPSPHC_NSTATS];
	struct manual_edge m[16];
	struct pps_kinfo k0, k;
	int i, want = n;
	uint32_t seq0 = 0;

	ASSERT_GE(16, n);
	ASSERT_EQ(0, gpsphc_stats(self->id, st0));
	ASSERT_EQ(0, pps_fetch(self->pps_fd, &k0));
	nlt_events_clear(self->q);

	for (i = 0; i < n; i++) {
		uint32_t edge = i % 2 ? GPSPHC_EDGE_FALLING : GPSPHC_EDGE_RISING;
		bool assert = edge == assert_edge;
		const struct nlt_event *e;

		dcd_edge(_metadata, !(i % 2), &m[i]);

		/* /dev/ppsN has it as soon as the write returns. */
		ASSERT_EQ(0, pps_fetch(self->pps_fd, &k));
		nlt_events_wait(&self->nl, self->q, self->id, got_pps, &(int){ i + 1 }, 5000);
		ASSERT_EQ(i + 1, nlt_events_count(self->q, GPSPHC_CMD_PPS_NTF))
			TH_LOG("no event for edge %d", i);
		e = &self->q->ev[self->q->n - 1];
		ASSERT_EQ(GPSPHC_CMD_PPS_NTF, e->cmd);
		EXPECT_TRUE(e->complete);
		EXPECT_EQ((uint32_t)self->id, e->dev_id);
		if (i == 0)
			seq0 = e->seq;
		EXPECT_EQ(seq0 + i, e->seq) TH_LOG("edge %d", i);
		EXPECT_EQ(edge, e->edge) TH_LOG("edge %d", i);
		EXPECT_EQ(assert, e->assert) TH_LOG("edge %d", i);
		/* Stamped inside the write that made the edge. */
		EXPECT_LE(m[i].raw0, (long long)e->raw_ns);
		EXPECT_GE(m[i].raw1, (long long)e->raw_ns);
		EXPECT_LE(m[i].real0, (long long)e->real_ns);
		EXPECT_GE(m[i].real1, (long long)e->real_ns);

		/* The same timestamp on /dev/ppsN, as assert or clear. */
		if (assert) {
			EXPECT_EQ((long long)e->real_ns, pps_ktime_ns(&k.assert_tu));
			EXPECT_EQ(k0.assert_sequence + i / 2 + 1, k.assert_sequence);
			EXPECT_EQ(k0.clear_sequence + (i + 1) / 2, k.clear_sequence);
		} else {
			EXPECT_EQ((long long)e->real_ns, pps_ktime_ns(&k.clear_tu));
			EXPECT_EQ(k0.clear_sequence + i / 2 + 1, k.clear_sequence);
			EXPECT_EQ(k0.assert_sequence + (i + 1) / 2, k.assert_sequence);
		}
	}
	/* No other event, none twice. */
	nlt_events_wait(&self->nl, self->q, self->id, NULL, NULL, 200);
	EXPECT_EQ(want, self->q->n);
	EXPECT_EQ(0, self->q->overruns);

	ASSERT_EQ(0, gpsphc_stats(self->id, st1));
	EXPECT_EQ((unsigned long long)n, st1[ST_PPS_EDGES] - st0[ST_PPS_EDGES]);
	EXPECT_EQ(0, st1[ST_PPS_MISSED] - st0[ST_PPS_MISSED]);
	EXPECT_EQ(0, st1[ST_EVENTS_DROPPED]);
	for (i = ST_SENTENCES; i <= ST_BINARY_BAD; i++)
		EXPECT_EQ(0, st1[i]) TH_LOG("%s", gpsphc_stat_names[i]);
}

TEST_F(pps, sysfs_layout)
{
	char buf[64], want[32];

	ASSERT_LT(0, gpsphc_attr_get(self->id, "tty", buf, sizeof(buf)));
	EXPECT_STREQ(TTY_NAME "\n", buf);
	ASSERT_LT(0, gpsphc_attr_get(self->id, "pps_device", buf, sizeof(buf)));
	snprintf(want, sizeof(want), "pps%d\n", self->pps_index);
	EXPECT_STREQ(want, buf);
	ASSERT_LT(0, gpsphc_attr_get(self->id, "edge", buf, sizeof(buf)));
	EXPECT_STREQ("rising\n", buf);
	ASSERT_LT(0, gpsphc_attr_get(self->id, "available_edges", buf, sizeof(buf)));
	EXPECT_STREQ("rising falling\n", buf);
	/* /sys/class/pps/ppsN is the same device. */
	snprintf(want, sizeof(want), "/sys/class/pps/pps%d", self->pps_index);
	EXPECT_EQ(0, access(want, F_OK));
}

TEST_F(pps, dcd_edges_rising_on_time)
{
	manual_edges(_metadata, self, 10, GPSPHC_EDGE_RISING);
}

TEST_F(pps, edge_falling_moves_assert)
{
	char buf[32];

	ASSERT_EQ(0, gpsphc_attr_set(self->id, "edge", "falling\n"));
	ASSERT_LT(0, gpsphc_attr_get(self->id, "edge", buf, sizeof(buf)));
	EXPECT_STREQ("falling\n", buf);
	manual_edges(_metadata, self, 10, GPSPHC_EDGE_FALLING);

	/* And back, without the newline echo adds. */
	ASSERT_EQ(0, gpsphc_attr_set(self->id, "edge", "rising"));
	ASSERT_LT(0, gpsphc_attr_get(self->id, "edge", buf, sizeof(buf)));
	EXPECT_STREQ("rising\n", buf);
	manual_edges(_metadata, self, 4, GPSPHC_EDGE_RISING);
}

TEST_F(pps, edge_rejects_other_values)
{
	static const char *const bad[] = {
		"high", "\n", "1", "2", "Rising", "risingx", "rising falling",
		"fall", " rising",
	};
	char buf[32];
	unsigned int i;

	ASSERT_EQ(0, gpsphc_attr_set(self->id, "edge", "falling"));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, gpsphc_attr_set(self->id, "edge", bad[i]))
			TH_LOG("'%s'", bad[i]);
		ASSERT_LT(0, gpsphc_attr_get(self->id, "edge", buf, sizeof(buf)));
		EXPECT_STREQ("falling\n", buf) TH_LOG("after '%s'", bad[i]);
	}
	EXPECT_EQ(-EACCES, gpsphc_attr_set(self->id, "available_edges", "rising"));
	EXPECT_EQ(-EACCES, gpsphc_attr_set(self->id, "pps_device", "pps0"));
	EXPECT_EQ(-EACCES, gpsphc_attr_set(self->id, "statistics/pps_edges", "0"));
}

/* The PPS source captures both edges and applies no offset by default. */
TEST_F(pps, pps_source_parameters)
{
	struct pps_kparams p;
	int caps;

	ASSERT_EQ(0, ioctl(self->pps_fd, PPS_GETCAP, &caps));
	EXPECT_EQ(PPS_CAPTUREBOTH, caps & PPS_CAPTUREBOTH);
	EXPECT_TRUE(caps & PPS_CANWAIT);
	ASSERT_EQ(0, ioctl(self->pps_fd, PPS_GETPARAMS, &p));
	EXPECT_EQ(PPS_CAPTUREBOTH, p.mode & PPS_CAPTUREBOTH);
	EXPECT_EQ(0, pps_ktime_ns(&p.assert_off_tu));
	EXPECT_EQ(0, pps_ktime_ns(&p.clear_off_tu));
}

/* One line of the fake UART's edge log. */
struct sim_edge {
	long long index, pulse, intended_ns, raw_ns, mono_ns;
	int level;
};

static int read_sim_edges(struct sim_edge *e, int max)
{
	char path[128], line[256];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), SIM_DEBUGFS "/ttyGPSSIM%d/edges", PORT);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lld %lld %d %lld %lld %lld", &e[n].index,
			   &e[n].pulse, &e[n].level, &e[n].intended_ns,
			   &e[n].raw_ns, &e[n].mono_ns) == 6)
			n++;
	fclose(f);
	return n;
}

/*
 * Run the generator until @nedges edges were notified, then stop it. The
 * first pulse comes at the next whole second at least 1 s away.
 */
static void run_generator(struct __test_metadata *_metadata,
			  FIXTURE_DATA(pps) *self, int nedges, int timeout_ms)
{
	ASSERT_EQ(0, sim_set(PORT, "edges", "clear"));
	nlt_events_clear(self->q);
	ASSERT_EQ(0, sim_set(PORT, "pulse_enable", "1"));
	nlt_events_wait(&self->nl, self->q, self->id, got_pps, &nedges, timeout_ms);
	ASSERT_EQ(0, sim_set(PORT, "pulse_enable", "0"));
	/* Catch any edge notified after the last we waited for. */
	nlt_events_wait(&self->nl, self->q, self->id, NULL, NULL, 200);
	ASSERT_EQ(nedges, self->q->n);
	EXPECT_EQ(0, self->q->overruns);
}

/*
 * Every generator edge matches the fake UART's log of it: same order and
 * level, stamped 0..STAMP_BOUND_NS after the fake UART read its raw clock,
 * on-time edges one second apart; /dev/ppsN has the last ones.
 */
TEST_F_TIMEOUT(pps, generator_4s_matches_edge_log, 60)
{
	struct sim_edge log[16];
	struct pps_kinfo k;
	long long max_delay = 0, max_spacing_err = 0, d, off0 = 0;
	const struct nlt_event *last_assert = NULL, *last_clear = NULL;
	int i, n;

	ASSERT_EQ(0, sim_set(PORT, "pulse_width_ms", "200"));
	run_generator(_metadata, self, 8, 10000);
	n = read_sim_edges(log, 16);
	ASSERT_EQ(8, n);

	for (i = 0; i < n; i++) {
		const struct nlt_event *e = &self->q->ev[i];

		ASSERT_EQ(GPSPHC_CMD_PPS_NTF, e->cmd);
		EXPECT_EQ(self->q->ev[0].seq + i, e->seq);
		EXPECT_EQ(i / 2, log[i].pulse);
		EXPECT_EQ(!(i % 2), log[i].level);
		EXPECT_EQ(log[i].level ? GPSPHC_EDGE_RISING : GPSPHC_EDGE_FALLING, e->edge);
		EXPECT_EQ(log[i].level == 1, e->assert);
		d = (long long)e->raw_ns - log[i].raw_ns;
		EXPECT_LE(0, d) TH_LOG("edge %d stamped before the UART raised it", i);
		EXPECT_GT(STAMP_BOUND_NS, d) TH_LOG("edge %d stamped %lld ns late", i, d);
		if (d > max_delay)
			max_delay = d;
		/* raw and real from one snapshot: their difference holds still. */
		if (i == 0)
			off0 = (long long)(e->real_ns - e->raw_ns);
		EXPECT_GT(100000, llabs((long long)(e->real_ns - e->raw_ns) - off0));
		if (i >= 2) {
			d = (long long)(e->raw_ns - self->q->ev[i - 2].raw_ns) - 1000000000LL;
			EXPECT_GT(SPACING_BOUND_NS, llabs(d)) TH_LOG("edge %d spacing", i);
			if (llabs(d) > max_spacing_err)
				max_spacing_err = llabs(d);
			d = (long long)(e->raw_ns - self->q->ev[i - 2].raw_ns) -
			    (log[i].raw_ns - log[i - 2].raw_ns);
			EXPECT_GT(2 * STAMP_BOUND_NS, llabs(d));
		}
		if (i % 2) {
			d = (long long)(e->raw_ns - self->q->ev[i - 1].raw_ns) - 200000000LL;
			EXPECT_GT(SPACING_BOUND_NS, llabs(d)) TH_LOG("pulse %d width", i / 2);
		}
		if (e->assert)
			last_assert = e;
		else
			last_clear = e;
	}
	TH_LOG("stamp after the UART's raw read: max %lld ns; 1 s spacing error max %lld ns",
	       max_delay, max_spacing_err);

	ASSERT_EQ(0, pps_fetch(self->pps_fd, &k));
	ASSERT_NE(NULL, last_assert);
	ASSERT_NE(NULL, last_clear);
	EXPECT_EQ((long long)last_assert->real_ns, pps_ktime_ns(&k.assert_tu));
	EXPECT_EQ((long long)last_clear->real_ns, pps_ktime_ns(&k.clear_tu));
}

/*
 * Pulses 2, 5 and 6 are left out: on-time edges at 0 1 3 4 7 s, so gaps
 * of 2 s (one missed) and 3 s (two missed). Edges without gaps count
 * nothing; the sequence numbers have no holes (they count edges seen).
 */
TEST_F_TIMEOUT(pps, missed_pulses_counted, 60)
{
	unsigned long long st0[GPSPHC_NSTATS], st1[GPSPHC_NSTATS];
	static const int pulses[] = { 0, 1, 3, 4, 7 };
	struct sim_edge log[16];
	int i, n;

	ASSERT_EQ(0, sim_set(PORT, "pulse_miss", "2,5,6"));
	ASSERT_EQ(0, gpsphc_stats(self->id, st0));
	run_generator(_metadata, self, 10, 15000);
	ASSERT_EQ(0, gpsphc_stats(self->id, st1));
	n = read_sim_edges(log, 16);
	ASSERT_EQ(10, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(pulses[i / 2], log[i].pulse);
		EXPECT_EQ(self->q->ev[0].seq + i, self->q->ev[i].seq);
		EXPECT_EQ(log[i].level == 1, self->q->ev[i].assert);
	}
	/*
	 * The servo counted every on-time edge, and its count (the second
	 * each notification carries) skips the missed pulses' seconds.
	 */
	for (i = 0; i < n; i++) {
		const struct nlt_event *e = &self->q->ev[i];

		EXPECT_EQ(e->assert, e->counted) TH_LOG("edge %d", i);
		if (e->assert)
			EXPECT_EQ(self->q->ev[0].second + pulses[i / 2] - pulses[0],
				  e->second) TH_LOG("edge %d", i);
	}
	EXPECT_EQ(10, st1[ST_PPS_EDGES] - st0[ST_PPS_EDGES]);
	EXPECT_EQ(3, st1[ST_PPS_MISSED] - st0[ST_PPS_MISSED]);
	EXPECT_EQ(0, st1[ST_EVENTS_DROPPED]);
}

/* Rate 10 % fast: 0.9 s gaps are no gap; nothing counts as missed. */
TEST_F_TIMEOUT(pps, fast_pulses_not_missed, 60)
{
	unsigned long long st0[GPSPHC_NSTATS], st1[GPSPHC_NSTATS];

	ASSERT_EQ(0, sim_set(PORT, "pulse_ppb", "-100000000"));
	ASSERT_EQ(0, gpsphc_stats(self->id, st0));
	run_generator(_metadata, self, 6, 10000);
	ASSERT_EQ(0, gpsphc_stats(self->id, st1));
	EXPECT_EQ(6, st1[ST_PPS_EDGES] - st0[ST_PPS_EDGES]);
	EXPECT_EQ(0, st1[ST_PPS_MISSED] - st0[ST_PPS_MISSED]);
}

TEST_HARNESS_MAIN
