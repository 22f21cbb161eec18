// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_nmea_pty.c - the sentences on a pseudo-terminal (nmea_pty.c), on
 * real ptys: the exact bytes a reader gets, whole sentences dropped and
 * counted while it does not read, never a part of one, the symlink across
 * a takeover, and a reader that writes (gpsd's probes) never blocking it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "../nmea_pty.h"

#define RMC "$GPRMC,120000.00,A,4807.038,N,01131.000,E,0.0,0.0,031226,,,A*6E"
#define GGA "$GPGGA,120000.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*4C"

FIXTURE(pty) {
	char dir[64], link[96];
	struct nmea_pty p;
	int reader;
};

FIXTURE_SETUP(pty)
{
	struct stat st;

	snprintf(self->dir, sizeof(self->dir), "/tmp/test_nmea_pty.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->link, sizeof(self->link), "%s/nmea", self->dir);
	ASSERT_EQ(0, stat("/dev/ptmx", &st));
	ASSERT_EQ(0, nmea_pty_open(&self->p, self->link, getgid(), 0660));
	ASSERT_EQ(0, nmea_pty_publish(&self->p));
	self->reader = open(self->link, O_RDWR | O_NOCTTY | O_NONBLOCK);
	ASSERT_LE(0, self->reader);
}

FIXTURE_TEARDOWN(pty)
{
	if (self->reader >= 0)
		close(self->reader);
	nmea_pty_close(&self->p);
	unlink(self->link);
	rmdir(self->dir);
}

/* Unread bytes on the slave, once the kernel has moved them there. */
static int unread_settles_at(int fd, int want)
{
	struct timespec ms = { 0, 1000000 };
	int n = -1, i;

	for (i = 0; i < 1000; i++) {
		if (ioctl(fd, TIOCINQ, &n))
			return -1;
		if (n == want)
			break;
		nanosleep(&ms, NULL);
	}
	return n;
}

/* Everything readable on @fd now, into @buf (NUL-terminated). */
static size_t read_all(int fd, char *buf, size_t size)
{
	struct timespec settle = { 0, 20000000 };
	size_t got = 0;
	ssize_t n;

	nanosleep(&settle, NULL);	/* the kernel moves the bytes over */
	while (got < size - 1 && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	return got;
}

TEST_F(pty, link_names_the_slave_raw_with_the_ttys_group)
{
	char target[64];
	struct termios tio;
	struct stat st;
	ssize_t n = readlink(self->link, target, sizeof(target) - 1);

	ASSERT_LT(0, n);
	target[n] = '\0';
	EXPECT_STREQ(self->p.slave_name, target);
	ASSERT_EQ(0, stat(self->link, &st));
	EXPECT_EQ(0660u, st.st_mode & 07777);
	EXPECT_EQ(getgid(), st.st_gid);
	ASSERT_EQ(0, tcgetattr(self->reader, &tio));
	EXPECT_EQ(0u, tio.c_lflag & (ICANON | ECHO | ISIG));
	EXPECT_EQ(0u, tio.c_iflag & (ICRNL | IXON));
	EXPECT_EQ(0u, tio.c_oflag & OPOST);
}

TEST_F(pty, sentences_byte_exact_with_crlf)
{
	char buf[512];

	EXPECT_EQ(1, nmea_pty_write(&self->p, RMC, strlen(RMC)));
	EXPECT_EQ(1, nmea_pty_write(&self->p, GGA, strlen(GGA)));
	read_all(self->reader, buf, sizeof(buf));
	EXPECT_STREQ(RMC "\r\n" GGA "\r\n", buf);
	EXPECT_EQ(2u, self->p.written);
	EXPECT_EQ(0u, self->p.dropped);
}

/*
 * A reader that does not read: past the backlog, new sentences are
 * dropped whole; once it reads, they flow again, and what it read is
 * whole sentences in order.
 */
TEST_F(pty, behind_reader_drops_whole_sentences)
{
	size_t one = strlen(RMC) + 2;
	char buf[1024];

	self->p.backlog = 2 * one + 10;
	ASSERT_EQ(1, nmea_pty_write(&self->p, RMC, strlen(RMC)));
	ASSERT_EQ((int)one, unread_settles_at(self->reader, (int)one));
	ASSERT_EQ(1, nmea_pty_write(&self->p, RMC, strlen(RMC)));
	ASSERT_EQ(2 * (int)one, unread_settles_at(self->reader, 2 * (int)one));
	EXPECT_EQ(0, nmea_pty_write(&self->p, GGA, strlen(GGA)));
	EXPECT_EQ(0, nmea_pty_write(&self->p, GGA, strlen(GGA)));
	EXPECT_EQ(2u, self->p.written);
	EXPECT_EQ(2u, self->p.dropped);
	EXPECT_TRUE(self->p.dropping);
	read_all(self->reader, buf, sizeof(buf));
	EXPECT_STREQ(RMC "\r\n" RMC "\r\n", buf);
	EXPECT_EQ(1, nmea_pty_write(&self->p, GGA, strlen(GGA)));
	EXPECT_FALSE(self->p.dropping);
	EXPECT_EQ(2u, self->p.dropped_said);
	read_all(self->reader, buf, sizeof(buf));
	EXPECT_STREQ(GGA "\r\n", buf);
}

/*
 * Nobody has the slave open but gpsphcd (it holds it): the default
 * backlog fills, then every sentence is dropped. One write at a time,
 * each waited for, so that the count is exact.
 */
TEST_F(pty, no_reader_at_all_never_blocks)
{
	int one = (int)strlen(RMC) + 2, i, written = 0;

	close(self->reader);
	self->reader = -1;
	for (i = 0; i < 100; i++) {
		written += nmea_pty_write(&self->p, RMC, strlen(RMC));
		ASSERT_EQ(written * one, unread_settles_at(self->p.slave, written * one));
	}
	EXPECT_EQ(NMEA_PTY_BACKLOG / one, written);
	EXPECT_EQ(100u - (unsigned int)written, self->p.dropped);
}

/*
 * Past the kernel's own room (a backlog set larger than the pty holds):
 * a sentence the kernel takes in part is finished before any other, so
 * the reader still gets only whole sentences, in order.
 */
TEST_F(pty, kernel_full_still_whole_sentences)
{
	static char buf[1 << 18];
	char want[96];
	int i, handed = 0, partial = 0;
	size_t at = 0, len;

	self->p.backlog = 1 << 20;
	for (i = 0; i < 4000; i++) {
		snprintf(want, sizeof(want), "$GPTXT,01,01,02,sentence %04d*00", i);
		handed += nmea_pty_write(&self->p, want, strlen(want));
		partial += self->p.rest_len > 0;
	}
	EXPECT_LT(0, partial) TH_LOG("the kernel took every write whole (%d handed): nothing tested", handed);
	read_all(self->reader, buf, sizeof(buf));
	/* one more write finishes what waits, then goes out whole */
	handed += nmea_pty_write(&self->p, "$GPTXT,last*00", 14);
	EXPECT_EQ(0u, self->p.rest_len);
	len = strlen(buf);
	read_all(self->reader, buf + len, sizeof(buf) - len);
	/* whole sentences, in increasing order, then the last */
	for (i = -1; at < strlen(buf);) {
		char *end = strstr(buf + at, "\r\n");
		int k;

		ASSERT_NE(NULL, end);
		if (!strncmp(buf + at, "$GPTXT,last*00\r\n", 16)) {
			EXPECT_EQ(buf + at + 14, end);
			at += 16;
			EXPECT_EQ(strlen(buf), at);
			break;
		}
		ASSERT_EQ(1, sscanf(buf + at, "$GPTXT,01,01,02,sentence %04d*00", &k))
			TH_LOG("not a whole sentence at byte %zu: %.40s", at, buf + at);
		EXPECT_EQ(buf + at + 32, end);
		EXPECT_LT(i, k);
		i = k;
		at = (size_t)(end - buf) + 2;
	}
	EXPECT_EQ((unsigned long long)handed, self->p.written);
	EXPECT_EQ(4001u - (unsigned int)handed, self->p.dropped);
}

/* gpsd writes probes to its device: they are read and dropped. */
TEST_F(pty, reader_writes_are_drained)
{
	char probe[256], buf[256];
	int i;

	memset(probe, 'x', sizeof(probe));
	for (i = 0; i < 200; i++)
		if (write(self->reader, probe, sizeof(probe)) < 0)
			break;
	EXPECT_EQ(1, nmea_pty_write(&self->p, RMC, strlen(RMC)));
	read_all(self->reader, buf, sizeof(buf));
	EXPECT_STREQ(RMC "\r\n", buf);
}

/*
 * A gpsphcd that takes over makes a new pty and points the link at it;
 * the old one closing leaves that link alone.
 */
TEST_F(pty, takeover_link_follows_the_live_pty)
{
	struct nmea_pty next;
	char target[64];
	ssize_t n;

	ASSERT_EQ(0, nmea_pty_open(&next, self->link, getgid(), 0640));
	ASSERT_EQ(0, nmea_pty_publish(&next));
	nmea_pty_close(&self->p);
	n = readlink(self->link, target, sizeof(target) - 1);
	ASSERT_LT(0, n);
	target[n] = '\0';
	EXPECT_STREQ(next.slave_name, target);
	nmea_pty_close(&next);
	EXPECT_EQ(-1, access(self->link, F_OK));
	EXPECT_EQ(ENOENT, errno);
}

/* Unpublished (a gpsphcd refused on a busy tty): no link touched. */
TEST_F(pty, unpublished_close_leaves_the_link)
{
	struct nmea_pty refused;

	ASSERT_EQ(0, nmea_pty_open(&refused, self->link, getgid(), 0660));
	nmea_pty_close(&refused);
	EXPECT_EQ(0, access(self->link, F_OK));
}

TEST_HARNESS_MAIN
