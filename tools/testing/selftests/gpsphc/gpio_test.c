// SPDX-License-Identifier: GPL-2.0
/*
 * PPS from a GPIO line (kmod/gpio.c, sysfs pps_gpio) through the kernel's
 * own GPIO and interrupt code, without gpsphcd: the arm64 guest runs it
 * too. The line is gpsphc_gpioemu's line 0, "GPIO18"
 * (tools/testing/gpsphc_gpioemu/CONTROL.rst): a gpio_chip with gpiolib's
 * irqchip, whose hrtimer raises the line's interrupt at planned
 * CLOCK_MONOTONIC_RAW instants. The NMEA side is a fake UART port whose
 * own pulse generator stays off.
 *
 * Checked: the line set by the chip's label, its line name and its
 * device name; one PPS edge per edge of the line (statistics, netlink
 * events, the emulator's counters), stamped after the planned instant
 * and within LATE_BOUND_NS of it; /dev/ppsN's asserts those very stamps,
 * a second apart; EXTTS events of the same edges, in the clock's time;
 * DCD edges ignored while the line is set, and counted again after
 * "none", which frees the interrupt; bad specs refused with their errno,
 * leaving the device on DCD; a line another device holds refused with
 * EBUSY until that device detaches, and its controller's module held
 * meanwhile; detach (TIOCSETD and close) while the line's interrupt
 * fires, with the kernel log clean and the line taken again by the next
 * attach.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <linux/pps.h>
#include <linux/ptp_clock.h>

#include "kselftest_harness.h"
#include "gpsphc_test.h"
#include "nl_helpers.h"
#include "phc_helpers.h"
#include "kmsg_watch.h"

#define PORT		2
#define PORT_B		3
#define TTY_NAME	"ttyGPSSIM2"

#define EMU_DIR		"/sys/kernel/debug/gpsphc_gpioemu"
#define EMU_KO		"/lib/gpsphc/gpsphc_gpioemu.ko"
#define EMU_MODULE	"gpsphc_gpioemu"
#define EMU_CHIP	"gpsphc-gpioemu"
#define EMU_LINE	"GPIO18"	/* line 0's name */

#define NSEC_PER_MSEC	1000000LL
#define PULSES		4
#define WIDTH_MS	300

/*
 * The emulator's hrtimer fires 2 ms before an edge's planned raw instant
 * and spins up to it, so no edge comes early; it comes late by the
 * guest's timer latency past those 2 ms, 0.1 to 21.5 ms under TCG on a
 * busy 2-core host (gpsphc_sim/CONTROL.rst). The stamp follows the edge
 * by the microseconds from the timer's callback to the line's hard
 * interrupt handler, which generic_handle_domain_irq() calls in place.
 * So: 0 <= stamp - plan < 50 ms, and /dev/ppsN's asserts 1 s apart to
 * the same 50 ms. Anything later is a stamp taken somewhere else (the
 * interrupt's thread, a worker), which is what the bound is for.
 */
#define LATE_BOUND_NS	(50 * NSEC_PER_MSEC)

/*
 * An EXTTS event is the clock's reading at the edge's raw stamp; read
 * back through PTP_SYS_OFFSET_PRECISE (device and raw from one
 * snapshot) a few seconds later, it differs by the clock's frequency
 * offset over those seconds: zero with no labels, as here, and 1 ms
 * would take 200 ppm.
 */
#define EXTTS_BOUND_NS	NSEC_PER_MSEC

FIXTURE(gpio) {
	bool loaded;		/* gpsphc_gpioemu loaded by this test */
	int fd, fd_b;		/* PORT's and PORT_B's ttys, or -1 */
	int id;			/* PORT's device */
	int pps_fd, ptp_fd;
	struct kmsg_watch kmsg;	/* the kernel log, from the setup on */
	struct nlt_sock nl;
	struct nlt_events *q;
};

/* ---- the emulator ---------------------------------------------------------- */

static int emu_set(const char *file, const char *val)
{
	char path[128];
	ssize_t n;

	snprintf(path, sizeof(path), EMU_DIR "/%s", file);
	n = write_file(path, val, strlen(val));
	return n < 0 ? (int)n : 0;
}

/* A counter of the emulator, or -errno. */
static long long emu_get(const char *file)
{
	char path[128], buf[32];
	int n;

	snprintf(path, sizeof(path), EMU_DIR "/%s", file);
	n = read_file(path, buf, sizeof(buf));
	return n < 0 ? n : strtoll(buf, NULL, 10);
}

