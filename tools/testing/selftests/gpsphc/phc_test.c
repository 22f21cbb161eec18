// SPDX-License-Identifier: GPL-2.0
/*
 * The PTP hardware clock of a gpsphc device (/dev/ptpN), disciplined by the
 * in-kernel servo to the fake UART's pulse generator and labelled with
 * GPSPHC_CMD_TIME_SET: the clock's interfaces (caps, cross timestamps,
 * settime/adjtime/adjfine, EXTTS), locking to a 50 ppm fast receiver,
 * linuxptp's phc_ctl and phc2sys on it, holdover, missed pulses, labels
 * that disagree with the kernel's count, leap seconds in UTC mode, two
 * receivers at once, detach with the clock open, and netlink refusals.
 *
 * Time on the PHC is checked at the pulses themselves: every on-time edge
 * is an EXTTS event in PHC time, so "PHC time of edge k" is read exactly,
 * and the edge's receiver second k is derived from its CLOCK_MONOTONIC_RAW
 * stamp (GPSPHC_A_PPS_RAW_NS) and the generator's period, independently of
 * the kernel's own count.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "kselftest_harness.h"
#include "gpsphc_test.h"
#include "nl_helpers.h"
#include "phc_helpers.h"

/* A TAI second in 2027, far from the guest's CLOCK_REALTIME. */
#define T0		1800000037ULL
#define TAI_UTC		37
/* 2027-01-01 00:00:00 UTC: a midnight that may end a leap day. */
#define LEAP_MIDNIGHT	1798761600ULL

#define GEN_PPB		50000	/* a receiver clock 50 ppm fast */
#define GEN_JITTER_NS	"1000"

/*
 * Bounds on "PHC time of edge k minus (T + k) s" at edges the servo took
 * in LOCKED.
 *
 * The servo and EXTTS use the same stamp, taken first thing in the DCD
 * path of the fake UART's hrtimer callback; what the stamp carries beyond
 * the receiver's 1 us jitter is the hrtimer's lateness, 0.1 to 21.5 ms
 * under TCG on a busy 2-core host (gpsphc_sim/CONTROL.rst). A locked
 * servo follows the typical lateness; an edge's error is its own lateness
 * minus that, and a late edge shows its whole lateness (the servo rejects
 * it as an outlier, but EXTTS reports what was stamped). The lock test's
 * p90 and max are of the clock at the edges' true instants: each stamp's
 * own lateness, which the fake UART logs, taken out (fill_lateness()).
 * On PREEMPT_RT, where the hrtimer runs in a thread, two stamps of ten
 * came 2.6 and 2.7 ms late with the clock right at both.
 *
 * Measured, 10 locked edges a run, 6.1 and 6.12, one VM or two at once:
 * median |err| 19..140 us, p90 39..742 us, max 0.15..2.1 ms; before
 * LOCKED, a 6.3 ms late edge was seen on a busy host. So: p90 below 1 ms
 * (a servo off by 100 ppm drifts past it within 10 s), every edge below
 * 25 ms (the worst hrtimer lateness TCG shows, with room: a wrong second
 * or a diverging loop is far beyond it).
 */
#define LOCK_P90_NS	1000000LL
#define LOCK_MAX_NS	25000000LL
/*
 * "The right second" at any edge after the first label, locked or not:
 * the step puts the clock on the label to within that edge's lateness,
 * and the 50 ppm frequency error adds 50 us a second until the servo has
 * it. An edge's lateness is normally below 21.5 ms under TCG, but with
 * two VMs on the 2-core host one edge came 288 ms late (the clock was
 * right at the next edge): 400 ms still tells a wrong second from a late
 * edge.
 */
#define LOOSE_NS	400000000LL

/* Edges allowed to reach LOCKED after the first label (contract: ~10-15). */
#define LOCK_MAX_EDGES	20
/*
 * A capture spike: a stamp this late (under TCG, beside another test:
 * 2.9 and 3.5 ms on armhf) is an outlier the servo must not lock
 * through. It needs GPSPHC_SERVO_LOCK_EDGES clean edges after it, and
 * one for the spike itself; the first LOCK_SPIKES such edges each give
 * that many more edges to lock.
 */
#define LOCK_SPIKE_NS	LOCK_P90_NS
#define LOCK_SPIKE_EDGES	5
#define LOCK_SPIKES	2
/*
 * A shift of the capture latency: stamps this much later than the median
 * of those before the lock. Beside another test on the arm64 guest, k10
 * to k13 came about 300, 100, 75 and 60 us later than before, and the
 * locked servo, whose offsets had been within 6 us, rightly went back to
 * LOCKING. Seen within LOCK_SHIFT_WINDOW edges up to one in LOCKING, it
 * gives the measurement LOCK_MAX_EDGES more edges, once.
 */
#define LOCK_SHIFT_NS	100000LL
#define LOCK_SHIFT_WINDOW	6
/* Locked edges measured. */
#define MEASURE_EDGES	10
/*
 * Tests of other things (phc2sys, holdover) give the servo this many
 * edges to lock, then go on in whatever state it reached, so that they
 * test their own subject; locking itself is the lock test's.
 */
#define PRELOCK_EDGES	15

#define MAX_EDGES	512
#define MAX_NTF		128

struct edge {
	uint32_t seq;
	long long raw, real;
	long k;			/* receiver second after the reference edge */
	long long extts;	/* PHC time of the edge (EXTTS), if has_extts */
	bool has_extts;
	bool counted;		/* the servo counted it as a second */
	long long late;		/* its stamp's lateness, if has_late */
	bool has_late;
	uint32_t state;		/* servo state notified when the edge came */
};

struct ntf {
	uint8_t cmd;
	struct nlt_servo servo;
	struct nlt_time time;
	uint32_t confirm_n;	/* LABEL_NTF */
	int after_edge;		/* rx->n when it came */
};

struct rx {
	int port;
	char tty[16];
	int tty_fd, id, ptp_index, ptp_fd;
	long long ppb;		/* the generator's */
	int n;			/* on-time edges seen */
	struct edge e[MAX_EDGES];
	int n_ext;		/* EXTTS events read */
	long long ext[MAX_EDGES];
	bool have_ref;
	long long raw0;		/* raw stamp of the reference edge (k = 0) */
	uint64_t tai0;		/* its TAI second */
	uint32_t tai_utc;
	uint32_t state;		/* from the last STATE_NTF, 0 before any */
	int n_ntf;
	struct ntf ntf[MAX_NTF];
};

struct ctx {
	struct nlt_sock nl;
	struct nlt_events *q;
	struct rx rx[2];
	int nrx;
	long long t_start;	/* CLOCK_MONOTONIC at set-up, for the log */
};

static const char *const state_names[] = {
	[GPSPHC_SERVO_UNLOCKED] = "unlocked", [GPSPHC_SERVO_LOCKING] = "locking",
	[GPSPHC_SERVO_LOCKED] = "locked", [GPSPHC_SERVO_HOLDOVER] = "holdover",
	[GPSPHC_SERVO_OFF] = "off",
};

static const char *state_name(uint32_t s)
{
	return s && s <= GPSPHC_SERVO_MAX ? state_names[s] : "?";
}

/* ---- set-up ---------------------------------------------------------------- */

static void ctx_setup(struct __test_metadata *_metadata, struct ctx *c)
{
	int ret;

	memset(c, 0, sizeof(*c));
	c->t_start = clock_ns(CLOCK_MONOTONIC);
	c->nl.fd = -1;
	ret = nlt_open_events(&c->nl, &c->q);
	ASSERT_EQ(0, ret) TH_LOG("genl family " GPSPHC_GENL_NAME " events: %s",
				 strerror(-ret));
}

static void rx_detach(struct rx *rx)
{
	sim_set(rx->port, "pulse_enable", "0");
	if (rx->ptp_fd > 0)
		close(rx->ptp_fd);
	rx->ptp_fd = -1;
	if (rx->tty_fd > 0) {
		ldisc_set(rx->tty_fd, N_TTY);
		close(rx->tty_fd);
	}
	rx->tty_fd = -1;
	sim_pulse_reset(rx->port);
	sim_set(rx->port, "dcd", "0");
}

static void ctx_teardown(struct ctx *c)
{
	int i;

	/* The whole program must fit run_tests.sh's 300 s: say what each took. */
	fprintf(stderr, "# %.1f s\n", (clock_ns(CLOCK_MONOTONIC) - c->t_start) / 1e9);

	for (i = 0; i < c->nrx; i++)
		rx_detach(&c->rx[i]);
	if (c->q)
		nlt_events_free(c->q);
	free(c->q);
	c->q = NULL;
	nlt_close(&c->nl);
}

/* Drain whatever EXTTS events are queued on @fd. */
static void extts_drain(int fd)
{
	struct ptp_extts_event ev[16];

	while (phc_extts_read(fd, ev, 16, 0) > 0)
		;
}

/*
 * GPSPHC_PHC_PORT=N puts every receiver on fake port N, for fixtures of
 * one receiver: make check's timed guests run lock, leap and tsnl so,
 * beside the other fixtures on ports 0 to 2 (run_tests.sh's "&").
 */
static const char *phc_port_env(void)
{
	const char *env = getenv("GPSPHC_PHC_PORT");

	return env && *env ? env : NULL;
}

static int phc_port(struct __test_metadata *_metadata, int i, int port)
{
	if (!phc_port_env())
		return port;
	ASSERT_EQ(0, i) TH_LOG("GPSPHC_PHC_PORT=%s: this test has two receivers",
			       phc_port_env());
	return atoi(phc_port_env());
}

/*
 * Attach the discipline to fake port @port as receiver @i: its gpsphc
 * device, /dev/ptpN open with EXTTS on, the generator reset.
 */
static void rx_attach(struct __test_metadata *_metadata, struct ctx *c, int i,
		      int port)
{
	struct rx *rx = &c->rx[i];
	int ret;

	port = phc_port(_metadata, i, port);
	memset(rx, 0, sizeof(*rx));
	rx->port = port;
	rx->tty_fd = rx->ptp_fd = -1;
	if (c->nrx < i + 1)
		c->nrx = i + 1;
	snprintf(rx->tty, sizeof(rx->tty), "ttyGPSSIM%d", port);
	ASSERT_EQ(0, sim_port_present(port, 1));
	sim_pulse_reset(port);
	/*
	 * Beside other tests, pulses half a second from theirs: pulses at
	 * the same instants delay one another's edges, by about 100 us
	 * under TCG, for as long as both run (a LOCKED servo saw that
	 * step when the other test's pulses started, and relocked).
	 */
	if (phc_port_env())
		ASSERT_EQ(0, sim_set(port, "pulse_phase_ms", "500"));
	ASSERT_EQ(0, sim_set(port, "dcd", "0"));
	rx->tty_fd = sim_tty_open(port, O_NONBLOCK);
	ASSERT_LE(0, rx->tty_fd) TH_LOG("open /dev/%s: %s", rx->tty, strerror(-rx->tty_fd));
	ASSERT_EQ(0, ldisc_set(rx->tty_fd, GPSPHC_LDISC));
	rx->id = gpsphc_find(rx->tty);
	ASSERT_LE(0, rx->id) TH_LOG("no gpsphc device for %s", rx->tty);
	rx->ptp_index = gpsphc_ptp_index(rx->id);
	ASSERT_LE(0, rx->ptp_index) TH_LOG("ptp_device: %s", strerror(-rx->ptp_index));
	rx->ptp_fd = phc_open(rx->ptp_index, O_RDWR);
	ASSERT_LE(0, rx->ptp_fd) TH_LOG("open /dev/ptp%d: %s", rx->ptp_index,
					strerror(-rx->ptp_fd));
	ret = phc_extts(rx->ptp_fd, 0, true);
	ASSERT_EQ(0, ret) TH_LOG("PTP_EXTTS_REQUEST: %s", strerror(-ret));
	extts_drain(rx->ptp_fd);
}

/* ---- events -------------------------------------------------------------- */

static struct rx *rx_by_id(struct ctx *c, uint32_t id)
{
	int i;

	for (i = 0; i < c->nrx; i++)
		if (c->rx[i].id >= 0 && (uint32_t)c->rx[i].id == id)
			return &c->rx[i];
	return NULL;
}

/* Receiver second of a raw stamp: whole generator periods since k = 0. */
static long k_of(const struct rx *rx, long long raw)
{
	long long p = NSEC_PER_SEC + rx->ppb, d = raw - rx->raw0;

	return d >= 0 ? (d + p / 2) / p : -((-d + p / 2) / p);
}

static bool any_event(struct nlt_events *q, void *arg)
{
	(void)arg;
	return q->n > 0;
}

/* Take in the events queued in c->q, then the EXTTS events they imply. */
static void process_events(struct ctx *c)
{
	int i;

	for (i = 0; i < c->q->n; i++) {
		const struct nlt_event *ev = &c->q->ev[i];
		struct rx *rx = rx_by_id(c, ev->dev_id);

		if (!rx)
			continue;
		if (ev->cmd == GPSPHC_CMD_PPS_NTF && ev->assert && rx->n < MAX_EDGES) {
			struct edge *e = &rx->e[rx->n++];

			memset(e, 0, sizeof(*e));
			e->seq = ev->seq;
			e->raw = ev->raw_ns;
			e->real = ev->real_ns;
			e->k = rx->have_ref ? k_of(rx, e->raw) : 0;
			e->counted = ev->counted;
			e->state = rx->state;
		} else if ((ev->cmd == GPSPHC_CMD_STATE_NTF ||
			    ev->cmd == GPSPHC_CMD_LABEL_NTF) && rx->n_ntf < MAX_NTF) {
			struct ntf *f = &rx->ntf[rx->n_ntf++];

			f->cmd = ev->cmd;
			f->servo = ev->servo;
			f->time = ev->time;
			f->confirm_n = ev->confirm_n;
			f->after_edge = rx->n;
			if (ev->cmd == GPSPHC_CMD_STATE_NTF)
				rx->state = ev->servo.state;
		}
	}
	nlt_events_clear(c->q);

	/*
	 * Each on-time edge is one EXTTS event, queued in the DCD interrupt
	 * before its PPS_NTF leaves: read as many as there are new edges,
	 * no more (later edges' events may already be queued).
	 */
	for (i = 0; i < c->nrx; i++) {
		struct rx *rx = &c->rx[i];
		struct ptp_extts_event ev[16];
		int j, n, need;

		while (rx->ptp_fd >= 0 && (need = rx->n - rx->n_ext) > 0) {
			n = phc_extts_read(rx->ptp_fd, ev, need < 16 ? need : 16, 200);
			if (n <= 0)
				break;
			for (j = 0; j < n; j++) {
				rx->ext[rx->n_ext] = pct_ns(&ev[j].t);
				rx->e[rx->n_ext].extts = rx->ext[rx->n_ext];
				rx->e[rx->n_ext].has_extts = true;
				rx->n_ext++;
			}
		}
	}
}

/* EXTTS events queued beyond the edges notified (pulses stopped first). */
static int extts_extra(struct rx *rx)
{
	struct ptp_extts_event ev[16];
	int n, extra = 0;

	while ((n = phc_extts_read(rx->ptp_fd, ev, 16, 100)) > 0)
		extra += n;
	return extra;
}

/* Events for up to @ms, whatever comes. */
static void pump(struct ctx *c, int ms)
{
	long long end = clock_ns(CLOCK_MONOTONIC) + ms * 1000000LL;

	for (;;) {
		long long left = (end - clock_ns(CLOCK_MONOTONIC)) / 1000000;

		if (left <= 0)
			break;
		nlt_events_wait(&c->nl, c->q, -1, any_event, NULL, left);
		process_events(c);
	}
}

/* Wait for the next on-time edge of @rx: its index, or -1 after @ms. */
static int wait_edge(struct ctx *c, struct rx *rx, int ms)
{
	long long end = clock_ns(CLOCK_MONOTONIC) + ms * 1000000LL;
	int want = rx->n + 1;

	while (rx->n < want) {
		long long left = (end - clock_ns(CLOCK_MONOTONIC)) / 1000000;

		if (left <= 0)
			return -1;
		nlt_events_wait(&c->nl, c->q, -1, any_event, NULL, left);
		process_events(c);
	}
	return want - 1;
}

