// SPDX-License-Identifier: GPL-2.0
/*
 * Hangup and unplug while data flows: with sentences, DCD edges and the
 * pulse generator all running and a reader blocked on the tty, the tty is
 * hung up (vhangup() from the session that has it as controlling tty) or
 * its fake port is removed. The gpsphc device and its /dev/ppsN go away,
 * the reader is woken, nothing leaks over 20 cycles, and the discipline
 * works again afterwards. And a hangup a DCD drop queued is let finish
 * before the fake port goes (unplug_waits_for_dcd_hangup).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "gpsphc_test.h"
#include "kmsg_watch.h"
#include "nl_helpers.h"

#define PORT		3
#define TTY_NAME	"ttyGPSSIM3"
#define CYCLES		20
#define WARMUP		3

/*
 * Leak checks over CYCLES cycles, after WARMUP. Each cycle creates and
 * removes a gpsphc device (struct gpsphc_dev, in kmalloc-4k with its
 * framer and event queue), a PPS source with its cdev and sysfs nodes,
 * and in the unplug variant a whole tty device.
 *
 * Total Slab is noisy here: this loop moved it by +140..+168 kB over 20
 * cycles on 6.1 and 6.12, by up to +348 kB over 50, and by the same
 * amounts with N_TTY instead of gpsphc (kmalloc-1k and vmap_area grow in
 * steps as per-CPU partial slabs and lazily freed thread stacks pile up).
 * On a busy host 6.1 reached +724 kB over 20 (the caches named by the log
 * were kmalloc-1k, filp, task_struct) while 80 cycles gave only +336 and
 * +448 kB: it levels off, as a cache filling up does and a leak does not.
 * So Slab only catches gross leaks (> 50 kB a cycle: a tty buffer, a lost
 * skb queue): SLAB_BOUND_KB. Once, with two test suites running on the
 * host, 6.12 grew by +1684 kB over 20 vhangup cycles (kmalloc-1k +1632
 * kB), then by +432, +144, +100 and -112 kB in the runs that followed on
 * an idle host: a batch above the bound is followed by a second one,
 * and only a second batch above it too (growth that does not level off)
 * is a leak. The caches that grew are logged, so a failure says what kind
 * of object piled up.
 *
 * kmalloc-4k, where a leaked gpsphc_dev would go, held still to the byte
 * over 200 cycles of each variant on 6.12: one leaked device per cycle is
 * 80 kB over 20 cycles, so it may grow by at most KMALLOC4K_BOUND_KB.
 */
#define SLAB_BOUND_KB		1024
#define KMALLOC4K_BOUND_KB	40

struct streams {
	atomic_bool stop;
	pthread_t writer, toggler, reader;
	int fd;
	atomic_bool reader_done;
	atomic_long bytes_read;
	long writes_ok, toggles_ok;
	int reader_how;		/* 0 read() == 0, 1 POLLHUP/POLLERR, 2 EIO, -1 stopped */
};

static void *writer_fn(void *arg)
{
	static const char s[] =
		"$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n"
		"$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n";
	struct streams *st = arg;

	while (!atomic_load(&st->stop))
		if (sim_write(PORT, "rx", s, sizeof(s) - 1) == sizeof(s) - 1)
			st->writes_ok++;
		else
			usleep(1000);
	return NULL;
}

/* DCD edges as fast as the control file takes them. */
static void *toggler_fn(void *arg)
{
	struct streams *st = arg;
	int level = 0;

	while (!atomic_load(&st->stop)) {
		level = !level;
		if (!sim_set(PORT, "dcd", level ? "1" : "0"))
			st->toggles_ok++;
		else
			usleep(1000);
	}
	return NULL;
}