/* One run of the generator: when its pulses are due, its counters before. */
struct emu_run {
	long long t0;		/* CLOCK_MONOTONIC_RAW of pulse 0's rising edge */
	long long edges, delivered, rising;
};

/* The emulator's t0 for a write to enable at raw time @raw (CONTROL.rst). */
static long long emu_t0(long long raw)
{
	return (raw + 2 * NSEC_PER_SEC - 1) / NSEC_PER_SEC * NSEC_PER_SEC;
}

/* Planned raw instant of edge @i (pulse i / 2, rising first) of @r. */
static long long emu_plan(const struct emu_run *r, int i, int width_ms)
{
	return r->t0 + i / 2 * NSEC_PER_SEC + i % 2 * width_ms * NSEC_PER_MSEC;
}

/*
 * Start the generator, away from a whole second of the raw clock, so that
 * the readings before and after the write give the t0 the emulator took.
 */
static void emu_start(struct __test_metadata *_metadata, struct emu_run *r)
{
	long long raw0, raw1;

	raw0 = clock_ns(CLOCK_MONOTONIC_RAW);
	if (raw0 % NSEC_PER_SEC > 700 * NSEC_PER_MSEC)
		usleep((NSEC_PER_SEC - raw0 % NSEC_PER_SEC) / 1000 + 50000);
	r->edges = emu_get("edges");
	r->delivered = emu_get("delivered");
	r->rising = emu_get("rising");
	raw0 = clock_ns(CLOCK_MONOTONIC_RAW);
	ASSERT_EQ(0, emu_set("enable", "1"));
	raw1 = clock_ns(CLOCK_MONOTONIC_RAW);
	r->t0 = emu_t0(raw0);
	ASSERT_EQ(r->t0, emu_t0(raw1))
		TH_LOG("the write to enable spanned %lld ns across a second", raw1 - raw0);
}

/* Sleep until CLOCK_MONOTONIC_RAW reaches @raw (spinning the last 2 ms). */
static void sleep_until_raw(long long raw)
{
	long long left = raw - clock_ns(CLOCK_MONOTONIC_RAW);

	if (left > 2 * NSEC_PER_MSEC)
		usleep((left - 2 * NSEC_PER_MSEC) / 1000);
	while (clock_ns(CLOCK_MONOTONIC_RAW) < raw)
		;
}

/* ---- the device ------------------------------------------------------------ */

/* Open fake port @port into *@fd and attach: the device's id, or -errno. */
static int sim_attach(int port, int *fd)
{
	char tty[16];
	int ret;

	*fd = sim_tty_open(port, O_NONBLOCK);
	if (*fd < 0)
		return *fd;
	ret = ldisc_set(*fd, GPSPHC_LDISC);
	if (ret)
		return ret;
	snprintf(tty, sizeof(tty), "ttyGPSSIM%d", port);
	return gpsphc_find(tty);
}

/*
 * Does device @id's line have its interrupt? The handler is named after
 * the device (kmod/gpio.c: "gpsphc<id>"), the last word of its line in
 * /proc/interrupts.
 */
static bool irq_requested(int id)
{
	char line[4096], want[32];
	bool found = false;
	size_t n;
	FILE *f;

	n = snprintf(want, sizeof(want), "gpsphc%d", id);
	f = fopen("/proc/interrupts", "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *p = line;

		while (!found && (p = strstr(p, want))) {
			found = p > line && strchr(" ,", p[-1]) && strchr(" ,\n", p[n]);
			p += n;
		}
	}
	fclose(f);
	return found;
}

static bool pps_gpio_is(int id, const char *want)
{
	char buf[80];

	return gpsphc_attr_str(id, "pps_gpio", buf, sizeof(buf)) >= 0 &&
	       !strcmp(buf, want);
}

/* Wait up to @ms for device @id to be gone from sysfs (detach is synchronous). */
static bool gone_within(int id, int ms)
{
	char path[64];

	snprintf(path, sizeof(path), GPSPHC_CLASS "/gpsphc%d", id);
	while (!access(path, F_OK) && ms-- > 0)
		usleep(1000);
	return access(path, F_OK) != 0;
}

/* ---- the fixture ----------------------------------------------------------- */