/* Wait until @rx's servo notified state @state: true if it did within @ms. */
static bool wait_state(struct ctx *c, struct rx *rx, uint32_t state, int ms)
{
	long long end = clock_ns(CLOCK_MONOTONIC) + ms * 1000000LL;

	while (rx->state != state) {
		long long left = (end - clock_ns(CLOCK_MONOTONIC)) / 1000000;

		if (left <= 0)
			return false;
		nlt_events_wait(&c->nl, c->q, -1, any_event, NULL, left);
		process_events(c);
	}
	return true;
}

static int count_ntf(const struct rx *rx, uint8_t cmd)
{
	int i, n = 0;

	for (i = 0; i < rx->n_ntf; i++)
		n += rx->ntf[i].cmd == cmd;
	return n;
}

/* ---- labels ---------------------------------------------------------------- */

/* Make edge @idx of @rx the reference: k = 0 is TAI second @tai0. */
static void set_ref(struct rx *rx, int idx, uint64_t tai0, uint32_t tai_utc)
{
	int i;

	rx->have_ref = true;
	rx->raw0 = rx->e[idx].raw;
	rx->tai0 = tai0;
	rx->tai_utc = tai_utc;
	for (i = 0; i < rx->n; i++)
		rx->e[i].k = k_of(rx, rx->e[i].raw);
}

/* Label edge @idx with its true TAI second plus @dsec; the request's result. */
static int label(struct ctx *c, struct rx *rx, int idx, long dsec,
		 struct nlt_result *res)
{
	return nlt_time_set(&c->nl, rx->id, rx->e[idx].seq,
			    rx->tai0 + rx->e[idx].k + dsec, rx->tai_utc, 0, 0, res);
}

/* PHC time of edge @idx minus its true TAI second (TAI scale), in ns. */
static long long edge_err(const struct rx *rx, int idx)
{
	return rx->e[idx].extts - (long long)(rx->tai0 + rx->e[idx].k) * NSEC_PER_SEC;
}

/*
 * An edge the servo counts as no second is one it found more than its
 * phase window (10 ms, kmod/servo/count.c) off the clock's second: the
 * fake UART's hrtimer fires up to 21.5 ms late on a busy host.
 */
#define UNCOUNTED_MIN_NS	9000000LL

/*
 * Label edge @idx with its true second plus @dsec if the servo counted it
 * as a second: true if labelled (@res then holds the answer). An edge left
 * uncounted is not labelled (the kernel would refuse it, rightly, as
 * gpsphcd's label would be); it must have been that late, or the test fails.
 */
static bool label_if_counted(struct __test_metadata *_metadata, struct ctx *c,
			     struct rx *rx, int idx, long dsec, struct nlt_result *res)
{
	long long late;

	memset(res, 0, sizeof(*res));
	if (rx->e[idx].counted) {
		EXPECT_EQ(0, label(c, rx, idx, dsec, res));
		return true;
	}
	late = edge_err(rx, idx) % NSEC_PER_SEC;
	if (late > NSEC_PER_SEC / 2)
		late -= NSEC_PER_SEC;
	else if (late < -NSEC_PER_SEC / 2)
		late += NSEC_PER_SEC;
	TH_LOG("k=%ld not counted by the servo, %lld us off the clock's second: not labelled",
	       rx->e[idx].k, late / 1000);
	EXPECT_TRUE(rx->e[idx].has_extts);
	EXPECT_LE(UNCOUNTED_MIN_NS, llabs(late));
	return false;
}

/*
 * Start @rx's generator (settings already written) and label its first
 * on-time edge with TAI second @tai0: the index of that edge.
 */
static int start_and_label(struct __test_metadata *_metadata, struct ctx *c,
			   struct rx *rx, uint64_t tai0, uint32_t tai_utc,
			   uint32_t leap, uint64_t leap_utc)
{
	struct nlt_result res;
	int idx;

	ASSERT_EQ(0, sim_set(rx->port, "edges", "clear"));
	ASSERT_EQ(0, sim_set(rx->port, "pulse_enable", "1"));
	/* The first pulse comes at the next whole second at least 1 s away. */
	idx = wait_edge(c, rx, 4000);
	ASSERT_LE(0, idx) TH_LOG("no on-time edge within 4 s");
	set_ref(rx, idx, tai0, tai_utc);
	ASSERT_EQ(0, nlt_time_set(&c->nl, rx->id, rx->e[idx].seq, tai0, tai_utc,
				  leap, leap_utc, &res));
	ASSERT_EQ(0, res.err) TH_LOG("first label refused: %s \"%s\"", strerror(res.err),
				     res.ext_msg);
	return idx;
}

/*
 * The lateness of the stamps of edges [from, to) of @rx, and how many
 * of them have one: the fake UART's edges log has, for each edge, the
 * CLOCK_MONOTONIC_RAW instant the receiver meant (intended_ns) and the
 * raw time just before its DCD call, which finds the edge whose stamp
 * (raw, the same clock) came right after. The edges kept there (4096)
 * outlast any test here.
 */
static int fill_lateness(struct rx *rx, int from, int to)
{
	static struct sim_pulse_edge log[SIM_EDGE_LOG];
	int i, j, found = 0, len = sim_pulse_edges(rx->port, log, SIM_EDGE_LOG);

	for (j = 0; j < len; j++) {
		for (i = from; i < to; i++) {
			long long d = rx->e[i].raw - log[j].raw_ns;

			if (d >= 0 && d < 10000000) {
				rx->e[i].late = rx->e[i].raw - log[j].intended_ns;
				rx->e[i].has_late = true;
			}
		}
	}
	for (i = from; i < to; i++)
		found += rx->e[i].has_late;
	return found;
}

/* The median lateness of edges [from, to) of @rx that have one (0: none). */
static long long median_lateness(const struct rx *rx, int from, int to)
{
	static long long a[MAX_EDGES];
	int i, n = 0;

	for (i = from; i < to; i++)
		if (rx->e[i].has_late)
			a[n++] = rx->e[i].late;
	if (!n)
		return 0;
	qsort(a, n, sizeof(a[0]), cmp_ll);
	return a[n / 2];
}

/*
 * The first of the LOCK_SHIFT_WINDOW edges up to @idx (not before @from)
 * whose stamp came more than @over late, by the fake UART's log, or -1.
 */
static int late_edge(struct rx *rx, int from, int idx, long long over)
{
	int i = idx + 1 - LOCK_SHIFT_WINDOW;

	if (i < from)
		i = from;
	fill_lateness(rx, i, idx + 1);
	for (; i <= idx; i++)
		if (rx->e[i].has_late && rx->e[i].late > over)
			return i;
	return -1;
}

/*
 * Run until the servo notifies LOCKED, labelling each edge with its true
 * second if @label_each: the number of edges it took, or -1 if @max
 * edges went by without. A gap of two or more missed pulses puts the
 * servo in HOLDOVER, from which it locks anew: the @max edges count
 * from the first edge after such a gap. A stamp that the fake UART's
 * log shows LOCK_SPIKE_NS late breaks the run of locked offsets, as it
 * should: each of the first LOCK_SPIKES such stamps gives
 * LOCK_SPIKE_EDGES more edges.
 */
static int run_until_locked(struct __test_metadata *_metadata, struct ctx *c,
			    struct rx *rx, bool label_each, int max)
{
	struct nlt_result res;
	int i, idx, from = 0, spikes = 0;

	for (i = 1; i - from <= max; i++) {
		/*
		 * Two missed pulses in a row leave 3 s between edges, and
		 * the wait begins 50 ms after the last: the next edge's
		 * notification, from the event worker (a thread's timer on
		 * PREEMPT_RT), may come later than 3 s from here.
		 */
		idx = wait_edge(c, rx, 4500);
		ASSERT_LE(0, idx) TH_LOG("pulses stopped");
		if (idx > 0 && rx->e[idx].k - rx->e[idx - 1].k > 2) {
			TH_LOG("%ld s without a pulse before k=%ld, after %d edges: %d more to lock",
			       rx->e[idx].k - rx->e[idx - 1].k, rx->e[idx].k, i - 1, max);
			from = i - 1;
		}
		if (spikes < LOCK_SPIKES && late_edge(rx, idx, idx, LOCK_SPIKE_NS) >= 0) {
			TH_LOG("k=%ld stamped %lld us late: %d more edges to lock",
			       rx->e[idx].k, rx->e[idx].late / 1000, LOCK_SPIKE_EDGES);
			from += LOCK_SPIKE_EDGES;
			spikes++;
		}
		if (label_each && label_if_counted(_metadata, c, rx, idx, 0, &res))
			EXPECT_EQ(0, res.err) TH_LOG("label of k=%ld refused: %s \"%s\"",
						     rx->e[idx].k, strerror(res.err), res.ext_msg);
		/* The STATE_NTF of this edge may trail its PPS_NTF a little. */
		if (rx->state != GPSPHC_SERVO_LOCKED)
			pump(c, 50);
		if (rx->state == GPSPHC_SERVO_LOCKED)
			return i;
	}
	return -1;
}

/*
 * The clock's error at edge @idx's true instant: what its stamp read,
 * less the stamp's lateness if known.
 */
static long long clock_err(const struct rx *rx, int idx)
{
	return edge_err(rx, idx) - (rx->e[idx].has_late ? rx->e[idx].late : 0);
}

/*
 * Statistics of the clock's |error| at the true instants of edges [from,
 * to) of @rx with an EXTTS time (and taken in LOCKED if @locked).
 */
struct err_stats {
	int n;
	long long p50, p90, max, mean;
};

static struct err_stats err_stats(const struct rx *rx, int from, int to, bool locked)
{
	static long long a[MAX_EDGES];
	struct err_stats s = { 0 };
	long long sum = 0;
	int i, late;

	for (i = from; i < to; i++) {
		if (!rx->e[i].has_extts)
			continue;
		if (locked && rx->e[i].state != GPSPHC_SERVO_LOCKED)
			continue;
		sum += clock_err(rx, i);
		a[s.n++] = llabs(clock_err(rx, i));
	}
	if (!s.n)
		return s;
	qsort(a, s.n, sizeof(a[0]), cmp_ll);
	s.p50 = a[s.n / 2];
	/*
	 * One late edge in ten passes (see LOCK_P90_NS), and one with fewer
	 * edges taken in LOCKED too (the missed-pulse variants take 9).
	 */
	late = s.n / 10 > 1 ? s.n / 10 : 1;
	s.p90 = a[s.n > late ? s.n - 1 - late : 0];
	s.max = a[s.n - 1];
	s.mean = sum / s.n;
	return s;
}

static void log_edges(struct __test_metadata *_metadata, const struct rx *rx,
		      int from, int to)
{
	char line[1024];
	int i, len = 0;

	line[0] = '\0';
	for (i = from; i < to; i++) {
		len += snprintf(line + len, sizeof(line) - len, " k%ld:%+lldus", rx->e[i].k,
				rx->e[i].has_extts ? edge_err(rx, i) / 1000 : 0);
		/* A stamp more than 1 ms late says so. */
		if (rx->e[i].has_late && llabs(rx->e[i].late) > 1000000)
			len += snprintf(line + len, sizeof(line) - len, "(stamp %+lldus late)",
					rx->e[i].late / 1000);
		if (len > (int)sizeof(line) - 80 || i == to - 1) {
			TH_LOG("%s: PHC - label at edges:%s", rx->tty, line);
			len = 0;
			line[0] = '\0';
		}
	}
}

/* ---- fixture: one receiver, no variants ------------------------------------ */

FIXTURE(phc) {
	struct ctx c;
};

FIXTURE_SETUP(phc)
{
	ctx_setup(_metadata, &self->c);
}

FIXTURE_TEARDOWN(phc)
{
	ctx_teardown(&self->c);
}

/* sysfs names, the capabilities, and the links between ptp and gpsphc. */
TEST_F(phc, caps_and_sysfs)
{
	struct ptp_clock_caps caps;
	struct rx *rx = &self->c.rx[0];
	char path[256], buf[PATH_MAX], want[64];

	rx_attach(_metadata, &self->c, 0, 0);

	memset(&caps, 0, sizeof(caps));
	ASSERT_EQ(0, ioctl(rx->ptp_fd, PTP_CLOCK_GETCAPS, &caps));
	EXPECT_EQ(500000, caps.max_adj);
	EXPECT_EQ(0, caps.n_alarm);
	EXPECT_EQ(1, caps.n_ext_ts);
	EXPECT_EQ(0, caps.n_per_out);
	EXPECT_EQ(0, caps.pps);
	EXPECT_EQ(0, caps.n_pins);
	EXPECT_EQ(1, caps.cross_timestamping);

	snprintf(path, sizeof(path), "/sys/class/ptp/ptp%d/clock_name", rx->ptp_index);
	ASSERT_LT(0, read_file(path, buf, sizeof(buf)));
	EXPECT_STREQ("gpsphc ttyGPSSIM0\n", buf);
	snprintf(path, sizeof(path), "/sys/class/ptp/ptp%d/device", rx->ptp_index);
	ASSERT_NE(NULL, realpath(path, buf)) TH_LOG("%s: %s", path, strerror(errno));
	snprintf(want, sizeof(want), "/sys/devices/virtual/gpsphc/gpsphc%d", rx->id);
	EXPECT_STREQ(want, buf);
	snprintf(path, sizeof(path), "/sys/class/ptp/ptp%d/device/ptp_device", rx->ptp_index);
	ASSERT_LT(0, read_file(path, buf, sizeof(buf)));
	snprintf(want, sizeof(want), "ptp%d\n", rx->ptp_index);
	EXPECT_STREQ(want, buf);

	/* The servo's files, before any label. */
	EXPECT_STREQ("unlocked", gpsphc_servo_state(rx->id, buf, sizeof(buf)));
	ASSERT_LT(0, gpsphc_attr_str(rx->id, "scale", buf, sizeof(buf)));
	EXPECT_STREQ("tai", buf);
	ASSERT_LT(0, gpsphc_attr_str(rx->id, "available_scales", buf, sizeof(buf)));
	EXPECT_STREQ("tai utc", buf);
	ASSERT_LT(0, gpsphc_attr_str(rx->id, "leap", buf, sizeof(buf)));
	EXPECT_STREQ("none", buf);
	EXPECT_EQ(20000000, gpsphc_ll(rx->id, "step_ns"));
	EXPECT_EQ(3, gpsphc_ll(rx->id, "confirm_n"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "rx_latency_ns"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "holdover_s"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "freq_ppb"));
	EXPECT_NE(LLONG_MIN, gpsphc_ll(rx->id, "offset_ns"));
	EXPECT_NE(LLONG_MIN, gpsphc_ll(rx->id, "rms_ns"));
	EXPECT_NE(LLONG_MIN, gpsphc_ll(rx->id, "tai_utc"));
	EXPECT_NE(LLONG_MIN, gpsphc_ll(rx->id, "leap_utc"));
	EXPECT_NE(LLONG_MIN, gpsphc_ll(rx->id, "coarse"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "statistics/labels"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "statistics/labels_refused"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "statistics/disagreements"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "statistics/steps"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "statistics/outliers"));
}

/*
 * Before any label the servo leaves the clock alone, so its arithmetic can
 * be checked to the nanosecond: PRECISE's device time is the clock's
 * mapping of its sys_monoraw; settime, ADJ_SETOFFSET and ADJ_FREQUENCY do
 * exactly what they say; EXTENDED brackets the clock with CLOCK_REALTIME.
 */
