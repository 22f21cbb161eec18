/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the explorers (explore_test.c): their seed and duration
 * from the environment, which kernel this is, loading and unloading
 * gpsphc.ko, CAP_SYS_TIME dropped for one call of one thread, errno sets;
 * the watch on the kernel log is kmsg_watch.h's.
 */
#ifndef GPSPHC_EXPLORE_HELPERS_H
#define GPSPHC_EXPLORE_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/capability.h>

#include "kmsg_watch.h"

/*
 * A set of errno values (all below 128), built by a call so that it can
 * be kept in a variable beyond the block that chose it. Two 64-bit words,
 * not an unsigned __int128, which 32-bit targets (armhf) do not have.
 */
typedef struct {
	uint64_t bits[2];
} errset_t;

static inline errset_t errset_of(int err, ...)
{
	errset_t set = { { 0, 0 } };
	va_list ap;

	va_start(ap, err);
	for (; err; err = va_arg(ap, int))
		if (err > 0 && err < 128)
			set.bits[err / 64] |= (uint64_t)1 << (err % 64);
	va_end(ap);
	return set;
}

#define ERRNOS(...)	errset_of(__VA_ARGS__, 0)
#define NO_ERRNOS	((errset_t){ { 0, 0 } })

/* Is -@err (a negative errno) in @set? */
static inline bool errno_in(int err, errset_t set)
{
	return err < 0 && err > -128 && (set.bits[-err / 64] >> (-err % 64)) & 1;
}

/* Does @set hold no errno at all? */
static inline bool errset_empty(errset_t set)
{
	return !(set.bits[0] | set.bits[1]);
}

/*
 * Seconds each explorer case runs: GPSPHC_EXPLORE_SECONDS (1..86400, for
 * soaking), else @dflt.
 */
static inline int explore_seconds(int dflt)
{
	const char *s = getenv("GPSPHC_EXPLORE_SECONDS");
	int v = s ? atoi(s) : 0;

	return v >= 1 && v <= 86400 ? v : dflt;
}

/* GPSPHC_EXPLORE_SEED (decimal or 0x hex) into @seed: whether it was set. */
static inline bool explore_seed_from_env(uint64_t *seed)
{
	const char *s = getenv("GPSPHC_EXPLORE_SEED");
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	*seed = strtoull(s, &end, 0);
	return !errno && !*end;
}

/*
 * The debug test kernel (tools/testing/vm/debug_kernel.sh): its release
 * ends in -gpsphc-debug, and it carries the fix for the PTP registration
 * race that Debian's kernels have.
 */
static inline bool kernel_is_gpsphc_debug(void)
{
	static const char suffix[] = "-gpsphc-debug";
	struct utsname u;
	size_t n;

	if (uname(&u))
		return false;
	n = strlen(u.release);
	return n >= sizeof(suffix) - 1 &&
	       !strcmp(u.release + n - (sizeof(suffix) - 1), suffix);
}

/* ---- CAP_SYS_TIME, per thread --------------------------------------------- */

/*
 * Raise or lower CAP_SYS_TIME in the calling thread's effective set (it
 * stays permitted, so it can come back). The raw capset() changes the
 * calling thread only: one thread can run one call unprivileged while
 * the others keep the capability. 0 or -errno.
 */
static inline int cap_sys_time_effective(bool on)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	if (on)
		d[CAP_TO_INDEX(CAP_SYS_TIME)].effective |= CAP_TO_MASK(CAP_SYS_TIME);
	else
		d[CAP_TO_INDEX(CAP_SYS_TIME)].effective &= ~CAP_TO_MASK(CAP_SYS_TIME);
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

#endif /* GPSPHC_EXPLORE_HELPERS_H */