FIXTURE_SETUP(gpio)
{
	char path[32];
	int ret;

	self->fd = self->fd_b = self->pps_fd = self->ptp_fd = -1;
	self->nl.fd = -1;
	self->q = NULL;
	kmsg_watch_open(&self->kmsg);
	if (access(EMU_DIR, F_OK)) {
		ret = module_load(EMU_KO, "");
		if (ret == -ENOENT)
			SKIP(return, EMU_KO " not built for this kernel (no GPIOLIB_IRQCHIP)");
		ASSERT_EQ(0, ret) TH_LOG("load " EMU_KO ": %s", strerror(-ret));
		self->loaded = true;
	}
	ASSERT_EQ(0, emu_set("enable", "0"));
	ASSERT_EQ(0, emu_set("ppb", "0"));
	ASSERT_EQ(0, emu_set("width_ms", "300"));

	sim_pulse_reset(PORT);
	ASSERT_EQ(0, sim_set(PORT, "dcd", "0"));
	self->id = sim_attach(PORT, &self->fd);
	ASSERT_LE(0, self->id) TH_LOG("attach " TTY_NAME ": %s", strerror(-self->id));
	ASSERT_TRUE(pps_gpio_is(self->id, "none"));
	ret = gpsphc_pps_index(self->id);
	ASSERT_LE(0, ret) TH_LOG("pps_device: %s", strerror(-ret));
	snprintf(path, sizeof(path), "/dev/pps%d", ret);
	self->pps_fd = open(path, O_RDWR);
	ASSERT_LE(0, self->pps_fd) TH_LOG("open %s: %s", path, strerror(errno));
	ret = gpsphc_ptp_index(self->id);
	ASSERT_LE(0, ret) TH_LOG("ptp_device: %s", strerror(-ret));
	self->ptp_fd = phc_open(ret, O_RDWR);
	ASSERT_LE(0, self->ptp_fd) TH_LOG("open /dev/ptp%d: %s", ret, strerror(-self->ptp_fd));
	ret = nlt_open(&self->nl);
	ASSERT_EQ(0, ret) TH_LOG("genl family " GPSPHC_GENL_NAME ": %s", strerror(-ret));
	ASSERT_EQ(0, nlt_subscribe(&self->nl));
	self->q = calloc(1, sizeof(*self->q));
	ASSERT_NE(NULL, self->q);
}

FIXTURE_TEARDOWN(gpio)
{
	if (!access(EMU_DIR, F_OK))
		emu_set("enable", "0");
	if (self->q)
		nlt_events_free(self->q);
	free(self->q);
	nlt_close(&self->nl);
	if (self->ptp_fd >= 0)
		close(self->ptp_fd);
	if (self->pps_fd >= 0)
		close(self->pps_fd);
	if (self->fd_b >= 0) {
		ldisc_set(self->fd_b, N_TTY);
		close(self->fd_b);
	}
	if (self->fd >= 0) {
		ldisc_set(self->fd, N_TTY);
		close(self->fd);
	}
	sim_set(PORT, "dcd", "0");
	/* Every line released: nothing holds the module. */
	if (self->loaded)
		EXPECT_EQ(0, module_unload(EMU_MODULE));
	kmsg_watch_close(&self->kmsg);
}

static int pps_events(const struct nlt_events *q)
{
	return nlt_events_count(q, GPSPHC_CMD_PPS_NTF);
}

static bool more_pps(struct nlt_events *q, void *arg)
{
	return pps_events(q) > *(int *)arg;
}

/* The kernel log since the setup has nothing the guest's check fails on. */
static void expect_kmsg_clean(struct __test_metadata *_metadata,
			      FIXTURE_DATA(gpio) *self)
{
	if (self->kmsg.fd < 0)
		return;
	kmsg_watch_drain(&self->kmsg);
	EXPECT_EQ(0, self->kmsg.bad) TH_LOG("kernel log: %s", self->kmsg.line[0]);
}

/*
 * The device on the line @spec, the generator on for PULSES pulses of
 * WIDTH_MS: every edge of the line is one PPS edge of the device,
 * stamped after its planned instant and within LATE_BOUND_NS of it;
 * /dev/ppsN's assert after each on-time edge is that edge's stamp; EXTTS
 * has each on-time edge in the clock's time.
 */