TEST_F(phc, free_clock_arithmetic)
{
	struct rx *rx = &self->c.rx[0];
	struct phc_xts a = { 0 }, b = { 0 }, x = { 0 };
	struct ptp_sys_offset_extended ext;
	long long d, t, tol;
	unsigned int i;
	int fd;

	rx_attach(_metadata, &self->c, 0, 0);
	fd = rx->ptp_fd;

	/* Frequency 0: the device advances exactly as MONOTONIC_RAW. */
	ASSERT_EQ(0, phc_adj_freq(fd, 0));
	ASSERT_EQ(0, phc_precise(fd, &a));
	usleep(300000);
	ASSERT_EQ(0, phc_precise(fd, &b));
	d = (b.dev - a.dev) - (b.raw - a.raw);
	EXPECT_GE(1, llabs(d)) TH_LOG("PRECISE: device moved %lld ns more than raw", d);
	/* CLOCK_REALTIME of the same snapshot: in step with raw to 1 us. */
	EXPECT_GT(1000, llabs((b.real - a.real) - (b.raw - a.raw)));

	/* gettime sits between two PRECISE device times. */
	t = phc_gettime(fd);
	ASSERT_LT(0, t) TH_LOG("clock_gettime: %s", strerror((int)-t));
	ASSERT_EQ(0, phc_precise(fd, &x));
	EXPECT_LE(b.dev, t);
	EXPECT_GE(x.dev, t);

	/* settime: the clock reads what was set, then runs on. */
	ASSERT_EQ(0, phc_settime(fd, 1000 * NSEC_PER_SEC + 5));
	ASSERT_EQ(0, phc_precise(fd, &a));
	EXPECT_LE(1000 * NSEC_PER_SEC + 5, a.dev);
	/* 50 ms: a TCG vCPU preempted between the two syscalls. */
	EXPECT_GT(1000 * NSEC_PER_SEC + 50000000, a.dev);

	/* ADJ_SETOFFSET: device minus raw moves by exactly the offset. */
	ASSERT_EQ(0, phc_adj_offset(fd, 10 * NSEC_PER_SEC + 123));
	ASSERT_EQ(0, phc_precise(fd, &b));
	d = (b.dev - b.raw) - (a.dev - a.raw) - (10 * NSEC_PER_SEC + 123);
	EXPECT_GE(1, llabs(d)) TH_LOG("ADJ_SETOFFSET +10 s: off by %lld ns", d);
	ASSERT_EQ(0, phc_adj_offset(fd, -3 * NSEC_PER_SEC - 7));
	ASSERT_EQ(0, phc_precise(fd, &a));
	d = (a.dev - a.raw) - (b.dev - b.raw) + (3 * NSEC_PER_SEC + 7);
	EXPECT_GE(1, llabs(d)) TH_LOG("ADJ_SETOFFSET -3 s: off by %lld ns", d);

	/*
	 * ADJ_FREQUENCY +10 ppm and -250 ppm: device = raw * (1 + freq), to
	 * 1 ns plus 1 ns per second (the timecounter's multiplier grain).
	 */
	for (i = 0; i < 2; i++) {
		long long ppb = i ? -250000 : 10000;

		ASSERT_EQ(0, phc_adj_freq(fd, ppb));
		ASSERT_EQ(0, phc_precise(fd, &a));
		usleep(400000);
		ASSERT_EQ(0, phc_precise(fd, &b));
		d = (b.dev - a.dev) - (b.raw - a.raw) - (b.raw - a.raw) * ppb / NSEC_PER_SEC;
		tol = 2 + (b.raw - a.raw) / NSEC_PER_SEC;
		EXPECT_GE(tol, llabs(d)) TH_LOG("freq %lld ppb: off by %lld ns over %lld ns",
						ppb, d, b.raw - a.raw);
	}
	/* Beyond max_adj: refused, frequency unchanged. */
	EXPECT_EQ(-ERANGE, phc_adj_freq(fd, 600000));
	ASSERT_EQ(0, phc_precise(fd, &a));
	usleep(200000);
	ASSERT_EQ(0, phc_precise(fd, &b));
	d = (b.dev - a.dev) - (b.raw - a.raw) - (b.raw - a.raw) * -250000 / NSEC_PER_SEC;
	EXPECT_GE(3, llabs(d)) TH_LOG("after a refused ADJ_FREQUENCY: off by %lld ns", d);
	ASSERT_EQ(0, phc_adj_freq(fd, 0));

	/*
	 * EXTENDED: pre <= post, each PHC reading inside the bracket mapped
	 * through a PRECISE snapshot (device - realtime is constant at freq
	 * 0, to 1 us for CLOCK_REALTIME's own rate against raw).
	 */
	ASSERT_EQ(0, phc_precise(fd, &x));
	memset(&ext, 0, sizeof(ext));
	ext.n_samples = 5;
	ASSERT_EQ(0, ioctl(fd, PTP_SYS_OFFSET_EXTENDED, &ext)) TH_LOG("%s", strerror(errno));
	for (i = 0; i < ext.n_samples; i++) {
		long long pre = pct_ns(&ext.ts[i][0]), phc = pct_ns(&ext.ts[i][1]);
		long long post = pct_ns(&ext.ts[i][2]);

		EXPECT_LE(pre, post);
		/* 20 ms: a preempted vCPU; natively this is a microsecond. */
		EXPECT_GT(20000000, post - pre);
		EXPECT_LE(x.dev - x.real + pre - 1000, phc) TH_LOG("sample %u", i);
		EXPECT_GE(x.dev - x.real + post + 1000, phc) TH_LOG("sample %u", i);
		if (i)
			EXPECT_LT(pct_ns(&ext.ts[i - 1][1]), phc);
	}
}

/* Requests the clock does not support are refused, not ignored. */
TEST_F(phc, unsupported_requests_refused)
{
	struct rx *rx = &self->c.rx[0];
	struct ptp_perout_request per = { .index = 0, .period = { .sec = 1 } };
	struct ptp_pin_desc pin = { .index = 0, .func = PTP_PF_EXTTS };
	struct ptp_extts_request req = {
		.index = 1, .flags = PTP_ENABLE_FEATURE | PTP_RISING_EDGE,
	};
	int r;

	rx_attach(_metadata, &self->c, 0, 0);
	r = ioctl(rx->ptp_fd, PTP_PEROUT_REQUEST, &per) ? errno : 0;
	EXPECT_TRUE(r == EOPNOTSUPP || r == EINVAL) TH_LOG("PEROUT: %s", strerror(r));
	r = ioctl(rx->ptp_fd, PTP_PIN_SETFUNC, &pin) ? errno : 0;
	EXPECT_TRUE(r == EOPNOTSUPP || r == EINVAL) TH_LOG("PIN_SETFUNC: %s", strerror(r));
	r = ioctl(rx->ptp_fd, PTP_EXTTS_REQUEST, &req) ? errno : 0;
	EXPECT_TRUE(r == EOPNOTSUPP || r == EINVAL) TH_LOG("EXTTS 1: %s", strerror(r));
	r = ioctl(rx->ptp_fd, PTP_ENABLE_PPS, 1) ? errno : 0;
	EXPECT_TRUE(r == EOPNOTSUPP || r == EINVAL) TH_LOG("ENABLE_PPS: %s", strerror(r));
	/*
	 * EXTTS_REQUEST2 is strict: the falling edge cannot be had while
	 * the rising one is on time; the rising one can.
	 */
	req.index = 0;
	req.flags = PTP_ENABLE_FEATURE | PTP_FALLING_EDGE;
	r = ioctl(rx->ptp_fd, PTP_EXTTS_REQUEST2, &req) ? errno : 0;
	EXPECT_EQ(EOPNOTSUPP, r) TH_LOG("strict falling EXTTS: %s", strerror(r));
	req.flags = PTP_ENABLE_FEATURE | PTP_RISING_EDGE;
	EXPECT_EQ(0, ioctl(rx->ptp_fd, PTP_EXTTS_REQUEST2, &req));
	req.flags = 0;
	EXPECT_EQ(0, ioctl(rx->ptp_fd, PTP_EXTTS_REQUEST2, &req));
}

/*
 * Before any label, the EXTTS time of an edge is the clock's reading at
 * the edge's own stamp: with frequency 0, PRECISE's mapping predicts it
 * to the nanosecond. One event per on-time edge, none for the other.
 */
TEST_F(phc, extts_is_the_edge_stamp)
{
	struct rx *rx = &self->c.rx[0];
	struct ptp_extts_event ev[4];
	struct phc_xts x = { 0 };
	int i, n;

	rx_attach(_metadata, &self->c, 0, 0);
	ASSERT_EQ(0, phc_adj_freq(rx->ptp_fd, 0));
	for (i = 0; i < 4; i++) {
		/* 0.55 s apart: real pulses to the servo, not contact bounce. */
		if (i)
			usleep(500000);
		ASSERT_EQ(0, sim_set(rx->port, "dcd", "1"));
		ASSERT_LE(0, wait_edge(&self->c, rx, 2000));
		ASSERT_EQ(0, sim_set(rx->port, "dcd", "0"));
		pump(&self->c, 50);
	}
	ASSERT_EQ(4, rx->n);
	ASSERT_EQ(4, rx->n_ext);
	n = extts_extra(rx);
	EXPECT_EQ(0, n) TH_LOG("an EXTTS event for a falling edge");
	ASSERT_EQ(0, phc_precise(rx->ptp_fd, &x));
	for (i = 0; i < 4; i++) {
		long long want = x.dev + (rx->e[i].raw - x.raw);

		EXPECT_GE(1, llabs(rx->ext[i] - want))
			TH_LOG("edge %d: EXTTS %lld, clock at its stamp %lld", i, rx->ext[i], want);
	}
	/* Off: no more events. */
	ASSERT_EQ(0, phc_extts(rx->ptp_fd, 0, false));
	ASSERT_EQ(0, sim_set(rx->port, "dcd", "1"));
	EXPECT_EQ(0, phc_extts_read(rx->ptp_fd, ev, 4, 200));
}

/*
 * After the first label: phc_ctl reads the labelled time, between two
 * PRECISE readings; EXTENDED and PRECISE agree with each other.
 */
TEST_F_TIMEOUT(phc, phc_ctl_and_cross_timestamps, 30)
{
	struct rx *rx = &self->c.rx[0];
	struct ptp_sys_offset_extended ext;
	struct phc_xts a = { 0 }, b = { 0 }, x = { 0 };
	char out[4096], dev[32], *p;
	char *argv[] = { "phc_ctl", dev, "get", NULL };
	long long sec, nsec, v, want;
	int i, r, last;

	rx_attach(_metadata, &self->c, 0, 0);
	rx->ppb = GEN_PPB;
	ASSERT_EQ(0, sim_set(rx->port, "pulse_ppb", "50000"));
	ASSERT_EQ(0, sim_set(rx->port, "pulse_jitter_ns", GEN_JITTER_NS));
	ASSERT_LE(0, start_and_label(_metadata, &self->c, rx, T0, TAI_UTC, 0, 0));
	last = wait_edge(&self->c, rx, 3000);
	ASSERT_LE(0, last);
	EXPECT_GT(LOOSE_NS, llabs(edge_err(rx, last))) TH_LOG("k=1: %lld ns", edge_err(rx, last));

	snprintf(dev, sizeof(dev), "/dev/ptp%d", rx->ptp_index);
	ASSERT_EQ(0, phc_precise(rx->ptp_fd, &a));
	r = run_capture(argv, out, sizeof(out));
	ASSERT_EQ(0, phc_precise(rx->ptp_fd, &b));
	ASSERT_EQ(0, r) TH_LOG("phc_ctl: %d: %s", r, out);
	p = strstr(out, "clock time is ");
	ASSERT_NE(NULL, p) TH_LOG("phc_ctl said: %s", out);
	ASSERT_EQ(2, sscanf(p, "clock time is %lld.%lld", &sec, &nsec));
	v = sec * NSEC_PER_SEC + nsec;
	EXPECT_LE(a.dev, v);
	EXPECT_GE(b.dev, v);
	/* The labelled second plus the raw time since the edge, to 1 ms. */
	want = (long long)(rx->tai0 + rx->e[last].k) * NSEC_PER_SEC + (a.raw - rx->e[last].raw);
	EXPECT_GT(1000000 + LOOSE_NS, llabs(a.dev - want))
		TH_LOG("PHC %lld, label + raw elapsed %lld", a.dev, want);
	TH_LOG("phc_ctl: %lld.%09lld, inside a PRECISE bracket of %lld us", sec, nsec,
	       (b.dev - a.dev) / 1000);

	/* EXTENDED inside PRECISE's mapping (freq <= 550 ppm over 20 ms: 11 us). */
	ASSERT_EQ(0, phc_precise(rx->ptp_fd, &x));
	memset(&ext, 0, sizeof(ext));
	ext.n_samples = 5;
	ASSERT_EQ(0, ioctl(rx->ptp_fd, PTP_SYS_OFFSET_EXTENDED, &ext));
	for (i = 0; i < 5; i++) {
		long long pre = pct_ns(&ext.ts[i][0]), phc = pct_ns(&ext.ts[i][1]);
		long long post = pct_ns(&ext.ts[i][2]);

		EXPECT_LE(pre, post);
		EXPECT_GT(20000000, post - pre);
		EXPECT_LE(x.dev - x.real + pre - 20000, phc) TH_LOG("sample %d", i);
		EXPECT_GE(x.dev - x.real + post + 20000 + (post - x.real) / 1000, phc)
			TH_LOG("sample %d", i);
	}
}

/* ---- locking ------------------------------------------------------------------- */

FIXTURE(lock) {
	struct ctx c;
};

FIXTURE_VARIANT(lock) {
	bool label_each;	/* as gpsphcd does; else only the first edge */
	const char *miss;	/* pulses the receiver leaves out */
	int long_gaps;		/* gaps of more than ~2 s: HOLDOVER each */
};

FIXTURE_VARIANT_ADD(lock, label_each_edge) { .label_each = true, .miss = "" };
/*
 * Missed pulses before, during and after locking: the count must hold.
 * Single misses (2 s between edges) are no reason for HOLDOVER (contract:
 * "pulses stop for > ~2 s"); the double one (3 s) is.
 */
FIXTURE_VARIANT_ADD(lock, label_first_missed_pulses) {
	.label_each = false, .miss = "3,9,10,17,24", .long_gaps = 1,
};

FIXTURE_SETUP(lock)
{
	ctx_setup(_metadata, &self->c);
}

FIXTURE_TEARDOWN(lock)
{
	ctx_teardown(&self->c);
}

/*
 * A 50 ppm fast receiver with 1 us jitter: from the first label the servo
 * locks within LOCK_MAX_EDGES edges, and then each edge's PHC time is its
 * TAI second to within LOCK_P90_NS (90 %) and LOCK_MAX_NS (all). The
 * kernel counts the seconds itself, missed pulses included.
 */