/* Reads until the hangup ends it: it must not need the stop flag. */
static void *reader_fn(void *arg)
{
	struct streams *st = arg;
	char buf[4096];

	st->reader_how = -1;
	while (!atomic_load(&st->stop)) {
		struct pollfd pfd = { .fd = st->fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 100) < 0)
			continue;
		if (pfd.revents & (POLLHUP | POLLERR)) {
			st->reader_how = 1;
			break;
		}
		n = read(st->fd, buf, sizeof(buf));
		if (n > 0) {
			atomic_fetch_add(&st->bytes_read, n);
		} else if (n == 0) {
			st->reader_how = 0;
			break;
		} else if (errno == EIO) {
			st->reader_how = 2;
			break;
		}
	}
	atomic_store(&st->reader_done, true);
	return NULL;
}

FIXTURE(hangup) {
	struct nlt_sock nl;
	struct nlt_events *q;
};

FIXTURE_VARIANT(hangup) {
	bool unplug;	/* remove the port, else vhangup() */
};

FIXTURE_VARIANT_ADD(hangup, unplug_port) { .unplug = true };
FIXTURE_VARIANT_ADD(hangup, vhangup) { .unplug = false };

FIXTURE_SETUP(hangup)
{
	self->nl.fd = -1;
	sim_pulse_reset(PORT);
	ASSERT_EQ(0, sim_port_present(PORT, 1));
	ASSERT_EQ(0, sim_set(PORT, "dcd", "0"));
	ASSERT_EQ(0, nlt_open(&self->nl));
	ASSERT_EQ(0, nlt_subscribe(&self->nl));
	self->q = calloc(1, sizeof(*self->q));
	ASSERT_NE(NULL, self->q);
}

FIXTURE_TEARDOWN(hangup)
{
	/* Leave the port as the other tests expect it: present, quiet. */
	sim_port_present(PORT, 1);
	sim_pulse_reset(PORT);
	sim_set(PORT, "dcd", "0");
	if (self->q)
		nlt_events_free(self->q);
	free(self->q);
	nlt_close(&self->nl);
}

/* Wait up to @ms for @path to disappear; how long it took, or -1. */
static long gone_within(const char *path, int ms)
{
	long long t0 = clock_ns(CLOCK_MONOTONIC);

	for (;;) {
		long long dt = clock_ns(CLOCK_MONOTONIC) - t0;

		if (access(path, F_OK))
			return dt / 1000;
		if (dt > ms * 1000000LL)
			return -1;
		usleep(1000);
	}
}

/*
 * The child that hangs the tty up: a session of its own with the tty as
 * controlling terminal; vhangup() when a byte comes down @cmd.
 */
static pid_t start_hanger(int tty_fd, int *cmd)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid)
		goto parent;
	close(p[1]);
	/* vhangup() sends SIGHUP to the session it hangs up: ours. */
	signal(SIGHUP, SIG_IGN);
	if (setsid() < 0 || ioctl(tty_fd, TIOCSCTTY, 0))
		_exit(2);
	if (read(p[0], &c, 1) != 1)
		_exit(3);
	_exit(vhangup() ? 4 : 0);
parent:
	close(p[0]);
	*cmd = p[1];
	return pid;
}

static bool got_both(struct nlt_events *q, void *arg)
{
	(void)arg;
	return nlt_events_count(q, GPSPHC_CMD_PPS_NTF) > 0 &&
	       nlt_events_count(q, GPSPHC_CMD_SENTENCE_NTF) > 0;
}

struct cycle_stats {
	long max_gone_us;
	long writes, toggles, bytes, pps_events, sentences;
};