static void pulses_through(struct __test_metadata *_metadata,
			   FIXTURE_DATA(gpio) *self, const char *spec)
{
	unsigned long long st0[GPSPHC_NSTATS], st1[GPSPHC_NSTATS];
	struct ptp_extts_event ext[2 * PULSES + 2];
	const struct nlt_event *pe[2 * PULSES + 2];
	long long late, min_late = LLONG_MAX, max_late = 0, prev_tu = 0;
	long long d, max_spacing = 0, max_extts = 0, edges, rising;
	int i, n = 0, seen = 0, fetched = 0, next_ext;
	struct pps_kinfo k0, k;
	struct emu_run r;
	struct phc_xts x = { 0 };

	ASSERT_EQ(0, gpsphc_attr_set(self->id, "pps_gpio", spec));
	ASSERT_TRUE(pps_gpio_is(self->id, spec));
	ASSERT_TRUE(irq_requested(self->id));
	ASSERT_EQ(0, phc_extts(self->ptp_fd, 0, true));
	ASSERT_EQ(0, gpsphc_stats(self->id, st0));
	ASSERT_EQ(0, pps_fetch(self->pps_fd, &k0));
	nlt_events_clear(self->q);

	emu_start(_metadata, &r);
	/* /dev/ppsN read as each edge is notified: its last assert is the last on-time edge's. */
	while (seen < 2 * PULSES) {
		int na = 0;

		nlt_events_wait(&self->nl, self->q, self->id, more_pps, &seen, 4000);
		ASSERT_LT(seen, pps_events(self->q)) TH_LOG("no PPS edge in 4 s after %d", seen);
		seen = pps_events(self->q);
		ASSERT_EQ(0, pps_fetch(self->pps_fd, &k));
		for (i = 0, n = 0; i < self->q->n && n < 2 * PULSES + 2; i++)
			if (self->q->ev[i].cmd == GPSPHC_CMD_PPS_NTF)
				pe[n++] = &self->q->ev[i];
		for (i = 0; i < n; i++)
			na += pe[i]->assert;
		if (na == fetched)
			continue;
		/* The last on-time edge notified. */
		for (i = n - 1; !pe[i]->assert; i--)
			;
		EXPECT_EQ(k0.assert_sequence + na, k.assert_sequence);
		EXPECT_EQ((long long)pe[i]->real_ns, pps_ktime_ns(&k.assert_tu));
		if (fetched && na == fetched + 1) {
			d = pps_ktime_ns(&k.assert_tu) - prev_tu - NSEC_PER_SEC;
			EXPECT_GT(LATE_BOUND_NS, llabs(d)) TH_LOG("assert %d: 1 s %+lld ns", na, d);
			max_spacing = llabs(d) > max_spacing ? llabs(d) : max_spacing;
		}
		prev_tu = pps_ktime_ns(&k.assert_tu);
		fetched = na;
	}
	ASSERT_EQ(0, emu_set("enable", "0"));
	/* An edge of a pulse begun before the stop, notified late. */
	nlt_events_wait(&self->nl, self->q, self->id, NULL, NULL, 300);
	ASSERT_EQ(0, gpsphc_stats(self->id, st1));
	edges = emu_get("edges") - r.edges;
	rising = emu_get("rising") - r.rising;
	for (i = 0, n = 0; i < self->q->n && n < 2 * PULSES + 2; i++)
		if (self->q->ev[i].cmd == GPSPHC_CMD_PPS_NTF)
			pe[n++] = &self->q->ev[i];

	/* One PPS edge per edge of the line, counted everywhere. */
	EXPECT_LE(2 * PULSES, edges);
	EXPECT_EQ(edges, emu_get("delivered") - r.delivered);
	EXPECT_EQ(edges, (long long)(st1[ST_PPS_EDGES] - st0[ST_PPS_EDGES]));
	EXPECT_EQ(edges, pps_events(self->q));
	EXPECT_EQ(0, st1[ST_PPS_MISSED] - st0[ST_PPS_MISSED]) {
		/* Which second the servo gave each on-time edge, and when */
		for (i = 0; i < n; i++)
			if (pe[i]->assert)
				TH_LOG("edge seq %u raw %llu ns: %s second %llu",
				       pe[i]->seq, (unsigned long long)pe[i]->raw_ns,
				       pe[i]->counted ? "counted," : "not counted,",
				       (unsigned long long)pe[i]->second);
	}
	EXPECT_EQ(0, st1[ST_EVENTS_DROPPED]);
	EXPECT_EQ(0, self->q->overruns);
	EXPECT_EQ(PULSES, fetched);

	for (i = 0; i < n; i++) {
		EXPECT_TRUE(pe[i]->complete);
		EXPECT_EQ(pe[0]->seq + i, pe[i]->seq);
		EXPECT_EQ(i % 2 ? GPSPHC_EDGE_FALLING : GPSPHC_EDGE_RISING, pe[i]->edge)
			TH_LOG("edge %d", i);
		EXPECT_EQ(!(i % 2), pe[i]->assert) TH_LOG("edge %d", i);
		late = (long long)pe[i]->raw_ns - emu_plan(&r, i, WIDTH_MS);
		EXPECT_LE(0, late) TH_LOG("edge %d stamped %lld ns before it was due", i, -late);
		EXPECT_GT(LATE_BOUND_NS, late) TH_LOG("edge %d stamped %lld ns late", i, late);
		min_late = late < min_late ? late : min_late;
		max_late = late > max_late ? late : max_late;
	}

	/* EXTTS: each on-time edge, in the clock's time at its raw stamp. */
	for (i = 0, n = 0; (int)ARRAY_SIZE(ext) > n; n += i) {
		i = phc_extts_read(self->ptp_fd, ext + n, ARRAY_SIZE(ext) - n, 200);
		if (i <= 0)
			break;
	}
	EXPECT_LE(0, i) TH_LOG("EXTTS read: %s", strerror(-i));
	EXPECT_EQ(rising, n);
	ASSERT_EQ(0, phc_precise(self->ptp_fd, &x));
	next_ext = 0;
	for (i = 0; i < pps_events(self->q) && i < 2 * PULSES + 2 && next_ext < n; i++) {
		if (!pe[i]->assert)
			continue;
		EXPECT_EQ(0, ext[next_ext].index);
		d = pct_ns(&ext[next_ext].t) - (x.dev - (x.raw - (long long)pe[i]->raw_ns));
		EXPECT_GT(EXTTS_BOUND_NS, llabs(d)) TH_LOG("EXTTS %d: %+lld ns", next_ext, d);
		max_extts = llabs(d) > max_extts ? llabs(d) : max_extts;
		next_ext++;
	}
	ASSERT_EQ(0, phc_extts(self->ptp_fd, 0, false));
	TH_LOG("%s: %lld edges; stamp - plan %lld..%lld ns; asserts 1 s apart to %lld ns; "
	       "EXTTS to %lld ns", spec, edges, min_late, max_late, max_spacing, max_extts);
	expect_kmsg_clean(_metadata, self);
}