TEST_F_TIMEOUT(lock, locks_and_keeps_the_count, 150)
{
	struct ctx *c = &self->c;
	struct rx *rx = &c->rx[0];
	unsigned long long st0[GPSPHC_NSTATS], st1[GPSPHC_NSTATS];
	struct nlt_result res;
	struct err_stats s;
	int first, locked_at, edges, i, idx, labels = 1, holdovers = 0, measure, taken, shift;
	bool seen_locking = false, seen_locked = false, relock_room = false;
	long long freq, v, base;
	char buf[32];

	rx_attach(_metadata, c, 0, 0);
	rx->ppb = GEN_PPB;
	ASSERT_EQ(0, sim_set(rx->port, "pulse_ppb", "50000"));
	ASSERT_EQ(0, sim_set(rx->port, "pulse_jitter_ns", GEN_JITTER_NS));
	if (variant->miss[0])
		ASSERT_EQ(0, sim_set(rx->port, "pulse_miss", variant->miss));
	ASSERT_EQ(0, gpsphc_stats(rx->id, st0));

	first = start_and_label(_metadata, c, rx, T0, TAI_UTC, 0, 0);
	ASSERT_LE(0, first);
	edges = run_until_locked(_metadata, c, rx, variant->label_each, LOCK_MAX_EDGES);
	if (edges < 0)
		log_edges(_metadata, rx, first + 1, rx->n);
	ASSERT_LT(0, edges) TH_LOG("not locked after %d edges (sysfs: %s)", LOCK_MAX_EDGES,
				   gpsphc_servo_state(rx->id, buf, sizeof(buf)));
	if (variant->label_each)
		labels += edges;
	locked_at = rx->n;
	TH_LOG("locked %d edges after the first label (k=%ld)", edges, rx->e[rx->n - 1].k);

	fill_lateness(rx, first + 1, locked_at);
	base = median_lateness(rx, first + 1, locked_at);

	/*
	 * MEASURE_EDGES edges taken in LOCKED. A lock before the long gaps
	 * (pulses 9 and 10 missed: HOLDOVER, then LOCKING again, by design)
	 * has them among the next edges: then up to LOCK_MAX_EDGES more.
	 * So does a relock after a shift of the capture latency.
	 */
	measure = MEASURE_EDGES + (variant->long_gaps ? LOCK_MAX_EDGES : 0);
	for (i = 0, taken = 0; i < measure && taken < MEASURE_EDGES; i++) {
		/*
		 * Two pulses missed in a row (9, 10) leave 3 s between edges,
		 * and the notification comes from the event worker after it.
		 */
		idx = wait_edge(c, rx, 4500);
		ASSERT_LE(0, idx);
		if (rx->e[idx].state == GPSPHC_SERVO_LOCKED)
			taken++;
		if (!relock_room && rx->e[idx].state == GPSPHC_SERVO_LOCKING) {
			shift = late_edge(rx, locked_at, idx, base + LOCK_SHIFT_NS);
			if (shift >= 0) {
				TH_LOG("k=%ld stamped %lld us late (median before the lock: %lld us), LOCKING at k=%ld: %d more edges",
				       rx->e[shift].k, rx->e[shift].late / 1000, base / 1000,
				       rx->e[idx].k, LOCK_MAX_EDGES);
				measure += LOCK_MAX_EDGES;
				relock_room = true;
			}
		}
		if (variant->label_each && label_if_counted(_metadata, c, rx, idx, 0, &res)) {
			EXPECT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
			labels++;
		}
	}
	ASSERT_EQ(0, sim_set(rx->port, "pulse_enable", "0"));
	pump(c, 300);
	ASSERT_EQ(rx->n, rx->n_ext) TH_LOG("EXTTS events and on-time edges differ");
	EXPECT_EQ(0, extts_extra(rx)) TH_LOG("more EXTTS events than on-time edges");

	i = fill_lateness(rx, first + 1, rx->n);
	EXPECT_EQ(rx->n - first - 1, i) TH_LOG("stamps without their edge in the fake UART's log");
	log_edges(_metadata, rx, first + 1, rx->n);
	/* Every edge after the label: right second (the count held). */
	for (i = first + 1; i < rx->n; i++)
		EXPECT_GT(LOOSE_NS, llabs(edge_err(rx, i)))
			TH_LOG("edge k=%ld: PHC - label %lld ns", rx->e[i].k, edge_err(rx, i));
	s = err_stats(rx, locked_at, rx->n, true);
	TH_LOG("clock at the true instants of the edges taken in LOCKED: n %d, |err| median %lld ns, p90 %lld ns, max %lld ns, mean err %+lld ns",
	       s.n, s.p50, s.p90, s.max, s.mean);
	EXPECT_LE(MEASURE_EDGES / 2, s.n) TH_LOG("the servo left LOCKED");
	EXPECT_GT(LOCK_P90_NS, s.p90);
	EXPECT_GT(LOCK_MAX_NS, s.max);
	EXPECT_EQ(GPSPHC_SERVO_LOCKED, rx->state) TH_LOG("state %s", state_name(rx->state));

	/*
	 * Notified: locking, then locked; holdover only for the long gaps,
	 * each followed by locking or locked again.
	 */
	for (i = 0; i < rx->n_ntf; i++) {
		uint32_t st = rx->ntf[i].servo.state;

		if (rx->ntf[i].cmd != GPSPHC_CMD_STATE_NTF)
			continue;
		TH_LOG("STATE_NTF %s after edge k=%ld", state_name(st),
		       rx->ntf[i].after_edge ? rx->e[rx->ntf[i].after_edge - 1].k : -1);
		EXPECT_TRUE(st == GPSPHC_SERVO_LOCKING || st == GPSPHC_SERVO_LOCKED ||
			    st == GPSPHC_SERVO_HOLDOVER)
			TH_LOG("STATE_NTF %s", state_name(st));
		seen_locking |= st == GPSPHC_SERVO_LOCKING;
		seen_locked |= st == GPSPHC_SERVO_LOCKED;
		holdovers += st == GPSPHC_SERVO_HOLDOVER;
	}
	EXPECT_TRUE(seen_locking);
	EXPECT_TRUE(seen_locked);
	EXPECT_EQ(variant->long_gaps, holdovers) TH_LOG("HOLDOVER for a single missed pulse");
	EXPECT_EQ(variant->long_gaps, gpsphc_ll(rx->id, "statistics/holdovers"));
	EXPECT_EQ(0, count_ntf(rx, GPSPHC_CMD_LABEL_NTF));

	/* sysfs agrees. */
	EXPECT_STREQ("locked", gpsphc_servo_state(rx->id, buf, sizeof(buf)));
	freq = gpsphc_ll(rx->id, "freq_ppb");
	/* The receiver's second is 1.00005 s of raw time: -49997.5 ppb. */
	TH_LOG("freq_ppb %lld (receiver: -49997.5), offset_ns %lld, rms_ns %lld, outliers %lld",
	       freq, gpsphc_ll(rx->id, "offset_ns"), gpsphc_ll(rx->id, "rms_ns"),
	       gpsphc_ll(rx->id, "statistics/outliers"));
	/*
	 * Not bounded: freq_ppb is the correction in effect, the pulses'
	 * rate plus what takes the phase out by the next edge, which
	 * follows each edge's lateness (by the steering filter's gain, up
	 * to 1 ppb per ns while the filters start). The edges' errors above
	 * are what the rate is good for.
	 */
	v = gpsphc_ll(rx->id, "rms_ns");
	EXPECT_LE(0, v);
	EXPECT_GT(LOCK_MAX_NS, v);
	EXPECT_GT(LOCK_MAX_NS, llabs(gpsphc_ll(rx->id, "offset_ns")));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "coarse"));
	EXPECT_EQ(TAI_UTC, gpsphc_ll(rx->id, "tai_utc"));
	EXPECT_EQ(labels, gpsphc_ll(rx->id, "statistics/labels"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "statistics/labels_refused"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "statistics/disagreements"));
	/* The first label's step only: TCG's lateness is below step_ns. */
	EXPECT_EQ(1, gpsphc_ll(rx->id, "statistics/steps"));
	ASSERT_EQ(0, gpsphc_stats(rx->id, st1));
	/* The misses the run got to. */
	{
		const char *p = variant->miss;
		int missed = 0;

		while (*p) {
			missed += strtol(p, (char **)&p, 10) < rx->e[rx->n - 1].k;
			p += *p == ',';
		}
		EXPECT_EQ(missed, st1[ST_PPS_MISSED] - st0[ST_PPS_MISSED]);
	}
}

/* ---- phc2sys ---------------------------------------------------------------- */

/*
 * phc2sys reads the locked PHC (PTP_SYS_OFFSET_PRECISE: no sandwich) and
 * disciplines CLOCK_REALTIME to it, TAI - 37 s. The label is the guest's
 * own CLOCK_REALTIME second + 37, so phc2sys starts within half a second.
 */
#define PHC2SYS_SECONDS		12
#define PHC2SYS_LAST		10
/*
 * Its offset, last PHC2SYS_LAST samples: with PRECISE the only noise is
 * CLOCK_REALTIME's (phc2sys's own PI loop on a TCG timer) and the PHC's
 * frequency changes at each edge (a few ppm times 0.5 s). Measured: max
 * 1.8 us (6.1) and 2.5 us (6.12); the bound is 100 us, as the servo's
 * correction of a late edge (up to 1 ppb per ns of lateness while its
 * filters start, for 0.5 s) can reach tens of us on a busy host.
 */
#define PHC2SYS_BOUND_NS	100000LL

TEST_F_TIMEOUT(phc, phc2sys_follows_locked_phc, 90)
{
	struct ctx *c = &self->c;
	struct rx *rx = &c->rx[0];
	static char out[65536];
	char dev[32], *line, *save;
	char *argv[] = { "phc2sys", "-s", dev, "-c", "CLOCK_REALTIME", "-O", "-37",
			 "-m", "-q", "-R", "2", NULL };
	long long off[256], tai, maxabs = 0, steps;
	int n = 0, state[256], i, idx, edges;
	uint32_t before;
	struct timex tx = { .modes = ADJ_FREQUENCY };
	struct bg_prog bg = { 0 };

	rx_attach(_metadata, c, 0, 0);
	rx->ppb = GEN_PPB;
	ASSERT_EQ(0, sim_set(rx->port, "pulse_ppb", "50000"));
	ASSERT_EQ(0, sim_set(rx->port, "pulse_jitter_ns", GEN_JITTER_NS));
	ASSERT_EQ(0, sim_set(rx->port, "pulse_enable", "1"));
	idx = wait_edge(c, rx, 4000);
	ASSERT_LE(0, idx);
	tai = (rx->e[idx].real + NSEC_PER_SEC / 2) / NSEC_PER_SEC + TAI_UTC;
	set_ref(rx, idx, tai, TAI_UTC);
	{
		struct nlt_result res;

		ASSERT_EQ(0, label(c, rx, idx, 0, &res));
		ASSERT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	}
	edges = run_until_locked(_metadata, c, rx, false, PRELOCK_EDGES);
	before = rx->state;
	steps = gpsphc_ll(rx->id, "statistics/steps");
	TH_LOG("servo %s after %d edges", state_name(before), edges < 0 ? PRELOCK_EDGES : edges);

	snprintf(dev, sizeof(dev), "/dev/ptp%d", rx->ptp_index);
	out[0] = '\0';
	ASSERT_EQ(0, bg_start(&bg, argv));
	bg_collect(&bg, out, sizeof(out), PHC2SYS_SECONDS * 1000);
	i = bg_stop(&bg);
	/* Leave CLOCK_REALTIME's frequency as the other tests found it. */
	clock_adjtime(CLOCK_REALTIME, &tx);
	EXPECT_TRUE(i == 128 + SIGTERM || i == 0) TH_LOG("phc2sys status %d", i);
	pump(c, 100);
	/*
	 * phc2sys only reads its source, but on start it writes every
	 * clock's frequency back (clock_add(): clockadj_set_freq(clkid,
	 * clockadj_get_freq(clkid))): that must not undo the discipline.
	 */
	EXPECT_TRUE(rx->state == before || rx->state == GPSPHC_SERVO_LOCKED)
		TH_LOG("servo %s after phc2sys ran on the clock (%s before)",
		       state_name(rx->state), state_name(before));
	EXPECT_EQ(steps, gpsphc_ll(rx->id, "statistics/steps"));
	for (i = idx + 1; i < rx->n; i++)
		EXPECT_GT(LOCK_MAX_NS, llabs(edge_err(rx, i)))
			TH_LOG("k=%ld: %lld ns", rx->e[i].k, edge_err(rx, i));
	log_edges(_metadata, rx, rx->n - 12 > idx ? rx->n - 12 : idx + 1, rx->n);

	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p = strstr(line, " offset ");

		if (!p || n >= 256)
			continue;
		if (sscanf(p, " offset %lld s%d", &off[n], &state[n]) == 2)
			n++;
		if (n <= 3 || strstr(line, "delay"))
			TH_LOG("%s", line);
	}
	ASSERT_LE(PHC2SYS_SECONDS * 2 - 6, n) TH_LOG("%d offset lines from phc2sys", n);
	for (i = n - PHC2SYS_LAST; i < n; i++) {
		EXPECT_EQ(2, state[i]) TH_LOG("sample %d: state s%d", i, state[i]);
		EXPECT_GT(PHC2SYS_BOUND_NS, llabs(off[i])) TH_LOG("sample %d: %lld ns", i, off[i]);
		if (llabs(off[i]) > maxabs)
			maxabs = llabs(off[i]);
	}
	TH_LOG("phc2sys: %d samples, last %d |offset| max %lld ns", n, PHC2SYS_LAST, maxabs);
}

/* ---- holdover --------------------------------------------------------------- */

/*
 * Pulses stop for GAP s (the generator leaves them out, so they resume in
 * phase with the receiver's seconds): HOLDOVER within HOLDOVER_ENTER_MS
 * of the last edge, holdover_s grows, the clock runs on at the frequency
 * it had; when the pulses come back the count is right, nothing steps,
 * and the servo is back in the state it had (LOCKED, or LOCKING if it had
 * not locked yet) within RELOCK_EDGES.
 */
#define GAP			6
#define RELOCK_EDGES		10
/*
 * Contract: "pulses stop for > ~2 s" (the servo's timeout, 2.5 s), seen
 * at the clock worker's next tick (250 ms), plus 1.25 s of TCG and
 * notification worker slack. Measured with a 1.5 s timeout: 1557..1757 ms.
 */
#define HOLDOVER_ENTER_MS	4000
/*
 * In holdover the clock runs at the servo's frequency estimate (servo.h:
 * the steering filter's period, the fitted trend of the pulses),
 * which freq_ppb then shows: the rate measured with PRECISE over 3 s
 * matches it to HOLDOVER_RATE_PPB (the arithmetic is exact; 1 ns of
 * rounding per rebase over 3 s is 0.3 ppb). Against the receiver's true
 * rate (-49997.5 ppb) the estimate is as good as ~15 edges of TCG's
 * stamps allow: their latency wanders by tens of us within seconds with
 * host load, and a trend of 50 us over 10 s reads as 5 ppm. Measured:
 * rate = freq_ppb to 1 ppb; from the receiver's rate 0.04..1.0 ppm in
 * most runs, 5.0 and 7.4 ppm in two (6.1 and 6.12, one VM), and with two
 * guests on the host at times 16 to 17 ppm: so the gap now comes after
 * HOLDOVER_FIT_EDGES edges, not at lock (about 10): a trend through more
 * stamps lies nearer the receiver's rate.
 * The bound, 15 ppm, still fails a servo that held its last correction
 * or the 50 ppm it started from.
 */
#define HOLDOVER_RATE_PPB	100
#define RECEIVER_RATE_PPB	15000
#define HOLDOVER_FIT_EDGES	25
/*
 * After GAP + 1 s of holdover the error is the estimate's frequency error
 * (< RECEIVER_RATE_PPB) times 7 s = 105 us, plus the edge's own lateness,
 * which can be anything up to LOCK_MAX_NS. Measured: -37..+258 us.
 */
#define HOLDOVER_ERR_NS		(LOCK_MAX_NS + 200000)