static void one_cycle(struct __test_metadata *_metadata, FIXTURE_DATA(hangup) *self,
		      bool unplug, struct cycle_stats *cs)
{
	struct streams st = { 0 };
	char dev_path[128], pps_path[128], devnode[64];
	int id, pps, i, cmd = -1, status;
	struct nlt_result res;
	struct nlt_msg m;
	pid_t hanger = -1;
	long us;

	st.fd = sim_tty_open(PORT, O_NONBLOCK);
	ASSERT_LE(0, st.fd) TH_LOG("open: %s", strerror(-st.fd));
	/* Bytes received by the port's previous tty are not ours. */
	ASSERT_EQ(0, tcflush(st.fd, TCIFLUSH));
	if (!unplug) {
		hanger = start_hanger(st.fd, &cmd);
		ASSERT_LT(0, hanger);
	}
	ASSERT_EQ(0, ldisc_set(st.fd, GPSPHC_LDISC));
	id = gpsphc_find(TTY_NAME);
	ASSERT_LE(0, id);
	pps = gpsphc_pps_index(id);
	ASSERT_LE(0, pps);
	snprintf(dev_path, sizeof(dev_path), GPSPHC_CLASS "/gpsphc%d", id);
	snprintf(pps_path, sizeof(pps_path), "/sys/class/pps/pps%d", pps);
	snprintf(devnode, sizeof(devnode), "/dev/pps%d", pps);
	ASSERT_EQ(0, access(pps_path, F_OK));
	ASSERT_EQ(0, sim_set(PORT, "pulse_enable", "1"));

	nlt_events_clear(self->q);
	ASSERT_EQ(0, pthread_create(&st.writer, NULL, writer_fn, &st));
	ASSERT_EQ(0, pthread_create(&st.toggler, NULL, toggler_fn, &st));
	ASSERT_EQ(0, pthread_create(&st.reader, NULL, reader_fn, &st));

	/* Everything is flowing when the hangup comes. */
	nlt_events_wait(&self->nl, self->q, id, got_both, NULL, 5000);
	EXPECT_TRUE(got_both(self->q, NULL)) TH_LOG("no events before the hangup");
	usleep(50000);

	if (unplug) {
		ASSERT_EQ(0, sim_port_present(PORT, 0));
	} else {
		ASSERT_EQ(1, write(cmd, "h", 1));
		ASSERT_EQ(hanger, waitpid(hanger, &status, 0));
		close(cmd);
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("hanger: status 0x%x", status);
	}

	us = gone_within(dev_path, 1000);
	EXPECT_LE(0, us) TH_LOG("%s still there 1 s after the hangup", dev_path);
	if (us > cs->max_gone_us)
		cs->max_gone_us = us;
	EXPECT_LE(0, gone_within(pps_path, 1000)) TH_LOG("%s still there", pps_path);
	EXPECT_LE(0, gone_within(devnode, 1000)) TH_LOG("%s still there", devnode);

	/* The reader wakes up by itself. */
	for (i = 0; i < 200 && !atomic_load(&st.reader_done); i++)
		usleep(10000);
	EXPECT_TRUE(atomic_load(&st.reader_done)) TH_LOG("reader still blocked 2 s after the hangup");

	atomic_store(&st.stop, true);
	pthread_join(st.writer, NULL);
	pthread_join(st.toggler, NULL);
	pthread_join(st.reader, NULL);
	EXPECT_LE(0, st.reader_how) TH_LOG("reader only stopped by the flag");

	/* Netlink no longer knows the device. */
	nlt_gpsphc_init(&self->nl, &m, GPSPHC_CMD_DEV_GET, 0);
	nlt_put_u32(&m, GPSPHC_A_DEV_ID, id);
	ASSERT_EQ(0, nlt_request(&self->nl, &m, NULL, NULL, &res));
	EXPECT_EQ(ENODEV, res.err);

	cs->writes += st.writes_ok;
	cs->toggles += st.toggles_ok;
	cs->bytes += atomic_load(&st.bytes_read);
	cs->pps_events += nlt_events_count(self->q, GPSPHC_CMD_PPS_NTF);
	cs->sentences += nlt_events_count(self->q, GPSPHC_CMD_SENTENCE_NTF);

	close(st.fd);
	EXPECT_EQ(0, sim_set(PORT, "pulse_enable", "0"));
	if (unplug)
		ASSERT_EQ(0, sim_port_present(PORT, 1));
	sim_set(PORT, "dcd", "0");
	EXPECT_EQ(0, dir_entries(GPSPHC_CLASS));
}