TEST_F_TIMEOUT(gpio, pulses_by_chip_label, 30)
{
	pulses_through(_metadata, self, EMU_CHIP ":0");
}

TEST_F_TIMEOUT(gpio, pulses_by_line_name, 30)
{
	pulses_through(_metadata, self, EMU_LINE);
}

/* The chip's device name, gpiochipN, as the platform device's child. */
TEST_F_TIMEOUT(gpio, pulses_by_device_name, 30)
{
	char spec[64] = "";
	struct dirent *de;
	DIR *d;

	d = opendir("/sys/bus/platform/devices/" EMU_MODULE);
	ASSERT_NE(NULL, d);
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "gpiochip", 8))
			snprintf(spec, sizeof(spec), "%.40s:0", de->d_name);
	closedir(d);
	ASSERT_STRNE("", spec);
	pulses_through(_metadata, self, spec);
}

/* DCD edges of the tty: counted by the port, ignored by the device. */
TEST_F(gpio, dcd_ignored_while_line_set)
{
	unsigned long long st0[GPSPHC_NSTATS], st1[GPSPHC_NSTATS];
	struct pps_kinfo k0, k;
	char log[1024];
	int i, lines = 0;

	ASSERT_EQ(0, gpsphc_attr_set(self->id, "pps_gpio", EMU_CHIP ":0\n"));
	ASSERT_TRUE(pps_gpio_is(self->id, EMU_CHIP ":0"));
	ASSERT_EQ(0, gpsphc_stats(self->id, st0));
	ASSERT_EQ(0, pps_fetch(self->pps_fd, &k0));
	ASSERT_EQ(0, sim_set(PORT, "edges", "clear"));
	nlt_events_clear(self->q);
	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, sim_set(PORT, "dcd", i % 2 ? "0" : "1"));
	nlt_events_wait(&self->nl, self->q, self->id, NULL, NULL, 300);

	/* The port delivered all six to the discipline... */
	ASSERT_LE(0, sim_get(PORT, "edges", log, sizeof(log)));
	for (i = 0; log[i]; i++)
		lines += log[i] == '\n';
	EXPECT_EQ(6, lines);
	/* ... which fed nothing with them. */
	ASSERT_EQ(0, gpsphc_stats(self->id, st1));
	EXPECT_EQ(0, st1[ST_PPS_EDGES] - st0[ST_PPS_EDGES]);
	EXPECT_EQ(0, st1[ST_PPS_MISSED] - st0[ST_PPS_MISSED]);
	EXPECT_EQ(0, pps_events(self->q));
	ASSERT_EQ(0, pps_fetch(self->pps_fd, &k));
	EXPECT_EQ(k0.assert_sequence, k.assert_sequence);
	EXPECT_EQ(k0.clear_sequence, k.clear_sequence);
	EXPECT_TRUE(pps_gpio_is(self->id, EMU_CHIP ":0"));
}