TEST_F_TIMEOUT(phc, holdover_and_back, 120)
{
	struct ctx *c = &self->c;
	struct rx *rx = &c->rx[0];
	struct phc_xts a = { 0 }, b = { 0 };
	struct nlt_result res;
	char miss[256], buf[32];
	long long freq_last, freq_hold, rate, h1, h2, steps, wait_ms, last_raw;
	uint32_t before;
	int i, idx, len = 0, last, resumed;
	long k_last;

	rx_attach(_metadata, c, 0, 0);
	rx->ppb = GEN_PPB;
	ASSERT_EQ(0, sim_set(rx->port, "pulse_ppb", "50000"));
	ASSERT_EQ(0, sim_set(rx->port, "pulse_jitter_ns", GEN_JITTER_NS));
	ASSERT_LE(0, start_and_label(_metadata, c, rx, T0, TAI_UTC, 0, 0));
	i = run_until_locked(_metadata, c, rx, true, PRELOCK_EDGES);
	for (i = i < 0 ? PRELOCK_EDGES : i; i < HOLDOVER_FIT_EDGES; i++) {
		idx = wait_edge(c, rx, 3000);
		ASSERT_LE(0, idx) TH_LOG("pulses stopped");
		if (label_if_counted(_metadata, c, rx, idx, 0, &res))
			EXPECT_EQ(0, res.err) TH_LOG("label of k=%ld: %s", rx->e[idx].k,
						     res.ext_msg);
	}
	pump(c, 50);
	before = rx->state;
	/* Should be LOCKED (the lock test checks that); holdover from either. */
	TH_LOG("servo %s before the gap, %d edges in", state_name(before), i);

	/* Leave out the GAP pulses after the next one. */
	k_last = rx->e[rx->n - 1].k + 1;
	for (i = 1; i <= GAP; i++)
		len += snprintf(miss + len, sizeof(miss) - len, "%s%ld", i > 1 ? "," : "",
				k_last + i);
	ASSERT_EQ(0, sim_set(rx->port, "pulse_miss", miss));
	last = wait_edge(c, rx, 3000);
	ASSERT_LE(0, last);
	ASSERT_EQ(k_last, rx->e[last].k);
	ASSERT_EQ(0, label(c, rx, last, 0, &res));
	EXPECT_EQ(0, res.err);
	pump(c, 100);
	freq_last = gpsphc_ll(rx->id, "freq_ppb");
	steps = gpsphc_ll(rx->id, "statistics/steps");
	last_raw = rx->e[last].raw;

	EXPECT_TRUE(wait_state(c, rx, GPSPHC_SERVO_HOLDOVER, 5000))
		TH_LOG("no HOLDOVER 5 s after the last pulse (%s)", state_name(rx->state));
	wait_ms = (clock_ns(CLOCK_MONOTONIC_RAW) - last_raw) / 1000000;
	TH_LOG("holdover notified %lld ms after the last edge", wait_ms);
	EXPECT_GT(HOLDOVER_ENTER_MS, wait_ms);
	EXPECT_LT(1000, wait_ms) TH_LOG("holdover before a pulse was even late");
	EXPECT_STREQ("holdover", gpsphc_servo_state(rx->id, buf, sizeof(buf)));

	ASSERT_EQ(0, phc_precise(rx->ptp_fd, &a));
	h1 = gpsphc_ll(rx->id, "holdover_s");
	freq_hold = gpsphc_ll(rx->id, "freq_ppb");
	usleep(3000000);
	ASSERT_EQ(0, phc_precise(rx->ptp_fd, &b));
	h2 = gpsphc_ll(rx->id, "holdover_s");
	rate = ((b.dev - a.dev) - (b.raw - a.raw)) * NSEC_PER_SEC / (b.raw - a.raw);
	TH_LOG("holdover_s %lld then %lld; rate %+lld ppb; freq_ppb %+lld in holdover, %+lld at the last edge; receiver -49997.5",
	       h1, h2, rate, freq_hold, freq_last);
	EXPECT_LE(1, h1);
	EXPECT_LE(h1 + 2, h2);
	EXPECT_GE(h1 + 4, h2);
	EXPECT_EQ(freq_hold, gpsphc_ll(rx->id, "freq_ppb"));
	EXPECT_GT(HOLDOVER_RATE_PPB, llabs(rate - freq_hold));
	EXPECT_GT(RECEIVER_RATE_PPB, llabs(rate + 49997));

	/* The pulses come back GAP + 1 s after the last. */
	resumed = wait_edge(c, rx, (GAP + 2) * 1000);
	ASSERT_LE(0, resumed) TH_LOG("no pulse after the gap");
	EXPECT_EQ(k_last + GAP + 1, rx->e[resumed].k);
	pump(c, 50);
	for (i = 0; i < RELOCK_EDGES && rx->state != before &&
		    rx->state != GPSPHC_SERVO_LOCKED; i++) {
		idx = wait_edge(c, rx, 3000);
		ASSERT_LE(0, idx);
		if (label_if_counted(_metadata, c, rx, idx, 0, &res))
			EXPECT_EQ(0, res.err) TH_LOG("label after holdover: %s", res.ext_msg);
		pump(c, 50);
	}
	/* Back where it was, or further: LOCKING may have locked meanwhile. */
	EXPECT_TRUE(rx->state == before || rx->state == GPSPHC_SERVO_LOCKED)
		TH_LOG("%d edges after the gap: %s", i, state_name(rx->state));
	TH_LOG("%s again %d edges after the first resumed one", state_name(rx->state), i);
	for (i = 0; i < 3; i++)
		ASSERT_LE(0, wait_edge(c, rx, 3000));
	pump(c, 100);
	log_edges(_metadata, rx, last - 2, rx->n);
	EXPECT_GT(HOLDOVER_ERR_NS, llabs(edge_err(rx, resumed)))
		TH_LOG("first edge after the gap: %lld ns", edge_err(rx, resumed));
	for (i = resumed + 1; i < rx->n; i++)
		EXPECT_GT(LOCK_MAX_NS, llabs(edge_err(rx, i)))
			TH_LOG("k=%ld: %lld ns", rx->e[i].k, edge_err(rx, i));
	EXPECT_EQ(steps, gpsphc_ll(rx->id, "statistics/steps"));
	EXPECT_EQ(1, gpsphc_ll(rx->id, "statistics/holdovers"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "statistics/disagreements"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "statistics/labels_refused"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "holdover_s"));
}

/* ---- labels that disagree ----------------------------------------------------- */

/*
 * A stray label 5 s off is counted and notified, and moves nothing;
 * confirm_n labels in a row that agree with each other move the clock by
 * exactly their 5 s, after which the kernel's count is theirs.
 */
TEST_F_TIMEOUT(phc, disagreeing_labels, 60)
{
	struct ctx *c = &self->c;
	struct rx *rx = &c->rx[0];
	struct nlt_result res;
	long long dis0, steps0, labels0;
	int i, j, idx, ntf, confirm = 3;
	const struct ntf *f;

	rx_attach(_metadata, c, 0, 0);
	rx->ppb = GEN_PPB;
	ASSERT_EQ(0, sim_set(rx->port, "pulse_ppb", "50000"));
	ASSERT_EQ(0, sim_set(rx->port, "pulse_jitter_ns", GEN_JITTER_NS));
	ASSERT_LE(0, start_and_label(_metadata, c, rx, T0, TAI_UTC, 0, 0));
	EXPECT_EQ(confirm, gpsphc_ll(rx->id, "confirm_n"));
	for (i = 0; i < 2; i++) {
		idx = wait_edge(c, rx, 3000);
		ASSERT_LE(0, idx);
		ASSERT_EQ(0, label(c, rx, idx, 0, &res));
		ASSERT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	}
	dis0 = gpsphc_ll(rx->id, "statistics/disagreements");
	steps0 = gpsphc_ll(rx->id, "statistics/steps");
	labels0 = gpsphc_ll(rx->id, "statistics/labels");
	EXPECT_EQ(0, dis0);

	/* One stray label, then right ones again. */
	idx = wait_edge(c, rx, 3000);
	ASSERT_LE(0, idx);
	ntf = rx->n_ntf;
	ASSERT_EQ(0, label(c, rx, idx, 5, &res));
	EXPECT_EQ(0, res.err) TH_LOG("a disagreeing label is taken (and held): %s \"%s\"",
				     strerror(res.err), res.ext_msg);
	pump(c, 200);
	EXPECT_EQ(dis0 + 1, gpsphc_ll(rx->id, "statistics/disagreements"));
	EXPECT_EQ(1, count_ntf(rx, GPSPHC_CMD_LABEL_NTF));
	for (i = ntf; i < rx->n_ntf; i++) {
		f = &rx->ntf[i];
		if (f->cmd != GPSPHC_CMD_LABEL_NTF)
			continue;
		EXPECT_TRUE(f->time.has_seq && f->time.has_tai);
		EXPECT_EQ(rx->e[idx].seq, f->time.seq);
		EXPECT_EQ(rx->tai0 + rx->e[idx].k + 5, f->time.tai_sec);
		EXPECT_TRUE(f->servo.present);
		EXPECT_EQ(dis0 + 1, f->servo.disagreements);
		/* The kernel says how far it is: 1 of confirm_n, +5 s. */
		EXPECT_TRUE(f->time.has_off);
		EXPECT_EQ(5, f->time.off_s);
		EXPECT_EQ(1U, f->time.confirmed);
		EXPECT_EQ((uint32_t)confirm, f->confirm_n);
	}
	for (i = 0; i < 2; i++) {
		idx = wait_edge(c, rx, 3000);
		ASSERT_LE(0, idx);
		EXPECT_GT(LOOSE_NS, llabs(edge_err(rx, idx)))
			TH_LOG("k=%ld moved: %lld ns", rx->e[idx].k, edge_err(rx, idx));
		ASSERT_EQ(0, label(c, rx, idx, 0, &res));
		EXPECT_EQ(0, res.err);
	}
	EXPECT_EQ(dis0 + 1, gpsphc_ll(rx->id, "statistics/disagreements"));
	EXPECT_EQ(steps0, gpsphc_ll(rx->id, "statistics/steps"));

	/* A real jump: confirm_n labels of +5 s in a row. */
	ntf = rx->n_ntf;
	for (i = 0; i < confirm; i++) {
		idx = wait_edge(c, rx, 3000);
		ASSERT_LE(0, idx);
		EXPECT_GT(LOOSE_NS, llabs(edge_err(rx, idx)))
			TH_LOG("k=%ld moved before confirmation %d: %lld ns", rx->e[idx].k, i,
			       edge_err(rx, idx));
		ASSERT_EQ(0, label(c, rx, idx, 5, &res));
		EXPECT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	}
	for (i = 0; i < 3; i++) {
		idx = wait_edge(c, rx, 3000);
		ASSERT_LE(0, idx);
		EXPECT_GT(LOOSE_NS, llabs(edge_err(rx, idx) - 5 * NSEC_PER_SEC))
			TH_LOG("k=%ld after the jump: PHC - old label %lld ns", rx->e[idx].k,
			       edge_err(rx, idx));
		/* The count is now the new one: its labels agree. */
		ASSERT_EQ(0, label(c, rx, idx, 5, &res));
		EXPECT_EQ(0, res.err);
	}
	pump(c, 100);
	log_edges(_metadata, rx, 1, rx->n);
	TH_LOG("disagreements %lld, LABEL_NTF %d, steps %lld, labels %lld",
	       gpsphc_ll(rx->id, "statistics/disagreements"),
	       count_ntf(rx, GPSPHC_CMD_LABEL_NTF), gpsphc_ll(rx->id, "statistics/steps"),
	       gpsphc_ll(rx->id, "statistics/labels"));
	/* Each label that disagreed when it came: the stray one and the jump's. */
	EXPECT_EQ(dis0 + 1 + confirm, gpsphc_ll(rx->id, "statistics/disagreements"));
	EXPECT_EQ(1 + confirm, count_ntf(rx, GPSPHC_CMD_LABEL_NTF));
	/* Each says how far the confirmation is; the last moved the count. */
	for (i = ntf, j = 0; i < rx->n_ntf; i++) {
		f = &rx->ntf[i];
		if (f->cmd != GPSPHC_CMD_LABEL_NTF)
			continue;
		j++;
		EXPECT_TRUE(f->time.has_off);
		EXPECT_EQ(5, f->time.off_s);
		EXPECT_EQ((uint32_t)j, f->time.confirmed) TH_LOG("label-ntf %d of the jump", j);
		EXPECT_EQ((uint32_t)confirm, f->confirm_n);
		EXPECT_EQ(j == confirm ? steps0 + 1 : steps0, (long long)f->servo.steps);
	}
	EXPECT_EQ(confirm, j);
	EXPECT_EQ(steps0 + 1, gpsphc_ll(rx->id, "statistics/steps"));
	EXPECT_EQ(labels0 + 3 + confirm + 3, gpsphc_ll(rx->id, "statistics/labels"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "statistics/labels_refused"));
}

/* ---- leap seconds ------------------------------------------------------------ */

FIXTURE(leap) {
	struct ctx c;
};

FIXTURE_VARIANT(leap) {
	uint32_t leap;		/* GPSPHC_LEAP_INSERT or _DELETE */
	bool utc;		/* scale utc, else tai */
	bool by_netlink;	/* set the scale with dev-set, else sysfs */
};

FIXTURE_VARIANT_ADD(leap, insert_utc) { .leap = GPSPHC_LEAP_INSERT, .utc = true };
FIXTURE_VARIANT_ADD(leap, delete_utc) {
	.leap = GPSPHC_LEAP_DELETE, .utc = true, .by_netlink = true,
};
FIXTURE_VARIANT_ADD(leap, insert_tai) { .leap = GPSPHC_LEAP_INSERT, .utc = false };

FIXTURE_SETUP(leap)
{
	ctx_setup(_metadata, &self->c);
}

FIXTURE_TEARDOWN(leap)
{
	ctx_teardown(&self->c);
}

static int dev_set_u32(struct nlt_sock *s, uint32_t id, uint16_t attr, uint32_t v,
		       struct nlt_result *res)
{
	struct nlt_msg m;

	nlt_gpsphc_init(s, &m, GPSPHC_CMD_DEV_SET, 0);
	nlt_put_u32(&m, GPSPHC_A_DEV_ID, id);
	nlt_put_u32(&m, attr, v);
	return nlt_request(s, &m, NULL, NULL, res);
}

/*
 * Labelled at UTC L - 5 s with a leap announced for midnight L: the clock
 * read at each edge gives POSIX seconds L-4 .. L-1, L-1 again (insertion)
 * or L-4 .. L-2, L (deletion), then L, L+1; the step is exactly 1 s at
 * exactly the instant (sampled with PRECISE every couple of ms around
 * it); tai_utc is then 38 or 36 and no leap is pending. In TAI scale the
 * readings are T0 + k throughout.
 */
TEST_F_TIMEOUT(leap, applied_at_the_instant, 60)
{
	struct ctx *c = &self->c;
	struct rx *rx = &c->rx[0];
	const long long L = LEAP_MIDNIGHT;
	bool ins = variant->leap == GPSPHC_LEAP_INSERT;
	int new_off = ins ? TAI_UTC + 1 : TAI_UTC - 1;
	/* TAI (ns) of the instant the UTC reading jumps. */
	long long jump_tai = ((ins ? L : L - 1) + TAI_UTC) * NSEC_PER_SEC;
	static struct phc_xts smp[4096];
	struct nlt_result res;
	char buf[32], posix[256];
	int i, n = 0, jumps = 0, len = 0, idx;
	long long t_end;

	rx_attach(_metadata, c, 0, 0);
	rx->ppb = GEN_PPB;
	ASSERT_EQ(0, sim_set(rx->port, "pulse_ppb", "50000"));
	ASSERT_EQ(0, sim_set(rx->port, "pulse_jitter_ns", GEN_JITTER_NS));
	if (variant->by_netlink) {
		ASSERT_EQ(0, dev_set_u32(&c->nl, rx->id, GPSPHC_A_DEV_SCALE,
					 variant->utc ? GPSPHC_SCALE_UTC : GPSPHC_SCALE_TAI, &res));
		ASSERT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	} else {
		ASSERT_EQ(0, gpsphc_attr_set(rx->id, "scale", variant->utc ? "utc\n" : "tai\n"));
	}
	ASSERT_LT(0, gpsphc_attr_str(rx->id, "scale", buf, sizeof(buf)));
	EXPECT_STREQ(variant->utc ? "utc" : "tai", buf);

	ASSERT_LE(0, start_and_label(_metadata, c, rx, L + TAI_UTC - 5, TAI_UTC,
				     variant->leap, L));
	pump(c, 50);
	ASSERT_LT(0, gpsphc_attr_str(rx->id, "leap", buf, sizeof(buf)));
	EXPECT_STREQ(ins ? "insert" : "delete", buf);
	EXPECT_EQ(L, gpsphc_ll(rx->id, "leap_utc"));
	EXPECT_EQ(TAI_UTC, gpsphc_ll(rx->id, "tai_utc"));

	/* Edges k = 1..3, then sample the clock until k = 6 is due. */
	for (i = 0; i < 3; i++)
		ASSERT_LE(0, wait_edge(c, rx, 3000));
	t_end = rx->e[rx->n - 1].raw + 3 * (NSEC_PER_SEC + rx->ppb) - 200000000;
	while (n < 4096 && clock_ns(CLOCK_MONOTONIC_RAW) < t_end) {
		ASSERT_EQ(0, phc_precise(rx->ptp_fd, &smp[n]));
		n++;
		usleep(2000);
	}
	for (i = 0; i < 3; i++)
		ASSERT_LE(0, wait_edge(c, rx, 3000));
	pump(c, 100);

	/* At the edges. */
	for (i = 1; i < rx->n; i++) {
		long long tai = (long long)(rx->tai0 + rx->e[i].k) * NSEC_PER_SEC;
		long long r = rx->e[i].extts, err_old, err_new, err;
		int off;

		ASSERT_TRUE(rx->e[i].has_extts);
		if (!variant->utc) {
			err = r - tai;
			off = 0;
		} else {
			/* Which offset makes this reading (TAI - off) closest to the label. */
			err_old = r + TAI_UTC * NSEC_PER_SEC - tai;
			err_new = r + new_off * NSEC_PER_SEC - tai;
			off = llabs(err_old) < llabs(err_new) ? TAI_UTC : new_off;
			err = off == TAI_UTC ? err_old : err_new;
			/* ... and that offset is the one in force at that TAI. */
			EXPECT_EQ(tai + err >= jump_tai ? new_off : TAI_UTC, off)
				TH_LOG("k=%ld: UTC reading %lld.%09lld with TAI-UTC %d", rx->e[i].k,
				       r / NSEC_PER_SEC, r % NSEC_PER_SEC, off);
		}
		EXPECT_GT(LOOSE_NS, llabs(err)) TH_LOG("k=%ld: %lld ns", rx->e[i].k, err);
		{
			long long rel = r - (variant->utc ? L : L + TAI_UTC) * NSEC_PER_SEC;
			long long a = llabs(rel);

			len += snprintf(posix + len, sizeof(posix) - len, " %c%lld.%06lld",
					rel < 0 ? '-' : '+', a / NSEC_PER_SEC,
					a % NSEC_PER_SEC / 1000);
		}
	}
	TH_LOG("clock at edges k=1..%d, s from %s:%s", rx->n - 1,
	       variant->utc ? "midnight L (UTC)" : "L + 37 (TAI)", posix);

	/* Between the edges: one jump of exactly the leap, at the instant. */
	for (i = 1; i < n; i++) {
		long long d = (smp[i].dev - smp[i].raw) - (smp[i - 1].dev - smp[i - 1].raw);
		long long gap = smp[i].raw - smp[i - 1].raw;

		if (llabs(d) < NSEC_PER_SEC / 2)
			continue;
		jumps++;
		TH_LOG("jump %+lld ns between %lld.%09lld and %lld.%09lld (%lld us apart)", d,
		       smp[i - 1].dev / NSEC_PER_SEC, smp[i - 1].dev % NSEC_PER_SEC,
		       smp[i].dev / NSEC_PER_SEC, smp[i].dev % NSEC_PER_SEC, gap / 1000);
		/* freq (< 100 ppm) times the sample gap, plus a slew at an edge. */
		EXPECT_GT(100000, llabs(d - (ins ? -NSEC_PER_SEC : NSEC_PER_SEC)));
		if (ins) {
			/* ... 23:59:59.99x | 23:59:59.00x ... */
			EXPECT_LE((L * NSEC_PER_SEC) - gap - 100000, smp[i - 1].dev);
			EXPECT_GT(L * NSEC_PER_SEC, smp[i - 1].dev);
			EXPECT_LE((L - 1) * NSEC_PER_SEC, smp[i].dev);
			EXPECT_GT((L - 1) * NSEC_PER_SEC + gap + 100000, smp[i].dev);
		} else {
			/* ... 23:59:58.99x | 00:00:00.00x ... */
			EXPECT_LE((L - 1) * NSEC_PER_SEC - gap - 100000, smp[i - 1].dev);
			EXPECT_GT((L - 1) * NSEC_PER_SEC, smp[i - 1].dev);
			EXPECT_LE(L * NSEC_PER_SEC, smp[i].dev);
			EXPECT_GT(L * NSEC_PER_SEC + gap + 100000, smp[i].dev);
		}
	}
	TH_LOG("%d PRECISE samples over %lld ms", n, (smp[n - 1].raw - smp[0].raw) / 1000000);
	EXPECT_EQ(variant->utc ? 1 : 0, jumps);

	EXPECT_EQ(new_off, gpsphc_ll(rx->id, "tai_utc"));
	ASSERT_LT(0, gpsphc_attr_str(rx->id, "leap", buf, sizeof(buf)));
	EXPECT_STREQ("none", buf);
	/* A label with the new offset agrees with the count. */
	rx->tai_utc = new_off;
	idx = rx->n - 1;
	ASSERT_EQ(0, label(c, rx, idx, 0, &res));
	EXPECT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	pump(c, 100);
	EXPECT_EQ(0, gpsphc_ll(rx->id, "statistics/disagreements"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "statistics/labels_refused"));
	EXPECT_EQ(1, gpsphc_ll(rx->id, "statistics/steps"));
}

