#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [KVER...]: run the benchmarks inside the test kernels and print
# their figures (make bench: every x86 kernel make check boots, Debian 12's
# 6.1 and 6.12 and Debian 13's amd64 and rt-amd64, as kernels.mk names
# them). Benchmarks print measurements; they never pass or fail.
set -eu
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
kvers=$*
[ -n "$kvers" ] ||
	kvers=$(sed -n 's/^KVER_\(61\|612\|DEB13\|DEB13_RT\) := //p' "$CACHE/kernels.mk")
for kver in $kvers; do
	sh "$TOP/tools/testing/vm/build.sh" "$kver"
	sh "$TOP/tools/testing/vm/run.sh" "$kver" bench 900 | grep '^# bench' |
		sed "s/^# bench/$kver:/"
done
