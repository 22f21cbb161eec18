// SPDX-License-Identifier: GPL-2.0
/*
 * Loading and unloading gpsphc.ko, and its `ldisc` module parameter.
 * Leaves the module loaded with its defaults, as it found it.
 */
#define _GNU_SOURCE
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "gpsphc_test.h"

static const char *module_path(void)
{
	const char *p = getenv("GPSPHC_KO");

	return p ? p : "/lib/gpsphc/gpsphc.ko";
}

static int load(const char *params)
{
	int fd = open(module_path(), O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int unload(void)
{
	return syscall(SYS_delete_module, "gpsphc", O_NONBLOCK) ? -errno : 0;
}

FIXTURE(module) {
	int fd;
};

FIXTURE_SETUP(module)
{
	self->fd = -1;
	if (access("/sys/module/gpsphc", F_OK) == 0)
		ASSERT_EQ(0, unload());
}

FIXTURE_TEARDOWN(module)
{
	if (self->fd >= 0) {
		ldisc_set(self->fd, N_TTY);
		close(self->fd);
	}
	if (access("/sys/module/gpsphc", F_OK) == 0)
		unload();
	load("");
}

TEST_F(module, load_and_unload)
{
	char buf[16];

	ASSERT_EQ(0, load(""));
	EXPECT_EQ(0, access(GPSPHC_CLASS, F_OK));
	EXPECT_LT(0, read_file("/sys/module/gpsphc/parameters/ldisc", buf, sizeof(buf)));
	EXPECT_STREQ("29\n", buf);
	EXPECT_EQ(0, unload());
	EXPECT_EQ(-1, access("/sys/module/gpsphc", F_OK));
	EXPECT_EQ(-1, access(GPSPHC_CLASS, F_OK));
	EXPECT_EQ(0, load(""));
	EXPECT_EQ(0, unload());
}

TEST_F(module, ldisc_parameter_moves_the_discipline)
{
	ASSERT_EQ(0, load("ldisc=25"));
	self->fd = sim_tty_open(1, O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(-EINVAL, ldisc_set(self->fd, GPSPHC_LDISC));
	ASSERT_EQ(0, ldisc_set(self->fd, 25));
	EXPECT_EQ(1, dir_entries(GPSPHC_CLASS));
	EXPECT_EQ(-EWOULDBLOCK, unload());
	ASSERT_EQ(0, ldisc_set(self->fd, N_TTY));
	EXPECT_EQ(0, unload());
}

TEST_F(module, ldisc_parameter_out_of_range_refused)
{
	EXPECT_EQ(-EINVAL, load("ldisc=0"));
	EXPECT_EQ(-EINVAL, load("ldisc=-1"));
	EXPECT_EQ(-EINVAL, load("ldisc=31"));	/* NR_LDISCS */
	EXPECT_EQ(-EINVAL, load("ldisc=1000"));
	EXPECT_EQ(-1, access("/sys/module/gpsphc", F_OK));
}

TEST_HARNESS_MAIN