/* ---- two receivers ----------------------------------------------------------- */

/* Ports 0 and 1 at once: two clocks, two servos, labels kept apart. */
TEST_F_TIMEOUT(phc, two_receivers, 40)
{
	struct ctx *c = &self->c;
	struct rx *a = &c->rx[0], *b = &c->rx[1];
	struct nlt_result res;
	char path[128], buf[64];
	int i, fa, fb;

	rx_attach(_metadata, c, 0, 0);
	rx_attach(_metadata, c, 1, 1);
	EXPECT_NE(a->id, b->id);
	EXPECT_NE(a->ptp_index, b->ptp_index);
	snprintf(path, sizeof(path), "/sys/class/ptp/ptp%d/clock_name", b->ptp_index);
	ASSERT_LT(0, read_file(path, buf, sizeof(buf)));
	EXPECT_STREQ("gpsphc ttyGPSSIM1\n", buf);

	a->ppb = GEN_PPB;
	b->ppb = -30000;
	ASSERT_EQ(0, sim_set(a->port, "pulse_ppb", "50000"));
	ASSERT_EQ(0, sim_set(b->port, "pulse_ppb", "-30000"));
	ASSERT_EQ(0, sim_set(a->port, "pulse_jitter_ns", GEN_JITTER_NS));
	ASSERT_EQ(0, sim_set(b->port, "pulse_jitter_ns", GEN_JITTER_NS));
	ASSERT_EQ(0, sim_set(b->port, "pulse_seed", "2"));
	ASSERT_EQ(0, sim_set(a->port, "pulse_enable", "1"));
	ASSERT_EQ(0, sim_set(b->port, "pulse_enable", "1"));
	fa = wait_edge(c, a, 4000);
	fb = b->n ? 0 : wait_edge(c, b, 4000);
	ASSERT_LE(0, fa);
	ASSERT_LE(0, fb);
	set_ref(a, fa, T0, TAI_UTC);
	set_ref(b, fb, T0 + 1000, TAI_UTC);
	ASSERT_EQ(0, label(c, a, fa, 0, &res));
	ASSERT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	/* A's seq on B's device names one of B's edges, not A's. */
	ASSERT_EQ(0, label(c, b, fb, 0, &res));
	ASSERT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);

	for (i = 0; i < 6; i++) {
		ASSERT_LE(0, wait_edge(c, a, 3000));
		ASSERT_LE(0, wait_edge(c, b, 3000));
	}
	pump(c, 100);
	for (i = fa + 1; i < a->n; i++)
		EXPECT_GT(LOOSE_NS, llabs(edge_err(a, i))) TH_LOG("A k=%ld: %lld", a->e[i].k,
								   edge_err(a, i));
	for (i = fb + 1; i < b->n; i++)
		EXPECT_GT(LOOSE_NS, llabs(edge_err(b, i))) TH_LOG("B k=%ld: %lld", b->e[i].k,
								   edge_err(b, i));
	log_edges(_metadata, a, fa + 1, a->n);
	log_edges(_metadata, b, fb + 1, b->n);
	EXPECT_EQ(1, gpsphc_ll(a->id, "statistics/labels"));
	EXPECT_EQ(1, gpsphc_ll(b->id, "statistics/labels"));
	/* Each servo at its own receiver's rate (the edges above say how well). */
	TH_LOG("freq_ppb A %lld (receiver -49997.5), B %lld (receiver +30000.9)",
	       gpsphc_ll(a->id, "freq_ppb"), gpsphc_ll(b->id, "freq_ppb"));
	/* The clocks are 1000 s apart, to the edges' lateness. */
	EXPECT_GT(LOOSE_NS, llabs(phc_gettime(b->ptp_fd) - phc_gettime(a->ptp_fd) -
				  1000 * NSEC_PER_SEC));
}

/* GPSPHC_CMD_DEV_SET of one NLA_U8 setting. */
static int dev_set_u8(struct nlt_sock *s, uint32_t id, uint16_t attr, uint8_t v,
		      struct nlt_result *res)
{
	struct nlt_msg m;

	nlt_gpsphc_init(s, &m, GPSPHC_CMD_DEV_SET, 0);
	nlt_put_u32(&m, GPSPHC_A_DEV_ID, id);
	nlt_put(&m, attr, &v, 1);
	return nlt_request(s, &m, NULL, NULL, res);
}

/*
 * Servo off: the kernel leaves the clock to something else (ts2phc
 * steering it from the EXTTS events). Labels are refused with EBUSY and a
 * reason; settime and adjfine stick (no reset, no step); EXTTS reports
 * every edge. Back on, the servo starts UNLOCKED and the next label sets
 * the clock again.
 */
TEST_F_TIMEOUT(phc, servo_off_leaves_the_clock_alone, 40)
{
	struct ctx *c = &self->c;
	struct rx *rx = &c->rx[0];
	struct nlt_result res;
	struct phc_xts a = { 0 }, b = { 0 };
	long long steps, refused, rate, t;
	char buf[32];
	int i, idx;

	rx_attach(_metadata, c, 0, 0);
	ASSERT_EQ(0, sim_set(rx->port, "pulse_ppb", "50000"));
	start_and_label(_metadata, c, rx, T0, TAI_UTC, 0, 0);
	ASSERT_TRUE(wait_state(c, rx, GPSPHC_SERVO_LOCKING, 2000));
	ASSERT_LT(0, gpsphc_attr_str(rx->id, "servo", buf, sizeof(buf)));
	EXPECT_STREQ("on", buf);

	/* Off, through netlink; 2 is no boolean. */
	ASSERT_EQ(0, dev_set_u8(&c->nl, rx->id, GPSPHC_A_DEV_SERVO_OFF, 2, &res));
	EXPECT_EQ(ERANGE, res.err);
	ASSERT_EQ(0, dev_set_u8(&c->nl, rx->id, GPSPHC_A_DEV_SERVO_OFF, 1, &res));
	ASSERT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	EXPECT_TRUE(wait_state(c, rx, GPSPHC_SERVO_OFF, 2000));
	EXPECT_STREQ("off", gpsphc_servo_state(rx->id, buf, sizeof(buf)));
	ASSERT_LT(0, gpsphc_attr_str(rx->id, "servo", buf, sizeof(buf)));
	EXPECT_STREQ("off", buf);

	/* Someone else steers: 1000 s later, 10 ppm fast. It sticks. */
	steps = gpsphc_ll(rx->id, "statistics/steps");
	t = phc_gettime(rx->ptp_fd);
	ASSERT_EQ(0, phc_settime(rx->ptp_fd, t + 1000 * NSEC_PER_SEC));
	ASSERT_EQ(0, phc_adj_freq(rx->ptp_fd, 10000));
	ASSERT_EQ(0, phc_precise(rx->ptp_fd, &a));
	for (i = 0; i < 3; i++)
		ASSERT_LE(0, wait_edge(c, rx, 2000));
	ASSERT_EQ(0, phc_precise(rx->ptp_fd, &b));
	rate = ((b.dev - a.dev) - (b.raw - a.raw)) * NSEC_PER_SEC / (b.raw - a.raw);
	EXPECT_GT(100, llabs(rate - 10000)) TH_LOG("rate %lld ppb", rate);
	EXPECT_EQ(10000, gpsphc_ll(rx->id, "freq_ppb"));
	EXPECT_GT(LOOSE_NS, llabs(b.dev - t - 1000 * NSEC_PER_SEC - (b.raw - a.raw)));
	EXPECT_EQ(steps, gpsphc_ll(rx->id, "statistics/steps"));
	EXPECT_STREQ("off", gpsphc_servo_state(rx->id, buf, sizeof(buf)));
	/* EXTTS: one event per edge, at the clock's time of the edge. */
	EXPECT_EQ(rx->n, rx->n_ext);
	EXPECT_GT(LOOSE_NS, llabs(rx->e[rx->n - 1].extts - rx->e[rx->n - 1].raw -
				  (b.dev - b.raw)));

	/* Labels are refused, and say why. */
	refused = gpsphc_ll(rx->id, "statistics/labels_refused");
	ASSERT_EQ(0, label(c, rx, rx->n - 1, 0, &res));
	EXPECT_EQ(EBUSY, res.err);
	EXPECT_NE(NULL, strstr(res.ext_msg, "servo is off")) TH_LOG("%s", res.ext_msg);
	EXPECT_EQ(refused + 1, gpsphc_ll(rx->id, "statistics/labels_refused"));

	/* Back on, through sysfs: UNLOCKED, and a label sets the clock. */
	ASSERT_EQ(0, gpsphc_attr_set(rx->id, "servo", "on\n"));
	EXPECT_TRUE(wait_state(c, rx, GPSPHC_SERVO_UNLOCKED, 2000));
	idx = wait_edge(c, rx, 2000);
	ASSERT_LE(0, idx);
	ASSERT_EQ(0, label(c, rx, idx, 0, &res));
	EXPECT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	EXPECT_EQ(steps + 1, gpsphc_ll(rx->id, "statistics/steps"));
	EXPECT_TRUE(wait_state(c, rx, GPSPHC_SERVO_LOCKING, 2000));
	idx = wait_edge(c, rx, 2000);
	ASSERT_LE(0, idx);
	EXPECT_GT(LOOSE_NS, llabs(edge_err(rx, idx))) TH_LOG("%lld ns", edge_err(rx, idx));
}

/* ---- detach with the clock open ---------------------------------------------- */

FIXTURE(detach) {
	struct ctx c;
};

FIXTURE_VARIANT(detach) {
	bool unplug;		/* remove the port, else TIOCSETD N_TTY */
};

FIXTURE_VARIANT_ADD(detach, ldisc_n_tty) { .unplug = false };
FIXTURE_VARIANT_ADD(detach, unplug_port) { .unplug = true };

FIXTURE_SETUP(detach)
{
	ctx_setup(_metadata, &self->c);
}

FIXTURE_TEARDOWN(detach)
{
	sim_port_present(1, 1);
	sim_port_present(2, 1);
	ctx_teardown(&self->c);
}

struct blocked_reader {
	pthread_t thr;
	int fd;
	atomic_bool done;
	int how;		/* errno of the read that ended, or 0 for 0 bytes */
	int events;
};

static void *reader_fn(void *arg)
{
	struct blocked_reader *r = arg;
	struct ptp_extts_event ev[8];

	for (;;) {
		ssize_t n = read(r->fd, ev, sizeof(ev));

		if (n > 0) {
			r->events += n / sizeof(ev[0]);
			continue;
		}
		r->how = n < 0 ? errno : 0;
		if (n < 0 && errno == EINTR)
			continue;
		break;
	}
	atomic_store(&r->done, true);
	return NULL;
}

/*
 * One cycle: attach port 2, open its /dev/ptpN with a reader blocked on
 * EXTTS, detach: the reader wakes with ENODEV, clock_gettime and ioctls on
 * the open file say ENODEV, /dev/ptpN goes away.
 */
static void detach_cycle(struct __test_metadata *_metadata, struct ctx *c, bool unplug,
			 bool log)
{
	struct rx *rx = &c->rx[0];
	struct blocked_reader r = { 0 };
	struct ptp_clock_caps caps;
	struct timespec ts;
	char node[32];
	int i, fd;

	rx_attach(_metadata, c, 0, 2);
	fd = phc_open(rx->ptp_index, O_RDWR);
	ASSERT_LE(0, fd);
	r.fd = fd;
	ASSERT_EQ(0, phc_extts(fd, 0, true));
	ASSERT_EQ(0, pthread_create(&r.thr, NULL, reader_fn, &r));
	ASSERT_EQ(0, sim_set(rx->port, "dcd", "1"));
	for (i = 0; i < 100 && !r.events; i++)
		usleep(10000);
	EXPECT_LT(0, r.events) TH_LOG("the blocked reader saw no event");
	snprintf(node, sizeof(node), "/dev/ptp%d", rx->ptp_index);

	/* rx's own fd is closed by the detach path below; keep ours open. */
	close(rx->ptp_fd);
	rx->ptp_fd = -1;
	if (unplug) {
		ASSERT_EQ(0, sim_port_present(rx->port, 0));
	} else {
		ASSERT_EQ(0, ldisc_set(rx->tty_fd, N_TTY));
	}
	for (i = 0; i < 100 && !atomic_load(&r.done); i++)
		usleep(10000);
	EXPECT_TRUE(atomic_load(&r.done)) TH_LOG("reader still blocked 1 s after detach");
	if (!atomic_load(&r.done)) {
		pthread_cancel(r.thr);
	} else {
		EXPECT_EQ(ENODEV, r.how) TH_LOG("reader ended with %s", strerror(r.how));
	}
	pthread_join(r.thr, NULL);
	EXPECT_EQ(-1, clock_gettime(PHC_CLOCKID(fd), &ts));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(-1, ioctl(fd, PTP_CLOCK_GETCAPS, &caps));
	EXPECT_EQ(ENODEV, errno);
	for (i = 0; i < 100 && !access(node, F_OK); i++)
		usleep(10000);
	EXPECT_NE(0, access(node, F_OK)) TH_LOG("%s still there", node);
	if (log)
		TH_LOG("reader woke with %s; clock_gettime: ENODEV", strerror(r.how));
	close(fd);
	if (unplug)
		ASSERT_EQ(0, sim_port_present(rx->port, 1));
	rx_detach(rx);
	c->nrx = 0;
}

