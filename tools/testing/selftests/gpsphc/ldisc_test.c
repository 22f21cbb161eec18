// SPDX-License-Identifier: GPL-2.0
/*
 * The gpsphc line discipline on a fake UART: attach and detach, data still
 * readable through the tty, no leaks, privilege, and module pinning.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "gpsphc_test.h"

FIXTURE(tty) {
	int fd;
};

FIXTURE_SETUP(tty)
{
	self->fd = sim_tty_open(0, O_NONBLOCK);
	ASSERT_LE(0, self->fd) TH_LOG("open /dev/ttyGPSSIM0: %s (is gpsphc_sim loaded?)",
				      strerror(-self->fd));
}

FIXTURE_TEARDOWN(tty)
{
	ldisc_set(self->fd, N_TTY);
	close(self->fd);
}

TEST_F(tty, attach_and_detach)
{
	char buf[64];

	ASSERT_EQ(N_TTY, ldisc_get(self->fd));
	ASSERT_EQ(0, dir_entries(GPSPHC_CLASS));

	ASSERT_EQ(0, ldisc_set(self->fd, GPSPHC_LDISC));
	EXPECT_EQ(GPSPHC_LDISC, ldisc_get(self->fd));
	EXPECT_EQ(1, dir_entries(GPSPHC_CLASS));
	EXPECT_LT(0, read_file(GPSPHC_CLASS "/gpsphc0/tty", buf, sizeof(buf)));
	EXPECT_STREQ("ttyGPSSIM0\n", buf);

	ASSERT_EQ(0, ldisc_set(self->fd, N_TTY));
	EXPECT_EQ(N_TTY, ldisc_get(self->fd));
	EXPECT_EQ(0, dir_entries(GPSPHC_CLASS));
}

/* Every byte value, in chunks of every size from 1 to 17, reads back. */
TEST_F(tty, bytes_read_back_exactly)
{
	unsigned char sent[256 * 4], got[sizeof(sent)];
	size_t off = 0, chunk = 1;
	unsigned int i;

	for (i = 0; i < sizeof(sent); i++)
		sent[i] = (unsigned char)(i * 7 + i / 256);
	ASSERT_EQ(0, ldisc_set(self->fd, GPSPHC_LDISC));
	while (off < sizeof(sent)) {
		size_t n = chunk < sizeof(sent) - off ? chunk : sizeof(sent) - off;

		ASSERT_EQ((ssize_t)n, sim_write(0, "rx", sent + off, n));
		off += n;
		chunk = chunk % 17 + 1;
	}
	ASSERT_EQ((ssize_t)sizeof(sent), read_exact(self->fd, got, sizeof(got), 5000));
	EXPECT_EQ(0, memcmp(sent, got, sizeof(sent)));
	/* Nothing more than what was sent. */
	EXPECT_EQ(-1, read(self->fd, got, 1));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(tty, nmea_read_back_exactly)
{
	static const char nmea[] =
		"$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n"
		"$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n";
	char got[sizeof(nmea)];

	ASSERT_EQ(0, ldisc_set(self->fd, GPSPHC_LDISC));
	ASSERT_EQ(10, sim_write(0, "rx", nmea, 10));
	ASSERT_EQ((ssize_t)sizeof(nmea) - 11, sim_write(0, "rx", nmea + 10, sizeof(nmea) - 11));
	ASSERT_EQ((ssize_t)sizeof(nmea) - 1, read_exact(self->fd, got, sizeof(nmea) - 1, 5000));
	EXPECT_EQ(0, memcmp(nmea, got, sizeof(nmea) - 1));
}

TEST_F(tty, writes_reach_the_port)
{
	static const char cmd[] = "$PUBX,40,GLL,0,0,0,0*5C\r\n";
	char got[64];
	int n;

	ASSERT_EQ(0, ldisc_set(self->fd, GPSPHC_LDISC));
	ASSERT_EQ((ssize_t)strlen(cmd), write(self->fd, cmd, strlen(cmd)));
	ASSERT_EQ(0, tcdrain(self->fd));
	n = read_file(SIM_DEBUGFS "/ttyGPSSIM0/tx", got, sizeof(got));
	ASSERT_EQ((int)strlen(cmd), n);
	EXPECT_STREQ(cmd, got);
}

/*
 * Attach/detach cycles leave no device behind and no slab growth. Slab
 * usage moves by a few hundred kB on its own while per-CPU partial slabs
 * and the vmalloc/xarray caches fill (measured on 6.12: +204 kB over the
 * first 300 cycles, then +28 kB over 2000 in one run and +400 kB over
 * 1000 in another), so the check runs 1000 cycles after a warm-up of
 * 300 and allows 1 MB: one leaked device structure per cycle (it sits
 * in kmalloc-4k: over 2 KiB with its framer and event queue) is 4 MB.
 * The 1300 cycles take 8 s on an amd64 guest, 12 s on the arm64 one
 * (TCG on another architecture) and 25 to 30 s there if another guest
 * shares its core: 120 s, not the harness's 30, before a hang is called
 * one.
 */
TEST_F_TIMEOUT(tty, attach_detach_cycles_no_leak, 120)
{
	int pps_sources = dir_entries("/sys/class/pps");
	long before, after;
	int i;

	for (i = 0; i < 300; i++) {
		ASSERT_EQ(0, ldisc_set(self->fd, GPSPHC_LDISC));
		ASSERT_EQ(1, dir_entries(GPSPHC_CLASS));
		ASSERT_EQ(0, ldisc_set(self->fd, N_TTY));
		ASSERT_EQ(0, dir_entries(GPSPHC_CLASS));
	}
	before = slab_kb();
	ASSERT_LT(0, before);
	for (i = 0; i < 1000; i++) {
		ASSERT_EQ(0, ldisc_set(self->fd, GPSPHC_LDISC));
		ASSERT_EQ(0, ldisc_set(self->fd, N_TTY));
	}
	after = slab_kb();
	TH_LOG("Slab before %ld kB, after 1000 more cycles %ld kB", before, after);
	EXPECT_EQ(0, dir_entries(GPSPHC_CLASS));
	EXPECT_EQ(pps_sources, dir_entries("/sys/class/pps"));
	EXPECT_GT(1024, after - before);
}

/* Attaching steers a clock: without CAP_SYS_TIME it is refused. */
TEST_F(tty, unprivileged_attach_is_eperm)
{
	pid_t pid;
	int status;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Dropping root drops every effective capability. */
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(2);
		_exit(ldisc_set(self->fd, GPSPHC_LDISC) == -EPERM ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(N_TTY, ldisc_get(self->fd));
	EXPECT_EQ(0, dir_entries(GPSPHC_CLASS));
}

TEST_F(tty, rmmod_refused_while_attached)
{
	ASSERT_EQ(0, ldisc_set(self->fd, GPSPHC_LDISC));
	EXPECT_EQ(-1, syscall(SYS_delete_module, "gpsphc", O_NONBLOCK));
	EXPECT_EQ(EWOULDBLOCK, errno);
	EXPECT_EQ(0, access("/sys/module/gpsphc", F_OK));
	EXPECT_EQ(GPSPHC_LDISC, ldisc_get(self->fd));
}

TEST_HARNESS_MAIN