/*
 * "none" frees the interrupt and releases the line: DCD edges count
 * again, stamped inside the write that made them, and the line's pulses
 * reach nothing. An empty line means "none" too.
 */
TEST_F_TIMEOUT(gpio, none_back_to_dcd, 30)
{
	unsigned long long st0[GPSPHC_NSTATS], st1[GPSPHC_NSTATS];
	long long raw0, raw1;
	struct emu_run r;
	int i;

	ASSERT_EQ(0, gpsphc_attr_set(self->id, "pps_gpio", EMU_LINE));
	ASSERT_TRUE(irq_requested(self->id));
	ASSERT_EQ(0, gpsphc_attr_set(self->id, "pps_gpio", "none\n"));
	EXPECT_TRUE(pps_gpio_is(self->id, "none"));
	EXPECT_FALSE(irq_requested(self->id));
	ASSERT_EQ(0, gpsphc_attr_set(self->id, "pps_gpio", EMU_LINE));
	ASSERT_EQ(0, gpsphc_attr_set(self->id, "pps_gpio", "\n"));
	EXPECT_TRUE(pps_gpio_is(self->id, "none"));
	EXPECT_FALSE(irq_requested(self->id));

	ASSERT_EQ(0, gpsphc_stats(self->id, st0));
	nlt_events_clear(self->q);
	raw0 = clock_ns(CLOCK_MONOTONIC_RAW);
	ASSERT_EQ(0, sim_set(PORT, "dcd", "1"));
	ASSERT_EQ(0, sim_set(PORT, "dcd", "0"));
	raw1 = clock_ns(CLOCK_MONOTONIC_RAW);
	nlt_events_wait(&self->nl, self->q, self->id, more_pps, &(int){ 1 }, 3000);
	ASSERT_EQ(2, pps_events(self->q));
	for (i = 0; i < self->q->n; i++) {
		const struct nlt_event *e = &self->q->ev[i];

		if (e->cmd != GPSPHC_CMD_PPS_NTF)
			continue;
		EXPECT_LE(raw0, (long long)e->raw_ns);
		EXPECT_GE(raw1, (long long)e->raw_ns);
	}
	ASSERT_EQ(0, gpsphc_stats(self->id, st1));
	EXPECT_EQ(2, st1[ST_PPS_EDGES] - st0[ST_PPS_EDGES]);

	/* A pulse of the line: raised, not delivered, not counted. */
	emu_start(_metadata, &r);
	sleep_until_raw(emu_plan(&r, 1, WIDTH_MS) + 100 * NSEC_PER_MSEC);
	ASSERT_EQ(0, emu_set("enable", "0"));
	EXPECT_LE(2, emu_get("edges") - r.edges);
	EXPECT_EQ(0, emu_get("delivered") - r.delivered);
	ASSERT_EQ(0, gpsphc_stats(self->id, st0));
	EXPECT_EQ(0, st0[ST_PPS_EDGES] - st1[ST_PPS_EDGES]);
}

/* A spec the kernel refuses, with the errno it must refuse it with. */
struct bad_spec {
	const char *spec;
	int err;
};

static const struct bad_spec bad_specs[] = {
	{ "nosuchchip:0", ENODEV },
	{ EMU_CHIP ":4", ENOENT },	/* lines 0..3 */
	{ "NOSUCHLINE", ENOENT },
	{ EMU_CHIP ":x", EINVAL },
	{ EMU_CHIP ":", EINVAL },
	{ EMU_CHIP ":-1", EINVAL },
	{ EMU_CHIP ":65535", EINVAL },
	{ ":0", EINVAL },
	{ "GPIO 18", EINVAL },
	{ " GPIO18", EINVAL },		/* trailing blanks are trimmed, not leading */
	/* 64 characters, one more than pps_gpio holds */
	{ "0123456789012345678901234567890123456789012345678901234567890123", EINVAL },
};