/*
 * kmalloc-4k holds the gpsphc device: one leaked per cycle is 4 kB a
 * cycle, 60 kB over CYCLES; hangup_test measured it still to the byte
 * over 200 cycles, so 32 kB is the bound. Slab as a whole only catches
 * gross leaks (see hangup_test): 1 MB.
 */
#define DETACH_CYCLES	15
#define DETACH_4K_BOUND	(32 * 1024)
#define DETACH_SLAB_KB	1024

TEST_F_TIMEOUT(detach, clock_open_across_detach, 90)
{
	long long k4a, k4b;
	long sa, sb;
	int i;

	detach_cycle(_metadata, &self->c, variant->unplug, true);
	detach_cycle(_metadata, &self->c, variant->unplug, false);
	sa = slab_kb();
	k4a = slab_cache_bytes("kmalloc-4k");
	for (i = 0; i < DETACH_CYCLES && gpsphc_test_passing(_metadata); i++)
		detach_cycle(_metadata, &self->c, variant->unplug, false);
	sb = slab_kb();
	k4b = slab_cache_bytes("kmalloc-4k");
	TH_LOG("%d cycles: Slab %+ld kB, kmalloc-4k %+lld bytes", DETACH_CYCLES, sb - sa,
	       k4b - k4a);
	EXPECT_GT(DETACH_SLAB_KB, sb - sa);
	if (k4a >= 0 && k4b >= 0)
		EXPECT_GT(DETACH_4K_BOUND, k4b - k4a);
}

/*
 * phc2sys syncing one gpsphc clock to another when its source goes away:
 * it reports errors or exits, the kernel stays quiet (the VM's dmesg check
 * covers warnings), the sink clock is untouched.
 */
TEST_F_TIMEOUT(detach, phc2sys_source_goes_away, 40)
{
	struct ctx *c = &self->c;
	struct rx *src = &c->rx[0], *dst = &c->rx[1];
	char s[32], d[32], out[16384];
	char *argv[] = { "phc2sys", "-s", s, "-c", d, "-O", "0", "-m", "-q", "-R", "4",
			 NULL };
	struct bg_prog bg = { 0 };
	int status = 0;

	rx_attach(_metadata, c, 0, 2);
	rx_attach(_metadata, c, 1, 1);
	snprintf(s, sizeof(s), "/dev/ptp%d", src->ptp_index);
	snprintf(d, sizeof(d), "/dev/ptp%d", dst->ptp_index);
	out[0] = '\0';
	ASSERT_EQ(0, bg_start(&bg, argv));
	bg_collect(&bg, out, sizeof(out), 2500);
	EXPECT_NE(NULL, strstr(out, "offset")) TH_LOG("phc2sys: %s", out);
	close(src->ptp_fd);
	src->ptp_fd = -1;
	if (variant->unplug) {
		ASSERT_EQ(0, sim_port_present(src->port, 0));
	} else {
		ASSERT_EQ(0, ldisc_set(src->tty_fd, N_TTY));
	}
	bg_collect(&bg, out, sizeof(out), 2000);
	TH_LOG("phc2sys %s after its source went away",
	       bg_running(&bg, &status) ? "still running" : "exited");
	bg_stop(&bg);
	{
		char *p = strrchr(out, '\n');

		while (p && p > out && p[-1] != '\n')
			p--;
		if (p)
			TH_LOG("its last line: %.200s", p);
	}
	/* The sink still works. */
	EXPECT_LT(0, phc_gettime(dst->ptp_fd));
	if (variant->unplug)
		ASSERT_EQ(0, sim_port_present(src->port, 1));
}

/* ---- netlink -------------------------------------------------------------------- */

FIXTURE(tsnl) {
	struct ctx c;
};

FIXTURE_SETUP(tsnl)
{
	ctx_setup(_metadata, &self->c);
	rx_attach(_metadata, &self->c, 0, 2);
}

FIXTURE_TEARDOWN(tsnl)
{
	ctx_teardown(&self->c);
}

/*
 * Manual pulses a second apart, to within the write's latency: the servo
 * counts an edge as a second only within 10 ms of where the second is due
 * (statistics/pps_spurious counts the others). Sleep to 2 ms before, then
 * spin, so that a late wake-up under TCG does not move the edge.
 */
#define MANUAL_SPACING_NS	1000000000LL
#define MANUAL_SPIN_NS		2000000LL

/* A manual pulse on port 2: the on-time edge's seq (the falling one is +1). */
static uint32_t manual_pulse(struct __test_metadata *_metadata, struct ctx *c)
{
	struct rx *rx = &c->rx[0];
	int idx;

	if (rx->n) {
		long long due = rx->e[rx->n - 1].raw + MANUAL_SPACING_NS;
		long long d = due - clock_ns(CLOCK_MONOTONIC_RAW);

		if (d > MANUAL_SPIN_NS)
			usleep((d - MANUAL_SPIN_NS) / 1000);
		while (clock_ns(CLOCK_MONOTONIC_RAW) < due)
			;
	}
	if (sim_set(rx->port, "dcd", "1"))
		return 0;
	idx = wait_edge(c, rx, 2000);
	sim_set(rx->port, "dcd", "0");
	pump(c, 20);
	EXPECT_LE(0, idx);
	return idx < 0 ? 0 : rx->e[idx].seq;
}

struct ts_case {
	const char *name;
	int err;		/* expected errno, or -1: any error */
	uint16_t miss;		/* NLMSGERR_ATTR_MISS_TYPE expected, if any */
	bool semantic;		/* got past the policy: counts as refused */
	void (*build)(struct nlt_msg *m, uint32_t id, uint32_t seq);
};

static void put_time(struct nlt_msg *m, uint32_t seq, bool has_seq, uint64_t tai,
		     bool has_tai, uint32_t off, bool has_off)
{
	nlt_nest_start(m, GPSPHC_A_DEV_TIME);
	if (has_seq)
		nlt_put_u32(m, GPSPHC_A_TIME_EDGE_SEQ, seq);
	if (has_tai)
		nlt_put_u64(m, GPSPHC_A_TIME_TAI_SEC, tai);
	if (has_off)
		nlt_put_u32(m, GPSPHC_A_TIME_TAI_UTC, off);
}

static void b_no_id(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	(void)id;
	put_time(m, seq, 1, T0, 1, 37, 1);
	nlt_nest_end(m);
}

static void b_no_time(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	(void)seq;
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
}

static void b_no_seq(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	put_time(m, seq, 0, T0, 1, 37, 1);
	nlt_nest_end(m);
}

static void b_no_tai(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	put_time(m, seq, 1, T0, 0, 37, 1);
	nlt_nest_end(m);
}

static void b_no_tai_utc(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	put_time(m, seq, 1, T0, 1, 37, 0);
	nlt_nest_end(m);
}

static void b_tai_u32(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	put_time(m, seq, 1, T0, 0, 37, 1);
	nlt_put_u32(m, GPSPHC_A_TIME_TAI_SEC, 1800000037);
	nlt_nest_end(m);
}

static void b_seq_u64(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	put_time(m, seq, 0, T0, 1, 37, 1);
	nlt_put_u64(m, GPSPHC_A_TIME_EDGE_SEQ, seq);
	nlt_nest_end(m);
}

static void b_tai_utc_9(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	put_time(m, seq, 1, T0, 1, 9, 1);
	nlt_nest_end(m);
}

static void b_tai_utc_1001(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	put_time(m, seq, 1, T0, 1, 1001, 1);
	nlt_nest_end(m);
}

static void b_leap_0(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	put_time(m, seq, 1, T0, 1, 37, 1);
	nlt_put_u32(m, GPSPHC_A_TIME_LEAP, 0);
	nlt_nest_end(m);
}

static void b_leap_4(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	put_time(m, seq, 1, T0, 1, 37, 1);
	nlt_put_u32(m, GPSPHC_A_TIME_LEAP, GPSPHC_LEAP_MAX + 1);
	nlt_nest_end(m);
}

static void b_leap_no_when(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	put_time(m, seq, 1, T0, 1, 37, 1);
	nlt_put_u32(m, GPSPHC_A_TIME_LEAP, GPSPHC_LEAP_INSERT);
	nlt_nest_end(m);
}

static void b_unknown_nested(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	put_time(m, seq, 1, T0, 1, 37, 1);
	nlt_put_u32(m, GPSPHC_A_TIME_MAX + 1, 0);
	nlt_nest_end(m);
}

static void b_id_999(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	(void)id;
	nlt_put_u32(m, GPSPHC_A_DEV_ID, 999);
	put_time(m, seq, 1, T0, 1, 37, 1);
	nlt_nest_end(m);
}

/* Edges: seq is on time, seq + 1 the falling one, seq + 100 not yet. */
static void b_seq_future(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	put_time(m, seq + 100, 1, T0, 1, 37, 1);
	nlt_nest_end(m);
}

static void b_seq_falling(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	put_time(m, seq + 1, 1, T0, 1, 37, 1);
	nlt_nest_end(m);
}

static void b_both_seq(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	put_time(m, seq, 1, T0, 1, 37, 1);
	nlt_put_u32(m, GPSPHC_A_TIME_SENTENCE_SEQ, 0);
	nlt_nest_end(m);
}

/* No sentence has come: coarse_test has the refusals of real ones. */
static void b_sentence_none(struct nlt_msg *m, uint32_t id, uint32_t seq)
{
	nlt_put_u32(m, GPSPHC_A_DEV_ID, id);
	put_time(m, seq, 0, T0, 1, 37, 1);
	nlt_put_u32(m, GPSPHC_A_TIME_SENTENCE_SEQ, 0);
	nlt_nest_end(m);
}

static const struct ts_case ts_cases[] = {
	{ "no DEV_ID", EINVAL, GPSPHC_A_DEV_ID, false, b_no_id },
	{ "no DEV_TIME", EINVAL, GPSPHC_A_DEV_TIME, false, b_no_time },
	{ "no EDGE_SEQ", EINVAL, GPSPHC_A_TIME_EDGE_SEQ, false, b_no_seq },
	{ "no TAI_SEC", EINVAL, GPSPHC_A_TIME_TAI_SEC, false, b_no_tai },
	{ "no TAI_UTC", EINVAL, GPSPHC_A_TIME_TAI_UTC, false, b_no_tai_utc },
	{ "TAI_SEC as u32", EINVAL, 0, false, b_tai_u32 },
	{ "EDGE_SEQ as u64", EINVAL, 0, false, b_seq_u64 },
	{ "TAI_UTC 9", ERANGE, 0, false, b_tai_utc_9 },
	{ "TAI_UTC 1001", ERANGE, 0, false, b_tai_utc_1001 },
	{ "LEAP 0", ERANGE, 0, false, b_leap_0 },
	{ "LEAP past max", ERANGE, 0, false, b_leap_4 },
	{ "LEAP INSERT without LEAP_UTC", EINVAL, 0, false, b_leap_no_when },
	{ "unknown attribute in DEV_TIME", EINVAL, 0, false, b_unknown_nested },
	{ "unknown device", ENODEV, 0, false, b_id_999 },
	{ "seq not seen yet", -1, 0, true, b_seq_future },
	{ "seq of a falling edge", -1, 0, true, b_seq_falling },
	{ "EDGE_SEQ and SENTENCE_SEQ", EINVAL, 0, false, b_both_seq },
	{ "SENTENCE_SEQ, no sentence yet", ENOENT, 0, true, b_sentence_none },
};

/*
 * Malformed, out-of-range and unlabellable time-set requests: each refused
 * with its errno and an extack message, none of them touching the clock.
 */
TEST_F_TIMEOUT(tsnl, time_set_refused, 60)
{
	struct ctx *c = &self->c;
	struct rx *rx = &c->rx[0];
	long long refused = 0, t0, t1;
	struct nlt_result res;
	struct nlt_msg m;
	uint32_t seq, seq_old;
	unsigned int i;
	char buf[32];
	int semantic = 0;

	seq_old = manual_pulse(_metadata, c);
	/* GPSPHC_LABEL_HISTORY newer on-time edges push it out. */
	for (i = 0; i < GPSPHC_LABEL_HISTORY; i++)
		manual_pulse(_metadata, c);
	seq = manual_pulse(_metadata, c);
	ASSERT_EQ(GPSPHC_LABEL_HISTORY + 2, rx->n);
	t0 = phc_gettime(rx->ptp_fd) - clock_ns(CLOCK_MONOTONIC_RAW);

	for (i = 0; i < sizeof(ts_cases) / sizeof(ts_cases[0]); i++) {
		const struct ts_case *tc = &ts_cases[i];

		nlt_gpsphc_init(&c->nl, &m, GPSPHC_CMD_TIME_SET, 0);
		tc->build(&m, rx->id, seq);
		ASSERT_EQ(0, nlt_request(&c->nl, &m, NULL, NULL, &res));
		TH_LOG("%s: %s \"%s\"%s", tc->name, strerror(res.err), res.ext_msg,
		       res.has_miss ? " (names the missing attribute)" : "");
		if (tc->err > 0) {
			EXPECT_EQ(tc->err, res.err) TH_LOG("%s", tc->name);
		} else {
			EXPECT_NE(0, res.err) TH_LOG("%s", tc->name);
		}
		EXPECT_NE(0, strlen(res.ext_msg)) TH_LOG("%s: no extack message", tc->name);
		if (tc->miss) {
			EXPECT_TRUE(res.has_miss) TH_LOG("%s", tc->name);
			EXPECT_EQ(tc->miss, res.miss_type) TH_LOG("%s", tc->name);
		}
		semantic += tc->semantic;
	}
	/* Too old: GPSPHC_LABEL_HISTORY + 1 on-time edges ago. */
	ASSERT_EQ(0, nlt_time_set(&c->nl, rx->id, seq_old, T0, 37, 0, 0, &res));
	TH_LOG("seq %u on-time edges old: %s \"%s\"", GPSPHC_LABEL_HISTORY + 1,
	       strerror(res.err), res.ext_msg);
	EXPECT_NE(0, res.err);
	EXPECT_NE(0, strlen(res.ext_msg));
	semantic++;

	t1 = phc_gettime(rx->ptp_fd) - clock_ns(CLOCK_MONOTONIC_RAW);
	EXPECT_GT(10000000, llabs(t1 - t0)) TH_LOG("the clock moved by %lld ns", t1 - t0);
	EXPECT_STREQ("unlocked", gpsphc_servo_state(rx->id, buf, sizeof(buf)));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "statistics/labels"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "statistics/steps"));
	refused = gpsphc_ll(rx->id, "statistics/labels_refused");
	EXPECT_EQ(semantic, refused) TH_LOG("labels_refused counts those past the policy");

	/* The newest on-time edge is labellable: the clock steps onto it. */
	ASSERT_EQ(0, nlt_time_set(&c->nl, rx->id, seq, T0, 37, 0, 0, &res));
	EXPECT_EQ(0, res.err) TH_LOG("%s", res.ext_msg);
	EXPECT_EQ(1, gpsphc_ll(rx->id, "statistics/labels"));
	EXPECT_EQ(1, gpsphc_ll(rx->id, "statistics/steps"));
	t1 = phc_gettime(rx->ptp_fd);
	/* The edge was a few ms ago (TCG: up to ~1 s with the pulses above). */
	EXPECT_LE((long long)T0 * NSEC_PER_SEC, t1);
	EXPECT_GT((long long)(T0 + 2) * NSEC_PER_SEC, t1);
}

