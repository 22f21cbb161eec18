// SPDX-License-Identifier: GPL-2.0
/*
 * Loading and unloading gpsphc.ko, and its `ldisc` module parameter.
 * Leaves the module loaded with its defaults, as it found it.
 */
#define _GNU_SOURCE
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "gpsphc_test.h"

FIXTURE(module) {
	int fd;
};

FIXTURE_SETUP(module)
{
	self->fd = -1;
	if (gpsphc_module_loaded())
		ASSERT_EQ(0, gpsphc_module_unload());
}

FIXTURE_TEARDOWN(module)
{
	if (self->fd >= 0) {
		ldisc_set(self->fd, N_TTY);
		close(self->fd);
	}
	if (gpsphc_module_loaded())
		gpsphc_module_unload();
	gpsphc_module_load("");
}

TEST_F(module, load_and_unload)
{
	char buf[16];

	ASSERT_EQ(0, gpsphc_module_load(""));
	EXPECT_EQ(0, access(GPSPHC_CLASS, F_OK));
	EXPECT_LT(0, read_file("/sys/module/gpsphc/parameters/ldisc", buf, sizeof(buf)));
	EXPECT_STREQ("29\n", buf);
	EXPECT_EQ(0, gpsphc_module_unload());
	EXPECT_EQ(-1, access("/sys/module/gpsphc", F_OK));
	EXPECT_EQ(-1, access(GPSPHC_CLASS, F_OK));
	EXPECT_EQ(0, gpsphc_module_load(""));
	EXPECT_EQ(0, gpsphc_module_unload());
}

TEST_F(module, ldisc_parameter_moves_the_discipline)
{
	ASSERT_EQ(0, gpsphc_module_load("ldisc=25"));
	self->fd = sim_tty_open(1, O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(-EINVAL, ldisc_set(self->fd, GPSPHC_LDISC));
	ASSERT_EQ(0, ldisc_set(self->fd, 25));
	EXPECT_EQ(1, dir_entries(GPSPHC_CLASS));
	EXPECT_EQ(-EWOULDBLOCK, gpsphc_module_unload());
	ASSERT_EQ(0, ldisc_set(self->fd, N_TTY));
	EXPECT_EQ(0, gpsphc_module_unload());
}

TEST_F(module, ldisc_parameter_out_of_range_refused)
{
	EXPECT_EQ(-EINVAL, gpsphc_module_load("ldisc=0"));
	EXPECT_EQ(-EINVAL, gpsphc_module_load("ldisc=-1"));
	EXPECT_EQ(-EINVAL, gpsphc_module_load("ldisc=31"));	/* NR_LDISCS */
	EXPECT_EQ(-EINVAL, gpsphc_module_load("ldisc=1000"));
	EXPECT_EQ(-1, access("/sys/module/gpsphc", F_OK));
}

TEST_HARNESS_MAIN