/* After it all, the port takes the discipline again and delivers. */
static void still_works(struct __test_metadata *_metadata, FIXTURE_DATA(hangup) *self)
{
	static const char s[] = "$GPTXT,01,01,02,after*29\r\n";
	bool sentence = false, pps = false;
	int fd, id, i;

	fd = sim_tty_open(PORT, O_NONBLOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tcflush(fd, TCIFLUSH));
	ASSERT_EQ(0, ldisc_set(fd, GPSPHC_LDISC));
	id = gpsphc_find(TTY_NAME);
	ASSERT_LE(0, id);
	nlt_events_clear(self->q);
	ASSERT_EQ((ssize_t)sizeof(s) - 1, sim_write(PORT, "rx", s, sizeof(s) - 1));
	ASSERT_EQ(0, sim_set(PORT, "dcd", "1"));
	nlt_events_wait(&self->nl, self->q, id, got_both, NULL, 5000);
	for (i = 0; i < self->q->n; i++) {
		const struct nlt_event *e = &self->q->ev[i];

		if (e->cmd == GPSPHC_CMD_SENTENCE_NTF) {
			EXPECT_EQ(0, e->seq);
			EXPECT_EQ((int)sizeof(s) - 3, e->len);
			EXPECT_EQ(0, memcmp(s, e->data, sizeof(s) - 3));
			EXPECT_EQ(GPSPHC_CSUM_OK, e->csum);
			sentence = true;
		} else if (e->cmd == GPSPHC_CMD_PPS_NTF) {
			EXPECT_EQ(GPSPHC_EDGE_RISING, e->edge);
			EXPECT_TRUE(e->assert);
			pps = true;
		}
	}
	EXPECT_TRUE(sentence);
	EXPECT_TRUE(pps);
	ASSERT_EQ(0, ldisc_set(fd, N_TTY));
	close(fd);
	sim_set(PORT, "dcd", "0");
}

#define SLAB_CACHES_MAX	512

struct slab_snapshot {
	int n;
	char name[SLAB_CACHES_MAX][64];
	long long bytes[SLAB_CACHES_MAX];
};

static void slab_snapshot(struct slab_snapshot *ss)
{
	char line[512];
	long act, num, sz;
	FILE *f;

	ss->n = 0;
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return;
	while (ss->n < SLAB_CACHES_MAX && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld %ld %ld", ss->name[ss->n], &act, &num,
			   &sz) == 4) {
			ss->bytes[ss->n] = (long long)act * sz;
			ss->n++;
		}
	fclose(f);
}

/* Name the caches that grew by more than 32 kB, to tell a leak's kind. */
static void slab_log_growth(struct __test_metadata *_metadata,
			    const struct slab_snapshot *a,
			    const struct slab_snapshot *b)
{
	int i, j;

	for (j = 0; j < b->n; j++)
		for (i = 0; i < a->n; i++)
			if (!strcmp(a->name[i], b->name[j]) &&
			    b->bytes[j] - a->bytes[i] > 32 * 1024)
				TH_LOG("slab %s %+lld kB", b->name[j],
				       (b->bytes[j] - a->bytes[i]) / 1024);
}