/*
 * On DCD, a bad spec changes nothing: the device stays on DCD, with no
 * interrupt, and its DCD edges still count.
 */
TEST_F(gpio, bad_spec_refused_on_dcd)
{
	unsigned long long st0[GPSPHC_NSTATS], st1[GPSPHC_NSTATS];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_specs); i++) {
		EXPECT_EQ(-bad_specs[i].err,
			  gpsphc_attr_set(self->id, "pps_gpio", bad_specs[i].spec))
			TH_LOG("'%s'", bad_specs[i].spec);
		EXPECT_TRUE(pps_gpio_is(self->id, "none")) TH_LOG("after '%s'", bad_specs[i].spec);
	}
	EXPECT_FALSE(irq_requested(self->id));
	ASSERT_EQ(0, gpsphc_stats(self->id, st0));
	ASSERT_EQ(0, sim_set(PORT, "dcd", "1"));
	ASSERT_EQ(0, sim_set(PORT, "dcd", "0"));
	ASSERT_EQ(0, gpsphc_stats(self->id, st1));
	EXPECT_EQ(2, st1[ST_PPS_EDGES] - st0[ST_PPS_EDGES]);
	expect_kmsg_clean(_metadata, self);
}

/*
 * With a line held, a write that fails changes nothing (the ABI): bad
 * syntax never reaches the lookup, and a line the lookup refuses, or
 * another device holds, leaves the line in use taken back, its
 * interrupt requested and its edges still the device's PPS. The same
 * line by another name takes over from it (released first).
 */
TEST_F_TIMEOUT(gpio, bad_spec_with_line_held_keeps_it, 30)
{
	static const struct bad_spec held[] = {
		{ "nosuchchip:0", ENODEV },
		{ "NOSUCHLINE", ENOENT },
		{ EMU_CHIP ":7", ENOENT },
		{ EMU_CHIP ":x", EINVAL },
		{ "GPIO 23", EINVAL },
		{ EMU_CHIP ":1", EBUSY },
	};
	struct emu_run r;
	long long e0;
	unsigned int i;
	int id_b;

	/* Another device holds line 1. */
	id_b = sim_attach(PORT_B, &self->fd_b);
	ASSERT_LE(0, id_b) TH_LOG("attach ttyGPSSIM%d: %s", PORT_B, strerror(-id_b));
	ASSERT_EQ(0, gpsphc_attr_set(id_b, "pps_gpio", "GPIO23"));

	ASSERT_EQ(0, gpsphc_attr_set(self->id, "pps_gpio", EMU_LINE));
	ASSERT_TRUE(irq_requested(self->id));
	for (i = 0; i < ARRAY_SIZE(held); i++) {
		EXPECT_EQ(-held[i].err, gpsphc_attr_set(self->id, "pps_gpio", held[i].spec))
			TH_LOG("'%s'", held[i].spec);
		EXPECT_TRUE(pps_gpio_is(self->id, EMU_LINE)) TH_LOG("after '%s'", held[i].spec);
		EXPECT_TRUE(irq_requested(self->id)) TH_LOG("after '%s'", held[i].spec);
	}
	EXPECT_TRUE(pps_gpio_is(id_b, "GPIO23"));

	/* Still the device's PPS: each edge of a pulse of the line. */
	e0 = gpsphc_ll(self->id, "statistics/pps_edges");
	emu_start(_metadata, &r);
	sleep_until_raw(emu_plan(&r, 1, WIDTH_MS) + 100 * NSEC_PER_MSEC);
	ASSERT_EQ(0, emu_set("enable", "0"));
	usleep(300000);
	EXPECT_LE(2, emu_get("edges") - r.edges);
	EXPECT_EQ(emu_get("edges") - r.edges,
		  gpsphc_ll(self->id, "statistics/pps_edges") - e0);
	EXPECT_EQ(0, gpsphc_ll(id_b, "statistics/pps_edges"));

	/* The line in use again: nothing changes; by its other name: taken. */
	EXPECT_EQ(0, gpsphc_attr_set(self->id, "pps_gpio", EMU_LINE "\n"));
	EXPECT_TRUE(pps_gpio_is(self->id, EMU_LINE));
	EXPECT_EQ(0, gpsphc_attr_set(self->id, "pps_gpio", EMU_CHIP ":0"));
	EXPECT_TRUE(pps_gpio_is(self->id, EMU_CHIP ":0"));
	EXPECT_TRUE(irq_requested(self->id));
	expect_kmsg_clean(_metadata, self);
}