/* In a child with every capability but CAP_SYS_TIME: EPERM, with a message. */
static int without_sys_time(struct nlt_sock *unused, uint32_t id, uint32_t seq)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	struct nlt_result res;
	struct nlt_sock s;
	int fails = 0;

	(void)unused;
	if (syscall(SYS_capget, &h, d))
		return 0x80;
	d[CAP_TO_INDEX(CAP_SYS_TIME)].effective &= ~CAP_TO_MASK(CAP_SYS_TIME);
	d[CAP_TO_INDEX(CAP_SYS_TIME)].permitted &= ~CAP_TO_MASK(CAP_SYS_TIME);
	if (syscall(SYS_capset, &h, d))
		return 0x80;
	if (nlt_open(&s))
		return 0x40;
	if (nlt_time_set(&s, id, seq, T0, 37, 0, 0, &res) || res.err != EPERM)
		fails |= 1;
	if (!res.ext_msg[0])
		fails |= 2;
	/*
	 * CAP_NET_ADMIN is not enough for any setting: confirm_n 1 would let
	 * one wrong label move the clock...
	 */
	if (dev_set_u32(&s, id, GPSPHC_A_DEV_CONFIRM_N, 4, &res) ||
	    res.err != EPERM || !res.ext_msg[0])
		fails |= 4;
	/* ...nor for the scale, which moves the clock by TAI - UTC. */
	if (dev_set_u32(&s, id, GPSPHC_A_DEV_SCALE, GPSPHC_SCALE_UTC, &res) ||
	    res.err != EPERM || !res.ext_msg[0])
		fails |= 8;
	if (gpsphc_attr_set(id, "scale", "utc\n") != -EPERM)
		fails |= 16;
	nlt_close(&s);
	return fails;
}

static int nobody(uint32_t id, uint32_t seq)
{
	struct nlt_result res;
	struct nlt_sock s;
	int fails = 0;

	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return 0x80;
	if (nlt_open(&s))
		return 0x40;
	if (nlt_time_set(&s, id, seq, T0, 37, 0, 0, &res) || res.err != EPERM)
		fails |= 1;
	if (!res.ext_msg[0])
		fails |= 2;
	if (dev_set_u32(&s, id, GPSPHC_A_DEV_CONFIRM_N, 5, &res) || res.err != EPERM)
		fails |= 4;
	nlt_close(&s);
	return fails;
}

TEST_F(tsnl, time_set_needs_cap_sys_time)
{
	struct ctx *c = &self->c;
	struct rx *rx = &c->rx[0];
	uint32_t seq = manual_pulse(_metadata, c);
	int status, who;
	char buf[16];
	pid_t pid;

	for (who = 0; who < 2; who++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			_exit(who ? nobody(rx->id, seq) : without_sys_time(NULL, rx->id, seq));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status) & 0xc0) TH_LOG("child set-up failed");
		EXPECT_EQ(0, WEXITSTATUS(status) & 1)
			TH_LOG("%s: time-set not EPERM", who ? "nobody" : "no CAP_SYS_TIME");
		EXPECT_EQ(0, WEXITSTATUS(status) & 2) TH_LOG("EPERM without a message");
		EXPECT_EQ(0, WEXITSTATUS(status) & 4)
			TH_LOG("%s: dev-set wrong", who ? "nobody" : "CAP_NET_ADMIN");
		EXPECT_EQ(0, WEXITSTATUS(status) & 8)
			TH_LOG("dev-set scale without CAP_SYS_TIME not EPERM with a message");
		EXPECT_EQ(0, WEXITSTATUS(status) & 16)
			TH_LOG("writing scale without CAP_SYS_TIME not EPERM");
	}
	ASSERT_LT(0, gpsphc_attr_str(rx->id, "scale", buf, sizeof(buf)));
	EXPECT_STREQ("tai", buf);
	EXPECT_EQ(3, gpsphc_ll(rx->id, "confirm_n"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "statistics/labels"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "statistics/steps"));
}

struct dev_reply {
	int n;
	struct nlt_dev d;
};

static void collect_one(const struct nlmsghdr *nlh, void *arg)
{
	struct dev_reply *r = arg;

	if (r->n++ == 0)
		nlt_parse_dev(nlh, &r->d);
}

static int dev_get(struct nlt_sock *s, uint32_t id, struct dev_reply *r,
		   struct nlt_result *res)
{
	struct nlt_msg m;

	memset(r, 0, sizeof(*r));
	nlt_gpsphc_init(s, &m, GPSPHC_CMD_DEV_GET, 0);
	nlt_put_u32(&m, GPSPHC_A_DEV_ID, id);
	return nlt_request(s, &m, collect_one, r, res);
}

struct set_case {
	const char *name;
	uint16_t attr;
	int size;		/* 4 or 8 */
	uint64_t v;
	int err;		/* 0: accepted */
};

static const struct set_case set_cases[] = {
	{ "scale 0", GPSPHC_A_DEV_SCALE, 4, 0, ERANGE },
	{ "scale past max", GPSPHC_A_DEV_SCALE, 4, GPSPHC_SCALE_MAX + 1, ERANGE },
	{ "scale as u64", GPSPHC_A_DEV_SCALE, 8, GPSPHC_SCALE_UTC, EINVAL },
	{ "step_ns 999", GPSPHC_A_DEV_STEP_NS, 8, 999, ERANGE },
	{ "step_ns 1000000001", GPSPHC_A_DEV_STEP_NS, 8, 1000000001, ERANGE },
	{ "step_ns as u32", GPSPHC_A_DEV_STEP_NS, 4, 5000, EINVAL },
	{ "confirm_n 0", GPSPHC_A_DEV_CONFIRM_N, 4, 0, ERANGE },
	{ "confirm_n 61", GPSPHC_A_DEV_CONFIRM_N, 4, 61, ERANGE },
	{ "rx_latency_ns 999000001", GPSPHC_A_DEV_RX_LATENCY_NS, 8, 999000001, ERANGE },
	{ "clock_servo 0", GPSPHC_A_DEV_CLOCK_SERVO, 4, 0, ERANGE },
	{ "clock_servo past max", GPSPHC_A_DEV_CLOCK_SERVO, 4, GPSPHC_CLOCK_SERVO_MAX + 1,
	  ERANGE },
	{ "clock_servo as u64", GPSPHC_A_DEV_CLOCK_SERVO, 8, GPSPHC_CLOCK_SERVO_PI, EINVAL },
	{ "scale utc", GPSPHC_A_DEV_SCALE, 4, GPSPHC_SCALE_UTC, 0 },
	{ "step_ns 1000", GPSPHC_A_DEV_STEP_NS, 8, 1000, 0 },
	{ "step_ns 1000000000", GPSPHC_A_DEV_STEP_NS, 8, 1000000000, 0 },
	{ "confirm_n 1", GPSPHC_A_DEV_CONFIRM_N, 4, 1, 0 },
	{ "confirm_n 60", GPSPHC_A_DEV_CONFIRM_N, 4, 60, 0 },
	{ "rx_latency_ns 0", GPSPHC_A_DEV_RX_LATENCY_NS, 8, 0, 0 },
	{ "rx_latency_ns 999000000", GPSPHC_A_DEV_RX_LATENCY_NS, 8, 999000000, 0 },
	{ "clock_servo pi", GPSPHC_A_DEV_CLOCK_SERVO, 4, GPSPHC_CLOCK_SERVO_PI, 0 },
	{ "clock_servo bank", GPSPHC_A_DEV_CLOCK_SERVO, 4, GPSPHC_CLOCK_SERVO_BANK, 0 },
};

static const char *attr_file(uint16_t attr)
{
	switch (attr) {
	case GPSPHC_A_DEV_SCALE: return "scale";
	case GPSPHC_A_DEV_STEP_NS: return "step_ns";
	case GPSPHC_A_DEV_CONFIRM_N: return "confirm_n";
	default: return "rx_latency_ns";
	}
}

/*
 * dev-set of the clock settings: range-checked with ERANGE and a message,
 * all-or-nothing, reflected in dev-get and sysfs; sysfs writes likewise.
 */
TEST_F(tsnl, settings_range_checked)
{
	struct ctx *c = &self->c;
	struct rx *rx = &c->rx[0];
	struct dev_reply r;
	struct nlt_result res;
	struct nlt_msg m;
	unsigned int i;
	char buf[64];

	ASSERT_EQ(0, dev_get(&c->nl, rx->id, &r, &res));
	ASSERT_EQ(0, res.err);
	ASSERT_EQ(1, r.n);
	EXPECT_TRUE(r.d.has_ptp_index);
	EXPECT_EQ((uint32_t)rx->ptp_index, r.d.ptp_index);
	EXPECT_TRUE(r.d.has_scale && r.d.has_step_ns && r.d.has_confirm_n && r.d.has_rx_latency &&
		    r.d.has_clock_servo);
	EXPECT_EQ(GPSPHC_SCALE_TAI, r.d.scale);
	EXPECT_EQ(GPSPHC_CLOCK_SERVO_BANK, r.d.clock_servo);
	EXPECT_EQ(20000000, r.d.step_ns);
	EXPECT_EQ(3, r.d.confirm_n);
	EXPECT_EQ(0, r.d.rx_latency_ns);
	EXPECT_TRUE(r.d.servo.present);
	EXPECT_EQ(0, r.d.servo.bad_len);
	EXPECT_EQ(GPSPHC_SERVO_UNLOCKED, r.d.servo.state);
	EXPECT_EQ(5, r.d.servo.counters);
	EXPECT_TRUE(r.d.servo.has_offset && r.d.servo.has_rms && r.d.servo.has_freq &&
		    r.d.servo.has_tai_utc && r.d.servo.has_leap && r.d.servo.has_holdover);
	EXPECT_FALSE(r.d.servo.coarse) TH_LOG("coarse before any sentence or edge");

	for (i = 0; i < sizeof(set_cases) / sizeof(set_cases[0]); i++) {
		const struct set_case *sc = &set_cases[i];
		long long v;

		nlt_gpsphc_init(&c->nl, &m, GPSPHC_CMD_DEV_SET, 0);
		nlt_put_u32(&m, GPSPHC_A_DEV_ID, rx->id);
		if (sc->size == 4)
			nlt_put_u32(&m, sc->attr, sc->v);
		else
			nlt_put_u64(&m, sc->attr, sc->v);
		ASSERT_EQ(0, nlt_request(&c->nl, &m, NULL, NULL, &res));
		EXPECT_EQ(sc->err, res.err) TH_LOG("%s: %s \"%s\"", sc->name, strerror(res.err),
						   res.ext_msg);
		if (sc->err) {
			EXPECT_NE(0, strlen(res.ext_msg)) TH_LOG("%s: no message", sc->name);
			continue;
		}
		ASSERT_EQ(0, dev_get(&c->nl, rx->id, &r, &res));
		if (sc->attr == GPSPHC_A_DEV_SCALE) {
			EXPECT_EQ(sc->v, r.d.scale);
			ASSERT_LT(0, gpsphc_attr_str(rx->id, "scale", buf, sizeof(buf)));
			EXPECT_STREQ("utc", buf);
			continue;
		}
		if (sc->attr == GPSPHC_A_DEV_CLOCK_SERVO) {
			EXPECT_EQ(sc->v, r.d.clock_servo);
			ASSERT_LT(0, gpsphc_attr_str(rx->id, "clock_servo", buf, sizeof(buf)));
			EXPECT_STREQ(sc->v == GPSPHC_CLOCK_SERVO_PI ? "pi" : "bank", buf);
			continue;
		}
		v = gpsphc_ll(rx->id, attr_file(sc->attr));
		EXPECT_EQ((long long)sc->v, v) TH_LOG("%s: sysfs", sc->name);
		if (sc->attr == GPSPHC_A_DEV_STEP_NS) {
			EXPECT_EQ(sc->v, r.d.step_ns);
		} else if (sc->attr == GPSPHC_A_DEV_CONFIRM_N) {
			EXPECT_EQ(sc->v, r.d.confirm_n);
		} else {
			EXPECT_EQ(sc->v, r.d.rx_latency_ns);
		}
	}

	/* All or nothing: a good value with a bad one changes nothing. */
	nlt_gpsphc_init(&c->nl, &m, GPSPHC_CMD_DEV_SET, 0);
	nlt_put_u32(&m, GPSPHC_A_DEV_ID, rx->id);
	nlt_put_u32(&m, GPSPHC_A_DEV_CONFIRM_N, 7);
	nlt_put_u64(&m, GPSPHC_A_DEV_STEP_NS, 5);
	ASSERT_EQ(0, nlt_request(&c->nl, &m, NULL, NULL, &res));
	EXPECT_EQ(ERANGE, res.err);
	EXPECT_EQ(60, gpsphc_ll(rx->id, "confirm_n"));
	nlt_gpsphc_init(&c->nl, &m, GPSPHC_CMD_DEV_SET, 0);
	nlt_put_u32(&m, GPSPHC_A_DEV_ID, rx->id);
	nlt_put_u32(&m, GPSPHC_A_DEV_CONFIRM_N, 7);
	nlt_put_u32(&m, GPSPHC_A_DEV_SCALE, 9);
	ASSERT_EQ(0, nlt_request(&c->nl, &m, NULL, NULL, &res));
	EXPECT_NE(0, res.err);
	EXPECT_EQ(60, gpsphc_ll(rx->id, "confirm_n"));

	/* sysfs: the same ranges. */
	EXPECT_EQ(0, gpsphc_attr_set(rx->id, "scale", "tai\n"));
	EXPECT_EQ(-EINVAL, gpsphc_attr_set(rx->id, "scale", "gps\n"));
	EXPECT_EQ(-EINVAL, gpsphc_attr_set(rx->id, "scale", "TAI"));
	ASSERT_LT(0, gpsphc_attr_str(rx->id, "scale", buf, sizeof(buf)));
	EXPECT_STREQ("tai", buf);
	EXPECT_EQ(0, gpsphc_attr_set(rx->id, "confirm_n", "3\n"));
	EXPECT_GT(0, gpsphc_attr_set(rx->id, "confirm_n", "0"));
	EXPECT_GT(0, gpsphc_attr_set(rx->id, "confirm_n", "61"));
	EXPECT_GT(0, gpsphc_attr_set(rx->id, "confirm_n", "x"));
	EXPECT_EQ(3, gpsphc_ll(rx->id, "confirm_n"));
	EXPECT_EQ(0, gpsphc_attr_set(rx->id, "step_ns", "20000000"));
	EXPECT_GT(0, gpsphc_attr_set(rx->id, "step_ns", "999"));
	EXPECT_GT(0, gpsphc_attr_set(rx->id, "step_ns", "1000000001"));
	EXPECT_EQ(20000000, gpsphc_ll(rx->id, "step_ns"));
	EXPECT_EQ(0, gpsphc_attr_set(rx->id, "rx_latency_ns", "0"));
	EXPECT_GT(0, gpsphc_attr_set(rx->id, "rx_latency_ns", "999000001"));
	EXPECT_GT(0, gpsphc_attr_set(rx->id, "rx_latency_ns", "-1"));
	EXPECT_EQ(0, gpsphc_ll(rx->id, "rx_latency_ns"));
	ASSERT_LT(0, gpsphc_attr_str(rx->id, "available_clock_servos", buf, sizeof(buf)));
	EXPECT_STREQ("bank pi", buf);
	EXPECT_EQ(0, gpsphc_attr_set(rx->id, "clock_servo", "pi\n"));
	ASSERT_LT(0, gpsphc_attr_str(rx->id, "clock_servo", buf, sizeof(buf)));
	EXPECT_STREQ("pi", buf);
	EXPECT_EQ(-EINVAL, gpsphc_attr_set(rx->id, "clock_servo", "linreg"));
	EXPECT_EQ(-EINVAL, gpsphc_attr_set(rx->id, "clock_servo", "2"));
	EXPECT_EQ(0, gpsphc_attr_set(rx->id, "clock_servo", "bank"));
	ASSERT_LT(0, gpsphc_attr_str(rx->id, "clock_servo", buf, sizeof(buf)));
	EXPECT_STREQ("bank", buf);
	/* Read-only servo status. */
	EXPECT_EQ(-EACCES, gpsphc_attr_set(rx->id, "servo_state", "locked"));
	EXPECT_EQ(-EACCES, gpsphc_attr_set(rx->id, "offset_ns", "0"));
	EXPECT_EQ(-EACCES, gpsphc_attr_set(rx->id, "statistics/labels", "0"));
	EXPECT_EQ(-EACCES, gpsphc_attr_set(rx->id, "ptp_device", "ptp0"));
}

TEST_HARNESS_MAIN