TEST_F_TIMEOUT(hangup, streaming_20_cycles_no_leak, 240)
{
	static struct slab_snapshot slab_a, slab_b;
	struct cycle_stats cs = { 0 };
	int pps_sources = dir_entries("/sys/class/pps");
	long long k4_before, k4_after;
	long before, after;
	char buf[16];
	int i, batch;

	ASSERT_EQ(0, dir_entries(GPSPHC_CLASS));
	for (i = 0; i < WARMUP; i++) {
		one_cycle(_metadata, self, variant->unplug, &cs);
		if (!gpsphc_test_passing(_metadata))
			return;
	}
	before = slab_kb();
	ASSERT_LT(0, before);
	k4_before = slab_cache_bytes("kmalloc-4k");
	slab_snapshot(&slab_a);
	for (batch = 0; batch < 2; batch++) {
		for (i = 0; i < CYCLES; i++) {
			one_cycle(_metadata, self, variant->unplug, &cs);
			if (!gpsphc_test_passing(_metadata))
				return;
		}
		after = slab_kb();
		slab_snapshot(&slab_b);
		slab_log_growth(_metadata, &slab_a, &slab_b);
		TH_LOG("Slab before %ld kB, after %d cycles %ld kB (%+ld kB)",
		       before, CYCLES, after, after - before);
		if (after - before < SLAB_BOUND_KB)
			break;
		/* Does it level off? The next batch from here. */
		before = after;
		slab_a = slab_b;
	}
	k4_after = slab_cache_bytes("kmalloc-4k");
	TH_LOG("kmalloc-4k %+lld bytes", k4_after - k4_before);
	TH_LOG("%d cycles: %ld rx writes, %ld DCD toggles, %ld bytes read, %ld PPS and %ld sentence events; device gone at most %ld us after the hangup",
	       WARMUP + CYCLES, cs.writes, cs.toggles, cs.bytes, cs.pps_events,
	       cs.sentences, cs.max_gone_us);
	EXPECT_GT(SLAB_BOUND_KB, after - before);
	if (k4_before < 0 || k4_after < 0)
		TH_LOG("no kmalloc-4k in /proc/slabinfo: that check is skipped");
	else
		EXPECT_GT(KMALLOC4K_BOUND_KB * 1024, k4_after - k4_before);
	EXPECT_EQ(0, dir_entries(GPSPHC_CLASS));
	EXPECT_EQ(pps_sources, dir_entries("/sys/class/pps"));

	still_works(_metadata, self);
	ASSERT_LT(0, read_file(SIM_DEBUGFS "/port_present", buf, sizeof(buf)));
	EXPECT_STREQ("1111\n", buf);
}

/* ---- a hangup queued by a DCD drop, then an unplug --------------------- */

#define HOLD_CPU	1
#define HOLD_MS		500
#define RT_RUNTIME	"/proc/sys/kernel/sched_rt_runtime_us"
#define STR_(x)		#x
#define STR(x)		STR_(x)
#define FAIR_SERVER	"/sys/kernel/debug/sched/fair_server/cpu" STR(HOLD_CPU) "/runtime"

/* Run on @cpu only, under @policy at @prio: 0 or -errno. */
static int run_on(int cpu, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* Move first: a SCHED_OTHER thread would wait behind the holder. */
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    sched_setscheduler(0, policy, &sp))
		return -errno;
	return 0;
}

/* Keeps HOLD_CPU from its kworkers for HOLD_MS, then says when it let go. */
static void *hold_cpu_fn(void *arg)
{
	long long *released_ns = arg, end;

	if (run_on(HOLD_CPU, SCHED_FIFO, 10))
		return NULL;
	end = clock_ns(CLOCK_MONOTONIC) + HOLD_MS * 1000000LL;
	while (clock_ns(CLOCK_MONOTONIC) < end)
		;
	*released_ns = clock_ns(CLOCK_MONOTONIC);
	return NULL;
}