/*
 * One line, one holder: a second device gets EBUSY (by label: the same
 * line as by name), and the controller's module stays while the line is
 * held; once the first device detaches, the second takes the line.
 */
TEST_F(gpio, line_held_busy_until_detach)
{
	int id_b;

	ASSERT_EQ(0, gpsphc_attr_set(self->id, "pps_gpio", EMU_LINE));
	id_b = sim_attach(PORT_B, &self->fd_b);
	ASSERT_LE(0, id_b) TH_LOG("attach ttyGPSSIM%d: %s", PORT_B, strerror(-id_b));
	EXPECT_EQ(-EBUSY, gpsphc_attr_set(id_b, "pps_gpio", EMU_CHIP ":0"));
	EXPECT_TRUE(pps_gpio_is(id_b, "none"));
	EXPECT_FALSE(irq_requested(id_b));
	EXPECT_EQ(-EWOULDBLOCK, module_unload(EMU_MODULE));
	EXPECT_EQ(0, access(EMU_DIR, F_OK));

	ASSERT_EQ(0, ldisc_set(self->fd, N_TTY));
	EXPECT_TRUE(gone_within(self->id, 2000));
	EXPECT_FALSE(irq_requested(self->id));
	EXPECT_EQ(0, gpsphc_attr_set(id_b, "pps_gpio", EMU_CHIP ":0"));
	EXPECT_TRUE(pps_gpio_is(id_b, EMU_CHIP ":0"));
	EXPECT_TRUE(irq_requested(id_b));
}

/*
 * Detach while the line's interrupt fires: pulses 1 ms wide (two
 * interrupts 1 ms apart), the device detached at instants around the
 * rising edge, by TIOCSETD and by close() in turn, then attached again
 * and set to the line again (the line was released). Every detach frees
 * the interrupt (the emulator delivers no more), and the kernel log
 * stays clean.
 */
TEST_F_TIMEOUT(gpio, detach_while_irq_fires, 60)
{
	static const long long at_us[] = { -300, 0, 20, 100, 500, 1000, 1500, 3000 };
	long long d0, held_delivered = 0, plan, now;
	unsigned int i;
	struct emu_run r;
	int id = self->id;

	/* The fixture's /dev/ppsN and /dev/ptpN would outlive the first detach. */
	close(self->pps_fd);
	close(self->ptp_fd);
	self->pps_fd = self->ptp_fd = -1;
	ASSERT_EQ(0, emu_set("width_ms", "1"));
	emu_start(_metadata, &r);
	for (i = 0; i < ARRAY_SIZE(at_us); i++) {
		if (i) {
			id = sim_attach(PORT, &self->fd);
			ASSERT_LE(0, id) TH_LOG("attach %u: %s", i, strerror(-id));
		}
		ASSERT_EQ(0, gpsphc_attr_set(id, "pps_gpio", i % 2 ? EMU_LINE : EMU_CHIP ":0"))
			TH_LOG("detach %u: the line was not released", i);
		d0 = emu_get("delivered");
		/* The next rising edge at least 100 ms away. */
		now = clock_ns(CLOCK_MONOTONIC_RAW);
		plan = r.t0;
		while (plan + at_us[i] * 1000 < now + 100 * NSEC_PER_MSEC)
			plan += NSEC_PER_SEC;
		sleep_until_raw(plan + at_us[i] * 1000);
		if (i % 2) {
			close(self->fd);
		} else {
			EXPECT_EQ(0, ldisc_set(self->fd, N_TTY));
			close(self->fd);
		}
		self->fd = -1;
		held_delivered += emu_get("delivered") - d0;
		EXPECT_TRUE(gone_within(id, 2000)) TH_LOG("detach %u", i);
		EXPECT_FALSE(irq_requested(id)) TH_LOG("detach %u", i);
	}
	/* No holder: the next pulse raises no interrupt. */
	d0 = emu_get("delivered");
	r.edges = emu_get("edges");
	usleep(1200000);
	EXPECT_LE(2, emu_get("edges") - r.edges);
	EXPECT_EQ(d0, emu_get("delivered"));
	ASSERT_EQ(0, emu_set("enable", "0"));
	TH_LOG("%zu detaches; %lld interrupts delivered while attached",
	       ARRAY_SIZE(at_us), held_delivered);
	EXPECT_LT(0, held_delivered);
	expect_kmsg_clean(_metadata, self);
}

TEST_HARNESS_MAIN
