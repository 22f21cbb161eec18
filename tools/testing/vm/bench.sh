#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench: run the benchmarks inside both test kernels and print their
# figures. Benchmarks print measurements; they never pass or fail.
set -eu
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${GPSPHC_CACHE:-/var/cache/gpsphc}
for kver in $(sed -n 's/^KVER_[0-9]* := //p' "$CACHE/kernels.mk"); do
	sh "$TOP/tools/testing/vm/build.sh" "$kver"
	sh "$TOP/tools/testing/vm/run.sh" "$kver" bench 900 | grep '^# bench' |
		sed "s/^# bench/$kver:/"
done