/* Open the tty with CLOCAL off, so that a DCD drop hangs it up. */
static int open_dcd_hangs_up(void)
{
	struct termios tio;
	int fd = open("/dev/" TTY_NAME, O_RDWR | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (tcgetattr(fd, &tio) == 0) {
		tio.c_cflag &= ~CLOCAL;
		if (tcsetattr(fd, TCSANOW, &tio) == 0)
			return fd;
	}
	close(fd);
	return -errno;
}

/*
 * With CLOCAL off, a DCD drop makes uart_handle_dcd_change() queue
 * tty_hangup(). Here that work is held off on the CPU that queued it
 * while the one file not hung up (with gpsphc attached) is closed, so
 * that the port lets go of the tty a hung-up file still keeps, and the
 * fake port is removed. Had the work run after uart_remove_one_port(),
 * uart_hangup() would warn "hangup of detached port", a serial core race
 * explore_test met once (seed 1053422726, Debian 13): the fake port's
 * unplug must let the hangup finish first. gpsphc's close runs in it.
 */
TEST(unplug_waits_for_dcd_hangup)
{
	char rt_saved[32] = "", fair_saved[32] = "";
	long long released_ns = 0, unplugged_ns;
	struct kmsg_watch k;
	pthread_t holder;
	int f1, f2, i;
	bool held;

	if (sysconf(_SC_NPROCESSORS_ONLN) <= HOLD_CPU)
		SKIP(return, "needs CPU %d", HOLD_CPU);
	ASSERT_LT(0, read_file(RT_RUNTIME, rt_saved, sizeof(rt_saved)));
	ASSERT_EQ(0, sim_port_present(PORT, 1));
	ASSERT_EQ(0, sim_set(PORT, "dcd", "1"));
	f1 = open_dcd_hangs_up();
	ASSERT_LE(0, f1);
	ASSERT_EQ(0, ioctl(f1, TIOCVHANGUP));
	f2 = open_dcd_hangs_up();
	ASSERT_LE(0, f2);
	ASSERT_EQ(0, ldisc_set(f2, GPSPHC_LDISC));
	ASSERT_LE(0, gpsphc_find(TTY_NAME));
	ASSERT_EQ(0, kmsg_watch_open(&k));

	/*
	 * RT throttling and (6.12) the fair server would let the kworker in.
	 * From here on nothing returns before both are restored.
	 */
	ASSERT_LT(0, write_file(RT_RUNTIME, "-1", 2));
	if (read_file(FAIR_SERVER, fair_saved, sizeof(fair_saved)) > 0)
		EXPECT_LT(0, write_file(FAIR_SERVER, "0", 1));
	held = !run_on(HOLD_CPU, SCHED_FIFO, 20) &&
	       !pthread_create(&holder, NULL, hold_cpu_fn, &released_ns);
	if (held) {
		usleep(1000);	/* the holder spins */
		EXPECT_EQ(0, sim_set(PORT, "dcd", "0"));  /* queued on HOLD_CPU */
	}
	EXPECT_EQ(0, run_on(0, SCHED_OTHER, 0));
	close(f2);
	EXPECT_EQ(0, sim_port_present(PORT, 0));
	unplugged_ns = clock_ns(CLOCK_MONOTONIC);
	if (held)
		pthread_join(holder, NULL);
	if (fair_saved[0])
		write_file(FAIR_SERVER, fair_saved, strlen(fair_saved));
	write_file(RT_RUNTIME, rt_saved, strlen(rt_saved));

	close(f1);
	EXPECT_EQ(0, sim_port_present(PORT, 1));
	kmsg_watch_drain(&k);
	kmsg_watch_close(&k);
	for (i = 0; i < k.bad && i < KMSG_KEEP; i++)
		TH_LOG("kernel: %s", k.line[i]);
	for (i = 0; i < k.ntrace; i++)
		TH_LOG("kernel:   %s", k.trace[i]);
	EXPECT_EQ(0, k.bad);
	ASSERT_TRUE(held);
	ASSERT_LT(0, released_ns);
	TH_LOG("the unplug returned %lld us after the CPU was let go",
	       (unplugged_ns - released_ns) / 1000);
	/* The hangup could run only once the holder let go: the unplug waited. */
	EXPECT_LT(released_ns, unplugged_ns);
	EXPECT_EQ(0, dir_entries(GPSPHC_CLASS));
}

TEST_HARNESS_MAIN
